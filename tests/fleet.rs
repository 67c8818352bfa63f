//! Several targets in one command (group runs) and the Prometheus exporter: zram devices and
//! simulated drives made by the tests, one run directory each, one failing on purpose, one
//! refusing all, the /metrics endpoint scraped during a run and the textfile replaced atomically.

mod common;

use std::collections::HashMap;
use std::io::{Read, Write};
use std::path::Path;
use std::time::{Duration, Instant};

use common::{root_or_skip, ssdfade, Zram};
use ssdfade::group::GroupRecord;
use ssdfade::results::{read_info, read_samples};
use ssdfade::results::{Command, Status};

fn dev(z: &Zram) -> String {
    z.path.to_str().unwrap().to_string()
}

/// A zram device with a small memory limit: writes fail with EIO once it is full.
fn full_zram() -> Zram {
    let zram = Zram::new(64 << 20);
    std::fs::write(
        format!("/sys/block/zram{}/mem_limit", zram.index),
        (4u64 << 20).to_string(),
    )
    .unwrap();
    zram
}

#[test]
fn zram_devices_soaked_together_each_get_a_complete_run_dir_and_a_table_row() {
    if !root_or_skip("zram_devices_soaked_together") {
        return;
    }
    let zrams: Vec<Zram> = (0..3).map(|_| Zram::new(64 << 20)).collect();
    let devs: Vec<String> = zrams.iter().map(dev).collect();
    let dir = tempfile::tempdir().unwrap();
    let out = ssdfade(dir.path())
        .arg("soak")
        .args(&devs)
        .args(["--destroy-data", &devs.join(",")])
        .args([
            "--duration",
            "3s",
            "--interval",
            "1s",
            "--qd",
            "4",
            "--out",
            "grp",
        ])
        .env("COLUMNS", "80")
        .output()
        .unwrap();
    let stdout = String::from_utf8_lossy(&out.stdout);
    assert_eq!(
        out.status.code(),
        Some(0),
        "{stdout}{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let group = dir.path().join("grp");
    let record = GroupRecord::read(&group).unwrap();
    assert_eq!(record.status, Status::Completed);
    assert_eq!(record.members.len(), 3);
    // The overlay of the three fade curves, drawn by `compare` into the group directory.
    let png = std::fs::read(group.join("compare.png")).unwrap();
    assert!(png.starts_with(b"\x89PNG"), "compare.png is no PNG");
    let md = std::fs::read_to_string(group.join("compare.md")).unwrap();
    for member in &record.members {
        assert!(
            md.contains(&member.run_dir),
            "{} missing from compare.md",
            member.run_dir
        );
    }
    let mut run_dirs = std::collections::HashSet::new();
    for (member, dev) in record.members.iter().zip(&devs) {
        assert_eq!(&member.target, dev);
        assert_eq!(member.status, Status::Completed);
        let run = group.join(&member.run_dir);
        assert!(
            run_dirs.insert(run.clone()),
            "two members share {}",
            run.display()
        );
        // Each run directory stands alone: its own run.json naming its own device, its own samples.
        let info = read_info(&run).unwrap();
        assert_eq!(&info.target.path, dev);
        assert_eq!(info.status, Status::Completed);
        assert_eq!(info.command, Command::Soak);
        let samples = read_samples(&run).unwrap();
        assert!(
            samples.len() >= 3,
            "{} samples in {}",
            samples.len(),
            run.display()
        );
        let written = samples.last().unwrap().bytes_written_total;
        assert!(written > 0);
        // The device really holds that much written data (zram counts what it stores).
        let mm = std::fs::read_to_string(format!(
            "/sys/block/{}/mm_stat",
            Path::new(dev).file_name().unwrap().to_str().unwrap()
        ))
        .unwrap();
        let orig: u64 = mm.split_whitespace().next().unwrap().parse().unwrap();
        assert!(orig > 0, "{dev} holds no data after the soak");
        // Its row in the table: the run's IOPS and status beside its target, at most 80 columns.
        let row = stdout
            .lines()
            .find(|l| l.split_whitespace().next() == Some(dev))
            .unwrap_or_else(|| panic!("no row for {dev} in\n{stdout}"));
        let cells: Vec<&str> = row.split_whitespace().collect();
        assert_eq!(cells[1], "completed", "{row}");
        let summary = info.summary.unwrap();
        assert_eq!(cells[2], format!("{:.0}", summary.iops), "{row}");
        assert_eq!(cells[3], format!("{:.2}", summary.mb_per_s), "{row}");
        assert!(row.chars().count() <= 80, "{row}");
    }
}

#[test]
fn a_failing_target_does_not_stop_the_others_and_the_exit_status_says_which() {
    if !root_or_skip("a_failing_target_does_not_stop_the_others") {
        return;
    }
    let good = Zram::new(64 << 20);
    let full = full_zram();
    let (good_dev, full_dev) = (dev(&good), dev(&full));
    let dir = tempfile::tempdir().unwrap();
    let out = ssdfade(dir.path())
        .args(["soak", &good_dev, &full_dev, "sim:ram-8g,scale=64"])
        .args(["--destroy-data", &format!("{good_dev},{full_dev}")])
        .args([
            "--duration",
            "4s",
            "--interval",
            "1s",
            "--qd",
            "2",
            "--out",
            "grp",
        ])
        .output()
        .unwrap();
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert_eq!(out.status.code(), Some(1), "{stderr}");
    assert!(
        stderr
            .lines()
            .any(|l| l.starts_with(&format!("ssdfade: {full_dev} failed:"))),
        "{stderr}"
    );
    assert!(!stderr.contains(&format!("{good_dev} failed")), "{stderr}");
    let group = dir.path().join("grp");
    let record = GroupRecord::read(&group).unwrap();
    assert_eq!(record.status, Status::Failed);
    let by_target: HashMap<&str, _> = record
        .members
        .iter()
        .map(|m| (m.target.as_str(), m))
        .collect();
    assert_eq!(by_target[full_dev.as_str()].status, Status::Failed);
    assert!(by_target[full_dev.as_str()].error.is_some());
    for ok in [good_dev.as_str(), "sim:ram-8g,scale=64"] {
        let member = by_target[ok];
        assert_eq!(member.status, Status::Completed, "{ok}");
        // It ran its whole duration, after the other target had failed.
        let samples = read_samples(&group.join(&member.run_dir)).unwrap();
        assert!(
            samples.last().unwrap().t_end_s >= 3.9,
            "{ok}: {:?}",
            samples.last().unwrap().t_end_s
        );
    }
    let failed = read_info(&group.join(&by_target[full_dev.as_str()].run_dir)).unwrap();
    assert_eq!(failed.status, Status::Failed);
}

#[test]
fn one_refused_target_refuses_all_and_nothing_is_written() {
    if !root_or_skip("one_refused_target_refuses_all") {
        return;
    }
    let a = Zram::new(16 << 20);
    let b = Zram::new(16 << 20);
    let (a_dev, b_dev) = (dev(&a), dev(&b));
    let dir = tempfile::tempdir().unwrap();
    // b is not confirmed: the whole command is refused, a untouched too.
    let out = ssdfade(dir.path())
        .args([
            "soak",
            &a_dev,
            &b_dev,
            "sim:ram-8g,scale=64",
            "--destroy-data",
            &a_dev,
        ])
        .args(["--duration", "2s", "--interval", "1s"])
        .output()
        .unwrap();
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert_eq!(out.status.code(), Some(2), "{stderr}");
    assert_eq!(stderr.lines().count(), 1, "{stderr}");
    assert!(
        stderr.contains(&b_dev) && stderr.contains("--destroy-data"),
        "{stderr}"
    );
    assert_eq!(
        std::fs::read_dir(dir.path()).unwrap().count(),
        0,
        "something was created"
    );
    for d in [&a_dev, &b_dev] {
        let name = Path::new(d).file_name().unwrap().to_str().unwrap();
        let mm = std::fs::read_to_string(format!("/sys/block/{name}/mm_stat")).unwrap();
        let fields: Vec<u64> = mm.split_whitespace().map(|f| f.parse().unwrap()).collect();
        assert_eq!(fields[0], 0, "{d} was written: {mm}");
        let stat = std::fs::read_to_string(format!("/sys/block/{name}/stat")).unwrap();
        let writes: u64 = stat.split_whitespace().nth(4).unwrap().parse().unwrap();
        assert_eq!(writes, 0, "{d} saw writes: {stat}");
    }
    // A confirmation naming no target is refused as well.
    let out = ssdfade(dir.path())
        .args([
            "soak",
            &a_dev,
            &b_dev,
            "--destroy-data",
            &format!("{a_dev},{b_dev},/dev/nope"),
        ])
        .args(["--duration", "2s"])
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(2));
    assert!(String::from_utf8_lossy(&out.stderr).contains("/dev/nope"));
    assert_eq!(std::fs::read_dir(dir.path()).unwrap().count(), 0);
}

