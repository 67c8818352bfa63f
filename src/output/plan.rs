//! `experiment KIND --dry-run`: the plan of the experiment a command would start — each phase,
//! what it runs and the most time it may take — and the bound of the whole. It is read from
//! the record the kind's phase plan builds (`experiment/<kind>.rs`); nothing is written.

use std::time::Duration;

use crate::results::{ExperimentRecord, PhaseKind, RunParams};
use crate::units::{format_bytes, format_duration};
use crate::workload::WorkloadSpec;

/// The most time a phase may take, when its plan bounds it: a run's duration (with a byte
/// limit or a steady-state stop it may end sooner), an idle's length. An erase, and a run
/// that only a byte count stops, have no bound the plan can give.
pub fn bound(kind: &PhaseKind) -> Option<Duration> {
    match kind {
        PhaseKind::Measure(p) | PhaseKind::SweepPoint(p) | PhaseKind::Soak(p) => {
            p.duration_s.map(Duration::from_secs_f64)
        }
        PhaseKind::Idle(i) => Some(Duration::from_secs_f64(i.seconds)),
        PhaseKind::Erase(_) => None,
    }
}

/// `4 KiB random writes, QD128`.
fn access(w: &WorkloadSpec) -> String {
    let mix = match w.read_pct {
        0 => "writes".to_string(),
        100 => "reads".to_string(),
        r => format!("{r} % reads"),
    };
    let access = match w.random_pct {
        100 => "random".to_string(),
        0 => "sequential".to_string(),
        r => format!("{r} % random"),
    };
    let size = crate::results::transfer_text(w.bs, w.bssplit.as_ref());
    let jobs = crate::workload::jobs_prefix(w.jobs);
    format!("{size} {access} {mix}, {jobs}QD{}", w.qd)
}

/// What a run phase does and what stops it.
fn run_text(p: &RunParams) -> String {
    let mut stops = Vec::new();
    if let Some(b) = p.bytes {
        stops.push(format!("{} written", format_bytes(b)));
    }
    if p.until_steady {
        stops.push("steady state".to_string());
    }
    let mut text = access(&p.workload);
    if let Some(pct) = p.rate_percent {
        text.push_str(&format!(", paced at {pct} % of max"));
    }
    if !stops.is_empty() {
        text.push_str(&format!(", until {}", stops.join(" or ")));
    }
    text
}

/// What the phase does, in a few words.
fn what(kind: &PhaseKind) -> String {
    match kind {
        PhaseKind::Measure(p) | PhaseKind::SweepPoint(p) | PhaseKind::Soak(p) => run_text(p),
        PhaseKind::Erase(e) => format!("erase ({})", e.method),
        PhaseKind::Idle(_) => "powered idle".to_string(),
    }
}

/// The plan as text: one line per phase (its number, name, kind, bound and workload), then
/// the bound of the whole.
pub fn plan_text(record: &ExperimentRecord) -> String {
    let mut out = format!(
        "experiment {} on {}: {} phases (dry run: nothing was written)\n",
        record.name,
        crate::console::one_line(&record.target),
        record.phases.len()
    );
    out.push_str(&format!(
        "  {:>4} {:<18} {:<11} {:>9}  {}\n",
        "#", "phase", "kind", "at most", "workload"
    ));
    let mut total = Duration::ZERO;
    let mut unbounded = 0;
    for (i, p) in record.phases.iter().enumerate() {
        let b = bound(&p.phase.kind);
        match b {
            Some(d) => total += d,
            None => unbounded += 1,
        }
        out.push_str(&format!(
            "  {:>4} {:<18} {:<11} {:>9}  {}\n",
            i + 1,
            p.phase.name,
            p.phase.kind.label(),
            b.map_or("-".to_string(), format_duration),
            what(&p.phase.kind)
        ));
    }
    out.push_str(&format!(
        "  At most {} in all (on a simulated drive: simulated time)\n",
        format_duration(total)
    ));
    if unbounded > 0 {
        out.push_str(&format!(
            "  and {unbounded} phase{} the plan cannot bound in time (erases, byte-limited writes)\n",
            if unbounded == 1 { "" } else { "s" }
        ));
    }
    out
}
