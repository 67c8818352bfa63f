//! The newest features under hostile use (issue 45, rounds five and six): a pace that issues
//! trims, the fleet's output folder and its text files, heat and trim numbers edited into
//! records, a file system without room for a run's records or a fleet's files, a paced member
//! stopped with SIGSTOP, and chart labels from records holding control characters.

mod common;

use std::path::Path;
use std::process::{Command, Output};

use common::ssdfade;

const SIM: &str = "sim:vertex2-60g,scale=64";

fn stderr_of(out: &Output) -> String {
    String::from_utf8_lossy(&out.stderr).into_owned()
}

/// Runs `cmd` expecting a refusal: exit 2, one line on stderr, no panic; returns the line.
fn refused(cmd: &mut Command) -> String {
    let out = cmd.output().expect("run ssdfade");
    let err = stderr_of(&out);
    assert_eq!(out.status.code(), Some(2), "{cmd:?}: {err}");
    assert!(!err.contains("panicked"), "{cmd:?}: {err}");
    assert_eq!(err.lines().count(), 1, "{cmd:?}: {err}");
    err
}

/// Edits line `line` of `dir/samples.jsonl` (or run.json when `line` is `None`) with `edit`.
fn edit(dir: &Path, line: Option<usize>, edit: impl FnOnce(&mut serde_json::Value)) {
    match line {
        Some(i) => {
            let path = dir.join("samples.jsonl");
            let text = std::fs::read_to_string(&path).unwrap();
            let mut lines: Vec<String> = text.lines().map(str::to_string).collect();
            let mut v: serde_json::Value = serde_json::from_str(&lines[i]).unwrap();
            edit(&mut v);
            lines[i] = v.to_string();
            std::fs::write(&path, lines.join("\n") + "\n").unwrap();
        }
        None => {
            let path = dir.join("run.json");
            let mut v: serde_json::Value =
                serde_json::from_str(&std::fs::read_to_string(&path).unwrap()).unwrap();
            edit(&mut v);
            std::fs::write(&path, v.to_string()).unwrap();
        }
    }
}

/// A pace issues trims as it issues writes: a run at 100 IOPS with 30 % trims that kept its
/// schedule met its pace, so it has no fade, and the report says it delivered the whole rate
/// (it read "pace not met: 74.4 of 100 IOPS" and judged the drive by the pace).
#[test]
fn a_paced_run_with_trims_counts_its_trims_towards_the_pace() {
    let work = tempfile::tempdir().unwrap();
    let out = common::run_ok(ssdfade(work.path()).args([
        "soak",
        SIM,
        "--trim-pct",
        "30",
        "--rate-iops",
        "100",
        "--duration",
        "10s",
        "--out",
        "r",
    ]));
    assert!(out.contains("paced at 100 IOPS (met)"), "{out}");
    let info: serde_json::Value =
        serde_json::from_str(&std::fs::read_to_string(work.path().join("r/run.json")).unwrap())
            .unwrap();
    let s = &info["summary"];
    let (writes, trims) = (
        s["ops"].as_u64().unwrap(),
        s["trim"]["ops"].as_u64().unwrap(),
    );
    assert!(trims > 0, "no trims: {s}");
    assert_eq!(writes + trims, s["pacing"]["paced"].as_u64().unwrap());
    let report = common::run_ok(ssdfade(work.path()).args(["report", "r"]));
    assert!(report.contains("paced at 100 IOPS (met)"), "{report}");
    let words = report.split_whitespace().collect::<Vec<_>>().join(" ");
    assert!(words.contains("100.0 % of the rate"), "{report}");
    assert!(!report.contains("% of fresh"), "{report}");
}

/// A host-idle-recovery experiment measures bursts flat out: with a pace each figure was the
/// pace ("1000 IOPS, ×1.00 vs steady"); it is refused before anything is made.
#[test]
fn a_paced_hir_is_refused_before_its_folder_is_made() {
    let work = tempfile::tempdir().unwrap();
    for rate in [["--rate-iops", "1000"], ["--rate", "4M"]] {
        let why = refused(
            ssdfade(work.path())
                .args(["experiment", "hir", SIM])
                .args(rate)
                .args(["--out", "h"]),
        );
        assert!(why.contains("experiment hir"), "{why}");
        assert!(!work.path().join("h").exists());
    }
}

