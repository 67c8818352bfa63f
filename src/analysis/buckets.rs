//! A long run's interval series in buckets: when a series has more intervals than a chart can
//! show (a 24-hour soak at 1 s has 86 400), consecutive intervals are grouped into buckets of
//! equal count and each bucket is described by the 5th, 50th and 95th percentile of its
//! intervals' values (nearest rank) and its highest value. A bimodal per-second pattern shows
//! as a wide p5–p95 band, not as a min–max zigzag.

/// One bucket of consecutive intervals.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Bucket {
    /// The middle of the bucket on the x axis: halfway between its first and last interval.
    pub x: f64,
    pub p5: f64,
    pub p50: f64,
    pub p95: f64,
    pub max: f64,
}

/// Intervals per bucket so that a series of `n` intervals has at most `max_buckets` buckets;
/// None when the series is short enough to draw every interval (at most twice `max_buckets`).
pub fn per_bucket(n: usize, max_buckets: usize) -> Option<usize> {
    (n > 2 * max_buckets.max(1)).then(|| n.div_ceil(max_buckets.max(1)))
}

/// The value of rank `q` (0–1) of the sorted `values`, nearest rank: the smallest value with
/// at least q of the values at or below it.
fn rank(sorted: &[f64], q: f64) -> f64 {
    let i = ((q * sorted.len() as f64).ceil() as usize).clamp(1, sorted.len()) - 1;
    sorted[i]
}

/// `points` (x ordered, every y a number) in buckets of `size` consecutive intervals; the last
/// bucket holds what is left.
pub fn buckets(points: &[(f64, f64)], size: usize) -> Vec<Bucket> {
    points
        .chunks(size.max(1))
        .map(|chunk| {
            let mut ys: Vec<f64> = chunk.iter().map(|p| p.1).collect();
            ys.sort_by(f64::total_cmp);
            Bucket {
                x: (chunk[0].0 + chunk[chunk.len() - 1].0) / 2.0,
                p5: rank(&ys, 0.05),
                p50: rank(&ys, 0.50),
                p95: rank(&ys, 0.95),
                max: ys[ys.len() - 1],
            }
        })
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A bucket holding 1…100 in shuffled order: p5 5, p50 50, p95 95, max 100, centred between
    /// its first and last x; the 20 left over form a bucket of their own.
    #[test]
    fn a_bucket_is_its_nearest_rank_percentiles_and_its_highest() {
        let mut points: Vec<(f64, f64)> = (0..100)
            .map(|i| (i as f64, ((i * 37) % 100 + 1) as f64))
            .collect();
        points.extend((100..120).map(|i| (i as f64, 7.0)));
        let b = buckets(&points, 100);
        assert_eq!(b.len(), 2);
        assert_eq!(
            b[0],
            Bucket {
                x: 49.5,
                p5: 5.0,
                p50: 50.0,
                p95: 95.0,
                max: 100.0
            }
        );
        assert_eq!((b[1].p5, b[1].p95, b[1].x), (7.0, 7.0, 109.5));
    }

    /// 86 400 one-second intervals in at most 1500 buckets: 58 each; 3000 intervals are drawn
    /// as they are.
    #[test]
    fn a_day_at_one_second_is_bucketed_and_a_short_run_is_not() {
        assert_eq!(per_bucket(86_400, 1500), Some(58));
        assert_eq!(per_bucket(3000, 1500), None);
    }
}
