//! `ssdfade fleet` over a generated fleet of simulated drives: the planted outlier is named,
//! the drive copied to a second folder is flagged and counted once, a damaged directory is
//! skipped with its reason, the group's percentiles equal a plain merge of the drives'
//! latency.json histograms, and one figure reads the same in the terminal, JSON, fleet.md and
//! fleet.csv (latencies by the number rule); each group's strips and fade band are written as
//! PNG and SVG with records that name the outlier, and embedded in fleet.md.

use std::collections::BTreeMap;
use std::path::Path;
use std::process::Command;

fn ssdfade(args: &[&str]) -> std::process::Output {
    let out = Command::new(env!("CARGO_BIN_EXE_ssdfade"))
        .args(args)
        .output()
        .unwrap();
    assert!(
        out.status.success(),
        "{args:?}: {}",
        String::from_utf8_lossy(&out.stderr)
    );
    out
}

/// A short soak of a simulated Vertex 2 with its own serial and aging seed (long enough that
/// every drive has passed its cliff, so the normal drives agree).
fn soak(dir: &Path, serial: &str, options: &str, seed: u32) {
    let target = format!("sim:vertex2-60g,scale=16,serial={serial},seed={seed}{options}");
    let out = dir.join(serial);
    ssdfade(&[
        "soak",
        &target,
        "--duration",
        "10m",
        "--interval",
        "1m",
        "--seed",
        "1",
        "--out",
        out.to_str().unwrap(),
    ]);
}

/// The percentile `q` of summed `[top, count]` buckets, read as latency.json's reader reads it.
fn quantile_us(buckets: &BTreeMap<u64, u64>, max_ns: u64, q: f64) -> f64 {
    let count: u64 = buckets.values().sum();
    let rank = ((q * count as f64).ceil() as u64).max(1);
    let mut seen = 0;
    for (&top, &n) in buckets {
        seen += n;
        if seen >= rank {
            return top.min(max_ns) as f64 / 1000.0;
        }
    }
    max_ns as f64 / 1000.0
}

