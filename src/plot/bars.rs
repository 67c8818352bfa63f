//! A horizontal bar chart: one bar per measured point (a benchmark preset's tests), its figure
//! written at the end of the bar, in the order the points ran, from the top.

use plotters::coord::Shift;
use plotters::prelude::*;
use plotters::style::text_anchor::{HPos, Pos, VPos};
use plotters::style::RGBColor;

use super::style;
use super::Chart;

/// One bar.
#[derive(Clone, Debug, PartialEq)]
pub struct Bar {
    /// Written left of the axis.
    pub label: String,
    pub value: f64,
    /// Written at the end of the bar.
    pub text: String,
    pub color: RGBColor,
}

/// A span between two levels drawn in the gap above one bar, with a dashed guide up from its
/// far end: how far a bar (recovered) stays below another (fresh).
#[derive(Clone, Debug, PartialEq)]
pub struct Bracket {
    /// The bar it is drawn above (index into `bars`).
    pub bar: usize,
    /// Its ends, in the bars' units: the bar's own level and the level it falls short of.
    pub from: f64,
    pub to: f64,
    /// Written over its middle.
    pub text: String,
}

/// Everything the bar chart shows.
#[derive(Clone, Debug, PartialEq)]
pub struct BarChart {
    pub title: String,
    pub subtitle: String,
    pub x_desc: String,
    pub bars: Vec<Bar>,
    /// What the colours mean, drawn as one row under the header.
    pub legend: Vec<(String, RGBColor)>,
    pub bracket: Option<Bracket>,
}

/// Room per character of a tick-font label, pixels.
const CHAR_PX: u32 = 11;

impl Chart for BarChart {
    fn draw<DB: DrawingBackend>(&self, root: &DrawingArea<DB, Shift>) -> anyhow::Result<()>
    where
        DB::ErrorType: 'static,
    {
        root.fill(&WHITE)?;
        let legend: Vec<String> = self.legend.iter().map(|(l, _)| l.clone()).collect();
        let body = style::header(root, &self.title, std::slice::from_ref(&self.subtitle))?;
        let body = self.legend_row(&body, &legend)?;
        let n = self.bars.len().max(1);
        let longest = self.bars.iter().map(|b| b.label.chars().count()).max();
        let label_px = longest.unwrap_or(4) as u32 * CHAR_PX + 24;
        let top = self.bars.iter().map(|b| b.value).fold(0.0, f64::max);
        // Room at the right for the longest figure written past its bar.
        let x_end = if top > 0.0 { top * 1.3 } else { 1.0 };
        let mut chart = ChartBuilder::on(&body)
            .margin_left(10)
            .margin_right(40)
            .margin_bottom(10)
            .x_label_area_size(60)
            .y_label_area_size(label_px)
            .build_cartesian_2d(0.0..x_end, 0.0..n as f64)?;
        chart
            .configure_mesh()
            .disable_y_mesh()
            .y_labels(0)
            .x_labels(8)
            .x_label_formatter(&|v| style::plain_label(*v))
            .x_desc(self.x_desc.as_str())
            .label_style(style::tick_font())
            .axis_desc_style(style::axis_desc_font())
            .x_max_light_lines(1)
            .light_line_style(RGBColor(235, 235, 235))
            .bold_line_style(RGBColor(215, 215, 215))
            .draw()?;
        // Many bars (Iometer's 48) get a smaller font, so that rows never overlap.
        let row_px = f64::from(chart.plotting_area().dim_in_pixel().1) / n as f64;
        let size = (row_px * 0.8).clamp(9.0, 18.0);
        let label_style = style::tick_font_of(size).pos(Pos::new(HPos::Right, VPos::Center));
        let text_style = style::tick_font_of(size).pos(Pos::new(HPos::Left, VPos::Center));
        for (i, bar) in self.bars.iter().enumerate() {
            // The first point at the top.
            let row = (n - 1 - i) as f64;
            chart.draw_series(std::iter::once(Rectangle::new(
                [(0.0, row + 0.15), (bar.value, row + 0.85)],
                bar.color.filled(),
            )))?;
            let (x0, y) = chart.backend_coord(&(0.0, row + 0.5));
            let (x1, _) = chart.backend_coord(&(bar.value, row + 0.5));
            root.draw_text(&bar.label, &label_style, (x0 - 10, y))?;
            root.draw_text(&bar.text, &text_style, (x1 + 8, y))?;
        }
        if let Some(bracket) = self.bracket.as_ref().filter(|b| b.bar < n) {
            let row = (n - 1 - bracket.bar) as f64;
            let px = |x: f64, y: f64| chart.backend_coord(&(x, y));
            let ink = BLACK.mix(0.75).stroke_width(2);
            let (from, y) = px(bracket.from, row + 0.93);
            let (to, _) = px(bracket.to, row + 0.93);
            let (_, top) = px(bracket.to, n as f64);
            // The guide: a dash of 8 px every 14 px, from the top of the plot to the bracket.
            for y0 in (top..y).step_by(14) {
                root.draw(&PathElement::new(
                    vec![(to, y0), (to, (y0 + 8).min(y))],
                    BLACK.mix(0.5).stroke_width(2),
                ))?;
            }
            root.draw(&PathElement::new(vec![(from, y), (to, y)], ink))?;
            for x in [from, to] {
                root.draw(&PathElement::new(vec![(x, y - 7), (x, y + 7)], ink))?;
            }
            let font = style::tick_font_of(size).pos(Pos::new(HPos::Center, VPos::Bottom));
            root.draw_text(&bracket.text, &font, ((from + to) / 2, y - 6))?;
        }
        Ok(())
    }
}

