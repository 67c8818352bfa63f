//! What each chart records beside it (`NAME.chart.json`) checked against real runs of the
//! simulated drive: the fade chart's series against the raw samples.jsonl, and every chart's
//! labels for overlap and bounds on long runs, many phases and long target names.

mod common;

use std::path::{Path, PathBuf};

use common::ssdfade;
use ssdfade::plot::drawn::{read_sidecar, Drawn, DrawnPanel, MarkKind};

/// Runs ssdfade in `work` with `args` and fails with its stderr when it fails.
fn run(work: &Path, args: &[&str]) {
    let out = ssdfade(work).args(args).output().expect("run ssdfade");
    assert!(
        out.status.success(),
        "ssdfade {args:?} failed: {}",
        String::from_utf8_lossy(&out.stderr)
    );
}

/// Every chart record in `dir` with its path.
fn records(dir: &Path) -> Vec<(PathBuf, Drawn)> {
    let mut found: Vec<PathBuf> = std::fs::read_dir(dir)
        .unwrap()
        .map(|e| e.unwrap().path())
        .filter(|p| p.to_string_lossy().ends_with(".chart.json"))
        .collect();
    found.sort();
    found
        .into_iter()
        .map(|p| {
            let drawn = read_sidecar(&p).unwrap();
            (p, drawn)
        })
        .collect()
}

/// Interval end, IOPS and host bytes written of every sample of a run directory, read plainly
/// from samples.jsonl.
fn samples(dir: &Path) -> Vec<(f64, f64, f64)> {
    std::fs::read_to_string(dir.join("samples.jsonl"))
        .unwrap()
        .lines()
        .map(|line| {
            let v: serde_json::Value = serde_json::from_str(line).unwrap();
            (
                v["t_end_s"].as_f64().unwrap(),
                v["iops"].as_f64().unwrap(),
                v["bytes_written_total"].as_f64().unwrap(),
            )
        })
        .collect()
}

/// The documented downsample (docs/charts-and-reports.md), written out plainly: up to twice
/// `buckets` points are drawn as they are; more are cut into `buckets` runs of consecutive
/// points, each drawn as its lowest and highest point in their order, and the first and the
/// last point are always drawn.
fn documented_downsample(points: &[(f64, f64)], buckets: usize) -> Vec<(f64, f64)> {
    let n = points.len();
    if n <= 2 * buckets {
        return points.to_vec();
    }
    let mut kept = Vec::new();
    for b in 0..buckets {
        let bucket = &points[b * n / buckets..(b + 1) * n / buckets];
        let mut low = 0;
        let mut high = 0;
        for (i, point) in bucket.iter().enumerate() {
            if point.1 < bucket[low].1 {
                low = i;
            }
            if point.1 > bucket[high].1 {
                high = i;
            }
        }
        kept.push(bucket[low.min(high)]);
        if low != high {
            kept.push(bucket[low.max(high)]);
        }
    }
    if kept[0] != points[0] {
        kept.insert(0, points[0]);
    }
    if kept[kept.len() - 1] != points[n - 1] {
        kept.push(points[n - 1]);
    }
    kept
}

/// The points of the series of `panel` whose name starts with `name`.
fn series(panel: &DrawnPanel, name: &str) -> Vec<(f64, f64)> {
    let found = panel
        .series
        .iter()
        .find(|s| s.name.starts_with(name))
        .unwrap_or_else(|| panic!("no series {name:?} in {:?}", panel.series));
    found.points.iter().map(|p| p.expect("no gap")).collect()
}

/// Seconds per unit of an elapsed-time axis described as "Elapsed time (min)".
fn seconds_per_unit(axis: &str) -> f64 {
    match axis.rsplit_once('(').map(|(_, u)| u.trim_end_matches(')')) {
        Some("h") => 3600.0,
        Some("min") => 60.0,
        Some("s") => 1.0,
        other => panic!("axis {axis:?}: unit {other:?}"),
    }
}

