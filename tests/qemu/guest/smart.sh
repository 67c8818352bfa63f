# Full set: NVMe "data units written" (one unit = 512,000 bytes) against the bytes ssdfade wrote,
# as nvme-cli reads it and as ssdfade's info reports it (smartctl, then the native log path).
. /host/guest/lib.sh
R=$OUT/smart; rm -rf $R; mkdir -p $R
hbw() { ssdfade info $1 --json | grep '"host_bytes_written"' | tr -dc '0-9'; }
hbw_native() { env PATH=/bin /usr/bin/ssdfade info $1 --json | grep '"host_bytes_written"' | tr -dc '0-9'; }
units() { nvme smart-log $1 -o json 2>/dev/null | grep -i '"data_units_written"' | tr -dc '0-9'; }
for k in nvme-legacy nvme-ns1; do d=$(dev_of $k)
  sec "$k = $d"
  nvme smart-log $d 2>&1 | head -8
  u0=$(units $d); b0=$(hbw $d); n0=$(hbw_native $d)
  rc_is 0 "$k write 64 MiB" ssdfade measure $d --destroy-data $d --bytes 64M --duration 120s --qd 8 --bs 128k --random-pct 0 --out $R/$k
  u1=$(units $d); b1=$(hbw $d); n1=$(hbw_native $d)
  want=$(( (67108864 + 511999) / 512000 ))
  echo "RESULT-SMART $k nvme-cli data_units_written ${u0:-?} -> ${u1:-?}; ssdfade host_bytes_written ${b0:-?} -> ${b1:-?} (native ${n0:-?} -> ${n1:-?}); 64 MiB = $want units"
  check "$k: nvme-cli data units moved by at least ceil(64 MiB / 512000)" [ $(( ${u1:-0} - ${u0:-0} )) -ge $want ]
  check "$k: ssdfade's host bytes written moved as many units" [ $(( (${b1:-0} - ${b0:-0}) / 512000 )) -eq $(( ${u1:-0} - ${u0:-0} )) ]
  check "$k: the native SMART path agrees" [ "${n1:-x}" = "${b1:-y}" ]
done
echo "smart: done"
