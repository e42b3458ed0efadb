//! Per-instruction-set building blocks of the row kernels.
//!
//! [`Kern`] is implemented for pulp's level tokens (`Scalar`, `V3`, `V4`). Its methods copy the *bulk* of a row in
//! whole registers and return how many elements they did; the row kernel finishes the tail with scalar code.
//! They run inlined into pulp's `#[target_feature]` function of the level (see `isa::Level::dispatch`), so the
//! intrinsics compile for that level; the token proves the CPU has it.
//!
//! Conventions: `src` is the row's first source element (for a reverse the highest address: element `i` lies at
//! `src − i·N`); `dst` is the first output element, contiguous; `n` is the row length in elements.

use crate::shuffle::{Planar, Shuffle, WideShuffle};

#[cfg(target_arch = "x86_64")]
pub(crate) use x86::V4Vbmi;

/// Transposes an 8×8 tile of `N`-byte elements one element at a time: `dst` row `c` (stride `ds` bytes) element `r`
/// ← `src` row `r` (stride `ss`) element `c`.
///
/// # Safety
///
/// The 8 rows of 8 elements are readable at `src + r·ss` and writable at `dst + c·ds`, not overlapping.
#[inline(always)]
unsafe fn tile8_elements<const N: usize>(src: *const u8, ss: isize, dst: *mut u8, ds: isize) {
    for r in 0..8isize {
        for c in 0..8isize {
            // SAFETY: element (r, c) of the tile, in bounds by this function's contract.
            unsafe {
                let v = src.wrapping_offset(r * ss + c * N as isize).cast::<[u8; N]>().read_unaligned();
                dst.wrapping_offset(c * ds + r * N as isize).cast::<[u8; N]>().write_unaligned(v);
            }
        }
    }
}

/// A row kernel body that runs out of line, compiled for one level (see [`Kern::far`]).
pub(crate) trait Body<K>: Copy {
    /// Copies one row.
    ///
    /// # Safety
    ///
    /// The row's elements lie inside the buffers, as for `nest::Row::rows`; the CPU runs level `K` (the caller
    /// holds its token).
    unsafe fn run(&self, src: *const u8, dst: *mut u8);

    /// The same body for a row of `len` elements.
    fn with_len(self, len: usize) -> Self;

    /// Whether the body issues non-temporal stores (the run then ends with a store fence).
    fn streams(&self) -> bool {
        false
    }

    /// The input bytes `[a, b)`, relative to the row's `src`, that the body reads first (at most
    /// [`params::PREFETCH_BYTES`](crate::params::PREFETCH_BYTES)): the next row's are prefetched while this one is
    /// copied.
    fn lead(&self) -> (isize, isize);
}

/// The lead `[a, b)` of a row reading `n` elements of `N` bytes with stride `k` elements from `src`: forward from
/// the first element, or downward from it when `k < 0`.
#[inline(always)]
pub(crate) fn lead_of<const N: usize>(n: usize, k: isize) -> (isize, isize) {
    let span = ((n as isize - 1) * k.abs() + 1) * N as isize;
    let len = span.min(crate::params::PREFETCH_BYTES as isize);
    if k < 0 { (N as isize - len, N as isize) } else { (0, len) }
}

/// Runs `count` rows of `body`, then fences non-temporal stores.
///
/// # Safety
///
/// As `nest::Row::rows`, for `body`'s rows; the CPU runs level `K`.
#[inline(always)]
unsafe fn run_rows<K, B: Body<K>>(
    body: &B,
    src: *const u8,
    dst: *mut u8,
    count: usize,
    in_step: isize,
    out_step: isize,
) {
    let (mut s, mut d) = (src, dst);
    let (a, b) = body.lead();
    for r in 0..count {
        // PERF: hardware prefetchers follow a stream into the *adjacent* row but not a jump (a vertical flip reads
        // rows backwards; crops skip part of each row): fetching the start of the next row while this one is
        // copied took a descending-row copy from 1.41x to 1.11x of memcpy.
        #[cfg(target_arch = "x86_64")]
        if r + 1 < count {
            let next = s.wrapping_offset(in_step);
            let mut p = a;
            while p < b {
                // SAFETY: a prefetch is only a hint and never faults, whatever the address.
                unsafe {
                    core::arch::x86_64::_mm_prefetch::<{ core::arch::x86_64::_MM_HINT_T0 }>(
                        next.wrapping_offset(p).cast(),
                    )
                };
                p += 64;
            }
        }
        // SAFETY: row r of the run, in bounds by this function's contract.
        unsafe { body.run(s, d) };
        s = s.wrapping_offset(in_step);
        d = d.wrapping_offset(out_step);
    }
    #[cfg(target_arch = "x86_64")]
    if body.streams() {
        // SAFETY: SSE is part of the x86-64 baseline. Non-temporal stores are weakly ordered: fence them before
        // the chunk reports completion to other threads.
        unsafe { core::arch::x86_64::_mm_sfence() };
    }
}

/// The register-level operations one instruction-set level provides.
pub(crate) trait Kern: Copy {
    /// Whether [`Kern::shuffle_lanes`] exists at this level (it needs SSSE3's `pshufb`).
    const SHUFFLE: bool;

    /// Runs `count` rows of `body` in an out-of-line function compiled with this level's target features.
    ///
    /// PERF: SIMD row bodies are compiled once per (kind, width, level) instead of being inlined into each of the
    /// eight rank-specialized nests (which made LLVM take minutes); the call is paid once per run of rows.
    ///
    /// # Safety
    ///
    /// As `nest::Row::rows` for `body`'s rows.
    unsafe fn far<B: Body<Self>>(
        self,
        body: &B,
        src: *const u8,
        dst: *mut u8,
        count: usize,
        in_step: isize,
        out_step: isize,
    );

    /// Copies `bytes` contiguous bytes; `stream` asks for non-temporal stores (for outputs too large to stay in
    /// cache).
    ///
    /// # Safety
    ///
    /// `src..src+bytes` readable, `dst..dst+bytes` writable, not overlapping.
    unsafe fn copy(self, src: *const u8, dst: *mut u8, bytes: usize, stream: bool);

