//! The PTS suite's chart (`pts.png`): one panel per test, side by side, in SNIA's order. The
//! IOPS test is the PTS's 2D plot (IOPS against block size, one line per R/W mix), the
//! throughput test MB/s against block size (reads and writes), the latency test the average and
//! five-nines latency against block size, one line each per mix. Both axes are logarithmic
//! (block sizes from 0.5 to 1024 KiB; IOPS over four decades). The figures are
//! [`crate::analysis::pts`]'s, as they are.

use plotters::coord::Shift;
use plotters::prelude::*;

use super::{drawn, style, Chart};
use crate::analysis::pts::{mix_label, size_label, PtsFigures, TestFigures};
use crate::results::settings::PtsShows;
use crate::results::Experiment;

/// Everything the chart shows.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct PtsChart {
    pub title: String,
    pub subtitle: String,
    pub figures: PtsFigures,
}

impl PtsChart {
    /// The chart of a PTS experiment from its matrix tests' `figures` ([`crate::analysis::pts`])
    /// as they are; none before its first run, or without a matrix test (IOPS, throughput,
    /// latency).
    pub fn of(exp: &Experiment, mut figures: PtsFigures) -> Option<PtsChart> {
        let run = exp.phases.iter().find_map(|p| p.run.as_ref())?;
        figures.tests.retain(|t| t.shows != PtsShows::Points);
        if figures.tests.is_empty() {
            return None;
        }
        Some(PtsChart {
            title: format!("SNIA PTS — {}", crate::results::device_name(&run.info)),
            subtitle: format!(
                "{} s per cell and round; each test's measurement window",
                exp.record.options.ss_round_s
            ),
            figures,
        })
    }
}

/// One line of a panel: its name, (block size KiB, value) points, its colour's index and
/// whether it is dashed.
struct Series {
    name: String,
    points: Vec<(f64, f64)>,
    color: usize,
    dashed: bool,
}

/// Lines named `R/W <mix><suffix>`, a colour per mix.
fn per_mix_lines(per_mix: Vec<(u8, Vec<(f64, f64)>)>, suffix: &str, dashed: bool) -> Vec<Series> {
    per_mix
        .into_iter()
        .enumerate()
        .map(|(k, (m, points))| Series {
            name: format!("R/W {}{suffix}", mix_label(m)),
            points,
            color: k,
            dashed,
        })
        .collect()
}

/// A test's lines and its value axis.
fn series(t: &TestFigures) -> (&'static str, &'static str, Vec<Series>) {
    let kib = |bs: u64| bs as f64 / 1024.0;
    let per_mix = |value: &dyn Fn(&crate::analysis::pts::CellFigures) -> Option<f64>| {
        t.mixes()
            .into_iter()
            .map(|m| {
                let points = t
                    .sizes()
                    .into_iter()
                    .filter_map(|bs| t.cell(m, bs).and_then(value).map(|v| (kib(bs), v)))
                    .collect();
                (m, points)
            })
            .collect::<Vec<(u8, Vec<(f64, f64)>)>>()
    };
    match t.shows {
        PtsShows::Iops => (
            "IOPS",
            "IOPS",
            per_mix_lines(per_mix(&|c| Some(c.iops)), "", false),
        ),
        PtsShows::MbPerS => (
            "MB/s",
            "MB/s",
            per_mix_lines(per_mix(&|c| Some(c.mb_per_s)), "", false),
        ),
        // A kind of its own (WSAT, HIR, XSR) has no panel here: its figures are not a matrix;
        // nor has a points test (ECW, DIRTH): its one block size is no axis.
        PtsShows::Latency | PtsShows::Own | PtsShows::Points => {
            // A colour per mix: the average solid, the five nines dashed.
            let mut lines = per_mix_lines(per_mix(&|c| Some(c.avg_lat_us)), " average", false);
            let nines = per_mix(&|c| c.p99999_lat_us);
            lines.extend(per_mix_lines(nines, " p99.999 (dashed)", true));
            ("Latency (µs)", "µs", lines)
        }
    }
}

