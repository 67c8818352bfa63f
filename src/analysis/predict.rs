//! Steady state predicted early, from the physics rather than a curve fit alone.
//!
//! A small greedy-GC flash model (uniform random writes over the span at its α, after the fast
//! preconditioning when the run had one) gives the write amplification as a function of the
//! span-writes done: flat until the flash is full, then rising to its steady value. The model
//! writes in the run's write unit: a 64 KiB write is 16 flash pages of 4 KiB placed and
//! invalidated together, so an erase block holds 16 times fewer independent units and greedy
//! collection finds emptier victims than with 4 KiB writes (a lower WA, reached sooner). The drive's
//! time per write is taken as a straight line in the write amplification, fitted to the
//! measured samples since the cliff (bins of 2 % of a span-write) three ways: through the origin
//! (every unit of WA costs a fresh write's time), from the drive's own rate before the cliff
//! (`1/IOPS = y₁ + k·(WA − 1)`: a host write costs its program, a garbage-collection copy a
//! read and a program), and free. The steady IOPS is the middle one's at WA∞ (the origin's
//! after a fast plan, which leaves no rate before the cliff), pulled toward the free line where
//! the bins tell the two apart ([`pulled`]); its interval is the origin line's
//! (twice its standard error, a model allowance that shrinks as the measured WA approaches
//! WA∞, the free line's difference) widened by the centre's distance from it. SNIA's pass is predicted by feeding the measured
//! samples, then the fitted curve run forward, to the run's own steady-state tracker.

use std::collections::BTreeSet;

use crate::results::{Basis, Model, Prediction, RunInfo};
use crate::stats::steady::{Criteria, SteadyTracker};
use crate::stats::Sample;
use crate::workload::precondition::{Fast, Plan, DEFAULT_OP_PCT};

/// Model flash: blocks and 4 KiB pages per block (large blocks, as on real drives).
const MODEL_BLOCKS: u32 = 512;
const MODEL_PPB: u32 = 256;
/// The flash page a write unit counts in, bytes.
const FLASH_PAGE: u64 = 4096;
/// With larger write units the model has up to this many times more blocks, so that it still
/// holds enough units for a smooth curve.
const MAX_BLOCK_FACTOR: u32 = 4;
/// Free blocks the model keeps for garbage collection.
const MODEL_RESERVE: usize = 2;
/// Span-writes the model runs, and its curve's step.
const MODEL_FILLS: f64 = 14.0;
const STEP: f64 = 0.02;
/// Steps either side the curve is averaged over.
const SMOOTH: usize = 5;
/// Model allowance: a floor, and a share of the WA still to come.
const FLOOR_PCT: f64 = 2.0;
const AHEAD_SHARE: f64 = 0.4;
/// The model's WA must have risen this much over the bins before the drive's time per write
/// is judged against it, and the drive's must have risen at least this share of the model's:
/// a drive whose time per write stays flat while the model's WA rises is limited by something
/// else than garbage collection (its controller, a throttle), and the model predicts nothing.
const MIN_MODEL_RISE: f64 = 0.1;
const MIN_RISE_SHARE: f64 = 0.25;
/// Standard errors of the free line from the middle line at WA∞ from which the drive's own
/// decay pulls the centre ([`pulled`]), and over how many more it pulls it all the way.
const PULL_FROM: f64 = 2.0;
const PULL_OVER: f64 = 6.0;

/// Write amplification per step of host writes (in span-writes) of the model drive.
#[derive(Clone, Debug)]
pub struct WaCurve {
    /// WA over step i, i.e. host writes in [i·STEP, (i+1)·STEP) span-writes.
    wa: Vec<f64>,
    /// Steady WA: the mean over the last two span-writes.
    pub steady: f64,
    /// Span-writes of the fast plan (written page-aligned), 0 without one.
    lead: f64,
    /// Flash pages a host write rewrites per page of its transfer (see [`straddle`]): the
    /// flash fills and churns this many times faster than the host's bytes say.
    straddle: f64,
}

impl WaCurve {
    /// The model WA at `x` span-writes of the host.
    pub fn at(&self, x: f64) -> f64 {
        let x = if x <= self.lead {
            x
        } else {
            self.lead + (x - self.lead) * self.straddle
        };
        let i = ((x / STEP).floor().max(0.0) as usize).min(self.wa.len() - 1);
        self.wa[i]
    }

    /// The same curve for host writes that rewrite `straddle` flash pages per page of their
    /// transfer after the fast plan.
    pub fn straddling(self, straddle: f64) -> WaCurve {
        WaCurve {
            straddle: straddle.max(1.0),
            ..self
        }
    }
}

/// Flash pages a write of `bs` bytes at offsets that are multiples of `align` rewrites, per
/// page of its transfer, on average over uniform random offsets: a write that starts or ends
/// inside a page makes the drive read, merge and rewrite the whole page (a 4 KiB write at
/// 512-byte alignment touches two pages 7 times in 8: 1.875). 1 for page-aligned writes.
pub fn straddle(bs: u64, align: u64) -> f64 {
    let step = gcd(align.max(1), FLASH_PAGE);
    let starts = FLASH_PAGE / step;
    let pages: u64 = (0..starts)
        .map(|k| (k * step + bs).div_ceil(FLASH_PAGE))
        .sum();
    pages as f64 / starts as f64 / bs.div_ceil(FLASH_PAGE) as f64
}

