//! Trims (discards, counted apart from reads and writes) recomputed from samples.jsonl alone:
//! run.json's trim summary, the measure table's trim rows and the report's trim sentence.

use serde_json::Value;

use super::{close, json, num};
use crate::common::{run_ok, ssdfade};
use ssdfade::units::{format_count, format_latency_us};

/// A minute of random writes with 10 % trims on a simulated Vertex 2 at 1 s: the trims, bytes
/// trimmed, trims per second, mean and largest trim latency against the samples' trims.
#[test]
fn trim_totals_rate_and_latency_are_the_oracles() {
    let tmp = tempfile::tempdir().unwrap();
    let dir = tmp.path().join("trim");
    let table = run_ok(
        ssdfade(tmp.path())
            .args(["measure", "sim:vertex2-60g,scale=16", "--duration", "1m"])
            .args([
                "--trim-pct",
                "10",
                "--interval",
                "1s",
                "--seed",
                "2",
                "--out",
            ])
            .arg(&dir),
    );
    let lines: Vec<Value> = std::fs::read_to_string(dir.join("samples.jsonl"))
        .unwrap()
        .lines()
        .map(|l| serde_json::from_str(l).unwrap())
        .collect();
    let (mut ops, mut bytes, mut secs, mut weighted, mut max) = (0u64, 0u64, 0.0, 0.0, 0f64);
    let mut rw = 0u64;
    for v in &lines {
        secs += num(&v["t_end_s"]) - num(&v["t_start_s"]);
        rw += v["ops"].as_u64().unwrap();
        let t = &v["trim"];
        if t.is_null() {
            continue;
        }
        let n = t["ops"].as_u64().unwrap();
        ops += n;
        bytes += t["bytes"].as_u64().unwrap();
        weighted += num(&t["lat_us"]["mean"]) * n as f64;
        max = max.max(num(&t["lat_us"]["max"]));
    }
    assert!(
        ops > 0 && rw > ops,
        "{ops} trims among {rw} reads and writes"
    );
    let (rate, mean) = (ops as f64 / secs, weighted / ops as f64);

    let info = json(&dir.join("run.json"));
    let t = &info["summary"]["trim"];
    assert_eq!(t["ops"].as_u64(), Some(ops), "trims");
    assert_eq!(t["bytes"].as_u64(), Some(bytes), "bytes trimmed");
    close("trims per second", num(&t["iops"]), rate, 1e-9);
    close("trim mean", num(&t["lat_us"]["mean"]), mean, 1e-6);
    close("trim max", num(&t["lat_us"]["max"]), max, 1e-12);
    // Trims are not in the totals: the summary's I/Os are the reads and writes alone.
    assert_eq!(
        info["summary"]["ops"].as_u64(),
        Some(rw),
        "reads and writes"
    );

    // The measure table's rows, as the number rule prints them.
    let row = |name: &str| {
        table
            .lines()
            .find(|l| l.trim_start().starts_with(name))
            .unwrap_or_else(|| panic!("no row {name:?} in\n{table}"))
            .to_string()
    };
    let want = format!(
        "{ops} ({} per second, not in the totals)",
        format_count(rate)
    );
    assert!(
        row("Trims").ends_with(&want),
        "{:?} lacks {want:?}",
        row("Trims")
    );
    assert!(row("Average trim response time").ends_with(&format_latency_us(mean)));
    assert!(row("Maximum trim response time").ends_with(&format_latency_us(max)));

    run_ok(ssdfade(tmp.path()).arg("report").arg(&dir));
    let md = std::fs::read_to_string(dir.join("report.md")).unwrap();
    let want = format!(
        "{ops} trims, {} trimmed, {} per second; latency mean {}",
        ssdfade::units::format_gb(bytes),
        format_count(rate),
        format_latency_us(mean)
    );
    assert!(md.contains(&want), "report.md lacks {want:?}");
    assert!(md.contains(&format!(", max {}.", format_latency_us(max))));
}
