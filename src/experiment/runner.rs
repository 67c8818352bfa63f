//! Runs an experiment's phases in order, from the first one not completed, recording each
//! change in experiment.json before and after it. Every phase calls the same library as the
//! command that does the same by hand: [`crate::run::run`] (measure, soak), [`crate::erase::erase`]
//! (erase), and [`super::idle`].
//!
//! What a phase cut short does on the next `resume`: a measure or sweep point starts again in
//! its own directory (on a simulated drive it goes on from what the drive saved, which before
//! the end of the run is its start); a soak continues the same series for what is left
//! ([`crate::run::continue_run`]); an erase is run again; an idle is waited again.

use std::path::{Path, PathBuf};
use std::sync::atomic::AtomicBool;
use std::sync::Arc;
use std::time::Duration;

use super::phase::{EraseParams, PhaseKind, RunParams};
use super::record::{ExperimentRecord, Headline, PhaseRecord, TargetIdentity};
use crate::bad_input;
use crate::drive::RunEnd;
use crate::erase::{EraseRequest, Method, NoEraseProgress};
use crate::observe::experiment::ExperimentObserver;
use crate::results::{read_info, read_samples, utc_now, RunInfo};
use crate::results::{Command, EraseRecord, Status};
use crate::run::{continue_run, RunObserver, RunRequest, Safety, Stop};

/// An experiment that ran (to its end, or until interrupted or failed).
pub struct ExperimentOutcome {
    pub dir: PathBuf,
    pub record: ExperimentRecord,
    pub end: RunEnd,
}

/// The target every phase uses: the user's, plus the experiment's own state file for a
/// simulated drive that had none.
pub fn effective_target(dir: &Path, record: &ExperimentRecord) -> String {
    match &record.drive_state {
        Some(file) => format!("{},state={}", record.target, dir.join(file).display()),
        None => record.target.clone(),
    }
}

/// The identity of `target` as an experiment records it (cheap for simulated drives).
pub fn identity_of(target: &str) -> anyhow::Result<TargetIdentity> {
    let info = crate::device::open(target)?.describe()?;
    Ok(TargetIdentity {
        kind: info.kind,
        model: info.model,
        serial: info.serial,
        size_bytes: info.size_bytes,
    })
}

/// Creates the experiment directory with its record and runs every phase.
pub fn start(
    dir: &Path,
    mut record: ExperimentRecord,
    interrupt: Arc<AtomicBool>,
    observer: &mut dyn ExperimentObserver,
) -> anyhow::Result<ExperimentOutcome> {
    preflight(&record)?;
    if dir.join(super::record::FILE).exists() {
        bad_input!(
            "{} already holds an experiment: continue it with `ssdfade resume {}` or choose another --out",
            dir.display(),
            dir.display()
        );
    }
    remove_unfinished_creation(dir, &record);
    crate::results::refuse_occupied(dir)?;
    // The levels made here are removed again if the experiment fails before its first
    // record; a directory that was there before stays.
    let made = match crate::made_dir::MadeDirectory::make(dir) {
        Ok(made) => made,
        Err(e) => bad_input!(
            "cannot create the experiment directory {}: {e}",
            dir.display()
        ),
    };
    let dir = dir.canonicalize()?;
    if record.drive_state.is_some() && dir.to_string_lossy().contains(',') {
        made.remove_empty();
        bad_input!(
            "the experiment directory {} contains a comma, which a sim target's state= path cannot: choose another --out",
            dir.display()
        );
    }
    // Recorded before anything else, so an experiment killed from here on (kill -9 while an
    // aged drive is being made) is one `resume` continues.
    record.save(&dir)?;
    if record.drive_state.is_some() {
        // The drive is made and saved now, so the record holds its stamp from the start. A
        // drive refused here (no room under `ulimit -v`) leaves neither its file, its record
        // nor an empty directory behind.
        match make_drive(effective_target(&dir, &record), &interrupt) {
            Ok(Some(stamp)) => {
                record.drive_stamp = stamp;
                record.save(&dir)?;
            }
            Ok(None) => {
                // Stopped while the drive was being made (an aged full-size drive takes
                // seconds): recorded as interrupted before any phase, without the drive, which
                // `resume` makes afresh.
                return stop_early(&dir, record, RunEnd::Interrupted, observer);
            }
            Err(e) => {
                let _ = std::fs::remove_file(dir.join(super::record::FILE));
                remove_creation(&dir, &record);
                made.remove_empty();
                return Err(e);
            }
        }
    }
    run_phases(&dir, record, interrupt, observer)
}

