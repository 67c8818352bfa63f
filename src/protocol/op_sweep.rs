//! How much to over-provision (`experiment op-sweep`): its figures are the spans' steady
//! states and the advice ([`crate::analysis::op_sweep`]); its terminal text is their table and
//! the advice.

use super::Protocol;
use crate::analysis::op_sweep::OpSweepFigures;
use crate::plot::{Place, ProtocolChart, TimelineLabels};
use crate::report::Document;
use crate::results::{workload_line, Experiment, PhaseKind};

/// `experiment op-sweep`.
pub struct OpSweep;

impl Protocol for OpSweep {
    type Figures = OpSweepFigures;

    fn names(&self) -> &'static [&'static str] {
        &["op-sweep"]
    }

    fn figures(&self, exp: &Experiment) -> OpSweepFigures {
        OpSweepFigures::of(exp)
    }

    fn text(&self, f: &OpSweepFigures) -> String {
        summary_text(f)
    }

    fn phase_note(&self) -> &'static str {
        // The spans' steady IOPS are the table above; these are whole phases.
        "  (IOPS: each phase as a whole, fast preconditioning included; steady IOPS\n   are the table above)\n"
    }

    fn charts(&self, exp: &Experiment) -> Vec<ProtocolChart> {
        chart(exp).into_iter().collect()
    }

    fn timeline(&self, exp: &Experiment) -> TimelineLabels {
        let soaks: Vec<(&str, &crate::results::Run)> = exp
            .phases
            .iter()
            .filter(|p| matches!(p.record.phase.kind, PhaseKind::Soak(_)))
            .filter_map(|p| Some((p.record.phase.name.as_str(), p.run.as_ref()?)))
            .collect();
        let Some((_, run)) = soaks.first() else {
            return TimelineLabels::default();
        };
        // Each span is its own soak: the first one's span and limit are not the experiment's.
        let w = &run.info.workload;
        let names: Vec<&str> = soaks.iter().map(|(name, _)| *name).collect();
        let workload = workload_line(w)
            .replacen(
                &format!("span {}", crate::units::format_bytes(w.span)),
                "span of the point",
                1,
            )
            .replacen(", stop after ", ", until SNIA steady state or ", 1);
        TimelineLabels {
            subtitle: Some(format!(
                "{} spans ({}), each after a purge · {workload}",
                soaks.len(),
                names.join(", ")
            )),
            mb_per_s: false,
        }
    }

    fn report_summary(
        &self,
        doc: &mut Document,
        _exp: &Experiment,
        f: &Self::Figures,
        chart: Option<&ProtocolChart>,
    ) -> anyhow::Result<bool> {
        crate::report::op_sweep::add_summary(doc, f, chart)?;
        Ok(true)
    }
}

/// The kind's own chart, when its figures have one.
fn chart(exp: &Experiment) -> Option<ProtocolChart> {
    // Drawn under the advice, by the summary.
    crate::plot::op_sweep::op_sweep_chart(exp).map(|c| {
        ProtocolChart::new(
            "op-sweep",
            "Steady IOPS and p99 latency against the share of the drive left unpartitioned, one point per span",
            Place::Summary,
            c,
        )
    })
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
