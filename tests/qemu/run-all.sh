#!/bin/bash
# run-all.sh: the full set, every guest script with its profile and cache mode, after setup and
# an initramfs of the given binary (default target/release/ssdfade). Logs in target/qemu/share/out;
# RESULT and CHECK lines gathered in target/qemu/share/out/summary.txt, the erase tables (table.sh)
# beside them. Long under TCG (tens of minutes on 2 loaded cores).
set -u
HERE=$(cd "$(dirname "$0")" && pwd)
QDIR=${QDIR:-$HERE/../../target/qemu}
BIN=${1:-$HERE/../../target/release/ssdfade}
bash "$HERE/setup.sh" && bash "$HERE/build-initramfs.sh" "$BIN" || exit 1
t() { local s=$(date +%s); "$@" | tail -1; echo "  ($(( $(date +%s) - s )) s: $*)"; }
t bash "$HERE/run-vm.sh" main ci.sh
t bash "$HERE/run-vm.sh" main erase-all.sh
t bash "$HERE/run-vm.sh" main io.sh
cp "$QDIR/share/out/io.sh.log" "$QDIR/share/out/io-writeback.log" 2>/dev/null
t bash "$HERE/run-vm.sh" main smart.sh
cp "$QDIR/share/out/erase-all.sh.log" "$QDIR/share/out/erase-all-main.log" 2>/dev/null
t bash "$HERE/run-vm.sh" nodiscard erase-all.sh
cp "$QDIR/share/out/erase-all.sh.log" "$QDIR/share/out/erase-all-nodiscard.log" 2>/dev/null
CACHE=writethrough SCSI_OPTS=",dpofua=on" t bash "$HERE/run-vm.sh" main io.sh
cp "$QDIR/share/out/io.sh.log" "$QDIR/share/out/io-writethrough.log" 2>/dev/null
cd "$QDIR/share/out" && grep -h -E "^(RESULT|CHECK)" ci.sh.log erase-all-main.log \
  erase-all-nodiscard.log io-writeback.log io-writethrough.log smart.sh.log > summary.txt
echo "run-all: $(grep -c 'CHECK ok' summary.txt) checks passed, $(grep -c 'CHECK FAIL' summary.txt) failed; $QDIR/share/out/summary.txt"
for p in main nodiscard; do bash "$HERE/table.sh" "erase-all-$p.log" > "table-$p.md"; done
echo "run-all: erase tables in $QDIR/share/out/table-main.md and table-nodiscard.md (docs/qemu.md keeps a copy)"
