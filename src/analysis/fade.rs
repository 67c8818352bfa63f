//! Fade, one definition everywhere: **fade = faded ÷ fresh, as a percent** (100 % means no
//! change), and **loss = 100 % − fade** (never below 0 in words: a gain is told as fade above
//! 100 %). In a single run fresh is the median IOPS of the full intervals in the run's first
//! window and faded the median of those in its last window ([`level_window_s`]: the first and
//! last minute from the first and to the last full interval, at least five intervals, at most
//! a quarter of the run), the same length for a run of an hour or a day, so one slow or fast
//! interval does not make the headline and fresh is measured before the cliff; in an experiment they are the whole-run IOPS of the phases named `fresh` and
//! `faded` (recovery is `recovered` ÷ `fresh` the same way). Presets and sweeps have no fade.

use std::time::Duration;

use serde::{Deserialize, Serialize};

use super::run::{first_and_last_full, is_full, lowest_full};

/// The median of `values` (None when there are none).
pub(crate) fn median(values: impl Iterator<Item = f64>) -> Option<f64> {
    let mut v: Vec<f64> = values.collect();
    v.sort_by(f64::total_cmp);
    let n = v.len();
    match n {
        0 => None,
        _ if n % 2 == 1 => Some(v[n / 2]),
        _ => Some((v[n / 2 - 1] + v[n / 2]) / 2.0),
    }
}
use crate::stats::Sample;

/// How long the fresh and the faded windows are: the first and the last minute, as a storage
/// engineer reads "fresh" off a trace, whatever the run's length.
pub const LEVEL_WINDOW: Duration = Duration::from_secs(60);

/// The fewest intervals a window holds, so that coarse intervals still give a median of
/// several.
pub const MIN_WINDOW_INTERVALS: f64 = 5.0;

/// Seconds the fresh and faded windows of a run span, from its first full interval and to the
/// end of its last: [`LEVEL_WINDOW`], at least [`MIN_WINDOW_INTERVALS`] intervals of
/// `interval_s`, at most a quarter of the run's `span_s` (its two windows never meet), and at
/// least one interval. The one definition: the fade, compare and every chart use it.
pub fn level_window_s(span_s: f64, interval_s: f64) -> f64 {
    LEVEL_WINDOW
        .as_secs_f64()
        .max(MIN_WINDOW_INTERVALS * interval_s)
        .min(span_s / 4.0)
        .max(interval_s)
}

/// A level against its fresh reference.
#[derive(Clone, Copy, Debug, PartialEq, Serialize, Deserialize)]
pub struct FadeRatio {
    pub fresh_iops: f64,
    pub faded_iops: f64,
    /// faded ÷ fresh × 100.
    pub pct_of_fresh: f64,
}

impl FadeRatio {
    /// `faded` against `fresh`; None when fresh has no I/O (no reference to compare with).
    pub fn new(fresh_iops: f64, faded_iops: f64) -> Option<FadeRatio> {
        (fresh_iops > 0.0).then(|| FadeRatio {
            fresh_iops,
            faded_iops,
            pct_of_fresh: faded_iops / fresh_iops * 100.0,
        })
    }

    /// 100 − fade: the share of fresh performance lost (negative for a gain).
    pub fn loss_pct(&self) -> f64 {
        100.0 - self.pct_of_fresh
    }

    /// The one wording of a fade, used by every presenter: "15 % of fresh (loss 85 %)"; the
    /// loss is 100 − the percent as printed, so the two always add up to 100 (never "100 % of
    /// fresh (loss -0 %)"), and a level above fresh is a gain: "104 % of fresh (gain 4 %)".
    pub fn words(&self) -> String {
        let pct = self.shown_pct();
        if pct > 100.0 {
            format!("{pct:.0} % of fresh (gain {:.0} %)", pct - 100.0)
        } else {
            format!("{pct:.0} % of fresh (loss {:.0} %)", 100.0 - pct)
        }
    }

    /// The percent of fresh as every presenter prints it (`{:.0}`), as a number.
    pub fn shown_pct(&self) -> f64 {
        format!("{:.0}", self.pct_of_fresh)
            .parse()
            .unwrap_or(self.pct_of_fresh)
    }
}

