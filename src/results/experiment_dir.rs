//! Reading an experiment directory back: `experiment.json` ([`ExperimentRecord`]) lists the
//! phases in order, each with its own subdirectory (an ordinary run directory, or an erase
//! record with erase.json).
//!
//! Phases that have not run yet (no samples, or no directory) are kept with no data, so an
//! unfinished experiment reads as far as it got.

use std::path::{Path, PathBuf};

use super::reader::{load_run, Run};
use super::settings::Settings;
use super::{EraseRecord, ExperimentKind, ExperimentRecord, PhaseRecord};
use crate::bad_input;

/// A phase as read back: its record and, when it ran, its samples or its erase record.
#[derive(Clone, Debug)]
pub struct LoadedPhase {
    pub record: PhaseRecord,
    pub run: Option<Run>,
    /// erase.json as written by `erase`, for an erase phase that ran.
    pub erase: Option<EraseRecord>,
}

/// An experiment directory as read back.
#[derive(Clone, Debug)]
pub struct Experiment {
    pub dir: PathBuf,
    /// The experiment's kind as recorded (`vertex2`, `wsat`, a preset…).
    pub name: ExperimentKind,
    pub record: ExperimentRecord,
    pub phases: Vec<LoadedPhase>,
}

impl Experiment {
    /// The phases named `<prefix>-…` of this experiment as an experiment of `kind` with
    /// `settings`, each phase named without the prefix: a PTS suite's WSAT, HIR or XSR read as
    /// the kind reads its own experiments.
    pub fn part(&self, prefix: &str, kind: &str, settings: Settings) -> Experiment {
        let strip = |name: &str| {
            name.strip_prefix(prefix)
                .and_then(|n| n.strip_prefix('-'))
                .map(str::to_string)
        };
        let renamed = |p: &PhaseRecord| {
            strip(&p.phase.name).map(|name| {
                let mut p = p.clone();
                p.phase.name = name;
                p
            })
        };
        let mut record = self.record.clone();
        record.name = kind.into();
        record.settings = settings;
        record.phases = self.record.phases.iter().filter_map(renamed).collect();
        Experiment {
            dir: self.dir.clone(),
            name: kind.into(),
            record,
            phases: self
                .phases
                .iter()
                .filter_map(|p| {
                    renamed(&p.record).map(|record| LoadedPhase {
                        record,
                        ..p.clone()
                    })
                })
                .collect(),
        }
    }
}

/// `reference` given on the command line for the directory `dir` (`report`/`plot
/// --reference`): only a Vertex 2 experiment has states to set it against, so any other
/// directory is bad input. The reference replaces the kept one in `exp`, for this rendering.
pub fn apply_reference(
    dir: &Path,
    exp: Option<&mut Experiment>,
    reference: Option<super::ReferenceIops>,
) -> anyhow::Result<()> {
    let Some(reference) = reference else {
        return Ok(());
    };
    match exp {
        Some(exp) if exp.name.has_states() => {
            exp.record.reference = Some(reference);
            Ok(())
        }
        _ => bad_input!(
            "--reference: {} is not a vertex2 experiment directory; give it only for one",
            dir.display()
        ),
    }
}

/// True when `dir` holds an experiment (experiment.json) rather than a single run.
pub fn is_experiment(dir: &Path) -> bool {
    dir.join(super::experiment::FILE).is_file()
}

/// True when some phase of the experiment in `dir` (its record `record`) has samples: until
/// then there is nothing to plot or report.
pub fn any_phase_has_samples(dir: &Path, record: &ExperimentRecord) -> bool {
    record
        .phases
        .iter()
        .any(|p| p.dir.as_ref().is_some_and(|d| has_samples(&dir.join(d))))
}

/// A phase directory holding a samples.jsonl that is not empty.
fn has_samples(pdir: &Path) -> bool {
    std::fs::metadata(pdir.join("samples.jsonl")).is_ok_and(|m| m.len() > 0)
}

/// Reads back every completed phase of the experiment in `dir` (its record `record`) as
/// [`load_experiment`] does: a record edited or damaged since is bad input naming it. `resume`
/// asks before it runs more phases on top of them; the phase it continues is run again.
pub fn check_completed_phases(dir: &Path, record: &ExperimentRecord) -> anyhow::Result<()> {
    for phase in &record.phases {
        if phase.status == super::Status::Completed {
            load_phase(dir, phase)?;
        }
    }
    Ok(())
}

/// The run (when it has samples) and the erase record of `phase` of the experiment in `dir`.
fn load_phase(
    dir: &Path,
    phase: &PhaseRecord,
) -> anyhow::Result<(Option<Run>, Option<EraseRecord>)> {
    let Some(pdir) = phase.dir.as_ref().map(|d| dir.join(d)) else {
        return Ok((None, None));
    };
    let run = if has_samples(&pdir) {
        Some(load_run(&pdir)?)
    } else {
        None
    };
    let erase = if pdir.join(super::erase::FILE).is_file() {
        Some(EraseRecord::load(&pdir)?)
    } else {
        None
    };
    Ok((run, erase))
}

/// Reads experiment.json and every phase that ran. A phase directory with a damaged sample
/// line is bad input naming the line, as for a single run.
pub fn load_experiment(dir: &Path) -> anyhow::Result<Experiment> {
    let record = ExperimentRecord::load(dir)?;
    let mut phases = Vec::new();
    for phase in &record.phases {
        let (run, erase) = load_phase(dir, phase)?;
        phases.push(LoadedPhase {
            record: phase.clone(),
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
        name: record.name.clone(),
        record,
        phases,
    })
}
