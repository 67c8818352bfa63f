//! The latency chart: p50, p99, p99.9 and the maximum of every interval against elapsed time on
//! a log axis, with the same phase bands and erase markers as the fade chart.

use plotters::coord::Shift;
use plotters::prelude::*;
use plotters::style::text_anchor::{HPos, Pos, VPos};

use super::downsample::{min_max_runs, runs, MAX_BUCKETS};
use super::fade::{Event, Phase};
use super::style::{self, time_unit};
use super::Chart;
use crate::analysis::buckets::{buckets, density, per_bucket, Cell};

/// A long run's p50 density: columns of this many buckets, bins of this much log10 (1/24 of a
/// decade).
const DENSITY_COLUMN: usize = 4;
const DENSITY_BIN: f64 = 1.0 / 24.0;

/// One interval's latency figures in microseconds (zero when it completed no I/O).
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct LatencyPoint {
    pub t_s: f64,
    pub p50_us: f64,
    pub p99_us: f64,
    pub p999_us: f64,
    pub max_us: f64,
}

impl LatencyPoint {
    /// An interval without data (the tool was stopped through it): a gap in every line.
    pub fn gap(t_s: f64) -> LatencyPoint {
        LatencyPoint {
            t_s,
            p50_us: f64::NAN,
            p99_us: f64::NAN,
            p999_us: f64::NAN,
            max_us: f64::NAN,
        }
    }
}

/// Everything the latency chart shows.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct LatencyChart {
    pub title: String,
    pub subtitle: String,
    pub points: Vec<LatencyPoint>,
    pub phases: Vec<Phase>,
    pub events: Vec<Event>,
}

impl LatencyChart {
    /// One series, (seconds, µs) per interval, with a point without a number wherever its line
    /// breaks: an interval the tool was stopped through, and the start of every phase (no line
    /// from one phase's last interval to the next one's first).
    fn runs(&self, pick: fn(&LatencyPoint) -> f64) -> Vec<(f64, f64)> {
        let phase_of = |t: f64| {
            self.phases
                .iter()
                .position(|ph| t > ph.start_s && t <= ph.end_s + 1e-9)
        };
        let mut out: Vec<(f64, f64)> = Vec::with_capacity(self.points.len());
        let mut phase = None;
        for p in self
            .points
            .iter()
            .filter(|p| pick(p) > 0.0 || pick(p).is_nan())
        {
            let now = phase_of(p.t_s);
            if now != phase && !out.is_empty() {
                out.push((p.t_s, f64::NAN));
            }
            phase = now;
            out.push((p.t_s, pick(p)));
        }
        out
    }
}

impl LatencyChart {
    /// Intervals per bucket when the run is too long to draw every interval (see
    /// [`crate::analysis::buckets`]); None when each interval is drawn.
    pub fn per_bucket(&self) -> Option<usize> {
        per_bucket(self.points.len(), MAX_BUCKETS)
    }

    /// What a bucketed chart draws, for its subtitle and its caption; None when every
    /// interval is drawn.
    pub fn band_note(&self) -> Option<String> {
        self.per_bucket().map(|n| {
            format!(
                "Buckets of {n} intervals: p99 and p99.9 = the bucket's median over its 5th–95th percentile shade, max = its highest; p50 = where the intervals lie, in columns of {} intervals (darker = more, two stripes = two modes)", n * DENSITY_COLUMN
            )
        })
    }
}