#[test]
fn a_generated_fleet_names_its_outlier_flags_its_duplicate_and_agrees_in_every_format() {
    let tmp = tempfile::tempdir().unwrap();
    let hosts = tmp.path().join("hosts");
    let a = hosts.join("host-a");
    std::fs::create_dir_all(&a).unwrap();
    for (i, serial) in ["VTX-01", "VTX-02", "VTX-03", "VTX-04"].iter().enumerate() {
        soak(&a, serial, "", i as u32 + 1);
    }
    // The planted outlier: far less spare area, so far more write amplification.
    soak(&a, "VTX-BAD", ",alpha=1.03", 9);
    let b = hosts.join("host-b");
    std::fs::create_dir_all(b.join("damaged")).unwrap();
    std::fs::write(b.join("damaged/run.json"), "{").unwrap();
    let copy = Command::new("cp")
        .args([
            "-r",
            a.join("VTX-02").to_str().unwrap(),
            b.to_str().unwrap(),
        ])
        .status()
        .unwrap();
    assert!(copy.success());

    let out = tmp.path().join("out");
    std::fs::create_dir(&out).unwrap();
    let hosts_arg = hosts.to_str().unwrap();
    let out_arg = out.to_str().unwrap();
    let json = ssdfade(&["fleet", hosts_arg, "--out", out_arg, "--json"]);
    let fleet: serde_json::Value = serde_json::from_slice(&json.stdout).unwrap();
    let terminal =
        String::from_utf8(ssdfade(&["fleet", hosts_arg, "--out", out_arg]).stdout).unwrap();
    let md = std::fs::read_to_string(out.join("fleet.md")).unwrap();
    let csv = std::fs::read_to_string(out.join("fleet.csv")).unwrap();

    let groups = fleet["groups"].as_array().unwrap();
    assert_eq!(groups.len(), 1, "{fleet:#}");
    let group = &groups[0];
    let drives = group["drives"].as_array().unwrap();
    let serials: Vec<&str> = drives
        .iter()
        .map(|d| d["serial"].as_str().unwrap())
        .collect();
    assert_eq!(serials, ["VTX-01", "VTX-02", "VTX-03", "VTX-04", "VTX-BAD"]);

    // The outlier: named for write amplification and IOPS, and nobody else named.
    let bad = serials.iter().position(|s| *s == "VTX-BAD").unwrap();
    let spreads = group["spreads"].as_array().unwrap();
    let outliers_of = |key: &str| -> Vec<u64> {
        let s = spreads.iter().find(|s| s["metric"] == key).unwrap();
        s["outliers"]
            .as_array()
            .unwrap()
            .iter()
            .map(|v| v.as_u64().unwrap())
            .collect()
    };
    assert_eq!(outliers_of("wa"), [bad as u64]);
    assert_eq!(outliers_of("fresh_iops"), [bad as u64]);
    for s in spreads {
        for o in s["outliers"].as_array().unwrap() {
            assert_eq!(o.as_u64(), Some(bad as u64), "{s}");
        }
    }
    for text in [&terminal, &md] {
        assert!(text.contains("| VTX-BAD"), "{text}");
        assert!(text.contains(&a.join("VTX-BAD").display().to_string()));
    }
    assert!(csv
        .lines()
        .any(|l| l.contains(",VTX-BAD,") && l.ends_with("wa") || l.contains(";wa")));

    // The duplicate: flagged, counted once, from the first directory in path order.
    let dups = fleet["duplicates"].as_array().unwrap();
    assert_eq!(dups.len(), 1);
    assert_eq!(dups[0]["serial"], "VTX-02");
    assert_eq!(
        dups[0]["seen_again"].as_str().unwrap(),
        b.join("VTX-02").to_str().unwrap()
    );
    assert!(terminal.contains("Drives seen twice"));
    // The damaged directory: skipped with its reason.
    let skipped = fleet["skipped"].as_array().unwrap();
    assert_eq!(skipped.len(), 1);
    assert!(skipped[0]["reason"].as_str().unwrap().contains("damaged"));

    // Merged percentiles: a plain merge of the kept drives' raw histograms.
    let mut buckets: BTreeMap<u64, u64> = BTreeMap::new();
    let mut max_ns = 0;
    for d in drives {
        let text =
            std::fs::read_to_string(Path::new(d["dir"].as_str().unwrap()).join("latency.json"))
                .unwrap();
        let rec: serde_json::Value = serde_json::from_str(&text).unwrap();
        max_ns = max_ns.max(rec["all"]["max_ns"].as_u64().unwrap());
        for b in rec["all"]["buckets"].as_array().unwrap() {
            *buckets.entry(b[0].as_u64().unwrap()).or_default() += b[1].as_u64().unwrap();
        }
    }
    let merged = group["merged_percentiles"].as_array().unwrap();
    for (name, q) in [("p50", 0.5), ("p90", 0.9), ("p99", 0.99), ("p99.9", 0.999)] {
        let got = merged.iter().find(|p| p[0] == name).unwrap()[1]
            .as_f64()
            .unwrap();
        assert!(
            (got - quantile_us(&buckets, max_ns, q)).abs() < 1e-6,
            "{name}: {got}"
        );
        let shown = ssdfade::units::format_latency_us(got);
        assert!(terminal.contains(&shown) && md.contains(&shown), "{shown}");
    }
    assert_eq!(group["merged_ios"].as_u64(), Some(buckets.values().sum()));

    // One figure in every format: the group's median fresh IOPS.
    let fresh = spreads
        .iter()
        .find(|s| s["metric"] == "fresh_iops")
        .unwrap();
    let shown = format!("{:.0}", fresh["median"].as_f64().unwrap());
    let row = |text: &str| {
        text.lines()
            .find(|l| l.starts_with("| fresh IOPS"))
            .unwrap()
            .split('|')
            .nth(2)
            .unwrap()
            .trim()
            .to_string()
    };
    assert_eq!(row(&terminal), shown);
    assert_eq!(row(&md), shown);
    let mut reader = csv_rows(&csv);
    let head = reader.remove(0);
    let col = head.iter().position(|h| h == "fresh_iops").unwrap();
    let median = reader.iter().find(|r| r[0] == "median").unwrap();
    assert_eq!(median[col], shown);

    // One latency in every format: the group's median p99, shown with its unit, in CSV in µs
    // rounded the same.
    let p99 = spreads.iter().find(|s| s["metric"] == "p99_us").unwrap()["median"]
        .as_f64()
        .unwrap();
    let shown = ssdfade::units::format_latency_us(p99);
    let p99_row = |text: &str| {
        text.lines()
            .find(|l| l.starts_with("| p99 "))
            .unwrap()
            .split('|')
            .nth(2)
            .unwrap()
            .trim()
            .to_string()
    };
    assert_eq!(p99_row(&terminal), shown);
    assert_eq!(p99_row(&md), shown);
    let col = head.iter().position(|h| h == "p99_us").unwrap();
    let csv_us: f64 = median[col].parse().unwrap();
    assert_eq!(ssdfade::units::format_latency_us(csv_us), shown);

    // The charts: the strips name the outlier in each figure it is out of, the band draws its
    // curve over the median, and both are in the report.
    for stem in ["fleet-1-strips", "fleet-1-band"] {
        for ext in ["png", "svg", "chart.json"] {
            assert!(out.join(format!("{stem}.{ext}")).is_file(), "{stem}.{ext}");
        }
        assert!(md.contains(&format!("]({stem}.png)")), "{md}");
    }
    let strips: serde_json::Value = serde_json::from_str(
        &std::fs::read_to_string(out.join("fleet-1-strips.chart.json")).unwrap(),
    )
    .unwrap();
    let named: Vec<&str> = strips["panels"]
        .as_array()
        .unwrap()
        .iter()
        .flat_map(|p| p["marks"].as_array().unwrap())
        .map(|m| m["name"].as_str().unwrap())
        .collect();
    assert!(
        !named.is_empty() && named.iter().all(|n| n.starts_with("VTX-BAD (")),
        "{named:?}"
    );
    let band: serde_json::Value = serde_json::from_str(
        &std::fs::read_to_string(out.join("fleet-1-band.chart.json")).unwrap(),
    )
    .unwrap();
    let series: Vec<&str> = band["panels"][0]["series"]
        .as_array()
        .unwrap()
        .iter()
        .map(|s| s["name"].as_str().unwrap())
        .collect();
    assert!(
        series.contains(&"p10–p90 over the drives (lowest)"),
        "{series:?}"
    );
    assert!(
        series.iter().any(|s| s.starts_with("median of 5 drives")),
        "{series:?}"
    );
    assert!(
        series.iter().any(|s| s.starts_with("outlier VTX-BAD")),
        "{series:?}"
    );
}

