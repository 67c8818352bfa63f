# Sourced by the guest scripts: device lookup, checks that print one CHECK line each, data helpers.
export PATH=/usr/sbin:/usr/bin:/sbin:/bin
OUT=/host/out
# dev_of KIND: the block device of nvme-legacy (512 B namespace), nvme-ns1 (4Kn) and nvme-ns2 of
# the two-namespace controller, nvme-wt (write cache off), scsi (virtio-scsi), sata (AHCI), vblk,
# sdebug (a scsi_debug disk, once a guest script has loaded the module)
dev_of() {
  local d
  case $1 in
    scsi) for d in /sys/block/sd*; do readlink -f $d | grep -q virtio && { echo /dev/${d##*/}; return; }; done ;;
    sata) for d in /sys/block/sd*; do readlink -f $d | grep -q /ata && { echo /dev/${d##*/}; return; }; done ;;
    vblk) echo /dev/vda ;;
    sdebug) for d in /sys/block/sd*; do readlink -f $d | grep -q /pseudo_ && { echo /dev/${d##*/}; return; }; done ;;
    nvme-legacy) for d in /sys/block/nvme*n1; do grep -q deadbeef $d/device/serial 2>/dev/null && { echo /dev/${d##*/}; return; }; done ;;
    nvme-wt) for d in /sys/block/nvme*n1; do grep -q wt000001 $d/device/serial 2>/dev/null && { echo /dev/${d##*/}; return; }; done ;;
    nvme-ns1) for d in /sys/block/nvme*n1; do grep -q cafe0001 $d/device/serial 2>/dev/null && { echo /dev/${d##*/}; return; }; done ;;
    nvme-ns2) for d in /sys/block/nvme*n2; do grep -q cafe0001 $d/device/serial 2>/dev/null && { echo /dev/${d##*/}; return; }; done ;;
  esac
}
# img_of KIND: its backing image on the host
img_of() { case $1 in nvme-legacy) echo nvme0.img;; nvme-ns1) echo nvme1n1.img;; nvme-ns2) echo nvme1n2.img;;
  nvme-wt) echo nvmewt.img;; scsi) echo scsi0.img;; sata) echo sata0.img;; vblk) echo vblk0.img;; esac; }
sec() { echo; echo "=================== $* ==================="; }
pass() { echo "CHECK ok   $1"; }
fail() { echo "CHECK FAIL $1: $2"; }
# check NAME TEST...: passes when the shell test holds
check() { local n=$1; shift; if "$@"; then pass "$n"; else fail "$n" "not true: $*"; fi; }
# rc_is WANT NAME CMD...: runs CMD (output in /tmp/out, echoed), checks its exit status
rc_is() {
  local want=$1 name=$2; shift 2
  echo "\$ $*"
  local t0=$(cut -d' ' -f1 /proc/uptime)
  "$@" > /tmp/out 2>&1; local rc=$?
  local took=$(echo "$(cut -d' ' -f1 /proc/uptime) $t0" | awk '{printf "%.1f", $1-$2}')
  sed 's/^/  | /' /tmp/out | tail -40
  if [ "$rc" = "$want" ]; then pass "$name (exit $rc, $took s)"; else fail "$name" "exit $rc, wanted $want ($took s)"; fi
}
# has NAME PATTERN: the last command's output matches the extended regex
has() { if grep -q -E -- "$2" /tmp/out; then pass "$1"; else fail "$1" "no match for /$2/"; fi; }
lacks() { if grep -q -E -- "$2" /tmp/out; then fail "$1" "unexpected /$2/"; else pass "$1"; fi; }
# hostalloc KIND: allocated bytes of the backing image, asked of the host
hostalloc() {
  local r=/host/req/$$-$(cut -d' ' -f1 /proc/uptime | tr -d .)
  img_of $1 > $r.tmp; mv $r.tmp $r.req
  for i in $(seq 1 150); do [ -e $r.ans ] && break; sleep 0.1; done
  cut -d' ' -f1 $r.ans 2>/dev/null; rm -f $r.ans
}
# fill DEV MIB [SEEK_MIB]: random data, O_DIRECT
fill() { dd if=/dev/urandom of=$1 bs=1M count=$2 seek=${3:-0} oflag=direct 2>/dev/null; sync; }
# nonzero DEV FIRST_MIB COUNT_MIB: how many MiB in the range hold a non-zero byte
nonzero() {
  local n=0 i=$2 end=$(($2+$3))
  while [ $i -lt $end ]; do
    [ "$(dd if=$1 bs=1M skip=$i count=1 iflag=direct 2>/dev/null | tr -d '\000' | wc -c)" -gt 0 ] && n=$((n+1))
    i=$((i+1))
  done
  echo $n
}
# le32 N: four little-endian bytes for printf
le32() { printf '\\%03o\\%03o\\%03o\\%03o' $(($1 & 255)) $((($1 >> 8) & 255)) $((($1 >> 16) & 255)) $((($1 >> 24) & 255)); }
# mbr DEV START1 SECTORS1 [START2 SECTORS2]: an MBR with Linux partitions, read again by the kernel
mbr() {
  local dev=$1 e="" 
  dd if=/dev/zero of=$dev bs=512 count=1 conv=notrunc 2>/dev/null
  e="\\000\\000\\000\\000\\203\\000\\000\\000$(le32 $2)$(le32 $3)"
  [ -n "${4:-}" ] && e="$e\\000\\000\\000\\000\\203\\000\\000\\000$(le32 $4)$(le32 $5)"
  printf "$e" | dd of=$dev bs=1 seek=446 conv=notrunc 2>/dev/null
  printf '\125\252' | dd of=$dev bs=1 seek=510 conv=notrunc 2>/dev/null
  sync; blockdev --rereadpt $dev; sleep 1
}
