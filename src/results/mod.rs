//! The run directory, the contract between measuring and presenting: `run.json` describes the
//! run, `samples.jsonl` holds one [`Sample`] per line, each flushed to stable storage as it is
//! taken so a crash or power loss loses at most the interval in progress.

mod fade;
mod steady;
mod summary;

use std::fs::{File, OpenOptions};
use std::io::{BufRead, BufReader, Write};
use std::path::{Path, PathBuf};

use anyhow::Context;
use serde::{Deserialize, Serialize};

pub use fade::Fade;
pub use steady::steady_line;
pub use summary::Summary;

use crate::engine::RunEnd;
use crate::inspect::DriveInfo;
use crate::smart::WriteAmplification;
use crate::stats::steady::SteadyState;
use crate::stats::Sample;
use crate::target::Identity;
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
    /// Creates the directory and writes the initial `run.json` (status `running`).
    pub fn create(dir: &Path, info: &RunInfo) -> anyhow::Result<RunDir> {
        if dir.join("samples.jsonl").exists() {
            crate::bad_input!(
                "{} already holds a run: choose another --out directory or remove it",
                dir.display()
            );
        }
        if let Err(e) = std::fs::create_dir_all(dir) {
            crate::bad_input!("cannot create the run directory {}: {e}", dir.display());
        }
        let samples = OpenOptions::new()
            .create_new(true)
            .append(true)
            .open(dir.join("samples.jsonl"))
            .with_context(|| format!("creating {}/samples.jsonl", dir.display()))?;
        let run = RunDir {
            dir: dir.to_path_buf(),
            samples,
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
        Ok(RunDir {
            dir: dir.to_path_buf(),
            samples,
        })
    }

    /// Appends one sample and flushes it to stable storage.
    pub fn append(&mut self, sample: &Sample) -> anyhow::Result<()> {
        let mut line = serde_json::to_vec(sample)?;
        line.push(b'\n');
        self.samples
            .write_all(&line)
            .and_then(|_| self.samples.sync_data())
            .with_context(|| format!("writing a sample to {}/samples.jsonl", self.dir.display()))
    }

    /// Replaces `run.json` atomically (write, fsync, rename).
    pub fn write_info(&self, info: &RunInfo) -> anyhow::Result<()> {
        write_json_atomic(&self.dir.join("run.json"), info)
    }
}

/// Writes `value` as pretty JSON to `path` through a temporary file and a rename.
pub fn write_json_atomic<T: Serialize>(path: &Path, value: &T) -> anyhow::Result<()> {
    let tmp = path.with_extension("json.tmp");
    let mut f = File::create(&tmp).with_context(|| format!("creating {}", tmp.display()))?;
    serde_json::to_writer_pretty(&mut f, value)?;
    f.write_all(b"\n")?;
    f.sync_all()?;
    std::fs::rename(&tmp, path).with_context(|| format!("replacing {}", path.display()))?;
    if let Some(parent) = path.parent() {
        if let Ok(d) = File::open(parent) {
            let _ = d.sync_all();
        }
    }
    Ok(())
}

/// Reads a run directory's `run.json`.
pub fn read_info(dir: &Path) -> anyhow::Result<RunInfo> {
    let path = dir.join("run.json");
    let text =
        std::fs::read_to_string(&path).with_context(|| format!("reading {}", path.display()))?;
    serde_json::from_str(&text).with_context(|| format!("parsing {}", path.display()))
}

/// Reads every sample of a run directory; a torn last line (a crash mid-write) is skipped.
pub fn read_samples(dir: &Path) -> anyhow::Result<Vec<Sample>> {
    let path = dir.join("samples.jsonl");
    let f = File::open(&path).with_context(|| format!("opening {}", path.display()))?;
    let lines: Vec<String> = BufReader::new(f).lines().collect::<Result<_, _>>()?;
    let mut out = Vec::with_capacity(lines.len());
    for (i, line) in lines.iter().enumerate() {
        match serde_json::from_str(line) {
            Ok(s) => out.push(s),
            Err(_) if i + 1 == lines.len() => break,
            Err(e) => anyhow::bail!("{}:{}: {e}", path.display(), i + 1),
        }
    }
    Ok(out)
}
