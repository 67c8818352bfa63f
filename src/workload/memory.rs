//! Memory bounds of a run, checked before anything starts: one transfer is at most what one
//! Linux read or write moves, and the buffers a run allocates (one per outstanding I/O plus the
//! write-data pool) must fit in the memory the kernel says is available.

use crate::bad_input;
use crate::units::{check_transfer, format_bytes};

/// Of `MemAvailable`, the share a run may take for its buffers; the rest stays for the page
/// cache, the kernel and everything else running.
const AVAILABLE_SHARE: f64 = 0.75;

/// Bytes a real run allocates for `qd` outstanding transfers of `bs` bytes (each buffer rounded
/// to a whole page) plus the shared write-data pool.
pub fn run_buffer_bytes(bs: u64, qd: u32) -> u64 {
    let per_io = bs.div_ceil(4096).saturating_mul(4096);
    per_io
        .saturating_mul(u64::from(qd))
        .saturating_add(crate::pattern::pool_bytes(bs as usize) as u64)
}

/// Refuses (exit 2) a real run whose buffers (`bs` × `jobs` × `qd` plus the pool) do not fit
/// in the available memory, naming the figure and what to lower. Call it before the run
/// directory is created; a simulated target allocates no I/O buffers and needs no check.
pub fn check_run(bs: u64, jobs: u32, qd: u32) -> anyhow::Result<()> {
    check_transfer(bs)?;
    let need = run_buffer_bytes(bs, jobs.saturating_mul(qd));
    let (what, lower) = if jobs > 1 {
        (
            format!("--jobs {jobs} × --qd {qd} × --bs {}", format_bytes(bs)),
            "lower --jobs, --qd or --bs",
        )
    } else {
        (
            format!("--qd {qd} × --bs {}", format_bytes(bs)),
            "lower --qd or --bs",
        )
    };
    check_fits(need, available_bytes()?, &what, lower)
}

/// Refuses (exit 2) a self-test whose `buffers` buffers of `bs` bytes plus the pool do not fit.
pub fn check_selftest(bs: u64, buffers: u32) -> anyhow::Result<()> {
    check_transfer(bs)?;
    let need = run_buffer_bytes(bs, buffers);
    check_fits(
        need,
        available_bytes()?,
        &format!("{buffers} buffers × --bs {}", format_bytes(bs)),
        "lower --bs",
    )
}

/// Refuses `need` bytes when they exceed the share of `available` a run may take.
fn check_fits(need: u64, available: u64, what: &str, suggestion: &str) -> anyhow::Result<()> {
    let allowed = (available as f64 * AVAILABLE_SHARE) as u64;
    if need > allowed {
        bad_input!(
            "{what} needs {} of I/O buffers and data pool, but only {} of memory is available ({} allowed): {suggestion}",
            format_bytes(need),
            format_bytes(available),
            format_bytes(allowed)
        );
    }
    Ok(())
}

/// `MemAvailable` from /proc/meminfo, in bytes.
pub fn available_bytes() -> anyhow::Result<u64> {
    let text = std::fs::read_to_string("/proc/meminfo")
        .map_err(|e| anyhow::anyhow!("cannot read /proc/meminfo to check memory: {e}"))?;
    parse_mem_available(&text)
        .ok_or_else(|| anyhow::anyhow!("/proc/meminfo has no MemAvailable line (kernel too old?)"))
}

fn parse_mem_available(meminfo: &str) -> Option<u64> {
    let line = meminfo.lines().find(|l| l.starts_with("MemAvailable:"))?;
    let kib: u64 = line.split_whitespace().nth(1)?.parse().ok()?;
    kib.checked_mul(1024)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::units::MAX_TRANSFER;

    #[test]
    fn meminfo_gives_available_bytes() {
        let text = "MemTotal:  8000000 kB\nMemFree:  100 kB\nMemAvailable:    2097152 kB\n";
        assert_eq!(parse_mem_available(text), Some(2 << 30));
        assert_eq!(parse_mem_available("MemTotal: 1 kB\n"), None);
        assert!(available_bytes().unwrap() > 0);
    }

    #[test]
    fn buffers_count_every_outstanding_transfer_and_the_pool() {
        assert_eq!(run_buffer_bytes(4096, 128), 128 * 4096 + (1 << 20) + 4096);
        assert_eq!(run_buffer_bytes(512, 2), 2 * 4096 + (1 << 20) + 512);
        assert_eq!(run_buffer_bytes(u64::MAX, u32::MAX), u64::MAX);
    }

    #[test]
    fn too_much_is_refused_with_the_figure_and_a_suggestion() {
        let err = check_fits(
            7 << 30,
            8 << 30,
            "--qd 28 × --bs 256.0 MiB",
            "lower --qd or --bs",
        )
        .unwrap_err();
        assert_eq!(crate::error::exit_code(&err), 2);
        let text = err.to_string();
        assert!(text.contains("needs 7.0 GiB"), "{text}");
        assert!(text.contains("8.0 GiB of memory is available"), "{text}");
        assert!(text.contains("lower --qd or --bs"), "{text}");
        assert!(check_fits(6 << 30, 8 << 30, "x", "y").is_ok());
        // 1 GiB × QD4096 is 4 TiB: refused on any machine this runs on.
        let err = check_run(1 << 30, 1, 4096).unwrap_err();
        assert!(err.to_string().contains("needs 4.0 TiB"), "{err}");
        assert!(check_run(4096, 1, 128).is_ok());
        // With jobs, the buffers are jobs × QD and the words name --jobs: 4 × 1024 × 1 GiB.
        let err = check_run(1 << 30, 4, 1024).unwrap_err().to_string();
        assert!(
            err.starts_with("--jobs 4 × --qd 1024 × --bs 1.0 GiB needs 4.0 TiB"),
            "{err}"
        );
        assert!(err.ends_with(": lower --jobs, --qd or --bs"), "{err}");
        let err = check_run(1 << 30, 1, 4096).unwrap_err().to_string();
        assert!(
            err.starts_with("--qd 4096 × --bs 1.0 GiB needs") && !err.contains("--jobs"),
            "{err}"
        );
    }

    #[test]
    fn one_transfer_is_capped_at_what_linux_moves() {
        assert!(check_transfer(MAX_TRANSFER).is_ok());
        let err = check_transfer(MAX_TRANSFER + 4096).unwrap_err();
        assert_eq!(crate::error::exit_code(&err), 2);
        assert!(err.to_string().contains("use --bs 1G or less"), "{err}");
    }
}
