//! x86-64-v3: 32-byte AVX2 registers, entered through pulp's `V3` dispatch; F16C for the f16 conversions.

use core::arch::x86_64::*;

use pulp::NullaryFnOnce;

use super::x86::lane_reverse_mask;
use super::{Arch, Isa, Norm, RowRun};
use crate::tables::Planar;

/// Proof that the CPU runs x86-64-v3 including F16C (pulp's `V3` token does not check F16C).
#[derive(Clone, Copy, Debug)]
pub(crate) struct V3(pulp::x86::V3);

impl V3 {
    /// The token, if this CPU has the level.
    pub(crate) fn try_new() -> Option<V3> {
        let v3 = pulp::x86::V3::try_new()?;
        std::arch::is_x86_feature_detected!("f16c").then_some(V3(v3))
    }
}

// SAFETY: a `V3` exists only when pulp's V3 features and F16C were detected (or are assumed by the caller of
// `assume`); the methods use no other instruction.
unsafe impl Arch for V3 {
    const ISA: Isa = Isa::V3;
    const BYTES: usize = 32;
    type Reg = __m256i;
    type Base = Self;

    #[inline(always)]
    fn base(self) -> Self {
        self
    }

    #[inline(always)]
    unsafe fn assume() -> Self {
        // SAFETY: the caller guarantees the level.
        V3(unsafe { pulp::x86::V3::new_unchecked() })
    }

    #[inline(always)]
    fn vectorize<F: NullaryFnOnce>(self, f: F) -> F::Output {
        self.0.vectorize(f)
    }

    #[inline(always)]
    unsafe fn load(self, p: *const u8) -> __m256i {
        // SAFETY: 32 readable bytes (contract); AVX via the token.
        unsafe { _mm256_loadu_si256(p.cast()) }
    }

    #[inline(always)]
    unsafe fn store(self, p: *mut u8, v: __m256i) {
        // SAFETY: 32 writable bytes (contract).
        unsafe { _mm256_storeu_si256(p.cast(), v) }
    }

    #[inline(always)]
    unsafe fn stream(self, p: *mut u8, v: __m256i) {
        // SAFETY: 32 writable bytes, 32-byte aligned (contract).
        unsafe { _mm256_stream_si256(p.cast(), v) }
    }

    /// Without a byte-masked load, from two 16-byte loads that stay inside `lo..hi`: the whole register, all but
    /// its last `k` bytes, or all but its first `k` bytes, for `k` of 1, 2, 4 or 8 — the last register of a row of
    /// 1- to 8-byte elements read with stride ±2 ([`gather2`](super::gather2)), which a register pair would read
    /// one element past; `None` for other parts.
    ///
    /// PERF: those registers went to the shuffle lanes, whose setup costs about as much as a short row. One
    /// thread, Zen 4, `--isa v3`, in L2, stride ±2 on both axes, three alternations: u8 512² (rows of 256, stride −2)
    /// 4.77–4.81 → 3.05–3.13 µs, f16 512² 6.4–6.8 → 5.75–5.87 µs, f32 256² (rows of 128) 3.04–3.16 → 2.72–2.74 µs.
    #[inline(always)]
    unsafe fn load_part(self, p: *const u8, lo: usize, hi: usize) -> Option<__m256i> {
        // SAFETY: each 16-byte load lies inside p + lo..p + hi (the arms' bounds), readable by the contract;
        // register operations of AVX2 (token).
        unsafe {
            let half = |q: *const u8| _mm_loadu_si128(q.cast());
            match (lo, hi) {
                (0, 32) => Some(_mm256_loadu_si256(p.cast())),
                (0, h) if h >= 16 => {
                    // Bytes h − 16..h, moved down to 16..h (the top k bytes zero).
                    let top = half(p.add(h - 16));
                    let top = match 32 - h {
                        1 => _mm_bsrli_si128::<1>(top),
                        2 => _mm_bsrli_si128::<2>(top),
                        4 => _mm_bsrli_si128::<4>(top),
                        8 => _mm_bsrli_si128::<8>(top),
                        _ => return None,
                    };
                    Some(_mm256_set_m128i(top, half(p)))
                }
                (l, 32) if l <= 16 => {
                    // Bytes l..l + 16, moved up to l..16 (the bottom k bytes zero).
                    let low = half(p.add(l));
                    let low = match l {
                        1 => _mm_bslli_si128::<1>(low),
                        2 => _mm_bslli_si128::<2>(low),
                        4 => _mm_bslli_si128::<4>(low),
                        8 => _mm_bslli_si128::<8>(low),
                        _ => return None,
                    };
                    Some(_mm256_set_m128i(half(p.add(16)), low))
                }
                _ => None,
            }
        }
    }