/// Makes and saves the experiment's new simulated drive, returning the stamp it saved; `None`
/// when `interrupt` is set first: the making is then left to end with the process, so that a
/// signal is obeyed at once however long the drive takes to make.
fn make_drive(
    target: String,
    interrupt: &AtomicBool,
) -> anyhow::Result<Option<Option<crate::drive::StateStamp>>> {
    let (tx, rx) = std::sync::mpsc::channel();
    std::thread::spawn(move || {
        let made = crate::device::open(&target).and_then(|drive| {
            drive.idle(0.0, &AtomicBool::new(false))?;
            Ok(drive.last_saved_stamp())
        });
        let _ = tx.send(made);
    });
    loop {
        match rx.recv_timeout(Duration::from_millis(20)) {
            // A signal the making itself noticed first is the same stop as one seen here.
            Ok(Err(e)) if e.downcast_ref::<crate::error::Interrupted>().is_some() => {
                return Ok(None)
            }
            Ok(made) => return made.map(Some),
            Err(_) if interrupt.load(std::sync::atomic::Ordering::Relaxed) => return Ok(None),
            Err(std::sync::mpsc::RecvTimeoutError::Timeout) => {}
            Err(e) => anyhow::bail!("making the simulated drive: {e}"),
        }
    }
}

/// Removes what an experiment killed while it was being created left in `dir`: its new
/// simulated drive and a half-written record, before any record existed (so no phase ran).
/// Without this the directory was a dead end: `resume` found no experiment, and a new start
/// found files it had not written. Anything else in `dir` stays, and `dir` is then refused.
fn remove_unfinished_creation(dir: &Path, record: &ExperimentRecord) {
    if remove_creation(dir, record) {
        crate::note!(
            "{} held only what an experiment killed while it was being created left (no phase had run): started afresh",
            dir.display()
        );
    }
}

/// Removes the files of an experiment's creation from `dir` when it holds nothing else;
/// true when it removed some.
fn remove_creation(dir: &Path, record: &ExperimentRecord) -> bool {
    let Some(drive) = &record.drive_state else {
        return false;
    };
    let Ok(entries) = std::fs::read_dir(dir) else {
        return false;
    };
    let names: Vec<std::ffi::OsString> = entries.flatten().map(|e| e.file_name()).collect();
    let leftover = |name: &std::ffi::OsString| {
        let name = name.to_string_lossy();
        let temporary = |of: &str| name.starts_with(&format!(".{of}.")) && name.ends_with(".tmp");
        *name == **drive || temporary(drive) || temporary(super::record::FILE)
    };
    if names.is_empty() || !names.iter().all(leftover) {
        return false;
    }
    for name in &names {
        let path = dir.join(name);
        if std::fs::symlink_metadata(&path).is_ok_and(|m| m.is_file()) {
            let _ = std::fs::remove_file(path);
        }
    }
    true
}

