//! `command:'…'`: erase with a vendor tool (as the seed did with the vendor's toolbox). The
//! command runs through `sh -c` in a process group of its own (recorded in erase.json, so a
//! `resume` can tell that it still runs, and stopped as a whole on Ctrl-C, SIGTERM or SIGHUP);
//! `{target}` is replaced by the target path, shell-quoted so that a name holding spaces,
//! quotes or `;` stays one word, and `SSDFADE_TARGET` holds it too. The tool's output is shown
//! and recorded.

use std::io::Read;
use std::os::unix::process::CommandExt;
use std::process::{Command, Stdio};
use std::sync::atomic::{AtomicBool, Ordering};
use std::time::{Duration, Instant};

use crate::results::ToolRun;

/// How long a stopped tool gets between SIGTERM and SIGKILL of its process group.
const GRACE: Duration = Duration::from_secs(5);

/// The shell command line that will run for `target`: every `{target}` becomes the path as one
/// single-quoted shell word.
pub fn expand(template: &str, target: &str) -> String {
    template.replace("{target}", &shell_quote(target))
}

/// `text` as one POSIX shell word: single-quoted, each `'` written as `'\''`.
pub fn shell_quote(text: &str) -> String {
    format!("'{}'", text.replace('\'', r"'\''"))
}

/// What became of the tool.
pub struct Ran {
    pub run: ToolRun,
    /// `stop` was set while it ran: its process group was sent SIGTERM (SIGKILL after a grace
    /// period) and it ended before completing.
    pub stopped: bool,
}

/// Runs the tool in a process group of its own, passing its stdin through and capturing its
/// output; `started` learns the group's id once it runs. While it runs `stop` is watched: once
/// set, the whole group is sent SIGTERM, then SIGKILL if it has not ended within [`GRACE`].
pub fn run(
    template: &str,
    target: &str,
    stop: &AtomicBool,
    started: &mut dyn FnMut(u32),
) -> anyhow::Result<Ran> {
    let command = expand(template, target);
    let mut child = Command::new("sh")
        .arg("-c")
        .arg(&command)
        .env("SSDFADE_TARGET", target)
        .stdin(Stdio::inherit())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .process_group(0)
        .spawn()
        .map_err(|e| anyhow::anyhow!("cannot run `sh -c {command}`: {e}"))?;
    let group = child.id();
    started(group);
    let stdout = collect(child.stdout.take());
    let stderr = collect(child.stderr.take());
    let mut stopped_at: Option<Instant> = None;
    let status = loop {
        if let Some(status) = child.try_wait()? {
            break status;
        }
        if stop.load(Ordering::Relaxed) {
            let since = *stopped_at.get_or_insert_with(|| {
                signal_group(group, libc::SIGTERM);
                Instant::now()
            });
            if since.elapsed() > GRACE {
                signal_group(group, libc::SIGKILL);
            }
        }
        std::thread::sleep(Duration::from_millis(20));
    };
    if stopped_at.is_some() {
        // The shell may be gone while tools it started still run: the group goes too.
        signal_group(group, libc::SIGKILL);
    }
    Ok(Ran {
        run: ToolRun {
            command,
            exit_status: status.code(),
            stdout: stdout.join().unwrap_or_default(),
            stderr: stderr.join().unwrap_or_default(),
        },
        stopped: stopped_at.is_some(),
    })
}

/// Whether a process of group `group` still runs (a tool started by an erase that is gone).
/// Zombies waiting to be reaped do not count.
pub fn group_alive(group: u32) -> bool {
    let Ok(entries) = std::fs::read_dir("/proc") else {
        return false;
    };
    entries.flatten().any(|e| {
        let Ok(stat) = std::fs::read_to_string(e.path().join("stat")) else {
            return false;
        };
        // After the command name in parentheses: state, ppid, pgrp.
        let Some(rest) = stat.rfind(')').map(|i| &stat[i + 1..]) else {
            return false;
        };
        let mut fields = rest.split_whitespace();
        let state = fields.next();
        let pgrp = fields.nth(1).and_then(|f| f.parse::<u32>().ok());
        pgrp == Some(group) && state != Some("Z") && state != Some("X")
    })
}

fn signal_group(group: u32, signal: i32) {
    if let Ok(id) = i32::try_from(group) {
        // SAFETY: kill(2) on the tool's own process group, which this process created.
        unsafe { libc::kill(-id, signal) };
    }
}

