//! Simulated twins: `sim fit` on a run of a known drive recovers its parameters, and the twin
//! (`sim:@FILE`) soaks like the run it was fitted to.

use std::path::Path;

use ssdfade::analysis::twin::{curve, worst_error_pct};
use ssdfade::results::read_samples;
use ssdfade::sim::twin::Twin;

mod common;
use common::{run_ok, ssdfade};

/// Bytes each soak writes: three fills of the 400 GB drive, past its cliff into steady state.
const BYTES: &str = "1200G";

fn soak(dir: &Path, target: &str, out: &str) {
    run_ok(ssdfade(dir).args([
        "soak", target, "--bytes", BYTES, "--seed", "3", "--out", out, "--json",
    ]));
}

#[test]
fn a_fit_recovers_a_known_drive_and_its_twin_soaks_alike() {
    let tmp = tempfile::tempdir().unwrap();
    let dir = tmp.path();
    // The known drive: a dc-ssd-400g 1.5 times faster at α 1.2 instead of 1.28.
    std::fs::write(
        dir.join("truth.toml"),
        "base = \"dc-ssd-400g\"\nmodel = \"known\"\ncapacity = 400000000000\nalpha = 1.2\nspeed = 1.5\noptions = \"scale=256\"\n",
    )
    .unwrap();
    soak(dir, "sim:@truth.toml", "measured");
    let printed = run_ok(ssdfade(dir).args([
        "sim",
        "fit",
        "measured",
        "-o",
        "fit.toml",
        "--base",
        "dc-ssd-400g",
    ]));
    assert!(printed.contains("sim:@fit.toml"), "{printed}");
    let fit = Twin::load(&dir.join("fit.toml")).unwrap();
    assert!((fit.alpha / 1.2 - 1.0).abs() < 0.01, "α {}", fit.alpha);
    assert!((fit.speed / 1.5 - 1.0).abs() < 0.03, "speed {}", fit.speed);
    assert!(fit.fit.as_ref().unwrap().worst_period_pct <= 10.0);

    soak(dir, "sim:@fit.toml", "twin");
    let span = 400_000_000_000;
    let want = curve(&read_samples(&dir.join("measured")).unwrap(), span).unwrap();
    let got = curve(&read_samples(&dir.join("twin")).unwrap(), span).unwrap();
    let worst = worst_error_pct(&want.periods, &got.periods);
    assert!(
        worst <= 10.0,
        "{:?} against {:?}: {worst:.1} %",
        got.periods,
        want.periods
    );
}

#[test]
fn a_missing_twin_file_is_bad_input() {
    let tmp = tempfile::tempdir().unwrap();
    let out = ssdfade(tmp.path())
        .args(["soak", "sim:@nowhere.toml", "--duration", "1m"])
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(2));
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(err.contains("nowhere.toml"), "{err}");
    assert_eq!(err.trim().lines().count(), 1, "{err}");
}
