//! The default pattern's write data in explicit vector code (AVX-512 and AVX2): the bytes of
//! [`super::fill_lanes`] followed by [`super::stamp_sectors`], made in registers and stored
//! once.

use std::arch::x86_64::*;

use super::{lane_seeds, sector_stamp, LANES, SECTOR};

/// 256-byte blocks of lane output in one sector: the stamp replaces the first block's first
/// two words.
const BLOCKS_PER_SECTOR: usize = SECTOR / (LANES * 8);

/// One xorshift64 (13, 7, 17) step of every lane in `x`.
#[inline(always)]
unsafe fn step512(x: __m512i) -> __m512i {
    let x = _mm512_xor_si512(x, _mm512_slli_epi64::<13>(x));
    let x = _mm512_xor_si512(x, _mm512_srli_epi64::<7>(x));
    _mm512_xor_si512(x, _mm512_slli_epi64::<17>(x))
}

#[inline(always)]
unsafe fn step256(x: __m256i) -> __m256i {
    let x = _mm256_xor_si256(x, _mm256_slli_epi64::<13>(x));
    let x = _mm256_xor_si256(x, _mm256_srli_epi64::<7>(x));
    _mm256_xor_si256(x, _mm256_slli_epi64::<17>(x))
}

/// AVX-512 version of [`super::fill_stamped`]. Safety: the CPU must have AVX-512F.
#[target_feature(enable = "avx512f")]
pub unsafe fn fill_stamped_avx512(buf: &mut [u8], seed: u64, stamp: u64) {
    const V: usize = LANES / 8;
    let seeds = lane_seeds(seed);
    let mut lanes = [_mm512_setzero_si512(); V];
    for (k, v) in lanes.iter_mut().enumerate() {
        *v = _mm512_loadu_si512(seeds.as_ptr().add(8 * k).cast());
    }
    let blocks = buf.len() / (LANES * 8);
    let out = buf.as_mut_ptr().cast::<__m512i>();
    for b in 0..blocks {
        for (k, v) in lanes.iter_mut().enumerate() {
            *v = step512(*v);
            let mut word = *v;
            if k == 0 && b % BLOCKS_PER_SECTOR == 0 {
                let (sa, sb) = sector_stamp(stamp, b / BLOCKS_PER_SECTOR);
                let s = _mm512_set_epi64(0, 0, 0, 0, 0, 0, sb as i64, sa as i64);
                word = _mm512_mask_blend_epi64(0b11, word, s);
            }
            _mm512_storeu_si512(out.add(b * V + k), word);
        }
    }
}

/// AVX2 version of [`super::fill_stamped`]. Safety: the CPU must have AVX2.
#[target_feature(enable = "avx2")]
pub unsafe fn fill_stamped_avx2(buf: &mut [u8], seed: u64, stamp: u64) {
    const V: usize = LANES / 4;
    let seeds = lane_seeds(seed);
    let mut lanes = [_mm256_setzero_si256(); V];
    for (k, v) in lanes.iter_mut().enumerate() {
        *v = _mm256_loadu_si256(seeds.as_ptr().add(4 * k).cast());
    }
    let blocks = buf.len() / (LANES * 8);
    let out = buf.as_mut_ptr().cast::<__m256i>();
    for b in 0..blocks {
        for (k, v) in lanes.iter_mut().enumerate() {
            *v = step256(*v);
            let mut word = *v;
            if k == 0 && b % BLOCKS_PER_SECTOR == 0 {
                let (sa, sb) = sector_stamp(stamp, b / BLOCKS_PER_SECTOR);
                let s = _mm256_set_epi64x(0, 0, sb as i64, sa as i64);
                word = _mm256_blend_epi32::<0b1111>(word, s);
            }
            _mm256_storeu_si256(out.add(b * V + k), word);
        }
    }
}
