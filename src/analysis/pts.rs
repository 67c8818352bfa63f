//! The figures of a SNIA PTS suite (`experiment pts`): per test, the rounds of its tracked cells
//! (the 4 KiB random-write cell of the IOPS test, a block size's sequential write of the
//! throughput test…), the measurement window the SNIA steady-state rule picks (the first five
//! rounds in which every tracked cell has a range ≤ 20 % and a slope excursion ≤ 10 % of its
//! average; the last five rounds, marked not steady, when none has), and every cell's figures
//! over that window: IOPS and MB/s averaged over its rounds, the latency's ops-weighted average,
//! its maximum and its 99.999th percentile from the rounds' histograms merged. The terminal
//! table, `--json` and the report show these.
//!
//! A test that is a kind of its own (WSAT, HIR, XSR) has that kind's figures, computed by that
//! kind on its phases ([`SuiteFigures`]).

use serde::Serialize;

use super::latency::{Bin, Distribution};
use super::run::Figures;
use super::summary::KindFigures;
use crate::results::settings::{PtsCell, PtsOio, PtsShows, PtsTestSettings, Settings};
use crate::results::{Experiment, ExperimentRecord, LoadedPhase, Phase, PhaseKind, Status};
use crate::stats::steady::Criteria;

/// The kind experiment.json records.
pub const NAME: &str = "pts";

/// The five-nines latency the latency test reports.
pub const FIVE_NINES: f64 = 0.99999;

/// One cell's figures over the measurement window.
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct CellFigures {
    #[serde(flatten)]
    pub cell: PtsCell,
    /// Rounds of the window this cell ran in.
    pub rounds: usize,
    pub iops: f64,
    pub mb_per_s: f64,
    pub avg_lat_us: f64,
    pub max_lat_us: f64,
    /// The 99.999th percentile of the window's I/Os; None when a round saved no histogram.
    pub p99999_lat_us: Option<f64>,
}

/// A tracked cell: its IOPS per round and how its measurement window judges.
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct Tracked {
    #[serde(flatten)]
    pub cell: PtsCell,
    pub round_iops: Vec<f64>,
    /// The window's average IOPS, range and slope excursion (percent of the average).
    pub avg: f64,
    pub range_pct: f64,
    pub slope_pct: f64,
}

/// One test's figures.
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct TestFigures {
    pub name: String,
    pub title: String,
    pub shows: PtsShows,
    /// Outstanding I/Os of its cells.
    pub qd: u32,
    /// Full rounds done (every cell of the round completed).
    pub rounds: usize,
    /// The measurement window: its first and last round, 1-based; None before any round.
    pub window: Option<(usize, usize)>,
    /// True when the window meets the SNIA rule on every tracked cell.
    pub steady: bool,
    pub tracked: Vec<Tracked>,
    /// Every cell over the window, in the plan's order.
    pub cells: Vec<CellFigures>,
    /// A test of outstanding-I/O points (ECW, DIRTH): its demand-intensity figures.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub demand: Option<Demand>,
}

/// The average response time at or under which a point may be the operating point, µs (DIRTH:
/// the highest IOPS whose average response time stays under a bound; 5 ms here).
pub const OPERATING_ART_US: f64 = 5000.0;

/// A points test's demand intensity: IOPS against average response time over its points (the
/// cells, in the plan's order), the point of most IOPS and the operating point (the most IOPS
/// with an average response time at most [`OPERATING_ART_US`]; None when no point is that
/// fast), and the response-time histogram of each over the window.
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct Demand {
    pub operating_art_us: f64,
    pub max_iops: DemandPoint,
    pub operating: Option<DemandPoint>,
}

/// One chosen point: its place in the cells, its point and its histogram (percent of the I/Os
/// per bin, bins of a tenth of a decade, empty when no round saved one).
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct DemandPoint {
    pub cell: usize,
    pub oio: PtsOio,
    pub iops: f64,
    pub avg_lat_us: f64,
    pub histogram: Vec<Bin>,
}

