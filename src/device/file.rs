//! Regular files as targets: created and preallocated when absent, protected when they hold data,
//! locked for the run (one run per file).

use std::fs::{File, Metadata, OpenOptions};
use std::os::fd::AsRawFd;
use std::os::unix::fs::{MetadataExt, OpenOptionsExt};

use super::lock::lock_for_run;
use super::{same_object, Identity, OpenRequest, Target};
use crate::bad_input;

/// Creates `req.path` with `--size` bytes preallocated and opens it, locked for the run.
pub(super) fn create(req: &OpenRequest) -> anyhow::Result<Target> {
    // Device names live under /dev; /dev/shm is the one place there for files (tmpfs).
    if req.path.starts_with("/dev") && !req.path.starts_with("/dev/shm") {
        bad_input!(
            "{} does not exist: no such device (`lsblk` and `ls -l /dev/disk/by-id` list the drives)",
            req.path.display()
        );
    }
    let Some(size) = req.size else {
        bad_input!(
            "{} does not exist: give --size (e.g. --size 4G) to create it as a test file, or name an existing device",
            req.path.display()
        );
    };
    if size == 0 {
        bad_input!("--size must be larger than zero");
    }
    let Ok(len) = i64::try_from(size) else {
        bad_input!("--size {size} is larger than a file can be");
    };
    let mut opts = OpenOptions::new();
    opts.read(true).write(true).create_new(true);
    let file = match opts.custom_flags(libc::O_DIRECT).open(&req.path) {
        Ok(f) => f,
        Err(e) if e.kind() == std::io::ErrorKind::AlreadyExists => {
            bad_input!("cannot create {}: {e}", req.path.display())
        }
        Err(e) => {
            // O_DIRECT is refused only after the file was made (tmpfs): take it away again.
            let _ = std::fs::remove_file(&req.path);
            return Err(open_error(req, e));
        }
    };
    let opened = lock_for_run(&file, &req.path).and_then(|()| {
        if let Err(e) = nix::fcntl::posix_fallocate(file.as_raw_fd(), 0, len) {
            bad_input!(
                "cannot allocate {} bytes for {}: {e} (free space, or use a smaller --size)",
                size,
                req.path.display()
            );
        }
        target(req, file, size)
    });
    match opened {
        Ok(target) => Ok(Target {
            created: true,
            ..target
        }),
        Err(e) => {
            let _ = std::fs::remove_file(&req.path);
            Err(e)
        }
    }
}

/// Opens an existing file, refusing to overwrite data the user did not name.
pub(super) fn open_existing(req: &OpenRequest, meta: &Metadata) -> anyhow::Result<Target> {
    if req.writes {
        super::loopback::ensure_file_unused(&req.path)?;
    }
    let holds_data = meta.len() > 0;
    if req.writes && holds_data {
        match &req.destroy_data {
            Some(named) if same_object(named, &req.path) => {}
            Some(named) => bad_input!(
                "--destroy-data names {}, but the target is {}: they must be the same file",
                named.display(),
                req.path.display()
            ),
            None => bad_input!(
                "{} already holds {} bytes: add --destroy-data {} to overwrite it, or name a new file",
                req.path.display(),
                meta.len(),
                req.path.display()
            ),
        }
    }
    let file = match OpenOptions::new()
        .read(true)
        .write(req.writes)
        .custom_flags(libc::O_DIRECT)
        .open(&req.path)
    {
        Ok(f) => f,
        Err(e) => return Err(open_error(req, e)),
    };
    // Locked before it is grown, so a second run changes nothing of the first's file.
    lock_for_run(&file, &req.path)?;
    let mut size = meta.len();
    if let Some(wanted) = req.size {
        if wanted < size {
            bad_input!(
                "{} already holds {size} bytes, more than --size {wanted}: a test file is never shrunk; drop --size, or use --span {wanted} to run on part of it",
                req.path.display()
            );
        }
        if wanted > size {
            if !req.writes {
                bad_input!(
                    "{} is {} bytes, smaller than --size {}",
                    req.path.display(),
                    size,
                    wanted
                );
            }
            let Ok(len) = i64::try_from(wanted) else {
                bad_input!("--size {wanted} is larger than a file can be");
            };
            match nix::fcntl::posix_fallocate(file.as_raw_fd(), 0, len) {
                Ok(()) => size = wanted,
                Err(e) => bad_input!("cannot grow {} to {wanted} bytes: {e}", req.path.display()),
            }
        }
    }
    if size == 0 {
        bad_input!(
            "{} is empty: give --size to set how large the test file should be",
            req.path.display()
        );
    }
    target(req, file, size)
}

/// Why an O_DIRECT open of the target failed, as one line.
fn open_error(req: &OpenRequest, e: std::io::Error) -> anyhow::Error {
    let message = if e.raw_os_error() == Some(libc::EINVAL) {
        format!(
            "the filesystem holding {} does not support O_DIRECT: put the test file on another filesystem",
            req.path.display()
        )
    } else {
        format!("cannot open {}: {e}", req.path.display())
    };
    anyhow::Error::new(crate::error::BadInput(message))
}

/// The [`Target`] for an open, locked file of `size` bytes.
fn target(req: &OpenRequest, file: File, size: u64) -> anyhow::Result<Target> {
    let meta = file.metadata()?;
    let (logical, physical) = dio_alignment(&req.path, &meta);
    let backing = crate::device::block::sysfs_name_of(meta.dev());
    Ok(Target {
        path: req.path.clone(),
        file,
        size,
        logical_block: logical,
        physical_block: physical,
        identity: Identity {
            kind: "file".into(),
            name: req
                .path
                .file_name()
                .map(|n| n.to_string_lossy().into_owned())
                .unwrap_or_else(|| "file".into()),
            size_bytes: size,
            logical_block: logical,
            physical_block: physical,
            backing_device: backing,
            ..Default::default()
        },
        created: false,
    })
}

/// O_DIRECT offset alignment of a file (statx DIOALIGN), else 512; and the preferred block size.
fn dio_alignment(path: &std::path::Path, meta: &Metadata) -> (u32, u32) {
    use std::ffi::CString;
    use std::os::unix::ffi::OsStrExt;
    let physical = meta.blksize() as u32;
    let Ok(cpath) = CString::new(path.as_os_str().as_bytes()) else {
        return (512, physical);
    };
    // SAFETY: statx writes into a zeroed struct we own; the path is a valid C string.
    let mut stx: libc::statx = unsafe { std::mem::zeroed() };
    let rc = unsafe {
        libc::statx(
            libc::AT_FDCWD,
            cpath.as_ptr(),
            0,
            libc::STATX_DIOALIGN,
            &mut stx,
        )
    };
    if rc == 0 && stx.stx_mask & libc::STATX_DIOALIGN != 0 && stx.stx_dio_offset_align > 0 {
        (stx.stx_dio_offset_align, physical)
    } else {
        (512, physical)
    }
}
