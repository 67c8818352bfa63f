//! `sweep.json`: the table of a queue-depth, thread or rate sweep, one row per point that ran,
//! written beside the point directories for the user (nothing reads it back to measure).

use std::path::Path;

use anyhow::Context;
use serde::{Deserialize, Serialize};

/// The file's name in the experiment directory.
pub const FILE: &str = "sweep.json";

/// The current version of sweep.json's layout.
pub const SCHEMA_VERSION: u32 = 1;

/// The sweep's table.
#[derive(Clone, Debug, Serialize, Deserialize, schemars::JsonSchema)]
pub struct SweepTable {
    #[serde(default = "super::version::first")]
    pub schema_version: u32,
    /// `qd`, `threads` or `rate`: what varies from point to point.
    pub axis: String,
    /// The workload every point ran with, as the points' run.json records it, without each
    /// point's own seed and rate, and (sweeping QD or threads) without the point's jobs and QD; a
    /// rate sweep's one QD is here.
    pub workload: serde_json::Value,
    pub points: Vec<SweepPoint>,
}

impl SweepTable {
    /// Writes the table to `dir/sweep.json` (atomically).
    pub fn save(&self, dir: &Path) -> anyhow::Result<()> {
        super::write_json_atomic(&dir.join(FILE), self)
    }

    /// Reads `dir/sweep.json`, refusing a layout newer than this build reads.
    pub fn load(dir: &Path) -> anyhow::Result<SweepTable> {
        let path = dir.join(FILE);
        let text = std::fs::read_to_string(&path)
            .with_context(|| format!("reading {}", path.display()))?;
        let table: SweepTable = super::json::parse(&path, &text)?;
        super::version::check(&path, table.schema_version, SCHEMA_VERSION)?;
        Ok(table)
    }
}

/// One point of a sweep, as [`crate::analysis::sweep`] computes it from the point's run.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize, schemars::JsonSchema)]
pub struct SweepPoint {
    /// The phase name (`qd4`, `threads16`, `jobs2-qd4`).
    pub name: String,
    /// Outstanding I/Os of each job (the thread count of a thread sweep).
    pub qd: u32,
    /// Submitting jobs, each with `qd` I/Os in flight, when more than one.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub jobs: Option<u32>,
    /// Threads, one I/O each (a thread sweep only).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub threads: Option<u32>,
    pub iops: f64,
    /// 10^6 bytes per second.
    pub mb_per_s: f64,
    /// Mean latency of every I/O, of reads and of writes, ms (`null`: no such I/O).
    pub avg_ms: Option<f64>,
    pub avg_read_ms: Option<f64>,
    pub avg_write_ms: Option<f64>,
    /// 99th-percentile latency of every I/O, ms.
    pub p99_ms: Option<f64>,
    /// 99.9th-percentile latency of every I/O, ms (`null`: not known exactly, or no I/O).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub p999_ms: Option<f64>,
    /// The issue rate the point was paced at, IOPS (`null`: flat out, closed loop).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub rate_iops: Option<f64>,
    /// A rate sweep's rate as a percent of its `max` point's IOPS, when given so.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub rate_percent: Option<f64>,
    /// Paced points: I/Os issued more than 1 ms after their due time, and the largest such lag
    /// (ms; 0 when none was late).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub late: Option<u64>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub late_max_ms: Option<f64>,
    /// Little's law: the mean latency a closed loop of jobs × `qd` I/Os at `iops` must have,
    /// 1000 × jobs × qd / IOPS ms (`null` when nothing completed).
    pub little_ms: Option<f64>,
    pub engine: String,
    /// The point's run directory, relative to the experiment directory.
    pub run_dir: String,
}
