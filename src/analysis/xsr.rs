//! The figures of a cross-stimulus-recovery experiment (SNIA XSR, `experiment xsr`): per
//! segment (1024 KiB sequential writes, 8 KiB random writes, 1024 KiB sequential writes again)
//! its level and how long the drive took to reach it after the stimulus changed.
//!
//! The rule, on each segment's samples (a partial last sample left out):
//! 1. the segment's level is the rate of its last five samples (SNIA's five-round
//!    steady-state window): their bytes and I/Os over their time;
//! 2. its band is the level ± 10 % (SNIA's data excursion of 20 % of the window's average,
//!    split evenly about it);
//! 3. each sample's held rate is the rate of the five samples ending with it (fewer at the
//!    segment's start), so that one short sample (a few large transfers more or less) does not
//!    read as a change of level;
//! 4. the recovery time is the end of the last sample whose held rate lies outside the band,
//!    counted from the segment's start (0 when none does): from then on the level holds within
//!    the band;
//! 5. a segment is settled when the held rates of its last five samples all lie in the band;
//!    one that is not needs a longer `--segment`.
//!
//! The return ratio is the second sequential segment's level over the first's.

use serde::Serialize;

use super::Figures;
use crate::results::Experiment;
use crate::stats::steady::SNIA;
use crate::stats::Sample;

/// The kind's name in experiment.json.
pub const NAME: &str = "xsr";
/// The workload-independent preconditioning's phase name.
pub const PRECONDITION: &str = "precondition";
/// The segments' phase names, in order: sequential, random, sequential.
pub const SEGMENTS: [&str; 3] = ["seq-1", "random", "seq-2"];
/// Samples of a segment's end that make its level (SNIA's steady-state window).
pub const WINDOW: usize = SNIA.window_rounds;
/// Half the band's width, as a share of the level: SNIA's range limit split evenly about it.
pub const BAND: f64 = SNIA.max_range_pct / 200.0;

/// One segment.
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct Segment {
    /// Its phase name (`seq-1`, `random`, `seq-2`).
    pub name: String,
    /// What it wrote: `1 MiB sequential writes`.
    pub stimulus: String,
    /// Where it starts on the chart's time axis (the first segment's start is 0), seconds.
    pub start_s: f64,
    pub seconds: f64,
    /// Rule 1.
    pub level_mb_per_s: f64,
    pub level_iops: f64,
    /// Rule 2.
    pub band_low_mb_per_s: f64,
    pub band_high_mb_per_s: f64,
    /// Rule 4; None for a segment of fewer than five samples.
    pub recovery_s: Option<f64>,
    /// Rule 5.
    pub settled: bool,
}

impl Segment {
    /// The recovery time as the terminal, the report and the chart give it: `1m05s`, with
    /// `, not settled` (rule 5), or `too short`.
    pub fn recovery_words(&self) -> String {
        match self.recovery_s {
            None => "too short".into(),
            Some(s) => {
                let time =
                    crate::units::format_duration(std::time::Duration::from_secs_f64(s.max(0.0)));
                if self.settled {
                    time
                } else {
                    format!("{time}, not settled")
                }
            }
        }
    }
}

/// One sample on the chart's time axis.
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct XsrPoint {
    /// The sample's end, seconds from the first segment's start.
    pub t_s: f64,
    pub mb_per_s: f64,
    pub iops: f64,
    pub segment: String,
}

/// The XSR figures of an experiment.
#[derive(Clone, Debug, Default, PartialEq, Serialize)]
pub struct XsrFigures {
    /// The segments that ran, in order.
    pub segments: Vec<Segment>,
    /// The second sequential segment's level over the first's.
    pub return_ratio: Option<f64>,
    pub points: Vec<XsrPoint>,
}

