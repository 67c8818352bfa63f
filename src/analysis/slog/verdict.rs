//! Is this device fit to be a ZFS separate intent log? A pure function of plain figures
//! ([`Evidence`]) giving suitable / marginal / unsuitable with every reason, its number and its
//! threshold, and — when fade is the problem — the maintenance plan the figures support.
//! Where the figures come from (run directories) is [`super::evidence`]'s job.

pub use crate::results::slog::{
    EnduranceEvidence, Evidence, FadeEvidence, LatencyEvidence, LoadEvidence, OpSweepEvidence,
    PlpEvidence, Rating, Reason, RecoveryEvidence, Verdict, STALL_US,
};

use crate::analysis::FadeRatio;
use crate::units::format_latency_us;

/// 4 KiB sync-write latency bands (mean µs per write, as `diskinfo -wS` prints it).
pub const LAT_EXCELLENT_US: f64 = 50.0;
pub const LAT_GOOD_US: f64 = 300.0;
pub const LAT_UNSUITABLE_US: f64 = 1000.0;
/// Where the latency bands come from, printed with them.
pub const LAT_BANDS_SOURCE: &str = "FreeBSD diskinfo -wS figures (Intel 710 with PLP 158 µs, \
Samsung 950 PRO without PLP 2091 µs), Optane P4800X spec (<10 µs), fio fdatasync on a \
consumer NVMe (1.7 ms): see docs/slog.md";
/// Sustained writes must keep this percentage of the starting rate…
pub const FADE_OK_PCT: f64 = 80.0;
/// …and a device below this percentage needs maintenance to serve as a log.
pub const FADE_BAD_PCT: f64 = 50.0;
/// At the ZIL rate, any stall (a write over `STALL_US`) makes the device marginal, and issuing
/// more than this percentage of the writes late (the device could not keep the rate) makes it
/// unsuitable.
pub const LOAD_LATE_PCT: f64 = 1.0;
/// Years of life at the ZIL write rate.
pub const ENDURANCE_OK_YEARS: f64 = 3.0;
pub const ENDURANCE_BAD_YEARS: f64 = 1.0;
/// A maintenance plan asks for an erase at most this often…
pub const PLAN_MIN_DAYS: f64 = 7.0;
/// …using at most this many devices.
pub const PLAN_MAX_DEVICES: u32 = 8;

impl Rating {
    pub fn word(self) -> &'static str {
        match self {
            Rating::Suitable => "suitable",
            Rating::Marginal => "marginal",
            Rating::Unsuitable => "unsuitable",
        }
    }
}

/// Judges the evidence.
pub fn judge(e: &Evidence) -> Verdict {
    let mut reasons = vec![latency_reason(e.latency.as_ref())];
    reasons.push(fade_reason(e.fade.as_ref(), e.load.as_ref()));
    // After the fixed four (the maintenance plan looks at the fade reason by place).
    let load = e.load.as_ref().map(load_reason);
    reasons.push(plp_reason(e.plp.as_ref()));
    reasons.push(endurance_reason(e.endurance.as_ref(), e.zil_bytes_per_day));
    reasons.extend(load);
    reasons.extend(e.volatile.as_deref().map(volatile_reason));
    let rating = reasons
        .iter()
        .filter_map(|r| r.rating)
        .max()
        .unwrap_or(Rating::Marginal);
    let fade_problem = reasons[1].rating.is_some_and(|r| r > Rating::Suitable);
    let plan = fade_problem
        .then(|| {
            e.fade
                .as_ref()
                .map(|f| plan(f, e.recovery.as_ref(), e.zil_bytes_per_day))
        })
        .flatten()
        .map(|p| match &e.over_provisioning {
            Some(o) => format!("{p}; {}", unpartitioned_words(o)),
            None => p,
        });
    Verdict {
        rating,
        reasons,
        bands: format!(
            "≤ {LAT_EXCELLENT_US:.0} µs excellent (RAM, NVRAM, Optane class); ≤ {LAT_GOOD_US:.0} µs good (NAND with power-loss protection); ≥ {LAT_UNSUITABLE_US:.0} µs unsuitable (a flush that goes to NAND). Sources: {LAT_BANDS_SOURCE}"
        ),
        plan,
    }
}

