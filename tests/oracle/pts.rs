//! The SNIA PTS suite (`experiment pts`) and cross-stimulus recovery (`experiment xsr`)
//! recomputed from their phases' raw files alone, as the PTS and docs/pts-stimulus.md define
//! them, and compared with `--json`, report.md and the charts' records.
//!
//! PTS: a cell's round is its phase `TEST-rNN-READ-WRITE-SIZE` (a test per throughput block
//! size, `tp-1024K`); a round counts once every cell
//! of it completed; the measurement window is the first five counted rounds in which every
//! tracked cell's IOPS has a range ≤ 20 % and a least-squares excursion ≤ 10 % of its average
//! (steady), else the last five (not steady); a cell's IOPS and MB/s are the plain averages of
//! its window's rounds, its latency the I/O-weighted mean, the largest, and the 99.999th
//! percentile of the window's histograms added together.
//!
//! XSR: a segment's level is the rate of its last five full samples, its band the level ±10 %,
//! a sample's held rate that of the five samples ending with it, its recovery the end of the
//! last sample held outside the band, and it is settled when its last five are all inside.

use std::path::Path;

use serde_json::Value;

use super::drawn::{band, record, same_points, series};
use super::steady::{self, Round};
use super::{close, histogram, intervals, json, num, quantile_us, Hist, Interval};
use crate::common::{run_ok, ssdfade};
use ssdfade::units::{format_count, format_duration, format_latency_us};

/// One completed cell run of a PTS test.
struct CellRun {
    round: usize,
    read_pct: u64,
    bs: u64,
    random: bool,
    dir: std::path::PathBuf,
}

/// A cell's figures over the window, recomputed.
struct Cell {
    read_pct: u64,
    bs: u64,
    iops: f64,
    mb_per_s: f64,
    avg_us: f64,
    max_us: f64,
    p99999_us: f64,
}

/// The rate of a run directory's samples: (IOPS, MB/s, I/Os, I/O-weighted mean µs).
fn rate(s: &[Interval]) -> (f64, f64, u64, f64) {
    let ops: u64 = s.iter().map(|i| i.ops).sum();
    let bytes: u64 = s.iter().map(|i| i.bytes).sum();
    let secs: f64 = s
        .iter()
        .map(|i| i.t_end_s - i.t_start_s - i.stopped_s)
        .sum();
    let weighted: f64 = s
        .iter()
        .map(|i| i.mean_us.unwrap_or(0.0) * i.ops as f64)
        .sum();
    (
        ops as f64 / secs,
        bytes as f64 / secs / 1e6,
        ops,
        weighted / ops.max(1) as f64,
    )
}

/// Histograms added bucket by bucket (the same buckets' tops), the largest latency the largest.
fn merged(hists: &[Hist]) -> Hist {
    let mut tops: std::collections::BTreeMap<u64, u64> = Default::default();
    for h in hists {
        for &(top, n) in &h.buckets {
            *tops.entry(top).or_default() += n;
        }
    }
    Hist {
        count: tops.values().sum(),
        max_ns: hists.iter().map(|h| h.max_ns).max().unwrap(),
        buckets: tops.into_iter().collect(),
    }
}

/// The PTS name of a transfer size: `0.5K`, `4K`, `1024K`.
fn size(bs: u64) -> String {
    if bs.is_multiple_of(1024) {
        format!("{}K", bs / 1024)
    } else {
        format!("{}K", bs as f64 / 1024.0)
    }
}

/// The completed cell runs of test `name` from experiment.json, and its planned rounds.
fn cell_runs(dir: &Path, record: &Value, name: &str) -> (Vec<CellRun>, usize) {
    let mut runs = Vec::new();
    let mut planned = 0;
    for p in record["phases"].as_array().unwrap() {
        let phase = p["name"].as_str().unwrap();
        let Some(rest) = phase.strip_prefix(&format!("{name}-r")) else {
            continue;
        };
        let round: usize = rest[..2].parse().unwrap();
        planned = planned.max(round);
        if p["status"] != "completed" {
            continue;
        }
        let w = &p["params"]["workload"];
        runs.push(CellRun {
            round,
            read_pct: w["read_pct"].as_u64().unwrap(),
            bs: w["bs"].as_u64().unwrap(),
            random: w["random_pct"].as_u64().unwrap() > 0,
            dir: dir.join(p["dir"].as_str().unwrap()),
        });
    }
    (runs, planned)
}

