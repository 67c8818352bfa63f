//! Whole-run figures: the Iometer-style table of `measure` and the summary in run.json.

use serde::{Deserialize, Serialize};

use crate::stats::{IntervalStats, LatencySummary};

/// Totals and averages over a whole run.
#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize)]
pub struct Summary {
    /// Seconds covered by the samples (engine clock).
    pub seconds: f64,
    pub ops: u64,
    pub bytes: u64,
    pub iops: f64,
    /// 10^6 bytes per second.
    pub mb_per_s: f64,
    pub read_iops: f64,
    pub write_iops: f64,
    pub read_mb_per_s: f64,
    pub write_mb_per_s: f64,
    /// All I/O, reads and writes apart (µs).
    pub lat_us: LatencySummary,
    pub read_lat_us: LatencySummary,
    pub write_lat_us: LatencySummary,
    /// tiobench's columns: percent of I/Os slower than 2 s and than 10 s.
    pub pct_over_2s: f64,
    pub pct_over_10s: f64,
    pub errors: u64,
    /// Process CPU time over wall time, as a percent of the whole machine (Iometer's column).
    pub cpu_pct: f64,
    /// Process CPU seconds, user plus system.
    pub cpu_seconds: f64,
    /// CPU microseconds per I/O.
    pub cpu_us_per_io: f64,
    pub engine: String,
}

impl Summary {
    /// Builds the summary from the merged counts of every interval.
    pub fn new(
        total: &IntervalStats,
        seconds: f64,
        cpu_seconds: f64,
        wall_seconds: f64,
        engine: &str,
    ) -> Self {
        let mut both = total.write.clone();
        both.merge(&total.read);
        let per_s = |x: f64| if seconds > 0.0 { x / seconds } else { 0.0 };
        let over = |ns: u64| {
            if both.ops == 0 {
                0.0
            } else {
                let slow = both.latency_ns.count_between(ns + 1, u64::MAX);
                100.0 * slow as f64 / both.ops as f64
            }
        };
        let cpus = crate::stats::cpu::cpu_count() as f64;
        Summary {
            seconds,
            ops: both.ops,
            bytes: both.bytes,
            iops: per_s(both.ops as f64),
            mb_per_s: per_s(both.bytes as f64 / 1e6),
            read_iops: per_s(total.read.ops as f64),
            write_iops: per_s(total.write.ops as f64),
            read_mb_per_s: per_s(total.read.bytes as f64 / 1e6),
            write_mb_per_s: per_s(total.write.bytes as f64 / 1e6),
            lat_us: LatencySummary::of(&both),
            read_lat_us: LatencySummary::of(&total.read),
            write_lat_us: LatencySummary::of(&total.write),
            pct_over_2s: over(2_000_000_000),
            pct_over_10s: over(10_000_000_000),
            errors: total.errors,
            cpu_pct: if wall_seconds > 0.0 {
                100.0 * cpu_seconds / wall_seconds / cpus
            } else {
                0.0
            },
            cpu_seconds,
            cpu_us_per_io: if both.ops > 0 {
                cpu_seconds * 1e6 / both.ops as f64
            } else {
                0.0
            },
            engine: engine.to_string(),
        }
    }

    /// The Iometer-style table `measure` prints.
    pub fn table(&self) -> String {
        use crate::units::format_latency_us as lat;
        let mut t = String::new();
        let mut row = |k: &str, v: String| t.push_str(&format!("  {k:<28} {v}\n"));
        row("Total I/Os per second", format!("{:.0}", self.iops));
        row("Total MB per second", format!("{:.2} MB/s", self.mb_per_s));
        if self.read_iops > 0.0 && self.write_iops > 0.0 {
            row("Read I/Os per second", format!("{:.0}", self.read_iops));
            row("Write I/Os per second", format!("{:.0}", self.write_iops));
        }
        row("Average response time", lat(self.lat_us.mean));
        row(
            "Average read response time",
            if self.read_iops > 0.0 {
                lat(self.read_lat_us.mean)
            } else {
                "-".into()
            },
        );
        row(
            "Average write response time",
            if self.write_iops > 0.0 {
                lat(self.write_lat_us.mean)
            } else {
                "-".into()
            },
        );
        row("Maximum response time", lat(self.lat_us.max));
        row(
            "p50 / p99 / p99.9",
            format!(
                "{} / {} / {}",
                lat(self.lat_us.p50),
                lat(self.lat_us.p99),
                lat(self.lat_us.p999)
            ),
        );
        row(
            "I/Os over 2 s / over 10 s",
            format!("{:.3} % / {:.3} %", self.pct_over_2s, self.pct_over_10s),
        );
        row("Errors", self.errors.to_string());
        row(
            "CPU utilisation",
            format!(
                "{:.1} % ({:.2} µs CPU per I/O)",
                self.cpu_pct, self.cpu_us_per_io
            ),
        );
        t
    }
}
