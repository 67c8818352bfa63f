//! The figures of a write-saturation experiment (SNIA WSAT): one [`WsatRound`] per full round
//! of its `wsat` phase (IOPS, and host data written by its end as bytes and drive fills), a
//! partial last round apart (the byte budget or the time limit reached, or an interruption,
//! before the round's end: not a round), and the steady state the phase reached. A phase that
//! met its pace ([`super::Pace`]) has no fresh level and no steady state: its rounds are the
//! pace. The terminal table, `--json` and wsat.png show these.

use serde::Serialize;

use super::drawn_intervals;
use crate::results::Experiment;
use crate::stats::steady::SteadyState;
use crate::stats::Sample;

/// One round of the WSAT curve.
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct WsatRound {
    /// The sample's interval number in the phase.
    pub index: u64,
    /// End of the round, seconds since the phase started.
    pub t_end_s: f64,
    /// Length of the round.
    pub seconds: f64,
    pub iops: f64,
    /// Total host data written by the round's end (TGBW).
    pub tgbw_bytes: u64,
    /// `tgbw_bytes` over the drive's capacity.
    pub drive_fills: f64,
}

/// The WSAT figures of an experiment.
#[derive(Clone, Debug, Default, PartialEq, Serialize)]
pub struct WsatFigures {
    pub rounds: Vec<WsatRound>,
    pub partial_round: Option<WsatRound>,
    pub steady_state: Option<SteadyState>,
    /// The phase's pace when it was paced (met or not).
    pub pace: Option<super::Pace>,
}

impl WsatRound {
    fn of(s: &Sample, capacity: f64) -> WsatRound {
        WsatRound {
            index: s.index,
            t_end_s: s.t_end_s,
            seconds: s.t_end_s - s.t_start_s,
            iops: s.iops,
            tgbw_bytes: s.bytes_written_total,
            drive_fills: s.bytes_written_total as f64 / capacity,
        }
    }
}

impl WsatFigures {
    /// The rounds of `exp`'s `wsat` phase (a round is one sample: the phase's interval is the
    /// experiment's round) and its steady state.
    pub fn of(exp: &Experiment) -> WsatFigures {
        let capacity = exp.record.identity.size_bytes.unwrap_or(0).max(1) as f64;
        let phase = exp.phases.iter().find(|p| p.record.phase.name == "wsat");
        let steady_state = phase
            .and_then(|p| p.record.headline.as_ref())
            .and_then(|h| h.steady_state.clone());
        let Some(run) = phase.and_then(|p| p.run.as_ref()) else {
            return WsatFigures {
                steady_state,
                ..WsatFigures::default()
            };
        };
        let round = std::time::Duration::from_secs_f64(exp.record.options.ss_round_s);
        let full = drawn_intervals(&run.samples, round);
        let pace = super::Pace::of_run(run);
        let met = pace.as_ref().is_some_and(|p| p.met);
        WsatFigures {
            rounds: full.iter().map(|s| WsatRound::of(s, capacity)).collect(),
            partial_round: run.samples[full.len()..]
                .first()
                .map(|s| WsatRound::of(s, capacity)),
            steady_state: steady_state.filter(|_| !met),
            pace,
        }
    }

    /// The fresh drive's IOPS: the first full round; none when the phase met its pace.
    pub fn fresh_iops(&self) -> Option<f64> {
        if self.pace.as_ref().is_some_and(|p| p.met) {
            return None;
        }
        self.rounds.first().map(|r| r.iops)
    }

    /// The round (1-based, in the table's numbering) whose end is where steady state was
    /// reached; None when the phase never settled.
    pub fn settled_round(&self) -> Option<usize> {
        let at = self.steady_state.as_ref().filter(|s| s.reached)?.at_s?;
        self.rounds
            .iter()
            .position(|r| r.t_end_s >= at - 1e-6)
            .map(|i| i + 1)
    }

