//! An experiment (vertex2, wsat, hir) on several targets at once: each target runs the whole
//! experiment in its own experiment directory under one group directory with group.json, and
//! `resume GROUPDIR` continues every member not completed. Every target passes the experiment's
//! up-front check (safety gates, workloads) before any directory is made.

use std::path::{Path, PathBuf};
use std::sync::atomic::AtomicBool;
use std::sync::Arc;

use super::together::{self, Finished, Job};
use super::GroupRecord;
use crate::drive::RunEnd;
use crate::experiment::{
    preflight, start, ExperimentObserver, ExperimentOutcome, ExperimentRecord, PhaseKind, Setup,
};
use crate::results::Status;

/// Makes each target's observer (its progress line, its metrics).
pub type ObserverFor<'a> = dyn Fn(&str) -> Box<dyn ExperimentObserver + Send> + 'a;

/// A finished group of experiments.
pub struct GroupExperiment {
    pub dir: PathBuf,
    pub members: Vec<Finished<ExperimentOutcome>>,
    /// The overlay of the members' soak phases written into the group directory (compare.png,
    /// .md, .html), or why it could not be drawn; `None` with fewer than two soaks to draw.
    pub comparison: Option<Result<Vec<PathBuf>, String>>,
}

impl GroupExperiment {
    /// How the group ended: failed (naming the targets) when any member failed, else
    /// interrupted when any was, else completed.
    pub fn end(&self) -> RunEnd {
        super::end_of(self.members.iter().map(|m| (m.target.as_str(), status(m))))
    }
}

/// `completed`, `interrupted` or `failed`.
pub fn status(m: &Finished<ExperimentOutcome>) -> Status {
    match &m.result {
        Ok(o) => o.record.status,
        Err(_) => Status::Failed,
    }
}

/// Why a member failed, when it did.
pub fn failure(m: &Finished<ExperimentOutcome>) -> Option<String> {
    match &m.result {
        Ok(o) => match &o.end {
            RunEnd::Failed(why) => Some(why.clone()),
            _ => None,
        },
        Err(e) => Some(e.clone()),
    }
}

/// Runs the experiment `make` builds for each setup on every target at once, under the group
/// directory `out` (default `results/<UTC time>-<name>-group`).
pub fn run(
    name: &str,
    setups: Vec<Setup>,
    make: &(dyn Fn(Setup) -> anyhow::Result<ExperimentRecord> + Sync),
    observer_for: &ObserverFor,
    out: Option<&Path>,
    interrupt: Arc<AtomicBool>,
) -> anyhow::Result<GroupExperiment> {
    let targets: Vec<String> = setups.iter().map(|s| s.target.clone()).collect();
    let jobs = setups
        .into_iter()
        .map(|setup| ExperimentJob {
            observer: observer_for(&setup.target),
            setup: Some(setup),
            make,
            interrupt: interrupt.clone(),
        })
        .collect();
    let command = format!("experiment {name}");
    let (dir, members) =
        together::run_jobs(&targets, jobs, out, &format!("{name}-group"), &command)?;
    Ok(finish(dir, members))
}

/// Continues every member of the group directory `dir` that did not complete, all at once,
/// and writes how each ended into group.json. A member that cannot be continued (a completed
/// one is left alone) is reported as failed without stopping the others.
pub fn resume(
    dir: &Path,
    observer_for: &ObserverFor,
    interrupt: Arc<AtomicBool>,
) -> anyhow::Result<GroupExperiment> {
    let mut record = GroupRecord::read(dir)?;
    if !matches!(record.command, crate::results::Command::Experiment(_)) {
        crate::bad_input!(
            "{} is a group of `{}` runs, which cannot be resumed: only experiment groups can",
            dir.display(),
            record.command
        );
    }
    let dir = dir.canonicalize()?;
    let members: Vec<Finished<ExperimentOutcome>> = std::thread::scope(|scope| {
        let handles: Vec<_> = record
            .members
            .iter()
            .map(|m| {
                let member_dir = dir.join(&m.run_dir);
                let target = m.target.clone();
                let mut observer = observer_for(&m.target);
                let interrupt = interrupt.clone();
                scope.spawn(move || {
                    let result = match ExperimentRecord::load(&member_dir) {
                        Ok(r) if r.status == Status::Completed => Ok(ExperimentOutcome {
                            dir: member_dir.clone(),
                            end: RunEnd::Completed,
                            record: r,
                        }),
                        _ => crate::experiment::resume(&member_dir, interrupt, observer.as_mut())
                            .map_err(|e| crate::error::sentence(&e)),
                    };
                    Finished {
                        target,
                        dir: member_dir,
                        result,
                    }
                })
            })
            .collect();
        handles
            .into_iter()
            .map(|h| h.join().expect("a member's thread panicked"))
            .collect()
    });
    let statuses: Vec<(Status, Option<String>)> =
        members.iter().map(|m| (status(m), failure(m))).collect();
    together::finish(&mut record, &statuses);
    record.write(&dir)?;
    Ok(finish(dir, members))
}

fn finish(dir: PathBuf, members: Vec<Finished<ExperimentOutcome>>) -> GroupExperiment {
    let mut group = GroupExperiment {
        dir,
        members,
        comparison: None,
    };
    group.comparison = compare(&group);
    group
}

/// The soak phase of every member that recorded one, drawn over each other
/// (`ssdfade compare` of the phase directories, written into the group directory).
fn compare(group: &GroupExperiment) -> Option<Result<Vec<PathBuf>, String>> {
    let dirs: Vec<PathBuf> = group
        .members
        .iter()
        .filter_map(|m| {
            let o = m.result.as_ref().ok()?;
            let soak = o
                .record
                .phases
                .iter()
                .find(|p| matches!(p.phase.kind, PhaseKind::Soak(_)))?;
            let sub = o.dir.join(soak.dir.as_ref()?);
            crate::results::read_samples(&sub)
                .is_ok_and(|s| !s.is_empty())
                .then_some(sub)
        })
        .collect();
    crate::observe::finish::compare(&dirs, &group.dir)
}

/// One target's experiment.
struct ExperimentJob<'a> {
    setup: Option<Setup>,
    make: &'a (dyn Fn(Setup) -> anyhow::Result<ExperimentRecord> + Sync),
    observer: Box<dyn ExperimentObserver + Send>,
    interrupt: Arc<AtomicBool>,
}

impl Job for ExperimentJob<'_> {
    type Ready = ExperimentRecord;
    type Done = ExperimentOutcome;

    fn prepare(&mut self) -> anyhow::Result<(ExperimentRecord, String)> {
        let setup = self.setup.take().expect("prepared once");
        let record = (self.make)(setup)?;
        preflight(&record)?;
        let name = crate::experiment::short_name(&record.target);
        Ok((record, name))
    }

    fn execute(
        mut self,
        record: ExperimentRecord,
        dir: PathBuf,
    ) -> anyhow::Result<ExperimentOutcome> {
        start(&dir, record, self.interrupt, self.observer.as_mut())
    }

    fn status(done: &ExperimentOutcome) -> (Status, Option<String>) {
        let error = match &done.end {
            RunEnd::Failed(why) => Some(why.clone()),
            _ => None,
        };
        (done.record.status, error)
    }
}
