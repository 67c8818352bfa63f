//! The heat chart (`fade-heat.png`): above, each interval's IOPS; below, the drive's
//! temperature with its warning threshold dashed; on both, the spans the drive was thermally
//! throttled shaded and labelled ([`crate::analysis::thermal`]). Drawn where the samples carry
//! a temperature (docs/telemetry.md).

use plotters::coord::Shift;
use plotters::prelude::*;

use super::downsample::{min_max, MAX_BUCKETS};
use super::panel::{draw_stacked, Band, BandName, Guide, Line, Panel};
use super::style::{self, time_unit};
use super::Chart;
use crate::analysis::thermal::Thermal;
use crate::stats::Sample;

/// What the throttled spans are called on the chart.
const THROTTLED: &str = "thermally throttled";

/// Everything the heat chart shows.
#[derive(Clone, Debug, PartialEq)]
pub struct HeatChart {
    pub title: String,
    /// The analysis' sentence ("throttled for 12 min above 70 °C (TMT1 ×3)").
    pub subtitle: String,
    /// (end of interval s, IOPS) and (end of interval s, °C).
    pub iops: Vec<(f64, f64)>,
    pub temperature: Vec<(f64, f64)>,
    pub thermal: Thermal,
}

impl HeatChart {
    /// The chart of `samples` (the intervals a chart draws); None when none carries a
    /// temperature.
    pub fn of(title: String, samples: &[Sample]) -> Option<HeatChart> {
        let thermal = Thermal::of(samples)?;
        Some(HeatChart {
            title,
            subtitle: format!("Drive temperature per interval · {}", thermal.words()),
            iops: samples.iter().map(|s| (s.t_end_s, s.iops)).collect(),
            temperature: samples
                .iter()
                .filter_map(|s| Some((s.t_end_s, s.health.as_ref()?.temperature_c?)))
                .collect(),
            thermal,
        })
    }
}

impl Chart for HeatChart {
    fn draw<DB: DrawingBackend>(&self, root: &DrawingArea<DB, Shift>) -> anyhow::Result<()>
    where
        DB::ErrorType: 'static,
    {
        let end = self.iops.last().map_or(1.0, |p| p.0).max(f64::MIN_POSITIVE);
        let unit = time_unit(end);
        let x_desc = format!("Elapsed time ({})", unit.name);
        let x = 0.0..end / unit.seconds;
        let scaled = |points: &[(f64, f64)]| -> Vec<(f64, f64)> {
            let all: Vec<(f64, f64)> = points.iter().map(|p| (p.0 / unit.seconds, p.1)).collect();
            min_max(&all, MAX_BUCKETS)
        };
        let bands = |name: BandName| -> Vec<Band> {
            self.thermal
                .spans
                .iter()
                .map(|&(a, b)| Band {
                    label: THROTTLED.into(),
                    x: a / unit.seconds..b / unit.seconds,
                    color: style::STATE,
                    opacity: 0.18,
                    name,
                })
                .collect()
        };
        // One legend entry names the shading; a band too narrow to hold its name is named
        // there alone.
        let mut iops = Panel::new(&x_desc, "IOPS", x.clone());
        iops.lines.push(Line {
            name: "IOPS per interval".into(),
            legend: true,
            points: scaled(&self.iops),
            color: style::AVERAGE,
            width: 2,
            dots: false,
        });
        iops.bands = bands(BandName::Legend);
        iops.bands.truncate(1);
        iops.bands
            .extend(bands(BandName::Elsewhere).into_iter().skip(1));
        let mut heat = Panel::new(&x_desc, "Temperature (°C)", x.clone());
        heat.lines.push(Line {
            name: "composite temperature".into(),
            legend: true,
            points: scaled(&self.temperature),
            color: style::STATE,
            width: 2,
            dots: false,
        });
        heat.bands = bands(BandName::Inside);
        if let Some(w) = self.thermal.warning_c {
            heat.guides.push(Guide {
                label: format!("warning threshold {w:.0} °C"),
                from: (x.start, w),
                to: (x.end, w),
                color: style::THRESHOLD,
                width: 2,
                dashed: true,
            });
        }
        draw_stacked(
            root,
            &self.title,
            std::slice::from_ref(&self.subtitle),
            &iops,
            &heat,
        )
    }
}
