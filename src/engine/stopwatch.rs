//! Notices when the process itself was stopped (SIGSTOP and SIGCONT, a machine that would not
//! schedule it) or the machine was suspended: a thread that only sleeps and ticks. A tick that
//! comes far later than it slept marks the time since the one before as the tool's own, never
//! the drive's — unless the process's CPU clock ran meanwhile: then its other threads were
//! running and only the ticker was starved (a machine loaded far past its cores), and the time
//! stays the drive's. A tick at which the boot clock (`CLOCK_BOOTTIME`, which counts a suspend) has
//! run far ahead of the monotonic clock (which the run's times are on, and which stands still
//! while the machine sleeps) marks a suspension: no time on the run's clock, but the drive sat
//! idle and unpowered meanwhile, so the interval holding it is the tool's too. Nothing that
//! waits on the device can delay it.

use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::Mutex;
use std::time::{Duration, Instant};

/// How long the ticker sleeps between ticks.
const TICK: Duration = Duration::from_millis(50);
/// A tick this much later than due means the process was not running.
const LATE: Duration = Duration::from_secs(2);
/// The share of a late tick's gap the process's CPU clock may run and the gap still be a stop:
/// a stopped process runs no thread, and the few that wake first after SIGCONT use far less.
const STOPPED_CPU_SHARE: f64 = 0.05;

/// The clocks the watch compares at one moment.
#[derive(Clone, Copy)]
pub struct Reading {
    /// The run's clock (monotonic).
    pub mono: Instant,
    /// Time since boot, suspends included.
    pub boot: Duration,
    /// CPU time of the whole process (every thread) so far.
    pub cpu: Duration,
}

/// The clocks the watch reads: the system's, or a test's.
pub trait Clocks: Send + Sync {
    fn now(&self) -> Reading;
}

/// The system's clocks.
pub struct SystemClocks;

impl Clocks for SystemClocks {
    fn now(&self) -> Reading {
        Reading {
            mono: Instant::now(),
            // Without a boot clock (it stands still at 0) no suspension is ever seen.
            boot: clock(libc::CLOCK_BOOTTIME),
            // Without a CPU clock (it stands still at 0) every late tick is a stop.
            cpu: clock(libc::CLOCK_PROCESS_CPUTIME_ID),
        }
    }
}

/// One of the system's clocks now; zero when it cannot be read.
fn clock(id: libc::clockid_t) -> Duration {
    let mut ts = libc::timespec {
        tv_sec: 0,
        tv_nsec: 0,
    };
    // SAFETY: clock_gettime writes one timespec into `ts`, which lives on this stack.
    let ok = unsafe { libc::clock_gettime(id, &mut ts) } == 0;
    if ok {
        Duration::new(ts.tv_sec as u64, ts.tv_nsec as u32)
    } else {
        Duration::ZERO
    }
}

/// The spans (seconds from the run's start) in which the process was stopped, and the
/// suspensions of the machine.
pub struct StopWatch {
    start: Instant,
    clocks: Box<dyn Clocks>,
    /// One lock over the last tick and what it recorded: a reader that finds no stop recorded
    /// yet must find the last tick from before it (and so the stop still overdue), or a stop
    /// the ticker is recording as the worker wakes from it would be seen by neither way.
    ticks: Mutex<Ticks>,
}

/// What the ticker has seen so far.
struct Ticks {
    /// The last tick, from the run's start.
    last: Duration,
    /// The boot clock at the last tick.
    last_boot: Duration,
    /// The process's CPU clock at the last tick.
    last_cpu: Duration,
    stopped: Vec<(f64, f64)>,
    /// (seconds from the run's start of the last tick before it, seconds suspended).
    suspended: Vec<(f64, f64)>,
}

impl Ticks {
    /// The span since the last tick when it is far longer than a tick and the process used
    /// next to no CPU in it: the process was stopped (not merely its ticker starved).
    fn overdue(&self, since_start: Duration, cpu: Duration) -> Option<(f64, f64)> {
        let gap = since_start.saturating_sub(self.last);
        let ran = cpu.saturating_sub(self.last_cpu);
        (gap > TICK + LATE && ran.as_secs_f64() < STOPPED_CPU_SHARE * gap.as_secs_f64())
            .then_some((self.last.as_secs_f64(), since_start.as_secs_f64()))
    }

