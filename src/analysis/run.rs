//! The figures of one run: throughput (IOPS, MB/s in 10^6 bytes), latency, the intervals that
//! frame it, and its steady-state window.
//!
//! Whole-run latency percentiles are **exact**: run.json's summary holds the percentiles of
//! the whole run's merged histogram, and [`Figures::of_run`] uses them. Only a run without a
//! summary (it crashed before writing one) falls back to an estimate from the intervals'
//! percentiles ([`pooled_quantile`]), and says so ([`Figures::p99_exact`] is false). A stretch
//! of several intervals ([`Figures::of_samples`]) has no histogram of its own and is always
//! estimated; a single interval is exact.

use std::time::Duration;

use crate::results::Run;
use crate::stats::steady::Criteria;
use crate::stats::{LatencySummary, Sample};

/// Throughput and latency of a run or a stretch of intervals.
#[derive(Clone, Copy, Debug, Default, PartialEq)]
pub struct Figures {
    /// Engine-clock seconds the tool ran: those covered less the time it was stopped
    /// (`stopped_s`); every rate is over them.
    pub seconds: f64,
    pub ops: u64,
    pub bytes: u64,
    pub iops: f64,
    /// 10^6 bytes per second.
    pub mb_per_s: f64,
    /// Mean latency, µs (ops-weighted over intervals).
    pub avg_lat_us: f64,
    pub p99_lat_us: f64,
    /// True when p99 comes from a histogram of exactly these I/Os (run.json's summary, or a
    /// single interval); false when estimated from several intervals' percentiles.
    pub p99_exact: bool,
    pub max_lat_us: f64,
    /// The latency percentiles of exactly these I/Os when known (the whole run's summary, or
    /// a single interval), µs.
    pub lat_us: Option<LatencySummary>,
    pub errors: u64,
}

impl Figures {
    /// The whole run: run.json's summary (exact percentiles) when the run wrote one, else the
    /// samples (p99 estimated, `p99_exact` false).
    pub fn of_run(run: &Run) -> Figures {
        match &run.info.summary {
            Some(s) => Figures {
                seconds: s.seconds,
                ops: s.ops,
                bytes: s.bytes,
                iops: s.iops,
                mb_per_s: s.mb_per_s,
                avg_lat_us: s.lat_us.map_or(0.0, |l| l.mean),
                p99_lat_us: s.lat_us.map_or(0.0, |l| l.p99),
                p99_exact: true,
                max_lat_us: s.lat_us.map_or(0.0, |l| l.max),
                lat_us: s.lat_us,
                errors: s.errors,
            },
            _ => Figures::of_samples(&run.samples),
        }
    }

    /// The figures of `samples` taken together (all zero for none): sums, the ops-weighted
    /// mean and the maximum are exact; p99 is exact for one interval, else estimated.
    pub fn of_samples(samples: &[Sample]) -> Figures {
        let (Some(first), Some(last)) = (samples.first(), samples.last()) else {
            return Figures::default();
        };
        let stopped: f64 = samples.iter().filter_map(|s| s.stopped_s).sum();
        let seconds = (last.t_end_s - first.t_start_s - stopped).max(0.0);
        let ops: u64 = samples.iter().map(|s| s.ops).sum();
        let bytes: u64 = samples.iter().map(|s| s.bytes).sum();
        let per_s = |x: f64| if seconds > 0.0 { x / seconds } else { 0.0 };
        let weighted: f64 = samples
            .iter()
            .filter_map(|s| s.lat_us.map(|l| s.ops as f64 * l.mean))
            .sum();
        let single = samples.len() == 1;
        Figures {
            seconds,
            ops,
            bytes,
            iops: per_s(ops as f64),
            mb_per_s: per_s(bytes as f64 / 1e6),
            avg_lat_us: if ops > 0 { weighted / ops as f64 } else { 0.0 },
            p99_lat_us: if single {
                first.lat_us.map_or(0.0, |l| l.p99)
            } else {
                pooled_quantile(samples, 0.99)
            },
            p99_exact: single,
            max_lat_us: max_latency(samples),
            lat_us: if single { first.lat_us } else { None },
            errors: samples.iter().map(|s| s.errors).sum(),
        }
    }
}

