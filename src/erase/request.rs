//! An erase as a library call: plan it for the target, check the same safety gates as writing,
//! run it timed and record it in a run directory (`erase.json`). `ssdfade erase` and an
//! experiment's erase phase both call [`erase`] (or [`dry_run`], which sends nothing).

use std::path::{Path, PathBuf};
use std::sync::atomic::AtomicBool;
use std::sync::Arc;
use std::time::Instant;

use super::discard::{secure_discard_rejected, RangeOp};
use super::plan::{
    build_plan, choose, dry_run_gates, ensure_namespaces_unused, gate_preview,
    refuse_secure_discard, whole_controller,
};
use super::{Interrupted, Method, Plan};
use crate::bad_input;
use crate::device::inspect::{gather, DriveInfo};
use crate::device::nvme::SanitizeAction;
use crate::device::{OpenRequest, Target};
use crate::drive::{OwnErase, RunEnd};
use crate::observe::erase::EraseObserver;
use crate::results::record::write_record;
use crate::results::{claim_dir, utc_now, Command, Done, EraseRecord, ProcessStamp, Status};

/// Everything an erase needs, as plain values.
#[derive(Clone, Debug)]
pub struct EraseRequest {
    /// Block device, file or `sim:…` target.
    pub target: String,
    /// The directory whose files erase.json names by their path within it (as
    /// [`crate::run::RunRequest`]'s); `None`: names as given.
    pub records_within: Option<PathBuf>,
    /// The method, or [`Method::Auto`] for the strongest the target supports.
    pub method: Method,
    /// Must name the target (not needed for `sim:` targets).
    pub destroy_data: Option<PathBuf>,
    /// Also erase a device carrying a filesystem or partition-table signature.
    pub force: bool,
    /// Cryptographic erase (nvme-format, nvme-sanitize).
    pub crypto: bool,
    /// Sanitize action for nvme-sanitize (default block, or crypto with `crypto`).
    pub action: Option<SanitizeAction>,
    /// Erase only this much from offset 0 (trim, secure-discard, zeroout, punch, sim trim).
    pub span: Option<u64>,
    /// Size of each discard / zero-out request.
    pub chunk: u64,
    /// Run directory for erase.json; `None`: `results/<UTC time>-<target name>-erase`.
    pub out: Option<PathBuf>,
    /// Set it to stop between range requests and sanitize polls; the outcome is then
    /// [`RunEnd::Interrupted`]. A single ATA or NVMe command is never cut short.
    pub interrupt: Arc<AtomicBool>,
}

/// A finished or interrupted erase (a failed one is an error, recorded all the same).
pub struct EraseOutcome {
    pub dir: PathBuf,
    pub record: EraseRecord,
    /// [`RunEnd::Completed`] or [`RunEnd::Interrupted`].
    pub end: RunEnd,
}

/// What an erase would do to its target.
#[derive(Clone, Debug)]
pub struct ErasePlan {
    /// The method used (the one `auto` chose).
    pub method: Method,
    /// Why `auto` chose it, and other notes.
    pub notes: Vec<String>,
    pub steps: Steps,
}

/// The commands an erase sends.
#[derive(Clone, Debug)]
pub enum Steps {
    /// To a real device or file, with what it is.
    Device { plan: Plan, facts: Box<DriveInfo> },
    /// Done by the device itself (a simulated drive erasing its state file).
    Own(OwnErase),
}

impl ErasePlan {
    /// One line per command, with its bytes (what erase.json records as `plan`).
    pub fn describe(&self) -> Vec<String> {
        match &self.steps {
            Steps::Device { plan, .. } => plan.describe(),
            Steps::Own(how) => vec![format!("simulator: {how:?}")],
        }
    }
}

