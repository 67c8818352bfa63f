//! `slog` on several targets at once: each target's SLOG test in its own run directory under
//! one group directory with group.json, and a verdict table of all of them side by side.

use std::path::{Path, PathBuf};
use std::sync::atomic::AtomicBool;
use std::sync::Arc;

use super::table::render;
use super::together::{self, Finished, Job};
use crate::drive::RunEnd;
use crate::results::Status;
use crate::run::RunObserver;
use crate::slog::{self, verdict::Rating, Outcome, Request};

/// A finished group of SLOG tests.
pub struct GroupSlog {
    pub dir: PathBuf,
    pub members: Vec<Finished<Outcome>>,
}

impl GroupSlog {
    /// Failed (naming the targets) when any member failed, else interrupted when any was,
    /// else completed.
    pub fn end(&self) -> RunEnd {
        super::end_of(self.members.iter().map(|m| (m.target.as_str(), status(m))))
    }
}

/// `completed`, `interrupted` or `failed`.
pub fn status(m: &Finished<Outcome>) -> Status {
    match &m.result {
        Ok(o) => Status::of_end(&o.record.end),
        Err(_) => Status::Failed,
    }
}

/// Why a member failed, when it did.
pub fn failure(m: &Finished<Outcome>) -> Option<String> {
    match &m.result {
        Ok(o) => match &o.record.end {
            RunEnd::Failed(why) => Some(why.clone()),
            _ => None,
        },
        Err(e) => Some(e.clone()),
    }
}

/// What watches one target's test: an observer of its run (its metrics) and where its
/// progress lines go.
pub type Watch = (Box<dyn RunObserver + Send>, Box<dyn FnMut(&str) + Send>);

/// Makes each target's [`Watch`].
pub type Watchers<'a> = dyn Fn(&str) -> Watch + 'a;

/// Runs every request at once under the group directory `out` (default
/// `results/<UTC time>-slog-group`).
pub fn run(
    requests: Vec<Request>,
    watchers: &Watchers,
    out: Option<&Path>,
    stop: Arc<AtomicBool>,
) -> anyhow::Result<GroupSlog> {
    let targets: Vec<String> = requests.iter().map(|r| r.target.clone()).collect();
    let jobs = requests
        .into_iter()
        .map(|request| {
            let (observer, progress) = watchers(&request.target);
            SlogJob {
                request,
                observer,
                progress,
                stop: stop.clone(),
            }
        })
        .collect();
    let (dir, members) = together::run_jobs(&targets, jobs, out, "slog-group", "slog")?;
    Ok(GroupSlog { dir, members })
}

/// Target, status, verdict, 4 KiB write + flush latency (mean, p99) and the reasons that
/// are not `suitable`, one row per target.
pub fn table(group: &GroupSlog) -> String {
    let mut rows = vec![[
        "Target",
        "Status",
        "Verdict",
        "Mean lat",
        "p99 lat",
        "Because of",
    ]
    .map(String::from)];
    for m in &group.members {
        let mut row: [String; 6] = std::array::from_fn(|_| "-".to_string());
        row[0] = m.target.clone();
        row[1] = status(m).to_string();
        if let Ok(o) = &m.result {
            let v = &o.record.verdict;
            row[2] = v.rating.word().into();
            if let Some(l) = &o.record.evidence.latency {
                // As the verdict renders them.
                row[3] = crate::units::format_latency_us(l.mean_us);
                row[4] = crate::units::format_latency_us(l.p99_us);
            }
            // The reasons come in the verdict's order: latency, fade, power loss, endurance.
            let against: Vec<&str> = ["latency", "fade", "power loss", "endurance"]
                .into_iter()
                .zip(&v.reasons)
                .filter(|(_, r)| r.rating.is_some_and(|x| x > Rating::Suitable))
                .map(|(short, _)| short)
                .collect();
            if !against.is_empty() {
                row[5] = against.join(", ");
            }
        }
        rows.push(row);
    }
    render(&rows, 3)
}

/// One target's SLOG test.
struct SlogJob {
    request: Request,
    observer: Box<dyn RunObserver + Send>,
    progress: Box<dyn FnMut(&str) + Send>,
    stop: Arc<AtomicBool>,
}

impl Job for SlogJob {
    type Ready = slog::Prepared;
    type Done = Outcome;

    fn prepare(&mut self) -> anyhow::Result<(slog::Prepared, String)> {
        let prepared = slog::prepare(&self.request)?;
        let name = prepared.name().to_string();
        Ok((prepared, name))
    }

    fn execute(mut self, ready: slog::Prepared, dir: PathBuf) -> anyhow::Result<Outcome> {
        ready
            .with_out(dir)
            .execute(&self.stop, &mut self.progress, self.observer.as_mut())
    }

    fn status(done: &Outcome) -> (Status, Option<String>) {
        let error = match &done.record.end {
            RunEnd::Failed(why) => Some(why.clone()),
            _ => None,
        };
        (Status::of_end(&done.record.end), error)
    }
}
