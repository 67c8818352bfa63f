//! SNIA PTS cross-stimulus recovery (XSR): purge, SNIA's workload-independent preconditioning
//! (128 KiB sequential writes, twice the capacity), then three segments of writes without a
//! pause: 1024 KiB sequential, 8 KiB random, 1024 KiB sequential again. SNIA runs them for
//! 8 h, 6 h and 8 h; `--segment` sets the sequential segments' length (the random one lasts
//! three quarters of it, as SNIA's). The figures are [`crate::analysis::xsr`]'s.

use std::time::Duration;

use super::phase::{EraseParams, Phase, PhaseKind};
use super::{run_params, Setup};
use crate::analysis::xsr::{NAME, PRECONDITION, SEGMENTS};
use crate::results::settings::{Settings, XsrSettings};
use crate::run::WorkloadSpec;

/// SNIA's length of a sequential segment.
pub const SNIA_SEGMENT: Duration = Duration::from_secs(8 * 3600);
/// The sequential segments' transfer size.
pub const SEQUENTIAL_BS: u64 = 1024 * 1024;
/// The random segment's transfer size.
pub const RANDOM_BS: u64 = 8 * 1024;
/// The preconditioning's transfer size (SNIA's workload-independent preconditioning).
pub const PRECONDITION_BS: u64 = 128 * 1024;
/// Samples per segment at most: one a minute on SNIA's lengths, finer on shorter segments.
const SAMPLES: u32 = 120;

/// What the user asked for.
#[derive(Clone, Debug)]
pub struct Xsr {
    /// Length of each sequential segment (the random one lasts three quarters of it).
    pub segment: Duration,
    pub erase_method: String,
}

impl Xsr {
    /// The random segment's length: SNIA's 6 h against 8 h.
    pub fn random_segment(&self) -> Duration {
        self.segment * 3 / 4
    }

    /// The sample period: a 120th of a sequential segment, from 1 s to SNIA's 1-minute round.
    pub fn interval(&self) -> Duration {
        (self.segment / SAMPLES).clamp(Duration::from_secs(1), Duration::from_secs(60))
    }
}

/// `w` with transfer size `bs`, all writes, sequential or random.
fn writes(w: &WorkloadSpec, bs: u64, random: bool) -> WorkloadSpec {
    WorkloadSpec {
        bs,
        align: None,
        read_pct: 0,
        trim_pct: 0,
        random_pct: if random { 100 } else { 0 },
        ..w.clone()
    }
}

/// The phases: `purge`, `precondition` (2 × capacity of 128 KiB sequential writes), then the
/// segments `seq-1`, `random`, `seq-2`. Self-contained: a suite includes XSR by calling this.
pub fn phases(setup: &Setup, capacity: u64, plan: &Xsr) -> Vec<Phase> {
    let w = &setup.workload;
    let interval = plan.interval();
    let mut list = vec![
        Phase {
            name: "purge".into(),
            kind: PhaseKind::Erase(EraseParams {
                method: plan.erase_method.clone(),
            }),
        },
        Phase {
            name: PRECONDITION.into(),
            kind: PhaseKind::Soak(run_params(
                &writes(w, PRECONDITION_BS, false),
                None,
                Some(capacity.saturating_mul(2)),
                interval,
            )),
        },
    ];
    for name in SEGMENTS {
        let random = name == SEGMENTS[1];
        let (bs, length) = if random {
            (RANDOM_BS, plan.random_segment())
        } else {
            (SEQUENTIAL_BS, plan.segment)
        };
        list.push(Phase {
            name: name.into(),
            kind: PhaseKind::Soak(run_params(
                &writes(w, bs, random),
                Some(length),
                None,
                interval,
            )),
        });
    }
    list
}

/// The record of a new XSR experiment on `setup`'s target, every phase pending.
pub fn record(setup: Setup, plan: Xsr) -> anyhow::Result<super::ExperimentRecord> {
    if setup.workload.rate.is_some() {
        crate::bad_input!(
            "--rate-iops/--rate with experiment xsr: its segments are measured flat out, so a paced XSR would report the pace, not the drive's recovery; drop the rate"
        );
    }
    if plan.segment < Duration::from_secs(10) {
        crate::bad_input!(
            "--segment {}: a segment needs at least 10 s to settle (SNIA: 8h); give a longer one",
            crate::units::format_duration(plan.segment)
        );
    }
    let capacity = setup.identity()?.size_bytes.unwrap_or(0);
    if capacity < SEQUENTIAL_BS {
        crate::bad_input!(
            "{} holds {capacity} bytes: XSR writes 1 MiB transfers, give a larger target",
            setup.target
        );
    }
    let mut notes = Vec::new();
    if plan.segment != SNIA_SEGMENT {
        notes.push(format!(
            "segments of {} / {} / {} (SNIA: 8h / 6h / 8h)",
            crate::units::format_duration(plan.segment),
            crate::units::format_duration(plan.random_segment()),
            crate::units::format_duration(plan.segment)
        ));
    }
    let settings = settings(&setup, capacity, &plan);
    let list = phases(&setup, capacity, &plan);
    super::new_record(NAME, &setup, list, settings, notes)
}

/// What an XSR on `setup`'s workload records (alone, or as a test of the PTS suite).
pub fn settings(setup: &Setup, capacity: u64, plan: &Xsr) -> Settings {
    Settings::Xsr(XsrSettings {
        capacity_bytes: capacity,
        random_bs: RANDOM_BS,
        segment_s: plan.segment.as_secs_f64(),
        sequential_bs: SEQUENTIAL_BS,
        workload: setup.workload.clone(),
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    /// SNIA's 8 h segment samples once a minute; a short one at least once a second.
    #[test]
    fn the_interval_is_a_120th_of_a_segment_within_snias_round() {
        let plan = |s| Xsr {
            segment: Duration::from_secs(s),
            erase_method: "auto".into(),
        };
        assert_eq!(plan(8 * 3600).interval(), Duration::from_secs(60));
        assert_eq!(plan(60).interval(), Duration::from_secs(1));
        assert_eq!(plan(600).interval(), Duration::from_secs(5));
        assert_eq!(
            plan(8 * 3600).random_segment(),
            Duration::from_secs(6 * 3600)
        );
    }
}
