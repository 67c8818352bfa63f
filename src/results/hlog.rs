//! `latency.hlog`: every interval's latency histogram of a run (reads and writes together, as
//! latency.json's `all`, on an untagged line), in the HdrHistogram interval log format (V2
//! compressed histograms, values in ns, the max column in ms), so other tools (HdrHistogram's
//! HistogramLogProcessor, the `hdrhistogram` crate, HdrHistogram.js) can merge a fleet's
//! latencies. A run that mixes reads and writes also records each interval's reads and writes
//! apart, on lines tagged `Tag=read` and `Tag=write` (the format's tags: a tool reading only
//! untagged lines sees the same log as before). Each interval is appended in one write and
//! flushed to stable storage as its sample is, so a crash loses at most the interval in
//! progress; a resumed run cuts a torn last line and appends after it.

use std::fs::{File, OpenOptions};
use std::io::Write;
use std::path::{Path, PathBuf};
use std::time::{Duration, SystemTime};

use anyhow::Context;
use hdrhistogram::serialization::interval_log::{IntervalLogWriterBuilder, Tag};
use hdrhistogram::serialization::V2DeflateSerializer;
use hdrhistogram::Histogram;

use crate::stats::IntervalStats;

/// The file name inside a run directory.
pub const FILE: &str = "latency.hlog";

/// The first line of every log ssdfade writes (how an export recognises its own file).
pub const FIRST_LINE: &str = "#ssdfade latency log";

/// Latencies are recorded in ns; the log's max column is in ms, as Java's HdrHistogram writes it.
const MAX_VALUE_DIVISOR: f64 = 1e6;

/// The open log of a run being recorded.
pub struct HistogramLog {
    path: PathBuf,
    file: File,
    serializer: V2DeflateSerializer,
    /// Reads and writes of one interval merged (kept to reuse its memory).
    both: Histogram<u64>,
    line: Vec<u8>,
    /// The `#[MaxValueDivisor…]` line the crate's writer puts before each interval's line.
    divisor_line: usize,
    /// Whether each interval's reads and writes are also written apart (tagged lines).
    split: bool,
    sync: super::sync_pace::SyncPace,
}

impl HistogramLog {
    /// Starts `dir/latency.hlog` for a run that started at `started_utc` (RFC 3339, the time
    /// the entries' timestamps count from), or continues it when the run is resumed: a torn
    /// last line is cut off first, and a log missing (a run of an older version) is started.
    /// `split`: the run mixes reads and writes, whose latencies are also written apart.
    pub fn open(
        dir: &Path,
        started_utc: &str,
        target: &str,
        split: bool,
    ) -> anyhow::Result<HistogramLog> {
        let path = dir.join(FILE);
        let file = match std::fs::read(&path) {
            Ok(text) => {
                let whole = text.iter().rposition(|&b| b == b'\n').map_or(0, |i| i + 1);
                let file = OpenOptions::new()
                    .append(true)
                    .open(&path)
                    .with_context(|| format!("opening {}", path.display()))?;
                file.set_len(whole as u64)
                    .with_context(|| format!("cutting a torn line off {}", path.display()))?;
                file
            }
            Err(e) if e.kind() == std::io::ErrorKind::NotFound => {
                let mut file = OpenOptions::new()
                    .create_new(true)
                    .append(true)
                    .open(&path)
                    .with_context(|| format!("creating {}", path.display()))?;
                file.write_all(&header(started_utc, target, split)?)
                    .with_context(|| format!("writing {}", path.display()))?;
                file
            }
            Err(e) => return Err(e).with_context(|| format!("reading {}", path.display())),
        };
        let mut serializer = V2DeflateSerializer::new();
        let mut divisor_line = Vec::new();
        entry_writer().begin_log_with(&mut divisor_line, &mut serializer)?;
        Ok(HistogramLog {
            divisor_line: divisor_line.len(),
            split,
            sync: Default::default(),
            path,
            file,
            serializer,
            both: Histogram::new_with_bounds(1, crate::stats::MAX_TRACKED_NS, 3)
                .expect("valid histogram bounds"),
            line: Vec::with_capacity(4096),
        })
    }

