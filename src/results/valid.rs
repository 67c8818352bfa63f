//! The numbers a record holds, checked when it is read: a time that is negative, not finite or
//! beyond any run (an edit like `-5`, `1e30`) is refused like a type error, one line naming the
//! field, before anything computes a duration from it.

/// The longest time any record can hold: the longest duration the command line takes.
pub const MAX_SECONDS: f64 = crate::units::MAX_DURATION.as_secs_f64();

/// `v` as a number of seconds a record can hold, or why not.
pub fn seconds(field: &str, v: f64) -> Result<(), String> {
    if v.is_finite() && (0.0..=MAX_SECONDS).contains(&v) {
        Ok(())
    } else {
        Err(format!(
            "{field} is {}, not a number of seconds from 0 to {MAX_SECONDS}",
            shown(v)
        ))
    }
}

/// The largest rate, latency or percentage a record can hold (a drive of 10^15 IOPS, a latency
/// of 31 years in µs): beyond it a figure was edited in.
pub const MAX_FIGURE: f64 = 1e15;

/// The temperatures a record can hold: those a drive's sensor can mean
/// ([`crate::drive::PLAUSIBLE_C`]); readers leave the rest out, so 1000 °C or −400 °C was
/// edited in.
pub const TEMPERATURE_C: (f64, f64) = crate::drive::PLAUSIBLE_C;

/// `v` as the number a record's field named `key` holds, by the name's convention: a time
/// (`seconds`, `…_s`), a rate (`…iops…`, `…_per_s`, `…_per_day`), a latency (`…_us`, `…_ms`,
/// `…_ns`), a percentage (`…_pct`, `…percent…`) or a temperature (`…_c`); a slope or a rise
/// may be negative. Any other number is a count or an identifier, whose type bounds it.
pub fn named_number(key: &str, v: f64) -> Result<(), String> {
    let (low, high, what) = if key.starts_with("slope") || key.starts_with("rise") {
        (-MAX_FIGURE, MAX_FIGURE, "a figure")
    } else if key == "seconds"
        || key.ends_with("_seconds")
        || (key.ends_with("_s") && !key.ends_with("_per_s"))
    {
        (0.0, MAX_SECONDS, "a number of seconds")
    } else if key.contains("iops") || key.ends_with("_per_s") || key.ends_with("_per_day") {
        (0.0, MAX_FIGURE, "a rate")
    } else if key.ends_with("_us") || key.ends_with("_ms") || key.ends_with("_ns") {
        (0.0, MAX_FIGURE, "a latency")
    } else if key.ends_with("_pct") || key.contains("percent") {
        (0.0, MAX_FIGURE, "a percentage")
    } else if key.ends_with("_c") {
        (TEMPERATURE_C.0, TEMPERATURE_C.1, "a temperature in °C")
    } else {
        return Ok(());
    };
    if v.is_finite() && (low..=high).contains(&v) {
        Ok(())
    } else {
        Err(format!("is {}, not {what} from {low} to {high}", shown(v)))
    }
}

/// A prediction's figures as the model makes them: a positive IOPS inside its interval, the
/// interval's bounds positive (a 0 or a bound past the figure once printed "−-inf %").
pub fn prediction(p: &super::Prediction) -> Result<(), String> {
    if !(p.iops > 0.0 && p.low > 0.0 && p.low <= p.iops && p.iops <= p.high) {
        return Err(format!(
            "prediction.iops {} is not within its interval {}–{} above 0",
            p.iops, p.low, p.high
        ));
    }
    for (field, v) in [
        ("prediction.write_amplification", p.write_amplification),
        ("prediction.span_alpha", p.span_alpha),
    ] {
        if !(v.is_finite() && v > 0.0 && v <= MAX_FIGURE) {
            return Err(format!("{field} is {v}, not a positive figure"));
        }
    }
    Ok(())
}

/// `v` as a refusal quotes it: short even when it is 1e300.
fn shown(v: f64) -> String {
    if v.is_finite() && v.abs() >= 1e15 {
        format!("{v:e}")
    } else {
        v.to_string()
    }
}

/// `v` as a sample period: more than 0 seconds.
pub fn period(field: &str, v: f64) -> Result<(), String> {
    seconds(field, v)?;
    if v > 0.0 {
        Ok(())
    } else {
        Err(format!("{field} is 0: a period must be longer than 0 s"))
    }
}