/// The suite's figures, one entry per test in SNIA's order, and its settings.
#[derive(Clone, Debug, Default, PartialEq, Serialize)]
pub struct PtsFigures {
    /// Length of one cell's run in a round, seconds.
    pub round_s: f64,
    /// Rounds each test was given.
    pub rounds_planned: u32,
    pub tests: Vec<TestFigures>,
}

impl PtsFigures {
    /// The figures of `exp`'s tests, from the settings that name them and their phases.
    pub fn of(exp: &Experiment) -> PtsFigures {
        match &exp.record.settings {
            Settings::Pts(s) => PtsFigures {
                round_s: s.round_s,
                rounds_planned: s.rounds,
                tests: s
                    .tests
                    .iter()
                    .filter(|t| t.settings.is_none())
                    .map(|t| TestFigures::of(exp, t))
                    .collect(),
            },
            _ => PtsFigures::default(),
        }
    }

    /// The test named `name`.
    pub fn test(&self, name: &str) -> Option<&TestFigures> {
        self.tests.iter().find(|t| t.name == name)
    }
}

/// A test of the suite that is a kind of its own (WSAT, HIR, XSR): its kind's figures.
#[derive(Clone, Debug, Serialize)]
pub struct KindTest {
    pub name: String,
    pub title: String,
    /// The kind's figures, as `experiment <name> --json` gives them beside its summary.
    pub figures: KindFigures,
}

/// One test of the suite, in SNIA's order: a matrix (IOPS, throughput, latency) or a kind.
#[derive(Clone, Debug, Serialize)]
#[serde(untagged)]
pub enum SuiteTest {
    Matrix(TestFigures),
    Kind(KindTest),
}

/// The suite's figures: its settings and every test's, in SNIA's order.
#[derive(Clone, Debug, Default, Serialize)]
pub struct SuiteFigures {
    pub round_s: f64,
    pub rounds_planned: u32,
    pub tests: Vec<SuiteTest>,
}

impl SuiteFigures {
    /// The figures of `exp`'s tests; a kind's by `kind_figures` (the kind's own protocol), on
    /// its phases read as an experiment of that kind ([`Experiment::part`]).
    pub fn of(exp: &Experiment, kind_figures: fn(&Experiment) -> KindFigures) -> SuiteFigures {
        let Settings::Pts(s) = &exp.record.settings else {
            return SuiteFigures::default();
        };
        let matrices = PtsFigures::of(exp);
        let tests = s
            .tests
            .iter()
            .filter_map(|t| match &t.settings {
                Some(_) => Some(SuiteTest::Kind(KindTest {
                    name: t.name.clone(),
                    title: t.title.clone(),
                    figures: kind_part(exp, &t.name)
                        .map_or_else(KindFigures::none, |part| kind_figures(&part)),
                })),
                None => matrices.test(&t.name).cloned().map(SuiteTest::Matrix),
            })
            .collect();
        SuiteFigures {
            round_s: matrices.round_s,
            rounds_planned: matrices.rounds_planned,
            tests,
        }
    }
}

/// The phases of the suite's test `name` that is a kind of its own (WSAT, HIR, XSR), read as an
/// experiment of that kind with its settings; None for a matrix test or no such test.
pub fn kind_part(exp: &Experiment, name: &str) -> Option<Experiment> {
    let Settings::Pts(s) = &exp.record.settings else {
        return None;
    };
    let settings = s
        .tests
        .iter()
        .find(|t| t.name == name)?
        .settings
        .as_deref()?;
    Some(exp.part(name, name, settings.clone()))
}

/// One completed round of one cell: its round number and run figures.
struct CellRound<'a> {
    round: usize,
    cell: PtsCell,
    phase: &'a LoadedPhase,
    figures: Figures,
}

/// The round a phase named `<test>-rNN-…` belongs to.
fn round_of(name: &str, test: &str) -> Option<usize> {
    let rest = name.strip_prefix(test)?.strip_prefix("-r")?;
    let digits: String = rest.chars().take_while(char::is_ascii_digit).collect();
    digits.parse().ok()
}

/// A run phase's cell, as its workload gives it (its point, as its name ends).
fn cell_of(phase: &Phase) -> Option<PtsCell> {
    match &phase.kind {
        PhaseKind::Measure(p) => Some(PtsCell {
            read_pct: p.workload.read_pct,
            bs: p.workload.bs,
            random: p.workload.random_pct > 0,
            oio: PtsOio::of_name(&phase.name),
        }),
        _ => None,
    }
}

