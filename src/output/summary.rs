//! What an experiment prints and `--json` gives: read from experiment.json and the phase
//! directories only, so a summary can be made again from the data at any time. The kind's
//! figures and text come from its protocol ([`crate::protocol`]); the head line, the phase
//! table and the directory line are every kind's.

use std::path::Path;

use crate::analysis::summary::{ExperimentSummary, KindFigures, PhaseRow};
use crate::results::{load_experiment, ExperimentRecord, Status};
use crate::units::format_duration;

/// The summary of the experiment in `dir` whose record is `record` (the newest, as the caller
/// holds it): its figures computed once ([`ExperimentSummary`]). A sweep's table is also
/// written to `sweep.json`.
pub fn summary(dir: &Path, record: &ExperimentRecord) -> ExperimentSummary {
    let row = |figures| ExperimentSummary {
        figures,
        experiment: record.name.as_str().to_string(),
        dir: dir.display().to_string(),
        target: record.target.clone(),
        status: record.status,
        phases: record.phases.iter().map(PhaseRow::of).collect(),
    };
    if crate::stop::requested() {
        // The process is to end within a second of the signal; reading every phase's samples
        // took longer than that on a long experiment.
        return row(KindFigures::unreadable(format!(
            "stopped by a signal before they were computed: `ssdfade report {}` computes them",
            dir.display()
        )));
    }
    let exp = load_experiment(dir).map(|mut exp| {
        exp.record = record.clone();
        exp
    });
    let protocol = crate::protocol::of(&record.name);
    let figures = match (&exp, protocol) {
        (Ok(exp), Some(p)) => p.figures(exp),
        (Ok(_), None) => KindFigures::none(),
        (Err(e), _) => KindFigures::unreadable(crate::error::sentence(e)),
    };
    let figures = match protocol.map_or(Ok(()), |p| p.save(dir, &figures)) {
        Ok(()) => figures,
        Err(e) => KindFigures::unreadable(crate::error::sentence(&e)),
    };
    row(figures)
}

/// The summary as one JSON object: the protocol's figures plus `phases[]`.
pub fn summary_json(dir: &Path, record: &ExperimentRecord) -> serde_json::Value {
    serde_json::to_value(summary(dir, record)).unwrap_or_default()
}

/// The summary as text for an 80-column terminal.
pub fn summary_text(dir: &Path, record: &ExperimentRecord) -> String {
    render_text(&summary(dir, record), record)
}

/// `summary` as text for an 80-column terminal.
pub fn render_text(summary: &ExperimentSummary, record: &ExperimentRecord) -> String {
    let done = record
        .phases
        .iter()
        .filter(|p| p.status == Status::Completed)
        .count();
    let status = format!(
        "{} ({} of {} phases done)",
        record.status,
        done,
        record.phases.len()
    );
    let target = crate::console::one_line(&record.target);
    let head = format!("experiment {} on {target}: {status}", record.name);
    // A long target gets a line of its own: the status stays within 80 columns.
    let mut out = if head.chars().count() <= 80 {
        format!("{head}\n")
    } else {
        format!("experiment {}: {status}\n  on {target}\n", record.name)
    };
    let protocol = crate::protocol::of(&record.name);
    out.push_str(&match (summary.figures.error(), protocol) {
        (Some(error), _) => format!("  no figures: {error}\n"),
        (None, Some(p)) => p.text(&summary.figures),
        (None, None) => String::new(),
    });
    // Unless the kind's text already gives every phase (hir's and the presets' tables).
    if !protocol.is_some_and(|p| p.lists_phases()) {
        out.push_str(&phase_table(record));
        out.push_str(protocol.map_or("", |p| p.phase_note()));
    }
    out.push_str(&format!("  Experiment directory: {}\n", summary.dir));
    out
}

/// One line per phase: name, kind, status, time covered and IOPS.
pub fn phase_table(record: &ExperimentRecord) -> String {
    let mut out = format!(
        "  {:<18} {:<11} {:<11} {:>9} {:>9}\n",
        "phase", "kind", "status", "time", "IOPS"
    );
    for p in &record.phases {
        let h = p.headline.as_ref();
        let time = h.map_or("-".into(), |h| {
            format_duration(std::time::Duration::from_secs_f64(h.seconds.max(0.0)))
        });
        let iops = h
            .and_then(|h| h.iops)
            .map_or("-".into(), |v| format!("{v:.0}"));
        out.push_str(&format!(
            "  {:<18} {:<11} {:<11} {:>9} {:>9}\n",
            p.phase.name,
            p.phase.kind.label(),
            p.status,
            time,
            iops
        ));
    }
    out
}
