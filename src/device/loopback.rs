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

/// The file behind the loop device `path` (`None`: not a loop device, or one without a file).
fn backing_of(path: &Path) -> Option<PathBuf> {
    use std::os::unix::fs::FileTypeExt;
    if !std::fs::metadata(path).ok()?.file_type().is_block_device() {
        return None;
    }
    let name = std::fs::canonicalize(path).ok()?.file_name()?.to_owned();
    let text = std::fs::read_to_string(
        Path::new("/sys/block")
            .join(&name)
            .join("loop/backing_file"),
    )
    .ok()?;
    Some(PathBuf::from(text.trim_end_matches('\n')))
}

/// Why the targets `a` and `b` are the same storage under two names (one a loop device over
/// the other, both loop devices over one file, or one file or device named twice); `None`
/// when they are not. Two members of one group, or a SLOG baseline and its device, that are
/// the same storage would write over each other's data and measure each other.
pub fn same_storage(a: &Path, b: &Path) -> Option<String> {
    let (over_a, over_b) = (backing_of(a), backing_of(b));
    let storage_a = over_a.clone().unwrap_or_else(|| a.to_path_buf());
    let storage_b = over_b.clone().unwrap_or_else(|| b.to_path_buf());
    if !super::same_object(&storage_a, &storage_b) {
        return None;
    }
    let (a, b) = (a.display(), b.display());
    Some(match (over_a, over_b) {
        (Some(_), None) => format!("{a} is a loop device over {b}"),
        (None, Some(_)) => format!("{b} is a loop device over {a}"),
        (Some(file), Some(_)) => {
            format!(
                "{a} and {b} are loop devices over the same file {}",
                file.display()
            )
        }
        (None, None) => format!("{a} and {b} are the same file or device"),
    })
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
