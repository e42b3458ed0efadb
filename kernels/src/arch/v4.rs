//! x86-64-v4: 64-byte AVX-512 registers, entered through pulp's `V4` dispatch.

use core::arch::x86_64::*;

use pulp::NullaryFnOnce;

use super::x86::{lane_reverse_mask, ramp16};
use super::{Arch, Isa};

/// Proof that the CPU runs x86-64-v4 (pulp's `V4`: AVX-512 F/BW/CD/DQ/VL on top of x86-64-v3).
#[derive(Clone, Copy, Debug)]
pub(crate) struct V4(pub(super) pulp::x86::V4);

impl V4 {
    /// The token, if this CPU has the level.
    pub(crate) fn try_new() -> Option<V4> {
        pulp::x86::V4::try_new().map(V4)
    }
}

// SAFETY: a `V4` exists only when pulp detected its features (or the caller of `assume` guarantees them); the
// methods use AVX-512 F/BW/DQ/VL and AVX2 only.
unsafe impl Arch for V4 {
    const ISA: Isa = Isa::V4;
    const BYTES: usize = 64;
    type Reg = __m512i;

    #[inline(always)]
    unsafe fn assume() -> Self {
        // SAFETY: the caller guarantees the level.
        V4(unsafe { pulp::x86::V4::new_unchecked() })
    }

    #[inline(always)]
    fn vectorize<F: NullaryFnOnce>(self, f: F) -> F::Output {
        self.0.vectorize(f)
    }

    #[inline(always)]
    unsafe fn load(self, p: *const u8) -> __m512i {
        // SAFETY: 64 readable bytes (contract); AVX-512F via the token.
        unsafe { _mm512_loadu_si512(p.cast()) }
    }

    #[inline(always)]
    unsafe fn store(self, p: *mut u8, v: __m512i) {
        // SAFETY: 64 writable bytes (contract).
        unsafe { _mm512_storeu_si512(p.cast(), v) }
    }

    #[inline(always)]
    unsafe fn stream(self, p: *mut u8, v: __m512i) {
        // SAFETY: 64 writable bytes, 64-byte aligned (contract).
        unsafe { _mm512_stream_si512(p.cast(), v) }
    }

    #[inline(always)]
    fn reverses(n: usize) -> bool {
        matches!(n, 1 | 2 | 4 | 8 | 16)
    }

    #[inline(always)]
    fn reverse<const N: usize>(self, v: __m512i) -> __m512i {
        // SAFETY: register operations of AVX-512 F/BW (token); index vectors are plain loads of constants.
        unsafe {
            match N {
                2 => _mm512_permutexvar_epi16(_mm512_loadu_si512(ramp16(31, -1).as_ptr().cast()), v),
                4 => {
                    _mm512_permutexvar_epi32(_mm512_setr_epi32(15, 14, 13, 12, 11, 10, 9, 8, 7, 6, 5, 4, 3, 2, 1, 0), v)
                }
                8 => _mm512_permutexvar_epi64(_mm512_setr_epi64(7, 6, 5, 4, 3, 2, 1, 0), v),
                16 => _mm512_shuffle_i64x2::<0x1B>(v, v),
                _ => {
                    let m = _mm512_broadcast_i32x4(_mm_loadu_si128(lane_reverse_mask::<1>().as_ptr().cast()));
                    let v = _mm512_shuffle_epi8(v, m);
                    _mm512_shuffle_i64x2::<0x1B>(v, v)
                }
            }
        }
    }

    #[inline(always)]
    fn picks(n: usize) -> bool {
        matches!(n, 1 | 2 | 4 | 8)
    }

    #[inline(always)]
    fn pick2<const N: usize, const NEG: bool>(self, a: __m512i, b: __m512i) -> __m512i {
        let per = 64 / N;
        // positive: even elements in order; negative: odd elements, last first
        let (first, step) = if NEG { (2 * per as i32 - 1, -2) } else { (0, 2) };
        // SAFETY: register operations of AVX-512 F/BW (token); index vectors are plain loads of locals.
        unsafe {
            match N {
                1 => {
                    // vpmovwb keeps the low byte of each u16: the even bytes (shift first for the odd ones)
                    let (a, b) = if NEG { (_mm512_srli_epi16::<8>(a), _mm512_srli_epi16::<8>(b)) } else { (a, b) };
                    let r = _mm512_inserti64x4::<1>(
                        _mm512_castsi256_si512(_mm512_cvtepi16_epi8(a)),
                        _mm512_cvtepi16_epi8(b),
                    );
                    if NEG { self.reverse::<1>(r) } else { r }
                }
                2 => _mm512_permutex2var_epi16(a, _mm512_loadu_si512(ramp16(first, step).as_ptr().cast()), b),
                4 => {
                    let idx: [i32; 16] = core::array::from_fn(|t| first + step * t as i32);
                    _mm512_permutex2var_epi32(a, _mm512_loadu_si512(idx.as_ptr().cast()), b)
                }
                _ => {
                    let idx: [i64; 8] = core::array::from_fn(|t| i64::from(first + step * t as i32));
                    _mm512_permutex2var_epi64(a, _mm512_loadu_si512(idx.as_ptr().cast()), b)
                }
            }
        }
    }