/// CSV cells, split on commas outside double quotes.
fn csv_rows(text: &str) -> Vec<Vec<String>> {
    text.lines()
        .map(|line| {
            let mut cells = vec![String::new()];
            let mut quoted = false;
            for c in line.chars() {
                match c {
                    '"' => quoted = !quoted,
                    ',' if !quoted => cells.push(String::new()),
                    c => cells.last_mut().unwrap().push(c),
                }
            }
            cells
        })
        .collect()
}

/// Slog runs and an experiment in one fleet: each group with slog runs has its verdict tally
/// and the reasons that kept a drive from suitable (here a simulated Vertex 2's sync-write
/// latency), and the experiment's drive has its recovered figure (recovered as % of fresh, as
/// the experiment measured them) in the group table, JSON and CSV.
#[test]
fn slog_runs_give_a_verdict_per_group_and_an_experiment_its_recovered_figure() {
    let tmp = tempfile::tempdir().unwrap();
    let fleet_dir = tmp.path().join("fleet");
    let dir = |name: &str| fleet_dir.join(name).to_str().unwrap().to_string();
    for (serial, target) in [
        ("SL-1", "sim:dc-ssd-400g,serial=SL-1,seed=1"),
        ("SL-2", "sim:dc-ssd-400g,serial=SL-2,seed=2"),
        ("SL-V", "sim:vertex2-60g,scale=16,serial=SL-V"),
    ] {
        ssdfade(&[
            "slog",
            target,
            "--max-size",
            "8k",
            "--sustain",
            "3s",
            "--seed",
            "3",
            "--out",
            &dir(serial),
        ]);
    }
    ssdfade(&[
        "experiment",
        "vertex2",
        "sim:vertex2-60g,scale=16,serial=EXP-1",
        "--seed",
        "910",
        "--out",
        &dir("EXP-1"),
    ]);
    let out = tmp.path().join("out");
    std::fs::create_dir(&out).unwrap();
    let args = [
        "fleet",
        fleet_dir.to_str().unwrap(),
        "--out",
        out.to_str().unwrap(),
    ];
    let json = ssdfade(&[&args[..], &["--json"]].concat());
    let fleet: serde_json::Value = serde_json::from_slice(&json.stdout).unwrap();
    let terminal = String::from_utf8(ssdfade(&args).stdout).unwrap();
    let csv = csv_rows(&std::fs::read_to_string(out.join("fleet.csv")).unwrap());

    let group = |model: &str| {
        fleet["groups"]
            .as_array()
            .unwrap()
            .iter()
            .find(|g| g["model"].as_str().unwrap().contains(model))
            .unwrap()
            .clone()
    };
    let dc = group("DC SSD");
    assert_eq!(dc["slog"]["runs"], 2);
    assert_eq!(dc["slog"]["suitable"], 2);
    let v2 = group("Vertex 2");
    let slog_v = v2["drives"]
        .as_array()
        .unwrap()
        .iter()
        .find(|d| d["serial"] == "SL-V")
        .unwrap();
    let rating = slog_v["slog"]["rating"].as_str().unwrap();
    assert_ne!(rating, "suitable");
    let record: serde_json::Value =
        serde_json::from_str(&std::fs::read_to_string(fleet_dir.join("SL-V/slog.json")).unwrap())
            .unwrap();
    assert_eq!(record["verdict"]["rating"].as_str().unwrap(), rating);
    assert_eq!(v2["slog"]["runs"], 1);
    let topics = v2["slog"]["why_not"].as_array().unwrap();
    assert!(!topics.is_empty());
    for t in topics {
        let topic = t[0].as_str().unwrap();
        assert!(record["verdict"]["reasons"]
            .as_array()
            .unwrap()
            .iter()
            .any(|r| r["topic"] == topic && r["rating"] != "suitable"));
    }
    assert!(
        terminal.contains(&format!(
            "SLOG verdict: 0 of 1 slog run suitable, {}",
            if rating == "marginal" {
                "1 marginal, 0 unsuitable"
            } else {
                "0 marginal, 1 unsuitable"
            }
        )),
        "{terminal}"
    );
    assert!(
        terminal.contains("SLOG verdict: 2 of 2 slog runs suitable"),
        "{terminal}"
    );

    // The recovered figure: a loss the erase did not undo, the same in every format.
    let exp = v2["drives"]
        .as_array()
        .unwrap()
        .iter()
        .find(|d| d["serial"] == "EXP-1")
        .unwrap();
    let recovered = exp["figures"]["recovered_pct"].as_f64().unwrap();
    assert!(recovered > 0.0 && recovered < 100.0, "{recovered}");
    let shown = ssdfade::units::format_count(recovered);
    assert!(
        terminal
            .lines()
            .any(|l| l.starts_with("| recovered % of fresh") && l.contains(&format!(" {shown} "))),
        "{terminal}"
    );
    let col = csv[0].iter().position(|h| h == "recovered_pct").unwrap();
    let row = csv
        .iter()
        .find(|r| r.get(3).is_some_and(|s| s == "EXP-1"))
        .unwrap();
    assert_eq!(row[col], shown);
    let slog_col = csv[0].iter().position(|h| h == "slog").unwrap();
    let row = csv
        .iter()
        .find(|r| r.get(3).is_some_and(|s| s == "SL-V"))
        .unwrap();
    assert_eq!(row[slog_col], rating);
}

