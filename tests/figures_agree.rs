//! Every headline figure the same everywhere: for each kind of run (made on a simulated drive,
//! short), the figure read from its record (run.json, slog.json, sweep.json) is rendered the
//! same way, rounding and unit included, on the terminal, in report.md and in the text of the
//! charts (the inline SVGs of report.html). A figure computed twice, or rounded by a presenter
//! of its own, fails here.

mod common;

use std::path::Path;

use common::{run_ok, ssdfade};
use ssdfade::units::{format_duration, format_gb, format_latency_us};

/// What a user sees of one directory: the terminal text the command printed, report.md, and
/// every text element of the charts (report.html's inline SVGs), one per line.
struct Views {
    terminal: String,
    markdown: String,
    charts: String,
}

impl Views {
    /// Runs `args` (whose output goes to `dir`), then `report dir`.
    fn of(tmp: &Path, dir: &Path, args: &[&str]) -> Views {
        let terminal = run_ok(ssdfade(tmp).args(args).arg("--out").arg(dir));
        run_ok(ssdfade(tmp).arg("report").arg(dir));
        let markdown = std::fs::read_to_string(dir.join("report.md")).unwrap();
        let html = std::fs::read_to_string(dir.join("report.html")).unwrap();
        Views {
            terminal,
            markdown,
            charts: svg_text(&html),
        }
    }

    /// Asserts `figure` is in every view named in `where_` ("t" terminal, "m" report.md,
    /// "c" charts).
    fn shows(&self, figure: &str, where_: &str) {
        for (key, name, text) in [
            ('t', "the terminal", &self.terminal),
            ('m', "report.md", &self.markdown),
            ('c', "the charts", &self.charts),
        ] {
            if where_.contains(key) {
                assert!(
                    text.contains(figure),
                    "'{figure}' is not in {name}:\n{text}"
                );
            }
        }
    }
}

/// The text of every `<text>` element of every SVG in `html`, one per line, entities decoded
/// (an element split into `<tspan>`s is joined).
fn svg_text(html: &str) -> String {
    let mut out = String::new();
    let mut rest = html;
    while let Some(start) = rest.find("<text") {
        rest = &rest[start..];
        let Some(open_end) = rest.find('>') else {
            break;
        };
        let Some(close) = rest.find("</text>") else {
            break;
        };
        let inner = &rest[open_end + 1..close];
        let mut plain = String::new();
        let mut in_tag = false;
        for c in inner.chars() {
            match c {
                '<' => in_tag = true,
                '>' => in_tag = false,
                c if !in_tag => plain.push(c),
                _ => {}
            }
        }
        let plain = plain
            .replace("&amp;", "&")
            .replace("&lt;", "<")
            .replace("&gt;", ">")
            .replace("&quot;", "\"")
            .replace("&#39;", "'");
        out.push_str(plain.trim());
        out.push('\n');
        rest = &rest[close + 7..];
    }
    out
}

fn json(path: &Path) -> serde_json::Value {
    serde_json::from_str(&std::fs::read_to_string(path).unwrap()).unwrap()
}

fn f(v: &serde_json::Value) -> f64 {
    v.as_f64().unwrap_or_else(|| panic!("not a number: {v}"))
}

/// "34 % of fresh (loss 66 %)" as `analysis::FadeRatio::words` says it.
fn fade_words(fresh: f64, faded: f64) -> String {
    ssdfade::analysis::FadeRatio::new(fresh, faded)
        .unwrap()
        .words()
}

