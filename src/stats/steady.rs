//! Steady state as SNIA PTS 2.0 defines it (§2.1.24): the samples of a run are grouped into
//! rounds (one minute by default), and the drive is steady when a window of five consecutive
//! rounds has a range (max − min) within 20 % of the window's average and the excursion of its
//! least-squares line across the window (|slope| × (rounds − 1)) within 10 % of the average.
//!
//! [`SteadyTracker`] is fed samples as a run takes them (so a soak can stop when steady);
//! [`detect`] runs the same tracker over a saved series.

use serde::{Deserialize, Serialize};

use super::Sample;

/// The SNIA criteria; [`SNIA`] (and [`Criteria::default`]) is PTS 2.0's.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Criteria {
    /// Length of one round, seconds.
    pub round_s: f64,
    /// Rounds in the measurement window.
    pub window_rounds: usize,
    /// Largest allowed range (max − min), percent of the window average.
    pub max_range_pct: f64,
    /// Largest allowed excursion of the fitted line across the window, percent of the average.
    pub max_slope_pct: f64,
}

/// PTS 2.0's rule: rounds of one minute, five in the window, range ≤ 20 % and slope excursion
/// ≤ 10 % of the window's average. Every kind judges its windows by it ([`Criteria::window`]).
pub const SNIA: Criteria = Criteria {
    round_s: 60.0,
    window_rounds: 5,
    max_range_pct: 20.0,
    max_slope_pct: 10.0,
};

impl Default for Criteria {
    fn default() -> Self {
        SNIA
    }
}

impl Criteria {
    /// The rule on one window of levels (IOPS or MB/s per round, in order): its average, range
    /// and slope excursion ([`Window`], times left at 0) and whether it holds.
    pub fn window(&self, levels: &[f64]) -> (Window, bool) {
        let rounds: Vec<Round> = levels
            .iter()
            .map(|&iops| Round {
                start_s: 0.0,
                end_s: 0.0,
                iops,
                bytes_written_total: 0,
            })
            .collect();
        let w = evaluate(&rounds);
        (w, self.holds(&w))
    }

    /// Whether `w` meets the rule: range and slope excursion within their limits.
    pub fn holds(&self, w: &Window) -> bool {
        w.range_pct <= self.max_range_pct && w.slope_pct <= self.max_slope_pct
    }
}

/// One round: the IOPS over its samples and the bytes written by its end.
#[derive(Clone, Copy, Debug, PartialEq, Serialize, Deserialize)]
pub struct Round {
    pub start_s: f64,
    pub end_s: f64,
    pub iops: f64,
    pub bytes_written_total: u64,
}

/// A window of rounds and how far it is from steady.
#[derive(Clone, Copy, Debug, PartialEq, Serialize, Deserialize, schemars::JsonSchema)]
pub struct Window {
    pub start_s: f64,
    pub end_s: f64,
    /// Average IOPS over the window's rounds.
    pub avg: f64,
    /// (max − min) / avg, percent.
    pub range_pct: f64,
    /// |fitted slope| × (rounds − 1) / avg, percent.
    pub slope_pct: f64,
}

/// What `run.json` records: whether and when the run reached steady state. When it did not,
/// `window` is the last window evaluated (how close it came), or absent with fewer rounds than
/// one window.
#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize, schemars::JsonSchema)]
pub struct SteadyState {
    pub reached: bool,
    /// End of the first steady window, seconds since the run started.
    pub at_s: Option<f64>,
    pub bytes_written: Option<u64>,
    /// Bytes written by then over the target's capacity.
    pub drive_fills: Option<f64>,
    /// Bytes written by then over the drive's flash (physical drive writes), when the flash
    /// size is known: reported by the drive, or assumed by a fast preconditioning.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub flash_fills: Option<f64>,
    /// The steady window's average IOPS.
    pub iops: Option<f64>,
    pub window: Option<Window>,
    pub rounds: usize,
    /// The run's last window of rounds, when steady state was reached earlier: whether the
    /// level held to the end of the run.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub last_window: Option<Window>,
}

