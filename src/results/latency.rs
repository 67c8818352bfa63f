//! `latency.json`: the latency histogram of a whole run (all I/Os, and reads and writes apart),
//! bucket by bucket as the run's HDR histogram held it (3 significant figures), so the
//! distribution charts and every percentile can be read back exactly. Written when a run ends
//! in one session; a resumed run has none (the histograms of a session cut short are lost).

use std::path::Path;

use serde::{Deserialize, Serialize};

use crate::bad_input;
use crate::stats::{DirStats, IntervalStats};

/// The version of latency.json this build writes.
pub const SCHEMA_VERSION: u32 = 1;

/// The file name inside a run directory.
pub const FILE: &str = "latency.json";

/// One direction's (or all I/Os') histogram: the non-empty buckets in rising order.
#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize, schemars::JsonSchema)]
pub struct Histogram {
    /// I/Os counted.
    pub count: u64,
    /// The exact largest latency, ns (a bucket's top can lie above it).
    pub max_ns: u64,
    /// `[top, count]`: the highest latency (ns) the bucket stands for and how many I/Os fell
    /// in it; empty buckets are left out.
    pub buckets: Vec<[u64; 2]>,
}

impl Histogram {
    /// The buckets of one direction's counts; None when it saw no I/O.
    pub fn of(dir: &DirStats) -> Option<Histogram> {
        if dir.ops == 0 {
            return None;
        }
        let h = &dir.latency_ns;
        let buckets = h
            .iter_recorded()
            .map(|v| {
                [
                    h.highest_equivalent(v.value_iterated_to()),
                    v.count_at_value(),
                ]
            })
            .collect::<Vec<_>>();
        Some(Histogram {
            count: buckets.iter().map(|b| b[1]).sum(),
            max_ns: dir.max_ns,
            buckets,
        })
    }
}

/// Everything latency.json holds.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize, schemars::JsonSchema)]
pub struct LatencyRecord {
    pub schema_version: u32,
    /// Significant figures of the histogram (bucket width about 0.1 % of its value).
    pub significant_figures: u8,
    /// Reads and writes together; `null` when the run did no I/O.
    pub all: Option<Histogram>,
    pub read: Option<Histogram>,
    pub write: Option<Histogram>,
}

impl LatencyRecord {
    /// The record of a run's merged counts.
    pub fn of(total: &IntervalStats) -> LatencyRecord {
        let mut both = total.write.clone();
        both.merge(&total.read);
        LatencyRecord {
            schema_version: SCHEMA_VERSION,
            significant_figures: 3,
            all: Histogram::of(&both),
            read: Histogram::of(&total.read),
            write: Histogram::of(&total.write),
        }
    }

    /// Writes latency.json into the run directory `dir`.
    pub fn save(&self, dir: &Path) -> anyhow::Result<()> {
        super::write_json_atomic(&dir.join(FILE), self)
    }

    /// The record of run directory `dir`; None when the run wrote none (it was resumed,
    /// crashed, or came from a version without it).
    pub fn load(dir: &Path) -> anyhow::Result<Option<LatencyRecord>> {
        let path = dir.join(FILE);
        let text = match std::fs::read_to_string(&path) {
            Ok(text) => text,
            Err(e) if e.kind() == std::io::ErrorKind::NotFound => return Ok(None),
            Err(e) => bad_input!("cannot read {}: {e}", path.display()),
        };
        super::json::parse_value(&path, &text)?;
        let record: LatencyRecord = match serde_json::from_str(&text) {
            Ok(r) => r,
            Err(e) => bad_input!(
                "{} is damaged ({e}): remove it to report the run without its latency distribution",
                path.display()
            ),
        };
        super::version::check(&path, record.schema_version, SCHEMA_VERSION)?;
        Ok(Some(record))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn buckets_hold_every_io_and_read_back_equal() {
        let mut total = IntervalStats::new();
        total.write.record_n(980, 980 * 4096, 100_000);
        total.write.record_n(20, 20 * 4096, 10_000_000);
        total.read.record_n(5, 5 * 4096, 50_000);
        let record = LatencyRecord::of(&total);
        let all = record.all.as_ref().unwrap();
        assert_eq!(all.count, 1005);
        assert_eq!(all.buckets.len(), 3);
        assert_eq!(all.max_ns, 10_000_000);
        assert_eq!(record.read.as_ref().unwrap().count, 5);
        let dir = tempfile::tempdir().unwrap();
        record.save(dir.path()).unwrap();
        assert_eq!(LatencyRecord::load(dir.path()).unwrap(), Some(record));
        assert_eq!(LatencyRecord::load(&dir.path().join("none")).unwrap(), None);
    }
}
