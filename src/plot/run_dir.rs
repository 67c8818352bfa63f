//! The charts of one run directory, built from its saved data alone (run.json and
//! samples.jsonl), so a finished, interrupted or crashed run can be drawn again at any time.

use std::path::{Path, PathBuf};

use super::consistency::ConsistencyChart;
use super::convergence::{convergence_lines, ConvergenceChart};
use super::distribution::{DistributionChart, DistributionSeries};
use super::fade::{FadeChart, FadePoint, Predicted, State, SteadyWindow};
use super::heat::HeatChart;
use super::latency::{LatencyChart, LatencyPoint};
use super::wa::WaChart;
use super::{Chart, Format};
use crate::analysis::convergence::Convergence;
use crate::analysis::{self, first_and_last_full, Fade};
use crate::results::{
    device_line, is_experiment, load_experiment, load_run, workload_line, Provenance, Run, Status,
};

/// The title of a run's charts: what was measured and on what.
pub fn run_title(kind: &str, run: &Run) -> String {
    format!(
        "{kind} — {} of {}",
        run.info.command,
        device_line(&run.info)
    )
}

/// The line under the title: how the run ended when not cleanly, then the workload.
pub fn run_subtitle(run: &Run) -> String {
    let status = match run.info.status {
        Status::Completed => String::new(),
        Status::Running => "UNFINISHED (crashed or still running) · ".into(),
        other => format!("{} · ", other.as_str().to_uppercase()),
    };
    format!("{status}{}", workload_line(&run.info.workload))
}

/// What a paced run's fade chart shows, after the workload: a met pace is the level, no fade
/// of the drive's; an unmet one leaves the drive's fade. Empty for a run issued flat out.
fn pace_words(run: &Run) -> String {
    let count = crate::units::format_count;
    match analysis::Pace::of_run(run) {
        Some(p) if p.met => format!(
            " · paced at {} IOPS (met): the level is the pace, so no fade is drawn",
            count(p.asked_iops)
        ),
        Some(p) => format!(
            " · pace not met: {} of {}, so the fade is the drive's",
            count(p.delivered_iops),
            p.asked
        ),
        None => String::new(),
    }
}

/// The steady-state window of a run as the chart draws it (None unless it reached one).
pub fn steady_window(run: &Run) -> Option<SteadyWindow> {
    analysis::SteadyWindow::of(run).map(|w| SteadyWindow {
        start_s: w.start_s,
        end_s: w.end_s,
        iops: w.iops,
        did_not_hold: w.did_not_hold,
    })
}

/// The fade chart of a run: its IOPS, the start and end levels, the steady-state window.
pub fn fade_chart(run: &Run) -> FadeChart {
    let interval = run.info.workload.interval;
    // The headline levels: the medians of the run's first and last windows.
    let states = match (
        Fade::of_run(run),
        first_and_last_full(&run.samples, interval),
    ) {
        (Some(fade), Some((first, last))) => vec![
            State {
                name: "fresh".into(),
                iops: fade.start_iops,
                start_s: first.t_start_s,
                end_s: first.t_start_s + fade.window_s,
                pct_of_ref: None,
            },
            State {
                name: "faded".into(),
                iops: fade.end_iops,
                start_s: last.t_end_s - fade.window_s,
                end_s: last.t_end_s,
                pct_of_ref: fade.ratio().map(|r| r.pct_of_fresh),
            },
        ],
        _ => Vec::new(),
    };
    let drawn = analysis::drawn_intervals(&run.samples, interval);
    FadeChart {
        title: run_title("Fade", run),
        subtitle: run_subtitle(run) + &pace_words(run),
        interval_s: run.info.workload.interval.as_secs_f64(),
        points: drawn
            .iter()
            .map(|s| FadePoint {
                t_s: s.t_end_s,
                iops: if analysis::is_gap(s) {
                    f64::NAN
                } else {
                    s.iops
                },
                bytes_written: s.bytes_written_total,
            })
            .collect(),
        drive_bytes: Some(run.info.target.identity.size_bytes),
        phases: Vec::new(),
        events: Vec::new(),
        states,
        steady: steady_window(run).into_iter().collect(),
        prediction: run.info.prediction.as_ref().map(|p| Predicted {
            iops: p.iops,
            low: p.low,
            high: p.high,
            from_s: p.first_made_s(),
            basis: p.basis,
        }),
        mb_per_s: false,
    }
}

