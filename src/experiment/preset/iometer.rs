//! Iometer's "All in one" access specifications — transfers of 512 B, 1, 2, 4, 8, 16, 32, 64,
//! 128, 256, 512 KiB and 1 MiB, each read and write, sequential and random, one outstanding
//! I/O (Iometer's default) — with the columns of Iometer's result file: IOps, Read MBps,
//! Write MBps (10^6 bytes, Iometer's "MBps (Decimal)"), Average Response Time, Average Read
//! and Write Response Time, and Average Transaction Time (ms). Iometer counts a transaction as
//! a request and its reply; these specifications have no reply, so a transaction is one I/O and
//! its average time equals the average response time, as in Iometer's own results.

use super::Point;
use crate::analysis::preset::iometer_size_name;

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
                        iometer_size_name(bs).to_lowercase(),
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
        let sizes: Vec<String> = left_out.iter().map(|&b| iometer_size_name(b)).collect();
        format!(
            "Left out: {} transfers (the target's logical block is {logical_block} bytes)",
            sizes.join(", ")
        )
    })
}
