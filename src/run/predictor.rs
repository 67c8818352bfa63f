//! The steady state predicted as a run's samples come: after every SNIA round, the samples so
//! far go through `analysis::predict`; with `--until-predicted` the run ends once the interval
//! is within ±5 %.

use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::Arc;

use crate::analysis::predict::{predict, Setting, WaCurve};
use crate::results::{Prediction, RunInfo};
use crate::stats::steady::Criteria;
use crate::stats::Sample;

/// Half-width, percent, at which `--until-predicted` ends the run.
pub const UNTIL_PREDICTED_PCT: f64 = 5.0;

pub(super) struct Predictor {
    samples: Vec<Sample>,
    /// The model's WA curve, made at the first round's end: it takes about 0.1 s of CPU, which
    /// a run shorter than a round (a `measure`, a sweep point) never needs to spend.
    curve: Option<WaCurve>,
    setting: Setting,
    /// The round grid number of the last prediction.
    round: u64,
    last: Option<Prediction>,
    /// When the first prediction was made.
    first_at: Option<f64>,
    stop: Option<Arc<AtomicBool>>,
}

impl Predictor {
    /// A predictor for runs of uniform random writes only (the model's workload); `previous`
    /// are the samples of a run continued after a crash.
    pub(super) fn of(info: &RunInfo, criteria: Criteria, previous: &[Sample]) -> Option<Self> {
        Some(Predictor {
            samples: previous.to_vec(),
            curve: None,
            setting: Setting::of(info, criteria)?,
            round: 0,
            last: None,
            first_at: None,
            stop: None,
        })
    }

    /// The same predictor ending the run through `flag` once its interval is narrow enough.
    pub(super) fn stopping(mut self, flag: Option<Arc<AtomicBool>>) -> Self {
        self.stop = flag;
        self
    }

    /// Adds a sample; returns the new prediction when a round ended with one.
    pub(super) fn push(&mut self, sample: &Sample) -> Option<&Prediction> {
        self.samples.push(sample.clone());
        let round = (sample.t_end_s / self.setting.criteria.round_s).floor() as u64;
        if round == self.round {
            return None;
        }
        self.round = round;
        let setting = &self.setting;
        if self.curve.is_none() {
            // None when the run was asked to stop while the model ran: it ends now anyway.
            self.curve = setting.curve();
        }
        let curve = self.curve.as_ref()?;
        self.last = predict(&self.samples, curve, setting).map(|mut p| {
            p.first_made_at_s = Some(*self.first_at.get_or_insert(p.made_at_s));
            p
        });
        let p = self.last.as_ref()?;
        if p.half_width_pct <= UNTIL_PREDICTED_PCT {
            if let Some(flag) = &self.stop {
                flag.store(true, Ordering::Relaxed);
            }
        }
        Some(p)
    }

    pub(super) fn last(self) -> Option<Prediction> {
        self.last
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::stats::IntervalStats;

    fn predictor() -> Predictor {
        Predictor {
            samples: Vec::new(),
            curve: None,
            setting: Setting {
                span: 1 << 30,
                span_alpha: 1.28,
                unit: 1,
                straddle: 1.0,
                fast: None,
                rounds_start: 1 << 30,
                criteria: Criteria::default(),
                plan_s: None,
                plan_bytes: None,
            },
            round: 0,
            last: None,
            first_at: None,
            stop: None,
        }
    }

    #[test]
    fn a_run_shorter_than_a_round_never_runs_the_model_drive() {
        let mut p = predictor();
        let round_s = p.setting.criteria.round_s;
        let stats = IntervalStats::new();
        for i in 0..(round_s as u64 - 1) {
            p.push(&Sample::new(i, i as f64, i as f64 + 1.0, &stats, 0));
        }
        assert!(p.curve.is_none(), "the model ran before a round ended");
        let i = round_s as u64;
        p.push(&Sample::new(i, round_s, round_s + 1.0, &stats, 0));
        assert!(p.curve.is_some(), "the first round's end runs the model");
    }
}
