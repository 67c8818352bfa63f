//! Parsing and printing of sizes and durations as the command line spells them, and the one
//! number rule every presenter (terminal, report, charts) prints figures by.
//!
//! Sizes: `k`/`M`/`G`/`T` (and `KiB`…) are powers of 1024, `kB`/`MB`/`GB`/`TB` powers of 1000,
//! a bare number is bytes. Durations: `s`, `m`, `h`, `d` and combinations (`1h30m`), as humantime
//! reads them; a bare number is seconds.
//!
//! # The number rule
//!
//! - **Counts and rates in text** (IOPS, MB/s, write amplification): three significant digits,
//!   whole numbers from 100 up, no thousands separator (`7424 IOPS`, `12.3`, `0.973`):
//!   [`format_count`], [`format_sig`]. **On a chart axis** a count takes the k/M suffix of the
//!   axis's top for every tick (`0`, `2k`, … `12k`; `plot::style::count_tick`).
//! - **Latency**: three significant digits in µs below 1 ms, ms from 1 ms, s from 1 s (`700 µs`,
//!   `7.7 ms`, `73.9 ms`, `1.55 s`), trailing zeros dropped; the same switch in text, in tables
//!   and on chart axes: [`format_latency_us`].
//! - **Sizes**: GB = 10^9 bytes and GiB = 2^30 bytes, never one printed as the other. A size the
//!   user typed is shown in the unit it was typed in (`capacity=500G` is `500 GiB`,
//!   `capacity=500GB` is `500 GB`): [`format_size`]; data the drive wrote is counted in GB as
//!   drive makers count it ([`format_gb`]); buffers and block sizes in binary units
//!   ([`format_bytes`]).
//! - **Ratios**: `×0.97`, two decimals, never zero above zero ([`format_ratio`]).

use std::time::Duration;

use crate::bad_input;

/// Parses a size such as `4k`, `512`, `60G`, `1.5GB` into bytes.
pub fn parse_size(text: &str) -> Result<u64, String> {
    let t = text.trim();
    let split = t
        .find(|c: char| !(c.is_ascii_digit() || c == '.'))
        .unwrap_or(t.len());
    let (number, unit) = t.split_at(split);
    let value: f64 = number
        .parse()
        .map_err(|_| format!("'{text}' is not a size: expected a number with an optional unit such as 4k, 60G or 1GB"))?;
    let multiplier: u64 = match unit.trim() {
        "" | "b" | "B" => 1,
        "k" | "K" | "KiB" | "kiB" => 1 << 10,
        "m" | "M" | "MiB" => 1 << 20,
        "g" | "G" | "GiB" => 1 << 30,
        "t" | "T" | "TiB" => 1 << 40,
        "kB" | "KB" => 1_000,
        "MB" => 1_000_000,
        "GB" => 1_000_000_000,
        "TB" => 1_000_000_000_000,
        other => {
            return Err(format!(
                "unknown size unit '{other}' in '{text}': use k, M, G, T (powers of 1024) or kB, MB, GB, TB (powers of 1000)"
            ))
        }
    };
    let bytes = value * multiplier as f64;
    // 2^64 as f64: anything at or above it does not fit (u64::MAX as f64 rounds up to it).
    if !bytes.is_finite() || bytes >= 18_446_744_073_709_551_616.0 {
        return Err(format!(
            "'{text}' is too large: sizes go up to 16 EiB (2^64 bytes)"
        ));
    }
    if bytes.fract() != 0.0 {
        return Err(format!("'{text}' is not a whole number of bytes"));
    }
    Ok(bytes as u64)
}

/// The longest duration the command line accepts: ten years, far beyond any soak, and far
/// below where clocks and counters overflow.
pub const MAX_DURATION: Duration = Duration::from_secs(10 * 366 * 24 * 3600);

/// Parses a duration such as `60s`, `8h`, `1h30m` or `90` (seconds), up to [`MAX_DURATION`].
pub fn parse_duration(text: &str) -> Result<Duration, String> {
    let t = text.trim();
    let too_long = || {
        format!(
            "'{text}' is too long: durations go up to {} days",
            MAX_DURATION.as_secs() / 86_400
        )
    };
    if let Ok(secs) = t.parse::<f64>() {
        if secs.is_nan() || secs < 0.0 {
            return Err(format!(
                "'{text}' is not a duration: use a positive number with s, m, h or d, such as 60s or 8h"
            ));
        }
        if secs > MAX_DURATION.as_secs_f64() {
            return Err(too_long());
        }
        return Ok(Duration::from_secs_f64(secs));
    }
    let d = humantime::parse_duration(t).map_err(|e| {
        if matches!(e, humantime::DurationError::NumberOverflow) {
            too_long()
        } else {
            format!("'{text}' is not a duration ({e}): use a number with s, m, h or d, such as 60s, 10m or 8h")
        }
    })?;
    if d > MAX_DURATION {
        return Err(too_long());
    }
    Ok(d)
}

