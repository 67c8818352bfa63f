//! The `state=` file on disk: locked for the whole command, replaced atomically.
//!
//! A command that uses a kept drive takes an exclusive `flock` on the state file itself (made
//! empty when absent: an empty file is a new drive) and holds it until it ends; a second
//! command on the same file is refused, naming the process that holds it (from `/proc/locks`).
//! A save writes a new file under a unique temporary name in the same directory, locks it,
//! fsyncs it, renames it over the state file and fsyncs the directory: a crash leaves the old
//! drive or the new one, never a mix, and the lock carries over to the new file. The directory
//! is checked for writing when the file is opened, before any run, not at the save after it.

use std::fs::{File, OpenOptions};
use std::io::{BufReader, BufWriter, Write};
use std::os::unix::fs::MetadataExt;
use std::path::{Path, PathBuf};

use anyhow::Context;
use nix::fcntl::{Flock, FlockArg};

use crate::bad_input;

/// A state file locked by this process.
pub struct Store {
    path: PathBuf,
    file: Flock<File>,
    /// This command created the (empty) file and has not saved into it yet: removed on drop.
    created: bool,
}

impl Store {
    /// Locks the state file at `path`, creating it empty when absent; refuses (bad input) a
    /// path whose directory is missing or not writable, that is not a regular file, or that
    /// another process holds.
    pub fn lock(path: &Path) -> anyhow::Result<Store> {
        let path = resolve(path)?;
        let dir = directory_of(&path);
        if !dir.is_dir() {
            bad_input!(
                "the directory of state={} does not exist: create {} first or give another path",
                path.display(),
                dir.display()
            );
        }
        if let Err(e) = tempfile::Builder::new()
            .prefix(".ssdfade-probe")
            .tempfile_in(&dir)
        {
            bad_input!(
                "cannot write in {} ({e}), where state={} is saved: give a path in a writable directory",
                dir.display(),
                path.display()
            );
        }
        // A save renames a new file over the path between our open and our lock: retry on
        // the file the path names now.
        for _ in 0..100 {
            let (file, created) = open_or_create(&path)?;
            let meta = file.metadata()?;
            if !meta.is_file() {
                bad_input!(
                    "state={} is not a regular file: give the path of a file to keep the drive in",
                    path.display()
                );
            }
            let file = match Flock::lock(file, FlockArg::LockExclusiveNonblock) {
                Ok(locked) => locked,
                Err((_, nix::errno::Errno::EWOULDBLOCK)) => bad_input!(
                    "state={} is in use by {}: wait for it to end or use another state= file",
                    path.display(),
                    holder(&meta)
                ),
                Err((_, e)) => bad_input!(
                    "cannot lock state={} ({e}): keep state files on a local filesystem",
                    path.display()
                ),
            };
            let same = std::fs::metadata(&path)
                .is_ok_and(|now| now.dev() == meta.dev() && now.ino() == meta.ino());
            if same {
                remove_stale_temporaries(&path);
                return Ok(Store {
                    path,
                    file,
                    created,
                });
            }
        }
        anyhow::bail!(
            "state={} keeps being replaced by another process",
            path.display()
        )
    }

    pub fn path(&self) -> &Path {
        &self.path
    }

    /// The file's length (0: a new drive) and a reader from its start.
    pub fn reader(&self) -> anyhow::Result<(u64, BufReader<File>)> {
        let file = self.file.try_clone()?;
        let len = file.metadata()?.len();
        Ok((len, BufReader::with_capacity(1 << 20, file)))
    }

    /// Replaces the file with what `write` writes, atomically (see the module doc).
    pub fn replace(
        &mut self,
        write: impl FnOnce(&mut BufWriter<Guarded<'_>>) -> std::io::Result<()>,
    ) -> anyhow::Result<()> {
        self.replace_unless(&|| false, write).map(|_| ())
    }

    /// As [`Store::replace`], giving up as soon as `give_up` says so before the new file takes
    /// the path (checked at every MiB written and before the rename): the file then keeps the
    /// drive it held, and the temporary is removed. True when the file was replaced.
    pub fn replace_unless(
        &mut self,
        give_up: &dyn Fn() -> bool,
        write: impl FnOnce(&mut BufWriter<Guarded<'_>>) -> std::io::Result<()>,
    ) -> anyhow::Result<bool> {
        let dir = directory_of(&self.path);
        let what = || format!("saving the simulated drive to {}", self.path.display());
        let tmp = tempfile::Builder::new()
            .prefix(&temporary_prefix(&self.path))
            .suffix(".tmp")
            .rand_bytes(TEMPORARY_RANDOM)
            .tempfile_in(&dir)
            .with_context(what)?;
        let mode = self.file.metadata().with_context(what)?.permissions();
        tmp.as_file().set_permissions(mode).with_context(what)?;
        // Locked before it appears under the path, so no other command gets in between.
        let locked = Flock::lock(tmp.as_file().try_clone()?, FlockArg::LockExclusiveNonblock)
            .map_err(|(_, e)| e)
            .with_context(what)?;
        let guarded = Guarded {
            file: tmp.as_file(),
            give_up,
        };
        let written = {
            let mut w = BufWriter::with_capacity(1 << 20, guarded);
            write(&mut w).and_then(|()| w.flush())
        };
        match written {
            Err(e) if e.get_ref().is_some_and(|e| e.is::<GaveUp>()) => return Ok(false),
            written => written.with_context(what)?,
        }
        tmp.as_file().sync_all().with_context(what)?;
        if give_up() {
            return Ok(false);
        }
        tmp.persist(&self.path)
            .map_err(|e| e.error)
            .with_context(what)?;
        File::open(&dir)
            .and_then(|d| d.sync_all())
            .with_context(|| format!("syncing directory {}", dir.display()))?;
        self.file = locked;
        self.created = false;
        Ok(true)
    }
}

/// The temporary file of a save, written until its caller gives up.
pub struct Guarded<'a> {
    file: &'a File,
    give_up: &'a dyn Fn() -> bool,
}

/// The error a given-up save stops its writer with.
#[derive(Debug)]
struct GaveUp;

impl std::fmt::Display for GaveUp {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str("the save was given up")
    }
}

