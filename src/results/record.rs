//! Run records (`run.json`, `erase.json`) that always tell how their run ended.
//!
//! - Each record carries the [`ProcessStamp`] of the process that writes it (pid, its start
//!   time, host, boot id), so a reader can tell a run that is still going from one whose
//!   process died (SIGKILL, power cut, OOM): [`liveness`].
//! - Records are replaced atomically through a per-process temporary name, and the latest
//!   version of a record that still says "running" is remembered; a second Ctrl-C (the
//!   impatient exit) rewrites it as interrupted before the process exits
//!   ([`write_last_words_and_exit`]), so the record never stays "running" after a clean exit.

use std::fs::File;
use std::io::Write;
use std::path::{Path, PathBuf};
use std::sync::Mutex;

use anyhow::Context;
use serde::{Deserialize, Serialize};

/// Who is writing a record: enough to tell later whether that process still runs.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize, schemars::JsonSchema)]
pub struct ProcessStamp {
    pub pid: u32,
    /// The process's start time in clock ticks since boot (/proc/PID/stat field 22): a pid
    /// reused by another process has another start time.
    pub start_ticks: u64,
    pub host: String,
    /// /proc/sys/kernel/random/boot_id: a record from an earlier boot is never running.
    pub boot_id: String,
}

impl ProcessStamp {
    /// The current process.
    pub fn current() -> Self {
        let pid = std::process::id();
        ProcessStamp {
            pid,
            start_ticks: start_ticks(pid).unwrap_or(0),
            host: this_host(),
            boot_id: boot_id(),
        }
    }
}

/// Whether the process behind a record that says "running" still runs.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Liveness {
    /// The same process is alive on this host.
    Running,
    /// The process is gone (killed, crashed, or the machine rebooted since).
    Crashed(String),
    /// Written on another host: this machine cannot tell.
    Unknown(String),
}

/// Judges a record that says "running" from its stamp.
pub fn liveness(stamp: Option<&ProcessStamp>) -> Liveness {
    let Some(stamp) = stamp else {
        return Liveness::Unknown(
            "the record names no process (written by an older version)".into(),
        );
    };
    if stamp.host != this_host() {
        return Liveness::Unknown(format!("it runs or ran on host {}", stamp.host));
    }
    if stamp.boot_id != boot_id() {
        return Liveness::Crashed("the machine has rebooted since it started".into());
    }
    match start_ticks(stamp.pid) {
        Some(t) if t == stamp.start_ticks => Liveness::Running,
        _ => Liveness::Crashed(format!("its process {} is gone", stamp.pid)),
    }
}

fn start_ticks(pid: u32) -> Option<u64> {
    let stat = std::fs::read_to_string(format!("/proc/{pid}/stat")).ok()?;
    // The command name is in parentheses and may hold spaces: count fields after the last ')'.
    let rest = &stat[stat.rfind(')')? + 1..];
    rest.split_whitespace().nth(19)?.parse().ok()
}

fn this_host() -> String {
    std::fs::read_to_string("/proc/sys/kernel/hostname")
        .map(|s| s.trim().to_string())
        .unwrap_or_default()
}

fn boot_id() -> String {
    std::fs::read_to_string("/proc/sys/kernel/random/boot_id")
        .map(|s| s.trim().to_string())
        .unwrap_or_default()
}

/// A record that still says "running", and how to mark it interrupted.
struct Pending {
    path: PathBuf,
    value: serde_json::Value,
    mark_interrupted: fn(&mut serde_json::Value),
}

/// The records of this process that say "running"; the lock also serialises every record
/// write, so the impatient exit never races a write in progress.
static PENDING: Mutex<Vec<Pending>> = Mutex::new(Vec::new());

/// Writes a record atomically. While `still_running`, the record is remembered together with
/// `mark_interrupted`, which turns it into an interrupted one if the process is made to exit
/// early; a final record is forgotten.
pub fn write_record<T: Serialize>(
    path: &Path,
    record: &T,
    still_running: bool,
    mark_interrupted: fn(&mut serde_json::Value),
) -> anyhow::Result<()> {
    let value = serde_json::to_value(record)?;
    let mut pending = PENDING.lock().unwrap_or_else(|e| e.into_inner());
    write_json_atomic_unlocked(path, &value)?;
    pending.retain(|p| p.path != path);
    if still_running {
        pending.push(Pending {
            path: path.to_path_buf(),
            value,
            mark_interrupted,
        });
    }
    Ok(())
}

