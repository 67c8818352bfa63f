//! The PTS suite's pages of an experiment report, in the order of SNIA's report format: per
//! test its measurement window (the rounds, and whether the tracked cells were steady) and its
//! table ([`crate::text::pts`]). The figures are [`crate::analysis::pts`]'s.

use super::document::Document;
use crate::analysis::pts::PtsFigures;
use crate::text::pts::{table, window_line};

/// Adds one section per test.
pub fn add_summary(doc: &mut Document, f: &PtsFigures) {
    for t in &f.tests {
        doc.heading(format!("PTS {} test", t.title));
        doc.paragraph(window_line(t));
        let (head, rows) = table(t);
        let head: Vec<&str> = head.iter().map(String::as_str).collect();
        doc.table(&head, rows);
    }
}