/// A run refused before it starts says its refusal alone, in one line, though it was asked to
/// serve metrics (the endpoint's "metrics on http://…" line came first, making two).
#[test]
fn a_refused_run_serving_metrics_says_its_refusal_in_one_line() {
    let work = tempfile::tempdir().unwrap();
    std::fs::write(work.path().join("t.img"), vec![1u8; 1 << 20]).unwrap();
    let why = refused(ssdfade(work.path()).args([
        "measure",
        "t.img",
        "--duration",
        "1s",
        "--metrics-listen",
        "127.0.0.1:0",
        "--out",
        "m",
    ]));
    assert!(why.contains("--destroy-data"), "{why}");
}

/// `fleet --out` a link to a directory writes nothing through it; a folder not made yet is
/// made; a model, firmware and serial holding escape sequences reach no file raw.
#[test]
fn the_fleets_folder_is_never_a_link_and_its_files_carry_no_raw_escape() {
    let work = tempfile::tempdir().unwrap();
    let w = work.path();
    common::run_ok(ssdfade(w).args(["measure", SIM, "--duration", "2s", "--out", "runs/a"]));
    std::fs::create_dir(w.join("elsewhere")).unwrap();
    std::os::unix::fs::symlink(w.join("elsewhere"), w.join("link")).unwrap();
    let why = refused(ssdfade(w).args(["fleet", "runs", "--out", "link"]));
    assert!(why.contains("symbolic link"), "{why}");
    assert_eq!(std::fs::read_dir(w.join("elsewhere")).unwrap().count(), 0);
    edit(&w.join("runs/a"), None, |r| {
        r["target"]["identity"]["model"] = "M\u{1b}[31mRED\u{1b}[0m".into();
        r["target"]["identity"]["firmware"] = "F\u{7}".into();
        r["target"]["identity"]["serial"] = "S\u{1b}]8;;x\u{1b}\\".into();
    });
    common::run_ok(ssdfade(w).args(["fleet", "runs", "--out", "new/deeper"]));
    let out = w.join("new/deeper");
    let mut texts = 0;
    for entry in std::fs::read_dir(&out).unwrap() {
        let path = entry.unwrap().path();
        if path.extension().is_some_and(|e| e == "png") {
            continue;
        }
        let bytes = std::fs::read(&path).unwrap();
        assert!(
            !bytes.contains(&0x1b) && !bytes.contains(&0x07),
            "{} holds a raw control character",
            path.display()
        );
        texts += 1;
    }
    assert!(texts >= 7, "{texts} text files in {}", out.display());
    let csv = std::fs::read_to_string(out.join("fleet.csv")).unwrap();
    assert!(csv.contains("M\\u{1b}[31mRED"), "{csv}");
}

