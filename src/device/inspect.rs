//! What a target is and how worn, read without writing: kind, identity, geometry, cache,
//! discard, secure-erase capabilities, whether it is in use, and SMART wear. What cannot be
//! known stays `None` (shown as unknown), never an error. `info` prints it; `measure` and `soak`
//! record it before and after a run; `erase` plans from it.

use std::fs::File;
use std::os::unix::fs::{FileTypeExt, MetadataExt};
use std::path::Path;

use crate::device::smart::{self, Wear, WriteAmplification};
use crate::device::{ata, nvme, power};
use crate::device::{block, safety};
pub use crate::drive::{Discard, DriveInfo, NvmeInfo};

/// Inspects `target` without writing to it.
pub fn gather(target: &str) -> anyhow::Result<DriveInfo> {
    if crate::sim::is_sim_target(target) {
        return info_sim(target);
    }
    let path = Path::new(target);
    let meta = match std::fs::metadata(path) {
        Ok(m) => m,
        Err(e) => crate::bad_input!("cannot look at {target}: {e}"),
    };
    if meta.file_type().is_block_device() {
        gather_block(target, meta.rdev())
    } else if meta.is_file() {
        Ok(gather_file(target, &meta))
    } else {
        crate::bad_input!("{target} is neither a regular file nor a block device")
    }
}

/// The sim case: identity and wear from the simulator (one function, so the merge is trivial).
fn info_sim(spec: &str) -> anyhow::Result<DriveInfo> {
    Ok(crate::sim::drive_info(
        spec,
        crate::sim::identity(spec)?,
        crate::sim::wear(spec)?,
    ))
}

fn read_sys(path: impl AsRef<Path>) -> Option<String> {
    let text = std::fs::read_to_string(path).ok()?;
    let t = text.trim();
    (!t.is_empty()).then(|| t.to_string())
}

/// A property udev recorded for the device (`/run/udev/data/bMAJ:MIN`), e.g. the SATA serial.
fn udev_property(rdev: u64, key: &str) -> Option<String> {
    let text = std::fs::read_to_string(format!(
        "/run/udev/data/b{}:{}",
        libc::major(rdev),
        libc::minor(rdev)
    ))
    .ok()?;
    let prefix = format!("E:{key}=");
    text.lines()
        .find_map(|l| l.strip_prefix(&prefix))
        .map(str::to_string)
}

fn read_sys_u64(path: impl AsRef<Path>) -> Option<u64> {
    read_sys(path)?.parse().ok()
}

fn gather_block(target: &str, rdev: u64) -> anyhow::Result<DriveInfo> {
    let path = Path::new(target);
    let id = block::identity_of(rdev).unwrap_or_default();
    let mut info = DriveInfo {
        path: target.into(),
        kind: if id.kind.is_empty() {
            "block".into()
        } else {
            id.kind.clone()
        },
        name: id.name.clone(),
        model: id.model.clone(),
        serial: id.serial.clone(),
        wwn: id.wwn.clone(),
        firmware: id.firmware.clone(),
        rotational: id.rotational,
        write_cache: id.write_cache.clone(),
        ..Default::default()
    };
    if let Some(dir) = block::sysfs_dir(rdev) {
        let disk = block::whole_disk_dir(&dir);
        if let Some(backing) = read_sys(disk.join("loop/backing_file")) {
            let dio = read_sys(disk.join("loop/dio")).is_some_and(|d| d == "1");
            info.notes.push(format!(
                "loop device over {backing}, direct I/O {}",
                if dio {
                    "on"
                } else {
                    "off (writes land in the page cache first)"
                }
            ));
        }
        if info.serial.is_none() {
            info.serial = udev_property(rdev, "ID_SERIAL_SHORT");
        }
        if disk != dir {
            info.partition_of = disk.file_name().map(|n| n.to_string_lossy().into_owned());
        }
        // sysfs first, so a device that cannot be opened still shows its geometry.
        info.size_bytes = read_sys_u64(dir.join("size")).map(|sectors| sectors * 512);
        let queue = block::whole_disk_dir(&dir).join("queue");
        info.logical_block = read_sys_u64(queue.join("logical_block_size")).map(|v| v as u32);
        info.physical_block = read_sys_u64(queue.join("physical_block_size")).map(|v| v as u32);
        info.fua = read_sys(queue.join("fua")).map(|v| v == "1");
        let max_hw = read_sys_u64(queue.join("discard_max_hw_bytes"));
        info.discard = Some(Discard {
            supported: max_hw.is_some_and(|m| m > 0),
            granularity: read_sys_u64(queue.join("discard_granularity")),
            max_bytes: read_sys_u64(queue.join("discard_max_bytes")),
            write_zeroes_max_bytes: read_sys_u64(queue.join("write_zeroes_max_bytes")),
        });
    }
    if let Err(e) = safety::ensure_unused(path, rdev) {
        let why = e.to_string();
        info.in_use = Some(why.replace(" (refusing to write)", ""));
    } else {
        info.in_use = crate::device::busy::exclusive_holder(path, rdev);
    }
    let file = match File::open(path) {
        Ok(f) => f,
        Err(e) => {
            info.wear = Wear::unknown(format!(
                "cannot open {target} to read capabilities and wear: {e}"
            ));
            info.signature = Some(match safety::signature_unopened(rdev) {
                Some(seen) => format!(
                    "{seen}; from the mount table and sysfs (the device could not be opened)"
                ),
                None => "unknown (the device could not be opened)".into(),
            });
            return Ok(info);
        }
    };
    match block::geometry(&file) {
        Ok((size, logical, physical)) => {
            info.size_bytes = Some(size);
            info.logical_block = Some(logical);
            info.physical_block = Some(physical);
        }
        Err(e) => info.notes.push(format!("geometry: {e}")),
    }
    info.signature = safety::signature(path, &file);
    match info.kind.as_str() {
        "nvme" => nvme_facts(&file, &mut info),
        "sata" => match ata::read_identify(&file) {
            Ok(id) => {
                info.power = id.apm.map(|apm_level| power::PowerManagement {
                    apm_level: Some(apm_level),
                    ..Default::default()
                });
                info.ata_security = Some(id.security);
                info.serial = id.serial.or(info.serial);
                info.model = id.model.or(info.model);
                info.firmware = id.firmware.or(info.firmware);
            }
            Err(e) => info
                .notes
                .push(format!("ATA security state unknown: {e:#}")),
        },
        _ => {}
    }
    let (wear, smart_id) = smart::read(target, &info.kind, &file);
    info.model = info.model.or(smart_id.model);
    info.serial = info.serial.or(smart_id.serial);
    info.firmware = info.firmware.or(smart_id.firmware);
    info.wear = wear;
    Ok(info)
}

