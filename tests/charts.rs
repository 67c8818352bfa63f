//! Charts drawn from plain data: valid PNG and SVG files of 1600×900 with something drawn in
//! the plot area and text drawn with the bundled font in the title area.

use std::path::Path;

use ssdfade::analysis::convergence::{Convergence, ConvergenceRound};
use ssdfade::plot::hir::{HirChart, HirPoint};
use ssdfade::plot::sweep::{SweepChart, SweepPoint};
use ssdfade::plot::wsat::{WsatChart, WsatRound};
use ssdfade::plot::{
    Bar, BarChart, Chart, CompareChart, CompareRun, ConvergenceChart, Event, FadeChart, FadePoint,
    Format, LatencyChart, LatencyPoint, Phase, Predicted, State, SteadyWindow, SIZE,
};
use ssdfade::results::Provenance;

/// The provenance the charts of these tests carry.
fn provenance() -> Provenance {
    Provenance {
        recorded_by: "ssdfade 0.1.0".into(),
        date: "2026-12-01T00:00:00Z".into(),
        command_line: Some("ssdfade soak sim:vertex2-60g".into()),
        drive: "sim:vertex2-60g".into(),
    }
}

/// An RGB picture read back from a PNG file.
struct Picture {
    width: u32,
    height: u32,
    rgb: Vec<u8>,
}

impl Picture {
    fn read(path: &Path) -> Picture {
        let decoder = png::Decoder::new(std::fs::File::open(path).expect("open png"));
        let mut reader = decoder.read_info().expect("a valid PNG header");
        let mut buf = vec![0; reader.output_buffer_size()];
        let info = reader.next_frame(&mut buf).expect("a valid PNG frame");
        assert_eq!(info.color_type, png::ColorType::Rgb, "plotters writes RGB");
        buf.truncate(info.buffer_size());
        Picture {
            width: info.width,
            height: info.height,
            rgb: buf,
        }
    }

    fn pixel(&self, x: u32, y: u32) -> (u8, u8, u8) {
        let i = 3 * (y * self.width + x) as usize;
        (self.rgb[i], self.rgb[i + 1], self.rgb[i + 2])
    }

    /// Pixels in the rectangle that `keep` accepts.
    fn count(
        &self,
        x: std::ops::Range<u32>,
        y: std::ops::Range<u32>,
        keep: impl Fn((u8, u8, u8)) -> bool,
    ) -> usize {
        y.flat_map(|yy| x.clone().map(move |xx| (xx, yy)))
            .filter(|&(xx, yy)| keep(self.pixel(xx, yy)))
            .count()
    }
}

fn not_white(p: (u8, u8, u8)) -> bool {
    p != (255, 255, 255)
}

fn dark(p: (u8, u8, u8)) -> bool {
    (p.0 as u32 + p.1 as u32 + p.2 as u32) < 200
}

/// Writes `chart` as PNG and SVG into a temporary directory and checks both; returns the PNG.
fn check(chart: &impl Chart, title: &str) -> Picture {
    let dir = tempfile::tempdir().unwrap();
    let png = dir.path().join("chart.png");
    chart.write(&png, Format::Png, &provenance()).unwrap();
    let picture = Picture::read(&png);
    assert_eq!((picture.width, picture.height), SIZE);
    // Glyphs of the title: the bundled font rendered dark pixels in the top band, centred.
    let glyphs = picture.count(400..1200, 8..48, dark);
    assert!(glyphs > 1500, "only {glyphs} dark pixels in the title area");
    // Something drawn in the plot area besides the white background.
    let ink = picture.count(150..1550, 150..850, not_white);
    assert!(ink > 20_000, "only {ink} drawn pixels in the plot area");

    let svg_path = dir.path().join("chart.svg");
    chart.write(&svg_path, Format::Svg, &provenance()).unwrap();
    let text = std::fs::read_to_string(&svg_path).unwrap();
    let doc = roxmltree::Document::parse(&text).expect("well-formed SVG");
    let root = doc.root_element();
    assert_eq!(root.tag_name().name(), "svg");
    assert_eq!(root.attribute("width"), Some("1600"));
    assert_eq!(root.attribute("height"), Some("900"));
    let texts: Vec<String> = doc
        .descendants()
        .filter(|n| n.has_tag_name("text"))
        .filter_map(|n| n.text().map(|t| t.trim().to_string()))
        .collect();
    assert!(
        texts.iter().any(|t| t == title),
        "title missing from {texts:?}"
    );
    assert!(
        doc.descendants().any(|n| n.has_tag_name("polyline")),
        "no line drawn in the SVG"
    );
    // The file is the inline SVG with the provenance and the chart's record of what it drew
    // as its first element.
    let record = text
        .split_once("<ssdfade-chart>")
        .and_then(|(_, rest)| rest.split_once("</ssdfade-chart>"))
        .expect("the file carries what it drew")
        .0;
    let text = text.replacen(&format!("<ssdfade-chart>{record}</ssdfade-chart>"), "", 1);
    let metadata = ssdfade::plot::svg_metadata(&provenance());
    assert_eq!(
        chart.svg().unwrap(),
        text.replacen(&metadata, "", 1),
        "inline SVG equals the file but for its metadata"
    );
    assert!(text.contains(&metadata), "the file carries its provenance");
    picture
}

