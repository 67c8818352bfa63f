//! SNIA's Write Saturation test chart (WSAT): one point per round, IOPS against time and against
//! total host gigabytes written (TGBW), with the steady-state window when one was reached.

use plotters::coord::Shift;
use plotters::prelude::*;

use super::experiment::device_name;
use super::fade::SteadyWindow;
use super::panel::{draw_stacked, Band, BandName, Line, Panel};
use super::style::{self, time_unit};
use super::Chart;
use crate::analysis;
use crate::results::{workload_line, Experiment};

/// One WSAT round: when it ended, its IOPS, and the host bytes written up to its end.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct WsatRound {
    pub t_s: f64,
    pub iops: f64,
    pub bytes_written: u64,
}

/// Everything the WSAT chart shows.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct WsatChart {
    pub title: String,
    pub subtitle: String,
    pub rounds: Vec<WsatRound>,
    pub steady: Option<SteadyWindow>,
}

impl WsatChart {
    fn panel(
        &self,
        legend: bool,
        x_desc: String,
        x: impl Fn(&WsatRound) -> f64,
        steady_x: impl Fn(f64) -> f64,
    ) -> Panel {
        let end = self.rounds.last().map_or(1.0, &x);
        let mut panel = Panel::new(x_desc, "IOPS", 0.0..end);
        panel.lines.push(Line::per_round(
            "IOPS per round",
            legend,
            self.rounds.iter().map(|r| (x(r), r.iops)).collect(),
        ));
        if let Some(w) = &self.steady {
            let (start, end) = w.drawn_span(self.rounds.iter().map(|r| r.t_s));
            panel.bands.push(Band {
                label: w.legend("IOPS"),
                x: steady_x(start)..steady_x(end),
                color: style::STEADY,
                opacity: 0.18,
                name: if legend {
                    BandName::Legend
                } else {
                    BandName::Elsewhere
                },
            });
        }
        panel
    }

    /// TGBW at the end of the round that ends at or after `t_s`.
    fn gb_at(&self, t_s: f64) -> f64 {
        let i = self.rounds.partition_point(|r| r.t_s < t_s);
        self.rounds
            .get(i)
            .or(self.rounds.last())
            .map_or(0.0, |r| r.bytes_written as f64 / 1e9)
    }
}

impl Chart for WsatChart {
    fn draw<DB: DrawingBackend>(&self, root: &DrawingArea<DB, Shift>) -> anyhow::Result<()>
    where
        DB::ErrorType: 'static,
    {
        let unit = time_unit(self.rounds.last().map_or(1.0, |r| r.t_s));
        let top = self.panel(
            true,
            format!("Time ({})", unit.name),
            |r| r.t_s / unit.seconds,
            |t| t / unit.seconds,
        );
        let bottom = self.panel(
            false,
            "Total host data written, TGBW (GB)".into(),
            |r| r.bytes_written as f64 / 1e9,
            |t| self.gb_at(t),
        );
        draw_stacked(
            root,
            &self.title,
            std::slice::from_ref(&self.subtitle),
            &top,
            &bottom,
        )
    }
}

/// SNIA's WSAT chart of a write-saturation experiment: one point per round of its `wsat`
/// phase, against time and against host data written.
pub fn wsat_chart(exp: &Experiment) -> Option<WsatChart> {
    let run = exp
        .phases
        .iter()
        .find(|p| p.record.phase.name == "wsat")?
        .run
        .as_ref()?;
    Some(WsatChart {
        title: format!("Write saturation (SNIA WSAT) — {}", device_name(run)),
        subtitle: workload_line(&run.info.workload),
        // A partial last round (the byte budget reached mid-round) is not a round.
        rounds: analysis::wsat::WsatFigures::of(exp)
            .rounds
            .iter()
            .map(|r| WsatRound {
                t_s: r.t_end_s,
                iops: r.iops,
                bytes_written: r.tgbw_bytes,
            })
            .collect(),
        steady: super::run_dir::steady_window(run),
    })
}
