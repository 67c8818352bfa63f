//! The SLOG part of a report: the verdict of a slog run, recomputed from its run directory
//! (`slog::verdict_of_dir`), with every reason's figure, threshold and source, and the SLOG
//! chart, and the drive's heat during the sustained phase where it reported a temperature;
//! it opens the report, before the run's own figures.

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
                    without_local_paths(&r.source),
                ]
            })
            .collect(),
    );
    doc.paragraph(verdict.bands.clone());
    if let Some(heat) = crate::analysis::thermal::Thermal::of_dir(dir) {
        doc.paragraph(format!(
            "Heat during the sustained phase: {}.",
            heat.range_words()
        ));
    }
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

/// `text` with every absolute path cut to its last two parts (`/tmp/x/slog/samples.jsonl` →
/// `slog/samples.jsonl`): a report names nothing of the machine's layout.
fn without_local_paths(text: &str) -> String {
    text.split(' ')
        .map(|word| {
            let start = word
                .find('/')
                .filter(|&i| word[..i].chars().all(|c| c == '(') && word.len() > i + 1);
            let Some(i) = start else {
                return word.to_string();
            };
            let end = word.trim_end_matches([')', ',', ';', '.']).len().max(i);
            let parts: Vec<&str> = word[i..end].split('/').filter(|p| !p.is_empty()).collect();
            let kept = parts[parts.len().saturating_sub(2)..].join("/");
            format!("{}{kept}{}", &word[..i], &word[end..])
        })
        .collect::<Vec<_>>()
        .join(" ")
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn sources_name_no_absolute_paths() {
        assert_eq!(
            without_local_paths("sustained phase of this run (/tmp/c4/out/slog/samples.jsonl)"),
            "sustained phase of this run (slog/samples.jsonl)"
        );
        assert_eq!(
            without_local_paths(
                "4.0 KiB QD1 write+fdatasync, 1516 writes in 1.0 s (/tmp/c4/out/slog)"
            ),
            "4.0 KiB QD1 write+fdatasync, 1516 writes in 1.0 s (out/slog)"
        );
        assert_eq!(
            without_local_paths("plp verify /srv/runs/plp1"),
            "plp verify runs/plp1"
        );
        assert_eq!(
            without_local_paths("give --tbw or 10/s"),
            "give --tbw or 10/s"
        );
    }
}
