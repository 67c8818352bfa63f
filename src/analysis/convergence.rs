//! SNIA PTS's steady-state convergence of a run: its rounds (IOPS, and total host data written
//! by each round's end, TGBW), the measurement window the run recorded (its first steady
//! window, or the last one evaluated when it reached none), the window's average and the
//! least-squares line through its rounds. The rounds are the run's own tracker's, run again
//! over the saved samples; the steady-state chart draws these figures.

use serde::Serialize;

use crate::results::Run;
use crate::stats::steady::{fit, Criteria, Round, SteadyTracker};

/// One round of the convergence plot.
#[derive(Clone, Copy, Debug, PartialEq, Serialize)]
pub struct ConvergenceRound {
    /// Round number: the n-th round of the run's time, from 1 (rounds before the span was
    /// written once, or before a fast preconditioning ended, are not counted as rounds but
    /// keep their numbers).
    pub number: usize,
    /// Start and end of the round, seconds on the run's clock.
    pub start_s: f64,
    pub end_s: f64,
    pub iops: f64,
    /// Total host data written by the round's end (TGBW).
    pub tgbw_bytes: u64,
}

/// The convergence of a run towards steady state.
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct Convergence {
    pub rounds: Vec<ConvergenceRound>,
    /// The rounds of the run's time before it counted any (the span's first pass, a fast
    /// preconditioning): drawn for context, never judged.
    pub before: Vec<ConvergenceRound>,
    /// The measurement window: indices into `rounds`.
    pub window: std::ops::Range<usize>,
    /// Whether the window met SNIA's criteria.
    pub reached: bool,
    /// The window's average IOPS.
    pub average: f64,
    /// Slope of the least-squares line through the window's rounds, IOPS per round.
    pub slope_per_round: f64,
    /// The window's range (max − min) and the excursion of its line, percent of its average.
    pub range_pct: f64,
    pub slope_pct: f64,
    /// SNIA's limits for them, percent.
    pub max_range_pct: f64,
    pub max_slope_pct: f64,
    /// The run's last window when the steady state did not hold
    /// ([`crate::stats::steady::SteadyState::drift_pct`]); None when it held.
    pub did_not_hold: Option<LastWindow>,
}

/// The run's last window, drawn beside a steady window that did not hold.
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct LastWindow {
    /// Indices into `rounds`.
    pub window: std::ops::Range<usize>,
    /// Its average IOPS, as run.json records it.
    pub average: f64,
    /// Its average against the steady window's, percent.
    pub drift_pct: f64,
}

impl Convergence {
    /// The convergence of `run`; None unless it evaluated a window (a run that wrote for at
    /// least as many rounds as a window holds).
    pub fn of(run: &Run) -> Option<Convergence> {
        let recorded = run.info.steady_state.as_ref()?;
        let w = recorded.window?;
        let defaults = Criteria::default();
        let criteria = Criteria {
            round_s: (w.end_s - w.start_s) / defaults.window_rounds as f64,
            ..defaults
        };
        // The rounds as the run counted them.
        let size = run.info.target.identity.size_bytes;
        let rounds_after = |bytes: u64| {
            let mut tracker = SteadyTracker::new(criteria, size).after_bytes(bytes);
            for sample in &run.samples {
                tracker.push(sample);
            }
            tracker.into_rounds()
        };
        let half = criteria.round_s / 2.0;
        let starting_at = |rounds: &[Round], start_s: f64| {
            rounds
                .iter()
                .position(|r| (r.start_s - start_s).abs() < half)
        };
        let by_rule = rounds_after(run.info.rounds_start_bytes());
        // A run recorded before today's rule counted its rounds from its first interval: its
        // window is drawn as it was judged.
        let all = if starting_at(&by_rule, w.start_s).is_some() {
            by_rule
        } else {
            rounds_after(0)
        };
        let counted_from = all.first().map_or(f64::INFINITY, |r| r.start_s);
        let before = rounds_after(0)
            .into_iter()
            .take_while(|r| r.end_s <= counted_from);
        let at = |start_s: f64| starting_at(&all, start_s);
        let first = at(w.start_s)?;
        let window = first..first + defaults.window_rounds;
        let did_not_hold =
            recorded
                .drift_pct()
                .zip(recorded.last_window)
                .and_then(|(drift_pct, last)| {
                    let first = at(last.start_s)?;
                    Some(LastWindow {
                        window: first..(first + defaults.window_rounds).min(all.len()),
                        average: last.avg,
                        drift_pct,
                    })
                });
        let (average, slope_per_round) = fit(all.get(window.clone())?);
        let round = |r: &Round| ConvergenceRound {
            number: (r.start_s / criteria.round_s).round() as usize + 1,
            start_s: r.start_s,
            end_s: r.end_s,
            iops: r.iops,
            tgbw_bytes: r.bytes_written_total,
        };
        Some(Convergence {
            rounds: all.iter().map(round).collect(),
            before: before.map(|r| round(&r)).collect(),
            window,
            reached: recorded.reached,
            average,
            slope_per_round,
            range_pct: w.range_pct,
            slope_pct: w.slope_pct,
            max_range_pct: defaults.max_range_pct,
            max_slope_pct: defaults.max_slope_pct,
            did_not_hold,
        })
    }

    /// The rounds of the measurement window.
    pub fn window_rounds(&self) -> &[ConvergenceRound] {
        &self.rounds[self.window.clone()]
    }

