//! The names a record gives to files of its own directory (a phase's subdirectory, the
//! experiment's simulated drive, a group member's experiment): checked when the record is read,
//! so that no edited or crafted record can make the tool write or delete outside the directory
//! it was given. A name is relative, made of plain components (no `..`, no root), and no part
//! of it that exists is a symbolic link.

use std::path::{Component, Path};

use crate::bad_input;

/// `text` with every path of a file inside `dir` named by its path within it: how the records
/// of an experiment name the experiment's own files (`sim:vertex2-60g,state=/x/e/drive.sim`
/// becomes `sim:vertex2-60g,state=drive.sim`), so that the directory can be moved or copied.
pub fn name_within(text: &str, dir: &Path) -> String {
    let prefix = format!("{}/", dir.display());
    text.replace(&prefix, "")
}

/// Every string in `value` (a record about to be written) named as by [`name_within`].
pub fn value_within(value: &mut serde_json::Value, dir: &Path) {
    use serde_json::Value;
    match value {
        Value::String(s) if s.contains(&*dir.to_string_lossy()) => *s = name_within(s, dir),
        Value::Array(items) => items.iter_mut().for_each(|v| value_within(v, dir)),
        Value::Object(map) => map.values_mut().for_each(|v| value_within(v, dir)),
        _ => {}
    }
}

/// Refuses `name` (the value of `field` in the record at `record`, which lives in `dir`) unless
/// it names something inside `dir` without leaving it.
pub fn check_own(dir: &Path, record: &Path, field: &str, name: &str) -> anyhow::Result<()> {
    let path = Path::new(name);
    let plain = !name.is_empty() && path.components().all(|c| matches!(c, Component::Normal(_)));
    if !plain {
        bad_input!(
            "{}: {field} is {name:?}, not a name inside the directory: a record names its own files relatively, without `..` (the record was edited or is damaged)",
            record.display()
        );
    }
    let mut at = dir.to_path_buf();
    for part in path.components() {
        at.push(part);
        if at
            .symlink_metadata()
            .is_ok_and(|m| m.file_type().is_symlink())
        {
            bad_input!(
                "{}: {field} {name:?} goes through the symbolic link {}, which the tool does not follow: replace the link with the directory or file itself",
                record.display(),
                at.display()
            );
        }
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn names_inside_pass_and_names_that_leave_are_refused() {
        let dir = tempfile::tempdir().unwrap();
        let record = dir.path().join("experiment.json");
        for ok in ["01-in-service", "drive.sim", "a/b"] {
            assert!(check_own(dir.path(), &record, "dir", ok).is_ok(), "{ok}");
        }
        for bad in ["", "..", "../x", "a/../../x", "/etc", "./x"] {
            let e = check_own(dir.path(), &record, "dir", bad).unwrap_err();
            assert!(e.to_string().contains("not a name inside"), "{bad}: {e}");
        }
        std::os::unix::fs::symlink("/tmp", dir.path().join("link")).unwrap();
        let e = check_own(dir.path(), &record, "dir", "link/x").unwrap_err();
        assert!(e.to_string().contains("symbolic link"), "{e}");
    }
}
