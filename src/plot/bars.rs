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

/// Everything the bar chart shows.
#[derive(Clone, Debug, PartialEq)]
pub struct BarChart {
    pub title: String,
    pub subtitle: String,
    pub x_desc: String,
    pub bars: Vec<Bar>,
    /// What the colours mean, drawn as one row under the header.
    pub legend: Vec<(String, RGBColor)>,
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
