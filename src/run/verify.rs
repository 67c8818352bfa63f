//! Data verification around a run (`--verify`): the run's [`Verifier`] before the engine starts,
//! its generation map and report after it ends (a run with bad blocks fails, exit 1), and
//! `ssdfade verify`: a finished run's blocks checked again, read-only, from its directory.

use std::path::Path;
use std::sync::atomic::AtomicBool;
use std::sync::Arc;

use crate::drive::RunEnd;
use crate::results::verify::{load_map, save_map, VerifyReport};
use crate::verify::Verifier;
use crate::workload::Workload;

/// The verifier of a run of `w`, when it asked for verification.
pub(super) fn start(w: &Workload) -> Option<Arc<Verifier>> {
    w.verify.map(|_| Arc::new(Verifier::new(w)))
}

/// Saves the generation map into `dir` and returns the run's end (failed when bad blocks were
/// found in a run that had not failed already) with the report.
pub(super) fn finish(
    verifier: Option<&Verifier>,
    dir: &Path,
    end: RunEnd,
) -> anyhow::Result<(RunEnd, Option<VerifyReport>)> {
    let Some(v) = verifier else {
        return Ok((end, None));
    };
    let unfinished = v.settle_unfinished();
    save_map(dir, &v.generations())?;
    let report = VerifyReport {
        unfinished_writes: unfinished,
        ..v.report()
    };
    let end = match end {
        RunEnd::Completed | RunEnd::Interrupted if !report.clean() => RunEnd::Failed(format!(
            "data verification found {} bad blocks: see \"verify\" in run.json",
            report.counts.total()
        )),
        other => other,
    };
    Ok((end, Some(report)))
}

/// Checks every block the run in `dir` wrote on `target`, reading only: what each block
/// should hold comes from the run's record and its `verify.map`. `stop` ends the pass early.
pub fn verify_run(target: &str, dir: &Path, stop: &AtomicBool) -> anyhow::Result<VerifyReport> {
    if !dir.join(crate::results::run::FILE).is_file() {
        crate::bad_input!(
            "{} holds no run.json: name the run directory of a run made with --verify",
            dir.display()
        );
    }
    let info = crate::results::read_info(dir)?;
    let w = &info.workload;
    if w.verify.is_none() {
        crate::bad_input!(
            "{} was not written with --verify: its blocks carry no header to check; run it again with --verify",
            dir.display()
        );
    }
    let recorded = info.verify.as_ref().map(|r| r.blocks_written);
    let map = load_map(dir, Verifier::blocks_of(w), recorded);
    if crate::stop::requested() {
        return Err(anyhow::Error::new(crate::error::Interrupted(
            "interrupted while the run's verify.map was read: no block checked".into(),
        )));
    }
    let map = map.map_err(|e| crate::error::BadInput(format!("{e:#}")))?;
    // No verification recorded: the run never ended, and its map is the one kept as it went.
    let v = Verifier::with_map(w, &map, recorded.is_none());
    let device = crate::device::open(target)?;
    same_target(target, dir, &info.target, &device.describe()?)?;
    let mut reader = device.open_block_reader(w, &v)?;
    crate::verify::full_pass(&v, reader.as_mut(), &|| {
        stop.load(std::sync::atomic::Ordering::Relaxed)
    });
    Ok(v.report())
}

/// Refuses (bad input) a target that is not the one the run wrote, whose blocks would all
/// read as lost writes: a drive of another serial number or world wide name than run.json
/// records (its path may differ: a device renamed at boot), or, where there are none to
/// compare (a file), another file than the recorded path, or failing both, another size. The
/// same file cut short is the run's target: its missing blocks are unreadable findings.
fn same_target(
    target: &str,
    dir: &Path,
    wrote: &crate::results::TargetRecord,
    now: &crate::drive::DriveInfo,
) -> anyhow::Result<()> {
    let was = &wrote.identity;
    let pairs = [(&was.serial, &now.serial), (&was.wwn, &now.wwn)];
    let compared: Vec<bool> = pairs
        .iter()
        .filter_map(|(a, b)| Some(a.as_ref()?.trim() == b.as_ref()?.trim()))
        .collect();
    let other = if !compared.is_empty() {
        compared.contains(&false)
    } else {
        match (
            std::fs::canonicalize(target),
            std::fs::canonicalize(&wrote.path),
        ) {
            (Ok(here), Ok(there)) => here != there,
            _ => was.size_bytes > 0 && now.size_bytes.is_some_and(|n| n != was.size_bytes),
        }
    };
    if other {
        let shown = |model: &Option<String>, serial: &Option<String>, size: Option<u64>| {
            format!(
                "{}, serial {}, {}",
                model.as_deref().unwrap_or("model unknown"),
                serial.as_deref().unwrap_or("unknown"),
                size.map_or("size unknown".into(), |b| format!("{b} bytes"))
            )
        };
        crate::bad_input!(
            "{target} ({}) is not the target the run in {} wrote, {} ({}): its blocks would all read as lost writes; name the run's own target",
            shown(&now.model, &now.serial, now.size_bytes),
            dir.display(),
            wrote.path,
            shown(&was.model, &was.serial, Some(was.size_bytes))
        );
    }
    Ok(())
}