/// Refuses to resume an experiment whose simulated drive is not the one it left: missing (a
/// new drive would silently start the protocol over), another drive, or an older copy.
fn check_own_drive(dir: &Path, record: &ExperimentRecord) -> anyhow::Result<()> {
    let Some(file) = &record.drive_state else {
        return Ok(());
    };
    let path = dir.join(file);
    let keep = "resume refused, nothing was changed";
    let now = match crate::device::open(&effective_target(dir, record))?.saved_state() {
        Ok(now) => now,
        Err(e) => bad_input!(
            "the experiment's simulated drive cannot be used ({e:#}): put back the experiment's own {} (from a copy of the experiment directory); {keep}",
            path.display()
        ),
    };
    let started = record.phases.iter().any(|p| p.attempts > 0);
    match (&record.drive_stamp, now) {
        (Some(_), None) | (None, None) if started => bad_input!(
            "the experiment's simulated drive {} is missing or empty, and its phases so far wrote to it (a new drive would start the story over): put the file back from a copy of the experiment directory; {keep}",
            path.display()
        ),
        (Some(want), Some(now)) if now.id != want.id => bad_input!(
            "{} holds another simulated drive (id {}) than the one this experiment made (id {}): put the experiment's own drive back; {keep}",
            path.display(),
            now.id,
            want.id
        ),
        (Some(want), Some(now)) if now.saves < want.saves => bad_input!(
            "{} is an older copy of the experiment's drive (saved {} times; the experiment saw {}): put the latest one back; {keep}",
            path.display(),
            now.saves,
            want.saves
        ),
        _ => Ok(()),
    }
}

/// Refuses to go on while the vendor tool of an erase phase still runs (its ssdfade was
/// killed; the tool, in a process group of its own, was not): a second erase, or writes, would
/// race it.
fn refuse_running_tools(dir: &Path, record: &ExperimentRecord) -> anyhow::Result<()> {
    let this_boot = crate::results::record::ProcessStamp::current().boot_id;
    for p in &record.phases {
        let Some(sub) = p.dir.as_ref().map(|d| dir.join(d)) else {
            continue;
        };
        let Ok(erase) = EraseRecord::load(&sub) else {
            continue;
        };
        let Some(group) = erase.tool_process_group else {
            continue;
        };
        let same_boot = erase
            .process
            .as_ref()
            .is_some_and(|s| s.boot_id == this_boot);
        if same_boot && crate::erase::external::group_alive(group) {
            bad_input!(
                "the erase command of phase {} still runs (process group {group}): wait for it to end, or stop it with `kill -- -{group}`, then resume",
                p.phase.name
            );
        }
    }
    Ok(())
}

/// Checks before anything is created that every phase can run: the target passes the safety
/// gates of writing and every workload suits it (bad input: one line, exit 2, nothing written).
pub fn preflight(record: &ExperimentRecord) -> anyhow::Result<()> {
    let target = &record.target;
    let o = &record.options;
    check_options(record)?;
    let device = crate::device::open(target)?;
    let checked = device.check(&crate::device::Gates {
        writes: true,
        destroy_data: o.destroy_data.clone(),
        force: o.force,
        size: o.size,
    })?;
    let result = check_phases(record, device.as_ref(), &checked);
    if result.is_err() {
        if let Some(file) = &checked.created {
            let _ = std::fs::remove_file(file);
        }
    }
    result
}

/// The checks of [`preflight`] a dry run can make without writing: the experiment's options
/// always, every phase's workload against the target when it opens for reading (a test file
/// `--size` would create is not made: its phases are checked when the run starts).
pub fn check_plan(record: &ExperimentRecord) -> anyhow::Result<()> {
    check_options(record)?;
    let Ok(device) = crate::device::open(&record.target) else {
        return Ok(());
    };
    let read_only = crate::device::Gates {
        writes: false,
        destroy_data: None,
        force: false,
        size: None,
    };
    match device.check(&read_only) {
        Ok(checked) => check_phases(record, device.as_ref(), &checked),
        Err(_) => Ok(()),
    }
}