/// `GET /metrics` over a plain TCP connection; the body, or None when nothing listens yet.
fn scrape(addr: &str) -> Option<String> {
    let mut s = std::net::TcpStream::connect(addr).ok()?;
    write!(s, "GET /metrics HTTP/1.0\r\nHost: {addr}\r\n\r\n").ok()?;
    let mut text = String::new();
    s.read_to_string(&mut text).ok()?;
    let (head, body) = text.split_once("\r\n\r\n")?;
    assert!(
        head.starts_with("HTTP/1.") && head.contains(" 200 "),
        "{head}"
    );
    Some(body.to_string())
}

/// The value of series `name` whose labels include `target="…"`.
fn value(text: &str, name: &str, target: &str, extra: &str) -> Option<f64> {
    let target = format!("target=\"{target}\"");
    text.lines()
        .filter(|l| l.starts_with(&format!("{name}{{")))
        .find(|l| l.contains(&target) && l.contains(extra))
        .and_then(|l| l.rsplit(' ').next())
        .map(|v| v.parse().unwrap())
}

fn free_port() -> u16 {
    std::net::TcpListener::bind("127.0.0.1:0")
        .unwrap()
        .local_addr()
        .unwrap()
        .port()
}

#[test]
fn metrics_endpoint_scraped_during_a_group_run_matches_the_samples() {
    if !root_or_skip("metrics_endpoint_scraped_during_a_group_run") {
        return;
    }
    let zram = Zram::new(64 << 20);
    let zdev = dev(&zram);
    let targets = [
        zdev.as_str(),
        "sim:ram-8g,scale=64",
        "sim:dc-ssd-400g,scale=64",
    ];
    let addr = format!("127.0.0.1:{}", free_port());
    let dir = tempfile::tempdir().unwrap();
    let mut child = ssdfade(dir.path())
        .arg("soak")
        .args(targets)
        .args(["--destroy-data", &zdev, "--metrics-listen", &addr])
        .args([
            // Long enough that the RAM device is still running at the scrape when the other
            // tests of this file load both CPUs (with 5 s one full test run found it completed).
            "--duration",
            "15s",
            "--interval",
            "1s",
            "--qd",
            "4",
            "--out",
            "grp",
        ])
        .stdout(std::process::Stdio::null())
        .stderr(std::process::Stdio::piped())
        .spawn()
        .unwrap();
    // Scrape until every target has two samples in, while the run goes on.
    let deadline = Instant::now() + Duration::from_secs(30);
    let mut last = String::new();
    let text = loop {
        assert!(
            Instant::now() < deadline,
            "no scrape with two samples per target"
        );
        assert!(
            child.try_wait().unwrap().is_none(),
            "the run ended before a scrape saw two samples per target; last scrape:\n{last}"
        );
        if let Some(text) = scrape(&addr) {
            last = text.clone();
            if targets
                .iter()
                .all(|t| value(&text, "ssdfade_samples_total", t, "").unwrap_or(0.0) >= 2.0)
            {
                break text;
            }
        }
        std::thread::sleep(Duration::from_millis(100));
    };
    // The RAM device runs in real time: still running. A simulated drive's 15 s of simulated
    // time may already be over.
    assert_eq!(
        value(&text, "ssdfade_run_state", &zdev, "state=\"running\""),
        Some(1.0)
    );
    for t in targets {
        let states: f64 = ["running", "completed"]
            .iter()
            .map(|s| value(&text, "ssdfade_run_state", t, &format!("state=\"{s}\"")).unwrap())
            .sum();
        assert_eq!(states, 1.0, "{t}");
    }
    let status = child.wait().unwrap();
    let mut stderr = String::new();
    child
        .stderr
        .take()
        .unwrap()
        .read_to_string(&mut stderr)
        .unwrap();
    assert!(status.success(), "{stderr}");
    assert!(
        text.contains("# TYPE ssdfade_written_bytes counter"),
        "{text}"
    );
    let record = GroupRecord::read(&dir.path().join("grp")).unwrap();
    for (member, t) in record.members.iter().zip(targets) {
        let samples = read_samples(&dir.path().join("grp").join(&member.run_dir)).unwrap();
        let n = value(&text, "ssdfade_samples_total", t, "").unwrap() as usize;
        let s = &samples[n - 1];
        let close = |a: f64, b: f64| (a - b).abs() <= 1e-9 * b.abs().max(1.0);
        let iops = value(&text, "ssdfade_iops", t, "").unwrap();
        assert!(
            close(iops, s.iops),
            "{t}: scraped {iops}, sample {} {}",
            n - 1,
            s.iops
        );
        let bps = value(&text, "ssdfade_throughput_bytes_per_second", t, "").unwrap();
        assert!(close(bps, s.mb_per_s * 1e6), "{t}: {bps} vs {}", s.mb_per_s);
        let written = value(&text, "ssdfade_written_bytes_total", t, "").unwrap();
        assert_eq!(written as u64, s.bytes_written_total, "{t}");
        let p99 = value(&text, "ssdfade_latency_seconds", t, "quantile=\"0.99\"").unwrap();
        assert!(
            close(p99, s.lat_us.unwrap().p99 / 1e6),
            "{t}: {p99} vs {}",
            s.lat_us.unwrap().p99
        );
        let run = format!("run=\"{}\"", member.run_dir);
        assert!(text
            .lines()
            .any(|l| l.contains(&format!("target=\"{t}\"")) && l.contains(&run)));
    }
    // The sim drives carry their model and serial.
    assert!(text.contains("serial=\"SIM-ram-8g-1\""), "{text}");
}