fn latency_reason(l: Option<&LatencyEvidence>) -> Reason {
    let threshold = format!(
        "≤ {LAT_EXCELLENT_US:.0} µs excellent, ≤ {LAT_GOOD_US:.0} µs good, ≥ {LAT_UNSUITABLE_US:.0} µs unsuitable"
    );
    let Some(l) = l else {
        return Reason {
            topic: "4 KiB sync-write latency".into(),
            rating: None,
            value: "not measured".into(),
            threshold,
            source: "run ssdfade slog on the device".into(),
        };
    };
    let (rating, word) = if l.mean_us <= LAT_EXCELLENT_US {
        (Rating::Suitable, "excellent")
    } else if l.mean_us <= LAT_GOOD_US {
        (Rating::Suitable, "good")
    } else if l.mean_us < LAT_UNSUITABLE_US {
        (Rating::Marginal, "slow")
    } else {
        (Rating::Unsuitable, "flush-bound")
    };
    Reason {
        topic: "4 KiB sync-write latency".into(),
        rating: Some(rating),
        value: format!(
            "{} mean, {} p99 ({word})",
            format_latency_us(l.mean_us),
            format_latency_us(l.p99_us)
        ),
        threshold,
        source: l.source.clone(),
    }
}

/// The sustained phase at the ZIL rate: could the device take the rate (late issues), did a
/// write stall, and how long did a write take at that load.
fn load_reason(l: &LoadEvidence) -> Reason {
    let a = &l.at;
    let late_pct = if l.writes > 0 {
        100.0 * a.late as f64 / l.writes as f64
    } else {
        100.0
    };
    let rating = if late_pct > LOAD_LATE_PCT {
        Rating::Unsuitable
    } else if a.writes_over_10ms > 0 || l.lat_us.mean > LAT_GOOD_US {
        Rating::Marginal
    } else {
        Rating::Suitable
    };
    let late = if a.late > 0 {
        format!(
            "{} issued late ({late_pct:.1} %, up to {} behind)",
            a.late,
            crate::units::format_latency_us(a.late_max_us)
        )
    } else {
        "none issued late".into()
    };
    Reason {
        topic: format!("sync writes at {}/s", a.rate_iops),
        rating: Some(rating),
        value: format!(
            "{}/s delivered for {}: {} mean, {} p99, {} max; {} over {} ms, {} over 1 ms; {late}",
            crate::units::format_count(l.delivered_iops),
            crate::units::format_duration(std::time::Duration::from_secs_f64(l.seconds)),
            format_latency_us(l.lat_us.mean),
            format_latency_us(l.lat_us.p99),
            format_latency_us(l.lat_us.max),
            a.writes_over_10ms,
            STALL_US / 1000,
            a.writes_over_1ms,
        ),
        threshold: format!(
            "no write over {} ms and mean ≤ {LAT_GOOD_US:.0} µs; > {LOAD_LATE_PCT:.0} % issued late (rate not held) unsuitable",
            STALL_US / 1000
        ),
        source: l.source.clone(),
    }
}

/// The fade under sustained writes, from a soak or an unpaced sustained phase; a phase paced
/// at `load`'s rate is said to be no measure of it.
fn fade_reason(f: Option<&FadeEvidence>, load: Option<&LoadEvidence>) -> Reason {
    let threshold =
        format!("keeps ≥ {FADE_OK_PCT:.0} % of fresh (median of its first window); < {FADE_BAD_PCT:.0} % unsuitable");
    let Some(f) = f else {
        if let Some(l) = load {
            return Reason {
                topic: "fade under sustained writes".into(),
                rating: None,
                value: format!(
                    "not measured: the sustained writes were paced at {}/s, so their rate is the pace, not the drive's (its latency is judged below)",
                    l.at.rate_iops
                ),
                threshold,
                source: "give --from a soak of this device, or --sustain without --zil-rate".into(),
            };
        }
        return Reason {
            topic: "fade under sustained writes".into(),
            rating: None,
            value: "not tested".into(),
            threshold,
            source: "give --from a soak of this device, or --sustain".into(),
        };
    };
    let ratio = FadeRatio::new(f.start_iops, f.end_iops);
    let pct = ratio.map_or(0.0, |r| r.pct_of_fresh);
    let rating = if pct >= FADE_OK_PCT {
        Rating::Suitable
    } else if pct >= FADE_BAD_PCT {
        Rating::Marginal
    } else {
        Rating::Unsuitable
    };
    Reason {
        topic: "fade under sustained writes".into(),
        rating: Some(rating),
        value: format!(
            "{} → {} IOPS = {} after {}",
            crate::units::format_count(f.start_iops),
            crate::units::format_count(f.end_iops),
            ratio.map_or("-".into(), |r| r.words()),
            crate::units::format_duration(std::time::Duration::from_secs_f64(f.seconds))
        ),
        threshold,
        source: f.source.clone(),
    }
}

