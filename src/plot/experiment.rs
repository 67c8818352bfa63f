//! The charts of an experiment directory: its phases laid end to end on one timeline (engine
//! clock, data written accumulating), each phase a named band, each erase a marker, each
//! measure phase a state, so the picture reads fresh → faded → recovered.

use std::path::{Path, PathBuf};

use super::bars::{Bar, BarChart, Bracket};
use super::cdm::{CdmCell, CdmChart, CdmRow};
use super::convergence::ConvergenceChart;
use super::distribution::{DistributionChart, DistributionSeries};
use super::fade::{Event, FadeChart, FadePoint, Phase, State, SteadyWindow};
use super::hir::{HirChart, HirPoint};
use super::latency::{LatencyChart, LatencyPoint};
use super::op_sweep::{OpPoint, OpSweepChart};
use super::rate_sweep::{RatePoint, RateSweepChart};
use super::sweep::{SweepChart, SweepPoint};
use super::wsat::{WsatChart, WsatRound};
use super::{style, Chart, Format};
use crate::analysis::{self, ExperimentStates, Figures};
use crate::results::{
    workload_line, EraseRecord, Experiment, ExperimentKind, PhaseKind, Provenance, Run, Status,
};

/// The experiment's phases on one timeline.
pub struct Timeline {
    pub fade: FadeChart,
    pub latency: LatencyChart,
}

