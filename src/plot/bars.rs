//! A horizontal bar chart: one bar per measured point (a benchmark preset's tests), its figure
//! written at the end of the bar, in the order the points ran, from the top; optionally a
//! reference level per bar drawn as a hollow circle on the bar's row.

use plotters::coord::Shift;
use plotters::prelude::*;
use plotters::style::text_anchor::{HPos, Pos, VPos};
use plotters::style::RGBColor;

use super::drawn;
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
    /// Another measurement's level for this bar, drawn as a hollow circle on its row.
    pub reference: Option<f64>,
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

/// The largest radius of a reference circle, pixels.
const REFERENCE_RADIUS: f64 = 14.0;

/// A reference level's mark: a black ring 3 px wide, open in the middle, so the bar under it
/// shows through.
fn hollow_circle<DB: DrawingBackend>(
    area: &DrawingArea<DB, Shift>,
    centre: (i32, i32),
    radius: i32,
) -> anyhow::Result<()>
where
    DB::ErrorType: 'static,
{
    for r in radius - 2..=radius {
        area.draw(&Circle::new(centre, r, BLACK.stroke_width(1)))?;
    }
    Ok(())
}

/// Room per character of a tick-font label, pixels.
const CHAR_PX: u32 = 11;

impl Chart for BarChart {
    fn draw<DB: DrawingBackend>(&self, root: &DrawingArea<DB, Shift>) -> anyhow::Result<()>
    where
        DB::ErrorType: 'static,
    {
        root.fill(&WHITE)?;
        let body = style::header(root, &self.title, std::slice::from_ref(&self.subtitle))?;
        let body = self.legend_row(&body)?;
        let n = self.bars.len().max(1);
        // The rows' text: large enough to read where a report shows the chart 1280 px wide
        // (a few states: 26 px), smaller with many bars (Iometer's 48) so that rows never
        // overlap. Rows share the body's height less the axis below (60 px and a margin of 10).
        let row_px = f64::from(body.dim_in_pixel().1.saturating_sub(70)) / n as f64;
        let size = (row_px * 0.8).clamp(9.0, 26.0);
        let font = style::tick_font_of(size);
        // A text's width in the bundled font (a generous guess where it cannot be measured).
        let width_of = |text: &str| {
            body.estimate_text_size(text, &font).map_or(
                (size * 0.7) as i32 * text.chars().count() as i32,
                |(w, _)| w as i32,
            )
        };
        let mut label_px = 0;
        for bar in &self.bars {
            label_px = label_px.max(width_of(&bar.label) + 24);
        }
        let radius = (row_px * 0.22).clamp(6.0, REFERENCE_RADIUS) as i32;
        // The axis reaches far enough that every figure written past its bar (and past its
        // reference circle) ends inside the right margin.
        let plot_px = f64::from(body.dim_in_pixel().0 as i32 - 10 - 40 - label_px);
        let top = self
            .bars
            .iter()
            .flat_map(|b| std::iter::once(b.value).chain(b.reference))
            .fold(0.0, f64::max);
        let mut x_end = if top > 0.0 { top * 1.1 } else { 1.0 };
        for bar in &self.bars {
            let reach = bar.value.max(bar.reference.unwrap_or(0.0));
            let gap = 8 + if bar.reference.is_some() { radius } else { 0 };
            let room = plot_px + 30.0 - f64::from(gap + width_of(&bar.text));
            if room > 0.0 {
                x_end = f64::max(x_end, reach * plot_px / room);
            }
        }
        let mut chart = ChartBuilder::on(&body)
            .margin_left(10)
            .margin_right(40)
            .margin_bottom(10)
            .x_label_area_size(60)
            .y_label_area_size(label_px as u32)
            .build_cartesian_2d(0.0..x_end, 0.0..n as f64)?;
        chart
            .configure_mesh()
            .disable_y_mesh()
            .y_labels(0)
            .x_labels(8)
            .x_label_formatter(&|v| style::count_tick(*v, x_end))
            .x_desc(self.x_desc.as_str())
            .label_style(style::tick_font())
            .axis_desc_style(style::axis_desc_font())
            .x_max_light_lines(1)
            .light_line_style(RGBColor(235, 235, 235))
            .bold_line_style(RGBColor(215, 215, 215))
            .draw()?;
        drawn::chart_panel(&chart, &self.x_desc, "bar (top first)");
        let label_style = font.clone().pos(Pos::new(HPos::Right, VPos::Center));
        let text_style = font.clone().pos(Pos::new(HPos::Left, VPos::Center));
        for (i, bar) in self.bars.iter().enumerate() {
            // The first point at the top.
            let row = (n - 1 - i) as f64;
            drawn::band(&bar.label, (0.0, bar.value), Some((row + 0.15, row + 0.85)));
            if let Some(r) = bar.reference {
                drawn::series(
                    &format!("{} reference", bar.label),
                    &self.x_desc,
                    &[(r, row + 0.5)],
                );
            }
            chart.draw_series(std::iter::once(Rectangle::new(
                [(0.0, row + 0.15), (bar.value, row + 0.85)],
                bar.color.filled(),
            )))?;
            let (x0, y) = chart.backend_coord(&(0.0, row + 0.5));
            let (x1, _) = chart.backend_coord(&(bar.value, row + 0.5));
            root.draw_text(&bar.label, &label_style, (x0 - 10, y))?;
            // The figure goes past the bar and past its reference circle, whichever is further.
            let mut text_x = x1 + 8;
            if let Some(r) = bar.reference {
                let (xr, _) = chart.backend_coord(&(r, row + 0.5));
                hollow_circle(root, (xr, y), radius)?;
                text_x = text_x.max(xr + radius + 8);
            }
            root.draw_text(&bar.text, &text_style, (text_x, y))?;
        }
        if let Some(bracket) = self.bracket.as_ref().filter(|b| b.bar < n) {
            let row = (n - 1 - bracket.bar) as f64;
            let px = |x: f64, y: f64| chart.backend_coord(&(x, y));
            let ink = BLACK.mix(0.75).stroke_width(2);
            let (from, y) = px(bracket.from, row + 0.93);
            let (to, _) = px(bracket.to, row + 0.93);
            // The guide: a dash of 8 px every 14 px down to the bracket, from the foot of the
            // bar it measures against (so it crosses no row above that bar), or from the top
            // of the plot when no bar stands at that level.
            let source = self
                .bars
                .iter()
                .position(|b| (b.value - bracket.to).abs() <= 1e-9 * bracket.to.abs().max(1.0));
            let top_row = source.map_or(n as f64, |j| (n - 1 - j) as f64 + 0.15);
            let (_, top) = px(bracket.to, top_row);
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
            let font = font.pos(Pos::new(HPos::Center, VPos::Bottom));
            root.draw_text(&bracket.text, &font, ((from + to) / 2, y - 6))?;
        }
        Ok(())
    }
}