impl TestFigures {
    fn of(exp: &Experiment, plan: &PtsTestSettings) -> TestFigures {
        let mut order: Vec<PtsCell> = Vec::new();
        let mut done: Vec<CellRound> = Vec::new();
        let mut planned_rounds = 0;
        let mut qd = 0;
        for phase in &exp.phases {
            let (Some(round), Some(cell)) = (
                round_of(&phase.record.phase.name, &plan.name),
                cell_of(&phase.record.phase),
            ) else {
                continue;
            };
            planned_rounds = planned_rounds.max(round);
            if let PhaseKind::Measure(p) = &phase.record.phase.kind {
                qd = p.workload.qd;
            }
            if !order.contains(&cell) {
                order.push(cell);
            }
            if let Some(run) = phase
                .run
                .as_ref()
                .filter(|_| phase.record.status == Status::Completed)
            {
                done.push(CellRound {
                    round,
                    cell,
                    phase,
                    figures: Figures::of_run(run),
                });
            }
        }
        let iops: Vec<(usize, PtsCell, f64)> = done
            .iter()
            .map(|c| (c.round, c.cell, c.figures.iops))
            .collect();
        let (rounds, series) = tracked_series(plan, order.len(), planned_rounds, &iops);
        let n = Criteria::default().window_rounds;
        let steady_first = first_steady(&series, rounds);
        let first = steady_first.unwrap_or_else(|| rounds.saturating_sub(n) + 1);
        let window = (rounds > 0).then(|| (first, (first + n - 1).min(rounds)));
        let tracked = match window {
            Some((first, last)) => plan
                .tracked
                .iter()
                .zip(&series)
                .map(|(cell, iops)| {
                    let round_iops = iops[first - 1..last.min(iops.len())].to_vec();
                    let (w, _) = Criteria::default().window(&round_iops);
                    Tracked {
                        cell: *cell,
                        round_iops,
                        avg: w.avg,
                        range_pct: w.range_pct,
                        slope_pct: w.slope_pct,
                    }
                })
                .collect(),
            None => Vec::new(),
        };
        let cells = match window {
            Some((first, last)) => order
                .iter()
                .map(|cell| {
                    let of_window: Vec<&CellRound> = done
                        .iter()
                        .filter(|c| c.cell == *cell && (first..=last).contains(&c.round))
                        .collect();
                    cell_figures(*cell, &of_window)
                })
                .collect(),
            None => Vec::new(),
        };
        let demand = match window {
            Some((first, last)) if plan.shows == PtsShows::Points => {
                let of_window: Vec<&CellRound> = done
                    .iter()
                    .filter(|c| (first..=last).contains(&c.round))
                    .collect();
                demand(&cells, &of_window)
            }
            _ => None,
        };
        TestFigures {
            name: plan.name.clone(),
            title: plan.title.clone(),
            shows: plan.shows,
            qd,
            rounds,
            window,
            steady: steady_first.is_some(),
            tracked,
            cells,
            demand,
        }
    }

    /// The cell of `read_pct` and `bs` (either access order).
    pub fn cell(&self, read_pct: u8, bs: u64) -> Option<&CellFigures> {
        self.cells
            .iter()
            .find(|c| c.cell.read_pct == read_pct && c.cell.bs == bs)
    }

    /// The read shares of the cells, in the plan's order, each once (the table's columns).
    pub fn mixes(&self) -> Vec<u8> {
        let mut out: Vec<u8> = Vec::new();
        for c in &self.cells {
            if !out.contains(&c.cell.read_pct) {
                out.push(c.cell.read_pct);
            }
        }
        out
    }

    /// The transfer sizes of the cells, in the plan's order, each once (the table's rows).
    pub fn sizes(&self) -> Vec<u64> {
        let mut out: Vec<u64> = Vec::new();
        for c in &self.cells {
            if !out.contains(&c.cell.bs) {
                out.push(c.cell.bs);
            }
        }
        out
    }
}

