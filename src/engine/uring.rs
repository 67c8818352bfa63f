//! The `uring` engine: `--qd` I/Os in flight through io_uring. On a target whose I/O goes to the
//! kernel's workers (zram), one ring per CPU the process may run on, each with its own submitting
//! thread, buffers and share of the queue depth, and its kernel workers kept on that CPU (fio's
//! `io_uring` with numjobs = CPUs and iodepth = QD ÷ CPUs); elsewhere one ring. With `--jobs N`
//! (fio's numjobs), N rings of depth `--qd`, each with its own submitting thread, offsets and
//! sequential slice; on a target that blocks, their workers spread over the CPUs in turn.
//!
//! Buffers and the target's descriptor are registered with the ring when the kernel allows it
//! (fixed buffers spare the kernel a page pin per I/O, a fixed file spares it a descriptor
//! look-up). Every freed slot is refilled at once and each new I/O is submitted as soon as its
//! buffer is ready (see [`Submitter::refill`] for why not in one batch), the last one together
//! with the wait for the next completion; completions are read from the shared ring without a
//! system call, however many arrive together. Latency runs from the system call that submitted
//! an I/O to the return of the one that saw it complete.
//!
//! Trims do not go through the ring: the submitting thread issues each one synchronously
//! ([`super::trim`]) as fio's io_uring engine does, and completions that arrive meanwhile are
//! reaped after it (their latencies include the wait).

use std::io;
use std::os::fd::{AsRawFd, RawFd};
use std::sync::Arc;
use std::time::Instant;

use io_uring::{opcode, squeue, types, IoUring};

use super::clock::{IoClock, Stamp};
use super::pace;
use super::realtime::{drive, WorkerStats};
use super::trim::{self, Method};
use super::verifying;
use super::{io_buffers, AlignedBuf, Control, Cursors, Engine, IntervalSink, OffsetGen, RunEnd};
use crate::engine::Target;
use crate::pattern::{pool_for, PatternGen};
use crate::stats::{ErrorEvent, OpKind};
use crate::verify::Verifier;
use crate::workload::Workload;

/// Asynchronous I/O from one thread through io_uring.
pub struct UringEngine {
    target: Arc<Target>,
}

impl UringEngine {
    pub fn new(target: Arc<Target>) -> Self {
        UringEngine { target }
    }
}

/// True when this kernel lets us build an io_uring (it may be compiled out, or disabled by the
/// `kernel.io_uring_disabled` sysctl or a seccomp policy).
pub fn available() -> bool {
    build_ring(2).is_ok()
}

/// A ring with `entries` submission slots, with the cheapest completion mode the kernel offers:
/// task work deferred to our own `io_uring_enter` (Linux 6.1), else cooperative task work
/// (5.19), else the plain ring.
fn build_ring(entries: u32) -> io::Result<IoUring> {
    IoUring::builder()
        .setup_single_issuer()
        .setup_defer_taskrun()
        .build(entries)
        .or_else(|_| IoUring::builder().setup_coop_taskrun().build(entries))
        .or_else(|_| IoUring::new(entries))
}

impl Engine for UringEngine {
    fn name(&self) -> &'static str {
        "uring"
    }

    fn run(
        &mut self,
        w: &Workload,
        control: &Control,
        sink: &mut dyn IntervalSink,
    ) -> anyhow::Result<RunEnd> {
        // Fail before the run directory fills with samples when the ring cannot be had at all.
        build_ring(w.qd.next_power_of_two()).map_err(|e| {
            anyhow::anyhow!(
                "cannot set up an io_uring of {} entries: {e}; use --engine threads",
                w.qd.next_power_of_two()
            )
        })?;
        let pool = pool_for(w.pattern, w.seed, w.bs as usize)?;
        let fd = self.target.file.as_raw_fd();
        let blocking =
            cannot_avoid_blocking(fd, &mut AlignedBuf::new(w.bs as usize)?, w.bs as usize);
        let rings = rings_for(w.jobs as usize, w.qd as usize, blocking);
        // Each ring's buffers in one allocation, one buffer per slot.
        let stride = (w.bs as usize).next_multiple_of(4096);
        let deepest = rings.iter().map(|r| r.depth).max().unwrap_or(1);
        let buffers = io_buffers(rings.len(), stride.saturating_mul(deepest))?;
        let setup: Vec<(Ring, AlignedBuf)> = rings.into_iter().zip(buffers).collect();
        let cursors = Cursors::new(w.jobs);
        verifying::checked(&self.target, w, control, || {
            drive(w, control, sink, setup, |id, (ring, buffers), stats| {
                let offsets = OffsetGen::new(w, id as u64, ring.job, &cursors);
                let pattern = PatternGen::new(w.pattern, w.refill, pool.clone(), w.seed, id as u64);
                let submitter =
                    Submitter::new(fd, w.bs as usize, ring, blocking, buffers, offsets, pattern)
                        .map(|s| s.trimming(Method::of(&self.target)));
                match submitter {
                    Ok(s) => s.verified(control.verify.clone()).run(stats),
                    Err(e) => ring_failure(stats, &e),
                }
            })
        })
    }
}

