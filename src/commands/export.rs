//! `ssdfade export DIR [--format csv|jsonl] [--out FILE]`: the samples as one table, built by
//! [`crate::output::export`], printed or written to a file; `--hdr-log FILE`: the run's
//! latency.hlog (HdrHistogram interval log) written to FILE.

use crate::cli::ExportArgs;
use crate::output::export;

pub fn run(args: &ExportArgs) -> anyhow::Result<()> {
    // A signal ends it as interrupted (exit 130), nothing more drawn (see `plot::Chart::write`).
    crate::run::install_signal_flag()?;
    if let Some(path) = &args.hdr_log {
        return hdr_log(&args.dir, path);
    }
    let table = export::table(&args.dir)?;
    let mut bytes = Vec::new();
    export::write(&table, args.format, &mut bytes)?;
    match &args.out {
        Some(path) => {
            let kind = match args.format {
                export::Format::Csv => crate::outfile::Kind::ExportCsv,
                export::Format::Jsonl => crate::outfile::Kind::ExportJsonl,
            };
            crate::outfile::write(path, kind, &bytes)?;
            crate::note!(
                "wrote {} rows of {} to {}",
                table.rows.len(),
                args.dir.display(),
                path.display()
            );
            Ok(())
        }
        None => crate::out!("{}", String::from_utf8_lossy(&bytes)),
    }
}

/// The run directories directly inside `dir` (an experiment's phases, a group's members) that
/// hold a latency log, in name order.
fn runs_within(dir: &std::path::Path) -> Vec<std::path::PathBuf> {
    let mut runs: Vec<_> = std::fs::read_dir(dir)
        .into_iter()
        .flatten()
        .filter_map(|e| Some(e.ok()?.path()))
        .filter(|p| p.join(crate::results::hlog::FILE).is_file())
        .collect();
    runs.sort();
    runs
}

/// `runs` for a one-line message: the first few, and how many more.
fn shown(runs: &[std::path::PathBuf]) -> String {
    const SHOWN: usize = 4;
    let names: Vec<String> = runs
        .iter()
        .take(SHOWN)
        .map(|p| p.display().to_string())
        .collect();
    match runs.len().checked_sub(SHOWN).filter(|&n| n > 0) {
        Some(more) => format!("{} and {more} more", names.join(", ")),
        None => names.join(", "),
    }
}

/// Writes run directory `dir`'s latency.hlog to `path`, after checking every interval reads.
fn hdr_log(dir: &std::path::Path, path: &std::path::Path) -> anyhow::Result<()> {
    use hdrhistogram::serialization::interval_log::{IntervalLogIterator, LogEntry};
    let source = dir.join(crate::results::hlog::FILE);
    let bytes = match std::fs::read(&source) {
        Ok(bytes) => bytes,
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => {
            let runs = runs_within(dir);
            if !runs.is_empty() {
                crate::bad_input!(
                    "{} holds {} runs: --hdr-log exports one run's log; name one of its run directories: {}",
                    dir.display(),
                    runs.len(),
                    shown(&runs)
                )
            }
            crate::bad_input!(
                "{} has no {}: --hdr-log takes a run directory recorded by this version",
                dir.display(),
                crate::results::hlog::FILE
            )
        }
        Err(e) => crate::bad_input!("cannot read {}: {e}", source.display()),
    };
    let mut intervals = 0;
    let mut last_start = std::time::Duration::ZERO;
    for entry in IntervalLogIterator::new(&bytes) {
        match entry {
            // A mixed run's tagged lines (reads, writes) are the same intervals again.
            Ok(LogEntry::Interval(i)) if i.tag().is_some() => {}
            Ok(LogEntry::Interval(i)) if i.start_timestamp() < last_start => crate::bad_input!(
                "{} is damaged (an interval starts before the one above it): it cannot be exported",
                source.display()
            ),
            Ok(LogEntry::Interval(i)) => {
                last_start = i.start_timestamp();
                intervals += 1;
            }
            Ok(_) => {}
            Err(_) => crate::bad_input!(
                "{} is damaged (a line is not an interval of the HdrHistogram log format): it cannot be exported",
                source.display()
            ),
        }
    }
    if intervals == 0 {
        crate::bad_input!(
            "{} holds no interval: it cannot be exported (the run recorded none, or the file was emptied)",
            source.display()
        );
    }
    crate::outfile::write(path, crate::outfile::Kind::HdrLog, &bytes)?;
    crate::note!(
        "wrote {intervals} intervals of {} to {}",
        dir.display(),
        path.display()
    );
    Ok(())
}
