//! The PNG backend: plotters' bitmap backend with lines wider than one pixel drawn correctly.
//!
//! plotters turns a wide polyline into one polygon whose corners are mitre joins; at a sharp
//! turn (a spike, a bimodal series that alternates every interval) the joins shoot far past the
//! data and the even-odd fill of the self-crossing polygon paints values that do not exist
//! (p50 above p99.9, lines through the title). [`Pixels`] strokes a wide polyline instead as
//! the same one-pixel polyline drawn once per pixel of a round brush, so no pixel is ever
//! further from the data than half the line's width. Everything else is the bitmap backend's.
//!
//! [`save_png`] writes the drawn pixels: plotters' own saving (the `image` crate's PNG
//! encoder) tries all five row filters on every row, which was half of the user-space
//! instructions of a `measure` run of 16 384 writes (docs/performance-cpu.md).

use std::path::Path;

use plotters::prelude::*;
use plotters_backend::{
    BackendColor, BackendCoord, BackendStyle, BackendTextStyle, DrawingErrorKind,
};

/// The bitmap backend with wide polylines stroked by a round brush.
pub struct Pixels<'a>(pub BitMapBackend<'a>);

/// The pixel offsets of a round brush `width` pixels across.
fn brush(width: u32) -> Vec<(i32, i32)> {
    let w = width.max(1) as i32;
    let lo = -(w - 1) / 2;
    let centre = lo as f64 + (w - 1) as f64 / 2.0;
    let reach = (w as f64 / 2.0).powi(2) + 0.25;
    (lo..lo + w)
        .flat_map(|dx| (lo..lo + w).map(move |dy| (dx, dy)))
        .filter(|&(dx, dy)| (dx as f64 - centre).powi(2) + (dy as f64 - centre).powi(2) <= reach)
        .collect()
}

type Drawn = Result<(), DrawingErrorKind<<BitMapBackend<'static> as DrawingBackend>::ErrorType>>;

impl DrawingBackend for Pixels<'_> {
    type ErrorType = <BitMapBackend<'static> as DrawingBackend>::ErrorType;

    fn get_size(&self) -> (u32, u32) {
        self.0.get_size()
    }

    fn ensure_prepared(&mut self) -> Drawn {
        self.0.ensure_prepared()
    }

    fn present(&mut self) -> Drawn {
        self.0.present()
    }

    fn draw_pixel(&mut self, point: BackendCoord, color: BackendColor) -> Drawn {
        self.0.draw_pixel(point, color)
    }

    fn draw_line<S: BackendStyle>(
        &mut self,
        from: BackendCoord,
        to: BackendCoord,
        style: &S,
    ) -> Drawn {
        self.draw_path([from, to], style)
    }

    fn draw_rect<S: BackendStyle>(
        &mut self,
        upper_left: BackendCoord,
        bottom_right: BackendCoord,
        style: &S,
        fill: bool,
    ) -> Drawn {
        self.0.draw_rect(upper_left, bottom_right, style, fill)
    }

    fn draw_path<S: BackendStyle, I: IntoIterator<Item = BackendCoord>>(
        &mut self,
        path: I,
        style: &S,
    ) -> Drawn {
        let color = style.color();
        if style.stroke_width() <= 1 {
            return self.0.draw_path(path, &color);
        }
        let path: Vec<BackendCoord> = path.into_iter().collect();
        for (dx, dy) in brush(style.stroke_width()) {
            let shifted = path.iter().map(|&(x, y)| (x + dx, y + dy));
            if path.len() == 1 {
                self.0.draw_pixel((path[0].0 + dx, path[0].1 + dy), color)?;
            } else {
                self.0.draw_path(shifted, &color)?;
            }
        }
        Ok(())
    }

    fn draw_circle<S: BackendStyle>(
        &mut self,
        center: BackendCoord,
        radius: u32,
        style: &S,
        fill: bool,
    ) -> Drawn {
        self.0.draw_circle(center, radius, style, fill)
    }

    fn fill_polygon<S: BackendStyle, I: IntoIterator<Item = BackendCoord>>(
        &mut self,
        vert: I,
        style: &S,
    ) -> Drawn {
        self.0.fill_polygon(vert, style)
    }

    fn draw_text<TStyle: BackendTextStyle>(
        &mut self,
        text: &str,
        style: &TStyle,
        pos: BackendCoord,
    ) -> Drawn {
        match super::glyphs::draw(&mut self.0, text, style, pos) {
            Some(drawn) => drawn,
            None => self.0.draw_text(text, style, pos),
        }
    }

    fn estimate_text_size<TStyle: BackendTextStyle>(
        &self,
        text: &str,
        style: &TStyle,
    ) -> Result<(u32, u32), DrawingErrorKind<Self::ErrorType>> {
        self.0.estimate_text_size(text, style)
    }

    fn blit_bitmap(&mut self, pos: BackendCoord, size: (u32, u32), src: &[u8]) -> Drawn {
        self.0.blit_bitmap(pos, size, src)
    }
}