    /// Copies a prefix of a reversed row (stride −1) in whole registers; returns the elements done.
    ///
    /// # Safety
    ///
    /// Elements `0..n` of the row lie at `src − i·N` (readable) and `dst + i·N` (writable, not overlapping the
    /// source).
    ///
    /// With `stream`, stores are non-temporal and `dst` must be 64-byte aligned.
    unsafe fn reverse<const N: usize>(self, src: *const u8, dst: *mut u8, n: usize, stream: bool) -> usize;

    /// Copies a prefix of a row gathered with stride +2 (`neg == false`) or −2 elements; returns the elements done.
    ///
    /// # Safety
    ///
    /// Elements `0..n` lie at `src ± 2i·N` (readable, with every byte between them) and `dst + i·N` (writable).
    ///
    /// With `stream`, stores are non-temporal and `dst` must be 64-byte aligned.
    unsafe fn gather2<const N: usize>(self, src: *const u8, dst: *mut u8, n: usize, neg: bool, stream: bool) -> usize;

    /// Runs `lanes` lanes of the shuffle `s`; lane `l` reads windows at `src + l·src_step + win_off[w]` and stores
    /// 16 bytes at `dst + l·dst_step`.
    ///
    /// # Safety
    ///
    /// `Self::SHUFFLE`; every window and store of the `lanes` lanes lies inside the row (guaranteed when the last
    /// lane starts at an element `j` with `j + s.slack ≤ n`).
    unsafe fn shuffle_lanes<const W: usize>(
        self,
        s: &Shuffle,
        src: *const u8,
        src_step: isize,
        dst: *mut u8,
        dst_step: usize,
        lanes: usize,
    );

    /// Transposes an 8×8 tile of `N`-byte elements (`N` ∈ {1, 2, 4, 8}): `dst` row `c` element `r` ← `src` row `r`
    /// element `c`; rows are `ss` / `ds` bytes apart.
    ///
    /// # Safety
    ///
    /// The 8 source rows of 8 elements are readable and the 8 destination rows writable, not overlapping.
    unsafe fn tile8<const N: usize>(self, src: *const u8, ss: isize, dst: *mut u8, ds: isize) {
        // SAFETY: forwarded contract.
        unsafe { tile8_elements::<N>(src, ss, dst, ds) }
    }

    /// Interleaves a prefix of `n` pixels from `planes` planes (`plane_stride` bytes apart) into contiguous pixels of
    /// `planes` elements at `dst`, `16 / N` pixels at a time; returns the pixels done.
    ///
    /// # Safety
    ///
    /// Plane `i` holds `n` readable elements at `src + i·plane_stride`; `dst` has `n·planes` writable elements; `t`
    /// was built for (`N`, `planes`, interleave).
    unsafe fn interleave<const N: usize>(
        self,
        _t: &Planar,
        _planes: usize,
        _src: *const u8,
        _plane_stride: isize,
        _dst: *mut u8,
        _n: usize,
    ) -> usize {
        0
    }

    /// The inverse: `n` contiguous pixels of `planes` elements at `src` into planes `plane_stride` bytes apart at
    /// `dst`; returns the pixels done.
    ///
    /// # Safety
    ///
    /// As [`Kern::interleave`] with the roles of `src` and `dst` exchanged; `t` built for deinterleave.
    unsafe fn deinterleave<const N: usize>(
        self,
        _t: &Planar,
        _planes: usize,
        _src: *const u8,
        _dst: *mut u8,
        _plane_stride: isize,
        _n: usize,
    ) -> usize {
        0
    }

    /// Whether [`Kern::wide_lanes`] exists at this level (it needs AVX-512 VBMI).
    const WIDE: bool = false;

    /// Runs `lanes` 64-byte lanes of the wide shuffle `s`, as [`Kern::shuffle_lanes`] does for 16-byte lanes.
    ///
    /// # Safety
    ///
    /// `Self::WIDE`; as [`Kern::shuffle_lanes`], with `s.slack` of the wide tables.
    unsafe fn wide_lanes<const W: usize>(
        self,
        _s: &WideShuffle,
        _src: *const u8,
        _src_step: isize,
        _dst: *mut u8,
        _dst_step: usize,
        _lanes: usize,
    ) {
        debug_assert!(false, "this level has no wide byte permute");
    }
}

#[inline(never)]
unsafe fn far_scalar<B: Body<pulp::Scalar>>(
    body: &B,
    src: *const u8,
    dst: *mut u8,
    count: usize,
    is: isize,
    os: isize,
) {
    // SAFETY: forwarded contract.
    unsafe { run_rows(body, src, dst, count, is, os) }
}

impl Kern for pulp::Scalar {
    const SHUFFLE: bool = false;

    #[inline(always)]
    unsafe fn far<B: Body<Self>>(self, body: &B, src: *const u8, dst: *mut u8, count: usize, is: isize, os: isize) {
        // SAFETY: forwarded contract.
        unsafe { far_scalar(body, src, dst, count, is, os) }
    }

    #[inline(always)]
    unsafe fn copy(self, src: *const u8, dst: *mut u8, bytes: usize, _stream: bool) {
        // SAFETY: forwarded contract.
        unsafe { core::ptr::copy_nonoverlapping(src, dst, bytes) }
    }

    #[inline(always)]
    unsafe fn reverse<const N: usize>(self, src: *const u8, dst: *mut u8, n: usize, _stream: bool) -> usize {
        if N != 1 {
            return 0;
        }
        // PERF: 8 bytes at a time through a byte swap (one `bswap` per word) instead of 8 byte moves.
        let mut i = 0;
        while i + 8 <= n {
            // SAFETY: bytes src-i-7 ..= src-i are elements i..i+8 of the row, dst+i .. dst+i+8 their outputs.
            unsafe {
                let w = src.wrapping_sub(i + 7).cast::<u64>().read_unaligned();
                dst.add(i).cast::<u64>().write_unaligned(w.swap_bytes());
            }
            i += 8;
        }
        i
    }

    #[inline(always)]
    unsafe fn gather2<const N: usize>(self, _: *const u8, _: *mut u8, _: usize, _: bool, _: bool) -> usize {
        0
    }

    #[inline(always)]
    unsafe fn shuffle_lanes<const W: usize>(self, _: &Shuffle, _: *const u8, _: isize, _: *mut u8, _: usize, _: usize) {
        debug_assert!(false, "the scalar level has no byte shuffle");
    }
}

#[cfg(target_arch = "x86_64")]
mod x86 {
    use core::arch::x86_64::*;

    use pulp::x86::{V3, V4};

