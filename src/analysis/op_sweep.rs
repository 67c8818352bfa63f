//! The figures of an op-sweep (how much to over-provision): one [`OpSweepPoint`] per span, from
//! its soak's SNIA steady-state window (the window's IOPS; mean, p99 and p99.9 latency of the
//! window's intervals), and the [`OpAdvice`] a SLOG owner acts on. The terminal table,
//! `--json`, the report and op-sweep.png all show these.
//!
//! The advice: against the span with the least left unpartitioned (the baseline, normally the
//! whole drive), each span's gain is its steady IOPS minus the baseline's; the advice is the
//! smallest unpartitioned share whose gain is at least [`MOST_OF_THE_GAIN`] of the largest gain.
//! A largest gain under [`LITTLE_GAIN`] of the baseline is advice to keep the whole span.

use serde::Serialize;

use super::{pooled_quantile, Figures, SteadyWindow};
use crate::results::settings::Settings;
use crate::results::{Experiment, PhaseKind, Run, Status};

/// The share of the largest gain the advised span must get.
pub const MOST_OF_THE_GAIN: f64 = 0.8;

/// A largest gain below this share of the baseline's IOPS is not worth leaving space for.
pub const LITTLE_GAIN: f64 = 0.05;

/// One span of the sweep.
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct OpSweepPoint {
    /// The phase (`span80pct`).
    pub name: String,
    pub span_bytes: u64,
    /// The share of the drive left outside the span, percent: 1 − span / capacity.
    pub unpartitioned_pct: f64,
    /// The over-provisioning the span has, percent: flash / span − 1 (the fast plan's α), when
    /// the plan ran.
    pub op_pct: Option<f64>,
    pub status: Status,
    /// SNIA's steady-state test passed within the point's limit.
    pub steady: bool,
    /// Host bytes written when it passed, over the drive's capacity.
    pub drive_writes: Option<f64>,
    /// The steady window's IOPS (None: not steady).
    pub iops: Option<f64>,
    /// Latency of the window's I/Os, ms (mean exact; p99, p99.9 pooled from the intervals).
    pub avg_ms: Option<f64>,
    pub p99_ms: Option<f64>,
    pub p999_ms: Option<f64>,
    /// Relative to the experiment directory.
    pub run_dir: Option<String>,
}

/// What to leave unpartitioned.
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct OpAdvice {
    /// The advised share left unpartitioned, percent, and its point.
    pub unpartitioned_pct: f64,
    pub point: String,
    /// The baseline's share and point.
    pub from_unpartitioned_pct: f64,
    pub from_point: String,
    pub from_iops: f64,
    pub to_iops: f64,
    pub from_p99_ms: f64,
    pub to_p99_ms: f64,
    /// The advised point's gain over the largest gain, percent (100 when it is the largest).
    pub share_of_gain_pct: f64,
    /// The line the terminal, the report and `--json` print.
    pub line: String,
}

/// The op-sweep's figures.
#[derive(Clone, Debug, Default, PartialEq, Serialize)]
pub struct OpSweepFigures {
    pub capacity_bytes: u64,
    /// Transfer size of the random writes.
    pub bs: u64,
    /// The twin the figures were predicted from (`--on-twin`), when they were.
    pub predicted_from_twin: Option<String>,
    /// Ordered by unpartitioned share, least first.
    pub points: Vec<OpSweepPoint>,
    pub advice: Option<OpAdvice>,
}

impl OpSweepPoint {
    /// The point of span phase `name` that ran as `run` on a drive of `capacity` bytes.
    pub fn of(name: &str, run: &Run, status: Status, capacity: u64) -> OpSweepPoint {
        let span = run.info.workload.span;
        let window = SteadyWindow::of(run);
        let in_window: Vec<_> = window
            .map(|w| {
                run.samples
                    .iter()
                    .filter(|s| s.t_start_s >= w.start_s - 1e-6 && s.t_end_s <= w.end_s + 1e-6)
                    .cloned()
                    .collect()
            })
            .unwrap_or_default();
        let measured = !in_window.is_empty();
        let f = Figures::of_samples(&in_window);
        let ms = |us: f64| us / 1000.0;
        OpSweepPoint {
            name: name.into(),
            span_bytes: span,
            unpartitioned_pct: unpartitioned_pct(span, capacity),
            op_pct: run
                .info
                .workload
                .precondition
                .map(|p| (p.span_alpha - 1.0) * 100.0),
            status,
            steady: window.is_some(),
            drive_writes: window.and_then(|w| w.drive_fills),
            iops: window.map(|w| w.iops),
            avg_ms: measured.then(|| ms(f.avg_lat_us)),
            p99_ms: measured.then(|| ms(f.p99_lat_us)),
            p999_ms: measured.then(|| ms(pooled_quantile(&in_window, 0.999))),
            run_dir: None,
        }
    }
}

