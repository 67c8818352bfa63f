# The short subset tests/qemu.rs runs (profile main): on every controller info, erase and measure,
# slog on NVMe (write cache off) and virtio-scsi; the panic cases (blkid absent, busybox's, ambivalent), an empty partition, serials, the
# NVMe write cache, transport classes and dry runs that refuse what real runs refuse.
. /host/guest/lib.sh
R=$OUT/ci; rm -rf $R; mkdir -p $R
KINDS="nvme-legacy nvme-ns1 nvme-wt scsi sata vblk"
sec "devices"
for k in $KINDS nvme-ns2; do d=$(dev_of $k); echo "$k = $d"; check "boot: $k present" [ -b "$d" ]; done

sec "info: kind, serial, WWN, write cache"
expect_kind() { case $1 in nvme*) echo nvme;; scsi) echo scsi;; sata) echo sata;; vblk) echo virtio;; esac; }
expect_serial() { case $1 in nvme-legacy) echo deadbeef;; nvme-ns1) echo cafe0001;; nvme-wt) echo wt000001;;
  scsi) echo SCSI0001;; sata) echo SATA0001;; vblk) echo VBLK0001;; esac; }
for k in $KINDS; do d=$(dev_of $k)
  rc_is 0 "info $k" ssdfade info $d --json
  cp /tmp/out $R/$k.info.json
  has "info $k: kind $(expect_kind $k)" "\"kind\": \"$(expect_kind $k)\""
  has "info $k: serial $(expect_serial $k)" "\"serial\": \"$(expect_serial $k)\""
  lacks "info $k: asks no ATA question unless SATA" "$([ $k = sata ] && echo NEVER-MATCHES || echo 'IDENTIFY|ATA security')"
done
rc_is 0 "info sata --json" ssdfade info $(dev_of sata) --json
has "sata: WWN kept apart from the serial" '"wwn": "(naa|t10)\.'
has "sata: serial from IDENTIFY" '"serial": "SATA0001"'
has "sata: ATA security read" '"ata_security": \{'
rc_is 0 "info nvme-wt" ssdfade info $(dev_of nvme-wt)
has "nvme-wt: volatile write cache off is write through" "write cache +write through .*WCE = 0"
rc_is 0 "info nvme-legacy" ssdfade info $(dev_of nvme-legacy)
has "nvme-legacy: write back" "write cache +write back"

sec "power management: info against nvme-cli and hdparm"
N=$(dev_of nvme-legacy)
nvme id-ctrl $N > /tmp/idctrl 2>&1; grep -E '^(npss|apsta) |^ps +[0-9]+ :' /tmp/idctrl
mp=$(sed -n -E 's/^ps +0 : mp:([0-9.]+)W.*/\1/p' /tmp/idctrl); apsta=$(sed -n -E 's/^apsta +: *//p' /tmp/idctrl)
rc_is 0 "info nvme-legacy --json" ssdfade info $N --json
w=$(grep -A3 '"state": 0' /tmp/out | sed -n -E 's/.*"max_watts": ?([0-9.]+).*/\1/p')
check "power nvme-legacy: power state 0 is nvme-cli's ${mp:-?} W (info: ${w:-?} W)" \
  awk -v a="${mp:-x}" -v b="${w:-y}" 'BEGIN{exit !(a != "x" && b != "y" && a + 0 == b + 0)}'
if [ "$apsta" = 0 ]; then lacks "power nvme-legacy: no APST when APSTA is 0, as nvme-cli says" '"apst"'
else has "power nvme-legacy: APST read when APSTA is $apsta" '"apst": (true|false)'; fi
rc_is 0 "info nvme-legacy" ssdfade info $N
has "power nvme-legacy: a power management row" "power management +.*power states: 0 "
A=$(dev_of sata); hdparm -I $A > /tmp/hdparm 2>&1; grep -i -E 'model number|power management' /tmp/hdparm
check "power sata: hdparm -I read the drive's IDENTIFY" grep -q 'Model Number' /tmp/hdparm
rc_is 0 "info sata --json" ssdfade info $A --json
if grep -q -i -E '^[[:space:]]+\*?[[:space:]]*Advanced power management' /tmp/hdparm; then
  has "power sata: APM supported, as hdparm says" '"apm_level"'
