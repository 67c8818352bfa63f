# Full set: NVMe "data units written" against the bytes ssdfade wrote (one unit = 512,000 bytes).
. /host/guest/lib.sh
R=$OUT/smart; rm -rf $R; mkdir -p $R
for k in nvme-legacy nvme-ns1; do d=$(dev_of $k)
  sec "$k = $d"
  b0=$(nvme smart-log $d | awk -F: '/data_units_written/{gsub(/[ ,]/,"",$2); print $2+0}')
  rc_is 0 "$k write 64 MiB" ssdfade measure $d --destroy-data $d --bytes 64M --duration 120s --qd 8 --bs 128k --random-pct 0 --out $R/$k
  b1=$(nvme smart-log $d | awk -F: '/data_units_written/{gsub(/[ ,]/,"",$2); print $2+0}')
  echo "RESULT $k data_units_written $b0 -> $b1 (64 MiB = $(( (67108864 + 511999) / 512000 )) units)"
  check "$k: data units moved by ceil(64 MiB / 512000)" [ $((b1 - b0)) -ge 132 ]
done
echo "smart: done"
