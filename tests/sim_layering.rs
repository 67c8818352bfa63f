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
