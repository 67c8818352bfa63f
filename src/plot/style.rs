//! The look every chart shares: the bundled font, the picture size, text sizes, colours, the
//! title block and axis number formats.
//!
//! Text is drawn with DejaVu Sans from the `dejavu` crate, handed to plotters as bytes
//! (`ab_glyph`), so charts render on a machine with no system fonts and no fontconfig. SVG
//! output names the family `sans-serif`, which every viewer has.

use std::sync::Once;

use plotters::chart::MeshStyle;
use plotters::coord::ranged1d::ValueFormatter;
use plotters::coord::Shift;
use plotters::prelude::*;
use plotters::style::text_anchor::{HPos, Pos, VPos};
use plotters::style::{register_font, FontDesc, FontFamily, FontStyle, RGBColor};

/// Width and height of every chart in pixels: reads well on a laptop and in a README.
pub const SIZE: (u32, u32) = (1600, 900);

/// The family the bundled font is registered under.
const FAMILY: &str = "sans-serif";

/// Registers the bundled DejaVu Sans faces with plotters (once per process).
pub fn register_fonts() {
    static ONCE: Once = Once::new();
    ONCE.call_once(|| {
        let regular = register_font(FAMILY, FontStyle::Normal, dejavu::sans::regular());
        let bold = register_font(FAMILY, FontStyle::Bold, dejavu::sans::bold());
        assert!(
            regular.is_ok() && bold.is_ok(),
            "the bundled DejaVu Sans font does not parse"
        );
    });
}

fn font(size: f64, style: FontStyle) -> FontDesc<'static> {
    FontDesc::new(FontFamily::SansSerif, size, style)
}

/// Chart title.
pub fn title_font() -> TextStyle<'static> {
    font(32.0, FontStyle::Bold).color(&BLACK)
}

/// Lines under the title (workload, states).
pub fn subtitle_font() -> TextStyle<'static> {
    font(21.0, FontStyle::Normal).color(&RGBColor(60, 60, 60))
}

/// Axis descriptions ("Elapsed time (h)").
pub fn axis_desc_font() -> TextStyle<'static> {
    font(21.0, FontStyle::Normal).color(&BLACK)
}

/// Tick labels.
pub fn tick_font() -> TextStyle<'static> {
    tick_font_of(18.0)
}

/// Tick labels at `size` pixels (rows too narrow for the usual size).
pub fn tick_font_of(size: f64) -> TextStyle<'static> {
    font(size, FontStyle::Normal).color(&RGBColor(40, 40, 40))
}

/// Legend entries.
pub fn legend_font() -> TextStyle<'static> {
    font(18.0, FontStyle::Normal).color(&BLACK)
}

/// A chart's series legend in the style every chart uses (legend font, white backing, light
/// border); the caller places it and draws it.
pub fn legend<'a, 'b, DB: DrawingBackend + 'a, CT: CoordTranslate>(
    chart: &'b mut ChartContext<'a, DB, CT>,
) -> plotters::chart::SeriesLabelStyle<'a, 'b, DB, CT> {
    let mut style = chart.configure_series_labels();
    style
        .label_font(legend_font())
        .background_style(WHITE.mix(0.9))
        .border_style(BLACK.mix(0.3));
    style
}

/// A chart's mesh in the style every chart uses (tick and axis-description fonts, faint grid,
/// no minor lines); the caller adds its descriptions, formatters and label counts and draws it.
pub fn mesh<'a, 'b, DB, XT, YT, X, Y>(
    chart: &'b mut ChartContext<'a, DB, Cartesian2d<X, Y>>,
) -> MeshStyle<'a, 'b, X, Y, DB>
where
    DB: DrawingBackend,
    X: Ranged<ValueType = XT> + ValueFormatter<XT>,
    Y: Ranged<ValueType = YT> + ValueFormatter<YT>,
{
    let mut mesh = chart.configure_mesh();
    mesh.label_style(tick_font())
        .axis_desc_style(axis_desc_font())
        .bold_line_style(BLACK.mix(0.10))
        .light_line_style(WHITE.mix(0.0));
    mesh
}

/// Labels drawn inside the plot (phase names, events, levels) in `color`.
pub fn note_font(color: RGBColor) -> TextStyle<'static> {
    font(17.0, FontStyle::Bold).color(&color)
}

// One palette for every chart: Okabe & Ito's colour-blind-safe set (blue, orange, bluish
// green, vermillion, sky blue, reddish purple), chosen so that lines drawn together also differ
// in lightness and stay apart in greyscale; phase bands are tints of grey, never a series'
// colour.

