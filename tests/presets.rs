//! `measure --preset cdm|tiobench|iometer-allinone` through the CLI: each preset's points and
//! their access specifications as the points' run.json recorded them, the preparation write,
//! the printed tables (CDM's lines, tiobench's and Iometer's columns) against the runs'
//! summaries and within 80 columns, SIGKILL mid-preset then `resume`, and the refusals.

mod common;

use std::path::Path;
use std::process::{Command, Output, Stdio};
use std::time::{Duration, Instant};

use common::{json_ok, root_or_skip, ssdfade, Zram};
use serde_json::Value;

fn read_json(path: &Path) -> Value {
    let text = std::fs::read_to_string(path).unwrap_or_else(|e| panic!("{}: {e}", path.display()));
    serde_json::from_str(&text).unwrap_or_else(|e| panic!("{}: {e}", path.display()))
}

/// Runs a preset and returns its stdout (the table), which must fit 80 columns, as its stderr.
fn table(cmd: &mut Command) -> String {
    let out = cmd.env("COLUMNS", "80").output().unwrap();
    assert!(
        out.status.success(),
        "{cmd:?}: {}",
        String::from_utf8_lossy(&out.stderr)
    );
    // The plan line and the phase lines on stderr fit too.
    for line in String::from_utf8_lossy(&out.stderr).lines() {
        assert!(line.chars().count() <= 80, "stderr wider than 80: {line:?}");
    }
    let text = String::from_utf8(out.stdout).unwrap();
    for line in text.lines() {
        // The directory lines name a path of any length; every table line fits.
        if !line.contains("/") {
            assert!(line.chars().count() <= 80, "wider than 80: {line:?}");
        }
    }
    text
}

/// The phases of an experiment directory: (name, status, attempts, dir).
fn phases(dir: &Path) -> Vec<(String, String, u64, String)> {
    read_json(&dir.join("experiment.json"))["phases"]
        .as_array()
        .unwrap()
        .iter()
        .map(|p| {
            (
                p["name"].as_str().unwrap().to_string(),
                p["status"].as_str().unwrap().to_string(),
                p["attempts"].as_u64().unwrap(),
                p["dir"].as_str().unwrap_or("").to_string(),
            )
        })
        .collect()
}

/// run.json of the point named `name`.
fn run_of(dir: &Path, name: &str) -> Value {
    let (_, _, _, sub) = phases(dir)
        .into_iter()
        .find(|p| p.0 == name)
        .unwrap_or_else(|| panic!("no phase {name}"));
    read_json(&dir.join(sub).join("run.json"))
}

/// The preparation write covered the whole test region, sequentially, before any point.
fn assert_prepared(dir: &Path, span: u64) {
    let list = phases(dir);
    assert_eq!(list[0].0, "prepare");
    let run = run_of(dir, "prepare");
    let w = &run["workload"];
    assert_eq!(w["bs"], 1 << 20);
    assert_eq!(w["read_pct"], 0);
    assert_eq!(w["random_pct"], 0);
    assert_eq!(w["span"], span);
    let written = run["summary"]["bytes"].as_u64().unwrap();
    assert!(written >= span, "prepared {written} of {span} bytes");
}

/// The number after `start` and before `end` in `line`.
fn number_between(line: &str, start: &str, end: &str) -> f64 {
    let from = line.find(start).unwrap() + start.len();
    let to = from + line[from..].find(end).unwrap();
    line[from..to].trim().parse().unwrap()
}

fn close(printed: f64, exact: f64, decimals: i32) -> bool {
    (printed - exact).abs() <= 0.51 * 10f64.powi(-decimals)
}

