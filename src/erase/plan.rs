//! The erase plan: which method (`auto` picks the strongest the target supports, and says why),
//! resolved into the exact commands for this target, refusing what cannot apply; plus the
//! safety checks that reach beyond the opened target and what they would say in a dry run.

use crate::bad_input;
use crate::device::{safety, same_object};
use crate::drive::DriveInfo;

use super::{discard, EraseRequest, Method, Plan};
use crate::device::nvme::{FormatErase, SanitizeAction};
use crate::device::{ata, nvme};

/// A method with its settings, resolved for a target.
#[derive(Clone, Debug)]
pub struct Choice {
    pub method: Method,
    pub crypto: bool,
    pub action: Option<SanitizeAction>,
    /// Why `auto` chose it, and other notes (recorded in erase.json).
    pub notes: Vec<String>,
}

/// The method `req` asks for, or for `auto` the one chosen for this target.
pub fn choose(facts: &DriveInfo, req: &EraseRequest) -> Choice {
    if req.method == Method::Auto {
        return choose_auto(facts, req);
    }
    Choice {
        method: req.method.clone(),
        crypto: req.crypto,
        action: req.action,
        notes: Vec::new(),
    }
}

/// `auto`: the strongest method this target supports, and why.
fn choose_auto(facts: &DriveInfo, req: &EraseRequest) -> Choice {
    let discard = facts.discard.as_ref().is_some_and(|d| d.supported);
    let fallback = if discard {
        Method::Trim
    } else {
        Method::Zeroout
    };
    let mut choice = Choice {
        method: fallback.clone(),
        crypto: req.crypto,
        action: req.action,
        notes: Vec::new(),
    };
    let why: String = match facts.kind.as_str() {
        "file" => {
            choice.method = Method::Punch;
            "a regular file: punching holes frees its blocks".into()
        }
        "nvme" => match facts.nvme.as_ref().and_then(|n| n.caps.clone()) {
            Some(c) if c.sanitize_crypto || c.sanitize_block => {
                choice.method = Method::NvmeSanitize;
                let action = if c.sanitize_crypto {
                    SanitizeAction::Crypto
                } else {
                    SanitizeAction::Block
                };
                choice.action = Some(action);
                format!("the controller supports Sanitize: {}", action.name())
            }
            Some(c) if c.format_nvm => {
                choice.method = Method::NvmeFormat;
                choice.crypto = c.format_crypto_erase;
                format!(
                    "no Sanitize; Format NVM with {} erase",
                    if c.format_crypto_erase {
                        "cryptographic"
                    } else {
                        "user-data"
                    }
                )
            }
            Some(_) => "the controller supports neither Sanitize nor Format NVM".into(),
            None => "the NVMe erase capabilities could not be read (run as root?)".into(),
        },
        "sata" => match &facts.ata_security {
            Some(s) if s.supported && !s.frozen && !s.enabled && !s.locked => {
                choice.method = Method::AtaSecureErase;
                format!(
                    "ATA security erase{}",
                    if s.enhanced_erase { " (enhanced)" } else { "" }
                )
            }
            Some(s) if s.frozen => format!(
                "ATA security erase is unavailable because the drive is frozen ({})",
                ata::frozen_advice(&facts.path)
            ),
            Some(s) if s.enabled || s.locked => {
                "ATA security erase is unavailable: a password is set".into()
            }
            Some(_) => "the drive has no ATA security feature set".into(),
            None => "the ATA security state could not be read".into(),
        },
        kind => format!("a {kind} device has no secure-erase command"),
    };
    let used = if choice.method == fallback {
        format!("{fallback} ({why})")
    } else {
        format!("{} ({why})", choice.method)
    };
    choice.notes.push(format!("auto chose {used}"));
    choice
}

