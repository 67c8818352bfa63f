//! `ssdfade plot DIR`: draw a run directory's charts again from its saved data.

use crate::cli::PlotArgs;

/// Draws the charts and prints the files written, one a line.
pub fn run(args: &PlotArgs) -> anyhow::Result<()> {
    // A signal ends it as interrupted (exit 130), nothing more drawn (see `plot::Chart::write`).
    crate::run::install_signal_flag()?;
    for path in crate::plot::plot_dir(
        &args.dir,
        args.format,
        args.out.as_deref(),
        args.reference,
        crate::protocol::charts,
    )? {
        crate::outln!("{}", path.display())?;
    }
    Ok(())
}
