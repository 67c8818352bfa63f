//! The device beside its baseline: for each write+fdatasync size both measured, how many times
//! slower the device's mean write is and what share of the baseline's MB/s it reaches; for each
//! writer count, the device's IOPS over the baseline's. A ratio over a zero baseline is `None`.

use crate::results::slog::{Measured, SyncMode};

/// One size of the QD1 write+fdatasync sweep, device and baseline.
#[derive(Clone, Debug, PartialEq)]
pub struct SizeRow {
    pub size: u64,
    pub device_mean_us: f64,
    pub baseline_mean_us: f64,
    /// Device mean ÷ baseline mean.
    pub slower: Option<f64>,
    pub device_mb_per_s: f64,
    pub baseline_mb_per_s: f64,
    /// 100 × device MB/s ÷ baseline MB/s.
    pub share_pct: Option<f64>,
}

/// One writer count of the concurrency phase, device and baseline.
#[derive(Clone, Debug, PartialEq)]
pub struct WritersRow {
    pub writers: u32,
    pub device_iops: f64,
    pub baseline_iops: f64,
    /// Device IOPS ÷ baseline IOPS.
    pub ratio: Option<f64>,
    pub device_mean_us: f64,
    pub baseline_mean_us: f64,
}

/// The rows of the comparison.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct Comparison {
    pub sizes: Vec<SizeRow>,
    pub writers: Vec<WritersRow>,
}

fn over(a: f64, b: f64) -> Option<f64> {
    (b > 0.0).then(|| a / b)
}

/// Compares `device` with `baseline`: sizes both measured in write+fdatasync, writer counts
/// matched by number.
pub fn compare(device: &Measured, baseline: &Measured) -> Comparison {
    let sizes = device
        .sizes
        .iter()
        .filter(|p| p.mode == SyncMode::Fdatasync)
        .filter_map(|p| {
            let q = baseline.size_point(SyncMode::Fdatasync, p.size)?;
            Some(SizeRow {
                size: p.size,
                device_mean_us: p.lat_us.mean,
                baseline_mean_us: q.lat_us.mean,
                slower: over(p.lat_us.mean, q.lat_us.mean),
                device_mb_per_s: p.mb_per_s,
                baseline_mb_per_s: q.mb_per_s,
                share_pct: over(p.mb_per_s, q.mb_per_s).map(|r| 100.0 * r),
            })
        })
        .collect();
    let writers = device
        .concurrency
        .iter()
        .filter_map(|p| {
            let q = baseline
                .concurrency
                .iter()
                .find(|q| q.writers == p.writers)?;
            Some(WritersRow {
                writers: p.writers,
                device_iops: p.iops,
                baseline_iops: q.iops,
                ratio: over(p.iops, q.iops),
                device_mean_us: p.lat_us.mean,
                baseline_mean_us: q.lat_us.mean,
            })
        })
        .collect();
    Comparison { sizes, writers }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::results::slog::{Point, SyncLatency};

    fn point(mode: SyncMode, size: u64, writers: u32, iops: f64, mean: f64) -> Point {
        Point {
            mode,
            size,
            writers,
            writes: 1000,
            seconds: 1.0,
            iops,
            mb_per_s: iops * size as f64 / 1e6,
            lat_us: SyncLatency {
                mean,
                ..SyncLatency::default()
            },
        }
    }

    #[test]
    fn ratios_are_device_over_baseline_for_matching_sizes_and_writers() {
        let device = Measured {
            sizes: vec![
                point(SyncMode::Fdatasync, 4096, 1, 2000.0, 500.0),
                point(SyncMode::Fdatasync, 8192, 1, 1000.0, 1000.0),
                point(SyncMode::Dsync, 4096, 1, 9.0, 9.0),
            ],
            concurrency: vec![
                point(SyncMode::Fdatasync, 4096, 1, 2000.0, 500.0),
                point(SyncMode::Fdatasync, 4096, 2, 3000.0, 600.0),
            ],
            sustained: None,
            sustained_load: None,
        };
        let baseline = Measured {
            // 8 KiB missing from the baseline: no row; the baseline's writers in another order.
            sizes: vec![point(SyncMode::Fdatasync, 4096, 1, 100_000.0, 10.0)],
            concurrency: vec![
                point(SyncMode::Fdatasync, 4096, 2, 0.0, 0.0),
                point(SyncMode::Fdatasync, 4096, 1, 8000.0, 20.0),
            ],
            sustained: None,
            sustained_load: None,
        };
        let c = compare(&device, &baseline);
        assert_eq!(c.sizes.len(), 1);
        let s = &c.sizes[0];
        assert_eq!((s.size, s.slower), (4096, Some(50.0)));
        // 2000 × 4096 B over 100 000 × 4096 B: 2 %.
        assert!((s.share_pct.unwrap() - 2.0).abs() < 1e-9, "{s:?}");
        assert_eq!(c.writers.len(), 2);
        assert_eq!((c.writers[0].writers, c.writers[0].ratio), (1, Some(0.25)));
        assert_eq!((c.writers[1].writers, c.writers[1].ratio), (2, None));
        assert_eq!(c.writers[0].baseline_mean_us, 20.0);
    }
}
