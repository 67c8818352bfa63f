# RAM block devices a measuring script makes for itself, and their removal.
#
# Sourced (not run) by the scripts that measure on zram or on loop devices over tmpfs. It sets
# an EXIT trap that removes every device made through it, and every path given to
# `remove_on_exit`, however the script ends (Ctrl-C and TERM exit with 130).
#
#   new_zram SIZE [ALGORITHM]   a zram device (hot_add), sized; sets RAM_DEV to /dev/zramN
#   new_loop SIZE               a loop device with direct I/O over a file in /dev/shm; sets RAM_DEV
#   remove_on_exit PATH         removes PATH (rm -rf) on exit
#
# The functions set RAM_DEV rather than print it: a device made in a $( ) subshell would not
# be recorded for removal.

RAM_ZRAMS=()
RAM_LOOPS=()
RAM_PATHS=()

ram_devices_fail() { echo "$(basename "$0"): $*" >&2; exit 2; }

ram_devices_cleanup() {
  local d
  for d in "${RAM_LOOPS[@]}"; do losetup -d "$d" 2>/dev/null || true; done
  # A device just closed may still be held for a moment (udev's probe): retry for up to 10 s.
  for d in "${RAM_ZRAMS[@]}"; do
    for _ in $(seq 200); do
      { echo 1 > "/sys/block/zram$d/reset" \
        && echo "$d" > /sys/class/zram-control/hot_remove; } 2>/dev/null && break
      [ -e "/sys/block/zram$d" ] || break
      sleep 0.05
    done
    if [ -e "/sys/block/zram$d" ]; then echo "$(basename "$0"): zram$d is still held, not removed" >&2; fi
  done
  for d in "${RAM_PATHS[@]}"; do rm -rf "$d"; done
}
trap ram_devices_cleanup EXIT
trap 'exit 130' INT TERM

remove_on_exit() { RAM_PATHS+=("$1"); }

new_zram() {
  local i
  [ -e /sys/class/zram-control ] || modprobe zram num_devices=0 \
    || ram_devices_fail "no zram module: modprobe zram"
  i=$(cat /sys/class/zram-control/hot_add) || ram_devices_fail "zram hot_add failed"
  RAM_ZRAMS+=("$i")
  # The algorithm can only be chosen before the device is sized.
  if [ -n "${2:-}" ]; then
    echo "$2" > "/sys/block/zram$i/comp_algorithm" \
      || ram_devices_fail "zram cannot use $2: see /sys/block/zram$i/comp_algorithm"
  fi
  echo "$1" > "/sys/block/zram$i/disksize" || ram_devices_fail "zram$i cannot be sized $1"
  for _ in $(seq 50); do [ -b "/dev/zram$i" ] && break; sleep 0.1; done
  [ -b "/dev/zram$i" ] || ram_devices_fail "/dev/zram$i did not appear"
  RAM_DEV=/dev/zram$i
}

new_loop() {
  local f
  f=$(mktemp "/dev/shm/$(basename "$0" .sh).XXXXXX") || ram_devices_fail "no room in /dev/shm"
  remove_on_exit "$f"
  truncate -s "$1" "$f"
  RAM_DEV=$(losetup --find --show --direct-io=on "$f") || ram_devices_fail "losetup failed on $f"
  RAM_LOOPS+=("$RAM_DEV")
  [ "$(cat "/sys/block/${RAM_DEV##*/}/loop/dio")" = 1 ] \
    || echo "$(basename "$0"): $RAM_DEV fell back to buffered I/O (tmpfs without O_DIRECT)" >&2
}
