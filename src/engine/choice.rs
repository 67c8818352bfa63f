//! Which real engine runs when the user names none: io_uring where the kernel allows it, but at
//! QD 1 on a target whose I/O io_uring hands to its kernel workers (zram, for one) the two
//! engines are timed on the target itself, with the run's own kind of I/O (writes of
//! incompressible data at offset 0 when the run writes: it is about to overwrite the target
//! anyway; else reads), and the faster one runs. That hand-off costs
//! a wake-up on another CPU: on a 16-CPU VM it tripled QD 1 latency on zram (19 µs with
//! io_uring, 6.2 µs with threads), on a 2-CPU one io_uring was still faster (5–8 µs against
//! 9–10 µs), so no fixed rule fits both.

use std::os::fd::AsRawFd;
use std::time::{Duration, Instant};

use super::{uring, AlignedBuf, EngineKind, Target};

/// Queue depths at or below which the engines are timed on a target that blocks.
const TIMED_UP_TO_QD: u32 = 1;

/// I/Os per engine per round of the timing, and rounds (alternating, the best of each kept).
const IOS_PER_ROUND: u32 = 300;
const ROUNDS: u32 = 3;

/// The engine to run and, when it was chosen by more than the default, why (one line).
pub struct Choice {
    pub kind: EngineKind,
    pub why: Option<String>,
}

/// The default engine for a workload of `bs`-byte I/Os at `qd` on `target` (`writes`: the
/// workload writes, so the timing may too).
pub fn default_for(target: &Target, qd: u32, bs: usize, writes: bool) -> Choice {
    if !uring::available() {
        return Choice {
            kind: EngineKind::Threads,
            why: Some(
                "engine threads: this system refuses io_uring (kernel.io_uring_disabled, or a \
                 container's seccomp profile)"
                    .into(),
            ),
        };
    }
    let uring_only = Choice {
        kind: EngineKind::Uring,
        why: None,
    };
    if qd > TIMED_UP_TO_QD {
        return uring_only;
    }
    let fd = target.file.as_raw_fd();
    let Ok(mut buf) = AlignedBuf::new(bs) else {
        return uring_only;
    };
    if !uring::cannot_avoid_blocking(fd, &mut buf, bs) {
        return uring_only;
    }
    if writes {
        fill_incompressible(buf.as_mut_slice());
    }
    let (mut threads, mut ring) = (Duration::MAX, Duration::MAX);
    for _ in 0..ROUNDS {
        let (Some(t), Some(r)) = (
            syscall_latency(fd, &mut buf, bs, writes),
            uring::qd1_latency(fd, &mut buf, bs, writes, IOS_PER_ROUND),
        ) else {
            return uring_only;
        };
        threads = threads.min(t);
        ring = ring.min(r);
    }
    let kind = if threads < ring {
        EngineKind::Threads
    } else {
        EngineKind::Uring
    };
    let us = |d: Duration| d.as_secs_f64() * 1e6;
    Choice {
        kind,
        why: Some(format!(
            "engine {}: at QD {qd} this target's I/O goes through io_uring's kernel workers; \
             timed on it, a {bs}-byte {} took {} with threads, {} with io_uring",
            kind_name(kind),
            if writes { "write" } else { "read" },
            crate::units::format_latency_us(us(threads)),
            crate::units::format_latency_us(us(ring))
        )),
    }
}

fn kind_name(kind: EngineKind) -> &'static str {
    match kind {
        EngineKind::Threads => "threads",
        EngineKind::Uring => "uring",
    }
}

/// The mean time of [`IOS_PER_ROUND`] blocking reads or writes of `bs` bytes at offset 0, as the
/// threads engine issues its I/O; None when one fails.
fn syscall_latency(fd: i32, buf: &mut AlignedBuf, bs: usize, writes: bool) -> Option<Duration> {
    let start = Instant::now();
    for _ in 0..IOS_PER_ROUND {
        let ptr = buf.as_mut_ptr().cast();
        // SAFETY: buf holds at least bs bytes.
        let rc = unsafe {
            if writes {
                libc::pwrite(fd, ptr, bs, 0)
            } else {
                libc::pread(fd, ptr, bs, 0)
            }
        };
        if rc != bs as isize {
            return None;
        }
    }
    Some(start.elapsed() / IOS_PER_ROUND)
}

/// Bytes no RAM device can compress or store as a repeated word (xorshift64).
fn fill_incompressible(bytes: &mut [u8]) {
    let mut x: u64 = 0x9e37_79b9_7f4a_7c15;
    for b in bytes {
        x ^= x << 13;
        x ^= x >> 7;
        x ^= x << 17;
        *b = x as u8;
    }
}
