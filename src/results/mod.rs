//! The run directory, the contract between measuring and presenting: `run.json` describes the
//! run, `samples.jsonl` holds one [`Sample`] per line, each flushed to stable storage as it is
//! taken so a crash or power loss loses at most the interval in progress.

mod describe;
mod experiment;
mod fade;
mod reader;
mod summary;

use std::fs::{File, OpenOptions};
use std::io::Write;
use std::path::{Path, PathBuf};

use anyhow::Context;
use serde::{Deserialize, Serialize};

pub use describe::{device_line, workload_line};
pub use experiment::{is_experiment, load_experiment, Experiment, LoadedPhase, PhaseRecord};
pub use fade::Fade;
pub use reader::{load_run, read_samples, Run, SteadyWindowRecord};
pub use summary::Summary;

use crate::engine::RunEnd;
use crate::inspect::DriveInfo;
use crate::smart::WriteAmplification;
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
