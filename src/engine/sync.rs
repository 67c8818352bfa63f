//! The sync-write engine (fio's `psync` with `fdatasync=1`, or `sync=dsync`): each writer
//! thread writes, then waits until the device says the data is durable — what a ZFS intent log
//! does to its device. [`SyncWriter`] is the interface the SLOG test drives one [`Phase`] at a
//! time; [`FileSyncWriter`] is its implementation on a real file or block device (a simulated
//! drive has its own, in `sim`). What phases to run is the SLOG plan's job.
//!
//! Under an issue rate (`Phase::rate`, the SLOG test's `--zil-rate N/s`) write n is due at
//! start + n / rate whenever the writes before it completed (open loop, as the real engines'
//! `--rate-iops`): a write issued more than a millisecond after its time is counted late. A
//! stop of the process itself (SIGSTOP, a suspended machine) is the tool's time, never the
//! drive's: it stays out of the latency of a write in flight across it and out of its lag, and
//! the interval records it as `stopped_s`.

use std::os::fd::{AsRawFd, RawFd};
use std::sync::atomic::{AtomicBool, AtomicU64, Ordering};
use std::sync::Arc;
use std::time::{Duration, Instant};

use rand_chacha::ChaCha8Rng;
use rand_core::{RngCore, SeedableRng};

use super::pace;
use super::stopwatch::StopWatch;
use crate::drive::DriveInfo;
use crate::engine::{AlignedBuf, Target};
use crate::pattern::{make_pool, Pattern, PatternGen};
pub use crate::results::slog::{CacheReport, SyncMode};
use crate::stats::{ErrorEvent, IntervalStats, OpKind};
use crate::workload::Rate;

impl SyncMode {
    /// The mode in a point's directory name.
    pub fn name(self) -> &'static str {
        match self {
            SyncMode::Fdatasync => "fdatasync",
            SyncMode::Dsync => "dsync",
        }
    }

    pub fn label(self) -> &'static str {
        match self {
            SyncMode::Fdatasync => "write+fdatasync",
            SyncMode::Dsync => "O_DSYNC write",
        }
    }
}

/// One measurement: `writers` threads each writing `size` bytes synchronously at random
/// size-aligned offsets until both `min_seconds` and `min_writes` are reached.
#[derive(Clone, Copy, Debug)]
pub struct Phase {
    pub size: u64,
    pub mode: SyncMode,
    pub writers: u32,
    pub min_seconds: f64,
    pub min_writes: u64,
    /// Cut an interval every this many seconds (single writer only); `None`: one interval.
    pub interval: Option<f64>,
    pub seed: u64,
    /// Issue on this schedule (open loop) instead of flat out; no write is due at or after
    /// `min_seconds`.
    pub rate: Option<Rate>,
}

impl Phase {
    /// Seconds from the phase's start until write `n` is due (`None`: flat out, or past the
    /// phase's end).
    pub fn due_s(&self, n: u64) -> Option<f64> {
        let due = self.rate?.due_ns(n, self.size) as f64 / 1e9;
        (due < self.min_seconds).then_some(due)
    }
}

/// What a phase did.
pub struct PhaseCounts {
    pub total: IntervalStats,
    pub seconds: f64,
    /// An I/O error ended the phase.
    pub failed: Option<String>,
}

/// Receives the intervals of a phase that asked for them: (start s, end s, counts).
pub type IntervalFn<'a> = dyn FnMut(f64, f64, &IntervalStats) -> anyhow::Result<()> + 'a;

/// A target the SLOG test can write to.
pub trait SyncWriter {
    /// Engine name recorded in run.json (`sync`, `sim`).
    fn name(&self) -> &'static str;
    /// Runs one phase; `stop` ends it early (Ctrl-C).
    fn run_phase(
        &mut self,
        phase: &Phase,
        stop: &AtomicBool,
        intervals: &mut IntervalFn,
    ) -> anyhow::Result<PhaseCounts>;
    /// Largest write the target allows (its size).
    fn size(&self) -> u64;
    /// Smallest write (the logical block size).
    fn logical_block(&self) -> u64;
    /// The drive's identity and wear as the writer itself knows them (a simulated drive);
    /// `None` means ask the system about the target instead.
    fn drive_info(&self) -> Option<DriveInfo> {
        None
    }
    /// What the target's write cache makes of a sync write, from what the system reported
    /// about it (`info`).
    fn cache(&self, info: Option<&DriveInfo>) -> CacheReport;
    /// Keeps what the phases did (a simulated drive's `state=` file); real targets hold it already.
    fn save(&mut self) -> anyhow::Result<()> {
        Ok(())
    }
}

