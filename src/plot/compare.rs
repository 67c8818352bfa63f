//! The compare overlay: one IOPS line per run against the share of its run elapsed, so runs of
//! different lengths line up from start to end.

use plotters::coord::Shift;
use plotters::prelude::*;

use super::downsample::{average_window, min_max, moving_average, MAX_BUCKETS};
use super::panel::{Line, Panel};
use super::style;
use super::Chart;

/// One run on the overlay: its legend label and its (elapsed seconds, IOPS) per interval.
#[derive(Clone, Debug, PartialEq)]
pub struct CompareRun {
    pub label: String,
    pub points: Vec<(f64, f64)>,
}

/// Everything the compare chart shows.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct CompareChart {
    pub title: String,
    pub subtitle: String,
    pub runs: Vec<CompareRun>,
}

impl Chart for CompareChart {
    fn draw<DB: DrawingBackend>(&self, root: &DrawingArea<DB, Shift>) -> anyhow::Result<()>
    where
        DB::ErrorType: 'static,
    {
        root.fill(&WHITE)?;
        let body = style::header(root, &self.title, std::slice::from_ref(&self.subtitle))?;
        let mut panel = Panel::new("Share of the run elapsed (%)", "IOPS", 0.0..100.0);
        for (i, run) in self.runs.iter().enumerate() {
            let end = run
                .points
                .last()
                .map_or(1.0, |p| p.0)
                .max(f64::MIN_POSITIVE);
            let share: Vec<(f64, f64)> = run
                .points
                .iter()
                .map(|&(t, iops)| (100.0 * t / end, iops))
                .collect();
            let color = style::palette(i);
            let window = average_window(100.0, 100.0 / share.len().max(1) as f64);
            panel.lines.push(Line {
                label: None,
                points: min_max(&share, MAX_BUCKETS),
                color: style::lighter(color, 0.65),
                width: 1,
                dots: false,
            });
            panel.lines.push(Line {
                label: Some(match window {
                    Some(w) => format!("{} (moving average over {w:.0} %)", run.label),
                    None => run.label.clone(),
                }),
                points: min_max(
                    &window.map_or_else(|| share.clone(), |w| moving_average(&share, w)),
                    MAX_BUCKETS,
                ),
                color,
                width: 3,
                dots: false,
            });
        }
        panel.draw(&body)
    }
}
