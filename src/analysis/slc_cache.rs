//! The figures of an SLC-cache experiment (`experiment slc-cache`), read from its samples only
//! (never from a simulated drive's preset): the cache size, the write speeds in the cache,
//! after it and while the drive folds, and how much cache each idle gap gave back.
//!
//! The rule, on the whole-drive write (`fill`), each sample's speed its bytes over its time
//! (a last sample shorter than half the others is left out). Where writes complete in lumps
//! longer than a sample (a scaled simulated drive completes 256 I/Os at once: at 4 TB one
//! sample in two holds none), told by a quarter or more of the samples holding no bytes,
//! consecutive samples are first taken together until each holds two of the smallest lump a
//! sample holds, so that nine of them hold 18 lumps and one lump moves their speed under 6 %;
//! other writes keep their samples as they are:
//! 1. each sample's speed is smoothed to the rate of the nine samples around it (their bytes
//!    over their time: per-second jitter averages out, a lone slow or fast sample moves it by a
//!    ninth);
//! 2. the top speed is the largest smoothed speed, the sustained level the median smoothed speed
//!    of the samples in the second half of the bytes written; a top under 1.15 × the sustained
//!    level is no cache (one speed throughout);
//! 3. the threshold is half-way between them; the speed drops for good at the sample after the
//!    last one whose smoothed speed reaches it. The cache is the bytes written before the nine
//!    samples around that drop, plus their fast part: their bytes shared between the speed of
//!    the nine samples before them and that of the nine after them (the post-cache speed when
//!    none follow), so that both add up (the edge's place within a ramp or a noisy second, from
//!    the bytes; a drive that first slows to a speed between the two, as sata-tlc-250g does for
//!    5 GB after its 12 GB, keeps that step out of the cache);
//! 4. in-cache speed: the median smoothed speed of the samples up to the drop; post-cache
//!    speed: bytes over time of the samples after the drop, a folding phase apart;
//! 5. folding: the longest run (in bytes) of post-cache samples whose smoothed speed is under
//!    0.8 × the post-cache median, less edge samples not under it themselves, when it holds at
//!    least 2 % of the post-cache bytes and three samples: its bytes over its time.
//!
//! Each short write after an idle gap (`probe-…`) regained the bytes it wrote fast, judged
//! against its own top (a cache that comes back on a full drive may be slower than the empty
//! drive's): its threshold is half-way between its largest smoothed speed and the post-cache
//! speed (a top under 1.15 × the post-cache speed regained nothing); its speed drops at its first
//! sample whose smoothed speed is under it, and its fast bytes are counted as in rule 3 (the
//! slow speed being that of its samples after the window). The refill rate is the median of regained bytes per idle minute over the gaps that did
//! not refill the cache (under 90 % of the most any gap regained); when every gap did, it is at
//! least the most regained over the shortest gap. The cache "refills in" the shortest gap that
//! regained 90 % of the most.

use serde::Serialize;

use crate::results::settings::Settings;
use crate::results::{Experiment, PhaseKind};
use crate::stats::Sample;

/// The kind's name in experiment.json.
pub const NAME: &str = "slc-cache";
/// The whole-drive write's phase name.
pub const FILL: &str = "fill";
/// Samples the smoothing spans (and the fewest a write needs to be judged).
const WINDOW: usize = 9;
/// A top speed under this times the sustained level is no cache.
const NO_CACHE_RATIO: f64 = 1.15;
/// A post-cache run this much under the post-cache median is a folding phase.
const FOLD_RATIO: f64 = 0.8;
/// A gap that regained this share of the most any gap regained refilled the cache.
const REFILLED: f64 = 0.9;
/// The fewest of the smallest lump of bytes a sample holds that each step holds.
const LUMPS_PER_STEP: f64 = 2.0;
/// The share of samples holding no bytes from which a write's completions come in lumps.
const LUMPY_EMPTY_SHARE: f64 = 0.25;

/// One sample of a write: where it ended in bytes written and its speed.
#[derive(Clone, Copy, Debug, PartialEq, Serialize)]
pub struct SpeedPoint {
    /// Bytes written by the sample's end, from the write's start.
    pub bytes: f64,
    pub mb_per_s: f64,
    /// The rate of the nine samples around it (rule 1).
    pub smoothed_mb_per_s: f64,
}

