//! The SLC-cache test (`experiment slc-cache`): the real sustained write speed once the cache is
//! full. From a purged drive (or the drive as it is, `--no-purge`), one sequential write of the
//! whole drive sampled finely (`fill`), then idle gaps of growing length, each followed by a
//! short sequential write (`probe-…`, a sixteenth of the drive) that shows how much cache the
//! gap gave back. The figures are [`crate::analysis::slc_cache`]'s.

use std::time::Duration;

use super::phase::{EraseParams, IdleParams, Phase, PhaseKind};
use super::{run_params, Setup};
use crate::analysis::slc_cache::{FILL, NAME};
use crate::results::settings::{Settings, SlcCacheSettings};
use crate::units::format_duration;

/// The idle gaps, seconds: from seconds to ten minutes, 19 minutes in all.
pub const IDLE_GAPS: [f64; 7] = [5.0, 15.0, 30.0, 60.0, 120.0, 300.0, 600.0];
/// Each short write after a gap is this share of the drive.
pub const PROBE_SHARE: u64 = 16;

/// What the user asked for.
#[derive(Clone, Debug)]
pub struct SlcCache {
    /// Purge first (false: take the drive as it is).
    pub purge: bool,
    pub erase_method: String,
    /// Sample period of the writes.
    pub interval: Duration,
}

/// The phases: `purge` (unless the drive is taken as it is), `fill` (the whole drive), then
/// per gap `idle-N` and `probe-N`.
pub fn phases(setup: &Setup, capacity: u64, plan: &SlcCache) -> Vec<Phase> {
    let w = &setup.workload;
    let mut list = Vec::new();
    if plan.purge {
        list.push(Phase {
            name: "purge".into(),
            kind: PhaseKind::Erase(EraseParams {
                method: plan.erase_method.clone(),
            }),
        });
    }
    list.push(Phase {
        name: FILL.into(),
        kind: PhaseKind::Soak(run_params(w, None, Some(capacity), plan.interval)),
    });
    for gap in IDLE_GAPS {
        let label = format_duration(Duration::from_secs_f64(gap));
        list.push(Phase {
            name: format!("idle-{label}"),
            kind: PhaseKind::Idle(IdleParams { seconds: gap }),
        });
        list.push(Phase {
            name: format!("probe-{label}"),
            kind: PhaseKind::Measure(run_params(
                w,
                None,
                Some(capacity / PROBE_SHARE),
                plan.interval,
            )),
        });
    }
    list
}

/// The record of a new SLC-cache experiment on `setup`'s target (sequential writes whatever
/// the access options say), every phase pending.
pub fn record(mut setup: Setup, plan: SlcCache) -> anyhow::Result<super::ExperimentRecord> {
    setup.workload.random_pct = 0;
    setup.workload.read_pct = 0;
    let capacity = setup.identity()?.size_bytes.unwrap_or(0);
    if capacity < PROBE_SHARE * setup.workload.bs {
        crate::bad_input!(
            "{} holds {capacity} bytes: the SLC-cache test needs at least {} ({PROBE_SHARE} transfers of --bs), give a larger target",
            setup.target,
            PROBE_SHARE * setup.workload.bs
        );
    }
    let notes = vec![if plan.purge {
        format!(
            "purged ({}) before the whole-drive write",
            plan.erase_method
        )
    } else {
        "the drive as it was (--no-purge): not purged before the whole-drive write".to_string()
    }];
    let settings = Settings::SlcCache(SlcCacheSettings {
        capacity_bytes: capacity,
        idle_s: IDLE_GAPS.to_vec(),
        probe_bytes: capacity / PROBE_SHARE,
        purged: plan.purge,
        workload: setup.workload.clone(),
    });
    let list = phases(&setup, capacity, &plan);
    super::new_record(NAME, &setup, list, settings, notes)
}