/// Draws one test's panel into `area`.
fn panel<DB: DrawingBackend>(area: &DrawingArea<DB, Shift>, t: &TestFigures) -> anyhow::Result<()>
where
    DB::ErrorType: 'static,
{
    let (y_desc, unit, lines) = series(t);
    let values = lines.iter().flat_map(|l| l.points.iter().map(|q| q.1));
    let (lo, hi) = values
        .filter(|v| *v > 0.0)
        .fold((f64::MAX, 0.0f64), |(lo, hi), v| (lo.min(v), hi.max(v)));
    let (lo, hi) = if hi > 0.0 {
        (lo / 2.0, hi * 4.0)
    } else {
        (1.0, 10.0)
    };
    let sizes: Vec<f64> = t.sizes().iter().map(|&b| b as f64 / 1024.0).collect();
    let x_lo = sizes.iter().copied().fold(f64::MAX, f64::min);
    let x_hi = sizes.iter().copied().fold(0.0, f64::max);
    let (x_lo, x_hi) = if x_hi > 0.0 {
        (x_lo / 1.5, x_hi * 1.5)
    } else {
        (0.5, 1024.0)
    };
    let x_desc = "Block size (KiB)";
    // The test on one line and its window on the next: a narrow panel (one block size) has
    // no room for both on one, and every panel's plot then starts at the same height.
    let window = match t.window {
        Some((first, last)) => format!(
            "rounds {first}-{last}{}",
            if t.steady { ", steady" } else { ", NOT steady" }
        ),
        None => "no full round".to_string(),
    };
    let area = area
        .titled(&t.title, style::legend_font())?
        .titled(&window, style::legend_font())?;
    let mut chart = ChartBuilder::on(&area)
        .margin_left(8)
        .margin_right(24)
        .margin_top(12)
        .x_label_area_size(58)
        .y_label_area_size(96)
        .build_cartesian_2d(
            (x_lo..x_hi).log_scale().with_key_points(sizes),
            (lo..hi).log_scale(),
        )?;
    style::mesh(&mut chart)
        .x_desc(x_desc)
        .y_desc(y_desc)
        .x_label_formatter(&|v| size_label((*v * 1024.0).round() as u64))
        .y_label_formatter(&|v| style::plain_label(*v))
        .draw()?;
    drawn::chart_panel(&chart, x_desc, y_desc);
    for line in lines {
        let color = style::palette(line.color);
        drawn::series(&line.name, unit, &line.points);
        let stroke = color.stroke_width(2);
        let drawn = if line.dashed {
            chart.draw_series(DashedLineSeries::new(line.points.clone(), 10, 6, stroke))?
        } else {
            chart.draw_series(LineSeries::new(line.points.clone(), stroke))?
        };
        drawn
            .label(line.name)
            .legend(move |(x, y)| PathElement::new([(x, y), (x + 24, y)], color.stroke_width(3)));
        chart.draw_series(
            line.points
                .iter()
                .map(|&p| Circle::new(p, 4, color.filled())),
        )?;
    }
    style::legend(&mut chart)
        .position(SeriesLabelPosition::UpperRight)
        .margin(8)
        .draw()?;
    Ok(())
}

impl Chart for PtsChart {
    fn draw<DB: DrawingBackend>(&self, root: &DrawingArea<DB, Shift>) -> anyhow::Result<()>
    where
        DB::ErrorType: 'static,
    {
        root.fill(&WHITE)?;
        let body = style::header(root, &self.title, std::slice::from_ref(&self.subtitle))?;
        // Each panel as wide as its block sizes need (the IOPS matrix's eight labels would
        // touch in a third of the width), and room for its axis beside them.
        let weights: Vec<usize> = self
            .figures
            .tests
            .iter()
            .map(|t| t.sizes().len() + 3)
            .collect();
        let total = weights.iter().sum::<usize>().max(1);
        let width = body.dim_in_pixel().0 as usize;
        let breaks: Vec<i32> = weights
            .iter()
            .scan(0, |sum, w| {
                *sum += w;
                Some((*sum * width / total) as i32)
            })
            .take(weights.len().saturating_sub(1))
            .collect();
        let areas = body.split_by_breakpoints(breaks, Vec::<i32>::new());
        for (area, t) in areas.iter().zip(&self.figures.tests) {
            panel(area, t)?;
        }
        Ok(())
    }
}
