//! Thermal throttling found and named: which intervals of a run the drive spent slowed down by
//! its own heat, from the health reading each sample carries (see docs/telemetry.md). Not the
//! lifetime throttle of [`super::throttle`], which caps the write rate for endurance.
//!
//! Defined in docs/charts-and-reports.md ("Thermal throttling"): an interval is throttled when
//! the drive's thermal-management counters rose during it (a TMT1 or TMT2 transition, or time
//! in either step), or, for a drive that reports a temperature and a warning threshold but no
//! counters, when its temperature was at or above the threshold and its IOPS fell more than
//! [`FALL`] below the last interval that was not throttled (the rule is
//! [`crate::stats::throttled`], which the steady-state test uses too). Throttled intervals are
//! kept out of the fade and the steady-state judgement: their level is the drive's cooling,
//! not its flash.

use crate::drive::Health;
use crate::stats::Sample;

pub use crate::stats::throttled::{throttled, ThrottleTracker, FALL};

/// The heat of a run: its temperatures and the throttling found.
#[derive(Clone, Debug, PartialEq)]
pub struct Thermal {
    /// Lowest and highest temperature read, °C.
    pub min_c: f64,
    pub max_c: f64,
    /// The drive's warning threshold, °C, where it reports one.
    pub warning_c: Option<f64>,
    /// Throttled spans: (start, end) seconds on the run's clock, consecutive throttled
    /// intervals joined.
    pub spans: Vec<(f64, f64)>,
    /// Seconds of the throttled intervals.
    pub throttled_s: f64,
    /// The lowest temperature of a throttled interval, °C (None without one or without a
    /// temperature).
    pub throttled_above_c: Option<f64>,
    /// TMT1 and TMT2 transitions during the run (the counters' rise from the first reading).
    pub tmt1: Option<u64>,
    pub tmt2: Option<u64>,
}

impl Thermal {
    /// The heat of `samples`; None when none carries a temperature.
    pub fn of(samples: &[Sample]) -> Option<Thermal> {
        let temps = || {
            samples
                .iter()
                .filter_map(|s| s.health.as_ref()?.temperature_c)
        };
        let max_c = temps().reduce(f64::max)?;
        let min_c = temps().fold(max_c, f64::min);
        let flags = throttled(samples);
        let mut spans: Vec<(f64, f64)> = Vec::new();
        let mut throttled_s = 0.0;
        let mut above: Option<f64> = None;
        for (s, _) in samples.iter().zip(&flags).filter(|(_, &f)| f) {
            throttled_s += s.t_end_s - s.t_start_s;
            if let Some(t) = s.health.as_ref().and_then(|h| h.temperature_c) {
                above = Some(above.map_or(t, |a: f64| a.min(t)));
            }
            match spans.last_mut() {
                Some(last) if (last.1 - s.t_start_s).abs() < 1e-6 => last.1 = s.t_end_s,
                _ => spans.push((s.t_start_s, s.t_end_s)),
            }
        }
        let healths: Vec<&Health> = samples.iter().filter_map(|s| s.health.as_ref()).collect();
        let rise = |f: fn(&Health) -> Option<u64>| {
            let first = healths.iter().find_map(|h| f(h))?;
            let last = healths.iter().rev().find_map(|h| f(h))?;
            Some(last.saturating_sub(first))
        };
        Some(Thermal {
            min_c,
            max_c,
            warning_c: healths.iter().find_map(|h| h.warning_c),
            spans,
            throttled_s,
            throttled_above_c: above,
            tmt1: rise(|h| h.tmt1_count),
            tmt2: rise(|h| h.tmt2_count),
        })
    }

    /// The report's sentence: "throttled for 12 min above 70 °C (TMT1 ×3)", or "not throttled
    /// (highest 61 °C)".
    pub fn words(&self) -> String {
        if self.spans.is_empty() {
            return format!("not throttled (highest {:.0} °C)", self.max_c);
        }
        let minutes = self.throttled_s / 60.0;
        let time = if minutes >= 1.0 {
            format!("{minutes:.0} min")
        } else {
            format!("{:.0} s", self.throttled_s)
        };
        let above = self
            .throttled_above_c
            .map(|t| format!(" above {:.0} °C", t.floor()))
            .unwrap_or_default();
        let steps: Vec<String> = [("TMT1", self.tmt1), ("TMT2", self.tmt2)]
            .into_iter()
            .filter_map(|(name, n)| n.filter(|&n| n > 0).map(|n| format!("{name} ×{n}")))
            .collect();
        let steps = if steps.is_empty() {
            String::new()
        } else {
            format!(" ({})", steps.join(", "))
        };
        format!("throttled for {time}{above}{steps}")
    }
}

