//! `compare`: several runs (or experiments, by their soak) side by side — a table of their
//! headline figures with ratios to the first run, and an overlay of their IOPS against elapsed
//! time, absolute and as % of each run's fresh level. Figures are
//! those of [`crate::analysis`] (whole-run figures from run.json's summary, fade from the
//! samples).

use std::path::{Path, PathBuf};

use crate::analysis::compare::{rows, Figure, Headline};
use crate::plot::{Chart, CompareChart, CompareRun, Format};
use crate::results::{load_run, workload_line, Provenance, Run};
use crate::units::{format_duration, format_latency_us, format_ratio};

use super::document::{Block, Document};
use super::write_file;
use crate::units::format_gb;

/// What `compare` wrote.
pub struct Comparison {
    /// The comparison as Markdown (compare.md).
    pub markdown: String,
    /// The comparison for an 80-column terminal.
    pub text: String,
    pub files: Vec<PathBuf>,
}

/// Short names for the runs: the fewest trailing path components that tell them apart (their
/// directory names when those differ), never the whole path unless that is what differs.
fn labels(dirs: &[PathBuf]) -> Vec<String> {
    let parts: Vec<Vec<String>> = dirs
        .iter()
        .map(|d| {
            d.components()
                .filter(|c| matches!(c, std::path::Component::Normal(_)))
                .map(|c| c.as_os_str().to_string_lossy().into_owned())
                .collect()
        })
        .collect();
    let longest = parts.iter().map(Vec::len).max().unwrap_or(1).max(1);
    let tail = |p: &Vec<String>, k: usize| p[p.len().saturating_sub(k)..].join("/");
    for k in 1..=longest {
        let names: Vec<String> = parts.iter().map(|p| tail(p, k)).collect();
        if names
            .iter()
            .enumerate()
            .all(|(i, n)| !names[..i].contains(n))
        {
            return names;
        }
    }
    dirs.iter().map(|d| d.display().to_string()).collect()
}

/// The run `compare` takes from `dir`: the run directory itself, or of an experiment directory
/// its (first) soak phase, else its longest phase.
fn compared_run(dir: &Path) -> anyhow::Result<Run> {
    if !crate::results::is_experiment(dir) {
        return load_run(dir);
    }
    let exp = crate::results::load_experiment(dir)?;
    let runs = || exp.phases.iter().filter_map(|p| Some((p, p.run.as_ref()?)));
    let soak =
        runs().find(|(p, _)| matches!(p.record.phase.kind, crate::results::PhaseKind::Soak(_)));
    let longest = || {
        runs().max_by(|a, b| {
            let len = |r: &Run| r.samples.last().map_or(0.0, |s| s.t_end_s);
            len(a.1).total_cmp(&len(b.1))
        })
    };
    match soak.or_else(longest) {
        Some((_, run)) => Ok(run.clone()),
        None => crate::bad_input!(
            "{} is an experiment with no phase that ran: run it first, or compare its phase directories",
            dir.display()
        ),
    }
}

/// The headline table ([`crate::analysis::compare`]): one row per figure, one column per run,
/// later runs with their ratio to the first.
fn headline_table(labels: &[String], heads: &[Headline]) -> (Vec<String>, Vec<Vec<String>>) {
    let iops = crate::units::format_count;
    // Latency as every presenter writes it (`format_latency_us`): the same figure reads the
    // same here as in the run's own report.
    let show = |figure: Figure, v: f64| match figure {
        Figure::Seconds => format_duration(std::time::Duration::from_secs_f64(v.max(0.0))),
        Figure::Written => format_gb(v as u64),
        Figure::FirstIops | Figure::LastIops | Figure::Iops => iops(v),
        Figure::FadePct => format!("{v:.0} %"),
        Figure::MbPerS => format!("{v:.2}"),
        Figure::AvgLatUs | Figure::P99LatUs => format_latency_us(v),
    };
    let name = |figure: Figure| match figure {
        Figure::Seconds => "Time",
        Figure::Written => "Host data written",
        Figure::FirstIops => "IOPS, first window (median)",
        Figure::LastIops => "IOPS, last window (median)",
        Figure::FadePct => "Fade, last ÷ first, %",
        Figure::Iops => "IOPS, whole run",
        Figure::MbPerS => "MB/s, whole run",
        Figure::AvgLatUs => "Avg latency",
        Figure::P99LatUs => "p99 latency",
    };
    let mut head = vec!["Figure".to_string()];
    head.extend(labels.iter().cloned());
    let body = rows(heads)
        .iter()
        .map(|row| {
            let f = row.figure;
            // A run without the figure: a paced run has no fade (its level is its pace).
            let cell = |v: Option<f64>| v.map_or_else(|| "— (paced)".to_string(), |v| show(f, v));
            let mut cells = vec![name(f).to_string(), cell(row.values[0])];
            cells.extend(
                row.values[1..]
                    .iter()
                    .zip(&row.ratios[1..])
                    .map(|(&v, r)| match r {
                        Some(r) => format!("{} ({})", cell(v), format_ratio(*r)),
                        None => cell(v),
                    }),
            );
            cells
        })
        .collect();
    (head, body)
}

