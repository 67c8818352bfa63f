//! One run per target file: the run holds an exclusive `flock` on its target for as long as the
//! target is open, and a second run is refused naming the process that holds it (from
//! /proc/locks), so two runs never share a file and report each other's numbers.

use std::fs::File;
use std::os::fd::AsRawFd;
use std::os::unix::fs::MetadataExt;
use std::path::Path;

use crate::bad_input;

/// Takes an exclusive lock on `file` (the target at `path`) without waiting; refuses with exit 2
/// naming the holder when another process has it. The lock lasts as long as `file` is open.
pub fn lock_for_run(file: &File, path: &Path) -> anyhow::Result<()> {
    // SAFETY: flock on a descriptor we own.
    if unsafe { libc::flock(file.as_raw_fd(), libc::LOCK_EX | libc::LOCK_NB) } == 0 {
        return Ok(());
    }
    let err = std::io::Error::last_os_error();
    if err.raw_os_error() != Some(libc::EWOULDBLOCK) {
        bad_input!("cannot lock {} for the run: {err}", path.display());
    }
    let holder = file
        .metadata()
        .ok()
        .and_then(|m| holder_of(m.dev(), m.ino()))
        .map_or_else(|| "another process".to_string(), describe);
    bad_input!(
        "{} is in use: {holder} holds its lock (another run on the same file); wait for it to end or stop it",
        path.display()
    )
}

/// The pid holding a `flock` on the inode `ino` of device `dev`, from /proc/locks.
pub fn holder_of(dev: u64, ino: u64) -> Option<u32> {
    let locks = std::fs::read_to_string("/proc/locks").ok()?;
    find_holder(&locks, dev, ino)
}

fn find_holder(locks: &str, dev: u64, ino: u64) -> Option<u32> {
    // "1: FLOCK  ADVISORY  WRITE 12825 fe:00:5324972 0 EOF" (major:minor in hex, inode decimal)
    let wanted = format!(
        "{:02x}:{:02x}:{ino}",
        libc::major(dev as libc::dev_t),
        libc::minor(dev as libc::dev_t)
    );
    locks.lines().find_map(|line| {
        let fields: Vec<&str> = line.split_whitespace().collect();
        let at = fields.iter().position(|f| *f == wanted)?;
        (fields.get(1) == Some(&"FLOCK") && at >= 1)
            .then(|| fields[at - 1].parse().ok())
            .flatten()
    })
}

/// `process 1234 (ssdfade measure t.img …)`, as far as /proc tells.
pub fn describe(pid: u32) -> String {
    let cmdline = std::fs::read(format!("/proc/{pid}/cmdline"))
        .map(|raw| {
            raw.split(|&b| b == 0)
                .filter(|a| !a.is_empty())
                .map(|a| String::from_utf8_lossy(a).into_owned())
                .collect::<Vec<_>>()
                .join(" ")
        })
        .unwrap_or_default();
    if cmdline.is_empty() {
        format!("process {pid}")
    } else {
        let short: String = cmdline.chars().take(120).collect();
        let more = if short.len() < cmdline.len() {
            "…"
        } else {
            ""
        };
        format!("process {pid} ({short}{more})")
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_holder_is_read_from_proc_locks() {
        let locks = "1: POSIX  ADVISORY  WRITE 111 fe:00:42 0 EOF\n\
                     2: FLOCK  ADVISORY  WRITE 4321 fe:00:42 0 EOF\n\
                     3: FLOCK  ADVISORY  WRITE 999 fe:00:421 0 EOF\n";
        let dev = libc::makedev(0xfe, 0) as u64;
        assert_eq!(find_holder(locks, dev, 42), Some(4321));
        assert_eq!(find_holder(locks, dev, 421), Some(999));
        assert_eq!(find_holder(locks, dev, 7), None);
    }

    #[test]
    fn a_second_lock_on_the_same_file_names_this_process() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("t.img");
        let first = File::create(&path).unwrap();
        lock_for_run(&first, &path).unwrap();
        let second = File::open(&path).unwrap();
        let err = lock_for_run(&second, &path).unwrap_err();
        assert_eq!(crate::error::exit_code(&err), 2);
        let text = err.to_string();
        assert!(
            text.contains(&format!("process {}", std::process::id())),
            "{text}"
        );
        drop(first);
        lock_for_run(&second, &path).unwrap();
    }
}
