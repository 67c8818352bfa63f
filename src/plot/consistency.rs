//! The consistency scatter reviewers draw: the IOPS of every interval as a dot against elapsed
//! time, not averaged, so a drive that holds its rate reads as a thin line and one that stutters
//! as a cloud. Four panels: the whole run on a linear and on a log y axis, then the hour around
//! the cliff (where the IOPS first fell halfway to the faded level) and the last 30 minutes,
//! each zoomed to its own span.

use std::collections::HashSet;
use std::ops::Range;

use plotters::coord::Shift;
use plotters::prelude::*;

use plotters::coord::ranged1d::ValueFormatter;
use plotters::coord::types::RangedCoordf64;

use super::latency::log_ticks;
use super::style::{self, time_unit, TimeUnit};
use super::Chart;

/// The cliff's zoom: this many seconds centred on the cliff.
const CLIFF_SPAN_S: f64 = 3600.0;
/// The end's zoom: the last this many seconds.
const END_SPAN_S: f64 = 1800.0;
/// A run shorter than this has no zoomed panels: they would show what the whole run shows.
const ZOOM_FROM_S: f64 = 2.0 * CLIFF_SPAN_S;

/// Dots closer than this many pixels are drawn once: a dot is 4 px across.
const CELL: i32 = 3;

/// Everything the consistency chart shows.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct ConsistencyChart {
    pub title: String,
    pub subtitle: String,
    /// (elapsed seconds at the interval's end, IOPS) per full interval.
    pub points: Vec<(f64, f64)>,
    /// Elapsed seconds at which the IOPS first fell halfway to the faded level; None when the
    /// run did not fade.
    pub cliff_s: Option<f64>,
}

/// One panel: its name, the span of elapsed seconds it shows and whether its y axis is log.
struct View {
    name: String,
    span: Range<f64>,
    log: bool,
}

impl ConsistencyChart {
    /// The panels drawn: the whole run linear and log; for a run of two hours or more, the
    /// cliff's hour (when it faded) and the last 30 minutes.
    fn views(&self) -> Vec<View> {
        let end = self.points.last().map_or(1.0, |p| p.0).max(1e-9);
        let mut views = vec![
            View {
                name: "Whole run".into(),
                span: 0.0..end,
                log: false,
            },
            View {
                name: "Whole run, log scale".into(),
                span: 0.0..end,
                log: true,
            },
        ];
        if end >= ZOOM_FROM_S {
            if let Some(cliff) = self.cliff_s {
                let start = (cliff - CLIFF_SPAN_S / 2.0).clamp(0.0, end - CLIFF_SPAN_S);
                views.push(View {
                    name: "The cliff's hour".into(),
                    span: start..start + CLIFF_SPAN_S,
                    log: false,
                });
            }
            views.push(View {
                name: "Last 30 minutes".into(),
                span: end - END_SPAN_S..end,
                log: false,
            });
        }
        views
    }

    /// Draws `view` into `area`: every interval in its span as a dot, one per cell of
    /// [`CELL`] pixels it lands in (a day at 1 s is 86 400 intervals; the picture, and an
    /// inline SVG, stay small). A log y axis is ticked at 1-2-5 values.
    fn draw_view<DB: DrawingBackend>(
        &self,
        area: &DrawingArea<DB, Shift>,
        view: &View,
    ) -> anyhow::Result<()>
    where
        DB::ErrorType: 'static,
    {
        let shown: Vec<(f64, f64)> = self
            .points
            .iter()
            .copied()
            .filter(|p| view.span.contains(&p.0) || p.0 == view.span.end)
            .filter(|p| p.1.is_finite() && (!view.log || p.1 > 0.0))
            .collect();
        let unit = time_unit(view.span.end - view.span.start);
        let x = view.span.start / unit.seconds..view.span.end / unit.seconds;
        let top = shown.iter().map(|p| p.1).fold(0.0, f64::max);
        let mut builder = ChartBuilder::on(area);
        builder
            .caption(&view.name, style::axis_desc_font())
            .margin(8)
            .margin_right(24)
            .x_label_area_size(50)
            .y_label_area_size(80);
        if view.log {
            let low = shown.iter().map(|p| p.1).fold(f64::INFINITY, f64::min);
            let (low, high) = if top > 0.0 { (low, top) } else { (1.0, 10.0) };
            let y = low / 1.5..high * 1.5;
            let ticks = log_ticks(y.start.log10(), y.end.log10());
            let chart =
                builder.build_cartesian_2d(x, y.clone().log_scale().with_key_points(ticks))?;
            draw_dots(chart, view, unit, &shown, "IOPS (log)", &|v| {
                style::count_tick(v, y.end)
            })
        } else {
            let y_top = if top > 0.0 { top * 1.1 } else { 1.0 };
            let chart = builder.build_cartesian_2d(x, 0.0..y_top)?;
            draw_dots(chart, view, unit, &shown, "IOPS", &|v| {
                style::count_tick(v, y_top)
            })
        }
    }
}