#[test]
fn textfile_is_replaced_atomically_after_every_sample() {
    let dir = tempfile::tempdir().unwrap();
    let prom_dir = dir.path().join("textfile");
    std::fs::create_dir(&prom_dir).unwrap();
    let prom = prom_dir.join("ssdfade.prom");
    let mut child = ssdfade(dir.path())
        .args(["soak", "sim:ram-8g,scale=64", "--metrics-textfile"])
        .arg(&prom)
        .args([
            "--duration",
            "3s",
            "--interval",
            "10ms",
            "--qd",
            "4",
            "--out",
            "run",
        ])
        .stdout(std::process::Stdio::null())
        .spawn()
        .unwrap();
    // Read as fast as we can while it is rewritten: every read is a whole file.
    let mut reads = 0;
    let mut seen_counts = std::collections::BTreeSet::new();
    while child.try_wait().unwrap().is_none() {
        if let Ok(text) = std::fs::read_to_string(&prom) {
            reads += 1;
            assert!(text.ends_with("# EOF\n"), "a torn textfile:\n{text}");
            if let Some(n) = value(&text, "ssdfade_samples_total", "sim:ram-8g,scale=64", "") {
                seen_counts.insert(n as u64);
            }
        }
    }
    assert!(child.wait().unwrap().success());
    assert!(
        reads > 10 && seen_counts.len() > 3,
        "{reads} reads, {seen_counts:?}"
    );
    // Only the file itself is left: no temporary files.
    let names: Vec<_> = std::fs::read_dir(&prom_dir)
        .unwrap()
        .map(|e| e.unwrap().file_name())
        .collect();
    assert_eq!(names, vec![std::ffi::OsString::from("ssdfade.prom")]);
    let text = std::fs::read_to_string(&prom).unwrap();
    let samples = read_samples(&dir.path().join("run")).unwrap();
    let t = "sim:ram-8g,scale=64";
    assert_eq!(
        value(&text, "ssdfade_samples_total", t, ""),
        Some(samples.len() as f64)
    );
    assert_eq!(
        value(&text, "ssdfade_run_state", t, "state=\"completed\""),
        Some(1.0)
    );
    assert_eq!(
        value(&text, "ssdfade_run_state", t, "state=\"running\""),
        Some(0.0)
    );
    assert_eq!(
        value(&text, "ssdfade_written_bytes_total", t, ""),
        Some(samples.last().unwrap().bytes_written_total as f64)
    );
}

/// Kills the child it holds when dropped, so a failing test leaves no run behind.
struct Reaped(std::process::Child);

impl Drop for Reaped {
    fn drop(&mut self) {
        let _ = self.0.kill();
        let _ = self.0.wait();
    }
}

/// Everything a client sends back before the server closes; Err when it kept the connection
/// open for 20 s.
fn answer_of(mut s: &std::net::TcpStream) -> std::io::Result<String> {
    s.set_read_timeout(Some(Duration::from_secs(20)))?;
    let mut text = Vec::new();
    s.read_to_end(&mut text)?;
    Ok(String::from_utf8_lossy(&text).into_owned())
}

#[test]
fn the_metrics_endpoint_outlives_idle_floods_oversized_requests_and_a_low_open_file_limit() {
    let dir = tempfile::tempdir().unwrap();
    let addr = format!("127.0.0.1:{}", free_port());
    // 64 descriptors: a server that gives each idle client a descriptor runs out (EMFILE).
    let _run = Reaped(
        std::process::Command::new("sh")
            .args(["-c", "ulimit -n 64 && exec \"$0\" \"$@\""])
            .arg(env!("CARGO_BIN_EXE_ssdfade"))
            .args(["measure", "t.img", "--size", "16M", "--qd", "1"])
            .args([
                "--duration",
                "120s",
                "--metrics-listen",
                &addr,
                "--out",
                "run",
            ])
            .current_dir(dir.path())
            .stdout(std::process::Stdio::null())
            .stderr(std::process::Stdio::null())
            .spawn()
            .unwrap(),
    );
    common::wait_for("the metrics endpoint", 30, || scrape(&addr).is_some());
    let idle: Vec<std::net::TcpStream> = (0..200)
        .map(|_| std::net::TcpStream::connect(&addr).unwrap())
        .collect();
    let mut refused = 0;
    for (i, s) in idle.iter().enumerate() {
        // Each is either refused at once or closed when it stays silent: none is left open.
        let text = answer_of(s).unwrap_or_else(|e| panic!("idle client {i} kept open: {e}"));
        if text.contains(" 503 ") {
            refused += 1;
        } else {
            assert_eq!(text, "", "idle client {i}");
        }
    }
    assert!(refused > 0, "200 idle clients and none refused");
    drop(idle);
    // A request head that never ends is cut off at its bound, with a status saying so.
    let mut big = std::net::TcpStream::connect(&addr).unwrap();
    let pad = format!(
        "GET /metrics HTTP/1.0\r\nX-Pad: {}\r\n",
        "a".repeat(64 << 10)
    );
    let _ = big.write_all(pad.as_bytes());
    let text = answer_of(&big).expect("an oversized request kept open");
    assert!(text.contains(" 431 "), "{text}");
    // And the endpoint still answers a scraper.
    let body = scrape(&addr).expect("the endpoint stopped answering");
    assert!(body.contains("ssdfade_"), "{body}");
}

