//! The report of an experiment directory: one row per phase (recomputed from each phase's
//! samples), fade and recovery between the measured states, the erases, the charts of the
//! whole timeline, wear from the first phase to the last, and the commands that ran.

use crate::analysis::preset::is_preparation;
use crate::analysis::summary::KindFigures;
use crate::analysis::{ExperimentStates, Figures, SteadyWindow};
use crate::plot::{
    convergence_caption, convergence_charts, erase_label, states_caption, timeline, Chart, Format,
    KindCharts, Place, ProtocolChart,
};
use crate::results::{workload_line, Experiment};
use crate::units::format_ratio;

use super::document::{Block, Document};
use super::run::{
    figures_row, header_rows, identity_table, reproduce_command, reproduce_line, secs,
    steady_criteria, steady_words, wear_table, with_band_note, FIGURES_HEAD, STEADY_HEAD,
};

/// The fade and recovery lines: only an experiment with a `fresh` phase has them (a preset's
/// figures are its table).
fn fade_and_recovery(states: &ExperimentStates) -> Vec<String> {
    let mut lines = Vec::new();
    if let Some(f) = &states.fade {
        lines.push(format!(
            "Fade (faded ÷ fresh {:.0} IOPS): faded {:.0} IOPS is {}.",
            f.fresh_iops,
            f.faded_iops,
            f.words()
        ));
    }
    match (&states.recovery, states.state("fresh")) {
        (Some(r), _) => lines.push(format!(
            "Recovery (recovered ÷ fresh {:.0} IOPS): recovered {:.0} IOPS is {}.",
            r.fresh_iops,
            r.faded_iops,
            r.words()
        )),
        (None, Some(_)) => lines.push("Recovery: no recovered phase yet.".into()),
        (None, None) => {}
    }
    lines
}

/// The summary card at the top of an experiment's report: each measured state's IOPS (with
/// its share of fresh), then fade and recovery — the figures of the Results section.
fn summary_rows(states: &ExperimentStates) -> Vec<Vec<String>> {
    let mut rows: Vec<Vec<String>> = states
        .states
        .iter()
        .map(|s| {
            let share = s
                .of_fresh
                .filter(|_| s.name != "fresh")
                .map(|r| format!(" ({:.0} % of fresh)", r.pct_of_fresh))
                .unwrap_or_default();
            let vs_reference = s
                .of_reference
                .map(|r| format!(", {} of ref", format_ratio(r)))
                .unwrap_or_default();
            vec![
                s.name.clone(),
                format!("{:.0} IOPS{share}{vs_reference}", s.figures.iops),
            ]
        })
        .collect();
    if let Some(f) = &states.fade {
        rows.push(vec!["Fade (faded ÷ fresh)".into(), f.words()]);
    }
    if let Some(r) = &states.recovery {
        rows.push(vec!["Recovery (recovered ÷ fresh)".into(), r.words()]);
    }
    rows
}

/// The states against the reference set (`--reference`), when the experiment has one.
fn add_reference(doc: &mut Document, measured: &ExperimentStates) {
    let rows: Vec<Vec<String>> = measured
        .states
        .iter()
        .filter_map(|s| {
            Some(vec![
                s.name.clone(),
                format!("{:.0}", s.figures.iops),
                format!("{:.0}", s.reference_iops?),
                s.of_reference.map_or("—".into(), format_ratio),
            ])
        })
        .collect();
    if rows.is_empty() {
        return;
    }
    doc.table(
        &["State", "IOPS", "Reference IOPS", "Measured ÷ reference"],
        rows,
    );
    doc.paragraph("The reference set is the IOPS given with --reference (another measurement of the same states); its hollow circles are on the states chart.");
}

/// A phase's name as the results table lists it: a preset's preparation write says so.
fn phase_name(exp: &Experiment, p: &crate::results::LoadedPhase) -> String {
    let name = &p.record.phase.name;
    if is_preparation(&exp.name, name) {
        format!("{name} (preparation, not a test)")
    } else {
        name.clone()
    }
}

/// An experiment's kind as its report sees it, given by the protocols' table above this layer
/// (`crate::protocol::Registry`): the report knows this interface, not the kinds.
pub trait KindReport {
    /// The kind's figures, computed once by `analysis/`.
    fn figures(&self, exp: &Experiment) -> KindFigures;

    /// The kind's own charts, each placed, and its timeline's labels.
    fn charts(&self, exp: &Experiment) -> KindCharts;

    /// Adds the card that opens the report (drawing `chart`, placed under it); false
    /// when the kind has none, and the measured states stand in.
    fn summary(
        &self,
        doc: &mut Document,
        exp: &Experiment,
        figures: &KindFigures,
        chart: Option<&ProtocolChart>,
    ) -> anyhow::Result<bool>;

    /// Adds the kind's own tables before the results (WSAT's rounds, a sweep's latencies, a
    /// suite's pages with the `charts` placed on them).
    fn tables(
        &self,
        doc: &mut Document,
        exp: &Experiment,
        figures: &KindFigures,
        charts: &KindCharts,
    ) -> anyhow::Result<()>;

