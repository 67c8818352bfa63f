//! The greedy-GC prediction recomputed from samples.jsonl alone, as docs/fast-steady-state.md
//! and the reference's flash model (shared/reference/ftl-sim-model.md §1, §4) describe it: a
//! small flash of 4 KiB pages in large blocks under uniform random writes of the run's write
//! unit, collected greedily (the block with the fewest valid units), gives the write
//! amplification per 2 % of a span-write; the drive's time per write against that WA since the
//! model's cliff is fitted with three straight lines (through the origin, from the rate before
//! the cliff, free); the centre at the steady WA is the middle one, pulled toward the free line
//! where the bins tell them apart; the interval is the origin line's allowance and the lines'
//! spread. Compared with run.json, `--json`, report.md and the fade chart's record, and with
//! what the run then did (the last span-write's level).

use serde_json::Value;

use super::drawn::{record, series};
use super::predict::{round_ends, text};
use super::{close, intervals, json, num, Interval};
use crate::common::{run_ok, ssdfade};

/// The model flash: 512 blocks of 256 pages of 4 KiB, up to 4 times more blocks for larger
/// write units; two blocks kept free; 14 span-writes in steps of 2 %, averaged over ±5 steps
/// from its first rise.
const PAGE: u64 = 4096;
const STEP: f64 = 0.02;

/// Greedy flash of `blocks` blocks of `ppb` units holding `user` units; counts host writes and
/// garbage-collection copies.
struct Flash {
    ppb: usize,
    /// Where each user unit lives (block, slot), and what each slot holds.
    at: Vec<Option<(usize, usize)>>,
    slots: Vec<Vec<Option<usize>>>,
    valid: Vec<usize>,
    /// Free blocks: taken from the end, a collected block put at the front.
    free: Vec<usize>,
    /// Blocks written full and not yet collected.
    full: Vec<bool>,
    open: usize,
    fill: usize,
    host: u64,
    copies: u64,
}

impl Flash {
    fn new(user: usize, blocks: usize, ppb: usize) -> Flash {
        Flash {
            ppb,
            at: vec![None; user],
            slots: vec![vec![None; ppb]; blocks],
            valid: vec![0; blocks],
            free: (1..blocks).rev().collect(),
            full: vec![false; blocks],
            open: 0,
            fill: 0,
            host: 0,
            copies: 0,
        }
    }

    /// Appends unit `u` to the open block (which has room).
    fn append(&mut self, u: usize) {
        self.slots[self.open][self.fill] = Some(u);
        self.at[u] = Some((self.open, self.fill));
        self.valid[self.open] += 1;
        self.fill += 1;
    }

    fn next_open(&mut self) {
        self.full[self.open] = true;
        self.open = self.free.pop().unwrap();
        self.fill = 0;
    }

    fn write(&mut self, u: usize) {
        self.host += 1;
        if let Some((b, s)) = self.at[u].take() {
            self.valid[b] -= 1;
            self.slots[b][s] = None;
        }
        if self.fill == self.ppb {
            while self.free.len() <= 2 {
                self.collect();
            }
            if self.fill == self.ppb {
                self.next_open();
            }
        }
        self.append(u);
    }

    /// Greedy: the full block with the fewest valid units (the lowest-numbered of those).
    fn collect(&mut self) {
        let victim = (0..self.valid.len())
            .filter(|&b| self.full[b])
            .min_by_key(|&b| (self.valid[b], b))
            .unwrap();
        self.full[victim] = false;
        for s in 0..self.ppb {
            if let Some(u) = self.slots[victim][s].take() {
                self.copies += 1;
                if self.fill == self.ppb {
                    self.next_open();
                }
                self.valid[victim] -= 1;
                self.append(u);
            }
        }
        self.free.insert(0, victim);
    }
}