/// Namespace id, LBA format, erase capabilities, identity and write cache from the controller;
/// what fails is noted and left as it was.
fn nvme_facts(file: &File, info: &mut DriveInfo) {
    let notes = &mut info.notes;
    let mut out = NvmeInfo::default();
    let mut power = None;
    match nvme::namespace_id(file) {
        Ok(n) => out.nsid = Some(n),
        Err(e) => notes.push(format!("NVMe namespace id: {e}")),
    }
    match nvme::submit_read(file, nvme::identify(1, 0, 0), 4096) {
        Ok(id) => {
            out.caps = Some(nvme::parse_controller_caps(&id));
            let apst = power::nvme_apst_supported(&id)
                .then(|| match power::nvme_apst_enabled(file) {
                    Ok(on) => Some(on),
                    Err(e) => {
                        notes.push(format!("NVMe APST state unknown: {e:#}"));
                        None
                    }
                })
                .flatten();
            power = Some(power::PowerManagement {
                apst,
                nvme_states: power::nvme_power_states(&id),
                apm_level: None,
            });
            let ident = nvme::parse_controller_identity(&id);
            info.serial = ident.serial.or(info.serial.take());
            info.model = ident.model.or(info.model.take());
            info.firmware = ident.firmware.or(info.firmware.take());
            match nvme::volatile_write_cache(file, &id) {
                Ok(state) => info.write_cache = Some(nvme::write_cache_text(state)),
                Err(e) => notes.push(format!(
                    "NVMe volatile write cache (Get Features 0x06): {e:#}; the write cache shown is the kernel's view"
                )),
            }
        }
        Err(e) => notes.push(format!("NVMe Identify Controller: {e:#}")),
    }
    if let Some(nsid) = out.nsid {
        match nvme::submit_read(file, nvme::identify(0, nsid, 0), 4096) {
            Ok(id) => out.lba_format = Some(nvme::current_lbaf(&id)),
            Err(e) => notes.push(format!("NVMe Identify Namespace: {e:#}")),
        }
    }
    info.nvme = Some(out);
    info.power = power;
}

fn gather_file(target: &str, meta: &std::fs::Metadata) -> DriveInfo {
    let backing = block::sysfs_name_of(meta.dev());
    let queue = block::sysfs_dir(meta.dev()).map(|d| block::whole_disk_dir(&d).join("queue"));
    let q = |f: &str| queue.as_ref().and_then(|q| read_sys(q.join(f)));
    let name = Path::new(target)
        .file_name()
        .map(|n| n.to_string_lossy().into_owned())
        .unwrap_or_else(|| target.to_string());
    let wear_note = match &backing {
        Some(dev) => format!(
            "a file has no wear of its own; run `ssdfade info /dev/{dev}` for its backing device"
        ),
        None => "a file has no wear of its own".to_string(),
    };
    DriveInfo {
        path: target.into(),
        kind: "file".into(),
        name,
        size_bytes: Some(meta.len()),
        logical_block: q("logical_block_size").and_then(|v| v.parse().ok()),
        physical_block: q("physical_block_size").and_then(|v| v.parse().ok()),
        rotational: q("rotational").map(|v| v == "1"),
        write_cache: q("write_cache"),
        fua: q("fua").map(|v| v == "1"),
        backing_device: backing,
        in_use: super::loopback::file_in_use(Path::new(target)),
        notes: super::loopback::notes(Path::new(target)),
        wear: Wear::unknown(wear_note),
        ..Default::default()
    }
}

/// `gather` for run records: an error (a target that vanished, say) just leaves it out.
pub fn gather_for_record(target: &str) -> Option<DriveInfo> {
    gather(target).ok()
}

/// The write amplification between two records of the same drive, when it reports both.
pub fn write_amplification(
    before: &Option<DriveInfo>,
    after: &Option<DriveInfo>,
) -> Option<WriteAmplification> {
    smart::write_amplification(&before.as_ref()?.wear, &after.as_ref()?.wear)
}
