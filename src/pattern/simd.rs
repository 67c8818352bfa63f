//! The default pattern's write data in explicit AES instructions: the bytes of
//! [`super::fill_soft`], two AES rounds of a counter per 16 bytes, four blocks per instruction
//! with VAES on AVX-512, two with VAES on AVX2 (AMD Zen 3, Intel client cores without AVX-512),
//! one with AES-NI (and AVX). The narrower two make four blocks per loop turn, so the loop's own counting
//! and branching is paid once per 64 bytes on every CPU. Every version fills whole 64-byte
//! lines: the buffer's length is a multiple of 512 (a sector).

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

/// VAES-on-AVX2 version of [`super::fill_soft`]. Safety: the CPU must have AVX2 and VAES.
#[target_feature(enable = "avx2,vaes")]
pub unsafe fn fill_vaes256(buf: &mut [u8], keys: &DataKeys, stamp: u64) {
    let [r0, r1] = keys
        .rounds
        .map(|k| _mm256_broadcastsi128_si256(_mm_loadu_si128(k.as_ptr().cast())));
    let (lo, hi) = keys.counter(stamp, 0);
    let (two, four) = (
        keys.step.wrapping_mul(2) as i64,
        keys.step.wrapping_mul(4) as i64,
    );
    let mut a = _mm256_set_epi64x(
        hi.wrapping_add(keys.step) as i64,
        lo as i64,
        hi as i64,
        lo as i64,
    );
    let mut b = _mm256_add_epi64(a, _mm256_set_epi64x(two, 0, two, 0));
    let four = _mm256_set_epi64x(four, 0, four, 0);
    let out = buf.as_mut_ptr().cast::<__m256i>();
    for v in (0..buf.len() / (4 * BLOCK)).map(|i| i * 2) {
        let x = _mm256_aesenc_epi128(_mm256_aesenc_epi128(a, r0), r1);
        let y = _mm256_aesenc_epi128(_mm256_aesenc_epi128(b, r0), r1);
        _mm256_storeu_si256(out.add(v), x);
        _mm256_storeu_si256(out.add(v + 1), y);
        a = _mm256_add_epi64(a, four);
        b = _mm256_add_epi64(b, four);
    }
}

/// AES-NI version of [`super::fill_soft`], four blocks per turn, in AVX's three-operand
/// encoding (the two-operand one copies every counter before its rounds). Safety: the CPU must
/// have AES-NI and AVX.
#[target_feature(enable = "aes,avx")]
pub unsafe fn fill_aesni(buf: &mut [u8], keys: &DataKeys, stamp: u64) {
    let [r0, r1] = keys.rounds.map(|k| _mm_loadu_si128(k.as_ptr().cast()));
    let (lo, hi) = keys.counter(stamp, 0);
    let one = _mm_set_epi64x(keys.step as i64, 0);
    let four = _mm_set_epi64x(keys.step.wrapping_mul(4) as i64, 0);
    let mut c0 = _mm_set_epi64x(hi as i64, lo as i64);
    let mut c1 = _mm_add_epi64(c0, one);
    let mut c2 = _mm_add_epi64(c1, one);
    let mut c3 = _mm_add_epi64(c2, one);
    let out = buf.as_mut_ptr().cast::<__m128i>();
    for b in (0..buf.len() / (4 * BLOCK)).map(|i| i * 4) {
        _mm_storeu_si128(out.add(b), _mm_aesenc_si128(_mm_aesenc_si128(c0, r0), r1));
        _mm_storeu_si128(
            out.add(b + 1),
            _mm_aesenc_si128(_mm_aesenc_si128(c1, r0), r1),
        );
        _mm_storeu_si128(
            out.add(b + 2),
            _mm_aesenc_si128(_mm_aesenc_si128(c2, r0), r1),
        );
        _mm_storeu_si128(
            out.add(b + 3),
            _mm_aesenc_si128(_mm_aesenc_si128(c3, r0), r1),
        );
        c0 = _mm_add_epi64(c0, four);
        c1 = _mm_add_epi64(c1, four);
        c2 = _mm_add_epi64(c2, four);
        c3 = _mm_add_epi64(c3, four);
    }
}
