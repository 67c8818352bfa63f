//! The metrics as a file for node_exporter's textfile collector, replaced atomically: written
//! under a temporary name in the same directory and renamed over the old one, so a scrape never
//! reads half a file.

use std::io::Write;
use std::path::Path;

use anyhow::Context;

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
    crate::results::refuse_foreign_file(path, "--metrics-textfile", |head| {
        String::from_utf8_lossy(head).contains(" ssdfade_")
    })
}

/// Writes `text` to `path` by way of a temporary file renamed over it.
pub(super) fn replace(path: &Path, text: &str) -> anyhow::Result<()> {
    let dir = parent(path);
    let mut tmp = tempfile::Builder::new()
        .prefix(".ssdfade-metrics-")
        .suffix(".tmp")
        .tempfile_in(dir)
        .with_context(|| format!("creating a temporary file in {}", dir.display()))?;
    tmp.write_all(text.as_bytes())
        .with_context(|| format!("writing {}", tmp.path().display()))?;
    // Readable by node_exporter running as another user.
    std::fs::set_permissions(
        tmp.path(),
        std::os::unix::fs::PermissionsExt::from_mode(0o644),
    )?;
    tmp.persist(path)
        .with_context(|| format!("renaming the metrics over {}", path.display()))?;
    Ok(())
}

fn parent(path: &Path) -> &Path {
    match path.parent() {
        Some(p) if !p.as_os_str().is_empty() => p,
        _ => Path::new("."),
    }
}