/// The experiment's own options: a checkpoint period above zero, and SNIA rounds that hold at
/// least one sample interval of every soak (the phases judged by them).
fn check_options(record: &ExperimentRecord) -> anyhow::Result<()> {
    let o = &record.options;
    if let Some(c) = o.checkpoint_s {
        if c.is_nan() || c <= 0.0 {
            bad_input!("--checkpoint {c} s: give a period above zero such as 4h (how often a simulated drive saves itself)");
        }
    }
    for p in &record.phases {
        let PhaseKind::Soak(params) = &p.phase.kind else {
            continue;
        };
        if o.ss_round_s.is_nan() || o.ss_round_s < params.interval_s {
            bad_input!(
                "--ss-round {} s is shorter than the {} s sample interval of phase {}: a steady-state round holds whole intervals; use --ss-round {} s or more",
                o.ss_round_s,
                params.interval_s,
                p.phase.name,
                params.interval_s
            );
        }
    }
    Ok(())
}

/// Every phase against the target as the gates let it through: its workload fits, an engine
/// it asks for can be chosen, and its erase method applies, before any phase runs.
fn check_phases(
    record: &ExperimentRecord,
    device: &dyn crate::device::Device,
    checked: &crate::device::Checked,
) -> anyhow::Result<()> {
    let o = &record.options;
    let (size, logical_block) = (checked.identity.size_bytes, checked.identity.logical_block);
    for p in &record.phases {
        let params = match &p.phase.kind {
            PhaseKind::Measure(params)
            | PhaseKind::SweepPoint(params)
            | PhaseKind::Soak(params) => params,
            PhaseKind::Erase(params) => {
                let request =
                    erase_request(record, params, &record.target, None, &Default::default())?;
                crate::erase::plan_erase(&request)
                    .map_err(|e| e.context(format!("phase {}", p.phase.name)))?;
                continue;
            }
            PhaseKind::Idle(_) => continue,
        };
        if !device.takes_engine_choice() {
            if let Some(engine) = &params.engine {
                bad_input!(
                    "phase {}: the {engine} engine does not apply to {}: a simulated drive runs on its own engine; sweep --qd instead of --threads",
                    p.phase.name,
                    record.target
                );
            }
            if o.engine.is_some() {
                bad_input!(
                    "--engine does not apply to {}: a simulated drive runs on its own engine; drop --engine",
                    record.target
                );
            }
        }
        let workload = params.workload.on_target(
            size,
            params.duration_s.map(Duration::from_secs_f64),
            params.bytes,
            Duration::from_secs_f64(params.interval_s),
        );
        workload
            .validate(size, logical_block)
            .map_err(|e| e.context(format!("phase {}", p.phase.name)))?;
    }
    Ok(())
}

/// Continues an experiment from its first phase not completed. A completed, corrupt or
/// unknown-version directory, or a target that is now another drive, is refused (exit 2).
pub fn resume(
    dir: &Path,
    interrupt: Arc<AtomicBool>,
    observer: &mut dyn ExperimentObserver,
) -> anyhow::Result<ExperimentOutcome> {
    let record = ExperimentRecord::load(dir)?;
    record.check_resumable(dir)?;
    // The phases that ran are read back as `report` reads them: a record edited or damaged
    // since (a NaN, a negative count) is refused now, before more phases are run on it.
    crate::results::check_completed_phases(dir, &record)?;
    let dir = dir.canonicalize()?;
    if record.phases.iter().all(|p| p.status == Status::Completed) {
        bad_input!(
            "{} is a completed experiment ({} phases): nothing to resume",
            dir.display(),
            record.phases.len()
        );
    }
    let now = match identity_of(&record.target) {
        Ok(id) => id,
        Err(e) => bad_input!(
            "the experiment's target {} cannot be opened now ({e:#}): resume when it is back",
            record.target
        ),
    };
    if now != record.identity {
        bad_input!(
            "{} is now another drive ({} {} serial {}) than the experiment started on ({} {} serial {}): resume refused",
            record.target,
            now.kind,
            now.model.as_deref().unwrap_or("?"),
            now.serial.as_deref().unwrap_or("?"),
            record.identity.kind,
            record.identity.model.as_deref().unwrap_or("?"),
            record.identity.serial.as_deref().unwrap_or("?")
        );
    }
    check_own_drive(&dir, &record)?;
    check_drive_names(&dir, &record)?;
    refuse_running_tools(&dir, &record)?;
    run_phases(&dir, record, interrupt, observer)
}