/// The first phase that holds samples.
fn first_run(exp: &Experiment) -> Option<&Run> {
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
fn device_name(run: &Run) -> String {
    crate::results::device_name(&run.info)
}

/// Lays the experiment's phases end to end.
pub fn timeline(exp: &Experiment) -> Timeline {
    let mut points = Vec::new();
    let mut latency = Vec::new();
    let mut phases = Vec::new();
    let mut events = Vec::new();
    let mut states = Vec::new();
    let mut steady = Vec::new();
    let measured = ExperimentStates::of(exp);
    // CrystalDiskMark and tiobench report MB/s: their 1 MiB and 4 KiB tests read on one
    // axis in it, where IOPS put the 1 MiB tests flat along the bottom.
    let mb_per_s = ["cdm", "tiobench"].contains(&exp.name.as_str());
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
    let subtitle = timeline_subtitle(exp);
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

/// What the whole experiment ran, for its timeline's subtitle: a preset's tests after its
/// preparation write, a sweep's points and shared workload, else its phases counted by kind
/// and the soak's workload.
pub fn timeline_subtitle(exp: &Experiment) -> String {
    if exp.name.is_preset() {
        let t = analysis::preset::PresetTable::of(exp);
        let each = t.point_duration_s.map_or_else(String::new, |d| {
            format!(
                ", {} each",
                crate::units::format_duration(std::time::Duration::from_secs_f64(d))
            )
        });
        let region = t.span.map_or_else(String::new, |s| {
            format!(" on a {} test region", crate::units::format_bytes(s))
        });
        let prepared = if t.prepare.is_some() {
            " after its sequential preparation write"
        } else {
            ""
        };
        return format!(
            "{} tests of the {} preset{each}{region}{prepared}",
            t.points.len(),
            t.preset
        );
    }
    if exp.name == ExperimentKind::Sweep {
        let table = analysis::sweep::table(exp);
        if let Some(run) = first_run(exp) {
            let values: Vec<String> = table.points.iter().map(|p| p.name.clone()).collect();
            // The first point's workload, what varies the point's (each point's stop rule).
            let w = &run.info.workload;
            let line = workload_line(w);
            let line = match table.axis.as_str() {
                "qd" => line.replacen(&format!("QD{},", w.qd), "QD of the point,", 1),
                "rate" => match line.find(", paced at ") {
                    Some(i) => {
                        let end = line[i + 2..].find(", ").map_or(line.len(), |j| i + 2 + j);
                        format!(
                            "{}, paced at the rate of the point{}",
                            &line[..i],
                            &line[end..]
                        )
                    }
                    None => line,
                },
                _ => line,
            };
            return format!(
                "{} points ({}) · {line}",
                table.points.len(),
                values.join(", "),
            );
        }
    }
    let soaks: Vec<(&str, &Run)> = exp
        .phases
        .iter()
        .filter(|p| matches!(p.record.phase.kind, PhaseKind::Soak(_)))
        .filter_map(|p| Some((p.record.phase.name.as_str(), p.run.as_ref()?)))
        .collect();
    if let (ExperimentKind::OpSweep, Some((_, run))) = (&exp.name, soaks.first()) {
        // Each span is its own soak: the first one's span and limit are not the experiment's.
        let w = &run.info.workload;
        let names: Vec<&str> = soaks.iter().map(|(name, _)| *name).collect();
        let workload = workload_line(w)
            .replacen(
                &format!("span {}", crate::units::format_bytes(w.span)),
                "span of the point",
                1,
            )
            .replacen(", stop after ", ", until SNIA steady state or ", 1);
        return format!(
            "{} spans ({}), each after a purge · {workload}",
            soaks.len(),
            names.join(", ")
        );
    }
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
    match soaks.first() {
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
/// distribution chart, its protocol's `chart` and its steady-state charts and, where its drive
/// reported NAND bytes, its write amplification (`<stem>-wa.<ext>`).
pub fn render_experiment(
    exp: &Experiment,
    fade_path: &Path,
    format: Format,
    provenance: &Provenance,
    chart: Option<&ProtocolChart>,
) -> anyhow::Result<Vec<PathBuf>> {
    let stem = fade_path
        .file_stem()
        .map_or("fade".into(), |s| s.to_string_lossy().into_owned());
    let latency_path = fade_path.with_file_name(format!("{stem}-latency.{}", format.extension()));
    let t = timeline(exp);
    t.fade.write(fade_path, format, provenance)?;
    t.latency.write(&latency_path, format, provenance)?;
    let mut written = vec![fade_path.to_path_buf(), latency_path];
    if let Some(chart) = distribution_chart(exp)? {
        let path = super::run_dir::beside(fade_path, "distribution", format);
        chart.write(&path, format, provenance)?;
        written.push(path);
    }
    if let Some(chart) = chart {
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

/// The bars of a benchmark preset (`measure --preset`): MB/s (10^6 bytes/s, as the benchmarks
/// count) of every point, reads and writes in two colours; the preparation write left out.
pub fn preset_chart(exp: &Experiment) -> Option<BarChart> {
    if !exp.name.is_preset() {
        return None;
    }
    let (read, write) = (style::palette(0), style::palette(1));
    let table = analysis::preset::PresetTable::of(exp);
    let bars: Vec<Bar> = table
        .points
        .iter()
        .filter(|p| p.seconds > 0.0)
        .map(|p| Bar {
            label: p.name.clone(),
            value: p.mb_per_s,
            text: format!(
                "{:.1} MB/s · {} IOPS",
                p.mb_per_s,
                crate::units::format_count(p.iops)
            ),
            color: if p.read_pct >= 50 { read } else { write },
            reference: None,
        })
        .collect();
    if bars.is_empty() {
        return None;
    }
    let run = exp
        .phases
        .iter()
        .filter(|p| p.record.phase.name != "prepare")
        .find_map(|p| p.run.as_ref())?;
    Some(BarChart {
        title: format!(
            "{} — {}",
            match exp.name.as_str() {
                "cdm" => "CrystalDiskMark's set",
                "tiobench" => "tiobench's set",
                _ => "Iometer's All-in-one set",
            },
            device_name(run)
        ),
        subtitle: format!(
            "{} per point · MB/s = 10^6 bytes/s",
            crate::units::format_duration(run.info.workload.duration.unwrap_or_default())
        ),
        x_desc: "MB/s".into(),
        bars,
        legend: vec![("reads".into(), read), ("writes".into(), write)],
        bracket: None,
    })
}

/// CrystalDiskMark's set (`measure --preset cdm`) in CrystalDiskMark's layout: the rows of
/// [`analysis::preset::PresetTable::cdm_tests`] (a row per test in the order the reads ran,
/// its read and write side by side), IOPS and mean latency under each; the preparation write
/// left out.
pub fn cdm_chart(exp: &Experiment) -> Option<CdmChart> {
    use analysis::preset::{BenchmarkFigures, PresetPoint};
    if exp.name.as_str() != "cdm" {
        return None;
    }
    let table = analysis::preset::PresetTable::of(exp);
    let cell = |p: Option<&PresetPoint>| {
        p.map(|p| CdmCell {
            mb_per_s: p.mb_per_s,
            iops: p.iops,
            mean_us: match &p.figures {
                BenchmarkFigures::Cdm(f) => f.lat_us,
                _ => None,
            },
        })
    };
    let rows: Vec<CdmRow> = table
        .cdm_tests()
        .iter()
        .map(|t| {
            let (test, depth) = t.key.split_once(' ').unwrap_or((t.key.as_str(), ""));
            CdmRow {
                test: test.to_string(),
                depth: depth.to_string(),
                read: cell(t.read),
                write: cell(t.write),
            }
        })
        .collect();
    if rows.is_empty() {
        return None;
    }
    let run = exp
        .phases
        .iter()
        .filter(|p| !analysis::preset::is_preparation(&exp.name, &p.record.phase.name))
        .find_map(|p| p.run.as_ref())?;
    Some(CdmChart {
        title: format!("CrystalDiskMark's set — {}", device_name(run)),
        subtitle: format!(
            "{} per test · MB/s = 10^6 bytes/s · under each: IOPS · mean latency per I/O",
            crate::units::format_duration(run.info.workload.duration.unwrap_or_default())
        ),
        rows,
    })
}

/// What the states chart writes past a state's bar: its IOPS, its share of fresh, and with a
/// reference set, measured ÷ reference.
fn state_text(s: &analysis::StateFigure) -> String {
    // Fresh is the reference of the shares, unless a reference set is drawn: then it is
    // measured against that like the others.
    let share = match (&s.of_fresh, s.name.as_str()) {
        (_, "fresh") if s.of_reference.is_none() => " · the reference".to_string(),
        (_, "fresh") | (None, _) => String::new(),
        (Some(r), _) => format!(" · {:.0} % of fresh", r.pct_of_fresh),
    };
    let vs_reference = s
        .of_reference
        .map(|r| format!(" · {} of ref", crate::units::format_ratio(r)))
        .unwrap_or_default();
    format!(
        "{} IOPS{share}{vs_reference}",
        crate::units::format_count(s.figures.iops)
    )
}

/// The states of a Vertex 2 experiment as bars (in-service, fresh, faded, recovered: each
/// phase's whole-run IOPS and its share of fresh, as analysis computed them), the picture that
/// opens its report: minute-long phases are invisible on the hours-long timeline.
pub fn states_chart(exp: &Experiment) -> Option<BarChart> {
    let measured = ExperimentStates::of(exp);
    measured.state("fresh")?;
    let run = first_run(exp)?;
    let bars = measured
        .states
        .iter()
        .map(|s| Bar {
            label: s.name.clone(),
            value: s.figures.iops,
            text: state_text(s),
            color: style::state_color(&s.name),
            reference: s.reference_iops,
        })
        .collect();
    let loss = measured.lasting_loss_pct();
    // No bracket when recovery came back to fresh or above it: nothing is lost.
    let bracket = loss
        .filter(|&l| l >= 0.5)
        .zip(measured.state("fresh"))
        .and_then(|(loss, fresh)| {
            let recovered = measured.states.iter().position(|s| s.name == "recovered")?;
            Some(Bracket {
                bar: recovered,
                from: measured.states[recovered].figures.iops,
                to: fresh.figures.iops,
                text: format!("lasting loss {loss:.0} %"),
            })
        });
    let loss = loss
        .map(|l| format!(" · lasting loss after recovery {l:.0} %"))
        .unwrap_or_default();
    Some(BarChart {
        title: format!("States — {}", device_name(run)),
        subtitle: format!(
            "IOPS of each measured phase, whole phase{loss}{}",
            if measured.states.iter().any(|s| s.reference_iops.is_some()) {
                " · hollow circles: the reference set"
            } else {
                ""
            }
        ),
        x_desc: "IOPS".into(),
        bars,
        legend: Vec::new(),
        bracket,
    })
}

/// SNIA's WSAT chart of a write-saturation experiment: one point per round of its `wsat`
/// phase, against time and against host data written.
pub fn wsat_chart(exp: &Experiment) -> Option<WsatChart> {
    let run = exp
        .phases
        .iter()
        .find(|p| p.record.phase.name == "wsat")?
        .run
        .as_ref()?;
    Some(WsatChart {
        title: format!("Write saturation (SNIA WSAT) — {}", device_name(run)),
        subtitle: workload_line(&run.info.workload),
        // A partial last round (the byte budget reached mid-round) is not a round.
        rounds: analysis::wsat::WsatFigures::of(exp)
            .rounds
            .iter()
            .map(|r| WsatRound {
                t_s: r.t_end_s,
                iops: r.iops,
                bytes_written: r.tgbw_bytes,
            })
            .collect(),
        steady: super::run_dir::steady_window(run),
    })
}

/// SNIA's "IOPS vs Time — all wait states" chart of a host-idle-recovery experiment: each
/// burst's IOPS coloured by the idle gap before it, the returns to baseline, and the end of
/// preconditioning (its steady-state window) for reference. Time includes the idle gaps and
/// starts where the steady-state window starts.
pub fn hir_chart(exp: &Experiment) -> Option<HirChart> {
    let mut points = Vec::new();
    let mut t = 0.0;
    let mut started = false;
    let mut first = None;
    for phase in &exp.phases {
        let name = &phase.record.phase.name;
        if let Some(idle) = phase.record.idle_seconds() {
            if phase.record.status == Status::Completed && started {
                t += idle;
            }
            continue;
        }
        let Some(run) = &phase.run else { continue };
        if name == "precondition" {
            let window_start = analysis::SteadyWindow::of(run).map_or_else(
                || run.samples.first().map_or(0.0, |s| s.t_start_s),
                |w| w.start_s,
            );
            // A partial last interval (the phase stopped once steady) is no round.
            let drawn = analysis::drawn_intervals(&run.samples, run.info.workload.interval);
            for s in drawn.iter().filter(|s| s.t_start_s >= window_start) {
                points.push(HirPoint {
                    t_s: s.t_end_s - window_start,
                    iops: s.iops,
                    wait_state: "preconditioning".into(),
                    idle_s: None,
                });
            }
            t = run.samples.last().map_or(0.0, |s| s.t_end_s) - window_start;
            started = true;
            first.get_or_insert(run);
            continue;
        }
        if !started {
            continue; // purge and fill: before the test proper
        }
        let Some(b) = run.samples.last() else {
            continue;
        };
        let idle_s = match name.split_once('-') {
            Some((ws, rest)) if rest.starts_with("burst") => {
                ws.trim_start_matches("ws").parse::<f64>().ok()
            }
            _ => None,
        };
        let label = idle_s.map_or_else(|| "baseline".into(), |s| format!("{s} s idle"));
        // A burst is one point; a return to baseline one point per burst length, as SNIA plots.
        let chunk = if label == "baseline" {
            (crate::results::experiment::HIR_BURST.as_secs_f64()
                / run.info.workload.interval.as_secs_f64())
            .round()
            .max(1.0) as usize
        } else {
            run.samples.len()
        };
        for part in run.samples.chunks(chunk) {
            let f = Figures::of_samples(part);
            if f.seconds > 0.0 {
                points.push(HirPoint {
                    t_s: t + part[part.len() - 1].t_end_s,
                    iops: f.iops,
                    wait_state: label.clone(),
                    idle_s,
                });
            }
        }
        t += b.t_end_s;
    }
    let run = first?;
    let w = &run.info.workload;
    Some(HirChart {
        title: format!("Host idle recovery (SNIA HIR) — {}", device_name(run)),
        subtitle: format!(
            "{}, {} % random, {} % read, QD{} · one point per {} s burst (shaded); time includes the idle gaps",
            crate::units::format_bytes(w.bs),
            w.random_pct,
            w.read_pct,
            w.qd,
            crate::results::experiment::HIR_BURST.as_secs()
        ),
        points,
        baseline_iops: crate::analysis::hir::HirFigures::of(&exp.record).baseline_iops,
    })
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

/// How the protocols' table gives an experiment's chart to the charts' entry points.
pub type ChartOf = fn(&Experiment) -> Option<ProtocolChart>;

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
                threads: 1,
                qd: p.qd,
                iops: p.iops,
                avg_lat_us: p.avg_ms? * 1000.0,
            })
        })
        .collect::<Vec<SweepPoint>>();
    let first = exp.phases.iter().find_map(|p| p.run.as_ref());
    let run = first?;
    // The first point's workload, its QD replaced by the depths swept (the x axis).
    let depths: Vec<String> = points.iter().map(|p| p.qd.to_string()).collect();
    let subtitle = workload_line(&run.info.workload).replacen(
        &format!("QD{},", run.info.workload.qd),
        &format!("QD {},", depths.join("/")),
        1,
    );
    Some(SweepChart {
        // The model, not the target string: a simulated target carries its state file's path.
        title: format!("Queue-depth sweep — {}", device_name(run)),
        subtitle,
        points,
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

    /// cdm.png's rows are the report's: a test the report leaves out (its phase did not
    /// complete) is "not run" in the chart too, not a figure of its own.
    #[test]
    fn cdm_chart_rows_are_the_reports_pairing() {
        let dir = Path::new(env!("CARGO_MANIFEST_DIR")).join("results/examples/cdm-nvme-sim");
        let mut exp = crate::results::load_experiment(&dir).unwrap();
        let last = exp.phases.last_mut().unwrap();
        last.record.status = Status::Interrupted;
        let name = last.record.phase.name.clone();
        let chart = cdm_chart(&exp).unwrap();
        let table = analysis::preset::PresetTable::of(&exp);
        let cells = |r: &CdmRow| [r.read.is_some(), r.write.is_some()];
        let tests: Vec<(String, [bool; 2])> = table
            .cdm_tests()
            .iter()
            .map(|t| (t.key.clone(), [t.read.is_some(), t.write.is_some()]))
            .collect();
        let rows: Vec<(String, [bool; 2])> = chart
            .rows
            .iter()
            .map(|r| (format!("{} {}", r.test, r.depth), cells(r)))
            .collect();
        assert_eq!(rows, tests, "after {name} was interrupted");
        assert!(rows.iter().any(|(_, c)| c.contains(&false)), "{rows:?}");
    }

    /// CrystalDiskMark's timeline is in MB/s, its unit: the 1 MiB tests no longer lie flat
    /// along the bottom of an IOPS axis set by the 4 KiB reads.
    #[test]
    fn a_cdm_timeline_is_drawn_in_mb_per_s() {
        let dir = Path::new(env!("CARGO_MANIFEST_DIR")).join("results/examples/cdm-nvme-sim");
        let exp = crate::results::load_experiment(&dir).unwrap();
        let fade = timeline(&exp).fade;
        assert!(fade.mb_per_s);
        let run = exp.phases[1].run.as_ref().unwrap();
        let first = &analysis::drawn_intervals(&run.samples, run.info.workload.interval)[0];
        assert!(fade.points.iter().any(|p| p.iops == first.mb_per_s));
        assert!(fade.points.iter().all(|p| p.iops != first.iops));
        let hir = Path::new(env!("CARGO_MANIFEST_DIR")).join("results/examples/hir-sim");
        assert!(
            !timeline(&crate::results::load_experiment(&hir).unwrap())
                .fade
                .mb_per_s
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
        let drawn: Vec<f64> = timeline(&exp).fade.steady.iter().map(|w| w.iops).collect();
        assert_eq!(drawn, reached);
    }
}