/// The first interval and the last full one, judged by the configured `interval` (a run cut
/// short ends with a partial interval; a slow start may make the first one long).
pub fn first_and_last_full(samples: &[Sample], interval: Duration) -> Option<(&Sample, &Sample)> {
    let first = samples.first()?;
    let last = samples
        .iter()
        .rev()
        .find(|s| is_full(s, interval))
        .or(samples.last())?;
    Some((first, last))
}

/// The lowest-IOPS full interval (a run cut short ends with a partial one).
pub fn lowest_full(samples: &[Sample], interval: Duration) -> Option<&Sample> {
    samples
        .iter()
        .filter(|s| is_full(s, interval))
        .min_by(|a, b| a.iops.total_cmp(&b.iops))
}

/// The intervals a chart draws: all but a partial last one (a run cut short or stopped by a
/// byte count ends with a fraction of an interval whose IOPS would read as a cliff); a run of
/// one partial interval keeps it.
pub fn drawn_intervals(samples: &[Sample], interval: Duration) -> &[Sample] {
    match samples.split_last() {
        Some((last, rest)) if !rest.is_empty() && !is_full(last, interval) => rest,
        _ => samples,
    }
}

/// The one rule for an interval that is the tool's, not the drive's: ssdfade itself was
/// stopped during it (SIGSTOP, a suspended machine, a scheduler that did not run it), for any
/// part of it. Its rates cover less than the interval, so no figure takes it (see
/// [`is_full`]) and a chart draws it as a gap, neither as a point nor as zero IOPS.
pub fn is_gap(s: &Sample) -> bool {
    s.stopped_s.is_some_and(|stopped| stopped > 0.0)
        || s.suspended_s.is_some_and(|suspended| suspended > 0.0)
}

/// An interval that ran its whole length and is the drive's: not cut short at the end of a
/// run, and not the tool's ([`is_gap`]).
pub(super) fn is_full(s: &Sample, interval: Duration) -> bool {
    s.t_end_s - s.t_start_s >= crate::stats::WHOLE_SHARE * interval.as_secs_f64() && !is_gap(s)
}

/// The steady-state window of a run that reached steady state (SNIA PTS, see
/// [`crate::stats::steady`]): the first window of rounds that met the criteria, as run.json
/// records it.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct SteadyWindow {
    /// Start and end of the window, seconds on the run's engine clock.
    pub start_s: f64,
    pub end_s: f64,
    /// Average IOPS of the window's rounds.
    pub iops: f64,
    /// Host bytes written when steady state was reached (the window's end).
    pub bytes_written: Option<u64>,
    /// Those bytes over the drive's capacity.
    pub drive_fills: Option<f64>,
    /// Those bytes over the drive's flash (physical drive writes), when known.
    pub flash_fills: Option<f64>,
    /// The window's range (max − min) and the excursion of its fitted line, percent of its
    /// average: SNIA's two criteria.
    pub range_pct: f64,
    pub slope_pct: f64,
    /// SNIA's limits for them, percent.
    pub max_range_pct: f64,
    pub max_slope_pct: f64,
    /// The run's last window against this one, percent, when the level did not hold
    /// ([`crate::stats::steady::SteadyState::drift_pct`]), with the last window's average IOPS.
    pub did_not_hold: Option<(f64, f64)>,
}

impl SteadyWindow {
    /// The window of `run`; None unless the run reached steady state.
    pub fn of(run: &Run) -> Option<SteadyWindow> {
        let s = run.info.steady_state.as_ref().filter(|s| s.reached)?;
        let w = s.window?;
        Some(SteadyWindow {
            start_s: w.start_s,
            end_s: w.end_s,
            iops: s.iops.unwrap_or(w.avg),
            bytes_written: s.bytes_written,
            drive_fills: s.drive_fills,
            flash_fills: s.flash_fills,
            range_pct: w.range_pct,
            slope_pct: w.slope_pct,
            max_range_pct: Criteria::default().max_range_pct,
            max_slope_pct: Criteria::default().max_slope_pct,
            did_not_hold: s.drift_pct().zip(s.last_window.map(|l| l.avg)),
        })
    }
}

