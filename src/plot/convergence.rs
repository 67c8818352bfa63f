//! SNIA PTS's steady-state page as one chart: the convergence plot (IOPS of every round against
//! the total host data written, TGBW, with the measurement window shaded) above the
//! measurement window itself (its rounds, their average, ±10 % and ±20 % of it, and the
//! least-squares line whose excursion is the slope criterion).

use plotters::coord::Shift;
use plotters::prelude::*;

use super::panel::{draw_stacked, Band, BandName, Guide, Line, Panel};
use super::style;
use super::Chart;
use crate::analysis::convergence::Convergence;

/// Everything the steady-state chart shows.
#[derive(Clone, Debug, PartialEq)]
pub struct ConvergenceChart {
    pub title: String,
    pub subtitle: String,
    pub convergence: Convergence,
}

/// The lines under a steady-state chart's title: the verdict and the window's figures against
/// SNIA's limits, and when the level did not hold, the run's last window against it.
pub fn convergence_lines(c: &Convergence) -> Vec<String> {
    let rounds = c.window_rounds();
    let mut lines = vec![format!(
        "{} · window rounds {}–{}: average {} IOPS, range {:.1} % (limit {:.0} %), slope excursion {:.1} % (limit {:.0} %)",
        if c.reached {
            format!("steady at round {}", rounds[rounds.len() - 1].number)
        } else {
            format!("not steady in {} rounds (last window shown)", c.rounds.len())
        },
        rounds[0].number,
        rounds[rounds.len() - 1].number,
        crate::units::format_count(c.average),
        c.range_pct,
        c.max_range_pct,
        c.slope_pct,
        c.max_slope_pct
    )];
    if let Some(last) = &c.did_not_hold {
        let numbers = &c.rounds[last.window.clone()];
        lines.push(format!(
            "did not hold: the last window (rounds {}–{}) averaged {} IOPS ({:+.0} %)",
            numbers[0].number,
            numbers[numbers.len() - 1].number,
            crate::units::format_count(last.average),
            last.drift_pct
        ));
    }
    lines
}

/// [`convergence_lines`] as one line, for a report's caption.
pub fn convergence_caption(c: &Convergence) -> String {
    convergence_lines(c).join("; ")
}

impl ConvergenceChart {
    /// Every round against TGBW, the window shaded.
    fn convergence_panel(&self) -> Panel {
        let c = &self.convergence;
        let gb = |bytes: u64| bytes as f64 / 1e9;
        let end = c.rounds.last().map_or(1.0, |r| gb(r.tgbw_bytes));
        // From one round's writing before the first round's end, or from the start when the
        // rounds before the counted ones (the span's first pass, a preconditioning) are drawn.
        let first = c.rounds.first().map_or(0.0, |r| gb(r.tgbw_bytes));
        let second = c.rounds.get(1).map_or(first, |r| gb(r.tgbw_bytes));
        let start = if c.before.is_empty() {
            (2.0 * first - second).max(0.0)
        } else {
            0.0
        };
        let mut panel = Panel::new("Total host data written, TGBW (GB)", "IOPS", start..end);
        if !c.before.is_empty() {
            panel.lines.push(Line {
                name: "before the rounds count (first pass, preconditioning)".into(),
                legend: true,
                points: c
                    .before
                    .iter()
                    .map(|r| (gb(r.tgbw_bytes), r.iops))
                    .collect(),
                color: style::lighter(style::AVERAGE, 0.55),
                width: 1,
                dots: true,
            });
        }
        panel.lines.push(Line::per_round(
            "IOPS per round",
            true,
            c.rounds
                .iter()
                .map(|r| (gb(r.tgbw_bytes), r.iops))
                .collect(),
        ));
        // A window covers its rounds' points, not the point of the round before it (as the
        // fade and WSAT charts draw it).
        let start = gb(c.rounds[c.window.start].tgbw_bytes);
        let stop = gb(c.rounds[c.window.end - 1].tgbw_bytes);
        panel.bands.push(Band {
            label: "measurement window".into(),
            x: start..stop,
            color: style::STEADY,
            opacity: 0.18,
            name: BandName::Beside,
        });
        if let Some(last) = &c.did_not_hold {
            let start = last.window.start;
            panel.bands.push(Band {
                label: format!(
                    "last window: {} IOPS ({:+.0} %)",
                    crate::units::format_count(last.average),
                    last.drift_pct
                ),
                x: gb(c.rounds[start].tgbw_bytes)..gb(c.rounds[last.window.end - 1].tgbw_bytes),
                color: style::EVENT,
                opacity: 0.15,
                name: BandName::Beside,
            });
        }
        panel
    }

    /// The window's rounds by number, with the average, its bands and the fitted line.
    fn window_panel(&self) -> Panel {
        let c = &self.convergence;
        let rounds = c.window_rounds();
        let (first, last) = (
            rounds[0].number as f64,
            rounds[rounds.len() - 1].number as f64,
        );
        let mut panel = Panel::new(
            "Round (measurement window)",
            "IOPS",
            first - 0.5..last + 0.5,
        );
        panel.x_labels = rounds.len();
        panel.lines.push(Line::per_round(
            "IOPS per round",
            false,
            rounds.iter().map(|r| (r.number as f64, r.iops)).collect(),
        ));
        let level = |label: String, share: f64, color, width, dashed| Guide {
            label,
            from: (first, c.average * share),
            to: (last, c.average * share),
            color,
            width,
            dashed,
        };
        panel.guides = vec![
            level(
                format!("average {} IOPS", crate::units::format_count(c.average)),
                1.0,
                style::PREDICTION,
                2,
                true,
            ),
            level("±10 %".into(), 1.1, style::STEADY, 2, true),
            level(String::new(), 0.9, style::STEADY, 2, true),
            level("±20 %".into(), 1.2, style::FILL, 1, true),
            level(String::new(), 0.8, style::FILL, 1, true),
            Guide {
                label: format!("least-squares line (excursion {:.1} %)", c.slope_pct),
                from: (first, c.line_at(0)),
                to: (last, c.line_at(rounds.len() - 1)),
                color: style::STATE,
                width: 2,
                dashed: false,
            },
        ];
        panel
    }
}

impl Chart for ConvergenceChart {
    fn draw<DB: DrawingBackend>(&self, root: &DrawingArea<DB, Shift>) -> anyhow::Result<()>
    where
        DB::ErrorType: 'static,
    {
        draw_stacked(
            root,
            &self.title,
            &self.subtitle.lines().map(String::from).collect::<Vec<_>>(),
            &self.convergence_panel(),
            &self.window_panel(),
        )
    }
}