#[test]
fn cdm_on_a_simulated_drive_runs_the_eight_points_and_prints_them_as_crystaldiskmark() {
    let work = tempfile::tempdir().unwrap();
    let dir = work.path().join("cdm");
    let text = table(
        ssdfade(work.path())
            .args(["measure", "sim:vertex2-60g", "--preset", "cdm"])
            .args(["--duration", "200ms", "--span", "64M", "--out"])
            .arg(&dir),
    );
    assert_prepared(&dir, 64 << 20);
    let expected = [
        ("seq1m-q8t1-read", 1 << 20, 8, 100, 0),
        ("seq1m-q1t1-read", 1 << 20, 1, 100, 0),
        ("rnd4k-q32t1-read", 4096, 32, 100, 100),
        ("rnd4k-q1t1-read", 4096, 1, 100, 100),
        ("seq1m-q8t1-write", 1 << 20, 8, 0, 0),
        ("seq1m-q1t1-write", 1 << 20, 1, 0, 0),
        ("rnd4k-q32t1-write", 4096, 32, 0, 100),
        ("rnd4k-q1t1-write", 4096, 1, 0, 100),
    ];
    let list = phases(&dir);
    assert_eq!(list.len(), 9);
    let lines: Vec<&str> = text.lines().filter(|l| l.contains(" MB/s [")).collect();
    assert_eq!(lines.len(), 8, "{text}");
    let read_at = text.find("[Read]").unwrap();
    let write_at = text.find("[Write]").unwrap();
    assert!(read_at < write_at, "{text}");
    for (i, (name, bs, qd, read, random)) in expected.into_iter().enumerate() {
        assert_eq!(list[i + 1].0, name);
        assert_eq!(list[i + 1].1, "completed");
        let run = run_of(&dir, name);
        let w = &run["workload"];
        assert_eq!(
            (w["bs"].as_u64(), w["qd"].as_u64()),
            (Some(bs), Some(qd)),
            "{name}"
        );
        assert_eq!(
            (w["read_pct"].as_u64(), w["random_pct"].as_u64()),
            (Some(read), Some(random)),
            "{name}"
        );
        assert_eq!(w["span"], 64 << 20, "{name}");
        // CDM's line: label, size, Q and T, then MB/s = bytes / seconds / 10^6, IOPS, mean µs.
        let line = lines[i];
        let label = if random == 100 { "RND" } else { "SEQ" };
        let size = if bs == 4096 { "4KiB" } else { "1MiB" };
        assert!(
            line.starts_with(&format!("  {label} {size:>7} (Q={qd:>3}, T= 1): ")),
            "{line}"
        );
        let s = &run["summary"];
        let mbs = s["bytes"].as_f64().unwrap() / s["seconds"].as_f64().unwrap() / 1e6;
        assert!(
            close(number_between(line, "):", " MB/s"), mbs, 3),
            "{line} vs {mbs}"
        );
        let iops = s["ops"].as_f64().unwrap() / s["seconds"].as_f64().unwrap();
        assert!(
            close(number_between(line, "[", " IOPS"), iops, 1),
            "{line} vs {iops}"
        );
        let lat = s["lat_us"]["mean"].as_f64().unwrap();
        assert!(
            close(number_between(line, "<", " us>"), lat, 2),
            "{line} vs {lat}"
        );
    }
    assert!(text.contains("* MB/s = 1,000,000 bytes/s"), "{text}");
    assert!(text.contains("Prepared: the first 64.0 MiB"), "{text}");
    // The bars of the eight points: a PNG named after the preset, listed and in the report.
    let png = std::fs::read(dir.join("cdm.png")).unwrap();
    assert_eq!(&png[1..4], b"PNG");
    assert!(text.contains(", cdm.png"), "{text}");
    let report = std::fs::read_to_string(dir.join("report.md")).unwrap();
    assert!(report.contains("(cdm.png)"), "{report}");
}

#[test]
fn cdm_json_gives_every_point_with_its_figures() {
    let work = tempfile::tempdir().unwrap();
    let v = json_ok(
        ssdfade(work.path())
            .args(["measure", "sim:vertex2-60g", "--preset", "cdm"])
            .args([
                "--duration",
                "200ms",
                "--span",
                "16M",
                "--json",
                "--out",
                "j",
            ]),
    );
    assert_eq!(v["experiment"], "cdm");
    assert_eq!(v["status"], "completed");
    assert_eq!(v["span"], 16 << 20);
    assert!(v["prepare"]["bytes"].as_u64().unwrap() >= 16 << 20);
    let points = v["points"].as_array().unwrap();
    assert_eq!(points.len(), 8);
    for p in points {
        let run = read_json(&Path::new(p["run_dir"].as_str().unwrap()).join("run.json"));
        assert_eq!(p["mb_per_s"], run["summary"]["mb_per_s"], "{p}");
        assert_eq!(p["iops"], run["summary"]["iops"], "{p}");
        assert_eq!(p["lat_us"], run["summary"]["lat_us"]["mean"], "{p}");
        assert_eq!(p["qd"], run["workload"]["qd"], "{p}");
    }
    assert_eq!(v["phases"].as_array().unwrap().len(), 9);
}

