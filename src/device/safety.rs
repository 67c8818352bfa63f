//! Refusals before writing to a block device: mounted, swapped on, held by another driver, or
//! carrying a filesystem or partition table. Each refusal is one line naming what holds it.

use std::fs::File;
use std::os::unix::fs::{FileExt, MetadataExt};
use std::path::Path;

use super::block::{sysfs_dir, whole_disk_dir};
use crate::bad_input;

/// A device and its partitions as (kernel name, device number).
fn family(rdev: u64) -> Vec<(String, u64)> {
    let mut out = Vec::new();
    let Some(dir) = sysfs_dir(rdev) else {
        return out;
    };
    let name = |d: &Path| {
        d.file_name()
            .map(|n| n.to_string_lossy().into_owned())
            .unwrap_or_default()
    };
    let devnum = |d: &Path| -> Option<u64> {
        let text = std::fs::read_to_string(d.join("dev")).ok()?;
        let (ma, mi) = text.trim().split_once(':')?;
        Some(libc::makedev(ma.parse().ok()?, mi.parse().ok()?))
    };
    out.push((name(&dir), rdev));
    // A whole disk brings its partitions along; a partition stands alone.
    if whole_disk_dir(&dir) == dir {
        if let Ok(entries) = std::fs::read_dir(&dir) {
            for e in entries.flatten() {
                let p = e.path();
                if p.join("partition").exists() {
                    if let Some(n) = devnum(&p) {
                        out.push((name(&p), n));
                    }
                }
            }
        }
    }
    out
}

/// Refuses when the device or one of its partitions is mounted, swapped on or held.
pub fn ensure_unused(path: &Path, rdev: u64) -> anyhow::Result<()> {
    let members = family(rdev);
    let numbers: Vec<u64> = members.iter().map(|m| m.1).collect();
    let shown = path.display();

    if let Ok(mountinfo) = std::fs::read_to_string("/proc/self/mountinfo") {
        for line in mountinfo.lines() {
            let fields: Vec<&str> = line.split(' ').collect();
            let Some(devfield) = fields.get(2) else {
                continue;
            };
            let mount_point = fields.get(4).copied().unwrap_or("?");
            let source = line
                .split(" - ")
                .nth(1)
                .and_then(|rest| rest.split(' ').nth(1));
            let by_number = parse_devnum(devfield).is_some_and(|d| numbers.contains(&d));
            let by_source =
                source.is_some_and(|s| dev_number(s).is_some_and(|d| numbers.contains(&d)));
            if by_number || by_source {
                bad_input!(
                    "{shown} is mounted at {mount_point}: unmount it first (refusing to write)"
                );
            }
        }
    }
    if let Ok(swaps) = std::fs::read_to_string("/proc/swaps") {
        for line in swaps.lines().skip(1) {
            if let Some(dev) = line.split_whitespace().next() {
                if dev_number(dev).is_some_and(|d| numbers.contains(&d)) {
                    bad_input!(
                        "{shown} is in use as swap ({dev}): swapoff it first (refusing to write)"
                    );
                }
            }
        }
    }
    for (name, number) in &members {
        if let Some(dir) = sysfs_dir(*number) {
            if let Ok(entries) = std::fs::read_dir(dir.join("holders")) {
                let holders: Vec<String> = entries
                    .flatten()
                    .map(|e| e.file_name().to_string_lossy().into_owned())
                    .collect();
                if !holders.is_empty() {
                    bad_input!(
                        "{name} is held by {} (device-mapper, LVM, md or bcache): release it first (refusing to write)",
                        holders.join(", ")
                    );
                }
            }
        }
    }
    Ok(())
}

fn parse_devnum(text: &str) -> Option<u64> {
    let (ma, mi) = text.split_once(':')?;
    Some(libc::makedev(ma.parse().ok()?, mi.parse().ok()?))
}

/// Device number of a block device path, if it is one.
fn dev_number(path: &str) -> Option<u64> {
    use std::os::unix::fs::FileTypeExt;
    let meta = std::fs::metadata(path).ok()?;
    meta.file_type().is_block_device().then(|| meta.rdev())
}

/// Names the filesystem, RAID or partition-table signature on the device, if any: `blkid -p`
/// when it is installed, else a check of the common magic numbers.
pub fn signature(path: &Path, file: &File) -> Option<String> {
    if let Ok(out) = std::process::Command::new("blkid")
        .args(["-p", "-o", "export"])
        .arg(path)
        .output()
    {
        match out.status.code() {
            Some(0) => {
                let text = String::from_utf8_lossy(&out.stdout);
                let kind = text
                    .lines()
                    .find_map(|l| {
                        l.strip_prefix("TYPE=")
                            .or_else(|| l.strip_prefix("PTTYPE="))
                    })
                    .unwrap_or("unknown");
                return Some(kind.to_string());
            }
            Some(2) => return None,
            _ => {}
        }
    }
    magic_signature(file)
}

fn magic_signature(file: &File) -> Option<String> {
    let mut head = vec![0u8; 70 * 1024];
    let n = read_aligned(file, &mut head)?;
    let head = &head[..n];
    let at = |off: usize, magic: &[u8]| head.get(off..off + magic.len()) == Some(magic);
    let checks: [(&str, usize, &[u8]); 6] = [
        ("gpt", 512, b"EFI PART"),
        ("xfs", 0, b"XFSB"),
        ("ext2/3/4", 1080, &[0x53, 0xEF]),
        ("swap", 4086, b"SWAPSPACE2"),
        ("btrfs", 65600, b"_BHRfS_M"),
        ("dos", 510, &[0x55, 0xAA]),
    ];
    checks
        .iter()
        .find(|(_, off, magic)| at(*off, magic))
        .map(|(name, _, _)| name.to_string())
}

/// Reads the start of an O_DIRECT file into an aligned buffer.
fn read_aligned(file: &File, out: &mut [u8]) -> Option<usize> {
    let mut buf = crate::engine::AlignedBuf::new(out.len()).ok()?;
    let n = file.read_at(buf.as_mut_slice(), 0).ok()?;
    out[..n].copy_from_slice(&buf.as_slice()[..n]);
    Some(n)
}

#[cfg(test)]
mod tests {
    #[test]
    fn device_numbers_parse_from_mountinfo_fields() {
        assert_eq!(super::parse_devnum("254:3"), Some(libc::makedev(254, 3)));
        assert_eq!(super::parse_devnum("nonsense"), None);
    }
}