/// One ring of a run: the CPU its kernel workers run on, how many of the run's I/Os it keeps
/// in flight, and the job it submits for.
#[derive(Clone, Copy, Debug, PartialEq)]
struct Ring {
    cpu: Option<usize>,
    depth: usize,
    job: u32,
}

/// The rings of a run of `jobs` jobs at `qd` each: one ring per job when there are two or more
/// (fio's numjobs × iodepth), on a target that `blocks` each ring's workers kept on the next of
/// the CPUs in turn. One job: the rings of [`one_job_rings`].
fn rings_for(jobs: usize, qd: usize, blocks: bool) -> Vec<Ring> {
    if jobs < 2 {
        return one_job_rings(qd, blocks);
    }
    let cpus = if blocks { allowed_cpus() } else { Vec::new() };
    (0..jobs)
        .map(|job| Ring {
            cpu: (cpus.len() >= 2).then(|| cpus[job % cpus.len()]),
            depth: qd,
            job: job as u32,
        })
        .collect()
}

/// The rings of one job at `qd`. On a target that `blocks` (its I/O goes to the kernel's workers)
/// and with two or more CPUs and I/Os: one per CPU this process may run on (at most `qd`), the
/// queue depth split evenly between them, each ring's workers kept on its CPU, so that most
/// buffers are filled and read by the kernel's workers on one CPU: with one ring, each fill
/// waited for lines a worker had read on the other CPU (docs/performance-cpu.md, eighth,
/// thirteenth and fourteenth rounds). The submitting threads are not pinned: a pinned submitter
/// that shared its CPU with a busy worker stalled every other thread of the process on that CPU,
/// a fleet's sampler among them, for seconds. Elsewhere one ring with its workers free, as when
/// the CPUs cannot be known.
fn one_job_rings(qd: usize, blocks: bool) -> Vec<Ring> {
    let cpus = if blocks { allowed_cpus() } else { Vec::new() };
    if cpus.len().min(qd) < 2 {
        return vec![Ring {
            cpu: None,
            depth: qd,
            job: 0,
        }];
    }
    split_depth(qd, &cpus)
}

/// `qd` split over rings on `cpus` (at most one ring per I/O), the deeper rings first.
fn split_depth(qd: usize, cpus: &[usize]) -> Vec<Ring> {
    let n = cpus.len().min(qd).max(1);
    cpus.iter()
        .take(n)
        .enumerate()
        .map(|(i, &cpu)| Ring {
            cpu: Some(cpu),
            depth: qd / n + usize::from(i < qd % n),
            job: 0,
        })
        .collect()
}

/// The CPUs this process may run on (its affinity mask: `taskset`, a cgroup's cpuset), in order;
/// empty when the kernel does not say.
fn allowed_cpus() -> Vec<usize> {
    // SAFETY: a zeroed cpu_set_t is an empty set; sched_getaffinity writes at most its size.
    let mut set: libc::cpu_set_t = unsafe { std::mem::zeroed() };
    let rc =
        unsafe { libc::sched_getaffinity(0, std::mem::size_of::<libc::cpu_set_t>(), &mut set) };
    if rc != 0 {
        return Vec::new();
    }
    (0..libc::CPU_SETSIZE as usize)
        // SAFETY: cpu is below CPU_SETSIZE.
        .filter(|&cpu| unsafe { libc::CPU_ISSET(cpu, &set) })
        .collect()
}

