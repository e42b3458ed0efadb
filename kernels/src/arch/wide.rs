//! Whole integer registers of any width ([`Ints`]: AVX2's 32 bytes, AVX-512's 64), and the integer kernels written
//! once over them: a resize's vertical taps over u8 rows ([`rows_u8_q7`]).
//!
//! Operations that work within 128-bit lanes (unpacks, packs) keep that meaning at every width; [`Ints::zip128`] is
//! the one cross-lane step the kernels need to put such results back in element order.

use core::arch::x86_64::__m128i;

use super::RowWeights;

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
