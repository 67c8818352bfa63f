//! The report of one run directory: device and wear before and after, the whole access
//! specification, the results recomputed from the samples, the fade, steady state, write
//! amplification, the charts, and the command that reproduces the run.

use crate::analysis::prediction::{onward, Onward, PredictionCheck};
use crate::analysis::thermal::Thermal;
use crate::analysis::unsettled::Unsettled;
use crate::analysis::{first_and_last_full, lowest_full, Fade, Figures, Pace, SteadyWindow};
use crate::drive::DriveInfo;
use crate::drive::Wear;
use crate::plot::{
    consistency_chart, convergence_caption, convergence_chart, distribution_chart, fade_chart,
    heat_chart, latency_chart, wa_chart, Chart,
};
use crate::results::{device_line, Run, RunInfo, Status};
use crate::stats::Sample;
use crate::units::{
    format_bytes, format_count, format_duration, format_gb, format_interval, format_latency_us,
};

use super::document::{Block, Document};

fn or_dash<T: ToString>(v: Option<T>) -> String {
    v.map_or_else(|| "—".into(), |v| v.to_string())
}

/// Seconds as a duration, for a report's prose.
pub fn secs(s: f64) -> String {
    format_duration(std::time::Duration::from_secs_f64(s.max(0.0)))
}

/// A latency chart's caption, with what its lines and shades are when it is drawn in buckets.
pub(super) fn with_band_note(caption: &str, chart: &crate::plot::LatencyChart) -> String {
    match chart.band_note() {
        Some(note) => format!("{caption}. {note}."),
        None => caption.to_string(),
    }
}

/// One row of the results table: the stretch's name, its length, its figures and its share of
/// the reference IOPS ("—" without one: a paced run that met its pace measured the pace, and
/// a share of it would be a fade from the pace).
pub fn figures_row(name: &str, f: &Figures, reference_iops: Option<f64>) -> Vec<String> {
    vec![
        name.to_string(),
        secs(f.seconds),
        crate::units::format_count(f.iops),
        format!("{:.2}", f.mb_per_s),
        format_latency_us(f.avg_lat_us),
        format_latency_us(f.p99_lat_us),
        format_latency_us(f.max_lat_us),
        match reference_iops.filter(|r| *r > 0.0) {
            Some(r) => format!("{:.0} %", 100.0 * f.iops / r),
            None => "—".into(),
        },
    ]
}

/// SNIA PTS's steady-state criteria as a table, each figure beside its limit: the window, its
/// range and slope excursion, and the host data written by then (TGBW).
pub(super) fn steady_criteria(w: &SteadyWindow) -> Vec<Vec<String>> {
    let verdict = |ok: bool| if ok { "pass" } else { "fail" }.to_string();
    let mut rows = vec![
        vec![
            "Measurement window".into(),
            format!(
                "{} – {}, {} IOPS on average",
                secs(w.start_s),
                secs(w.end_s),
                format_count(w.iops)
            ),
            "—".into(),
            "—".into(),
        ],
        vec![
            "Range (max − min) ÷ average".into(),
            format!("{:.1} %", w.range_pct),
            format!("≤ {:.0} %", w.max_range_pct),
            verdict(w.range_pct <= w.max_range_pct),
        ],
        vec![
            "Slope excursion ÷ average".into(),
            format!("{:.1} %", w.slope_pct),
            format!("≤ {:.0} %", w.max_slope_pct),
            verdict(w.slope_pct <= w.max_slope_pct),
        ],
    ];
    if let Some(b) = w.bytes_written {
        let fills = w
            .drive_fills
            .map(|f| format!(" = {f:.2} drive fills"))
            .unwrap_or_default()
            + &w.flash_fills
                .map(|f| format!(" ({f:.2} of the flash)"))
                .unwrap_or_default();
        rows.push(vec![
            "Total host data written (TGBW)".into(),
            format!("{}{fills}", format_gb(b)),
            "—".into(),
            "—".into(),
        ]);
    }
    rows
}