fn fade_points(n: usize) -> Vec<FadePoint> {
    (0..n)
        .map(|i| FadePoint {
            t_s: (i + 1) as f64 * 10.0,
            iops: if i < 100 {
                6000.0 - 50.0 * i as f64
            } else {
                910.0 + (i % 7) as f64 * 20.0
            },
            bytes_written: (i as u64 + 1) * 400_000_000,
        })
        .collect()
}

#[test]
fn fade_chart_draws_phases_events_states_and_steady_window() {
    let chart = FadeChart {
        title: "Fade — test drive".into(),
        subtitle: "4 KiB random writes, QD32".into(),
        interval_s: 10.0,
        points: fade_points(600),
        drive_bytes: Some(60_000_000_000),
        phases: vec![Phase {
            name: "soak".into(),
            start_s: 0.0,
            end_s: 4000.0,
        }],
        events: vec![Event {
            label: "TRIM".into(),
            t_s: 4000.0,
        }],
        states: vec![
            State {
                name: "fresh".into(),
                iops: 6000.0,
                start_s: 0.0,
                end_s: 10.0,
                pct_of_ref: None,
            },
            State {
                name: "faded".into(),
                iops: 910.0,
                start_s: 3000.0,
                end_s: 4000.0,
                pct_of_ref: Some(15.2),
            },
        ],
        steady: vec![SteadyWindow {
            start_s: 4500.0,
            end_s: 5500.0,
            iops: 960.0,
            did_not_hold: None,
        }],
        prediction: None,
        mb_per_s: false,
    };
    let picture = check(&chart, "Fade — test drive");
    // The erase marker is a purple vertical line (never a percentile's red or orange); the
    // steady window a light violet band, named in the legend.
    let purple = picture.count(0..1600, 100..900, |p| {
        p.0 > 120 && p.1 < 90 && p.2 > 90 && p.2 > p.1 + 40
    });
    assert!(
        purple > 200,
        "erase marker missing ({purple} purple pixels)"
    );
    let violet = picture.count(0..1600, 100..900, |p| {
        p.0 > p.1 && p.2 > p.1 + 12 && p.1 > 150
    });
    assert!(
        violet > 2000,
        "steady-state band missing ({violet} violet pixels)"
    );
    assert!(chart
        .svg()
        .unwrap()
        .contains("SNIA steady window 960 IOPS, held"));
}

#[test]
fn fade_chart_draws_the_prediction_dashed_from_where_it_was_made() {
    let plain = FadeChart {
        title: "Fade — predicted".into(),
        interval_s: 10.0,
        points: fade_points(600),
        drive_bytes: Some(60_000_000_000),
        ..Default::default()
    };
    let predicted = FadeChart {
        prediction: Some(Predicted {
            iops: 3000.0,
            low: 2500.0,
            high: 3500.0,
            from_s: 3000.0,
            basis: ssdfade::results::Basis::Settled,
        }),
        ..plain.clone()
    };
    // Black dashes, on both panels, only after the prediction was made (the right half:
    // 3000 s of 6000 s), far above the data (about 1000 IOPS).
    let black = |p: (u8, u8, u8)| (p.0 as u32 + p.1 as u32 + p.2 as u32) < 60;
    let (before, after) = (
        check(&plain, "Fade — predicted"),
        check(&predicted, "Fade — predicted"),
    );
    let right = |pic: &Picture| pic.count(950..1500, 100..880, black);
    let left = |pic: &Picture| pic.count(200..700, 100..880, black);
    assert!(
        right(&after) > right(&before) + 1000,
        "no dashed prediction: {} black pixels against {}",
        right(&after),
        right(&before)
    );
    assert_eq!(left(&after), left(&before), "drawn before it was made");
    let svg = predicted.svg().unwrap();
    assert!(svg.contains("predicted 3000 (2500–3500)"), "label missing");
}

