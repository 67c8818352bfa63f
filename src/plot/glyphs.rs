//! Text on PNG charts drawn from glyphs rasterised once per process.
//!
//! plotters' `ab_glyph` text outlines and rasterises every character each time it is drawn: a
//! fifth of a short `measure` run's user-space instructions went to the labels of its three
//! charts (docs/performance-cpu.md). plotters places each glyph, rasterised at the origin, at a
//! whole-pixel offset, so the coverage of a character at a size is the same wherever it is
//! drawn: [`draw`] keeps it per face, size and character and places it as plotters does, so
//! the pixels come out the same (test `cached_text_draws_the_same_pixels_as_plotters`).

use std::cell::RefCell;
use std::collections::HashMap;
use std::rc::Rc;
use std::sync::OnceLock;

use ab_glyph::{Font, FontRef, ScaleFont};
use plotters::prelude::*;
use plotters::style::FontStyle;
use plotters_backend::text_anchor::{HPos, VPos};
use plotters_backend::{BackendColor, BackendCoord, BackendTextStyle, DrawingBackend};

/// One character's pixels at one size, as plotters' `ab_glyph` font draws it at the origin.
struct Glyph {
    /// Added to every pixel's row: half the size plus the top of the glyph's pixel bounds.
    y_shift: i32,
    /// Each covered pixel and its coverage.
    pixels: Vec<(i32, i32, f32)>,
}

/// The bundled faces, as plotters has them registered (`style::register_fonts`).
fn face(style: FontStyle) -> Option<&'static FontRef<'static>> {
    static REGULAR: OnceLock<FontRef<'static>> = OnceLock::new();
    static BOLD: OnceLock<FontRef<'static>> = OnceLock::new();
    let (cell, bytes) = match style {
        FontStyle::Normal => (&REGULAR, dejavu::sans::regular()),
        FontStyle::Bold => (&BOLD, dejavu::sans::bold()),
        _ => return None,
    };
    Some(cell.get_or_init(|| FontRef::try_from_slice(bytes).expect("the bundled font parses")))
}

/// Rasterised glyphs by (bold, size's bits, character); `None` for one with no outline.
type Glyphs = HashMap<(bool, u64, char), Option<Rc<Glyph>>>;

thread_local! {
    static GLYPHS: RefCell<Glyphs> = RefCell::new(HashMap::new());
}

/// The glyph of `c` in `font` at `size`, rasterised on first use.
fn glyph(font: &FontRef<'static>, bold: bool, size: f64, c: char) -> Option<Rc<Glyph>> {
    GLYPHS.with(|cache| {
        cache
            .borrow_mut()
            .entry((bold, size.to_bits(), c))
            .or_insert_with(|| {
                let scaled = font.as_scaled(size as f32);
                let outline = scaled.outline_glyph(scaled.scaled_glyph(c))?;
                let y_shift = ((size as f32) / 2.0 + outline.px_bounds().min.y) as i32;
                let mut pixels = Vec::new();
                outline.draw(|x, y, a| pixels.push((x as i32, y as i32, a)));
                Some(Rc::new(Glyph { y_shift, pixels }))
            })
            .clone()
    })
}

/// Draws `text` in `style` at `pos` on `backend` as plotters' default `draw_text` does, from
/// cached glyphs; `None` when the style is not one of the bundled faces (the caller then lets
/// plotters draw it).
pub fn draw<B: DrawingBackend, S: BackendTextStyle>(
    backend: &mut B,
    text: &str,
    style: &S,
    pos: BackendCoord,
) -> Option<Result<(), plotters_backend::DrawingErrorKind<B::ErrorType>>> {
    if style.family().as_str() != FontFamily::SansSerif.as_str() {
        return None;
    }
    let bold = matches!(style.style(), FontStyle::Bold);
    let font = face(style.style())?;
    let color = style.color();
    if color.alpha == 0.0 {
        return Some(Ok(()));
    }
    let ((min_x, min_y), (max_x, max_y)) = style.layout_box(text).ok()?;
    let (width, height) = (max_x - min_x, max_y - min_y);
    let dx = match style.anchor().h_pos {
        HPos::Left => 0,
        HPos::Right => -width,
        HPos::Center => -width / 2,
    };
    let dy = match style.anchor().v_pos {
        VPos::Top => 0,
        VPos::Center => -height / 2,
        VPos::Bottom => -height,
    };
    let trans = style.transform();
    let (w, h) = backend.get_size();
    let size = style.size();
    let scaled = font.as_scaled(size as f32);
    let mut x_shift = 0f32;
    let mut prev = None;
    for c in text.chars() {
        if let Some(pc) = prev {
            x_shift += scaled.kern(scaled.glyph_id(pc), scaled.glyph_id(c));
        }
        prev = Some(c);
        if let Some(g) = glyph(font, bold, size, c) {
            let gx = x_shift as i32;
            for &(x, y, a) in &g.pixels {
                let (x, y) = trans.transform(x + gx + dx - min_x, y + g.y_shift + dy - min_y);
                let (x, y) = (pos.0 + x, pos.1 + y);
                if x >= 0 && x < w as i32 && y >= 0 && y < h as i32 {
                    let mixed: BackendColor = color.mix(a as f64);
                    if let Err(e) = backend.draw_pixel((x, y), mixed) {
                        return Some(Err(e));
                    }
                }
            }
        }
        x_shift += scaled.h_advance(scaled.glyph_id(c));
    }
    Some(Ok(()))
}

#[cfg(test)]
mod tests {
    use super::*;
    use plotters::style::text_anchor::Pos;
    use plotters::style::FontTransform;

    #[test]
    fn cached_text_draws_the_same_pixels_as_plotters() {
        super::super::style::register_fonts();
        let size = (400u32, 300u32);
        let texts = [
            "Write IOPS",
            "p99.9 4.2 ms — µs",
            "AVAV Wa 0123456789 %",
            "  x  ",
        ];
        let anchors = [
            Pos::new(HPos::Left, VPos::Top),
            Pos::new(HPos::Center, VPos::Center),
            Pos::new(HPos::Right, VPos::Bottom),
        ];
        for (i, text) in texts.iter().enumerate() {
            for (style, px) in [
                (FontStyle::Normal, 13.0),
                (FontStyle::Bold, 32.0),
                (FontStyle::Normal, 17.5),
            ] {
                for (j, anchor) in anchors.iter().enumerate() {
                    for (k, trans) in [FontTransform::None, FontTransform::Rotate270]
                        .iter()
                        .enumerate()
                    {
                        let font = FontDesc::new(FontFamily::SansSerif, px, style)
                            .transform(trans.clone());
                        let ts = TextStyle::from(font)
                            .color(&RGBColor(200, 30, 90))
                            .pos(*anchor);
                        let pos = (30 + 90 * j as i32, 20 + 60 * i as i32);
                        let mut plain = vec![255u8; (size.0 * size.1 * 3) as usize];
                        let mut cached = plain.clone();
                        {
                            let mut b = BitMapBackend::with_buffer(&mut plain, size);
                            b.draw_text(text, &ts, pos).unwrap();
                        }
                        {
                            let mut b = BitMapBackend::with_buffer(&mut cached, size);
                            draw(&mut b, text, &ts, pos).unwrap().unwrap();
                        }
                        assert!(plain.iter().any(|&v| v != 255), "{text}: nothing drawn");
                        assert!(
                            plain == cached,
                            "{text} at {px} px, anchor {j}, transform {k}"
                        );
                    }
                }
            }
        }
    }
}