/// One test recomputed: (counted rounds, window, steady, tracked windows, cells in plan order).
fn pts_test(
    dir: &Path,
    record: &Value,
    test: &Value,
) -> (usize, (usize, usize), bool, Vec<steady::Window>, Vec<Cell>) {
    let name = test["name"].as_str().unwrap();
    let (runs, planned) = cell_runs(dir, record, name);
    let mut cells: Vec<(u64, u64)> = Vec::new();
    for r in &runs {
        if !cells.contains(&(r.read_pct, r.bs)) {
            cells.push((r.read_pct, r.bs));
        }
    }
    let rounds = (1..=planned)
        .take_while(|&k| runs.iter().filter(|r| r.round == k).count() == cells.len())
        .count();
    assert!(rounds >= 1, "{name}: no full round");
    // Each tracked cell's IOPS per counted round, as rounds one unit long.
    let tracked: Vec<Vec<Round>> = test["tracked"]
        .as_array()
        .unwrap()
        .iter()
        .map(|t| {
            let (read, bs, random) = (
                t["read_pct"].as_u64().unwrap(),
                t["bs"].as_u64().unwrap(),
                t["random"].as_bool().unwrap(),
            );
            (1..=rounds)
                .map(|k| {
                    let run = runs
                        .iter()
                        .find(|r| {
                            r.round == k && r.read_pct == read && r.bs == bs && r.random == random
                        })
                        .unwrap_or_else(|| panic!("{name}: tracked cell not run in round {k}"));
                    Round {
                        start_s: (k - 1) as f64,
                        end_s: k as f64,
                        iops: rate(&intervals(&run.dir)).0,
                        written_total: 0,
                    }
                })
                .collect()
        })
        .collect();
    let passes = |f: usize| {
        tracked.iter().all(|t| {
            let w = steady::window(t, f);
            w.range_pct <= 20.0 && w.slope_pct <= 10.0
        })
    };
    let steady_first = (0..(rounds + 1).saturating_sub(5)).find(|&f| passes(f));
    let first = steady_first.unwrap_or(rounds.saturating_sub(5));
    let last = (first + 5).min(rounds);
    let windows = if last - first == 5 {
        tracked.iter().map(|t| steady::window(t, first)).collect()
    } else {
        Vec::new()
    };
    let cells = cells
        .iter()
        .map(|&(read_pct, bs)| {
            let of_window: Vec<&CellRun> = runs
                .iter()
                .filter(|r| r.read_pct == read_pct && r.bs == bs)
                .filter(|r| r.round > first && r.round <= last)
                .collect();
            let n = of_window.len() as f64;
            let rates: Vec<(f64, f64, u64, f64)> =
                of_window.iter().map(|r| rate(&intervals(&r.dir))).collect();
            let ops: u64 = rates.iter().map(|r| r.2).sum();
            let hists: Vec<Hist> = of_window
                .iter()
                .map(|r| histogram(&r.dir).unwrap())
                .collect();
            let all = merged(&hists);
            Cell {
                read_pct,
                bs,
                iops: rates.iter().map(|r| r.0).sum::<f64>() / n,
                mb_per_s: rates.iter().map(|r| r.1).sum::<f64>() / n,
                avg_us: rates.iter().map(|r| r.3 * r.2 as f64).sum::<f64>() / ops as f64,
                max_us: all.max_ns as f64 / 1000.0,
                p99999_us: quantile_us(&all, 0.99999),
            }
        })
        .collect();
    (
        rounds,
        (first + 1, last),
        steady_first.is_some(),
        windows,
        cells,
    )
}

/// The row of report.md's table after `heading` whose cells start with `first` (and `second`).
fn row<'a>(md: &'a str, heading: &str, first: &[&str]) -> Vec<&'a str> {
    let section = md
        .split_once(heading)
        .unwrap_or_else(|| panic!("report.md lacks {heading:?}"))
        .1;
    section
        .lines()
        .take_while(|l| !l.starts_with('#'))
        .filter(|l| l.starts_with('|'))
        .map(|l| {
            l.trim_matches('|')
                .split('|')
                .map(str::trim)
                .collect::<Vec<_>>()
        })
        .find(|cells| cells.len() >= first.len() && cells[..first.len()] == *first)
        .unwrap_or_else(|| panic!("{heading}: no row {first:?}"))
}

