//! The SLOG measurement plan, as FreeBSD's `diskinfo -wS` and the usual fio sync tests do it:
//! queue-depth-1 synchronous writes from the logical block size doubling to `--max-size`
//! (each size ≥ 1 s and ≥ 250 writes) in both sync modes; 4 KiB sync writes from 1, 2, 4 and 8
//! writers; and a sustained phase of 4 KiB sync writes sampled every second.

use std::sync::atomic::AtomicBool;

use crate::drive::RunEnd;
use crate::engine::sync::{IntervalFn, Phase, SyncWriter};
pub use crate::results::slog::{Measured, Plan, Point, SyncLatency, SyncMode, LOG_WRITE};
use crate::stats::{DirStats, IntervalStats};

/// Every size is measured for at least this long…
pub const MIN_SECONDS: f64 = 1.0;
/// …and at least this many writes (diskinfo's batch).
pub const MIN_WRITES: u64 = 250;
/// Concurrent ZIL writers measured.
pub const WRITERS: [u32; 4] = [1, 2, 4, 8];

impl SyncLatency {
    pub fn of(dir: &DirStats) -> Self {
        if dir.ops == 0 {
            return SyncLatency::default();
        }
        let h = &dir.latency_ns;
        let us = |ns: u64| ns as f64 / 1000.0;
        // The histogram answers with the top of a value's bucket, which can lie above the
        // largest latency recorded: a percentile never exceeds the maximum.
        let at = |q: f64| us(h.value_at_quantile(q).min(dir.max_ns));
        SyncLatency {
            mean: (h.mean() / 1000.0).min(us(dir.max_ns)),
            p50: at(0.50),
            p99: at(0.99),
            p9999: at(0.9999),
            max: us(dir.max_ns),
        }
    }
}

impl Point {
    fn of(phase: &Phase, total: &IntervalStats, seconds: f64) -> Point {
        let per_s = |x: f64| if seconds > 0.0 { x / seconds } else { 0.0 };
        Point {
            mode: phase.mode,
            size: phase.size,
            writers: phase.writers,
            writes: total.write.ops,
            seconds,
            iops: per_s(total.write.ops as f64),
            mb_per_s: per_s(total.write.bytes as f64 / 1e6),
            lat_us: SyncLatency::of(&total.write),
        }
    }
}

impl Measured {
    /// The point of `size` in `mode` from the size sweep.
    pub fn size_point(&self, mode: SyncMode, size: u64) -> Option<&Point> {
        self.sizes.iter().find(|p| p.mode == mode && p.size == size)
    }
}

/// Sizes of the sweep: the logical block size doubling up to `max` (and the target's size).
pub fn sizes(logical_block: u64, max: u64, target_size: u64) -> Vec<u64> {
    let mut out = Vec::new();
    let mut s = logical_block.max(512);
    while s <= max && s <= target_size {
        out.push(s);
        s *= 2;
    }
    out
}

/// The sustained phase's sample period, seconds.
pub const SUSTAIN_INTERVAL_S: f64 = 1.0;

/// Runs the plan on `backend`; the sustained phase's intervals go to `samples`, and `progress`
/// hears a line before each phase. Stops at the first failed write or when `stop` is set.
pub fn run(
    backend: &mut dyn SyncWriter,
    plan: &Plan,
    stop: &AtomicBool,
    samples: &mut IntervalFn,
    progress: &mut dyn FnMut(&str),
) -> anyhow::Result<(Measured, RunEnd)> {
    let mut out = Measured::default();
    let lb = backend.logical_block();
    let small = LOG_WRITE.max(lb);
    let mut phases = Vec::new();
    for mode in [SyncMode::Fdatasync, SyncMode::Dsync] {
        for size in sizes(lb, plan.max_size, backend.size()) {
            phases.push((Slot::Size, phase(size, mode, 1, plan.seed)));
        }
    }
    for writers in WRITERS {
        phases.push((
            Slot::Concurrency,
            phase(small, SyncMode::Fdatasync, writers, plan.seed),
        ));
    }
    if plan.sustain_s > 0.0 {
        let mut p = phase(small, SyncMode::Fdatasync, 1, plan.seed ^ 0x5057);
        p.min_seconds = plan.sustain_s;
        p.min_writes = 0;
        p.interval = Some(SUSTAIN_INTERVAL_S);
        phases.push((Slot::Sustained, p));
    }
    let mut none = |_: f64, _: f64, _: &IntervalStats| Ok(());
    for (slot, p) in phases {
        progress(&format!(
            "{} × {} {} …",
            p.writers,
            crate::units::format_bytes(p.size),
            p.mode.label()
        ));
        let sink: &mut IntervalFn = if slot == Slot::Sustained {
            samples
        } else {
            &mut none
        };
        let counts = backend.run_phase(&p, stop, sink)?;
        let point = Point::of(&p, &counts.total, counts.seconds);
        match slot {
            Slot::Size => out.sizes.push(point),
            Slot::Concurrency => out.concurrency.push(point),
            Slot::Sustained => out.sustained = Some(point),
        }
        if let Some(why) = counts.failed {
            return Ok((out, RunEnd::Failed(why)));
        }
        if stop.load(std::sync::atomic::Ordering::Relaxed) {
            return Ok((out, RunEnd::Interrupted));
        }
    }
    Ok((out, RunEnd::Completed))
}

#[derive(Clone, Copy, PartialEq, Eq)]
enum Slot {
    Size,
    Concurrency,
    Sustained,
}

fn phase(size: u64, mode: SyncMode, writers: u32, seed: u64) -> Phase {
    Phase {
        size,
        mode,
        writers,
        min_seconds: MIN_SECONDS,
        min_writes: MIN_WRITES,
        interval: None,
        seed: seed ^ size.rotate_left(17) ^ u64::from(writers) << 8 ^ mode as u64,
    }
}

#[cfg(test)]
mod tests {
    #[test]
    fn sizes_double_from_the_logical_block_to_the_maximum() {
        assert_eq!(
            super::sizes(512, 4096, 1 << 30),
            vec![512, 1024, 2048, 4096]
        );
        assert_eq!(
            super::sizes(4096, 128 << 10, 16384),
            vec![4096, 8192, 16384]
        );
    }
}
