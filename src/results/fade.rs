//! How far and how fast a run faded, from its samples: the first and last intervals' IOPS, the
//! lowest, and how long it took to lose half of what it lost.

use serde::{Deserialize, Serialize};

use crate::stats::Sample;

/// The fade of one run.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct Fade {
    /// IOPS of the first interval.
    pub start_iops: f64,
    /// IOPS of the last full interval (the last one when every interval is partial).
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
    /// The fade of a run's samples; None when there are none.
    pub fn of(samples: &[Sample]) -> Option<Fade> {
        let first = samples.first()?;
        let full =
            |s: &&Sample| s.t_end_s - s.t_start_s >= 0.99 * (first.t_end_s - first.t_start_s);
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

    fn sample(i: u64, iops: u64) -> Sample {
        let mut stats = IntervalStats::new();
        stats.write.record_n(iops, iops * 4096, 1000);
        Sample::new(i, i as f64, i as f64 + 1.0, &stats, 0)
    }

    #[test]
    fn fade_reads_start_end_and_half_time() {
        let samples: Vec<Sample> = [6000, 5000, 3000, 2000, 1000, 1000]
            .iter()
            .enumerate()
            .map(|(i, &v)| sample(i as u64, v))
            .collect();
        let f = Fade::of(&samples).unwrap();
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
        assert_eq!(Fade::of(&samples).unwrap().half_fade_s, None);
        assert!(Fade::of(&[]).is_none());
    }
}
