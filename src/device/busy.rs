//! Whether another opener holds a block device exclusively (O_EXCL: a running ssdfade, mkfs, a
//! partitioning tool, a kernel driver), found by an O_EXCL probe, and which processes have it
//! open, found through /proc/*/fd.

use std::fs::OpenOptions;
use std::os::unix::fs::{FileTypeExt, MetadataExt, OpenOptionsExt};
use std::path::Path;

use crate::holder::describe;

/// `Some(who)` when the block device `path` (device number `rdev`) is held exclusively by
/// someone else: an O_EXCL open of it fails with EBUSY. `who` names the processes that have it
/// open, where /proc shows them.
pub fn exclusive_holder(path: &Path, rdev: u64) -> Option<String> {
    match OpenOptions::new()
        .read(true)
        .custom_flags(libc::O_EXCL)
        .open(path)
    {
        Err(e) if e.raw_os_error() == Some(libc::EBUSY) => Some(describe_openers(rdev)),
        _ => None,
    }
}

/// The processes that have device `rdev` open, described for a message.
pub fn describe_openers(rdev: u64) -> String {
    let pids = openers(rdev);
    if pids.is_empty() {
        "held exclusively by a kernel driver or a process not visible here".to_string()
    } else {
        let who: Vec<String> = pids.into_iter().map(describe).collect();
        format!("held exclusively; open in {}", who.join(", "))
    }
}

/// Pids with a descriptor on the block device `rdev`, this process's too (a target named twice).
pub fn openers(rdev: u64) -> Vec<u32> {
    let Ok(procs) = std::fs::read_dir("/proc") else {
        return Vec::new();
    };
    let mut pids: Vec<u32> = procs
        .flatten()
        .filter_map(|e| e.file_name().to_str()?.parse::<u32>().ok())
        .filter(|&pid| has_open(pid, rdev))
        .collect();
    pids.sort_unstable();
    pids
}

fn has_open(pid: u32, rdev: u64) -> bool {
    let Ok(fds) = std::fs::read_dir(format!("/proc/{pid}/fd")) else {
        return false;
    };
    fds.flatten().any(|fd| {
        std::fs::metadata(fd.path())
            .is_ok_and(|m| m.file_type().is_block_device() && m.rdev() == rdev)
    })
}

#[cfg(test)]
mod tests {
    #[test]
    fn a_device_nobody_holds_is_free() {
        use std::os::unix::fs::MetadataExt;
        // /dev/null is a character device: the probe opens it fine, so it is never "held".
        let rdev = std::fs::metadata("/dev/null").unwrap().rdev();
        assert_eq!(super::exclusive_holder("/dev/null".as_ref(), rdev), None);
        assert!(super::openers(rdev).is_empty());
    }
}
