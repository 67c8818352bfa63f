//! One linear chart panel (y from zero) with everything the fade, WSAT, HIR and compare charts
//! put on it: lines or dotted series with legend entries, shaded named bands (phases, the
//! steady-state window), labelled vertical markers (erase events, drive fills) and labelled
//! level segments (measured states).

use std::ops::Range;

use plotters::coord::Shift;
use plotters::prelude::*;
use plotters::style::text_anchor::{HPos, Pos, VPos};
use plotters::style::RGBColor;

use super::style;

/// A series of points.
pub struct Line {
    /// Legend entry; None keeps it out of the legend.
    pub label: Option<String>,
    pub points: Vec<(f64, f64)>,
    pub color: RGBColor,
    /// Line width in pixels; 0 draws the dots alone.
    pub width: u32,
    /// Draw a dot at every point (SNIA's one point per round) as well as the line.
    pub dots: bool,
}

/// A shaded span of x with its name written at the top.
pub struct Band {
    pub label: String,
    pub x: Range<f64>,
    pub color: RGBColor,
    pub opacity: f64,
}

/// A vertical line at `x` with a label at the top (or near the x axis when `low`).
pub struct Marker {
    pub label: String,
    pub x: f64,
    pub color: RGBColor,
    pub low: bool,
}

/// A horizontal segment at level `y` over `x`, labelled above its start.
pub struct Level {
    pub label: String,
    pub x: Range<f64>,
    pub y: f64,
    pub color: RGBColor,
}

/// Everything on one panel.
pub struct Panel {
    pub x_desc: String,
    pub y_desc: String,
    pub x: Range<f64>,
    pub lines: Vec<Line>,
    pub bands: Vec<Band>,
    pub markers: Vec<Marker>,
    pub levels: Vec<Level>,
}

impl Panel {
    /// An empty panel over `x`.
    pub fn new(x_desc: impl Into<String>, y_desc: impl Into<String>, x: Range<f64>) -> Panel {
        Panel {
            x_desc: x_desc.into(),
            y_desc: y_desc.into(),
            x,
            lines: Vec::new(),
            bands: Vec::new(),
            markers: Vec::new(),
            levels: Vec::new(),
        }
    }

    /// The highest y of any line or level.
    fn y_peak(&self) -> f64 {
        let lines = self.lines.iter().flat_map(|l| l.points.iter().map(|p| p.1));
        let levels = self.levels.iter().map(|l| l.y);
        lines
            .chain(levels)
            .filter(|y| y.is_finite())
            .fold(0.0, f64::max)
    }

