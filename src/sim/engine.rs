//! The `sim` engine: runs a workload against a [`SimDevice`] on simulated time.
//!
//! I/Os are issued in small batches; the device turns each batch's NAND work into simulated
//! seconds and shares them out as each I/O's service time, by the work that I/O caused. A
//! closed loop of QD outstanding I/Os ([`ClosedLoop`]) turns service times into per-I/O
//! latencies, each recorded in the interval its completion falls in. Intervals end exactly on
//! the grid of the simulated clock (a batch that crosses a boundary is split there), so an
//! 8-hour soak at 10 s takes seconds and gives 2880 samples of 10.000 s; a run with a duration
//! ends exactly at it (I/Os still in flight then are not counted), one with a byte budget
//! counts exactly the I/Os it needs. With `scale=k` a simulated I/O stands for k host I/Os
//! sharing its service time, and the duration or the budget may end the run after some of
//! them. Under an issue rate an [`OpenLoop`] replaces the closed one: host I/Os go out on the
//! rate's schedule, each counted at its own completion, and the drive stands still between
//! them (simulated time passes; the drive does no idle-time work in those gaps).

use std::sync::atomic::Ordering;

use super::device::{Activity, SimDevice};
use super::drive::SimDrive;
use super::queue::{ClosedLoop, OpenLoop};
use super::thermal::Thermal;
use super::verify::SimReader;
use crate::engine::{Control, Cursors, Engine, IntervalSink, OffsetGen, RunEnd};
use crate::pattern::{make_pool, PatternGen};
use crate::stats::{ErrorEvent, IntervalStats, OpKind};
use crate::verify;
use crate::workload::{OnError, Workload};
use rand_chacha::ChaCha8Rng;
use rand_core::{RngCore, SeedableRng};

/// Simulated I/Os per batch: enough for their cache misses to overlap (see the prefetches).
const BATCH: usize = 64;

/// Runs workloads on a simulated drive and saves it afterwards when the spec has `state=`
/// (whose file stays locked while the engine exists: see [`SimDrive::open`]).
pub struct SimEngine {
    drive: SimDrive,
}

impl SimEngine {
    /// Opens the drive (see [`SimDrive::open`]): loaded from `state=` when that file has
    /// content, else new.
    pub fn open(spec: &str) -> anyhow::Result<SimEngine> {
        Ok(SimEngine {
            drive: SimDrive::open(spec)?,
        })
    }

    /// The drive.
    pub fn device(&self) -> &SimDevice {
        self.drive.device()
    }

    /// The drive's identity as a target.
    pub fn identity(&self) -> crate::drive::Identity {
        super::identity_of(&self.device().spec)
    }