/// IOPS per interval (sky blue, light).
pub const RAW: RGBColor = RGBColor(86, 180, 233);
/// Moving average (blue, dark).
pub const AVERAGE: RGBColor = RGBColor(0, 90, 160);
/// Measured states and their levels (vermillion).
pub const STATE: RGBColor = RGBColor(213, 94, 0);
/// Erase events (reddish purple, darkened: never a percentile's colour).
pub const EVENT: RGBColor = RGBColor(150, 60, 120);
/// SNIA's steady window (blue-violet: no state's colour, so the window never reads as good or
/// bad by its hue).
pub const STEADY: RGBColor = RGBColor(110, 90, 200);
/// The predicted steady state, dashed in its band (black).
pub const PREDICTION: RGBColor = RGBColor(0, 0, 0);
/// Drive-fill marks.
pub const FILL: RGBColor = RGBColor(110, 110, 110);
/// Thresholds drawn as lines (the SLOG latency bands).
pub const THRESHOLD: RGBColor = RGBColor(0, 120, 90);
/// Latency percentiles, dark to light: p50 blue, p99.9 vermillion, p99 orange; the maximum a
/// thin dark grey.
pub const P50: RGBColor = RGBColor(0, 114, 178);
pub const P99: RGBColor = RGBColor(230, 159, 0);
pub const P999: RGBColor = RGBColor(213, 94, 0);
pub const MAX: RGBColor = RGBColor(60, 60, 60);
/// A mean latency.
pub const MEAN: RGBColor = P50;
/// Phase bands: alternating grey tints, named in dark grey.
pub const BAND: [RGBColor; 2] = [RGBColor(120, 120, 120), RGBColor(40, 40, 40)];
/// Phase band names.
pub const BAND_TEXT: RGBColor = RGBColor(70, 70, 70);

/// A measured state's colour by what it means to a reader, the same on every chart: fresh
/// (bluish green) and recovered (dark green) in the good hues, faded in vermillion, a drive
/// in service (worn by use, not yet faded) in orange; any other state (a preset's phases) in
/// [`STATE`].
pub fn state_color(name: &str) -> RGBColor {
    match name {
        "fresh" => RGBColor(0, 158, 115),
        "recovered" => RGBColor(0, 110, 60),
        "faded" => RGBColor(213, 94, 0),
        "in-service" => RGBColor(230, 159, 0),
        _ => STATE,
    }
}

/// Distinct colours for one line per run, thread count, wait state or phase: Okabe–Ito without
/// its yellow (unreadable on white), then seven of Paul Tol's muted set that differ from those
/// in hue or lightness, so a chart of up to 14 series (a distribution of 7 × 2 phases) never
/// draws two in one colour.
pub const PALETTE: [RGBColor; 14] = [
    RGBColor(0, 114, 178),
    RGBColor(230, 159, 0),
    RGBColor(0, 158, 115),
    RGBColor(213, 94, 0),
    RGBColor(86, 180, 233),
    RGBColor(204, 121, 167),
    RGBColor(0, 0, 0),
    RGBColor(136, 34, 85),
    RGBColor(51, 34, 136),
    RGBColor(153, 153, 51),
    RGBColor(17, 119, 51),
    RGBColor(204, 102, 119),
    RGBColor(140, 86, 75),
    RGBColor(0, 95, 115),
];

/// The `i`-th palette colour, wrapping around after [`PALETTE`]'s 14.
pub fn palette(i: usize) -> RGBColor {
    PALETTE[i % PALETTE.len()]
}

/// `color` blended towards white by `amount` (0 unchanged, 1 white): a quieter line that
/// stays opaque.
pub fn lighter(color: RGBColor, amount: f64) -> RGBColor {
    let mix = |c: u8| (c as f64 + (255.0 - c as f64) * amount).round() as u8;
    RGBColor(mix(color.0), mix(color.1), mix(color.2))
}

/// Draws the title and the lines under it at the top of `root` and returns the area below.
pub fn header<DB: DrawingBackend>(
    root: &DrawingArea<DB, Shift>,
    title: &str,
    lines: &[String],
) -> anyhow::Result<DrawingArea<DB, Shift>>
where
    DB::ErrorType: 'static,
{
    let room = root.dim_in_pixel().0 - 40;
    let lines: Vec<String> = lines
        .iter()
        .filter(|l| !l.is_empty())
        .flat_map(|l| wrap_once(root, l, &subtitle_font(), room))
        .collect();
    // A title too wide breaks like a subtitle (after its last " · " that fits), so the
    // drive's name and capacity at its end are never cut off.
    let titles = wrap_once(root, title, &title_font(), room);
    let below = 42 * (titles.len() as i32 - 1);
    let height = 58 + below + 28 * lines.len() as i32;
    let (head, body) = root.split_vertically(height);
    let centre = head.dim_in_pixel().0 as i32 / 2;
    let top = Pos::new(HPos::Center, VPos::Top);
    for (i, title) in titles.iter().enumerate() {
        let title = fit(&head, title, &title_font(), room);
        head.draw(&Text::new(
            title,
            (centre, 12 + 42 * i as i32),
            title_font().pos(top),
        ))?;
    }
    for (i, line) in lines.iter().enumerate() {
        head.draw(&Text::new(
            fit(&head, line, &subtitle_font(), room),
            (centre, 54 + below + 28 * i as i32),
            subtitle_font().pos(top),
        ))?;
    }
    Ok(body)
}

