//! `experiment pts` on a scaled simulated drive: a short throughput-and-latency suite whose
//! figures are the plain averages of its measurement window's runs and read the same in the
//! terminal, `--json` and report.md; a test stops at its first steady window, each throughput
//! block size preconditioned and judged on its own; the plan lists the IOPS test's 56 cells per
//! round; bad `--tests` or `--rounds` are refused in one line, exit 2, nothing written; WSAT, HIR
//! and XSR run inside the suite with their own figures, read from their phases' raw data; 4K random
//! writes after the PTS's preconditioning settle, in rounds long enough, at WSAT's level.

mod common;

use std::path::{Path, PathBuf};

use common::{json_ok, run_ok, ssdfade};
use serde_json::Value;
use ssdfade::plot::drawn::{read_sidecar, DrawnPanel};
use ssdfade::units::{format_count, format_latency_us};

/// A drive the issue does not name, small enough for the preconditioning to take seconds.
const TARGET: &str = "sim:dc-ssd-400g,capacity=8GB,scale=64";

/// The shared run's cap on rounds: more than a steady window, so a test that settles stops.
const CAP: u32 = 8;

/// run.json's summary of the phase directory of `dir` whose name ends with `name`.
fn run_summary(dir: &Path, name: &str) -> Value {
    let sub = std::fs::read_dir(dir)
        .unwrap()
        .map(|e| e.unwrap().path())
        .find(|p| p.file_name().unwrap().to_string_lossy().ends_with(name))
        .unwrap_or_else(|| panic!("no phase directory {name} in {}", dir.display()));
    let run: Value =
        serde_json::from_str(&std::fs::read_to_string(sub.join("run.json")).unwrap()).unwrap();
    run["summary"].clone()
}

/// The PTS's name of a transfer size.
fn size(bs: u64) -> String {
    if bs.is_multiple_of(1024) {
        format!("{}K", bs / 1024)
    } else {
        format!("{}K", bs as f64 / 1024.0)
    }
}

