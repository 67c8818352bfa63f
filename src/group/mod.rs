//! Several targets in one command: the same workload on every target at once, each in its own
//! thread with its own engine and run directory, under one group directory with `group.json`.
//! Every target is opened and checked before any of them writes: one refusal refuses all and
//! leaves nothing behind. A target that fails does not stop the others.

mod record;
mod table;

use std::collections::HashSet;
use std::path::{Path, PathBuf};
use std::sync::mpsc;

use crate::engine::RunEnd;
use crate::error::BadInput;
use crate::run::{Outcome, RunObserver, RunRequest};

pub use record::GroupRecord;
pub use table::{headline, table};

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
    pub fn status(&self) -> &str {
        match &self.result {
            Ok(outcome) => &outcome.info.status,
            Err(_) => "failed",
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
        let failed: Vec<&Member> = self
            .members
            .iter()
            .filter(|m| m.status() == "failed")
            .collect();
        if !failed.is_empty() {
            let names: Vec<&str> = failed.iter().map(|m| m.target.as_str()).collect();
            RunEnd::Failed(format!(
                "{} of {} targets failed: {}",
                failed.len(),
                self.members.len(),
                names.join(", ")
            ))
        } else if self.members.iter().any(|m| m.status() == "interrupted") {
            RunEnd::Interrupted
        } else {
            RunEnd::Completed
        }
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
        entry == Path::new(target) || crate::target::same_object(entry, Path::new(target))
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
    let mut seen = HashSet::new();
    for r in &requests {
        if !seen.insert(r.target.as_str()) {
            crate::bad_input!("{} is named twice: give each target once", r.target);
        }
    }
    std::thread::scope(|scope| {
        // Each member opens its target in its own thread (an engine stays on the thread that
        // made it), reports whether it is ready, and waits for the word to start.
        let (ready_tx, ready_rx) = mpsc::channel();
        let mut go = Vec::new();
        let mut handles = Vec::new();
        for (i, (request, mut observer)) in requests.iter().zip(observers).enumerate() {
            let (go_tx, go_rx) = mpsc::channel::<Option<PathBuf>>();
            go.push(go_tx);
            let ready_tx = ready_tx.clone();
            let handle = std::thread::Builder::new()
                .name(format!("run-{i}"))
                .spawn_scoped(scope, move || -> Option<anyhow::Result<Outcome>> {
                    let prepared = match crate::run::prepare(request) {
                        Ok(p) => {
                            let _ = ready_tx.send((i, Ok(p.name().to_string())));
                            p
                        }
                        Err(e) => {
                            let _ = ready_tx.send((i, Err(e)));
                            return None;
                        }
                    };
                    drop(ready_tx);
                    let dir = go_rx.recv().ok().flatten()?;
                    Some(prepared.with_out(dir).execute(observer.as_mut()))
                })?;
            handles.push(handle);
        }
        drop(ready_tx);
        let mut names = vec![String::new(); requests.len()];
        let mut refusal = None;
        for (i, ready) in ready_rx.iter() {
            match ready {
                Ok(name) => names[i] = name,
                Err(e) if refusal.is_none() => refusal = Some(prefixed(&requests[i].target, e)),
                Err(_) => {}
            }
        }
        let dirs = match refusal {
            Some(e) => Err(e),
            None => record::create_dirs(out, &requests, &names, command),
        };
        let (group_dir, member_dirs, mut record) = match dirs {
            Ok(d) => d,
            Err(e) => {
                drop(go); // every member wakes to no directory and drops its prepared run
                for h in handles {
                    let _ = h.join();
                }
                return Err(e);
            }
        };
        for (tx, dir) in go.iter().zip(&member_dirs) {
            let _ = tx.send(Some(dir.clone()));
        }
        let mut members = Vec::new();
        for ((handle, request), dir) in handles.into_iter().zip(&requests).zip(member_dirs) {
            let result = match handle.join() {
                Ok(Some(Ok(outcome))) => Ok(outcome),
                Ok(Some(Err(e))) => Err(format!("{e:#}")),
                Ok(None) => Err("the run did not start".into()),
                Err(_) => Err("the run's thread panicked".into()),
            };
            members.push(Member {
                target: request.target.clone(),
                dir,
                result,
            });
        }
        let mut outcome = GroupOutcome {
            dir: group_dir,
            members,
            comparison: None,
        };
        record.finish(&outcome);
        record.write(&outcome.dir)?;
        outcome.comparison = compare(&outcome);
        Ok(outcome)
    })
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
    if dirs.len() < 2 {
        return None;
    }
    Some(
        crate::report::compare_dirs(&dirs, &group.dir)
            .map(|c| c.files)
            .map_err(|e| format!("{e:#}")),
    )
}

/// `e` with the target it is about in front, keeping a refusal a refusal (exit 2).
fn prefixed(target: &str, e: anyhow::Error) -> anyhow::Error {
    if let Some(bad) = e.downcast_ref::<BadInput>() {
        anyhow::Error::new(BadInput(format!(
            "{target}: {bad}; nothing was run on any target"
        )))
    } else {
        e.context(format!("{target}: nothing was run on any target"))
    }
}
