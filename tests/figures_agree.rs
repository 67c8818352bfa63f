//! Every headline figure the same everywhere: for each kind of run (made on a simulated drive,
//! short), the figure read from its record (run.json, slog.json, sweep.json) is rendered the
//! same way, rounding and unit included, on the terminal, in report.md and in the text of the
//! charts (the inline SVGs of report.html). A figure computed twice, or rounded by a presenter
//! of its own, fails here.

mod common;

use std::path::Path;

use common::{run_ok, ssdfade};
use ssdfade::units::{format_duration, format_gb, format_latency_us, format_sig};

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
    assert!(info["prediction"].is_object(), "no prediction in {info}");
    soak_figures_agree(&v, &info);
    let p = &info["prediction"];
    if let Some(b) = p["steady_at_bytes"].as_u64() {
        let at = format_duration(std::time::Duration::from_secs_f64(f(&p["steady_at_s"])));
        // A pass the model puts before the prediction was made is no forecast.
        let pass = if f(&p["steady_at_s"]) < f(&p["made_at_s"]) {
            format!("model's SNIA pass {at}: before it was made")
        } else {
            format!("should pass SNIA at {at} ({} written)", format_gb(b))
        };
        v.shows(&pass, "tm");
    }
    let first = p["first_made_at_s"].as_f64().unwrap_or(f(&p["made_at_s"]));
    v.shows(
        &format!(
            "first made at {}",
            format_duration(std::time::Duration::from_secs_f64(first))
        ),
        "tm",
    );
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
    // Two counts, each saying what it counts: every round, and the rounds steady state was
    // judged on (run.json's steady_state.rounds: those after the drive was written through).
    let judged = st["rounds"].as_u64().unwrap() as usize;
    assert!(judged < n, "{judged} of {n}");
    v.shows(
        &format!(
            "{n} rounds of 1m00s; steady state judged on rounds {}–{n} ({judged}:",
            n - judged + 1
        ),
        "tm",
    );
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
            ssdfade::units::format_ratio(mean / steady),
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
        let terminal = v.terminal.replace(" s ", "_s ");
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
        .find(|l| l.contains("Fade (first → last "))
        .expect("no fade line");
    let pct = fade
        .split(", ")
        .nth(1)
        .and_then(|w| w.split(" %").next())
        .unwrap_or_else(|| panic!("no percent in {fade}"))
        .to_string();
    let note = "Paced and the pace met, so no fade and not in the % of fresh panel (the level is the pace): paced at 2000 IOPS (--rate-iops 2000)";
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
        .find(|l| l.contains("Soak (first → last "))
        .expect("no soak line");
    let figure = line.split_once(')').unwrap().1.trim();
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

// ---- The kinds cross-checked second: an interrupted soak, a day at 1 s, a rate sweep, skewed
// soaks, op-sweep, a group, a verify soak, a twin, and their --json. ----

/// The views of `dir` whose command printed `terminal`: `report dir` writes the rest.
fn views_after(tmp: &Path, dir: &Path, terminal: String) -> Views {
    run_ok(ssdfade(tmp).arg("report").arg(dir));
    Views {
        terminal,
        markdown: std::fs::read_to_string(dir.join("report.md")).unwrap(),
        charts: svg_text(&std::fs::read_to_string(dir.join("report.html")).unwrap()),
    }
}

/// Asserts every line of the terminal text `text` is at most 80 characters wide (counted in
/// characters, not bytes); a line naming a path under `tmp` is as long as the path makes it.
fn fits_80(text: &str, tmp: &Path) {
    let tmp = tmp.to_string_lossy();
    for line in text.lines() {
        assert!(
            line.contains(tmp.as_ref()) || line.chars().count() <= 80,
            "{} columns: '{line}' in\n{text}",
            line.chars().count()
        );
    }
}

/// The numbers of `line` (digits and decimal points), in order.
fn numbers(line: &str) -> Vec<f64> {
    line.split(|c: char| !c.is_ascii_digit() && c != '.')
        .filter_map(|s| s.trim_matches('.').parse().ok())
        .collect()
}

