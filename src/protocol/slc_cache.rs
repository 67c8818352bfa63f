//! The SLC-cache test (`experiment slc-cache`): its figures are the cache found in the whole-drive
//! write and the refills after idle gaps ([`crate::analysis::slc_cache`]); its terminal text is
//! the one-line answer, the speeds and the refill table; its report card the same as a table;
//! its chart [`crate::plot::slc_cache`]'s.

use std::time::Duration;

use super::Protocol;
use crate::analysis::slc_cache::{SlcCacheFigures, NAME};
use crate::plot::slc_cache::SlcCacheChart;
use crate::plot::{Place, ProtocolChart};
use crate::report::Document;
use crate::results::Experiment;
use crate::units::format_duration;

/// `experiment slc-cache`.
pub struct SlcCache;

impl Protocol for SlcCache {
    type Figures = SlcCacheFigures;

    fn names(&self) -> &'static [&'static str] {
        &[NAME]
    }

    fn figures(&self, exp: &Experiment) -> SlcCacheFigures {
        SlcCacheFigures::of(exp)
    }

    fn text(&self, f: &SlcCacheFigures) -> String {
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
    let chart = SlcCacheChart {
        title: format!("SLC cache — {}", crate::results::device_name(&run.info)),
        subtitle: crate::results::workload_line(&run.info.workload),
        figures: SlcCacheFigures::of(exp),
    };
    Some(ProtocolChart::new(
        NAME,
        "Write speed against data written in one sequential pass over the whole drive (the cache's end, in-cache, post-cache and folding speeds marked), and the cache back after each idle gap",
        Place::Charts,
        chart,
    ))
}

/// The answer, the speeds and the refill table.
fn summary_text(f: &SlcCacheFigures) -> String {
    let mut out = format!("  {}\n", f.answer);
    if let Some(c) = &f.cache {
        out.push_str(&format!(
            "  cache {:.1} GB at {:.0} MB/s; after it {}; folding {}\n",
            c.bytes / 1e9,
            c.in_cache_mb_per_s,
            c.post_cache_mb_per_s
                .map_or("-".into(), |v| format!("{v:.0} MB/s")),
            c.folding.map_or("not seen".into(), |d| format!(
                "{:.0} MB/s from {:.1} to {:.1} GB",
                d.mb_per_s,
                d.start_bytes / 1e9,
                d.end_bytes / 1e9
            )),
        ));
    }
    if !f.refills.is_empty() {
        out.push_str(&format!(
            "  {:>8} {:>14} {:>10}\n",
            "idle", "cache back", "MB/s"
        ));
        for r in &f.refills {
            let back = format!(
                "{}{:.2} GB",
                if r.at_least { "≥ " } else { "" },
                r.regained_bytes / 1e9
            );
            out.push_str(&format!(
                "  {:>8} {back:>14} {:>10.0}\n",
                format_duration(Duration::from_secs_f64(r.idle_s)),
                r.mb_per_s
            ));
        }
    }
    if let Some(rate) = f.refill_bytes_per_min {
        out.push_str(&format!(
            "  refill rate {}{:.2} GB per idle minute\n",
            if f.refill_rate_at_least {
                "at least "
            } else {
                ""
            },
            rate / 1e9
        ));
    }
    out
}

/// Adds the summary card and the refill table.
fn add_summary(doc: &mut Document, f: &SlcCacheFigures) {
    let mb = |v: f64| format!("{v:.0} MB/s");
    let mut rows = vec![vec!["Answer".into(), f.answer.clone()]];
    if let Some(purged) = f.purged {
        let start = if purged {
            "purged"
        } else {
            "as it was (not purged)"
        };
        rows.push(vec!["Drive at the start".into(), start.into()]);
    }
    match &f.cache {
        Some(c) => {
            rows.push(vec!["SLC cache".into(), format!("{:.1} GB", c.bytes / 1e9)]);
            rows.push(vec!["In-cache write speed".into(), mb(c.in_cache_mb_per_s)]);
            rows.push(vec![
                "Post-cache write speed".into(),
                c.post_cache_mb_per_s.map_or("-".into(), mb),
            ]);
            rows.push(vec![
                "Folding speed".into(),
                c.folding.map_or("no folding phase seen".into(), |d| {
                    format!(
                        "{} from {:.1} to {:.1} GB written",
                        mb(d.mb_per_s),
                        d.start_bytes / 1e9,
                        d.end_bytes / 1e9
                    )
                }),
            ]);
        }
        None => rows.push(vec!["Mean write speed".into(), mb(f.mean_mb_per_s)]),
    }
    if let Some(rate) = f.refill_bytes_per_min {
        rows.push(vec![
            "Refill rate".into(),
            format!(
                "{}{:.2} GB per idle minute",
                if f.refill_rate_at_least {
                    "at least "
                } else {
                    ""
                },
                rate / 1e9
            ),
        ]);
    }
    doc.heading("Summary");
    doc.table(&["Headline", ""], rows);
    if f.refills.is_empty() {
        return;
    }
    doc.heading("Cache back after idle");
    let rows = f
        .refills
        .iter()
        .map(|r| {
            vec![
                format_duration(std::time::Duration::from_secs_f64(r.idle_s)),
                format!(
                    "{}{:.2}",
                    if r.at_least { "≥ " } else { "" },
                    r.regained_bytes / 1e9
                ),
                format!("{:.0}", r.mb_per_s),
            ]
        })
        .collect();
    doc.table(&["Idle", "Cache back (GB)", "Short write MB/s"], rows);
    doc.paragraph(
        "Cache back: the bytes the short write after each idle gap wrote at in-cache speed (≥: it never slowed down). The rule is in docs/slc-cache.md.",
    );
}
