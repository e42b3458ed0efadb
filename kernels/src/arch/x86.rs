//! Pieces shared by the x86 levels (V3, V4, V4+VBMI): SSE/AVX2 building blocks that every one of them runs, and
//! the F16C conversions of V3 (pulp's V3 has no F16C, so they are hand-written target-feature functions).

use core::arch::x86_64::*;

use super::lanes::{Bytes, Put, deinterleave_normalize};
use super::simd::Simd;
use super::wide;
use super::{Norm, RowRun, TileMap, TileRun, WindowPairs, tile8_elements};
use crate::tables::{LanePair, PatternLanes, Periodic, PixelWindows, Planar, Shuffle};

/// Realigns the stack frame of the function it is inlined into to 64 bytes, so that the 32-byte registers it
/// spills sit on aligned slots. Every out-of-line function of this level whose loops spill registers calls it
/// first: without an object of that alignment in its frame, LLVM keeps the caller's 16-byte alignment and spills
/// with unaligned moves, and when the caller's stack is 16 mod 32 (it varies between builds, and between the
/// threads that call the same function) every other spill splits across two lines.
///
/// PERF: one thread, Zen 4, `--isa v3`, f32 NHWC → f16 NCHW 16 × 16 × 128² (the 32×16 converting tiles, 28
/// spilled registers a tile), streamed: two threads took 759–776 µs, more than one (610–670 µs); with the frame
/// aligned 411–439 µs, one thread unchanged.
#[inline(always)]
fn aligned_frame() {
    #[repr(C, align(64))]
    struct Line([u8; 64]);
    core::hint::black_box(core::mem::MaybeUninit::<Line>::uninit().as_ptr());
}

