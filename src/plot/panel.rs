//! One linear chart panel (y from zero) with everything the fade, WSAT, HIR and compare charts
//! put on it: lines or dotted series with legend entries, shaded named bands (phases, the
//! steady-state window), labelled vertical markers (erase events, drive fills) and labelled
//! level segments (measured states).

use std::ops::Range;

use plotters::coord::Shift;
use plotters::prelude::*;
use plotters::style::text_anchor::{HPos, Pos, VPos};
use plotters::style::RGBColor;

use super::drawn;
use super::layout::{Layout, Note};
use super::style;

/// A series of points.
pub struct Line {
    /// What the series is, in the chart's record and (when `legend`) in the legend.
    pub name: String,
    pub legend: bool,
    pub points: Vec<(f64, f64)>,
    pub color: RGBColor,
    /// Line width in pixels; 0 draws the dots alone.
    pub width: u32,
    /// Draw a dot at every point (SNIA's one point per round) as well as the line.
    pub dots: bool,
}

impl Line {
    /// SNIA's one point per round joined by a thin line (WSAT, the convergence plot).
    pub fn per_round(name: impl Into<String>, legend: bool, points: Vec<(f64, f64)>) -> Line {
        Line {
            name: name.into(),
            legend,
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

/// Where a band's name is written.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum BandName {
    /// Inside the band at its top; left unnamed when the band is too narrow (an experiment's
    /// short phases, named by their states).
    Inside,
    /// Inside, or beside the band when it is too narrow (the convergence plot's windows,
    /// five rounds of hundreds).
    Beside,
    /// In the legend, as a shaded swatch (the SNIA steady window).
    Legend,
    /// Unnamed on this panel: another panel of the chart names it in its legend.
    Elsewhere,
}

/// A translucent min–max band of a series, under every line (compare's runs per interval):
/// (x, lowest, highest) per bucket.
pub struct Envelope {
    pub name: String,
    pub points: Vec<(f64, f64, f64)>,
    pub color: RGBColor,
}

/// How opaque an [`Envelope`] is: two overlapping bands and the lines over them stay visible.
const ENVELOPE_OPACITY: f64 = 0.22;

/// A shaded span of x with its name.
pub struct Band {
    pub label: String,
    pub x: Range<f64>,
    pub color: RGBColor,
    pub opacity: f64,
    pub name: BandName,
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
    pub envelopes: Vec<Envelope>,
    pub bands: Vec<Band>,
    pub markers: Vec<Marker>,
    pub levels: Vec<Level>,
    pub forecasts: Vec<Forecast>,
    pub guides: Vec<Guide>,
    /// How many x tick labels to aim for (12; fewer for a few whole numbers).
    pub x_labels: usize,
    /// The highest y the axis is set by, when not the highest value drawn (a chart that cuts
    /// a spike and marks what it cut, as the WA chart does).
    pub y_top: Option<f64>,
}

/// Radius of a measured state's dot.
const DOT: i32 = 6;

impl Panel {
    /// An empty panel over `x`.
    pub fn new(x_desc: impl Into<String>, y_desc: impl Into<String>, x: Range<f64>) -> Panel {
        Panel {
            x_desc: x_desc.into(),
            y_desc: y_desc.into(),
            x,
            lines: Vec::new(),
            envelopes: Vec::new(),
            bands: Vec::new(),
            markers: Vec::new(),
            levels: Vec::new(),
            forecasts: Vec::new(),
            guides: Vec::new(),
            x_labels: 12,
            y_top: None,
        }
    }

    /// Draws the legend of the labelled lines, guides and legend bands in centred rows along
    /// the top of `area` (outside the plot, so it never hides data or labels; a row per
    /// what fits across) and returns the area below it.
    fn legend_row<DB: DrawingBackend>(
        &self,
        area: &DrawingArea<DB, Shift>,
    ) -> anyhow::Result<DrawingArea<DB, Shift>>
    where
        DB::ErrorType: 'static,
    {
        // Each entry: its name, its colour, and how its sample is drawn.
        let mut entries: Vec<(&str, RGBColor, Sample)> = self
            .lines
            .iter()
            .filter(|l| l.legend)
            .map(|l| {
                let sample = if l.width == 0 {
                    Sample::Dot
                } else {
                    Sample::Line
                };
                (l.name.as_str(), l.color, sample)
            })
            .chain(self.guides.iter().filter(|g| !g.label.is_empty()).map(|g| {
                let sample = if g.dashed {
                    Sample::Dashed
                } else {
                    Sample::Line
                };
                (g.label.as_str(), g.color, sample)
            }))
            .chain(
                self.bands
                    .iter()
                    .filter(|b| b.name == BandName::Legend)
                    .map(|b| (b.label.as_str(), b.color, Sample::Swatch(b.opacity))),
            )
            .collect();
        entries.dedup_by(|a, b| a.0 == b.0);
        if entries.is_empty() {
            return Ok(area.clone());
        }
        let font = style::legend_font();
        let (sample, gap) = (28, 36);
        let room = area.dim_in_pixel().0 as i32 - 24;
        let widths: Vec<i32> = entries
            .iter()
            .map(|(label, _, _)| {
                area.estimate_text_size(label, &font)
                    .map_or(8 * label.len() as i32, |(w, _)| w as i32)
                    + sample
                    + 8
            })
            .collect();
        // Rows of the entries that fit across, in order.
        let mut rows: Vec<Vec<usize>> = vec![Vec::new()];
        let mut used = 0;
        for (i, w) in widths.iter().enumerate() {
            let row = rows.last_mut().expect("a row");
            if !row.is_empty() && used + gap + w > room {
                rows.push(vec![i]);
                used = *w;
            } else {
                used += if row.is_empty() { *w } else { gap + w };
                row.push(i);
            }
        }
        let (legend, rest) = area.split_vertically(30 * rows.len() as i32);
        for (r, row) in rows.iter().enumerate() {
            let total: i32 =
                row.iter().map(|&i| widths[i]).sum::<i32>() + gap * (row.len() as i32 - 1);
            let mut x = ((legend.dim_in_pixel().0 as i32 - total) / 2).max(12);
            let y = 16 + 30 * r as i32;
            for &i in row {
                let (label, color, kind) = &entries[i];
                match kind {
                    Sample::Dot => {
                        legend.draw(&Circle::new((x + sample / 2, y), 5, color.filled()))?
                    }
                    Sample::Line => legend.draw(&PathElement::new(
                        vec![(x, y), (x + sample, y)],
                        color.stroke_width(4),
                    ))?,
                    Sample::Dashed => {
                        for dash in [(x, x + 8), (x + 12, x + 20), (x + 24, x + sample)] {
                            legend.draw(&PathElement::new(
                                vec![(dash.0, y), (dash.1, y)],
                                color.stroke_width(3),
                            ))?;
                        }
                    }
                    Sample::Swatch(opacity) => legend.draw(&Rectangle::new(
                        [(x, y - 9), (x + sample, y + 9)],
                        color.mix(opacity * 2.0).filled(),
                    ))?,
                }
                legend.draw(&Text::new(
                    *label,
                    (x + sample + 8, y),
                    font.pos(Pos::new(HPos::Left, VPos::Center)),
                ))?;
                x += widths[i] + gap;
            }
        }
        Ok(rest)
    }

    /// The highest y of any line or level.
    fn y_peak(&self) -> f64 {
        let lines = self.lines.iter().flat_map(|l| l.points.iter().map(|p| p.1));
        let levels = self.levels.iter().map(|l| l.y);
        let forecasts = self.forecasts.iter().map(|f| f.band.end.max(f.y));
        let guides = self.guides.iter().map(|g| g.from.1.max(g.to.1));
        let envelopes = self
            .envelopes
            .iter()
            .flat_map(|e| e.points.iter().map(|p| p.2));
        lines
            .chain(envelopes)
            .chain(levels)
            .chain(forecasts)
            .chain(guides)
            .filter(|y| y.is_finite())
            .fold(0.0, f64::max)
    }

    /// Draws the panel into `area` and records what it drew (see [`super::drawn`]).
    pub fn draw<DB: DrawingBackend>(&self, area: &DrawingArea<DB, Shift>) -> anyhow::Result<()>
    where
        DB::ErrorType: 'static,
    {
        let peak = self.y_top.unwrap_or_else(|| self.y_peak());
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
        style::mesh(&mut chart)
            .x_desc(self.x_desc.as_str())
            .y_desc(self.y_desc.as_str())
            .x_labels(self.x_labels)
            // Enough labels to read a level off (0, 2000, … rather than 0, 5000, 10k).
            .y_labels(10)
            .x_label_formatter(&|v| style::plain_label(*v))
            .y_label_formatter(&|v| style::count_tick(*v, y_max))
            .draw()?;
        let plot = drawn::area_box(chart.plotting_area());
        drawn::panel(drawn::DrawnPanel {
            x_axis: self.x_desc.clone(),
            y_axis: self.y_desc.clone(),
            x: (x.start, x.end),
            y: (0.0, y_max),
            plot,
            ..Default::default()
        });
        let mut layout = Layout::new(plot);
        // The labels by how firmly they belong where they are: a marker's name to its line,
        // a level's to its dot, then the forecasts' and the bands' names.
        let (mut marker_notes, mut level_notes, mut forecast_notes, mut band_notes) =
            (Vec::new(), Vec::new(), Vec::new(), Vec::new());
        let px = |chart: &super::LinearChart<'_, DB>, p: (f64, f64)| chart.backend_coord(&p);

        for band in &self.bands {
            let (x0, x1) = (band.x.start.max(x.start), band.x.end.min(x.end));
            chart.draw_series(std::iter::once(Rectangle::new(
                [(x0, 0.0), (x1, y_max)],
                band.color.mix(band.opacity).filled(),
            )))?;
            drawn::band(&band.label, (x0, x1), None);
            if band.label.is_empty() || matches!(band.name, BandName::Legend | BandName::Elsewhere)
            {
                continue;
            }
            let font = style::note_font(band.color);
            let w = text_width(&area, &band.label, &font);
            let (left, right) = (px(&chart, (x0, y_max)).0, px(&chart, (x1, y_max)).0);
            let narrow = right - left < w + 10;
            if narrow && band.name == BandName::Inside {
                continue;
            }
            let top = plot[1] + 5;
            // Inside from its left edge (clear of a marker on that edge), or from its right;
            // a narrow band's name beside it, outwards.
            let wanted = if narrow {
                vec![(right + 8, top), (left - 8 - w, top)]
            } else {
                vec![(left + 8, top), (right - 8 - w, top)]
            };
            band_notes.push(Note {
                text: band.label.clone(),
                font,
                point: (left, top),
                wanted,
            });
        }
        for e in &self.envelopes {
            let outline: Vec<(f64, f64)> = e
                .points
                .iter()
                .map(|p| (p.0, p.2))
                .chain(e.points.iter().rev().map(|p| (p.0, p.1)))
                .collect();
            chart.draw_series(std::iter::once(Polygon::new(
                outline,
                e.color.mix(ENVELOPE_OPACITY).filled(),
            )))?;
            let side = |y: fn(&(f64, f64, f64)) -> f64| -> Vec<(f64, f64)> {
                e.points.iter().map(|p| (p.0, y(p))).collect()
            };
            drawn::series(
                &format!("{} (lowest)", e.name),
                &self.y_desc,
                &side(|p| p.1),
            );
            drawn::series(
                &format!("{} (highest)", e.name),
                &self.y_desc,
                &side(|p| p.2),
            );
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
            drawn::series(&g.label, &self.y_desc, &[g.from, g.to]);
        }
        let base = area.get_base_pixel();
        for marker in &self.markers {
            // Inside the plot: a marker at the axis's start (an erase before the first phase)
            // is drawn just right of the axis, not half over it.
            let at = px(&chart, (marker.x, 0.0))
                .0
                .clamp(plot[0] + 1, plot[2] - 2);
            area.draw(&PathElement::new(
                vec![
                    (at - base.0, plot[1] - base.1),
                    (at - base.0, plot[3] - base.1),
                ],
                // Events stand out; drive fills (labelled low) stay in the background.
                marker.color.stroke_width(if marker.low { 1 } else { 2 }),
            ))?;
            let line = [at - 1, plot[1], at + 2, plot[3]];
            drawn::mark(&marker.label, drawn::MarkKind::Line, line);
            layout.avoid_line(line);
            let font = style::note_font(marker.color);
            let w = text_width(&area, &marker.label, &font);
            // Below the band names along the top (or above the x axis when low).
            let y = if marker.low {
                plot[3] - 30
            } else {
                plot[1] + 32
            };
            // Rightwards from its line unless it would run out of the plot.
            marker_notes.push(Note {
                text: marker.label.clone(),
                font,
                point: (at, y),
                wanted: vec![(at + 8, y), (at - 8 - w, y)],
            });
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
            drawn::series(&line.name, &self.y_desc, &line.points);
        }
        self.draw_forecast_lines(&mut chart)?;
        for f in &self.forecasts {
            let (left, top) = px(&chart, (f.x.start, f.band.end));
            let font = style::note_font(f.color);
            let h = text_height(&area, &f.label, &font);
            let w = text_width(&area, &f.label, &font);
            let right = px(&chart, (f.x.end, f.band.end)).0;
            forecast_notes.push(Note {
                text: f.label.clone(),
                font,
                point: (left, top),
                wanted: vec![(left + 8, top - h - 6), (right - 8 - w, top - h - 6)],
            });
        }
        for level in &self.levels {
            let color = level.color;
            if level.x.end > level.x.start {
                chart.draw_series(std::iter::once(PathElement::new(
                    vec![(level.x.start, level.y), (level.x.end, level.y)],
                    color.stroke_width(4),
                )))?;
            }
            drawn::series(
                &level.label,
                &self.y_desc,
                &[(level.x.start, level.y), (level.x.end, level.y)],
            );
            // The dot at the level's start, kept wholly inside the plot.
            let (dx, dy) = px(&chart, (level.x.start, level.y));
            let dot = (
                dx.clamp(plot[0] + DOT, plot[2] - DOT - 1),
                dy.clamp(plot[1] + DOT, plot[3] - DOT - 1),
            );
            area.draw(&Circle::new(
                (dot.0 - base.0, dot.1 - base.1),
                DOT as u32,
                color.filled(),
            ))?;
            let mark = [dot.0 - DOT, dot.1 - DOT, dot.0 + DOT + 1, dot.1 + DOT + 1];
            drawn::mark(&level.label, drawn::MarkKind::Dot, mark);
            layout.avoid(mark);
            let font = style::note_font(color);
            let (w, h) = (
                text_width(&area, &level.label, &font),
                text_height(&area, &level.label, &font),
            );
            // Above its level, reading away from the plot's nearer side; under it near the top.
            let (above, below) = (dot.1 - DOT - 6 - h, dot.1 + DOT + 6);
            let (right, left) = (dot.0 + 10, dot.0 - 10 - w);
            level_notes.push(Note {
                text: level.label.clone(),
                font,
                point: dot,
                wanted: if dot.1 < plot[1] + (plot[3] - plot[1]) * 3 / 10 {
                    vec![(right, below), (left, below), (right, above), (left, above)]
                } else {
                    vec![(right, above), (left, above), (right, below), (left, below)]
                },
            });
        }
        // The labels last, over the data, each on its own white box.
        for note in marker_notes
            .iter()
            .chain(&level_notes)
            .chain(&forecast_notes)
            .chain(&band_notes)
        {
            layout.draw(&area, note)?;
        }
        Ok(())
    }
}

impl Panel {
    /// The forecasts' bands, shaded under the data.
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
            drawn::band(
                &format!("{} interval", f.label),
                (f.x.start, f.x.end),
                Some((f.band.start, f.band.end)),
            );
        }
        Ok(())
    }