/// Resolves the chosen method into the exact commands for this target, refusing what cannot apply.
/// A dry run plans through here too, so it refuses exactly what a real run refuses.
pub fn build_plan(
    choice: &mut Choice,
    facts: &DriveInfo,
    req: &EraseRequest,
) -> anyhow::Result<Plan> {
    let target = &req.target;
    let kind = facts.kind.as_str();
    let size = facts.size_bytes.unwrap_or(0);
    let wrong_kind = |wanted: &str, method: &Method| -> anyhow::Result<()> {
        bad_input!(
            "{target} is a {kind} target, not {wanted}: --method {method} cannot apply (try --method auto)"
        );
    };
    let method = choice.method.clone();
    let whole_drive = matches!(
        method,
        Method::NvmeFormat | Method::NvmeSanitize | Method::AtaSecureErase
    );
    if let (true, Some(disk)) = (whole_drive, &facts.partition_of) {
        bad_input!(
            "{target} is a partition, but --method {method} erases the whole drive: name /dev/{disk} (and --destroy-data /dev/{disk}) to confirm that"
        );
    }
    Ok(match &method {
        Method::Trim | Method::SecureDiscard | Method::Zeroout => {
            if kind == "file" {
                bad_input!("--method {method} works on block devices; for a file use --method punch");
            }
            let lb = u64::from(facts.logical_block.unwrap_or(512)).max(512);
            let len = req.span.unwrap_or(size);
            if !len.is_multiple_of(lb) || len > size {
                bad_input!(
                    "--span {len} must be a multiple of the {lb}-byte logical block and at most the device size {size}"
                );
            }
            if req.chunk == 0 || !req.chunk.is_multiple_of(lb) {
                bad_input!("--chunk must be a non-zero multiple of {lb} bytes");
            }
            let no_discard = facts.discard.as_ref().is_some_and(|d| !d.supported);
            if method == Method::Trim && no_discard {
                bad_input!(
                    "{target} does not support discard (TRIM): try --method zeroout, or --method auto"
                );
            }
            if method == Method::SecureDiscard {
                choice.notes.push(SECURE_DISCARD_UNSEEN.into());
            }
            let op = match method {
                Method::Trim => discard::RangeOp::Discard,
                Method::SecureDiscard => discard::RangeOp::SecureDiscard,
                _ => discard::RangeOp::ZeroOut,
            };
            Plan::Range {
                op,
                ranges: discard::chunks(0, len, req.chunk),
            }
        }
        Method::Punch => {
            if kind != "file" {
                bad_input!("--method punch works on regular files; for a device use --method trim");
            }
            Plan::Punch {
                offset: 0,
                len: req.span.unwrap_or(size),
            }
        }
        Method::NvmeFormat => {
            if kind != "nvme" {
                wrong_kind("an NVMe namespace", &method)?;
            }
            let info = facts.nvme.clone().unwrap_or_default();
            if let Some(c) = &info.caps {
                if !c.format_nvm {
                    bad_input!("{target}: the controller does not support Format NVM (OACS bit 1); try --method nvme-sanitize or auto");
                }
                if choice.crypto && !c.format_crypto_erase {
                    bad_input!("{target}: the controller does not support cryptographic erase in Format NVM (FNA bit 2): drop --crypto");
                }
            } else {
                bad_input!("{target}: cannot read the controller's capabilities (Identify Controller): run as root");
            }
            let all = info.caps.as_ref().is_some_and(|c| c.format_all_namespaces);
            if all {
                choice.notes.push("the controller formats all namespaces at once (FNA bit 0): nsid 0xffffffff".into());
            }
            let nsid = if all {
                nvme::NSID_ALL
            } else {
                info.nsid.unwrap_or(1)
            };
            let erase = if choice.crypto {
                FormatErase::Crypto
            } else {
                FormatErase::UserData
            };
            Plan::NvmeFormat(nvme::format_nvm(nsid, info.lba_format.unwrap_or(0), erase))
        }
        Method::NvmeSanitize => {
            if kind != "nvme" {
                wrong_kind("an NVMe namespace", &method)?;
            }
            let action = choice.action.unwrap_or(if choice.crypto {
                SanitizeAction::Crypto
            } else {
                SanitizeAction::Block
            });
            let caps = facts.nvme.as_ref().and_then(|n| n.caps.clone());
            if let Some(c) = &caps {
                let ok = match action {
                    SanitizeAction::Block => c.sanitize_block,
                    SanitizeAction::Crypto => c.sanitize_crypto,
                    SanitizeAction::Overwrite => c.sanitize_overwrite,
                };
                if !ok {
                    bad_input!("{target}: the controller does not support Sanitize {} (SANICAP); see `ssdfade info {target}` for what it supports", action.name());
                }
            } else {
                bad_input!("{target}: cannot read the controller's capabilities (Identify Controller): run as root");
            }
            choice
                .notes
                .push("Sanitize erases every namespace of the NVM subsystem".into());
            Plan::NvmeSanitize(nvme::sanitize(action))
        }
        Method::AtaSecureErase => {
            if kind != "sata" {
                wrong_kind("an ATA (SATA) drive", &method)?;
            }
            let Some(sec) = facts.ata_security.clone() else {
                bad_input!(
                    "{target}: cannot read the ATA security state (IDENTIFY DEVICE through SG_IO): run as root; behind a SAS HBA or USB bridge the pass-through may be missing"
                );
            };
            if !sec.supported {
                bad_input!("{target} does not support the ATA security feature set: try --method trim");
            }
            if sec.frozen {
                bad_input!("{}", ata::frozen_advice(target));
            }
            if sec.locked {
                bad_input!("{target} is security-locked: unlock it first (hdparm --security-unlock PASSWORD {target})");
            }
            if sec.enabled {
                bad_input!("{target} already has a security password set: disable it first (hdparm --security-disable PASSWORD {target})");
            }
            let enhanced = sec.enhanced_erase;
            let estimate = if enhanced {
                sec.enhanced_erase_minutes
            } else {
                sec.erase_minutes
            };
            choice.notes.push(format!(
                "temporary user password \"{}\"; {} erase",
                ata::TEMP_PASSWORD,
                if enhanced { "enhanced" } else { "normal" }
            ));
            Plan::AtaSecureErase(ata::erase_sequence(
                enhanced,
                ata::erase_timeout_ms(estimate, size),
            ))
        }
        Method::Sim => bad_input!(
            "--method sim works on simulated targets (sim:PRESET,...) only; {target} is a {kind} target"
        ),
        Method::Command(template) => {
            Plan::External(crate::erase::external::expand(template, target))
        }
        Method::Auto => unreachable!("auto is resolved before planning"),
    })
}

