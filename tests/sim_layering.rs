//! The simulator knows nothing of how real devices are inspected: no file under src/sim/
//! names the `inspect` module (the drive record it fills lives in `crate::drive`).

#[test]
fn the_simulator_does_not_import_inspect() {
    let dir = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("src/sim");
    let mut files = 0;
    for entry in std::fs::read_dir(&dir).unwrap() {
        let path = entry.unwrap().path();
        if path.extension().is_some_and(|e| e == "rs") {
            files += 1;
            let text = std::fs::read_to_string(&path).unwrap();
            assert!(
                !text.contains("inspect::"),
                "{} uses the inspect module",
                path.display()
            );
        }
    }
    assert!(files >= 5, "only {files} source files in {}", dir.display());
}

/// Only the device and sim modules know whether a target is simulated: everything else goes
/// through `device::Spec` and the `Device` interface.
#[test]
fn only_device_and_sim_ask_whether_a_target_is_simulated() {
    fn walk(dir: &std::path::Path, out: &mut Vec<std::path::PathBuf>) {
        for entry in std::fs::read_dir(dir).unwrap() {
            let path = entry.unwrap().path();
            if path.is_dir() {
                walk(&path, out);
            } else if path.extension().is_some_and(|e| e == "rs") {
                out.push(path);
            }
        }
    }
    let src = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("src");
    let mut files = Vec::new();
    walk(&src, &mut files);
    let mut asking = Vec::new();
    for path in files {
        let rel = path.strip_prefix(&src).unwrap();
        if rel.starts_with("device") || rel.starts_with("sim") {
            continue;
        }
        let text = std::fs::read_to_string(&path).unwrap();
        for needle in ["is_sim_target", "SimSpec::parse", "starts_with(\"sim:\")"] {
            if text.contains(needle) {
                asking.push(format!("{} ({needle})", rel.display()));
            }
        }
    }
    assert!(
        asking.is_empty(),
        "asks whether a target is simulated: {asking:?}"
    );
}