    use super::{Body, Kern};
    use crate::shuffle::{Planar, Shuffle, WideShuffle};

    /// The planar methods of `Kern`, shared by every x86 level (they need SSSE3 only).
    macro_rules! planar_methods {
        () => {
            #[inline(always)]
            unsafe fn tile8<const N: usize>(self, src: *const u8, ss: isize, dst: *mut u8, ds: isize) {
                // SAFETY: forwarded contract; AVX2 is part of every x86 level here.
                unsafe { avx2_tile8::<N>(src, ss, dst, ds) }
            }

            #[inline(always)]
            unsafe fn interleave<const N: usize>(
                self,
                t: &Planar,
                planes: usize,
                src: *const u8,
                plane_stride: isize,
                dst: *mut u8,
                n: usize,
            ) -> usize {
                // SAFETY: forwarded contract; SSSE3 is part of every x86 level here.
                unsafe {
                    match planes {
                        2 => ssse3_interleave::<N, 2>(t, src, plane_stride, dst, n),
                        3 => ssse3_interleave::<N, 3>(t, src, plane_stride, dst, n),
                        4 => ssse3_interleave::<N, 4>(t, src, plane_stride, dst, n),
                        _ => 0,
                    }
                }
            }

            #[inline(always)]
            unsafe fn deinterleave<const N: usize>(
                self,
                t: &Planar,
                planes: usize,
                src: *const u8,
                dst: *mut u8,
                plane_stride: isize,
                n: usize,
            ) -> usize {
                // SAFETY: forwarded contract; SSSE3 is part of every x86 level here.
                unsafe {
                    match planes {
                        2 => ssse3_deinterleave::<N, 2>(t, src, dst, plane_stride, n),
                        3 => ssse3_deinterleave::<N, 3>(t, src, dst, plane_stride, n),
                        4 => ssse3_deinterleave::<N, 4>(t, src, dst, plane_stride, n),
                        _ => 0,
                    }
                }
            }
        };
    }

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

    #[target_feature(enable = "sse3,ssse3,sse4.1,sse4.2,popcnt,avx,avx2,bmi1,bmi2,fma,lzcnt")]
    #[target_feature(enable = "avx512f,avx512bw,avx512cd,avx512dq,avx512vl,avx512vbmi")]
    #[inline(never)]
    unsafe fn far_v4vbmi<B: Body<V4Vbmi>>(body: &B, src: *const u8, dst: *mut u8, count: usize, is: isize, os: isize) {
        // SAFETY: forwarded contract.
        unsafe { run_rows(body, src, dst, count, is, os) }
    }

    impl Kern for V4Vbmi {
        const SHUFFLE: bool = true;
        const WIDE: bool = true;

        planar_methods!();

        #[inline(always)]
        unsafe fn far<B: Body<Self>>(self, body: &B, src: *const u8, dst: *mut u8, count: usize, is: isize, os: isize) {
            // SAFETY: the token proves every feature far_v4vbmi enables; the rest is forwarded.
            unsafe { far_v4vbmi(body, src, dst, count, is, os) }
        }

        #[inline(always)]
        unsafe fn copy(self, src: *const u8, dst: *mut u8, bytes: usize, stream: bool) {
            // SAFETY: forwarded; V4 ⊂ V4Vbmi.
            unsafe { self.0.copy(src, dst, bytes, stream) }
        }

        #[inline(always)]
        unsafe fn reverse<const N: usize>(self, src: *const u8, dst: *mut u8, n: usize, stream: bool) -> usize {
            // SAFETY: forwarded; V4 ⊂ V4Vbmi.
            unsafe { self.0.reverse::<N>(src, dst, n, stream) }
        }

        #[inline(always)]
        unsafe fn gather2<const N: usize>(
            self,
            src: *const u8,
            dst: *mut u8,
            n: usize,
            neg: bool,
            stream: bool,
        ) -> usize {
            // SAFETY: forwarded; V4 ⊂ V4Vbmi.
            unsafe { self.0.gather2::<N>(src, dst, n, neg, stream) }
        }

        #[inline(always)]
        unsafe fn shuffle_lanes<const W: usize>(
            self,
            s: &Shuffle,
            src: *const u8,
            src_step: isize,
            dst: *mut u8,
            dst_step: usize,
            lanes: usize,
        ) {
            // SAFETY: forwarded contract; SSSE3 ⊂ V4Vbmi.
            unsafe { sse_shuffle_lanes::<W>(s, src, src_step, dst, dst_step, lanes) }
        }

        #[inline(always)]
        unsafe fn wide_lanes<const W: usize>(
            self,
            s: &WideShuffle,
            src: *const u8,
            src_step: isize,
            dst: *mut u8,
            dst_step: usize,
            lanes: usize,
        ) {
            // SAFETY: plain 64-byte loads of the tables; the surrounding function has AVX-512 (token).
            let idx: [__m512i; W] = core::array::from_fn(|w| unsafe { _mm512_loadu_si512(s.masks[w].as_ptr().cast()) });
            // PERF: in locals, or every lane reloads them after its store (the compiler cannot rule out aliasing).
            let off: [isize; W] = core::array::from_fn(|w| s.win_off[w]);
            let sel: [u64; W] = core::array::from_fn(|w| s.sel[w]);
            let mut p = src;
            let mut d = dst;
            for _ in 0..lanes {
                // SAFETY: every lane starts at an element j ≤ n - slack, so both 64-byte halves of each 128-byte
                // window and the 64-byte store stay inside the row (WideShuffle::slack); VBMI via the token.
                unsafe {
                    let w0 = p.wrapping_offset(off[0]);
                    let mut acc = _mm512_permutex2var_epi8(
                        _mm512_loadu_si512(w0.cast()),
                        idx[0],
                        _mm512_loadu_si512(w0.add(64).cast()),
                    );
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
                    _mm512_storeu_si512(d.cast(), acc);
                }
                p = p.wrapping_offset(src_step);
                d = d.wrapping_add(dst_step);
            }
        }
    }

    use super::run_rows;

    // The feature lists of pulp's V3 and V4 tokens.
    #[target_feature(enable = "sse3,ssse3,sse4.1,sse4.2,popcnt,avx,avx2,bmi1,bmi2,fma,lzcnt")]
    #[inline(never)]
    unsafe fn far_v3<B: Body<V3>>(body: &B, src: *const u8, dst: *mut u8, count: usize, is: isize, os: isize) {
        // SAFETY: forwarded contract.
        unsafe { run_rows(body, src, dst, count, is, os) }
    }