/// A random offset aligned to `size` inside `span`.
pub fn random_offset(rng: &mut ChaCha8Rng, span: u64, size: u64) -> u64 {
    let slots = (span / size).max(1);
    (rng.next_u64() % slots) * size
}

/// A real file or block device opened (with every safety check) by the device layer.
pub struct FileSyncWriter {
    target: Arc<Target>,
}

impl FileSyncWriter {
    pub fn new(target: Arc<Target>) -> Self {
        FileSyncWriter { target }
    }
}

impl SyncWriter for FileSyncWriter {
    fn name(&self) -> &'static str {
        "sync"
    }

    fn cache(&self, info: Option<&DriveInfo>) -> CacheReport {
        let write_cache = info.and_then(|i| i.write_cache.clone());
        let fua = info.and_then(|i| i.fua);
        let meaning = match (write_cache.as_deref(), fua) {
            (Some(w), _) if w.starts_with("write through") => "write through: the device stores each write before it completes it (no volatile cache, or one that is off), so a flush has nothing left to wait for and the figures are the device's write latency",
            (Some(w), Some(true)) if w.starts_with("write back") => "write back with FUA: fdatasync sends a cache flush, O_DSYNC writes go as FUA writes",
            (Some(w), _) if w.starts_with("write back") => "write back without FUA: fdatasync and O_DSYNC writes both wait for a cache flush",
            _ => "cache mode unknown (a file: the filesystem decides)",
        };
        CacheReport {
            write_cache,
            fua,
            meaning: meaning.into(),
        }
    }

    fn size(&self) -> u64 {
        self.target.size
    }

    fn logical_block(&self) -> u64 {
        u64::from(self.target.logical_block.max(512))
    }

    fn run_phase(
        &mut self,
        phase: &Phase,
        stop: &AtomicBool,
        intervals: &mut IntervalFn,
    ) -> anyhow::Result<PhaseCounts> {
        let pool = make_pool(phase.seed, phase.size as usize)?;
        let fd = self.target.file.as_raw_fd();
        let span = self.target.size;
        let writes = AtomicU64::new(0);
        let tickets = AtomicU64::new(0);
        let halt = AtomicBool::new(false);
        if phase.rate.is_some() {
            pace::sleep_granularity();
        }
        let start = Instant::now();
        let watch = StopWatch::new(start);
        let shared = Shared {
            fd,
            span,
            phase,
            stop,
            halt: &halt,
            writes: &writes,
            tickets: &tickets,
            wait: pace::Wait::for_threads(phase.writers.max(1) as usize),
            start,
            watch: &watch,
        };
        let mut results: Vec<WriterResult> = Vec::new();
        let ended = AtomicBool::new(false);
        std::thread::scope(|s| {
            // Without the ticker a stop goes unnoticed, as before: not a reason to fail.
            let _ = std::thread::Builder::new()
                .name("ssdfade-stopwatch".into())
                .spawn_scoped(s, || watch.run(&ended));
            let _ticker_ends = SetOnDrop(&ended);
            if phase.writers <= 1 {
                results.push(writer_loop(&shared, 0, pool, Some(intervals)));
            } else {
                let handles: Vec<_> = (0..phase.writers)
                    .map(|id| {
                        let pool = pool.clone();
                        let shared = &shared;
                        s.spawn(move || writer_loop(shared, id, pool, None))
                    })
                    .collect();
                for h in handles {
                    results.push(h.join().expect("a writer thread panicked"));
                }
            }
        });
        let seconds = start.elapsed().as_secs_f64();
        let mut total = IntervalStats::new();
        let mut failed = None;
        for r in results {
            total.merge(&r.stats);
            if let Some(e) = r.error {
                failed.get_or_insert(e);
            }
            if let Some(e) = r.sink_error {
                return Err(e);
            }
        }
        Ok(PhaseCounts {
            total,
            seconds,
            failed,
        })
    }
}

/// Sets its flag when dropped, also while unwinding (ends the stop-watch's ticker).
struct SetOnDrop<'a>(&'a AtomicBool);

impl Drop for SetOnDrop<'_> {
    fn drop(&mut self) {
        self.0.store(true, Ordering::Relaxed);
    }
}

struct Shared<'a> {
    fd: RawFd,
    span: u64,
    phase: &'a Phase,
    stop: &'a AtomicBool,
    halt: &'a AtomicBool,
    writes: &'a AtomicU64,
    /// The next write of the schedule (under a rate).
    tickets: &'a AtomicU64,
    /// How a writer waits for its write's time.
    wait: pace::Wait,
    start: Instant,
    /// When the process itself was stopped.
    watch: &'a StopWatch,
}

