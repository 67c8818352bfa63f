//! What a chart drew, as data: every series (its name, unit and points exactly as drawn, after
//! any downsampling), band, mark and text label (with its pixel box), collected while the chart
//! draws. [`super::Chart::write`] writes it beside the picture as `NAME.chart.json` and into an
//! SVG's metadata, so anyone can re-plot or re-check a chart without reading pixels.
//!
//! Recording happens where drawing happens: the panel and series helpers record what they draw,
//! and [`Recording`] records every text any code draws, so a chart cannot draw a series or a
//! label that its record leaves out. Outside [`capture`] (a unit test drawing a panel on a bare
//! backend) recording does nothing.

use std::cell::RefCell;
use std::path::{Path, PathBuf};

use anyhow::Context;

use plotters::coord::ranged1d::Ranged;
use plotters::prelude::*;
use plotters_backend::text_anchor::{HPos, VPos};
use plotters_backend::{
    BackendColor, BackendCoord, BackendStyle, BackendTextStyle, DrawingErrorKind,
};
use serde::{Deserialize, Serialize};

/// The `format` of every record: bumped when a field changes meaning.
pub const FORMAT: &str = "ssdfade-chart/1";

/// A rectangle in image pixels: left, top, right, bottom (right and bottom exclusive), with
/// y growing downwards from the image's top-left corner.
pub type PixelBox = [i32; 4];

/// Everything one chart drew.
#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize)]
pub struct Drawn {
    pub format: String,
    /// Image width and height in pixels.
    pub size: (u32, u32),
    /// Each plot area with what was drawn in it, top to bottom.
    pub panels: Vec<DrawnPanel>,
    /// Every text in the image: titles, legend entries, tick labels, annotations.
    pub labels: Vec<DrawnLabel>,
}

/// One plot area: its axes and the series, bands and marks drawn in it.
#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize)]
pub struct DrawnPanel {
    /// Axis descriptions as printed ("Elapsed time (h)", "IOPS").
    pub x_axis: String,
    pub y_axis: String,
    /// The data ranges the axes span.
    pub x: (f64, f64),
    pub y: (f64, f64),
    /// Where the plot area lies in the image.
    pub plot: PixelBox,
    pub series: Vec<DrawnSeries>,
    pub bands: Vec<DrawnBand>,
    pub marks: Vec<DrawnMark>,
}

/// A drawn series: points in the panel's data coordinates, `None` where the line breaks (an
/// interval without a number, a phase boundary).
#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize)]
pub struct DrawnSeries {
    pub name: String,
    /// What y counts ("IOPS", "µs", "MB/s", "% of I/Os").
    pub unit: String,
    pub points: Vec<Option<(f64, f64)>>,
}

/// A shaded span: its x range in data coordinates, and its y range when it does not span the
/// whole height.
#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize)]
pub struct DrawnBand {
    pub name: String,
    pub x: (f64, f64),
    pub y: Option<(f64, f64)>,
}

/// A drawn mark and the pixels it covers.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct DrawnMark {
    pub name: String,
    pub kind: MarkKind,
    pub pixels: PixelBox,
}

/// What a mark is, and so what a label may do with it.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum MarkKind {
    /// A marker's vertical line (an erase, a drive fill): a label keeps off it where there is
    /// room, else is drawn over it on its own white box.
    Line,
    /// A measured state's dot: no label covers it.
    Dot,
}

/// A text as drawn and the box its glyphs fill.
#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize)]
pub struct DrawnLabel {
    pub text: String,
    pub pixels: PixelBox,
}

/// Where the record of the chart file `chart` goes: `NAME.chart.json` beside `NAME.png` or
/// `NAME.svg` (not `NAME.json`: a run directory's `slog.json` is the record of its slog run).
pub fn sidecar_path(chart: &Path) -> PathBuf {
    chart.with_extension("chart.json")
}

/// Writes `drawn` as JSON to `path`.
pub fn write_sidecar(path: &Path, drawn: &Drawn) -> anyhow::Result<()> {
    let json = serde_json::to_vec(drawn).context("encoding what the chart drew")?;
    crate::outfile::write(path, crate::outfile::Kind::ChartRecord, &json)
}

/// Reads a chart's record written by [`write_sidecar`].
pub fn read_sidecar(path: &Path) -> anyhow::Result<Drawn> {
    let text = std::fs::read(path).with_context(|| format!("reading {}", path.display()))?;
    serde_json::from_slice(&text).with_context(|| format!("parsing {}", path.display()))
}