/// A set of one CPU.
fn cpu_set(cpu: usize) -> libc::cpu_set_t {
    // SAFETY: a zeroed cpu_set_t is an empty set; cpu is below CPU_SETSIZE (it came from one).
    let mut set: libc::cpu_set_t = unsafe { std::mem::zeroed() };
    unsafe { libc::CPU_SET(cpu, &mut set) };
    set
}

/// Ends the worker when the ring itself fails (not one I/O).
fn ring_failure(mut stats: WorkerStats, e: &io::Error) {
    let event = ErrorEvent {
        t_s: stats.now_s(),
        op: OpKind::Write,
        offset: 0,
        errno: e.raw_os_error().unwrap_or(0),
        message: if e.kind() == io::ErrorKind::OutOfMemory {
            format!("{}: lower --qd or --bs", crate::error::io_words(e))
        } else {
            format!(
                "io_uring failed: {}; use --engine threads",
                crate::error::io_words(e)
            )
        },
    };
    stats.fatal(event);
    stats.finish();
}

/// True when `fd` refuses non-blocking I/O (the kernel answers a `RWF_NOWAIT` read with
/// EOPNOTSUPP), which is what makes io_uring hand each of its I/Os to a worker thread. The probe
/// reads `bs` bytes at offset 0 into `buf`; it never writes.
pub(super) fn cannot_avoid_blocking(fd: RawFd, buf: &mut AlignedBuf, bs: usize) -> bool {
    let iov = libc::iovec {
        iov_base: buf.as_mut_ptr().cast(),
        iov_len: bs,
    };
    // SAFETY: iov describes bs bytes of buf, which is at least that long.
    let rc = unsafe { libc::preadv2(fd, &iov, 1, 0, libc::RWF_NOWAIT) };
    rc < 0 && io::Error::last_os_error().raw_os_error() == Some(libc::EOPNOTSUPP)
}

/// One I/O slot: what it has in flight.
#[derive(Clone, Copy)]
struct Slot {
    op: OpKind,
    offset: u64,
    /// Bytes it moves (`bs`, or a size of the `--bssplit`).
    len: u32,
    submitted: Stamp,
    /// When the issue rate's schedule wanted it issued.
    due: Option<Instant>,
    /// The block's write generation under `--verify`.
    generation: u32,
}

/// What [`Submitter::refill`] leaves behind.
enum Refill {
    /// Every slot is in flight.
    Full,
    /// The next I/O is due at this time: come back then, or at a completion before it.
    At(Instant),
    /// The run issues no more I/O.
    Stop,
}

/// How the ring names the target.
#[derive(Clone, Copy)]
enum FileRef {
    Registered,
    Plain(RawFd),
}

/// The ring, its slots and the generators of one target's I/O.
struct Submitter {
    ring: IoUring,
    file: FileRef,
    fixed_buffers: bool,
    /// The target cannot take I/O without blocking (zram, for one): io_uring would try each
    /// I/O inline, fail and only then hand it to a kernel worker. Marking every I/O async sends
    /// it to the worker at once, which measured 2.3 times the IOPS at QD1 on zram and 1.4
    /// times at QD32.
    blocking_target: bool,
    buffers: AlignedBuf,
    stride: usize,
    slots: Vec<Slot>,
    free: Vec<u32>,
    /// Slots pushed since the last `io_uring_enter`: they get its time as submission time.
    queued: Vec<u32>,
    in_flight: usize,
    /// A scheduled I/O claimed (its bytes taken from the budget) but not yet due, and its
    /// length.
    pending: Option<(Instant, u64)>,
    offsets: OffsetGen,
    pattern: PatternGen,
    verify: Option<Arc<Verifier>>,
    /// How the target is trimmed.
    trim: Method,
    fd: RawFd,
    clock: IoClock,
}

impl Submitter {
    /// The same submitter, claiming and stamping every write for `verify`.
    fn verified(mut self, verify: Option<Arc<Verifier>>) -> Submitter {
        self.verify = verify;
        self
    }

    /// The same submitter, trimming with `method`.
    fn trimming(mut self, method: Method) -> Submitter {
        self.trim = method;
        self
    }

