//! Which intervals a drive spent thermally throttled, sample by sample, from the health reading
//! each carries: the one rule the steady-state test ([`super::steady`]) and the analysis
//! (`analysis::thermal`, defined in docs/charts-and-reports.md, "Thermal throttling") share.

use super::Sample;
use crate::drive::Health;

/// The share of IOPS an interval must lose, against the last unthrottled one, for a hot drive
/// without throttle counters to count as throttled.
pub const FALL: f64 = 0.10;

/// The temperature, °C, a drive that reports neither throttle counters nor a warning threshold
/// counts as hot from: the top of the 0–70 °C operating range SATA drives are specified for.
/// ATA drives are judged by it: their SMART attributes carry no usable limit (attribute 194's
/// normalized threshold is 0 on most drives and its value is vendor-scaled) and the SCT status
/// page holds the temperature but not the limits (those are in the SCT temperature history
/// table, which needs an SCT write to read). See docs/telemetry.md.
pub const DEFAULT_LIMIT_C: f64 = 70.0;

/// Follows a run's samples one by one and says which were throttled (the recorder's live
/// steady-state test and the analysis use the same rule).
#[derive(Clone, Debug, Default)]
pub struct ThrottleTracker {
    /// The last reading seen.
    last: Option<Health>,
    /// IOPS of the last interval not throttled.
    free_iops: Option<f64>,
}

impl ThrottleTracker {
    /// Whether `s`, the next sample, was throttled.
    pub fn push(&mut self, s: &Sample) -> bool {
        let Some(h) = &s.health else {
            return false;
        };
        let counted = |h: &Health| {
            h.tmt1_count.unwrap_or(0) + h.tmt2_count.unwrap_or(0) + h.throttle_events.unwrap_or(0)
        };
        let timed = |h: &Health| h.tmt1_s.unwrap_or(0.0) + h.tmt2_s.unwrap_or(0.0);
        let has_counters =
            h.tmt1_count.is_some() || h.tmt1_s.is_some() || h.throttle_events.is_some();
        let throttled = if has_counters {
            self.last
                .as_ref()
                .is_some_and(|l| counted(h) > counted(l) || timed(h) > timed(l))
        } else {
            let limit = h.warning_c.unwrap_or(DEFAULT_LIMIT_C);
            let hot = h.temperature_c.is_some_and(|t| t >= limit);
            hot && self.free_iops.is_some_and(|f| s.iops < f * (1.0 - FALL))
        };
        if !throttled {
            self.free_iops = Some(s.iops);
        }
        self.last = Some(h.clone());
        throttled
    }
}

/// Which of `samples` were throttled, in order.
pub fn throttled(samples: &[Sample]) -> Vec<bool> {
    let mut t = ThrottleTracker::default();
    samples.iter().map(|s| t.push(s)).collect()
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::stats::IntervalStats;

    /// A SATA drive's interval `i` of 10 s at `iops` and `temp` °C: a temperature only, as an
    /// ATA reading carries (no counters, no threshold).
    fn sata(i: u64, iops: u64, temp: f64) -> Sample {
        let mut stats = IntervalStats::new();
        stats.write.record_n(iops * 10, iops * 10 * 4096, 1000);
        stats.health = Some(Health {
            temperature_c: Some(temp),
            ..Default::default()
        });
        let t0 = i as f64 * 10.0;
        Sample::new(i, t0, t0 + 10.0, &stats, 0)
    }

    #[test]
    fn a_sata_drive_throttles_when_it_passes_the_default_limit_and_its_iops_fall() {
        let hot = DEFAULT_LIMIT_C + 2.0;
        let samples = [
            sata(0, 1000, 50.0),
            // Hot but as fast: not throttled.
            sata(1, 1000, hot),
            // Hot and slower by more than FALL: throttled, until it cools.
            sata(2, 700, hot),
            sata(3, 650, hot + 1.0),
            sata(4, 650, DEFAULT_LIMIT_C - 5.0),
            // Slower but cool: the flash, not the heat.
            sata(5, 400, DEFAULT_LIMIT_C - 5.0),
        ];
        assert_eq!(
            throttled(&samples),
            [false, false, true, true, false, false]
        );
    }

    #[test]
    fn a_threshold_the_drive_reports_replaces_the_default() {
        let mut samples = [sata(0, 1000, 60.0), sata(1, 500, 66.0)];
        assert_eq!(throttled(&samples), [false, false]);
        for s in &mut samples {
            s.health.as_mut().unwrap().warning_c = Some(65.0);
        }
        assert_eq!(throttled(&samples), [false, true]);
    }

    /// An NVMe drive with the OCP log whose standard TMT counters stay at 0: its throttling
    /// events rising mark the interval, whatever its temperature and IOPS.
    #[test]
    fn ocp_throttling_events_rising_mark_the_interval() {
        let events = [0, 0, 1, 3, 3];
        let samples: Vec<Sample> = events
            .iter()
            .enumerate()
            .map(|(i, &n)| {
                let mut s = sata(i as u64, 1000, 40.0);
                let h = s.health.as_mut().unwrap();
                (h.tmt1_count, h.tmt2_count, h.throttle_events) = (Some(0), Some(0), Some(n));
                s
            })
            .collect();
        assert_eq!(throttled(&samples), [false, false, true, true, false]);
    }
}
