//! Command-line definitions. Options are parsed once into plain structs the commands read.

use std::path::PathBuf;
use std::time::Duration;

use clap::{Args, Parser, Subcommand};

use crate::device::nvme::SanitizeAction;
use crate::engine::EngineKind;
use crate::erase::Method;
use crate::pattern::Pattern;
use crate::plot::Format;
use crate::results::ReferenceIops;
use crate::run::WorkloadSpec;
use crate::units::{
    parse_duration, parse_positive_duration, parse_positive_size, parse_size, parse_transfer_size,
};
use crate::workload::{Distribution, OnError, Rate, SpanStart};

#[derive(Parser, Debug)]
#[command(
    name = "ssdfade",
    version = concat!(env!("CARGO_PKG_VERSION"), " (", env!("SSDFADE_BUILD"), ")"),
    about = "Soak-test an SSD: how fast it starts, how far it fades, whether TRIM or a secure erase brings it back",
    after_help = "Writing to a block device destroys its data and needs --destroy-data naming the same device.",
    arg_required_else_help = true
)]
pub struct Cli {
    #[command(subcommand)]
    pub command: Command,
}

#[derive(Subcommand, Debug)]
pub enum Command {
    /// Spot check: run a workload for a short time and print an Iometer-style table.
    Measure(MeasureArgs),
    /// Long run (default 8 h) with a progress bar, sampled every --interval (default 10 s).
    Soak(SoakArgs),
    /// Print how fast this machine generates write data (GB/s per core) for every pattern.
    Selftest(SelftestArgs),
    /// Simulated drives (`sim:PRESET[,key=value…]` targets): list presets, benchmark the model,
    /// idle time and power cuts of a kept drive.
    #[command(subcommand)]
    Sim(SimCommand),
    /// What the target is and how worn: identity, geometry, cache, discard, secure-erase
    /// capabilities, use, and SMART wear. Read-only.
    Info(InfoArgs),
    /// Erase the target (TRIM, secure erase, format, sanitize…), timed and recorded.
    Erase(EraseArgs),
    /// Is it fit to be a ZFS SLOG? QD1 sync-write sweep, concurrency, sustained phase, an
    /// optional RAM baseline, and a verdict with its reasons.
    Slog(SlogArgs),
    /// Power-loss check (diskchecker's method): listen, write, cut the power, verify.
    #[command(subcommand)]
    Plp(PlpCommand),
    /// List the run and erase directories under DIR: status (a run whose process died shows as
    /// crashed), target, duration and IOPS.
    Runs(RunsArgs),
    /// Draw a run directory's charts again from its saved data alone (also a crashed run).
    Plot(PlotArgs),
    /// Print a run's report and write report.md and a self-contained report.html into it.
    Report(ReportArgs),
    /// Compare runs: headline figures with ratios to the first and an overlay fade chart.
    Compare(CompareArgs),
    /// Many drives' runs as one fleet: per model and firmware the spread of each figure, the
    /// outliers named, merged latency percentiles; fleet.md, fleet.html and fleet.csv.
    Fleet(FleetArgs),
    /// Multi-phase experiments that record as they go and resume after anything.
    #[command(subcommand)]
    Experiment(ExperimentCommand),
    /// Continue an experiment or sweep after a crash, power loss or Ctrl-C.
    Resume(ResumeArgs),
    /// The same workload at several queue depths or thread counts: one table.
    Sweep(SweepArgs),
    /// Write the samples of a run, an experiment or a group as one table (CSV or JSON lines),
    /// units in the column names, for a spreadsheet or a script.
    Export(ExportArgs),
    /// Check, reading only, every block a run made with --verify wrote: lost, misdirected,
    /// corrupt and unreadable blocks, with their offsets; exit 1 when any is found.
    Verify(VerifyArgs),
    /// Print the shell completion script for bash, zsh or fish.
    Completions(CompletionsArgs),
    /// Print the man page of ssdfade or of one command (roff), or write them all to a folder.
    Man(ManArgs),
}

/// Options of `verify`.
#[derive(Args, Debug, Clone)]
pub struct VerifyArgs {
    /// The file, block device or `sim:…,state=FILE` drive the run wrote to.
    pub target: String,
    /// The run directory (made with --verify): its run.json and verify.map say what each
    /// block should hold.
    #[arg(long, value_name = "DIR")]
    pub from: PathBuf,
    /// Print the findings as JSON instead of the summary.
    #[arg(long)]
    pub json: bool,
}

/// Options of `export`.
#[derive(Args, Debug, Clone)]
pub struct ExportArgs {
    /// Run, experiment or group directory.
    pub dir: PathBuf,
    /// Table format.
    #[arg(long, value_enum, default_value_t = crate::output::export::Format::Csv)]
    pub format: crate::output::export::Format,
    /// File to write (default: standard output).
    #[arg(long, value_name = "FILE")]
    pub out: Option<PathBuf>,
    /// Write the run's per-interval latency histograms (its latency.hlog) to FILE in the
    /// HdrHistogram interval log format, instead of the samples table. DIR is a run
    /// directory (an experiment's phase directory for one phase).
    #[arg(long, value_name = "FILE", conflicts_with_all = ["format", "out"])]
    pub hdr_log: Option<PathBuf>,
}

/// Options of `completions`.
#[derive(Args, Debug, Clone)]
pub struct CompletionsArgs {
    /// The shell to complete for.
    #[arg(value_enum)]
    pub shell: clap_complete::Shell,
}

/// Options of `man`.
#[derive(Args, Debug, Clone)]
pub struct ManArgs {
    /// The command whose page to print (e.g. soak, or experiment vertex2); none: ssdfade(1).
    #[arg(value_name = "COMMAND")]
    pub command: Vec<String>,
    /// Write every page (ssdfade.1, ssdfade-soak.1, …) into this folder instead.
    #[arg(long, value_name = "DIR", conflicts_with = "command")]
    pub out_dir: Option<PathBuf>,
}

