//! Evidence belongs to its device: every `--from` directory of `slog` must have been measured on
//! the device under test (the same file or block device, the same simulated drive spec and
//! kept drive, and, where both records know it, the same serial). A soak of another drive would
//! otherwise lend its fade, and a power-loss check of another device its pass, to this one.

use std::path::Path;

use super::evidence::Sources;
use crate::bad_input;
use crate::drive::Identity;
use crate::slog::plp::wire::shown;

/// Refuses (bad input, naming the directory, what it was measured on and the device under
/// test) any source measured on another device than `target`, whose identity is `identity`.
pub fn check(sources: &Sources, target: &str, identity: &Identity) -> anyhow::Result<()> {
    let runs = sources.runs.iter().map(|(d, i, _)| {
        let serial = i.target.identity.serial.as_deref();
        (d, i.target.path.as_str(), serial)
    });
    let erases = sources.erases.iter().map(|(d, e)| {
        let serial = e.drive_before.as_ref().and_then(|b| b.serial.as_deref());
        (d, e.target.as_str(), serial)
    });
    let plp = sources
        .plp
        .iter()
        .map(|(d, r)| (d, r.target.as_str(), None));
    let slogs = sources
        .slogs
        .iter()
        .map(|(d, r)| (d, r.device.target.as_str(), None));
    for (dir, recorded, serial) in runs.chain(erases).chain(plp).chain(slogs) {
        refuse_other(dir, recorded, serial, target, identity)?;
    }
    Ok(())
}

fn refuse_other(
    dir: &Path,
    recorded: &str,
    serial: Option<&str>,
    target: &str,
    identity: &Identity,
) -> anyhow::Result<()> {
    // A phase record names the experiment's own drive relatively (`state=drive.sim`): the
    // experiment directory holds the phase directory `dir`.
    let recorded_base = dir.parent().unwrap_or(dir);
    if !same_target(recorded, recorded_base, target) {
        bad_input!(
            "--from {}: it was measured on {}, not on {}: evidence counts only for the device it was measured on; give a directory of this device",
            dir.display(),
            shown(recorded),
            shown(target)
        );
    }
    if let (Some(was), Some(now)) = (serial, identity.serial.as_deref()) {
        if was != now {
            bad_input!(
                "--from {}: it was measured on the drive with serial {}, but {} is serial {}: another drive at the same name; give a directory of this drive",
                dir.display(),
                shown(was),
                shown(target),
                shown(now)
            );
        }
    }
    Ok(())
}

/// Whether `recorded`, a target as a record names it (its relative `state=` file inside
/// `recorded_base`), is `target`: the same text, the same file or block device, or the same
/// simulated drive options in any order (a kept drive's `state=` file compared as a file).
fn same_target(recorded: &str, recorded_base: &Path, target: &str) -> bool {
    if recorded == target {
        return true;
    }
    match (recorded.strip_prefix("sim:"), target.strip_prefix("sim:")) {
        (Some(a), Some(b)) => sim_options(a, recorded_base) == sim_options(b, Path::new(".")),
        (None, None) => {
            crate::device::same_object(&recorded_base.join(recorded), Path::new(target))
        }
        _ => false,
    }
}

/// A simulated drive's options, sorted, with a `state=` file (relative ones taken inside
/// `base`) made absolute where it exists.
fn sim_options(spec: &str, base: &Path) -> Vec<String> {
    let mut options: Vec<String> = spec
        .split(',')
        .map(|o| match o.strip_prefix("state=") {
            Some(p) => match std::fs::canonicalize(base.join(p.trim_matches('\''))) {
                Ok(abs) => format!("state={}", abs.display()),
                Err(_) => o.to_string(),
            },
            None => o.to_string(),
        })
        .collect();
    options.sort();
    options
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_same_device_is_recognised_however_it_is_named_and_another_is_not() {
        let dir = tempfile::tempdir().unwrap();
        let a = dir.path().join("a.img");
        let b = dir.path().join("b.img");
        std::fs::write(&a, b"a").unwrap();
        std::fs::write(&b, b"b").unwrap();
        let via = dir.path().join("sub/../a.img");
        std::fs::create_dir(dir.path().join("sub")).unwrap();
        let same = |recorded: &str, target: &str| same_target(recorded, Path::new("."), target);
        assert!(same(a.to_str().unwrap(), via.to_str().unwrap()));
        assert!(!same(a.to_str().unwrap(), b.to_str().unwrap()));
        assert!(same(
            "sim:dc-ssd-400g,cache=lying,scale=4",
            "sim:dc-ssd-400g,scale=4,cache=lying"
        ));
        assert!(!same("sim:dc-ssd-400g", "sim:ram-8g"));
        assert!(!same(
            "sim:dc-ssd-400g,cache=lying",
            "sim:dc-ssd-400g,cache=plp"
        ));
        let state = format!("sim:ram-8g,state={}", a.display());
        let other = format!("sim:ram-8g,state={}", b.display());
        assert!(same(&state, &format!("sim:ram-8g,state={}", via.display())));
        assert!(!same(&state, &other));
        assert!(!same(a.to_str().unwrap(), "sim:ram-8g"));
        // A phase record names the experiment's drive inside the experiment directory.
        assert!(same_target("sim:ram-8g,state=a.img", dir.path(), &state));
        assert!(!same_target("sim:ram-8g,state=b.img", dir.path(), &state));
    }
}
