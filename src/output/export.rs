//! `ssdfade export`: the samples of a run, an experiment or a group as one long table for a
//! spreadsheet or a script (CSV or JSON lines), with the unit in every column name. Records are
//! read through [`crate::results`]; the figures are the samples' own, copied, never recomputed.

use std::io::Write;
use std::path::Path;

use crate::results::{
    is_experiment, is_group, load_experiment, load_run, GroupRecord, Run, Status,
};
use crate::stats::{LatencySummary, Sample};

/// The file formats `export` writes.
#[derive(Clone, Copy, Debug, PartialEq, Eq, clap::ValueEnum)]
pub enum Format {
    /// Comma-separated values with a header line.
    Csv,
    /// One JSON object per line, keyed by the column names.
    Jsonl,
}

/// One cell: text (phase, member), a count, a measured figure, or nothing (an interval
/// without reads has no read latency).
#[derive(Clone, Debug, PartialEq)]
pub enum Cell {
    Text(String),
    Count(u64),
    Figure(f64),
    Empty,
}

/// Columns and rows, one row per sample.
#[derive(Clone, Debug, PartialEq)]
pub struct Table {
    pub columns: Vec<String>,
    pub rows: Vec<Vec<Cell>>,
}

/// The sample columns, units in their names, after the member and phase columns.
const SAMPLE_COLUMNS: [&str; 39] = [
    "index",
    "t_start_s",
    "t_end_s",
    "ops",
    "bytes",
    "iops",
    "mb_per_s",
    "lat_mean_us",
    "lat_p50_us",
    "lat_p99_us",
    "lat_p999_us",
    "lat_max_us",
    "read_ops",
    "read_iops",
    "read_mb_per_s",
    "read_lat_mean_us",
    "read_lat_p99_us",
    "read_lat_max_us",
    "write_ops",
    "write_iops",
    "write_mb_per_s",
    "write_lat_mean_us",
    "write_lat_p99_us",
    "write_lat_max_us",
    "trim_ops",
    "trim_iops",
    "trim_mb_per_s",
    "trim_lat_mean_us",
    "trim_lat_p99_us",
    "trim_lat_max_us",
    "errors",
    "bytes_written_total",
    "mb_written_total",
    "stopped_s",
    "suspended_s",
    "rate_iops",
    "paced_ops",
    "late_ops",
    "mean_lag_us",
];

/// The cells of one sample of a run paced at `rate_iops` (`None`: flat out), in
/// [`SAMPLE_COLUMNS`] order. An interval the tool was stopped for has no rates (empty cells,
/// not 0 IOPS: the drive was not asked for anything).
fn sample_cells(s: &Sample, rate_iops: Option<f64>) -> Vec<Cell> {
    let lat = |l: Option<&LatencySummary>, f: fn(&LatencySummary) -> f64| {
        l.map_or(Cell::Empty, |l| Cell::Figure(f(l)))
    };
    let rate = |x: f64| {
        if !s.has_rates() {
            Cell::Empty
        } else {
            Cell::Figure(x)
        }
    };
    let figure = |x: Option<f64>| x.map_or(Cell::Empty, Cell::Figure);
    let mut cells = vec![
        Cell::Count(s.index),
        Cell::Figure(s.t_start_s),
        Cell::Figure(s.t_end_s),
        Cell::Count(s.ops),
        Cell::Count(s.bytes),
        rate(s.iops),
        rate(s.mb_per_s),
        lat(s.lat_us.as_ref(), |l| l.mean),
        lat(s.lat_us.as_ref(), |l| l.p50),
        lat(s.lat_us.as_ref(), |l| l.p99),
        lat(s.lat_us.as_ref(), |l| l.p999),
        lat(s.lat_us.as_ref(), |l| l.max),
    ];
    // Trims are a direction of their own (not in ops, iops or lat above), as fio keeps them.
    for dir in [&s.read, &s.write, &s.trim] {
        match dir {
            Some(d) => cells.extend([
                Cell::Count(d.ops),
                rate(d.iops),
                rate(d.mb_per_s),
                lat(d.lat_us.as_ref(), |l| l.mean),
                lat(d.lat_us.as_ref(), |l| l.p99),
                lat(d.lat_us.as_ref(), |l| l.max),
            ]),
            None => cells.extend(std::iter::repeat_n(Cell::Empty, 6)),
        }
    }
    cells.extend([
        Cell::Count(s.errors),
        Cell::Count(s.bytes_written_total),
        Cell::Figure(s.bytes_written_total as f64 / 1e6),
        figure(s.stopped_s),
        figure(s.suspended_s),
        figure(rate_iops),
    ]);
    match &s.pacing {
        Some(p) => cells.extend([
            Cell::Count(p.paced),
            Cell::Count(p.late),
            Cell::Figure(p.mean_lag_us),
        ]),
        None => cells.extend(std::iter::repeat_n(Cell::Empty, 3)),
    }
    cells
}

