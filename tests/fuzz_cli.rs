//! Fuzz-style test of the command line's parsers: sizes, durations, patterns, sim specs and
//! erase methods get random and extreme strings (seeded; set FUZZ_SEED to replay another seed).
//! Whatever the input, ssdfade must not panic, must exit 0 or 2, and an exit 2 must say why in
//! exactly one line. Nothing real is written: runs go to a 1 MiB file in a temporary directory
//! and stop after 8 KiB, erases are dry runs, sim specs go to `info` (read-only).

mod common;

use std::path::Path;

use rand_chacha::ChaCha8Rng;
use rand_core::{RngCore, SeedableRng};

const EXTREMES: &[&str] = &[
    "",
    " ",
    "0",
    "-0",
    "-1",
    "0.",
    ".",
    "..",
    "1e308",
    "1e30",
    "1e-30",
    "inf",
    "-inf",
    "NaN",
    "18446744073709551615",
    "18446744073709551616",
    "340282366920938463463374607431768211456",
    "99999999999T",
    "99999999999999999999d",
    "0x10",
    "1_000",
    "١٢",
    "１k",
    "µs",
    "1µs",
    "4 k",
    " 4k ",
    "4k\n",
    "\t",
    "'",
    "\"",
    ";",
    "$(touch INJECTED)",
    "`touch INJECTED`",
    "%s%n",
    "{target}",
    "∞",
    "🙂",
    "=",
    ",",
    ":",
    "\\",
];

const UNITS: &[&str] = &[
    "", "b", "B", "k", "K", "KiB", "kiB", "M", "MiB", "G", "GiB", "T", "TiB", "kB", "KB", "MB",
    "GB", "TB", "P", "PiB", "s", "ms", "us", "µs", "ns", "m", "min", "h", "d", "w", "y", "sec",
    "hours", "e", "e9", ".5", "%",
];

struct Fuzz(ChaCha8Rng);

impl Fuzz {
    fn below(&mut self, n: usize) -> usize {
        (self.0.next_u64() % n as u64) as usize
    }

    fn pick<'a>(&mut self, items: &[&'a str]) -> &'a str {
        items[self.below(items.len())]
    }

    fn digits(&mut self, max: usize) -> String {
        let n = self.below(max + 1);
        (0..n)
            .map(|_| char::from(b'0' + self.below(10) as u8))
            .collect()
    }

    /// A number-ish string with a unit, an extreme value, or two of them glued together.
    fn value(&mut self) -> String {
        let one = |f: &mut Fuzz| match f.below(4) {
            0 => f.pick(EXTREMES).to_string(),
            1 => {
                let mut s = f.digits(25);
                if f.below(3) == 0 {
                    s = format!("{s}.{}", f.digits(4));
                }
                if f.below(6) == 0 {
                    s = format!("-{s}");
                }
                format!("{s}{}", f.pick(UNITS))
            }
            _ => format!("{}{}", f.digits(4), f.pick(UNITS)),
        };
        let mut s = one(self);
        if self.below(5) == 0 {
            s.push_str(&one(self));
        }
        if self.below(40) == 0 {
            s = s.repeat(1 + self.below(2000));
        }
        s
    }

    fn pattern(&mut self) -> String {
        match self.below(4) {
            0 => format!("compressible:{}", self.value()),
            1 => format!("dedupe:{}", self.value()),
            2 => self
                .pick(&[
                    "random", "repeat", "zero", "Random", "dedupe", "dedupe:", ":", "zero:5",
                ])
                .to_string(),
            _ => self.value(),
        }
    }

    fn sim_spec(&mut self) -> String {
        let preset = self.pick(&[
            "vertex2-60g",
            "nvme-tlc-1t",
            "dc-ssd-400g",
            "ram-8g",
            "",
            "VERTEX2-60G",
            "vertex2",
        ]);
        // A drive aged for real takes seconds to build: start new, and let the fuzz age it only
        // by values the parser refuses or that stay short.
        let mut spec = format!("sim:{preset},aged=0s");
        for _ in 0..1 + self.below(3) {
            let key = self.pick(&[
                "aged",
                "scale",
                "alpha",
                "cache",
                "compression",
                "throttle",
                "fail_after",
                "fail_at",
                "state",
                "seed",
                "",
                "bogus",
            ]);
            let value = match self.below(3) {
                0 => self
                    .pick(&[
                        "on", "off", "none", "volatile", "plp", "lying", "1.07", "4096",
                    ])
                    .to_string(),
                _ => self.value(),
            };
            let value = tame(key, value);
            let sep = self.pick(&["=", "=", "=", "", "=="]);
            spec = format!("{spec},{key}{sep}{value}");
        }
        spec
    }

    fn method(&mut self) -> String {
        match self.below(3) {
            0 => format!("command:{}", self.value()),
            1 => self
                .pick(&[
                    "trim",
                    "discard",
                    "secure-discard",
                    "zeroout",
                    "nvme-format",
                    "nvme-sanitize",
                    "ata-secure-erase",
                    "punch",
                    "sim",
                    "auto",
                    "command:",
                    "command:''",
                    "command:\"\"",
                    "command:'",
                    "TRIM",
                ])
                .to_string(),
            _ => self.value(),
        }
    }
}

