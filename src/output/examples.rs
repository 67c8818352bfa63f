//! The EXAMPLES section of each man page: a few typical invocations of every command, each with
//! what it does. Tests parse every example with the CLI's own definition, so none can drift.

/// `(command path, [(command line, what it does)])` for every command that has examples.
const EXAMPLES: &[(&str, &[(&str, &str)])] = &[
    (
        "",
        &[
            (
                "ssdfade experiment vertex2",
                "the Vertex 2 story on the simulated drive, in about two minutes",
            ),
            (
                "ssdfade soak /dev/disk/by-id/ata-X --destroy-data /dev/disk/by-id/ata-X",
                "8 hours of 4 KiB random writes at QD 128 on a real drive",
            ),
            ("ssdfade runs results", "every run made so far"),
        ],
    ),
    (
        "measure",
        &[
            (
                "ssdfade measure sim:vertex2-60g --duration 30s",
                "a 30 s spot check of a simulated Vertex 2",
            ),
            (
                "ssdfade measure /dev/sdX --destroy-data /dev/sdX --bs 4k --qd 128 --duration 60s",
                "the seed's workload on a real drive for a minute",
            ),
            (
                "ssdfade measure sim:nvme-tlc-1t --preset cdm",
                "CrystalDiskMark's set of workloads",
            ),
            (
                "ssdfade measure test.img --size 4G --duration 10s",
                "a 4 GiB test file, created for the run",
            ),
        ],
    ),
    (
        "soak",
        &[
            (
                "ssdfade soak /dev/sdX --destroy-data /dev/sdX --duration 8h --interval 10s",
                "eight hours of writes, sampled every 10 s",
            ),
            (
                "ssdfade soak sim:dc-ssd-400g --precondition fast --until-steady",
                "to SNIA steady state, the flash written first",
            ),
            (
                "ssdfade soak sim:vertex2-60g --duration 8h --verify-end --out soak1",
                "every block checked after the soak",
            ),
        ],
    ),
    (
        "selftest",
        &[(
            "ssdfade selftest",
            "how fast this machine makes write data, per core",
        )],
    ),
    (
        "sim list",
        &[("ssdfade sim list", "the presets and the target options")],
    ),
    (
        "sim bench",
        &[("ssdfade sim bench", "how fast the model simulates")],
    ),
    (
        "sim idle",
        &[(
            "ssdfade sim idle 'sim:vertex2-60g,state=v2.sim' 10m",
            "ten minutes of idle time for a kept drive",
        )],
    ),
    (
        "sim power-cut",
        &[(
            "ssdfade sim power-cut 'sim:vertex2-60g,state=v2.sim'",
            "cut a kept drive's power: what it loses",
        )],
    ),
    (
        "sim fit",
        &[(
            "ssdfade sim fit results/20261201T102811Z-sdX -o twin.toml",
            "a twin of a measured soak, loaded as sim:@twin.toml",
        )],
    ),
    (
        "info",
        &[
            (
                "ssdfade info /dev/nvme0n1",
                "identity, cache, erase capabilities and SMART wear (read-only)",
            ),
            ("ssdfade info /dev/sda --json", "the same as JSON"),
        ],
    ),
    (
        "erase",
        &[
            (
                "ssdfade erase /dev/nvme0n1 --method nvme-format --crypto --dry-run",
                "print the exact command bytes, send nothing",
            ),
            (
                "ssdfade erase sim:vertex2-60g --method sim",
                "a secure erase of the simulated drive",
            ),
        ],
    ),
    (
        "slog",
        &[
            (
                "ssdfade slog /dev/sdX --destroy-data /dev/sdX --baseline ram",
                "is it fit to be a ZFS log device, beside a RAM device",
            ),
            (
                "ssdfade slog sim:vertex2-60g --zil-rate 2000/s",
                "hold 2000 sync writes/s open-loop and judge it",
            ),
        ],
    ),
    (
        "plp listen",
        &[(
            "ssdfade plp listen --bind 192.168.1.5 --port 5400",
            "on a second machine, before plp write",
        )],
    ),
    (
        "plp write",
        &[(
            "ssdfade plp write /dev/sdX --destroy-data /dev/sdX --log 192.168.1.5:5400",
            "write records until the power is cut",
        )],
    ),
    (
        "plp verify",
        &[(
            "ssdfade plp verify /dev/sdX --log 192.168.1.5:5400 --token TOKEN",
            "after the power comes back, with the token plp write printed",
        )],
    ),
    (
        "runs",
        &[("ssdfade runs results", "status, target, duration, IOPS")],
    ),
    (
        "plot",
        &[(
            "ssdfade plot results/20261201T072731Z-soak-sdX",
            "the charts again from the saved data",
        )],
    ),
    (
        "report",
        &[(
            "ssdfade report results/20261201T072731Z-soak-sdX",
            "report.md and report.html, printed in 80 columns",
        )],
    ),
    (
        "compare",
        &[(
            "ssdfade compare results/run-a results/run-b --out cmp",
            "headline figures with ratios and an overlay",
        )],
    ),
    (
        "fleet",
        &[(
            "ssdfade fleet hosts/ --out fleet",
            "every run under hosts/: per model the spread, outliers and merged latency",
        )],
    ),
    (
        "experiment vertex2",
        &[
            (
                "ssdfade experiment vertex2 /dev/sdX --destroy-data /dev/sdX",
                "the seed's story on a real drive, about 8.5 h",
            ),
            (
                "ssdfade experiment vertex2 --reference 4300,6000,910,4000",
                "beside another measurement",
            ),
        ],
    ),
    (
        "experiment wsat",
        &[(
            "ssdfade experiment wsat 'sim:vertex2-60g,scale=16'",
            "SNIA write saturation",
        )],
    ),
    (
        "experiment hir",
        &[(
            "ssdfade experiment hir 'sim:vertex2-60g,scale=16' --bursts 1",
            "SNIA host idle recovery",
        )],
    ),
    (
        "experiment slc-cache",
        &[
            (
                "ssdfade experiment slc-cache /dev/sdX --destroy-data /dev/sdX",
                "the sustained write speed once the SLC cache is full, and its refill",
            ),
            (
                "ssdfade experiment slc-cache /dev/sdX --dry-run",
                "its phases and time bound; nothing written",
            ),
        ],
    ),
    (
        "experiment pts",
        &[
            (
                "ssdfade experiment pts /dev/sdX --destroy-data /dev/sdX",
                "the SNIA PTS IOPS, throughput and latency tests and their report",
            ),
            (
                "ssdfade experiment pts 'sim:dc-ssd-400g,capacity=8GB,scale=64' --round 2s",
                "the same suite in minutes on a scaled simulated drive",
            ),
            (
                "ssdfade experiment pts /dev/sdX --tests iops --dry-run",
                "the IOPS test's plan and time bound; nothing written",
            ),
        ],
    ),
    (
        "experiment xsr",
        &[
            (
                "ssdfade experiment xsr /dev/sdX --destroy-data /dev/sdX",
                "SNIA cross-stimulus recovery: how long the drive takes to settle after each change",
            ),
            (
                "ssdfade experiment xsr 'sim:sata-tlc-250g,scale=64' --segment 1h",
                "the same on a scaled simulated drive, in seconds",
            ),
        ],
    ),
    (
        "experiment op-sweep",
        &[(
            "ssdfade experiment op-sweep sim:vertex2-60g --span 100%,90%,80%,75%",
            "how much to leave unpartitioned",
        )],
    ),
    (
        "resume",
        &[(
            "ssdfade resume results/20261201T072731Z-vertex2-sim-vertex2-60g",
            "carry on after a crash, a power cut or Ctrl-C",
        )],
    ),
    (
        "sweep",
        &[(
            "ssdfade sweep sim:vertex2-60g --qd 1,2,4,8,16,32 --point-duration 20s",
            "IOPS and latency against queue depth",
        )],
    ),
    (
        "export",
        &[
            (
                "ssdfade export results/20261201T072731Z-soak-sdX --format csv --out soak.csv",
                "the samples as a spreadsheet table",
            ),
            (
                "ssdfade export results/20261201T072731Z-soak-sdX --hdr-log soak.hlog",
                "every interval's latency histogram as an HdrHistogram log",
            ),
        ],
    ),
    (
        "verify",
        &[(
            "ssdfade verify /dev/sdX --from soak1",
            "read back every block the run wrote",
        )],
    ),
    (
        "completions",
        &[("ssdfade completions bash", "the bash completion script")],
    ),
    (
        "man",
        &[
            ("ssdfade man soak", "this page for soak"),
            ("ssdfade man --out-dir man", "every page, one file each"),
        ],
    ),
];

/// The examples of the command `path` (`["experiment", "vertex2"]`; `[]` for the tool).
pub fn of(path: &[String]) -> &'static [(&'static str, &'static str)] {
    let key = path.join(" ");
    EXAMPLES
        .iter()
        .find(|(name, _)| *name == key)
        .map_or(&[], |(_, examples)| examples)
}

/// Every example of every command, for the tests that parse them.
pub fn all() -> impl Iterator<Item = (&'static str, &'static str)> {
    EXAMPLES.iter().flat_map(|(_, e)| e.iter().copied())
}

/// The EXAMPLES section in roff: each command line in bold, what it does below it.
pub fn roff(examples: &[(&str, &str)]) -> String {
    let escape = |s: &str| s.replace('\\', "\\\\").replace('-', "\\-");
    let mut roff = String::from(".SH EXAMPLES\n");
    for (command, what) in examples {
        roff.push_str(&format!(
            ".TP\n\\fB{}\\fR\n{}\n",
            escape(command),
            escape(what)
        ));
    }
    roff
}
