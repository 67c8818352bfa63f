//! What an experiment prints and `--json` gives: read from experiment.json and the phase
//! directories only, so a summary can be made again from the data at any time.

use std::path::Path;

use serde_json::{json, Value};

use super::record::{ExperimentRecord, PhaseRecord};
use crate::results::Status;
use crate::results::{read_info, read_samples, steady_line, ExperimentKind, Fade};
use crate::units::format_duration;

/// The summary as one JSON object: the protocol's figures plus `phases[]`.
pub fn summary_json(dir: &Path, record: &ExperimentRecord) -> Value {
    let mut value = match &record.name {
        ExperimentKind::Vertex2 => vertex2_json(dir, record),
        ExperimentKind::Wsat => super::wsat::summary_json(dir, record),
        ExperimentKind::Hir => super::hir::summary_json(dir, record),
        ExperimentKind::Sweep => super::sweep::summary_json(dir, record),
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
        ExperimentKind::Sweep => super::sweep::summary_text(dir, record),
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

/// A measured state's figures, from its phase's headline.
fn state_of(
    record: &ExperimentRecord,
    name: &str,
) -> Option<(f64, f64, crate::stats::LatencySummary)> {
    let h = record
        .phase(name)
        .filter(|p| p.status == Status::Completed)?
        .headline
        .as_ref()?;
    Some((h.iops?, h.mb_per_s?, h.lat_us?))
}

fn pct(a: f64, b: f64) -> Option<f64> {
    (b > 0.0).then(|| 100.0 * a / b)
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
    let fresh = state_of(record, "fresh").map(|s| s.0);
    let mut states = serde_json::Map::new();
    for (name, key) in super::vertex2::STATES {
        if let Some((iops, mb, lat)) = state_of(record, name) {
            states.insert(
                key.into(),
                json!({
                    "iops": iops,
                    "mb_per_s": mb,
                    "lat_us": lat,
                    "vs_fresh_pct": fresh.and_then(|f| pct(iops - f, f)),
                }),
            );
        }
    }
    let of_fresh = |name| {
        state_of(record, name)
            .zip(fresh)
            .and_then(|(s, f)| pct(s.0, f))
    };
    let recovery = of_fresh("recovered");
    let pattern = match (
        state_of(record, "pattern-repeat"),
        state_of(record, "pattern-random"),
    ) {
        (Some(rep), Some(ran)) => json!({
            "repeat": {"iops": rep.0, "mb_per_s": rep.1},
            "random": {"iops": ran.0, "mb_per_s": ran.1},
            "repeat_over_random": if ran.0 > 0.0 { rep.0 / ran.0 } else { 0.0 },
        }),
        _ => Value::Null,
    };
    let (fade, steady) = soak_figures(dir, record);
    json!({
        "states": states,
        "fade_pct": of_fresh("faded"),
        "recovery_pct": recovery,
        "lasting_loss_pct": recovery.map(|r| (100.0 - r).max(0.0)),
        "in_service_pct": of_fresh("in-service"),
        "pattern_check": pattern,
        "soak": {"fade": fade, "steady_state": steady},
    })
}

fn vertex2_text(dir: &Path, record: &ExperimentRecord) -> String {
    let fresh = state_of(record, "fresh").map(|s| s.0);
    let mut out = format!(
        "  {:<18} {:>9} {:>9} {:>12} {:>10}\n",
        "state", "IOPS", "MB/s", "mean lat", "vs fresh"
    );
    for (name, _) in super::vertex2::STATES {
        let Some((iops, mb, lat)) = state_of(record, name) else {
            out.push_str(&format!("  {name:<18} {:>9}\n", "-"));
            continue;
        };
        let vs = fresh
            .and_then(|f| pct(iops - f, f))
            .map_or("-".into(), |v| format!("{v:+.0} %"));
        out.push_str(&format!(
            "  {name:<18} {iops:>9.0} {mb:>9.2} {:>12} {vs:>10}\n",
            crate::units::format_latency_us(lat.mean)
        ));
    }
    let v = vertex2_json(dir, record);
    let line = |label: &str, text: String| format!("  {label:<28} {text}\n");
    if let Some(f) = v["fade_pct"].as_f64() {
        out.push_str(&line("Fade (faded / fresh)", format!("{f:.0} % of fresh")));
    }
    if let Some(r) = v["recovery_pct"].as_f64() {
        out.push_str(&line(
            "Recovery (recovered / fresh)",
            format!(
                "{r:.0} % of fresh; lasting loss {:.0} %",
                v["lasting_loss_pct"].as_f64().unwrap_or(0.0)
            ),
        ));
    }
    if let Some(ratio) = v["pattern_check"]["repeat_over_random"].as_f64() {
        out.push_str(&line(
            "Repeating / random bytes",
            format!(
                "{:.0} / {:.0} IOPS ({ratio:.2} ×)",
                v["pattern_check"]["repeat"]["iops"].as_f64().unwrap_or(0.0),
                v["pattern_check"]["random"]["iops"].as_f64().unwrap_or(0.0)
            ),
        ));
    }
    let (fade, _) = soak_figures(dir, record);
    if let Some(f) = fade {
        let half = f
            .half_fade_s
            .map(|s| {
                format!(
                    ", half after {}",
                    format_duration(std::time::Duration::from_secs_f64(s))
                )
            })
            .unwrap_or_default();
        out.push_str(&line(
            "Soak (first → last sample)",
            format!(
                "{:.0} → {:.0} IOPS ({:.0} %){half}",
                f.start_iops, f.end_iops, f.end_pct_of_start
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
