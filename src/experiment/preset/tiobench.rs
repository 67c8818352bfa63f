//! tiobench's table: sequential and random reads and writes of 4 KiB blocks at 1, 2, 4 and 8
//! threads (the `threads` engine, one I/O per thread; a simulated drive runs them as as many
//! outstanding I/Os), with tiobench's columns: rate, CPU % (user + system CPU time over the
//! run's time, as tiotest counts it, so above 100 % with several busy cores), average and
//! maximum latency, percent of I/Os over 2 s and over 10 s, and CPU efficiency (rate / CPU
//! share).

use super::Point;
use crate::analysis::preset::{BenchmarkFigures, PresetPoint, TiobenchFigures};

/// tiobench's block size.
pub const BLOCK: u64 = 4096;
pub const THREADS: [u32; 4] = [1, 2, 4, 8];

/// The tests in the order tiobench prints them: (title, read, random).
const TESTS: [(&str, bool, bool); 4] = [
    ("Sequential Reads", true, false),
    ("Random Reads", true, true),
    ("Sequential Writes", false, false),
    ("Random Writes", false, true),
];

/// Sixteen points: each test at 1, 2, 4, 8 threads.
pub fn points(sim: bool) -> Vec<Point> {
    let mut out = Vec::new();
    for (_, read, random) in TESTS {
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

/// One block per test, one line per thread count.
pub fn table(points: &[PresetPoint], span: u64) -> String {
    let mut out = String::from(
        "  Rate = MB/s (10^6 bytes); CPU% = user+sys CPU time / run time; Latency = ms;\n  Lat% = percent of I/Os slower than 2 s / 10 s; CPU Eff = Rate / (CPU% / 100)\n",
    );
    for (title, read, random) in TESTS {
        let rows: Vec<(&PresetPoint, &TiobenchFigures)> = points
            .iter()
            .filter(|m| m.reads() == read && m.random() == random)
            .filter_map(|m| match &m.figures {
                BenchmarkFigures::Tiobench(f) => Some((m, f)),
                _ => None,
            })
            .collect();
        if rows.is_empty() {
            continue;
        }
        out.push_str(&format!("\n{title}\n"));
        out.push_str(&format!(
            "  {:>4} {:>5} {:>3} {:>8} {:>7} {:>9} {:>10} {:>8} {:>8} {:>6}\n",
            "File", "Blk", "Num", "", "", "Avg", "Maximum", "Lat%", "Lat%", "CPU"
        ));
        out.push_str(&format!(
            "  {:>4} {:>5} {:>3} {:>8} {:>7} {:>9} {:>10} {:>8} {:>8} {:>6}\n",
            "MiB", "Size", "Thr", "Rate", "(CPU%)", "Latency", "Latency", ">2s", ">10s", "Eff"
        ));
        for (m, f) in rows {
            let num = |x: Option<f64>, p: usize| x.map_or("-".to_string(), |v| format!("{v:.p$}"));
            out.push_str(&format!(
                "  {:>4} {:>5} {:>3} {:>8.2} {:>6.2}% {:>9} {:>10} {:>8.5} {:>8.5} {:>6}\n",
                span >> 20,
                m.bs,
                f.threads,
                f.rate_mb_per_s,
                f.cpu_pct,
                num(f.avg_lat_ms, 3),
                num(f.max_lat_ms, 3),
                f.pct_over_2s,
                f.pct_over_10s,
                num(f.cpu_eff, 0),
            ));
        }
    }
    out
}
