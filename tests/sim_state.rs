//! Simulated drives kept in `state=` files under hostile conditions: damaged and crafted files,
//! two commands on one file, awkward names, and the commands that act on a kept drive outside
//! a run (`sim idle`, `sim power-cut`, erase).

mod common;

use std::path::Path;
use std::process::Output;

use common::ssdfade;
use ssdfade::sim::{SimDrive, SimErase};

/// A small drive (scale=64: a state file of about 2 MB) kept in `dir/name`.
fn spec(dir: &Path, name: &str) -> String {
    format!(
        "sim:vertex2-60g,scale=64,state='{}'",
        dir.join(name).display()
    )
}

fn run(dir: &Path, args: &[&str]) -> Output {
    ssdfade(dir).args(args).output().unwrap()
}

fn stderr(out: &Output) -> String {
    String::from_utf8_lossy(&out.stderr).into_owned()
}

/// Exit 2 with exactly one line on stderr, no panic.
fn assert_refused(out: &Output, what: &str) -> String {
    let err = stderr(out);
    assert_eq!(out.status.code(), Some(2), "{what}: {err}");
    assert_eq!(err.trim_end().lines().count(), 1, "{what}: {err}");
    assert!(!err.contains("panicked"), "{what}: {err}");
    err
}

/// Writes to the drive for a simulated second so its state file holds a used drive.
fn make_drive(dir: &Path, spec: &str, out: &str) {
    let o = run(
        dir,
        &["measure", spec, "--duration", "1s", "--out", out, "--json"],
    );
    assert!(o.status.success(), "{}", stderr(&o));
}

/// The sections of a state file: (tag, offset of the body, body length).
fn sections(bytes: &[u8]) -> Vec<([u8; 4], usize, usize)> {
    let mut out = Vec::new();
    let mut at = 24;
    while at < bytes.len() {
        let tag: [u8; 4] = bytes[at..at + 4].try_into().unwrap();
        let len = u64::from_le_bytes(bytes[at + 4..at + 12].try_into().unwrap()) as usize;
        out.push((tag, at + 12, len));
        at += 12 + len;
    }
    assert_eq!(at, bytes.len());
    out
}

fn body_of(bytes: &[u8], tag: &[u8; 4]) -> (usize, usize) {
    let (_, at, len) = sections(bytes)
        .into_iter()
        .find(|(t, _, _)| t == tag)
        .unwrap_or_else(|| panic!("no section {}", String::from_utf8_lossy(tag)));
    (at, len)
}

/// Recomputes the header's length and checksum, as a crafted (not damaged) file would have.
fn reseal(bytes: &mut [u8]) {
    let len = (bytes.len() - 24) as u64;
    bytes[16..24].copy_from_slice(&len.to_le_bytes());
    let crc = crc32fast::hash(&bytes[12..]);
    bytes[8..12].copy_from_slice(&crc.to_le_bytes());
}

fn put_u32(bytes: &mut [u8], at: usize, v: u32) {
    bytes[at..at + 4].copy_from_slice(&v.to_le_bytes());
}

fn get_u32(bytes: &[u8], at: usize) -> u32 {
    u32::from_le_bytes(bytes[at..at + 4].try_into().unwrap())
}

