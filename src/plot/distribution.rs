//! The latency distribution chart: above, the share of I/Os in each latency bin (10 bins a
//! decade, a log latency axis); below, the exceedance curve — the share of I/Os slower than
//! each latency on a log axis, where p99, p99.9 and p99.99 are the 1 %, 0.1 % and 0.01 %
//! lines. One series per run or phase, each in its own colour, drawn from the histograms: up
//! to three overlaid (fresh and faded), more as small multiples (a row of shares per series),
//! more than seven in panels side by side over the same axes. A series whose I/Os lie in one
//! bucket ends its curve in a dot with a drop to the axis.

use plotters::coord::Shift;
use plotters::prelude::*;
use plotters::style::text_anchor::{HPos, Pos, VPos};

use super::latency::log_ticks;
use super::style;
use super::Chart;
use crate::analysis::latency::{Bin, Distribution, MAX_PHASES};

/// One distribution on the chart.
#[derive(Clone, Debug, PartialEq)]
pub struct DistributionSeries {
    pub label: String,
    pub color: RGBColor,
    pub bins: Vec<Bin>,
    /// `(µs, share slower, 0–1)`, as [`Distribution::exceedance`] gives it.
    pub exceedance: Vec<(f64, f64)>,
    /// The slowest I/O, µs: the curve's last share holds up to it.
    pub max_us: f64,
}

impl DistributionSeries {
    /// The series of `d`, named `label`, in the `i`-th palette colour.
    pub fn of(label: impl Into<String>, d: &Distribution, i: usize) -> DistributionSeries {
        DistributionSeries {
            label: format!(
                "{} ({} I/Os)",
                label.into(),
                style::count_label(d.count as f64)
            ),
            color: style::palette(i),
            bins: d.bins(),
            exceedance: d.exceedance(),
            max_us: d.max_us,
        }
    }
}

/// An exceedance curve narrower than this (log10 of the latency; about 15 px) is drawn as a
/// dot with a drop, not left a dot alone.
const NARROW_DECADES: f64 = 0.05;

/// Series a panel overlays in one plot of shares per bin; more go in a row each.
const OVERLAID: usize = 3;

/// The outline of `s`'s shares per bin as steps, each share times `scale` above `base`.
fn steps(s: &DistributionSeries, base: f64, scale: f64) -> Vec<(f64, f64)> {
    let mut steps = Vec::new();
    if let Some(first) = s.bins.first() {
        steps.push((first.lo_us.log10(), base));
    }
    for b in &s.bins {
        steps.push((b.lo_us.log10(), base + b.pct * scale));
        steps.push((b.hi_us.log10(), base + b.pct * scale));
    }
    if let Some(last) = s.bins.last() {
        steps.push((last.hi_us.log10(), base));
    }
    steps
}

/// Everything the distribution chart shows.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct DistributionChart {
    pub title: String,
    pub subtitle: String,
    pub series: Vec<DistributionSeries>,
}

/// The shares the exceedance axis names (every decade below 100 %, and 50 %), each with the
/// percentile it marks: 1 % slower is p99. 100 % goes unnamed: on a log axis it sits a third
/// of a decade above 50 % and the two labels would overprint.
fn nines(lowest_decade: i32) -> Vec<(f64, String)> {
    let mut marks = vec![(0.5, "50 % (p50)".to_string())];
    for k in 1..=lowest_decade {
        let pct = 100.0 * 10f64.powi(-k);
        let nines = match k {
            1 => " (p90)".into(),
            2 => " (p99)".into(),
            3..=5 => format!(" (p99.{})", "9".repeat(k as usize - 2)),
            _ => String::new(),
        };
        marks.push((
            10f64.powi(-k),
            format!("{pct:.*} %{nines}", (k - 2).max(0) as usize),
        ));
    }
    marks
}

