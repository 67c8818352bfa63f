#!/bin/bash
# setup.sh: fetches QEMU 7.2, SeaBIOS, the Debian kernel with its modules, busybox-static and the
# drive tools the guest compares against (nvme-cli, smartmontools, hdparm, sg3-utils) with
# `apt-get download` and unpacks them with `dpkg-deb -x` into a private root ($QDIR/root, by
# default target/qemu/root). Nothing is installed system-wide. Re-running it is cheap: a
# complete root is left alone.
set -euo pipefail
HERE=$(cd "$(dirname "$0")" && pwd)
QDIR=${QDIR:-$HERE/../../target/qemu}
mkdir -p "$QDIR/debs" "$QDIR/root" "$QDIR/fw"
QDIR=$(cd "$QDIR" && pwd)
if [ -e "$QDIR/root/.complete" ]; then echo "setup: $QDIR/root is complete"; exit 0; fi
apt-get update -qq 2>/dev/null || echo "setup: apt-get update failed (offline?); trying the package cache"
KPKG=$(apt-cache depends linux-image-amd64 | awk '/Depends: linux-image-[0-9]/{print $2; exit}')
[ -n "$KPKG" ] || { echo "setup: no Debian kernel package known to apt" >&2; exit 1; }
cd "$QDIR/debs"
apt-get download qemu-system-x86 qemu-system-common qemu-system-data seabios libcapstone4 libfdt1 \
  libslirp0 libvdeplug2 busybox-static sg3-utils libsgutils2-1.46-2 nvme-cli libnvme1 libjson-c5 \
  smartmontools hdparm e2fsprogs util-linux libpmem1 libdaxctl1 libndctl6 libibverbs1 librdmacm1 \
  libnl-3-200 libnl-route-3-200 libkmod2 "$KPKG"
for d in *.deb; do dpkg-deb -x "$d" "$QDIR/root"; done
KVER=${KPKG#linux-image-}
"$QDIR/root/bin/busybox" depmod -b "$QDIR/root" "$KVER"
for f in "$QDIR"/root/usr/share/qemu/* "$QDIR"/root/usr/share/seabios/*; do ln -sf "$f" "$QDIR/fw/"; done
export LD_LIBRARY_PATH=$QDIR/root/usr/lib/x86_64-linux-gnu:$QDIR/root/lib/x86_64-linux-gnu
missing=$(ldd "$QDIR/root/usr/bin/qemu-system-x86_64" | awk '/not found/{print $1}')
[ -z "$missing" ] || { echo "setup: QEMU still lacks $missing" >&2; exit 1; }
"$QDIR/root/usr/bin/qemu-system-x86_64" --version | head -1
echo "kernel $KVER" > "$QDIR/root/.complete"
echo "setup: done in $QDIR/root (kernel $KVER)"
