//! CrystalDiskMark's default set — SEQ1M Q8T1, SEQ1M Q1T1, RND4K Q32T1, RND4K Q1T1, each read
//! and write (all reads first, as CDM's "All" runs them) — and CDM's text layout: MB/s in
//! 10^6 bytes per second, IOPS, and the mean latency in µs.

use super::Point;

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