impl DistributionChart {
    /// log10 of the latency range the series cover, with a margin.
    fn x_range(&self) -> std::ops::Range<f64> {
        let lo = self
            .series
            .iter()
            .flat_map(|s| s.bins.first().map(|b| b.lo_us))
            .fold(f64::INFINITY, f64::min);
        let hi = self
            .series
            .iter()
            .flat_map(|s| s.bins.last().map(|b| b.hi_us))
            .fold(0.0, f64::max);
        if hi > 0.0 && lo.is_finite() {
            (lo / 1.3).log10()..(hi * 1.3).log10()
        } else {
            0.0..1.0
        }
    }

    /// The legend along the top of `area`, in as many centred rows as the labels need (an
    /// experiment of nine phases does not fit one); returns the area below it.
    fn legend<DB: DrawingBackend>(
        series: &[DistributionSeries],
        area: &DrawingArea<DB, Shift>,
    ) -> anyhow::Result<DrawingArea<DB, Shift>>
    where
        DB::ErrorType: 'static,
    {
        const ROW: i32 = 28;
        let font = style::legend_font();
        let width = area.dim_in_pixel().0 as i32;
        // Each entry: a 28 px swatch, 8 px, its label, 36 px to the next.
        let entries: Vec<(&DistributionSeries, i32)> = series
            .iter()
            .map(|s| {
                let w = area
                    .estimate_text_size(&s.label, &font)
                    .map_or(9 * s.label.len() as i32, |(w, _)| w as i32);
                (s, 36 + w)
            })
            .collect();
        let mut rows: Vec<Vec<(&DistributionSeries, i32)>> = vec![Vec::new()];
        let mut used = 0;
        for (s, w) in entries {
            let row = rows.last_mut().expect("one row at least");
            if !row.is_empty() && used + 36 + w > width - 16 {
                rows.push(vec![(s, w)]);
                used = w;
            } else {
                used += if row.is_empty() { w } else { 36 + w };
                row.push((s, w));
            }
        }
        let (band, rest) = area.split_vertically(ROW * rows.len() as i32 + 6);
        for (i, row) in rows.iter().enumerate() {
            let y = ROW * i as i32 + 17;
            let total: i32 = row.iter().map(|(_, w)| w + 36).sum::<i32>() - 36;
            let mut x = ((width - total) / 2).max(8);
            for (s, w) in row {
                band.draw(&PathElement::new(
                    vec![(x, y), (x + 28, y)],
                    s.color.stroke_width(4),
                ))?;
                band.draw(&Text::new(
                    s.label.clone(),
                    (x + 36, y),
                    font.clone().pos(Pos::new(HPos::Left, VPos::Center)),
                ))?;
                x += w + 36;
            }
        }
        Ok(rest)
    }

    /// Vertical grid lines and latency labels at 1-2-5 values (or fewer over many decades).
    fn x_grid<DB: DrawingBackend>(
        chart: &mut super::LinearChart<'_, DB>,
        root: &DrawingArea<DB, Shift>,
        x: &std::ops::Range<f64>,
        y: &std::ops::Range<f64>,
    ) -> anyhow::Result<()>
    where
        DB::ErrorType: 'static,
    {
        for tick in log_ticks(x.start, x.end) {
            let tx = tick.log10();
            chart.draw_series(std::iter::once(PathElement::new(
                vec![(tx, y.start), (tx, y.end)],
                BLACK.mix(0.10),
            )))?;
            let (px, py) = chart.backend_coord(&(tx, y.start));
            root.draw(&Text::new(
                crate::units::format_latency_us(tick),
                (px, py + 8),
                style::tick_font().pos(Pos::new(HPos::Center, VPos::Top)),
            ))?;
        }
        Ok(())
    }
}

