//! What an experiment prints and `--json` gives: read from experiment.json and the phase
//! directories only, so a summary can be made again from the data at any time.

use std::path::Path;

use serde_json::{json, Value};

use super::record::{ExperimentRecord, PhaseRecord};
use crate::analysis::{ExperimentStates, Fade, FadeRatio};
use crate::results::{
    load_experiment, read_info, read_samples, steady_line, ExperimentKind, Status,
};
use crate::units::format_duration;

/// The summary as one JSON object: the protocol's figures plus `phases[]`.
pub fn summary_json(dir: &Path, record: &ExperimentRecord) -> Value {
    let mut value = match &record.name {
        ExperimentKind::Vertex2 => vertex2_json(dir, record),
        ExperimentKind::Wsat => super::wsat::summary_json(dir, record),
        ExperimentKind::Hir => super::hir::summary_json(dir, record),
        ExperimentKind::Sweep => {
            super::sweep::summary_json(dir).unwrap_or_else(|e| json!({ "error": format!("{e:#}") }))
        }
        ExperimentKind::Named(name) if super::preset::is_preset(name) => {
            super::preset::summary_json(dir, record)
        }
        ExperimentKind::Named(_) => json!({}),
    };
    value["experiment"] = record.name.as_str().into();
    value["dir"] = dir.display().to_string().into();
    value["target"] = record.target.clone().into();
    value["status"] = record.status.as_str().into();
    value["phases"] = record.phases.iter().map(phase_json).collect();
    value
}

/// The summary as text for an 80-column terminal.
pub fn summary_text(dir: &Path, record: &ExperimentRecord) -> String {
    let done = record
        .phases
        .iter()
        .filter(|p| p.status == Status::Completed)
        .count();
    let mut out = format!(
        "experiment {} on {}: {} ({} of {} phases done)\n",
        record.name,
        record.target,
        record.status,
        done,
        record.phases.len()
    );
    out.push_str(&match &record.name {
        ExperimentKind::Vertex2 => vertex2_text(dir, record),
        ExperimentKind::Wsat => super::wsat::summary_text(dir, record),
        ExperimentKind::Hir => super::hir::summary_text(dir, record),
        ExperimentKind::Sweep => {
            super::sweep::summary_text(dir).unwrap_or_else(|e| format!("  no sweep table: {e:#}\n"))
        }
        ExperimentKind::Named(name) if super::preset::is_preset(name) => {
            super::preset::summary_text(dir, record)
        }
        ExperimentKind::Named(_) => String::new(),
    });
    // hir's and the presets' tables already give every phase.
    if record.name != ExperimentKind::Hir && !super::preset::is_preset(record.name.as_str()) {
        out.push_str(&phase_table(record));
    }
    out.push_str(&format!("  Experiment directory: {}\n", dir.display()));
    out
}

