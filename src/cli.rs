//! Command-line definitions. Options are parsed once into plain structs the commands read.

use std::path::PathBuf;
use std::time::Duration;

use clap::{Args, Parser, Subcommand};

use crate::engine::EngineKind;
use crate::erase::nvme::SanitizeAction;
use crate::erase::Method;
use crate::pattern::Pattern;
use crate::units::{
    parse_duration, parse_positive_duration, parse_positive_size, parse_size, parse_transfer_size,
};
use crate::workload::OnError;

#[derive(Parser, Debug)]
#[command(
    name = "ssdfade",
    version,
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
    Measure(RunArgs),
    /// Long run (default 8 h) with a progress bar, sampled every --interval (default 10 s).
    Soak(RunArgs),
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
    /// List the run and erase directories under DIR: status (a run whose process died shows as
    /// crashed), target, duration and IOPS.
    Runs(RunsArgs),
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
    /// Print the erase record as JSON.
    #[arg(long)]
    pub json: bool,
}

/// Options shared by measure and soak.
#[derive(Args, Debug, Clone)]
pub struct RunArgs {
    /// File or block device to test (a file is created when --size is given and it is absent).
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

/// The access specification and stop rule.
#[derive(Args, Debug, Clone)]
pub struct WorkloadArgs {
    /// Transfer size (at most 2 GiB − 4 KiB, what one Linux read or write moves).
    #[arg(long, default_value = "4k", value_parser = parse_transfer_size)]
    pub bs: u64,
    /// Offset granularity (default: the transfer size); 512 gives the seed's unaligned writes.
    #[arg(long, value_parser = parse_size)]
    pub align: Option<u64>,
    /// Percent of I/Os that are reads.
    #[arg(long, default_value_t = 0, value_parser = clap::value_parser!(u8).range(0..=100))]
    pub read_pct: u8,
    /// Percent of I/Os at random offsets (the rest sequential).
    #[arg(long, default_value_t = 100, value_parser = clap::value_parser!(u8).range(0..=100))]
    pub random_pct: u8,
    /// Outstanding I/Os (worker threads for the threads engine, ring depth for uring).
    #[arg(long, default_value_t = 128)]
    pub qd: u32,
    /// How much of the target to use, from offset 0 (default: all of it).
    #[arg(long, value_parser = parse_size)]
    pub span: Option<u64>,
    /// Stop after this long (measure: 60s, soak: 8h, unless --bytes is given).
    #[arg(long, value_parser = parse_positive_duration)]
    pub duration: Option<Duration>,
    /// Stop after this many bytes transferred.
    #[arg(long, value_parser = parse_positive_size)]
    pub bytes: Option<u64>,
    /// Sample period (measure: 1s, soak: 10s).
    #[arg(long, value_parser = parse_duration)]
    pub interval: Option<Duration>,
    /// Seed for offsets and data (default: a fresh one, recorded in run.json).
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