else lacks "power sata: no APM, as hdparm says" '"apm_level"'; fi

sec "erase: trim reads back as zeros, whole-drive methods where they apply"
rc_is 0 "erase scsi trim --dry-run" ssdfade erase $(dev_of scsi) --method trim --destroy-data $(dev_of scsi) --dry-run
for k in $KINDS; do d=$(dev_of $k)
  fill $d 4
  rc_is 0 "erase $k trim" ssdfade erase $d --method trim --span 64M --destroy-data $d --out $R/$k-trim
  check "erase $k trim: first 4 MiB read back as zeros" [ "$(nonzero $d 0 4)" = 0 ]
done
N=$(dev_of nvme-legacy); fill $N 4
rc_is 0 "erase nvme-legacy nvme-format" ssdfade erase $N --method nvme-format --destroy-data $N --out $R/nvme-format
check "nvme-format: first 4 MiB read back as zeros" [ "$(nonzero $N 0 4)" = 0 ]
for m in ata-secure-erase secure-discard; do S=$(dev_of scsi)
  rc_is 2 "scsi $m refused" ssdfade erase $S --method $m --destroy-data $S --out $R/scsi-$m
  cp /tmp/out /tmp/real
  rc_is 2 "scsi $m --dry-run refused too" ssdfade erase $S --method $m --destroy-data $S --dry-run
  check "scsi $m: the dry run's refusal is the real run's" cmp -s /tmp/out /tmp/real
  check "scsi $m: no run directory" [ ! -e $R/scsi-$m ]
done
rc_is 2 "nvme-sanitize refused (QEMU 7.2 has none), dry run too" ssdfade erase $N --method nvme-sanitize --destroy-data $N --dry-run
has "nvme-sanitize: says why" "does not support Sanitize"

sec "measure and slog"
for k in $KINDS; do d=$(dev_of $k)
  rc_is 0 "measure $k" ssdfade measure $d --destroy-data $d --duration 2s --interval 500ms --qd 4 --out $R/$k-measure
  cp /tmp/out $R/$k-measure.out
done
# Telemetry: the NVMe health log's composite temperature and the ATA attribute 190/194 (QEMU's
# AHCI disk has 190) are read every interval; virtio-blk answers nothing and costs nothing.
for k in nvme-legacy nvme-ns1 nvme-wt sata; do S=$R/$k-measure
  n=$(grep -c . $S/samples.jsonl); t=$(grep -c -E '"temperature_c": ?-?[0-9]' $S/samples.jsonl)
  check "telemetry $k: every sample carries a temperature ($t of $n)" [ "$n" -ge 2 -a "$t" = "$n" ]
  echo "telemetry $k: $(grep -A4 '"telemetry"' $S/run.json | tr -d ' \n')"
  check "telemetry $k: the sampler's CPU per reading is recorded" grep -q '"cpu_per_read_us"' $S/run.json
done
check "power: the run record carries the drive's power management" grep -q '"power": {' $R/nvme-legacy-measure/run.json
# virtio-scsi: QEMU's scsi-hd may or may not answer LOG SENSE of the temperature page 0x0D;
# sg_logs says which. If it answers, every sample carries its temperature; if not, the sampler
# asks once (reads 1: the failed ask, whose CPU is cpu_per_read_us), notes it once, and stops.
S=$R/scsi-measure; n=$(grep -c . $S/samples.jsonl); t=$(grep -c -E '"temperature_c": ?-?[0-9]' $S/samples.jsonl)
echo "\$ sg_logs -p 0x0d $(dev_of scsi)"; sg_logs -p 0x0d $(dev_of scsi) > /tmp/sglogs 2>&1; sgrc=$?
sed 's/^/  | /' /tmp/sglogs; echo "  sg_logs exit $sgrc"
grep -A4 '"telemetry"' $S/run.json | tr -d ' \n' > /tmp/tel; echo "telemetry scsi: $(cat /tmp/tel)"
if [ $sgrc = 0 ] && grep -q -i temperature /tmp/sglogs; then
  check "telemetry scsi (page 0x0D answered): every sample carries a temperature ($t of $n)" [ "$n" -ge 2 -a "$t" = "$n" ]