/// A short PTS suite (every test, at most five rounds of 0.3 s) on a scaled simulated drive: each
/// test's counted rounds, window and verdict, its tracked cells' average, range and slope, and
/// every cell's IOPS, MB/s and latency (average, maximum, five nines from the window's
/// histograms) from the phases' raw files, against `--json`, report.md's tables and the lines
/// pts.png draws.
#[test]
fn pts_matrix_throughput_latency_and_window_are_the_oracles() {
    let work = tempfile::tempdir().unwrap();
    let dir = work.path().join("pts");
    let out = run_ok(
        ssdfade(work.path())
            .args(["experiment", "pts", "sim:dc-ssd-400g,capacity=8GB,scale=64"])
            .args(["--rounds", "5", "--round", "300ms", "--seed", "3", "--json"])
            .arg("--out")
            .arg(&dir),
    );
    let v: Value = serde_json::from_str(&out).unwrap_or_else(|e| panic!("{e}\n{out}"));
    run_ok(ssdfade(work.path()).arg("report").arg(&dir));
    let md = std::fs::read_to_string(dir.join("report.md")).unwrap();
    let chart = record(&dir, "pts");
    let exp = json(&dir.join("experiment.json"));
    let plans = exp["settings"]["tests"].as_array().unwrap();
    let shown = v["tests"].as_array().unwrap();
    assert_eq!(shown.len(), plans.len(), "a figure per test planned");
    assert_eq!(chart.panels.len(), plans.len(), "a panel per test");
    let mut kinds = Vec::new();
    for ((plan, got), panel) in plans.iter().zip(shown).zip(&chart.panels) {
        let name = plan["name"].as_str().unwrap();
        let title = plan["title"].as_str().unwrap();
        let shows = plan["shows"].as_str().unwrap();
        kinds.push(shows);
        assert_eq!(got["name"], name);
        if shows != "mb_per_s" {
            // SNIA tracks the IOPS and latency tests on 4 KiB random writes.
            let t = &plan["tracked"][0];
            assert_eq!(
                (t["read_pct"].as_u64(), t["bs"].as_u64()),
                (Some(0), Some(4096))
            );
        }
        let (rounds, (first, last), steady, windows, cells) = pts_test(&dir, &exp, plan);
        assert_eq!(
            got["rounds"].as_u64(),
            Some(rounds as u64),
            "{name}: rounds"
        );
        assert_eq!(
            (got["window"][0].as_u64(), got["window"][1].as_u64()),
            (Some(first as u64), Some(last as u64)),
            "{name}: the measurement window"
        );
        assert_eq!(got["steady"].as_bool(), Some(steady), "{name}: steady");
        let verdict = if steady {
            "are SNIA steady"
        } else {
            "are the last, NOT steady"
        };
        let line = format!("{title}: rounds {first}-{last} of {rounds} {verdict}");
        assert!(md.contains(&line), "report.md lacks {line:?}");
        for (t, w) in got["tracked"].as_array().unwrap().iter().zip(&windows) {
            close(&format!("{name}: tracked avg"), num(&t["avg"]), w.avg, 1e-9);
            close(
                &format!("{name}: range"),
                num(&t["range_pct"]),
                w.range_pct,
                1e-6,
            );
            close(
                &format!("{name}: slope"),
                num(&t["slope_pct"]),
                w.slope_pct,
                1e-6,
            );
        }
        let got_cells = got["cells"].as_array().unwrap();
        assert_eq!(got_cells.len(), cells.len(), "{name}: cells");
        for want in &cells {
            let what = format!(
                "{name} {}/{} {}",
                want.read_pct,
                100 - want.read_pct,
                size(want.bs)
            );
            let cell = (Some(want.read_pct), Some(want.bs));
            let c = got_cells
                .iter()
                .find(|c| (c["read_pct"].as_u64(), c["bs"].as_u64()) == cell)
                .unwrap_or_else(|| panic!("{what}: not in --json"));
            close(&format!("{what}: IOPS"), num(&c["iops"]), want.iops, 1e-9);
            close(
                &format!("{what}: MB/s"),
                num(&c["mb_per_s"]),
                want.mb_per_s,
                1e-9,
            );
            close(
                &format!("{what}: average"),
                num(&c["avg_lat_us"]),
                want.avg_us,
                1e-3,
            );
            close(
                &format!("{what}: max"),
                num(&c["max_lat_us"]),
                want.max_us,
                1e-9,
            );
            close(
                &format!("{what}: p99.999"),
                num(&c["p99999_lat_us"]),
                want.p99999_us,
                1e-9,
            );
        }
        // The tables and the lines drawn, a mix at a time.
        let mut mixes: Vec<u64> = Vec::new();
        for c in &cells {
            if !mixes.contains(&c.read_pct) {
                mixes.push(c.read_pct);
            }
        }
        let heading = format!("PTS {title} test");
        for c in &cells {
            let mix = format!("{}/{}", c.read_pct, 100 - c.read_pct);
            let what = format!("{name} {mix} {}", size(c.bs));
            match shows {
                "latency" => {
                    let r = row(&md, &heading, &[&mix, &size(c.bs)]);
                    for want in [
                        format_latency_us(c.avg_us),
                        format_latency_us(c.p99999_us),
                        format_latency_us(c.max_us),
                        format_count(c.iops),
                    ] {
                        assert!(r.contains(&want.as_str()), "{what}: {want} not in {r:?}");
                    }
                }
                _ => {
                    let r = row(&md, &heading, &[&size(c.bs)]);
                    let col = 1 + mixes.iter().position(|m| *m == c.read_pct).unwrap();
                    let want = if shows == "mb_per_s" {
                        format!("{:.0}", c.mb_per_s)
                    } else {
                        format_count(c.iops)
                    };
                    assert_eq!(r[col], want, "{what}: report.md's cell");
                }
            }
        }
        for &m in &mixes {
            let mix = format!("R/W {m}/{}", 100 - m);
            let of_mix: Vec<&Cell> = cells.iter().filter(|c| c.read_pct == m).collect();
            let kib = |c: &Cell| c.bs as f64 / 1024.0;
            let lines: Vec<(String, Vec<(f64, f64)>)> = match shows {
                "latency" => vec![
                    (
                        format!("{mix} average"),
                        of_mix.iter().map(|c| (kib(c), c.avg_us)).collect(),
                    ),
                    (
                        format!("{mix} p99.999 (dashed)"),
                        of_mix.iter().map(|c| (kib(c), c.p99999_us)).collect(),
                    ),
                ],
                "mb_per_s" => vec![(mix, of_mix.iter().map(|c| (kib(c), c.mb_per_s)).collect())],
                _ => vec![(mix, of_mix.iter().map(|c| (kib(c), c.iops)).collect())],
            };
            for (line, want) in lines {
                let tol = if line.ends_with("average") {
                    1e-3
                } else {
                    1e-9
                };
                same_points(
                    &format!("pts.png {name}: {line}"),
                    &series(panel, &line),
                    &want,
                    tol,
                );
            }
        }
    }
    for kind in ["iops", "mb_per_s", "latency"] {
        assert!(kinds.contains(&kind), "no {kind} test in {kinds:?}");
    }
}