impl Thermal {
    /// The heat of a run directory's samples (a SLOG run's sustained phase, one phase of an
    /// experiment); None when they cannot be read or carry no temperature.
    pub fn of_dir(dir: &std::path::Path) -> Option<Thermal> {
        Thermal::of(&crate::results::read_samples(dir).ok()?)
    }

    /// The heat of an experiment's phases laid end to end (each starts where the one before it
    /// ended, as its fade chart lays them); None when no phase carries a temperature.
    pub fn of_experiment(exp: &crate::results::Experiment) -> Option<Thermal> {
        let mut all = Vec::new();
        let mut t0 = 0.0;
        for run in exp.phases.iter().filter_map(|p| p.run.as_ref()) {
            all.extend(run.samples.iter().map(|s| Sample {
                t_start_s: s.t_start_s + t0,
                t_end_s: s.t_end_s + t0,
                ..s.clone()
            }));
            t0 += run.samples.last().map_or(0.0, |s| s.t_end_s);
        }
        Thermal::of(&all)
    }

    /// The temperature range and the throttled time in one line, for reports that give heat
    /// a row rather than a paragraph: "41–78 °C, throttled 12 min (TMT1 ×3)" or "41–50 °C,
    /// not throttled".
    pub fn range_words(&self) -> String {
        let range = format!("{:.0}–{:.0} °C", self.min_c, self.max_c);
        match self.words().strip_prefix("throttled for ") {
            Some(rest) => format!("{range}, throttled {rest}"),
            None => format!("{range}, not throttled"),
        }
    }

    /// [`Thermal::words`] and, when the drive throttled, what the analysis did with those
    /// intervals: the sentence the report and the terminal print.
    pub fn sentence(&self) -> String {
        if self.spans.is_empty() {
            return self.words();
        }
        format!(
            "{}; its intervals are kept out of the fade and the steady state",
            self.words()
        )
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::stats::IntervalStats;

    /// Interval `i` of 10 s at `iops` with a reading of `temp` °C and TMT1 `tmt` seconds.
    fn sample(i: u64, iops: u64, temp: f64, tmt: Option<(u64, f64)>) -> Sample {
        let mut stats = IntervalStats::new();
        stats.write.record_n(iops * 10, iops * 10 * 4096, 1000);
        stats.health = Some(Health {
            temperature_c: Some(temp),
            warning_c: Some(70.0),
            tmt1_count: tmt.map(|t| t.0),
            tmt1_s: tmt.map(|t| t.1),
            ..Default::default()
        });
        let t0 = i as f64 * 10.0;
        Sample::new(i, t0, t0 + 10.0, &stats, 0)
    }

    #[test]
    fn rising_throttle_counters_mark_an_interval_and_the_report_names_them() {
        let samples = [
            sample(0, 1000, 60.0, Some((0, 0.0))),
            sample(1, 1000, 69.0, Some((0, 0.0))),
            sample(2, 500, 71.0, Some((1, 4.0))),
            sample(3, 500, 72.0, Some((1, 14.0))),
            sample(4, 1000, 68.0, Some((1, 14.0))),
            sample(5, 500, 71.0, Some((2, 20.0))),
        ];
        assert_eq!(throttled(&samples), [false, false, true, true, false, true]);
        let t = Thermal::of(&samples).unwrap();
        assert_eq!(t.spans, [(20.0, 40.0), (50.0, 60.0)]);
        assert_eq!(t.words(), "throttled for 30 s above 71 °C (TMT1 ×2)");
        assert_eq!(
            t.range_words(),
            "60–72 °C, throttled 30 s above 71 °C (TMT1 ×2)"
        );
    }

    #[test]
    fn without_counters_a_hot_interval_is_throttled_only_when_its_iops_fall() {
        let samples = [
            sample(0, 1000, 60.0, None),
            sample(1, 980, 71.0, None),
            sample(2, 600, 72.0, None),
            sample(3, 600, 72.0, None),
            sample(4, 600, 65.0, None),
        ];
        assert_eq!(throttled(&samples), [false, false, true, true, false]);
        let t = Thermal::of(&samples).unwrap();
        assert_eq!(t.words(), "throttled for 20 s above 72 °C");
    }

    #[test]
    fn a_cool_drive_is_not_throttled_and_says_its_highest_temperature() {
        let samples = [
            sample(0, 1000, 40.0, Some((0, 0.0))),
            sample(1, 800, 45.0, Some((0, 0.0))),
        ];
        let t = Thermal::of(&samples).unwrap();
        assert!(t.spans.is_empty());
        assert_eq!(t.words(), "not throttled (highest 45 °C)");
        assert_eq!(t.range_words(), "40–45 °C, not throttled");
    }
}