/// Damaged and crafted state files are refused with exit 2 and one line naming what is wrong;
/// the file is left as it was and no run directory is made.
#[test]
fn damaged_or_inconsistent_state_files_are_refused_with_one_line() {
    let dir = tempfile::tempdir().unwrap();
    let d = dir.path();
    let good_spec = spec(d, "good.sim");
    make_drive(d, &good_spec, "made");
    let good = std::fs::read(d.join("good.sim")).unwrap();
    let (map_at, map_len) = body_of(&good, b"MAP ");
    let (free_at, free_len) = body_of(&good, b"FREE");
    let (life_at, _) = body_of(&good, b"LIFE");
    let (states_at, _) = body_of(&good, b"BSTA");
    let (frontier_at, _) = body_of(&good, b"FRNT");
    // Two mapped pages, to point one at the other's slot.
    let mapped: Vec<usize> = (0..map_len / 8)
        .map(|i| map_at + 8 * i)
        .filter(|&at| get_u32(&good, at) != u32::MAX)
        .take(2)
        .collect();
    assert_eq!(mapped.len(), 2, "the drive holds data");

    type Craft = Box<dyn Fn(&mut Vec<u8>)>;
    let cases: Vec<(&str, &str, Craft)> = vec![
        (
            "truncated",
            "truncated",
            Box::new(|b| b.truncate(b.len() / 2)),
        ),
        ("only the header", "truncated", Box::new(|b| b.truncate(24))),
        ("a few bytes", "not a ssdfade", Box::new(|b| b.truncate(5))),
        (
            "flipped byte in the mapping",
            "checksum",
            Box::new(move |b| b[map_at + 8] ^= 0x10),
        ),
        (
            "flipped byte in the lifetime",
            "checksum",
            Box::new(move |b| b[life_at + 3] ^= 1),
        ),
        ("flipped checksum", "checksum", Box::new(|b| b[9] ^= 0x80)),
        ("wrong magic", "not a ssdfade", Box::new(|b| b[1] = b'X')),
        (
            "text",
            "not a ssdfade",
            Box::new(|b| *b = b"hello, this is not a drive\n".repeat(3)),
        ),
        (
            "format 1",
            "older ssdfade",
            Box::new(|b| b[..8].copy_from_slice(b"SSDFSIM1")),
        ),
        (
            "future version",
            "newer ssdfade",
            Box::new(|b| {
                put_u32(b, 12, 99);
                reseal(b);
            }),
        ),
        (
            "trailing bytes",
            "trailing",
            Box::new(|b| b.extend_from_slice(b"junk")),
        ),
        (
            "map target out of range",
            "outside the flash",
            Box::new(move |b| {
                put_u32(b, map_at, 0x7fff_fff0);
                reseal(b);
            }),
        ),
        (
            "two pages on one slot",
            "a slot another page holds",
            Box::new({
                let m = mapped.clone();
                move |b| {
                    let v = get_u32(b, m[0]);
                    put_u32(b, m[1], v);
                    reseal(b);
                }
            }),
        ),
        (
            "free block out of range",
            "free block",
            Box::new(move |b| {
                put_u32(b, free_at, 1 << 30);
                reseal(b);
            }),
        ),
        (
            "free block twice",
            "free twice",
            Box::new(move |b| {
                assert!(free_len >= 8);
                let first = get_u32(b, free_at);
                put_u32(b, free_at + 4, first);
                reseal(b);
            }),
        ),
        (
            "unknown block state",
            "block state 7",
            Box::new(move |b| {
                b[states_at] = 7;
                reseal(b);
            }),
        ),
        (
            "frontier out of range",
            "frontier",
            Box::new(move |b| {
                put_u32(b, frontier_at, 1 << 20);
                reseal(b);
            }),
        ),
        (
            "power-on time NaN",
            "power-on time is NaN",
            Box::new(move |b| {
                b[life_at..life_at + 8].copy_from_slice(&f64::NAN.to_bits().to_le_bytes());
                reseal(b);
            }),
        ),
        (
            "unknown section",
            "does not know",
            Box::new(|b| {
                b.extend_from_slice(b"ZZZZ");
                b.extend_from_slice(&0u64.to_le_bytes());
                reseal(b);
            }),
        ),
    ];
    for (i, (what, reason, craft)) in cases.iter().enumerate() {
        let name = format!("bad{i}.sim");
        let mut bytes = good.clone();
        craft(&mut bytes);
        std::fs::write(d.join(&name), &bytes).unwrap();
        let target = spec(d, &name);
        let out_dir = format!("run{i}");
        let o = run(
            d,
            &["measure", &target, "--duration", "1s", "--out", &out_dir],
        );
        let err = assert_refused(&o, what);
        assert!(
            err.contains(reason),
            "{what}: expected '{reason}' in: {err}"
        );
        assert!(
            !d.join(&out_dir).exists(),
            "{what}: a run directory was made"
        );
        assert_eq!(
            std::fs::read(d.join(&name)).unwrap(),
            bytes,
            "{what}: file changed"
        );
        // info and erase refuse it the same way, and so does the library.
        assert_refused(&run(d, &["info", &target]), what);
        let err = SimDrive::open(&target).err().expect(what);
        assert!(
            err.downcast_ref::<ssdfade::error::BadInput>().is_some(),
            "{what}"
        );
    }
    // The untouched file still loads.
    make_drive(d, &good_spec, "again");
}

