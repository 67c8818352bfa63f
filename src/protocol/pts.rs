//! The SNIA PTS suite (`experiment pts`): its figures are each test's measurement window and
//! cells ([`crate::analysis::pts`]). Its tables, worded once for the terminal and the report: the
//! IOPS test's matrix (block size × R/W mix, IOPS), the throughput test's (block size × read or
//! write, MB/s) and the latency test's rows (mix and size: average, five-nines and maximum),
//! each under the line that says which rounds were measured and whether they were steady. Its
//! report follows SNIA's report format: the test settings beside the drive's header, then a page
//! per test; its chart is `pts.png` ([`crate::plot::pts::PtsChart`]). A test that is a kind of
//! its own (WSAT, HIR, XSR) is shown by that kind's protocol: its text, and its report summary
//! and tables as its page.

use super::Protocol;
use crate::analysis::pts::OPERATING_ART_US;
use crate::analysis::pts::{kind_part, mix_label, size_label, Demand, DemandPoint, TestFigures};
use crate::analysis::pts::{KindTest, PtsFigures, SuiteFigures, SuiteTest, NAME};
use crate::plot::pts::PtsChart;
use crate::plot::pts_points::PointsChart;
use crate::plot::{KindCharts, Place, ProtocolChart};
use crate::report::{add_chart, Block, Document};
use crate::results::settings::{PtsCell, PtsShows, Settings};
use crate::results::Experiment;
use crate::units::{format_count, format_latency_us};

/// `experiment pts`.
pub struct Pts;

impl Protocol for Pts {
    type Figures = SuiteFigures;

    fn names(&self) -> &'static [&'static str] {
        &[NAME]
    }

    fn figures(&self, exp: &Experiment) -> SuiteFigures {
        SuiteFigures::of(exp, super::figures)
    }

    fn text(&self, f: &SuiteFigures) -> String {
        summary_text(f)
    }

    fn lists_phases(&self) -> bool {
        true
    }

    fn charts(&self, exp: &Experiment) -> Vec<ProtocolChart> {
        let figures = PtsFigures::of(exp);
        let pages = test_charts(exp, &figures);
        let suite = PtsChart::of(exp, figures).map(|c| {
            ProtocolChart::new(
                NAME,
                "SNIA PTS: each test's measurement window against block size, one line per R/W mix (IOPS, MB/s, or average and five-nines latency)",
                Place::Charts,
                c,
            )
        });
        suite.into_iter().chain(pages).collect()
    }

    fn report_summary(
        &self,
        doc: &mut Document,
        _exp: &Experiment,
        f: &Self::Figures,
        _chart: Option<&ProtocolChart>,
    ) -> anyhow::Result<bool> {
        add_settings(doc, f);
        Ok(true)
    }

    fn report_tables(
        &self,
        doc: &mut Document,
        exp: &Experiment,
        f: &Self::Figures,
        charts: &KindCharts,
    ) -> anyhow::Result<()> {
        add_tests(doc, exp, f, charts)
    }
}

/// The file name (without extension) of the suite's test `test`'s chart: `pts-ecw`; a kind's
/// further charts, if it draws more than one, `pts-<test>-<its name>`.
fn chart_name(test: &str) -> String {
    format!("{NAME}-{test}")
}

/// Each test's own chart, placed on its page, in SNIA's order: a kind's (WSAT, HIR, XSR) as
/// that kind draws it on its phases, a points test's (ECW, DIRTH) demand intensity, demand
/// variation and histograms from `figures`.
fn test_charts(exp: &Experiment, figures: &PtsFigures) -> Vec<ProtocolChart> {
    let Settings::Pts(s) = &exp.record.settings else {
        return Vec::new();
    };
    let device = exp
        .phases
        .iter()
        .find_map(|p| p.run.as_ref())
        .map_or_else(String::new, |r| crate::results::device_name(&r.info));
    let mut charts = Vec::new();
    for t in &s.tests {
        let name = chart_name(&t.name);
        if t.settings.is_some() {
            let Some((kind, part)) =
                super::of(&t.name.as_str().into()).zip(kind_part(exp, &t.name))
            else {
                continue;
            };
            for (i, c) in kind.charts(&part).charts.into_iter().enumerate() {
                let file = match i {
                    0 => name.clone(),
                    _ => format!("{name}-{}", c.name()),
                };
                charts.push(c.moved(file, Place::Tables));
            }
        } else if let Some(f) = figures
            .test(&t.name)
            .filter(|f| f.shows == PtsShows::Points)
        {
            let title = format!("SNIA PTS {} — {device}", f.title);
            if let Some(c) = PointsChart::of(f, title, points_subtitle(f)) {
                charts.push(ProtocolChart::new(
                    name,
                    "Demand intensity: average response time against IOPS, a line per thread count, each point labelled by its queue depth, the maximum-IOPS and operating points ringed; demand variation: IOPS against thread count, a line per queue depth; the response-time histograms at the maximum-IOPS and operating points",
                    Place::Tables,
                    c,
                ));
            }
        }
    }
    charts
}