/// A soak's headline figures in `v` as its run.json (`info`) and its terminal's fade line give
/// them: the fade (levels and words), the whole run's IOPS, MB/s and latencies, and the
/// prediction when it made one (none: none shown).
fn soak_figures_agree(v: &Views, info: &serde_json::Value) {
    let line = v
        .terminal
        .lines()
        .find(|l| l.contains("Fade (first → last "))
        .unwrap_or_else(|| panic!("no fade line in\n{}", v.terminal));
    let n = numbers(line.split_once(')').unwrap().1);
    let (fresh, faded) = (n[0], n[1]);
    v.shows(&format!("{fresh:.0} → {faded:.0} IOPS"), "tm");
    v.shows(&format!("fresh {fresh:.0} IOPS → faded {faded:.0}"), "c");
    let words = fade_words(fresh, faded);
    v.shows(&words, "tm");
    v.shows(
        &format!("({} % of fresh)", words.split(" %").next().unwrap()),
        "c",
    );
    let s = &info["summary"];
    v.shows(&format!("{:.0}", f(&s["iops"])), "tm");
    v.shows(&format!("{:.2} MB/s", f(&s["mb_per_s"])), "tm");
    for k in ["mean", "p99", "p999", "max"] {
        v.shows(&format_latency_us(f(&s["lat_us"][k])), "tm");
    }
    let p = &info["prediction"];
    if p.is_object() {
        let (iops, low, high) = (f(&p["iops"]), f(&p["low"]), f(&p["high"]));
        v.shows(&format!("{iops:.0} IOPS"), "tm");
        v.shows(
            &format!(
                "({low:.0}–{high:.0}: −{:.1} % / +{:.1} %)",
                100.0 * (1.0 - low / iops),
                100.0 * (high / iops - 1.0)
            ),
            "tm",
        );
        v.shows(&format!("({low:.0}–{high:.0})"), "c");
    } else {
        for text in [&v.terminal, &v.markdown] {
            assert!(!text.contains("redicted"), "a prediction in\n{text}");
        }
    }
}

/// `soak --json` (`out`) holds the figures of its run.json and the fade the terminal gives.
fn soak_json_agrees(out: &serde_json::Value, info: &serde_json::Value, fade: (f64, f64)) {
    let s = &info["summary"];
    for k in [
        "iops", "mb_per_s", "bytes", "ops", "seconds", "errors", "lat_us",
    ] {
        assert_eq!(out[k], s[k], "--json's {k}");
    }
    assert_eq!(out["status"], info["status"]);
    assert_eq!(out["steady_state"], info["steady_state"]);
    assert_eq!(out["prediction"], info["prediction"]);
    let (start, end) = (f(&out["fade"]["start_iops"]), f(&out["fade"]["end_iops"]));
    assert_eq!(
        (format!("{start:.0}"), format!("{end:.0}")),
        (format!("{:.0}", fade.0), format!("{:.0}", fade.1))
    );
    let pct = format!("{:.0}", f(&out["fade"]["end_pct_of_start"]));
    assert!(fade_words(start, end).starts_with(&format!("{pct} % of fresh")));
}

/// The fresh and faded levels of the terminal's fade line.
fn terminal_fade(terminal: &str) -> (f64, f64) {
    let line = terminal
        .lines()
        .find(|l| l.contains("Fade (first → last "))
        .expect("no fade line");
    let n = numbers(line.split_once(')').unwrap().1);
    (n[0], n[1])
}

