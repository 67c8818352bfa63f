//! The measured states of an experiment and the fade and recovery between them: each measure
//! phase's whole-run figures ([`Figures::of_run`], exact percentiles), each against the phase
//! named `fresh` (`vs_fresh_pct` = state ÷ fresh − 100 %, negative when slower); fade is
//! `faded` ÷ `fresh` and recovery `recovered` ÷ `fresh` ([`FadeRatio`]). An experiment without
//! a `fresh` phase (a preset, a sweep) has states but no fade. A state whose run met its pace
//! ([`super::Pace`]) measured the pace, not the drive: it is against nothing and nothing is
//! against it (no fade or recovery from it).

use super::fade::FadeRatio;
use super::run::Figures;
use crate::results::{Experiment, PhaseKind};

/// One measured state: a measure phase that has samples.
#[derive(Clone, Debug, PartialEq)]
pub struct StateFigure {
    pub name: String,
    pub figures: Figures,
    /// This state against the `fresh` one (None without a fresh state).
    pub of_fresh: Option<FadeRatio>,
    /// Start and end of the phase on the experiment's timeline are the chart's business; the
    /// index of the phase in the experiment is kept to find them.
    pub phase_index: usize,
    /// The reference set's IOPS for this state (`--reference`), when one was given.
    pub reference_iops: Option<f64>,
    /// Measured ÷ reference IOPS (1.0: as the reference; below 1: slower).
    pub of_reference: Option<f64>,
    /// The phase's pace when it was paced (met or not).
    pub pace: Option<super::Pace>,
}

/// Every measured state, with fade and recovery when the experiment has the states for them.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct ExperimentStates {
    pub states: Vec<StateFigure>,
    /// `faded` against `fresh`.
    pub fade: Option<FadeRatio>,
    /// `recovered` against `fresh`.
    pub recovery: Option<FadeRatio>,
    /// `in-service` against `fresh`.
    pub in_service: Option<FadeRatio>,
}

impl StateFigure {
    /// state ÷ fresh − 100, percent: negative when slower than fresh.
    pub fn vs_fresh_pct(&self) -> Option<f64> {
        self.of_fresh.map(|r| r.pct_of_fresh - 100.0)
    }
}

impl ExperimentStates {
    /// The states of `exp`.
    pub fn of(exp: &Experiment) -> ExperimentStates {
        let mut states: Vec<StateFigure> = exp
            .phases
            .iter()
            .enumerate()
            .filter(|(_, p)| matches!(p.record.phase.kind, PhaseKind::Measure(_)))
            .filter_map(|(i, p)| {
                let name = &p.record.phase.name;
                let run = p.run.as_ref()?;
                let figures = Figures::of_run(run);
                let reference_iops = exp.record.reference.and_then(|r| r.of_state(name));
                Some(StateFigure {
                    name: name.clone(),
                    of_reference: reference_iops.map(|r| figures.iops / r),
                    reference_iops,
                    figures,
                    of_fresh: None,
                    phase_index: i,
                    pace: super::Pace::of_run(run),
                })
            })
            .collect();
        // The drive's level of a state: none when the state met its pace.
        let level =
            |s: &StateFigure| (!s.pace.as_ref().is_some_and(|p| p.met)).then_some(s.figures.iops);
        let iops = |name: &str| states.iter().find(|s| s.name == name).and_then(level);
        let fresh = iops("fresh");
        let against = |name: &str| FadeRatio::new(fresh?, iops(name)?);
        let (fade, recovery, in_service) = (
            against("faded"),
            against("recovered"),
            against("in-service"),
        );
        if let Some(f) = fresh {
            for s in &mut states {
                s.of_fresh = level(s).and_then(|iops| FadeRatio::new(f, iops));
            }
        }
        ExperimentStates {
            states,
            fade,
            recovery,
            in_service,
        }
    }

    /// The state of the experiment's phase number `index`.
    pub fn of_phase(&self, index: usize) -> Option<&StateFigure> {
        self.states.iter().find(|s| s.phase_index == index)
    }

    /// The state named `name`.
    pub fn state(&self, name: &str) -> Option<&StateFigure> {
        self.states.iter().find(|s| s.name == name)
    }

    /// The recovery's lasting loss: 100 − recovery, never below 0.
    pub fn lasting_loss_pct(&self) -> Option<f64> {
        self.recovery.map(|r| r.loss_pct().max(0.0))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn state(iops_of_fresh: Option<(f64, f64)>) -> StateFigure {
        StateFigure {
            name: "s".into(),
            figures: Figures::default(),
            of_fresh: iops_of_fresh.and_then(|(fresh, s)| FadeRatio::new(fresh, s)),
            phase_index: 0,
            reference_iops: None,
            of_reference: None,
            pace: None,
        }
    }

    /// 800 IOPS against a fresh 1000 is −20 %, 1200 is +20 %; no fresh, no figure.
    #[test]
    fn vs_fresh_is_negative_when_slower_and_positive_when_faster() {
        let slower = state(Some((1000.0, 800.0))).vs_fresh_pct().unwrap();
        let faster = state(Some((1000.0, 1200.0))).vs_fresh_pct().unwrap();
        assert!((slower + 20.0).abs() < 1e-9, "{slower}");
        assert!((faster - 20.0).abs() < 1e-9, "{faster}");
        assert_eq!(state(None).vs_fresh_pct(), None);
        assert_eq!(state(Some((0.0, 500.0))).vs_fresh_pct(), None);
    }
}
