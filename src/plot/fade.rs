//! The fade chart, the main picture: IOPS per interval and its moving average against elapsed
//! time, and below against host data written with the drive fills marked; phases as shaded
//! named bands, erase events as labelled markers, measured states as labelled levels (and one
//! line under the title: "fresh 6000 → faded 910 (15 % of fresh) → recovered 4000 (67 % of
//! fresh)", the fade of [`crate::analysis::fade`]),
//! the steady-state window when one was reached, and the predicted steady state (dashed, with
//! its interval).

use plotters::coord::Shift;
use plotters::prelude::*;

use super::downsample::{average_window, min_max, moving_average, MAX_BUCKETS};
use super::panel::{Band, BandName, Forecast, Level, Line, Marker, Panel};
use super::style::{self, time_unit};
use super::Chart;

/// One interval: when it ended, its IOPS, and the host bytes written up to its end.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct FadePoint {
    pub t_s: f64,
    pub iops: f64,
    pub bytes_written: u64,
}

/// A named span of the timeline (an experiment phase).
#[derive(Clone, Debug, PartialEq)]
pub struct Phase {
    pub name: String,
    pub start_s: f64,
    pub end_s: f64,
}

/// Something that happened at one moment (an erase).
#[derive(Clone, Debug, PartialEq)]
pub struct Event {
    pub label: String,
    pub t_s: f64,
}

/// A measured state: its name, its IOPS level and when it was measured.
#[derive(Clone, Debug, PartialEq)]
pub struct State {
    pub name: String,
    pub iops: f64,
    pub start_s: f64,
    pub end_s: f64,
    /// Its level as a percent of the reference state (the first state with none), as
    /// analysis computed it; None for the reference and when there is no reference.
    pub pct_of_ref: Option<f64>,
}

/// SNIA's measurement window in which steady state was reached: from its first round's start
/// to its last round's end, its average IOPS, and when the level did not hold, the run's last
/// window against it (percent) with that window's average.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct SteadyWindow {
    pub start_s: f64,
    pub end_s: f64,
    pub iops: f64,
    pub did_not_hold: Option<(f64, f64)>,
}

impl SteadyWindow {
    /// Its legend entry: "SNIA steady window 2374 IOPS, held", or "…, did not hold (last
    /// window 958, -60 %)".
    pub fn legend(&self, unit: &str) -> String {
        let verdict = match self.did_not_hold {
            None => "held".to_string(),
            Some((drift_pct, last)) => format!(
                "did not hold (last window {}, {drift_pct:+.0} %)",
                crate::units::format_count(last)
            ),
        };
        format!(
            "SNIA steady window {} {unit}, {verdict}",
            crate::units::format_count(self.iops)
        )
    }

    /// Its x span on a chart of values measured at the ends of their intervals (`ends`, in
    /// seconds): from the first value measured inside it to its end, so the band covers the
    /// values it averages and not the one before it (the cliff's last point).
    pub fn drawn_span(&self, ends: impl IntoIterator<Item = f64>) -> (f64, f64) {
        let first = ends
            .into_iter()
            .find(|&t| t > self.start_s + 1e-9 && t <= self.end_s + 1e-9)
            .unwrap_or(self.start_s);
        (first, self.end_s)
    }
}

/// The steady IOPS predicted during the run, its interval, and when it was first made.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Predicted {
    pub iops: f64,
    pub low: f64,
    pub high: f64,
    pub from_s: f64,
    /// Which level it is (settled, at the plan's end, at SNIA's pass).
    pub basis: crate::results::Basis,
}