/// Holds an experiment directory for one process: a second `resume` of the same directory
/// while the first still runs would interleave two runs of the same phase.
fn lock(dir: &Path) -> anyhow::Result<std::fs::File> {
    let path = dir.join(".lock");
    let file = std::fs::File::create(&path)
        .map_err(|e| anyhow::anyhow!("creating {}: {e}", path.display()))?;
    // The lock lives as long as the returned file.
    match crate::holder::flock_exclusive(&file) {
        Ok(None) => Ok(file),
        Ok(Some(holder)) => bad_input!(
            "{} is in use by another ssdfade process, {holder}: wait for it to end (or stop it) first",
            dir.display()
        ),
        Err(e) => bad_input!("cannot lock {}: {e}", path.display()),
    }
}

/// Ends the experiment before its last phase (interrupted or failed): recorded, charts and
/// report of what ran drawn.
fn stop_early(
    dir: &Path,
    mut record: ExperimentRecord,
    end: RunEnd,
    observer: &mut dyn ExperimentObserver,
) -> anyhow::Result<ExperimentOutcome> {
    record.status = Status::of_end(&end);
    if end == RunEnd::Interrupted {
        record.interrupted_by = crate::run::interrupted_by();
    }
    record.save(dir)?;
    crate::observe::finish::experiment(dir, true);
    observer.finished(&record);
    Ok(ExperimentOutcome {
        dir: dir.to_path_buf(),
        record,
        end,
    })
}

/// Takes out of the record the pending phases its figures make moot (a PTS test's rounds after
/// its steady window: [`crate::analysis::pts::moot_phases`]), with a note saying so.
fn drop_moot_phases(dir: &Path, record: &mut ExperimentRecord) -> anyhow::Result<()> {
    let moot = crate::analysis::pts::moot_phases(record);
    let (Some(&first), Some(&last)) = (moot.first(), moot.last()) else {
        return Ok(());
    };
    record.notes.push(format!(
        "steady state reached: {} later phases not run ({} to {})",
        moot.len(),
        record.phases[first].phase.name,
        record.phases[last].phase.name
    ));
    let mut index = 0;
    record.phases.retain(|_| {
        index += 1;
        !moot.contains(&(index - 1))
    });
    record.save(dir)
}