/// The steady-state chart of a run (SNIA's convergence plot and measurement window); None
/// unless the run evaluated a window.
pub fn convergence_chart(run: &Run) -> Option<ConvergenceChart> {
    let convergence = Convergence::of(run)?;
    Some(ConvergenceChart {
        title: run_title("SNIA steady state", run),
        subtitle: convergence_lines(&convergence).join("\n"),
        convergence,
    })
}

/// The latency chart of a run.
pub fn latency_chart(run: &Run) -> LatencyChart {
    LatencyChart {
        title: run_title("Latency", run),
        subtitle: run_subtitle(run),
        points: analysis::drawn_intervals(&run.samples, run.info.workload.interval)
            .iter()
            .filter_map(|s| {
                if analysis::is_gap(s) {
                    return Some(LatencyPoint::gap(s.t_end_s));
                }
                let lat = s.lat_us?;
                Some(LatencyPoint {
                    t_s: s.t_end_s,
                    p50_us: lat.p50,
                    p99_us: lat.p99,
                    p999_us: lat.p999,
                    max_us: lat.max,
                })
            })
            .collect(),
        phases: Vec::new(),
        events: Vec::new(),
    }
}

/// The latency distribution chart of a run (all I/Os, and reads and writes apart when it did
/// both); None when the run saved no histogram.
pub fn distribution_chart(run: &Run) -> anyhow::Result<Option<DistributionChart>> {
    let Some(directions) = analysis::latency::Distribution::of_run(run)? else {
        return Ok(None);
    };
    let series: Vec<DistributionSeries> = directions
        .rows()
        .into_iter()
        .enumerate()
        .map(|(i, (name, d))| DistributionSeries::of(name, d, i))
        .collect();
    Ok((!series.is_empty()).then(|| DistributionChart {
        title: run_title("Latency distribution", run),
        subtitle: run_subtitle(run),
        series,
    }))
}

/// `<stem>-<kind>.<ext>` beside `fade_path`: where a chart of the same run goes.
pub(super) fn beside(fade_path: &Path, kind: &str, format: Format) -> PathBuf {
    let stem = fade_path
        .file_stem()
        .map_or("fade".into(), |s| s.to_string_lossy().into_owned());
    fade_path.with_file_name(format!("{stem}-{kind}.{}", format.extension()))
}

/// Writes a run's fade chart to `fade_path`, its latency chart beside it
/// (`<stem>-latency.<ext>`) and, when the run saved its histogram, its latency distribution
/// (`<stem>-distribution.<ext>`), and when it evaluated a steady-state window, its
/// steady-state chart (`<stem>-steady.<ext>`), then its consistency scatter and, when its drive
/// reported NAND bytes, its write amplification (`<stem>-wa.<ext>`), and when its samples
/// carry a temperature, its heat chart (`<stem>-heat.<ext>`); returns the paths in that order.
pub fn render_run(
    run: &Run,
    fade_path: &Path,
    format: Format,
    provenance: &Provenance,
) -> anyhow::Result<Vec<PathBuf>> {
    let latency_path = beside(fade_path, "latency", format);
    fade_chart(run).write(fade_path, format, provenance)?;
    latency_chart(run).write(&latency_path, format, provenance)?;
    let mut written = vec![fade_path.to_path_buf(), latency_path];
    if let Some(chart) = distribution_chart(run)? {
        let path = beside(fade_path, "distribution", format);
        chart.write(&path, format, provenance)?;
        written.push(path);
    }
    if let Some(chart) = convergence_chart(run) {
        let path = beside(fade_path, "steady", format);
        chart.write(&path, format, provenance)?;
        written.push(path);
    }
    let path = beside(fade_path, "consistency", format);
    consistency_chart(run).write(&path, format, provenance)?;
    written.push(path);
    if let Some(chart) = wa_chart(run) {
        let path = beside(fade_path, "wa", format);
        chart.write(&path, format, provenance)?;
        written.push(path);
    }
    if let Some(chart) = heat_chart(run) {
        let path = beside(fade_path, "heat", format);
        chart.write(&path, format, provenance)?;
        written.push(path);
    }
    Ok(written)
}