/// Everything the fade chart shows.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct FadeChart {
    /// Device and command, e.g. "soak — OCZ Vertex 2 60GB (sim:vertex2-60g, 55.9 GiB)".
    pub title: String,
    /// The workload on one line.
    pub subtitle: String,
    /// Seconds per interval, for the legend.
    pub interval_s: f64,
    pub points: Vec<FadePoint>,
    /// The drive's size, to mark each drive fill on the data-written panel.
    pub drive_bytes: Option<u64>,
    pub phases: Vec<Phase>,
    pub events: Vec<Event>,
    pub states: Vec<State>,
    /// Every steady-state window (one per phase of an experiment that reached one).
    pub steady: Vec<SteadyWindow>,
    /// The steady-state prediction, drawn dashed with its band from where it was first made.
    pub prediction: Option<Predicted>,
    /// The points' rate is MB/s, not IOPS (a benchmark preset that reports MB/s, its
    /// 1 MiB and 4 KiB tests on one axis).
    pub mb_per_s: bool,
}

/// The states as one line, each later state with its share of the reference (the state
/// without a share, "fresh" in an experiment), e.g. "fresh 6000 IOPS → faded 910 (15 % of
/// fresh) → recovered 4000 (67 % of fresh)".
pub fn states_caption(states: &[State]) -> String {
    let reference = states
        .iter()
        .find(|s| s.pct_of_ref.is_none())
        .map_or("", |s| s.name.as_str());
    let parts: Vec<String> = states
        .iter()
        .enumerate()
        .map(|(i, s)| {
            let share = s
                .pct_of_ref
                .map(|p| format!(" ({p:.0} % of {reference})"))
                .unwrap_or_default();
            let unit = if i == 0 { " IOPS" } else { "" };
            format!(
                "{} {}{unit}{share}",
                s.name,
                crate::units::format_count(s.iops)
            )
        })
        .collect();
    parts.join(" → ")
}

impl FadeChart {
    /// Host gigabytes (10^9 bytes) written by time `t_s`, interpolated between intervals.
    fn gb_at(&self, t_s: f64) -> f64 {
        let i = self.points.partition_point(|p| p.t_s < t_s);
        let gb = |p: &FadePoint| p.bytes_written as f64 / 1e9;
        match (
            i.checked_sub(1).map(|j| &self.points[j]),
            self.points.get(i),
        ) {
            (None, Some(b)) => gb(b) * (t_s / b.t_s.max(f64::MIN_POSITIVE)).clamp(0.0, 1.0),
            (Some(a), None) => gb(a),
            (Some(a), Some(b)) if b.t_s > a.t_s => {
                gb(a) + (gb(b) - gb(a)) * (t_s - a.t_s) / (b.t_s - a.t_s)
            }
            (Some(a), Some(_)) => gb(a),
            (None, None) => 0.0,
        }
    }