/// The model's WA per step of 2 % of a span-write, for flash `alpha` times the span written in
/// `bs`-byte units; and its steady WA (the mean over the last two span-writes).
fn wa_curve(alpha: f64, bs: u64) -> (Vec<f64>, f64) {
    let unit = (bs / PAGE).clamp(1, 256) as usize;
    let (blocks, ppb) = (512 * unit.min(4), 256 / unit);
    let user = ((blocks * ppb) as f64 / alpha) as usize;
    let mut flash = Flash::new(user.max(ppb), blocks, ppb);
    // xorshift64, as the model seeds it.
    let mut x = 0x853c_49e6_748f_ea9bu64;
    let per_step = ((user as f64 * STEP) as u64).max(1);
    let mut wa = Vec::new();
    for _ in 0..(14.0 / STEP) as usize {
        let (h0, c0) = (flash.host, flash.copies);
        for _ in 0..per_step {
            x ^= x << 13;
            x ^= x >> 7;
            x ^= x << 17;
            flash.write(((u128::from(x) * user as u128) >> 64) as usize);
        }
        wa.push((flash.host - h0 + flash.copies - c0) as f64 / (flash.host - h0) as f64);
    }
    let rise = wa.iter().position(|&w| w > 1.0).unwrap_or(wa.len());
    let smooth: Vec<f64> = (0..wa.len())
        .map(|i| {
            if i < rise {
                return wa[i];
            }
            let part = &wa[i.saturating_sub(5).max(rise)..(i + 6).min(wa.len())];
            part.iter().sum::<f64>() / part.len() as f64
        })
        .collect();
    let steady = smooth[smooth.len() - 100..].iter().sum::<f64>() / 100.0;
    (smooth, steady)
}

/// Flash pages a `bs`-byte write at `align`-byte offsets rewrites per page it carries.
fn straddle(bs: u64, align: u64) -> f64 {
    let mut step = PAGE;
    while !align.is_multiple_of(step) {
        step /= 2;
    }
    let starts = PAGE / step;
    let pages: u64 = (0..starts).map(|k| (k * step + bs).div_ceil(PAGE)).sum();
    pages as f64 / starts as f64 / bs.div_ceil(PAGE) as f64
}

