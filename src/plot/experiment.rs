//! The charts every experiment directory has, whatever its kind: its phases laid end to end on
//! one timeline (engine clock, data written accumulating), each phase a named band, each erase
//! a marker, each measure phase a state, so the picture reads fresh → faded → recovered; its
//! latency distribution, its steady-state charts and its write amplification; and the
//! [`ProtocolChart`] its kind adds (each kind builds its own in `plot/<kind>.rs`).

use std::path::{Path, PathBuf};

use super::convergence::ConvergenceChart;
use super::distribution::{DistributionChart, DistributionSeries};
use super::fade::{Event, FadeChart, FadePoint, Phase, State, SteadyWindow};
use super::latency::{LatencyChart, LatencyPoint};
use super::{Chart, Format};
use crate::analysis::{self, ExperimentStates};
use crate::results::{workload_line, EraseRecord, Experiment, PhaseKind, Provenance, Run};

/// The experiment's phases on one timeline.
pub struct Timeline {
    pub fade: FadeChart,
    pub latency: LatencyChart,
}

/// The first phase that holds samples.
pub(super) fn first_run(exp: &Experiment) -> Option<&Run> {
    exp.phases.iter().find_map(|p| p.run.as_ref())
}

/// The label of an erase phase: its name and, when recorded, the method used.
pub fn erase_label(name: &str, erase: Option<&EraseRecord>) -> String {
    match erase.map(|e| e.method.as_str()) {
        Some(method) if method != name => format!("{name} ({method})"),
        _ => name.to_string(),
    }
}

/// The drive's model, or its name when the model is unknown.
pub(super) fn device_name(run: &Run) -> String {
    crate::results::device_name(&run.info)
}

/// How an experiment's kind labels its timeline, as its protocol gives it (`crate::protocol`,
/// above this layer); the default is every kind's.
#[derive(Clone, Debug, Default)]
pub struct TimelineLabels {
    /// What the whole experiment ran (a preset's tests, a sweep's points), in place of its
    /// phases counted by kind.
    pub subtitle: Option<String>,
    /// Throughput on the axis in MB/s, not IOPS (a benchmark that reports MB/s).
    pub mb_per_s: bool,
}

/// What an experiment's kind gives the charts: its own charts, each placed, and its timeline's
/// labels.
#[derive(Default)]
pub struct KindCharts {
    pub charts: Vec<ProtocolChart>,
    pub timeline: TimelineLabels,
}

impl KindCharts {
    /// The charts placed at `place`, in the kind's order.
    pub fn at(&self, place: Place) -> impl Iterator<Item = &ProtocolChart> {
        self.charts.iter().filter(move |c| c.place() == place)
    }
}

