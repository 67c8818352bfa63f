//! Where the next I/O goes, how long it is and whether it reads or writes: random offsets are
//! drawn from the workload's distribution (uniform, zipf, pareto, normal, hot/cold, zoned) over
//! the aligned positions of `[offset, offset + span)`, from tables built once per stream so that
//! a draw allocates nothing; under `--bssplit` each I/O's size is drawn first and its offset
//! rounded down to a multiple of it.

use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::Arc;

use rand_chacha::ChaCha8Rng;
use rand_core::{RngCore, SeedableRng};

use crate::stats::OpKind;
use crate::workload::precondition::Plan;
use crate::workload::{BsSplit, Distribution, Workload};

/// The counters the streams of a run share: the fast preconditioning's writes, which every
/// stream takes in turn, and one sequential cursor per job, shared by that job's streams (the
/// slots of its ring, its threads) so that its outstanding sequential I/Os are adjacent, as
/// Iometer issues them.
#[derive(Clone)]
pub struct Cursors {
    plan: Arc<AtomicU64>,
    jobs: Vec<Arc<AtomicU64>>,
}

impl Cursors {
    /// The counters of a run of `jobs` jobs, every one at the start.
    pub fn new(jobs: u32) -> Cursors {
        Cursors {
            plan: Arc::default(),
            jobs: (0..jobs.max(1)).map(|_| Arc::default()).collect(),
        }
    }
}

/// Per-stream chooser of (operation, offset). Random offsets are drawn over the whole span
/// (fio's numjobs: every job covers the region); sequential I/O of job `j` of `n` runs through
/// its own slice, the `j`-th `n`-th of the span (fio's numjobs with offset_increment = size =
/// span ÷ n), so that jobs do not write the same blocks one after the other.
pub struct OffsetGen {
    rng: ChaCha8Rng,
    positions: u64,
    picker: Picker,
    base: u64,
    align: u64,
    bs: u64,
    /// Per-I/O sizes; `None`: every I/O is `bs` bytes.
    split: Option<BsSplit>,
    /// Bytes of the span in use.
    span: u64,
    /// Where this job's sequential slice starts, from `base`, and its bytes.
    slice_start: u64,
    slice: u64,
    sequential_span: u64,
    read_pct: u32,
    trim_pct: u32,
    random_pct: u32,
    /// This job's sequential cursor, from its slice's start.
    cursor: Arc<AtomicU64>,
    /// Writes of the fast preconditioning taken so far, by every stream.
    plan_taken: Arc<AtomicU64>,
    /// Fast preconditioning still to write: its plan counts writes on `plan_taken`.
    precondition: Option<Plan>,
}

impl OffsetGen {
    /// The generator of stream `stream` (its random draws) of job `job` (its sequential slice
    /// and cursor); every stream of a run shares `cursors`.
    pub fn new(w: &Workload, stream: u64, job: u32, cursors: &Cursors) -> Self {
        let jobs = cursors.jobs.len() as u64;
        let job = u64::from(job).min(jobs - 1);
        let slice = w.span / jobs;
        OffsetGen {
            rng: ChaCha8Rng::seed_from_u64(
                w.seed ^ 0x6f66_6673 ^ stream.wrapping_mul(0xd6e8_feb8_6659_fd93),
            ),
            positions: w.positions(),
            picker: Picker::new(&w.distribution, w.positions(), w.seed),
            base: w.offset,
            align: w.align,
            bs: w.bs,
            split: w.bssplit.clone(),
            span: w.span,
            slice_start: job * slice / w.align * w.align,
            slice,
            sequential_span: slice / w.bs * w.bs,
            read_pct: u32::from(w.read_pct),
            trim_pct: u32::from(w.trim_pct),
            random_pct: u32::from(w.random_pct),
            cursor: cursors.jobs[job as usize].clone(),
            plan_taken: cursors.plan.clone(),
            precondition: w
                .precondition
                .map(|f| Plan::new(w.span / w.bs, f.plan_alpha(), w.seed)),
        }
    }

