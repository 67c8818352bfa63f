//! `ssdfade export`: the samples of a run, an experiment or a group as a CSV or JSON-lines
//! table, read back by independent readers (the csv crate, Python's csv module) and compared
//! with samples.jsonl parsed here as plain JSON, and with the figures `ssdfade report` prints.
//! The example directories are only read (copied where `report` writes).

mod common;

use std::path::{Path, PathBuf};
use std::process::Command;

use common::{copy_tree, ssdfade};
use serde_json::Value;

fn examples() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("results/examples")
}

/// `ssdfade export ARGS…` written to a file in `tmp`, returned as text.
fn export(tmp: &Path, dir: &Path, format: &str) -> String {
    let file = tmp.join(format!("export.{format}"));
    let out = ssdfade(tmp)
        .arg("export")
        .arg(dir)
        .args(["--format", format, "--out"])
        .arg(&file)
        .output()
        .unwrap();
    assert!(
        out.status.success(),
        "export {} failed: {}",
        dir.display(),
        String::from_utf8_lossy(&out.stderr)
    );
    std::fs::read_to_string(&file).unwrap()
}

/// The `iops` of every line of `dir/samples.jsonl`, parsed as plain JSON.
fn jsonl_iops(dir: &Path) -> Vec<f64> {
    std::fs::read_to_string(dir.join("samples.jsonl"))
        .unwrap()
        .lines()
        .map(|l| {
            serde_json::from_str::<Value>(l).unwrap()["iops"]
                .as_f64()
                .unwrap()
        })
        .collect()
}

/// The CSV as (header, rows of strings).
fn read_csv(text: &str) -> (Vec<String>, Vec<Vec<String>>) {
    let mut r = csv::Reader::from_reader(text.as_bytes());
    let header = r.headers().unwrap().iter().map(String::from).collect();
    let rows = r
        .records()
        .map(|rec| rec.unwrap().iter().map(String::from).collect())
        .collect();
    (header, rows)
}

fn column(header: &[String], name: &str) -> usize {
    header
        .iter()
        .position(|h| h == name)
        .unwrap_or_else(|| panic!("no column {name} in {header:?}"))
}

#[test]
fn a_run_exports_every_sample_with_its_iops_and_units_in_the_header() {
    let tmp = tempfile::tempdir().unwrap();
    let dir = examples().join("vertex2-sim/04-soak");
    let (header, rows) = read_csv(&export(tmp.path(), &dir, "csv"));
    for name in [
        "t_start_s",
        "t_end_s",
        "iops",
        "mb_per_s",
        "lat_mean_us",
        "lat_p99_us",
    ] {
        column(&header, name);
    }
    assert!(!header.contains(&"phase".to_string()), "{header:?}");
    let iops: Vec<f64> = rows
        .iter()
        .map(|r| r[column(&header, "iops")].parse().unwrap())
        .collect();
    let expected = jsonl_iops(&dir);
    assert!(expected.len() > 100, "too few samples in the example");
    assert_eq!(iops, expected);
}

#[test]
fn an_experiment_exports_one_long_table_with_a_phase_column() {
    let tmp = tempfile::tempdir().unwrap();
    let dir = examples().join("vertex2-sim");
    let (header, rows) = read_csv(&export(tmp.path(), &dir, "csv"));
    assert_eq!(header[0], "phase");
    let record: Value =
        serde_json::from_str(&std::fs::read_to_string(dir.join("experiment.json")).unwrap())
            .unwrap();
    let mut expected = Vec::new();
    let mut phases = 0;
    for phase in record["phases"].as_array().unwrap() {
        let pdir = dir.join(phase["dir"].as_str().unwrap());
        if pdir.join("samples.jsonl").is_file() {
            phases += 1;
            let name = phase["name"].as_str().unwrap().to_string();
            expected.extend(jsonl_iops(&pdir).into_iter().map(|v| (name.clone(), v)));
        }
    }
    assert!(phases >= 4, "the example has {phases} phases with samples");
    let got: Vec<(String, f64)> = rows
        .iter()
        .map(|r| (r[0].clone(), r[column(&header, "iops")].parse().unwrap()))
        .collect();
    assert_eq!(got, expected);
}

