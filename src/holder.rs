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
