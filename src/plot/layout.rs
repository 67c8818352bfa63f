//! Where a chart's annotations go: every label (a phase's or marker's name, a state's level, a
//! prediction, a point's value) measured in the bundled font, kept inside its plot, and moved
//! apart from the labels placed before it and from the dots it must not cover (measured
//! states); off marker lines too where there is room, else drawn over the line on its own white
//! box (a wide label between drive fills every 150 pixels). A label moved away from where it
//! wanted to be gets a thin leader line back to its point. One layout per plot area, used by
//! every chart that writes inside a plot.

use plotters::coord::Shift;
use plotters::prelude::*;
use plotters::style::text_anchor::{HPos, Pos, VPos};

use super::drawn::PixelBox;

/// Clear space kept around a label's text (its white box and a gap to the next).
const PAD: i32 = 4;

/// The box under a label drawn over data: mostly white, so the label reads over any series.
const LABEL_BOX: RGBAColor = RGBAColor(255, 255, 255, 0.85);

/// A label to place: its text and font, the point it belongs to, and the top-left corners of
/// its text it would like, best first (all in image pixels).
pub struct Note<'a> {
    pub text: String,
    pub font: TextStyle<'a>,
    pub point: (i32, i32),
    pub wanted: Vec<(i32, i32)>,
}

/// The labels placed so far in one plot area, and the marks they keep clear of.
pub struct Layout {
    bounds: PixelBox,
    /// Placed labels and dots: never covered.
    taken: Vec<PixelBox>,
    /// Marker lines: covered only when no clear spot is left.
    lines: Vec<PixelBox>,
}

impl Layout {
    /// An empty layout of the plot area `bounds`.
    pub fn new(bounds: PixelBox) -> Layout {
        Layout {
            bounds,
            taken: Vec::new(),
            lines: Vec::new(),
        }
    }

    /// Keeps every label placed from now on off `mark` (a state's dot).
    pub fn avoid(&mut self, mark: PixelBox) {
        self.taken.push(mark);
    }

    /// Keeps every label placed from now on off the marker line `line` where it can.
    pub fn avoid_line(&mut self, line: PixelBox) {
        self.lines.push(line);
    }

    /// Keeps every label placed from now on off the series drawn through `points` (image
    /// pixels) where it can: each segment as small boxes along it, so a label may sit in the
    /// corner a diagonal leaves free.
    pub fn avoid_path(&mut self, points: &[(i32, i32)]) {
        const STEP: i32 = 4;
        for pair in points.windows(2) {
            let ((x0, y0), (x1, y1)) = (pair[0], pair[1]);
            let steps = ((x1 - x0).abs().max((y1 - y0).abs()) / STEP).max(1);
            for i in 0..=steps {
                let x = x0 + (x1 - x0) * i / steps;
                let y = y0 + (y1 - y0) * i / steps;
                self.lines.push([x - 1, y - 1, x + 2, y + 2]);
            }
        }
    }

    /// The text box for a label of `size` (width, height): the first wanted corner that lies
    /// inside the plot and clear of everything placed and every line; else the nearest such
    /// spot around a wanted corner; else the same clear of everything but lines; else the
    /// first wanted corner kept inside the plot.
    pub fn place(&mut self, size: (i32, i32), wanted: &[(i32, i32)]) -> PixelBox {
        let (w, h) = size;
        let inside = |(x, y): (i32, i32)| {
            let [l, t, r, b] = self.bounds;
            (
                x.clamp(l + PAD, (r - PAD - w).max(l + PAD)),
                y.clamp(t + PAD, (b - PAD - h).max(t + PAD)),
            )
        };
        let clear = |(x, y): (i32, i32), of_lines: bool| {
            let padded = [x - PAD, y - PAD, x + w + PAD, y + h + PAD];
            let on_line = of_lines && self.lines.iter().any(|t| overlap(&padded, t));
            !on_line && !self.taken.iter().any(|t| overlap(&padded, t))
        };
        // Moves tried from a wanted corner, nearest first; a move sideways counts double, so
        // a label leaves its point's column only when its column is full.
        let (step_x, step_y) = (16, (h + 2 * PAD) / 2);
        let (reach_x, reach_y) = (
            (self.bounds[2] - self.bounds[0]) / step_x + 1,
            (self.bounds[3] - self.bounds[1]) / step_y.max(1) + 1,
        );
        let mut moves: Vec<(i32, i32)> = (-reach_y..=reach_y)
            .flat_map(|j| (-reach_x..=reach_x).map(move |i| (i * step_x, j * step_y)))
            .collect();
        moves.sort_by_key(|&(dx, dy)| (2 * dx).pow(2) + dy.pow(2));
        let search = |of_lines: bool| {
            moves.iter().find_map(|&(dx, dy)| {
                wanted
                    .iter()
                    .map(|&(x, y)| inside((x + dx, y + dy)))
                    .find(|&c| clear(c, of_lines))
            })
        };
        let spot = search(true)
            .or_else(|| search(false))
            .unwrap_or_else(|| inside(wanted.first().copied().unwrap_or_default()));
        let placed = [spot.0, spot.1, spot.0 + w, spot.1 + h];
        self.taken.push([
            placed[0] - PAD,
            placed[1] - PAD,
            placed[2] + PAD,
            placed[3] + PAD,
        ]);
        placed
    }

