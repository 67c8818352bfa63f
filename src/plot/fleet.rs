//! The fleet's charts, one pair per group of drives (model and firmware): the fade band (the
//! median IOPS and its p10–p90 over the drives, interval by interval against elapsed time, the
//! outlier drives' own curves drawn on top and named) and the strips (one strip per headline
//! figure, every drive a dot in the figure's own unit, the p10–p90 box, the median, the normal
//! range shaded and the outliers red and named with serial and host).

use plotters::coord::Shift;
use plotters::prelude::*;

use super::downsample::{envelope, min_max, MAX_BUCKETS};
use super::layout::{Layout, Note};
use super::panel::{Envelope, Line, Panel};
use super::style::{self, time_unit};
use super::Chart;

/// Outlier curves drawn over a band at most: more would hide it (the table names them all).
pub const MAX_CURVES: usize = 8;

/// Outliers named in one strip at most; the rest are counted in one note.
const MAX_NAMED: usize = 4;

/// Dots closer than this many pixels are drawn once (500 drives of three runs' copies).
const CELL: i32 = 3;

/// The fade band of one group.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct FleetBandChart {
    pub title: String,
    pub subtitle: String,
    /// How many drives the band is of.
    pub drives: usize,
    /// `(elapsed s, p10, median, p90)` per interval.
    pub band: Vec<(f64, f64, f64, f64)>,
    /// An outlier's name and its `(elapsed s, IOPS)` per interval.
    pub outliers: Vec<(String, Vec<(f64, f64)>)>,
}

impl Chart for FleetBandChart {
    fn draw<DB: DrawingBackend>(&self, root: &DrawingArea<DB, Shift>) -> anyhow::Result<()>
    where
        DB::ErrorType: 'static,
    {
        root.fill(&WHITE)?;
        let body = style::header(root, &self.title, std::slice::from_ref(&self.subtitle))?;
        let end = self
            .band
            .iter()
            .map(|p| p.0)
            .chain(self.outliers.iter().flat_map(|o| o.1.iter().map(|p| p.0)))
            .fold(0.0, f64::max)
            .max(f64::MIN_POSITIVE);
        let unit = time_unit(end);
        let mut panel = Panel::new(
            format!("Elapsed time ({})", unit.name),
            "IOPS",
            0.0..end / unit.seconds,
        );
        let spread: Vec<(f64, f64, f64)> = if self.band.len() <= MAX_BUCKETS {
            self.band
                .iter()
                .map(|p| (p.0 / unit.seconds, p.1, p.3))
                .collect()
        } else {
            let edges: Vec<(f64, f64)> = self
                .band
                .iter()
                .flat_map(|p| [(p.0 / unit.seconds, p.1), (p.0 / unit.seconds, p.3)])
                .collect();
            envelope(&edges, MAX_BUCKETS)
        };
        panel.envelopes.push(Envelope {
            name: "p10–p90 over the drives".into(),
            points: spread,
            color: style::RAW,
        });
        let median: Vec<(f64, f64)> = self
            .band
            .iter()
            .map(|p| (p.0 / unit.seconds, p.2))
            .collect();
        panel.lines.push(Line {
            name: format!(
                "median of {} {} (shaded: p10–p90)",
                self.drives,
                if self.drives == 1 { "drive" } else { "drives" }
            ),
            legend: true,
            points: min_max(&median, MAX_BUCKETS),
            color: style::AVERAGE,
            width: 4,
            dots: false,
        });
        for (i, (name, curve)) in self.outliers.iter().take(MAX_CURVES).enumerate() {
            let points: Vec<(f64, f64)> =
                curve.iter().map(|&(t, v)| (t / unit.seconds, v)).collect();
            panel.lines.push(Line {
                name: format!("outlier {name}"),
                legend: true,
                points: min_max(&points, MAX_BUCKETS),
                color: style::palette(i + 1),
                width: 2,
                dots: false,
            });
        }
        panel.draw(&body)
    }
}