    fn new(
        fd: RawFd,
        bs: usize,
        at: Ring,
        blocking_target: bool,
        mut buffers: AlignedBuf,
        offsets: OffsetGen,
        pattern: PatternGen,
    ) -> io::Result<Self> {
        let qd = at.depth;
        let ring = build_ring((qd as u32).next_power_of_two())?;
        if let Some(cpu) = at.cpu {
            // The kernel's workers for this ring run where its buffers are filled. Kernels
            // before 5.14 cannot be asked; their workers then run anywhere.
            let _ = ring.submitter().register_iowq_aff(&cpu_set(cpu));
        }
        let stride = bs.next_multiple_of(4096);
        let count = qd;
        debug_assert!(buffers.as_slice().len() >= stride * count);
        let base = buffers.as_mut_ptr();
        let iovecs: Vec<libc::iovec> = (0..count)
            .map(|i| libc::iovec {
                // SAFETY: every buffer lies inside the allocation of stride * count bytes.
                iov_base: unsafe { base.add(i * stride) }.cast(),
                iov_len: bs,
            })
            .collect();
        // SAFETY: the buffers live in `self` as long as the ring, which is dropped first (field
        // order), and slots are only reused after their completion has been reaped.
        let fixed_buffers = unsafe { ring.submitter().register_buffers(&iovecs) }.is_ok();
        let file = match ring.submitter().register_files(&[fd]) {
            Ok(()) => FileRef::Registered,
            Err(_) => FileRef::Plain(fd),
        };
        Ok(Submitter {
            ring,
            file,
            fixed_buffers,
            blocking_target,
            buffers,
            stride,
            slots: vec![
                Slot {
                    op: OpKind::Write,
                    offset: 0,
                    len: 0,
                    submitted: Stamp::default(),
                    due: None,
                    generation: 0,
                };
                qd
            ],
            free: (0..qd as u32).rev().collect(),
            queued: Vec::with_capacity(qd),
            in_flight: 0,
            pending: None,
            offsets,
            pattern,
            verify: None,
            trim: Method::Discard,
            fd,
            clock: IoClock::new(),
        })
    }

    /// Issues I/O until the run stops, then waits for every I/O still in flight.
    fn run(mut self, mut stats: WorkerStats) {
        stats.begin();
        let mut stopping = false;
        loop {
            let mut wake = None;
            if !stopping {
                match self.refill(&mut stats) {
                    Ok(Refill::Full) => {}
                    Ok(Refill::At(due)) => wake = Some(due),
                    Ok(Refill::Stop) => stopping = true,
                    Err(e) => return self.fail(stats, &e),
                }
            }
            if self.in_flight == 0 {
                match wake {
                    Some(due) if pace::Wait::Sleep.until(due, || stats.should_stop()) => continue,
                    _ => break,
                }
            }
            if let Err(e) = self.enter_until(wake) {
                return self.fail(stats, &e);
            }
            // Every completion of the batch gets the time of the call that saw it: one clock
            // reading and one interval check per batch.
            let completed = self.clock.now();
            let mut cq = self.ring.completion();
            if !cq.is_empty() {
                stats.tick(completed);
            }
            for cqe in &mut cq {
                let slot = cqe.user_data() as u32;
                let Slot {
                    op,
                    offset,
                    len,
                    submitted,
                    due,
                    generation,
                } = self.slots[slot as usize];
                self.free.push(slot);
                self.in_flight -= 1;
                let rc = cqe.result();
                if let Some(v) = self.verify.as_deref().filter(|_| op == OpKind::Write) {
                    v.finish_write(v.block_of(offset), generation, rc == len as i32);
                }
                if rc == len as i32 {
                    let latency = stats.latency_ns(submitted, completed);
                    stats.record(op, u64::from(len), latency);
                    stats.paced(due, submitted);
                } else {
                    let (errno, message) = if rc < 0 {
                        (-rc, crate::error::errno_words(-rc))
                    } else {
                        (0, format!("short transfer of {rc} of {len} bytes"))
                    };
                    let event = ErrorEvent {
                        t_s: stats.since_start(submitted),
                        op,
                        offset,
                        errno,
                        message,
                    };
                    if stats.error(event) {
                        stopping = true;
                    }
                }
            }
        }
        // Release the target now: a ring's teardown runs later in the kernel, and a registered
        // file left to it would keep a block device claimed after ssdfade exits.
        let _ = self.ring.submitter().unregister_files();
        let _ = self.ring.submitter().unregister_buffers();
        stats.finish();
    }

