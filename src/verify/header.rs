//! The header `--verify` puts in every block it writes: the block's offset, its write
//! generation, the run's tag and a checksum of the whole block.
//!
//! It takes bytes 16..36 of the block; its first 16 bytes stay (unique in the run, see
//! [`crate::pattern`]), so every sector is still unique. The fields are XORed with keys drawn
//! from the first eight bytes, so the header looks as random as the rest and the block stays
//! incompressible; the checksum covers those bytes, so damaged ones show as a bad checksum.
//!
//! The checksum is a keyed NH hash (UMAC's: the sum of the products of the block's 32-bit word
//! pairs, each word plus a key of its place) folded through [`mix64`]: one vector multiply per
//! 32 bytes, where the CRC-32 it replaces cost 454 ns per 4 KiB block on the machine of
//! docs/performance-cpu.md. Any change of a word changes the sum unless its partner plus key
//! is 0 (a chance of 2^-32), and the keys of places differ, so moved words change it too.
//! Blocks written before (format 1, CRC-32) still read: a sum that does not match is checked
//! as a CRC before the block counts as corrupt.

use crate::pattern::mix64;

/// Where the header starts and ends in the block.
const START: usize = 16;
const CRC_AT: usize = 32;
pub const END: usize = 36;

/// What a block's header says.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Header {
    pub offset: u64,
    pub generation: u32,
    pub tag: u32,
}

/// The keys of a block, from its first eight bytes: of the offset, of the generation and tag,
/// of the checksum field, and of the checksum.
fn keys(block: &[u8]) -> (u64, u64, u32, u64) {
    let a = mix64(u64::from_le_bytes(block[..8].try_into().expect("8 bytes")));
    let b = mix64(a ^ 0x6865_6164_6572);
    let c = mix64(b);
    (a, b, c as u32, mix64(c))
}

/// The checksum of format 1 (runs written before the NH checksum): a CRC-32 of the block
/// without the checksum field.
fn crc(block: &[u8]) -> u32 {
    let mut h = crc32fast::Hasher::new();
    h.update(&block[..CRC_AT]);
    h.update(&block[END..]);
    h.finalize()
}

/// The keyed NH sum of `block` (a multiple of 8 bytes): word pair `i` (`a`, `b`) adds
/// `(a + k) · (b + k + step)` with `k = key + 2i·step`, all words little-endian, sums mod 2^64.
#[inline(always)]
fn nh_sum(block: &[u8], key: u32, step: u32) -> u64 {
    let mut sum = 0u64;
    let mut k = key;
    for pair in block.chunks_exact(8) {
        let a = u32::from_le_bytes(pair[..4].try_into().expect("4 bytes"));
        let b = u32::from_le_bytes(pair[4..].try_into().expect("4 bytes"));
        let product =
            u64::from(a.wrapping_add(k)) * u64::from(b.wrapping_add(k.wrapping_add(step)));
        sum = sum.wrapping_add(product);
        k = k.wrapping_add(step.wrapping_mul(2));
    }
    sum
}

#[cfg(target_arch = "x86_64")]
#[target_feature(enable = "avx2")]
unsafe fn nh_sum_avx2(block: &[u8], key: u32, step: u32) -> u64 {
    nh_sum(block, key, step)
}

/// The checksum of `block`: its [`nh_sum`] with the checksum field read as zeros, folded to 32
/// bits. `key` comes from the block's first bytes (see [`keys`]).
fn checksum(block: &[u8], key: u64) -> u32 {
    let (k, step) = (key as u32, (key >> 32) as u32 | 1);
    #[cfg(target_arch = "x86_64")]
    let sum = if std::arch::is_x86_feature_detected!("avx2") {
        // SAFETY: the CPU has AVX2.
        unsafe { nh_sum_avx2(block, k, step) }
    } else {
        nh_sum(block, k, step)
    };
    #[cfg(not(target_arch = "x86_64"))]
    let sum = nh_sum(block, k, step);
    // The field is the first word of pair CRC_AT / 8: take its term out and put it back with
    // the field as zero.
    let pair = CRC_AT / 8;
    let ka = k.wrapping_add(step.wrapping_mul(2 * pair as u32));
    let word = |at: usize| u32::from_le_bytes(block[at..at + 4].try_into().expect("4 bytes"));
    let b = u64::from(word(CRC_AT + 4).wrapping_add(ka.wrapping_add(step)));
    let sum = sum
        .wrapping_sub(u64::from(word(CRC_AT).wrapping_add(ka)) * b)
        .wrapping_add(u64::from(ka) * b);
    mix64(sum) as u32
}

