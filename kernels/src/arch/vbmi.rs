//! x86-64-v4 plus AVX-512 VBMI: the V4 level with 64-byte byte-permute lanes. pulp has no such level, so this is
//! the one hand-written target-feature entry.

use core::arch::x86_64::*;

use pulp::NullaryFnOnce;

use super::v4::V4;
use super::{Arch, Isa, Span};
use crate::tables::{BlockShuffle, WideShuffle, block_pair};

/// Proof that the CPU runs x86-64-v4 *and* AVX-512 VBMI (pulp's `V4` does not include VBMI).
#[derive(Clone, Copy, Debug)]
pub(crate) struct V4Vbmi(V4);

impl V4Vbmi {
    /// The token, if this CPU has both.
    pub(crate) fn try_new() -> Option<V4Vbmi> {
        let v4 = V4::try_new()?;
        std::arch::is_x86_feature_detected!("avx512vbmi").then_some(V4Vbmi(v4))
    }
}

/// Forwards a method to the V4 token (V4 ⊂ V4Vbmi). Generics: `<N: usize>` const parameters, then after `;` type
/// parameters with one bound each (`<N: usize; M: Bound>`).
macro_rules! forward {
    ($(
        unsafe fn $m:ident $(<$($g:ident: $gt:ty),* $(; $($tg:ident: $tb:path),*)?>)?
            (self $(, $a:ident: $t:ty)*) $(-> $r:ty)?;
    )*) => {$(
        #[inline(always)]
        unsafe fn $m $(<$(const $g: $gt),* $($(, $tg: $tb)*)?>)? (self $(, $a: $t)*) $(-> $r)? {
            // SAFETY: forwarded contract; V4 ⊂ V4Vbmi.
            unsafe { self.0.$m $(::<$($g),* $($(, $tg)*)?>)? ($($a),*) }
        }
    )*};
}

// SAFETY: a `V4Vbmi` exists only when V4 and VBMI were detected (or are assumed by the caller of `assume`).
unsafe impl Arch for V4Vbmi {
    const ISA: Isa = Isa::V4Vbmi;
    const BYTES: usize = 64;
    type Reg = __m512i;
    type Base = V4;

    #[inline(always)]
    fn base(self) -> V4 {
        self.0
    }

    #[inline(always)]
    unsafe fn assume() -> Self {
        // SAFETY: the caller guarantees the level.
        V4Vbmi(unsafe { V4::assume() })
    }

    #[inline(always)]
    fn vectorize<F: NullaryFnOnce>(self, f: F) -> F::Output {
        // pulp's V4 feature list plus VBMI.
        #[target_feature(enable = "sse3,ssse3,sse4.1,sse4.2,popcnt,avx,avx2,bmi1,bmi2,fma,lzcnt")]
        #[target_feature(enable = "avx512f,avx512bw,avx512cd,avx512dq,avx512vl,avx512vbmi")]
        #[inline]
        unsafe fn imp<F: NullaryFnOnce>(f: F) -> F::Output {
            f.call()
        }
        // SAFETY: the token proves every enabled feature.
        unsafe { imp(f) }
    }

