//! The metrics as a file for node_exporter's textfile collector, written through
//! [`crate::outfile`]: replaced atomically (a scrape never reads half a file), never through a
//! link and never over a file ssdfade did not write there.

use std::path::Path;

use crate::outfile::Kind;

/// Refuses (bad input) a textfile path whose directory does not exist.
pub(super) fn check(path: &Path) -> anyhow::Result<()> {
    let dir = parent(path);
    if !dir.is_dir() {
        crate::bad_input!(
            "--metrics-textfile {}: directory {} does not exist; give a file in node_exporter's textfile directory (ending .prom)",
            path.display(),
            dir.display()
        );
    }
    crate::outfile::check(path, Kind::MetricsText)
}

/// Writes `text` to `path` by way of a temporary file renamed over it.
pub(super) fn replace(path: &Path, text: &str) -> anyhow::Result<()> {
    crate::outfile::write(path, Kind::MetricsText, text.as_bytes())
}

fn parent(path: &Path) -> &Path {
    match path.parent() {
        Some(p) if !p.as_os_str().is_empty() => p,
        _ => Path::new("."),
    }
}