/// Text with every run of whitespace made one space (the terminal wraps its paragraphs).
fn flat(text: &str) -> String {
    text.split_whitespace().collect::<Vec<_>>().join(" ")
}

/// A file soak in `dir/name` of `interval` intervals, `duration` long (killed when None: it is
/// stopped with SIGKILL once its run.json is written, long before its first 60 s interval ends).
fn file_soak(dir: &Path, name: &str, duration: Option<&str>) {
    let out = dir.join(name);
    let img = dir.join(format!("{name}.img"));
    let mut cmd = Command::new(env!("CARGO_BIN_EXE_ssdfade"));
    cmd.args(["soak", img.to_str().unwrap(), "--size", "32M", "--qd", "2"])
        .args(["--out", out.to_str().unwrap()])
        .stdout(std::process::Stdio::null())
        .stderr(std::process::Stdio::null());
    match duration {
        Some(d) => {
            cmd.args(["--interval", "1s", "--duration", d]);
            assert!(cmd.status().unwrap().success(), "{name}");
        }
        None => {
            cmd.args(["--interval", "60s", "--duration", "10m"]);
            let mut child = cmd.spawn().unwrap();
            let started = std::time::Instant::now();
            while !out.join("run.json").is_file() {
                assert!(started.elapsed().as_secs() < 60, "{name}: no run.json");
                std::thread::sleep(std::time::Duration::from_millis(50));
            }
            child.kill().unwrap();
            child.wait().unwrap();
            let samples = std::fs::read_to_string(out.join("samples.jsonl")).unwrap_or_default();
            assert_eq!(samples.lines().count(), 0, "{name}: an interval finished");
        }
    }
    std::fs::remove_file(img).unwrap();
}

