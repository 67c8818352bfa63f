//! The SLC-cache chart (`slc-cache.png`): on top, the whole-drive write's MB/s against the data
//! written (each sample, and the nine-sample rate the rule reads), with the cache's end, the
//! in-cache, post-cache and folding speeds drawn and named in the legend; below, the cache each
//! idle gap gave back against the gap's length. It draws [`crate::analysis::slc_cache`]'s
//! figures and computes none.

use plotters::coord::types::RangedCoordf64;
use plotters::coord::Shift;
use plotters::prelude::*;
use plotters::style::text_anchor::{HPos, Pos, VPos};

use super::downsample::{min_max, MAX_BUCKETS};
use super::{drawn, style, Chart};
use crate::analysis::slc_cache::SlcCacheFigures;

/// Everything the chart shows.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct SlcCacheChart {
    pub title: String,
    pub subtitle: String,
    pub figures: SlcCacheFigures,
}

const X_WRITE: &str = "Data written (GB)";
const Y_SPEED: &str = "Write speed (MB/s)";
const X_IDLE: &str = "Idle before the short write (min)";
const Y_BACK: &str = "Cache back (GB)";

/// A panel's coordinates.
type Coords = Cartesian2d<RangedCoordf64, RangedCoordf64>;

/// A horizontal level at `y` over `x` in palette colour `k`, named in the legend by `label`.
fn level<DB: DrawingBackend>(
    chart: &mut ChartContext<'_, DB, Coords>,
    name: &str,
    x: (f64, f64),
    y: f64,
    label: String,
    k: usize,
) -> anyhow::Result<()>
where
    DB::ErrorType: 'static,
{
    let line = [(x.0, y), (x.1, y)];
    drawn::series(name, "MB/s", &line);
    let color = style::palette(k);
    chart
        .draw_series(LineSeries::new(line, color.stroke_width(4)))?
        .label(label)
        .legend(move |(x, y)| PathElement::new([(x, y), (x + 24, y)], color.stroke_width(4)));
    Ok(())
}

/// An empty panel of `x` by `y` with its axes, recorded.
fn axes<'a, DB: DrawingBackend>(
    area: &'a DrawingArea<DB, Shift>,
    (x_desc, x_max): (&str, f64),
    (y_desc, y_max): (&str, f64),
    margin_top: u32,
) -> anyhow::Result<ChartContext<'a, DB, Coords>>
where
    DB::ErrorType: 'static,
{
    let mut chart = ChartBuilder::on(area)
        .margin_left(12)
        .margin_right(36)
        .margin_top(margin_top)
        .x_label_area_size(58)
        .y_label_area_size(96)
        .build_cartesian_2d(0f64..x_max, 0f64..y_max)?;
    style::mesh(&mut chart)
        .x_desc(x_desc)
        .y_desc(y_desc)
        .x_label_formatter(&|v| style::plain_label(*v))
        .y_label_formatter(&|v| style::count_tick(*v, y_max))
        .y_labels(6)
        .draw()?;
    drawn::chart_panel(&chart, x_desc, y_desc);
    Ok(chart)
}

