//! `ssdfade fleet DIR…`: one report of many drives' runs — parses, calls the analysis, hands
//! the one value to the presenters.

use crate::cli::FleetArgs;
use crate::outfile::Kind;
use crate::plot::{Chart, Format};

/// Prints the fleet (or its JSON) and writes fleet.md, fleet.html, fleet.csv and each group's
/// charts (`fleet-N-strips` and `fleet-N-band`, PNG and SVG, each with its `.chart.json`).
pub fn run(args: &FleetArgs) -> anyhow::Result<()> {
    // A signal ends it as interrupted (exit 130), nothing more drawn (see `plot::Chart::write`).
    crate::run::install_signal_flag()?;
    let fleet = crate::analysis::fleet::of_dirs(&args.dirs)?;
    let charts = crate::report::fleet_charts(&fleet);
    let mut doc = crate::report::fleet_document(&fleet, &charts)?;
    doc.provenance = Some(fleet.provenance.clone());
    let out = args.out.as_deref().unwrap_or(std::path::Path::new("."));
    let files = [
        (out.join("fleet.md"), Kind::Markdown),
        (out.join("fleet.html"), Kind::Html),
        (out.join("fleet.csv"), Kind::FleetCsv),
    ];
    let pictures: Vec<(std::path::PathBuf, Format)> = charts
        .iter()
        .flat_map(|c| {
            ["strips", "band"].into_iter().flat_map(move |which| {
                [Format::Png, Format::Svg].map(|f| {
                    let name = format!("{}-{which}.{}", c.stem, f.extension());
                    (out.join(name), f)
                })
            })
        })
        .collect();
    let texts = [
        doc.markdown(),
        doc.html(),
        crate::output::fleet::csv(&fleet)?,
    ];
    // A folder named by --out is never a link (one to /etc would take the fleet's files) and
    // is made when missing, as `compare --out` does; the files land as one set: a failure
    // half-way (a full disk) leaves the previous fleet's files, or none, and no folder made.
    crate::outfile::set_in_directory(out, || {
        for (path, kind) in &files {
            crate::outfile::check(path, *kind)?;
        }
        for (path, format) in &pictures {
            let kind = match format {
                Format::Png => Kind::Png,
                Format::Svg => Kind::Svg,
            };
            crate::outfile::check(path, kind)?;
            crate::outfile::check(&crate::plot::sidecar_path(path), Kind::ChartRecord)?;
        }
        for ((path, kind), text) in files.iter().zip(&texts) {
            crate::outfile::write(path, *kind, text.as_bytes())?;
        }
        for (c, pair) in charts.iter().zip(pictures.chunks(4)) {
            for (path, format) in &pair[..2] {
                c.strips.write(path, *format, &fleet.provenance)?;
            }
            for (path, format) in &pair[2..] {
                c.band.write(path, *format, &fleet.provenance)?;
            }
        }
        Ok(())
    })?;
    if args.json {
        crate::outln!("{}", serde_json::to_string_pretty(&fleet)?)?;
        return Ok(());
    }
    crate::out!("{}", doc.terminal())?;
    crate::outln!()?;
    for (path, _) in &files {
        crate::outln!("wrote {}", path.display())?;
    }
    crate::outln!(
        "wrote {} charts as {} (PNG and SVG,\n  each with its .chart.json)",
        pictures.len(),
        out.join("fleet-N-{strips,band}.*").display()
    )?;
    Ok(())
}
