//! Write data: what bytes go into every write buffer.
//!
//! The default, `random`, is incompressible and unique for every write, so a controller that
//! compresses or deduplicates (SandForce did both) gains nothing from it. It costs one pass of
//! stores over the buffer per write and no reads: every 16 bytes are two AES rounds of a counter
//! made of the write's unique stamp and the 16 bytes' place in the write, under keys drawn from
//! the run's seed ([`DataKeys`]). AES rounds with fixed keys are a bijection, so no 16 bytes
//! repeat anywhere in a run, and the CPU's AES instructions (VAES: 64 bytes per instruction)
//! make them cheaper than any generator in general-purpose vector code. Reading nothing
//! matters: on a busy host the I/O path's kernel work evicts any table of random bytes between
//! two writes, and copying from one cost twice as much (docs/performance-cpu.md). `--refill`
//! makes every write a fresh ChaCha stream instead (slower), with a 16-byte stamp unique in the
//! run at the start of every 512-byte sector. `compressible:N` XORs its random part from a
//! shared ChaCha-filled pool and stamps its sectors the same way.
//!
//! Generation is split in two: [`PatternGen::next_content`] decides what a write contains (a small
//! [`WriteContent`]) and [`PatternGen::render`] turns that into bytes. A simulated device only
//! needs the first step: it reads compressibility and duplication from the descriptor.

#[cfg(target_arch = "x86_64")]
mod simd;
pub mod speed;

use std::fmt;
use std::str::FromStr;
use std::sync::Arc;

use rand_chacha::ChaCha8Rng;
use rand_core::{RngCore, SeedableRng};

/// Size of the 512-byte units that stamps and compressible chunks work in.
pub const SECTOR: usize = 512;
const POOL_BYTES: usize = 1 << 20;
const DEDUPE_HISTORY: usize = 1024;

/// The data pattern the user chose.
#[derive(
    Clone, Copy, Debug, PartialEq, Eq, serde::Serialize, serde::Deserialize, schemars::JsonSchema,
)]
#[serde(rename_all = "snake_case", tag = "kind", content = "percent")]
pub enum Pattern {
    /// Incompressible, unique per write (the default).
    Random,
    /// Iometer's "repeating bytes": one byte value fills each write.
    Repeat,
    /// All zeros.
    Zero,
    /// N % of every 512-byte chunk is zeros, the rest random (fio's buffer_compress_percentage).
    Compressible(u8),
    /// N % of writes repeat the content of an earlier write.
    Dedupe(u8),
}

impl FromStr for Pattern {
    type Err = String;

    fn from_str(s: &str) -> Result<Self, String> {
        let percent = |v: &str| -> Result<u8, String> {
            match v.parse::<u8>() {
                Ok(n) if n <= 100 => Ok(n),
                _ => Err(format!(
                    "'{s}': the percentage must be a whole number from 0 to 100"
                )),
            }
        };
        match s.split_once(':') {
            None => match s {
                "random" => Ok(Pattern::Random),
                "repeat" => Ok(Pattern::Repeat),
                "zero" => Ok(Pattern::Zero),
                _ => Err(format!(
                    "unknown pattern '{s}': use random, repeat, zero, compressible:N or dedupe:N"
                )),
            },
            Some(("compressible", n)) => Ok(Pattern::Compressible(percent(n)?)),
            Some(("dedupe", n)) => Ok(Pattern::Dedupe(percent(n)?)),
            Some(_) => Err(format!(
                "unknown pattern '{s}': use random, repeat, zero, compressible:N or dedupe:N"
            )),
        }
    }
}

impl fmt::Display for Pattern {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Pattern::Random => f.write_str("random"),
            Pattern::Repeat => f.write_str("repeat"),
            Pattern::Zero => f.write_str("zero"),
            Pattern::Compressible(n) => write!(f, "compressible:{n}"),
            Pattern::Dedupe(n) => write!(f, "dedupe:{n}"),
        }
    }
}

/// What one write contains, small enough to keep per logical block in a simulated device.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct WriteContent {
    /// Unique identity of the content; equal for a write that repeats an earlier one.
    pub stamp: u64,
    /// Per-write XOR key applied to pool bytes (and the seed of a `--refill` stream); 0 where
    /// the pattern reads neither.
    pub key: u64,
    /// Byte offset into the shared pool (a multiple of 8; 0 where unused).
    pub pool_offset: u32,
    /// True when this write repeats an earlier write's content.
    pub duplicate: bool,
}

