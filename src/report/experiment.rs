//! The report of an experiment directory: one row per phase (recomputed from each phase's
//! samples), fade and recovery between the measured states, the erases, the charts of the
//! whole timeline, wear from the first phase to the last, and the commands that ran.

use crate::plot::{erase_label, states_caption, timeline, Chart, ProtocolChart};
use crate::results::{workload_line, Experiment, PhaseKind};

use super::document::{Block, Document};
use super::figures::Figures;
use super::run::{figures_row, identity_table, reproduce_command, secs, wear_table, FIGURES_HEAD};

/// The measured states that tell the story: the fresh phase (or the first measure), the last one
/// before the last erase (faded), and the first one after the last erase (recovered).
fn fade_and_recovery(exp: &Experiment) -> Vec<String> {
    let measure_iops = |i: usize| {
        let p = &exp.phases[i];
        (matches!(p.record.phase.kind, PhaseKind::Measure(_)))
            .then(|| p.run.as_ref().map(|r| Figures::of(&r.samples).iops))
            .flatten()
    };
    let n = exp.phases.len();
    let last_erase = exp
        .phases
        .iter()
        .rposition(|p| matches!(p.record.phase.kind, PhaseKind::Erase(_)));
    // The reference is the phase named "fresh" (measured just after an erase) when there is
    // one, else the first measure.
    let fresh = exp
        .phases
        .iter()
        .position(|p| p.record.phase.name == "fresh")
        .and_then(|i| measure_iops(i).map(|v| (i, v)))
        .or_else(|| (0..n).find_map(|i| measure_iops(i).map(|v| (i, v))));
    let faded = (0..last_erase.unwrap_or(n))
        .rev()
        .find_map(|i| measure_iops(i).map(|v| (i, v)));
    let recovered =
        last_erase.and_then(|e| (e + 1..n).find_map(|i| measure_iops(i).map(|v| (i, v))));
    let name = |i: usize| exp.phases[i].record.phase.name.clone();
    let mut lines = Vec::new();
    if let (Some((fi, f)), Some((di, d))) = (fresh, faded) {
        if di != fi && f > 0.0 {
            lines.push(format!(
                "Fade: {} {f:.0} → {} {d:.0} IOPS: {:.0} % lost.",
                name(fi),
                name(di),
                100.0 * (f - d) / f
            ));
        }
    }
    match (fresh, recovered) {
        (Some((fi, f)), Some((ri, r))) if f > 0.0 => lines.push(format!(
            "Recovery: {} {r:.0} IOPS after the erase is {:.0} % of {} {f:.0}.",
            name(ri),
            100.0 * r / f,
            name(fi)
        )),
        _ => lines.push("Recovery: no measure phase after an erase yet.".into()),
    }
    lines
}

/// The report of an experiment, with its timeline charts (PNG names for Markdown).
pub fn document(exp: &Experiment, fade_png: &str, latency_png: &str) -> anyhow::Result<Document> {
    let runs: Vec<_> = exp.phases.iter().filter_map(|p| p.run.as_ref()).collect();
    let first = runs.first().copied();
    let last = runs.last().copied();
    let model = first.map_or_else(String::new, |r| crate::results::device_name(&r.info));
    let mut doc = Document::new(format!("ssdfade report: experiment {} · {model}", exp.name));
    let done = exp
        .phases
        .iter()
        .filter(|p| p.run.is_some() || p.erase.is_some())
        .count();
    doc.paragraph(format!(
        "Experiment directory {} · {done} of {} phases have results",
        exp.dir.display(),
        exp.phases.len()
    ));

    doc.heading("Results");
    let reference = exp
        .phases
        .iter()
        .find(|p| p.record.phase.name == "fresh" && p.run.is_some())
        .or(exp
            .phases
            .iter()
            .find(|p| matches!(p.record.phase.kind, PhaseKind::Measure(_)) && p.run.is_some()))
        .or(exp.phases.iter().find(|p| p.run.is_some()));
    let reference_iops = reference
        .and_then(|p| p.run.as_ref())
        .map_or(0.0, |r| Figures::of(&r.samples).iops);
    let rows = exp
        .phases
        .iter()
        .filter_map(|p| {
            let run = p.run.as_ref()?;
            Some(figures_row(
                &p.record.phase.name,
                &Figures::of(&run.samples),
                reference_iops,
            ))
        })
        .collect();
    doc.table(&FIGURES_HEAD, rows);
    doc.paragraph(format!(
        "Recomputed from each phase's samples.jsonl. % of ref is the share of {}'s IOPS. p99 is estimated from the intervals' own percentiles.",
        reference.map_or("the first phase", |p| p.record.phase.name.as_str())
    ));
    let states = timeline(exp).fade.states;
    if !states.is_empty() {
        doc.paragraph(format!("States: {}.", states_caption(&states)));
    }
    for line in fade_and_recovery(exp) {
        doc.paragraph(line);
    }
    let amplification: Vec<String> = exp
        .phases
        .iter()
        .filter_map(|p| {
            let wa = p.run.as_ref()?.info.write_amplification.as_ref()?;
            Some(format!("{} {:.2}", p.record.phase.name, wa.factor))
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

    let t = timeline(exp);
    doc.heading("Charts");
    doc.blocks.push(Block::Chart {
        caption: "IOPS of every phase on one timeline, against time and host data written".into(),
        png: fade_png.into(),
        svg: t.fade.svg()?,
    });
    doc.blocks.push(Block::Chart {
        caption: "Latency per interval of every phase: p50, p99, p99.9 and maximum".into(),
        png: latency_png.into(),
        svg: t.latency.svg()?,
    });
    if let Some(chart) = ProtocolChart::of(exp) {
        doc.blocks.push(Block::Chart {
            caption: chart.caption().into(),
            png: format!("{}.png", chart.name()),
            svg: chart.svg()?,
        });
    }

    doc.heading("Phases");
    doc.table(
        &["Phase", "Kind", "Status", "Directory"],
        exp.phases
            .iter()
            .map(|p| {
                vec![
                    p.record.phase.name.clone(),
                    p.record.phase.kind.label().to_string(),
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
    let commands: Vec<String> = exp
        .phases
        .iter()
        .filter_map(|p| {
            if let Some(run) = &p.run {
                return Some(reproduce_command(run));
            }
            let line = &p.erase.as_ref()?.command_line;
            let args: Vec<&str> = line.iter().skip(1).map(String::as_str).collect();
            Some(format!("ssdfade {}", args.join(" ")))
        })
        .collect();
    doc.blocks.push(Block::Code(commands.join("\n")));
    doc.paragraph(format!(
        "Report written by ssdfade {}.",
        env!("CARGO_PKG_VERSION")
    ));
    Ok(doc)
}