/// Heat and trim numbers no run can have written are refused in one line by every reader,
/// naming the file and the field.
#[test]
fn heat_and_trim_numbers_a_record_cannot_hold_are_refused() {
    let work = tempfile::tempdir().unwrap();
    let w = work.path();
    common::run_ok(ssdfade(w).args([
        "soak",
        "sim:dc-ssd-400g,scale=1024,thermal=dc",
        "--duration",
        "2m",
        "--interval",
        "10s",
        "--out",
        "hot",
    ]));
    common::run_ok(ssdfade(w).args([
        "measure",
        SIM,
        "--trim-pct",
        "50",
        "--duration",
        "3s",
        "--out",
        "trims",
    ]));
    type Edit = Box<dyn FnOnce(&mut serde_json::Value)>;
    let cases: Vec<(&str, Option<usize>, &str, Edit)> = vec![
        (
            "hot",
            Some(1),
            "health.temperature_c",
            Box::new(|s| s["health"]["temperature_c"] = 1e30.into()),
        ),
        (
            "hot",
            Some(1),
            "health.warning_c",
            Box::new(|s| s["health"]["warning_c"] = (-400.0).into()),
        ),
        (
            "hot",
            Some(1),
            "health.tmt1_s",
            Box::new(|s| s["health"]["tmt1_s"] = (-5.0).into()),
        ),
        (
            "hot",
            None,
            "write_amplification.factor",
            Box::new(|r| r["write_amplification"]["factor"] = 1e30.into()),
        ),
        (
            "trims",
            Some(1),
            "trim.iops",
            Box::new(|s| s["trim"]["iops"] = 1e30.into()),
        ),
        (
            "trims",
            None,
            "summary.trim.lat_us.max",
            Box::new(|r| r["summary"]["trim"]["lat_us"]["max"] = 1e30.into()),
        ),
        (
            "trims",
            None,
            "trim_pct",
            Box::new(|r| r["workload"]["trim_pct"] = 200.into()),
        ),
    ];
    for (i, (src, line, field, change)) in cases.into_iter().enumerate() {
        let dir = w.join(format!("c{i}"));
        common::copy_tree(&w.join(src), &dir);
        edit(&dir, line, change);
        let name = format!("c{i}");
        for cmd in [["report", &name], ["export", &name], ["plot", &name]] {
            let why = refused(ssdfade(w).args(cmd));
            assert!(why.contains(field), "{cmd:?} ({field}): {why}");
        }
    }
}

/// Unmounts a file system this test mounted, even when the test fails.
struct Mounted(std::path::PathBuf);

impl Drop for Mounted {
    fn drop(&mut self) {
        let _ = Command::new("umount").arg(&self.0).status();
    }
}

/// A file system without room for a run's records (its held-back space for the final record)
/// is refused in one line, exit 2, and nothing is left on it (a folder holding a reserve file
/// and an empty samples.jsonl was, exit 1): not one of the levels of a nested `--out` the run
/// made (only the last was removed), for `soak`, `measure` and `slog`; a folder that was there
/// before stays.
#[test]
fn a_run_on_a_file_system_without_room_for_its_records_is_refused_leaving_nothing() {
    if !common::root_or_skip("a_run_on_a_file_system_without_room_for_its_records_is_refused") {
        return;
    }
    let work = tempfile::tempdir().unwrap();
    let tiny = work.path().join("tiny");
    std::fs::create_dir(&tiny).unwrap();
    let mounted = Command::new("mount")
        .args(["-t", "tmpfs", "-o", "size=128k", "tmpfs"])
        .arg(&tiny)
        .status()
        .unwrap();
    if !mounted.success() {
        return common::skip(
            "a_run_on_a_file_system_without_room",
            "cannot mount a tmpfs",
        );
    }
    let _guard = Mounted(tiny.clone());
    let why = refused(ssdfade(work.path()).args([
        "soak",
        SIM,
        "--trim-pct",
        "20",
        "--duration",
        "1h",
        "--out",
        "tiny/run",
    ]));
    assert!(why.contains("no room for a run's records"), "{why}");
    let left = || -> Vec<_> {
        std::fs::read_dir(&tiny)
            .unwrap()
            .flatten()
            .map(|e| e.path())
            .collect()
    };
    assert!(left().is_empty(), "left behind: {:?}", left());
    let nested: [&[&str]; 3] = [
        &["soak", SIM, "--duration", "1h", "--out", "tiny/a/b/c"],
        &["measure", SIM, "--duration", "2s", "--out", "tiny/a/b/c"],
        &["slog", SIM, "--sustain", "0", "--out", "tiny/a/b"],
    ];
    for args in nested {
        let why = refused(ssdfade(work.path()).args(args));
        assert!(
            why.contains("no room for a run's records"),
            "{args:?}: {why}"
        );
        assert!(left().is_empty(), "{args:?} left behind: {:?}", left());
    }
    let had = tiny.join("had");
    std::fs::create_dir(&had).unwrap();
    refused(ssdfade(work.path()).args([
        "measure",
        SIM,
        "--duration",
        "2s",
        "--out",
        "tiny/had/new/run",
    ]));
    assert_eq!(
        left(),
        vec![had.clone()],
        "the folder that was there before"
    );
    assert_eq!(
        std::fs::read_dir(&had).unwrap().count(),
        0,
        "left inside it"
    );
}