#[test]
fn iometer_allinone_runs_48_specifications_and_prints_iometer_columns() {
    let work = tempfile::tempdir().unwrap();
    let dir = work.path().join("iom");
    let text = table(
        ssdfade(work.path())
            .args(["measure", "sim:vertex2-60g", "--preset", "iometer-allinone"])
            .args(["--duration", "100ms", "--span", "16M", "--out"])
            .arg(&dir),
    );
    assert_prepared(&dir, 16 << 20);
    let list = phases(&dir);
    assert_eq!(list.len(), 49);
    let header = text
        .lines()
        .find(|l| l.contains("Access spec"))
        .expect("header");
    for column in ["IOps", "Rd MBps", "Wr MBps", "RT", "RRT", "WRT", "TT"] {
        assert!(header.contains(column), "{header}");
    }
    assert!(
        text.contains("TT = RT"),
        "the legend explains the abbreviations: {text}"
    );
    let rows: Vec<&str> = text
        .lines()
        .skip_while(|l| !l.contains("Access spec"))
        .skip(1)
        .take_while(|l| !l.trim_start().starts_with("Prepared"))
        .collect();
    assert_eq!(rows.len(), 48, "{text}");
    let mut sizes = std::collections::BTreeSet::new();
    for (row, (name, status, _, _)) in rows.iter().zip(&list[1..]) {
        assert_eq!(status, "completed");
        let run = run_of(&dir, name);
        let w = &run["workload"];
        let s = &run["summary"];
        sizes.insert(w["bs"].as_u64().unwrap());
        assert_eq!(w["qd"], 1, "Iometer's one outstanding I/O");
        let reads = w["read_pct"] == 100;
        assert_eq!(name.ends_with("-read"), reads, "{name}");
        assert_eq!(name.contains("-rnd-"), w["random_pct"] == 100, "{name}");
        let cells: Vec<&str> = row.split_whitespace().collect();
        // "4K rnd read  IOps RdMBps WrMBps RT RRT WRT TT"
        assert_eq!(cells.len(), 10, "{row}");
        let iops = s["ops"].as_f64().unwrap() / s["seconds"].as_f64().unwrap();
        assert!(close(cells[3].parse().unwrap(), iops, 1), "{row} vs {iops}");
        let mbps = s["bytes"].as_f64().unwrap() / s["seconds"].as_f64().unwrap() / 1e6;
        let (rd, wr) = (cells[4].parse().unwrap(), cells[5].parse().unwrap());
        assert!(close(if reads { rd } else { wr }, mbps, 2), "{row}");
        assert_eq!(if reads { wr } else { rd }, 0.0, "{row}");
        let rt = s["lat_us"]["mean"].as_f64().unwrap() / 1000.0;
        assert!(close(cells[6].parse().unwrap(), rt, 4), "{row} vs {rt}");
        let (own, other) = if reads { (7, 8) } else { (8, 7) };
        assert!(close(cells[own].parse().unwrap(), rt, 4), "{row}");
        assert_eq!(cells[other], "-", "{row}");
        assert_eq!(
            cells[9], cells[6],
            "no replies: transaction time = response time"
        );
    }
    let expected: std::collections::BTreeSet<u64> = [
        512,
        1 << 10,
        2 << 10,
        4 << 10,
        8 << 10,
        16 << 10,
        32 << 10,
        64 << 10,
        128 << 10,
        256 << 10,
        512 << 10,
        1 << 20,
    ]
    .into();
    assert_eq!(sizes, expected);
}