#[test]
fn latency_chart_draws_on_a_log_axis() {
    let chart = LatencyChart {
        title: "Latency — test drive".into(),
        subtitle: "QD32".into(),
        points: (0..500)
            .map(|i| LatencyPoint {
                t_s: i as f64,
                p50_us: 80.0 + i as f64,
                p99_us: 400.0 + i as f64,
                p999_us: 900.0 + 2.0 * i as f64,
                max_us: 20_000.0,
            })
            .collect(),
        phases: Vec::new(),
        events: Vec::new(),
    };
    check(&chart, "Latency — test drive");
}

#[test]
fn sweep_chart_draws_one_line_per_thread_count() {
    let mut points = Vec::new();
    for threads in [1, 2, 4] {
        for qd in [1, 2, 4, 8, 16, 32] {
            let iops = 10_000.0 * (threads * qd) as f64 / (1.0 + 0.05 * (threads * qd) as f64);
            points.push(SweepPoint {
                threads,
                qd,
                iops,
                avg_lat_us: 1e6 * (threads * qd) as f64 / iops,
            });
        }
    }
    let chart = SweepChart {
        title: "QD sweep — test drive".into(),
        subtitle: "4 KiB random reads".into(),
        points,
        marked: Vec::new(),
    };
    check(&chart, "QD sweep — test drive");
}

#[test]
fn wsat_chart_draws_rounds_against_time_and_data_written() {
    let chart = WsatChart {
        title: "WSAT — test drive".into(),
        subtitle: "4 KiB random writes, one-minute rounds".into(),
        rounds: (0..300)
            .map(|i| WsatRound {
                t_s: 60.0 * (i + 1) as f64,
                iops: 5000.0 / (1.0 + i as f64 / 30.0) + 800.0,
                bytes_written: (i + 1) * 2_000_000_000,
            })
            .collect(),
        steady: Some(SteadyWindow {
            start_s: 15_000.0,
            end_s: 18_000.0,
            iops: 1250.0,
            did_not_hold: Some((-30.0, 875.0)),
        }),
    };
    check(&chart, "WSAT — test drive");
}

#[test]
fn hir_chart_colours_each_wait_state() {
    let mut points = Vec::new();
    let mut t = 0.0;
    for wait in ["5 s wait", "10 s wait", "15 s wait"] {
        for round in 0..60 {
            t += 5.0;
            points.push(HirPoint {
                t_s: t,
                iops: if round % 6 == 0 { 7000.0 } else { 1200.0 },
                wait_state: wait.into(),
                idle_s: (round % 6 == 0).then_some(5.0 * (round / 6 + 1) as f64),
            });
        }
    }
    let chart = HirChart {
        title: "HIR — test drive".into(),
        subtitle: "IOPS vs time, all wait states".into(),
        points,
        baseline_iops: Some(1200.0),
    };
    check(&chart, "HIR — test drive");
}

#[test]
fn compare_chart_overlays_runs_of_different_lengths() {
    let chart = CompareChart {
        title: "Compare — two runs".into(),
        subtitle: vec!["a 1 h and an 8 h run".into()],
        runs: vec![
            CompareRun {
                label: "short".into(),
                points: (1..=360)
                    .map(|i| (i as f64 * 10.0, 5000.0 - i as f64))
                    .collect(),
                fresh_iops: Some(5000.0),
            },
            CompareRun {
                label: "long".into(),
                points: (1..=2880).map(|i| (i as f64 * 10.0, 3000.0)).collect(),
                fresh_iops: None,
            },
        ],
    };
    check(&chart, "Compare — two runs");
}

