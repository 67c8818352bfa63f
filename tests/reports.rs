//! `plot`, `report` and `compare` on real run directories (simulated drive), on a crashed run,
//! on damaged ones, and on a synthetic 24-hour soak.

mod common;

use std::path::{Path, PathBuf};

use common::{copy_tree, run_ok, ssdfade};
use ssdfade::stats::{IntervalStats, Sample};
use ssdfade::units::{format_latency_us, format_sig};

/// A short measure on the simulated Vertex 2, written to `dir/name`.
fn sim_run(dir: &Path, name: &str, qd: u32) -> PathBuf {
    let out = dir.join(name);
    run_ok(
        ssdfade(dir)
            .args([
                "measure",
                "sim:vertex2-60g",
                "--duration",
                "30s",
                "--interval",
                "1s",
                "--qd",
                &qd.to_string(),
                "--seed",
                "7",
                "--out",
            ])
            .arg(&out),
    );
    out
}

fn samples_json(dir: &Path) -> Vec<serde_json::Value> {
    std::fs::read_to_string(dir.join("samples.jsonl"))
        .unwrap()
        .lines()
        .map(|l| serde_json::from_str(l).unwrap())
        .collect()
}

/// Width and height from a PNG file's IHDR chunk.
/// Whether `printed` (what `report` prints) is report.md's `markdown` fitted to a terminal:
/// no line over 80 columns, and the same words (a table split to fit repeats its first column,
/// so the sets of words), table rules and shell continuations aside; a chart `![caption](file)`
/// is printed as `file: caption`.
fn shows_the_report(printed: &str, markdown: &str) -> bool {
    let markdown: String = markdown
        .lines()
        .map(
            |l| match l.strip_prefix("![").and_then(|l| l.strip_suffix(')')) {
                Some(image) => {
                    let (caption, file) = image.split_once("](").unwrap();
                    format!("{file}: {caption}\n")
                }
                None => format!("{l}\n"),
            },
        )
        .collect();
    let words = |t: &str| {
        t.split(|c: char| c.is_whitespace() || c == '|')
            .filter(|w| !w.is_empty() && *w != "\\")
            .filter(|w| !w.chars().all(|c| c == '-' || c == ':'))
            .map(String::from)
            .collect::<std::collections::BTreeSet<String>>()
    };
    let report = &printed[..printed.find("\nwrote ").unwrap_or(printed.len())];
    report.lines().all(|l| l.chars().count() <= 80) && words(report) == words(&markdown)
}

fn png_size(path: &Path) -> (u32, u32) {
    let bytes = std::fs::read(path).unwrap();
    assert_eq!(
        &bytes[..8],
        b"\x89PNG\r\n\x1a\n",
        "{} is not a PNG",
        path.display()
    );
    let be = |i: usize| u32::from_be_bytes(bytes[i..i + 4].try_into().unwrap());
    (be(16), be(20))
}

/// The cells of the Markdown table row that starts with `name`.
fn row(markdown: &str, name: &str) -> Vec<String> {
    let line = markdown
        .lines()
        .find(|l| l.trim_start_matches('|').trim_start().starts_with(name))
        .unwrap_or_else(|| panic!("no row '{name}' in\n{markdown}"));
    line.trim_matches('|')
        .split('|')
        .map(|c| c.trim().to_string())
        .collect()
}

#[test]
fn plot_redraws_a_crashed_run_with_a_torn_last_line() {
    let tmp = tempfile::tempdir().unwrap();
    let run = sim_run(tmp.path(), "run", 32);
    // What a crash leaves: run.json still says running, the last line half written.
    let mut info: serde_json::Value =
        serde_json::from_str(&std::fs::read_to_string(run.join("run.json")).unwrap()).unwrap();
    info["status"] = "running".into();
    info["summary"] = serde_json::Value::Null;
    info["ended_utc"] = serde_json::Value::Null;
    std::fs::write(run.join("run.json"), info.to_string()).unwrap();
    let mut samples = std::fs::read_to_string(run.join("samples.jsonl")).unwrap();
    samples.push_str("{\"index\":30,\"t_start_s\":30.0,\"t_en");
    std::fs::write(run.join("samples.jsonl"), samples).unwrap();

    let printed = run_ok(ssdfade(tmp.path()).arg("plot").arg(&run));
    assert!(printed.contains("fade.png"), "{printed}");
    assert_eq!(png_size(&run.join("fade.png")), (1600, 900));
    assert_eq!(png_size(&run.join("fade-latency.png")), (1600, 900));

    let svg_out = tmp.path().join("elsewhere/chart.svg");
    std::fs::create_dir_all(svg_out.parent().unwrap()).unwrap();
    run_ok(
        ssdfade(tmp.path())
            .arg("plot")
            .arg(&run)
            .args(["--format", "svg", "--out"])
            .arg(&svg_out),
    );
    let svg = std::fs::read_to_string(&svg_out).unwrap();
    assert!(svg.starts_with("<svg width=\"1600\" height=\"900\""));
    assert!(
        svg.contains("UNFINISHED (crashed or still running)"),
        "the chart says the run did not finish"
    );
    assert!(tmp.path().join("elsewhere/chart-latency.svg").exists());

    let report = run_ok(ssdfade(tmp.path()).arg("report").arg(&run));
    assert!(report.contains("status running"), "{report}");
}

#[test]
fn a_damaged_sample_line_is_named_and_nothing_is_drawn() {
    let tmp = tempfile::tempdir().unwrap();
    let run = sim_run(tmp.path(), "run", 32);
    let text = std::fs::read_to_string(run.join("samples.jsonl")).unwrap();
    let mut lines: Vec<&str> = text.lines().collect();
    lines[2] = "{\"index\":2,\"t_start_s\":oops}";
    std::fs::write(run.join("samples.jsonl"), lines.join("\n") + "\n").unwrap();
    // The run drew its charts when it ended; take them away to see plot draw nothing.
    std::fs::remove_file(run.join("fade.png")).unwrap();

    for command in ["plot", "report"] {
        let out = ssdfade(tmp.path()).arg(command).arg(&run).output().unwrap();
        assert_eq!(out.status.code(), Some(2), "{command}");
        let stderr = String::from_utf8_lossy(&out.stderr);
        assert_eq!(stderr.lines().count(), 1, "one line: {stderr}");
        assert!(stderr.contains("samples.jsonl:3:"), "{stderr}");
    }
    assert!(!run.join("fade.png").exists());
    assert!(!run.join("report.md").exists());
}

#[test]
fn a_run_without_samples_or_run_json_is_refused() {
    let tmp = tempfile::tempdir().unwrap();
    let run = sim_run(tmp.path(), "run", 32);
    std::fs::write(run.join("samples.jsonl"), "").unwrap();
    let out = ssdfade(tmp.path()).arg("plot").arg(&run).output().unwrap();
    assert_eq!(out.status.code(), Some(2));
    assert!(String::from_utf8_lossy(&out.stderr).contains("holds no samples"));

    let out = ssdfade(tmp.path())
        .arg("plot")
        .arg(tmp.path())
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(2));
    assert!(String::from_utf8_lossy(&out.stderr).contains("is not a run directory"));
}

#[test]
fn report_whole_run_figures_are_the_exact_summary_and_agree_with_the_samples() {
    let tmp = tempfile::tempdir().unwrap();
    let run = sim_run(tmp.path(), "run", 32);
    let mut info: serde_json::Value =
        serde_json::from_str(&std::fs::read_to_string(run.join("run.json")).unwrap()).unwrap();
    // The summary's percentiles are the whole run's histogram: the report prints them, not an
    // estimate. A p99 no interval could give shows that it is the one printed.
    info["summary"]["lat_us"]["p99"] = 4321.0.into();
    std::fs::write(run.join("run.json"), info.to_string()).unwrap();

    let printed = run_ok(ssdfade(tmp.path()).arg("report").arg(&run));
    let markdown = std::fs::read_to_string(run.join("report.md")).unwrap();
    assert!(
        shows_the_report(&printed, &markdown),
        "the terminal shows the report:\n{printed}"
    );
    // No sentence about what a single run cannot have (recovery needs an erase phase).
    assert!(!markdown.contains("Recovery"), "{markdown}");

    let samples = samples_json(&run);
    let f = |s: &serde_json::Value, k: &str| s[k].as_f64().unwrap();
    let ops: f64 = samples.iter().map(|s| f(s, "ops")).sum();
    let bytes: f64 = samples.iter().map(|s| f(s, "bytes")).sum();
    let seconds = f(samples.last().unwrap(), "t_end_s") - f(&samples[0], "t_start_s");
    let mean = samples
        .iter()
        .map(|s| f(s, "ops") * s["lat_us"]["mean"].as_f64().unwrap())
        .sum::<f64>()
        / ops;
    let max = samples
        .iter()
        .map(|s| s["lat_us"]["max"].as_f64().unwrap())
        .fold(0.0, f64::max);

    let whole = row(&markdown, "whole run");
    assert_eq!(whole[2], format!("{:.0}", ops / seconds));
    assert_eq!(whole[3], format!("{:.2}", bytes / seconds / 1e6));
    assert_eq!(
        whole[4]
            .trim_end_matches(" µs")
            .parse::<f64>()
            .ok()
            .map(|v| v.round()),
        format_latency_us(mean)
            .trim_end_matches(" µs")
            .parse::<f64>()
            .ok()
            .map(|v| v.round()),
        "{whole:?} vs {mean}"
    );
    assert_eq!(
        whole[5],
        format_latency_us(4321.0),
        "exact p99 from run.json"
    );
    assert_eq!(whole[6], format_latency_us(max));
    let first = row(&markdown, "first interval");
    assert_eq!(first[2], format!("{:.0}", f(&samples[0], "iops")));
    assert_eq!(first[7], "100 %");
    assert!(
        markdown.contains(&format!("{} I/Os", ops as u64)),
        "{markdown}"
    );
    assert!(markdown.contains("exact percentiles"), "{markdown}");
    assert!(
        markdown.contains("--seed 7"),
        "reproduce command: {markdown}"
    );
    assert_eq!(png_size(&run.join("fade.png")), (1600, 900));

    // A run that wrote no summary (it crashed) falls back to the estimate, and says so.
    info["summary"] = serde_json::Value::Null;
    std::fs::write(run.join("run.json"), info.to_string()).unwrap();
    run_ok(ssdfade(tmp.path()).arg("report").arg(&run));
    let markdown = std::fs::read_to_string(run.join("report.md")).unwrap();
    assert!(markdown.contains("estimated"), "{markdown}");
    assert_ne!(row(&markdown, "whole run")[5], format_latency_us(4321.0));
    assert_eq!(
        row(&markdown, "whole run")[2],
        format!("{:.0}", ops / seconds)
    );
}

