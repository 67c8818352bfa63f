//! The SLOG chart: µs per synchronous write against write size on log axes, one line per mode
//! (write + fdatasync, O_DSYNC) for the device and, dashed, for the baseline; beside it the
//! latency of every second of the sustained 4 KiB phase.

use plotters::coord::Shift;
use plotters::prelude::*;

use super::style;
use super::Chart;

/// One line of the size sweep: its name and (size in bytes, mean µs per write) points.
#[derive(Clone, Debug, PartialEq)]
pub struct SizeLine {
    pub label: String,
    pub points: Vec<(f64, f64)>,
    /// A baseline's line, drawn dashed.
    pub baseline: bool,
}

/// Everything the SLOG chart shows.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct SlogChart {
    pub title: String,
    pub subtitle: String,
    pub sizes: Vec<SizeLine>,
    /// Sustained phase: (seconds, mean µs, p99 µs) per interval.
    pub sustained: Vec<(f64, f64, f64)>,
}

/// `lo..hi` widened by a margin for a log axis (never empty or non-positive).
fn log_range(values: impl Iterator<Item = f64>) -> std::ops::Range<f64> {
    let (lo, hi) = values
        .filter(|v| *v > 0.0 && v.is_finite())
        .fold((f64::INFINITY, 0.0f64), |(lo, hi), v| {
            (lo.min(v), hi.max(v))
        });
    if hi <= 0.0 {
        return 1.0..10.0;
    }
    lo / 1.6..hi * 1.6
}

fn size_label(bytes: f64) -> String {
    if bytes >= 1024.0 * 1024.0 {
        format!("{:.0} MiB", bytes / 1024.0 / 1024.0)
    } else if bytes >= 1024.0 {
        format!("{:.0} KiB", bytes / 1024.0)
    } else {
        format!("{bytes:.0} B")
    }
}