    #[target_feature(enable = "sse3,ssse3,sse4.1,sse4.2,popcnt,avx,avx2,bmi1,bmi2,fma,lzcnt")]
    #[target_feature(enable = "avx512f,avx512bw,avx512cd,avx512dq,avx512vl")]
    #[inline(never)]
    unsafe fn far_v4<B: Body<V4>>(body: &B, src: *const u8, dst: *mut u8, count: usize, is: isize, os: isize) {
        // SAFETY: forwarded contract.
        unsafe { run_rows(body, src, dst, count, is, os) }
    }

    /// Copies fewer than 64 bytes with two possibly overlapping moves of the largest size that fits.
    ///
    /// # Safety
    ///
    /// `n < 64`; `src..src+n` readable, `dst..dst+n` writable; AVX available.
    #[inline(always)]
    unsafe fn small_copy(src: *const u8, dst: *mut u8, n: usize) {
        // SAFETY: each pair of moves covers exactly [0, n) of both ranges, from both ends.
        unsafe {
            if n >= 32 {
                let (a, b) = (_mm256_loadu_si256(src.cast()), _mm256_loadu_si256(src.add(n - 32).cast()));
                _mm256_storeu_si256(dst.cast(), a);
                _mm256_storeu_si256(dst.add(n - 32).cast(), b);
            } else if n >= 16 {
                let (a, b) = (_mm_loadu_si128(src.cast()), _mm_loadu_si128(src.add(n - 16).cast()));
                _mm_storeu_si128(dst.cast(), a);
                _mm_storeu_si128(dst.add(n - 16).cast(), b);
            } else if n >= 8 {
                let (a, b) = (src.cast::<u64>().read_unaligned(), src.add(n - 8).cast::<u64>().read_unaligned());
                dst.cast::<u64>().write_unaligned(a);
                dst.add(n - 8).cast::<u64>().write_unaligned(b);
            } else if n >= 4 {
                let (a, b) = (src.cast::<u32>().read_unaligned(), src.add(n - 4).cast::<u32>().read_unaligned());
                dst.cast::<u32>().write_unaligned(a);
                dst.add(n - 4).cast::<u32>().write_unaligned(b);
            } else if n >= 2 {
                let (a, b) = (src.cast::<u16>().read_unaligned(), src.add(n - 2).cast::<u16>().read_unaligned());
                dst.cast::<u16>().write_unaligned(a);
                dst.add(n - 2).cast::<u16>().write_unaligned(b);
            } else if n == 1 {
                *dst = *src;
            }
        }
    }