/// A soak stopped by Ctrl-C: its record says interrupted, the terminal, the report, the charts
/// and `runs` (table and --json) give the same figures for what it holds, and its tables fit
/// 80 columns.
#[test]
fn an_interrupted_soaks_figures_agree_everywhere() {
    let tmp = tempfile::tempdir().unwrap();
    let dir = tmp.path().join("soak");
    let child = ssdfade(tmp.path())
        .args(["soak", "sim:vertex2-60g,scale=16", "--interval", "1s"])
        .args(["--seed", "5", "--out"])
        .arg(&dir)
        .stdout(std::process::Stdio::piped())
        .stderr(std::process::Stdio::piped())
        .spawn()
        .unwrap();
    // Past the first window (a simulated drive runs far faster than its clock): 200 samples.
    let samples = dir.join("samples.jsonl");
    while std::fs::read_to_string(&samples).map_or(0, |s| s.lines().count()) < 200 {
        std::thread::sleep(std::time::Duration::from_millis(20));
    }
    nix::sys::signal::kill(
        nix::unistd::Pid::from_raw(child.id() as i32),
        nix::sys::signal::Signal::SIGINT,
    )
    .unwrap();
    let out = child.wait_with_output().unwrap();
    assert_eq!(out.status.code(), Some(130));
    let info = json(&dir.join("run.json"));
    assert_eq!(info["status"], "interrupted");
    let v = views_after(tmp.path(), &dir, String::from_utf8(out.stdout).unwrap());
    soak_figures_agree(&v, &info);
    v.shows("status interrupted", "m");
    assert!(
        v.markdown
            .lines()
            .any(|l| l.starts_with("| Status ") && l.contains("interrupted")),
        "{}",
        v.markdown
    );
    fits_80(&v.terminal, tmp.path());

    let s = &info["summary"];
    let ran = format_duration(std::time::Duration::from_secs_f64(f(&s["seconds"])));
    let table = run_ok(ssdfade(tmp.path()).args(["runs", "."]));
    let row = table
        .lines()
        .find(|l| l.starts_with("interrupted"))
        .unwrap_or_else(|| panic!("no interrupted row in\n{table}"));
    assert!(
        row.contains(&format!(" {ran} ")) && row.contains(&format!(" {:.0} ", f(&s["iops"]))),
        "'{row}': {ran}, {}",
        s["iops"]
    );
    assert!(
        v.markdown
            .lines()
            .any(|l| l.starts_with("| whole run ") && l.contains(&format!("| {ran} |"))),
        "{ran} not the whole run's time in\n{}",
        v.markdown
    );
    fits_80(&table, tmp.path());
    let listed: serde_json::Value =
        serde_json::from_str(&run_ok(ssdfade(tmp.path()).args(["runs", ".", "--json"]))).unwrap();
    assert_eq!(listed[0]["status"], "interrupted");
    assert_eq!(
        format!("{:.0}", f(&listed[0]["iops"])),
        format!("{:.0}", f(&s["iops"]))
    );
}

/// A 24 h soak sampled every second (86 400 intervals): fade, whole run and prediction the
/// same on the terminal, in the report and on the charts; its tables fit 80 columns.
#[test]
fn a_day_long_soak_at_one_second_agrees_everywhere() {
    let tmp = tempfile::tempdir().unwrap();
    let dir = tmp.path().join("day");
    let v = Views::of(
        tmp.path(),
        &dir,
        &[
            "soak",
            "sim:vertex2-60g,scale=16",
            "--duration",
            "24h",
            "--interval",
            "1s",
            "--seed",
            "5",
        ],
    );
    let info = json(&dir.join("run.json"));
    assert!(info["prediction"].is_object(), "no prediction in {info}");
    soak_figures_agree(&v, &info);
    fits_80(&v.terminal, tmp.path());
}

/// Skewed soaks (zipf, hot/cold): the distribution is named on the terminal, in the report and
/// on the charts, and the figures agree there and in `--json` (the same run again, seeded).
#[test]
fn skewed_soaks_name_their_distribution_and_agree_everywhere() {
    let tmp = tempfile::tempdir().unwrap();
    for (name, dist) in [("zipf", "zipf:1.1"), ("hotcold", "hotcold:80/20")] {
        let dir = tmp.path().join(name);
        let args = [
            "soak",
            "sim:vertex2-60g,scale=16",
            "--duration",
            "1h",
            "--interval",
            "10s",
            "--seed",
            "5",
            "--distribution",
            dist,
        ];
        let v = Views::of(tmp.path(), &dir, &args);
        v.shows(dist, "tm");
        v.shows(&format!("random ({dist}) writes"), "c");
        let info = json(&dir.join("run.json"));
        soak_figures_agree(&v, &info);
        fits_80(&v.terminal, tmp.path());

        let again = tmp.path().join(format!("{name}-json"));
        let out: serde_json::Value = serde_json::from_str(&run_ok(
            ssdfade(tmp.path())
                .args(args)
                .arg("--json")
                .arg("--out")
                .arg(&again),
        ))
        .unwrap();
        let info_again = json(&again.join("run.json"));
        for k in ["ops", "bytes", "lat_us"] {
            assert_eq!(
                info_again["summary"][k], info["summary"][k],
                "not the same run"
            );
        }
        soak_json_agrees(&out, &info_again, terminal_fade(&v.terminal));
    }
}

