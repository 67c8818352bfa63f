//! The `uring` engine: one submitting thread keeps `--qd` I/Os in flight through io_uring (fio's
//! `io_uring` with iodepth = QD).
//!
//! Buffers and the target's descriptor are registered with the ring when the kernel allows it
//! (fixed buffers spare the kernel a page pin per I/O, a fixed file spares it a descriptor
//! look-up). Every freed slot is refilled at once and each new I/O is submitted as soon as its
//! buffer is ready (see [`Submitter::refill`] for why not in one batch), the last one together
//! with the wait for the next completion; completions are read from the shared ring without a
//! system call, however many arrive together. Latency runs from the system call that submitted
//! an I/O to the return of the one that saw it complete.

use std::io;
use std::os::fd::{AsRawFd, RawFd};
use std::sync::atomic::AtomicU64;
use std::sync::Arc;
use std::time::Instant;

use io_uring::{opcode, squeue, types, IoUring};

use super::clock::{IoClock, Stamp};
use super::realtime::{drive, WorkerStats};
use super::verifying;
use super::{io_buffers, AlignedBuf, Control, Engine, IntervalSink, OffsetGen, RunEnd};
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
        // One allocation holds the ring of buffers the slots take in turn.
        let stride = (w.bs as usize).next_multiple_of(4096);
        let count = buffer_count(w.qd as usize, stride);
        let buffers = io_buffers(1, stride.saturating_mul(count))?;
        let cursor = Arc::new(AtomicU64::new(0));
        let fd = self.target.file.as_raw_fd();
        verifying::checked(&self.target, w, control, || {
            drive(w, control, sink, buffers, |id, buffers, stats| {
                let offsets = OffsetGen::new(w, id as u64, cursor.clone());
                let pattern = PatternGen::new(w.pattern, w.refill, pool.clone(), w.seed, id as u64);
                let submitter =
                    Submitter::new(fd, w.bs as usize, w.qd as usize, buffers, offsets, pattern);
                match submitter {
                    Ok(s) => s.verified(control.verify.clone()).run(stats),
                    Err(e) => ring_failure(stats, &e),
                }
            })
        })
    }
}

/// Ends the worker when the ring itself fails (not one I/O).
fn ring_failure(mut stats: WorkerStats, e: &io::Error) {
    let event = ErrorEvent {
        t_s: stats.now_s(),
        op: OpKind::Write,
        offset: 0,
        errno: e.raw_os_error().unwrap_or(0),
        message: if e.kind() == io::ErrorKind::OutOfMemory {
            format!("{e}: lower --qd or --bs")
        } else {
            format!("io_uring failed: {e}; use --engine threads")
        },
    };
    stats.fatal(event);
    stats.finish();
}

/// Bytes of buffers an I/O's data rotates through: four times the other CPU's 1 MiB L2 cache
/// here. A kernel worker (zram's, for one) reads each buffer on whichever CPU it runs, so a
/// buffer rewritten soon after its completion has to take every line back from that CPU's cache
/// first; `scripts/store-after-remote-read.c` measured a 4 KiB fill 3-5 times slower that way
/// with 32 buffers than with 1024. A buffer left this long has been evicted there.
const BUFFER_RING_BYTES: usize = 4 << 20;

/// How many buffers of `stride` bytes the slots of a `qd`-deep ring take in turn: one per slot
/// at least, more up to [`BUFFER_RING_BYTES`].
fn buffer_count(qd: usize, stride: usize) -> usize {
    qd.max(BUFFER_RING_BYTES / stride)
}

/// Which buffers of the ring an I/O in flight holds, and which one the next I/O takes: the
/// buffers are taken in turn, skipping any still held, so a buffer waits as long as it can
/// before it is written again.
struct BufferRing {
    busy: Vec<bool>,
    next: usize,
}

impl BufferRing {
    fn new(count: usize) -> BufferRing {
        BufferRing {
            busy: vec![false; count],
            next: 0,
        }
    }