impl Chart for LatencyChart {
    fn draw<DB: DrawingBackend>(&self, root: &DrawingArea<DB, Shift>) -> anyhow::Result<()>
    where
        DB::ErrorType: 'static,
    {
        root.fill(&WHITE)?;
        // The note in two lines (at its "; "): one would run past the chart's width.
        let mut lines = vec![self.subtitle.clone()];
        if let Some(note) = self.band_note() {
            match note.split_once("; ") {
                Some((first, second)) => lines.extend([first.to_string(), second.to_string()]),
                None => lines.push(note),
            }
        }
        let body = style::header(root, &self.title, &lines)?;
        let end = self.points.last().map_or(1.0, |p| p.t_s).max(1e-9);
        let unit = time_unit(end);
        let positive = || {
            self.points
                .iter()
                .flat_map(|p| [p.p50_us, p.p99_us, p.p999_us, p.max_us])
                .filter(|v| *v > 0.0 && v.is_finite())
        };
        let lowest = positive().fold(f64::INFINITY, f64::min);
        let highest = positive().fold(0.0, f64::max);
        let (lowest, highest) = if highest > 0.0 {
            (lowest, highest)
        } else {
            (1.0, 10.0)
        };
        // The axis holds µs; each tick names its own unit (50 µs, 2 ms, 1 s).
        let scale = 1.0;
        // The y axis holds log10 of the latency, with ticks drawn at 1-2-5 values below. The
        // room above the highest value grows with the decades shown, so the legend in the top
        // right corner stays clear of the data however many decades the axis spans.
        let (low, high) = ((lowest / scale / 1.5).log10(), (highest / scale).log10());
        let y = low..high + 0.4f64.max(0.3 * (high - low));
        let mut chart = ChartBuilder::on(&body)
            .margin_left(12)
            .margin_right(36)
            .margin_top(8)
            .margin_bottom(8)
            .x_label_area_size(58)
            .y_label_area_size(110)
            .build_cartesian_2d(0f64..end / unit.seconds, y.clone())?;
        chart
            .configure_mesh()
            .x_desc(format!("Elapsed time ({})", unit.name))
            .y_desc("Latency per interval (log scale)")
            .x_labels(12)
            .y_labels(0)
            .x_label_formatter(&|v| style::plain_label(*v))
            .label_style(style::tick_font())
            .axis_desc_style(style::axis_desc_font())
            .bold_line_style(BLACK.mix(0.10))
            .light_line_style(WHITE.mix(0.0))
            .draw()?;
        super::drawn::chart_panel(
            &chart,
            &format!("Elapsed time ({})", unit.name),
            "log10 of latency (µs)",
        );
        let right = end / unit.seconds;
        for tick in log_ticks(y.start, y.end) {
            let ty = tick.log10();
            chart.draw_series(std::iter::once(PathElement::new(
                vec![(0.0, ty), (right, ty)],
                BLACK.mix(0.10),
            )))?;
            let (px, py) = chart.backend_coord(&(0.0, ty));
            root.draw(&Text::new(
                style::us_label(tick),
                (px - 10, py),
                style::tick_font().pos(Pos::new(HPos::Right, VPos::Center)),
            ))?;
        }
        let top = y.end;
        for (i, phase) in self.phases.iter().enumerate() {
            let (x0, x1) = (phase.start_s / unit.seconds, phase.end_s / unit.seconds);
            chart.draw_series(std::iter::once(Rectangle::new(
                [(x0, y.start), (x1, top)],
                style::BAND[i % 2].mix(0.10).filled(),
            )))?;
            // Only bands wide enough for their name are named (the fade chart names them all).
            let font = style::note_font(style::BAND_TEXT);
            let pixels = chart.backend_coord(&(x1, top)).0 - chart.backend_coord(&(x0, top)).0;
            let needed = body
                .estimate_text_size(&phase.name, &font)
                .map_or(0, |(w, _)| w as i32);
            if pixels >= needed + 10 {
                chart.draw_series(std::iter::once(
                    EmptyElement::at((x0, top)) + Text::new(phase.name.clone(), (5, 5), font),
                ))?;
            }
        }
        let x_range = 0.0..right;
        for event in &self.events {
            let x = event.t_s / unit.seconds;
            chart.draw_series(std::iter::once(PathElement::new(
                vec![(x, y.start), (x, top)],
                style::EVENT.stroke_width(2),
            )))?;
            // Named near the x axis, clear of the legend and the band names along the top.
            let (dx, anchor) = super::panel::label_side(x, &x_range);
            chart.draw_series(std::iter::once(
                EmptyElement::at((x, y.start))
                    + Text::new(
                        event.label.clone(),
                        (dx, -26),
                        style::note_font(style::EVENT).pos(Pos::new(anchor, VPos::Top)),
                    ),
            ))?;
        }
        type Pick = fn(&LatencyPoint) -> f64;
        let series: [(&str, Pick, RGBColor, u32); 4] = [
            ("max", |p| p.max_us, style::MAX, 1),
            ("p99.9", |p| p.p999_us, style::P999, 2),
            ("p99", |p| p.p99_us, style::P99, 2),
            ("p50", |p| p.p50_us, style::P50, 2),
        ];
        let per_bucket = self.per_bucket();
        for (name, pick, color, width) in series {
            let points: Vec<(f64, f64)> = self
                .runs(pick)
                .into_iter()
                .map(|(t_s, us)| (t_s / unit.seconds, (us / scale).log10()))
                .collect();
            let lines: Vec<Vec<(f64, f64)>> = match per_bucket {
                // A long run: each bucket's median interval as the line over its p5–p95 band;
                // the maximum keeps each bucket's highest interval.
                // The p50 is the series that splits into modes (the simulator's per-second p50
                // is bimodal): its intervals as a density, two modes as two stripes.
                Some(size) if name == "p50" => {
                    super::drawn::series(name, "log10 µs", &points);
                    let cells: Vec<Cell> = runs(&points)
                        .flat_map(|run| density(run, size * DENSITY_COLUMN, DENSITY_BIN))
                        .collect();
                    chart
                        .draw_series(cells.iter().map(|c| {
                            Rectangle::new(
                                [(c.x0, c.y0), (c.x1, c.y1)],
                                color.mix(0.15 + 0.85 * c.share.sqrt()).filled(),
                            )
                        }))?
                        .label(name)
                        .legend(move |(x, y)| {
                            Rectangle::new([(x, y - 6), (x + 24, y + 6)], color.mix(0.6).filled())
                        });
                    continue;
                }
                Some(size) => {
                    let mut lines = Vec::new();
                    for run in runs(&points) {
                        let b = buckets(run, size);
                        if name == "max" {
                            lines.push(b.iter().map(|b| (b.x, b.max)).collect());
                            continue;
                        }
                        let mut band: Vec<(f64, f64)> = b.iter().map(|b| (b.x, b.p95)).collect();
                        band.extend(b.iter().rev().map(|b| (b.x, b.p5)));
                        chart.draw_series(std::iter::once(Polygon::new(
                            band,
                            color.mix(0.18).filled(),
                        )))?;
                        lines.push(b.iter().map(|b| (b.x, b.p50)).collect());
                    }
                    lines
                }
                None => min_max_runs(&points, MAX_BUCKETS),
            };
            super::drawn::series(name, "log10 µs", &lines.join(&(f64::NAN, f64::NAN)));
            chart
                .draw_series(
                    lines
                        .into_iter()
                        .map(|run| PathElement::new(run, color.stroke_width(width))),
                )?
                .label(name)
                .legend(move |(x, y)| {
                    PathElement::new(vec![(x, y), (x + 24, y)], color.stroke_width(4))
                });
        }
        // Top right, below the phase names written along the top of the plot.
        let width = chart.plotting_area().dim_in_pixel().0 as i32;
        chart
            .configure_series_labels()
            .position(SeriesLabelPosition::Coordinate(width - 118, 34))
            .label_font(style::legend_font())
            .background_style(WHITE.mix(0.9))
            .border_style(BLACK.mix(0.3))
            .margin(12)
            .draw()?;
        Ok(())
    }
}

