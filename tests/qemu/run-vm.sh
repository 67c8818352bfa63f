#!/bin/bash
# run-vm.sh PROFILE SCRIPT: boots the guest with the disks of PROFILE (fresh sparse raw images in
# $QDIR/disks/PROFILE), runs guest/SCRIPT inside it and powers off. The script's output lands in
# $QDIR/share/out/SCRIPT.log, the console in SCRIPT.console. While the VM runs, a helper answers
# the guest's "how many bytes of this image are allocated" questions (share/req/N.req → N.ans).
#
# Profiles: main   NVMe (512 B namespace; a controller with a 4Kn and a 512 B namespace; one whose
#                  drive is cache=writethrough, so its volatile write cache is off), virtio-scsi,
#                  AHCI and virtio-blk, discard passed through to the images
#           nodiscard  NVMe, virtio-scsi, AHCI and virtio-blk told not to advertise discard
# The images live in RAM (/dev/shm, removed afterwards): on a host filesystem mounted with
# online discard, every trim the guest passes through (and every rm) waits on the host's discards.
# Environment: DISKS_DIR (default /dev/shm/ssdfade-qemu), CACHE (QEMU cache= mode of the drives,
# default writeback), NVME_OPTS, SCSI_OPTS, SATA_OPTS, VBLK_OPTS (extra device options, e.g. ",dpofua=on"), VM_TIMEOUT (seconds, default
# 900), ACCEL (default tcg,thread=multi: this host's /dev/kvm is kvm-pvm, which boots only PVM
# guest kernels).
set -euo pipefail
HERE=$(cd "$(dirname "$0")" && pwd)
QDIR=$(cd "${QDIR:-$HERE/../../target/qemu}" && pwd)
PROFILE=${1:?usage: run-vm.sh PROFILE SCRIPT}; SCRIPT=${2:?usage: run-vm.sh PROFILE SCRIPT}
CACHE=${CACHE:-writeback}
R=$QDIR/root
QEMU=$R/usr/bin/qemu-system-x86_64
export LD_LIBRARY_PATH=$R/usr/lib/x86_64-linux-gnu:$R/lib/x86_64-linux-gnu
export QEMU_MODULE_DIR=$R/usr/lib/x86_64-linux-gnu/qemu
D=${DISKS_DIR:-/dev/shm/ssdfade-qemu}/$PROFILE
S=$QDIR/share
rm -rf "$D" "$S/guest" "$S/req"; mkdir -p "$D" "$S/out" "$S/req"
cp -r "$HERE/guest" "$S/guest"
img() { truncate -s "$2" "$D/$1"; echo "$D/$1"; }
C="cache=$CACHE"
case $PROFILE in
  main)
    args=(-drive file="$(img nvme0.img 1G)",if=none,id=n0,format=raw,discard=unmap,$C
          -device nvme,serial=deadbeef,drive=n0${NVME_OPTS:-}
          -device nvme,id=nvmec1,serial=cafe0001
          -drive file="$(img nvme1n1.img 512M)",if=none,id=n1,format=raw,discard=unmap,$C
          -device nvme-ns,drive=n1,bus=nvmec1,nsid=1,logical_block_size=4096,physical_block_size=4096
          -drive file="$(img nvme1n2.img 256M)",if=none,id=n2,format=raw,discard=unmap,$C
          -device nvme-ns,drive=n2,bus=nvmec1,nsid=2
          -drive file="$(img nvmewt.img 256M)",if=none,id=n3,format=raw,discard=unmap,cache=writethrough
          -device nvme,serial=wt000001,drive=n3
          -device virtio-scsi-pci,id=scsi0
          -drive file="$(img scsi0.img 512M)",if=none,id=s0,format=raw,discard=unmap,$C
          -device scsi-hd,drive=s0,bus=scsi0.0,serial=SCSI0001${SCSI_OPTS:-}
          -device ahci,id=ahci0
          -drive file="$(img sata0.img 512M)",if=none,id=a0,format=raw,discard=unmap,$C
          -device ide-hd,drive=a0,bus=ahci0.0,serial=SATA0001,model=QEMU-SATA-DISK${SATA_OPTS:-}
          -drive file="$(img vblk0.img 512M)",if=none,id=v0,format=raw,discard=unmap,$C
          -device virtio-blk-pci,drive=v0,serial=VBLK0001${VBLK_OPTS:-})
    DISKS=7 ;;
  nodiscard)
    args=(-drive file="$(img nvme0.img 512M)",if=none,id=n0,format=raw,$C
          -device nvme,serial=deadbeef,drive=n0,discard_granularity=0
          -device virtio-scsi-pci,id=scsi0
          -drive file="$(img scsi0.img 512M)",if=none,id=s0,format=raw,$C
          -device scsi-hd,drive=s0,bus=scsi0.0,serial=SCSI0001,discard_granularity=0
          -device ahci,id=ahci0
          -drive file="$(img sata0.img 512M)",if=none,id=a0,format=raw,$C
          -device ide-hd,drive=a0,bus=ahci0.0,serial=SATA0001,discard_granularity=0
          -drive file="$(img vblk0.img 512M)",if=none,id=v0,format=raw,$C
          -device virtio-blk-pci,drive=v0,serial=VBLK0001,discard=off,write-zeroes=off)
    DISKS=4 ;;
  *) echo "run-vm: unknown profile $PROFILE (main, nodiscard)" >&2; exit 2 ;;
esac

( while :; do
    for r in "$S"/req/*.req; do
      [ -e "$r" ] || continue
      f=$D/$(cat "$r"); a=${r%.req}.ans
      echo "$(( $(stat -c %b "$f") * 512 )) $(stat -c %s "$f")" > "$a.tmp"; mv "$a.tmp" "$a"; rm -f "$r"
    done; sleep 0.2
  done ) &
HELPER=$!
trap 'kill $HELPER 2>/dev/null || true; rm -rf "$D"' EXIT

rm -f "$S/out/$SCRIPT.log" "$S/out/$SCRIPT.console"
start=$(date +%s)
rc=0
timeout "${VM_TIMEOUT:-900}" "$QEMU" -accel "${ACCEL:-tcg,thread=multi}" -cpu "${CPU:-max}" -m 1G -smp 2 \
  -display none -serial stdio -monitor none -no-reboot -nic none -vga none -L "$QDIR/fw" \
  -kernel "$(ls "$R"/boot/vmlinuz-* | head -1)" -initrd "$QDIR/initramfs.cpio.gz" \
  -append "console=ttyS0 panic=-1 no_timer_check loglevel=4 script=$SCRIPT disks=$DISKS cache=$CACHE" \
  -virtfs local,path="$S",mount_tag=hostshare,security_model=none,id=hs \
  "${args[@]}" < /dev/null > "$S/out/$SCRIPT.console" 2>&1 || rc=$?
echo "run-vm: $PROFILE/$SCRIPT: VM ran $(( $(date +%s) - start )) s (exit $rc); log $S/out/$SCRIPT.log"
exit $rc
