//! Whole integer registers of any width, and the integer kernels written once over them: [`Ints`] (AVX2's 32 bytes,
//! AVX-512's 64) under a resize's vertical taps over u8 rows ([`rows_u8_q7`]); [`Chunks`] (SSSE3's 16 bytes,
//! AVX2's 32) under the byte-shuffle planar moves ([`interleave`], [`deinterleave`]).
//!
//! Operations that work within 128-bit lanes (unpacks, packs) keep that meaning at every width; [`Ints::zip128`] is
//! the one cross-lane step the kernels need to put such results back in element order.

use core::arch::x86_64::__m128i;

use super::RowWeights;
use crate::tables::Planar;

/// A whole integer register of one x86 level, lanes of 16 or 32 bits.
///
/// Every method requires the level's target features to be enabled in the code it is inlined into (hence `unsafe`).
pub(super) trait Ints: Copy {
    /// Bytes per register.
    const BYTES: usize;

    /// All lanes 0.
    ///
    /// # Safety
    ///
    /// The level's features are enabled (as for every method).
    unsafe fn zero() -> Self;
    /// `x` in every 32-bit lane.
    ///
    /// # Safety
    ///
    /// As every method.
    unsafe fn splat32(x: i32) -> Self;
    /// `x` in every 16-bit lane.
    ///
    /// # Safety
    ///
    /// As every method.
    unsafe fn splat16(x: i16) -> Self;
    /// `BYTES` bytes from `p` (any alignment).
    ///
    /// # Safety
    ///
    /// `p..p + BYTES` is readable.
    unsafe fn load(p: *const u8) -> Self;
    /// Stores `BYTES` bytes at `p` (any alignment).
    ///
    /// # Safety
    ///
    /// `p..p + BYTES` is writable.
    unsafe fn store(self, p: *mut u8);
    /// Bitwise and.
    ///
    /// # Safety
    ///
    /// As every method.
    unsafe fn and(self, b: Self) -> Self;
    /// Each 16-bit lane shifted right by 8, zeros in.
    ///
    /// # Safety
    ///
    /// As every method.
    unsafe fn shr16_8(self) -> Self;
    /// The 16-bit lanes of `self` and `b` interleaved within each 128-bit lane: (the low halves', the high halves').
    ///
    /// # Safety
    ///
    /// As every method.
    unsafe fn unpack16(self, b: Self) -> (Self, Self);
    /// [`Ints::unpack16`] of 32-bit lanes.
    ///
    /// # Safety
    ///
    /// As every method.
    unsafe fn unpack32(self, b: Self) -> (Self, Self);
    /// Adjacent products of i16 lanes summed into i32 lanes (`vpmaddwd`).
    ///
    /// # Safety
    ///
    /// As every method.
    unsafe fn madd16(self, w: Self) -> Self;
    /// Lane-wise i32 sum (wrapping).
    ///
    /// # Safety
    ///
    /// As every method.
    unsafe fn add32(self, b: Self) -> Self;
    /// Each i32 lane shifted right arithmetically by the count in the low 64 bits of `count`.
    ///
    /// # Safety
    ///
    /// As every method.
    unsafe fn sra32(self, count: __m128i) -> Self;
    /// i32 lanes of `self` then `b` narrowed to i16 with signed saturation, within each 128-bit lane
    /// (`vpackssdw`).
    ///
    /// # Safety
    ///
    /// As every method.
    unsafe fn packs32(self, b: Self) -> Self;
    /// The 128-bit lanes of `self` and `b` interleaved: (`self`₀ `b`₀ `self`₁ `b`₁ …, the rest in the same order).
    ///
    /// # Safety
    ///
    /// As every method.
    unsafe fn zip128(self, b: Self) -> (Self, Self);
}

