//! The SNIA PTS suite (`experiment pts`): its figures are each test's measurement window and
//! cells ([`crate::analysis::pts`]); its terminal text is each test's window line and table
//! ([`crate::text::pts`]).

use super::Protocol;
use crate::analysis::pts::{PtsFigures, NAME};
use crate::analysis::summary::KindFigures;
use crate::plot::{Place, ProtocolChart, PtsChart};
use crate::report::Document;
use crate::results::Experiment;
use crate::text::pts::{table, window_line};

/// `experiment pts`.
pub struct Pts;

impl Protocol for Pts {
    fn names(&self) -> &'static [&'static str] {
        &[NAME]
    }

    fn figures(&self, exp: &Experiment) -> KindFigures {
        KindFigures::Pts(PtsFigures::of(exp))
    }

    fn text(&self, figures: &KindFigures) -> String {
        match figures {
            KindFigures::Pts(f) => summary_text(f),
            _ => String::new(),
        }
    }

    fn lists_phases(&self) -> bool {
        true
    }

    fn chart(&self, exp: &Experiment) -> Option<ProtocolChart> {
        PtsChart::of(exp).map(|c| {
            ProtocolChart::new(
                NAME,
                "SNIA PTS: each test's measurement window against block size, one line per R/W mix (IOPS, MB/s, or average and five-nines latency)",
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
        let KindFigures::Pts(f) = figures else {
            return Ok(false);
        };
        crate::report::pts::add_settings(doc, f);
        Ok(true)
    }

    fn report_tables(&self, doc: &mut Document, _exp: &Experiment, figures: &KindFigures) {
        if let KindFigures::Pts(f) = figures {
            crate::report::pts::add_tests(doc, f);
        }
    }
}

/// Each test's window line and table, columns right-aligned to their widest cell.
fn summary_text(f: &PtsFigures) -> String {
    let mut out = String::new();
    for t in &f.tests {
        out.push_str(&crate::text::wrap(&window_line(t), 78, "  ", "    "));
        let (head, rows) = table(t);
        let widths: Vec<usize> = (0..head.len())
            .map(|i| {
                std::iter::once(&head[i])
                    .chain(rows.iter().map(|r| &r[i]))
                    .map(|s| s.chars().count())
                    .max()
                    .unwrap_or(0)
            })
            .collect();
        for row in std::iter::once(&head).chain(&rows) {
            let cells: Vec<String> = row
                .iter()
                .zip(&widths)
                .map(|(c, w)| format!("{c:>w$}"))
                .collect();
            out.push_str(&format!("    {}\n", cells.join(" ")));
        }
    }
    out
}