#[test]
fn tiobench_on_zram_runs_the_threads_engine_at_1_2_4_8_and_prints_tiobench_columns() {
    if !root_or_skip(
        "tiobench_on_zram_runs_the_threads_engine_at_1_2_4_8_and_prints_tiobench_columns",
    ) {
        return;
    }
    let zram = Zram::new(64 << 20);
    let dev = zram.path.to_str().unwrap();
    let work = tempfile::tempdir().unwrap();
    let dir = work.path().join("tio");
    let text = table(
        ssdfade(work.path())
            .args([
                "measure",
                dev,
                "--destroy-data",
                dev,
                "--preset",
                "tiobench",
            ])
            .args(["--duration", "200ms", "--out"])
            .arg(&dir),
    );
    // The whole 64 MiB device (smaller than CDM's 1 GiB) is the test region.
    assert_prepared(&dir, 64 << 20);
    let list = phases(&dir);
    assert_eq!(list.len(), 17);
    let titles = [
        ("Sequential Reads", 100, 0),
        ("Random Reads", 100, 100),
        ("Sequential Writes", 0, 0),
        ("Random Writes", 0, 100),
    ];
    for (t, (title, read, random)) in titles.into_iter().enumerate() {
        let block: Vec<&str> = text
            .lines()
            .skip_while(|l| *l != title)
            .skip(3)
            .take(4)
            .collect();
        assert_eq!(block.len(), 4, "{title}: {text}");
        for (i, threads) in [1u64, 2, 4, 8].into_iter().enumerate() {
            let (name, status, _, _) = &list[1 + 4 * t + i];
            assert_eq!(status, "completed");
            let run = run_of(&dir, name);
            assert_eq!(run["engine"], "threads", "{name}");
            let w = &run["workload"];
            assert_eq!(w["qd"], threads, "{name}");
            assert_eq!(w["bs"], 4096, "{name}");
            assert_eq!(
                (w["read_pct"].as_u64(), w["random_pct"].as_u64()),
                (Some(read), Some(random))
            );
            let s = &run["summary"];
            let cells: Vec<&str> = block[i].split_whitespace().collect();
            // File MiB, Blk, Thr, Rate, CPU%, Avg, Max, >2s, >10s, Eff
            assert_eq!(cells.len(), 10, "{}", block[i]);
            assert_eq!(cells[0], "64");
            assert_eq!(cells[2], threads.to_string());
            let secs = s["seconds"].as_f64().unwrap();
            let rate = s["bytes"].as_f64().unwrap() / secs / 1e6;
            assert!(
                close(cells[3].parse().unwrap(), rate, 2),
                "{} vs {rate}",
                block[i]
            );
            let cpu = 100.0 * s["cpu_seconds"].as_f64().unwrap() / secs;
            let printed_cpu: f64 = cells[4].trim_end_matches('%').parse().unwrap();
            assert!(close(printed_cpu, cpu, 2), "{} vs {cpu}", block[i]);
            let avg = s["lat_us"]["mean"].as_f64().unwrap() / 1000.0;
            assert!(close(cells[5].parse().unwrap(), avg, 3), "{}", block[i]);
            let max = s["lat_us"]["max"].as_f64().unwrap() / 1000.0;
            assert!(close(cells[6].parse().unwrap(), max, 3), "{}", block[i]);
            assert!(close(
                cells[7].parse().unwrap(),
                s["pct_over_2s"].as_f64().unwrap(),
                5
            ));
            assert!(close(
                cells[8].parse().unwrap(),
                s["pct_over_10s"].as_f64().unwrap(),
                5
            ));
            let eff: f64 = cells[9].parse().unwrap();
            assert!(
                (eff - rate / (cpu / 100.0)).abs() <= 0.51,
                "{} vs {}",
                block[i],
                rate / (cpu / 100.0)
            );
        }
    }
}

