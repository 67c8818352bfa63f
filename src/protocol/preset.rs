//! The benchmark presets (`measure --preset cdm|tiobench|iometer-allinone`): their figures are
//! the points' table ([`crate::analysis::preset`]); the terminal text is that table in each
//! benchmark's own layout, which gives every phase.

use std::time::Duration;

use super::Protocol;
use crate::analysis::preset::{
    iometer_size_name, BenchmarkFigures, PresetPoint, PresetTable, TiobenchFigures, NAMES,
    TIOBENCH_TESTS,
};
use crate::plot::{Place, ProtocolChart, TimelineLabels};
use crate::report::Document;
use crate::results::Experiment;
use crate::units::{format_bytes, format_duration};

/// The benchmark presets, one protocol for the three.
pub struct Preset;

impl Protocol for Preset {
    type Figures = PresetTable;

    fn names(&self) -> &'static [&'static str] {
        &NAMES
    }

    fn figures(&self, exp: &Experiment) -> PresetTable {
        PresetTable::of(exp)
    }

    fn text(&self, f: &PresetTable) -> String {
        summary_text(f)
    }

    fn lists_phases(&self) -> bool {
        true
    }

    fn charts(&self, exp: &Experiment) -> Vec<ProtocolChart> {
        chart(exp).into_iter().collect()
    }

    fn timeline(&self, exp: &Experiment) -> TimelineLabels {
        let t = PresetTable::of(exp);
        let each = t.point_duration_s.map_or_else(String::new, |d| {
            format!(", {} each", format_duration(Duration::from_secs_f64(d)))
        });
        let region = t.span.map_or_else(String::new, |s| {
            format!(" on a {} test region", format_bytes(s))
        });
        let prepared = if t.prepare.is_some() {
            " after its sequential preparation write"
        } else {
            ""
        };
        TimelineLabels {
            subtitle: Some(format!(
                "{} tests of the {} preset{each}{region}{prepared}",
                t.points.len(),
                t.preset
            )),
            // CrystalDiskMark and tiobench report MB/s: their 1 MiB and 4 KiB tests read on one
            // axis in it, where IOPS put the 1 MiB tests flat along the bottom.
            mb_per_s: ["cdm", "tiobench"].contains(&exp.name.as_str()),
        }
    }

    fn report_summary(
        &self,
        doc: &mut Document,
        _exp: &Experiment,
        t: &Self::Figures,
        _chart: Option<&ProtocolChart>,
    ) -> anyhow::Result<bool> {
        crate::report::preset::add_summary(doc, t);
        Ok(true)
    }
}

/// The kind's own chart, when its figures have one.
fn chart(exp: &Experiment) -> Option<ProtocolChart> {
    use crate::plot::preset::{cdm_chart, preset_chart};
    let cdm = cdm_chart(exp).map(|c| {
        ProtocolChart::new(
            "cdm",
            "CrystalDiskMark's layout: MB/s of each test, reads and writes side by side, IOPS and mean latency under each",
            Place::Charts,
            c,
        )
    });
    cdm.or_else(|| {
        preset_chart(exp).map(|c| {
            ProtocolChart::new(
                exp.name.to_string(),
                "MB/s of every point of the benchmark, in the order they ran",
                Place::Charts,
                c,
            )
        })
    })
}

/// The preset's table in the benchmark's own terms, for an 80-column terminal.
fn summary_text(table: &PresetTable) -> String {
    let span = table.span.unwrap_or(0);
    let duration = table.point_duration_s.unwrap_or(0.0);
    let mut out = match table.preset.as_str() {
        "cdm" => cdm_table(&table.points, span, duration),
        "tiobench" => tiobench_table(&table.points, span),
        _ => iometer_table(&table.points, table.left_out.as_deref()),
    };
    if let Some(m) = &table.prepare {
        out.push_str(&format!(
            "  Prepared: the first {} written sequentially at {:.1} MB/s in {}\n",
            format_bytes(m.bytes),
            m.mb_per_s,
            format_duration(Duration::from_secs_f64(m.seconds.max(0.0)))
        ));
    }
    out
}

/// One of CDM's result lines, e.g.
/// `  SEQ    1MiB (Q=  8, T= 1):   550.123 MB/s [    524.7 IOPS] < 15224.32 us>`.
fn cdm_line(m: &PresetPoint) -> String {
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
fn cdm_table(points: &[PresetPoint], span: u64, duration_s: f64) -> String {
    let mut out = String::from(
        "* MB/s = 1,000,000 bytes/s, latency = mean per I/O\n* KB = 1000 bytes, KiB = 1024 bytes\n",
    );
    for (title, read) in [("[Read]", true), ("[Write]", false)] {
        out.push_str(&format!("\n{title}\n"));
        for m in points.iter().filter(|m| m.reads() == read) {
            out.push_str(&cdm_line(m));
        }
    }
    out.push_str(&format!(
        "\n  Test: {} (x1), Measure {duration_s} sec per test\n",
        crate::units::format_bytes(span)
    ));
    out
}

/// One block per test, one line per thread count.
fn tiobench_table(points: &[PresetPoint], span: u64) -> String {
    let mut out = String::from(
        "  Rate = MB/s (10^6 bytes); CPU% = user+sys CPU time / run time; Latency = ms;\n  Lat% = percent of I/Os slower than 2 s / 10 s; CPU Eff = Rate / (CPU% / 100)\n",
    );
    for (title, read, random) in TIOBENCH_TESTS {
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

/// One line per access specification, with a legend for the abbreviated headers.
fn iometer_table(points: &[PresetPoint], left_out: Option<&str>) -> String {
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
                iometer_size_name(m.bs),
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

#[cfg(test)]
mod tests {
    use std::path::Path;

    use crate::analysis;
    use crate::plot::timeline;

    /// CrystalDiskMark's timeline is in MB/s, its unit: the 1 MiB tests no longer lie flat
    /// along the bottom of an IOPS axis set by the 4 KiB reads.
    #[test]
    fn a_cdm_timeline_is_drawn_in_mb_per_s() {
        let dir = Path::new(env!("CARGO_MANIFEST_DIR")).join("results/examples/cdm-nvme-sim");
        let exp = crate::results::load_experiment(&dir).unwrap();
        let fade = timeline(&exp, &crate::protocol::charts(&exp).timeline).fade;
        assert!(fade.mb_per_s);
        let run = exp.phases[1].run.as_ref().unwrap();
        let first = &analysis::drawn_intervals(&run.samples, run.info.workload.interval)[0];
        assert!(fade.points.iter().any(|p| p.iops == first.mb_per_s));
        assert!(fade.points.iter().all(|p| p.iops != first.iops));
        let hir = Path::new(env!("CARGO_MANIFEST_DIR")).join("results/examples/hir-sim");
        let hir = crate::results::load_experiment(&hir).unwrap();
        assert!(
            !timeline(&hir, &crate::protocol::charts(&hir).timeline)
                .fade
                .mb_per_s
        );
    }
}