fn phase_json(p: &PhaseRecord) -> Value {
    let h = p.headline.as_ref();
    json!({
        "name": p.phase.name,
        "kind": p.phase.kind.label(),
        "status": p.status,
        "dir": p.dir,
        "attempts": p.attempts,
        "started_utc": p.started_utc,
        "ended_utc": p.ended_utc,
        "seconds": h.map(|h| h.seconds),
        "iops": h.and_then(|h| h.iops),
        "mb_per_s": h.and_then(|h| h.mb_per_s),
        "error": p.error,
    })
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

/// The measured states of the experiment in `dir` (none when it cannot be read back).
fn measured(dir: &Path) -> ExperimentStates {
    load_experiment(dir)
        .map(|e| ExperimentStates::of(&e))
        .unwrap_or_default()
}

fn soak_figures(dir: &Path, record: &ExperimentRecord) -> (Option<Fade>, Option<Value>) {
    let Some(sub) = record.phase("soak").and_then(|p| p.dir.as_ref()) else {
        return (None, None);
    };
    let info = read_info(&dir.join(sub)).ok();
    let fade = info.as_ref().and_then(|i| {
        let samples = read_samples(&dir.join(sub)).ok()?;
        Fade::of(&samples, i.workload.interval)
    });
    let steady = info
        .and_then(|i| i.steady_state)
        .map(|s| serde_json::to_value(s).unwrap_or_default());
    (fade, steady)
}

fn vertex2_json(dir: &Path, record: &ExperimentRecord) -> Value {
    let m = measured(dir);
    let mut states = serde_json::Map::new();
    for (name, key) in super::vertex2::STATES {
        if let Some(s) = m.state(name) {
            let f = &s.figures;
            states.insert(
                key.into(),
                json!({
                    "iops": f.iops,
                    "mb_per_s": f.mb_per_s,
                    "lat_us": f.lat_us,
                    "vs_fresh_pct": s.vs_fresh_pct(),
                }),
            );
        }
    }
    let pct = |r: Option<FadeRatio>| r.map(|r| r.pct_of_fresh);
    let pattern = match (m.state("pattern-repeat"), m.state("pattern-random")) {
        (Some(rep), Some(ran)) => {
            let (rep, ran) = (&rep.figures, &ran.figures);
            json!({
                "repeat": {"iops": rep.iops, "mb_per_s": rep.mb_per_s},
                "random": {"iops": ran.iops, "mb_per_s": ran.mb_per_s},
                "repeat_over_random": if ran.iops > 0.0 { rep.iops / ran.iops } else { 0.0 },
            })
        }
        _ => Value::Null,
    };
    let (fade, steady) = soak_figures(dir, record);
    json!({
        "states": states,
        "fade_pct": pct(m.fade),
        "loss_pct": m.fade.map(|f| f.loss_pct()),
        "recovery_pct": pct(m.recovery),
        "lasting_loss_pct": m.lasting_loss_pct(),
        "in_service_pct": pct(m.in_service),
        "pattern_check": pattern,
        "soak": {"fade": fade, "steady_state": steady},
    })
}

fn vertex2_text(dir: &Path, record: &ExperimentRecord) -> String {
    let m = measured(dir);
    let mut out = format!(
        "  {:<18} {:>9} {:>9} {:>12} {:>12} {:>10}\n",
        "state", "IOPS", "MB/s", "mean lat", "p99 lat", "vs fresh"
    );
    for (name, _) in super::vertex2::STATES {
        let Some(s) = m.state(name) else {
            out.push_str(&format!("  {name:<18} {:>9}\n", "-"));
            continue;
        };
        let f = &s.figures;
        let vs = s
            .vs_fresh_pct()
            .map_or("-".into(), |v| format!("{v:+.0} %"));
        out.push_str(&format!(
            "  {name:<18} {:>9.0} {:>9.2} {:>12} {:>12} {vs:>10}\n",
            f.iops,
            f.mb_per_s,
            crate::units::format_latency_us(f.avg_lat_us),
            crate::units::format_latency_us(f.p99_lat_us),
        ));
    }
    let line = |label: &str, text: String| format!("  {label:<28} {text}\n");
    if let Some(f) = m.fade {
        out.push_str(&line("Fade (faded ÷ fresh)", f.words()));
    }
    if let Some(r) = m.recovery {
        out.push_str(&line("Recovery (recovered ÷ fresh)", r.words()));
    }
    if let (Some(rep), Some(ran)) = (m.state("pattern-repeat"), m.state("pattern-random")) {
        let (rep, ran) = (rep.figures.iops, ran.figures.iops);
        if ran > 0.0 {
            out.push_str(&line(
                "Repeating / random bytes",
                format!("{rep:.0} / {ran:.0} IOPS ({:.2} ×)", rep / ran),
            ));
        }
    }
    let (fade, _) = soak_figures(dir, record);
    if let Some(f) = fade {
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
            "Soak (first → last window)",
            format!(
                "{:.0} → {:.0} IOPS, {}{half}",
                f.start_iops,
                f.end_iops,
                f.ratio().map_or("-".into(), |r| r.words())
            ),
        ));
    }
    if let Some(s) = record
        .phase("soak")
        .and_then(|p| p.headline.as_ref())
        .and_then(|h| h.steady_state.as_ref())
    {
        out.push_str(&steady_line(s));
    }
    out
}