    /// What the y axis counts: "IOPS", or "MB/s".
    fn unit(&self) -> &'static str {
        if self.mb_per_s {
            "MB/s"
        } else {
            "IOPS"
        }
    }

    fn interval_label(&self) -> String {
        if self.interval_s > 0.0 {
            format!(
                "{} per interval ({})",
                self.unit(),
                crate::units::format_interval(std::time::Duration::from_secs_f64(self.interval_s))
            )
        } else {
            format!("{} per interval", self.unit())
        }
    }

    /// The points split at phase boundaries (the whole series when there are no phases): a
    /// moving average never runs from one phase into another.
    fn segments(&self) -> Vec<&[FadePoint]> {
        let phase_of = |p: &FadePoint| {
            self.phases
                .iter()
                .position(|ph| p.t_s > ph.start_s && p.t_s <= ph.end_s + 1e-9)
        };
        // A point without a number (an interval the tool was stopped in) ends a segment too.
        self.points
            .chunk_by(|a, b| phase_of(a) == phase_of(b) && b.iops.is_finite())
            .map(|s| match s.first() {
                Some(p) if !p.iops.is_finite() => &s[1..],
                _ => s,
            })
            .filter(|s| !s.is_empty())
            .collect()
    }

    /// Where the interval ending at `p` began: an interval's length before it, but not before
    /// the interval before it ended (nor before the run began), with what had been written by
    /// then.
    fn interval_start(&self, p: &FadePoint) -> FadePoint {
        let before = self.points.iter().take_while(|q| q.t_s < p.t_s).last();
        let t_s = (p.t_s - self.interval_s).max(before.map_or(0.0, |q| q.t_s));
        FadePoint {
            t_s,
            iops: p.iops,
            bytes_written: before.map_or(0, |q| q.bytes_written),
        }
    }

    /// The IOPS lines against `x` (a function of the point), downsampled, with their moving
    /// average over time, one line per phase.
    fn lines(&self, x: impl Fn(&FadePoint) -> f64, legend: bool) -> Vec<Line> {
        let span =
            self.points.last().map_or(0.0, |p| p.t_s) - self.points.first().map_or(0.0, |p| p.t_s);
        let window = average_window(span, self.interval_s);
        // A phase that moves nothing along x (one that writes nothing, on the data-written
        // axis) has no extent there: drawn, its intervals would stand as a vertical line.
        let segments: Vec<&[FadePoint]> = self
            .segments()
            .into_iter()
            .filter(|s| s.len() < 2 || x(&s[0]) != x(&s[s.len() - 1]))
            .collect();
        let mut lines = vec![Line {
            name: self.interval_label(),
            legend,
            // Each phase and each run between gaps on its own, joined by a point without a
            // number: no line across a gap or from one phase into the next.
            points: segments
                .iter()
                .map(|s| match s {
                    // A lone interval (a run stopped in its first one) is drawn across the
                    // time it covers, not as a dot at its end on the plot's edge.
                    [p] => vec![(x(&self.interval_start(p)), p.iops), (x(p), p.iops)],
                    _ => {
                        let points: Vec<(f64, f64)> = s.iter().map(|p| (x(p), p.iops)).collect();
                        min_max(&points, MAX_BUCKETS)
                    }
                })
                .collect::<Vec<_>>()
                .join(&(f64::NAN, f64::NAN)),
            color: style::RAW,
            width: 1,
            dots: false,
        }];
        let Some(window) = window else {
            return lines;
        };
        // One line of the averages of every segment, broken between them like the intervals.
        let averages: Vec<Vec<(f64, f64)>> = segments
            .into_iter()
            .map(|segment| {
                let by_time: Vec<(f64, f64)> = segment.iter().map(|p| (p.t_s, p.iops)).collect();
                let points: Vec<(f64, f64)> = moving_average(&by_time, window)
                    .into_iter()
                    .zip(segment)
                    .map(|((_, avg), p)| (x(p), avg))
                    .collect();
                min_max(&points, MAX_BUCKETS)
            })
            .collect();
        lines.push(Line {
            name: format!(
                "moving average ({}{})",
                crate::units::format_duration(std::time::Duration::from_secs_f64(window)),
                // A single run has no phases to speak of.
                if self.phases.is_empty() {
                    ""
                } else {
                    ", within each phase"
                }
            ),
            legend,
            points: averages.join(&(f64::NAN, f64::NAN)),
            color: style::AVERAGE,
            width: 3,
            dots: false,
        });
        lines
    }

    /// The phases' bands and the steady windows (named in the legend when `legend`).
    fn bands(&self, x: impl Fn(f64) -> f64, legend: bool) -> Vec<Band> {
        let mut bands: Vec<Band> = self
            .phases
            .iter()
            .enumerate()
            .map(|(i, p)| Band {
                label: p.name.clone(),
                x: x(p.start_s)..x(p.end_s),
                color: style::BAND[i % 2],
                opacity: 0.10,
                name: BandName::Inside,
            })
            .collect();
        for w in &self.steady {
            let (start, end) = w.drawn_span(self.points.iter().map(|p| p.t_s));
            bands.push(Band {
                label: w.legend(self.unit()),
                x: x(start)..x(end),
                color: style::STEADY,
                opacity: 0.18,
                name: if legend {
                    BandName::Legend
                } else {
                    BandName::Elsewhere
                },
            });
        }
        bands
    }

    fn markers(&self, x: impl Fn(f64) -> f64) -> Vec<Marker> {
        self.events
            .iter()
            .map(|e| Marker {
                label: e.label.clone(),
                x: x(e.t_s),
                color: style::EVENT,
                low: false,
            })
            .collect()
    }

    /// The prediction as a dashed level in its band, from where it was first made to the
    /// end of the run (`x` maps seconds to the panel's axis).
    fn forecasts(&self, x: impl Fn(f64) -> f64) -> Vec<Forecast> {
        let end = self.points.last().map_or(0.0, |p| p.t_s);
        self.prediction
            .filter(|p| p.from_s < end)
            .map(|p| Forecast {
                label: format!(
                    "predicted {}{} ({}–{}), first made at {}",
                    match p.basis {
                        crate::results::Basis::Settled => String::new(),
                        b => format!("{} ", b.label()),
                    },
                    crate::units::format_count(p.iops),
                    crate::units::format_count(p.low),
                    crate::units::format_count(p.high),
                    crate::units::format_duration(std::time::Duration::from_secs_f64(
                        p.from_s.max(0.0)
                    ))
                ),
                x: x(p.from_s)..x(end),
                y: p.iops,
                band: p.low..p.high,
                color: style::PREDICTION,
            })
            .into_iter()
            .collect()
    }

    fn time_panel(&self) -> Panel {
        let end = self.points.last().map_or(1.0, |p| p.t_s);
        let unit = time_unit(end);
        let x = |t: f64| t / unit.seconds;
        let mut panel = Panel::new(
            format!("Elapsed time ({})", unit.name),
            self.unit(),
            0.0..x(end),
        );
        panel.lines = self.lines(|p| x(p.t_s), true);
        panel.bands = self.bands(x, true);
        panel.markers = self.markers(x);
        panel.forecasts = self.forecasts(x);
        panel.levels = self
            .states
            .iter()
            .map(|s| Level {
                label: format!("{} {}", s.name, crate::units::format_count(s.iops)),
                x: x(s.start_s)..x(s.end_s),
                y: s.iops,
                color: style::state_color(&s.name),
            })
            .collect();
        panel
    }

    fn written_panel(&self) -> Panel {
        let gb = |p: &FadePoint| p.bytes_written as f64 / 1e9;
        let end = self.points.last().map_or(1.0, gb);
        let mut panel = Panel::new("Host data written (GB)", self.unit(), 0.0..end);
        panel.lines = self.lines(gb, false);
        panel.bands = self.bands(|t| self.gb_at(t), false);
        panel.markers = self.markers(|t| self.gb_at(t));
        panel.forecasts = self.forecasts(|t| self.gb_at(t));
        if let Some(drive) = self.drive_bytes.filter(|&b| b > 0) {
            let fill_gb = drive as f64 / 1e9;
            let fills = (end / fill_gb).floor() as usize;
            // At most about a dozen labelled fills, so the labels never run into each other.
            let step = fills.div_ceil(12).max(1);
            panel
                .markers
                .extend((1..=fills).step_by(step).map(|k| Marker {
                    label: format!("{k}× drive"),
                    x: k as f64 * fill_gb,
                    color: style::FILL,
                    low: true,
                }));
        }
        panel
    }
}

