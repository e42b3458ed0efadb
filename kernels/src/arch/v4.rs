//! x86-64-v4: 64-byte AVX-512 registers, entered through pulp's `V4` dispatch.

use core::arch::x86_64::*;

use pulp::NullaryFnOnce;

use super::lanes::{self, Bytes, Put, deinterleave_normalize};
use super::simd::Simd;
use super::wide;
use super::x86::{
    FloatArgs, TY_I8, WindowArgs, WordPairs, by_byte_types, by_bytes_to_floats, by_float_kind, by_planes, by_types,
    by_window_channels, convert_windows, lane_reverse_mask, normalize_periodic, normalize_run, ramp16, ty_width,
    window_bytes_fit,
};
use super::{Arch, FloatNorm, FusedConvert, Ident, Isa, Norm, RowRun, Span, TileMap, TileRun, WindowPairs, Wrap};
use crate::tables::{Periodic, Planar};

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
    type Base = Self;

    /// Byte-masked stores (AVX-512 BW/VL).
    #[inline(always)]
    unsafe fn spread_lanes(self, t: &crate::tables::Spread, src: *const u8, dst: *mut u8, lanes: usize) -> usize {
        let (load, store) = (t.elems * t.width, t.elems * t.step as usize);
        // SAFETY: the lanes' loads and slots lie in the row (contract); AVX-512 BW/VL via the token.
        unsafe {
            let ctl = _mm_loadu_si128(t.ctl.as_ptr().cast());
            for l in 0..lanes {
                let v = _mm_shuffle_epi8(_mm_loadu_si128(src.add(l * load).cast()), ctl);
                _mm_mask_storeu_epi8(dst.add(l * store).cast(), t.mask, v);
            }
        }
        lanes
    }

    #[inline(always)]
    fn base(self) -> Self {
        self
    }

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
    unsafe fn load_part(self, p: *const u8, lo: usize, hi: usize) -> Option<__m512i> {
        let mask = part_mask(lo, hi);
        // SAFETY: a byte-masked load reads (and can fault on) only the bytes lo..hi, readable (contract).
        Some(unsafe { _mm512_maskz_loadu_epi8(mask, p.cast()) })
    }

    #[inline(always)]
    unsafe fn store_part(self, p: *mut u8, v: __m512i, n: usize) -> bool {
        // SAFETY: a byte-masked store writes only the bytes 0..n, writable (contract).
        unsafe { _mm512_mask_storeu_epi8(p.cast(), part_mask(0, n), v) };
        true
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

    /// Each block of tap pairs one 64-byte load and one `vpmaddwd` (AVX2's two registers at once).
    #[inline(always)]
    unsafe fn taps_pairs<const G: usize>(self, src: *const i16, step: usize, pairs: &[i32], out: &mut [[i32; 16]; G]) {
        // SAFETY: forwarded contract; AVX-512 F/BW via the token.
        unsafe { wide::taps_pairs::<Avx512, G>(src, step, pairs, out) }
    }

    /// 128 bytes of the tap rows per step (AVX2's loop at four times the width: a quarter of the instructions of
    /// the vertical pass); rows of fewer than 64 bytes as AVX2 takes them.
    #[inline(always)]
    unsafe fn rows_u8_q7(self, src: *const u8, step: isize, w: super::RowWeights<'_>, n: usize, out: *mut i16) {
        // SAFETY: forwarded contract; AVX-512 F/BW via the token.
        unsafe { avx512_rows_u8_q7(src, step, w, n, out) }
    }

    /// Two- and four-byte planes a register of pixels at a time through word and dword permutes
    /// ([`wide_interleave`]); other widths with SSSE3.
    #[inline(always)]
    unsafe fn interleave<const N: usize>(
        self,
        t: &crate::tables::Planar,
        src: *const u8,
        plane_stride: isize,
        dst: *mut u8,
        n: usize,
    ) -> usize {
        if N == 2 {
            // SAFETY: forwarded contract; AVX-512BW via the token.
            unsafe { wide_interleave::<Words, N>(t, src, plane_stride, dst, n) }
        } else if N == 4 {
            // SAFETY: forwarded contract; AVX-512F via the token.
            unsafe { wide_interleave::<Dwords, N>(t, src, plane_stride, dst, n) }
        } else {
            // SAFETY: forwarded contract; AVX2 via the token.
            unsafe { super::x86::interleave::<N>(t, src, plane_stride, dst, n) }
        }
    }

    /// Two- and four-byte pixels a register at a time through word and dword permutes ([`wide_deinterleave`]);
    /// other widths with SSSE3.
    #[inline(always)]
    unsafe fn deinterleave<const N: usize>(
        self,
        t: &crate::tables::Planar,
        src: *const u8,
        dst: *mut u8,
        plane_stride: isize,
        n: usize,
    ) -> usize {
        if N == 2 {
            // SAFETY: forwarded contract; AVX-512BW via the token.
            unsafe { wide_deinterleave::<Words, N>(t, src, dst, plane_stride, n) }
        } else if N == 4 {
            // SAFETY: forwarded contract; AVX-512F via the token.
            unsafe { wide_deinterleave::<Dwords, N>(t, src, dst, plane_stride, n) }
        } else {
            // SAFETY: forwarded contract; AVX2 via the token.
            unsafe { super::x86::deinterleave::<N>(t, src, dst, plane_stride, n) }
        }
    }

    #[inline(always)]
    fn tile_shape<const N: usize>() -> (usize, usize) {
        match N {
            4 => (16, 16),
            2 => (32, 16),
            _ => (8, 8),
        }
    }

    #[inline(always)]
    unsafe fn tile<const N: usize, M: TileMap>(
        self,
        src: *const u8,
        ss: isize,
        dst: *mut u8,
        ds: isize,
        stream: bool,
        m: M,
    ) {
        // SAFETY: forwarded contract, for the shape `tile_shape::<N>()` reports (destination rows 64-byte aligned
        // with `stream`); AVX2 and AVX-512 F/BW via the token.
        unsafe {
            match N {
                4 => tiles_out_of_line::<Tile16x4, M>(TileRun::one(src, ss, dst, ds), stream, m),
                2 => tiles_out_of_line::<Tile32x16x2, M>(TileRun::one(src, ss, dst, ds), stream, m),
                _ => super::x86::avx2_tile8::<N, M>(src, ss, dst, ds, m),
            }
        }
    }

    #[inline(always)]
    unsafe fn tile_run<const N: usize, M: TileMap>(self, run: TileRun, stream: bool, m: M) {
        // SAFETY: forwarded contract, for the shape `tile_shape::<N>()` reports; AVX-512 F/BW via the token.
        unsafe {
            match N {
                4 => tiles_out_of_line::<Tile16x4, M>(run, stream, m),
                2 => tiles_out_of_line::<Tile32x16x2, M>(run, stream, m),
                _ => super::tile_run_by_one::<Self, N, M>(self, run, stream, m),
            }
        }
    }

    #[inline(always)]
    fn stack_tiles<const N: usize>() -> bool {
        N == 4 || N == 2
    }

    #[inline(always)]
    unsafe fn tile_stack<const N: usize, M: TileMap>(
        self,
        src: *const u8,
        ss: isize,
        dst: *mut u8,
        ds: isize,
        stream: bool,
        m: M,
    ) {
        // SAFETY: forwarded contract; AVX-512 F/BW/DQ via the token.
        unsafe {
            match N {
                4 => tile_stack_4(src, ss, dst, ds, stream, m),
                2 => tile_stack_2(src, ss, dst, ds, stream, m),
                _ => super::tile_stack_by_8::<Self, N, M>(self, src, ss, dst, ds, m),
            }
        }
    }

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
        // PERF: a strip of 32 input rows across all its columns at a time (the strip's lines in one sweep), not a
        // column of tiles down the block (every fourth line of 64-channel rows, then back for the next).
        //
        // Strips whose rows are one tile each and follow each other (16 channels: a strip is 2 KiB in order) fetch
        // the strip two on: a one-tile run prefetches nothing (runs fetch the tile three on in their strip), and
        // left to the hardware the loads of the strip's 32 lines stalled in some builds of the same code and not
        // others. One thread, Zen 4, f32 NHWC → f16 NCHW 16 × 16 × 128² (`strider bench`, streamed), five processes
        // each: 394–878 → 282–307 µs; tight loops 237–272 → 211–243 µs. Strips of rows apart (one-tile blocks of
        // wider rows: f32 → f16 4096² transposed) keep the hardware's prefetch: no gain beyond the spread between
        // builds (3.3–3.5 ms).
        let one = nj == 16 && si == 64;
        for i in (0..ni).step_by(32) {
            let (s, d) = (src.wrapping_offset(i as isize * si), dst.wrapping_add(2 * i));
            if one {
                let ahead = s.wrapping_offset(64 * si);
                for r in 0..32 {
                    super::prefetch(ahead.wrapping_offset(r as isize * si), 0, 64, false);
                }
            }
            // SAFETY: forwarded contract: rows i..i + 32 ≤ ni, columns 0..nj (a multiple of 16) as a run of tiles
            // across the strip, 64 input bytes and 16 output rows apart; AVX-512 F/BW via the token.
            unsafe {
                whole_tiles::<CastTile32x16, Ident>(
                    TileRun { count: nj / 16, steps: (64, 16 * dj), ..TileRun::one(s, si, d, dj) },
                    stream,
                    Ident,
                )
            };
        }
    }

    #[inline(always)]
    unsafe fn tile_part<const N: usize, M: TileMap>(
        self,
        src: *const u8,
        ss: isize,
        dst: *mut u8,
        ds: isize,
        rows: usize,
        cols: usize,
        m: M,
    ) -> bool {
        if N != 4 {
            return false;
        }
        // SAFETY: forwarded contract (rows, cols ≤ 16); AVX-512F via the token.
        unsafe { tile16_4_part(src, ss, dst, ds, rows, cols, m) };
        true
    }

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
    unsafe fn f32_to_u8_half_up(self, src: *const u8, dst: *mut u8, n: usize) -> usize {
        // SAFETY: forwarded contract; AVX-512F/BW via the token.
        unsafe { lanes::u8_half_up::<Avx512>(src, dst, n) }
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

    #[inline(always)]
    unsafe fn normalize_run(self, k: Norm, s: Span, scale: f32, bias: f32) -> usize {
        let Span { src, dst, n, stream } = s;
        // SAFETY: forwarded contract; AVX-512F via the token.
        unsafe {
            if k.bytes_to_bytes() && crate::float::byte_results_fit_i32(scale, bias) {
                by_byte_types!(k, Avx512Bytes, |u| normalize_run(u, src, dst, n, scale, bias, stream))
            } else {
                by_types!(k, Avx512Put, |u| normalize_run(u, src, dst, n, scale, bias, stream))
            }
        }
    }

    #[inline(always)]
    unsafe fn normalize_periodic(self, k: Norm, s: Span, p: &Periodic, phase: usize) -> usize {
        let Span { src, dst, n, stream } = s;
        // SAFETY: forwarded contract; AVX-512F via the token.
        unsafe {
            let lanes = p.lanes();
            if k.bytes_to_bytes() && p.bytes_fit() {
                by_byte_types!(k, Avx512Bytes, |u| normalize_periodic(u, src, dst, n, lanes, phase, stream))
            } else {
                by_types!(k, Avx512Put, |u| normalize_periodic(u, src, dst, n, lanes, phase, stream))
            }
        }
    }

    #[inline(always)]
    unsafe fn convert_windows(
        self,
        k: Norm,
        w: &crate::tables::PixelWindows,
        s: Span,
        rows: RowRun,
        pairs: WindowPairs<'_>,
    ) -> usize {
        // SAFETY: forwarded contract; AVX-512 F/BW/VL via the token.
        unsafe { avx512_convert_windows(k, w, s, rows, pairs) }
    }

    /// One-byte pixels through four 16-byte windows and `vpshufb` widening ([`deinterleave_normalize`]);
    /// four-byte pixels 16 at a time through the dword permutes of [`wide_deinterleave`] ([`deinterleave_floats`]).
    #[inline(always)]
    unsafe fn deinterleave_convert(
        self,
        k: FusedConvert,
        t: &Planar,
        s: Span,
        plane_stride: isize,
        params: &[[f32; 2]; 4],
        rows: RowRun,
    ) -> usize {
        let Span { src, dst, n, stream } = s;
        let ps = plane_stride;
        // SAFETY: forwarded contract, each kind with tables of its pixels (checked); AVX-512 F/BW via the token.
        unsafe {
            match k {
                FusedConvert::Bytes(k) if t.width == 1 => {
                    by_planes!(k, t.slots, stream, deinterleave_normalize::<Avx512>(t, src, dst, ps, n, params, rows))
                }
                FusedConvert::Floats(k) if t.width == 4 && !t.interleave => {
                    let a = (t, src, dst, ps, n, params, rows);
                    match t.slots {
                        2 => deinterleave_floats_by::<2>(k, stream, a),
                        3 => deinterleave_floats_by::<3>(k, stream, a),
                        4 => deinterleave_floats_by::<4>(k, stream, a),
                        _ => 0,
                    }
                }
                _ => 0,
            }
        }
    }
}