thread_local! {
    static DRAWING: RefCell<Option<Drawn>> = const { RefCell::new(None) };
}

/// Runs `draw` with recording on and returns its result with what it drew.
pub fn capture<T>(size: (u32, u32), draw: impl FnOnce() -> T) -> (T, Drawn) {
    let outer = DRAWING.with(|d| {
        d.borrow_mut().replace(Drawn {
            format: FORMAT.into(),
            size,
            ..Drawn::default()
        })
    });
    let result = draw();
    let drawn = DRAWING.with(|d| std::mem::replace(&mut *d.borrow_mut(), outer));
    (result, drawn.unwrap_or_default())
}

/// Applies `record` to the chart being captured, if any.
fn record(record: impl FnOnce(&mut Drawn)) {
    DRAWING.with(|d| {
        if let Some(drawn) = d.borrow_mut().as_mut() {
            record(drawn);
        }
    });
}

/// Starts a new plot area; the series, bands and marks recorded next belong to it.
pub fn panel(panel: DrawnPanel) {
    record(|d| d.panels.push(panel));
}

/// Records a series in the current plot area. Points whose y is not a number are breaks.
pub fn series(name: &str, unit: &str, points: &[(f64, f64)]) {
    record(|d| {
        if let Some(panel) = d.panels.last_mut() {
            panel.series.push(DrawnSeries {
                name: name.into(),
                unit: unit.into(),
                points: points
                    .iter()
                    .map(|&(x, y)| (x.is_finite() && y.is_finite()).then_some((x, y)))
                    .collect(),
            });
        }
    });
}

/// Records a band in the current plot area.
pub fn band(name: &str, x: (f64, f64), y: Option<(f64, f64)>) {
    record(|d| {
        if let Some(panel) = d.panels.last_mut() {
            panel.bands.push(DrawnBand {
                name: name.into(),
                x,
                y,
            });
        }
    });
}

/// Records a mark in the current plot area.
pub fn mark(name: &str, kind: MarkKind, pixels: PixelBox) {
    record(|d| {
        if let Some(panel) = d.panels.last_mut() {
            panel.marks.push(DrawnMark {
                name: name.into(),
                kind,
                pixels,
            });
        }
    });
}

/// Starts a new plot area for `chart`, a chart of numbers on both axes (linear or log) built
/// by the caller: the charts drawn without a [`super::panel::Panel`].
pub fn chart_panel<DB, X, Y>(
    chart: &ChartContext<'_, DB, Cartesian2d<X, Y>>,
    x_axis: &str,
    y_axis: &str,
) where
    DB: DrawingBackend,
    X: Ranged<ValueType = f64>,
    Y: Ranged<ValueType = f64>,
{
    let (x, y) = (chart.x_range(), chart.y_range());
    panel(DrawnPanel {
        x_axis: x_axis.into(),
        y_axis: y_axis.into(),
        x: (x.start, x.end),
        y: (y.start, y.end),
        plot: area_box(chart.plotting_area()),
        ..DrawnPanel::default()
    });
}

/// The pixel box of an area of a chart in the image.
pub fn area_box<DB: DrawingBackend, CT: plotters::coord::CoordTranslate>(
    area: &DrawingArea<DB, CT>,
) -> PixelBox {
    let (x, y) = area.get_pixel_range();
    [x.start, y.start, x.end, y.end]
}

/// Any backend with every text it draws recorded with its box (see the module docs).
pub struct Recording<B>(pub B);

type Drawing<B> = Result<(), DrawingErrorKind<<B as DrawingBackend>::ErrorType>>;

impl<B: DrawingBackend> DrawingBackend for Recording<B> {
    type ErrorType = B::ErrorType;

    fn get_size(&self) -> (u32, u32) {
        self.0.get_size()
    }

    fn ensure_prepared(&mut self) -> Drawing<B> {
        self.0.ensure_prepared()
    }

    fn present(&mut self) -> Drawing<B> {
        self.0.present()
    }

    fn draw_pixel(&mut self, point: BackendCoord, color: BackendColor) -> Drawing<B> {
        self.0.draw_pixel(point, color)
    }

    fn draw_line<S: BackendStyle>(
        &mut self,
        from: BackendCoord,
        to: BackendCoord,
        style: &S,
    ) -> Drawing<B> {
        self.0.draw_line(from, to, style)
    }

    fn draw_rect<S: BackendStyle>(
        &mut self,
        upper_left: BackendCoord,
        bottom_right: BackendCoord,
        style: &S,
        fill: bool,
    ) -> Drawing<B> {
        self.0.draw_rect(upper_left, bottom_right, style, fill)
    }