impl std::error::Error for GaveUp {}

impl Write for Guarded<'_> {
    fn write(&mut self, buf: &[u8]) -> std::io::Result<usize> {
        if (self.give_up)() {
            return Err(std::io::Error::other(GaveUp));
        }
        self.file.write(buf)
    }

    fn flush(&mut self) -> std::io::Result<()> {
        self.file.flush()
    }
}

impl std::io::Seek for Guarded<'_> {
    fn seek(&mut self, pos: std::io::SeekFrom) -> std::io::Result<u64> {
        self.file.seek(pos)
    }
}

impl Drop for Store {
    /// A file made only to be locked, never saved into, is removed again: a refused or failed
    /// command leaves no empty state file behind.
    fn drop(&mut self) {
        if !self.created {
            return;
        }
        let ours = self.file.metadata().ok();
        let now = std::fs::metadata(&self.path).ok();
        if let (Some(ours), Some(now)) = (ours, now) {
            if ours.dev() == now.dev() && ours.ino() == now.ino() && now.len() == 0 {
                let _ = std::fs::remove_file(&self.path);
            }
        }
    }
}

/// Random characters in a temporary file's name (`.NAME.XXXXXXXX.tmp`).
const TEMPORARY_RANDOM: usize = 8;

fn temporary_prefix(path: &Path) -> String {
    format!(
        ".{}.",
        path.file_name().unwrap_or_default().to_string_lossy()
    )
}

/// Removes the temporary files a save of this state file left when its process was killed
/// (only ours can exist: we hold the lock, and every save happens under it).
fn remove_stale_temporaries(path: &Path) {
    let prefix = temporary_prefix(path);
    let Ok(entries) = std::fs::read_dir(directory_of(path)) else {
        return;
    };
    for entry in entries.flatten() {
        let name = entry.file_name().to_string_lossy().into_owned();
        let random = name
            .strip_prefix(&prefix)
            .and_then(|rest| rest.strip_suffix(".tmp"));
        if random.is_some_and(|r| {
            r.len() == TEMPORARY_RANDOM && r.chars().all(|c| c.is_ascii_alphanumeric())
        }) {
            let _ = std::fs::remove_file(entry.path());
        }
    }
}

/// The path with a symbolic link to the file followed (a save replaces the file, not the link).
fn resolve(path: &Path) -> anyhow::Result<PathBuf> {
    match std::fs::symlink_metadata(path) {
        Ok(m) if m.file_type().is_symlink() => match std::fs::canonicalize(path) {
            Ok(target) => Ok(target),
            Err(e) => bad_input!(
                "state={} is a symbolic link to nothing ({e}): remove it or give another path",
                path.display()
            ),
        },
        _ => Ok(path.to_path_buf()),
    }
}

fn directory_of(path: &Path) -> PathBuf {
    match path.parent() {
        Some(d) if !d.as_os_str().is_empty() => d.to_path_buf(),
        _ => PathBuf::from("."),
    }
}

fn open_or_create(path: &Path) -> anyhow::Result<(File, bool)> {
    let open = |create: bool| {
        OpenOptions::new()
            .read(true)
            .write(true)
            .create_new(create)
            .open(path)
    };
    match open(true) {
        Ok(f) => Ok((f, true)),
        Err(e) if e.kind() == std::io::ErrorKind::AlreadyExists => match open(false) {
            Ok(f) => Ok((f, false)),
            Err(e) => bad_input!("cannot open state={} ({e})", path.display()),
        },
        Err(e) => bad_input!("cannot create state={} ({e})", path.display()),
    }
}

/// Who holds the lock on the file `meta` describes: "pid N (command line)", from /proc/locks.
fn holder(meta: &std::fs::Metadata) -> String {
    crate::holder::flock_holder(meta.dev(), meta.ino())
        .map_or_else(|| "another process".into(), crate::holder::describe)
}

#[cfg(test)]
mod tests {
    use super::Store;
    use std::io::Write;

    #[test]
    fn a_save_given_up_keeps_the_file_it_would_replace_and_leaves_no_temporary() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("drive.sim");
        let mut store = Store::lock(&path).unwrap();
        store.replace(|w| w.write_all(b"first drive")).unwrap();
        // Given up after the first MiB: the writer stops, the old file stays.
        let calls = std::cell::Cell::new(0);
        let give_up = || {
            calls.set(calls.get() + 1);
            calls.get() > 1
        };
        let replaced = store
            .replace_unless(&give_up, |w| w.write_all(&vec![7u8; 3 << 20]))
            .unwrap();
        assert!(!replaced);
        assert_eq!(std::fs::read(&path).unwrap(), b"first drive");
        let names: Vec<String> = std::fs::read_dir(dir.path())
            .unwrap()
            .map(|e| e.unwrap().file_name().to_string_lossy().into_owned())
            .collect();
        assert_eq!(names, ["drive.sim"], "no temporary is left behind");
        // Not given up: replaced, and the file keeps its lock for the next save.
        assert!(store
            .replace_unless(&|| false, |w| w.write_all(b"second drive"))
            .unwrap());
        assert_eq!(std::fs::read(&path).unwrap(), b"second drive");
    }
}