/// A soak of two hours at one-second intervals (7200 samples, so the chart downsamples): the
/// fade chart's IOPS series against time and against data written are exactly the samples'
/// IOPS at their interval ends and host gigabytes, downsampled as documented.
#[test]
fn the_fade_charts_recorded_iops_are_the_samples_downsampled_as_documented() {
    let work = tempfile::tempdir().unwrap();
    run(
        work.path(),
        &[
            "soak",
            "sim:vertex2-60g,scale=16",
            "--duration",
            "2h",
            "--interval",
            "1s",
            "--seed",
            "44",
            "--out",
            "soak",
        ],
    );
    let dir = work.path().join("soak");
    let raw = samples(&dir);
    assert_eq!(raw.len(), 7200);
    let fade = read_sidecar(&dir.join("fade.chart.json")).unwrap();
    let [by_time, by_data] = &fade.panels[..] else {
        panic!("the fade chart has two panels: {:?}", fade.panels.len());
    };
    let unit = seconds_per_unit(&by_time.x_axis);
    let expected: Vec<(f64, f64)> = raw.iter().map(|&(t, iops, _)| (t / unit, iops)).collect();
    let drawn = series(by_time, "IOPS per interval");
    assert!(drawn.len() < raw.len(), "not downsampled: {}", drawn.len());
    assert_eq!(drawn, documented_downsample(&expected, 1500));
    let expected: Vec<(f64, f64)> = raw.iter().map(|&(_, iops, b)| (b / 1e9, iops)).collect();
    assert_eq!(
        series(by_data, "IOPS per interval"),
        documented_downsample(&expected, 1500)
    );
    // The lowest and the highest interval of the run are on the chart.
    let lowest = raw.iter().map(|s| s.1).fold(f64::INFINITY, f64::min);
    let highest = raw.iter().map(|s| s.1).fold(0.0, f64::max);
    assert!(drawn.iter().any(|p| p.1 == lowest) && drawn.iter().any(|p| p.1 == highest));
    // The SVG carries the same record.
    run(work.path(), &["plot", "soak", "--format", "svg"]);
    let svg = std::fs::read_to_string(dir.join("fade.svg")).unwrap();
    let json = svg
        .split_once("<ssdfade-chart>")
        .and_then(|(_, rest)| rest.split_once("</ssdfade-chart>"))
        .expect("the SVG's metadata has the chart's record")
        .0
        .replace("&lt;", "<")
        .replace("&gt;", ">")
        .replace("&amp;", "&");
    let from_svg: Drawn = serde_json::from_str(&json).unwrap();
    assert_eq!(from_svg.panels, fade.panels);
    write_amplification_is_the_samples(&dir);
}

/// The write amplification chart of the soak in `dir` against its samples.jsonl read plainly:
/// each interval's NAND bytes over its host-written bytes, the bytes accumulated, the overall
/// WA the totals' ratio, downsampled as documented; the NAND total against the drive's own
/// counter before and after the run (run.json), which counts a batch of I/Os in flight at the
/// end that no interval holds.
fn write_amplification_is_the_samples(dir: &Path) {
    let wa = read_sidecar(&dir.join("fade-wa.chart.json")).unwrap();
    let [bytes, per_interval] = &wa.panels[..] else {
        panic!("the WA chart has two panels: {:?}", wa.panels.len());
    };
    let unit = seconds_per_unit(&bytes.x_axis);
    let (mut host, mut nand) = (0u64, 0u64);
    let (mut host_line, mut nand_line, mut ratios) = (Vec::new(), Vec::new(), Vec::new());
    for line in std::fs::read_to_string(dir.join("samples.jsonl"))
        .unwrap()
        .lines()
    {
        let v: serde_json::Value = serde_json::from_str(line).unwrap();
        let t = v["t_end_s"].as_f64().unwrap() / unit;
        let written = v["write"]["bytes"].as_u64().unwrap_or(0);
        let programmed = v["nand_bytes"]
            .as_u64()
            .expect("a simulated drive reports NAND bytes in every interval");
        host += written;
        nand += programmed;
        host_line.push((t, host as f64 / 1e9));
        nand_line.push((t, nand as f64 / 1e9));
        if written > 0 {
            ratios.push((t, programmed as f64 / written as f64));
        }
    }
    assert_eq!(
        series(bytes, "NAND bytes"),
        documented_downsample(&nand_line, 1500)
    );
    assert_eq!(
        series(bytes, "host bytes"),
        documented_downsample(&host_line, 1500)
    );
    // The axis is cut at 1.5 × the 99th percentile (nearest rank) of the intervals' WA, or
    // 1.2 × the overall WA when higher, when any interval lies above it; those are drawn at
    // the cut.
    let mut sorted: Vec<f64> = ratios.iter().map(|r| r.1).collect();
    sorted.sort_by(f64::total_cmp);
    let p99 = sorted[(sorted.len() as f64 * 0.99).ceil() as usize - 1];
    let at = (1.5 * p99).max(1.2 * nand as f64 / host as f64);
    let cut = sorted.last().is_some_and(|&w| w > at);
    let shown: Vec<(f64, f64)> = ratios
        .iter()
        .map(|&(t, w)| (t, if cut { w.min(at) } else { w }))
        .collect();
    assert_eq!(
        series(per_interval, "WA per interval"),
        documented_downsample(&shown, 1500)
    );
    if cut {
        let above: Vec<(f64, f64)> = ratios
            .iter()
            .filter(|r| r.1 > at)
            .map(|&(t, _)| (t, at))
            .collect();
        assert_eq!(series(per_interval, "above the cut"), above);
    }
    let overall = series(per_interval, "overall WA");
    assert!(overall.iter().all(|p| p.1 == nand as f64 / host as f64));
    // GC copies: a full-span random soak programs more than it is sent.
    assert!(nand > host, "NAND {nand} ≤ host {host}");
    let info: serde_json::Value =
        serde_json::from_str(&std::fs::read_to_string(dir.join("run.json")).unwrap()).unwrap();
    let counter = |when: &str| info[when]["wear"]["nand_bytes_written"].as_u64().unwrap();
    let counted = counter("drive_after") - counter("drive_before");
    assert!(counted >= nand, "the drive counted {counted} < {nand}");
    assert!(
        (counted - nand) as f64 / (nand as f64) < 1e-3,
        "the drive counted {counted}, the intervals {nand}"
    );
}