impl OpSweepPoint {
    /// The point's row as every table shows it (the terminal, the report): span, share left
    /// unpartitioned, OP, steady IOPS, mean, p99 and p99.9 ms, drive writes to steady; `-`
    /// (or `not steady`) where there is no figure.
    pub fn cells(&self) -> [String; 8] {
        let ms = |x: Option<f64>| x.map_or("-".to_string(), ms);
        // The phase's name holds the span as given: `span90pct` reads "90 %", `span300G` "300G".
        let span = self.name.trim_start_matches("span");
        [
            span.strip_suffix("pct")
                .map_or(span.to_string(), |p| format!("{p} %")),
            format!("{:.1} %", self.unpartitioned_pct),
            self.op_pct.map_or("-".into(), |o| format!("{o:.1} %")),
            self.iops
                .map_or("not steady".into(), crate::units::format_count),
            ms(self.avg_ms),
            ms(self.p99_ms),
            ms(self.p999_ms),
            self.drive_writes.map_or("-".into(), |d| format!("{d:.2}")),
        ]
    }
}

/// The share of a drive of `capacity` bytes outside a span of `span` bytes, percent.
pub fn unpartitioned_pct(span: u64, capacity: u64) -> f64 {
    if capacity == 0 {
        return 0.0;
    }
    (1.0 - span as f64 / capacity as f64) * 100.0
}

impl OpSweepFigures {
    /// The figures of an op-sweep experiment.
    pub fn of(exp: &Experiment) -> OpSweepFigures {
        let capacity = exp.record.identity.size_bytes.unwrap_or(0);
        let mut points: Vec<OpSweepPoint> = exp
            .phases
            .iter()
            .filter(|p| matches!(p.record.phase.kind, PhaseKind::Soak(_)))
            .filter_map(|p| {
                let run = p.run.as_ref()?;
                let mut point =
                    OpSweepPoint::of(&p.record.phase.name, run, p.record.status, capacity);
                point.run_dir = p.record.dir.clone();
                Some(point)
            })
            .collect();
        points.sort_by(|a, b| a.unpartitioned_pct.total_cmp(&b.unpartitioned_pct));
        let settings = match &exp.record.settings {
            Settings::OpSweep(s) => Some(s),
            _ => None,
        };
        let bs = settings.map_or(4096, |s| s.workload.bs);
        let advice = advise(&points, bs);
        OpSweepFigures {
            capacity_bytes: capacity,
            bs,
            predicted_from_twin: settings
                .and_then(|s| s.on_twin.as_ref())
                .map(|t| t.file.clone()),
            points,
            advice,
        }
    }
}

/// A share in whole percent: `20 %`.
fn pct(x: f64) -> String {
    format!("{:.0} %", x)
}

/// The advice from `points` (ordered by unpartitioned share) of random writes of `bs` bytes:
/// None unless the baseline and another span reached steady state.
pub fn advise(points: &[OpSweepPoint], bs: u64) -> Option<OpAdvice> {
    let steady: Vec<(&OpSweepPoint, f64, f64)> = points
        .iter()
        .filter_map(|p| Some((p, p.iops?, p.p99_ms?)))
        .collect();
    let &(base, base_iops, base_p99) = steady.first()?;
    if steady.len() < 2 {
        return None;
    }
    let largest = steady[1..]
        .iter()
        .map(|(_, iops, _)| iops - base_iops)
        .fold(f64::NEG_INFINITY, f64::max);
    let size = crate::units::format_bytes(bs).replace(".0 ", " ");
    if largest < LITTLE_GAIN * base_iops {
        let best = steady[1..]
            .iter()
            .max_by(|a, b| a.1.total_cmp(&b.1))
            .expect("two steady points");
        return Some(OpAdvice {
            unpartitioned_pct: base.unpartitioned_pct,
            point: base.name.clone(),
            from_unpartitioned_pct: base.unpartitioned_pct,
            from_point: base.name.clone(),
            from_iops: base_iops,
            to_iops: base_iops,
            from_p99_ms: base_p99,
            to_p99_ms: base_p99,
            share_of_gain_pct: 100.0,
            line: format!(
                "over-provisioning buys little here: steady {size} random writes {} IOPS at {} unpartitioned, {} at {}: leave no more unpartitioned",
                crate::units::format_count(base_iops),
                pct(base.unpartitioned_pct),
                crate::units::format_count(best.1),
                pct(best.0.unpartitioned_pct)
            ),
        });
    }
    let &(chosen, iops, p99) = steady[1..]
        .iter()
        .find(|(_, iops, _)| iops - base_iops >= MOST_OF_THE_GAIN * largest)
        .expect("the largest gain is at least its own share");
    let instead = if base.unpartitioned_pct.abs() < 0.5 {
        String::new()
    } else {
        format!(" (instead of {})", pct(base.unpartitioned_pct))
    };
    Some(OpAdvice {
        unpartitioned_pct: chosen.unpartitioned_pct,
        point: chosen.name.clone(),
        from_unpartitioned_pct: base.unpartitioned_pct,
        from_point: base.name.clone(),
        from_iops: base_iops,
        to_iops: iops,
        from_p99_ms: base_p99,
        to_p99_ms: p99,
        share_of_gain_pct: (iops - base_iops) / largest * 100.0,
        line: format!(
            "leave {} unpartitioned{instead}: steady {size} random writes {} → about {} IOPS, p99 {} → {} ms",
            pct(chosen.unpartitioned_pct),
            crate::units::format_count(base_iops),
            crate::units::format_count(iops),
            ms(base_p99),
            ms(p99)
        ),
    })
}