impl XsrFigures {
    /// The figures of `exp`'s segments that have samples.
    pub fn of(exp: &Experiment) -> XsrFigures {
        let mut figures = XsrFigures::default();
        let mut t = 0.0;
        for name in SEGMENTS {
            let Some(run) = exp
                .phases
                .iter()
                .find(|p| p.record.phase.name == name)
                .and_then(|p| p.run.as_ref())
            else {
                continue;
            };
            let samples = super::drawn_intervals(&run.samples, run.info.workload.interval);
            let (Some(first), Some(last)) = (samples.first(), samples.last()) else {
                continue;
            };
            let w = &run.info.workload;
            let stimulus = format!(
                "{} {} writes",
                crate::units::format_bytes(w.bs),
                if w.random_pct == 0 {
                    "sequential"
                } else {
                    "random"
                }
            );
            let mut segment = segment(name, stimulus, samples);
            segment.start_s = t;
            figures.points.extend(samples.iter().map(|s| XsrPoint {
                t_s: t + s.t_end_s - first.t_start_s,
                mb_per_s: s.mb_per_s,
                iops: s.iops,
                segment: name.to_string(),
            }));
            t += last.t_end_s - first.t_start_s;
            figures.segments.push(segment);
        }
        let level = |name: &str| {
            figures
                .segments
                .iter()
                .find(|s| s.name == name)
                .map(|s| s.level_mb_per_s)
        };
        figures.return_ratio = match (level(SEGMENTS[0]), level(SEGMENTS[2])) {
            (Some(a), Some(b)) if a > 0.0 => Some(b / a),
            _ => None,
        };
        figures
    }
}

/// A segment's level, band and recovery from its samples (at least one).
fn segment(name: &str, stimulus: String, samples: &[Sample]) -> Segment {
    let window = &samples[samples.len().saturating_sub(WINDOW)..];
    let level = Figures::of_samples(window);
    let (low, high) = (level.mb_per_s * (1.0 - BAND), level.mb_per_s * (1.0 + BAND));
    let start = samples[0].t_start_s;
    let held = |i: usize| Figures::of_samples(&samples[(i + 1).saturating_sub(WINDOW)..=i]);
    let last_outside = (0..samples.len()).rev().find(|&i| {
        let rate = held(i).mb_per_s;
        rate < low || rate > high
    });
    let full = samples.len() >= WINDOW;
    Segment {
        name: name.to_string(),
        stimulus,
        start_s: 0.0,
        seconds: samples[samples.len() - 1].t_end_s - start,
        level_mb_per_s: level.mb_per_s,
        level_iops: level.iops,
        band_low_mb_per_s: low,
        band_high_mb_per_s: high,
        recovery_s: full.then(|| last_outside.map_or(0.0, |i| samples[i].t_end_s - start)),
        settled: full && last_outside.is_none_or(|i| i < samples.len() - WINDOW),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// One-second samples at the given MB/s, from 0 s.
    fn samples(mbs: &[f64]) -> Vec<Sample> {
        mbs.iter()
            .enumerate()
            .map(|(i, &mb)| {
                let mut s: Sample = serde_json::from_value(serde_json::json!({
                    "index": i, "t_start_s": i as f64, "t_end_s": i as f64 + 1.0,
                    "ops": (mb * 1e6 / 8192.0) as u64, "bytes": (mb * 1e6) as u64,
                    "iops": mb * 1e6 / 8192.0, "mb_per_s": mb, "lat_us": null,
                    "errors": 0, "bytes_written_total": 0
                }))
                .unwrap();
                s.mb_per_s = mb;
                s
            })
            .collect()
    }

    /// A drive slow after the change that climbs back: recovered when it last left the band.
    #[test]
    fn recovery_ends_with_the_last_sample_outside_the_band() {
        let s = samples(&[
            50.0, 80.0, 95.0, 120.0, 101.0, 99.0, 100.0, 102.0, 98.0, 100.0,
        ]);
        let seg = segment("seq-2", "x".into(), &s);
        assert!((seg.level_mb_per_s - 99.8).abs() < 0.01, "{seg:?}");
        assert_eq!(seg.recovery_s, Some(5.0)); // held rates 50, 65, 75, 86, 89.2, 99…: the fifth ends at 5 s
        assert!(seg.settled);
    }

    /// A level that never held over its last five samples is not settled; a flat one
    /// recovered at once.
    #[test]
    fn an_unsettled_end_and_a_flat_segment() {
        let seg = segment(
            "random",
            "x".into(),
            &samples(&[10.0, 20.0, 30.0, 40.0, 50.0, 60.0]),
        );
        // Held rates 10, 15, 20, 25, 30, 40 against a level of 40 (36–44).
        assert!(!seg.settled);
        assert_eq!(seg.recovery_s, Some(5.0));
        let flat = segment("seq-1", "x".into(), &samples(&[100.0; 8]));
        assert_eq!(flat.recovery_s, Some(0.0));
        assert!(flat.settled);
        let short = segment("seq-1", "x".into(), &samples(&[100.0; 3]));
        assert_eq!(short.recovery_s, None);
        assert!(!short.settled);
    }
}
