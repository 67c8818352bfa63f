//! The latency chart: p50, p99, p99.9 and the maximum of every interval against elapsed time on
//! a log axis, with the same phase bands and erase markers as the fade chart.

use plotters::coord::Shift;
use plotters::prelude::*;
use plotters::style::text_anchor::{HPos, Pos, VPos};

use plotters::element::DashedPathElement;

use super::downsample::{min_max_runs, runs, MAX_BUCKETS};
use super::fade::{Event, Phase};
use super::layout::{Layout, Note};
use super::style::{self, time_unit};
use super::Chart;
use crate::analysis::buckets::{buckets, per_bucket, Bucket};

/// The legend's box in the top right corner of the plot (width, height from the plot's top),
/// kept clear of the phases' names.
const LEGEND_BOX: (i32, i32) = (130, 170);

/// Buckets a long run is drawn in: about 9 px each on the chart. A run of more than twice this
/// many intervals is bucketed; a line through every interval of it, when the latency flips
/// between two levels from one interval to the next, fills the plot as a barcode.
const BUCKETS: usize = 150;

/// How opaque a percentile's 5th–95th shade is: light enough that the shade of p99 over the
/// one of p50 still shows both.
const BAND_OPACITY: f64 = 0.16;

/// How one percentile is drawn. Lines are drawn widest first (p50 under p99 under p99.9) and
/// the maximum dashed on top, so wherever two coincide both still show: the wider as the edge
/// around the narrower, the dashes over a line.
#[derive(Clone, Copy)]
struct Percentile {
    name: &'static str,
    pick: fn(&LatencyPoint) -> f64,
    color: RGBColor,
    width: u32,
    dashed: bool,
}

/// The percentiles in drawing order.
const PERCENTILES: [Percentile; 4] = [
    Percentile {
        name: "p50",
        pick: |p| p.p50_us,
        color: style::P50,
        width: 8,
        dashed: false,
    },
    Percentile {
        name: "p99",
        pick: |p| p.p99_us,
        color: style::P99,
        width: 5,
        dashed: false,
    },
    Percentile {
        name: "p99.9",
        pick: |p| p.p999_us,
        color: style::P999,
        width: 2,
        dashed: false,
    },
    Percentile {
        name: "max",
        pick: |p| p.max_us,
        color: style::MAX,
        width: 2,
        dashed: true,
    },
];

/// A run of points between gaps, as drawn.
type Line = Vec<(f64, f64)>;

