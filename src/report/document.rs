//! A report as a list of blocks (headings, paragraphs, tables, charts, code), written out once
//! as Markdown (also what the terminal shows) and once as a self-contained HTML page: styles
//! inline, charts as inline SVG, nothing fetched from anywhere.

use std::fmt::Write;

use crate::results::Provenance;

/// One block of a report.
#[derive(Clone, Debug)]
pub enum Block {
    Heading(u8, String),
    Paragraph(String),
    /// A table: header cells and rows; columns of numbers are right-aligned, others left.
    Table(Vec<String>, Vec<Vec<String>>),
    /// A chart: its caption, the PNG file beside report.md, and its SVG text for the HTML.
    Chart {
        caption: String,
        png: String,
        svg: String,
    },
    /// A command or other literal text.
    Code(String),
}

impl Block {
    /// The block as part of a section: a heading one level lower, anything else as it is.
    pub fn one_level_down(self) -> Block {
        match self {
            Block::Heading(level, text) => Block::Heading(level + 1, text),
            other => other,
        }
    }
}

/// A whole report.
#[derive(Clone, Debug, Default)]
pub struct Document {
    pub title: String,
    pub blocks: Vec<Block>,
    /// Where the figures come from: the end of the Markdown, the page's footer and every
    /// inline chart's metadata.
    pub provenance: Option<Provenance>,
}

impl Document {
    /// A document with `title` as its first heading.
    pub fn new(title: impl Into<String>) -> Document {
        Document {
            title: title.into(),
            blocks: Vec::new(),
            provenance: None,
        }
    }

    /// The provenance as the lines that end the report: the drive, the command line, when
    /// and by which build it was recorded; a field of several lines (one per run compared)
    /// gives a line each.
    fn provenance_lines(&self) -> Vec<String> {
        let Some(p) = &self.provenance else {
            return Vec::new();
        };
        [
            ("Drive", Some(&p.drive)),
            ("Command", p.command_line.as_ref()),
            ("Recorded", Some(&p.date)),
            ("Recorded by", Some(&p.recorded_by)),
        ]
        .into_iter()
        .filter_map(|(name, value)| Some((name, value?)))
        .flat_map(|(name, value)| value.lines().map(move |line| format!("{name}: {line}")))
        .collect()
    }

    pub fn heading(&mut self, text: impl Into<String>) {
        self.blocks.push(Block::Heading(2, text.into()));
    }

    pub fn paragraph(&mut self, text: impl Into<String>) {
        self.blocks.push(Block::Paragraph(text.into()));
    }

    pub fn table(&mut self, head: &[&str], rows: Vec<Vec<String>>) {
        self.blocks.push(Block::Table(
            head.iter().map(|s| s.to_string()).collect(),
            rows,
        ));
    }

    /// The document as Markdown, tables padded so they also read well in a terminal.
    pub fn markdown(&self) -> String {
        let mut out = format!("# {}\n", self.title);
        for block in &self.blocks {
            out.push('\n');
            match block {
                Block::Heading(level, text) => {
                    let _ = writeln!(out, "{} {text}", "#".repeat(*level as usize));
                }
                Block::Paragraph(text) => {
                    let _ = writeln!(out, "{text}");
                }
                Block::Table(head, rows) => out.push_str(&markdown_table(head, rows)),
                Block::Chart { caption, png, .. } => {
                    let _ = writeln!(out, "![{caption}]({png})");
                }
                Block::Code(text) => {
                    let _ = writeln!(out, "```\n{text}\n```");
                }
            }
        }
        let provenance = self.provenance_lines();
        if !provenance.is_empty() {
            out.push_str("\n---\n\n");
            for line in provenance {
                let _ = writeln!(out, "- {line}");
            }
        }
        out
    }

