//! The `sim` engine: runs a workload against a [`SimDevice`] on simulated time.
//!
//! I/Os are issued in small batches; the device turns each batch's NAND work into simulated
//! seconds and shares them out as each I/O's service time, by the work that I/O caused. A
//! closed loop of QD outstanding I/Os ([`ClosedLoop`]) turns service times into per-I/O
//! latencies, each recorded in the interval's histogram. Intervals are cut on the simulated
//! clock, so an 8-hour soak takes seconds and its samples read exactly like a real drive's.

use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::Arc;

use super::device::{Activity, SimDevice};
use super::queue::ClosedLoop;
use super::spec::SimSpec;
use crate::engine::{Control, Engine, IntervalSink, OffsetGen, RunEnd};
use crate::pattern::{make_pool, PatternGen};
use crate::stats::{ErrorEvent, IntervalStats, OpKind};
use crate::workload::{OnError, Workload};

/// Simulated I/Os per batch: enough for their cache misses to overlap (see the prefetches).
const BATCH: usize = 64;

/// Runs workloads on a simulated drive and saves it afterwards when the spec has `state=`.
pub struct SimEngine {
    device: SimDevice,
}

impl SimEngine {
    /// Loads the drive from `state=` when the file exists, else makes a new one.
    pub fn open(spec: &str) -> anyhow::Result<SimEngine> {
        let spec = SimSpec::parse(spec)?;
        Ok(SimEngine {
            device: super::open_device(&spec)?,
        })
    }

    /// The drive.
    pub fn device(&self) -> &SimDevice {
        &self.device
    }

    /// Saves the drive to its `state=` file, if it has one.
    fn save(&self) -> anyhow::Result<()> {
        match &self.device.spec.state {
            Some(path) => super::state::save(&self.device, path),
            None => Ok(()),
        }
    }

    /// The drive's identity as a target.
    pub fn identity(&self) -> crate::target::Identity {
        super::identity_of(&self.device.spec)
    }

    fn simulate(
        &mut self,
        w: &Workload,
        control: &Control,
        sink: &mut dyn IntervalSink,
    ) -> anyhow::Result<RunEnd> {
        let k = u64::from(self.device.spec.scale);
        // The scaled drive runs the same workload on a span k times smaller.
        let mut scaled = w.clone();
        scaled.span = (w.span / k / w.align * w.align).max(w.bs);
        let mut offsets = OffsetGen::new(&scaled, 0, Arc::new(AtomicU64::new(0)));
        let pool = make_pool(w.seed, 0);
        let mut content = PatternGen::new(w.pattern, false, pool, w.seed, 0);
        let compressed = content.compressed_fraction();
        let interval = w.interval.as_secs_f64();
        let duration = w.duration.map(|d| d.as_secs_f64());
        let mut stats = IntervalStats::new();
        let (mut t, mut t_start, mut transferred) = (0.0f64, 0.0f64, 0u64);
        let mut batch = [(OpKind::Write, 0u64); BATCH];
        // What each I/O of the batch did, its service time, and the closed loop around them.
        let mut done_ios = [Activity::default(); BATCH];
        let mut service = [0.0f64; BATCH];
        let mut queue = ClosedLoop::new(w.qd, self.device.spec.scale, 0.0);
        let checkpoint = control.checkpoint.map(|c| c.as_secs_f64());
        let mut next_checkpoint = checkpoint.unwrap_or(f64::INFINITY);
        loop {
            let mut before = self.device.activity();
            let (mut reads, mut writes, mut served) = (0u64, 0u64, 0usize);
            let mut failure = None;
            // Fetch the mapping entries of the whole batch, then what they point to, so the
            // cache misses of 64 I/Os overlap instead of following one another.
            for slot in &mut batch {
                *slot = offsets.next_op();
                self.device.prefetch(slot.1);
            }
            for &(_, offset) in &batch {
                self.device.prefetch_old_location(offset);
            }
            for &(op, offset) in &batch {
                let write = op == OpKind::Write;
                if let Some(fault) = self.device.fault(write, offset, w.bs) {
                    let event = ErrorEvent {
                        t_s: t,
                        op,
                        offset: offset * k,
                        errno: fault.errno,
                        message: "Input/output error (injected by the simulated drive)".into(),
                    };
                    if w.on_error == OnError::Stop {
                        failure = Some(event.describe());
                        stats.record_error(event);
                        break;
                    }
                    stats.record_error(event);
                    continue;
                }
                if write {
                    let c = content.next_content();
                    self.device.write(offset, w.bs, &c, compressed);
                    writes += 1;
                } else {
                    self.device.read(offset, w.bs);
                    reads += 1;
                }
                let now = self.device.activity();
                done_ios[served] = now.since(&before);
                before = now;
                served += 1;
            }
            t += self
                .device
                .finish_batch(&done_ios[..served], w.qd, &mut service[..served]);
            for (io, &s) in done_ios[..served].iter().zip(&service[..served]) {
                let latency = nanos(queue.serve(s));
                let dir = if io.reads > 0 {
                    &mut stats.read
                } else {
                    &mut stats.write
                };
                dir.record_n(k, k * w.bs, latency);
            }
            transferred += (reads + writes) * k * w.bs;
            let done =
                duration.is_some_and(|d| t >= d) || w.bytes.is_some_and(|b| transferred >= b);
            let interrupted = control.interrupted.load(Ordering::Relaxed);
            if t - t_start >= interval
                || done
                || interrupted
                || failure.is_some()
                || (reads + writes == 0)
            {
                sink.interval(t_start, t, &stats)?;
                stats.clear();
                t_start = t;
                if let Some(every) = checkpoint.filter(|_| t >= next_checkpoint && !done) {
                    self.save()?;
                    next_checkpoint = t + every;
                }
            }
            if let Some(why) = failure {
                return Ok(RunEnd::Failed(why));
            }
            if interrupted {
                return Ok(RunEnd::Interrupted);
            }
            if done {
                return Ok(RunEnd::Completed);
            }
            if reads + writes == 0 {
                return Ok(RunEnd::Failed(
                    "every I/O failed (injected faults) and --on-error continue never ends: use --on-error stop".into(),
                ));
            }
        }
    }
}

/// Nanoseconds in a (non-negative) number of seconds, rounded (`as` saturates; no libm call).
#[inline]
fn nanos(seconds: f64) -> u64 {
    (seconds * 1e9 + 0.5) as u64
}

impl Engine for SimEngine {
    fn name(&self) -> &'static str {
        "sim"
    }

    /// The drive's identity and wear now, as recorded before and after a run.
    fn drive_info(&self) -> Option<crate::inspect::DriveInfo> {
        Some(crate::inspect::sim_drive_info(
            &self.device.spec.text,
            self.identity(),
            super::wear_of(&self.device),
        ))
    }

    fn run(
        &mut self,
        workload: &Workload,
        control: &Control,
        sink: &mut dyn IntervalSink,
    ) -> anyhow::Result<RunEnd> {
        let end = self.simulate(workload, control, sink)?;
        self.save()?;
        Ok(end)
    }
}
