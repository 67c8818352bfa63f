//! The telemetry sampler: a thread of its own that reads the drive's health (see
//! [`crate::device::telemetry`]) every interval and keeps the latest reading, which the
//! recorder puts into each sample as the interval ends. The I/O never waits on it: workers do
//! not know it exists, and the recorder only copies the last reading. A read that fails is
//! recorded once (the run's note) and the drive is not asked again; it is never fatal. The
//! failed ask is counted with the readings, so what a drive that answers nothing costs is
//! measured too: one ask, then nothing.

use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::{Arc, Mutex};
use std::thread::JoinHandle;
use std::time::{Duration, Instant};

use crate::device::telemetry::HealthReader;
use crate::drive::Health;

/// What the sampler thread shares with the recorder.
#[derive(Default)]
struct Shared {
    latest: Mutex<Option<Health>>,
    /// Why reading stopped, when a read failed.
    failed: Mutex<Option<String>>,
    stop: AtomicBool,
    /// Times the drive was asked (the failed ask included), and the thread's CPU seconds spent
    /// on them (its own clock).
    reads: Mutex<(u64, f64)>,
}

/// A running sampler; [`Sampler::finish`] stops it.
pub struct Sampler {
    shared: Arc<Shared>,
    thread: Mutex<Option<JoinHandle<()>>>,
}

use crate::results::Telemetry as SamplerEnd;

impl Sampler {
    /// Starts reading with `read` now and every `every` after.
    pub fn start(mut read: HealthReader, every: Duration) -> Sampler {
        let shared = Arc::new(Shared::default());
        let own = shared.clone();
        let thread = std::thread::Builder::new()
            .name("telemetry".into())
            .spawn(move || {
                while !own.stop.load(Ordering::Relaxed) {
                    let cpu0 = thread_cpu_s();
                    let result = read();
                    let cpu = thread_cpu_s() - cpu0;
                    {
                        let mut r = own.reads.lock().expect("sampler lock");
                        r.0 += 1;
                        r.1 += cpu;
                    }
                    match result {
                        Ok(h) => *own.latest.lock().expect("sampler lock") = Some(h),
                        Err(e) => {
                            *own.failed.lock().expect("sampler lock") = Some(format!(
                                "the drive's health could not be read during the run ({e:#}); the run went on without it"
                            ));
                            return;
                        }
                    }
                    let until = Instant::now() + every;
                    while !own.stop.load(Ordering::Relaxed) && Instant::now() < until {
                        std::thread::sleep(Duration::from_millis(20).min(every));
                    }
                }
            })
            .ok();
        Sampler {
            shared,
            thread: Mutex::new(thread),
        }
    }

    /// The latest reading, if any.
    pub fn latest(&self) -> Option<Health> {
        self.shared.latest.lock().expect("sampler lock").clone()
    }

    /// Stops the thread and says what it did.
    pub fn finish(&self) -> SamplerEnd {
        self.shared.stop.store(true, Ordering::Relaxed);
        if let Some(t) = self.thread.lock().expect("sampler lock").take() {
            let _ = t.join();
        }
        let (reads, cpu) = *self.shared.reads.lock().expect("sampler lock");
        SamplerEnd {
            reads,
            cpu_per_read_us: if reads > 0 {
                cpu / reads as f64 * 1e6
            } else {
                0.0
            },
            note: self.shared.failed.lock().expect("sampler lock").take(),
        }
    }
}

/// CPU seconds this thread has used.
fn thread_cpu_s() -> f64 {
    let mut ts = libc::timespec {
        tv_sec: 0,
        tv_nsec: 0,
    };
    // SAFETY: clock_gettime writes one timespec we own.
    unsafe { libc::clock_gettime(libc::CLOCK_THREAD_CPUTIME_ID, &mut ts) };
    ts.tv_sec as f64 + ts.tv_nsec as f64 * 1e-9
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Waits until `f` holds (the thread runs on its own; no fixed sleeps decide a result).
    fn eventually(f: impl Fn() -> bool) -> bool {
        for _ in 0..500 {
            if f() {
                return true;
            }
            std::thread::sleep(Duration::from_millis(10));
        }
        false
    }

    #[test]
    fn readings_reach_the_recorder_and_a_failed_read_is_noted_once_and_ends_reading() {
        let calls = Arc::new(Mutex::new(0u32));
        let counted = calls.clone();
        let sampler = Sampler::start(
            Box::new(move || {
                let mut n = counted.lock().unwrap();
                *n += 1;
                if *n <= 3 {
                    Ok(Health {
                        temperature_c: Some(40.0 + f64::from(*n)),
                        ..Default::default()
                    })
                } else {
                    anyhow::bail!("Get Log Page failed: Invalid argument")
                }
            }),
            Duration::from_millis(1),
        );
        assert!(eventually(|| *calls.lock().unwrap() >= 4));
        assert_eq!(sampler.latest().unwrap().temperature_c, Some(43.0));
        let end = sampler.finish();
        assert_eq!(
            end.reads, 4,
            "the failed ask is counted, so its cost is measured"
        );
        assert_eq!(
            *calls.lock().unwrap(),
            4,
            "a failed drive is not asked again"
        );
        assert!(end.note.unwrap().contains("Invalid argument"));
    }
}