#[test]
fn bar_chart_draws_every_point_and_its_figure() {
    let bars: Vec<Bar> = (0..48)
        .map(|i| Bar {
            label: format!("{}k-rnd-write", 1 << (i / 4)),
            value: 50.0 * f64::from(i + 1),
            text: format!("{:.1} MB/s", 50.0 * f64::from(i + 1)),
            color: plotters::style::RGBColor(31, 119, (i * 5) as u8),
            reference: None,
        })
        .collect();
    let chart = BarChart {
        title: "Iometer's All-in-one set — test drive".into(),
        subtitle: "1.0s per point".into(),
        x_desc: "MB/s".into(),
        bars,
        legend: vec![("reads".into(), plotters::style::RGBColor(31, 119, 180))],
        bracket: None,
    };
    check(&chart, "Iometer's All-in-one set — test drive");
}

/// One stroked polyline of an SVG chart: its colour, width and points in pixels.
struct Stroke {
    color: (u8, u8, u8),
    width: f64,
    points: Vec<(f64, f64)>,
}

fn hex_color(text: &str) -> Option<(u8, u8, u8)> {
    let hex = text.strip_prefix('#')?;
    let byte = |i: usize| u8::from_str_radix(hex.get(i..i + 2)?, 16).ok();
    Some((byte(0)?, byte(2)?, byte(4)?))
}

/// The polylines of `svg` and the colours anything else (text, shapes) is drawn in.
fn strokes(svg: &str) -> (Vec<Stroke>, Vec<(u8, u8, u8)>) {
    let doc = roxmltree::Document::parse(svg).expect("well-formed SVG");
    let mut lines = Vec::new();
    let mut others = Vec::new();
    for node in doc.descendants().filter(|n| n.is_element()) {
        let color = ["stroke", "fill"]
            .iter()
            .filter_map(|a| node.attribute(*a).and_then(hex_color))
            .next();
        let Some(color) = color else { continue };
        if node.has_tag_name("polyline") {
            let points = node
                .attribute("points")
                .unwrap_or("")
                .split_whitespace()
                .map(|p| {
                    let (x, y) = p.split_once(',').expect("x,y");
                    (x.parse().unwrap(), y.parse().unwrap())
                })
                .collect();
            let width = node
                .attribute("stroke-width")
                .map_or(1.0, |w| w.parse().unwrap());
            lines.push(Stroke {
                color,
                width,
                points,
            });
        } else {
            others.push(color);
        }
    }
    (lines, others)
}

/// A segment's ends and how far from it a pixel of the line may lie.
type Segment = ((f64, f64), (f64, f64), f64);

fn distance_to_segment(p: (f64, f64), a: (f64, f64), b: (f64, f64)) -> f64 {
    let (dx, dy) = (b.0 - a.0, b.1 - a.1);
    let len2 = dx * dx + dy * dy;
    let t = if len2 > 0.0 {
        (((p.0 - a.0) * dx + (p.1 - a.1) * dy) / len2).clamp(0.0, 1.0)
    } else {
        0.0
    };
    ((p.0 - a.0 - t * dx).powi(2) + (p.1 - a.1 - t * dy).powi(2)).sqrt()
}

