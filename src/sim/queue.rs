//! The host's closed loop around a simulated drive: QD I/Os always outstanding, a new one
//! submitted the moment one completes, served one after another (first come, first served) by
//! the drive as a whole. It turns each I/O's service time into its latency — completion minus
//! submission — so Little's law (mean latency = QD / IOPS) holds by construction, and the I/Os
//! queued behind one that ran garbage collection wait for it: the latency tail.
//!
//! With `scale=k` each simulated I/O stands for k host I/Os of a k times smaller share of the
//! service, so QD host I/Os are QD / k simulated ones (possibly a fraction of one): I/O i was
//! submitted when the host I/O QD places earlier completed, a point that falls inside an earlier
//! simulated I/O (or the same one) and is interpolated within it.

/// The closed loop: the completion times of the last simulated I/Os.
pub struct ClosedLoop {
    /// Completion time of simulated I/O j at `j & mask`.
    completions: Vec<f64>,
    /// When the first QD host I/Os were submitted.
    start: f64,
    mask: usize,
    /// Simulated I/Os served so far.
    served: usize,
    /// QD / scale = `whole + fraction` simulated I/Os outstanding.
    whole: usize,
    fraction: f64,
    /// Completion time of the last I/O served.
    clock: f64,
}

impl ClosedLoop {
    /// A loop of `qd` host I/Os, all submitted at time `start`, on a drive whose I/Os each stand
    /// for `scale` host I/Os.
    pub fn new(qd: u32, scale: u32, start: f64) -> ClosedLoop {
        let outstanding = f64::from(qd) / f64::from(scale);
        let whole = outstanding.floor() as usize;
        let len = (whole + 2).next_power_of_two();
        ClosedLoop {
            completions: vec![start; len],
            start,
            mask: len - 1,
            served: 0,
            whole,
            fraction: outstanding - whole as f64,
            clock: start,
        }
    }

    /// Serves the next I/O for `service` seconds and returns its latency. It starts when the
    /// previous one completes (the drive is never idle: the loop always has I/Os waiting), and
    /// was submitted when the one QD host I/Os before it completed.
    #[inline]
    pub fn serve(&mut self, service: f64) -> f64 {
        self.clock += service;
        let i = self.served;
        self.completions[i & self.mask] = self.clock;
        self.served += 1;
        // I/O i was submitted at host position i + 1 − QD/scale (simulated I/O units), between
        // the completions of I/Os i − whole − 1 and i − whole.
        let later = self.completion(i as isize - self.whole as isize);
        let earlier = self.completion(i as isize - self.whole as isize - 1);
        let submitted = later - self.fraction * (later - earlier);
        self.clock - submitted
    }

    /// Completion time of simulated I/O `j` (the start time for j < 0).
    #[inline]
    fn completion(&self, j: isize) -> f64 {
        if j < 0 {
            self.start
        } else {
            self.completions[j as usize & self.mask]
        }
    }
}

/// The host's open loop around a simulated drive under an issue rate. Simulated I/O n stands
/// for `scale` host I/Os, n·scale to n·scale + scale − 1, each a `scale`-th of its service: host
/// I/O m is due at the schedule's time of m, and is issued then, or later when `qd` host I/Os are
/// already outstanding (it is then late by the difference). The drive serves host I/Os one after
/// another, each taking its share of the drive's throughput; when none is waiting it stands
/// still until the next is issued. That gap is plain time passing on the simulated clock: the
/// drive does no idle work (background collection) in it. A host I/O completes no sooner than
/// the drive's unloaded latency after its issue: at QD > 1 the throughput share is shorter
/// than one I/O's own time on the drive.
pub struct OpenLoop {
    rate: crate::workload::Rate,
    bs: u64,
    scale: u64,
    /// Completion time of host I/O m at `m % qd`.
    completions: Vec<f64>,
    /// Host I/Os served so far.
    served: u64,
    /// When the drive has served the host I/Os so far (their throughput shares).
    clock: f64,
    /// Completion time of the last host I/O served.
    last: f64,
}

