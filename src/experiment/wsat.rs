//! SNIA PTS write saturation (WSAT): purge the drive, then write 4 KiB at random offsets
//! without preconditioning until four times the capacity is written (or a time limit), in
//! one-minute rounds; the result is IOPS per round against time and against total bytes
//! written (TGBW, in drive fills).

use std::time::Duration;

use super::phase::{EraseParams, Phase, PhaseKind};
use super::{run_params, Setup};
use crate::results::settings::{Settings, WsatSettings};

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
    let capacity = setup.identity()?.size_bytes.unwrap_or(0);
    let settings = settings(&setup, capacity, max_duration);
    let list = phases(&setup, capacity, max_duration, erase_method);
    super::new_record("wsat", &setup, list, settings, notes)
}

/// What a WSAT on `setup`'s workload records (alone, or as a test of the PTS suite).
pub fn settings(setup: &Setup, capacity: u64, max_duration: Duration) -> Settings {
    Settings::Wsat(WsatSettings {
        max_duration_s: max_duration.as_secs_f64(),
        capacity_bytes: capacity,
        workload: setup.workload.clone(),
    })
}
