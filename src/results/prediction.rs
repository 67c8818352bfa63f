//! The record of a steady state predicted early (run.json's `prediction`); its words are
//! `text::prediction`'s.

use serde::{Deserialize, Serialize};

use crate::units::format_count;

/// Steady-state IOPS and SNIA's pass predicted from a soak's samples so far (see
/// `analysis::predict`).
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize, schemars::JsonSchema)]
pub struct Prediction {
    /// Predicted steady-state IOPS.
    pub iops: f64,
    /// The interval: the steady IOPS lies in [low, high].
    pub low: f64,
    pub high: f64,
    /// Half the interval's width, percent of `iops`.
    pub half_width_pct: f64,
    /// Steady-state write amplification of greedy GC at the span's over-provisioning.
    pub write_amplification: f64,
    /// Flash over the span assumed (the span's α).
    pub span_alpha: f64,
    /// When SNIA's steady-state test is predicted to pass: seconds and bytes since the start.
    pub steady_at_s: Option<f64>,
    pub steady_at_bytes: Option<u64>,
    /// The samples the prediction was made from end here.
    pub made_at_s: f64,
    pub made_at_bytes: u64,
    /// When the run's first prediction was made (seconds since the start): where the chart's
    /// dashed line begins.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub first_made_at_s: Option<f64>,
    /// Which "steady" `iops` is: the settled level of garbage collection, the IOPS at the end
    /// of the run's plan, or the IOPS when SNIA's test passes (a throttled drive, which keeps
    /// slowing, has no settled level).
    #[serde(default)]
    pub basis: Basis,
    /// A throttled drive's time per write: its measured rise, µs per hour of writing.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub rise_us_per_h: Option<f64>,
    /// The model that made the prediction (records before it was named: `greedy`).
    #[serde(default)]
    pub model: Model,
}

/// The model a prediction comes from (see `analysis::predict`).
#[derive(Clone, Copy, Debug, Default, PartialEq, Serialize, Deserialize, schemars::JsonSchema)]
pub enum Model {
    /// Greedy garbage collection's write amplification, the time per write a line in it.
    #[default]
    #[serde(rename = "greedy")]
    Greedy,
    /// A lifetime throttle alone: the time per write rising with time (`dy/dt = k₀ − k₁·y`).
    #[serde(rename = "throttle")]
    Throttle,
    /// A purged drive that is also throttled: greedy GC's WA times the throttle's time per
    /// program.
    #[serde(rename = "gc+throttle")]
    GcThrottle,
}

impl Model {
    /// Its name as run.json writes it: "greedy", "throttle", "gc+throttle".
    pub fn name(self) -> &'static str {
        match self {
            Model::Greedy => "greedy",
            Model::Throttle => "throttle",
            Model::GcThrottle => "gc+throttle",
        }
    }
}

/// What a prediction's IOPS is the IOPS of.
#[derive(Clone, Copy, Debug, Default, PartialEq, Serialize, Deserialize, schemars::JsonSchema)]
#[serde(rename_all = "snake_case")]
pub enum Basis {
    /// The level garbage collection settles at (`1/(b·WA∞)`).
    #[default]
    Settled,
    /// The IOPS at the end of the run's plan (its duration or bytes).
    PlanEnd,
    /// The IOPS when SNIA's steady-state test passes.
    SniaPass,
}

impl Prediction {
    /// When the run's first prediction was made, seconds since the start (this one's own time
    /// for a record written before the first was kept): every presenter names it, so that no
    /// prediction reads as made before it was.
    pub fn first_made_s(&self) -> f64 {
        self.first_made_at_s.unwrap_or(self.made_at_s)
    }

    /// The interval in words: "918–981: −3.2 % / +3.5 %" (its ends need not lie at the same
    /// distance from `iops`: the upper one is bounded by the rate measured since the cliff).
    pub fn range(&self) -> String {
        format!(
            "{}–{}: −{:.1} % / +{:.1} %",
            format_count(self.low),
            format_count(self.high),
            100.0 * (1.0 - self.low / self.iops),
            100.0 * (self.high / self.iops - 1.0)
        )
    }
}

impl Basis {
    /// Words for the progress line and the summaries: "steady", "at the plan's end", "at SNIA's pass".
    pub fn label(self) -> &'static str {
        match self {
            Basis::Settled => "steady",
            Basis::PlanEnd => "at the plan's end",
            Basis::SniaPass => "at SNIA's pass",
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_model_is_named_in_the_record_and_older_records_read_as_greedy() {
        let names: Vec<String> = [Model::Greedy, Model::Throttle, Model::GcThrottle]
            .into_iter()
            .map(|m| {
                assert_eq!(serde_json::to_value(m).unwrap(), m.name());
                m.name().to_string()
            })
            .collect();
        assert_eq!(names, ["greedy", "throttle", "gc+throttle"]);
        let old = serde_json::json!({
            "iops": 1000.0, "low": 900.0, "high": 1100.0, "half_width_pct": 10.0,
            "write_amplification": 2.0, "span_alpha": 1.28, "steady_at_s": null,
            "steady_at_bytes": null, "made_at_s": 60.0, "made_at_bytes": 1
        });
        let p: Prediction = serde_json::from_value(old).unwrap();
        assert_eq!(p.model, Model::Greedy);
    }
}
