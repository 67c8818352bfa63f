//! `ssdfade report DIR`: print a run's report (fitted to 80 columns) and write report.md and report.html into DIR.

use crate::cli::ReportArgs;

/// Writes the report and prints it, then the files written.
pub fn run(args: &ReportArgs) -> anyhow::Result<()> {
    // A signal ends it as interrupted (exit 130), nothing more drawn (see `plot::Chart::write`).
    crate::run::install_signal_flag()?;
    let written = crate::report::report_dir(&args.dir, args.reference, &crate::protocol::Registry)?;
    crate::out!("{}", written.text)?;
    crate::outln!()?;
    for path in &written.files {
        crate::outln!("wrote {}", path.display())?;
    }
    Ok(())
}
