//! SNIA PTS host idle recovery (HIR): purge, write twice the capacity (SNIA's preconditioning
//! amount, with the test's own 4 KiB random writes: a purged drive is flat, and so "steady",
//! until its spare area runs out), write 4 KiB at random offsets until steady state,
//! then for each wait state (idle gaps of 5, 10, 15, 25 and 50 s) a series of idle gaps each
//! followed by a 5-second write burst, and after each wait state a return to the steady-state
//! baseline (continuous writes as long as the bursts of one wait state together, and at least
//! five minutes, so the spare area that idle time freed is used up again). SNIA runs 360
//! bursts per wait state (and a 1800 s return); `--bursts` scales that down.

use std::time::Duration;

use super::phase::{EraseParams, IdleParams, Phase, PhaseKind};
use super::{run_params, Setup};
use crate::results::settings::{HirSettings, Settings};

/// SNIA's idle gaps, seconds.
pub const WAIT_STATES: [u32; 5] = [5, 10, 15, 25, 50];
/// Length of one burst.
pub const BURST: Duration = crate::results::experiment::HIR_BURST;
/// Shortest return to baseline after a wait state.
pub const MIN_RETURN: Duration = Duration::from_secs(300);
/// Most bursts per wait state: SNIA's count. Each burst is two phases, so the plan stays
/// within a few thousand phases.
pub const MAX_BURSTS: u32 = 360;

/// The phases: `purge`, `fill` (2 × capacity), `precondition` (until steady, at most
/// `max_duration`), then per wait state `wsN-idleK` / `wsN-burstK` pairs and `wsN-baseline`.
pub fn phases(
    setup: &Setup,
    capacity: u64,
    bursts: u32,
    max_duration: Duration,
    erase_method: &str,
) -> Vec<Phase> {
    let w = &setup.workload;
    let mut precondition = run_params(w, Some(max_duration), None, Duration::from_secs(10));
    precondition.until_steady = true;
    let mut list = vec![
        Phase {
            name: "purge".into(),
            kind: PhaseKind::Erase(EraseParams {
                method: erase_method.into(),
            }),
        },
        Phase {
            name: "fill".into(),
            kind: PhaseKind::Soak(run_params(
                w,
                None,
                Some(capacity.saturating_mul(2)),
                Duration::from_secs(10),
            )),
        },
        Phase {
            name: "precondition".into(),
            kind: PhaseKind::Soak(precondition),
        },
    ];
    for gap in WAIT_STATES {
        // Idle first, so that every burst shows what its gap gave back (SNIA repeats burst
        // then idle 360 times, where the order hardly matters; with a few bursts it does).
        for k in 1..=bursts {
            list.push(Phase {
                name: format!("ws{gap}-idle{k}"),
                kind: PhaseKind::Idle(IdleParams {
                    seconds: f64::from(gap),
                }),
            });
            list.push(Phase {
                name: format!("ws{gap}-burst{k}"),
                kind: PhaseKind::Measure(run_params(w, Some(BURST), None, Duration::from_secs(1))),
            });
        }
        list.push(Phase {
            name: format!("ws{gap}-baseline"),
            kind: PhaseKind::Measure(run_params(
                w,
                Some((BURST * bursts).max(MIN_RETURN)),
                None,
                Duration::from_secs(1),
            )),
        });
    }
    list
}

/// Runs HIR with `bursts` bursts per wait state: SNIA's 4 KiB random writes, aligned to the
/// transfer size, unless told otherwise.
#[allow(clippy::too_many_arguments)]
pub fn run(
    setup: Setup,
    bursts: u32,
    max_duration: Duration,
    erase_method: &str,
    out: Option<std::path::PathBuf>,
    interrupt: std::sync::Arc<std::sync::atomic::AtomicBool>,
    observer: &mut dyn super::ExperimentObserver,
) -> anyhow::Result<super::ExperimentOutcome> {
    let record = record(setup, bursts, max_duration, erase_method)?;
    super::launch_record(record, out, interrupt, observer)
}

/// The record of a new HIR experiment on `setup`'s target, every phase pending.
pub fn record(
    setup: Setup,
    bursts: u32,
    max_duration: Duration,
    erase_method: &str,
) -> anyhow::Result<super::ExperimentRecord> {
    if !(1..=MAX_BURSTS).contains(&bursts) {
        crate::bad_input!(
            "--bursts {bursts}: from 1 to {MAX_BURSTS} bursts per wait state (SNIA's count is {MAX_BURSTS})"
        );
    }
    // HIR measures how fast the drive writes again after idling: a pace caps every burst and
    // the preconditioning at itself, so each figure would be the pace, not the drive's.
    if setup.workload.rate.is_some() {
        crate::bad_input!(
            "--rate-iops/--rate with experiment hir: its bursts and steady state are measured flat out, so a paced HIR would report the pace, not the drive; drop the rate"
        );
    }
    let mut notes = Vec::new();
    if bursts < MAX_BURSTS {
        notes.push(format!(
            "{bursts} bursts per wait state (SNIA: 360); the return to baseline lasts {} s (SNIA: 1800 s)",
            (BURST * bursts).max(MIN_RETURN).as_secs()
        ));
    }
    let settings = settings(&setup, bursts, max_duration);
    let capacity = setup.identity()?.size_bytes.unwrap_or(0);
    let list = phases(&setup, capacity, bursts, max_duration, erase_method);
    super::new_record("hir", &setup, list, settings, notes)
}

/// What a HIR on `setup`'s workload records (alone, or as a test of the PTS suite).
pub fn settings(setup: &Setup, bursts: u32, max_duration: Duration) -> Settings {
    Settings::Hir(HirSettings {
        bursts,
        wait_states_s: WAIT_STATES.to_vec(),
        max_duration_s: max_duration.as_secs_f64(),
        workload: setup.workload.clone(),
    })
}
