//! Whole-run figures: the summary in run.json, which `measure --json` prints and the table
//! ([`super::table`]) shows.

use serde::{Deserialize, Serialize};

use crate::stats::{DirSample, IntervalStats, LatencySummary, PacingSummary};

/// Totals and averages over a whole run.
#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize, schemars::JsonSchema)]
pub struct Summary {
    /// Seconds the run ran (engine clock): the samples' span less `stopped_s`. Every rate
    /// here is over them.
    pub seconds: f64,
    /// Reads and writes (trims are apart, in `trim`, as fio reports them).
    pub ops: u64,
    pub bytes: u64,
    pub iops: f64,
    /// 10^6 bytes per second.
    pub mb_per_s: f64,
    pub read_iops: f64,
    pub write_iops: f64,
    pub read_mb_per_s: f64,
    pub write_mb_per_s: f64,
    /// All I/O, reads and writes apart (µs); `null` for a direction with no I/O.
    pub lat_us: Option<LatencySummary>,
    pub read_lat_us: Option<LatencySummary>,
    pub write_lat_us: Option<LatencySummary>,
    /// Trims (discards): their count, bytes trimmed, rates and latency, absent without
    /// trims. Not in `ops`, `iops`, `lat_us` or the slow shares.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub trim: Option<DirSample>,
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
    /// Under an issue rate: how far behind the schedule the I/Os were issued (absent without).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub pacing: Option<PacingSummary>,
    /// Seconds of the span ssdfade itself was stopped (SIGSTOP, not scheduled): not in
    /// `seconds` (absent when never).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub stopped_s: Option<f64>,
    /// Seconds the machine was suspended meanwhile (never on the engine clock; absent when
    /// never).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub suspended_s: Option<f64>,
}

impl Summary {
    /// Builds the summary from the merged counts of every interval over `span` seconds of the
    /// engine clock, of which `total.stopped_s` the tool was stopped: rates are over the rest.
    pub fn new(
        total: &IntervalStats,
        span: f64,
        cpu_seconds: f64,
        wall_seconds: f64,
        engine: &str,
    ) -> Self {
        let mut both = total.write.clone();
        both.merge(&total.read);
        let seconds = (span - total.stopped_s).max(0.0);
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
            trim: (total.trim.ops > 0).then(|| DirSample::of(&total.trim, seconds)),
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
            pacing: PacingSummary::of(&total.pacing),
            stopped_s: (total.stopped_s > 0.0).then_some(total.stopped_s),
            suspended_s: (total.suspended_s > 0.0).then_some(total.suspended_s),
        }
    }

    /// How the tool paused during the run, as the terminal and the report say it: `ssdfade
    /// was stopped for 3.0s (SIGSTOP, or not scheduled): every rate is over the 5.0s it ran`,
    /// with a suspended machine's sleep. `None` when it never paused.
    pub fn pause_text(&self) -> Option<String> {
        let secs = |s: f64| crate::units::format_duration(std::time::Duration::from_secs_f64(s));
        let mut parts = Vec::new();
        if let Some(stopped) = self.stopped_s {
            parts.push(format!(
                "ssdfade was stopped for {} (SIGSTOP, or not scheduled)",
                secs(stopped)
            ));
        }
        if let Some(suspended) = self.suspended_s {
            parts.push(format!("the machine was suspended for {}", secs(suspended)));
        }
        (!parts.is_empty()).then(|| {
            format!(
                "{}: every rate is over the {} it ran",
                parts.join(" and "),
                secs(self.seconds)
            )
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn slow_io_shares_and_rates_are_counted_over_both_directions() {
        // 900 writes at 1 ms, 70 reads at 3 s and 30 writes at 12 s, 4 KiB each, in 2 s.
        let mut total = IntervalStats::default();
        total.write.record_n(900, 900 * 4096, 1_000_000);
        total.read.record_n(70, 70 * 4096, 3_000_000_000);
        total.write.record_n(30, 30 * 4096, 12_000_000_000);
        let s = Summary::new(&total, 2.0, 0.0, 2.0, "threads");
        assert!((s.pct_over_2s - 10.0).abs() < 1e-9, "{}", s.pct_over_2s);
        assert!((s.pct_over_10s - 3.0).abs() < 1e-9, "{}", s.pct_over_10s);
        assert!((s.iops - 500.0).abs() < 1e-9);
        assert!((s.read_iops - 35.0).abs() < 1e-9);
        // MB/s counts 10^6 bytes: 4 096 000 bytes in 2 s.
        assert!((s.mb_per_s - 2.048).abs() < 1e-9, "{}", s.mb_per_s);
        assert_eq!(s.lat_us.unwrap().max, 12_000_000.0);
    }
}