/// A rate sweep (`sweep --rate`): each point's IOPS, MB/s and latencies the same in the
/// terminal's table (ms, three decimals), in the report's results table (the one latency
/// rule), in sweep.json and in `--json`; the summary card's flat-out and fastest paced point
/// as their run.json give them.
#[test]
fn a_rate_sweeps_points_agree_everywhere() {
    let tmp = tempfile::tempdir().unwrap();
    let dir = tmp.path().join("rates");
    let args = [
        "sweep",
        "sim:vertex2-60g,aged=0s,scale=8",
        "--rate",
        "25%,50%,100%",
        "--bs",
        "8k",
        "--point-duration",
        "5s",
        "--seed",
        "910",
    ];
    let v = Views::of(tmp.path(), &dir, &args);
    fits_80(&v.terminal, tmp.path());
    let table = json(&dir.join("sweep.json"));
    let points = table["points"].as_array().unwrap();
    assert_eq!(points.len(), 4);
    for p in points {
        let name = p["name"].as_str().unwrap();
        let run = json(&dir.join(p["run_dir"].as_str().unwrap()).join("run.json"));
        let s = &run["summary"];
        assert_eq!(
            format!("{:.0}", f(&p["iops"])),
            format!("{:.0}", f(&s["iops"]))
        );
        let row = v
            .terminal
            .lines()
            .find(|l| l.trim_start().starts_with(&format!("{name} ")) && l.contains('.'))
            .unwrap_or_else(|| panic!("no row {name} in\n{}", v.terminal));
        let cells: Vec<&str> = row.split_whitespace().collect();
        for want in [
            format!("{:.0}", f(&s["iops"])),
            format!("{:.2}", f(&s["mb_per_s"])),
            format_sig(f(&s["lat_us"]["mean"]) / 1000.0, 3),
            format_sig(f(&s["lat_us"]["p99"]) / 1000.0, 3),
            format_sig(f(&s["lat_us"]["p999"]) / 1000.0, 3),
        ] {
            assert!(cells.contains(&want.as_str()), "{want} not in '{row}'");
        }
        let md = v
            .markdown
            .lines()
            .find(|l| l.starts_with(&format!("| {name} ")) && l.contains(" | 5.0s | "))
            .unwrap_or_else(|| panic!("no results row {name} in\n{}", v.markdown));
        for want in [
            format!(" {:.0} ", f(&s["iops"])),
            format!(" {:.2} ", f(&s["mb_per_s"])),
            format_latency_us(f(&s["lat_us"]["mean"])),
            format_latency_us(f(&s["lat_us"]["p99"])),
            format_latency_us(f(&s["lat_us"]["max"])),
        ] {
            assert!(md.contains(&want), "{want} not in '{md}'");
        }
        if name == "max" {
            v.shows(
                &format!(
                    "{:.0} IOPS, mean {}, p99 {}",
                    f(&s["iops"]),
                    format_latency_us(f(&s["lat_us"]["mean"])),
                    format_latency_us(f(&s["lat_us"]["p99"]))
                ),
                "m",
            );
        }
        if name == "rate100pct" {
            v.shows(
                &format!(
                    "{:.0} IOPS of {:.0} asked",
                    f(&s["iops"]),
                    f(&p["rate_iops"])
                ),
                "m",
            );
        }
    }
    let again = tmp.path().join("rates-json");
    let out: serde_json::Value = serde_json::from_str(&run_ok(
        ssdfade(tmp.path())
            .args(args)
            .arg("--json")
            .arg("--out")
            .arg(&again),
    ))
    .unwrap();
    let again_table = json(&again.join("sweep.json"));
    assert_eq!(again_table["points"], table["points"], "not the same sweep");
    assert_eq!(out["points"], table["points"]);
}