impl BarChart {
    /// Draws the colour legend as one centred row at the top of `area`, returns the rest.
    fn legend_row<DB: DrawingBackend>(
        &self,
        area: &DrawingArea<DB, Shift>,
        labels: &[String],
    ) -> anyhow::Result<DrawingArea<DB, Shift>>
    where
        DB::ErrorType: 'static,
    {
        if labels.is_empty() {
            return Ok(area.clone());
        }
        let (row, rest) = area.split_vertically(36);
        let widths: Vec<i32> = labels
            .iter()
            .map(|l| 30 + (l.chars().count() as u32 * CHAR_PX) as i32 + 30)
            .collect();
        let mut x = (row.dim_in_pixel().0 as i32 - widths.iter().sum::<i32>()) / 2;
        let font = style::legend_font().pos(Pos::new(HPos::Left, VPos::Center));
        for ((label, color), width) in self.legend.iter().zip(&widths) {
            row.draw(&Rectangle::new([(x, 10), (x + 22, 26)], color.filled()))?;
            row.draw_text(label, &font, (x + 30, 18))?;
            x += width;
        }
        Ok(rest)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The chart drawn to pixels: the RGB buffer and its size.
    fn pixels(chart: &BarChart) -> (Vec<u8>, (u32, u32)) {
        style::register_fonts();
        let size = super::super::SIZE;
        let mut rgb = vec![255; size.0 as usize * size.1 as usize * 3];
        {
            let root = BitMapBackend::with_buffer(&mut rgb, size).into_drawing_area();
            chart.draw(&root).unwrap();
            root.present().unwrap();
        }
        (rgb, size)
    }

    #[test]
    fn a_bracket_spans_the_gap_above_its_bar_from_its_level_to_the_other() {
        let bar = |label: &str, value: f64| Bar {
            label: label.into(),
            value,
            text: String::new(),
            color: RGBColor(0, 114, 178),
        };
        let mut chart = BarChart {
            title: "States".into(),
            subtitle: String::new(),
            x_desc: "IOPS".into(),
            bars: vec![bar("fresh", 6000.0), bar("recovered", 3000.0)],
            legend: Vec::new(),
            bracket: None,
        };
        let (plain, size) = pixels(&chart);
        chart.bracket = Some(Bracket {
            bar: 1,
            from: 3000.0,
            to: 6000.0,
            text: String::new(),
        });
        let (bracketed, _) = pixels(&chart);
        // Columns where the bracket changed a pixel: they run from the recovered bar's end to
        // fresh's, and no further.
        let changed: Vec<u32> = (0..size.0)
            .filter(|&x| {
                (0..size.1).any(|y| {
                    let i = ((y * size.0 + x) * 3) as usize;
                    plain[i..i + 3] != bracketed[i..i + 3]
                })
            })
            .collect();
        let (first, last) = (changed[0], *changed.last().unwrap());
        let bar_px = |value: f64| {
            // The bars' ends, found as the last blue pixel of each bar's row.
            let y = if value > 5000.0 {
                size.1 / 3
            } else {
                size.1 * 3 / 4
            };
            (0..size.0)
                .rev()
                .find(|&x| {
                    let i = ((y * size.0 + x) * 3) as usize;
                    plain[i..i + 3] == [0, 114, 178]
                })
                .unwrap()
        };
        assert!(
            first.abs_diff(bar_px(3000.0)) <= 2,
            "{first} vs {}",
            bar_px(3000.0)
        );
        assert!(
            last.abs_diff(bar_px(6000.0)) <= 2,
            "{last} vs {}",
            bar_px(6000.0)
        );
    }
}
