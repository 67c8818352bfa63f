//! Block devices: geometry through ioctls, identity from sysfs, and the guarded open.

use std::fs::OpenOptions;
use std::os::fd::AsRawFd;
use std::os::unix::fs::{MetadataExt, OpenOptionsExt};
use std::path::{Path, PathBuf};

use super::{safety, same_object, Identity, OpenRequest, Target};
use crate::bad_input;

nix::ioctl_read_bad!(blksszget, nix::request_code_none!(0x12, 104), libc::c_int);
nix::ioctl_read_bad!(blkpbszget, nix::request_code_none!(0x12, 123), libc::c_uint);
nix::ioctl_read!(blkgetsize64, 0x12, 114, u64);

/// Size in bytes and logical and physical block size of an open block device.
pub fn geometry(fd: &impl AsRawFd) -> std::io::Result<(u64, u32, u32)> {
    let mut size = 0u64;
    let mut logical: libc::c_int = 0;
    let mut physical: libc::c_uint = 0;
    // SAFETY: each ioctl writes one integer into the variable we pass.
    unsafe {
        blkgetsize64(fd.as_raw_fd(), &mut size)?;
        blksszget(fd.as_raw_fd(), &mut logical)?;
        blkpbszget(fd.as_raw_fd(), &mut physical)?;
    }
    Ok((size, logical as u32, physical))
}

/// Opens a block device for the workload after every safety check has passed.
pub(super) fn open(req: &OpenRequest) -> anyhow::Result<Target> {
    let path = &req.path;
    let rdev = std::fs::metadata(path)?.rdev();
    if req.writes {
        match &req.destroy_data {
            Some(named) if same_object(named, path) => {}
            Some(named) => bad_input!(
                "--destroy-data names {}, but the target is {}: name the same device twice to confirm",
                named.display(),
                path.display()
            ),
            None => bad_input!(
                "writing to {} destroys its data: add --destroy-data {} to confirm",
                path.display(),
                path.display()
            ),
        }
        safety::ensure_unused(path, rdev)?;
    }
    let mut opts = OpenOptions::new();
    opts.read(true)
        .write(req.writes)
        .custom_flags(libc::O_DIRECT | if req.writes { libc::O_EXCL } else { 0 });
    let file = match opts.open(path) {
        Ok(f) => f,
        Err(e) if e.raw_os_error() == Some(libc::EBUSY) => bad_input!(
            "{} is busy: {}; stop it first",
            path.display(),
            super::busy::describe_openers(rdev)
        ),
        Err(e) if e.kind() == std::io::ErrorKind::PermissionDenied => bad_input!(
            "permission denied opening {}: run as root or get write access to the device",
            path.display()
        ),
        Err(e) => bad_input!("cannot open {}: {e}", path.display()),
    };
    if req.writes {
        if let Some(signature) = safety::signature(path, &file) {
            if !req.force {
                bad_input!(
                    "{} carries a {signature} signature: add --force as well if its contents may be destroyed",
                    path.display()
                );
            }
        }
        // Tell udev and friends to keep off while we write (systemd's block device locking).
        // SAFETY: flock on a descriptor we own; the lock lives as long as the descriptor.
        if unsafe { libc::flock(file.as_raw_fd(), libc::LOCK_EX | libc::LOCK_NB) } != 0 {
            bad_input!(
                "{} is locked by another program (flock): stop it first",
                path.display()
            );
        }
    }
    let (size, logical, physical) = geometry(&file).map_err(|e| {
        anyhow::Error::new(crate::error::BadInput(format!(
            "cannot read the geometry of {}: {e}",
            path.display()
        )))
    })?;
    if size == 0 {
        crate::bad_input!(
            "{} has no capacity (0 bytes): an unattached loop device or a drive without media? attach it (losetup) or name another device",
            path.display()
        );
    }
    let mut identity = identity_of(rdev).unwrap_or_default();
    identity.size_bytes = size;
    identity.logical_block = logical;
    identity.physical_block = physical;
    if identity.name.is_empty() {
        identity.name = path
            .file_name()
            .map(|n| n.to_string_lossy().into_owned())
            .unwrap_or_default();
    }
    Ok(Target {
        path: path.clone(),
        file,
        size,
        logical_block: logical,
        physical_block: physical,
        identity,
        created: false,
    })
}

/// The sysfs directory of a device number (`/sys/devices/.../block/sda/sda1`).
pub fn sysfs_dir(rdev: u64) -> Option<PathBuf> {
    let (major, minor) = (libc::major(rdev), libc::minor(rdev));
    std::fs::canonicalize(format!("/sys/dev/block/{major}:{minor}")).ok()
}

/// Kernel name of the block device with this number, if it is one.
pub fn sysfs_name_of(dev: u64) -> Option<String> {
    sysfs_dir(dev).and_then(|d| d.file_name().map(|n| n.to_string_lossy().into_owned()))
}

/// The whole-disk sysfs directory for a disk or one of its partitions.
pub fn whole_disk_dir(dir: &Path) -> PathBuf {
    if dir.join("partition").exists() {
        dir.parent()
            .map(Path::to_path_buf)
            .unwrap_or_else(|| dir.to_path_buf())
    } else {
        dir.to_path_buf()
    }
}

fn read_trimmed(path: impl AsRef<Path>) -> Option<String> {
    let text = std::fs::read_to_string(path).ok()?;
    let t = text.trim();
    (!t.is_empty()).then(|| t.to_string())
}

/// Family of a block device from its kernel name.
pub fn kind_of(name: &str) -> &'static str {
    if name.starts_with("nvme") {
        "nvme"
    } else if name.starts_with("sd") {
        "sata/sas"
    } else if name.starts_with("vd") {
        "virtio"
    } else if name.starts_with("zram") {
        "zram"
    } else if name.starts_with("loop") {
        "loop"
    } else {
        "block"
    }
}

/// Model, serial, firmware and queue properties from sysfs; missing files stay unknown.
pub fn identity_of(rdev: u64) -> Option<Identity> {
    let dir = sysfs_dir(rdev)?;
    let disk = whole_disk_dir(&dir);
    let name = dir.file_name()?.to_string_lossy().into_owned();
    let dev = disk.join("device");
    let queue = disk.join("queue");
    let firmware = read_trimmed(dev.join("firmware_rev")).or_else(|| read_trimmed(dev.join("rev")));
    let serial = read_trimmed(dev.join("serial")).or_else(|| read_trimmed(dev.join("wwid")));
    Some(Identity {
        kind: kind_of(&name).into(),
        name,
        model: read_trimmed(dev.join("model")),
        serial,
        firmware,
        rotational: read_trimmed(queue.join("rotational")).map(|r| r == "1"),
        write_cache: read_trimmed(queue.join("write_cache")),
        ..Default::default()
    })
}