    fn draw_path<S: BackendStyle, I: IntoIterator<Item = BackendCoord>>(
        &mut self,
        path: I,
        style: &S,
    ) -> Drawing<B> {
        self.0.draw_path(path, style)
    }

    fn draw_circle<S: BackendStyle>(
        &mut self,
        center: BackendCoord,
        radius: u32,
        style: &S,
        fill: bool,
    ) -> Drawing<B> {
        self.0.draw_circle(center, radius, style, fill)
    }

    fn fill_polygon<S: BackendStyle, I: IntoIterator<Item = BackendCoord>>(
        &mut self,
        vert: I,
        style: &S,
    ) -> Drawing<B> {
        self.0.fill_polygon(vert, style)
    }

    fn draw_text<TStyle: BackendTextStyle>(
        &mut self,
        text: &str,
        style: &TStyle,
        pos: BackendCoord,
    ) -> Drawing<B> {
        let text = &*drawable(text);
        if !text.trim().is_empty() && style.color().alpha > 0.0 {
            if let Ok(pixels) = text_box(text, style, pos) {
                record(|d| {
                    d.labels.push(DrawnLabel {
                        text: text.into(),
                        pixels,
                    })
                });
            }
        }
        self.0.draw_text(text, style, pos)
    }

    fn estimate_text_size<TStyle: BackendTextStyle>(
        &self,
        text: &str,
        style: &TStyle,
    ) -> Result<(u32, u32), DrawingErrorKind<Self::ErrorType>> {
        self.0.estimate_text_size(&drawable(text), style)
    }

    fn blit_bitmap(&mut self, pos: BackendCoord, size: (u32, u32), src: &[u8]) -> Drawing<B> {
        self.0.blit_bitmap(pos, size, src)
    }
}

/// `text` as a chart draws it: a control character (an escape sequence in a drive's model, a
/// newline in a folder's name) as its visible escape (`\u{1b}`), as the terminal shows it,
/// never as a font's empty box.
fn drawable(text: &str) -> std::borrow::Cow<'_, str> {
    match crate::console::visible(text) {
        shown if shown.contains(['\n', '\t']) => shown
            .chars()
            .flat_map(|c| match c {
                '\n' | '\t' => c.escape_unicode().collect::<Vec<_>>(),
                c => vec![c],
            })
            .collect::<String>()
            .into(),
        shown => shown,
    }
}

/// The box `text` fills when drawn in `style` anchored at `pos`, as plotters lays it out
/// (anchor, then rotation about the anchor).
fn text_box<S: BackendTextStyle>(
    text: &str,
    style: &S,
    pos: BackendCoord,
) -> Result<PixelBox, S::FontError> {
    let ((min_x, min_y), (max_x, max_y)) = style.layout_box(text)?;
    let (w, h) = (max_x - min_x, max_y - min_y);
    let dx = match style.anchor().h_pos {
        HPos::Left => 0,
        HPos::Right => -w,
        HPos::Center => -w / 2,
    };
    let dy = match style.anchor().v_pos {
        VPos::Top => 0,
        VPos::Center => -h / 2,
        VPos::Bottom => -h,
    };
    let trans = style.transform();
    let a = trans.transform(dx, dy);
    let b = trans.transform(dx + w, dy + h);
    Ok([
        pos.0 + a.0.min(b.0),
        pos.1 + a.1.min(b.1),
        pos.0 + a.0.max(b.0),
        pos.1 + a.1.max(b.1),
    ])
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A label holding an escape sequence and a newline (a model name from a record) is drawn
    /// and recorded as their visible escapes, never as raw control characters.
    #[test]
    fn a_label_holding_control_characters_is_drawn_as_their_escapes() {
        crate::plot::style::register_fonts();
        let mut svg = String::new();
        let (drew, record) = capture((300, 100), || {
            let root = Recording(SVGBackend::with_string(&mut svg, (300, 100))).into_drawing_area();
            let style = ("sans-serif", 14).into_font().color(&BLACK);
            root.draw_text("M\u{1b}[31mRED\nx", &style, (10, 10))
        });
        drew.unwrap();
        let texts: Vec<&str> = record.labels.iter().map(|l| l.text.as_str()).collect();
        assert_eq!(texts, ["M\\u{1b}[31mRED\\u{a}x"]);
        assert!(!svg.contains('\u{1b}'), "{svg}");
    }
}