/// Whole drives written by the format load back with the same mapping, wear and lifetime.
#[test]
fn a_saved_drive_loads_back_exactly() {
    let dir = tempfile::tempdir().unwrap();
    let target = spec(dir.path(), "round.sim");
    make_drive(dir.path(), &target, "m");
    let first = SimDrive::open(&target).unwrap();
    let (map, erase, states, free, frontier, ptr) = first.device().ftl().persistent();
    let life = first.device().lifetime();
    let unflushed = first.device().unflushed().clone();
    assert!(
        !unflushed.is_empty(),
        "a volatile cache holds the last writes"
    );
    let (map, erase, states, free) = (map.to_vec(), erase.to_vec(), states.to_vec(), free.clone());
    let mut first = first;
    first.save().unwrap();
    drop(first);
    let again = SimDrive::open(&target).unwrap();
    let p = again.device().ftl().persistent();
    assert_eq!(p.0, &map[..]);
    assert_eq!(p.1, &erase[..]);
    assert_eq!(p.2, &states[..]);
    assert_eq!(p.3, &free);
    assert_eq!((p.4, p.5), (frontier, ptr));
    assert_eq!(again.device().lifetime(), life);
    assert_eq!(again.device().unflushed(), &unflushed);
}

/// While one command holds a state file, others are refused naming it; the file still loads.
#[test]
fn a_second_command_on_a_held_state_file_is_refused_naming_the_holder() {
    let dir = tempfile::tempdir().unwrap();
    let d = dir.path();
    let target = spec(d, "held.sim");
    make_drive(d, &target, "m0");
    let before = std::fs::read(d.join("held.sim")).unwrap();
    let held = SimDrive::open(&target).unwrap();
    let me = format!("process {}", std::process::id());
    for args in [
        vec![
            "measure",
            target.as_str(),
            "--duration",
            "1s",
            "--out",
            "m1",
        ],
        vec!["soak", target.as_str(), "--duration", "1m", "--out", "s1"],
        vec!["erase", target.as_str(), "--method", "sim", "--out", "e1"],
        vec!["sim", "idle", target.as_str(), "1m"],
        vec!["sim", "power-cut", target.as_str()],
    ] {
        let err = assert_refused(&run(d, &args), &args.join(" "));
        assert!(err.contains("in use by") && err.contains(&me), "{err}");
    }
    assert!(!d.join("m1").exists() && !d.join("s1").exists());
    assert_eq!(std::fs::read(d.join("held.sim")).unwrap(), before);
    drop(held);
    make_drive(d, &target, "m2");
}