fn gcd(a: u64, b: u64) -> u64 {
    if b == 0 {
        a
    } else {
        gcd(b, a % b)
    }
}

/// The flash pages one write of `bs` bytes covers (its write unit), at least one.
pub fn unit_pages(bs: u64) -> u32 {
    ((bs / FLASH_PAGE).max(1)).min(u64::from(MODEL_PPB)) as u32
}

/// Model writes between two looks at [`crate::stop::requested`]: a few milliseconds of CPU.
const WRITES_BETWEEN_STOP_CHECKS: u64 = 1 << 16;

/// Runs the model drive at the span's `alpha`, from a purged drive (after `fast`'s plan when
/// given), written in units of `unit` flash pages (see [`unit_pages`]); `None` when the process
/// was asked to stop first (a tiny span's plan or a drive with almost no spare flash takes the
/// model minutes).
pub fn wa_curve(alpha: f64, fast: bool, unit: u32) -> Option<WaCurve> {
    let unit = unit.clamp(1, MODEL_PPB);
    let blocks = MODEL_BLOCKS * unit.min(MAX_BLOCK_FACTOR);
    let ppb = MODEL_PPB / unit;
    let physical = blocks * ppb;
    let user = ((f64::from(physical) / alpha) as u32).max(ppb);
    let mut m = ModelDrive::new(user, blocks, ppb);
    let mut rng = 0x853c_49e6_748f_ea9bu64;
    let mut next = move || {
        rng ^= rng << 13;
        rng ^= rng >> 7;
        rng ^= rng << 17;
        rng
    };
    let mut host_before = 0u64;
    if fast {
        let plan = Plan::new(u64::from(user), alpha, 11);
        for n in 0..plan.writes() {
            if n % WRITES_BETWEEN_STOP_CHECKS == 0 && crate::stop::requested() {
                return None;
            }
            m.write(plan.position(n) as u32);
        }
        host_before = plan.writes();
    }
    let per_step = ((f64::from(user) * STEP) as u64).max(1);
    let steps = (MODEL_FILLS / STEP) as usize;
    let mut wa = Vec::with_capacity(steps);
    let (mut host0, mut gc0) = (m.host, m.gc);
    for _ in 0..steps {
        if crate::stop::requested() {
            return None;
        }
        for n in 0..per_step {
            if n % WRITES_BETWEEN_STOP_CHECKS == 0 && crate::stop::requested() {
                return None;
            }
            let lpn = ((u128::from(next()) * u128::from(user)) >> 64) as u32;
            m.write(lpn);
        }
        wa.push((m.host - host0 + m.gc - gc0) as f64 / (m.host - host0) as f64);
        (host0, gc0) = (m.host, m.gc);
    }
    // The plan's own writes are the curve's first part: WA 1 while the flash fills.
    let lead = (host_before as f64 / f64::from(user) / STEP).round() as usize;
    let mut curve = vec![1.0; lead];
    curve.extend(smooth(&wa));
    let tail = (2.0 / STEP) as usize;
    let steady = curve[curve.len() - tail..].iter().sum::<f64>() / tail as f64;
    Some(WaCurve {
        wa: curve,
        steady,
        lead: host_before as f64 / f64::from(user),
        straddle: 1.0,
    })
}

/// The curve averaged over ±`SMOOTH` steps from its first rise on: the model counts
/// garbage collection a whole victim block at a time, a few blocks per step.
fn smooth(wa: &[f64]) -> Vec<f64> {
    let lead = wa.iter().position(|&w| w > 1.0).unwrap_or(wa.len());
    let mut out = wa[..lead].to_vec();
    out.extend((lead..wa.len()).map(|i| {
        let part = &wa[i.saturating_sub(SMOOTH).max(lead)..(i + SMOOTH + 1).min(wa.len())];
        part.iter().sum::<f64>() / part.len() as f64
    }));
    out
}

/// A unit-mapped greedy FTL without time: enough to count GC copies.
struct ModelDrive {
    /// Write units per block.
    ppb: u32,
    loc: Vec<u32>,
    owner: Vec<u32>,
    valid: Vec<u32>,
    free: Vec<u32>,
    /// The blocks garbage collection may take (neither free nor open), by their valid count:
    /// greedy collection takes the lowest-numbered block of the lowest count without scanning
    /// every block.
    by_valid: Vec<BTreeSet<u32>>,
    open: u32,
    ptr: u32,
    host: u64,
    gc: u64,
}

const NIL: u32 = u32::MAX;

impl ModelDrive {
    fn new(user: u32, blocks: u32, ppb: u32) -> ModelDrive {
        let pages = (blocks * ppb) as usize;
        ModelDrive {
            ppb,
            loc: vec![NIL; user as usize],
            owner: vec![NIL; pages],
            valid: vec![0; blocks as usize],
            free: (1..blocks).rev().collect(),
            by_valid: vec![BTreeSet::new(); ppb as usize + 1],
            open: 0,
            ptr: 0,
            host: 0,
            gc: 0,
        }
    }

