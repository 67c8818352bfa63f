//! The Vertex 2 story (`experiment vertex2`): its figures are the measured states, the fade and
//! the recovery against fresh, the pattern check and the soak's own fade
//! ([`crate::analysis::vertex2`]); its terminal text is the states' table and those lines.

use super::Protocol;
use crate::analysis::vertex2::{Vertex2Figures, STATES};
use crate::analysis::ExperimentStates;
use crate::plot::{Place, ProtocolChart};
use crate::report::{secs, Document};
use crate::results::Experiment;
use crate::text::steady::steady_line;
use crate::units::format_duration;

/// `experiment vertex2`.
pub struct Vertex2;

impl Protocol for Vertex2 {
    type Figures = Vertex2Figures;

    fn names(&self) -> &'static [&'static str] {
        &["vertex2"]
    }

    fn figures(&self, exp: &Experiment) -> Vertex2Figures {
        Vertex2Figures::of(exp, &ExperimentStates::of(exp))
    }

    fn text(&self, v: &Vertex2Figures) -> String {
        text(v)
    }

    fn charts(&self, exp: &Experiment) -> Vec<ProtocolChart> {
        chart(exp).into_iter().collect()
    }

    fn report_under_states(&self, doc: &mut Document, v: &Vertex2Figures) {
        // The soak's own fade, as the terminal gives it under the states.
        let Some(f) = &v.soak.fade else {
            return;
        };
        let half = f
            .half_fade_s
            .map(|s| format!("; half the loss after {}", secs(s)))
            .unwrap_or_default();
        doc.paragraph(format!(
            "Soak (first → last {}): {:.0} → {:.0} IOPS, {}{half}.",
            f.window_text(),
            f.start_iops,
            f.end_iops,
            f.ratio().map_or("-".into(), |r| r.words())
        ));
    }
}

/// The kind's own chart, when its figures have one.
fn chart(exp: &Experiment) -> Option<ProtocolChart> {
    // The states open the report: the timeline cannot show minute-long phases.
    crate::plot::vertex2::states_chart(exp).map(|c| {
        ProtocolChart::new(
            "states",
            "The measured states: each phase's IOPS and its share of fresh",
            Place::Results,
            c,
        )
    })
}

/// The states' table, the reference, fade, recovery, pattern-check and soak lines.
fn text(v: &Vertex2Figures) -> String {
    let mut out = format!(
        "  {:<18} {:>9} {:>9} {:>12} {:>12} {:>10}\n",
        "state", "IOPS", "MB/s", "mean lat", "p99 lat", "vs fresh"
    );
    for (name, key) in STATES {
        let Some(s) = v.states.get(key) else {
            out.push_str(&format!("  {name:<18} {:>9}\n", "-"));
            continue;
        };
        let vs = s.vs_fresh_pct.map_or("-".into(), |v| format!("{v:+.0} %"));
        out.push_str(&format!(
            "  {name:<18} {:>9.0} {:>9.2} {:>12} {:>12} {vs:>10}\n",
            s.iops,
            s.mb_per_s,
            crate::units::format_latency_us(s.avg_lat_us),
            crate::units::format_latency_us(s.p99_lat_us),
        ));
    }
    out.push_str(&reference_text(v));
    let line = |label: &str, text: String| format!("  {label:<28} {text}\n");
    if let Some(f) = v.fade {
        out.push_str(&line("Fade (faded ÷ fresh)", f.words()));
    }
    if let Some(r) = v.recovery {
        out.push_str(&line("Recovery (recovered ÷ fresh)", r.words()));
    }
    if let Some(p) = &v.pattern_check {
        if p.random.iops > 0.0 {
            out.push_str(&line(
                "Repeating / random bytes",
                format!(
                    "{:.0} / {:.0} IOPS ({})",
                    p.repeat.iops,
                    p.random.iops,
                    crate::units::format_ratio(p.repeat_over_random)
                ),
            ));
        }
    }
    if let Some(f) = &v.soak.fade {
        let half = f
            .half_fade_s
            .map(|s| {
                // Its own line, aligned under the figures: the soak line stays within 80 columns.
                format!(
                    "\n{:31}half the loss after {}",
                    "",
                    format_duration(std::time::Duration::from_secs_f64(s))
                )
            })
            .unwrap_or_default();
        out.push_str(&line(
            &format!("Soak (first → last {})", f.window_text()),
            format!(
                "{:.0} → {:.0} IOPS, {}{half}",
                f.start_iops,
                f.end_iops,
                f.ratio().map_or("-".into(), |r| r.words())
            ),
        ));
    }
    if let Some(s) = &v.soak.steady_state {
        out.push_str(&steady_line(s));
    }
    out
}

/// The states against the reference set (`--reference`), when the experiment has one.
fn reference_text(v: &Vertex2Figures) -> String {
    if v.states.values().all(|s| s.reference_iops.is_none()) {
        return String::new();
    }
    let mut out = format!(
        "\n  {:<18} {:>9} {:>10}  {}\n",
        "state", "IOPS", "reference", "measured ÷ reference"
    );
    for (name, key) in STATES {
        let Some(s) = v.states.get(key) else {
            continue;
        };
        out.push_str(&format!(
            "  {name:<18} {:>9.0} {:>10}  {}\n",
            s.iops,
            s.reference_iops.map_or("-".into(), |r| format!("{r:.0}")),
            s.of_reference
                .map_or("-".into(), crate::units::format_ratio)
        ));
    }
    out
}