    /// The length of the next I/O, drawn before it so that its bytes can be taken from the
    /// budget first: `bs`, or under `--bssplit` a size of the split.
    #[inline]
    pub fn next_len(&mut self) -> u64 {
        match &self.split {
            Some(split) => split.size_at(self.rng.next_u32() % 100),
            None => self.bs,
        }
    }

    /// The next operation and byte offset of an I/O of `len` bytes (from [`Self::next_len`]).
    #[inline]
    pub fn next_op(&mut self, len: u64) -> (OpKind, u64) {
        if let Some(plan) = &self.precondition {
            // Every stream takes the next write of the plan until it is written.
            let n = self.plan_taken.fetch_add(1, Ordering::Relaxed);
            if n < plan.writes() {
                return (OpKind::Write, self.base + plan.position(n) * self.bs);
            }
            self.precondition = None;
        }
        // One draw decides the kind: below read_pct a read, below read_pct + trim_pct a trim,
        // else a write (no draw when one kind has every I/O).
        let op = if self.read_pct == 100 {
            OpKind::Read
        } else if self.trim_pct == 100 {
            OpKind::Trim
        } else if self.read_pct + self.trim_pct == 0 {
            OpKind::Write
        } else {
            let draw = self.rng.next_u32() % 100;
            if draw < self.read_pct {
                OpKind::Read
            } else if draw < self.read_pct + self.trim_pct {
                OpKind::Trim
            } else {
                OpKind::Write
            }
        };
        let offset = if self.random_pct == 100
            || (self.random_pct > 0 && self.rng.next_u32() % 100 < self.random_pct)
        {
            let at = self.picker.pick(&mut self.rng, self.positions) * self.align;
            if self.split.is_none() {
                at
            } else {
                // Aligned to the I/O's own size, and inside the span.
                (at / len).min((self.span - len) / len) * len
            }
        } else if self.split.is_none() {
            // Sequential transfers follow each other from the slice's start and wrap before its
            // end.
            self.slice_start
                + self.cursor.fetch_add(self.bs, Ordering::Relaxed) % self.sequential_span
        } else {
            // Sizes differ: the cursor holds where the last one ended, and one that would
            // cross the span's end starts it again.
            let mut end = self.cursor.load(Ordering::Relaxed);
            loop {
                let at = if end + len > self.slice { 0 } else { end };
                match self.cursor.compare_exchange_weak(
                    end,
                    at + len,
                    Ordering::Relaxed,
                    Ordering::Relaxed,
                ) {
                    Ok(_) => break self.slice_start + at,
                    Err(now) => end = now,
                }
            }
        };
        (op, self.base + offset)
    }
}

/// Ranks of the zipf distribution summed exactly; the rest of the ranks are drawn from the
/// continuous x^−θ density, which differs from the sum by under 1e-6 beyond this rank.
const ZIPF_HEAD: usize = 256;

/// A distribution over positions `0..n`, ready to draw from.
enum Picker {
    Uniform,
    /// Rank drawn by inverse CDF (head table + continuous tail), then scattered.
    Zipf {
        theta: f64,
        /// Cumulative weights of ranks 1..=head.
        head: Vec<f64>,
        /// Weight of all ranks.
        total: f64,
        scatter: Scatter,
    },
    /// Rank fraction 1 − u^power, then scattered.
    Pareto {
        power: f64,
        scatter: Scatter,
    },
    /// Middle and standard deviation in positions.
    Normal {
        middle: f64,
        sigma: f64,
    },
    /// I/Os under `threshold` (of 100) go to positions `0..hot`, the rest to `hot..n`.
    HotCold {
        threshold: u32,
        hot: u64,
    },
    /// Per zone: the I/Os (of 100) that go to it and the zones before it, and its positions.
    Zoned {
        zones: Vec<(u32, std::ops::Range<u64>)>,
    },
}

