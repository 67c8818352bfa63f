//! The tables of a PTS suite's tests, worded once for the terminal and the report: the IOPS
//! test's matrix (block size × R/W mix, IOPS), the throughput test's (block size × read or
//! write, MB/s) and the latency test's rows (mix and size: average, five-nines and maximum),
//! and the line that says which rounds were measured and whether they were steady. The figures
//! are [`crate::analysis::pts`]'s.

use crate::analysis::pts::{mix_label, size_label, TestFigures};
use crate::results::settings::PtsShows;
use crate::units::{format_count, format_latency_us};

/// A test's table: its head and rows of text cells.
pub fn table(t: &TestFigures) -> (Vec<String>, Vec<Vec<String>>) {
    match t.shows {
        PtsShows::Iops | PtsShows::MbPerS => matrix(t),
        PtsShows::Latency => latency(t),
    }
}

/// Rows of block sizes, a column per mix: IOPS or MB/s.
fn matrix(t: &TestFigures) -> (Vec<String>, Vec<Vec<String>>) {
    let mixes = t.mixes();
    let (unit, value): (&str, fn(f64, f64) -> String) = match t.shows {
        PtsShows::MbPerS => ("MB/s", |_, mb| format!("{mb:.0}")),
        _ => ("IOPS", |iops, _| format_count(iops)),
    };
    let head = std::iter::once(format!("{unit}: block size"))
        .chain(mixes.iter().map(|m| format!("R/W {}", mix_label(*m))))
        .collect();
    let rows = t
        .sizes()
        .iter()
        .map(|&bs| {
            std::iter::once(size_label(bs))
                .chain(mixes.iter().map(|&m| {
                    t.cell(m, bs)
                        .map_or("-".into(), |c| value(c.iops, c.mb_per_s))
                }))
                .collect()
        })
        .collect();
    (head, rows)
}

/// A row per mix and size: average, five-nines and maximum latency.
fn latency(t: &TestFigures) -> (Vec<String>, Vec<Vec<String>>) {
    let head = [
        "R/W mix",
        "block size",
        "average",
        "p99.999",
        "maximum",
        "IOPS",
    ]
    .map(String::from)
    .to_vec();
    let rows = t
        .cells
        .iter()
        .map(|c| {
            vec![
                mix_label(c.cell.read_pct),
                size_label(c.cell.bs),
                format_latency_us(c.avg_lat_us),
                c.p99999_lat_us.map_or("-".into(), format_latency_us),
                format_latency_us(c.max_lat_us),
                format_count(c.iops),
            ]
        })
        .collect();
    (head, rows)
}

/// Which rounds the table averages and how the tracked cells judged them.
pub fn window_line(t: &TestFigures) -> String {
    let Some((first, last)) = t.window else {
        return format!("{}: no full round yet", t.title);
    };
    let judged: Vec<String> = t
        .tracked
        .iter()
        .map(|c| {
            format!(
                "{} {} {}: {} IOPS, range {:.1} %, slope {:.1} %",
                if c.cell.random {
                    "random"
                } else {
                    "sequential"
                },
                mix_label(c.cell.read_pct),
                size_label(c.cell.bs),
                format_count(c.avg),
                c.range_pct,
                c.slope_pct
            )
        })
        .collect();
    format!(
        "{}: rounds {first}-{last} of {} {} ({})",
        t.title,
        t.rounds,
        if t.steady {
            "are SNIA steady"
        } else {
            "are the last, NOT steady"
        },
        judged.join("; ")
    )
}
