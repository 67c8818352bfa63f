//! The table printed at the end of a group: one row per target, side by side.

use super::GroupOutcome;
use crate::analysis::thermal::Thermal;
use crate::analysis::Pace;
use crate::units::{format_gb, format_latency_us};

/// The two lines above the table: what every target ran (the first finished member's record),
/// and the engine, or each member's when they differ (a simulated drive beside a real one).
pub fn headline(group: &GroupOutcome) -> Option<String> {
    let o = group.members.iter().find_map(|m| m.result.as_ref().ok())?;
    let w = &o.info.workload;
    let trim = if w.trim_pct > 0 {
        format!("{} % trim, ", w.trim_pct)
    } else {
        String::new()
    };
    Some(format!(
        "{} of {} targets, {}\n  {} transfers, {} % read, {trim}{} % random, {}QD {}, {} data",
        o.info.command,
        group.members.len(),
        engines(group),
        crate::results::transfer_text(w.bs, w.bssplit.as_ref()),
        w.read_pct,
        w.random_pct,
        crate::workload::jobs_prefix(w.jobs),
        w.qd,
        w.pattern
    ))
}

/// "uring engine" when every finished member ran the same engine, else each member's:
/// "engines: uring (a.img), sim (sim:vertex2-60g)".
fn engines(group: &GroupOutcome) -> String {
    let ran: Vec<(&str, &str)> = group
        .members
        .iter()
        .filter_map(|m| {
            Some((
                m.target.as_str(),
                m.result.as_ref().ok()?.info.engine.as_str(),
            ))
        })
        .collect();
    match ran.split_first() {
        Some(((_, first), rest)) if rest.iter().all(|(_, e)| e == first) => {
            format!("{first} engine")
        }
        _ => {
            let each: Vec<String> = ran.iter().map(|(t, e)| format!("{e} ({t})")).collect();
            format!("engines: {}", each.join(", "))
        }
    }
}

/// Target, status, IOPS, MB/s, mean and p99 latency, errors and GB written per member (and
/// the trims, when a member trimmed), each figure rendered as the member's own report renders
/// it (MB/s with two decimals, latency by `units::format_latency_us`). Under a pace, a line per
/// member says whether it met it (one that fell behind completed, but not at the pace); a
/// member whose drive reported a temperature gets the "Heat" line its own run prints.
pub fn table(group: &GroupOutcome) -> String {
    let trims = group
        .members
        .iter()
        .any(|m| m.result.as_ref().is_ok_and(|o| o.summary.trim.is_some()));
    let mut head = vec![
        "Target", "Status", "IOPS", "MB/s", "Avg lat", "p99 lat", "Errors", "Written",
    ];
    if trims {
        head.push("Trims");
    }
    let mut rows = vec![head.into_iter().map(String::from).collect::<Vec<_>>()];
    let mut notes = Vec::new();
    for m in &group.members {
        let mut row = vec!["-".to_string(); rows[0].len()];
        row[0] = m.target.clone();
        row[1] = m.status().to_string();
        if let Ok(o) = &m.result {
            let s = &o.summary;
            row[2] = crate::units::format_count(s.iops);
            row[3] = format!("{:.2}", s.mb_per_s);
            if let Some(lat) = &s.lat_us {
                row[4] = format_latency_us(lat.mean);
                row[5] = format_latency_us(lat.p99);
            }
            row[6] = s.errors.to_string();
            let samples = crate::results::read_samples(&o.dir).unwrap_or_default();
            let written = samples.last().map_or(0, |l| l.bytes_written_total);
            row[7] = format_gb(written);
            if let Some(trim) = &s.trim {
                row[8] = trim.ops.to_string();
            }
            let pace = Pace::of_summary(&o.info, s);
            if let Some(p) = &pace {
                notes.push(format!("  {}: {}\n", m.target, p.words()));
            }
            // As a single run: a run that met its pace has no heat of its own to report.
            let heat = Thermal::of(&samples).filter(|_| !pace.is_some_and(|p| p.met));
            if let Some(heat) = heat {
                notes.push(heat_line(&m.target, &heat.words()));
            }
        }
        rows.push(row);
    }
    render(&rows, 2) + &notes.concat()
}

/// A member's heat under the table: "  TARGET: Heat: words", the target shortened in the
/// middle so that the line fits 80 columns (down to 12 characters of it).
fn heat_line(target: &str, words: &str) -> String {
    let rest = format!(": Heat: {words}");
    let room = TABLE_COLUMNS.saturating_sub(2 + rest.chars().count());
    format!("  {}{rest}\n", shorten_middle(target, room.max(MIN_FIRST)))
}

