//! The one way an output file reaches disk — reports, charts, comparisons, exports, man pages,
//! the metrics textfile and twin files:
//! never through a symbolic link, never over a file ssdfade did not write, and never half
//! written.
//!
//! A file is written into a temporary file beside it (created new, not following links),
//! flushed to disk and renamed over the old one, so a full disk or a crash leaves the old file
//! or none, never a truncated one, and the temporary file is removed on failure. An existing
//! file is replaced only when it is a regular file, empty or carrying the mark of the same [`Kind`]
//! of output (a report's title, a chart's provenance, an export's header): a planted link, a
//! record (run.json, samples.jsonl…) or anyone else's file is refused as bad input, before
//! anything is written. An output directory named on the command line must not be a link, and
//! one the tool may not write into (permissions, a read-only file system) is bad input too.
//! Text read as it is (reports, SVG charts, CSV tables, man pages) is written terminal-safe:
//! a control character from a record or a command line (an escape sequence in a drive's model,
//! a run's folder name) reaches the file as its visible escape, never raw.

use std::fs::{File, OpenOptions};
use std::io::{Read, Write};
use std::os::unix::fs::OpenOptionsExt;
use std::path::{Path, PathBuf};

use anyhow::Context;

use crate::made_dir::MadeDirectory;

/// What an output file is, and so how its earlier version is recognised as the tool's own.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Kind {
    /// A report or comparison in Markdown (titled `# ssdfade …`).
    Markdown,
    /// A report or comparison in HTML (titled `ssdfade …`).
    Html,
    /// A PNG chart (provenance text chunk `Software: ssdfade …`).
    Png,
    /// An SVG chart (provenance `<software>ssdfade …`).
    Svg,
    /// `export --format csv` (its header of sample columns).
    ExportCsv,
    /// `export --format jsonl` (flat rows with `lat_mean_us`).
    ExportJsonl,
    /// A man page (`.TH` naming ssdfade).
    ManPage,
    /// What a chart drew, beside it (`"format":"ssdfade-chart/1"`).
    ChartRecord,
    /// `--metrics-textfile` (Prometheus exposition text of `ssdfade_` metrics).
    MetricsText,
    /// A simulated twin from `sim fit -o` (its first-line comment).
    TwinFile,
    /// `fleet`'s fleet.csv (its header `row,model,firmware,serial,…`).
    FleetCsv,
    /// `export --hdr-log`: a run's latency.hlog (its first line `#ssdfade latency log`).
    HdrLog,
}

/// The records a run, experiment or group directory holds: never an output, whatever they
/// contain.
const RECORDS: [&str; 12] = [
    "run.json",
    "samples.jsonl",
    "latency.json",
    "latency.hlog",
    "experiment.json",
    "erase.json",
    "slog.json",
    "sweep.json",
    "group.json",
    "plp.json",
    "verify.map",
    ".space-reserve",
];

/// How much of an existing file is read to recognise it.
const HEAD: u64 = 8192;

impl Kind {
    /// Whether `head`, the start of an existing file, is this kind of output as ssdfade
    /// writes it.
    fn recognises(self, head: &[u8]) -> bool {
        let text = String::from_utf8_lossy(head);
        let first_line = text.lines().next().unwrap_or("");
        match self {
            Kind::Markdown => first_line.starts_with("# ssdfade "),
            Kind::Html => text.starts_with("<!DOCTYPE html>") && text.contains("<title>ssdfade "),
            Kind::Png => head.starts_with(b"\x89PNG\r\n\x1a\n") && contains(head, b"ssdfade "),
            Kind::Svg => text.contains("<svg") && text.contains("<software>ssdfade "),
            Kind::ExportCsv => first_line.contains("t_start_s,t_end_s,ops,bytes,iops"),
            Kind::ExportJsonl => {
                first_line.starts_with('{')
                    && first_line.contains("\"t_start_s\":")
                    && first_line.contains("\"lat_mean_us\":")
            }
            Kind::ManPage => text.contains(".TH ") && text.contains("ssdfade"),
            Kind::ChartRecord => text.starts_with("{\"format\":\"ssdfade-chart/"),
            Kind::MetricsText => text.starts_with('#') && text.contains(" ssdfade_"),
            Kind::TwinFile => {
                first_line.starts_with("# A simulated twin written by `ssdfade sim fit`")
            }
            Kind::FleetCsv => first_line.starts_with("row,model,firmware,serial,host,dir,"),
            Kind::HdrLog => first_line == crate::results::hlog::FIRST_LINE,
        }
    }