    /// Adds what the kind says under the measured states (a Vertex 2 soak's own fade).
    fn under_states(&self, doc: &mut Document, exp: &Experiment, figures: &KindFigures);
}

/// Adds a kind's `chart` under its caption: its PNG for Markdown, its SVG inline for HTML.
pub fn add_chart(doc: &mut Document, chart: &ProtocolChart) -> anyhow::Result<()> {
    doc.blocks.push(Block::Chart {
        caption: chart.caption().into(),
        png: format!("{}.png", chart.name()),
        svg: chart.svg()?,
    });
    Ok(())
}

/// The report of an experiment, with its timeline charts (PNG names for Markdown) and its
/// kind's figures, `charts` and sections as `kinds` gives them.
pub fn document(
    exp: &Experiment,
    kinds: &dyn KindReport,
    charts: &KindCharts,
    fade_png: &str,
    latency_png: &str,
) -> anyhow::Result<Document> {
    let kind = &kinds.figures(exp);
    let chart = charts.at(Place::Summary).next();
    let runs: Vec<_> = exp.phases.iter().filter_map(|p| p.run.as_ref()).collect();
    let first = runs.first().copied();
    let last = runs.last().copied();
    let model = first.map_or_else(String::new, |r| crate::results::device_name(&r.info));
    let mut doc = Document::new(format!("ssdfade report: experiment {} · {model}", exp.name));
    // Counted as the terminal counts them: an idle phase that completed is done, though it
    // has no results.
    let done = exp
        .phases
        .iter()
        .filter(|p| p.record.status == crate::results::Status::Completed)
        .count();
    doc.paragraph(format!(
        "Experiment directory {} · {done} of {} phases done",
        // Its name, not its path: the report names nothing of the machine's layout.
        exp.dir.file_name().map_or_else(
            || exp.dir.display().to_string(),
            |n| n.to_string_lossy().into_owned()
        ),
        exp.phases.len()
    ));

    let measured = ExperimentStates::of(exp);
    // The card of the experiment's kind: a benchmark's own table, a sweep's peak, WSAT's
    // fresh and steady figures; else the measured states.
    if !kinds.summary(&mut doc, exp, kind, chart)? && !measured.states.is_empty() {
        doc.heading("Summary");
        doc.table(&["Headline", ""], summary_rows(&measured));
    }
    if let Some(run) = first {
        doc.table(&["Test header", ""], header_rows(&run.info));
    }
    // The drive's heat over the phases, where it reported a temperature.
    if let Some(heat) = crate::analysis::thermal::Thermal::of_experiment(exp) {
        doc.paragraph(format!("Heat: {}.", heat.range_words()));
    }

    kinds.tables(&mut doc, exp, kind, charts)?;
    doc.heading("Results");
    // Only a state named fresh is a reference: a preset's phases are not states of one drive,
    // and a fresh state that met its pace measured the pace ([`ExperimentStates`] gives it no
    // level). A phase that met its pace has no share either.
    let reference_iops = measured
        .state("fresh")
        .filter(|s| !s.pace.as_ref().is_some_and(|p| p.met))
        .map(|s| s.figures.iops)
        .filter(|iops| *iops > 0.0);
    // Without a fresh state there is no reference: the "% of fresh" column is left out.
    let columns = if reference_iops.is_some() {
        FIGURES_HEAD.len()
    } else {
        FIGURES_HEAD.len() - 1
    };
    let rows = exp
        .phases
        .iter()
        .filter_map(|p| {
            let run = p.run.as_ref()?;
            let share_of = reference_iops.filter(|_| crate::analysis::Pace::met_by(run).is_none());
            let mut row = figures_row(&phase_name(exp, p), &Figures::of_run(run), share_of);
            row.truncate(columns);
            Some(row)
        })
        .collect();
    // The share is of fresh: named so, apart from a --reference set.
    let mut head = FIGURES_HEAD;
    head[FIGURES_HEAD.len() - 1] = "% of fresh";
    doc.table(&head[..columns], rows);
    doc.paragraph(if reference_iops.is_some() {
        "Each phase's whole-run figures from its run.json (exact percentiles). % of fresh is the share of fresh's IOPS."
    } else {
        "Each phase's whole-run figures from its run.json (exact percentiles)."
    });
    add_reference(&mut doc, &measured);
    let states = timeline(exp, &charts.timeline).fade.states;
    if !states.is_empty() {
        doc.paragraph(format!("States: {}.", states_caption(&states)));
    }
    // The states open the report: the timeline below cannot show minute-long phases.
    for chart in charts.at(Place::Results) {
        add_chart(&mut doc, chart)?;
    }
    for line in fade_and_recovery(&measured) {
        doc.paragraph(line);
    }
    kinds.under_states(&mut doc, exp, kind);
    for p in &exp.phases {
        if let Some(w) = p.run.as_ref().and_then(SteadyWindow::of) {
            doc.paragraph(format!(
                "Steady state (SNIA PTS) in {}: {}.",
                p.record.phase.name,
                steady_words(&w)
            ));
            doc.table(&STEADY_HEAD, steady_criteria(&w));
        }
    }
    for (png, chart) in convergence_charts(exp, Format::Png) {
        doc.blocks.push(Block::Chart {
            caption: format!("Steady state (SNIA PTS): IOPS per round against TGBW, and the measurement window with its average, ±10 % and ±20 % of it and the least-squares line; {}", convergence_caption(&chart.convergence)),
            png,
            svg: chart.svg()?,
        });
    }
    let amplification: Vec<String> = exp
        .phases
        .iter()
        .filter_map(|p| {
            let wa = p.run.as_ref()?.info.write_amplification.as_ref()?;
            Some(format!(
                "{} {}",
                p.record.phase.name,
                crate::units::format_sig(wa.factor, 3)
            ))
        })
        .collect();
    doc.paragraph(if amplification.is_empty() {
        "Write amplification: not known (the drive does not report both host and NAND writes)."
            .into()
    } else {
        format!(
            "Write amplification from the drive's own counters: {}.",
            amplification.join(", ")
        )
    });
    for p in &exp.phases {
        if let Some(erase) = &p.erase {
            doc.paragraph(format!(
                "Erase: {} took {}, outcome {}.",
                erase_label(&p.record.phase.name, Some(erase)),
                erase.duration_s.map_or("—".into(), secs),
                erase.outcome
            ));
        }
    }

    let t = timeline(exp, &charts.timeline);
    doc.heading("Charts");
    doc.blocks.push(Block::Chart {
        caption: "IOPS of every phase on one timeline, against time and host data written".into(),
        png: fade_png.into(),
        svg: t.fade.svg()?,
    });
    doc.blocks.push(Block::Chart {
        caption: with_band_note(
            "Latency per interval of every phase: p50, p99, p99.9 and maximum",
            &t.latency,
        ),
        png: latency_png.into(),
        svg: t.latency.svg()?,
    });
    // A chart placed above (the states, an op-sweep's under its advice) is not shown again.
    for chart in charts.at(Place::Charts) {
        add_chart(&mut doc, chart)?;
    }
    if let Some(wa) = crate::plot::experiment_wa_chart(exp) {
        doc.blocks.push(Block::Chart {
            caption: super::WA_CAPTION.into(),
            png: super::beside_png(fade_png, "wa"),
            svg: wa.svg()?,
        });
    }
    let phases = crate::analysis::latency::of_phases(exp)?;
    let named: Vec<(&str, &crate::analysis::latency::Distribution)> =
        phases.iter().map(|(n, d)| (n.as_str(), d)).collect();
    super::distribution::add(
        &mut doc,
        &named,
        crate::plot::experiment_distribution_chart(exp)?,
        super::beside_png(fade_png, "distribution"),
    )?;

    doc.heading("Phases");
    doc.table(
        &["Phase", "Kind", "Status", "Directory"],
        exp.phases
            .iter()
            .map(|p| {
                vec![
                    p.record.phase.name.clone(),
                    if is_preparation(&exp.name, &p.record.phase.name) {
                        "preparation".to_string()
                    } else {
                        p.record.phase.kind.label().to_string()
                    },
                    p.record.status.to_string(),
                    p.record.dir.clone().unwrap_or_else(|| "-".into()),
                ]
            })
            .collect(),
    );
    for p in &exp.phases {
        if let Some(run) = &p.run {
            doc.paragraph(format!(
                "{}: {}",
                p.record.phase.name,
                workload_line(&run.info.workload)
            ));
        }
    }

    doc.heading("Device");
    if let Some(drive) = first.and_then(|r| r.info.drive_before.as_ref()) {
        doc.table(&["Identity", ""], identity_table(drive));
    }
    let wear_rows = wear_table(
        first.and_then(|r| r.info.drive_before.as_ref().map(|d| &d.wear)),
        last.and_then(|r| r.info.drive_after.as_ref().map(|d| &d.wear)),
    );
    if !wear_rows.is_empty() {
        doc.table(&["Wear", "Before", "After", "Change"], wear_rows);
    }

    doc.heading("Reproduce");
    // The command given plus the experiment's seed; records from before those were kept give
    // every phase's own command.
    let commands: Vec<String> = if !exp.record.command_line.is_empty() && exp.record.seed.is_some()
    {
        vec![reproduce_line(&exp.record.command_line, exp.record.seed)]
    } else {
        exp.phases
            .iter()
            .filter_map(|p| {
                if let Some(run) = &p.run {
                    return Some(reproduce_command(run));
                }
                let line = &p.erase.as_ref()?.command_line;
                let args: Vec<&str> = line.iter().skip(1).map(String::as_str).collect();
                Some(format!("ssdfade {}", args.join(" ")))
            })
            .collect()
    };
    doc.blocks.push(Block::Code(commands.join("\n")));
    doc.paragraph(format!(
        "Report written by ssdfade {}.",
        env!("CARGO_PKG_VERSION")
    ));
    Ok(doc)
}
