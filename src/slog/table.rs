//! The text `ssdfade slog` prints: the cache mode, the size sweep per mode, the concurrency
//! levels, the sustained phase, the baseline side by side with its ratios (computed in
//! [`crate::analysis::slog::baseline`]), and the verdict. Tables fit 80 columns; prose is
//! wrapped.

use std::fmt::Write;

use super::sweep::Point;
use super::verdict::{Rating, Verdict};
use super::{Measurement, SlogRecord, SyncMode};
use crate::units::{format_bytes, format_latency_us};

const WIDTH: usize = 78;

/// The whole report.
pub fn render(r: &SlogRecord, dir: &std::path::Path) -> String {
    let mut t = String::new();
    let d = &r.device;
    let _ = writeln!(t, "SLOG test of {} ({})", d.target, d.kind);
    cache_lines(&mut t, d);
    for mode in [SyncMode::Fdatasync, SyncMode::Dsync] {
        sizes_table(&mut t, d, mode);
    }
    concurrency_table(&mut t, d);
    if let Some(s) = &d.measured.sustained {
        t.push('\n');
        let paced = d
            .measured
            .sustained_load
            .as_ref()
            .map_or(String::new(), |a| {
                format!(" issued at {}/s (open loop)", a.rate_iops)
            });
        wrap(
            &mut t,
            &format!("Sustained 4 KiB write+fdatasync{paced}: {} writes in {:.0} s, {} IOPS, mean {}, p99 {}, max {}",
            s.writes,
            s.seconds,
            crate::units::format_count(s.iops),
            format_latency_us(s.lat_us.mean),
            format_latency_us(s.lat_us.p99),
            format_latency_us(s.lat_us.max)
            ),
            "",
        );
        if let Some(a) = &d.measured.sustained_load {
            wrap(
                &mut t,
                &format!(
                    "  writes over 1 ms: {}, over 10 ms: {}; issued late (over 1 ms behind): {}, at most {} behind",
                    a.writes_over_1ms,
                    a.writes_over_10ms,
                    a.late,
                    format_latency_us(a.late_max_us)
                ),
                "",
            );
        }
    }
    if let Some(heat) = crate::analysis::thermal::Thermal::of_dir(dir) {
        let _ = writeln!(t, "  Heat: {}", heat.range_words());
    }
    if let Some(b) = &r.baseline {
        baseline_table(&mut t, d, b);
    }
    verdict(&mut t, &r.verdict);
    let _ = writeln!(t, "\n  Run directory: {}", dir.display());
    t
}

fn cache_lines(t: &mut String, d: &Measurement) {
    let c = &d.cache;
    let fua = match c.fua {
        Some(true) => "FUA yes",
        Some(false) => "FUA no",
        None => "FUA unknown",
    };
    let _ = writeln!(
        t,
        "  Write cache: {}, {fua}",
        c.write_cache.as_deref().unwrap_or("unknown")
    );
    wrap(t, &c.meaning, "  ");
}

/// A latency in a column in µs: three significant digits (the number rule of
/// [`crate::units`]).
fn us(v: f64) -> String {
    crate::units::format_sig(v, 3)
}

fn sizes_table(t: &mut String, d: &Measurement, mode: SyncMode) {
    let points: Vec<&Point> = d.measured.sizes.iter().filter(|p| p.mode == mode).collect();
    if points.is_empty() {
        return;
    }
    let _ = writeln!(t, "\nQD1 {} (µs per write)", mode.label());
    let _ = writeln!(
        t,
        "  {:>9} {:>8} {:>8} {:>8} {:>8} {:>8} {:>9} {:>9}",
        "size", "mean", "p50", "p99", "p99.99", "max", "MB/s", "writes"
    );
    for p in points {
        let _ = writeln!(
            t,
            "  {:>9} {:>8} {:>8} {:>8} {:>8} {:>8} {:>9.2} {:>9}",
            format_bytes(p.size),
            us(p.lat_us.mean),
            us(p.lat_us.p50),
            us(p.lat_us.p99),
            us(p.lat_us.p9999),
            us(p.lat_us.max),
            p.mb_per_s,
            p.writes
        );
    }
}