    // PERF: `deinterleave_convert` is V4's but for one-byte pixels into f16 planes (below): a VBMI variant of the
    // arithmetic kernel (one masked load of the step, one zero-masking `vpermb` per plane) ran 12% slower than
    // V4's four 16-byte windows and `vpshufb` on Zen 5.
    forward! {
        unsafe fn load(self, p: *const u8) -> __m512i;
        unsafe fn store(self, p: *mut u8, v: __m512i);
        unsafe fn stream(self, p: *mut u8, v: __m512i);
        unsafe fn load_part(self, p: *const u8, lo: usize, hi: usize) -> Option<__m512i>;
        unsafe fn store_part(self, p: *mut u8, v: __m512i, n: usize) -> bool;
        unsafe fn small_copy(self, src: *const u8, dst: *mut u8, n: usize);
        unsafe fn shuffle_lanes(self, s: &crate::tables::Shuffle, src: *const u8, src_step: isize, dst: *mut u8, dst_step: usize, lanes: usize) -> usize;
        unsafe fn shift_blends(self, t: &crate::tables::ShiftBlend, src: *const u8, dst: *mut u8, n: usize) -> usize;
        unsafe fn table_pairs(self, pairs: &[crate::tables::LanePair], src: *const u8, src_step: isize, dst: *mut u8, dst_step: usize, rows: usize) -> usize;
        unsafe fn tile8<N: usize; M: super::TileMap>(self, src: *const u8, ss: isize, dst: *mut u8, ds: isize, m: M);
        unsafe fn taps_pairs<G: usize>(self, src: *const i16, step: usize, pairs: &[i32], out: &mut [[i32; 16]; G]);
        unsafe fn pair_bytes(self, a: *const u8, b: *const u8, out: *mut i16);
        unsafe fn taps_i16<G: usize>(self, src: *const i16, step: usize, pairs: &[i32], out: &mut [[i32; 16]; G]);
        unsafe fn rows_u8_q7(self, src: *const u8, step: isize, w: super::RowWeights<'_>, n: usize, out: *mut i16);
        unsafe fn sampled_row_u8(self, p: &super::PixelPairs<'_>, out: &mut [f32]);
        unsafe fn tile16x32_u8(self, src: *const u8, ss: isize, dst: *mut u8);
        unsafe fn tile<N: usize; M: super::TileMap>(self, src: *const u8, ss: isize, dst: *mut u8, ds: isize, stream: bool, m: M);
        unsafe fn tile_stack<N: usize; M: super::TileMap>(self, src: *const u8, ss: isize, dst: *mut u8, ds: isize, stream: bool, m: M);
        unsafe fn tile_run<N: usize; M: super::TileMap>(self, run: super::TileRun, stream: bool, m: M);
        unsafe fn tile_part<N: usize; M: super::TileMap>(self, src: *const u8, ss: isize, dst: *mut u8, ds: isize, rows: usize, cols: usize, m: M) -> bool;
        unsafe fn tiles_f32_to_f16(self, src: *const u8, si: isize, dst: *mut u8, dj: isize, ni: usize, nj: usize, stream: bool);
        unsafe fn f16_to_f32(self, src: *const u8, dst: *mut u8, n: usize) -> usize;
        unsafe fn f32_to_f16(self, src: *const u8, dst: *mut u8, n: usize) -> usize;
        unsafe fn f64_to_f32_odd(self, src: *const u8, dst: *mut u8, n: usize) -> usize;
        unsafe fn f32_to_u8_half_up(self, src: *const u8, dst: *mut u8, n: usize) -> usize;
        unsafe fn affine_f16(self, src: *const u8, dst: *mut u8, n: usize, scale: f32, bias: f32) -> usize;
    }

    /// Four lanes a step: one masked 64-byte load of their input bytes, one `vpermb`, one byte-masked 64-byte store
    /// (`Spread::wide_ctl`); the rest as V4 (16-byte lanes).
    ///
    /// PERF: one thread, Zen 4, u8 NHWC 8×128²×3 normalized into RGBX slots, three alternations: f32 (one 16-byte
    /// lane a pixel) 68.1 → 47.7 µs, f16 51.6 → 41.3 µs, u8 26.9 → 21.7 µs.
    #[inline(always)]
    unsafe fn spread_lanes(self, t: &crate::tables::Spread, src: *const u8, dst: *mut u8, lanes: usize) -> usize {
        let (load, store) = (4 * t.elems * t.width, 4 * t.elems * t.step as usize);
        // (load ≤ 64: elems·width ≤ elems·step ≤ 16.)
        let keep = if load >= 64 { u64::MAX } else { (1u64 << load) - 1 };
        // SAFETY: block w covers lanes 4w..4w+4, whose input bytes (`load` from the block's first: the masked load
        // reads no other) and slots lie in the row (contract); AVX-512 BW and VBMI via the token.
        unsafe {
            let ctl = _mm512_loadu_si512(t.wide_ctl.as_ptr().cast());
            for w in 0..lanes / 4 {
                let v = _mm512_maskz_loadu_epi8(keep, src.add(w * load).cast());
                _mm512_mask_storeu_epi8(dst.add(w * store).cast(), t.wide_mask, _mm512_permutexvar_epi8(ctl, v));
            }
            let done = lanes / 4 * 4;
            let (from, to) = (done * t.elems * t.width, done * t.elems * t.step as usize);
            done + self.0.spread_lanes(t, src.add(from), dst.add(to), lanes - done)
        }
    }

    #[inline(always)]
    fn tile_shape<const N: usize>() -> (usize, usize) {
        V4::tile_shape::<N>()
    }

    #[inline(always)]
    fn stack_tiles<const N: usize>() -> bool {
        V4::stack_tiles::<N>()
    }

    /// One-byte pixels 64 at a time through byte permutes (V4's loop with [`Bytes`]); two-byte ones as V4 moves
    /// them; the rest with SSSE3.
    ///
    /// PERF: V4's 16-byte `pshufb` kernel spends 7 instructions per 16 pixels and plane on 3 planes and was
    /// instruction-bound: u8 NHWC → NCHW with 3 channels 119–175 → 105–122 µs (one thread, 4.6 MiB), 4 channels
    /// 137–162 → 90–105 µs, 2 channels 134 → 75–81 µs.
    #[inline(always)]
    unsafe fn deinterleave<const N: usize>(
        self,
        t: &crate::tables::Planar,
        src: *const u8,
        dst: *mut u8,
        plane_stride: isize,
        n: usize,
    ) -> usize {
        if N == 1 {
            // SAFETY: forwarded contract; VBMI via the token.
            unsafe { super::v4::wide_deinterleave::<Bytes, N>(t, src, dst, plane_stride, n) }
        } else {
            // SAFETY: forwarded contract.
            unsafe { self.0.deinterleave::<N>(t, src, dst, plane_stride, n) }
        }
    }

    /// One-byte inputs into f16, runs of 4096 elements or more through a table of the 256 results
    /// ([`normalize_f16_run`]); into one-byte integers, through a table of the 256 result bytes
    /// ([`bytes_by_table`]); then V4's kernel (into f32, and float inputs, as V4 converts them). Whole 64-element
    /// blocks keep a streamed `dst` aligned for V4's.
    #[inline(always)]
    unsafe fn normalize_run(self, k: super::Norm, s: Span, scale: f32, bias: f32) -> usize {
        let Span { src, dst, n, stream } = s;
        let j = match k.out {
            _ if !k.bytes() => 0,
            // SAFETY: forwarded contract; VBMI via the token.
            super::NormType::F16 if n >= TABLE_MIN_ELEMENTS => unsafe {
                normalize_f16_run(k.signed(), src, dst, n, scale, bias, stream)
            },
            // SAFETY: as above.
            super::NormType::U8 | super::NormType::I8 if n >= BYTE_TABLE_MIN => unsafe {
                bytes_by_table::<1>(self.0, k, src, dst, n, &[[scale, bias]], 0, stream)
            },
            _ => 0,
        };
        let rest = dst.wrapping_add(k.out.width() * j);
        // SAFETY: forwarded contract for elements j..n (one-byte inputs when j > 0; j a multiple of 64).
        j + unsafe { self.0.normalize_run(k, Span { src: src.add(j), dst: rest, n: n - j, stream }, scale, bias) }
    }

    /// Into one-byte integers with a pattern of 1 to 4 channels, through a table of the 256 result bytes per
    /// channel: the pattern's own (made with the plan, [`Periodic::byte_tables`](crate::tables::Periodic::byte_tables))
    /// on any run, else built per call on long runs ([`bytes_by_table`]); the rest (and every other case) as V4
    /// converts them.
    #[inline(always)]
    unsafe fn normalize_periodic(self, k: super::Norm, s: Span, p: &crate::tables::Periodic, phase: usize) -> usize {
        let Span { src, dst, n, stream } = s;
        let mut j = 0;
        let made = k.byte_signs().and_then(|signs| p.byte_tables(signs));
        if let Some(tables) = made {
            // The pattern's tables, made with the plan: any run, however short.
            // SAFETY: forwarded contract; VBMI via the token; one table per channel of the pattern.
            j = unsafe {
                match tables.len() {
                    1 => bytes_through::<1>(tables, src, dst, n, phase, stream),
                    2 => bytes_through::<2>(tables, src, dst, n, phase, stream),
                    3 => bytes_through::<3>(tables, src, dst, n, phase, stream),
                    4 => bytes_through::<4>(tables, src, dst, n, phase, stream),
                    _ => 0,
                }
            };
        } else if k.bytes() && matches!(k.out, super::NormType::U8 | super::NormType::I8) && n >= BYTE_TABLE_MIN {
            // The pattern's channels: the shortest repeat of its pairs (1 to 4 of them, or none found).
            let pairs = &p.pairs()[..p.period()];
            let channels = (1..=4usize).find(|&c| pairs.iter().enumerate().all(|(i, &x)| pairs[i % c] == x));
            // SAFETY: forwarded contract; VBMI via the token; `pairs` has at least `c` entries (period ≥ 16).
            j = unsafe {
                match channels {
                    Some(1) => bytes_by_table::<1>(self.0, k, src, dst, n, &pairs[..1], phase, stream),
                    Some(2) => bytes_by_table::<2>(self.0, k, src, dst, n, &pairs[..2], phase, stream),
                    Some(3) => bytes_by_table::<3>(self.0, k, src, dst, n, &pairs[..3], phase, stream),
                    Some(4) => bytes_by_table::<4>(self.0, k, src, dst, n, &pairs[..4], phase, stream),
                    _ => 0,
                }
            };
        }
        let rest = Span { src: src.wrapping_add(j), dst: dst.wrapping_add(j), n: n - j, stream };
        // SAFETY: forwarded contract for elements j..n (one byte each when j > 0; j a multiple of 64), which take
        // the pattern from `phase + j` on.
        j + unsafe { self.0.normalize_periodic(k, rest, p, phase.wrapping_add(j)) }
    }

    /// V4's (the same out-of-line function), but for one-byte integers into one-byte integers, and rows of single
    /// elements into f16: read through a buffer, their lookups in the tables of `normalize_periodic` and
    /// `normalize_run` beat V4's arithmetic (PERF, one thread, Zen 4, u8 8×128²×3 mirrored into u8 NHWC: 25.5 µs so,
    /// 55.4 µs through V4's kernel; BGR → RGB 21.4 against 39.1 µs; u8 8×3×128² NCHW with mirrored rows into f16
    /// 36–48 µs so, 48–63 µs through V4's kernel). Except subsampled rows of single elements (an NCHW image read at
    /// stride 2): the buffer is filled a row at a time, and its gathers of short rows cost more than the lookups
    /// save (PERF, one thread, Zen 4, u8 8×3×128² NCHW at H, W stride 2: into u8 9.4 → 5.3 µs through V4's kernel,
    /// into f16 10.4 → 4.9 µs; AVX2 6.5 and 6.6 µs).
    #[inline(always)]
    unsafe fn convert_windows(
        self,
        k: super::Norm,
        w: &crate::tables::PixelWindows,
        s: Span,
        rows: super::RowRun,
        pairs: super::WindowPairs<'_>,
    ) -> usize {
        let subsampled = w.channels == 1 && w.step > 1;
        if (k.bytes_to_bytes() || (k.out == super::NormType::F16 && w.channels == 1)) && !subsampled {
            return 0;
        }
        // SAFETY: forwarded contract; VBMI implies V4's features.
        unsafe { super::v4::avx512_convert_windows(k, w, s, rows, pairs) }
    }

    /// One-byte pixels into f16 planes through per-plane tables of the 256 results ([`normalize_f16_by_table`]),
    /// into one-byte planes through per-plane tables of the 256 result bytes ([`planes_by_table`]), on runs long
    /// enough to pay for the tables; then V4's kernel, which converts everything else.
    #[inline(always)]
    unsafe fn deinterleave_convert(
        self,
        k: super::FusedConvert,
        t: &crate::tables::Planar,
        s: Span,
        plane_stride: isize,
        params: &[[f32; 2]; 4],
        rows: super::RowRun,
    ) -> usize {
        let Span { src, dst, n, stream } = s;
        let ps = plane_stride;
        let mut j = 0;
        if let super::FusedConvert::Bytes(b) = k
            && b.out.width() == 1
            && t.width == 1
            && !t.interleave
            && n.saturating_mul(rows.count) >= BYTE_TABLE_MIN
        {
            // SAFETY: forwarded contract (one-byte pixels of `t.slots` slots into one-byte planes); VBMI via the
            // token.
            j = unsafe {
                match (t.slots, stream) {
                    (2, false) => planes_by_table::<2, false>(self.0, b, t, src, dst, ps, n, params, rows),
                    (3, false) => planes_by_table::<3, false>(self.0, b, t, src, dst, ps, n, params, rows),
                    (4, false) => planes_by_table::<4, false>(self.0, b, t, src, dst, ps, n, params, rows),
                    (2, true) => planes_by_table::<2, true>(self.0, b, t, src, dst, ps, n, params, rows),
                    (3, true) => planes_by_table::<3, true>(self.0, b, t, src, dst, ps, n, params, rows),
                    (4, true) => planes_by_table::<4, true>(self.0, b, t, src, dst, ps, n, params, rows),
                    _ => 0,
                }
            };
        }
        if let super::FusedConvert::Bytes(b) = k
            && b.out == super::NormType::F16
            && t.width == 1
            && !t.interleave
            && n.saturating_mul(rows.count) >= TABLE_MIN_PIXELS
        {
            // SAFETY: forwarded contract (one-byte pixels of `t.slots` slots); VBMI via the token.
            j = unsafe {
                match (t.slots, stream) {
                    (2, false) => normalize_f16_by_table::<2, false>(b, t, src, dst, ps, n, params, rows),
                    (3, false) => normalize_f16_by_table::<3, false>(b, t, src, dst, ps, n, params, rows),
                    (4, false) => normalize_f16_by_table::<4, false>(b, t, src, dst, ps, n, params, rows),
                    (2, true) => normalize_f16_by_table::<2, true>(b, t, src, dst, ps, n, params, rows),
                    (3, true) => normalize_f16_by_table::<3, true>(b, t, src, dst, ps, n, params, rows),
                    (4, true) => normalize_f16_by_table::<4, true>(b, t, src, dst, ps, n, params, rows),
                    _ => 0,
                }
            };
        }
        // The rest of every row: output pixel j and element j of every plane (j > 0 only for one-byte pixels).
        let ow = if let super::FusedConvert::Bytes(b) = k { b.out.width() } else { 0 };
        // SAFETY: forwarded contract for pixels j..n of each row.
        j + unsafe {
            let rest = Span { src: t.pixel(src, j), dst: dst.wrapping_add(ow * j), n: n - j, stream };
            self.0.deinterleave_convert(k, t, rest, ps, params, rows)
        }
    }

    /// One-byte planes 64 pixels at a time through byte permutes (V4's loop with [`Bytes`]); two-byte ones as
    /// V4 moves them; the rest with SSSE3.
    ///
    /// PERF: u8 NCHW → NHWC (4.6 MiB, one thread) with 3 channels 113 → 92 µs, 4 channels 134–138 → 77 µs, 2
    /// channels 76–79 → 69 µs.
    #[inline(always)]
    unsafe fn interleave<const N: usize>(
        self,
        t: &crate::tables::Planar,
        src: *const u8,
        plane_stride: isize,
        dst: *mut u8,
        n: usize,
    ) -> usize {
        if N == 1 {
            // SAFETY: forwarded contract; VBMI via the token.
            unsafe { super::v4::wide_interleave::<Bytes, N>(t, src, plane_stride, dst, n) }
        } else {
            // SAFETY: forwarded contract.
            unsafe { self.0.interleave::<N>(t, src, plane_stride, dst, n) }
        }
    }

    #[inline(always)]
    fn reverses(n: usize) -> bool {
        V4::reverses(n)
    }

    #[inline(always)]
    fn reverse<const N: usize>(self, v: __m512i) -> __m512i {
        self.0.reverse::<N>(v)
    }

    #[inline(always)]
    fn picks(n: usize) -> bool {
        V4::picks(n)
    }

    #[inline(always)]
    fn pick2<const N: usize, const NEG: bool>(self, a: __m512i, b: __m512i) -> __m512i {
        self.0.pick2::<N, NEG>(a, b)
    }

    #[inline(always)]
    unsafe fn block_lanes(
        self,
        s: &BlockShuffle,
        src: *const u8,
        src_step: isize,
        dst: *mut u8,
        count: usize,
    ) -> usize {
        // SAFETY: forwarded contract, each loop with its width; VBMI via the token.
        unsafe {
            match (s.width, s.stride < 0) {
                (3, false) => blocks::<3, false>(s, src, src_step, dst, count),
                (3, true) => blocks::<3, true>(s, src, src_step, dst, count),
                (6, false) => blocks::<6, false>(s, src, src_step, dst, count),
                (6, true) => blocks::<6, true>(s, src, src_step, dst, count),
                _ => return 0,
            }
        }
        count
    }

    /// Prefetches (with `far`) only for lanes that do not read whole groups of four lines (stride-3 gathers: 192
    /// bytes a lane): see [`wide`].
    #[inline(always)]
    unsafe fn wide_lanes(
        self,
        s: &WideShuffle,
        src: *const u8,
        src_step: isize,
        dst: *mut u8,
        dst_step: usize,
        lanes: usize,
        far: bool,
    ) -> usize {
        let ahead = match far && src_step % 256 != 0 {
            true if src_step < 0 => -crate::params::WIDE_PREFETCH_AHEAD,
            true => crate::params::WIDE_PREFETCH_AHEAD,
            false => 0,
        };
        // SAFETY: forwarded contract; VBMI via the token.
        unsafe {
            // One-window lanes of fewer than 64 bytes (21 three-byte pixels) store only their own bytes; two-window
            // ones store whole lanes, the next lane rewriting the excess (a third instance of the loop cost the i8
            // stride-3 gather's two-window loop 1.97 → 2.70 µs on 256 KiB in L2, from code placement alone).
            match (s.windows, s.elems * s.width < 64, ahead != 0) {
                (1, false, _) => wide::<1, false, false>(s, src, src_step, dst, dst_step, lanes, 0),
                (1, true, _) => wide::<1, true, false>(s, src, src_step, dst, dst_step, lanes, 0),
                (2, _, false) => wide::<2, false, false>(s, src, src_step, dst, dst_step, lanes, 0),
                (2, _, true) => wide::<2, false, true>(s, src, src_step, dst, dst_step, lanes, ahead),
                _ => return 0,
            }
        }
        lanes
    }
}

/// The block loop of [`Arch::block_lanes`] for blocks of `R` registers, of a reversed row with `REV`.
///
/// PERF: the windows' registers are constants ([`block_pair`]): indexed at run time, the block's registers went
/// through the stack (a BGR → RGB swap of eight 1080p rows, 45 KiB in L2, took 737 ns against 559 ns through
/// 21-pixel lanes; with constant registers 476–482 ns).
///
/// # Safety
///
/// As `Arch::block_lanes`, with `s.width == R` and `s.stride < 0` exactly when `REV`; AVX-512 VBMI available.
#[inline(always)]
unsafe fn blocks<const R: usize, const REV: bool>(
    s: &BlockShuffle,
    src: *const u8,
    src_step: isize,
    dst: *mut u8,
    count: usize,
) {
    let idx: [[__m512i; 2]; R] = core::array::from_fn(|o| {
        core::array::from_fn(|w| {
            // SAFETY: a plain 64-byte load of a 64-byte table.
            unsafe { _mm512_loadu_si512(s.outs[o].idx[w].as_ptr().cast()) }
        })
    });
    // PERF: in locals, as in `wide`.
    let two: [bool; R] = core::array::from_fn(|o| s.outs[o].windows == 2);
    let sel: [u64; R] = core::array::from_fn(|o| s.outs[o].sel);
    let mut p = src.wrapping_offset(s.base);
    let mut d = dst;
    for _ in 0..count {
        // SAFETY: block b's input is exactly its 64 elements' R·64 bytes from p (|stride| = 1), and its output the
        // R·64 bytes from d, inside the row (contract).
        unsafe {
            let r: [__m512i; R] = core::array::from_fn(|i| _mm512_loadu_si512(p.add(64 * i).cast()));
            for o in 0..R {
                let a = block_pair(o, R, REV);
                let mut acc = _mm512_permutex2var_epi8(r[a], idx[o][0], r[a + 1]);
                if two[o] {
                    // (Two windows only below the top pair: the clamp is for the compiler.)
                    let hi = _mm512_permutex2var_epi8(r[a + 1], idx[o][1], r[(a + 2).min(R - 1)]);
                    acc = _mm512_mask_blend_epi8(sel[o], acc, hi);
                }
                _mm512_storeu_si512(d.add(64 * o).cast(), acc);
            }
        }
        p = p.wrapping_offset(src_step);
        d = d.wrapping_add(64 * R);
    }
}

/// The 64-byte lane loop: each window is two 64-byte loads permuted by `vpermt2b`, windows merged by mask blends;
/// with `PARTIAL`, each lane stores only its own `elems · width` bytes (a masked store). With `PREFETCH`, each
/// window first prefetches the line `ahead` bytes past its start (a hint: any address).
///
/// PERF: a lane of 21 three-byte pixels stored whole (64 bytes, the last one rewritten by the next lane) ran the
/// public 720p BGR → RGB swap in 51.7–52.1 µs, stored masked in 42.2–42.8 µs (one thread, tight loops); whole
/// lanes keep plain stores, which a full mask slowed (i8 stride 3 in L2: 2.1 → 2.8 µs).
///
/// PERF (prefetch): one thread, Zen 4 VM, interleaved rounds (the input comes from memory), medians of 7: the public
/// i8 4096² inner-stride-3 gather ran 502 µs through these lanes against 343–370 µs through V4's 16-byte lanes,
/// whose longer loop leaves the hardware prefetchers time; prefetching each window's line 16 KiB ahead, 394 µs (two
/// threads 244 → 160 µs); u16 4096² stride 3 1179 → 1083 µs (tight loops, input in L3 and beyond: 1072 → 878).
/// Prefetching lanes of whole groups of four lines (stride 4, 256 bytes a lane) lost (i8 4096² 201 → 255 µs in L3),
/// and so did walks the caches hold (i8 1024² stride 3 in L3: 15.6 → 17.6 µs): hence `far` and the step test. A
/// run-time test of `ahead` in this loop (no `PREFETCH` instance) slowed the stride-4 lanes it never prefetches
/// (i8 4096², 242 → 303 µs).
///
/// # Safety
///
/// As `Arch::wide_lanes`; AVX-512 VBMI available.
#[inline(always)]
unsafe fn wide<const W: usize, const PARTIAL: bool, const PREFETCH: bool>(
    s: &WideShuffle,
    src: *const u8,
    src_step: isize,
    dst: *mut u8,
    dst_step: usize,
    lanes: usize,
    ahead: isize,
) {
    // SAFETY: plain 64-byte loads of the tables.
    let idx: [__m512i; W] = core::array::from_fn(|w| unsafe { _mm512_loadu_si512(s.masks[w].as_ptr().cast()) });
    // PERF: in locals, or every lane reloads them after its store (the compiler cannot rule out aliasing).
    let off: [isize; W] = core::array::from_fn(|w| s.win_off[w]);
    let sel: [u64; W] = core::array::from_fn(|w| s.sel[w]);
    // The lane's own bytes (fewer than 64 only when PARTIAL).
    let keep = u64::MAX.checked_shr(64u32.saturating_sub((s.elems * s.width) as u32)).unwrap_or(0);
    let mut p = src;
    let mut d = dst;
    for _ in 0..lanes {
        // SAFETY: every lane starts at an element j ≤ n - slack, so both 64-byte halves of each 128-byte window and
        // the 64-byte store stay inside the row (WideShuffle::slack).
        unsafe {
            let w0 = p.wrapping_offset(off[0]);
            if PREFETCH {
                _mm_prefetch::<_MM_HINT_T0>(w0.wrapping_offset(ahead).cast());
            }
            let mut acc =
                _mm512_permutex2var_epi8(_mm512_loadu_si512(w0.cast()), idx[0], _mm512_loadu_si512(w0.add(64).cast()));
            #[allow(clippy::needless_range_loop)]
            for w in 1..W {
                let wp = p.wrapping_offset(off[w]);
                if PREFETCH {
                    _mm_prefetch::<_MM_HINT_T0>(wp.wrapping_offset(ahead).cast());
                }
                let r = _mm512_permutex2var_epi8(
                    _mm512_loadu_si512(wp.cast()),
                    idx[w],
                    _mm512_loadu_si512(wp.add(64).cast()),
                );
                acc = _mm512_mask_blend_epi8(sel[w], acc, r);
            }
            if PARTIAL {
                _mm512_mask_storeu_epi8(d.cast(), keep, acc);
            } else {
                _mm512_storeu_si512(d.cast(), acc);
            }
        }
        p = p.wrapping_offset(src_step);
        d = d.wrapping_add(dst_step);
    }
}

/// One-byte elements: `vpermt2b` (AVX-512 VBMI).
struct Bytes;

impl super::v4::WidePermute for Bytes {
    const W: usize = 1;

    #[inline(always)]
    unsafe fn permute2(a: __m512i, idx: __m512i, b: __m512i) -> __m512i {
        // SAFETY: AVX-512 VBMI (contract).
        unsafe { _mm512_permutex2var_epi8(a, idx, b) }
    }

    #[inline(always)]
    unsafe fn blend(mask: u64, a: __m512i, b: __m512i) -> __m512i {
        // SAFETY: AVX-512BW (contract).
        unsafe { _mm512_mask_blend_epi8(mask, a, b) }
    }
}

/// Pixels a run must have for [`normalize_f16_by_table`] to build its tables (about 100 vector instructions per
/// plane).
const TABLE_MIN_PIXELS: usize = 1024;

/// Elements a run must have for [`bytes_by_table`] to build its tables (each costs 16 of V4's 16-element steps).
const BYTE_TABLE_MIN: usize = 2048;

/// One-byte values normalized into one-byte integers (`k.out` is `U8` or `I8`), 64 at a time, through a table of
/// the 256 results for each of the `C` channels: element `i` of the call takes channel `(phase + i) mod C`'s pair
/// in `pairs`. V4's kernel computes the tables, so the results are its results. Returns the elements done (whole
/// blocks of 64, [`bytes_through`]; 0 when a table could not be computed).
///
/// # Safety
///
/// As `Arch::normalize_run` into one-byte integers (with `stream`, `dst` a multiple of 64); AVX-512 F/BW and VBMI
/// available; `pairs` holds `C` pairs.
#[inline(always)]
#[allow(clippy::too_many_arguments)]
unsafe fn bytes_by_table<const C: usize>(
    v4: V4,
    k: super::Norm,
    src: *const u8,
    dst: *mut u8,
    n: usize,
    pairs: &[[f32; 2]],
    phase: usize,
    stream: bool,
) -> usize {
    let Some(tables) = result_tables::<C>(v4, k, pairs) else { return 0 };
    // SAFETY: forwarded contract; C tables.
    unsafe { bytes_through::<C>(&tables, src, dst, n, phase, stream) }
}

/// The 256 one-byte results of each of the first `C` pairs (`k.out` is `U8` or `I8`), by input byte, computed with
/// V4's kernel over [`RAMP`](super::RAMP) (so the results are its results); `None` if it left any undone. (Inlined
/// into its callers, inside their target features.)
#[inline(always)]
fn result_tables<const C: usize>(v4: V4, k: super::Norm, pairs: &[[f32; 2]]) -> Option<[[u8; 256]; C]> {
    let mut tables = [[0u8; 256]; C];
    for (table, &[scale, bias]) in tables.iter_mut().zip(pairs) {
        // SAFETY: 256 bytes in, 256 one-byte results out; the token proves V4.
        let done = unsafe {
            v4.normalize_run(
                k,
                Span { src: super::RAMP.as_ptr(), dst: table.as_mut_ptr(), n: 256, stream: false },
                scale,
                bias,
            )
        };
        if done != 256 {
            return None;
        }
    }
    Some(tables)
}

/// The `C` tables of 256 bytes in registers, four of 64 bytes each, for [`look_up`].
///
/// # Safety
///
/// `tables` holds at least `C` tables; AVX-512F available.
#[inline(always)]
unsafe fn table_registers<const C: usize>(tables: &[[u8; 256]]) -> [[__m512i; 4]; C] {
    // SAFETY: loads inside the tables; AVX-512F (contract). (A loop, not `array::from_fn`: its closure may stay
    // out of line, outside the target features.)
    unsafe {
        let mut t = [[_mm512_setzero_si512(); 4]; C];
        for (regs, table) in t.iter_mut().zip(tables) {
            for (q, reg) in regs.iter_mut().enumerate() {
                *reg = _mm512_loadu_si512(table[64 * q..].as_ptr().cast());
            }
        }
        t
    }
}

/// Lane masks of patterns of 1 to 4 channels: bit `l` of `LANE_MASKS[C][r][ch]` is set when element `l` of a
/// 64-element block whose first element is of channel `r` is of channel `ch` (`(r + l) mod C = ch`). (Computed per
/// call, they were a 1024-step loop.)
static LANE_MASKS: [[[u64; 4]; 4]; 5] = {
    let mut m = [[[0u64; 4]; 4]; 5];
    let mut c = 1;
    while c <= 4 {
        let mut r = 0;
        while r < c {
            let mut l = 0;
            while l < 64 {
                m[c][r][(r + l) % c] |= 1 << l;
                l += 1;
            }
            r += 1;
        }
        c += 1;
    }
    m
};

/// One-byte values looked up 64 at a time in `C` tables of 256 result bytes: element `i` of the call in table
/// `(phase + i) mod C`. Returns the elements done (whole blocks of 64).
///
/// PERF: a block is `C` lookups (two `vpermi2b` and a blend each) and `C − 1` blends, where V4's arithmetic spends
/// about 8 instructions per 16 elements.
///
/// # Safety
///
/// `n` readable bytes at `src`, `n` writable at `dst` (a multiple of 64 with `stream`); AVX-512 F/BW and VBMI
/// available; `tables` holds `C` tables.
#[inline(always)]
unsafe fn bytes_through<const C: usize>(
    tables: &[[u8; 256]],
    src: *const u8,
    dst: *mut u8,
    n: usize,
    phase: usize,
    stream: bool,
) -> usize {
    assert!(tables.len() >= C && (1..=4).contains(&C));
    let masks = &LANE_MASKS[C];
    let blocks = n / 64;
    // SAFETY: register operations of AVX-512 F/BW/VBMI (contract); table loads inside `tables` (C of them,
    // asserted); block b reads bytes 64b..64b+64 and writes elements 64b..64b+64, in bounds (64b + 64 ≤ n).
    unsafe {
        let t = table_registers::<C>(tables);
        let mut r = phase % C;
        for b in 0..blocks {
            let idx = _mm512_loadu_si512(src.add(64 * b).cast());
            let top = _mm512_movepi8_mask(idx);
            let mut y = look_up(&t[0], idx, top);
            for (ch, tc) in t.iter().enumerate().skip(1) {
                y = _mm512_mask_blend_epi8(masks[r][ch], y, look_up(tc, idx, top));
            }
            store64(dst.add(64 * b), y, stream);
            r = (r + 64) % C;
        }
    }
    64 * blocks
}

/// Elements a run must have for [`normalize_f16_run`] to build its table: a u8 → f16 cast of 1800 elements ran
/// 209–228 ns with the table and 155 ns through V4's arithmetic.
const TABLE_MIN_ELEMENTS: usize = 4096;

/// One-byte pixels (`u8`, or `i8` when `k.signed()`) of `K` slots normalized into f16 planes, 64 pixels at a time,
/// through a table per plane of the 256 possible results: built once per call with the arithmetic of V4's kernel
/// (widened exactly, `x·scale + bias` as a product then a sum in f32, rounded to f16 nearest even), so every result
/// is bit for bit V4's. Each block is deinterleaved with byte permutes (`t.unpacked`: each plane's bytes in the
/// order of the final unpack), each plane's 64 bytes look up the low and the
/// high bytes of their results (two two-register byte permutes and a blend on bit 7 for each), and an unpack of
/// the two joins them into 64 f16. Returns the pixels done in each row (whole blocks).
///
/// PERF: V4's kernel spends a conversion, a product, a sum and an f16 narrowing per 16 results (about 0.3 cycles
/// per result on Zen 4), the lookups half the instructions. One thread, Zen 4, u8 NHWC → f16 NCHW with 3 channels:
/// 64² 1.2 → 0.7–0.9 µs, 224² (L2) 13.4–14.2 → 6.2 µs, 8 × 224² 107–112 → 52–54 µs, 32 × 224² 439–453 → 206–242 µs.
/// (Built with closures, the tables cost 3 µs a call: a closure kept out of line loses the target features.)
///
/// # Safety
///
/// As `Arch::deinterleave_convert` for one-byte pixels into f16 planes, `t.slots == K`; with `STREAM`, every
/// row's `dst` and the plane stride are multiples of 64; AVX-512 F/BW and VBMI available.
#[allow(clippy::too_many_arguments)]
#[inline(always)]
unsafe fn normalize_f16_by_table<const K: usize, const STREAM: bool>(
    k: super::Norm,
    t: &crate::tables::Planar,
    src: *const u8,
    dst: *mut u8,
    plane_stride: isize,
    n: usize,
    params: &[[f32; 2]; 4],
    rows: super::RowRun,
) -> usize {
    let blocks = n / 64;
    // SAFETY: (whole body) register operations of AVX-512 F/BW/VBMI (contract); per block, the 64·K bytes from the
    // block's lowest address are readable and elements j..j+64 of every plane writable (contract, j + 64 ≤ n).
    unsafe {
        // (A loop, not `array::from_fn`: its closure may stay out of line, outside the target features.)
        let mut tables = [([_mm512_setzero_si512(); 4], [_mm512_setzero_si512(); 4]); K];
        // (Only the planes': slots past them are never stored.)
        for (table, &[scale, bias]) in tables.iter_mut().zip(params).take(t.planes) {
            *table = result_bytes(k.signed(), scale, bias);
        }
        let regs = super::v4::PlanarRegs::<K>::load(&t.unpacked);
        let planes = t.planes;
        for r in 0..rows.count as isize {
            let (win, dst) = (t.window(src.wrapping_offset(r * rows.in_step)), dst.wrapping_offset(r * rows.out_step));
            let at = t.steps(win, 64, K);
            for j in (0..blocks).map(|b| 64 * b) {
                let px = super::v4::PlanarRegs::<K>::pixels(at.at(j));
                for (i, (lo, hi)) in tables.iter().enumerate() {
                    if i >= planes {
                        break;
                    }
                    let idx = <Bytes as super::v4::WidePermute>::register(&regs, i, px);
                    let top = _mm512_movepi8_mask(idx);
                    let (l, h) = (look_up(lo, idx, top), look_up(hi, idx, top));
                    let d = dst.wrapping_offset(i as isize * plane_stride).add(2 * j);
                    let (w0, w1) = (_mm512_unpacklo_epi8(l, h), _mm512_unpackhi_epi8(l, h));
                    if STREAM {
                        _mm512_stream_si512(d.cast(), w0);
                        _mm512_stream_si512(d.add(64).cast(), w1);
                    } else {
                        _mm512_storeu_si512(d.cast(), w0);
                        _mm512_storeu_si512(d.add(64).cast(), w1);
                    }
                }
            }
        }
    }
    64 * blocks
}

/// One-byte pixels of `K` slots (`u8`, or `i8` when `k.signed()`) normalized into one-byte planes (`k.out`), 64
/// pixels at a time, through a table per plane of the 256 result bytes, built once per call with V4's kernel (so
/// every result is V4's, any parameters): each block deinterleaved with byte permutes (`t.wide`), each plane's 64
/// bytes looked up (two `vpermi2b` and a blend). Returns the pixels done in every row (whole blocks of 64; 0 when a
/// table could not be computed).
///
/// PERF: one thread, Zen 4, u8 → u8 normalization 8×3×128², three alternations: NHWC → NCHW (rows of 16384
/// pixels, which went through a buffer and its plane runs' tables) 15.5 → 8.9 µs; mirrored BGR NHWC → RGB NCHW
/// (rows of 128 pixels, which took V4's fused arithmetic) 41.7 → 10.7 µs.
///
/// # Safety
///
/// As `Arch::deinterleave_convert` of one-byte pixels of `K` slots into one-byte planes; AVX-512 F/BW and VBMI
/// available.
#[inline(always)]
#[allow(clippy::too_many_arguments)]
unsafe fn planes_by_table<const K: usize, const STREAM: bool>(
    v4: V4,
    k: super::Norm,
    t: &crate::tables::Planar,
    src: *const u8,
    dst: *mut u8,
    plane_stride: isize,
    n: usize,
    params: &[[f32; 2]; 4],
    rows: super::RowRun,
) -> usize {
    let Some(bytes) = result_tables::<K>(v4, k, &params[..K]) else { return 0 };
    let blocks = n / 64;
    // SAFETY: (whole body) register operations of AVX-512 F/BW/VBMI (contract); table loads inside `bytes`; per
    // block, the 64·K bytes from the block's lowest address are readable and elements j..j+64 of every plane
    // writable (contract, j + 64 ≤ n).
    unsafe {
        let tables = table_registers::<K>(&bytes);
        let regs = super::v4::PlanarRegs::<K>::load(&t.wide);
        let planes = t.planes;
        for r in 0..rows.count as isize {
            let (win, dst) = (t.window(src.wrapping_offset(r * rows.in_step)), dst.wrapping_offset(r * rows.out_step));
            let at = t.steps(win, 64, K);
            for j in (0..blocks).map(|b| 64 * b) {
                let px = super::v4::PlanarRegs::<K>::pixels(at.at(j));
                for (i, table) in tables.iter().enumerate() {
                    if i >= planes {
                        break;
                    }
                    let idx = <Bytes as super::v4::WidePermute>::register(&regs, i, px);
                    let y = look_up(table, idx, _mm512_movepi8_mask(idx));
                    store64(dst.wrapping_offset(i as isize * plane_stride).add(j), y, STREAM);
                }
            }
        }
    }
    64 * blocks
}

/// Contiguous one-byte values (`i8` with `signed`, else `u8`) normalized into f16, 64 at a time, through a table of
/// the 256 results as [`normalize_f16_by_table`] looks them up (one byte permute first puts the values in unpack
/// order); returns the elements done (whole blocks).
///
/// PERF: one thread, Zen 4, u8 NCHW → f16 NCHW normalization with 3 channels: 224² (L2) 10.5–16.1 → 5.3 µs, 8 ×
/// 224² 85–126 → 47–52 µs.
///
/// # Safety
///
/// As `Arch::normalize_run` into f16 (with `stream`, `dst` a multiple of 64); AVX-512 F/BW and VBMI available.
#[inline(always)]
unsafe fn normalize_f16_run(
    signed: bool,
    src: *const u8,
    dst: *mut u8,
    n: usize,
    scale: f32,
    bias: f32,
    stream: bool,
) -> usize {
    let blocks = n / 64;
    // SAFETY: register operations of AVX-512 F/BW/VBMI (contract); block b reads bytes 64b..64b+64 and writes
    // elements 64b..64b+64, in bounds (64b + 64 ≤ n).
    unsafe {
        let (lo, hi) = result_bytes(signed, scale, bias);
        let order = _mm512_loadu_si512(UNPACK_ORDER.as_ptr().cast());
        for b in 0..blocks {
            let idx = _mm512_permutexvar_epi8(order, _mm512_loadu_si512(src.add(64 * b).cast()));
            let top = _mm512_movepi8_mask(idx);
            let (l, h) = (look_up(&lo, idx, top), look_up(&hi, idx, top));
            let d = dst.add(128 * b);
            store64(d, _mm512_unpacklo_epi8(l, h), stream);
            store64(d.add(64), _mm512_unpackhi_epi8(l, h), stream);
        }
    }
    64 * blocks
}

/// The `vpermb` control that puts 64 bytes in [`unpack_order`](crate::tables::unpack_order).
static UNPACK_ORDER: [u8; 64] = {
    let mut o = [0u8; 64];
    let mut q = 0;
    while q < 64 {
        o[q] = crate::tables::unpack_order(q) as u8;
        q += 1;
    }
    o
};

/// The 256 results of a one-byte value normalized into f16 (V4's arithmetic: widened as `signed` or not, the
/// product with `scale`, the sum with `bias`, rounded to nearest even), as the low bytes and the high bytes of the
/// results for byte values 0..64, 64..128, 128..192 and 192..256.
///
/// # Safety
///
/// AVX-512 F/BW enabled.
#[inline(always)]
unsafe fn result_bytes(signed: bool, scale: f32, bias: f32) -> ([__m512i; 4], [__m512i; 4]) {
    // SAFETY: register operations of AVX-512 F/BW (contract).
    unsafe {
        let (s, b) = (_mm512_set1_ps(scale), _mm512_set1_ps(bias));
        let ramp = _mm512_setr_epi32(0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 15);
        let (mut lo, mut hi) = ([_mm512_setzero_si512(); 4], [_mm512_setzero_si512(); 4]);
        for q in 0..4 {
            // Byte values 64q + 16h .. + 16, as f16 bits in 16 words each.
            let mut parts = [_mm256_setzero_si256(); 4];
            for (h, part) in parts.iter_mut().enumerate() {
                let v = _mm512_add_epi32(_mm512_set1_epi32(64 * q as i32 + 16 * h as i32), ramp);
                // The byte's value as V4 widens it: signed from the top of the lane, unsigned as is.
                let x = if signed { _mm512_srai_epi32::<24>(_mm512_slli_epi32::<24>(v)) } else { v };
                *part = super::x86::cvtps_ph16(_mm512_add_ps(_mm512_mul_ps(_mm512_cvtepi32_ps(x), s), b));
            }
            let (w0, w1) = (join(parts[0], parts[1]), join(parts[2], parts[3]));
            lo[q] = join(_mm512_cvtepi16_epi8(w0), _mm512_cvtepi16_epi8(w1));
            hi[q] = join(
                _mm512_cvtepi16_epi8(_mm512_srli_epi16::<8>(w0)),
                _mm512_cvtepi16_epi8(_mm512_srli_epi16::<8>(w1)),
            );
        }
        (lo, hi)
    }
}

/// Stores the 64 bytes of `v` at `d`, non-temporally with `stream`.
///
/// # Safety
///
/// 64 writable bytes at `d`, a multiple of 64 with `stream`; AVX-512F enabled.
#[inline(always)]
unsafe fn store64(d: *mut u8, v: __m512i, stream: bool) {
    // SAFETY: the contract.
    unsafe { if stream { _mm512_stream_si512(d.cast(), v) } else { _mm512_storeu_si512(d.cast(), v) } }
}

/// `a` then `c` in one register.
///
/// # Safety
///
/// AVX-512F enabled.
#[inline(always)]
unsafe fn join(a: __m256i, c: __m256i) -> __m512i {
    // SAFETY: register operations of AVX-512F (contract).
    unsafe { _mm512_inserti64x4::<1>(_mm512_castsi256_si512(a), c) }
}

/// The bytes of `x` (bytes 0..256 in four registers) at the 64 indices of `idx`; `top`: the indices' bit 7.
///
/// # Safety
///
/// AVX-512 BW and VBMI enabled.
#[inline(always)]
unsafe fn look_up(x: &[__m512i; 4], idx: __m512i, top: __mmask64) -> __m512i {
    // SAFETY: register operations of AVX-512 BW/VBMI (contract).
    unsafe {
        let a = _mm512_permutex2var_epi8(x[0], idx, x[1]);
        let b = _mm512_permutex2var_epi8(x[2], idx, x[3]);
        _mm512_mask_blend_epi8(top, a, b)
    }
}
