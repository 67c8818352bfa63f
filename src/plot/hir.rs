//! SNIA's Host Idle Recovery chart (HIR): above, "IOPS vs Time — All Wait States", one point
//! per round, coloured by the wait state it followed, time in minutes, each burst shaded (a 5 s
//! burst is a few pixels of a half-hour axis); below, the bursts alone: IOPS of each burst
//! against the idle time before it, beside the baseline the drive returns to.

use plotters::coord::Shift;
use plotters::prelude::*;

use super::experiment::device_name;
use super::panel::{Band, BandName, Line, Panel};
use super::style;
use super::Chart;
use crate::analysis::{self, Figures};
use crate::results::{Experiment, Status};

/// One HIR round: when it ended, its IOPS, and the wait state it belongs to (e.g. "5 s wait").
#[derive(Clone, Debug, PartialEq)]
pub struct HirPoint {
    pub t_s: f64,
    pub iops: f64,
    pub wait_state: String,
    /// The idle time before it, seconds, when the point is a burst.
    pub idle_s: Option<f64>,
}

/// Everything the HIR chart shows.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct HirChart {
    pub title: String,
    pub subtitle: String,
    pub points: Vec<HirPoint>,
    /// The baseline the drive returns to (`analysis::hir::HirFigures::baseline_iops`).
    pub baseline_iops: Option<f64>,
}

impl Chart for HirChart {
    fn draw<DB: DrawingBackend>(&self, root: &DrawingArea<DB, Shift>) -> anyhow::Result<()>
    where
        DB::ErrorType: 'static,
    {
        root.fill(&WHITE)?;
        let body = style::header(root, &self.title, std::slice::from_ref(&self.subtitle))?;
        let end = self.points.last().map_or(1.0, |p| p.t_s / 60.0);
        let mut panel = Panel::new("Time (min)", "IOPS", 0.0..end);
        let states = self.wait_states();
        for (i, state) in states.iter().enumerate() {
            panel.lines.push(Line {
                name: (*state).to_string(),
                legend: true,
                points: self
                    .points
                    .iter()
                    .filter(|p| p.wait_state == *state)
                    .map(|p| (p.t_s / 60.0, p.iops))
                    .collect(),
                color: style::palette(i),
                width: 0,
                dots: true,
            });
        }
        // Each burst shaded over its length, at least 0.4 % of the axis wide so that it shows.
        let min_width = 0.004 * end;
        let burst_min = crate::results::experiment::HIR_BURST.as_secs_f64() / 60.0;
        for (p, i) in self.points.iter().filter_map(|p| {
            let state = states.iter().position(|s| *s == p.wait_state)?;
            p.idle_s.map(|_| (p, state))
        }) {
            let width = burst_min.max(min_width);
            let t = p.t_s / 60.0;
            panel.bands.push(Band {
                label: String::new(),
                x: (t - width).max(0.0)..t,
                color: style::palette(i),
                opacity: 0.35,
                name: BandName::Inside,
            });
        }
        if !self.points.iter().any(|p| p.idle_s.is_some()) {
            return panel.draw(&body);
        }
        let (top, bottom) = body.split_vertically(body.dim_in_pixel().1 * 3 / 5);
        panel.draw(&top)?;
        self.bursts_panel().draw(&bottom)
    }
}

impl HirChart {
    /// One series per wait state: those that are no burst (preconditioning, baseline) first in
    /// the order they appear, then the bursts' by their idle time, shortest first — the legend's
    /// order.
    fn wait_states(&self) -> Vec<&str> {
        let mut states: Vec<(Option<f64>, &str)> = Vec::new();
        for p in &self.points {
            if !states.iter().any(|s| s.1 == p.wait_state) {
                states.push((p.idle_s, &p.wait_state));
            }
        }
        // Stable: None sorts before every idle time and keeps the order of appearance.
        states.sort_by(|a, b| a.0.partial_cmp(&b.0).unwrap_or(std::cmp::Ordering::Equal));
        states.into_iter().map(|s| s.1).collect()
    }

    /// The bursts alone: IOPS against the idle time before each, and the baseline (the median
    /// of the returns, as the report gives it) for reference.
    fn bursts_panel(&self) -> Panel {
        let bursts: Vec<(f64, f64)> = self
            .points
            .iter()
            .filter_map(|p| Some((p.idle_s?, p.iops)))
            .collect();
        let longest = bursts.iter().map(|b| b.0).fold(0.0, f64::max);
        let mut panel = Panel::new(
            "Idle time before the burst (s)",
            "Burst IOPS",
            0.0..longest * 1.1,
        );
        if let Some(baseline) = self.baseline_iops {
            panel.lines.push(Line {
                name: format!(
                    "baseline, median of the returns: {} IOPS",
                    crate::units::format_count(baseline)
                ),
                legend: true,
                points: vec![(0.0, baseline), (longest * 1.1, baseline)],
                color: style::FILL,
                width: 2,
                dots: false,
            });
        }
        panel.lines.push(Line {
            name: "each burst".into(),
            legend: true,
            points: bursts,
            color: style::palette(1),
            width: 0,
            dots: true,
        });
        panel
    }
}