/// Keeps a fuzzed sim option that the parser accepts cheap to simulate: at most a day of aging,
/// no full-size (small-scale) model of a large drive.
fn tame(key: &str, value: String) -> String {
    match key {
        "aged" => match ssdfade::units::parse_duration(&value) {
            Ok(d) if d > std::time::Duration::from_secs(86_400) => "1d".into(),
            _ => value,
        },
        "scale" => match value.trim().parse::<u32>() {
            Ok(n) if n < 64 => "64".into(),
            _ => value,
        },
        _ => value,
    }
}

/// Runs one case and checks the contract; returns the exit status.
fn check(dir: &Path, args: &[String]) -> i32 {
    let out = common::ssdfade(dir)
        .args(args)
        .output()
        .expect("run ssdfade");
    let err = String::from_utf8_lossy(&out.stderr);
    let code = out.status.code().unwrap_or(-1);
    assert!(
        !err.contains("panicked") && code != 101,
        "ssdfade {args:?} panicked:\n{err}"
    );
    assert!(
        code == 0 || code == 2,
        "ssdfade {args:?} exited {code}:\n{err}"
    );
    if code == 2 {
        assert_eq!(
            err.lines().count(),
            1,
            "ssdfade {args:?} did not refuse in one line:\n{err}"
        );
    }
    assert!(
        !dir.join("INJECTED").exists(),
        "ssdfade {args:?} ran an injected command"
    );
    code
}

#[test]
fn parsers_never_panic_and_refuse_in_one_line() {
    let seed = std::env::var("FUZZ_SEED")
        .ok()
        .and_then(|s| s.parse().ok())
        .unwrap_or(0x55d_fade_u64);
    println!("FUZZ_SEED={seed}");
    let mut fuzz = Fuzz(ChaCha8Rng::seed_from_u64(seed));
    let tmp = tempfile::tempdir_in("/var/tmp").unwrap();
    let dir = tmp.path();
    std::fs::write(dir.join("f.img"), vec![0u8; 1 << 20]).unwrap();
    let s = |v: &[&str]| v.iter().map(|a| a.to_string()).collect::<Vec<_>>();
    let run = |i: usize| {
        s(&[
            "measure",
            "f.img",
            "--destroy-data",
            "f.img",
            "--qd",
            "1",
            "--out",
            &format!("run{i}"),
        ])
    };
    let (mut ok, mut refused) = (0, 0);
    let mut tally = |code: i32| {
        if code == 0 {
            ok += 1
        } else {
            refused += 1
        }
    };
    for i in 0..300 {
        let args = match i % 6 {
            // Sizes: transfer size, alignment, span, byte budget.
            0 => {
                let opt = fuzz.pick(&["--bs", "--align", "--span", "--bytes"]);
                let mut a = run(i);
                if opt == "--bytes" {
                    a.extend(s(&["--duration", "200ms", "--interval", "100ms"]));
                } else {
                    a.extend(s(&["--bytes", "8k"]));
                }
                a.extend([opt.to_string(), fuzz.value()]);
                a
            }
            // Durations: run length and sample period (the byte budget ends the run early).
            1 => {
                let mut a = run(i);
                a.extend(s(&["--bytes", "8k"]));
                let opt = fuzz.pick(&["--duration", "--interval"]);
                a.extend([opt.to_string(), fuzz.value()]);
                a
            }
            2 => {
                let mut a = run(i);
                a.extend(s(&["--bytes", "8k", "--pattern"]));
                a.push(fuzz.pattern());
                a
            }
            3 => vec!["info".into(), fuzz.sim_spec(), "--json".into()],
            4 => {
                let mut a = s(&["erase", "f.img", "--destroy-data", "f.img", "--dry-run"]);
                a.extend(["--method".to_string(), fuzz.method()]);
                a
            }
            _ => {
                let mut a = s(&["erase", "f.img", "--destroy-data", "f.img", "--dry-run"]);
                let opt = fuzz.pick(&["--span", "--chunk"]);
                a.extend(["--method".into(), "punch".into(), opt.into(), fuzz.value()]);
                a
            }
        };
        tally(check(dir, &args));
    }
    println!("{ok} accepted, {refused} refused");
    assert!(ok > 20 && refused > 100, "{ok} accepted, {refused} refused");
    assert_eq!(
        std::fs::metadata(dir.join("f.img")).unwrap().len(),
        1 << 20,
        "the test file changed size"
    );
}
