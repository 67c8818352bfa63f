//! The charts of the benchmark presets (`measure --preset cdm|tiobench|iometer-allinone`): the
//! points' MB/s as bars, and CrystalDiskMark's set in CrystalDiskMark's own layout
//! ([`super::cdm`] draws it), from the points' table ([`crate::analysis::preset`]).

use super::bars::{Bar, BarChart};
use super::cdm::{CdmCell, CdmChart, CdmRow};
use super::experiment::device_name;
use super::style;
use crate::analysis;
use crate::results::Experiment;

/// The bars of a benchmark preset (`measure --preset`): MB/s (10^6 bytes/s, as the benchmarks
/// count) of every point, reads and writes in two colours; the preparation write left out.
pub fn preset_chart(exp: &Experiment) -> Option<BarChart> {
    if !analysis::preset::is_preset(&exp.name) {
        return None;
    }
    let (read, write) = (style::palette(0), style::palette(1));
    let table = analysis::preset::PresetTable::of(exp);
    let bars: Vec<Bar> = table
        .points
        .iter()
        .filter(|p| p.seconds > 0.0)
        .map(|p| Bar {
            label: p.name.clone(),
            value: p.mb_per_s,
            text: format!(
                "{:.1} MB/s · {} IOPS",
                p.mb_per_s,
                crate::units::format_count(p.iops)
            ),
            color: if p.read_pct >= 50 { read } else { write },
            reference: None,
        })
        .collect();
    if bars.is_empty() {
        return None;
    }
    let run = exp
        .phases
        .iter()
        .filter(|p| p.record.phase.name != "prepare")
        .find_map(|p| p.run.as_ref())?;
    Some(BarChart {
        title: format!(
            "{} — {}",
            match exp.name.as_str() {
                "cdm" => "CrystalDiskMark's set",
                "tiobench" => "tiobench's set",
                _ => "Iometer's All-in-one set",
            },
            device_name(run)
        ),
        subtitle: format!(
            "{} per point · MB/s = 10^6 bytes/s",
            crate::units::format_duration(run.info.workload.duration.unwrap_or_default())
        ),
        x_desc: "MB/s".into(),
        bars,
        legend: vec![("reads".into(), read), ("writes".into(), write)],
        bracket: None,
    })
}

/// CrystalDiskMark's set (`measure --preset cdm`) in CrystalDiskMark's layout: the rows of
/// [`analysis::preset::PresetTable::cdm_tests`] (a row per test in the order the reads ran,
/// its read and write side by side), IOPS and mean latency under each; the preparation write
/// left out.
pub fn cdm_chart(exp: &Experiment) -> Option<CdmChart> {
    use analysis::preset::{BenchmarkFigures, PresetPoint};
    if exp.name.as_str() != "cdm" {
        return None;
    }
    let table = analysis::preset::PresetTable::of(exp);
    let cell = |p: Option<&PresetPoint>| {
        p.map(|p| CdmCell {
            mb_per_s: p.mb_per_s,
            iops: p.iops,
            mean_us: match &p.figures {
                BenchmarkFigures::Cdm(f) => f.lat_us,
                _ => None,
            },
        })
    };
    let rows: Vec<CdmRow> = table
        .cdm_tests()
        .iter()
        .map(|t| {
            let (test, depth) = t.key.split_once(' ').unwrap_or((t.key.as_str(), ""));
            CdmRow {
                test: test.to_string(),
                depth: depth.to_string(),
                read: cell(t.read),
                write: cell(t.write),
            }
        })
        .collect();
    if rows.is_empty() {
        return None;
    }
    let run = exp
        .phases
        .iter()
        .filter(|p| !analysis::preset::is_preparation(&exp.name, &p.record.phase.name))
        .find_map(|p| p.run.as_ref())?;
    Some(CdmChart {
        title: format!("CrystalDiskMark's set — {}", device_name(run)),
        subtitle: format!(
            "{} per test · MB/s = 10^6 bytes/s · under each: IOPS · mean latency per I/O",
            crate::units::format_duration(run.info.workload.duration.unwrap_or_default())
        ),
        rows,
    })
}

#[cfg(test)]
mod tests {
    use std::path::Path;

    use super::*;
    use crate::results::Status;

    /// cdm.png's rows are the report's: a test the report leaves out (its phase did not
    /// complete) is "not run" in the chart too, not a figure of its own.
    #[test]
    fn cdm_chart_rows_are_the_reports_pairing() {
        let dir = Path::new(env!("CARGO_MANIFEST_DIR")).join("results/examples/cdm-nvme-sim");
        let mut exp = crate::results::load_experiment(&dir).unwrap();
        let last = exp.phases.last_mut().unwrap();
        last.record.status = Status::Interrupted;
        let name = last.record.phase.name.clone();
        let chart = cdm_chart(&exp).unwrap();
        let table = analysis::preset::PresetTable::of(&exp);
        let cells = |r: &CdmRow| [r.read.is_some(), r.write.is_some()];
        let tests: Vec<(String, [bool; 2])> = table
            .cdm_tests()
            .iter()
            .map(|t| (t.key.clone(), [t.read.is_some(), t.write.is_some()]))
            .collect();
        let rows: Vec<(String, [bool; 2])> = chart
            .rows
            .iter()
            .map(|r| (format!("{} {}", r.test, r.depth), cells(r)))
            .collect();
        assert_eq!(rows, tests, "after {name} was interrupted");
        assert!(rows.iter().any(|(_, c)| c.contains(&false)), "{rows:?}");
    }
}