/// Reads a pipe to its end on a thread of its own (two pipes read in turn could deadlock).
fn collect<R: Read + Send + 'static>(pipe: Option<R>) -> std::thread::JoinHandle<String> {
    std::thread::spawn(move || {
        // A quarter: replacement characters for invalid bytes can triple the size.
        let keep = crate::results::MAX_STRING / 4;
        let mut bytes = Vec::new();
        let mut cut = false;
        if let Some(mut pipe) = pipe {
            let mut buf = [0u8; 8192];
            while let Ok(n @ 1..) = pipe.read(&mut buf) {
                bytes.extend_from_slice(&buf[..n]);
                if bytes.len() > 2 * keep {
                    bytes.drain(..bytes.len() - keep);
                    cut = true;
                }
            }
        }
        tail(&bytes, keep, cut)
    })
}

/// The last `keep` bytes of a tool's output as text (within what a record holds, whatever
/// the tool printed), marked with "…" when the start was dropped.
fn tail(bytes: &[u8], keep: usize, cut: bool) -> String {
    let from = bytes.len().saturating_sub(keep);
    let text = String::from_utf8_lossy(&bytes[from..]);
    if cut || from > 0 {
        format!("…{text}")
    } else {
        text.into_owned()
    }
}

#[cfg(test)]
mod tests {
    use std::sync::atomic::AtomicBool;

    fn run(template: &str, target: &str) -> crate::results::ToolRun {
        let ran = super::run(template, target, &AtomicBool::new(false), &mut |_| {}).unwrap();
        assert!(!ran.stopped);
        ran.run
    }

    #[test]
    fn a_stop_ends_the_tool_and_every_process_it_started() {
        let stop = AtomicBool::new(false);
        let mut group = 0;
        let mut started = |g| {
            group = g;
            stop.store(true, std::sync::atomic::Ordering::Relaxed);
        };
        // The shell ignores SIGTERM and never ends by itself (a bare `wait` would return 0 once
        // its child died of the SIGTERM); its child does not ignore it: SIGKILL after the grace
        // period ends both.
        let tool = "sleep 600 & trap '' TERM; while :; do wait; sleep 0.1; done";
        let ran = super::run(tool, "x", &stop, &mut started).unwrap();
        assert!(ran.stopped);
        assert_ne!(ran.run.exit_status, Some(0));
        assert!(!super::group_alive(group), "group {group} still runs");
    }
    #[test]
    fn target_placeholder_is_replaced_by_one_quoted_word() {
        assert_eq!(
            super::expand("toolbox --erase {target} --yes", "/dev/sdb"),
            "toolbox --erase '/dev/sdb' --yes"
        );
        assert_eq!(super::shell_quote("it's"), r"'it'\''s'");
    }

    #[test]
    fn output_and_status_are_captured() {
        let r = run("echo out {target}; echo err >&2; exit 3", "x");
        assert_eq!(r.stdout, "out x\n");
        assert_eq!(r.stderr, "err\n");
        assert_eq!(r.exit_status, Some(3));
    }

    #[test]
    fn a_tool_that_prints_megabytes_is_kept_to_its_tail() {
        let r = run(
            "head -c 3000000 /dev/zero | tr '\\0' x; echo END; exit 1",
            "x",
        );
        assert!(r.stdout.starts_with('…') && r.stdout.ends_with("xEND\n"));
        assert!(
            r.stdout.len() <= crate::results::MAX_STRING,
            "{}",
            r.stdout.len()
        );
    }

    #[test]
    fn hostile_names_reach_the_tool_verbatim_and_run_nothing() {
        let dir = tempfile::tempdir().unwrap();
        let canary = dir.path().join("INJECTED");
        let c = canary.display();
        let names = [
            format!("a b;touch {c}"),
            format!("it's\"q\"; touch {c}"),
            format!("$(touch {c})"),
            format!("`touch {c}`"),
            format!("x\ntouch {c}\n"),
            format!("'; touch {c}; '"),
            format!("\\'$(touch {c})\\"),
        ];
        for name in &names {
            let target = dir.path().join(name);
            let target = target.to_str().unwrap();
            let r = run(
                r#"printf '%s' {target}; printf '|%s' "$SSDFADE_TARGET""#,
                target,
            );
            assert_eq!(r.exit_status, Some(0), "{name:?}: {}", r.stderr);
            assert_eq!(r.stdout, format!("{target}|{target}"), "{name:?}");
            assert!(!canary.exists(), "{name:?} ran an injected command");
        }
    }
}
