//! The write amplification chart (`fade-wa.png`): above, the bytes the host wrote and the
//! bytes the drive programmed into NAND, accumulated against elapsed time; below, each
//! interval's write amplification (NAND over host bytes) with the overall figure dashed.
//! Drawn where the drive or its model reports NAND bytes per interval. One spike (a burst of
//! garbage collection in an interval that wrote little) would set the WA axis and flatten
//! every other interval, so the axis is cut above the intervals' 99th percentile and what lies
//! above it is drawn as dots at the cut, said under the title.

use plotters::coord::Shift;
use plotters::prelude::*;

use super::downsample::{min_max, MAX_BUCKETS};
use super::panel::{draw_stacked, Guide, Line, Panel};
use super::style::{self, time_unit};
use super::Chart;
use crate::analysis::wa::WaSeries;

/// Everything the write amplification chart shows.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct WaChart {
    pub title: String,
    pub subtitle: Vec<String>,
    pub series: WaSeries,
    pub cut: Option<Cut>,
}

/// Where the WA axis is cut, when some interval lies far above the rest.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Cut {
    /// The highest WA the axis shows: 1.5 × the 99th percentile (or 1.2 × the overall WA
    /// when higher).
    pub at: f64,
    /// The intervals' 99th percentile WA (nearest rank).
    pub p99: f64,
    /// How many intervals lie above the cut, and the highest of them.
    pub above: usize,
    pub highest: f64,
}

impl Cut {
    /// The cut of `series`'s WA axis; None when no interval lies above it (fewer than 100
    /// intervals never are: their 99th percentile is their highest).
    pub fn of(series: &WaSeries) -> Option<Cut> {
        let mut wa: Vec<f64> = series
            .points
            .iter()
            .filter_map(|p| p.wa)
            .filter(|w| w.is_finite())
            .collect();
        wa.sort_by(f64::total_cmp);
        let rank = (wa.len() as f64 * 0.99).ceil() as usize;
        let p99 = *wa.get(rank.checked_sub(1)?)?;
        let at = (1.5 * p99).max(1.2 * series.overall().unwrap_or(0.0));
        let above = wa.iter().filter(|&&w| w > at).count();
        (above > 0).then(|| Cut {
            at,
            p99,
            above,
            highest: wa[wa.len() - 1],
        })
    }

    /// The line under the title that says the cut.
    fn words(&self) -> String {
        let sig = |v| crate::units::format_sig(v, 3);
        format!(
            "WA axis cut at {} (1.5 × the intervals' 99th percentile, {}): {} {} above it, up to {}, drawn as dots at the cut",
            sig(self.at),
            sig(self.p99),
            crate::units::format_count(self.above as f64),
            if self.above == 1 { "interval" } else { "intervals" },
            sig(self.highest)
        )
    }
}

impl WaChart {
    /// The chart of `series`, its overall figure under the title.
    pub fn new(title: String, series: WaSeries) -> WaChart {
        let last = series.points.last().copied();
        let cut = Cut::of(&series);
        let figures = match (series.overall(), last) {
            (Some(wa), Some(last)) => format!(
                "NAND bytes as the simulated drive's model counts them · overall WA {} ({} NAND / {} host)",
                crate::units::format_sig(wa, 3),
                crate::units::format_gb(last.nand_bytes),
                crate::units::format_gb(last.host_bytes)
            ),
            _ => "The host wrote nothing".into(),
        };
        WaChart {
            title,
            subtitle: std::iter::once(figures)
                .chain(cut.map(|c| c.words()))
                .collect(),
            series,
            cut,
        }
    }
}