fn concurrency_table(t: &mut String, d: &Measurement) {
    if d.measured.concurrency.is_empty() {
        return;
    }
    let _ = writeln!(t, "\n4 KiB write+fdatasync from concurrent writers");
    let _ = writeln!(
        t,
        "  {:>7} {:>9} {:>8} {:>9} {:>9} {:>9} {:>9}",
        "writers", "IOPS", "MB/s", "mean µs", "p99 µs", "p99.99", "max µs"
    );
    for p in &d.measured.concurrency {
        let _ = writeln!(
            t,
            "  {:>7} {:>9.0} {:>8.2} {:>9} {:>9} {:>9} {:>9}",
            p.writers,
            p.iops,
            p.mb_per_s,
            us(p.lat_us.mean),
            us(p.lat_us.p99),
            us(p.lat_us.p9999),
            us(p.lat_us.max)
        );
    }
}

/// A ratio with `digits` decimals and `unit`, or "-" when there is none.
fn ratio(r: Option<f64>, digits: usize, unit: &str) -> String {
    r.map_or_else(
        || "-".into(),
        |r| format!("{}{unit}", crate::units::format_nonzero(r, digits)),
    )
}

fn baseline_table(t: &mut String, d: &Measurement, b: &Measurement) {
    let c = crate::analysis::slog::baseline::compare(&d.measured, &b.measured);
    let _ = writeln!(t, "\nBaseline: {}", b.label);
    let _ = writeln!(t, "  mean µs per QD1 write+fdatasync, and MB/s:");
    let _ = writeln!(
        t,
        "  {:>9} {:>10} {:>10} {:>8} {:>9} {:>9} {:>8}",
        "size", "device", "baseline", "slower", "dev MB/s", "base MB/s", "of base"
    );
    for r in &c.sizes {
        let _ = writeln!(
            t,
            "  {:>9} {:>10} {:>10} {:>8} {:>9.2} {:>9.2} {:>8}",
            format_bytes(r.size),
            us(r.device_mean_us),
            us(r.baseline_mean_us),
            ratio(r.slower, 1, "×"),
            r.device_mb_per_s,
            r.baseline_mb_per_s,
            ratio(r.share_pct, 0, " %")
        );
    }
    let _ = writeln!(
        t,
        "  {:>7} {:>11} {:>13} {:>9} {:>10} {:>10}",
        "writers", "device IOPS", "baseline IOPS", "dev/base", "dev µs", "base µs"
    );
    for r in &c.writers {
        let _ = writeln!(
            t,
            "  {:>7} {:>11.0} {:>13.0} {:>9} {:>10} {:>10}",
            r.writers,
            r.device_iops,
            r.baseline_iops,
            ratio(r.ratio, 2, ""),
            us(r.device_mean_us),
            us(r.baseline_mean_us)
        );
    }
}

fn verdict(t: &mut String, v: &Verdict) {
    let _ = writeln!(t, "\nVerdict: {} as a SLOG", v.rating.word().to_uppercase());
    for r in &v.reasons {
        let mark = match r.rating {
            Some(Rating::Suitable) => "ok",
            Some(Rating::Marginal) => "marginal",
            Some(Rating::Unsuitable) => "UNSUITABLE",
            None => "not tested",
        };
        wrap_after(
            t,
            &format!("{}: {}", r.topic, r.value),
            &format!("  {mark:<10} "),
            "             ",
        );
        wrap(t, &format!("threshold: {}", r.threshold), "             ");
        wrap(t, &format!("from: {}", r.source), "             ");
    }
    wrap(t, &format!("Latency bands: {}", v.bands), "  ");
    if let Some(plan) = &v.plan {
        wrap(t, &format!("Maintenance plan: {plan}"), "  ");
    }
}

/// Appends `text` wrapped at [`WIDTH`] columns, every line starting with `indent` (and two
/// more spaces after the first).
fn wrap(t: &mut String, text: &str, indent: &str) {
    wrap_after(t, text, indent, &format!("{indent}  "));
}

/// Appends `text` wrapped at [`WIDTH`] columns after `first`, continuing under `rest`.
fn wrap_after(t: &mut String, text: &str, first: &str, rest: &str) {
    t.push_str(&crate::text::wrap(text, WIDTH, first, rest));
}
