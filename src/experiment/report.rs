//! What an experiment prints and `--json` gives: read from experiment.json and the phase
//! directories only, so a summary can be made again from the data at any time.

use std::path::Path;

use super::record::ExperimentRecord;
use crate::analysis::summary::{ExperimentSummary, KindFigures, PhaseRow};
use crate::analysis::vertex2::{Vertex2Figures, STATES};
use crate::results::{load_experiment, ExperimentKind, Status};
use crate::text::steady::steady_line;
use crate::units::format_duration;

/// The summary of the experiment in `dir` whose record is `record` (the newest, as the caller
/// holds it): its figures computed once ([`ExperimentSummary`]). A sweep's table is also
/// written to `sweep.json`.
pub fn summary(dir: &Path, record: &ExperimentRecord) -> ExperimentSummary {
    let exp = load_experiment(dir).map(|mut exp| {
        exp.record = record.clone();
        exp
    });
    let figures = match &exp {
        Ok(exp) => KindFigures::of(exp),
        Err(e) => KindFigures::Unreadable {
            error: crate::error::sentence(e),
        },
    };
    let figures = match figures {
        KindFigures::Sweep(table) => match super::sweep::save_table(dir, &table) {
            Ok(()) => KindFigures::Sweep(table),
            Err(e) => KindFigures::Unreadable {
                error: crate::error::sentence(&e),
            },
        },
        other => other,
    };
    ExperimentSummary {
        figures,
        experiment: record.name.as_str().to_string(),
        dir: dir.display().to_string(),
        target: record.target.clone(),
        status: record.status,
        phases: record.phases.iter().map(PhaseRow::of).collect(),
    }
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
    let head = format!("experiment {} on {}: {status}", record.name, record.target);
    // A long target gets a line of its own: the status stays within 80 columns.
    let mut out = if head.chars().count() <= 80 {
        format!("{head}\n")
    } else {
        format!(
            "experiment {}: {status}\n  on {}\n",
            record.name, record.target
        )
    };
    out.push_str(&match &summary.figures {
        KindFigures::Vertex2(v) => vertex2_text(v),
        KindFigures::Wsat(w) => super::wsat::summary_text(w),
        KindFigures::Hir(h) => super::hir::summary_text(h),
        KindFigures::Sweep(t) => super::sweep::summary_text(t),
        KindFigures::OpSweep(f) => super::op_sweep::summary_text(f),
        KindFigures::Preset(t) => super::preset::summary_text(t),
        KindFigures::SlcCache(f) => super::slc_cache::summary_text(f),
        KindFigures::Unreadable { error } => format!("  no figures: {error}\n"),
        KindFigures::None {} => String::new(),
    });
    // hir's and the presets' tables already give every phase.
    if record.name != ExperimentKind::Hir && !super::preset::is_preset(record.name.as_str()) {
        out.push_str(&phase_table(record));
        if record.name == ExperimentKind::OpSweep {
            // The spans' steady IOPS are the table above; these are whole phases.
            out.push_str(
                "  (IOPS: each phase as a whole, fast preconditioning included; steady IOPS\n   are the table above)\n",
            );
        }
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

fn vertex2_text(v: &Vertex2Figures) -> String {
    let mut out = format!(
        "  {:<18} {:>9} {:>9} {:>12} {:>12} {:>10}\n",
        "state", "IOPS", "MB/s", "mean lat", "p99 lat", "vs fresh"
    );
    for (name, key) in STATES {
        let Some(s) = v.states.get(key) else {
            out.push_str(&format!("  {name:<18} {:>9}\n", "-"));
            continue;
        };
        let vs = s.vs_fresh_pct.map_or("-".into(), |v| format!("{v:+.0} %"));
        out.push_str(&format!(
            "  {name:<18} {:>9.0} {:>9.2} {:>12} {:>12} {vs:>10}\n",
            s.iops,
            s.mb_per_s,
            crate::units::format_latency_us(s.avg_lat_us),
            crate::units::format_latency_us(s.p99_lat_us),
        ));
    }
    out.push_str(&reference_text(v));
    let line = |label: &str, text: String| format!("  {label:<28} {text}\n");
    if let Some(f) = v.fade {
        out.push_str(&line("Fade (faded ÷ fresh)", f.words()));
    }
    if let Some(r) = v.recovery {
        out.push_str(&line("Recovery (recovered ÷ fresh)", r.words()));
    }
    if let Some(p) = &v.pattern_check {
        if p.random.iops > 0.0 {
            out.push_str(&line(
                "Repeating / random bytes",
                format!(
                    "{:.0} / {:.0} IOPS ({})",
                    p.repeat.iops,
                    p.random.iops,
                    crate::units::format_ratio(p.repeat_over_random)
                ),
            ));
        }
    }
    if let Some(f) = &v.soak.fade {
        let half = f
            .half_fade_s
            .map(|s| {
                // Its own line, aligned under the figures: the soak line stays within 80 columns.
                format!(
                    "\n{:31}half the loss after {}",
                    "",
                    format_duration(std::time::Duration::from_secs_f64(s))
                )
            })
            .unwrap_or_default();
        out.push_str(&line(
            &format!("Soak (first → last {})", f.window_text()),
            format!(
                "{:.0} → {:.0} IOPS, {}{half}",
                f.start_iops,
                f.end_iops,
                f.ratio().map_or("-".into(), |r| r.words())
            ),
        ));
    }
    if let Some(s) = &v.soak.steady_state {
        out.push_str(&steady_line(s));
    }
    out
}

/// The states against the reference set (`--reference`), when the experiment has one.
fn reference_text(v: &Vertex2Figures) -> String {
    if v.states.values().all(|s| s.reference_iops.is_none()) {
        return String::new();
    }
    let mut out = format!(
        "\n  {:<18} {:>9} {:>10}  {}\n",
        "state", "IOPS", "reference", "measured ÷ reference"
    );
    for (name, key) in STATES {
        let Some(s) = v.states.get(key) else {
            continue;
        };
        out.push_str(&format!(
            "  {name:<18} {:>9.0} {:>10}  {}\n",
            s.iops,
            s.reference_iops.map_or("-".into(), |r| format!("{r:.0}")),
            s.of_reference
                .map_or("-".into(), crate::units::format_ratio)
        ));
    }
    out
}