    /// Ends the run when the ring itself fails. I/O may still be in flight into our buffers, so
    /// they are leaked rather than freed under the kernel's teardown.
    fn fail(self, stats: WorkerStats, e: &io::Error) {
        let Submitter { ring, buffers, .. } = self;
        drop(ring);
        std::mem::forget(buffers);
        ring_failure(stats, e);
    }

    /// Fills every free slot with a new I/O; returns true when the run has to stop issuing.
    ///
    /// Each I/O goes to the kernel as soon as its buffer is ready, as fio submits by default:
    /// handing the kernel a whole batch in one call makes it plug and dispatch the batch at once,
    /// and on a virtio disk that measured 25-30 % fewer IOPS at QD 32 (the host then sees
    /// bursts). The last one waits for the `io_uring_enter` that also waits for completions.
    /// A blocking target's I/Os all go to kernel workers one by one whatever the batch, so
    /// there they wait for that call together: one system call per refill instead of one per
    /// I/O.
    ///
    /// Under an issue rate an I/O waits for its due time with its slot free: the caller waits
    /// for a completion or that time, whichever comes first.
    fn refill(&mut self, stats: &mut WorkerStats) -> io::Result<Refill> {
        while let Some(slot) = self.free.pop() {
            let (due, len) = match self.pending.take() {
                Some((due, len)) => (Some(due), len),
                None => {
                    let len = self.offsets.next_len();
                    let next = if stats.should_stop() || !stats.claim(len) {
                        None
                    } else {
                        stats.next_due()
                    };
                    let Some(due) = next else {
                        self.free.push(slot);
                        return Ok(Refill::Stop);
                    };
                    (due, len)
                }
            };
            if let Some(due) = due.filter(|&due| due > self.clock.now().instant()) {
                self.free.push(slot);
                self.pending = Some((due, len));
                return Ok(Refill::At(due));
            }
            let (op, offset, generation) =
                verifying::next_op(&mut self.offsets, self.verify.as_deref(), len);
            if op == OpKind::Trim {
                self.free.push(slot);
                if self.trim_now(stats, offset, len as usize, due) {
                    return Ok(Refill::Stop);
                }
                continue;
            }
            // Each slot writes its own buffer, which no other I/O in flight holds.
            let at = slot as usize * self.stride;
            let buf = &mut self.buffers.as_mut_slice()[at..at + len as usize];
            if op == OpKind::Write {
                let content = self.pattern.next_content();
                self.pattern.render(&content, buf);
                if let Some(v) = &self.verify {
                    v.stamp(buf, offset, generation);
                }
            }
            let ptr = buf.as_mut_ptr();
            let entry = self.entry(op, ptr, slot, offset, len as u32);
            self.slots[slot as usize].op = op;
            self.slots[slot as usize].offset = offset;
            self.slots[slot as usize].len = len as u32;
            self.slots[slot as usize].due = due;
            self.slots[slot as usize].generation = generation;
            // SAFETY: the buffer stays valid and untouched until this slot's completion is reaped;
            // the submission queue has a place for every slot.
            unsafe { self.ring.submission().push(&entry) }.expect("a queue place per slot");
            self.queued.push(slot);
            self.in_flight += 1;
            if !self.free.is_empty() && !self.blocking_target {
                self.enter(false)?;
            }
        }
        Ok(Refill::Full)
    }

    /// Trims `len` bytes at `offset` now, outside the ring, and counts it; true when its
    /// failure stops the run.
    fn trim_now(
        &mut self,
        stats: &mut WorkerStats,
        offset: u64,
        len: usize,
        due: Option<Instant>,
    ) -> bool {
        let t0 = self.clock.now();
        let rc = trim::trim(self.trim, self.fd, offset, len);
        let t1 = self.clock.now();
        stats.tick(t1);
        if rc == len as isize {
            let latency = stats.latency_ns(t0, t1);
            stats.record(OpKind::Trim, len as u64, latency);
            stats.paced(due, t0);
            return false;
        }
        let errno = -rc as i32;
        stats.error(ErrorEvent {
            t_s: stats.since_start(t0),
            op: OpKind::Trim,
            offset,
            errno,
            message: crate::error::errno_words(errno),
        })
    }