/// One interval drawn as it is: a bucket of one.
fn one_interval(x: f64, y: f64) -> Bucket {
    Bucket {
        x,
        p5: y,
        p50: y,
        p95: y,
        max: y,
    }
}

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
        per_bucket(self.points.len(), BUCKETS)
    }

    /// What a bucketed chart draws, for its subtitle and its caption; None when every
    /// interval is drawn.
    pub fn band_note(&self) -> Option<String> {
        self.per_bucket().map(|n| {
            format!(
                "Buckets of {n} intervals: p50, p99 and p99.9 = the bucket's median interval over its 5th–95th percentile shade; max = the bucket's highest"
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
        style::mesh(&mut chart)
            .x_desc(format!("Elapsed time ({})", unit.name))
            .y_desc("Latency per interval (log scale)")
            .x_labels(12)
            .y_labels(0)
            .x_label_formatter(&|v| style::plain_label(*v))
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
                crate::units::format_latency_us(tick),
                (px - 10, py),
                style::tick_font().pos(Pos::new(HPos::Right, VPos::Center)),
            ))?;
        }
        let top = y.end;
        // The phases' and events' names go through the shared label layout, clear of each
        // other, of the event lines and of the legend in the top right corner.
        let plot = super::drawn::area_box(chart.plotting_area());
        let mut layout = Layout::new(plot);
        layout.avoid([
            plot[2] - LEGEND_BOX.0,
            plot[1],
            plot[2],
            plot[1] + LEGEND_BOX.1,
        ]);
        let mut notes = Vec::new();
        for (i, phase) in self.phases.iter().enumerate() {
            let (x0, x1) = (phase.start_s / unit.seconds, phase.end_s / unit.seconds);
            chart.draw_series(std::iter::once(Rectangle::new(
                [(x0, y.start), (x1, top)],
                style::BAND[i % 2].mix(0.10).filled(),
            )))?;
            // Only bands wide enough for their name are named (the fade chart names them all).
            let font = style::note_font(style::BAND_TEXT);
            let (left, right) = (
                chart.backend_coord(&(x0, top)).0,
                chart.backend_coord(&(x1, top)).0,
            );
            let needed = body
                .estimate_text_size(&phase.name, &font)
                .map_or(0, |(w, _)| w as i32);
            if right - left >= needed + 10 {
                notes.push(Note {
                    text: phase.name.clone(),
                    font,
                    point: (left, plot[1]),
                    wanted: vec![(left + 5, plot[1] + 5)],
                });
            }
        }
        for event in &self.events {
            let x = event.t_s / unit.seconds;
            chart.draw_series(std::iter::once(PathElement::new(
                vec![(x, y.start), (x, top)],
                style::EVENT.stroke_width(2),
            )))?;
            let at = chart.backend_coord(&(x, y.start)).0;
            layout.avoid_line([at - 1, plot[1], at + 2, plot[3]]);
            // Named near the x axis, clear of the legend and the band names along the top.
            let font = style::note_font(style::EVENT);
            let w = body
                .estimate_text_size(&event.label, &font)
                .map_or(0, |(w, _)| w as i32);
            let low = plot[3] - 26;
            notes.insert(
                0,
                Note {
                    text: event.label.clone(),
                    font,
                    point: (at, low),
                    wanted: vec![(at + 8, low), (at - 8 - w, low)],
                },
            );
        }
        let per_bucket = self.per_bucket();
        let lines: Vec<(Percentile, Vec<Line>)> = PERCENTILES
            .iter()
            .map(|pct| {
                let points: Vec<(f64, f64)> = self
                    .runs(pct.pick)
                    .into_iter()
                    .map(|(t_s, us)| (t_s / unit.seconds, (us / scale).log10()))
                    .collect();
                (*pct, points)
            })
            .map(|(pct, points)| match per_bucket {
                // A long run: each bucket's median interval as the line (the maximum its
                // highest), over the shade of its 5th–95th percentile interval.
                Some(size) => {
                    let drawn = runs(&points).map(|run| buckets(run, size)).collect();
                    (pct, drawn)
                }
                None => {
                    let drawn = min_max_runs(&points, MAX_BUCKETS)
                        .into_iter()
                        .map(|run| run.into_iter().map(|(x, y)| one_interval(x, y)).collect())
                        .collect();
                    (pct, drawn)
                }
            })
            .map(|(pct, drawn): (Percentile, Vec<Vec<Bucket>>)| {
                let line = drawn
                    .iter()
                    .map(|run| {
                        run.iter()
                            .map(|b| (b.x, if pct.name == "max" { b.max } else { b.p50 }))
                            .collect()
                    })
                    .collect();
                if per_bucket.is_some() && pct.name != "max" {
                    for run in &drawn {
                        let mut band: Vec<(f64, f64)> = run.iter().map(|b| (b.x, b.p95)).collect();
                        band.extend(run.iter().rev().map(|b| (b.x, b.p5)));
                        chart.draw_series(std::iter::once(Polygon::new(
                            band,
                            pct.color.mix(BAND_OPACITY).filled(),
                        )))?;
                    }
                }
                Ok((pct, line))
            })
            .collect::<anyhow::Result<_>>()?;
        // Every shade is under every line; the lines widest first, so a percentile that
        // coincides with the one above it still shows as the edge around it.
        for (pct, runs) in lines {
            super::drawn::series(pct.name, "log10 µs", &runs.join(&(f64::NAN, f64::NAN)));
            let style = pct.color.stroke_width(pct.width);
            let drawn = if pct.dashed {
                chart.draw_series(
                    runs.into_iter()
                        .map(|run| DashedPathElement::new(run, 10, 6, style)),
                )?
            } else {
                chart.draw_series(runs.into_iter().map(|run| PathElement::new(run, style)))?
            };
            // The legend's sample: as wide (up to 6 px) and as dashed as the line, two
            // segments that meet, or leave a gap when the line is dashed.
            let sample = pct.color.stroke_width(pct.width.min(6));
            let (end, start) = if pct.dashed { (9, 15) } else { (12, 12) };
            drawn.label(pct.name).legend(move |(x, y)| {
                EmptyElement::at((x, y))
                    + PathElement::new(vec![(0, 0), (end, 0)], sample)
                    + PathElement::new(vec![(start, 0), (24, 0)], sample)
            });
        }
        for note in &notes {
            layout.draw(&body, note)?;
        }
        // Top right, below the phase names written along the top of the plot.
        let width = chart.plotting_area().dim_in_pixel().0 as i32;
        style::legend(&mut chart)
            .position(SeriesLabelPosition::Coordinate(width - 118, 34))
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
    /// 576 intervals, each percentile a median line over a shaded p5–p95 band, and the chart
    /// says so under its title.
    #[test]
    fn a_long_run_is_drawn_as_a_p5_p95_band_per_bucket() {
        let chart = a_day_at_1s_whose_p50_flips(2);
        assert_eq!(chart.per_bucket(), Some(576));
        let svg = chart.svg().unwrap();
        assert!(svg.contains("<polygon"), "no band");
        assert!(svg.contains("5th–95th percentile"), "no note");
    }

    /// The stroke colour and width of every line `svg` draws, in drawing order.
    fn strokes(svg: &str) -> Vec<(String, String)> {
        svg.split("<polyline ")
            .skip(1)
            .filter_map(|line| {
                let attr = |name: &str| {
                    let at = line.find(&format!(" {name}=\""))? + name.len() + 3;
                    Some(line[at..].split('"').next()?.to_string())
                };
                Some((attr("stroke")?, attr("stroke-width")?))
            })
            .collect()
    }

    fn hex(RGBColor(r, g, b): RGBColor) -> String {
        format!("#{r:02X}{g:02X}{b:02X}")
    }

    /// A CDM test's intervals whose p50, p99, p99.9 and maximum are one value (the simulator's
    /// steady latency): each still shows, widest first, so p50 is the edge around p99, p99
    /// the edge around p99.9, and the maximum is dashed over all three.
    #[test]
    fn percentiles_that_coincide_are_drawn_inside_each_other_all_visible() {
        let points = (1..=5)
            .map(|i| LatencyPoint {
                t_s: f64::from(i),
                p50_us: 300.0,
                p99_us: 300.0,
                p999_us: 300.0,
                max_us: 300.0,
            })
            .collect();
        let svg = LatencyChart {
            points,
            ..Default::default()
        }
        .svg()
        .unwrap();
        let strokes = strokes(&svg);
        let first = |color: RGBColor| strokes.iter().position(|s| s.0 == hex(color));
        let order: Vec<Option<usize>> = [style::P50, style::P99, style::P999, style::MAX]
            .into_iter()
            .map(first)
            .collect();
        assert!(order.iter().all(Option::is_some), "{strokes:?}");
        assert!(order.windows(2).all(|w| w[0] < w[1]), "{order:?}");
        let width = |color: RGBColor| strokes[first(color).unwrap()].1.parse::<u32>().unwrap();
        assert!(width(style::P50) > width(style::P99) + 1);
        assert!(width(style::P99) > width(style::P999) + 1);
        // The maximum is dashed: many short lines, not one.
        let dashes = strokes.iter().filter(|s| s.0 == hex(style::MAX)).count();
        assert!(dashes > 10, "{dashes} pieces of the maximum");
    }

    /// HIR's burst phases: 1000 intervals at 10 s whose p50 flips between 13 and 40 ms
    /// every interval (a barcode when every interval is joined): drawn in buckets, a shade
    /// per percentile and a line per percentile with at most one point per bucket.
    #[test]
    fn a_flipping_p50_of_a_thousand_intervals_is_bucketed_not_a_barcode() {
        let points: Vec<LatencyPoint> = (0..1000)
            .map(|i| LatencyPoint {
                t_s: f64::from(i + 1) * 10.0,
                p50_us: if i % 2 == 0 { 13_000.0 } else { 40_000.0 },
                p99_us: 120_000.0,
                p999_us: 200_000.0,
                max_us: 210_000.0,
            })
            .collect();
        let chart = LatencyChart {
            points,
            ..Default::default()
        };
        assert_eq!(chart.per_bucket(), Some(7));
        let svg = chart.svg().unwrap();
        for color in [style::P50, style::P99, style::P999] {
            assert!(
                svg.split("<polygon ")
                    .skip(1)
                    .any(|p| p.contains(&hex(color))),
                "no shade of {color:?}"
            );
        }
        let p50 = svg
            .split("<polyline ")
            .find(|l| l.contains(&format!("stroke=\"{}\"", hex(style::P50))))
            .unwrap();
        let joined = p50
            .split("points=\"")
            .nth(1)
            .unwrap()
            .split('"')
            .next()
            .unwrap();
        let drawn = joined.split_whitespace().count();
        assert!(drawn <= 143, "{drawn} points");
    }
}
