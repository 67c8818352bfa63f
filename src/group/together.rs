//! The machinery every group shares: each target's job gets ready (opens and checks its target)
//! on a thread of its own, and only when every one is ready is the group directory created and
//! the word given to start; one that is not ready refuses the whole group with nothing written.
//! Each job then runs into its own directory; one that fails does not stop the others.

use std::path::{Path, PathBuf};
use std::sync::mpsc;

use crate::error::BadInput;
use crate::results::Status;

use super::record;
use crate::results::GroupRecord;

/// One target's share of a group.
pub trait Job: Send {
    /// What the job holds between getting ready and running (an opened target); it stays on
    /// the job's thread.
    type Ready;
    /// What a finished job hands back.
    type Done: Send;
    /// Opens and checks the target with every safety gate, writing nothing; returns what
    /// [`Job::execute`] needs and the name of the member's directory.
    fn prepare(&mut self) -> anyhow::Result<(Self::Ready, String)>;
    /// Runs into the member's directory `dir` (not yet created).
    fn execute(self, ready: Self::Ready, dir: PathBuf) -> anyhow::Result<Self::Done>;
    /// `completed`, `interrupted` or `failed`, with why it failed, for group.json.
    fn status(done: &Self::Done) -> (Status, Option<String>);
}

/// One member of a finished group.
pub struct Finished<T> {
    pub target: String,
    /// Its directory in the group directory.
    pub dir: PathBuf,
    /// What it handed back, or why it stopped without anything.
    pub result: Result<T, String>,
}

/// Runs every job at once under the group directory `out` (or `results/<UTC time>-<name>`),
/// writing group.json at the start and at the end. Bad input or a refused target, in any
/// member, is an error before anything is written.
pub fn run_jobs<J: Job>(
    targets: &[String],
    jobs: Vec<J>,
    out: Option<&Path>,
    name: &str,
    command: &str,
) -> anyhow::Result<(PathBuf, Vec<Finished<J::Done>>)> {
    assert_eq!(targets.len(), jobs.len(), "one job per target");
    let mut seen = std::collections::HashSet::new();
    for t in targets {
        if !seen.insert(t.as_str()) {
            crate::bad_input!("{t} is named twice: give each target once");
        }
    }
    for (i, a) in targets.iter().enumerate() {
        for b in &targets[i + 1..] {
            if let Some(why) = crate::device::loopback::same_storage(Path::new(a), Path::new(b)) {
                crate::bad_input!(
                    "{why}: the group would write the same storage twice; give each device once (refusing to write)"
                );
            }
        }
    }
    std::thread::scope(|scope| {
        let (ready_tx, ready_rx) = mpsc::channel();
        let mut go = Vec::new();
        let mut handles = Vec::new();
        for (i, mut job) in jobs.into_iter().enumerate() {
            let (go_tx, go_rx) = mpsc::channel::<Option<PathBuf>>();
            go.push(go_tx);
            let ready_tx = ready_tx.clone();
            let handle = std::thread::Builder::new()
                .name(format!("member-{i}"))
                .spawn_scoped(scope, move || -> Option<anyhow::Result<J::Done>> {
                    let ready = match job.prepare() {
                        Ok((ready, name)) => {
                            let _ = ready_tx.send((i, Ok(name)));
                            ready
                        }
                        Err(e) => {
                            let _ = ready_tx.send((i, Err(e)));
                            return None;
                        }
                    };
                    drop(ready_tx);
                    let dir = go_rx.recv().ok().flatten()?;
                    Some(job.execute(ready, dir))
                })?;
            handles.push(handle);
        }
        drop(ready_tx);
        let mut names = vec![String::new(); targets.len()];
        let mut refusal = None;
        for (i, ready) in ready_rx.iter() {
            match ready {
                Ok(name) => names[i] = name,
                Err(e) if refusal.is_none() => refusal = Some(prefixed(&targets[i], e)),
                Err(_) => {}
            }
        }
        let dirs = match refusal {
            Some(e) => Err(e),
            None => record::create_dirs(out, name, targets, &names, command),
        };
        let (group_dir, member_dirs, mut record) = match dirs {
            Ok(d) => d,
            Err(e) => {
                drop(go); // every member wakes to no directory and drops what it opened
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
        for ((handle, target), dir) in handles.into_iter().zip(targets).zip(member_dirs) {
            let result = match handle.join() {
                Ok(Some(Ok(done))) => Ok(done),
                Ok(Some(Err(e))) => Err(crate::error::sentence(&e)),
                Ok(None) => Err("it did not start".into()),
                Err(_) => Err("its thread panicked".into()),
            };
            members.push(Finished {
                target: target.clone(),
                dir,
                result,
            });
        }
        let statuses: Vec<(Status, Option<String>)> = members
            .iter()
            .map(|m| match &m.result {
                Ok(done) => J::status(done),
                Err(e) => (Status::Failed, Some(e.clone())),
            })
            .collect();
        finish(&mut record, &statuses);
        record.write(&group_dir)?;
        Ok((group_dir, members))
    })
}

/// Fills in how every member and the group ended.
pub(super) fn finish(record: &mut GroupRecord, statuses: &[(Status, Option<String>)]) {
    for (m, (status, error)) in record.members.iter_mut().zip(statuses) {
        m.status = *status;
        m.error = error.clone();
    }
    record.status = Status::of_group(statuses.iter().map(|(s, _)| *s));
    record.ended_utc = Some(crate::results::utc_now());
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
