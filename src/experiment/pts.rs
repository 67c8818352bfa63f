//! The SNIA PTS suite (`experiment pts --tests iops,tp,lat`): the chosen tests run in SNIA's
//! order as one resumable experiment. Each test is one or more entries of [`TESTS`], keyed by
//! its `--tests` name: its id, title, what its table shows, its cells and the cells its steady
//! state is tracked on, and the function that lays out its phases. A test of another shape
//! plugs in with one entry.
//!
//! ECW and DIRTH are matrix tests whose cells are thread count × queue depth points
//! ([`PtsOio`], the phase keeping `threads × qd` I/Os outstanding on the suite's engine, named
//! `<id>-rNN-<mix>-tcT-qdQ`): ECW on SNIA's composite workload ([`composite`]: its 12-size
//! block-size split, R/W 40/60, 50 % of the accesses to the first 5 % of the LBAs, 30 % to the
//! next 15 %, 20 % to the last 80 %), DIRTH on 4 KiB random writes; both tracked on their
//! largest point, the PTS-E's TC32/QD32 scaled down to [`ECW_POINTS`] and [`DIRTH_POINTS`].
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
use crate::results::settings::{
    HirSettings, PtsCell, PtsOio, PtsSettings, PtsShows, PtsTestSettings, Settings, WsatSettings,
};
use crate::run::WorkloadSpec;

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
    /// What its cells' workload has beyond the cell (ECW: the composite's split and zones).
    pub workload: fn(&mut WorkloadSpec),
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
            oio: None,
        }],
        qd: None,
        wipc_bs: WIPC_BS,
        workload: plain,
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
            oio: None,
        }],
        qd: None,
        wipc_bs: 1024 * 1024,
        workload: plain,
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
            oio: None,
        }],
        qd: None,
        wipc_bs: 128 * 1024,
        workload: plain,
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
            oio: None,
        }],
        qd: Some(1),
        wipc_bs: WIPC_BS,
        workload: plain,
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
        workload: plain,
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
        workload: plain,
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
        workload: plain,
        phases: xsr_phases,
    },
    PtsTest {
        name: "ecw",
        id: "ecw",
        title: "ECW",
        shows: PtsShows::Points,
        cells: ecw_cells,
        tracked: &[PtsCell {
            read_pct: ECW_READ_PCT,
            bs: 64 * 1024,
            random: true,
            oio: Some(ECW_POINTS[0]),
        }],
        qd: None,
        wipc_bs: WIPC_BS,
        workload: composite,
        phases: matrix_phases,
    },
    PtsTest {
        name: "dirth",
        id: "dirth",
        title: "DIRTH",
        shows: PtsShows::Points,
        cells: dirth_cells,
        tracked: &[PtsCell {
            read_pct: 0,
            bs: 4096,
            random: true,
            oio: Some(DIRTH_POINTS[0]),
        }],
        qd: None,
        wipc_bs: WIPC_BS,
        workload: plain,
        phases: matrix_phases,
    },
];

/// A point of thread count × queue depth.
const fn oio(threads: u32, qd: u32) -> PtsOio {
    PtsOio { threads, qd }
}

/// ECW's points, largest first as the PTS-E sweeps down from TC32/QD32 (scaled: TC 4 and 1 ×
/// QD 16, 4 and 1); the first is tracked.
pub const ECW_POINTS: [PtsOio; 6] = [
    oio(4, 16),
    oio(4, 4),
    oio(4, 1),
    oio(1, 16),
    oio(1, 4),
    oio(1, 1),
];

/// DIRTH's thread × QD matrix, largest first (scaled: TC 4, 2, 1 × QD 16, 4, 1); the first is
/// tracked.
pub const DIRTH_POINTS: [PtsOio; 9] = [
    oio(4, 16),
    oio(4, 4),
    oio(4, 1),
    oio(2, 16),
    oio(2, 4),
    oio(2, 1),
    oio(1, 16),
    oio(1, 4),
    oio(1, 1),
];

/// ECW's read share (R/W 40/60).
const ECW_READ_PCT: u8 = 40;

/// SNIA's composite block-size split (PTS-E ECW): 0.5K 4 %, 1K to 3.5K 1 % each, 4K 67 %, 8K
/// 10 %, 16K 7 %, 32K and 64K 3 % each, as fio's bssplit writes it.
pub const ECW_BSSPLIT: &str =
    "512/4:1024/1:1536/1:2048/1:2560/1:3072/1:3584/1:4096/67:8192/10:16384/7:32768/3:65536/3";