fn run_phases(
    dir: &Path,
    mut record: ExperimentRecord,
    interrupt: Arc<AtomicBool>,
    observer: &mut dyn ExperimentObserver,
) -> anyhow::Result<ExperimentOutcome> {
    let _lock = lock(dir)?;
    let target = effective_target(dir, &record);
    record.status = Status::Running;
    record.interrupted_by = None;
    record.save(dir)?;
    observer.started(dir, &record);
    let mut i = 0;
    while i < record.phases.len() {
        drop_moot_phases(dir, &mut record)?;
        if i >= record.phases.len() {
            break;
        }
        if record.phases[i].status == Status::Completed {
            i += 1;
            continue;
        }
        if interrupt.load(std::sync::atomic::Ordering::Relaxed) {
            // Between phases: the next one is not started.
            return stop_early(dir, record, RunEnd::Interrupted, observer);
        }
        {
            let p = &mut record.phases[i];
            p.status = Status::Running;
            p.started_utc = Some(utc_now());
            p.ended_utc = None;
            p.error = None;
            p.attempts += 1;
        }
        record.save(dir)?;
        observer.phase_started(i, &record.phases[i]);
        let result = run_phase(dir, &record, i, &target, &interrupt, observer);
        if record.drive_state.is_some() {
            // The drive as the phase left it (a drive that cannot be read stays as last seen),
            // from the head of the file it just saved: decoding the whole drive took seconds
            // after a Ctrl-C on a full-size simulated drive.
            if let Some(stamp) = crate::device::open(&target)
                .ok()
                .and_then(|d| d.last_saved_stamp())
            {
                record.drive_stamp = Some(stamp);
            }
        }
        let p = &mut record.phases[i];
        p.ended_utc = Some(utc_now());
        let end = match result {
            Ok((end, headline)) => {
                p.headline = Some(headline);
                p.status = Status::of_end(&end);
                if let RunEnd::Failed(why) = &end {
                    p.error = Some(why.clone());
                }
                end
            }
            // A refusal before the phase wrote anything (its target busy for a moment, gone
            // or changed) leaves it to be started again: the experiment is not failed by it.
            Err(e) if e.downcast_ref::<crate::error::BadInput>().is_some() => {
                p.status = Status::Pending;
                p.started_utc = None;
                p.ended_utc = None;
                p.attempts -= 1;
                p.error = Some(format!("not started: {}", crate::error::sentence(&e)));
                record.status = Status::Interrupted;
                record.save(dir)?;
                observer.finished(&record);
                return Err(e.context(format!(
                    "phase {} of the experiment in {} was not started; it is kept to resume (`ssdfade resume {}`)",
                    record.phases[i].phase.name,
                    dir.display(),
                    dir.display()
                )));
            }
            // Stopped by a signal before the phase ran (its drive was being loaded): kept to
            // start again, the experiment interrupted, not failed.
            Err(e) if e.downcast_ref::<crate::error::Interrupted>().is_some() => {
                p.status = Status::Pending;
                p.started_utc = None;
                p.ended_utc = None;
                p.attempts -= 1;
                return stop_early(dir, record, RunEnd::Interrupted, observer);
            }
            Err(e) => {
                p.status = Status::Failed;
                p.error = Some(crate::error::sentence(&e));
                record.status = Status::Failed;
                record.save(dir)?;
                observer.finished(&record);
                return Err(e.context(format!(
                    "phase {} of the experiment in {} (resume with `ssdfade resume {}`)",
                    record.phases[i].phase.name,
                    dir.display(),
                    dir.display()
                )));
            }
        };
        if end != RunEnd::Completed {
            // Saved once, with the experiment's end (the record is large: a PTS has
            // thousands of phases, and a stop has a second).
            observer.phase_finished(i, &record.phases[i]);
            return stop_early(dir, record, end, observer);
        }
        record.save(dir)?;
        // The experiment's charts so far, so an unfinished 8 h experiment has them too (none
        // before a phase with samples: a purge first is no reason for a note).
        if crate::results::any_phase_has_samples(dir, &record) {
            crate::observe::finish::experiment(dir, false);
        }
        observer.phase_finished(i, &record.phases[i]);
        i += 1;
    }
    record.status = Status::Completed;
    record.save(dir)?;
    crate::observe::finish::experiment(dir, true);
    observer.finished(&record);
    Ok(ExperimentOutcome {
        dir: dir.to_path_buf(),
        record,
        end: RunEnd::Completed,
    })
}

fn run_phase(
    dir: &Path,
    record: &ExperimentRecord,
    i: usize,
    target: &str,
    interrupt: &Arc<AtomicBool>,
    observer: &mut dyn ExperimentObserver,
) -> anyhow::Result<(RunEnd, Headline)> {
    let p = &record.phases[i];
    let sub = p.dir.as_ref().map(|d| dir.join(d));
    match &p.phase.kind {
        PhaseKind::Measure(params) | PhaseKind::SweepPoint(params) | PhaseKind::Soak(params) => {
            let soak = matches!(p.phase.kind, PhaseKind::Soak(_));
            let sub = sub.expect("run phases have a directory");
            follow_move(&sub, record, target)?;
            let params = super::sweep::resolve_rate(dir, record, params)?;
            let request = run_request(record, p, &params, target, &sub, soak, interrupt);
            let mut run_observer = observer.run_observer(p);
            run_in(&request, soak, run_observer.as_mut())
        }
        PhaseKind::Erase(params) => {
            let sub = sub.expect("erase phases have a directory");
            erase_in(record, params, target, &sub, interrupt)
        }
        PhaseKind::Idle(params) => {
            let end = super::idle::idle(target, params.seconds, interrupt)?;
            Ok((
                end,
                Headline {
                    seconds: params.seconds,
                    ..Headline::default()
                },
            ))
        }
    }
}

