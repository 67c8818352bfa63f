//! What `ssdfade runs` lists: every run and erase directory under a folder, with how it ended
//! (a run whose process died is `crashed`, read from its process stamp), its target, how long
//! it ran and its IOPS, taken from the samples when the run never wrote its summary.

use std::path::{Path, PathBuf};

use serde::Serialize;

use super::{read_info, read_samples, EraseRecord};

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

/// Lists the runs and erases found in `root` and its subdirectories (three levels deep), in
/// directory-name order; `root` itself may be one.
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

fn collect(dir: &Path, depth: usize, out: &mut Vec<PathBuf>) {
    if dir.join("run.json").exists() || dir.join("erase.json").exists() {
        out.push(dir.to_path_buf());
    }
    if depth == 3 {
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
    describe_erase(dir)
}

fn describe_run(dir: &Path) -> RunListing {
    let info = match read_info(dir) {
        Ok(info) => info,
        Err(e) => {
            return RunListing {
                dir: dir.to_path_buf(),
                command: "?".into(),
                status: "unreadable".into(),
                note: Some(format!("{e:#}")),
                target: "?".into(),
                seconds: None,
                iops: None,
            }
        }
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
            note.get_or_insert_with(|| format!("{e:#}"));
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
