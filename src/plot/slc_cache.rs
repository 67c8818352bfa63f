//! The SLC-cache chart (`slc-cache.png`): on top, the whole-drive write's MB/s against the data
//! written, with the cache's end, the in-cache and post-cache speeds and the folding phase
//! marked and labelled; below, the cache each idle gap gave back against the gap's length.
//! It draws [`crate::analysis::slc_cache`]'s figures and computes none.

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

impl SlcCacheChart {
    /// The top panel: MB/s against GB written, the levels and the cache's end.
    fn speed_panel<DB: DrawingBackend>(&self, area: &DrawingArea<DB, Shift>) -> anyhow::Result<()>
    where
        DB::ErrorType: 'static,
    {
        let f = &self.figures;
        let points: Vec<(f64, f64)> = f
            .points
            .iter()
            .map(|p| (p.bytes / 1e9, p.mb_per_s))
            .collect();
        let x_max = points.last().map_or(1.0, |p| p.0).max(1e-3);
        let y_max = points.iter().map(|p| p.1).fold(1.0, f64::max) * 1.2;
        let mut chart = ChartBuilder::on(area)
            .margin_left(12)
            .margin_right(36)
            .margin_top(8)
            .x_label_area_size(58)
            .y_label_area_size(96)
            .build_cartesian_2d(0f64..x_max, 0f64..y_max)?;
        chart
            .configure_mesh()
            .x_desc(X_WRITE)
            .y_desc(Y_SPEED)
            .x_label_formatter(&|v| style::plain_label(*v))
            .y_label_formatter(&|v| style::count_tick(*v, y_max))
            .y_labels(6)
            .label_style(style::tick_font())
            .axis_desc_style(style::axis_desc_font())
            .bold_line_style(BLACK.mix(0.10))
            .light_line_style(WHITE.mix(0.0))
            .draw()?;
        drawn::chart_panel(&chart, X_WRITE, Y_SPEED);
        let shown = min_max(&points, MAX_BUCKETS);
        drawn::series("MB/s per sample", "MB/s", &shown);
        chart.draw_series(LineSeries::new(shown, style::palette(0).stroke_width(2)))?;
        let Some(c) = &f.cache else {
            let y = f.mean_mb_per_s;
            self.level(&mut chart, "mean", (0.0, x_max), y, format!("{y:.0} MB/s throughout, no SLC cache seen"), 1)?;
            return Ok(());
        };
        let edge = c.bytes / 1e9;
        if let Some(d) = &c.folding {
            let x = (d.start_bytes / 1e9, d.end_bytes / 1e9);
            drawn::band("folding", x, None);
            chart.draw_series(std::iter::once(Rectangle::new(
                [(x.0, 0.0), (x.1, y_max)],
                style::palette(3).mix(0.15).filled(),
            )))?;
            let label = format!("folding {:.0} MB/s", d.mb_per_s);
            self.level(&mut chart, "folding speed", x, d.mb_per_s, label, 3)?;
        }
        let label = format!("in cache {:.0} MB/s", c.in_cache_mb_per_s);
        self.level(&mut chart, "in-cache speed", (0.0, edge), c.in_cache_mb_per_s, label, 1)?;
        if let Some(post) = c.post_cache_mb_per_s {
            let end = c.folding.map_or(x_max, |d| d.start_bytes / 1e9);
            let label = format!("after the cache {post:.0} MB/s");
            self.level(&mut chart, "post-cache speed", (edge, end), post, label, 2)?;
        }
        drawn::series("cache end", "GB", &[(edge, 0.0), (edge, y_max)]);
        chart.draw_series(DashedLineSeries::new(
            vec![(edge, 0.0), (edge, y_max)],
            8,
            6,
            BLACK.stroke_width(2),
        ))?;
        chart.draw_series(std::iter::once(Text::new(
            format!("cache {edge:.1} GB"),
            (edge, y_max * 0.97),
            style::legend_font().pos(Pos::new(HPos::Left, VPos::Top)),
        )))?;
        Ok(())
    }

    /// A labelled horizontal level at `y` over `x`, in palette colour `k`.
    fn level<DB: DrawingBackend>(
        &self,
        chart: &mut ChartContext<'_, DB, Cartesian2d<plotters::coord::types::RangedCoordf64, plotters::coord::types::RangedCoordf64>>,
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
        chart.draw_series(LineSeries::new(line, style::palette(k).stroke_width(3)))?;
        chart.draw_series(std::iter::once(Text::new(
            label,
            ((x.0 + x.1) / 2.0, y),
            style::legend_font().pos(Pos::new(HPos::Center, VPos::Bottom)),
        )))?;
        Ok(())
    }

    /// The bottom panel: the cache each gap gave back against the gap's length.
    fn refill_panel<DB: DrawingBackend>(
        &self,
        area: &DrawingArea<DB, Shift>,
    ) -> anyhow::Result<()>
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
        let mut chart = ChartBuilder::on(area)
            .margin_left(12)
            .margin_right(36)
            .margin_top(18)
            .x_label_area_size(58)
            .y_label_area_size(96)
            .build_cartesian_2d(0f64..x_max, 0f64..y_max)?;
        chart
            .configure_mesh()
            .x_desc(X_IDLE)
            .y_desc(Y_BACK)
            .x_label_formatter(&|v| style::plain_label(*v))
            .y_label_formatter(&|v| style::plain_label(*v))
            .y_labels(5)
            .label_style(style::tick_font())
            .axis_desc_style(style::axis_desc_font())
            .bold_line_style(BLACK.mix(0.10))
            .light_line_style(WHITE.mix(0.0))
            .draw()?;
        drawn::chart_panel(&chart, X_IDLE, Y_BACK);
        let color = style::palette(4);
        drawn::series("cache back after idle", "GB", &points);
        chart.draw_series(LineSeries::new(points.clone(), color.stroke_width(2)))?;
        chart.draw_series(points.iter().map(|&p| Circle::new(p, 6, color.filled())))?;
        let note = match (&f.cache, f.refills.is_empty()) {
            (None, _) => "no cache seen: nothing to refill".to_string(),
            (Some(_), true) => "no short writes after idle yet".to_string(),
            (Some(_), false) => match f.refill_bytes_per_min {
                Some(rate) => format!(
                    "{}{:.2} GB per idle minute",
                    if f.refill_rate_at_least { "at least " } else { "" },
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