/// The head of [`steady_criteria`]'s table.
pub(super) const STEADY_HEAD: [&str; 4] = ["SNIA PTS steady state", "Figure", "Limit", "Result"];

/// When and where a run reached steady state, in the words every report uses.
pub(super) fn steady_words(w: &SteadyWindow) -> String {
    format!(
        "reached at {}{}; window {} – {}, {} IOPS on average{}",
        secs(w.end_s),
        w.bytes_written
            .map(|b| format!(" with {} written", format_gb(b)))
            .unwrap_or_default(),
        secs(w.start_s),
        secs(w.end_s),
        format_count(w.iops),
        w.did_not_hold
            .map(|(drift, last)| format!(
                "; it did not hold: the run's last window averaged {} IOPS ({drift:+.0} %)",
                format_count(last)
            ))
            .unwrap_or_default()
    )
}

/// Why a run recorded no steady state: it wrote nothing, or it is a kind that does not judge
/// one (a SLOG run's sustained phase writes, paced or flat out, and is judged by its verdict).
fn why_no_steady_state(run: &Run) -> &'static str {
    if run.samples.last().map_or(0, |s| s.bytes_written_total) > 0 {
        "this kind of run does not judge one"
    } else {
        "the run did not write"
    }
}

/// The header of the results table that [`figures_row`] fills.
pub const FIGURES_HEAD: [&str; 8] = [
    "Part", "Time", "IOPS", "MB/s", "Avg lat", "p99 lat", "Max lat", "% of ref",
];

/// What the device is (from the record taken before the run, else after).
pub(super) fn identity_table(drive: &DriveInfo) -> Vec<Vec<String>> {
    [
        ("Model", drive.model.clone()),
        ("Serial", drive.serial.clone()),
        ("Firmware", drive.firmware.clone()),
        ("Kind", Some(drive.kind.clone())),
        (
            "Size",
            // In GB (10^9 B) as the test header's capacity and as drives are labelled.
            drive
                .size_bytes
                .map(|b| format!("{} ({b} B)", format_gb(b))),
        ),
        (
            "Logical / physical block",
            drive
                .logical_block
                .zip(drive.physical_block)
                .map(|(l, p)| format!("{l} B / {p} B")),
        ),
        ("Write cache", drive.write_cache.clone()),
    ]
    .into_iter()
    .filter_map(|(name, value)| Some(vec![name.to_string(), value?]))
    .collect()
}

/// SNIA's test header: what was tested (model, firmware, serial, capacity; a simulated drive's
/// from its spec), when, and by which build of the tool — from the run's record.
pub(super) fn header_rows(info: &RunInfo) -> Vec<Vec<String>> {
    let drive = info.drive_before.as_ref().or(info.drive_after.as_ref());
    let field = |pick: fn(&DriveInfo) -> Option<String>| drive.and_then(pick);
    let capacity = drive
        .and_then(|d| d.size_bytes)
        .unwrap_or(info.target.identity.size_bytes);
    let build = info
        .build
        .as_deref()
        .map_or_else(String::new, |b| format!(" (build {b})"));
    [
        ("Model", field(|d| d.model.clone())),
        ("Firmware", field(|d| d.firmware.clone())),
        ("Serial", field(|d| d.serial.clone())),
        (
            "Capacity",
            (capacity > 0).then(|| format!("{} ({capacity} B)", format_gb(capacity))),
        ),
        ("Test date (UTC)", Some(info.started_utc.clone())),
        (
            "Tool",
            Some(format!("{} {}{build}", info.tool, info.version)),
        ),
    ]
    .into_iter()
    .map(|(name, value)| vec![name.to_string(), value.unwrap_or_else(|| "—".into())])
    .collect()
}

