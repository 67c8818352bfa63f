//! tiobench's table: sequential and random reads and writes of 4 KiB blocks at 1, 2, 4 and 8
//! threads (the `threads` engine, one I/O per thread; a simulated drive runs them as as many
//! outstanding I/Os), with tiobench's columns: rate, CPU % (user + system CPU time over the
//! run's time, as tiotest counts it, so above 100 % with several busy cores), average and
//! maximum latency, percent of I/Os over 2 s and over 10 s, and CPU efficiency (rate / CPU
//! share).

use serde_json::{json, Value};

use super::{ms, Measured, Point};

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

/// tiobench's CPU %: process user + system time over the run's time.
fn cpu_pct(m: &Measured) -> f64 {
    if m.summary.seconds > 0.0 {
        100.0 * m.summary.cpu_seconds / m.summary.seconds
    } else {
        0.0
    }
}

/// A point's tiobench figures.
pub fn figures(m: &Measured) -> Value {
    let cpu = cpu_pct(m);
    let lat = m.summary.lat_us;
    json!({
        "threads": m.info.workload.qd,
        "rate_mb_per_s": m.summary.mb_per_s,
        "cpu_pct": cpu,
        "avg_lat_ms": lat.map(|l| ms(l.mean)),
        "max_lat_ms": lat.map(|l| ms(l.max)),
        "pct_over_2s": m.summary.pct_over_2s,
        "pct_over_10s": m.summary.pct_over_10s,
        "cpu_eff": (cpu > 0.0).then(|| m.summary.mb_per_s / (cpu / 100.0)),
    })
}

/// One block per test, one line per thread count.
pub fn table(points: &[Measured], span: u64) -> String {
    let mut out = String::from(
        "  Rate = MB/s (10^6 bytes); CPU% = user+sys CPU time / run time; Latency = ms;\n  Lat% = percent of I/Os slower than 2 s / 10 s; CPU Eff = Rate / (CPU% / 100)\n",
    );
    for (title, read, random) in TESTS {
        let rows: Vec<&Measured> = points
            .iter()
            .filter(|m| {
                (m.info.workload.read_pct == 100) == read
                    && (m.info.workload.random_pct == 100) == random
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
        for m in rows {
            let f = figures(m);
            let num = |k: &str, p: usize| {
                f[k].as_f64()
                    .map_or("-".to_string(), |v| format!("{v:.p$}"))
            };
            out.push_str(&format!(
                "  {:>4} {:>5} {:>3} {:>8.2} {:>6.2}% {:>9} {:>10} {:>8.5} {:>8.5} {:>6}\n",
                span >> 20,
                m.info.workload.bs,
                m.info.workload.qd,
                m.summary.mb_per_s,
                cpu_pct(m),
                num("avg_lat_ms", 3),
                num("max_lat_ms", 3),
                m.summary.pct_over_2s,
                m.summary.pct_over_10s,
                num("cpu_eff", 0),
            ));
        }
    }
    out
}