/// The slow phase near the end of the write where the drive folds its cache while it writes.
#[derive(Clone, Copy, Debug, PartialEq, Serialize)]
pub struct Folding {
    pub start_bytes: f64,
    pub end_bytes: f64,
    pub mb_per_s: f64,
}

/// What one idle gap gave back.
#[derive(Clone, Copy, Debug, PartialEq, Serialize)]
pub struct Refill {
    pub idle_s: f64,
    /// Bytes the short write after the gap wrote at in-cache speed.
    pub regained_bytes: f64,
    /// The short write never slowed down: the cache that came back may be larger.
    pub at_least: bool,
    /// The short write's bytes over its time.
    pub mb_per_s: f64,
}

/// The cache the whole-drive write showed.
#[derive(Clone, Copy, Debug, PartialEq, Serialize)]
pub struct Cache {
    pub bytes: f64,
    pub in_cache_mb_per_s: f64,
    /// None when the write never got past the cache.
    pub post_cache_mb_per_s: Option<f64>,
    pub folding: Option<Folding>,
    /// The speed that separates in-cache from post-cache samples.
    pub threshold_mb_per_s: f64,
}

/// The figures of an SLC-cache experiment.
#[derive(Clone, Debug, Default, PartialEq, Serialize)]
pub struct SlcCacheFigures {
    /// Purged before the write (false: the drive as it was); None for a record without it.
    pub purged: Option<bool>,
    /// The cache, None when the write showed none (or too few samples to judge).
    pub cache: Option<Cache>,
    /// The whole write's bytes over its time.
    pub mean_mb_per_s: f64,
    pub refills: Vec<Refill>,
    /// Bytes regained per idle minute; a lower bound when `refill_rate_at_least`.
    pub refill_bytes_per_min: Option<f64>,
    pub refill_rate_at_least: bool,
    /// The shortest idle gap after which the cache was back (90 % of the most regained).
    pub refilled_in_s: Option<f64>,
    /// The one-line answer.
    pub answer: String,
    /// The fill's samples as drawn (not in `--json`: the chart's record has them).
    #[serde(skip)]
    pub points: Vec<SpeedPoint>,
    /// True when each point is consecutive samples taken together (writes completing in lumps),
    /// not one sample.
    #[serde(skip)]
    pub points_taken_together: bool,
}

/// A sample reduced to what the rule needs.
#[derive(Clone, Copy, Debug)]
struct Step {
    start: f64,
    end: f64,
    seconds: f64,
    bytes: f64,
}

impl Step {
    fn mb_per_s(&self) -> f64 {
        self.bytes / self.seconds / 1e6
    }
}

/// The samples' steps, taken together where writes complete in lumps ([`in_lumps`]).
fn steps(samples: &[Sample]) -> Vec<Step> {
    in_lumps(sample_steps(samples)).0
}

/// A step per sample, in bytes from the write's start; samples with no time, and a last one
/// shorter than half the median sample, are left out.
fn sample_steps(samples: &[Sample]) -> Vec<Step> {
    let mut out: Vec<Step> = samples
        .iter()
        .filter_map(|s| {
            let seconds = s.t_end_s - s.t_start_s;
            let bytes = s.write.as_ref().map_or(s.bytes, |w| w.bytes) as f64;
            let end = s.bytes_written_total as f64;
            (seconds.is_finite() && seconds > 0.0).then_some(Step {
                start: (end - bytes).max(0.0),
                end,
                seconds,
                bytes,
            })
        })
        .collect();
    let mut lengths: Vec<f64> = out.iter().map(|s| s.seconds).collect();
    let typical = median(&mut lengths).unwrap_or(0.0);
    if out.len() > 1 && out.last().is_some_and(|s| s.seconds < typical / 2.0) {
        out.pop();
    }
    if let Some(origin) = out.first().map(|s| s.start) {
        for s in &mut out {
            s.start -= origin;
            s.end -= origin;
        }
    }
    out
}