impl Chart for DistributionChart {
    fn draw<DB: DrawingBackend>(&self, root: &DrawingArea<DB, Shift>) -> anyhow::Result<()>
    where
        DB::ErrorType: 'static,
    {
        root.fill(&WHITE)?;
        // One header line per line of the subtitle (the phases left out go on their own).
        let lines: Vec<String> = self.subtitle.lines().map(str::to_string).collect();
        let body = style::header(root, &self.title, &lines)?;
        // The axes every panel shares, so that panels side by side compare.
        let x = self.x_range();
        let peak = self
            .series
            .iter()
            .flat_map(|s| s.bins.iter().map(|b| b.pct))
            .fold(0.0, f64::max);
        let y_top = if peak > 0.0 { peak * 1.1 } else { 1.0 };
        let smallest = self
            .series
            .iter()
            .flat_map(|s| s.exceedance.last().map(|p| p.1))
            .fold(1.0, f64::min);
        let y = (smallest.log10().floor() - 0.3).min(-2.3)..0.15;
        // More series than one panel's palette: panels side by side, each of at most
        // MAX_PHASES series, as even as they go.
        let panels = self.series.len().div_ceil(MAX_PHASES).max(1);
        let per_panel = self.series.len().div_ceil(panels).max(1);
        let mut rest = body;
        for (i, series) in self.series.chunks(per_panel).enumerate() {
            let columns_left = (panels - i) as i32;
            let (area, right) =
                rest.split_horizontally(rest.dim_in_pixel().0 as i32 / columns_left);
            Self::draw_panel(root, &area, series, &x, y_top, &y)?;
            rest = right;
        }
        Ok(())
    }
}

impl DistributionChart {
    /// One panel into `body` (of `root`, where the tick labels go): the legend of `series`,
    /// their shares per bin above and their exceedance below, over the shared axes.
    fn draw_panel<DB: DrawingBackend>(
        root: &DrawingArea<DB, Shift>,
        body: &DrawingArea<DB, Shift>,
        series: &[DistributionSeries],
        x: &std::ops::Range<f64>,
        y_top: f64,
        y: &std::ops::Range<f64>,
    ) -> anyhow::Result<()>
    where
        DB::ErrorType: 'static,
    {
        let body = Self::legend(series, body)?;
        let (top, bottom) = body.split_vertically(body.dim_in_pixel().1 as i32 * 2 / 5);

        // Above: % of I/Os per bin, overlaid outlines of steps for a few series, a row each
        // (small multiples on one scale) for more, whose outlines would hide each other.
        if series.len() > OVERLAID {
            Self::draw_rows(root, &top, series, x, y_top)?;
        } else {
            Self::draw_overlaid(root, &top, series, x, y_top)?;
        }

        // Below: share of I/Os slower than x, both axes log.
        let y = y.clone();
        let mut chart = ChartBuilder::on(&bottom)
            .margin_left(12)
            .margin_right(36)
            .margin_top(16)
            .margin_bottom(8)
            .x_label_area_size(70)
            .y_label_area_size(200)
            .build_cartesian_2d(x.clone(), y.clone())?;
        chart
            .configure_mesh()
            .x_desc("Latency (log scale)")
            .y_desc("Share of I/Os slower (log scale)")
            .x_labels(0)
            .y_labels(0)
            .label_style(style::tick_font())
            .axis_desc_style(style::axis_desc_font())
            .light_line_style(WHITE.mix(0.0))
            .bold_line_style(WHITE.mix(0.0))
            .draw()?;
        super::drawn::chart_panel(&chart, "log10 of latency (µs)", "log10 of share slower");
        Self::x_grid(&mut chart, root, x, &y)?;
        for (share, label) in nines(-y.start.floor() as i32) {
            let ty = share.log10();
            if ty < y.start || ty > y.end {
                continue;
            }
            chart.draw_series(std::iter::once(PathElement::new(
                vec![(x.start, ty), (x.end, ty)],
                BLACK.mix(0.15),
            )))?;
            let (px, py) = chart.backend_coord(&(x.start, ty));
            root.draw(&Text::new(
                label,
                (px - 10, py),
                style::tick_font().pos(Pos::new(HPos::Right, VPos::Center)),
            ))?;
        }
        for s in series {
            // Steps: the share holds until the next bucket's top.
            let mut steps: Vec<(f64, f64)> = Vec::new();
            for &(us, share) in &s.exceedance {
                if let Some(&(_, prev)) = steps.last() {
                    steps.push((us.log10(), prev));
                }
                steps.push((us.log10(), share.log10()));
            }
            // On to the slowest I/O, which may lie inside the last bucket (below its top).
            if let Some(&(x, last)) = steps.last() {
                steps.push((s.max_us.log10().max(x), last));
            }
            super::drawn::series(&s.label, "log10 share", &steps);
            // A series whose I/Os all lie in one bucket or two is a curve a few pixels long:
            // a dot with a drop to the axis at its slowest I/O, where the share slower ends.
            let (first, end) = (steps.first().copied(), steps.last().copied());
            if let (Some(first), Some(end)) = (first, end) {
                if end.0 - first.0 < NARROW_DECADES {
                    chart.draw_series(std::iter::once(PathElement::new(
                        vec![end, (end.0, y.start)],
                        s.color.stroke_width(3),
                    )))?;
                    chart.draw_series(std::iter::once(Circle::new(end, 7, s.color.filled())))?;
                }
            }
            chart.draw_series(LineSeries::new(steps, s.color.stroke_width(3)))?;
        }
        Ok(())
    }

