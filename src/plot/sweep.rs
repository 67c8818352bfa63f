//! The queue-depth sweep: IOPS and average latency against QD, one line per thread count, and
//! SNIA's demand-intensity view (average response time against IOPS, one point per outstanding-
//! I/O level) beside them.

use std::collections::BTreeMap;

use plotters::coord::Shift;
use plotters::prelude::*;

use super::drawn;
use super::experiment::device_name;
use super::keyed;
use super::layout::{Layout, Note};
use super::rate_sweep::{RatePoint, RateSweepChart};
use super::style;
use super::Chart;
use crate::results::{workload_line, Experiment};
use crate::workload::jobs_prefix;

/// One sweep point: threads × QD and what it measured.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct SweepPoint {
    pub threads: u32,
    pub qd: u32,
    pub iops: f64,
    pub avg_lat_us: f64,
}

/// A point the demand-intensity view rings and names (a suite's maximum-IOPS and operating
/// points).
#[derive(Clone, Debug, PartialEq)]
pub struct MarkedPoint {
    pub label: String,
    pub iops: f64,
    pub avg_lat_us: f64,
}

/// Everything the sweep chart shows.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct SweepChart {
    pub title: String,
    pub subtitle: String,
    pub points: Vec<SweepPoint>,
    /// Points ringed and named on the demand-intensity view.
    pub marked: Vec<MarkedPoint>,
}

impl SweepChart {
    /// The points per thread count, ordered by QD.
    pub(super) fn by_threads(&self) -> BTreeMap<u32, Vec<SweepPoint>> {
        let mut lines: BTreeMap<u32, Vec<SweepPoint>> = BTreeMap::new();
        for p in &self.points {
            lines.entry(p.threads).or_default().push(*p);
        }
        for line in lines.values_mut() {
            line.sort_by_key(|p| p.qd);
        }
        lines
    }

    pub(super) fn latency_unit(&self) -> (f64, &'static str) {
        style::latency_unit(self.points.iter().map(|p| p.avg_lat_us).fold(0.0, f64::max))
    }

    /// One panel with QD (log 2) along x and `pick` along y, its legend at `legend_at`.
    pub(super) fn qd_panel<DB: DrawingBackend>(
        &self,
        area: &DrawingArea<DB, Shift>,
        y_desc: &str,
        legend_at: SeriesLabelPosition,
        pick: impl Fn(&SweepPoint) -> f64,
    ) -> anyhow::Result<()>
    where
        DB::ErrorType: 'static,
    {
        let max_qd = self.points.iter().map(|p| p.qd).max().unwrap_or(1).max(2) as f64;
        let y_max = self.points.iter().map(&pick).fold(0.0, f64::max).max(1e-9) * 1.15;
        let mut chart = ChartBuilder::on(area)
            .margin_left(12)
            .margin_right(24)
            .margin_top(8)
            .x_label_area_size(58)
            .y_label_area_size(96)
            .build_cartesian_2d((0.8f64..max_qd * 1.25).log_scale().base(2.0), 0f64..y_max)?;
        style::mesh(&mut chart)
            .x_desc("Queue depth (outstanding I/Os per thread, log scale)")
            .y_desc(y_desc)
            .x_label_formatter(&|v| format!("{v:.0}"))
            .y_label_formatter(&|v| style::count_tick(*v, y_max))
            .y_labels(6)
            .draw()?;
        drawn::chart_panel(&chart, "Queue depth", y_desc);
        for (i, (threads, line)) in self.by_threads().into_iter().enumerate() {
            let color = style::palette(i);
            let points: Vec<(f64, f64)> = line.iter().map(|p| (p.qd as f64, pick(p))).collect();
            keyed::line(&mut chart, &threads_label(threads), y_desc, &points, color)?;
            chart.draw_series(points.iter().map(|&p| Circle::new(p, 5, color.filled())))?;
        }
        style::legend(&mut chart)
            .position(legend_at)
            .margin(12)
            .draw()?;
        Ok(())
    }