impl SteadyState {
    /// How far the run's last window lies from the steady window, percent of the steady
    /// window's average, when it lies further than SNIA's slope limit (10 %): the steady state
    /// did not hold. `None` when it held or was not reached.
    pub fn drift_pct(&self) -> Option<f64> {
        let (steady, last) = (self.window?, self.last_window?);
        let drift = 100.0 * (last.avg - steady.avg) / steady.avg;
        (self.reached && drift.abs() > Criteria::default().max_slope_pct).then_some(drift)
    }
}

/// The round a tracker is filling.
#[derive(Clone, Copy, Debug)]
struct OpenRound {
    grid: u64,
    ops: u64,
    seconds: f64,
    bytes: u64,
    end_s: f64,
}

/// Groups samples into rounds on a fixed grid and evaluates the window after every round.
#[derive(Clone, Debug)]
pub struct SteadyTracker {
    criteria: Criteria,
    capacity_bytes: u64,
    /// The drive's flash, bytes, when known (0: not known).
    flash_bytes: u64,
    rounds: Vec<Round>,
    /// The round being filled: its grid number, ops, seconds covered and bytes written so
    /// far, and where its last sample ended.
    open: Option<OpenRound>,
    result: SteadyState,
    /// Samples that start before this many bytes are written (a preconditioning) are no
    /// rounds.
    after_bytes: u64,
    /// Thermally throttled samples are no part of a round: their level is the drive's cooling.
    throttle: super::throttled::ThrottleTracker,
}

impl SteadyTracker {
    pub fn new(criteria: Criteria, capacity_bytes: u64) -> Self {
        SteadyTracker {
            criteria,
            capacity_bytes,
            flash_bytes: 0,
            rounds: Vec::new(),
            open: None,
            result: SteadyState::default(),
            after_bytes: 0,
            throttle: Default::default(),
        }
    }

    /// The same tracker ignoring samples that start before `bytes` are written: rounds start
    /// once the preconditioning is done.
    pub fn after_bytes(mut self, bytes: u64) -> Self {
        self.after_bytes = bytes;
        self
    }

    /// The same tracker stating the bytes written over `flash` too (physical drive writes).
    pub fn flash_bytes(mut self, flash: Option<u64>) -> Self {
        self.flash_bytes = flash.unwrap_or(0);
        self
    }

    /// Adds one sample; a sample belongs to the round its midpoint falls in, unless the drive
    /// was thermally throttled during it ([`super::throttled`]), which no round counts. Returns
    /// true the first time steady state is reached.
    pub fn push(&mut self, sample: &Sample) -> bool {
        if self.throttle.push(sample) {
            return false;
        }
        let written = sample.write.as_ref().map_or(0, |w| w.bytes);
        self.push_interval(
            sample.t_start_s..sample.t_end_s,
            sample.ops,
            sample.bytes_written_total.saturating_sub(written),
            sample.bytes_written_total,
        )
    }

    /// Adds one interval given by its figures: its time, its I/Os, and the bytes written
    /// before it started and by its end (a sample, or one that a prediction runs ahead).
    pub fn push_interval(
        &mut self,
        t: std::ops::Range<f64>,
        ops: u64,
        bytes_before: u64,
        bytes_total: u64,
    ) -> bool {
        if bytes_before < self.after_bytes {
            return false;
        }
        let round_s = self.criteria.round_s;
        let mid = (t.start + t.end) / 2.0;
        let grid = (mid / round_s).floor().max(0.0) as u64;
        let seconds = (t.end - t.start).max(0.0);
        let mut newly = false;
        match &mut self.open {
            Some(open) if open.grid == grid => {
                open.ops += ops;
                open.seconds += seconds;
                open.bytes = bytes_total;
                open.end_s = t.end;
            }
            _ => {
                newly = self.close_round();
                self.open = Some(OpenRound {
                    grid,
                    ops,
                    seconds,
                    bytes: bytes_total,
                    end_s: t.end,
                });
            }
        }
        // A round whose samples reach its end is complete now, not when the next one starts.
        if let Some(open) = self.open {
            if t.end >= (open.grid + 1) as f64 * round_s - 1e-9 {
                newly |= self.close_round();
            }
        }
        newly
    }

