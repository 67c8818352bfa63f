//! Reports people can act on: `report` (one run directory as Markdown and self-contained HTML)
//! and `compare` (several runs side by side). Every number is recomputed from the samples.

mod compare;
mod distribution;
mod document;
mod experiment;
mod fleet;
mod font_face;
pub mod hir;
pub mod op_sweep;
mod prediction;
pub mod preset;
mod run;
mod slog;
pub mod sweep;
pub mod wsat;

use std::path::{Path, PathBuf};

pub use compare::{compare_dirs, Comparison};
pub use document::{Block, Document};
pub use experiment::{add_chart, KindReport};
pub use fleet::{charts as fleet_charts, document as fleet_document, GroupCharts};
pub use run::{reproduce_command, secs};

/// What `report` wrote.
pub struct Written {
    /// The report as Markdown (report.md).
    pub markdown: String,
    /// The same report for an 80-column terminal ([`document::Document::terminal`]).
    pub text: String,
    pub files: Vec<PathBuf>,
}

/// The caption of the write amplification chart, in a run's report and an experiment's.
const WA_CAPTION: &str = "Write amplification: host and NAND bytes accumulated, and each interval's NAND over host bytes with the overall figure dashed";

/// The file name of a chart written beside the fade chart `fade_png`: `fade.png` and "wa" give
/// `fade-wa.png`, as `plot` names them.
fn beside_png(fade_png: &str, what: &str) -> String {
    let stem = fade_png.strip_suffix(".png").unwrap_or(fade_png);
    format!("{stem}-{what}.png")
}

fn file_name(path: &Path) -> String {
    path.file_name()
        .unwrap_or_default()
        .to_string_lossy()
        .into_owned()
}

/// Writes the report `text` to `path` through [`crate::outfile`], as Markdown or HTML by its
/// extension.
pub(crate) fn write_file(path: &Path, text: &str) -> anyhow::Result<()> {
    let text = crate::console::visible(text);
    crate::outfile::write(path, document_kind(path), text.as_bytes())
}

/// The output kind of a report file: HTML for `.html`, Markdown otherwise.
fn document_kind(path: &Path) -> crate::outfile::Kind {
    if path.extension().is_some_and(|e| e == "html") {
        crate::outfile::Kind::Html
    } else {
        crate::outfile::Kind::Markdown
    }
}

/// Refuses, before anything is drawn, report files that may not be replaced (see
/// [`crate::outfile::check`]).
fn check_files(paths: &[&Path]) -> anyhow::Result<()> {
    paths
        .iter()
        .try_for_each(|p| crate::outfile::check(p, document_kind(p)))
}

/// Reports on the run directory `dir`: draws its PNG charts, writes report.md and report.html
/// into it and returns the Markdown and the files written. An experiment directory
/// (experiment.json) gets one report over all its phases, with its kind's figures, chart and
/// sections from `kinds` (the protocols' table, which sits above this layer).
pub fn report_dir(
    dir: &Path,
    reference: Option<crate::results::ReferenceIops>,
    kinds: &dyn KindReport,
) -> anyhow::Result<Written> {
    use crate::plot::Format;
    use crate::results::{apply_reference, is_experiment, load_experiment, read_run, Provenance};
    let fade = dir.join("fade.png");
    check_files(&[&dir.join("report.md"), &dir.join("report.html")])?;
    crate::outfile::check(&fade, crate::outfile::Kind::Png)?;
    if !is_experiment(dir) {
        apply_reference(dir, None, reference)?;
    }
    let (files, doc, provenance) = if is_experiment(dir) {
        let mut exp = load_experiment(dir)?;
        apply_reference(dir, Some(&mut exp), reference)?;
        let provenance = Provenance::of_experiment(&exp);
        let charts = kinds.charts(&exp);
        let files = crate::plot::render_experiment(&exp, &fade, Format::Png, &provenance, &charts)?;
        let doc = experiment::document(
            &exp,
            kinds,
            &charts,
            &file_name(&files[0]),
            &file_name(&files[1]),
        )?;
        (files, doc, provenance)
    } else if crate::results::slog::without_samples(dir)? {
        // A slog run with no sustained phase (`--sustain 0`): its verdict and SLOG chart.
        let provenance = Provenance::of_slog(dir, None)?;
        let chart = crate::plot::slog_chart(dir)?;
        let png = dir.join("slog.png");
        crate::plot::Chart::write(&chart, &png, Format::Png, &provenance)?;
        let mut doc = document::Document::new(format!(
            "ssdfade report: slog of {} (no sustained phase)",
            crate::results::slog::read_record(dir)?.device.target
        ));
        slog::add_verdict(&mut doc, dir, &chart, &file_name(&png))?;
        (vec![png], doc, provenance)
    } else {
        let run = read_run(dir)?;
        let provenance = Provenance::of_run(&run.info);
        if run.samples.is_empty() {
            // Stopped before its first interval ended: what run.json holds, no charts.
            return finish(dir, Vec::new(), run::stopped_early(&run), provenance);
        }
        let mut files = crate::plot::render_run(&run, &fade, Format::Png, &provenance)?;
        let mut doc = run::document(&run, &file_name(&files[0]), &file_name(&files[1]))?;
        if run.info.command == crate::results::Command::Slog {
            let chart = crate::plot::slog_chart(dir)?;
            let png = dir.join("slog.png");
            crate::plot::Chart::write(&chart, &png, Format::Png, &provenance)?;
            slog::add_verdict(&mut doc, dir, &chart, &file_name(&png))?;
            files.push(png);
        }
        (files, doc, provenance)
    };
    finish(dir, files, doc, provenance)
}

/// Writes `doc`, with its provenance, as report.md and report.html into `dir` beside the
/// charts `files`.
fn finish(
    dir: &Path,
    mut files: Vec<PathBuf>,
    mut doc: document::Document,
    provenance: crate::results::Provenance,
) -> anyhow::Result<Written> {
    doc.provenance = Some(provenance);
    let markdown = doc.markdown();
    let (md, html) = (dir.join("report.md"), dir.join("report.html"));
    write_file(&md, &markdown)?;
    write_file(&html, &doc.html())?;
    files.extend([md, html]);
    Ok(Written {
        markdown,
        text: doc.terminal(),
        files,
    })
}