/// A soak: its fade (first and last window medians, the percent), its whole-run IOPS, MB/s
/// and percentiles, and its prediction, the same on the terminal, in the report and on the
/// fade chart; host data in GB everywhere.
#[test]
fn a_soaks_fade_whole_run_and_prediction_agree_everywhere() {
    let tmp = tempfile::tempdir().unwrap();
    let dir = tmp.path().join("soak");
    let v = Views::of(
        tmp.path(),
        &dir,
        &[
            "soak",
            "sim:vertex2-60g",
            "--duration",
            "1h",
            "--interval",
            "10s",
            "--seed",
            "5",
        ],
    );
    let info = json(&dir.join("run.json"));
    // The fade: from the terminal's line, which --json gives as `fade`.
    let fade = {
        let line = v
            .terminal
            .lines()
            .find(|l| l.contains("Fade (first → last window)"))
            .expect("no fade line");
        let nums: Vec<f64> = line
            .split(|c: char| !c.is_ascii_digit())
            .filter(|s| !s.is_empty())
            .map(|s| s.parse().unwrap())
            .collect();
        (nums[0], nums[1])
    };
    let levels = format!("{:.0} → {:.0} IOPS", fade.0, fade.1);
    v.shows(&levels, "tm");
    v.shows(
        &format!("fresh {:.0} IOPS → faded {:.0}", fade.0, fade.1),
        "c",
    );
    let words = fade_words(fade.0, fade.1);
    v.shows(&words, "tm");
    let pct = words.split(" %").next().unwrap();
    v.shows(&format!("({pct} % of fresh)"), "c");

    let s = &info["summary"];
    v.shows(&format!("{:.0}", f(&s["iops"])), "tm");
    v.shows(&format!("{:.2} MB/s", f(&s["mb_per_s"])), "tm");
    for k in ["mean", "p99", "p999", "max"] {
        v.shows(&format_latency_us(f(&s["lat_us"][k])), "tm");
    }

    let p = &info["prediction"];
    assert!(p.is_object(), "no prediction in {info}");
    let (iops, low, high) = (f(&p["iops"]), f(&p["low"]), f(&p["high"]));
    v.shows(&format!("{iops:.0} IOPS"), "tm");
    // The interval's ends need not lie at the same distance: each is given.
    v.shows(
        &format!(
            "({low:.0}–{high:.0}: −{:.1} % / +{:.1} %)",
            100.0 * (1.0 - low / iops),
            100.0 * (high / iops - 1.0)
        ),
        "tm",
    );
    v.shows(&format!("({low:.0}–{high:.0})"), "c");
    if let Some(b) = p["steady_at_bytes"].as_u64() {
        let pass = format!(
            "should pass SNIA at {} ({} written)",
            format_duration(std::time::Duration::from_secs_f64(f(&p["steady_at_s"]))),
            format_gb(b)
        );
        v.shows(&pass, "tm");
    }
    // No run of this length counts a round: said, not "0 rounds".
    assert_eq!(info["steady_state"]["rounds"], 0);
    for text in [&v.terminal, &v.markdown] {
        assert!(!text.contains("0 rounds"), "{text}");
    }
}

/// WSAT: the steady window's average, range and slope, where it was reached and that it did
/// not hold (the last window and its drift), the same on the terminal, in the report and on
/// the steady-state chart, as run.json records them.
#[test]
fn a_wsats_steady_state_agrees_everywhere() {
    let tmp = tempfile::tempdir().unwrap();
    let dir = tmp.path().join("wsat");
    let v = Views::of(
        tmp.path(),
        &dir,
        &[
            "experiment",
            "wsat",
            "sim:vertex2-60g,scale=16",
            "--seed",
            "910",
        ],
    );
    let info = json(&dir.join("02-wsat/run.json"));
    let st = &info["steady_state"];
    let w = &st["window"];
    let avg = format!("{:.0}", f(&w["avg"]));
    v.shows(&format!("{avg} IOPS"), "tm");
    v.shows(&format!("average {avg} IOPS"), "c");
    for k in ["range_pct", "slope_pct"] {
        v.shows(&format!("{:.1} %", f(&w[k])), "tmc");
    }
    v.shows(&format_gb(st["bytes_written"].as_u64().unwrap()), "tm");
    let at = format_duration(std::time::Duration::from_secs_f64(f(&st["at_s"])));
    v.shows(&format!("at {at}"), "tm");
    let last = f(&st["last_window"]["avg"]);
    let drift = 100.0 * (last - f(&st["iops"])) / f(&st["iops"]);
    v.shows(&format!("{last:.0} IOPS ({drift:+.0} %)"), "tmc");
    // Whole rounds only: the byte budget ends the phase mid-round, and that partial round is
    // in no window and no count. The rounds table's last round ends the last window, on the
    // chart ("rounds 201–205") as in run.json.
    let n: usize = v
        .markdown
        .lines()
        .find_map(|l| {
            l.split(" rounds of ")
                .next()
                .filter(|_| l.contains(" rounds of "))
        })
        .and_then(|n| n.trim().parse().ok())
        .expect("no 'N rounds of' line in the report");
    assert!(
        v.markdown.contains("A partial last round of"),
        "the example no longer ends mid-round:\n{}",
        v.markdown
    );
    v.shows(&format!("Last round ({n})"), "m");
    v.shows(&format!("(rounds {}–{n})", n - 4), "c");
    let round_s = f(&st["window"]["end_s"]) - f(&st["window"]["start_s"]);
    assert_eq!(f(&st["last_window"]["end_s"]), n as f64 * round_s / 5.0);
}