/// op-sweep: each span's steady IOPS, latencies and drive writes, and the advice, the same on
/// the terminal, in the report and in `--json`; the tables fit 80 columns.
#[test]
fn an_op_sweeps_table_and_advice_agree_everywhere() {
    let tmp = tempfile::tempdir().unwrap();
    let dir = tmp.path().join("ops");
    let args = [
        "experiment",
        "op-sweep",
        "sim:vertex2-60g,scale=64",
        "--span",
        "100%,80%",
        "--seed",
        "5",
    ];
    let v = Views::of(tmp.path(), &dir, &args);
    fits_80(&v.terminal, tmp.path());
    let again = tmp.path().join("ops-json");
    let out: serde_json::Value = serde_json::from_str(&run_ok(
        ssdfade(tmp.path())
            .args(args)
            .arg("--json")
            .arg("--out")
            .arg(&again),
    ))
    .unwrap();
    let points = out["points"].as_array().unwrap();
    assert_eq!(points.len(), 2);
    for p in points {
        // The row shows the span as given: phase `span80pct` is the row "80 %".
        let name = p["name"].as_str().unwrap().trim_start_matches("span");
        let name = name
            .strip_suffix("pct")
            .map_or(name.to_string(), |p| format!("{p} %"));
        let figures = [
            format!("{:.1} %", f(&p["unpartitioned_pct"])),
            format!("{:.1} %", f(&p["op_pct"])),
            format!("{:.0}", f(&p["iops"])),
            format_sig(f(&p["avg_ms"]), 3),
            format_sig(f(&p["p99_ms"]), 3),
            format_sig(f(&p["p999_ms"]), 3),
            format!("{:.2}", f(&p["drive_writes"])),
        ];
        let term = v
            .terminal
            .lines()
            .find(|l| l.trim_start().starts_with(&format!("{name} ")))
            .unwrap_or_else(|| panic!("no row {name} in\n{}", v.terminal));
        let md = v
            .markdown
            .lines()
            .find(|l| l.starts_with(&format!("| {name} ")))
            .unwrap_or_else(|| panic!("no row {name} in\n{}", v.markdown));
        for want in &figures {
            assert!(term.contains(want.as_str()), "{want} not in '{term}'");
            assert!(md.contains(want.as_str()), "{want} not in '{md}'");
        }
    }
    let advice = out["advice"]["line"].as_str().unwrap();
    let unwrapped = |t: &str| t.split_whitespace().collect::<Vec<_>>().join(" ");
    assert!(unwrapped(&v.terminal).contains(advice), "{advice}");
    v.shows(&format!("Advice: {advice}"), "m");
}