    /// SNIA's demand-intensity curve: response time against IOPS, points labelled with QD, the
    /// marked points ringed and named.
    pub(super) fn demand_intensity<DB: DrawingBackend>(
        &self,
        area: &DrawingArea<DB, Shift>,
    ) -> anyhow::Result<()>
    where
        DB::ErrorType: 'static,
    {
        let (scale, unit) = self.latency_unit();
        let x_max = self
            .points
            .iter()
            .map(|p| p.iops)
            .fold(0.0, f64::max)
            .max(1e-9)
            * 1.15;
        let y_max = self
            .points
            .iter()
            .map(|p| p.avg_lat_us / scale)
            .fold(0.0, f64::max)
            .max(1e-9)
            * 1.15;
        let mut chart = ChartBuilder::on(area)
            .caption("Demand intensity", style::axis_desc_font())
            .margin_left(12)
            .margin_right(36)
            .margin_top(8)
            .x_label_area_size(58)
            .y_label_area_size(96)
            .build_cartesian_2d(0f64..x_max, 0f64..y_max)?;
        style::mesh(&mut chart)
            .x_desc("IOPS")
            .y_desc(format!("Average response time ({unit})"))
            .x_label_formatter(&|v| style::count_tick(*v, x_max))
            .y_label_formatter(&|v| style::plain_label(*v))
            .x_labels(8)
            .draw()?;
        let y_desc = format!("Average response time ({unit})");
        drawn::chart_panel(&chart, "IOPS", &y_desc);
        let mut layout = Layout::new(drawn::area_box(chart.plotting_area()));
        let mut notes = Vec::new();
        for (i, (threads, line)) in self.by_threads().into_iter().enumerate() {
            let color = style::palette(i);
            let points: Vec<(f64, f64)> = line
                .iter()
                .map(|p| (p.iops, p.avg_lat_us / scale))
                .collect();
            keyed::line(&mut chart, &threads_label(threads), &y_desc, &points, color)?;
            chart.draw_series(points.iter().map(|&p| Circle::new(p, 5, color.filled())))?;
            let pixels: Vec<(i32, i32)> = points.iter().map(|p| chart.backend_coord(p)).collect();
            layout.avoid_path(&pixels);
            for (p, &at) in line.iter().zip(&points) {
                let (x, y) = chart.backend_coord(&at);
                layout.avoid([x - 5, y - 5, x + 6, y + 6]);
                let text = format!("QD{}", p.qd);
                let font = style::note_font(color);
                let (w, h) = area
                    .estimate_text_size(&text, &font)
                    .map_or((40, 18), |(w, h)| (w as i32, h as i32));
                // Up and to the left of its point: clear of the curve, which leaves each
                // point to the right (more IOPS) or upwards (more latency).
                notes.push(Note {
                    text,
                    font,
                    point: (x, y),
                    wanted: vec![(x - 8 - w, y - 6 - h), (x + 8, y - 6 - h), (x + 8, y + 6)],
                });
            }
        }
        for m in &self.marked {
            let at = (m.iops, m.avg_lat_us / scale);
            drawn::series(&m.label, &y_desc, &[at]);
            chart.draw_series(std::iter::once(Circle::new(at, 12, BLACK.stroke_width(3))))?;
            let (x, y) = chart.backend_coord(&at);
            let ring = [x - 14, y - 14, x + 15, y + 15];
            drawn::mark(&m.label, drawn::MarkKind::Dot, ring);
            layout.avoid(ring);
            let font = style::note_font(BLACK);
            let (w, h) = area
                .estimate_text_size(&m.label, &font)
                .map_or((120, 18), |(w, h)| (w as i32, h as i32));
            // Below the ring, where the QD labels (placed above their points) are not.
            notes.insert(
                0,
                Note {
                    text: m.label.clone(),
                    font,
                    point: (x, y),
                    wanted: vec![
                        (x - w / 2, y + 18),
                        (x - w - 18, y + 10),
                        (x + 18, y + 10),
                        (x - w / 2, y - 18 - h),
                    ],
                },
            );
        }
        for note in &notes {
            layout.draw(area, note)?;
        }
        style::legend(&mut chart)
            .position(SeriesLabelPosition::UpperLeft)
            .margin(12)
            .draw()?;
        Ok(())
    }
}

fn threads_label(threads: u32) -> String {
    if threads == 1 {
        "1 thread".into()
    } else {
        format!("{threads} threads")
    }
}

impl Chart for SweepChart {
    fn draw<DB: DrawingBackend>(&self, root: &DrawingArea<DB, Shift>) -> anyhow::Result<()>
    where
        DB::ErrorType: 'static,
    {
        root.fill(&WHITE)?;
        let body = style::header(root, &self.title, std::slice::from_ref(&self.subtitle))?;
        let (left, right) = body.split_horizontally(body.dim_in_pixel().0 as i32 * 11 / 20);
        let (top, bottom) = left.split_vertically(left.dim_in_pixel().1 as i32 / 2);
        let (scale, unit) = self.latency_unit();
        // Several lines: the IOPS legend goes to the lower right, clear of a line of many jobs,
        // which starts high (IOPS climbs to the right, so that corner stays empty).
        let iops_legend = if self.by_threads().len() > 1 {
            SeriesLabelPosition::LowerRight
        } else {
            SeriesLabelPosition::UpperLeft
        };
        self.qd_panel(&top, "IOPS", iops_legend, |p| p.iops)?;
        let latency = format!("Average latency ({unit})");
        self.qd_panel(&bottom, &latency, SeriesLabelPosition::UpperLeft, |p| {
            p.avg_lat_us / scale
        })?;
        self.demand_intensity(&right)
    }
}