/// HIR: the summary card is the wait-state table (per wait state the bursts, their mean,
/// slowest and fastest IOPS, the mean against the steady state of preconditioning, the return
/// to baseline), row for row the terminal's, each figure the phases' own; no burst is a row of
/// the card (they stay in the results table and on hir.png).
#[test]
fn an_hirs_wait_state_table_is_its_summary_card_and_its_terminal_table() {
    let tmp = tempfile::tempdir().unwrap();
    let dir = tmp.path().join("hir");
    let v = Views::of(
        tmp.path(),
        &dir,
        &[
            "experiment",
            "hir",
            "sim:vertex2-60g,scale=16",
            "--bursts",
            "2",
            "--seed",
            "910",
        ],
    );
    let exp = json(&dir.join("experiment.json"));
    let phases = exp["phases"].as_array().unwrap();
    let iops = |name: &str| {
        let p = phases.iter().find(|p| p["name"] == name).unwrap();
        f(&p["headline"]["iops"])
    };
    let pre = phases.iter().find(|p| p["name"] == "precondition").unwrap();
    let steady = f(&pre["headline"]["steady_state"]["iops"]);
    let card = v.markdown.split("| Test header").next().unwrap();
    assert!(card.contains("## Summary"), "{card}");
    for gap in [5, 10, 15, 25, 50] {
        let bursts = [
            iops(&format!("ws{gap}-burst1")),
            iops(&format!("ws{gap}-burst2")),
        ];
        let mean = (bursts[0] + bursts[1]) / 2.0;
        let cells = [
            format!("{gap} s"),
            "2".to_string(),
            format!("{mean:.0}"),
            format!(
                "{:.0}–{:.0}",
                bursts[0].min(bursts[1]),
                bursts[0].max(bursts[1])
            ),
            format!("{:.2} ×", mean / steady),
            format!("{:.0}", iops(&format!("ws{gap}-baseline"))),
        ];
        let row = |text: &str, sep: &str| {
            text.lines().any(|l| {
                let c: Vec<&str> = l
                    .split(sep)
                    .map(str::trim)
                    .filter(|c| !c.is_empty())
                    .collect();
                c == cells
            })
        };
        assert!(row(card, "|"), "no card row {cells:?} in\n{card}");
        let terminal = v.terminal.replace(" s ", "_s ").replace(" ×", "_×");
        let cells_t: Vec<String> = cells.iter().map(|c| c.replace(' ', "_")).collect();
        assert!(
            terminal
                .lines()
                .any(|l| l.split_whitespace().collect::<Vec<_>>() == cells_t),
            "no terminal row {cells_t:?} in\n{}",
            v.terminal
        );
        assert!(!card.contains(&format!("ws{gap}-burst")), "{card}");
    }
}