    fn write(&mut self, lpn: u32) {
        self.host += 1;
        self.place(lpn);
    }

    fn place(&mut self, lpn: u32) {
        let old = self.loc[lpn as usize];
        if old != NIL {
            self.invalidate(old / self.ppb);
            // Stale from now: a collection before the unit is placed must not copy it.
            self.loc[lpn as usize] = NIL;
        }
        if self.ptr == self.ppb {
            while self.free.len() <= MODEL_RESERVE {
                self.collect();
            }
            // The collection may have left an open block with room.
            if self.ptr == self.ppb {
                self.open_next();
            }
        }
        let page = self.open * self.ppb + self.ptr;
        self.ptr += 1;
        self.owner[page as usize] = lpn;
        self.loc[lpn as usize] = page;
        self.valid[self.open as usize] += 1;
    }

    /// One page of block `b` no longer holds its unit's data.
    fn invalidate(&mut self, b: u32) {
        let v = self.valid[b as usize];
        if self.by_valid[v as usize].remove(&b) {
            self.by_valid[v as usize - 1].insert(b);
        }
        self.valid[b as usize] = v - 1;
    }

    /// Opens a free block for writing; the block written until now may be collected.
    fn open_next(&mut self) {
        let done = self.open;
        self.by_valid[self.valid[done as usize] as usize].insert(done);
        self.open = self.free.pop().expect("a free block");
        self.ptr = 0;
    }

    fn collect(&mut self) {
        let victim = self
            .by_valid
            .iter_mut()
            .find_map(|blocks| blocks.pop_first())
            .expect("a full block");
        for page in victim * self.ppb..(victim + 1) * self.ppb {
            let lpn = self.owner[page as usize];
            if lpn != NIL && self.loc[lpn as usize] == page {
                self.gc += 1;
                // Copies go to the open block; it has room (the reserve covers a victim).
                if self.ptr == self.ppb {
                    self.open_next();
                }
                self.valid[victim as usize] -= 1;
                let to = self.open * self.ppb + self.ptr;
                self.ptr += 1;
                self.owner[to as usize] = lpn;
                self.loc[lpn as usize] = to;
                self.valid[self.open as usize] += 1;
            }
            self.owner[page as usize] = NIL;
        }
        self.free.insert(0, victim);
    }
}

/// What the prediction needs besides the samples.
#[derive(Clone, Copy, Debug)]
pub struct Setting {
    /// Bytes of the span written to.
    pub span: u64,
    /// Flash over the span (its α on a purged drive).
    pub span_alpha: f64,
    /// Flash pages one write covers (see [`unit_pages`]).
    pub unit: u32,
    /// Flash pages a write rewrites per page of its transfer (see [`straddle`]).
    pub straddle: f64,
    /// The run's fast preconditioning, when it had one.
    pub fast: Option<Fast>,
    /// Bytes written before SNIA's rounds count ([`RunInfo::rounds_start_bytes`]).
    pub rounds_start: u64,
    /// SNIA round length and criteria.
    pub criteria: Criteria,
    /// The run's plan: its duration (seconds) or byte budget (bytes written in all), if any.
    pub plan_s: Option<f64>,
    pub plan_bytes: Option<u64>,
}

impl Setting {
    /// The setting of a run of uniform random writes (the model's workload), judged by
    /// `criteria`; `None` for any other workload.
    pub fn of(info: &RunInfo, criteria: Criteria) -> Option<Setting> {
        let w = &info.workload;
        if w.read_pct != 0 || w.random_pct != 100 || !w.distribution.is_uniform() {
            return None;
        }
        let size = info.target.identity.size_bytes as f64;
        let flash = info
            .drive_before
            .as_ref()
            .and_then(|d| d.flash_bytes)
            .map_or(size * (1.0 + DEFAULT_OP_PCT / 100.0), |f| f as f64);
        let span_alpha = w
            .precondition
            .map_or(flash / w.span.max(1) as f64, |f| f.span_alpha);
        Some(Setting {
            span: w.span,
            span_alpha,
            unit: unit_pages(w.bs),
            straddle: straddle(w.bs, w.align),
            fast: w.precondition,
            rounds_start: info.rounds_start_bytes(),
            criteria,
            plan_s: w.duration.map(|d| d.as_secs_f64()),
            plan_bytes: w.bytes.map(|b| b + w.precondition.map_or(0, |f| f.bytes)),
        })
    }
}

impl Setting {
    /// The model's WA curve for this setting (about 0.1 s of CPU); `None` when the process
    /// was asked to stop while it was made.
    pub fn curve(&self) -> Option<WaCurve> {
        wa_curve(self.span_alpha, self.fast.is_some(), self.unit)
            .map(|c| c.straddling(self.straddle))
    }
}