/// One headline figure of a group: its drives' values and their distribution.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct Strip {
    /// The figure with its unit, as the table heads it.
    pub label: String,
    /// The values of the drives that are not outliers.
    pub values: Vec<f64>,
    pub median: f64,
    pub p10: f64,
    pub p90: f64,
    /// The normal range.
    pub low: f64,
    pub high: f64,
    /// Each outlier's name (`serial (host)`) and value.
    pub outliers: Vec<(String, f64)>,
}

/// Every headline figure of one group, a strip each.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct FleetStripChart {
    pub title: String,
    pub subtitle: String,
    pub strips: Vec<Strip>,
}

/// Where drive `i` of a strip sits across it (0.15–0.85): spread evenly by the golden ratio,
/// the same every time, so close values do not stack on one line.
/// A tick of a strip's axis `x` (seven ticks): as on every count axis, but with the decimals
/// its step needs where the range is narrow (one drive: 49.5 to 50.5 reads 49.6, 49.8, …, not
/// 50, 50, 50).
fn strip_tick(v: f64, x: &std::ops::Range<f64>) -> String {
    let step = (x.end - x.start) / 7.0;
    let decimals = (-step.log10().floor()).clamp(0.0, 6.0) as usize;
    if decimals == 0 || v == 0.0 {
        return style::count_tick(v, x.end);
    }
    let text = format!("{v:.decimals$}");
    text.trim_end_matches('0').trim_end_matches('.').to_string()
}

fn jitter(i: usize) -> f64 {
    0.15 + 0.7 * (i as f64 * 0.618_033_988_75).fract()
}

impl Strip {
    /// Draws the strip into `area` and records it.
    fn draw<DB: DrawingBackend>(&self, area: &DrawingArea<DB, Shift>) -> anyhow::Result<()>
    where
        DB::ErrorType: 'static,
    {
        let (lo, hi) = self
            .values
            .iter()
            .copied()
            .chain(self.outliers.iter().map(|o| o.1))
            .chain([self.low.max(0.0), self.high])
            .fold((f64::INFINITY, f64::NEG_INFINITY), |(a, b), v| {
                (a.min(v), b.max(v))
            });
        let pad = ((hi - lo) * 0.06).max(hi.abs() * 0.01).max(1e-9);
        let x = (lo - pad)..(hi + pad);
        let mut chart = ChartBuilder::on(area)
            .caption(&self.label, style::axis_desc_font())
            .margin(6)
            .margin_right(28)
            .x_label_area_size(34)
            .y_label_area_size(8)
            .build_cartesian_2d(x.clone(), 0.0..1.0)?;
        chart
            .configure_mesh()
            .disable_y_mesh()
            .disable_y_axis()
            .x_labels(7)
            .x_label_formatter(&|v| strip_tick(*v, &x))
            .label_style(style::tick_font_of(15.0))
            .bold_line_style(BLACK.mix(0.10))
            .light_line_style(WHITE.mix(0.0))
            .draw()?;
        super::drawn::chart_panel(&chart, &self.label, "drives (spread across)");
        super::drawn::band("normal range", (self.low, self.high), None);
        chart.draw_series(std::iter::once(Rectangle::new(
            [(self.low.max(x.start), 0.0), (self.high.min(x.end), 1.0)],
            style::THRESHOLD.mix(0.08).filled(),
        )))?;
        super::drawn::band("p10–p90", (self.p10, self.p90), Some((0.08, 0.92)));
        chart.draw_series([
            Rectangle::new(
                [(self.p10, 0.08), (self.p90, 0.92)],
                style::FILL.mix(0.15).filled(),
            ),
            Rectangle::new(
                [(self.p10, 0.08), (self.p90, 0.92)],
                style::FILL.stroke_width(1),
            ),
        ])?;
        let median = [(self.median, 0.0), (self.median, 1.0)];
        super::drawn::series("median", &self.label, &median);
        chart.draw_series(std::iter::once(PathElement::new(
            median.to_vec(),
            style::AVERAGE.stroke_width(3),
        )))?;
        let mut cells = std::collections::HashSet::new();
        let dots: Vec<(f64, f64)> = self
            .values
            .iter()
            .enumerate()
            .map(|(i, &v)| (v, jitter(i)))
            .filter(|p| {
                let (px, py) = chart.backend_coord(p);
                cells.insert((px / CELL, py / CELL))
            })
            .collect();
        super::drawn::series("drives", &self.label, &dots);
        chart.draw_series(
            dots.iter()
                .map(|&p| Circle::new(p, 3, style::AVERAGE.mix(0.6).filled())),
        )?;
        let plot = super::drawn::area_box(chart.plotting_area());
        let mut layout = Layout::new(plot);
        let mut notes = Vec::new();
        for (i, (name, v)) in self.outliers.iter().enumerate() {
            let p = (*v, 0.5);
            let (px, py) = chart.backend_coord(&p);
            let dot = [px - 6, py - 6, px + 7, py + 7];
            layout.avoid(dot);
            super::drawn::mark(name, super::drawn::MarkKind::Dot, dot);
            chart.draw_series(std::iter::once(Circle::new(p, 6, style::STATE.filled())))?;
            if i < MAX_NAMED {
                notes.push(Note {
                    text: name.clone(),
                    font: style::note_font(style::STATE),
                    point: (px, py),
                    wanted: vec![(px + 10, py - 30), (px + 10, py + 12), (px - 10, py - 30)],
                });
            }
        }
        if self.outliers.len() > MAX_NAMED {
            notes.push(Note {
                text: format!(
                    "+{} more outliers (see the table)",
                    self.outliers.len() - MAX_NAMED
                ),
                font: style::note_font(style::STATE),
                point: (plot[0], plot[1]),
                wanted: vec![(plot[0] + 8, plot[1] + 4)],
            });
        }
        for note in &notes {
            layout.draw(area, note)?;
        }
        Ok(())
    }
}

