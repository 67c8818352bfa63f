//! A paced run's level against its pace, one rule for every presenter: a run issued at an
//! issue rate (`--rate-iops`, `--rate`, a SLOG run's `--zil-rate`) whose drive kept up
//! delivered the pace, so its level is the pace, not the drive's: it has no fade, recovery,
//! fresh level or steady state, and says "paced at N IOPS (met)". A drive that fell behind
//! (under [`MET_SHARE`] of the pace over the running time, one I/O spared) ran as fast as it
//! could: the drive's figures apply, and they say the pace was not met. The pace counts every
//! I/O issued on the schedule — reads, writes and trims (`--trim-pct`) — while the drive's
//! figures count reads and writes only, as fio's do. The schedule runs on while the tool is
//! stopped (SIGSTOP, a machine that would not schedule it): the I/Os due meanwhile are issued
//! late, in a burst at the drive's speed, so a run stopped for over 1 % of its
//! schedule did not keep its pace, whatever it delivered over its running time.

use crate::results::{Run, RunInfo, Summary};

/// The share of the pace a run must deliver to have met it (1 % for the I/Os still in flight
/// at the end and for the clock's grain).
pub const MET_SHARE: f64 = 0.99;

/// A paced run's pace and what it delivered.
#[derive(Clone, Debug, PartialEq, serde::Serialize)]
pub struct Pace {
    /// The pace, IOPS.
    pub asked_iops: f64,
    /// The pace as reports name it, with its option: `4000 IOPS (--rate-iops 4000)`.
    pub asked: String,
    /// Whole-run I/Os per second over the running time, trims included (the pace issues them).
    pub delivered_iops: f64,
    /// The run delivered its pace: its level is the pace, not the drive's.
    pub met: bool,
    /// Seconds the tool was stopped while its schedule ran on.
    pub stopped_s: f64,
    /// I/Os the schedule had due by the end and the run had not issued (0 when none).
    pub behind: u64,
}

impl Pace {
    /// The pace of a run recorded as `info` that issued `ops` I/Os on its schedule (reads,
    /// writes and trims) in `seconds` of running time, stopped `stopped_s` besides; `None` for
    /// a run issued flat out.
    pub fn of(info: &RunInfo, ops: u64, seconds: f64, stopped_s: f64) -> Option<Pace> {
        let w = &info.workload;
        let rate = w.rate?;
        let asked_iops = rate.iops(w.bs);
        let delivered_iops = if seconds > 0.0 {
            ops as f64 / seconds
        } else {
            0.0
        };
        let schedule_s = seconds + stopped_s.max(0.0);
        let kept = ops as f64 + 1.0 >= MET_SHARE * asked_iops * seconds;
        let stopped = stopped_s * asked_iops >= (1.0 - MET_SHARE) * asked_iops * schedule_s + 1.0;
        Some(Pace {
            asked_iops,
            asked: crate::results::rate_text(w)(rate),
            delivered_iops,
            met: kept && !stopped,
            stopped_s: stopped_s.max(0.0),
            behind: (asked_iops * schedule_s - ops as f64).max(0.0).round() as u64,
        })
    }

    /// The pace of a run from its summary: its reads, writes and trims over its running time.
    pub fn of_summary(info: &RunInfo, s: &Summary) -> Option<Pace> {
        let trims = s.trim.as_ref().map_or(0, |t| t.ops);
        Pace::of(
            info,
            s.ops.saturating_add(trims),
            s.seconds,
            s.stopped_s.unwrap_or(0.0),
        )
    }

    /// The pace of `run` from its whole-run figures ([`super::Figures::of_run`]) and its trims
    /// (the summary's, or the samples' of a run that wrote none).
    pub fn of_run(run: &Run) -> Option<Pace> {
        if let Some(s) = &run.info.summary {
            return Pace::of_summary(&run.info, s);
        }
        let whole = super::Figures::of_run(run);
        let trims = run
            .samples
            .iter()
            .filter_map(|s| s.trim.as_ref())
            .fold(0u64, |sum, t| sum.saturating_add(t.ops));
        let stopped = run.samples.iter().filter_map(|s| s.stopped_s).sum();
        Pace::of(
            &run.info,
            whole.ops.saturating_add(trims),
            whole.seconds,
            stopped,
        )
    }

    /// The pace of `run` when it was met: then its level is the pace, and no fade, recovery
    /// or steady state is judged from it.
    pub fn met_by(run: &Run) -> Option<Pace> {
        Pace::of_run(run).filter(|p| p.met)
    }

