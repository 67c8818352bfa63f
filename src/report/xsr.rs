//! The summary card of a cross-stimulus-recovery report (SNIA XSR): per segment its stimulus,
//! level, band and recovery time, and the second sequential segment against the first. The
//! figures are [`crate::analysis::xsr`]'s, as the terminal and `--json` give them.

use super::document::Document;
use crate::analysis::xsr::{XsrFigures, BAND, WINDOW};

/// Adds the rule and the segment table.
pub fn add_summary(doc: &mut Document, f: &XsrFigures) {
    doc.heading("Summary");
    let mut words = format!(
        "A segment's level is the rate of its last {WINDOW} samples; its recovery time runs from the change of stimulus until the rate of {WINDOW} samples holds within ±{:.0} % of that level (the end of the last sample whose rate with the samples before it lies outside); a segment is not settled when that rate leaves the band in its last {WINDOW} samples. The rule is in docs/pts-stimulus.md.",
        BAND * 100.0
    );
    if let Some(r) = f.return_ratio {
        words.push_str(&format!(
            " The second sequential segment reached {:.0} % of the first's level.",
            r * 100.0
        ));
    }
    doc.paragraph(words);
    let rows = f
        .segments
        .iter()
        .map(|s| {
            vec![
                s.name.clone(),
                s.stimulus.clone(),
                format!("{:.1}", s.level_mb_per_s),
                format!("{:.0}", s.level_iops),
                format!("{:.1}–{:.1}", s.band_low_mb_per_s, s.band_high_mb_per_s),
                s.recovery_words(),
            ]
        })
        .collect();
    doc.table(
        &[
            "Segment",
            "Stimulus",
            "MB/s",
            "IOPS",
            "Band (MB/s)",
            "Recovery",
        ],
        rows,
    );
}
