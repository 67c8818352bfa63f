//! The run directory, the contract between measuring and presenting: `run.json` describes the
//! run, `samples.jsonl` holds one [`Sample`] per line, each flushed to stable storage as it is
//! taken so a crash or power loss loses at most the interval in progress.

mod describe;
mod experiment;
mod listing;
mod reader;
pub mod record;
mod steady;
mod summary;
mod table;

use std::fs::{File, OpenOptions};
use std::io::Write;
use std::path::{Path, PathBuf};

use anyhow::Context;
use serde::{Deserialize, Serialize};

pub use describe::{device_line, device_name, workload_line};
pub use experiment::{is_experiment, load_experiment, Experiment, LoadedPhase, PhaseRecord};
pub use listing::{list_runs, RunListing};
pub use reader::{load_run, read_samples, Run};
pub use record::{write_json_atomic, ProcessStamp};
pub use steady::steady_line;
pub use summary::Summary;
pub use table::run_table;

use crate::device::inspect::DriveInfo;
use crate::device::smart::WriteAmplification;
use crate::device::Identity;
use crate::engine::RunEnd;
use crate::stats::steady::SteadyState;
use crate::stats::Sample;
use crate::workload::Workload;

/// Everything `run.json` records.
#[derive(Clone, Debug, Serialize, Deserialize)]
pub struct RunInfo {
    pub tool: String,
    pub version: String,
    /// `measure`, `soak`, …
    pub command: String,
    pub command_line: Vec<String>,
    pub target: TargetRecord,
    pub workload: Workload,
    pub engine: String,
    pub started_utc: String,
    /// `running` until the run ends, then `completed`, `interrupted` or `failed`.
    pub status: String,
    #[serde(default)]
    pub ended_utc: Option<String>,
    #[serde(default)]
    pub end: Option<RunEnd>,
    #[serde(default)]
    pub summary: Option<Summary>,
    /// The target as `info` saw it (with wear) before and after the run.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub drive_before: Option<DriveInfo>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub drive_after: Option<DriveInfo>,
    /// NAND over host writes during the run, when the drive reports both.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub write_amplification: Option<WriteAmplification>,
    /// The process writing the run, to tell a crashed run from a running one.
    #[serde(default)]
    pub process: Option<ProcessStamp>,
    /// Wall-clock time of the last sample written (updated at most once a second).
    #[serde(default)]
    pub heartbeat_utc: Option<String>,
    /// SNIA PTS steady state over the run's samples (runs that write).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub steady_state: Option<SteadyState>,
    /// Every time the run was continued after a crash or an interruption: where, and the gap.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub resumes: Vec<Resume>,
}

/// One continuation of a run cut short: the series goes on at `index` and `at_s` (sample
/// indexes and the run's time line continue without a hole); the outage is recorded here.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct Resume {
    /// Index of the first sample written after the resume.
    pub index: u64,
    /// The run's time (s) at which it continued: the end of the last sample kept.
    pub at_s: f64,
    pub resumed_utc: String,
    /// Wall seconds between the last sample kept being written and the resume (the drive
    /// sat idle or was powered off meanwhile); `None` when not known.
    pub outage_s: Option<f64>,
    /// Samples found after the last one kept and dropped (a simulated drive saved before them:
    /// the drive and the series must agree).
    pub dropped_samples: u64,
    pub note: String,
}

impl RunInfo {
    /// The status as a reader should show it: a run recorded as `running` whose process is
    /// gone is `crashed`, with the reason.
    pub fn effective_status(&self) -> (String, Option<String>) {
        if self.status != "running" {
            return (self.status.clone(), None);
        }
        match record::liveness(self.process.as_ref()) {
            record::Liveness::Running => ("running".into(), None),
            record::Liveness::Crashed(why) => ("crashed".into(), Some(why)),
            record::Liveness::Unknown(why) => ("running?".into(), Some(why)),
        }
    }
}

/// The target as run.json records it.
#[derive(Clone, Debug, Serialize, Deserialize)]
pub struct TargetRecord {
    pub path: String,
    pub identity: Identity,
}

/// An open run directory being written.
pub struct RunDir {
    pub dir: PathBuf,
    samples: File,
    /// Length of samples.jsonl: every line ends there, so a short write is cut back to it.
    samples_len: u64,
}

/// Space held back in every run directory while its run goes on, released to write the final
/// run.json when the disk under it fills up.
const SPACE_RESERVE: &str = ".space-reserve";
const SPACE_RESERVE_BYTES: usize = 256 * 1024;

/// Gives back the space held for the final record of a run in `dir`.
pub fn release_space_reserve(dir: &Path) {
    let _ = std::fs::remove_file(dir.join(SPACE_RESERVE));
}