/// Bytes the shared pool takes for writes of up to `max_block` bytes.
pub fn pool_bytes(max_block: usize) -> usize {
    POOL_BYTES.saturating_add(max_block)
}

/// A random pool shared by every generator of a run; an error when the memory cannot be had.
pub fn make_pool(seed: u64, max_block: usize) -> std::io::Result<Arc<Vec<u8>>> {
    let len = pool_bytes(max_block);
    let mut pool = Vec::new();
    pool.try_reserve_exact(len).map_err(|_| {
        std::io::Error::new(
            std::io::ErrorKind::OutOfMemory,
            format!("out of memory allocating the {len}-byte write-data pool"),
        )
    })?;
    pool.resize(len, 0);
    ChaCha8Rng::seed_from_u64(seed ^ 0x706f_6f6c).fill_bytes(&mut pool);
    Ok(Arc::new(pool))
}

/// The pool a run of `pattern` needs: only `compressible:N` reads it, so the others get an
/// empty one instead of a megabyte of ChaCha made at every run's start and never read (2 % of
/// a 6 s `uring` run's user time, docs/performance-cpu.md).
pub fn pool_for(pattern: Pattern, seed: u64, max_block: usize) -> std::io::Result<Arc<Vec<u8>>> {
    if matches!(pattern, Pattern::Compressible(_)) {
        make_pool(seed, max_block)
    } else {
        Ok(Arc::new(Vec::new()))
    }
}

/// Generates the contents of one stream of writes (one per worker or submitter).
pub struct PatternGen {
    pattern: Pattern,
    refill: bool,
    pool: Arc<Vec<u8>>,
    rng: ChaCha8Rng,
    stream: u64,
    counter: u64,
    history: Vec<WriteContent>,
    keys: DataKeys,
    /// The fastest way this CPU has to make the default pattern's bytes.
    fill: Fill,
}

impl PatternGen {
    /// A generator for stream `stream` (unique per worker) of a run seeded with `seed`.
    pub fn new(pattern: Pattern, refill: bool, pool: Arc<Vec<u8>>, seed: u64, stream: u64) -> Self {
        let history = if matches!(pattern, Pattern::Dedupe(_)) {
            Vec::with_capacity(DEDUPE_HISTORY)
        } else {
            Vec::new()
        };
        PatternGen {
            pattern,
            refill,
            pool,
            rng: ChaCha8Rng::seed_from_u64(
                seed.wrapping_add(stream.wrapping_mul(0x9e37_79b9_7f4a_7c15)),
            ),
            stream,
            counter: 0,
            history,
            keys: DataKeys::new(seed),
            fill: fill_for_this_cpu(),
        }
    }

    /// The pattern this generator makes.
    pub fn pattern(&self) -> Pattern {
        self.pattern
    }

    /// Decides the content of the next write.
    pub fn next_content(&mut self) -> WriteContent {
        if let Pattern::Dedupe(percent) = self.pattern {
            if !self.history.is_empty() && (self.rng.next_u32() % 100) < u32::from(percent) {
                let pick = self.rng.next_u32() as usize % self.history.len();
                return WriteContent {
                    duplicate: true,
                    ..self.history[pick]
                };
            }
        }
        self.counter += 1;
        // Only the pool's patterns and `--refill` read the key and the pool offset; the default
        // data is made from the stamp alone, and two ChaCha draws per write were 3.5 % of the
        // `threads` engine's user CPU. Dedupe keeps drawing so that its picks stay the same.
        let (key, pool_offset) = if self.refill
            || matches!(self.pattern, Pattern::Compressible(_) | Pattern::Dedupe(_))
        {
            (
                self.rng.next_u64(),
                ((self.rng.next_u32() as usize % POOL_BYTES) & !7) as u32,
            )
        } else {
            (0, 0)
        };
        let content = WriteContent {
            stamp: (self.stream << 40) | self.counter,
            key,
            pool_offset,
            duplicate: false,
        };
        if matches!(self.pattern, Pattern::Dedupe(_)) {
            if self.history.len() < DEDUPE_HISTORY {
                self.history.push(content);
            } else {
                let slot = self.counter as usize % DEDUPE_HISTORY;
                self.history[slot] = content;
            }
        }
        content
    }