/// The seed of one phase of an experiment given `--seed`: derived from the experiment's seed
/// and the phase's name, so the experiment is reproducible while its phases do not repeat one
/// offset sequence (a phase that rewrote the previous phase's offsets in the same order would
/// find whole blocks invalid and garbage collection free).
fn phase_seed(seed: u64, phase: &str) -> u64 {
    let name = phase.bytes().fold(0xcbf2_9ce4_8422_2325_u64, |h, b| {
        (h ^ u64::from(b)).wrapping_mul(0x0100_0000_01b3)
    });
    crate::pattern::mix64(seed ^ name)
}

fn run_request(
    record: &ExperimentRecord,
    p: &PhaseRecord,
    params: &RunParams,
    target: &str,
    sub: &Path,
    soak: bool,
    interrupt: &Arc<AtomicBool>,
) -> RunRequest {
    let o = &record.options;
    let stop = Stop::new(
        params.duration_s.map(Duration::from_secs_f64),
        params.bytes,
        Duration::from_secs(60),
    )
    .with_steady(Duration::from_secs_f64(o.ss_round_s), params.until_steady);
    let mut workload = params.workload.clone();
    workload.seed = workload.seed.map(|seed| phase_seed(seed, &p.phase.name));
    RunRequest {
        target: target.to_string(),
        records_within: record
            .drive_state
            .as_ref()
            .and(sub.parent())
            .map(Path::to_path_buf),
        workload,
        stop,
        interval: Duration::from_secs_f64(params.interval_s),
        engine: params
            .engine
            .as_deref()
            .and_then(|e| <crate::engine::EngineKind as clap::ValueEnum>::from_str(e, true).ok())
            .or(o.engine),
        safety: Safety {
            destroy_data: o.destroy_data.clone(),
            force: o.force,
            size: o.size,
        },
        out: Some(sub.to_path_buf()),
        command: Command::Experiment(format!("{} {}", record.name, p.phase.name)),
        interrupt: interrupt.clone(),
        checkpoint: if soak {
            o.checkpoint_s.map(Duration::from_secs_f64)
        } else {
            None
        },
    }
}

/// A phase run names the experiment's simulated drive by its name in the experiment directory
/// (`sim:…,state=drive.sim`). One recorded by an older ssdfade names it by its absolute path:
/// inside the directory, it is named anew by its name ([`check_drive_names`] refused any
/// other).
fn follow_move(sub: &Path, record: &ExperimentRecord, target: &str) -> anyhow::Result<()> {
    let (Some(_), Ok(info), Some(dir)) = (&record.drive_state, read_info(sub), sub.parent()) else {
        return Ok(());
    };
    if info.target.path == target {
        let mut value = serde_json::to_value(&info)?;
        crate::results::value_within(&mut value, dir);
        crate::results::write_json_atomic(&sub.join(crate::results::run::FILE), &value)?;
    }
    Ok(())
}

/// Refuses, before anything is changed, a phase run that names the experiment's simulated
/// drive anywhere but the experiment directory (a record edited, or a directory moved since
/// an older ssdfade wrote it with an absolute path), as any name a record gives that leaves
/// the directory.
fn check_drive_names(dir: &Path, record: &ExperimentRecord) -> anyhow::Result<()> {
    let Some(file) = &record.drive_state else {
        return Ok(());
    };
    let here = effective_target(dir, record);
    for sub in record.phases.iter().filter_map(|p| p.dir.as_ref()) {
        let path = dir.join(sub).join(crate::results::run::FILE);
        let Ok(info) = read_info(&dir.join(sub)) else {
            continue;
        };
        let recorded = &info.target.path;
        if let Some(state) = recorded.strip_prefix(&format!("{},state=", record.target)) {
            if state != file && *recorded != here {
                bad_input!(
                    "{}: target.path names the simulated drive at {state}, not the experiment's own {file} in {}: the record was edited, or the directory was moved by an older ssdfade; write `state={file}` in its place to resume (nothing was changed)",
                    path.display(),
                    dir.display()
                );
            }
        }
    }
    Ok(())
}