/// Lays the experiment's phases end to end, labelled as its kind's `labels` say.
pub fn timeline(exp: &Experiment, labels: &TimelineLabels) -> Timeline {
    let mut points = Vec::new();
    let mut latency = Vec::new();
    let mut phases = Vec::new();
    let mut events = Vec::new();
    let mut states = Vec::new();
    let mut steady = Vec::new();
    let measured = ExperimentStates::of(exp);
    let mb_per_s = labels.mb_per_s;
    let (mut t0, mut bytes0) = (0.0, 0u64);
    for (index, phase) in exp.phases.iter().enumerate() {
        let name = &phase.record.phase.name;
        let Some(run) = &phase.run else {
            if matches!(phase.record.phase.kind, PhaseKind::Erase(_)) && phase.erase.is_some() {
                events.push(Event {
                    label: erase_label(name, phase.erase.as_ref()),
                    t_s: t0,
                });
            }
            continue;
        };
        let (Some(first), Some(last)) = (run.samples.first(), run.samples.last()) else {
            continue;
        };
        for s in analysis::drawn_intervals(&run.samples, run.info.workload.interval) {
            // An interval the tool was stopped through is a gap in both charts.
            let gap = analysis::is_gap(s);
            points.push(FadePoint {
                t_s: t0 + s.t_end_s,
                iops: match (gap, mb_per_s) {
                    (true, _) => f64::NAN,
                    (false, true) => s.mb_per_s,
                    (false, false) => s.iops,
                },
                bytes_written: bytes0 + s.bytes_written_total,
            });
            if gap {
                latency.push(LatencyPoint::gap(t0 + s.t_end_s));
            } else if let Some(lat) = s.lat_us {
                // An interval without I/O has no latency to draw.
                latency.push(LatencyPoint {
                    t_s: t0 + s.t_end_s,
                    p50_us: lat.p50,
                    p99_us: lat.p99,
                    p999_us: lat.p999,
                    max_us: lat.max,
                });
            }
        }
        phases.push(Phase {
            name: name.clone(),
            start_s: t0 + first.t_start_s,
            end_s: t0 + last.t_end_s,
        });
        if let Some(s) = measured.of_phase(index) {
            states.push(State {
                name: name.clone(),
                iops: s.figures.iops,
                start_s: t0 + first.t_start_s,
                end_s: t0 + last.t_end_s,
                // The reference itself carries no share.
                pct_of_ref: s
                    .of_fresh
                    .filter(|_| s.name != "fresh")
                    .map(|r| r.pct_of_fresh),
            });
        }
        if let Some(w) = super::run_dir::steady_window(run) {
            steady.push(SteadyWindow {
                start_s: t0 + w.start_s,
                end_s: t0 + w.end_s,
                iops: w.iops,
                did_not_hold: w.did_not_hold,
            });
        }
        t0 += last.t_end_s;
        bytes0 += last.bytes_written_total;
    }
    // Many measured states (an HIR's bursts and returns, a sweep's points) cannot be labelled
    // without their labels running into each other: the bands name the phases instead.
    const MAX_LABELLED_STATES: usize = 6;
    if states.len() > MAX_LABELLED_STATES {
        states.clear();
    }
    let run = first_run(exp);
    let device = run.map_or_else(String::new, device_name);
    // The interval of the first soak (the phase the chart is mostly about), else of the first
    // phase that ran.
    let soak = exp
        .phases
        .iter()
        .filter(|p| matches!(p.record.phase.kind, PhaseKind::Soak(_)))
        .chain(&exp.phases)
        .find_map(|p| p.run.as_ref());
    let subtitle = labels
        .subtitle
        .clone()
        .unwrap_or_else(|| phases_subtitle(exp));
    let interval_s = soak.map_or(0.0, |r| r.info.workload.interval.as_secs_f64());
    Timeline {
        fade: FadeChart {
            title: format!("Fade — experiment {} · {device}", exp.name),
            subtitle: subtitle.clone(),
            interval_s,
            points,
            drive_bytes: run.map(|r| r.info.target.identity.size_bytes),
            phases: phases.clone(),
            events: events.clone(),
            states,
            steady,
            prediction: None,
            mb_per_s,
        },
        latency: LatencyChart {
            title: format!("Latency — experiment {} · {device}", exp.name),
            subtitle,
            points: latency,
            phases,
            events,
        },
    }
}

/// What the whole experiment ran, for its timeline's subtitle, unless its kind names it
/// ([`TimelineLabels::subtitle`]): its phases counted by kind and the first soak's workload.
fn phases_subtitle(exp: &Experiment) -> String {
    let soak = exp
        .phases
        .iter()
        .filter(|p| matches!(p.record.phase.kind, PhaseKind::Soak(_)))
        .find_map(|p| Some((p.record.phase.name.as_str(), p.run.as_ref()?)));
    let mut kinds: Vec<(&str, usize)> = Vec::new();
    for p in &exp.phases {
        let label = p.record.phase.kind.label();
        match kinds.iter_mut().find(|(k, _)| *k == label) {
            Some((_, n)) => *n += 1,
            None => kinds.push((label, 1)),
        }
    }
    let counted: Vec<String> = kinds.iter().map(|(k, n)| format!("{n} {k}")).collect();
    let phases = format!("{} phases ({})", exp.phases.len(), counted.join(", "));
    match soak {
        Some((name, run)) => format!("{phases} · {name}: {}", workload_line(&run.info.workload)),
        None => phases,
    }
}

