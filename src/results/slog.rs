//! `slog.json`: a SLOG suitability run as its directory records it (the plan, the device and
//! baseline measured, the evidence and the verdict), beside the sustained phase's run.json and
//! samples.jsonl. The measuring and judging that fill it live in `crate::slog`.

use std::path::{Path, PathBuf};

use serde::{Deserialize, Serialize};

use crate::drive::RunEnd;

/// The version of slog.json this build writes; it reads this one and every older one.
pub const SCHEMA_VERSION: u32 = 1;

/// The file name inside a slog run directory.
pub const FILE: &str = "slog.json";

/// The device's write cache as the kernel (or the simulator) reports it.
#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize, schemars::JsonSchema)]
pub struct CacheReport {
    /// `write back` or `write through`.
    pub write_cache: Option<String>,
    /// Forced Unit Access: O_DSYNC writes go as FUA writes instead of write + flush.
    pub fua: Option<bool>,
    /// What that means for the figures.
    pub meaning: String,
}

/// One measured target (the device, or the baseline).
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize, schemars::JsonSchema)]
pub struct Measurement {
    /// `ram (zram3)`, a path or `run DIR`.
    pub label: String,
    pub target: String,
    pub kind: String,
    pub cache: CacheReport,
    pub measured: Measured,
}

/// `slog.json`.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize, schemars::JsonSchema)]
pub struct SlogRecord {
    /// The layout of this record ([`SCHEMA_VERSION`]); records older than the field are 1.
    #[serde(default = "super::version::first")]
    pub schema_version: u32,
    pub tool: String,
    pub version: String,
    /// The build that recorded the run: its commit and build date (`abc1234 2026-12-01`);
    /// absent in records older than the field.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub build: Option<String>,
    /// The command line that ran it, program name first; empty in records older than the
    /// field.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub command_line: Vec<String>,
    /// When the run started (UTC); absent in records older than the field.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub created_utc: Option<String>,
    pub plan: Plan,
    pub device: Measurement,
    #[serde(default)]
    pub baseline: Option<Measurement>,
    pub end: RunEnd,
    pub from: Vec<PathBuf>,
    pub evidence: Evidence,
    pub verdict: Verdict,
}

/// What to measure.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize, schemars::JsonSchema)]
pub struct Plan {
    pub max_size: u64,
    /// Seconds of the sustained phase (0: skip it).
    pub sustain_s: f64,
    pub seed: u64,
    /// The sustained phase's issue rate in 4 KiB sync writes per second (`--zil-rate N/s`,
    /// open loop); absent: flat out.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub rate_iops: Option<u64>,
}

/// Latency of synchronous writes in µs.
#[derive(Clone, Copy, Debug, Default, PartialEq, Serialize, Deserialize, schemars::JsonSchema)]
pub struct SyncLatency {
    pub mean: f64,
    pub p50: f64,
    pub p99: f64,
    pub p9999: f64,
    pub max: f64,
}

/// One measured phase: a size in one mode, or a number of writers.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize, schemars::JsonSchema)]
pub struct Point {
    pub mode: SyncMode,
    pub size: u64,
    pub writers: u32,
    pub writes: u64,
    pub seconds: f64,
    pub iops: f64,
    /// 10^6 bytes per second.
    pub mb_per_s: f64,
    pub lat_us: SyncLatency,
}

/// The write size of the concurrency and sustained phases, and of the verdict's latency.
pub const LOG_WRITE: u64 = 4096;

/// Everything the sweep measured.
#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize, schemars::JsonSchema)]
pub struct Measured {
    /// Size sweep, both modes (fdatasync first).
    pub sizes: Vec<Point>,
    pub concurrency: Vec<Point>,
    /// The sustained phase as a whole (its seconds are in samples.jsonl).
    pub sustained: Option<Point>,
    /// How the sustained phase held its issue rate (`--zil-rate N/s`); absent when it ran flat
    /// out.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub sustained_load: Option<AtLoad>,
}

/// At the ZIL rate, a write that takes longer than this is slow (µs)…
pub const SLOW_US: u64 = 1_000;
/// …and one longer than this is a stall (µs): a pool waiting on its log feels it.
pub const STALL_US: u64 = 10_000;

/// The sustained phase under an issue rate: the stalls among its writes and the writes it
/// could not issue on time.
#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize, schemars::JsonSchema)]
pub struct AtLoad {
    /// The rate asked for, 4 KiB sync writes per second.
    pub rate_iops: u64,
    /// Writes that took longer than 1 ms, and longer than 10 ms (stalls).
    pub writes_over_1ms: u64,
    pub writes_over_10ms: u64,
    /// Writes issued more than 1 ms after their due time (the device, or the host, fell
    /// behind), and the largest lag (µs).
    pub late: u64,
    pub late_max_us: f64,
}

/// The sustained phase at the ZIL rate, as the verdict judges it.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize, schemars::JsonSchema)]
pub struct LoadEvidence {
    pub at: AtLoad,
    /// Writes completed and their rate over the phase.
    pub writes: u64,
    pub delivered_iops: f64,
    pub seconds: f64,
    pub lat_us: SyncLatency,
    pub source: String,
}

pub use crate::workload::SyncMode;