/// `Arch::convert_windows` with AVX-512: [`convert_windows`] through [`Avx512Bytes`] into one-byte integers where
/// the pairs pass [`byte_results_fit_i32`](crate::float::byte_results_fit_i32) (others, rare, go through the
/// buffer), [`Avx512Put`] into floats. Compiled once, out of line, for this level and VBMI's (which forwards here).
///
/// # Safety
///
/// As `Arch::convert_windows`; the CPU has AVX-512 F/BW/VL (and what x86-64-v3 has).
#[target_feature(enable = "avx,avx2,fma,f16c,avx512f,avx512bw,avx512vl")]
pub(super) unsafe fn avx512_convert_windows(
    k: Norm,
    w: &crate::tables::PixelWindows,
    s: Span,
    rows: RowRun,
    pairs: WindowPairs<'_>,
) -> usize {
    let a = (w, s.src, s.dst, s.n, rows, s.stream);
    // SAFETY: forwarded contract; the features are enabled here.
    unsafe { by_window_channels!(w.channels, windows(k, a, pairs)) }
}

/// [`avx512_convert_windows`] for `C` channels.
///
/// # Safety
///
/// As [`avx512_convert_windows`], with its features enabled.
#[inline(always)]
unsafe fn windows<const C: usize>(k: Norm, a: WindowArgs<'_>, pairs: WindowPairs<'_>) -> usize {
    // SAFETY: forwarded contract.
    unsafe {
        if k.bytes_to_bytes() {
            if !window_bytes_fit(pairs) {
                return 0;
            }
            by_byte_types!(k, Avx512Bytes, |u| convert_windows::<_, C>(u, a, WordPairs::of(pairs)))
        } else {
            by_bytes_to_floats!(k, Avx512Put, |u| convert_windows::<_, C>(u, a, WordPairs::of(pairs)))
        }
    }
}

/// [`deinterleave_floats`] with the conversion's kind as constants (`AFFINE`, `OUT`, `STREAM`).
///
/// # Safety
///
/// As [`deinterleave_floats`], with `t.slots == K`.
#[inline(always)]
unsafe fn deinterleave_floats_by<const K: usize>(k: FloatNorm, stream: bool, a: FloatArgs<'_>) -> usize {
    // SAFETY: forwarded contract.
    unsafe { by_float_kind!(k, stream, deinterleave_floats::<K>(a)) }
}

/// F32 pixels of `K` slots → `t.planes` planes converted in registers, 16 pixels per step: `K` 64-byte loads, one
/// dword-permuted register per plane ([`Dwords`]), `x·scale + bias` (product, then sum: never fused) with
/// `AFFINE`, then an f16 narrowing (nearest even) with `F16`, and the plane's store; returns the pixels done.
///
/// PERF: the buffered path moved such a row in three passes through two L1 buffers (deinterleave, convert each
/// plane, copy out).
///
/// # Safety
///
/// As `Arch::deinterleave_convert` for f32 pixels; AVX-512F enabled; `t` was built for width 4 and `K` slots.
#[inline(always)]
#[allow(clippy::needless_range_loop)] // the plane index picks the permute, the parameters and the plane
unsafe fn deinterleave_floats<const K: usize, const AFFINE: bool, const OUT: u8, const STREAM: bool>(
    (t, src, dst, plane_stride, n, params, rows): FloatArgs<'_>,
) -> usize {
    let out = ty_width(OUT);
    let steps = n / 16;
    // SAFETY: (whole body) for each step of output pixels j..j+16, the step's 64·K bytes from its lowest address are
    // readable and elements j..j+16 of every plane writable, in every row of the run (contract, j + 16 ≤ n); table
    // loads of 64 bytes; AVX-512F by the contract.
    unsafe {
        let planes = t.planes;
        let regs = PlanarRegs::<K>::load(&t.wide);
        let p: [(__m512, __m512); K] =
            core::array::from_fn(|i| (_mm512_set1_ps(params[i][0]), _mm512_set1_ps(params[i][1])));
        for r in 0..rows.count as isize {
            let (win, dst) = (t.window(src.wrapping_offset(r * rows.in_step)), dst.wrapping_offset(r * rows.out_step));
            let at = t.steps(win, 16, 4 * K);
            for j in (0..steps).map(|s| 16 * s) {
                let px = PlanarRegs::<K>::pixels(at.at(j));
                for i in 0..K {
                    if i >= planes {
                        break;
                    }
                    let v = _mm512_castsi512_ps(Dwords::register(&regs, i, px));
                    let y = if AFFINE { _mm512_add_ps(_mm512_mul_ps(v, p[i].0), p[i].1) } else { v };
                    lanes::put_plane::<Avx512, OUT, STREAM>(
                        [y; 2],
                        dst.wrapping_offset(i as isize * plane_stride).add(j * out),
                    );
                }
            }
        }
    }
    16 * steps
}