/// Runs (or finishes) a measure or soak in its directory.
fn run_in(
    request: &RunRequest,
    soak: bool,
    observer: &mut dyn RunObserver,
) -> anyhow::Result<(RunEnd, Headline)> {
    let sub = request.out.clone().expect("phase directory");
    let previous: Option<RunInfo> = read_info(&sub).ok();
    let outcome = match previous {
        // The run ended but the experiment did not hear of it (a crash in between).
        Some(info) if info.status == Status::Completed => {
            return Ok((RunEnd::Completed, headline(&sub, &info)))
        }
        // A soak goes on with its series; on a simulated drive any run goes on from what the
        // drive saved (for a measure, its start), so the drive and the samples agree.
        Some(_) if soak || crate::device::open(&request.target)?.keeps_state() => {
            continue_run(request, observer)?
        }
        _ => {
            if sub.exists() {
                std::fs::remove_dir_all(&sub)?;
            }
            crate::run::run(request, observer)?
        }
    };
    Ok((outcome.end.clone(), headline(&sub, &outcome.info)))
}

fn headline(sub: &Path, info: &RunInfo) -> Headline {
    let bytes_written = read_samples(sub)
        .ok()
        .and_then(|s| s.last().map(|s| s.bytes_written_total));
    let s = info.summary.clone().unwrap_or_default();
    Headline {
        iops: Some(s.iops),
        mb_per_s: Some(s.mb_per_s),
        lat_us: s.lat_us,
        seconds: s.seconds,
        bytes_written,
        steady_state: info.steady_state.clone(),
        method: None,
    }
}

/// Runs an erase in its directory; one cut short before (its outcome unknown) is run again.
fn erase_in(
    record: &ExperimentRecord,
    params: &EraseParams,
    target: &str,
    sub: &Path,
    interrupt: &Arc<AtomicBool>,
) -> anyhow::Result<(RunEnd, Headline)> {
    let done = |r: &EraseRecord| Headline {
        seconds: r.duration_s.unwrap_or(0.0),
        method: Some(r.method.clone()),
        ..Headline::default()
    };
    if let Ok(r) = EraseRecord::load(sub) {
        if r.outcome == Status::Completed {
            return Ok((RunEnd::Completed, done(&r)));
        }
    }
    if sub.exists() {
        std::fs::remove_dir_all(sub)?;
    }
    let request = erase_request(record, params, target, Some(sub), interrupt)?;
    let outcome = crate::erase::erase(&request, &mut NoEraseProgress)?;
    Ok((outcome.end.clone(), done(&outcome.record)))
}

/// The erase an erase phase sends to `target`, recorded in `sub`.
fn erase_request(
    record: &ExperimentRecord,
    params: &EraseParams,
    target: &str,
    sub: Option<&Path>,
    interrupt: &Arc<AtomicBool>,
) -> anyhow::Result<EraseRequest> {
    let method: Method = match params.method.parse() {
        Ok(m) => m,
        Err(e) => bad_input!("erase method {}: {e}", params.method),
    };
    Ok(EraseRequest {
        target: target.to_string(),
        records_within: record
            .drive_state
            .as_ref()
            .and(sub.and_then(Path::parent))
            .map(Path::to_path_buf),
        method,
        destroy_data: record.options.destroy_data.clone(),
        force: record.options.force,
        crypto: false,
        action: None,
        span: None,
        chunk: 1 << 30,
        out: sub.map(Path::to_path_buf),
        interrupt: interrupt.clone(),
    })
}
