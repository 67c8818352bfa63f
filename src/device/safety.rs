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

    if let Some(mount) = mount_of(&numbers) {
        bad_input!(
            "{shown} is mounted at {}: unmount it first (refusing to write)",
            mount.point
        );
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
            refuse_held(name, &dir)?;
        }
    }
    Ok(())
}

/// Refuses a device whose sysfs directory `dir` lists holders (device-mapper, LVM, md, bcache
/// built on it).
fn refuse_held(name: &str, dir: &std::path::Path) -> anyhow::Result<()> {
    if let Ok(entries) = std::fs::read_dir(dir.join("holders")) {
        let mut holders: Vec<String> = entries
            .flatten()
            .map(|e| e.file_name().to_string_lossy().into_owned())
            .collect();
        holders.sort();
        if !holders.is_empty() {
            bad_input!(
                "{name} is held by {} (device-mapper, LVM, md or bcache): release it first (refusing to write)",
                holders.join(", ")
            );
        }
    }
    Ok(())
}

/// A mount of one of a device's family, from /proc/self/mountinfo.
struct Mount {
    point: String,
    fstype: String,
}

/// The first mount whose device (by its number, or by its source's) is one of `numbers`.
fn mount_of(numbers: &[u64]) -> Option<Mount> {
    let mountinfo = std::fs::read_to_string("/proc/self/mountinfo").ok()?;
    mountinfo.lines().find_map(|line| {
        let fields: Vec<&str> = line.split(' ').collect();
        let devfield = fields.get(2)?;
        let mut after = line.split(" - ").nth(1)?.split(' ');
        let fstype = after.next()?;
        let source = after.next();
        let by_number = parse_devnum(devfield).is_some_and(|d| numbers.contains(&d));
        let by_source = source.is_some_and(|s| dev_number(s).is_some_and(|d| numbers.contains(&d)));
        (by_number || by_source).then(|| Mount {
            point: fields.get(4).copied().unwrap_or("?").to_string(),
            fstype: fstype.to_string(),
        })
    })
}

