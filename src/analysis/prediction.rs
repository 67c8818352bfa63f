//! How a run's steady-state prediction (run.json's `prediction`) compares with what the run
//! then measured: SNIA's steady window (its IOPS and when it passed) and, once the run wrote
//! its span twice, the mean over its last span-write (the settled level). The report prints
//! these figures; the chart draws the prediction.

use crate::results::{Basis, Prediction, Run};
use crate::stats::steady::{Criteria, SteadyState};
use crate::units::format_count;

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

/// SNIA's test passed on a level the prediction says the drive will leave: the predicted
/// settled level lies further from the window's average than SNIA's own slope limit (10 %).
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Onward {
    /// The steady window's average IOPS.
    pub window_iops: f64,
    /// The predicted settled IOPS and its interval.
    pub iops: f64,
    pub low: f64,
    pub high: f64,
}

impl Onward {
    /// Whether the drive is predicted to fall further (else to rise).
    pub fn falls(&self) -> bool {
        self.iops < self.window_iops
    }

    /// The predicted level against the window, percent of the window.
    pub fn change_pct(&self) -> f64 {
        100.0 * (self.iops / self.window_iops - 1.0)
    }

    /// Whether the window lies outside the prediction's interval (else the interval still
    /// holds it, and the fall is the model's best guess only).
    pub fn certain(&self) -> bool {
        !(self.low..=self.high).contains(&self.window_iops)
    }

    /// "the model predicts a further fall to about 35100 IOPS (31000–39500, −39 %)"; where the
    /// interval still holds the window, it says so.
    pub fn words(&self) -> String {
        let change = format!(
            "a further {} to about {} IOPS",
            if self.falls() { "fall" } else { "rise" },
            format_count(self.iops),
        );
        if self.certain() {
            format!(
                "the model predicts {change} ({}–{}, {:+.0} %)",
                format_count(self.low),
                format_count(self.high),
                self.change_pct()
            )
        } else {
            format!(
                "the model's best guess is {change} ({:+.0} %), though its interval ({}–{}) still holds this window",
                self.change_pct(),
                format_count(self.low),
                format_count(self.high)
            )
        }
    }
}

/// Where SNIA's test passed (`steady`) on a level the settled level predicted (`prediction`)
/// lies more than SNIA's slope limit from: a slowly falling plateau passes SNIA's range and
/// slope limits (the rule stays as SNIA defines it), and the prediction says where the drive
/// goes on to. `None` when the test did not pass, the run went on and measured the level leave
/// the window itself (the steady state "did not hold"), the prediction is not of a settled
/// level (a throttled drive's), or it lies within the slope limit of the window.
pub fn onward(steady: &SteadyState, p: &Prediction) -> Option<Onward> {
    let window_iops = steady.iops.filter(|_| steady.reached)?;
    if steady.drift_pct().is_some() {
        return None;
    }
    let off = 100.0 * (p.iops / window_iops - 1.0).abs();
    (p.basis == Basis::Settled && off > Criteria::default().max_slope_pct).then_some(Onward {
        window_iops,
        iops: p.iops,
        low: p.low,
        high: p.high,
    })
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
    use crate::results::Model;

    fn settled(iops: f64, low: f64, high: f64) -> Prediction {
        Prediction {
            iops,
            low,
            high,
            half_width_pct: 100.0 * (high - low) / 2.0 / iops,
            write_amplification: 3.0,
            span_alpha: 1.28,
            steady_at_s: None,
            steady_at_bytes: None,
            made_at_s: 0.0,
            made_at_bytes: 0,
            first_made_at_s: None,
            basis: Basis::Settled,
            rise_us_per_h: None,
            model: Model::Greedy,
        }
    }

    fn passed_at(iops: f64) -> SteadyState {
        SteadyState {
            reached: true,
            iops: Some(iops),
            ..SteadyState::default()
        }
    }

    fn window(avg: f64) -> crate::stats::steady::Window {
        crate::stats::steady::Window {
            start_s: 0.0,
            end_s: 300.0,
            avg,
            range_pct: 0.0,
            slope_pct: 0.0,
        }
    }

    #[test]
    fn a_pass_above_the_predicted_interval_is_told_as_a_further_fall() {
        // dc-ssd-400g at 100 % after slow preconditioning: SNIA passes at 57,735 IOPS on a
        // slowly falling plateau; the drive settles near 35,000.
        let p = settled(35_000.0, 31_000.0, 39_500.0);
        let o = onward(&passed_at(57_735.0), &p).expect("still falling");
        assert!(o.falls());
        assert_eq!(
            o.words(),
            "the model predicts a further fall to about 35000 IOPS (31000–39500, -39 %)"
        );
        // Within SNIA's slope limit of the window: nothing to add to SNIA's verdict.
        assert_eq!(onward(&passed_at(38_000.0), &p), None);
        // Far off, but the interval is wide enough to hold the window: the fall is the
        // model's best guess, and the line says the interval holds the window.
        let wide = settled(32_421.0, 16_418.0, 324_208.0);
        let o = onward(&passed_at(57_698.0), &wide).expect("a best guess");
        assert!(o.falls() && !o.certain());
        assert_eq!(
            o.words(),
            "the model's best guess is a further fall to about 32421 IOPS (-44 %), though its interval (16418–324208) still holds this window"
        );
        // The run went on and measured the fall itself: nothing is left to predict.
        let measured = SteadyState {
            window: Some(window(57_735.0)),
            last_window: Some(window(35_100.0)),
            ..passed_at(57_735.0)
        };
        assert_eq!(onward(&measured, &p), None);
        // Not passed: no window to go on from.
        let not = SteadyState {
            reached: false,
            ..passed_at(57_735.0)
        };
        assert_eq!(onward(&not, &p), None);
        // A throttled drive's level at the plan's end is not a settled level.
        let plan_end = Prediction {
            basis: Basis::PlanEnd,
            ..p
        };
        assert_eq!(onward(&passed_at(57_735.0), &plan_end), None);
    }

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
                model: Model::Greedy,
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
