//! The summary of an op-sweep's report: the advice, its chart right under it, each span's
//! steady figures and, when they came from a twin, that they are a prediction. The figures are
//! [`crate::analysis::op_sweep`]'s, as the terminal and `--json` give them.

use super::document::Document;
use crate::analysis::op_sweep::OpSweepFigures;
use crate::plot::ProtocolChart;

/// The table's columns.
const HEAD: [&str; 8] = [
    "Span",
    "Unpartitioned",
    "OP (flash / span − 1)",
    "Steady IOPS",
    "Mean ms",
    "p99 ms",
    "p99.9 ms",
    "Drive writes to steady",
];

/// Adds the summary of an op-sweep to `doc`: the advice first, then `chart` (op-sweep.png:
/// steady IOPS and p99 against the share left unpartitioned), then each span's figures.
pub fn add_summary(
    doc: &mut Document,
    f: &OpSweepFigures,
    chart: Option<&ProtocolChart>,
) -> anyhow::Result<()> {
    doc.heading("Summary: how much to over-provision");
    if let Some(twin) = &f.predicted_from_twin {
        doc.paragraph(format!(
            "A prediction from the twin {twin}, not a measurement: the drive was not opened."
        ));
    }
    doc.paragraph(match &f.advice {
        Some(a) => format!("Advice: {}.", a.line),
        None => "Advice: none yet (it needs the least unpartitioned span and another one at steady state).".into(),
    });
    if let Some(chart) = chart {
        super::add_chart(doc, chart)?;
    }
    let rows = f.points.iter().map(|p| p.cells().to_vec()).collect();
    doc.table(&HEAD, rows);
    doc.paragraph(format!(
        "Each span: purge, fast preconditioning, then random writes until SNIA's steady-state test passed; IOPS and latency of the steady window. The advice is the smallest unpartitioned share that gets at least {:.0} % of the largest gain in steady IOPS over the least unpartitioned span.",
        crate::analysis::op_sweep::MOST_OF_THE_GAIN * 100.0
    ));
    Ok(())
}
