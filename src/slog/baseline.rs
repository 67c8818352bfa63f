//! What the device is compared with: `--baseline ram` (a zram RAM device made for the run and
//! removed afterwards — on success, failure and Ctrl-C alike, by the guard's Drop; after a kill,
//! by the next one made or by `ssdfade runs`, through its ownership record in [`super::ram_owner`]), another device or
//! file, or an earlier slog run directory.

use std::path::{Path, PathBuf};
use std::time::Duration;

use super::ram_owner::Owner;

/// The baseline the user asked for.
#[derive(Clone, Debug, PartialEq)]
pub enum Baseline {
    Ram,
    /// Another file or block device, measured now.
    Target(PathBuf),
    /// An earlier slog run.
    RunDir(PathBuf),
}

impl Baseline {
    /// `ram`, a directory holding slog.json, or a file or device path.
    pub fn parse(text: &str) -> anyhow::Result<Baseline> {
        if text == "ram" {
            return Ok(Baseline::Ram);
        }
        let path = PathBuf::from(text);
        if path.is_dir() {
            if !path.join("slog.json").exists() {
                crate::bad_input!(
                    "--baseline {text} is a directory without slog.json: name an earlier slog run directory, a device, a file, or ram"
                );
            }
            return Ok(Baseline::RunDir(path));
        }
        Ok(Baseline::Target(path))
    }
}

/// zram's control files.
const HOT_ADD: &str = "/sys/class/zram-control/hot_add";
const HOT_REMOVE: &str = "/sys/class/zram-control/hot_remove";

/// A zram device this process created; reset and removed when dropped.
#[derive(Debug)]
pub struct RamDevice {
    pub index: u32,
    pub path: PathBuf,
    /// Its ownership record, locked while this process lives.
    owner: Option<Owner>,
}

impl RamDevice {
    /// Creates a zram device of `size` bytes (loading the module when needed).
    /// Leftovers of killed runs are removed first (one note each): the tidying happens where
    /// a device is about to be made, never on the way to refusing bad input.
    pub fn create(size: u64) -> anyhow::Result<RamDevice> {
        for line in remove_leftovers() {
            crate::note!("ssdfade: {line}");
        }
        let owners = super::ram_owner::dir()?;
        if !Path::new(HOT_ADD).exists() {
            let _ = std::process::Command::new("modprobe")
                .args(["zram", "num_devices=0"])
                .status();
        }
        let index: u32 = match std::fs::read_to_string(HOT_ADD) {
            Ok(text) => text.trim().parse()?,
            Err(e) => crate::bad_input!(
                "--baseline ram needs a zram device and {HOT_ADD} cannot be read ({e}): run as root with the zram module available, or give --baseline PATH"
            ),
        };
        let mut dev = RamDevice {
            index,
            path: PathBuf::from(format!("/dev/zram{index}")),
            owner: None,
        };
        dev.owner = Some(Owner::record(&owners, index, size)?);
        std::fs::write(format!("/sys/block/zram{index}/disksize"), size.to_string())
            .map_err(|e| anyhow::anyhow!("setting the size of zram{index} to {size} bytes: {e}"))?;
        for _ in 0..100 {
            if dev.path.exists() {
                break;
            }
            std::thread::sleep(Duration::from_millis(20));
        }
        anyhow::ensure!(
            dev.path.exists(),
            "{} did not appear after creating zram{index}",
            dev.path.display()
        );
        Ok(dev)
    }
}

impl Drop for RamDevice {
    fn drop(&mut self) {
        // The descriptor of the run may close a moment after the guard drops: retry while busy.
        for _ in 0..100 {
            let reset = std::fs::write(format!("/sys/block/zram{}/reset", self.index), "1");
            if reset.is_ok() && std::fs::write(HOT_REMOVE, self.index.to_string()).is_ok() {
                if let Some(owner) = self.owner.take() {
                    owner.release();
                }
                return;
            }
            std::thread::sleep(Duration::from_millis(50));
        }
        crate::note!(
            "ssdfade: could not remove zram{}: remove it with `echo 1 > /sys/block/zram{0}/reset; echo {0} > {HOT_REMOVE}`",
            self.index
        );
    }
}

/// Removes the RAM baselines of earlier slog runs that were killed before they could remove
/// them (see [`super::ram_owner`]); one line per device found. Nothing for a user who is not
/// root (who cannot have made one).
pub fn remove_leftovers() -> Vec<String> {
    if !nix::unistd::Uid::effective().is_root() {
        return Vec::new();
    }
    super::ram_owner::remove_leftovers(Path::new(super::ram_owner::DIR), Path::new("/sys"))
}

/// Size of the RAM baseline: room for 32 writes of the largest size, at least 256 MiB (the
/// sweep writes at random offsets across the device, and zram keeps incompressible data in
/// RAM, so bigger costs memory for nothing).
pub fn ram_size(max_size: u64) -> u64 {
    (32 * max_size).max(256 << 20)
}