/// Several commands started together on one state file: each completes or is refused (exit 2),
/// and the file afterwards holds one whole drive; no temporary files are left.
#[test]
fn concurrent_commands_on_one_state_file_leave_a_whole_drive() {
    let dir = tempfile::tempdir().unwrap();
    let d = dir.path();
    let target = spec(d, "race.sim");
    // What a save killed half-way leaves: removed by the next command on the file; another
    // drive's temporary file and a look-alike stay.
    let stale = d.join(".race.sim.Ab3dE9xZ.tmp");
    std::fs::write(&stale, b"half a drive").unwrap();
    std::fs::write(d.join(".race.sim.other.Ab3dE9xZ.tmp"), b"x").unwrap();
    std::fs::write(d.join("out-keep.race.sim.Ab3dE9xZ.tmp"), b"x").unwrap();
    for round in 0..3 {
        let children: Vec<_> = (0..4)
            .map(|i| {
                ssdfade(d)
                    .args([
                        "measure",
                        &target,
                        "--duration",
                        "2s",
                        "--out",
                        &format!("out{round}-{i}"),
                        "--json",
                    ])
                    .stdout(std::process::Stdio::null())
                    .stderr(std::process::Stdio::piped())
                    .spawn()
                    .unwrap()
            })
            .collect();
        let mut ok = 0;
        for child in children {
            let out = child.wait_with_output().unwrap();
            match out.status.code() {
                Some(0) => ok += 1,
                Some(2) => assert!(stderr(&out).contains("in use by"), "{}", stderr(&out)),
                other => panic!("exit {other:?}: {}", stderr(&out)),
            }
        }
        assert!(ok >= 1, "round {round}: nobody ran");
        let loaded = SimDrive::open(&target).unwrap();
        assert!(loaded.device().ftl().mapped_pages() > 0);
    }
    let names: Vec<String> = std::fs::read_dir(d)
        .unwrap()
        .map(|e| e.unwrap().file_name().to_string_lossy().into_owned())
        .filter(|n| !n.starts_with("out"))
        .collect::<std::collections::BTreeSet<_>>()
        .into_iter()
        .collect();
    assert_eq!(
        names,
        [".race.sim.other.Ab3dE9xZ.tmp", "race.sim"],
        "stray or missing files"
    );
}

/// A state file named like a temporary file, and two drives whose names collide with each
/// other's old temporary name, are saved atomically side by side.
#[test]
fn state_files_named_like_temporary_files_are_saved_side_by_side() {
    let dir = tempfile::tempdir().unwrap();
    let d = dir.path();
    let (a, b) = (spec(d, "x.sim"), spec(d, "x.tmp"));
    let children: Vec<_> = [(&a, "a"), (&b, "b")]
        .into_iter()
        .map(|(t, out)| {
            ssdfade(d)
                .args(["measure", t, "--duration", "2s", "--out", out, "--json"])
                .stdout(std::process::Stdio::null())
                .spawn()
                .unwrap()
        })
        .collect();
    for mut c in children {
        assert!(c.wait().unwrap().success());
    }
    for t in [&a, &b] {
        assert!(SimDrive::open(t).unwrap().device().ftl().mapped_pages() > 0);
    }
    let mut names: Vec<String> = std::fs::read_dir(d)
        .unwrap()
        .map(|e| e.unwrap().file_name().to_string_lossy().into_owned())
        .collect();
    names.sort();
    assert_eq!(names, ["a", "b", "x.sim", "x.tmp"]);
}

/// An empty file is a new drive; a refused command leaves no state file behind; a missing
/// directory is refused before the run.
#[test]
fn empty_files_are_new_drives_and_refusals_leave_nothing() {
    let dir = tempfile::tempdir().unwrap();
    let d = dir.path();
    std::fs::write(d.join("empty.sim"), b"").unwrap();
    make_drive(d, &spec(d, "empty.sim"), "m");
    assert!(std::fs::metadata(d.join("empty.sim")).unwrap().len() > 1000);

    // Refused after the drive was opened (the transfer size is bad input): no file is left.
    let o = run(
        d,
        &["measure", &spec(d, "new.sim"), "--bs", "3", "--out", "m2"],
    );
    assert_refused(&o, "--bs 3");
    assert!(!d.join("new.sim").exists() && !d.join("m2").exists());

    let missing = d.join("no/such/dir/x.sim");
    let target = format!("sim:vertex2-60g,scale=64,state={}", missing.display());
    let err = assert_refused(
        &run(d, &["measure", &target, "--duration", "1s", "--out", "m3"]),
        "missing directory",
    );
    assert!(err.contains("does not exist"), "{err}");
    assert!(!d.join("m3").exists());
    for special in ["/dev/null", "/tmp"] {
        let target = format!("sim:ram-8g,scale=64,state={special}");
        assert_refused(&run(d, &["measure", &target, "--out", "m4"]), special);
    }
}

