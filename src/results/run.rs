//! `run.json`: what a run was (command, target, workload, engine) and how it stands or ended
//! (status, summary, the drive before and after, steady state, resumes).

use std::path::Path;

use anyhow::Context;
use serde::{Deserialize, Serialize};

use super::record::ProcessStamp;
use super::{Command, Status, Summary};
use crate::drive::DriveInfo;
use crate::drive::Identity;
use crate::drive::RunEnd;
use crate::drive::WriteAmplification;
use crate::stats::steady::SteadyState;
use crate::workload::Workload;

/// The version of run.json this build writes; it reads this one and every older one.
pub const SCHEMA_VERSION: u32 = 1;

/// The file name inside a run directory.
pub const FILE: &str = "run.json";

/// Everything `run.json` records.
#[derive(Clone, Debug, Serialize, Deserialize, schemars::JsonSchema)]
pub struct RunInfo {
    /// The layout of this record ([`SCHEMA_VERSION`]); records older than the field are 1.
    #[serde(default = "super::version::first")]
    pub schema_version: u32,
    pub tool: String,
    pub version: String,
    /// The build that recorded the run: its commit and build date (`abc1234 2026-12-01`);
    /// absent in records older than the field.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub build: Option<String>,
    /// `measure`, `soak`, …
    pub command: Command,
    pub command_line: Vec<String>,
    pub target: TargetRecord,
    pub workload: Workload,
    pub engine: String,
    pub started_utc: String,
    /// `running` until the run ends, then `completed`, `interrupted` or `failed`.
    pub status: Status,
    #[serde(default)]
    pub ended_utc: Option<String>,
    #[serde(default)]
    pub end: Option<RunEnd>,
    /// The signal that interrupted the run: `interrupt` (Ctrl-C), `terminate` (SIGTERM) or
    /// `hangup` (SIGHUP: the terminal or SSH session went away).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub interrupted_by: Option<String>,
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
    /// The last steady state predicted early (random-write runs past their first cliff).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub prediction: Option<super::Prediction>,
    /// Every time the run was continued after a crash or an interruption: where, and the gap.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub resumes: Vec<Resume>,
    /// How the drive's health was read during the run (real drives with a health reader;
    /// see docs/telemetry.md).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub telemetry: Option<Telemetry>,
    /// What data verification (`--verify`) checked and found.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub verify: Option<super::verify::VerifyReport>,
}

/// One continuation of a run cut short: the series goes on at `index` and `at_s` (sample
/// indexes and the run's time line continue without a hole); the outage is recorded here.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize, schemars::JsonSchema)]
pub struct Resume {
    /// Index of the first sample written after the resume.
    pub index: u64,
    /// The run's time (s) at which it continued: the end of the last sample kept.
    pub at_s: f64,
    pub resumed_utc: String,
    /// Wall seconds between the last sample kept being written and the resume (the drive
    /// sat idle or was powered off meanwhile); `None` when not known.
    pub outage_s: Option<f64>,
    /// Samples found after the last one kept and dropped: a simulated drive saved before them
    /// (the drive and the series must agree), or damaged lines at the end of samples.jsonl.
    pub dropped_samples: u64,
    pub note: String,
}

impl RunInfo {
    /// Bytes the run writes before SNIA's rounds count: its fast preconditioning, or else its
    /// span once and the flash the drive fills before it collects garbage (one rule for the
    /// run, its convergence chart and its prediction: [`crate::stats::steady::rounds_start_bytes`]).
    pub fn rounds_start_bytes(&self) -> u64 {
        crate::stats::steady::rounds_start_bytes(
            self.workload.precondition.map(|p| p.bytes),
            self.workload.span,
            self.drive_before
                .as_ref()
                .and_then(DriveInfo::flash_to_fill),
        )
    }

    /// The record of a run starting now in this process: `running`, nothing measured yet.
    pub fn started(
        command: Command,
        target: TargetRecord,
        workload: Workload,
        engine: &str,
        drive_before: Option<DriveInfo>,
    ) -> RunInfo {
        RunInfo {
            schema_version: SCHEMA_VERSION,
            tool: "ssdfade".into(),
            version: env!("CARGO_PKG_VERSION").into(),
            build: Some(env!("SSDFADE_BUILD").into()),
            command,
            command_line: std::env::args().collect(),
            target,
            workload,
            engine: engine.into(),
            started_utc: super::utc_now(),
            status: Status::Running,
            ended_utc: None,
            end: None,
            interrupted_by: None,
            summary: None,
            drive_before,
            drive_after: None,
            write_amplification: None,
            steady_state: None,
            prediction: None,
            resumes: Vec::new(),
            verify: None,
            telemetry: None,
            process: Some(ProcessStamp::current()),
            heartbeat_utc: None,
        }
    }

    /// The status as a reader should show it: a run recorded as `running` whose process is
    /// gone is `crashed`, with the reason.
    pub fn effective_status(&self) -> (String, Option<String>) {
        match self.failure() {
            Some(why) => (self.status.as_str().into(), Some(why.into())),
            None => self.status.shown(self.process.as_ref()),
        }
    }

