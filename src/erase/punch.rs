//! Erasing a regular file's data: `fallocate(PUNCH_HOLE | KEEP_SIZE)` frees the blocks (the
//! filesystem passes them down as discards when mounted with `discard`) and reads return zeros.

use std::os::fd::AsRawFd;

use nix::fcntl::{fallocate, FallocateFlags};

/// Punches `[offset, offset + len)` out of the file; the file keeps its size.
pub fn punch(fd: &impl AsRawFd, offset: u64, len: u64) -> anyhow::Result<()> {
    fallocate(
        fd.as_raw_fd(),
        FallocateFlags::FALLOC_FL_PUNCH_HOLE | FallocateFlags::FALLOC_FL_KEEP_SIZE,
        offset as i64,
        len as i64,
    )
    .map_err(|e| {
        let hint = if e == nix::errno::Errno::EOPNOTSUPP {
            ": this filesystem cannot punch holes"
        } else {
            ""
        };
        anyhow::anyhow!("fallocate(PUNCH_HOLE) at {offset} length {len} failed: {e}{hint}")
    })
}