impl Shared<'_> {
    /// Seconds from the phase's start to `t`.
    fn since_start(&self, t: Instant) -> f64 {
        t.saturating_duration_since(self.start).as_secs_f64()
    }

    /// Nanoseconds from `from` to `to` less the time the process was stopped meanwhile.
    fn drive_ns(&self, from: Instant, to: Instant) -> u64 {
        let ns = to.saturating_duration_since(from).as_nanos() as u64;
        if !StopWatch::could_hold_a_stop(ns) {
            return ns;
        }
        let stopped = self
            .watch
            .stopped_within(self.since_start(from), self.since_start(to));
        ns.saturating_sub((stopped * 1e9) as u64)
    }

    /// Under a rate, takes the next write of the schedule and sleeps until it is due; returns
    /// its due time (`Some(None)` flat out), or `None` when the schedule has ended or the phase
    /// was stopped meanwhile.
    fn wait_for_turn(&self) -> Option<Option<Instant>> {
        if self.phase.rate.is_none() {
            return Some(None);
        }
        let n = self.tickets.fetch_add(1, Ordering::Relaxed);
        let due = self.start + Duration::from_secs_f64(self.phase.due_s(n)?);
        let stopped = || self.stop.load(Ordering::Relaxed) || self.halt.load(Ordering::Relaxed);
        self.wait.until(due, stopped).then_some(Some(due))
    }
}

struct WriterResult {
    stats: IntervalStats,
    error: Option<String>,
    sink_error: Option<anyhow::Error>,
}

/// One writer: write, make durable, time it, until the phase's stop rule.
fn writer_loop(
    s: &Shared,
    id: u32,
    pool: Arc<Vec<u8>>,
    mut intervals: Option<&mut IntervalFn>,
) -> WriterResult {
    let p = s.phase;
    let size = p.size as usize;
    let mut pattern = PatternGen::new(Pattern::Random, false, pool, p.seed, u64::from(id));
    let mut rng = ChaCha8Rng::seed_from_u64(p.seed ^ (u64::from(id) << 32) ^ 0x5109);
    let mut all = IntervalStats::new();
    let mut interval = IntervalStats::new();
    let mut t_cut = 0.0;
    let mut out = WriterResult {
        stats: IntervalStats::new(),
        error: None,
        sink_error: None,
    };
    let mut buf = match AlignedBuf::new(size) {
        Ok(buf) => buf,
        Err(e) => {
            out.error = Some(format!("allocating a {size}-byte write buffer: {e}"));
            s.halt.store(true, Ordering::Relaxed);
            return out;
        }
    };
    loop {
        let elapsed = s.start.elapsed().as_secs_f64();
        let done = elapsed >= p.min_seconds && s.writes.load(Ordering::Relaxed) >= p.min_writes;
        if done || s.stop.load(Ordering::Relaxed) || s.halt.load(Ordering::Relaxed) {
            break;
        }
        let content = pattern.next_content();
        pattern.render(&content, &mut buf.as_mut_slice()[..size]);
        let offset = random_offset(&mut rng, s.span, p.size);
        let Some(due) = s.wait_for_turn() else { break };
        let t0 = Instant::now();
        let result = durable_write(s.fd, &buf.as_slice()[..size], offset, p.mode);
        let ns = s.drive_ns(t0, Instant::now()).max(1);
        match result {
            Ok(()) => {
                interval.write.record(p.size, ns);
                if let Some(due) = due {
                    interval.pacing.record(s.drive_ns(due, t0));
                }
                s.writes.fetch_add(1, Ordering::Relaxed);
            }
            Err(e) => {
                let event = ErrorEvent {
                    t_s: s.start.elapsed().as_secs_f64(),
                    op: OpKind::Write,
                    offset,
                    errno: e.raw_os_error().unwrap_or(0),
                    message: crate::error::io_words(&e),
                };
                out.error = Some(event.describe());
                interval.record_error(event);
                s.halt.store(true, Ordering::Relaxed);
                break;
            }
        }
        if let (Some(every), Some(sink)) = (p.interval, intervals.as_mut()) {
            let now = s.start.elapsed().as_secs_f64();
            if now - t_cut >= every {
                s.watch.mark(&mut interval, t_cut, now);
                if let Err(e) = sink(t_cut, now, &interval) {
                    out.sink_error = Some(e);
                    s.halt.store(true, Ordering::Relaxed);
                    break;
                }
                all.merge(&interval);
                interval.clear();
                t_cut = now;
            }
        }
    }
    if let (Some(_), Some(sink)) = (p.interval, intervals.as_mut()) {
        if interval.ops() > 0 || interval.errors > 0 {
            let now = s.start.elapsed().as_secs_f64();
            s.watch.mark(&mut interval, t_cut, now);
            if let Err(e) = sink(t_cut, now, &interval) {
                out.sink_error = Some(e);
            }
        }
    }
    all.merge(&interval);
    out.stats = all;
    out
}