/// A group of runs (three simulated drives at once): each member's row of the fleet table
/// renders its figures as the member's own report does, `runs` (table and --json) lists its
/// status and IOPS, and the group's report (compare.md) its IOPS; the tables fit 80 columns.
#[test]
fn a_groups_fleet_table_agrees_with_its_members_reports_and_runs() {
    let tmp = tempfile::tempdir().unwrap();
    let dir = tmp.path().join("fleet");
    let terminal = run_ok(
        ssdfade(tmp.path())
            .args(["soak", "sim:vertex2-60g,scale=16", "sim:dc-ssd-400g"])
            .args(["sim:nvme-tlc-1t,scale=64", "--duration", "20m"])
            .args(["--interval", "10s", "--seed", "5", "--out"])
            .arg(&dir),
    );
    fits_80(&terminal, tmp.path());
    let runs = run_ok(ssdfade(tmp.path()).arg("runs").arg(&dir));
    fits_80(&runs, tmp.path());
    let listed: serde_json::Value = serde_json::from_str(&run_ok(
        ssdfade(tmp.path()).arg("runs").arg(&dir).arg("--json"),
    ))
    .unwrap();
    let compare = std::fs::read_to_string(dir.join("compare.md")).unwrap();
    let group = json(&dir.join("group.json"));
    for m in group["members"].as_array().unwrap() {
        let member = dir.join(m["run_dir"].as_str().unwrap());
        let v = views_after(tmp.path(), &member, terminal.clone());
        let info = json(&member.join("run.json"));
        let s = &info["summary"];
        let target = m["target"].as_str().unwrap();
        let shown: String = target.chars().take(7).collect();
        let row = terminal
            .lines()
            .find(|l| l.trim_start().starts_with(&shown))
            .unwrap_or_else(|| panic!("no row of {target} in\n{terminal}"));
        let iops = format!("{:.0}", f(&s["iops"]));
        for want in [
            iops.clone(),
            format!("{:.2}", f(&s["mb_per_s"])),
            format_latency_us(f(&s["lat_us"]["mean"])),
            format_latency_us(f(&s["lat_us"]["p99"])),
            format_gb(s["bytes"].as_u64().unwrap()),
        ] {
            assert!(row.contains(&want), "{want} not in '{row}'");
            v.shows(&want, "m");
        }
        assert!(row.contains(info["status"].as_str().unwrap()), "{row}");
        let listed_row = runs
            .lines()
            .find(|l| l.ends_with(m["run_dir"].as_str().unwrap()))
            .unwrap_or_else(|| panic!("{} not in\n{runs}", m["run_dir"]));
        assert!(listed_row.contains(&format!(" {iops} ")), "{listed_row}");
        let entry = listed
            .as_array()
            .unwrap()
            .iter()
            // The group itself is listed too (under its first member's target), with no IOPS.
            .find(|e| e["target"] == target && !e["iops"].is_null())
            .unwrap();
        assert_eq!(format!("{:.0}", f(&entry["iops"])), iops);
        assert_eq!(entry["status"], info["status"]);
        // (compare.md's latencies keep one unit per row: not the member's rendering.)
        assert!(
            compare.contains(&format!(" {iops} ")),
            "{iops} not in\n{compare}"
        );
    }
}

/// A verify soak (`--verify-end` on a drive that damages every 5000th write) and
/// `verify --from` afterwards: the same counts and findings on the terminal of both, in the
/// report, in `verify --json` and in run.json; exit 1 both times; the lines fit 80 columns.
#[test]
fn a_verify_soaks_findings_agree_everywhere() {
    let tmp = tempfile::tempdir().unwrap();
    let dir = tmp.path().join("verified");
    let state = tmp.path().join("drive.sim");
    let target = format!(
        "sim:vertex2-60g,scale=64,fault=corrupt:5000,state={}",
        state.display()
    );
    let soak = ssdfade(tmp.path())
        .args(["soak", &target, "--duration", "10m", "--interval", "10s"])
        .args(["--seed", "5", "--verify-end", "--out"])
        .arg(&dir)
        .output()
        .unwrap();
    assert_eq!(soak.status.code(), Some(1));
    let v = views_after(tmp.path(), &dir, String::from_utf8(soak.stdout).unwrap());
    let record = json(&dir.join("run.json"))["verify"].clone();
    let bad = record["counts"]["corrupt"].as_u64().unwrap();
    assert!(bad > 0, "no corrupt block found: {record}");
    let summary = format!(
        "checked at the end: {bad} BAD blocks (0 lost writes, 0 misdirected, {bad} corrupt, 0 unreadable)"
    );
    let unwrapped = |t: &str| t.split_whitespace().collect::<Vec<_>>().join(" ");
    for text in [&v.terminal, &v.markdown] {
        assert!(
            unwrapped(text).contains(&summary),
            "'{summary}' not in\n{text}"
        );
    }
    let offset = record["findings"][0]["offset"].as_u64().unwrap();
    v.shows(&format!("offset {offset} (0x{offset:x})"), "tm");
    fits_80(&v.terminal, tmp.path());

    let again = ssdfade(tmp.path())
        .args(["verify", "--from"])
        .arg(&dir)
        .arg(&target)
        .output()
        .unwrap();
    assert_eq!(again.status.code(), Some(1));
    let text = String::from_utf8(again.stdout).unwrap();
    assert!(unwrapped(&text).contains(&summary), "{text}");
    assert!(
        text.contains(&format!("offset {offset} (0x{offset:x})")),
        "{text}"
    );
    fits_80(&text, tmp.path());
    let out = ssdfade(tmp.path())
        .args(["verify", "--json", "--from"])
        .arg(&dir)
        .arg(&target)
        .output()
        .unwrap();
    let out: serde_json::Value = serde_json::from_slice(&out.stdout).unwrap();
    assert_eq!(out["counts"], record["counts"]);
    assert_eq!(out["findings"], record["findings"]);
}