/// The width a table's line fits: a terminal's 80 columns.
const TABLE_COLUMNS: usize = 80;

/// The narrowest the first column (the target) is shortened to.
const MIN_FIRST: usize = 12;

/// Rows as aligned columns: the first `left` columns left-aligned, the rest right-aligned.
/// When a line would pass 80 columns the first column (the target) is narrowed, its long
/// cells shortened in the middle with "…" (down to 12 characters).
pub(super) fn render<R: AsRef<[String]>>(rows: &[R], left: usize) -> String {
    let columns = rows.first().map_or(0, |r| r.as_ref().len());
    let mut widths: Vec<usize> = (0..columns)
        .map(|c| {
            rows.iter()
                .map(|r| r.as_ref()[c].chars().count())
                .max()
                .unwrap_or(0)
        })
        .collect();
    let line_width = 1 + widths.iter().map(|w| w + 1).sum::<usize>();
    if let Some(first) = widths.first_mut() {
        let over = line_width.saturating_sub(TABLE_COLUMNS);
        *first = (*first).saturating_sub(over).max(MIN_FIRST.min(*first));
    }
    let mut out = String::new();
    for row in rows {
        let mut line = String::from(" ");
        for (c, cell) in row.as_ref().iter().enumerate() {
            let shortened;
            let cell = if c == 0 {
                shortened = shorten_middle(cell, widths[0]);
                &shortened
            } else {
                cell
            };
            let pad = widths[c] - cell.chars().count();
            if c < left {
                line.push_str(&format!(" {cell}{}", " ".repeat(pad)));
            } else {
                line.push_str(&format!(" {}{cell}", " ".repeat(pad)));
            }
        }
        out.push_str(line.trim_end());
        out.push('\n');
    }
    out
}

/// `cell` in at most `width` characters: its start and end kept, the middle replaced by "…".
fn shorten_middle(cell: &str, width: usize) -> String {
    let n = cell.chars().count();
    if n <= width || width == 0 {
        return cell.to_string();
    }
    let head = (width - 1) / 2;
    let tail = width - 1 - head;
    let chars: Vec<char> = cell.chars().collect();
    let mut out: String = chars[..head].iter().collect();
    out.push('…');
    out.extend(&chars[n - tail..]);
    out
}

#[cfg(test)]
mod tests {
    use super::{heat_line, render};

    /// A member's heat line keeps 80 columns with a long target, naming both of its ends and
    /// the whole of the words.
    #[test]
    fn a_long_targets_heat_line_fits_80_columns() {
        let target = "sim:nvme-tlc-1t,scale=16,thermal=m2,serial=A-VERY-LONG-SERIAL-NUMBER";
        let words = "throttled for 3 min above 70 °C (TMT1 ×3)";
        let line = heat_line(target, words);
        assert_eq!(line.trim_end().chars().count(), 80, "{line}");
        assert!(
            line.starts_with("  sim:nvme") && line.contains("-NUMBER: Heat: "),
            "{line}"
        );
        assert!(line.ends_with(&format!("{words}\n")), "{line}");
        assert_eq!(heat_line("a.img", "x"), "  a.img: Heat: x\n");
    }

    /// A target name of 40 characters in a group's soak table: every line fits 80 columns,
    /// the name kept at both ends (the table was 84 wide with a 24-character name).
    #[test]
    fn a_long_target_is_shortened_to_fit_80_columns() {
        let target = "/dev/disk/by-id/nvme-Samsung_SSD_970_EVO";
        let rows = [
            [
                "Target", "Status", "IOPS", "MB/s", "Avg lat", "p99 lat", "Errors", "Written",
            ],
            [
                target,
                "done",
                "123456",
                "482.25",
                "1234.5 µs",
                "42.72 ms",
                "0",
                "1234.5 GB",
            ],
        ]
        .map(|r| r.map(String::from));
        let table = render(&rows, 2);
        for line in table.lines() {
            assert!(
                line.chars().count() <= 80,
                "{} wide: {line}",
                line.chars().count()
            );
        }
        let row = table.lines().nth(1).unwrap();
        assert!(row.trim_start().starts_with("/dev/disk/"), "{row}");
        assert!(row.contains('…') && row.contains("970_EVO "), "{row}");
        // A short table is left as it is.
        let short = render(&[["a", "b"], ["c", "d"]].map(|r| r.map(String::from)), 1);
        assert_eq!(short, "  a b\n  c d\n");
    }
}