/// The latency distributions of the experiment's phases overlaid (see
/// [`analysis::latency::of_phases`]); None when no phase saved a histogram.
pub fn distribution_chart(exp: &Experiment) -> anyhow::Result<Option<DistributionChart>> {
    let phases = analysis::latency::ChartPhases::of(exp)?;
    let series: Vec<DistributionSeries> = phases
        .drawn
        .iter()
        .enumerate()
        .map(|(i, (name, d))| DistributionSeries::of(name.as_str(), d, i))
        .collect();
    let device = first_run(exp).map_or_else(String::new, device_name);
    // The phases a chart of at most MAX_PHASES leaves out are named, never dropped silently.
    let left_out = match phases.left_out.as_slice() {
        [] => String::new(),
        names => format!(
            "\nNot drawn: {} (the chart keeps at most {} measured states; all are in the report's table)",
            phase_names_in_short(names),
            analysis::latency::MAX_PHASES * analysis::latency::MAX_PANELS,
        ),
    };
    Ok((!series.is_empty()).then(|| DistributionChart {
        title: format!("Latency distribution — experiment {} · {device}", exp.name),
        subtitle: format!("All I/Os of each phase, from its histogram{left_out}"),
        series,
    }))
}

/// Phase names that fit on one subtitle line: up to four by name, more as their count and the
/// first and last (a long list was cut off at the chart's edge).
fn phase_names_in_short(names: &[String]) -> String {
    match names {
        [first, .., last] if names.len() > 4 => {
            format!("{} phases, {first} to {last}", names.len())
        }
        _ => names.join(", "),
    }
}

/// The steady-state chart of every phase that evaluated a window (WSAT's rounds, HIR's
/// preconditioning), with the file name it is written to (`steady-<phase>.<ext>`).
pub fn convergence_charts(exp: &Experiment, format: Format) -> Vec<(String, ConvergenceChart)> {
    exp.phases
        .iter()
        .filter_map(|p| {
            let run = p.run.as_ref()?;
            let mut chart = super::run_dir::convergence_chart(run)?;
            let name = &p.record.phase.name;
            chart.title = format!(
                "Steady state (SNIA PTS) — {} · phase {name} · {}",
                exp.name,
                device_name(run)
            );
            Some((format!("steady-{name}.{}", format.extension()), chart))
        })
        .collect()
}

/// Writes the experiment's fade chart to `fade_path` and its latency chart beside it, then its
/// distribution chart, its kind's own chart and its steady-state charts and, where its drive
/// reported NAND bytes, its write amplification (`<stem>-wa.<ext>`).
pub fn render_experiment(
    exp: &Experiment,
    fade_path: &Path,
    format: Format,
    provenance: &Provenance,
    kind: &KindCharts,
) -> anyhow::Result<Vec<PathBuf>> {
    let stem = fade_path
        .file_stem()
        .map_or("fade".into(), |s| s.to_string_lossy().into_owned());
    let latency_path = fade_path.with_file_name(format!("{stem}-latency.{}", format.extension()));
    let t = timeline(exp, &kind.timeline);
    t.fade.write(fade_path, format, provenance)?;
    t.latency.write(&latency_path, format, provenance)?;
    let mut written = vec![fade_path.to_path_buf(), latency_path];
    if let Some(chart) = distribution_chart(exp)? {
        let path = super::run_dir::beside(fade_path, "distribution", format);
        chart.write(&path, format, provenance)?;
        written.push(path);
    }
    for chart in &kind.charts {
        let path = fade_path.with_file_name(format!("{}.{}", chart.name(), format.extension()));
        chart.write(&path, format, provenance)?;
        written.push(path);
    }
    for (name, chart) in convergence_charts(exp, format) {
        let path = fade_path.with_file_name(name);
        chart.write(&path, format, provenance)?;
        written.push(path);
    }
    if let Some(chart) = wa_chart(exp) {
        let path = super::run_dir::beside(fade_path, "wa", format);
        chart.write(&path, format, provenance)?;
        written.push(path);
    }
    Ok(written)
}

/// The experiment's write amplification over every phase; None when its drive reported no
/// NAND bytes.
pub fn wa_chart(exp: &Experiment) -> Option<super::WaChart> {
    let series = analysis::wa::WaSeries::of_experiment(exp)?;
    let device = first_run(exp).map_or_else(String::new, device_name);
    let title = format!("Write amplification — experiment {} · {device}", exp.name);
    Some(super::WaChart::new(title, series))
}

