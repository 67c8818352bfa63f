//! The latency distribution of a run, from the histogram it saved (latency.json): exact
//! percentiles (the same ones run.json's summary gives), the share of I/Os in each
//! log-spaced latency bin, and the exceedance curve — the share of I/Os slower than each
//! latency, which on a log axis shows the "nines" (1 %, 0.1 %, 0.01 % …).

use crate::results::latency::Histogram;
use crate::results::{Experiment, LatencyRecord, PhaseKind, Run};

/// The percentiles every distribution table shows, with their names.
pub const PERCENTILES: [(&str, f64); 5] = [
    ("p50", 0.50),
    ("p90", 0.90),
    ("p99", 0.99),
    ("p99.9", 0.999),
    ("p99.99", 0.9999),
];

/// Bins per decade of latency in [`Distribution::bins`].
pub const BINS_PER_DECADE: u32 = 10;

/// One bin of the histogram chart: latencies in (lo, hi] µs and their share of all I/Os.
#[derive(Clone, Copy, Debug, PartialEq, serde::Serialize)]
pub struct Bin {
    pub lo_us: f64,
    pub hi_us: f64,
    /// Percent of the I/Os.
    pub pct: f64,
}

/// One direction's (or all I/Os') latency distribution.
#[derive(Clone, Debug, PartialEq)]
pub struct Distribution {
    /// I/Os counted.
    pub count: u64,
    /// The exact largest latency, µs.
    pub max_us: f64,
    /// `(top µs, I/Os)` of every non-empty histogram bucket, rising.
    buckets: Vec<(f64, u64)>,
}

impl Distribution {
    /// The distribution of a saved histogram; None when it counted no I/O.
    pub fn of(h: &Histogram) -> Option<Distribution> {
        let count: u64 = h.buckets.iter().map(|b| b[1]).sum();
        (count > 0).then(|| Distribution {
            count,
            max_us: h.max_ns as f64 / 1000.0,
            buckets: h
                .buckets
                .iter()
                .map(|b| (b[0] as f64 / 1000.0, b[1]))
                .collect(),
        })
    }

    /// The distributions of all I/Os, reads and writes of a run directory; None when the run
    /// saved no histogram (a resumed run, or one written before latency.json existed).
    pub fn of_run(run: &Run) -> anyhow::Result<Option<Directions>> {
        Ok(LatencyRecord::load(&run.dir)?.map(|r| Directions {
            all: r.all.as_ref().and_then(Distribution::of),
            read: r.read.as_ref().and_then(Distribution::of),
            write: r.write.as_ref().and_then(Distribution::of),
        }))
    }

    /// The distribution of the I/Os of several histograms taken together (their buckets added,
    /// the largest maximum); None for none that counted an I/O.
    pub fn merged(all: &[Distribution]) -> Option<Distribution> {
        let mut buckets: Vec<(f64, u64)> = all.iter().flat_map(|d| d.buckets.clone()).collect();
        buckets.sort_by(|a, b| a.0.total_cmp(&b.0));
        buckets.dedup_by(|later, kept| {
            let same = later.0 == kept.0;
            if same {
                kept.1 += later.1;
            }
            same
        });
        let count: u64 = buckets.iter().map(|b| b.1).sum();
        (count > 0).then(|| Distribution {
            count,
            max_us: all.iter().map(|d| d.max_us).fold(0.0, f64::max),
            buckets,
        })
    }

    /// The latency (µs) at or below which a fraction `q` of the I/Os completed, read from the
    /// histogram as run.json's summary reads it (the bucket's top, never above the maximum).
    pub fn quantile_us(&self, q: f64) -> f64 {
        let rank = ((q.min(1.0) * self.count as f64).ceil() as u64).max(1);
        let mut seen = 0;
        for &(top, n) in &self.buckets {
            seen += n;
            if seen >= rank {
                return top.min(self.max_us);
            }
        }
        self.max_us
    }