/// A fleet whose manifest (as the playbook writes it) expects four hosts: one completed, one
/// failed mid-run (a finished drive and a soak killed before its first interval), one down and
/// one that sent nothing. The killed soak is listed apart with its path and host and counted in
/// no group; a drive without identity that has figures is grouped as `unidentified`; each
/// host's sentence and the incomplete run read the same in the terminal, JSON, fleet.md,
/// fleet.html and fleet.csv, and the counted drives are exactly those with figures.
#[test]
fn missing_and_failed_hosts_and_a_killed_run_are_named_in_every_format_and_not_counted() {
    let tmp = tempfile::tempdir().unwrap();
    let fleet_dir = tmp.path().join("fleet");
    let (a, b) = (fleet_dir.join("north-a"), fleet_dir.join("north-b"));
    std::fs::create_dir_all(&a).unwrap();
    std::fs::create_dir_all(&b).unwrap();
    soak(&a, "QX-1", "", 1);
    soak(&a, "QX-2", "", 2);
    file_soak(&a, "plain", Some("3s"));
    soak(&b, "QX-3", "", 3);
    file_soak(&b, "killed", None);
    std::fs::write(
        fleet_dir.join("fleet-hosts.json"),
        r#"{"hosts": {"north-a": "completed", "north-b": "failed", "north-c": "down", "north-d": "completed"}}"#,
    )
    .unwrap();

    let out = tmp.path().join("out");
    let (fleet_arg, out_arg) = (fleet_dir.to_str().unwrap(), out.to_str().unwrap());
    let json = ssdfade(&["fleet", fleet_arg, "--out", out_arg, "--json"]);
    let fleet: serde_json::Value = serde_json::from_slice(&json.stdout).unwrap();
    let terminal =
        String::from_utf8(ssdfade(&["fleet", fleet_arg, "--out", out_arg]).stdout).unwrap();
    let md = std::fs::read_to_string(out.join("fleet.md")).unwrap();
    let html = std::fs::read_to_string(out.join("fleet.html")).unwrap();
    let csv = csv_rows(&std::fs::read_to_string(out.join("fleet.csv")).unwrap());
    let note_col = csv[0].iter().position(|h| h == "note").unwrap();
    let host_col = csv[0].iter().position(|h| h == "host").unwrap();
    let dir_col = csv[0].iter().position(|h| h == "dir").unwrap();

    // The hosts: each as the manifest and the folders found say, in every format.
    let want = [
        ("north-a", 3, false, None),
        (
            "north-b",
            2,
            false,
            Some("north-b failed mid-run: its runs are counted as far as they went"),
        ),
        ("north-c", 0, true, Some("missing: north-c (down)")),
        ("north-d", 0, true, Some("missing: north-d (sent no runs)")),
    ];
    let hosts = fleet["hosts"].as_array().unwrap();
    assert_eq!(hosts.len(), want.len(), "{fleet:#}");
    for (h, (name, runs, missing, note)) in hosts.iter().zip(want) {
        assert_eq!(h["host"], name);
        assert_eq!(h["runs"].as_u64(), Some(runs), "{h}");
        assert_eq!(h["missing"].as_bool(), Some(missing), "{h}");
        assert_eq!(h["note"].as_str(), note, "{h}");
        let Some(note) = note else {
            assert!(!csv.iter().any(|r| r[0] == "host" && r[host_col] == name));
            continue;
        };
        for (format, text) in [
            ("terminal", &terminal),
            ("fleet.md", &md),
            ("fleet.html", &html),
        ] {
            assert!(
                flat(text).contains(note),
                "{format} lacks {note:?}:\n{text}"
            );
        }
        let row = csv
            .iter()
            .find(|r| r[0] == "host" && r[host_col] == name)
            .unwrap();
        assert_eq!(row[note_col], note);
    }
    let summary = "Hosts: 4 expected, 2 sent runs (1 of them failed mid-run), 2 missing.";
    for text in [&terminal, &md, &html] {
        assert!(flat(text).contains(summary), "{text}");
    }

    // The killed run: apart, with its path and the host that recorded it, in no group.
    let killed = b.join("killed");
    let recorded_by: serde_json::Value =
        serde_json::from_str(&std::fs::read_to_string(killed.join("run.json")).unwrap()).unwrap();
    let host = recorded_by["process"]["host"].as_str().unwrap();
    let incomplete = fleet["incomplete"].as_array().unwrap();
    assert_eq!(incomplete.len(), 1, "{fleet:#}");
    assert_eq!(incomplete[0]["path"].as_str(), killed.to_str());
    assert_eq!(incomplete[0]["host"].as_str(), Some(host));
    let why = "incomplete: no interval finished";
    assert_eq!(incomplete[0]["why"].as_str(), Some(why));
    for (format, text) in [("fleet.md", &md), ("fleet.html", &html)] {
        let line = text
            .lines()
            .find(|l| l.contains(killed.to_str().unwrap()))
            .unwrap_or_else(|| panic!("{format} does not name {}", killed.display()));
        assert!(
            line.contains(host) && line.contains(why),
            "{format}: {line}"
        );
    }
    // The terminal splits a table wider than 80 columns into tables that each repeat the first.
    for what in [killed.to_str().unwrap(), host, why] {
        assert!(
            terminal.contains(what),
            "the terminal lacks {what:?}:\n{terminal}"
        );
    }
    let row = csv.iter().find(|r| r[0] == "incomplete").unwrap();
    assert_eq!(
        (
            row[dir_col].as_str(),
            row[host_col].as_str(),
            row[note_col].as_str()
        ),
        (killed.to_str().unwrap(), host, why)
    );

    // Counted: exactly the runs with figures; the file soak without identity as `unidentified`.
    let groups = fleet["groups"].as_array().unwrap();
    let mut counted: Vec<&str> = groups
        .iter()
        .flat_map(|g| g["drives"].as_array().unwrap())
        .map(|d| d["dir"].as_str().unwrap())
        .collect();
    counted.sort_unstable();
    let want: Vec<String> = [
        a.join("QX-1"),
        a.join("QX-2"),
        a.join("plain"),
        b.join("QX-3"),
    ]
    .iter()
    .map(|p| p.display().to_string())
    .collect();
    assert_eq!(counted, want);
    let unidentified = groups
        .iter()
        .find(|g| g["model"] == "unidentified")
        .unwrap();
    let drives = unidentified["drives"].as_array().unwrap();
    assert_eq!(drives.len(), 1);
    assert!(drives[0]["figures"]["fresh_iops"].as_f64().unwrap() > 0.0);
    let drive_rows = csv.iter().filter(|r| r[0] == "drive").count();
    assert_eq!(drive_rows, 4);
    assert!(
        flat(&terminal).contains("4 drives in 2 groups"),
        "{terminal}"
    );
    assert!(
        flat(&terminal).contains("1 incomplete run not counted"),
        "{terminal}"
    );
}
