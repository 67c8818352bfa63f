//! Which intervals a drive spent thermally throttled, sample by sample, from the health reading
//! each carries: the one rule the steady-state test ([`super::steady`]) and the analysis
//! (`analysis::thermal`, defined in docs/charts-and-reports.md, "Thermal throttling") share.

use super::Sample;
use crate::drive::Health;

/// The share of IOPS an interval must lose, against the last unthrottled one, for a hot drive
/// without throttle counters to count as throttled.
pub const FALL: f64 = 0.10;

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
        let counted = |h: &Health| h.tmt1_count.unwrap_or(0) + h.tmt2_count.unwrap_or(0);
        let timed = |h: &Health| h.tmt1_s.unwrap_or(0.0) + h.tmt2_s.unwrap_or(0.0);
        let has_counters = h.tmt1_count.is_some() || h.tmt1_s.is_some();
        let throttled = if has_counters {
            self.last
                .as_ref()
                .is_some_and(|l| counted(h) > counted(l) || timed(h) > timed(l))
        } else {
            let hot = h
                .temperature_c
                .zip(h.warning_c)
                .is_some_and(|(t, w)| t >= w);
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
