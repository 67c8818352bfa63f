//! How an experiment shows its progress: [`phase_line`], the line a finished phase prints, and
//! [`GroupLine`], the one terminal line per target of a group experiment (which phase, how far
//! the phase's run is, its last IOPS), falling back to a printed line per finished phase when
//! stderr is not a terminal.

use std::path::Path;
use std::time::Duration;

use indicatif::{MultiProgress, ProgressBar, ProgressStyle};

use crate::console::visible;
use crate::observe::experiment::ExperimentObserver;
use crate::observe::run::{NoProgress, RunObserver};
use crate::output::run::ProgressBarObserver;
use crate::results::PhaseKind;
use crate::results::RunInfo;
use crate::results::Status;
use crate::results::{ExperimentRecord, PhaseRecord};
use crate::stats::Sample;

/// `[3] fresh (measure): completed 41250 IOPS`.
pub fn phase_line(index: usize, p: &PhaseRecord) -> String {
    let figures = p
        .headline
        .as_ref()
        .map(|h| match (h.iops, &h.method) {
            (Some(iops), _) => format!("{} IOPS", crate::units::format_count(iops)),
            (None, Some(m)) => format!("{m} in {:.1} s", h.seconds),
            (None, None) => format!("{:.0} s", h.seconds),
        })
        .unwrap_or_default();
    format!(
        "[{}] {} ({}): {} {}",
        index + 1,
        p.phase.name,
        p.phase.kind.label(),
        p.status,
        figures
    )
    .trim_end()
    .to_string()
}

/// One line of a [`MultiProgress`] for one target's experiment.
pub struct GroupLine {
    bar: ProgressBar,
    label: String,
    phases: usize,
    /// `[3/8] soak`, the phase running now.
    current: String,
}

impl GroupLine {
    /// A line of `multi` led by `label` (the target, padded to the group's widest).
    pub fn new(multi: &MultiProgress, label: &str) -> GroupLine {
        let bar = multi.add(ProgressBar::new(1000));
        bar.set_style(
            ProgressStyle::with_template("{prefix} [{elapsed_precise}] {bar:20} {msg}")
                .expect("progress template")
                .progress_chars("=> "),
        );
        bar.set_prefix(visible(label).into_owned());
        bar.enable_steady_tick(Duration::from_millis(250));
        GroupLine {
            bar,
            label: label.trim_end().to_string(),
            phases: 0,
            current: String::new(),
        }
    }
}

impl ExperimentObserver for GroupLine {
    fn started(&mut self, _dir: &Path, record: &ExperimentRecord) {
        self.phases = record.phases.len();
        self.bar
            .set_message(visible(&format!("{} starting", record.name)).into_owned());
    }

    fn phase_started(&mut self, index: usize, phase: &PhaseRecord) {
        self.current = format!("[{}/{}] {}", index + 1, self.phases, phase.phase.name);
        self.bar.set_position(0);
        self.bar.set_message(visible(&self.current).into_owned());
    }

    fn phase_finished(&mut self, index: usize, phase: &PhaseRecord) {
        if self.bar.is_hidden() {
            crate::note!("ssdfade: {}: {}", self.label, phase_line(index, phase));
        }
    }

    fn run_observer(&mut self, _phase: &PhaseRecord) -> Box<dyn RunObserver> {
        Box::new(LineRun {
            bar: self.bar.clone(),
            phase: self.current.clone(),
            duration_s: None,
            bytes: None,
        })
    }

    fn finished(&mut self, record: &ExperimentRecord) {
        let done = record
            .phases
            .iter()
            .filter(|p| p.status == Status::Completed)
            .count();
        let message = format!("{} ({done} of {} phases)", record.status, self.phases);
        if self.bar.is_hidden() {
            crate::note!("ssdfade: {}: experiment {message}", self.label);
        }
        if record.status == Status::Completed {
            self.bar.finish_with_message(visible(&message).into_owned());
        } else {
            self.bar
                .abandon_with_message(visible(&message).into_owned());
        }
    }
}

/// The run of one phase on its target's line: how far its stop rule is and its last IOPS.
struct LineRun {
    bar: ProgressBar,
    phase: String,
    duration_s: Option<f64>,
    bytes: Option<u64>,
}

impl RunObserver for LineRun {
    fn started(&mut self, _dir: &Path, info: &RunInfo) {
        self.duration_s = info.workload.duration.map(|d| d.as_secs_f64());
        self.bytes = info.workload.bytes;
    }

    fn sample(&mut self, sample: &Sample) {
        let by_time = self.duration_s.map(|d| sample.t_end_s / d);
        let by_bytes = self
            .bytes
            .map(|b| sample.bytes_written_total as f64 / b as f64);
        let done = by_time.into_iter().chain(by_bytes).fold(0.0, f64::max);
        self.bar.set_position((done.min(1.0) * 1000.0) as u64);
        self.bar.set_message(
            visible(&format!(
                "{}  {} IOPS",
                self.phase,
                crate::units::format_count(sample.iops)
            ))
            .into_owned(),
        );
    }
}

/// One line on stderr per phase, and the soak's progress bar (nothing with --json).
pub struct Terminal {
    quiet: bool,
}

impl Terminal {
    pub fn new(quiet: bool) -> Terminal {
        Terminal { quiet }
    }
}

impl ExperimentObserver for Terminal {
    fn phase_started(&mut self, _index: usize, phase: &PhaseRecord) {
        if !self.quiet && phase.attempts > 1 {
            crate::note!(
                "ssdfade: phase {} again (attempt {})",
                phase.phase.name,
                phase.attempts
            );
        }
    }

    fn phase_finished(&mut self, index: usize, p: &PhaseRecord) {
        if !self.quiet {
            crate::note!("ssdfade: {}", phase_line(index, p));
        }
    }

    fn run_observer(&mut self, phase: &PhaseRecord) -> Box<dyn RunObserver> {
        if !self.quiet && matches!(phase.phase.kind, PhaseKind::Soak(_)) {
            Box::new(ProgressBarObserver::default())
        } else {
            Box::new(NoProgress)
        }
    }
}