/// `steps` taken together, in order, until each holds [`LUMPS_PER_STEP`] times the fewest
/// bytes any step but the last holds (a remainder joins the step before it), when at least
/// [`LUMPY_EMPTY_SHARE`] of them hold none; else `steps` as they are. True when taken
/// together.
fn in_lumps(steps: Vec<Step>) -> (Vec<Step>, bool) {
    let body = &steps[..steps.len().saturating_sub(1)];
    let empty = body.iter().filter(|s| s.bytes <= 0.0).count();
    if (empty as f64) < LUMPY_EMPTY_SHARE * body.len() as f64 {
        return (steps, false);
    }
    let lump = body
        .iter()
        .map(|s| s.bytes)
        .filter(|b| *b > 0.0)
        .fold(f64::INFINITY, f64::min);
    if !lump.is_finite() {
        return (steps, false);
    }
    let mut out: Vec<Step> = Vec::with_capacity(steps.len());
    let mut open: Option<Step> = None;
    for s in steps {
        let step = match open.take() {
            Some(o) => Step {
                start: o.start,
                end: s.end,
                seconds: o.seconds + s.seconds,
                bytes: o.bytes + s.bytes,
            },
            None => s,
        };
        if step.bytes >= LUMPS_PER_STEP * lump {
            out.push(step);
        } else {
            open = Some(step);
        }
    }
    if let Some(rest) = open {
        match out.last_mut() {
            Some(last) => {
                last.end = rest.end;
                last.seconds += rest.seconds;
                last.bytes += rest.bytes;
            }
            None => out.push(rest),
        }
    }
    (out, true)
}

/// The median of `v` (the mean of the middle two of an even count); None when empty.
fn median(v: &mut [f64]) -> Option<f64> {
    v.sort_by(f64::total_cmp);
    let n = v.len();
    (n > 0).then(|| {
        if n % 2 == 1 {
            v[n / 2]
        } else {
            (v[n / 2 - 1] + v[n / 2]) / 2.0
        }
    })
}

/// Each step's speed smoothed to the rate of the [`WINDOW`] steps around it (fewer at the
/// ends).
fn smoothed(steps: &[Step]) -> Vec<f64> {
    let half = WINDOW / 2;
    (0..steps.len())
        .map(|i| {
            let lo = i.saturating_sub(half);
            let hi = (i + half + 1).min(steps.len());
            speed(&steps[lo..hi]).unwrap_or(0.0)
        })
        .collect()
}

/// Bytes over time of `steps`, MB/s; None without time.
fn speed(steps: &[Step]) -> Option<f64> {
    let seconds: f64 = steps.iter().map(|s| s.seconds).sum();
    let bytes: f64 = steps.iter().map(|s| s.bytes).sum();
    (seconds > 0.0).then(|| bytes / seconds / 1e6)
}

/// The bytes of `bytes` over `seconds` written at `fast` MB/s when the rest went at `slow`: the
/// time shared so that both add up to the bytes.
fn fast_part(bytes: f64, seconds: f64, fast: f64, slow: f64) -> f64 {
    if fast <= slow || seconds <= 0.0 {
        return 0.0;
    }
    let t = ((bytes - slow * 1e6 * seconds) / ((fast - slow) * 1e6)).clamp(0.0, seconds);
    (fast * 1e6 * t).min(bytes)
}

/// The bytes `steps` wrote fast when their speed fell to `slow` at step `c` (the first slow
/// one by the smoothed rule): the steps before the window around `c` count whole, and the
/// window's bytes are shared between the speed of the steps just before it (`fallback` when
/// there are none) and `slow` (rule 3).
fn fast_bytes(steps: &[Step], c: usize, slow: f64, fallback: f64) -> f64 {
    let half = WINDOW / 2;
    let a = c.saturating_sub(half).min(steps.len());
    let b = (c + half + 1).min(steps.len());
    let fast = speed(&steps[a.saturating_sub(WINDOW)..a]).unwrap_or(fallback);
    let before = a.checked_sub(1).map_or(0.0, |i| steps[i].end);
    let window = &steps[a..b];
    let bytes: f64 = window.iter().map(|s| s.bytes).sum();
    let seconds: f64 = window.iter().map(|s| s.seconds).sum();
    before + fast_part(bytes, seconds, fast, slow)
}