/// Options of `slog`.
#[derive(Args, Debug, Clone)]
pub struct SlogArgs {
    /// File, block device or sim:… target to test.
    pub target: String,
    /// More targets, tested at the same time, each in its own run directory under one group
    /// directory, with a verdict table of all of them.
    #[arg(value_name = "MORE_TARGETS")]
    pub more_targets: Vec<String>,
    #[command(flatten)]
    pub metrics: MetricsArgs,
    /// Confirm that writing destroys the data on this device or file (must name the target;
    /// give it again for a --baseline device; several targets: A,B,… or once each).
    #[arg(long, value_name = "TARGET", action = clap::ArgAction::Append)]
    pub destroy_data: Vec<PathBuf>,
    /// Also write over a device carrying a filesystem or partition-table signature.
    #[arg(long)]
    pub force: bool,
    /// Size of a test file to create (e.g. 1G).
    #[arg(long, value_parser = parse_size)]
    pub size: Option<u64>,
    /// Largest write of the size sweep (a power of two up to 8M).
    #[arg(long, default_value = "128k", value_parser = parse_size)]
    pub max_size: u64,
    /// Length of the sustained 4 KiB sync-write phase (0 skips it).
    #[arg(long, default_value = "60s", value_parser = parse_duration)]
    pub sustain: Duration,
    /// Compare with: ram (a zram device made for the run), another device or file, or an
    /// earlier slog run directory.
    #[arg(long)]
    pub baseline: Option<String>,
    /// Run directories with more evidence about this device: a soak (fade), an erase
    /// (recovery time), a plp verify (power-loss check), an earlier slog run.
    #[arg(long, value_name = "DIR", action = clap::ArgAction::Append)]
    pub from: Vec<PathBuf>,
    /// An op-sweep of this device, or of its twin (`experiment op-sweep --on-twin`): when the
    /// device fades, the maintenance plan says what leaving part of it unpartitioned gives.
    #[arg(long, value_name = "DIR")]
    pub op_sweep: Option<PathBuf>,
    /// The pool's ZIL write rate: bytes per day for the endurance figure (e.g. 200GB/day), or
    /// 4 KiB sync writes per second (e.g. 2000/s): the sustained phase then issues at that
    /// rate (open loop) and the verdict judges latency, stalls and late writes at that load.
    #[arg(long, default_value = "200GB/day", value_parser = parse_zil_rate)]
    pub zil_rate: ZilRate,
    /// The vendor's endurance rating (terabytes written), used when the runs measured no wear.
    #[arg(long, value_parser = parse_size)]
    pub tbw: Option<u64>,
    /// Seed for offsets and data (default: a fresh one).
    #[arg(long)]
    pub seed: Option<u64>,
    /// Run directory (default results/<UTC time>-<target name>-slog).
    #[arg(long)]
    pub out: Option<PathBuf>,
    /// Print slog.json instead of the tables.
    #[arg(long)]
    pub json: bool,
}

/// `slog --zil-rate`: what the pool writes to its log.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum ZilRate {
    /// Bytes per day (the endurance figure only; the sustained phase runs flat out).
    BytesPerDay(u64),
    /// 4 KiB sync writes per second: the sustained phase's issue rate.
    WritesPerS(u64),
}

/// Parses `--zil-rate`: `2000/s` (sync writes per second), or a write rate such as
/// `200GB/day` (or `200GB`, per day) into bytes per day.
fn parse_zil_rate(text: &str) -> Result<ZilRate, String> {
    if let Some(n) = text.strip_suffix("/s") {
        return match n.trim().parse::<u64>() {
            Ok(n) if n > 0 => Ok(ZilRate::WritesPerS(n)),
            _ => Err(format!(
                "{n:?} is not a number of sync writes per second above zero (e.g. 2000/s)"
            )),
        };
    }
    let size = text
        .strip_suffix("/day")
        .or_else(|| text.strip_suffix("/d"))
        .unwrap_or(text);
    parse_size(size).map(ZilRate::BytesPerDay).map_err(|e| {
        format!("{e} (a rate is written like 200GB/day, or 2000/s for sync writes per second)")
    })
}

/// `--reference`: four IOPS above zero, in the states' order.
fn parse_reference(text: &str) -> Result<ReferenceIops, String> {
    const DO: &str = "give four IOPS above zero in the order in-service,fresh,faded,recovered (e.g. 4300,6000,910,4000)";
    let parts: Vec<&str> = text.split(',').map(str::trim).collect();
    if parts.len() != 4 {
        return Err(format!("{} values: {DO}", parts.len()));
    }
    let mut iops = [0.0; 4];
    for (v, part) in iops.iter_mut().zip(&parts) {
        *v = match part.parse::<f64>() {
            Ok(v) if v.is_finite() && v > 0.0 => v,
            Ok(_) => return Err(format!("{part:?} is not above zero: {DO}")),
            Err(_) => return Err(format!("{part:?} is not a number: {DO}")),
        };
    }
    let [in_service, fresh, faded, recovered] = iops;
    Ok(ReferenceIops {
        in_service,
        fresh,
        faded,
        recovered,
    })
}

/// `ssdfade plp …`
#[derive(Subcommand, Debug)]
pub enum PlpCommand {
    /// Run on a second machine: record what the writer reports, answer verify.
    Listen(PlpListenArgs),
    /// Write numbered, checksummed records until Ctrl-C (then cut the power).
    Write(PlpWriteArgs),
    /// After the power cut: check every acknowledged record; exit 1 when any was lost.
    Verify(PlpVerifyArgs),
}

/// Options of `plp listen`.
#[derive(Args, Debug, Clone)]
pub struct PlpListenArgs {
    /// Address to listen on, required: this machine's address on the network the machine under
    /// test reaches (0.0.0.0 for every interface).
    #[arg(long, value_name = "ADDRESS")]
    pub bind: String,
    /// TCP port.
    #[arg(long, default_value_t = 5400)]
    pub port: u16,
    /// Directory keeping the sessions (they survive a restart of the listener).
    #[arg(long, default_value = "plp-sessions")]
    pub dir: PathBuf,
    /// Connections served at once (lowered to what the open-file limit allows); more are
    /// refused.
    #[arg(long, default_value_t = 64, value_parser = clap::value_parser!(u16).range(1..))]
    pub max_connections: u16,
    /// Close a connection that sends no whole line for this long.
    #[arg(long, default_value = "2m", value_parser = parse_positive_duration)]
    pub idle_timeout: Duration,
}

