//! x86-64-v4 plus AVX-512 VBMI: the V4 level with 64-byte byte-permute lanes. pulp has no such level, so this is
//! the one hand-written target-feature entry.

use core::arch::x86_64::*;

use pulp::NullaryFnOnce;

use super::v4::V4;
use super::{Arch, Isa};
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
        #[allow(clippy::too_many_arguments)]
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
    type Tiles = V4;

    #[inline(always)]
    fn tiles(self) -> V4 {
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

    // PERF: `deinterleave_convert` stays V4's: a VBMI variant (one masked load of the step, one zero-masking
    // `vpermb` per plane) ran 12% slower than V4's four 16-byte windows and `vpshufb` on Zen 5.
    forward! {
        unsafe fn load(self, p: *const u8) -> __m512i;
        unsafe fn store(self, p: *mut u8, v: __m512i);
        unsafe fn stream(self, p: *mut u8, v: __m512i);
        unsafe fn load_part(self, p: *const u8, lo: usize, hi: usize) -> Option<__m512i>;
        unsafe fn store_part(self, p: *mut u8, v: __m512i, n: usize) -> bool;
        unsafe fn small_copy(self, src: *const u8, dst: *mut u8, n: usize);
        unsafe fn shuffle_lanes(self, s: &crate::tables::Shuffle, src: *const u8, src_step: isize, dst: *mut u8, dst_step: usize, lanes: usize) -> usize;
        unsafe fn tile8<N: usize; M: super::TileMap>(self, src: *const u8, ss: isize, dst: *mut u8, ds: isize, m: M);
        unsafe fn tile<N: usize; M: super::TileMap>(self, src: *const u8, ss: isize, dst: *mut u8, ds: isize, stream: bool, m: M);
        unsafe fn tile_stack<N: usize; M: super::TileMap>(self, src: *const u8, ss: isize, dst: *mut u8, ds: isize, stream: bool, m: M);
        unsafe fn tile_part<N: usize; M: super::TileMap>(self, src: *const u8, ss: isize, dst: *mut u8, ds: isize, rows: usize, cols: usize, m: M) -> bool;
        unsafe fn f16_to_f32(self, src: *const u8, dst: *mut u8, n: usize) -> usize;
        unsafe fn f32_to_f16(self, src: *const u8, dst: *mut u8, n: usize) -> usize;
        unsafe fn f64_to_f32_odd(self, src: *const u8, dst: *mut u8, n: usize) -> usize;
        unsafe fn affine_f16(self, src: *const u8, dst: *mut u8, n: usize, scale: f32, bias: f32) -> usize;
        unsafe fn normalize_bytes(self, k: super::ByteNorm, src: *const u8, dst: *mut u8, n: usize, scale: f32, bias: f32) -> usize;
        unsafe fn deinterleave_convert(self, k: super::FusedConvert, t: &crate::tables::Planar, src: *const u8, dst: *mut u8, plane_stride: isize, n: usize, params: &[[f32; 2]; 4], rows: super::RowRun, stream: bool) -> usize;
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

    #[inline(always)]
    unsafe fn wide_lanes(
        self,
        s: &WideShuffle,
        src: *const u8,
        src_step: isize,
        dst: *mut u8,
        dst_step: usize,
        lanes: usize,
    ) -> usize {
        // SAFETY: forwarded contract; VBMI via the token.
        unsafe {
            // One-window lanes of fewer than 64 bytes (21 three-byte pixels) store only their own bytes; two-window
            // ones store whole lanes, the next lane rewriting the excess (a third instance of the loop cost the i8
            // stride-3 gather's two-window loop 1.97 → 2.70 µs on 256 KiB in L2, from code placement alone).
            match (s.windows, s.elems * s.width < 64) {
                (1, false) => wide::<1, false>(s, src, src_step, dst, dst_step, lanes),
                (1, true) => wide::<1, true>(s, src, src_step, dst, dst_step, lanes),
                (2, _) => wide::<2, false>(s, src, src_step, dst, dst_step, lanes),
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
/// with `PARTIAL`, each lane stores only its own `elems · width` bytes (a masked store).
///
/// PERF: a lane of 21 three-byte pixels stored whole (64 bytes, the last one rewritten by the next lane) ran the
/// public 720p BGR → RGB swap in 51.7–52.1 µs, stored masked in 42.2–42.8 µs (one thread, tight loops); whole
/// lanes keep plain stores, which a full mask slowed (i8 stride 3 in L2: 2.1 → 2.8 µs).
///
/// # Safety
///
/// As `Arch::wide_lanes`; AVX-512 VBMI available.
#[inline(always)]
unsafe fn wide<const W: usize, const PARTIAL: bool>(
    s: &WideShuffle,
    src: *const u8,
    src_step: isize,
    dst: *mut u8,
    dst_step: usize,
    lanes: usize,
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
            let mut acc =
                _mm512_permutex2var_epi8(_mm512_loadu_si512(w0.cast()), idx[0], _mm512_loadu_si512(w0.add(64).cast()));
            #[allow(clippy::needless_range_loop)]
            for w in 1..W {
                let wp = p.wrapping_offset(off[w]);
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
