//! Several targets in one command: the same workload on every target at once, each in its own
//! thread with its own engine and run directory, under one group directory with `group.json`.
//! Every target is opened and checked before any of them writes: one refusal refuses all and
//! leaves nothing behind. A target that fails does not stop the others.

pub mod experiment;
mod experiment_table;
mod record;
pub mod slog;
mod table;
mod together;

use std::path::{Path, PathBuf};

use crate::drive::RunEnd;
use crate::results::Status;
use crate::run::{Outcome, RunObserver, RunRequest};

pub use crate::results::GroupRecord;
pub use experiment_table::table as experiment_table;
pub use table::{headline, table};
pub use together::{Finished, Job};

/// One target's part of a finished group.
pub struct Member {
    pub target: String,
    /// Its run directory.
    pub dir: PathBuf,
    /// The finished run, or why the engine stopped without one.
    pub result: Result<Outcome, String>,
}

impl Member {
    /// `completed`, `interrupted` or `failed`.
    pub fn status(&self) -> Status {
        match &self.result {
            Ok(outcome) => outcome.info.status,
            Err(_) => Status::Failed,
        }
    }

    /// Why the run failed, when it did.
    pub fn failure(&self) -> Option<String> {
        match &self.result {
            Ok(Outcome {
                end: RunEnd::Failed(why),
                ..
            }) => Some(why.clone()),
            Ok(_) => None,
            Err(e) => Some(e.clone()),
        }
    }
}

/// A finished group: its directory and its members in the order given.
pub struct GroupOutcome {
    pub dir: PathBuf,
    pub members: Vec<Member>,
    /// The overlay of the members' fade curves written into the group directory
    /// (compare.png, .md, .html), or why it could not be drawn.
    pub comparison: Option<Result<Vec<PathBuf>, String>>,
}

impl GroupOutcome {
    /// How the group ended: failed when any member failed, else interrupted when any was,
    /// else completed.
    pub fn end(&self) -> RunEnd {
        end_of(self.members.iter().map(|m| (m.target.as_str(), m.status())))
    }
}

/// How a group of `(target, status)` members ended: failed (naming the failed targets) when
/// any failed, else interrupted when any was, else completed.
pub fn end_of<'a>(members: impl Iterator<Item = (&'a str, Status)> + Clone) -> RunEnd {
    let failed: Vec<&str> = members
        .clone()
        .filter(|(_, s)| *s == Status::Failed)
        .map(|(t, _)| t)
        .collect();
    match Status::of_group(members.clone().map(|(_, s)| s)) {
        Status::Failed => RunEnd::Failed(format!(
            "{} of {} targets failed: {}",
            failed.len(),
            members.count(),
            failed.join(", ")
        )),
        Status::Interrupted => RunEnd::Interrupted,
        _ => RunEnd::Completed,
    }
}

/// Splits a `--destroy-data A,B,…` list over `targets`: each target gets the entry naming it
/// (as written or as the same file or device), or none (its own gate then refuses it). An entry
/// naming no target is refused.
pub fn confirmations(
    targets: &[String],
    destroy_data: Option<&Path>,
) -> anyhow::Result<Vec<Option<PathBuf>>> {
    let entries: Vec<PathBuf> = destroy_data
        .map(|list| {
            list.to_string_lossy()
                .split(',')
                .filter(|e| !e.is_empty())
                .map(PathBuf::from)
                .collect()
        })
        .unwrap_or_default();
    let names = |entry: &Path, target: &str| {
        entry == Path::new(target) || crate::device::same_object(entry, Path::new(target))
    };
    for entry in &entries {
        if !targets.iter().any(|t| names(entry, t)) {
            crate::bad_input!(
                "--destroy-data names {}, which is not one of the targets: list exactly the targets to write, separated by commas",
                entry.display()
            );
        }
    }
    Ok(targets
        .iter()
        .map(|t| entries.iter().find(|e| names(e, t)).cloned())
        .collect())
}

/// Runs every request at once (each with its observer) under the group directory `out` (or
/// `results/<UTC time>-group`). Bad input or a refused target, in any member, is an error
/// before anything is written.
pub fn run(
    requests: Vec<RunRequest>,
    observers: Vec<Box<dyn RunObserver + Send>>,
    out: Option<&Path>,
    command: &str,
) -> anyhow::Result<GroupOutcome> {
    assert_eq!(requests.len(), observers.len(), "one observer per request");
    let targets: Vec<String> = requests.iter().map(|r| r.target.clone()).collect();
    let jobs = requests
        .into_iter()
        .zip(observers)
        .map(|(request, observer)| RunJob { request, observer })
        .collect();
    let (dir, finished) = together::run_jobs(&targets, jobs, out, "group", command)?;
    let members = finished
        .into_iter()
        .map(|f| Member {
            target: f.target,
            dir: f.dir,
            result: f.result,
        })
        .collect();
    let mut outcome = GroupOutcome {
        dir,
        members,
        comparison: None,
    };
    outcome.comparison = compare(&outcome);
    Ok(outcome)
}

/// A measure or soak on one target of a group.
struct RunJob {
    request: RunRequest,
    observer: Box<dyn RunObserver + Send>,
}

impl Job for RunJob {
    type Ready = crate::run::Prepared;
    type Done = Outcome;

    fn prepare(&mut self) -> anyhow::Result<(Self::Ready, String)> {
        let prepared = crate::run::prepare(&self.request)?;
        let name = prepared.name().to_string();
        Ok((prepared, name))
    }

    fn execute(mut self, ready: Self::Ready, dir: PathBuf) -> anyhow::Result<Outcome> {
        ready.with_out(dir).execute(self.observer.as_mut())
    }

    fn status(done: &Outcome) -> (Status, Option<String>) {
        let error = match &done.end {
            RunEnd::Failed(why) => Some(why.clone()),
            _ => None,
        };
        (done.info.status, error)
    }
}

/// Draws the members that recorded samples over each other (`ssdfade compare` of their run
/// directories, written into the group directory); `None` with fewer than two such members.
fn compare(group: &GroupOutcome) -> Option<Result<Vec<PathBuf>, String>> {
    let dirs: Vec<PathBuf> = group
        .members
        .iter()
        .filter(|m| crate::results::read_samples(&m.dir).is_ok_and(|samples| !samples.is_empty()))
        .map(|m| m.dir.clone())
        .collect();
    crate::observe::finish::compare(&dirs, &group.dir)
}
