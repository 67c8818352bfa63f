//! What becomes of a finished directory: measuring says "this run (experiment, group) is done"
//! and the finisher the edge installed draws its charts and writes its report, the way hyperfine
//! hands its exporter to the scheduler. Measuring never imports presenting; without an installed
//! finisher (a library caller) nothing is drawn, and `ssdfade plot`/`report DIR` draws it later.

use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::OnceLock;

/// Turns finished directories into charts and reports.
pub trait Finisher: Send + Sync {
    /// A run directory (or a phase's, or a slog run's) is complete or as far as it got.
    fn run(&self, dir: &Path) -> anyhow::Result<()>;
    /// An experiment directory: its charts (also after every phase) and, at its end, its report.
    fn experiment(&self, dir: &Path, report: bool) -> anyhow::Result<()>;
    /// The members of a group drawn over each other into `into`; the files written.
    fn compare(&self, dirs: &[PathBuf], into: &Path) -> anyhow::Result<Vec<PathBuf>>;
}

static FINISHER: OnceLock<Box<dyn Finisher>> = OnceLock::new();

/// Installs the finisher for this process (the first call wins).
pub fn install(finisher: Box<dyn Finisher>) {
    let _ = FINISHER.set(finisher);
}

/// Set by the first Ctrl-C, SIGTERM or SIGHUP: the process is to end within a second, and
/// drawing a long run's charts (three passes for an experiment) took longer than that.
static SIGNALLED: AtomicBool = AtomicBool::new(false);

/// Draws nothing from now on: a signal asked the process to end. The records are written as
/// before; `ssdfade report DIR` (or `plot DIR`) draws what was skipped.
pub fn stop_drawing() {
    SIGNALLED.store(true, Ordering::SeqCst);
}

/// True when a signal asked this process to end (said once, naming the first directory).
fn skipped(dir: &Path) -> bool {
    static SAID: AtomicBool = AtomicBool::new(false);
    let skip = SIGNALLED.load(Ordering::SeqCst) && FINISHER.get().is_some();
    if skip && !SAID.swap(true, Ordering::SeqCst) {
        crate::note!(
            "ssdfade: note: stopped by a signal, so no charts or report were drawn: `ssdfade report DIR` draws them (first {})",
            dir.display()
        );
    }
    skip
}

/// Draws a finished run's charts; one that cannot be drawn is a note, not a failed run.
pub fn run(dir: &Path) {
    if skipped(dir) {
        return;
    }
    if let Some(f) = FINISHER.get() {
        if let Err(e) = f.run(dir) {
            // A signal during the drawing stops it: said once, as when it came before.
            if !skipped(dir) {
                crate::note!("ssdfade: note: no charts drawn in {}: {e:#}", dir.display());
            }
        }
    }
}

/// Draws an experiment's charts so far and, with `report`, writes its report; a failure is a
/// note (`ssdfade report DIR` writes it again from the saved data).
pub fn experiment(dir: &Path, report: bool) {
    if skipped(dir) {
        return;
    }
    if let Some(f) = FINISHER.get() {
        if let Err(e) = f.experiment(dir, report) {
            if skipped(dir) {
                return;
            }
            crate::note!(
                "ssdfade: note: no charts or report written in {}: {e:#}",
                dir.display()
            );
        }
    }
}

/// Draws a group's members over each other; `None` with fewer than two or no finisher.
pub fn compare(dirs: &[PathBuf], into: &Path) -> Option<Result<Vec<PathBuf>, String>> {
    let f = FINISHER.get()?;
    if dirs.len() >= 2 && skipped(into) {
        return None;
    }
    (dirs.len() >= 2).then(|| f.compare(dirs, into).map_err(|e| format!("{e:#}")))
}
