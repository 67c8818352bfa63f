//! How a run's steady-state prediction (run.json's `prediction`) compares with what the run
//! then measured: SNIA's steady window (its IOPS and when it passed) and, once the run wrote
//! its span twice, the mean over its last span-write (the settled level). The report prints
//! these figures; the chart draws the prediction.

use crate::results::{Basis, Prediction, Run};

/// The run's end a plan-end prediction is judged against: its last SNIA round, seconds.
const END_S: f64 = 60.0;

/// The prediction of a run and the measured figures it is judged against.
#[derive(Clone, Debug, PartialEq)]
pub struct PredictionCheck {
    pub prediction: Prediction,
    /// SNIA's steady window: its average IOPS and when it passed (seconds since the start).
    pub steady_iops: Option<f64>,
    pub steady_at_s: Option<f64>,
    /// Mean IOPS over the last span-write, when the run wrote its span at least twice.
    pub settled_iops: Option<f64>,
    /// Mean IOPS over the run's last minute (one SNIA round), when the prediction is of the
    /// plan's end and the run completed its plan.
    pub end_iops: Option<f64>,
}

impl PredictionCheck {
    /// The check of `run`; None when the run made no prediction.
    pub fn of(run: &Run) -> Option<PredictionCheck> {
        let prediction = run.info.prediction.clone()?;
        let steady = run.info.steady_state.as_ref().filter(|s| s.reached);
        let span = run.info.workload.span;
        let total = run.samples.last().map_or(0, |s| s.bytes_written_total);
        let settled_iops = (span > 0 && total >= 2 * span)
            .then(|| {
                let last: Vec<_> = run
                    .samples
                    .iter()
                    .filter(|s| s.bytes_written_total > total - span)
                    .collect();
                let ops: u64 = last.iter().map(|s| s.ops).sum();
                let secs: f64 = last.iter().map(|s| s.t_end_s - s.t_start_s).sum();
                (secs > 0.0).then(|| ops as f64 / secs)
            })
            .flatten();
        let end = run.samples.last().map_or(0.0, |s| s.t_end_s);
        let end_iops = (prediction.basis == Basis::PlanEnd
            && run.info.status == crate::results::Status::Completed)
            .then(|| {
                let last = run.samples.iter().filter(|s| s.t_start_s >= end - END_S);
                let (ops, secs) = last.fold((0, 0.0), |(o, t), s| {
                    (o + s.ops, t + s.t_end_s - s.t_start_s)
                });
                (secs > 0.0).then(|| ops as f64 / secs)
            })
            .flatten();
        Some(PredictionCheck {
            end_iops,
            prediction,
            steady_iops: steady.and_then(|s| s.iops),
            steady_at_s: steady.and_then(|s| s.at_s),
            settled_iops,
        })
    }

    /// `measured` against the prediction: the error in percent of the measured, and whether
    /// it lies inside the interval.
    pub fn against(&self, measured: f64) -> (f64, bool) {
        let p = &self.prediction;
        (
            (p.iops / measured - 1.0) * 100.0,
            (p.low..=p.high).contains(&measured),
        )
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_measured_level_is_judged_by_the_interval() {
        let check = PredictionCheck {
            prediction: Prediction {
                iops: 1000.0,
                low: 900.0,
                high: 1100.0,
                half_width_pct: 10.0,
                write_amplification: 3.0,
                span_alpha: 1.2,
                steady_at_s: None,
                steady_at_bytes: None,
                made_at_s: 0.0,
                made_at_bytes: 0,
                first_made_at_s: None,
                basis: Basis::Settled,
                rise_us_per_h: None,
            },
            steady_iops: None,
            steady_at_s: None,
            settled_iops: None,
            end_iops: None,
        };
        let (err, inside) = check.against(800.0);
        assert!((err - 25.0).abs() < 1e-9 && !inside);
        let (err, inside) = check.against(1000.0);
        assert!(err.abs() < 1e-9 && inside);
    }
}
