//! What an experiment tells whoever watches it (its terminal lines, an exporter): its start,
//! each phase's start and end, and a watcher for each phase's run.

use std::path::Path;

use super::run::RunObserver;
use crate::results::{ExperimentRecord, PhaseRecord};

/// Watches an experiment: its start and end, each phase as it starts and ends, and the runs
/// inside them.
pub trait ExperimentObserver {
    /// The experiment directory holds its record and the first phase not completed is next.
    fn started(&mut self, _dir: &Path, _record: &ExperimentRecord) {}
    fn phase_started(&mut self, _index: usize, _phase: &PhaseRecord) {}
    fn phase_finished(&mut self, _index: usize, _phase: &PhaseRecord) {}
    /// Watches the run of a measure or soak phase.
    fn run_observer(&mut self, _phase: &PhaseRecord) -> Box<dyn RunObserver> {
        Box::new(super::run::NoProgress)
    }
    /// The experiment stopped (completed, interrupted or failed: `record.status`); its record
    /// is saved.
    fn finished(&mut self, _record: &ExperimentRecord) {}
}

/// Watches nothing.
pub struct Quiet;

impl ExperimentObserver for Quiet {}
