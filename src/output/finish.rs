//! The finisher the command line installs: a finished run or experiment gets its charts (PNG)
//! and an experiment its report; a group's members are drawn over each other.

use std::path::{Path, PathBuf};

use crate::observe::finish::Finisher;

/// Charts and reports, as `ssdfade plot`, `report` and `compare` write them.
pub struct ChartsAndReports;

impl Finisher for ChartsAndReports {
    fn run(&self, dir: &Path) -> anyhow::Result<()> {
        crate::plot::render_run_dir(dir, crate::plot::Format::Png, crate::protocol::charts)
            .map(|_| ())
    }

    fn experiment(&self, dir: &Path, report: bool) -> anyhow::Result<()> {
        self.run(dir)?;
        if report {
            crate::report::report_dir(dir, None, &crate::protocol::Registry)?;
        }
        Ok(())
    }

    fn compare(&self, dirs: &[PathBuf], into: &Path) -> anyhow::Result<Vec<PathBuf>> {
        Ok(crate::report::compare_dirs(dirs, into)?.files)
    }
}