/// Every label of `drawn` lies inside the image, no two overlap, none covers a state's dot,
/// and every mark lies inside its plot.
fn labels_apart_and_inside(path: &Path, drawn: &Drawn) {
    let (w, h) = (drawn.size.0 as i32, drawn.size.1 as i32);
    let overlap =
        |a: &[i32; 4], b: &[i32; 4]| a[0] < b[2] && b[0] < a[2] && a[1] < b[3] && b[1] < a[3];
    let name = path.display();
    for (i, a) in drawn.labels.iter().enumerate() {
        let p = a.pixels;
        assert!(
            p[0] >= 0 && p[1] >= 0 && p[2] <= w && p[3] <= h,
            "{name}: {:?} {p:?} leaves the image",
            a.text
        );
        for b in &drawn.labels[i + 1..] {
            assert!(
                !overlap(&p, &b.pixels),
                "{name}: {:?} {p:?} overlaps {:?} {:?}",
                a.text,
                b.text,
                b.pixels
            );
        }
        for panel in &drawn.panels {
            for m in panel.marks.iter().filter(|m| m.kind == MarkKind::Dot) {
                assert!(
                    !overlap(&p, &m.pixels),
                    "{name}: {:?} covers the dot of {:?}",
                    a.text,
                    m.name
                );
            }
        }
    }
    for panel in &drawn.panels {
        let plot = panel.plot;
        for m in &panel.marks {
            let q = m.pixels;
            assert!(
                q[0] >= plot[0] && q[1] >= plot[1] && q[2] <= plot[2] && q[3] <= plot[3],
                "{name}: the mark of {:?} {q:?} leaves its plot {plot:?}",
                m.name
            );
        }
    }
}

/// Long labels on every chart kind: a 24-hour soak at one-second intervals (86 400 samples,
/// a prediction, drive fills), the Vertex 2 protocol (seven phases, erase markers, four
/// states), WSAT and HIR, all on a long target name. No label of any chart overlaps another,
/// covers a state's dot or leaves the image.
#[test]
fn no_label_of_any_chart_overlaps_another_or_leaves_the_image() {
    let work = tempfile::tempdir().unwrap();
    let target = "sim:vertex2-60g,scale=64";
    let runs: [(&str, Vec<&str>); 4] = [
        (
            "soak",
            vec!["soak", target, "--duration", "24h", "--interval", "1s"],
        ),
        (
            "vertex2",
            vec![
                "experiment",
                "vertex2",
                target,
                "--measure-duration",
                "5s",
                "--soak-duration",
                "2h",
            ],
        ),
        ("wsat", vec!["experiment", "wsat", target]),
        ("hir", vec!["experiment", "hir", target, "--bursts", "2"]),
    ];
    let mut charts = 0;
    for (name, args) in runs {
        let mut args = args;
        args.extend(["--seed", "44", "--out", name]);
        run(work.path(), &args);
        for (path, drawn) in records(&work.path().join(name)) {
            assert!(!drawn.labels.is_empty(), "{}: no labels", path.display());
            labels_apart_and_inside(&path, &drawn);
            charts += 1;
        }
    }
    assert!(charts >= 12, "only {charts} charts");
}

/// One drive: its strip's narrow axis (1 % either side) has as many tick labels as ticks.
#[test]
fn a_single_drives_strip_has_distinct_ticks() {
    for value in [50.0, 19.7, 1.0, 12987.0] {
        let chart = ssdfade::plot::FleetStripChart {
            title: "t".into(),
            subtitle: String::new(),
            strips: vec![ssdfade::plot::Strip {
                label: "figure".into(),
                values: vec![value],
                median: value,
                p10: value,
                p90: value,
                low: value,
                high: value,
                outliers: Vec::new(),
            }],
        };
        let (_, drawn) = ssdfade::plot::Chart::drawn_svg(&chart).unwrap();
        let bottom = drawn.panels[0].plot[3];
        let ticks: Vec<&str> = drawn
            .labels
            .iter()
            .filter(|l| l.pixels[1] > bottom)
            .map(|l| l.text.as_str())
            .collect();
        let mut distinct = ticks.clone();
        distinct.dedup();
        assert!(ticks.len() >= 3, "{value}: {ticks:?}");
        assert_eq!(distinct, ticks, "{value}: ticks repeat");
    }
}