    /// The state at the run's end. A round the run's end cut short (it stopped before the
    /// round's grid end: a byte budget, a time limit, Ctrl-C) is no round: it is neither
    /// counted nor in a window ([`super::WHOLE_SHARE`]).
    pub fn finish(mut self) -> SteadyState {
        self.close_last_round();
        self.result
    }

    pub fn state(&self) -> &SteadyState {
        &self.result
    }

    /// Every round of the run, as [`Self::finish`] counts them (a round cut short by the
    /// run's end is none).
    pub fn into_rounds(mut self) -> Vec<Round> {
        self.close_last_round();
        self.rounds
    }

    /// Closes the round still open at the run's end when it ran (nearly) to its grid end, and
    /// drops it when the end cut it short.
    fn close_last_round(&mut self) {
        let Some(open) = self.open else { return };
        let round_s = self.criteria.round_s;
        let short_by = (open.grid + 1) as f64 * round_s - open.end_s;
        if short_by <= (1.0 - super::WHOLE_SHARE) * round_s {
            self.close_round();
        } else {
            self.open = None;
        }
    }

    fn close_round(&mut self) -> bool {
        let Some(OpenRound {
            grid,
            ops,
            seconds,
            bytes,
            ..
        }) = self.open.take()
        else {
            return false;
        };
        // A round covering less than half its length (a gap or a short run's tail) is not a
        // measurement of the drive's state: it is dropped rather than skewing the window.
        if seconds < self.criteria.round_s / 2.0 {
            return false;
        }
        let start_s = grid as f64 * self.criteria.round_s;
        self.rounds.push(Round {
            start_s,
            end_s: start_s + self.criteria.round_s,
            iops: ops as f64 / seconds,
            bytes_written_total: bytes,
        });
        self.result.rounds = self.rounds.len();
        let n = self.criteria.window_rounds;
        if self.result.reached {
            let last = evaluate(&self.rounds[self.rounds.len() - n..]);
            self.result.last_window = Some(last);
            return false;
        }
        if self.rounds.len() < n {
            return false;
        }
        let window_rounds = &self.rounds[self.rounds.len() - n..];
        let window = evaluate(window_rounds);
        self.result.window = Some(window);
        let steady = self.criteria.holds(&window);
        if steady {
            let last = window_rounds[n - 1];
            self.result.reached = true;
            self.result.at_s = Some(window.end_s);
            self.result.bytes_written = Some(last.bytes_written_total);
            self.result.drive_fills = (self.capacity_bytes > 0)
                .then(|| last.bytes_written_total as f64 / self.capacity_bytes as f64);
            self.result.flash_fills = (self.flash_bytes > 0)
                .then(|| last.bytes_written_total as f64 / self.flash_bytes as f64);
            self.result.iops = Some(window.avg);
        }
        steady
    }
}

/// The least-squares line through a window's rounds over x = 0, 1, … n−1: the window's average
/// IOPS (the line's value at the middle round) and its slope, IOPS per round.
pub fn fit(rounds: &[Round]) -> (f64, f64) {
    let n = rounds.len() as f64;
    let avg = rounds.iter().map(|r| r.iops).sum::<f64>() / n;
    let x_mean = (n - 1.0) / 2.0;
    let (mut sxy, mut sxx) = (0.0, 0.0);
    for (i, r) in rounds.iter().enumerate() {
        let dx = i as f64 - x_mean;
        sxy += dx * (r.iops - avg);
        sxx += dx * dx;
    }
    (avg, if sxx > 0.0 { sxy / sxx } else { 0.0 })
}