    super::x86::common_methods!();

    #[inline(always)]
    unsafe fn f16_to_f32(self, src: *const u8, dst: *mut u8, n: usize) -> usize {
        // PERF: four registers per step; one per step ran 25% slower on L3-resident data.
        let cvt = |i: usize| {
            // SAFETY: elements i..i+16 of both ranges (the callers' bounds below); AVX-512F via the token.
            unsafe {
                _mm512_storeu_ps(dst.add(4 * i).cast(), _mm512_cvtph_ps(_mm256_loadu_si256(src.add(2 * i).cast())))
            }
        };
        let mut i = 0;
        while i + 64 <= n {
            cvt(i);
            cvt(i + 16);
            cvt(i + 32);
            cvt(i + 48);
            i += 64;
        }
        while i + 16 <= n {
            cvt(i);
            i += 16;
        }
        i
    }

    #[inline(always)]
    unsafe fn f32_to_f16(self, src: *const u8, dst: *mut u8, n: usize) -> usize {
        // PERF: four registers per step, as above. Rounding to nearest even from the immediate, whatever MXCSR says.
        let cvt = |i: usize| {
            // SAFETY: elements i..i+16 of both ranges (the callers' bounds below); AVX-512F via the token.
            unsafe {
                let v = _mm512_loadu_ps(src.add(4 * i).cast());
                let h = _mm512_cvtps_ph::<{ _MM_FROUND_TO_NEAREST_INT | _MM_FROUND_NO_EXC }>(v);
                _mm256_storeu_si256(dst.add(2 * i).cast(), h);
            }
        };
        let mut i = 0;
        while i + 64 <= n {
            cvt(i);
            cvt(i + 16);
            cvt(i + 32);
            cvt(i + 48);
            i += 64;
        }
        while i + 16 <= n {
            cvt(i);
            i += 16;
        }
        i
    }

    #[inline(always)]
    unsafe fn affine_f16(self, src: *const u8, dst: *mut u8, n: usize, scale: f32, bias: f32) -> usize {
        // SAFETY: register broadcasts of AVX-512F (token).
        let (s, b) = unsafe { (_mm512_set1_ps(scale), _mm512_set1_ps(bias)) };
        let step = |i: usize| {
            // SAFETY: elements i..i+16 of both ranges, read before written (they may be the same); AVX-512F.
            unsafe {
                let x = _mm512_cvtph_ps(_mm256_loadu_si256(src.add(2 * i).cast()));
                let y = _mm512_add_ps(_mm512_mul_ps(x, s), b);
                let h = _mm512_cvtps_ph::<{ _MM_FROUND_TO_NEAREST_INT | _MM_FROUND_NO_EXC }>(y);
                _mm256_storeu_si256(dst.add(2 * i).cast(), h);
            }
        };
        let mut i = 0;
        while i + 32 <= n {
            step(i);
            step(i + 16);
            i += 32;
        }
        while i + 16 <= n {
            step(i);
            i += 16;
        }
        i
    }

    #[inline(always)]
    unsafe fn f64_to_f32_odd(self, src: *const u8, dst: *mut u8, n: usize) -> usize {
        let mut i = 0;
        while i + 8 <= n {
            // SAFETY: elements i..i+8 of both ranges; AVX-512 F/VL via the token.
            unsafe {
                let x = _mm512_loadu_pd(src.add(8 * i).cast());
                let y = _mm512_cvtpd_ps(x);
                let back = _mm512_cvtps_pd(y);
                // Ordered comparisons: false for NaN, which keeps its `as` conversion.
                let inexact = _mm512_cmp_pd_mask::<_CMP_NEQ_OQ>(back, x);
                let away = _mm512_cmp_pd_mask::<_CMP_GT_OQ>(_mm512_abs_pd(back), _mm512_abs_pd(x));
                let one = _mm256_set1_epi32(1);
                let bits = _mm256_mask_sub_epi32(_mm256_castps_si256(y), away, _mm256_castps_si256(y), one);
                let bits = _mm256_mask_or_epi32(bits, inexact, bits, one);
                _mm256_storeu_si256(dst.add(4 * i).cast(), bits);
            }
            i += 8;
        }
        i
    }
}
