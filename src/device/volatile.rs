//! Whether a target's contents survive power-off: a RAM disk (zram, brd's `ram*`), a file on
//! tmpfs or ramfs, or a loop device over such a file loses everything when the power goes. The
//! SLOG test warns about such a target and its verdict says so.

use std::path::{Path, PathBuf};

use super::Spec;

/// `statfs` magic numbers of filesystems held in RAM (linux/magic.h).
const TMPFS_MAGIC: i64 = 0x0102_1994;
const RAMFS_MAGIC: i64 = 0x8584_58f6;

/// Why `target` loses its contents at power-off ("/dev/zram3 is a RAM device (zram)"), or None
/// when it is stable storage as far as the kernel can tell. A simulated drive is not volatile:
/// it models an SSD.
pub fn why(target: &str) -> Option<String> {
    match Spec::parse(target).ok()? {
        Spec::Sim(_) => None,
        Spec::Path(path) => path_why(&path, 0),
    }
}

fn path_why(path: &Path, depth: u32) -> Option<String> {
    use std::os::unix::fs::FileTypeExt;
    let meta = std::fs::metadata(path).ok();
    if meta
        .as_ref()
        .is_some_and(|m| m.file_type().is_block_device())
    {
        let name = std::fs::canonicalize(path)
            .ok()?
            .file_name()?
            .to_string_lossy()
            .into_owned();
        if name.starts_with("zram") {
            return Some(format!("{} is a RAM device (zram)", path.display()));
        }
        if name.starts_with("ram") && name[3..].bytes().all(|b| b.is_ascii_digit()) {
            return Some(format!("{} is a RAM disk (brd)", path.display()));
        }
        if name.starts_with("loop") && depth < 4 {
            let backing = loop_backing(&name)?;
            return path_why(&backing, depth + 1)
                .map(|why| format!("{} is a loop device over {why}", path.display()));
        }
        return None;
    }
    // A file, or one the run will create: the filesystem of its directory decides.
    let on = if meta.is_some() {
        path.to_path_buf()
    } else {
        match path.parent() {
            Some(p) if !p.as_os_str().is_empty() => p.to_path_buf(),
            _ => PathBuf::from("."),
        }
    };
    let fs = nix::sys::statfs::statfs(&on).ok()?;
    let kind = match fs.filesystem_type().0 as i64 {
        TMPFS_MAGIC => "tmpfs",
        RAMFS_MAGIC => "ramfs",
        _ => return None,
    };
    Some(format!("{} is on {kind}, held in RAM", path.display()))
}

/// The file behind the loop device `name` (`loop3`), from sysfs.
fn loop_backing(name: &str) -> Option<PathBuf> {
    let text = std::fs::read_to_string(format!("/sys/block/{name}/loop/backing_file")).ok()?;
    let file = text.trim_end_matches('\n').trim_end_matches(" (deleted)");
    (!file.is_empty()).then(|| PathBuf::from(file))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_simulated_drive_is_not_volatile_and_a_file_on_tmpfs_is() {
        assert_eq!(why("sim:vertex2-60g"), None);
        // /dev/shm is tmpfs on every Linux with glibc's shm_open; a file there is volatile.
        if std::path::Path::new("/dev/shm").is_dir() {
            let why = why("/dev/shm/ssdfade-volatile-test.img").unwrap();
            assert!(why.contains("tmpfs"), "{why}");
        }
    }
}
