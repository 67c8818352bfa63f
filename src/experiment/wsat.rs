//! SNIA PTS write saturation (WSAT): purge the drive, then write 4 KiB at random offsets
//! without preconditioning until four times the capacity is written (or a time limit), in
//! one-minute rounds; the result is IOPS per round against time and against total bytes
//! written (TGBW, in drive fills).

use std::path::Path;
use std::time::Duration;

use serde_json::{json, Value};

use super::phase::{EraseParams, Phase, PhaseKind};
use super::record::ExperimentRecord;
use super::{run_params, Setup};
use crate::results::{read_samples, steady_line};
use crate::units::format_duration;

/// The two phases: `purge`, then `wsat` (samples one round long).
pub fn phases(
    setup: &Setup,
    capacity: u64,
    max_duration: Duration,
    erase_method: &str,
) -> Vec<Phase> {
    let round = Duration::from_secs_f64(setup.options.ss_round_s);
    vec![
        Phase {
            name: "purge".into(),
            kind: PhaseKind::Erase(EraseParams {
                method: erase_method.into(),
            }),
        },
        Phase {
            name: "wsat".into(),
            kind: PhaseKind::Soak(run_params(
                &setup.workload,
                Some(max_duration),
                Some(capacity.saturating_mul(4)),
                round,
            )),
        },
    ]
}

/// The rounds of the curve, and apart from them a partial last one (the byte budget or the
/// time limit reached, or an interruption, before the round's end), which is not a round.
fn rounds(dir: &Path, record: &ExperimentRecord) -> (Vec<Value>, Option<Value>) {
    let capacity = record.identity.size_bytes.unwrap_or(0).max(1) as f64;
    let Some(sub) = record.phase("wsat").and_then(|p| p.dir.clone()) else {
        return (Vec::new(), None);
    };
    let samples = read_samples(&dir.join(sub)).unwrap_or_default();
    let round = Duration::from_secs_f64(record.options.ss_round_s);
    let full = crate::analysis::drawn_intervals(&samples, round);
    let row = |s: &crate::stats::Sample| {
        json!({
            "index": s.index,
            "t_end_s": s.t_end_s,
            "seconds": s.t_end_s - s.t_start_s,
            "iops": s.iops,
            "tgbw_bytes": s.bytes_written_total,
            "drive_fills": s.bytes_written_total as f64 / capacity,
        })
    };
    let partial = samples[full.len()..].first().map(row);
    (full.iter().map(row).collect(), partial)
}

pub fn summary_json(dir: &Path, record: &ExperimentRecord) -> Value {
    let steady = record
        .phase("wsat")
        .and_then(|p| p.headline.as_ref())
        .and_then(|h| h.steady_state.clone());
    let (rounds, partial) = rounds(dir, record);
    json!({ "rounds": rounds, "partial_round": partial, "steady_state": steady })
}

/// At most 16 rounds, evenly spread and always the first and the last.
pub fn summary_text(dir: &Path, record: &ExperimentRecord) -> String {
    let (all, partial) = rounds(dir, record);
    let mut out = format!(
        "  {:>6} {:>10} {:>10} {:>12} {:>12}\n",
        "round", "time", "IOPS", "TGBW GB", "drive fills"
    );
    let n = all.len();
    let step = n.div_ceil(16).max(1);
    for (i, r) in all.iter().enumerate() {
        if i % step != 0 && i + 1 != n {
            continue;
        }
        out.push_str(&format!(
            "  {:>6} {:>10} {:>10.0} {:>12.1} {:>12.2}\n",
            i + 1,
            format_duration(Duration::from_secs_f64(
                r["t_end_s"].as_f64().unwrap_or(0.0)
            )),
            r["iops"].as_f64().unwrap_or(0.0),
            r["tgbw_bytes"].as_f64().unwrap_or(0.0) / 1e9,
            r["drive_fills"].as_f64().unwrap_or(0.0)
        ));
    }
    if let Some(p) = partial {
        out.push_str(&format!(
            "  and a partial last round of {:.1} s ({:.0} IOPS, {:.2} drive fills by its end), not counted as a round\n",
            p["seconds"].as_f64().unwrap_or(0.0),
            p["iops"].as_f64().unwrap_or(0.0),
            p["drive_fills"].as_f64().unwrap_or(0.0)
        ));
    }
    if let Some(s) = record
        .phase("wsat")
        .and_then(|p| p.headline.as_ref())
        .and_then(|h| h.steady_state.as_ref())
    {
        out.push_str(&steady_line(s));
    }
    out
}

/// Runs WSAT: SNIA's 4 KiB random writes, aligned to the transfer size, unless told otherwise.
pub fn run(
    setup: Setup,
    max_duration: Duration,
    erase_method: &str,
    out: Option<std::path::PathBuf>,
    interrupt: std::sync::Arc<std::sync::atomic::AtomicBool>,
    observer: &mut dyn super::ExperimentObserver,
) -> anyhow::Result<super::ExperimentOutcome> {
    let record = record(setup, max_duration, erase_method)?;
    super::launch_record(record, out, interrupt, observer)
}

/// The record of a new WSAT experiment on `setup`'s target, every phase pending.
pub fn record(
    setup: Setup,
    max_duration: Duration,
    erase_method: &str,
) -> anyhow::Result<super::ExperimentRecord> {
    let notes = Vec::new();
    let capacity = super::runner::identity_of(&setup.target)?
        .size_bytes
        .unwrap_or(0);
    let settings = json!({
        "max_duration_s": max_duration.as_secs_f64(),
        "capacity_bytes": capacity,
        "workload": setup.workload,
    });
    let list = phases(&setup, capacity, max_duration, erase_method);
    super::new_record("wsat", &setup, list, settings, notes)
}