/// `sim bench` would write hundreds of MiB into a kept drive: it refuses state=.
#[test]
fn sim_bench_refuses_a_kept_drive() {
    let dir = tempfile::tempdir().unwrap();
    let target = spec(dir.path(), "bench.sim");
    let err = assert_refused(&run(dir.path(), &["sim", "bench", &target]), "bench");
    assert!(err.contains("state="), "{err}");
    assert!(!dir.path().join("bench.sim").exists());
}

/// `sim idle` runs background GC on the kept drive, saves it, and says what it did.
#[test]
fn sim_idle_collects_garbage_and_keeps_the_result() {
    let dir = tempfile::tempdir().unwrap();
    let d = dir.path();
    let target = spec(d, "idle.sim");
    make_drive(d, &target, "m");
    let before = SimDrive::open(&target).unwrap();
    let free_before = before.device().ftl().persistent().3.len();
    let power_before = before.device().lifetime().power_on_s;
    let erases_before: u64 = before
        .device()
        .ftl()
        .erase_counts()
        .iter()
        .map(|&c| u64::from(c))
        .sum();
    drop(before);
    let o = run(d, &["sim", "idle", &target, "10m"]);
    assert!(o.status.success(), "{}", stderr(&o));
    let text = String::from_utf8_lossy(&o.stdout);
    println!("{text}");
    let after = SimDrive::open(&target).unwrap();
    let free_after = after.device().ftl().persistent().3.len();
    let erases_after: u64 = after
        .device()
        .ftl()
        .erase_counts()
        .iter()
        .map(|&c| u64::from(c))
        .sum();
    assert!(free_after > free_before, "{free_before} → {free_after}");
    assert!(
        text.contains(&format!("free erase blocks {free_before} → {free_after}")),
        "{text}"
    );
    assert!(
        text.contains(&format!("in {} block erases", erases_after - erases_before)),
        "{text}"
    );
    assert_eq!(after.device().lifetime().power_on_s, power_before + 600.0);
    drop(after);
    let err = assert_refused(
        &run(d, &["sim", "idle", "sim:vertex2-60g,scale=64", "10m"]),
        "stateless idle",
    );
    assert!(err.contains("state="), "{err}");
    assert_refused(&run(d, &["sim", "idle", &target, "0s"]), "idle 0s");
    assert_refused(&run(d, &["sim", "idle", &target, "1e30"]), "idle 1e30");
}

/// `sim power-cut` undoes the unflushed writes of a volatile cache (the pages get back what
/// they held), loses nothing behind power-loss protection, and is kept in the state file.
#[test]
fn sim_power_cut_loses_exactly_the_unflushed_writes() {
    let dir = tempfile::tempdir().unwrap();
    let d = dir.path();
    let target = spec(d, "cut.sim");
    make_drive(d, &target, "m");
    let drive = SimDrive::open(&target).unwrap();
    let unflushed = drive.device().unflushed().clone();
    assert_eq!(unflushed.len(), drive.device().cache_pages());
    // What each page held before its oldest unflushed write.
    let mut want = std::collections::HashMap::new();
    for &(lpn, old) in &unflushed {
        want.entry(lpn).or_insert(old);
    }
    drop(drive);
    let o = run(d, &["sim", "power-cut", &target]);
    assert!(o.status.success(), "{}", stderr(&o));
    let text = String::from_utf8_lossy(&o.stdout);
    assert!(
        text.contains(&format!(
            "{} acknowledged 4 KiB writes lost",
            unflushed.len() * 64
        )),
        "{text}"
    );
    let after = SimDrive::open(&target).unwrap();
    assert!(after.device().unflushed().is_empty());
    for (&lpn, &old) in &want {
        assert_eq!(after.device().content_tag(lpn), old, "page {lpn}");
    }
    drop(after);
    // A second cut has nothing left to lose.
    let o = run(d, &["sim", "power-cut", &target]);
    assert!(String::from_utf8_lossy(&o.stdout).contains(" 0 acknowledged"));

    let plp = format!("{},cache=plp", spec(d, "plp.sim"));
    make_drive(d, &plp, "p");
    let o = run(d, &["sim", "power-cut", &plp]);
    assert!(String::from_utf8_lossy(&o.stdout).contains(" 0 acknowledged"));
}