/// The full rounds of a test (the rounds, from the first, whose every one of `cells` cells is
/// done, the tracked ones among them) and each tracked cell's IOPS in them, from its done runs:
/// (round, cell, IOPS). A tracked cell no phase ran (an edited record renamed its phases)
/// leaves no full round, so no window.
fn tracked_series(
    plan: &PtsTestSettings,
    cells: usize,
    planned_rounds: usize,
    done: &[(usize, PtsCell, f64)],
) -> (usize, Vec<Vec<f64>>) {
    let rounds = (1..=planned_rounds)
        .take_while(|r| {
            let of_round = || done.iter().filter(|c| c.0 == *r);
            of_round().count() == cells
                && plan.tracked.iter().all(|t| of_round().any(|c| c.1 == *t))
        })
        .count();
    let series = plan
        .tracked
        .iter()
        .map(|cell| {
            (1..=rounds)
                .filter_map(|r| done.iter().find(|c| c.0 == r && c.1 == *cell).map(|c| c.2))
                .collect()
        })
        .collect();
    (rounds, series)
}

/// The pending phases (indices into `record.phases`) of the rounds after each test's first
/// steady window: SNIA stops a test there (`--rounds` is the cap). Read from the record alone
/// (a completed phase's headline IOPS is its run summary's, the figures' own), so the runner
/// asks before every phase and a resume drops the same ones. Empty for other kinds.
pub fn moot_phases(record: &ExperimentRecord) -> Vec<usize> {
    let Settings::Pts(s) = &record.settings else {
        return Vec::new();
    };
    let n = Criteria::default().window_rounds;
    let mut moot = Vec::new();
    for plan in &s.tests {
        let mut order: Vec<PtsCell> = Vec::new();
        let mut done = Vec::new();
        let mut pending = Vec::new();
        let mut planned_rounds = 0;
        for (i, p) in record.phases.iter().enumerate() {
            let (Some(round), Some(cell)) =
                (round_of(&p.phase.name, &plan.name), cell_of(&p.phase))
            else {
                continue;
            };
            planned_rounds = planned_rounds.max(round);
            if !order.contains(&cell) {
                order.push(cell);
            }
            match (p.status, p.headline.as_ref().and_then(|h| h.iops)) {
                (Status::Completed, Some(iops)) => done.push((round, cell, iops)),
                (Status::Pending, _) => pending.push((i, round)),
                _ => {}
            }
        }
        let (rounds, series) = tracked_series(plan, order.len(), planned_rounds, &done);
        if let Some(first) = first_steady(&series, rounds) {
            let last = first + n - 1;
            moot.extend(pending.iter().filter(|(_, r)| *r > last).map(|(i, _)| *i));
        }
    }
    moot.sort_unstable();
    moot
}

/// The first round (1-based) of the first five of `rounds` in which every series (one tracked
/// cell's IOPS per round) meets the SNIA rule; None when no window does.
fn first_steady(series: &[Vec<f64>], rounds: usize) -> Option<usize> {
    let c = Criteria::default();
    let n = c.window_rounds;
    if rounds < n || series.iter().any(|s| s.len() < rounds) {
        return None;
    }
    (0..=rounds - n)
        .find(|&f| series.iter().all(|s| c.window(&s[f..f + n]).1))
        .map(|f| f + 1)
}

/// The demand intensity of a points test's `cells` (figures over the window), the histograms
/// from `window`'s runs; None without a point.
fn demand(cells: &[CellFigures], window: &[&CellRound]) -> Option<Demand> {
    let most = |fit: &dyn Fn(&CellFigures) -> bool| {
        cells
            .iter()
            .enumerate()
            .filter_map(|(i, c)| Some((i, c, c.cell.oio?)))
            .filter(|(_, c, _)| fit(c))
            .max_by(|a, b| a.1.iops.total_cmp(&b.1.iops))
    };
    let point = |(i, c, oio): (usize, &CellFigures, PtsOio)| DemandPoint {
        cell: i,
        oio,
        iops: c.iops,
        avg_lat_us: c.avg_lat_us,
        histogram: window_histogram(c.cell, window)
            .map(|d| d.bins())
            .unwrap_or_default(),
    };
    Some(Demand {
        operating_art_us: OPERATING_ART_US,
        max_iops: most(&|_| true).map(point)?,
        operating: most(&|c| c.avg_lat_us <= OPERATING_ART_US).map(point),
    })
}