/// A segment of XSR recomputed: (level MB/s, level IOPS, recovery s, settled, samples as
/// (seconds from the segment's start to the sample's end, MB/s)).
fn xsr_segment(run: &Path, interval_s: f64) -> (f64, f64, f64, bool, Vec<(f64, f64)>) {
    let mut s = intervals(run);
    if s.len() > 1 && s[s.len() - 1].t_end_s - s[s.len() - 1].t_start_s < 0.99 * interval_s {
        s.pop();
    }
    let rate_of = |w: &[Interval]| {
        let secs: f64 = w.iter().map(|i| i.t_end_s - i.t_start_s).sum();
        let bytes: u64 = w.iter().map(|i| i.bytes).sum();
        let ops: u64 = w.iter().map(|i| i.ops).sum();
        (bytes as f64 / secs / 1e6, ops as f64 / secs)
    };
    let n = s.len();
    assert!(n >= 5, "{}: {n} samples", run.display());
    let (level, level_iops) = rate_of(&s[n - 5..]);
    let inside = |i: usize| {
        let held = rate_of(&s[(i + 1).saturating_sub(5)..=i]).0;
        (0.9 * level..=1.1 * level).contains(&held)
    };
    let start = s[0].t_start_s;
    let last_outside = (0..n).rev().find(|&i| !inside(i));
    let recovery = last_outside.map_or(0.0, |i| s[i].t_end_s - start);
    let settled = last_outside.is_none_or(|i| i < n - 5);
    let points = s
        .iter()
        .map(|i| {
            (
                i.t_end_s - start,
                i.bytes as f64 / (i.t_end_s - i.t_start_s) / 1e6,
            )
        })
        .collect();
    (level, level_iops, recovery, settled, points)
}