/// The range and slope excursion of a window of rounds.
pub fn evaluate(rounds: &[Round]) -> Window {
    let n = rounds.len() as f64;
    let (avg, slope) = fit(rounds);
    let max = rounds.iter().map(|r| r.iops).fold(f64::MIN, f64::max);
    let min = rounds.iter().map(|r| r.iops).fold(f64::MAX, f64::min);
    let pct = |v: f64| {
        if avg > 0.0 {
            100.0 * v / avg
        } else {
            f64::INFINITY
        }
    };
    Window {
        start_s: rounds[0].start_s,
        end_s: rounds[rounds.len() - 1].end_s,
        avg,
        range_pct: pct(max - min),
        slope_pct: pct(slope.abs() * (n - 1.0)),
    }
}

/// The bytes a run writes before its rounds count: a fast preconditioning's plan, or else the
/// span written once and, where the drive's flash is known, the flash filled once. Before that a
/// purged drive has not yet had to collect garbage: its fresh plateau is no steady state.
pub fn rounds_start_bytes(precondition_bytes: Option<u64>, span: u64, flash: Option<u64>) -> u64 {
    match precondition_bytes {
        Some(plan) => plan.max(span),
        None => span.max(flash.unwrap_or(0)),
    }
}

/// Steady state of a saved series of samples.
pub fn detect(samples: &[Sample], criteria: Criteria, capacity_bytes: u64) -> SteadyState {
    let mut tracker = SteadyTracker::new(criteria, capacity_bytes);
    for sample in samples {
        tracker.push(sample);
    }
    tracker.finish()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn snias_rule_holds_within_twenty_percent_range_and_ten_percent_slope_only() {
        // Within both: range 19.98 %, slope excursion 8 % of the average.
        let (w, holds) = SNIA.window(&[1000.0, 1100.0, 904.0, 1100.0, 900.0]);
        assert!(holds && (w.avg - 1000.8).abs() < 1e-9, "{w:?}");
        // A range just over 20 % of the average.
        assert!(!SNIA.window(&[1000.0, 1110.0, 900.0, 1000.0, 990.0]).1);
        // Rising 3 % a round: range 12 %, slope excursion 12 % of the average.
        let (w, holds) = SNIA.window(&[940.0, 970.0, 1000.0, 1030.0, 1060.0]);
        assert!(!holds && (w.slope_pct - 12.0).abs() < 1e-9, "{w:?}");
        assert_eq!(Criteria::default(), SNIA);
    }

    /// One-second samples with the given IOPS, 4 KiB per write.
    fn series(iops: impl IntoIterator<Item = f64>) -> Vec<Sample> {
        let mut total = 0;
        iops.into_iter()
            .enumerate()
            .map(|(i, iops)| {
                let ops = iops.round() as u64;
                total += ops * 4096;
                Sample {
                    index: i as u64,
                    t_start_s: i as f64,
                    t_end_s: i as f64 + 1.0,
                    ops,
                    bytes: ops * 4096,
                    iops,
                    mb_per_s: 0.0,
                    lat_us: None,
                    read: None,
                    write: None,
                    trim: None,
                    errors: 0,
                    error_events: Vec::new(),
                    bytes_written_total: total,
                    pacing: None,
                    stopped_s: None,
                    suspended_s: None,
                    nand_bytes: None,
                    health: None,
                }
            })
            .collect()
    }

    fn ten_second_rounds() -> Criteria {
        Criteria {
            round_s: 10.0,
            ..Criteria::default()
        }
    }

    #[test]
    fn the_bytes_to_steady_are_told_over_the_flash_too() {
        let mut t =
            SteadyTracker::new(ten_second_rounds(), 4096 * 10_000).flash_bytes(Some(4096 * 20_000));
        for s in series(std::iter::repeat_n(1000.0, 100)) {
            t.push(&s);
        }
        let st = t.finish();
        assert_eq!((st.drive_fills, st.flash_fills), (Some(5.0), Some(2.5)));
    }

    #[test]
    fn a_level_that_falls_after_the_steady_window_did_not_hold() {
        let held = detect(
            &series(std::iter::repeat_n(1000.0, 200)),
            ten_second_rounds(),
            0,
        );
        assert_eq!(held.drift_pct(), None);
        assert_eq!(held.last_window.unwrap().end_s, 200.0);
        let fell = detect(
            &series(std::iter::repeat_n(1000.0, 100).chain(std::iter::repeat_n(400.0, 100))),
            ten_second_rounds(),
            0,
        );
        assert_eq!(fell.iops, Some(1000.0));
        assert!((fell.drift_pct().unwrap() + 60.0).abs() < 1e-9, "{fell:?}");
    }

    /// Four rounds of 10 s and 6 s of a fifth (the run's end cut it short): the partial
    /// round is no round, so there is no window to pass, and after a steady window the run's
    /// last window is the last five whole rounds, not one with the partial round in it.
    #[test]
    fn a_round_cut_short_by_the_runs_end_is_no_round() {
        let st = detect(
            &series(std::iter::repeat_n(1000.0, 46)),
            ten_second_rounds(),
            0,
        );
        assert_eq!((st.rounds, st.reached, st.window), (4, false, None));
        let fell = detect(
            &series(std::iter::repeat_n(1000.0, 100).chain(std::iter::repeat_n(10.0, 8))),
            ten_second_rounds(),
            0,
        );
        assert_eq!(fell.rounds, 10);
        let last = fell.last_window.unwrap();
        assert_eq!((last.start_s, last.end_s, last.avg), (50.0, 100.0, 1000.0));
        // A last round that ends a hair before its grid end (a real clock) is whole.
        let mut hair = series(std::iter::repeat_n(1000.0, 50));
        hair.last_mut().unwrap().t_end_s = 49.95;
        let st = detect(&hair, ten_second_rounds(), 0);
        assert_eq!((st.rounds, st.at_s), (5, Some(50.0)));
    }

    #[test]
    fn flat_series_is_steady_after_five_rounds() {
        let s = series(std::iter::repeat_n(1000.0, 100));
        let st = detect(&s, ten_second_rounds(), 4096 * 10_000);
        assert!(st.reached);
        assert_eq!(st.at_s, Some(50.0));
        assert_eq!(st.iops, Some(1000.0));
        assert_eq!(st.bytes_written, Some(50 * 1000 * 4096));
        assert_eq!(st.drive_fills, Some(5.0));
        let w = st.window.unwrap();
        assert_eq!((w.start_s, w.end_s), (0.0, 50.0));
        assert_eq!((w.range_pct, w.slope_pct), (0.0, 0.0));
    }

    #[test]
    fn fade_then_plateau_is_steady_where_the_plateau_holds_five_rounds() {
        // Rounds of 10 s: 6000 falling by 10 % a round for 20 rounds, then flat at 900.
        let mut iops = Vec::new();
        let mut level = 6000.0;
        for _ in 0..20 {
            iops.extend(std::iter::repeat_n(level, 10));
            level = f64::max(level * 0.9, 900.0);
        }
        iops.extend(std::iter::repeat_n(900.0, 200));
        let st = detect(&series(iops), ten_second_rounds(), 0);
        assert!(st.reached);
        // The first steady window, computed here from the definition directly.
        let rounds: Vec<f64> = (0..40)
            .map(|k| f64::max(6000.0 * 0.9f64.powi(k.min(20)), 900.0))
            .collect();
        let first = (4..40)
            .find(|&end| {
                let w = &rounds[end - 4..=end];
                let avg = w.iter().sum::<f64>() / 5.0;
                let range = w.iter().cloned().fold(f64::MIN, f64::max)
                    - w.iter().cloned().fold(f64::MAX, f64::min);
                let slope = (-2.0 * w[0] - w[1] + w[3] + 2.0 * w[4]) / 10.0;
                range <= 0.2 * avg && slope.abs() * 4.0 <= 0.1 * avg
            })
            .unwrap();
        assert_eq!(st.at_s, Some((first as f64 + 1.0) * 10.0));
        assert!(st.drive_fills.is_none());
    }

    #[test]
    fn a_steady_trend_within_range_fails_on_slope() {
        // Rising 4 % of the average per round: range 16 % (within 20 %), excursion 16 % (> 10 %).
        let rounds = [920.0, 960.0, 1000.0, 1040.0, 1080.0];
        let iops = rounds.iter().flat_map(|&r| std::iter::repeat_n(r, 10));
        let st = detect(&series(iops), ten_second_rounds(), 0);
        assert!(!st.reached);
        let w = st.window.unwrap();
        assert!((w.range_pct - 16.0).abs() < 1e-9, "{w:?}");
        assert!((w.slope_pct - 16.0).abs() < 1e-9, "{w:?}");
    }

    #[test]
    fn noise_beyond_the_range_is_not_steady() {
        // Alternating ±15 % around 1000: range 30 %.
        let iops = (0..100).map(|i| if (i / 10) % 2 == 0 { 1150.0 } else { 850.0 });
        let st = detect(&series(iops), ten_second_rounds(), 0);
        assert!(!st.reached);
        assert!(st.window.unwrap().range_pct > 20.0);
        assert_eq!(st.rounds, 10);
    }

    #[test]
    fn fewer_rounds_than_a_window_report_no_window() {
        let st = detect(
            &series(std::iter::repeat_n(1.0, 40)),
            ten_second_rounds(),
            0,
        );
        assert!(!st.reached);
        assert!(st.window.is_none());
        assert_eq!(st.rounds, 4);
    }

    #[test]
    fn samples_longer_than_a_round_and_a_gap_still_group_by_time() {
        // 20 s samples with 10 s rounds give a round every other grid cell: each sample is one
        // round (its midpoint's), so five samples make a window.
        let mut s = series(std::iter::repeat_n(500.0, 5));
        for (i, x) in s.iter_mut().enumerate() {
            x.t_start_s = i as f64 * 20.0;
            x.t_end_s = x.t_start_s + 20.0;
            x.ops = 10_000;
        }
        let st = detect(&s, ten_second_rounds(), 0);
        assert!(st.reached, "{st:?}");
        assert_eq!(st.iops, Some(500.0));
    }

    /// 4 s samples with 10 s rounds: the samples 8–12, 28–32, 48–52 s straddle a round's edge
    /// and belong to the round their midpoint is in (the later one). They run at 1100 IOPS, the
    /// others at 1000, so rounds 1 and 3 are (4 × 1100 + 8 × 1000) / 12 s and the first window
    /// (rounds 0–4) averages 1013.3 IOPS; a sample put in the round it starts or ends in gives
    /// 1020.
    #[test]
    fn samples_that_straddle_a_round_edge_count_in_their_midpoints_round() {
        let straddles = |i: usize| i % 5 == 2;
        let mut s = series((0..15).map(|i| if straddles(i) { 1100.0 } else { 1000.0 }));
        let mut total = 0;
        for (i, x) in s.iter_mut().enumerate() {
            x.t_start_s = i as f64 * 4.0;
            x.t_end_s = x.t_start_s + 4.0;
            x.ops = if straddles(i) { 4400 } else { 4000 };
            total += x.ops * 4096;
            x.bytes_written_total = total;
        }
        let st = detect(&s, ten_second_rounds(), 0);
        assert!(st.reached, "{st:?}");
        assert_eq!(st.at_s, Some(50.0));
        let expected = (3.0 * 1000.0 + 2.0 * (4.0 * 1100.0 + 8.0 * 1000.0) / 12.0) / 5.0;
        let iops = st.iops.unwrap();
        assert!((iops - expected).abs() < 1e-6, "{iops} against {expected}");
    }

    #[test]
    fn the_tracker_reports_the_moment_it_becomes_steady() {
        let s = series(std::iter::repeat_n(700.0, 80));
        let mut tracker = SteadyTracker::new(ten_second_rounds(), 0);
        let at: Vec<usize> = s
            .iter()
            .enumerate()
            .filter(|(_, x)| tracker.push(x))
            .map(|(i, _)| i)
            .collect();
        assert_eq!(at, vec![49]);
    }
}
