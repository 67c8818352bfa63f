//! `measure`/`soak` with several targets: one progress line per target, then a table of all
//! targets side by side and a line per failed target.

use super::measure::{outcome_json, progress, shows_progress};
use crate::cli::RunArgs;
use crate::drive::RunEnd;
use crate::metrics::Exporter;
use crate::output::MultiProgress;
use crate::run::{RunObserver, RunRequest};

/// Runs `base` (a measure or soak request) on every target of `args` at once and prints the
/// results.
pub fn run(args: &RunArgs, base: RunRequest) -> anyhow::Result<RunEnd> {
    let command = base.command.to_string();
    let targets: Vec<String> = std::iter::once(args.target.clone())
        .chain(args.more_targets.iter().cloned())
        .collect();
    let confirmed = crate::group::confirmations(&targets, args.safety.destroy_data.as_deref())?;
    let requests: Vec<RunRequest> = targets
        .iter()
        .zip(confirmed)
        .map(|(target, destroy_data)| {
            let mut r = base.clone();
            r.target = target.clone();
            r.safety.destroy_data = destroy_data;
            r.out = None;
            r
        })
        .collect();
    let m = &args.metrics;
    let exporter = Exporter::start(m.metrics_listen.as_deref(), m.metrics_textfile.as_deref())?;
    let multi = MultiProgress::new();
    let width = targets.iter().map(|t| t.chars().count()).max().unwrap_or(0);
    let observers = targets
        .iter()
        .map(|t| -> Box<dyn RunObserver + Send> {
            let line: Box<dyn RunObserver + Send> = if shows_progress(args) {
                let label = format!("{t:<width$}");
                Box::new(crate::output::run::ProgressBarObserver::line_of(
                    &multi, &label,
                ))
            } else {
                progress(args)
            };
            match &exporter {
                Some(e) => Box::new(e.observer(line)),
                None => line,
            }
        })
        .collect();
    let group = crate::group::run(requests, observers, args.out.as_deref(), &command)?;
    // The table below says how each ended.
    let _ = multi.clear();
    if args.json {
        let mut members = Vec::new();
        for m in &group.members {
            let mut value = match &m.result {
                Ok(outcome) => outcome_json(outcome)?,
                Err(_) => serde_json::json!({"run_dir": m.dir.display().to_string()}),
            };
            value["target"] = m.target.clone().into();
            value["status"] = m.status().as_str().into();
            if let Some(why) = m.failure() {
                value["error"] = why.into();
            }
            members.push(value);
        }
        let compared: Vec<String> = match &group.comparison {
            Some(Ok(files)) => files.iter().map(|p| p.display().to_string()).collect(),
            _ => Vec::new(),
        };
        let value = serde_json::json!({
            "group_dir": group.dir.display().to_string(),
            "members": members,
            "compare": compared,
        });
        crate::outln!("{value}")?;
    } else {
        if let Some(line) = crate::group::headline(&group) {
            crate::outln!("{line}")?;
        }
        crate::out!("{}", crate::group::table(&group))?;
        print_where(&group.dir, &group.comparison)?;
    }
    note_failures(
        &group.comparison,
        group
            .members
            .iter()
            .map(|m| (m.target.as_str(), m.failure())),
    );
    Ok(group.end())
}

/// Where a group's results are: its directory and the comparison drawn in it.
pub fn print_where(
    dir: &std::path::Path,
    comparison: &Option<Result<Vec<std::path::PathBuf>, String>>,
) -> anyhow::Result<()> {
    crate::outln!("  Group directory: {}", dir.display())?;
    if let Some(Ok(files)) = comparison {
        for path in files {
            crate::outln!("  Compared: {}", path.display())?;
        }
    }
    Ok(())
}

/// One line on stderr for a comparison that could not be drawn and for each failed member.
pub fn note_failures<'a>(
    comparison: &Option<Result<Vec<std::path::PathBuf>, String>>,
    failures: impl Iterator<Item = (&'a str, Option<String>)>,
) {
    if let Some(Err(why)) = comparison {
        crate::note!("ssdfade: could not draw the comparison: {why}");
    }
    for (target, why) in failures {
        if let Some(why) = why {
            crate::note!("ssdfade: {target} failed: {why}");
        }
    }
}