    /// 8×8 transposes in registers (AVX2). `N` = 4: the classic unpack/shuffle/permute network on 8 ymm rows;
    /// `N` = 8: four 4×4 blocks of 64-bit lanes; `N` = 2: unpack 16/32/64 on 8 xmm rows; `N` = 1: 8-byte rows
    /// through unpack 8/16/32.
    ///
    /// # Safety
    ///
    /// As `Kern::tile8`; AVX2 available.
    #[inline(always)]
    // Index loops mirror the register names of the transpose/shuffle networks.
    #[allow(clippy::needless_range_loop)]
    unsafe fn avx2_tile8<const N: usize>(src: *const u8, ss: isize, dst: *mut u8, ds: isize) {
        let row = |r: isize| src.wrapping_offset(r * ss);
        let out = |c: isize| dst.wrapping_offset(c * ds);
        // SAFETY: (whole body) every load reads one source row's 8 elements and every store writes one
        // destination row's 8 elements, in bounds by the contract; AVX2 is enabled by the calling level.
        unsafe {
            match N {
                4 => {
                    let r: [__m256; 8] = core::array::from_fn(|k| _mm256_loadu_ps(row(k as isize).cast()));
                    let t0 = _mm256_unpacklo_ps(r[0], r[1]);
                    let t1 = _mm256_unpackhi_ps(r[0], r[1]);
                    let t2 = _mm256_unpacklo_ps(r[2], r[3]);
                    let t3 = _mm256_unpackhi_ps(r[2], r[3]);
                    let t4 = _mm256_unpacklo_ps(r[4], r[5]);
                    let t5 = _mm256_unpackhi_ps(r[4], r[5]);
                    let t6 = _mm256_unpacklo_ps(r[6], r[7]);
                    let t7 = _mm256_unpackhi_ps(r[6], r[7]);
                    let u0 = _mm256_shuffle_ps::<0x44>(t0, t2);
                    let u1 = _mm256_shuffle_ps::<0xEE>(t0, t2);
                    let u2 = _mm256_shuffle_ps::<0x44>(t1, t3);
                    let u3 = _mm256_shuffle_ps::<0xEE>(t1, t3);
                    let u4 = _mm256_shuffle_ps::<0x44>(t4, t6);
                    let u5 = _mm256_shuffle_ps::<0xEE>(t4, t6);
                    let u6 = _mm256_shuffle_ps::<0x44>(t5, t7);
                    let u7 = _mm256_shuffle_ps::<0xEE>(t5, t7);
                    let o = [
                        _mm256_permute2f128_ps::<0x20>(u0, u4),
                        _mm256_permute2f128_ps::<0x20>(u1, u5),
                        _mm256_permute2f128_ps::<0x20>(u2, u6),
                        _mm256_permute2f128_ps::<0x20>(u3, u7),
                        _mm256_permute2f128_ps::<0x31>(u0, u4),
                        _mm256_permute2f128_ps::<0x31>(u1, u5),
                        _mm256_permute2f128_ps::<0x31>(u2, u6),
                        _mm256_permute2f128_ps::<0x31>(u3, u7),
                    ];
                    for (c, v) in o.into_iter().enumerate() {
                        _mm256_storeu_ps(out(c as isize).cast(), v);
                    }
                }
                8 => {
                    // rows r, halves h (columns 4h..4h+4)
                    let r: [[__m256d; 2]; 8] = core::array::from_fn(|k| {
                        let p = row(k as isize);
                        [_mm256_loadu_pd(p.cast()), _mm256_loadu_pd(p.add(32).cast())]
                    });
                    for rb in 0..2 {
                        for h in 0..2 {
                            let (a, b, c, d) = (r[4 * rb][h], r[4 * rb + 1][h], r[4 * rb + 2][h], r[4 * rb + 3][h]);
                            let t0 = _mm256_unpacklo_pd(a, b);
                            let t1 = _mm256_unpackhi_pd(a, b);
                            let t2 = _mm256_unpacklo_pd(c, d);
                            let t3 = _mm256_unpackhi_pd(c, d);
                            let o = [
                                _mm256_permute2f128_pd::<0x20>(t0, t2),
                                _mm256_permute2f128_pd::<0x20>(t1, t3),
                                _mm256_permute2f128_pd::<0x31>(t0, t2),
                                _mm256_permute2f128_pd::<0x31>(t1, t3),
                            ];
                            for (k, v) in o.into_iter().enumerate() {
                                // output row 4h + k, columns 4rb..4rb+4
                                _mm256_storeu_pd(out((4 * h + k) as isize).add(32 * rb).cast(), v);
                            }
                        }
                    }
                }
                2 => {
                    let r: [__m128i; 8] = core::array::from_fn(|k| _mm_loadu_si128(row(k as isize).cast()));
                    let a0 = _mm_unpacklo_epi16(r[0], r[1]);
                    let a1 = _mm_unpackhi_epi16(r[0], r[1]);
                    let a2 = _mm_unpacklo_epi16(r[2], r[3]);
                    let a3 = _mm_unpackhi_epi16(r[2], r[3]);
                    let a4 = _mm_unpacklo_epi16(r[4], r[5]);
                    let a5 = _mm_unpackhi_epi16(r[4], r[5]);
                    let a6 = _mm_unpacklo_epi16(r[6], r[7]);
                    let a7 = _mm_unpackhi_epi16(r[6], r[7]);
                    let b0 = _mm_unpacklo_epi32(a0, a2);
                    let b1 = _mm_unpackhi_epi32(a0, a2);
                    let b2 = _mm_unpacklo_epi32(a1, a3);
                    let b3 = _mm_unpackhi_epi32(a1, a3);
                    let b4 = _mm_unpacklo_epi32(a4, a6);
                    let b5 = _mm_unpackhi_epi32(a4, a6);
                    let b6 = _mm_unpacklo_epi32(a5, a7);
                    let b7 = _mm_unpackhi_epi32(a5, a7);
                    let o = [
                        _mm_unpacklo_epi64(b0, b4),
                        _mm_unpackhi_epi64(b0, b4),
                        _mm_unpacklo_epi64(b1, b5),
                        _mm_unpackhi_epi64(b1, b5),
                        _mm_unpacklo_epi64(b2, b6),
                        _mm_unpackhi_epi64(b2, b6),
                        _mm_unpacklo_epi64(b3, b7),
                        _mm_unpackhi_epi64(b3, b7),
                    ];
                    for (c, v) in o.into_iter().enumerate() {
                        _mm_storeu_si128(out(c as isize).cast(), v);
                    }
                }
                1 => {
                    let r: [__m128i; 8] = core::array::from_fn(|k| _mm_loadl_epi64(row(k as isize).cast()));
                    let a0 = _mm_unpacklo_epi8(r[0], r[1]);
                    let a1 = _mm_unpacklo_epi8(r[2], r[3]);
                    let a2 = _mm_unpacklo_epi8(r[4], r[5]);
                    let a3 = _mm_unpacklo_epi8(r[6], r[7]);
                    let b0 = _mm_unpacklo_epi16(a0, a1);
                    let b1 = _mm_unpackhi_epi16(a0, a1);
                    let b2 = _mm_unpacklo_epi16(a2, a3);
                    let b3 = _mm_unpackhi_epi16(a2, a3);
                    let o = [
                        _mm_unpacklo_epi32(b0, b2),
                        _mm_unpackhi_epi32(b0, b2),
                        _mm_unpacklo_epi32(b1, b3),
                        _mm_unpackhi_epi32(b1, b3),
                    ];
                    for (k, v) in o.into_iter().enumerate() {
                        _mm_storel_epi64(out(2 * k as isize).cast(), v);
                        _mm_storel_epi64(out(2 * k as isize + 1).cast(), _mm_unpackhi_epi64(v, v));
                    }
                }
                _ => super::tile8_elements::<N>(src, ss, dst, ds),
            }
        }
    }

    /// Planes → pixels, `16 / N` pixels per step: one 16-byte load per plane, `planes` output chunks each the OR of
    /// one `pshufb` per plane.
    ///
    /// # Safety
    ///
    /// As `Kern::interleave`; SSSE3 available.
    #[inline(always)]
    // Index loops mirror the register names of the transpose/shuffle networks.
    #[allow(clippy::needless_range_loop)]
    unsafe fn ssse3_interleave<const N: usize, const P: usize>(
        t: &Planar,
        src: *const u8,
        plane_stride: isize,
        dst: *mut u8,
        n: usize,
    ) -> usize {
        let step = 16 / N;
        let m: [[__m128i; P]; P] = core::array::from_fn(|k| {
            core::array::from_fn(|i| {
                // SAFETY: a plain 16-byte load of a table entry.
                unsafe { _mm_loadu_si128(t.masks[k][i].as_ptr().cast()) }
            })
        });
        let mut j = 0;
        while j + step <= n {
            // SAFETY: pixels j..j+step of every plane are readable and their outputs (P·16 bytes) writable.
            unsafe {
                let v: [__m128i; P] = core::array::from_fn(|i| {
                    _mm_loadu_si128(src.wrapping_offset(i as isize * plane_stride).add(j * N).cast())
                });
                for k in 0..P {
                    let mut acc = _mm_shuffle_epi8(v[0], m[k][0]);
                    for i in 1..P {
                        acc = _mm_or_si128(acc, _mm_shuffle_epi8(v[i], m[k][i]));
                    }
                    _mm_storeu_si128(dst.add(j * N * P + 16 * k).cast(), acc);
                }
            }
            j += step;
        }
        j
    }