    /// Whole registers only (no byte-masked store: `vpmaskmovd` is microcoded on AMD).
    #[inline(always)]
    unsafe fn store_part(self, p: *mut u8, v: __m256i, n: usize) -> bool {
        if n != 32 {
            return false;
        }
        // SAFETY: the 32 bytes at p are writable (contract, n = 32).
        unsafe { _mm256_storeu_si256(p.cast(), v) };
        true
    }

    #[inline(always)]
    fn reverses(n: usize) -> bool {
        matches!(n, 1 | 2 | 4 | 8 | 16)
    }

    #[inline(always)]
    fn reverse<const N: usize>(self, v: __m256i) -> __m256i {
        // SAFETY: register operations of AVX2 (token); the mask is a plain 16-byte load of a constant.
        unsafe {
            match N {
                1 | 2 => {
                    let m = if N == 1 { lane_reverse_mask::<1>() } else { lane_reverse_mask::<2>() };
                    let m = _mm_loadu_si128(m.as_ptr().cast());
                    _mm256_permute4x64_epi64::<0x4E>(_mm256_shuffle_epi8(v, _mm256_set_m128i(m, m)))
                }
                4 => _mm256_permutevar8x32_epi32(v, _mm256_setr_epi32(7, 6, 5, 4, 3, 2, 1, 0)),
                8 => _mm256_permute4x64_epi64::<0x1B>(v),
                _ => _mm256_permute2x128_si256::<0x01>(v, v),
            }
        }
    }

    #[inline(always)]
    fn picks(n: usize) -> bool {
        matches!(n, 1 | 2 | 4 | 8)
    }

    #[inline(always)]
    fn pick2<const N: usize, const NEG: bool>(self, a: __m256i, b: __m256i) -> __m256i {
        // SAFETY: register operations of AVX2 (token).
        unsafe {
            if N <= 2 {
                // Each 16-byte half's picked elements into its low 8 bytes (`vpshufb`), the four 8-byte groups
                // joined (`vpunpcklqdq`) and put in order (`vpermq`): positive, [a lo, a hi, b lo, b hi]; negative
                // (odd elements, last first within each group), [b hi, b lo, a hi, a lo]. PERF: the shuffle
                // lanes did these before, 16 bytes a step; one thread, Zen 4, `--isa v3`, 512² with stride ±2 on
                // both axes (in L2): f16 8.0–11 → 6.4 µs, u8 5.0–5.2 → 4.8–4.9 µs.
                let m = _mm_loadu_si128(super::x86::lane_pick_mask::<N, NEG>().as_ptr().cast());
                let m = _mm256_set_m128i(m, m);
                let e = _mm256_unpacklo_epi64(_mm256_shuffle_epi8(a, m), _mm256_shuffle_epi8(b, m));
                if NEG { _mm256_permute4x64_epi64::<0x27>(e) } else { _mm256_permute4x64_epi64::<0xD8>(e) }
            } else if N == 4 {
                let (a, b) = (_mm256_castsi256_ps(a), _mm256_castsi256_ps(b));
                let e = if NEG { _mm256_shuffle_ps::<0xDD>(a, b) } else { _mm256_shuffle_ps::<0x88>(a, b) };
                let e = _mm256_permute4x64_epi64::<0xD8>(_mm256_castps_si256(e));
                if NEG { _mm256_permutevar8x32_epi32(e, _mm256_setr_epi32(7, 6, 5, 4, 3, 2, 1, 0)) } else { e }
            } else {
                let e = if NEG { _mm256_unpackhi_epi64(a, b) } else { _mm256_unpacklo_epi64(a, b) };
                let e = _mm256_permute4x64_epi64::<0xD8>(e);
                if NEG { _mm256_permute4x64_epi64::<0x1B>(e) } else { e }
            }
        }
    }

    super::x86::common_methods!();

    #[inline(always)]
    unsafe fn taps_pairs<const G: usize>(self, src: *const i16, step: usize, pairs: &[i32], out: &mut [[i32; 16]; G]) {
        // SAFETY: forwarded contract; AVX2 via the token.
        unsafe { super::wide::taps_pairs::<super::x86::Avx2, G>(src, step, pairs, out) }
    }

