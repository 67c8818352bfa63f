//! The SNIA PTS suite (`experiment pts --tests iops,tp,lat`): the chosen tests run in SNIA's
//! order as one resumable experiment. Each test is one or more entries of [`TESTS`], keyed by
//! its `--tests` name: its id, title, what its table shows, its cells and the cells its steady
//! state is tracked on, and the function that lays out its phases. A test of another shape
//! plugs in with one entry.
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
    /// Its phases, every name starting `<id>-`.
    pub phases: fn(&PtsTest, &Setup, &Pts, u64) -> Vec<Phase>,
}

/// The tests this build knows, in the order SNIA's report gives them. XSR, ECW and DIRTH, and
/// WSAT and HIR inside the suite, join here with one entry each.
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
pub fn matrix_phases(test: &PtsTest, setup: &Setup, plan: &Pts, capacity: u64) -> Vec<Phase> {
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
    list
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
            "--tests: this build has no PTS test {bad:?}; give some of {} (WSAT and HIR run as `experiment wsat` and `experiment hir`)",
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
    for test in &tests {
        list.extend((test.phases)(test, &setup, &plan, capacity));
    }
    let settings = Settings::Pts(PtsSettings {
        capacity_bytes: capacity,
        round_s: plan.round.as_secs_f64(),
        rounds: plan.rounds,
        tests: tests
            .iter()
            .map(|t| PtsTestSettings {
                name: t.id.into(),
                title: t.title.into(),
                shows: t.shows,
                tracked: t.tracked.to_vec(),
            })
            .collect(),
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
        assert!(chosen(&names(&["iops", "xyz"])).is_err());
        assert!(chosen(&names(&["lat", "iops", "lat"])).is_err());
    }
}
