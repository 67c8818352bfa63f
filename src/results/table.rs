//! The Iometer-style table `measure` and `soak` print: a header with the whole access spec,
//! then the run's figures. Every latency is written as the report writes it (µs with one
//! decimal below 10 ms, else ms with two: `units::format_latency_us`), so a figure reads the
//! same on the terminal and in report.md; a direction or figure with no I/O shows `-`.
//! Lines stay within 80 columns.

use std::fmt::Write;
use std::path::Path;

use super::{RunInfo, Summary};
use crate::stats::LatencySummary;

/// The table for a finished run: header, figures and where the run directory is.
pub fn run_table(info: &RunInfo, summary: &Summary, dir: &Path) -> String {
    let w = &info.workload;
    let t = &info.target;
    let mut out = String::new();
    let head = format!("{} {}", info.command, t.path);
    let rest = format!(
        "({}, {}), {} engine, {}",
        t.identity.kind,
        size(t.identity.size_bytes),
        info.engine,
        human_seconds(summary.seconds)
    );
    // A long target path puts the rest of the header on a line of its own.
    let joint = if head.chars().count() + 1 + rest.chars().count() <= 80 {
        " "
    } else {
        "\n  "
    };
    let _ = writeln!(out, "{head}{joint}{rest}");
    let mut spec = vec![
        format!("{} transfers", size(w.bs)),
        format!("{} aligned", size(w.align)),
        format!("{} % read", w.read_pct),
    ];
    if w.trim_pct > 0 {
        spec.push(format!("{} % trim", w.trim_pct));
    }
    spec.extend([
        random(w),
        format!("{}QD {}", crate::workload::jobs_prefix(w.jobs), w.qd),
        format!("{} data", w.pattern),
    ]);
    if let Some(rate) = w.rate {
        spec.push(format!(
            "rate {} I/Os per second",
            crate::units::format_count(rate.iops(w.bs))
        ));
    }
    if w.verify.is_some() {
        spec.push("verified".into());
    }
    out.push_str(&wrapped(&spec, 80));
    out.push_str(&figures(summary, info.write_amplification.as_ref()));
    if let Some(v) = &info.verify {
        out.push_str(&v.text(10));
    }
    let _ = writeln!(out, "  Run directory: {}", dir.display());
    out
}

/// The share of random offsets, and how they spread when not uniformly (`100 % random
/// (zipf:1.1)`), as the report's workload line names it.
fn random(w: &crate::workload::Workload) -> String {
    if w.distribution.is_uniform() || w.random_pct == 0 {
        format!("{} % random", w.random_pct)
    } else {
        format!("{} % random ({})", w.random_pct, w.distribution)
    }
}

/// How far from 1 a write amplification still means the drive wrote each host byte once.
const WRITTEN_ONCE: f64 = 0.005;

/// The write amplification of a run with trims, saying in words when the drive wrote nothing
/// but the host's bytes (a drive writing in place): garbage collection copied no page, so the
/// trims had no copies to save.
fn trimmed_write_amplification(factor: f64) -> String {
    let figure = crate::units::format_sig(factor, 3);
    if (factor - 1.0).abs() < WRITTEN_ONCE {
        format!("{figure}: nothing copied by GC, trims cannot lower it")
    } else {
        figure
    }
}

/// `parts` joined by commas on lines indented by two, each at most `width` columns long.
fn wrapped(parts: &[String], width: usize) -> String {
    let mut out = String::new();
    let mut line = String::from(" ");
    for (i, part) in parts.iter().enumerate() {
        let piece = if i + 1 < parts.len() {
            format!(" {part},")
        } else {
            format!(" {part}")
        };
        if line.len() > 1 && line.chars().count() + piece.chars().count() > width {
            out.push_str(line.trim_end());
            out.push('\n');
            line = String::from(" ");
        }
        line.push_str(&piece);
    }
    out.push_str(&line);
    out.push('\n');
    out
}

