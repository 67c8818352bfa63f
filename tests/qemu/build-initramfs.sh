#!/bin/bash
# build-initramfs.sh SSDFADE: builds $QDIR/initramfs.cpio.gz from the private root setup.sh made:
# busybox, the ssdfade binary given, nvme-cli, smartctl, hdparm, sg3-utils, util-linux's blkid,
# wipefs and blkdiscard, mke2fs (each with the shared libraries ldd names) and the guest kernel's
# storage modules (scsi_debug among them: a SCSI disk in guest RAM that answers LOG SENSE). A stripped copy of the binary keeps the image small and the boot quick.
set -euo pipefail
HERE=$(cd "$(dirname "$0")" && pwd)
QDIR=$(cd "${QDIR:-$HERE/../../target/qemu}" && pwd)
SSDFADE=${1:?usage: build-initramfs.sh PATH-OF-SSDFADE}
R=$QDIR/root
[ -e "$R/.complete" ] || { echo "build-initramfs: run setup.sh first ($R is incomplete)" >&2; exit 1; }
KVER=$(ls "$R/lib/modules" | head -1)
I=$QDIR/initramfs
rm -rf "$I"; mkdir -p "$I"/{bin,sbin,usr/bin,usr/sbin,proc,sys,dev,tmp,run,host,etc,mnt,root}
export LD_LIBRARY_PATH=$R/usr/lib/x86_64-linux-gnu:$R/lib/x86_64-linux-gnu

# copy_bin SRC DEST: the file at DEST and every library ldd names at its system path
copy_bin() {
  local src=$1 dst=$2
  mkdir -p "$I$(dirname "$dst")"; cp -L "$src" "$I$dst"
  ldd "$src" 2>/dev/null | awk '/=> \//{print $3} /^\t\/lib/{print $1}' | while read -r lib; do
    local d=${lib#"$R"}
    [ -e "$I$d" ] && continue
    mkdir -p "$I$(dirname "$d")"; cp -L "$lib" "$I$d"
  done
}

cp "$R/bin/busybox" "$I/bin/busybox"
if command -v strip >/dev/null; then
  strip -o "$QDIR/ssdfade.stripped" "$SSDFADE"; copy_bin "$QDIR/ssdfade.stripped" /usr/bin/ssdfade
else
  copy_bin "$SSDFADE" /usr/bin/ssdfade
fi
copy_bin "$R/usr/sbin/nvme" /usr/sbin/nvme
copy_bin "$R/usr/sbin/smartctl" /usr/sbin/smartctl
for b in hdparm blkid wipefs blkdiscard mke2fs mkswap; do copy_bin "$R/sbin/$b" "/usr/sbin/$b"; done
ln -sf mke2fs "$I/usr/sbin/mkfs.ext4"
for s in sg_inq sg_vpd sg_readcap sg_modes sg_sat_identify sg_turs sg_logs; do copy_bin "$R/usr/bin/$s" "/usr/bin/$s"; done

M=$R/lib/modules/$KVER
want="nvme ahci virtio_scsi virtio_blk virtio_pci sd_mod sg 9pnet_virtio 9p ext4 crc32c_generic
      crc64_rocksoft_generic crct10dif_generic zram loop scsi_debug"
mkdir -p "$I/lib/modules/$KVER"
for m in $want; do
  line=$(grep -E "/${m}\.ko:" "$M/modules.dep" || true)
  [ -n "$line" ] || continue   # built in
  for f in ${line%%:*} ${line#*:}; do
    mkdir -p "$I/lib/modules/$KVER/$(dirname "$f")"; cp "$M/$f" "$I/lib/modules/$KVER/$f"
  done
done
cp "$M"/modules.{dep,alias,builtin,order} "$I/lib/modules/$KVER/" 2>/dev/null || true
echo 'root:x:0:0:root:/root:/bin/sh' > "$I/etc/passwd"
echo 'root:x:0:' > "$I/etc/group"
cp "$HERE/init" "$I/init"; chmod +x "$I/init"
(cd "$I" && find . | "$R/bin/busybox" cpio -o -H newc 2>/dev/null | gzip -1 > "$QDIR/initramfs.cpio.gz")
echo "build-initramfs: $(du -sh "$QDIR/initramfs.cpio.gz" | cut -f1) ($KVER)"