/// The prediction from `samples` (a soak of random writes, in order), or `None` before the
/// first cliff has been passed far enough to fit. Intervals the drive spent thermally
/// throttled ([`crate::stats::throttled`]) are left out of every fit, as they are out of the
/// steady state: their level is the drive's cooling, not its garbage collection. The
/// prediction is still dated at the last sample.
pub fn predict(samples: &[Sample], curve: &WaCurve, s: &Setting) -> Option<Prediction> {
    let last = samples.last()?;
    let hot = crate::stats::throttled::throttled(samples);
    if !hot.contains(&true) {
        return predict_cool(samples, curve, s);
    }
    let cool: Vec<Sample> = samples
        .iter()
        .zip(&hot)
        .filter(|(_, &h)| !h)
        .map(|(x, _)| x.clone())
        .collect();
    predict_cool(&cool, curve, s).map(|mut p| {
        p.made_at_s = last.t_end_s;
        p.made_at_bytes = last.bytes_written_total;
        p
    })
}

/// [`predict`] from samples none of which was throttled.
fn predict_cool(samples: &[Sample], curve: &WaCurve, s: &Setting) -> Option<Prediction> {
    if let Some(p) = super::throttle::predict(samples, curve, s) {
        return Some(p);
    }
    if let Some(p) = super::gc_throttle::predict(samples, curve, s) {
        return Some(p);
    }
    let last = samples.last()?;
    let bins = bins(samples, curve, s)?;
    let fresh = before_cliff(samples, curve, s);
    if !follows_wa(&bins, fresh) {
        return None;
    }
    let fit = fit(&bins, fresh)?;
    let wa_inf = curve.steady;
    let ahead = ((wa_inf - fit.wa_now) / wa_inf).abs();
    // Around the line through the origin: twice its standard error, the model allowance, and
    // the difference from the free line (their steady values differ when the drive's cost per
    // unit of WA drifts as the WA rises: a link or controller floor, copies dearer than host
    // writes).
    let y_origin = fit.origin.at(wa_inf);
    let around_origin = y_origin
        * (2.0 * fit.rel_se
            + FLOOR_PCT / 100.0
            + AHEAD_SHARE * ahead
            + (fit.free.at(wa_inf) - y_origin).abs() / y_origin);
    // The centre is the middle one of the three lines at WA∞ (the line through the origin
    // without a rate before the cliff); the interval holds the one around the origin's.
    let mut lines: Vec<Line> = [Some(fit.origin), fit.anchored, Some(fit.free)]
        .into_iter()
        .flatten()
        .collect();
    lines.sort_by(|a, b| a.at(wa_inf).total_cmp(&b.at(wa_inf)));
    let middle = Some(lines[lines.len() / 2])
        .filter(|l| lines.len() == 3 && l.at(wa_inf) > 0.0)
        .unwrap_or(fit.origin);
    let centre = pulled(middle, &fit, wa_inf);
    let y_inf = centre.at(wa_inf);
    // Widened by the farthest of the three lines from the centre: where they disagree, the
    // drive's level is any of them.
    let spread = lines
        .iter()
        .map(|l| (l.at(wa_inf) - y_inf).abs())
        .fold((y_origin - y_inf).abs(), f64::max);
    let half = (around_origin + spread) / y_inf;
    let ceiling = ceiling(samples, &bins, s);
    let iops = (1.0 / y_inf).min(ceiling.unwrap_or(f64::INFINITY));
    let pass = snia_pass(samples, s, |_, bytes| {
        centre.at(curve.at(bytes / s.span.max(1) as f64))
    });
    let high = match ceiling {
        Some(c) => (iops / (1.0 - half).max(f64::MIN_POSITIVE)).min(c),
        None if half < 1.0 => iops / (1.0 - half),
        None => f64::INFINITY,
    };
    Some(prediction(
        Basis::Settled,
        Level::new(iops, iops / (1.0 + half), high),
        wa_inf,
        s,
        pass,
        last,
    ))
}

/// A predicted level: the IOPS, its interval and the interval's half-width in percent.
pub(super) struct Level {
    pub iops: f64,
    pub low: f64,
    pub high: f64,
    pub half_width_pct: f64,
}

impl Level {
    /// `iops` in [`low`, `high`] (the interval taken to hold `iops`); its half-width is the
    /// farther of its ends from `iops`.
    pub fn new(iops: f64, low: f64, high: f64) -> Level {
        let (low, high) = (low.min(iops), high.max(iops));
        Level {
            iops,
            low,
            high,
            half_width_pct: 100.0 * (iops - low).max(high - iops) / iops,
        }
    }
}

/// The fastest the drive can settle at: garbage collection's write amplification only rises
/// after the cliff, so no faster than the fastest bin since (`bins`, seconds per op; not the
/// latest bins: once settled, the drive's rate moves a few percent either side of its level);
/// after a fast plan, which leaves the drive near its steady WA from the first write on (and a
/// few percent below its settled rate at 64 KiB, see docs/fast-steady-state.md), no faster than
/// the plan's own writes (the fresh rate). `None` without either.
fn ceiling(samples: &[Sample], bins: &[(f64, f64)], s: &Setting) -> Option<f64> {
    let fastest = |ys: &mut dyn Iterator<Item = f64>| {
        ys.filter(|y| *y > 0.0)
            .fold(None, |m: Option<f64>, y| Some(m.map_or(y, |m| m.min(y))))
            .map(|y| 1.0 / y)
    };
    match s.fast {
        Some(f) => fastest(
            &mut samples
                .iter()
                .filter(|x| x.bytes_written_total <= f.bytes && x.ops > 0)
                .map(|x| (x.t_end_s - x.t_start_s) / x.ops as f64),
        ),
        None => fastest(&mut bins.iter().map(|b| b.1)),
    }
}

