//! The SLC-cache test (`experiment slc-cache`): its figures are the cache found in the whole-drive
//! write and the refills after idle gaps ([`crate::analysis::slc_cache`]); its terminal text is
//! the one-line answer, the speeds and the refill table.

use std::time::Duration;

use super::Protocol;
use crate::analysis::slc_cache::{SlcCacheFigures, NAME};
use crate::analysis::summary::KindFigures;
use crate::plot::{Place, ProtocolChart};
use crate::report::Document;
use crate::results::Experiment;
use crate::units::format_duration;

/// `experiment slc-cache`.
pub struct SlcCache;

impl Protocol for SlcCache {
    fn names(&self) -> &'static [&'static str] {
        &[NAME]
    }

    fn figures(&self, exp: &Experiment) -> KindFigures {
        KindFigures::SlcCache(Box::new(SlcCacheFigures::of(exp)))
    }

    fn text(&self, figures: &KindFigures) -> String {
        match figures {
            KindFigures::SlcCache(f) => summary_text(f),
            _ => String::new(),
        }
    }

    fn chart(&self, exp: &Experiment) -> Option<ProtocolChart> {
        crate::plot::experiment::slc_cache_chart(exp).map(|c| {
            ProtocolChart::new(
                NAME,
                "Write speed against data written in one sequential pass over the whole drive (the cache's end, in-cache, post-cache and folding speeds marked), and the cache back after each idle gap",
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
        let KindFigures::SlcCache(f) = figures else {
            return Ok(false);
        };
        crate::report::slc_cache::add_summary(doc, f);
        Ok(true)
    }
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
