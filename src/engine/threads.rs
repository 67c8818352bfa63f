//! The `threads` engine: `--qd` worker threads per job (`--jobs` × `--qd` in all), each with one
//! synchronous O_DIRECT pread, pwrite or trim in flight (fio's `psync` with numjobs = jobs × QD);
//! a job's threads share its sequential cursor. Under a rate, a worker spins the last
//! stretch before its I/O's time when every worker can have a CPU (`pace`).

use super::clock::IoClock;
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
use std::os::fd::{AsRawFd, RawFd};
use std::sync::Arc;

/// Synchronous I/O from one thread per outstanding I/O.
pub struct ThreadsEngine {
    target: Arc<Target>,
}

impl ThreadsEngine {
    pub fn new(target: Arc<Target>) -> Self {
        ThreadsEngine { target }
    }
}

impl Engine for ThreadsEngine {
    fn name(&self) -> &'static str {
        "threads"
    }

    fn run(
        &mut self,
        w: &Workload,
        control: &Control,
        sink: &mut dyn IntervalSink,
    ) -> anyhow::Result<RunEnd> {
        let pool = pool_for(w.pattern, w.seed, w.bs as usize)?;
        let buffers = io_buffers(w.outstanding() as usize, w.bs as usize)?;
        let cursors = Cursors::new(w.jobs);
        let fd = self.target.file.as_raw_fd();
        let method = Method::of(&self.target);
        let verify = control.verify.as_deref();
        verifying::checked(&self.target, w, control, || {
            drive(w, control, sink, buffers, |id, buf, stats| {
                let job = id as u32 / w.qd.max(1);
                let offsets = OffsetGen::new(w, id as u64, job, &cursors);
                let pattern = PatternGen::new(w.pattern, w.refill, pool.clone(), w.seed, id as u64);
                worker((fd, method), w, buf, offsets, pattern, verify, stats);
            })
        })
    }
}

/// One worker: I/O of the workload `w` on `fd` until the run stops.
fn worker(
    (fd, method): (RawFd, Method),
    w: &Workload,
    mut buf: AlignedBuf,
    mut offsets: OffsetGen,
    mut pattern: PatternGen,
    verify: Option<&Verifier>,
    mut stats: WorkerStats,
) {
    let wait = pace::Wait::for_threads(w.outstanding() as usize);
    let mut clock = IoClock::new();
    stats.begin();
    while !stats.should_stop() {
        let bs = offsets.next_len() as usize;
        if !stats.claim(bs as u64) {
            break;
        }
        let Some(due) = stats.next_due() else { break };
        let (op, offset, generation) = verifying::next_op(&mut offsets, verify, bs as u64);
        if op == OpKind::Write {
            let content = pattern.next_content();
            pattern.render(&content, &mut buf.as_mut_slice()[..bs]);
            if let Some(v) = verify {
                v.stamp(&mut buf.as_mut_slice()[..bs], offset, generation);
            }
        }
        if due.is_some_and(|due| !wait.until(due, || stats.should_stop())) {
            if let Some(v) = verify.filter(|_| op == OpKind::Write) {
                v.cancel_write(v.block_of(offset), generation);
            }
            break;
        }
        let t0 = clock.now();
        // SAFETY: buf is valid for bs bytes and outlives the call.
        let rc = match op {
            OpKind::Trim => trim::trim(method, fd, offset, bs),
            _ => unsafe { transfer(op == OpKind::Write, fd, buf.as_mut_ptr(), bs, offset) },
        };
        let t1 = clock.now();
        if let Some(v) = verify.filter(|_| op == OpKind::Write) {
            v.finish_write(v.block_of(offset), generation, rc == bs as isize);
        }
        stats.tick(t1);
        if rc == bs as isize {
            let latency = stats.latency_ns(t0, t1);
            stats.record(op, bs as u64, latency);
            stats.paced(due, t0);
        } else {
            let (errno, message) = if rc < 0 {
                let errno = -rc as i32;
                (errno, crate::error::errno_words(errno))
            } else {
                (0, format!("short transfer of {rc} of {bs} bytes"))
            };
            let event = ErrorEvent {
                t_s: stats.since_start(t0),
                op,
                offset,
                errno,
                message,
            };
            if stats.error(event) {
                break;
            }
        }
    }
    stats.finish();
}

/// One pread (or with `write` a pwrite) of `len` bytes at `offset`: the bytes moved, or minus
/// the errno.
///
/// On x86_64 this is the system call itself: libc's wrapper is a thread-cancellation point
/// and switches asynchronous cancellation on and off around every call, which ssdfade never
/// uses and which measured 2 % of the engine's user CPU (docs/performance-cpu.md).
///
/// Safety: `buf` must be valid for `len` bytes for the whole call.
#[inline(always)]
unsafe fn transfer(write: bool, fd: RawFd, buf: *mut u8, len: usize, offset: u64) -> isize {
    #[cfg(target_arch = "x86_64")]
    {
        let nr = if write {
            libc::SYS_pwrite64
        } else {
            libc::SYS_pread64
        };
        let rc: isize;
        // SAFETY: the Linux x86_64 system call convention; the kernel clobbers rcx and r11.
        std::arch::asm!(
            "syscall",
            inlateout("rax") nr as isize => rc,
            in("rdi") fd as isize,
            in("rsi") buf,
            in("rdx") len,
            in("r10") offset,
            lateout("rcx") _,
            lateout("r11") _,
            options(nostack),
        );
        rc
    }
    #[cfg(not(target_arch = "x86_64"))]
    {
        let rc = if write {
            libc::pwrite(fd, buf.cast(), len, offset as libc::off_t)
        } else {
            libc::pread(fd, buf.cast(), len, offset as libc::off_t)
        };
        if rc < 0 {
            -(std::io::Error::last_os_error()
                .raw_os_error()
                .unwrap_or(libc::EIO) as isize)
        } else {
            rc
        }
    }
}