/// SNIA's "IOPS vs Time — all wait states" chart of a host-idle-recovery experiment: each
/// burst's IOPS coloured by the idle gap before it, the returns to baseline, and the end of
/// preconditioning (its steady-state window) for reference. Time includes the idle gaps and
/// starts where the steady-state window starts.
pub fn hir_chart(exp: &Experiment) -> Option<HirChart> {
    let mut points = Vec::new();
    let mut t = 0.0;
    let mut started = false;
    let mut first = None;
    for phase in &exp.phases {
        let name = &phase.record.phase.name;
        if let Some(idle) = phase.record.idle_seconds() {
            if phase.record.status == Status::Completed && started {
                t += idle;
            }
            continue;
        }
        let Some(run) = &phase.run else { continue };
        if name == "precondition" {
            let window_start = analysis::SteadyWindow::of(run).map_or_else(
                || run.samples.first().map_or(0.0, |s| s.t_start_s),
                |w| w.start_s,
            );
            // A partial last interval (the phase stopped once steady) is no round.
            let drawn = analysis::drawn_intervals(&run.samples, run.info.workload.interval);
            for s in drawn.iter().filter(|s| s.t_start_s >= window_start) {
                points.push(HirPoint {
                    t_s: s.t_end_s - window_start,
                    iops: s.iops,
                    wait_state: "preconditioning".into(),
                    idle_s: None,
                });
            }
            t = run.samples.last().map_or(0.0, |s| s.t_end_s) - window_start;
            started = true;
            first.get_or_insert(run);
            continue;
        }
        if !started {
            continue; // purge and fill: before the test proper
        }
        let Some(b) = run.samples.last() else {
            continue;
        };
        let idle_s = match name.split_once('-') {
            Some((ws, rest)) if rest.starts_with("burst") => {
                ws.trim_start_matches("ws").parse::<f64>().ok()
            }
            _ => None,
        };
        let label = idle_s.map_or_else(|| "baseline".into(), |s| format!("{s} s idle"));
        // A burst is one point; a return to baseline one point per burst length, as SNIA plots.
        let chunk = if label == "baseline" {
            (crate::results::experiment::HIR_BURST.as_secs_f64()
                / run.info.workload.interval.as_secs_f64())
            .round()
            .max(1.0) as usize
        } else {
            run.samples.len()
        };
        for part in run.samples.chunks(chunk) {
            let f = Figures::of_samples(part);
            if f.seconds > 0.0 {
                points.push(HirPoint {
                    t_s: t + part[part.len() - 1].t_end_s,
                    iops: f.iops,
                    wait_state: label.clone(),
                    idle_s,
                });
            }
        }
        t += b.t_end_s;
    }
    let run = first?;
    let w = &run.info.workload;
    Some(HirChart {
        title: format!("Host idle recovery (SNIA HIR) — {}", device_name(run)),
        subtitle: format!(
            "{}, {} % random, {} % read, QD{} · one point per {} s burst (shaded); time includes the idle gaps",
            crate::units::format_bytes(w.bs),
            w.random_pct,
            w.read_pct,
            w.qd,
            crate::results::experiment::HIR_BURST.as_secs()
        ),
        points,
        baseline_iops: crate::analysis::hir::HirFigures::of(&exp.record).baseline_iops,
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    fn point(t_s: f64, wait_state: &str, idle_s: Option<f64>) -> HirPoint {
        HirPoint {
            t_s,
            iops: 1000.0,
            wait_state: wait_state.into(),
            idle_s,
        }
    }

    #[test]
    fn the_legend_lists_preconditioning_and_baseline_before_the_wait_states_by_length() {
        // As an HIR run records them: a burst, its return to baseline, a longer burst, …
        let chart = HirChart {
            points: vec![
                point(10.0, "preconditioning", None),
                point(20.0, "5 s idle", Some(5.0)),
                point(30.0, "baseline", None),
                point(40.0, "10 s idle", Some(10.0)),
                point(50.0, "baseline", None),
                point(60.0, "5 s idle", Some(5.0)),
                point(70.0, "2 s idle", Some(2.0)),
            ],
            ..HirChart::default()
        };
        assert_eq!(
            chart.wait_states(),
            [
                "preconditioning",
                "baseline",
                "2 s idle",
                "5 s idle",
                "10 s idle"
            ]
        );
    }
}