    /// `(latency µs, share of I/Os slower than it)`, exactly as the histogram holds it: first
    /// `(top of the fastest bucket, 1)` — no I/O is faster than that bucket, within its width —
    /// then one point per non-empty bucket whose share is above zero, at the bucket's top with
    /// the share of I/Os in the buckets above it. Shares are fractions (0–1) and only fall; the
    /// curve crosses 1 − q at [`Distribution::quantile_us`]`(q)`, the bucket the table's
    /// percentile comes from. No point is merged or moved (a few thousand points for a run
    /// whose latencies span three decades at the histogram's 3 significant figures).
    pub fn exceedance(&self) -> Vec<(f64, f64)> {
        let Some(&(first, _)) = self.buckets.first() else {
            return Vec::new();
        };
        let total = self.count as f64;
        let mut points = vec![(first, 1.0)];
        let mut seen = 0u64;
        for &(top, n) in &self.buckets {
            seen += n;
            if seen >= self.count {
                break;
            }
            points.push((top, (self.count - seen) as f64 / total));
        }
        points
    }

    /// The share of I/Os in each bin of [`BINS_PER_DECADE`] per decade, from the bin of the
    /// fastest I/O to that of the slowest (empty bins between are kept at zero).
    pub fn bins(&self) -> Vec<Bin> {
        let per = BINS_PER_DECADE as f64;
        let index = |us: f64| (us.max(1e-3).log10() * per).ceil() as i64;
        let (Some(lo), Some(hi)) = (self.buckets.first(), self.buckets.last()) else {
            return Vec::new();
        };
        let (lo, hi) = (index(lo.0), index(hi.0.min(self.max_us).max(lo.0)));
        let mut counts = vec![0u64; (hi - lo + 1) as usize];
        for &(top, n) in &self.buckets {
            let i = (index(top.min(self.max_us)) - lo).clamp(0, hi - lo) as usize;
            counts[i] += n;
        }
        counts
            .iter()
            .enumerate()
            .map(|(i, &n)| {
                let k = (lo + i as i64) as f64;
                Bin {
                    lo_us: 10f64.powf((k - 1.0) / per),
                    hi_us: 10f64.powf(k / per),
                    pct: 100.0 * n as f64 / self.count as f64,
                }
            })
            .collect()
    }
}

/// A run's distributions: all I/Os, and reads and writes apart (None for a direction without
/// I/O).
#[derive(Clone, Debug, PartialEq)]
pub struct Directions {
    pub all: Option<Distribution>,
    pub read: Option<Distribution>,
    pub write: Option<Distribution>,
}

impl Directions {
    /// The rows a report shows: all I/Os, then reads and writes when the run did both.
    pub fn rows(&self) -> Vec<(&'static str, &Distribution)> {
        let mixed = self.read.is_some() && self.write.is_some();
        let mut rows: Vec<(&'static str, &Distribution)> = Vec::new();
        if let Some(all) = &self.all {
            rows.push(("all I/Os", all));
        }
        if mixed {
            rows.extend(self.read.as_ref().map(|d| ("reads", d)));
            rows.extend(self.write.as_ref().map(|d| ("writes", d)));
        }
        rows
    }
}

/// At most this many phases are overlaid in one panel of a distribution chart (the palette's
/// size).
pub const MAX_PHASES: usize = 7;

/// At most this many panels side by side in one distribution chart.
pub const MAX_PANELS: usize = 2;

/// The all-I/O distributions of every phase of an experiment that saved a histogram, named by
/// phase (the report's table: all of them).
pub fn of_phases(exp: &Experiment) -> anyhow::Result<Vec<(String, Distribution)>> {
    Ok(measured_phases(exp)?
        .into_iter()
        .map(|(name, d, _)| (name, d))
        .collect())
}

/// Those distributions, each with whether its phase is a measured state.
fn measured_phases(exp: &Experiment) -> anyhow::Result<Vec<(String, Distribution, bool)>> {
    let mut all = Vec::new();
    for phase in &exp.phases {
        let Some(run) = &phase.run else { continue };
        let Some(d) = Distribution::of_run(run)?.and_then(|d| d.all) else {
            continue;
        };
        let measured = matches!(phase.record.phase.kind, PhaseKind::Measure(_));
        all.push((phase.record.phase.name.clone(), d, measured));
    }
    Ok(all)
}

/// The phases one distribution chart draws, and the names of those it leaves out (which the
/// chart names, so that none goes missing silently): every phase when there are at most
/// [`MAX_PHASES`]; else the measured states alone, up to [`MAX_PHASES`] × [`MAX_PANELS`].
pub struct ChartPhases {
    pub drawn: Vec<(String, Distribution)>,
    pub left_out: Vec<String>,
}

impl ChartPhases {
    /// The chart's phases of `exp`.
    pub fn of(exp: &Experiment) -> anyhow::Result<ChartPhases> {
        Ok(Self::choose(measured_phases(exp)?))
    }