/// SNIA's steady-state page: a fade to a plateau over 40 rounds, the window the last five
/// rounds, with its average, ±10 % and ±20 % and the fitted line; every wide line (the rounds,
/// the fitted line) on its data in the PNG.
#[test]
fn convergence_chart_draws_the_rounds_the_window_and_its_line() {
    let rounds: Vec<ConvergenceRound> = (0..40)
        .map(|i| ConvergenceRound {
            number: i + 3,
            start_s: 60.0 * (i + 2) as f64,
            end_s: 60.0 * (i + 3) as f64,
            iops: 900.0 + 5000.0 * 0.8f64.powi(i as i32) + (i % 2) as f64 * 30.0,
            tgbw_bytes: 2_000_000_000 * (i as u64 + 30),
        })
        .collect();
    let chart = ConvergenceChart {
        title: "Steady state — test drive".into(),
        subtitle: "steady at round 42".into(),
        convergence: Convergence {
            rounds,
            // The span's first pass, before the rounds count: drawn lighter, from TGBW 0.
            before: (0..2)
                .map(|i| ConvergenceRound {
                    number: i + 1,
                    start_s: 60.0 * i as f64,
                    end_s: 60.0 * (i + 1) as f64,
                    iops: 11_000.0,
                    tgbw_bytes: 30_000_000_000 * (i as u64 + 1),
                })
                .collect(),
            window: 35..40,
            reached: true,
            average: 915.0,
            slope_per_round: -3.0,
            range_pct: 3.3,
            slope_pct: 1.3,
            max_range_pct: 20.0,
            max_slope_pct: 10.0,
            did_not_hold: None,
        },
    };
    check(&chart, "Steady state — test drive");
    // The fitted line and its legend sample (the guides' greens and greys are shared with
    // text or are greys, which the check leaves out).
    let n = wide_lines_stay_on_their_data(&chart);
    assert!(n > 200, "{n}");
}

/// Draws `chart` as PNG and SVG and checks that every PNG pixel in the colour of a wide line
/// lies within half the line's width (plus a pixel of rasterising) of that line as the SVG
/// draws it: the SVG's points are the data's values, so a pixel further away draws a value the
/// data does not have. Returns how many pixels were checked.
fn wide_lines_stay_on_their_data(chart: &impl Chart) -> usize {
    let dir = tempfile::tempdir().unwrap();
    let png = dir.path().join("chart.png");
    chart.write(&png, Format::Png, &provenance()).unwrap();
    let picture = Picture::read(&png);
    let (lines, others) = strokes(&chart.svg().unwrap());
    let mut checked = 0;
    let wide: Vec<&Stroke> = lines.iter().filter(|l| l.width >= 2.0).collect();
    assert!(!wide.is_empty(), "the chart draws no wide line");
    for color in wide.iter().map(|l| l.color) {
        // Greys are also the antialiased edges of black text; a colour used by anything else
        // (text, markers) is not the line's alone.
        if others.contains(&color) || (color.0 == color.1 && color.1 == color.2) {
            continue;
        }
        // Segments of this colour by pixel column, for a quick nearest-segment search.
        let mut columns: Vec<Vec<Segment>> = vec![Vec::new(); picture.width as usize];
        for line in lines.iter().filter(|l| l.color == color) {
            let reach = line.width / 2.0 + 1.0;
            for pair in line.points.windows(2) {
                let (a, b) = (pair[0], pair[1]);
                let x0 = (a.0.min(b.0) - reach).floor().max(0.0) as usize;
                let x1 = ((a.0.max(b.0) + reach).ceil() as usize).min(picture.width as usize - 1);
                for column in &mut columns[x0..=x1] {
                    column.push((a, b, reach));
                }
            }
        }
        for y in 0..picture.height {
            for x in 0..picture.width {
                if picture.pixel(x, y) != color {
                    continue;
                }
                checked += 1;
                let p = (x as f64, y as f64);
                let near = columns[x as usize]
                    .iter()
                    .any(|&(a, b, reach)| distance_to_segment(p, a, b) <= reach);
                assert!(
                    near,
                    "a pixel of the line coloured {color:?} at ({x}, {y}) lies off the data"
                );
            }
        }
    }
    checked
}

#[test]
fn png_lines_never_draw_values_the_data_does_not_have() {
    // A bimodal p50 that alternates every interval (the pattern that made plotters' wide
    // lines shoot above p99.9 and through the title) under steady upper percentiles: 300
    // intervals, the most drawn one by one (more are drawn in buckets, each line over its
    // shade in its own colour, which this check cannot tell from the line).
    let latency = LatencyChart {
        title: "Latency — bimodal".into(),
        subtitle: "1 s intervals".into(),
        points: (0..300)
            .map(|i| LatencyPoint {
                t_s: i as f64,
                p50_us: if i % 2 == 0 { 25_000.0 } else { 115_000.0 },
                p99_us: 210_000.0 + (i % 3) as f64 * 40_000.0,
                p999_us: 330_000.0 + (i % 5) as f64 * 30_000.0,
                max_us: 600_000.0,
            })
            .collect(),
        phases: Vec::new(),
        events: Vec::new(),
    };
    let checked = wide_lines_stay_on_their_data(&latency);
    assert!(checked > 5000, "{checked} pixels checked");
    // A fade whose IOPS jump between two levels every interval, with its moving average.
    let fade = FadeChart {
        title: "Fade — jumpy".into(),
        subtitle: String::new(),
        interval_s: 1.0,
        points: (0..4000)
            .map(|i| FadePoint {
                t_s: (i + 1) as f64,
                iops: if (i / 3) % 2 == 0 { 6000.0 } else { 900.0 } + (i % 7) as f64 * 100.0,
                bytes_written: 0,
            })
            .collect(),
        ..Default::default()
    };
    assert!(wide_lines_stay_on_their_data(&fade) > 1000);
}