/// The fade of one run's samples.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct Fade {
    /// The fresh level: median IOPS of the full intervals (at least as long as the configured
    /// interval, less 1 %) ending within `window_s` of the run's start; the first interval
    /// when none does.
    pub start_iops: f64,
    /// The faded level: median IOPS of the full intervals starting within `window_s` of the
    /// end of the last full interval, so a short partial sample at the end of an interrupted
    /// or byte-limited run is not taken as the end; the last sample when none is full.
    pub end_iops: f64,
    /// Seconds each of the two windows spans ([`level_window_s`]).
    #[serde(default)]
    pub window_s: f64,
    /// Lowest IOPS of a full interval: a partial last interval or one in which the tool was
    /// stopped is left out, as everywhere in the analysis; the lowest of all intervals when
    /// none is full.
    pub min_iops: f64,
    /// End as a percentage of start: the fade.
    pub end_pct_of_start: f64,
    /// Engine-clock seconds until the IOPS of a full interval first fell halfway from start to
    /// end (None when it did not fade: end at 100 % of start or more, as printed).
    pub half_fade_s: Option<f64>,
}

impl Fade {
    /// The fade of a run's samples taken every `interval`; None when there are fewer than two
    /// (a run stopped in its first interval, during its set-up: its first and last window
    /// would be the same interval, "100 % of fresh" of nothing).
    pub fn of(samples: &[Sample], interval: Duration) -> Option<Fade> {
        if samples.len() < 2 {
            return None;
        }
        let (first, last) = first_and_last_full(samples, interval)?;
        let (t0, t1) = (first.t_start_s, last.t_end_s);
        let step = interval.as_secs_f64();
        let span = t1 - t0;
        let window_s = level_window_s(span, step);
        // Thermally throttled intervals are the drive's cooling, not its flash: kept out.
        let throttled = super::thermal::throttled(samples);
        let full = || {
            samples
                .iter()
                .zip(&throttled)
                .filter(|(s, &hot)| !hot && is_full(s, interval))
                .map(|(s, _)| s)
        };
        let start = median(
            full()
                .filter(|s| s.t_end_s <= t0 + window_s + 1e-9)
                .map(|s| s.iops),
        )
        .unwrap_or(first.iops);
        let end = median(
            full()
                .filter(|s| s.t_start_s >= t1 - window_s - 1e-9)
                .map(|s| s.iops),
        )
        .unwrap_or(last.iops);
        let halfway = (start + end) / 2.0;
        Some(Fade {
            start_iops: start,
            end_iops: end,
            window_s,
            min_iops: lowest_full(samples, interval).map_or_else(
                || samples.iter().map(|s| s.iops).fold(f64::INFINITY, f64::min),
                |s| s.iops,
            ),
            end_pct_of_start: FadeRatio::new(start, end).map_or(0.0, |r| r.pct_of_fresh),
            // Only a fade the words show as a loss has a halfway point ("100 % of fresh" has
            // none, though its last window may lie a hair under its first).
            half_fade_s: FadeRatio::new(start, end)
                .is_some_and(|r| r.shown_pct() < 100.0)
                .then(|| full().find(|s| s.iops <= halfway).map(|s| s.t_end_s))
                .flatten(),
        })
    }

    /// The fade of a whole run as the charts and the report give it: None for a run that met
    /// its pace, whose level is the pace it was asked for, not the drive's
    /// ([`super::Pace`]), else [`Fade::of`] its samples.
    pub fn of_run(run: &crate::results::Run) -> Option<Fade> {
        if super::Pace::met_by(run).is_some() {
            return None;
        }
        Fade::of(&run.samples, run.info.workload.interval)
    }

    /// The fade as a ratio of the first interval (None when it had no I/O).
    pub fn ratio(&self) -> Option<FadeRatio> {
        FadeRatio::new(self.start_iops, self.end_iops)
    }

    /// The windows' length as every presenter names it: "1m00s".
    pub fn window_text(&self) -> String {
        crate::units::format_duration(Duration::from_secs_f64(self.window_s))
    }