#[test]
fn a_preset_killed_mid_way_resumes_without_running_finished_points_again() {
    let work = tempfile::tempdir().unwrap();
    let dir = work.path().join("killed");
    let mut child = ssdfade(work.path())
        .args(["measure", "sim:vertex2-60g", "--preset", "cdm"])
        .args(["--duration", "1s", "--span", "16M", "--out"])
        .arg(&dir)
        .stdout(Stdio::null())
        .stderr(Stdio::null())
        .spawn()
        .unwrap();
    let deadline = Instant::now() + Duration::from_secs(120);
    loop {
        assert!(Instant::now() < deadline, "the fourth point never started");
        let running = std::fs::read_to_string(dir.join("experiment.json"))
            .ok()
            .and_then(|t| serde_json::from_str::<Value>(&t).ok())
            .is_some_and(|v| v["phases"][4]["status"] == "running");
        if running {
            break;
        }
        std::thread::sleep(Duration::from_millis(20));
    }
    child.kill().unwrap();
    child.wait().unwrap();
    let before = phases(&dir);
    let done: Vec<(String, Value)> = before
        .iter()
        .filter(|p| p.1 == "completed")
        .map(|p| (p.0.clone(), run_of(&dir, &p.0)))
        .collect();
    assert!(done.len() >= 4, "{before:?}");
    let v = json_ok(ssdfade(work.path()).arg("resume").arg(&dir).arg("--json"));
    assert_eq!(v["status"], "completed");
    assert_eq!(v["points"].as_array().unwrap().len(), 8);
    let after = phases(&dir);
    assert!(after.iter().all(|p| p.1 == "completed"), "{after:?}");
    for (name, run) in &done {
        let now = run_of(&dir, name);
        assert_eq!(now["started_utc"], run["started_utc"], "{name} ran again");
        let attempts = after.iter().find(|p| &p.0 == name).unwrap().2;
        assert_eq!(attempts, 1, "{name}");
    }
    assert_eq!(after[4].2, 2, "the point cut short ran again");
}

fn refused(args: &[&str], work: &Path) -> Output {
    let out = ssdfade(work)
        .args(args)
        .args(["--out", "r"])
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(2), "{args:?}");
    let err = String::from_utf8_lossy(&out.stderr);
    assert_eq!(err.lines().count(), 1, "{args:?}: {err}");
    assert!(!work.join("r").exists(), "{args:?} created a directory");
    out
}

#[test]
fn options_that_do_not_apply_to_a_preset_are_refused_in_one_line() {
    let work = tempfile::tempdir().unwrap();
    let sim = "sim:vertex2-60g";
    for option in [
        &["--bs", "8k"][..],
        &["--qd", "4"],
        &["--read-pct", "50"],
        &["--random-pct", "0"],
        &["--align", "512"],
        &["--bytes", "1G"],
    ] {
        let mut args = vec!["measure", sim, "--preset", "cdm"];
        args.extend_from_slice(option);
        let out = refused(&args, work.path());
        let err = String::from_utf8_lossy(&out.stderr);
        assert!(err.contains("--preset") && err.contains(option[0]), "{err}");
    }
    refused(&["measure", sim, sim, "--preset", "cdm"], work.path());
    refused(
        &["measure", sim, "--preset", "cdm", "--span", "100G"],
        work.path(),
    );
    let file = work.path().join("f.img");
    std::fs::write(&file, vec![0u8; 1 << 20]).unwrap();
    let f = file.to_str().unwrap();
    let out = refused(&["measure", f, "--preset", "cdm"], work.path());
    assert!(String::from_utf8_lossy(&out.stderr).contains("--destroy-data"));
    let out = refused(
        &[
            "measure",
            f,
            "--destroy-data",
            f,
            "--preset",
            "tiobench",
            "--engine",
            "uring",
        ],
        work.path(),
    );
    assert!(String::from_utf8_lossy(&out.stderr).contains("--engine"));
}

#[test]
fn iometer_on_a_4k_device_leaves_out_the_transfers_it_cannot_take_and_says_so() {
    if !root_or_skip("iometer_on_a_4k_device_leaves_out_the_transfers_it_cannot_take_and_says_so") {
        return;
    }
    let zram = Zram::new(16 << 20);
    let dev = zram.path.to_str().unwrap();
    let work = tempfile::tempdir().unwrap();
    let v = json_ok(
        ssdfade(work.path())
            .args(["measure", dev, "--destroy-data", dev])
            .args(["--preset", "iometer-allinone", "--duration", "100ms"])
            .args(["--json", "--out", "iom"]),
    );
    let points = v["points"].as_array().unwrap();
    assert_eq!(points.len(), 36, "12 sizes less 512 B, 1 KiB, 2 KiB, × 4");
    assert!(points.iter().all(|p| p["bs"].as_u64().unwrap() >= 4096));
    assert_eq!(
        v["left_out"],
        "Left out: 512B, 1K, 2K transfers (the target's logical block is 4096 bytes)"
    );
}
