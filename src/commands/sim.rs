//! `ssdfade sim list` (the presets and their parameters), `ssdfade sim fit` (a twin fitted to a
//! soak), `ssdfade sim bench` (how many host
//! writes per second the model simulates, for the speed figures in docs/simulator.md), and
//! `ssdfade sim idle` / `sim power-cut` on a drive kept in a `state=` file.

use crate::cli::SimCommand;
use crate::sim::presets::{GcPacing, PRESETS};
use crate::sim::SimDrive;
use crate::units::{format_bytes, format_count};

/// Runs a `sim` subcommand.
pub fn run(cmd: &SimCommand) -> anyhow::Result<()> {
    match cmd {
        SimCommand::List => {
            crate::out!("{}", list())?;
            Ok(())
        }
        SimCommand::Bench {
            target,
            writes,
            align,
        } => bench(target, *writes, *align),
        SimCommand::Idle { target, duration } => {
            if duration.is_zero() {
                crate::bad_input!("an idle time of 0 does nothing: give a duration such as 10m");
            }
            crate::out!(
                "{}",
                SimDrive::open_kept(target, "idle time")?.idle(*duration)?
            )?;
            Ok(())
        }
        SimCommand::Fit { dir, output, base } => {
            crate::sim::twin::Twin::refuse_replacing(output)?;
            // Ctrl-C or SIGTERM ends the fit within a twin's interval (exit 130), its
            // temporary twin removed.
            crate::run::install_signal_flag()?;
            let twin = crate::sim::twin::fit_dir(dir, base.as_deref())?;
            twin.save(output)?;
            crate::out!("{}", twin.summary(output))?;
            Ok(())
        }
        SimCommand::PowerCut { target } => {
            crate::out!(
                "{}",
                SimDrive::open_kept(target, "a power cut")?.power_cut()?
            )?;
            Ok(())
        }
    }
}