/// A latency in ms as the table above the advice shows it (three significant digits, the
/// number rule of [`crate::units`]), so the advice's p99 is the table's figure digit for digit.
fn ms(x: f64) -> String {
    crate::units::format_sig(x, 3)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn point(unpartitioned: f64, iops: Option<f64>, p99: f64) -> OpSweepPoint {
        OpSweepPoint {
            name: format!("span{}pct", 100.0 - unpartitioned),
            span_bytes: 0,
            unpartitioned_pct: unpartitioned,
            op_pct: None,
            status: Status::Completed,
            steady: iops.is_some(),
            drive_writes: None,
            iops,
            avg_ms: iops.map(|_| p99 / 2.0),
            p99_ms: iops.map(|_| p99),
            p999_ms: None,
            run_dir: None,
        }
    }

    #[test]
    fn a_rows_cells_carry_its_figures_and_a_dash_where_there_is_none() {
        let mut p = point(20.0, Some(1799.6), 6.5);
        p.op_pct = Some(43.125);
        p.drive_writes = Some(1.274);
        assert_eq!(
            p.cells(),
            ["80 %", "20.0 %", "43.1 %", "1800", "3.25", "6.5", "-", "1.27"].map(String::from)
        );
        assert_eq!(
            point(10.0, None, 0.0).cells()[3..],
            ["not steady", "-", "-", "-", "-"].map(String::from)
        );
    }

    #[test]
    fn advice_is_the_smallest_share_with_most_of_the_gain() {
        // Gains over 910 IOPS: 290, 890, 1090: 80 % of 1090 is 872, first met at 20 %.
        let points = [
            point(0.0, Some(910.0), 12.0),
            point(10.0, Some(1200.0), 9.0),
            point(20.0, Some(1800.0), 6.5),
            point(25.0, Some(2000.0), 6.0),
        ];
        let a = advise(&points, 4096).unwrap();
        assert_eq!(a.point, "span80pct");
        assert_eq!((a.from_iops, a.to_iops), (910.0, 1800.0));
        assert_eq!((a.from_p99_ms, a.to_p99_ms), (12.0, 6.5));
        assert!((a.share_of_gain_pct - 890.0 / 1090.0 * 100.0).abs() < 1e-9);
        assert_eq!(
            a.line,
            "leave 20 % unpartitioned: steady 4 KiB random writes 910 → about 1800 IOPS, p99 12 → 6.5 ms"
        );
    }

    #[test]
    fn a_span_that_did_not_settle_is_no_candidate_and_little_gain_keeps_the_drive_whole() {
        let points = [
            point(0.0, Some(1000.0), 2.0),
            point(10.0, None, 0.0),
            point(20.0, Some(1030.0), 1.9),
        ];
        let a = advise(&points, 4096).unwrap();
        assert_eq!((a.point.as_str(), a.to_iops), ("span100pct", 1000.0));
        assert!(
            a.line.starts_with("over-provisioning buys little"),
            "{}",
            a.line
        );
        assert!(
            advise(&points[..2], 4096).is_none(),
            "one steady span: no advice"
        );
    }
}