/// The erase library call refuses a stateless drive before anything is made, and erases a
/// kept one under its lock.
#[test]
fn erase_needs_a_kept_drive_and_is_saved() {
    let err = SimDrive::open_kept("sim:vertex2-60g,scale=64", "an erase")
        .err()
        .unwrap();
    assert!(err.downcast_ref::<ssdfade::error::BadInput>().is_some());
    assert!(err.to_string().contains("state="), "{err}");
    let dir = tempfile::tempdir().unwrap();
    let target = spec(dir.path(), "e.sim");
    make_drive(dir.path(), &target, "m");
    let mut drive = SimDrive::open_kept(&target, "an erase").unwrap();
    let line = drive.erase(SimErase::Secure).unwrap();
    assert!(line.contains("secure erase"), "{line}");
    drop(drive);
    assert_eq!(
        SimDrive::open(&target)
            .unwrap()
            .device()
            .ftl()
            .mapped_pages(),
        0
    );
}

#[test]
fn a_run_stopped_before_its_first_io_leaves_the_saved_drive_unwritten() {
    use ssdfade::engine::{Control, Engine, IntervalSink};
    use ssdfade::sim::SimEngine;
    use std::sync::atomic::AtomicBool;
    use std::sync::Arc;

    struct Count(usize);
    impl IntervalSink for Count {
        fn interval(
            &mut self,
            _: f64,
            _: f64,
            _: &ssdfade::stats::IntervalStats,
        ) -> anyhow::Result<()> {
            self.0 += 1;
            Ok(())
        }
    }
    let tmp = tempfile::tempdir().unwrap();
    let spec = spec(tmp.path(), "d.sim");
    let w = ssdfade::workload::Workload {
        duration: Some(std::time::Duration::from_secs(2)),
        ..Default::default()
    };
    let w = ssdfade::workload::Workload {
        span: SimEngine::open(&spec).unwrap().identity().size_bytes,
        ..w
    };
    let run = |interrupted: bool| {
        let control = Control {
            interrupted: Arc::new(AtomicBool::new(interrupted)),
            ..Default::default()
        };
        let mut count = Count(0);
        let end = SimEngine::open(&spec)
            .unwrap()
            .run(&w, &control, &mut count)
            .unwrap();
        (end, count.0)
    };
    let (_, intervals) = run(false);
    assert!(intervals > 0);
    let saved = std::fs::read(tmp.path().join("d.sim")).unwrap();
    let stamp = ssdfade::sim::saved_stamp(&spec).unwrap().unwrap();
    // The signal came while the drive was loaded: it ends at once, and the file is untouched.
    let (end, intervals) = run(true);
    assert_eq!(end, ssdfade::engine::RunEnd::Interrupted);
    assert_eq!(intervals, 0);
    assert_eq!(ssdfade::sim::saved_stamp(&spec).unwrap().unwrap(), stamp);
    assert!(std::fs::read(tmp.path().join("d.sim")).unwrap() == saved);
}