    /// The time the boot clock ran ahead of the monotonic clock since the last tick, when far
    /// more than a tick: the machine was suspended (at the last tick's time on the run's clock).
    fn suspension(&self, since_start: Duration, boot: Duration) -> Option<(f64, f64)> {
        let ran = since_start.saturating_sub(self.last);
        let lost = boot.saturating_sub(self.last_boot).saturating_sub(ran);
        (lost > LATE).then_some((self.last.as_secs_f64(), lost.as_secs_f64()))
    }
}

impl StopWatch {
    pub fn new(start: Instant) -> Self {
        StopWatch::with_clocks(start, Box::new(SystemClocks))
    }

    /// A watch on `clocks` (the system's, or a test's).
    pub fn with_clocks(start: Instant, clocks: Box<dyn Clocks>) -> Self {
        let first = clocks.now();
        StopWatch {
            start,
            clocks,
            ticks: Mutex::new(Ticks {
                last: Duration::ZERO,
                last_boot: first.boot,
                last_cpu: first.cpu,
                stopped: Vec::new(),
                suspended: Vec::new(),
            }),
        }
    }

    /// Ticks until `stop` is set.
    pub fn run(&self, stop: &AtomicBool) {
        while !stop.load(Ordering::Relaxed) {
            std::thread::sleep(TICK);
            self.tick();
        }
    }

    /// Notes a stop or a suspension since the last tick, if any.
    fn tick(&self) {
        let (since_start, now) = self.now();
        let mut ticks = self.lock();
        let stop = ticks.overdue(since_start, now.cpu);
        ticks.stopped.extend(stop);
        let suspension = ticks.suspension(since_start, now.boot);
        ticks.suspended.extend(suspension);
        ticks.last = since_start;
        ticks.last_boot = now.boot;
        ticks.last_cpu = now.cpu;
    }

    /// The run's clock (time since its start) and the clocks' reading now.
    fn now(&self) -> (Duration, Reading) {
        let now = self.clocks.now();
        (now.mono.saturating_duration_since(self.start), now)
    }

