//! Schedule keeping under an issue rate (`--rate-iops`, `--rate`): how far behind its due time
//! each I/O was issued, counted per interval without allocating, and the figures a record keeps.
//!
//! Every paced I/O has a lag (issue time minus due time, 0 when on time). One more than
//! [`LATE_NS`] behind is *late*: the target (or the host) could not keep up with the schedule.
//! Late I/Os are issued all the same, never dropped nor re-based, so the schedule stays the
//! same and delivered IOPS falls short of the rate by exactly what the device could not take.

use serde::{Deserialize, Serialize};

/// An I/O issued more than this after its due time is late (a sleeping thread wakes tens of
/// microseconds after its time; a millisecond is a device or host that fell behind).
pub const LATE_NS: u64 = 1_000_000;

/// One interval's schedule counts.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct Pacing {
    /// I/Os issued on a schedule.
    pub paced: u64,
    /// Sum of every paced I/O's lag.
    pub lag_ns: u64,
    /// I/Os issued more than [`LATE_NS`] after their due time, and their summed and largest lag.
    pub late: u64,
    pub late_ns: u64,
    pub late_max_ns: u64,
}

impl Pacing {
    /// Counts one paced I/O issued `lag_ns` after its due time.
    #[inline]
    pub fn record(&mut self, lag_ns: u64) {
        self.record_n(1, lag_ns);
    }

    /// Counts `count` paced I/Os of the same lag (a simulated I/O standing for several).
    #[inline]
    pub fn record_n(&mut self, count: u64, lag_ns: u64) {
        self.paced += count;
        self.lag_ns = self.lag_ns.saturating_add(count.saturating_mul(lag_ns));
        if lag_ns > LATE_NS {
            self.late += count;
            self.late_ns = self.late_ns.saturating_add(count.saturating_mul(lag_ns));
            self.late_max_ns = self.late_max_ns.max(lag_ns);
        }
    }

    pub fn merge(&mut self, other: &Pacing) {
        self.paced += other.paced;
        self.lag_ns = self.lag_ns.saturating_add(other.lag_ns);
        self.late += other.late;
        self.late_ns = self.late_ns.saturating_add(other.late_ns);
        self.late_max_ns = self.late_max_ns.max(other.late_max_ns);
    }
}

/// What a record keeps of the schedule of a sample or a run (absent when the run had no rate).
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize, schemars::JsonSchema)]
pub struct PacingSummary {
    /// I/Os issued on the schedule.
    pub paced: u64,
    /// Mean of issue time minus due time over every paced I/O (µs).
    pub mean_lag_us: f64,
    /// I/Os issued more than 1 ms after their due time.
    pub late: u64,
    /// Mean and largest lag of the late I/Os (µs; 0 when none was late).
    pub late_mean_us: f64,
    pub late_max_us: f64,
}

impl PacingSummary {
    /// The figures of `p`; `None` when nothing was paced.
    pub fn of(p: &Pacing) -> Option<PacingSummary> {
        (p.paced > 0).then(|| PacingSummary {
            paced: p.paced,
            mean_lag_us: p.lag_ns as f64 / p.paced as f64 / 1e3,
            late: p.late,
            late_mean_us: if p.late > 0 {
                p.late_ns as f64 / p.late as f64 / 1e3
            } else {
                0.0
            },
            late_max_us: p.late_max_ns as f64 / 1e3,
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn only_lags_beyond_a_millisecond_count_late() {
        let mut p = Pacing::default();
        p.record(50_000);
        p.record(LATE_NS);
        p.record_n(2, 3_000_000);
        let mut q = Pacing::default();
        q.record(9_000_000);
        p.merge(&q);
        let s = PacingSummary::of(&p).unwrap();
        assert_eq!((s.paced, s.late), (5, 3));
        assert_eq!(s.late_max_us, 9000.0);
        assert_eq!(s.late_mean_us, 5000.0);
        assert!((s.mean_lag_us - 3210.0).abs() < 1e-9, "{}", s.mean_lag_us);
        assert_eq!(PacingSummary::of(&Pacing::default()), None);
    }
}