/// Copies fewer than 64 bytes with two possibly overlapping moves of the largest size that fits.
///
/// # Safety
///
/// `n < 64`; `src..src+n` readable, `dst..dst+n` writable; AVX available.
#[inline(always)]
pub(super) unsafe fn small_copy(src: *const u8, dst: *mut u8, n: usize) {
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

/// Stores a 32-byte register at `p`, non-temporally with `stream`.
///
/// # Safety
///
/// 32 writable bytes at `p`, 32-byte aligned with `stream`; AVX enabled.
#[inline(always)]
unsafe fn put_half(p: *mut u8, v: __m256i, stream: bool) {
    // SAFETY: forwarded contract.
    unsafe { if stream { _mm256_stream_si256(p.cast(), v) } else { _mm256_storeu_si256(p.cast(), v) } }
}

/// Transposes a stack of 8×8 tiles one 64-byte line wide with AVX2 (`Arch::tile_stack`): `64 / N` source rows of 8
/// elements into 8 destination rows of `64 / N`, each row's two 32-byte halves stored one after the other (so a
/// streamed row is a whole line written at once). `N` = 4: per half of the columns and group of 8 rows, four
/// registers whose 128-bit lanes hold rows `k` and `k + 4` (filled by the loads) and one 4×4 network inside the
/// lanes; `N` = 2: per group of 16 rows, the 16-bit network of [`avx2_tile8`] on registers whose lanes hold rows `k`
/// and `k + 8`. PERF: they exist to stream whole lines, as AVX-512's stacks (see `tile_for` in `rows::transpose`).
///
/// Out of line (one copy per width and map, called once per stack): inlined into the sweeps, the stack's 16 or 32 row
/// addresses became induction variables of the sweep's loop, spilled to the stack and updated in memory every step (~60
/// of the loop's ~200 instructions, their stores queued with the streamed ones). One thread, Zen 4 VM, `--isa v3`,
/// tight loops, medians of 4 alternations, inlined → out of line: f16 NHWC → NCHW of 128² planes with 16 channels
/// (streamed) 481 → 357 µs, 32 channels 543 → 436 µs, 64 channels 684 → 558 µs; the public rank-5 permutation (4-byte
/// stacks down columns) tied or 5–15 % faster (193 → 184 µs in 6 alternations); f32 NHWC → NCHW with 8–24 channels tied
/// (0.93–1.03). The 8×8 tiles out of line too: no further change (kept inline).
///
/// # Safety
///
/// As `Arch::tile_stack` for `N` = 4 or 2; the CPU has AVX2 and F16C (the V3 token checks both).
#[inline(never)]
#[target_feature(enable = "avx,avx2,f16c")]
// Index loops mirror the register names of the shuffle networks.
#[allow(clippy::needless_range_loop)]
pub(super) unsafe fn avx2_tile_stack<const N: usize, M: TileMap>(
    src: *const u8,
    ss: isize,
    dst: *mut u8,
    ds: isize,
    stream: bool,
    m: M,
) {
    aligned_frame();
    let row = |r: usize| src.wrapping_offset(r as isize * ss);
    let out = |c: usize| dst.wrapping_offset(c as isize * ds);
    let put = |p: *mut u8, v: __m256i| {
        // SAFETY: a destination row's half, in bounds, 32-byte aligned when streamed (rows start on lines).
        unsafe { put_half(p, m.m256(v), stream) }
    };
    // SAFETY: (whole body) loads of the 64 / N source rows' 8 elements and stores of the 8 destination rows' 64 / N,
    // in bounds by the contract; AVX2 is enabled by the calling level.
    unsafe {
        match N {
            4 => {
                for h in 0..2 {
                    // Columns 4h..4h+4: o[g][c] = column 4h + c of rows 8g..8g+8.
                    let mut o = [[_mm256_setzero_ps(); 4]; 2];
                    for (g, og) in o.iter_mut().enumerate() {
                        let half = |k: usize| {
                            let lo = _mm_loadu_ps(row(8 * g + k).add(16 * h).cast());
                            let hi = _mm_loadu_ps(row(8 * g + k + 4).add(16 * h).cast());
                            _mm256_insertf128_ps::<1>(_mm256_castps128_ps256(lo), hi)
                        };
                        let (r0, r1, r2, r3) = (half(0), half(1), half(2), half(3));
                        let (t0, t1) = (_mm256_unpacklo_ps(r0, r1), _mm256_unpackhi_ps(r0, r1));
                        let (t2, t3) = (_mm256_unpacklo_ps(r2, r3), _mm256_unpackhi_ps(r2, r3));
                        *og = [
                            _mm256_shuffle_ps::<0x44>(t0, t2),
                            _mm256_shuffle_ps::<0xEE>(t0, t2),
                            _mm256_shuffle_ps::<0x44>(t1, t3),
                            _mm256_shuffle_ps::<0xEE>(t1, t3),
                        ];
                    }
                    for c in 0..4 {
                        let d = out(4 * h + c);
                        put(d, _mm256_castps_si256(o[0][c]));
                        put(d.add(32), _mm256_castps_si256(o[1][c]));
                    }
                }
            }
            2 => {
                // o[q][c] = column c of rows 16q..16q+16.
                let mut o = [[_mm256_setzero_si256(); 8]; 2];
                for q in 0..2 {
                    let r: [__m256i; 8] = core::array::from_fn(|k| {
                        let lo = _mm_loadu_si128(row(16 * q + k).cast());
                        let hi = _mm_loadu_si128(row(16 * q + k + 8).cast());
                        _mm256_inserti128_si256::<1>(_mm256_castsi128_si256(lo), hi)
                    });
                    o[q] = net8_epi16(r);
                }
                for c in 0..8 {
                    let d = out(c);
                    put(d, o[0][c]);
                    put(d.add(32), o[1][c]);
                }
            }
            _ => unreachable!("AVX2 stacks are of 4- and 2-byte elements"),
        }
    }
}

/// The [`TileRun`] `run` of 16×16 tiles of 4-byte elements (AVX2's wide tile, `Arch::tile_run`). Each tile is four
/// 8×8 networks: source rows 0..8 (both halves of their lines, one after the other) give the first halves of the 16
/// destination rows, kept in registers (or spilled to L1), rows 8..16 the second halves, and each destination row is
/// stored whole, its two halves one after the other (a streamed row is a whole line written at once, with `stream`).
///
/// Each tile prefetches the source lines of the tile two ahead in the run (the 16 loads of AVX-512's tile are in
/// flight at once; these come 8 at a time).
///
/// PERF: 8×8 tiles write half lines, which cannot stream (see `tile_for` in `rows::transpose`). `--isa v3`, one
/// thread, f32 2048² transpose, tight loops: 8×8 tiles 1.25–1.27 ms, these 0.52 ms (`t/limit` 1.16); between
/// copies of other data (`strider bench`'s interleaved rounds, `t/limit`): 1.96–2.01 → 1.26–1.37, where without the
/// prefetch 1.5–2.0 and one tile ahead 1.3–1.6 (four ahead as two). Two stacks side by side (`avx2_tile_stack`)
/// instead of the four networks: 0.58 ms tight, and f32 NCHW → NHWC with 64 channels 784 → 646 µs for these: a
/// stack reads each source line in quarters, and rows a critical stride apart (one L1 set) are evicted between.
///
/// Regular stores go through [`tiles16_4`] (rows addressed through [`Rows16`], each half of the tile its own code),
/// streamed ones through [`streamed_tiles16_4`].
///
/// Out of line (one copy per map, called once per run of tiles): inlined into every 4-byte transposing kernel of the
/// AVX2 level it took 52 KB more text, and no measured time.
///
/// # Safety
///
/// As `Arch::tile_run` for `N` = 4 and a shape of 16×16; the CPU has AVX2 and F16C (the V3 token checks both).
#[inline(never)]
#[target_feature(enable = "avx,avx2,f16c")]
pub(super) unsafe fn avx2_tiles16_4<M: TileMap>(run: TileRun, stream: bool, m: M) {
    if stream {
        // (`stream` as a value the compiler cannot see, so that the tiles keep testing it between their stores: see
        // `streamed_tiles16_4`.)
        // SAFETY: forwarded contract.
        unsafe { streamed_tiles16_4(run, core::hint::black_box(stream), m) };
        return;
    }
    aligned_frame();
    // Wrapped tiles apart, so that the others compute no row offsets.
    let (wrapped, rest) = run.split_wrapped();
    // SAFETY: forwarded contract, for tiles 0..wrapped and wrapped..count of the run (`rest` wraps no row).
    unsafe {
        tiles16_4::<M, true>(wrapped, m);
        tiles16_4::<M, false>(rest, m);
    }
}

/// [`avx2_tiles16_4`] with streamed stores (`stream`, true): the tile loop as it was before [`tiles16_4`], rows
/// addressed as `first + r·stride` (LLVM keeps the 16 offsets in stack slots, see [`Rows16`]), the 16 first halves
/// held across both halves of the tile, and `stream` tested at every pair of stores.
///
/// PERF: `--isa v3`, f32 2048² (square blocks down columns of tiles, rows 8 KiB apart, streamed), two threads,
/// interleaved rounds, `t/limit` medians of 6: the code before these changes 0.82–0.90 (five runs); with
/// [`tiles16_4`]'s loop (36 % fewer instructions) 0.97–1.00 (two), this loop with `stream` a constant (its tests gone
/// from between the streamed stores, 17 % fewer instructions) 0.91–0.96 (four), as here 0.82–0.84 (two); one thread
/// 1.12–1.19 in all. Not explained beyond that: the streamed stores leave the core at a pace the two threads'
/// memory traffic prefers.
///
/// # Safety
///
/// As [`avx2_tiles16_4`].
#[inline(never)]
#[target_feature(enable = "avx,avx2,f16c")]
unsafe fn streamed_tiles16_4<M: TileMap>(run: TileRun, stream: bool, m: M) {
    let TileRun { src, ss, wrap, dst, ds, count, steps } = run;
    let (mut s, mut d, mut wrap) = (src, dst, wrap);
    for _ in 0..count {
        let row = |r: usize| s.wrapping_offset((r as isize).wrapping_mul(ss).wrapping_add(wrap.of(r)));
        let out = |c: usize| d.wrapping_offset((c as isize).wrapping_mul(ds));
        let next = s.wrapping_offset(steps.0.wrapping_mul(2));
        for r in 0..16 {
            super::prefetch(next.wrapping_offset((r as isize).wrapping_mul(ss)), 0, 1, false);
        }
        // SAFETY: loads of the tile's 16 source rows' 16 elements and streamed stores of its 16 destination rows'
        // 16 (contract); register work otherwise.
        unsafe {
            let top = [eight8_ps(&row, 0, 0), eight8_ps(&row, 0, 1)];
            for (q, first) in top.iter().enumerate() {
                let second = eight8_ps(&row, 8, q);
                for c in 0..8 {
                    let o = out(8 * q + c);
                    put_half(o, m.m256(_mm256_castps_si256(first[c])), stream);
                    put_half(o.add(32), m.m256(_mm256_castps_si256(second[c])), stream);
                }
            }
        }
        (s, d, wrap) = (s.wrapping_offset(steps.0), d.wrapping_offset(steps.1), wrap.rest());
    }
}

/// [`avx2_tiles16_4`]'s loop with regular stores, source rows offset by `wrap` in every tile when `WRAP` (else `wrap`
/// is ignored); rows addressed through [`Rows16`], each half of the destination rows a function of a constant half.
///
/// PERF: callgrind, `--isa v3`, f32 128 × 512 transposed (256 KiB, tiles from the buffer of `through_rows`): 437 →
/// 224 instructions a tile, 159 k → 105 k an operation; one thread, tight loops, minimum of 5 alternations: 11.2 →
/// 7.3 µs, 256² 9.0 → 7.2 µs, 512² 50 → 48 µs, a 32-channel 64² NCHW → NHWC 22.9 → 14.8 µs (AVX-512 VBMI on the same
/// machine: 8.4, 6.7, 38, 15 µs). f32 2048² with regular stores (`--streaming off`) one thread 2.2 → 1.7 ms.
///
/// # Safety
///
/// As [`avx2_tiles16_4`] without `stream`, `wrap` applying to every tile of the run when `WRAP`.
#[inline(always)]
unsafe fn tiles16_4<M: TileMap, const WRAP: bool>(run: TileRun, m: M) {
    let TileRun { src, ss, wrap, dst, ds, count, steps } = run;
    let (mut s, mut d) = (src, dst);
    let (ss3, ds3) = (ss.wrapping_mul(3), ds.wrapping_mul(3));
    for _ in 0..count {
        let rows = Rows16::new(s, ss, ss3);
        let outs = Rows16::new(d, ds, ds3);
        let row = |r: usize| if WRAP { rows.at(r).wrapping_offset(wrap.of(r)) } else { rows.at(r) };
        let ahead = Rows16::new(s.wrapping_offset(steps.0.wrapping_mul(2)), ss, ss3);
        for r in 0..16 {
            super::prefetch(ahead.at(r), 0, 1, false);
        }
        // SAFETY: loads of the tile's 16 source rows' 16 elements and stores of its 16 destination rows' 16
        // (contract).
        unsafe {
            // Source rows 0..8 read whole (both halves of their lines) before rows 8..16: rows a multiple of 4 KiB
            // apart share one L1 set, and 16 lines live at once would not fit its 8 ways.
            let first = [eight8_ps(&row, 0, 0), eight8_ps(&row, 0, 1)];
            tile16_4_half::<0, M>(first[0], &row, &outs, m);
            tile16_4_half::<1, M>(first[1], &row, &outs, m);
        }
        (s, d) = (s.wrapping_offset(steps.0), d.wrapping_offset(steps.1));
    }
}

/// Columns `8q..8q + 8` of source rows `r0..r0 + 8` through the 8×8 network: register `c` is destination row
/// `8q + c`'s elements `r0..r0 + 8`.
///
/// # Safety
///
/// Source rows `row(r0..r0 + 8)` have `8q + 8` readable elements; AVX available.
#[inline(always)]
unsafe fn eight8_ps(row: &impl Fn(usize) -> *const u8, r0: usize, q: usize) -> [__m256; 8] {
    // SAFETY: the loads of the contract; register work otherwise.
    unsafe { net8_ps(core::array::from_fn(|k| _mm256_loadu_ps(row(r0 + k).add(32 * q).cast()))) }
}

/// Half `Q` of a 16×16 tile of 4-byte elements: destination rows `8Q..8Q + 8`, whole, from `first` (their elements
/// 0..8, [`eight8_ps`] of source rows 0..8) and columns `8Q..8Q + 8` of source rows 8..16. (A constant `Q`, so that
/// each half's addresses are constant displacements from the rows' registers.)
///
/// # Safety
///
/// Source rows `row(8..16)` have 16 readable elements and destination rows `outs.at(0..16)` 16 writable ones; AVX2
/// available.
#[inline(always)]
unsafe fn tile16_4_half<const Q: usize, M: TileMap>(
    first: [__m256; 8],
    row: &impl Fn(usize) -> *const u8,
    outs: &Rows16,
    m: M,
) {
    // SAFETY: the loads and stores of the contract; register work otherwise.
    unsafe {
        let second = eight8_ps(row, 8, Q);
        for c in 0..8 {
            let o = outs.at(8 * Q + c).cast_mut();
            _mm256_storeu_si256(o.cast(), m.m256(_mm256_castps_si256(first[c])));
            _mm256_storeu_si256(o.add(32).cast(), m.m256(_mm256_castps_si256(second[c])));
        }
    }
}

/// Sixteen rows `stride` bytes apart from a first, addressed from four bases (rows 0, 4, 8 and 12) the optimizer
/// cannot see through, plus 0, 1, 2 or 3 strides: a few registers and the CPU's address arithmetic. PERF: with row
/// `r` written `first + r·stride`, LLVM hoisted the 16 offsets out of the tile loop and spilled them (32 with the
/// destination's rows), reloading one before every load and store: AVX2's 16×16 f32 tiles ran 383 instructions a
/// tile that way, 313 through these (224 with [`tile16_4_half`]'s constant halves, regular stores only; callgrind).
#[derive(Clone, Copy)]
struct Rows16 {
    bases: [*const u8; 4],
    stride: isize,
    stride3: isize,
}

impl Rows16 {
    /// The rows from `first`, `stride` bytes apart (`stride3` = 3·`stride`).
    #[inline(always)]
    fn new<T>(first: *const T, stride: isize, stride3: isize) -> Rows16 {
        let b0 = opaque(first.cast::<u8>());
        let b1 = opaque(b0.wrapping_offset(stride.wrapping_mul(4)));
        let b2 = opaque(b1.wrapping_offset(stride.wrapping_mul(4)));
        let b3 = opaque(b2.wrapping_offset(stride.wrapping_mul(4)));
        Rows16 { bases: [b0, b1, b2, b3], stride, stride3 }
    }

    /// Row `r` (< 16).
    #[inline(always)]
    fn at(&self, r: usize) -> *const u8 {
        let b = self.bases[r / 4];
        match r % 4 {
            0 => b,
            1 => b.wrapping_offset(self.stride),
            2 => b.wrapping_offset(self.stride.wrapping_mul(2)),
            _ => b.wrapping_offset(self.stride3),
        }
    }
}

/// `p`, as a value the optimizer cannot see through (so it cannot rewrite addresses computed from it into other
/// forms; see [`Rows16`]).
#[inline(always)]
// The template never dereferences the pointer: `nomem` is the truth, and what lets the compiler keep it in a register.
#[allow(clippy::pointers_in_nomem_asm_block)]
fn opaque(mut p: *const u8) -> *const u8 {
    // SAFETY: an empty instruction template: it reads and writes only the named register, touches no memory.
    unsafe { core::arch::asm!("/* {0} */", inout(reg) p, options(pure, nomem, nostack, preserves_flags)) };
    p
}

/// `count` 32×16 tiles converting f32 into f16 (nearest even) as they transpose (`Arch::tiles_f32_to_f16`), tile `k`
/// at `src + k·steps.0` and `dst + k·steps.1`: each source row's 16 f32 converted as it is loaded, then four groups
/// of 8 rows through the in-lane 16-bit network ([`net8_epi16`]: a register's halves give destination rows `c` and
/// `c + 8`); rows 0..16 give the first halves of the 16 destination rows, kept in registers (or spilled to L1),
/// rows 16..32 the second halves, and each destination row (64 bytes of f16) is stored whole, its two halves one
/// after the other (streamed with `stream`). Each tile prefetches the source lines of the tile two ahead in the
/// run, unless the run's tiles follow each other's rows (one stream, left to the hardware prefetcher). AVX-512's
/// converting 32×16 tile at half the width.
///
/// PERF: one thread, Zen 4, `--isa v3`, f32 NHWC → f16 NCHW of 16 × 16 × 128² (`strider bench`'s cast case) through
/// the buffer of converted rows 455 µs, through these 356 µs (`t/limit` 1.50 → 1.14). The same tiles without the
/// conversion, for plain f16 transposes, won on a 2048² one (1.01 → 0.50 ms) but lost to the 8×8 tiles on every
/// NHWC → NCHW case in the caches tried (32–256 channels, 1.1–2.0× slower; AVX-512's 32×16 tiles do not): the
/// transposes keep 8×8 at this level.
///
/// # Safety
///
/// As `Arch::tiles_f32_to_f16` for each of the `count` tiles (32 source rows of 16 f32, `ss` bytes apart; 16
/// destination rows of 32 f16, `ds` bytes apart); the CPU has AVX2 and F16C (the V3 token checks both).
#[inline(never)]
#[target_feature(enable = "avx,avx2,f16c")]
pub(super) unsafe fn avx2_cast_tiles32x16(
    src: *const u8,
    ss: isize,
    dst: *mut u8,
    ds: isize,
    count: usize,
    steps: (isize, isize),
    stream: bool,
) {
    aligned_frame();
    let (mut s, mut d) = (src, dst);
    // A run whose tiles follow each other's rows reads one stream, left to the hardware prefetcher.
    let ahead = steps.0 != ss.wrapping_mul(32);
    for _ in 0..count {
        let row = |r: usize| s.wrapping_offset((r as isize).wrapping_mul(ss));
        let out = |c: usize| d.wrapping_offset((c as isize).wrapping_mul(ds));
        let next = s.wrapping_offset(steps.0.wrapping_mul(2));
        if ahead {
            for r in 0..32 {
                super::prefetch(next.wrapping_offset((r as isize).wrapping_mul(ss)), 0, 64, false);
            }
        }
        // SAFETY: loads of the tile's 32 source rows' 16 f32 and stores of its 16 destination rows' 32 f16
        // (contract); register work otherwise.
        unsafe {
            let load = |r: usize| {
                let p = row(r);
                let (lo, hi) = (cvtps_ph(_mm256_loadu_ps(p.cast())), cvtps_ph(_mm256_loadu_ps(p.add(32).cast())));
                _mm256_set_m128i(hi, lo)
            };
            // Register c: destination row c's elements r0..r0 + 8 (low half), row c + 8's (high half).
            let eight = |r0: usize| net8_epi16(core::array::from_fn(|k| load(r0 + k)));
            let (g0, g1) = (eight(0), eight(8));
            let mut first = [_mm256_setzero_si256(); 16];
            for c in 0..8 {
                first[c] = _mm256_permute2x128_si256::<0x20>(g0[c], g1[c]);
                first[c + 8] = _mm256_permute2x128_si256::<0x31>(g0[c], g1[c]);
            }
            let (g2, g3) = (eight(16), eight(24));
            for c in 0..8 {
                let second =
                    [_mm256_permute2x128_si256::<0x20>(g2[c], g3[c]), _mm256_permute2x128_si256::<0x31>(g2[c], g3[c])];
                for (h, second) in second.into_iter().enumerate() {
                    let o = out(c + 8 * h);
                    put_half(o, first[c + 8 * h], stream);
                    put_half(o.add(32), second, stream);
                }
            }
        }
        (s, d) = (s.wrapping_offset(steps.0), d.wrapping_offset(steps.1));
    }
}

/// The 8×8 transpose network of 2-byte lanes inside each 128-bit half: output `c` half `h` lane `k` ← `r[k]` half
/// `h` lane `c` (two 8×8 tiles at once: columns 0..8 in the low halves, 8..16 in the high ones).
///
/// # Safety
///
/// AVX2 available.
#[inline(always)]
unsafe fn net8_epi16(r: [__m256i; 8]) -> [__m256i; 8] {
    // SAFETY: register shuffles only (contract: AVX2).
    unsafe {
        let a: [__m256i; 8] = core::array::from_fn(|k| {
            let (x, y) = (r[2 * (k / 2)], r[2 * (k / 2) + 1]);
            if k % 2 == 0 { _mm256_unpacklo_epi16(x, y) } else { _mm256_unpackhi_epi16(x, y) }
        });
        // b: pairs (a0, a2), (a1, a3), (a4, a6), (a5, a7), lo then hi.
        let pair = [(0, 2), (0, 2), (1, 3), (1, 3), (4, 6), (4, 6), (5, 7), (5, 7)];
        let b: [__m256i; 8] = core::array::from_fn(|k| {
            let (x, y) = (a[pair[k].0], a[pair[k].1]);
            if k % 2 == 0 { _mm256_unpacklo_epi32(x, y) } else { _mm256_unpackhi_epi32(x, y) }
        });
        // Column c: the 64-bit halves of b[c / 2] and b[c / 2 + 4].
        core::array::from_fn(|c| {
            let (x, y) = (b[c / 2], b[c / 2 + 4]);
            if c % 2 == 0 { _mm256_unpacklo_epi64(x, y) } else { _mm256_unpackhi_epi64(x, y) }
        })
    }
}

/// The 8×8 transpose network of 4-byte lanes: output `c` lane `k` ← `r[k]` lane `c`.
///
/// # Safety
///
/// AVX available.
#[inline(always)]
unsafe fn net8_ps(r: [__m256; 8]) -> [__m256; 8] {
    // SAFETY: register shuffles only (contract: AVX).
    unsafe {
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
        [
            _mm256_permute2f128_ps::<0x20>(u0, u4),
            _mm256_permute2f128_ps::<0x20>(u1, u5),
            _mm256_permute2f128_ps::<0x20>(u2, u6),
            _mm256_permute2f128_ps::<0x20>(u3, u7),
            _mm256_permute2f128_ps::<0x31>(u0, u4),
            _mm256_permute2f128_ps::<0x31>(u1, u5),
            _mm256_permute2f128_ps::<0x31>(u2, u6),
            _mm256_permute2f128_ps::<0x31>(u3, u7),
        ]
    }
}

/// 8×8 transposes in registers (AVX2). `N` = 4: the classic unpack/shuffle/permute network on 8 ymm rows;
/// `N` = 8: four 4×4 blocks of 64-bit lanes; `N` = 2: unpack 16/32/64 on 8 xmm rows; `N` = 1: 8-byte rows
/// through unpack 8/16/32.
///
/// # Safety
///
/// As `Arch::tile8`; the CPU has AVX2 and F16C (the V3 token checks both; AVX-512F implies F16C).
///
/// Out of line, one copy per width and map that the AVX2 and AVX-512 levels share: inlined into every sweep of
/// every transposing kernel at both levels, it took 122 KB more text. A call per tile: the public rank-5
/// permutation (8×8 tiles of f32) runs 13 % more instructions at `--isa v3`, in the same time (one thread, min of
/// 6 alternations: 182 → 180 µs; AVX-512 141 → 141 µs); the other public transposes the same instructions.
#[inline(never)]
#[target_feature(enable = "avx,avx2,f16c")]
// Index loops mirror the register names of the transpose/shuffle networks.
#[allow(clippy::needless_range_loop)]
pub(super) unsafe fn avx2_tile8<const N: usize, M: TileMap>(src: *const u8, ss: isize, dst: *mut u8, ds: isize, m: M) {
    let row = |r: isize| src.wrapping_offset(r * ss);
    let out = |c: isize| dst.wrapping_offset(c * ds);
    // SAFETY: (whole body) every load reads one source row's 8 elements and every store writes one
    // destination row's 8 elements, in bounds by the contract; AVX2 is enabled by the calling level.
    unsafe {
        match N {
            4 => {
                let r: [__m256; 8] = core::array::from_fn(|k| _mm256_loadu_ps(row(k as isize).cast()));
                let o = net8_ps(r);
                for (c, v) in o.into_iter().enumerate() {
                    _mm256_storeu_ps(out(c as isize).cast(), _mm256_castsi256_ps(m.m256(_mm256_castps_si256(v))));
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
                            let v = _mm256_castsi256_pd(m.m256(_mm256_castpd_si256(v)));
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
                    _mm_storeu_si128(out(c as isize).cast(), m.m128(v));
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
                    let v = m.m128(v);
                    _mm_storel_epi64(out(2 * k as isize).cast(), v);
                    _mm_storel_epi64(out(2 * k as isize + 1).cast(), _mm_unpackhi_epi64(v, v));
                }
            }
            _ => tile8_elements::<N, M>(src, ss, dst, ds, m),
        }
    }
}

/// Planes → pixels, `16 / N` pixels per step: one 16-byte load per plane, `planes` output chunks each the OR of
/// one `pshufb` per plane.
///
/// # Safety
///
/// As `Arch::interleave`; SSSE3 available.
#[inline(always)]
// Index loops mirror the register names of the transpose/shuffle networks.
#[allow(clippy::needless_range_loop)]
pub(super) unsafe fn ssse3_interleave<const N: usize, const P: usize>(
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

/// Pixels → planes: `S` (`t.slots`) 16-byte loads of pixels, one output chunk per plane (`P`, `t.planes`).
///
/// # Safety
///
/// As `Arch::deinterleave`; SSSE3 available; `S == t.slots`, `P == t.planes`.
#[inline(always)]
// Index loops mirror the register names of the transpose/shuffle networks.
#[allow(clippy::needless_range_loop)]
pub(super) unsafe fn ssse3_deinterleave<const N: usize, const S: usize, const P: usize>(
    t: &Planar,
    src: *const u8,
    dst: *mut u8,
    plane_stride: isize,
    n: usize,
) -> usize {
    let step = 16 / N;
    let m: [[__m128i; S]; S] = core::array::from_fn(|k| {
        core::array::from_fn(|i| {
            // SAFETY: a plain 16-byte load of a table entry.
            unsafe { _mm_loadu_si128(t.masks[k][i].as_ptr().cast()) }
        })
    });
    let at = t.steps(t.window(src), step, N * S);
    let mut j = 0;
    while j + step <= n {
        // SAFETY: the windows of output pixels j..j+step (S·16 bytes from the step's lowest address) are readable
        // and element j.. of every plane writable.
        unsafe {
            let base = at.at(j);
            let c: [__m128i; S] = core::array::from_fn(|k| _mm_loadu_si128(base.add(16 * k).cast()));
            for i in 0..P {
                let mut acc = _mm_shuffle_epi8(c[0], m[0][i]);
                for k in 1..S {
                    acc = _mm_or_si128(acc, _mm_shuffle_epi8(c[k], m[k][i]));
                }
                _mm_storeu_si128(dst.wrapping_offset(i as isize * plane_stride).add(j * N).cast(), acc);
            }
        }
        j += step;
    }
    j
}

/// Byte order reversal inside each 16-byte lane, for elements of `N` bytes.
pub(super) const fn lane_reverse_mask<const N: usize>() -> [u8; 16] {
    let mut m = [0u8; 16];
    let mut t = 0;
    while t < 16 {
        // output element t/N takes input element (16/N - 1 - t/N), same byte t%N
        m[t] = ((16 / N - 1 - t / N) * N + t % N) as u8;
        t += 1;
    }
    m
}

/// A `pshufb` mask gathering, of one 16-byte half of `N`-byte elements, the even elements in order (`NEG ==
/// false`) or the odd ones last first (`NEG == true`) into its low 8 bytes; the high 8 bytes are zeroed.
pub(super) const fn lane_pick_mask<const N: usize, const NEG: bool>() -> [u8; 16] {
    let mut m = [0x80u8; 16];
    let mut t = 0;
    while t < 8 {
        // output element t/N takes input element 2·(t/N) (even) or 16/N − 1 − 2·(t/N) (odd, last first)
        let e = if NEG { 16 / N - 1 - 2 * (t / N) } else { 2 * (t / N) };
        m[t] = (e * N + t % N) as u8;
        t += 1;
    }
    m
}

/// The SSSE3 lane loop shared by V3 and V4 (16-byte lanes; more than enough to saturate memory on the rows
/// that need it, and no cross-lane shuffles).
#[inline(always)]
pub(super) unsafe fn sse_shuffle_lanes<const W: usize>(
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
    let ahead = src_step.wrapping_mul(SHUFFLE_PREFETCH_LANES);
    for _ in 0..lanes {
        super::prefetch(p.wrapping_offset(ahead), 0, 1, false);
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

/// Lanes ahead (in the direction of the lanes' steps) that [`sse_shuffle_lanes`] prefetches its windows, a line per
/// lane: mirrored rows walk down through memory, where the hardware prefetchers lag.
///
/// PERF: `--isa v3`, one thread, `u8_hwc1080p_hflip` (lanes of 5 RGB pixels, 15 bytes), `t/limit` between copies of
/// other data (`strider bench`, five alternations): none 1.70–2.40, 32 lanes ahead 1.61–1.72, 128 1.25–1.45, 256
/// 1.32–1.62, 512 1.49–2.03 (one prefetch per four lanes, the loop unrolled by four); a prefetch per lane, not
/// unrolled, 1.51–1.64 against 1.44–1.50 unrolled, for 65 KB less text (the lane loops are instantiated per window
/// count, level and caller). Tight loops were not bound by it (146–150 µs either way against VBMI's 127 µs), nor by
/// the lanes' instructions (unrolled: 4.9 → 4.4 instructions a lane, the same time).
const SHUFFLE_PREFETCH_LANES: isize = 128;

/// [`sse_shuffle_lanes`] two lanes per step: each window of the two lanes loaded into the halves of one register,
/// one in-lane `vpshufb` per window with the masks in both halves, then one 32-byte store where the lanes' outputs
/// follow each other (`dst_step` = 16), else the two halves stored `dst_step` apart (the second overwriting the
/// first's unused tail, as consecutive lanes do); one prefetch per pair, as far ahead as [`sse_shuffle_lanes`]'; an
/// odd last lane alone.
///
/// PERF: one thread, Zen 4, `--isa v3`: lanes of 5 RGB pixels (`dst_step` 15) ran one at a time, ~7 instructions
/// a lane (1.3 cycles); in pairs, BGR → RGB of a 720p frame 67.4 → 47.0 µs in tight loops (`t/limit` 1.44 → 0.98),
/// 68.8 → 58.0 µs between copies of other data; the mirrored 1080p row 128.5 → 123.1 µs.
///
/// # Safety
///
/// As [`sse_shuffle_lanes`]; AVX2 available.
#[inline(always)]
pub(super) unsafe fn avx2_shuffle_lanes<const W: usize>(
    s: &Shuffle,
    src: *const u8,
    src_step: isize,
    dst: *mut u8,
    dst_step: usize,
    lanes: usize,
) -> usize {
    // SAFETY: forwarded contract.
    unsafe {
        if dst_step == 16 {
            avx2_lane_pairs::<W, true>(s, src, src_step, dst, dst_step, lanes)
        } else {
            avx2_lane_pairs::<W, false>(s, src, src_step, dst, dst_step, lanes)
        }
    }
}

/// [`avx2_shuffle_lanes`] with the store of a pair fixed: one 32-byte store (`WHOLE`, `dst_step` = 16) or the two
/// halves `dst_step` apart.
///
/// # Safety
///
/// As [`avx2_shuffle_lanes`]; `dst_step` = 16 when `WHOLE`, else at most 16.
#[inline(always)]
unsafe fn avx2_lane_pairs<const W: usize, const WHOLE: bool>(
    s: &Shuffle,
    src: *const u8,
    src_step: isize,
    dst: *mut u8,
    dst_step: usize,
    lanes: usize,
) -> usize {
    // SAFETY: the caller runs this inside a level with AVX2; the masks are plain 16-byte loads.
    let masks: [__m256i; W] =
        core::array::from_fn(|w| unsafe { _mm256_broadcastsi128_si256(_mm_loadu_si128(s.masks[w].as_ptr().cast())) });
    let off: [isize; W] = core::array::from_fn(|w| s.win_off[w]);
    let (mut p, mut d) = (src, dst);
    let ahead = src_step.wrapping_mul(SHUFFLE_PREFETCH_LANES);
    for _ in 0..lanes / 2 {
        super::prefetch(p.wrapping_offset(ahead), 0, 1, false);
        let window = |w: usize| {
            let lo = p.wrapping_offset(off[w]);
            // SAFETY: the windows of lanes l and l + 1 (this pair), inside the row by the caller's contract.
            unsafe { _mm256_loadu2_m128i(lo.wrapping_offset(src_step).cast(), lo.cast()) }
        };
        // SAFETY: as for each lane of `sse_shuffle_lanes`: the two lanes' 16-byte stores, at d and d + dst_step (the
        // 32 bytes at d when WHOLE), in that order.
        unsafe {
            let mut acc = _mm256_shuffle_epi8(window(0), masks[0]);
            #[allow(clippy::needless_range_loop)]
            for w in 1..W {
                acc = _mm256_or_si256(acc, _mm256_shuffle_epi8(window(w), masks[w]));
            }
            if WHOLE {
                _mm256_storeu_si256(d.cast(), acc);
            } else {
                _mm_storeu_si128(d.cast(), _mm256_castsi256_si128(acc));
                _mm_storeu_si128(d.add(dst_step).cast(), _mm256_extracti128_si256::<1>(acc));
            }
        }
        p = p.wrapping_offset(2 * src_step);
        d = d.wrapping_add(2 * dst_step);
    }
    if lanes % 2 == 1 {
        // SAFETY: the last lane, as above.
        unsafe { sse_shuffle_lanes::<W>(s, p, src_step, d, dst_step, 1) };
    }
    lanes
}

/// [`Arch::shift_blends`](super::Arch::shift_blends) with AVX2: byte by byte up to the first 32-byte boundary of
/// the output past the reach of the loads, then per group of 96 bytes three registers, each the blend of three
/// loads shifted by the channels' offsets ([`ShiftBlend`](crate::tables::ShiftBlend)), stored aligned.
///
/// PERF: the 16-byte `pshufb` lanes hold five RGB pixels (15 bytes) and store two lanes' halves apart. One thread,
/// Zen 4 VM, `--isa v3`, BGR → RGB of a 720p frame, tight loops: lanes 79–100 µs, these with the output 3 bytes past
/// a line (the rows' pixels from the first) 78 µs, aligned 61 µs (`memcpy` of the frame 57 µs).
///
/// # Safety
///
/// As `Arch::shift_blends`; AVX2 available.
#[inline(always)]
pub(super) unsafe fn avx2_shift_blends(t: &crate::tables::ShiftBlend, src: *const u8, dst: *mut u8, n: usize) -> usize {
    const GROUP: usize = crate::tables::ShiftBlend::GROUP;
    let (w, reach) = (t.width, t.reach());
    // The head: at least the reach (the loads of the first group stay in the row), up to a 32-byte boundary.
    let head = reach + (dst as usize).wrapping_add(reach).wrapping_neg() % 32;
    let Some(groups) = (n * w).checked_sub(head + reach).map(|b| b / GROUP) else { return 0 };
    if groups == 0 {
        return 0;
    }
    let phase = head % w;
    // SAFETY: (whole body) the head's bytes and each group's 96 bytes at `dst`, and the loads of their bytes shifted
    // by at most `reach` either way — inside the row's n pixels (head ≥ reach, head + 96·groups + reach ≤ n·w);
    // stores 32-byte aligned; 32-byte loads of the masks (phase + 64 + 32 ≤ 12 + 96); AVX2 (contract).
    unsafe {
        for k in 0..head {
            *dst.add(k) = *src.add(k).wrapping_offset(t.offsets[t.channel(k)]);
        }
        let mut m = [[_mm256_setzero_si256(); 3]; 3];
        for (o, m) in m.iter_mut().enumerate() {
            for (c, m) in m.iter_mut().enumerate().skip(1) {
                *m = _mm256_loadu_si256(t.select[c].as_ptr().add(phase + 32 * o).cast());
            }
        }
        let off = t.offsets;
        let (mut s, mut d) = (src.add(head), dst.add(head));
        for _ in 0..groups {
            for (o, m) in m.iter().enumerate() {
                let at = |c: usize| _mm256_loadu_si256(s.wrapping_offset(32 * o as isize + off[c]).cast());
                let x = _mm256_blendv_epi8(at(0), at(1), m[1]);
                _mm256_store_si256(d.add(32 * o).cast(), _mm256_blendv_epi8(x, at(2), m[2]));
            }
            s = s.add(GROUP);
            d = d.add(GROUP);
        }
    }
    (head + groups * GROUP) / w
}

/// `[first, first + step, …]` as 32 u16 indices.
pub(super) const fn ramp16(first: i32, step: i32) -> [i16; 32] {
    let mut r = [0i16; 32];
    let mut t = 0;
    while t < 32 {
        r[t] = (first + step * t as i32) as i16;
        t += 1;
    }
    r
}

/// f32 → f16 bits of 8 lanes, rounded to nearest even whatever MXCSR says, into a register.
///
/// PERF: inline assembly, so that the compiler cannot fold the conversion into the store that follows: the memory
/// form of `vcvtps2ph` is microcoded on AMD cores and ran 2–3× slower (LLVM folds it even when two halves are
/// joined into one 32-byte store first).
///
/// # Safety
///
/// The CPU has AVX and F16C.
#[target_feature(enable = "avx,f16c")]
#[inline]
pub(super) unsafe fn cvtps_ph(x: __m256) -> __m128i {
    let r: __m128i;
    // SAFETY: a register-to-register conversion; F16C by the contract.
    unsafe {
        core::arch::asm!(
            "vcvtps2ph {r}, {x}, 0",
            r = lateout(xmm_reg) r,
            x = in(ymm_reg) x,
            options(pure, nomem, nostack, preserves_flags)
        );
    }
    r
}

/// f32 → f16 bits of 16 lanes, rounded to nearest even whatever MXCSR says, into a register (inline assembly, so
/// that the compiler cannot fold the conversion into a store: see [`cvtps_ph`]).
///
/// # Safety
///
/// The CPU has AVX-512F.
#[target_feature(enable = "avx512f")]
#[inline]
pub(super) unsafe fn cvtps_ph16(x: __m512) -> __m256i {
    let r: __m256i;
    // SAFETY: a register-to-register conversion; AVX-512F by the contract.
    unsafe {
        core::arch::asm!(
            "vcvtps2ph {r}, {x}, 0",
            r = lateout(ymm_reg) r,
            x = in(zmm_reg) x,
            options(pure, nomem, nostack, preserves_flags)
        );
    }
    r
}

/// f16 → f32 with F16C, 8 elements per instruction; returns the elements done.
///
/// # Safety
///
/// As [`CastFn`](crate::convert::CastFn); the CPU has AVX and F16C (the V3 token checks both).
#[target_feature(enable = "avx,avx2,f16c")]
pub(super) unsafe fn f16c_to_f32(src: *const u8, dst: *mut u8, n: usize) -> usize {
    let mut i = 0;
    while i + 8 <= n {
        // SAFETY: elements i..i+8 of both ranges; each is read before its output is written.
        unsafe { _mm256_storeu_ps(dst.add(4 * i).cast(), _mm256_cvtph_ps(_mm_loadu_si128(src.add(2 * i).cast()))) };
        i += 8;
    }
    i
}

/// f32 → f16 with F16C, rounded to nearest even whatever MXCSR says; returns the elements done (conversions in
/// registers: see [`cvtps_ph`]).
///
/// # Safety
///
/// As [`f16c_to_f32`].
#[target_feature(enable = "avx,avx2,f16c")]
pub(super) unsafe fn f16c_from_f32(src: *const u8, dst: *mut u8, n: usize) -> usize {
    let mut i = 0;
    while i + 16 <= n {
        // SAFETY: elements i..i+16 of both ranges, read before written.
        unsafe {
            let lo = cvtps_ph(_mm256_loadu_ps(src.add(4 * i).cast()));
            let hi = cvtps_ph(_mm256_loadu_ps(src.add(4 * i + 32).cast()));
            _mm256_storeu_si256(dst.add(2 * i).cast(), _mm256_set_m128i(hi, lo));
        }
        i += 16;
    }
    i
}

/// f64 → f32 rounded to odd, 4 elements at a time with AVX2: convert to nearest, then, where the result is inexact,
/// step back toward zero when it rounded away and set the last bit; returns the elements done.
///
/// # Safety
///
/// As [`CastFn`](crate::convert::CastFn); AVX2 available.
#[inline(always)]
pub(super) unsafe fn avx2_f64_to_f32_odd(src: *const u8, dst: *mut u8, n: usize) -> usize {
    let mut i = 0;
    // SAFETY: (whole loop) elements i..i+4 of both ranges; AVX2 by the caller's level.
    unsafe {
        let abs = _mm256_castsi256_pd(_mm256_set1_epi64x(i64::MAX));
        let low_dwords = _mm256_setr_epi32(0, 2, 4, 6, 0, 2, 4, 6);
        let narrow =
            |m: __m256d| _mm256_castsi256_si128(_mm256_permutevar8x32_epi32(_mm256_castpd_si256(m), low_dwords));
        while i + 4 <= n {
            let x = _mm256_loadu_pd(src.add(8 * i).cast());
            let y = _mm256_cvtpd_ps(x);
            let back = _mm256_cvtps_pd(y);
            // NaN keeps its `as` conversion: `inexact` and `away` are false for it. The
            // unordered-not-equal masked by ordered is NEQ_OQ spelled in SSE2 predicates,
            // which valgrind emulates faithfully (it reads NEQ_OQ as NEQ_UQ).
            let ordered = _mm256_cmp_pd::<_CMP_ORD_Q>(x, x);
            let inexact = _mm256_and_pd(_mm256_cmp_pd::<_CMP_NEQ_UQ>(back, x), ordered);
            let away = _mm256_cmp_pd::<_CMP_GT_OQ>(_mm256_and_pd(back, abs), _mm256_and_pd(x, abs));
            let bits = _mm_add_epi32(_mm_castps_si128(y), narrow(away)); // all-ones lanes subtract 1
            let bits = _mm_or_si128(bits, _mm_and_si128(narrow(inexact), _mm_set1_epi32(1)));
            _mm_storeu_si128(dst.add(4 * i).cast(), bits);
            i += 4;
        }
    }
    i
}

/// Runs `lanes` 16-byte shuffle lanes with the window count of `s`; returns `lanes`.
///
/// # Safety
///
/// As `Arch::shuffle_lanes`; AVX2 available.
#[inline(always)]
pub(super) unsafe fn shuffle_lanes(
    s: &Shuffle,
    src: *const u8,
    src_step: isize,
    dst: *mut u8,
    dst_step: usize,
    lanes: usize,
) -> usize {
    // SAFETY: forwarded contract.
    unsafe {
        match s.windows {
            1 => avx2_shuffle_lanes::<1>(s, src, src_step, dst, dst_step, lanes),
            2 => avx2_shuffle_lanes::<2>(s, src, src_step, dst, dst_step, lanes),
            3 => avx2_shuffle_lanes::<3>(s, src, src_step, dst, dst_step, lanes),
            4 => avx2_shuffle_lanes::<4>(s, src, src_step, dst, dst_step, lanes),
            _ => 0,
        }
    }
}

/// Runs the lane pairs of a table over `rows` rows with the window count of the pairs; returns the pairs run in
/// each row (0 for none or for more than 4 windows).
///
/// PERF: a table's 16-byte lanes ran lane by lane over the rows of a run (two rows a register, the halves stored
/// apart): the public u16 rank-8 case (runs of 3 rows of 32 lanes of 3 windows each) took 7,500 instructions an
/// operation in its lanes (callgrind), 63 a lane and run, half of them the lane's set-up (a jump on its window
/// count, masks, offsets). In pairs of one window count: 3,600. One thread, Zen 4, `--isa v3`, tight loops:
/// 570–830 → 390–470 ns (AVX-512 without VBMI, which runs this too: 790 → 420 ns); the i16 rank-6 slices of 64 KiB
/// (rows of 64 elements) 2.8–4.3 → 2.1–2.6 µs. Row by row (each pair's tables loaded again in every row: 1.7 times
/// the loads, the same instructions) was up to 1.6 times slower on those. Out of line, one copy for every level and
/// element width (called once per run of rows): inlined into every level's table rows the binary's text grew by
/// 95 KB, out of line by 17 KB.
///
/// # Safety
///
/// As `Arch::table_pairs`; AVX2 available.
#[inline(never)]
#[target_feature(enable = "avx,avx2")]
pub(super) unsafe fn table_pairs(
    pairs: &[LanePair],
    src: *const u8,
    src_step: isize,
    dst: *mut u8,
    dst_step: usize,
    rows: usize,
) -> usize {
    // SAFETY: forwarded contract.
    unsafe {
        match pairs.first().map(|p| p.windows) {
            Some(1) => avx2_table_pairs::<1>(pairs, src, src_step, dst, dst_step, rows),
            Some(2) => avx2_table_pairs::<2>(pairs, src, src_step, dst, dst_step, rows),
            Some(3) => avx2_table_pairs::<3>(pairs, src, src_step, dst, dst_step, rows),
            Some(4) => avx2_table_pairs::<4>(pairs, src, src_step, dst, dst_step, rows),
            _ => return 0,
        }
    }
    pairs.len()
}

/// [`table_pairs`] with `W` windows a pair, pair by pair down the rows (the pair's masks and offsets in registers):
/// per pair and row, `W` × (two 16-byte loads into the halves, one `vpshufb`) ORed, one 32-byte store.
///
/// # Safety
///
/// As `Arch::table_pairs`, every pair of `W` windows; AVX2 available.
#[inline(always)]
unsafe fn avx2_table_pairs<const W: usize>(
    pairs: &[LanePair],
    src: *const u8,
    src_step: isize,
    dst: *mut u8,
    dst_step: usize,
    rows: usize,
) {
    for (k, p) in pairs.iter().enumerate() {
        // SAFETY: plain 32-byte loads of the pair's masks.
        let masks: [__m256i; W] = core::array::from_fn(|w| unsafe { _mm256_loadu_si256(p.masks[w].as_ptr().cast()) });
        let off: [[isize; 2]; W] = core::array::from_fn(|w| p.off[w]);
        let (mut s, mut d) = (src, dst.wrapping_add(32 * k));
        for _ in 0..rows {
            let window = |w: usize| {
                let [lo, hi] = off[w];
                // SAFETY: the pair's windows in this row, inside the row's input (contract).
                unsafe {
                    let v = _mm256_loadu2_m128i(s.wrapping_offset(hi).cast(), s.wrapping_offset(lo).cast());
                    _mm256_shuffle_epi8(v, masks[w])
                }
            };
            let mut acc = window(0);
            for w in 1..W {
                // SAFETY: AVX2 (contract).
                acc = unsafe { _mm256_or_si256(acc, window(w)) };
            }
            // SAFETY: the pair's 32 output bytes in this row (contract).
            unsafe { _mm256_storeu_si256(d.cast(), acc) };
            s = s.wrapping_offset(src_step);
            d = d.wrapping_add(dst_step);
        }
    }
}

/// Interleaves with the plane count of `t`; returns the pixels done.
///
/// # Safety
///
/// As `Arch::interleave`; AVX2 available.
#[inline(always)]
pub(super) unsafe fn interleave<const N: usize>(
    t: &Planar,
    src: *const u8,
    plane_stride: isize,
    dst: *mut u8,
    n: usize,
) -> usize {
    // SAFETY: forwarded contract.
    unsafe {
        match t.planes {
            2 => avx2_interleave::<N, 2>(t, src, plane_stride, dst, n),
            3 => avx2_interleave::<N, 3>(t, src, plane_stride, dst, n),
            4 => avx2_interleave::<N, 4>(t, src, plane_stride, dst, n),
            _ => 0,
        }
    }
}

/// Deinterleaves with the slot and plane counts of `t`; returns the pixels done.
///
/// # Safety
///
/// As `Arch::deinterleave`; AVX2 available.
#[inline(always)]
pub(super) unsafe fn deinterleave<const N: usize>(
    t: &Planar,
    src: *const u8,
    dst: *mut u8,
    plane_stride: isize,
    n: usize,
) -> usize {
    // SAFETY: forwarded contract, each instantiation with its slot and plane counts.
    unsafe {
        match (t.slots, t.planes) {
            (2, 2) => avx2_deinterleave::<N, 2, 2>(t, src, dst, plane_stride, n),
            (3, 3) if N == 4 && t.dwords8.blends => avx2_dwords3::<3>(t, src, dst, plane_stride, n),
            (3, 2) if N == 4 && t.dwords8.blends => avx2_dwords3::<2>(t, src, dst, plane_stride, n),
            (3, 3) => avx2_deinterleave::<N, 3, 3>(t, src, dst, plane_stride, n),
            (4, 4) => avx2_deinterleave::<N, 4, 4>(t, src, dst, plane_stride, n),
            (3, 2) => avx2_deinterleave::<N, 3, 2>(t, src, dst, plane_stride, n),
            (4, 2) => avx2_deinterleave::<N, 4, 2>(t, src, dst, plane_stride, n),
            (4, 3) => avx2_deinterleave::<N, 4, 3>(t, src, dst, plane_stride, n),
            _ => 0,
        }
    }
}

/// The 16-byte masks of `t` in both 128-bit lanes, by output register: `[o][s]` is the mask source register `s`
/// takes into output register `o` (`t.masks[s][o]` when deinterleaving — sources are pixel chunks, outputs planes —
/// `t.masks[o][s]` when interleaving).
///
/// # Safety
///
/// AVX2 available.
#[inline(always)]
unsafe fn lane_masks<const P: usize>(t: &Planar) -> [[__m256i; P]; P] {
    // SAFETY: AVX (contract).
    let mut m = [[unsafe { _mm256_setzero_si256() }; P]; P];
    for (o, row) in m.iter_mut().enumerate() {
        for (s, x) in row.iter_mut().enumerate() {
            let mask = if t.interleave { &t.masks[o][s] } else { &t.masks[s][o] };
            // SAFETY: a plain 16-byte load of a table entry; AVX2 (contract).
            *x = unsafe { _mm256_broadcastsi128_si256(_mm_loadu_si128(mask.as_ptr().cast())) };
        }
    }
    m
}

/// One output register of the two-step planar loops: the OR of each source register shuffled by its mask.
///
/// # Safety
///
/// AVX2 available.
#[inline(always)]
unsafe fn or_of_shuffles<const P: usize>(v: &[__m256i; P], m: &[__m256i; P]) -> __m256i {
    // SAFETY: register operations of AVX2 (contract).
    unsafe {
        let mut acc = _mm256_shuffle_epi8(v[0], m[0]);
        for s in 1..P {
            acc = _mm256_or_si256(acc, _mm256_shuffle_epi8(v[s], m[s]));
        }
        acc
    }
}

/// [`ssse3_deinterleave`] two steps at a time: the two steps' 16-byte chunks `k` in the halves of register `k`, one
/// `vpshufb` per chunk and plane, 32 bytes stored per plane (the rest by [`ssse3_deinterleave`]).
///
/// PERF: half the shuffles of the 16-byte loop, its bound (u8 NHWC → NCHW of 32×224²×3, one thread, Zen 4,
/// `--isa v3`: 187 → 147 µs; f32 NHWC → f16 NCHW through the buffer 1045 → 818 µs).
///
/// # Safety
///
/// As `Arch::deinterleave`; AVX2 available.
#[inline(always)]
#[allow(clippy::needless_range_loop)]
pub(super) unsafe fn avx2_deinterleave<const N: usize, const S: usize, const P: usize>(
    t: &Planar,
    src: *const u8,
    dst: *mut u8,
    plane_stride: isize,
    n: usize,
) -> usize {
    let step = 16 / N;
    // SAFETY: AVX2 (contract).
    let m = unsafe { lane_masks::<S>(t) };
    let at = t.steps(t.window(src), step, N * S);
    let mut j = 0;
    while j + 2 * step <= n {
        // SAFETY: the windows of output pixels j..j+2·step (two steps of S·16 bytes from their lowest addresses)
        // are readable and elements j..j+2·step of every plane writable; AVX2 (contract).
        unsafe {
            let (b0, b1) = (at.at(j), at.at(j + step));
            let mut c = [_mm256_setzero_si256(); S];
            for k in 0..S {
                c[k] = _mm256_loadu2_m128i(b1.add(16 * k).cast(), b0.add(16 * k).cast());
            }
            // (Planes a constant apart from slots: a run-time plane count in this small loop cost 24 % on u8
            // NHWC → NCHW at AVX2.)
            for i in 0..P {
                let acc = or_of_shuffles(&c, &m[i]);
                _mm256_storeu_si256(dst.wrapping_offset(i as isize * plane_stride).add(j * N).cast(), acc);
            }
        }
        j += 2 * step;
    }
    // SAFETY: the contract for pixels j..n, from output pixel j.
    j + unsafe { ssse3_deinterleave::<N, S, P>(t, t.pixel(src, j), dst.add(j * N), plane_stride, n - j) }
}

/// A plane of 8 pixels in registers `v` (loaded from the block's lowest address) by the blend-first form of
/// [`Dwords8`](crate::tables::Dwords8): register 0 with the lanes `mix[k]` selects taken from register `k`, then
/// permuted by `order`.
///
/// # Safety
///
/// AVX2 available.
#[inline(always)]
unsafe fn blend_then_permute<const K: usize>(v: &[__m256i; K], mix: &[__m256i; K], order: __m256i) -> __m256i {
    // SAFETY: register operations of AVX2 (contract).
    unsafe {
        let mut x = v[0];
        for k in 1..K {
            x = _mm256_blendv_epi8(x, v[k], mix[k]);
        }
        _mm256_permutevar8x32_epi32(x, order)
    }
}

/// [`avx2_deinterleave`] of 4-byte elements from pixels of 3 slots (into 3 or 2 planes), 8 pixels a step: three
/// 32-byte loads, then per plane two blends and one `vpermd` ([`blend_then_permute`]; the rest by
/// [`ssse3_deinterleave`]).
///
/// PERF: the two-step `vpshufb` loop takes three shuffles and two ORs per plane, and a lane insert per register.
/// One thread, Zen 4 VM, `--isa v3`, f32 NHWC → NCHW 32 × 224² × 3, tight loops, four alternations: 1.50–1.86 →
/// 1.28–1.46 ms; the fused form (f32 NHWC → f16 NCHW, [`avx2_deinterleave_floats`]) 1.08–1.40 → 0.68–0.73 ms.
///
/// # Safety
///
/// As `Arch::deinterleave` for 4-byte elements from 3 slots, `t.dwords8.blends`; AVX2 available.
#[inline(always)]
#[allow(clippy::needless_range_loop)] // plane indices pick tables and planes
unsafe fn avx2_dwords3<const P: usize>(
    t: &Planar,
    src: *const u8,
    dst: *mut u8,
    plane_stride: isize,
    n: usize,
) -> usize {
    let d = &t.dwords8;
    // SAFETY: (whole body) 32-byte table loads; the window of output pixels j..j+8 (96 bytes from its lowest
    // address) is readable and elements j..j+8 of every plane writable (contract, j + 8 ≤ n); AVX2 (contract).
    unsafe {
        let mut mix = [[_mm256_setzero_si256(); 3]; P];
        let mut order = [_mm256_setzero_si256(); P];
        for i in 0..P {
            order[i] = _mm256_loadu_si256(d.order[i].as_ptr().cast());
            for k in 0..3 {
                mix[i][k] = _mm256_loadu_si256(d.mix[i][k].as_ptr().cast());
            }
        }
        let at = t.steps(t.window(src), 8, 12);
        let mut j = 0;
        while j + 8 <= n {
            let base = at.at(j);
            let mut v = [_mm256_setzero_si256(); 3];
            for k in 0..3 {
                v[k] = _mm256_loadu_si256(base.add(32 * k).cast());
            }
            for i in 0..P {
                let x = blend_then_permute(&v, &mix[i], order[i]);
                _mm256_storeu_si256(dst.wrapping_offset(i as isize * plane_stride).add(4 * j).cast(), x);
            }
            j += 8;
        }
        j + ssse3_deinterleave::<4, 3, P>(t, t.pixel(src, j), dst.add(4 * j), plane_stride, n - j)
    }
}

/// [`ssse3_interleave`] two steps at a time: each plane's two 16-byte chunks in the halves of one register, one
/// `vpshufb` per plane and output chunk, the two steps' output chunks `k` stored from the halves of register `k`
/// (the rest by [`ssse3_interleave`]).
///
/// # Safety
///
/// As `Arch::interleave`; AVX2 available.
#[inline(always)]
#[allow(clippy::needless_range_loop)]
pub(super) unsafe fn avx2_interleave<const N: usize, const P: usize>(
    t: &Planar,
    src: *const u8,
    plane_stride: isize,
    dst: *mut u8,
    n: usize,
) -> usize {
    let step = 16 / N;
    // SAFETY: AVX2 (contract).
    let m = unsafe { lane_masks::<P>(t) };
    let mut j = 0;
    while j + 2 * step <= n {
        // SAFETY: pixels j..j+2·step of every plane are readable and their outputs (2·P·16 bytes) writable; AVX2
        // (contract).
        unsafe {
            let mut v = [_mm256_setzero_si256(); P];
            for i in 0..P {
                v[i] = _mm256_loadu_si256(src.wrapping_offset(i as isize * plane_stride).add(j * N).cast());
            }
            let out = dst.add(j * N * P);
            for k in 0..P {
                let acc = or_of_shuffles(&v, &m[k]);
                _mm256_storeu2_m128i(out.add(16 * (P + k)).cast(), out.add(16 * k).cast(), acc);
            }
        }
        j += 2 * step;
    }
    // SAFETY: the contract for pixels j..n.
    j + unsafe { ssse3_interleave::<N, P>(t, src.add(j * N), plane_stride, dst.add(j * N * P), n - j) }
}

/// As `Arch::tile16x32_u8`: 16 rows of 32 bytes in 16 registers, four rounds of unpacks (8, 16, 32, 64 bits) of
/// registers `i` and `i + 8` within 128-bit halves leave column `k` in register `k` (low half; column `16 + k` in the
/// high half), its lanes in bit-reversed row order, so register `i` is loaded from row `bitrev(i)`.
///
/// # Safety
///
/// As `Arch::tile16x32_u8`; AVX2 available.
#[inline(always)]
#[allow(clippy::needless_range_loop)]
pub(super) unsafe fn avx2_tile16x32_u8(src: *const u8, ss: isize, dst: *mut u8) {
    // SAFETY: (whole body) 16 loads of a source row's 32 bytes and 32 stores of 16 bytes inside `dst..dst + 512`,
    // in bounds by the contract; AVX2 is enabled by the calling level.
    unsafe {
        const BITREV: [isize; 16] = [0, 8, 4, 12, 2, 10, 6, 14, 1, 9, 5, 13, 3, 11, 7, 15];
        // (A loop, not `array::from_fn`: its closure is not inlined into the target features.)
        let mut r = [_mm256_setzero_si256(); 16];
        for k in 0..16 {
            r[k] = _mm256_loadu_si256(src.wrapping_offset(BITREV[k] * ss).cast());
        }
        for round in 0..4 {
            let mut t = [_mm256_setzero_si256(); 16];
            for i in 0..8 {
                let (a, b) = (r[i], r[i + 8]);
                let (lo, hi) = match round {
                    0 => (_mm256_unpacklo_epi8(a, b), _mm256_unpackhi_epi8(a, b)),
                    1 => (_mm256_unpacklo_epi16(a, b), _mm256_unpackhi_epi16(a, b)),
                    2 => (_mm256_unpacklo_epi32(a, b), _mm256_unpackhi_epi32(a, b)),
                    _ => (_mm256_unpacklo_epi64(a, b), _mm256_unpackhi_epi64(a, b)),
                };
                t[2 * i] = lo;
                t[2 * i + 1] = hi;
            }
            r = t;
        }
        for k in 0..16 {
            _mm_storeu_si128(dst.add(k * 16).cast(), _mm256_castsi256_si128(r[k]));
            _mm_storeu_si128(dst.add((16 + k) * 16).cast(), _mm256_extracti128_si256::<1>(r[k]));
        }
    }
}

/// As `Arch::taps_i16`: per pair of taps and channel, the 16 lanes of both taps interleaved into i16 pairs within
/// 128-bit lanes (registers of lanes 0–3 and 8–11, then 4–7 and 12–15: [`PAIR_ORDER`](super::PAIR_ORDER)),
/// multiplied by their weight pair (`vpmaddwd`), the sums put back in lane order at the end
/// ([`Simd::store_pair_order`]). AVX-512 takes this one: a 64-byte register would hold two channels' lanes.
///
/// # Safety
///
/// As `Arch::taps_i16`; AVX2 available.
#[inline(always)]
pub(super) unsafe fn avx2_taps_i16<const G: usize>(
    src: *const i16,
    step: usize,
    pairs: &[i32],
    out: &mut [[i32; 16]; G],
) {
    // SAFETY: forwarded contract; each load reads the 16 i16 of a channel's lanes of taps 2i and 2i + 1; AVX2.
    unsafe {
        let mut acc = [[Avx2::zero(); 2]; G];
        let mut p = src;
        for &w in pairs {
            let w = Avx2::splat32(w);
            for (c, acc) in acc.iter_mut().enumerate() {
                let (a, b) = (Avx2::load(p.add(c * 16).cast()), Avx2::load(p.add(step + c * 16).cast()));
                let (lo, hi) = Avx2::unpack16(a, b);
                acc[0] = Avx2::add32(acc[0], Avx2::madd16(lo, w));
                acc[1] = Avx2::add32(acc[1], Avx2::madd16(hi, w));
            }
            p = p.add(2 * step);
        }
        for (o, acc) in out.iter_mut().zip(acc) {
            Avx2::store_pair_order(acc, o.as_mut_ptr());
        }
    }
}

/// As `Arch::pair_bytes`: both columns widened, interleaved in each 128-bit half (the block order,
/// [`PAIR_ORDER`](super::PAIR_ORDER)).
///
/// # Safety
///
/// As `Arch::pair_bytes`; AVX2 available.
#[inline(always)]
pub(super) unsafe fn avx2_pair_bytes(a: *const u8, b: *const u8, out: *mut i16) {
    // SAFETY: 16 bytes at a and b, 64 bytes at out (contract); AVX2 (contract).
    unsafe {
        let (x, y) = (_mm256_cvtepu8_epi16(_mm_loadu_si128(a.cast())), _mm256_cvtepu8_epi16(_mm_loadu_si128(b.cast())));
        _mm256_storeu_si256(out.cast(), _mm256_unpacklo_epi16(x, y));
        _mm256_storeu_si256(out.add(16).cast(), _mm256_unpackhi_epi16(x, y));
    }
}

/// [`Arch::rows_u8_q7`](super::Arch::rows_u8_q7) with AVX2: [`wide::rows_u8_q7`] over 32-byte registers; rows
/// shorter than 32 bytes one element at a time.
///
/// # Safety
///
/// As `Arch::rows_u8_q7`; AVX2 available.
#[inline(always)]
pub(super) unsafe fn avx2_rows_u8_q7(src: *const u8, step: isize, w: super::RowWeights<'_>, n: usize, out: *mut i16) {
    // SAFETY: forwarded contract (n ≥ 32 for the registers).
    unsafe {
        if n < 32 {
            super::rows_u8_q7_elements(src, step, w, n, out)
        } else {
            wide::rows_u8_q7::<Avx2>(src, step, w, n, out)
        }
    }
}

/// [`Arch::sampled_row_u8`](super::Arch::sampled_row_u8) with AVX2 for pixels of 3 or 4 bytes: two output pixels
/// a step, their pixel pairs loaded 8 bytes at a time (from both rows with row weights) into the halves of a
/// register; with row weights, the rows' bytes interleaved and widened to i16 pairs (one `vpmaddwd` by the row
/// weights per 4 bytes), rounded, shifted and packed with saturation as `rows_u8_q7` does, else the bytes widened;
/// then each channel's two pixels paired by one `vpshufb` for one `vpmaddwd` by the pixel's column weights,
/// converted and scaled. The output pixels whose 8-byte loads would pass the row's end, and other pixel widths,
/// one element at a time.
///
/// Out of line (called once per output row): one copy for the three x86 levels.
///
/// # Safety
///
/// As `Arch::sampled_row_u8`; AVX2 available.
#[inline(never)]
#[target_feature(enable = "avx,avx2")]
pub(super) unsafe fn avx2_sampled_row_u8(p: &super::PixelPairs<'_>, out: &mut [f32]) {
    // SAFETY: forwarded contract.
    unsafe {
        let done = match (p.g, p.w) {
            (3, Some(w)) => sampled_pairs::<3, true>(p, w, out),
            (4, Some(w)) => sampled_pairs::<4, true>(p, w, out),
            (3, None) => sampled_pairs::<3, false>(p, ONE_ROW, out),
            (4, None) => sampled_pairs::<4, false>(p, ONE_ROW, out),
            _ => 0,
        };
        super::sampled_row_elements(p, out, done)
    }
}

/// The row weights [`sampled_pairs`] takes for one row (unused).
const ONE_ROW: super::RowWeights<'static> = super::RowWeights { pairs: &[0], taps: 2, shift: 8 };

/// The pixel pairs of [`avx2_sampled_row_u8`] for pixels of `G` bytes, the rows summed first with `ROWS`; returns
/// the output pixels done (a prefix).
///
/// # Safety
///
/// As [`avx2_sampled_row_u8`], `G` being 3 or 4; `w` the row weights with `ROWS`.
#[inline(always)]
unsafe fn sampled_pairs<const G: usize, const ROWS: bool>(
    p: &super::PixelPairs<'_>,
    w: super::RowWeights<'_>,
    out: &mut [f32],
) -> usize {
    let (rows, starts, cols, plane) = (p.rows, p.starts, p.cols, p.plane);
    // Output pixels whose 8 bytes from their pair's start lie inside the row (`starts` increase).
    let n = starts.partition_point(|&s| s + 8 <= p.row_bytes).min(cols.len());
    let pairs = n / 2;
    // The channel pairs (pixel 0, pixel 1) of each 128-bit lane's eight values (i16 `q0..q8`: pixel 0's channels,
    // then pixel 1's), a pair's bytes as `vpmaddwd` takes them; -1 zeroes the unused fourth pair of 3 channels.
    const fn pairing(g: usize) -> [i8; 32] {
        let mut m = [-1i8; 32];
        let mut k = 0;
        while k < 32 {
            // Byte `odd` of i16 lane `i` of the lane's eight: channel c's pixel `second`, value `c + second·g`.
            let (i, odd) = (k % 16 / 2, k % 2);
            let (c, second) = (i / 2, i % 2);
            if c < g {
                m[k] = (2 * (c + second * g) + odd) as i8;
            }
            k += 1;
        }
        m
    }
    let mask = pairing(G);
    // SAFETY: (whole body) AVX2 (contract); for every pixel x < n the 8 bytes at starts[x] of the rows read lie
    // inside them (above; the rows are readable, contract) and `cols[x]` exists; `out` holds cols.len()·G elements
    // (contract), and each step stores 4 from x·G and from (x + 1)·G, which end at (x + 2)·G + 4 - G ≤ cols.len()·G
    // but for 3 channels and the output's last pair, which stores 3 from (x + 1)·G; or with planes, G·p elements,
    // p ≥ cols.len() > x + 1, two at c·p + x for each channel c < G.
    unsafe {
        let s7 = w.shift - 7;
        let (half, count) = (_mm256_set1_epi32(1 << (s7 - 1)), _mm_cvtsi32_si128(s7 as i32));
        let wy = _mm256_set1_epi32(w.pairs[0]);
        let mask = _mm256_loadu_si256(mask.as_ptr().cast());
        let (zero, scale) = (_mm256_setzero_si256(), _mm256_set1_ps(p.scale));
        let spread = _mm256_setr_epi32(0, 0, 0, 0, 1, 1, 1, 1);
        for i in 0..pairs {
            let x = 2 * i;
            let (s0, s1) = (starts[x], starts[x + 1]);
            // (Macros, not closures: a closure may be compiled without the level's target features.)
            macro_rules! load {
                ($r:expr) => {{
                    let lo = _mm_loadl_epi64($r.add(s0).cast());
                    _mm256_inserti128_si256::<1>(_mm256_castsi128_si256(lo), _mm_loadl_epi64($r.add(s1).cast()))
                }};
            }
            macro_rules! sum {
                ($v:expr) => {
                    _mm256_sra_epi32(_mm256_add_epi32(_mm256_madd_epi16($v, wy), half), count)
                };
            }
            // Each 128-bit lane's eight i16 values: its pixel pair's channels.
            let q = if ROWS {
                let ab = _mm256_unpacklo_epi8(load!(rows[0]), load!(rows[1]));
                _mm256_packs_epi32(sum!(_mm256_unpacklo_epi8(ab, zero)), sum!(_mm256_unpackhi_epi8(ab, zero)))
            } else {
                _mm256_unpacklo_epi8(load!(rows[0]), zero)
            };
            let wx = _mm256_castsi128_si256(_mm_loadl_epi64(cols.as_ptr().add(x).cast()));
            let acc = _mm256_madd_epi16(_mm256_shuffle_epi8(q, mask), _mm256_permutevar8x32_epi32(wx, spread));
            let v = _mm256_mul_ps(_mm256_cvtepi32_ps(acc), scale);
            let o = out.as_mut_ptr();
            if let Some(pl) = plane {
                // Each channel's two pixels side by side (c0 c0' c1 c1' | c2 c2' c3 c3'), 8 bytes into its plane.
                let v = _mm256_permutevar8x32_ps(v, _mm256_setr_epi32(0, 4, 1, 5, 2, 6, 3, 7));
                let pd = _mm256_castps_pd(v);
                let (lo, hi) = (_mm256_castpd256_pd128(pd), _mm256_extractf128_pd::<1>(pd));
                _mm_storel_pd(o.add(x).cast(), lo);
                _mm_storeh_pd(o.add(pl + x).cast(), lo);
                _mm_storel_pd(o.add(2 * pl + x).cast(), hi);
                if G == 4 {
                    _mm_storeh_pd(o.add(3 * pl + x).cast(), hi);
                }
            } else {
                let hi = _mm256_extractf128_ps::<1>(v);
                _mm_storeu_ps(o.add(x * G), _mm256_castps256_ps128(v));
                if G == 3 && x + 2 == cols.len() {
                    // The output's last pixel: its 3 elements alone (a 4th would pass the output's end).
                    _mm_storel_pd(o.add(x * G + G).cast(), _mm_castps_pd(hi));
                    _mm_store_ss(o.add(x * G + G + 2), _mm_movehl_ps(hi, hi));
                } else {
                    _mm_storeu_ps(o.add(x * G + G), hi);
                }
            }
        }
    }
    2 * pairs
}

/// The `Arch` methods every x86 level implements the same way (SSSE3/AVX2 building blocks).
macro_rules! common_methods {
    () => {
        #[inline(always)]
        unsafe fn small_copy(self, src: *const u8, dst: *mut u8, n: usize) {
            // SAFETY: forwarded contract; AVX is part of every x86 level here.
            unsafe { super::x86::small_copy(src, dst, n) }
        }

        #[inline(always)]
        unsafe fn shuffle_lanes(
            self,
            s: &crate::tables::Shuffle,
            src: *const u8,
            src_step: isize,
            dst: *mut u8,
            dst_step: usize,
            lanes: usize,
        ) -> usize {
            // SAFETY: forwarded contract; AVX2 is part of every x86 level here.
            unsafe { super::x86::shuffle_lanes(s, src, src_step, dst, dst_step, lanes) }
        }

        #[inline(always)]
        unsafe fn table_pairs(
            self,
            pairs: &[crate::tables::LanePair],
            src: *const u8,
            src_step: isize,
            dst: *mut u8,
            dst_step: usize,
            rows: usize,
        ) -> usize {
            // SAFETY: forwarded contract; AVX2 is part of every x86 level here.
            unsafe { super::x86::table_pairs(pairs, src, src_step, dst, dst_step, rows) }
        }

        #[inline(always)]
        unsafe fn shift_blends(self, t: &crate::tables::ShiftBlend, src: *const u8, dst: *mut u8, n: usize) -> usize {
            // SAFETY: forwarded contract; AVX2 is part of every x86 level here.
            unsafe { super::x86::avx2_shift_blends(t, src, dst, n) }
        }

        #[inline(always)]
        unsafe fn tile8<const N: usize, M: super::TileMap>(
            self,
            src: *const u8,
            ss: isize,
            dst: *mut u8,
            ds: isize,
            m: M,
        ) {
            // SAFETY: forwarded contract; AVX2 is part of every x86 level here (F16C too: the V3 token checks it,
            // and AVX-512F implies it).
            unsafe { super::x86::avx2_tile8::<N, M>(src, ss, dst, ds, m) }
        }

        #[inline(always)]
        unsafe fn tile16x32_u8(self, src: *const u8, ss: isize, dst: *mut u8) {
            // SAFETY: forwarded contract; AVX2 is part of every x86 level here.
            unsafe { super::x86::avx2_tile16x32_u8(src, ss, dst) }
        }

        #[inline(always)]
        unsafe fn pair_bytes(self, a: *const u8, b: *const u8, out: *mut i16) {
            // SAFETY: forwarded contract; AVX2 is part of every x86 level here.
            unsafe { super::x86::avx2_pair_bytes(a, b, out) }
        }

        #[inline(always)]
        unsafe fn taps_i16<const G: usize>(
            self,
            src: *const i16,
            step: usize,
            pairs: &[i32],
            out: &mut [[i32; 16]; G],
        ) {
            // SAFETY: forwarded contract; AVX2 is part of every x86 level here.
            unsafe { super::x86::avx2_taps_i16::<G>(src, step, pairs, out) }
        }

        #[inline(always)]
        unsafe fn sampled_row_u8(self, p: &super::PixelPairs<'_>, out: &mut [f32]) {
            // SAFETY: forwarded contract; AVX2 is part of every x86 level here.
            unsafe { super::x86::avx2_sampled_row_u8(p, out) }
        }
    };
}
pub(super) use common_methods;

/// `y = x·scale + bias` on f16 with F16C, 16 elements per step (widen, multiply, add, narrow in registers; two
/// narrowed halves joined into one store, see [`f16c_from_f32`]); returns the elements done.
///
/// # Safety
///
/// As [`AffineFn`](crate::convert::AffineFn); the CPU has AVX and F16C (the V3 token checks both).
#[target_feature(enable = "avx,avx2,f16c")]
pub(super) unsafe fn f16c_affine(src: *const u8, dst: *mut u8, n: usize, scale: f32, bias: f32) -> usize {
    let (s, b) = (_mm256_set1_ps(scale), _mm256_set1_ps(bias));
    // SAFETY: F16C by the caller.
    let f = |h: __m128i| unsafe { cvtps_ph(_mm256_add_ps(_mm256_mul_ps(_mm256_cvtph_ps(h), s), b)) };
    let mut i = 0;
    while i + 16 <= n {
        // SAFETY: elements i..i+16 of both ranges, read before written (the ranges may be the same); F16C by the
        // caller.
        unsafe {
            let v = _mm256_loadu_si256(src.add(2 * i).cast());
            let (lo, hi) = (f(_mm256_castsi256_si128(v)), f(_mm256_extracti128_si256::<1>(v)));
            _mm256_storeu_si256(dst.add(2 * i).cast(), _mm256_set_m128i(hi, lo));
        }
        i += 16;
    }
    i
}

/// A fused normalization of 16 elements: loaded from their input type and converted to f32 exactly, `x·scale +
/// bias` (product, then sum: never fused), stored as 16 f32, 16 f16 rounded to nearest even, or 16 one-byte
/// integers rounded to nearest even and saturated (NaN giving 0).
pub(super) trait Norm16: Copy {
    /// The 16 lanes' scales and biases in registers.
    type P: Copy;
    /// A scale's and a bias's type: `f32`, or `i32` for a fixed-point multiplier and addend.
    type Word: Copy;
    /// Bytes per input element.
    const IN: usize;
    /// Bytes per output element.
    const OUT: usize;

    /// `scale` and `bias` broadcast.
    ///
    /// # Safety
    ///
    /// The level's features are enabled.
    unsafe fn params(self, scale: Self::Word, bias: Self::Word) -> Self::P;

    /// The 16 scales at `scales` and the 16 biases at `biases`, lane by lane.
    ///
    /// # Safety
    ///
    /// 16 readable words at each pointer; the level's features are enabled.
    unsafe fn load(self, scales: *const Self::Word, biases: *const Self::Word) -> Self::P;

    /// Normalizes the 16 input elements at `src` into `16·OUT` bytes at `dst`, with non-temporal stores when
    /// `STREAM`.
    ///
    /// # Safety
    ///
    /// `16·IN` readable bytes at `src`, `16·OUT` writable bytes at `dst`, with `STREAM` a multiple of 16 bytes from
    /// a 64-byte line whose whole output is the caller's (`16·OUT` aligned to `min(16·OUT, 64)`); the level's
    /// features are enabled.
    unsafe fn put<const STREAM: bool>(self, src: *const u8, p: Self::P, dst: *mut u8);

    /// Whether [`Norm16::put2`] beats two [`Norm16::put`]s (the loops then take their steps in pairs).
    const PAIRS: bool = false;

    /// Whether the inputs are `i8` (for [`Norm16::put_dwords`]' callers).
    const SIGNED: bool = false;

    /// [`Norm16::put`] of 16 one-byte inputs already widened, exactly, to i32 lanes (`d[0]` elements 0–7, `d[1]`
    /// elements 8–15).
    ///
    /// # Safety
    ///
    /// One-byte inputs (`IN` is 1); as [`Norm16::put`] for `dst`.
    unsafe fn put_dwords<const STREAM: bool>(self, d: [__m256i; 2], p: Self::P, dst: *mut u8);

    /// [`Norm16::put`] of the 32 elements at `src`: the first 16 with `p0`, the next 16 with `p1`.
    ///
    /// # Safety
    ///
    /// As [`Norm16::put`] for 32 elements, with `STREAM` a `dst` aligned to `min(32·OUT, 64)`.
    #[inline(always)]
    unsafe fn put2<const STREAM: bool>(self, src: *const u8, p0: Self::P, p1: Self::P, dst: *mut u8) {
        // SAFETY: the two halves of the contract's 32 elements.
        unsafe {
            self.put::<STREAM>(src, p0, dst);
            self.put::<STREAM>(src.add(16 * Self::IN), p1, dst.add(16 * Self::OUT));
        }
    }
}

/// The const-generic codes of the types of the `Norm16` implementations ([`NormType::code`](super::NormType::code)).
pub(super) const TY_F32: u8 = super::NormType::F32.code();
pub(super) const TY_F16: u8 = super::NormType::F16.code();
pub(super) const TY_U8: u8 = super::NormType::U8.code();
pub(super) const TY_I8: u8 = super::NormType::I8.code();

/// Bytes per element of type `ty`.
pub(super) const fn ty_width(ty: u8) -> usize {
    match ty {
        TY_F32 => 4,
        TY_F16 => 2,
        _ => 1,
    }
}

/// The largest value of a one-byte integer type `out` (i8, else u8) as f32: what a result is capped at before it is
/// rounded (the narrowing's saturation takes care of the bottom: see `Put::rounded`).
pub(super) const fn byte_top(out: u8) -> f32 {
    if out == TY_I8 { 127.0 } else { 255.0 }
}

/// [`Simd`] at AVX2 (and F16C for f16): 32-byte registers, 16 lanes in two.
#[derive(Clone, Copy, Default, Debug)]
pub(super) struct Avx2;

impl Simd for Avx2 {
    const BYTES: usize = 32;
    type I = __m256i;
    type F = __m256;
    #[inline(always)]
    unsafe fn zero() -> __m256i {
        // SAFETY: AVX (contract).
        unsafe { _mm256_setzero_si256() }
    }

    #[inline(always)]
    unsafe fn splat16(x: i16) -> __m256i {
        // SAFETY: AVX (contract).
        unsafe { _mm256_set1_epi16(x) }
    }

    #[inline(always)]
    unsafe fn splat32(x: i32) -> __m256i {
        // SAFETY: AVX (contract).
        unsafe { _mm256_set1_epi32(x) }
    }

    #[inline(always)]
    unsafe fn load(p: *const u8) -> __m256i {
        // SAFETY: 32 readable bytes at p; AVX (contract).
        unsafe { _mm256_loadu_si256(p.cast()) }
    }

    #[inline(always)]
    unsafe fn store(v: __m256i, p: *mut u8) {
        // SAFETY: 32 writable bytes at p; AVX (contract).
        unsafe { _mm256_storeu_si256(p.cast(), v) }
    }

    #[inline(always)]
    unsafe fn widen_bytes<const SIGNED: bool>(p: *const u8) -> __m256i {
        // SAFETY: 8 readable bytes at p; AVX2 (contract).
        unsafe {
            let v = _mm_loadl_epi64(p.cast());
            if SIGNED { _mm256_cvtepi8_epi32(v) } else { _mm256_cvtepu8_epi32(v) }
        }
    }

    #[inline(always)]
    unsafe fn and(a: __m256i, b: __m256i) -> __m256i {
        // SAFETY: AVX2 (contract).
        unsafe { _mm256_and_si256(a, b) }
    }

    #[inline(always)]
    unsafe fn shr16_8(a: __m256i) -> __m256i {
        // SAFETY: AVX2 (contract).
        unsafe { _mm256_srli_epi16::<8>(a) }
    }

    #[inline(always)]
    unsafe fn sra32_24(a: __m256i) -> __m256i {
        // SAFETY: AVX2 (contract).
        unsafe { _mm256_srai_epi32::<24>(a) }
    }

    #[inline(always)]
    unsafe fn sra32(a: __m256i, count: __m128i) -> __m256i {
        // SAFETY: AVX2 (contract).
        unsafe { _mm256_sra_epi32(a, count) }
    }

    #[inline(always)]
    unsafe fn unpack16(a: __m256i, b: __m256i) -> (__m256i, __m256i) {
        // SAFETY: AVX2 (contract).
        unsafe { (_mm256_unpacklo_epi16(a, b), _mm256_unpackhi_epi16(a, b)) }
    }

    #[inline(always)]
    unsafe fn unpack32(a: __m256i, b: __m256i) -> (__m256i, __m256i) {
        // SAFETY: AVX2 (contract).
        unsafe { (_mm256_unpacklo_epi32(a, b), _mm256_unpackhi_epi32(a, b)) }
    }

    #[inline(always)]
    unsafe fn madd16(a: __m256i, w: __m256i) -> __m256i {
        // SAFETY: AVX2 (contract).
        unsafe { _mm256_madd_epi16(a, w) }
    }

    #[inline(always)]
    unsafe fn add32(a: __m256i, b: __m256i) -> __m256i {
        // SAFETY: AVX2 (contract).
        unsafe { _mm256_add_epi32(a, b) }
    }

    #[inline(always)]
    unsafe fn packs32(a: __m256i, b: __m256i) -> __m256i {
        // SAFETY: AVX2 (contract).
        unsafe { _mm256_packs_epi32(a, b) }
    }

    #[inline(always)]
    unsafe fn zip128(a: __m256i, b: __m256i) -> (__m256i, __m256i) {
        // SAFETY: AVX2 (contract).
        unsafe { (_mm256_permute2x128_si256::<0x20>(a, b), _mm256_permute2x128_si256::<0x31>(a, b)) }
    }

    #[inline(always)]
    unsafe fn shuffle_bytes(a: __m256i, m: __m256i) -> __m256i {
        // SAFETY: AVX2 (contract).
        unsafe { _mm256_shuffle_epi8(a, m) }
    }

    #[inline(always)]
    unsafe fn splat_ps(x: f32) -> __m256 {
        // SAFETY: AVX (contract).
        unsafe { _mm256_set1_ps(x) }
    }

    #[inline(always)]
    unsafe fn load_ps(p: *const u8) -> __m256 {
        // SAFETY: 32 readable bytes at p; AVX (contract).
        unsafe { _mm256_loadu_ps(p.cast()) }
    }

    #[inline(always)]
    unsafe fn load_ph(p: *const u8) -> __m256 {
        // SAFETY: 16 readable bytes at p; F16C (contract).
        unsafe { _mm256_cvtph_ps(_mm_loadu_si128(p.cast())) }
    }

    #[inline(always)]
    unsafe fn store_ps<const STREAM: bool>(x: __m256, p: *mut u8) {
        // SAFETY: 32 writable bytes at p, 32-aligned when streaming; AVX (contract).
        unsafe { if STREAM { _mm256_stream_ps(p.cast(), x) } else { _mm256_storeu_ps(p.cast(), x) } }
    }

    #[inline(always)]
    unsafe fn to_ps(x: __m256i) -> __m256 {
        // SAFETY: AVX (contract).
        unsafe { _mm256_cvtepi32_ps(x) }
    }

    #[inline(always)]
    unsafe fn mul_ps(a: __m256, b: __m256) -> __m256 {
        // SAFETY: AVX (contract).
        unsafe { _mm256_mul_ps(a, b) }
    }

    #[inline(always)]
    unsafe fn add_ps(a: __m256, b: __m256) -> __m256 {
        // SAFETY: AVX (contract).
        unsafe { _mm256_add_ps(a, b) }
    }

    #[inline(always)]
    unsafe fn min_ps(a: __m256, b: __m256) -> __m256 {
        // SAFETY: AVX (contract).
        unsafe { _mm256_min_ps(a, b) }
    }

    #[inline(always)]
    unsafe fn nan_to_zero_ps(x: __m256) -> __m256 {
        // SAFETY: AVX (contract). A NaN compares unordered with itself.
        unsafe { _mm256_and_ps(x, _mm256_cmp_ps::<_CMP_ORD_Q>(x, x)) }
    }

    #[inline(always)]
    unsafe fn round_ps(x: __m256) -> __m256i {
        // SAFETY: AVX (contract).
        unsafe { _mm256_cvtps_epi32(x) }
    }

    #[inline(always)]
    unsafe fn trunc_ps(x: __m256) -> __m256i {
        // SAFETY: AVX (contract).
        unsafe { _mm256_cvttps_epi32(x) }
    }

    #[inline(always)]
    unsafe fn join_halves(d: [__m256i; 2]) -> [__m256i; 2] {
        d
    }

    #[inline(always)]
    unsafe fn store_ph16<const STREAM: bool>([lo, hi]: [__m256; 2], p: *mut u8) {
        // SAFETY: 32 bytes at p, 32-aligned when streaming; AVX and F16C (contract). Two conversions joined into one
        // store (see `f16c_from_f32`).
        unsafe {
            let v = _mm256_set_m128i(cvtps_ph(hi), cvtps_ph(lo));
            if STREAM { _mm256_stream_si256(p.cast(), v) } else { _mm256_storeu_si256(p.cast(), v) }
        }
    }

    #[inline(always)]
    unsafe fn narrow16<const KIND: u8, const STREAM: bool>(x: [__m256i; 2], p: *mut u8) {
        // SAFETY: forwarded contract.
        unsafe { store16::<KIND, STREAM>(x, p) }
    }

    #[inline(always)]
    unsafe fn narrow32<const KIND: u8, const STREAM: bool>(a: [__m256i; 2], b: [__m256i; 2], p: *mut u8) {
        // SAFETY: forwarded contract.
        unsafe { store32::<KIND, STREAM>([a[0], a[1], b[0], b[1]], p) }
    }

    #[inline(always)]
    unsafe fn store_pair_order([lo, hi]: [__m256i; 2], p: *mut i32) {
        // SAFETY: 64 bytes at p (contract); AVX2.
        unsafe {
            let (a, b) = Self::zip128(lo, hi);
            _mm256_storeu_si256(p.cast(), a);
            _mm256_storeu_si256(p.add(8).cast(), b);
        }
    }

    #[inline(always)]
    unsafe fn windows(base: *const u8, win: [usize; 4]) -> [__m256i; 2] {
        // SAFETY: the four 16-byte windows (contract); AVX.
        unsafe {
            let l = |g: usize| _mm_loadu_si128(base.add(win[g]).cast());
            [_mm256_set_m128i(l(1), l(0)), _mm256_set_m128i(l(3), l(2))]
        }
    }
}

/// [`Put`] at AVX2.
pub(super) type Avx2Put<const FROM: u8, const KIND: u8> = Put<Avx2, FROM, KIND>;

/// [`Bytes`] at AVX2, and its fixed-point forms ([`Avx2Fixed`]).
pub(super) type Avx2Bytes<const SIGNED: bool, const KIND: u8> = Bytes<Avx2, SIGNED, KIND>;

impl<const SIGNED: bool, const KIND: u8> Bytes<Avx2, SIGNED, KIND> {
    /// [`normalize_run`] of these types, in fixed point ([`Avx2Fixed`]) where the run is long enough to try its
    /// pair's form ([`FIXED_RUN_MIN`](super::FIXED_RUN_MIN)) and the form gives this kernel's bytes for every input
    /// byte (both run over [`RAMP`](super::RAMP) and compared).
    ///
    /// # Safety
    ///
    /// As `Arch::normalize_run`, with parameters that pass
    /// [`byte_results_fit_i32`](crate::float::byte_results_fit_i32); AVX2.
    #[inline(always)]
    unsafe fn run(self, src: *const u8, dst: *mut u8, n: usize, scale: f32, bias: f32, stream: bool) -> usize {
        // SAFETY: (whole body) AVX2 (contract); the run as the contract gives it.
        unsafe {
            if n >= super::FIXED_RUN_MIN
                && let Some(f) = self.form(scale, bias)
            {
                let fixed = Avx2Fixed::<SIGNED, KIND>::new(f.shift);
                return normalize_run(fixed, src, dst, n, f.mult, f.add, stream);
            }
            normalize_run(self, src, dst, n, scale, bias, stream)
        }
    }

    /// The fixed-point form of `(scale, bias)` ([`FixedAffine::guess`](crate::float::FixedAffine::guess)) if
    /// [`Avx2Fixed`] gives this kernel's bytes with it for every input byte: both run over
    /// [`RAMP`](super::RAMP) and compared (about 45 ns, see [`FIXED_RUN_MIN`](super::FIXED_RUN_MIN)).
    ///
    /// # Safety
    ///
    /// Parameters that pass [`byte_results_fit_i32`](crate::float::byte_results_fit_i32); AVX2.
    #[inline(always)]
    unsafe fn form(self, scale: f32, bias: f32) -> Option<crate::float::FixedAffine> {
        let f = crate::float::FixedAffine::guess(scale, bias)?;
        let ramp = super::RAMP.as_ptr();
        let (mut want, mut got) = ([0u8; 256], [0u8; 256]);
        // SAFETY: AVX2 (contract); the ramp's 256 bytes into two arrays of 256.
        unsafe {
            let fixed = Avx2Fixed::<SIGNED, KIND>::new(f.shift);
            normalize_run(self, ramp, want.as_mut_ptr(), 256, scale, bias, false);
            normalize_run(fixed, ramp, got.as_mut_ptr(), 256, f.mult, f.add, false);
        }
        (want == got).then_some(f)
    }

    /// [`normalize_periodic`] of these types, in fixed point ([`Avx2Fixed`]) where the pattern has a form for
    /// them ([`Periodic::fixed`]).
    ///
    /// # Safety
    ///
    /// As `Arch::normalize_periodic`, with a pattern whose pairs pass
    /// [`byte_results_fit_i32`](crate::float::byte_results_fit_i32); AVX2.
    #[inline(always)]
    unsafe fn periodic(
        self,
        src: *const u8,
        dst: *mut u8,
        n: usize,
        p: &Periodic,
        phase: usize,
        stream: bool,
    ) -> usize {
        // SAFETY: forwarded contract.
        unsafe {
            match p.fixed((SIGNED, KIND == TY_I8)) {
                Some(f) => {
                    let fixed = Avx2Fixed::<SIGNED, KIND>::new(f.shift);
                    normalize_periodic(fixed, src, dst, n, f.lanes(), phase, stream)
                }
                None => normalize_periodic(self, src, dst, n, p.lanes(), phase, stream),
            }
        }
    }

    /// [`convert_windows`] of these types in fixed point ([`Avx2Fixed`]) where a pattern has a form for them, or one
    /// pair for runs long enough to try its form (as [`Avx2Bytes::run`]).
    ///
    /// # Safety
    ///
    /// As [`convert_windows`], with pairs that pass [`byte_results_fit_i32`](crate::float::byte_results_fit_i32);
    /// AVX2.
    #[inline(always)]
    unsafe fn windows<const C: usize>(self, a: WindowArgs<'_>, pairs: WindowPairs<'_>) -> usize {
        // SAFETY: forwarded contract.
        unsafe {
            match pairs {
                WindowPairs::Pattern(p) => match p.fixed((SIGNED, KIND == TY_I8)) {
                    Some(f) => {
                        let fixed = Avx2Fixed::<SIGNED, KIND>::new(f.shift);
                        convert_windows::<_, C>(fixed, a, WordPairs::Lanes(f.lanes()))
                    }
                    None => convert_windows::<_, C>(self, a, WordPairs::of(pairs)),
                },
                WindowPairs::One(s, b) => {
                    let (_, _, _, blocks, rows, _) = a;
                    let form = (16 * C * blocks * rows.count >= super::FIXED_RUN_MIN).then(|| self.form(s, b));
                    match form.flatten() {
                        Some(f) => {
                            let fixed = Avx2Fixed::<SIGNED, KIND>::new(f.shift);
                            convert_windows::<_, C>(fixed, a, WordPairs::One(f.mult, f.add))
                        }
                        None => convert_windows::<_, C>(self, a, WordPairs::of(pairs)),
                    }
                }
            }
        }
    }
}

/// Words to bytes with the saturation of `KIND` (`i8` or `u8`), within each 128-bit lane.
///
/// # Safety
///
/// AVX2.
#[inline(always)]
unsafe fn pack_bytes<const KIND: u8>(a: __m256i, b: __m256i) -> __m256i {
    // SAFETY: AVX2 (contract).
    unsafe { if KIND == TY_I8 { _mm256_packs_epi16(a, b) } else { _mm256_packus_epi16(a, b) } }
}

/// 16 i32 (`lo` the first 8) to 16 bytes with the saturation of `KIND` (`i8` or `u8`): words [lo 0–3, hi 0–3 |
/// lo 4–7, hi 4–7], bytes (each lane packed with itself), then dwords 0, 4, 1, 5.
///
/// # Safety
///
/// AVX2.
#[inline(always)]
unsafe fn narrow16<const KIND: u8>(lo: __m256i, hi: __m256i) -> __m128i {
    // SAFETY: AVX2 (contract).
    unsafe {
        let words = _mm256_packs_epi32(lo, hi);
        let order = _mm256_setr_epi32(0, 4, 1, 5, 0, 4, 1, 5);
        _mm256_castsi256_si128(_mm256_permutevar8x32_epi32(pack_bytes::<KIND>(words, words), order))
    }
}

/// 16 i32 results (`r[0]` the first 8) saturated to bytes of `KIND` (`i8` or `u8`) at `dst`.
///
/// # Safety
///
/// 16 writable bytes at `dst` (16-byte aligned when `STREAM`); AVX2.
#[inline(always)]
unsafe fn store16<const KIND: u8, const STREAM: bool>(r: [__m256i; 2], dst: *mut u8) {
    // SAFETY: AVX2 and the store's bytes (contract).
    unsafe {
        let v = narrow16::<KIND>(r[0], r[1]);
        if STREAM { _mm_stream_si128(dst.cast(), v) } else { _mm_storeu_si128(dst.cast(), v) }
    }
}

/// 32 i32 results (`r[0]` the first 8) saturated to bytes of `KIND` (`i8` or `u8`) at `dst`: two `vpackssdw`, one
/// pack to bytes, one `vpermd`.
///
/// # Safety
///
/// 32 writable bytes at `dst` (32-byte aligned when `STREAM`); AVX2.
#[inline(always)]
unsafe fn store32<const KIND: u8, const STREAM: bool>(r: [__m256i; 4], dst: *mut u8) {
    // SAFETY: AVX2 and the store's bytes (contract).
    unsafe {
        // Dwords of bytes [r0 0–3, r1 0–3, r2 0–3, r3 0–3 | r0 4–7, r1 4–7, r2 4–7, r3 4–7], put in order.
        let v = pack_bytes::<KIND>(_mm256_packs_epi32(r[0], r[1]), _mm256_packs_epi32(r[2], r[3]));
        let v = _mm256_permutevar8x32_epi32(v, _mm256_setr_epi32(0, 4, 1, 5, 2, 6, 3, 7));
        if STREAM { _mm256_stream_si256(dst.cast(), v) } else { _mm256_storeu_si256(dst.cast(), v) }
    }
}

/// [`Norm16`] of one-byte integers (`i8` when `SIGNED`, else `u8`) into one-byte integers (`KIND`) in fixed point
/// ([`FixedAffine`](crate::float::FixedAffine)): per lane `(x·mult + add) >> shift` in i32 (`vpmulld`, `vpaddd`,
/// `vpsrad`), the packs' saturation the clamp — the bytes of [`Avx2Bytes`] (checked for every input when the form
/// was made) for one multiply, add and shift per 8 lanes where it converts twice, multiplies and adds in f32.
///
/// PERF: a loop of u8 → u8 over 393 216 elements in L2, one thread, Zen 4: 30.9 µs in f32, 21.7 µs so.
#[derive(Clone, Copy)]
pub(super) struct Avx2Fixed<const SIGNED: bool, const KIND: u8> {
    /// The shift, as `vpsrad` takes it.
    shift: __m128i,
}

impl<const SIGNED: bool, const KIND: u8> Avx2Fixed<SIGNED, KIND> {
    /// The kernel of a form's shift.
    ///
    /// # Safety
    ///
    /// AVX2.
    #[inline(always)]
    unsafe fn new(shift: u32) -> Self {
        // SAFETY: AVX2 (contract); the shift is at most 30 (`FixedAffine`).
        Avx2Fixed { shift: unsafe { _mm_cvtsi32_si128(shift as i32) } }
    }

    /// The 8 elements at `src` in fixed point, before the saturation.
    ///
    /// # Safety
    ///
    /// 8 readable bytes at `src`; AVX2.
    #[inline(always)]
    unsafe fn fixed(self, src: *const u8, mult: __m256i, add: __m256i) -> __m256i {
        // SAFETY: an 8-byte load (contract); AVX2.
        unsafe {
            let v = _mm_loadl_epi64(src.cast());
            self.fixed_dwords(if SIGNED { _mm256_cvtepi8_epi32(v) } else { _mm256_cvtepu8_epi32(v) }, mult, add)
        }
    }

    /// 8 inputs widened to i32 (`x`) in fixed point, before the saturation.
    ///
    /// # Safety
    ///
    /// AVX2.
    #[inline(always)]
    unsafe fn fixed_dwords(self, x: __m256i, mult: __m256i, add: __m256i) -> __m256i {
        // SAFETY: AVX2 (contract).
        unsafe { _mm256_sra_epi32(_mm256_add_epi32(_mm256_mullo_epi32(x, mult), add), self.shift) }
    }
}

impl<const SIGNED: bool, const KIND: u8> Norm16 for Avx2Fixed<SIGNED, KIND> {
    /// (multipliers of lanes 0–7, of lanes 8–15, addends of lanes 0–7, of lanes 8–15)
    type P = (__m256i, __m256i, __m256i, __m256i);
    type Word = i32;
    const IN: usize = 1;
    const OUT: usize = 1;
    const PAIRS: bool = true;

    #[inline(always)]
    unsafe fn params(self, mult: i32, add: i32) -> Self::P {
        // SAFETY: AVX broadcasts (contract).
        unsafe {
            let (m, a) = (_mm256_set1_epi32(mult), _mm256_set1_epi32(add));
            (m, m, a, a)
        }
    }

    #[inline(always)]
    unsafe fn load(self, mults: *const i32, adds: *const i32) -> Self::P {
        // SAFETY: 16 i32 at each pointer; AVX loads (contract).
        unsafe {
            (
                _mm256_loadu_si256(mults.cast()),
                _mm256_loadu_si256(mults.add(8).cast()),
                _mm256_loadu_si256(adds.cast()),
                _mm256_loadu_si256(adds.add(8).cast()),
            )
        }
    }

    const SIGNED: bool = SIGNED;

    #[inline(always)]
    unsafe fn put<const STREAM: bool>(self, src: *const u8, (m, m8, a, a8): Self::P, dst: *mut u8) {
        // SAFETY: AVX2 by the contract; 16 bytes at src and at dst.
        unsafe { store16::<KIND, STREAM>([self.fixed(src, m, a), self.fixed(src.add(8), m8, a8)], dst) }
    }

    #[inline(always)]
    unsafe fn put_dwords<const STREAM: bool>(self, [x, x8]: [__m256i; 2], (m, m8, a, a8): Self::P, dst: *mut u8) {
        // SAFETY: AVX2 by the contract; 16 bytes at dst.
        unsafe { store16::<KIND, STREAM>([self.fixed_dwords(x, m, a), self.fixed_dwords(x8, m8, a8)], dst) }
    }

    #[inline(always)]
    unsafe fn put2<const STREAM: bool>(
        self,
        src: *const u8,
        (m, m8, a, a8): Self::P,
        (n, n8, b, b8): Self::P,
        dst: *mut u8,
    ) {
        // SAFETY: AVX2 by the contract; 32 bytes at src and at dst (32-byte aligned when streaming).
        unsafe {
            let r = [
                self.fixed(src, m, a),
                self.fixed(src.add(8), m8, a8),
                self.fixed(src.add(16), n, b),
                self.fixed(src.add(24), n8, b8),
            ];
            store32::<KIND, STREAM>(r, dst)
        }
    }
}

/// `n` elements normalized 16 at a time through `put`, with non-temporal stores when `stream`; returns the
/// elements done.
///
/// # Safety
///
/// As `Arch::normalize_run`; the features `U` needs are enabled.
#[inline(always)]
pub(super) unsafe fn normalize_run<U: Norm16>(
    put: U,
    src: *const u8,
    dst: *mut u8,
    n: usize,
    scale: U::Word,
    bias: U::Word,
    stream: bool,
) -> usize {
    // SAFETY: forwarded contract.
    unsafe {
        if stream {
            run_loop::<U, true>(put, src, dst, n, scale, bias)
        } else {
            run_loop::<U, false>(put, src, dst, n, scale, bias)
        }
    }
}

/// [`normalize_run`] with its store kind fixed.
///
/// # Safety
///
/// As [`normalize_run`].
#[inline(always)]
unsafe fn run_loop<U: Norm16, const STREAM: bool>(
    put: U,
    src: *const u8,
    dst: *mut u8,
    n: usize,
    scale: U::Word,
    bias: U::Word,
) -> usize {
    // SAFETY: (whole function) the level's features are enabled (contract); elements i..i+16 are readable and
    // their outputs writable while i + 16 ≤ n.
    unsafe {
        let p = put.params(scale, bias);
        let mut i = blocks::<U, STREAM, 2>(put, src, dst, n, [p; 2]);
        if i + 16 <= n {
            put.put::<STREAM>(src.add(i * U::IN), p, dst.add(i * U::OUT));
            i += 16;
        }
        i
    }
}

/// `n` elements normalized 16 at a time through `put` with the pairs of `p` from element `phase` of the
/// pattern on (element `i` takes pair `(phase + i) mod period`), with non-temporal stores when `stream`; returns
/// the elements done.
///
/// # Safety
///
/// As `Arch::normalize_periodic`; the features `U` needs are enabled.
#[inline(always)]
pub(super) unsafe fn normalize_periodic<U: Norm16>(
    put: U,
    src: *const u8,
    dst: *mut u8,
    n: usize,
    p: PatternLanes<'_, U::Word>,
    phase: usize,
    stream: bool,
) -> usize {
    // SAFETY: forwarded contract.
    unsafe {
        if stream {
            periodic_loop::<U, true>(put, src, dst, n, p, phase)
        } else {
            periodic_loop::<U, false>(put, src, dst, n, p, phase)
        }
    }
}

/// [`normalize_periodic`] with its store kind fixed.
///
/// # Safety
///
/// As [`normalize_periodic`].
#[inline(always)]
unsafe fn periodic_loop<U: Norm16, const STREAM: bool>(
    put: U,
    src: *const u8,
    dst: *mut u8,
    n: usize,
    p: PatternLanes<'_, U::Word>,
    phase: usize,
) -> usize {
    let period = p.period();
    // Whole repetitions (at least 64 lanes) from pair q on: the pairs q..q+block lie inside the arrays
    // (period + block long, q < period), and the pattern repeats, so every block reads the same registers. (A
    // running index wrapped with a compare was a 5-cycle chain per 16 elements, the loop's bound.)
    let block = Periodic::unrolled(period);
    // (Lane q of the pattern, followed by at least `block` and BLOCK more.)
    let (scales, biases) = p.at(phase % period);
    // SAFETY: (both arms) as `blocks`' contract, from the above.
    let mut i = unsafe {
        match block {
            // The block's pairs in registers for the whole loop (the compiler cannot hoist their loads itself: the
            // stores might alias the pattern). PERF: callgrind, AVX2, u8 8×128×128×3 → f32 NHWC (blocks of 48):
            // 477K → 313K instructions a call; one thread, Zen 4, `t/limit` 1.28–1.37 → 1.05 (AVX-512), 1.36 →
            // 1.12 (AVX2).
            // (Kernels that take steps in pairs: two repetitions, 96 pairs from q — inside the arrays, which run
            // BLOCK past the period.)
            48 if U::PAIRS => blocks::<U, STREAM, 6>(put, src, dst, n, pairs::<U, 6>(put, scales, biases)),
            48 => blocks::<U, STREAM, 3>(put, src, dst, n, pairs::<U, 3>(put, scales, biases)),
            64 => blocks::<U, STREAM, 4>(put, src, dst, n, pairs::<U, 4>(put, scales, biases)),
            _ => {
                let mut i = 0;
                while i + block <= n {
                    for k in (0..block).step_by(16) {
                        // SAFETY: elements i+k..i+k+16 are readable and their outputs writable (contract, i +
                        // block ≤ n); pairs k..k+16 from q exist (above).
                        let par = put.load(scales.add(k), biases.add(k));
                        put.put::<STREAM>(src.add((i + k) * U::IN), par, dst.add((i + k) * U::OUT));
                    }
                    i += block;
                }
                i
            }
        }
    };
    let mut k = 0;
    while i + 16 <= n {
        // SAFETY: as above, k < 96 ≤ BLOCK (the blocks' steps: one block, or two repetitions of 48).
        unsafe {
            let par = put.load(scales.add(k), biases.add(k));
            put.put::<STREAM>(src.add(i * U::IN), par, dst.add(i * U::OUT));
        }
        i += 16;
        k += 16;
    }
    i
}

/// The whole blocks of `G` 16-lane steps from `src`/`dst`, step `g` of every block with the pairs `pars[g]` (in
/// registers for the whole loop); returns the elements done.
///
/// # Safety
///
/// As `Arch::normalize_run` for the elements.
#[inline(always)]
unsafe fn blocks<U: Norm16, const STREAM: bool, const G: usize>(
    put: U,
    src: *const u8,
    dst: *mut u8,
    n: usize,
    pars: [U::P; G],
) -> usize {
    let mut i = 0;
    while i + 16 * G <= n {
        if U::PAIRS && G.is_multiple_of(2) {
            for h in 0..G / 2 {
                let at = i + 32 * h;
                // SAFETY: elements at..at+32 are readable and their outputs writable (contract, i + 16G ≤ n);
                // streamed, `at` is a multiple of 32 from a line-aligned `dst` (16G is).
                unsafe { put.put2::<STREAM>(src.add(at * U::IN), pars[2 * h], pars[2 * h + 1], dst.add(at * U::OUT)) };
            }
        } else {
            for (g, &par) in pars.iter().enumerate() {
                let at = i + 16 * g;
                // SAFETY: elements at..at+16 are readable and their outputs writable (contract, i + 16G ≤ n).
                unsafe { put.put::<STREAM>(src.add(at * U::IN), par, dst.add(at * U::OUT)) };
            }
        }
        i += 16 * G;
    }
    i
}

/// The pairs of `G` 16-lane steps from `scales` / `biases` in registers.
///
/// # Safety
///
/// `16·G` readable words at each pointer; the features `U` needs are enabled.
#[inline(always)]
unsafe fn pairs<U: Norm16, const G: usize>(put: U, scales: *const U::Word, biases: *const U::Word) -> [U::P; G] {
    // SAFETY: 16·G values at each pointer and the level's features (contract). (A loop, not `array::from_fn`:
    // its closure may stay out of line, outside the target features.)
    unsafe {
        let mut pars = [put.load(scales, biases); G];
        for (g, par) in pars.iter_mut().enumerate() {
            *par = put.load(scales.add(16 * g), biases.add(16 * g));
        }
        pars
    }
}

/// Dispatches a normalization in registers to the instantiation of `$put` for its types (`$put` names the generic
/// type, e.g. `Avx2Put`, whose parameters are the input and output type codes).
macro_rules! by_types {
    ($k:expr, $put:ident, |$u:ident| $body:expr) => {
        match $k.from {
            $crate::fused::NormType::F32 => by_types!(@out $k, $put, { $crate::fused::NormType::F32.code() }, $u, $body),
            $crate::fused::NormType::F16 => by_types!(@out $k, $put, { $crate::fused::NormType::F16.code() }, $u, $body),
            $crate::fused::NormType::U8 => by_types!(@out $k, $put, { $crate::fused::NormType::U8.code() }, $u, $body),
            $crate::fused::NormType::I8 => by_types!(@out $k, $put, { $crate::fused::NormType::I8.code() }, $u, $body),
        }
    };
    (@out $k:expr, $put:ident, $from:block, $u:ident, $body:expr) => {
        match $k.out {
            $crate::fused::NormType::F32 => by_types!(@ $put::<$from, { $crate::fused::NormType::F32.code() }>, $u, $body),
            $crate::fused::NormType::F16 => by_types!(@ $put::<$from, { $crate::fused::NormType::F16.code() }>, $u, $body),
            $crate::fused::NormType::U8 => by_types!(@ $put::<$from, { $crate::fused::NormType::U8.code() }>, $u, $body),
            $crate::fused::NormType::I8 => by_types!(@ $put::<$from, { $crate::fused::NormType::I8.code() }>, $u, $body),
        }
    };
    (@ $put:ty, $u:ident, $body:expr) => {{
        let $u = <$put>::default();
        $body
    }};
}
pub(super) use by_types;

/// Dispatches a normalization of one-byte integers into one-byte integers to the instantiation of `$put` for its
/// types (`$put` names a generic type whose parameters are the input's signedness and the output type code); other
/// types do nothing (0 elements done).
macro_rules! by_byte_types {
    ($k:expr, $put:ident, |$u:ident| $body:expr) => {{
        use $crate::fused::NormType::{I8, U8};
        match ($k.from, $k.out) {
            (U8, U8) => by_types!(@ $put::<false, { U8.code() }>, $u, $body),
            (U8, I8) => by_types!(@ $put::<false, { I8.code() }>, $u, $body),
            (I8, U8) => by_types!(@ $put::<true, { U8.code() }>, $u, $body),
            (I8, I8) => by_types!(@ $put::<true, { I8.code() }>, $u, $body),
            _ => 0,
        }
    }};
}
pub(super) use by_byte_types;

/// Dispatches a normalization of one-byte integers into floats to the instantiation of `$put` for its types (as
/// [`by_types`]); other types do nothing (0 done).
macro_rules! by_bytes_to_floats {
    ($k:expr, $put:ident, |$u:ident| $body:expr) => {{
        use $crate::fused::NormType::{F16, F32, I8, U8};
        match ($k.from, $k.out) {
            (U8, F32) => by_types!(@ $put::<{ U8.code() }, { F32.code() }>, $u, $body),
            (U8, F16) => by_types!(@ $put::<{ U8.code() }, { F16.code() }>, $u, $body),
            (I8, F32) => by_types!(@ $put::<{ I8.code() }, { F32.code() }>, $u, $body),
            (I8, F16) => by_types!(@ $put::<{ I8.code() }, { F16.code() }>, $u, $body),
            _ => 0,
        }
    }};
}
pub(super) use by_bytes_to_floats;

/// Calls `$f::<C>$args` for the channel count of a [`PixelWindows`] (1, 3 or 4: the
/// counts `PixelWindows::new` builds tables for); 0 blocks done for others.
macro_rules! by_window_channels {
    ($channels:expr, $f:ident $args:tt) => {
        match $channels {
            1 => $f::<1> $args,
            3 => $f::<3> $args,
            4 => $f::<4> $args,
            _ => 0,
        }
    };
}
pub(super) use by_window_channels;

/// Calls `$f::<L, P, SIGNED, OUT, STREAM>($args)`, written `$f::<L>($args)`, for the slot count, the types (`OUT`
/// the output's type code) and the store kind of a fused deinterleave of one-byte pixels (0 for other slot counts
/// and inputs).
macro_rules! by_planes {
    ($k:expr, $planes:expr, $stream:expr, $f:ident::<$l:ty> $args:tt) => {
        match $planes {
            2 => by_planes!(@sign 2, $k, $stream, $f::<$l> $args),
            3 => by_planes!(@sign 3, $k, $stream, $f::<$l> $args),
            4 => by_planes!(@sign 4, $k, $stream, $f::<$l> $args),
            _ => 0,
        }
    };
    (@sign $p:literal, $k:expr, $stream:expr, $f:ident::<$l:ty> $args:tt) => {{
        // (Planes of one-byte integers, and pixels of other inputs, have no fused kernel here: 0 pixels done.)
        if !$k.bytes() {
            return 0;
        }
        if $k.signed() {
            by_planes!(@out $p, true, $k, $stream, $f::<$l> $args)
        } else {
            by_planes!(@out $p, false, $k, $stream, $f::<$l> $args)
        }
    }};
    (@out $p:literal, $s:literal, $k:expr, $stream:expr, $f:ident::<$l:ty> $args:tt) => {
        match $k.out {
            $crate::fused::NormType::F32 => {
                by_planes!(@stream $p, $s, $l, { $crate::fused::NormType::F32.code() }, $stream, $f $args)
            }
            $crate::fused::NormType::F16 => {
                by_planes!(@stream $p, $s, $l, { $crate::fused::NormType::F16.code() }, $stream, $f $args)
            }
            $crate::fused::NormType::U8 => {
                by_planes!(@stream $p, $s, $l, { $crate::fused::NormType::U8.code() }, $stream, $f $args)
            }
            $crate::fused::NormType::I8 => {
                by_planes!(@stream $p, $s, $l, { $crate::fused::NormType::I8.code() }, $stream, $f $args)
            }
        }
    };
    (@stream $p:literal, $s:literal, $l:ty, $o:block, $stream:expr, $f:ident ($($a:expr),*)) => {
        if $stream { $f::<$l, $p, $s, $o, true>($($a),*) } else { $f::<$l, $p, $s, $o, false>($($a),*) }
    };
}
pub(super) use by_planes;

/// [`normalize_run`] with AVX2 and F16C.
///
/// # Safety
///
/// As `Arch::normalize_run`; the CPU has AVX2 and F16C (the V3 token checks both).
#[target_feature(enable = "avx,avx2,f16c")]
pub(super) unsafe fn f16c_normalize_run(
    k: Norm,
    src: *const u8,
    dst: *mut u8,
    n: usize,
    scale: f32,
    bias: f32,
    stream: bool,
) -> usize {
    // SAFETY: forwarded contract; the features are enabled here.
    unsafe {
        if k.bytes_to_bytes() && crate::float::byte_results_fit_i32(scale, bias) {
            by_byte_types!(k, Avx2Bytes, |u| u.run(src, dst, n, scale, bias, stream))
        } else {
            by_types!(k, Avx2Put, |u| normalize_run(u, src, dst, n, scale, bias, stream))
        }
    }
}

/// [`normalize_run`] through [`Avx2Fixed`] with the form `f`, unchecked (the runs check a form on the ramp first
/// and fall back to the float kernel, which would hide a wrong fixed-point kernel from their tests).
///
/// # Safety
///
/// As `Arch::normalize_run` for one-byte integers into one-byte integers; the CPU has AVX2.
#[cfg(feature = "selftest")]
#[target_feature(enable = "avx,avx2")]
pub(super) unsafe fn avx2_fixed_run(
    k: Norm,
    f: crate::float::FixedAffine,
    src: *const u8,
    dst: *mut u8,
    n: usize,
) -> usize {
    use super::NormType::{I8, U8};
    let (m, a) = (f.mult, f.add);
    // SAFETY: forwarded contract; AVX2 enabled here.
    unsafe {
        match (k.from, k.out) {
            (U8, U8) => normalize_run(Avx2Fixed::<false, TY_U8>::new(f.shift), src, dst, n, m, a, false),
            (U8, I8) => normalize_run(Avx2Fixed::<false, TY_I8>::new(f.shift), src, dst, n, m, a, false),
            (I8, U8) => normalize_run(Avx2Fixed::<true, TY_U8>::new(f.shift), src, dst, n, m, a, false),
            (I8, I8) => normalize_run(Avx2Fixed::<true, TY_I8>::new(f.shift), src, dst, n, m, a, false),
            _ => 0,
        }
    }
}

/// What [`convert_windows`] moves: the shuffles, the input, the output, the blocks per row, the rows and whether
/// to stream.
pub(super) type WindowArgs<'a> = (&'a PixelWindows, *const u8, *mut u8, usize, RowRun, bool);

/// The pairs of [`convert_windows`] in the words of its kernel: one for every element, or a pattern's lanes.
#[derive(Clone, Copy)]
pub(super) enum WordPairs<'a, W> {
    One(W, W),
    Lanes(PatternLanes<'a, W>),
}

impl<'a> WordPairs<'a, f32> {
    /// The float pairs of `pairs`.
    pub(super) fn of(pairs: WindowPairs<'a>) -> Self {
        match pairs {
            WindowPairs::One(s, b) => WordPairs::One(s, b),
            WindowPairs::Pattern(p) => WordPairs::Lanes(p.lanes()),
        }
    }
}

/// Whether every pair of `pairs` passes [`byte_results_fit_i32`](crate::float::byte_results_fit_i32).
pub(super) fn window_bytes_fit(pairs: WindowPairs<'_>) -> bool {
    match pairs {
        WindowPairs::One(s, b) => crate::float::byte_results_fit_i32(s, b),
        WindowPairs::Pattern(p) => p.bytes_fit(),
    }
}

/// `Arch::convert_windows` through `put` for pixels of `C` one-byte channels: each block's `2·C` groups of 8
/// elements, each a broadcast load and a `vpshufb` that widens its bytes in order into 32-bit lanes (the
/// `vpmovzxbd` a contiguous run takes), go through `put` as contiguous elements would, step `r` of every block with
/// the pairs of lanes `16r..16r + 16` (a block holds whole periods of a pattern). Returns the blocks done (0 for
/// other inputs, channel counts or periods).
///
/// PERF: the pixels were read through an L1 buffer first (a reversing or swapping copy, then the conversion from
/// the buffer), which cost about what the copy alone does. One thread, Zen 4, `--isa v3`, three alternations: u8
/// 1024²×3 (a 1080p crop) mirrored into f32 NHWC 350 → 279 µs (not mirrored: 252 µs), 720p BGR → RGB f32 NHWC
/// 273 → 178 µs.
///
/// # Safety
///
/// As `Arch::convert_windows`, `w` built for `C` channels; the features `U` needs and SSSE3 enabled.
#[inline(always)]
pub(super) unsafe fn convert_windows<U: Norm16, const C: usize>(
    put: U,
    (w, src, dst, blocks, rows, stream): WindowArgs<'_>,
    words: WordPairs<'_, U::Word>,
) -> usize {
    if U::IN != 1 || w.channels != C {
        return 0;
    }
    // SAFETY: a pattern's lanes 0..16C exist (at least BLOCK past lane 0); the level's features (contract).
    let pars = unsafe {
        match words {
            WordPairs::One(s, b) => [put.params(s, b); C],
            WordPairs::Lanes(l) if (16 * C).is_multiple_of(l.period()) => {
                let (s, b) = l.at(0);
                pairs::<U, C>(put, s, b)
            }
            WordPairs::Lanes(_) => return 0,
        }
    };
    // SAFETY: forwarded contract.
    unsafe {
        if stream {
            windows_loop::<U, C, true>(put, w, (src, dst, blocks, rows), pars)
        } else {
            windows_loop::<U, C, false>(put, w, (src, dst, blocks, rows), pars)
        }
    }
}

/// [`convert_windows`] with its store kind fixed.
///
/// # Safety
///
/// As [`convert_windows`].
#[inline(always)]
unsafe fn windows_loop<U: Norm16, const C: usize, const STREAM: bool>(
    put: U,
    w: &PixelWindows,
    (src, dst, blocks, rows): (*const u8, *mut u8, usize, RowRun),
    pars: [U::P; C],
) -> usize {
    // SAFETY: (whole body) AVX2 and the level's features (contract); the masks are 32 bytes each; in every row,
    // block b's loads lie in its pixels' span (`PixelWindows`), readable (contract), and its 16·C outputs in the
    // row's run; streamed, each step's 16·OUT bytes sit at a multiple of 16·OUT from the row's 64-byte aligned
    // `dst` (16·C·OUT per block).
    unsafe {
        // (A loop, not `array::from_fn`: its closure may stay out of line, outside the target features.)
        let mut m = [_mm256_setzero_si256(); 8];
        for (reg, mask) in m.iter_mut().zip(&w.masks).take(2 * C) {
            let v = _mm256_loadu_si256(mask.as_ptr().cast());
            // An i8 input's byte at the top of its lane (the others zero), for an arithmetic shift right.
            *reg =
                if U::SIGNED { _mm256_or_si256(_mm256_slli_epi32::<24>(v), _mm256_set1_epi32(0x0080_8080)) } else { v };
        }
        let at = w.at;
        for row in 0..rows.count as isize {
            let mut base = src.wrapping_offset(row * rows.in_step);
            let mut out = dst.wrapping_offset(row * rows.out_step);
            for _ in 0..blocks {
                for (r, &par) in pars.iter().enumerate() {
                    let (g, h) = (2 * r, 2 * r + 1);
                    let d = [window_group::<U>(base.offset(at[g]), m[g]), window_group::<U>(base.offset(at[h]), m[h])];
                    put.put_dwords::<STREAM>(d, par, out.add(16 * r * U::OUT));
                }
                base = base.wrapping_offset(16 * w.step);
                out = out.add(16 * C * U::OUT);
            }
        }
    }
    blocks
}

/// A group of 8 one-byte inputs widened to i32 lanes: the 16 bytes at `at` broadcast and shuffled by `mask` (an
/// `i8`'s byte at the top of its lane, then shifted down with its sign).
///
/// # Safety
///
/// 16 readable bytes at `at`; AVX2.
#[inline(always)]
unsafe fn window_group<U: Norm16>(at: *const u8, mask: __m256i) -> __m256i {
    // SAFETY: a 16-byte load (contract); AVX2.
    unsafe {
        let x = _mm256_shuffle_epi8(_mm256_broadcastsi128_si256(_mm_loadu_si128(at.cast())), mask);
        if U::SIGNED { _mm256_srai_epi32::<24>(x) } else { x }
    }
}

/// `Arch::convert_windows` with AVX2 and F16C: [`Avx2Bytes`] (or its fixed-point form) into one-byte integers
/// where the pairs pass [`byte_results_fit_i32`](crate::float::byte_results_fit_i32) (others, rare, go through the
/// buffer: fewer instantiations), [`Avx2Put`] into floats.
///
/// # Safety
///
/// As `Arch::convert_windows`; the CPU has AVX2 and F16C (the V3 token checks both).
#[target_feature(enable = "avx,avx2,f16c")]
pub(super) unsafe fn f16c_convert_windows(
    k: Norm,
    w: &PixelWindows,
    s: super::Span,
    rows: RowRun,
    pairs: WindowPairs<'_>,
) -> usize {
    aligned_frame();
    let a = (w, s.src, s.dst, s.n, rows, s.stream);
    // SAFETY: forwarded contract; the features are enabled here.
    unsafe { by_window_channels!(w.channels, avx2_windows(k, a, pairs)) }
}

/// [`f16c_convert_windows`] for `C` channels.
///
/// # Safety
///
/// As [`f16c_convert_windows`], with AVX2 and F16C enabled.
#[inline(always)]
unsafe fn avx2_windows<const C: usize>(k: Norm, a: WindowArgs<'_>, pairs: WindowPairs<'_>) -> usize {
    // SAFETY: forwarded contract.
    unsafe {
        if k.bytes_to_bytes() {
            if !window_bytes_fit(pairs) {
                return 0;
            }
            by_byte_types!(k, Avx2Bytes, |u| u.windows::<C>(a, pairs))
        } else {
            by_bytes_to_floats!(k, Avx2Put, |u| convert_windows::<_, C>(u, a, WordPairs::of(pairs)))
        }
    }
}

/// [`normalize_periodic`] with AVX2 and F16C.
///
/// # Safety
///
/// As `Arch::normalize_periodic`; the CPU has AVX2 and F16C (the V3 token checks both).
#[target_feature(enable = "avx,avx2,f16c")]
pub(super) unsafe fn f16c_normalize_periodic(
    k: Norm,
    src: *const u8,
    dst: *mut u8,
    n: usize,
    p: &Periodic,
    phase: usize,
    stream: bool,
) -> usize {
    aligned_frame();
    // SAFETY: forwarded contract; the features are enabled here.
    unsafe {
        if k.bytes_to_bytes() && p.bytes_fit() {
            by_byte_types!(k, Avx2Bytes, |u| u.periodic(src, dst, n, p, phase, stream))
        } else {
            by_types!(k, Avx2Put, |u| normalize_periodic(u, src, dst, n, p.lanes(), phase, stream))
        }
    }
}

/// [`Arch::deinterleave_convert`](super::Arch::deinterleave_convert) of one-byte pixels with AVX2 and F16C.
///
/// # Safety
///
/// As `Arch::deinterleave_convert`; the CPU has AVX2 and F16C (the V3 token checks both).
#[target_feature(enable = "avx,avx2,f16c")]
pub(super) unsafe fn f16c_deinterleave_normalize(
    k: Norm,
    t: &Planar,
    s: super::Span,
    plane_stride: isize,
    params: &[[f32; 2]; 4],
    rows: RowRun,
) -> usize {
    aligned_frame();
    let super::Span { src, dst, n, stream } = s;
    // SAFETY: forwarded contract; the features are enabled here.
    unsafe {
        by_planes!(k, t.slots, stream, deinterleave_normalize::<Avx2>(t, src, dst, plane_stride, n, params, rows))
    }
}

/// F32 pixels of `K` slots → `t.planes` planes converted in registers with AVX2, 8 pixels a step: `K` 32-byte loads,
/// then each plane from them ([`Dwords8`](crate::tables::Dwords8)): for 2 slots one `vpermd` of every register and
/// `K − 1` blends, for 3 slots `K − 1` blends and one `vpermd` ([`blend_then_permute`]), for 4 slots a 4×4 transpose by
/// unpacks and one ordering `vpermd`; then `x·scale + bias` (product, then sum: never fused) with `AFFINE`, an f16
/// narrowing (nearest even) when `OUT` is f16, and the plane's store; returns the pixels done. The AVX-512 level's
/// `deinterleave_floats` at AVX2's width.
///
/// PERF: the buffered path deinterleaved into an L1 buffer, then converted each plane run (two passes). One thread,
/// Zen 4, `--isa v3`, 8×128²×3 NHWC → NCHW (1.5 MiB of f32 planes): see [`f16c_deinterleave_floats`].
///
/// # Safety
///
/// As `Arch::deinterleave_convert` for f32 pixels; AVX2 and F16C enabled; `t` was built for width 4 and `K` slots.
#[inline(always)]
#[allow(clippy::needless_range_loop)] // the plane and register indices pick tables, parameters and planes
unsafe fn avx2_deinterleave_floats<const K: usize, const AFFINE: bool, const OUT: u8, const STREAM: bool>(
    (t, src, dst, plane_stride, n, params, rows): FloatArgs<'_>,
) -> usize {
    let out = ty_width(OUT);
    let steps = n / 8;
    // SAFETY: (whole body) table loads of 32 bytes; for each step of output pixels j..j+8, the step's 32·K bytes
    // from its lowest address are readable and elements j..j+8 of every plane writable, in every row of the run
    // (contract, j + 8 ≤ n); streamed, each store is aligned to its size (planes and rows on 64 bytes, j a multiple
    // of 8); AVX2 and F16C by the contract.
    unsafe {
        // (Loops, not `array::from_fn`: its closures may stay out of line, outside the target features.)
        let mut p = [(_mm256_setzero_ps(), _mm256_setzero_ps()); K];
        for i in 0..K {
            p[i] = (_mm256_set1_ps(params[i][0]), _mm256_set1_ps(params[i][1]));
        }
        // Two to three slots: the permutes and blends of `Dwords8`.
        let (mut idx, mut from) = ([[_mm256_setzero_si256(); K]; K], [[_mm256_setzero_si256(); K]; K]);
        // Four slots: a 4×4 transpose in each 128-bit half (two rounds of unpacks) leaves slot `s` of memory
        // pixels 0, 2, 4, 6 | 1, 3, 5, 7 in register `s`; one `vpermd` then orders the pixels (mirrored or not),
        // and plane `i` takes slot `slot[i]`. 11 shuffles for 3 planes where the permutes and blends take 21.
        let (mut slot, mut order) = ([0usize; 4], _mm256_setzero_si256());
        if K == 4 {
            for (i, s) in slot.iter_mut().enumerate() {
                *s = t.lead.wrapping_add(t.channel(i)) & 3;
            }
            let mut o = [0i32; 8];
            for (q, x) in o.iter_mut().enumerate() {
                let m = if t.reverse_pixels { 7 - q } else { q };
                *x = ((m % 2) * 4 + m / 2) as i32;
            }
            order = _mm256_loadu_si256(o.as_ptr().cast());
        } else if K == 3 {
            // Blend, then permute (`Dwords8::blends`, which 3 slots always allow): `from` holds the blends' masks,
            // `idx[i][0]` the plane's permute.
            let d = &t.dwords8;
            if !d.blends {
                return 0;
            }
            for i in 0..K {
                idx[i][0] = _mm256_loadu_si256(d.order[i].as_ptr().cast());
                for k in 0..K {
                    from[i][k] = _mm256_loadu_si256(d.mix[i][k].as_ptr().cast());
                }
            }
        } else {
            let d = &t.dwords8;
            for i in 0..K {
                for k in 0..K {
                    idx[i][k] = _mm256_loadu_si256(d.idx[i][k].as_ptr().cast());
                    from[i][k] = _mm256_loadu_si256(d.from[i][k].as_ptr().cast());
                }
            }
        }
        let planes = t.planes;
        for r in 0..rows.count as isize {
            let (win, dst) = (t.window(src.wrapping_offset(r * rows.in_step)), dst.wrapping_offset(r * rows.out_step));
            let at = t.steps(win, 8, 4 * K);
            for j in (0..steps).map(|s| 8 * s) {
                let base = at.at(j);
                let mut v = [_mm256_setzero_si256(); K];
                for k in 0..K {
                    v[k] = _mm256_loadu_si256(base.add(32 * k).cast());
                }
                let slots = if K == 4 {
                    let (ps, pd) = (_mm256_castsi256_ps, _mm256_castps_pd);
                    let t0 = pd(_mm256_unpacklo_ps(ps(v[0]), ps(v[1])));
                    let t1 = pd(_mm256_unpackhi_ps(ps(v[0]), ps(v[1])));
                    let t2 = pd(_mm256_unpacklo_ps(ps(v[2]), ps(v[3])));
                    let t3 = pd(_mm256_unpackhi_ps(ps(v[2]), ps(v[3])));
                    let si = _mm256_castpd_si256;
                    [
                        si(_mm256_unpacklo_pd(t0, t2)),
                        si(_mm256_unpackhi_pd(t0, t2)),
                        si(_mm256_unpacklo_pd(t1, t3)),
                        si(_mm256_unpackhi_pd(t1, t3)),
                    ]
                } else {
                    [_mm256_setzero_si256(); 4]
                };
                // (Constant bounds, so that the registers stay registers; the planes past `t.planes` are slots.)
                for i in 0..K {
                    if i >= planes {
                        break;
                    }
                    let x = if K == 4 {
                        let s = match slot[i] {
                            0 => slots[0],
                            1 => slots[1],
                            2 => slots[2],
                            _ => slots[3],
                        };
                        _mm256_permutevar8x32_epi32(s, order)
                    } else if K == 3 {
                        blend_then_permute(&v, &from[i], idx[i][0])
                    } else {
                        let mut x = _mm256_permutevar8x32_epi32(v[0], idx[i][0]);
                        for k in 1..K {
                            x = _mm256_blendv_epi8(x, _mm256_permutevar8x32_epi32(v[k], idx[i][k]), from[i][k]);
                        }
                        x
                    };
                    let x = _mm256_castsi256_ps(x);
                    let y = if AFFINE { _mm256_add_ps(_mm256_mul_ps(x, p[i].0), p[i].1) } else { x };
                    let at = dst.wrapping_offset(i as isize * plane_stride).add(j * out);
                    match (OUT, STREAM) {
                        (TY_F16, false) => _mm_storeu_si128(at.cast(), cvtps_ph(y)),
                        (TY_F16, true) => _mm_stream_si128(at.cast(), cvtps_ph(y)),
                        (_, false) => _mm256_storeu_ps(at.cast(), y),
                        (_, true) => _mm256_stream_ps(at.cast(), y),
                    }
                }
            }
        }
    }
    8 * steps
}

/// [`Arch::deinterleave_convert`](super::Arch::deinterleave_convert) of f32 pixels with AVX2 and F16C
/// ([`avx2_deinterleave_floats`] for the slot count and the conversion's kind).
///
/// # Safety
///
/// As `Arch::deinterleave_convert` for f32 pixels, `t` built for width 4; the CPU has AVX2 and F16C (the V3 token
/// checks both).
#[target_feature(enable = "avx,avx2,f16c")]
pub(super) unsafe fn f16c_deinterleave_floats(
    k: super::FloatNorm,
    t: &Planar,
    s: super::Span,
    ps: isize,
    params: &[[f32; 2]; 4],
    rows: RowRun,
) -> usize {
    aligned_frame();
    let super::Span { src, dst, n, stream } = s;
    let a = (t, src, dst, ps, n, params, rows);
    // SAFETY: forwarded contract, each instantiation with its slot count; the features are enabled here.
    unsafe {
        match t.slots {
            2 => by_float_kind!(k, stream, avx2_deinterleave_floats::<2>(a)),
            3 => by_float_kind!(k, stream, avx2_deinterleave_floats::<3>(a)),
            4 => by_float_kind!(k, stream, avx2_deinterleave_floats::<4>(a)),
            _ => 0,
        }
    }
}

/// The arguments of a fused deinterleave of f32 pixels (tables, pixels, planes, plane stride, pixels per row,
/// parameters, rows).
pub(super) type FloatArgs<'a> = (&'a Planar, *const u8, *mut u8, isize, usize, &'a [[f32; 2]; 4], RowRun);

/// Calls `$f::<K, AFFINE, OUT, STREAM>($args)` for the kind of a fused conversion of f32 pixels (a
/// [`FloatNorm`](super::FloatNorm): cast to f16, or normalized into f16 or f32) and the store kind; 0 for f32 into
/// f32 as is, a plain deinterleave that is never fused.
macro_rules! by_float_kind {
    ($k:expr, $stream:expr, $f:ident::<$n:tt>($($arg:expr),*)) => {{
        const F16: u8 = $crate::fused::NormType::F16.code();
        const F32: u8 = $crate::fused::NormType::F32.code();
        match ($k.affine, $k.f16, $stream) {
            (false, true, false) => $f::<$n, false, F16, false>($($arg),*),
            (false, true, true) => $f::<$n, false, F16, true>($($arg),*),
            (true, true, false) => $f::<$n, true, F16, false>($($arg),*),
            (true, true, true) => $f::<$n, true, F16, true>($($arg),*),
            (true, false, false) => $f::<$n, true, F32, false>($($arg),*),
            (true, false, true) => $f::<$n, true, F32, true>($($arg),*),
            (false, false, _) => 0,
        }
    }};
}
pub(super) use by_float_kind;