/// [`Simd`] at AVX-512 F/BW: 64-byte registers, 16 lanes in one.
#[derive(Clone, Copy, Default, Debug)]
pub(super) struct Avx512;

impl Simd for Avx512 {
    const BYTES: usize = 64;
    type I = __m512i;
    type F = __m512;
    #[inline(always)]
    unsafe fn zero() -> __m512i {
        // SAFETY: AVX-512F (contract).
        unsafe { _mm512_setzero_si512() }
    }

    #[inline(always)]
    unsafe fn splat16(x: i16) -> __m512i {
        // SAFETY: AVX-512BW (contract).
        unsafe { _mm512_set1_epi16(x) }
    }

    #[inline(always)]
    unsafe fn splat32(x: i32) -> __m512i {
        // SAFETY: AVX-512F (contract).
        unsafe { _mm512_set1_epi32(x) }
    }

    #[inline(always)]
    unsafe fn load(p: *const u8) -> __m512i {
        // SAFETY: 64 readable bytes at p; AVX-512F (contract).
        unsafe { _mm512_loadu_si512(p.cast()) }
    }

    #[inline(always)]
    unsafe fn store(v: __m512i, p: *mut u8) {
        // SAFETY: 64 writable bytes at p; AVX-512F (contract).
        unsafe { _mm512_storeu_si512(p.cast(), v) }
    }

    #[inline(always)]
    unsafe fn widen_bytes<const SIGNED: bool>(p: *const u8) -> __m512i {
        // SAFETY: 16 readable bytes at p; AVX-512F (contract).
        unsafe {
            let v = _mm_loadu_si128(p.cast());
            if SIGNED { _mm512_cvtepi8_epi32(v) } else { _mm512_cvtepu8_epi32(v) }
        }
    }

    #[inline(always)]
    unsafe fn and(a: __m512i, b: __m512i) -> __m512i {
        // SAFETY: AVX-512F (contract).
        unsafe { _mm512_and_si512(a, b) }
    }

    #[inline(always)]
    unsafe fn shr16_8(a: __m512i) -> __m512i {
        // SAFETY: AVX-512BW (contract).
        unsafe { _mm512_srli_epi16::<8>(a) }
    }

    #[inline(always)]
    unsafe fn sra32_24(a: __m512i) -> __m512i {
        // SAFETY: AVX-512F (contract).
        unsafe { _mm512_srai_epi32::<24>(a) }
    }

    #[inline(always)]
    unsafe fn sra32(a: __m512i, count: __m128i) -> __m512i {
        // SAFETY: AVX-512F (contract).
        unsafe { _mm512_sra_epi32(a, count) }
    }

    #[inline(always)]
    unsafe fn unpack16(a: __m512i, b: __m512i) -> (__m512i, __m512i) {
        // SAFETY: AVX-512BW (contract).
        unsafe { (_mm512_unpacklo_epi16(a, b), _mm512_unpackhi_epi16(a, b)) }
    }

    #[inline(always)]
    unsafe fn unpack32(a: __m512i, b: __m512i) -> (__m512i, __m512i) {
        // SAFETY: AVX-512F (contract).
        unsafe { (_mm512_unpacklo_epi32(a, b), _mm512_unpackhi_epi32(a, b)) }
    }

    #[inline(always)]
    unsafe fn madd16(a: __m512i, w: __m512i) -> __m512i {
        // SAFETY: AVX-512BW (contract).
        unsafe { _mm512_madd_epi16(a, w) }
    }

    #[inline(always)]
    unsafe fn add32(a: __m512i, b: __m512i) -> __m512i {
        // SAFETY: AVX-512F (contract).
        unsafe { _mm512_add_epi32(a, b) }
    }

    #[inline(always)]
    unsafe fn packs32(a: __m512i, b: __m512i) -> __m512i {
        // SAFETY: AVX-512BW (contract).
        unsafe { _mm512_packs_epi32(a, b) }
    }

    #[inline(always)]
    unsafe fn zip128(a: __m512i, b: __m512i) -> (__m512i, __m512i) {
        // SAFETY: AVX-512F (contract).
        unsafe {
            let first = _mm512_setr_epi64(0, 1, 8, 9, 2, 3, 10, 11);
            let second = _mm512_setr_epi64(4, 5, 12, 13, 6, 7, 14, 15);
            (_mm512_permutex2var_epi64(a, first, b), _mm512_permutex2var_epi64(a, second, b))
        }
    }

    #[inline(always)]
    unsafe fn shuffle_bytes(a: __m512i, m: __m512i) -> __m512i {
        // SAFETY: AVX-512BW (contract).
        unsafe { _mm512_shuffle_epi8(a, m) }
    }

    #[inline(always)]
    unsafe fn splat_ps(x: f32) -> __m512 {
        // SAFETY: AVX-512F (contract).
        unsafe { _mm512_set1_ps(x) }
    }

    #[inline(always)]
    unsafe fn load_ps(p: *const u8) -> __m512 {
        // SAFETY: 64 bytes at p; AVX-512F (contract).
        unsafe { _mm512_loadu_ps(p.cast()) }
    }

    #[inline(always)]
    unsafe fn load_ph(p: *const u8) -> __m512 {
        // SAFETY: 32 bytes at p; AVX-512F (contract).
        unsafe { _mm512_cvtph_ps(_mm256_loadu_si256(p.cast())) }
    }

    #[inline(always)]
    unsafe fn store_ps<const STREAM: bool>(x: __m512, p: *mut u8) {
        // SAFETY: 64 bytes at p (64-aligned when streaming: the callers' outputs are whole lines); AVX-512F
        // (contract).
        unsafe { if STREAM { _mm512_stream_ps(p.cast(), x) } else { _mm512_storeu_ps(p.cast(), x) } }
    }

    #[inline(always)]
    unsafe fn to_ps(x: __m512i) -> __m512 {
        // SAFETY: AVX-512F (contract).
        unsafe { _mm512_cvtepi32_ps(x) }
    }

    #[inline(always)]
    unsafe fn mul_ps(a: __m512, b: __m512) -> __m512 {
        // SAFETY: AVX-512F (contract).
        unsafe { _mm512_mul_ps(a, b) }
    }

    #[inline(always)]
    unsafe fn add_ps(a: __m512, b: __m512) -> __m512 {
        // SAFETY: AVX-512F (contract).
        unsafe { _mm512_add_ps(a, b) }
    }

    #[inline(always)]
    unsafe fn min_ps(a: __m512, b: __m512) -> __m512 {
        // SAFETY: AVX-512F (contract).
        unsafe { _mm512_min_ps(a, b) }
    }

    #[inline(always)]
    unsafe fn nan_to_zero_ps(x: __m512) -> __m512 {
        // SAFETY: AVX-512F (contract). A NaN compares unordered with itself.
        unsafe { _mm512_maskz_mov_ps(_mm512_cmp_ps_mask::<_CMP_ORD_Q>(x, x), x) }
    }

    #[inline(always)]
    unsafe fn round_ps(x: __m512) -> __m512i {
        // SAFETY: AVX-512F (contract).
        unsafe { _mm512_cvtps_epi32(x) }
    }

    #[inline(always)]
    unsafe fn trunc_ps(x: __m512) -> __m512i {
        // SAFETY: AVX-512F (contract).
        unsafe { _mm512_cvttps_epi32(x) }
    }

    #[inline(always)]
    unsafe fn join_halves([lo, hi]: [__m256i; 2]) -> [__m512i; 2] {
        // SAFETY: AVX-512F (contract).
        unsafe { [_mm512_inserti64x4::<1>(_mm512_castsi256_si512(lo), hi); 2] }
    }