/// A points test's chart's subtitle: its window and how the operating point is chosen.
fn points_subtitle(f: &TestFigures) -> String {
    let window = match f.window {
        Some((first, last)) => format!(
            "rounds {first}-{last} of {}{}",
            f.rounds,
            if f.steady { ", steady" } else { ", NOT steady" }
        ),
        None => "no full round".into(),
    };
    format!(
        "{window} · {} thread count × queue depth points · operating point: most IOPS at an average response time of at most {}",
        f.cells.len(),
        format_latency_us(f.demand.as_ref().map_or(OPERATING_ART_US, |d| d.operating_art_us))
    )
}

/// The charts of the suite's test `test`, as [`test_charts`] names them.
fn page_charts<'a>(charts: &'a KindCharts, test: &str) -> impl Iterator<Item = &'a ProtocolChart> {
    let name = chart_name(test);
    charts
        .at(Place::Tables)
        .filter(move |c| c.name() == name || c.name().starts_with(&format!("{name}-")))
}

/// The protocol of a test that is a kind of its own.
fn kind_of(t: &KindTest) -> Option<&'static dyn super::Kind> {
    super::of(&t.name.as_str().into())
}

/// Each test's text in SNIA's order: a kind's as that kind gives it, under its title.
fn summary_text(f: &SuiteFigures) -> String {
    let mut out = String::new();
    for t in &f.tests {
        match t {
            SuiteTest::Matrix(t) => out.push_str(&matrix_text(t)),
            SuiteTest::Kind(k) => {
                out.push_str(&format!("  {}:\n", k.title));
                out.push_str(&kind_of(k).map_or_else(String::new, |p| p.text(&k.figures)));
            }
        }
    }
    out
}

/// A matrix test's window line and table, columns right-aligned to their widest cell.
fn matrix_text(t: &TestFigures) -> String {
    let mut out = String::new();
    {
        out.push_str(&crate::text::wrap(&window_line(t), 78, "  ", "    "));
        let (head, rows) = table(t);
        let widths: Vec<usize> = (0..head.len())
            .map(|i| {
                std::iter::once(&head[i])
                    .chain(rows.iter().map(|r| &r[i]))
                    .map(|s| s.chars().count())
                    .max()
                    .unwrap_or(0)
            })
            .collect();
        for row in std::iter::once(&head).chain(&rows) {
            let cells: Vec<String> = row
                .iter()
                .zip(&widths)
                .map(|(c, w)| format!("{c:>w$}"))
                .collect();
            out.push_str(&format!("    {}\n", cells.join(" ")));
        }
        if let Some(d) = &t.demand {
            out.push_str(&crate::text::wrap(&demand_line(d), 78, "    ", "      "));
        }
    }
    out
}

/// A test's table: its head and rows of text cells.
fn table(t: &TestFigures) -> (Vec<String>, Vec<Vec<String>>) {
    match t.shows {
        PtsShows::Iops | PtsShows::MbPerS => matrix(t),
        PtsShows::Points => points(t),
        // A kind of its own is never a matrix test's figures.
        PtsShows::Latency | PtsShows::Own => latency(t),
    }
}

/// A row per thread count × queue depth point: IOPS, MB/s and response times.
fn points(t: &TestFigures) -> (Vec<String>, Vec<Vec<String>>) {
    let head = [
        "TC", "QD", "OIO", "IOPS", "MB/s", "average", "p99.999", "maximum",
    ]
    .map(String::from)
    .to_vec();
    let rows = t
        .cells
        .iter()
        .filter_map(|c| Some((c, c.cell.oio?)))
        .map(|(c, p)| {
            vec![
                p.threads.to_string(),
                p.qd.to_string(),
                p.total().to_string(),
                format_count(c.iops),
                format!("{:.1}", c.mb_per_s),
                format_latency_us(c.avg_lat_us),
                c.p99999_lat_us.map_or("-".into(), format_latency_us),
                format_latency_us(c.max_lat_us),
            ]
        })
        .collect();
    (head, rows)
}