    /// The run's level in words: `paced at 4000 IOPS (met)`, or `pace not met: 2130 of 4000
    /// IOPS (--rate-iops 4000), 9352 I/Os behind its schedule; the drive's figures apply`, or
    /// for a run stopped meanwhile `pace not met: stopped 3.0 s while its schedule ran on (6000
    /// I/Os due then, issued late), 3238 IOPS over the running time against 2000 IOPS
    /// (--rate-iops 2000), 0 I/Os behind at the end; the drive's figures apply`.
    pub fn words(&self) -> String {
        let count = crate::units::format_count;
        if self.met {
            format!("paced at {} IOPS (met)", count(self.asked_iops))
        } else if self.stopped_s * self.asked_iops >= 1.0 {
            format!(
                "pace not met: stopped {:.1} s while its schedule ran on ({} I/Os due then, issued late), {} IOPS over the running time against {}, {} I/Os behind at the end; the drive's figures apply",
                self.stopped_s,
                (self.stopped_s * self.asked_iops).round(),
                count(self.delivered_iops),
                self.asked,
                self.behind
            )
        } else {
            format!(
                "pace not met: {} of {}, {} I/Os behind its schedule; the drive's figures apply",
                count(self.delivered_iops),
                self.asked,
                self.behind
            )
        }
    }

    /// Why a met pace has no figure of the drive's (a fade, a fresh level, steady state).
    pub fn why_none(&self) -> String {
        format!(
            "the run was paced at {} and met it: its level is the pace, not the drive's",
            self.asked
        )
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::workload::Rate;

    fn info(rate: Option<Rate>) -> RunInfo {
        let workload = crate::workload::Workload {
            rate,
            ..Default::default()
        };
        let target = crate::results::TargetRecord {
            path: "t".into(),
            identity: Default::default(),
        };
        RunInfo::started(crate::results::Command::Soak, target, workload, "sim", None)
    }

    /// 1000 I/Os in 10 s at 100 IOPS is the pace; 989 still is (1 % and one I/O spared);
    /// 900 is not, and a run without a rate has no pace.
    #[test]
    fn a_pace_is_met_when_the_run_delivered_it() {
        let at100 = info(Some(Rate::Iops(100)));
        let met = Pace::of(&at100, 1000, 10.0, 0.0).unwrap();
        assert!(met.met);
        assert_eq!(met.words(), "paced at 100 IOPS (met)");
        assert!(Pace::of(&at100, 989, 10.0, 0.0).unwrap().met);
        let short = Pace::of(&at100, 900, 10.0, 0.0).unwrap();
        assert!(!short.met);
        assert_eq!(
            short.words(),
            "pace not met: 90 of 100 IOPS (--rate-iops 100), 100 I/Os behind its schedule; the drive's figures apply"
        );
        assert_eq!(Pace::of(&info(None), 1000, 10.0, 0.0), None);
        // Below 100 IOPS by the number rule (three significant digits), not rounded whole.
        let slow = Pace::of(&info(Some(Rate::Iops(1))), 5, 10.0, 0.0).unwrap();
        assert_eq!(
            slow.words(),
            "pace not met: 0.5 of 1 IOPS (--rate-iops 1), 5 I/Os behind its schedule; the drive's figures apply"
        );
    }

    /// A run stopped 3 s of an 8 s schedule at 100 IOPS that caught up (800 I/Os in 5 s of
    /// running time, 160 IOPS) did not keep its pace: 300 I/Os were due while it was stopped.
    /// One that caught up only partly says how far behind it ended; a stop under 1 % of the
    /// schedule (a thread not scheduled for a moment) leaves the pace met.
    #[test]
    fn a_run_stopped_while_its_schedule_ran_on_did_not_keep_its_pace() {
        let at100 = info(Some(Rate::Iops(100)));
        let caught_up = Pace::of(&at100, 800, 5.0, 3.0).unwrap();
        assert!(!caught_up.met);
        assert_eq!(caught_up.behind, 0);
        assert_eq!(
            caught_up.words(),
            "pace not met: stopped 3.0 s while its schedule ran on (300 I/Os due then, issued late), 160 IOPS over the running time against 100 IOPS (--rate-iops 100), 0 I/Os behind at the end; the drive's figures apply"
        );
        let partly = Pace::of(&at100, 650, 5.0, 3.0).unwrap();
        assert_eq!(partly.behind, 150);
        assert!(partly.words().contains("150 I/Os behind at the end"));
        assert!(Pace::of(&at100, 1000, 10.0, 0.05).unwrap().met);
    }
}