impl Chart for SlogChart {
    fn draw<DB: DrawingBackend>(&self, root: &DrawingArea<DB, Shift>) -> anyhow::Result<()>
    where
        DB::ErrorType: 'static,
    {
        root.fill(&WHITE)?;
        let body = style::header(root, &self.title, std::slice::from_ref(&self.subtitle))?;
        let (left, right) = body.split_horizontally(body.dim_in_pixel().0 * 3 / 5);

        let all = || self.sizes.iter().flat_map(|l| l.points.iter());
        let x = log_range(all().map(|p| p.0));
        // Room below the lowest line for the legend.
        let y = log_range(all().map(|p| p.1));
        let y = y.start / 6.0..y.end;
        // Ticks at the sizes measured (powers of two), not at powers of ten.
        let mut ticks: Vec<f64> = all().map(|p| p.0).collect();
        ticks.sort_by(f64::total_cmp);
        ticks.dedup();
        let mut chart = ChartBuilder::on(&left)
            .margin(16)
            .x_label_area_size(58)
            .y_label_area_size(100)
            .build_cartesian_2d(x.log_scale().with_key_points(ticks), y.log_scale())?;
        chart
            .configure_mesh()
            .x_desc("Write size (log scale)")
            .y_desc("µs per synchronous write, mean (log scale)")
            .x_label_formatter(&|v| size_label(*v))
            .y_label_formatter(&|v| style::plain_label(*v))
            .axis_desc_style(style::axis_desc_font())
            .label_style(style::tick_font())
            .light_line_style(WHITE.mix(0.0))
            .draw()?;
        for (i, line) in self.sizes.iter().enumerate() {
            let color = style::palette(i % 2);
            let stroke = color.stroke_width(3);
            let label = line.label.clone();
            let drawn = if line.baseline {
                chart.draw_series(DashedLineSeries::new(line.points.clone(), 10, 6, stroke))?
            } else {
                chart.draw_series(LineSeries::new(line.points.clone(), stroke))?
            };
            drawn
                .label(label)
                .legend(move |(x, y)| PathElement::new(vec![(x, y), (x + 24, y)], stroke));
            chart.draw_series(
                line.points
                    .iter()
                    .map(|&p| Circle::new(p, 4, color.filled())),
            )?;
        }
        chart
            .configure_series_labels()
            .position(SeriesLabelPosition::LowerRight)
            .label_font(style::legend_font())
            .background_style(WHITE.mix(0.9))
            .border_style(BLACK.mix(0.3))
            .draw()?;

        let end = self.sustained.last().map_or(1.0, |p| p.0).max(1.0);
        let top = self
            .sustained
            .iter()
            .map(|p| p.2.max(p.1))
            .fold(0.0, f64::max)
            .max(1.0);
        let mut chart = ChartBuilder::on(&right)
            .margin(16)
            .caption("Sustained 4 KiB write+fdatasync", style::axis_desc_font())
            .x_label_area_size(58)
            .y_label_area_size(100)
            .build_cartesian_2d(0.0..end, 0.0..top * 1.25)?;
        chart
            .configure_mesh()
            .x_desc("Elapsed time (s)")
            .y_desc("µs per write")
            .x_label_formatter(&|v| style::plain_label(*v))
            .y_label_formatter(&|v| style::plain_label(*v))
            .axis_desc_style(style::axis_desc_font())
            .label_style(style::tick_font())
            .light_line_style(WHITE.mix(0.0))
            .draw()?;
        for (i, (name, pick)) in [("p99", 2usize), ("mean", 1)].into_iter().enumerate() {
            let color = style::palette(i + 2);
            let points: Vec<(f64, f64)> = self
                .sustained
                .iter()
                .map(|p| (p.0, if pick == 1 { p.1 } else { p.2 }))
                .filter(|p| p.1 > 0.0)
                .collect();
            chart
                .draw_series(LineSeries::new(points, color.stroke_width(3)))?
                .label(name)
                .legend(move |(x, y)| {
                    PathElement::new(vec![(x, y), (x + 24, y)], color.stroke_width(3))
                });
        }
        if !self.sustained.is_empty() {
            chart
                .configure_series_labels()
                .position(SeriesLabelPosition::UpperRight)
                .label_font(style::legend_font())
                .background_style(WHITE.mix(0.9))
                .border_style(BLACK.mix(0.3))
                .draw()?;
        }
        Ok(())
    }
}

/// The SLOG chart of a slog run directory, from its slog.json and samples.jsonl.
pub fn slog_chart(dir: &std::path::Path) -> anyhow::Result<SlogChart> {
    use crate::results::slog::SyncMode;
    let record = crate::results::slog::read_record(dir)?;
    let samples = crate::results::read_samples(dir)?;
    let mut sizes = Vec::new();
    let mut add = |m: &crate::results::slog::Measurement, baseline: bool| {
        for (mode, name) in [
            (SyncMode::Fdatasync, "write+fdatasync"),
            (SyncMode::Dsync, "O_DSYNC write"),
        ] {
            let points: Vec<(f64, f64)> = m
                .measured
                .sizes
                .iter()
                .filter(|p| p.mode == mode)
                .map(|p| (p.size as f64, p.lat_us.mean))
                .collect();
            if !points.is_empty() {
                sizes.push(SizeLine {
                    label: format!("{} {name}", m.label),
                    points,
                    baseline,
                });
            }
        }
    };
    add(&record.device, false);
    if let Some(b) = &record.baseline {
        add(b, true);
    }
    let sustained = samples
        .iter()
        .filter_map(|s| s.lat_us.map(|l| (s.t_end_s, l.mean, l.p99)))
        .collect();
    Ok(SlogChart {
        title: format!(
            "SLOG test — {} ({})",
            record.device.target, record.device.kind
        ),
        subtitle: format!(
            "QD1 synchronous writes, incompressible data; verdict: {}",
            record.verdict.rating.word()
        ),
        sizes,
        sustained,
    })
}