/// compare of a run paced at `--rate-iops` beside one issued flat out (paced runs last, then
/// first): the flat-out run's fade is its own report's, the paced run has none — "— (paced)"
/// in the table, no line in compare.png's "% of fresh" panel, named in the same note on the
/// terminal, in compare.md and under the chart's title.
#[test]
fn compare_gives_a_paced_run_no_fade_in_its_table_chart_or_report() {
    let tmp = tempfile::tempdir().unwrap();
    let soak = |name: &str, extra: &[&str]| {
        let dir = tmp.path().join(name);
        let text = run_ok(
            ssdfade(tmp.path())
                .args(["soak", "sim:vertex2-60g", "--duration", "10m"])
                .args(["--interval", "10s", "--seed", "5"])
                .args(extra)
                .arg("--out")
                .arg(&dir),
        );
        (dir, text)
    };
    let (free, free_text) = soak("free", &[]);
    let (paced, _) = soak("paced", &["--rate-iops", "2000"]);
    let fade = free_text
        .lines()
        .find(|l| l.contains("Fade (first → last window)"))
        .expect("no fade line");
    let pct = fade
        .split(", ")
        .nth(1)
        .and_then(|w| w.split(" %").next())
        .unwrap_or_else(|| panic!("no percent in {fade}"))
        .to_string();
    let note = "Paced, so no fade and not in the % of fresh panel (the level is the pace): paced at 2000 IOPS (--rate-iops 2000)";
    for (order, first_paced) in [([&free, &paced], false), ([&paced, &free], true)] {
        let out = tmp.path().join(format!("cmp-{first_paced}"));
        let terminal = run_ok(
            ssdfade(tmp.path())
                .arg("compare")
                .args(order)
                .arg("--out")
                .arg(&out),
        );
        let html = std::fs::read_to_string(out.join("compare.html")).unwrap();
        let v = Views {
            terminal: terminal.split_whitespace().collect::<Vec<_>>().join(" "),
            markdown: std::fs::read_to_string(out.join("compare.md")).unwrap(),
            charts: svg_text(&html),
        };
        v.shows(note, "tmc");
        let row: Vec<String> = v
            .markdown
            .lines()
            .find(|l| l.starts_with("| Fade"))
            .expect("no fade row")
            .split('|')
            .map(|c| c.trim().to_string())
            .collect();
        let (free_cell, paced_cell) = if first_paced {
            (&row[3], &row[2])
        } else {
            (&row[2], &row[3])
        };
        assert_eq!(free_cell, &format!("{pct} %"), "{row:?}");
        assert_eq!(paced_cell, "— (paced)", "{row:?}");
        // Each run's moving average is a 3 px polyline in its colour: the flat-out run has one
        // per panel, the paced run one (IOPS) and none as % of fresh.
        let mut lines: std::collections::BTreeMap<&str, usize> = Default::default();
        for line in html.split("<polyline").skip(1) {
            let tag = line.split("/>").next().unwrap();
            if tag.contains("stroke-width=\"3\"") {
                let colour = tag
                    .split("stroke=\"")
                    .nth(1)
                    .unwrap()
                    .split('"')
                    .next()
                    .unwrap();
                *lines.entry(colour).or_default() += 1;
            }
        }
        let mut counts: Vec<usize> = lines.into_values().collect();
        counts.sort();
        assert_eq!(counts, [1, 2], "moving-average lines per run's colour");
    }
}

/// A QD sweep: the peak's IOPS, mean and p99 latency in the summary card as in the results
/// table of the same report (one unit rule), and as sweep.json holds them.
#[test]
fn a_sweeps_peak_agrees_with_its_results_row() {
    let tmp = tempfile::tempdir().unwrap();
    let dir = tmp.path().join("sweep");
    let v = Views::of(
        tmp.path(),
        &dir,
        &[
            "sweep",
            "sim:vertex2-60g,aged=0s,scale=8",
            "--qd",
            "1,4,16",
            "--bs",
            "8k",
            "--point-duration",
            "5s",
            "--seed",
            "910",
        ],
    );
    let table = json(&dir.join("sweep.json"));
    let points = table["points"].as_array().unwrap();
    let top = points.iter().fold(&points[0], |b, p| {
        if f(&p["iops"]) > f(&b["iops"]) {
            p
        } else {
            b
        }
    });
    let run = json(&dir.join(top["run_dir"].as_str().unwrap()).join("run.json"));
    let s = &run["summary"];
    let iops = format!("{:.0}", f(&s["iops"]));
    assert_eq!(iops, format!("{:.0}", f(&top["iops"])));
    v.shows(&format!("{iops} at QD{}", top["qd"]), "m");
    v.shows(&iops, "t");
    let card = |head: &str| {
        let line = v
            .markdown
            .lines()
            .find(|l| l.contains(head))
            .unwrap_or_else(|| panic!("no '{head}' in\n{}", v.markdown));
        line.split('|').nth(2).unwrap().trim().to_string()
    };
    let name = top["name"].as_str().unwrap();
    let row: Vec<String> = v
        .markdown
        .lines()
        .find(|l| l.starts_with(&format!("| {name} ")) && l.contains(" µs"))
        .unwrap_or_else(|| panic!("no results row of {name}"))
        .split('|')
        .map(|c| c.trim().to_string())
        .collect();
    let mean = format_latency_us(f(&s["lat_us"]["mean"]));
    let p99 = format_latency_us(f(&s["lat_us"]["p99"]));
    assert_eq!(card("Mean latency at the peak"), mean);
    assert_eq!(card("p99 latency at the peak"), p99);
    assert!(row.contains(&mean) && row.contains(&p99), "{row:?}");
}