/// The heat chart of `run`; None unless its samples carry the drive's temperature.
pub fn heat_chart(run: &Run) -> Option<HeatChart> {
    let samples = analysis::drawn_intervals(&run.samples, run.info.workload.interval);
    HeatChart::of(
        run_title("Temperature and thermal throttling", run),
        samples,
    )
}

/// The write amplification chart of `run`; None unless its drive reported NAND bytes.
pub fn wa_chart(run: &Run) -> Option<WaChart> {
    let series = analysis::wa::WaSeries::of_run(run)?;
    Some(WaChart::new(run_title("Write amplification", run), series))
}

/// The consistency scatter of `run`: each full interval's IOPS against elapsed time, with the
/// cliff where its fade first fell halfway.
pub fn consistency_chart(run: &Run) -> ConsistencyChart {
    let samples = crate::analysis::drawn_intervals(&run.samples, run.info.workload.interval);
    let start = run.samples.first().map_or(0.0, |s| s.t_start_s);
    ConsistencyChart {
        title: format!(
            "IOPS consistency — {} · {}",
            crate::results::device_name(&run.info),
            crate::results::target_shown(&run.info.target.path)
        ),
        subtitle: format!(
            "Every interval's IOPS as a dot ({} intervals of {}); {}",
            samples.len(),
            crate::units::format_interval(run.info.workload.interval),
            crate::results::workload_line(&run.info.workload)
        ),
        points: samples
            .iter()
            .map(|s| (s.t_end_s - start, s.iops))
            .collect(),
        cliff_s: Fade::of_run(run).and_then(|f| f.half_fade_s),
    }
}

/// Draws the charts of the run directory `dir` into it (`fade.png` and `fade-latency.png`, or
/// `.svg`) from its saved data alone, an experiment's with its kind's charts from `charts`;
/// returns the files written.
pub fn render_run_dir(
    dir: &Path,
    format: Format,
    charts: super::ChartOf,
) -> anyhow::Result<Vec<PathBuf>> {
    plot_dir(dir, format, None, None, charts)
}

/// Draws the charts of `dir`, the fade chart to `out` when given (the others beside it), else
/// into `dir`; returns the files written.
/// An experiment directory (experiment.json) gets the charts of all its phases on one
/// timeline and its kind's chart, as `charts` (the protocols' table, which sits above this
/// layer) gives it.
pub fn plot_dir(
    dir: &Path,
    format: Format,
    out: Option<&Path>,
    reference: Option<crate::results::ReferenceIops>,
    charts: super::ChartOf,
) -> anyhow::Result<Vec<PathBuf>> {
    let fade_path = out.map_or_else(
        || dir.join(format!("fade.{}", format.extension())),
        Path::to_path_buf,
    );
    if let Some(out) = out {
        let kind = match format {
            Format::Png => crate::outfile::Kind::Png,
            Format::Svg => crate::outfile::Kind::Svg,
        };
        crate::outfile::check(out, kind)?;
    }
    if !is_experiment(dir) {
        crate::results::apply_reference(dir, None, reference)?;
    }
    if is_experiment(dir) {
        let mut exp = load_experiment(dir)?;
        crate::results::apply_reference(dir, Some(&mut exp), reference)?;
        let provenance = Provenance::of_experiment(&exp);
        return super::experiment::render_experiment(
            &exp,
            &fade_path,
            format,
            &provenance,
            &charts(&exp),
        );
    }
    let slog_path = fade_path.with_file_name(format!("slog.{}", format.extension()));
    if crate::results::slog::without_samples(dir)? {
        // A slog run with no sustained phase (`--sustain 0`) has its sweep and verdict only.
        let provenance = Provenance::of_slog(dir, None)?;
        super::slog_chart(dir)?.write(&slog_path, format, &provenance)?;
        return Ok(vec![slog_path]);
    }
    let run = load_run(dir)?;
    let provenance = Provenance::of_run(&run.info);
    let mut written = render_run(&run, &fade_path, format, &provenance)?;
    if run.info.command == crate::results::Command::Slog {
        super::slog_chart(dir)?.write(&slog_path, format, &provenance)?;
        written.push(slog_path);
    }
    Ok(written)
}