    /// The document for an 80-column terminal: the Markdown of [`Document::markdown`] with
    /// headings and paragraphs wrapped at 80 columns (a list item's later lines under its
    /// text), a table wider than that split into tables of fewer columns, each repeating the
    /// first, and cells still too wide wrapped onto more lines of their row, and a long line
    /// of code (a command) continued with ` \\` on the next line.
    pub fn terminal(&self) -> String {
        const WIDTH: usize = 80;
        let mut out = wrap(&format!("# {}", self.title), WIDTH);
        for block in &self.blocks {
            out.push('\n');
            match block {
                Block::Heading(level, text) => {
                    let head = format!("{} {text}", "#".repeat(*level as usize));
                    out.push_str(&wrap(&head, WIDTH));
                }
                Block::Paragraph(text) => {
                    for line in text.lines() {
                        out.push_str(&wrap_hanging(line, WIDTH));
                    }
                }
                Block::Table(head, rows) => {
                    for (i, part) in split_columns(head, rows, WIDTH).iter().enumerate() {
                        if i > 0 {
                            out.push('\n');
                        }
                        out.push_str(part);
                    }
                }
                Block::Chart { caption, png, .. } => {
                    out.push_str(&wrap(&format!("{png}: {caption}"), WIDTH));
                }
                Block::Code(text) => {
                    out.push_str("```\n");
                    for line in text.lines() {
                        out.push_str(&continue_code(line, WIDTH));
                    }
                    out.push_str("```\n");
                }
            }
        }
        let provenance = self.provenance_lines();
        if !provenance.is_empty() {
            out.push_str("\n---\n\n");
            for line in provenance {
                out.push_str(&wrap_hanging(&format!("- {line}"), WIDTH));
            }
        }
        out
    }

    /// The document as one HTML page that needs nothing outside itself: the summary first,
    /// then a table of contents (links within the page), tables that turn into one card per
    /// row on a narrow screen, charts that open to full size when clicked, and a footer with
    /// the date and the build that wrote it.
    pub fn html(&self) -> String {
        let mut out = String::new();
        let _ = write!(
            out,
            "<!DOCTYPE html>\n<html lang=\"en\">\n<head>\n<meta charset=\"utf-8\">\n\
             <meta name=\"viewport\" content=\"width=device-width, initial-scale=1\">\n\
             <title>{}</title>\n<style>{STYLE}{}</style>\n</head>\n<body>\n<h1>{}</h1>\n",
            escape(&self.title),
            super::font_face::css(),
            escape(&self.title)
        );
        let sections: Vec<&str> = self
            .blocks
            .iter()
            .filter_map(|block| match block {
                Block::Heading(2, text) => Some(text.as_str()),
                _ => None,
            })
            .collect();
        let mut section = 0;
        let metadata = self
            .provenance
            .as_ref()
            .map_or_else(String::new, crate::plot::svg_metadata);
        for (index, block) in self.blocks.iter().enumerate() {
            match block {
                Block::Heading(2, text) => {
                    // The contents go under the first section (the summary), before the second.
                    if section == 1 {
                        out.push_str(&contents(&sections));
                    }
                    section += 1;
                    let _ = writeln!(out, "<h2 id=\"s{section}\">{}</h2>", escape(text));
                }
                Block::Heading(level, text) => {
                    let _ = writeln!(out, "<h{level}>{}</h{level}>", escape(text));
                }
                Block::Paragraph(text) => {
                    let _ = writeln!(out, "<p>{}</p>", escape(text));
                }
                Block::Table(head, rows) => out.push_str(&html_table(head, rows)),
                Block::Chart { caption, svg, png } => {
                    // A click on the chart ticks the hidden box, which shows it at its full
                    // 1600 px inside a box that scrolls sideways; another click shrinks it.
                    let _ = writeln!(
                        out,
                        "<figure>\n<label class=\"zoom\" title=\"Click for full size\">\
                         <input type=\"checkbox\" aria-label=\"Full size\">{}</label>\n\
                         <figcaption>{}</figcaption>\n</figure>",
                        inline_svg(svg, &format!("chart-{index}"), caption, png, &metadata),
                        escape(caption)
                    );
                }
                Block::Code(text) => {
                    let _ = writeln!(out, "<pre><code>{}</code></pre>", escape(text));
                }
            }
        }
        out.push_str("<footer>\n");
        for line in self.provenance_lines() {
            let _ = writeln!(out, "<p>{}</p>", escape(&line));
        }
        let _ = writeln!(
            out,
            "<p>Generated {} by ssdfade {} (build {}).</p>\n</footer>",
            crate::results::utc_now(),
            env!("CARGO_PKG_VERSION"),
            env!("SSDFADE_BUILD")
        );
        out.push_str("</body>\n</html>\n");
        out
    }
}