    /// The next buffer no I/O holds, now held. There is one while the ring has more buffers
    /// than I/Os in flight, which a buffer per slot guarantees.
    fn take(&mut self) -> u32 {
        while self.busy[self.next] {
            self.next = (self.next + 1) % self.busy.len();
        }
        let buffer = self.next;
        self.busy[buffer] = true;
        self.next = (buffer + 1) % self.busy.len();
        buffer as u32
    }

    /// Frees a buffer whose I/O completed.
    fn release(&mut self, buffer: u32) {
        self.busy[buffer as usize] = false;
    }
}

/// True when `fd` refuses non-blocking I/O (the kernel answers a `RWF_NOWAIT` read with
/// EOPNOTSUPP), which is what makes io_uring hand each of its I/Os to a worker thread. The probe
/// reads `bs` bytes at offset 0 into `buf`; it never writes.
fn cannot_avoid_blocking(fd: RawFd, buf: &mut AlignedBuf, bs: usize) -> bool {
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
    /// Its buffer's index in the ring: `bs` bytes at `index * stride` in the shared buffer.
    buffer: u32,
    op: OpKind,
    offset: u64,
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
    ring_of_buffers: BufferRing,
    bs: usize,
    slots: Vec<Slot>,
    free: Vec<u32>,
    /// Slots pushed since the last `io_uring_enter`: they get its time as submission time.
    queued: Vec<u32>,
    in_flight: usize,
    /// A scheduled I/O claimed (its bytes taken from the budget) but not yet due.
    pending: Option<Instant>,
    offsets: OffsetGen,
    pattern: PatternGen,
    verify: Option<Arc<Verifier>>,
    clock: IoClock,
}

impl Submitter {
    /// The same submitter, claiming and stamping every write for `verify`.
    fn verified(mut self, verify: Option<Arc<Verifier>>) -> Submitter {
        self.verify = verify;
        self
    }

