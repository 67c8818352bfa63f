//! `ssdfade measure`: a spot check printing an Iometer-style table (or one JSON object), or
//! with `--preset` a familiar benchmark's set of points ([`crate::experiment::preset`]).

use std::io::IsTerminal;
use std::time::Duration;

use super::run::request;
use crate::analysis::Pace;
use crate::cli::{MeasureArgs, RunArgs};
use crate::drive::RunEnd;
use crate::experiment::preset::Knobs;
use crate::experiment::{ExperimentObserver, Options, PhaseRecord, Setup};
use crate::metrics::Exporter;
use crate::output::experiment::Terminal;
use crate::output::run::ProgressBarObserver;
use crate::results::run_table;
use crate::run::{install_signal_flag, NoProgress, Outcome, RunObserver};

/// How long a measure runs, and its sample period, unless told.
pub const DEFAULT_DURATION: Duration = Duration::from_secs(60);
pub const DEFAULT_INTERVAL: Duration = Duration::from_secs(1);

/// Measures every target given at once (a group) and prints the table of all of them.
pub fn run_group(args: &RunArgs) -> anyhow::Result<crate::drive::RunEnd> {
    super::group::run(
        args,
        request(args, "measure", DEFAULT_DURATION, DEFAULT_INTERVAL)?,
    )
}

/// Runs the spot check and prints its results.
pub fn run(args: &RunArgs) -> anyhow::Result<Outcome> {
    let request = request(args, "measure", DEFAULT_DURATION, DEFAULT_INTERVAL)?;
    let outcome = crate::run::run(&request, observer(args)?.as_mut())?;
    if args.json {
        crate::outln!("{}", outcome_json(&outcome)?)?;
    } else {
        print_table(&outcome)?;
    }
    Ok(outcome)
}

/// The progress bar when a person watches (stderr is a terminal and no JSON is asked for).
pub fn progress(args: &RunArgs) -> Box<dyn RunObserver + Send> {
    if shows_progress(args) {
        Box::new(ProgressBarObserver::default())
    } else {
        Box::new(NoProgress)
    }
}

/// Whether a person watches: stderr is a terminal and no JSON is asked for.
pub fn shows_progress(args: &RunArgs) -> bool {
    !args.json && std::io::stderr().is_terminal()
}

/// The progress bar, exported to Prometheus when --metrics-listen or --metrics-textfile asks.
pub fn observer(args: &RunArgs) -> anyhow::Result<Box<dyn RunObserver>> {
    let m = &args.metrics;
    Ok(
        match Exporter::start(m.metrics_listen.as_deref(), m.metrics_textfile.as_deref())? {
            Some(exporter) => Box::new(exporter.observer(progress(args))),
            None => progress(args),
        },
    )
}

/// A finished run as one JSON object: the summary plus where the run directory is and how it ended.
pub fn outcome_json(outcome: &Outcome) -> anyhow::Result<serde_json::Value> {
    let mut value = serde_json::to_value(&outcome.summary)?;
    if let Some(p) = pace(outcome) {
        value["pace"] = serde_json::to_value(&p)?;
    }
    value["run_dir"] = outcome.dir.display().to_string().into();
    value["status"] = outcome.info.status.as_str().into();
    if let Some(v) = &outcome.info.verify {
        value["verify"] = serde_json::to_value(v)?;
    }
    Ok(value)
}

/// Prints a finished run as a table under a header giving the whole access spec.
pub fn print_table(outcome: &Outcome) -> anyhow::Result<()> {
    crate::out!(
        "{}",
        run_table(&outcome.info, &outcome.summary, &outcome.dir)
    )?;
    match pace(outcome) {
        Some(p) => crate::out!("  {:<28} {}", "Pace", in_column(&p.words()).trim_start()),
        None => Ok(()),
    }
}

/// A paced run's pace against what it delivered over its running time.
pub fn pace(outcome: &Outcome) -> Option<Pace> {
    Pace::of_summary(&outcome.info, &outcome.summary)
}

/// Runs `measure --preset`: plans the preset, says what it will take, runs it as an experiment
/// and prints the benchmark's table (or one JSON object with every point).
pub fn preset(args: &MeasureArgs) -> anyhow::Result<RunEnd> {
    let preset = args.preset.expect("called with --preset");
    let run = &args.run;
    let w = &run.workload;
    let setup = Setup {
        target: run.target.clone(),
        options: Options {
            destroy_data: run.safety.destroy_data.clone(),
            force: run.safety.force,
            size: run.safety.size,
            engine: run.engine,
            ss_round_s: crate::experiment::DEFAULT_SS_ROUND.as_secs_f64(),
            checkpoint_s: None,
        },
        // The preset sets every point's transfer size, mix, QD and alignment itself.
        workload: w.spec()?,
    };
    let knobs = Knobs {
        span: w.access.span,
        duration: w.duration,
        interval: w.interval,
    };
    let file = setup.create_test_file()?;
    let interrupt = install_signal_flag()?;
    let outcome = crate::experiment::preset::plan(preset, setup, &knobs).and_then(|plan| {
        let mut observer = Announce {
            line: (!run.json).then(|| plan.announcement()),
            terminal: Terminal::new(run.json),
        };
        crate::experiment::preset::run(plan, run.out.clone(), interrupt, &mut observer)
    });
    file.settle(&outcome);
    super::experiment::print(&outcome?, run.json)
}

/// Says what a preset will run and take once its checks passed and its first phase starts,
/// then one line per phase.
struct Announce {
    line: Option<String>,
    terminal: Terminal,
}

impl ExperimentObserver for Announce {
    fn phase_started(&mut self, index: usize, phase: &PhaseRecord) {
        if let Some(line) = self.line.take() {
            crate::note!("{line}");
        }
        self.terminal.phase_started(index, phase);
    }

    fn phase_finished(&mut self, index: usize, phase: &PhaseRecord) {
        self.terminal.phase_finished(index, phase);
    }

    fn run_observer(&mut self, phase: &PhaseRecord) -> Box<dyn RunObserver> {
        self.terminal.run_observer(phase)
    }
}

/// `text` in the summary's second column (from column 31), in lines of at most 80 columns; a
/// percent sign stays with its number.
pub fn in_column(text: &str) -> String {
    let indent = format!("  {:<28} ", "");
    let mut out = String::new();
    let mut line = indent.clone();
    let mut words: Vec<String> = Vec::new();
    for word in text.split_whitespace() {
        match words.last_mut() {
            Some(last) if word.starts_with('%') => *last += &format!(" {word}"),
            _ => words.push(word.to_string()),
        }
    }
    for word in &words {
        if line.len() > indent.len() && line.chars().count() + 1 + word.chars().count() > 80 {
            out += line.trim_end();
            out.push('\n');
            line = indent.clone();
        }
        if line.len() > indent.len() {
            line.push(' ');
        }
        line += word;
    }
    out + line.trim_end() + "\n"
}

#[cfg(test)]
mod tests {
    use super::in_column;

    #[test]
    fn text_in_the_column_keeps_a_percent_sign_with_its_number_within_80_columns() {
        let text = "SNIA steady state reached; the model predicts a further fall to about 7250 IOPS (5909–9381, -48 %)";
        let out = in_column(text);
        assert!(out.contains("-48 %)"), "{out}");
        assert!(out.lines().all(|l| l.chars().count() <= 80), "{out}");
        assert!(out.lines().all(|l| l.starts_with(&" ".repeat(31))), "{out}");
        assert_eq!(out.split_whitespace().collect::<Vec<_>>().join(" "), text);
    }
}