impl OpenLoop {
    /// An empty schedule at `rate` for `bs`-byte host I/Os, at most `qd` outstanding.
    pub fn new(rate: crate::workload::Rate, bs: u64, qd: u32, scale: u32) -> OpenLoop {
        OpenLoop {
            rate,
            bs,
            scale: u64::from(scale.max(1)),
            completions: vec![0.0; qd.max(1) as usize],
            served: 0,
            clock: 0.0,
            last: 0.0,
        }
    }

    /// Serves the next simulated I/O (its `scale` host I/Os) for `service` seconds of the
    /// drive's throughput in all, each host I/O taking at least `unloaded` seconds from its
    /// issue; `hosts` gets its host I/Os one by one, so each counts in the interval its own
    /// completion falls in (at scale=64 and 1 I/O per second one simulated I/O spans 64 s).
    #[inline]
    pub fn serve(&mut self, service: f64, unloaded: f64, hosts: &mut Vec<HostIo>) {
        let each = service / self.scale as f64;
        hosts.clear();
        for _ in 0..self.scale {
            let m = self.served;
            let due = self.rate.due_ns(m, self.bs) as f64 / 1e9;
            let slot = (m % self.completions.len() as u64) as usize;
            // The slot frees when the host I/O `qd` places earlier completes (0 at first).
            let issued = due.max(self.completions[slot]);
            self.clock = issued.max(self.clock) + each;
            let completion = self.clock.max(issued + unloaded);
            self.completions[slot] = completion;
            self.last = self.last.max(completion);
            self.served += 1;
            hosts.push(HostIo {
                done: self.last,
                latency: completion - issued,
                lag: issued - due,
            });
        }
    }
}

/// One host I/O as the open loop served it, in seconds.
#[derive(Clone, Copy, Debug, Default, PartialEq)]
pub struct HostIo {
    /// When it and every host I/O before it had completed (the time it is counted at).
    pub done: f64,
    /// Completion minus issue.
    pub latency: f64,
    /// Issue minus due time.
    pub lag: f64,
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Serves one simulated I/O: the last host I/O's completion and the host I/Os' mean
    /// latency and mean lag.
    fn serve1(q: &mut OpenLoop, service: f64, unloaded: f64) -> (f64, f64, f64) {
        let mut hosts = Vec::new();
        q.serve(service, unloaded, &mut hosts);
        let n = hosts.len() as f64;
        let mean = |f: fn(&HostIo) -> f64| hosts.iter().map(f).sum::<f64>() / n;
        (
            hosts[hosts.len() - 1].done,
            mean(|h| h.latency),
            mean(|h| h.lag),
        )
    }

    #[test]
    fn an_open_loop_waits_for_due_times_and_counts_late_issues() {
        use crate::workload::Rate;
        // 1000 I/Os per second, QD 1: a 0.2 ms I/O leaves the drive idle until the next is due.
        let mut q = OpenLoop::new(Rate::Iops(1000), 4096, 1, 1);
        assert_eq!(serve1(&mut q, 0.0002, 0.0), (0.0002, 0.0002, 0.0));
        let (c, lat, lag) = serve1(&mut q, 0.0002, 0.0);
        assert!((c - 0.0012).abs() < 1e-12 && (lat - 0.0002).abs() < 1e-12 && lag == 0.0);
        // A 3 ms I/O: the next one (due at 2 ms) is issued late, when the slot frees at 4.001 ms.
        let (c, _, _) = serve1(&mut q, 0.003, 0.0);
        assert!((c - 0.005).abs() < 1e-12, "{c}");
        let (c, lat, lag) = serve1(&mut q, 0.0001, 0.0);
        assert!((lag - 0.002).abs() < 1e-12, "{lag}");
        assert!((lat - 0.0001).abs() < 1e-12 && (c - 0.0051).abs() < 1e-12);
    }