#[test]
fn a_metrics_address_that_cannot_be_bound_refuses_before_anything_is_written() {
    let dir = tempfile::tempdir().unwrap();
    let taken = std::net::TcpListener::bind("127.0.0.1:0").unwrap();
    let addr = taken.local_addr().unwrap().to_string();
    let out = ssdfade(dir.path())
        .args(["soak", "sim:ram-8g,scale=64", "sim:dc-ssd-400g,scale=64"])
        .args(["--metrics-listen", &addr, "--duration", "1s"])
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(2));
    assert!(String::from_utf8_lossy(&out.stderr).contains("--metrics-listen"));
    assert_eq!(std::fs::read_dir(dir.path()).unwrap().count(), 0);
}

/// The row of `target` in a table printed on stdout, split into cells. The table shortens a
/// long name to fit 80 columns with "…" in its middle (how much depends on the widths of the
/// figures beside it), so the row's first cell is `target` or its two ends around "…".
fn row_of<'a>(stdout: &'a str, target: &str) -> Vec<&'a str> {
    let names = |cell: &str| match cell.split_once('…') {
        Some((head, tail)) => target.starts_with(head) && target.ends_with(tail),
        None => cell == target,
    };
    let row = stdout
        .lines()
        .find(|l| l.split_whitespace().next().is_some_and(names))
        .unwrap_or_else(|| panic!("no row for {target} in\n{stdout}"));
    assert!(row.chars().count() <= 80, "wider than 80 columns: {row}");
    row.split_whitespace().collect()
}

/// A phase's IOPS as experiment.json records it.
fn phase_iops(record: &serde_json::Value, name: &str) -> f64 {
    record["phases"]
        .as_array()
        .unwrap()
        .iter()
        .find(|p| p["name"] == name)
        .and_then(|p| p["headline"]["iops"].as_f64())
        .unwrap_or_else(|| panic!("no IOPS for phase {name}"))
}

fn experiment_json(dir: &Path) -> serde_json::Value {
    serde_json::from_str(&std::fs::read_to_string(dir.join("experiment.json")).unwrap()).unwrap()
}

/// The short vertex2 used by the group experiment tests: seconds instead of hours.
const SHORT_VERTEX2: [&str; 6] = [
    "--measure-duration",
    "2s",
    "--soak-duration",
    "4s",
    "--soak-interval",
    "1s",
];

#[test]
fn a_vertex2_experiment_on_two_targets_completes_each_and_the_table_matches_their_records() {
    if !root_or_skip("a_vertex2_experiment_on_two_targets") {
        return;
    }
    let zram = Zram::new(64 << 20);
    let zdev = dev(&zram);
    let sim = "sim:ram-8g,scale=64";
    let dir = tempfile::tempdir().unwrap();
    let out = ssdfade(dir.path())
        .args(["experiment", "vertex2", &zdev, sim, "--destroy-data", &zdev])
        .args(SHORT_VERTEX2)
        .args(["--qd", "4", "--out", "grp"])
        .env("COLUMNS", "80")
        .output()
        .unwrap();
    let stdout = String::from_utf8_lossy(&out.stdout);
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert_eq!(out.status.code(), Some(0), "{stdout}{stderr}");
    let group = dir.path().join("grp");
    let record = GroupRecord::read(&group).unwrap();
    assert_eq!(record.command, Command::Experiment("vertex2".into()));
    assert_eq!(record.status, Status::Completed);
    let targets = [zdev.as_str(), sim];
    assert_eq!(
        record
            .members
            .iter()
            .map(|m| m.target.as_str())
            .collect::<Vec<_>>(),
        targets
    );
    for member in &record.members {
        let t = member.target.as_str();
        assert_eq!(member.status, Status::Completed, "{t}");
        let exp_dir = group.join(&member.run_dir);
        let exp = experiment_json(&exp_dir);
        assert_eq!(exp["target"], t);
        assert_eq!(exp["status"], "completed");
        // Every phase completed, each with its own directory holding its own records.
        for p in exp["phases"].as_array().unwrap() {
            assert_eq!(p["status"], "completed", "{t}: {p}");
            let sub = exp_dir.join(p["dir"].as_str().unwrap());
            let record = if p["kind"] == "erase" {
                "erase.json"
            } else {
                "run.json"
            };
            assert!(sub.join(record).is_file(), "{}", sub.display());
        }
        let soak = exp_dir.join("04-soak");
        assert_eq!(
            read_info(&soak).unwrap().target.path.split(',').next(),
            t.split(',').next()
        );
        assert!(read_samples(&soak).unwrap().len() >= 4, "{t}");
        // Its progress: a line per finished phase, led by the target (stderr is no terminal).
        assert!(
            stderr.contains(&format!("ssdfade: {t}: [7] recovered (measure): completed")),
            "{stderr}"
        );
        // Its row: every state's IOPS, the fade and the recovery from its experiment.json.
        let cells = row_of(&stdout, t);
        assert_eq!(cells[1], "completed");
        let iops: Vec<f64> = ["in-service", "fresh", "faded", "recovered"]
            .iter()
            .map(|n| phase_iops(&exp, n))
            .collect();
        for (i, v) in iops.iter().enumerate() {
            assert_eq!(cells[2 + i], format!("{v:.0}"), "{t}: {cells:?}");
        }
        assert_eq!(cells[6], format!("{:.0}", 100.0 * iops[2] / iops[1]), "{t}");
        assert_eq!(cells[8], format!("{:.0}", 100.0 * iops[3] / iops[1]), "{t}");
    }
    // The two soaks drawn over each other in the group directory.
    let md = std::fs::read_to_string(group.join("compare.md")).unwrap();
    for m in &record.members {
        assert!(md.contains(&format!("{}/04-soak", m.run_dir)), "{md}");
    }
    assert!(std::fs::read(group.join("compare.png"))
        .unwrap()
        .starts_with(b"\x89PNG"));
}