#[test]
fn a_short_suite_gives_its_window_averages_alike_in_terminal_json_and_report() {
    let work = tempfile::tempdir().unwrap();
    let dir = work.path().join("e");
    let f = json_ok(
        ssdfade(work.path())
            .args([
                "experiment",
                "pts",
                TARGET,
                "--tests",
                "lat,tp",
                "--seed",
                "5",
            ])
            .args([
                "--rounds",
                &CAP.to_string(),
                "--round",
                "1s",
                "--json",
                "--out",
            ])
            .arg(&dir),
    );
    let tests = f["tests"].as_array().unwrap();
    let names: Vec<&str> = tests.iter().map(|t| t["name"].as_str().unwrap()).collect();
    assert_eq!(
        names,
        ["tp-1024K", "tp-128K", "lat"],
        "SNIA's order, whatever the order given; each throughput block size its own test"
    );
    let record = ssdfade::results::load_experiment(&dir).unwrap().record;
    let terminal = ssdfade::output::summary::summary_text(&dir, &record);
    ssdfade(work.path())
        .arg("report")
        .arg(&dir)
        .output()
        .unwrap();
    let report = std::fs::read_to_string(dir.join("report.md")).unwrap();
    let phases: Vec<String> = record.phases.iter().map(|p| p.phase.name.clone()).collect();
    let mut stopped_early = 0;
    for t in tests {
        let name = t["name"].as_str().unwrap();
        let (first, last) = (
            t["window"][0].as_u64().unwrap(),
            t["window"][1].as_u64().unwrap(),
        );
        assert_eq!(last - first + 1, 5, "{name}: a window of five rounds");
        // SNIA's early stop: a steady test ends with its first steady window (its later
        // rounds are not in the record), one that never settles runs to the cap.
        let rounds = t["rounds"].as_u64().unwrap();
        if t["steady"] == true {
            assert_eq!(rounds, last, "{name}: stopped at its steady window");
            stopped_early += u32::from(rounds < u64::from(CAP));
        } else {
            assert_eq!(rounds, u64::from(CAP), "{name}: not steady, ran to the cap");
        }
        let after = format!("{name}-r{:02}-", rounds + 1);
        assert!(
            !phases.iter().any(|p| p.starts_with(&after)),
            "{name}: no round after {rounds} in {phases:?}"
        );
        let ran = phases
            .iter()
            .filter(|p| p.starts_with(&format!("{name}-r")))
            .count();
        let cells = t["cells"].as_array().unwrap().len();
        assert_eq!(ran as u64, rounds * cells as u64, "{name}: whole rounds");
        let cells = t["cells"].as_array().unwrap();
        assert_eq!(cells.len(), if name == "lat" { 9 } else { 2 }, "{name}");
        for c in cells {
            let (read, bs) = (c["read_pct"].as_u64().unwrap(), c["bs"].as_u64().unwrap());
            let cell = format!("{name}-r{{:02}}-{read}-{}-{}", 100 - read, size(bs));
            // The cell's IOPS: the plain average of its window's runs.
            let runs: Vec<Value> = (first..=last)
                .map(|r| run_summary(&dir, &cell.replace("{:02}", &format!("{r:02}"))))
                .collect();
            let mean = runs
                .iter()
                .map(|s| s["iops"].as_f64().unwrap())
                .sum::<f64>()
                / 5.0;
            let iops = c["iops"].as_f64().unwrap();
            assert!(
                (iops - mean).abs() <= 1e-9 * mean,
                "{cell}: {iops} vs {mean}"
            );
            let max = runs
                .iter()
                .map(|s| s["lat_us"]["max"].as_f64().unwrap())
                .fold(0.0, f64::max);
            assert_eq!(c["max_lat_us"].as_f64().unwrap(), max, "{cell}");
            let nines = c["p99999_lat_us"].as_f64().unwrap();
            let avg = c["avg_lat_us"].as_f64().unwrap();
            assert!(avg <= nines && nines <= max, "{cell}: {avg} {nines} {max}");
            if name == "lat" {
                let words = [
                    format!("{read}/{}", 100 - read),
                    size(bs),
                    format_latency_us(avg),
                    format_latency_us(nines),
                    format_latency_us(max),
                    format_count(iops),
                ];
                shown_alike(&terminal, &report, &words, &cell);
            }
        }
        if name != "lat" {
            // Its block size's row: MB/s of the reads, then of the writes.
            let bs = cells[0]["bs"].as_u64().unwrap();
            let mb = |read: u64| {
                let c = cells.iter().find(|c| c["read_pct"] == read);
                format!("{:.0}", c.unwrap()["mb_per_s"].as_f64().unwrap())
            };
            assert_eq!(name, format!("tp-{}", size(bs)));
            shown_alike(&terminal, &report, &[size(bs), mb(100), mb(0)], name);
        }
    }
    // Like for like: `measure --qd 1` of the latency test's 4K random writes on a copy of the
    // drive as the suite left it (preconditioned, its rounds run) gives the cell's IOPS.
    let lat = tests.iter().find(|t| t["name"] == "lat").unwrap();
    let cell = lat["cells"]
        .as_array()
        .unwrap()
        .iter()
        .find(|c| c["read_pct"] == 0 && c["bs"] == 4096)
        .unwrap()["iops"]
        .as_f64()
        .unwrap();
    let copy = work.path().join("copy.sim");
    std::fs::copy(dir.join("drive.sim"), &copy).unwrap();
    let m = json_ok(
        ssdfade(work.path())
            .args(["measure", &format!("{TARGET},state={}", copy.display())])
            .args([
                "--qd",
                "1",
                "--bs",
                "4k",
                "--read-pct",
                "0",
                "--random-pct",
                "100",
            ])
            .args(["--duration", "1s", "--seed", "1", "--json"]),
    );
    let measured = m["iops"].as_f64().unwrap();
    assert!(
        (measured - cell).abs() <= 0.10 * cell,
        "measure --qd 1 on the suite's drive: {measured} IOPS, the latency table's 4K 0/100: {cell}"
    );
    assert!(
        stopped_early > 0,
        "a sequential write settles within {CAP} rounds: {tests:?}"
    );
    assert!(dir.join("pts.png").is_file(), "the suite's chart");
}

/// The row `words` (cells of text, in order) is in the terminal text and in report.md.
fn shown_alike(terminal: &str, report: &str, words: &[String], what: &str) {
    let squeeze = |l: &str| l.split_whitespace().collect::<Vec<_>>().join(" ");
    let row = words.join(" ");
    assert!(
        terminal.lines().any(|l| squeeze(l).ends_with(&row)),
        "{what}: {row:?} not in the terminal:\n{terminal}"
    );
    let md = format!("| {} |", words.join(" | "));
    assert!(
        report.lines().any(|l| squeeze(l) == md),
        "{what}: {md:?} not in report.md"
    );
}

#[test]
fn the_plan_runs_every_cell_of_the_pts_matrices_each_round() {
    let work = tempfile::tempdir().unwrap();
    let out = ssdfade(work.path())
        .args(["experiment", "pts", TARGET, "--rounds", "3", "--dry-run"])
        .output()
        .unwrap();
    assert!(out.status.success());
    let plan = String::from_utf8(out.stdout).unwrap();
    let count = |prefix: &str| plan.lines().filter(|l| l.contains(prefix)).count();
    assert_eq!(count(" iops-r03-"), 56, "7 mixes × 8 block sizes\n{plan}");
    assert_eq!(
        count(" tp-1024K-r03-"),
        2,
        "reads and writes of its block size"
    );
    assert_eq!(count(" tp-128K-r03-"), 2);
    assert_eq!(count(" lat-r03-"), 9);
    assert_eq!(count(" iops-r04-"), 0);
    for purge in [
        "iops-purge",
        "tp-1024K-purge",
        "tp-1024K-wipc",
        "tp-128K-purge",
        "tp-128K-wipc",
        "lat-purge",
        "lat-wipc",
    ] {
        assert_eq!(count(purge), 1, "{purge}");
    }
    assert!(
        std::fs::read_dir(work.path()).unwrap().next().is_none(),
        "a dry run writes nothing"
    );
}

