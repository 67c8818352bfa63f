//! The clock a worker stamps its I/Os with: the CPU's time-stamp counter where the kernel's own
//! monotonic clock is that counter (clocksource `tsc`: the kernel found it constant-rate and in
//! step on every CPU), else [`Instant::now`].
//!
//! Reading the counter costs about a third of a `clock_gettime` (20 against 50 ns in a KVM
//! guest), and a worker of the `threads` engine reads the clock twice per I/O. The counts are
//! turned into times from an anchor, a counter reading taken together with
//! `Instant::now()`; the rate comes from the span since the worker's first anchor, and the
//! anchor is taken again every [`RESYNC`], so the clock never drifts from the system's by more
//! than the rate's error over that span (nanoseconds).
//!
//! A reading is a [`Stamp`], nanoseconds since the process's clock epoch, not an [`Instant`]:
//! the I/O path subtracts and compares its readings (latency, interval boundary, deadline)
//! several times per I/O, which is one instruction each on a `u64` and a call into the
//! seconds-and-nanoseconds arithmetic of `Instant` (about 80 of each I/O's user-space
//! instructions, docs/performance-cpu.md).

use std::sync::OnceLock;
use std::time::{Duration, Instant};

/// The instant every [`Stamp`] counts from: the first time one is taken in the process.
fn epoch() -> Instant {
    static EPOCH: OnceLock<Instant> = OnceLock::new();
    *EPOCH.get_or_init(Instant::now)
}

/// A time on the monotonic clock, in nanoseconds since the process's clock epoch.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, PartialOrd, Ord)]
pub struct Stamp(u64);

impl Stamp {
    /// The system clock now.
    pub fn now() -> Stamp {
        Stamp::of(Instant::now())
    }

    /// `t` as a stamp (the epoch itself for a time before it).
    pub fn of(t: Instant) -> Stamp {
        Stamp(t.saturating_duration_since(epoch()).as_nanos() as u64)
    }

    /// The stamp as an `Instant`.
    pub fn instant(self) -> Instant {
        epoch() + Duration::from_nanos(self.0)
    }

    /// Nanoseconds from `earlier` to this stamp; 0 when `earlier` is later.
    #[inline]
    pub fn ns_since(self, earlier: Stamp) -> u64 {
        self.0.saturating_sub(earlier.0)
    }

    /// The stamp `ns` nanoseconds later.
    #[inline]
    pub fn after_ns(self, ns: u64) -> Stamp {
        Stamp(self.0.saturating_add(ns))
    }
}

/// How often a worker takes a fresh anchor.
const RESYNC: Duration = Duration::from_millis(100);
/// The span over which the first rate is measured; the system clock is read until then.
const CALIBRATE: Duration = Duration::from_millis(20);
/// Counter ticks an anchor may take at most (two counter readings around `Instant::now()`);
/// one that took longer was interrupted and is taken again.
const ANCHOR_TICKS: u64 = 20_000;

/// True when the kernel keeps time with the time-stamp counter.
fn kernel_uses_tsc() -> bool {
    static TSC: OnceLock<bool> = OnceLock::new();
    *TSC.get_or_init(|| {
        cfg!(target_arch = "x86_64")
            && std::fs::read_to_string(
                "/sys/devices/system/clocksource/clocksource0/current_clocksource",
            )
            .is_ok_and(|s| s.trim() == "tsc")
    })
}

#[cfg(target_arch = "x86_64")]
#[inline(always)]
fn ticks() -> u64 {
    // SAFETY: rdtsc has no preconditions on x86_64.
    unsafe { std::arch::x86_64::_rdtsc() }
}

#[cfg(not(target_arch = "x86_64"))]
#[inline(always)]
fn ticks() -> u64 {
    0
}

/// One worker's clock (not shared: each worker keeps its own anchors).
pub struct IoClock {
    tsc: bool,
    /// The first anchor: the rate is measured from it.
    first: (Stamp, u64),
    /// The latest anchor: readings count from it.
    anchor: (Stamp, u64),
    /// Nanoseconds per tick in 32.32 fixed point, 0 until calibrated: a multiply and a shift
    /// per reading, where `u64 → f64 → u64` took about 20 instructions on x86_64's baseline.
    ns_per_tick: u64,
    /// Ticks after the anchor at which to take a new one.
    resync_ticks: u64,
    /// The latest time handed out: the clock never goes back, even across a new anchor.
    last: Stamp,
}

impl IoClock {
    pub fn new() -> Self {
        let tsc = kernel_uses_tsc();
        let anchor = if tsc {
            Self::anchor()
        } else {
            (Stamp::now(), 0)
        };
        IoClock {
            tsc,
            first: anchor,
            anchor,
            ns_per_tick: 0,
            resync_ticks: 0,
            last: anchor.0,
        }
    }

    /// A counter reading and the system clock at the same moment.
    fn anchor() -> (Stamp, u64) {
        loop {
            let before = ticks();
            let now = Stamp::now();
            let after = ticks();
            if after.wrapping_sub(before) <= ANCHOR_TICKS {
                return (now, before + (after - before) / 2);
            }
        }
    }

    /// The time now.
    #[inline]
    pub fn now(&mut self) -> Stamp {
        if !self.tsc {
            return Stamp::now();
        }
        let dt = ticks().wrapping_sub(self.anchor.1);
        let now = if dt < self.resync_ticks {
            let ns = (u128::from(dt) * u128::from(self.ns_per_tick)) >> 32;
            self.anchor.0.after_ns(ns as u64)
        } else {
            self.resync()
        };
        self.last = self.last.max(now);
        self.last
    }

    /// Takes a new anchor (and, once the first is old enough, the rate since it).
    #[cold]
    fn resync(&mut self) -> Stamp {
        self.anchor = Self::anchor();
        let span = self.anchor.0.ns_since(self.first.0);
        let span_ticks = self.anchor.1.wrapping_sub(self.first.1);
        if span >= CALIBRATE.as_nanos() as u64 && span_ticks > 0 {
            let ns_per_tick = span as f64 / span_ticks as f64;
            self.ns_per_tick = (ns_per_tick * (1u64 << 32) as f64) as u64;
            self.resync_ticks = (RESYNC.as_nanos() as f64 / ns_per_tick) as u64;
        }
        self.anchor.0
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_clock_keeps_to_the_system_clock_and_never_goes_back() {
        let mut clock = IoClock::new();
        let mut last = clock.now().instant();
        let start = Instant::now();
        let mut worst = Duration::ZERO;
        // Through calibration and several new anchors.
        while start.elapsed() < CALIBRATE + RESYNC * 3 {
            let before = Instant::now();
            let t = clock.now().instant();
            let after = Instant::now();
            assert!(t >= last);
            last = t;
            // Within the reading's own span, give or take the anchors' error.
            let off = if t < before {
                before - t
            } else {
                t.saturating_duration_since(after)
            };
            worst = worst.max(off);
        }
        assert!(worst < Duration::from_micros(200), "off by {worst:?}");
    }
}