/// A duration that must be longer than zero (`--duration`, `--seconds`).
pub fn parse_positive_duration(text: &str) -> Result<Duration, String> {
    let d = parse_duration(text)?;
    if d.is_zero() {
        return Err(format!(
            "'{text}' is zero: give a duration longer than zero, such as 60s"
        ));
    }
    Ok(d)
}

/// A transfer size (`--bs`): larger than zero and at most what one Linux read or write moves.
pub fn parse_transfer_size(text: &str) -> Result<u64, String> {
    let n = parse_positive_size(text)?;
    check_transfer(n).map_err(|e| e.to_string())?;
    Ok(n)
}

/// A size that must be larger than zero (`--bytes`, `--chunk`).
pub fn parse_positive_size(text: &str) -> Result<u64, String> {
    let n = parse_size(text)?;
    if n == 0 {
        return Err(format!(
            "'{text}' is zero: give a size larger than zero, such as 1G"
        ));
    }
    Ok(n)
}

/// Prints a byte count with a binary unit, e.g. `60.0 GiB`.
pub fn format_bytes(bytes: u64) -> String {
    const UNITS: [&str; 5] = ["B", "KiB", "MiB", "GiB", "TiB"];
    let mut value = bytes as f64;
    let mut unit = 0;
    while value >= 1024.0 && unit < UNITS.len() - 1 {
        value /= 1024.0;
        unit += 1;
    }
    if unit == 0 {
        format!("{bytes} B")
    } else {
        format!("{value:.1} {}", UNITS[unit])
    }
}

/// Drive data in GB (10^9 bytes) with one decimal, e.g. `60.0 GB`: the unit of the report's
/// written-bytes figures, as drive makers count capacity.
pub fn format_gb(bytes: u64) -> String {
    format!("{:.1} GB", bytes as f64 / 1e9)
}

/// A size in the unit system it divides exactly, as the user would have typed it: `500 GiB`
/// for 500·2^30 bytes, `30 GB` for 30·10^9, `4 KiB`; a size in neither in GB with one decimal.
pub fn format_size(bytes: u64) -> String {
    const UNITS: [(u64, &str); 8] = [
        (1_000_000_000_000, "TB"),
        (1 << 40, "TiB"),
        (1_000_000_000, "GB"),
        (1 << 30, "GiB"),
        (1_000_000, "MB"),
        (1 << 20, "MiB"),
        (1_000, "kB"),
        (1 << 10, "KiB"),
    ];
    match UNITS
        .iter()
        .find(|(unit, _)| bytes >= *unit && bytes.is_multiple_of(*unit))
    {
        Some((unit, name)) => format!("{} {name}", bytes / unit),
        None if bytes < 1000 => format!("{bytes} B"),
        None => format_gb(bytes),
    }
}

/// A latency given in microseconds, by the number rule: three significant digits, µs below
/// 1 ms, ms below 1 s, else s (`50 µs`, `700 µs`, `1.5 ms`, `45.1 ms`, `2 s`).
pub fn format_latency_us(us: f64) -> String {
    let (v, unit) = match us.abs() {
        // Where three significant digits round up to the next unit (999.6 µs is 1.00 ms).
        a if a >= 999_500.0 => (us / 1e6, "s"),
        a if a >= 999.5 => (us / 1e3, "ms"),
        _ => (us, "µs"),
    };
    format!("{} {unit}", format_sig(v, 3))
}

/// A count or rate in text by the number rule: whole from 100 up (`7424`), else three
/// significant digits (`12.3`, `9.62`, `0.973`).
pub fn format_count(v: f64) -> String {
    if v.abs() >= 99.95 {
        format!("{v:.0}")
    } else {
        format_sig(v, 3)
    }
}

/// `v` with `digits` significant digits (but no decimals beyond them on a number of more
/// digits: `1234` stays whole), trailing zeros after the point dropped: `2.31`, `0.0512`, `45.1`.
pub fn format_sig(v: f64, digits: u32) -> String {
    if v == 0.0 || !v.is_finite() {
        return format!("{v:.0}");
    }
    // The decimals that leave `digits` significant ones, from the magnitude after rounding
    // (9.996 to three digits is 10.0, whose decimals are one, not two).
    let decimals = |v: f64| (digits as i32 - 1 - v.abs().log10().floor() as i32).max(0) as usize;
    let first = decimals(v);
    let rounded: f64 = format!("{v:.first$}").parse().unwrap_or(v);
    let decimals = decimals(rounded).min(first);
    let text = format!("{v:.decimals$}");
    if text.contains('.') {
        text.trim_end_matches('0').trim_end_matches('.').to_string()
    } else {
        text
    }
}