    #[inline(always)]
    unsafe fn store_ph16<const STREAM: bool>([x, _]: [__m512; 2], p: *mut u8) {
        // SAFETY: 32 bytes at p; AVX-512F (contract).
        unsafe {
            let h = _mm512_cvtps_ph::<{ _MM_FROUND_TO_NEAREST_INT | _MM_FROUND_NO_EXC }>(x);
            if STREAM { _mm256_stream_si256(p.cast(), h) } else { _mm256_storeu_si256(p.cast(), h) }
        }
    }

    #[inline(always)]
    unsafe fn narrow16<const KIND: u8, const STREAM: bool>([x, _]: [__m512i; 2], p: *mut u8) {
        // SAFETY: 16 bytes at p; AVX-512F (contract). `vpmovusdb` reads its lanes unsigned, hence a signed maximum
        // with 0 before it.
        unsafe {
            let bytes = if KIND == TY_I8 {
                _mm512_cvtsepi32_epi8(x)
            } else {
                _mm512_cvtusepi32_epi8(_mm512_max_epi32(x, _mm512_setzero_si512()))
            };
            if STREAM { _mm_stream_si128(p.cast(), bytes) } else { _mm_storeu_si128(p.cast(), bytes) }
        }
    }

    #[inline(always)]
    unsafe fn narrow32<const KIND: u8, const STREAM: bool>([a, _]: [__m512i; 2], [b, _]: [__m512i; 2], p: *mut u8) {
        // SAFETY: 32 bytes at p; AVX-512F/BW (contract).
        unsafe {
            // Words [a 4L..4L+4, b 4L..4L+4] in lane L, then bytes (the lanes packed with themselves): dwords
            // 0, 4, 8, 12 of the 512 bits hold a, dwords 1, 5, 9, 13 b.
            let w = _mm512_packs_epi32(a, b);
            let v = if KIND == TY_I8 { _mm512_packs_epi16(w, w) } else { _mm512_packus_epi16(w, w) };
            let order = _mm512_setr_epi32(0, 4, 8, 12, 1, 5, 9, 13, 0, 0, 0, 0, 0, 0, 0, 0);
            let v = _mm512_castsi512_si256(_mm512_permutexvar_epi32(order, v));
            if STREAM { _mm256_stream_si256(p.cast(), v) } else { _mm256_storeu_si256(p.cast(), v) }
        }
    }

    #[inline(always)]
    unsafe fn store_pair_order([x, _]: [__m512i; 2], p: *mut i32) {
        // SAFETY: 64 bytes at p (contract); AVX-512F.
        unsafe { _mm512_storeu_si512(p.cast(), _mm512_shuffle_i64x2::<0xD8>(x, x)) }
    }

    #[inline(always)]
    unsafe fn windows(base: *const u8, win: [usize; 4]) -> [__m512i; 2] {
        // SAFETY: the four 16-byte windows (contract); AVX-512F.
        unsafe {
            let l = |g: usize| _mm_loadu_si128(base.add(win[g]).cast());
            let z = _mm512_inserti32x4::<1>(_mm512_castsi128_si512(l(0)), l(1));
            [_mm512_inserti32x4::<3>(_mm512_inserti32x4::<2>(z, l(2)), l(3)); 2]
        }
    }
}

/// [`Put`] at AVX-512.
type Avx512Put<const FROM: u8, const KIND: u8> = Put<Avx512, FROM, KIND>;

/// [`Bytes`] at AVX-512.
type Avx512Bytes<const SIGNED: bool, const KIND: u8> = Bytes<Avx512, SIGNED, KIND>;

/// A register tile of AVX-512 whose 16 destination rows are whole 64-byte lines: 16 input registers, a shuffle
/// network, 16 output registers (output `c` is destination row `c`).
trait WholeTile {
    /// Input register `i` of the tile whose first source row is at `src`, rows `ss` bytes apart, row `r` a further
    /// `wrap.of(r)` bytes.
    ///
    /// # Safety
    ///
    /// The tile's source rows are readable; AVX-512 F/BW available.
    unsafe fn load(src: *const u8, ss: isize, wrap: Wrap, i: usize) -> __m512i;

    /// The shuffle network: the 16 destination rows of the 16 input registers.
    ///
    /// # Safety
    ///
    /// AVX-512 F/BW available.
    unsafe fn net(r: [__m512i; 16]) -> [__m512i; 16];

    /// Source rows of the tile three ahead in a run that [`whole_tiles`] prefetches, a line each (0: none).
    ///
    /// PERF: the converting tiles, one thread, f32 NHWC → f16 NCHW of 16 × 16 × 128² (streamed): between copies of
    /// other data (input from memory) 425–857 µs, mostly 690–857 (`t/limit` 1.6–1.9), → 507–591 µs (1.2–1.5); in
    /// tight loops (input in the caches) 217 → 245 µs. AVX2's converting tiles prefetch too. For the 4-byte tiles
    /// it cost f32 NCHW → NHWC (1 × 64 × 256²) 8–13 %: none there.
    const PREFETCH_ROWS: usize = 0;
}

/// A 16×16 tile of 4-byte elements: four rounds of 16 two-source shuffles (32-bit and 64-bit unpacks inside 128-bit
/// lanes, then two rounds of 128-bit lane shuffles).
///
/// PERF: a 128×128 f32 transpose in L1/L2 ran in 1.16 µs against 2.3–3.9 µs with 8×8 AVX2 tiles, whose 32-byte rows
/// leave half-written lines behind that power-of-two strides evict before the next tile completes them.
struct Tile16x4;

impl WholeTile for Tile16x4 {
    #[inline(always)]
    unsafe fn load(src: *const u8, ss: isize, wrap: Wrap, i: usize) -> __m512i {
        // SAFETY: row i of the tile is readable (the contract).
        unsafe { _mm512_loadu_si512(src.wrapping_offset(i as isize * ss + wrap.of(i)).cast()) }
    }

    #[inline(always)]
    // Index loops mirror the register names of the shuffle network.
    #[allow(clippy::needless_range_loop)]
    unsafe fn net(r: [__m512i; 16]) -> [__m512i; 16] {
        // SAFETY: register operations of AVX-512F (the contract).
        unsafe {
            let (ps, pd) = (_mm512_castsi512_ps, _mm512_castsi512_pd);
            let (from_ps, from_pd) = (_mm512_castps_si512, _mm512_castpd_si512);
            // Round 1: pairs of rows interleaved by 32-bit elements within each 128-bit lane.
            let mut t = [_mm512_setzero_si512(); 16];
            for i in 0..8 {
                t[2 * i] = from_ps(_mm512_unpacklo_ps(ps(r[2 * i]), ps(r[2 * i + 1])));
                t[2 * i + 1] = from_ps(_mm512_unpackhi_ps(ps(r[2 * i]), ps(r[2 * i + 1])));
            }
            // Round 2: by 64-bit pairs; u[4i + k] holds column k of each 128-bit lane of rows 4i..4i+4.
            let mut u = [_mm512_setzero_si512(); 16];
            for i in 0..4 {
                let (a0, a1, b0, b1) = (t[4 * i], t[4 * i + 1], t[4 * i + 2], t[4 * i + 3]);
                u[4 * i] = from_pd(_mm512_unpacklo_pd(pd(a0), pd(b0)));
                u[4 * i + 1] = from_pd(_mm512_unpackhi_pd(pd(a0), pd(b0)));
                u[4 * i + 2] = from_pd(_mm512_unpacklo_pd(pd(a1), pd(b1)));
                u[4 * i + 3] = from_pd(_mm512_unpackhi_pd(pd(a1), pd(b1)));
            }
            // Rounds 3 and 4: 128-bit lanes gathered across row groups 4 and then 8 apart.
            for i in 0..2 {
                for k in 0..4 {
                    let (a, b) = (u[8 * i + k], u[8 * i + 4 + k]);
                    t[8 * i + k] = _mm512_shuffle_i32x4::<0x88>(a, b);
                    t[8 * i + 4 + k] = _mm512_shuffle_i32x4::<0xDD>(a, b);
                }
            }
            for k in 0..8 {
                let (a, b) = (t[k], t[8 + k]);
                u[k] = _mm512_shuffle_i32x4::<0x88>(a, b);
                u[8 + k] = _mm512_shuffle_i32x4::<0xDD>(a, b);
            }
            u
        }
    }
}