    /// Pixels → planes: `planes` 16-byte loads of pixels, one output chunk per plane.
    ///
    /// # Safety
    ///
    /// As `Kern::deinterleave`; SSSE3 available.
    #[inline(always)]
    // Index loops mirror the register names of the transpose/shuffle networks.
    #[allow(clippy::needless_range_loop)]
    unsafe fn ssse3_deinterleave<const N: usize, const P: usize>(
        t: &Planar,
        src: *const u8,
        dst: *mut u8,
        plane_stride: isize,
        n: usize,
    ) -> usize {
        let step = 16 / N;
        let m: [[__m128i; P]; P] = core::array::from_fn(|k| {
            core::array::from_fn(|i| {
                // SAFETY: a plain 16-byte load of a table entry.
                unsafe { _mm_loadu_si128(t.masks[k][i].as_ptr().cast()) }
            })
        });
        let mut j = 0;
        while j + step <= n {
            // SAFETY: pixels j..j+step (P·16 bytes) are readable and element j.. of every plane writable.
            unsafe {
                let c: [__m128i; P] = core::array::from_fn(|k| _mm_loadu_si128(src.add(j * N * P + 16 * k).cast()));
                for i in 0..P {
                    let mut acc = _mm_shuffle_epi8(c[0], m[0][i]);
                    for k in 1..P {
                        acc = _mm_or_si128(acc, _mm_shuffle_epi8(c[k], m[k][i]));
                    }
                    _mm_storeu_si128(dst.wrapping_offset(i as isize * plane_stride).add(j * N).cast(), acc);
                }
            }
            j += step;
        }
        j
    }

    /// A contiguous copy through registers of `V` bytes: the first and last vector unaligned (they may overlap the
    /// middle), the middle with stores aligned to `V` bytes — regular or non-temporal — unrolled 4×.
    ///
    /// PERF: on the project's Zen 4 VMs glibc's `memcpy` of 1 KiB rows ran at half the speed of this loop, and
    /// non-temporal stores beat it by another 30% once the output exceeds the caches.
    macro_rules! vector_copy {
        ($src:ident, $dst:ident, $bytes:ident, $stream:ident, $v:expr, $load:ident, $store:ident, $stream_store:ident) => {{
            const V: usize = $v;
            if $bytes < 2 * V {
                if $bytes < 64 {
                    // SAFETY: forwarded contract; AVX is part of both levels.
                    unsafe { small_copy($src, $dst, $bytes) };
                } else {
                    // SAFETY: 64 ≤ bytes < 2·V: two overlapping vectors (V = 64 here) cover the range.
                    unsafe {
                        let (a, b) = ($load($src.cast()), $load($src.add($bytes - V).cast()));
                        $store($dst.cast(), a);
                        $store($dst.add($bytes - V).cast(), b);
                    }
                }
                return;
            }
            // SAFETY: bytes ≥ 2·V. The head vector covers [0, V), the tail vector [bytes-V, bytes); the middle
            // loop covers [head, end) with head = distance to the next V-aligned output address (≤ V) and
            // end ≤ bytes - V, in whole vectors; every access stays inside both ranges.
            unsafe {
                let first = $load($src.cast());
                let last = $load($src.add($bytes - V).cast());
                let head = V - ($dst as usize & (V - 1));
                let mut i = head;
                let end = $bytes - V;
                if $stream {
                    while i + 4 * V <= end {
                        let (a, b) = ($load($src.add(i).cast()), $load($src.add(i + V).cast()));
                        let (c, d) = ($load($src.add(i + 2 * V).cast()), $load($src.add(i + 3 * V).cast()));
                        $stream_store($dst.add(i).cast(), a);
                        $stream_store($dst.add(i + V).cast(), b);
                        $stream_store($dst.add(i + 2 * V).cast(), c);
                        $stream_store($dst.add(i + 3 * V).cast(), d);
                        i += 4 * V;
                    }
                    while i + V <= end {
                        $stream_store($dst.add(i).cast(), $load($src.add(i).cast()));
                        i += V;
                    }
                } else {
                    while i + 4 * V <= end {
                        let (a, b) = ($load($src.add(i).cast()), $load($src.add(i + V).cast()));
                        let (c, d) = ($load($src.add(i + 2 * V).cast()), $load($src.add(i + 3 * V).cast()));
                        $store($dst.add(i).cast(), a);
                        $store($dst.add(i + V).cast(), b);
                        $store($dst.add(i + 2 * V).cast(), c);
                        $store($dst.add(i + 3 * V).cast(), d);
                        i += 4 * V;
                    }
                    while i + V <= end {
                        $store($dst.add(i).cast(), $load($src.add(i).cast()));
                        i += V;
                    }
                }
                if i < end {
                    $store($dst.add(i).cast(), $load($src.add(i).cast()));
                }
                $store($dst.cast(), first);
                $store($dst.add(end).cast(), last);
            }
        }};
    }

    /// Byte order reversal inside each 16-byte lane, for elements of `N` bytes.
    const fn lane_reverse_mask<const N: usize>() -> [u8; 16] {
        let mut m = [0u8; 16];
        let mut t = 0;
        while t < 16 {
            // output element t/N takes input element (16/N - 1 - t/N), same byte t%N
            m[t] = ((16 / N - 1 - t / N) * N + t % N) as u8;
            t += 1;
        }
        m
    }

    /// The SSSE3 lane loop shared by V3 and V4 (16-byte lanes; more than enough to saturate memory on the rows
    /// that need it, and no cross-lane shuffles).
    #[inline(always)]
    unsafe fn sse_shuffle_lanes<const W: usize>(
        s: &Shuffle,
        src: *const u8,
        src_step: isize,
        dst: *mut u8,
        dst_step: usize,
        lanes: usize,
    ) {
        // SAFETY: the caller runs this inside a level with SSSE3 (V3 or V4); the masks are plain 16-byte loads.
        let masks: [__m128i; W] = core::array::from_fn(|w| unsafe { _mm_loadu_si128(s.masks[w].as_ptr().cast()) });
        // PERF: in locals, or every lane reloads them after its store (the compiler cannot rule out aliasing).
        let off: [isize; W] = core::array::from_fn(|w| s.win_off[w]);
        let mut p = src;
        let mut d = dst;
        for _ in 0..lanes {
            // SAFETY: the caller guarantees every window and the 16-byte store of each lane are inside the row
            // (Shuffle::slack); SSSE3 is enabled by the surrounding level.
            unsafe {
                let mut acc = _mm_shuffle_epi8(_mm_loadu_si128(p.wrapping_offset(off[0]).cast()), masks[0]);
                // PERF: an index loop; the iterator form (zip/skip) compiled to an out-of-line `Zip::nth` call per
                // window inside this target-feature function.
                #[allow(clippy::needless_range_loop)]
                for w in 1..W {
                    let v = _mm_loadu_si128(p.wrapping_offset(off[w]).cast());
                    acc = _mm_or_si128(acc, _mm_shuffle_epi8(v, masks[w]));
                }
                _mm_storeu_si128(d.cast(), acc);
            }
            p = p.wrapping_offset(src_step);
            d = d.wrapping_add(dst_step);
        }
    }

