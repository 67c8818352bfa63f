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

impl Line {
    /// SNIA's one point per round joined by a thin line (WSAT, the convergence plot).
    pub fn per_round(label: Option<String>, points: Vec<(f64, f64)>) -> Line {
        Line {
            label,
            points,
            color: style::AVERAGE,
            width: 1,
            dots: true,
        }
    }
}

/// Draws a chart of two panels of equal height under one title and subtitle lines (WSAT, the
/// steady-state page, compare).
pub fn draw_stacked<DB: DrawingBackend>(
    root: &DrawingArea<DB, Shift>,
    title: &str,
    subtitle: &[String],
    top: &Panel,
    bottom: &Panel,
) -> anyhow::Result<()>
where
    DB::ErrorType: 'static,
{
    root.fill(&WHITE)?;
    let body = style::header(root, title, subtitle)?;
    let (upper, lower) = body.split_vertically(body.dim_in_pixel().1 as i32 / 2);
    top.draw(&upper)?;
    bottom.draw(&lower)
}

/// A shaded span of x with its name written at the top.
pub struct Band {
    pub label: String,
    pub x: Range<f64>,
    pub color: RGBColor,
    pub opacity: f64,
    /// When the band is too narrow for its name, write the name beside it (on a white box)
    /// rather than leave it unnamed: the convergence plot's windows, five rounds of hundreds.
    pub beside: bool,
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

/// A dashed horizontal line at `y` over `x` inside a shaded band of y (a prediction and its
/// interval), labelled above its start.
pub struct Forecast {
    pub label: String,
    pub x: Range<f64>,
    pub y: f64,
    pub band: Range<f64>,
    pub color: RGBColor,
}

/// A straight line from one point to another (a window's average and its bands, a fitted
/// line), solid or dashed, named in the legend unless its label is empty.
pub struct Guide {
    pub label: String,
    pub from: (f64, f64),
    pub to: (f64, f64),
    pub color: RGBColor,
    pub width: u32,
    pub dashed: bool,
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
    pub forecasts: Vec<Forecast>,
    pub guides: Vec<Guide>,
    /// How many x tick labels to aim for (12; fewer for a few whole numbers).
    pub x_labels: usize,
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
            forecasts: Vec::new(),
            guides: Vec::new(),
            x_labels: 12,
        }
    }

    /// Draws the legend of the labelled lines as one centred row along the top of `area`
    /// (outside the plot, so it never hides data or labels) and returns the area below it.
    fn legend_row<DB: DrawingBackend>(
        &self,
        area: &DrawingArea<DB, Shift>,
    ) -> anyhow::Result<DrawingArea<DB, Shift>>
    where
        DB::ErrorType: 'static,
    {
        // Each entry: its name, its colour, and how its sample is drawn.
        let entries: Vec<(&str, RGBColor, Sample)> = self
            .lines
            .iter()
            .filter_map(|l| {
                let sample = if l.width == 0 {
                    Sample::Dot
                } else {
                    Sample::Line
                };
                Some((l.label.as_deref()?, l.color, sample))
            })
            .chain(self.guides.iter().filter(|g| !g.label.is_empty()).map(|g| {
                let sample = if g.dashed {
                    Sample::Dashed
                } else {
                    Sample::Line
                };
                (g.label.as_str(), g.color, sample)
            }))
            .collect();
        if entries.is_empty() {
            return Ok(area.clone());
        }
        let (row, rest) = area.split_vertically(30);
        let font = style::legend_font();
        let widths: Vec<i32> = entries
            .iter()
            .map(|(label, _, _)| {
                row.estimate_text_size(label, &font)
                    .map_or(8 * label.len() as i32, |(w, _)| w as i32)
            })
            .collect();
        let (sample, gap) = (28, 36);
        let total: i32 =
            widths.iter().map(|w| sample + 8 + w).sum::<i32>() + gap * (entries.len() as i32 - 1);
        let mut x = (row.dim_in_pixel().0 as i32 - total) / 2;
        let y = 16;
        for ((label, color, kind), width) in entries.iter().zip(widths) {
            match kind {
                Sample::Dot => row.draw(&Circle::new((x + sample / 2, y), 5, color.filled()))?,
                Sample::Line => row.draw(&PathElement::new(
                    vec![(x, y), (x + sample, y)],
                    color.stroke_width(4),
                ))?,
                Sample::Dashed => {
                    for dash in [(x, x + 8), (x + 12, x + 20), (x + 24, x + sample)] {
                        row.draw(&PathElement::new(
                            vec![(dash.0, y), (dash.1, y)],
                            color.stroke_width(3),
                        ))?;
                    }
                }
            }
            row.draw(&Text::new(
                *label,
                (x + sample + 8, y),
                font.pos(Pos::new(HPos::Left, VPos::Center)),
            ))?;
            x += sample + 8 + width + gap;
        }
        Ok(rest)
    }

    /// The highest y of any line or level.
    fn y_peak(&self) -> f64 {
        let lines = self.lines.iter().flat_map(|l| l.points.iter().map(|p| p.1));
        let levels = self.levels.iter().map(|l| l.y);
        let forecasts = self.forecasts.iter().map(|f| f.band.end.max(f.y));
        let guides = self.guides.iter().map(|g| g.from.1.max(g.to.1));
        lines
            .chain(levels)
            .chain(forecasts)
            .chain(guides)
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
        let area = self.legend_row(area)?;
        let mut chart = ChartBuilder::on(&area)
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
            .x_labels(self.x_labels)
            // Enough labels to read a level off (0, 2000, … rather than 0, 5000, 10k).
            .y_labels(10)
            .x_label_formatter(&|v| style::plain_label(*v))
            .y_label_formatter(&|v| style::count_tick(*v, y_max))
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
            // A band too narrow for its name stays unnamed (a measured state names it).
            let font = style::note_font(band.color);
            let pixels = chart.backend_coord(&(x1, 0.0)).0 - chart.backend_coord(&(x0, 0.0)).0;
            let needed = area
                .estimate_text_size(&band.label, &font)
                .map_or(0, |(w, _)| w as i32);
            let narrow = pixels < needed + 10;
            if narrow && !band.beside {
                continue;
            }
            // A band starting in the right quarter names itself from its right edge (a
            // narrow one from its left edge outwards), the others from their left edge (a
            // narrow one from its right edge outwards).
            let (at, dx, anchor) = match (label_side(x0, &x), narrow) {
                ((_, HPos::Right), false) => (x1, -5, HPos::Right),
                ((_, HPos::Right), true) => (x0, -5, HPos::Right),
                (_, false) => (x0, 5, HPos::Left),
                (_, true) => (x1, 5, HPos::Left),
            };
            let (w, h) = area
                .estimate_text_size(&band.label, &font)
                .map_or((100, 18), |(w, h)| (w as i32, h as i32));
            let (left, right) = match anchor {
                HPos::Right => (dx - w - 3, dx + 3),
                _ => (dx - 3, dx + w + 3),
            };
            if narrow {
                chart.draw_series(std::iter::once(
                    EmptyElement::at((at, y_max))
                        + Rectangle::new([(left, 3), (right, 7 + h)], LABEL_BOX.filled()),
                ))?;
            }
            chart.draw_series(std::iter::once(
                EmptyElement::at((at, y_max))
                    + Text::new(
                        band.label.clone(),
                        (dx, 5),
                        font.pos(Pos::new(anchor, VPos::Top)),
                    ),
            ))?;
        }
        self.draw_forecasts(&mut chart)?;
        for g in &self.guides {
            let stroke = g.color.stroke_width(g.width);
            if g.dashed {
                chart.draw_series(DashedLineSeries::new([g.from, g.to], 10, 6, stroke))?;
            } else {
                chart.draw_series(std::iter::once(PathElement::new(
                    vec![g.from, g.to],
                    stroke,
                )))?;
            }
        }
        for marker in &self.markers {
            chart.draw_series(std::iter::once(PathElement::new(
                vec![(marker.x, 0.0), (marker.x, y_max)],
                // Events stand out; drive fills (labelled low) stay in the background.
                marker.color.stroke_width(if marker.low { 1 } else { 2 }),
            )))?;
        }
        for line in &self.lines {
            let color = line.color;
            // A point without a number is a gap: no line across it, no dot.
            if line.width > 0 {
                chart
                    .draw_series(super::downsample::runs(&line.points).map(|run| {
                        PathElement::new(run.to_vec(), color.stroke_width(line.width))
                    }))?;
            }
            // A value alone between gaps (a run of one interval) would be a path of one point,
            // which draws nothing: it is a dot.
            if line.width > 0 && !line.dots {
                chart.draw_series(
                    super::downsample::runs(&line.points)
                        .filter(|run| run.len() == 1)
                        .map(|run| Circle::new(run[0], line.width + 2, color.filled())),
                )?;
            }
            if line.dots {
                chart.draw_series(
                    line.points
                        .iter()
                        .filter(|p| p.1.is_finite())
                        .map(|&p| Circle::new(p, 3, color.filled())),
                )?;
            }
        }
        self.draw_forecast_lines(&area, &mut chart)?;
        // The markers' names over the data, each on its own white box: a 24 h soak's
        // per-second series ran through "5× drive" and the prediction's dashed line.
        for marker in &self.markers {
            let (y, dy) = if marker.low { (0.0, -26) } else { (y_max, 26) };
            let font = style::note_font(marker.color);
            let (w, h) = area
                .estimate_text_size(&marker.label, &font)
                .map_or((100, 18), |(w, h)| (w as i32, h as i32));
            // Every name reads rightwards from its line unless it would run out of the plot
            // (the right-quarter rule had "7× drive" and "8× drive" read into each other).
            let room =
                chart.backend_coord(&(x.end, 0.0)).0 - chart.backend_coord(&(marker.x, 0.0)).0;
            let (dx, anchor) = if room < w + 12 {
                (-8, HPos::Right)
            } else {
                (8, HPos::Left)
            };
            let (left, right) = match anchor {
                HPos::Right => (dx - w - 3, dx + 3),
                _ => (dx - 3, dx + w + 3),
            };
            chart.draw_series(std::iter::once(
                EmptyElement::at((marker.x, y))
                    + Rectangle::new([(left, dy - 2), (right, dy + h + 2)], LABEL_BOX.filled())
                    + Text::new(
                        marker.label.clone(),
                        (dx, dy),
                        font.pos(Pos::new(anchor, VPos::Top)),
                    ),
            ))?;
        }
        // Label boxes already placed, in pixels: a level's label moves away from its level
        // until it overlaps none (states a minute apart on an hours-long axis).
        let mut taken: Vec<[i32; 4]> = Vec::new();
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
            let font = style::note_font(color);
            let (dx, anchor) = label_side(level.x.start, &x);
            let (w, h) = area
                .estimate_text_size(&level.label, &font)
                .map_or((100, 18), |(w, h)| (w as i32, h as i32));
            let (px, py) = chart.backend_coord(&(level.x.start, level.y));
            let left = if matches!(anchor, HPos::Right) {
                px + dx - w
            } else {
                px + dx
            };
            // Near the top the label goes under its level, clear of the names along the top.
            let mut dy = if level.y > 0.7 * y_max { 10 } else { -26 };
            let step = if dy > 0 { h + 4 } else { -(h + 4) };
            let overlaps = |top: i32, r: &[i32; 4]| {
                left < r[2] && left + w > r[0] && top < r[3] && top + h > r[1]
            };
            for _ in 0..8 {
                if !taken.iter().any(|r| overlaps(py + dy, r)) {
                    break;
                }
                dy += step;
            }
            taken.push([left, py + dy, left + w, py + dy + h]);
            let box_left = left - px;
            chart.draw_series(std::iter::once(
                EmptyElement::at((level.x.start, level.y))
                    + Rectangle::new(
                        [(box_left - 3, dy - 3), (box_left + w + 3, dy + h + 3)],
                        LABEL_BOX.filled(),
                    )
                    + Text::new(
                        level.label.clone(),
                        (dx, dy),
                        font.pos(Pos::new(anchor, VPos::Top)),
                    ),
            ))?;
        }
        Ok(())
    }
}

