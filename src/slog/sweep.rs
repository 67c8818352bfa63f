//! The SLOG measurement plan, as FreeBSD's `diskinfo -wS` and the usual fio sync tests do it:
//! queue-depth-1 synchronous writes from the logical block size doubling to `--max-size`
//! (each size ≥ 1 s and ≥ 250 writes) in both sync modes; 4 KiB sync writes from 1, 2, 4 and 8
//! writers; and a sustained phase of 4 KiB sync writes sampled every second. Every point is a
//! run of the run pipeline, a workload in sync mode, with a run directory of its own.

use std::path::Path;
use std::sync::atomic::AtomicBool;
use std::sync::Arc;
use std::time::Duration;

use anyhow::Context;

use crate::device::Identity;
use crate::drive::RunEnd;
use crate::engine::sync::{Phase, SyncEngine};
pub use crate::results::slog::{
    AtLoad, Measured, Plan, Point, SyncLatency, SyncMode, LOG_WRITE, SLOW_US, STALL_US,
};
use crate::results::{Command, Summary};
use crate::run::{NoProgress, RunObserver, RunRequest, Safety, Stop};
use crate::stats::{DirStats, IntervalStats};
use crate::workload::{Rate, SyncWrites, WorkloadSpec};

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

impl AtLoad {
    /// How a phase run at `rate_iops` held it: its slow writes (from the exact histogram) and
    /// its late issues.
    pub fn of(rate_iops: u64, total: &IntervalStats) -> AtLoad {
        let h = &total.write.latency_ns;
        // Counted at the histogram's precision (3 significant digits).
        let over = |us: u64| {
            let low = us * 1000 + 1;
            if h.is_empty() || h.max() < low {
                0
            } else {
                h.count_between(low, h.max())
            }
        };
        AtLoad {
            rate_iops,
            writes_over_1ms: over(SLOW_US),
            writes_over_10ms: over(STALL_US),
            late: total.pacing.late,
            late_max_us: total.pacing.late_max_ns as f64 / 1e3,
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

/// Where a plan's points run: a device opened once, and the directory their run directories
/// go in (`NN-<mode>-<size>` for the size sweep, `NN-writers-<n>`, `NN-sustained`).
pub struct Points<'a> {
    /// The target as the user named it (recorded in each point's run.json).
    pub target: &'a str,
    pub identity: &'a Identity,
    pub engine: &'a mut SyncEngine,
    pub dir: &'a Path,
    /// Ctrl-C: ends the point in progress (recorded as interrupted) and the plan.
    pub interrupt: &'a Arc<AtomicBool>,
}

/// What a plan measured: its table, how it ended, and the sustained point's run.
pub struct Swept {
    pub measured: Measured,
    pub end: RunEnd,
    pub sustained: Option<SustainedRun>,
}

/// The sustained point as a run: its whole-run summary and its run directory.
pub struct SustainedRun {
    pub summary: Summary,
    pub dir: std::path::PathBuf,
}

/// Runs the plan, each point a run of the run pipeline ([`crate::run::run_on`]) in sync mode:
/// its own run directory with heartbeat, samples, steady state and status. The sustained
/// point's samples also go to `sustained` as they are recorded; `progress` hears a line before
/// each point. Stops at the first failed or interrupted point.
pub fn run(
    points: Points,
    plan: &Plan,
    sustained: &mut dyn RunObserver,
    progress: &mut dyn FnMut(&str),
) -> anyhow::Result<Swept> {
    let mut out = Swept {
        measured: Measured::default(),
        end: RunEnd::Completed,
        sustained: None,
    };
    let lb = points.engine.writer().logical_block();
    let size = points.engine.writer().size();
    let small = LOG_WRITE.max(lb);
    let mut phases = Vec::new();
    for mode in [SyncMode::Fdatasync, SyncMode::Dsync] {
        for size in sizes(lb, plan.max_size, size) {
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
        p.rate = plan.rate_iops.map(Rate::Iops);
        phases.push((Slot::Sustained, p));
    }
    for (n, (slot, p)) in phases.into_iter().enumerate() {
        progress(&format!(
            "{} × {} {} …",
            p.writers,
            crate::units::format_bytes(p.size),
            p.mode.label()
        ));
        let request = request(&points, &p, &points.dir.join(slot.dir_name(n + 1, &p)));
        let outcome = if slot == Slot::Sustained {
            crate::run::run_on(&request, points.identity, points.engine, sustained)?
        } else {
            crate::run::run_on(&request, points.identity, points.engine, &mut NoProgress)?
        };
        let counts = points
            .engine
            .take_counts()
            .context("a SLOG point ended without counts (an internal error)")?;
        let point = Point::of(&p, &counts.total, counts.seconds);
        match slot {
            Slot::Size => out.measured.sizes.push(point),
            Slot::Concurrency => out.measured.concurrency.push(point),
            Slot::Sustained => {
                out.measured.sustained = Some(point);
                out.measured.sustained_load = plan.rate_iops.map(|r| AtLoad::of(r, &counts.total));
                out.sustained = Some(SustainedRun {
                    summary: outcome.summary,
                    dir: outcome.dir.clone(),
                });
            }
        }
        if outcome.end != RunEnd::Completed {
            out.end = outcome.end;
            return Ok(out);
        }
    }
    Ok(out)
}

/// The run request of one point: the phase as a sync-mode workload.
fn request(points: &Points, p: &Phase, out: &Path) -> RunRequest {
    let seconds = Duration::from_secs_f64(p.min_seconds);
    RunRequest {
        target: points.target.to_string(),
        records_within: None,
        workload: WorkloadSpec {
            bs: p.size,
            align: Some(p.size),
            read_pct: 0,
            random_pct: 100,
            qd: p.writers,
            seed: Some(p.seed),
            rate: p.rate,
            sync: Some(SyncWrites {
                mode: p.mode,
                min_writes: p.min_writes,
            }),
            ..WorkloadSpec::default()
        },
        stop: Stop::new(Some(seconds), None, seconds),
        interval: Duration::from_secs_f64(SUSTAIN_INTERVAL_S),
        engine: None,
        safety: Safety::default(),
        out: Some(out.to_path_buf()),
        command: Command::Slog,
        interrupt: points.interrupt.clone(),
        checkpoint: None,
    }
}

#[derive(Clone, Copy, PartialEq, Eq)]
enum Slot {
    Size,
    Concurrency,
    Sustained,
}

impl Slot {
    /// The run directory of the `n`th point (1-based).
    fn dir_name(self, n: usize, p: &Phase) -> String {
        match self {
            Slot::Size => format!("{n:02}-{}-{}", p.mode.name(), p.size),
            Slot::Concurrency => format!("{n:02}-writers-{}", p.writers),
            Slot::Sustained => format!("{n:02}-sustained"),
        }
    }
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
        rate: None,
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