/// The presets table and the target options, as `sim list` prints them.
pub fn list() -> String {
    let mut out = String::from("Simulated drives (target sim:NAME[,key=value…]):\n\n");
    for p in &PRESETS {
        out += &format!("{}\n  {}\n", p.name, p.description);
        out += &format!(
            "  user {} ({} GB), over-provisioning α {:.3}, {} pages of 4 KiB per block, NAND pages of {} KiB, {} channels, {} dies{}\n",
            format_bytes(p.user_bytes),
            p.user_bytes / 1_000_000_000,
            p.alpha,
            p.pages_per_block,
            4 * p.read_page,
            p.channels,
            p.dies,
            if p.max_dies > 0 {
                format!(" (the controller runs at most {} at once)", p.max_dies)
            } else {
                String::new()
            }
        );
        out += &format!(
            "  NAND per 4 KiB: read {} µs (then {} µs decoding in the controller), program {} µs, erase {} µs per block, transfer {} µs\n",
            p.read_us, p.decode_us, p.program_us, p.erase_us, p.transfer_us
        );
        out += &format!(
            "  controller {} IOPS (unaligned writes cost {}×, +{}× for sub-page incompressible ones), link {} MB/s, cache ack {} µs, cache {} ({})\n",
            format_count(p.controller_iops),
            p.unaligned_cost,
            p.subpage_incompressible_cost,
            format_count(p.link_bytes_per_s / 1e6),
            p.ack_us,
            format_bytes(p.cache_bytes),
            p.cache
        );
        out += &format!(
            "  per command: host protocol {} µs, link {} µs plus the bytes, controller {:.1} µs (a read {}×, a GC relocation {}× a command); read-ahead {}; {}\n",
            p.host_us,
            p.link_command_us,
            1e6 / p.controller_iops,
            p.read_cost,
            p.gc_command_cost,
            if p.readahead { "on" } else { "off" },
            if p.tail_us[0] > 0.0 {
                format!(
                    "latency tail: {} µs more at p99, {} µs at p99.999",
                    p.tail_us[0], p.tail_us[1]
                )
            } else {
                "no latency tail beyond GC".to_string()
            }
        );
        out += &format!(
            "  GC pacing {}, bursts of {} blocks{}{}{}{}\n",
            match p.gc.pacing {
                GcPacing::Waves => format!("waves (burstiness {})", p.gc.burstiness),
                GcPacing::Continuous => "continuous".to_string(),
                GcPacing::Watermarks => format!(
                    "watermark bursts (burstiness {} as a burst starts)",
                    p.gc.burstiness
                ),
            },
            p.gc.burst_blocks,
            if p.gc.interleaved {
                ", host I/O between GC operations"
            } else {
                ""
            },
            if p.gc.suspend_us > 0.0 {
                format!(", erase suspend {} µs", p.gc.suspend_us)
            } else {
                String::new()
            },
            if p.gc.cost_benefit {
                ", victims by cost-benefit"
            } else {
                ", greedy victims"
            },
            if p.gc.hot_window > 0.0 {
                format!(
                    ", hot and cold streams (hot_window {}: a page rewritten within {} × the capacity of host writes is hot)",
                    p.gc.hot_window, p.gc.hot_window
                )
            } else {
                String::new()
            }
        );
        out += &format!(
            "  compression/dedupe {}; ",
            if p.compression { "on" } else { "off" }
        );
        match p.throttle {
            Some(t) => {
                out += &format!(
                    "lifetime throttling on: {} P/E over {:.0} h, {:.0} h credit, {} programs/s, rate ÷e per {} P/E of debt\n",
                    t.rated_pe,
                    t.warranty_h,
                    t.credit_h,
                    format_count(t.max_pages_per_s),
                    t.debt_scale_pe
                )
            }
            None => out += "lifetime throttling off\n",
        }
        if let Some(s) = p.slc {
            let policy = if s.static_bytes >= s.bytes {
                "static only, folded at idle".to_string()
            } else if s.dynamic_min_free > 0.0 {
                format!(
                    "{} static, the rest only while {} % of the drive is free, folded at idle and when space runs low",
                    format_bytes(s.static_bytes),
                    s.dynamic_min_free * 100.0
                )
            } else {
                format!(
                    "{} static plus a third of the free space, folded at idle and when space runs low",
                    format_bytes(s.static_bytes)
                )
            };
            out += &format!(
                "  SLC cache up to {} at {} µs per 4 KiB: {policy}{}\n",
                format_bytes(s.bytes),
                s.program_us,
                if s.family_max_bytes > 0 {
                    format!(
                        "; larger capacities of the family: at most {}",
                        format_bytes(s.family_max_bytes)
                    )
                } else {
                    String::new()
                }
            );
        }
        out += &format!(
            "  defaults: aged={} scale={}\n\n",
            humantime::format_duration(p.aged),
            p.scale
        );
    }
    out += &crate::text::wrap(
        "Options: aged=DURATION (service history of a new drive, e.g. 4months; 0s = new), \
         scale=N (simulate an N× smaller drive, each I/O standing for N), capacity=SIZE \
         (another capacity of the family: dies, blocks, SLC cache and GC burst scale with it, \
         up to the family's largest), alpha=X, cache=none|volatile|plp|lying, \
         compression=on|off, throttle=on|off, fail_after=N (EIO after N writes), \
         fail_at=OFFSET (EIO there), fault=drop|misdirect|corrupt:N (every Nth write lost, \
         one block off, or damaged: see --verify), state=PATH (keep the drive between \
         commands), seed=N (aging history).",
        WIDTH,
        "",
        "  ",
    );
    out += &crate::text::wrap(
        "Quote a value holding a comma: state='/tmp/a,b.sim' (or \"…\", or escape it: a\\,b).",
        WIDTH,
        "",
        "  ",
    );
    fit(&out)
}

/// The listing's width: an 80-column terminal.
const WIDTH: usize = 80;

/// Every line of `listing` longer than [`WIDTH`] wrapped under its own indent plus four.
fn fit(listing: &str) -> String {
    let mut out = String::new();
    for line in listing.lines() {
        if line.chars().count() <= WIDTH {
            out.push_str(line);
            out.push('\n');
        } else {
            let indent = &line[..line.len() - line.trim_start().len()];
            out += &crate::text::wrap(line, WIDTH, indent, &format!("{indent}    "));
        }
    }
    out
}

fn bench(target: &str, writes: Option<u64>, align: u64) -> anyhow::Result<()> {
    let r = crate::sim::bench::bench(target, writes, align)?;
    let writes = r.writes;
    crate::outln!(
        "sim bench {target}: 4 KiB random writes aligned to {align} bytes, QD128, {writes} simulated host writes"
    )?;
    crate::outln!("  model built in {:.2} s", r.build_s)?;
    crate::outln!(
        "  {:.2} M host writes/s ({:.2} s), lifetime write amplification {:.2}, power-on time {:.0} s",
        writes as f64 / r.run_s / 1e6,
        r.run_s,
        r.write_amplification,
        r.simulated_s
    )?;
    crate::outln!("  peak RSS {} MiB", max_rss_kib() / 1024)?;
    Ok(())
}

/// Peak resident set size of this process in KiB.
pub fn max_rss_kib() -> i64 {
    nix::sys::resource::getrusage(nix::sys::resource::UsageWho::RUSAGE_SELF)
        .map(|u| u.max_rss())
        .unwrap_or(0)
}