    /// Steady IOPS over fresh IOPS, percent; None without both.
    pub fn steady_of_fresh_pct(&self) -> Option<f64> {
        let steady = self.steady_state.as_ref().filter(|s| s.reached)?.iops?;
        let fresh = self.fresh_iops().filter(|f| *f > 0.0)?;
        Some(100.0 * steady / fresh)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::results::{Command, LoadedPhase, Run, RunInfo, TargetRecord};
    use crate::stats::IntervalStats;

    /// A 60 s round from `t` of `ops` 4 KiB writes, after `before` bytes.
    fn round(i: u64, t: f64, len: f64, ops: u64, before: u64) -> Sample {
        let mut stats = IntervalStats::new();
        stats.write.record_n(ops, ops * 4096, 1_000_000);
        Sample::new(i, t, t + len, &stats, before)
    }

    /// A WSAT experiment on a 1 GB drive whose `wsat` phase has `samples`.
    fn experiment(samples: Vec<Sample>) -> Experiment {
        let record: crate::results::ExperimentRecord = serde_json::from_value(serde_json::json!({
            "name": "wsat", "identity": {"kind": "sim", "size_bytes": 1_000_000_000u64},
            "options": {"destroy_data": null, "force": false, "size": null, "engine": null,
                "ss_round_s": 60.0, "checkpoint_s": null}, "settings": {}, "status": "completed",
            "phases": [{"name": "wsat", "kind": "idle", "params": {"seconds": 1.0},
                "status": "completed", "started_utc": null, "ended_utc": null, "dir": "02-wsat",
                "headline": null, "error": null}],
        }))
        .unwrap();
        let target = TargetRecord {
            path: "t".into(),
            identity: Default::default(),
        };
        let info = RunInfo::started(Command::Soak, target, Default::default(), "sim", None);
        Experiment {
            dir: "e".into(),
            name: record.name.clone(),
            phases: vec![LoadedPhase {
                record: record.phases[0].clone(),
                run: Some(Run {
                    dir: "e/02-wsat".into(),
                    info,
                    samples,
                }),
                erase: None,
            }],
            record,
        }
    }

    /// Three rounds of 60 s and a partial 15 s one: each round's IOPS is its own, TGBW the bytes
    /// written by its end, drive fills TGBW over the 1 GB capacity; the partial one stands apart.
    #[test]
    fn rounds_are_the_full_samples_with_host_bytes_over_capacity() {
        let mb = 4096 * 61_035; // 250 MB less a little, per round of 61 035 writes
        let w = WsatFigures::of(&experiment(vec![
            round(0, 0.0, 60.0, 61_035, 0),
            round(1, 60.0, 60.0, 30_000, mb),
            round(2, 120.0, 60.0, 12_000, 4096 * 91_035),
            round(3, 180.0, 15.0, 6_000, 4096 * 103_035),
        ]));
        assert_eq!(w.rounds.len(), 3);
        let r = &w.rounds[1];
        assert_eq!((r.index, r.t_end_s, r.seconds), (1, 120.0, 60.0));
        assert!((r.iops - 500.0).abs() < 1e-9, "{}", r.iops);
        assert_eq!(r.tgbw_bytes, 4096 * 91_035);
        assert!((r.drive_fills - 4096.0 * 91_035.0 / 1e9).abs() < 1e-12);
        assert!((w.rounds[2].iops - 200.0).abs() < 1e-9);
        let p = w.partial_round.as_ref().unwrap();
        assert_eq!((p.index, p.seconds), (3, 15.0));
        assert!((p.iops - 400.0).abs() < 1e-9);
        assert_eq!(p.tgbw_bytes, 4096 * 109_035);
    }

    /// A phase that ended on a round's edge has no partial round.
    #[test]
    fn a_run_that_ends_on_a_round_edge_has_no_partial_round() {
        let w = WsatFigures::of(&experiment(vec![
            round(0, 0.0, 60.0, 600, 0),
            round(1, 60.0, 60.0, 600, 4096 * 600),
        ]));
        assert_eq!(w.rounds.len(), 2);
        assert_eq!(w.partial_round, None);
    }
    /// The card's figures: fresh is the first round, the settled round the one whose end is
    /// where steady state was reached, the ratio steady ÷ fresh; a phase that never settled
    /// has neither.
    #[test]
    fn the_card_takes_fresh_from_the_first_round_and_the_settled_round_from_the_steady_state() {
        let mut w = WsatFigures::of(&experiment(vec![
            round(0, 0.0, 60.0, 60_000, 0),
            round(1, 60.0, 60.0, 30_000, 4096 * 60_000),
            round(2, 120.0, 60.0, 24_000, 4096 * 90_000),
        ]));
        assert_eq!(w.fresh_iops(), Some(1000.0));
        assert_eq!(w.settled_round(), None);
        assert_eq!(w.steady_of_fresh_pct(), None);
        w.steady_state = Some(SteadyState {
            reached: true,
            at_s: Some(120.0),
            iops: Some(450.0),
            ..Default::default()
        });
        assert_eq!(w.settled_round(), Some(2));
        assert!((w.steady_of_fresh_pct().unwrap() - 45.0).abs() < 1e-9);
    }
}