/// A paced run's report names its issue rate (in the access specification and beside the
/// results, with the late issues); an unpaced run's says it ran flat out.
#[test]
fn the_report_of_a_paced_run_shows_its_rate_and_late_issues() {
    let tmp = tempfile::tempdir().unwrap();
    for (name, rate) in [("paced", Some("2000")), ("flat", None)] {
        let out = tmp.path().join(name);
        let mut cmd = ssdfade(tmp.path());
        cmd.args([
            "measure",
            "sim:vertex2-60g",
            "--duration",
            "10s",
            "--qd",
            "8",
        ]);
        if let Some(rate) = rate {
            cmd.args(["--rate-iops", rate]);
        }
        run_ok(cmd.arg("--out").arg(&out));
        run_ok(ssdfade(tmp.path()).arg("report").arg(&out));
        let markdown = std::fs::read_to_string(out.join("report.md")).unwrap();
        let html = std::fs::read_to_string(out.join("report.html")).unwrap();
        // The access specification's row (a paced run's results paragraph starts alike).
        let table = markdown
            .lines()
            .filter(|l| l.starts_with('|'))
            .collect::<Vec<_>>()
            .join("\n");
        if rate.is_some() {
            for text in [&markdown, &html] {
                assert!(text.contains("2000 IOPS (--rate-iops 2000)"), "{text}");
                assert!(text.contains("paced I/Os were issued late"), "{text}");
            }
            assert_eq!(row(&table, "Issue rate")[1], "2000 IOPS (--rate-iops 2000)");
            // Its rate is the pace: no "2000 → 2000 IOPS, 100 % of fresh".
            assert_eq!(row(&table, "Pace")[1], "paced at 2000 IOPS (met)");
            assert!(row(&table, "Fade")[1]
                .starts_with("none: the run was paced at 2000 IOPS (--rate-iops 2000) and met it"));
            assert!(!markdown.contains("Fresh → faded"), "{markdown}");
            assert!(!markdown.contains("% of fresh"), "{markdown}");
        } else {
            assert_eq!(row(&table, "Issue rate")[1], "flat out (closed loop)");
            assert!(!markdown.contains("issued late"), "{markdown}");
        }
    }
}

/// The text chunks of a PNG file, keyword and text, tEXt and iTXt alike.
fn png_text(path: &Path) -> Vec<(String, String)> {
    let reader = png::Decoder::new(std::fs::File::open(path).unwrap())
        .read_info()
        .unwrap();
    let info = reader.info();
    let latin1 = info
        .uncompressed_latin1_text
        .iter()
        .map(|c| (c.keyword.clone(), c.text.clone()));
    let utf8 = info
        .utf8_text
        .iter()
        .map(|c| (c.keyword.clone(), c.get_text().unwrap()));
    latin1.chain(utf8).collect()
}

/// The children of the first `<metadata>` of an SVG document, tag and text.
fn svg_metadata(svg: &str) -> Vec<(String, String)> {
    let doc = roxmltree::Document::parse(svg).expect("well-formed SVG");
    let metadata = doc
        .descendants()
        .find(|n| n.has_tag_name("metadata"))
        .expect("a <metadata> element");
    metadata
        .children()
        .filter(|n| n.is_element())
        .map(|n| {
            (
                n.tag_name().name().to_string(),
                n.text().unwrap_or_default().to_string(),
            )
        })
        .collect()
}

/// Every chart file (PNG text chunks, SVG metadata, report.html's inline charts) and the end of
/// report.md carry the record's provenance: the build, the date, the drive and the command
/// line, with the run directory named by its file name alone.
#[test]
fn every_chart_and_the_report_carry_the_records_provenance() {
    let tmp = tempfile::tempdir().unwrap();
    let dir = sim_run(tmp.path(), "run", 32);
    run_ok(ssdfade(tmp.path()).arg("report").arg(&dir));
    let info: serde_json::Value =
        serde_json::from_str(&std::fs::read_to_string(dir.join("run.json")).unwrap()).unwrap();
    let software = format!(
        "ssdfade {} (build {})",
        info["version"].as_str().unwrap(),
        info["build"].as_str().unwrap()
    );
    let id = &info["target"]["identity"];
    let drive = format!(
        "{}, firmware {}, serial {}, 60.0 GB, sim:vertex2-60g",
        id["model"].as_str().unwrap(),
        id["firmware"].as_str().unwrap(),
        id["serial"].as_str().unwrap(),
    );
    let command =
        "ssdfade measure sim:vertex2-60g --duration 30s --interval 1s --qd 32 --seed 7 --out run";
    let expected: Vec<(String, String)> = [
        ("Software", software.as_str()),
        ("Creation Time", info["started_utc"].as_str().unwrap()),
        ("Source", drive.as_str()),
        ("Description", command),
    ]
    .map(|(k, v)| (k.to_string(), v.to_string()))
    .to_vec();
    for png in ["fade.png", "fade-latency.png", "fade-distribution.png"] {
        assert_eq!(png_text(&dir.join(png)), expected, "{png}");
    }
    let as_svg: Vec<(String, String)> = expected
        .iter()
        .map(|(k, v)| (k.to_lowercase().replace(' ', "-"), v.clone()))
        .collect();
    let out = tmp.path().join("charts").join("fade.svg");
    std::fs::create_dir(tmp.path().join("charts")).unwrap();
    run_ok(
        ssdfade(tmp.path())
            .args(["plot", "--format", "svg", "--out"])
            .arg(&out)
            .arg(&dir),
    );
    // The provenance, then what the chart drew (its record, checked in chart_records.rs).
    let mut metadata = svg_metadata(&std::fs::read_to_string(&out).unwrap());
    let record = metadata.pop().unwrap();
    assert_eq!(record.0, "ssdfade-chart");
    assert!(
        record.1.starts_with("{\"format\":\"ssdfade-chart/"),
        "{}",
        record.1
    );
    assert_eq!(metadata, as_svg);
    let html = std::fs::read_to_string(dir.join("report.html")).unwrap();
    let inline = html.split("<svg").skip(1).collect::<Vec<_>>();
    // Fade, latency, consistency and distribution, and write amplification where the drive
    // reports NAND bytes (a simulated one does): report.md shows its PNG too.
    let wa = reports_nand(&dir);
    assert_eq!(inline.len(), 4 + usize::from(wa));
    let md = std::fs::read_to_string(dir.join("report.md")).unwrap();
    assert_eq!(md.contains("](fade-wa.png)"), wa, "{md}");
    for svg in inline {
        let svg = format!("<svg{}", &svg[..svg.find("</svg>").unwrap() + 6]);
        assert_eq!(svg_metadata(&svg), as_svg);
    }
    let markdown = std::fs::read_to_string(dir.join("report.md")).unwrap();
    let ending = format!(
        "---\n\n- Drive: {drive}\n- Command: {command}\n- Recorded: {}\n- Recorded by: {software}\n",
        info["started_utc"].as_str().unwrap()
    );
    assert!(markdown.ends_with(&ending), "{markdown}");
    assert!(html.contains(&format!("<p>Drive: {drive}</p>")), "{html}");
    assert!(!html.contains(tmp.path().to_str().unwrap()));
    assert!(!markdown.contains(tmp.path().to_str().unwrap()));
}