/// Best to worst.
#[derive(
    Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Serialize, Deserialize, schemars::JsonSchema,
)]
#[serde(rename_all = "snake_case")]
pub enum Rating {
    Suitable,
    Marginal,
    Unsuitable,
}

/// 4 KiB QD1 write + flush latency.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize, schemars::JsonSchema)]
pub struct LatencyEvidence {
    pub mean_us: f64,
    pub p99_us: f64,
    pub source: String,
}

/// How a sustained write phase (a soak, or the slog run's sustained phase) faded.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize, schemars::JsonSchema)]
pub struct FadeEvidence {
    pub start_iops: f64,
    pub end_iops: f64,
    /// Seconds the phase lasted.
    pub seconds: f64,
    /// Bytes written until the rate first fell below `slog::verdict::FADE_OK_PCT` of the start (None: it
    /// never did).
    pub bytes_to_threshold: Option<u64>,
    pub source: String,
}

/// How long an erase that restores the device takes.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize, schemars::JsonSchema)]
pub struct RecoveryEvidence {
    pub erase_seconds: f64,
    pub method: String,
    pub source: String,
}

/// The outcome of `ssdfade plp verify`.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize, schemars::JsonSchema)]
pub struct PlpEvidence {
    /// Acknowledged records checked, and their bytes.
    pub acknowledged: u64,
    #[serde(default)]
    pub acknowledged_bytes: u64,
    /// Seconds of writing the check covers.
    #[serde(default)]
    pub seconds: f64,
    pub lost: u64,
    pub torn: u64,
    pub source: String,
}

/// Endurance left, in host bytes, and the figure it was computed from.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize, schemars::JsonSchema)]
pub struct EnduranceEvidence {
    pub bytes_left: f64,
    pub figure: String,
}

/// Everything the verdict is computed from.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize, schemars::JsonSchema)]
pub struct Evidence {
    pub latency: Option<LatencyEvidence>,
    /// The sustained phase at `--zil-rate N/s`.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub load: Option<LoadEvidence>,
    pub fade: Option<FadeEvidence>,
    pub recovery: Option<RecoveryEvidence>,
    pub plp: Option<PlpEvidence>,
    pub endurance: Option<EnduranceEvidence>,
    /// The user's ZIL write rate in bytes per day.
    pub zil_bytes_per_day: f64,
    /// Why the device loses its contents at power-off (a RAM device, a file on tmpfs), when it
    /// does: such a log loses every acknowledged write when the power goes.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub volatile: Option<String>,
    /// What leaving part of the drive unpartitioned would give it (`--op-sweep`): the
    /// op-sweep's advice, measured on this drive or predicted from its twin.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub over_provisioning: Option<OpSweepEvidence>,
}

/// An op-sweep's advice for this drive (`slog --op-sweep DIR`), as the maintenance plan uses it.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize, schemars::JsonSchema)]
pub struct OpSweepEvidence {
    /// The advised share left unpartitioned, percent, and the baseline's (normally 0).
    pub unpartitioned_pct: f64,
    pub from_unpartitioned_pct: f64,
    /// Steady IOPS of random writes of `bs` bytes at the baseline and at the advised share.
    pub from_iops: f64,
    pub to_iops: f64,
    /// p99 latency of the steady windows, ms.
    pub from_p99_ms: f64,
    pub to_p99_ms: f64,
    pub bs: u64,
    /// The twin file the figures were predicted from (`op-sweep --on-twin`), when they were;
    /// else they were measured on the drive.
    pub twin: Option<String>,
    /// The op-sweep's experiment directory.
    pub source: String,
}

/// One line of the verdict: what was judged, the figure, the threshold and the result
/// (`None`: not tested, which never counts for or against the device).
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize, schemars::JsonSchema)]
pub struct Reason {
    pub topic: String,
    pub rating: Option<Rating>,
    pub value: String,
    pub threshold: String,
    pub source: String,
}

/// The verdict.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize, schemars::JsonSchema)]
pub struct Verdict {
    pub rating: Rating,
    pub reasons: Vec<Reason>,
    /// The latency bands and where they come from.
    pub bands: String,
    /// What keeps a fading device usable, when fade is the problem.
    pub plan: Option<String>,
}

/// True for a slog run directory that holds no samples: its sustained phase was skipped
/// (`--sustain 0`), so it has a sweep and a verdict but no series to chart as a run.
pub fn without_samples(dir: &Path) -> anyhow::Result<bool> {
    Ok(dir.join(FILE).is_file() && super::read_samples(dir)?.is_empty())
}

/// Reads an earlier run's `slog.json`.
pub fn read_record(dir: &Path) -> anyhow::Result<SlogRecord> {
    let path = dir.join(FILE);
    let text = match std::fs::read_to_string(&path) {
        Ok(text) => text,
        Err(e) => crate::bad_input!(
            "cannot read {}: {e}: {} is not a whole slog run directory (its run.json says slog); give the directory slog wrote",
            path.display(),
            dir.display()
        ),
    };
    let record: SlogRecord = super::json::parse(&path, &text)?;
    super::version::check(&path, record.schema_version, SCHEMA_VERSION)?;
    Ok(record)
}