    /// The outlines of steps of `series`' shares per bin, overlaid on one plot in `top`, each
    /// filled in a light tint first so no fill hides a line.
    fn draw_overlaid<DB: DrawingBackend>(
        root: &DrawingArea<DB, Shift>,
        top: &DrawingArea<DB, Shift>,
        series: &[DistributionSeries],
        x: &std::ops::Range<f64>,
        y_top: f64,
    ) -> anyhow::Result<()>
    where
        DB::ErrorType: 'static,
    {
        let mut chart = ChartBuilder::on(top)
            .margin_left(12)
            .margin_right(36)
            .margin_top(8)
            .margin_bottom(4)
            .x_label_area_size(40)
            .y_label_area_size(200)
            .build_cartesian_2d(x.clone(), 0f64..y_top)?;
        style::mesh(&mut chart)
            .y_desc("% of I/Os per bin")
            .x_labels(0)
            .y_labels(5)
            .y_label_formatter(&|v| style::plain_label(*v))
            .draw()?;
        super::drawn::chart_panel(&chart, "log10 of latency (µs)", "% of I/Os per bin");
        Self::x_grid(&mut chart, root, x, &(0.0..y_top))?;
        // The outlines of steps, filled in a light tint first so no fill hides a line.
        let outlines: Vec<Vec<(f64, f64)>> = series.iter().map(|s| steps(s, 0.0, 1.0)).collect();
        for (s, steps) in series.iter().zip(&outlines) {
            chart.draw_series(std::iter::once(Polygon::new(
                steps.clone(),
                style::lighter(s.color, 0.85).mix(0.6).filled(),
            )))?;
        }
        for (s, steps) in series.iter().zip(outlines) {
            super::drawn::series(&s.label, "% of I/Os", &steps);
            chart.draw_series(LineSeries::new(steps, s.color.stroke_width(2)))?;
        }
        Ok(())
    }