    impl Kern for V3 {
        const SHUFFLE: bool = true;

        planar_methods!();

        #[inline(always)]
        unsafe fn far<B: Body<Self>>(self, body: &B, src: *const u8, dst: *mut u8, count: usize, is: isize, os: isize) {
            // SAFETY: the V3 token proves the CPU has every feature far_v3 enables; the rest is forwarded.
            unsafe { far_v3(body, src, dst, count, is, os) }
        }

        #[inline(always)]
        unsafe fn copy(self, src: *const u8, dst: *mut u8, bytes: usize, stream: bool) {
            vector_copy!(src, dst, bytes, stream, 32, _mm256_loadu_si256, _mm256_storeu_si256, _mm256_stream_si256)
        }

        #[inline(always)]
        unsafe fn reverse<const N: usize>(self, src: *const u8, dst: *mut u8, n: usize, stream: bool) -> usize {
            if !matches!(N, 1 | 2 | 4 | 8 | 16) {
                return 0;
            }
            let per = 32 / N;
            let mut i = 0;
            while i + per <= n {
                // SAFETY: the 32 bytes at src-(i+per-1)·N are elements i..i+per of the row; dst+i·N.. their
                // outputs; the V3 token proves AVX2.
                unsafe {
                    let v = _mm256_loadu_si256(src.wrapping_sub((i + per - 1) * N).cast());
                    let r = match N {
                        1 => {
                            let m = _mm_loadu_si128(lane_reverse_mask::<1>().as_ptr().cast());
                            _mm256_permute4x64_epi64::<0x4E>(_mm256_shuffle_epi8(v, _mm256_set_m128i(m, m)))
                        }
                        2 => {
                            let m = _mm_loadu_si128(lane_reverse_mask::<2>().as_ptr().cast());
                            _mm256_permute4x64_epi64::<0x4E>(_mm256_shuffle_epi8(v, _mm256_set_m128i(m, m)))
                        }
                        4 => _mm256_permutevar8x32_epi32(v, _mm256_setr_epi32(7, 6, 5, 4, 3, 2, 1, 0)),
                        8 => _mm256_permute4x64_epi64::<0x1B>(v),
                        _ => _mm256_permute2x128_si256::<0x01>(v, v),
                    };
                    if stream {
                        _mm256_stream_si256(dst.add(i * N).cast(), r);
                    } else {
                        _mm256_storeu_si256(dst.add(i * N).cast(), r);
                    }
                }
                i += per;
            }
            i
        }

        #[inline(always)]
        unsafe fn gather2<const N: usize>(
            self,
            src: *const u8,
            dst: *mut u8,
            n: usize,
            neg: bool,
            stream: bool,
        ) -> usize {
            if N != 4 && N != 8 {
                return 0;
            }
            let per = 32 / N;
            let mut i = 0;
            // The two loads cover 2·per elements starting at an even element (positive stride) or at the odd
            // element below the lowest one needed (negative): one element beyond the needed ones, which lies
            // inside the row while i + per < n.
            while i + per < n {
                // SAFETY: as above, all 64 bytes read lie between elements of the row; AVX2 via the token.
                unsafe {
                    let p =
                        if neg { src.wrapping_sub((2 * (i + per - 1) + 1) * N) } else { src.wrapping_add(2 * i * N) };
                    let a = _mm256_loadu_si256(p.cast());
                    let b = _mm256_loadu_si256(p.add(32).cast());
                    let r = if N == 4 {
                        let (a, b) = (_mm256_castsi256_ps(a), _mm256_castsi256_ps(b));
                        let e = if neg { _mm256_shuffle_ps::<0xDD>(a, b) } else { _mm256_shuffle_ps::<0x88>(a, b) };
                        let e = _mm256_permute4x64_epi64::<0xD8>(_mm256_castps_si256(e));
                        if neg { _mm256_permutevar8x32_epi32(e, _mm256_setr_epi32(7, 6, 5, 4, 3, 2, 1, 0)) } else { e }
                    } else {
                        let e = if neg { _mm256_unpackhi_epi64(a, b) } else { _mm256_unpacklo_epi64(a, b) };
                        let e = _mm256_permute4x64_epi64::<0xD8>(e);
                        if neg { _mm256_permute4x64_epi64::<0x1B>(e) } else { e }
                    };
                    if stream {
                        _mm256_stream_si256(dst.add(i * N).cast(), r);
                    } else {
                        _mm256_storeu_si256(dst.add(i * N).cast(), r);
                    }
                }
                i += per;
            }
            i
        }

        #[inline(always)]
        unsafe fn shuffle_lanes<const W: usize>(
            self,
            s: &Shuffle,
            src: *const u8,
            src_step: isize,
            dst: *mut u8,
            dst_step: usize,
            lanes: usize,
        ) {
            // SAFETY: forwarded contract; V3 includes SSSE3.
            unsafe { sse_shuffle_lanes::<W>(s, src, src_step, dst, dst_step, lanes) }
        }
    }

    /// `[first, first + step, …]` as 32 u16 indices.
    const fn ramp16(first: i32, step: i32) -> [i16; 32] {
        let mut r = [0i16; 32];
        let mut t = 0;
        while t < 32 {
            r[t] = (first + step * t as i32) as i16;
            t += 1;
        }
        r
    }

    impl Kern for V4 {
        const SHUFFLE: bool = true;

        planar_methods!();

        #[inline(always)]
        unsafe fn far<B: Body<Self>>(self, body: &B, src: *const u8, dst: *mut u8, count: usize, is: isize, os: isize) {
            // SAFETY: the V4 token proves the CPU has every feature far_v4 enables; the rest is forwarded.
            unsafe { far_v4(body, src, dst, count, is, os) }
        }

        #[inline(always)]
        unsafe fn copy(self, src: *const u8, dst: *mut u8, bytes: usize, stream: bool) {
            vector_copy!(src, dst, bytes, stream, 64, _mm512_loadu_si512, _mm512_storeu_si512, _mm512_stream_si512)
        }