/// Options of `plp write`.
#[derive(Args, Debug, Clone)]
pub struct PlpWriteArgs {
    /// File, block device or sim:…,state=PATH target.
    pub target: String,
    /// The listener, HOST:PORT.
    #[arg(long, value_name = "HOST:PORT")]
    pub log: String,
    #[command(flatten)]
    pub safety: SafetyArgs,
    /// Bytes of the target used for record slots, from offset 0 (default: all of it).
    #[arg(long, value_parser = parse_size)]
    pub span: Option<u64>,
    /// Stop after this long (default: until Ctrl-C).
    #[arg(long, value_parser = parse_positive_duration)]
    pub duration: Option<Duration>,
    /// Acknowledge a record when its write returns, without a cache flush (shows what a
    /// volatile write cache loses).
    #[arg(long)]
    pub no_flush: bool,
    /// Seed for slots and values (default: a fresh one).
    #[arg(long)]
    pub seed: Option<u64>,
}

/// Options of `plp verify`.
#[derive(Args, Debug, Clone)]
pub struct PlpVerifyArgs {
    /// The target plp write wrote to.
    pub target: String,
    /// The listener, HOST:PORT.
    #[arg(long, value_name = "HOST:PORT")]
    pub log: String,
    /// The session token plp write printed (the listener printed it too).
    #[arg(long)]
    pub token: String,
    /// Run directory for plp.json (default results/<UTC time>-<target name>-plp).
    #[arg(long)]
    pub out: Option<PathBuf>,
    /// Print plp.json instead of the summary.
    #[arg(long)]
    pub json: bool,
}

/// `ssdfade sim …`
#[derive(Subcommand, Debug)]
pub enum SimCommand {
    /// Print the simulated drive presets, their parameters and the target options.
    List,
    /// Print how fast the model simulates: host writes per second on a full-size drive.
    Bench {
        /// The simulated drive to benchmark.
        #[arg(default_value = "sim:vertex2-60g,aged=0s")]
        target: String,
        /// Simulated host writes to time (default: two drive-fills).
        #[arg(long)]
        writes: Option<u64>,
        /// Offset granularity of the 4 KiB writes (512 gives the seed's unaligned writes).
        #[arg(long, default_value = "4k", value_parser = parse_size)]
        align: u64,
    },
    /// Leave a kept (state=) simulated drive powered and idle for DURATION of simulated time:
    /// background GC, SLC folding, throttling debt paid off. Prints what it did.
    Idle {
        /// The simulated drive, with state=PATH.
        target: String,
        /// Simulated idle time, such as 30s, 10m or 8h.
        #[arg(value_parser = parse_duration)]
        duration: Duration,
    },
    /// Cut the power of a kept (state=) simulated drive: a volatile cache loses its unflushed
    /// writes, a lying one what it acknowledged. Prints what was lost.
    PowerCut {
        /// The simulated drive, with state=PATH.
        target: String,
    },
    /// Fit a simulated twin to a soak of random writes (a run directory, or an experiment
    /// directory whose longest write phase is taken) and write it as a file the target
    /// sim:@FILE loads: its soak reproduces the measured IOPS curve. Prints the fit.
    Fit {
        /// The run or experiment directory.
        dir: PathBuf,
        /// The twin file to write.
        #[arg(short, long, default_value = "twin.toml")]
        output: PathBuf,
        /// The preset whose shape the twin keeps (default: the run's own preset when it was
        /// simulated, else dc-ssd-400g).
        #[arg(long)]
        base: Option<String>,
    },
}

/// Options of `info`.
#[derive(Args, Debug, Clone)]
pub struct InfoArgs {
    /// File, block device or sim:… target to inspect.
    pub target: String,
    /// Print one JSON object instead of the table.
    #[arg(long)]
    pub json: bool,
}

/// Options of `runs`.
#[derive(Args, Debug, Clone)]
pub struct RunsArgs {
    /// Folder holding run directories.
    #[arg(default_value = "results")]
    pub dir: PathBuf,
    /// Print a JSON array instead of the table.
    #[arg(long)]
    pub json: bool,
}

/// Options of `erase`.
#[derive(Args, Debug, Clone)]
pub struct EraseArgs {
    /// Block device, file or sim:… target to erase.
    pub target: String,
    /// trim, secure-discard, zeroout, nvme-format, nvme-sanitize, ata-secure-erase, punch,
    /// sim, command:'TOOL … {target} …', or auto (the strongest the target supports).
    #[arg(long, default_value = "auto")]
    pub method: Method,
    /// Confirm that the erase destroys the data on this device or file (must name the target).
    #[arg(long, value_name = "TARGET")]
    pub destroy_data: Option<PathBuf>,
    /// Also erase a device carrying a filesystem or partition-table signature.
    #[arg(long)]
    pub force: bool,
    /// Cryptographic erase (nvme-format, nvme-sanitize).
    #[arg(long)]
    pub crypto: bool,
    /// Sanitize action for nvme-sanitize (default block, or crypto with --crypto).
    #[arg(long, value_enum)]
    pub action: Option<SanitizeAction>,
    /// Erase only this much from offset 0 (trim, secure-discard, zeroout, punch, sim trim).
    #[arg(long, value_parser = parse_size)]
    pub span: Option<u64>,
    /// Size of each discard / zero-out request.
    #[arg(long, default_value = "1G", value_parser = parse_positive_size)]
    pub chunk: u64,
    /// Print what would be sent, with the exact command bytes, and change nothing.
    #[arg(long)]
    pub dry_run: bool,
    /// Run directory for erase.json (default results/<UTC time>-<target>-erase).
    #[arg(long)]
    pub out: Option<PathBuf>,
    /// Print the erase record as JSON (not with --dry-run, which prints the commands).
    #[arg(long, conflicts_with = "dry_run")]
    pub json: bool,
}