#[test]
fn bad_tests_or_rounds_are_refused_in_one_line_with_exit_2_and_nothing_written() {
    let work = tempfile::tempdir().unwrap();
    for args in [
        &["--tests", "iops,nosuch"][..],
        &["--rounds", "0"],
        &["--rounds", "26"],
    ] {
        let out = ssdfade(work.path())
            .args(["experiment", "pts", TARGET, "--out", "e"])
            .args(args)
            .output()
            .unwrap();
        let stderr = String::from_utf8_lossy(&out.stderr);
        assert_eq!(out.status.code(), Some(2), "{args:?}: {stderr}");
        assert_eq!(stderr.lines().count(), 1, "{args:?}: {stderr}");
        assert!(!work.path().join("e").exists(), "{args:?} wrote nothing");
    }
}

/// The full samples (one round each) of the phase directory of `dir` whose name ends with `name`.
fn full_samples(dir: &Path, name: &str) -> Vec<Value> {
    let sub = std::fs::read_dir(dir)
        .unwrap()
        .map(|e| e.unwrap().path())
        .find(|p| p.file_name().unwrap().to_string_lossy().ends_with(name))
        .unwrap_or_else(|| panic!("no phase directory {name} in {}", dir.display()));
    std::fs::read_to_string(sub.join("samples.jsonl"))
        .unwrap()
        .lines()
        .map(|l| serde_json::from_str::<Value>(l).unwrap())
        .filter(|s| s["t_end_s"].as_f64().unwrap() - s["t_start_s"].as_f64().unwrap() >= 0.99)
        .collect()
}

/// The suite's `tests` on [`TARGET`], seed 5, rounds of 1 s, at most `rounds`: its work
/// directory (removed when dropped), its experiment directory and its `--json`.
fn run_suite(tests: &str, rounds: u32) -> (tempfile::TempDir, PathBuf, Value) {
    let work = tempfile::tempdir().unwrap();
    let dir = work.path().join("e");
    let f = json_ok(
        ssdfade(work.path())
            .args(["experiment", "pts", TARGET, "--tests", tests, "--seed", "5"])
            .args(["--rounds", &rounds.to_string(), "--round", "1s", "--json"])
            .arg("--out")
            .arg(&dir),
    );
    (work, dir, f)
}