/// Prints a ratio as `×0.97`: see [`format_nonzero`] (two decimals).
pub fn format_ratio(r: f64) -> String {
    match format_nonzero(r, 2) {
        below if below.starts_with('<') => format!("<×{}", &below[1..]),
        text => format!("×{text}"),
    }
}

/// Prints `v` with `decimals` decimals, or, for a `v` above zero that would then keep fewer
/// than two significant digits, with two (`0.0043`), and `<0.0001` below that: a ratio or
/// share above zero never reads as zero.
pub fn format_nonzero(v: f64, decimals: usize) -> String {
    let two_digits = 10f64.powi(1 - decimals as i32);
    if v <= 0.0 || !v.is_finite() || v >= two_digits {
        format!("{v:.decimals$}")
    } else if v < 0.0001 {
        "<0.0001".into()
    } else {
        let decimals = (1.0 - v.log10().floor()) as usize;
        format!("{v:.decimals$}")
    }
}

/// Prints a duration as `1h02m03s`.
pub fn format_duration(d: Duration) -> String {
    let s = d.as_secs();
    if s >= 3600 {
        format!("{}h{:02}m{:02}s", s / 3600, s % 3600 / 60, s % 60)
    } else if s >= 60 {
        format!("{}m{:02}s", s / 60, s % 60)
    } else {
        format!("{:.1}s", d.as_secs_f64())
    }
}

/// A sample interval as set: under a second in whole milliseconds ("250 ms"), otherwise as
/// [`format_duration`] ("1.0s"); a wall-clock time keeps [`format_duration`].
pub fn format_interval(d: Duration) -> String {
    if d < Duration::from_secs(1) {
        format!("{} ms", d.as_millis())
    } else {
        format_duration(d)
    }
}

/// The most one `read`/`write` (and one io_uring transfer) moves on Linux: 2 GiB − 4 KiB.
pub const MAX_TRANSFER: u64 = 0x7fff_f000;

/// Refuses (exit 2) a transfer size above [`MAX_TRANSFER`].
pub fn check_transfer(bs: u64) -> anyhow::Result<()> {
    if bs > MAX_TRANSFER {
        bad_input!(
            "--bs {} is larger than one Linux read or write can transfer ({}, {MAX_TRANSFER} bytes): use --bs 1G or less",
            format_bytes(bs),
            format_bytes(MAX_TRANSFER)
        );
    }
    Ok(())
}

/// Bytes as space-separated hex pairs (commands sent to a drive, in dry runs and records).
pub fn hex(bytes: &[u8]) -> String {
    bytes
        .iter()
        .map(|b| format!("{b:02x}"))
        .collect::<Vec<_>>()
        .join(" ")
}

#[cfg(test)]
mod tests {
    use super::*;

    /// p99 0.5 ms against 780 ms is ×0.00064, not ×0.00: a ratio above zero keeps two
    /// significant digits, and one too small for that says so.
    #[test]
    fn an_interval_under_a_second_is_shown_in_milliseconds() {
        assert_eq!(format_interval(Duration::from_millis(250)), "250 ms");
        assert_eq!(format_interval(Duration::from_millis(999)), "999 ms");
        assert_eq!(format_interval(Duration::from_secs(1)), "1.0s");
        assert_eq!(format_interval(Duration::from_secs(90)), "1m30s");
    }

    #[test]
    fn a_ratio_above_zero_never_prints_as_zero() {
        assert_eq!(format_ratio(0.97), "×0.97");
        assert_eq!(format_ratio(9.6), "×9.60");
        assert_eq!(format_ratio(0.1), "×0.10");
        assert_eq!(format_ratio(0.043), "×0.043");
        assert_eq!(format_ratio(0.00064), "×0.00064");
        assert_eq!(format_ratio(0.00001), "<×0.0001");
        assert_eq!(format_ratio(0.0), "×0.00");
        assert_eq!(format_ratio(0.004), "×0.0040");
        assert_eq!(format_nonzero(0.04, 1), "0.040");
        assert_eq!(format_nonzero(24.26, 1), "24.3");
    }