    fn simulate(
        &mut self,
        w: &Workload,
        control: &Control,
        sink: &mut dyn IntervalSink,
    ) -> anyhow::Result<RunEnd> {
        let mut device = self.drive.device_mut();
        // The engine's latencies are the host's: protocol, link and controller time included.
        device.set_host_protocol(true);
        let k = u64::from(device.spec.scale);
        // The scaled drive runs the same workload on a span k times smaller.
        let mut scaled = w.clone();
        scaled.span = (w.span / k / w.align * w.align).max(w.bs);
        scaled.offset = w.offset / k / w.align * w.align;
        let mut offsets = OffsetGen::new(&scaled, 0, 0, &Cursors::new(1));
        let pool = make_pool(w.seed, 0)?;
        let mut content = PatternGen::new(w.pattern, false, pool, w.seed, 0);
        let compressed = content.compressed_fraction();
        let mut grid = Grid::new(w.interval.as_secs_f64());
        let duration = w.duration.map(|d| d.as_secs_f64());
        // Host bytes the byte budget leaves (the last I/O counted whole); the last simulated
        // I/O may count only some of the k host I/Os it stands for.
        let mut budget = w.bytes;
        let mut stats = IntervalStats::new();
        // The model knows what it programs: every interval reports its NAND bytes.
        stats.nand_bytes = Some(0);
        let slots_per_page = u64::from(device.ftl().geometry().slots_per_page);
        // Bytes of one NAND slot for one host I/O (a simulated I/O stands for k of them).
        let slot_bytes = 4096 / slots_per_page;
        // The simulated clock: the completion time of the last I/O counted.
        let mut t = 0.0f64;
        let mut batch = [(OpKind::Write, 0u64, 0u64); BATCH];
        // What each I/O of the batch did, its service time, and the closed loop around them.
        let mut done_ios = [Activity::default(); BATCH];
        let mut done_ops = [(OpKind::Write, 0u64); BATCH];
        let mut service = [0.0f64; BATCH];
        let mut own = [0.0f64; BATCH];
        // The closed loop shares each I/O's service among the QD / scale simulated I/Os in
        // flight; what an I/O waits on its own goes back to it (see `own` below). Jobs are one
        // host's submitters of one drive: the drive sees every job's queue as one, jobs × QD
        // I/Os outstanding, from one stream of offsets.
        let in_flight = w.outstanding();
        // The share is over the host I/Os in flight, not the simulated ones: a simulated I/O
        // standing for k host I/Os draws its wait for one of them, which the others of the
        // loop do not share, whatever the scale.
        let concentrate = 1.0 - 1.0 / f64::from(in_flight).max(1.0);
        let mut queue = ClosedLoop::new(in_flight, device.spec.scale, 0.0);
        let mut paced = w
            .rate
            .map(|rate| OpenLoop::new(rate, w.bs, in_flight, device.spec.scale));
        let mut hosts = Vec::with_capacity(k as usize);
        let verify = control.verify.as_deref();
        let (verify_base, _) = super::verify::scaled_blocks(w, k);
        if let Some(v) = verify {
            // Tells the verifier how the drive is scaled.
            SimReader::new(&*device, w, v);
        }
        let verify_every = w.verify.and_then(|o| o.every).map(|d| d.as_secs_f64());
        let mut next_check = verify_every.unwrap_or(f64::INFINITY);
        let mut picks = ChaCha8Rng::seed_from_u64(w.seed ^ 0x5a3b);
        // The drive's heat (`thermal=`, kept on the drive so a resumed run starts as warm as
        // the last one left it): it slows the work while throttled, and its reading goes with
        // every interval; `heat_t` is the clock it was last advanced to.
        let mut heat_t = 0.0f64;
        let checkpoint = control.checkpoint.map(|c| c.as_secs_f64());
        let mut next_checkpoint = checkpoint.unwrap_or(f64::INFINITY);
        loop {
            let size = budget.map_or(BATCH, |b| b.div_ceil(w.bs * k).min(BATCH as u64) as usize);
            let batch = &mut batch[..size];
            let mut before = device.activity();
            let mut served = 0usize;
            let mut failure = None;
            // Fetch the mapping entries of the whole batch, then what they point to, so the
            // cache misses of 64 I/Os overlap instead of following one another.
            for slot in batch.iter_mut() {
                let len = offsets.next_len();
                let (op, offset) = offsets.next_op(len);
                *slot = (op, offset, len);
                device.prefetch(offset);
            }
            for &(_, offset, _) in batch.iter() {
                device.prefetch_old_location(offset);
            }
            for &(op, offset, len) in batch.iter() {
                // A trim changes what the drive holds: it meets the faults of a write.
                if let Some(fault) = device.fault(op != OpKind::Read, offset, len) {
                    let event = ErrorEvent {
                        t_s: t,
                        op,
                        offset: offset * k,
                        errno: fault.errno,
                        message: format!(
                            "{} (simulated drive)",
                            crate::error::errno_words(fault.errno)
                        ),
                    };
                    if w.on_error == OnError::Stop {
                        failure = Some(event.describe());
                        stats.record_error(event);
                        break;
                    }
                    stats.record_error(event);
                    continue;
                }
                if op == OpKind::Trim {
                    // The drive's TRIM: the pages hold no data any more, so garbage collection
                    // no longer copies them.
                    device.trim(offset, len);
                } else if op == OpKind::Write {
                    let mut c = content.next_content();
                    match verify {
                        Some(v) => {
                            let block = (offset - verify_base) / w.bs;
                            let generation = v.claim_write(block).expect("one write at a time");
                            c.stamp = v.content_id(block, generation);
                            device.write(offset, len, &c, compressed);
                            v.finish_write(block, generation, true);
                        }
                        None => device.write(offset, len, &c, compressed),
                    }
                } else {
                    device.read(offset, len);
                }
                let now = device.activity();
                done_ios[served] = now.since(&before);
                done_ops[served] = (op, len);
                before = now;
                served += 1;
            }
            let t_batch = t;
            let seconds = device.finish_batch(
                &done_ios[..served],
                in_flight,
                &mut service[..served],
                &mut own[..served],
            );
            let slow = device.heat().map_or(1.0, Thermal::slowdown);
            let seconds = if slow > 1.0 {
                // A throttled controller does the same work, slower.
                service[..served].iter_mut().for_each(|s| *s *= slow);
                seconds * slow
            } else {
                seconds
            };
            let own_mean = own[..served].iter().sum::<f64>() / served.max(1) as f64;
            // Each host I/O completes when the drive has served it and those before it; it
            // counts in the interval its completion falls in. Past the duration, or once the
            // byte budget is spent, the run has ended.
            let mut completion = t_batch;
            let mut past_end = false;
            for (((io, &s), &o), &op) in done_ios[..served]
                .iter()
                .zip(&service[..served])
                .zip(&own[..served])
                .zip(&done_ops[..served])
            {
                let (op, len) = op;
                // What the drive programmed for this I/O, shared by the k host I/Os it stands for.
                let host_nand_bytes = io.nand_slots(slots_per_page) * slot_bytes;
                match &mut paced {
                    Some(open) => {
                        open.serve(s, device.unloaded_seconds(io) + o, &mut hosts);
                        if let Some(last) = hosts.last() {
                            completion = completion.max(last.done);
                        }
                        for h in &hosts {
                            if budget == Some(0) {
                                break;
                            }
                            if duration.is_some_and(|d| h.done > d) {
                                past_end = true;
                                break;
                            }
                            grid.cut_before(h.done, &mut stats, sink)?;
                            stats.dir_mut(op).record_n(1, len, nanos(h.latency));
                            *stats.nand_bytes.get_or_insert(0) += host_nand_bytes;
                            stats.pacing.record_n(1, nanos(h.lag));
                            t = h.done;
                            if let Some(b) = &mut budget {
                                *b = b.saturating_sub(len);
                            }
                        }
                    }
                    None => {
                        // The k host I/Os share the service evenly; the budget or the
                        // duration may end the run after some of them.
                        // The loop spread this I/O's own wait over the I/Os in flight with it:
                        // it goes back to this one (the batch's mean, so Little's law holds).
                        let latency =
                            nanos((queue.serve(s) + (o - own_mean) * concentrate).max(0.0));
                        let mut n = budget.map_or(k, |b| b.div_ceil(len).min(k));
                        let each = s / k as f64;
                        if let Some(d) = duration.filter(|&d| completion + each * n as f64 > d) {
                            let fit = if each > 0.0 {
                                (d - completion) / each
                            } else {
                                0.0
                            };
                            n = (fit.max(0.0) as u64).min(n);
                            past_end = true;
                        }
                        if n > 0 {
                            // The n host I/Os complete `each` apart: each interval they cross
                            // counts those done in it (at scale, one simulated I/O of large
                            // blocks spans intervals; counted at its end, a steady run's
                            // seconds would read 0, 64, 128 I/Os).
                            let done = completion + each * n as f64;
                            let mut counted = 0;
                            loop {
                                grid.cut_before(
                                    completion + each * (counted + 1) as f64,
                                    &mut stats,
                                    sink,
                                )?;
                                let end = grid.end();
                                let by_end = if each > 0.0 && end < done {
                                    (((end - completion) / each) as u64).clamp(counted + 1, n)
                                } else {
                                    n
                                };
                                let m = by_end - counted;
                                stats.dir_mut(op).record_n(m, m * len, latency);
                                *stats.nand_bytes.get_or_insert(0) += m * host_nand_bytes;
                                counted = by_end;
                                if counted == n {
                                    break;
                                }
                            }
                            t = done;
                        }
                        completion += s;
                        if let Some(b) = &mut budget {
                            *b = b.saturating_sub(n * len);
                        }
                    }
                }
                if past_end || budget == Some(0) {
                    break;
                }
            }
            if served == 0 {
                t = t_batch + seconds;
            } else if paced.is_some() {
                device.batch_elapsed(seconds, completion - t_batch);
            }
            let (scale, life) = (device.spec.scale, device.lifetime());
            if let Some(h) = device.heat_mut() {
                let energy: f64 = done_ios[..served]
                    .iter()
                    .map(|a| h.energy_j(a, slots_per_page, scale))
                    .sum();
                h.advance(t - heat_t, energy);
                heat_t = t;
                stats.health = Some(h.health(
                    life.host_bytes * k,
                    life.programmed_slots * 4096 / slots_per_page * k,
                ));
            }
            if let Some((v, every)) = verify.zip(verify_every).filter(|_| t >= next_check) {
                verify::sample(v, &mut SimReader::new(&*device, w, v), &mut || {
                    picks.next_u64()
                });
                next_check = t + every;
            }
            let end = if let Some(why) = failure {
                Some(RunEnd::Failed(why))
            } else if control.interrupted.load(Ordering::Relaxed) {
                Some(RunEnd::Interrupted)
            } else if past_end || duration.is_some_and(|d| t >= d) {
                t = duration.expect("past the duration");
                Some(RunEnd::Completed)
            } else if budget == Some(0) {
                Some(RunEnd::Completed)
            } else if served == 0 {
                Some(RunEnd::Failed(
                    "every I/O failed (injected faults) and --on-error continue never ends: use --on-error stop".into(),
                ))
            } else {
                None
            };
            if let Some(end) = end {
                grid.cut_before(t, &mut stats, sink)?;
                sink.interval(grid.start, t, &stats)?;
                return Ok(end);
            }
            // A kept drive saves itself now and then, so a crash loses at most that much of
            // the run; the drive is a batch (at most 64 I/Os) ahead of the samples recorded.
            if let Some(every) = checkpoint.filter(|_| t >= next_checkpoint) {
                // Given up when a signal comes meanwhile: the run then ends and saves again.
                self.drive.save_unless_stopped()?;
                device = self.drive.device_mut();
                next_checkpoint = t + every;
            }
        }
    }
}

