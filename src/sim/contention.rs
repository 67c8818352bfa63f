//! What one command waits for inside the drive beyond its share of the drive's throughput:
//! the die it needs busy with other work, the speed of the page it reads or programs, and the
//! queue in front of the drive's bottleneck as a closed loop of QD commands fills it.
//!
//! - **Die contention.** A read finds its die busy with the host's programs (written back from
//!   the cache), reads and folding of the I/Os around it (its batch), and waits for the
//!   work in progress (at most the suspend time where the class suspends programs and erases)
//!   and the reads queued ahead of it (reads go first: a non-preemptive priority queue,
//!   Pollaczek–Khinchine). A program waits for all of it. The wait is drawn per command: busy
//!   with the dies' utilisation, then exponential with the queue's mean, so it widens with load.
//!   Garbage collection is not counted here: its holds are given to the commands on its die
//!   apart (see [`super::device::SimDevice::finish_batch`]).
//! - **The media's tail.** Retries and housekeeping make a few commands wait much longer than
//!   the rest: a power law through the preset's 99th and 99.999th percentiles.
//! - **Page types.** An MLC cell's two pages (TLC: three) read and program at different speeds;
//!   a command's page type is drawn from its number, ± the preset's `page_spread` around the
//!   mean time, so the mean is unchanged.
//! - **Mixing.** A host read that finds its die programming or erasing has the firmware
//!   suspend that work and resume it after the read: controller time a pure workload never
//!   spends, so a mix of reads and writes runs below the harmonic mean of the two where the
//!   controller binds (enterprise drives: Intel specifies its DC P3700's 70/30 mix at 0.86
//!   of that mean).
//! - **The closed loop's queue.** QD commands share one bottleneck (`b` seconds each) and each
//!   spends `floor` seconds in all when alone: mean-value analysis with deterministic service
//!   (Reiser's residual) gives the throughput, which bends below both `QD / floor` and `1 / b`
//!   where the two meet instead of turning a sharp corner.

/// The load the last batch left on the dies, per die.
#[derive(Clone, Copy, Debug, Default, PartialEq)]
pub struct DieLoad {
    /// Utilisation by host reads.
    reads: f64,
    /// Utilisation by everything else the host caused (programs, folding).
    other: f64,
    /// Mean residual of a read and of the other work in progress, in seconds.
    residual: [f64; 2],
}

impl DieLoad {
    /// The load of `read_s` and `other_s` die-seconds (all dies together) over `seconds` on
    /// `dies` dies, whose reads take `read_s1` and other operations `other_s1` seconds each; a
    /// die suspends work in progress for a read within `suspend_s` (0: never).
    pub fn new(
        [read_s, other_s]: [f64; 2],
        seconds: f64,
        dies: u32,
        [read_s1, other_s1]: [f64; 2],
        suspend_s: f64,
    ) -> DieLoad {
        if seconds <= 0.0 {
            return DieLoad::default();
        }
        let per_die = seconds * f64::from(dies.max(1));
        let other_residual = if suspend_s > 0.0 {
            (other_s1 / 2.0).min(suspend_s)
        } else {
            other_s1 / 2.0
        };
        DieLoad {
            reads: (read_s / per_die).min(0.95),
            other: (other_s / per_die).min(0.95),
            residual: [read_s1 / 2.0, other_residual],
        }
    }

    /// This load over `f` times its time (a drive that stood idle between its commands).
    pub fn thinned(self, f: f64) -> DieLoad {
        DieLoad {
            reads: self.reads * f,
            other: self.other * f,
            ..self
        }
    }

    /// The wait of a command that finds this load, in seconds, from two uniform draws `u`: a
    /// read (it goes before the other work queued on its die) or a program the host waits for
    /// (a flush). Of its own stream of `qd` commands it finds only the other `qd` − 1: at
    /// queue depth 1 a read finds none of its stream's reads and a flush none of its programs
    /// (they ran one after another); a read still finds the programs of its stream's writes,
    /// which the cache acknowledged before programming them.
    pub fn wait(&self, read: bool, qd: u32, u: [f64; 2]) -> f64 {
        let own = if qd <= 1 {
            0.0
        } else {
            1.0 - 1.0 / f64::from(qd)
        };
        let reads = self.reads * own;
        let other = if read { self.other } else { self.other * own };
        let busy = (reads + other).min(0.95);
        if busy <= 0.0 || u[0] >= busy {
            return 0.0;
        }
        let residual = reads * self.residual[0] + other * self.residual[1];
        let mean = if read {
            residual / (1.0 - reads)
        } else {
            residual / ((1.0 - reads) * (1.0 - busy))
        };
        // Busy with probability `busy`, then exponential: the overall mean is `mean`.
        -(1.0 - u[1]).ln() * mean / busy
    }
}

/// The relative speed of a command's page: `types` page types (1: all alike), spread evenly
/// over ± `spread` around 1, the type drawn from `u` (uniform).
pub fn page_factor(types: u32, spread: f64, u: f64) -> f64 {
    if types <= 1 || spread <= 0.0 {
        return 1.0;
    }
    let t = ((u * f64::from(types)) as u32).min(types - 1);
    1.0 + spread * (2.0 * f64::from(t) / f64::from(types - 1) - 1.0)
}

/// Controller commands a batch spends suspending and resuming its dies' work for its host
/// reads: `read_pages` pages read on dies that spend `read_die_s` seconds on those reads and
/// `other_die_s` on everything else the host caused (programs, folding, erases), each read
/// finding its die busy with the other work in proportion to that work's share of the dies'
/// time, at `cost` commands per suspension.
pub fn suspend_commands(read_pages: f64, read_die_s: f64, other_die_s: f64, cost: f64) -> f64 {
    let all = read_die_s + other_die_s;
    if cost <= 0.0 || all <= 0.0 {
        return 0.0;
    }
    read_pages * cost * other_die_s / all
}

/// The extra wait of a command in the media's latency tail, in µs, from a uniform draw `u`:
/// `p99` at the 99th percentile and `p99999` at the 99.999th, a power law in 1 / (1 − `u`)
/// through the two (every command waits a little: the law's floor, about an eighth of `p99`),
/// no longer growing past the 99.9999th percentile.
pub fn tail_wait([p99, p99999]: [f64; 2], u: f64) -> f64 {
    if p99 <= 0.0 {
        return 0.0;
    }
    let exponent = (p99999 / p99).ln() / 1000f64.ln();
    let q = (1.0 / (1.0 - u)).min(1e6);
    p99 * (q / 100.0).powf(exponent)
}

/// Throughput of a closed loop of `qd` commands through one bottleneck of `b` seconds per
/// command (deterministic) whose commands each take `floor` seconds alone (the bottleneck
/// included): exact mean-value analysis, with the residual of the command in service taken
/// as half its time (Reiser's approximation for deterministic service).
pub fn closed_throughput(b: f64, floor: f64, qd: u32) -> f64 {
    if b <= 0.0 {
        return f64::from(qd) / floor.max(1e-12);
    }
    let z = (floor - b).max(0.0);
    let (mut q, mut x) = (0.0, 0.0);
    for n in 1..=qd.max(1) {
        let r = b * (1.0 + q - x * b / 2.0);
        x = f64::from(n) / (z + r);
        q = x * r;
    }
    x.min(1.0 / b)
}
