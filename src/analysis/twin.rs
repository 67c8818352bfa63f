//! The shape of a write soak's IOPS curve, as `sim fit` matches a simulated twin to it: the
//! fresh rate, where the first cliff falls, the steady rate and its p99 latency, and the mean
//! IOPS per period (an hour, or a third of a run shorter than three hours) that the twin's own
//! soak must reproduce.

use crate::stats::Sample;

/// A run's IOPS curve in the figures a twin is fitted to.
#[derive(Clone, Debug, PartialEq)]
pub struct Curve {
    /// IOPS at the start: the median of the samples of the first 5 % of the span written (at
    /// least the first three).
    pub fresh_iops: f64,
    /// Bytes written when the IOPS first fell below 70 % of fresh and stayed there for three
    /// samples (`None`: no cliff).
    pub cliff_bytes: Option<u64>,
    /// Mean IOPS (operations over time) of the last fifth of the run.
    pub steady_iops: f64,
    /// Median of the per-sample p99 write latency over the last fifth, in ms.
    pub steady_p99_ms: f64,
    /// Length of a period of [`Curve::periods`], seconds.
    pub period_s: f64,
    /// Mean IOPS per period.
    pub periods: Vec<f64>,
}

/// Share of fresh IOPS below which a sample is past the cliff.
const CLIFF_SHARE: f64 = 0.7;

/// The curve of a soak's `samples` over a span of `span` bytes; `None` with fewer than ten
/// samples.
pub fn curve(samples: &[Sample], span: u64) -> Option<Curve> {
    if samples.len() < 10 {
        return None;
    }
    let early: Vec<f64> = samples
        .iter()
        .enumerate()
        .take_while(|(i, s)| *i < 3 || (s.bytes_written_total as f64) < 0.05 * span as f64)
        .map(|(_, s)| s.iops)
        .collect();
    let fresh_iops = median(early);
    let below = |s: &Sample| s.iops < CLIFF_SHARE * fresh_iops;
    let cliff_bytes = samples.windows(3).find_map(|w| {
        w.iter().all(below).then(|| {
            let first = &w[0];
            first.bytes_written_total - first.write.as_ref().map_or(0, |d| d.bytes)
        })
    });
    let end = samples.last().expect("ten samples").t_end_s;
    let tail: Vec<&Sample> = samples
        .iter()
        .filter(|s| s.t_start_s >= 0.8 * end)
        .collect();
    let steady_iops = mean_iops(&tail);
    let steady_p99_ms = median(
        tail.iter()
            .filter_map(|s| s.write.as_ref()?.lat_us.as_ref().map(|l| l.p99 / 1000.0))
            .collect(),
    );
    let period_s = period_of(end);
    let periods = (0..(end / period_s).round().max(1.0) as usize)
        .map(|i| {
            let (from, to) = (i as f64 * period_s, (i + 1) as f64 * period_s);
            let part: Vec<&Sample> = samples
                .iter()
                .filter(|s| s.t_start_s >= from - 1e-9 && s.t_end_s <= to + 1e-9)
                .collect();
            mean_iops(&part)
        })
        .collect();
    Some(Curve {
        fresh_iops,
        cliff_bytes,
        steady_iops,
        steady_p99_ms,
        period_s,
        periods,
    })
}

/// The period a run of `seconds` is compared in: an hour, or a third of a shorter run (on the
/// 10 s grid).
pub fn period_of(seconds: f64) -> f64 {
    if seconds >= 3.0 * 3600.0 {
        3600.0
    } else {
        ((seconds / 3.0 / 10.0).round() * 10.0).max(10.0)
    }
}

/// The largest difference between `twin` and `measured` period by period, percent of the
/// measured one (periods only one of them has are not compared).
pub fn worst_error_pct(measured: &[f64], twin: &[f64]) -> f64 {
    measured
        .iter()
        .zip(twin)
        .filter(|(m, _)| **m > 0.0)
        .map(|(m, t)| 100.0 * (t / m - 1.0).abs())
        .fold(0.0, f64::max)
}

fn mean_iops(samples: &[&Sample]) -> f64 {
    let ops: u64 = samples.iter().map(|s| s.ops).sum();
    let secs: f64 = samples.iter().map(|s| s.t_end_s - s.t_start_s).sum();
    if secs > 0.0 {
        ops as f64 / secs
    } else {
        0.0
    }
}

/// The median of `v`, 0 when it is empty.
fn median(v: Vec<f64>) -> f64 {
    super::fade::median(v.into_iter()).unwrap_or(0.0)
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Samples of 10 s at the given IOPS, 4 KiB writes.
    fn samples(iops: &[f64]) -> Vec<Sample> {
        let mut total = 0;
        iops.iter()
            .enumerate()
            .map(|(i, &r)| {
                let ops = (r * 10.0) as u64;
                total += ops * 4096;
                let text = format!(
                    r#"{{"index":{i},"t_start_s":{},"t_end_s":{},"ops":{ops},"bytes":{b},"iops":{r},"mb_per_s":0,"lat_us":null,"write":{{"ops":{ops},"bytes":{b},"iops":{r},"mb_per_s":0,"lat_us":{{"mean":1,"p50":1,"p99":{p99},"p999":1,"max":1}}}},"errors":0,"bytes_written_total":{total}}}"#,
                    i * 10,
                    i * 10 + 10,
                    b = ops * 4096,
                    p99 = 2000.0 + i as f64,
                );
                serde_json::from_str(&text).unwrap()
            })
            .collect()
    }

    #[test]
    fn fresh_cliff_steady_and_periods_come_from_the_curve() {
        // 10 samples at 1000, then 20 at 400: the cliff at the 11th sample.
        let mut iops = vec![1000.0; 10];
        iops.extend([400.0; 20]);
        let s = samples(&iops);
        // A span of 2 GB: its first 5 % (100 MB) is within the first three samples (41 MB each).
        let c = curve(&s, 2_000_000_000).unwrap();
        assert_eq!(c.fresh_iops, 1000.0);
        assert_eq!(c.cliff_bytes, Some(10 * 10_000 * 4096));
        assert_eq!(c.steady_iops, 400.0);
        // The last fifth is samples 24..30, p99 2024..2029 µs: median 2026.5 µs.
        assert!(
            (c.steady_p99_ms - 2.0265).abs() < 1e-9,
            "{}",
            c.steady_p99_ms
        );
        // 300 s: periods of 100 s (10, 0 + 10, 10 samples).
        assert_eq!(c.period_s, 100.0);
        assert_eq!(c.periods, vec![1000.0, 400.0, 400.0]);
    }

    #[test]
    fn a_short_dip_is_not_a_cliff() {
        let mut iops = vec![1000.0; 10];
        iops[5] = 100.0;
        iops[6] = 100.0;
        let c = curve(&samples(&iops), 1 << 40).unwrap();
        assert_eq!(c.cliff_bytes, None);
    }

    #[test]
    fn the_worst_error_is_the_largest_period_difference() {
        let worst = worst_error_pct(&[100.0, 200.0], &[105.0, 180.0]);
        assert!((worst - 10.0).abs() < 1e-9, "{worst}");
    }
}