impl Chart for FleetStripChart {
    fn draw<DB: DrawingBackend>(&self, root: &DrawingArea<DB, Shift>) -> anyhow::Result<()>
    where
        DB::ErrorType: 'static,
    {
        root.fill(&WHITE)?;
        let body = style::header(root, &self.title, std::slice::from_ref(&self.subtitle))?;
        let rows = self.strips.len().div_ceil(2).max(1);
        let areas = body.split_evenly((rows, 2));
        for (strip, area) in self.strips.iter().zip(&areas) {
            strip.draw(area)?;
        }
        Ok(())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Drives spread around 100 and an outlier at 40: every drive is a dot unless two share a
    /// cell, the outlier a named red mark, and the normal range and box are recorded.
    #[test]
    fn a_strip_records_its_drives_box_and_named_outlier() {
        let values: Vec<f64> = (0..20).map(|i| 95.0 + f64::from(i % 10)).collect();
        let chart = FleetStripChart {
            title: "t".into(),
            subtitle: String::new(),
            strips: vec![Strip {
                label: "fresh IOPS".into(),
                values,
                median: 99.5,
                p10: 95.5,
                p90: 103.5,
                low: 80.0,
                high: 119.0,
                outliers: vec![("S1 (host-a)".into(), 40.0)],
            }],
        };
        let (svg, drawn) = chart.drawn_svg().unwrap();
        let panel = &drawn.panels[0];
        let dots = &panel
            .series
            .iter()
            .find(|s| s.name == "drives")
            .unwrap()
            .points;
        assert!(dots.len() > 10 && dots.len() <= 20, "{} dots", dots.len());
        assert!(dots.iter().flatten().all(|p| p.0 >= 95.0));
        assert_eq!(panel.marks.len(), 1);
        assert_eq!(panel.marks[0].name, "S1 (host-a)");
        let names: Vec<&str> = panel.bands.iter().map(|b| b.name.as_str()).collect();
        assert_eq!(names, ["normal range", "p10–p90"]);
        assert!(super::super::svg_texts(&svg)
            .iter()
            .any(|t| t == "S1 (host-a)"));
    }
}