/// The IOPS-and-latency-against-QD chart of a queue-depth sweep (`ssdfade sweep --qd`): one
/// point per sweep point that ran, as the sweep's table gives it.
pub fn sweep_chart(exp: &Experiment) -> Option<SweepChart> {
    let table = crate::analysis::sweep::table(exp);
    if table.axis != "qd" {
        return None; // a thread sweep: the timeline tells it
    }
    let points = table
        .points
        .iter()
        .filter_map(|p| {
            Some(SweepPoint {
                threads: p.jobs.unwrap_or(1),
                qd: p.qd,
                iops: p.iops,
                avg_lat_us: p.avg_ms? * 1000.0,
            })
        })
        .collect::<Vec<SweepPoint>>();
    let first = exp.phases.iter().find_map(|p| p.run.as_ref());
    let run = first?;
    // The first point's workload, its QD replaced by the depths swept (the x axis) and, in a
    // jobs × QD matrix, its jobs by the job counts (the lines).
    let list = |values: Vec<u32>| {
        values
            .iter()
            .map(u32::to_string)
            .collect::<Vec<_>>()
            .join("/")
    };
    let mut depths: Vec<u32> = Vec::new();
    for p in &points {
        if !depths.contains(&p.qd) {
            depths.push(p.qd);
        }
    }
    let jobs = crate::analysis::sweep::job_counts(&table);
    let swept = match jobs.as_slice() {
        [one] => format!("{}QD {},", jobs_prefix(*one), list(depths)),
        _ => format!("jobs {} × QD {},", list(jobs), list(depths)),
    };
    let w = &run.info.workload;
    let subtitle =
        workload_line(w).replacen(&format!("{}QD{},", jobs_prefix(w.jobs), w.qd), &swept, 1);
    Some(SweepChart {
        // The model, not the target string: a simulated target carries its state file's path.
        title: format!("Queue-depth sweep — {}", device_name(run)),
        subtitle,
        points,
        marked: Vec::new(),
    })
}

/// The hockey stick of a rate sweep (`ssdfade sweep --rate`): one point per point that ran, as
/// the sweep's table gives it.
pub fn rate_sweep_chart(exp: &Experiment) -> Option<RateSweepChart> {
    let table = crate::analysis::sweep::table(exp);
    if table.axis != "rate" {
        return None;
    }
    let points = table
        .points
        .iter()
        .filter_map(|p| {
            let label = match (p.rate_percent, p.rate_iops) {
                (Some(pct), _) => format!("{pct}%"),
                (None, Some(iops)) => format!("{iops:.0} IOPS"),
                (None, None) => format!("{} (unpaced)", p.name),
            };
            Some(RatePoint {
                label,
                iops: p.iops,
                avg_us: p.avg_ms? * 1000.0,
                p99_us: p.p99_ms? * 1000.0,
                p999_us: p.p999_ms.map(|m| m * 1000.0),
                late: p.late,
            })
        })
        .collect();
    let run = exp.phases.iter().find_map(|p| p.run.as_ref())?;
    let mut workload = run.info.workload.clone();
    workload.rate = None;
    Some(RateSweepChart {
        title: format!("Rate sweep — {}", device_name(run)),
        subtitle: workload_line(&workload),
        points,
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Both panels count IOPS: up to 12k their ticks read 0, 2k, 4k … (not 8000 beside 10k).
    /// Latency stays below 1000 µs: only the IOPS axes have four-digit ticks.
    #[test]
    fn iops_ticks_read_in_the_unit_of_the_axis_top() {
        let points = [
            (1, 1500.0),
            (2, 3000.0),
            (4, 6000.0),
            (8, 9000.0),
            (16, 11000.0),
        ]
        .into_iter()
        .map(|(qd, iops)| SweepPoint {
            threads: 1,
            qd,
            iops,
            avg_lat_us: 10.0 * f64::from(qd),
        })
        .collect();
        let chart = SweepChart {
            points,
            ..Default::default()
        };
        let svg = chart.svg().unwrap();
        assert!(super::super::svg_texts(&svg).iter().any(|t| t == "10k"));
        assert_eq!(super::super::mixed_count_ticks(&svg), None);
    }
}
