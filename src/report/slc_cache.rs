//! The SLC-cache section of an experiment report: the one-line answer, the cache size and the
//! write speeds in it, after it and while folding, and what each idle gap gave back. The
//! figures are [`crate::analysis::slc_cache`]'s.

use super::document::Document;
use crate::analysis::slc_cache::SlcCacheFigures;
use crate::units::format_duration;

/// Adds the summary card and the refill table.
pub fn add_summary(doc: &mut Document, f: &SlcCacheFigures) {
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
