//! Which phase of an experiment each target is in, for Prometheus: an [`ExperimentMetrics`]
//! observer wraps an experiment's own observer, exports the experiment's state and current
//! phase, and wraps every phase's run in a [`super::MetricsObserver`] labelled with the
//! experiment directory (`run`) and the phase (`phase`).

use std::path::Path;
use std::sync::Arc;

use prometheus_client::encoding::EncodeLabelSet;
use prometheus_client::metrics::family::Family;
use prometheus_client::metrics::gauge::Gauge;
use prometheus_client::registry::Registry;

use super::{Exporter, MetricsObserver, PhaseOf, STATES};
use crate::observe::experiment::ExperimentObserver;
use crate::observe::run::RunObserver;
use crate::results::{ExperimentRecord, PhaseRecord};
use crate::results::{ProcessStamp, Status};

/// Which experiment a series belongs to.
#[derive(Clone, Debug, Hash, PartialEq, Eq, EncodeLabelSet)]
struct ExperimentLabels {
    /// The host the experiment runs on (this process's, as its runs' records name it).
    host: String,
    target: String,
    model: String,
    serial: String,
    /// `vertex2`, `wsat`, `hir`, `sweep`.
    experiment: String,
    /// The experiment directory's name.
    run: String,
}

#[derive(Clone, Debug, Hash, PartialEq, Eq, EncodeLabelSet)]
struct PhaseLabels {
    #[prometheus(flatten)]
    experiment: ExperimentLabels,
    /// The phase's name (`in-service`, `erase-1`, `soak`…).
    phase: String,
    /// `measure`, `erase`, `soak`, `idle`, `sweep-point`.
    kind: String,
}

#[derive(Clone, Debug, Hash, PartialEq, Eq, EncodeLabelSet)]
struct StateLabels {
    #[prometheus(flatten)]
    experiment: ExperimentLabels,
    state: String,
}

/// The experiment metric families.
#[derive(Default)]
pub(super) struct Families {
    phase_info: Family<PhaseLabels, Gauge>,
    phase_index: Family<ExperimentLabels, Gauge>,
    phases: Family<ExperimentLabels, Gauge>,
    state: Family<StateLabels, Gauge>,
}

impl Families {
    pub(super) fn register(&self, r: &mut Registry) {
        r.register(
            "experiment_phase_info",
            "The phase an experiment is in now (its name and kind as labels), always 1; the series of a phase goes away when the next one starts",
            self.phase_info.clone(),
        );
        r.register(
            "experiment_phase_index",
            "Number of the phase an experiment is in now, counting from 1 (experiment.json's phase order)",
            self.phase_index.clone(),
        );
        r.register(
            "experiment_phases",
            "Number of phases of the experiment",
            self.phases.clone(),
        );
        r.register(
            "experiment_state",
            "1 for the experiment's current state (running, completed, interrupted, failed), else 0",
            self.state.clone(),
        );
    }
}

/// An [`ExperimentObserver`] exporting its experiment and passing every event on.
pub struct ExperimentMetrics {
    exporter: Arc<Exporter>,
    labels: Option<ExperimentLabels>,
    /// The series of the phase running now, removed when the next one starts.
    current: Option<PhaseLabels>,
    inner: Box<dyn ExperimentObserver + Send>,
}

impl ExperimentMetrics {
    pub(super) fn new(
        exporter: Arc<Exporter>,
        inner: Box<dyn ExperimentObserver + Send>,
    ) -> ExperimentMetrics {
        ExperimentMetrics {
            exporter,
            labels: None,
            current: None,
            inner,
        }
    }

    fn set_state(&self, labels: &ExperimentLabels, now: Status) {
        for state in STATES {
            let key = StateLabels {
                experiment: labels.clone(),
                state: state.to_string(),
            };
            self.exporter
                .families
                .experiment
                .state
                .get_or_create(&key)
                .set(i64::from(state == now));
        }
    }
}

impl ExperimentObserver for ExperimentMetrics {
    fn started(&mut self, dir: &Path, record: &ExperimentRecord) {
        let labels = ExperimentLabels {
            host: ProcessStamp::current().host,
            // experiment.json's strings as the drive gave them, put on one line for the label
            target: crate::console::one_line(&record.target),
            model: crate::console::one_line(record.identity.model.as_deref().unwrap_or_default()),
            serial: crate::console::one_line(record.identity.serial.as_deref().unwrap_or_default()),
            experiment: record.name.to_string(),
            run: dir
                .file_name()
                .map(|n| n.to_string_lossy().into_owned())
                .unwrap_or_default(),
        };
        let f = &self.exporter.families.experiment;
        f.phases
            .get_or_create(&labels)
            .set(record.phases.len() as i64);
        self.set_state(&labels, Status::Running);
        self.labels = Some(labels);
        self.exporter.write_textfile();
        self.inner.started(dir, record);
    }

    fn phase_started(&mut self, index: usize, phase: &PhaseRecord) {
        if let Some(labels) = &self.labels {
            let f = &self.exporter.families.experiment;
            if let Some(previous) = self.current.take() {
                f.phase_info.remove(&previous);
            }
            let key = PhaseLabels {
                experiment: labels.clone(),
                phase: phase.phase.name.clone(),
                kind: phase.phase.kind.label().into(),
            };
            f.phase_info.get_or_create(&key).set(1);
            f.phase_index.get_or_create(labels).set(index as i64 + 1);
            self.current = Some(key);
            self.exporter.write_textfile();
        }
        self.inner.phase_started(index, phase);
    }

    fn phase_finished(&mut self, index: usize, phase: &PhaseRecord) {
        self.inner.phase_finished(index, phase);
    }

    fn run_observer(&mut self, phase: &PhaseRecord) -> Box<dyn RunObserver> {
        let inner = self.inner.run_observer(phase);
        match &self.labels {
            Some(labels) => Box::new(MetricsObserver {
                exporter: self.exporter.clone(),
                labels: None,
                phase: Some(PhaseOf {
                    target: labels.target.clone(),
                    run: labels.run.clone(),
                    phase: phase.phase.name.clone(),
                }),
                inner,
            }),
            None => inner,
        }
    }

    fn finished(&mut self, record: &ExperimentRecord) {
        if let Some(labels) = &self.labels {
            self.set_state(labels, record.status);
            self.exporter.write_textfile();
        }
        self.inner.finished(record);
    }
}
