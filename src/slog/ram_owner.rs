//! Who owns a RAM baseline (`slog --baseline ram`): each zram device this tool makes has an
//! ownership record, `/run/ssdfade/zram/zramN.owner`, locked (`flock`) by the process that made
//! it for as long as that process lives and naming the device's size. A process killed
//! mid-run (SIGKILL, a crash) cannot remove its device, but the kernel drops its lock: the next
//! `slog` or `runs` finds the record unlocked and removes the leftover device. A zram device
//! without a record, one whose size is not the recorded one, or one in use, is never touched.

use std::fs::File;
use std::io::Write;
use std::os::unix::fs::MetadataExt;
use std::path::{Path, PathBuf};

use anyhow::Context;
use nix::fcntl::{Flock, FlockArg};

/// Where the ownership records live (root's, cleared at boot with the devices themselves).
pub const DIR: &str = "/run/ssdfade/zram";

/// The ownership record of a zram device this process made, locked while the process lives.
#[derive(Debug)]
pub struct Owner {
    path: PathBuf,
    _lock: Flock<File>,
}

impl Owner {
    /// Records that this process owns zram`index`, which it sizes to `size` bytes.
    pub fn record(dir: &Path, index: u32, size: u64) -> anyhow::Result<Owner> {
        let path = record_path(dir, index);
        let what = || format!("recording the RAM baseline's owner in {}", path.display());
        // A stale record of an earlier zram with this number is no one's any more.
        let _ = std::fs::remove_file(&path);
        let file = File::options()
            .write(true)
            .create_new(true)
            .open(&path)
            .with_context(what)?;
        let mut lock = Flock::lock(file, FlockArg::LockExclusiveNonblock)
            .map_err(|(_, e)| e)
            .with_context(what)?;
        writeln!(lock, "zram{index} {size} {}", std::process::id()).with_context(what)?;
        Ok(Owner { path, _lock: lock })
    }

    /// The record is removed once the device is.
    pub fn release(self) {
        let _ = std::fs::remove_file(&self.path);
    }
}

/// The directory of the records, made when needed; refused when it is not a plain directory
/// that only its owner, this user (root), can write (a record there decides which device is
/// removed).
pub fn dir() -> anyhow::Result<PathBuf> {
    let dir = PathBuf::from(DIR);
    std::fs::create_dir_all(&dir)
        .with_context(|| format!("making {} for the RAM baseline's owner", dir.display()))?;
    trusted(&dir)?;
    Ok(dir)
}

fn trusted(dir: &Path) -> anyhow::Result<()> {
    let meta = std::fs::symlink_metadata(dir).with_context(|| format!("{}", dir.display()))?;
    anyhow::ensure!(
        meta.is_dir()
            && meta.uid() == nix::unistd::Uid::effective().as_raw()
            && meta.mode() & 0o022 == 0,
        "{} is not a directory that only this user can write: remove it and run again",
        dir.display()
    );
    Ok(())
}

fn record_path(dir: &Path, index: u32) -> PathBuf {
    dir.join(format!("zram{index}.owner"))
}

/// Removes every RAM baseline under `dir` whose owner is gone (its record unlocked) and whose
/// device still has the recorded size; returns one line per device removed or left alone.
/// `sysfs` is `/sys` (a test may give another root).
pub fn remove_leftovers(dir: &Path, sysfs: &Path) -> Vec<String> {
    if trusted(dir).is_err() {
        return Vec::new();
    }
    let Ok(entries) = std::fs::read_dir(dir) else {
        return Vec::new();
    };
    let mut lines = Vec::new();
    for entry in entries.flatten() {
        let path = entry.path();
        if path.extension().is_none_or(|e| e != "owner") {
            continue;
        }
        if let Some(line) = remove_one(&path, sysfs) {
            lines.push(line);
        }
    }
    lines.sort();
    lines
}