/// The wear counters before and after the run, with their change.
pub(super) fn wear_table(before: Option<&Wear>, after: Option<&Wear>) -> Vec<Vec<String>> {
    type Pick = fn(&Wear) -> Option<f64>;
    type Show = fn(f64) -> String;
    let count: Show = |v| format!("{v:.0}");
    let percent: Show = |v| format!("{v:.0} %");
    let bytes: Show = |v| format_gb(v as u64);
    let rows: [(&str, Pick, Show); 10] = [
        (
            "Endurance used",
            |w| w.percentage_used.map(f64::from),
            percent,
        ),
        ("Life left", |w| w.life_left_percent.map(f64::from), percent),
        (
            "Host data written",
            |w| w.host_bytes_written.map(|b| b as f64),
            bytes,
        ),
        (
            "NAND data written",
            |w| w.nand_bytes_written.map(|b| b as f64),
            bytes,
        ),
        (
            "Erase cycles (mean)",
            |w| w.erase_cycles.map(|c| c as f64),
            count,
        ),
        (
            "Power-on hours",
            |w| w.power_on_hours.map(|h| h as f64),
            count,
        ),
        ("Media errors", |w| w.media_errors.map(|e| e as f64), count),
        (
            "Unsafe shutdowns",
            |w| w.unsafe_shutdowns.map(|e| e as f64),
            count,
        ),
        (
            "Spare left",
            |w| w.available_spare_percent.map(f64::from),
            percent,
        ),
        (
            "Temperature (°C)",
            |w| w.temperature_c.map(|t| t as f64),
            count,
        ),
    ];
    rows.iter()
        .filter_map(|(name, pick, show)| {
            let b = before.and_then(pick);
            let a = after.and_then(pick);
            let change = match (b, a) {
                (Some(b), Some(a)) if a >= b => format!("+{}", show(a - b)),
                (Some(b), Some(a)) => format!("−{}", show(b - a)),
                _ => "—".into(),
            };
            (b.is_some() || a.is_some()).then(|| {
                vec![
                    name.to_string(),
                    or_dash(b.map(show)),
                    or_dash(a.map(show)),
                    change,
                ]
            })
        })
        .collect()
}

/// What a paced run's report says of its schedule: the rate, how much of it was delivered
/// (reads, writes and trims: the pace issues them all) and how many I/Os were issued late.
fn pacing_words(pace: &Pace, trims: bool, pacing: Option<&crate::stats::PacingSummary>) -> String {
    let mut text = format!(
        "Issue rate: {}, open loop (each I/O due at a fixed time, whatever completed before it); delivered {} IOPS{}, {:.1} % of the rate.",
        pace.asked,
        format_count(pace.delivered_iops),
        if trims { " (trims included)" } else { "" },
        100.0 * pace.delivered_iops / pace.asked_iops
    );
    if let Some(p) = pacing {
        text.push_str(&format!(
            " {} of {} paced I/Os were issued late (over 1 ms after their due time; mean {}, max {}); mean schedule lag {}.",
            p.late,
            p.paced,
            format_latency_us(p.late_mean_us),
            format_latency_us(p.late_max_us),
            format_latency_us(p.mean_lag_us)
        ));
    }
    text
}

/// The run's trims as run.json's summary counts them: fio's third direction, apart from the
/// IOPS, MB/s and latencies of the tables (which are reads and writes).
fn trim_words(trim: &crate::stats::DirSample) -> String {
    let lat = |f: fn(&crate::stats::LatencySummary) -> f64| {
        trim.lat_us.map_or("-".into(), |l| format_latency_us(f(&l)))
    };
    format!(
        "Trims (not in the IOPS, MB/s and latencies above, which are reads and writes): {} trims, {} trimmed, {} per second; latency mean {}, p99 {}, max {}.",
        trim.ops,
        format_gb(trim.bytes),
        crate::units::format_count(trim.iops),
        lat(|l| l.mean),
        lat(|l| l.p99),
        lat(|l| l.max)
    )
}