/// The interval grid on the simulated clock: interval n spans [n·len, (n+1)·len).
struct Grid {
    len: f64,
    /// Intervals handed to the sink so far.
    done: u64,
    /// Where the current interval started.
    start: f64,
}

impl Grid {
    fn new(len: f64) -> Grid {
        Grid {
            len,
            done: 0,
            start: 0.0,
        }
    }

    /// Where the interval being filled ends.
    #[inline]
    fn end(&self) -> f64 {
        (self.done + 1) as f64 * self.len
    }

    /// Hands the sink every interval that ends before `t` (empty ones too: the drive completed
    /// nothing in them), so what comes next is recorded in the interval holding `t`.
    #[inline]
    fn cut_before(
        &mut self,
        t: f64,
        stats: &mut IntervalStats,
        sink: &mut dyn IntervalSink,
    ) -> anyhow::Result<()> {
        loop {
            let end = self.end();
            if t <= end {
                return Ok(());
            }
            sink.interval(self.start, end, stats)?;
            stats.clear();
            self.done += 1;
            self.start = end;
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
    fn drive_info(&self) -> Option<crate::drive::DriveInfo> {
        Some(super::drive_info(
            &self.device().spec.text,
            self.identity(),
            super::wear_of(self.device()),
        ))
    }

    fn run(
        &mut self,
        workload: &Workload,
        control: &Control,
        sink: &mut dyn IntervalSink,
    ) -> anyhow::Result<RunEnd> {
        if control.interrupted.load(Ordering::Relaxed) {
            // Stopped while the drive was being loaded: nothing ran, so the saved drive is the
            // drive, and the stop need not wait for a save (197 MB for dc-ssd-400g,scale=4).
            return Ok(RunEnd::Interrupted);
        }
        let mut end = self.simulate(workload, control, sink)?;
        if let Some(v) = control.verify.as_deref() {
            if workload.verify.is_some_and(|o| o.end) && end == RunEnd::Completed {
                let mut reader = SimReader::new(self.drive.device(), workload, v);
                let interrupted = &control.interrupted;
                if !verify::full_pass(v, &mut reader, &|| interrupted.load(Ordering::Relaxed)) {
                    // A check cut short is no clean pass: the run ends interrupted.
                    end = RunEnd::Interrupted;
                }
            }
        }
        if end != RunEnd::Interrupted {
            self.drive.save()?;
        } else if !self.drive.save_unless_stopped()? {
            // A signal asked the process to end, and the save may not hold it past a second.
            crate::note!(
                "ssdfade: note: the simulated drive was not saved to {} in the time a stop allows: `ssdfade resume` continues from its last save",
                self.drive.state_path().map_or("its state file".into(), |p| p.display().to_string())
            );
        }
        Ok(end)
    }
}