        #[inline(always)]
        unsafe fn reverse<const N: usize>(self, src: *const u8, dst: *mut u8, n: usize, stream: bool) -> usize {
            if !matches!(N, 1 | 2 | 4 | 8 | 16) {
                return 0;
            }
            let per = 64 / N;
            let mut i = 0;
            while i + per <= n {
                // SAFETY: the 64 bytes at src-(i+per-1)·N are elements i..i+per of the row; dst+i·N.. their
                // outputs; the V4 token proves AVX-512 F/BW.
                unsafe {
                    let v = _mm512_loadu_si512(src.wrapping_sub((i + per - 1) * N).cast());
                    let r = match N {
                        2 => _mm512_permutexvar_epi16(_mm512_loadu_si512(ramp16(31, -1).as_ptr().cast()), v),
                        4 => _mm512_permutexvar_epi32(
                            _mm512_setr_epi32(15, 14, 13, 12, 11, 10, 9, 8, 7, 6, 5, 4, 3, 2, 1, 0),
                            v,
                        ),
                        8 => _mm512_permutexvar_epi64(_mm512_setr_epi64(7, 6, 5, 4, 3, 2, 1, 0), v),
                        16 => _mm512_shuffle_i64x2::<0x1B>(v, v),
                        _ => {
                            let m = _mm512_broadcast_i32x4(_mm_loadu_si128(lane_reverse_mask::<1>().as_ptr().cast()));
                            let v = _mm512_shuffle_epi8(v, m);
                            _mm512_shuffle_i64x2::<0x1B>(v, v)
                        }
                    };
                    if stream {
                        _mm512_stream_si512(dst.add(i * N).cast(), r);
                    } else {
                        _mm512_storeu_si512(dst.add(i * N).cast(), r);
                    }
                }
                i += per;
            }
            i
        }

        #[inline(always)]
        unsafe fn gather2<const N: usize>(
            self,
            src: *const u8,
            dst: *mut u8,
            n: usize,
            neg: bool,
            stream: bool,
        ) -> usize {
            if !matches!(N, 1 | 2 | 4 | 8) {
                return 0;
            }
            let per = 64 / N;
            let mut i = 0;
            // As for V3: the 128 bytes read start at an even element (positive) or at the odd element below the
            // lowest needed one (negative), reaching one element past the needed ones: inside the row while
            // i + per < n.
            while i + per < n {
                // SAFETY: all 128 bytes read lie between elements of the row; AVX-512 F/BW via the token.
                unsafe {
                    let p =
                        if neg { src.wrapping_sub((2 * (i + per - 1) + 1) * N) } else { src.wrapping_add(2 * i * N) };
                    let a = _mm512_loadu_si512(p.cast());
                    let b = _mm512_loadu_si512(p.add(64).cast());
                    // positive: even elements in order; negative: odd elements, last first
                    let (first, step) = if neg { (2 * per as i32 - 1, -2) } else { (0, 2) };
                    let r = match N {
                        1 => {
                            // vpmovwb keeps the low byte of each u16: the even bytes (shift first for the odd ones)
                            let (a, b) =
                                if neg { (_mm512_srli_epi16::<8>(a), _mm512_srli_epi16::<8>(b)) } else { (a, b) };
                            let lo = _mm512_cvtepi16_epi8(a);
                            let hi = _mm512_cvtepi16_epi8(b);
                            let r = _mm512_inserti64x4::<1>(_mm512_castsi256_si512(lo), hi);
                            if neg {
                                let m =
                                    _mm512_broadcast_i32x4(_mm_loadu_si128(lane_reverse_mask::<1>().as_ptr().cast()));
                                let r = _mm512_shuffle_epi8(r, m);
                                _mm512_shuffle_i64x2::<0x1B>(r, r)
                            } else {
                                r
                            }
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
                    };
                    if stream {
                        _mm512_stream_si512(dst.add(i * N).cast(), r);
                    } else {
                        _mm512_storeu_si512(dst.add(i * N).cast(), r);
                    }
                }
                i += per;
            }
            i
        }

        #[inline(always)]
        unsafe fn shuffle_lanes<const W: usize>(
            self,
            s: &Shuffle,
            src: *const u8,
            src_step: isize,
            dst: *mut u8,
            dst_step: usize,
            lanes: usize,
        ) {
            // SAFETY: forwarded contract; V4 includes SSSE3.
            unsafe { sse_shuffle_lanes::<W>(s, src, src_step, dst, dst_step, lanes) }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::Kern;

    /// `Kern::copy` of every length up to 700 bytes and around 4 KiB, at every misalignment of source and
    /// destination mod 8, regular and streaming: exact bytes, nothing written outside the range.
    fn check_copy<K: Kern>(kern: K) {
        let src: Vec<u8> = (0..5000u32).map(|i| (i * 13 + 5) as u8).collect();
        let lengths = (0..=700).chain(4090..=4100);
        for len in lengths {
            for (so, dof) in [(0, 0), (1, 3), (7, 64 - 7), (5, 0), (0, 33)] {
                for stream in [false, true] {
                    let mut dst = vec![0xEEu8; len + 256];
                    // SAFETY: src[so..so+len] and dst[64+dof..64+dof+len] are in bounds and distinct.
                    unsafe { kern.copy(src.as_ptr().add(so), dst.as_mut_ptr().add(64 + dof % 64), len, stream) };
                    let at = 64 + dof % 64;
                    assert_eq!(&dst[at..at + len], &src[so..so + len], "len {len} so {so} do {dof} stream {stream}");
                    assert!(dst[..at].iter().chain(&dst[at + len..]).all(|&b| b == 0xEE), "wrote outside, len {len}");
                }
            }
        }
    }

    #[test]
    fn copy_on_every_level() {
        check_copy(pulp::Scalar::new());
        #[cfg(target_arch = "x86_64")]
        {
            match pulp::x86::V3::try_new() {
                Some(v3) => v3.vectorize(|| check_copy(v3)),
                None => eprintln!("note: no x86-64-v3 here, skipped"),
            }
            match pulp::x86::V4::try_new() {
                Some(v4) => v4.vectorize(|| check_copy(v4)),
                None => eprintln!("note: no x86-64-v4 here, skipped"),
            }
        }
    }
}