/// WSAT, HIR and XSR inside the suite: one experiment, their pages after the latency test in
/// SNIA's order, each test's figures its kind's own, read back from its phases' raw data: WSAT's
/// rounds are its phase's samples, HIR's bursts its burst phases' IOPS, XSR's three segments its
/// segment phases'.
#[test]
fn wsat_hir_and_xsr_run_inside_the_suite_with_their_kinds_figures() {
    let (_work, dir, f) = run_suite("xsr,hir,wsat,lat", 5);
    assert_eq!(f["status"], "completed", "{f}");
    let tests = f["tests"].as_array().unwrap();
    let names: Vec<&str> = tests.iter().map(|t| t["name"].as_str().unwrap()).collect();
    assert_eq!(names, ["lat", "wsat", "hir", "xsr"], "SNIA's order");
    let figures = |name: &str| &tests.iter().find(|t| t["name"] == name).unwrap()["figures"];

    let wsat = figures("wsat");
    let rounds = wsat["rounds"].as_array().unwrap();
    let samples = full_samples(&dir, "-wsat-wsat");
    assert!(rounds.len() > 5, "{wsat}");
    assert_eq!(rounds.len(), samples.len(), "a round per full sample");
    for (r, s) in rounds.iter().zip(&samples) {
        assert_eq!(r["iops"], s["iops"], "{r} vs {s}");
        assert_eq!(r["tgbw_bytes"], s["bytes_written_total"], "{r} vs {s}");
    }

    let hir = figures("hir");
    let states = hir["wait_states"].as_array().unwrap();
    assert_eq!(states.len(), 5, "{hir}");
    for w in states {
        let idle = w["idle_s"].as_u64().unwrap();
        for (k, b) in w["burst_iops"].as_array().unwrap().iter().enumerate() {
            let run = run_summary(&dir, &format!("-hir-ws{idle}-burst{}", k + 1));
            assert_eq!(b.as_f64(), run["iops"].as_f64(), "ws{idle} burst {}", k + 1);
        }
    }

    let xsr = figures("xsr");
    let segments: Vec<&str> = xsr["segments"]
        .as_array()
        .unwrap()
        .iter()
        .map(|s| s["name"].as_str().unwrap())
        .collect();
    assert_eq!(segments, ["seq-1", "random", "seq-2"], "{xsr}");

    let report = std::fs::read_to_string(dir.join("report.md")).unwrap();
    let at = |heading: &str| {
        report
            .find(&format!("## PTS {heading} test"))
            .unwrap_or_else(|| panic!("no page {heading} in report.md"))
    };
    assert!(at("Latency") < at("WSAT") && at("WSAT") < at("HIR") && at("HIR") < at("XSR"));
    // Each kind's chart on its page, as the kind draws it from the phases' raw data: WSAT's
    // rounds the full samples, HIR's bursts the burst phases' IOPS, XSR's three segments.
    let png = |name: &str| {
        report
            .find(&format!("](pts-{name}.png)"))
            .unwrap_or_else(|| panic!("no pts-{name}.png in report.md"))
    };
    assert!(at("WSAT") < png("wsat") && png("wsat") < at("HIR"));
    assert!(at("HIR") < png("hir") && png("hir") < at("XSR"));
    assert!(at("XSR") < png("xsr"));
    let chart = |name: &str| read_sidecar(&dir.join(format!("pts-{name}.chart.json"))).unwrap();
    let ys = |panel: &DrawnPanel, series: &str| -> Vec<f64> {
        let s = panel.series.iter().find(|s| s.name == series).unwrap();
        s.points.iter().flatten().map(|p| p.1).collect()
    };
    let want: Vec<f64> = samples
        .iter()
        .map(|s| s["iops"].as_f64().unwrap())
        .collect();
    for panel in &chart("wsat").panels {
        assert_eq!(
            ys(panel, "IOPS per round"),
            want,
            "pts-wsat.png: {}",
            panel.x_axis
        );
    }
    let bursts = &chart("hir").panels[1];
    let mut want: Vec<(f64, f64)> = Vec::new();
    for w in states {
        let idle = w["idle_s"].as_u64().unwrap();
        for k in 1..=w["burst_iops"].as_array().unwrap().len() {
            let run = run_summary(&dir, &format!("-hir-ws{idle}-burst{k}"));
            want.push((idle as f64, run["iops"].as_f64().unwrap()));
        }
    }
    let mut drawn: Vec<(f64, f64)> = bursts
        .series
        .iter()
        .find(|s| s.name == "each burst")
        .unwrap()
        .points
        .iter()
        .flatten()
        .copied()
        .collect();
    drawn.sort_by(|a, b| a.partial_cmp(b).unwrap());
    want.sort_by(|a, b| a.partial_cmp(b).unwrap());
    same_points("pts-hir.png bursts", &drawn, &want);
    let xsr_lines: Vec<String> = chart("xsr").panels[0]
        .series
        .iter()
        .map(|s| s.name.clone())
        .filter(|n| !n.contains(' '))
        .collect();
    assert_eq!(xsr_lines, ["seq-1", "random", "seq-2"], "pts-xsr.png");
    let record = ssdfade::results::load_experiment(&dir).unwrap().record;
    let terminal = ssdfade::output::summary::summary_text(&dir, &record);
    for title in ["WSAT:", "HIR:", "XSR:"] {
        assert!(terminal.contains(title), "{title} in {terminal}");
    }
}

/// The window the PTS rule picks in `iops` cut into rounds of `k` samples (the first five
/// rounds, among the first 25, with range ≤ 20 % and slope excursion ≤ 10 %): its average.
fn pts_window_avg(iops: &[f64], k: usize) -> Option<f64> {
    use ssdfade::stats::steady::{evaluate, Criteria, Round};
    let c = Criteria::default();
    let rounds: Vec<Round> = iops
        .chunks_exact(k)
        .take(25)
        .enumerate()
        .map(|(i, r)| Round {
            start_s: i as f64,
            end_s: i as f64 + 1.0,
            iops: r.iter().sum::<f64>() / k as f64,
            bytes_written_total: 0,
        })
        .collect();
    rounds
        .windows(c.window_rounds)
        .map(evaluate)
        .find(|w| w.range_pct <= c.max_range_pct && w.slope_pct <= c.max_slope_pct)
        .map(|w| w.avg)
}

