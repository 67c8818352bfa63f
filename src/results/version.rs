//! Schema versions of the records: a record written by a newer ssdfade (a layout this build does
//! not know) is refused with one line; a record older than its `schema_version` field is 1.

use std::path::Path;

use crate::bad_input;

/// The version of a record written before it carried one.
pub fn first() -> u32 {
    1
}

/// Refuses a record at `path` whose version `found` is newer than `supported`.
pub fn check(path: &Path, found: u32, supported: u32) -> anyhow::Result<()> {
    if found > supported {
        bad_input!(
            "{} has schema version {found}, this ssdfade reads up to version {supported}: read it with the ssdfade that wrote it",
            path.display()
        );
    }
    Ok(())
}