    /// Whether this kind is text a person reads as it is (`cat`, a browser, a spreadsheet),
    /// where a raw control character would act on a terminal or break the format; the JSON,
    /// TOML and Prometheus kinds quote their strings in their own syntax.
    fn read_as_is(self) -> bool {
        matches!(
            self,
            Kind::Markdown
                | Kind::Html
                | Kind::Svg
                | Kind::ExportCsv
                | Kind::FleetCsv
                | Kind::ManPage
        )
    }

    /// The kind's name in a refusal.
    fn name(self) -> &'static str {
        match self {
            Kind::Markdown => "Markdown report",
            Kind::Html => "HTML report",
            Kind::Png => "PNG chart",
            Kind::Svg => "SVG chart",
            Kind::ExportCsv => "CSV export",
            Kind::ExportJsonl => "JSON-lines export",
            Kind::ManPage => "man page",
            Kind::ChartRecord => "chart record",
            Kind::MetricsText => "metrics textfile",
            Kind::TwinFile => "twin file",
            Kind::FleetCsv => "fleet CSV",
            Kind::HdrLog => "HdrHistogram log",
        }
    }
}

fn contains(haystack: &[u8], needle: &[u8]) -> bool {
    haystack.windows(needle.len()).any(|w| w == needle)
}

/// Refuses (bad input) unless `path` may receive a new `kind` of output: it does not exist,
/// or it is a regular file that is empty or this tool wrote as the same kind. Nothing is
/// written.
pub fn check(path: &Path, kind: Kind) -> anyhow::Result<()> {
    let name = path.file_name().and_then(|n| n.to_str()).unwrap_or("");
    if name.is_empty() || path.as_os_str().to_string_lossy().ends_with('/') {
        crate::bad_input!(
            "{} names a directory, not a file: give a file name for the {}",
            path.display(),
            kind.name()
        );
    }
    if RECORDS.contains(&name) {
        crate::bad_input!(
            "{} is a record ssdfade reads, not an output: choose another file name",
            path.display()
        );
    }
    let meta = match std::fs::symlink_metadata(path) {
        Ok(meta) => meta,
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => return Ok(()),
        Err(e) => {
            crate::bad_input!("cannot look at {}: {e}", path.display());
        }
    };
    if meta.file_type().is_symlink() {
        crate::bad_input!(
            "{} is a symbolic link, which ssdfade never writes through: remove it or choose another path",
            path.display()
        );
    }
    if !meta.file_type().is_file() {
        crate::bad_input!(
            "{} exists and is not a regular file: choose another path for the {}",
            path.display(),
            kind.name()
        );
    }
    let mut head = Vec::new();
    open_no_follow(path)
        .and_then(|f| f.take(HEAD).read_to_end(&mut head))
        .with_context(|| format!("cannot read {}", path.display()))?;
    if !head.is_empty() && !kind.recognises(&head) {
        crate::bad_input!(
            "{} exists and is not a {} ssdfade wrote: move it away or choose another path",
            path.display(),
            kind.name()
        );
    }
    Ok(())
}

fn open_no_follow(path: &Path) -> std::io::Result<File> {
    OpenOptions::new()
        .read(true)
        .custom_flags(libc::O_NOFOLLOW)
        .open(path)
}

/// Writes a set of files into the output directory `dir` named on the command line: `dir` is
/// refused (bad input) when it is a symbolic link or not a directory and made when missing;
/// `write`'s files land as one set ([`as_one_set`]). A failure (a full disk, a signal) removes
/// the levels of `dir` this call made, empty then, so it leaves no folder behind — and never
/// one that was there before.
pub fn set_in_directory<T>(
    dir: &Path,
    write: impl FnOnce() -> anyhow::Result<T>,
) -> anyhow::Result<T> {
    let made = match std::fs::symlink_metadata(dir) {
        Ok(meta) if meta.file_type().is_symlink() => crate::bad_input!(
            "the output directory {} is a symbolic link, which ssdfade never writes through: name the real directory",
            dir.display()
        ),
        Ok(meta) if !meta.is_dir() => crate::bad_input!(
            "the output directory {} exists and is not a directory: choose another path",
            dir.display()
        ),
        Ok(_) => MadeDirectory::default(),
        Err(_) => match MadeDirectory::make(dir) {
            Ok(made) => made,
            Err(e) => crate::bad_input!(
                "cannot create the output directory {}: {e}: choose a directory you can write",
                dir.display()
            ),
        },
    };
    let written = as_one_set(write);
    if written.is_err() {
        made.remove_empty();
    }
    written
}

