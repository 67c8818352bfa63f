//! `state=PATH`: a simulated drive kept between commands in a compact binary file.
//!
//! The file holds what cannot be rebuilt — the mapping (logical page → slot) with the per-page
//! content tags, per-block erase counts and states, the free pool order, the write frontier and
//! the lifetime figures (power-on time, programs, throttling debt's history) — and is written to
//! a temporary file, fsync'd and renamed over the old one, so a crash leaves the old or the new
//! drive, never a mix. Everything else (reverse map, live bits, GC buckets) is rebuilt on load.

use std::fs::File;
use std::io::{BufReader, BufWriter, Read, Write};
use std::path::Path;

use anyhow::Context;

use super::device::{geometry, Lifetime, SimDevice};
use super::ftl::{BlockState, Ftl};
use super::spec::SimSpec;

const MAGIC: &[u8; 8] = b"SSDFSIM1";

/// Saves `dev` to `path` atomically.
pub fn save(dev: &SimDevice, path: &Path) -> anyhow::Result<()> {
    let tmp = path.with_extension("tmp");
    let what = || format!("writing the simulated drive to {}", tmp.display());
    let file = File::create(&tmp).with_context(what)?;
    let mut w = BufWriter::with_capacity(1 << 20, file);
    let (map, erase_count, states, free, frontier, write_ptr) = dev.ftl().persistent();
    let life = dev.lifetime();
    w.write_all(MAGIC).with_context(what)?;
    let key = identity_key(&dev.spec);
    put_u64(&mut w, key.len() as u64)?;
    w.write_all(key.as_bytes())?;
    for v in [life.power_on_s, life.history_pe, life.slc_fill_bytes] {
        put_u64(&mut w, v.to_bits())?;
    }
    put_u64(&mut w, life.host_bytes)?;
    put_u64(&mut w, life.programmed_slots)?;
    put_u64(&mut w, u64::from(frontier))?;
    put_u64(&mut w, u64::from(write_ptr))?;
    put_u32s(&mut w, erase_count)?;
    let states: Vec<u8> = states.iter().map(|&s| s as u8).collect();
    put_u64(&mut w, states.len() as u64)?;
    w.write_all(&states)?;
    put_u32s(&mut w, &free.iter().copied().collect::<Vec<_>>())?;
    put_u32s(&mut w, map.as_flattened())?;
    let file = w
        .into_inner()
        .map_err(|e| e.into_error())
        .with_context(what)?;
    file.sync_all().with_context(what)?;
    drop(file);
    std::fs::rename(&tmp, path)
        .with_context(|| format!("replacing {} with the new state", path.display()))?;
    if let Some(dir) = path.parent().filter(|d| !d.as_os_str().is_empty()) {
        File::open(dir)
            .and_then(|d| d.sync_all())
            .with_context(|| format!("syncing directory {}", dir.display()))?;
    }
    Ok(())
}

