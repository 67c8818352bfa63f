//! The seed's central experiment, the OCZ Vertex 2 story, as one command: measure the drive as
//! it is (in service), erase it, measure it fresh, soak it (8 h of random writes), measure it
//! faded, erase it again, measure it recovered. With `--pattern-check`, the seed's data-pattern
//! pair (repeating bytes and random data at 512-byte transfers) follows the in-service measure.

use std::time::Duration;

use super::phase::{EraseParams, Phase, PhaseKind};
use super::{run_params, Setup};
use crate::pattern::Pattern;
use crate::results::settings::{Settings, Vertex2Settings};

/// The sample period of the measure phases (the protocol's own, not an option).
pub const MEASURE_INTERVAL: Duration = Duration::from_secs(1);

/// The pattern pair's transfer size (raised to the logical block size when that is larger).
pub const PATTERN_BS: u64 = 512;

/// What the protocol is made of.
#[derive(Clone, Debug)]
pub struct Vertex2 {
    pub measure_duration: Duration,
    pub measure_interval: Duration,
    pub soak_duration: Option<Duration>,
    pub soak_bytes: Option<u64>,
    pub soak_interval: Duration,
    /// As `erase --method` takes it.
    pub erase_method: String,
    pub pattern_check: bool,
    /// Transfer size of the pattern pair (512, or the logical block size when larger).
    pub pattern_bs: u64,
    /// Another measurement's IOPS of the states, kept in the record for the reports.
    pub reference: Option<crate::results::ReferenceIops>,
}

/// The phases, in order.
pub fn phases(setup: &Setup, v: &Vertex2) -> Vec<Phase> {
    let w = &setup.workload;
    let measure = |name: &str, workload: &crate::run::WorkloadSpec| Phase {
        name: name.into(),
        kind: PhaseKind::Measure(run_params(
            workload,
            Some(v.measure_duration),
            None,
            v.measure_interval,
        )),
    };
    let erase = |name: &str| Phase {
        name: name.into(),
        kind: PhaseKind::Erase(EraseParams {
            method: v.erase_method.clone(),
        }),
    };
    let mut list = vec![measure("in-service", w)];
    if v.pattern_check {
        for (name, pattern) in [
            ("pattern-repeat", Pattern::Repeat),
            ("pattern-random", Pattern::Random),
        ] {
            let mut small = w.clone();
            small.bs = v.pattern_bs;
            small.align = Some(v.pattern_bs);
            small.pattern = pattern;
            list.push(measure(name, &small));
        }
    }
    list.push(erase("erase-1"));
    list.push(measure("fresh", w));
    let soak_duration = match (v.soak_duration, v.soak_bytes) {
        (None, None) => Some(Duration::from_secs(8 * 3600)),
        (d, _) => d,
    };
    list.push(Phase {
        name: "soak".into(),
        kind: PhaseKind::Soak(run_params(w, soak_duration, v.soak_bytes, v.soak_interval)),
    });
    list.push(measure("faded", w));
    list.push(erase("erase-2"));
    list.push(measure("recovered", w));
    list
}

/// Runs the protocol (workload defaults: the seed's, 512-byte alignment where the target
/// allows it).
pub fn run(
    setup: Setup,
    v: Vertex2,
    out: Option<std::path::PathBuf>,
    interrupt: std::sync::Arc<std::sync::atomic::AtomicBool>,
    observer: &mut dyn super::ExperimentObserver,
) -> anyhow::Result<super::ExperimentOutcome> {
    super::launch_record(record(setup, v)?, out, interrupt, observer)
}

/// The record of a new vertex2 experiment on `setup`'s target, every phase pending.
pub fn record(mut setup: Setup, v: Vertex2) -> anyhow::Result<super::ExperimentRecord> {
    let notes = super::apply_seed_align(&mut setup)?;
    let v = Vertex2 {
        pattern_bs: setup.workload.align.unwrap_or(PATTERN_BS).max(PATTERN_BS),
        ..v
    };
    let settings = Settings::Vertex2(Vertex2Settings {
        measure_duration_s: v.measure_duration.as_secs_f64(),
        soak_duration_s: v.soak_duration.map(|d| d.as_secs_f64()),
        soak_bytes: v.soak_bytes,
        erase_method: v.erase_method.clone(),
        pattern_check: v.pattern_check,
        workload: setup.workload.clone(),
    });
    let list = phases(&setup, &v);
    let mut record = super::new_record("vertex2", &setup, list, settings, notes)?;
    record.reference = v.reference;
    Ok(record)
}
