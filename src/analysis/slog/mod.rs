//! The SLOG figures: the evidence gathered from a slog run and the directories it names
//! (soaks, erases, power-loss checks), the verdict judged from it, and the device beside its
//! baseline.

pub mod baseline;
pub mod evidence;
pub mod verdict;

use std::path::Path;

use verdict::Verdict;

/// The verdict of an earlier slog run directory, recomputed from its records (for reports).
pub fn verdict_of_dir(dir: &Path) -> anyhow::Result<Verdict> {
    let record = crate::results::slog::read_record(dir)?;
    let info = crate::results::read_info(dir)?;
    let samples = crate::results::read_samples(dir)?;
    let sources = evidence::Sources::load(&record.from)?;
    let evidence = evidence::collect(
        Some(&evidence::ThisRun {
            dir,
            measured: &record.device.measured,
            info: &info,
            samples: &samples,
        }),
        &sources,
        record.evidence.zil_bytes_per_day,
        None,
    );
    let mut evidence = evidence;
    // The vendor rating given on the command line is kept in the record.
    if evidence.endurance.is_none() {
        evidence.endurance = record.evidence.endurance.clone();
    }
    // So is the medium the run was made on.
    evidence.volatile = record.evidence.volatile.clone();
    Ok(verdict::judge(&evidence))
}
