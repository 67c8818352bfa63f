//! How far and how fast a run faded, from its samples: the first and last intervals' IOPS, the
//! lowest, and how long it took to lose half of what it lost.

use std::time::Duration;

use serde::{Deserialize, Serialize};

use crate::stats::Sample;

/// The fade of one run.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct Fade {
    /// IOPS of the first interval.
    pub start_iops: f64,
    /// IOPS of the last full interval: the last sample at least as long as the configured
    /// interval (less 1 %), so a short partial sample at the end of an interrupted or
    /// byte-limited run is not taken as the end; the last sample when none is full.
    pub end_iops: f64,
    /// Lowest interval IOPS.
    pub min_iops: f64,
    /// End as a percentage of start.
    pub end_pct_of_start: f64,
    /// Engine-clock seconds until IOPS first fell halfway from start to end (None when it did
    /// not fade).
    pub half_fade_s: Option<f64>,
}

impl Fade {
    /// The fade of a run's samples taken every `interval`; None when there are none.
    pub fn of(samples: &[Sample], interval: Duration) -> Option<Fade> {
        let first = samples.first()?;
        let full = |s: &&Sample| s.t_end_s - s.t_start_s >= 0.99 * interval.as_secs_f64();
        let last = samples.iter().rev().find(full).or(samples.last())?;
        let (start, end) = (first.iops, last.iops);
        let halfway = (start + end) / 2.0;
        Some(Fade {
            start_iops: start,
            end_iops: end,
            min_iops: samples.iter().map(|s| s.iops).fold(f64::INFINITY, f64::min),
            end_pct_of_start: if start > 0.0 {
                100.0 * end / start
            } else {
                0.0
            },
            half_fade_s: (end < start)
                .then(|| {
                    samples
                        .iter()
                        .find(|s| s.iops <= halfway)
                        .map(|s| s.t_end_s)
                })
                .flatten(),
        })
    }

    /// One line for the soak report.
    pub fn line(&self) -> String {
        let half = self
            .half_fade_s
            .map(|s| {
                format!(
                    "; half of the fade after {}",
                    crate::units::format_duration(std::time::Duration::from_secs_f64(s))
                )
            })
            .unwrap_or_default();
        format!(
            "  {:<28} {:.0} → {:.0} IOPS ({:.0} % of start, lowest {:.0}){half}\n",
            "Fade (first → last interval)",
            self.start_iops,
            self.end_iops,
            self.end_pct_of_start,
            self.min_iops
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

    fn sample(i: u64, iops: u64) -> Sample {
        span(i, i as f64, i as f64 + 1.0, iops as f64)
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
            (6000.0, 2000.0, 500.0)
        );
        // Only partial samples: the last one is all there is.
        let f = Fade::of(&samples[3..], Duration::from_secs(10)).unwrap();
        assert_eq!(f.end_iops, 500.0);
    }
}
