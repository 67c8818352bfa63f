//! A chart file's provenance: the record's [`Provenance`] as a PNG's text chunks (the PNG
//! specification's keywords) and as an SVG's `<metadata>`, with the same keys in both.

use super::drawn::Drawn;
use crate::results::Provenance;

/// The build drawing the chart.
fn this_build() -> String {
    format!(
        "ssdfade {} (build {})",
        env!("CARGO_PKG_VERSION"),
        env!("SSDFADE_BUILD")
    )
}

/// The keyword/text pairs a chart carries, in the PNG specification's keywords: `Software`
/// (the build that recorded the data, and the one that drew the chart when another),
/// `Creation Time` (when the measurement started), `Source` (the drive) and `Description`
/// (the command line, when recorded).
pub fn fields(p: &Provenance) -> Vec<(&'static str, String)> {
    let drawn = this_build();
    let software = if drawn == p.recorded_by {
        drawn
    } else {
        format!("{}; drawn by {drawn}", p.recorded_by)
    };
    let mut fields = vec![
        ("Software", software),
        ("Creation Time", p.date.clone()),
        ("Source", p.drive.clone()),
    ];
    if let Some(line) = &p.command_line {
        fields.push(("Description", line.clone()));
    }
    fields
}

/// The `<metadata>` element of an SVG chart: one child per field, named by its keyword in
/// lower case with `-` for spaces (`<creation-time>`).
pub fn svg_metadata(p: &Provenance) -> String {
    let mut out = String::from("<metadata>");
    for (key, value) in fields(p) {
        let tag = key.to_lowercase().replace(' ', "-");
        out.push_str(&format!("<{tag}>{}</{tag}>", escape(&value)));
    }
    out.push_str("</metadata>");
    out
}

/// `svg` with its provenance, and what it drew when given (as JSON in `<ssdfade-chart>`), as
/// the first element inside `<svg …>`.
pub fn with_metadata(svg: &str, p: &Provenance, drawn: Option<&Drawn>) -> String {
    let Some(open) = svg
        .find("<svg")
        .and_then(|at| Some(at + svg[at..].find('>')? + 1))
    else {
        return svg.to_string();
    };
    let mut metadata = svg_metadata(p);
    if let Some(json) = drawn.and_then(|d| serde_json::to_string(d).ok()) {
        let at = metadata.len() - "</metadata>".len();
        metadata.insert_str(
            at,
            &format!("<ssdfade-chart>{}</ssdfade-chart>", escape(&json)),
        );
    }
    format!("{}{}{}", &svg[..open], metadata, &svg[open..])
}

/// Text made safe for XML.
fn escape(text: &str) -> String {
    text.replace('&', "&amp;")
        .replace('<', "&lt;")
        .replace('>', "&gt;")
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn metadata_goes_inside_the_svg_element_escaped() {
        let p = Provenance {
            recorded_by: "ssdfade 0.0.1".into(),
            date: "2026-12-01T00:00:00Z".into(),
            command_line: Some("ssdfade soak a<b".into()),
            drive: "sim:vertex2-60g".into(),
        };
        let svg = with_metadata("<svg width=\"1\"><rect/></svg>", &p, None);
        assert!(svg.starts_with("<svg width=\"1\"><metadata><software>ssdfade 0.0.1; drawn by"));
        assert!(svg.contains("<description>ssdfade soak a&lt;b</description></metadata><rect/>"));
    }
}
