//! A soak whose SNIA test passes before a purged drive's garbage collection can have settled
//! says so, on the terminal and in the report: sata-tlc-1t at α 1.15 passes SNIA's test after
//! 1.22 drive writes at about 61,000 IOPS while its write amplification is 1.47 of the greedy
//! model's steady 4.09. After a fast plan the rounds start in the steady state (about 21,000
//! IOPS), and nothing is said.

mod common;

use common::{run_ok, ssdfade};
use ssdfade::analysis::unsettled::Unsettled;
use ssdfade::results::read_info;

const DRIVE: &str = "sim:sata-tlc-1t,alpha=1.15,scale=512";
const CAUTION: &str = "if the drive was purged, its garbage collection had not settled";

/// The soak's terminal text and its report.md, each with its lines joined into one.
fn soak(dir: &std::path::Path, name: &str, extra: &[&str]) -> (String, String) {
    let text = run_ok(
        ssdfade(dir)
            .args(["soak", DRIVE, "--until-steady", "--duration", "30d"])
            .args(["--seed", "1", "--out", name])
            .args(extra),
    );
    run_ok(ssdfade(dir).args(["report", name]));
    let report = std::fs::read_to_string(dir.join(name).join("report.md")).unwrap();
    let joined = |s: &str| s.split_whitespace().collect::<Vec<_>>().join(" ");
    (joined(&text), joined(&report))
}

#[test]
fn a_pass_at_a_ceiling_before_garbage_collection_settles_is_told_and_a_fast_plans_is_not() {
    let dir = tempfile::tempdir().unwrap();
    let (text, report) = soak(dir.path(), "slow", &[]);
    assert!(text.contains("Steady state (SNIA PTS) at"), "{text}");
    assert!(text.contains(&format!("Caution: {CAUTION}")), "{text}");
    assert!(text.contains("greedy model at α 1.15"), "{text}");
    assert!(text.contains("--precondition fast"), "{text}");
    assert!(report.contains(CAUTION), "{report}");
    // The model's α is the drive's only where the drive reports its flash: without it (a
    // real drive, a RAM device) nothing is said.
    let mut info = read_info(&dir.path().join("slow")).unwrap();
    assert!(Unsettled::of(&info).is_some());
    info.drive_before.as_mut().unwrap().flash_bytes = None;
    assert_eq!(Unsettled::of(&info), None);

    let (text, report) = soak(dir.path(), "fast", &["--precondition", "fast"]);
    assert!(text.contains("Steady state (SNIA PTS) at"), "{text}");
    assert!(!text.contains(CAUTION), "{text}");
    assert!(!report.contains(CAUTION), "{report}");
}
