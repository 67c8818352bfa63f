//! `ssdfade report DIR`: print a run's report and write report.md and report.html into DIR.

use crate::cli::ReportArgs;

/// Writes the report and prints it, then the files written.
pub fn run(args: &ReportArgs) -> anyhow::Result<()> {
    let written = crate::report::report_dir(&args.dir)?;
    print!("{}", written.markdown);
    println!();
    for path in &written.files {
        println!("wrote {}", path.display());
    }
    Ok(())
}
