//! A phase as data: what it does and with which parameters, enough to run it again from
//! `experiment.json` alone (resume reads nothing else).

use serde::{Deserialize, Serialize};

use crate::workload::WorkloadSpec;

/// One step of an experiment.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize, schemars::JsonSchema)]
pub struct Phase {
    /// `in-service`, `erase-1`, `burst-ws10-3`…, unique in the experiment.
    pub name: String,
    #[serde(flatten)]
    pub kind: PhaseKind,
}

/// What a phase does. `measure` and `sweep-point` are runs that are restarted when cut short;
/// a `soak` continues its series; an `erase` is run again (its outcome is unknown); an `idle`
/// leaves the drive powered and idle (real drives: the tool sleeps; simulated drives: their
/// background garbage collection and throttling recovery run for that long).
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize, schemars::JsonSchema)]
#[serde(tag = "kind", content = "params", rename_all = "kebab-case")]
pub enum PhaseKind {
    Measure(RunParams),
    SweepPoint(RunParams),
    Soak(RunParams),
    Erase(EraseParams),
    Idle(IdleParams),
}

impl PhaseKind {
    /// The kind's name as experiment.json writes it.
    pub fn label(&self) -> &'static str {
        match self {
            PhaseKind::Measure(_) => "measure",
            PhaseKind::SweepPoint(_) => "sweep-point",
            PhaseKind::Soak(_) => "soak",
            PhaseKind::Erase(_) => "erase",
            PhaseKind::Idle(_) => "idle",
        }
    }

    /// True when the phase has a subdirectory (every kind but idle).
    pub fn has_dir(&self) -> bool {
        !matches!(self, PhaseKind::Idle(_))
    }
}

/// A run's workload and stop rule.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize, schemars::JsonSchema)]
pub struct RunParams {
    pub workload: WorkloadSpec,
    /// Seconds to run (with `bytes`, whichever comes first).
    pub duration_s: Option<f64>,
    pub bytes: Option<u64>,
    /// Sample period, seconds.
    pub interval_s: f64,
    /// End the run once SNIA steady state is reached.
    #[serde(default)]
    pub until_steady: bool,
    /// `threads` or `uring` for this phase alone (a thread sweep); `None`: the experiment's.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub engine: Option<String>,
    /// A rate sweep's point paced at this percent of the IOPS its `max` point measured: the
    /// rate (IOPS) is set when the point starts and recorded in the point's run.json.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub rate_percent: Option<f64>,
}

/// An erase.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize, schemars::JsonSchema)]
pub struct EraseParams {
    /// As `erase --method` takes it (`auto`, `trim`, `sim`, …).
    pub method: String,
}

/// Powered idle time.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize, schemars::JsonSchema)]
pub struct IdleParams {
    pub seconds: f64,
}
