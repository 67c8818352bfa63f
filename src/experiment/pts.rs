//! The SNIA PTS suite (`experiment pts --tests iops,tp,lat`): the chosen tests run in SNIA's
//! order as one resumable experiment. Each test is one or more entries of [`TESTS`], keyed by
//! its `--tests` name: its id, title, what its table shows, its cells and the cells its steady
//! state is tracked on, and the function that lays out its phases. A test of another shape
//! plugs in with one entry.
//!
//! WSAT, HIR and XSR are tests of the suite as they are kinds of their own ([`kind_part`]): their
//! phase plan and settings are their kind's, each phase named `<name>-…`, and their page is their
//! kind's, read from those phases.
//!
//! The IOPS, throughput and latency tests share one layout ([`matrix_phases`]): `<id>-purge`
//! (the drive purged), `<id>-wipc` (workload-independent preconditioning: sequential writes of
//! twice the capacity, 128 KiB or the throughput test's block size), then rounds
//! `<id>-rNN-<mix>-<size>`, one measure phase per cell, each one round long, up to `--rounds`
//! of them: the runner drops the rounds after a test's first steady window
//! ([`crate::analysis::pts::moot_phases`]), as the PTS stops there. The figures
//! ([`crate::analysis::pts`]) pick the measurement window from the tracked cells' rounds by the
//! SNIA steady-state rule.

use std::time::Duration;

use super::phase::{EraseParams, Phase, PhaseKind};
use super::{run_params, Setup};
use crate::analysis::pts::{mix_label, size_label, NAME};
use crate::results::settings::{PtsCell, PtsSettings, PtsShows, PtsTestSettings, Settings};

/// The PTS's largest number of rounds before a test must report without steady state.
pub const MAX_ROUNDS: u32 = 25;

/// The transfer size of the workload-independent preconditioning (PTS 2.0: 128 KiB sequential).
pub const WIPC_BS: u64 = 128 * 1024;

/// What the user asked for.
#[derive(Clone, Debug)]
pub struct Pts {
    /// The tests' names, any order (they run in [`TESTS`]' order).
    pub tests: Vec<String>,
    /// Length of one cell's run in a round (the PTS: one minute).
    pub round: Duration,
    /// Most rounds a test runs; it stops at its first steady window (the PTS: at most 25).
    pub rounds: u32,
    /// Outstanding I/Os of the IOPS and throughput tests (the latency test: 1).
    pub qd: u32,
    pub erase_method: String,
}

/// One PTS test of the suite (the throughput test: one per block size, each preconditioned
/// and judged on its own, as the PTS does).
pub struct PtsTest {
    /// `--tests` names it so.
    pub name: &'static str,
    /// Its phases' prefix and its name in the figures: the name, or the name and block size.
    pub id: &'static str,
    pub title: &'static str,
    pub shows: PtsShows,
    /// Its matrix, in the order the PTS runs a round.
    pub cells: fn() -> Vec<PtsCell>,
    /// The cells the steady-state rule is applied to.
    pub tracked: &'static [PtsCell],
    /// Outstanding I/Os; None: the suite's `--qd`.
    pub qd: Option<u32>,
    /// Transfer size of its workload-independent preconditioning.
    pub wipc_bs: u64,
    /// Its phases, every name starting `<id>-`, and its kind's settings when it is a kind of
    /// its own.
    pub phases: fn(&PtsTest, &Setup, &Pts, u64) -> Part,
}

/// One test's part of the suite's record.
pub struct Part {
    pub phases: Vec<Phase>,
    /// The settings of the kind the test is (WSAT, HIR, XSR); None for a matrix test.
    pub settings: Option<Settings>,
}

/// WSAT's limit in the suite, as `experiment wsat`'s default (SNIA: 4 × capacity or 24 h).
const WSAT_MAX: Duration = Duration::from_secs(24 * 3600);
/// HIR's bursts per wait state in the suite, as `experiment hir`'s default.
const HIR_BURSTS: u32 = 5;
/// HIR's limit on preconditioning in the suite, as `experiment hir`'s default.
const HIR_MAX: Duration = Duration::from_secs(8 * 3600);
/// XSR's sequential segment in rounds (SNIA: 8 h at 1-minute rounds).
const XSR_SEGMENT_ROUNDS: u32 = 480;

