//! Fewer points for long runs without hiding what matters: each bucket of consecutive points
//! keeps its lowest and its highest point (in their original order), so a one-interval collapse
//! in a 24-hour soak still shows; and a centred moving average over a span of time computed
//! over every point.

/// At most this many buckets per series (two points each) whatever the run's length.
pub const MAX_BUCKETS: usize = 1500;

/// `points` reduced to the minimum and maximum of each of at most `buckets` buckets, plus the
/// series' first and last points, so the line starts and ends where the data does.
pub fn min_max(points: &[(f64, f64)], buckets: usize) -> Vec<(f64, f64)> {
    if points.len() <= 2 * buckets.max(1) {
        return points.to_vec();
    }
    let n = points.len();
    let mut out = Vec::with_capacity(2 * buckets);
    for b in 0..buckets {
        let chunk = &points[b * n / buckets..(b + 1) * n / buckets];
        if chunk.is_empty() {
            continue;
        }
        let (mut lo, mut hi) = (0, 0);
        for (i, p) in chunk.iter().enumerate() {
            if p.1 < chunk[lo].1 {
                lo = i;
            }
            if p.1 > chunk[hi].1 {
                hi = i;
            }
        }
        out.push(chunk[lo.min(hi)]);
        if lo != hi {
            out.push(chunk[lo.max(hi)]);
        }
    }
    if out.first() != points.first() {
        out.insert(0, points[0]);
    }
    if out.last() != points.last() {
        out.push(points[n - 1]);
    }
    out
}

/// The lowest and highest y of `points` in at most `buckets` buckets of at least two points
/// each, as (the bucket's middle x, lowest, highest): the outline of a min–max band (points
/// without a number left out).
pub fn envelope(points: &[(f64, f64)], buckets: usize) -> Vec<(f64, f64, f64)> {
    let points: Vec<(f64, f64)> = points.iter().copied().filter(|p| p.1.is_finite()).collect();
    let n = points.len();
    let buckets = buckets.min(n / 2).max(1);
    (0..buckets)
        .map(|b| &points[b * n / buckets..(b + 1) * n / buckets])
        .filter(|chunk| !chunk.is_empty())
        .map(|chunk| {
            let (lo, hi) = chunk
                .iter()
                .fold((f64::INFINITY, f64::NEG_INFINITY), |(lo, hi), p| {
                    (lo.min(p.1), hi.max(p.1))
                });
            (chunk[chunk.len() / 2].0, lo, hi)
        })
        .collect()
}

/// The runs of `points` between gaps: a point whose y is not a number (an interval in which
/// the tool was stopped) holds no data, and no line is drawn across it.
pub fn runs(points: &[(f64, f64)]) -> impl Iterator<Item = &[(f64, f64)]> {
    points
        .split(|p| !p.1.is_finite())
        .filter(|run| !run.is_empty())
}

/// [`min_max`] of each run of `points` between gaps (see [`runs`]), one line per run.
pub fn min_max_runs(points: &[(f64, f64)], buckets: usize) -> Vec<Vec<(f64, f64)>> {
    runs(points).map(|run| min_max(run, buckets)).collect()
}

/// The centred moving average of `points`' y over a span of `window` in x: each point is the
/// mean of the points within `window / 2` of it on either side (fewer at the ends). Points are
/// in x order; a span in x, not a count of points, so intervals of different lengths weigh
/// by the time they cover and a plateau stays flat up to its edges.
pub fn moving_average(points: &[(f64, f64)], window: f64) -> Vec<(f64, f64)> {
    let half = window.max(0.0) / 2.0;
    let mut prefix = Vec::with_capacity(points.len() + 1);
    prefix.push(0.0);
    for p in points {
        prefix.push(prefix.last().unwrap() + p.1);
    }
    let (mut lo, mut hi) = (0, 0);
    points
        .iter()
        .map(|&(x, _)| {
            while points[lo].0 < x - half {
                lo += 1;
            }
            while hi < points.len() && points[hi].0 <= x + half {
                hi += 1;
            }
            (x, (prefix[hi] - prefix[lo]) / (hi - lo) as f64)
        })
        .collect()
}