    /// Submits what is queued and waits for a completion, or (with `wake`) at most until then.
    fn enter_until(&mut self, wake: Option<Instant>) -> io::Result<()> {
        let Some(wake) = wake else {
            return self.enter(true);
        };
        let now = self.clock.now();
        for &slot in &self.queued {
            self.slots[slot as usize].submitted = now;
        }
        self.queued.clear();
        let left = wake.saturating_duration_since(now.instant());
        let ts = types::Timespec::new()
            .sec(left.as_secs())
            .nsec(left.subsec_nanos());
        let args = types::SubmitArgs::new().timespec(&ts);
        match self.ring.submitter().submit_with_args(1, &args) {
            Ok(_) => Ok(()),
            Err(e)
                if matches!(
                    e.raw_os_error(),
                    Some(libc::ETIME | libc::EINTR | libc::EBUSY | libc::EAGAIN)
                ) =>
            {
                Ok(())
            }
            Err(e) => Err(e),
        }
    }

    /// Submits what is queued, stamping its submission time, and with `wait` also waits for at
    /// least one completion. A signal or a full completion queue is not an error: the caller
    /// reaps and comes back.
    fn enter(&mut self, wait: bool) -> io::Result<()> {
        let now = self.clock.now();
        for &slot in &self.queued {
            self.slots[slot as usize].submitted = now;
        }
        self.queued.clear();
        let result = if wait {
            self.ring.submit_and_wait(1)
        } else {
            self.ring.submit()
        };
        match result {
            Ok(_) => Ok(()),
            Err(e)
                if matches!(
                    e.raw_os_error(),
                    Some(libc::EINTR | libc::EBUSY | libc::EAGAIN)
                ) =>
            {
                Ok(())
            }
            Err(e) => Err(e),
        }
    }

