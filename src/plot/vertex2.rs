//! The chart that opens a Vertex 2 experiment's report (`experiment vertex2`): its measured
//! states as bars, each phase's whole-run IOPS and its share of fresh, as analysis computed
//! them.

use super::bars::{Bar, BarChart, Bracket};
use super::experiment::{device_name, first_run};
use super::style;
use crate::analysis::{self, ExperimentStates};
use crate::results::Experiment;

/// What the states chart writes past a state's bar: its IOPS, its share of fresh, and with a
/// reference set, measured ÷ reference.
fn state_text(s: &analysis::StateFigure) -> String {
    // Fresh is the reference of the shares, unless a reference set is drawn: then it is
    // measured against that like the others.
    let share = match (&s.of_fresh, s.name.as_str()) {
        (_, "fresh") if s.of_reference.is_none() => " · the reference".to_string(),
        (_, "fresh") | (None, _) => String::new(),
        (Some(r), _) => format!(" · {:.0} % of fresh", r.pct_of_fresh),
    };
    let vs_reference = s
        .of_reference
        .map(|r| format!(" · {} of ref", crate::units::format_ratio(r)))
        .unwrap_or_default();
    format!(
        "{} IOPS{share}{vs_reference}",
        crate::units::format_count(s.figures.iops)
    )
}

/// The states of a Vertex 2 experiment as bars (in-service, fresh, faded, recovered: each
/// phase's whole-run IOPS and its share of fresh, as analysis computed them), the picture that
/// opens its report: minute-long phases are invisible on the hours-long timeline.
pub fn states_chart(exp: &Experiment) -> Option<BarChart> {
    let measured = ExperimentStates::of(exp);
    measured.state("fresh")?;
    let run = first_run(exp)?;
    let bars = measured
        .states
        .iter()
        .map(|s| Bar {
            label: s.name.clone(),
            value: s.figures.iops,
            text: state_text(s),
            color: style::state_color(&s.name),
            reference: s.reference_iops,
        })
        .collect();
    let loss = measured.lasting_loss_pct();
    // No bracket when recovery came back to fresh or above it: nothing is lost.
    let bracket = loss
        .filter(|&l| l >= 0.5)
        .zip(measured.state("fresh"))
        .and_then(|(loss, fresh)| {
            let recovered = measured.states.iter().position(|s| s.name == "recovered")?;
            Some(Bracket {
                bar: recovered,
                from: measured.states[recovered].figures.iops,
                to: fresh.figures.iops,
                text: format!("lasting loss {loss:.0} %"),
            })
        });
    let loss = loss
        .map(|l| format!(" · lasting loss after recovery {l:.0} %"))
        .unwrap_or_default();
    Some(BarChart {
        title: format!("States — {}", device_name(run)),
        subtitle: format!(
            "IOPS of each measured phase, whole phase{loss}{}",
            if measured.states.iter().any(|s| s.reference_iops.is_some()) {
                " · hollow circles: the reference set"
            } else {
                ""
            }
        ),
        x_desc: "IOPS".into(),
        bars,
        legend: Vec::new(),
        bracket,
    })
}