/// A twin: `sim fit` prints the figures twin.toml records (measured and twin), and a soak on
/// the twin reproduces the twin's mean IOPS per period as the fit printed them, while its own
/// views agree as any soak's do.
#[test]
fn a_twins_fit_and_its_soak_agree() {
    let tmp = tempfile::tempdir().unwrap();
    let soak = |dir: &Path, target: &str| {
        Views::of(
            tmp.path(),
            dir,
            &[
                "soak",
                target,
                "--duration",
                "1h",
                "--interval",
                "10s",
                "--seed",
                "5",
            ],
        )
    };
    let measured = tmp.path().join("measured");
    soak(&measured, "sim:vertex2-60g,scale=16");
    let twin = tmp.path().join("twin.toml");
    let fit = run_ok(
        ssdfade(tmp.path())
            .args(["sim", "fit"])
            .arg(&measured)
            .arg("-o")
            .arg(&twin),
    );
    fits_80(&fit, tmp.path());
    let toml: toml::Table = toml::from_str(&std::fs::read_to_string(&twin).unwrap()).unwrap();
    let num = |v: &toml::Value| v.as_float().or(v.as_integer().map(|i| i as f64)).unwrap();
    for who in ["measured", "twin"] {
        let c = &toml["fit"][who];
        let row = fit
            .lines()
            .find(|l| l.trim_start().starts_with(who))
            .unwrap_or_else(|| panic!("no {who} row in\n{fit}"));
        for want in [
            format!("{:.0}", num(&c["fresh_iops"])),
            format!("{:.0}", num(&c["steady_iops"])),
            format!("{:.2}", num(&c["steady_p99_ms"])),
        ] {
            assert!(row.contains(&want), "{want} not in '{row}'");
        }
        if let Some(b) = c.get("cliff_bytes") {
            let cliff = ssdfade::units::format_bytes(num(b) as u64);
            assert!(row.contains(&cliff), "{cliff} not in '{row}'");
        }
    }
    let pairs: Vec<String> = toml["fit"]["measured"]["periods"]
        .as_array()
        .unwrap()
        .iter()
        .zip(toml["fit"]["twin"]["periods"].as_array().unwrap())
        .map(|(m, t)| format!("{:.0} → {:.0}", num(m), num(t)))
        .collect();
    let unwrapped = fit.split_whitespace().collect::<Vec<_>>().join(" ");
    assert!(
        unwrapped.contains(&pairs.join(", ")),
        "{pairs:?} not in\n{fit}"
    );

    let on_twin = tmp.path().join("on-twin");
    let v = soak(&on_twin, &format!("sim:@{}", twin.display()));
    soak_figures_agree(&v, &json(&on_twin.join("run.json")));
    let period_s = num(&toml["fit"]["twin"]["period_s"]);
    let samples = std::fs::read_to_string(on_twin.join("samples.jsonl")).unwrap();
    let samples: Vec<serde_json::Value> = samples
        .lines()
        .map(|l| serde_json::from_str(l).unwrap())
        .collect();
    for (i, want) in toml["fit"]["twin"]["periods"]
        .as_array()
        .unwrap()
        .iter()
        .enumerate()
    {
        let (from, to) = (i as f64 * period_s, (i + 1) as f64 * period_s);
        let part: Vec<&serde_json::Value> = samples
            .iter()
            .filter(|s| f(&s["t_start_s"]) >= from - 1e-9 && f(&s["t_end_s"]) <= to + 1e-9)
            .collect();
        let ops: f64 = part.iter().map(|s| f(&s["ops"])).sum();
        let secs: f64 = part
            .iter()
            .map(|s| f(&s["t_end_s"]) - f(&s["t_start_s"]))
            .sum();
        assert_eq!(
            format!("{:.0}", ops / secs),
            format!("{:.0}", num(want)),
            "period {i}"
        );
    }
}