/// Options shared by measure and soak.
#[derive(Args, Debug, Clone)]
pub struct RunArgs {
    /// File, block device or simulated drive (`sim:PRESET[,…]`) to test; a file is created when
    /// --size is given and it is absent.
    pub target: String,
    /// More targets, run at the same time with the same workload, each in its own run directory
    /// under one group directory (--destroy-data then names every one: A,B,…).
    #[arg(value_name = "MORE_TARGETS")]
    pub more_targets: Vec<String>,
    #[command(flatten)]
    pub metrics: MetricsArgs,
    #[command(flatten)]
    pub safety: SafetyArgs,
    #[command(flatten)]
    pub workload: WorkloadArgs,
    /// I/O engine (default: uring where the kernel allows it, else threads).
    #[arg(long, value_enum)]
    pub engine: Option<EngineKind>,
    /// Run directory (default results/<UTC time>-<target name>).
    #[arg(long)]
    pub out: Option<PathBuf>,
    /// Print one JSON object with the results instead of the table.
    #[arg(long)]
    pub json: bool,
}

/// Options of `measure`: a run's, or a familiar benchmark's set of points.
#[derive(Args, Debug, Clone)]
pub struct MeasureArgs {
    #[command(flatten)]
    pub run: RunArgs,
    /// Run a familiar benchmark's set of points instead of one workload, after a sequential
    /// write of the test region (--span, default 1 GiB); --duration is per point. Resumable
    /// with `ssdfade resume DIR`.
    #[arg(
        long,
        value_enum,
        conflicts_with_all = [
            "more_targets", "bs", "bssplit", "align", "read_pct", "trim_pct", "random_pct", "qd", "jobs",
            "bytes", "metrics_listen", "metrics_textfile",
        ]
    )]
    pub preset: Option<crate::experiment::preset::Preset>,
}

/// Where a run's live metrics go (Prometheus).
#[derive(Args, Debug, Clone, Default)]
pub struct MetricsArgs {
    /// Serve Prometheus metrics on http://ADDR:PORT/metrics while the command runs.
    #[arg(long, value_name = "ADDR:PORT")]
    pub metrics_listen: Option<String>,
    /// Rewrite this file (atomically) with the metrics after every sample, for node_exporter's
    /// textfile collector.
    #[arg(long, value_name = "PATH")]
    pub metrics_textfile: Option<PathBuf>,
}

/// Options of `soak`: those of measure, and steady state.
#[derive(Args, Debug, Clone)]
pub struct SoakArgs {
    #[command(flatten)]
    pub run: RunArgs,
    #[command(flatten)]
    pub steady: SteadyArgs,
}

/// SNIA PTS steady state: the round length, and stopping once steady.
#[derive(Args, Debug, Clone)]
pub struct SteadyArgs {
    /// Stop once the drive is in steady state (SNIA PTS: 5 rounds within 20 % range and 10 %
    /// slope excursion of their average).
    #[arg(long)]
    pub until_steady: bool,
    /// With --until-steady: give up after this long if steady state is not reached (default:
    /// --duration, 8h).
    #[arg(long, value_parser = parse_duration, requires = "until_steady")]
    pub max_duration: Option<Duration>,
    /// Stop once the steady state is predicted within ±5 % (a model of greedy garbage
    /// collection fitted to the samples since the first cliff; see docs/fast-steady-state.md).
    #[arg(long)]
    pub until_predicted: bool,
    /// Length of one steady-state round (default: 1m, or the sample interval when longer).
    #[arg(long, value_parser = parse_duration)]
    pub ss_round: Option<Duration>,
}

/// Confirmation that data may be destroyed.
#[derive(Args, Debug, Clone, Default)]
pub struct SafetyArgs {
    /// Confirm that writing may destroy the data on this device or file (must name the target).
    #[arg(long, value_name = "TARGET")]
    pub destroy_data: Option<PathBuf>,
    /// Also write over a device carrying a filesystem or partition-table signature.
    #[arg(long)]
    pub force: bool,
    /// Size of a test file to create, or to grow an existing one to (e.g. 4G).
    #[arg(long, value_parser = parse_size)]
    pub size: Option<u64>,
}

/// The access specification every command that writes takes: one field and one parser per
/// option, turned into the library's [`WorkloadSpec`] in [`AccessArgs::spec`] only.
#[derive(Args, Debug, Clone)]
pub struct AccessArgs {
    /// Transfer size (at most 2 GiB − 4 KiB, what one Linux read or write moves).
    #[arg(long, default_value = "4k", value_parser = parse_transfer_size)]
    pub bs: u64,
    /// Offset granularity (default: the transfer size; vertex2: 512 where the target allows
    /// it); 512 gives the seed's unaligned writes.
    #[arg(long, value_parser = parse_size)]
    pub align: Option<u64>,
    /// Percent of I/Os that are reads.
    #[arg(long, default_value_t = 0, value_parser = clap::value_parser!(u8).range(0..=100))]
    pub read_pct: u8,
    /// Percent of I/Os that are trims (discards of --bs bytes; fio's trim direction: 100 with
    /// --random-pct 100 is fio's randtrim). With --read-pct at most 100 together; the rest
    /// are writes. The target must take discards.
    #[arg(long, default_value_t = 0, value_parser = clap::value_parser!(u8).range(0..=100))]
    pub trim_pct: u8,
    /// Percent of I/Os at random offsets (the rest sequential).
    #[arg(long, default_value_t = 100, value_parser = clap::value_parser!(u8).range(0..=100))]
    pub random_pct: u8,
    /// How much of the target to use, from --offset (default: the rest of the target).
    #[arg(long, value_parser = parse_size)]
    pub span: Option<u64>,
    /// Where the span starts: a size (1G) or a percent of the target (50%), a multiple of
    /// --align.
    #[arg(long, default_value = "0")]
    pub offset: SpanStart,
    /// How random offsets spread over the span (fio's random_distribution): uniform, zipf:θ,
    /// pareto:h, normal:σ% of the span around its middle, hotcold:P/Q (P % of I/Os to the
    /// first Q % of the span), zoned:P/S:P/S… (P % of I/Os to each next S % of the span).
    #[arg(long, default_value = "uniform")]
    pub distribution: Distribution,
    /// Seed for offsets and data (default: a fresh one per run, recorded in its run.json).
    #[arg(long)]
    pub seed: Option<u64>,
    /// Write data: random (incompressible, unique), repeat, zero, compressible:N, dedupe:N.
    #[arg(long, default_value = "random")]
    pub pattern: Pattern,
    /// Fill every write with fresh random bytes instead of the keyed pool (slower).
    #[arg(long)]
    pub refill: bool,
    /// What an I/O error does: stop the run (exit 1) or continue counting errors.
    #[arg(long, value_enum, default_value_t = OnError::Stop)]
    pub on_error: OnError,
    /// Issue at most this many I/Os per second (fio's rate_iops): open loop, I/O n is due at
    /// start + n / rate; one issued after its time is counted late (default: flat out).
    #[arg(long, conflicts_with = "rate")]
    pub rate_iops: Option<u64>,
    /// Issue at most this many bytes per second (fio's rate), e.g. 40M. With `sweep`: the
    /// points, each a percent of the IOPS measured flat out first (50%) or IOPS (4000), e.g.
    /// 10%,25%,50%,75%,90%,100%.
    #[arg(long, value_name = "RATE")]
    pub rate: Option<String>,
    /// Data verification: every written block carries its offset, write generation and a
    /// checksum; bad blocks found make the run fail (exit 1). See docs/verify.md.
    #[arg(long)]
    pub verify: bool,
    /// Read back a sample of written blocks this often during the run (implies --verify).
    #[arg(long, value_parser = parse_positive_duration)]
    pub verify_every: Option<Duration>,
    /// Read back every written block when the run ends (implies --verify).
    #[arg(long)]
    pub verify_end: bool,
    /// Before the workload, bring a purged drive to its random-write steady state: none, or
    /// fast (one physical write of the span, see docs/fast-steady-state.md); fast:OP% names
    /// the drive's over-provisioning when it does not report its flash size.
    #[arg(long, default_value = "none")]
    pub precondition: crate::workload::PreconditionSpec,
}