/// SLOG: the verdict's latency and fade, and the sustained phase's mean, p99 and maximum, the
/// same on the terminal, in the report and on slog.png; a fade of 100 % loses 0 %.
#[test]
fn a_slog_verdicts_figures_agree_everywhere() {
    let tmp = tempfile::tempdir().unwrap();
    let dir = tmp.path().join("slog");
    let v = Views::of(
        tmp.path(),
        &dir,
        &[
            "slog",
            "sim:dc-ssd-400g",
            "--max-size",
            "8k",
            "--sustain",
            "3s",
            "--seed",
            "3",
        ],
    );
    let record = json(&dir.join("slog.json"));
    let sustained = &record["device"]["measured"]["sustained"]["lat_us"];
    for k in ["mean", "p99", "max"] {
        let figure = format_latency_us(f(&sustained[k]));
        v.shows(&figure, "tmc");
    }
    let fade_line = v
        .terminal
        .lines()
        .find(|l| l.contains("fade under sustained writes"))
        .expect("no fade verdict");
    let figure = fade_line
        .split("writes: ")
        .nth(1)
        .unwrap()
        .split(" = ")
        .next()
        .unwrap();
    v.shows(figure, "tm");
    for text in [&v.terminal, &v.markdown, &v.charts] {
        assert!(!text.contains("-0 %"), "{text}");
    }
}

/// Vertex 2 (a 1 h soak): every state's IOPS and share of fresh, the fade and the recovery,
/// and the soak's own fade, the same on the terminal, in the report and on the states chart.
#[test]
fn a_vertex2_experiments_states_and_fades_agree_everywhere() {
    let tmp = tempfile::tempdir().unwrap();
    let dir = tmp.path().join("v2");
    let v = Views::of(
        tmp.path(),
        &dir,
        &[
            "experiment",
            "vertex2",
            "sim:vertex2-60g",
            "--soak-duration",
            "1h",
            "--seed",
            "5",
        ],
    );
    let phase = |name: &str| {
        let exp = json(&dir.join("experiment.json"));
        let p = exp["phases"]
            .as_array()
            .unwrap()
            .iter()
            .find(|p| p["name"] == name)
            .unwrap_or_else(|| panic!("no phase {name}"))
            .clone();
        json(&dir.join(p["dir"].as_str().unwrap()).join("run.json"))
    };
    let iops = |name: &str| f(&phase(name)["summary"]["iops"]);
    let fresh = iops("fresh");
    for name in ["in-service", "faded", "recovered"] {
        let words = fade_words(fresh, iops(name));
        let pct = words.split(" %").next().unwrap().to_string();
        v.shows(&format!("{:.0} IOPS ({pct} % of fresh)", iops(name)), "m");
        v.shows(&format!("{:.0} IOPS · {pct} % of fresh", iops(name)), "c");
        v.shows(&format!("{:.0}", iops(name)), "t");
    }
    v.shows(&fade_words(fresh, iops("faded")), "tm");
    v.shows(&fade_words(fresh, iops("recovered")), "tm");
    // The soak's own fade: the terminal's line, in the report too.
    let line = v
        .terminal
        .lines()
        .find(|l| l.contains("Soak (first → last window)"))
        .expect("no soak line");
    let figure = line.split("window)").nth(1).unwrap().trim();
    v.shows(figure, "m");
    let done = v
        .terminal
        .lines()
        .next()
        .and_then(|l| l.split('(').nth(1))
        .map(|s| s.trim_end_matches(')').to_string())
        .unwrap();
    v.shows(&done, "m");
}