/// A paced group whose process is stopped 3 s of an 8 s soak: the file member's schedule ran
/// on while it was stopped, so it did not keep its pace (it read "paced at 2000 IOPS (met)"
/// beside 3213 IOPS, its catch-up burst over the running time) and says how long it was
/// stopped and how many I/Os were due then; the simulated member, on simulated time, met it.
#[test]
fn a_paced_member_stopped_with_sigstop_says_it_did_not_keep_its_pace() {
    let work = tempfile::tempdir_in("/dev/shm").unwrap();
    let w = work.path();
    std::fs::File::create(w.join("a.img"))
        .unwrap()
        .set_len(64 << 20)
        .unwrap();
    let child = ssdfade(w)
        .args([
            "soak",
            "a.img",
            SIM,
            "--destroy-data",
            "a.img",
            "--rate-iops",
            "2000",
        ])
        .args(["--duration", "8s", "--interval", "1s", "--out", "g"])
        .stdout(std::process::Stdio::piped())
        .stderr(std::process::Stdio::piped())
        .spawn()
        .unwrap();
    common::wait_for("a sample", 30, || {
        common::lines_in(&w.join("g/a.img/samples.jsonl")) >= 2
    });
    common::stop_for(child.id(), std::time::Duration::from_secs(3));
    let out = child.wait_with_output().unwrap();
    let text = String::from_utf8_lossy(&out.stdout);
    assert!(out.status.success(), "{text}{}", stderr_of(&out));
    let line = |target: &str| {
        text.lines()
            .find(|l| l.trim_start().starts_with(&format!("{target}: ")))
            .unwrap_or_else(|| panic!("no pace line for {target}: {text}"))
            .to_string()
    };
    let file = line("a.img");
    assert!(file.contains("pace not met: stopped"), "{file}");
    let summary: serde_json::Value =
        serde_json::from_str(&std::fs::read_to_string(w.join("g/a.img/run.json")).unwrap())
            .unwrap();
    let stopped = summary["summary"]["stopped_s"].as_f64().unwrap();
    assert!(stopped > 2.0, "{stopped} s stopped");
    assert!(file.contains(&format!("stopped {stopped:.1} s")), "{file}");
    let due = (stopped * 2000.0).round();
    assert!(file.contains(&format!("({due} I/Os due then")), "{file}");
    assert!(line(SIM).contains("paced at 2000 IOPS (met)"), "{text}");
}

/// A fleet whose disk fills half-way through its files fails in one line and leaves the
/// previous fleet's files as they were, with no temporary file beside them (it left the files
/// written before the one that did not fit: a new fleet.md beside old charts).
#[test]
fn a_fleet_on_a_full_disk_leaves_the_previous_set_whole() {
    if !common::root_or_skip("a_fleet_on_a_full_disk_leaves_the_previous_set_whole") {
        return;
    }
    let work = tempfile::tempdir().unwrap();
    let w = work.path();
    common::run_ok(ssdfade(w).args(["measure", SIM, "--duration", "2s", "--out", "runs/a"]));
    let small = w.join("small");
    std::fs::create_dir(&small).unwrap();
    let mounted = Command::new("mount")
        .args(["-t", "tmpfs", "-o", "size=16m", "tmpfs"])
        .arg(&small)
        .status()
        .unwrap();
    if !mounted.success() {
        return common::skip("a_fleet_on_a_full_disk", "cannot mount a tmpfs");
    }
    let _guard = Mounted(small.clone());
    common::run_ok(ssdfade(w).args(["fleet", "runs", "--out", "small/f"]));
    let files = |dir: &Path| {
        let mut all: Vec<(String, Vec<u8>)> = std::fs::read_dir(dir)
            .unwrap()
            .map(|e| {
                let path = e.unwrap().path();
                let name = path.file_name().unwrap().to_string_lossy().into_owned();
                (name, std::fs::read(&path).unwrap())
            })
            .collect();
        all.sort();
        all
    };
    let before = files(&small.join("f"));
    assert!(before.len() >= 7, "{} files", before.len());
    // Fill what is left, then ask for a fleet that differs (another model name).
    {
        use std::io::Write;
        let mut filler = std::fs::File::create(small.join("filler")).unwrap();
        while filler.write_all(&[0u8; 4096]).is_ok() {}
    }
    edit(&w.join("runs/a"), None, |r| {
        r["target"]["identity"]["model"] = "ANOTHER MODEL".into();
    });
    let out = ssdfade(w)
        .args(["fleet", "runs", "--out", "small/f"])
        .output()
        .unwrap();
    let err = stderr_of(&out);
    assert!(!out.status.success(), "a fleet on a full disk succeeded");
    assert_ne!(out.status.code(), Some(101), "{err}");
    assert_eq!(err.lines().count(), 1, "{err}");
    assert!(
        files(&small.join("f")) == before,
        "the previous fleet's files changed"
    );
}

