//! `ssdfade fleet DIR…`: one report of many drives' runs — parses, calls the analysis, hands
//! the one value to the presenters.

use crate::cli::FleetArgs;

/// Prints the fleet (or its JSON) and writes fleet.md, fleet.html and fleet.csv.
pub fn run(args: &FleetArgs) -> anyhow::Result<()> {
    let fleet = crate::analysis::fleet::of_dirs(&args.dirs)?;
    let doc = crate::report::fleet_document(&fleet);
    let out = args.out.as_deref().unwrap_or(std::path::Path::new("."));
    let files = [
        (out.join("fleet.md"), crate::outfile::Kind::Markdown),
        (out.join("fleet.html"), crate::outfile::Kind::Html),
        (out.join("fleet.csv"), crate::outfile::Kind::FleetCsv),
    ];
    for (path, kind) in &files {
        crate::outfile::check(path, *kind)?;
    }
    let texts = [
        crate::console::visible(&doc.markdown()).into_owned(),
        crate::console::visible(&doc.html()).into_owned(),
        crate::output::fleet::csv(&fleet)?,
    ];
    for ((path, kind), text) in files.iter().zip(&texts) {
        crate::outfile::write(path, *kind, text.as_bytes())?;
    }
    if args.json {
        crate::outln!("{}", serde_json::to_string_pretty(&fleet)?)?;
        return Ok(());
    }
    crate::out!("{}", doc.terminal())?;
    crate::outln!()?;
    for (path, _) in &files {
        crate::outln!("wrote {}", path.display())?;
    }
    Ok(())
}