/// What the system says a device holds when the device itself cannot be read: the filesystem
/// it (or a partition) is mounted with, else its partitions as sysfs lists them.
pub fn signature_unopened(rdev: u64) -> Option<String> {
    let members = family(rdev);
    let numbers: Vec<u64> = members.iter().map(|m| m.1).collect();
    if let Some(mount) = mount_of(&numbers) {
        return Some(format!("{} (mounted at {})", mount.fstype, mount.point));
    }
    let partitions: Vec<&str> = members.iter().skip(1).map(|m| m.0.as_str()).collect();
    (!partitions.is_empty())
        .then(|| format!("a partition table (partitions {})", partitions.join(", ")))
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
/// (from PATH, else /usr/sbin or /sbin, where cron's PATH does not look) when it gives a clear
/// answer, else a check of the common magic numbers. Partition-table entries (`PART_ENTRY_*`, what
/// `blkid -p` prints for a partition) describe where the partition lies, not what it holds.
pub fn signature(path: &Path, file: &File) -> Option<String> {
    match run_blkid(path) {
        Some(Blkid::Found(kind)) => Some(kind),
        Some(Blkid::Nothing) => None,
        Some(Blkid::Ambivalent) => Some(match magic_signature(file) {
            Some(kind) => format!("{kind} and another (blkid -p finds several signatures)"),
            None => "several (blkid -p finds more than one signature)".to_string(),
        }),
        None => magic_signature(file),
    }
}

/// What `blkid -p -o export` answered.
#[derive(Debug, PartialEq, Eq)]
enum Blkid {
    /// A filesystem, RAID member or partition table of this type.
    Found(String),
    /// Exit 2: no signature.
    Nothing,
    /// Exit 8: several signatures, none preferred.
    Ambivalent,
}

/// Runs the first `blkid` found; `None` when none runs or its answer is unclear (another exit
/// status, or output that is not util-linux's export format, as busybox's blkid prints).
fn run_blkid(path: &Path) -> Option<Blkid> {
    for program in ["blkid", "/usr/sbin/blkid", "/sbin/blkid"] {
        match std::process::Command::new(program)
            .args(["-p", "-o", "export"])
            .arg(path)
            .stdin(std::process::Stdio::null())
            .stderr(std::process::Stdio::null())
            .output()
        {
            Ok(out) => {
                return blkid_verdict(out.status.code(), &String::from_utf8_lossy(&out.stdout))
            }
            Err(e) if e.kind() == std::io::ErrorKind::NotFound => continue,
            Err(_) => return None,
        }
    }
    None
}

/// Reads blkid's exit status and `-o export` lines; `None` when they settle nothing.
fn blkid_verdict(code: Option<i32>, stdout: &str) -> Option<Blkid> {
    match code? {
        0 => stdout
            .lines()
            .find_map(|l| {
                l.strip_prefix("TYPE=")
                    .or_else(|| l.strip_prefix("PTTYPE="))
            })
            .map(|kind| Blkid::Found(kind.to_string())),
        2 => Some(Blkid::Nothing),
        8 => Some(Blkid::Ambivalent),
        _ => None,
    }
}

fn magic_signature(file: &File) -> Option<String> {
    let buf = read_head(file, 70 * 1024)?;
    let head = buf.as_slice();
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

/// The first `len` bytes (or fewer, if the file is shorter) read into a page-aligned buffer, as
/// an O_DIRECT descriptor needs; the buffer's length is what was read.
fn read_head(file: &File, len: usize) -> Option<Vec<u8>> {
    let mut buf = crate::engine::AlignedBuf::new(len).ok()?;
    // The aligned buffer is a whole number of pages: read all of it, keep what was read.
    let n = file.read_at(buf.as_mut_slice(), 0).ok()?;
    Some(buf.as_slice()[..n].to_vec())
}

#[cfg(test)]
mod tests {
    /// The holder gate on a sysfs tree made here: no `holders/` or an empty one lets the write
    /// through; an entry (a dm target, an md array) refuses it naming every holder.
    #[test]
    fn a_device_with_holders_is_refused_naming_them() {
        let sys = tempfile::tempdir().unwrap();
        let dir = sys.path().join("loop7");
        std::fs::create_dir(&dir).unwrap();
        assert!(super::refuse_held("loop7", &dir).is_ok());
        std::fs::create_dir(dir.join("holders")).unwrap();
        assert!(super::refuse_held("loop7", &dir).is_ok());
        std::os::unix::fs::symlink("../../dm-3", dir.join("holders/dm-3")).unwrap();
        std::os::unix::fs::symlink("../../md0", dir.join("holders/md0")).unwrap();
        let e = super::refuse_held("loop7", &dir).unwrap_err();
        assert!(e.is::<crate::error::BadInput>(), "{e:#}");
        assert_eq!(
            e.to_string(),
            "loop7 is held by dm-3, md0 (device-mapper, LVM, md or bcache): release it first (refusing to write)"
        );
    }

    #[test]
    fn device_numbers_parse_from_mountinfo_fields() {
        assert_eq!(super::parse_devnum("254:3"), Some(libc::makedev(254, 3)));
        assert_eq!(super::parse_devnum("nonsense"), None);
    }

    #[test]
    fn partition_entries_alone_are_no_signature() {
        let part =
            "DEVNAME=/dev/sda1\nPART_ENTRY_SCHEME=dos\nPART_ENTRY_TYPE=0x83\nPART_ENTRY_NUMBER=1\n";
        assert_eq!(super::blkid_verdict(Some(0), part), None);
        let fs = "DEVNAME=/dev/sda1\nUUID=1\nTYPE=ext4\nPART_ENTRY_TYPE=0x83\n";
        assert_eq!(
            super::blkid_verdict(Some(0), fs),
            Some(super::Blkid::Found("ext4".into()))
        );
        assert_eq!(
            super::blkid_verdict(Some(0), "PTTYPE=gpt\n"),
            Some(super::Blkid::Found("gpt".into()))
        );
    }

    #[test]
    fn blkid_exit_statuses_are_read_as_util_linux_defines_them() {
        assert_eq!(
            super::blkid_verdict(Some(2), ""),
            Some(super::Blkid::Nothing)
        );
        assert_eq!(
            super::blkid_verdict(Some(8), ""),
            Some(super::Blkid::Ambivalent)
        );
        // Busybox prints `/dev/x: TYPE="ext4"` lines: not the export format, so unclear.
        assert_eq!(
            super::blkid_verdict(Some(0), "/dev/vda: TYPE=\"ext4\"\n"),
            None
        );
        assert_eq!(super::blkid_verdict(Some(4), ""), None);
        assert_eq!(super::blkid_verdict(None, ""), None);
    }

    #[test]
    fn magic_check_reads_a_head_longer_than_its_window() {
        // 100 KiB: more than the 70 KiB window rounded up to whole pages (72 KiB).
        let mut f = tempfile::tempfile().unwrap();
        let mut data = vec![0u8; 100 * 1024];
        data[1080] = 0x53;
        data[1081] = 0xEF;
        std::io::Write::write_all(&mut f, &data).unwrap();
        assert_eq!(super::magic_signature(&f).as_deref(), Some("ext2/3/4"));
        data[1080] = 0;
        let mut empty = tempfile::tempfile().unwrap();
        std::io::Write::write_all(&mut empty, &data).unwrap();
        assert_eq!(super::magic_signature(&empty), None);
    }
}