/// The IOPS test's 4K 0/100 cell like for like (docs/pts.md): on this drive, purged and
/// preconditioned as the IOPS test is (2 × capacity of 128 KiB sequential writes), 4K random
/// writes alone judged by the PTS rule in 10 s rounds settle within 10 % of the level the
/// suite's WSAT holds at its end (its last window). In 2 s rounds the rule takes the first five
/// instead, the plateau the drive keeps right after the sequential preconditioning, far above.
#[test]
fn four_k_random_writes_after_the_pts_preconditioning_settle_at_the_wsat_level() {
    let work = tempfile::tempdir().unwrap();
    let f = json_ok(
        ssdfade(work.path())
            .args([
                "experiment",
                "pts",
                TARGET,
                "--tests",
                "wsat",
                "--round",
                "2s",
            ])
            .args(["--seed", "1", "--json", "--out", "w"]),
    );
    let wsat = f["tests"][0]["figures"]["steady_state"]["last_window"]["avg"]
        .as_f64()
        .unwrap_or_else(|| panic!("no last window: {f}"));
    let drive = format!("{TARGET},state={}", work.path().join("d.sim").display());
    let soak = |args: &[&str], out: &str| {
        json_ok(
            ssdfade(work.path())
                .args([
                    "soak",
                    &drive,
                    "--read-pct",
                    "0",
                    "--qd",
                    "32",
                    "--seed",
                    "1",
                ])
                .args(args)
                .args(["--interval", "2s", "--json", "--out", out]),
        )
    };
    soak(
        &["--bs", "128k", "--random-pct", "0", "--bytes", "16GB"],
        "wipc",
    );
    soak(
        &["--bs", "4k", "--random-pct", "100", "--duration", "600s"],
        "4k",
    );
    let iops: Vec<f64> = std::fs::read_to_string(work.path().join("4k/samples.jsonl"))
        .unwrap()
        .lines()
        .map(|l| {
            serde_json::from_str::<Value>(l).unwrap()["iops"]
                .as_f64()
                .unwrap()
        })
        .collect();
    let long = pts_window_avg(&iops, 5).expect("a steady window in 10 s rounds");
    assert!(
        (long - wsat).abs() <= 0.10 * wsat,
        "10 s rounds {long} vs WSAT {wsat}"
    );
    let short = pts_window_avg(&iops, 1).expect("a steady window in 2 s rounds");
    assert!(short > 1.5 * wsat, "2 s rounds {short} vs WSAT {wsat}");
}

/// A phase directory's file `file`, parsed (the directory whose name ends with `name`).
fn phase_json(dir: &Path, name: &str, file: &str) -> Value {
    let sub = std::fs::read_dir(dir)
        .unwrap()
        .map(|e| e.unwrap().path())
        .find(|p| p.file_name().unwrap().to_string_lossy().ends_with(name))
        .unwrap_or_else(|| panic!("no phase directory {name} in {}", dir.display()));
    serde_json::from_str(&std::fs::read_to_string(sub.join(file)).unwrap()).unwrap()
}

