//! The figures of a host-idle-recovery experiment (SNIA HIR): per wait state (the idle gap
//! before each burst), every completed burst's IOPS, their mean, that mean over the steady
//! state reached in preconditioning (`burst_vs_steady`, 1.5 = half again as fast as steady),
//! and the return to baseline's IOPS; over all wait states, the baseline: the median of their
//! returns' IOPS, the one figure hir.png's line, the report and the terminal show. The wait
//! states are read from the phase names the
//! experiment recorded (`wsN-idleK`, `wsN-burstK`, `wsN-baseline`). The terminal table and
//! `--json` show these.

use serde::Serialize;

use crate::results::{ExperimentRecord, Status};
use crate::stats::steady::SteadyState;

/// One wait state.
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct WaitState {
    /// The idle gap before each burst, seconds.
    pub idle_s: u32,
    /// Each completed burst's IOPS, in order.
    pub burst_iops: Vec<f64>,
    pub burst_mean_iops: Option<f64>,
    /// The slowest and the fastest completed burst's IOPS.
    pub burst_min_iops: Option<f64>,
    pub burst_max_iops: Option<f64>,
    /// `burst_mean_iops` ÷ `steady_iops`.
    pub burst_vs_steady: Option<f64>,
    /// The return to baseline after the wait state.
    pub baseline_iops: Option<f64>,
}

/// The HIR figures of an experiment.
#[derive(Clone, Debug, Default, PartialEq, Serialize)]
pub struct HirFigures {
    /// The steady state preconditioning reached.
    pub steady_state: Option<SteadyState>,
    /// Its IOPS, else the whole preconditioning's.
    pub steady_iops: Option<f64>,
    pub wait_states: Vec<WaitState>,
    /// The baseline the drive returns to: the median of the wait states' returns to baseline
    /// (their whole-phase IOPS); None before the first return completed.
    pub baseline_iops: Option<f64>,
}

/// The IOPS of the completed phase `name`.
fn iops_of(record: &ExperimentRecord, name: &str) -> Option<f64> {
    record
        .phase(name)
        .filter(|p| p.status == Status::Completed)?
        .headline
        .as_ref()?
        .iops
}

/// The wait state of a phase named `wsN-…`.
fn gap_of(name: &str) -> Option<u32> {
    name.strip_prefix("ws")?.split_once('-')?.0.parse().ok()
}