/// The 1-2-5 values between 10^lo and 10^hi (thinned to 1 and 3, then 1, over many decades).
pub(super) fn log_ticks(lo: f64, hi: f64) -> Vec<f64> {
    let steps: &[f64] = if hi - lo > 5.0 {
        &[1.0]
    } else if hi - lo > 2.5 {
        &[1.0, 3.0]
    } else {
        &[1.0, 2.0, 5.0]
    };
    let mut ticks = Vec::new();
    for decade in lo.floor() as i32..=hi.ceil() as i32 {
        for step in steps {
            let v = step * 10f64.powi(decade);
            if v.log10() >= lo && v.log10() <= hi {
                ticks.push(v);
            }
        }
    }
    ticks
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Two phases: the p50 line stops at the first one's end and starts again in the second.
    #[test]
    fn the_lines_break_between_phases() {
        let point = |t_s: f64, us: f64| LatencyPoint {
            p50_us: us,
            ..LatencyPoint::gap(t_s)
        };
        let chart = LatencyChart {
            points: vec![point(1.0, 100.0), point(2.0, 100.0), point(3.0, 900.0)],
            phases: vec![
                Phase {
                    name: "a".into(),
                    start_s: 0.0,
                    end_s: 2.0,
                },
                Phase {
                    name: "b".into(),
                    start_s: 2.0,
                    end_s: 3.0,
                },
            ],
            ..Default::default()
        };
        let runs = chart.runs(|p| p.p50_us);
        let ys: Vec<String> = runs.iter().map(|p| p.1.to_string()).collect();
        assert_eq!(ys, ["100", "100", "NaN", "900"]);
    }
    /// A day of 1 s intervals whose p50 is 25 ms every `period`-th interval and 120 ms
    /// otherwise, under a flat p99, p99.9 and maximum.
    fn a_day_at_1s_whose_p50_flips(period: u32) -> LatencyChart {
        let points = (0..86_400)
            .map(|i| LatencyPoint {
                t_s: f64::from(i) + 1.0,
                p50_us: if i % period == 0 { 25_000.0 } else { 120_000.0 },
                p99_us: 200_000.0,
                p999_us: 230_000.0,
                max_us: 240_000.0,
            })
            .collect();
        LatencyChart {
            points,
            ..Default::default()
        }
    }

    /// A day at 1 s whose p50 flips between 25 and 120 ms every second: drawn in buckets of
    /// 58 intervals, each percentile a median line over a shaded p5–p95 band, and the chart
    /// says so under its title.
    #[test]
    fn a_long_run_is_drawn_as_a_p5_p95_band_per_bucket() {
        let chart = a_day_at_1s_whose_p50_flips(2);
        assert_eq!(chart.per_bucket(), Some(58));
        let svg = chart.svg().unwrap();
        assert!(svg.contains("<polygon"), "no band");
        assert!(svg.contains("5th–95th percentile"), "no note");
    }

    /// A day at 1 s whose p50 flips between 25 and 120 ms: the p50 is drawn as two stripes
    /// (cells at two heights, nothing between), not a median line that jumps between them.
    #[test]
    fn a_long_runs_bimodal_p50_is_two_stripes() {
        let chart = a_day_at_1s_whose_p50_flips(3);
        let svg = chart.svg().unwrap();
        let fill = {
            let RGBColor(r, g, b) = style::P50;
            format!("fill=\"#{r:02X}{g:02X}{b:02X}\"")
        };
        let mut heights: Vec<&str> = svg
            .split("<rect ")
            .skip(1)
            .filter(|r| r.split("/>").next().unwrap().contains(&fill))
            .filter_map(|r| r.split("y=\"").nth(1)?.split('"').next())
            .collect();
        let cells = heights.len();
        heights.sort_unstable();
        heights.dedup();
        // The legend's swatch is a third height.
        assert_eq!(heights.len(), 3, "{heights:?} of {cells} cells");
        assert!(
            cells > 700,
            "{cells} cells: a column every 232 intervals, two each"
        );
    }
}
