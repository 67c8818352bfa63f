//! The cross-stimulus-recovery chart (`xsr.png`, SNIA XSR): MB/s of every sample against time
//! over the three segments (1024 KiB sequential, 8 KiB random, 1024 KiB sequential writes),
//! the change of stimulus dashed, each segment's band shaded and its recovery marked. It draws
//! [`crate::analysis::xsr`]'s figures and computes none.

use plotters::coord::Shift;
use plotters::prelude::*;

use super::downsample::{min_max, MAX_BUCKETS};
use super::{drawn, style, Chart};
use crate::analysis::xsr::XsrFigures;

/// Everything the chart shows.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct XsrChart {
    pub title: String,
    pub subtitle: String,
    pub figures: XsrFigures,
}

const Y_SPEED: &str = "Write speed (MB/s)";

impl Chart for XsrChart {
    fn draw<DB: DrawingBackend>(&self, root: &DrawingArea<DB, Shift>) -> anyhow::Result<()>
    where
        DB::ErrorType: 'static,
    {
        root.fill(&WHITE)?;
        let f = &self.figures;
        let rule = "Shaded: each segment's band, ±10 % of its last five samples; ▲ where the five-sample rate holds in it (the recovery)".to_string();
        let body = style::header(root, &self.title, &[self.subtitle.clone(), rule])?;
        let span = f.points.last().map_or(1.0, |p| p.t_s).max(1e-3);
        let unit = style::time_unit(span);
        let x_max = span / unit.seconds;
        let y_max = f.points.iter().map(|p| p.mb_per_s).fold(1.0, f64::max) * 1.35;
        let x_desc = format!("Time ({})", unit.name);
        let mut chart = ChartBuilder::on(&body)
            .margin_left(12)
            .margin_right(36)
            .margin_top(8)
            .x_label_area_size(58)
            .y_label_area_size(96)
            .build_cartesian_2d(0f64..x_max, 0f64..y_max)?;
        style::mesh(&mut chart)
            .x_desc(&x_desc)
            .y_desc(Y_SPEED)
            .x_label_formatter(&|v| style::plain_label(*v))
            .y_label_formatter(&|v| style::count_tick(*v, y_max))
            .y_labels(6)
            .draw()?;
        drawn::chart_panel(&chart, &x_desc, Y_SPEED);
        for (k, s) in f.segments.iter().enumerate() {
            let color = style::palette(k);
            let x = (
                s.start_s / unit.seconds,
                (s.start_s + s.seconds) / unit.seconds,
            );
            let y = (s.band_low_mb_per_s, s.band_high_mb_per_s);
            drawn::band(&format!("{} band", s.name), x, Some(y));
            chart.draw_series(std::iter::once(Rectangle::new(
                [(x.0, y.0), (x.1, y.1)],
                color.mix(0.15).filled(),
            )))?;
            let points: Vec<(f64, f64)> = f
                .points
                .iter()
                .filter(|p| p.segment == s.name)
                .map(|p| (p.t_s / unit.seconds, p.mb_per_s))
                .collect();
            let shown = min_max(&points, MAX_BUCKETS);
            drawn::series(&s.name, "MB/s", &shown);
            let label = format!(
                "{}: {}, {:.0} MB/s ({:.0} IOPS), recovery {}",
                s.name,
                s.stimulus,
                s.level_mb_per_s,
                s.level_iops,
                s.recovery_words()
            );
            chart
                .draw_series(LineSeries::new(shown, color.stroke_width(2)))?
                .label(label)
                .legend(move |(x, y)| {
                    PathElement::new([(x, y), (x + 24, y)], color.stroke_width(3))
                });
            if k > 0 {
                let edge = [(x.0, 0.0), (x.0, y_max)];
                drawn::series(&format!("{} starts", s.name), "MB/s", &edge);
                chart.draw_series(DashedLineSeries::new(edge, 8, 6, BLACK.stroke_width(2)))?;
            }
            if let Some(r) = s.recovery_s {
                let at = ((s.start_s + r) / unit.seconds, s.level_mb_per_s);
                drawn::series(&format!("{} recovered", s.name), "MB/s", &[at]);
                chart.draw_series(std::iter::once(TriangleMarker::new(at, 10, BLACK.filled())))?;
            }
        }
        style::legend(&mut chart)
            .position(SeriesLabelPosition::UpperRight)
            .margin(12)
            .draw()?;
        Ok(())
    }
}