    /// Fraction of a write's bytes left after ideal compression (1.0 = incompressible).
    pub fn compressed_fraction(&self) -> f64 {
        match self.pattern {
            Pattern::Random | Pattern::Dedupe(_) => 1.0,
            Pattern::Repeat | Pattern::Zero => 0.0,
            Pattern::Compressible(n) => f64::from(100 - n) / 100.0,
        }
    }

    /// Writes the bytes of `content` into `buf`, whose length must be a multiple of 512 and at
    /// most the `max_block` the pool was made for.
    pub fn render(&self, content: &WriteContent, buf: &mut [u8]) {
        match self.pattern {
            Pattern::Zero => buf.fill(0),
            Pattern::Repeat => buf.fill(content.stamp as u8),
            Pattern::Random | Pattern::Dedupe(_) if self.refill => {
                ChaCha8Rng::seed_from_u64(content.key ^ content.stamp).fill_bytes(buf);
                stamp_sectors(buf, content.stamp, SECTOR);
            }
            Pattern::Random | Pattern::Dedupe(_) => (self.fill)(buf, &self.keys, content.stamp),
            Pattern::Compressible(percent) => {
                let random = (SECTOR * usize::from(100 - percent) / 100) & !7;
                let start = content.pool_offset as usize;
                for (i, sector) in buf.chunks_mut(SECTOR).enumerate() {
                    let from = start + i * SECTOR;
                    xor_copy(
                        &self.pool[from..from + random],
                        &mut sector[..random],
                        content.key,
                    );
                    sector[random..].fill(0);
                }
                if random >= 16 {
                    stamp_sectors(buf, content.stamp, SECTOR);
                }
            }
        }
    }
}

/// Bytes one AES counter makes.
const BLOCK: usize = 16;

/// The keys of a run's default write data: 16-byte block `j` of the write stamped `s` is two
/// AES rounds (round keys `rounds`) of the counter (`mix64(s) + base[0]`, `base[1] + j·step`),
/// low word first. `step` is odd and [`mix64`] a bijection, so no two (stamp, block) pairs of a
/// run share a counter, and two rounds under fixed keys are a bijection: no 16 bytes of a run's
/// data repeat. The stamp goes through [`mix64`] because consecutive stamps differ in one byte,
/// which two rounds do not spread far enough: xz shrank such data by 5 %.
#[derive(Clone, Copy)]
struct DataKeys {
    base: [u64; 2],
    step: u64,
    rounds: [[u8; BLOCK]; 2],
}

impl DataKeys {
    fn new(seed: u64) -> DataKeys {
        let word = |i: u64| mix64(seed ^ 0x6461_7461 ^ i.wrapping_mul(0x9e37_79b9_7f4a_7c15));
        let key = |i: u64| {
            let mut k = [0u8; BLOCK];
            k[..8].copy_from_slice(&word(i).to_le_bytes());
            k[8..].copy_from_slice(&word(i + 1).to_le_bytes());
            k
        };
        DataKeys {
            base: [word(1), word(2)],
            step: word(3) | 1,
            rounds: [key(4), key(6)],
        }
    }

    /// The counter of block `block` of the write stamped `stamp`: (low, high) word.
    #[inline(always)]
    fn counter(&self, stamp: u64, block: u64) -> (u64, u64) {
        (
            mix64(stamp).wrapping_add(self.base[0]),
            self.base[1].wrapping_add(block.wrapping_mul(self.step)),
        )
    }
}

/// A way of making the default pattern's bytes (see [`DataKeys`]).
type Fill = fn(&mut [u8], &DataKeys, u64);

/// The widest AES instructions this CPU has, else the portable rounds of [`fill_soft`].
fn fill_for_this_cpu() -> Fill {
    #[cfg(target_arch = "x86_64")]
    {
        if std::arch::is_x86_feature_detected!("avx512f")
            && std::arch::is_x86_feature_detected!("vaes")
        {
            // SAFETY: the CPU has the features the function is compiled for.
            return |buf, keys, stamp| unsafe { simd::fill_vaes512(buf, keys, stamp) };
        }
        if std::arch::is_x86_feature_detected!("avx2")
            && std::arch::is_x86_feature_detected!("vaes")
        {
            // SAFETY: as above.
            return |buf, keys, stamp| unsafe { simd::fill_vaes256(buf, keys, stamp) };
        }
        if std::arch::is_x86_feature_detected!("aes") && std::arch::is_x86_feature_detected!("avx")
        {
            // SAFETY: as above.
            return |buf, keys, stamp| unsafe { simd::fill_aesni(buf, keys, stamp) };
        }
    }
    fill_soft
}