fn plp_reason(p: Option<&PlpEvidence>) -> Reason {
    let threshold = "no acknowledged record lost or torn".to_string();
    let Some(p) = p else {
        return Reason {
            topic: "power-loss check".into(),
            rating: None,
            value: "not tested".into(),
            threshold,
            source: "run ssdfade plp write, cut the power, ssdfade plp verify; give its run directory with --from".into(),
        };
    };
    let bad = p.lost + p.torn;
    Reason {
        topic: "power-loss check".into(),
        rating: Some(if bad == 0 {
            Rating::Suitable
        } else {
            Rating::Unsuitable
        }),
        value: format!(
            "{} of {} acknowledged records lost, {} torn ({} over {:.0} s of writing)",
            p.lost,
            p.acknowledged,
            p.torn,
            crate::units::format_bytes(p.acknowledged_bytes),
            p.seconds
        ),
        threshold,
        source: p.source.clone(),
    }
}

/// A log on a medium that forgets at power-off loses what it acknowledged: the one thing a SLOG
/// is for. Shown only for such a device (the kernel cannot vouch for the others).
fn volatile_reason(why: &str) -> Reason {
    Reason {
        topic: "contents survive power-off".into(),
        rating: Some(Rating::Unsuitable),
        value: format!("no: {why}; everything on it is lost at power-off"),
        threshold: "stable storage (a RAM log device needs its own power-loss protection)".into(),
        source: "the kernel's view of the target".into(),
    }
}

fn endurance_reason(en: Option<&EnduranceEvidence>, per_day: f64) -> Reason {
    let threshold = format!(
        "≥ {ENDURANCE_OK_YEARS:.0} years at {}/day; < {ENDURANCE_BAD_YEARS:.0} year unsuitable",
        gb(per_day)
    );
    let Some(en) = en else {
        return Reason {
            topic: "endurance".into(),
            rating: None,
            value: "not measured".into(),
            threshold,
            source: "no wear change recorded during the runs: give --tbw from the datasheet".into(),
        };
    };
    let years = en.bytes_left / per_day / 365.0;
    let rating = if years >= ENDURANCE_OK_YEARS {
        Rating::Suitable
    } else if years >= ENDURANCE_BAD_YEARS {
        Rating::Marginal
    } else {
        Rating::Unsuitable
    };
    Reason {
        topic: "endurance".into(),
        rating: Some(rating),
        value: format!("{years:.1} years ({} left)", gb(en.bytes_left)),
        threshold,
        source: en.figure.clone(),
    }
}

/// "stripe the log over N devices; secure-erase each every D days (≈ M minutes each)":
/// each of N devices takes 1/N of the ZIL rate, so it writes its fade budget (the bytes until it
/// fell below the threshold) in N × budget / rate days. The smallest N with an erase at most
/// weekly is chosen.
fn plan(f: &FadeEvidence, recovery: Option<&RecoveryEvidence>, per_day: f64) -> String {
    let Some(budget) = f.bytes_to_threshold else {
        return format!(
            "no plan: the rate ended at {:.0} % of fresh without a clear point where it fell below {FADE_OK_PCT:.0} %",
            FadeRatio::new(f.start_iops, f.end_iops).map_or(0.0, |r| r.pct_of_fresh)
        );
    };
    let days = |n: u32| budget as f64 * f64::from(n) / per_day;
    let erase = match recovery {
        Some(r) if r.erase_seconds >= 60.0 => format!(
            "≈ {:.0} minutes each by {}, measured in {}",
            r.erase_seconds / 60.0,
            r.method,
            r.source
        ),
        Some(r) => format!(
            "≈ {:.1} s each by {}, measured in {}",
            r.erase_seconds, r.method, r.source
        ),
        None => "erase time not measured: time one with ssdfade erase".into(),
    };
    match (2..=PLAN_MAX_DEVICES).find(|&n| days(n) >= PLAN_MIN_DAYS) {
        Some(n) => format!(
            "stripe the log over {n} devices; secure-erase each every {:.0} days ({erase}): each fades after {} written, and takes 1/{n} of {}/day",
            days(n).floor(),
            gb(budget as f64),
            gb(per_day)
        ),
        None => format!(
            "no practical plan: the device fades after {} written, so even {PLAN_MAX_DEVICES} striped devices would each need an erase every {:.1} days at {}/day; use a RAM or PLP log device",
            gb(budget as f64),
            days(PLAN_MAX_DEVICES),
            gb(per_day)
        ),
    }
}