/// The access specification, every field of it.
fn workload_table(run: &Run) -> Vec<Vec<String>> {
    let w = &run.info.workload;
    let row = |k: &str, v: String| vec![k.to_string(), v];
    vec![
        row(
            "Transfer size",
            match &w.bssplit {
                Some(split) => format!("{split} (fio's bssplit: size/percent of the I/Os; each offset a multiple of its I/O's size)"),
                None => format!("{} ({} B)", format_bytes(w.bs), w.bs),
            },
        ),
        row("Offset alignment", format!("{} B", w.align)),
        if w.trim_pct > 0 {
            row(
                "Reads / trims / writes",
                format!(
                    "{} % / {} % / {} %",
                    w.read_pct,
                    w.trim_pct,
                    100 - w.read_pct - w.trim_pct
                ),
            )
        } else {
            row(
                "Reads / writes",
                format!("{} % / {} %", w.read_pct, 100 - w.read_pct),
            )
        },
        row(
            "Random / sequential",
            format!("{} % / {} %", w.random_pct, 100 - w.random_pct),
        ),
        row(
            "Queue depth",
            format!("{}{}", crate::workload::jobs_prefix(w.jobs), w.qd),
        ),
        row("Span", format!("{} ({} B)", format_bytes(w.span), w.span)),
        row(
            "Offset",
            format!("{} ({} B)", format_bytes(w.offset), w.offset),
        ),
        row("Random offsets", w.distribution.to_string()),
        row("Data pattern", w.pattern.to_string()),
        row(
            "Data source",
            if w.refill {
                "fresh random bytes for every write".into()
            } else {
                "keyed generator per write".into()
            },
        ),
        row(
            "Stop after",
            match (w.duration, w.bytes) {
                (Some(d), Some(b)) => format!("{} or {}", format_duration(d), format_bytes(b)),
                (Some(d), None) => format_duration(d),
                (None, Some(b)) => format_bytes(b),
                (None, None) => "—".into(),
            },
        ),
        row(
            "Issue rate",
            w.rate.map_or_else(
                || "flat out (closed loop)".into(),
                crate::results::rate_text(w),
            ),
        ),
        row("Sample interval", format_interval(w.interval)),
        row("Seed", w.seed.to_string()),
        row("On I/O error", format!("{:?}", w.on_error).to_lowercase()),
        row("Engine", run.info.engine.clone()),
    ]
}

/// The recorded command line of a run as a shell command that repeats it exactly (the seed
/// made explicit when it was drawn at random).
pub fn reproduce_command(run: &Run) -> String {
    reproduce_line(&run.info.command_line, Some(run.info.workload.seed))
}

/// `command_line` (as recorded, program name first) as one shell line, with `--seed seed`
/// added when the command did not give one, and local paths cut to their file names as the
/// provenance shows them (a report names nothing of the machine's directory layout: run it
/// where the files are).
pub fn reproduce_line(command_line: &[String], seed: Option<u64>) -> String {
    let mut args = crate::results::args_shown(command_line.get(1..).unwrap_or_default());
    if let Some(seed) = seed.filter(|_| {
        !args
            .iter()
            .any(|a| a == "--seed" || a.starts_with("--seed="))
    }) {
        args.push("--seed".into());
        args.push(seed.to_string());
    }
    std::iter::once("ssdfade".to_string())
        .chain(args.iter().map(|a| shell_quote(a)))
        .collect::<Vec<_>>()
        .join(" ")
}

fn shell_quote(arg: &str) -> String {
    let plain = !arg.is_empty()
        && arg
            .chars()
            .all(|c| c.is_ascii_alphanumeric() || "_-./:=,+@%".contains(c));
    if plain {
        arg.to_string()
    } else {
        format!("'{}'", arg.replace('\'', r"'\''"))
    }
}