#[test]
fn a_failing_target_does_not_stop_the_other_experiment_and_resume_leaves_the_finished_one() {
    if !root_or_skip("a_failing_target_does_not_stop_the_other_experiment") {
        return;
    }
    let full = full_zram();
    let full_dev = dev(&full);
    let sim = "sim:ram-8g,scale=64";
    let dir = tempfile::tempdir().unwrap();
    let out = ssdfade(dir.path())
        .args(["experiment", "vertex2", &full_dev, sim])
        .args(["--destroy-data", &full_dev])
        .args(SHORT_VERTEX2)
        .args(["--qd", "2", "--out", "grp"])
        .output()
        .unwrap();
    let stdout = String::from_utf8_lossy(&out.stdout);
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert_eq!(out.status.code(), Some(1), "{stdout}{stderr}");
    assert!(
        stderr
            .lines()
            .any(|l| l.starts_with(&format!("ssdfade: {full_dev} failed:"))),
        "{stderr}"
    );
    assert!(!stderr.contains(&format!("{sim} failed")), "{stderr}");
    assert_eq!(row_of(&stdout, &full_dev)[1], "failed");
    assert_eq!(row_of(&stdout, sim)[1], "completed");
    let group = dir.path().join("grp");
    let record = GroupRecord::read(&group).unwrap();
    assert_eq!(record.status, Status::Failed);
    let (failed, done) = (&record.members[0], &record.members[1]);
    assert_eq!(
        (failed.status.as_str(), done.status.as_str()),
        ("failed", "completed")
    );
    assert!(failed.error.is_some());
    // The failed one stopped at its first phase; the other ran every phase to the end.
    let exp = experiment_json(&group.join(&failed.run_dir));
    assert_eq!(exp["status"], "failed");
    assert_eq!(exp["phases"][0]["status"], "failed");
    let exp = experiment_json(&group.join(&done.run_dir));
    assert!(exp["phases"]
        .as_array()
        .unwrap()
        .iter()
        .all(|p| p["status"] == "completed"));
    let finished_before = exp["phases"][6]["ended_utc"].clone();
    // Resuming the group tries the unfinished member again and leaves the finished one be.
    let out = ssdfade(dir.path())
        .args(["resume", "grp"])
        .output()
        .unwrap();
    assert_eq!(
        out.status.code(),
        Some(1),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let exp = experiment_json(&group.join(&done.run_dir));
    assert_eq!(exp["phases"][6]["ended_utc"], finished_before);
    let exp = experiment_json(&group.join(&failed.run_dir));
    assert_eq!(exp["phases"][0]["attempts"], 2);
}

#[test]
fn a_refused_target_refuses_the_whole_experiment_and_nothing_is_written() {
    if !root_or_skip("a_refused_target_refuses_the_whole_experiment") {
        return;
    }
    let a = Zram::new(16 << 20);
    let b = Zram::new(16 << 20);
    let (a_dev, b_dev) = (dev(&a), dev(&b));
    let dir = tempfile::tempdir().unwrap();
    let out = ssdfade(dir.path())
        .args([
            "experiment",
            "vertex2",
            &a_dev,
            &b_dev,
            "sim:ram-8g,scale=64",
        ])
        .args(["--destroy-data", &a_dev])
        .args(SHORT_VERTEX2)
        .output()
        .unwrap();
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert_eq!(out.status.code(), Some(2), "{stderr}");
    assert_eq!(stderr.lines().count(), 1, "{stderr}");
    assert!(
        stderr.contains(&b_dev) && stderr.contains("--destroy-data"),
        "{stderr}"
    );
    assert_eq!(
        std::fs::read_dir(dir.path()).unwrap().count(),
        0,
        "something was created"
    );
    for d in [&a_dev, &b_dev] {
        let name = Path::new(d).file_name().unwrap().to_str().unwrap();
        let stat = std::fs::read_to_string(format!("/sys/block/{name}/stat")).unwrap();
        let writes: u64 = stat.split_whitespace().nth(4).unwrap().parse().unwrap();
        let discards: u64 = stat
            .split_whitespace()
            .nth(11)
            .unwrap_or("0")
            .parse()
            .unwrap();
        assert_eq!(
            (writes, discards),
            (0, 0),
            "{d} was written or erased: {stat}"
        );
    }
}

#[test]
fn metrics_endpoint_during_an_experiment_shows_its_phase_and_steady_state() {
    if !root_or_skip("metrics_endpoint_during_an_experiment") {
        return;
    }
    // The RAM device keeps the command going in real time; the simulated drive (its flash is
    // twice its 8 GiB) reaches steady state once its flash is full, in about 19 s of simulated
    // time, and finishes long before. WSAT writes four times the RAM device's capacity before
    // it may stop: 64 MiB took 0.3–0.9 s, too short to be sure of a scrape; 1 GiB takes seconds.
    // Rounds of 2 s keep it soaking after those writes while a loaded machine (other builds
    // beside the test) still runs the simulated drive to its end: with 1 s rounds the RAM
    // device once reached steady state first.
    let zram = Zram::new(1 << 30);
    let zdev = dev(&zram);
    let sim = "sim:ram-8g,scale=64";
    let addr = format!("127.0.0.1:{}", free_port());
    let dir = tempfile::tempdir().unwrap();
    let mut child = ssdfade(dir.path())
        .args(["experiment", "wsat", &zdev, sim, "--destroy-data", &zdev])
        .args(["--max-duration", "40s", "--ss-round", "2s", "--qd", "4"])
        .args(["--metrics-listen", &addr, "--out", "grp"])
        .stdout(std::process::Stdio::null())
        .stderr(std::process::Stdio::null())
        .spawn()
        .unwrap();
    let phase_of = |text: &str, t: &str| -> Option<String> {
        text.lines()
            .find(|l| {
                l.starts_with("ssdfade_experiment_phase_info{")
                    && l.contains(&format!("target=\"{t}\""))
            })
            .map(|l| {
                l.split("phase=\"")
                    .nth(1)
                    .unwrap()
                    .split('"')
                    .next()
                    .unwrap()
                    .to_string()
            })
    };
    // Scrape until the simulated drive's experiment is over while the RAM device's soaks on.
    let deadline = Instant::now() + Duration::from_secs(60);
    let text = loop {
        assert!(Instant::now() < deadline, "no scrape with the sim finished");
        assert!(
            child.try_wait().unwrap().is_none(),
            "the experiment ended before a scrape"
        );
        if let Some(text) = scrape(&addr) {
            let sim_done = value(
                &text,
                "ssdfade_experiment_state",
                sim,
                "state=\"completed\"",
            ) == Some(1.0);
            if sim_done && phase_of(&text, &zdev).as_deref() == Some("wsat") {
                break text;
            }
        }
        std::thread::sleep(Duration::from_millis(100));
    };
    // The RAM device: in its second phase of two, the soak, running.
    assert_eq!(
        value(&text, "ssdfade_experiment_phase_index", &zdev, ""),
        Some(2.0)
    );
    assert_eq!(
        value(&text, "ssdfade_experiment_phases", &zdev, ""),
        Some(2.0)
    );
    assert_eq!(
        value(
            &text,
            "ssdfade_experiment_state",
            &zdev,
            "state=\"running\""
        ),
        Some(1.0)
    );
    assert!(
        text.contains("experiment=\"wsat\"") && text.contains("kind=\"soak\""),
        "{text}"
    );
    assert!(child.wait().unwrap().success());
    // The simulated drive: its steady state as the soak's run.json records it.
    let record = GroupRecord::read(&dir.path().join("grp")).unwrap();
    let exp_dir = dir.path().join("grp").join(&record.members[1].run_dir);
    let exp = experiment_json(&exp_dir);
    assert_eq!(exp["phases"][1]["name"], "wsat");
    let steady = read_info(&exp_dir.join(exp["phases"][1]["dir"].as_str().unwrap()))
        .unwrap()
        .steady_state
        .unwrap();
    assert!(
        steady.reached,
        "the simulated drive did not reach steady state"
    );
    let phase = "phase=\"wsat\"";
    assert_eq!(
        value(&text, "ssdfade_steady_state_reached", sim, phase),
        Some(1.0)
    );
    assert_eq!(
        value(&text, "ssdfade_steady_state_reached_at_seconds", sim, phase),
        steady.at_s
    );
    let iops = value(&text, "ssdfade_steady_state_iops", sim, phase).unwrap();
    assert!((iops - steady.iops.unwrap()).abs() <= 1e-9 * iops.abs());
    // The experiment's runs carry its directory as `run`.
    let run = format!("run=\"{}\"", record.members[1].run_dir);
    assert!(text
        .lines()
        .any(|l| l.starts_with("ssdfade_steady_state_reached{") && l.contains(&run)));
    // The drive's wear as the simulator reports it after the soak.
    let after = read_info(&exp_dir.join(exp["phases"][1]["dir"].as_str().unwrap()))
        .unwrap()
        .drive_after
        .unwrap();
    assert_eq!(
        value(&text, "ssdfade_drive_percentage_used", sim, phase),
        after.wear.percentage_used.map(f64::from)
    );
}

#[test]
fn slog_on_two_targets_prints_each_verdict_from_its_own_slog_json() {
    let dir = tempfile::tempdir().unwrap();
    let targets = ["sim:vertex2-60g", "sim:dc-ssd-400g"];
    let out = ssdfade(dir.path())
        .arg("slog")
        .args(targets)
        .args(["--sustain", "2s", "--max-size", "16k", "--out", "grp"])
        .env("COLUMNS", "80")
        .output()
        .unwrap();
    let stdout = String::from_utf8_lossy(&out.stdout);
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert_eq!(out.status.code(), Some(0), "{stdout}{stderr}");
    let group = dir.path().join("grp");
    let record = GroupRecord::read(&group).unwrap();
    assert_eq!(
        (record.command.to_string().as_str(), record.status.as_str()),
        ("slog", "completed")
    );
    for (member, t) in record.members.iter().zip(targets) {
        assert_eq!(member.target, t);
        let slog: serde_json::Value = serde_json::from_str(
            &std::fs::read_to_string(group.join(&member.run_dir).join("slog.json")).unwrap(),
        )
        .unwrap();
        assert_eq!(slog["device"]["target"], t);
        let cells = row_of(&stdout, t);
        assert_eq!(cells[1], "completed");
        assert_eq!(cells[2], slog["verdict"]["rating"].as_str().unwrap(), "{t}");
        let mean = slog["evidence"]["latency"]["mean_us"].as_f64().unwrap();
        // As the verdict renders it: "40.0 µs" (two whitespace-split cells).
        assert_eq!(
            cells[3..5].join(" "),
            ssdfade::units::format_latency_us(mean),
            "{t}"
        );
        // Its progress lines are led by the target.
        assert!(stderr.contains(&format!("ssdfade slog: {t}: ")), "{stderr}");
    }
    // The two drives differ: a consumer drive without power-loss protection and a DC drive.
    assert_ne!(
        row_of(&stdout, targets[0])[3],
        row_of(&stdout, targets[1])[3]
    );
}

#[test]
fn every_series_the_grafana_dashboard_queries_is_exported_by_an_experiment() {
    let dir = tempfile::tempdir().unwrap();
    let prom = dir.path().join("ssdfade.prom");
    let out = ssdfade(dir.path())
        .args(["experiment", "vertex2", "sim:vertex2-60g"])
        // A soak long enough to fill the purged drive's flash once (64 GiB: no round counts
        // before), then five 1 s rounds of steady.
        .args([
            "--measure-duration",
            "2s",
            "--soak-duration",
            "55m",
            "--span",
            "64M",
        ])
        .args(["--soak-interval", "1s", "--ss-round", "1s"])
        .args(["--out", "exp", "--metrics-textfile"])
        .arg(&prom)
        .output()
        .unwrap();
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let text = std::fs::read_to_string(&prom).unwrap();
    let dashboard = std::fs::read_to_string(
        Path::new(env!("CARGO_MANIFEST_DIR")).join("contrib/grafana-ssdfade-fleet.json"),
    )
    .unwrap();
    let names: std::collections::BTreeSet<&str> = dashboard
        .match_indices("ssdfade_")
        .map(|(i, _)| {
            let rest = &dashboard[i..];
            let end = rest
                .find(|c: char| !(c.is_ascii_lowercase() || c == '_'))
                .unwrap_or(rest.len());
            &rest[..end]
        })
        .collect();
    assert!(names.len() >= 10, "{names:?}");
    // Every series carries the labels the dashboard's fleet view groups by, with this host's
    // name (the one run.json's process stamp gives).
    let host = std::fs::read_to_string("/proc/sys/kernel/hostname").unwrap();
    let labels = format!(
        "{{host=\"{}\",target=\"sim:vertex2-60g\",model=\"",
        host.trim()
    );
    for line in text.lines().filter(|l| !l.starts_with('#')) {
        assert!(
            line.contains(&labels) && line.contains(",serial=\"SIM-vertex2-60g-1\""),
            "{line}"
        );
    }
    assert!(dashboard.contains("quantile by (model)"));
    for name in names {
        assert!(
            text.lines().any(|l| l.starts_with(&format!("{name}{{"))),
            "the dashboard queries {name}, which the experiment did not export:\n{text}"
        );
    }
    // The last phase is the one shown, and the experiment ended completed.
    assert!(
        text.contains("phase=\"recovered\",kind=\"measure\"} 1"),
        "{text}"
    );
    assert_eq!(
        value(
            &text,
            "ssdfade_experiment_state",
            "sim:vertex2-60g",
            "state=\"completed\""
        ),
        Some(1.0)
    );
}

#[test]
fn a_group_goes_on_when_nobody_reads_its_progress_lines() {
    let work = tempfile::tempdir().unwrap();
    let mut child = ssdfade(work.path())
        .args(["experiment", "vertex2", "sim:vertex2-60g,scale=16"])
        .args(["sim:dc-ssd-400g,scale=16", "--soak-duration", "30m"])
        .args(["--measure-duration", "5s", "--out", "g"])
        .stdout(std::process::Stdio::null())
        .stderr(std::process::Stdio::piped())
        .spawn()
        .unwrap();
    // The reader of stderr goes away at once: every progress line then meets a closed pipe.
    drop(child.stderr.take());
    let status = child.wait().unwrap();
    assert!(status.success(), "{status}");
    let group: serde_json::Value = serde_json::from_str(
        &std::fs::read_to_string(work.path().join("g").join("group.json")).unwrap(),
    )
    .unwrap();
    assert_eq!(group["status"], "completed", "{group}");
    for member in group["members"].as_array().unwrap() {
        assert_eq!(member["status"], "completed", "{member}");
    }
}

/// A file beside a simulated drive: the two run different engines, and the header above the
/// table names each member's rather than the first one's for all.
#[test]
fn a_mixed_fleets_header_names_each_members_engine() {
    let dir = tempfile::tempdir().unwrap();
    let sim = "sim:ram-8g,scale=64";
    std::fs::write(dir.path().join("a.img"), vec![0u8; 16 << 20]).unwrap();
    let out = ssdfade(dir.path())
        .args(["soak", "a.img", sim, "--destroy-data", "a.img"])
        .args(["--duration", "2s", "--interval", "1s", "--out", "g"])
        .output()
        .unwrap();
    let stdout = String::from_utf8_lossy(&out.stdout);
    assert_eq!(out.status.code(), Some(0), "{out:?}");
    let header = stdout
        .lines()
        .find(|l| l.contains("of 2 targets"))
        .unwrap_or_else(|| panic!("no header: {stdout}"));
    let file_engine = read_info(&dir.path().join("g/a.img")).unwrap().engine;
    assert_ne!(file_engine, "sim");
    assert!(
        header.contains(&format!("engines: {file_engine} (a.img), sim ({sim})")),
        "{header}"
    );
    // "Written" is in GB, the unit of every other figure of drive data the tool prints.
    let row = row_of(&stdout, sim);
    let record = GroupRecord::read(&dir.path().join("g")).unwrap();
    let member = record.members.iter().find(|m| m.target == sim).unwrap();
    let samples = read_samples(&dir.path().join("g").join(&member.run_dir)).unwrap();
    let written = samples.last().unwrap().bytes_written_total;
    assert_eq!(
        row[row.len() - 2..].join(" "),
        format!("{:.1} GB", written as f64 / 1e9),
        "{row:?}"
    );
}

/// A group that trims, of a drive that runs hot beside two that report no temperature: the
/// table gains a "Trims" column holding each member's trim count (its run.json's), the hot
/// member gets the "Heat" line its own soak prints (the same words, from its own samples), and
/// every line of the table and under it fits 80 columns.
#[test]
fn a_trimming_groups_table_counts_trims_and_names_its_hot_members_heat() {
    let dir = tempfile::tempdir().unwrap();
    let hot = "sim:nvme-tlc-1t,scale=16,thermal=m2,serial=A-VERY-LONG-SERIAL-NUMBER-0001";
    let cool = ["sim:vertex2-60g,scale=16", "sim:dc-ssd-400g,scale=16"];
    let out = ssdfade(dir.path())
        .args(["soak", hot, cool[0], cool[1], "--trim-pct", "10"])
        .args(["--duration", "5m", "--interval", "10s", "--out", "g"])
        .env("COLUMNS", "80")
        .output()
        .unwrap();
    let stdout = String::from_utf8_lossy(&out.stdout);
    assert_eq!(out.status.code(), Some(0), "{out:?}");
    let group = dir.path().join("g");
    let record = GroupRecord::read(&group).unwrap();
    let head = stdout
        .lines()
        .find(|l| l.trim_start().starts_with("Target"))
        .unwrap_or_else(|| panic!("no table: {stdout}"));
    assert!(head.trim_end().ends_with("Trims"), "{head}");
    for member in &record.members {
        let run = group.join(&member.run_dir);
        let row = row_of(&stdout, &member.target);
        let trims = read_info(&run).unwrap().summary.unwrap().trim.unwrap().ops;
        assert!(trims > 0, "{}", member.target);
        assert_eq!(row[row.len() - 1], trims.to_string(), "{row:?}");
        let heat = ssdfade::analysis::thermal::Thermal::of_dir(&run);
        let lines: Vec<&str> = stdout.lines().filter(|l| l.contains(": Heat: ")).collect();
        match heat {
            Some(heat) => {
                assert_eq!(member.target, hot);
                let line = lines
                    .iter()
                    .find(|l| l.ends_with(&format!(": Heat: {}", heat.words())))
                    .unwrap_or_else(|| panic!("no heat line of {hot} in\n{stdout}"));
                assert!(line.trim_start().starts_with("sim:nvme"), "{line}");
            }
            None => assert!(cool.contains(&member.target.as_str())),
        }
        assert_eq!(lines.len(), 1, "{stdout}");
    }
    for line in stdout.lines().filter(|l| !l.contains("directory:")) {
        assert!(line.chars().count() <= 80, "wider than 80 columns: {line}");
    }
}

/// The histograms of `path`, an HdrHistogram interval log, with `tag` (None: the untagged
/// lines, one per interval), with each interval's start and length (s).
fn hdr_log_intervals(
    path: &Path,
    tag: Option<&str>,
) -> Vec<(f64, f64, hdrhistogram::Histogram<u64>)> {
    use base64::Engine as _;
    use hdrhistogram::serialization::interval_log::{IntervalLogIterator, LogEntry};
    use hdrhistogram::serialization::Deserializer;
    let bytes = std::fs::read(path).unwrap();
    IntervalLogIterator::new(&bytes)
        .filter_map(|entry| match entry.unwrap() {
            LogEntry::Interval(i) if i.tag().map(|t| t.as_str()) == tag => {
                let raw = base64::engine::general_purpose::STANDARD
                    .decode(i.encoded_histogram())
                    .unwrap();
                let h: hdrhistogram::Histogram<u64> = Deserializer::new()
                    .deserialize(&mut std::io::Cursor::new(raw))
                    .unwrap();
                Some((
                    i.start_timestamp().as_secs_f64(),
                    i.duration().as_secs_f64(),
                    h,
                ))
            }
            _ => None,
        })
        .collect()
}

/// `h`'s buckets as latency.json writes them.
fn buckets_of(h: &hdrhistogram::Histogram<u64>) -> Vec<[u64; 2]> {
    h.iter_recorded()
        .map(|v| {
            [
                h.highest_equivalent(v.value_iterated_to()),
                v.count_at_value(),
            ]
        })
        .collect()
}

#[test]
fn exported_hdr_logs_merge_to_each_runs_histogram_and_to_the_fleets() {
    let dir = tempfile::tempdir().unwrap();
    let mut whole = Vec::new();
    let mut merged_logs =
        hdrhistogram::Histogram::<u64>::new_with_bounds(1, 100_000_000_000, 3).unwrap();
    for serial in ["HL-1", "HL-2"] {
        let out = ssdfade(dir.path())
            .args(["soak", &format!("sim:dc-ssd-400g,scale=64,serial={serial}")])
            .args(["--duration", "2m", "--interval", "5s", "--read-pct", "30"])
            .args(["--out", serial])
            .output()
            .unwrap();
        assert_eq!(out.status.code(), Some(0), "{out:?}");
        let log = dir.path().join(format!("{serial}.hlog"));
        let out = ssdfade(dir.path())
            .args(["export", serial, "--hdr-log"])
            .arg(&log)
            .output()
            .unwrap();
        assert_eq!(out.status.code(), Some(0), "{out:?}");
        let intervals = hdr_log_intervals(&log, None);
        let run = dir.path().join(serial);
        let samples = read_samples(&run).unwrap();
        assert_eq!(intervals.len(), samples.len(), "one histogram per sample");
        // The mixed run's reads and writes apart, read back by the crate's own decoder: each
        // tag's total is that direction's I/O count in the samples, and together run.json's.
        let ops_of = |dir: fn(&ssdfade::stats::Sample) -> &Option<ssdfade::stats::DirSample>| {
            samples
                .iter()
                .map(|s| dir(s).as_ref().map_or(0, |d| d.ops))
                .sum::<u64>()
        };
        let tagged = |tag| {
            let lines = hdr_log_intervals(&log, Some(tag));
            assert_eq!(lines.len(), samples.len(), "one {tag} histogram per sample");
            lines.iter().map(|(_, _, h)| h.len()).sum::<u64>()
        };
        let (reads, writes) = (tagged("read"), tagged("write"));
        assert_eq!(reads, ops_of(|s| &s.read));
        assert_eq!(writes, ops_of(|s| &s.write));
        assert!(reads > 0 && writes > 0);
        let info = read_info(&run).unwrap();
        assert_eq!(reads + writes, info.summary.unwrap().ops);
        let mut merged =
            hdrhistogram::Histogram::<u64>::new_with_bounds(1, 100_000_000_000, 3).unwrap();
        for ((start, length, h), s) in intervals.iter().zip(&samples) {
            assert!(
                (start - s.t_start_s).abs() < 1e-3
                    && (length - (s.t_end_s - s.t_start_s)).abs() < 1e-3
            );
            let ops = |d: &Option<ssdfade::stats::DirSample>| d.as_ref().map_or(0, |d| d.ops);
            assert_eq!(
                h.len(),
                ops(&s.read) + ops(&s.write),
                "interval {}",
                s.index
            );
            merged.add(h).unwrap();
        }
        merged_logs.add(&merged).unwrap();
        let record = ssdfade::results::LatencyRecord::load(&run)
            .unwrap()
            .unwrap();
        let all = record.all.unwrap();
        assert_eq!(
            buckets_of(&merged),
            all.buckets,
            "{serial}: equal counts per bucket"
        );
        whole.push(all);
    }
    let fleet = ssdfade::analysis::fleet::merge(whole.iter()).unwrap();
    assert_eq!(buckets_of(&merged_logs), fleet.buckets);
    let report = ssdfade::analysis::fleet::of_dirs(&[dir.path().to_path_buf()]).unwrap();
    assert_eq!(report.groups.len(), 1);
    assert_eq!(report.groups[0].merged_ios, merged_logs.len());
}
