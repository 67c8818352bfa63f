//! The op-sweep chart: steady IOPS (top) and steady p99 latency (bottom) against the share of
//! the drive left unpartitioned, one point per span. A line joins only neighbouring spans that
//! both reached steady state: no line is drawn across a span without data. The advised share is
//! marked with a dashed vertical line.

use plotters::coord::Shift;
use plotters::prelude::*;

use super::drawn;
use super::experiment::{device_name, first_run};
use super::style;
use super::Chart;
use crate::analysis;
use crate::results::{workload_line, Experiment};

/// One span: where it lies and what it measured at steady state (None: not steady).
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct OpPoint {
    pub unpartitioned_pct: f64,
    pub iops: Option<f64>,
    pub p99_ms: Option<f64>,
}

/// Everything the op-sweep chart shows.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct OpSweepChart {
    pub title: String,
    pub subtitle: String,
    pub points: Vec<OpPoint>,
    /// The advised unpartitioned share, percent.
    pub advised_pct: Option<f64>,
}

/// The line pieces of `values` (x ordered): runs of neighbours that all have a value.
pub fn pieces(values: &[(f64, Option<f64>)]) -> Vec<Vec<(f64, f64)>> {
    let mut out: Vec<Vec<(f64, f64)>> = Vec::new();
    let mut run: Vec<(f64, f64)> = Vec::new();
    for &(x, y) in values {
        match y {
            Some(y) => run.push((x, y)),
            None if !run.is_empty() => out.push(std::mem::take(&mut run)),
            None => {}
        }
    }
    if !run.is_empty() {
        out.push(run);
    }
    out
}

impl OpSweepChart {
    fn panel<DB: DrawingBackend>(
        &self,
        area: &DrawingArea<DB, Shift>,
        y_desc: &str,
        k: usize,
        pick: impl Fn(&OpPoint) -> Option<f64>,
    ) -> anyhow::Result<()>
    where
        DB::ErrorType: 'static,
    {
        let mut points = self.points.clone();
        points.sort_by(|a, b| a.unpartitioned_pct.total_cmp(&b.unpartitioned_pct));
        let x_max = points
            .iter()
            .map(|p| p.unpartitioned_pct)
            .fold(0.0, f64::max)
            .max(5.0)
            * 1.1;
        let y_max = points
            .iter()
            .filter_map(&pick)
            .fold(0.0, f64::max)
            .max(1e-9)
            * 1.15;
        let mut chart = ChartBuilder::on(area)
            .margin_left(12)
            .margin_right(36)
            .margin_top(8)
            .x_label_area_size(58)
            .y_label_area_size(96)
            .build_cartesian_2d(0f64..x_max, 0f64..y_max)?;
        style::mesh(&mut chart)
            .x_desc("Share of the drive left unpartitioned (%)")
            .y_desc(y_desc)
            .x_label_formatter(&|v| format!("{v:.0}"))
            .y_label_formatter(&|v| style::count_tick(*v, y_max))
            .y_labels(6)
            .draw()?;
        drawn::chart_panel(&chart, "Share of the drive left unpartitioned (%)", y_desc);
        let color = style::palette(k);
        let values: Vec<(f64, Option<f64>)> = points
            .iter()
            .map(|p| (p.unpartitioned_pct, pick(p)))
            .collect();
        for piece in pieces(&values) {
            drawn::series(y_desc, y_desc, &piece);
            chart.draw_series(LineSeries::new(piece.clone(), color.stroke_width(3)))?;
            chart.draw_series(piece.iter().map(|&p| Circle::new(p, 6, color.filled())))?;
        }
        // A span without a steady figure: a hollow mark on the axis, no line.
        chart.draw_series(
            values
                .iter()
                .filter(|(_, y)| y.is_none())
                .map(|&(x, _)| Circle::new((x, 0.0), 6, color.stroke_width(2))),
        )?;
        if let Some(x) = self.advised_pct {
            drawn::series("advised", "%", &[(x, 0.0), (x, y_max)]);
            chart.draw_series(DashedLineSeries::new(
                vec![(x, 0.0), (x, y_max)],
                8,
                6,
                style::palette(3).stroke_width(2),
            ))?;
        }
        Ok(())
    }
}

impl Chart for OpSweepChart {
    fn draw<DB: DrawingBackend>(&self, root: &DrawingArea<DB, Shift>) -> anyhow::Result<()>
    where
        DB::ErrorType: 'static,
    {
        root.fill(&WHITE)?;
        let body = style::header(root, &self.title, std::slice::from_ref(&self.subtitle))?;
        let (top, bottom) = body.split_vertically(body.dim_in_pixel().1 / 2);
        self.panel(&top, "Steady IOPS", 0, |p| p.iops)?;
        self.panel(&bottom, "Steady p99 latency (ms)", 1, |p| p.p99_ms)?;
        Ok(())
    }
}

/// The op-sweep's chart: its figures ([`analysis::op_sweep`]) against the unpartitioned share.
pub fn op_sweep_chart(exp: &Experiment) -> Option<OpSweepChart> {
    let f = analysis::op_sweep::OpSweepFigures::of(exp);
    let run = first_run(exp)?;
    let mut workload = run.info.workload.clone();
    workload.span = 0;
    let title = match &f.predicted_from_twin {
        Some(_) => format!(
            "How much to over-provision — {} (twin prediction)",
            device_name(run)
        ),
        None => format!("How much to over-provision — {}", device_name(run)),
    };
    Some(OpSweepChart {
        title,
        subtitle: f
            .advice
            .as_ref()
            .map_or_else(|| workload_line(&workload), |a| a.line.clone()),
        points: f
            .points
            .iter()
            .map(|p| OpPoint {
                unpartitioned_pct: p.unpartitioned_pct,
                iops: p.iops,
                p99_ms: p.p99_ms,
            })
            .collect(),
        advised_pct: f.advice.as_ref().map(|a| a.unpartitioned_pct),
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn no_line_crosses_a_span_without_data() {
        let values = [
            (0.0, Some(1.0)),
            (10.0, Some(2.0)),
            (20.0, None),
            (25.0, Some(3.0)),
        ];
        assert_eq!(
            pieces(&values),
            vec![vec![(0.0, 1.0), (10.0, 2.0)], vec![(25.0, 3.0)]]
        );
        let chart = OpSweepChart {
            points: values
                .iter()
                .map(|&(x, y)| OpPoint {
                    unpartitioned_pct: x,
                    iops: y,
                    p99_ms: y,
                })
                .collect(),
            advised_pct: Some(10.0),
            ..Default::default()
        };
        assert!(chart.svg().unwrap().contains("<polyline"));
    }
    /// The IOPS axis reads in the unit of its top, as the other charts do: an axis to 13.8k
    /// ticks "5k" beside "10k", not "5000".
    #[test]
    fn iops_ticks_read_in_thousands() {
        let chart = OpSweepChart {
            points: [(0.0, 5000.0), (10.0, 8000.0), (20.0, 12000.0)]
                .iter()
                .map(|&(x, y)| OpPoint {
                    unpartitioned_pct: x,
                    iops: Some(y),
                    p99_ms: Some(y / 100.0),
                })
                .collect(),
            ..Default::default()
        };
        let svg = chart.svg().unwrap();
        let plain = svg
            .lines()
            .find(|l| l.len() == 4 && l.chars().all(|c| c.is_ascii_digit()));
        assert_eq!(plain, None, "a tick in plain thousands beside 10k");
        assert!(svg.contains("\n10k\n"), "no 10k tick");
    }
}
