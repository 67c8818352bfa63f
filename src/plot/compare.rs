//! The compare overlay: one IOPS line per run against elapsed time (each run as long as it
//! ran, its length in the legend) over every run's intervals as a translucent min–max band,
//! and below the same runs' moving averages as a percentage of each run's own fresh level, so a 60k-IOPS
//! drive does not flatten the 6k ones.

use plotters::coord::Shift;
use plotters::prelude::*;

use super::downsample::{average_window, envelope, min_max, moving_average, MAX_BUCKETS};
use super::panel::{draw_stacked, Envelope, Line, Panel};
use super::style::{self, time_unit};
use super::Chart;

/// One run on the overlay: its legend label, its (elapsed seconds, IOPS) per interval and its
/// fresh level (the fade's first-window median, for the relative panel; none for a paced run,
/// which has no fade).
#[derive(Clone, Debug, PartialEq)]
pub struct CompareRun {
    pub label: String,
    pub points: Vec<(f64, f64)>,
    /// The IOPS the relative panel calls 100 %; None leaves the run out of it.
    pub fresh_iops: Option<f64>,
}

/// Everything the compare chart shows.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct CompareChart {
    pub title: String,
    /// The lines under the title.
    pub subtitle: Vec<String>,
    pub runs: Vec<CompareRun>,
}

impl CompareChart {
    /// A panel of every run's moving average against time, y picked by `y`; with `raw`, each
    /// run's intervals (their min–max per pixel column) as a translucent band under every
    /// run's average, so no run's band hides another run's band or line.
    fn panel(
        &self,
        y_desc: &str,
        y: impl Fn(&CompareRun, f64) -> Option<f64>,
        legend: bool,
        raw: bool,
    ) -> Panel {
        let end = self
            .runs
            .iter()
            .filter_map(|r| r.points.last().map(|p| p.0))
            .fold(0.0, f64::max)
            .max(f64::MIN_POSITIVE);
        let unit = time_unit(end);
        let mut panel = Panel::new(
            format!("Elapsed time ({})", unit.name),
            y_desc,
            0.0..end / unit.seconds,
        );
        let mut averages = Vec::new();
        for (i, run) in self.runs.iter().enumerate() {
            let points: Vec<(f64, f64)> = run
                .points
                .iter()
                .filter_map(|&(t, iops)| Some((t, y(run, iops)?)))
                .collect();
            if points.is_empty() {
                continue;
            }
            let color = style::palette(i);
            let scaled = |p: &[(f64, f64)]| -> Vec<(f64, f64)> {
                p.iter().map(|&(t, v)| (t / unit.seconds, v)).collect()
            };
            let span = points.last().map_or(0.0, |p| p.0) - points[0].0;
            let step = span / points.len().max(1) as f64;
            let window = average_window(span, step);
            if raw {
                panel.envelopes.push(Envelope {
                    name: format!("{} per interval", run.label),
                    points: envelope(&scaled(&points), MAX_BUCKETS),
                    color,
                });
            }
            let length = crate::units::format_duration(std::time::Duration::from_secs_f64(
                run.points.last().map_or(0.0, |p| p.0).max(0.0),
            ));
            averages.push(Line {
                name: format!("{} ({length})", run.label),
                legend,
                points: min_max(
                    &scaled(&window.map_or_else(|| points.clone(), |w| moving_average(&points, w))),
                    MAX_BUCKETS,
                ),
                color,
                width: 3,
                dots: false,
            });
        }
        panel.lines.extend(averages);
        panel
    }
}

impl Chart for CompareChart {
    fn draw<DB: DrawingBackend>(&self, root: &DrawingArea<DB, Shift>) -> anyhow::Result<()>
    where
        DB::ErrorType: 'static,
    {
        let top = self.panel("IOPS", |_, v| Some(v), true, true);
        // The moving averages alone: one interval's burst at 4× the fresh level would set the
        // axis to 400 % and flatten every fade.
        let bottom = self.panel(
            "% of the run's fresh IOPS (moving average)",
            |r, v| r.fresh_iops.filter(|f| *f > 0.0).map(|f| 100.0 * v / f),
            false,
            false,
        );
        draw_stacked(root, &self.title, &self.subtitle, &top, &bottom)
    }
}
