//! `fleet`'s document: per group of drives (model and firmware) the spread of each headline
//! figure, the outliers named with host, serial and directory, the merged latency
//! percentiles, the slog verdicts where drives were slog runs and the fade band; then the drives seen twice and the directories skipped.
//! The hosts missing or failed (from the playbook's manifest) and the incomplete runs, not
//! counted, are named after the summary.
//! Markdown, HTML and the terminal all render this one [`Document`] of
//! [`crate::analysis::fleet::Fleet`], and each group's two charts ([`charts`]) are embedded.

use crate::analysis::fleet::{Fleet, Group, Metric};
use crate::plot::{Chart, FleetBandChart, FleetStripChart, Strip, FLEET_MAX_CURVES};
use crate::units::format_count;

use super::document::{Block, Document};

/// A group's charts and the file stem they are written under (`fleet-1-band`, `fleet-1-strips`).
pub struct GroupCharts {
    pub stem: String,
    pub band: FleetBandChart,
    pub strips: FleetStripChart,
}

/// Each group's fade band and strips, in the groups' order.
pub fn charts(fleet: &Fleet) -> Vec<GroupCharts> {
    fleet
        .groups
        .iter()
        .enumerate()
        .map(|(i, g)| {
            let title = format!("{} ({})", g.model, g.firmware);
            let outliers = curve_outliers(g);
            let band = FleetBandChart {
                title: format!("Fade band: {title}"),
                subtitle: format!(
                    "IOPS per interval over {} · outliers of the IOPS figures drawn on top, farthest first{}",
                    count(g.drives.len(), "drive"),
                    if outliers.len() > FLEET_MAX_CURVES {
                        format!(
                            " (the first {FLEET_MAX_CURVES} of {}; the table names all)",
                            outliers.len()
                        )
                    } else {
                        String::new()
                    }
                ),
                drives: g.drives.len(),
                band: g
                    .band
                    .iter()
                    .map(|p| (p.t_s, p.p10, p.median, p.p90))
                    .collect(),
                outliers: outliers
                    .iter()
                    .map(|&d| (name(g, d), g.drives[d].curve.clone()))
                    .collect(),
            };
            let strips = FleetStripChart {
                title: format!("Headline figures: {title}"),
                subtitle: format!(
                    "One dot per drive ({}) · box: p10–p90 · blue line: median · green: normal range · red: outliers",
                    count(g.drives.len(), "drive")
                ),
                strips: g
                    .spreads
                    .iter()
                    .map(|s| {
                        let (scale, label) = match s.metric {
                            Metric::P99 | Metric::P999 => {
                                let (scale, unit) = crate::plot::latency_unit(s.high);
                                (scale, format!("{} ({unit})", s.metric.label()))
                            }
                            _ => (1.0, s.metric.label().to_string()),
                        };
                        Strip {
                            label,
                            values: g
                                .drives
                                .iter()
                                .enumerate()
                                .filter(|(i, _)| !s.outliers.contains(i))
                                .filter_map(|(_, d)| d.figures.get(&s.metric))
                                .map(|v| v / scale)
                                .collect(),
                            median: s.median / scale,
                            p10: s.p10 / scale,
                            p90: s.p90 / scale,
                            low: s.low / scale,
                            high: s.high / scale,
                            outliers: s
                                .outliers
                                .iter()
                                .map(|&d| (name(g, d), g.drives[d].figures[&s.metric] / scale))
                                .collect(),
                        }
                    })
                    .collect(),
            };
            GroupCharts {
                stem: format!("fleet-{}", i + 1),
                band,
                strips,
            }
        })
        .collect()
}

/// The drives outside the normal range of an IOPS figure (faded, fresh, fade %, steady), the
/// farthest from the median first: the curves the band shows over it.
fn curve_outliers(g: &Group) -> Vec<usize> {
    let mut far: Vec<(f64, usize)> = Vec::new();
    for metric in [
        Metric::Faded,
        Metric::Fresh,
        Metric::FadePct,
        Metric::Steady,
    ] {
        let Some(s) = g.spreads.iter().find(|s| s.metric == metric) else {
            continue;
        };
        let margin = (s.high - s.median).max(f64::MIN_POSITIVE);
        for &d in &s.outliers {
            let how_far = (g.drives[d].figures[&metric] - s.median).abs() / margin;
            match far.iter_mut().find(|f| f.1 == d) {
                Some(f) => f.0 = f.0.max(how_far),
                None => far.push((how_far, d)),
            }
        }
    }
    far.sort_by(|a, b| b.0.total_cmp(&a.0).then(a.1.cmp(&b.1)));
    far.into_iter().map(|f| f.1).collect()
}