/// The figures' rows; with trims, the run's write amplification `wa` too (what trims act on).
fn figures(s: &Summary, wa: Option<&crate::drive::WriteAmplification>) -> String {
    let mut t = String::new();
    let mut row = |k: &str, v: String| {
        let _ = writeln!(t, "  {k:<28} {v}");
    };
    // A run the tool paused: its rates are over the time it ran (80 columns: a row each).
    let secs = |s: f64| human_seconds(s);
    if let Some(stopped) = s.stopped_s {
        row(
            "ssdfade stopped",
            format!("{} (SIGSTOP, or not scheduled)", secs(stopped)),
        );
    }
    if let Some(suspended) = s.suspended_s {
        row(
            "Machine suspended",
            format!("{} (the drive unpowered)", secs(suspended)),
        );
    }
    if s.pause_text().is_some() {
        row(
            "Running time",
            format!("{}: every rate is over it", secs(s.seconds)),
        );
    }
    // Trims are fio's third direction: apart from the totals, which say so.
    let of_total = if s.trim.is_some() {
        " (reads and writes)"
    } else {
        ""
    };
    row(
        "Total I/Os per second",
        format!("{}{of_total}", crate::units::format_count(s.iops)),
    );
    row(
        "Total MB per second",
        format!("{:.2} MB/s{of_total}", s.mb_per_s),
    );
    if s.read_iops > 0.0 && s.write_iops > 0.0 {
        row(
            "Read I/Os per second",
            crate::units::format_count(s.read_iops),
        );
        row(
            "Write I/Os per second",
            crate::units::format_count(s.write_iops),
        );
    }
    let mean = |l: &Option<LatencySummary>| ms(l.map(|l| l.mean));
    row("Average response time", mean(&s.lat_us));
    row("Average read response time", mean(&s.read_lat_us));
    row("Average write response time", mean(&s.write_lat_us));
    row("Maximum response time", ms(s.lat_us.map(|l| l.max)));
    row(
        "p50 / p99 / p99.9",
        match s.lat_us {
            Some(l) => format!(
                "{} / {} / {}",
                ms(Some(l.p50)),
                ms(Some(l.p99)),
                ms(Some(l.p999))
            ),
            None => "-".into(),
        },
    );
    if let Some(trim) = &s.trim {
        row(
            "Trims",
            format!(
                "{} ({} per second, not in the totals)",
                trim.ops,
                crate::units::format_count(trim.iops)
            ),
        );
        row("Average trim response time", mean(&trim.lat_us));
        row("Maximum trim response time", ms(trim.lat_us.map(|l| l.max)));
        if let Some(wa) = wa {
            row(
                "Write amplification",
                trimmed_write_amplification(wa.factor),
            );
        }
    }
    row(
        "I/Os over 2 s / over 10 s",
        format!("{:.3} % / {:.3} %", s.pct_over_2s, s.pct_over_10s),
    );
    row("Errors", s.errors.to_string());
    if let Some(p) = &s.pacing {
        row(
            "Issued late (over 1 ms)",
            format!(
                "{} of {} (mean {}, max {})",
                p.late,
                p.paced,
                ms(Some(p.late_mean_us)),
                ms(Some(p.late_max_us))
            ),
        );
        row("Mean schedule lag", ms(Some(p.mean_lag_us)));
    }
    // A simulated drive's time is not the machine's: CPU per I/O would mean nothing.
    if s.engine != "sim" {
        row(
            "CPU utilisation",
            format!(
                "{:.1} % of {} CPUs ({:.2} µs CPU per I/O)",
                s.cpu_pct,
                crate::stats::cpu::cpu_count(),
                s.cpu_us_per_io
            ),
        );
    }
    t
}

/// A latency in the report's unit and rounding; `-` when there is no figure.
fn ms(us: Option<f64>) -> String {
    us.map_or_else(|| "-".into(), crate::units::format_latency_us)
}