    /// The fitted line's IOPS at the window round `i` (0 = the window's first).
    pub fn line_at(&self, i: usize) -> f64 {
        let middle = (self.window.len() as f64 - 1.0) / 2.0;
        self.average + self.slope_per_round * (i as f64 - middle)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::results::{Command, RunInfo, TargetRecord};
    use crate::stats::steady::detect;
    use crate::stats::{IntervalStats, Sample};

    /// A run of 10 s samples at `iops` each (4 KiB writes) over a 1 GB span, its steady state
    /// detected with 10 s rounds as the run's tracker would.
    fn run(iops: &[f64]) -> Run {
        let mut written = 0;
        let samples: Vec<Sample> = iops
            .iter()
            .enumerate()
            .map(|(i, &v)| {
                let ops = (v * 10.0) as u64;
                let mut stats = IntervalStats::new();
                stats.write.record_n(ops, ops * 4096, 1_000);
                let t = i as f64 * 10.0;
                let s = Sample::new(i as u64, t, t + 10.0, &stats, written);
                written += ops * 4096;
                s
            })
            .collect();
        let criteria = Criteria {
            round_s: 10.0,
            ..Criteria::default()
        };
        let target = TargetRecord {
            path: "t".into(),
            identity: Default::default(),
        };
        let mut info = RunInfo::started(Command::Soak, target, Default::default(), "sim", None);
        info.steady_state = Some(detect(&samples, criteria, 0));
        Run {
            dir: "r".into(),
            info,
            samples,
        }
    }

    /// Falling 6000 → 1000 and then rising 1 % a round: the window is the recorded one, its
    /// average and line the least squares of its five rounds, computed here from the
    /// definition.
    #[test]
    fn the_window_and_its_line_are_the_recorded_windows_rounds() {
        let mut iops = vec![6000.0, 4000.0, 2500.0, 1500.0];
        iops.extend((0..8).map(|k| 1000.0 * (1.0 + 0.01 * k as f64)));
        let r = run(&iops);
        let recorded = r.info.steady_state.clone().unwrap();
        assert!(recorded.reached);
        let c = Convergence::of(&r).unwrap();
        assert_eq!(c.rounds.len(), iops.len());
        assert_eq!(c.rounds[5].number, 6);
        let w = recorded.window.unwrap();
        let rounds = c.window_rounds();
        assert_eq!((rounds[0].start_s, rounds[4].end_s), (w.start_s, w.end_s));
        let values: Vec<f64> = rounds.iter().map(|r| r.iops).collect();
        let avg = values.iter().sum::<f64>() / 5.0;
        let slope = (-2.0 * values[0] - values[1] + values[3] + 2.0 * values[4]) / 10.0;
        assert!((c.average - avg).abs() < 1e-6, "{} {avg}", c.average);
        assert!((c.average - w.avg).abs() < 1e-6);
        assert!((c.slope_per_round - slope).abs() < 1e-6, "{c:?}");
        assert!((c.line_at(0) - (avg - 2.0 * slope)).abs() < 1e-6);
        assert!((c.line_at(4) - (avg + 2.0 * slope)).abs() < 1e-6);
        assert_eq!(
            rounds[4].tgbw_bytes,
            r.samples[c.window.end - 1].bytes_written_total
        );
    }

    /// A run that writes its span once before its rounds count (a purged drive's first pass,
    /// a fast preconditioning) keeps those rounds apart, before the counted ones, so the chart
    /// shows more than the window of a run that settles at once.
    #[test]
    fn the_rounds_before_the_span_was_written_once_are_kept_apart() {
        let mut iops = vec![9000.0, 9000.0, 9000.0];
        iops.extend([1000.0; 5]);
        let mut r = run(&iops);
        // The span: what the first three samples wrote.
        r.info.workload.span = r.samples[2].bytes_written_total;
        r.info.steady_state = Some(detect(
            &r.samples,
            Criteria {
                round_s: 10.0,
                ..Criteria::default()
            },
            0,
        ));
        let c = Convergence::of(&r).unwrap();
        assert_eq!(c.rounds.len(), 5);
        assert_eq!(c.window, 0..5);
        let before: Vec<(usize, f64)> = c.before.iter().map(|b| (b.number, b.iops)).collect();
        assert_eq!(before, [(1, 9000.0), (2, 9000.0), (3, 9000.0)]);
        assert_eq!(c.rounds[0].number, 4);
    }

    /// A run that never settles has the last window evaluated, marked not reached.
    #[test]
    fn a_run_that_never_settles_shows_its_last_window() {
        let iops: Vec<f64> = (0..9).map(|k| 1000.0 * 0.8f64.powi(k)).collect();
        let c = Convergence::of(&run(&iops)).unwrap();
        assert!(!c.reached);
        assert_eq!(c.window, 4..9);
        assert!(c.slope_per_round < 0.0);
    }

    /// Steady at 1000 for ten rounds, then 400: the steady window is the first, and the run's
    /// last window, 60 % lower, is kept with run.json's average and drift, so the chart can
    /// show that the level did not hold.
    #[test]
    fn a_level_that_fell_after_the_steady_window_keeps_the_last_window() {
        let mut iops = vec![1000.0; 10];
        iops.extend([400.0; 10]);
        let r = run(&iops);
        let recorded = r.info.steady_state.clone().unwrap();
        let c = Convergence::of(&r).unwrap();
        assert_eq!(c.window, 0..5);
        let last = c.did_not_hold.clone().unwrap();
        assert_eq!(last.window, 15..20);
        assert_eq!(last.average, recorded.last_window.unwrap().avg);
        assert_eq!(Some(last.drift_pct), recorded.drift_pct());
        let held = Convergence::of(&run(&[1000.0; 20])).unwrap();
        assert_eq!(held.did_not_hold, None);
    }

    /// Fewer rounds than a window: nothing to draw.
    #[test]
    fn fewer_rounds_than_a_window_have_no_convergence() {
        assert_eq!(Convergence::of(&run(&[1000.0; 4])), None);
    }
}