impl AccessArgs {
    /// The library's workload spec at `qd` outstanding I/Os; a `--rate` that is not one rate in
    /// bytes per second (a sweep's list) is refused.
    pub fn spec(&self, qd: u32) -> anyhow::Result<WorkloadSpec> {
        let rate = match (self.rate_iops, &self.rate) {
            (Some(iops), _) => Some(Rate::Iops(iops)),
            (None, Some(text)) if text.contains([',', '%']) => crate::bad_input!(
                "--rate {text}: a list or a percent of the maximum is for `ssdfade sweep`; give one rate in bytes per second such as 40M, or --rate-iops"
            ),
            (None, Some(text)) => match parse_size(text) {
                Ok(bytes) => Some(Rate::BytesPerS(bytes)),
                Err(e) => crate::bad_input!("--rate {text}: {e}; give bytes per second such as 40M"),
            },
            (None, None) => None,
        };
        Ok(WorkloadSpec {
            bs: self.bs,
            bssplit: None,
            align: self.align,
            read_pct: self.read_pct,
            trim_pct: self.trim_pct,
            random_pct: self.random_pct,
            qd,
            jobs: 1,
            span: self.span,
            offset: self.offset,
            distribution: self.distribution.clone(),
            seed: self.seed,
            pattern: self.pattern,
            refill: self.refill,
            on_error: self.on_error,
            rate,
            sync: None,
            verify: (self.verify || self.verify_every.is_some() || self.verify_end).then_some(
                crate::workload::VerifyOptions {
                    every: self.verify_every,
                    end: self.verify_end,
                },
            ),
            precondition: self.precondition,
        })
    }
}

/// The access specification and stop rule of measure and soak.
#[derive(Args, Debug, Clone)]
pub struct WorkloadArgs {
    #[command(flatten)]
    pub access: AccessArgs,
    /// Per-I/O transfer sizes (fio's bssplit): SIZE/PCT:SIZE/PCT…, each I/O drawn from the
    /// split and its offset a multiple of its size, e.g. 4k/70:64k/30 (a blank percent shares
    /// the rest equally). In place of --bs and --align.
    #[arg(long, value_name = "SIZE/PCT:…", conflicts_with_all = ["bs", "align"])]
    pub bssplit: Option<crate::workload::BsSplit>,
    /// Outstanding I/Os of each job (worker threads for the threads engine, ring depth for
    /// uring).
    #[arg(long, default_value_t = 128)]
    pub qd: u32,
    /// Submitting jobs (fio's numjobs), each with its own --qd I/Os in flight (uring: a ring
    /// each; threads: --qd threads each), its own offsets and, for sequential I/O, its own
    /// slice of the span; a simulated drive keeps jobs × QD I/Os outstanding.
    #[arg(long, default_value_t = 1, value_parser = clap::value_parser!(u32).range(1..=4096))]
    pub jobs: u32,
    /// Stop after this long (measure: 60s, soak: 8h, unless --bytes is given).
    #[arg(long, value_parser = parse_positive_duration)]
    pub duration: Option<Duration>,
    /// Stop after this many bytes transferred.
    #[arg(long, value_parser = parse_positive_size)]
    pub bytes: Option<u64>,
    /// Sample period (measure: 1s, soak: 10s).
    #[arg(long, value_parser = parse_duration)]
    pub interval: Option<Duration>,
}

impl WorkloadArgs {
    /// The library's workload spec (see [`AccessArgs::spec`]).
    pub fn spec(&self) -> anyhow::Result<WorkloadSpec> {
        Ok(WorkloadSpec {
            bssplit: self.bssplit.clone(),
            jobs: self.jobs,
            ..self.access.spec(self.qd)?
        })
    }
}

/// Options of `plot`.
#[derive(Args, Debug, Clone)]
pub struct PlotArgs {
    /// Run directory (holding run.json and samples.jsonl).
    pub dir: PathBuf,
    /// Picture format.
    #[arg(long, value_enum, default_value_t = Format::Png)]
    pub format: Format,
    /// File for the fade chart (default DIR/fade.png); the latency chart goes beside it as
    /// <name>-latency.<format>.
    #[arg(long)]
    pub out: Option<PathBuf>,
    /// A Vertex 2 experiment's reference IOPS, IN_SERVICE,FRESH,FADED,RECOVERED, for these
    /// charts (instead of the one experiment.json keeps, if any).
    #[arg(long, value_name = "IOPS,IOPS,IOPS,IOPS", value_parser = parse_reference)]
    pub reference: Option<ReferenceIops>,
}

