//! `compare`'s headline figures: per run its time, host data written, fresh and faded IOPS
//! (the medians of [`super::Fade`]'s windows, one minute in every run of four minutes or more,
//! [`super::fade::level_window_s`]), the fade, and its whole-run IOPS, MB/s, average
//! and p99 latency ([`super::Figures`]); per later run each figure's ratio to the first run's
//! (none where the first run's figure is 0). A paced run (`--rate-iops`, `--rate`, a SLOG
//! run's `--zil-rate`) that met its pace has no fade: its level is its pace, so it has no fade
//! in the table and no line in the relative ("% of fresh") panel
//! ([`Headline::relative_base`]), one rule for the table, compare.png and the report, which
//! name it in a note ([`Headline::pace`]); one that did not meet it has the drive's figures,
//! and the note says the pace was not met ([`super::Pace`]).

use crate::results::Run;

use super::{Fade, Figures};

/// One run's headline figures.
#[derive(Clone, Debug, PartialEq)]
pub struct Headline {
    /// Median IOPS of the first window (0 without samples).
    pub first_iops: f64,
    /// Median IOPS of the last window.
    pub last_iops: f64,
    /// Seconds each of the two windows spans (None without two samples).
    pub window_s: Option<f64>,
    /// The fade, last window ÷ first, percent (0 without a first interval's I/O); `None` for
    /// a run that met its pace (`--rate-iops`, `--zil-rate`): its level is the pace.
    pub fade_pct: Option<f64>,
    pub whole: Figures,
    /// Host bytes written over the run (the last sample's running total).
    pub written: u64,
    /// A paced run's pace and whether it was met; `None` for a run issued flat out.
    pub pace: Option<super::Pace>,
}

impl Headline {
    pub fn of(run: &Run) -> Headline {
        let fade = Fade::of(&run.samples, run.info.workload.interval);
        let pace = super::Pace::of_run(run);
        let met = pace.as_ref().is_some_and(|p| p.met);
        Headline {
            first_iops: fade.as_ref().map_or(0.0, |f| f.start_iops),
            last_iops: fade.as_ref().map_or(0.0, |f| f.end_iops),
            window_s: fade.as_ref().map(|f| f.window_s),
            fade_pct: (!met).then(|| fade.map_or(0.0, |f| f.end_pct_of_start)),
            whole: Figures::of_run(run),
            written: run.samples.last().map_or(0, |s| s.bytes_written_total),
            pace,
        }
    }

    /// The IOPS the relative panel calls 100 %: the first window's median. `None` for a run
    /// that met its pace (its level is the pace, so it has no fade to draw) and for a run
    /// without I/O.
    pub fn relative_base(&self) -> Option<f64> {
        Some(self.first_iops).filter(|&v| !self.met_pace() && v > 0.0)
    }

    /// The run met its pace: its level is the pace, not the drive's.
    pub fn met_pace(&self) -> bool {
        self.pace.as_ref().is_some_and(|p| p.met)
    }
}

/// Which figure a row of the table is.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Figure {
    Seconds,
    Written,
    FirstIops,
    LastIops,
    FadePct,
    Iops,
    MbPerS,
    AvgLatUs,
    P99LatUs,
}

impl Figure {
    /// Every row, in the table's order.
    pub const ALL: [Figure; 9] = [
        Figure::Seconds,
        Figure::Written,
        Figure::FirstIops,
        Figure::LastIops,
        Figure::FadePct,
        Figure::Iops,
        Figure::MbPerS,
        Figure::AvgLatUs,
        Figure::P99LatUs,
    ];

    /// This figure of `h` (`None`: the run has none, as a paced run's fade).
    pub fn of(self, h: &Headline) -> Option<f64> {
        Some(match self {
            Figure::Seconds => h.whole.seconds,
            Figure::Written => h.written as f64,
            Figure::FirstIops => h.first_iops,
            Figure::LastIops => h.last_iops,
            Figure::FadePct => return h.fade_pct,
            Figure::Iops => h.whole.iops,
            Figure::MbPerS => h.whole.mb_per_s,
            Figure::AvgLatUs => h.whole.avg_lat_us,
            Figure::P99LatUs => h.whole.p99_lat_us,
        })
    }
}

/// One row: the figure of every run, and each run's ratio to the first (the first's own is
/// 1; `None` for all when the first run's figure is not above 0).
#[derive(Clone, Debug, PartialEq)]
pub struct Row {
    pub figure: Figure,
    pub values: Vec<Option<f64>>,
    pub ratios: Vec<Option<f64>>,
}