/// Chooses the method and resolves it into commands for this target, refusing what cannot
/// apply (exit 2), for a dry run as for a real one. Reads the target's facts; changes nothing.
pub fn plan_erase(req: &EraseRequest) -> anyhow::Result<ErasePlan> {
    if req.action.is_some() && !matches!(req.method, Method::NvmeSanitize | Method::Auto) {
        bad_input!(
            "--action applies to --method nvme-sanitize only, not {}: drop --action",
            req.method
        );
    }
    let device = crate::device::open(&req.target)?;
    if let Some(how) = device.own_erase(&req.method.to_string(), req.span) {
        let how = how?;
        return Ok(ErasePlan {
            method: Method::Sim,
            notes: Vec::new(),
            steps: Steps::Own(how),
        });
    }
    let facts = gather(&req.target)?;
    let mut choice = choose(&facts, req);
    let plan = build_plan(&mut choice, &facts, req)?;
    Ok(ErasePlan {
        method: choice.method,
        notes: choice.notes,
        steps: Steps::Device {
            plan,
            facts: Box::new(facts),
        },
    })
}

/// What `--dry-run` prints: the method, the notes, every command with its bytes and the
/// confirmations a real run still needs. It refuses whatever a real run refuses (the method, the
/// target in use, secure discard the device rejects); it sends nothing that changes data and
/// writes nothing.
pub fn dry_run(req: &EraseRequest) -> anyhow::Result<Vec<String>> {
    let planned = plan_erase(req)?;
    let facts = match &planned.steps {
        Steps::Device { plan, facts } => {
            dry_run_gates(req, facts, plan)?;
            if is_secure_discard(plan) && probe_secure_discard(&req.target) {
                refuse_secure_discard(&req.target)?;
            }
            facts
        }
        Steps::Own(how) => {
            return Ok(vec![format!(
                "dry run: would send {how:?} to the simulated drive {}; nothing was changed",
                req.target
            )])
        }
    };
    let mut lines = vec![format!(
        "dry run: erase {} ({}) with {}; nothing is sent",
        req.target, facts.kind, planned.method
    )];
    lines.extend(planned.notes.iter().map(|n| format!("note: {n}")));
    lines.extend(planned.describe());
    lines.extend(
        gate_preview(req, facts)
            .into_iter()
            .map(|gate| format!("a real run {gate}")),
    );
    Ok(lines)
}

/// Plans the erase, checks the safety gates (as for writing, plus every namespace a
/// controller-wide command reaches), creates the run directory with erase.json, runs the erase
/// timed and records its outcome there. Refusals are errors (exit 2) and write nothing; a
/// failed erase is an error too, recorded in erase.json first.
pub fn erase(req: &EraseRequest, observer: &mut dyn EraseObserver) -> anyhow::Result<EraseOutcome> {
    let planned = plan_erase(req)?;
    let (steps, facts) = match &planned.steps {
        Steps::Device { plan, facts } => (plan, (**facts).clone()),
        Steps::Own(how) => return erase_own(req, &planned, *how, observer),
    };
    let request = OpenRequest {
        path: PathBuf::from(&req.target),
        writes: true,
        destroy_data: req.destroy_data.clone(),
        force: req.force,
        size: None,
    };
    let target = Target::open(&request)?;
    if whole_controller(steps, &facts) {
        ensure_namespaces_unused(&facts.name)?;
    }
    if is_secure_discard(steps) && secure_discard_rejected(&target.file) {
        refuse_secure_discard(&req.target)?;
    }
    let target = match steps {
        // The vendor tool may need the device to itself: the gates have passed, let go of it.
        Plan::External(_) => {
            drop(target);
            None
        }
        _ => Some(target),
    };

    let name = format!("{}-erase", facts.name);
    let mut record = new_record(req, &planned, Some(facts));
    let dir = create_record(req, &name, &record)?;
    observer.started(&dir, &record);
    let bar = observer.progress();
    let t0 = Instant::now();
    let file = target.as_ref().map(|t| &t.file);
    let mut tool_started = |group: u32| {
        record.tool_process_group = Some(group);
        // Best effort: the erase goes on even if the record cannot say so.
        let _ = write_erase_record(&dir, &record, req);
    };
    let result = super::execute(
        steps,
        file,
        &req.target,
        bar.as_ref(),
        &req.interrupt,
        &mut tool_started,
    );
    let seconds = t0.elapsed().as_secs_f64();
    bar.finish();
    drop(target);
    record.drive_after = gather(&req.target).ok();
    finish(req, dir, &mut record, seconds, result)
}

fn is_secure_discard(plan: &Plan) -> bool {
    matches!(
        plan,
        Plan::Range {
            op: RangeOp::SecureDiscard,
            ..
        }
    )
}