/// The prediction of `level` on `basis`, made after the sample `last`, with SNIA's pass
/// `pass` and the model's write amplification `wa`; no throttle rise.
pub(super) fn prediction(
    basis: Basis,
    level: Level,
    wa: f64,
    s: &Setting,
    pass: Option<Pass>,
    last: &Sample,
) -> Prediction {
    Prediction {
        iops: level.iops,
        low: level.low,
        high: level.high,
        half_width_pct: level.half_width_pct,
        write_amplification: wa,
        span_alpha: s.span_alpha,
        steady_at_s: pass.map(|p| p.0),
        steady_at_bytes: pass.map(|p| p.1),
        made_at_s: last.t_end_s,
        made_at_bytes: last.bytes_written_total,
        first_made_at_s: None,
        basis,
        rise_us_per_h: None,
        model: Model::Greedy,
    }
}

/// Every prediction a run with `samples` makes, as the run makes them: one at the end of each
/// SNIA round (the first sample ending in a new round), from the samples so far.
pub fn replay(samples: &[Sample], s: &Setting) -> Vec<Prediction> {
    let Some(curve) = s.curve() else {
        return Vec::new();
    };
    let mut round = 0;
    let mut out = Vec::new();
    for (i, x) in samples.iter().enumerate() {
        let r = (x.t_end_s / s.criteria.round_s).floor() as u64;
        if r != round {
            round = r;
            out.extend(predict(&samples[..=i], &curve, s));
        }
    }
    out
}

/// Bins of STEP span-writes past the model cliff: (model WA, seconds per op); `None`
/// with fewer than five.
fn bins(samples: &[Sample], curve: &WaCurve, s: &Setting) -> Option<Vec<(f64, f64)>> {
    let span = s.span.max(1) as f64;
    let pre = s.fast.map_or(0, |f| f.bytes);
    let mut out = Vec::new();
    let (mut ops, mut secs, mut bin) = (0u64, 0.0f64, usize::MAX);
    let wa_of = |bin: usize| curve.at((bin as f64 + 0.5) * STEP);
    for x in samples {
        let written = x.write.as_ref().map_or(0, |w| w.bytes);
        let start = x.bytes_written_total.saturating_sub(written);
        let at = start as f64 / span;
        if start < pre || curve.at(at) < 1.02 {
            continue;
        }
        let i = (at / STEP) as usize;
        if i != bin && ops > 0 {
            out.push((wa_of(bin), secs / ops as f64));
            (ops, secs) = (0, 0.0);
        }
        bin = i;
        ops += x.ops;
        secs += x.t_end_s - x.t_start_s;
    }
    if ops > 0 {
        out.push((wa_of(bin), secs / ops as f64));
    }
    (out.len() >= 5).then_some(out)
}

/// Seconds per op over the last `STEP`·5 span-writes before the model's cliff (WA 1 there),
/// the fast plan's writes left out; `None` without such samples.
fn before_cliff(samples: &[Sample], curve: &WaCurve, s: &Setting) -> Option<f64> {
    let span = s.span.max(1) as f64;
    let pre = s.fast.map_or(0, |f| f.bytes);
    let cliff = (0..)
        .map(|i| f64::from(i) * STEP)
        .find(|&x| curve.at(x) >= 1.02 || x > MODEL_FILLS)?;
    let (mut ops, mut secs) = (0u64, 0.0f64);
    for x in samples {
        let written = x.write.as_ref().map_or(0, |w| w.bytes);
        let start = x.bytes_written_total.saturating_sub(written);
        let at = start as f64 / span;
        if start >= pre && at < cliff && at >= cliff - 5.0 * STEP {
            ops += x.ops;
            secs += x.t_end_s - x.t_start_s;
        }
    }
    (ops > 0).then(|| secs / ops as f64)
}

/// Whether the drive's time per write rises with the model's WA: from its level just before
/// the model's cliff (`before`, seconds per op at WA 1) to the straight line through the bins
/// at their last WA, it rises by at least `MIN_RISE_SHARE` of the model's rise, once the
/// model's WA rose by `MIN_MODEL_RISE`. Before that, or without a level before the cliff (a
/// fast plan), it cannot tell, and the fit goes ahead (its interval allows for the WA to come).
fn follows_wa(bins: &[(f64, f64)], before: Option<f64>) -> bool {
    let (Some(before), Some(last)) = (before, bins.last()) else {
        return true;
    };
    let model_rise = last.0 - 1.0;
    if model_rise < MIN_MODEL_RISE {
        return true;
    }
    let n = bins.len() as f64;
    let mx = bins.iter().map(|p| p.0).sum::<f64>() / n;
    let my = bins.iter().map(|p| p.1).sum::<f64>() / n;
    let sxx: f64 = bins.iter().map(|p| (p.0 - mx).powi(2)).sum();
    let sxy: f64 = bins.iter().map(|p| (p.0 - mx) * (p.1 - my)).sum();
    let slope = sxy / sxx.max(f64::MIN_POSITIVE);
    let now = my + slope * (last.0 - mx);
    now / before - 1.0 >= MIN_RISE_SHARE * model_rise
}

