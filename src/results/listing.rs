//! What `ssdfade runs` lists: every run, erase, experiment and group directory under a folder,
//! however deep (symbolic links are not followed), with how it ended (a run whose process died
//! is `crashed`, read from its process stamp), its target, how long it ran and its IOPS, taken
//! from the samples when the run never wrote its summary.

use std::path::{Path, PathBuf};

use serde::Serialize;

use super::{read_info, read_samples, EraseRecord, ExperimentRecord, GroupRecord};

/// One line of the listing.
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct RunListing {
    pub dir: PathBuf,
    /// `measure`, `soak`, `erase`, …
    pub command: String,
    /// As recorded, except that a `running` record whose process is gone is `crashed`.
    pub status: String,
    /// Why the status was judged so (the crashed case), or a reading problem.
    pub note: Option<String>,
    pub target: String,
    /// Seconds covered by the samples (the engine's clock), or the erase's duration.
    pub seconds: Option<f64>,
    /// Over the whole run, from its samples.
    pub iops: Option<f64>,
}

/// Directories below the folder given that are still searched: deeper than any layout the
/// tool writes (a group of experiments of sweeps is five), short of a runaway tree.
const MAX_DEPTH: usize = 16;

/// Lists the runs, erases, experiments and groups found in `root` and its subdirectories (to
/// [`MAX_DEPTH`] levels, never through a symbolic link), in directory-name order; `root` itself
/// may be one.
pub fn list_runs(root: &Path) -> anyhow::Result<Vec<RunListing>> {
    if !root.is_dir() {
        crate::bad_input!(
            "{} is not a directory: give the folder holding the run directories (default results)",
            root.display()
        );
    }
    let mut dirs = Vec::new();
    collect(root, 0, &mut dirs);
    dirs.sort();
    Ok(dirs.iter().filter_map(|d| describe(d)).collect())
}

/// The records that make a directory a line of the listing.
const LISTED: [&str; 4] = ["run.json", "erase.json", "experiment.json", "group.json"];

fn collect(dir: &Path, depth: usize, out: &mut Vec<PathBuf>) {
    if LISTED.iter().any(|name| dir.join(name).exists()) {
        out.push(dir.to_path_buf());
    }
    if depth == MAX_DEPTH {
        return;
    }
    let Ok(entries) = std::fs::read_dir(dir) else {
        return;
    };
    for entry in entries.flatten() {
        if entry.file_type().is_ok_and(|t| t.is_dir()) {
            collect(&entry.path(), depth + 1, out);
        }
    }
}

fn describe(dir: &Path) -> Option<RunListing> {
    if dir.join("run.json").exists() {
        return Some(describe_run(dir));
    }
    if dir.join("experiment.json").exists() {
        return Some(describe_experiment(dir));
    }
    if dir.join("group.json").exists() {
        return Some(describe_group(dir));
    }
    describe_erase(dir)
}

/// A directory whose record cannot be read, listed with why.
fn unreadable(dir: &Path, command: &str, e: &anyhow::Error) -> RunListing {
    RunListing {
        dir: dir.to_path_buf(),
        command: command.into(),
        status: "unreadable".into(),
        note: Some(crate::error::sentence(e)),
        target: "?".into(),
        seconds: None,
        iops: None,
    }
}

fn describe_experiment(dir: &Path) -> RunListing {
    let record = match ExperimentRecord::load(dir) {
        Ok(record) => record,
        Err(e) => return unreadable(dir, "experiment", &e),
    };
    let done = record
        .phases
        .iter()
        .filter(|p| p.status == super::Status::Completed)
        .count();
    let failed = record.phases.iter().find_map(|p| p.error.clone());
    RunListing {
        dir: dir.to_path_buf(),
        command: record.name.as_str().to_string(),
        status: record.status.to_string(),
        note: Some(match failed {
            Some(why) => format!("{done} of {} phases done; {why}", record.phases.len()),
            None => format!("{done} of {} phases done", record.phases.len()),
        }),
        target: super::describe::target_shown(&record.target),
        seconds: None,
        iops: None,
    }
}

fn describe_group(dir: &Path) -> RunListing {
    let record = match GroupRecord::read(dir) {
        Ok(record) => record,
        Err(e) => return unreadable(dir, "group", &e),
    };
    let targets: Vec<String> = record
        .members
        .iter()
        .map(|m| super::describe::target_shown(&m.target))
        .collect();
    RunListing {
        dir: dir.to_path_buf(),
        command: format!("group {}", record.command),
        status: record.status.to_string(),
        note: Some(format!(
            "{} targets: {}",
            record.members.len(),
            targets.join(", ")
        )),
        target: targets.first().cloned().unwrap_or_default(),
        seconds: None,
        iops: None,
    }
}

fn describe_run(dir: &Path) -> RunListing {
    let info = match read_info(dir) {
        Ok(info) => info,
        Err(e) => return unreadable(dir, "?", &e),
    };
    let (status, mut note) = info.effective_status();
    let (seconds, iops) = match read_samples(dir) {
        Ok(samples) if !samples.is_empty() => {
            let seconds: f64 = samples.iter().map(|s| s.t_end_s - s.t_start_s).sum();
            let ops: u64 = samples.iter().map(|s| s.ops).sum();
            (Some(seconds), (seconds > 0.0).then(|| ops as f64 / seconds))
        }
        Ok(_) => (Some(0.0), None),
        Err(e) => {
            note.get_or_insert_with(|| crate::error::sentence(&e));
            (None, None)
        }
    };
    RunListing {
        dir: dir.to_path_buf(),
        command: info.command.to_string(),
        status,
        note,
        target: super::describe::target_shown(&info.target.path),
        seconds,
        iops,
    }
}

fn describe_erase(dir: &Path) -> Option<RunListing> {
    let record = EraseRecord::load(dir).ok()?;
    let (status, mut note) = record.outcome.shown(record.process.as_ref());
    if record.outcome == super::Status::Failed {
        note = note.or_else(|| record.error.clone());
    }
    Some(RunListing {
        dir: dir.to_path_buf(),
        command: format!("erase {}", record.method),
        status,
        note,
        target: super::describe::target_shown(&record.target),
        seconds: record.duration_s,
        iops: None,
    })
}
