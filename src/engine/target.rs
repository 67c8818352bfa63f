//! What an engine issues I/O to: a file or block device that [`crate::device`] opened for
//! O_DIRECT and checked for safety. The engine trusts it; opening it is the device's job.

use std::fs::File;
use std::path::PathBuf;

use crate::drive::Identity;

/// A file or device ready for O_DIRECT I/O (made by `Target::open` in [`crate::device`]).
#[derive(Debug)]
pub struct Target {
    pub path: PathBuf,
    pub file: File,
    pub size: u64,
    /// Smallest offset and length granularity O_DIRECT accepts.
    pub logical_block: u32,
    pub physical_block: u32,
    pub identity: Identity,
    /// This open created the file (so a run refused afterwards should remove it again).
    pub created: bool,
}