/// A straight line of the drive's time per write against the model's WA: `y₁ + k·(WA − 1)`.
#[derive(Clone, Copy, Debug)]
struct Line {
    y1: f64,
    k: f64,
}

impl Line {
    /// The time per write at model WA `wa`.
    fn at(&self, wa: f64) -> f64 {
        self.y1 + self.k * (wa - 1.0)
    }
}

/// The drive's own decay against the model's centre: `middle` (the middle one of the three
/// lines) moved toward the free line by how clearly the bins tell them apart at WA∞. The free
/// line is the observed decay in the model's shape (its time per write a straight line in the
/// model's WA, both level and slope from the drive); where it lies within `PULL_FROM` of its
/// standard errors from the middle line the bins cannot tell them apart and the middle line
/// stands, from `PULL_FROM + PULL_OVER` standard errors on the free line is the centre, and
/// between the two the centre moves in proportion.
fn pulled(middle: Line, fit: &Fit, wa_inf: f64) -> Line {
    let apart = (fit.free.at(wa_inf) - middle.at(wa_inf)).abs();
    let t = apart / fit.free_se(wa_inf).max(f64::MIN_POSITIVE);
    let share = ((t - PULL_FROM) / PULL_OVER).clamp(0.0, 1.0);
    let line = Line {
        y1: middle.y1 + share * (fit.free.y1 - middle.y1),
        k: middle.k + share * (fit.free.k - middle.k),
    };
    if line.at(wa_inf) > 0.0 {
        line
    } else {
        middle
    }
}

/// Three lines through the bins. Through the origin (`y₁ = k`: every unit of WA costs what a
/// fresh write costs), with its relative standard error (from the spread of the cost per unit
/// of WA); anchored at the drive's own rate before the cliff (WA 1 there) with the slope
/// fitted, when that rate was measured (a garbage-collection copy costs a read and a program
/// where a host write costs a program only, so the cost per unit of WA is not a fresh
/// write's, and the line through the origin fitted just past the cliff rises too slowly); and
/// the free straight line `a + c·WA`.
struct Fit {
    origin: Line,
    rel_se: f64,
    anchored: Option<Line>,
    free: Line,
    /// The free line's residual variance and its bins' mean WA and spread of WA (its standard
    /// error at any WA, see [`Fit::free_se`]).
    free_var: f64,
    mean_wa: f64,
    sxx: f64,
    n: f64,
    wa_now: f64,
}

impl Fit {
    /// The free line's standard error at model WA `wa` (of its value there, seconds per op).
    fn free_se(&self, wa: f64) -> f64 {
        let spread = if self.sxx > 0.0 {
            (wa - self.mean_wa).powi(2) / self.sxx
        } else {
            0.0
        };
        (self.free_var * (1.0 / self.n + spread)).sqrt()
    }
}

fn fit(bins: &[(f64, f64)], fresh: Option<f64>) -> Option<Fit> {
    let n = bins.len() as f64;
    let sww: f64 = bins.iter().map(|p| p.0 * p.0).sum();
    let swy: f64 = bins.iter().map(|p| p.0 * p.1).sum();
    let b = swy / sww.max(f64::MIN_POSITIVE);
    let ratios = bins.iter().map(|p| p.1 / p.0 / b);
    let var = ratios.map(|r| (r - 1.0).powi(2)).sum::<f64>() / (n - 1.0).max(1.0);
    let anchored = fresh.map(|y1| {
        let sww: f64 = bins.iter().map(|p| (p.0 - 1.0).powi(2)).sum();
        let swy: f64 = bins.iter().map(|p| (p.0 - 1.0) * (p.1 - y1)).sum();
        Line {
            y1,
            k: swy / sww.max(f64::MIN_POSITIVE),
        }
    });
    let mw = bins.iter().map(|p| p.0).sum::<f64>() / n;
    let my = bins.iter().map(|p| p.1).sum::<f64>() / n;
    let sxx: f64 = bins.iter().map(|p| (p.0 - mw).powi(2)).sum();
    let sxy: f64 = bins.iter().map(|p| (p.0 - mw) * (p.1 - my)).sum();
    let c = if sxx > 0.0 { sxy / sxx } else { b };
    (b > 0.0 && b.is_finite()).then(|| Fit {
        origin: Line { y1: b, k: b },
        rel_se: (var / n).sqrt(),
        anchored,
        free: Line {
            y1: my + c * (1.0 - mw),
            k: c,
        },
        free_var: bins
            .iter()
            .map(|p| (my + c * (p.0 - mw) - p.1).powi(2))
            .sum::<f64>()
            / (n - 2.0).max(1.0),
        mean_wa: mw,
        sxx,
        n,
        wa_now: bins.last().expect("bins").0,
    })
}