    #[inline(always)]
    unsafe fn rows_u8_q7(self, src: *const u8, step: isize, w: super::RowWeights<'_>, n: usize, out: *mut i16) {
        // SAFETY: forwarded contract; AVX2 via the token.
        unsafe { super::x86::avx2_rows_u8_q7(src, step, w, n, out) }
    }

    #[inline(always)]
    fn tile_shape<const N: usize>() -> (usize, usize) {
        if N == 4 { (16, 16) } else { (8, 8) }
    }

    #[inline(always)]
    fn cast_tiles() -> bool {
        true
    }

    #[inline(always)]
    unsafe fn tile<const N: usize, M: super::TileMap>(
        self,
        src: *const u8,
        ss: isize,
        dst: *mut u8,
        ds: isize,
        stream: bool,
        m: M,
    ) {
        // SAFETY: forwarded contract, for the shape `tile_shape::<N>()` reports (destination rows on lines with
        // `stream`); AVX2 (and F16C) via the token.
        unsafe {
            if N == 4 {
                super::x86::avx2_tiles16_4::<M>(super::TileRun::one(src, ss, dst, ds), stream, m)
            } else {
                super::x86::avx2_tile8::<N, M>(src, ss, dst, ds, m)
            }
        }
    }

    #[inline(always)]
    unsafe fn tile_run<const N: usize, M: super::TileMap>(self, run: super::TileRun, stream: bool, m: M) {
        // SAFETY: forwarded contract, for the shape `tile_shape::<N>()` reports; AVX2 (and F16C) via the token.
        unsafe {
            if N == 4 {
                super::x86::avx2_tiles16_4::<M>(run, stream, m)
            } else {
                super::tile_run_by_one::<Self, N, M>(self, run, stream, m)
            }
        }
    }

    /// Strips of 32 input rows across all their columns, through the 32×16 tiles converting as they load
    /// ([`avx2_cast_tiles32x16`](super::x86::avx2_cast_tiles32x16), as AVX-512's); packed rows of one tile (16
    /// channels: the strips follow each other in memory) as one run down the block.
    ///
    /// PERF: those strips ran one call each, a run of one tile that derived its 32 row addresses again (~90 of its
    /// 580 instructions) and prefetched inside its own strip. As one run, the rows one stream left to the hardware:
    /// 8 % fewer instructions (callgrind), and one thread, Zen 4, `--isa v3`, f32 NHWC → f16 NCHW 16 × 16 × 128²
    /// streamed, three A/B runs: 0.82, 1.00 (tight loops) and 0.97 of the time, two threads 0.84, 0.93 and 0.91.
    /// (Measured with the frames aligned, see `aligned_frame`: before that the spills' alignment moved the times
    /// more than this.)
    #[inline(always)]
    unsafe fn tiles_f32_to_f16(
        self,
        src: *const u8,
        si: isize,
        dst: *mut u8,
        dj: isize,
        ni: usize,
        nj: usize,
        stream: bool,
    ) {
        if nj == 16 && si == 64 {
            // SAFETY: forwarded contract: the ni / 32 tiles of the block, 32 input rows and 32 output elements
            // apart; AVX2 and F16C via the token.
            unsafe { super::x86::avx2_cast_tiles32x16(src, si, dst, dj, ni / 32, (32 * si, 64), stream) };
            return;
        }
        for i in (0..ni).step_by(32) {
            let (s, d) = (src.wrapping_offset(i as isize * si), dst.wrapping_add(2 * i));
            // SAFETY: forwarded contract: rows i..i + 32 ≤ ni, columns 0..nj (a multiple of 16) as a run of tiles
            // across the strip, 64 input bytes and 16 output rows apart; AVX2 and F16C via the token.
            unsafe { super::x86::avx2_cast_tiles32x16(s, si, d, dj, nj / 16, (64, 16 * dj), stream) };
        }
    }

    #[inline(always)]
    fn stack_tiles<const N: usize>() -> bool {
        N == 4 || N == 2
    }

    #[inline(always)]
    unsafe fn tile_stack<const N: usize, M: super::TileMap>(
        self,
        src: *const u8,
        ss: isize,
        dst: *mut u8,
        ds: isize,
        stream: bool,
        m: M,
    ) {
        // SAFETY: forwarded contract; AVX2 (and F16C) via the token.
        unsafe {
            if Self::stack_tiles::<N>() {
                super::x86::avx2_tile_stack::<N, M>(src, ss, dst, ds, stream, m)
            } else {
                super::tile_stack_by_8::<Self, N, M>(self, src, ss, dst, ds, m)
            }
        }
    }