/// The summary card at the top of a run's report: how it ended, the whole run's throughput
/// and tail latency, the fade between its first and last windows, and steady state — each
/// the same figure the sections below print.
fn summary_rows(run: &Run, whole: &Figures) -> Vec<Vec<String>> {
    let interval = run.info.workload.interval;
    let mut rows = vec![vec!["Status".to_string(), run.info.status.to_string()]];
    rows.push(vec![
        "Whole run".into(),
        format!(
            "{} IOPS, {:.2} MB/s, p99 {}{}",
            format_count(whole.iops),
            whole.mb_per_s,
            format_latency_us(whole.p99_lat_us),
            whole
                .lat_us
                .map(|l| format!(", p99.9 {}", format_latency_us(l.p999)))
                .unwrap_or_default()
        ),
    ]);
    if let Some(pause) = run.info.summary.as_ref().and_then(|s| s.pause_text()) {
        rows.push(vec!["Paused".into(), pause]);
    }
    let pace = Pace::of_run(run);
    let met = pace.as_ref().filter(|p| p.met);
    if let Some(p) = &pace {
        rows.push(vec!["Pace".into(), p.words()]);
    }
    if let Some(p) = met {
        rows.push(vec!["Fade".into(), format!("none: {}", p.why_none())]);
    } else if let Some(fade) = Fade::of(&run.samples, interval) {
        rows.push(vec![
            "Fresh → faded".into(),
            format!(
                "{} → {} IOPS (medians of the first and last {})",
                format_count(fade.start_iops),
                format_count(fade.end_iops),
                secs(fade.window_s)
            ),
        ]);
        if let Some(r) = fade.ratio() {
            rows.push(vec!["Fade".into(), r.words()]);
        }
    }
    if let Some(heat) = Thermal::of(&run.samples) {
        rows.push(vec!["Heat".into(), heat.sentence()]);
    }
    if let Some(note) = run.info.telemetry.as_ref().and_then(|t| t.note.as_ref()) {
        rows.push(vec!["Telemetry".into(), note.clone()]);
    }
    rows.push(vec![
        "Steady state".into(),
        match (SteadyWindow::of(run), &run.info.steady_state) {
            _ if met.is_some() => format!("not judged: {}", met.expect("met").why_none()),
            (Some(w), _) => match (run_onward(run), Unsettled::of(&run.info)) {
                (Some(o), _) => format!("{}; {}", steady_words(&w), o.words()),
                (None, Some(u)) => format!("{}; {}", steady_words(&w), u.words()),
                (None, None) => steady_words(&w),
            },
            (None, Some(s)) => crate::text::steady::not_reached(s.rounds),
            (None, None) => format!("not evaluated ({})", why_no_steady_state(run)),
        },
    ]);
    if let Some(check) = PredictionCheck::of(run).filter(|_| met.is_none()) {
        rows.push(vec![
            "Steady state predicted".into(),
            super::prediction::summary(&check),
        ]);
    }
    rows
}

/// Where the run's SNIA pass is on a level its prediction says the drive will leave.
fn run_onward(run: &Run) -> Option<Onward> {
    onward(
        run.info.steady_state.as_ref()?,
        run.info.prediction.as_ref()?,
    )
}

/// The report of a run that stopped before its first interval ended (Ctrl-C while the drive
/// loads): no samples, so no charts; it says how the run ended, what run.json holds (its
/// time and I/Os) and what to do, with the test header and the command that repeats it.
pub fn stopped_early(run: &Run) -> Document {
    let info = &run.info;
    let mut doc = Document::new(format!(
        "ssdfade report: {} of {}",
        info.command,
        device_line(info)
    ));
    let (seconds, ops) = info
        .summary
        .as_ref()
        .map_or((0.0, 0), |s| (s.seconds, s.ops));
    let interval = format_interval(info.workload.interval);
    doc.heading("Summary");
    doc.table(
        &["Headline", ""],
        vec![
            vec!["Status".into(), info.status.to_string()],
            vec![
                "Recorded".into(),
                format!(
                    "no interval: the run stopped after {} ({ops} I/Os), before its first {interval} interval ended",
                    secs(seconds)
                ),
            ],
            vec![
                "What to do".into(),
                format!(
                    "run it again for longer than one interval ({interval}), the command under Reproduce, or with a shorter --interval; there is nothing to chart"
                ),
            ],
        ],
    );
    doc.table(&["Test header", ""], header_rows(info));
    doc.heading("Reproduce");
    doc.blocks.push(Block::Code(reproduce_command(run)));
    doc
}

