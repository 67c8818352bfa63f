//! The PTS suite's pages of an experiment report, in the order of SNIA's report format: the
//! test settings beside the drive's header, then per test its measurement window (the rounds,
//! and whether the tracked cells were steady) and its table ([`crate::text::pts`]). The figures
//! are [`crate::analysis::pts`]'s.

use super::document::Document;
use crate::analysis::pts::{mix_label, size_label, PtsFigures};
use crate::text::pts::{table, window_line};

/// The test settings: the tests, the rounds and their length, each test's queue depth and the
/// cells its steady state is tracked on.
pub fn add_settings(doc: &mut Document, f: &PtsFigures) {
    let mut rows = vec![
        vec![
            "Tests".into(),
            f.tests
                .iter()
                .map(|t| t.title.clone())
                .collect::<Vec<_>>()
                .join(", "),
        ],
        vec![
            "Rounds".into(),
            format!(
                "{} per test, {} s per cell (the PTS: 1-minute rounds until steady, at most 25)",
                f.rounds_planned, f.round_s
            ),
        ],
        vec![
            "Preconditioning".into(),
            "purge, then 128 KiB sequential writes of twice the capacity, per test".into(),
        ],
        vec![
            "Steady state".into(),
            "SNIA: five rounds, range ≤ 20 %, slope excursion ≤ 10 % of the average".into(),
        ],
    ];
    for t in &f.tests {
        let tracked: Vec<String> = t
            .tracked
            .iter()
            .map(|c| format!("{} {}", mix_label(c.cell.read_pct), size_label(c.cell.bs)))
            .collect();
        rows.push(vec![
            t.title.clone(),
            format!(
                "QD {}; steady state tracked on {}",
                t.qd,
                tracked.join(" and ")
            ),
        ]);
    }
    doc.heading("SNIA PTS test settings");
    doc.table(&["Setting", ""], rows);
}

/// Adds one section per test.
pub fn add_tests(doc: &mut Document, f: &PtsFigures) {
    for t in &f.tests {
        doc.heading(format!("PTS {} test", t.title));
        doc.paragraph(window_line(t));
        let (head, rows) = table(t);
        let head: Vec<&str> = head.iter().map(String::as_str).collect();
        doc.table(&head, rows);
    }
}