/// The fraction of one interval's I/Os at or below `x` µs, read through its (0, 0), (p50, 0.5),
/// (p99, 0.99), (p99.9, 0.999) and (max, 1) points. Between two percentiles the tail share
/// (1 − F) falls exponentially, as latency tails do (a straight line would put far too many
/// I/Os just under p99); up to p50 and beyond p99.9 the line is straight.
fn interval_cdf(s: &Sample, x: f64) -> f64 {
    // An interval without I/O weighs nothing.
    let Some(l) = &s.lat_us else { return 1.0 };
    let knots = [
        (0.0, 0.0),
        (l.p50, 0.5),
        (l.p99, 0.99),
        (l.p999, 0.999),
        (l.max.max(l.p999), 1.0),
    ];
    if x >= knots[4].0 {
        return 1.0;
    }
    for (i, pair) in knots.windows(2).enumerate() {
        let ((x0, f0), (x1, f1)) = (pair[0], pair[1]);
        if x < x1 {
            if x1 <= x0 {
                return f1;
            }
            let share = (x - x0).max(0.0) / (x1 - x0);
            return if i == 1 || i == 2 {
                1.0 - (1.0 - f0) * ((1.0 - f1) / (1.0 - f0)).powf(share)
            } else {
                f0 + (f1 - f0) * share
            };
        }
    }
    1.0
}

/// The largest latency of any interval (0 when there was no I/O).
fn max_latency(samples: &[Sample]) -> f64 {
    samples
        .iter()
        .filter_map(|s| s.lat_us.map(|l| l.max))
        .fold(0.0, f64::max)
}

