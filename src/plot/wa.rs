//! The write amplification chart (`fade-wa.png`): above, the bytes the host wrote and the
//! bytes the drive programmed into NAND, accumulated against elapsed time; below, each
//! interval's write amplification (NAND over host bytes) with the overall figure dashed.
//! Drawn where the drive or its model reports NAND bytes per interval.

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
    pub subtitle: String,
    pub series: WaSeries,
}

impl WaChart {
    /// The chart of `series`, its overall figure under the title.
    pub fn new(title: String, series: WaSeries) -> WaChart {
        let last = series.points.last().copied();
        let subtitle = match (series.overall(), last) {
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
            subtitle,
            series,
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
        wa.lines.push(Line {
            name: "WA per interval".into(),
            legend: true,
            points: min_max(&per_interval, MAX_BUCKETS),
            color: style::RAW,
            width: 1,
            dots: false,
        });
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
        draw_stacked(
            root,
            &self.title,
            std::slice::from_ref(&self.subtitle),
            &bytes,
            &wa,
        )
    }
}