/// SNIA's composite access zones: 50 % of the I/Os to the first 5 % of the LBAs, 30 % to the
/// next 15 %, 20 % to the last 80 %.
pub const ECW_ZONES: &str = "zoned:50/5:30/15:20/80";

/// A cell's workload as the cell gives it.
fn plain(_: &mut WorkloadSpec) {}

/// ECW's workload: the composite split and access zones.
fn composite(w: &mut WorkloadSpec) {
    w.bssplit = Some(ECW_BSSPLIT.parse().expect("SNIA's composite split parses"));
    w.distribution = ECW_ZONES.parse().expect("SNIA's composite zones parse");
}

/// ECW's cells: R/W 40/60 random at every point (the split's largest size as the cell's).
fn ecw_cells() -> Vec<PtsCell> {
    point_cells(ECW_READ_PCT, 64 * 1024, &ECW_POINTS)
}

/// DIRTH's cells: 4 KiB random writes at every point.
fn dirth_cells() -> Vec<PtsCell> {
    point_cells(0, 4096, &DIRTH_POINTS)
}

/// Random cells of one mix and size, one per point.
fn point_cells(read_pct: u8, bs: u64, points: &[PtsOio]) -> Vec<PtsCell> {
    points
        .iter()
        .map(|&p| PtsCell {
            read_pct,
            bs,
            random: true,
            oio: Some(p),
        })
        .collect()
}

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
            oio: None,
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
                oio: None,
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
            // A point's threads are jobs, each with its own queue of the point's depth.
            (w.jobs, w.qd) = cell
                .oio
                .map_or((1, test.qd.unwrap_or(plan.qd)), |p| (p.threads, p.qd));
            (test.workload)(&mut w);
            list.push(Phase {
                name: format!(
                    "{name}-r{round:02}-{}-{}",
                    mix_label(cell.read_pct).replace('/', "-"),
                    cell.oio.map_or_else(|| size_label(cell.bs), PtsOio::label)
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
    let wsat_max = default_duration(WsatSettings::DEFAULT_MAX_DURATION);
    kind_part(
        test,
        plan,
        super::wsat::phases(&setup, capacity, wsat_max, &plan.erase_method),
        super::wsat::settings(&setup, capacity, wsat_max),
    )
}

/// HIR in the suite: `experiment hir`'s phases and settings ([`kind_part`]).
fn hir_phases(test: &PtsTest, setup: &Setup, plan: &Pts, capacity: u64) -> Part {
    let setup = kind_setup(setup, plan);
    let (bursts, max) = (
        HirSettings::DEFAULT_BURSTS,
        default_duration(HirSettings::DEFAULT_MAX_DURATION),
    );
    kind_part(
        test,
        plan,
        super::hir::phases(&setup, capacity, bursts, max, &plan.erase_method),
        super::hir::settings(&setup, bursts, max),
    )
}

/// A kind's default limit, as its CLI option's default writes it.
fn default_duration(text: &str) -> Duration {
    crate::units::parse_duration(text).expect("a kind's default duration parses")
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
        assert_eq!(ecw_cells().len(), 6);
        assert_eq!(dirth_cells().len(), 9);
        let mut w = crate::run::WorkloadSpec::default();
        composite(&mut w);
        let split = w.bssplit.expect("the composite split");
        assert_eq!(split.largest(), 64 * 1024, "the ECW cell's size");
        assert_eq!(split.smallest(), 512);
        for text in [
            WsatSettings::DEFAULT_MAX_DURATION,
            HirSettings::DEFAULT_MAX_DURATION,
        ] {
            assert!(default_duration(text) > Duration::ZERO);
        }
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
        let all: Vec<&str> = chosen(&names(&[
            "dirth", "xsr", "ecw", "hir", "wsat", "lat", "iops",
        ]))
        .unwrap()
        .iter()
        .map(|t| t.id)
        .collect();
        assert_eq!(all, ["iops", "lat", "wsat", "hir", "xsr", "ecw", "dirth"]);
        assert!(chosen(&names(&["iops", "xyz"])).is_err());
        assert!(chosen(&names(&["lat", "iops", "lat"])).is_err());
    }
}