/// XSR on a scaled simulated drive (1 h segments, seconds of wall time): each segment's
/// level, band, recovery and verdict from its samples, the second sequential level over the
/// first, against `--json`, report.md and the series, bands and recovery marks xsr.png draws.
#[test]
fn xsr_levels_recoveries_and_drawn_segments_are_the_oracles() {
    let work = tempfile::tempdir().unwrap();
    let dir = work.path().join("xsr");
    let out = run_ok(
        ssdfade(work.path())
            .args([
                "experiment",
                "xsr",
                "sim:sata-tlc-250g,scale=64",
                "--segment",
                "1h",
            ])
            .args(["--seed", "910", "--json", "--out"])
            .arg(&dir),
    );
    let v: Value = serde_json::from_str(&out).unwrap_or_else(|e| panic!("{e}\n{out}"));
    run_ok(ssdfade(work.path()).arg("report").arg(&dir));
    let md = std::fs::read_to_string(dir.join("report.md")).unwrap();
    let chart = record(&dir, "xsr");
    let panel = &chart.panels[0];
    assert_eq!(panel.x_axis, "Time (min)");
    let segments = v["segments"].as_array().unwrap();
    assert_eq!(segments.len(), 3);
    let mut t0 = 0.0;
    let mut levels = Vec::new();
    for (seg, (name, sub)) in segments.iter().zip([
        ("seq-1", "03-seq-1"),
        ("random", "04-random"),
        ("seq-2", "05-seq-2"),
    ]) {
        let run = dir.join(sub);
        let interval_s = num(&json(&run.join("run.json"))["workload"]["interval"]);
        let (level, level_iops, recovery, settled, points) = xsr_segment(&run, interval_s);
        assert_eq!(seg["name"], name);
        close(
            &format!("{name}: level"),
            num(&seg["level_mb_per_s"]),
            level,
            1e-9,
        );
        close(
            &format!("{name}: IOPS"),
            num(&seg["level_iops"]),
            level_iops,
            1e-9,
        );
        close(
            &format!("{name}: band low"),
            num(&seg["band_low_mb_per_s"]),
            0.9 * level,
            1e-9,
        );
        close(
            &format!("{name}: band high"),
            num(&seg["band_high_mb_per_s"]),
            1.1 * level,
            1e-9,
        );
        close(
            &format!("{name}: recovery"),
            num(&seg["recovery_s"]),
            recovery,
            1e-9,
        );
        assert_eq!(seg["settled"].as_bool(), Some(settled), "{name}: settled");
        close(&format!("{name}: start"), num(&seg["start_s"]), t0, 1e-9);
        // report.md's row: level, IOPS, band and recovery.
        let r = row(&md, "## Summary", &[name]);
        let recovery_text = format_duration(std::time::Duration::from_secs_f64(recovery));
        for want in [
            format!("{level:.1}"),
            format_count(level_iops),
            format!("{:.1}–{:.1}", 0.9 * level, 1.1 * level),
        ] {
            assert!(r.contains(&want.as_str()), "{name}: {want} not in {r:?}");
        }
        let last = r[r.len() - 1];
        assert!(
            last.starts_with(&recovery_text),
            "{name}: {last:?} for {recovery_text}"
        );
        assert_eq!(last.contains("not settled"), !settled, "{name}: {last:?}");
        // xsr.png: the samples at minutes from the first segment's start, the band, and the
        // recovery's triangle at the level.
        let drawn: Vec<(f64, f64)> = points
            .iter()
            .map(|&(t, mb)| ((t0 + t) / 60.0, mb))
            .collect();
        same_points(
            &format!("xsr.png: {name}"),
            &series(panel, name),
            &drawn,
            1e-9,
        );
        let (x0, x1) = band(panel, &format!("{name} band"));
        let end = t0 + points[points.len() - 1].0;
        close(&format!("{name}: band from"), x0, t0 / 60.0, 1e-9);
        close(&format!("{name}: band to"), x1, end / 60.0, 1e-9);
        let mark = series(panel, &format!("{name} recovered"));
        same_points(
            &format!("xsr.png: {name} recovered"),
            &mark,
            &[((t0 + recovery) / 60.0, level)],
            1e-9,
        );
        levels.push(level);
        t0 = end;
    }
    close(
        "return ratio",
        num(&v["return_ratio"]),
        levels[2] / levels[0],
        1e-9,
    );
    let pct = format!(
        "reached {:.0} % of the first's level",
        100.0 * levels[2] / levels[0]
    );
    assert!(md.contains(&pct), "report.md lacks {pct:?}");
}
