//! Notices when the process itself was stopped (SIGSTOP and SIGCONT, a machine that would not
//! schedule it): a thread that only sleeps and ticks; a tick that comes far later than it
//! slept marks the time since the one before as the tool's own, never the drive's. Nothing
//! that waits on the device can delay it.

use std::sync::atomic::{AtomicBool, AtomicU64, Ordering};
use std::sync::Mutex;
use std::time::{Duration, Instant};

/// How long the ticker sleeps between ticks.
const TICK: Duration = Duration::from_millis(50);
/// A tick this much later than due means the process was not running.
const LATE: Duration = Duration::from_secs(2);

/// The spans (seconds from the run's start) in which the process was stopped.
pub struct StopWatch {
    start: Instant,
    /// The last tick, in nanoseconds from `start`.
    last_ns: AtomicU64,
    stopped: Mutex<Vec<(f64, f64)>>,
}

impl StopWatch {
    pub fn new(start: Instant) -> Self {
        StopWatch {
            start,
            last_ns: AtomicU64::new(0),
            stopped: Mutex::new(Vec::new()),
        }
    }

    /// Ticks until `stop` is set.
    pub fn run(&self, stop: &AtomicBool) {
        while !stop.load(Ordering::Relaxed) {
            std::thread::sleep(TICK);
            let now = Instant::now();
            if let Some(gap) = self.overdue(now) {
                self.stopped
                    .lock()
                    .unwrap_or_else(|e| e.into_inner())
                    .push(gap);
            }
            let ns = now.saturating_duration_since(self.start).as_nanos();
            self.last_ns
                .store(u64::try_from(ns).unwrap_or(u64::MAX), Ordering::Relaxed);
        }
    }

    /// The span since the last tick when it is far longer than a tick: the process was stopped.
    fn overdue(&self, now: Instant) -> Option<(f64, f64)> {
        let last = Duration::from_nanos(self.last_ns.load(Ordering::Relaxed));
        let now = now.saturating_duration_since(self.start);
        (now.saturating_sub(last) > TICK + LATE).then_some((last.as_secs_f64(), now.as_secs_f64()))
    }

    /// Seconds of `t0..t1` (from the run's start) in which the process was stopped, counting
    /// a stop the ticker has not woken from yet (or has just recorded: overlapping spans count
    /// once).
    pub fn stopped_within(&self, t0: f64, t1: f64) -> f64 {
        let mut spans = self
            .stopped
            .lock()
            .unwrap_or_else(|e| e.into_inner())
            .clone();
        spans.extend(self.overdue(Instant::now()));
        spans.sort_by(|a, b| a.0.total_cmp(&b.0));
        let mut total = 0.0;
        let mut covered = t0;
        for (a, b) in spans {
            let (a, b) = (a.max(covered), b.min(t1));
            if b > a {
                total += b - a;
                covered = b;
            }
        }
        total
    }

    /// True when a wait of `ns` nanoseconds is long enough to hold a stop this watch notices.
    #[inline]
    pub fn could_hold_a_stop(ns: u64) -> bool {
        ns > (TICK + LATE).as_nanos() as u64
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn overlapping_stops_count_once_and_only_within_the_span() {
        let watch = StopWatch::new(Instant::now());
        // A stop recorded by the ticker, and the same stop seen again (and longer) before the
        // ticker's next tick, as a worker completing right after SIGCONT may see it.
        *watch.stopped.lock().unwrap() = vec![(10.0, 15.0), (10.0, 15.5), (20.0, 21.0)];
        watch.last_ns.store(u64::MAX / 2, Ordering::Relaxed);
        assert!((watch.stopped_within(0.0, 30.0) - 6.5).abs() < 1e-9);
        assert!((watch.stopped_within(12.0, 20.5) - 4.0).abs() < 1e-9);
        assert_eq!(watch.stopped_within(16.0, 19.0), 0.0);
    }
}