    fn lock(&self) -> std::sync::MutexGuard<'_, Ticks> {
        self.ticks.lock().unwrap_or_else(|e| e.into_inner())
    }

    /// Seconds the machine was suspended at a time within `t0..t1` (from the run's start),
    /// counting one the ticker has not woken from yet. None of it is on the run's clock.
    pub fn suspended_within(&self, t0: f64, t1: f64) -> f64 {
        let (since_start, now) = self.now();
        let ticks = self.lock();
        let pending = ticks
            .suspension(since_start, now.boot)
            .filter(|p| ticks.suspended.iter().all(|s| s.0 != p.0));
        ticks
            .suspended
            .iter()
            .chain(pending.iter())
            .filter(|(at, _)| (t0..t1).contains(at))
            .map(|(_, seconds)| seconds)
            .sum()
    }

    /// Seconds of `t0..t1` (from the run's start) in which the process was stopped, counting
    /// a stop the ticker has not woken from yet (or has just recorded: overlapping spans count
    /// once).
    pub fn stopped_within(&self, t0: f64, t1: f64) -> f64 {
        let (since_start, now) = self.now();
        let mut spans = {
            let ticks = self.lock();
            let mut spans = ticks.stopped.clone();
            spans.extend(ticks.overdue(since_start, now.cpu));
            spans
        };
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

    /// Marks `stats`, the interval `t0..t1` (from the run's start), with the time the process
    /// was stopped and the machine suspended within it.
    pub fn mark(&self, stats: &mut crate::stats::IntervalStats, t0: f64, t1: f64) {
        stats.stopped_s = self.stopped_within(t0, t1);
        stats.suspended_s = self.suspended_within(t0, t1);
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
        {
            let mut ticks = watch.lock();
            ticks.stopped = vec![(10.0, 15.0), (10.0, 15.5), (20.0, 21.0)];
            ticks.last = Duration::from_secs(1 << 40);
        }
        assert!((watch.stopped_within(0.0, 30.0) - 6.5).abs() < 1e-9);
        assert!((watch.stopped_within(12.0, 20.5) - 4.0).abs() < 1e-9);
        assert_eq!(watch.stopped_within(16.0, 19.0), 0.0);
    }

    /// A stop is counted whole whether the reader comes before the ticker has recorded it (it
    /// is still overdue) or after (it is recorded): a worker waking from SIGCONT at the same
    /// moment as the ticker finds it one way or the other (the one lock makes it one state).
    #[test]
    fn a_stop_is_seen_before_and_after_the_ticker_records_it() {
        let start = Instant::now();
        let hand = Hand::at(start, 0.0);
        let watch = StopWatch::with_clocks(start, Box::new(hand.clone()));
        let set = |s: f64| hand.set(start, s, s, 0.0);
        for i in 1..=20 {
            set(i as f64 * 0.05);
            watch.tick();
        }
        // Stopped from 1.0 s to 6.0 s (the monotonic clock runs on, as under SIGSTOP).
        set(6.0);
        assert!((watch.stopped_within(0.99, 6.0) - 5.0).abs() < 1e-9);
        watch.tick();
        assert!((watch.stopped_within(0.99, 6.0) - 5.0).abs() < 1e-9);
        set(6.05);
        watch.tick();
        assert!((watch.stopped_within(0.0, 7.0) - 5.0).abs() < 1e-9);
        assert_eq!(watch.suspended_within(0.0, 7.0), 0.0);
    }

    /// The ticker starved for 3 s by a machine loaded far past its cores while the process's
    /// other threads ran (its CPU clock moved 1.2 s): the time is the drive's, no stop. The
    /// same gap with the CPU clock standing still is a stop.
    #[test]
    fn a_starved_ticker_is_no_stop_while_the_process_runs() {
        let start = Instant::now();
        let hand = Hand::at(start, 0.0);
        let watch = StopWatch::with_clocks(start, Box::new(hand.clone()));
        hand.set(start, 0.05, 0.05, 0.01);
        watch.tick();
        hand.set(start, 3.05, 3.05, 1.21);
        assert_eq!(watch.stopped_within(0.0, 4.0), 0.0);
        watch.tick();
        assert_eq!(watch.stopped_within(0.0, 4.0), 0.0);
        hand.set(start, 6.05, 6.05, 1.22);
        assert!((watch.stopped_within(0.0, 7.0) - 3.0).abs() < 1e-9);
        watch.tick();
        assert!((watch.stopped_within(0.0, 7.0) - 3.0).abs() < 1e-9);
    }

    /// A test's clocks, set by hand.
    struct Hand(Mutex<Reading>);

    impl Hand {
        /// Clocks at the run's start, the boot clock at `boot_s`, no CPU used yet.
        fn at(start: Instant, boot_s: f64) -> std::sync::Arc<Hand> {
            std::sync::Arc::new(Hand(Mutex::new(Reading {
                mono: start,
                boot: Duration::from_secs_f64(boot_s),
                cpu: Duration::ZERO,
            })))
        }

        /// The run's clock at `mono_s`, the boot clock at `boot_s`, the CPU clock at `cpu_s`.
        fn set(&self, start: Instant, mono_s: f64, boot_s: f64, cpu_s: f64) {
            *self.0.lock().unwrap() = Reading {
                mono: start + Duration::from_secs_f64(mono_s),
                boot: Duration::from_secs_f64(boot_s),
                cpu: Duration::from_secs_f64(cpu_s),
            };
        }
    }

    impl Clocks for std::sync::Arc<Hand> {
        fn now(&self) -> Reading {
            *self.0.lock().unwrap()
        }
    }

    #[test]
    fn a_suspended_machine_is_the_tools_gap_and_no_stop() {
        let start = Instant::now();
        let hand = Hand::at(start, 1000.0);
        let watch = StopWatch::with_clocks(start, Box::new(hand.clone()));
        let set = |mono_s: f64, boot_s: f64| hand.set(start, mono_s, 1000.0 + boot_s, 0.0);
        // Ticks every 50 ms for 3 s, both clocks alike: nothing.
        for i in 1..=60 {
            set(i as f64 * 0.05, i as f64 * 0.05);
            watch.tick();
        }
        assert_eq!(watch.suspended_within(0.0, 100.0), 0.0);
        // Suspended for 600 s after the tick at 3.0 s: the boot clock runs on, the
        // monotonic one does not. Seen before the ticker wakes, then after.
        set(3.05, 603.05);
        assert!((watch.suspended_within(2.0, 4.0) - 600.0).abs() < 1e-6);
        watch.tick();
        assert!((watch.suspended_within(2.0, 4.0) - 600.0).abs() < 1e-6);
        assert_eq!(watch.suspended_within(0.0, 2.0), 0.0);
        assert_eq!(watch.suspended_within(4.0, 5.0), 0.0);
        // A suspension is not a stop: the run's clock did not move.
        assert_eq!(watch.stopped_within(0.0, 100.0), 0.0);
        // Ticking on, both clocks alike again: the one suspension, counted once.
        set(3.1, 603.1);
        watch.tick();
        assert!((watch.suspended_within(0.0, 100.0) - 600.0).abs() < 1e-6);
    }
}
