//! One-line descriptions of a run for chart titles and report headings: which device, which
//! workload, in the words a storage engineer uses (Iometer's access specification).

use super::RunInfo;
use crate::units::{format_bytes, format_duration, format_interval};
use crate::workload::{Rate, Workload};

/// The drive's model, or its name when the model is unknown (a chart's or report's title).
pub fn device_name(info: &RunInfo) -> String {
    let id = &info.target.identity;
    id.model.clone().unwrap_or_else(|| id.name.clone())
}

/// The device as a title names it: model (or kind), the target path and its capacity in GB,
/// as the report's header gives it.
pub fn device_line(info: &RunInfo) -> String {
    let id = &info.target.identity;
    let model = id.model.clone().unwrap_or_else(|| id.kind.clone());
    format!(
        "{model} · {} · {}",
        target_shown(&info.target.path),
        crate::units::format_gb(id.size_bytes)
    )
}

/// A target as a chart or report shows it: a simulated drive's `state=` file is a path of the
/// machine that ran it (and an experiment's own working file), so it is left out; a line break
/// in a file's name is shown as its escape ([`crate::console::one_line`]), never a new line.
pub fn target_shown(path: &str) -> String {
    let shown = path
        .split(',')
        .filter(|part| !part.starts_with("state="))
        .collect::<Vec<_>>()
        .join(",");
    crate::console::one_line(&shown)
}

/// An issue rate as a report prints it, for `w`'s transfers: `4000 IOPS (--rate-iops 4000)`,
/// `4.0 KiB`, or a split's sizes and shares: `bssplit 4k/70:64k/30`.
pub fn transfer_text(bs: u64, split: Option<&crate::workload::BsSplit>) -> String {
    split.map_or_else(|| format_bytes(bs), |s| format!("bssplit {s}"))
}

/// `40.0 MB/s = 9766 IOPS (--rate 40000000)`; a SLOG run's (its writes synchronous) with the
/// option that gave it, `500 IOPS (--zil-rate 500/s)`.
pub fn rate_text(w: &Workload) -> impl Fn(Rate) -> String {
    let (bs, zil) = (w.bs, w.sync.is_some());
    move |rate| match rate {
        Rate::Iops(n) if zil => format!("{n} IOPS (--zil-rate {n}/s)"),
        Rate::Iops(n) => format!("{n} IOPS (--rate-iops {n})"),
        Rate::BytesPerS(b) => format!(
            "{:.1} MB/s = {} IOPS (--rate {b})",
            b as f64 / 1e6,
            crate::units::format_count(rate.iops(bs))
        ),
    }
}

/// The whole access specification on one line, e.g. `4 KiB random writes (offsets aligned to
/// 512 B), QD128, random data, span 55.9 GiB, 10 s intervals, stop after 8h00m00s`; a skewed
/// distribution follows the access (`random (hotcold:80/20) writes`), an offset the span (`span
/// 1 GiB from byte 1073741824`), an issue rate the QD (`QD32, paced at 4000 IOPS (--rate-iops
/// 4000)`).
pub fn workload_line(w: &Workload) -> String {
    let mix = match w.read_pct {
        0 => "writes".to_string(),
        100 => "reads".to_string(),
        r => format!("{r} % reads / {} % writes", 100 - r),
    };
    let access = match w.random_pct {
        100 => "random".to_string(),
        0 => "sequential".to_string(),
        r => format!("{r} % random"),
    };
    let access = if w.distribution.is_uniform() || w.random_pct == 0 {
        access
    } else {
        format!("{access} ({})", w.distribution)
    };
    let span = if w.offset > 0 {
        format!("{} from byte {}", format_bytes(w.span), w.offset)
    } else {
        format_bytes(w.span)
    };
    let align = if w.align != w.bs && w.bssplit.is_none() {
        format!(" (offsets aligned to {} B)", w.align)
    } else {
        String::new()
    };
    let mut stop = Vec::new();
    if let Some(d) = w.duration {
        stop.push(format_duration(d));
    }
    if let Some(b) = w.bytes {
        stop.push(format_bytes(b));
    }
    let paced = w
        .rate
        .map_or_else(String::new, |r| format!(", paced at {}", rate_text(w)(r)));
    format!(
        "{} {access} {mix}{align}, {}QD{}{paced}, {} data, span {}, {} intervals, stop after {}",
        transfer_text(w.bs, w.bssplit.as_ref()),
        crate::workload::jobs_prefix(w.jobs),
        w.qd,
        w.pattern,
        span,
        format_interval(w.interval),
        stop.join(" or ")
    )
}
