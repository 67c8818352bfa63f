//! JSON Schemas of the records, generated from their types: the files published under
//! `docs/schema/` (one per record file, `run.json` → `run.schema.json`).

use schemars::schema_for;

use super::plp::VerifyReport;
use super::slog::SlogRecord;
use super::{EraseRecord, ExperimentRecord, GroupRecord, RunInfo};
use crate::stats::Sample;

/// Each record file with the schema of its type (`samples.jsonl`: of one line).
pub fn schemas() -> Vec<(&'static str, serde_json::Value)> {
    [
        ("run.json", schema_for!(RunInfo)),
        ("samples.jsonl", schema_for!(Sample)),
        ("experiment.json", schema_for!(ExperimentRecord)),
        ("erase.json", schema_for!(EraseRecord)),
        ("group.json", schema_for!(GroupRecord)),
        ("slog.json", schema_for!(SlogRecord)),
        ("plp.json", schema_for!(VerifyReport)),
        ("sweep.json", schema_for!(crate::results::sweep::SweepTable)),
        ("latency.json", schema_for!(crate::results::LatencyRecord)),
    ]
    .into_iter()
    .map(|(file, schema)| (file, schema.to_value()))
    .collect()
}

/// The name of `file`'s schema under `docs/schema/`.
pub fn schema_file_name(file: &str) -> String {
    let stem = file.split('.').next().unwrap_or(file);
    format!("{stem}.schema.json")
}