/// The prediction: (IOPS, low, high, steady WA), `None` while fewer than five bins past the
/// model's cliff or the drive's time per write does not follow the model's WA.
fn greedy(
    samples: &[&Interval],
    curve: &[f64],
    wa_inf: f64,
    span: f64,
    strad: f64,
) -> Option<(f64, f64, f64)> {
    let wa = |x: f64| curve[((x * strad / STEP).floor().max(0.0) as usize).min(curve.len() - 1)];
    // Bins of 2 % of a span-write past the cliff (WA ≥ 1.02): (WA at the bin's middle, s/op).
    let mut bins: Vec<(usize, u64, f64)> = Vec::new();
    let mut before = (0u64, 0.0f64);
    let cliff = (0..)
        .map(|i| i as f64 * STEP)
        .find(|&x| wa(x) >= 1.02 || x > 14.0)?;
    for s in samples {
        let at = (s.written_total - s.written) as f64 / span;
        if at < cliff && at >= cliff - 5.0 * STEP {
            before = (before.0 + s.ops, before.1 + s.t_end_s - s.t_start_s);
        }
        if wa(at) < 1.02 {
            continue;
        }
        let i = (at / STEP) as usize;
        match bins.last_mut() {
            Some(b) if b.0 == i || b.1 == 0 => {
                b.0 = i;
                b.1 += s.ops;
                b.2 += s.t_end_s - s.t_start_s;
            }
            _ => bins.push((i, s.ops, s.t_end_s - s.t_start_s)),
        }
    }
    let bins: Vec<(f64, f64)> = bins
        .iter()
        .filter(|b| b.1 > 0)
        .map(|b| (wa((b.0 as f64 + 0.5) * STEP), b.2 / b.1 as f64))
        .collect();
    if bins.len() < 5 {
        return None;
    }
    let fresh = (before.0 > 0).then(|| before.1 / before.0 as f64);
    let n = bins.len() as f64;
    let mw = bins.iter().map(|p| p.0).sum::<f64>() / n;
    let my = bins.iter().map(|p| p.1).sum::<f64>() / n;
    let sxx: f64 = bins.iter().map(|p| (p.0 - mw).powi(2)).sum();
    let sxy: f64 = bins.iter().map(|p| (p.0 - mw) * (p.1 - my)).sum();
    let (w_now, free_k) = (bins[n as usize - 1].0, sxy / sxx);
    // Does the drive slow with the model's WA (by a quarter of its rise, once it rose 0.1)?
    if let Some(y1) = fresh {
        let rise = w_now - 1.0;
        if rise >= 0.1 && (my + free_k * (w_now - mw)) / y1 - 1.0 < 0.25 * rise {
            return None;
        }
    }
    // Lines y(WA) as (y at WA 1, slope).
    let b =
        bins.iter().map(|p| p.0 * p.1).sum::<f64>() / bins.iter().map(|p| p.0 * p.0).sum::<f64>();
    let rel_se = (bins
        .iter()
        .map(|p| (p.1 / p.0 / b - 1.0).powi(2))
        .sum::<f64>()
        / (n - 1.0)
        / n)
        .sqrt();
    let origin = (b, b);
    let free = (my + free_k * (1.0 - mw), free_k);
    let anchored = fresh.map(|y1| {
        let k = bins.iter().map(|p| (p.0 - 1.0) * (p.1 - y1)).sum::<f64>()
            / bins.iter().map(|p| (p.0 - 1.0).powi(2)).sum::<f64>();
        (y1, k)
    });
    let y = |l: (f64, f64)| l.0 + l.1 * (wa_inf - 1.0);
    let mut lines: Vec<(f64, f64)> = [Some(origin), anchored, Some(free)]
        .into_iter()
        .flatten()
        .collect();
    lines.sort_by(|p, q| y(*p).total_cmp(&y(*q)));
    let middle = if lines.len() == 3 && y(lines[1]) > 0.0 {
        lines[1]
    } else {
        origin
    };
    // Pulled toward the free line from 2 of its standard errors apart, all the way at 8.
    let free_var = bins
        .iter()
        .map(|p| (my + free_k * (p.0 - mw) - p.1).powi(2))
        .sum::<f64>()
        / (n - 2.0);
    let free_se = (free_var * (1.0 / n + (wa_inf - mw).powi(2) / sxx)).sqrt();
    let share = (((y(free) - y(middle)).abs() / free_se - 2.0) / 6.0).clamp(0.0, 1.0);
    let pulled = (
        middle.0 + share * (free.0 - middle.0),
        middle.1 + share * (free.1 - middle.1),
    );
    let centre = if y(pulled) > 0.0 { pulled } else { middle };
    let (y_inf, y_origin) = (y(centre), y(origin));
    let allowance = y_origin
        * (2.0 * rel_se
            + 0.02
            + 0.4 * ((wa_inf - w_now) / wa_inf).abs()
            + (y(free) - y_origin).abs() / y_origin);
    let spread = lines
        .iter()
        .map(|l| (y(*l) - y_inf).abs())
        .fold((y_origin - y_inf).abs(), f64::max);
    let half = (allowance + spread) / y_inf;
    // No faster than the fastest bin since the cliff.
    let ceiling = bins.iter().map(|p| 1.0 / p.1).fold(0.0, f64::max);
    let iops = (1.0 / y_inf).min(ceiling);
    let high = (iops / (1.0 - half).max(f64::MIN_POSITIVE)).min(ceiling);
    Some((iops, (iops / (1.0 + half)).min(iops), high.max(iops)))
}