impl HirFigures {
    /// The figures of the HIR experiment `record` (its phases' headlines).
    pub fn of(record: &ExperimentRecord) -> HirFigures {
        let steady_state = record
            .phase("precondition")
            .and_then(|p| p.headline.as_ref())
            .and_then(|h| h.steady_state.clone());
        let steady_iops = steady_state
            .as_ref()
            .and_then(|s| s.iops)
            .or_else(|| iops_of(record, "precondition"));
        let mut gaps: Vec<u32> = Vec::new();
        for gap in record.phases.iter().filter_map(|p| gap_of(&p.phase.name)) {
            if !gaps.contains(&gap) {
                gaps.push(gap);
            }
        }
        let wait_states = gaps
            .into_iter()
            .map(|gap| {
                let prefix = format!("ws{gap}-burst");
                let bursts: Vec<f64> = record
                    .phases
                    .iter()
                    .filter(|p| p.phase.name.starts_with(&prefix))
                    .filter_map(|p| iops_of(record, &p.phase.name))
                    .collect();
                let mean =
                    (!bursts.is_empty()).then(|| bursts.iter().sum::<f64>() / bursts.len() as f64);
                WaitState {
                    idle_s: gap,
                    burst_vs_steady: mean.zip(steady_iops).map(|(m, s)| m / s),
                    burst_mean_iops: mean,
                    burst_min_iops: bursts.iter().copied().reduce(f64::min),
                    burst_max_iops: bursts.iter().copied().reduce(f64::max),
                    burst_iops: bursts,
                    baseline_iops: iops_of(record, &format!("ws{gap}-baseline")),
                }
            })
            .collect::<Vec<WaitState>>();
        HirFigures {
            steady_state,
            steady_iops,
            baseline_iops: super::fade::median(wait_states.iter().filter_map(|w| w.baseline_iops)),
            wait_states,
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A phase named `name` with `status` and, when given, a headline of `iops`.
    fn phase(name: &str, status: &str, iops: Option<f64>) -> serde_json::Value {
        serde_json::json!({
            "name": name, "kind": "idle", "params": {"seconds": 1.0}, "status": status,
            "started_utc": null, "ended_utc": null, "dir": null, "error": null,
            "headline": iops.map(|i| serde_json::json!({"iops": i, "seconds": 5.0})),
        })
    }

    fn record(phases: Vec<serde_json::Value>) -> ExperimentRecord {
        serde_json::from_value(serde_json::json!({
            "name": "hir", "options": {"destroy_data": null, "force": false, "size": null, "engine": null,
                "ss_round_s": 60.0, "checkpoint_s": null},
            "settings": {}, "status": "completed", "phases": phases,
        }))
        .unwrap()
    }

    /// Steady at 1000 IOPS; after 5 s idle two bursts of 3000 and 2000 (a third failed and does
    /// not count) and a return of 1200; after 10 s idle one burst of 4000 and no return yet.
    #[test]
    fn each_wait_state_is_its_completed_bursts_mean_over_steady_and_its_return() {
        let mut pre = phase("precondition", "completed", Some(900.0));
        pre["headline"]["steady_state"] = serde_json::json!({"reached": true, "at_s": 60.0,
            "bytes_written": 1, "drive_fills": 0.1, "iops": 1000.0, "rounds": 5});
        let r = record(vec![
            pre,
            phase("ws5-idle1", "completed", Some(0.0)),
            phase("ws5-burst1", "completed", Some(3000.0)),
            phase("ws5-idle2", "completed", Some(0.0)),
            phase("ws5-burst2", "completed", Some(2000.0)),
            phase("ws5-burst3", "failed", Some(9000.0)),
            phase("ws5-baseline", "completed", Some(1200.0)),
            phase("ws10-idle1", "completed", Some(0.0)),
            phase("ws10-burst1", "completed", Some(4000.0)),
            phase("ws10-baseline", "pending", None),
        ]);
        let h = HirFigures::of(&r);
        assert_eq!(h.steady_iops, Some(1000.0));
        assert_eq!(h.wait_states.len(), 2);
        let (five, ten) = (&h.wait_states[0], &h.wait_states[1]);
        assert_eq!((five.idle_s, ten.idle_s), (5, 10));
        assert_eq!(five.burst_iops, vec![3000.0, 2000.0]);
        assert_eq!(five.burst_mean_iops, Some(2500.0));
        assert_eq!(
            (five.burst_min_iops, five.burst_max_iops),
            (Some(2000.0), Some(3000.0))
        );
        assert_eq!(five.burst_vs_steady, Some(2.5));
        assert_eq!(five.baseline_iops, Some(1200.0));
        assert_eq!(ten.burst_iops, vec![4000.0]);
        assert_eq!(ten.burst_vs_steady, Some(4.0));
        assert_eq!(ten.baseline_iops, None);
        // One return so far: the baseline is it.
        assert_eq!(h.baseline_iops, Some(1200.0));
    }

    /// The baseline is the median of the returns, the whole-phase IOPS of each (the report's
    /// column), not of the chart's points within them.
    #[test]
    fn the_baseline_is_the_median_of_the_returns() {
        let r = record(vec![
            phase("precondition", "completed", Some(800.0)),
            phase("ws5-baseline", "completed", Some(3100.0)),
            phase("ws10-baseline", "completed", Some(3469.0)),
            phase("ws15-baseline", "completed", Some(3243.0)),
            phase("ws20-baseline", "completed", Some(3300.0)),
        ]);
        assert_eq!(
            HirFigures::of(&r).baseline_iops,
            Some((3243.0 + 3300.0) / 2.0)
        );
    }

    /// Without a steady state the preconditioning's whole-phase IOPS is the reference.
    #[test]
    fn without_a_steady_state_bursts_compare_with_the_whole_preconditioning() {
        let r = record(vec![
            phase("precondition", "completed", Some(800.0)),
            phase("ws5-burst1", "completed", Some(1200.0)),
        ]);
        let h = HirFigures::of(&r);
        assert_eq!(h.steady_iops, Some(800.0));
        assert_eq!(h.wait_states[0].burst_vs_steady, Some(1.5));
    }
}