/// The report of one run, with its charts (PNG names for Markdown, SVG for HTML).
pub fn document(run: &Run, fade_png: &str, latency_png: &str) -> anyhow::Result<Document> {
    let info = &run.info;
    let samples = &run.samples;
    let mut doc = Document::new(format!(
        "ssdfade report: {} of {}",
        info.command,
        device_line(info)
    ));
    let status = match info.status {
        Status::Running => "running — the run did not finish (crashed or still going); the report covers the samples saved so far".to_string(),
        other => match info.failure() {
            Some(why) => format!("{other} ({why})"),
            None => other.to_string(),
        },
    };
    doc.paragraph(format!(
        "Run directory {} · started {} · ended {} · status {status} · {} samples",
        run.dir.file_name().map_or_else(
            || run.dir.display().to_string(),
            |n| n.to_string_lossy().into_owned()
        ),
        info.started_utc,
        info.ended_utc.as_deref().unwrap_or("—"),
        samples.len()
    ));

    let whole = Figures::of_run(run);
    doc.heading("Summary");
    doc.table(&["Headline", ""], summary_rows(run, &whole));
    doc.table(&["Test header", ""], header_rows(info));

    doc.heading("Results");
    if let Some((first, last)) = first_and_last_full(samples, info.workload.interval) {
        // A met pace's first interval is the pace: nothing is a share of it.
        let reference = Pace::met_by(run).is_none().then_some(first.iops);
        let one = |s: &Sample| Figures::of_samples(std::slice::from_ref(s));
        // A run of one interval (stopped during its set-up) is its whole run alone.
        let mut rows = if samples.len() < 2 {
            vec![figures_row("whole run", &whole, reference)]
        } else {
            vec![
                figures_row("first interval", &one(first), reference),
                figures_row("whole run", &whole, reference),
                figures_row("last full interval", &one(last), reference),
            ]
        };
        if let Some(low) = lowest_full(samples, info.workload.interval) {
            rows.push(figures_row(
                &format!("lowest (#{})", low.index),
                &one(low),
                reference,
            ));
        }
        doc.table(&FIGURES_HEAD, rows);
    }
    doc.paragraph(format!(
        "{} {} I/Os, {} transferred, {} written by the host, {} errors. \
         % of ref is the share of the first interval's IOPS.",
        if whole.p99_exact {
            "Whole run from run.json's summary (exact percentiles of all I/Os); intervals from samples.jsonl:"
        } else {
            "Whole run recomputed from samples.jsonl (run.json has no summary: the run did not finish), its p99 estimated from the intervals' own percentiles:"
        },
        whole.ops,
        format_gb(whole.bytes),
        format_gb(samples.last().map_or(0, |s| s.bytes_written_total)),
        whole.errors
    ));
    if let Some(trim) = info.summary.as_ref().and_then(|s| s.trim.as_ref()) {
        doc.paragraph(trim_words(trim));
    }
    if let Some(pace) = Pace::of_run(run) {
        doc.paragraph(pacing_words(
            &pace,
            samples.iter().any(|s| s.trim.is_some()),
            info.summary.as_ref().and_then(|s| s.pacing.as_ref()),
        ));
    }
    let met = Pace::met_by(run);
    if let Some(p) = &met {
        doc.paragraph(format!("Fade: none: {}.", p.why_none()));
    } else if let (Some(fade), Some(low)) = (
        Fade::of(samples, info.workload.interval),
        lowest_full(samples, info.workload.interval),
    ) {
        let half = fade
            .half_fade_s
            .map(|t| {
                let written = samples
                    .iter()
                    .find(|s| s.t_end_s >= t)
                    .map_or(0, |s| s.bytes_written_total);
                format!(
                    "; half of the fade after {} ({} written)",
                    secs(t),
                    format_gb(written)
                )
            })
            .unwrap_or_default();
        doc.paragraph(format!(
            "Fade: {} → {} IOPS, the median of the full intervals in the first {} (fresh) and in the last {} (faded), {}; lowest full interval {}{half}.",
            format_count(fade.start_iops),
            format_count(fade.end_iops),
            secs(fade.window_s),
            secs(fade.window_s),
            fade.ratio().map_or("-".into(), |r| r.words()),
            format_count(low.iops)
        ));
    }
    if let Some(heat) = Thermal::of(samples) {
        doc.paragraph(format!("Heat: {}.", heat.sentence()));
    }
    doc.paragraph(match (SteadyWindow::of(run), &info.steady_state) {
        _ if met.is_some() => format!(
            "Steady state (SNIA PTS): not judged: {}.",
            met.as_ref().expect("met").why_none()
        ),
        (Some(w), _) => format!("Steady state (SNIA PTS): {}.", steady_words(&w)),
        (None, Some(s)) => format!(
            "Steady state (SNIA PTS): {}.",
            crate::text::steady::not_reached(s.rounds)
        ),
        (None, None) => format!(
            "Steady state: not evaluated for this run ({}).",
            why_no_steady_state(run)
        ),
    });
    if let Some(w) = SteadyWindow::of(run).filter(|_| met.is_none()) {
        doc.table(&STEADY_HEAD, steady_criteria(&w));
    }
    if let Some(chart) = convergence_chart(run).filter(|_| met.is_none()) {
        doc.blocks.push(Block::Chart {
            caption: format!("Steady state (SNIA PTS): IOPS per round against TGBW, and the measurement window with its average, ±10 % and ±20 % of it and the least-squares line; {}", convergence_caption(&chart.convergence)),
            png: super::beside_png(fade_png, "steady"),
            svg: chart.svg()?,
        });
    }
    if let Some(check) = PredictionCheck::of(run).filter(|_| met.is_none()) {
        doc.paragraph(super::prediction::paragraph(&check, run_onward(run)));
    }
    doc.paragraph(match &info.write_amplification {
        Some(wa) => format!(
            "Write amplification: {} ({} NAND for {} host writes during the run; {}).",
            crate::units::format_sig(wa.factor, 3),
            format_gb(wa.nand_bytes),
            format_gb(wa.host_bytes),
            wa.note
        ),
        None => {
            "Write amplification: not known (the drive does not report both host and NAND writes)."
                .into()
        }
    });
    let events: Vec<String> = samples
        .iter()
        .flat_map(|s| s.error_events.iter())
        .take(10)
        .map(|e| e.describe())
        .collect();
    if !events.is_empty() {
        doc.heading("Errors");
        doc.blocks.push(Block::Code(events.join("\n")));
    }
    if let Some(v) = &info.verify {
        doc.heading("Data verification");
        doc.blocks.push(Block::Code(v.text(20)));
    }

    doc.heading("Charts");
    doc.blocks.push(Block::Chart {
        caption: "IOPS per interval against time and against host data written".into(),
        png: fade_png.into(),
        svg: fade_chart(run).svg()?,
    });
    if let Some(heat) = heat_chart(run) {
        doc.blocks.push(Block::Chart {
            caption:
                "IOPS and the drive's temperature per interval, thermally throttled spans shaded"
                    .into(),
            png: super::beside_png(fade_png, "heat"),
            svg: heat.svg()?,
        });
    }
    let latency = latency_chart(run);
    doc.blocks.push(Block::Chart {
        caption: with_band_note(
            "Latency per interval: p50, p99, p99.9 and maximum",
            &latency,
        ),
        png: latency_png.into(),
        svg: latency.svg()?,
    });
    let consistency = consistency_chart(run);
    doc.blocks.push(Block::Chart {
        caption: "IOPS consistency: every interval's IOPS as a dot, on a linear and a log axis, with the cliff's hour and the last 30 minutes zoomed in a run of two hours or more".into(),
        png: super::beside_png(fade_png, "consistency"),
        svg: consistency.svg()?,
    });
    if let Some(wa) = wa_chart(run) {
        doc.blocks.push(Block::Chart {
            caption: super::WA_CAPTION.into(),
            png: super::beside_png(fade_png, "wa"),
            svg: wa.svg()?,
        });
    }
    let directions = crate::analysis::latency::Distribution::of_run(run)?;
    let named = directions.as_ref().map(|d| d.rows()).unwrap_or_default();
    super::distribution::add(
        &mut doc,
        &named,
        distribution_chart(run)?,
        super::beside_png(fade_png, "distribution"),
    )?;

    doc.heading("Device");
    match info.drive_before.as_ref().or(info.drive_after.as_ref()) {
        Some(drive) => doc.table(&["Identity", ""], identity_table(drive)),
        None => doc.paragraph("No drive record was taken for this run."),
    }
    let wear_rows = wear_table(
        info.drive_before.as_ref().map(|d| &d.wear),
        info.drive_after.as_ref().map(|d| &d.wear),
    );
    if wear_rows.is_empty() {
        doc.paragraph("Wear: the drive reported no wear counters.");
    } else {
        doc.table(&["Wear", "Before", "After", "Change"], wear_rows);
    }

    doc.heading("Workload");
    doc.table(&["Access specification", ""], workload_table(run));

    doc.heading("Reproduce");
    doc.blocks.push(Block::Code(reproduce_command(run)));
    doc.paragraph(format!(
        "Run recorded by {} {}; report written by ssdfade {}.",
        info.tool,
        info.version,
        env!("CARGO_PKG_VERSION")
    ));
    Ok(doc)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn odd_arguments_are_quoted_for_the_shell() {
        assert_eq!(shell_quote("sim:vertex2-60g"), "sim:vertex2-60g");
        assert_eq!(shell_quote("a b"), "'a b'");
        assert_eq!(shell_quote("it's"), r"'it'\''s'");
    }

    #[test]
    fn the_seed_is_added_once_and_only_when_not_given() {
        let line = |args: &[&str]| args.iter().map(|a| a.to_string()).collect::<Vec<_>>();
        assert_eq!(
            reproduce_line(&line(&["/usr/bin/ssdfade", "measure", "a b"]), Some(42)),
            "ssdfade measure 'a b' --seed 42"
        );
        // Local paths as file names, drives kept.
        assert_eq!(
            reproduce_line(
                &line(&[
                    "ssdfade",
                    "soak",
                    "/tmp/x/t.img",
                    "--out",
                    "/tmp/x/r",
                    "--verify-end"
                ]),
                Some(1)
            ),
            "ssdfade soak t.img --out r --verify-end --seed 1"
        );
        assert_eq!(
            reproduce_line(
                &line(&["ssdfade", "soak", "/dev/sdb", "--destroy-data", "/dev/sdb"]),
                Some(1)
            ),
            "ssdfade soak /dev/sdb --destroy-data /dev/sdb --seed 1"
        );
        assert_eq!(
            reproduce_line(&line(&["ssdfade", "soak", "--seed", "7"]), Some(42)),
            "ssdfade soak --seed 7"
        );
        assert_eq!(
            reproduce_line(&line(&["ssdfade", "soak", "--seed=7"]), Some(42)),
            "ssdfade soak --seed=7"
        );
        assert_eq!(reproduce_line(&line(&["ssdfade", "x"]), None), "ssdfade x");
    }
}
