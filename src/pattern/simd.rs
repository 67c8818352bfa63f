//! The default pattern's write data in explicit AES instructions: the bytes of
//! [`super::fill_soft`], two AES rounds of a counter per 16 bytes, four blocks at a time with
//! VAES on AVX-512, one at a time with AES-NI.

use std::arch::x86_64::*;

use super::{DataKeys, BLOCK};

/// VAES version of [`super::fill_random`]. Safety: the CPU must have AVX-512F and VAES.
#[target_feature(enable = "avx512f,vaes")]
pub unsafe fn fill_vaes512(buf: &mut [u8], keys: &DataKeys, stamp: u64) {
    let [r0, r1] = keys
        .rounds
        .map(|k| _mm512_broadcast_i32x4(_mm_loadu_si128(k.as_ptr().cast())));
    let (lo, hi) = keys.counter(stamp, 0);
    let step = keys.step as i64;
    let mut ctr = _mm512_set_epi64(
        hi.wrapping_add(keys.step.wrapping_mul(3)) as i64,
        lo as i64,
        hi.wrapping_add(keys.step.wrapping_mul(2)) as i64,
        lo as i64,
        hi.wrapping_add(keys.step) as i64,
        lo as i64,
        hi as i64,
        lo as i64,
    );
    let four = _mm512_set_epi64(step * 4, 0, step * 4, 0, step * 4, 0, step * 4, 0);
    let out = buf.as_mut_ptr().cast::<__m512i>();
    for v in 0..buf.len() / (4 * BLOCK) {
        let x = _mm512_aesenc_epi128(_mm512_aesenc_epi128(ctr, r0), r1);
        _mm512_storeu_si512(out.add(v), x);
        ctr = _mm512_add_epi64(ctr, four);
    }
}

/// AES-NI version of [`super::fill_random`]. Safety: the CPU must have AES-NI.
#[target_feature(enable = "aes,sse2")]
pub unsafe fn fill_aesni(buf: &mut [u8], keys: &DataKeys, stamp: u64) {
    let [r0, r1] = keys.rounds.map(|k| _mm_loadu_si128(k.as_ptr().cast()));
    let (lo, hi) = keys.counter(stamp, 0);
    let mut ctr = _mm_set_epi64x(hi as i64, lo as i64);
    let one = _mm_set_epi64x(keys.step as i64, 0);
    let out = buf.as_mut_ptr().cast::<__m128i>();
    for b in 0..buf.len() / BLOCK {
        let x = _mm_aesenc_si128(_mm_aesenc_si128(ctr, r0), r1);
        _mm_storeu_si128(out.add(b), x);
        ctr = _mm_add_epi64(ctr, one);
    }
}
