//! `experiment.json`: what an experiment is (name, target, options, phases) and how far it got,
//! rewritten atomically after every change of a phase, so a crash leaves the last state.

use std::path::{Path, PathBuf};

use serde::{Deserialize, Serialize};

use super::phase::Phase;
use crate::bad_input;
use crate::engine::EngineKind;
use crate::results::write_json_atomic;
use crate::stats::steady::SteadyState;
use crate::stats::LatencySummary;

/// The version of experiment.json this build writes and reads.
pub const SCHEMA_VERSION: u32 = 1;

/// The file name inside an experiment directory.
pub const FILE: &str = "experiment.json";

/// The whole record.
#[derive(Clone, Debug, Serialize, Deserialize)]
pub struct ExperimentRecord {
    pub schema_version: u32,
    pub tool: String,
    pub version: String,
    /// `vertex2`, `wsat`, `hir`, `sweep`, or a preset: `cdm`, `tiobench`, `iometer-allinone`.
    pub name: String,
    /// The target as the user gave it.
    pub target: String,
    /// For a simulated drive without `state=`: the state file, relative to the experiment
    /// directory, that keeps it the same drive across phases and resumes.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub drive_state: Option<String>,
    /// The target's identity when the experiment started (a resume refuses another drive).
    pub identity: TargetIdentity,
    pub options: Options,
    /// Protocol-specific settings, for the summary (`--pattern-check`, the sweep's axis…).
    #[serde(default)]
    pub settings: serde_json::Value,
    pub notes: Vec<String>,
    pub command_line: Vec<String>,
    /// The experiment's seed, given or drawn when none was: every phase's seed derives from
    /// it, so the command line plus `--seed` this repeats the experiment.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub seed: Option<u64>,
    pub created_utc: String,
    pub updated_utc: String,
    /// `running`, `completed`, `interrupted` or `failed`.
    pub status: String,
    pub phases: Vec<PhaseRecord>,
}

/// What identifies the drive: a resume on another one is refused.
#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize)]
pub struct TargetIdentity {
    pub kind: String,
    pub model: Option<String>,
    pub serial: Option<String>,
    pub size_bytes: Option<u64>,
}

/// Options shared by every phase.
#[derive(Clone, Debug, Default, Serialize, Deserialize)]
pub struct Options {
    /// The `--destroy-data` confirmation given when the experiment was started.
    pub destroy_data: Option<PathBuf>,
    pub force: bool,
    /// Size of a test file to create.
    pub size: Option<u64>,
    #[serde(with = "engine_name")]
    pub engine: Option<EngineKind>,
    /// SNIA steady-state round, seconds.
    pub ss_round_s: f64,
    /// Simulated drives save themselves every this many simulated seconds during a soak.
    pub checkpoint_s: Option<f64>,
}

/// One phase and how it went.
#[derive(Clone, Debug, Serialize, Deserialize)]
pub struct PhaseRecord {
    #[serde(flatten)]
    pub phase: Phase,
    /// `pending`, `running`, `completed`, `interrupted` or `failed`.
    pub status: String,
    pub started_utc: Option<String>,
    pub ended_utc: Option<String>,
    /// Subdirectory (`01-in-service`), relative to the experiment directory; none for idle.
    pub dir: Option<String>,
    /// How many times the phase was started (more than 1 after a resume).
    pub attempts: u32,
    pub headline: Option<Headline>,
    pub error: Option<String>,
}

/// A finished phase's figures.
#[derive(Clone, Debug, Default, Serialize, Deserialize)]
pub struct Headline {
    #[serde(skip_serializing_if = "Option::is_none")]
    pub iops: Option<f64>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub mb_per_s: Option<f64>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub lat_us: Option<LatencySummary>,
    /// Seconds the run covered, the erase took or the drive idled.
    pub seconds: f64,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub bytes_written: Option<u64>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub steady_state: Option<SteadyState>,
    /// The erase method used.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub method: Option<String>,
}

impl ExperimentRecord {
    /// Writes the record to `dir/experiment.json` atomically, stamping the time.
    pub fn save(&mut self, dir: &Path) -> anyhow::Result<()> {
        self.updated_utc = crate::results::utc_now();
        write_json_atomic(&dir.join(FILE), self)
    }

    /// Reads an experiment directory for a resume; anything that cannot be resumed is bad
    /// input (one line, exit 2).
    pub fn load(dir: &Path) -> anyhow::Result<ExperimentRecord> {
        let path = dir.join(FILE);
        let text = match std::fs::read_to_string(&path) {
            Ok(t) => t,
            Err(e) => bad_input!(
                "{} is not an experiment directory ({}: {e}): give the directory `ssdfade experiment` printed",
                dir.display(),
                path.display()
            ),
        };
        let value: serde_json::Value = match serde_json::from_str(&text) {
            Ok(v) => v,
            Err(e) => bad_input!(
                "{} is corrupt ({e}): it cannot be resumed; start a new experiment",
                path.display()
            ),
        };
        let schema = value.get("schema_version").and_then(|v| v.as_u64());
        if schema != Some(u64::from(SCHEMA_VERSION)) {
            bad_input!(
                "{} has schema version {}, this ssdfade reads version {SCHEMA_VERSION}: resume it with the ssdfade that started it",
                path.display(),
                schema.map_or("none".to_string(), |s| s.to_string())
            );
        }
        match serde_json::from_value(value) {
            Ok(r) => Ok(r),
            Err(e) => bad_input!(
                "{} is corrupt ({e}): it cannot be resumed; start a new experiment",
                path.display()
            ),
        }
    }

    /// The phase named `name`.
    pub fn phase(&self, name: &str) -> Option<&PhaseRecord> {
        self.phases.iter().find(|p| p.phase.name == name)
    }
}

mod engine_name {
    use serde::{Deserialize, Deserializer, Serializer};

    use crate::engine::EngineKind;

    pub fn serialize<S: Serializer>(v: &Option<EngineKind>, s: S) -> Result<S::Ok, S::Error> {
        match v {
            Some(EngineKind::Threads) => s.serialize_some("threads"),
            Some(EngineKind::Uring) => s.serialize_some("uring"),
            None => s.serialize_none(),
        }
    }

    pub fn deserialize<'de, D: Deserializer<'de>>(d: D) -> Result<Option<EngineKind>, D::Error> {
        Ok(match Option::<String>::deserialize(d)?.as_deref() {
            Some("threads") => Some(EngineKind::Threads),
            Some("uring") => Some(EngineKind::Uring),
            _ => None,
        })
    }
}
