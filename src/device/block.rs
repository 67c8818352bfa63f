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

/// How long an exclusive open waits for a device no process holds to be released: the I/O of a
/// process that just ended (a run killed with `kill -9`) keeps its device busy for a moment.
const RELEASE_WAIT: std::time::Duration = std::time::Duration::from_secs(5);

/// Opens `path` with `opts`; while the open finds the device busy (EBUSY) and no process has it
/// open, waits for it to be released, saying so, for at most [`RELEASE_WAIT`]. A device a
/// process holds is busy at once: nothing would release it.
fn open_when_released(
    opts: &OpenOptions,
    path: &Path,
    rdev: u64,
) -> std::io::Result<std::fs::File> {
    let deadline = std::time::Instant::now() + RELEASE_WAIT;
    let mut said = false;
    loop {
        match opts.open(path) {
            Err(e)
                if e.raw_os_error() == Some(libc::EBUSY)
                    && std::time::Instant::now() < deadline
                    && super::busy::openers(rdev).is_empty()
                    && !crate::stop::requested() =>
            {
                if !said {
                    crate::note!(
                        "ssdfade: {} is busy with no process holding it (the I/O of a run that just ended?): waiting up to {} s for it to be released",
                        path.display(),
                        RELEASE_WAIT.as_secs()
                    );
                    said = true;
                }
                std::thread::sleep(std::time::Duration::from_millis(100));
            }
            result => return result,
        }
    }
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
    let file = match open_when_released(&opts, path, rdev) {
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
                "{} is locked (flock) by {}: stop it first",
                path.display(),
                crate::holder::of_flock(&file)
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
    if identity.kind == "nvme" {
        // The kernel's "write back" only says a cache is present; ask whether it is on.
        let id = super::nvme::submit_read(&file, super::nvme::identify(1, 0, 0), 4096);
        if let Ok(state) = id.and_then(|id| super::nvme::volatile_write_cache(&file, &id)) {
            identity.write_cache = Some(super::nvme::write_cache_text(state));
        }
    }
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

/// Family of a block device: from its kernel name, and for SCSI disks (`sd…`) from the transport
/// under them: libata puts an `ataN` directory in the sysfs path, and a SCSI-ATA translation layer
/// elsewhere (a SAS HBA, a USB bridge) reports the vendor `ATA`. Only `sata` devices are asked
/// ATA questions.
pub fn kind_of(name: &str, sysfs_path: &Path, vendor: Option<&str>) -> &'static str {
    if name.starts_with("nvme") {
        "nvme"
    } else if name.starts_with("sd") {
        let libata = sysfs_path.components().any(|c| {
            c.as_os_str()
                .to_str()
                .and_then(|s| s.strip_prefix("ata"))
                .is_some_and(|n| !n.is_empty() && n.bytes().all(|b| b.is_ascii_digit()))
        });
        if libata || vendor == Some("ATA") {
            "sata"
        } else {
            "scsi"
        }
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

/// The product serial number in a VPD page 0x80 (Unit Serial Number) as sysfs holds it.
pub fn vpd80_serial(page: &[u8]) -> Option<String> {
    if page.len() < 4 || page[1] != 0x80 {
        return None;
    }
    let len = usize::from(u16::from_be_bytes([page[2], page[3]]));
    let text = String::from_utf8_lossy(page.get(4..4 + len).unwrap_or(&page[4..]));
    let t = text.trim_matches(|c: char| c.is_whitespace() || c == '\0');
    (!t.is_empty()).then(|| t.to_string())
}

/// Serial number and world wide name of a disk from its sysfs directory. The serial comes from the
/// device's own identify data as the kernel keeps it (NVMe Identify Controller and virtio-blk
/// `serial`, SCSI and SATA-behind-SAT VPD page 0x80); the WWN (`wwid`) is never taken for it.
pub fn serial_and_wwn(disk: &Path, kind: &str) -> (Option<String>, Option<String>) {
    let dev = disk.join("device");
    let serial = match kind {
        "virtio" => read_trimmed(disk.join("serial")),
        "sata" | "scsi" => std::fs::read(dev.join("vpd_pg80"))
            .ok()
            .and_then(|p| vpd80_serial(&p)),
        _ => read_trimmed(dev.join("serial")),
    };
    let wwn = read_trimmed(disk.join("wwid")).or_else(|| read_trimmed(dev.join("wwid")));
    (serial, wwn)
}

/// Model, serial, firmware and queue properties from sysfs; missing files stay unknown.
pub fn identity_of(rdev: u64) -> Option<Identity> {
    let dir = sysfs_dir(rdev)?;
    let disk = whole_disk_dir(&dir);
    let name = dir.file_name()?.to_string_lossy().into_owned();
    let dev = disk.join("device");
    let queue = disk.join("queue");
    let firmware = read_trimmed(dev.join("firmware_rev")).or_else(|| read_trimmed(dev.join("rev")));
    let disk_name = disk.file_name()?.to_string_lossy().into_owned();
    let kind = kind_of(
        &disk_name,
        &disk,
        read_trimmed(dev.join("vendor")).as_deref(),
    );
    let (serial, wwn) = serial_and_wwn(&disk, kind);
    Some(Identity {
        kind: kind.into(),
        name,
        model: read_trimmed(dev.join("model")),
        serial,
        wwn,
        firmware,
        rotational: read_trimmed(queue.join("rotational")).map(|r| r == "1"),
        write_cache: read_trimmed(queue.join("write_cache")),
        ..Default::default()
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn scsi_disks_are_classed_by_their_transport() {
        let ahci = Path::new(
            "/sys/devices/pci0000:00/0000:00:04.0/ata1/host0/target0:0:0/0:0:0:0/block/sda",
        );
        let virtio_scsi = Path::new(
            "/sys/devices/pci0000:00/0000:00:03.0/virtio1/host2/target2:0:0/2:0:0:0/block/sdb",
        );
        assert_eq!(kind_of("sda", ahci, Some("ATA")), "sata");
        assert_eq!(kind_of("sdb", virtio_scsi, Some("QEMU")), "scsi");
        // A SATA drive behind a SAS HBA's translation layer: no ataN, vendor ATA.
        let sas = Path::new("/sys/devices/pci0000:00/0000:00:05.0/host3/port-3:0/end_device-3:0/target3:0:0/3:0:0:0/block/sdc");
        assert_eq!(kind_of("sdc", sas, Some("ATA")), "sata");
        assert_eq!(kind_of("sdc", sas, Some("SEAGATE")), "scsi");
        assert_eq!(
            kind_of("vda", Path::new("/sys/devices/x/virtio2/block/vda"), None),
            "virtio"
        );
        assert_eq!(
            kind_of(
                "nvme0n1",
                Path::new("/sys/devices/virtual/nvme-subsystem/nvme-subsys0/nvme0n1"),
                None
            ),
            "nvme"
        );
    }

    #[test]
    fn vpd_page_0x80_gives_the_serial() {
        let mut page = vec![0x00, 0x80, 0x00, 0x14];
        page.extend_from_slice(b"            SATA0001");
        assert_eq!(vpd80_serial(&page).as_deref(), Some("SATA0001"));
        assert_eq!(vpd80_serial(&[0x00, 0x83, 0, 0]), None);
        assert_eq!(vpd80_serial(&[0x00, 0x80, 0, 4, b' ', b' ', 0, 0]), None);
    }

    /// A sysfs-shaped directory: `files` are (relative path, contents).
    fn sysfs(files: &[(&str, &[u8])]) -> tempfile::TempDir {
        let dir = tempfile::tempdir().unwrap();
        for (path, data) in files {
            let p = dir.path().join(path);
            std::fs::create_dir_all(p.parent().unwrap()).unwrap();
            std::fs::write(p, data).unwrap();
        }
        dir
    }

    #[test]
    fn a_sata_serial_is_the_drives_own_never_its_wwn() {
        let disk = sysfs(&[
            ("device/wwid", b"naa.5000c50015ea71ac\n"),
            ("device/vpd_pg80", b"\x00\x80\x00\x08SATA0001"),
        ]);
        let (serial, wwn) = serial_and_wwn(disk.path(), "sata");
        assert_eq!(serial.as_deref(), Some("SATA0001"));
        assert_eq!(wwn.as_deref(), Some("naa.5000c50015ea71ac"));
        // Without a VPD page the serial is unknown, not the t10 or naa name.
        let bare = sysfs(&[("device/wwid", b"t10.ATA     QEMU HARDDISK   SATA0001\n")]);
        let (serial, wwn) = serial_and_wwn(bare.path(), "sata");
        assert_eq!(serial, None);
        assert!(wwn.unwrap().starts_with("t10.ATA"));
    }

    #[test]
    fn a_virtio_blk_serial_is_read_from_the_disk() {
        let disk = sysfs(&[("serial", b"VBLK0001\n")]);
        assert_eq!(
            serial_and_wwn(disk.path(), "virtio").0.as_deref(),
            Some("VBLK0001")
        );
    }
}