/// A points test's maximum and operating points, one sentence.
fn demand_line(d: &Demand) -> String {
    let at = |p: &DemandPoint| {
        format!(
            "TC {} QD {}: {} IOPS at {} average",
            p.oio.threads,
            p.oio.qd,
            format_count(p.iops),
            format_latency_us(p.avg_lat_us)
        )
    };
    format!(
        "Max IOPS at {}; operating point (most IOPS at an average of at most {}): {}",
        at(&d.max_iops),
        format_latency_us(d.operating_art_us),
        d.operating.as_ref().map_or("none".into(), at)
    )
}

/// The response-time histograms at the maximum and operating points: a row per bin with
/// I/Os, its share at each point.
fn histogram_table(d: &Demand) -> (Vec<String>, Vec<Vec<String>>) {
    let label = |p: &DemandPoint| format!("% at TC {} QD {}", p.oio.threads, p.oio.qd);
    let mut chosen = vec![&d.max_iops];
    chosen.extend(d.operating.as_ref().filter(|o| o.cell != d.max_iops.cell));
    let mut edges: Vec<(f64, f64)> = chosen
        .iter()
        .flat_map(|p| p.histogram.iter().map(|b| (b.lo_us, b.hi_us)))
        .collect();
    edges.sort_by(|a, b| a.0.total_cmp(&b.0));
    edges.dedup();
    let head = std::iter::once("response time".to_string())
        .chain(chosen.iter().map(|p| label(p)))
        .collect();
    let rows = edges
        .iter()
        .map(|&(lo, hi)| {
            let shares: Vec<f64> = chosen
                .iter()
                .map(|p| {
                    p.histogram
                        .iter()
                        .find(|b| b.lo_us == lo)
                        .map_or(0.0, |b| b.pct)
                })
                .collect();
            (lo, hi, shares)
        })
        .filter(|(_, _, shares)| shares.iter().any(|s| *s > 0.0))
        .map(|(lo, hi, shares)| {
            std::iter::once(format!(
                "{}–{}",
                format_latency_us(lo),
                format_latency_us(hi)
            ))
            .chain(shares.iter().map(|s| format!("{s:.2}")))
            .collect()
        })
        .collect();
    (head, rows)
}

/// Rows of block sizes, a column per mix: IOPS or MB/s.
fn matrix(t: &TestFigures) -> (Vec<String>, Vec<Vec<String>>) {
    let mixes = t.mixes();
    let (unit, value): (&str, fn(f64, f64) -> String) = match t.shows {
        PtsShows::MbPerS => ("MB/s", |_, mb| format!("{mb:.0}")),
        _ => ("IOPS", |iops, _| format_count(iops)),
    };
    let head = std::iter::once(format!("{unit}: block size"))
        .chain(mixes.iter().map(|m| format!("R/W {}", mix_label(*m))))
        .collect();
    let rows = t
        .sizes()
        .iter()
        .map(|&bs| {
            std::iter::once(size_label(bs))
                .chain(mixes.iter().map(|&m| {
                    t.cell(m, bs)
                        .map_or("-".into(), |c| value(c.iops, c.mb_per_s))
                }))
                .collect()
        })
        .collect();
    (head, rows)
}

/// A row per mix and size: average, five-nines and maximum latency.
fn latency(t: &TestFigures) -> (Vec<String>, Vec<Vec<String>>) {
    let head = [
        "R/W mix",
        "block size",
        "average",
        "p99.999",
        "maximum",
        "IOPS",
    ]
    .map(String::from)
    .to_vec();
    let rows = t
        .cells
        .iter()
        .map(|c| {
            vec![
                mix_label(c.cell.read_pct),
                size_label(c.cell.bs),
                format_latency_us(c.avg_lat_us),
                c.p99999_lat_us.map_or("-".into(), format_latency_us),
                format_latency_us(c.max_lat_us),
                format_count(c.iops),
            ]
        })
        .collect();
    (head, rows)
}

/// A tracked cell as the window line names it: its mix and block size, or its mix and point.
fn cell_label(c: &PtsCell) -> String {
    match c.oio {
        Some(p) => format!("{} at TC {} QD {}", mix_label(c.read_pct), p.threads, p.qd),
        None => format!("{} {}", mix_label(c.read_pct), size_label(c.bs)),
    }
}

