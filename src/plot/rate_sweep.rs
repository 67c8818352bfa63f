//! The rate sweep's hockey stick: latency (mean, p99, p99.9; log scale) against the IOPS each
//! paced point delivered, every point labelled with its rate and its late issues. Latency stays
//! flat while the device keeps up and turns sharply up near its maximum.

use plotters::coord::Shift;
use plotters::prelude::*;

use super::drawn;
use super::keyed;
use super::latency::log_ticks;
use super::layout::{Layout, Note};
use super::style;
use super::Chart;

/// One point of a rate sweep: what was asked and what it measured.
#[derive(Clone, Debug, PartialEq)]
pub struct RatePoint {
    /// `50%`, `4000 IOPS`, `max (unpaced)`.
    pub label: String,
    pub iops: f64,
    pub avg_us: f64,
    pub p99_us: f64,
    /// `None`: not known exactly.
    pub p999_us: Option<f64>,
    /// I/Os issued more than 1 ms late (`None`: the point was not paced).
    pub late: Option<u64>,
}

/// Everything the rate sweep chart shows.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct RateSweepChart {
    pub title: String,
    pub subtitle: String,
    pub points: Vec<RatePoint>,
}

impl RateSweepChart {
    /// The points ordered by delivered IOPS.
    fn ordered(&self) -> Vec<&RatePoint> {
        let mut points: Vec<&RatePoint> = self.points.iter().collect();
        points.sort_by(|a, b| a.iops.total_cmp(&b.iops));
        points
    }
}

impl Chart for RateSweepChart {
    fn draw<DB: DrawingBackend>(&self, root: &DrawingArea<DB, Shift>) -> anyhow::Result<()>
    where
        DB::ErrorType: 'static,
    {
        root.fill(&WHITE)?;
        let body = style::header(root, &self.title, std::slice::from_ref(&self.subtitle))?;
        let points = self.ordered();
        let x_max = points.iter().map(|p| p.iops).fold(0.0, f64::max).max(1.0) * 1.12;
        let lat = |p: &RatePoint| [Some(p.avg_us), Some(p.p99_us), p.p999_us];
        let all: Vec<f64> = points
            .iter()
            .flat_map(|p| lat(p))
            .flatten()
            .filter(|&v| v > 0.0)
            .collect();
        let y_min = all.iter().copied().fold(f64::INFINITY, f64::min);
        let y_min = if y_min.is_finite() { y_min / 1.5 } else { 1.0 };
        let y_max = all.iter().copied().fold(0.0, f64::max).max(y_min * 10.0) * 1.8;
        let mut chart = ChartBuilder::on(&body)
            .margin_left(12)
            .margin_right(48)
            .margin_top(8)
            .x_label_area_size(58)
            .y_label_area_size(110)
            .build_cartesian_2d(
                0f64..x_max,
                // 1-2-5 ticks: plotters labels only some, none near a flat 267 µs.
                (y_min..y_max)
                    .log_scale()
                    .with_key_points(log_ticks(y_min.log10(), y_max.log10())),
            )?;
        style::mesh(&mut chart)
            .x_desc("Delivered IOPS")
            .y_desc("Latency (log scale)")
            .x_label_formatter(&|v| style::count_tick(*v, x_max))
            .y_label_formatter(&|v| crate::units::format_latency_us(*v))
            .x_labels(8)
            .draw()?;
        drawn::chart_panel(&chart, "Delivered IOPS", "latency (µs, log scale)");
        let series: [(&str, usize); 3] = [("mean", 0), ("p99", 1), ("p99.9", 2)];
        for (name, k) in series {
            let color = style::palette(k);
            let line: Vec<(f64, f64)> = points
                .iter()
                .filter_map(|p| lat(p)[k].filter(|&v| v > 0.0).map(|v| (p.iops, v)))
                .collect();
            keyed::line(&mut chart, name, "µs", &line, color)?;
            chart.draw_series(line.iter().map(|&p| Circle::new(p, 5, color.filled())))?;
        }
        // Each point's rate (and late issues) above its p99.9 (or p99) mark, moved apart by
        // the layout where neighbours near the maximum would overlap.
        let mut layout = Layout::new(drawn::area_box(chart.plotting_area()));
        let notes: Vec<Note> = points
            .iter()
            .map(|p| {
                let top = p.p999_us.unwrap_or(p.p99_us).max(p.avg_us).max(y_min);
                let text = match p.late {
                    Some(late) if late > 0 => format!("{} ({late} late)", p.label),
                    _ => p.label.clone(),
                };
                let (x, y) = chart.backend_coord(&(p.iops, top));
                layout.avoid([x - 5, y - 5, x + 6, y + 6]);
                Note {
                    text,
                    font: style::note_font(style::palette(3)),
                    point: (x, y),
                    wanted: vec![(x - 20, y - 28), (x - 20, y - 54)],
                }
            })
            .collect();
        for note in &notes {
            layout.draw(&body, note)?;
        }
        style::legend(&mut chart)
            .position(SeriesLabelPosition::UpperLeft)
            .margin(12)
            .draw()?;
        Ok(())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn points_are_drawn_in_order_of_delivered_iops() {
        let point = |label: &str, iops: f64| RatePoint {
            label: label.into(),
            iops,
            avg_us: 100.0,
            p99_us: 200.0,
            p999_us: None,
            late: None,
        };
        let chart = RateSweepChart {
            points: vec![point("max", 900.0), point("10%", 90.0), point("50%", 450.0)],
            ..Default::default()
        };
        let order: Vec<&str> = chart.ordered().iter().map(|p| p.label.as_str()).collect();
        assert_eq!(order, ["10%", "50%", "max"]);
        assert!(chart.svg().unwrap().contains("p99.9"));
    }

    /// Delivered IOPS up to 12k: its ticks read 0, 2k, 4k … (not 8000 beside 10k).
    #[test]
    fn iops_ticks_read_in_the_unit_of_the_axis_top() {
        let chart = RateSweepChart {
            points: [1000.0, 4000.0, 8000.0, 11000.0]
                .into_iter()
                .map(|iops| RatePoint {
                    label: "max".into(),
                    iops,
                    avg_us: 100.0,
                    p99_us: 200.0,
                    p999_us: None,
                    late: None,
                })
                .collect(),
            ..Default::default()
        };
        let svg = chart.svg().unwrap();
        assert!(super::super::svg_texts(&svg).iter().any(|t| t == "10k"));
        assert_eq!(super::super::mixed_count_ticks(&svg), None);
    }

    /// Flat latency of 267 µs: the log axis has a labelled tick below 1 ms, near the data.
    #[test]
    fn a_flat_sub_millisecond_latency_has_ticks_near_it() {
        let chart = RateSweepChart {
            points: [1000.0, 8000.0]
                .into_iter()
                .map(|iops| RatePoint {
                    label: "max".into(),
                    iops,
                    avg_us: 267.0,
                    p99_us: 267.0,
                    p999_us: Some(267.0),
                    late: Some(0),
                })
                .collect(),
            ..Default::default()
        };
        let texts = super::super::svg_texts(&chart.svg().unwrap());
        assert!(
            texts.iter().any(|t| t == "200 µs" || t == "300 µs"),
            "{texts:?}"
        );
    }
}
