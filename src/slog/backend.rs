//! Where the synchronous writes of a SLOG test land: a real file or block device (pwrite, then
//! `fdatasync`, or `pwritev2(RWF_DSYNC)` — O_DSYNC for one write — from one thread per writer),
//! or a simulated drive (write + flush on simulated time). Both run one [`Phase`] at a time and
//! return its counts; only the phase loop is here, what phases to run is [`super::sweep`]'s job.

use std::os::fd::{AsRawFd, RawFd};
use std::sync::atomic::{AtomicBool, AtomicU64, Ordering};
use std::sync::Arc;
use std::time::Instant;

use rand_chacha::ChaCha8Rng;
use rand_core::{RngCore, SeedableRng};

use crate::device::Target;
use crate::engine::AlignedBuf;
use crate::pattern::{make_pool, Pattern, PatternGen};
use crate::sim::device::Activity;
use crate::sim::drive::SimDrive;
use crate::sim::{CacheMode, SimDevice};
use crate::stats::{ErrorEvent, IntervalStats, OpKind};

impl SyncMode {
    pub fn label(self) -> &'static str {
        match self {
            SyncMode::Fdatasync => "write+fdatasync",
            SyncMode::Dsync => "O_DSYNC write",
        }
    }
}

pub use crate::results::slog::SyncMode;

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
pub trait SyncBackend {
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
    /// The simulated drive, when the target is one.
    fn sim_device(&self) -> Option<&SimDevice> {
        None
    }
    /// Keeps what the phases did (a simulated drive's `state=` file); real targets hold it already.
    fn save(&mut self) -> anyhow::Result<()> {
        Ok(())
    }
}

/// A random offset aligned to `size` inside `span`.
fn random_offset(rng: &mut ChaCha8Rng, span: u64, size: u64) -> u64 {
    let slots = (span / size).max(1);
    (rng.next_u64() % slots) * size
}

/// A real file or block device opened (with every safety check) by [`Target::open`].
pub struct RealBackend {
    target: Arc<Target>,
}

impl RealBackend {
    pub fn new(target: Arc<Target>) -> Self {
        RealBackend { target }
    }
}

