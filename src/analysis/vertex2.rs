//! The figures of a Vertex 2 experiment (the seed's fade-and-recover story): each state's IOPS,
//! MB/s, latency and `vs_fresh_pct` ([`super::ExperimentStates`]), fade, loss, recovery, the
//! lasting loss and in-service against fresh, the pattern check (repeating bytes against
//! random bytes, a compressing drive's tell) and the soak's own fade and steady state. The
//! terminal table, `--json` and the group table show these.

use std::collections::BTreeMap;

use serde::Serialize;

use super::{ExperimentStates, Fade, FadeRatio};
use crate::results::Experiment;
use crate::stats::steady::SteadyState;
use crate::stats::LatencySummary;

/// The measured states (phase name, key in the figures).
pub const STATES: [(&str, &str); 4] = [
    ("in-service", "in_service"),
    ("fresh", "fresh"),
    ("faded", "faded"),
    ("recovered", "recovered"),
];

/// One state's figures.
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct StateRow {
    pub iops: f64,
    pub mb_per_s: f64,
    pub lat_us: Option<LatencySummary>,
    /// Mean and p99 latency of the whole phase, µs (exact from run.json's summary).
    pub avg_lat_us: f64,
    pub p99_lat_us: f64,
    /// state ÷ fresh − 100 %: negative when slower than fresh.
    pub vs_fresh_pct: Option<f64>,
    /// The reference set's IOPS of this state (`--reference`) and measured ÷ reference.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub reference_iops: Option<f64>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub of_reference: Option<f64>,
}

/// Throughput of one pattern.
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct PatternRate {
    pub iops: f64,
    pub mb_per_s: f64,
}

/// Repeating bytes against random bytes.
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct PatternCheck {
    pub repeat: PatternRate,
    pub random: PatternRate,
    /// repeat ÷ random IOPS (0 when random did no I/O).
    pub repeat_over_random: f64,
}

/// The soak phase's own figures.
#[derive(Clone, Debug, Default, PartialEq, Serialize)]
pub struct SoakFigures {
    pub fade: Option<Fade>,
    pub steady_state: Option<SteadyState>,
}

/// The figures of a Vertex 2 experiment.
#[derive(Clone, Debug, Default, PartialEq, Serialize)]
pub struct Vertex2Figures {
    /// By key of [`STATES`]; a state not measured is absent.
    pub states: BTreeMap<String, StateRow>,
    /// `faded` and `recovered` against `fresh` (their percents are the fields below).
    #[serde(skip)]
    pub fade: Option<FadeRatio>,
    #[serde(skip)]
    pub recovery: Option<FadeRatio>,
    pub fade_pct: Option<f64>,
    pub loss_pct: Option<f64>,
    pub recovery_pct: Option<f64>,
    pub lasting_loss_pct: Option<f64>,
    pub in_service_pct: Option<f64>,
    pub pattern_check: Option<PatternCheck>,
    pub soak: SoakFigures,
}

impl Vertex2Figures {
    /// The figures of `exp` (its states from `measured`).
    pub fn of(exp: &Experiment, measured: &ExperimentStates) -> Vertex2Figures {
        let states = STATES
            .iter()
            .filter_map(|(name, key)| {
                let s = measured.state(name)?;
                let f = &s.figures;
                Some((
                    key.to_string(),
                    StateRow {
                        iops: f.iops,
                        mb_per_s: f.mb_per_s,
                        lat_us: f.lat_us,
                        avg_lat_us: f.avg_lat_us,
                        p99_lat_us: f.p99_lat_us,
                        vs_fresh_pct: s.vs_fresh_pct(),
                        reference_iops: s.reference_iops,
                        of_reference: s.of_reference,
                    },
                ))
            })
            .collect();
        let pct = |r: Option<FadeRatio>| r.map(|r| r.pct_of_fresh);
        let rate = |name: &str| {
            measured.state(name).map(|s| PatternRate {
                iops: s.figures.iops,
                mb_per_s: s.figures.mb_per_s,
            })
        };
        let pattern_check =
            rate("pattern-repeat")
                .zip(rate("pattern-random"))
                .map(|(repeat, random)| PatternCheck {
                    repeat_over_random: if random.iops > 0.0 {
                        repeat.iops / random.iops
                    } else {
                        0.0
                    },
                    repeat,
                    random,
                });
        let soak = exp
            .phases
            .iter()
            .find(|p| p.record.phase.name == "soak")
            .and_then(|p| p.run.as_ref())
            .map_or_else(SoakFigures::default, |run| {
                // A soak that met its pace has neither: its level is the pace.
                let drives = super::Pace::met_by(run).is_none();
                SoakFigures {
                    fade: Fade::of_run(run),
                    steady_state: run.info.steady_state.clone().filter(|_| drives),
                }
            });
        Vertex2Figures {
            states,
            fade: measured.fade,
            recovery: measured.recovery,
            fade_pct: pct(measured.fade),
            loss_pct: measured.fade.map(|f| f.loss_pct()),
            recovery_pct: pct(measured.recovery),
            lasting_loss_pct: measured.lasting_loss_pct(),
            in_service_pct: pct(measured.in_service),
            pattern_check,
            soak,
        }
    }
}