/// A moving-average span of about 1 % of a run lasting `span` and sampled every `step`: at
/// least five steps; None when that leaves fewer than 20 steps in the run (nothing to smooth).
pub fn average_window(span: f64, step: f64) -> Option<f64> {
    (step > 0.0 && span >= 20.0 * step).then(|| (span / 100.0).max(5.0 * step))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_single_dip_survives_downsampling() {
        let mut points: Vec<(f64, f64)> = (0..86_400).map(|i| (i as f64, 5000.0)).collect();
        points[43_210].1 = 12.0;
        points[70_000].1 = 9000.0;
        let few = min_max(&points, MAX_BUCKETS);
        assert!(few.len() <= 2 * MAX_BUCKETS);
        assert!(few.contains(&(43_210.0, 12.0)));
        assert!(few.contains(&(70_000.0, 9000.0)));
        assert!(few.windows(2).all(|w| w[0].0 < w[1].0), "x stays in order");
    }

    #[test]
    fn downsampling_keeps_the_first_and_last_points() {
        // A rising middle: neither end is the lowest or highest of its bucket.
        let points: Vec<(f64, f64)> = (0..1000)
            .map(|i| {
                (
                    i as f64,
                    if i == 0 || i == 999 {
                        50.0
                    } else {
                        (i % 7) as f64 * 100.0
                    },
                )
            })
            .collect();
        let out = min_max(&points, 10);
        assert_eq!(out.first(), Some(&(0.0, 50.0)));
        assert_eq!(out.last(), Some(&(999.0, 50.0)));
        assert!(out.windows(2).all(|w| w[0].0 < w[1].0), "in time order");
        assert!(out.len() <= 2 * 10 + 2);
        assert!(
            out.contains(&(6.0, 600.0)) && out.contains(&(7.0, 0.0)),
            "each bucket's extremes"
        );
    }

    #[test]
    fn a_gap_splits_the_series_into_runs_and_is_never_drawn() {
        let points = [
            (1.0, 5.0),
            (2.0, 6.0),
            (3.0, f64::NAN),
            (4.0, 7.0),
            (5.0, f64::NAN),
        ];
        let lines = min_max_runs(&points, 10);
        assert_eq!(lines, vec![vec![(1.0, 5.0), (2.0, 6.0)], vec![(4.0, 7.0)]]);
    }

    #[test]
    fn short_series_are_kept_whole() {
        let points = vec![(0.0, 1.0), (1.0, 3.0), (2.0, 2.0)];
        assert_eq!(min_max(&points, 10), points);
    }

    #[test]
    fn moving_average_is_centred() {
        let points: Vec<(f64, f64)> = [1.0, 2.0, 3.0, 4.0, 5.0]
            .iter()
            .enumerate()
            .map(|(i, &y)| (i as f64, y))
            .collect();
        let avg = moving_average(&points, 2.0);
        assert_eq!(avg[0], (0.0, 1.5));
        assert_eq!(avg[2], (2.0, 3.0));
        assert_eq!(avg[4], (4.0, 4.5));
    }

    #[test]
    fn moving_average_spans_time_not_points() {
        // Ten 1 s intervals at 100, then one 10 s interval at 40: a 4 s span around t = 5 sees
        // only the 1 s intervals; around t = 20 only the long one.
        let mut points: Vec<(f64, f64)> = (1..=10).map(|t| (t as f64, 100.0)).collect();
        points.push((20.0, 40.0));
        let avg = moving_average(&points, 4.0);
        assert_eq!(avg[4], (5.0, 100.0), "a plateau stays flat");
        assert_eq!(avg[10], (20.0, 40.0));
        assert_eq!(average_window(3600.0, 1.0), Some(36.0));
        assert_eq!(average_window(100.0, 1.0), Some(5.0));
        assert_eq!(average_window(10.0, 1.0), None);
    }
}