else
  check "telemetry scsi (page 0x0D refused): asked once" grep -q -E '"reads":1[,}]' /tmp/tel
  check "telemetry scsi: the refusal noted in run.json" grep -q '"note":"' /tmp/tel
  check "telemetry scsi: at most one line of the output says so" [ "$(grep -c -i -E 'telemetry|health' $R/scsi-measure.out)" -le 1 ]
  check "telemetry scsi: no sample carries a reading" [ -z "$(grep '"health"' $S/samples.jsonl)" ]
fi
check "telemetry scsi: the sampler's CPU per ask is recorded" grep -q '"cpu_per_read_us"' $S/run.json
# A SCSI disk that answers the temperature page: scsi_debug's RAM disk (the page gives a current
# and a reference temperature). Every sample carries what sg_logs reads; the cost per ask of a
# LOG SENSE that answers is its cpu_per_read_us.
modprobe scsi_debug dev_size_mb=64 2>/dev/null
for i in $(seq 1 50); do [ -n "$(dev_of sdebug)" ] && break; sleep 0.2; done
D=$(dev_of sdebug); check "scsi_debug: a disk appeared" [ -n "$D" ]
if [ -n "$D" ]; then
  echo "\$ sg_logs -p 0x0d $D"; sg_logs -p 0x0d $D > /tmp/sglogs 2>&1; sed 's/^/  | /' /tmp/sglogs
  cur=$(sed -n -E 's/.*Current temperature *= *([0-9]+) C.*/\1/p' /tmp/sglogs)
  ref=$(sed -n -E 's/.*Reference temperature *= *([0-9]+) C.*/\1/p' /tmp/sglogs)
  rc_is 0 "measure sdebug" ssdfade measure $D --destroy-data $D --duration 2s --interval 500ms --qd 4 --out $R/sdebug-measure
  S=$R/sdebug-measure; n=$(grep -c . $S/samples.jsonl)
  t=$(grep -c -E "\"temperature_c\": ?${cur:-none}(\.0)?[,}]" $S/samples.jsonl)
  w=$(grep -c -E "\"warning_c\": ?${ref:-none}(\.0)?[,}]" $S/samples.jsonl)
  check "telemetry sdebug: every sample carries sg_logs' ${cur:-?} C ($t of $n)" [ "$n" -ge 2 -a "$t" = "$n" ]
  check "telemetry sdebug: and its reference ${ref:-?} C as the warning threshold ($w of $n)" [ "$w" = "$n" ]
  echo "telemetry sdebug: $(grep -A4 '"telemetry"' $S/run.json | tr -d ' \n')"
  check "telemetry sdebug: no note" [ -z "$(grep -A4 '"telemetry"' $S/run.json | grep '"note"')" ]
fi
rmmod scsi_debug 2>/dev/null
# Bounded: the sampler spends less CPU per ask than the 500 ms interval it asks in.
for k in nvme-legacy nvme-ns1 nvme-wt sata scsi sdebug; do
  [ -e $R/$k-measure/run.json ] || continue
  c=$(grep -o -E '"cpu_per_read_us": ?[0-9.e+-]+' $R/$k-measure/run.json | grep -o -E '[0-9.e+-]+$')
  check "telemetry $k: CPU per ask ${c:-?} us is under the 500 ms interval" awk -v c="${c:-1e99}" 'BEGIN{exit !(c < 500000)}'