/// A drive as charts and tables name it: `serial (host)`.
fn name(g: &Group, d: usize) -> String {
    format!("{} ({})", g.drives[d].serial, g.drives[d].host)
}

/// The fleet as one document, each group's `charts` embedded.
pub fn document(fleet: &Fleet, charts: &[GroupCharts]) -> anyhow::Result<Document> {
    let mut doc = Document::new("ssdfade fleet");
    let drives: usize = fleet.groups.iter().map(|g| g.drives.len()).sum();
    doc.paragraph(format!(
        "{} in {} (model and firmware); {} seen again and counted once; {} skipped{}.",
        count(drives, "drive"),
        count(fleet.groups.len(), "group"),
        fleet.duplicates.len(),
        count(fleet.skipped.len(), "directory"),
        match fleet.incomplete.len() {
            0 => String::new(),
            n => format!("; {} not counted", count(n, "incomplete run")),
        }
    ));
    hosts(&mut doc, fleet);
    doc.paragraph(format!("Outlier: {}", fleet.outlier_rule));
    doc.paragraph(format!("Merged percentiles: {}", fleet.merge_rule));
    for (g, c) in fleet.groups.iter().zip(charts) {
        group(&mut doc, g);
        doc.blocks.push(Block::Chart {
            caption: format!("{}: each headline figure over the drives", g.model),
            png: format!("{}-strips.png", c.stem),
            svg: c.strips.svg()?,
        });
        doc.blocks.push(Block::Chart {
            caption: format!(
                "{}: fade band (median and p10–p90 over the drives)",
                g.model
            ),
            png: format!("{}-band.png", c.stem),
            svg: c.band.svg()?,
        });
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
    Ok(doc)
}

/// The hosts the manifest expected, counted, then each missing or failed one named; and the
/// runs without figures, apart.
fn hosts(doc: &mut Document, fleet: &Fleet) {
    if !fleet.hosts.is_empty() {
        let missing = fleet.hosts.iter().filter(|h| h.missing).count();
        let failed = fleet
            .hosts
            .iter()
            .filter(|h| !h.missing && h.note.is_some())
            .count();
        doc.paragraph(format!(
            "Hosts: {} expected, {} sent runs ({failed} of them failed mid-run), {missing} missing.",
            fleet.hosts.len(),
            fleet.hosts.len() - missing
        ));
        let notes: Vec<String> = fleet
            .hosts
            .iter()
            .filter_map(|h| h.note.as_ref().map(|n| format!("- {n}")))
            .collect();
        if !notes.is_empty() {
            doc.paragraph(notes.join("\n"));
        }
    }
    if !fleet.incomplete.is_empty() {
        doc.heading("Incomplete runs (not counted)");
        let rows = fleet
            .incomplete
            .iter()
            .map(|i| vec![i.path.display().to_string(), i.host.clone(), i.why.clone()])
            .collect();
        doc.table(&["directory", "host", "why"], rows);
    }
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
            .map(|(n, _)| n.clone())
            .collect();
        let mut head = vec!["merged"];
        head.extend(names.iter().map(String::as_str));
        let drives = if g.merged_drives == 1 {
            "drive"
        } else {
            "drives"
        };
        let mut row = vec![format!("{} {drives}", g.merged_drives)];
        row.extend(
            g.merged_percentiles
                .iter()
                .map(|(_, v)| crate::units::format_latency_us(*v)),
        );
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
    if let Some(t) = &g.slog {
        let why: Vec<String> = t
            .why_not
            .iter()
            .map(|(topic, n)| format!("{topic} ({n})"))
            .collect();
        doc.paragraph(format!(
            "SLOG verdict: {} of {} suitable, {} marginal, {} unsuitable{}.",
            t.suitable,
            count(t.runs, "slog run"),
            t.marginal,
            t.unsuitable,
            if why.is_empty() {
                String::new()
            } else {
                format!("; why not (drives): {}", why.join(", "))
            }
        ));
        let rows: Vec<Vec<String>> = g
            .drives
            .iter()
            .filter_map(|d| {
                let o = d.slog.as_ref().filter(|o| !o.why_not.is_empty())?;
                Some(vec![
                    d.serial.clone(),
                    d.host.clone(),
                    o.rating.word().to_string(),
                    o.why_not.join("; "),
                ])
            })
            .collect();
        if !rows.is_empty() {
            doc.table(&["not suitable", "host", "verdict", "why"], rows);
        }
    }
    if let (Some(first), Some(last)) = (g.band.first(), g.band.last()) {
        doc.paragraph(format!(
            "Fade band (IOPS over drives): first interval median {} (p10–p90 {}–{}), last {} ({}–{}).",
            format_count(first.median),
            format_count(first.p10),
            format_count(first.p90),
            format_count(last.median),
            format_count(last.p10),
            format_count(last.p90)
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