/// Writes `bytes` to `path` as a `kind` of output (see the module doc).
pub fn write(path: &Path, kind: Kind, bytes: &[u8]) -> anyhow::Result<()> {
    check(path, kind)?;
    let safe;
    let bytes = if kind.read_as_is() {
        safe = crate::console::visible(&String::from_utf8_lossy(bytes)).into_owned();
        safe.as_bytes()
    } else {
        bytes
    };
    let tmp = temporary(path);
    unstage(path);
    let created = OpenOptions::new()
        .write(true)
        .create_new(true)
        .custom_flags(libc::O_NOFOLLOW)
        .open(&tmp);
    if let Err(e) = &created {
        if matches!(
            e.raw_os_error(),
            Some(libc::EACCES | libc::EPERM | libc::EROFS | libc::ENOENT | libc::ENOTDIR)
        ) {
            let dir = match path.parent() {
                Some(p) if !p.as_os_str().is_empty() => p,
                _ => Path::new("."),
            };
            crate::bad_input!(
                "cannot write the {} {} ({}): make {} writable, or copy it somewhere writable and run there",
                kind.name(),
                path.display(),
                crate::error::io_words(e),
                dir.display()
            );
        }
    }
    let written = created
        .and_then(|mut f| {
            f.write_all(bytes)?;
            f.sync_all()
        })
        .and_then(|()| {
            if staged(&tmp, path) {
                Ok(())
            } else {
                std::fs::rename(&tmp, path)
            }
        });
    if let Err(e) = written {
        let _ = std::fs::remove_file(&tmp);
        return Err(e).with_context(|| format!("cannot write {}", path.display()));
    }
    Ok(())
}

thread_local! {
    /// The files of the set being written by [`as_one_set`]: each temporary and its path.
    static SET: std::cell::RefCell<Option<Vec<(PathBuf, PathBuf)>>> =
        const { std::cell::RefCell::new(None) };
}

/// Keeps `tmp`, written whole, to be renamed to `path` when its set is complete; false when
/// no set is being written (then it is renamed at once).
fn staged(tmp: &Path, path: &Path) -> bool {
    SET.with(|set| match set.borrow_mut().as_mut() {
        Some(files) => {
            files.push((tmp.to_path_buf(), path.to_path_buf()));
            true
        }
        None => false,
    })
}

/// Drops an earlier version of `path` written in the set being written (a chart's record,
/// written with its PNG and again with its SVG): the later one lands.
fn unstage(path: &Path) {
    SET.with(|set| {
        if let Some(files) = set.borrow_mut().as_mut() {
            files.retain(|(tmp, staged)| {
                let earlier = staged == path;
                if earlier {
                    let _ = std::fs::remove_file(tmp);
                }
                !earlier
            });
        }
    });
}

/// Runs `write`, whose files ([`write`] of each) land as one set: every one is written whole
/// under its temporary name and all are renamed only once `write` succeeded, so a failure (a
/// full disk half-way through a fleet's charts) removes the temporaries and leaves the
/// previous set, or nothing, never some old files beside some new.
pub fn as_one_set<T>(write: impl FnOnce() -> anyhow::Result<T>) -> anyhow::Result<T> {
    let outer = SET.with(|set| set.borrow_mut().replace(Vec::new()));
    let result = write();
    let files = SET.with(|set| std::mem::replace(&mut *set.borrow_mut(), outer));
    let files = files.unwrap_or_default();
    let result = result.and_then(|value| {
        for (tmp, path) in &files {
            if staged(tmp, path) {
                continue;
            }
            std::fs::rename(tmp, path)
                .with_context(|| format!("cannot write {}", path.display()))?;
        }
        Ok(value)
    });
    if result.is_err() {
        for (tmp, _) in &files {
            let _ = std::fs::remove_file(tmp);
        }
    }
    result
}

