//! Where I/O lands: a regular file or a whole block device, opened with O_DIRECT and checked
//! for safety before anything is written.
//!
//! Opening is the one place that decides whether writing is allowed; everything after it trusts
//! the [`Target`] it was given. A target string is parsed once into a [`Spec`]; its [`Device`]
//! is the one interface the rest of the tool uses, a path or a simulated drive behind it.

pub mod ata;
pub mod ata_smart;
pub mod block;
pub mod busy;
mod file;
pub mod inspect;
pub mod lock;
pub mod loopback;
pub mod nvme;
pub mod ocp_log;
mod path;
pub mod power;
pub mod record;
pub mod safety;
mod scsi_log;
mod sim;
pub mod smart;
mod spec;
pub mod telemetry;
mod vendor_wear;
pub mod volatile;

use std::path::{Path, PathBuf};

pub use crate::drive::Identity;
pub use crate::engine::Target;
pub use spec::{
    is_absent_path, open, short_name, Checked, Device, Gates, Opened, Spec, SyncOpened,
};

/// What the user asked to write to, and how far they confirmed it.
#[derive(Clone, Debug, Default)]
pub struct OpenRequest {
    pub path: PathBuf,
    /// The workload writes (false for a pure read test).
    pub writes: bool,
    /// `--destroy-data PATH`: must name the same device or file.
    pub destroy_data: Option<PathBuf>,
    /// `--force`: write even over a filesystem or partition-table signature.
    pub force: bool,
    /// `--size`: size of a file to create (or grow to).
    pub size: Option<u64>,
}

impl Target {
    /// Opens `req.path` for the workload, refusing (with [`crate::error::BadInput`]) anything
    /// unsafe or malformed before a single byte is written.
    pub fn open(req: &OpenRequest) -> anyhow::Result<Target> {
        let meta = match std::fs::metadata(&req.path) {
            Ok(m) => Some(m),
            Err(e) if e.kind() == std::io::ErrorKind::NotFound => None,
            Err(e) => crate::bad_input!("cannot look at {}: {e}", req.path.display()),
        };
        use std::os::unix::fs::FileTypeExt;
        match meta {
            Some(m) if m.file_type().is_block_device() => block::open(req),
            Some(m) if m.is_file() => file::open_existing(req, &m),
            Some(_) => crate::bad_input!(
                "{} is neither a regular file nor a block device: name a file or a /dev entry",
                req.path.display()
            ),
            None => file::create(req),
        }
    }

    /// The target's name for run directories (`zram1`, `test.img`).
    pub fn short_name(&self) -> &str {
        &self.identity.name
    }
}

/// True when two paths name the same file or device (same inode or same device number).
pub fn same_object(a: &Path, b: &Path) -> bool {
    use std::os::unix::fs::MetadataExt;
    match (std::fs::metadata(a), std::fs::metadata(b)) {
        (Ok(x), Ok(y)) => {
            let is_dev = |m: &std::fs::Metadata| {
                use std::os::unix::fs::FileTypeExt;
                m.file_type().is_block_device()
            };
            if is_dev(&x) && is_dev(&y) {
                x.rdev() == y.rdev()
            } else {
                x.dev() == y.dev() && x.ino() == y.ino()
            }
        }
        _ => false,
    }
}