/// Creates the directory a run or erase writes into: `out` when given (refused when it already
/// holds `record`), else a new `results/<UTC time>-<name>`, with `-2`, `-3`… appended when a
/// run started in the same second already took that name.
pub fn claim_dir(out: Option<&Path>, name: &str, record: &str) -> anyhow::Result<PathBuf> {
    if let Some(dir) = out {
        if dir.join(record).exists() {
            crate::bad_input!(
                "{} already holds a run ({record}): choose another --out directory or remove it",
                dir.display()
            );
        }
        if let Err(e) = std::fs::create_dir_all(dir) {
            crate::bad_input!("cannot create the run directory {}: {e}", dir.display());
        }
        return Ok(dir.to_path_buf());
    }
    let base = default_dir(name);
    if let Some(parent) = base.parent() {
        if let Err(e) = std::fs::create_dir_all(parent) {
            crate::bad_input!("cannot create {}: {e}", parent.display());
        }
    }
    for n in 1.. {
        let dir = if n == 1 {
            base.clone()
        } else {
            PathBuf::from(format!("{}-{n}", base.display()))
        };
        match std::fs::create_dir(&dir) {
            Ok(()) => return Ok(dir),
            Err(e) if e.kind() == std::io::ErrorKind::AlreadyExists => continue,
            Err(e) => crate::bad_input!("cannot create the run directory {}: {e}", dir.display()),
        }
    }
    unreachable!("an unbounded range ends only by returning")
}

/// Current UTC time as RFC 3339 (`2026-11-29T18:39:29Z`).
pub fn utc_now() -> String {
    humantime::format_rfc3339_seconds(std::time::SystemTime::now()).to_string()
}

/// The default run directory: `results/<UTC timestamp>-<target name>`.
pub fn default_dir(target_name: &str) -> PathBuf {
    let stamp: String = utc_now()
        .chars()
        .filter(|c| c.is_ascii_alphanumeric())
        .collect();
    let name: String = target_name
        .chars()
        .map(|c| {
            if c.is_ascii_alphanumeric() || "-_.".contains(c) {
                c
            } else {
                '_'
            }
        })
        .collect();
    PathBuf::from("results").join(format!("{stamp}-{name}"))
}

impl RunDir {
    /// Creates the run directory (see [`claim_dir`]) and writes the initial `run.json`
    /// (status `running`).
    pub fn create(out: Option<&Path>, name: &str, info: &RunInfo) -> anyhow::Result<RunDir> {
        let dir = claim_dir(out, name, "samples.jsonl")?;
        let samples = OpenOptions::new()
            .create_new(true)
            .append(true)
            .open(dir.join("samples.jsonl"))
            .with_context(|| format!("creating {}/samples.jsonl", dir.display()))?;
        std::fs::write(dir.join(SPACE_RESERVE), vec![0u8; SPACE_RESERVE_BYTES])
            .with_context(|| format!("writing {}/{SPACE_RESERVE}", dir.display()))?;
        let run = RunDir {
            dir,
            samples,
            samples_len: 0,
        };
        run.write_info(info)?;
        Ok(run)
    }

    /// Opens an existing run directory to continue its series after its first `keep` samples
    /// (the rest, and a torn last line, are cut off atomically first).
    pub fn reopen(dir: &Path, keep: &[Sample]) -> anyhow::Result<RunDir> {
        let path = dir.join("samples.jsonl");
        let tmp = dir.join("samples.jsonl.tmp");
        let mut text = Vec::new();
        for sample in keep {
            text.extend(serde_json::to_vec(sample)?);
            text.push(b'\n');
        }
        let mut f = File::create(&tmp).with_context(|| format!("creating {}", tmp.display()))?;
        f.write_all(&text)?;
        f.sync_all()?;
        std::fs::rename(&tmp, &path).with_context(|| format!("replacing {}", path.display()))?;
        let samples = OpenOptions::new()
            .append(true)
            .open(&path)
            .with_context(|| format!("opening {}", path.display()))?;
        std::fs::write(dir.join(SPACE_RESERVE), vec![0u8; SPACE_RESERVE_BYTES])
            .with_context(|| format!("writing {}/{SPACE_RESERVE}", dir.display()))?;
        Ok(RunDir {
            dir: dir.to_path_buf(),
            samples,
            samples_len: text.len() as u64,
        })
    }

    /// Appends one sample in a single write and flushes it to stable storage. A short write (a
    /// full disk) is cut back to the last whole line, so samples.jsonl never ends torn.
    pub fn append(&mut self, sample: &Sample) -> anyhow::Result<()> {
        let mut line = serde_json::to_vec(sample)?;
        line.push(b'\n');
        let context = || format!("writing a sample to {}/samples.jsonl", self.dir.display());
        let n = self.samples.write(&line).with_context(context)?;
        if n < line.len() {
            let _ = self.samples.set_len(self.samples_len);
            anyhow::bail!(
                "{}: only {n} of {} bytes fit (is the disk full?)",
                context(),
                line.len()
            );
        }
        self.samples_len += n as u64;
        self.samples.sync_data().with_context(context)
    }

    /// Replaces `run.json` atomically (write, fsync, rename). A final record (status other than
    /// `running`) first gives back the space held for it.
    pub fn write_info(&self, info: &RunInfo) -> anyhow::Result<()> {
        let running = info.status == "running";
        if !running {
            release_space_reserve(&self.dir);
        }
        record::write_record(&self.dir.join("run.json"), info, running, |v| {
            v["status"] = "interrupted".into();
            v["ended_utc"] = utc_now().into();
            v["end"] = serde_json::json!({"reason": "interrupted"});
        })
    }
}

/// Reads a run directory's `run.json`.
pub fn read_info(dir: &Path) -> anyhow::Result<RunInfo> {
    let path = dir.join("run.json");
    let text =
        std::fs::read_to_string(&path).with_context(|| format!("reading {}", path.display()))?;
    serde_json::from_str(&text).with_context(|| format!("parsing {}", path.display()))
}
