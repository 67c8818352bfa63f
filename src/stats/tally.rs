//! Latencies counted into the buckets of a [`DirStats`] histogram with a few instructions each,
//! and added to the histogram once, when the interval closes.
//!
//! `Histogram::saturating_record` cost 67 user-space instructions per I/O (bounds checks, the
//! clamp, the total count and the minimum and maximum kept on every call). The driver records
//! every I/O's latency, so a [`LatencyTally`] keeps the bucket counts in the histogram's own
//! layout (1 ns to [`MAX_TRACKED_NS`], three significant figures: 2048 sub-buckets, the upper
//! 1024 used past the first bucket) and [`LatencyTally::add_to`] records each bucket touched
//! with its count: the histogram ends up the same, count for count, minimum and maximum alike
//! (test `the_tally_makes_the_same_histogram_as_recording_each_value`).

use hdrhistogram::Histogram;

use super::interval::MAX_TRACKED_NS;

/// Sub-buckets per bucket of the histogram (three significant figures), as a power of two.
const SUB_BITS: u32 = 11;
/// Half the sub-buckets: the part of each bucket past the first that holds values.
const HALF_BITS: u32 = SUB_BITS - 1;
/// The histogram's length: up to the end of the bucket that holds [`MAX_TRACKED_NS`].
const LEN: usize = ((index_of(MAX_TRACKED_NS) >> HALF_BITS) + 1) << HALF_BITS;
/// The first value past the histogram's last bucket. The histogram counts anything below it
/// in its own bucket, [`MAX_TRACKED_NS`] or not, and anything from it up as [`MAX_TRACKED_NS`].
const PAST_END: u64 = 1 << (64 - (MAX_TRACKED_NS | ((1 << SUB_BITS) - 1)).leading_zeros());

/// The bucket counts of one direction's latencies in one interval.
pub struct LatencyTally {
    counts: Vec<u64>,
    /// The lowest and highest index counted since the last [`LatencyTally::add_to`].
    low: usize,
    high: usize,
}

impl Default for LatencyTally {
    fn default() -> Self {
        LatencyTally {
            counts: vec![0; LEN],
            low: usize::MAX,
            high: 0,
        }
    }
}

impl LatencyTally {
    /// Counts one latency (0 as 1 ns, one past the histogram's end as [`MAX_TRACKED_NS`], as
    /// `saturating_record` does).
    #[inline]
    pub fn record(&mut self, ns: u64) {
        let ns = if ns >= PAST_END {
            MAX_TRACKED_NS
        } else {
            ns.max(1)
        };
        let i = index_of(ns);
        self.counts[i] += 1;
        self.low = self.low.min(i);
        self.high = self.high.max(i);
    }

    /// Records the counts into `hist` and empties the tally.
    pub fn add_to(&mut self, hist: &mut Histogram<u64>) {
        if self.low > self.high {
            return;
        }
        for i in self.low..=self.high {
            let n = std::mem::take(&mut self.counts[i]);
            if n > 0 {
                hist.saturating_record_n(value_of(i), n);
            }
        }
        (self.low, self.high) = (usize::MAX, 0);
    }
}

/// The histogram's index of `ns` (1 ≤ ns ≤ [`MAX_TRACKED_NS`]): bucket `b` holds values of
/// `SUB_BITS + b` bits, at a resolution of `2^b` ns.
#[inline(always)]
const fn index_of(ns: u64) -> usize {
    let bucket = 64 - SUB_BITS - (ns | ((1 << SUB_BITS) - 1)).leading_zeros();
    let sub = (ns >> bucket) as usize;
    ((bucket as usize + 1) << HALF_BITS) + sub - (1 << HALF_BITS)
}

/// The lowest value of index `i`'s bucket.
fn value_of(i: usize) -> u64 {
    if i < 1 << SUB_BITS {
        i as u64
    } else {
        let bucket = (i >> HALF_BITS) - 1;
        let sub = (i & ((1 << HALF_BITS) - 1)) + (1 << HALF_BITS);
        (sub as u64) << bucket
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::stats::DirStats;

    /// Values at and around every bucket's edges, and a spread of others.
    fn values() -> Vec<u64> {
        let mut v = vec![1, 2, 3, 1023, 1024, 2047, 2048, 2049, 4095, 4096, 4097];
        for bits in 11..=37 {
            for d in [-2i64, -1, 0, 1, 2] {
                v.push(((1u64 << bits) as i64 + d) as u64);
            }
        }
        let mut x = 0x9e37_79b9_7f4a_7c15u64;
        for _ in 0..20_000 {
            x ^= x << 13;
            x ^= x >> 7;
            x ^= x << 17;
            v.push(1 + (x >> (x % 40)));
        }
        v.extend([
            MAX_TRACKED_NS - 1,
            MAX_TRACKED_NS,
            MAX_TRACKED_NS + 1,
            u64::MAX,
        ]);
        v
    }

    #[test]
    fn the_tally_makes_the_same_histogram_as_recording_each_value() {
        let mut each = DirStats::default().latency_ns;
        let mut tallied = each.clone();
        let mut tally = LatencyTally::default();
        assert_eq!(tally.counts.len(), each.distinct_values());
        for v in values() {
            each.saturating_record(v.max(1));
            tally.record(v);
        }
        tally.add_to(&mut tallied);
        assert_eq!(tallied.len(), each.len());
        assert_eq!(tallied.min_nz(), each.min_nz());
        assert_eq!(tallied.max(), each.max());
        let a: Vec<(u64, u64)> = each
            .iter_recorded()
            .map(|b| (b.value_iterated_to(), b.count_at_value()))
            .collect();
        let b: Vec<(u64, u64)> = tallied
            .iter_recorded()
            .map(|b| (b.value_iterated_to(), b.count_at_value()))
            .collect();
        assert_eq!(a, b);
        for q in [0.0, 0.5, 0.99, 0.999, 1.0] {
            assert_eq!(tallied.value_at_quantile(q), each.value_at_quantile(q));
        }
        assert!(
            tally.counts.iter().all(|&n| n == 0),
            "add_to empties the tally"
        );
    }

    #[test]
    fn every_index_maps_back_to_its_own_lowest_value() {
        let h = DirStats::default().latency_ns;
        for i in 0..h.distinct_values() {
            let v = value_of(i);
            if v == 0 || v > MAX_TRACKED_NS {
                continue;
            }
            assert_eq!(index_of(v), i, "value {v}");
            assert_eq!(h.lowest_equivalent(v), v, "index {i}");
        }
    }
}