/// Format NVM on all namespaces and Sanitize reach beyond the namespace that was opened.
pub(super) fn whole_controller(plan: &Plan, facts: &DriveInfo) -> bool {
    match plan {
        Plan::NvmeSanitize(_) => true,
        Plan::NvmeFormat(cmd) => cmd.nsid == nvme::NSID_ALL && facts.kind == "nvme",
        _ => false,
    }
}

/// Refuses when any namespace of the same NVMe subsystem is mounted, swapped on or held.
pub(super) fn ensure_namespaces_unused(name: &str) -> anyhow::Result<()> {
    use std::os::unix::fs::MetadataExt;
    // nvme0n1 → "nvme0n": every namespace of controller (or subsystem) 0.
    let Some(cut) = name.rfind('n').filter(|_| name.starts_with("nvme")) else {
        return Ok(());
    };
    let prefix = &name[..=cut];
    for entry in std::fs::read_dir("/sys/block")?.flatten() {
        let ns = entry.file_name().to_string_lossy().into_owned();
        if ns.starts_with(prefix) && ns != name {
            let dev = format!("/dev/{ns}");
            if let Ok(m) = std::fs::metadata(&dev) {
                safety::ensure_unused(std::path::Path::new(&dev), m.rdev())?;
            }
        }
    }
    Ok(())
}