/// A sample whose times run backwards or out of range, or whose rates or latencies are
/// negative, cannot have been measured.
pub fn sample(s: &crate::stats::Sample) -> Result<(), String> {
    seconds("t_start_s", s.t_start_s)?;
    seconds("t_end_s", s.t_end_s)?;
    if s.t_end_s < s.t_start_s {
        return Err(format!(
            "t_end_s {} is before t_start_s {}",
            s.t_end_s, s.t_start_s
        ));
    }
    if let Some(stopped) = s.stopped_s {
        if !(0.0..=s.t_end_s - s.t_start_s).contains(&stopped) {
            return Err(format!(
                "stopped_s {stopped} is not within the interval's {} s",
                s.t_end_s - s.t_start_s
            ));
        }
    }
    if let Some(suspended) = s.suspended_s {
        seconds("suspended_s", suspended)?;
    }
    latencies(&[
        ("lat_us", s.lat_us),
        ("read.lat_us", s.read.as_ref().and_then(|d| d.lat_us)),
        ("write.lat_us", s.write.as_ref().and_then(|d| d.lat_us)),
        ("trim.lat_us", s.trim.as_ref().and_then(|d| d.lat_us)),
    ])?;
    if let Some(h) = &s.health {
        health("health", h)?;
    }
    let directions = [
        ("read", s.read.as_ref()),
        ("write", s.write.as_ref()),
        ("trim", s.trim.as_ref()),
    ];
    let rates = [("iops", s.iops), ("mb_per_s", s.mb_per_s)]
        .into_iter()
        .map(|(name, v)| (name.to_string(), v))
        .chain(directions.iter().flat_map(|(dir, d)| {
            d.iter().flat_map(move |d| {
                [
                    (format!("{dir}.iops"), d.iops),
                    (format!("{dir}.mb_per_s"), d.mb_per_s),
                ]
            })
        }));
    for (name, v) in rates {
        if !v.is_finite() || !(0.0..=MAX_FIGURE).contains(&v) {
            return Err(format!("{name} is {v}, not a rate"));
        }
    }
    Ok(())
}

/// A drive's health reading as a run records it: temperatures a drive can report, and times
/// in the throttle steps a run can hold.
pub fn health(field: &str, h: &crate::drive::Health) -> Result<(), String> {
    let (cold, hot) = TEMPERATURE_C;
    for (name, v) in [
        ("temperature_c", h.temperature_c),
        ("warning_c", h.warning_c),
    ] {
        if let Some(v) = v {
            if !(v.is_finite() && (cold..=hot).contains(&v)) {
                return Err(format!(
                    "{field}.{name} is {}, not a temperature from {cold} to {hot} °C",
                    shown(v)
                ));
            }
        }
    }
    for (name, v) in [("tmt1_s", h.tmt1_s), ("tmt2_s", h.tmt2_s)] {
        if let Some(v) = v {
            seconds(&format!("{field}.{name}"), v)?;
        }
    }
    Ok(())
}

/// Latency figures as measured: finite, from 0 to [`MAX_FIGURE`] µs, the mean and every
/// percentile at most the maximum and the percentiles in order (no table can then show a p99
/// above its max).
pub fn latencies(lats: &[(&str, Option<crate::stats::LatencySummary>)]) -> Result<(), String> {
    for (name, lat) in lats {
        let Some(l) = lat else { continue };
        let figures = [
            ("mean", l.mean),
            ("p50", l.p50),
            ("p99", l.p99),
            ("p999", l.p999),
            ("max", l.max),
        ];
        for (what, v) in figures {
            if !v.is_finite() || !(0.0..=MAX_FIGURE).contains(&v) {
                return Err(format!("{name}.{what} is {}, not a latency", shown(v)));
            }
            if v > l.max {
                return Err(format!("{name}.{what} {v} is above {name}.max {}", l.max));
            }
        }
        if !(l.p50 <= l.p99 && l.p99 <= l.p999) {
            return Err(format!(
                "{name}: p50 {} p99 {} p999 {} are not in order",
                l.p50, l.p99, l.p999
            ));
        }
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn times_outside_what_a_run_can_take_are_refused() {
        for ok in [0.0, 1.5, MAX_SECONDS] {
            assert!(seconds("t", ok).is_ok(), "{ok}");
        }
        for bad in [-1.0, f64::NAN, f64::INFINITY, 1e30] {
            assert!(
                seconds("t", bad)
                    .unwrap_err()
                    .contains("not a number of seconds"),
                "{bad}"
            );
        }
        assert!(period("interval_s", 0.0).is_err());
    }

    #[test]
    fn a_mean_or_percentile_above_the_maximum_is_refused() {
        let l = |mean, p50, p99, p999, max| crate::stats::LatencySummary {
            mean,
            p50,
            p99,
            p999,
            max,
        };
        assert!(latencies(&[("lat_us", Some(l(10.0, 8.0, 20.0, 30.0, 30.0)))]).is_ok());
        for bad in [
            l(31.0, 8.0, 20.0, 30.0, 30.0),
            l(10.0, 8.0, 31.0, 30.0, 30.0),
            l(10.0, 8.0, 20.0, 30.5, 30.0),
            l(10.0, 21.0, 20.0, 30.0, 30.0),
        ] {
            let why = latencies(&[("write.lat_us", Some(bad))]).unwrap_err();
            assert!(why.starts_with("write.lat_us"), "{why}");
        }
    }
}