#[test]
fn python_csv_reads_the_same_iops_per_phase() {
    if Command::new("python3").arg("-V").output().is_err() {
        return common::skip("python_csv_reads_the_same_iops_per_phase", "no python3");
    }
    let tmp = tempfile::tempdir().unwrap();
    let dir = examples().join("vertex2-sim");
    let text = export(tmp.path(), &dir, "csv");
    let file = tmp.path().join("export.csv");
    let script = "import csv, sys\n\
        sums = {}\n\
        for row in csv.DictReader(open(sys.argv[1], newline='')):\n\
        \x20   sums[row['phase']] = sums.get(row['phase'], 0.0) + float(row['iops'])\n\
        for k, v in sums.items(): print(k, repr(v))\n";
    let out = Command::new("python3")
        .arg("-c")
        .arg(script)
        .arg(&file)
        .output()
        .unwrap();
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let said = String::from_utf8(out.stdout).unwrap();
    let (header, rows) = read_csv(&text);
    let iops = column(&header, "iops");
    let mut lines = said.lines();
    let mut order: Vec<&str> = rows.iter().map(|r| r[0].as_str()).collect();
    order.dedup();
    for phase in order {
        let sum: f64 = rows
            .iter()
            .filter(|r| r[0] == phase)
            .map(|r| r[iops].parse::<f64>().unwrap())
            .sum();
        let line = lines.next().expect("python printed fewer phases");
        let (name, value) = line.split_once(' ').unwrap();
        assert_eq!(name, phase);
        let value: f64 = value.parse().unwrap();
        assert!(
            (value - sum).abs() <= 1e-9 * sum,
            "{phase}: {value} vs {sum}"
        );
    }
}

#[test]
fn jsonl_rows_carry_the_csv_columns_in_order() {
    let tmp = tempfile::tempdir().unwrap();
    let dir = examples().join("sweep-qd-sim");
    let (header, rows) = read_csv(&export(tmp.path(), &dir, "csv"));
    let jsonl = export(tmp.path(), &dir, "jsonl");
    let lines: Vec<&str> = jsonl.lines().collect();
    assert_eq!(lines.len(), rows.len());
    for (line, row) in lines.iter().zip(&rows) {
        let keys: Vec<String> = line
            .trim_matches(|c| c == '{' || c == '}')
            .split(',')
            .filter_map(|f| {
                f.split_once(':')
                    .map(|(k, _)| k.trim_matches('"').to_string())
            })
            .collect();
        assert_eq!(keys, header, "{line}");
        let v: Value = serde_json::from_str(line).unwrap();
        assert_eq!(v["phase"].as_str().unwrap(), row[0]);
        assert_eq!(
            v["iops"].as_f64().unwrap(),
            row[column(&header, "iops")].parse::<f64>().unwrap()
        );
    }
}

#[test]
fn a_group_exports_one_table_with_a_member_column() {
    let tmp = tempfile::tempdir().unwrap();
    let targets = ["sim:vertex2-60g", "sim:vertex2-60g,seed=2"];
    let out = ssdfade(tmp.path())
        .arg("measure")
        .args(targets)
        .args(["--duration", "3s", "--out", "g"])
        .output()
        .unwrap();
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let group = tmp.path().join("g");
    let (header, rows) = read_csv(&export(tmp.path(), &group, "csv"));
    assert_eq!(header[0], "member");
    let record: Value =
        serde_json::from_str(&std::fs::read_to_string(group.join("group.json")).unwrap()).unwrap();
    let mut expected = Vec::new();
    for m in record["members"].as_array().unwrap() {
        let target = m["target"].as_str().unwrap().to_string();
        let run = group.join(m["run_dir"].as_str().unwrap());
        expected.extend(jsonl_iops(&run).into_iter().map(|v| (target.clone(), v)));
    }
    let got: Vec<(String, f64)> = rows
        .iter()
        .map(|r| (r[0].clone(), r[column(&header, "iops")].parse().unwrap()))
        .collect();
    assert_eq!(got, expected);
    // The target holding a comma is one quoted field, not two.
    assert!(got.iter().any(|(m, _)| m == targets[1]));
}

#[test]
fn a_directory_without_records_is_refused_in_one_line() {
    let tmp = tempfile::tempdir().unwrap();
    let out = ssdfade(tmp.path())
        .args(["export", ".", "--out", "x.csv"])
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(2));
    let err = String::from_utf8_lossy(&out.stderr);
    assert_eq!(err.lines().count(), 1, "{err}");
    assert!(err.contains("run, experiment or group directory"), "{err}");
    assert!(!tmp.path().join("x.csv").exists());
}

/// The cells of the report's Results row (Part, Time, IOPS, MB/s, latencies, % of ref) whose
/// first cell is `part`.
fn report_row(report: &str, part: &str) -> Vec<String> {
    report
        .lines()
        .map(|l| {
            l.split('|')
                .map(|c| c.trim().to_string())
                .collect::<Vec<_>>()
        })
        .find(|cells| cells.len() == 10 && cells[1] == part)
        .unwrap_or_else(|| panic!("no row {part} in the report:\n{report}"))[1..]
        .to_vec()
}

/// What a spreadsheet user computes from the CSV with Python's csv module, per phase (or for
/// the run): IOPS and MB/s over the whole time, the I/O count, the first and last full
/// interval's IOPS, and the lowest interval's index and IOPS; one `|`-separated line each.
const SPREADSHEET: &str = "import csv, sys
groups = {}
for row in csv.DictReader(open(sys.argv[1], newline='')):
    groups.setdefault(row.get('phase', 'whole run'), []).append(row)
