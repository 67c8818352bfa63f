# Full set: measure (threads, io_uring, mixed), slog and soak on every controller; the write
# cache each reports against sysfs and nvme-cli / hdparm / sg_modes.
. /host/guest/lib.sh
R=$OUT/io-$(sed -n 's/.*cache=\([a-z]*\).*/\1/p' /proc/cmdline); rm -rf $R; mkdir -p $R
KINDS=${KINDS:-"nvme-legacy nvme-ns1 nvme-wt scsi sata vblk"}
for k in $KINDS; do d=$(dev_of $k); [ -b "$d" ] || continue; n=${d##*/}
  sec "$k = $d"
  echo "sysfs write_cache=$(cat /sys/block/$n/queue/write_cache) fua=$(cat /sys/block/$n/queue/fua)"
  case $k in nvme*) nvme get-feature $d -f 6 2>&1 | tail -1;; sata) hdparm -W $d | tail -1;; scsi) sg_modes -p 8 $d 2>/dev/null | grep -i WCE | head -1;; esac
  rc_is 0 "$k info" ssdfade info $d
  grep -E "^(write cache|FUA)" /tmp/out
  for e in threads uring; do
    rc_is 0 "$k measure $e" ssdfade measure $d --destroy-data $d --duration 3s --qd 16 --engine $e --out $R/$k-measure-$e
  done
  rc_is 0 "$k measure mixed" ssdfade measure $d --destroy-data $d --duration 3s --qd 16 --bs 64k --read-pct 50 --random-pct 0 --out $R/$k-mixed
  rc_is 0 "$k slog" ssdfade slog $d --destroy-data $d --sustain 2s --max-size 4k --out $R/$k-slog
  grep -E "write (back|through)|Verdict|SUITABLE|MARGINAL" /tmp/out | head -5
  rc_is 0 "$k soak" ssdfade soak $d --destroy-data $d --duration 6s --interval 2s --qd 16 --out $R/$k-soak
done
echo "io: done"