/// The temporary file beside `path` a new version is written into.
fn temporary(path: &Path) -> PathBuf {
    let name = path.file_name().unwrap_or_default().to_string_lossy();
    path.with_file_name(format!(".{name}.{}.partial", std::process::id()))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_file_of_the_same_kind_is_replaced_and_anything_else_refused() {
        let dir = tempfile::tempdir().unwrap();
        let md = dir.path().join("notes.md");
        write(&md, Kind::Markdown, b"# ssdfade report: one\n").unwrap();
        write(&md, Kind::Markdown, b"# ssdfade report: two\n").unwrap();
        assert_eq!(std::fs::read(&md).unwrap(), b"# ssdfade report: two\n");
        let theirs = dir.path().join("theirs.csv");
        std::fs::write(&theirs, "a,b\n1,2\n").unwrap();
        let err = write(&theirs, Kind::ExportCsv, b"x").unwrap_err();
        assert!(err.downcast_ref::<crate::error::BadInput>().is_some());
        assert_eq!(std::fs::read(&theirs).unwrap(), b"a,b\n1,2\n");
        let record = dir.path().join("samples.jsonl");
        assert!(write(&record, Kind::ExportJsonl, b"{}").is_err());
        assert!(!record.exists());
        let names: Vec<_> = std::fs::read_dir(dir.path()).unwrap().collect();
        assert_eq!(names.len(), 2, "no temporary file is left behind");
    }

    #[test]
    fn text_read_as_it_is_reaches_the_file_without_control_characters() {
        let dir = tempfile::tempdir().unwrap();
        let csv = dir.path().join("fleet.csv");
        let row = "row,model,firmware,serial,host,dir,\n1,M\x1b[2J\x07,F,S,h,d\n";
        write(&csv, Kind::FleetCsv, row.as_bytes()).unwrap();
        let text = std::fs::read_to_string(&csv).unwrap();
        assert!(!text.contains('\x1b') && !text.contains('\x07'), "{text:?}");
        assert!(text.contains("M\\u{1b}[2J\\u{7}"), "{text:?}");
    }

    #[test]
    fn a_link_is_never_written_through() {
        let dir = tempfile::tempdir().unwrap();
        let outside = dir.path().join("outside");
        std::fs::write(&outside, "# ssdfade report: planted\n").unwrap();
        let link = dir.path().join("report.md");
        std::os::unix::fs::symlink(&outside, &link).unwrap();
        assert!(write(&link, Kind::Markdown, b"# ssdfade report\n").is_err());
        assert_eq!(
            std::fs::read(&outside).unwrap(),
            b"# ssdfade report: planted\n"
        );
        let linked_dir = dir.path().join("etc-link");
        std::os::unix::fs::symlink(dir.path(), &linked_dir).unwrap();
        assert!(set_in_directory(&linked_dir, || Ok(())).is_err());
    }

    /// A set that fails at its second file leaves the first file's previous version and no
    /// temporary file; a set that succeeds replaces both.
    #[test]
    fn a_set_lands_whole_or_leaves_the_previous_set() {
        let dir = tempfile::tempdir().unwrap();
        let (md, html) = (dir.path().join("a.md"), dir.path().join("a.html"));
        std::fs::write(&md, "# ssdfade old\n").unwrap();
        std::fs::write(&html, "not the tool's").unwrap();
        let failed = as_one_set(|| {
            write(&md, Kind::Markdown, b"# ssdfade new\n")?;
            write(&html, Kind::Html, b"<title>ssdfade new</title>")
        });
        assert!(failed.is_err());
        assert_eq!(std::fs::read(&md).unwrap(), b"# ssdfade old\n");
        assert_eq!(std::fs::read_dir(dir.path()).unwrap().count(), 2);
        std::fs::remove_file(&html).unwrap();
        as_one_set(|| {
            write(&md, Kind::Markdown, b"# ssdfade first\n")?;
            write(&html, Kind::Html, b"<title>ssdfade new</title>")?;
            write(&md, Kind::Markdown, b"# ssdfade new\n")
        })
        .unwrap();
        assert_eq!(std::fs::read(&md).unwrap(), b"# ssdfade new\n");
        assert_eq!(std::fs::read_dir(dir.path()).unwrap().count(), 2);
    }

    /// A failed set removes the levels of its folder it made, and only those: a folder that
    /// was there before stays, and so does one that holds a file.
    #[test]
    fn a_failed_set_removes_only_the_folders_it_made() {
        let dir = tempfile::tempdir().unwrap();
        let existing = dir.path().join("existing");
        std::fs::create_dir(&existing).unwrap();
        let deep = existing.join("new/deeper");
        let failed = set_in_directory(&deep, || -> anyhow::Result<()> {
            write(&deep.join("a.md"), Kind::Markdown, b"# ssdfade a\n")?;
            anyhow::bail!("the disk is full")
        });
        assert!(failed.is_err());
        assert!(existing.is_dir() && !existing.join("new").exists());
        assert!(set_in_directory(&existing, || -> anyhow::Result<()> {
            anyhow::bail!("again")
        })
        .is_err());
        assert!(
            existing.is_dir(),
            "a folder that was there before is never removed"
        );
        let kept = dir.path().join("kept");
        let failed = set_in_directory(&kept, || -> anyhow::Result<()> {
            std::fs::write(kept.join("theirs"), "x")?;
            anyhow::bail!("failed after someone wrote beside")
        });
        assert!(failed.is_err() && kept.join("theirs").exists());
        set_in_directory(&deep, || {
            write(&deep.join("a.md"), Kind::Markdown, b"# ssdfade a\n")
        })
        .unwrap();
        assert!(deep.join("a.md").is_file());
    }
}