/// Options of `report`.
#[derive(Args, Debug, Clone)]
pub struct ReportArgs {
    /// Run directory (holding run.json and samples.jsonl).
    pub dir: PathBuf,
    /// A Vertex 2 experiment's reference IOPS, IN_SERVICE,FRESH,FADED,RECOVERED, for this
    /// report (instead of the one experiment.json keeps, if any).
    #[arg(long, value_name = "IOPS,IOPS,IOPS,IOPS", value_parser = parse_reference)]
    pub reference: Option<ReferenceIops>,
}

/// Options of `compare`.
#[derive(Args, Debug, Clone)]
pub struct CompareArgs {
    /// Two or more run directories; ratios are to the first.
    #[arg(required = true, num_args = 2..)]
    pub dirs: Vec<PathBuf>,
    /// Directory for compare.md, compare.html and compare.png (default: the current one).
    #[arg(long)]
    pub out: Option<PathBuf>,
}

/// Options of `fleet`.
#[derive(Args, Debug, Clone)]
pub struct FleetArgs {
    /// Run, group or experiment directories, or folders holding them (searched recursively,
    /// symlinks not followed).
    #[arg(required = true)]
    pub dirs: Vec<PathBuf>,
    /// Directory for fleet.md, fleet.html and fleet.csv (default: the current one).
    #[arg(long)]
    pub out: Option<PathBuf>,
    /// Print the fleet's figures as JSON instead of the table.
    #[arg(long)]
    pub json: bool,
}

/// Options of `selftest`.
#[derive(Args, Debug, Clone)]
pub struct SelftestArgs {
    /// Write size to generate.
    #[arg(long, default_value = "4k", value_parser = parse_transfer_size)]
    pub bs: u64,
    /// How long to generate each pattern.
    #[arg(long, default_value = "1s", value_parser = parse_positive_duration)]
    pub seconds: Duration,
}

/// `ssdfade experiment …`
#[derive(Subcommand, Debug)]
pub enum ExperimentCommand {
    /// The Vertex 2 story: in-service, erase-1, fresh, soak, faded, erase-2, recovered.
    Vertex2(Vertex2Args),
    /// SNIA write saturation: purge, then 4 KiB random writes to 4 × capacity in 1-minute rounds.
    Wsat(WsatArgs),
    /// SNIA host idle recovery: steady state, then 5 s bursts after idle gaps of 5-50 s.
    Hir(HirArgs),
    /// How much to over-provision: steady random-write IOPS and latency at several spans
    /// (fast preconditioning, then until SNIA steady state), and what to leave unpartitioned.
    OpSweep(OpSweepArgs),
    /// The real sustained write speed once the SLC cache is full: one sequential write of the
    /// whole drive, then idle gaps (5 s to 10 min) each followed by a short write.
    SlcCache(SlcCacheArgs),
    /// The SNIA PTS suite as one resumable experiment: IOPS (R/W mix × block size), throughput
    /// (128K and 1024K sequential) and latency (QD 1) tests, each purged, preconditioned and
    /// measured in rounds judged by the SNIA steady-state rule.
    Pts(PtsArgs),
    /// SNIA cross-stimulus recovery: 1 MiB sequential, 8 KiB random, then 1 MiB sequential
    /// writes, and how long the drive takes to settle after each change.
    Xsr(XsrArgs),
}

/// Options of `experiment pts`.
#[derive(Args, Debug, Clone)]
pub struct PtsArgs {
    /// File, block device or sim:… target (a real device needs --destroy-data naming it).
    pub target: String,
    /// The tests to run, comma-separated; they run in SNIA's order (iops, tp, lat, wsat, hir,
    /// xsr, ecw, dirth).
    #[arg(long, value_delimiter = ',', default_value = "iops,tp,lat")]
    pub tests: Vec<String>,
    /// Length of each cell's run in a round (the PTS: 1 minute).
    #[arg(long, default_value = "1m", value_parser = parse_positive_duration)]
    pub round: Duration,
    /// Most rounds per test, 1 to 25: a test stops at its first five rounds in SNIA steady
    /// state (the PTS: at most 25).
    #[arg(long, default_value_t = 25)]
    pub rounds: u32,
    /// Outstanding I/Os of the IOPS and throughput tests (the latency test runs at 1).
    #[arg(long, default_value_t = 32)]
    pub qd: u32,
    /// Erase method of each test's purge (as `erase --method`).
    #[arg(long, default_value = "auto")]
    pub erase_method: String,
    /// I/O engine (default: uring where the kernel allows it, else threads).
    #[arg(long, value_enum)]
    pub engine: Option<EngineKind>,
    /// Seed for the data written (default: a fresh one, recorded).
    #[arg(long)]
    pub seed: Option<u64>,
    #[command(flatten)]
    pub safety: SafetyArgs,
    /// Experiment directory (default results/<UTC time>-pts-<target>).
    #[arg(long)]
    pub out: Option<PathBuf>,
    /// Print the summary as one JSON object.
    #[arg(long)]
    pub json: bool,
    /// Print the plan (each phase, its workload and the most time it may take) and the bound
    /// of the whole, and write nothing.
    #[arg(long)]
    pub dry_run: bool,
}

/// Options of `experiment xsr`.
#[derive(Args, Debug, Clone)]
pub struct XsrArgs {
    /// File, block device or sim:… target (a real device needs --destroy-data naming it).
    pub target: String,
    /// More targets, each running the whole experiment at the same time in its own
    /// experiment directory under one group directory (--destroy-data then names every real
    /// one: A,B,…).
    #[arg(value_name = "MORE_TARGETS")]
    pub more_targets: Vec<String>,
    #[command(flatten)]
    pub common: ExperimentArgs,
    /// Length of each sequential segment; the random one lasts three quarters of it (SNIA:
    /// 8h, 6h, 8h). Shorter on a scaled simulated drive.
    #[arg(long, default_value = "8h", value_parser = parse_duration)]
    pub segment: Duration,
}