impl Chart for FadeChart {
    fn draw<DB: DrawingBackend>(&self, root: &DrawingArea<DB, Shift>) -> anyhow::Result<()>
    where
        DB::ErrorType: 'static,
    {
        root.fill(&WHITE)?;
        let body = style::header(
            root,
            &self.title,
            &[self.subtitle.clone(), states_caption(&self.states)],
        )?;
        let wrote = self.points.last().is_some_and(|p| p.bytes_written > 0);
        if wrote {
            let (top, bottom) = body.split_vertically(body.dim_in_pixel().1 as i32 / 2);
            self.time_panel().draw(&top)?;
            self.written_panel().draw(&bottom)?;
        } else {
            self.time_panel().draw(&body)?;
        }
        Ok(())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn state(name: &str, iops: f64, pct_of_ref: Option<f64>) -> State {
        State {
            name: name.into(),
            iops,
            start_s: 0.0,
            end_s: 0.0,
            pct_of_ref,
        }
    }

    #[test]
    fn caption_reads_fade_then_recovery() {
        let states = [
            state("fresh", 6000.0, None),
            state("faded", 910.0, Some(15.2)),
            state("recovered", 4000.0, Some(66.7)),
        ];
        assert_eq!(
            states_caption(&states),
            "fresh 6000 IOPS → faded 910 (15 % of fresh) → recovered 4000 (67 % of fresh)"
        );
        // Without a reference (a preset), levels only.
        let levels = [state("a", 100.0, None), state("b", 200.0, None)];
        assert_eq!(states_caption(&levels), "a 100 IOPS → b 200");
    }

    /// A soak stopped 8 s into its first 10 s interval has one interval: it is drawn from the
    /// run's start to its end at its level (it was a half dot on the plot's right edge), on
    /// both axes.
    #[test]
    fn a_lone_interval_is_drawn_across_its_time() {
        let chart = FadeChart {
            interval_s: 10.0,
            points: vec![FadePoint {
                t_s: 8.0,
                iops: 8020.0,
                bytes_written: 262_000_000,
            }],
            ..Default::default()
        };
        assert_eq!(
            chart.lines(|p| p.t_s, true)[0].points,
            vec![(0.0, 8020.0), (8.0, 8020.0)]
        );
        assert_eq!(
            chart.lines(|p| p.bytes_written as f64, false)[0].points,
            vec![(0.0, 8020.0), (262e6, 8020.0)]
        );
    }

    /// Two phases at 1000 and 9000 IOPS: the interval line stops at the first phase's end
    /// and starts again in the second (no line through the values between them), and on the
    /// data-written axis a phase that wrote nothing is not drawn as a vertical line.
    #[test]
    fn the_interval_line_breaks_between_phases() {
        let chart = FadeChart {
            interval_s: 1.0,
            points: (0..200)
                .map(|i| FadePoint {
                    t_s: (i + 1) as f64,
                    iops: if i < 100 { 1000.0 } else { 9000.0 },
                    // The second phase reads: nothing more is written.
                    bytes_written: 4096 * (i.min(100) + 1) as u64,
                })
                .collect(),
            phases: ["write", "read"]
                .iter()
                .enumerate()
                .map(|(i, name)| Phase {
                    name: name.to_string(),
                    start_s: 100.0 * i as f64,
                    end_s: 100.0 * (i + 1) as f64,
                })
                .collect(),
            ..Default::default()
        };
        let by_time = &chart.lines(|p| p.t_s, true)[0].points;
        assert!(by_time.iter().any(|p| p.1 == 9000.0));
        assert!(
            by_time
                .windows(2)
                .all(|w| (w[0].1 == 9000.0) == (w[1].1 == 9000.0)
                    || w[1].1.is_nan()
                    || w[0].1.is_nan()),
            "a line joins the phases: {by_time:?}"
        );
        let by_data = &chart.lines(|p| p.bytes_written as f64, true)[0].points;
        assert!(by_data.iter().all(|p| p.1 == 1000.0), "{by_data:?}");
        let label = |c: &FadeChart| c.lines(|p| p.t_s, true)[1].name.clone();
        assert_eq!(label(&chart), "moving average (5.0s, within each phase)");
        // A single run has no phases: its legend does not speak of them.
        let single = FadeChart {
            phases: Vec::new(),
            ..chart.clone()
        };
        assert_eq!(label(&single), "moving average (5.0s)");
    }

    #[test]
    fn data_written_is_interpolated_between_intervals() {
        let chart = FadeChart {
            points: vec![
                FadePoint {
                    t_s: 10.0,
                    iops: 1.0,
                    bytes_written: 1_000_000_000,
                },
                FadePoint {
                    t_s: 20.0,
                    iops: 1.0,
                    bytes_written: 3_000_000_000,
                },
            ],
            ..Default::default()
        };
        assert_eq!(chart.gb_at(5.0), 0.5);
        assert_eq!(chart.gb_at(15.0), 2.0);
        assert_eq!(chart.gb_at(30.0), 3.0);
    }
}
