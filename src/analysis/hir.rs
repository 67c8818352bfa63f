//! The figures of a host-idle-recovery experiment (SNIA HIR): per wait state (the idle gap
//! before each burst), every completed burst's IOPS, their mean, that mean over the steady
//! state reached in preconditioning (`burst_vs_steady`, 1.5 = half again as fast as steady),
//! and the return to baseline's IOPS. The wait states are read from the phase names the
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
                    burst_iops: bursts,
                    baseline_iops: iops_of(record, &format!("ws{gap}-baseline")),
                }
            })
            .collect();
        HirFigures {
            steady_state,
            steady_iops,
            wait_states,
        }
    }
}
