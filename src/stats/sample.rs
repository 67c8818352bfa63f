//! One line of `samples.jsonl`: an interval's counts turned into rates and percentiles.

use serde::{Deserialize, Serialize};

use super::{DirStats, ErrorEvent, IntervalStats};

/// Latency figures in microseconds.
#[derive(Clone, Copy, Debug, Default, PartialEq, Serialize, Deserialize, schemars::JsonSchema)]
pub struct LatencySummary {
    pub mean: f64,
    pub p50: f64,
    pub p99: f64,
    pub p999: f64,
    pub max: f64,
}

impl LatencySummary {
    /// Summarises a direction's histogram; None when it saw no I/O (`null` in JSON).
    pub fn of(dir: &DirStats) -> Option<Self> {
        if dir.ops == 0 {
            return None;
        }
        let h = &dir.latency_ns;
        let us = |ns: u64| ns as f64 / 1000.0;
        // The histogram answers with the top of a value's bucket, which can lie above the
        // largest latency recorded: a percentile never exceeds the maximum.
        let at = |q: f64| us(h.value_at_quantile(q).min(dir.max_ns));
        Some(LatencySummary {
            mean: (h.mean() / 1000.0).min(us(dir.max_ns)),
            p50: at(0.50),
            p99: at(0.99),
            p999: at(0.999),
            max: us(dir.max_ns),
        })
    }
}

/// Rates and latency of one direction in one interval.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize, schemars::JsonSchema)]
pub struct DirSample {
    pub ops: u64,
    pub bytes: u64,
    pub iops: f64,
    pub mb_per_s: f64,
    pub lat_us: Option<LatencySummary>,
}

impl DirSample {
    /// The rates of `dir` over `seconds`.
    pub fn of(dir: &DirStats, seconds: f64) -> Self {
        DirSample {
            ops: dir.ops,
            bytes: dir.bytes,
            iops: rate(dir.ops as f64, seconds),
            mb_per_s: rate(dir.bytes as f64 / 1e6, seconds),
            lat_us: LatencySummary::of(dir),
        }
    }
}

fn rate(amount: f64, seconds: f64) -> f64 {
    if seconds > 0.0 {
        amount / seconds
    } else {
        0.0
    }
}

/// How closely the time a process was stopped is known (the stop watch ticks every 50 ms):
/// an interval it ran for less than this is wholly the tool's, with no rates.
const STOP_RESOLUTION_S: f64 = 0.1;

/// One interval of a run.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize, schemars::JsonSchema)]
pub struct Sample {
    /// 0-based interval number.
    pub index: u64,
    /// Interval start and end, seconds since the run started on the engine's clock (simulated
    /// time for simulated devices).
    pub t_start_s: f64,
    pub t_end_s: f64,
    /// Reads and writes together; trims are apart, in `trim` (fio's third direction).
    pub ops: u64,
    pub bytes: u64,
    pub iops: f64,
    pub mb_per_s: f64,
    /// `null` for an interval without I/O.
    pub lat_us: Option<LatencySummary>,
    /// Present when the interval had reads, respectively writes.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub read: Option<DirSample>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub write: Option<DirSample>,
    /// Present when the interval had trims (discards of `bs` bytes each): not in `ops`,
    /// `iops`, `bytes` or `lat_us` above.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub trim: Option<DirSample>,
    pub errors: u64,
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub error_events: Vec<ErrorEvent>,
    /// Bytes written since the run started, this interval included.
    pub bytes_written_total: u64,
    /// Under an issue rate: how far behind the schedule this interval's I/Os were issued.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub pacing: Option<super::PacingSummary>,
    /// Seconds of this interval in which ssdfade itself was stopped (SIGSTOP and SIGCONT, a
    /// machine that did not schedule it): the gap is the tool's, not the drive's. The rates are
    /// over the time it ran, and the interval is not a full one.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub stopped_s: Option<f64>,
    /// Seconds the machine was suspended during this interval (a laptop's lid closed). They are
    /// not in `t_start_s..t_end_s` (the run's clock stands still while the machine sleeps), but
    /// the drive sat unpowered meanwhile: the gap is the tool's, and the interval is not a full
    /// one.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub suspended_s: Option<f64>,
    /// Bytes the drive programmed into NAND for this interval's I/Os, where it reports them
    /// (a simulated drive's model; absent for real drives and in runs recorded before it was
    /// kept): with the host's written bytes, the interval's write amplification.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub nand_bytes: Option<u64>,
    /// What the drive said about itself at the interval's end (temperature, throttle counters,
    /// host and NAND bytes so far), where it was read: see docs/telemetry.md.
    #[serde(
        default,
        skip_serializing_if = "Option::is_none",
        deserialize_with = "health_object"
    )]
    pub health: Option<crate::drive::Health>,
}