    /// The forecasts' dashed lines, over the data.
    fn draw_forecast_lines<DB: DrawingBackend>(
        &self,
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
            drawn::series(&f.label, &self.y_desc, &[(f.x.start, f.y), (f.x.end, f.y)]);
        }
        Ok(())
    }
}

/// The width of `text` in `font`, in pixels.
fn text_width<DB: DrawingBackend>(
    area: &DrawingArea<DB, Shift>,
    text: &str,
    font: &TextStyle,
) -> i32 {
    area.estimate_text_size(text, font)
        .map_or(8 * text.len() as i32, |(w, _)| w as i32)
}

/// The height of `text` in `font`, in pixels.
fn text_height<DB: DrawingBackend>(
    area: &DrawingArea<DB, Shift>,
    text: &str,
    font: &TextStyle,
) -> i32 {
    area.estimate_text_size(text, font)
        .map_or(18, |(_, h)| h as i32)
}

/// How a legend entry's sample is drawn.
enum Sample {
    Dot,
    Line,
    Dashed,
    /// A band's shade at its opacity.
    Swatch(f64),
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
            name: "series".into(),
            legend: false,
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
                    name: "series".into(),
                    legend: false,
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
                    name: if beside {
                        BandName::Beside
                    } else {
                        BandName::Inside
                    },
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
                name: "series".into(),
                legend: false,
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