/// When SNIA's test passes under the rule the run applies (`run::` no round before the span
/// was written once, nor before the fast plan is done): the measured samples go through the
/// same tracker, then the predicted time per write `y(seconds, bytes)` runs on from the last
/// sample in tenths of a round, until a window passes (at most `MODEL_FILLS` span-writes
/// ahead). A pass already measured is the answer.
pub(super) fn snia_pass(
    samples: &[Sample],
    s: &Setting,
    y: impl Fn(f64, f64) -> f64,
) -> Option<Pass> {
    let last = samples.last()?;
    let span = s.span.max(1) as f64;
    let mut tracker = SteadyTracker::new(s.criteria, 0).after_bytes(s.rounds_start);
    let passed = |t: &SteadyTracker| {
        let st = t.state();
        st.at_s.zip(st.bytes_written).filter(|_| st.reached)
    };
    for x in samples {
        tracker.push(x);
    }
    if let Some(p) = passed(&tracker) {
        return Some(p);
    }
    let bytes_per_op = last
        .write
        .as_ref()
        .filter(|w| w.ops > 0)
        .map_or(4096.0, |w| w.bytes as f64 / w.ops as f64);
    let dt = s.criteria.round_s / 10.0;
    let (mut t, mut bytes) = (last.t_end_s, last.bytes_written_total as f64);
    let limit = bytes + MODEL_FILLS * span;
    while bytes < limit {
        let ops = (dt / y(t, bytes).max(1e-12)).round();
        let next = bytes + ops * bytes_per_op;
        if tracker.push_interval(t..t + dt, ops as u64, bytes as u64, next as u64) {
            return passed(&tracker);
        }
        (t, bytes) = (t + dt, next);
    }
    None
}

/// When SNIA's test passes: seconds and bytes since the run started.
pub(super) type Pass = (f64, u64);

#[cfg(test)]
mod tests {
    use super::*;
    use crate::workload::precondition::greedy_write_amplification;

    #[test]
    fn the_model_drive_settles_at_greedy_write_amplification() {
        let c = wa_curve(1.28, false, 1).unwrap();
        // Flat until the flash fills (1.28 span-writes less the reserve).
        assert!((c.at(1.0) - 1.0).abs() < 1e-9);
        let theory = greedy_write_amplification(1.28);
        assert!(
            (c.steady / theory - 1.0).abs() < 0.08,
            "model {} theory {theory}",
            c.steady
        );
    }

    /// `n` samples of 10 s at 1000 writes of 4 KiB per second.
    fn flat(n: u64) -> Vec<Sample> {
        (0..n)
            .map(|i| {
                serde_json::from_value(serde_json::json!({
                    "index": i, "t_start_s": i as f64 * 10.0, "t_end_s": (i + 1) as f64 * 10.0,
                    "ops": 10_000, "bytes": 40_960_000, "iops": 1000.0, "mb_per_s": 4.096,
                    "lat_us": null, "errors": 0, "bytes_written_total": (i + 1) * 40_960_000,
                    "write": {"ops": 10_000, "bytes": 40_960_000, "iops": 1000.0,
                              "mb_per_s": 4.096, "lat_us": null}
                }))
                .expect("a sample")
            })
            .collect()
    }

    #[test]
    fn snia_pass_follows_the_runs_rule_no_round_before_the_span_was_written_once() {
        // The span is 100 samples' bytes; 1 s per 1000 writes is b = 1 ms per unit of WA.
        let setting = Setting {
            span: 100 * 40_960_000,
            span_alpha: 1.28,
            unit: 1,
            straddle: 1.0,
            fast: None,
            rounds_start: 100 * 40_960_000,
            criteria: Criteria::default(),
            plan_s: None,
            plan_bytes: None,
        };
        let curve = wa_curve(1.28, false, 1).unwrap();
        // Measured past the span and steady since: the pass measured is the answer, five
        // rounds after the span was written (not five rounds after the start).
        let samples = flat(150);
        let (t, bytes) = snia_pass(&samples, &setting, |_, x| {
            1e-3 * curve.at(x / setting.span as f64)
        })
        .expect("a pass");
        assert!(
            bytes > setting.span && t >= 1000.0 + 300.0,
            "{t} s, {bytes} B"
        );
        assert!(
            t < 1500.0,
            "predicted after the last sample although it passed: {t}"
        );
        // Half the span measured: the pass predicted comes after the span was written.
        let (t, bytes) = snia_pass(&flat(50), &setting, |_, x| {
            1e-3 * curve.at(x / setting.span as f64)
        })
        .expect("a pass");
        assert!(bytes > setting.span && t >= 1300.0, "{t} s, {bytes} B");
    }