impl Chart for WaChart {
    fn draw<DB: DrawingBackend>(&self, root: &DrawingArea<DB, Shift>) -> anyhow::Result<()>
    where
        DB::ErrorType: 'static,
    {
        let points = &self.series.points;
        let end = points.last().map_or(1.0, |p| p.t_s).max(f64::MIN_POSITIVE);
        let unit = time_unit(end);
        let x_desc = format!("Elapsed time ({})", unit.name);
        let x = 0.0..end / unit.seconds;
        let mut bytes = Panel::new(&x_desc, "Written (GB = 10^9 bytes)", x.clone());
        let cumulative = |of: fn(&crate::analysis::wa::WaPoint) -> u64| -> Vec<(f64, f64)> {
            let all: Vec<(f64, f64)> = points
                .iter()
                .map(|p| (p.t_s / unit.seconds, of(p) as f64 / 1e9))
                .collect();
            min_max(&all, MAX_BUCKETS)
        };
        for (name, of, color) in [
            (
                "NAND bytes (drive)",
                (|p: &crate::analysis::wa::WaPoint| p.nand_bytes) as fn(&_) -> u64,
                style::STATE,
            ),
            ("host bytes", |p| p.host_bytes, style::AVERAGE),
        ] {
            bytes.lines.push(Line {
                name: name.into(),
                legend: true,
                points: cumulative(of),
                color,
                width: 3,
                dots: false,
            });
        }
        let mut wa = Panel::new(&x_desc, "Write amplification", x.clone());
        let per_interval: Vec<(f64, f64)> = points
            .iter()
            .filter_map(|p| Some((p.t_s / unit.seconds, p.wa?)))
            .collect();
        let top = self.cut.map_or(f64::INFINITY, |c| c.at);
        let shown: Vec<(f64, f64)> = per_interval.iter().map(|&(t, w)| (t, w.min(top))).collect();
        wa.lines.push(Line {
            name: "WA per interval".into(),
            legend: true,
            points: min_max(&shown, MAX_BUCKETS),
            color: style::RAW,
            width: 1,
            dots: false,
        });
        if let Some(cut) = self.cut {
            wa.y_top = Some(cut.at);
            wa.lines.push(Line {
                name: format!(
                    "above the cut (up to {})",
                    crate::units::format_sig(cut.highest, 3)
                ),
                legend: true,
                points: per_interval
                    .iter()
                    .filter(|p| p.1 > cut.at)
                    .map(|&(t, _)| (t, cut.at))
                    .collect(),
                color: style::STATE,
                width: 0,
                dots: true,
            });
        }
        if let Some(overall) = self.series.overall() {
            wa.guides.push(Guide {
                label: format!("overall WA {}", crate::units::format_sig(overall, 3)),
                from: (x.start, overall),
                to: (x.end, overall),
                color: style::PREDICTION,
                width: 2,
                dashed: true,
            });
        }
        draw_stacked(root, &self.title, &self.subtitle, &bytes, &wa)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::analysis::wa::WaPoint;

    /// 300 intervals of WA 2 and 2.5 (host 1 MB each), one of them at `spike`.
    fn series(spike: Option<f64>) -> WaSeries {
        let (mut host, mut nand) = (0u64, 0u64);
        let points = (0..300)
            .map(|i| {
                let wa = match spike {
                    Some(s) if i == 150 => s,
                    _ if i % 2 == 0 => 2.0,
                    _ => 2.5,
                };
                host += 1_000_000;
                nand += (wa * 1e6) as u64;
                WaPoint {
                    t_s: i as f64 + 1.0,
                    host_bytes: host,
                    nand_bytes: nand,
                    wa: Some(wa),
                }
            })
            .collect();
        WaSeries { points }
    }

    /// A spike to 58 among intervals of 2–2.5 does not set the axis: it is cut at 1.5 × the
    /// 99th percentile (3.75), the spike is a dot at the cut, and the subtitle says so.
    #[test]
    fn a_spike_is_cut_from_the_axis_and_marked() {
        let chart = WaChart::new("WA".into(), series(Some(58.0)));
        let (_, drawn) = chart.drawn_svg().unwrap();
        let panel = &drawn.panels[1];
        assert!((panel.y.1 - 3.75 * 1.22).abs() < 1e-9, "{:?}", panel.y);
        let named = |prefix: &str| {
            panel
                .series
                .iter()
                .find(|s| s.name.starts_with(prefix))
                .unwrap_or_else(|| panic!("no {prefix}: {:?}", panel.series))
        };
        assert_eq!(
            named("above the cut (up to 58)").points,
            vec![Some((151.0, 3.75))]
        );
        assert!(named("WA per interval")
            .points
            .iter()
            .flatten()
            .all(|p| p.1 <= 3.75));
        assert!(
            chart.subtitle[1].contains("cut at 3.75")
                && chart.subtitle[1].contains("1 interval above it, up to 58"),
            "{:?}",
            chart.subtitle
        );
        assert!(drawn
            .labels
            .iter()
            .any(|l| l.text.contains("WA axis cut at 3.75")));
    }

    /// Without a spike, or with too few intervals to tell one, the axis is set by the data.
    #[test]
    fn without_a_spike_nothing_is_cut() {
        assert_eq!(Cut::of(&series(None)), None);
        let mut few = series(Some(58.0));
        few.points.truncate(99);
        few.points[50].wa = Some(58.0);
        assert_eq!(Cut::of(&few), None);
        let (_, drawn) = WaChart::new("WA".into(), series(None)).drawn_svg().unwrap();
        assert!((drawn.panels[1].y.1 - 2.5 * 1.22).abs() < 1e-9);
    }
}
