//! The figures a report prints, recomputed from the samples alone (never copied from the
//! summary in run.json), so every number traces to samples.jsonl.
//!
//! Sums are exact: I/Os, bytes, time, the ops-weighted mean latency and the maximum. A whole-run
//! percentile cannot be exact, since samples keep each interval's percentiles and not its
//! histogram: it is estimated by pooling the intervals' latency distributions, each read from
//! its p50, p99, p99.9 and maximum. It is exact when the intervals agree and always lies
//! between the lowest and highest interval value. Against the true histogram p99 in run.json:
//! 398 µs for 368 µs on a zram measure, within 2 % on simulated soaks.

use crate::stats::Sample;

/// Throughput and latency of a stretch of intervals.
#[derive(Clone, Copy, Debug, Default, PartialEq)]
pub struct Figures {
    /// Engine-clock seconds from the first interval's start to the last one's end.
    pub seconds: f64,
    pub ops: u64,
    pub bytes: u64,
    pub iops: f64,
    /// 10^6 bytes per second.
    pub mb_per_s: f64,
    pub avg_lat_us: f64,
    /// Estimated from the intervals' percentiles (see the module documentation).
    pub p99_lat_us: f64,
    pub max_lat_us: f64,
    pub errors: u64,
}

impl Figures {
    /// The figures of `samples` taken together (all zero for none).
    pub fn of(samples: &[Sample]) -> Figures {
        let (Some(first), Some(last)) = (samples.first(), samples.last()) else {
            return Figures::default();
        };
        let seconds = last.t_end_s - first.t_start_s;
        let ops: u64 = samples.iter().map(|s| s.ops).sum();
        let bytes: u64 = samples.iter().map(|s| s.bytes).sum();
        let per_s = |x: f64| if seconds > 0.0 { x / seconds } else { 0.0 };
        let weighted: f64 = samples
            .iter()
            .filter_map(|s| s.lat_us.map(|l| s.ops as f64 * l.mean))
            .sum();
        Figures {
            seconds,
            ops,
            bytes,
            iops: per_s(ops as f64),
            mb_per_s: per_s(bytes as f64 / 1e6),
            avg_lat_us: if ops > 0 { weighted / ops as f64 } else { 0.0 },
            p99_lat_us: pooled_quantile(samples, 0.99),
            max_lat_us: max_latency(samples),
            errors: samples.iter().map(|s| s.errors).sum(),
        }
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
/// the intervals' percentiles (0 when there was no I/O).
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

    fn sample(i: u64, ops: u64, latency_ns: u64) -> Sample {
        let mut stats = IntervalStats::new();
        stats.write.record_n(ops, ops * 4096, latency_ns);
        stats
            .write
            .record_n(ops / 50, ops / 50 * 4096, latency_ns * 10);
        Sample::new(i, i as f64, i as f64 + 1.0, &stats, 0)
    }

    #[test]
    fn identical_intervals_pool_to_their_own_p99() {
        let samples: Vec<Sample> = (0..10).map(|i| sample(i, 1000, 100_000)).collect();
        let p99 = pooled_quantile(&samples, 0.99);
        assert!(
            (p99 - samples[0].lat_us.unwrap().p99).abs() < 0.01 * samples[0].lat_us.unwrap().p99,
            "{p99} vs {}",
            samples[0].lat_us.unwrap().p99
        );
    }

    #[test]
    fn sums_and_weighted_mean_are_exact() {
        let samples = vec![sample(0, 1000, 100_000), sample(1, 3000, 200_000)];
        let f = Figures::of(&samples);
        assert_eq!(f.ops, samples[0].ops + samples[1].ops);
        assert_eq!(f.seconds, 2.0);
        assert_eq!(f.iops, f.ops as f64 / 2.0);
        let mean = (samples[0].ops as f64 * samples[0].lat_us.unwrap().mean
            + samples[1].ops as f64 * samples[1].lat_us.unwrap().mean)
            / f.ops as f64;
        assert!((f.avg_lat_us - mean).abs() < 1e-9);
        assert_eq!(f.max_lat_us, samples[1].lat_us.unwrap().max);
        let p99 = f.p99_lat_us;
        assert!(p99 >= samples[0].lat_us.unwrap().p99 && p99 <= samples[1].lat_us.unwrap().p99);
    }
}
