# Full set: every erase method on every controller (profile main or nodiscard): the dry run's exit
# status against the real run's, the first and last 4 MiB read back, and the backing image's
# allocated bytes on the host before and after. One RESULT line per method and controller.
. /host/guest/lib.sh
R=$OUT/erase-all; rm -rf $R; mkdir -p $R
KINDS=${KINDS:-"nvme-legacy nvme-ns1 nvme-wt scsi sata vblk"}
METHODS="trim secure-discard zeroout nvme-format nvme-sanitize ata-secure-erase punch auto"
for k in $KINDS; do d=$(dev_of $k); [ -b "$d" ] || continue
  mib=$(( $(blockdev --getsize64 $d) / 1048576 ))
  for m in $METHODS; do
    sec "$k $d --method $m"
    ssdfade erase $d --method $m --destroy-data $d --dry-run > $R/$k-$m.dry 2>&1; dry=$?
    fill $d 4; fill $d 4 $((mib-4))
    before=$(hostalloc $k)
    ssdfade erase $d --method $m --destroy-data $d --out $R/$k-$m > $R/$k-$m.real 2>&1; real=$?
    after=$(hostalloc $k)
    first=$(nonzero $d 0 4); last=$(nonzero $d $((mib-4)) 4)
    used=$(grep -o '"method": "[a-z-]*"' $R/$k-$m/erase.json 2>/dev/null | tail -1 | cut -d'"' -f4)
    echo "RESULT $k $m dry=$dry real=$real used=${used:--} nonzero_first4=$first nonzero_last4=$last host_alloc_before=$before after=$after"
    [ $dry = $real ] && pass "$k $m: dry run exit $dry = real run exit $real" || fail "$k $m" "dry run exit $dry, real run exit $real"
    if [ $real = 0 ]; then
      check "$k $m: read back as zeros" [ "$first$last" = 00 ]
    else
      check "$k $m: refused, no run directory" [ ! -e $R/$k-$m ]
      head -1 $R/$k-$m.real
    fi
  done
done
echo "erase-all: done"