/// The default pattern's bytes one 16-byte block at a time, with the `aes` crate's round
/// (the reference the instruction-level versions are tested against).
fn fill_soft(buf: &mut [u8], keys: &DataKeys, stamp: u64) {
    debug_assert_eq!(buf.len() % SECTOR, 0);
    let rounds = keys.rounds.map(aes::Block::from);
    for (j, out) in buf.chunks_exact_mut(BLOCK).enumerate() {
        let (lo, hi) = keys.counter(stamp, j as u64);
        let mut block = aes::Block::default();
        block[..8].copy_from_slice(&lo.to_le_bytes());
        block[8..].copy_from_slice(&hi.to_le_bytes());
        for key in &rounds {
            aes::hazmat::cipher_round(&mut block, key);
        }
        out.copy_from_slice(&block);
    }
}

/// The two stamp words of sector `i` of a write stamped `stamp` (see [`stamp_sectors`]).
#[inline(always)]
fn sector_stamp(stamp: u64, i: usize) -> (u64, u64) {
    let a = mix64(stamp.wrapping_mul(4096).wrapping_add(i as u64));
    (a, mix64(a ^ 0x5eed_5eed_5eed_5eed))
}

/// `dst = src XOR key`, eight bytes at a time (vectorised by the compiler).
fn xor_copy(src: &[u8], dst: &mut [u8], key: u64) {
    let key = key.to_ne_bytes();
    for (d, s) in dst.chunks_exact_mut(8).zip(src.chunks_exact(8)) {
        let v = u64::from_ne_bytes(s.try_into().unwrap()) ^ u64::from_ne_bytes(key);
        d.copy_from_slice(&v.to_ne_bytes());
    }
}

/// Puts a 16-byte value unique to (stamp, sector) at the start of every sector. The value goes
/// through a bijective mixer so stamps look random and do not compress.
fn stamp_sectors(buf: &mut [u8], stamp: u64, sector: usize) {
    for (i, s) in buf.chunks_mut(sector).enumerate() {
        let (a, b) = sector_stamp(stamp, i);
        s[..8].copy_from_slice(&a.to_le_bytes());
        s[8..16].copy_from_slice(&b.to_le_bytes());
    }
}