/// A soak stopped before its first interval ended (Ctrl-C while the drive loads) has no
/// samples: `report` says what run.json holds, how it ended and what to do (exit 0, no
/// charts); `plot` refuses it in one line.
#[test]
fn a_run_stopped_before_its_first_interval_is_reported_not_refused() {
    let tmp = tempfile::tempdir().unwrap();
    let dir = sim_run(tmp.path(), "run", 32);
    // As the soak stopped while the drive loaded leaves it: no sample, nothing counted.
    std::fs::write(dir.join("samples.jsonl"), "").unwrap();
    let path = dir.join("run.json");
    let mut info: serde_json::Value =
        serde_json::from_str(&std::fs::read_to_string(&path).unwrap()).unwrap();
    info["status"] = "interrupted".into();
    info["summary"]["ops"] = 0.into();
    info["summary"]["bytes"] = 0.into();
    info["summary"]["seconds"] = 0.0.into();
    std::fs::write(&path, info.to_string()).unwrap();
    let printed = run_ok(ssdfade(tmp.path()).arg("report").arg(&dir));
    let markdown = std::fs::read_to_string(dir.join("report.md")).unwrap();
    let html = std::fs::read_to_string(dir.join("report.html")).unwrap();
    for text in [&printed, &markdown] {
        assert!(text.contains("| Status     | interrupted"), "{text}");
        assert!(
            text.contains("no interval: the run stopped after 0.0s (0 I/Os)"),
            "{text}"
        );
    }
    assert!(html.contains("interrupted") && html.contains("0 I/Os"));
    assert!(!markdown.contains(".png"), "no chart: {markdown}");
    let out = ssdfade(tmp.path()).arg("plot").arg(&dir).output().unwrap();
    assert_eq!(out.status.code(), Some(2));
    assert_eq!(String::from_utf8_lossy(&out.stderr).lines().count(), 1);
}

/// True when some sample of the run in `dir` reports the drive's NAND bytes: its report then
/// has the write amplification chart.
fn reports_nand(dir: &Path) -> bool {
    ssdfade::results::read_samples(dir)
        .unwrap()
        .iter()
        .any(|s| s.nand_bytes.is_some())
}

#[test]
fn html_report_references_nothing_outside_itself() {
    let tmp = tempfile::tempdir().unwrap();
    let run = sim_run(tmp.path(), "run", 32);
    run_ok(ssdfade(tmp.path()).arg("report").arg(&run));
    let html = std::fs::read_to_string(run.join("report.html")).unwrap();
    // The only links are the table of contents' to the page's own sections; the only url()
    // the embedded font's data.
    let lower = html
        .to_lowercase()
        .replace("href=\"#s", "")
        .replace("url(data:font/woff2;base64,", "");
    for outside in [
        "src=", "href=", "url(", "@import", "http:", "https:", "<script", "<link",
    ] {
        assert!(!lower.contains(outside), "report.html contains {outside}");
    }
    assert_eq!(
        html.matches("<svg").count(),
        4 + usize::from(reports_nand(&run)),
        "fade, latency, consistency, distribution and (where drawn) WA charts inline"
    );
    assert!(html.contains("<table>"));
    assert!(html.trim_end().ends_with("</html>"));
    // Usable at 400 px: every table sits in a box that scrolls, and a wide one (the results
    // table) turns into cards.
    assert_eq!(
        html.matches("<table").count(),
        html.matches("<div class=\"scroll\"><table").count()
    );
    assert!(html.contains("<table class=\"cards\">"));
    // Each inline chart is an image named by its caption, for screen readers.
    assert_eq!(
        html.matches("<svg").count(),
        html.matches("role=\"img\"").count()
    );
    assert_eq!(
        html.matches("<svg").count(),
        html.matches("<title id=").count()
    );
    // No path of the machine that made it; the date it was made.
    assert!(
        !html.contains(&tmp.path().display().to_string()),
        "absolute path in the report"
    );
    assert!(html.contains("<p>Generated 20"), "no date");
}

#[test]
fn compare_gives_ratios_to_the_first_run() {
    let tmp = tempfile::tempdir().unwrap();
    let a = sim_run(tmp.path(), "qd1", 1);
    let b = sim_run(tmp.path(), "qd32", 32);
    let out = tmp.path().join("cmp");
    let printed = run_ok(
        ssdfade(tmp.path())
            .arg("compare")
            .arg(&a)
            .arg(&b)
            .arg("--out")
            .arg(&out),
    );
    let markdown = std::fs::read_to_string(out.join("compare.md")).unwrap();
    // The terminal gets the comparison within 80 columns, with compare.md's figures.
    assert!(
        printed.lines().all(|l| l.chars().count() <= 80),
        "{printed}"
    );
    assert_eq!(
        row(&printed, "IOPS, whole run"),
        row(&markdown, "IOPS, whole run")
    );
    assert_eq!(png_size(&out.join("compare.png")), (1600, 900));
    let iops = |dir: &Path| {
        let s = samples_json(dir);
        let ops: f64 = s.iter().map(|s| s["ops"].as_f64().unwrap()).sum();
        ops / (s.last().unwrap()["t_end_s"].as_f64().unwrap() - s[0]["t_start_s"].as_f64().unwrap())
    };
    let (ia, ib) = (iops(&a), iops(&b));
    let cells = row(&markdown, "IOPS, whole run");
    assert_eq!(cells[1], format!("{ia:.0}"));
    assert_eq!(
        cells[2],
        format!("{ib:.0} ({})", ssdfade::units::format_ratio(ib / ia))
    );
    // Latency reads as each run's own report writes it (µs below 10 ms, whatever the other
    // run's), and a ratio far below 1 keeps its digits.
    let own = |dir: &Path, column: usize| {
        run_ok(ssdfade(tmp.path()).arg("report").arg(dir));
        let report = std::fs::read_to_string(dir.join("report.md")).unwrap();
        row(&report[report.find("## Results").unwrap()..], "whole run")[column].clone()
    };
    let p99 = row(&markdown, "p99 latency");
    let summary = |dir: &Path| {
        let run: serde_json::Value =
            serde_json::from_str(&std::fs::read_to_string(dir.join("run.json")).unwrap()).unwrap();
        run["summary"]["lat_us"]["p99"].as_f64().unwrap()
    };
    assert_eq!(p99[1], own(&a, 5));
    assert!(p99[1].ends_with("µs"), "{p99:?}");
    assert_eq!(
        p99[2],
        format!(
            "{} ({})",
            own(&b, 5),
            ssdfade::units::format_ratio(summary(&b) / summary(&a))
        )
    );
    // Under the title the dates the runs were recorded and compared; a summary of each run
    // against the first; the commands that repeat the runs and the comparison.
    let recorded = |dir: &Path| read_json(&dir.join("run.json"))["started_utc"].clone();
    let dates = markdown.lines().nth(2).unwrap();
    assert!(
        dates.starts_with("Recorded (UTC): ")
            && dates.contains(recorded(&a).as_str().unwrap())
            && dates.contains(recorded(&b).as_str().unwrap())
            && dates.contains(" · compared 20"),
        "{dates}"
    );
    let summary =
        &markdown[markdown.find("## Summary").unwrap()..markdown.find("## Runs").unwrap()];
    assert!(
        summary.contains(&format!(
            "over the whole run ({} vs qd1)",
            ssdfade::units::format_ratio(ib / ia)
        )),
        "{summary}"
    );
    let reproduce = &markdown[markdown.find("## Reproduce").unwrap()..];
    assert!(
        reproduce.contains("ssdfade measure ") && reproduce.contains("ssdfade compare qd1 qd32"),
        "{reproduce}"
    );
    let html = std::fs::read_to_string(out.join("compare.html")).unwrap();
    // No address outside the page: its only links are the contents' to its own sections.
    let html = html.replace("href=\"#s", "");
    assert!(!html.contains("src=") && !html.contains("href="));
}

#[test]
fn a_day_of_one_second_samples_plots_quickly() {
    let tmp = tempfile::tempdir().unwrap();
    let run = sim_run(tmp.path(), "day", 32);
    // Replace the samples with a synthetic 24 h soak at 1 s intervals, with one bad second.
    let mut info: serde_json::Value =
        serde_json::from_str(&std::fs::read_to_string(run.join("run.json")).unwrap()).unwrap();
    info["workload"]["interval"] = 1.0.into();
    std::fs::write(run.join("run.json"), info.to_string()).unwrap();
    let mut text = String::new();
    let mut stats = IntervalStats::new();
    let mut written = 0;
    for i in 0..86_400u64 {
        stats.clear();
        let iops = if i == 50_000 { 3 } else { 6000 - i / 20 };
        stats.write.record_n(iops, iops * 4096, 5_000_000);
        let sample = Sample::new(i, i as f64, i as f64 + 1.0, &stats, written);
        written = sample.bytes_written_total;
        text.push_str(&serde_json::to_string(&sample).unwrap());
        text.push('\n');
    }
    std::fs::write(run.join("samples.jsonl"), text).unwrap();
    // The summary counts what the samples hold, as a run's does.
    let ops: u64 = (0..86_400u64)
        .map(|i| if i == 50_000 { 3 } else { 6000 - i / 20 })
        .sum();
    info["summary"]["ops"] = ops.into();
    info["summary"]["bytes"] = (ops * 4096).into();
    std::fs::write(run.join("run.json"), info.to_string()).unwrap();

    let mut plot = ssdfade(tmp.path())
        .arg("plot")
        .arg(&run)
        .stdout(std::process::Stdio::null())
        .stderr(std::process::Stdio::piped())
        .spawn()
        .unwrap();
    let ended = common::reap(&mut plot, std::time::Duration::from_secs(120));
    let mut said = String::new();
    std::io::Read::read_to_string(&mut plot.stderr.take().unwrap(), &mut said).unwrap();
    assert!(ended.status.success(), "{:?}: {said}", ended.status);
    eprintln!(
        "plot of 86400 samples took {:?} of CPU, {:?} in all",
        ended.cpu, ended.wall
    );
    assert_eq!(png_size(&run.join("fade.png")), (1600, 900));
    // Under a second on an idle machine. The CPU it took, which a loaded machine's wait for a
    // CPU does not add to.
    assert!(
        ended.cpu.as_secs_f64() < 5.0,
        "plot took {:?} of CPU",
        ended.cpu
    );
}