/// The cache of the whole-drive write `fill` (rules 1-5 of the module's doc).
fn cache_of(fill: &[Step]) -> Option<Cache> {
    if fill.len() < WINDOW {
        return None;
    }
    let smooth = smoothed(fill);
    let top = smooth.iter().copied().fold(0.0, f64::max);
    let half = fill.last().map_or(0.0, |s| s.end) / 2.0;
    let mut late: Vec<f64> = fill
        .iter()
        .zip(&smooth)
        .filter(|(s, _)| s.end > half)
        .map(|(_, v)| *v)
        .collect();
    let sustained = median(&mut late)?;
    if !(top.is_finite() && top >= NO_CACHE_RATIO * sustained && top > 0.0) {
        return None;
    }
    let threshold = (top + sustained) / 2.0;
    let last_fast = smooth.iter().rposition(|v| *v >= threshold)?;
    let in_cache = median(&mut smooth[..=last_fast].to_vec())?;
    let post = fill.get(last_fast + 2..).unwrap_or(&[]);
    let post_smooth = smooth.get(last_fast + 2..).unwrap_or(&[]);
    let folding = folding_of(post, post_smooth);
    let outside: Vec<Step> = post
        .iter()
        .filter(|s| folding.is_none_or(|f| s.end <= f.start_bytes || s.start >= f.end_bytes))
        .copied()
        .collect();
    let post_cache = speed(&outside).or(folding.map(|f| f.mb_per_s));
    // The speed just after the edge's window (the post-cache speed when there is none): a
    // drive may first slow to a step between the two, which the split must not count as fast.
    let after = fill.get(last_fast + WINDOW / 2 + 2..).unwrap_or(&[]);
    let slow = speed(&after[..after.len().min(WINDOW)])
        .or(post_cache)
        .unwrap_or(sustained);
    let bytes = fast_bytes(fill, last_fast + 1, slow, in_cache);
    Some(Cache {
        bytes,
        in_cache_mb_per_s: in_cache,
        post_cache_mb_per_s: post_cache,
        folding,
        threshold_mb_per_s: threshold,
    })
}

/// The folding phase among the post-cache steps (rule 5), if they show one.
fn folding_of(post: &[Step], smooth: &[f64]) -> Option<Folding> {
    let level = median(&mut smooth.to_vec())?;
    let total: f64 = post.iter().map(|s| s.bytes).sum();
    let mut best: Option<(usize, usize, f64)> = None;
    let mut start = None;
    for i in 0..=post.len() {
        let slow = smooth.get(i).is_some_and(|v| *v < FOLD_RATIO * level);
        match (slow, start) {
            (true, None) => start = Some(i),
            (false, Some(a)) => {
                let bytes: f64 = post[a..i].iter().map(|s| s.bytes).sum();
                if best.is_none_or(|(_, _, b)| bytes > b) {
                    best = Some((a, i, bytes));
                }
                start = None;
            }
            _ => {}
        }
    }
    let (mut a, mut b, _) = best?;
    // The smoothing reaches a few samples past the phase's edges: edge samples that are not
    // slow themselves are not folding.
    let slow = |s: &Step| s.mb_per_s() < FOLD_RATIO * level;
    while a < b && !slow(&post[a]) {
        a += 1;
    }
    while b > a && !slow(&post[b - 1]) {
        b -= 1;
    }
    let bytes: f64 = post[a..b].iter().map(|s| s.bytes).sum();
    if b - a < 3 || bytes < 0.02 * total {
        return None;
    }
    Some(Folding {
        start_bytes: post[a].start,
        end_bytes: post[b - 1].end,
        mb_per_s: speed(&post[a..b])?,
    })
}

/// What the short write `probe` after `idle_s` of idle regained, judged against its own top
/// speed and `cache`'s post-cache speed.
fn refill_of(idle_s: f64, probe: &[Step], cache: &Cache) -> Option<Refill> {
    let mb_per_s = speed(probe)?;
    let smooth = smoothed(probe);
    let top = smooth.iter().copied().fold(0.0, f64::max);
    let slow = cache
        .post_cache_mb_per_s
        .unwrap_or(cache.threshold_mb_per_s);
    let (regained_bytes, at_least) = if top < NO_CACHE_RATIO * slow {
        (0.0, false)
    } else {
        let threshold = (top + slow) / 2.0;
        match smooth.iter().position(|v| *v < threshold) {
            Some(c) => {
                let tail = probe.get(c + WINDOW / 2 + 1..).unwrap_or(&[]);
                let after = speed(tail).unwrap_or(slow);
                (fast_bytes(probe, c, after, top), false)
            }
            None => (probe.last().map_or(0.0, |s| s.end), true),
        }
    };
    Some(Refill {
        idle_s,
        regained_bytes,
        at_least,
        mb_per_s,
    })
}

