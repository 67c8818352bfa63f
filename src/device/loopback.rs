//! Loop devices over a file: which ones a file backs (from /sys/block/loop*/loop/backing_file),
//! so that writing to the file is refused like writing to a loop device that is mounted or
//! held, and `info FILE` can say which loop device it backs and whether that one is in use.

use std::os::unix::fs::MetadataExt;
use std::path::{Path, PathBuf};

use super::{busy, safety};

/// The loop devices (`/dev/loopN`) whose backing file is `file`.
pub fn loops_over(file: &Path) -> Vec<PathBuf> {
    let Ok(file) = std::fs::canonicalize(file) else {
        return Vec::new();
    };
    let Ok(entries) = std::fs::read_dir("/sys/block") else {
        return Vec::new();
    };
    let mut found: Vec<PathBuf> = entries
        .flatten()
        .filter(|e| e.file_name().to_string_lossy().starts_with("loop"))
        .filter(|e| {
            std::fs::read_to_string(e.path().join("loop/backing_file"))
                .is_ok_and(|b| Path::new(b.trim_end_matches('\n')) == file)
        })
        .map(|e| Path::new("/dev").join(e.file_name()))
        .collect();
    found.sort();
    found
}

/// Why the loop device `dev` may not have its backing file written (mounted, swap, holders,
/// opened exclusively), or None when nothing uses it.
fn in_use(dev: &Path) -> Option<String> {
    let rdev = std::fs::metadata(dev).ok()?.rdev();
    match safety::ensure_unused(dev, rdev) {
        Err(e) => Some(e.to_string().replace(" (refusing to write)", "")),
        Ok(()) => {
            busy::exclusive_holder(dev, rdev).map(|who| format!("{} is {who}", dev.display()))
        }
    }
}

/// Why writing to `file` would be refused: it backs a loop device that is in use.
pub fn file_in_use(file: &Path) -> Option<String> {
    loops_over(file).into_iter().find_map(|dev| {
        in_use(&dev).map(|why| {
            format!(
                "it backs the loop device {}, which is in use ({why})",
                dev.display()
            )
        })
    })
}

/// Refuses to write to `file` while a loop device over it is in use: the writes would land
/// under a mounted filesystem or a device another program holds.
pub fn ensure_file_unused(file: &Path) -> anyhow::Result<()> {
    if let Some(why) = file_in_use(file) {
        crate::bad_input!(
            "{}: {why}; release it first (umount, losetup -d) (refusing to write)",
            file.display()
        );
    }
    Ok(())
}

/// What `info` says of a file that backs loop devices: each one, and whether it is in use.
pub fn notes(file: &Path) -> Vec<String> {
    loops_over(file)
        .iter()
        .map(|dev| match in_use(dev) {
            Some(why) => format!(
                "this file backs the loop device {}, which is in use ({why})",
                dev.display()
            ),
            None => format!(
                "this file backs the loop device {}, which is not mounted or held",
                dev.display()
            ),
        })
        .collect()
}