    /// The number rule at its boundaries: µs up to 999.4 µs, ms from 1 ms (999.6 µs rounds
    /// to it), s from 1 s (999.999 ms rounds to it); three significant digits; 73.912 ms is
    /// 73.9 ms, 7700.5 µs 7.7 ms.
    #[test]
    fn latency_switches_unit_at_each_thousand() {
        assert_eq!(format_latency_us(999.4), "999 µs");
        assert_eq!(format_latency_us(999.6), "1 ms");
        assert_eq!(format_latency_us(1000.0), "1 ms");
        assert_eq!(format_latency_us(7700.5), "7.7 ms");
        assert_eq!(format_latency_us(73_912.0), "73.9 ms");
        assert_eq!(format_latency_us(12_040.0), "12 ms");
        assert_eq!(format_latency_us(999_400.0), "999 ms");
        assert_eq!(format_latency_us(999_999.0), "1 s");
        assert_eq!(format_latency_us(1_000_000.0), "1 s");
        assert_eq!(format_latency_us(1_550_000.0), "1.55 s");
        assert_eq!(format_latency_us(52.66), "52.7 µs");
        assert_eq!(format_latency_us(0.5), "0.5 µs");
    }

    #[test]
    fn counts_keep_three_significant_digits_and_are_whole_from_100() {
        assert_eq!(format_count(7424.4), "7424");
        assert_eq!(format_count(100.0), "100");
        assert_eq!(format_count(99.96), "100");
        assert_eq!(format_count(99.94), "99.9");
        assert_eq!(format_count(9.62), "9.62");
        assert_eq!(format_count(9.996), "10");
        assert_eq!(format_count(0.9734), "0.973");
        assert_eq!(format_count(0.0), "0");
        assert_eq!(format_sig(2.3149, 3), "2.31");
        assert_eq!(format_sig(0.05123, 3), "0.0512");
        assert_eq!(format_sig(1234.6, 3), "1235");
    }

    /// A size is shown in the unit system it was typed in: 500G is 500 GiB, not 536.9 GB.
    #[test]
    fn a_size_is_shown_as_typed() {
        assert_eq!(format_size(parse_size("500G").unwrap()), "500 GiB");
        assert_eq!(format_size(parse_size("500GB").unwrap()), "500 GB");
        assert_eq!(format_size(parse_size("60GB").unwrap()), "60 GB");
        assert_eq!(format_size(parse_size("4k").unwrap()), "4 KiB");
        assert_eq!(format_size(parse_size("2T").unwrap()), "2 TiB");
        assert_eq!(format_size(512), "512 B");
        assert_eq!(format_size(1_234_567_891), "1.2 GB");
    }

    #[test]
    fn binary_and_decimal_units_differ() {
        assert_eq!(parse_size("4k").unwrap(), 4096);
        assert_eq!(parse_size("4kB").unwrap(), 4000);
        assert_eq!(parse_size("60G").unwrap(), 60 << 30);
        assert_eq!(parse_size("60GB").unwrap(), 60_000_000_000);
        assert_eq!(parse_size("512").unwrap(), 512);
        assert_eq!(parse_size("1.5M").unwrap(), 3 << 19);
    }

    #[test]
    fn unknown_unit_names_the_unit() {
        let err = parse_size("4q").unwrap_err();
        assert!(err.contains("unknown size unit 'q'"), "{err}");
        assert!(parse_size("abc").is_err());
    }

    #[test]
    fn durations_accept_units_and_bare_seconds() {
        assert_eq!(parse_duration("8h").unwrap(), Duration::from_secs(8 * 3600));
        assert_eq!(parse_duration("60s").unwrap(), Duration::from_secs(60));
        assert_eq!(parse_duration("1h30m").unwrap(), Duration::from_secs(5400));
        assert_eq!(parse_duration("2.5").unwrap(), Duration::from_millis(2500));
        assert!(parse_duration("5x").is_err());
    }

    #[test]
    fn overflowing_and_zero_values_are_errors_not_panics() {
        for text in [
            "1e30",
            "inf",
            "NaN",
            "-1",
            "1e30s",
            "99999999999999999999999h",
            "3661d",
        ] {
            assert!(parse_duration(text).is_err(), "{text}");
        }
        assert!(parse_duration("3650d").is_ok());
        for text in ["99999999999T", "16777216T", "18446744073709551616"] {
            let err = parse_size(text).unwrap_err();
            assert!(err.contains("too large"), "{text}: {err}");
        }
        assert!(parse_size("1e30").is_err() && parse_size("inf").is_err());
        assert_eq!(parse_size("16777215T").unwrap(), 16_777_215u64 << 40);
        assert!(parse_positive_duration("0s").is_err());
        assert!(parse_positive_size("0").is_err());
        assert_eq!(parse_positive_size("1k").unwrap(), 1024);
    }
}