/// Writes `buf` at `offset` and waits until the device says it is durable.
fn durable_write(fd: RawFd, buf: &[u8], offset: u64, mode: SyncMode) -> std::io::Result<()> {
    let iov = libc::iovec {
        iov_base: buf.as_ptr() as *mut libc::c_void,
        iov_len: buf.len(),
    };
    let flags = match mode {
        SyncMode::Fdatasync => 0,
        SyncMode::Dsync => libc::RWF_DSYNC,
    };
    // SAFETY: one iovec over a buffer that outlives the call; fd is open for writing.
    let n = unsafe { libc::pwritev2(fd, &iov, 1, offset as libc::off_t, flags) };
    if n < 0 {
        return Err(std::io::Error::last_os_error());
    }
    if n as usize != buf.len() {
        return Err(std::io::Error::other(format!(
            "short write: {n} of {} bytes",
            buf.len()
        )));
    }
    if mode == SyncMode::Fdatasync {
        // SAFETY: plain syscall on an fd we hold.
        if unsafe { libc::fdatasync(fd) } != 0 {
            return Err(std::io::Error::last_os_error());
        }
    }
    Ok(())
}

/// A workload in sync mode as an [`crate::engine::Engine`]: each run is one phase of the
/// device's [`SyncWriter`] (`qd` writers, `bs` bytes, the workload's duration and
/// `min_writes`), so the SLOG test's points are runs of the one run pipeline. The full counts
/// of the last run (exact latency histograms) stay readable for the SLOG table.
pub struct SyncEngine {
    writer: Box<dyn SyncWriter>,
    last: Option<PhaseCounts>,
}

impl SyncEngine {
    pub fn new(writer: Box<dyn SyncWriter>) -> Self {
        SyncEngine { writer, last: None }
    }

    /// The writer the runs go through (size, logical block, cache, saving a simulated drive).
    pub fn writer(&mut self) -> &mut dyn SyncWriter {
        self.writer.as_mut()
    }

    /// What the last run did, taken (`None` before the first run).
    pub fn take_counts(&mut self) -> Option<PhaseCounts> {
        self.last.take()
    }

    /// The phase a sync-mode workload describes.
    pub fn phase_of(workload: &crate::workload::Workload) -> Option<Phase> {
        let sync = workload.sync?;
        let writers = workload.qd.max(1);
        Some(Phase {
            size: workload.bs,
            mode: sync.mode,
            writers,
            min_seconds: workload.duration.map_or(0.0, |d| d.as_secs_f64()),
            min_writes: sync.min_writes,
            interval: (writers == 1).then_some(workload.interval.as_secs_f64()),
            seed: workload.seed,
            rate: workload.rate,
        })
    }
}

impl crate::engine::Engine for SyncEngine {
    fn name(&self) -> &'static str {
        self.writer.name()
    }

    fn drive_info(&self) -> Option<DriveInfo> {
        self.writer.drive_info()
    }

    fn run(
        &mut self,
        workload: &crate::workload::Workload,
        control: &crate::engine::Control,
        sink: &mut dyn crate::engine::IntervalSink,
    ) -> anyhow::Result<crate::engine::RunEnd> {
        use crate::engine::RunEnd;
        let Some(phase) = Self::phase_of(workload) else {
            anyhow::bail!("the sync engine runs sync-mode workloads only (an internal error)");
        };
        let mut intervals = |t0: f64, t1: f64, s: &IntervalStats| sink.interval(t0, t1, s);
        let counts = self
            .writer
            .run_phase(&phase, &control.interrupted, &mut intervals)?;
        // Several writers are not cut into intervals: their phase is one sample.
        if phase.interval.is_none() && (counts.total.ops() > 0 || counts.total.errors > 0) {
            sink.interval(0.0, counts.seconds, &counts.total)?;
        }
        self.writer.save()?;
        let end = if let Some(why) = &counts.failed {
            RunEnd::Failed(why.clone())
        } else if control.interrupted.load(Ordering::Relaxed) {
            RunEnd::Interrupted
        } else {
            RunEnd::Completed
        };
        self.last = Some(counts);
        Ok(end)
    }
}
