//! The SLOG chart: µs per synchronous write against write size on log axes, one line per mode
//! (write + fdatasync, O_DSYNC) for the device and, dashed, for the baseline, over the
//! verdict's latency bands; beside it the mean, p99 and maximum latency of every interval of
//! the sustained 4 KiB phase on a log axis (so a stall of tens of ms shows beside 100 µs
//! writes), with the phase's mean written on it.

use plotters::coord::Shift;
use plotters::prelude::*;

use super::drawn;
use super::latency::log_ticks;
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
    /// Sustained phase: (seconds, mean µs, p99 µs, max µs) per interval.
    pub sustained: Vec<(f64, f64, f64, f64)>,
    /// The sustained phase's figures in one line ("mean 120 µs · p99 … · max 45 ms").
    pub sustained_figures: String,
    /// The sustained phase's issue rate (`--zil-rate N/s`), None when it ran flat out.
    pub rate_iops: Option<u64>,
    /// The verdict's latency bands: (µs, name) drawn as horizontal lines on the size panel.
    pub thresholds: Vec<(f64, String)>,
}

/// `lo..hi` widened by a margin for a log axis, at least a decade wide so that it holds
/// three labelled ticks (never empty or non-positive).
fn log_range(values: impl Iterator<Item = f64>) -> std::ops::Range<f64> {
    let (lo, hi) = values
        .filter(|v| *v > 0.0 && v.is_finite())
        .fold((f64::INFINITY, 0.0f64), |(lo, hi), v| {
            (lo.min(v), hi.max(v))
        });
    if hi <= 0.0 {
        return 1.0..10.0;
    }
    let (lo, hi) = (lo / 1.6, hi * 1.6);
    let widen = (10.0 * lo / hi).max(1.0).sqrt();
    lo / widen..hi * widen
}