#[test]
fn an_experiment_directory_is_plotted_and_reported_as_one_timeline() {
    let tmp = tempfile::tempdir().unwrap();
    let exp = tmp.path().join("exp");
    std::fs::create_dir_all(&exp).unwrap();
    let target = format!(
        "sim:vertex2-60g,state={}",
        tmp.path().join("drive.state").display()
    );
    let measure = |dir: &str| {
        run_ok(
            ssdfade(tmp.path())
                .args([
                    "measure",
                    &target,
                    "--duration",
                    "20s",
                    "--interval",
                    "1s",
                    "--seed",
                    "3",
                    "--out",
                ])
                .arg(exp.join(dir)),
        );
    };
    measure("01-fresh");
    measure("02-faded");
    run_ok(
        ssdfade(tmp.path())
            .args(["erase", &target, "--method", "auto", "--out"])
            .arg(exp.join("03-erase")),
    );
    measure("04-recovered");
    std::fs::write(
        exp.join("experiment.json"),
        r#"{"name": "demo", "phases": [
            {"name": "fresh", "kind": "measure", "status": "completed", "dir": "01-fresh"},
            {"name": "faded", "kind": "measure", "status": "completed", "dir": "02-faded"},
            {"name": "erase", "kind": "erase", "status": "completed", "dir": "03-erase"},
            {"name": "recovered", "kind": "measure", "status": "completed", "dir": "04-recovered"},
            {"name": "after", "kind": "measure", "status": "pending", "dir": "05-after"}]}"#,
    )
    .unwrap();

    run_ok(ssdfade(tmp.path()).arg("plot").arg(&exp));
    assert_eq!(png_size(&exp.join("fade.png")), (1600, 900));
    let printed = run_ok(ssdfade(tmp.path()).arg("report").arg(&exp));
    let markdown = std::fs::read_to_string(exp.join("report.md")).unwrap();
    assert!(
        shows_the_report(&printed, &markdown),
        "the terminal shows the report:\n{printed}"
    );
    let iops = |dir: &str| {
        let s = samples_json(&exp.join(dir));
        let ops: f64 = s.iter().map(|s| s["ops"].as_f64().unwrap()).sum();
        ops / (s.last().unwrap()["t_end_s"].as_f64().unwrap() - s[0]["t_start_s"].as_f64().unwrap())
    };
    let (fresh, recovered) = (iops("01-fresh"), iops("04-recovered"));
    // The Results table (the summary card above it names the states too).
    let results = &markdown[markdown.find("## Results").unwrap()..];
    assert_eq!(row(results, "fresh")[2], format!("{fresh:.0}"));
    assert_eq!(row(results, "recovered")[2], format!("{recovered:.0}"));
    assert!(
        markdown.contains(&format!("is {:.0} % of fresh", 100.0 * recovered / fresh)),
        "{markdown}"
    );
    assert!(markdown.contains("Erase: erase (sim)"), "{markdown}");
    assert!(
        markdown.contains("| after "),
        "pending phase listed: {markdown}"
    );
    let html = std::fs::read_to_string(exp.join("report.html")).unwrap();
    // Fade, latency, write amplification (the simulated drive counts its NAND bytes) and the
    // phases' latency distributions overlaid.
    assert_eq!(html.matches("<svg").count(), 4);
    let markdown_charts = [
        "fade.png",
        "fade-latency.png",
        "fade-wa.png",
        "fade-distribution.png",
    ];
    for png in markdown_charts {
        assert!(
            markdown.contains(&format!("({png})")),
            "{png} not in report.md"
        );
    }
}

#[test]
fn compare_takes_experiment_directories_and_names_runs_shortly() {
    let tmp = tempfile::tempdir().unwrap();
    let examples = Path::new(env!("CARGO_MANIFEST_DIR")).join("results/examples");
    let out = tmp.path().join("cmp");
    let printed = run_ok(
        ssdfade(tmp.path())
            .arg("compare")
            .arg(examples.join("vertex2-sim"))
            .arg(examples.join("vertex2-dc-ssd-400g"))
            .arg("--out")
            .arg(&out),
    );
    // Each experiment is compared by its soak, named by its directory, never its full path.
    let cells = row(&printed, "Time");
    assert_eq!(cells[1], "8h00m00s", "{printed}");
    let html = std::fs::read_to_string(out.join("compare.html")).unwrap();
    assert!(
        html.contains("vertex2-sim (8h00m00s)"),
        "legend with its length"
    );
    assert!(!html.contains(&examples.display().to_string()));
    // Runs whose directories share a name are told apart by their parents.
    std::fs::create_dir_all(tmp.path().join("a")).unwrap();
    std::fs::create_dir_all(tmp.path().join("b")).unwrap();
    let a = sim_run(&tmp.path().join("a"), "run", 1);
    let b = sim_run(&tmp.path().join("b"), "run", 4);
    let printed = run_ok(
        ssdfade(tmp.path())
            .arg("compare")
            .arg(&a)
            .arg(&b)
            .arg("--out")
            .arg(&out),
    );
    let head = printed.lines().find(|l| l.starts_with("| Figure")).unwrap();
    assert!(head.contains("a/run") && head.contains("b/run"), "{head}");
    assert!(!head.contains(&tmp.path().display().to_string()), "{head}");
}

#[test]
fn the_distribution_table_is_the_saved_histograms_and_equals_the_summary() {
    let tmp = tempfile::tempdir().unwrap();
    let run = sim_run(tmp.path(), "run", 32);
    let info: serde_json::Value =
        serde_json::from_str(&std::fs::read_to_string(run.join("run.json")).unwrap()).unwrap();
    let hist: serde_json::Value =
        serde_json::from_str(&std::fs::read_to_string(run.join("latency.json")).unwrap()).unwrap();
    let all = &hist["all"];
    let buckets: Vec<(f64, u64)> = all["buckets"]
        .as_array()
        .unwrap()
        .iter()
        .map(|b| (b[0].as_f64().unwrap() / 1000.0, b[1].as_u64().unwrap()))
        .collect();
    let count: u64 = buckets.iter().map(|b| b.1).sum();
    assert_eq!(count, info["summary"]["ops"].as_u64().unwrap());
    // The q-quantile read by hand from the buckets: the first bucket whose running count
    // reaches ceil(q × count), capped at the maximum.
    let max_us = all["max_ns"].as_f64().unwrap() / 1000.0;
    let quantile = |q: f64| {
        let rank = (q * count as f64).ceil() as u64;
        let mut seen = 0;
        buckets
            .iter()
            .find(|b| {
                seen += b.1;
                seen >= rank
            })
            .map_or(max_us, |b| b.0.min(max_us))
    };
    assert_eq!(
        quantile(0.99),
        info["summary"]["lat_us"]["p99"].as_f64().unwrap()
    );
    run_ok(ssdfade(tmp.path()).arg("report").arg(&run));
    let markdown = std::fs::read_to_string(run.join("report.md")).unwrap();
    let cells = row(&markdown, "all I/Os");
    assert_eq!(cells[1], count.to_string());
    for (i, q) in [0.5, 0.9, 0.99, 0.999, 0.9999].into_iter().enumerate() {
        assert_eq!(cells[2 + i], format_latency_us(quantile(q)), "{cells:?}");
    }
    assert_eq!(cells[7], format_latency_us(max_us));
    assert_eq!(png_size(&run.join("fade-distribution.png")), (1600, 900));
    assert!(markdown.contains("](fade-distribution.png)"), "{markdown}");
    // The summary card opens the report with the figures the sections below print.
    assert!(
        markdown.find("## Summary").unwrap() < markdown.find("## Results").unwrap(),
        "{markdown}"
    );
    let card = row(&markdown, "Whole run");
    let whole = row(&markdown, "whole run");
    assert!(
        card[1].starts_with(&format!(
            "{} IOPS, {} MB/s, p99 {}, p99.9 {}",
            whole[2], whole[3], whole[5], cells[5]
        )),
        "{card:?} vs {whole:?} and {cells:?}"
    );

    // Without latency.json (a resumed run) the report says why there is no distribution.
    std::fs::remove_file(run.join("latency.json")).unwrap();
    run_ok(ssdfade(tmp.path()).arg("report").arg(&run));
    let markdown = std::fs::read_to_string(run.join("report.md")).unwrap();
    assert!(
        markdown.contains("No latency histogram was saved"),
        "{markdown}"
    );
}

