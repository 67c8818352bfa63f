//! The latency distribution section of a report: the exact percentiles from the saved
//! histograms (p50 to p99.99 and the maximum) as a table, and the distribution chart.

use crate::analysis::latency::{Distribution, PERCENTILES};
use crate::plot::{Chart, DistributionChart};
use crate::units::format_latency_us;

use super::document::{Block, Document};

/// The table's header: the part, its I/O count, every percentile and the maximum.
fn head() -> Vec<String> {
    ["Part", "I/Os"]
        .into_iter()
        .map(String::from)
        .chain(PERCENTILES.iter().map(|(name, _)| name.to_string()))
        .chain(std::iter::once("Max".to_string()))
        .collect()
}

/// One row per named distribution.
pub(super) fn rows(named: &[(&str, &Distribution)]) -> Vec<Vec<String>> {
    named
        .iter()
        .map(|(name, d)| {
            [name.to_string(), d.count.to_string()]
                .into_iter()
                .chain(
                    PERCENTILES
                        .iter()
                        .map(|(_, q)| format_latency_us(d.quantile_us(*q))),
                )
                .chain(std::iter::once(format_latency_us(d.max_us)))
                .collect()
        })
        .collect()
}

/// Adds the section: its table and chart, or one line saying why there is none.
pub(super) fn add(
    doc: &mut Document,
    named: &[(&str, &Distribution)],
    chart: Option<DistributionChart>,
    png: String,
) -> anyhow::Result<()> {
    doc.heading("Latency distribution");
    let Some(chart) = chart.filter(|_| !named.is_empty()) else {
        doc.paragraph(
            "No latency histogram was saved (latency.json): the run was resumed, crashed, or \
             was written by an older ssdfade; the percentiles above come from the intervals.",
        );
        return Ok(());
    };
    doc.paragraph(
        "Exact percentiles of every I/O, read from the histograms the run saved (latency.json, \
         3 significant figures); p99.99 is the latency 1 I/O in 10 000 exceeded.",
    );
    doc.blocks.push(Block::Table(head(), rows(named)));
    doc.blocks.push(Block::Chart {
        caption: "Latency distribution: share of I/Os per latency bin (above) and share of \
                  I/Os slower than each latency, log scale (below)"
            .into(),
        png,
        svg: chart.svg()?,
    });
    Ok(())
}