impl SlcCacheFigures {
    /// The figures of `exp`: its `fill` phase and each idle phase with the write after it.
    pub fn of(exp: &Experiment) -> SlcCacheFigures {
        let purged = match &exp.record.settings {
            Settings::SlcCache(s) => Some(s.purged),
            _ => None,
        };
        let samples = |i: usize| {
            exp.phases
                .get(i)
                .and_then(|p| p.run.as_ref())
                .map_or(&[][..], |r| &r.samples[..])
        };
        let fill = exp
            .phases
            .iter()
            .position(|p| p.record.phase.name == FILL)
            .map_or(&[][..], samples);
        let probes: Vec<(f64, &[Sample])> = exp
            .phases
            .iter()
            .enumerate()
            .filter_map(|(i, p)| match &p.record.phase.kind {
                PhaseKind::Idle(idle) if i > 0 => {
                    let after = samples(i + 1);
                    (!after.is_empty()).then_some((idle.seconds, after))
                }
                _ => None,
            })
            .collect();
        SlcCacheFigures {
            purged,
            ..SlcCacheFigures::from_samples(fill, &probes)
        }
    }

    /// The figures of a whole-drive write's samples and of each short write after an idle gap
    /// (seconds of idle, its samples).
    pub fn from_samples(fill: &[Sample], probes: &[(f64, &[Sample])]) -> SlcCacheFigures {
        let (fill, points_taken_together) = in_lumps(sample_steps(fill));
        let cache = cache_of(&fill);
        let refills: Vec<Refill> = cache.as_ref().map_or_else(Vec::new, |c| {
            probes
                .iter()
                .filter(|(idle, _)| idle.is_finite() && *idle > 0.0)
                .filter_map(|(idle, p)| refill_of(*idle, &steps(p), c))
                .collect()
        });
        let most = refills.iter().map(|r| r.regained_bytes).fold(0.0, f64::max);
        let full = |r: &Refill| r.at_least || r.regained_bytes >= REFILLED * most;
        let mut rates: Vec<f64> = refills
            .iter()
            .filter(|r| !full(r))
            .map(|r| r.regained_bytes / (r.idle_s / 60.0))
            .collect();
        let (refill_bytes_per_min, refill_rate_at_least) = match median(&mut rates) {
            Some(rate) => (Some(rate), false),
            None => (
                refills
                    .iter()
                    .map(|r| r.idle_s)
                    .min_by(f64::total_cmp)
                    .filter(|_| most > 0.0)
                    .map(|idle| most / (idle / 60.0)),
                true,
            ),
        };
        let refilled_in_s = refills
            .iter()
            .filter(|r| most > 0.0 && full(r))
            .map(|r| r.idle_s)
            .min_by(f64::total_cmp);
        let mut figures = SlcCacheFigures {
            purged: None,
            cache,
            mean_mb_per_s: speed(&fill).unwrap_or(0.0),
            refills,
            refill_bytes_per_min,
            refill_rate_at_least,
            refilled_in_s,
            answer: String::new(),
            points: fill
                .iter()
                .zip(smoothed(&fill))
                .map(|(s, smoothed_mb_per_s)| SpeedPoint {
                    bytes: s.end,
                    mb_per_s: s.mb_per_s(),
                    smoothed_mb_per_s,
                })
                .collect(),
            points_taken_together,
        };
        figures.answer = figures.answer_line(fill.len());
        figures
    }

