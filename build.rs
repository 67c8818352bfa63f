//! Build script: names the commit and the build date for `ssdfade --version` in
//! `SSDFADE_BUILD` (`abc1234 2026-12-01`). The commit comes from `git rev-parse --short HEAD`
//! when this source tree is itself a git checkout, else it is `unknown` (a tarball, or a tree
//! unpacked inside some other repository). The date is SOURCE_DATE_EPOCH's when set
//! (reproducible builds), else today's, in UTC.

use std::path::Path;
use std::process::Command;
use std::time::{SystemTime, UNIX_EPOCH};

fn main() {
    let manifest = std::env::var("CARGO_MANIFEST_DIR").expect("cargo sets CARGO_MANIFEST_DIR");
    let manifest = Path::new(&manifest);
    let commit = git(manifest, &["rev-parse", "--short", "HEAD"])
        .filter(|_| own_checkout(manifest))
        .unwrap_or_else(|| "unknown".into());
    if commit != "unknown" {
        // Build again when HEAD moves: HEAD itself, and the branch it points to (its loose ref,
        // or packed-refs only while the branch has no loose ref: packed-refs is shared by every
        // worktree and rewritten when any branch is deleted).
        watch(manifest, "HEAD");
        if let Some(branch) = git(manifest, &["symbolic-ref", "-q", "HEAD"]) {
            if !watch(manifest, &branch) {
                watch(manifest, "packed-refs");
            }
        }
    }
    println!("cargo:rerun-if-changed=build.rs");
    println!("cargo:rerun-if-env-changed=SOURCE_DATE_EPOCH");
    let epoch = std::env::var("SOURCE_DATE_EPOCH")
        .ok()
        .and_then(|s| s.trim().parse::<u64>().ok())
        .unwrap_or_else(|| {
            SystemTime::now()
                .duration_since(UNIX_EPOCH)
                .map_or(0, |d| d.as_secs())
        });
    println!("cargo:rustc-env=SSDFADE_BUILD={commit} {}", date(epoch));
}

/// Asks cargo to run this script again when git's `file` (a path inside the git directory)
/// changes; false when that file does not exist.
fn watch(manifest: &Path, file: &str) -> bool {
    let Some(path) = git(manifest, &["rev-parse", "--git-path", file]) else {
        return false;
    };
    let path = manifest.join(path);
    let exists = path.exists();
    if exists {
        println!("cargo:rerun-if-changed={}", path.display());
    }
    exists
}

/// The trimmed output of `git ARGS` run in `dir`, or None when git is missing or fails.
fn git(dir: &Path, args: &[&str]) -> Option<String> {
    let out = Command::new("git")
        .arg("-C")
        .arg(dir)
        .args(args)
        .output()
        .ok()?;
    let text = String::from_utf8(out.stdout).ok()?.trim().to_string();
    (out.status.success() && !text.is_empty()).then_some(text)
}

/// True when `dir` is the top of a git checkout (not a tarball unpacked inside another one).
fn own_checkout(dir: &Path) -> bool {
    git(dir, &["rev-parse", "--show-toplevel"])
        .is_some_and(|top| Path::new(&top).canonicalize().ok() == dir.canonicalize().ok())
}

/// `YYYY-MM-DD` of the UTC day holding `epoch` seconds (Howard Hinnant's civil_from_days).
fn date(epoch: u64) -> String {
    let z = (epoch / 86_400) as i64 + 719_468;
    let era = z.div_euclid(146_097);
    let doe = z - era * 146_097;
    let yoe = (doe - doe / 1460 + doe / 36_524 - doe / 146_096) / 365;
    let doy = doe - (365 * yoe + yoe / 4 - yoe / 100);
    let mp = (5 * doy + 2) / 153;
    let day = doy - (153 * mp + 2) / 5 + 1;
    let month = if mp < 10 { mp + 3 } else { mp - 9 };
    let year = yoe + era * 400 + i64::from(month <= 2);
    format!("{year:04}-{month:02}-{day:02}")
}