    /// Why the run failed, when it did (the engine's error, buffers it could not get, bad
    /// blocks found by verification).
    pub fn failure(&self) -> Option<&str> {
        match (&self.status, &self.end) {
            (Status::Failed, Some(RunEnd::Failed(why))) => Some(why),
            _ => None,
        }
    }
}

/// The target as run.json records it.
#[derive(Clone, Debug, Serialize, Deserialize, schemars::JsonSchema)]
pub struct TargetRecord {
    pub path: String,
    pub identity: Identity,
}

/// Reads a run directory's `run.json`.
pub fn read_info(dir: &Path) -> anyhow::Result<RunInfo> {
    let path = dir.join("run.json");
    let text = super::reader::open_regular(&path)
        .and_then(std::io::read_to_string)
        .with_context(|| format!("reading {}", path.display()))?;
    let mut info: RunInfo = super::json::parse(&path, &text)?;
    super::version::check(&path, info.schema_version, SCHEMA_VERSION)?;
    check(&path, &info)?;
    info.target.identity.on_one_line();
    Ok(info)
}

/// Refuses (bad input, naming `path` and the field) a run.json whose numbers no run can have
/// written: a summary time that is negative, not finite or beyond any run, latencies out of
/// order, a block size, alignment, queue depth or interval of 0, a span of 0 or one not inside
/// the target. Everything that loads a run.json checks it here before computing with it (a
/// time of 1e30 s once panicked in a Duration; a block size of 0 divided by zero).
pub fn check(path: &Path, info: &RunInfo) -> anyhow::Result<()> {
    let why = || -> Result<(), String> {
        let w = &info.workload;
        for (field, v) in [("workload.bs", w.bs), ("workload.align", w.align)] {
            if v == 0 {
                return Err(format!("{field} is 0"));
            }
        }
        if w.qd == 0 {
            return Err("workload.qd is 0".into());
        }
        // The mix as the command line takes it: shares of the I/Os, together at most 100 %.
        if u16::from(w.read_pct) + u16::from(w.trim_pct) > 100 || w.random_pct > 100 {
            return Err(format!(
                "workload.read_pct {} + trim_pct {} is over 100, or random_pct {} is",
                w.read_pct, w.trim_pct, w.random_pct
            ));
        }
        super::valid::period("workload.interval", w.interval.as_secs_f64())?;
        // Every run writes inside its target: a span of 0 or past the end was edited in (a
        // `sim fit` of one soaked a twin elsewhere and blamed the fit).
        let size = info.target.identity.size_bytes;
        if w.span == 0 || w.offset.checked_add(w.span).is_none_or(|end| end > size) {
            return Err(format!(
                "workload.offset {} + workload.span {} is not inside the target's {size} bytes",
                w.offset, w.span
            ));
        }
        // No drive has less flash than it shows the host (a crafted 0 once made a resumed
        // simulated soak's predictor take 16 GB of memory).
        for (field, d) in [
            ("drive_before", &info.drive_before),
            ("drive_after", &info.drive_after),
        ] {
            if let Some((flash, size)) = d
                .as_ref()
                .and_then(|d| Some((d.flash_bytes?, d.size_bytes?)))
            {
                if flash < size {
                    return Err(format!(
                        "{field}.flash_bytes is {flash}, less than the drive's {size} bytes"
                    ));
                }
            }
        }
        if let Some(p) = &info.prediction {
            super::valid::prediction(p)?;
        }
        if let Some(s) = &info.summary {
            super::valid::seconds("summary.seconds", s.seconds)?;
            for (field, v) in [("summary.iops", s.iops), ("summary.mb_per_s", s.mb_per_s)] {
                if !v.is_finite() || v < 0.0 {
                    return Err(format!("{field} is {v}, not a rate"));
                }
            }
            super::valid::latencies(&[
                ("summary.lat_us", s.lat_us),
                ("summary.read_lat_us", s.read_lat_us),
                ("summary.write_lat_us", s.write_lat_us),
                (
                    "summary.trim.lat_us",
                    s.trim.as_ref().and_then(|t| t.lat_us),
                ),
            ])?;
        }
        if let Some(wa) = &info.write_amplification {
            let f = wa.factor;
            if !(f.is_finite() && (0.0..=super::valid::MAX_FIGURE).contains(&f)) {
                return Err(format!(
                    "write_amplification.factor is {f}, not a factor from 0 to {}",
                    super::valid::MAX_FIGURE
                ));
            }
        }
        Ok(())
    };
    if let Err(why) = why() {
        crate::bad_input!(
            "{} is corrupt ({why}): the record was edited or is damaged",
            path.display()
        );
    }
    Ok(())
}

/// The telemetry sampler's account of a run: the times it asked the drive (a failed ask
/// included), its own CPU per ask, and why it stopped asking when a read failed (recorded once;
/// the run goes on).
#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize, schemars::JsonSchema)]
pub struct Telemetry {
    pub reads: u64,
    /// Mean CPU time of the sampler thread per ask, µs.
    pub cpu_per_read_us: f64,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub note: Option<String>,
}