/// A run whose tool was stopped (SIGSTOP) for 30 intervals: those intervals carry `stopped_s`
/// and rates of zero. The charts draw them as a gap — no point, no line across it, and no dive
/// to zero IOPS — in the fade and latency charts alike, PNG and SVG.
#[test]
fn a_stopped_interval_is_a_gap_in_the_charts_not_zero_iops() {
    let tmp = tempfile::tempdir().unwrap();
    let src = Path::new(env!("CARGO_MANIFEST_DIR")).join("results/examples/vertex2-sim/04-soak");
    let dir = tmp.path().join("soak");
    std::fs::create_dir(&dir).unwrap();
    for f in ["run.json", "latency.json"] {
        std::fs::copy(src.join(f), dir.join(f)).unwrap();
    }
    let stopped = 1000..1030;
    let lines: Vec<String> = samples_json(&src)
        .into_iter()
        .enumerate()
        .map(|(i, mut s)| {
            if stopped.contains(&i) {
                let span = s["t_end_s"].as_f64().unwrap() - s["t_start_s"].as_f64().unwrap();
                let o = s.as_object_mut().unwrap();
                for (k, v) in [
                    ("ops", 0.0),
                    ("bytes", 0.0),
                    ("iops", 0.0),
                    ("mb_per_s", 0.0),
                ] {
                    o.insert(k.into(), serde_json::json!(v as u64));
                }
                o.remove("lat_us");
                o.remove("write");
                o.insert("stopped_s".into(), serde_json::json!(span));
            }
            s.to_string()
        })
        .collect();
    std::fs::write(dir.join("samples.jsonl"), lines.join("\n") + "\n").unwrap();
    // The summary counts what the samples hold, as a run's does.
    let (mut ops, mut bytes) = (0, 0);
    for line in &lines {
        let v: serde_json::Value = serde_json::from_str(line).unwrap();
        ops += v["ops"].as_u64().unwrap();
        bytes += v["bytes"].as_u64().unwrap();
    }
    let mut info: serde_json::Value =
        serde_json::from_str(&std::fs::read_to_string(dir.join("run.json")).unwrap()).unwrap();
    info["summary"]["ops"] = ops.into();
    info["summary"]["bytes"] = bytes.into();
    std::fs::write(dir.join("run.json"), info.to_string()).unwrap();
    let run = ssdfade::results::load_run(&dir).unwrap();
    // The stopped intervals, by their ends.
    let (from, to) = (
        run.samples[stopped.start].t_start_s,
        run.samples[stopped.end - 1].t_end_s,
    );
    let in_gap = |t: f64| t > from && t <= to;

    let fade = ssdfade::plot::fade_chart(&run);
    let inside: Vec<_> = fade.points.iter().filter(|p| in_gap(p.t_s)).collect();
    assert!(
        !inside.is_empty() && inside.iter().all(|p| p.iops.is_nan()),
        "{inside:?}"
    );
    assert!(
        fade.points.iter().all(|p| p.iops.is_nan() || p.iops > 0.0),
        "a zero-IOPS point is drawn"
    );
    let latency = ssdfade::plot::latency_chart(&run);
    assert!(latency
        .points
        .iter()
        .filter(|p| in_gap(p.t_s))
        .all(|p| p.p50_us.is_nan() && p.max_us.is_nan()));

    // Drawn without a coordinate that is not a number.
    use ssdfade::plot::Chart;
    for chart in [fade.svg().unwrap(), latency.svg().unwrap()] {
        assert!(
            !chart.contains("NaN"),
            "a line through a point without a number"
        );
    }
    let provenance = ssdfade::results::Provenance::of_run(&run.info);
    let written = ssdfade::plot::render_run(
        &run,
        &dir.join("fade.png"),
        ssdfade::plot::Format::Png,
        &provenance,
    )
    .unwrap();
    assert!(written.iter().all(|p| png_size(p) == ssdfade::plot::SIZE));
}

/// A phase of an experiment on a simulated drive runs on `sim:…,state=/abs/dir/drive.sim`:
/// the chart titles name the drive and its options, never that file of the machine.
#[test]
fn chart_titles_name_the_simulated_drive_without_its_state_file() {
    let dir = Path::new(env!("CARGO_MANIFEST_DIR")).join("results/examples/sweep-qd-sim/01-qd1");
    let run = ssdfade::results::load_run(&dir).unwrap();
    assert!(
        run.info.target.path.contains(",state="),
        "the example keeps its state path"
    );
    for title in [
        ssdfade::plot::fade_chart(&run).title,
        ssdfade::plot::latency_chart(&run).title,
    ] {
        assert!(
            !title.contains("state=") && !title.contains("drive.sim"),
            "{title}"
        );
        assert!(title.contains("sim:vertex2-60g,aged=0s,scale=8"), "{title}");
    }
}

/// A run that judged steady state has SNIA's criteria table: the window, range and slope
/// excursion beside their limits with pass/fail, and TGBW — the figures run.json records.
#[test]
fn a_steady_state_report_has_snias_criteria_table_with_the_recorded_figures() {
    let tmp = tempfile::tempdir().unwrap();
    let src = Path::new(env!("CARGO_MANIFEST_DIR")).join("results/examples/wsat-sim/02-wsat");
    let dir = tmp.path().join("wsat");
    std::fs::create_dir(&dir).unwrap();
    for f in ["run.json", "samples.jsonl", "latency.json"] {
        std::fs::copy(src.join(f), dir.join(f)).unwrap();
    }
    let info: serde_json::Value =
        serde_json::from_str(&std::fs::read_to_string(dir.join("run.json")).unwrap()).unwrap();
    let w = &info["steady_state"]["window"];
    run_ok(ssdfade(tmp.path()).arg("report").arg(&dir));
    let md = std::fs::read_to_string(dir.join("report.md")).unwrap();
    let range = row(&md, "Range (max − min) ÷ average");
    assert_eq!(
        range[1..],
        [
            format!("{:.1} %", w["range_pct"].as_f64().unwrap()),
            "≤ 20 %".into(),
            "pass".into()
        ]
    );
    let slope = row(&md, "Slope excursion ÷ average");
    assert_eq!(
        slope[1],
        format!("{:.1} %", w["slope_pct"].as_f64().unwrap())
    );
    assert_eq!(slope[3], "pass");
    let tgbw = row(&md, "Total host data written (TGBW)");
    let fills = info["steady_state"]["drive_fills"].as_f64().unwrap();
    let expected = match info["steady_state"]["flash_fills"].as_f64() {
        Some(flash) => format!("= {fills:.2} drive fills ({flash:.2} of the flash)"),
        None => format!("= {fills:.2} drive fills"),
    };
    assert!(tgbw[1].ends_with(&expected), "{tgbw:?}");
}

/// SNIA's steady-state page of a run: the chart (`fade-steady.png`) in the report with the
/// window's rounds, average, range and slope the run recorded, and the test header (model,
/// firmware, serial, capacity, date, tool) from run.json.
/// A soak recorded before today's rule for where SNIA rounds start (after the span is written
/// once and the flash filled once) counted its rounds from its first interval: its report still
/// draws the convergence chart of the window it recorded.
#[test]
fn a_steady_state_recorded_under_the_earlier_round_rule_keeps_its_convergence_chart() {
    let tmp = tempfile::tempdir().unwrap();
    let src = Path::new(env!("CARGO_MANIFEST_DIR")).join("results/examples/vertex2-sim/04-soak");
    let dir = tmp.path().join("soak");
    std::fs::create_dir(&dir).unwrap();
    for f in ["run.json", "samples.jsonl", "latency.json"] {
        std::fs::copy(src.join(f), dir.join(f)).unwrap();
    }
    run_ok(ssdfade(tmp.path()).arg("report").arg(&dir));
    let md = std::fs::read_to_string(dir.join("report.md")).unwrap();
    assert!(
        md.contains("(fade-steady.png)"),
        "no steady-state chart in\n{md}"
    );
    assert_eq!(png_size(&dir.join("fade-steady.png")), (1600, 900));
}

