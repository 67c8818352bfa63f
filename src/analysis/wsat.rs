//! The figures of a write-saturation experiment (SNIA WSAT): one [`WsatRound`] per full round
//! of its `wsat` phase (IOPS, and host data written by its end as bytes and drive fills), a
//! partial last round apart (the byte budget or the time limit reached, or an interruption,
//! before the round's end: not a round), and the steady state the phase reached. The terminal
//! table, `--json` and wsat.png show these.

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
        WsatFigures {
            rounds: full.iter().map(|s| WsatRound::of(s, capacity)).collect(),
            partial_round: run.samples[full.len()..]
                .first()
                .map(|s| WsatRound::of(s, capacity)),
            steady_state,
        }
    }
}