/// A fixed permutation of `0..n` (`i·step + shift mod n`, `step` coprime to `n`) that spreads
/// the hottest ranks over the span as fio's hashing does, shared by every stream of a run.
struct Scatter {
    n: u64,
    step: u64,
    shift: u64,
}

impl Scatter {
    fn new(n: u64, seed: u64) -> Scatter {
        let gcd = |mut a: u64, mut b: u64| {
            while b != 0 {
                (a, b) = (b, a % b);
            }
            a
        };
        // Near n/φ, so that neighbouring ranks land far apart.
        let mut step = ((n as f64 * 0.618_033_988_749_895) as u64).max(1);
        while gcd(step, n) != 1 {
            step += 1;
        }
        Scatter {
            n,
            step,
            shift: crate::pattern::mix64(seed) % n.max(1),
        }
    }

    #[inline]
    fn apply(&self, rank: u64) -> u64 {
        ((u128::from(rank) * u128::from(self.step) + u128::from(self.shift)) % u128::from(self.n))
            as u64
    }
}

impl Picker {
    fn new(d: &Distribution, n: u64, seed: u64) -> Picker {
        match *d {
            Distribution::Uniform => Picker::Uniform,
            Distribution::Zipf { theta } => {
                let head_len = (ZIPF_HEAD as u64).min(n) as usize;
                let mut head = Vec::with_capacity(head_len);
                let mut sum = 0.0;
                for i in 1..=head_len {
                    sum += (i as f64).powf(-theta);
                    head.push(sum);
                }
                let tail = zipf_tail_weight(theta, head_len as f64 + 0.5, n as f64 + 0.5);
                Picker::Zipf {
                    theta,
                    head,
                    total: sum + tail,
                    scatter: Scatter::new(n, seed),
                }
            }
            Distribution::Pareto { h } => Picker::Pareto {
                power: h.ln() / (1.0 - h).ln(),
                scatter: Scatter::new(n, seed),
            },
            Distribution::Normal { sigma_pct } => Picker::Normal {
                middle: n as f64 / 2.0,
                sigma: n as f64 * sigma_pct / 100.0,
            },
            Distribution::Hotcold {
                hot_io_pct,
                hot_span_pct,
            } => Picker::HotCold {
                threshold: u32::from(hot_io_pct),
                hot: (n * u64::from(hot_span_pct) / 100).clamp(1, (n - 1).max(1)),
            },
            Distribution::Zoned { ref zones } => {
                // A zone ends where its share of the span, added to those before it, ends; a
                // zone too small to hold a position takes its neighbour's first one.
                let (mut io, mut span) = (0u32, 0u64);
                let zones = zones
                    .iter()
                    .map(|z| {
                        let start = (n * span / 100).min(n.saturating_sub(1));
                        io += u32::from(z.io_pct);
                        span += u64::from(z.span_pct);
                        (io, start..(n * span / 100).max(start + 1))
                    })
                    .collect();
                Picker::Zoned { zones }
            }
        }
    }

    /// A position in `0..n`.
    #[inline]
    fn pick(&self, rng: &mut ChaCha8Rng, n: u64) -> u64 {
        match self {
            Picker::Uniform => below(rng.next_u64(), n),
            Picker::Zipf {
                theta,
                head,
                total,
                scatter,
            } => {
                let v = unit(rng) * total;
                let last = head.last().copied().unwrap_or(0.0);
                let rank = if v < last {
                    head.partition_point(|&c| c <= v) as u64
                } else {
                    let a = head.len() as f64 + 0.5;
                    let x = zipf_tail_inverse(*theta, a, v - last);
                    // Rank r (1-based) covers [r − ½, r + ½); as an index, r − 1.
                    ((x - 0.5) as u64).max(head.len() as u64).min(n - 1)
                };
                scatter.apply(rank)
            }
            Picker::Pareto { power, scatter } => {
                let rank = (n as f64 * (1.0 - unit(rng).powf(*power))) as u64;
                scatter.apply(rank.min(n - 1))
            }
            Picker::Normal { middle, sigma } => {
                // Box–Muller; a draw past either end wraps around to the other.
                let r = (-2.0 * (1.0 - unit(rng)).ln()).sqrt();
                let z = r * (std::f64::consts::TAU * unit(rng)).cos();
                let x = (middle + sigma * z).rem_euclid(n as f64) as u64;
                x.min(n - 1)
            }
            Picker::HotCold { threshold, hot } => {
                if n < 2 {
                    0
                } else if rng.next_u32() % 100 < *threshold {
                    below(rng.next_u64(), *hot)
                } else {
                    hot + below(rng.next_u64(), n - hot)
                }
            }
            Picker::Zoned { zones } => {
                // Zones whose shares fall short of 100 (a record edited by hand) leave the
                // rest of the draws uniform.
                let r = rng.next_u32() % 100;
                match zones.iter().find(|z| r < z.0) {
                    Some((_, range)) => {
                        let end = range.end.min(n);
                        range.start + below(rng.next_u64(), end.saturating_sub(range.start).max(1))
                    }
                    None => below(rng.next_u64(), n),
                }
            }
        }
    }
}