for name, rows in groups.items():
    ops = sum(int(r['ops']) for r in rows)
    size = sum(int(r['bytes']) for r in rows)
    span = float(rows[-1]['t_end_s']) - float(rows[0]['t_start_s'])
    length = lambda r: float(r['t_end_s']) - float(r['t_start_s'])
    full = [r for r in rows if length(r) >= length(rows[0]) - 1e-9]
    low = min(full, key=lambda r: float(r['iops']))
    print('|'.join([name, '%.0f' % (ops / span), '%.2f' % (size / span / 1e6), str(ops),
        '%.0f' % float(rows[0]['iops']), '%.0f' % float(full[-1]['iops']),
        low['index'], '%.0f' % float(low['iops'])]))
";

/// The report.md `ssdfade report DIR` writes (its terminal print splits wide tables) and
/// Python's figures from `ssdfade export DIR` as rows of cells, keyed by phase (or "whole run").
fn report_and_spreadsheet(tmp: &Path, dir: &Path) -> (String, Vec<Vec<String>>) {
    export(tmp, dir, "csv");
    let out = ssdfade(tmp).arg("report").arg(dir).output().unwrap();
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let report = std::fs::read_to_string(dir.join("report.md")).unwrap();
    let py = Command::new("python3")
        .arg("-c")
        .arg(SPREADSHEET)
        .arg(tmp.join("export.csv"))
        .output()
        .unwrap();
    assert!(
        py.status.success(),
        "{}",
        String::from_utf8_lossy(&py.stderr)
    );
    let rows = String::from_utf8(py.stdout)
        .unwrap()
        .lines()
        .map(|l| l.split('|').map(String::from).collect())
        .collect();
    (report, rows)
}

#[test]
fn python_csv_computes_the_figures_the_report_prints() {
    if Command::new("python3").arg("-V").output().is_err() {
        return common::skip(
            "python_csv_computes_the_figures_the_report_prints",
            "no python3",
        );
    }
    let tmp = tempfile::tempdir().unwrap();
    let exp = tmp.path().join("vertex2-sim");
    copy_tree(&examples().join("vertex2-sim"), &exp);

    // An experiment: each phase's IOPS and MB/s (Results) and I/O count (Latency distribution).
    let (report, phases) = report_and_spreadsheet(tmp.path(), &exp);
    let mut checked = 0;
    for p in &phases {
        if !report
            .lines()
            .any(|l| l.starts_with(&format!("| {} ", p[0])))
        {
            continue; // the prepare or erase phases are not in the table
        }
        let results = report_row(&report, &p[0]);
        assert_eq!((&results[2], &results[3]), (&p[1], &p[2]), "{}", p[0]);
        let report_ios = report
            .lines()
            .filter(|l| l.starts_with(&format!("| {} ", p[0])))
            .map(|l| l.split('|').nth(2).unwrap().trim().to_string())
            .find(|c| c.chars().all(|ch| ch.is_ascii_digit()))
            .unwrap();
        assert_eq!(report_ios, p[3], "{}", p[0]);
        checked += 1;
    }
    assert_eq!(checked, 5, "{phases:?}");

    // A run: the whole run, its first and last full interval, its lowest interval, its I/Os.
    let (report, run) = report_and_spreadsheet(tmp.path(), &exp.join("04-soak"));
    let [_, iops, mbps, ops, first, last, low_index, low] = &run[0][..] else {
        panic!("{run:?}")
    };
    let whole = report_row(&report, "whole run");
    assert_eq!((&whole[2], &whole[3]), (iops, mbps));
    assert_eq!(&report_row(&report, "first interval")[2], first);
    assert_eq!(&report_row(&report, "last full interval")[2], last);
    assert_eq!(
        &report_row(&report, &format!("lowest (#{low_index})"))[2],
        low
    );
    assert!(report.contains(&format!("{ops} I/Os")), "{ops}:\n{report}");
}

#[test]
fn hdr_log_of_an_experiment_is_refused_in_one_line_naming_its_runs() {
    let tmp = tempfile::tempdir().unwrap();
    let dir = tmp.path().join("exp");
    copy_tree(&examples().join("vertex2-sim"), &dir);
    // The example predates latency logs: give its phases one each, as a run of today has.
    let mut phases: Vec<PathBuf> = std::fs::read_dir(&dir)
        .unwrap()
        .map(|e| e.unwrap().path())
        .filter(|p| p.join("samples.jsonl").is_file())
        .collect();
    phases.sort();
    assert!(phases.len() >= 2);
    for p in &phases {
        std::fs::write(p.join("latency.hlog"), "#ssdfade latency log\n").unwrap();
    }
    let out = ssdfade(tmp.path())
        .args(["export", "exp", "--hdr-log", "x.hlog"])
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(2), "{out:?}");
    let err = String::from_utf8_lossy(&out.stderr);
    assert_eq!(err.lines().count(), 1, "{err}");
    assert!(
        err.contains(&format!("holds {} runs", phases.len())),
        "{err}"
    );
    let first = phases[0].file_name().unwrap().to_string_lossy().to_string();
    assert!(err.contains(&format!("exp/{first}")), "{err}");
    assert!(!tmp.path().join("x.hlog").exists());
}