/// The table of contents: a link to every section of the page (none for one section).
fn contents(sections: &[&str]) -> String {
    if sections.len() < 2 {
        return String::new();
    }
    let mut out =
        String::from("<nav class=\"toc\" aria-label=\"Contents\"><strong>Contents</strong><ol>");
    for (i, text) in sections.iter().enumerate() {
        let _ = write!(out, "<li><a href=\"#s{}\">{}</a></li>", i + 1, escape(text));
    }
    out.push_str("</ol></nav>\n");
    out
}

/// A table in HTML. One of more than three columns is marked `cards`: on a narrow screen
/// each row is drawn as a card of "column: value" lines (each cell carries its column's name
/// in `data-label`), so no column is cut off at 400 px. Narrow tables scroll sideways inside
/// their box if they must.
fn html_table(head: &[String], rows: &[Vec<String>]) -> String {
    let align = |i: usize| {
        if numeric_column(rows, i) {
            " class=\"n\""
        } else {
            ""
        }
    };
    let class = if head.len() > 3 {
        " class=\"cards\""
    } else {
        ""
    };
    let mut out = format!("<div class=\"scroll\"><table{class}>\n<thead><tr>");
    for (i, cell) in head.iter().enumerate() {
        let _ = write!(out, "<th{}>{}</th>", align(i), escape(cell));
    }
    out.push_str("</tr></thead>\n<tbody>\n");
    for row in rows {
        out.push_str("<tr>");
        for (i, cell) in row.iter().enumerate() {
            let label = head.get(i).map(String::as_str).unwrap_or("");
            let _ = write!(
                out,
                "<td{} data-label=\"{}\">{}</td>",
                align(i),
                escape(label),
                escape(cell)
            );
        }
        out.push_str("</tr>\n");
    }
    out.push_str("</tbody>\n</table></div>\n");
    out
}

const STYLE: &str = "body{font-family:sans-serif;max-width:1280px;margin:2em auto;padding:0 1em;\
color:#222;line-height:1.45}h1{font-size:1.6em}h2{font-size:1.25em;margin-top:1.6em;\
border-bottom:1px solid #ccc}table{border-collapse:collapse;margin:.6em 0}\
th,td{border:1px solid #ccc;padding:.25em .6em;text-align:left}\
.n{text-align:right;white-space:nowrap}th{background:#f0f0f0}\
figure{margin:1em 0;overflow-x:auto}\
svg{display:block;box-sizing:border-box;max-width:100%;height:auto;border:1px solid #ddd}\
.zoom{display:block;cursor:zoom-in}.zoom input{position:absolute;opacity:0;width:1px;height:1px}\
.zoom input:checked+svg{max-width:none;width:1600px;cursor:zoom-out}\
.zoom input:focus-visible+svg{outline:2px solid #0072b2}\
figcaption{color:#555;font-size:.9em}pre{background:#f6f6f6;padding:.6em;overflow-x:auto}\
.toc{background:#f7f7f7;border:1px solid #ddd;padding:.4em 1em;margin:1.2em 0;display:inline-block}\
.toc ol{margin:.3em 0;padding-left:1.4em}\
.scroll{overflow-x:auto;max-width:100%}footer{margin-top:2em;color:#666;font-size:.85em;overflow-wrap:anywhere}\
@media (max-width:600px){body{margin:1em auto;padding:0 .5em}th,td{padding:.2em .35em}\
.zoom svg{max-width:none;width:960px}figure::before{content:\"Scroll sideways · tap for full size\";\
display:block;color:#555;font-size:.85em}\
table.cards,.cards tbody,.cards tr,.cards td{display:block;width:auto}.cards thead{display:none}\
.cards tr{border:1px solid #ccc;margin:0 0 .6em}.cards td{border:0;border-top:1px solid #eee;\
text-align:left;white-space:normal}.cards td:first-child{font-weight:bold;background:#f0f0f0;\
border-top:0}.cards td:not(:first-child)::before{content:attr(data-label) \": \";color:#555}\
.cards td[data-label=\"\"]::before{content:none}}";