/// A 32×16 tile of 2-byte elements: register `i` holds source rows `2i` and `2i + 1` (one per 256-bit half), three
/// rounds of unpacks inside 128-bit lanes transpose the even rows (low halves) and the odd rows (high halves) apart,
/// and one two-source word permute per destination row interleaves them.
///
/// PERF: whole-line stores where 8×8 tiles of 16-byte rows per 256 elements leave quarter-line stores that
/// power-of-two strides evict before the line is complete.
///
/// PERF: rows `2i` and `2i + 1` rather than `i` and `i + 16` (with a 64-bit permute last): the loads go through the
/// rows in address order, where rows 16 apart went back and forth, which the prefetchers do not follow out of the
/// caches (NHWC pixels of 16 f16 channels: two lines 512 bytes apart per register). One thread, Zen 4 VM, medians of
/// 6 alternations (lower in n of 6): streamed f16 NHWC → NCHW into planes of 112² (wide tiles), 16 channels × 32
/// images 1360 → 709 µs (6), 32 × 16 1545 → 793 µs (6); in the caches ties or gains (16 × 2 images of 112² 40.2 →
/// 42.5 µs, 4 of 6; one image of 128² 27.1 → 20.4 µs, 6; 2048² 1195 → 1170 µs, 4; 256² 7.4 → 7.1 µs, 5; f16
/// scale-bias NHWC → NCHW 16 × 16 × 128² 896 → 707 µs, 5). Loading the old registers' rows in address order
/// instead (every first row, then every second) won streamed but lost in the caches, where the network then
/// waits for the last loads. (The word permute is one instruction on Zen 4, timed as fast as the 64-bit one; on
/// Intel cores it is three µops, unmeasured here.)
struct Tile32x16x2;

/// [`Tile32x16x2`]'s last permute, for destination rows in lane `h` of its registers: word `w` is element `w / 2` of
/// lane `h` (even `w`: even source rows) or `2 + h` (odd `w`), of the first register for `w` < 16, of the second
/// (indices 32 on) after.
const INTERLEAVE: [[i16; 32]; 2] = [interleave(0), interleave(1)];

/// Row `h` of [`INTERLEAVE`].
const fn interleave(h: usize) -> [i16; 32] {
    let mut v = [0; 32];
    let mut w = 0;
    while w < 32 {
        v[w] = (32 * (w / 16) + 16 * (w % 2) + (w % 16) / 2 + 8 * h) as i16;
        w += 1;
    }
    v
}

impl WholeTile for Tile32x16x2 {
    #[inline(always)]
    unsafe fn load(src: *const u8, ss: isize, wrap: Wrap, i: usize) -> __m512i {
        let row = |i: usize| src.wrapping_offset(i as isize * ss + wrap.of(i)).cast::<__m256i>();
        // SAFETY: rows 2i and 2i + 1 of the tile are readable (the contract).
        unsafe {
            _mm512_inserti64x4::<1>(
                _mm512_castsi256_si512(_mm256_loadu_si256(row(2 * i))),
                _mm256_loadu_si256(row(2 * i + 1)),
            )
        }
    }

    #[inline(always)]
    // Index loops mirror the register names of the shuffle network.
    #[allow(clippy::needless_range_loop)]
    unsafe fn net(mut r: [__m512i; 16]) -> [__m512i; 16] {
        // SAFETY: register operations of AVX-512 F/BW (the contract) and loads of `INTERLEAVE`'s rows (64 bytes each).
        unsafe {
            let mut t = [_mm512_setzero_si512(); 16];
            for k in 0..8 {
                t[2 * k] = _mm512_unpacklo_epi16(r[2 * k], r[2 * k + 1]);
                t[2 * k + 1] = _mm512_unpackhi_epi16(r[2 * k], r[2 * k + 1]);
            }
            for k in 0..4 {
                for m in 0..2 {
                    r[4 * k + m] = _mm512_unpacklo_epi32(t[4 * k + m], t[4 * k + 2 + m]);
                    r[4 * k + 2 + m] = _mm512_unpackhi_epi32(t[4 * k + m], t[4 * k + 2 + m]);
                }
            }
            for k in 0..2 {
                for m in 0..4 {
                    t[8 * k + m] = _mm512_unpacklo_epi64(r[8 * k + m], r[8 * k + 4 + m]);
                    t[8 * k + 4 + m] = _mm512_unpackhi_epi64(r[8 * k + m], r[8 * k + 4 + m]);
                }
            }
            // Destination row c = 8h + m: source rows 0..16 from t[p] (the even ones in lane h, the odd ones in
            // lane 2 + h), interleaved, then rows 16..32 from t[8 + p] alike.
            const BITREV3: [usize; 8] = [0, 4, 2, 6, 1, 5, 3, 7];
            let lanes =
                [_mm512_loadu_si512(INTERLEAVE[0].as_ptr().cast()), _mm512_loadu_si512(INTERLEAVE[1].as_ptr().cast())];
            for c in 0..16 {
                let (h, p) = (c / 8, BITREV3[c % 8]);
                r[c] = _mm512_permutex2var_epi16(t[p], lanes[h], t[8 + p]);
            }
            r
        }
    }
}

/// [`Tile32x16x2`] from f32 rows: each row's 16 elements converted to f16 (rounding to nearest even) as it is
/// loaded, so that a converting transpose moves its input once, without a buffer of converted rows.
///
/// PERF: one thread, Zen 4 VM, medians of 5 alternations (lower in n of 5), f32 NHWC → f16 NCHW converted into a
/// buffer and transposed out of it → through these tiles: 16 channels × 16 images of 128² (`strider bench`'s
/// cast case, streamed) 1160 → 815 µs (5), of 112² 1160 → 788 µs (4); in the caches 4 × 112² 92 → 63 µs (5), 64
/// channels × 4 × 56² 159 → 132 µs (5). (The patterns bench: streamed, the conversions into plane lines alone take
/// 0.47× the buffered operator.) Blocks wider than one tile stay buffered out of the caches (`rows::staged`).
struct CastTile32x16;

impl WholeTile for CastTile32x16 {
    const PREFETCH_ROWS: usize = 32;

    #[inline(always)]
    unsafe fn load(src: *const u8, ss: isize, wrap: Wrap, i: usize) -> __m512i {
        let row = |r: usize| src.wrapping_offset(r as isize * ss + wrap.of(r)).cast::<f32>();
        const NEAREST: i32 = _MM_FROUND_TO_NEAREST_INT | _MM_FROUND_NO_EXC;
        // SAFETY: rows 2i and 2i + 1 of the tile (16 f32 each) are readable (the contract); AVX-512F.
        unsafe {
            let lo = _mm512_cvtps_ph::<NEAREST>(_mm512_loadu_ps(row(2 * i)));
            let hi = _mm512_cvtps_ph::<NEAREST>(_mm512_loadu_ps(row(2 * i + 1)));
            _mm512_inserti64x4::<1>(_mm512_castsi256_si512(lo), hi)
        }
    }

    #[inline(always)]
    unsafe fn net(r: [__m512i; 16]) -> [__m512i; 16] {
        // SAFETY: forwarded contract.
        unsafe { Tile32x16x2::net(r) }
    }
}

/// Transposes the [`TileRun`] `run` of whole tiles of `T`, storing each tile's destination rows between the loads of
/// the next tile's source rows.
///
/// PERF: the tiles' loads cannot pass the previous tile's stores on their own (the compiler cannot tell the
/// buffers apart), and a burst of 16 loads then 16 stores moved the lines of a 2048² f32 transpose 15–25% slower
/// than loads and stores interleaved. Interleaved, Zen 4 VM, best of 6 alternations (lower in n of 6 pairs), one
/// thread: the public f32 2048² 1.58 → 1.40 ms (6), f32 NCHW → NHWC 1×64×256² 1.23 → 1.08 ms (5), f32 4096² 7.32 →
/// 6.91 ms (4), f16 4096² 5.13 → 4.78 ms (3); two threads, NCHW → NHWC 629 → 458 µs (5 of 5), 2048² the same.
///
/// # Safety
///
/// Every tile's source rows (wrapped by `wrap`) are readable and its 16 destination rows of 64 bytes, `ds` bytes
/// apart, writable, not overlapping any source row; AVX-512 F/BW available; with `stream`, every destination row
/// starts on a 64-byte boundary.
#[inline(always)]
unsafe fn whole_tiles<T: WholeTile, M: TileMap>(run: TileRun, stream: bool, m: M) {
    let TileRun { src, ss, wrap, dst, ds, count, steps } = run;
    if count == 0 {
        return;
    }
    // SAFETY: (whole body) loads of the source rows of tiles 0..count and stores of their destination rows, in
    // bounds by the contract; the next tile's loads move ahead of this tile's stores, which is sound because the
    // source and destination do not overlap.
    unsafe {
        let mut r = [_mm512_setzero_si512(); 16];
        for (i, v) in r.iter_mut().enumerate() {
            *v = T::load(src, ss, wrap, i);
        }
        let (mut s, mut d, rest) = (src, dst, wrap.rest());
        for _ in 1..count {
            let out = T::net(r);
            let ahead = s.wrapping_offset(steps.0.wrapping_mul(3));
            for k in 0..T::PREFETCH_ROWS {
                super::prefetch(ahead.wrapping_offset((k as isize).wrapping_mul(ss)), 0, 1, false);
            }
            s = s.wrapping_offset(steps.0);
            for c in 0..16 {
                put_line(d.wrapping_offset(c as isize * ds), m.m512(out[c]), stream);
                r[c] = T::load(s, ss, rest, c);
            }
            d = d.wrapping_offset(steps.1);
        }
        for (c, &v) in T::net(r).iter().enumerate() {
            put_line(d.wrapping_offset(c as isize * ds), m.m512(v), stream);
        }
    }
}