/// What the op-sweep (`--op-sweep`) says leaving part of the drive unpartitioned would give,
/// naming where the figures come from: "with 20 % left unpartitioned this drive would hold
/// about N IOPS (from its twin FILE)".
fn unpartitioned_words(o: &OpSweepEvidence) -> String {
    let source = match &o.twin {
        Some(twin) => format!("from its twin {twin}, op-sweep {}", o.source),
        None => format!("measured by the op-sweep in {}", o.source),
    };
    let size = crate::units::format_bytes(o.bs).replace(".0 ", " ");
    if o.unpartitioned_pct <= o.from_unpartitioned_pct {
        return format!(
            "leaving more of it unpartitioned would buy little: steady {size} random writes hold about {} IOPS ({source})",
            crate::units::format_count(o.from_iops)
        );
    }
    format!(
        "with {:.0} % left unpartitioned this drive would hold about {} IOPS of steady {size} random writes instead of {}, p99 {} → {} ({source})",
        o.unpartitioned_pct,
        crate::units::format_count(o.to_iops),
        crate::units::format_count(o.from_iops),
        crate::units::format_latency_us(o.from_p99_ms * 1e3),
        crate::units::format_latency_us(o.to_p99_ms * 1e3)
    )
}

fn gb(bytes: f64) -> String {
    if bytes >= 1e12 {
        format!("{:.1} TB", bytes / 1e12)
    } else {
        format!("{:.1} GB", bytes / 1e9)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn evidence(mean_us: f64) -> Evidence {
        Evidence {
            latency: Some(LatencyEvidence {
                mean_us,
                p99_us: mean_us * 2.0,
                source: "test".into(),
            }),
            load: None,
            fade: None,
            recovery: None,
            plp: None,
            endurance: None,
            zil_bytes_per_day: 200e9,
            volatile: None,
            over_provisioning: None,
        }
    }

    #[test]
    fn a_volatile_device_is_unsuitable_however_fast_it_is() {
        let mut e = evidence(5.0);
        assert_eq!(judge(&e).rating, Rating::Suitable);
        e.volatile = Some("/dev/zram3 is a RAM device (zram)".into());
        let v = judge(&e);
        assert_eq!(v.rating, Rating::Unsuitable);
        let last = v.reasons.last().unwrap();
        assert_eq!(last.topic, "contents survive power-off");
        assert!(last.value.contains("lost at power-off"), "{}", last.value);
    }

    #[test]
    fn latency_bands_decide_when_nothing_else_was_tested() {
        assert_eq!(judge(&evidence(20.0)).rating, Rating::Suitable);
        assert_eq!(judge(&evidence(300.0)).rating, Rating::Suitable);
        assert_eq!(judge(&evidence(301.0)).rating, Rating::Marginal);
        assert_eq!(judge(&evidence(1000.0)).rating, Rating::Unsuitable);
        let v = judge(&evidence(20.0));
        assert!(v.reasons[0].value.contains("20 µs mean"));
        assert!(v.reasons[0].value.contains("excellent"));
        // Untested topics are shown, never assumed.
        assert_eq!(v.reasons[2].rating, None);
        assert_eq!(v.reasons[2].value, "not tested");
        assert!(v.bands.contains("diskinfo"));
    }

    #[test]
    fn a_lost_record_makes_any_device_unsuitable() {
        let mut e = evidence(20.0);
        e.plp = Some(PlpEvidence {
            acknowledged: 1000,
            acknowledged_bytes: 4_096_000,
            seconds: 62.4,
            lost: 3,
            torn: 0,
            source: "plp".into(),
        });
        let v = judge(&e);
        assert_eq!(v.rating, Rating::Unsuitable);
        assert_eq!(
            v.reasons[2].value,
            "3 of 1000 acknowledged records lost, 0 torn (3.9 MiB over 62 s of writing)"
        );
    }

    #[test]
    fn fade_below_half_gives_the_maintenance_plan() {
        let mut e = evidence(120.0);
        e.fade = Some(FadeEvidence {
            start_iops: 4000.0,
            end_iops: 1000.0,
            seconds: 8.0 * 3600.0,
            bytes_to_threshold: Some(400_000_000_000),
            source: "soak".into(),
        });
        e.recovery = Some(RecoveryEvidence {
            erase_seconds: 300.0,
            method: "ata-secure-erase".into(),
            source: "erase dir".into(),
        });
        let v = judge(&e);
        assert_eq!(v.rating, Rating::Unsuitable);
        assert!(v.reasons[1].value.contains("25 % of fresh (loss 75 %)"));
        // 400 GB per device at 200/N GB a day: N = 4 gives 8 days (3 gives 6).
        let plan = v.plan.unwrap();
        assert!(
            plan.starts_with(
                "stripe the log over 4 devices; secure-erase each every 8 days (≈ 5 minutes each"
            ),
            "{plan}"
        );
    }

    #[test]
    fn the_plan_says_what_an_op_sweep_of_the_drive_gives_and_only_when_it_fades() {
        let mut e = evidence(120.0);
        e.over_provisioning = Some(OpSweepEvidence {
            unpartitioned_pct: 20.0,
            from_unpartitioned_pct: 0.0,
            from_iops: 910.0,
            to_iops: 1800.4,
            from_p99_ms: 12.0,
            to_p99_ms: 6.5,
            bs: 4096,
            twin: Some("v2.toml".into()),
            source: "ops".into(),
        });
        assert_eq!(
            judge(&e).plan,
            None,
            "no fade: no plan, whatever the op-sweep says"
        );
        e.fade = Some(FadeEvidence {
            start_iops: 4000.0,
            end_iops: 1000.0,
            seconds: 3600.0,
            bytes_to_threshold: Some(400_000_000_000),
            source: "soak".into(),
        });
        let plan = judge(&e).plan.unwrap();
        assert!(
            plan.ends_with("; with 20 % left unpartitioned this drive would hold about 1800 IOPS of steady 4 KiB random writes instead of 910, p99 12 ms → 6.5 ms (from its twin v2.toml, op-sweep ops)"),
            "{plan}"
        );
        let o = e.over_provisioning.as_mut().unwrap();
        (o.twin, o.unpartitioned_pct) = (None, 0.0);
        let plan = judge(&e).plan.unwrap();
        assert!(
            plan.ends_with("; leaving more of it unpartitioned would buy little: steady 4 KiB random writes hold about 910 IOPS (measured by the op-sweep in ops)"),
            "{plan}"
        );
    }

    #[test]
    fn a_fast_fader_gets_no_practical_plan() {
        let mut e = evidence(120.0);
        e.fade = Some(FadeEvidence {
            start_iops: 4000.0,
            end_iops: 2400.0,
            seconds: 600.0,
            bytes_to_threshold: Some(10_000_000_000),
            source: "soak".into(),
        });
        let v = judge(&e);
        assert_eq!(v.rating, Rating::Marginal);
        assert!(v.plan.unwrap().starts_with("no practical plan"));
    }

    #[test]
    fn endurance_in_years_at_the_zil_rate() {
        let mut e = evidence(20.0);
        e.endurance = Some(EnduranceEvidence {
            bytes_left: 146e12,
            figure: "--tbw 146TB".into(),
        });
        let v = judge(&e);
        assert!(
            v.reasons[3].value.starts_with("2.0 years"),
            "{:?}",
            v.reasons[3]
        );
        assert_eq!(v.reasons[3].rating, Some(Rating::Marginal));
        assert_eq!(v.rating, Rating::Marginal);
    }

    fn plan_for(budget: u64) -> String {
        let fade = FadeEvidence {
            start_iops: 4000.0,
            end_iops: 1000.0,
            seconds: 3600.0,
            bytes_to_threshold: Some(budget),
            source: "soak".into(),
        };
        plan(&fade, None, 200e9)
    }

    /// The plan's edges at 200 GB/day: 700 GB per device lasts exactly 7 days on 2 devices
    /// (the weekly erase is allowed); 175 GB lasts exactly 7 days on 8, the most striped;
    /// one byte less is no practical plan.
    #[test]
    fn the_plan_takes_the_fewest_devices_with_an_erase_at_most_weekly() {
        assert!(
            plan_for(700_000_000_000)
                .starts_with("stripe the log over 2 devices; secure-erase each every 7 days"),
            "{}",
            plan_for(700_000_000_000)
        );
        assert!(plan_for(699_999_999_999)
            .starts_with("stripe the log over 3 devices; secure-erase each every 10 days"));
        assert!(plan_for(175_000_000_000)
            .starts_with("stripe the log over 8 devices; secure-erase each every 7 days"));
        assert!(plan_for(174_999_999_999).starts_with("no practical plan"));
    }

    /// Endurance bands at 200 GB/day: exactly 3 years is suitable, exactly 1 year marginal,
    /// less unsuitable.
    #[test]
    fn endurance_bands_include_their_lower_edges() {
        let rating = |years: f64| {
            let en = EnduranceEvidence {
                bytes_left: years * 365.0 * 200e9,
                figure: "test".into(),
            };
            endurance_reason(Some(&en), 200e9).rating
        };
        assert_eq!(rating(3.0), Some(Rating::Suitable));
        assert_eq!(rating(2.99), Some(Rating::Marginal));
        assert_eq!(rating(1.0), Some(Rating::Marginal));
        assert_eq!(rating(0.99), Some(Rating::Unsuitable));
    }
}
