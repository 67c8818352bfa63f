//! Write amplification over time: the bytes the drive programmed into NAND against the bytes
//! the host wrote, interval by interval and accumulated, where the drive reports its NAND
//! bytes: a simulated drive's model per interval (`nand_bytes`), a real drive through its own
//! lifetime host and NAND counters read each interval (`health`, see docs/telemetry.md), whose
//! growth over the interval gives its WA.
//!
//! Defined in docs/charts-and-reports.md ("Write amplification over time"): an interval's WA
//! is its NAND bytes over its host-written bytes (none for an interval that wrote nothing);
//! the totals add up the intervals that report NAND bytes, so the overall WA is their ratio.

use crate::results::{Experiment, Run};
use crate::stats::Sample;

/// One interval of the series.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct WaPoint {
    /// End of the interval, seconds on the series' time line (an experiment's phases end to
    /// end, as its fade chart lays them).
    pub t_s: f64,
    /// Bytes the host wrote up to the interval's end, this interval included.
    pub host_bytes: u64,
    /// Bytes the drive programmed into NAND up to the interval's end.
    pub nand_bytes: u64,
    /// This interval's NAND bytes over its host bytes; None when it wrote nothing.
    pub wa: Option<f64>,
}

/// Write amplification of a run or an experiment, interval by interval.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct WaSeries {
    pub points: Vec<WaPoint>,
}

impl WaSeries {
    /// The series of a run; None unless some interval reports NAND bytes.
    pub fn of_run(run: &Run) -> Option<WaSeries> {
        WaSeries::of_samples(&run.samples)
    }

    /// The series of a run's samples; None unless some interval reports NAND bytes.
    pub fn of_samples(samples: &[Sample]) -> Option<WaSeries> {
        let mut series = WaSeries::default();
        series.extend(samples, 0.0);
        series.nonempty()
    }

    /// The series of an experiment's phases laid end to end (each phase starts where the one
    /// before it ended); None unless some interval reports NAND bytes.
    pub fn of_experiment(exp: &Experiment) -> Option<WaSeries> {
        let mut series = WaSeries::default();
        let mut t0 = 0.0;
        for run in exp.phases.iter().filter_map(|p| p.run.as_ref()) {
            let Some(last) = run.samples.last() else {
                continue;
            };
            series.extend(&run.samples, t0);
            t0 += last.t_end_s;
        }
        series.nonempty()
    }

    /// Adds the intervals of `samples` that report NAND bytes, shifted by `t0` seconds.
    fn extend(&mut self, samples: &[Sample], t0: f64) {
        let (mut host, mut nand) = self
            .points
            .last()
            .map_or((0, 0), |p| (p.host_bytes, p.nand_bytes));
        let mut counters: Option<(u64, u64)> = None;
        for s in samples {
            let (written, programmed) = match (s.nand_bytes, drive_counters(s)) {
                (Some(programmed), _) => (s.write.as_ref().map_or(0, |w| w.bytes), programmed),
                (None, Some(now)) => {
                    let Some(before) = counters.replace(now) else {
                        continue;
                    };
                    // A counter that went back (a reset drive, an edited sample) tells nothing
                    // of the interval: no WA for it, rather than a false 0 (issue 45).
                    if now.0 < before.0 || now.1 < before.1 {
                        continue;
                    }
                    (now.0 - before.0, now.1 - before.1)
                }
                (None, None) => continue,
            };
            host += written;
            nand += programmed;
            self.points.push(WaPoint {
                t_s: t0 + s.t_end_s,
                host_bytes: host,
                nand_bytes: nand,
                wa: (written > 0).then(|| programmed as f64 / written as f64),
            });
        }
    }

    fn nonempty(self) -> Option<WaSeries> {
        (!self.points.is_empty()).then_some(self)
    }

    /// NAND bytes over host bytes over the whole series; None when the host wrote nothing.
    pub fn overall(&self) -> Option<f64> {
        let last = self.points.last()?;
        (last.host_bytes > 0).then(|| last.nand_bytes as f64 / last.host_bytes as f64)
    }
}

/// The drive's own lifetime host and NAND bytes written at a sample's end, when it reports
/// both.
fn drive_counters(s: &Sample) -> Option<(u64, u64)> {
    let h = s.health.as_ref()?;
    Some((h.host_bytes_written?, h.nand_bytes_written?))
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::stats::IntervalStats;

    /// An interval writing `host` bytes that programmed `nand`.
    fn sample(i: u64, host: u64, nand: Option<u64>) -> Sample {
        let mut stats = IntervalStats::new();
        if host > 0 {
            stats.write.record_n(host / 4096, host, 1000);
        }
        stats.nand_bytes = nand;
        Sample::new(i, i as f64, i as f64 + 1.0, &stats, 0)
    }

    /// WA 1 then 3 then an idle interval: the interval figures are each interval's own, the
    /// totals add up, the overall WA is the totals' ratio (2), and an interval that wrote
    /// nothing has no WA.
    #[test]
    fn interval_and_overall_wa_come_from_the_intervals_bytes() {
        let samples = [
            sample(0, 4096 * 10, Some(4096 * 10)),
            sample(1, 4096 * 10, Some(4096 * 30)),
            sample(2, 0, Some(0)),
        ];
        let mut series = WaSeries::default();
        series.extend(&samples, 100.0);
        let wa: Vec<Option<f64>> = series.points.iter().map(|p| p.wa).collect();
        assert_eq!(wa, [Some(1.0), Some(3.0), None]);
        let last = series.points.last().unwrap();
        assert_eq!(
            (last.t_s, last.host_bytes, last.nand_bytes),
            (103.0, 81_920, 163_840)
        );
        assert_eq!(series.overall(), Some(2.0));
    }

    /// A real drive's counters: each interval's WA is the growth of its NAND counter over the
    /// growth of its host counter; the first reading only sets the baseline.
    #[test]
    fn a_real_drives_counters_give_wa_from_their_growth() {
        let reading = |i: u64, host: u64, nand: u64| {
            let mut s = sample(i, 4096, None);
            s.health = Some(crate::drive::Health {
                host_bytes_written: Some(host),
                nand_bytes_written: Some(nand),
                ..Default::default()
            });
            s
        };
        let gib = 1u64 << 30;
        let samples = [
            reading(0, 100 * gib, 150 * gib),
            reading(1, 102 * gib, 153 * gib),
            reading(2, 106 * gib, 163 * gib),
        ];
        let series = WaSeries::of_samples(&samples).unwrap();
        let wa: Vec<Option<f64>> = series.points.iter().map(|p| p.wa).collect();
        assert_eq!(wa, [Some(1.5), Some(2.5)]);
        assert_eq!(series.overall(), Some(13.0 / 6.0));
        // A NAND counter that goes back gives that interval no WA (not 0), and the next
        // interval counts from the reading after it.
        let samples = [
            reading(0, 100 * gib, 150 * gib),
            reading(1, 102 * gib, 10 * gib),
            reading(2, 104 * gib, 13 * gib),
        ];
        let series = WaSeries::of_samples(&samples).unwrap();
        let wa: Vec<Option<f64>> = series.points.iter().map(|p| p.wa).collect();
        assert_eq!(wa, [Some(1.5)]);
    }

    /// A run recorded before NAND bytes were kept (or on a drive without NAND counters) has
    /// no series.
    #[test]
    fn a_run_without_nand_bytes_has_no_series() {
        let mut series = WaSeries::default();
        series.extend(&[sample(0, 4096, None), sample(1, 4096, None)], 0.0);
        assert!(series.nonempty().is_none());
    }
}