/// The sentence naming the paced runs: those that met their pace have no fade and no line in
/// the relative panel ([`Headline::relative_base`]); those that did not have the drive's
/// figures, and it says so. The same under the chart's title, under the table and in the
/// chart's caption. `None` when no run was paced.
fn paced_note(labels: &[String], heads: &[Headline]) -> Option<String> {
    let paced = |met: bool| -> Vec<String> {
        labels
            .iter()
            .zip(heads)
            .filter_map(|(label, h)| h.pace.as_ref().filter(|p| p.met == met).map(|p| (label, p)))
            .map(|(label, p)| {
                if met {
                    format!("{label} at {}", p.asked)
                } else {
                    format!(
                        "{label} ({} of {})",
                        crate::units::format_count(p.delivered_iops),
                        p.asked
                    )
                }
            })
            .collect()
    };
    let (met, missed) = (paced(true), paced(false));
    let mut parts = Vec::new();
    if !met.is_empty() {
        parts.push(format!(
            "Paced and the pace met, so no fade and not in the % of fresh panel (the level is the pace): {}",
            met.join(", ")
        ));
    }
    if !missed.is_empty() {
        parts.push(format!(
            "Pace not met, so the drive's figures apply: {}",
            missed.join(", ")
        ));
    }
    (!parts.is_empty()).then(|| parts.join(". "))
}

/// The fresh and faded windows' length, "1m00s" when every run's is the same, else each run's
/// ("a 1m00s, b 5s"): a run shorter than four minutes has windows of a quarter of it.
fn windows_text(labels: &[String], heads: &[Headline]) -> String {
    let text = |s: f64| format_duration(std::time::Duration::from_secs_f64(s));
    let windows: Vec<f64> = heads.iter().filter_map(|h| h.window_s).collect();
    match windows.first() {
        Some(&w) if windows.iter().all(|&x| x == w) => text(w),
        _ => labels
            .iter()
            .zip(heads)
            .filter_map(|(label, h)| Some(format!("{label} {}", text(h.window_s?))))
            .collect::<Vec<_>>()
            .join(", "),
    }
}

/// The line under the title: when each run was recorded and when they were compared.
fn recorded_line(labels: &[String], runs: &[Run]) -> String {
    let recorded: Vec<String> = labels
        .iter()
        .zip(runs)
        .map(|(label, run)| format!("{label} {}", run.info.started_utc))
        .collect();
    format!(
        "Recorded (UTC): {} · compared {}",
        recorded.join(", "),
        crate::results::utc_now()
    )
}

/// The summary: how each later run compares with the first in steady speed (its last window)
/// and in fade, in one sentence each.
fn add_summary(doc: &mut Document, labels: &[String], heads: &[Headline]) {
    let (Some(first), Some(base)) = (labels.first(), heads.first()) else {
        return;
    };
    doc.heading("Summary");
    let fade = |h: &Headline| match (h.fade_pct, &h.pace) {
        (Some(f), _) => format!("ends at {f:.0} % of its first window"),
        (None, Some(p)) => format!("{}, no fade", p.words()),
        (None, None) => "no fade".to_string(),
    };
    let mut lines = vec![format!(
        "{first}: {} IOPS in its last window, {} IOPS over the whole run; {}.",
        crate::units::format_count(base.last_iops),
        crate::units::format_count(base.whole.iops),
        fade(base)
    )];
    for (label, h) in labels.iter().zip(heads).skip(1) {
        let ratio = |v: f64, of: f64| {
            if of > 0.0 {
                format!(" ({} vs {first})", format_ratio(v / of))
            } else {
                String::new()
            }
        };
        lines.push(format!(
            "{label}: {} IOPS in its last window{}, {} IOPS over the whole run{}; {}.",
            crate::units::format_count(h.last_iops),
            ratio(h.last_iops, base.last_iops),
            crate::units::format_count(h.whole.iops),
            ratio(h.whole.iops, base.whole.iops),
            fade(h)
        ));
    }
    for line in lines {
        doc.paragraph(line);
    }
}

/// The commands that recorded the runs, each with its seed, and the comparison itself.
fn reproduce_lines(labels: &[String], runs: &[Run]) -> String {
    let mut lines: Vec<String> = runs.iter().map(crate::report::reproduce_command).collect();
    lines.push(format!("ssdfade compare {}", labels.join(" ")));
    lines.join("\n")
}

