//! The chart of a PTS test of thread count × queue depth points (ECW, DIRTH: `pts-<test>.png`):
//! left, SNIA's demand-intensity curve (average response time against IOPS, a line per thread
//! count, each point labelled by its QD, the maximum-IOPS and operating points ringed); right,
//! above, SNIA's demand variation (IOPS against thread count, a line per QD); below, the
//! response-time histograms at the maximum-IOPS and operating points. It draws
//! [`crate::analysis::pts`]'s figures (the points over the measurement window and the chosen
//! points' histograms) and computes none.

use std::collections::BTreeMap;

use plotters::coord::Shift;
use plotters::prelude::*;

use super::keyed;
use super::latency::log_ticks;
use super::sweep::{MarkedPoint, SweepChart, SweepPoint};
use super::{drawn, style, Chart};
use crate::analysis::latency::Bin;
use crate::analysis::pts::{DemandPoint, TestFigures};
use crate::units::format_latency_us;

/// One chosen point's response-time histogram: its name and bins (percent of its I/Os).
#[derive(Clone, Debug, PartialEq)]
pub struct Histogram {
    pub name: String,
    pub bins: Vec<Bin>,
}

/// Everything the chart shows.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct PointsChart {
    pub title: String,
    pub subtitle: String,
    /// The points with the maximum-IOPS and operating points marked.
    pub curve: SweepChart,
    pub histograms: Vec<Histogram>,
}

/// A chosen point as the chart names it: `max IOPS: TC 2 QD 16`.
fn point_name(what: &str, p: &DemandPoint) -> String {
    format!("{what}: TC {} QD {}", p.oio.threads, p.oio.qd)
}

impl PointsChart {
    /// The chart of the points test `t`, under `title` and `subtitle`; None before its first
    /// full round.
    pub fn of(t: &TestFigures, title: String, subtitle: String) -> Option<PointsChart> {
        let points: Vec<SweepPoint> = t
            .cells
            .iter()
            .filter_map(|c| {
                let oio = c.cell.oio?;
                Some(SweepPoint {
                    threads: oio.threads,
                    qd: oio.qd,
                    iops: c.iops,
                    avg_lat_us: c.avg_lat_us,
                })
            })
            .collect();
        let d = t.demand.as_ref().filter(|_| !points.is_empty())?;
        // The operating point is named once when it is the maximum's own point.
        let operating = d.operating.as_ref().filter(|o| o.cell != d.max_iops.cell);
        let max_name = if d.operating.is_some() && operating.is_none() {
            "max IOPS = operating point"
        } else {
            "max IOPS"
        };
        let mut chosen = vec![(point_name(max_name, &d.max_iops), &d.max_iops)];
        chosen.extend(operating.map(|o| (point_name("operating point", o), o)));
        Some(PointsChart {
            title,
            subtitle,
            curve: SweepChart {
                points,
                marked: chosen
                    .iter()
                    .map(|(name, p)| MarkedPoint {
                        label: name.clone(),
                        iops: p.iops,
                        avg_lat_us: p.avg_lat_us,
                    })
                    .collect(),
                ..SweepChart::default()
            },
            histograms: chosen
                .into_iter()
                .filter(|(_, p)| !p.histogram.is_empty())
                .map(|(name, p)| Histogram {
                    name,
                    bins: p.histogram.clone(),
                })
                .collect(),
        })
    }