/// Options of `experiment slc-cache`.
#[derive(Args, Debug, Clone)]
pub struct SlcCacheArgs {
    /// File, block device or sim:… target (a real device needs --destroy-data naming it).
    pub target: String,
    /// Take the drive as it is (its data and cache state) instead of purging it first.
    #[arg(long)]
    pub no_purge: bool,
    /// Transfer size of the sequential writes.
    #[arg(long, default_value = "1m", value_parser = parse_transfer_size)]
    pub bs: u64,
    /// Outstanding I/Os.
    #[arg(long, default_value_t = 8)]
    pub qd: u32,
    /// Sample period of the writes: each sample is one point of the speed curve.
    #[arg(long, default_value = "250ms", value_parser = parse_positive_duration)]
    pub interval: Duration,
    /// Erase method of the purge (as `erase --method`).
    #[arg(long, default_value = "auto")]
    pub erase_method: String,
    /// I/O engine (default: uring where the kernel allows it, else threads).
    #[arg(long, value_enum)]
    pub engine: Option<EngineKind>,
    /// Seed for the data written (default: a fresh one, recorded).
    #[arg(long)]
    pub seed: Option<u64>,
    #[command(flatten)]
    pub safety: SafetyArgs,
    /// Experiment directory (default results/<UTC time>-slc-cache-<target>).
    #[arg(long)]
    pub out: Option<PathBuf>,
    /// Print the summary as one JSON object.
    #[arg(long)]
    pub json: bool,
    /// Print the plan (each phase, its workload and the most time it may take) and the bound
    /// of the whole, and write nothing.
    #[arg(long)]
    pub dry_run: bool,
}

/// Options of `experiment vertex2`.
#[derive(Args, Debug, Clone)]
pub struct Vertex2Args {
    /// File, block device or sim:… target (a real device needs --destroy-data naming it).
    #[arg(default_value = "sim:vertex2-60g")]
    pub target: String,
    /// More targets, each running the whole experiment at the same time in its own
    /// experiment directory under one group directory (--destroy-data then names every real
    /// one: A,B,…).
    #[arg(value_name = "MORE_TARGETS")]
    pub more_targets: Vec<String>,
    #[command(flatten)]
    pub common: ExperimentArgs,
    /// Length of each measure phase.
    #[arg(long, default_value = "60s", value_parser = parse_duration)]
    pub measure_duration: Duration,
    /// Length of the soak (default 8h, unless --soak-bytes is given).
    #[arg(long, value_parser = parse_duration)]
    pub soak_duration: Option<Duration>,
    /// Stop the soak after this many bytes (with --soak-duration, whichever comes first).
    #[arg(long, value_parser = parse_size)]
    pub soak_bytes: Option<u64>,
    /// Sample period of the soak.
    #[arg(long, default_value = "10s", value_parser = parse_duration)]
    pub soak_interval: Duration,
    /// Add the seed's data-pattern pair after in-service: 512-byte writes with repeating bytes
    /// and with random data.
    #[arg(long)]
    pub pattern_check: bool,
    /// IOPS of another measurement for the four states, IN_SERVICE,FRESH,FADED,RECOVERED (e.g.
    /// the seed's 4300,6000,910,4000): kept in experiment.json, drawn as hollow markers on the
    /// states chart and tabled beside the measured IOPS.
    #[arg(long, value_name = "IOPS,IOPS,IOPS,IOPS", value_parser = parse_reference)]
    pub reference: Option<ReferenceIops>,
}

/// Options of `experiment wsat`.
#[derive(Args, Debug, Clone)]
pub struct WsatArgs {
    /// File, block device or sim:… target (a real device needs --destroy-data naming it).
    pub target: String,
    /// More targets, each running the whole experiment at the same time in its own
    /// experiment directory under one group directory (--destroy-data then names every real
    /// one: A,B,…).
    #[arg(value_name = "MORE_TARGETS")]
    pub more_targets: Vec<String>,
    #[command(flatten)]
    pub common: ExperimentArgs,
    /// Stop writing after this long even if 4 × capacity is not written yet.
    #[arg(long, default_value = crate::results::settings::WsatSettings::DEFAULT_MAX_DURATION, value_parser = parse_duration)]
    pub max_duration: Duration,
}

/// Options of `experiment hir`.
#[derive(Args, Debug, Clone)]
pub struct HirArgs {
    /// File, block device or sim:… target (a real device needs --destroy-data naming it).
    pub target: String,
    /// More targets, each running the whole experiment at the same time in its own
    /// experiment directory under one group directory (--destroy-data then names every real
    /// one: A,B,…).
    #[arg(value_name = "MORE_TARGETS")]
    pub more_targets: Vec<String>,
    #[command(flatten)]
    pub common: ExperimentArgs,
    /// Bursts per wait state (SNIA: 360; the return to baseline lasts as long as the bursts).
    #[arg(long, default_value_t = crate::results::settings::HirSettings::DEFAULT_BURSTS, value_parser = clap::value_parser!(u32).range(1..))]
    pub bursts: u32,
    /// Give up preconditioning after this long if steady state is not reached.
    #[arg(long, default_value = crate::results::settings::HirSettings::DEFAULT_MAX_DURATION, value_parser = parse_duration)]
    pub max_duration: Duration,
}