/// Writes `rgb`, 8-bit RGB pixels of `size` row by row, to `path` as a PNG: one row filter
/// (Sub, the left neighbour) for every row and fast deflate. Charts are flat colours and
/// antialiased lines, which that filter predicts as well as trying every filter per row does.
/// Each `(keyword, text)` of `text` is a text chunk: tEXt when the text is Latin-1, else iTXt
/// (UTF-8).
pub fn save_png(
    path: &Path,
    rgb: &[u8],
    size: (u32, u32),
    text: &[(&str, String)],
) -> anyhow::Result<()> {
    let mut bytes = Vec::new();
    let mut encoder = png::Encoder::new(&mut bytes, size.0, size.1);
    encoder.set_color(png::ColorType::Rgb);
    encoder.set_depth(png::BitDepth::Eight);
    encoder.set_compression(png::Compression::Fast);
    encoder.set_filter(png::FilterType::Sub);
    encoder.set_adaptive_filter(png::AdaptiveFilterType::NonAdaptive);
    for (keyword, value) in text {
        if value.chars().all(|c| u32::from(c) <= 0xff) {
            encoder.add_text_chunk(keyword.to_string(), value.clone())?;
        } else {
            encoder.add_itxt_chunk(keyword.to_string(), value.clone())?;
        }
    }
    let mut writer = encoder.write_header()?;
    writer.write_image_data(rgb)?;
    writer.finish()?;
    crate::outfile::write(path, crate::outfile::Kind::Png, &bytes)
}

#[cfg(test)]
mod tests {
    use super::{brush, save_png};

    #[test]
    fn a_saved_png_reads_back_as_the_same_pixels_and_text() {
        let size = (37, 11);
        let rgb: Vec<u8> = (0..size.0 * size.1 * 3)
            .map(|i| (i * 7 % 251) as u8)
            .collect();
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("chart.png");
        let text = [
            ("Software", "ssdfade".to_string()),
            ("Source", "OCZ Vertex 2 — 60 GB".to_string()),
        ];
        save_png(&path, &rgb, size, &text).unwrap();
        let decoder = png::Decoder::new(std::fs::File::open(&path).unwrap());
        let mut reader = decoder.read_info().unwrap();
        let info = reader.info();
        let latin1 = &info.uncompressed_latin1_text;
        assert_eq!(
            (latin1[0].keyword.as_str(), latin1[0].text.as_str()),
            ("Software", "ssdfade")
        );
        let utf8 = &info.utf8_text[0];
        assert_eq!(utf8.keyword, "Source");
        assert_eq!(utf8.get_text().unwrap(), "OCZ Vertex 2 — 60 GB");
        let mut back = vec![0; reader.output_buffer_size()];
        let info = reader.next_frame(&mut back).unwrap();
        assert_eq!((info.width, info.height), size);
        assert_eq!(info.color_type, png::ColorType::Rgb);
        assert_eq!(&back[..info.buffer_size()], &rgb[..]);
    }

    #[test]
    fn brushes_are_as_wide_as_the_line() {
        assert_eq!(brush(1), vec![(0, 0)]);
        assert_eq!(brush(2).len(), 4);
        for width in 2..=6 {
            let b = brush(width);
            let span = |f: fn(&(i32, i32)) -> i32| {
                b.iter().map(f).max().unwrap() - b.iter().map(f).min().unwrap() + 1
            };
            assert_eq!(span(|p| p.0), width as i32);
            assert_eq!(span(|p| p.1), width as i32);
        }
    }
}