    fn choose(all: Vec<(String, Distribution, bool)>) -> ChartPhases {
        let mut drawn = Vec::new();
        let mut left_out = Vec::new();
        let many = all.len() > MAX_PHASES;
        for (name, d, measured) in all {
            if (many && !measured) || drawn.len() == MAX_PHASES * MAX_PANELS {
                left_out.push(name);
            } else {
                drawn.push((name, d));
            }
        }
        ChartPhases { drawn, left_out }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::stats::{IntervalStats, LatencySummary};

    /// 980 I/Os at 100 µs, 19 at 10 ms and one at 50 ms.
    fn crafted() -> (IntervalStats, Distribution) {
        let mut total = IntervalStats::new();
        total.write.record_n(980, 980 * 4096, 100_000);
        total.write.record_n(19, 19 * 4096, 10_000_000);
        total.write.record_n(1, 4096, 50_000_000);
        let record = LatencyRecord::of(&total);
        let d = Distribution::of(record.all.as_ref().unwrap()).unwrap();
        (total, d)
    }

    /// Histograms merged give the distribution of all their I/Os recorded together.
    #[test]
    fn merged_histograms_are_the_histogram_of_all_their_ios() {
        let (_, together) = crafted();
        let (mut fast, mut slow) = (IntervalStats::new(), IntervalStats::new());
        fast.write.record_n(980, 980 * 4096, 100_000);
        slow.write.record_n(19, 19 * 4096, 10_000_000);
        slow.write.record_n(1, 4096, 50_000_000);
        let of = |s: &IntervalStats| Distribution::of(LatencyRecord::of(s).all.as_ref().unwrap());
        let merged = Distribution::merged(&[of(&fast).unwrap(), of(&slow).unwrap()]).unwrap();
        assert_eq!(merged, together);
        for q in [0.5, 0.98, 0.99, 0.999, 0.99999] {
            assert_eq!(merged.quantile_us(q), together.quantile_us(q), "{q}");
        }
        assert!(Distribution::merged(&[]).is_none());
    }

    #[test]
    fn percentiles_are_the_histograms_own_and_equal_the_summarys() {
        let (total, d) = crafted();
        let summary = LatencySummary::of(&total.write).unwrap();
        assert_eq!(d.quantile_us(0.5), summary.p50);
        assert_eq!(d.quantile_us(0.99), summary.p99);
        assert_eq!(d.quantile_us(0.999), summary.p999);
        // The 980th I/O is fast, the 981st slow; p99.99 is the single 50 ms one.
        assert!((d.quantile_us(0.98) - 100.0).abs() < 0.2);
        assert!((d.quantile_us(0.981) - 10_000.0).abs() < 10.0);
        assert_eq!(d.quantile_us(0.9999), 50_000.0);
        assert_eq!(d.max_us, 50_000.0);
    }

    #[test]
    fn a_chart_of_many_phases_draws_the_states_and_names_every_phase_it_leaves_out() {
        let (_, d) = crafted();
        let phase = |i: usize, measured: bool| (format!("{i:02}-p"), d.clone(), measured);
        let few = ChartPhases::choose((1..=MAX_PHASES).map(|i| phase(i, i > 1)).collect());
        assert_eq!((few.drawn.len(), few.left_out.len()), (MAX_PHASES, 0));
        // Nine phases, the first not a measured state: the eight states are drawn.
        let nine = ChartPhases::choose((1..=9).map(|i| phase(i, i > 1)).collect());
        let drawn: Vec<&str> = nine.drawn.iter().map(|p| p.0.as_str()).collect();
        assert_eq!(
            drawn,
            ["02-p", "03-p", "04-p", "05-p", "06-p", "07-p", "08-p", "09-p"]
        );
        assert_eq!(nine.left_out, ["01-p"]);
        // More states than the panels hold: the last ones are named as left out.
        let n = MAX_PHASES * MAX_PANELS + 2;
        let many = ChartPhases::choose((1..=n).map(|i| phase(i, true)).collect());
        assert_eq!(many.drawn.len(), MAX_PHASES * MAX_PANELS);
        assert_eq!(
            many.left_out,
            [format!("{:02}-p", n - 1), format!("{n:02}-p")]
        );
    }

    /// The 8 h soak of the committed vertex2 example (49 M I/Os over three decades of
    /// latency): every point is a bucket's top and the exact share of I/Os above it, the
    /// shares only fall, and the curve crosses 50 %, 10 %, 1 % and 0.1 % exactly at the
    /// table's p50, p90, p99 and p99.9, which equal run.json's summary.
    #[test]
    fn exceedance_of_a_real_soak_is_exact_and_crosses_at_the_tables_percentiles() {
        let dir = concat!(
            env!("CARGO_MANIFEST_DIR"),
            "/results/examples/vertex2-sim/04-soak"
        );
        let record: LatencyRecord =
            serde_json::from_str(&std::fs::read_to_string(format!("{dir}/latency.json")).unwrap())
                .unwrap();
        let run: serde_json::Value =
            serde_json::from_str(&std::fs::read_to_string(format!("{dir}/run.json")).unwrap())
                .unwrap();
        let h = record.all.as_ref().unwrap();
        let d = Distribution::of(h).unwrap();
        let e = d.exceedance();
        // One point per non-empty bucket below the last, after the start at share 1.
        assert_eq!(e.len(), h.buckets.len(), "{} buckets", h.buckets.len());
        assert_eq!(e[0], (h.buckets[0][0] as f64 / 1000.0, 1.0));
        let mut above = h.count;
        for (point, bucket) in e[1..].iter().zip(&h.buckets) {
            above -= bucket[1];
            assert_eq!(point.0, bucket[0] as f64 / 1000.0);
            assert_eq!(point.1, above as f64 / h.count as f64);
        }
        // The start and the first bucket's point share an x (the step down through it).
        assert!(e.windows(2).all(|w| w[1].0 >= w[0].0 && w[1].1 < w[0].1));
        assert!(e[1..].windows(2).all(|w| w[1].0 > w[0].0));
        let lat = &run["summary"]["lat_us"];
        for (q, summary) in [(0.5, "p50"), (0.9, ""), (0.99, "p99"), (0.999, "p999")] {
            let p = d.quantile_us(q);
            let cross = e.iter().position(|&(_, share)| share <= 1.0 - q).unwrap();
            assert_eq!(e[cross].0, p, "q {q}");
            assert!(e[cross - 1].1 > 1.0 - q, "q {q}");
            if let Some(s) = lat[summary].as_f64() {
                assert!((p - s).abs() <= 1e-6 * s, "{summary}: {p} vs {s}");
            }
        }
    }

    #[test]
    fn bins_hold_every_io_once_ten_to_a_decade() {
        let (_, d) = crafted();
        let bins = d.bins();
        let sum: f64 = bins.iter().map(|b| b.pct).sum();
        assert!((sum - 100.0).abs() < 1e-9);
        let at = |us: f64| bins.iter().find(|b| b.lo_us < us && us <= b.hi_us).unwrap();
        assert!((at(100.05).pct - 98.0).abs() < 1e-9);
        assert!((at(10_005.0).pct - 1.9).abs() < 1e-9);
        assert!((at(50_000.0).pct - 0.1).abs() < 1e-9);
        // The 100 µs bucket's top is 100.03 µs: from the bin (100, 125.9] to (39 811, 50 119],
        // 10^(21/10) to 10^(47/10), 27 bins.
        assert_eq!(bins.len(), 27, "{:?}", bins.first());
    }
}