    /// SNIA's demand variation: IOPS against thread count (log 2), a line per QD.
    fn variation<DB: DrawingBackend>(&self, area: &DrawingArea<DB, Shift>) -> anyhow::Result<()>
    where
        DB::ErrorType: 'static,
    {
        let mut by_qd: BTreeMap<u32, Vec<(f64, f64)>> = BTreeMap::new();
        for p in &self.curve.points {
            by_qd
                .entry(p.qd)
                .or_default()
                .push((f64::from(p.threads), p.iops));
        }
        for line in by_qd.values_mut() {
            line.sort_by(|a, b| a.0.total_cmp(&b.0));
        }
        let threads: Vec<f64> = {
            let mut t: Vec<f64> = self
                .curve
                .points
                .iter()
                .map(|p| f64::from(p.threads))
                .collect();
            t.sort_by(f64::total_cmp);
            t.dedup();
            t
        };
        let max_tc = threads.last().copied().unwrap_or(1.0).max(2.0);
        let y_max = self.curve.points.iter().map(|p| p.iops).fold(0.0, f64::max);
        // Headroom for the legend above the lines.
        let y_max = y_max.max(1e-9) * 1.5;
        let (x_desc, y_desc) = ("Thread count (log scale)", "IOPS");
        let mut chart = ChartBuilder::on(area)
            .caption("Demand variation", style::axis_desc_font())
            .margin_left(12)
            .margin_right(36)
            .margin_top(8)
            .x_label_area_size(52)
            .y_label_area_size(96)
            .build_cartesian_2d(
                (0.8f64..max_tc * 1.25)
                    .log_scale()
                    .base(2.0)
                    .with_key_points(threads),
                0f64..y_max,
            )?;
        style::mesh(&mut chart)
            .x_desc(x_desc)
            .y_desc(y_desc)
            .x_label_formatter(&|v| format!("{v:.0}"))
            .y_label_formatter(&|v| style::count_tick(*v, y_max))
            .y_labels(5)
            .draw()?;
        drawn::chart_panel(&chart, x_desc, y_desc);
        for (i, (qd, points)) in by_qd.into_iter().enumerate() {
            let color = style::palette(i);
            let name = format!("QD {qd}");
            keyed::line(&mut chart, &name, y_desc, &points, color)?;
            chart.draw_series(points.iter().map(|&p| Circle::new(p, 5, color.filled())))?;
        }
        style::legend(&mut chart)
            .position(SeriesLabelPosition::UpperLeft)
            .margin(10)
            .draw()?;
        Ok(())
    }

    /// The histograms at the chosen points: percent of the I/Os per bin against response time
    /// (log scale), each an outline of steps.
    fn histograms<DB: DrawingBackend>(&self, area: &DrawingArea<DB, Shift>) -> anyhow::Result<()>
    where
        DB::ErrorType: 'static,
    {
        let bins = self.histograms.iter().flat_map(|h| &h.bins);
        let lo = bins.clone().map(|b| b.lo_us).fold(f64::INFINITY, f64::min);
        let hi = bins.clone().map(|b| b.hi_us).fold(0.0, f64::max);
        let (lo, hi) = if lo.is_finite() && hi > lo {
            (lo / 1.5, hi * 1.5)
        } else {
            (1.0, 1000.0)
        };
        let y_max = bins.map(|b| b.pct).fold(0.0, f64::max).max(1e-9) * 1.3;
        let (x_desc, y_desc) = ("Response time (log scale)", "% of I/Os");
        let ticks = log_ticks(lo.log10(), hi.log10());
        let mut chart = ChartBuilder::on(area)
            .caption("Response-time histograms", style::axis_desc_font())
            .margin_left(12)
            .margin_right(36)
            .margin_top(8)
            .x_label_area_size(52)
            .y_label_area_size(96)
            .build_cartesian_2d((lo..hi).log_scale().with_key_points(ticks), 0f64..y_max)?;
        style::mesh(&mut chart)
            .x_desc(x_desc)
            .y_desc(y_desc)
            .x_label_formatter(&|v| format_latency_us(*v))
            .y_label_formatter(&|v| style::plain_label(*v))
            .y_labels(5)
            .draw()?;
        drawn::chart_panel(&chart, x_desc, y_desc);
        for (i, h) in self.histograms.iter().enumerate() {
            let color = style::palette(i);
            let steps = steps(&h.bins);
            keyed::line(&mut chart, &h.name, y_desc, &steps, color)?;
        }
        style::legend(&mut chart)
            .position(SeriesLabelPosition::UpperRight)
            .margin(10)
            .draw()?;
        Ok(())
    }
}

/// The outline of `bins` as steps: each bin's share held from its lower to its upper edge,
/// down to 0 before the first and after the last.
fn steps(bins: &[Bin]) -> Vec<(f64, f64)> {
    let mut steps = Vec::new();
    if let Some(first) = bins.first() {
        steps.push((first.lo_us, 0.0));
    }
    for b in bins {
        steps.push((b.lo_us, b.pct));
        steps.push((b.hi_us, b.pct));
    }
    if let Some(last) = bins.last() {
        steps.push((last.hi_us, 0.0));
    }
    steps
}

impl Chart for PointsChart {
    fn draw<DB: DrawingBackend>(&self, root: &DrawingArea<DB, Shift>) -> anyhow::Result<()>
    where
        DB::ErrorType: 'static,
    {
        root.fill(&WHITE)?;
        let body = style::header(root, &self.title, std::slice::from_ref(&self.subtitle))?;
        let (left, right) = body.split_horizontally(body.dim_in_pixel().0 as i32 * 11 / 20);
        self.curve.demand_intensity(&left)?;
        let (top, bottom) = right.split_vertically(right.dim_in_pixel().1 as i32 / 2);
        self.variation(&top)?;
        self.histograms(&bottom)
    }
}
