//! The records on disk: every directory the tool ever wrote still loads (each run, experiment,
//! erase, group, slog and power-loss record under `results/examples/` is read through the
//! typed loaders of `ssdfade::results`, each chart's `NAME.chart.json` through
//! `ssdfade::plot::drawn::read_sidecar`), and
//! the JSON Schemas published under `docs/schema/` are the ones the record types generate.
//!
//! After changing a record type, refresh the schemas with
//! `SSDFADE_WRITE_SCHEMAS=1 cargo test --release --test records` and commit them.

use std::path::{Path, PathBuf};

use ssdfade::results::schema::{schema_file_name, schemas};
use ssdfade::results::{load_experiment, load_run, EraseRecord, GroupRecord, Status};

fn examples() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("results/examples")
}

/// Every directory under `root`, `root` included.
fn walk(root: &Path, out: &mut Vec<PathBuf>) {
    out.push(root.to_path_buf());
    let mut entries: Vec<PathBuf> = std::fs::read_dir(root)
        .unwrap()
        .map(|e| e.unwrap().path())
        .filter(|p| p.is_dir())
        .collect();
    entries.sort();
    for dir in entries {
        walk(&dir, out);
    }
}

/// Loads every record `dir` holds; returns the names of the records loaded.
fn load_records(dir: &Path) -> anyhow::Result<Vec<&'static str>> {
    let mut loaded = Vec::new();
    if dir.join("experiment.json").is_file() {
        let exp = load_experiment(dir)?;
        anyhow::ensure!(!exp.phases.is_empty(), "an experiment without phases");
        loaded.push("experiment.json");
    }
    if dir.join("run.json").is_file() {
        let run = load_run(dir)?;
        anyhow::ensure!(
            run.info.status != Status::Pending,
            "a run recorded as pending"
        );
        loaded.extend(["run.json", "samples.jsonl"]);
    }
    if dir.join("erase.json").is_file() {
        EraseRecord::load(dir)?;
        loaded.push("erase.json");
    }
    if dir.join("group.json").is_file() {
        GroupRecord::read(dir)?;
        loaded.push("group.json");
    }
    if dir.join("slog.json").is_file() {
        ssdfade::results::slog::read_record(dir)?;
        loaded.push("slog.json");
    }
    if dir.join("sweep.json").is_file() {
        ssdfade::results::sweep::SweepTable::load(dir)?;
        loaded.push("sweep.json");
    }
    if dir.join("latency.json").is_file() {
        ssdfade::results::LatencyRecord::load(dir)?;
        loaded.push("latency.json");
    }
    if dir.join("plp.json").is_file() {
        ssdfade::results::plp::VerifyReport::load(dir)?;
        loaded.push("plp.json");
    }
    Ok(loaded)
}

#[test]
fn every_example_directory_loads_through_the_typed_records() {
    let mut dirs = Vec::new();
    walk(&examples(), &mut dirs);
    let mut failures = Vec::new();
    let mut records = 0;
    for dir in &dirs {
        let loaded = match load_records(dir) {
            Ok(loaded) => loaded,
            Err(e) => {
                failures.push(format!("{}: {e:#}", dir.display()));
                continue;
            }
        };
        records += loaded.len();
        for entry in std::fs::read_dir(dir).unwrap() {
            let name = entry.unwrap().file_name().to_string_lossy().into_owned();
            // A chart's record of what it drew loads through its own reader.
            if name.ends_with(".chart.json") {
                if let Err(e) = ssdfade::plot::drawn::read_sidecar(&dir.join(&name)) {
                    failures.push(format!("{e:#}"));
                }
                continue;
            }
            let is_record = name.ends_with(".json") || name.ends_with(".jsonl");
            if is_record && !loaded.contains(&name.as_str()) {
                failures.push(format!("{}/{name}: no typed loader read it", dir.display()));
            }
        }
    }
    assert!(failures.is_empty(), "{}", failures.join("\n"));
    assert!(
        records >= 40,
        "only {records} records under results/examples"
    );
}

#[test]
fn the_published_schemas_are_the_ones_the_record_types_generate() {
    let dir = Path::new(env!("CARGO_MANIFEST_DIR")).join("docs/schema");
    let write = std::env::var_os("SSDFADE_WRITE_SCHEMAS").is_some_and(|v| v == "1");
    let mut expected = Vec::new();
    let mut stale = Vec::new();
    for (file, schema) in schemas() {
        let name = schema_file_name(file);
        let path = dir.join(&name);
        let text = serde_json::to_string_pretty(&schema).unwrap() + "\n";
        if write {
            std::fs::create_dir_all(&dir).unwrap();
            std::fs::write(&path, &text).unwrap();
        } else if std::fs::read_to_string(&path).ok().as_deref() != Some(text.as_str()) {
            stale.push(format!(
                "{} differs from the schema of {file}",
                path.display()
            ));
        }
        expected.push(name);
    }
    for entry in std::fs::read_dir(&dir).unwrap() {
        let name = entry.unwrap().file_name().to_string_lossy().into_owned();
        if !expected.contains(&name) {
            stale.push(format!(
                "{}/{name} is the schema of no record",
                dir.display()
            ));
        }
    }
    assert!(
        stale.is_empty(),
        "{}\nrefresh them: SSDFADE_WRITE_SCHEMAS=1 cargo test --release --test records",
        stale.join("\n")
    );
}