/// A sample's `health` as the object it must be: a list is damage, never the reading's first
/// fields in order (serde would read a struct from a sequence).
fn health_object<'de, D: serde::Deserializer<'de>>(
    d: D,
) -> Result<Option<crate::drive::Health>, D::Error> {
    use serde::de::Error;
    match Option::<serde_json::Value>::deserialize(d)? {
        None | Some(serde_json::Value::Null) => Ok(None),
        Some(v @ serde_json::Value::Object(_)) => serde_json::from_value(v)
            .map(Some)
            .map_err(D::Error::custom),
        Some(other) => {
            let kind = match other {
                serde_json::Value::Array(_) => "a list",
                serde_json::Value::String(_) => "text",
                serde_json::Value::Number(_) => "a number",
                _ => "true or false",
            };
            Err(D::Error::custom(format!(
                "health is {kind}, not an object of readings"
            )))
        }
    }
}

impl Sample {
    /// Builds the sample of interval `index` spanning `t_start_s..t_end_s`.
    pub fn new(
        index: u64,
        t_start_s: f64,
        t_end_s: f64,
        stats: &IntervalStats,
        bytes_written_before: u64,
    ) -> Self {
        // The time the tool was stopped is nobody's throughput.
        let stopped = stats.stopped_s.clamp(0.0, (t_end_s - t_start_s).max(0.0));
        let mut seconds = t_end_s - t_start_s - stopped;
        if stopped > 0.0 && seconds < STOP_RESOLUTION_S {
            // Less running time than a stop is known to: a rate over it would be noise.
            seconds = 0.0;
        }
        let mut both = stats.write.clone();
        both.merge(&stats.read);
        let dir = |d: &DirStats| (d.ops > 0).then(|| DirSample::of(d, seconds));
        Sample {
            index,
            t_start_s,
            t_end_s,
            ops: both.ops,
            bytes: both.bytes,
            iops: rate(both.ops as f64, seconds),
            mb_per_s: rate(both.bytes as f64 / 1e6, seconds),
            lat_us: LatencySummary::of(&both),
            read: dir(&stats.read),
            write: dir(&stats.write),
            trim: dir(&stats.trim),
            errors: stats.errors,
            error_events: stats.error_events.clone(),
            bytes_written_total: bytes_written_before + stats.write.bytes,
            pacing: super::PacingSummary::of(&stats.pacing),
            stopped_s: (stopped > 0.0).then_some(stopped),
            suspended_s: (stats.suspended_s > 0.0).then_some(stats.suspended_s),
            nand_bytes: stats.nand_bytes,
            health: stats.health.clone(),
        }
    }

    /// False for an interval the tool was stopped for all but a tick of: its rates, recorded
    /// as 0, are nobody's (the drive was asked for nothing).
    pub fn has_rates(&self) -> bool {
        let stopped = self.stopped_s.unwrap_or(0.0);
        stopped == 0.0 || self.t_end_s - self.t_start_s - stopped >= STOP_RESOLUTION_S
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_percentile_never_lies_above_the_largest_latency_recorded() {
        // 2 560 000 ns falls in a histogram bucket whose top is 2 561 023 ns.
        let mut dir = DirStats::default();
        dir.record_n(100, 4096, 2_560_000);
        let s = LatencySummary::of(&dir).unwrap();
        assert_eq!(s.max, 2560.0);
        assert!(s.p99 <= s.max && s.p999 <= s.max && s.p50 <= s.max, "{s:?}");
        // 980 I/Os at 100 µs and 20 at 10 ms: p99 is the slow one, p50 the fast one.
        let mut dir = DirStats::default();
        dir.record_n(980, 4096, 100_000);
        dir.record_n(20, 4096, 10_000_000);
        let s = LatencySummary::of(&dir).unwrap();
        assert!((s.p50 - 100.0).abs() < 0.2, "{s:?}");
        assert!((s.p99 - 10_000.0).abs() < 10.0, "{s:?}");
    }

    #[test]
    fn an_interval_stopped_for_all_but_a_tick_has_no_rates() {
        let mut stats = IntervalStats::new();
        stats.write.record_n(581, 4096, 70_000);
        stats.stopped_s = 0.993;
        let s = Sample::new(3, 3.0, 4.0, &stats, 0);
        assert_eq!((s.ops, s.iops, s.mb_per_s), (581, 0.0, 0.0));
        stats.stopped_s = 0.5;
        assert_eq!(Sample::new(3, 3.0, 4.0, &stats, 0).iops, 1162.0);
    }

    #[test]
    fn a_sample_read_back_and_written_again_is_the_same_text() {
        // resume rewrites the samples it keeps: they must come out as they were written.
        let mut bits = 0x9e37_79b9_7f4a_7c15_u64;
        for index in 0..2000 {
            bits = crate::pattern::mix64(bits);
            let mut stats = IntervalStats::new();
            stats
                .write
                .record_n(1 + bits % 9973, 4096, 1 + bits % 50_000_000);
            let t_start_s = (bits >> 11) as f64 / (1u64 << 40) as f64;
            let t_end_s = t_start_s + 0.1 + (bits % 7919) as f64 / 7.0;
            let sample = Sample::new(index, t_start_s, t_end_s, &stats, bits >> 20);
            let text = serde_json::to_string(&sample).unwrap();
            let back: Sample = serde_json::from_str(&text).unwrap();
            assert_eq!(serde_json::to_string(&back).unwrap(), text);
        }
    }
}