impl Panel {
    /// The forecasts: each band shaded, its line dashed, its label above the line's start.
    fn draw_forecasts<DB: DrawingBackend>(
        &self,
        chart: &mut super::LinearChart<'_, DB>,
    ) -> anyhow::Result<()>
    where
        DB::ErrorType: 'static,
    {
        for f in &self.forecasts {
            chart.draw_series(std::iter::once(Rectangle::new(
                [(f.x.start, f.band.start), (f.x.end, f.band.end)],
                f.color.mix(0.15).filled(),
            )))?;
        }
        Ok(())
    }

    /// The forecasts' dashed lines and labels, over the data: a label on its own white box,
    /// so a dense series drawn across it does not make it unreadable.
    fn draw_forecast_lines<DB: DrawingBackend>(
        &self,
        area: &DrawingArea<DB, Shift>,
        chart: &mut super::LinearChart<'_, DB>,
    ) -> anyhow::Result<()>
    where
        DB::ErrorType: 'static,
    {
        for f in &self.forecasts {
            chart.draw_series(DashedLineSeries::new(
                [(f.x.start, f.y), (f.x.end, f.y)],
                10,
                6,
                f.color.stroke_width(3),
            ))?;
            let font = style::note_font(f.color);
            let (w, h) = area
                .estimate_text_size(&f.label, &font)
                .map_or((100, 18), |(w, h)| (w as i32, h as i32));
            chart.draw_series(std::iter::once(
                EmptyElement::at((f.x.start, f.band.end))
                    + Rectangle::new([(5, -27), (11 + w, -21 + h)], LABEL_BOX.filled())
                    + Text::new(
                        f.label.clone(),
                        (8, -24),
                        font.pos(Pos::new(HPos::Left, VPos::Top)),
                    ),
            ))?;
        }
        Ok(())
    }
}

