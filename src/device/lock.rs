//! One run per target file: the run holds an exclusive `flock` on its target for as long as the
//! target is open, and a second run is refused naming the process that holds it (from
//! /proc/locks), so two runs never share a file and report each other's numbers.

use std::fs::File;
use std::path::Path;

use crate::bad_input;

/// Takes an exclusive lock on `file` (the target at `path`) without waiting; refuses with exit 2
/// naming the holder when another process has it. The lock lasts as long as `file` is open.
pub fn lock_for_run(file: &File, path: &Path) -> anyhow::Result<()> {
    let holder = match crate::holder::flock_exclusive(file) {
        Ok(None) => return Ok(()),
        Ok(Some(holder)) => holder,
        Err(err) => bad_input!("cannot lock {} for the run: {err}", path.display()),
    };
    bad_input!(
        "{} is in use: its lock is held by {holder}; wait for it to end or stop it",
        path.display()
    )
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_second_lock_on_the_same_file_names_this_process() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("t.img");
        let first = File::create(&path).unwrap();
        lock_for_run(&first, &path).unwrap();
        let second = File::open(&path).unwrap();
        let err = lock_for_run(&second, &path).unwrap_err();
        assert_eq!(crate::error::exit_code(&err), 2);
        let text = err.to_string();
        assert!(text.contains("this ssdfade command itself"), "{text}");
        drop(first);
        lock_for_run(&second, &path).unwrap();
    }
}