    /// Draws the panel into `area`.
    pub fn draw<DB: DrawingBackend>(&self, area: &DrawingArea<DB, Shift>) -> anyhow::Result<()>
    where
        DB::ErrorType: 'static,
    {
        let peak = self.y_peak();
        // Headroom for the band and marker names along the top and the level labels.
        let y_max = if peak > 0.0 { peak * 1.22 } else { 1.0 };
        let x = if self.x.end > self.x.start {
            self.x.clone()
        } else {
            self.x.start..self.x.start + 1.0
        };
        let mut chart = ChartBuilder::on(area)
            .margin_left(12)
            .margin_right(36)
            .margin_top(8)
            .margin_bottom(4)
            .x_label_area_size(58)
            .y_label_area_size(96)
            .build_cartesian_2d(x.clone(), 0f64..y_max)?;
        chart
            .configure_mesh()
            .x_desc(self.x_desc.as_str())
            .y_desc(self.y_desc.as_str())
            .x_labels(12)
            .y_labels(6)
            .x_label_formatter(&|v| style::plain_label(*v))
            .y_label_formatter(&|v| style::count_label(*v))
            .label_style(style::tick_font())
            .axis_desc_style(style::axis_desc_font())
            .bold_line_style(BLACK.mix(0.10))
            .light_line_style(WHITE.mix(0.0))
            .draw()?;

        for band in &self.bands {
            let (x0, x1) = (band.x.start.max(x.start), band.x.end.min(x.end));
            chart.draw_series(std::iter::once(Rectangle::new(
                [(x0, 0.0), (x1, y_max)],
                band.color.mix(band.opacity).filled(),
            )))?;
            chart.draw_series(std::iter::once(
                EmptyElement::at((x0, y_max))
                    + Text::new(band.label.clone(), (5, 5), style::note_font(band.color)),
            ))?;
        }
        for marker in &self.markers {
            chart.draw_series(std::iter::once(PathElement::new(
                vec![(marker.x, 0.0), (marker.x, y_max)],
                marker.color.stroke_width(2),
            )))?;
            let (y, dy) = if marker.low { (0.0, -26) } else { (y_max, 26) };
            chart.draw_series(std::iter::once(
                EmptyElement::at((marker.x, y))
                    + Text::new(
                        marker.label.clone(),
                        (5, dy),
                        style::note_font(marker.color),
                    ),
            ))?;
        }
        for line in &self.lines {
            let color = line.color;
            let legend = move |(x, y): (i32, i32)| {
                PathElement::new(vec![(x, y), (x + 24, y)], color.stroke_width(4))
            };
            if line.width > 0 {
                let series = chart.draw_series(LineSeries::new(
                    line.points.iter().copied(),
                    color.stroke_width(line.width),
                ))?;
                if let Some(label) = &line.label {
                    series.label(label.as_str()).legend(legend);
                }
            }
            if line.dots {
                let series = chart.draw_series(
                    line.points
                        .iter()
                        .map(|&p| Circle::new(p, 3, color.filled())),
                )?;
                if let (Some(label), 0) = (&line.label, line.width) {
                    series.label(label.as_str()).legend(legend);
                }
            }
        }
        for level in &self.levels {
            let color = level.color;
            if level.x.end > level.x.start {
                chart.draw_series(std::iter::once(PathElement::new(
                    vec![(level.x.start, level.y), (level.x.end, level.y)],
                    color.stroke_width(4),
                )))?;
            }
            chart.draw_series(std::iter::once(Circle::new(
                (level.x.start, level.y),
                6,
                color.filled(),
            )))?;
            // Labels in the right quarter read leftwards so they stay inside the plot.
            let near_right = level.x.start > x.start + 0.75 * (x.end - x.start);
            let (dx, anchor) = if near_right {
                (-8, HPos::Right)
            } else {
                (8, HPos::Left)
            };
            chart.draw_series(std::iter::once(
                EmptyElement::at((level.x.start, level.y))
                    + Text::new(
                        level.label.clone(),
                        (dx, -26),
                        style::note_font(color).pos(Pos::new(anchor, VPos::Top)),
                    ),
            ))?;
        }
        if self.lines.iter().any(|l| l.label.is_some()) {
            chart
                .configure_series_labels()
                .position(self.legend_position(y_max))
                .label_font(style::legend_font())
                .background_style(WHITE.mix(0.9))
                .border_style(BLACK.mix(0.3))
                .margin(12)
                .draw()?;
        }
        Ok(())
    }

    /// The top corner (or the top middle) where the lines leave the most room for the legend.
    fn legend_position(&self, y_max: f64) -> SeriesLabelPosition {
        let width = self.x.end - self.x.start;
        let highest_in = |from: f64, to: f64| {
            self.lines
                .iter()
                .flat_map(|l| l.points.iter())
                .filter(|p| p.0 >= self.x.start + from * width && p.0 <= self.x.start + to * width)
                .map(|p| p.1)
                .fold(0.0, f64::max)
        };
        let choices = [
            (highest_in(0.7, 1.0), SeriesLabelPosition::UpperRight),
            (highest_in(0.0, 0.3), SeriesLabelPosition::UpperLeft),
            (highest_in(0.35, 0.65), SeriesLabelPosition::UpperMiddle),
        ];
        let best = choices
            .iter()
            .min_by(|a, b| a.0.total_cmp(&b.0))
            .expect("three choices");
        if best.0 > 0.75 * y_max {
            SeriesLabelPosition::LowerRight
        } else {
            best.1.clone()
        }
    }
}
