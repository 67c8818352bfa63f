//! CrystalDiskMark's window as a chart: one row per test ("SEQ1M" over "Q8T1" on a green key
//! at the left), a Read and a Write column of MB/s, each cell its figure in large digits over a
//! bar filled in proportion to the largest figure, IOPS and mean latency under it.

use plotters::coord::Shift;
use plotters::prelude::*;
use plotters::style::text_anchor::{HPos, Pos, VPos};

use super::drawn;
use super::style;
use super::Chart;

/// One measured cell: a test in one direction.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct CdmCell {
    pub mb_per_s: f64,
    pub iops: f64,
    /// Mean latency per I/O, µs.
    pub mean_us: Option<f64>,
}

/// One test: its key ("SEQ1M", "Q8T1") and its read and write cells.
#[derive(Clone, Debug, PartialEq)]
pub struct CdmRow {
    pub test: String,
    pub depth: String,
    pub read: Option<CdmCell>,
    pub write: Option<CdmCell>,
}

/// Everything the CrystalDiskMark chart shows.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct CdmChart {
    pub title: String,
    pub subtitle: String,
    pub rows: Vec<CdmRow>,
}

/// CrystalDiskMark's green keys.
const KEY: RGBColor = RGBColor(46, 125, 50);
/// The cells' bar, light so the digits over it stay black on it.
const BAR: RGBColor = RGBColor(178, 223, 219);

impl CdmChart {
    /// The largest figure of any cell: the full bar.
    fn largest(&self) -> f64 {
        self.rows
            .iter()
            .flat_map(|r| [r.read, r.write])
            .flatten()
            .map(|c| c.mb_per_s)
            .fold(0.0, f64::max)
    }

    /// Draws one cell into the pixel rectangle `[x0, x1) × [y0, y1)` of `area`.
    fn cell<DB: DrawingBackend>(
        &self,
        area: &DrawingArea<DB, Shift>,
        cell: Option<CdmCell>,
        (x0, y0, x1, y1): (i32, i32, i32, i32),
    ) -> anyhow::Result<()>
    where
        DB::ErrorType: 'static,
    {
        area.draw(&Rectangle::new([(x0, y0), (x1, y1)], WHITE.filled()))?;
        let Some(c) = cell else {
            area.draw(&Text::new(
                "not run",
                ((x0 + x1) / 2, (y0 + y1) / 2),
                style::tick_font().pos(Pos::new(HPos::Center, VPos::Center)),
            ))?;
            area.draw(&Rectangle::new([(x0, y0), (x1, y1)], BLACK.mix(0.4)))?;
            return Ok(());
        };
        let largest = self.largest();
        let share = if largest > 0.0 {
            (c.mb_per_s / largest).clamp(0.0, 1.0)
        } else {
            0.0
        };
        let bar_end = x0 + ((x1 - x0) as f64 * share).round() as i32;
        if bar_end > x0 {
            area.draw(&Rectangle::new([(x0, y0), (bar_end, y1)], BAR.filled()))?;
        }
        area.draw(&Rectangle::new([(x0, y0), (x1, y1)], BLACK.mix(0.4)))?;
        let h = y1 - y0;
        let digits = style::tick_font_of((h as f64 * 0.42).clamp(18.0, 64.0))
            .color(&BLACK)
            .pos(Pos::new(HPos::Right, VPos::Center));
        area.draw(&Text::new(
            format!("{:.2}", c.mb_per_s),
            (x1 - 16, y0 + h * 2 / 5),
            digits,
        ))?;
        let mean = c
            .mean_us
            .map(|us| format!(" · {}", crate::units::format_latency_us(us)))
            .unwrap_or_default();
        area.draw(&Text::new(
            format!("{} IOPS{mean}", crate::units::format_count(c.iops)),
            (x1 - 16, y1 - h / 6),
            style::tick_font().pos(Pos::new(HPos::Right, VPos::Center)),
        ))?;
        Ok(())
    }
}

impl Chart for CdmChart {
    fn draw<DB: DrawingBackend>(&self, root: &DrawingArea<DB, Shift>) -> anyhow::Result<()>
    where
        DB::ErrorType: 'static,
    {
        root.fill(&WHITE)?;
        let body = style::header(root, &self.title, std::slice::from_ref(&self.subtitle))?;
        let (w, h) = body.dim_in_pixel();
        let (w, h) = (w as i32, h as i32);
        let (left, right, top, bottom, gap) = (40, 40, 48, 24, 10);
        let key_w = 260;
        let col_w = (w - left - right - key_w - 2 * gap) / 2;
        let rows = self.rows.len().max(1) as i32;
        let row_h = ((h - top - bottom) / rows - gap).min(170);
        let header = style::axis_desc_font().pos(Pos::new(HPos::Center, VPos::Bottom));
        for (i, name) in ["Read (MB/s)", "Write (MB/s)"].iter().enumerate() {
            let x = left + key_w + gap + i as i32 * (col_w + gap) + col_w / 2;
            body.draw(&Text::new(*name, (x, top - 10), header.clone()))?;
        }
        // The record: one panel of the table, its MB/s by row (0 the top row) per direction.
        drawn::panel(drawn::DrawnPanel {
            x_axis: "row (top first)".into(),
            y_axis: "MB/s".into(),
            x: (0.0, self.rows.len() as f64),
            plot: drawn::area_box(&body),
            ..Default::default()
        });
        for (name, pick) in [
            (
                "Read (MB/s)",
                (|r: &CdmRow| r.read) as fn(&CdmRow) -> Option<CdmCell>,
            ),
            ("Write (MB/s)", |r: &CdmRow| r.write),
        ] {
            let points: Vec<(f64, f64)> = self
                .rows
                .iter()
                .enumerate()
                .map(|(i, r)| (i as f64, pick(r).map_or(f64::NAN, |c| c.mb_per_s)))
                .collect();
            drawn::series(name, "MB/s", &points);
        }
        for (i, row) in self.rows.iter().enumerate() {
            let y0 = top + i as i32 * (row_h + gap);
            let y1 = y0 + row_h;
            body.draw(&Rectangle::new(
                [(left, y0), (left + key_w, y1)],
                KEY.filled(),
            ))?;
            let key = style::tick_font_of((row_h as f64 * 0.22).clamp(16.0, 34.0))
                .color(&WHITE)
                .pos(Pos::new(HPos::Center, VPos::Center));
            let cx = left + key_w / 2;
            body.draw(&Text::new(
                row.test.clone(),
                (cx, y0 + row_h * 3 / 10),
                key.clone(),
            ))?;
            body.draw(&Text::new(
                row.depth.clone(),
                (cx, y0 + row_h * 7 / 10),
                key,
            ))?;
            for (j, cell) in [row.read, row.write].into_iter().enumerate() {
                let x0 = left + key_w + gap + j as i32 * (col_w + gap);
                self.cell(&body, cell, (x0, y0, x0 + col_w, y1))?;
            }
        }
        Ok(())
    }
}