/// Why secure discard cannot be checked ahead like discard.
pub(super) const SECURE_DISCARD_UNSEEN: &str = "no sysfs attribute tells whether a device accepts secure discard (BLKSECDISCARD; mostly eMMC does): the erase first sends one malformed request that does nothing, and refuses before anything is written when the device rejects it (EOPNOTSUPP)";

/// The refusal when the secure discard probe says no.
pub(super) fn refuse_secure_discard(target: &str) -> anyhow::Result<()> {
    bad_input!(
        "{target} does not support secure discard: BLKSECDISCARD is rejected (EOPNOTSUPP), which shows only when it is sent (no sysfs attribute tells); nothing was written: try --method trim or --method auto"
    )
}

/// The gates of a real run that do not depend on the user's confirmations, checked the same way
/// for a dry run: the target in use (mounted, swap, held, opened exclusively), `--destroy-data`
/// naming something else, and any namespace a controller-wide command reaches.
pub(super) fn dry_run_gates(
    req: &EraseRequest,
    facts: &DriveInfo,
    plan: &Plan,
) -> anyhow::Result<()> {
    let path = std::path::Path::new(&req.target);
    if let Some(named) = &req.destroy_data {
        if !same_object(named, path) {
            bad_input!(
                "--destroy-data names {}, but the target is {}: name the same device twice to confirm",
                named.display(),
                path.display()
            );
        }
    }
    if let Some(why) = &facts.in_use {
        let target = &req.target;
        if why.starts_with(target.as_str()) {
            bad_input!("{why} (refusing to write)");
        }
        bad_input!("{target}: {why} (refusing to write)");
    }
    if whole_controller(plan, facts) {
        ensure_namespaces_unused(&facts.name)?;
    }
    Ok(())
}