/// The sustained panel's title: the write, its issue rate (`--zil-rate`) or "flat out", and
/// the phase's figures.
fn sustained_caption(rate_iops: Option<u64>, figures: &str) -> String {
    let rate = rate_iops.map_or_else(|| "flat out".to_string(), |r| format!("at {r}/s"));
    if figures.is_empty() {
        format!("Sustained 4 KiB write+fdatasync {rate}")
    } else {
        format!("Sustained 4 KiB write+fdatasync {rate}: {figures}")
    }
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
        // The right panel wide enough for its title with the rate and the three figures.
        let (left, right) = body.split_horizontally(body.dim_in_pixel().0 * 11 / 20);

        let all = || self.sizes.iter().flat_map(|l| l.points.iter());
        let x = log_range(all().map(|p| p.0));
        // Room below the lowest line for the legend.
        let y = log_range(
            all()
                .map(|p| p.1)
                .chain(self.thresholds.iter().map(|t| t.0)),
        );
        let y = y.start / 6.0..y.end;
        // Ticks at the sizes measured (powers of two), not at powers of ten.
        let mut ticks: Vec<f64> = all().map(|p| p.0).collect();
        ticks.sort_by(f64::total_cmp);
        ticks.dedup();
        let mut chart = ChartBuilder::on(&left)
            .margin(16)
            .x_label_area_size(58)
            .y_label_area_size(100)
            .build_cartesian_2d(
                x.clone().log_scale().with_key_points(ticks),
                // 1-2-5 ticks: plotters labels only powers of ten.
                y.clone()
                    .log_scale()
                    .with_key_points(log_ticks(y.start.log10(), y.end.log10())),
            )?;
        chart
            .configure_mesh()
            .x_desc("Write size (log scale)")
            .y_desc("µs per synchronous write, mean (log scale)")
            .x_label_formatter(&|v| size_label(*v))
            .y_label_formatter(&|v| crate::units::format_latency_us(*v))
            .y_labels(12)
            .axis_desc_style(style::axis_desc_font())
            .label_style(style::tick_font())
            .light_line_style(WHITE.mix(0.0))
            .draw()?;
        drawn::chart_panel(
            &chart,
            "Write size (bytes, log scale)",
            "µs per synchronous write",
        );
        for (us, name) in &self.thresholds {
            drawn::series(name, "µs", &[(x.start, *us), (x.end, *us)]);
            chart.draw_series(DashedLineSeries::new(
                [(x.start, *us), (x.end, *us)],
                8,
                6,
                style::THRESHOLD.stroke_width(1),
            ))?;
            chart.draw_series(std::iter::once(
                EmptyElement::at((x.start, *us))
                    + Text::new(
                        format!("{name} {}", crate::units::format_latency_us(*us)),
                        (8, -22),
                        style::note_font(style::THRESHOLD),
                    ),
            ))?;
        }
        for (i, line) in self.sizes.iter().enumerate() {
            let color = style::palette(i % 2);
            let stroke = color.stroke_width(3);
            let label = line.label.clone();
            drawn::series(&label, "µs", &line.points);
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
        style::legend(&mut chart)
            .position(SeriesLabelPosition::LowerRight)
            .draw()?;

        let end = self.sustained.last().map_or(1.0, |p| p.0).max(1.0);
        let y = log_range(self.sustained.iter().flat_map(|p| [p.1, p.2, p.3]));
        let caption = sustained_caption(self.rate_iops, &self.sustained_figures);
        let mut chart = ChartBuilder::on(&right)
            .margin(16)
            .caption(caption, style::tick_font())
            .x_label_area_size(58)
            .y_label_area_size(100)
            .build_cartesian_2d(
                0.0..end,
                y.clone()
                    .log_scale()
                    .with_key_points(log_ticks(y.start.log10(), y.end.log10())),
            )?;
        chart
            .configure_mesh()
            .x_desc("Elapsed time (s)")
            .y_desc("Latency per interval (log scale)")
            .x_label_formatter(&|v| style::plain_label(*v))
            .y_label_formatter(&|v| crate::units::format_latency_us(*v))
            .y_labels(12)
            .axis_desc_style(style::axis_desc_font())
            .label_style(style::tick_font())
            .light_line_style(WHITE.mix(0.0))
            .draw()?;
        drawn::chart_panel(
            &chart,
            "Elapsed time (s)",
            "Latency per interval (µs, log scale)",
        );
        type Pick = fn(&(f64, f64, f64, f64)) -> f64;
        let series: [(&str, Pick, RGBColor, u32); 3] = [
            ("max", |p| p.3, style::MAX, 1),
            ("p99", |p| p.2, style::P99, 2),
            ("mean", |p| p.1, style::MEAN, 3),
        ];
        for (name, pick, color, width) in series {
            let points: Vec<(f64, f64)> = self
                .sustained
                .iter()
                .map(|p| (p.0, pick(p)))
                .filter(|p| p.1 > 0.0)
                .collect();
            drawn::series(name, "µs", &points);
            chart
                .draw_series(LineSeries::new(points, color.stroke_width(width)))?
                .label(name)
                .legend(move |(x, y)| {
                    PathElement::new(vec![(x, y), (x + 24, y)], color.stroke_width(3))
                });
        }
        if !self.sustained.is_empty() {
            style::legend(&mut chart)
                .position(SeriesLabelPosition::UpperRight)
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
    // A partial last interval (the phase's end, an interruption) is not drawn as a full one.
    let interval = crate::results::read_info(dir)?.workload.interval;
    let sustained = crate::analysis::run::drawn_intervals(&samples, interval)
        .iter()
        .filter_map(|s| s.lat_us.map(|l| (s.t_end_s, l.mean, l.p99, l.max)))
        .collect();
    // The phase's exact figures, from its histogram as slog.json holds them (an interrupted
    // phase has none: its panel is titled without).
    let sustained_figures =
        record
            .device
            .measured
            .sustained
            .as_ref()
            .map_or_else(String::new, |p| {
                format!(
                    "mean {} · p99 {} · max {}",
                    crate::units::format_latency_us(p.lat_us.mean),
                    crate::units::format_latency_us(p.lat_us.p99),
                    crate::units::format_latency_us(p.lat_us.max)
                )
            });
    use crate::analysis::slog::verdict::{LAT_EXCELLENT_US, LAT_GOOD_US, LAT_UNSUITABLE_US};
    let thresholds = vec![
        (LAT_EXCELLENT_US, "excellent ≤".to_string()),
        (LAT_GOOD_US, "good ≤".to_string()),
        (LAT_UNSUITABLE_US, "unsuitable ≥".to_string()),
    ];
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
        sustained_figures,
        rate_iops: record.plan.rate_iops,
        thresholds,
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_sustained_panel_names_its_rate() {
        assert_eq!(
            sustained_caption(Some(500), "mean 696 µs"),
            "Sustained 4 KiB write+fdatasync at 500/s: mean 696 µs"
        );
        assert_eq!(
            sustained_caption(None, ""),
            "Sustained 4 KiB write+fdatasync flat out"
        );
    }

    #[test]
    fn a_narrow_log_range_still_holds_three_ticks() {
        // The enterprise drive's sustained phase: every interval at 40 µs.
        let r = log_range([40.0, 40.0, 41.0].into_iter());
        let ticks = log_ticks(r.start.log10(), r.end.log10());
        assert!(ticks.len() >= 3, "{r:?} {ticks:?}");
    }
}
