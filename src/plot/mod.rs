//! Charts of runs, drawn with plotters from plain data so every command can use them: the fade
//! chart, the latency chart, the QD sweep with its demand-intensity view, the rate sweep's hockey
//! stick, SNIA's WSAT and HIR and the steady-state page (convergence and measurement window),
//! and the compare overlay. PNG or SVG, 1600×900, text in a bundled font.
//!
//! Each chart is a struct of plain data implementing [`Chart`]; [`render_run_dir`] draws the
//! charts of a run directory from its saved data alone. Every chart file has its record of
//! what was drawn beside it (`NAME.chart.json`, see [`drawn`]), and annotations are placed by
//! one shared label layout ([`layout`]).

mod bars;
mod bitmap;
mod cdm;
mod compare;
mod consistency;
mod convergence;
mod distribution;
mod downsample;
pub mod drawn;
pub mod experiment;
mod fade;
mod fleet;
mod glyphs;
mod heat;
pub mod hir;
mod keyed;
mod latency;
mod layout;
pub mod op_sweep;
mod panel;
pub mod preset;
mod provenance;
pub mod pts;
pub mod pts_points;
mod rate_sweep;
mod run_dir;
pub mod slc_cache;
mod slog;
mod style;
pub mod sweep;
pub mod vertex2;
mod wa;
pub mod wsat;
pub mod xsr;

use std::path::Path;

use anyhow::Context;
use plotters::coord::Shift;
use plotters::prelude::*;

use crate::results::Provenance;

/// A chart with linear axes in x and y: what the panels draw their series on.
pub(crate) type LinearChart<'a, DB> = ChartContext<
    'a,
    DB,
    Cartesian2d<plotters::coord::types::RangedCoordf64, plotters::coord::types::RangedCoordf64>,
>;

pub use bars::{Bar, BarChart};
pub use cdm::{CdmCell, CdmChart, CdmRow};
pub use compare::{CompareChart, CompareRun};
pub use consistency::ConsistencyChart;
pub use convergence::{convergence_caption, ConvergenceChart};
pub use distribution::{DistributionChart, DistributionSeries};
pub use downsample::{min_max, moving_average, MAX_BUCKETS};
pub use drawn::{sidecar_path, Drawn};
pub use experiment::{
    convergence_charts, distribution_chart as experiment_distribution_chart, erase_label,
    render_experiment, timeline, wa_chart as experiment_wa_chart, ChartOf, KindCharts, Place,
    ProtocolChart, Timeline, TimelineLabels,
};
pub use fade::{
    states_caption, Event, FadeChart, FadePoint, Phase, Predicted, State, SteadyWindow,
};
pub use fleet::{FleetBandChart, FleetStripChart, Strip, MAX_CURVES as FLEET_MAX_CURVES};
pub use heat::HeatChart;
pub use latency::{LatencyChart, LatencyPoint};
pub use provenance::svg_metadata;
pub use rate_sweep::{RatePoint, RateSweepChart};
pub use run_dir::{
    consistency_chart, convergence_chart, distribution_chart, fade_chart, heat_chart,
    latency_chart, plot_dir, render_run, render_run_dir, steady_window, wa_chart,
};
pub use slog::{slog_chart, SizeLine, SlogChart};
pub use style::{latency_unit, SIZE};
pub use wa::WaChart;

/// Picture format of a chart file.
#[derive(Clone, Copy, Debug, PartialEq, Eq, clap::ValueEnum)]
pub enum Format {
    Png,
    Svg,
}

impl Format {
    /// The file name extension.
    pub fn extension(self) -> &'static str {
        match self {
            Format::Png => "png",
            Format::Svg => "svg",
        }
    }
}

/// A chart: data that knows how to draw itself on any plotters backend.
pub trait Chart {
    /// Draws the whole picture into `root` (already of size [`SIZE`]).
    fn draw<DB: DrawingBackend>(&self, root: &DrawingArea<DB, Shift>) -> anyhow::Result<()>
    where
        DB::ErrorType: 'static;

    /// Writes the chart to `path` as PNG or SVG, with `provenance` as the PNG's text chunks or
    /// the SVG's metadata, and what it drew beside it ([`sidecar_path`]) and in the SVG's
    /// metadata.
    /// Refused once a signal asked the process to end: the charts a finished phase was
    /// drawing when it came are left to `ssdfade plot DIR` (each takes a tenth of a second, and
    /// an experiment has a dozen).
    fn write(&self, path: &Path, format: Format, provenance: &Provenance) -> anyhow::Result<()> {
        if crate::stop::requested() {
            anyhow::bail!("stopped by a signal before {} was drawn", path.display());
        }
        style::register_fonts();
        let written = match format {
            Format::Png => {
                let mut rgb = vec![0; SIZE.0 as usize * SIZE.1 as usize * 3];
                let root =
                    drawn::Recording(bitmap::Pixels(BitMapBackend::with_buffer(&mut rgb, SIZE)))
                        .into_drawing_area();
                let (result, record) =
                    drawn::capture(SIZE, || self.draw(&root).and_then(|()| Ok(root.present()?)));
                drop(root);
                let text = provenance::fields(provenance);
                result
                    .and_then(|()| bitmap::save_png(path, &rgb, SIZE, &text))
                    .map(|()| record)
            }
            Format::Svg => self.drawn_svg().and_then(|(svg, record)| {
                let svg = provenance::with_metadata(&svg, provenance, Some(&record));
                crate::outfile::write(path, crate::outfile::Kind::Svg, svg.as_bytes())?;
                Ok(record)
            }),
        };
        written
            .and_then(|record| drawn::write_sidecar(&sidecar_path(path), &record))
            .with_context(|| format!("drawing the chart {}", path.display()))
    }

    /// The chart as an SVG document, for inlining into HTML.
    fn svg(&self) -> anyhow::Result<String> {
        self.drawn_svg().map(|(svg, _)| svg)
    }

    /// The chart as an SVG document, with what it drew.
    fn drawn_svg(&self) -> anyhow::Result<(String, Drawn)> {
        style::register_fonts();
        let mut text = String::new();
        let (result, record) = drawn::capture(SIZE, || {
            let root =
                drawn::Recording(SVGBackend::with_string(&mut text, SIZE)).into_drawing_area();
            self.draw(&root).and_then(|()| Ok(root.present()?))
        });
        result?;
        // Round joins: a mitre join at a spike would draw past the data's value.
        let svg = text.replace("<polyline ", "<polyline stroke-linejoin=\"round\" ");
        Ok((svg, record))
    }
}

/// The text of every `<text>` element of `svg`, in order: tick labels, titles, legends.
#[cfg(test)]
fn svg_texts(svg: &str) -> Vec<String> {
    svg.split("</text>")
        .filter_map(|part| {
            part.rsplit_once('>')
                .map(|(_, text)| text.trim().to_string())
        })
        .filter(|text| !text.is_empty())
        .collect()
}

/// A count tick written out in units (`8000`) on an axis `svg` also labels in thousands
/// (`10k`): the mix a reader trips on. None when the axis keeps one unit.
#[cfg(test)]
fn mixed_count_ticks(svg: &str) -> Option<(String, String)> {
    let texts = svg_texts(svg);
    let plain = texts
        .iter()
        .find(|t| t.len() >= 4 && t.chars().all(|c| c.is_ascii_digit()))?;
    let thousands = texts.iter().find(|t| {
        t.strip_suffix('k')
            .is_some_and(|n| n.parse::<f64>().is_ok())
    })?;
    Some((plain.clone(), thousands.clone()))
}