/// The tests this build knows, in the order SNIA's report gives them. ECW and DIRTH join here
/// with one entry each.
pub static TESTS: &[PtsTest] = &[
    PtsTest {
        name: "iops",
        id: "iops",
        title: "IOPS",
        shows: PtsShows::Iops,
        cells: iops_cells,
        tracked: &[PtsCell {
            read_pct: 0,
            bs: 4096,
            random: true,
        }],
        qd: None,
        wipc_bs: WIPC_BS,
        phases: matrix_phases,
    },
    PtsTest {
        name: "tp",
        id: "tp-1024K",
        title: "Throughput 1024K",
        shows: PtsShows::MbPerS,
        cells: tp_1024k_cells,
        tracked: &[PtsCell {
            read_pct: 0,
            bs: 1024 * 1024,
            random: false,
        }],
        qd: None,
        wipc_bs: 1024 * 1024,
        phases: matrix_phases,
    },
    PtsTest {
        name: "tp",
        id: "tp-128K",
        title: "Throughput 128K",
        shows: PtsShows::MbPerS,
        cells: tp_128k_cells,
        tracked: &[PtsCell {
            read_pct: 0,
            bs: 128 * 1024,
            random: false,
        }],
        qd: None,
        wipc_bs: 128 * 1024,
        phases: matrix_phases,
    },
    PtsTest {
        name: "lat",
        id: "lat",
        title: "Latency",
        shows: PtsShows::Latency,
        cells: lat_cells,
        tracked: &[PtsCell {
            read_pct: 0,
            bs: 4096,
            random: true,
        }],
        qd: Some(1),
        wipc_bs: WIPC_BS,
        phases: matrix_phases,
    },
    PtsTest {
        name: "wsat",
        id: "wsat",
        title: "WSAT",
        shows: PtsShows::Own,
        cells: Vec::new,
        tracked: &[],
        qd: None,
        wipc_bs: WIPC_BS,
        phases: wsat_phases,
    },
    PtsTest {
        name: "hir",
        id: "hir",
        title: "HIR",
        shows: PtsShows::Own,
        cells: Vec::new,
        tracked: &[],
        qd: None,
        wipc_bs: WIPC_BS,
        phases: hir_phases,
    },
    PtsTest {
        name: "xsr",
        id: "xsr",
        title: "XSR",
        shows: PtsShows::Own,
        cells: Vec::new,
        tracked: &[],
        qd: None,
        wipc_bs: WIPC_BS,
        phases: xsr_phases,
    },
];

/// The IOPS test's R/W mixes (percent reads), in the PTS's order.
const IOPS_MIXES: [u8; 7] = [100, 95, 65, 50, 35, 5, 0];
/// The IOPS test's transfer sizes, in the PTS's order.
const IOPS_SIZES: [u64; 8] = [
    1024 * 1024,
    128 * 1024,
    64 * 1024,
    32 * 1024,
    16 * 1024,
    8 * 1024,
    4096,
    512,
];

/// Random I/O: every mix at every size, a round going through the sizes of each mix (the
/// PTS's loop: the mix outside, the block size inside), so the 4K 0/100 cell follows the
/// larger writes of its mix as it does in the PTS.
fn iops_cells() -> Vec<PtsCell> {
    random_cells(&IOPS_MIXES, &IOPS_SIZES)
}

/// Sequential reads and writes of `bs`.
fn tp_cells(bs: u64) -> Vec<PtsCell> {
    [100, 0]
        .map(|read_pct| PtsCell {
            read_pct,
            bs,
            random: false,
        })
        .to_vec()
}

/// The 1024 KiB throughput test's cells.
fn tp_1024k_cells() -> Vec<PtsCell> {
    tp_cells(1024 * 1024)
}

/// The 128 KiB throughput test's cells.
fn tp_128k_cells() -> Vec<PtsCell> {
    tp_cells(128 * 1024)
}

/// Random 100/0, 65/35 and 0/100 at 0.5, 4 and 8 KiB, the mix outside as in the PTS.
fn lat_cells() -> Vec<PtsCell> {
    random_cells(&[100, 65, 0], &[512, 4096, 8192])
}

/// Random cells: for each mix, every size.
fn random_cells(mixes: &[u8], sizes: &[u64]) -> Vec<PtsCell> {
    mixes
        .iter()
        .flat_map(|&read_pct| {
            sizes.iter().map(move |&bs| PtsCell {
                read_pct,
                bs,
                random: true,
            })
        })
        .collect()
}