#[test]
fn a_steady_state_report_has_the_convergence_chart_and_the_test_header() {
    let tmp = tempfile::tempdir().unwrap();
    let src = Path::new(env!("CARGO_MANIFEST_DIR")).join("results/examples/wsat-sim/02-wsat");
    let dir = tmp.path().join("wsat");
    std::fs::create_dir(&dir).unwrap();
    for f in ["run.json", "samples.jsonl", "latency.json"] {
        std::fs::copy(src.join(f), dir.join(f)).unwrap();
    }
    let info: serde_json::Value =
        serde_json::from_str(&std::fs::read_to_string(dir.join("run.json")).unwrap()).unwrap();
    let s = &info["steady_state"];
    let w = &s["window"];
    run_ok(ssdfade(tmp.path()).arg("report").arg(&dir));
    assert_eq!(png_size(&dir.join("fade-steady.png")), (1600, 900));
    let md = std::fs::read_to_string(dir.join("report.md")).unwrap();
    let caption = md
        .lines()
        .find(|l| l.contains("(fade-steady.png)"))
        .unwrap_or_else(|| panic!("no steady-state chart in\n{md}"));
    // Rounds of the run's time: the window's last round ends where steady state was reached.
    let round_s = (w["end_s"].as_f64().unwrap() - w["start_s"].as_f64().unwrap()) / 5.0;
    let last = (w["end_s"].as_f64().unwrap() / round_s).round() as u64;
    for figure in [
        format!("steady at round {last}"),
        format!("window rounds {}–{last}", last - 4),
        format!("average {:.0} IOPS", s["iops"].as_f64().unwrap()),
        format!(
            "range {:.1} % (limit 20 %)",
            w["range_pct"].as_f64().unwrap()
        ),
        format!(
            "slope excursion {:.1} % (limit 10 %)",
            w["slope_pct"].as_f64().unwrap()
        ),
    ] {
        assert!(caption.contains(&figure), "'{figure}' not in {caption}");
    }
    let drive = &info["drive_before"];
    assert_eq!(row(&md, "Model")[1], drive["model"].as_str().unwrap());
    assert_eq!(row(&md, "Firmware")[1], drive["firmware"].as_str().unwrap());
    assert_eq!(row(&md, "Serial")[1], drive["serial"].as_str().unwrap());
    let bytes = drive["size_bytes"].as_u64().unwrap();
    assert_eq!(
        row(&md, "Capacity")[1],
        format!("{:.1} GB ({bytes} B)", bytes as f64 / 1e9)
    );
    // One unit for the drive's size: the device table says what the header says.
    assert_eq!(row(&md, "Size")[1], row(&md, "Capacity")[1]);
    assert_eq!(
        row(&md, "Test date (UTC)")[1],
        info["started_utc"].as_str().unwrap()
    );
    assert_eq!(
        row(&md, "Tool")[1],
        format!(
            "ssdfade {}{}",
            info["version"].as_str().unwrap(),
            info["build"]
                .as_str()
                .map_or_else(String::new, |b| format!(" (build {b})"))
        )
    );
    let html = std::fs::read_to_string(dir.join("report.html")).unwrap();
    assert!(
        html.contains("measurement window"),
        "no steady chart inline"
    );
}

/// The HIR report has SNIA's wait-state table, each figure the experiment record's: the
/// bursts' IOPS (mean, slowest–fastest), their ratio to the steady state of preconditioning, the return to baseline.
#[test]
fn an_hir_report_has_the_wait_state_table_of_the_record() {
    let tmp = tempfile::tempdir().unwrap();
    let dir = tmp.path().join("hir");
    copy_tree(
        &Path::new(env!("CARGO_MANIFEST_DIR")).join("results/examples/hir-sim"),
        &dir,
    );
    run_ok(ssdfade(tmp.path()).arg("report").arg(&dir));
    let md = std::fs::read_to_string(dir.join("report.md")).unwrap();
    let record: serde_json::Value =
        serde_json::from_str(&std::fs::read_to_string(dir.join("experiment.json")).unwrap())
            .unwrap();
    let phase = |name: &str| {
        record["phases"]
            .as_array()
            .unwrap()
            .iter()
            .find(|p| p["name"] == name)
            .unwrap_or_else(|| panic!("no phase {name}"))
            .clone()
    };
    let steady = phase("precondition")["headline"]["steady_state"]["iops"]
        .as_f64()
        .unwrap();
    assert!(md.contains(&format!(
        "steady state of preconditioning, {steady:.0} IOPS"
    )));
    for idle in [5, 10, 15, 25, 50] {
        let burst = phase(&format!("ws{idle}-burst1"))["headline"]["iops"]
            .as_f64()
            .unwrap();
        let baseline = phase(&format!("ws{idle}-baseline"))["headline"]["iops"]
            .as_f64()
            .unwrap();
        assert_eq!(
            row(&md, &format!("{idle} s")),
            [
                format!("{idle} s"),
                "1".into(),
                format!("{burst:.0}"),
                format!("{burst:.0}–{burst:.0}"),
                ssdfade::units::format_ratio(burst / steady),
                format!("{baseline:.0}"),
            ]
        );
    }
}

/// The WSAT report has the rounds table, each round's IOPS and TGBW its sample's.
#[test]
fn a_wsat_report_has_the_rounds_table_of_its_samples() {
    let tmp = tempfile::tempdir().unwrap();
    let dir = tmp.path().join("wsat");
    copy_tree(
        &Path::new(env!("CARGO_MANIFEST_DIR")).join("results/examples/wsat-sim"),
        &dir,
    );
    run_ok(ssdfade(tmp.path()).arg("report").arg(&dir));
    let md = std::fs::read_to_string(dir.join("report.md")).unwrap();
    let samples = samples_json(&dir.join("02-wsat"));
    let first = &samples[0];
    let cells = row(
        &md[md.find("## Rounds (SNIA WSAT)").expect("no rounds table")..],
        "1 ",
    );
    assert_eq!(cells[2], format!("{:.0}", first["iops"].as_f64().unwrap()));
    assert_eq!(
        cells[3],
        format!(
            "{:.1}",
            first["bytes_written_total"].as_f64().unwrap() / 1e9
        )
    );
}

/// A copy of the example `name` (results/examples), reported; its report.md.
fn reported_example(tmp: &Path, name: &str) -> (PathBuf, String) {
    let dir = tmp.join(name);
    copy_tree(
        &Path::new(env!("CARGO_MANIFEST_DIR"))
            .join("results/examples")
            .join(name),
        &dir,
    );
    run_ok(ssdfade(tmp).arg("report").arg(&dir));
    let md = std::fs::read_to_string(dir.join("report.md")).unwrap();
    (dir, md)
}

fn read_json(path: &Path) -> serde_json::Value {
    serde_json::from_str(&std::fs::read_to_string(path).unwrap()).unwrap()
}

/// The CDM report opens with CrystalDiskMark's window: one row per test ("SEQ1M Q8T1"), Read
/// and Write MB/s of the points' run.json; the preparation write is a line of its own, not a
/// test, in the summary, the results and the phase table; the timeline's subtitle describes
/// the whole preset, not its first phase.
#[test]
fn a_cdm_report_opens_with_crystaldiskmarks_read_write_table() {
    let tmp = tempfile::tempdir().unwrap();
    let (dir, md) = reported_example(tmp.path(), "cdm-nvme-sim");
    let summary = &md[md.find("## Summary").expect("no summary")..md.find("## Results").unwrap()];
    let mb = |phase: &str| {
        let run = read_json(&dir.join(phase).join("run.json"));
        format!("{:.2}", run["summary"]["mb_per_s"].as_f64().unwrap())
    };
    for (key, test) in [
        ("SEQ1M Q8T1", "seq1m-q8t1"),
        ("SEQ1M Q1T1", "seq1m-q1t1"),
        ("RND4K Q32T1", "rnd4k-q32t1"),
        ("RND4K Q1T1", "rnd4k-q1t1"),
    ] {
        let index = |dir_name: &str| {
            std::fs::read_dir(&dir)
                .unwrap()
                .map(|e| e.unwrap().file_name().to_string_lossy().into_owned())
                .find(|n| n.ends_with(dir_name))
                .unwrap()
        };
        let (read, write) = (
            index(&format!("-{test}-read")),
            index(&format!("-{test}-write")),
        );
        assert_eq!(row(summary, key), [key.to_string(), mb(&read), mb(&write)]);
    }
    assert!(
        summary.contains("Preparation (not a test): the first"),
        "{summary}"
    );
    assert!(!summary.contains("| prepare"), "{summary}");
    assert_eq!(
        row(&md, "prepare (preparation")[0],
        "prepare (preparation, not a test)"
    );
    let phases = &md[md.find("## Phases").expect("no phase table")..];
    assert_eq!(row(phases, "prepare ")[1], "preparation");
    let html = std::fs::read_to_string(dir.join("report.html")).unwrap();
    assert!(
        html.contains("8 tests of the cdm preset"),
        "timeline subtitle"
    );
    assert!(
        !html.contains("prepare phase:"),
        "timeline subtitle of the first phase"
    );
}