/// Rewrites every record still "running" as interrupted, then exits with status 130. Called
/// on the second Ctrl-C; samples are already on disk (each is flushed as it is taken).
pub fn write_last_words_and_exit() -> ! {
    let mut pending = PENDING.lock().unwrap_or_else(|e| e.into_inner());
    for p in pending.iter_mut() {
        (p.mark_interrupted)(&mut p.value);
        if let Some(dir) = p.path.parent() {
            super::release_space_reserve(dir);
        }
        let _ = write_json_atomic_unlocked(&p.path, &p.value);
    }
    std::process::exit(130);
}

/// Writes `value` as pretty JSON to `path` through a temporary file and a rename.
pub fn write_json_atomic<T: Serialize>(path: &Path, value: &T) -> anyhow::Result<()> {
    let _pending = PENDING.lock().unwrap_or_else(|e| e.into_inner());
    write_json_atomic_unlocked(path, value)
}

fn write_json_atomic_unlocked<T: Serialize>(path: &Path, value: &T) -> anyhow::Result<()> {
    let name = path
        .file_name()
        .and_then(|n| n.to_str())
        .unwrap_or("record");
    let tmp = path.with_file_name(format!(".{name}.{}.tmp", std::process::id()));
    let written = (|| -> anyhow::Result<()> {
        let mut text = serde_json::to_vec_pretty(value)?;
        text.push(b'\n');
        let mut f = File::create(&tmp).with_context(|| format!("creating {}", tmp.display()))?;
        f.write_all(&text)
            .and_then(|_| {
                if synced(text.len()) {
                    f.sync_all()
                } else {
                    Ok(())
                }
            })
            .with_context(|| format!("writing {}", tmp.display()))?;
        std::fs::rename(&tmp, path).with_context(|| format!("replacing {}", path.display()))
    })();
    if written.is_err() {
        let _ = std::fs::remove_file(&tmp);
    }
    written?;
    if let Some(parent) = path.parent() {
        if let Ok(d) = File::open(parent) {
            let _ = d.sync_all();
        }
    }
    Ok(())
}

/// The largest record still flushed to the disk once a stop signal came: behind other
/// writers, the flush of a PTS's 1.5 MB experiment.json waited most of a second, and the
/// process is to end within one. A larger one is renamed into place unflushed (the kernel
/// writes it back within seconds; only a power cut before then loses it).
const SYNCED_AFTER_A_STOP: usize = 64 << 10;

/// Whether a record of `len` bytes is flushed before it replaces the old one.
fn synced(len: usize) -> bool {
    len <= SYNCED_AFTER_A_STOP || !crate::stop::requested()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn this_process_is_running_and_a_dead_pid_is_crashed() {
        let me = ProcessStamp::current();
        assert!(me.start_ticks > 0 && !me.boot_id.is_empty());
        assert_eq!(liveness(Some(&me)), Liveness::Running);

        let mut child = std::process::Command::new("true").spawn().unwrap();
        let pid = child.id();
        child.wait().unwrap();
        let gone = ProcessStamp { pid, ..me.clone() };
        assert!(matches!(liveness(Some(&gone)), Liveness::Crashed(_)));

        let reused = ProcessStamp {
            start_ticks: me.start_ticks + 1,
            ..me.clone()
        };
        assert!(matches!(liveness(Some(&reused)), Liveness::Crashed(_)));

        let rebooted = ProcessStamp {
            boot_id: "another-boot".into(),
            ..me.clone()
        };
        assert!(matches!(liveness(Some(&rebooted)), Liveness::Crashed(w) if w.contains("reboot")));

        let elsewhere = ProcessStamp {
            host: "elsewhere".into(),
            ..me
        };
        assert!(matches!(liveness(Some(&elsewhere)), Liveness::Unknown(_)));
        assert!(matches!(liveness(None), Liveness::Unknown(_)));
    }

    #[test]
    fn records_are_replaced_without_leaving_temporary_files() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("run.json");
        let mark: fn(&mut serde_json::Value) = |v| v["status"] = "interrupted".into();
        write_record(&path, &serde_json::json!({"status": "running"}), true, mark).unwrap();
        write_record(
            &path,
            &serde_json::json!({"status": "completed"}),
            false,
            mark,
        )
        .unwrap();
        let names: Vec<_> = std::fs::read_dir(dir.path())
            .unwrap()
            .map(|e| e.unwrap().file_name())
            .collect();
        assert_eq!(names, vec![std::ffi::OsString::from("run.json")]);
        assert!(PENDING.lock().unwrap().iter().all(|p| p.path != path));
    }
}