/// SplitMix64's finaliser: a bijection on u64 that scrambles every bit.
pub fn mix64(mut z: u64) -> u64 {
    z = (z ^ (z >> 30)).wrapping_mul(0xbf58_476d_1ce4_e5b9);
    z = (z ^ (z >> 27)).wrapping_mul(0x94d0_49bb_1331_11eb);
    z ^ (z >> 31)
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::collections::HashSet;

    fn sectors_of(pattern: Pattern, writes: usize, refill: bool) -> Vec<Vec<u8>> {
        let pool = make_pool(7, 16384).unwrap();
        let mut gens: Vec<_> = (0..2)
            .map(|s| PatternGen::new(pattern, refill, pool.clone(), 7, s))
            .collect();
        let mut out = Vec::new();
        let mut buf = vec![0u8; 16384];
        for w in 0..writes {
            let g = &mut gens[w % 2];
            let c = g.next_content();
            g.render(&c, &mut buf);
            out.extend(buf.chunks(SECTOR).map(|s| s.to_vec()));
        }
        out
    }

    #[test]
    fn random_pattern_never_repeats_a_sector() {
        for refill in [false, true] {
            let sectors = sectors_of(Pattern::Random, 400, refill);
            let unique: HashSet<_> = sectors.iter().collect();
            assert_eq!(unique.len(), sectors.len());
        }
    }

    #[test]
    fn every_way_of_writing_the_data_gives_the_same_bytes() {
        // The AES instructions (each width this CPU has, aligned or not) against the `aes`
        // crate's rounds.
        let mut ways: Vec<(&str, Fill)> = vec![("dispatch", fill_for_this_cpu())];
        #[cfg(target_arch = "x86_64")]
        {
            if std::arch::is_x86_feature_detected!("avx512f")
                && std::arch::is_x86_feature_detected!("vaes")
            {
                // SAFETY: the CPU has AVX-512F and VAES.
                ways.push(("vaes512", |b, k, s| unsafe { simd::fill_vaes512(b, k, s) }));
            }
            if std::arch::is_x86_feature_detected!("avx2")
                && std::arch::is_x86_feature_detected!("vaes")
            {
                // SAFETY: the CPU has AVX2 and VAES.
                ways.push(("vaes256", |b, k, s| unsafe { simd::fill_vaes256(b, k, s) }));
            }
            if std::arch::is_x86_feature_detected!("aes")
                && std::arch::is_x86_feature_detected!("avx")
            {
                // SAFETY: the CPU has AES-NI and AVX.
                ways.push(("aesni", |b, k, s| unsafe { simd::fill_aesni(b, k, s) }));
            }
        }
        let mut backing = vec![0u8; 16384 + 64];
        for (len, at) in [(512, 0), (4096, 0), (16384, 0), (4096, 8), (4096, 64)] {
            let keys = DataKeys::new(len as u64 + at as u64);
            let stamp = (3 << 40) | 77;
            let mut expected = vec![0u8; len];
            fill_soft(&mut expected, &keys, stamp);
            for (name, fill) in &ways {
                let buf = &mut backing[at..at + len];
                buf.fill(0);
                fill(buf, &keys, stamp);
                assert!(buf == expected.as_slice(), "{name}: {len} bytes at +{at}");
            }
        }
    }

    #[test]
    fn no_sixteen_bytes_of_the_data_repeat() {
        let data: Vec<u8> = sectors_of(Pattern::Random, 64, false).concat();
        let blocks: HashSet<_> = data.chunks(BLOCK).collect();
        assert_eq!(blocks.len(), data.len() / BLOCK);
    }

    #[test]
    fn random_pattern_does_not_compress() {
        let data: Vec<u8> = sectors_of(Pattern::Random, 256, false).concat();
        let mut gz = flate2::write::GzEncoder::new(Vec::new(), flate2::Compression::best());
        std::io::Write::write_all(&mut gz, &data).unwrap();
        let compressed = gz.finish().unwrap().len();
        assert!(
            compressed >= data.len(),
            "gzip made {} bytes of {}",
            compressed,
            data.len()
        );
    }

    #[test]
    fn a_duplicate_write_renders_the_bytes_of_its_original() {
        let pool = make_pool(5, 4096).unwrap();
        let mut g = PatternGen::new(Pattern::Dedupe(50), false, pool, 5, 0);
        let mut originals = std::collections::HashMap::new();
        let (mut a, mut b) = (vec![0u8; 4096], vec![0u8; 4096]);
        let mut checked = 0;
        for _ in 0..200 {
            let c = g.next_content();
            g.render(&c, &mut a);
            if c.duplicate {
                let original: &WriteContent = &originals[&c.stamp];
                g.render(original, &mut b);
                assert_eq!(a, b);
                checked += 1;
            } else {
                originals.insert(c.stamp, c);
            }
        }
        assert!(checked > 50, "{checked} duplicates");
    }

    #[test]
    fn dedupe_pattern_repeats_about_the_asked_share() {
        let pool = make_pool(1, 4096).unwrap();
        let mut g = PatternGen::new(Pattern::Dedupe(30), false, pool, 1, 0);
        let dups = (0..10_000).filter(|_| g.next_content().duplicate).count();
        assert!((2_700..3_300).contains(&dups), "{dups} duplicates of 10000");
    }

    #[test]
    fn compressible_pattern_zeroes_the_asked_share() {
        let sectors = sectors_of(Pattern::Compressible(50), 4, false);
        for s in sectors {
            assert!(s[256..].iter().all(|&b| b == 0));
            assert!(s[..256].iter().filter(|&&b| b == 0).count() < 16);
        }
    }

    #[test]
    fn patterns_parse_and_print_alike() {
        for text in ["random", "repeat", "zero", "compressible:40", "dedupe:25"] {
            assert_eq!(text.parse::<Pattern>().unwrap().to_string(), text);
        }
        assert!("compressible:140".parse::<Pattern>().is_err());
        assert!("noise".parse::<Pattern>().is_err());
    }
}