/// An SVG document ready to sit inside HTML: no XML namespace declaration (the HTML parser
/// knows `<svg>`), so the page holds no address at all; an image to assistive technology,
/// named by its `<title>` (the caption) and described by its `<desc>`, then `metadata` (the
/// provenance).
fn inline_svg(svg: &str, id: &str, caption: &str, png: &str, metadata: &str) -> String {
    let svg = svg.replacen(" xmlns=\"http://www.w3.org/2000/svg\"", "", 1);
    let Some(open) = svg
        .find("<svg")
        .and_then(|at| Some(at + svg[at..].find('>')?))
    else {
        return svg;
    };
    format!(
        "{} role=\"img\" aria-labelledby=\"{id}-title {id}-desc\"><title id=\"{id}-title\">{}</title><desc id=\"{id}-desc\">Chart drawn by ssdfade from the saved samples; also saved beside this report as {}.</desc>{metadata}{}",
        &svg[..open],
        escape(caption),
        escape(png),
        &svg[open + 1..]
    )
}

/// Text made safe for HTML.
pub fn escape(text: &str) -> String {
    let mut out = String::with_capacity(text.len());
    for c in text.chars() {
        match c {
            '&' => out.push_str("&amp;"),
            '<' => out.push_str("&lt;"),
            '>' => out.push_str("&gt;"),
            '"' => out.push_str("&quot;"),
            _ => out.push(c),
        }
    }
    out
}

/// True when every filled cell of column `i` (after the first) is a figure: it starts like a
/// number and is at most four words ("3716.5 µs (×0.13)"). A phrase that starts with one
/// ("1h25m00s – 1h30m00s, 2539 IOPS on average") or a name ("01-in-service") is text:
/// left-aligned, and free to wrap on a narrow screen.
fn numeric_column(rows: &[Vec<String>], i: usize) -> bool {
    i > 0
        && rows.iter().filter_map(|r| r.get(i)).all(|c| {
            let first = c.split_whitespace().next().unwrap_or("");
            c.starts_with(|ch: char| ch.is_ascii_digit() || "+−-—".contains(ch))
                && !first.chars().skip(1).any(|ch| ch == '-')
                && c.split_whitespace().count() <= 4
        })
}

/// `text` in lines of at most `width` columns (see [`crate::text::wrap`]); no text, one empty
/// line.
fn wrap(text: &str, width: usize) -> String {
    let lines = crate::text::wrap(text, width, "", "");
    if lines.is_empty() {
        "\n".to_string()
    } else {
        lines
    }
}

/// One line of a paragraph wrapped at `width`, its later lines indented under its text when
/// it is a list item ("- …") or indented.
fn wrap_hanging(line: &str, width: usize) -> String {
    let lead = line.len() - line.trim_start().len();
    let indent = lead
        + if line.trim_start().starts_with("- ") {
            2
        } else {
            0
        };
    match crate::text::wrap(line, width, &" ".repeat(lead), &" ".repeat(indent)) {
        empty if empty.is_empty() => "\n".to_string(),
        lines => lines,
    }
}

/// A line of code (a command) in lines of at most `width` columns, broken between words, each
/// broken line ending in ` \\` and the next indented four spaces, as a shell reads it back.
fn continue_code(line: &str, width: usize) -> String {
    if line.chars().count() <= width {
        return format!("{line}\n");
    }
    let mut out = String::new();
    let mut current = String::new();
    for word in line.split(' ') {
        let would = current.chars().count() + 1 + word.chars().count();
        if !current.trim().is_empty() && would + 2 > width {
            out.push_str(&current);
            out.push_str(" \\\n");
            current = "   ".to_string();
        }
        if !current.is_empty() {
            current.push(' ');
        }
        current.push_str(word);
    }
    out.push_str(&current);
    out.push('\n');
    out
}