impl SyncBackend for RealBackend {
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
        let halt = AtomicBool::new(false);
        let start = Instant::now();
        let shared = Shared {
            fd,
            span,
            phase,
            stop,
            halt: &halt,
            writes: &writes,
            start,
        };
        let mut results: Vec<WriterResult> = Vec::new();
        if phase.writers <= 1 {
            results.push(writer_loop(&shared, 0, pool, Some(intervals)));
        } else {
            std::thread::scope(|s| {
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
            });
        }
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

struct Shared<'a> {
    fd: RawFd,
    span: u64,
    phase: &'a Phase,
    stop: &'a AtomicBool,
    halt: &'a AtomicBool,
    writes: &'a AtomicU64,
    start: Instant,
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
        let t0 = Instant::now();
        let result = durable_write(s.fd, &buf.as_slice()[..size], offset, p.mode);
        let ns = t0.elapsed().as_nanos() as u64;
        match result {
            Ok(()) => {
                interval.write.record(p.size, ns);
                s.writes.fetch_add(1, Ordering::Relaxed);
            }
            Err(e) => {
                let event = ErrorEvent {
                    t_s: s.start.elapsed().as_secs_f64(),
                    op: OpKind::Write,
                    offset,
                    errno: e.raw_os_error().unwrap_or(0),
                    message: e.to_string(),
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

/// A simulated drive: each sync write is the device's write followed by a flush, on
/// simulated time. The flush costs what the drive's cache makes it cost: a write-through drive
/// (`cache=none`) has programmed the data already; a `volatile` cache programs the pages it
/// holds (spread over the dies); `plp` and `lying` acknowledge at once (the first because its
/// capacitors will finish the job, the second because it lies).
pub struct SimBackend {
    drive: SimDrive,
}

impl SimBackend {
    pub fn new(drive: SimDrive) -> Self {
        SimBackend { drive }
    }

    /// Seconds (host units) the flush after `pages` freshly written 4 KiB pages costs.
    fn persist_seconds(&self, pages: u64, mode: SyncMode) -> f64 {
        let device = self.drive.device();
        let p = &device.spec.preset;
        let command = match mode {
            SyncMode::Fdatasync => p.ack_us,
            // FUA on the write itself: no separate flush command.
            SyncMode::Dsync => 0.0,
        };
        let us = match device.spec.cache {
            CacheMode::None | CacheMode::Plp | CacheMode::Lying => command,
            CacheMode::Volatile => {
                let cached = (p.cache_bytes / 4096).max(1);
                let pages = pages.min(cached) as f64;
                let life = device.lifetime();
                let program = match p.slc {
                    Some(slc) if life.slc_fill_bytes < slc.bytes as f64 => slc.program_us,
                    _ => p.program_us,
                };
                command
                    + (pages / f64::from(p.dies)).ceil() * program
                    + pages * p.transfer_us / f64::from(p.channels)
            }
        };
        us * 1e-6
    }
}

impl SyncBackend for SimBackend {
    fn size(&self) -> u64 {
        self.drive.device().spec.size_bytes()
    }

    fn logical_block(&self) -> u64 {
        512
    }

    fn sim_device(&self) -> Option<&SimDevice> {
        Some(self.drive.device())
    }

    fn save(&mut self) -> anyhow::Result<()> {
        self.drive.save()
    }

    /// Rounds of `writers` concurrent writes: the batch at queue depth `writers` (the model's
    /// service times), then one flush persisting all of them (the block layer merges
    /// concurrent flushes). With `scale=k` each simulated write stands for k host writes made
    /// one after another by the same writer.
    fn run_phase(
        &mut self,
        phase: &Phase,
        stop: &AtomicBool,
        intervals: &mut IntervalFn,
    ) -> anyhow::Result<PhaseCounts> {
        let k = u64::from(self.drive.device().spec.scale);
        let kf = k as f64;
        let n = phase.writers.max(1) as usize;
        let span = self.drive.device().spec.size_bytes() / k;
        let pool = make_pool(phase.seed, 0)?;
        let mut content = PatternGen::new(Pattern::Random, false, pool, phase.seed, 0);
        let compressed = content.compressed_fraction();
        let mut rng = ChaCha8Rng::seed_from_u64(phase.seed ^ 0x5109);
        let pages_per_write = phase.size.div_ceil(4096);
        let mut ios = vec![Activity::default(); n];
        let mut service = vec![0.0; n];
        let (mut t, mut t_cut, mut writes) = (0.0f64, 0.0f64, 0u64);
        let mut total = IntervalStats::new();
        let mut interval = IntervalStats::new();
        let mut failed = None;
        loop {
            let done = t >= phase.min_seconds && writes >= phase.min_writes;
            if done || stop.load(Ordering::Relaxed) {
                break;
            }
            let device = self.drive.device_mut();
            let mut before = device.activity();
            for io in ios.iter_mut() {
                let offset = random_offset(&mut rng, span, phase.size);
                if let Some(fault) = device.fault(true, offset, phase.size) {
                    let event = ErrorEvent {
                        t_s: t,
                        op: OpKind::Write,
                        offset: offset * k,
                        errno: fault.errno,
                        message: "Input/output error (injected by the simulated drive)".into(),
                    };
                    failed = Some(event.describe());
                    interval.record_error(event);
                    break;
                }
                device.write(offset, phase.size, &content.next_content(), compressed);
                let now = device.activity();
                *io = now.since(&before);
                before = now;
            }
            if failed.is_some() {
                break;
            }
            let batch = device.finish_batch(&ios, n as u32, &mut service);
            let flush = self.persist_seconds(pages_per_write * n as u64, phase.mode);
            self.drive.device_mut().flush();
            for &s in &service {
                let latency = n as f64 * s / kf + flush;
                interval
                    .write
                    .record_n(k, k * phase.size, (latency * 1e9 + 0.5) as u64);
            }
            t += batch + kf * flush;
            writes += k * n as u64;
            if let Some(every) = phase.interval {
                if t - t_cut >= every {
                    intervals(t_cut, t, &interval)?;
                    total.merge(&interval);
                    interval.clear();
                    t_cut = t;
                }
            }
        }
        if phase.interval.is_some() && (interval.ops() > 0 || interval.errors > 0) {
            intervals(t_cut, t, &interval)?;
        }
        total.merge(&interval);
        Ok(PhaseCounts {
            total,
            seconds: t,
            failed,
        })
    }
}