/// Compares the run directories `dirs` (ratios to the first), writes compare.md, compare.html
/// and compare.png into `out` and returns the Markdown and the files written.
pub fn compare_dirs(dirs: &[PathBuf], out: &Path) -> anyhow::Result<Comparison> {
    let runs: Vec<Run> = dirs
        .iter()
        .map(|d| compared_run(d))
        .collect::<Result<_, _>>()?;
    // The folder is made when missing and the three files land as one set: a failure (a full
    // disk, a signal) leaves the previous comparison or none, and no folder made for it.
    crate::outfile::set_in_directory(out, || write_comparison(dirs, &runs, out))
}

/// Writes compare.md, compare.html and compare.png of `runs`, read from `dirs`, into `out`.
fn write_comparison(dirs: &[PathBuf], runs: &[Run], out: &Path) -> anyhow::Result<Comparison> {
    super::check_files(&[&out.join("compare.md"), &out.join("compare.html")])?;
    crate::outfile::check(&out.join("compare.png"), crate::outfile::Kind::Png)?;
    let labels = labels(dirs);
    let heads: Vec<Headline> = runs.iter().map(Headline::of).collect();

    let note = paced_note(&labels, &heads);
    let mut subtitle = vec![format!("IOPS against elapsed time (each run as long as it ran); below, each run's moving average as % of its fresh level (median of its first {})", windows_text(&labels, &heads))];
    subtitle.extend(note.clone());
    let chart = CompareChart {
        title: "Compare — IOPS over each run".into(),
        subtitle,
        runs: runs
            .iter()
            .zip(&labels)
            .zip(&heads)
            .map(|((run, label), h)| CompareRun {
                label: label.clone(),
                points: crate::analysis::drawn_intervals(&run.samples, run.info.workload.interval)
                    .iter()
                    .map(|s| (s.t_end_s - run.samples[0].t_start_s, s.iops))
                    .collect(),
                fresh_iops: h.relative_base(),
            })
            .collect(),
    };
    let png = out.join("compare.png");
    let provenance = Provenance::of_comparison(
        &labels
            .iter()
            .zip(runs)
            .map(|(label, run)| (label.clone(), Provenance::of_run(&run.info)))
            .collect::<Vec<_>>(),
    );
    chart.write(&png, Format::Png, &provenance)?;

    let mut doc = Document::new(format!("ssdfade compare: {}", labels.join(" vs ")));
    doc.paragraph(recorded_line(&labels, runs));
    add_summary(&mut doc, &labels, &heads);
    doc.heading("Runs");
    doc.table(
        &["Run", "Device", "Command", "Status"],
        runs.iter()
            .zip(&labels)
            .map(|(run, label)| {
                let id = &run.info.target.identity;
                vec![
                    label.clone(),
                    id.model.clone().unwrap_or_else(|| id.kind.clone()),
                    run.info.command.to_string(),
                    run.info.status.to_string(),
                ]
            })
            .collect(),
    );
    for (run, label) in runs.iter().zip(&labels) {
        // The label, not the directory's path: a report names nothing of the machine's layout.
        // A simulated drive's state file is the machine's path: left out.
        doc.paragraph(format!(
            "{label}: on {} — {}",
            crate::results::target_shown(&run.info.target.path),
            workload_line(&run.info.workload)
        ));
    }
    doc.heading("Headline figures");
    let (head, rows) = headline_table(&labels, &heads);
    doc.blocks.push(Block::Table(head, rows));
    doc.paragraph(format!(
        "Whole-run figures from each run's run.json (exact percentiles; estimated from samples.jsonl for a run that wrote no summary); fade = last window ÷ first window, each the median IOPS of the full intervals in the run's first or last {} from its first or to its last full interval (a minute, at least five intervals, at most a quarter of the run). (×r) is the ratio to the first run.{}",
        windows_text(&labels, &heads),
        note.as_ref().map_or_else(String::new, |n| format!(" {n}."))
    ));
    doc.heading("IOPS overlay");
    doc.blocks.push(Block::Chart {
        caption: format!(
            "IOPS of each run against elapsed time, and as % of each run's fresh level{}",
            note.as_ref().map_or_else(String::new, |n| format!(". {n}"))
        ),
        png: "compare.png".into(),
        svg: chart.svg()?,
    });
    doc.heading("Reproduce");
    doc.blocks.push(Block::Code(reproduce_lines(&labels, runs)));
    doc.provenance = Some(provenance);
    let markdown = doc.markdown();
    let (md, html) = (out.join("compare.md"), out.join("compare.html"));
    write_file(&md, &markdown)?;
    write_file(&html, &doc.html())?;
    Ok(Comparison {
        text: doc.terminal(),
        markdown,
        files: vec![md, html, png],
    })
}