/// The y (or x) at which the SVG writes the text `label`: tick labels sit on their grid line.
fn text_position(svg: &str, label: &str) -> (f64, f64) {
    let doc = roxmltree::Document::parse(svg).expect("well-formed SVG");
    let node = doc
        .descendants()
        .find(|n| n.has_tag_name("text") && n.text().map(str::trim) == Some(label))
        .unwrap_or_else(|| panic!("no text {label:?} in the SVG"));
    let at = |a: &str| node.attribute(a).unwrap().parse::<f64>().unwrap();
    (at("x"), at("y"))
}

#[test]
fn distribution_chart_draws_the_histograms_shares_where_the_axes_say() {
    use ssdfade::analysis::latency::Distribution;
    use ssdfade::plot::{DistributionChart, DistributionSeries};
    // 980 I/Os at 100 µs, 19 at 10 ms and one at 50 ms: 2 % are slower than 100 µs, 0.1 %
    // slower than 10 ms.
    let mut total = ssdfade::stats::IntervalStats::new();
    total.write.record_n(980, 980 * 4096, 100_000);
    total.write.record_n(19, 19 * 4096, 10_000_000);
    total.write.record_n(1, 4096, 50_000_000);
    let record = ssdfade::results::LatencyRecord::of(&total);
    let d = Distribution::of(record.all.as_ref().unwrap()).unwrap();
    let series = DistributionSeries::of("writes", &d, 0);
    let color = (series.color.0, series.color.1, series.color.2);
    let chart = DistributionChart {
        title: "Latency distribution — crafted".into(),
        subtitle: String::new(),
        series: vec![series],
    };
    let picture = check(&chart, "Latency distribution — crafted");
    let n = wide_lines_stay_on_their_data(&chart);
    assert!(n > 500, "{n}");
    let svg = chart.svg().unwrap();
    let row = |label: &str| text_position(&svg, label).1;
    let column = |label: &str| text_position(&svg, label).0;
    // 100 % goes unnamed (it would overprint 50 %): one decade above 10 %.
    let (ten, one) = (row("10 % (p90)"), row("1 % (p99)"));
    let (top, low) = (ten - (one - ten), row("0.1 % (p99.9)"));
    // The exceedance curve (the lower panel, below the 100 % line) spans 100 % to 0.1 %
    // exactly: no pixel of it above or below the data's shares.
    let rows: Vec<u32> = (top as u32 - 20..picture.height)
        .filter(|&y| (0..picture.width).any(|x| picture.pixel(x, y) == color))
        .collect();
    let (first, last) = (rows[0] as f64, *rows.last().unwrap() as f64);
    assert!(
        (first - top).abs() <= 3.0,
        "curve starts at row {first}, 100 % is {top}"
    );
    assert!(
        (last - low).abs() <= 3.0,
        "curve ends at row {last}, 0.1 % is {low}"
    );
    // Between the 1 % and 0.1 % rows the curve drops at 10 ms (the 19 slow I/Os' bucket).
    let mid = ((row("1 % (p99)") + low) / 2.0) as u32;
    let xs: Vec<u32> = (0..picture.width)
        .filter(|&x| picture.pixel(x, mid) == color)
        .collect();
    let ten_ms = column("10 ms");
    assert!(
        !xs.is_empty() && xs.iter().all(|&x| (x as f64 - ten_ms).abs() <= 3.0),
        "the drop between 1 % and 0.1 % is at columns {xs:?}, 10 ms at {ten_ms}"
    );
}