/// A 2-hour soak of a simulated datacentre SSD (its fall is garbage collection's alone): the
/// prediction of run.json and `--json`, made at the last round's end, first made at the first
/// round's end with five bins past the model's cliff; its level and interval recomputed;
/// report.md's line and its verdict against the last span-write; the fade chart's band and
/// line; and the first prediction holds the level the run then measured.
#[test]
fn the_greedy_predictions_level_interval_and_made_at_are_the_oracles() {
    let tmp = tempfile::tempdir().unwrap();
    let dir = tmp.path().join("soak");
    let out = run_ok(
        ssdfade(tmp.path())
            .args(["soak", "sim:dc-ssd-400g,scale=32", "--duration", "2h"])
            .args(["--interval", "10s", "--seed", "3", "--json", "--out"])
            .arg(&dir),
    );
    let v: Value = serde_json::from_str(&out).unwrap();
    let info = json(&dir.join("run.json"));
    let p = &info["prediction"];
    assert_eq!(
        &v["prediction"], p,
        "--json and run.json tell one prediction"
    );
    assert_eq!(p["model"], "greedy", "{p}");
    let w = &info["workload"];
    let span = num(&w["span"]);
    let flash = num(&info["drive_before"]["flash_bytes"]);
    let bs = w["bs"].as_u64().unwrap();
    let strad = straddle(bs, w["align"].as_u64().unwrap());
    let (curve, wa_inf) = wa_curve(flash / span, bs);
    close("span α", num(&p["span_alpha"]), flash / span, 1e-12);
    close("steady WA", num(&p["write_amplification"]), wa_inf, 1e-12);

    let samples = intervals(&dir);
    let ends = round_ends(&samples);
    let upto = |i: usize| samples[..=i].iter().collect::<Vec<_>>();
    let predict = |i: usize| greedy(&upto(i), &curve, wa_inf, span, strad);
    let last = *ends.last().unwrap();
    close(
        "made at",
        num(&p["made_at_s"]),
        samples[last].t_end_s,
        1e-12,
    );
    assert_eq!(
        p["made_at_bytes"].as_u64(),
        Some(samples[last].written_total)
    );
    let (iops, low, high) = predict(last).expect("the oracle predicts at the run's end");
    close("predicted IOPS", num(&p["iops"]), iops, 1e-9);
    close("interval low", num(&p["low"]), low, 1e-9);
    close("interval high", num(&p["high"]), high, 1e-9);
    let half = 100.0 * (iops - low).max(high - iops) / iops;
    close("half-width %", num(&p["half_width_pct"]), half, 1e-9);

    // First made at the first round's end at which the oracle predicts.
    let first_end = ends
        .iter()
        .copied()
        .find(|&i| predict(i).is_some())
        .unwrap();
    let first = samples[first_end].t_end_s;
    close("first made at", num(&p["first_made_at_s"]), first, 1e-12);

    // What the run then did: the mean IOPS over its last span-write.
    let total = samples[last].written_total as f64;
    let tail: Vec<&Interval> = samples
        .iter()
        .filter(|s| s.written_total as f64 > total - span)
        .collect();
    let settled = tail.iter().map(|s| s.ops).sum::<u64>() as f64
        / tail.iter().map(|s| s.t_end_s - s.t_start_s).sum::<f64>();
    // The first prediction, made early (under a span-write and a half), holds it.
    let (e, e_low, e_high) = predict(first_end).unwrap();
    assert!(samples[first_end].written_total as f64 <= 1.5 * span);
    assert!(
        e_low <= settled && settled <= e_high,
        "first made at {first} s: {e:.0} ({e_low:.0}–{e_high:.0}) against {settled:.0} measured"
    );

    // report.md: the level, interval and made-at, and its verdict on the last span-write.
    run_ok(ssdfade(tmp.path()).arg("report").arg(&dir));
    let md = std::fs::read_to_string(dir.join("report.md")).unwrap();
    let verdict = if low <= settled && settled <= high {
        "inside"
    } else {
        "OUTSIDE"
    };
    for want in [
        format!(
            "{iops:.0} IOPS ({low:.0}–{high:.0}: −{:.1} % / +{:.1} %)",
            100.0 * (1.0 - low / iops),
            100.0 * (high / iops - 1.0)
        ),
        format!("first made at {}, last at {}", text(first), text(samples[last].t_end_s)),
        format!(
            "The last span-write's mean {settled:.0} IOPS: the prediction is {:+.1} % off, {verdict} its interval",
            100.0 * (iops / settled - 1.0)
        ),
    ] {
        assert!(md.contains(&want), "report.md lacks {want:?}:\n{md}");
    }

    // fade.png: the interval band from when it was first made to the plan's end, the level as
    // a line over it; over bytes, from the bytes then to the bytes at the last prediction.
    let drawn = record(&dir, "fade");
    let name = format!(
        "predicted {iops:.0} ({low:.0}–{high:.0}), first made at {}",
        text(first)
    );
    for (panel, from, to) in [
        (&drawn.panels[0], first / 60.0, num(&w["duration"]) / 60.0),
        (
            &drawn.panels[1],
            samples[first_end].written_total as f64 / 1e9,
            total / 1e9,
        ),
    ] {
        let band = panel
            .bands
            .iter()
            .find(|b| b.name.starts_with(&name))
            .unwrap_or_else(|| panic!("no band {name:?} in {:?}", panel.bands));
        close("band from", band.x.0, from, 1e-9);
        close("band to", band.x.1, to, 1e-9);
        let (y0, y1) = band.y.expect("the band's interval");
        close("band low", y0, low, 1e-9);
        close("band high", y1, high, 1e-9);
        for (x, y) in series(panel, &name) {
            close("line level", y, iops, 1e-9);
            assert!(
                x >= from - 1e-9,
                "{name}: drawn at {x}, before it was made ({from})"
            );
        }
    }
}