/// The exact sums of `K` chunks of `BYTES` consecutive elements of `taps` u8 rows `step` apart (weights in pairs
/// as in `Arch::rows_u8_q7`), each chunk in element order but split across 128-bit lanes: elements 0..4 of every
/// lane's 16, 4..8, 8..12 and 12..16. One shuffle per 16 bytes and tap pair: the rows' words interleave
/// (`vpunpck[lh]wd`: bytes `a[2i] a[2i+1] b[2i] b[2i+1]`), a mask keeps the even elements' pairs and a word shift
/// the odd ones', each already the i16 pair `vpmaddwd` takes; one weight broadcast and loop step for the `K`
/// chunks.
///
/// PERF: widening both rows with `vpmovzxbw` and interleaving them took two shuffles per 16 bytes and tap pair, and
/// the shuffle pipes bound the loop (one thread, Zen 4 VM, u8 1920×1080×3 → 224² bilinear at AVX-512: 0.637 → 0.617
/// ms the whole resize).
///
/// # Safety
///
/// `p + t·step .. + K·BYTES` is readable for every `t < taps`; `pairs` holds `⌈taps/2⌉` pairs; the sums fit i32;
/// the level's features.
#[inline(always)]
unsafe fn sums<R: Ints, const K: usize>(p: *const u8, step: isize, pairs: &[i32], taps: usize) -> [[R; 4]; K] {
    // SAFETY: (whole body) every load reads BYTES bytes of a tap row t < taps (contract); the level's features.
    unsafe {
        let even = R::splat16(0xFF);
        let whole = taps / 2;
        // Sums of elements (per 128-bit lane) 0, 2, 4, 6 | 1, 3, 5, 7 | 8, 10, 12, 14 | 9, 11, 13, 15.
        let mut acc = [[R::zero(); 4]; K];
        let mut p = p;
        // (A macro: a closure here may be compiled without the level's target features.)
        macro_rules! add {
            ($k:expr, $a:expr, $b:expr, $w:expr) => {{
                let (a, b, w): (R, R, R) = ($a, $b, $w);
                let acc = &mut acc[$k];
                let (lo, hi) = a.unpack16(b);
                acc[0] = acc[0].add32(lo.and(even).madd16(w));
                acc[1] = acc[1].add32(lo.shr16_8().madd16(w));
                acc[2] = acc[2].add32(hi.and(even).madd16(w));
                acc[3] = acc[3].add32(hi.shr16_8().madd16(w));
            }};
        }
        for &w in &pairs[..whole] {
            let w = R::splat32(w);
            for k in 0..K {
                add!(k, R::load(p.add(R::BYTES * k)), R::load(p.offset(step).add(R::BYTES * k)), w);
            }
            p = p.offset(2 * step);
        }
        if taps % 2 == 1 {
            // The last tap alone: its pair's high weight multiplies zeros.
            let w = R::splat32(pairs[whole] & 0xFFFF);
            for k in 0..K {
                add!(k, R::load(p.add(R::BYTES * k)), R::zero(), w);
            }
        }
        let mut out = [[R::zero(); 4]; K];
        for k in 0..K {
            let (a, b) = acc[k][0].unpack32(acc[k][1]);
            let (c, d) = acc[k][2].unpack32(acc[k][3]);
            out[k] = [a, b, c, d];
        }
        out
    }
}