/// Rows of runs, each labelled with the `labels` cells before its samples.
#[derive(Default)]
struct Builder {
    rows: Vec<Vec<Cell>>,
}

impl Builder {
    fn add(&mut self, labels: &[Cell], run: &Run) {
        let w = &run.info.workload;
        let rate_iops = w.rate.map(|r| r.iops(w.bs));
        for s in &run.samples {
            let mut row = labels.to_vec();
            row.extend(sample_cells(s, rate_iops));
            self.rows.push(row);
        }
    }

    /// Every phase of the experiment in `dir` that has samples (erase and idle phases have
    /// none), after the `labels` cells.
    fn add_experiment(&mut self, labels: &[Cell], dir: &Path) -> anyhow::Result<()> {
        let experiment = load_experiment(dir)?;
        for phase in &experiment.phases {
            if let Some(run) = &phase.run {
                let mut with_phase = labels.to_vec();
                with_phase.push(Cell::Text(phase.record.phase.name.clone()));
                self.add(&with_phase, run);
            }
        }
        Ok(())
    }
}

/// The samples under `dir`: a run (one row per sample), an experiment (a `phase` column) or a
/// group (a `member` column, and `phase` when its members are experiments).
pub fn table(dir: &Path) -> anyhow::Result<Table> {
    let mut b = Builder::default();
    let mut labels = Vec::new();
    if is_group(dir) {
        labels.push("member");
        let record = GroupRecord::read(dir)?;
        let mut phases = false;
        for m in &record.members {
            let mdir = dir.join(&m.run_dir);
            let member = [Cell::Text(m.target.clone())];
            if is_experiment(&mdir) {
                phases = true;
                b.add_experiment(&member, &mdir)?;
            } else if m.status == Status::Failed && !mdir.join("samples.jsonl").is_file() {
                // A member that failed before its first sample has nothing to export.
                continue;
            } else {
                b.add(&member, &load_run(&mdir)?);
            }
        }
        if phases {
            labels.push("phase");
        }
    } else if is_experiment(dir) {
        labels.push("phase");
        b.add_experiment(&[], dir)?;
    } else if dir.join("run.json").is_file() {
        b.add(&[], &load_run(dir)?);
    } else {
        crate::bad_input!(
            "{} holds no run.json, experiment.json or group.json: give a run, experiment or group directory to export",
            dir.display()
        );
    }
    let columns: Vec<String> = labels
        .iter()
        .chain(SAMPLE_COLUMNS.iter())
        .map(|c| c.to_string())
        .collect();
    let rows = b
        .rows
        .into_iter()
        .map(|mut row| {
            // A run member among experiment members has no phase: its phase cell is empty.
            if row.len() < columns.len() {
                row.insert(1, Cell::Empty);
            }
            row
        })
        .collect();
    Ok(Table { columns, rows })
}

impl Cell {
    /// The cell as CSV text: numbers as Rust prints them (shortest form that reads back to
    /// the same value), nothing for an empty cell.
    fn text(&self) -> String {
        match self {
            Cell::Text(t) => t.clone(),
            Cell::Count(n) => n.to_string(),
            Cell::Figure(x) => x.to_string(),
            Cell::Empty => String::new(),
        }
    }

    fn json(&self) -> serde_json::Value {
        match self {
            Cell::Text(t) => t.clone().into(),
            Cell::Count(n) => (*n).into(),
            Cell::Figure(x) => (*x).into(),
            Cell::Empty => serde_json::Value::Null,
        }
    }
}

/// Writes `table` in `format` to `out`.
pub fn write(table: &Table, format: Format, out: impl Write) -> anyhow::Result<()> {
    match format {
        Format::Csv => {
            let mut w = csv::Writer::from_writer(out);
            w.write_record(&table.columns)?;
            for row in &table.rows {
                w.write_record(row.iter().map(Cell::text))?;
            }
            w.flush()?;
        }
        Format::Jsonl => {
            let mut out = out;
            // Keys in column order, as in the CSV header (a JSON map would sort them).
            for row in &table.rows {
                let fields: Vec<String> = table
                    .columns
                    .iter()
                    .zip(row)
                    .map(|(c, v)| format!("{}:{}", serde_json::Value::from(c.as_str()), v.json()))
                    .collect();
                writeln!(out, "{{{}}}", fields.join(","))?;
            }
            out.flush()?;
        }
    }
    Ok(())
}