/// `text` as one line when it fits in `width` pixels, else as two, broken after the last
/// " · " or ", " that leaves the first line fitting (the second is cut by [`fit`] if need be).
fn wrap_once<DB: DrawingBackend>(
    area: &DrawingArea<DB, Shift>,
    text: &str,
    font: &TextStyle,
    width: u32,
) -> Vec<String> {
    let fits = |t: &str| {
        area.estimate_text_size(t, font)
            .is_ok_and(|(w, _)| w <= width)
    };
    if fits(text) {
        return vec![text.to_string()];
    }
    let breaks = text
        .match_indices(" · ")
        .map(|(i, _)| (i, i + " · ".len()))
        .chain(text.match_indices(", ").map(|(i, _)| (i + 1, i + 2)));
    match breaks
        .filter(|&(end, _)| fits(&text[..end]))
        .max_by_key(|&(end, _)| end)
    {
        Some((end, next)) => vec![text[..end].to_string(), text[next..].to_string()],
        None => vec![text.to_string()],
    }
}

/// `text`, shortened with an ellipsis until it fits in `width` pixels.
fn fit<DB: DrawingBackend>(
    area: &DrawingArea<DB, Shift>,
    text: &str,
    font: &TextStyle,
    width: u32,
) -> String {
    let fits = |t: &str| {
        area.estimate_text_size(t, font)
            .is_ok_and(|(w, _)| w <= width)
    };
    if fits(text) {
        return text.to_string();
    }
    let mut chars: Vec<char> = text.chars().collect();
    while !chars.is_empty() {
        chars.pop();
        let shorter: String = chars.iter().collect::<String>() + "…";
        if fits(&shorter) {
            return shorter;
        }
    }
    String::new()
}

/// The unit an elapsed-time axis is drawn in.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct TimeUnit {
    pub seconds: f64,
    pub name: &'static str,
}

/// Milliseconds below a second (a run stopped in its first interval), seconds up to 10
/// minutes, minutes up to 3 hours, hours beyond.
pub fn time_unit(span_s: f64) -> TimeUnit {
    if span_s < 1.0 {
        TimeUnit {
            seconds: 1e-3,
            name: "ms",
        }
    } else if span_s <= 600.0 {
        TimeUnit {
            seconds: 1.0,
            name: "s",
        }
    } else if span_s <= 3.0 * 3600.0 {
        TimeUnit {
            seconds: 60.0,
            name: "min",
        }
    } else {
        TimeUnit {
            seconds: 3600.0,
            name: "h",
        }
    }
}

// One number rule for every axis: a count tick is written in the unit of the axis's top
// ([`count_tick`]: `0`, `2k`, … `12k`; never `250000` on one chart and `250k` on the next); a
// linear latency axis names one unit, switching to ms at 1000 µs ([`latency_unit`]), and a
// log latency axis writes each tick in its own unit with the same switch ([`crate::units::format_latency_us`]:
// `500 µs`, `1 ms`, `10 ms`).

/// A count for an axis tick: `950`, `12k`, `1.5M`.
pub fn count_label(v: f64) -> String {
    let a = v.abs();
    if a >= 1e6 {
        format!("{:.1}M", v / 1e6)
    } else if a >= 1e4 {
        format!("{:.0}k", v / 1e3)
    } else if a >= 10.0 || v == 0.0 {
        format!("{v:.0}")
    } else {
        // `2`, `2.5`, `0.25`: not `2.00` beside `10` on one axis.
        plain_label(v)
    }
}

/// A count for a tick on an axis that runs to `top`: every tick in the unit of the top
/// (`0`, `2k`, `4k`, … `12k`, not `8000` beside `10k`).
pub fn count_tick(v: f64, top: f64) -> String {
    if v == 0.0 {
        "0".into()
    } else if top >= 1e6 {
        format!("{}M", plain_label(v / 1e6))
    } else if top >= 1e4 {
        format!("{}k", plain_label(v / 1e3))
    } else {
        count_label(v)
    }
}