/// ECW and DIRTH on a scaled drive: ECW's phases run SNIA's composite (12 sizes, R/W 40/60, the
/// three access zones) at threads × QD outstanding I/Os; each point's IOPS and average response
/// time are its window runs' (run.json), the max-IOPS and operating points are the ones those
/// pick, and each point's histogram is its window runs' latency.json buckets, merged.
#[test]
fn ecw_and_dirth_give_their_points_max_and_operating_points_from_the_raw_runs() {
    let (work, dir, f) = run_suite("dirth,ecw", 6);
    // Its charts drawn anew by `plot`, its report by `report`.
    std::fs::remove_file(dir.join("pts-ecw.chart.json")).unwrap();
    run_ok(ssdfade(work.path()).arg("plot").arg(&dir));
    run_ok(ssdfade(work.path()).arg("report").arg(&dir));
    let report = std::fs::read_to_string(dir.join("report.md")).unwrap();
    let tests = f["tests"].as_array().unwrap();
    let names: Vec<&str> = tests.iter().map(|t| t["name"].as_str().unwrap()).collect();
    assert_eq!(names, ["ecw", "dirth"], "SNIA's order");
    let (ecw, dirth) = (
        report.find("## PTS ECW test").unwrap(),
        report.find("## PTS DIRTH test").unwrap(),
    );
    let on_page = |png: &str| report.find(&format!("]({png})")).unwrap_or(0);
    assert!(ecw < on_page("pts-ecw.png") && on_page("pts-ecw.png") < dirth);
    assert!(
        dirth < on_page("pts-dirth.png"),
        "each chart on its test's page"
    );
    for t in tests {
        let name = t["name"].as_str().unwrap();
        let (first, last) = (
            t["window"][0].as_u64().unwrap(),
            t["window"][1].as_u64().unwrap(),
        );
        let cells = t["cells"].as_array().unwrap();
        assert_eq!(cells.len(), if name == "ecw" { 6 } else { 9 }, "{name}");
        // Each point from its window's runs: IOPS averaged, response time weighted by I/Os.
        let mut recomputed = Vec::new();
        for c in cells {
            let (tc, qd) = (
                c["oio"]["threads"].as_u64().unwrap(),
                c["oio"]["qd"].as_u64().unwrap(),
            );
            let read = c["read_pct"].as_u64().unwrap();
            let phase = |r: u64| format!("{name}-r{r:02}-{read}-{}-tc{tc}-qd{qd}", 100 - read);
            let runs: Vec<Value> = (first..=last)
                .map(|r| phase_json(&dir, &phase(r), "run.json"))
                .collect();
            for run in &runs {
                let w = &run["workload"];
                assert_eq!(
                    (w["jobs"].as_u64().unwrap_or(1), w["qd"].as_u64().unwrap()),
                    (tc, qd),
                    "{name}: TC jobs of QD each"
                );
                assert_eq!(w["random_pct"], 100);
                if name == "ecw" {
                    assert_eq!(w["read_pct"], 40);
                    let split: Vec<(u64, u64)> = w["bssplit"]
                        .as_array()
                        .unwrap()
                        .iter()
                        .map(|s| (s["size"].as_u64().unwrap(), s["pct"].as_u64().unwrap()))
                        .collect();
                    let mut want = vec![(512, 4)];
                    want.extend((2..=7).map(|k| (k * 512, 1)));
                    want.extend([(4096, 67), (8192, 10), (16384, 7), (32768, 3), (65536, 3)]);
                    assert_eq!(split, want, "SNIA's composite split");
                    let zones: Vec<(u64, u64)> = w["distribution"]["zones"]
                        .as_array()
                        .unwrap()
                        .iter()
                        .map(|z| {
                            (
                                z["io_pct"].as_u64().unwrap(),
                                z["span_pct"].as_u64().unwrap(),
                            )
                        })
                        .collect();
                    assert_eq!(zones, [(50, 5), (30, 15), (20, 80)]);
                } else {
                    assert_eq!(
                        (w["read_pct"].as_u64(), w["bs"].as_u64()),
                        (Some(0), Some(4096))
                    );
                }
            }
            let sums = runs.iter().map(|r| &r["summary"]);
            let iops = sums
                .clone()
                .map(|s| s["iops"].as_f64().unwrap())
                .sum::<f64>()
                / runs.len() as f64;
            let ops: f64 = sums.clone().map(|s| s["ops"].as_f64().unwrap()).sum();
            let avg = sums
                .map(|s| s["ops"].as_f64().unwrap() * s["lat_us"]["mean"].as_f64().unwrap())
                .sum::<f64>()
                / ops;
            assert!(
                (c["iops"].as_f64().unwrap() - iops).abs() <= 1e-9 * iops,
                "{name} {tc}x{qd}"
            );
            assert!(
                (c["avg_lat_us"].as_f64().unwrap() - avg).abs() <= 1e-6 * avg,
                "{name} {tc}x{qd}"
            );
            recomputed.push((tc, qd, read, iops, avg));
        }
        let d = &t["demand"];
        let argmax = |fit: &dyn Fn(f64) -> bool| {
            (0..recomputed.len())
                .filter(|&i| fit(recomputed[i].4))
                .max_by(|&a, &b| recomputed[a].3.total_cmp(&recomputed[b].3))
        };
        let bound = d["operating_art_us"].as_f64().unwrap();
        let max_at = argmax(&|_| true).unwrap();
        let operating_at = argmax(&|avg| avg <= bound);
        assert_eq!(
            d["max_iops"]["cell"].as_u64(),
            Some(max_at as u64),
            "{name}"
        );
        assert_eq!(
            d["operating"]["cell"].as_u64(),
            operating_at.map(|i| i as u64),
            "{name}: the most IOPS at an average of at most {bound} µs"
        );
        // The max point's histogram: its window runs' buckets, merged, share at or under each
        // bin's top.
        let (tc, qd, read, _, _) = recomputed[max_at];
        let bins: Vec<(f64, f64)> = d["max_iops"]["histogram"]
            .as_array()
            .unwrap()
            .iter()
            .map(|b| (b["hi_us"].as_f64().unwrap(), b["pct"].as_f64().unwrap()))
            .collect();
        assert!(!bins.is_empty(), "{name}: a histogram at the max point");
        let raw = window_buckets(&dir, name, (tc, qd, read), (first, last));
        histogram_agrees(&format!("{name} --json"), &bins, &raw);
        assert!(
            report.contains(&format!("Max IOPS at TC {tc} QD {qd}")),
            "{name}: the report names its max point"
        );

        // Its chart (pts-NAME.png) draws the points recomputed here: a line per thread count of
        // (IOPS, average) in QD order, a line per QD of (threads, IOPS) in thread order, the
        // chosen points ringed, and their histograms as their window runs' buckets.
        let chart = read_sidecar(&dir.join(format!("pts-{name}.chart.json"))).unwrap();
        let [curve, variation, histograms] = &chart.panels[..] else {
            panic!("{name}: three panels, not {}", chart.panels.len());
        };
        let scale = if curve.y_axis.contains("(ms)") {
            1000.0
        } else {
            1.0
        };
        let drawn = |panel: &DrawnPanel, series: &str| -> Vec<(f64, f64)> {
            panel
                .series
                .iter()
                .find(|s| s.name == series)
                .unwrap_or_else(|| panic!("{name}: no series {series:?} in {:?}", panel.series))
                .points
                .iter()
                .flatten()
                .copied()
                .collect()
        };
        let mut threads: Vec<u64> = recomputed.iter().map(|p| p.0).collect();
        let mut depths: Vec<u64> = recomputed.iter().map(|p| p.1).collect();
        for v in [&mut threads, &mut depths] {
            v.sort_unstable();
            v.dedup();
        }
        for &tc in &threads {
            let mut line: Vec<&(u64, u64, u64, f64, f64)> =
                recomputed.iter().filter(|p| p.0 == tc).collect();
            line.sort_by_key(|p| p.1);
            let want: Vec<(f64, f64)> = line.iter().map(|p| (p.3, p.4 / scale)).collect();
            let label = if tc == 1 {
                "1 thread".to_string()
            } else {
                format!("{tc} threads")
            };
            same_points(&format!("{name} {label}"), &drawn(curve, &label), &want);
        }
        for &qd in &depths {
            let mut line: Vec<&(u64, u64, u64, f64, f64)> =
                recomputed.iter().filter(|p| p.1 == qd).collect();
            line.sort_by_key(|p| p.0);
            let want: Vec<(f64, f64)> = line.iter().map(|p| (p.0 as f64, p.3)).collect();
            let label = format!("QD {qd}");
            same_points(&format!("{name} {label}"), &drawn(variation, &label), &want);
        }
        let mut chosen = vec![max_at];
        chosen.extend(operating_at.filter(|&i| i != max_at));
        for at in chosen {
            let (tc, qd, read, iops, avg) = recomputed[at];
            let point = format!("TC {tc} QD {qd}");
            let ringed = curve
                .series
                .iter()
                .find(|s| s.name.ends_with(&point) && s.points.len() == 1)
                .unwrap_or_else(|| panic!("{name}: {point} is not ringed"));
            let ring: Vec<(f64, f64)> = ringed.points.iter().flatten().copied().collect();
            same_points(&ringed.name, &ring, &[(iops, avg / scale)]);
            let series = &histograms
                .series
                .iter()
                .find(|s| s.name.ends_with(&point))
                .unwrap_or_else(|| panic!("{name}: no histogram at {point}"))
                .points;
            // Steps: down to 0 at the first bin's foot, then each bin's share from its lower
            // to its upper edge, and down to 0 again.
            let steps: Vec<(f64, f64)> = series.iter().flatten().copied().collect();
            let bins: Vec<(f64, f64)> = steps[1..steps.len() - 1]
                .chunks(2)
                .map(|pair| {
                    assert_eq!(pair[0].1, pair[1].1, "{name}: a step is level");
                    (pair[1].0, pair[1].1)
                })
                .collect();
            let raw = window_buckets(&dir, name, (tc, qd, read), (first, last));
            histogram_agrees(&format!("{name} pts-{name}.png at {point}"), &bins, &raw);
        }
    }
}