/// Purge, workload-independent preconditioning, then `rounds` rounds of every cell.
pub fn matrix_phases(test: &PtsTest, setup: &Setup, plan: &Pts, capacity: u64) -> Part {
    let name = test.id;
    let mut wipc = setup.workload.clone();
    wipc.bs = test.wipc_bs;
    wipc.read_pct = 0;
    wipc.random_pct = 0;
    let mut list = vec![
        Phase {
            name: format!("{name}-purge"),
            kind: PhaseKind::Erase(EraseParams {
                method: plan.erase_method.clone(),
            }),
        },
        Phase {
            name: format!("{name}-wipc"),
            kind: PhaseKind::Soak(run_params(
                &wipc,
                None,
                Some(capacity.saturating_mul(2)),
                plan.round,
            )),
        },
    ];
    let cells = (test.cells)();
    for round in 1..=plan.rounds {
        for cell in &cells {
            let mut w = setup.workload.clone();
            w.bs = cell.bs;
            w.align = None;
            w.read_pct = cell.read_pct;
            w.random_pct = if cell.random { 100 } else { 0 };
            w.qd = test.qd.unwrap_or(plan.qd);
            list.push(Phase {
                name: format!(
                    "{name}-r{round:02}-{}-{}",
                    mix_label(cell.read_pct).replace('/', "-"),
                    size_label(cell.bs)
                ),
                kind: PhaseKind::Measure(run_params(&w, Some(plan.round), None, plan.round)),
            });
        }
    }
    Part {
        phases: list,
        settings: None,
    }
}

/// WSAT in the suite: `experiment wsat`'s phases and settings ([`kind_part`]).
fn wsat_phases(test: &PtsTest, setup: &Setup, plan: &Pts, capacity: u64) -> Part {
    let setup = kind_setup(setup, plan);
    kind_part(
        test,
        plan,
        super::wsat::phases(&setup, capacity, WSAT_MAX, &plan.erase_method),
        super::wsat::settings(&setup, capacity, WSAT_MAX),
    )
}

/// HIR in the suite: `experiment hir`'s phases and settings ([`kind_part`]).
fn hir_phases(test: &PtsTest, setup: &Setup, plan: &Pts, capacity: u64) -> Part {
    let setup = kind_setup(setup, plan);
    kind_part(
        test,
        plan,
        super::hir::phases(&setup, capacity, HIR_BURSTS, HIR_MAX, &plan.erase_method),
        super::hir::settings(&setup, HIR_BURSTS, HIR_MAX),
    )
}

/// XSR in the suite: `experiment xsr`'s phases and settings ([`kind_part`]), its sequential
/// segments [`XSR_SEGMENT_ROUNDS`] rounds long.
fn xsr_phases(test: &PtsTest, setup: &Setup, plan: &Pts, capacity: u64) -> Part {
    let setup = kind_setup(setup, plan);
    let xsr = super::xsr::Xsr {
        segment: plan.round * XSR_SEGMENT_ROUNDS,
        erase_method: plan.erase_method.clone(),
    };
    kind_part(
        test,
        plan,
        super::xsr::phases(&setup, capacity, &xsr),
        super::xsr::settings(&setup, capacity, &xsr),
    )
}

/// A kind's workload in the suite: SNIA's 4 KiB random writes at the suite's `--qd`.
fn kind_setup(setup: &Setup, plan: &Pts) -> Setup {
    let mut setup = setup.clone();
    setup.workload.qd = plan.qd;
    setup
}

/// A test that is a kind of its own: that kind's `phases`, each named `<id>-…`, and `settings`.
/// A sample interval longer than the suite's round (HIR's 10 s, XSR's 120th of a segment, on a
/// scaled run) is cut to the round: a steady-state round holds whole intervals.
fn kind_part(test: &PtsTest, plan: &Pts, phases: Vec<Phase>, settings: Settings) -> Part {
    let round = plan.round.as_secs_f64();
    Part {
        phases: phases
            .into_iter()
            .map(|mut p| {
                if let PhaseKind::Measure(r) | PhaseKind::Soak(r) = &mut p.kind {
                    r.interval_s = r.interval_s.min(round);
                }
                Phase {
                    name: format!("{}-{}", test.id, p.name),
                    ..p
                }
            })
            .collect(),
        settings: Some(settings),
    }
}