/// Draws the mesh of `chart`, labelling y with `y_label`, and the dots of `shown` (elapsed
/// seconds, IOPS) on it, one per cell of [`CELL`] pixels; records what it drew.
fn draw_dots<DB, Y>(
    mut chart: ChartContext<'_, DB, Cartesian2d<RangedCoordf64, Y>>,
    view: &View,
    unit: TimeUnit,
    shown: &[(f64, f64)],
    y_desc: &str,
    y_label: &dyn Fn(f64) -> String,
) -> anyhow::Result<()>
where
    DB: DrawingBackend,
    DB::ErrorType: 'static,
    Y: Ranged<ValueType = f64> + ValueFormatter<f64>,
{
    chart
        .configure_mesh()
        .x_desc(format!("Elapsed time ({})", unit.name))
        .y_desc(y_desc)
        .x_labels(8)
        .y_labels(6)
        .x_label_formatter(&|v| style::plain_label(*v))
        .y_label_formatter(&|v| y_label(*v))
        .label_style(style::tick_font_of(16.0))
        .axis_desc_style(style::tick_font_of(18.0))
        .bold_line_style(BLACK.mix(0.10))
        .light_line_style(WHITE.mix(0.0))
        .draw()?;
    super::drawn::chart_panel(&chart, &format!("elapsed time ({})", unit.name), y_desc);
    let mut pixels = HashSet::new();
    let dots: Vec<(f64, f64)> = shown
        .iter()
        .map(|&(t, iops)| (t / unit.seconds, iops))
        .filter(|p| {
            let (x, y) = chart.backend_coord(p);
            pixels.insert((x / CELL, y / CELL))
        })
        .collect();
    super::drawn::series(&view.name, "IOPS", &dots);
    chart.draw_series(
        dots.into_iter()
            .map(|p| Circle::new(p, 2, style::AVERAGE.mix(0.7).filled())),
    )?;
    Ok(())
}

impl Chart for ConsistencyChart {
    fn draw<DB: DrawingBackend>(&self, root: &DrawingArea<DB, Shift>) -> anyhow::Result<()>
    where
        DB::ErrorType: 'static,
    {
        root.fill(&WHITE)?;
        let body = style::header(root, &self.title, std::slice::from_ref(&self.subtitle))?;
        let views = self.views();
        let rows = views.len().div_ceil(2);
        let areas = body.split_evenly((rows, 2));
        for (view, area) in views.iter().zip(&areas) {
            self.draw_view(area, view)?;
        }
        Ok(())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A day at 1 s that falls from 7000 to 2000 IOPS at 3 h: four panels (whole run linear
    /// and log, the cliff's hour from 2.5 h, the last 30 min), and no more dots than pixels.
    #[test]
    fn a_day_has_four_panels_and_a_dot_per_cell_at_most() {
        let points: Vec<(f64, f64)> = (1..=86_400)
            .map(|i| {
                let t = f64::from(i);
                let wobble = f64::from(i % 7) * 50.0;
                (t, if t < 3.0 * 3600.0 { 7000.0 } else { 2000.0 } + wobble)
            })
            .collect();
        let chart = ConsistencyChart {
            points,
            cliff_s: Some(3.0 * 3600.0),
            ..Default::default()
        };
        let views = chart.views();
        let names: Vec<&str> = views.iter().map(|v| v.name.as_str()).collect();
        assert_eq!(
            names,
            [
                "Whole run",
                "Whole run, log scale",
                "The cliff's hour",
                "Last 30 minutes"
            ]
        );
        assert_eq!(views[2].span, 2.5 * 3600.0..3.5 * 3600.0);
        let svg = chart.svg().unwrap();
        let dots = svg.matches("<circle").count();
        assert!(dots > 1000 && dots < 15_000, "{dots} dots");
        assert!(super::super::svg_texts(&svg)
            .iter()
            .any(|t| t == "IOPS (log)"));
    }

    /// A 10-minute run: the whole run twice, no zoom that would repeat it.
    #[test]
    fn a_short_run_has_no_zoomed_panels() {
        let chart = ConsistencyChart {
            points: (1..=600).map(|i| (f64::from(i), 5000.0)).collect(),
            cliff_s: Some(300.0),
            ..Default::default()
        };
        assert_eq!(chart.views().len(), 2);
    }
}