/// Bytes as `512 B`, `4 KiB`, `1.5 MiB`, `55.9 GiB`: whole numbers without a decimal.
fn size(bytes: u64) -> String {
    const UNITS: [&str; 5] = ["B", "KiB", "MiB", "GiB", "TiB"];
    let mut value = bytes as f64;
    let mut unit = 0;
    while value >= 1024.0 && unit < UNITS.len() - 1 {
        value /= 1024.0;
        unit += 1;
    }
    if value.fract() == 0.0 {
        format!("{value:.0} {}", UNITS[unit])
    } else {
        format!("{value:.1} {}", UNITS[unit])
    }
}

/// Seconds as `8h`, `1h30m`, `2m05s`, `4.0s`: the largest units, no zero tail.
fn human_seconds(seconds: f64) -> String {
    if seconds < 60.0 {
        return format!("{seconds:.1}s");
    }
    let s = seconds.round() as u64;
    let (h, m, sec) = (s / 3600, s % 3600 / 60, s % 60);
    match (h, m, sec) {
        (0, m, 0) => format!("{m}m"),
        (0, m, sec) => format!("{m}m{sec:02}s"),
        (h, 0, 0) => format!("{h}h"),
        (h, m, 0) => format!("{h}h{m:02}m"),
        (h, m, sec) => format!("{h}h{m:02}m{sec:02}s"),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn durations_read_as_a_person_writes_them() {
        assert_eq!(human_seconds(28800.0), "8h");
        assert_eq!(human_seconds(28800.4), "8h");
        assert_eq!(human_seconds(5400.0), "1h30m");
        assert_eq!(human_seconds(3723.0), "1h02m03s");
        assert_eq!(human_seconds(125.0), "2m05s");
        assert_eq!(human_seconds(60.0), "1m");
        assert_eq!(human_seconds(4.04), "4.0s");
    }

    #[test]
    fn the_access_spec_wraps_within_80_columns() {
        let parts: Vec<String> = ["4 KiB transfers", "512 B aligned", "100 % read"]
            .iter()
            .chain(&["100 % random", "QD 128", "compressible:50 data"])
            .map(|s| s.to_string())
            .collect();
        let text = wrapped(&parts, 80);
        assert!(text.lines().all(|l| l.chars().count() <= 80), "{text}");
        assert_eq!(text.lines().count(), 2, "{text}");
        assert!(text.lines().all(|l| l.starts_with("  ")), "{text}");
        assert_eq!(
            wrapped(&parts[..2], 80),
            "  4 KiB transfers, 512 B aligned\n"
        );
    }

    #[test]
    fn sizes_drop_a_needless_decimal() {
        assert_eq!(size(512), "512 B");
        assert_eq!(size(4096), "4 KiB");
        assert_eq!(size(1536 << 10), "1.5 MiB");
    }

    #[test]
    fn empty_figures_are_dashes_and_latencies_are_ms() {
        assert_eq!(ms(None), "-");
        assert_eq!(ms(Some(545.2)), "545 µs");
        assert_eq!(ms(Some(19_700.0)), "19.7 ms");
    }

    #[test]
    fn late_issues_show_only_under_a_rate() {
        let mut s = Summary {
            engine: "uring".into(),
            ..Default::default()
        };
        assert!(!figures(&s, None).contains("Issued late"));
        s.pacing = Some(crate::stats::PacingSummary {
            paced: 1000,
            mean_lag_us: 40.0,
            late: 3,
            late_mean_us: 2500.0,
            late_max_us: 4000.0,
        });
        let t = figures(&s, None);
        assert!(
            t.contains("Issued late (over 1 ms)      3 of 1000 (mean 2.5 ms, max 4 ms)"),
            "{t}"
        );
        assert!(t.contains("Mean schedule lag            40 µs"), "{t}");
    }
}