/// Options of `experiment op-sweep`.
#[derive(Args, Debug, Clone)]
pub struct OpSweepArgs {
    /// File, block device or sim:… target (a real device needs --destroy-data naming it); with
    /// --on-twin, the drive the twin stands for (not opened).
    pub target: String,
    /// The spans to measure, each a percent of the target or a size: 100%,90%,80%,75%.
    #[arg(long, default_value = "100%,90%,80%,75%")]
    pub span: String,
    /// Run the plan on this twin (written by `ssdfade sim fit`) instead of the drive: a
    /// prediction in seconds; the drive is not opened.
    #[arg(long, value_name = "FILE")]
    pub on_twin: Option<String>,
    /// The drive's over-provisioning for the fast preconditioning, percent (physical / user −
    /// 1; default: the drive's reported flash size, else 7.37 %).
    #[arg(long, value_name = "PCT", value_parser = parse_op_pct)]
    pub drive_op: Option<f64>,
    /// Give up on a span after this long if SNIA's steady-state test has not passed.
    #[arg(long, default_value = "4h", value_parser = parse_positive_duration)]
    pub max_duration: Duration,
    /// Sample period of each span's run.
    #[arg(long, default_value = "10s", value_parser = parse_positive_duration)]
    pub interval: Duration,
    /// Transfer size of the random writes.
    #[arg(long, default_value = "4k", value_parser = parse_transfer_size)]
    pub bs: u64,
    /// Offset granularity of the random writes after the fast preconditioning (default: the
    /// transfer size); 512 gives the seed's unaligned writes.
    #[arg(long, value_parser = parse_size)]
    pub align: Option<u64>,
    /// Outstanding I/Os.
    #[arg(long, default_value_t = 128)]
    pub qd: u32,
    /// Seed for offsets and data (default: a fresh one, recorded).
    #[arg(long)]
    pub seed: Option<u64>,
    /// I/O engine (default: uring where the kernel allows it, else threads).
    #[arg(long, value_enum)]
    pub engine: Option<EngineKind>,
    /// Erase method of the purge before each span (as `erase --method`).
    #[arg(long, default_value = "auto")]
    pub erase_method: String,
    /// Length of one SNIA steady-state round.
    #[arg(long, default_value = "1m", value_parser = parse_duration)]
    pub ss_round: Duration,
    #[command(flatten)]
    pub safety: SafetyArgs,
    /// Experiment directory (default results/<UTC time>-op-sweep-<target>).
    #[arg(long)]
    pub out: Option<PathBuf>,
    /// Print the summary as one JSON object.
    #[arg(long)]
    pub json: bool,
    /// Print the plan (each phase, its workload and the most time it may take) and the bound
    /// of the whole, and write nothing.
    #[arg(long)]
    pub dry_run: bool,
}

/// `--drive-op`: a percent from 0.5 to 300, with or without `%`.
fn parse_op_pct(text: &str) -> Result<f64, String> {
    match text.trim_end_matches('%').parse::<f64>() {
        Ok(x) if (0.5..=300.0).contains(&x) => Ok(x),
        _ => Err(format!(
            "'{text}': the over-provisioning is a percent from 0.5 to 300 (physical / user − 1), e.g. 7%"
        )),
    }
}

/// What every experiment takes.
#[derive(Args, Debug, Clone)]
pub struct ExperimentArgs {
    #[command(flatten)]
    pub metrics: MetricsArgs,
    #[command(flatten)]
    pub safety: SafetyArgs,
    #[command(flatten)]
    pub workload: ExperimentWorkloadArgs,
    /// Outstanding I/Os.
    #[arg(long, default_value_t = 128)]
    pub qd: u32,
    /// Erase method of the erase phases (as `erase --method`).
    #[arg(long, default_value = "auto")]
    pub erase_method: String,
    /// Length of one SNIA steady-state round.
    #[arg(long, default_value = "1m", value_parser = parse_duration)]
    pub ss_round: Duration,
    /// A simulated drive saves itself every this much simulated time during a soak, so a
    /// crash loses at most that much (each save writes the whole drive state).
    #[arg(long, default_value = "4h", value_parser = parse_duration)]
    pub checkpoint: Duration,
    /// Experiment directory (default results/<UTC time>-<experiment>-<target>).
    #[arg(long)]
    pub out: Option<PathBuf>,
    /// Print the summary as one JSON object.
    #[arg(long)]
    pub json: bool,
    /// Print the plan (each phase, its workload and the most time it may take) and the bound
    /// of the whole, and write nothing.
    #[arg(long)]
    pub dry_run: bool,
}

/// The access specification of an experiment's or a sweep's runs (the stop rules are the
/// protocol's own).
#[derive(Args, Debug, Clone)]
pub struct ExperimentWorkloadArgs {
    #[command(flatten)]
    pub access: AccessArgs,
    /// I/O engine (default: uring where the kernel allows it, else threads).
    #[arg(long, value_enum)]
    pub engine: Option<EngineKind>,
}

/// Options of `resume`.
#[derive(Args, Debug, Clone)]
pub struct ResumeArgs {
    /// The experiment directory to continue, or a group directory (group.json): every member
    /// not completed is continued, all at once.
    pub dir: PathBuf,
    #[command(flatten)]
    pub metrics: MetricsArgs,
    /// Print the summary as one JSON object.
    #[arg(long)]
    pub json: bool,
}

/// Options of `sweep`.
#[derive(Args, Debug, Clone)]
pub struct SweepArgs {
    /// File, block device or sim:… target (writing to a device needs --destroy-data naming it).
    pub target: String,
    #[command(flatten)]
    pub metrics: MetricsArgs,
    #[command(flatten)]
    pub safety: SafetyArgs,
    #[command(flatten)]
    pub workload: ExperimentWorkloadArgs,
    /// Queue depths to measure, e.g. 1,2,4,8,16,32; with --rate, the one queue depth of every
    /// point (default 32).
    #[arg(
        long,
        value_delimiter = ',',
        conflicts_with = "threads",
        required_unless_present_any = ["threads", "rate"]
    )]
    pub qd: Vec<u32>,
    /// Thread counts to measure with the threads engine (one I/O per thread), e.g. 1,2,4,8.
    #[arg(long, value_delimiter = ',', conflicts_with = "rate")]
    pub threads: Vec<u32>,
    /// Submitting jobs (fio's numjobs) at every --qd, e.g. 1,2,4: the sweep measures each
    /// jobs × QD pair, one line per job count in its table and chart (default 1).
    #[arg(long, value_delimiter = ',', conflicts_with_all = ["threads", "rate"])]
    pub jobs: Vec<u32>,
    /// Length of each point.
    #[arg(long, default_value = "60s", value_parser = parse_duration)]
    pub point_duration: Duration,
    /// Sample period within a point.
    #[arg(long, default_value = "1s", value_parser = parse_duration)]
    pub interval: Duration,
    /// Sweep directory (default results/<UTC time>-sweep-<target>).
    #[arg(long)]
    pub out: Option<PathBuf>,
    /// Print the table as one JSON object.
    #[arg(long)]
    pub json: bool,
}