/// The chart of the protocol an experiment ran, beside its timeline: any chart's data, named,
/// captioned and placed by the protocol that chose it (`crate::protocol`, above this layer).
pub struct ProtocolChart {
    name: String,
    caption: &'static str,
    place: Place,
    chart: Box<dyn Drawable>,
}

/// Where an experiment's report shows its protocol's chart.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Place {
    /// Under the kind's own summary, which draws it (an op-sweep's advice).
    Summary,
    /// Right after the results table (the measured states, which the timeline cannot show);
    /// listed beside the timeline.
    Results,
    /// With the timeline's charts.
    Charts,
    /// In the kind's own tables, which draw it (a suite's test on its page).
    Tables,
}

/// A chart of any kind, written or inlined (the [`Chart`] trait is generic over its backend).
trait Drawable {
    fn draw_file(&self, path: &Path, format: Format, provenance: &Provenance)
        -> anyhow::Result<()>;
    fn draw_svg(&self) -> anyhow::Result<String>;
}

impl<C: Chart> Drawable for C {
    fn draw_file(
        &self,
        path: &Path,
        format: Format,
        provenance: &Provenance,
    ) -> anyhow::Result<()> {
        self.write(path, format, provenance)
    }

    fn draw_svg(&self) -> anyhow::Result<String> {
        self.svg()
    }
}

/// How the protocols' table gives an experiment's kind's charts to the charts' entry points.
pub type ChartOf = fn(&Experiment) -> KindCharts;

impl ProtocolChart {
    /// `chart`, written as `name` (without extension) and shown at `place` under `caption`.
    pub fn new(
        name: impl Into<String>,
        caption: &'static str,
        place: Place,
        chart: impl Chart + 'static,
    ) -> ProtocolChart {
        ProtocolChart {
            name: name.into(),
            caption,
            place,
            chart: Box::new(chart),
        }
    }

    /// The same chart written as `name` and shown at `place` (a kind's chart on a suite's
    /// page).
    pub fn moved(self, name: impl Into<String>, place: Place) -> ProtocolChart {
        ProtocolChart {
            name: name.into(),
            place,
            ..self
        }
    }

    /// The chart's file name without extension.
    pub fn name(&self) -> &str {
        &self.name
    }

    /// What the chart shows, in one line for a report.
    pub fn caption(&self) -> &'static str {
        self.caption
    }

    /// Where the report shows it.
    pub fn place(&self) -> Place {
        self.place
    }

    pub fn write(
        &self,
        path: &Path,
        format: Format,
        provenance: &Provenance,
    ) -> anyhow::Result<()> {
        self.chart.draw_file(path, format, provenance)
    }

    pub fn svg(&self) -> anyhow::Result<String> {
        self.chart.draw_svg()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Iometer's 33 phases beyond the chart's 14 were listed one by one and cut off at the
    /// image's edge; more than four are counted and bounded by their first and last.
    #[test]
    fn many_phases_left_out_are_counted_not_listed() {
        let names: Vec<String> = (0..33).map(|i| format!("{i}k-rnd-write")).collect();
        assert_eq!(
            phase_names_in_short(&names),
            "33 phases, 0k-rnd-write to 32k-rnd-write"
        );
        assert_eq!(
            phase_names_in_short(&names[..2]),
            "0k-rnd-write, 1k-rnd-write"
        );
    }

    /// Every phase that reached steady state has its window on the timeline (HIR's fill and
    /// preconditioning, each span of an op-sweep), not the last one's alone.
    #[test]
    fn the_timeline_shades_the_steady_window_of_every_phase() {
        let dir = Path::new(env!("CARGO_MANIFEST_DIR")).join("results/examples/hir-sim");
        let exp = crate::results::load_experiment(&dir).unwrap();
        let reached: Vec<f64> = exp
            .phases
            .iter()
            .filter_map(|p| super::super::run_dir::steady_window(p.run.as_ref()?))
            .map(|w| w.iops)
            .collect();
        assert!(reached.len() >= 2, "{reached:?}");
        let drawn: Vec<f64> = timeline(&exp, &TimelineLabels::default())
            .fade
            .steady
            .iter()
            .map(|w| w.iops)
            .collect();
        assert_eq!(drawn, reached);
    }
}