/// Which rounds the table averages and how the tracked cells judged them.
fn window_line(t: &TestFigures) -> String {
    let Some((first, last)) = t.window else {
        return format!("{}: no full round yet", t.title);
    };
    let judged: Vec<String> = t
        .tracked
        .iter()
        .map(|c| {
            format!(
                "{} {}: {} IOPS, range {:.1} %, slope {:.1} %",
                if c.cell.random {
                    "random"
                } else {
                    "sequential"
                },
                cell_label(&c.cell),
                format_count(c.avg),
                c.range_pct,
                c.slope_pct
            )
        })
        .collect();
    format!(
        "{}: rounds {first}-{last} of {} {} ({})",
        t.title,
        t.rounds,
        if t.steady {
            "are SNIA steady"
        } else {
            "are the last, NOT steady"
        },
        judged.join("; ")
    )
}

/// The test settings: the tests, the rounds and their length, each test's queue depth and the
/// cells its steady state is tracked on.
fn add_settings(doc: &mut Document, f: &SuiteFigures) {
    let mut rows = vec![
        vec![
            "Tests".into(),
            f.tests
                .iter()
                .map(|t| match t {
                    SuiteTest::Matrix(t) => t.title.clone(),
                    SuiteTest::Kind(k) => k.title.clone(),
                })
                .collect::<Vec<_>>()
                .join(", "),
        ],
        vec![
            "Rounds".into(),
            format!(
                "at most {} per test, each stopping at its first steady window; {} s per cell (the PTS: 1-minute rounds, at most 25)",
                f.rounds_planned, f.round_s
            ),
        ],
        vec![
            "Preconditioning".into(),
            "per test: purge, then sequential writes of twice the capacity (128 KiB; each throughput test at its own block size)".into(),
        ],
        vec![
            "Steady state".into(),
            "SNIA: five rounds, range ≤ 20 %, slope excursion ≤ 10 % of the average".into(),
        ],
    ];
    for t in &f.tests {
        let t = match t {
            SuiteTest::Matrix(t) => t,
            SuiteTest::Kind(k) => {
                rows.push(vec![
                    k.title.clone(),
                    format!(
                        "as `experiment {}`: its purge, preconditioning and rounds, SNIA's 4 KiB random writes",
                        k.name
                    ),
                ]);
                continue;
            }
        };
        let tracked: Vec<String> = t.tracked.iter().map(|c| cell_label(&c.cell)).collect();
        let load = match t.shows {
            PtsShows::Points => format!("{} thread count × queue depth points", t.cells.len()),
            _ => format!("QD {}", t.qd),
        };
        let settings = if tracked.is_empty() {
            "no full round yet".to_string()
        } else {
            format!("{load}; steady state tracked on {}", tracked.join(" and "))
        };
        rows.push(vec![t.title.clone(), settings]);
    }
    doc.heading("SNIA PTS test settings");
    doc.table(&["Setting", ""], rows);
}

/// Adds one section per test, its chart from `charts` under it; a kind's is its own report's
/// summary and tables.
fn add_tests(
    doc: &mut Document,
    exp: &Experiment,
    f: &SuiteFigures,
    charts: &KindCharts,
) -> anyhow::Result<()> {
    for t in &f.tests {
        let t = match t {
            SuiteTest::Matrix(t) => t,
            SuiteTest::Kind(k) => {
                doc.heading(format!("PTS {} test", k.title));
                // The kind's own sections, a level down: parts of this test's page, not
                // sections of the suite.
                let mut page = Document::default();
                if let (Some(p), Some(part)) = (kind_of(k), kind_part(exp, &k.name)) {
                    if let Err(e) = p.report_summary(&mut page, &part, &k.figures, None) {
                        page.paragraph(format!("{}: no summary ({e:#}).", k.title));
                    }
                    p.report_tables(&mut page, &part, &k.figures, &KindCharts::default())?;
                }
                doc.blocks
                    .extend(page.blocks.into_iter().map(Block::one_level_down));
                for c in page_charts(charts, &k.name) {
                    add_chart(doc, c)?;
                }
                continue;
            }
        };
        doc.heading(format!("PTS {} test", t.title));
        doc.paragraph(window_line(t));
        let (head, rows) = table(t);
        let head: Vec<&str> = head.iter().map(String::as_str).collect();
        doc.table(&head, rows);
        if let Some(d) = &t.demand {
            doc.paragraph(demand_line(d));
            let (head, rows) = histogram_table(d);
            let head: Vec<&str> = head.iter().map(String::as_str).collect();
            doc.table(&head, rows);
        }
        for c in page_charts(charts, &t.name) {
            add_chart(doc, c)?;
        }
    }
    Ok(())
}