/// The confirmations a real run would still need, as lines for the dry run.
pub(super) fn gate_preview(req: &EraseRequest, facts: &DriveInfo) -> Vec<String> {
    let mut out = Vec::new();
    if req.destroy_data.is_none() {
        out.push(format!("needs --destroy-data {}", req.target));
    }
    if let Some(sig) = &facts.signature {
        if !req.force {
            out.push(format!(
                "needs --force as well: {} carries a {sig} signature",
                req.target
            ));
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::device::inspect::{Discard, NvmeInfo};

    fn request(method: Method) -> EraseRequest {
        EraseRequest {
            target: "/dev/sdz".into(),
            records_within: None,
            method,
            destroy_data: None,
            force: false,
            crypto: false,
            action: None,
            span: None,
            chunk: 1 << 30,
            out: None,
            interrupt: Default::default(),
        }
    }

    fn sata(security: ata::Security) -> DriveInfo {
        DriveInfo {
            path: "/dev/sdz".into(),
            kind: "sata".into(),
            name: "sdz".into(),
            size_bytes: Some(60_000_000_000),
            logical_block: Some(512),
            discard: Some(Discard {
                supported: true,
                ..Default::default()
            }),
            ata_security: Some(security),
            ..Default::default()
        }
    }

    fn plan_for(facts: &DriveInfo, a: &EraseRequest) -> anyhow::Result<(Plan, Vec<String>)> {
        let mut choice = choose(facts, a);
        let plan = build_plan(&mut choice, facts, a)?;
        Ok((plan, choice.notes))
    }

    #[test]
    fn frozen_ata_drive_is_refused_with_the_remedy() {
        let facts = sata(ata::Security {
            supported: true,
            frozen: true,
            ..Default::default()
        });
        let err = plan_for(&facts, &request(Method::AtaSecureErase)).unwrap_err();
        assert_eq!(crate::error::exit_code(&err), 2);
        let msg = err.to_string();
        assert!(
            msg.contains("frozen") && msg.contains("suspend") && msg.contains("hot-plug"),
            "{msg}"
        );
    }

    #[test]
    fn auto_on_a_frozen_ata_drive_falls_back_to_trim_and_says_why() {
        let facts = sata(ata::Security {
            supported: true,
            frozen: true,
            ..Default::default()
        });
        let (plan, notes) = plan_for(&facts, &request(Method::Auto)).unwrap();
        assert!(matches!(
            plan,
            Plan::Range {
                op: discard::RangeOp::Discard,
                ..
            }
        ));
        assert!(
            notes[0].starts_with("auto chose trim") && notes[0].contains("frozen"),
            "{notes:?}"
        );
    }

    #[test]
    fn auto_on_an_unfrozen_ata_drive_uses_enhanced_security_erase() {
        let facts = sata(ata::Security {
            supported: true,
            enhanced_erase: true,
            enhanced_erase_minutes: Some(2),
            ..Default::default()
        });
        let (plan, _) = plan_for(&facts, &request(Method::Auto)).unwrap();
        let Plan::AtaSecureErase(cmds) = plan else {
            panic!("expected an ATA plan");
        };
        let names: Vec<u8> = cmds.iter().map(|c| c.cdb[14]).collect();
        assert_eq!(names, vec![0xF1, 0xF3, 0xF4]);
        assert_eq!(cmds[2].data_out.as_ref().unwrap()[0], 0x02);
    }

    #[test]
    fn ata_drive_with_a_password_set_is_refused() {
        let facts = sata(ata::Security {
            supported: true,
            enabled: true,
            ..Default::default()
        });
        let err = plan_for(&facts, &request(Method::AtaSecureErase)).unwrap_err();
        assert!(err.to_string().contains("--security-disable"), "{err}");
    }

    #[test]
    fn auto_on_nvme_prefers_crypto_sanitize_then_format() {
        let mut facts = DriveInfo {
            path: "/dev/nvme9n1".into(),
            kind: "nvme".into(),
            name: "nvme9n1".into(),
            size_bytes: Some(1 << 30),
            nvme: Some(NvmeInfo {
                nsid: Some(1),
                lba_format: Some(0),
                caps: Some(nvme::ControllerCaps {
                    format_nvm: true,
                    sanitize_block: true,
                    sanitize_crypto: true,
                    ..Default::default()
                }),
            }),
            ..Default::default()
        };
        let (plan, _) = plan_for(&facts, &request(Method::Auto)).unwrap();
        assert!(matches!(plan, Plan::NvmeSanitize(c) if c.cdw10 == 0x4));
        facts.nvme.as_mut().unwrap().caps = Some(nvme::ControllerCaps {
            format_nvm: true,
            ..Default::default()
        });
        let (plan, _) = plan_for(&facts, &request(Method::Auto)).unwrap();
        assert!(matches!(plan, Plan::NvmeFormat(c) if c.cdw10 == 0x200 && c.nsid == 1));
        let mut crypto = request(Method::NvmeFormat);
        crypto.crypto = true;
        let err = plan_for(&facts, &crypto).unwrap_err();
        assert!(err.to_string().contains("FNA bit 2"), "{err}");
    }

    #[test]
    fn whole_drive_methods_refuse_a_partition() {
        let mut facts = sata(ata::Security {
            supported: true,
            ..Default::default()
        });
        facts.partition_of = Some("sdz".into());
        let err = plan_for(&facts, &request(Method::AtaSecureErase)).unwrap_err();
        assert!(err.to_string().contains("name /dev/sdz"), "{err}");
        assert!(plan_for(&facts, &request(Method::Trim)).is_ok());
    }

    #[test]
    fn trim_without_discard_support_is_refused_before_anything_is_sent() {
        let mut facts = sata(ata::Security::default());
        facts.discard = Some(Discard::default());
        let err = plan_for(&facts, &request(Method::Trim)).unwrap_err();
        assert!(err.to_string().contains("--method zeroout"), "{err}");
        let (plan, notes) = plan_for(&facts, &request(Method::Auto)).unwrap();
        assert!(matches!(
            plan,
            Plan::Range {
                op: discard::RangeOp::ZeroOut,
                ..
            }
        ));
        assert!(notes[0].starts_with("auto chose zeroout"), "{notes:?}");
    }

    fn nvme_drive() -> DriveInfo {
        DriveInfo {
            path: "/dev/nvme9n1".into(),
            kind: "nvme".into(),
            name: "nvme9n1".into(),
            size_bytes: Some(1 << 30),
            logical_block: Some(4096),
            nvme: Some(NvmeInfo {
                nsid: Some(1),
                lba_format: Some(0),
                caps: Some(nvme::ControllerCaps {
                    format_nvm: true,
                    format_crypto_erase: true,
                    sanitize_block: true,
                    sanitize_crypto: true,
                    sanitize_overwrite: true,
                    ..Default::default()
                }),
            }),
            ..Default::default()
        }
    }

    fn described(facts: &DriveInfo, req: &EraseRequest) -> String {
        plan_for(facts, req).unwrap().0.describe().join("\n")
    }

    #[test]
    fn nvme_and_ata_plans_carry_their_exact_bytes() {
        let nvme = nvme_drive();
        let mut req = request(Method::NvmeFormat);
        req.target = "/dev/nvme9n1".into();
        let format = described(&nvme, &req);
        assert!(format.contains("cdw10 0x00000200"), "{format}");
        assert!(
            format.contains("SQE bytes: 80 00 00 00 01 00 00 00 00 00 00 00"),
            "{format}"
        );
        req.crypto = true;
        assert!(described(&nvme, &req).contains("cdw10 0x00000400"));
        let mut sanitize = request(Method::NvmeSanitize);
        sanitize.action = Some(SanitizeAction::Crypto);
        let text = described(&nvme, &sanitize);
        assert!(
            text.contains("opcode 0x84") && text.contains("cdw10 0x00000004"),
            "{text}"
        );
        sanitize.action = Some(SanitizeAction::Overwrite);
        assert!(described(&nvme, &sanitize).contains("cdw10 0x00000013"));
        let ata = described(
            &sata(ata::Security {
                supported: true,
                ..Default::default()
            }),
            &request(Method::AtaSecureErase),
        );
        assert!(
            ata.contains("CDB: 85 0a 06 00 00 00 01 00 00 00 00 00 00 40 f1 00"),
            "{ata}"
        );
        assert!(
            ata.contains("CDB: 85 06 20 00 00 00 00 00 00 00 00 00 00 40 f3 00"),
            "{ata}"
        );
        assert!(ata.contains("00 00 73 73 64 66 61 64 65 00"), "{ata}");
    }

    #[test]
    fn ata_methods_apply_to_ata_drives_only() {
        let mut scsi = sata(ata::Security::default());
        scsi.kind = "scsi".into();
        scsi.ata_security = None;
        let err = plan_for(&scsi, &request(Method::AtaSecureErase)).unwrap_err();
        assert_eq!(crate::error::exit_code(&err), 2);
        assert!(err.to_string().contains("is a scsi target"), "{err}");
        let (plan, notes) = plan_for(&scsi, &request(Method::Auto)).unwrap();
        assert!(matches!(
            plan,
            Plan::Range {
                op: discard::RangeOp::Discard,
                ..
            }
        ));
        assert!(
            notes[0].contains("a scsi device has no secure-erase command"),
            "{notes:?}"
        );
    }

    #[test]
    fn secure_discard_says_it_cannot_be_checked_in_sysfs() {
        let (_, notes) = plan_for(
            &sata(ata::Security::default()),
            &request(Method::SecureDiscard),
        )
        .unwrap();
        assert!(
            notes.iter().any(|n| n.contains("no sysfs attribute")),
            "{notes:?}"
        );
    }

    #[test]
    fn midway_failure_advice_says_how_to_unlock() {
        let advice = ata::unlock_advice("/dev/sdz");
        assert!(advice.contains("--security-unlock ssdfade /dev/sdz"));
        assert!(advice.contains("--security-disable ssdfade /dev/sdz"));
    }
}