/// The sweep report opens with its peak (IOPS, the QD and transfer size, latency there) and,
/// as the sweep reads, has a table of read and write latency per point equal to each
/// point's run.json summary.
#[test]
fn a_sweep_report_has_its_peak_and_the_read_and_write_latency_of_every_point() {
    let tmp = tempfile::tempdir().unwrap();
    let (dir, md) = reported_example(tmp.path(), "sweep-qd-sim");
    let table = read_json(&dir.join("sweep.json"));
    let points = table["points"].as_array().unwrap();
    let top = points.iter().fold(&points[0], |b, p| {
        if p["iops"].as_f64() > b["iops"].as_f64() {
            p
        } else {
            b
        }
    });
    assert_eq!(
        row(&md, "Peak IOPS")[1],
        format!(
            "{:.0} at QD{}, 8.0 KiB transfers",
            top["iops"].as_f64().unwrap(),
            top["qd"]
        )
    );
    assert_eq!(
        row(&md, "p99 latency at the peak")[1],
        format_latency_us(top["p99_ms"].as_f64().unwrap() * 1e3)
    );
    let section = &md[md
        .find("## Read and write latency per point")
        .expect("no table")..];
    for p in points {
        let run = read_json(&dir.join(p["run_dir"].as_str().unwrap()).join("run.json"));
        let s = &run["summary"];
        // In ms, three significant digits (the number rule of `units`).
        let ms = |dir: &str, k: &str| format_sig(s[dir][k].as_f64().unwrap() / 1000.0, 3);
        let name = p["name"].as_str().unwrap();
        let mut expected = vec![name.to_string()];
        for d in ["read_lat_us", "write_lat_us"] {
            for k in ["mean", "p99", "p999", "max"] {
                expected.push(ms(d, k));
            }
        }
        assert_eq!(row(section, &format!("{name} ")), expected);
    }
}

/// The WSAT report opens with its card: fresh IOPS (round 1's sample), the steady IOPS and
/// where it settled as run.json's steady state records them.
#[test]
fn a_wsat_report_opens_with_fresh_and_steady_iops_and_where_it_settled() {
    let tmp = tempfile::tempdir().unwrap();
    let (dir, md) = reported_example(tmp.path(), "wsat-sim");
    let first = &samples_json(&dir.join("02-wsat"))[0];
    assert_eq!(
        row(&md, "Fresh IOPS (round 1)")[1],
        format!("{:.0}", first["iops"].as_f64().unwrap())
    );
    let steady = &read_json(&dir.join("02-wsat/run.json"))["steady_state"];
    let iops = steady["iops"].as_f64().unwrap();
    assert_eq!(
        row(&md, "Steady IOPS (SNIA window average)")[1],
        format!("{iops:.0}")
    );
    let settled = &row(&md, "Settled at")[1];
    assert!(
        settled.contains(&format!(
            "TGBW {:.1} GB = {:.2} drive fills",
            steady["bytes_written"].as_f64().unwrap() / 1e9,
            steady["drive_fills"].as_f64().unwrap()
        )),
        "{settled}"
    );
    assert_eq!(
        row(&md, "Steady ÷ fresh")[1],
        format!("{:.0} %", 100.0 * iops / first["iops"].as_f64().unwrap())
    );
}

/// `measure --preset NAME` of a small simulated drive in `tmp`, one second per point, reported;
/// its directory and the Summary section of its report.md.
fn reported_preset(tmp: &Path, preset: &str) -> (PathBuf, String) {
    let dir = tmp.join(preset);
    run_ok(
        ssdfade(tmp)
            .args(["measure", "sim:vertex2-60g,scale=64", "--preset", preset])
            .args(["--duration", "1s", "--seed", "910", "--out"])
            .arg(&dir),
    );
    run_ok(ssdfade(tmp).arg("report").arg(&dir));
    let md = std::fs::read_to_string(dir.join("report.md")).unwrap();
    let summary =
        md[md.find("## Summary").expect("no summary")..md.find("## Results").unwrap()].to_string();
    (dir, summary)
}

/// The run.json of every point of the preset in `dir` (its preparation write left out), in the
/// order they ran.
fn preset_points(dir: &Path) -> Vec<serde_json::Value> {
    let mut names: Vec<String> = std::fs::read_dir(dir)
        .unwrap()
        .map(|e| e.unwrap().file_name().to_string_lossy().into_owned())
        .filter(|n| dir.join(n).join("run.json").exists() && !n.ends_with("-prepare"))
        .collect();
    names.sort();
    names
        .iter()
        .map(|n| read_json(&dir.join(n).join("run.json")))
        .collect()
}

/// The Markdown table rows of `section` whose first cell is `first`.
fn rows_of(section: &str, first: &str) -> Vec<Vec<String>> {
    section
        .lines()
        .filter(|l| l.starts_with('|'))
        .map(|l| {
            l.trim_matches('|')
                .split('|')
                .map(|c| c.trim().to_string())
                .collect::<Vec<_>>()
        })
        .filter(|cells| cells[0] == first)
        .collect()
}

/// tiobench's report table has the seed's columns (rate, CPU %, average and maximum latency,
/// % of I/Os over 2 s and over 10 s, CPU efficiency), one row per test and thread count, and
/// every cell is the point's run.json.
#[test]
fn a_tiobench_report_has_the_seeds_columns_with_each_points_figures() {
    let tmp = tempfile::tempdir().unwrap();
    let (dir, summary) = reported_preset(tmp.path(), "tiobench");
    assert_eq!(
        row(&summary, "tiobench"),
        [
            "tiobench",
            "Threads",
            "Rate MB/s",
            "CPU %",
            "Avg lat ms",
            "Max lat ms",
            "Lat% > 2 s",
            "Lat% > 10 s",
            "CPU eff"
        ]
    );
    let points = preset_points(&dir);
    assert_eq!(points.len(), 16, "four tests at 1, 2, 4 and 8 threads");
    for run in &points {
        let (w, s) = (&run["workload"], &run["summary"]);
        let test = match (w["read_pct"].as_u64(), w["random_pct"].as_u64()) {
            (Some(100), Some(0)) => "Sequential Reads",
            (Some(100), Some(100)) => "Random Reads",
            (Some(0), Some(0)) => "Sequential Writes",
            _ => "Random Writes",
        };
        let f = |k: &str| s[k].as_f64().unwrap();
        let cpu = 100.0 * f("cpu_seconds") / f("seconds");
        let eff = if cpu > 0.0 {
            format!("{:.0}", f("mb_per_s") / (cpu / 100.0))
        } else {
            "-".into()
        };
        let expected = vec![
            test.to_string(),
            w["qd"].to_string(),
            format!("{:.2}", f("mb_per_s")),
            format!("{cpu:.2}"),
            format!("{:.3}", s["lat_us"]["mean"].as_f64().unwrap() / 1000.0),
            format!("{:.3}", s["lat_us"]["max"].as_f64().unwrap() / 1000.0),
            format!("{:.5}", f("pct_over_2s")),
            format!("{:.5}", f("pct_over_10s")),
            eff,
        ];
        let rows = rows_of(&summary, test);
        assert!(rows.contains(&expected), "{expected:?} not in {rows:?}");
    }
}

/// Iometer's report table has one row per access specification ("4.0 KiB random read"), with
/// Iometer's columns, every cell the point's run.json.
#[test]
fn an_iometer_report_has_one_row_per_access_specification() {
    let tmp = tempfile::tempdir().unwrap();
    let (dir, summary) = reported_preset(tmp.path(), "iometer-allinone");
    let points = preset_points(&dir);
    assert_eq!(
        points.len(),
        48,
        "12 sizes × read/write × sequential/random"
    );
    let ms = |l: &serde_json::Value| {
        l["mean"]
            .as_f64()
            .map_or("-".to_string(), |us| format!("{:.4}", us / 1000.0))
    };
    for run in &points {
        let (w, s) = (&run["workload"], &run["summary"]);
        let spec = format!(
            "{} {} {}",
            ssdfade::units::format_bytes(w["bs"].as_u64().unwrap()),
            if w["random_pct"].as_u64() == Some(100) {
                "random"
            } else {
                "sequential"
            },
            if w["read_pct"].as_u64() == Some(100) {
                "read"
            } else {
                "write"
            }
        );
        let f = |k: &str| s[k].as_f64().unwrap();
        assert_eq!(
            rows_of(&summary, &spec),
            [vec![
                spec.clone(),
                format!("{:.1}", f("iops")),
                format!("{:.2}", f("read_mb_per_s")),
                format!("{:.2}", f("write_mb_per_s")),
                ms(&s["lat_us"]),
                ms(&s["read_lat_us"]),
                ms(&s["write_lat_us"]),
            ]],
            "the one row of {spec}"
        );
    }
}

/// An op-sweep's timeline is subtitled with its spans, each soaked after a purge, not with
/// the first span's size and limit as if they were the experiment's.
#[test]
fn an_op_sweeps_timeline_names_its_spans_not_the_first_ones_size() {
    let tmp = tempfile::tempdir().unwrap();
    let dir = tmp.path().join("op");
    run_ok(
        ssdfade(tmp.path())
            .args(["experiment", "op-sweep", "sim:vertex2-60g,scale=64"])
            .args(["--span", "100%,80%", "--out"])
            .arg(&dir),
    );
    run_ok(ssdfade(tmp.path()).arg("report").arg(&dir));
    let html = std::fs::read_to_string(dir.join("report.html")).unwrap();
    assert!(
        html.contains("2 spans (span100pct, span80pct), each after a purge"),
        "timeline subtitle"
    );
    assert!(
        html.contains("span of the point"),
        "span of the first point"
    );
    assert!(
        !html.contains("soak) · span100pct: "),
        "the first span's workload as the experiment's"
    );
    // The report opens with its summary: the advice, then the chart it is read from.
    let md = std::fs::read_to_string(dir.join("report.md")).unwrap();
    let summary = md
        .find("## Summary: how much to over-provision")
        .expect("a summary");
    let advice = md.find("Advice: ").unwrap();
    let chart = md.find("](op-sweep.png)").unwrap();
    let results = md.find("## Results").unwrap();
    assert!(
        summary < advice && advice < chart && chart < results,
        "{md}"
    );
    assert_eq!(md.matches("](op-sweep.png)").count(), 1);
    assert!(md.contains("## Reproduce") && md.contains("Test date (UTC)"));
}