    /// Places `note` and draws it into `area` (whose pixels start at the image's
    /// `area.get_base_pixel()`): its white box, its text, and a leader line to its point when
    /// it had to move away from every corner it wanted.
    pub fn draw<DB: DrawingBackend>(
        &mut self,
        area: &DrawingArea<DB, Shift>,
        note: &Note,
    ) -> anyhow::Result<()>
    where
        DB::ErrorType: 'static,
    {
        let (w, h) = area
            .estimate_text_size(&note.text, &note.font)
            .map(|(w, h)| (w as i32, h as i32))
            .map_err(|e| anyhow::anyhow!("measuring the label {:?}: {e}", note.text))?;
        let [l, t, r, b] = self.place((w, h), &note.wanted);
        let base = area.get_base_pixel();
        let local = |(x, y): (i32, i32)| (x - base.0, y - base.1);
        let moved = !note.wanted.contains(&(l, t));
        if moved {
            let (px, py) = note.point;
            let to = (px.clamp(l, r), if py < t { t } else { b.min(py.max(t)) });
            let far = (to.0 - px).abs() + (to.1 - py).abs() > h;
            if far {
                area.draw(&PathElement::new(
                    vec![local((px, py)), local(to)],
                    ShapeStyle {
                        color: {
                            let c = note.font.color;
                            RGBAColor(c.rgb.0, c.rgb.1, c.rgb.2, c.alpha)
                        },
                        filled: false,
                        stroke_width: 1,
                    },
                ))?;
            }
        }
        area.draw(&Rectangle::new(
            [local((l - 3, t - 3)), local((r + 3, b + 3))],
            LABEL_BOX.filled(),
        ))?;
        area.draw(&Text::new(
            note.text.clone(),
            local((l, t)),
            note.font.pos(Pos::new(HPos::Left, VPos::Top)),
        ))?;
        Ok(())
    }
}

/// Whether two pixel boxes share any pixel.
pub fn overlap(a: &PixelBox, b: &PixelBox) -> bool {
    a[0] < b[2] && b[0] < a[2] && a[1] < b[3] && b[1] < a[3]
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_label_moves_off_one_placed_before_it_and_stays_inside() {
        let mut layout = Layout::new([0, 0, 400, 300]);
        let first = layout.place((100, 20), &[(10, 10)]);
        let second = layout.place((100, 20), &[(50, 10)]);
        assert!(!overlap(&first, &second), "{first:?} {second:?}");
        // Wanted past the right edge: pulled in.
        let edge = layout.place((100, 20), &[(390, 200)]);
        assert!(edge[2] <= 400 && edge[0] >= 0, "{edge:?}");
    }

    #[test]
    fn a_label_keeps_off_a_line_where_it_can_and_off_a_dot_always() {
        let mut layout = Layout::new([0, 0, 400, 300]);
        layout.avoid_line([99, 0, 101, 300]);
        let label = layout.place((60, 20), &[(80, 100)]);
        assert!(!overlap(&label, &[99, 0, 101, 300]), "{label:?}");
        // Lines every 50 pixels: a label 120 wide crosses one, but never the dot.
        let mut dense = Layout::new([0, 0, 400, 300]);
        for x in (50..400).step_by(50) {
            dense.avoid_line([x, 0, x + 2, 300]);
        }
        dense.avoid([140, 95, 152, 107]);
        let label = dense.place((120, 20), &[(100, 90)]);
        assert!(!overlap(&label, &[140, 95, 152, 107]), "{label:?}");
    }

    #[test]
    fn a_label_keeps_off_a_diagonal_series_but_may_sit_beside_it() {
        let mut layout = Layout::new([0, 0, 400, 300]);
        let path = [(0, 300), (200, 100), (400, 0)];
        layout.avoid_path(&path);
        // Wanted across the line: moved off every pixel of it.
        let label = layout.place((80, 20), &[(160, 110)]);
        let on_line = (0..=400).step_by(2).any(|x| {
            let y = if x <= 200 {
                300 - x
            } else {
                100 - (x - 200) / 2
            };
            label[0] <= x && x < label[2] && label[1] <= y && y < label[3]
        });
        assert!(!on_line, "{label:?}");
        // Under the line near where it wanted: a diagonal's bounding box is not all taken.
        assert!(
            (label[0] - 160).abs() + (label[1] - 110).abs() < 120,
            "{label:?}"
        );
    }
}