/// Transposes the top-left `rows × cols` corner of a 16×16 tile of 4-byte elements ([`Tile16x4`]'s network): `dst`
/// row `c` element `r` ← `src` row `r` element `c`; loads are masked to `cols` elements, rows past `rows` skipped,
/// and the `cols` stores masked to `rows` elements.
///
/// # Safety
///
/// `rows`, `cols` ≤ 16; `rows` source rows of `cols` elements `ss` bytes apart are readable and `cols` destination
/// rows of `rows` elements `ds` bytes apart writable, not overlapping; the CPU has what the V4 token checks.
///
/// Out of line (one copy per map, called once per corner of a block): inlined into every sweep of the 4-byte
/// transposing kernels, it took 95 KB of text; the public 4-byte transposes ran no slower (one thread, min of
/// 6 alternations: 0.85–1.03 of their times before).
#[inline(never)]
#[target_feature(enable = "avx,avx2,bmi1,bmi2,fma,lzcnt,f16c,avx512f,avx512bw,avx512cd,avx512dq,avx512vl")]
unsafe fn tile16_4_part<M: TileMap>(
    src: *const u8,
    ss: isize,
    dst: *mut u8,
    ds: isize,
    rows: usize,
    cols: usize,
    m: M,
) {
    // Masks of `cols` elements (loads) and `rows` elements (stores).
    let (cm, rm) = (((1u32 << cols) - 1) as __mmask16, ((1u32 << rows) - 1) as __mmask16);
    // SAFETY: (whole body) loads of source rows r < rows masked to `cols` elements; stores of destination rows
    // c < cols masked to `rows` elements: in bounds by the contract.
    unsafe {
        let mut r = [_mm512_setzero_si512(); 16];
        for (i, v) in r.iter_mut().enumerate().take(rows) {
            *v = _mm512_maskz_loadu_epi32(cm, src.wrapping_offset(i as isize * ss).cast());
        }
        let out = Tile16x4::net(r);
        for (c, &v) in out.iter().enumerate().take(cols) {
            _mm512_mask_storeu_epi32(dst.wrapping_offset(c as isize * ds).cast(), rm, m.m512(v));
        }
    }
}

/// The mask of bytes `lo..hi` of a 64-byte register (`lo ≤ hi ≤ 64`).
#[inline(always)]
fn part_mask(lo: usize, hi: usize) -> u64 {
    let below = |n: usize| if n >= 64 { u64::MAX } else { (1u64 << n) - 1 };
    below(hi) & !below(lo)
}

/// Stores a whole 64-byte line at `p`, non-temporally with `stream`.
///
/// # Safety
///
/// 64 bytes at `p` are writable; with `stream`, `p` is on a 64-byte boundary; AVX-512F available.
#[inline(always)]
unsafe fn put_line(p: *mut u8, v: __m512i, stream: bool) {
    // SAFETY: forwarded contract.
    unsafe { if stream { _mm512_stream_si512(p.cast(), v) } else { _mm512_storeu_si512(p.cast(), v) } }
}

/// [`whole_tiles`] out of line: one copy per tile kind and map, which every sweep of a transposing kernel calls
/// (once per run of tiles, or per tile where it sweeps diagonals).
///
/// Inlined into every sweep of every transposing kernel (with the stacks, [`tile_stack_4`] and [`tile_stack_2`]),
/// the AVX-512 level's transposes took 97 KB more text; the public transposes ran the same instructions at `--isa v3`
/// and the same times at this level (one thread, min of 4 alternations, within the VM's noise).
///
/// # Safety
///
/// As [`whole_tiles`]; the CPU has what the V4 token checks.
#[inline(never)]
#[target_feature(enable = "avx,avx2,bmi1,bmi2,fma,lzcnt,f16c,avx512f,avx512bw,avx512cd,avx512dq,avx512vl")]
unsafe fn tiles_out_of_line<T: WholeTile, M: TileMap>(run: TileRun, stream: bool, m: M) {
    // SAFETY: forwarded contract; the features are enabled here.
    unsafe { whole_tiles::<T, M>(run, stream, m) }
}

/// Transposes two 8×8 tiles of 4-byte elements stacked vertically in one pass of 64-byte registers: register `k`
/// holds source rows `k` and `k + 8` (low and high 32 bytes), the 8×8 network of
/// [`avx2_tile8`](super::x86::avx2_tile8) — 32-bit and 64-bit shuffles inside 128-bit lanes, then one two-source
/// permute per result to gather its lanes — transposes both halves at once, and result `c` is destination row `c`:
/// 16 elements, one whole 64-byte line (streamed with `stream`).
///
/// PERF: 16 half loads, 24 shuffles and 8 whole-line stores for 128 elements, where two AVX2 8×8 tiles take 16
/// loads, 48 shuffles and 16 half-line stores. Its gain is the whole lines it can stream (see `tile_for` in
/// `rows::transpose`).
///
/// # Safety
///
/// As `Arch::tile_stack` for `N` = 4; the CPU has what the V4 token checks.
///
/// Out of line, as [`tile_stack_2`] and AVX2's stacks (`avx2_tile_stack`): one copy per map, called once per stack.
#[inline(never)]
#[target_feature(enable = "avx,avx2,bmi1,bmi2,fma,lzcnt,f16c,avx512f,avx512bw,avx512cd,avx512dq,avx512vl")]
// Index loops mirror the register names of the shuffle network.
#[allow(clippy::needless_range_loop)]
unsafe fn tile_stack_4<M: TileMap>(src: *const u8, ss: isize, dst: *mut u8, ds: isize, stream: bool, m: M) {
    let row = |r: usize| src.wrapping_offset(r as isize * ss).cast::<f32>();
    let out = |c: usize| dst.wrapping_offset(c as isize * ds).cast::<f32>();
    // SAFETY: (whole body) loads of the 16 source rows' 8 elements and stores of the 8 destination rows' 16, in
    // bounds by the contract; with `stream`, destination rows start on a line (contract).
    unsafe {
        // (Rows in address order, as `tile_stack_2`.)
        let mut r = [_mm512_setzero_ps(); 8];
        for k in 0..8 {
            r[k] = _mm512_castps256_ps512(_mm256_loadu_ps(row(k)));
        }
        for k in 0..8 {
            r[k] = _mm512_insertf32x8::<1>(r[k], _mm256_loadu_ps(row(k + 8)));
        }
        let mut t = [_mm512_setzero_ps(); 8];
        for k in 0..4 {
            t[2 * k] = _mm512_unpacklo_ps(r[2 * k], r[2 * k + 1]);
            t[2 * k + 1] = _mm512_unpackhi_ps(r[2 * k], r[2 * k + 1]);
        }
        // r[4h + m]: column m of each 128-bit lane of rows 4h..4h+4.
        for h in 0..2 {
            let (a, b, c, d) = (t[4 * h], t[4 * h + 2], t[4 * h + 1], t[4 * h + 3]);
            r[4 * h] = _mm512_shuffle_ps::<0x44>(a, b);
            r[4 * h + 1] = _mm512_shuffle_ps::<0xEE>(a, b);
            r[4 * h + 2] = _mm512_shuffle_ps::<0x44>(c, d);
            r[4 * h + 3] = _mm512_shuffle_ps::<0xEE>(c, d);
        }
        // Column c < 4 of both halves: lane 0 (then 2) of rows 0..4 and of rows 4..8; column c + 4: lanes 1 and 3.
        let lanes = [
            _mm512_setr_epi32(0, 1, 2, 3, 16, 17, 18, 19, 8, 9, 10, 11, 24, 25, 26, 27),
            _mm512_setr_epi32(4, 5, 6, 7, 20, 21, 22, 23, 12, 13, 14, 15, 28, 29, 30, 31),
        ];
        for c in 0..8 {
            put_line(
                out(c).cast(),
                m.m512(_mm512_castps_si512(_mm512_permutex2var_ps(r[c % 4], lanes[c / 4], r[4 + c % 4]))),
                stream,
            );
        }
    }
}