    /// The one-line answer: the sustained speed after the cache and how fast it comes back,
    /// or that the write showed no cache.
    fn answer_line(&self, samples: usize) -> String {
        let gb = |b: f64| format!("{:.1} GB", b / 1e9);
        let Some(c) = &self.cache else {
            if samples < WINDOW {
                return format!("too few samples to judge ({samples}, at least {WINDOW})");
            }
            return format!(
                "no SLC cache seen: {:.0} MB/s throughout",
                self.mean_mb_per_s
            );
        };
        let mut out = match c.post_cache_mb_per_s {
            Some(post) => format!("sustained {post:.0} MB/s after {} of cache", gb(c.bytes)),
            None => format!(
                "{:.0} MB/s for the whole {} written: the cache was never full",
                c.in_cache_mb_per_s,
                gb(c.bytes)
            ),
        };
        let most = self
            .refills
            .iter()
            .map(|r| r.regained_bytes)
            .fold(0.0, f64::max);
        match self.refilled_in_s {
            Some(s) => out.push_str(&format!(
                "; idle gives {} back in {}",
                gb(most),
                crate::units::format_duration(std::time::Duration::from_secs_f64(s))
            )),
            None if !self.refills.is_empty() => out.push_str("; no cache came back at idle"),
            None => {}
        }
        out
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::stats::IntervalStats;

    /// Samples of `dt` seconds at the given MB/s, one after the other.
    fn write(speeds: &[f64], dt: f64) -> Vec<Sample> {
        let mut total = 0u64;
        speeds
            .iter()
            .enumerate()
            .map(|(i, v)| {
                let bytes = (v * 1e6 * dt) as u64;
                let mut stats = IntervalStats::new();
                let ops = (bytes >> 20).max(1);
                stats.write.record_n(ops, bytes, 1000);
                let s = Sample::new(i as u64, i as f64 * dt, (i + 1) as f64 * dt, &stats, total);
                total += bytes;
                s
            })
            .collect()
    }

    /// 20 s at 2000 MB/s with two slow seconds, then 200 s at 500 with lone spikes, then 30 s
    /// of folding at 200: 40 GB of cache, 2000 / 500 / 200 MB/s.
    #[test]
    fn a_cache_a_sustained_level_and_a_folding_phase_are_found_despite_lone_outliers() {
        let mut v = vec![2000.0; 20];
        v[5] = 900.0;
        v[12] = 1000.0;
        v.extend(std::iter::repeat_n(500.0, 200));
        v[60] = 1900.0;
        v[150] = 100.0;
        v.extend(std::iter::repeat_n(200.0, 30));
        let f = SlcCacheFigures::from_samples(&write(&v, 1.0), &[]);
        let c = f.cache.unwrap();
        // Within 0.5 %: the edge's share of the window is judged against the nine samples
        // before it, which hold the slow second at 12 s.
        let cache_bytes = 18.0 * 2000e6 + 900e6 + 1000e6;
        assert!((c.bytes / cache_bytes - 1.0).abs() < 0.005, "{}", c.bytes);
        assert!(
            (c.post_cache_mb_per_s.unwrap() - 500.0).abs() < 10.0,
            "{c:?}"
        );
        let fold = c.folding.unwrap();
        assert!((fold.mb_per_s - 200.0).abs() < 1.0, "{fold:?}");
        assert!(f.answer.starts_with("sustained 50"), "{}", f.answer);
    }

    /// One speed throughout is no cache, said so with the mean.
    #[test]
    fn one_speed_throughout_is_no_cache() {
        let f = SlcCacheFigures::from_samples(&write(&[1870.0; 50], 1.0), &[]);
        assert_eq!(f.cache, None);
        assert_eq!(f.answer, "no SLC cache seen: 1870 MB/s throughout");
    }

    /// Each probe regains what it wrote fast; the rate is taken from the gaps that did not
    /// fill the cache, and the refill time is the first gap that did.
    #[test]
    fn refills_count_the_fast_bytes_after_each_gap() {
        let mut v = vec![1000.0; 10];
        v.extend(std::iter::repeat_n(250.0, 100));
        let fill = write(&v, 1.0);
        let probe = |fast: usize| {
            let mut p = vec![1000.0; fast];
            p.extend(std::iter::repeat_n(250.0, 10));
            write(&p, 1.0)
        };
        let (a, b, c) = (probe(1), probe(4), probe(4));
        let f = SlcCacheFigures::from_samples(&fill, &[(60.0, &a), (120.0, &b), (240.0, &c)]);
        let r: Vec<f64> = f.refills.iter().map(|r| r.regained_bytes).collect();
        assert!(
            (r[0] - 1e9).abs() < 1e6 && (r[1] - 4e9).abs() < 1e6,
            "{r:?}"
        );
        assert_eq!(f.refilled_in_s, Some(120.0));
        assert!((f.refill_bytes_per_min.unwrap() - 1e9).abs() < 1e6);
        assert!(!f.refill_rate_at_least);
    }

    /// Crafted samples (no time, negative or NaN times, totals going backwards, nothing at
    /// all) give figures, never a panic.
    #[test]
    fn crafted_samples_cannot_make_it_panic() {
        let mut odd = write(&[100.0, 5000.0, 0.0, 300.0, 300.0, 300.0, 1e12], 1.0);
        odd[1].t_end_s = f64::NAN;
        odd[2].t_end_s = odd[2].t_start_s;
        odd[3].bytes_written_total = 0;
        odd[4].t_start_s = 1e300;
        for fill in [&odd[..], &[], &odd[..2]] {
            let f = SlcCacheFigures::from_samples(fill, &[(f64::NAN, &odd), (5.0, &[])]);
            assert!(!f.answer.is_empty());
        }
    }
}