    /// Appends the interval from `t_start_s` to `t_end_s` (seconds on the run's time line) in
    /// one write, and flushes it to stable storage.
    pub fn append(
        &mut self,
        t_start_s: f64,
        t_end_s: f64,
        stats: &IntervalStats,
    ) -> anyhow::Result<()> {
        let hist = match (stats.read.ops, stats.write.ops) {
            (0, _) => &stats.write.latency_ns,
            (_, 0) => &stats.read.latency_ns,
            _ => {
                self.both.reset();
                self.both
                    .add(&stats.read.latency_ns)
                    .expect("histograms share bounds");
                self.both
                    .add(&stats.write.latency_ns)
                    .expect("histograms share bounds");
                &self.both
            }
        };
        self.line.clear();
        let start = Duration::from_secs_f64(t_start_s.max(0.0));
        let length = Duration::from_secs_f64((t_end_s - t_start_s).max(0.0));
        let encoding = |e| anyhow::anyhow!("encoding an interval of {}: {e}", self.path.display());
        let mut writer = entry_writer().begin_log_with(&mut self.line, &mut self.serializer)?;
        writer
            .write_histogram(hist, start, length, None)
            .map_err(encoding)?;
        if self.split {
            for (tag, dir) in [("read", &stats.read), ("write", &stats.write)] {
                writer
                    .write_histogram(&dir.latency_ns, start, length, Tag::new(tag))
                    .map_err(encoding)?;
            }
        }
        let context = || format!("writing an interval to {}", self.path.display());
        self.file
            .write_all(&self.line[self.divisor_line..])
            .with_context(context)?;
        if self.sync.due() {
            self.file.sync_data().with_context(context)?;
        }
        Ok(())
    }

    /// Flushes every interval written so far to stable storage (see [`super::sync_pace`]).
    pub fn sync(&self) -> anyhow::Result<()> {
        self.file
            .sync_data()
            .with_context(|| format!("syncing {}", self.path.display()))
    }
}

/// The writer of one interval's line (its max column in ms), after a header line of its own.
fn entry_writer() -> IntervalLogWriterBuilder {
    let mut builder = IntervalLogWriterBuilder::new();
    builder.with_max_value_divisor(MAX_VALUE_DIVISOR);
    builder
}

/// The log's header: what it holds, when its time line starts, the max column's unit, and
/// the column legend of Java's HistogramLogWriter.
fn header(started_utc: &str, target: &str, split: bool) -> anyhow::Result<Vec<u8>> {
    let start = humantime::parse_rfc3339(started_utc).unwrap_or_else(|_| SystemTime::now());
    let mut text = Vec::new();
    let mut serializer = V2DeflateSerializer::new();
    IntervalLogWriterBuilder::new()
        .add_comment(FIRST_LINE.trim_start_matches('#'))
        .add_comment(&format!(
            "target {}: each interval's latencies of reads and writes together, in ns (3 significant figures){}",
            target.replace('\n', " "),
            if split {
                "; lines tagged read and write hold them apart"
            } else {
                ""
            }
        ))
        .with_start_time(start)
        .with_base_time(start)
        .with_max_value_divisor(MAX_VALUE_DIVISOR)
        .begin_log_with(&mut text, &mut serializer)?;
    text.extend_from_slice(
        b"\"StartTimestamp\",\"Interval_Length\",\"Interval_Max\",\"Interval_Compressed_Histogram\"\n",
    );
    Ok(text)
}

#[cfg(test)]
mod tests {
    use super::*;
    use hdrhistogram::serialization::interval_log::{IntervalLogIterator, LogEntry};

    fn counts(path: &Path) -> Vec<u64> {
        let bytes = std::fs::read(path).unwrap();
        IntervalLogIterator::new(&bytes)
            .filter_map(|e| match e.unwrap() {
                LogEntry::Interval(i) => Some(i.max().round() as u64),
                _ => None,
            })
            .collect()
    }

    #[test]
    fn a_resumed_log_cuts_the_torn_interval_and_appends_after_the_whole_ones() {
        let dir = tempfile::tempdir().unwrap();
        let mut stats = IntervalStats::new();
        stats.write.record_n(10, 40960, 1_000_000);
        stats.read.record_n(5, 20480, 3_000_000);
        let mut log =
            HistogramLog::open(dir.path(), "2026-12-05T00:00:00Z", "sim:x", false).unwrap();
        log.append(0.0, 1.0, &stats).unwrap();
        drop(log);
        // A crash in the middle of the second interval's line.
        let path = dir.path().join(FILE);
        let mut f = OpenOptions::new().append(true).open(&path).unwrap();
        f.write_all(b"1.000,1.000,2.0,HISTFAAAA").unwrap();
        drop(f);
        let mut log =
            HistogramLog::open(dir.path(), "2026-12-05T00:00:00Z", "sim:x", false).unwrap();
        stats.clear();
        stats.write.record_n(1, 4096, 7_000_000);
        log.append(1.0, 2.0, &stats).unwrap();
        // Max column in ms: 3 ms (reads and writes together), then 7 ms.
        assert_eq!(counts(&path), vec![3, 7]);
        let text = std::fs::read_to_string(&path).unwrap();
        assert!(text.starts_with(FIRST_LINE));
        assert_eq!(text.matches("#[StartTime: 1796428800.000").count(), 1);
    }
}