/// A number for a tick on a linear axis: at most two decimals, trailing zeros dropped.
pub fn plain_label(v: f64) -> String {
    let text = format!("{v:.2}");
    let text = text.trim_end_matches('0').trim_end_matches('.');
    if text == "-0" {
        "0".into()
    } else {
        text.to_string()
    }
}

/// The unit of a linear latency axis whose largest value is `max_us` microseconds, as
/// (microseconds per unit, its name): ms from 1000 µs up, as [`crate::units::format_latency_us`] switches, so a chart
/// never reads `1500 µs` where the next writes `1.5 ms`.
pub fn latency_unit(max_us: f64) -> (f64, &'static str) {
    if max_us >= 1e3 {
        (1e3, "ms")
    } else {
        (1.0, "µs")
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A steady chart of a skewed soak on a scaled drive had its title cut ("… ·
    /// sim:vertex2-60g,scale=8 · 6…"): a title too wide for the chart breaks onto a second
    /// line and keeps every word.
    #[test]
    fn a_long_title_breaks_and_keeps_its_end() {
        register_fonts();
        let title = "SNIA steady state — soak of OCZ Vertex 2 60GB (simulated SF-1200) · \
                     sim:vertex2-60g,scale=8 · 60.0 GB";
        let mut svg = String::new();
        {
            let root = SVGBackend::with_string(&mut svg, SIZE).into_drawing_area();
            header(&root, title, &["a subtitle".to_string()]).unwrap();
            root.present().unwrap();
        }
        let texts = super::super::svg_texts(&svg);
        assert!(!texts.iter().any(|t| t.contains('…')), "{texts:?}");
        assert!(texts.iter().any(|t| t.ends_with("60.0 GB")), "{texts:?}");
        assert!(
            texts.iter().any(|t| t.starts_with("SNIA steady state")),
            "{texts:?}"
        );
    }

    /// A run stopped 5.6 ms in (Ctrl-C in its first interval) has an axis in ms whose ticks
    /// read apart, not eleven "0"s.
    #[test]
    fn a_run_shorter_than_a_second_is_timed_in_ms() {
        let unit = time_unit(0.0056);
        assert_eq!(unit.name, "ms");
        let ticks: Vec<String> = (0..=5)
            .map(|i| plain_label(f64::from(i) * 0.001 / unit.seconds))
            .collect();
        assert_eq!(ticks, ["0", "1", "2", "3", "4", "5"]);
        assert_eq!(time_unit(30.0).name, "s");
    }

    /// HIR's distribution of ten phases drew ws5-burst1 and ws25-baseline both blue: every
    /// colour of the palette is its own, for as many series as a distribution chart holds.
    #[test]
    fn the_palette_has_a_colour_for_every_series_of_a_distribution() {
        use crate::analysis::latency::{MAX_PANELS, MAX_PHASES};
        let colours: Vec<RGBColor> = (0..MAX_PHASES * MAX_PANELS).map(palette).collect();
        for (i, a) in colours.iter().enumerate() {
            for b in &colours[..i] {
                let distance = (i32::from(a.0) - i32::from(b.0)).abs()
                    + (i32::from(a.1) - i32::from(b.1)).abs()
                    + (i32::from(a.2) - i32::from(b.2)).abs();
                assert!(distance > 60, "{a:?} too near {b:?}");
            }
        }
    }

    #[test]
    fn tick_labels_drop_float_noise() {
        assert_eq!(plain_label(0.6000000000000001), "0.6");
        assert_eq!(plain_label(1.6), "1.6");
        assert_eq!(plain_label(20.0), "20");
        assert_eq!(plain_label(0.25), "0.25");
        assert_eq!(count_label(12_400.0), "12k");
        assert_eq!(count_label(950.0), "950");
        assert_eq!(count_label(2.0), "2");
        assert_eq!(count_label(2.5), "2.5");
        assert_eq!(count_tick(8000.0, 14_000.0), "8k");
        assert_eq!(count_tick(2500.0, 14_000.0), "2.5k");
        assert_eq!(count_tick(0.0, 14_000.0), "0");
        assert_eq!(count_tick(6000.0, 7_400.0), "6000");
        assert_eq!(crate::units::format_latency_us(50.0), "50 µs");
        assert_eq!(crate::units::format_latency_us(100_000.0), "100 ms");
        assert_eq!(crate::units::format_latency_us(1500.0), "1.5 ms");
        assert_eq!(crate::units::format_latency_us(2_000_000.0), "2 s");
        assert_eq!(crate::units::format_latency_us(700.24), "700 µs");
        assert_eq!(crate::units::format_latency_us(45_100.0), "45.1 ms");
        assert_eq!(latency_unit(1500.0), (1e3, "ms"));
        assert_eq!(latency_unit(999.0), (1.0, "µs"));
    }
}