/// The box under a label drawn over data: mostly white, so the label reads over any series.
const LABEL_BOX: RGBAColor = RGBAColor(255, 255, 255, 0.85);

/// How a legend entry's sample is drawn.
enum Sample {
    Dot,
    Line,
    Dashed,
}

/// Labels in the right quarter of `range` read leftwards from their point so they stay inside
/// the plot; the others read rightwards.
pub(super) fn label_side(at: f64, range: &Range<f64>) -> (i32, HPos) {
    if at > range.start + 0.75 * (range.end - range.start) {
        (-8, HPos::Right)
    } else {
        (8, HPos::Left)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Pixels of `color` when `line` alone is drawn on a panel.
    fn pixels_of(line: Line) -> usize {
        let size = (400, 300);
        let mut rgb = vec![255; size.0 as usize * size.1 as usize * 3];
        let color = line.color;
        {
            let root = BitMapBackend::with_buffer(&mut rgb, size).into_drawing_area();
            let mut panel = Panel::new("time", "IOPS", 0.0..10.0);
            panel.lines.push(line);
            panel.draw(&root).unwrap();
            root.present().unwrap();
        }
        rgb.chunks(3)
            .filter(|p| p == &[color.0, color.1, color.2])
            .count()
    }

    #[test]
    fn a_value_alone_between_gaps_is_drawn_as_a_dot() {
        let line = |points| Line {
            label: None,
            points,
            color: RGBColor(200, 30, 90),
            width: 2,
            dots: false,
        };
        assert!(
            pixels_of(line(vec![(5.0, 100.0)])) > 10,
            "a lone value drew nothing"
        );
        assert!(pixels_of(line(vec![(1.0, 80.0), (2.0, f64::NAN), (3.0, 90.0)])) > 20);
        assert_eq!(pixels_of(line(Vec::new())), 0);
    }

    /// The convergence plot's last window is five rounds of hundreds: too narrow for its
    /// name, which was left out though the caption promised it. A band marked `beside` names
    /// itself beside it; the others (an experiment's short phases, named by their states) stay
    /// unnamed.
    #[test]
    fn a_narrow_band_marked_beside_names_itself_beside_it() {
        super::style::register_fonts();
        let drawn = |beside: bool| {
            let mut svg = String::new();
            {
                let root = SVGBackend::with_string(&mut svg, (800, 400)).into_drawing_area();
                let mut panel = Panel::new("TGBW (GB)", "IOPS", 0.0..200.0);
                panel.lines.push(Line {
                    label: None,
                    points: vec![(0.0, 6000.0), (200.0, 1000.0)],
                    color: RGBColor(0, 0, 0),
                    width: 1,
                    dots: false,
                });
                panel.bands.push(Band {
                    label: "last window: 962 IOPS (-59 %)".into(),
                    x: 198.0..200.0,
                    color: style::EVENT,
                    opacity: 0.15,
                    beside,
                });
                panel.draw(&root).unwrap();
                root.present().unwrap();
            }
            super::super::svg_texts(&svg)
                .iter()
                .any(|t| t == "last window: 962 IOPS (-59 %)")
        };
        assert!(drawn(true), "the narrow band's name is missing");
        assert!(!drawn(false), "an unmarked narrow band was named");
    }

    /// A 24 h soak's per-second series and its prediction's dashed line ran through the drive
    /// fills' names ("5× drive"): a marker's name is drawn after every line, on a white box.
    #[test]
    fn a_markers_name_is_drawn_over_the_data_on_a_box() {
        super::style::register_fonts();
        let mut svg = String::new();
        {
            let root = SVGBackend::with_string(&mut svg, (800, 400)).into_drawing_area();
            let mut panel = Panel::new("Host data written (GB)", "IOPS", 0.0..10.0);
            panel.lines.push(Line {
                label: None,
                points: (0..100)
                    .map(|i| (i as f64 / 10.0, 50.0 + (i % 2) as f64 * 900.0))
                    .collect(),
                color: RGBColor(1, 2, 3),
                width: 1,
                dots: false,
            });
            panel.markers.push(Marker {
                label: "5× drive".into(),
                x: 5.0,
                color: style::FILL,
                low: true,
            });
            panel.draw(&root).unwrap();
            root.present().unwrap();
        }
        let line = svg
            .rfind("rgb(1,2,3)")
            .or_else(|| svg.rfind("#010203"))
            .expect("no line");
        let name = svg.find("5× drive").expect("no marker name");
        assert!(name > line, "the marker's name is drawn under the data");
        let before_name = &svg[..name];
        let rect = before_name.rfind("<rect").expect("no box under the name");
        assert!(rect > line, "the box is drawn under the data");
    }
}