    fn new(
        fd: RawFd,
        bs: usize,
        qd: usize,
        mut buffers: AlignedBuf,
        offsets: OffsetGen,
        pattern: PatternGen,
    ) -> io::Result<Self> {
        let ring = build_ring((qd as u32).next_power_of_two())?;
        let stride = bs.next_multiple_of(4096);
        let count = buffer_count(qd, stride);
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
        let blocking_target = cannot_avoid_blocking(fd, &mut buffers, bs);
        Ok(Submitter {
            ring,
            file,
            fixed_buffers,
            blocking_target,
            buffers,
            stride,
            ring_of_buffers: BufferRing::new(count),
            bs,
            slots: vec![
                Slot {
                    buffer: 0,
                    op: OpKind::Write,
                    offset: 0,
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
                match self.refill(&stats) {
                    Ok(Refill::Full) => {}
                    Ok(Refill::At(due)) => wake = Some(due),
                    Ok(Refill::Stop) => stopping = true,
                    Err(e) => return self.fail(stats, &e),
                }
            }
            if self.in_flight == 0 {
                match wake {
                    Some(due) if stats.wait_until(due) => continue,
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
                    buffer,
                    op,
                    offset,
                    submitted,
                    due,
                    generation,
                } = self.slots[slot as usize];
                self.ring_of_buffers.release(buffer);
                self.free.push(slot);
                self.in_flight -= 1;
                let rc = cqe.result();
                if let Some(v) = self.verify.as_deref().filter(|_| op == OpKind::Write) {
                    v.finish_write(v.block_of(offset), generation, rc == self.bs as i32);
                }
                if rc == self.bs as i32 {
                    let latency = stats.latency_ns(submitted, completed);
                    stats.record(op, self.bs as u64, latency);
                    stats.paced(due, submitted);
                } else {
                    let (errno, message) = if rc < 0 {
                        (-rc, io::Error::from_raw_os_error(-rc).to_string())
                    } else {
                        (0, format!("short transfer of {rc} of {} bytes", self.bs))
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
    fn refill(&mut self, stats: &WorkerStats) -> io::Result<Refill> {
        while let Some(slot) = self.free.pop() {
            let due = match self.pending.take() {
                Some(due) => Some(due),
                None => {
                    let next = if stats.should_stop() || !stats.claim(self.bs as u64) {
                        None
                    } else {
                        stats.next_due()
                    };
                    let Some(due) = next else {
                        self.free.push(slot);
                        return Ok(Refill::Stop);
                    };
                    due
                }
            };
            if let Some(due) = due.filter(|&due| due > self.clock.now().instant()) {
                self.free.push(slot);
                self.pending = Some(due);
                return Ok(Refill::At(due));
            }
            let (op, offset, generation) =
                verifying::next_op(&mut self.offsets, self.verify.as_deref());
            let buffer = self.ring_of_buffers.take();
            let at = buffer as usize * self.stride;
            let buf = &mut self.buffers.as_mut_slice()[at..at + self.bs];
            if op == OpKind::Write {
                let content = self.pattern.next_content();
                self.pattern.render(&content, buf);
                if let Some(v) = &self.verify {
                    v.stamp(buf, offset, generation);
                }
            }
            let ptr = buf.as_mut_ptr();
            let entry = self.entry(op, ptr, slot, buffer, offset);
            self.slots[slot as usize].buffer = buffer;
            self.slots[slot as usize].op = op;
            self.slots[slot as usize].offset = offset;
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

    /// The submission entry of one read or write.
    fn entry(
        &self,
        op: OpKind,
        buf: *mut u8,
        slot: u32,
        buffer: u32,
        offset: u64,
    ) -> squeue::Entry {
        let len = self.bs as u32;
        let entry = match (self.file, self.fixed_buffers, op) {
            (FileRef::Registered, true, OpKind::Write) => {
                opcode::WriteFixed::new(types::Fixed(0), buf, len, buffer as u16)
                    .offset(offset)
                    .build()
            }
            (FileRef::Registered, true, OpKind::Read) => {
                opcode::ReadFixed::new(types::Fixed(0), buf, len, buffer as u16)
                    .offset(offset)
                    .build()
            }
            (FileRef::Registered, false, OpKind::Write) => {
                opcode::Write::new(types::Fixed(0), buf, len)
                    .offset(offset)
                    .build()
            }
            (FileRef::Registered, false, OpKind::Read) => {
                opcode::Read::new(types::Fixed(0), buf, len)
                    .offset(offset)
                    .build()
            }
            (FileRef::Plain(fd), true, OpKind::Write) => {
                opcode::WriteFixed::new(types::Fd(fd), buf, len, buffer as u16)
                    .offset(offset)
                    .build()
            }
            (FileRef::Plain(fd), true, OpKind::Read) => {
                opcode::ReadFixed::new(types::Fd(fd), buf, len, buffer as u16)
                    .offset(offset)
                    .build()
            }
            (FileRef::Plain(fd), false, OpKind::Write) => {
                opcode::Write::new(types::Fd(fd), buf, len)
                    .offset(offset)
                    .build()
            }
            (FileRef::Plain(fd), false, OpKind::Read) => opcode::Read::new(types::Fd(fd), buf, len)
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
        // 4096 writes through 32 slots and a ring of 1024 buffers: each buffer is reused 4 times,
        // so a buffer refilled before its write completed would leave repeated or missing sectors.
        let (_dir, data, total) = write_sequentially(16 << 20, 32);
        assert_eq!(total.write.ops, 4096);
        assert_eq!(total.errors, 0);
        let sectors: Vec<&[u8]> = data.chunks(SECTOR).collect();
        assert!(sectors.iter().all(|s| s.iter().any(|&b| b != 0)));
        let unique: HashSet<&[u8]> = sectors.iter().copied().collect();
        assert_eq!(unique.len(), sectors.len());
    }

    #[test]
    fn the_ring_takes_buffers_in_turn_and_skips_one_still_held() {
        let mut ring = BufferRing::new(4);
        assert_eq!((ring.take(), ring.take(), ring.take()), (0, 1, 2));
        ring.release(0);
        ring.release(2);
        // Buffer 1's I/O is still in flight when the turn comes back to it.
        assert_eq!((ring.take(), ring.take(), ring.take()), (3, 0, 2));
        ring.release(3);
        assert_eq!(ring.take(), 3);
    }
}