/// Transposes four 8×8 tiles of 2-byte elements stacked vertically in one pass of 64-byte registers: 128-bit lane
/// `l` of register `k` holds source row `k + 8l`, the 8×8 network of [`avx2_tile8`](super::x86::avx2_tile8)
/// (16-, 32- and 64-bit unpacks, all inside 128-bit lanes) transposes the four tiles at once, and result `c` is
/// destination row `c`: 32 elements, one whole 64-byte line (streamed with `stream`).
///
/// PERF: 8 loads, 24 lane inserts, 24 unpacks and 8 whole-line stores for 256 elements, where four 8×8 tiles take
/// 32 loads, 96 unpacks and 32 quarter-line stores. Its gain is the whole lines it can stream (see `tile_for` in
/// `rows::transpose`).
///
/// # Safety
///
/// As `Arch::tile_stack` for `N` = 2; the CPU has what the V4 token checks.
///
/// Out of line, as AVX2's stacks (`avx2_tile_stack`): one copy per map, called once per stack.
#[inline(never)]
#[target_feature(enable = "avx,avx2,bmi1,bmi2,fma,lzcnt,f16c,avx512f,avx512bw,avx512cd,avx512dq,avx512vl")]
// Index loops mirror the register names of the shuffle network.
#[allow(clippy::needless_range_loop)]
unsafe fn tile_stack_2<M: TileMap>(src: *const u8, ss: isize, dst: *mut u8, ds: isize, stream: bool, m: M) {
    let row = |r: usize| src.wrapping_offset(r as isize * ss).cast::<__m128i>();
    // SAFETY: (whole body) 16-byte loads of the 32 source rows and 64-byte stores of the 8 destination rows, in
    // bounds by the contract; with `stream`, destination rows start on a line (contract).
    unsafe {
        // PERF: the rows in address order (rows 0..8 into lane 0, then 8..16 into lane 1, ...), not register by
        // register (rows k, k + 8, k + 16, k + 24: four lines 256 bytes apart for NHWC pixels of 16 f16 channels,
        // then back), which the prefetchers do not follow out of the caches. One thread, Zen 4 VM, streamed f16 NHWC
        // → NCHW into planes of 128², medians of 8 alternations (lower in n of 8): 16 channels × 16 images (the
        // public case) 718 → 409 µs (8), 32 × 8 1190 → 576 µs (8), 64 × 4 1120 → 804 µs (7). (`tile_stack_4`
        // likewise: f32 with 8, 16 and 32 channels tied, 3, 3 and 6 of 8.)
        let mut r = [_mm512_setzero_si512(); 8];
        for k in 0..8 {
            r[k] = _mm512_castsi128_si512(_mm_loadu_si128(row(k)));
        }
        for k in 0..8 {
            r[k] = _mm512_inserti32x4::<1>(r[k], _mm_loadu_si128(row(k + 8)));
        }
        for k in 0..8 {
            r[k] = _mm512_inserti32x4::<2>(r[k], _mm_loadu_si128(row(k + 16)));
        }
        for k in 0..8 {
            r[k] = _mm512_inserti32x4::<3>(r[k], _mm_loadu_si128(row(k + 24)));
        }
        let mut t = [_mm512_setzero_si512(); 8];
        for k in 0..4 {
            t[2 * k] = _mm512_unpacklo_epi16(r[2 * k], r[2 * k + 1]);
            t[2 * k + 1] = _mm512_unpackhi_epi16(r[2 * k], r[2 * k + 1]);
        }
        for h in 0..2 {
            for m in 0..2 {
                r[4 * h + 2 * m] = _mm512_unpacklo_epi32(t[4 * h + m], t[4 * h + 2 + m]);
                r[4 * h + 2 * m + 1] = _mm512_unpackhi_epi32(t[4 * h + m], t[4 * h + 2 + m]);
            }
        }
        // r[4h + q]: columns 2q and 2q + 1 of rows 4h..4h+4 of each lane's tile.
        for q in 0..4 {
            for (c, v) in
                [(2 * q, _mm512_unpacklo_epi64(r[q], r[4 + q])), (2 * q + 1, _mm512_unpackhi_epi64(r[q], r[4 + q]))]
            {
                put_line(dst.wrapping_offset(c as isize * ds), m.m512(v), stream);
            }
        }
    }
}

/// How one element width moves a [`WidePlanar`](crate::tables::WidePlanar) block: the permute instructions of
/// the width.
pub(super) trait WidePermute {
    /// Element width in bytes (the block is `64 / W` pixels).
    const W: usize;

    /// The elements of `a` then `b` picked by the indices of `idx`.
    ///
    /// # Safety
    ///
    /// The level of the implementation is available.
    unsafe fn permute2(a: __m512i, idx: __m512i, b: __m512i) -> __m512i;

    /// The elements of `b` where `mask` has a bit, of `a` elsewhere.
    ///
    /// # Safety
    ///
    /// The level of the implementation is available.
    unsafe fn blend(mask: u64, a: __m512i, b: __m512i) -> __m512i;

    /// Result register `i` of a move of `K` registers `r` (entries past `K` ignored), with `t`'s tables.
    ///
    /// # Safety
    ///
    /// The level of the implementation is available; `i < K`, 2 ≤ `K` ≤ 4.
    #[inline(always)]
    unsafe fn register<const K: usize>(t: &PlanarRegs<K>, i: usize, r: [__m512i; 4]) -> __m512i {
        // SAFETY: register operations of the level (contract).
        unsafe {
            let v = Self::permute2(r[0], t.lo[i], r[1]);
            if K > 2 { Self::blend(t.mask[i], v, Self::permute2(r[2], t.hi[i], r[3])) } else { v }
        }
    }
}

/// The tables of a [`WidePlanar`](crate::tables::WidePlanar) move of `K` planes, in registers for a whole call.
///
/// PERF: loaded per step, the tables were reloaded after every store (the compiler cannot rule out that a store
/// changes them) in a loop over a run-time plane count. One thread, VBMI: u8 NHWC → NCHW with 3 channels (public,
/// 4.6 MiB) 91–94 → 78–80 µs, one 224² image in L2 2.9–3.0 → 1.85–1.9 µs; u8 NCHW → NHWC 3 channels 86–87 → 76–78 µs,
/// 4 channels 115–120 → 104 µs; f16 NHWC → NCHW 4 channels (8 MiB) 194–213 → 147–157 µs, NCHW → NHWC 3 channels
/// (public, 24 MiB) 968–990 → 915–921 µs.
pub(super) struct PlanarRegs<const K: usize> {
    lo: [__m512i; K],
    hi: [__m512i; K],
    mask: [u64; K],
}

impl<const K: usize> PlanarRegs<K> {
    /// The first `K` registers' tables of `w`.
    ///
    /// # Safety
    ///
    /// AVX-512F available.
    #[inline(always)]
    pub(super) unsafe fn load(w: &crate::tables::WidePlanar) -> Self {
        // SAFETY: plain 64-byte loads of 64-byte tables (AVX-512F by the contract).
        let at = |t: &[u8; 64]| unsafe { _mm512_loadu_si512(t.as_ptr().cast()) };
        PlanarRegs {
            lo: core::array::from_fn(|i| at(&w.lo[i])),
            hi: core::array::from_fn(|i| at(&w.hi[i])),
            mask: core::array::from_fn(|i| w.hi_mask[i]),
        }
    }

    /// The `K` registers of a block of pixels from `base` (64 bytes each), the last repeated past `K` (entries
    /// [`WidePermute::register`] ignores).
    ///
    /// # Safety
    ///
    /// `64·K` readable bytes at `base`; AVX-512F available.
    #[inline(always)]
    pub(super) unsafe fn pixels(base: *const u8) -> [__m512i; 4] {
        // SAFETY: the K loads lie in the contract's bytes; AVX-512F by the contract.
        unsafe {
            let r0 = _mm512_loadu_si512(base.cast());
            let r1 = _mm512_loadu_si512(base.add(64).cast());
            let r2 = if K > 2 { _mm512_loadu_si512(base.add(128).cast()) } else { r1 };
            let r3 = if K > 3 { _mm512_loadu_si512(base.add(192).cast()) } else { r2 };
            [r0, r1, r2, r3]
        }
    }
}