done
check "telemetry vblk: at most one line says anything of telemetry or health" \
  [ "$(grep -c -i -E 'telemetry|health' $R/vblk-measure.out)" -le 1 ]
check "telemetry vblk: no sampler ran" [ -z "$(grep '"telemetry"' $R/vblk-measure/run.json)" ]
check "telemetry vblk: no sample carries a reading" [ -z "$(grep '"health"' $R/vblk-measure/samples.jsonl)" ]
# slog on two controllers only (a sweep takes 15-50 s under TCG on a loaded host); io.sh runs
# it on every one
for k in nvme-wt scsi; do d=$(dev_of $k)
  rc_is 0 "slog $k" ssdfade slog $d --destroy-data $d --sustain 0 --max-size 4k --out $R/$k-slog
done
check "slog nvme-wt: recorded as write through" grep -q '"write_cache": "write through' $R/nvme-wt-slog/slog.json
check "slog scsi: recorded as write back" grep -q '"write_cache": "write back' $R/scsi-slog/slog.json

sec "signature check without util-linux blkid, with busybox's, and ambivalent"
V=$(dev_of vblk)
mkdir -p /tmp/nob; ln -sf /bin/busybox /tmp/nob/sh
mv /usr/sbin/blkid /usr/sbin/blkid.off
rc_is 0 "info with no blkid at all" env PATH=/tmp/nob /usr/bin/ssdfade info $V
rc_is 0 "erase with no blkid at all" env PATH=/tmp/nob /usr/bin/ssdfade erase $V --method zeroout --span 1M --destroy-data $V --out $R/noblkid
mv /usr/sbin/blkid.off /usr/sbin/blkid
rc_is 0 "info with busybox blkid (PATH=/bin)" env PATH=/bin /usr/bin/ssdfade info $V
rc_is 0 "erase --dry-run with busybox blkid" env PATH=/bin /usr/bin/ssdfade erase $V --method trim --dry-run
mkfs.ext4 -q -F $V
mkdir -p /tmp/amb; printf '#!/bin/sh\nexit 8\n' > /tmp/amb/blkid; chmod +x /tmp/amb/blkid
rc_is 0 "info when blkid is ambivalent (exit 8)" env PATH=/tmp/amb:/usr/bin:/bin ssdfade info $V
has "ambivalent: shown as several signatures" "signature +ext2/3/4 and another"
rc_is 2 "measure when blkid is ambivalent needs --force" env PATH=/tmp/amb:/usr/bin:/bin ssdfade measure $V --destroy-data $V --duration 1s
rc_is 0 "with --force it runs" env PATH=/tmp/amb:/usr/bin:/bin ssdfade erase $V --method zeroout --span 1M --destroy-data $V --force --out $R/ambivalent

sec "an empty partition needs no --force; its neighbour is untouched"
S=$(dev_of scsi)
mbr $S 2048 131072 133120 131072
check "partition 1 read" [ -b ${S}1 ]
check "partition 2 read" [ -b ${S}2 ]
dd if=/dev/zero of=${S}1 bs=1M count=64 oflag=direct 2>/dev/null
rc_is 0 "blkid -p on the empty partition (PART_ENTRY lines only)" blkid -p -o export ${S}1
rc_is 0 "info on the empty partition" ssdfade info ${S}1
has "empty partition: no signature" "signature +none found"
fill ${S}1 4; fill ${S}2 4
rc_is 0 "zeroout of partition 1 without --force" ssdfade erase ${S}1 --method zeroout --destroy-data ${S}1 --span 4M --out $R/part
check "partition 1 zeroed" [ "$(nonzero ${S}1 0 4)" = 0 ]
check "partition 2 untouched" [ "$(nonzero ${S}2 0 4)" = 4 ]
rc_is 2 "a whole-disk write over the partition table needs --force" ssdfade erase $S --method trim --destroy-data $S
echo "ci: done"