    #[test]
    fn a_scaled_open_loop_times_each_host_io_not_the_simulated_one() {
        use crate::workload::Rate;
        // Each simulated I/O is 16 host I/Os of 1.6 ms in all: 0.1 ms each. At 1000/s, QD 1,
        // every host I/O finds the drive idle: latency 0.1 ms, none late, and the 16th
        // completes at 15.1 ms.
        let mut q = OpenLoop::new(Rate::Iops(1000), 4096, 1, 16);
        for n in 0..4 {
            let (c, lat, lag) = serve1(&mut q, 0.0016, 0.0);
            assert!((lat - 0.0001).abs() < 1e-12, "latency {lat}");
            assert!(lag.abs() < 1e-12, "lag {lag}");
            assert!(
                (c - (0.016 * n as f64 + 0.0151)).abs() < 1e-12,
                "completion {c}"
            );
        }
        // Above the drive's rate (0.1 ms each, 100 000/s due), QD 1: each host I/O waits for
        // the one before it, and the lag grows by 0.09 ms per host I/O.
        let mut q = OpenLoop::new(Rate::Iops(100_000), 4096, 1, 16);
        let (c, lat, lag) = serve1(&mut q, 0.0016, 0.0);
        assert!(
            (c - 0.0016).abs() < 1e-12 && (lat - 0.0001).abs() < 1e-12,
            "{c} {lat}"
        );
        assert!((lag - 0.00009 * 7.5).abs() < 1e-9, "mean lag {lag}");
    }

    #[test]
    fn a_paced_io_takes_at_least_the_drives_unloaded_latency() {
        use crate::workload::Rate;
        // QD 64 on a drive that serves 10 000/s (0.1 ms each) but takes 0.5 ms per I/O: at
        // 1000/s each I/O finds it idle and takes 0.5 ms, not the 0.1 ms throughput share.
        let mut q = OpenLoop::new(Rate::Iops(1000), 4096, 64, 1);
        for n in 0..4 {
            let (c, lat, lag) = serve1(&mut q, 0.0001, 0.0005);
            assert!((lat - 0.0005).abs() < 1e-12 && lag == 0.0, "{lat} {lag}");
            assert!((c - (0.001 * n as f64 + 0.0005)).abs() < 1e-12, "{c}");
        }
        // Flat out (100 000/s due) the throughput still binds: 0.1 ms per I/O, 64 in flight.
        let mut q = OpenLoop::new(Rate::Iops(100_000), 4096, 64, 1);
        let mut last = 0.0;
        for _ in 0..10_000 {
            last = serve1(&mut q, 0.0001, 0.0005).0;
        }
        assert!((last - 1.0).abs() < 0.001, "{last}");
    }

    fn latencies(qd: u32, scale: u32, services: &[f64]) -> Vec<f64> {
        let mut q = ClosedLoop::new(qd, scale, 0.0);
        services.iter().map(|&s| q.serve(s)).collect()
    }

    #[test]
    fn an_io_waits_for_the_ones_ahead_of_it() {
        // QD2: completions at 1, 3, 6, 10; I/Os 2 and 3 were submitted when 0 and 1 completed.
        assert_eq!(latencies(2, 1, &[1.0, 2.0, 3.0, 4.0]), [1.0, 3.0, 5.0, 7.0]);
        // QD1: latency is the service time.
        assert_eq!(latencies(1, 1, &[1.0, 5.0, 2.0]), [1.0, 5.0, 2.0]);
    }

    #[test]
    fn scaled_ios_stand_for_a_fraction_of_the_queue() {
        // Each simulated I/O is 4 host I/Os: at QD1 a host I/O is a quarter of it.
        assert_eq!(latencies(1, 4, &[4.0, 8.0]), [1.0, 2.0]);
        // QD6 is 1.5 simulated I/Os: at a constant service s, latency 1.5 s.
        let steady = latencies(6, 4, &[2.0; 10]);
        assert!(steady[2..].iter().all(|&l| (l - 3.0).abs() < 1e-12));
    }
}
