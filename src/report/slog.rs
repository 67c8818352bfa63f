//! The SLOG part of a report: the verdict of a slog run, recomputed from its run directory
//! (`slog::verdict_of_dir`), with every reason's figure, threshold and source, and the SLOG
//! chart; it opens the report, before the run's own figures.

use std::path::Path;

use super::document::{Block, Document};
use crate::plot::{Chart, SlogChart};

/// Puts the verdict of the slog run in `dir` and its chart (`png` beside the report) at the
/// top of `doc`.
pub fn add_verdict(
    doc: &mut Document,
    dir: &Path,
    chart: &SlogChart,
    png: &str,
) -> anyhow::Result<()> {
    let verdict = crate::analysis::slog::verdict_of_dir(dir)?;
    let rest = std::mem::take(&mut doc.blocks);
    doc.heading("SLOG verdict");
    doc.paragraph(format!(
        "{} as a ZFS log device (SLOG).",
        verdict.rating.word().to_uppercase()
    ));
    doc.table(
        &["Topic", "Result", "Figure", "Threshold", "Source"],
        verdict
            .reasons
            .iter()
            .map(|r| {
                vec![
                    r.topic.clone(),
                    r.rating.map_or("not tested", |x| x.word()).to_string(),
                    r.value.clone(),
                    r.threshold.clone(),
                    r.source.clone(),
                ]
            })
            .collect(),
    );
    doc.paragraph(verdict.bands.clone());
    if let Some(plan) = &verdict.plan {
        doc.paragraph(format!("Maintenance plan: {plan}"));
    }
    doc.blocks.push(Block::Chart {
        caption: "Mean µs per synchronous write against write size, with the verdict's latency bands; the sustained 4 KiB phase per interval (mean, p99, max) on a log axis".into(),
        png: png.into(),
        svg: chart.svg()?,
    });
    doc.blocks.extend(rest);
    Ok(())
}