/// Loads the drive saved at `path`; it must have been made from the same preset and scale.
pub fn load(spec: &SimSpec, path: &Path) -> anyhow::Result<SimDevice> {
    let what = || {
        format!(
            "reading the simulated drive {} (delete it to start from a new drive)",
            path.display()
        )
    };
    let file = File::open(path).with_context(what)?;
    let mut r = BufReader::with_capacity(1 << 20, file);
    let mut magic = [0u8; 8];
    r.read_exact(&mut magic).with_context(what)?;
    anyhow::ensure!(
        &magic == MAGIC,
        "{} is not a ssdfade simulated drive",
        path.display()
    );
    let key_len = get_u64(&mut r).with_context(what)? as usize;
    anyhow::ensure!(key_len < 4096, "{} is damaged", path.display());
    let mut key = vec![0u8; key_len];
    r.read_exact(&mut key).with_context(what)?;
    let key = String::from_utf8_lossy(&key).to_string();
    if key != identity_key(spec) {
        crate::bad_input!(
            "{} holds a drive made as {key}, not {}: use the same preset and scale, or another state= file",
            path.display(),
            identity_key(spec)
        );
    }
    let geo = geometry(spec);
    let mut f = [0f64; 3];
    for v in &mut f {
        *v = f64::from_bits(get_u64(&mut r).with_context(what)?);
    }
    let host_bytes = get_u64(&mut r).with_context(what)?;
    let programmed_slots = get_u64(&mut r).with_context(what)?;
    let frontier = get_u64(&mut r).with_context(what)? as u32;
    let write_ptr = get_u64(&mut r).with_context(what)? as u32;
    let erase_count = get_u32s(&mut r, geo.blocks as usize).with_context(what)?;
    let n = get_u64(&mut r).with_context(what)? as usize;
    anyhow::ensure!(n == geo.blocks as usize, "{} is damaged", path.display());
    let mut raw = vec![0u8; n];
    r.read_exact(&mut raw).with_context(what)?;
    let states = raw
        .iter()
        .map(|&b| match b {
            0 => Ok(BlockState::Free),
            1 => Ok(BlockState::Open),
            2 => Ok(BlockState::Full),
            3 => Ok(BlockState::Retired),
            _ => anyhow::bail!("{} is damaged (block state {b})", path.display()),
        })
        .collect::<anyhow::Result<Vec<_>>>()?;
    let free = get_u32s(&mut r, geo.blocks as usize).with_context(what)?;
    let flat = get_u32s(&mut r, 2 * geo.user_pages as usize).with_context(what)?;
    anyhow::ensure!(
        flat.len() == 2 * geo.user_pages as usize,
        "{} is damaged (mapping size)",
        path.display()
    );
    let map: Vec<[u32; 2]> = flat.chunks_exact(2).map(|c| [c[0], c[1]]).collect();
    drop(flat);
    let ftl = Ftl::restore(
        geo,
        map,
        erase_count,
        states,
        free.into(),
        frontier,
        write_ptr,
    )
    .with_context(what)?;
    let mut dev = SimDevice::from_parts(spec, ftl);
    dev.set_lifetime(Lifetime {
        power_on_s: f[0],
        history_pe: f[1],
        slc_fill_bytes: f[2],
        host_bytes,
        programmed_slots,
    });
    Ok(dev)
}

/// What must match between a state file and the spec loading it.
fn identity_key(spec: &SimSpec) -> String {
    let geo = geometry(spec);
    format!(
        "{} scale={} blocks={} pages={} slots={}",
        spec.preset.name, spec.scale, geo.blocks, geo.user_pages, geo.slots_per_page
    )
}

fn put_u64(w: &mut impl Write, v: u64) -> std::io::Result<()> {
    w.write_all(&v.to_le_bytes())
}

fn get_u64(r: &mut impl Read) -> std::io::Result<u64> {
    let mut b = [0u8; 8];
    r.read_exact(&mut b)?;
    Ok(u64::from_le_bytes(b))
}

/// A length, then the values little-endian.
fn put_u32s(w: &mut impl Write, values: &[u32]) -> std::io::Result<()> {
    put_u64(w, values.len() as u64)?;
    let mut buf = Vec::with_capacity(1 << 16);
    for chunk in values.chunks(1 << 14) {
        buf.clear();
        for v in chunk {
            buf.extend_from_slice(&v.to_le_bytes());
        }
        w.write_all(&buf)?;
    }
    Ok(())
}

fn get_u32s(r: &mut impl Read, max: usize) -> std::io::Result<Vec<u32>> {
    let n = get_u64(r)? as usize;
    if n > max {
        return Err(std::io::Error::new(
            std::io::ErrorKind::InvalidData,
            "array longer than the drive",
        ));
    }
    let mut out = Vec::with_capacity(n);
    let mut buf = vec![0u8; 1 << 16];
    let mut left = n;
    while left > 0 {
        let take = left.min(buf.len() / 4);
        r.read_exact(&mut buf[..take * 4])?;
        out.extend(
            buf[..take * 4]
                .chunks_exact(4)
                .map(|c| u32::from_le_bytes(c.try_into().expect("4 bytes"))),
        );
        left -= take;
    }
    Ok(out)
}