impl SlcCacheChart {
    /// The top panel: MB/s against GB written, the levels and the cache's end.
    fn speed_panel<DB: DrawingBackend>(&self, area: &DrawingArea<DB, Shift>) -> anyhow::Result<()>
    where
        DB::ErrorType: 'static,
    {
        let f = &self.figures;
        let raw: Vec<(f64, f64)> = f
            .points
            .iter()
            .map(|p| (p.bytes / 1e9, p.mb_per_s))
            .collect();
        let smooth: Vec<(f64, f64)> = f
            .points
            .iter()
            .map(|p| (p.bytes / 1e9, p.smoothed_mb_per_s))
            .collect();
        let x_max = raw.last().map_or(1.0, |p| p.0).max(1e-3);
        let y_max = raw.iter().map(|p| p.1).fold(1.0, f64::max) * 1.45;
        let mut chart = axes(area, (X_WRITE, x_max), (Y_SPEED, y_max), 8)?;
        let light = style::lighter(style::palette(0), 0.6);
        let shown = min_max(&raw, MAX_BUCKETS);
        // What a point is: one sample, or samples taken together where writes complete in
        // lumps.
        let (per_point, over_nine) = if f.points_taken_together {
            (
                "MB/s per point (samples taken together, at least two write lumps each)",
                "MB/s over nine points",
            )
        } else {
            ("MB/s per sample", "MB/s over nine samples")
        };
        drawn::series(per_point, "MB/s", &shown);
        chart
            .draw_series(LineSeries::new(shown, light.stroke_width(1)))?
            .label(per_point)
            .legend(move |(x, y)| PathElement::new([(x, y), (x + 24, y)], light.stroke_width(3)));
        let shown = min_max(&smooth, MAX_BUCKETS);
        drawn::series(over_nine, "MB/s", &shown);
        let dark = style::palette(0);
        chart
            .draw_series(LineSeries::new(shown, dark.stroke_width(2)))?
            .label(over_nine)
            .legend(move |(x, y)| PathElement::new([(x, y), (x + 24, y)], dark.stroke_width(3)));
        match &f.cache {
            None => {
                let y = f.mean_mb_per_s;
                let label = format!("{y:.0} MB/s throughout: no SLC cache seen");
                level(&mut chart, "mean", (0.0, x_max), y, label, 1)?;
            }
            Some(c) => {
                let edge = c.bytes / 1e9;
                let label = format!("in cache {:.0} MB/s", c.in_cache_mb_per_s);
                let y = c.in_cache_mb_per_s;
                level(&mut chart, "in-cache speed", (0.0, edge), y, label, 1)?;
                if let Some(post) = c.post_cache_mb_per_s {
                    let end = c.folding.map_or(x_max, |d| d.start_bytes / 1e9);
                    let label = format!("after the cache {post:.0} MB/s");
                    level(&mut chart, "post-cache speed", (edge, end), post, label, 2)?;
                }
                if let Some(d) = &c.folding {
                    let x = (d.start_bytes / 1e9, d.end_bytes / 1e9);
                    drawn::band("folding", x, None);
                    chart.draw_series(std::iter::once(Rectangle::new(
                        [(x.0, 0.0), (x.1, y_max)],
                        style::palette(3).mix(0.12).filled(),
                    )))?;
                    let label = format!("folding {:.0} MB/s (shaded)", d.mb_per_s);
                    level(&mut chart, "folding speed", x, d.mb_per_s, label, 3)?;
                }
                drawn::series("cache end", "GB", &[(edge, 0.0), (edge, y_max)]);
                chart
                    .draw_series(DashedLineSeries::new(
                        vec![(edge, 0.0), (edge, y_max)],
                        8,
                        6,
                        BLACK.stroke_width(2),
                    ))?
                    .label(format!("cache {edge:.1} GB (dashed)"))
                    .legend(|(x, y)| {
                        PathElement::new([(x, y), (x + 24, y)], BLACK.stroke_width(2))
                    });
            }
        }
        style::legend(&mut chart)
            .position(SeriesLabelPosition::UpperRight)
            .margin(12)
            .draw()?;
        Ok(())
    }

    /// The bottom panel: the cache each gap gave back against the gap's length.
    fn refill_panel<DB: DrawingBackend>(&self, area: &DrawingArea<DB, Shift>) -> anyhow::Result<()>
    where
        DB::ErrorType: 'static,
    {
        let f = &self.figures;
        let points: Vec<(f64, f64)> = f
            .refills
            .iter()
            .map(|r| (r.idle_s / 60.0, r.regained_bytes / 1e9))
            .collect();
        let x_max = points.iter().map(|p| p.0).fold(1.0, f64::max) * 1.08;
        let y_max = points.iter().map(|p| p.1).fold(0.0, f64::max).max(0.1) * 1.25;
        let mut chart = axes(area, (X_IDLE, x_max), (Y_BACK, y_max), 18)?;
        let color = style::palette(4);
        drawn::series("cache back after idle", "GB", &points);
        chart.draw_series(LineSeries::new(points.clone(), color.stroke_width(2)))?;
        chart.draw_series(points.iter().map(|&p| Circle::new(p, 6, color.filled())))?;
        let note = match (&f.cache, f.refills.is_empty()) {
            (None, _) => "no cache seen: nothing to refill".to_string(),
            (Some(_), true) => "no short writes after idle yet".to_string(),
            (Some(_), false) => match f.refill_bytes_per_min {
                Some(rate) => format!(
                    "refill {}{:.2} GB per idle minute",
                    if f.refill_rate_at_least {
                        "at least "
                    } else {
                        ""
                    },
                    rate / 1e9
                ),
                None => "no cache came back at idle".to_string(),
            },
        };
        chart.draw_series(std::iter::once(Text::new(
            note,
            (x_max * 0.98, y_max * 0.06),
            style::legend_font().pos(Pos::new(HPos::Right, VPos::Bottom)),
        )))?;
        Ok(())
    }
}

impl Chart for SlcCacheChart {
    fn draw<DB: DrawingBackend>(&self, root: &DrawingArea<DB, Shift>) -> anyhow::Result<()>
    where
        DB::ErrorType: 'static,
    {
        root.fill(&WHITE)?;
        let lines = [self.subtitle.clone(), self.figures.answer.clone()];
        let body = style::header(root, &self.title, &lines)?;
        let height = body.dim_in_pixel().1;
        let (top, bottom) = body.split_vertically(height * 3 / 5);
        self.speed_panel(&top)?;
        self.refill_panel(&bottom)?;
        Ok(())
    }
}
