//! The two kinds of failure the exit status distinguishes.
//!
//! A [`BadInput`] (exit 2) means the user asked for something wrong or unsafe and nothing was
//! written; any other error (exit 1) means the run itself failed.

use std::fmt;

/// Bad input or a safety refusal: one line saying what is wrong and what to do.
#[derive(Debug)]
pub struct BadInput(pub String);

impl fmt::Display for BadInput {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&self.0)
    }
}

impl std::error::Error for BadInput {}

/// Returns early with a [`BadInput`] error built like `format!`.
#[macro_export]
macro_rules! bad_input {
    ($($arg:tt)*) => {
        return Err(anyhow::Error::new($crate::error::BadInput(format!($($arg)*))))
    };
}

/// A computation stopped by Ctrl-C, SIGTERM or SIGHUP before it had a result (exit 130): says
/// what was stopped and what was kept.
#[derive(Debug)]
pub struct Interrupted(pub String);

impl fmt::Display for Interrupted {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&self.0)
    }
}

impl std::error::Error for Interrupted {}

/// An operating-system error in words, with its symbolic name and no number:
/// `input/output error (EIO)`, `no space left on device (ENOSPC)`. Every I/O error a message
/// or a record carries is rendered here.
pub fn io_words(e: &std::io::Error) -> String {
    match e.raw_os_error() {
        Some(errno) => errno_words(errno),
        None => e.to_string(),
    }
}

/// `errno` as [`io_words`] renders it.
pub fn errno_words(errno: i32) -> String {
    let text = std::io::Error::from_raw_os_error(errno).to_string();
    let text = text
        .strip_suffix(&format!(" (os error {errno})"))
        .unwrap_or(&text);
    let mut words = lower_first(text);
    let name = format!("{:?}", nix::errno::Errno::from_raw(errno));
    if name != "UnknownErrno" {
        words.push_str(&format!(" ({name})"));
    }
    words
}

fn lower_first(text: &str) -> String {
    let mut chars = text.chars();
    match (chars.next(), chars.clone().next()) {
        // "I/O …" stays; "Input/output error" becomes "input/output error".
        (Some(c), Some(d)) if c.is_uppercase() && !d.is_uppercase() && d != '/' => {
            c.to_lowercase().chain(chars).collect()
        }
        _ => text.to_string(),
    }
}

/// What to do about an operating-system error: a clause for the end of the line.
fn advice(errno: i32) -> Option<&'static str> {
    Some(match errno {
        libc::EIO => "the device failed the request: see `dmesg` and the drive's health (`ssdfade info TARGET`)",
        libc::ENOSPC => "free space on that file system or choose another place",
        libc::EDQUOT => "the disk quota is used up: free space or choose another place",
        libc::EROFS => "that file system is read-only: choose a writable place",
        libc::EACCES | libc::EPERM => "check the permissions (or run as root)",
        libc::EBUSY => "something else holds it: stop what uses it and try again",
        libc::ENXIO | libc::ENODEV => "the device is gone: check it is still attached (`dmesg`)",
        libc::EMFILE | libc::ENFILE => "too many open files: raise the limit (`ulimit -n 4096`)",
        libc::ENOMEM => "out of memory: close other programs or lower --qd/--bs",
        _ => return None,
    })
}

/// The line an error is reported in: its chain of contexts (what and where), every
/// operating-system error in words without its number (`input/output error (EIO)`, never
/// `(os error 5)`), and for a known one what to do about it: a sentence for a person, not a
/// code. Records that keep an error keep this line.
pub fn sentence(err: &anyhow::Error) -> String {
    words(&format!("{err:#}"))
}

/// `text` with every `DESCRIPTION (os error N)` written as [`errno_words`] does, and the
/// advice for the first known one appended.
pub fn words(text: &str) -> String {
    let mut out = String::with_capacity(text.len());
    let mut rest = text;
    let mut first = None;
    while let Some(at) = rest.find(" (os error ") {
        let after = &rest[at + " (os error ".len()..];
        let digits = after.bytes().take_while(u8::is_ascii_digit).count();
        match after[..digits].parse::<i32>() {
            Ok(errno) if after[digits..].starts_with(')') => {
                let before = &rest[..at];
                let plain = std::io::Error::from_raw_os_error(errno).to_string();
                let plain = plain
                    .strip_suffix(&format!(" (os error {errno})"))
                    .unwrap_or(&plain);
                match before.strip_suffix(plain) {
                    Some(head) => {
                        out.push_str(head);
                        out.push_str(&errno_words(errno));
                    }
                    None => {
                        out.push_str(before);
                        let name = format!("{:?}", nix::errno::Errno::from_raw(errno));
                        if name != "UnknownErrno" {
                            out.push_str(&format!(" ({name})"));
                        }
                    }
                }
                first.get_or_insert(errno);
                rest = &after[digits + 1..];
            }
            _ => {
                out.push_str(&rest[..at + 1]);
                rest = &rest[at + 1..];
            }
        }
    }
    out.push_str(rest);
    if let Some(advice) = first.and_then(advice) {
        if !out.contains(advice) {
            out.push_str("; ");
            out.push_str(advice);
        }
    }
    out
}

/// Exit status for an error: 2 for bad input or refusals, 130 for an interruption, 1 for
/// everything else.
pub fn exit_code(err: &anyhow::Error) -> i32 {
    if err.downcast_ref::<BadInput>().is_some() {
        2
    } else if err.downcast_ref::<Interrupted>().is_some() {
        130
    } else {
        1
    }
}

#[cfg(test)]
mod tests {
    #[test]
    fn an_error_line_says_the_operating_system_error_in_words_with_what_to_do() {
        let io = std::io::Error::from_raw_os_error(2);
        let err = anyhow::Error::new(io).context("cannot read run.json (os error x)");
        assert_eq!(
            super::sentence(&err),
            "cannot read run.json (os error x): no such file or directory (ENOENT)"
        );
        let eio = std::io::Error::from_raw_os_error(libc::EIO);
        let err = anyhow::Error::new(eio).context("cannot read block 7 of /dev/sdz");
        let line = super::sentence(&err);
        assert!(
            line.starts_with("cannot read block 7 of /dev/sdz: input/output error (EIO); "),
            "{line}"
        );
        assert!(line.contains("dmesg"), "{line}");
        assert!(!line.contains("os error"), "{line}");
        let bad = anyhow::anyhow!("cannot open a: {} (os error 13)", "denied");
        assert_eq!(
            super::sentence(&bad),
            "cannot open a: denied (EACCES); check the permissions (or run as root)"
        );
        assert_eq!(
            super::io_words(&std::io::Error::from_raw_os_error(libc::ENOSPC)),
            "no space left on device (ENOSPC)"
        );
    }
}