fn remove_one(path: &Path, sysfs: &Path) -> Option<String> {
    let file = File::open(path).ok()?;
    // Locked: its owner is alive and removes the device itself.
    let lock = Flock::lock(file, FlockArg::LockExclusiveNonblock).ok()?;
    let text = std::fs::read_to_string(path).ok()?;
    let mut words = text.split_whitespace();
    let (Some(name), Some(size)) = (words.next(), words.next()) else {
        let _ = std::fs::remove_file(path);
        return None;
    };
    let index = name.strip_prefix("zram")?.parse::<u32>().ok()?;
    let size: u64 = size.parse().ok()?;
    let forget = || {
        // Only the record this lock is on: a new owner may have replaced it meanwhile.
        let same = std::fs::metadata(path)
            .ok()
            .zip(lock.metadata().ok())
            .is_some_and(|(a, b)| a.ino() == b.ino() && a.dev() == b.dev());
        if same {
            let _ = std::fs::remove_file(path);
        }
    };
    let block = sysfs.join(format!("block/zram{index}"));
    if !block.exists() {
        forget();
        return None;
    }
    let actual = std::fs::read_to_string(block.join("disksize"))
        .ok()
        .and_then(|t| t.trim().parse::<u64>().ok());
    if actual != Some(size) {
        forget();
        return Some(format!(
            "zram{index} is no longer the RAM baseline an earlier slog made (its size is not {size} bytes): left alone"
        ));
    }
    let reset = std::fs::write(block.join("reset"), "1");
    let removed = reset.and_then(|()| {
        std::fs::write(
            sysfs.join("class/zram-control/hot_remove"),
            index.to_string(),
        )
    });
    match removed {
        Ok(()) => {
            forget();
            Some(format!(
                "removed /dev/zram{index}, the RAM baseline of an slog run that did not end (its process is gone)"
            ))
        }
        Err(e) => Some(format!(
            "/dev/zram{index}, the RAM baseline of an slog run that did not end, could not be removed ({e}); it is left alone while in use"
        )),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A fake sysfs with zram`index` of `size` bytes.
    fn zram(sysfs: &Path, index: u32, size: u64) -> PathBuf {
        let block = sysfs.join(format!("block/zram{index}"));
        std::fs::create_dir_all(&block).unwrap();
        std::fs::create_dir_all(sysfs.join("class/zram-control")).unwrap();
        std::fs::write(block.join("disksize"), format!("{size}\n")).unwrap();
        std::fs::write(block.join("reset"), "").unwrap();
        block
    }

    fn hot_removed(sysfs: &Path) -> String {
        std::fs::read_to_string(sysfs.join("class/zram-control/hot_remove")).unwrap_or_default()
    }

    #[test]
    fn only_a_device_whose_owner_is_gone_and_whose_size_matches_is_removed() {
        let t = tempfile::tempdir().unwrap();
        let (owners, sysfs) = (t.path().join("owners"), t.path().join("sys"));
        std::fs::create_dir(&owners).unwrap();
        // zram5: its owner is alive (this test holds the lock).
        let live = zram(&sysfs, 5, 1 << 28);
        let alive = Owner::record(&owners, 5, 1 << 28).unwrap();
        // zram6: its owner died, but the device was since remade at another size by someone else.
        let other = zram(&sysfs, 6, 1 << 20);
        drop(Owner::record(&owners, 6, 1 << 28).unwrap());
        // zram7: a record with no device left: forgotten quietly.
        drop(Owner::record(&owners, 7, 1 << 28).unwrap());
        // zram8: a device with no record at all is never looked at.
        let stranger = zram(&sysfs, 8, 1 << 28);
        // zram9: a leftover.
        let leftover = zram(&sysfs, 9, 1 << 28);
        drop(Owner::record(&owners, 9, 1 << 28).unwrap());

        let lines = remove_leftovers(&owners, &sysfs);
        assert_eq!(lines.len(), 2, "{lines:?}");
        assert!(lines[0].starts_with("removed /dev/zram9"), "{lines:?}");
        assert!(lines[1].starts_with("zram6 is no longer"), "{lines:?}");
        assert_eq!(hot_removed(&sysfs), "9");
        assert_eq!(
            std::fs::read_to_string(leftover.join("reset")).unwrap(),
            "1"
        );
        for untouched in [&live, &other, &stranger] {
            assert_eq!(
                std::fs::read_to_string(untouched.join("reset")).unwrap(),
                ""
            );
        }
        let mut left: Vec<_> = std::fs::read_dir(&owners)
            .unwrap()
            .map(|e| e.unwrap().file_name().into_string().unwrap())
            .collect();
        left.sort();
        assert_eq!(left, ["zram5.owner"]);
        // Once its owner ends without removing it, zram5 is a leftover too.
        drop(alive);
        std::fs::write(sysfs.join("class/zram-control/hot_remove"), "").unwrap();
        let lines = remove_leftovers(&owners, &sysfs);
        assert!(lines[0].starts_with("removed /dev/zram5"), "{lines:?}");
        assert_eq!(hot_removed(&sysfs), "5");
    }

    #[test]
    fn a_records_directory_others_can_write_is_not_trusted() {
        use std::os::unix::fs::PermissionsExt;
        let t = tempfile::tempdir().unwrap();
        let (owners, sysfs) = (t.path().join("owners"), t.path().join("sys"));
        std::fs::create_dir(&owners).unwrap();
        let dev = zram(&sysfs, 9, 4096);
        drop(Owner::record(&owners, 9, 4096).unwrap());
        std::fs::set_permissions(&owners, std::fs::Permissions::from_mode(0o777)).unwrap();
        assert!(remove_leftovers(&owners, &sysfs).is_empty());
        assert_eq!(std::fs::read_to_string(dev.join("reset")).unwrap(), "");
    }
}