/// A point's window runs' latency.json buckets, merged: (bucket top µs, I/Os) and the slowest
/// I/O, µs.
fn window_buckets(
    dir: &Path,
    test: &str,
    (tc, qd, read): (u64, u64, u64),
    (first, last): (u64, u64),
) -> (Vec<(f64, f64)>, f64) {
    let mut buckets: Vec<(f64, f64)> = Vec::new();
    let mut max_us: f64 = 0.0;
    for r in first..=last {
        let lat = phase_json(
            dir,
            &format!("{test}-r{r:02}-{read}-{}-tc{tc}-qd{qd}", 100 - read),
            "latency.json",
        );
        max_us = max_us.max(lat["all"]["max_ns"].as_f64().unwrap() / 1000.0);
        buckets.extend(
            lat["all"]["buckets"]
                .as_array()
                .unwrap()
                .iter()
                .map(|b| (b[0].as_f64().unwrap() / 1000.0, b[1].as_f64().unwrap())),
        );
    }
    (buckets, max_us)
}

/// Bins `(top µs, percent)` hold, cumulatively, the share of the `raw` buckets at or under
/// each top to 0.5 %, and every I/O in all.
#[track_caller]
fn histogram_agrees(what: &str, bins: &[(f64, f64)], (buckets, max_us): &(Vec<(f64, f64)>, f64)) {
    let total: f64 = buckets.iter().map(|b| b.1).sum();
    let mut cumulative = 0.0;
    for &(hi, pct) in bins {
        cumulative += pct;
        let under: f64 = buckets
            .iter()
            .filter(|(top, _)| top.min(*max_us) <= hi * (1.0 + 1e-9))
            .map(|b| b.1)
            .sum();
        assert!(
            (cumulative - 100.0 * under / total).abs() < 0.5,
            "{what}: {cumulative} % at or under {hi} µs, the buckets say {}",
            100.0 * under / total
        );
    }
    assert!(
        (cumulative - 100.0).abs() < 1e-6,
        "{what}: the bins hold every I/O"
    );
}

/// Two point lists alike to a millionth in x and y.
#[track_caller]
fn same_points(what: &str, drawn: &[(f64, f64)], want: &[(f64, f64)]) {
    assert_eq!(drawn.len(), want.len(), "{what}: {drawn:?} vs {want:?}");
    let near = |a: f64, b: f64| (a - b).abs() <= 1e-6 * b.abs().max(1e-9);
    for (d, w) in drawn.iter().zip(want) {
        assert!(
            near(d.0, w.0) && near(d.1, w.1),
            "{what}: drawn {d:?}, recomputed {w:?}"
        );
    }
}

