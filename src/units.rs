//! Parsing and printing of sizes and durations as the command line spells them.
//!
//! Sizes: `k`/`M`/`G`/`T` (and `KiB`…) are powers of 1024, `kB`/`MB`/`GB`/`TB` powers of 1000,
//! a bare number is bytes. Durations: `s`, `m`, `h`, `d` and combinations (`1h30m`), as humantime
//! reads them; a bare number is seconds.

use std::time::Duration;

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
    if bytes.fract() != 0.0 || bytes > u64::MAX as f64 {
        return Err(format!("'{text}' is not a whole number of bytes"));
    }
    Ok(bytes as u64)
}

/// Parses a duration such as `60s`, `8h`, `1h30m` or `90` (seconds).
pub fn parse_duration(text: &str) -> Result<Duration, String> {
    let t = text.trim();
    if let Ok(secs) = t.parse::<f64>() {
        // Too large for a Duration (1e30) falls through to humantime's refusal.
        if let Ok(d) = Duration::try_from_secs_f64(secs) {
            return Ok(d);
        }
    }
    humantime::parse_duration(t).map_err(|e| {
        format!("'{text}' is not a duration ({e}): use a number with s, m, h or d, such as 60s, 10m or 8h")
    })
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

/// Prints a latency given in microseconds as µs below 10 ms, else ms.
pub fn format_latency_us(us: f64) -> String {
    if us < 10_000.0 {
        format!("{us:.1} µs")
    } else {
        format!("{:.2} ms", us / 1000.0)
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

#[cfg(test)]
mod tests {
    use super::*;

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
}
