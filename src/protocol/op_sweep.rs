//! How much to over-provision (`experiment op-sweep`): its figures are the spans' steady
//! states and the advice ([`crate::analysis::op_sweep`]); its terminal text is their table and
//! the advice.

use super::Protocol;
use crate::analysis::op_sweep::OpSweepFigures;
use crate::analysis::summary::KindFigures;
use crate::plot::{Place, ProtocolChart};
use crate::report::Document;
use crate::results::Experiment;

/// `experiment op-sweep`.
pub struct OpSweep;

impl Protocol for OpSweep {
    fn names(&self) -> &'static [&'static str] {
        &["op-sweep"]
    }

    fn figures(&self, exp: &Experiment) -> KindFigures {
        KindFigures::OpSweep(OpSweepFigures::of(exp))
    }

    fn text(&self, figures: &KindFigures) -> String {
        match figures {
            KindFigures::OpSweep(f) => summary_text(f),
            _ => String::new(),
        }
    }

    fn phase_note(&self) -> &'static str {
        // The spans' steady IOPS are the table above; these are whole phases.
        "  (IOPS: each phase as a whole, fast preconditioning included; steady IOPS\n   are the table above)\n"
    }

    fn chart(&self, exp: &Experiment) -> Option<ProtocolChart> {
        // Drawn under the advice, by the summary.
        crate::plot::experiment::op_sweep_chart(exp).map(|c| {
            ProtocolChart::new(
                "op-sweep",
                "Steady IOPS and p99 latency against the share of the drive left unpartitioned, one point per span",
                Place::Summary,
                c,
            )
        })
    }

    fn report_summary(
        &self,
        doc: &mut Document,
        _exp: &Experiment,
        figures: &KindFigures,
        chart: Option<&ProtocolChart>,
    ) -> anyhow::Result<bool> {
        let KindFigures::OpSweep(f) = figures else {
            return Ok(false);
        };
        crate::report::op_sweep::add_summary(doc, f, chart)?;
        Ok(true)
    }
}

/// The sweep's table (one line per span, least unpartitioned first) and the advice, within 80
/// columns.
fn summary_text(f: &OpSweepFigures) -> String {
    let mut out = String::new();
    if let Some(twin) = &f.predicted_from_twin {
        wrap_into(
            &mut out,
            &format!("A prediction from the twin {twin}: the drive was not opened."),
        );
    }
    out.push_str(&format!(
        "  {:<10} {:>7} {:>7} {:>11} {:>8} {:>8} {:>9} {:>8}\n",
        "span", "unpart.", "OP", "steady IOPS", "avg ms", "p99 ms", "p99.9 ms", "DW"
    ));
    for p in &f.points {
        let [span, unpart, op, iops, avg, p99, p999, dw] = p.cells();
        out.push_str(&format!(
            "  {span:<10} {unpart:>7} {op:>7} {iops:>11} {avg:>8} {p99:>8} {p999:>9} {dw:>8}\n"
        ));
    }
    out.push_str(
        "  (unpart.: share of the drive outside the span; OP: flash / span − 1; DW: drive\n   writes when SNIA's steady-state test passed; latency of the steady window)\n",
    );
    match &f.advice {
        Some(a) => wrap_into(&mut out, &format!("Advice: {}", a.line)),
        None => wrap_into(
            &mut out,
            "Advice: none yet (it needs the least unpartitioned span and another one at steady state)",
        ),
    }
    out
}

/// Appends `text` in lines of at most 80 columns, indented by two (continuations by four).
fn wrap_into(out: &mut String, text: &str) {
    out.push_str(&crate::text::wrap(text, 80, "  ", "    "));
}
