//! Waiting for a paced I/O's due time: [`sleep_until`], or [`spin_until`], which sleeps until
//! the last stretch that a sleep cannot be trusted to end within and spins to the time, as
//! fio's `rate_iops` does; [`Wait::for_threads`] chooses.
//!
//! A sleep ends late by the thread's timer slack and the wake-up (about 55 µs on the build
//! machine), and the CPU may go idle meanwhile. An engine whose own threads do the I/O
//! (`threads`, the sync writers) spins when each thread can have a CPU: on zram at QD 1 and
//! 20 000 I/Os/s, sleeping all the way added about 1.8 µs to every write of a 5 µs device,
//! against fio. `uring` sleeps: on a target whose I/O goes to io_uring's kernel workers, a
//! spinning submitter holds the CPU a worker needs, and its QD 1 latency on zram went from 14
//! to 68 µs at 10 000/s, fio's figure (docs/workloads.md, *Latency under a rate limit against
//! fio*).

use std::sync::OnceLock;
use std::time::{Duration, Instant};

/// Longest sleep between looks at the stop flag.
const POLL: Duration = Duration::from_millis(50);
/// The longest stretch spun before one I/O, however late the machine's sleeps end.
const MAX_SPIN: Duration = Duration::from_micros(200);

/// How late a short sleep can end on this machine: the longest of ten sleeps of 1 µs, at most
/// [`MAX_SPIN`] (fio measures its `ns_granularity` the same way). Measured once per process;
/// call it before a schedule starts so that the first I/O does not wait for the measurement.
pub fn sleep_granularity() -> Duration {
    static GRANULARITY: OnceLock<Duration> = OnceLock::new();
    *GRANULARITY.get_or_init(|| {
        (0..10)
            .map(|_| {
                let start = Instant::now();
                std::thread::sleep(Duration::from_micros(1));
                start.elapsed()
            })
            .max()
            .unwrap_or_default()
            .min(MAX_SPIN)
    })
}

/// How the threads of a paced run wait for each I/O's time.
#[derive(Clone, Copy, Debug, PartialEq)]
pub enum Wait {
    Sleep,
    Spin,
}

impl Wait {
    /// [`Wait::Spin`] when each of `threads` waiting threads can have a CPU this process may run
    /// on, else [`Wait::Sleep`]: threads spinning beyond the CPUs would take the CPU time the
    /// others need to do their I/O.
    pub fn for_threads(threads: usize) -> Wait {
        let cpus = std::thread::available_parallelism().map_or(1, |n| n.get());
        if threads <= cpus {
            Wait::Spin
        } else {
            Wait::Sleep
        }
    }

    /// Waits until `due` (true), or until `stopped()` says the run ended (false).
    pub fn until<F: Fn() -> bool>(self, due: Instant, stopped: F) -> bool {
        match self {
            Wait::Sleep => sleep_until(due, stopped),
            Wait::Spin => spin_until(due, stopped),
        }
    }
}

/// Sleeps until `due` (true), or until `stopped()` says the run ended (false), looking at it
/// at least every [`POLL`].
fn sleep_until<F: Fn() -> bool>(due: Instant, stopped: F) -> bool {
    loop {
        let now = Instant::now();
        if now >= due {
            return true;
        }
        if stopped() {
            return false;
        }
        std::thread::sleep((due - now).min(POLL));
    }
}

/// As [`sleep_until`], but the last [`sleep_granularity`] before `due` is spun.
fn spin_until<F: Fn() -> bool>(due: Instant, stopped: F) -> bool {
    let wake = due.checked_sub(sleep_granularity()).unwrap_or(due);
    if !sleep_until(wake, &stopped) {
        return false;
    }
    while Instant::now() < due {
        if stopped() {
            return false;
        }
        std::hint::spin_loop();
    }
    true
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::cell::Cell;

    /// `wait` returns at its due time, never before, and at the next look once stopped.
    fn returns_at_the_due_time_or_when_stopped(wait: impl Fn(Instant, &dyn Fn() -> bool) -> bool) {
        for ahead in [0, 30, 150, 2_000] {
            let due = Instant::now() + Duration::from_micros(ahead);
            assert!(wait(due, &|| false));
            assert!(
                Instant::now() >= due,
                "returned before {ahead} µs were over"
            );
        }
        let looks = Cell::new(0);
        let far = Instant::now() + Duration::from_secs(3600);
        let stopped = || {
            looks.set(looks.get() + 1);
            looks.get() > 2
        };
        assert!(!wait(far, &stopped));
    }

    #[test]
    fn sleeping_and_spinning_return_at_the_due_time_or_when_stopped() {
        returns_at_the_due_time_or_when_stopped(|due, stopped| sleep_until(due, stopped));
        returns_at_the_due_time_or_when_stopped(|due, stopped| spin_until(due, stopped));
        assert!(sleep_granularity() <= MAX_SPIN);
    }

    #[test]
    fn threads_spin_only_while_each_can_have_a_cpu() {
        let cpus = std::thread::available_parallelism().unwrap().get();
        assert_eq!(Wait::for_threads(1), Wait::Spin);
        assert_eq!(Wait::for_threads(cpus), Wait::Spin);
        assert_eq!(Wait::for_threads(cpus + 1), Wait::Sleep);
    }
}