/// A Markdown table as one or more tables no wider than `width`: the columns after the first
/// taken in order while they fit, each table repeating the first column; a table of two
/// columns still wider has its widest cells wrapped onto more lines of their row.
fn split_columns(head: &[String], rows: &[Vec<String>], width: usize) -> Vec<String> {
    let pick = |columns: &[usize]| {
        let pick = |cells: &[String]| -> Vec<String> {
            columns
                .iter()
                .map(|&i| cells.get(i).cloned().unwrap_or_default())
                .collect()
        };
        (pick(head), rows.iter().map(|r| pick(r)).collect::<Vec<_>>())
    };
    let fits = |columns: &[usize]| {
        let (head, rows) = pick(columns);
        let widths = column_widths(&head, &rows);
        widths.iter().map(|w| w + 3).sum::<usize>() < width
    };
    let table = |columns: &[usize]| {
        let (head, rows) = pick(columns);
        narrowed_table(&head, &rows, width)
    };
    let mut parts = Vec::new();
    let mut columns = vec![0];
    for i in 1..head.len() {
        columns.push(i);
        if columns.len() > 2 && !fits(&columns) {
            columns.pop();
            parts.push(table(&columns));
            columns = vec![0, i];
        }
    }
    parts.push(table(&columns));
    parts
}

/// The table of [`markdown_table`], its widest column narrowed (its cells wrapped between
/// words onto more lines of their row) until the table fits `width` or no column narrows
/// further.
fn narrowed_table(head: &[String], rows: &[Vec<String>], width: usize) -> String {
    let mut widths = column_widths(head, rows);
    let total = |w: &[usize]| w.iter().map(|w| w + 3).sum::<usize>() + 1;
    while total(&widths) > width {
        let Some((i, &widest)) = widths.iter().enumerate().max_by_key(|&(_, w)| *w) else {
            break;
        };
        let target = widest.saturating_sub(total(&widths) - width).max(12);
        let narrowed = std::iter::once(head)
            .chain(rows.iter().map(|r| r.as_slice()))
            .filter_map(|r| r.get(i))
            .flat_map(|c| {
                wrap(c, target)
                    .lines()
                    .map(|l| l.chars().count())
                    .collect::<Vec<_>>()
            })
            .max()
            .unwrap_or(0)
            .max(3);
        if narrowed >= widest {
            break;
        }
        widths[i] = narrowed;
    }
    padded_table(head, rows, &widths)
}

/// Every column's width: its widest cell, at least 3 (a Markdown separator).
fn column_widths(head: &[String], rows: &[Vec<String>]) -> Vec<usize> {
    (0..head.len())
        .map(|i| {
            std::iter::once(head)
                .chain(rows.iter().map(|r| r.as_slice()))
                .filter_map(|r| r.get(i))
                .map(|c| c.chars().count())
                .max()
                .unwrap_or(0)
                .max(3)
        })
        .collect()
}

/// A Markdown table with its columns padded to a common width.
fn markdown_table(head: &[String], rows: &[Vec<String>]) -> String {
    padded_table(head, rows, &column_widths(head, rows))
}

