//! SNIA PTS write saturation (`experiment wsat`): its figures are the rounds and the steady
//! state ([`crate::analysis::wsat`]); its terminal text is the rounds' table.

use std::time::Duration;

use super::Protocol;
use crate::analysis::wsat::WsatFigures;
use crate::plot::{KindCharts, Place, ProtocolChart};
use crate::report::Document;
use crate::results::Experiment;
use crate::text::steady::steady_line;
use crate::units::format_duration;

/// `experiment wsat`.
pub struct Wsat;

impl Protocol for Wsat {
    type Figures = WsatFigures;

    fn names(&self) -> &'static [&'static str] {
        &["wsat"]
    }

    fn figures(&self, exp: &Experiment) -> WsatFigures {
        WsatFigures::of(exp)
    }

    fn text(&self, f: &WsatFigures) -> String {
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
        crate::report::wsat::add_summary(doc, f);
        Ok(true)
    }

    fn report_tables(
        &self,
        doc: &mut Document,
        exp: &Experiment,
        _figures: &Self::Figures,
        _charts: &KindCharts,
    ) -> anyhow::Result<()> {
        crate::report::wsat::add(doc, exp);
        Ok(())
    }
}

/// The kind's own chart, when its figures have one.
fn chart(exp: &Experiment) -> Option<ProtocolChart> {
    crate::plot::wsat::wsat_chart(exp).map(|c| {
        ProtocolChart::new(
            "wsat",
            "SNIA WSAT: IOPS per round against time and against total host data written",
            Place::Charts,
            c,
        )
    })
}

/// The rounds' table: at most 16 rounds, evenly spread and always the first and the last.
fn summary_text(w: &WsatFigures) -> String {
    let mut out = format!(
        "  {:>6} {:>10} {:>10} {:>12} {:>12}\n",
        "round", "time", "IOPS", "TGBW GB", "drive fills"
    );
    let n = w.rounds.len();
    let step = n.div_ceil(16).max(1);
    for (i, r) in w.rounds.iter().enumerate() {
        if i % step != 0 && i + 1 != n {
            continue;
        }
        out.push_str(&format!(
            "  {:>6} {:>10} {:>10.0} {:>12.1} {:>12.2}\n",
            i + 1,
            format_duration(Duration::from_secs_f64(r.t_end_s.max(0.0))),
            r.iops,
            r.tgbw_bytes as f64 / 1e9,
            r.drive_fills
        ));
    }
    if let Some(p) = &w.partial_round {
        out.push_str(&format!(
            "  and a partial last round of {:.1} s ({:.0} IOPS, {:.2} drive fills by its end),\n  not counted as a round\n",
            p.seconds, p.iops, p.drive_fills
        ));
    }
    if let Some(first) = w.rounds.first() {
        out.push_str(&crate::text::wrap(
            &crate::text::steady::rounds_judged(
                n,
                first.seconds,
                w.steady_state.as_ref().map(|s| s.rounds),
            ),
            78,
            "  ",
            "    ",
        ));
    }
    if let Some(s) = &w.steady_state {
        out.push_str(&steady_line(s));
    }
    out
}
