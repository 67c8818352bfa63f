//! Reports people can act on: `report` (one run directory as Markdown and self-contained HTML)
//! and `compare` (several runs side by side). Every number is recomputed from the samples.

mod compare;
mod document;
mod figures;
mod run;

use std::path::{Path, PathBuf};

use anyhow::Context;

pub use compare::{compare_dirs, Comparison};
pub use document::{Block, Document};
pub use figures::{pooled_quantile, Figures};
pub use run::reproduce_command;

/// What `report` wrote.
pub struct Written {
    /// The report as Markdown (also what the terminal shows).
    pub markdown: String,
    pub files: Vec<PathBuf>,
}

/// Writes `text` to `path`, naming the file when that fails.
pub(crate) fn write_file(path: &Path, text: &str) -> anyhow::Result<()> {
    std::fs::write(path, text).with_context(|| format!("writing {}", path.display()))
}

/// Reports on the run directory `dir`: draws its PNG charts, writes report.md and report.html
/// into it and returns the Markdown and the files written.
pub fn report_dir(dir: &Path) -> anyhow::Result<Written> {
    let run = crate::results::load_run(dir)?;
    let mut files = crate::plot::render_run(&run, &dir.join("fade.png"), crate::plot::Format::Png)?;
    let names: Vec<String> = files
        .iter()
        .map(|p| {
            p.file_name()
                .unwrap_or_default()
                .to_string_lossy()
                .into_owned()
        })
        .collect();
    let doc = run::document(&run, &names[0], &names[1])?;
    let markdown = doc.markdown();
    let (md, html) = (dir.join("report.md"), dir.join("report.html"));
    write_file(&md, &markdown)?;
    write_file(&html, &doc.html())?;
    files.extend([md, html]);
    Ok(Written { markdown, files })
}
