//! The table `measure` prints, as a user reads it: the whole access spec in the header, one
//! latency unit, `-` (and `null` in JSON) for a direction without I/O, CPU % out of how many
//! CPUs, and no CPU line for a simulated drive.

mod common;

use common::ssdfade;

fn stdout_of(cmd: &mut std::process::Command) -> String {
    let out = cmd.env("COLUMNS", "80").output().unwrap();
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    String::from_utf8(out.stdout).unwrap()
}

#[test]
fn measure_table_shows_the_access_spec_and_dashes_for_no_reads() {
    let dir = tempfile::tempdir().unwrap();
    let text = stdout_of(ssdfade(dir.path()).args([
        "measure",
        "t.img",
        "--size",
        "16M",
        "--bs",
        "8k",
        "--align",
        "512",
        "--read-pct",
        "0",
        "--random-pct",
        "100",
        "--qd",
        "3",
        "--pattern",
        "compressible:50",
        "--engine",
        "threads",
        "--duration",
        "1s",
        "--out",
        "run",
    ]));
    for line in text.lines() {
        assert!(line.chars().count() <= 80, "longer than 80 columns: {line}");
    }
    for part in [
        "threads engine",
        "8 KiB transfers",
        "512 B aligned",
        "0 % read",
        "100 % random",
        "QD 3",
        "compressible:50 data",
    ] {
        assert!(text.contains(part), "no '{part}' in:\n{text}");
    }
    let row = |name: &str| {
        text.lines()
            .find(|l| l.trim_start().starts_with(name))
            .unwrap_or_else(|| panic!("no '{name}' row in:\n{text}"))
            .to_string()
    };
    assert!(row("Average read response time").ends_with(" -"), "{text}");
    for name in [
        "Average response time",
        "Average write response time",
        "Maximum response time",
    ] {
        // As the number rule writes a latency: µs, ms or s, three significant digits.
        let r = row(name);
        let value = ["µs", "ms", "s"]
            .iter()
            .find_map(|u| r.strip_suffix(&format!(" {u}")))
            .unwrap_or_else(|| panic!("no latency unit: {r}"));
        let number = value.rsplit(' ').next().unwrap();
        let digits: String = number.chars().filter(char::is_ascii_digit).collect();
        assert!(
            digits.trim_start_matches('0').len() <= 3 || !number.contains('.'),
            "not the number rule's latency rendering: {r}"
        );
    }
    let cpus = std::thread::available_parallelism().unwrap().get();
    assert!(
        row("CPU utilisation").contains(&format!("% of {cpus} CPUs")),
        "{text}"
    );

    let v = common::json_ok(ssdfade(dir.path()).args([
        "measure",
        "t.img",
        "--destroy-data",
        "t.img",
        "--read-pct",
        "0",
        "--bytes",
        "1M",
        "--json",
        "--out",
        "run2",
    ]));
    assert!(v["read_lat_us"].is_null(), "{v}");
    assert!(v["write_lat_us"]["mean"].as_f64().unwrap() > 0.0, "{v}");
}

#[test]
fn soak_table_on_a_sim_drive_has_human_duration_and_no_cpu_line() {
    let dir = tempfile::tempdir().unwrap();
    let text = stdout_of(ssdfade(dir.path()).args([
        "soak",
        "sim:vertex2-60g",
        "--duration",
        "2h",
        "--interval",
        "10m",
        "--read-pct",
        "100",
        "--out",
        "run",
    ]));
    let head = text.lines().next().unwrap();
    assert!(head.ends_with(", 2h"), "{head}");
    assert!(!text.contains("CPU"), "{text}");
    assert!(!text.contains("7200"), "{text}");
}

#[test]
fn a_long_target_puts_the_rest_of_the_header_on_a_line_of_its_own() {
    let dir = tempfile::tempdir().unwrap();
    let target = "sim:vertex2-60g,aged=0s,throttle=off,capacity=120G,scale=64";
    let text = stdout_of(ssdfade(dir.path()).args(["measure", target, "--duration", "1s"]));
    let mut lines = text.lines();
    assert_eq!(lines.next(), Some(&*format!("measure {target}")), "{text}");
    assert!(
        lines
            .next()
            .is_some_and(|l| l.starts_with("  (sim, ") && l.ends_with(", 1.0s")),
        "{text}"
    );
    for line in text.lines() {
        assert!(line.chars().count() <= 80, "longer than 80 columns: {line}");
    }
}

/// A soak that ends before steady state prints its last window over two lines: hours-long
/// window bounds with range and slope ran past 80 columns on one.
#[test]
fn a_soak_short_of_steady_state_fits_80_columns() {
    let dir = tempfile::tempdir().unwrap();
    let target = "sim:vertex2-60g,aged=0s,throttle=off,capacity=120G,scale=64";
    let text = stdout_of(ssdfade(dir.path()).args([
        "soak",
        target,
        "--duration",
        "2h",
        "--interval",
        "10m",
        "--out",
        "run",
    ]));
    assert!(text.contains("not reached in"), "{text}");
    for line in text.lines() {
        assert!(line.chars().count() <= 80, "longer than 80 columns: {line}");
    }
}