/// CrystalDiskMark: every test's MB/s, IOPS and mean latency in the report's table as on
/// cdm.png, each the test's run.json.
#[test]
fn a_cdm_tables_figures_are_the_charts_and_the_records() {
    let tmp = tempfile::tempdir().unwrap();
    let dir = tmp.path().join("cdm");
    let v = Views::of(
        tmp.path(),
        &dir,
        &[
            "measure",
            "sim:nvme-tlc-1t,scale=16",
            "--preset",
            "cdm",
            "--duration",
            "2s",
            "--seed",
            "910",
        ],
    );
    let mut tests = 0;
    for entry in std::fs::read_dir(&dir).unwrap() {
        let path = entry.unwrap().path();
        let name = path.file_name().unwrap().to_string_lossy().to_string();
        if !path.is_dir() || name.ends_with("prepare") {
            continue;
        }
        let s = json(&path.join("run.json"))["summary"].clone();
        v.shows(&format!("{:.2}", f(&s["mb_per_s"])), "mc");
        v.shows(
            &format!(
                "{:.0} IOPS · {}",
                f(&s["iops"]),
                format_latency_us(f(&s["lat_us"]["mean"]))
            ),
            "c",
        );
        tests += 1;
    }
    assert_eq!(tests, 8);
}

/// A SLOG run paced at `--zil-rate 500/s`: its level is the rate asked for, so neither the
/// verdict nor the run's part of the report gives it a fade (they said "not measured" and
/// "100 % of fresh … half of the fade after 2.0s" side by side).
#[test]
fn a_paced_slog_run_has_no_fade_anywhere() {
    let tmp = tempfile::tempdir().unwrap();
    let dir = tmp.path().join("slog");
    let v = Views::of(
        tmp.path(),
        &dir,
        &[
            "slog",
            "sim:vertex2-60g",
            "--zil-rate",
            "500/s",
            "--sustain",
            "10s",
            "--seed",
            "3",
        ],
    );
    // (The verdict's threshold, "keeps ≥ 80 % of fresh", is no fade.)
    for text in [&v.terminal, &v.markdown, &v.charts] {
        for fade in [
            "% of fresh (loss",
            "→ faded",
            "Fresh → faded",
            "half of the fade",
        ] {
            assert!(!text.contains(fade), "'{fade}' in\n{text}");
        }
    }
    // The verdict's latencies by the one rule (its 44 ms stall once read "44067.2 µs max").
    let sustained = &json(&dir.join("slog.json"))["device"]["measured"]["sustained"]["lat_us"];
    let max = f(&sustained["max"]);
    assert!(
        max >= 10_000.0,
        "no stall of 10 ms or more to render: {max}"
    );
    let verdict = format!(
        "{} mean, {} p99, {} max",
        format_latency_us(f(&sustained["mean"])),
        format_latency_us(f(&sustained["p99"])),
        format_latency_us(max)
    );
    let unwrapped = |t: &str| t.split_whitespace().collect::<Vec<_>>().join(" ");
    for text in [&v.terminal, &v.markdown] {
        assert!(
            unwrapped(text).contains(&verdict),
            "'{verdict}' not in\n{text}"
        );
    }
    // With the option that paced it: a SLOG run has no --rate-iops.
    assert!(
        v.markdown.contains("paced at 500 IOPS (--zil-rate 500/s)"),
        "{}",
        v.markdown
    );
    for text in [&v.terminal, &v.markdown, &v.charts] {
        assert!(!text.contains("--rate-iops"), "{text}");
    }
}