/// A table with columns `widths` wide: a cell wider than its column is wrapped between words
/// onto more lines of its row (the other cells blank there), as only the terminal shows it.
fn padded_table(head: &[String], rows: &[Vec<String>], widths: &[usize]) -> String {
    let columns = head.len();
    let right: Vec<bool> = (0..columns).map(|i| numeric_column(rows, i)).collect();
    let one_line = |cells: &[String]| {
        let mut s = String::from("|");
        for (i, w) in widths.iter().enumerate() {
            let cell = cells.get(i).map_or("", |c| c.as_str());
            let pad = w.saturating_sub(cell.chars().count());
            if right[i] {
                let _ = write!(s, " {}{cell} |", " ".repeat(pad));
            } else {
                let _ = write!(s, " {cell}{} |", " ".repeat(pad));
            }
        }
        s.push('\n');
        s
    };
    let line = |cells: &[String]| {
        let wrapped: Vec<Vec<String>> = (0..columns)
            .map(|i| {
                let cell = cells.get(i).map_or("", |c| c.as_str());
                if cell.chars().count() <= widths[i] {
                    vec![cell.to_string()]
                } else {
                    wrap(cell, widths[i]).lines().map(String::from).collect()
                }
            })
            .collect();
        let height = wrapped.iter().map(Vec::len).max().unwrap_or(1);
        (0..height)
            .map(|k| {
                let cells: Vec<String> = wrapped
                    .iter()
                    .map(|c| c.get(k).cloned().unwrap_or_default())
                    .collect();
                one_line(&cells)
            })
            .collect::<String>()
    };
    let mut out = line(head);
    out.push('|');
    for (i, w) in widths.iter().enumerate() {
        if right[i] {
            let _ = write!(out, " {}: |", "-".repeat(w - 1));
        } else {
            let _ = write!(out, " {} |", "-".repeat(*w));
        }
    }
    out.push('\n');
    for row in rows {
        out.push_str(&line(row));
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    /// report.html at 400 px cut the results table (eight columns) at its fifth: a table of
    /// more than three columns is marked to turn into one card per row on a narrow screen,
    /// every cell named by its column; the page has a table of contents after the summary,
    /// charts that open to full size on a click, and the build in its footer.
    #[test]
    fn the_html_page_has_contents_cards_zoomable_charts_and_its_build() {
        let mut doc = Document::new("report");
        doc.heading("Summary");
        doc.table(
            &["Headline", ""],
            vec![vec!["fresh".into(), "6115 IOPS".into()]],
        );
        doc.heading("Results");
        let head = [
            "Part", "Time", "IOPS", "MB/s", "Avg lat", "p99 lat", "Max lat", "% of ref",
        ];
        let row: Vec<String> = [
            "soak",
            "8h00m00s",
            "1712",
            "7.01",
            "74.78 ms",
            "237.24 ms",
            "444.83 ms",
            "28 %",
        ]
        .map(String::from)
        .to_vec();
        doc.table(&head, vec![row.clone()]);
        doc.blocks.push(Block::Chart {
            caption: "IOPS".into(),
            png: "fade.png".into(),
            svg: "<svg width=\"1600\" height=\"900\"></svg>".into(),
        });
        let html = doc.html();
        let toc = html
            .find("<nav class=\"toc\"")
            .expect("no table of contents");
        assert!(html.find("id=\"s1\">Summary").unwrap() < toc, "{html}");
        assert!(toc < html.find("id=\"s2\">Results").unwrap(), "{html}");
        assert!(html.contains("<a href=\"#s1\">Summary</a>"), "{html}");
        assert!(html.contains("<a href=\"#s2\">Results</a>"), "{html}");
        assert_eq!(html.matches("<table class=\"cards\">").count(), 1, "{html}");
        assert_eq!(
            html.matches("<table>").count(),
            1,
            "the 2-column table is no card"
        );
        for (label, cell) in head.iter().zip(&row) {
            let td = format!("data-label=\"{}\">{}</td>", escape(label), escape(cell));
            assert!(html.contains(&td), "{td} missing from {html}");
        }
        assert!(STYLE.contains("@media (max-width:600px)") && STYLE.contains("table.cards"));
        assert!(
            html.contains(
                "<label class=\"zoom\" title=\"Click for full size\"><input type=\"checkbox\""
            ),
            "{html}"
        );
        assert!(STYLE.contains(".zoom input:checked+svg{max-width:none;width:1600px"));
        // The border inside the chart's box (it spilled 2 px past it); on a phone the chart at
        // 960 px in a box that scrolls sideways (text about 11 px, not 4); chart text in the
        // embedded face its boxes were measured with.
        assert!(STYLE.contains("svg{display:block;box-sizing:border-box;max-width:100%"));
        assert!(STYLE.contains("@media (max-width:600px){body{margin:1em auto;padding:0 .5em}th,td{padding:.2em .35em}.zoom svg{max-width:none;width:960px}"));
        assert!(
            html.contains("@font-face{font-family:\"ssdfade DejaVu Sans\""),
            "no font"
        );
        assert!(
            html.contains(&format!("(build {})", env!("SSDFADE_BUILD"))),
            "{html}"
        );
    }

    /// `compare` of three runs printed lines of 81 to 297 columns: the terminal text keeps
    /// every line within 80 and every cell of the table.
    #[test]
    fn the_terminal_text_fits_80_columns_and_keeps_every_cell() {
        let mut doc = Document::new("compare");
        doc.paragraph("word ".repeat(60));
        let head = ["Figure", "soak1h", "soak-dc", "skew", "fourth"];
        let row: Vec<String> = [
            "IOPS, first window (median)",
            "7815",
            "75000 (×9.60)",
            "8509 (×1.09)",
            "123456 (×15.80)",
        ]
        .map(String::from)
        .to_vec();
        doc.table(&head, vec![row.clone(); 3]);
        let text = doc.terminal();
        assert!(text.lines().all(|l| l.chars().count() <= 80), "{text}");
        assert!(doc.markdown().lines().any(|l| l.chars().count() > 80));
        for cell in head.iter().map(|s| s.to_string()).chain(row) {
            assert!(text.contains(&cell), "{cell} missing from\n{text}");
        }
        assert_eq!(text.matches("word").count(), 60);
    }

    /// `ssdfade report` printed report.md with lines of up to 190 columns (a two-column table
    /// of long phrases, list items, the Reproduce command): the terminal text fits 80 columns
    /// and holds every word of the Markdown, in order.
    #[test]
    fn the_terminal_report_fits_80_columns_with_every_word_of_report_md() {
        let mut doc = Document::new("ssdfade report: experiment wsat · OCZ Vertex 2 60GB (simulated SF-1200) on a long title");
        doc.heading("Summary");
        doc.table(
            &["SNIA PTS steady state", "Figure", "Limit", "Result"],
            vec![
                vec![
                    "Total host data written (TGBW)".into(),
                    "78.4 GB = 1.31 drive fills (1.14 of the flash) and some more words here"
                        .into(),
                    "—".into(),
                    "—".into(),
                ],
                vec![
                    "Range".into(),
                    "5.5 %".into(),
                    "≤ 20 %".into(),
                    "pass".into(),
                ],
            ],
        );
        doc.paragraph(format!(
            "- fresh: {}\n  - faded: {}",
            "word ".repeat(30),
            "other ".repeat(30)
        ));
        doc.blocks.push(Block::Code(format!(
            "ssdfade soak sim:vertex2-60g --align 512 --duration 8h --out {} --seed 5830117958156677894",
            "/a/long/path".repeat(4)
        )));
        let text = doc.terminal();
        let md = doc.markdown();
        assert!(md.lines().any(|l| l.chars().count() > 120), "{md}");
        let long: Vec<&str> = text.lines().filter(|l| l.chars().count() > 80).collect();
        assert!(long.is_empty(), "{long:?}\n{text}");
        // Every word of report.md and no other (a split table repeats its first column, so
        // the sets of words).
        let words = |t: &str| {
            t.split(|c: char| c.is_whitespace() || c == '|')
                .filter(|w| !w.is_empty() && *w != "\\")
                .filter(|w| !w.chars().all(|c| c == '-' || c == ':'))
                .map(String::from)
                .collect::<std::collections::BTreeSet<String>>()
        };
        assert_eq!(words(&text), words(&md));
        assert!(text.contains("  - faded: other"), "{text}");
        assert!(text.contains(" \\\n    "), "{text}");
    }

    #[test]
    fn tables_are_padded_and_escaped() {
        let mut doc = Document::new("T <1>");
        doc.table(
            &["Part", "IOPS"],
            vec![vec!["whole run".into(), "1236".into()]],
        );
        let md = doc.markdown();
        assert!(
            md.contains("| Part      | IOPS |\n| --------- | ---: |\n| whole run | 1236 |"),
            "{md}"
        );
        let html = doc.html();
        assert!(html.contains("<h1>T &lt;1&gt;</h1>"));
        assert!(html.contains(
            "<td data-label=\"Part\">whole run</td><td class=\"n\" data-label=\"IOPS\">1236</td>"
        ));
    }

    #[test]
    fn a_column_of_phrases_that_start_with_a_number_is_text() {
        let rows = vec![
            vec![
                "Window".into(),
                "1h25m00s – 1h30m00s, 2539 IOPS on average".into(),
            ],
            vec!["Range".into(), "1.0 %".into()],
        ];
        assert!(!numeric_column(&rows, 1));
        assert!(numeric_column(&rows[1..], 1));
        let names = vec![vec!["fresh".into(), "03-fresh".into()]];
        assert!(!numeric_column(&names, 1));
    }
}
