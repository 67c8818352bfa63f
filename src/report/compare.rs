//! `compare`: several runs side by side — a table of their headline figures with ratios to the
//! first run, and an overlay of their IOPS on a shared 0–100 % time axis. Figures are
//! those of [`crate::analysis`] (whole-run figures from run.json's summary, fade from the
//! samples).

use std::path::{Path, PathBuf};

use crate::analysis::{Fade, Figures};
use crate::plot::{Chart, CompareChart, CompareRun, Format};
use crate::results::{load_run, workload_line, Run};
use crate::units::{format_duration, format_latency_us};

use super::document::{Block, Document};
use super::run::gb;
use super::write_file;

/// What `compare` wrote.
pub struct Comparison {
    /// The comparison as Markdown (also what the terminal shows).
    pub markdown: String,
    pub files: Vec<PathBuf>,
}

/// One run's headline figures.
struct Headline {
    first_iops: f64,
    last_iops: f64,
    /// The fade, last window ÷ first (medians, see [`Fade`]), percent (0 without a first interval's I/O).
    fade_pct: f64,
    whole: Figures,
    written: u64,
}

impl Headline {
    fn of(run: &Run) -> Headline {
        let fade = Fade::of(&run.samples, run.info.workload.interval);
        Headline {
            first_iops: fade.as_ref().map_or(0.0, |f| f.start_iops),
            last_iops: fade.as_ref().map_or(0.0, |f| f.end_iops),
            fade_pct: fade.map_or(0.0, |f| f.end_pct_of_start),
            whole: Figures::of_run(run),
            written: run.samples.last().map_or(0, |s| s.bytes_written_total),
        }
    }
}

/// Short names for the runs: their directory names, or whole paths when those repeat.
fn labels(dirs: &[PathBuf]) -> Vec<String> {
    let names: Vec<String> = dirs
        .iter()
        .map(|d| {
            d.file_name()
                .map_or_else(|| d.display().to_string(), |n| n.to_string_lossy().into())
        })
        .collect();
    let unique = names
        .iter()
        .enumerate()
        .all(|(i, n)| !names[..i].contains(n));
    if unique {
        names
    } else {
        dirs.iter().map(|d| d.display().to_string()).collect()
    }
}

/// The headline table: one row per figure, one column per run, later runs with their ratio
/// to the first.
fn headline_table(labels: &[String], heads: &[Headline]) -> (Vec<String>, Vec<Vec<String>>) {
    type Pick = fn(&Headline) -> f64;
    type Show = fn(f64) -> String;
    let iops: Show = |v| format!("{v:.0}");
    let lat: Show = format_latency_us;
    let rows: [(&str, Pick, Show); 9] = [
        (
            "Time",
            |h| h.whole.seconds,
            |v| format_duration(std::time::Duration::from_secs_f64(v.max(0.0))),
        ),
        ("Host data written", |h| h.written as f64, |v| gb(v as u64)),
        ("IOPS, first window (median)", |h| h.first_iops, iops),
        ("IOPS, last window (median)", |h| h.last_iops, iops),
        (
            "Fade, last ÷ first, %",
            |h| h.fade_pct,
            |v| format!("{v:.0} %"),
        ),
        ("IOPS, whole run", |h| h.whole.iops, iops),
        (
            "MB/s, whole run",
            |h| h.whole.mb_per_s,
            |v| format!("{v:.2}"),
        ),
        ("Avg latency", |h| h.whole.avg_lat_us, lat),
        ("p99 latency", |h| h.whole.p99_lat_us, lat),
    ];
    let mut head = vec!["Figure".to_string()];
    head.extend(labels.iter().cloned());
    let body = rows
        .iter()
        .map(|(name, pick, show)| {
            let reference = pick(&heads[0]);
            let mut row = vec![name.to_string(), show(reference)];
            row.extend(heads[1..].iter().map(|h| {
                let v = pick(h);
                if reference > 0.0 {
                    format!("{} (×{:.2})", show(v), v / reference)
                } else {
                    show(v)
                }
            }));
            row
        })
        .collect();
    (head, body)
}

/// Compares the run directories `dirs` (ratios to the first), writes compare.md, compare.html
/// and compare.png into `out` and returns the Markdown and the files written.
pub fn compare_dirs(dirs: &[PathBuf], out: &Path) -> anyhow::Result<Comparison> {
    let runs: Vec<Run> = dirs.iter().map(|d| load_run(d)).collect::<Result<_, _>>()?;
    if let Err(e) = std::fs::create_dir_all(out) {
        crate::bad_input!("cannot create the output directory {}: {e}", out.display());
    }
    let labels = labels(dirs);
    let heads: Vec<Headline> = runs.iter().map(Headline::of).collect();

    let chart = CompareChart {
        title: "Compare — IOPS over each run".into(),
        subtitle: format!(
            "Each run drawn over its own length: {}",
            labels
                .iter()
                .zip(&heads)
                .map(|(label, h)| format!(
                    "{label} {}",
                    format_duration(std::time::Duration::from_secs_f64(h.whole.seconds.max(0.0)))
                ))
                .collect::<Vec<_>>()
                .join(", ")
        ),
        runs: runs
            .iter()
            .zip(&labels)
            .map(|(run, label)| CompareRun {
                label: label.clone(),
                points: run
                    .samples
                    .iter()
                    .map(|s| (s.t_end_s - run.samples[0].t_start_s, s.iops))
                    .collect(),
            })
            .collect(),
    };
    let png = out.join("compare.png");
    chart.write(&png, Format::Png)?;

    let mut doc = Document::new(format!("ssdfade compare: {}", labels.join(" vs ")));
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
        doc.paragraph(format!(
            "{label}: {} on {} — {}",
            run.dir.display(),
            run.info.target.path,
            workload_line(&run.info.workload)
        ));
    }
    doc.heading("Headline figures");
    let (head, rows) = headline_table(&labels, &heads);
    doc.blocks.push(Block::Table(head, rows));
    doc.paragraph(
        "Whole-run figures from each run's run.json (exact percentiles; estimated from samples.jsonl for a run that wrote no summary); fade = last window ÷ first window, each the median IOPS of the full intervals in the run's first or last 2 % (at least five intervals). (×r) is the ratio to the first run.",
    );
    doc.heading("IOPS overlay");
    doc.blocks.push(Block::Chart {
        caption: "IOPS of each run against the share of that run elapsed".into(),
        png: "compare.png".into(),
        svg: chart.svg()?,
    });
    let markdown = doc.markdown();
    let (md, html) = (out.join("compare.md"), out.join("compare.html"));
    write_file(&md, &markdown)?;
    write_file(&html, &doc.html())?;
    Ok(Comparison {
        markdown,
        files: vec![md, html, png],
    })
}