    /// The submission entry of one read or write of `len` bytes (trims go outside the ring).
    fn entry(&self, op: OpKind, buf: *mut u8, slot: u32, offset: u64, len: u32) -> squeue::Entry {
        let entry = match (self.file, self.fixed_buffers, op == OpKind::Write) {
            (FileRef::Registered, true, true) => {
                opcode::WriteFixed::new(types::Fixed(0), buf, len, slot as u16)
                    .offset(offset)
                    .build()
            }
            (FileRef::Registered, true, false) => {
                opcode::ReadFixed::new(types::Fixed(0), buf, len, slot as u16)
                    .offset(offset)
                    .build()
            }
            (FileRef::Registered, false, true) => opcode::Write::new(types::Fixed(0), buf, len)
                .offset(offset)
                .build(),
            (FileRef::Registered, false, false) => opcode::Read::new(types::Fixed(0), buf, len)
                .offset(offset)
                .build(),
            (FileRef::Plain(fd), true, true) => {
                opcode::WriteFixed::new(types::Fd(fd), buf, len, slot as u16)
                    .offset(offset)
                    .build()
            }
            (FileRef::Plain(fd), true, false) => {
                opcode::ReadFixed::new(types::Fd(fd), buf, len, slot as u16)
                    .offset(offset)
                    .build()
            }
            (FileRef::Plain(fd), false, true) => opcode::Write::new(types::Fd(fd), buf, len)
                .offset(offset)
                .build(),
            (FileRef::Plain(fd), false, false) => opcode::Read::new(types::Fd(fd), buf, len)
                .offset(offset)
                .build(),
        };
        let entry = if self.blocking_target {
            entry.flags(squeue::Flags::ASYNC)
        } else {
            entry
        };
        entry.user_data(u64::from(slot))
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::device::OpenRequest;
    use crate::pattern::{Pattern, SECTOR};
    use crate::stats::IntervalStats;
    use std::collections::HashSet;
    use std::time::Duration;

    /// Keeps the total of every interval.
    #[derive(Default)]
    struct Total(IntervalStats);

    impl IntervalSink for Total {
        fn interval(&mut self, _: f64, _: f64, stats: &IntervalStats) -> anyhow::Result<()> {
            self.0.merge(stats);
            Ok(())
        }
    }

    /// Writes `span` bytes sequentially at `qd` through the uring engine and returns the file.
    fn write_sequentially(span: u64, qd: u32) -> (tempfile::TempDir, Vec<u8>, IntervalStats) {
        let dir = tempfile::tempdir_in("/var/tmp").unwrap();
        let path = dir.path().join("target.img");
        let target = Target::open(&OpenRequest {
            path: path.clone(),
            writes: true,
            destroy_data: Some(path.clone()),
            force: false,
            size: Some(span),
        })
        .unwrap();
        let workload = Workload {
            bs: 4096,
            align: 4096,
            read_pct: 0,
            random_pct: 0,
            qd,
            span,
            duration: None,
            bytes: Some(span),
            interval: Duration::from_secs(60),
            seed: 3,
            pattern: Pattern::Random,
            ..Default::default()
        };
        let mut total = Total::default();
        let end = UringEngine::new(Arc::new(target))
            .run(&workload, &Control::default(), &mut total)
            .unwrap();
        assert_eq!(end, RunEnd::Completed);
        let data = std::fs::read(&path).unwrap();
        (dir, data, total.0)
    }

    #[test]
    fn every_slot_lands_its_own_unique_data() {
        if !available() {
            crate::note!("skipping: this kernel does not allow io_uring");
            return;
        }
        // 4096 writes through 32 slots, a buffer each, over one ring per CPU: each buffer is reused
        // 128 times, so a buffer refilled before its write completed would leave repeated or
        // missing sectors, and two rings writing the same data would repeat sectors.
        let (_dir, data, total) = write_sequentially(16 << 20, 32);
        assert_eq!(total.write.ops, 4096);
        assert_eq!(total.errors, 0);
        let sectors: Vec<&[u8]> = data.chunks(SECTOR).collect();
        assert!(sectors.iter().all(|s| s.iter().any(|&b| b != 0)));
        let unique: HashSet<&[u8]> = sectors.iter().copied().collect();
        assert_eq!(unique.len(), sectors.len());
    }

    #[test]
    fn the_queue_depth_is_split_over_one_ring_per_cpu_and_adds_up() {
        let ring = |cpu, depth| Ring {
            cpu: Some(cpu),
            depth,
            job: 0,
        };
        assert_eq!(split_depth(32, &[0, 1]), vec![ring(0, 16), ring(1, 16)]);
        assert_eq!(split_depth(33, &[0, 1]), vec![ring(0, 17), ring(1, 16)]);
        // Never a ring without an I/O: QD 2 on 4 CPUs is two rings of one.
        assert_eq!(split_depth(2, &[3, 5, 6, 7]), vec![ring(3, 1), ring(5, 1)]);
        assert_eq!(split_depth(1, &[4]), vec![ring(4, 1)]);
        for qd in [1, 2, 3, 7, 32, 128, 1000] {
            let rings = rings_for(1, qd, true);
            assert_eq!(rings.iter().map(|r| r.depth).sum::<usize>(), qd, "QD {qd}");
            assert!(rings.iter().all(|r| r.depth >= 1));
            let spread = allowed_cpus().len().min(qd);
            assert_eq!(rings.len(), spread.max(1));
            // One ring (QD 1, one CPU) is left where the scheduler puts it.
            assert_eq!(rings.iter().all(|r| r.cpu.is_none()), spread < 2);
            // A target that takes I/O without blocking keeps one ring, wherever it runs.
            let one = Ring {
                cpu: None,
                depth: qd,
                job: 0,
            };
            assert_eq!(rings_for(1, qd, false), vec![one]);
        }
    }

    #[test]
    fn jobs_get_a_ring_each_of_the_whole_queue_depth() {
        let cpus = allowed_cpus();
        for (jobs, qd, blocks) in [(2, 1, true), (4, 16, true), (4, 16, false), (3, 7, true)] {
            let rings = rings_for(jobs, qd, blocks);
            assert_eq!(rings.len(), jobs);
            for (i, r) in rings.iter().enumerate() {
                assert_eq!((r.job as usize, r.depth), (i, qd));
                let pinned = blocks && cpus.len() >= 2;
                assert_eq!(r.cpu, pinned.then(|| cpus[i % cpus.len()]));
            }
        }
    }
}