/// The latency table (QD 1) is what `measure --qd 1` measures on the same state: the suite's
/// phases replayed as plain `erase`, `soak` and `measure` commands on one kept drive, each
/// with its phase's seed, give every cell's IOPS (the window's runs' average), average latency
/// (over all the window's I/Os) and maximum. On a drive with an SLC cache (sata-tlc-1t),
/// whose QD 1 writes swing with the cache's fill from round to round, so that `measure` on the
/// drive the suite leaves (after its 8K writes) is another state.
#[test]
fn the_latency_table_is_what_measure_at_qd_1_measures_on_the_same_state() {
    let target = "sim:sata-tlc-1t,scale=256";
    let work = tempfile::tempdir().unwrap();
    let dir = work.path().join("e");
    let f = json_ok(
        ssdfade(work.path())
            .args(["experiment", "pts", target, "--tests", "lat", "--seed", "5"])
            .args(["--rounds", "8", "--round", "1s", "--json", "--out"])
            .arg(&dir),
    );
    let replay = common::replay_phases(work.path(), &dir, target);
    let test = &f["tests"][0];
    let window = |i: usize| test["window"][i].as_u64().unwrap();
    for cell in test["cells"].as_array().unwrap() {
        let read = cell["read_pct"].as_u64().unwrap();
        let name = format!(
            "-lat-r{{:02}}-{read}-{}-{}",
            100 - read,
            size(cell["bs"].as_u64().unwrap())
        );
        let runs: Vec<Value> = (window(0)..=window(1))
            .map(|r| run_summary(&replay, &name.replace("{:02}", &format!("{r:02}"))))
            .collect();
        let sum = |k: &dyn Fn(&Value) -> f64| runs.iter().map(k).sum::<f64>();
        let ops = sum(&|r| r["ops"].as_f64().unwrap());
        let iops = sum(&|r| r["iops"].as_f64().unwrap()) / runs.len() as f64;
        let mean =
            sum(&|r| r["ops"].as_f64().unwrap() * r["lat_us"]["mean"].as_f64().unwrap()) / ops;
        let max = runs
            .iter()
            .map(|r| r["lat_us"]["max"].as_f64().unwrap())
            .fold(0.0, f64::max);
        let close = |what: &str, table: f64, measured: f64| {
            assert!(
                (table - measured).abs() <= 1e-6 * measured,
                "{name} {what}: table {table}, measure {measured}"
            );
        };
        close("IOPS", cell["iops"].as_f64().unwrap(), iops);
        close("average µs", cell["avg_lat_us"].as_f64().unwrap(), mean);
        close("maximum µs", cell["max_lat_us"].as_f64().unwrap(), max);
    }
}

/// The settings table's row of a test: "no full round yet" while none of its rounds has run
/// whole (an interrupted suite), the load and the tracked cells once one has.
#[test]
fn a_test_without_a_full_round_says_so_in_the_settings_table() {
    let work = tempfile::tempdir().unwrap();
    let dir = work.path().join("suite");
    run_ok(
        ssdfade(work.path())
            .args([
                "experiment",
                "pts",
                "sim:vertex2-60g,scale=64",
                "--tests",
                "iops",
            ])
            .args(["--rounds", "1", "--round", "1s", "--seed", "3", "--out"])
            .arg(&dir),
    );
    let settings_row = |dir: &Path| -> String {
        run_ok(ssdfade(work.path()).arg("report").arg(dir));
        let report = std::fs::read_to_string(dir.join("report.md")).unwrap();
        let row = report.lines().find(|l| l.starts_with("| IOPS "));
        row.unwrap_or_else(|| panic!("no IOPS settings row: {report}"))
            .to_string()
    };
    let whole = settings_row(&dir);
    assert!(whole.contains("steady state tracked on"), "{whole}");
    // The round cut after its first cell: no round is whole.
    let cut = work.path().join("cut");
    let copied = std::process::Command::new("cp")
        .arg("-a")
        .arg(&dir)
        .arg(&cut)
        .status();
    assert!(copied.unwrap().success());
    let mut record: Value =
        serde_json::from_str(&std::fs::read_to_string(cut.join("experiment.json")).unwrap())
            .unwrap();
    record["status"] = "interrupted".into();
    let rounds = record["phases"].as_array_mut().unwrap().iter_mut();
    for p in rounds
        .filter(|p| p["name"].as_str().unwrap().contains("-r01-"))
        .skip(1)
    {
        std::fs::remove_dir_all(cut.join(p["dir"].as_str().unwrap())).unwrap();
        for field in ["started_utc", "ended_utc", "headline"] {
            p[field] = Value::Null;
        }
        p["status"] = "pending".into();
    }
    std::fs::write(cut.join("experiment.json"), record.to_string()).unwrap();
    let row = settings_row(&cut);
    assert_eq!(
        row.split('|').map(str::trim).nth(2),
        Some("no full round yet"),
        "{row}"
    );
}
