//! Range erases through the block layer: BLKDISCARD (TRIM / deallocate), BLKSECDISCARD and
//! BLKZEROOUT, sent in chunks so progress can be shown and an interrupt lands between chunks.

use std::os::fd::AsRawFd;
use std::sync::atomic::{AtomicBool, Ordering};

nix::ioctl_write_ptr_bad!(blkdiscard, nix::request_code_none!(0x12, 119), [u64; 2]);
nix::ioctl_write_ptr_bad!(blksecdiscard, nix::request_code_none!(0x12, 125), [u64; 2]);
nix::ioctl_write_ptr_bad!(blkzeroout, nix::request_code_none!(0x12, 127), [u64; 2]);
nix::ioctl_none_bad!(blkflsbuf, nix::request_code_none!(0x12, 97));

/// Which range ioctl to send.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum RangeOp {
    Discard,
    SecureDiscard,
    ZeroOut,
}

impl RangeOp {
    pub fn ioctl_name(self) -> &'static str {
        match self {
            RangeOp::Discard => "BLKDISCARD",
            RangeOp::SecureDiscard => "BLKSECDISCARD",
            RangeOp::ZeroOut => "BLKZEROOUT",
        }
    }

    /// The request number, of the C library's type (`c_ulong` with glibc, `c_int` with musl).
    pub fn ioctl_code(self) -> nix::sys::ioctl::ioctl_num_type {
        match self {
            RangeOp::Discard => nix::request_code_none!(0x12, 119),
            RangeOp::SecureDiscard => nix::request_code_none!(0x12, 125),
            RangeOp::ZeroOut => nix::request_code_none!(0x12, 127),
        }
    }
}

/// Default chunk: large enough to be quick, small enough for a moving progress bar.
pub const DEFAULT_CHUNK: u64 = 1 << 30;

/// The `{start, len}` ranges covering `[offset, offset + len)` in chunks of at most `chunk`.
pub fn chunks(offset: u64, len: u64, chunk: u64) -> Vec<[u64; 2]> {
    let mut out = Vec::new();
    let mut at = offset;
    let end = offset + len;
    while at < end {
        let n = chunk.min(end - at);
        out.push([at, n]);
        at += n;
    }
    out
}

/// The argument bytes of one ioctl: two little-endian u64, start and length.
pub fn range_bytes(range: [u64; 2]) -> [u8; 16] {
    let mut b = [0u8; 16];
    b[..8].copy_from_slice(&range[0].to_le_bytes());
    b[8..].copy_from_slice(&range[1].to_le_bytes());
    b
}

/// Sends `op` over every range, calling `progress` with the bytes done so far; stops early
/// (returning the bytes done) when `stop` is set.
pub fn run(
    fd: &impl AsRawFd,
    op: RangeOp,
    ranges: &[[u64; 2]],
    stop: &AtomicBool,
    progress: &mut dyn FnMut(u64),
) -> anyhow::Result<u64> {
    let mut done = 0;
    for range in ranges {
        if stop.load(Ordering::Relaxed) {
            break;
        }
        // SAFETY: each ioctl reads the two u64 of `range`.
        let r = unsafe {
            match op {
                RangeOp::Discard => blkdiscard(fd.as_raw_fd(), range),
                RangeOp::SecureDiscard => blksecdiscard(fd.as_raw_fd(), range),
                RangeOp::ZeroOut => blkzeroout(fd.as_raw_fd(), range),
            }
        };
        if let Err(e) = r {
            let hint = match e {
                nix::errno::Errno::EOPNOTSUPP => match op {
                    RangeOp::Discard => ": the device does not support discard (try --method zeroout)",
                    RangeOp::SecureDiscard => ": the device does not support secure discard (mostly eMMC does; try --method auto)",
                    RangeOp::ZeroOut => ": the device does not support write-zeroes",
                },
                _ => "",
            };
            anyhow::bail!(
                "{} at offset {} length {} failed after {done} bytes: {e}{hint}",
                op.ioctl_name(),
                range[0],
                range[1]
            );
        }
        done += range[1];
        progress(done);
    }
    Ok(done)
}

/// Whether the device accepts BLKSECDISCARD, asked with a request that does nothing: start 1 is
/// not sector-aligned, so a kernel that supports it answers EINVAL, one that does not EOPNOTSUPP
/// (checked first since Linux 5.19). `fd` must be open for writing. True when the device
/// rejects it; an older kernel that checks alignment first finds out only when erasing.
pub fn secure_discard_rejected(fd: &impl AsRawFd) -> bool {
    // SAFETY: the ioctl reads the two u64 of the array.
    let r = unsafe { blksecdiscard(fd.as_raw_fd(), &[1, 0]) };
    r == Err(nix::errno::Errno::EOPNOTSUPP)
}

/// Drops the kernel's cached pages of the device, so later reads see what the drive holds.
pub fn flush_buffers(fd: &impl AsRawFd) {
    // SAFETY: BLKFLSBUF takes no argument. Failure only leaves stale cache; ignore it.
    let _ = unsafe { blkflsbuf(fd.as_raw_fd()) };
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn ioctl_codes_match_the_uapi_header() {
        assert_eq!(RangeOp::Discard.ioctl_code(), 0x1277);
        assert_eq!(RangeOp::SecureDiscard.ioctl_code(), 0x127D);
        assert_eq!(RangeOp::ZeroOut.ioctl_code(), 0x127F);
    }

    #[test]
    fn chunks_cover_the_range_exactly() {
        assert_eq!(
            chunks(4096, 10 << 20, 4 << 20),
            vec![
                [4096, 4 << 20],
                [4096 + (4 << 20), 4 << 20],
                [4096 + (8 << 20), 2 << 20]
            ]
        );
        assert!(chunks(0, 0, 1 << 20).is_empty());
    }

    #[test]
    fn range_argument_is_two_little_endian_u64() {
        let b = range_bytes([0x1000, 0x20_0000]);
        assert_eq!(&b[..8], &[0, 0x10, 0, 0, 0, 0, 0, 0]);
        assert_eq!(&b[8..], &[0, 0, 0x20, 0, 0, 0, 0, 0]);
    }
}