/// The tests of `names` in SNIA's order; an unknown name, or one named twice, is bad input.
pub fn chosen(names: &[String]) -> anyhow::Result<Vec<&'static PtsTest>> {
    let mut known: Vec<&str> = TESTS.iter().map(|t| t.name).collect();
    known.dedup();
    if let Some(twice) = names
        .iter()
        .enumerate()
        .find_map(|(i, n)| names[..i].contains(n).then_some(n))
    {
        crate::bad_input!(
            "--tests names {twice:?} twice: give each test once, such as --tests {}",
            known.join(",")
        );
    }
    if let Some(bad) = names.iter().find(|n| !known.contains(&n.as_str())) {
        crate::bad_input!(
            "--tests: this build has no PTS test {bad:?}; give some of {}",
            known.join(",")
        );
    }
    Ok(TESTS
        .iter()
        .filter(|t| names.iter().any(|n| n == t.name))
        .collect())
}

/// The record of a new PTS experiment on `setup`'s target, every phase pending.
pub fn record(setup: Setup, plan: Pts) -> anyhow::Result<super::ExperimentRecord> {
    let tests = chosen(&plan.tests)?;
    if plan.rounds == 0 || plan.rounds > MAX_ROUNDS {
        crate::bad_input!(
            "--rounds {}: the PTS runs 1 to {MAX_ROUNDS} rounds (5 are needed to judge steady state); give a number in that range",
            plan.rounds
        );
    }
    if plan.qd == 0 || plan.qd > 4096 {
        // Checked here too: a suite of only the latency test (QD 1) never hands it to a phase.
        crate::bad_input!(
            "--qd {} is out of range: use 1 to 4096 outstanding I/Os",
            plan.qd
        );
    }
    let capacity = setup.identity()?.size_bytes.unwrap_or(0);
    let mut list = Vec::new();
    let mut tests_settings = Vec::new();
    for test in &tests {
        let part = (test.phases)(test, &setup, &plan, capacity);
        list.extend(part.phases);
        tests_settings.push(PtsTestSettings {
            name: test.id.into(),
            title: test.title.into(),
            shows: test.shows,
            tracked: test.tracked.to_vec(),
            settings: part.settings.map(Box::new),
        });
    }
    let settings = Settings::Pts(PtsSettings {
        capacity_bytes: capacity,
        round_s: plan.round.as_secs_f64(),
        rounds: plan.rounds,
        tests: tests_settings,
    });
    let notes = vec![format!(
        "at most {} rounds of {} s per cell, each test stopping at its first steady window (the PTS: 1-minute rounds, at most {MAX_ROUNDS})",
        plan.rounds,
        plan.round.as_secs_f64()
    )];
    super::new_record(NAME, &setup, list, settings, notes)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_matrices_are_the_pts_cells() {
        assert_eq!(iops_cells().len(), 56);
        assert_eq!(tp_cells(128 * 1024).len(), 2);
        assert_eq!(lat_cells().len(), 9);
        for t in TESTS {
            let cells = (t.cells)();
            assert!(t.tracked.iter().all(|c| cells.contains(c)), "{}", t.name);
        }
    }

    #[test]
    fn tests_run_in_snia_order_and_unknown_names_are_refused() {
        let names = |v: &[&str]| v.iter().map(|s| s.to_string()).collect::<Vec<_>>();
        let order: Vec<&str> = chosen(&names(&["lat", "iops"]))
            .unwrap()
            .iter()
            .map(|t| t.id)
            .collect();
        assert_eq!(order, ["iops", "lat"]);
        let tp: Vec<&str> = chosen(&names(&["tp"]))
            .unwrap()
            .iter()
            .map(|t| t.id)
            .collect();
        assert_eq!(tp, ["tp-1024K", "tp-128K"], "each block size its own test");
        let all: Vec<&str> = chosen(&names(&["xsr", "hir", "wsat", "lat", "iops"]))
            .unwrap()
            .iter()
            .map(|t| t.id)
            .collect();
        assert_eq!(all, ["iops", "lat", "wsat", "hir", "xsr"]);
        assert!(chosen(&names(&["iops", "xyz"])).is_err());
        assert!(chosen(&names(&["lat", "iops", "lat"])).is_err());
    }
}
