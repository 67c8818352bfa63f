//! Iometer's "All in one" access specifications — transfers of 512 B, 1, 2, 4, 8, 16, 32, 64,
//! 128, 256, 512 KiB and 1 MiB, each read and write, sequential and random, one outstanding
//! I/O (Iometer's default) — with the columns of Iometer's result file: IOps, Read MBps,
//! Write MBps (10^6 bytes, Iometer's "MBps (Decimal)"), Average Response Time, Average Read
//! and Write Response Time, and Average Transaction Time (ms). Iometer counts a transaction as
//! a request and its reply; these specifications have no reply, so a transaction is one I/O and
//! its average time equals the average response time, as in Iometer's own results.

use super::Point;
use crate::analysis::preset::{BenchmarkFigures, PresetPoint};

/// The transfer sizes of "All in one".
pub const SIZES: [u64; 12] = [
    512,
    1 << 10,
    2 << 10,
    4 << 10,
    8 << 10,
    16 << 10,
    32 << 10,
    64 << 10,
    128 << 10,
    256 << 10,
    512 << 10,
    1 << 20,
];

/// Iometer's default number of outstanding I/Os per target.
pub const OUTSTANDING: u32 = 1;

fn size_name(bs: u64) -> String {
    match bs {
        b if b >= 1 << 20 => format!("{}M", b >> 20),
        b if b >= 1 << 10 => format!("{}K", b >> 10),
        b => format!("{b}B"),
    }
}

/// The 48 points, less the transfer sizes the target's logical block does not allow (returned
/// apart, to be said).
pub fn points(logical_block: u64) -> (Vec<Point>, Vec<u64>) {
    let mut out = Vec::new();
    let mut left_out = Vec::new();
    for bs in SIZES {
        if bs < logical_block || bs % logical_block != 0 {
            left_out.push(bs);
            continue;
        }
        for random in [false, true] {
            for read in [true, false] {
                out.push(Point {
                    name: format!(
                        "{}-{}-{}",
                        size_name(bs).to_lowercase(),
                        if random { "rnd" } else { "seq" },
                        if read { "read" } else { "write" }
                    ),
                    bs,
                    qd: OUTSTANDING,
                    read,
                    random,
                    engine: None,
                });
            }
        }
    }
    (out, left_out)
}

/// The line saying which transfer sizes were left out, if any.
pub fn left_out_line(left_out: &[u64], logical_block: u64) -> Option<String> {
    (!left_out.is_empty()).then(|| {
        let sizes: Vec<String> = left_out.iter().map(|&b| size_name(b)).collect();
        format!(
            "Left out: {} transfers (the target's logical block is {logical_block} bytes)",
            sizes.join(", ")
        )
    })
}

/// One line per access specification, with a legend for the abbreviated headers.
pub fn table(points: &[PresetPoint], left_out: Option<&str>) -> String {
    let mut out = String::from(
        "  RT = Average Response Time, RRT/WRT = of reads/of writes, TT = Average\n  Transaction Time (no replies: TT = RT), all in ms; MBps = 10^6 bytes/s\n",
    );
    if let Some(line) = left_out {
        out.push_str(&format!("  {line}\n"));
    }
    out.push('\n');
    out.push_str(&format!(
        "  {:<14} {:>9} {:>8} {:>8} {:>7} {:>7} {:>7} {:>7}\n",
        "Access spec", "IOps", "Rd MBps", "Wr MBps", "RT", "RRT", "WRT", "TT"
    ));
    for m in points {
        let BenchmarkFigures::Iometer(f) = &m.figures else {
            continue;
        };
        let t = |x: Option<f64>| x.map_or("-".to_string(), |v| format!("{v:.4}"));
        out.push_str(&format!(
            "  {:<14} {:>9.1} {:>8.2} {:>8.2} {:>7} {:>7} {:>7} {:>7}\n",
            format!(
                "{} {} {}",
                size_name(m.bs),
                if m.random() { "rnd" } else { "seq" },
                if m.reads() { "read" } else { "write" }
            ),
            m.iops,
            f.read_mbps,
            f.write_mbps,
            t(f.avg_response_ms),
            t(f.avg_read_response_ms),
            t(f.avg_write_response_ms),
            t(f.avg_transaction_ms),
        ));
    }
    out
}