/// The latency below which a fraction `q` of all the samples' I/Os completed, estimated from
/// the intervals' percentiles, each interval weighted by its I/O count (0 when there was no
/// I/O).
pub fn pooled_quantile(samples: &[Sample], q: f64) -> f64 {
    let total: f64 = samples.iter().map(|s| s.ops as f64).sum();
    if total <= 0.0 {
        return 0.0;
    }
    let below = |x: f64| {
        samples
            .iter()
            .map(|s| s.ops as f64 * interval_cdf(s, x))
            .sum::<f64>()
            / total
    };
    let (mut lo, mut hi) = (0.0, max_latency(samples));
    for _ in 0..100 {
        let mid = (lo + hi) / 2.0;
        if below(mid) < q {
            lo = mid;
        } else {
            hi = mid;
        }
    }
    hi
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::stats::IntervalStats;

    /// One interval from `i` to `i + 1` s: `fast` I/Os at `fast_ns` and `slow` at `slow_ns`.
    fn mixed(i: u64, fast: u64, fast_ns: u64, slow: u64, slow_ns: u64) -> Sample {
        let mut stats = IntervalStats::new();
        stats.write.record_n(fast, fast * 4096, fast_ns);
        stats.write.record_n(slow, slow * 4096, slow_ns);
        Sample::new(i, i as f64, i as f64 + 1.0, &stats, 0)
    }

    fn near(a: f64, b: f64, tol: f64) -> bool {
        (a - b).abs() <= tol * b.abs()
    }

    #[test]
    fn an_interval_the_tool_was_stopped_in_is_the_tools_for_figures_and_charts_alike() {
        let interval = Duration::from_secs(1);
        for stopped in [0.0, 0.05, 0.3, 0.5, 0.9, 1.0] {
            let mut s = mixed(3, 1000, 100_000, 0, 0);
            s.stopped_s = (stopped > 0.0).then_some(stopped);
            // One rule: an interval is either a full one of the drive's or a gap of the tool's.
            assert_ne!(is_full(&s, interval), is_gap(&s), "stopped {stopped} s");
            assert_eq!(is_gap(&s), stopped > 0.0, "stopped {stopped} s");
        }
        // The machine suspended within it: not on the run's clock, but the tool's gap too.
        let mut stats = IntervalStats::new();
        stats.write.record_n(1000, 1000 * 4096, 100_000);
        stats.suspended_s = 600.0;
        let s = Sample::new(3, 3.0, 4.0, &stats, 0);
        assert_eq!(s.suspended_s, Some(600.0));
        assert_eq!(
            s.iops, 1000.0,
            "the rates are over the run's clock, which stood still"
        );
        assert!(is_gap(&s) && !is_full(&s, interval));
    }

    #[test]
    fn p99_of_980_fast_and_20_slow_ios_is_the_slow_latency() {
        // 980 I/Os at 100 µs and 20 at 10 ms: the 990th I/O is a slow one.
        let s = mixed(0, 980, 100_000, 20, 10_000_000);
        let f = Figures::of_samples(std::slice::from_ref(&s));
        assert!(f.p99_exact);
        assert!(near(f.p99_lat_us, 10_000.0, 0.05), "{}", f.p99_lat_us);
        assert!(near(
            f.avg_lat_us,
            (980.0 * 100.0 + 20.0 * 10_000.0) / 1000.0,
            0.05
        ));
        assert_eq!((f.ops, f.bytes), (1000, 1000 * 4096));
        assert!(near(f.iops, 1000.0, 1e-9));
        assert!(near(f.mb_per_s, 4.096, 1e-9), "MB/s in 10^6 bytes");
    }

    #[test]
    fn pooled_percentiles_weigh_each_interval_by_its_io_count() {
        // 99 000 I/Os at 100 µs in one interval, 1 000 at 10 ms in another: 1 % of all I/Os
        // are slow, so p99 sits at the boundary and p98 is fast; with the intervals weighted
        // equally p98 would be slow.
        let fast = mixed(0, 99_000, 100_000, 0, 0);
        let slow = mixed(1, 1_000, 10_000_000, 0, 0);
        let both = [fast, slow];
        let p98 = pooled_quantile(&both, 0.98);
        assert!(p98 < 200.0, "p98 {p98} µs");
        let p995 = pooled_quantile(&both, 0.995);
        assert!(p995 > 5_000.0, "p99.5 {p995} µs");
        let f = Figures::of_samples(&both);
        assert!(!f.p99_exact);
        assert!(near(
            f.avg_lat_us,
            (99_000.0 * 100.0 + 1_000.0 * 10_000.0) / 100_000.0,
            0.05
        ));
        assert!(near(f.iops, 50_000.0, 1e-9));
    }

    #[test]
    fn identical_intervals_pool_to_their_own_p99() {
        let samples: Vec<Sample> = (0..10)
            .map(|i| mixed(i, 1000, 100_000, 20, 1_000_000))
            .collect();
        let p99 = pooled_quantile(&samples, 0.99);
        let own = samples[0].lat_us.unwrap().p99;
        assert!(near(p99, own, 0.01), "{p99} vs {own}");
    }

    #[test]
    fn first_last_and_lowest_skip_partial_intervals() {
        let mut samples: Vec<Sample> = (0..4)
            .map(|i| mixed(i, 1000 - 100 * i, 1000, 0, 0))
            .collect();
        let mut stats = IntervalStats::new();
        stats.write.record_n(10, 40960, 1000);
        samples.push(Sample::new(4, 4.0, 4.2, &stats, 0));
        let one = Duration::from_secs(1);
        let (a, b) = first_and_last_full(&samples, one).unwrap();
        assert_eq!((a.index, b.index), (0, 3));
        assert_eq!(lowest_full(&samples, one).unwrap().index, 3);
        let drawn = drawn_intervals(&samples, one);
        assert_eq!(drawn.last().unwrap().index, 3, "the 0.2 s tail is left out");
        assert_eq!(
            drawn_intervals(&samples[4..], one).len(),
            1,
            "alone, it stays"
        );
    }
}
