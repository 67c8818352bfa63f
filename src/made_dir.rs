//! The levels of a directory a command made for its output, so that a command that fails
//! removes what it made — every level of a nested `--out a/b/c` — and never a folder that was
//! there before it (used by output sets, run and experiment directories).

use std::path::{Path, PathBuf};

/// The levels of a directory a command made, outermost first: what it may remove again when
/// it fails, and nothing that existed before it.
#[derive(Debug, Default)]
pub struct MadeDirectory(Vec<PathBuf>);

impl MadeDirectory {
    /// Makes `dir` and every missing level above it, remembering the levels made.
    pub fn make(dir: &Path) -> std::io::Result<MadeDirectory> {
        let missing: Vec<&Path> = dir
            .ancestors()
            .take_while(|level| {
                !level.as_os_str().is_empty() && std::fs::symlink_metadata(level).is_err()
            })
            .collect();
        let mut made = MadeDirectory::default();
        for level in missing.into_iter().rev() {
            match std::fs::create_dir(level) {
                Ok(()) => made.0.push(level.to_path_buf()),
                Err(e) if e.kind() == std::io::ErrorKind::AlreadyExists => {}
                Err(e) => {
                    made.remove_empty();
                    return Err(e);
                }
            }
        }
        Ok(made)
    }

    /// Makes the one level `dir` (its parent there), failing when it exists: a new name taken.
    pub fn make_new(&mut self, dir: &Path) -> std::io::Result<()> {
        std::fs::create_dir(dir)?;
        self.0.push(dir.to_path_buf());
        Ok(())
    }

    /// Removes the levels made, innermost first, each only while empty: a file anyone put
    /// there keeps its folder.
    pub fn remove_empty(&self) {
        for level in self.0.iter().rev() {
            if std::fs::remove_dir(level).is_err() {
                return;
            }
        }
    }
}