/// `Arch::rows_u8_q7` for rows of at least `BYTES` elements: `2·BYTES` elements at a time (two chunks of [`sums`] per
/// weight broadcast and loop step), the rest `BYTES` at a time, the last chunk ending at `n` (overlapping the one
/// before: its elements computed twice alike); the sums rounded, shifted, packed with saturation and put back in
/// order ([`Ints::zip128`]).
///
/// PERF (one thread, Zen 4 VM, u8 RGB bilinear resizes filtered rows first, ms): two chunks per step against one,
/// AVX2 1920×1080 → 224² 0.502 → 0.472, 2560×1600 → 320×200 0.83 → 0.745, 640×480 → 341×256 0.234 → 0.227;
/// AVX-512 0.455 → 0.450, 0.725 → 0.70, 0.225 → 0.22.
///
/// # Safety
///
/// As `Arch::rows_u8_q7`, with `n ≥ BYTES`; the level's features.
#[inline(always)]
pub(super) unsafe fn rows_u8_q7<R: Ints>(src: *const u8, step: isize, w: RowWeights<'_>, n: usize, out: *mut i16) {
    let width = R::BYTES;
    // SAFETY: (whole body) the sums read BYTES bytes of each tap row inside the contract's range (x + BYTES ≤ n,
    // n ≥ BYTES); every store BYTES/2 i16 of the output; the level's features (contract).
    unsafe {
        let s = w.shift.wrapping_sub(7);
        let (half, count) = (R::splat32(1 << s.wrapping_sub(1)), core::arch::x86_64::_mm_cvtsi32_si128(s as i32));
        macro_rules! put {
            ($x:expr, $q:expr) => {{
                let mut q: [R; 4] = $q;
                for v in &mut q {
                    *v = v.add32(half).sra32(count);
                }
                // Packed, the words are 0..8 | 16..24 | … and 8..16 | 24..32 | …: zipped, in order.
                let (a, b) = q[0].packs32(q[1]).zip128(q[2].packs32(q[3]));
                a.store(out.add($x).cast());
                b.store(out.add($x + width / 2).cast());
            }};
        }
        let mut x = 0;
        while x + 2 * width <= n {
            let [q, r] = sums::<R, 2>(src.add(x), step, w.pairs, w.taps);
            put!(x, q);
            put!(x + width, r);
            x += 2 * width;
        }
        while x < n {
            let at = x.min(n - width);
            let [q] = sums::<R, 1>(src.add(at), step, w.pairs, w.taps);
            put!(at, q);
            x += width;
        }
    }
}

/// A register of 16-byte chunks that byte shuffles (`pshufb`) work within: SSSE3's one chunk, AVX2's two. Kernels
/// over it take one step of 16 bytes per chunk, so a register moves `CHUNKS` consecutive steps at once.
///
/// Every method requires the level's target features to be enabled in the code it is inlined into (hence `unsafe`).
pub(super) trait Chunks: Copy {
    /// 16-byte chunks per register.
    const CHUNKS: usize;

    /// The 16 bytes at `m` in every chunk.
    ///
    /// # Safety
    ///
    /// 16 readable bytes at `m`; the level's features (as for every method).
    unsafe fn broadcast16(m: *const u8) -> Self;
    /// `16·CHUNKS` bytes from `p` (any alignment).
    ///
    /// # Safety
    ///
    /// They are readable.
    unsafe fn load(p: *const u8) -> Self;
    /// Stores `16·CHUNKS` bytes at `p` (any alignment).
    ///
    /// # Safety
    ///
    /// They are writable.
    unsafe fn store(self, p: *mut u8);
    /// Chunk `c` from the 16 bytes at `p + c·stride`.
    ///
    /// # Safety
    ///
    /// Each chunk's bytes are readable.
    unsafe fn load_chunks(p: *const u8, stride: isize) -> Self;
    /// Stores chunk `c` at `p + c·stride`, in chunk order.
    ///
    /// # Safety
    ///
    /// Each chunk's bytes are writable.
    unsafe fn store_chunks(self, p: *mut u8, stride: isize);
    /// Each chunk's bytes picked by the same chunk of `m` (`pshufb`: a mask byte with its top bit set gives 0).
    ///
    /// # Safety
    ///
    /// As every method.
    unsafe fn shuffle(self, m: Self) -> Self;
    /// Bitwise or.
    ///
    /// # Safety
    ///
    /// As every method.
    unsafe fn or(self, b: Self) -> Self;
}

/// The or of each of `v` shuffled by its mask in `m`.
///
/// # Safety
///
/// The level's features.
#[inline(always)]
unsafe fn or_of_shuffles<R: Chunks, const P: usize>(v: &[R; P], m: &[R; P]) -> R {
    // SAFETY: register operations (contract).
    unsafe {
        let mut acc = v[0].shuffle(m[0]);
        for s in 1..P {
            acc = acc.or(v[s].shuffle(m[s]));
        }
        acc
    }
}