/// Two-byte elements: `vpermt2w` (AVX-512BW).
pub(super) struct Words;

impl WidePermute for Words {
    const W: usize = 2;

    #[inline(always)]
    unsafe fn permute2(a: __m512i, idx: __m512i, b: __m512i) -> __m512i {
        // SAFETY: AVX-512BW (contract).
        unsafe { _mm512_permutex2var_epi16(a, idx, b) }
    }

    #[inline(always)]
    unsafe fn blend(mask: u64, a: __m512i, b: __m512i) -> __m512i {
        // SAFETY: AVX-512BW (contract); a block of 32 words has 32 mask bits.
        unsafe { _mm512_mask_blend_epi16(mask as __mmask32, a, b) }
    }
}

/// Four-byte elements: `vpermt2d` (AVX-512F).
pub(super) struct Dwords;

impl WidePermute for Dwords {
    const W: usize = 4;

    #[inline(always)]
    unsafe fn permute2(a: __m512i, idx: __m512i, b: __m512i) -> __m512i {
        // SAFETY: AVX-512F (contract).
        unsafe { _mm512_permutex2var_epi32(a, idx, b) }
    }

    #[inline(always)]
    unsafe fn blend(mask: u64, a: __m512i, b: __m512i) -> __m512i {
        // SAFETY: AVX-512F (contract); a block of 16 dwords has 16 mask bits.
        unsafe { _mm512_mask_blend_epi32(mask as __mmask16, a, b) }
    }
}

/// `f::<P, N, K>(args)` for the plane (or slot) count `planes` as the constant `K` (2 to 4), else 0 (no pixels done).
macro_rules! by_planes {
    ($planes:expr, $f:ident::<$p:ident, $n:ident>($($arg:expr),*)) => {
        match $planes {
            2 => $f::<$p, $n, 2>($($arg),*),
            3 => $f::<$p, $n, 3>($($arg),*),
            4 => $f::<$p, $n, 4>($($arg),*),
            _ => 0,
        }
    };
}

/// Deinterleaves `N`-byte pixels (`N == P::W`) of `t.slots` elements, `64 / N` pixels at a time: `slots` 64-byte
/// loads, one permuted register and one 64-byte store per plane; the rest through the SSSE3 kernel. Returns the
/// pixels done.
///
/// # Safety
///
/// As `Arch::deinterleave` for `N`-byte elements, with `t` built for them; the level of `P` available.
#[inline(always)]
pub(super) unsafe fn wide_deinterleave<P: WidePermute, const N: usize>(
    t: &crate::tables::Planar,
    src: *const u8,
    dst: *mut u8,
    plane_stride: isize,
    n: usize,
) -> usize {
    debug_assert_eq!(N, P::W);
    let a = (t, src, dst, plane_stride, n);
    // (Planes a constant apart from slots, as in the AVX2 kernel: this loop is small.)
    // SAFETY: forwarded contract, each loop with its slot and plane counts.
    let j = unsafe {
        match (t.slots, t.planes) {
            (2, 2) => deinterleave_blocks::<P, N, 2, 2>(a),
            (3, 3) => deinterleave_blocks::<P, N, 3, 3>(a),
            (4, 4) => deinterleave_blocks::<P, N, 4, 4>(a),
            (3, 2) => deinterleave_blocks::<P, N, 3, 2>(a),
            (4, 2) => deinterleave_blocks::<P, N, 4, 2>(a),
            (4, 3) => deinterleave_blocks::<P, N, 4, 3>(a),
            _ => 0,
        }
    };
    // SAFETY: the pixels from j (contract), output pixel j's channel 0 lying at `t.pixel(src, j)`.
    unsafe { j + super::x86::deinterleave::<N>(t, t.pixel(src, j), dst.wrapping_add(j * N), plane_stride, n - j) }
}

/// The whole blocks of [`wide_deinterleave`] for `K` slots and `Q` planes (`(t, src, dst, plane_stride, n)`);
/// returns the pixels done.
///
/// # Safety
///
/// As [`wide_deinterleave`], with `t.slots == K`, `t.planes == Q`.
#[inline(always)]
unsafe fn deinterleave_blocks<P: WidePermute, const N: usize, const K: usize, const Q: usize>(
    (t, src, dst, plane_stride, n): (&crate::tables::Planar, *const u8, *mut u8, isize, usize),
) -> usize {
    let e = 64 / N;
    let mut j = 0;
    // SAFETY: (whole body) AVX-512 by the contract; for each block of output pixels j..j+e, the block's 64·K bytes
    // from its lowest address are readable (contract) and elements j.. of every plane writable.
    unsafe {
        let regs = PlanarRegs::<K>::load(&t.wide);
        let at = t.steps(t.window(src), e, K * N);
        while j + e <= n {
            let px = PlanarRegs::<K>::pixels(at.at(j));
            for i in 0..Q {
                let v = P::register(&regs, i, px);
                _mm512_storeu_si512(dst.wrapping_offset(i as isize * plane_stride).add(j * N).cast(), v);
            }
            j += e;
        }
    }
    j
}

/// Interleaves `N`-byte planes (`N == P::W`) into pixels of `t.planes` channels, `64 / N` pixels at a time: one
/// 64-byte load per plane, one permuted register and one 64-byte store per output register; the rest through the
/// SSSE3 kernel. Returns the pixels done.
///
/// # Safety
///
/// As `Arch::interleave` for `N`-byte elements, with `t` built for them; the level of `P` available.
#[inline(always)]
pub(super) unsafe fn wide_interleave<P: WidePermute, const N: usize>(
    t: &crate::tables::Planar,
    src: *const u8,
    plane_stride: isize,
    dst: *mut u8,
    n: usize,
) -> usize {
    debug_assert_eq!(N, P::W);
    // SAFETY: forwarded contract, each loop with its plane count.
    let j = unsafe { by_planes!(t.planes, interleave_blocks::<P, N>(t, src, plane_stride, dst, n)) };
    let plane0 = src.wrapping_add(j * N);
    // SAFETY: the pixels from j (contract).
    unsafe { j + super::x86::interleave::<N>(t, plane0, plane_stride, dst.wrapping_add(j * t.planes * N), n - j) }
}

/// The whole blocks of [`wide_interleave`] for `K` planes; returns the pixels done.
///
/// # Safety
///
/// As [`wide_interleave`], with `t.planes == K`.
#[inline(always)]
unsafe fn interleave_blocks<P: WidePermute, const N: usize, const K: usize>(
    t: &crate::tables::Planar,
    src: *const u8,
    plane_stride: isize,
    dst: *mut u8,
    n: usize,
) -> usize {
    let e = 64 / N;
    let mut j = 0;
    // SAFETY: (whole body) AVX-512 by the contract; elements j..j+e of every plane are readable and the block's
    // 64·K output bytes writable (contract).
    unsafe {
        let regs = PlanarRegs::<K>::load(&t.wide);
        let plane = |k: usize, j: usize| src.wrapping_offset(k as isize * plane_stride).wrapping_add(j * N);
        while j + e <= n {
            let r0 = _mm512_loadu_si512(plane(0, j).cast());
            let r1 = _mm512_loadu_si512(plane(1, j).cast());
            let r2 = if K > 2 { _mm512_loadu_si512(plane(2, j).cast()) } else { r1 };
            let r3 = if K > 3 { _mm512_loadu_si512(plane(3, j).cast()) } else { r2 };
            for i in 0..K {
                let v = P::register(&regs, i, [r0, r1, r2, r3]);
                _mm512_storeu_si512(dst.add(j * K * N + 64 * i).cast(), v);
            }
            j += e;
        }
    }
    j
}

/// [`Arch::rows_u8_q7`] with AVX-512: [`wide::rows_u8_q7`] over 64-byte registers; rows shorter than 64 bytes
/// through the AVX2 registers.
///
/// # Safety
///
/// As `Arch::rows_u8_q7`; AVX-512 F/BW available.
#[inline(always)]
unsafe fn avx512_rows_u8_q7(src: *const u8, step: isize, w: super::RowWeights<'_>, n: usize, out: *mut i16) {
    // SAFETY: forwarded contract (n ≥ 64 for the registers); AVX2 is implied by the level.
    unsafe {
        if n < 64 {
            super::x86::avx2_rows_u8_q7(src, step, w, n, out)
        } else {
            wide::rows_u8_q7::<Avx512>(src, step, w, n, out)
        }
    }
}
