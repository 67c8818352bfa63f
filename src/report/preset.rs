//! The summary card of a benchmark preset's report, in the tool's own layout: CrystalDiskMark's
//! window (one row per test, "SEQ1M Q8T1", Read and Write MB/s side by side, then their IOPS
//! and mean latency), tiobench's table (per test and thread count: rate, CPU %, average and
//! maximum latency, I/Os over 2 s and 10 s, CPU efficiency) or Iometer's results per access
//! specification; the preparation write on its own line, not as a test. The figures are
//! [`crate::analysis::preset`]'s, as the terminal and `--json` give them.

use super::document::Document;
use super::run::secs;
use crate::analysis::preset::{Benchmark, BenchmarkFigures, PresetPoint, PresetTable};
use crate::units::format_bytes;

fn num(x: Option<f64>, decimals: usize) -> String {
    x.map_or("-".to_string(), |v| format!("{v:.decimals$}"))
}

/// CrystalDiskMark's window: Read | Write MB/s per test, then IOPS and mean latency.
fn cdm(doc: &mut Document, t: &PresetTable) {
    let tests = t.cdm_tests();
    let mb = |p: Option<&PresetPoint>| num(p.map(|p| p.mb_per_s), 2);
    doc.table(
        &["CrystalDiskMark", "Read MB/s", "Write MB/s"],
        tests
            .iter()
            .map(|r| vec![r.key.clone(), mb(r.read), mb(r.write)])
            .collect(),
    );
    let iops = |p: Option<&PresetPoint>| num(p.map(|p| p.iops), 0);
    let lat = |p: Option<&PresetPoint>| {
        num(
            p.and_then(|p| match &p.figures {
                BenchmarkFigures::Cdm(f) => f.lat_us,
                _ => None,
            }),
            1,
        )
    };
    doc.table(
        &["Test", "Read IOPS", "Read µs", "Write IOPS", "Write µs"],
        tests
            .iter()
            .map(|r| {
                vec![
                    r.key.clone(),
                    iops(r.read),
                    lat(r.read),
                    iops(r.write),
                    lat(r.write),
                ]
            })
            .collect(),
    );
    doc.paragraph(format!(
        "MB/s = 10^6 bytes/s; µs = mean latency per I/O.{}",
        t.point_duration_s
            .map_or_else(String::new, |d| format!(" Each test ran {}.", secs(d)))
    ));
}

/// A table under `header` with a row per point: `cells` gives a point's row from its
/// benchmark's figures (None: a point without them).
fn point_table(
    doc: &mut Document,
    t: &PresetTable,
    header: &[&str],
    cells: impl Fn(&PresetPoint) -> Option<Vec<String>>,
) {
    doc.table(header, t.points.iter().filter_map(cells).collect());
}

/// tiobench's name of the test a point belongs to.
fn tiobench_test(p: &PresetPoint) -> &'static str {
    match (p.reads(), p.random()) {
        (true, false) => "Sequential Reads",
        (true, true) => "Random Reads",
        (false, false) => "Sequential Writes",
        (false, true) => "Random Writes",
    }
}

/// tiobench's table: its columns, one row per test and thread count.
fn tiobench(doc: &mut Document, t: &PresetTable) {
    point_table(
        doc,
        t,
        &[
            "tiobench",
            "Threads",
            "Rate MB/s",
            "CPU %",
            "Avg lat ms",
            "Max lat ms",
            "Lat% > 2 s",
            "Lat% > 10 s",
            "CPU eff",
        ],
        |p| match &p.figures {
            BenchmarkFigures::Tiobench(f) => Some(vec![
                tiobench_test(p).to_string(),
                f.threads.to_string(),
                format!("{:.2}", f.rate_mb_per_s),
                format!("{:.2}", f.cpu_pct),
                num(f.avg_lat_ms, 3),
                num(f.max_lat_ms, 3),
                format!("{:.5}", f.pct_over_2s),
                format!("{:.5}", f.pct_over_10s),
                num(f.cpu_eff, 0),
            ]),
            _ => None,
        },
    );
    doc.paragraph(format!(
        "Rate in MB/s (10^6 bytes/s) over a {} file of {} blocks; CPU % = user + system CPU time ÷ run time; Lat% = share of I/Os slower than 2 s and 10 s; CPU eff = rate ÷ (CPU % ÷ 100).",
        format_bytes(t.span.unwrap_or(0)),
        t.points.first().map_or_else(String::new, |p| format_bytes(p.bs))
    ));
}

/// Iometer's results: one row per access specification.
fn iometer(doc: &mut Document, t: &PresetTable) {
    point_table(
        doc,
        t,
        &[
            "Iometer access specification",
            "IOps",
            "Read MBps",
            "Write MBps",
            "Avg response ms",
            "Read response ms",
            "Write response ms",
        ],
        |p| match &p.figures {
            BenchmarkFigures::Iometer(f) => Some(vec![
                format!(
                    "{} {} {}",
                    format_bytes(p.bs),
                    if p.random() { "random" } else { "sequential" },
                    if p.reads() { "read" } else { "write" }
                ),
                format!("{:.1}", p.iops),
                format!("{:.2}", f.read_mbps),
                format!("{:.2}", f.write_mbps),
                num(f.avg_response_ms, 4),
                num(f.avg_read_response_ms, 4),
                num(f.avg_write_response_ms, 4),
            ]),
            _ => None,
        },
    );
    let mut note = "MBps = 10^6 bytes/s; the average transaction time equals the average response time (these specifications have no replies).".to_string();
    if let Some(line) = &t.left_out {
        note.push(' ');
        note.push_str(line);
    }
    doc.paragraph(note);
}

/// The preparation write, as a line of its own: it is no test of the benchmark.
fn preparation(doc: &mut Document, t: &PresetTable) {
    if let Some(m) = &t.prepare {
        doc.paragraph(format!(
            "Preparation (not a test): the first {} written sequentially at {:.1} MB/s in {}, as the benchmark fills its test file before reading it.",
            format_bytes(m.bytes),
            m.mb_per_s,
            secs(m.seconds)
        ));
    }
}

/// Adds the preset's summary card to `doc`: its table in the benchmark's layout, then the
/// preparation write.
pub fn add_summary(doc: &mut Document, t: &PresetTable) {
    doc.heading("Summary");
    match Benchmark::of(&t.preset) {
        Benchmark::Cdm => cdm(doc, t),
        Benchmark::Tiobench => tiobench(doc, t),
        Benchmark::Iometer => iometer(doc, t),
    }
    preparation(doc, t);
}