/// Writes `header` into `block` (rendered write data of at least 512 bytes) and seals it.
pub fn stamp(block: &mut [u8], header: Header) {
    let (k1, k2, k3, k4) = keys(block);
    let gen_tag = u64::from(header.generation) | u64::from(header.tag) << 32;
    block[START..START + 8].copy_from_slice(&(header.offset ^ k1).to_le_bytes());
    block[START + 8..CRC_AT].copy_from_slice(&(gen_tag ^ k2).to_le_bytes());
    let sum = checksum(block, k4) ^ k3;
    block[CRC_AT..END].copy_from_slice(&sum.to_le_bytes());
}

/// The header of `block`, or `None` when its checksum does not match its bytes (in this
/// format or format 1).
pub fn read(block: &[u8]) -> Option<Header> {
    let (k1, k2, k3, k4) = keys(block);
    let field = |at: usize| u64::from_le_bytes(block[at..at + 8].try_into().expect("8 bytes"));
    let sum = u32::from_le_bytes(block[CRC_AT..END].try_into().expect("4 bytes")) ^ k3;
    if sum != checksum(block, k4) && sum != crc(block) {
        return None;
    }
    let gen_tag = field(START + 8) ^ k2;
    Some(Header {
        offset: field(START) ^ k1,
        generation: gen_tag as u32,
        tag: (gen_tag >> 32) as u32,
    })
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::pattern::{make_pool, Pattern, PatternGen};

    fn block() -> Vec<u8> {
        let pool = make_pool(3, 4096).unwrap();
        let mut g = PatternGen::new(Pattern::Random, false, pool, 3, 0);
        let mut buf = vec![0u8; 4096];
        let c = g.next_content();
        g.render(&c, &mut buf);
        buf
    }

    #[test]
    fn a_stamped_block_reads_back_and_any_flipped_byte_is_caught() {
        let mut b = block();
        let h = Header {
            offset: 1 << 33,
            generation: 7,
            tag: 0xabcd,
        };
        stamp(&mut b, h);
        assert_eq!(read(&b), Some(h));
        for at in 0..b.len() {
            let mut bad = b.clone();
            bad[at] ^= 1 << (at % 8);
            assert_eq!(read(&bad), None, "byte {at} flipped");
        }
    }

    #[test]
    fn a_block_sealed_with_the_crc_of_format_1_still_reads() {
        let mut b = block();
        let h = Header {
            offset: 4096 * 9,
            generation: 3,
            tag: 0x1234,
        };
        stamp(&mut b, h);
        let (_, _, k3, _) = keys(&b);
        let sum = crc(&b) ^ k3;
        b[CRC_AT..END].copy_from_slice(&sum.to_le_bytes());
        assert_eq!(read(&b), Some(h));
        b[100] ^= 1;
        assert_eq!(read(&b), None);
    }

    #[test]
    fn the_checksum_is_the_same_with_and_without_vector_code() {
        let b = block();
        let (k, step) = (0x8765_4321, 0x1357_9bdf);
        #[cfg(target_arch = "x86_64")]
        if std::arch::is_x86_feature_detected!("avx2") {
            // SAFETY: the CPU has AVX2.
            assert_eq!(unsafe { nh_sum_avx2(&b, k, step) }, nh_sum(&b, k, step));
        }
        // Words moved to another place change the sum.
        let mut moved = b.clone();
        moved.copy_within(512..1024, 1024);
        moved[512..1024].copy_from_slice(&b[1024..1536]);
        assert_ne!(nh_sum(&moved, k, step), nh_sum(&b, k, step));
    }

    #[test]
    fn the_header_keeps_the_stamp_and_looks_random() {
        let plain = block();
        let mut b = plain.clone();
        stamp(
            &mut b,
            Header {
                offset: 0,
                generation: 1,
                tag: 1,
            },
        );
        assert_eq!(b[..START], plain[..START]);
        // Small numbers are hidden by the keys: no run of zero bytes in the header.
        assert!(b[START..END].windows(3).all(|w| w != [0, 0, 0]));
    }
}