/// A model name and a serial holding an escape sequence and a newline reach a chart's labels
/// as their visible escapes (a font draws a control character as an empty box).
#[test]
fn chart_labels_from_records_show_control_characters_as_escapes() {
    let work = tempfile::tempdir().unwrap();
    let w = work.path();
    common::run_ok(ssdfade(w).args(["soak", SIM, "--duration", "10m", "--out", "r"]));
    edit(&w.join("r"), None, |r| {
        r["target"]["identity"]["model"] = "M\u{1b}[31mRED\nX".into();
        r["target"]["identity"]["serial"] = "S\u{7}".into();
    });
    common::run_ok(ssdfade(w).args(["plot", "r"]));
    let mut labels = Vec::new();
    for entry in std::fs::read_dir(w.join("r")).unwrap() {
        let path = entry.unwrap().path();
        if path.to_string_lossy().ends_with(".chart.json") {
            let drawn = ssdfade::plot::drawn::read_sidecar(&path).unwrap();
            labels.extend(drawn.labels.into_iter().map(|l| l.text));
        }
    }
    assert!(!labels.is_empty(), "no chart drew a label");
    for label in &labels {
        assert!(!label.chars().any(char::is_control), "raw: {label:?}");
    }
    assert!(
        labels.iter().any(|l| l.contains("M\\u{1b}[31mRED\\u{a}X")),
        "{labels:?}"
    );
}

/// A line break in a record's model, firmware or serial cannot start a line of its own in a
/// report, a comparison or a fleet table (it once forged `- Drive: FAKE …` lines).
#[test]
fn a_line_break_in_a_records_identity_starts_no_line_of_a_report() {
    let work = tempfile::tempdir().unwrap();
    let w = work.path();
    common::run_ok(ssdfade(w).args(["measure", SIM, "--duration", "2s", "--out", "a"]));
    common::run_ok(ssdfade(w).args(["measure", SIM, "--duration", "2s", "--out", "b"]));
    edit(&w.join("b"), None, |r| {
        r["target"]["identity"]["model"] = "M\nFAKE model".into();
        r["target"]["identity"]["firmware"] = "F\r\nFAKE firmware".into();
        r["target"]["identity"]["serial"] = "S\nFAKE serial".into();
    });
    common::run_ok(ssdfade(w).args(["report", "b"]));
    common::run_ok(ssdfade(w).args(["compare", "a", "b", "--out", "cmp"]));
    common::run_ok(ssdfade(w).args(["fleet", "b", "--out", "fleet"]));
    for file in [
        "b/report.md",
        "b/report.html",
        "cmp/compare.md",
        "fleet/fleet.md",
        "fleet/fleet.csv",
    ] {
        let text = std::fs::read_to_string(w.join(file)).unwrap();
        if file == "b/report.md" {
            assert!(
                text.contains("FAKE model"),
                "{file}: the model is shown\n{text}"
            );
        }
        for line in text.lines() {
            let line = line.trim_start_matches(['-', ' ', '#', '|', '"', '>']);
            assert!(
                !line.starts_with("FAKE"),
                "{file}: a line from the record: {line}"
            );
        }
        assert!(!text.contains('\r'), "{file}: a raw carriage return");
    }
}
