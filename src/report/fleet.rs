//! `fleet`'s document: per group of drives (model and firmware) the spread of each headline
//! figure, the outliers named with host, serial and directory, the merged latency
//! percentiles and the fade band; then the drives seen twice and the directories skipped.
//! Markdown, HTML and the terminal all render this one [`Document`] of
//! [`crate::analysis::fleet::Fleet`].

use crate::analysis::fleet::{Fleet, Group};

use super::document::{Block, Document};

/// The fleet as one document.
pub fn document(fleet: &Fleet) -> Document {
    let mut doc = Document::new("ssdfade fleet");
    let drives: usize = fleet.groups.iter().map(|g| g.drives.len()).sum();
    doc.paragraph(format!(
        "{} in {} (model and firmware); {} seen again and counted once; {} skipped.",
        count(drives, "drive"),
        count(fleet.groups.len(), "group"),
        fleet.duplicates.len(),
        count(fleet.skipped.len(), "directory")
    ));
    doc.paragraph(format!("Outlier: {}", fleet.outlier_rule));
    doc.paragraph(format!("Merged percentiles: {}", fleet.merge_rule));
    for g in &fleet.groups {
        group(&mut doc, g);
    }
    if !fleet.duplicates.is_empty() {
        doc.heading("Drives seen twice (counted once)");
        let rows = fleet
            .duplicates
            .iter()
            .map(|d| {
                vec![
                    d.serial.clone(),
                    d.host.clone(),
                    d.seen_again.display().to_string(),
                    d.kept.display().to_string(),
                ]
            })
            .collect();
        doc.table(&["serial", "host", "seen again in", "counted from"], rows);
    }
    if !fleet.skipped.is_empty() {
        doc.heading("Skipped");
        let rows = fleet
            .skipped
            .iter()
            .map(|s| vec![s.path.display().to_string(), s.reason.clone()])
            .collect();
        doc.table(&["directory", "why"], rows);
    }
    doc
}

fn group(doc: &mut Document, g: &Group) {
    doc.blocks.push(Block::Heading(
        2,
        format!(
            "{} ({}): {}",
            g.model,
            g.firmware,
            count(g.drives.len(), "drive")
        ),
    ));
    let rows = g
        .spreads
        .iter()
        .map(|s| {
            vec![
                s.metric.label().to_string(),
                s.metric.show(s.median),
                format!("{}–{}", s.metric.show(s.p10), s.metric.show(s.p90)),
                s.outliers.len().to_string(),
            ]
        })
        .collect();
    doc.table(&["figure", "median", "p10–p90", "outliers"], rows);
    if !g.merged_percentiles.is_empty() {
        let names: Vec<String> = g
            .merged_percentiles
            .iter()
            .map(|(n, _)| format!("{n} µs"))
            .collect();
        let mut head = vec!["merged"];
        head.extend(names.iter().map(String::as_str));
        let mut row = vec![format!("{} drives", g.merged_drives)];
        row.extend(g.merged_percentiles.iter().map(|(_, v)| format!("{v:.1}")));
        doc.table(&head, vec![row]);
    }
    let outliers: Vec<Vec<String>> = g
        .spreads
        .iter()
        .flat_map(|s| {
            s.outliers.iter().map(move |&i| {
                let d = &g.drives[i];
                vec![
                    d.serial.clone(),
                    d.host.clone(),
                    s.metric.label().to_string(),
                    s.metric.show(d.figures[&s.metric]),
                    format!("{}–{}", s.metric.show(s.low), s.metric.show(s.high)),
                ]
            })
        })
        .collect();
    if !outliers.is_empty() {
        doc.table(&["outlier", "host", "figure", "value", "normal"], outliers);
        let dirs: Vec<String> = g
            .outlier_drives()
            .into_iter()
            .map(|i| {
                let d = &g.drives[i];
                format!("- {} ({}): {}", d.serial, d.host, d.dir.display())
            })
            .collect();
        doc.paragraph(dirs.join("\n"));
    }
    if let (Some(first), Some(last)) = (g.band.first(), g.band.last()) {
        doc.paragraph(format!(
            "Fade band (IOPS over drives): first interval median {:.0} (p10–p90 {:.0}–{:.0}), last {:.0} ({:.0}–{:.0}).",
            first.median, first.p10, first.p90, last.median, last.p10, last.p90
        ));
    }
}

/// `1 drive`, `2 drives`, `0 directories`.
fn count(n: usize, noun: &str) -> String {
    match (n, noun.strip_suffix('y')) {
        (1, _) => format!("1 {noun}"),
        (_, Some(stem)) => format!("{n} {stem}ies"),
        _ => format!("{n} {noun}s"),
    }
}