    /// `series`' shares per bin in `top`, one row each from the top down (small multiples on
    /// one scale: a row's height is `y_top`), named at the left of its row.
    fn draw_rows<DB: DrawingBackend>(
        root: &DrawingArea<DB, Shift>,
        top: &DrawingArea<DB, Shift>,
        series: &[DistributionSeries],
        x: &std::ops::Range<f64>,
        y_top: f64,
    ) -> anyhow::Result<()>
    where
        DB::ErrorType: 'static,
    {
        let rows = series.len() as f64;
        let mut chart = ChartBuilder::on(top)
            .margin_left(12)
            .margin_right(36)
            .margin_top(8)
            .margin_bottom(4)
            .x_label_area_size(40)
            .y_label_area_size(200)
            .build_cartesian_2d(x.clone(), 0f64..rows)?;
        chart
            .configure_mesh()
            .y_desc("% of I/Os per bin, a row each")
            .x_labels(0)
            .y_labels(0)
            .label_style(style::tick_font())
            .axis_desc_style(style::axis_desc_font())
            .bold_line_style(WHITE.mix(0.0))
            .light_line_style(WHITE.mix(0.0))
            .draw()?;
        // Recorded as shares per bin (each row draws its own on one scale, offset to its row).
        super::drawn::chart_panel(
            &chart,
            "log10 of latency (µs)",
            "% of I/Os per bin, a row each",
        );
        Self::x_grid(&mut chart, root, x, &(0.0..rows))?;
        let font = style::tick_font_of(15.0);
        for (i, s) in series.iter().enumerate() {
            let base = rows - 1.0 - i as f64;
            chart.draw_series(std::iter::once(PathElement::new(
                vec![(x.start, base), (x.end, base)],
                BLACK.mix(0.2),
            )))?;
            super::drawn::series(&s.label, "% of I/Os", &steps(s, 0.0, 1.0));
            let outline = steps(s, base, 0.95 / y_top);
            chart.draw_series(std::iter::once(Polygon::new(
                outline.clone(),
                style::lighter(s.color, 0.6).filled(),
            )))?;
            chart.draw_series(LineSeries::new(outline, s.color.stroke_width(2)))?;
            let (px, py) = chart.backend_coord(&(x.start, base + 0.35));
            let name = s.label.split(" (").next().unwrap_or(&s.label).to_string();
            root.draw(&Text::new(
                name,
                (px - 10, py),
                font.clone()
                    .color(&s.color)
                    .pos(Pos::new(HPos::Right, VPos::Center)),
            ))?;
        }
        Ok(())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The `i`-th series: 1000 writes that each took `us`, as the run records them.
    fn all_at(us: f64, i: usize) -> DistributionSeries {
        let mut total = crate::stats::IntervalStats::new();
        total
            .write
            .record_n(1000, 1000 * 4096, (us * 1000.0) as u64);
        let record = crate::results::LatencyRecord::of(&total);
        let d = Distribution::of(record.all.as_ref().unwrap()).unwrap();
        DistributionSeries::of(format!("phase{i}"), &d, i)
    }

    /// HIR's ten phases: rows of shares (a polygon per series, no two in one colour) and a
    /// single-bucket series is a dot with a drop, not a dot alone.
    #[test]
    fn ten_series_are_rows_in_their_own_colours_and_one_bucket_is_a_dot_with_a_drop() {
        let chart = DistributionChart {
            series: (0..10)
                .map(|i| all_at(1000.0 * (i + 1) as f64, i))
                .collect(),
            ..Default::default()
        };
        let svg = chart.svg().unwrap();
        let hex = |RGBColor(r, g, b): RGBColor| format!("#{r:02X}{g:02X}{b:02X}");
        let mut colours: Vec<String> = chart.series.iter().map(|s| hex(s.color)).collect();
        colours.sort();
        colours.dedup();
        assert_eq!(colours.len(), 10);
        for s in &chart.series {
            let name = s.label.split(" (").next().unwrap();
            assert!(
                super::super::svg_texts(&svg).iter().any(|t| t == name),
                "{name}"
            );
            let circles = svg
                .split("<circle ")
                .skip(1)
                .filter(|c| c.split("/>").next().unwrap().contains(&hex(s.color)))
                .count();
            assert_eq!(circles, 1, "{name}: the dot at its one bucket");
        }
    }

    #[test]
    fn each_decade_of_the_exceedance_axis_names_its_percentile() {
        let marks = nines(5);
        let label = |share: f64| {
            marks
                .iter()
                .find(|m| (m.0 - share).abs() < share * 1e-9)
                .map(|m| m.1.as_str())
        };
        assert_eq!(label(1.0), None);
        assert_eq!(label(0.5), Some("50 % (p50)"));
        assert_eq!(label(0.01), Some("1 % (p99)"));
        assert_eq!(label(0.001), Some("0.1 % (p99.9)"));
        assert_eq!(label(1e-5), Some("0.001 % (p99.999)"));
        assert_eq!(nines(6).last().unwrap().1, "0.0001 %");
        assert_eq!(marks.len(), 6);
    }
}