impl BarChart {
    /// Draws the legend as one centred row at the top of `area` (the colours, then
    /// "reference" beside a hollow circle when a bar has one), returns the rest.
    fn legend_row<DB: DrawingBackend>(
        &self,
        area: &DrawingArea<DB, Shift>,
    ) -> anyhow::Result<DrawingArea<DB, Shift>>
    where
        DB::ErrorType: 'static,
    {
        let mut entries: Vec<(&str, Option<RGBColor>)> = self
            .legend
            .iter()
            .map(|(l, c)| (l.as_str(), Some(*c)))
            .collect();
        if self.bars.iter().any(|b| b.reference.is_some()) {
            entries.push(("reference", None));
        }
        if entries.is_empty() {
            return Ok(area.clone());
        }
        let (row, rest) = area.split_vertically(36);
        let widths: Vec<i32> = entries
            .iter()
            .map(|(l, _)| 30 + (l.chars().count() as u32 * CHAR_PX) as i32 + 30)
            .collect();
        let mut x = (row.dim_in_pixel().0 as i32 - widths.iter().sum::<i32>()) / 2;
        let font = style::legend_font().pos(Pos::new(HPos::Left, VPos::Center));
        for ((label, color), width) in entries.iter().zip(&widths) {
            match color {
                Some(color) => {
                    row.draw(&Rectangle::new([(x, 10), (x + 22, 26)], color.filled()))?
                }
                None => hollow_circle(&row, (x + 11, 18), 9)?,
            }
            row.draw_text(label, &font, (x + 30, 18))?;
            x += width;
        }
        Ok(rest)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    const BLUE: [u8; 3] = [0, 114, 178];

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

    /// The pixel at (x, y) of a drawing of `size`.
    fn at(rgb: &[u8], size: (u32, u32), x: u32, y: u32) -> [u8; 3] {
        let i = ((y * size.0 + x) * 3) as usize;
        [rgb[i], rgb[i + 1], rgb[i + 2]]
    }

    /// A blue bar with no text.
    fn bar(label: &str, value: f64, reference: Option<f64>) -> Bar {
        Bar {
            label: label.into(),
            value,
            text: String::new(),
            color: RGBColor(BLUE[0], BLUE[1], BLUE[2]),
            reference,
        }
    }

    /// A states chart of `bars`, without legend or bracket.
    fn states(bars: Vec<Bar>) -> BarChart {
        BarChart {
            title: "States".into(),
            subtitle: String::new(),
            x_desc: "IOPS".into(),
            bars,
            legend: Vec::new(),
            bracket: None,
        }
    }

    /// `chart` drawn without and with a bracket over bar `bar` from `from` to `to`.
    fn with_and_without_bracket(
        mut chart: BarChart,
        bar: usize,
        from: f64,
        to: f64,
    ) -> (Vec<u8>, Vec<u8>, (u32, u32)) {
        let (plain, size) = pixels(&chart);
        chart.bracket = Some(Bracket {
            bar,
            from,
            to,
            text: String::new(),
        });
        let (bracketed, _) = pixels(&chart);
        (plain, bracketed, size)
    }

    #[test]
    fn a_bracket_spans_the_gap_above_its_bar_from_its_level_to_the_other() {
        let chart = states(vec![
            bar("fresh", 6000.0, None),
            bar("recovered", 3000.0, None),
        ]);
        let (plain, bracketed, size) = with_and_without_bracket(chart, 1, 3000.0, 6000.0);
        // Columns where the bracket changed a pixel: they run from the recovered bar's end to
        // fresh's, and no further.
        let changed: Vec<u32> = (0..size.0)
            .filter(|&x| (0..size.1).any(|y| at(&plain, size, x, y) != at(&bracketed, size, x, y)))
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
                .find(|&x| at(&plain, size, x, y) == BLUE)
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

    /// The bracket's dashed guide starts at the foot of the bar it measures against: it
    /// crosses no row above that bar (where another bar's figure is written).
    #[test]
    fn a_brackets_guide_starts_at_the_bar_it_measures_against() {
        let chart = states(vec![
            bar("in service", 4000.0, None),
            bar("fresh", 6000.0, None),
            bar("recovered", 3000.0, None),
        ]);
        let (plain, bracketed, size) = with_and_without_bracket(chart, 2, 3000.0, 6000.0);
        let changed_rows: Vec<u32> = (0..size.1)
            .filter(|&y| (0..size.0).any(|x| at(&plain, size, x, y) != at(&bracketed, size, x, y)))
            .collect();
        // The fresh bar's rows: the middle third of the plot, found as blue pixels in the
        // column just inside its end (beyond the other bars' ends).
        let x_fresh_end = (0..size.0)
            .rev()
            .find(|&x| (0..size.1).any(|y| at(&plain, size, x, y) == BLUE))
            .unwrap()
            - 2;
        let fresh_rows: Vec<u32> = (0..size.1)
            .filter(|&y| at(&plain, size, x_fresh_end, y) == BLUE)
            .collect();
        let fresh_top = fresh_rows[0];
        assert!(
            changed_rows[0] >= fresh_top,
            "the guide starts at row {} above the fresh bar's top {fresh_top}",
            changed_rows[0]
        );
    }

    /// A reference level is a ring centred at its x on its bar's row, open in the middle: the
    /// bar shows through it.
    #[test]
    fn a_reference_is_a_hollow_circle_at_its_level_on_its_bars_row() {
        let chart = |reference| {
            states(vec![
                bar("fresh", 6000.0, None),
                bar("faded", 4000.0, reference),
            ])
        };
        let (marked, size) = pixels(&chart(Some(3000.0)));
        let at = |x: u32, y: u32| at(&marked, size, x, y);
        // A line across the faded bar, near its middle: where the bar starts and ends, and the
        // ring's pixels on it (not the bar's colour, inside the bar).
        let x_in = (0..size.0)
            .find(|&x| at(x, size.1 * 3 / 4) == BLUE)
            .unwrap()
            + 2;
        let rows: Vec<u32> = (size.1 / 2..size.1)
            .filter(|&y| at(x_in, y) == BLUE)
            .collect();
        let y = (rows[0] + rows.last().unwrap()) / 2;
        let bar: Vec<u32> = (0..size.0).filter(|&x| at(x, y) == BLUE).collect();
        let (x0, x4000) = (bar[0], *bar.last().unwrap());
        let expected = x0 as f64 + (x4000 - x0) as f64 * 3000.0 / 4000.0;
        let ring: Vec<u32> = (x0..x4000).filter(|&x| at(x, y) != BLUE).collect();
        let (left, right) = (ring[0], *ring.last().unwrap());
        let centre = f64::from(left + right) / 2.0;
        assert!((centre - expected).abs() <= 2.0, "{centre} vs {expected}");
        assert!(
            right - left <= 2 * REFERENCE_RADIUS as u32 + 2,
            "{left}..{right}"
        );
        // Hollow: the bar's colour inside the ring, all around its centre.
        assert!(
            ring.iter().all(|&x| x.abs_diff(centre as u32) >= 4),
            "{ring:?}"
        );
        // Without a reference, no ring.
        let plain = chart(None);
        let (plain, _) = pixels(&plain);
        let i = ((y * size.0 + centre as u32 + (right - left) / 2) * 3) as usize;
        assert_ne!(plain[i..i + 3], marked[i..i + 3]);
    }
}
