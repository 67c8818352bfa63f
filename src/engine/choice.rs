//! Which real engine runs when the user names none: io_uring where the kernel allows it, but at
//! QD 1 on a target whose I/O io_uring hands to its kernel workers (zram, for one) both engines
//! run the workload's kind of I/O on the target itself for a moment each (random writes of
//! incompressible data when the run writes: it is about to overwrite the target anyway; else
//! reads), in alternating rounds, and the one that completed more I/Os runs. That hand-off
//! costs a wake-up on another CPU: on a 16-CPU VM it tripled QD 1 latency on zram (19 µs with
//! io_uring, 6.2 µs with threads), on a 2-CPU one io_uring was faster (5–8 µs against 6–8 µs),
//! so no fixed rule fits both. An earlier timing of bare system calls at one offset picked
//! threads on the 2-CPU machine, where the engines themselves made io_uring 1.2–1.4× faster:
//! the engines are timed, not a stand-in.

use std::os::fd::AsRawFd;
use std::sync::Arc;
use std::time::Duration;

use super::{threads, uring, AlignedBuf, Control, Engine, EngineKind, IntervalSink, Target};
use crate::pattern::Pattern;
use crate::stats::IntervalStats;
use crate::workload::Workload;

/// Queue depths at or below which the engines are timed on a target that blocks.
const TIMED_UP_TO_QD: u32 = 1;

/// How long each engine runs per round of the timing, and rounds (alternating, the best of
/// each kept): about a second in all.
const ROUND: Duration = Duration::from_millis(150);
const ROUNDS: u32 = 3;

/// The part of the target the timing writes (or reads): from its start.
const SPAN: u64 = 64 << 20;

/// The engine to run and, when it was chosen by more than the default, why (one line).
pub struct Choice {
    pub kind: EngineKind,
    pub why: Option<String>,
}

/// The default engine for a workload of `bs`-byte I/Os at `qd` on `target` (`writes`: the
/// workload writes, so the timing may too).
pub fn default_for(target: &Arc<Target>, qd: u32, bs: usize, writes: bool) -> Choice {
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
    let (mut threads_iops, mut uring_iops) = (0.0f64, 0.0f64);
    for _ in 0..ROUNDS {
        let (Some(t), Some(r)) = (
            engine_iops(EngineKind::Threads, target, bs, writes),
            engine_iops(EngineKind::Uring, target, bs, writes),
        ) else {
            return uring_only;
        };
        threads_iops = threads_iops.max(t);
        uring_iops = uring_iops.max(r);
    }
    let kind = if threads_iops > uring_iops {
        EngineKind::Threads
    } else {
        EngineKind::Uring
    };
    let us = |iops: f64| 1e6 / iops;
    Choice {
        kind,
        why: Some(format!(
            "engine {}: at QD {qd} this target's I/O goes through io_uring's kernel workers; \
             timed on it, a {bs}-byte random {} took {} with threads, {} with io_uring",
            kind_name(kind),
            if writes { "write" } else { "read" },
            crate::units::format_latency_us(us(threads_iops)),
            crate::units::format_latency_us(us(uring_iops))
        )),
    }
}

fn kind_name(kind: EngineKind) -> &'static str {
    match kind {
        EngineKind::Threads => "threads",
        EngineKind::Uring => "uring",
    }
}

/// I/Os per second of `kind` running 4 KiB-aligned random `bs`-byte writes (or reads) at QD 1
/// over the first [`SPAN`] of `target` for [`ROUND`]; None when the run fails or does nothing.
fn engine_iops(kind: EngineKind, target: &Arc<Target>, bs: usize, writes: bool) -> Option<f64> {
    let workload = Workload {
        bs: bs as u64,
        align: bs as u64,
        read_pct: if writes { 0 } else { 100 },
        random_pct: 100,
        qd: 1,
        span: target.size.min(SPAN) / bs as u64 * bs as u64,
        duration: Some(ROUND),
        interval: ROUND,
        pattern: Pattern::Random,
        ..Workload::default()
    };
    if workload.span < bs as u64 {
        return None;
    }
    let mut engine: Box<dyn Engine> = match kind {
        EngineKind::Threads => Box::new(threads::ThreadsEngine::new(target.clone())),
        EngineKind::Uring => Box::new(uring::UringEngine::new(target.clone())),
    };
    let mut counted = Counted::default();
    engine
        .run(&workload, &Control::default(), &mut counted)
        .ok()?;
    (counted.ios > 0 && counted.seconds > 0.0).then(|| counted.ios as f64 / counted.seconds)
}

/// The I/Os and seconds of a timing run's intervals.
#[derive(Default)]
struct Counted {
    ios: u64,
    seconds: f64,
}

impl IntervalSink for Counted {
    fn interval(
        &mut self,
        t_start_s: f64,
        t_end_s: f64,
        stats: &IntervalStats,
    ) -> anyhow::Result<()> {
        self.ios += stats.read.ops + stats.write.ops;
        self.seconds += t_end_s - t_start_s;
        Ok(())
    }
}
