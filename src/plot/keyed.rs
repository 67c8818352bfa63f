//! A named line as the multi-line charts draw it: recorded in the chart's data, stroked in its
//! colour, keyed in the legend.

use plotters::coord::CoordTranslate;
use plotters::prelude::*;

use super::drawn;

/// Draws `points` as a line in `color`, named `name` in the legend and in the chart's data
/// (`unit`: what its y values are in).
pub fn line<'a, DB, CT>(
    chart: &mut ChartContext<'a, DB, CT>,
    name: &str,
    unit: &str,
    points: &[(f64, f64)],
    color: RGBColor,
) -> anyhow::Result<()>
where
    DB: DrawingBackend + 'a,
    DB::ErrorType: 'static,
    CT: CoordTranslate<From = (f64, f64)>,
{
    drawn::series(name, unit, points);
    chart
        .draw_series(LineSeries::new(points.to_vec(), color.stroke_width(3)))?
        .label(name)
        .legend(move |(x, y)| PathElement::new(vec![(x, y), (x + 24, y)], color.stroke_width(4)));
    Ok(())
}