    /// One line for the soak report.
    pub fn line(&self) -> String {
        let half = self
            .half_fade_s
            .map(|s| {
                format!(
                    "\n  {:<28} half of the fade after {}",
                    "",
                    crate::units::format_duration(Duration::from_secs_f64(s))
                )
            })
            .unwrap_or_default();
        let words = self.ratio().map_or("-".into(), |r| r.words());
        // The lowest interval on a line of its own: the fade line stays within 80 columns.
        format!(
            "  {:<28} {} → {} IOPS, {words}\n  {:<28} lowest interval {} IOPS{half}\n",
            format!("Fade (first → last {})", self.window_text()),
            crate::units::format_count(self.start_iops),
            crate::units::format_count(self.end_iops),
            "",
            crate::units::format_count(self.min_iops)
        )
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::stats::IntervalStats;

    const SECOND: Duration = Duration::from_secs(1);

    /// A sample from `t0` to `t1` at `iops`.
    fn span(i: u64, t0: f64, t1: f64, iops: f64) -> Sample {
        let ops = (iops * (t1 - t0)).round() as u64;
        let mut stats = IntervalStats::new();
        stats.write.record_n(ops, ops * 4096, 1000);
        Sample::new(i, t0, t1, &stats, 0)
    }

    /// The loss is what the printed percent leaves of 100: a level a hair above fresh is not
    /// "loss -0 %", and one above it is a gain.
    #[test]
    fn a_fades_words_add_up_to_100_and_a_gain_is_a_gain() {
        let words = |faded: f64| FadeRatio::new(25000.0, faded).unwrap().words();
        assert_eq!(words(25001.0), "100 % of fresh (loss 0 %)");
        assert_eq!(words(8637.5), "35 % of fresh (loss 65 %)");
        assert_eq!(words(26000.0), "104 % of fresh (gain 4 %)");
    }

    fn sample(i: u64, iops: u64) -> Sample {
        span(i, i as f64, i as f64 + 1.0, iops as f64)
    }

    /// A paced run that held its rate, its last window a hair under its first, has no
    /// "half of the fade" to report.
    #[test]
    fn a_level_that_held_has_no_halfway_point() {
        let mut samples: Vec<Sample> = (0..50).map(|i| sample(i, 500)).collect();
        samples.extend((50..100).map(|i| sample(i, 499)));
        let f = Fade::of(&samples, SECOND).unwrap();
        assert!(f.end_iops < f.start_iops, "{f:?}");
        assert_eq!(f.half_fade_s, None);
        samples.extend((100..150).map(|i| sample(i, 200)));
        assert!(Fade::of(&samples, SECOND).unwrap().half_fade_s.is_some());
    }

    #[test]
    fn fade_is_faded_over_fresh_and_loss_its_complement() {
        let r = FadeRatio::new(6000.0, 900.0).unwrap();
        assert!((r.pct_of_fresh - 15.0).abs() < 1e-9);
        assert!((r.loss_pct() - 85.0).abs() < 1e-9);
        assert_eq!(r.words(), "15 % of fresh (loss 85 %)");
        // A gain is a fade above 100 % and a negative loss.
        let g = FadeRatio::new(1000.0, 1200.0).unwrap();
        assert!((g.pct_of_fresh - 120.0).abs() < 1e-9);
        assert!((g.loss_pct() + 20.0).abs() < 1e-9);
        assert!(FadeRatio::new(0.0, 5.0).is_none());
    }

    #[test]
    fn fade_reads_start_end_and_half_time() {
        let samples: Vec<Sample> = [6000, 5000, 3000, 2000, 1000, 1000]
            .iter()
            .enumerate()
            .map(|(i, &v)| sample(i as u64, v))
            .collect();
        let f = Fade::of(&samples, SECOND).unwrap();
        assert_eq!(
            (f.start_iops, f.end_iops, f.min_iops),
            (6000.0, 1000.0, 1000.0)
        );
        assert!((f.end_pct_of_start - 16.67).abs() < 0.01);
        assert_eq!(f.half_fade_s, Some(3.0));
        assert_eq!(f.ratio().unwrap().words(), "17 % of fresh (loss 83 %)");
    }

    /// One interval (a run stopped during its set-up, 5.6 ms in) is compared with nothing:
    /// no fade, where it used to be "11487 → 11487 IOPS, 100 % of fresh".
    #[test]
    fn a_single_interval_has_no_fade() {
        assert_eq!(Fade::of(&[span(0, 0.0, 0.0056, 11487.0)], SECOND), None);
        assert_eq!(Fade::of(&[sample(0, 1000)], SECOND), None);
        assert!(Fade::of(&[sample(0, 1000), sample(1, 900)], SECOND).is_some());
    }

    /// The fade line of a five-digit fade fits 80 columns, its lowest interval and half-fade
    /// time on lines of their own.
    #[test]
    fn the_fade_lines_fit_80_columns() {
        let samples: Vec<Sample> = [60000, 50000, 30000, 20000, 10000, 10000]
            .iter()
            .enumerate()
            .map(|(i, &v)| sample(i as u64, v))
            .collect();
        let text = Fade::of(&samples, SECOND).unwrap().line();
        assert_eq!(text.lines().count(), 3, "{text}");
        assert!(text.lines().all(|l| l.chars().count() <= 80), "{text}");
        assert!(text.contains("lowest interval 10000 IOPS"), "{text}");
    }

    #[test]
    fn fade_rests_on_the_median_of_each_end_window() {
        // 20 one-second intervals: windows of 5 s (a quarter of the run; a minute is longer).
        // One fast interval at the start and one slow one at the end do not move the medians.
        let samples: Vec<Sample> = (0..20)
            .map(|i| {
                let iops = match i {
                    0 => 9000,
                    19 => 10,
                    1..=4 => 6000 + 10 * i,
                    _ if i >= 15 => 1000 + 10 * (i - 15),
                    _ => 3000,
                };
                sample(i, iops)
            })
            .collect();
        let f = Fade::of(&samples, SECOND).unwrap();
        assert_eq!(f.window_s, 5.0);
        // First five: 9000, 6010, 6020, 6030, 6040 → 6030; last five: 1000..1030, 10 → 1010.
        assert_eq!((f.start_iops, f.end_iops), (6030.0, 1010.0));
        assert_eq!(f.min_iops, 10.0);
    }

    /// Fresh is the first minute of an 8 h and of a 24 h run alike (10 s intervals): 7424 IOPS
    /// before a cliff at 3 minutes, not the median of the first 2 % (after the cliff); faded
    /// is the last minute; 60 s intervals take five of them.
    #[test]
    fn fresh_is_the_first_minute_of_a_run_of_any_length() {
        let run = |hours: u64, step: f64| -> Vec<Sample> {
            let n = (hours as f64 * 3600.0 / step) as u64;
            (0..n)
                .map(|i| {
                    let t = i as f64 * step;
                    let iops = if t < 180.0 {
                        7424.0
                    } else {
                        3000.0 - t / 3600.0
                    };
                    span(i, t, t + step, iops)
                })
                .collect()
        };
        let step = Duration::from_secs(10);
        for hours in [8, 24] {
            let f = Fade::of(&run(hours, 10.0), step).unwrap();
            assert_eq!(f.window_s, 60.0);
            assert_eq!(f.window_text(), "1m00s");
            assert_eq!(f.start_iops, 7424.0, "{hours} h");
            assert!((f.end_iops - (3000.0 - hours as f64)).abs() < 0.1, "{f:?}");
        }
        let coarse = Fade::of(&run(8, 60.0), Duration::from_secs(60)).unwrap();
        assert_eq!(coarse.window_s, 300.0);
        // Three of the five minutes before the cliff.
        assert_eq!(coarse.start_iops, 7424.0);
    }

    #[test]
    fn steady_run_has_no_half_fade_time() {
        let samples: Vec<Sample> = (0..4).map(|i| sample(i, 500)).collect();
        assert_eq!(Fade::of(&samples, SECOND).unwrap().half_fade_s, None);
        assert!(Fade::of(&[], SECOND).is_none());
    }

    #[test]
    fn a_long_first_interval_is_not_taken_as_the_end() {
        // A slow start (workers still starting) stretches the first sample to 3 s.
        let samples = vec![
            span(0, 0.0, 3.0, 6000.0),
            span(1, 3.0, 4.0, 4000.0),
            span(2, 4.0, 5.0, 2000.0),
            span(3, 5.0, 6.0, 1500.0),
        ];
        let f = Fade::of(&samples, SECOND).unwrap();
        assert_eq!((f.start_iops, f.end_iops), (6000.0, 1500.0));
        assert!((f.end_pct_of_start - 25.0).abs() < 1e-9);
    }

    #[test]
    fn an_interrupted_runs_partial_last_sample_is_not_the_end() {
        let samples = vec![
            span(0, 0.0, 10.0, 6000.0),
            span(1, 10.0, 20.0, 3000.0),
            span(2, 20.0, 30.0, 2000.0),
            span(3, 30.0, 32.5, 500.0),
        ];
        let f = Fade::of(&samples, Duration::from_secs(10)).unwrap();
        assert_eq!(
            (f.start_iops, f.end_iops, f.min_iops),
            (6000.0, 2000.0, 2000.0)
        );
        // Only partial samples: the last ones are all there are.
        let f = Fade::of(&samples[2..], Duration::from_secs(10)).unwrap();
        assert_eq!(f.end_iops, 2000.0);
        assert_eq!(f.min_iops, 2000.0);
        // One partial sample alone is compared with nothing.
        assert_eq!(Fade::of(&samples[3..], Duration::from_secs(10)), None);
    }

    #[test]
    fn an_interval_the_tool_was_stopped_in_is_neither_the_lowest_nor_the_half_fade() {
        // A SIGSTOP in interval 2 leaves it almost empty; the drive's own lowest is 3000.
        let mut samples: Vec<Sample> = [6000, 5000, 100, 4000, 3000, 3000]
            .iter()
            .enumerate()
            .map(|(i, &v)| sample(i as u64, v))
            .collect();
        samples[2].stopped_s = Some(0.98);
        let f = Fade::of(&samples, SECOND).unwrap();
        assert_eq!(f.min_iops, 3000.0);
        // Halfway from 6000 to 3000 is 4500: first reached by interval 3 (ends at 4 s).
        assert_eq!(f.half_fade_s, Some(4.0));
    }
}
