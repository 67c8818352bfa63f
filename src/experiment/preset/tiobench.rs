//! tiobench's table: sequential and random reads and writes of 4 KiB blocks at 1, 2, 4 and 8
//! threads (the `threads` engine, one I/O per thread; a simulated drive runs them as as many
//! outstanding I/Os), with tiobench's columns: rate, CPU % (user + system CPU time over the
//! run's time, as tiotest counts it, so above 100 % with several busy cores), average and
//! maximum latency, percent of I/Os over 2 s and over 10 s, and CPU efficiency (rate / CPU
//! share).

use super::Point;
use crate::analysis::preset::TIOBENCH_TESTS;

/// tiobench's block size.
pub const BLOCK: u64 = 4096;
pub const THREADS: [u32; 4] = [1, 2, 4, 8];

/// Sixteen points: each test at 1, 2, 4, 8 threads.
pub fn points(sim: bool) -> Vec<Point> {
    let mut out = Vec::new();
    for (_, read, random) in TIOBENCH_TESTS {
        for threads in THREADS {
            out.push(Point {
                name: format!(
                    "{}-{}-t{threads}",
                    if random { "rnd" } else { "seq" },
                    if read { "read" } else { "write" }
                ),
                bs: BLOCK,
                qd: threads,
                read,
                random,
                engine: (!sim).then_some("threads"),
            });
        }
    }
    out
}
