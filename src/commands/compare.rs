//! `ssdfade compare DIR DIR…`: runs side by side, with ratios to the first.

use std::path::Path;

use crate::cli::CompareArgs;

/// Writes the comparison and prints it, then the files written.
pub fn run(args: &CompareArgs) -> anyhow::Result<()> {
    // A signal ends it as interrupted (exit 130), nothing more drawn (see `plot::Chart::write`).
    crate::run::install_signal_flag()?;
    let out = args.out.as_deref().unwrap_or(Path::new("."));
    let written = crate::report::compare_dirs(&args.dirs, out)?;
    crate::out!("{}", written.text)?;
    crate::outln!()?;
    for path in &written.files {
        crate::outln!("wrote {}", path.display())?;
    }
    Ok(())
}