    #[test]
    fn a_drive_whose_time_per_write_ignores_the_models_wa_gets_no_prediction() {
        // A flat 1000 IOPS through 2.5 span-writes, past the model's cliff (1.26): the model's
        // WA rose 1 → 1.6 and the drive did not slow at all (a controller-bound drive, the
        // Vertex 2 at 512-byte alignment with its throttle off). 1/IOPS = b·WA would "predict"
        // 1000 × WA now / WA∞, far below the flat level it stays at.
        let setting = Setting {
            span: 100 * 40_960_000,
            span_alpha: 1.28,
            unit: 1,
            straddle: 1.0,
            fast: None,
            rounds_start: 100 * 40_960_000,
            criteria: Criteria::default(),
            plan_s: None,
            plan_bytes: None,
        };
        let curve = wa_curve(1.28, false, 1).unwrap();
        assert!(curve.at(2.45) > 1.3, "the model rose: {}", curve.at(2.45));
        assert_eq!(predict(&flat(250), &curve, &setting), None);
    }

    /// A fit whose free line is `free` with residual variance `var` over 10 bins from WA 1.1 to
    /// 1.5 (their mean 1.3, sum of squares about it 0.176).
    fn fit_with_free(free: Line, var: f64) -> Fit {
        let origin = Line { y1: 1.0, k: 1.0 };
        Fit {
            origin,
            rel_se: 0.0,
            anchored: None,
            free,
            free_var: var,
            mean_wa: 1.3,
            sxx: 0.176,
            n: 10.0,
            wa_now: 1.5,
        }
    }

    #[test]
    fn the_drives_own_decay_pulls_the_centre_only_where_the_bins_tell_it_apart() {
        let middle = Line { y1: 1.0, k: 1.0 };
        // The drive's decay, in the model's shape, says 3.0 at WA∞ 2.4 where the middle line
        // says 2.4 (dc-ssd-400g at 85 % 16 KiB: cost-benefit collection settles lower).
        let free = Line {
            y1: 0.8,
            k: 1.571_428_6,
        };
        assert!((free.at(2.4) - 3.0).abs() < 1e-6);
        // Bins on it within 0.1 %: many standard errors apart, the centre is the free line.
        let sharp = pulled(middle, &fit_with_free(free, 1e-6), 2.4);
        assert!((sharp.at(2.4) - 3.0).abs() < 1e-6, "{}", sharp.at(2.4));
        // Bins scattered by 20 %: the difference is noise, the middle line stands.
        let noisy = pulled(middle, &fit_with_free(free, 0.04), 2.4);
        assert!((noisy.at(2.4) - 2.4).abs() < 1e-9, "{}", noisy.at(2.4));
        // In between, part of the way.
        let se = fit_with_free(free, 0.004).free_se(2.4);
        let part = pulled(middle, &fit_with_free(free, 0.004), 2.4).at(2.4);
        let share = ((0.6 / se - PULL_FROM) / PULL_OVER).clamp(0.0, 1.0);
        assert!(share > 0.0 && share < 1.0, "{share}");
        assert!((part - (2.4 + share * 0.6)).abs() < 1e-6, "{part}");
    }

    #[test]
    fn a_write_that_starts_inside_a_page_rewrites_the_pages_it_touches() {
        assert_eq!(straddle(4096, 4096), 1.0);
        assert_eq!(straddle(65536, 65536), 1.0);
        // 4 KiB at 512 bytes: 1 page at 1 offset in 8, 2 at the other 7.
        assert_eq!(straddle(4096, 512), 1.875);
        // 64 KiB at 512 bytes: 16 pages, or 17.
        assert_eq!(straddle(65536, 512), (16.0 + 7.0 * 17.0) / 8.0 / 16.0);
        // The curve runs that much faster: flat until the flash is full, 1.875 times sooner.
        let c = wa_curve(1.28, false, 1).unwrap();
        let fast = c.clone().straddling(1.875);
        assert_eq!(fast.at(0.6), c.at(0.6 * 1.875));
    }

    #[test]
    fn after_the_fast_plan_the_model_starts_in_steady_state() {
        let c = wa_curve(1.28, true, 1).unwrap();
        let first = c.at(1.28 + 0.1);
        assert!(
            (first / c.steady - 1.0).abs() < 0.06,
            "{first} vs {}",
            c.steady
        );
    }

    #[test]
    fn a_prediction_is_made_after_its_last_sample_with_its_pass() {
        let setting = Setting {
            span: 1 << 30,
            span_alpha: 1.5,
            unit: 1,
            straddle: 1.0,
            fast: None,
            rounds_start: 1 << 30,
            criteria: Criteria::default(),
            plan_s: None,
            plan_bytes: None,
        };
        let samples = flat(3);
        let level = Level {
            iops: 1000.0,
            low: 900.0,
            high: 1100.0,
            half_width_pct: 10.0,
        };
        let p = prediction(
            Basis::PlanEnd,
            level,
            2.0,
            &setting,
            Some((90.0, 7)),
            &samples[2],
        );
        assert_eq!(
            (
                p.made_at_s,
                p.made_at_bytes,
                p.steady_at_s,
                p.steady_at_bytes
            ),
            (30.0, 3 * 40_960_000, Some(90.0), Some(7))
        );
        assert_eq!(
            (p.span_alpha, p.write_amplification, p.basis),
            (1.5, 2.0, Basis::PlanEnd)
        );
        assert_eq!(
            (p.low, p.high, p.half_width_pct, p.rise_us_per_h),
            (900.0, 1100.0, 10.0, None)
        );
    }
}
