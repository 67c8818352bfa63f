//! `ssdfade runs [DIR]`: one line per run or erase directory, with how it ended.

use std::time::Duration;

use crate::cli::RunsArgs;
use crate::results::list_runs;
use crate::units::format_duration;

pub fn run(args: &RunsArgs) -> anyhow::Result<()> {
    for line in crate::slog::baseline::remove_leftovers() {
        crate::note!("ssdfade runs: {line}");
    }
    let runs = list_runs(&args.dir)?;
    if args.json {
        crate::outln!("{}", serde_json::to_string_pretty(&runs)?)?;
        return Ok(());
    }
    if runs.is_empty() {
        crate::outln!("no runs under {}", args.dir.display())?;
        return Ok(());
    }
    crate::outln!(
        "{:<11} {:<9} {:<20} {:>8} {:>8}  directory",
        "status",
        "command",
        "target",
        "ran",
        "IOPS"
    )?;
    for r in &runs {
        let dir = r.dir.strip_prefix(&args.dir).unwrap_or(&r.dir);
        let dir = if dir.as_os_str().is_empty() {
            r.dir.as_path()
        } else {
            dir
        };
        let row = format!(
            "{:<11} {:<9} {:<20} {:>8} {:>8}",
            r.status,
            clip(&r.command, 9),
            clip(&r.target, 20),
            r.seconds
                .map(|s| format_duration(Duration::from_secs_f64(s.max(0.0))))
                .unwrap_or_else(|| "-".into()),
            r.iops
                .map(|v| format!("{v:.0}"))
                .unwrap_or_else(|| "-".into()),
        );
        let dir = dir.display().to_string();
        // The directory is what the reader copies: whole, on a line of its own when the row
        // would run past 80 columns.
        if row.chars().count() + 2 + dir.chars().count() <= 80 {
            crate::outln!("{row}  {dir}")?;
        } else {
            crate::outln!("{row}\n{:12}{dir}", "")?;
        }
        if let Some(note) = &r.note {
            let indent = " ".repeat(12);
            crate::out!("{}", crate::text::wrap(note, 80, &indent, &indent))?;
        }
    }
    Ok(())
}

/// Shortens `s` to `width` characters, keeping its end (device names differ at the end).
fn clip(s: &str, width: usize) -> String {
    let n = s.chars().count();
    if n <= width {
        s.to_string()
    } else {
        let tail: String = s.chars().skip(n - (width - 1)).collect();
        format!("…{tail}")
    }
}
