//! Reading an experiment directory back: `experiment.json` lists the phases in order, each
//! with its own subdirectory (an ordinary run directory, or an erase record with erase.json).
//!
//! ```json
//! {"name": "vertex2", "phases": [
//!   {"name": "fresh", "kind": "measure", "status": "completed", "dir": "01-fresh"},
//!   {"name": "trim",  "kind": "erase",   "status": "completed", "dir": "04-trim"}]}
//! ```
//!
//! Phases that have not run yet (no samples, or no directory) are kept with no data, so an
//! unfinished experiment reads as far as it got.

use std::path::{Path, PathBuf};

use serde::Deserialize;

use super::reader::{load_run, Run};
use crate::bad_input;

/// One entry of experiment.json's `phases`.
#[derive(Clone, Debug, Deserialize)]
pub struct PhaseRecord {
    pub name: String,
    /// `measure`, `soak`, `erase`, `idle`, …
    pub kind: String,
    #[serde(default)]
    pub status: String,
    /// The phase's directory, relative to the experiment directory (none for a phase that
    /// records nothing, such as idle time).
    #[serde(default)]
    pub dir: Option<PathBuf>,
    /// The phase's parameters as recorded (an idle phase's `seconds`, a run's workload…).
    #[serde(default)]
    pub params: serde_json::Value,
}

impl PhaseRecord {
    /// The length of an idle phase, in seconds.
    pub fn idle_seconds(&self) -> Option<f64> {
        (self.kind == "idle").then(|| self.params["seconds"].as_f64())?
    }
}

#[derive(Clone, Debug, Deserialize)]
struct ExperimentRecord {
    #[serde(default)]
    name: Option<String>,
    #[serde(default)]
    command_line: Vec<String>,
    #[serde(default)]
    seed: Option<u64>,
    phases: Vec<PhaseRecord>,
}

/// A phase as read back: its record and, when it ran, its samples or its erase record.
#[derive(Clone, Debug)]
pub struct LoadedPhase {
    pub record: PhaseRecord,
    pub run: Option<Run>,
    /// erase.json as written by `erase`, for an erase phase that ran.
    pub erase: Option<serde_json::Value>,
}

/// An experiment directory as read back.
#[derive(Clone, Debug)]
pub struct Experiment {
    pub dir: PathBuf,
    pub name: String,
    /// The command that started the experiment, as given (empty for records that lack it).
    pub command_line: Vec<String>,
    /// The experiment's seed (None in records written before it was recorded).
    pub seed: Option<u64>,
    pub phases: Vec<LoadedPhase>,
}

/// True when `dir` holds an experiment (experiment.json) rather than a single run.
pub fn is_experiment(dir: &Path) -> bool {
    dir.join("experiment.json").is_file()
}

/// Reads experiment.json and every phase that ran. A phase directory with a damaged sample
/// line is bad input naming the line, as for a single run.
pub fn load_experiment(dir: &Path) -> anyhow::Result<Experiment> {
    let path = dir.join("experiment.json");
    let text = match std::fs::read_to_string(&path) {
        Ok(t) => t,
        Err(e) => bad_input!("cannot read {}: {e}", path.display()),
    };
    let record: ExperimentRecord = match serde_json::from_str(&text) {
        Ok(r) => r,
        Err(e) => bad_input!("{} is damaged: {e}", path.display()),
    };
    let mut phases = Vec::new();
    for phase in record.phases {
        let pdir = phase.dir.as_ref().map(|d| dir.join(d));
        let has_samples = pdir
            .as_ref()
            .is_some_and(|d| std::fs::metadata(d.join("samples.jsonl")).is_ok_and(|m| m.len() > 0));
        let run = match &pdir {
            Some(d) if has_samples => Some(load_run(d)?),
            _ => None,
        };
        let erase = pdir
            .and_then(|d| std::fs::read_to_string(d.join("erase.json")).ok())
            .and_then(|t| serde_json::from_str(&t).ok());
        phases.push(LoadedPhase {
            record: phase,
            run,
            erase,
        });
    }
    if phases.iter().all(|p| p.run.is_none()) {
        bad_input!(
            "{} has no phase with samples yet: nothing to plot or report",
            dir.display()
        );
    }
    Ok(Experiment {
        dir: dir.to_path_buf(),
        name: record.name.unwrap_or_else(|| {
            dir.file_name()
                .map_or("experiment".into(), |n| n.to_string_lossy().into())
        }),
        command_line: record.command_line,
        seed: record.seed,
        phases,
    })
}