    #[inline(always)]
    unsafe fn interleave<const N: usize>(
        self,
        t: &crate::tables::Planar,
        src: *const u8,
        plane_stride: isize,
        dst: *mut u8,
        n: usize,
    ) -> usize {
        // SAFETY: forwarded contract; the token proves AVX2.
        unsafe { super::x86::interleave::<N>(t, src, plane_stride, dst, n) }
    }

    #[inline(always)]
    unsafe fn deinterleave<const N: usize>(
        self,
        t: &crate::tables::Planar,
        src: *const u8,
        dst: *mut u8,
        plane_stride: isize,
        n: usize,
    ) -> usize {
        // SAFETY: forwarded contract; the token proves AVX2.
        unsafe { super::x86::deinterleave::<N>(t, src, dst, plane_stride, n) }
    }

    #[inline(always)]
    unsafe fn f16_to_f32(self, src: *const u8, dst: *mut u8, n: usize) -> usize {
        // SAFETY: forwarded contract; the token proves F16C.
        unsafe { super::x86::f16c_to_f32(src, dst, n) }
    }

    #[inline(always)]
    unsafe fn f32_to_f16(self, src: *const u8, dst: *mut u8, n: usize) -> usize {
        // SAFETY: forwarded contract; the token proves F16C.
        unsafe { super::x86::f16c_from_f32(src, dst, n) }
    }

    #[inline(always)]
    unsafe fn affine_f16(self, src: *const u8, dst: *mut u8, n: usize, scale: f32, bias: f32) -> usize {
        // SAFETY: forwarded contract; the token proves F16C.
        unsafe { super::x86::f16c_affine(src, dst, n, scale, bias) }
    }

    #[inline(always)]
    unsafe fn f32_to_u8_half_up(self, src: *const u8, dst: *mut u8, n: usize) -> usize {
        // SAFETY: forwarded contract; AVX2 via the token.
        unsafe { super::lanes::u8_half_up::<super::x86::Avx2>(src, dst, n) }
    }

    #[inline(always)]
    unsafe fn f64_to_f32_odd(self, src: *const u8, dst: *mut u8, n: usize) -> usize {
        // SAFETY: forwarded contract; AVX2 via the token.
        unsafe { super::x86::avx2_f64_to_f32_odd(src, dst, n) }
    }

    #[inline(always)]
    unsafe fn normalize_run(self, k: Norm, s: super::Span, scale: f32, bias: f32) -> usize {
        // SAFETY: forwarded contract; the token proves AVX2 and F16C.
        unsafe { super::x86::f16c_normalize_run(k, s.src, s.dst, s.n, scale, bias, s.stream) }
    }

    #[inline(always)]
    unsafe fn normalize_periodic(self, k: Norm, s: super::Span, p: &crate::tables::Periodic, phase: usize) -> usize {
        // SAFETY: forwarded contract; the token proves AVX2 and F16C.
        unsafe { super::x86::f16c_normalize_periodic(k, s.src, s.dst, s.n, p, phase, s.stream) }
    }

    #[inline(always)]
    unsafe fn convert_windows(
        self,
        k: Norm,
        w: &crate::tables::PixelWindows,
        s: super::Span,
        rows: super::RowRun,
        pairs: super::WindowPairs<'_>,
    ) -> usize {
        // SAFETY: forwarded contract; the token proves AVX2 and F16C.
        unsafe { super::x86::f16c_convert_windows(k, w, s, rows, pairs) }
    }

    #[inline(always)]
    unsafe fn deinterleave_convert(
        self,
        k: super::FusedConvert,
        t: &Planar,
        s: super::Span,
        plane_stride: isize,
        params: &[[f32; 2]; 4],
        rows: RowRun,
    ) -> usize {
        // SAFETY: forwarded contract, each kind with tables of its pixels (checked); the token proves AVX2 and F16C.
        unsafe {
            match k {
                super::FusedConvert::Bytes(k) if t.width == 1 => {
                    super::x86::f16c_deinterleave_normalize(k, t, s, plane_stride, params, rows)
                }
                super::FusedConvert::Floats(k) if t.width == 4 && !t.interleave => {
                    super::x86::f16c_deinterleave_floats(k, t, s, plane_stride, params, rows)
                }
                _ => 0,
            }
        }
    }
}
