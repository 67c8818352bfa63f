//! The SLOG part of a report: the verdict of a slog run, recomputed from its run directory
//! (`slog::verdict_of_dir`), with every reason's figure, threshold and source.

use std::path::Path;

use super::document::Document;

/// Adds the verdict of the slog run in `dir` to `doc`.
pub fn add_verdict(doc: &mut Document, dir: &Path) -> anyhow::Result<()> {
    let verdict = crate::analysis::slog::verdict_of_dir(dir)?;
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
    Ok(())
}