/// The table of `heads`, one row per figure.
pub fn rows(heads: &[Headline]) -> Vec<Row> {
    Figure::ALL
        .iter()
        .map(|&figure| {
            let values: Vec<Option<f64>> = heads.iter().map(|h| figure.of(h)).collect();
            let reference = values.first().copied().flatten().unwrap_or(0.0);
            let ratios = values
                .iter()
                .map(|v| v.filter(|_| reference > 0.0).map(|v| v / reference))
                .collect();
            Row {
                figure,
                values,
                ratios,
            }
        })
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::results::{Command, RunInfo, Summary, TargetRecord};
    use crate::stats::{IntervalStats, LatencySummary, Sample};
    use std::time::Duration;

    /// A run of one-second samples at `iops` (4 KiB writes at 100 µs), with a summary of
    /// `seconds`, `ops`, mean `mean_us` and p99 `p99_us`.
    fn run(iops: &[u64], summary: (f64, u64, f64, f64)) -> Run {
        let mut written = 0;
        let samples: Vec<Sample> = iops
            .iter()
            .enumerate()
            .map(|(i, &n)| {
                let mut stats = IntervalStats::new();
                stats.write.record_n(n, n * 4096, 100_000);
                let s = Sample::new(i as u64, i as f64, i as f64 + 1.0, &stats, written);
                written = s.bytes_written_total;
                s
            })
            .collect();
        let workload = crate::workload::Workload {
            interval: Duration::from_secs(1),
            ..Default::default()
        };
        let target = TargetRecord {
            path: "t".into(),
            identity: Default::default(),
        };
        let mut info = RunInfo::started(Command::Measure, target, workload, "sim", None);
        let (seconds, ops, mean_us, p99_us) = summary;
        info.summary = Some(Summary {
            seconds,
            ops,
            bytes: ops * 4096,
            iops: ops as f64 / seconds,
            mb_per_s: ops as f64 * 4096.0 / seconds / 1e6,
            lat_us: Some(LatencySummary {
                mean: mean_us,
                p50: mean_us,
                p99: p99_us,
                p999: p99_us,
                max: p99_us,
            }),
            ..Default::default()
        });
        Run {
            dir: "r".into(),
            info,
            samples,
        }
    }

    fn close(a: f64, b: f64) -> bool {
        (a - b).abs() <= 1e-9 * b.abs().max(1.0)
    }

    /// Two runs of 20 one-second samples: windows of 5 s (a quarter of the run),
    /// so fresh is the median of the first five and faded that of the last five.
    #[test]
    fn every_row_is_its_figure_per_run_and_the_ratio_to_the_first() {
        let mut a_iops = vec![1000; 20];
        a_iops[..5].copy_from_slice(&[1000, 3000, 2000, 9000, 2500]); // median 2500
        a_iops[15..].copy_from_slice(&[500, 700, 400, 600, 100]); // median 500
        let b_iops: Vec<u64> = (0..20).map(|i| if i < 10 { 4000 } else { 1000 }).collect();
        let a = Headline::of(&run(&a_iops, (20.0, 40_000, 250.0, 900.0)));
        let b = Headline::of(&run(&b_iops, (10.0, 50_000, 125.0, 4500.0)));
        let table = rows(&[a, b]);
        let a_written: u64 = a_iops.iter().sum::<u64>() * 4096;
        let b_written: u64 = b_iops.iter().sum::<u64>() * 4096;
        let expect: [(Figure, f64, f64); 9] = [
            (Figure::Seconds, 20.0, 10.0),
            (Figure::Written, a_written as f64, b_written as f64),
            (Figure::FirstIops, 2500.0, 4000.0),
            (Figure::LastIops, 500.0, 1000.0),
            (Figure::FadePct, 20.0, 25.0),
            (Figure::Iops, 2000.0, 5000.0),
            (Figure::MbPerS, 2000.0 * 4096.0 / 1e6, 5000.0 * 4096.0 / 1e6),
            (Figure::AvgLatUs, 250.0, 125.0),
            (Figure::P99LatUs, 900.0, 4500.0),
        ];
        assert_eq!(table.len(), expect.len());
        for (row, (figure, va, vb)) in table.iter().zip(expect) {
            assert_eq!(row.figure, figure);
            assert!(
                close(row.values[0].unwrap(), va),
                "{figure:?}: {row:?}, want {va}"
            );
            assert!(
                close(row.values[1].unwrap(), vb),
                "{figure:?}: {row:?}, want {vb}"
            );
            assert!(close(row.ratios[0].unwrap(), 1.0), "{figure:?}");
            assert!(
                close(row.ratios[1].unwrap(), vb / va),
                "{figure:?}: {row:?}"
            );
        }
    }

    /// A first run without I/O gives no ratios (not infinities).
    #[test]
    fn no_ratio_to_a_first_run_whose_figure_is_zero() {
        let a = Headline::of(&run(&[0, 0, 0, 0], (4.0, 0, 0.0, 0.0)));
        let b = Headline::of(&run(&[10, 10, 10, 10], (4.0, 40, 10.0, 10.0)));
        let table = rows(&[a, b]);
        let iops = table.iter().find(|r| r.figure == Figure::Iops).unwrap();
        assert_eq!(iops.ratios, vec![None, None]);
        assert!(close(iops.values[1].unwrap(), 10.0));
    }

    /// A run paced at 500 IOPS has no fade (its level is the pace, as its report says):
    /// its fade is `None`, and a later unpaced run's fade has no ratio to it.
    #[test]
    fn a_paced_run_has_no_fade() {
        let mut paced = run(&[500; 20], (20.0, 10_000, 100.0, 200.0));
        paced.info.workload.rate = Some(crate::workload::Rate::Iops(500));
        let mut fading = vec![1000; 20];
        fading[15..].copy_from_slice(&[500; 5]);
        let free = run(&fading, (20.0, 17_500, 100.0, 200.0));
        let heads = [Headline::of(&paced), Headline::of(&free)];
        assert_eq!(heads[0].fade_pct, None);
        assert!(close(heads[1].fade_pct.unwrap(), 50.0), "{:?}", heads[1]);
        // Nor a line as % of fresh: its first window is its pace.
        assert_eq!(heads[0].relative_base(), None);
        assert_eq!(
            heads[0].pace.as_ref().map(|p| p.asked.as_str()),
            Some("500 IOPS (--rate-iops 500)")
        );
        assert_eq!(heads[1].relative_base(), Some(1000.0));
        let fade = rows(&heads)
            .into_iter()
            .find(|r| r.figure == Figure::FadePct)
            .unwrap();
        assert_eq!(fade.values[0], None);
        assert_eq!(fade.ratios, vec![None, None]);
    }
}