/// All I/Os of `cell`'s runs among `rounds`, merged; None when a run saved no histogram.
fn window_histogram(cell: PtsCell, rounds: &[&CellRound]) -> Option<Distribution> {
    let histograms: Option<Vec<Distribution>> = rounds
        .iter()
        .filter(|r| r.cell == cell)
        .map(|r| {
            let run = r.phase.run.as_ref()?;
            Distribution::of_run(run).ok().flatten().and_then(|d| d.all)
        })
        .collect();
    histograms.and_then(|h| Distribution::merged(&h))
}

/// A cell's figures over its rounds of the window.
fn cell_figures(cell: PtsCell, rounds: &[&CellRound]) -> CellFigures {
    let n = rounds.len().max(1) as f64;
    let ops: u64 = rounds.iter().map(|r| r.figures.ops).sum();
    let weighted: f64 = rounds
        .iter()
        .map(|r| r.figures.ops as f64 * r.figures.avg_lat_us)
        .sum();
    CellFigures {
        cell,
        rounds: rounds.len(),
        iops: rounds.iter().map(|r| r.figures.iops).sum::<f64>() / n,
        mb_per_s: rounds.iter().map(|r| r.figures.mb_per_s).sum::<f64>() / n,
        avg_lat_us: if ops > 0 { weighted / ops as f64 } else { 0.0 },
        max_lat_us: rounds
            .iter()
            .map(|r| r.figures.max_lat_us)
            .fold(0.0, f64::max),
        p99999_lat_us: window_histogram(cell, rounds).map(|d| d.quantile_us(FIVE_NINES)),
    }
}

/// A read share as the PTS writes a mix: `65/35` (reads/writes).
pub fn mix_label(read_pct: u8) -> String {
    format!("{read_pct}/{}", 100 - read_pct)
}

/// A transfer size as the PTS writes it: `0.5K`, `4K`, `1024K`.
pub fn size_label(bs: u64) -> String {
    if bs.is_multiple_of(1024) {
        format!("{}K", bs / 1024)
    } else {
        format!("{}K", bs as f64 / 1024.0)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_round_is_read_from_the_phase_name_of_its_test_only() {
        assert_eq!(round_of("iops-r07-65-35-4K", "iops"), Some(7));
        assert_eq!(round_of("iops-r12-0-100-0.5K", "iops"), Some(12));
        assert_eq!(round_of("iops-purge", "iops"), None);
        assert_eq!(round_of("tp-r01-0-100-128K", "iops"), None);
    }

    #[test]
    fn sizes_and_mixes_are_labelled_as_the_pts_writes_them() {
        assert_eq!(size_label(512), "0.5K");
        assert_eq!(size_label(4096), "4K");
        assert_eq!(size_label(1 << 20), "1024K");
        assert_eq!(mix_label(65), "65/35");
        assert_eq!(mix_label(0), "0/100");
    }

    /// The window the rule picks is the first five rounds within its limits on every tracked
    /// cell: falling rounds then level ones give rounds 3–7; a second cell still falling there
    /// moves it on to rounds 5–9; a cell that keeps falling, or misses rounds, gives none.
    #[test]
    fn the_window_is_the_first_five_rounds_within_the_snia_limits_on_every_cell() {
        let mut level = vec![2000.0, 1500.0, 1000.0, 1010.0, 990.0, 1005.0, 995.0];
        level.extend([1000.0; 3]);
        assert_eq!(first_steady(&[level.clone()], 10), Some(3));
        let mut later = vec![900.0, 800.0, 700.0, 600.0];
        later.extend([500.0; 6]);
        assert_eq!(first_steady(&[level.clone(), later.clone()], 10), Some(5));
        assert_eq!(first_steady(&[level[..9].to_vec(), later], 10), None);
        let falling: Vec<f64> = (0..10).map(|i| 1000.0 - 60.0 * i as f64).collect();
        assert_eq!(first_steady(&[level, falling], 10), None);
    }
}
