//! `--verify` on the real engines: workers claim the block of every write and stamp its header
//! ([`next_op`]); a checker thread reads samples back every `--verify-every` while they run, and
//! the full pass of `--verify-end` follows them ([`checked`]). [`FileReader`] reads blocks of a
//! file or block device back for the [`Verifier`].

use std::os::fd::AsRawFd;
use std::sync::mpsc::{channel, RecvTimeoutError};
use std::sync::Arc;

use rand_chacha::ChaCha8Rng;
use rand_core::{RngCore, SeedableRng};

use super::{AlignedBuf, Control, OffsetGen, RunEnd, Target};
use crate::stats::OpKind;
use crate::verify::{self, BlockReader, Seen, Verifier};
use crate::workload::Workload;

/// The next I/O of `len` bytes: its kind, offset and, for a write under `--verify`, the
/// generation of the block it claimed (0 otherwise). A block with a write or check in flight is skipped for the next
/// offset, so the last write acknowledged is the one the block holds.
#[inline]
pub fn next_op(offsets: &mut OffsetGen, verify: Option<&Verifier>, len: u64) -> (OpKind, u64, u32) {
    loop {
        let (op, offset) = offsets.next_op(len);
        let Some(v) = verify.filter(|_| op == OpKind::Write) else {
            return (op, offset, 0);
        };
        if let Some(generation) = v.claim_write(v.block_of(offset)) {
            return (op, offset, generation);
        }
    }
}

/// Runs `body` (the workers) with the run's checks around it: samples every `--verify-every`
/// from a thread of their own, and a full pass after a completed run under `--verify-end`.
pub fn checked(
    target: &Arc<Target>,
    w: &Workload,
    control: &Control,
    body: impl FnOnce() -> anyhow::Result<RunEnd>,
) -> anyhow::Result<RunEnd> {
    let (Some(v), Some(options)) = (control.verify.clone(), w.verify) else {
        return body();
    };
    let (stop, stopped) = channel::<()>();
    // The sampler's buffer, like the workers', is had before anything starts.
    let sampler = match options.every {
        Some(every) => Some((every, FileReader::new(target.clone(), v.bs_bytes())?)),
        None => None,
    };
    let sampler = sampler.map(|(every, mut reader)| {
        let (v, seed) = (v.clone(), w.seed);
        std::thread::spawn(move || {
            let mut rng = ChaCha8Rng::seed_from_u64(seed ^ 0x5a3b);
            while let Err(RecvTimeoutError::Timeout) = stopped.recv_timeout(every) {
                verify::sample(&v, &mut reader, &mut || rng.next_u64());
            }
        })
    });
    let end = body();
    drop(stop);
    if let Some(sampler) = sampler {
        sampler
            .join()
            .map_err(|_| anyhow::anyhow!("the verification thread panicked"))?;
    }
    let end = end?;
    if options.end && end == RunEnd::Completed {
        let mut reader = FileReader::new(target.clone(), v.bs_bytes())?;
        let interrupted = &control.interrupted;
        let whole = verify::full_pass(&v, &mut reader, &|| {
            interrupted.load(std::sync::atomic::Ordering::Relaxed)
        });
        if !whole {
            // A check cut short is no clean pass: the run ends interrupted, to be checked again.
            return Ok(RunEnd::Interrupted);
        }
    }
    Ok(end)
}

/// Reads blocks of a file or block device back with O_DIRECT.
pub struct FileReader {
    target: Arc<Target>,
    buf: AlignedBuf,
    bs: usize,
}

impl FileReader {
    /// A reader of `bs`-byte blocks of `target`.
    pub fn new(target: Arc<Target>, bs: u64) -> anyhow::Result<FileReader> {
        Ok(FileReader {
            target,
            buf: AlignedBuf::new(bs as usize)?,
            bs: bs as usize,
        })
    }
}

impl BlockReader for FileReader {
    fn read(&mut self, v: &Verifier, block: u64, _expected: u32) -> Seen {
        let offset = v.offset_of(block);
        // SAFETY: the buffer holds at least bs bytes and outlives the call.
        let rc = unsafe {
            libc::pread(
                self.target.file.as_raw_fd(),
                self.buf.as_mut_ptr().cast(),
                self.bs,
                offset as libc::off_t,
            )
        };
        if rc != self.bs as isize {
            let why = if rc < 0 {
                crate::error::io_words(&std::io::Error::last_os_error())
            } else {
                format!("short read of {rc} of {} bytes", self.bs)
            };
            return Seen::Unreadable(why);
        }
        let block = &self.buf.as_slice()[..self.bs];
        match verify::header::read(block) {
            Some(h) => Seen::Header(h),
            None if block.iter().all(|&b| b == 0) => Seen::Blank,
            None => Seen::BadChecksum,
        }
    }
}
