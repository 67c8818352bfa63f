//! CrystalDiskMark's default set — SEQ1M Q8T1, SEQ1M Q1T1, RND4K Q32T1, RND4K Q1T1, each read
//! and write (all reads first, as CDM's "All" runs them) — and CDM's text layout: MB/s in
//! 10^6 bytes per second, IOPS, and the mean latency in µs.

use super::Point;
use crate::analysis::preset::{BenchmarkFigures, PresetPoint};

/// (label, transfer size, queue depth) of each of CDM's four tests.
const TESTS: [(&str, u64, u32); 4] = [
    ("SEQ", 1 << 20, 8),
    ("SEQ", 1 << 20, 1),
    ("RND", 4096, 32),
    ("RND", 4096, 1),
];

/// The eight points: every test read, then every test write.
pub fn points() -> Vec<Point> {
    let mut out = Vec::new();
    for read in [true, false] {
        for (label, bs, qd) in TESTS {
            out.push(Point {
                name: format!(
                    "{}{}-q{qd}t1-{}",
                    label.to_lowercase(),
                    if bs == 4096 { "4k" } else { "1m" },
                    if read { "read" } else { "write" }
                ),
                bs,
                qd,
                read,
                random: label == "RND",
                engine: None,
            });
        }
    }
    out
}

/// One of CDM's result lines, e.g.
/// `  SEQ    1MiB (Q=  8, T= 1):   550.123 MB/s [    524.7 IOPS] < 15224.32 us>`.
fn line(m: &PresetPoint) -> String {
    let label = if m.random() { "RND" } else { "SEQ" };
    let size = match m.bs {
        b if b >= 1 << 20 && b % (1 << 20) == 0 => format!("{}MiB", b >> 20),
        b if b % 1024 == 0 => format!("{}KiB", b >> 10),
        b => format!("{b}B"),
    };
    format!(
        "  {label} {size:>7} (Q={:>3}, T= 1): {:>9.3} MB/s [{:>9.1} IOPS] <{:>9.2} us>\n",
        m.qd,
        m.mb_per_s,
        m.iops,
        match &m.figures {
            BenchmarkFigures::Cdm(f) => f.lat_us.unwrap_or(0.0),
            _ => 0.0,
        }
    )
}

/// The [Read] and [Write] blocks in CDM's order, then the test's profile.
pub fn table(points: &[PresetPoint], span: u64, duration_s: f64) -> String {
    let mut out = String::from(
        "* MB/s = 1,000,000 bytes/s, latency = mean per I/O\n* KB = 1000 bytes, KiB = 1024 bytes\n",
    );
    for (title, read) in [("[Read]", true), ("[Write]", false)] {
        out.push_str(&format!("\n{title}\n"));
        for m in points.iter().filter(|m| m.reads() == read) {
            out.push_str(&line(m));
        }
    }
    out.push_str(&format!(
        "\n  Test: {} (x1), Measure {duration_s} sec per test\n",
        crate::units::format_bytes(span)
    ));
    out
}