/// A run's report and chart titles give the drive's capacity in GB, as its header does
/// ("60.0 GB"), not in GiB beside it.
#[test]
fn a_runs_title_gives_the_capacity_in_gb_as_the_header() {
    let tmp = tempfile::tempdir().unwrap();
    let dir = tmp.path().join("r");
    run_ok(
        ssdfade(tmp.path())
            .args([
                "measure",
                "sim:vertex2-60g,scale=64",
                "--duration",
                "2s",
                "--out",
            ])
            .arg(&dir),
    );
    run_ok(ssdfade(tmp.path()).arg("report").arg(&dir));
    let size = read_json(&dir.join("run.json"))["target"]["identity"]["size_bytes"]
        .as_f64()
        .unwrap();
    let gb = format!("{:.1} GB", size / 1e9);
    let md = std::fs::read_to_string(dir.join("report.md")).unwrap();
    let title = md.lines().next().unwrap();
    assert!(title.ends_with(&format!("· {gb}")), "{title}");
    let html = std::fs::read_to_string(dir.join("report.html")).unwrap();
    assert!(!html.contains("GiB</text>"), "a chart title in GiB");
}

/// A steady state that did not hold (run.json's `steady_state.last_window` more than 10 % from
/// the steady window) is said with the same figures, rounded the same, in the report's
/// sentence, in the steady chart's caption in report.md and report.html, and in the chart
/// itself (the SVG's subtitle): the last window's rounds, its average and its drift from
/// run.json.
#[test]
fn a_steady_state_that_did_not_hold_has_the_same_figures_in_json_report_and_chart() {
    let tmp = tempfile::tempdir().unwrap();
    let src = Path::new(env!("CARGO_MANIFEST_DIR")).join("results/examples/wsat-sim/02-wsat");
    let dir = tmp.path().join("wsat");
    std::fs::create_dir(&dir).unwrap();
    for f in ["run.json", "samples.jsonl", "latency.json"] {
        std::fs::copy(src.join(f), dir.join(f)).unwrap();
    }
    // The run's last five full rounds (one a sample) as its last window.
    let samples = samples_json(&dir);
    let full: Vec<&serde_json::Value> = samples
        .iter()
        .filter(|s| s["t_end_s"].as_f64().unwrap() - s["t_start_s"].as_f64().unwrap() >= 59.9)
        .collect();
    let last = &full[full.len() - 5..];
    let avg = last
        .iter()
        .map(|s| s["iops"].as_f64().unwrap())
        .sum::<f64>()
        / 5.0;
    let (start, end) = (
        last[0]["t_start_s"].as_f64().unwrap(),
        last[4]["t_end_s"].as_f64().unwrap(),
    );
    let path = dir.join("run.json");
    let mut info = read_json(&path);
    info["steady_state"]["last_window"] = serde_json::json!({
        "start_s": start, "end_s": end, "avg": avg, "range_pct": 3.0, "slope_pct": 2.0
    });
    std::fs::write(&path, serde_json::to_string(&info).unwrap()).unwrap();
    let steady = info["steady_state"]["iops"].as_f64().unwrap();
    let drift = 100.0 * (avg - steady) / steady;
    assert!(drift < -10.0, "{drift}");

    run_ok(ssdfade(tmp.path()).arg("report").arg(&dir));
    let md = std::fs::read_to_string(dir.join("report.md")).unwrap();
    let said =
        format!("it did not hold: the run's last window averaged {avg:.0} IOPS ({drift:+.0} %)");
    assert!(md.contains(&said), "'{said}' not in\n{md}");
    let (first, last) = (
        (start / 60.0).round() as u64 + 1,
        (end / 60.0).round() as u64,
    );
    let drawn = format!(
        "did not hold: the last window (rounds {first}–{last}) averaged {avg:.0} IOPS ({drift:+.0} %)"
    );
    let caption = md
        .lines()
        .find(|l| l.contains("(fade-steady.png)"))
        .unwrap_or_else(|| panic!("no steady-state chart in\n{md}"));
    assert!(caption.contains(&drawn), "'{drawn}' not in {caption}");
    let html = std::fs::read_to_string(dir.join("report.html")).unwrap();
    // In the figure's caption, the inline SVG's title and the subtitle it draws.
    assert_eq!(html.matches(&drawn).count(), 3, "'{drawn}' in report.html");
}

/// `--reference` is kept in experiment.json and shown by every presenter of the states: the
/// experiment's `--json` and terminal table, report.md's table (measured ÷ reference), and the
/// states chart; `report --reference` replaces it for that report only; a wrong set is one line,
/// exit 2, nothing written.
#[test]
fn a_reference_set_is_kept_and_shown_beside_the_measured_states() {
    let tmp = tempfile::tempdir().unwrap();
    let exp = tmp.path().join("exp");
    let json = common::json_ok(
        ssdfade(tmp.path())
            .args(["experiment", "vertex2", "sim:vertex2-60g,scale=16"])
            .args([
                "--measure-duration",
                "5s",
                "--soak-duration",
                "2m",
                "--seed",
                "4",
            ])
            .args(["--reference", "4300,6000,910,4000", "--json", "--out"])
            .arg(&exp),
    );
    let record: serde_json::Value =
        serde_json::from_str(&std::fs::read_to_string(exp.join("experiment.json")).unwrap())
            .unwrap();
    assert_eq!(
        record["reference"],
        serde_json::json!({"in_service": 4300.0, "fresh": 6000.0, "faded": 910.0, "recovered": 4000.0})
    );
    let faded = &json["states"]["faded"];
    let iops = faded["iops"].as_f64().unwrap();
    assert_eq!(faded["reference_iops"], 910.0);
    assert!((faded["of_reference"].as_f64().unwrap() - iops / 910.0).abs() < 1e-9);

    // A later report shows the kept set without the flag.
    let printed = run_ok(ssdfade(tmp.path()).arg("report").arg(&exp));
    let markdown = std::fs::read_to_string(exp.join("report.md")).unwrap();
    let cells = row(&markdown[markdown.find("| State ").unwrap()..], "faded");
    assert_eq!(
        cells,
        [
            "faded".to_string(),
            format!("{iops:.0}"),
            "910".into(),
            ssdfade::units::format_ratio(iops / 910.0)
        ]
    );
    assert!(shows_the_report(&printed, &markdown), "{printed}");
    let html = std::fs::read_to_string(exp.join("report.html")).unwrap();
    assert!(html.contains(">\nreference\n</text>"), "the chart's legend");

    // Given to report, a set replaces the kept one for that report, and the record keeps its own.
    let kept = std::fs::read_to_string(exp.join("experiment.json")).unwrap();
    run_ok(
        ssdfade(tmp.path())
            .arg("report")
            .arg(&exp)
            .args(["--reference", "1,2,3,4"]),
    );
    let markdown = std::fs::read_to_string(exp.join("report.md")).unwrap();
    let cells = row(&markdown[markdown.find("| State ").unwrap()..], "faded");
    assert_eq!(cells[2], "3");
    assert_eq!(
        std::fs::read_to_string(exp.join("experiment.json")).unwrap(),
        kept
    );

    // Wrong sets: one line, exit 2, nothing written.
    std::fs::remove_file(exp.join("report.md")).unwrap();
    std::fs::remove_file(exp.join("states.png")).unwrap();
    for (bad, says) in [
        ("4300,6000,910", "3 values"),
        ("4300,six,910,4000", "not a number"),
        ("4300,6000,0,4000", "not above zero"),
        ("4300,6000,-910,4000", "not above zero"),
    ] {
        for command in ["report", "plot"] {
            let out = ssdfade(tmp.path())
                .arg(command)
                .arg(&exp)
                .arg(format!("--reference={bad}"))
                .output()
                .unwrap();
            let err = String::from_utf8_lossy(&out.stderr);
            assert_eq!(out.status.code(), Some(2), "{command} {bad}: {err}");
            assert_eq!(err.trim().lines().count(), 1, "{err}");
            assert!(err.contains(says), "{err}");
        }
    }
    let run = sim_run(tmp.path(), "run", 4);
    let out = ssdfade(tmp.path())
        .arg("report")
        .arg(&run)
        .args(["--reference", "1,2,3,4"])
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(2));
    assert!(String::from_utf8_lossy(&out.stderr).contains("not a vertex2 experiment"));
    assert!(!run.join("report.md").exists());
    assert!(!exp.join("report.md").exists() && !exp.join("states.png").exists());
}
