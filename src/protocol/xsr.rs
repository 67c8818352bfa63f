//! SNIA PTS cross-stimulus recovery (`experiment xsr`): its figures are each segment's level
//! and recovery time ([`crate::analysis::xsr`]); its terminal text and report card are their
//! table, its chart `xsr.png` ([`crate::plot::xsr`]) draws them.

use super::Protocol;
use crate::analysis::xsr::{XsrFigures, BAND, NAME, WINDOW};
use crate::plot::xsr::XsrChart;
use crate::plot::{Place, ProtocolChart};
use crate::report::Document;
use crate::results::Experiment;

/// `experiment xsr`.
pub struct Xsr;

impl Protocol for Xsr {
    type Figures = XsrFigures;

    fn names(&self) -> &'static [&'static str] {
        &[NAME]
    }

    fn figures(&self, exp: &Experiment) -> XsrFigures {
        XsrFigures::of(exp)
    }

    fn text(&self, f: &XsrFigures) -> String {
        summary_text(f)
    }

    fn charts(&self, exp: &Experiment) -> Vec<ProtocolChart> {
        chart(exp).into_iter().collect()
    }

    fn report_summary(
        &self,
        doc: &mut Document,
        _exp: &Experiment,
        f: &Self::Figures,
        _chart: Option<&ProtocolChart>,
    ) -> anyhow::Result<bool> {
        add_summary(doc, f);
        Ok(true)
    }
}

/// The kind's own chart, when its figures have one.
fn chart(exp: &Experiment) -> Option<ProtocolChart> {
    let run = exp.phases.iter().find_map(|p| p.run.as_ref())?;
    let figures = XsrFigures::of(exp);
    if figures.segments.is_empty() {
        return None;
    }
    let chart = XsrChart {
        title: format!(
            "Cross-stimulus recovery (SNIA XSR) — {}",
            crate::results::device_name(&run.info)
        ),
        subtitle: format!(
            "QD{} · 1 MiB sequential → 8 KiB random → 1 MiB sequential writes, after purge and 2 × capacity of 128 KiB sequential writes",
            run.info.workload.qd
        ),
        figures,
    };
    Some(ProtocolChart::new(
        NAME,
        "SNIA XSR: MB/s over time through 1024 KiB sequential, 8 KiB random and 1024 KiB sequential writes, each segment's band and the time it took to hold in it",
        Place::Charts,
        chart,
    ))
}

/// Per segment: its stimulus, level and recovery time; then the return ratio and the rule.
fn summary_text(f: &XsrFigures) -> String {
    let mut out = format!(
        "  {:<7} {:<24} {:>9} {:>8} {:>20}\n",
        "segment", "stimulus", "MB/s", "IOPS", "recovery"
    );
    for s in &f.segments {
        out.push_str(&format!(
            "  {:<7} {:<24} {:>9.1} {:>8.0} {:>20}\n",
            s.name,
            s.stimulus,
            s.level_mb_per_s,
            s.level_iops,
            s.recovery_words()
        ));
    }
    if let Some(r) = f.return_ratio {
        out.push_str(&format!(
            "  second sequential segment at {:.0} % of the first\n",
            r * 100.0
        ));
    }
    out.push_str(&format!(
        "  recovery: until the {WINDOW}-sample MB/s holds within ±{:.0} % of the segment's end\n",
        BAND * 100.0
    ));
    out
}

/// Adds the rule and the segment table.
fn add_summary(doc: &mut Document, f: &XsrFigures) {
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
