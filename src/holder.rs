//! Who holds a lock or a device, for a refusal that names it: the process from /proc/locks,
//! described by its pid and command line, and said plainly when it is this very command (the
//! same target named twice) or a process this command started.

/// The pid holding a `flock` on the inode `ino` of device `dev`, from /proc/locks.
pub fn flock_holder(dev: u64, ino: u64) -> Option<u32> {
    let locks = std::fs::read_to_string("/proc/locks").ok()?;
    find_holder(&locks, dev, ino)
}

fn find_holder(locks: &str, dev: u64, ino: u64) -> Option<u32> {
    // "1: FLOCK  ADVISORY  WRITE 12825 fe:00:5324972 0 EOF" (major:minor in hex, inode decimal;
    // a waiter has "->" after its number).
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

/// The holder of the flock on `file`, described; "another process" when /proc does not say.
pub fn of_flock(file: &std::fs::File) -> String {
    use std::os::unix::fs::MetadataExt;
    file.metadata()
        .ok()
        .and_then(|m| flock_holder(m.dev(), m.ino()))
        .map_or_else(|| "another process".to_string(), describe)
}

/// How long a lock that no live process holds is waited for: the files of a process killed a
/// moment ago (an io_uring still being torn down) keep its `flock` for a while after it is gone.
const STALE_WAIT: std::time::Duration = std::time::Duration::from_secs(3);

/// Takes an exclusive `flock` on `file` without waiting for a live holder. `Ok(None)`: taken
/// (it lasts as long as `file` is open); `Ok(Some(holder))`: held, by the process named, or by
/// none alive after [`STALE_WAIT`] (a stale lock is waited out, never reported as "another
/// process"); `Err`: flock itself failed.
pub fn flock_exclusive(file: &std::fs::File) -> std::io::Result<Option<String>> {
    use std::os::unix::fs::MetadataExt;
    let meta = file.metadata()?;
    flock_with(file, || flock_holder(meta.dev(), meta.ino()), STALE_WAIT)
}

fn flock_with(
    file: &std::fs::File,
    holder: impl Fn() -> Option<u32>,
    patience: std::time::Duration,
) -> std::io::Result<Option<String>> {
    use std::os::fd::AsRawFd;
    let deadline = std::time::Instant::now() + patience;
    loop {
        // SAFETY: flock on a descriptor the caller owns.
        if unsafe { libc::flock(file.as_raw_fd(), libc::LOCK_EX | libc::LOCK_NB) } == 0 {
            return Ok(None);
        }
        let err = std::io::Error::last_os_error();
        if err.raw_os_error() != Some(libc::EWOULDBLOCK) {
            return Err(err);
        }
        let pid = holder();
        if let Some(pid) = pid.filter(|pid| std::path::Path::new(&format!("/proc/{pid}")).exists())
        {
            return Ok(Some(describe(pid)));
        }
        if std::time::Instant::now() >= deadline {
            let gone = pid.map_or_else(
                || "no live process (/proc/locks names none".to_string(),
                |pid| format!("process {pid}, which has ended ("),
            );
            return Ok(Some(format!(
                "{gone}: the files of a process killed a moment ago are still being released); try again in a few seconds"
            )));
        }
        std::thread::sleep(std::time::Duration::from_millis(50));
    }
}

/// `process 1234 (ssdfade measure t.img …)`, as far as /proc tells; this process and its
/// children are named as such.
pub fn describe(pid: u32) -> String {
    let me = std::process::id();
    if pid == me {
        return format!(
            "this ssdfade command itself (process {pid}; is the same target named twice?)"
        );
    }
    let what = format!("process {pid}{}", command_line(pid));
    if parent_of(pid) == Some(me) {
        format!("{what}, which this ssdfade command started")
    } else {
        what
    }
}

/// ` (ssdfade measure t.img …)`, at most 120 characters of it; empty when /proc hides it.
fn command_line(pid: u32) -> String {
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
        return String::new();
    }
    let short: String = cmdline.chars().take(120).collect();
    let more = if short.len() < cmdline.len() {
        "…"
    } else {
        ""
    };
    format!(" ({short}{more})")
}

/// The parent of `pid`, from /proc/PID/stat (the field after the command's closing paren).
fn parent_of(pid: u32) -> Option<u32> {
    let stat = std::fs::read_to_string(format!("/proc/{pid}/stat")).ok()?;
    let (_, rest) = stat.rsplit_once(')')?;
    rest.split_whitespace().nth(1)?.parse().ok()
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

    /// A lock /proc/locks names no live holder for (a killed process's files still being
    /// released) is waited out and taken; one that stays is refused saying so, and a live
    /// holder is named at once.
    #[test]
    fn a_stale_lock_is_waited_out_and_a_live_holder_is_named() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("t.img");
        let held = std::fs::File::create(&path).unwrap();
        assert_eq!(flock_exclusive(&held).unwrap(), None);
        let second = std::fs::File::open(&path).unwrap();
        // Named at once: this very process holds it.
        let named = flock_exclusive(&second).unwrap().unwrap();
        assert!(named.starts_with("this ssdfade command itself"), "{named}");
        // Nobody named, and it stays: refused saying so.
        let patience = std::time::Duration::from_millis(100);
        let stale = flock_with(&second, || None, patience).unwrap().unwrap();
        assert!(stale.starts_with("no live process"), "{stale}");
        let dead = flock_with(&second, || Some(u32::MAX - 1), patience)
            .unwrap()
            .unwrap();
        assert!(dead.contains("which has ended"), "{dead}");
        // Nobody named, and it goes: taken.
        let release = std::thread::spawn(move || {
            std::thread::sleep(std::time::Duration::from_millis(200));
            drop(held);
        });
        let taken = flock_with(&second, || None, std::time::Duration::from_secs(60)).unwrap();
        release.join().unwrap();
        assert_eq!(taken, None);
    }

    #[test]
    fn this_process_and_its_children_are_named_as_such() {
        assert!(describe(std::process::id()).starts_with("this ssdfade command itself"));
        let mut child = std::process::Command::new("sleep")
            .arg("30")
            .spawn()
            .unwrap();
        // Its command line shows once it has exec'd.
        let mut text = describe(child.id());
        for _ in 0..500 {
            if text.contains("sleep") {
                break;
            }
            std::thread::sleep(std::time::Duration::from_millis(10));
            text = describe(child.id());
        }
        child.kill().unwrap();
        child.wait().unwrap();
        assert!(text.contains("sleep 30"), "{text}");
        assert!(
            text.ends_with("which this ssdfade command started"),
            "{text}"
        );
    }
}
