//! The look every chart shares: the bundled font, the picture size, text sizes, colours, the
//! title block and axis number formats.
//!
//! Text is drawn with DejaVu Sans from the `dejavu` crate, handed to plotters as bytes
//! (`ab_glyph`), so charts render on a machine with no system fonts and no fontconfig. SVG
//! output names the family `sans-serif`, which every viewer has.

use std::sync::Once;

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

/// Labels drawn inside the plot (phase names, events, levels) in `color`.
pub fn note_font(color: RGBColor) -> TextStyle<'static> {
    font(17.0, FontStyle::Bold).color(&color)
}

/// IOPS per interval.
pub const RAW: RGBColor = RGBColor(120, 160, 215);
/// Moving average.
pub const AVERAGE: RGBColor = RGBColor(10, 50, 140);
/// Measured states and their levels.
pub const STATE: RGBColor = RGBColor(205, 90, 0);
/// Erase events.
pub const EVENT: RGBColor = RGBColor(200, 20, 30);
/// The steady-state window.
pub const STEADY: RGBColor = RGBColor(0, 130, 60);
/// Drive-fill marks.
pub const FILL: RGBColor = RGBColor(110, 110, 110);

/// Distinct colours for one line per run, thread count or wait state (Tableau 10).
pub const PALETTE: [RGBColor; 10] = [
    RGBColor(31, 119, 180),
    RGBColor(255, 127, 14),
    RGBColor(44, 160, 44),
    RGBColor(214, 39, 40),
    RGBColor(148, 103, 189),
    RGBColor(140, 86, 75),
    RGBColor(227, 119, 194),
    RGBColor(127, 127, 127),
    RGBColor(188, 189, 34),
    RGBColor(23, 190, 207),
];

/// The `i`-th palette colour, wrapping around.
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
    let lines: Vec<&String> = lines.iter().filter(|l| !l.is_empty()).collect();
    let height = 58 + 28 * lines.len() as i32;
    let (head, body) = root.split_vertically(height);
    let centre = head.dim_in_pixel().0 as i32 / 2;
    let top = Pos::new(HPos::Center, VPos::Top);
    let room = head.dim_in_pixel().0 - 40;
    let title = fit(&head, title, &title_font(), room);
    head.draw(&Text::new(title, (centre, 12), title_font().pos(top)))?;
    for (i, line) in lines.iter().enumerate() {
        head.draw(&Text::new(
            fit(&head, line, &subtitle_font(), room),
            (centre, 54 + 28 * i as i32),
            subtitle_font().pos(top),
        ))?;
    }
    Ok(body)
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

/// Seconds up to 10 minutes, minutes up to 3 hours, hours beyond.
pub fn time_unit(span_s: f64) -> TimeUnit {
    if span_s <= 600.0 {
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
        format!("{v:.2}")
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

/// An IOPS figure in text: `6000`, `910`, `12.3`.
pub fn iops_text(v: f64) -> String {
    if v >= 100.0 {
        format!("{v:.0}")
    } else {
        format!("{v:.1}")
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn tick_labels_drop_float_noise() {
        assert_eq!(plain_label(0.6000000000000001), "0.6");
        assert_eq!(plain_label(1.6), "1.6");
        assert_eq!(plain_label(20.0), "20");
        assert_eq!(plain_label(0.25), "0.25");
        assert_eq!(count_label(12_400.0), "12k");
        assert_eq!(count_label(950.0), "950");
    }
}