/// The dry run's secure discard check: the device opened for writing (not exclusively) only to
/// send the request that does nothing; false when it cannot be opened so.
fn probe_secure_discard(target: &str) -> bool {
    std::fs::OpenOptions::new()
        .write(true)
        .open(target)
        .is_ok_and(|f| secure_discard_rejected(&f))
}

/// A device that erases itself (a simulated drive its kept state).
fn erase_own(
    req: &EraseRequest,
    planned: &ErasePlan,
    how: OwnErase,
    observer: &mut dyn EraseObserver,
) -> anyhow::Result<EraseOutcome> {
    let eraser = crate::device::open(&req.target)?.open_own_erase(how)?;
    let name = eraser.name();
    let mut record = new_record(req, planned, None);
    let dir = create_record(req, &format!("{name}-erase"), &record)?;
    observer.started(&dir, &record);
    let t0 = Instant::now();
    let result = eraser.run().map(|detail| Done {
        detail,
        ..Default::default()
    });
    let seconds = t0.elapsed().as_secs_f64();
    finish(req, dir, &mut record, seconds, result)
}

fn new_record(req: &EraseRequest, planned: &ErasePlan, facts: Option<DriveInfo>) -> EraseRecord {
    EraseRecord {
        schema_version: crate::results::erase::SCHEMA_VERSION,
        tool: "ssdfade".into(),
        version: env!("CARGO_PKG_VERSION").into(),
        command: Command::Erase,
        command_line: std::env::args().collect(),
        target: req.target.clone(),
        method_requested: req.method.to_string(),
        method: planned.method.to_string(),
        notes: planned.notes.clone(),
        plan: planned.describe(),
        started_utc: utc_now(),
        ended_utc: None,
        duration_s: None,
        outcome: Status::Running,
        error: None,
        done: None,
        drive_before: facts,
        drive_after: None,
        process: Some(ProcessStamp::current()),
        tool_process_group: None,
    }
}

fn create_record(req: &EraseRequest, name: &str, record: &EraseRecord) -> anyhow::Result<PathBuf> {
    let (dir, _) = claim_dir(req.out.as_deref(), name, "erase.json")?;
    write_erase_record(&dir, record, req)?;
    Ok(dir)
}

/// Writes erase.json; while the erase runs, a forced exit (second Ctrl-C) records it as
/// interrupted with its outcome unknown.
fn write_erase_record(dir: &Path, record: &EraseRecord, req: &EraseRequest) -> anyhow::Result<()> {
    let mut value = serde_json::to_value(record)?;
    if let Some(within) = &req.records_within {
        crate::results::value_within(&mut value, within);
    }
    write_record(
        &dir.join("erase.json"),
        &value,
        record.outcome == Status::Running,
        |v| {
            v["outcome"] = Status::Interrupted.as_str().into();
            v["ended_utc"] = utc_now().into();
            v["error"] = "stopped by a second Ctrl-C while the erase ran: whether it completed is unknown; erase again".into();
        },
    )
}

/// Stores the outcome and turns a failure into an error (exit 1).
fn finish(
    req: &EraseRequest,
    dir: PathBuf,
    record: &mut EraseRecord,
    seconds: f64,
    result: anyhow::Result<Done>,
) -> anyhow::Result<EraseOutcome> {
    record.ended_utc = Some(utc_now());
    record.duration_s = Some(seconds);
    let end = match result {
        Ok(done) => {
            record.outcome = Status::Completed;
            record.done = Some(done);
            Ok(RunEnd::Completed)
        }
        Err(e) if e.downcast_ref::<Interrupted>().is_some() => {
            record.outcome = Status::Interrupted;
            record.error = Some(crate::error::sentence(&e));
            Ok(RunEnd::Interrupted)
        }
        Err(e) => {
            record.outcome = Status::Failed;
            record.error = Some(crate::error::sentence(&e));
            Err(e)
        }
    };
    write_erase_record(&dir, record, req)?;
    let end = end.map_err(|e| {
        e.context(format!(
            "erase of {} with {} failed after {seconds:.3} s (recorded in {}/erase.json)",
            record.target,
            record.method,
            dir.display()
        ))
    })?;
    Ok(EraseOutcome {
        dir,
        record: record.clone(),
        end,
    })
}