/// A uniform number in `0..n` from 64 random bits.
#[inline]
fn below(r: u64, n: u64) -> u64 {
    ((u128::from(r) * u128::from(n)) >> 64) as u64
}

/// A uniform number in `[0, 1)`.
#[inline]
fn unit(rng: &mut ChaCha8Rng) -> f64 {
    (rng.next_u64() >> 11) as f64 * (1.0 / (1u64 << 53) as f64)
}

/// ∫ x^−θ dx from `a` to `b`.
fn zipf_tail_weight(theta: f64, a: f64, b: f64) -> f64 {
    if b <= a {
        0.0
    } else if (theta - 1.0).abs() < 1e-12 {
        (b / a).ln()
    } else {
        (b.powf(1.0 - theta) - a.powf(1.0 - theta)) / (1.0 - theta)
    }
}

/// The x with ∫ t^−θ dt from `a` to x equal to `w`.
#[inline]
fn zipf_tail_inverse(theta: f64, a: f64, w: f64) -> f64 {
    if (theta - 1.0).abs() < 1e-12 {
        a * w.exp()
    } else {
        (a.powf(1.0 - theta) + (1.0 - theta) * w).powf(1.0 / (1.0 - theta))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    const DRAWS: usize = 500_000;

    /// Random writes of 4 KiB over `positions` aligned slots starting at 1 MiB.
    fn workload(distribution: Distribution, positions: u64) -> Workload {
        Workload {
            span: positions * 4096,
            offset: 1 << 20,
            distribution,
            seed: 7,
            ..Default::default()
        }
    }

    /// How often each position was drawn, checking that every offset is aligned and inside
    /// `[offset, offset + span)`.
    fn histogram(d: &str, positions: u64) -> Vec<u64> {
        let w = workload(d.parse().unwrap(), positions);
        let mut gen = OffsetGen::new(&w, 3, 0, &Cursors::new(1));
        let mut counts = vec![0u64; positions as usize];
        for _ in 0..DRAWS {
            let len = gen.next_len();
            assert_eq!(len, w.bs);
            let (op, offset) = gen.next_op(len);
            assert_eq!(op, OpKind::Write);
            assert!(
                offset >= w.offset && offset + w.bs <= w.offset + w.span,
                "{d}: offset {offset} outside the span"
            );
            assert_eq!((offset - w.offset) % w.align, 0, "{d}: offset {offset}");
            counts[((offset - w.offset) / w.align) as usize] += 1;
        }
        counts
    }

    fn share(counts: &[u64]) -> f64 {
        counts.iter().sum::<u64>() as f64 / DRAWS as f64
    }

    /// Share of the draws that went to the hottest `fraction` of the positions.
    fn hottest_share(mut counts: Vec<u64>, fraction: f64) -> f64 {
        counts.sort_unstable_by(|a, b| b.cmp(a));
        let top = (counts.len() as f64 * fraction) as usize;
        share(&counts[..top])
    }

    fn within(what: &str, got: f64, want: f64, tolerance: f64) {
        assert!(
            (got - want).abs() <= tolerance,
            "{what}: {got:.4}, expected {want:.4} ± {tolerance}"
        );
    }

    #[test]
    fn uniform_covers_the_span_evenly() {
        let counts = histogram("uniform", 100);
        for (i, &c) in counts.iter().enumerate() {
            within(
                &format!("position {i}"),
                c as f64 / DRAWS as f64,
                0.01,
                0.001,
            );
        }
    }

    #[test]
    fn hotcold_sends_p_percent_to_the_first_q_percent() {
        let counts = histogram("hotcold:80/20", 10_000);
        within("80/20: first 20 %", share(&counts[..2000]), 0.80, 0.01);
        let counts = histogram("hotcold:90/5", 10_000);
        within("90/5: first 5 %", share(&counts[..500]), 0.90, 0.01);
    }

    #[test]
    fn zoned_sends_each_zone_its_share_of_the_io() {
        // SNIA's enterprise composite workload: 50 % to the first 5 %, 30 % to the next 15 %,
        // 20 % to the last 80 %, uniform within each.
        let counts = histogram("zoned:50/5:30/15:20/80", 10_000);
        within("first 5 %", share(&counts[..500]), 0.50, 0.01);
        within("next 15 %", share(&counts[500..2000]), 0.30, 0.01);
        within("last 80 %", share(&counts[2000..]), 0.20, 0.01);
        within("uniform in a zone", share(&counts[..250]), 0.25, 0.01);
        let counts = histogram("zoned:0/50:100/50", 1000);
        assert_eq!(share(&counts[..500]), 0.0);
        // More zones than positions: every draw still lands in the span.
        let counts = histogram("zoned:50/5:30/15:20/80", 3);
        within("tiny span", share(&counts), 1.0, 0.0);
    }

    #[test]
    fn zipf_gives_the_hottest_percent_of_blocks_the_zipf_share() {
        let n = 10_000u64;
        for theta in [0.8, 1.0, 1.2] {
            let weight = |k: u64| (1..=k).map(|i| (i as f64).powf(-theta)).sum::<f64>();
            let want = weight(n / 100) / weight(n);
            let counts = histogram(&format!("zipf:{theta}"), n);
            within(
                &format!("zipf:{theta} top 1 %"),
                hottest_share(counts.clone(), 0.01),
                want,
                0.01,
            );
            let hottest = counts.iter().copied().max().unwrap_or(0) as f64 / DRAWS as f64;
            within(
                &format!("zipf:{theta} hottest block"),
                hottest,
                1.0 / weight(n),
                0.003,
            );
        }
    }

    #[test]
    fn zipf_spreads_its_hottest_blocks_over_the_span() {
        let counts = histogram("zipf:1.2", 10_000);
        let mut order: Vec<usize> = (0..counts.len()).collect();
        order.sort_unstable_by(|&a, &b| counts[b].cmp(&counts[a]));
        let halves = order[..10].iter().filter(|&&i| i < 5000).count();
        assert!(
            (1..10).contains(&halves),
            "hottest ten blocks all in one half: {:?}",
            &order[..10]
        );
    }

    #[test]
    fn pareto_h_sends_h_of_the_io_to_the_hottest_one_minus_h() {
        for h in [0.9, 0.8] {
            let counts = histogram(&format!("pareto:{h}"), 10_000);
            within(
                &format!("pareto:{h}"),
                hottest_share(counts, 1.0 - h),
                h,
                0.01,
            );
        }
    }

    #[test]
    fn normal_puts_68_percent_within_one_sigma_of_the_middle() {
        let counts = histogram("normal:10", 10_000);
        within("±1σ", share(&counts[4000..6000]), 0.6827, 0.01);
        within("±2σ", share(&counts[3000..7000]), 0.9545, 0.01);
    }

    #[test]
    fn scatter_is_a_permutation() {
        for n in [1u64, 2, 6, 97, 1000, 4096] {
            let s = Scatter::new(n, 11);
            let mut seen = vec![false; n as usize];
            for r in 0..n {
                seen[s.apply(r) as usize] = true;
            }
            assert!(seen.iter().all(|&b| b), "n {n}");
        }
    }

    #[test]
    fn sequential_io_starts_at_the_offset_and_wraps_within_the_span() {
        let w = Workload {
            random_pct: 0,
            ..workload(Distribution::Uniform, 4)
        };
        let mut gen = OffsetGen::new(&w, 0, 0, &Cursors::new(1));
        let got: Vec<u64> = (0..5).map(|_| gen.next_op(w.bs).1 - w.offset).collect();
        assert_eq!(got, [0, 4096, 8192, 12288, 0]);
    }

    #[test]
    fn each_job_writes_sequentially_through_its_own_slice_of_the_span() {
        let w = Workload {
            random_pct: 0,
            jobs: 4,
            ..workload(Distribution::Uniform, 40)
        };
        let cursors = Cursors::new(w.jobs);
        // Two streams of job 2 (a ring's slots, a job's threads) share its cursor: its slice is
        // positions 20..30, walked once in turn and begun again.
        let mut a = OffsetGen::new(&w, 5, 2, &cursors);
        let mut b = OffsetGen::new(&w, 6, 2, &cursors);
        let got: Vec<u64> = (0..11)
            .map(|i| {
                let gen = if i % 2 == 0 { &mut a } else { &mut b };
                (gen.next_op(w.bs).1 - w.offset) / w.bs
            })
            .collect();
        assert_eq!(got, [20, 21, 22, 23, 24, 25, 26, 27, 28, 29, 20]);
        // Job 0 is not moved by job 2's I/O.
        let mut first = OffsetGen::new(&w, 0, 0, &cursors);
        assert_eq!(first.next_op(w.bs).1, w.offset);
    }

    #[test]
    fn split_sizes_take_their_shares_at_offsets_aligned_to_each_size() {
        let mut w = workload("zoned:50/5:30/15:20/80".parse().unwrap(), 1 << 16);
        w.bssplit = Some("512/4:4k/67:8k/10:64k/19".parse().unwrap());
        w.align = 512;
        let mut gen = OffsetGen::new(&w, 1, 0, &Cursors::new(1));
        let (mut sizes, mut first_zone) = (std::collections::BTreeMap::new(), 0u64);
        for _ in 0..DRAWS {
            let len = gen.next_len();
            let (_, offset) = gen.next_op(len);
            let at = offset - w.offset;
            assert_eq!(at % len, 0, "offset {offset} of a {len}-byte I/O");
            assert!(at + len <= w.span, "{len} bytes at {at} leave the span");
            *sizes.entry(len).or_insert(0u64) += 1;
            first_zone += u64::from(at < w.span / 20);
        }
        for (size, pct) in [(512, 4.0), (4096, 67.0), (8192, 10.0), (65536, 19.0)] {
            within(
                &format!("{size} B"),
                sizes[&size] as f64 / DRAWS as f64,
                pct / 100.0,
                0.005,
            );
        }
        within(
            "first 5 % of the span",
            first_zone as f64 / DRAWS as f64,
            0.5,
            0.01,
        );
    }

    #[test]
    fn sequential_split_io_follows_on_and_starts_the_span_again() {
        let mut w = Workload {
            random_pct: 0,
            ..workload(Distribution::Uniform, 4)
        };
        w.bssplit = Some("4k/50:8k/50".parse().unwrap());
        let mut gen = OffsetGen::new(&w, 0, 0, &Cursors::new(1));
        let mut end = 0;
        for _ in 0..1000 {
            let len = gen.next_len();
            let (_, offset) = gen.next_op(len);
            let at = offset - w.offset;
            assert!(at == end || at == 0, "{at} after {end}");
            assert!(at + len <= w.span);
            end = (at + len) % w.span;
        }
    }
}