/// The masks of `t` in every chunk, by output register: `[o][s]` is the mask source register `s` takes into output
/// register `o` (`t.masks[s][o]` when deinterleaving — sources are pixel chunks, outputs planes — `t.masks[o][s]`
/// when interleaving).
///
/// # Safety
///
/// The level's features.
#[inline(always)]
unsafe fn masks<R: Chunks, const P: usize>(t: &Planar) -> [[R; P]; P] {
    // (Loops, not `array::from_fn`: its closures may stay out of line, outside the level's features.)
    // SAFETY: 16-byte loads of table entries; the level's features (contract).
    let mut m = [[unsafe { R::broadcast16(t.masks[0][0].as_ptr()) }; P]; P];
    for (o, row) in m.iter_mut().enumerate() {
        for (s, x) in row.iter_mut().enumerate() {
            let mask = if t.interleave { &t.masks[o][s] } else { &t.masks[s][o] };
            // SAFETY: as above.
            *x = unsafe { R::broadcast16(mask.as_ptr()) };
        }
    }
    m
}

/// Planes → pixels of `P` planes of `N`-byte elements (`t` built for them), `16·CHUNKS / N` pixels a step: each
/// plane's register, one byte shuffle per plane and output register, chunk `c` of output register `k` stored as
/// output chunk `k` of the step's `c`-th 16 pixels; returns the pixels done.
///
/// PERF: AVX2's two chunks halve the shuffles of SSSE3's one, the loop's bound (u8 NHWC → NCHW of 32×224²×3 the other
/// way round, one thread, Zen 4, `--isa v3`: 187 → 147 µs).
///
/// # Safety
///
/// As `Arch::interleave`; the level's features; `t.planes == P`, `t.width == N`.
#[inline(always)]
#[allow(clippy::needless_range_loop)]
pub(super) unsafe fn interleave<R: Chunks, const N: usize, const P: usize>(
    t: &Planar,
    src: *const u8,
    plane_stride: isize,
    dst: *mut u8,
    n: usize,
) -> usize {
    let per = 16 / N * R::CHUNKS;
    // SAFETY: the level's features (contract).
    let m = unsafe { masks::<R, P>(t) };
    let mut j = 0;
    while j + per <= n {
        // SAFETY: pixels j..j+per of every plane are readable and their outputs (P·16·CHUNKS bytes) writable.
        unsafe {
            let mut v = [R::load(src.add(j * N)); P];
            for i in 1..P {
                v[i] = R::load(src.wrapping_offset(i as isize * plane_stride).add(j * N));
            }
            let out = dst.add(j * N * P);
            for k in 0..P {
                or_of_shuffles(&v, &m[k]).store_chunks(out.add(16 * k), 16 * P as isize);
            }
        }
        j += per;
    }
    j
}

/// Pixels → planes: `S` (`t.slots`) chunks of pixels, one output register per plane (`P`, `t.planes`); chunk `c` of
/// every register holds the step's `c`-th 16 bytes per plane (windows `16·S` bytes on, or back when mirrored);
/// returns the pixels done.
///
/// # Safety
///
/// As `Arch::deinterleave`; the level's features; `S == t.slots`, `P == t.planes`, `t.width == N`.
#[inline(always)]
#[allow(clippy::needless_range_loop)]
pub(super) unsafe fn deinterleave<R: Chunks, const N: usize, const S: usize, const P: usize>(
    t: &Planar,
    src: *const u8,
    dst: *mut u8,
    plane_stride: isize,
    n: usize,
) -> usize {
    let step = 16 / N;
    let per = step * R::CHUNKS;
    // SAFETY: the level's features (contract).
    let m = unsafe { masks::<R, S>(t) };
    let win = t.window(src);
    let delta = if t.reverse_pixels { -16 * S as isize } else { 16 * S as isize };
    let mut j = 0;
    while j + per <= n {
        // SAFETY: the windows of output pixels j..j+per (CHUNKS steps of S·16 bytes from their lowest addresses,
        // `delta` apart) are readable and elements j..j+per of every plane writable.
        unsafe {
            let b = t.step_base(win, j, step, N * S);
            let mut c = [R::load_chunks(b, delta); S];
            for k in 1..S {
                c[k] = R::load_chunks(b.add(16 * k), delta);
            }
            // (Planes a constant apart from slots: a run-time plane count in this small loop cost 24 % on u8
            // NHWC → NCHW at AVX2.)
            for i in 0..P {
                or_of_shuffles(&c, &m[i]).store(dst.wrapping_offset(i as isize * plane_stride).add(j * N));
            }
        }
        j += per;
    }
    j
}
