//! Trims (discards) on a real target, fio's trim direction as its Linux `os_trim` issues it:
//! `BLKDISCARD` on a block device, a punched hole (`FALLOC_FL_PUNCH_HOLE |
//! FALLOC_FL_KEEP_SIZE`) in a regular file. Both engines issue them synchronously, as fio's
//! io_uring engine does too. [`unsupported`] asks the target, writing nothing, before a run
//! that trims is let through.

use std::os::fd::{AsRawFd, RawFd};
use std::os::unix::fs::FileTypeExt;

use super::Target;

/// `BLKDISCARD`: `_IO(0x12, 119)`, a range of `[start, length]` in bytes.
const BLKDISCARD: libc::c_ulong = 0x1277;

/// How a target is trimmed.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Method {
    /// `BLKDISCARD` on a block device.
    Discard,
    /// A hole punched in a regular file, its size kept.
    PunchHole,
}

impl Method {
    /// The method for `target`: a discard for a block device, a punched hole for a file.
    pub fn of(target: &Target) -> Method {
        let block = target
            .file
            .metadata()
            .is_ok_and(|m| m.file_type().is_block_device());
        if block {
            Method::Discard
        } else {
            Method::PunchHole
        }
    }
}

/// Trims `len` bytes at `offset` of `fd`: `len` when done, else minus the errno (the return
/// convention of the engines' reads and writes).
#[inline]
pub fn trim(method: Method, fd: RawFd, offset: u64, len: usize) -> isize {
    let rc = match method {
        Method::Discard => {
            let range: [u64; 2] = [offset, len as u64];
            // SAFETY: BLKDISCARD reads two u64 from the pointer, which outlives the call.
            unsafe { libc::ioctl(fd, BLKDISCARD as _, range.as_ptr()) }
        }
        // SAFETY: a plain system call on a descriptor we hold.
        Method::PunchHole => unsafe {
            libc::fallocate(
                fd,
                libc::FALLOC_FL_PUNCH_HOLE | libc::FALLOC_FL_KEEP_SIZE,
                offset as libc::off_t,
                len as libc::off_t,
            )
        },
    };
    if rc == 0 {
        len as isize
    } else {
        -(std::io::Error::last_os_error()
            .raw_os_error()
            .unwrap_or(libc::EIO) as isize)
    }
}

/// Why `target` cannot take trims (one line for the user), or `None` when it can. Nothing is
/// trimmed: a block device is asked for an empty discard, which the kernel refuses with
/// EOPNOTSUPP before anything else when the device has no discard; a file gets a hole punched
/// past its end, where it holds no data.
pub fn unsupported(target: &Target) -> Option<String> {
    let fd = target.file.as_raw_fd();
    let method = Method::of(target);
    let rc = match method {
        Method::Discard => trim(method, fd, 0, 0),
        Method::PunchHole => trim(method, fd, target.size.next_multiple_of(4096), 4096),
    };
    let errno = (rc < 0).then(|| -rc as i32)?;
    let refused = [libc::EOPNOTSUPP, libc::ENOTTY, libc::ENOSYS].contains(&errno);
    if !refused {
        // EINVAL for the empty range: the device takes discards.
        return None;
    }
    let what = match method {
        Method::Discard => {
            "this device does not take discards (its queue's discard_max_bytes is 0)"
        }
        Method::PunchHole => "this file's filesystem cannot punch holes",
    };
    Some(format!(
        "--trim-pct: {}: {what}; drop --trim-pct or use a target that supports TRIM",
        target.path.display()
    ))
}
