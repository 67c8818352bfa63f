//! SNIA PTS cross-stimulus recovery (`experiment xsr`): its figures are each segment's level
//! and recovery time ([`crate::analysis::xsr`]); its terminal text and report card are their
//! table, its chart `xsr.png` ([`crate::plot::experiment::xsr_chart`]).

use super::Protocol;
use crate::analysis::summary::KindFigures;
use crate::analysis::xsr::{XsrFigures, BAND, NAME, WINDOW};
use crate::plot::{Place, ProtocolChart};
use crate::report::Document;
use crate::results::Experiment;

/// `experiment xsr`.
pub struct Xsr;

impl Protocol for Xsr {
    fn names(&self) -> &'static [&'static str] {
        &[NAME]
    }

    fn figures(&self, exp: &Experiment) -> KindFigures {
        KindFigures::Xsr(XsrFigures::of(exp))
    }

    fn text(&self, figures: &KindFigures) -> String {
        match figures {
            KindFigures::Xsr(f) => summary_text(f),
            _ => String::new(),
        }
    }

    fn chart(&self, exp: &Experiment) -> Option<ProtocolChart> {
        crate::plot::experiment::xsr_chart(exp).map(|c| {
            ProtocolChart::new(
                NAME,
                "SNIA XSR: MB/s over time through 1024 KiB sequential, 8 KiB random and 1024 KiB sequential writes, each segment's band and the time it took to hold in it",
                Place::Charts,
                c,
            )
        })
    }

    fn report_summary(
        &self,
        doc: &mut Document,
        _exp: &Experiment,
        figures: &KindFigures,
        _chart: Option<&ProtocolChart>,
    ) -> anyhow::Result<bool> {
        let KindFigures::Xsr(f) = figures else {
            return Ok(false);
        };
        crate::report::xsr::add_summary(doc, f);
        Ok(true)
    }
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
