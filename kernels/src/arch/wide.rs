//! Integer kernels written once over a level's whole registers ([`Simd`]: AVX2's 32 bytes, AVX-512's 64): a
//! resize's vertical taps over u8 rows ([`rows_u8_q7`]) and its horizontal taps over pairs ([`taps_pairs`]).

use super::RowWeights;
use super::simd::{Simd, pair};

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
unsafe fn sums<R: Simd, const K: usize>(p: *const u8, step: isize, pairs: &[i32], taps: usize) -> [[R::I; 4]; K] {
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
                let (a, b, w): (R::I, R::I, R::I) = ($a, $b, $w);
                let acc = &mut acc[$k];
                let (lo, hi) = R::unpack16(a, b);
                acc[0] = R::add32(acc[0], R::madd16(R::and(lo, even), w));
                acc[1] = R::add32(acc[1], R::madd16(R::shr16_8(lo), w));
                acc[2] = R::add32(acc[2], R::madd16(R::and(hi, even), w));
                acc[3] = R::add32(acc[3], R::madd16(R::shr16_8(hi), w));
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
            let (a, b) = R::unpack32(acc[k][0], acc[k][1]);
            let (c, d) = R::unpack32(acc[k][2], acc[k][3]);
            out[k] = [a, b, c, d];
        }
        out
    }
}

/// `Arch::rows_u8_q7` for rows of at least `BYTES` elements: `2·BYTES` elements at a time (two chunks of [`sums`] per
/// weight broadcast and loop step), the rest `BYTES` at a time, the last chunk ending at `n` (overlapping the one
/// before: its elements computed twice alike); the sums rounded, shifted, packed with saturation and put back in
/// order ([`Simd::zip128`]).
///
/// PERF (one thread, Zen 4 VM, u8 RGB bilinear resizes filtered rows first, ms): two chunks per step against one,
/// AVX2 1920×1080 → 224² 0.502 → 0.472, 2560×1600 → 320×200 0.83 → 0.745, 640×480 → 341×256 0.234 → 0.227;
/// AVX-512 0.455 → 0.450, 0.725 → 0.70, 0.225 → 0.22.
///
/// # Safety
///
/// As `Arch::rows_u8_q7`, with `n ≥ BYTES`; the level's features.
#[inline(always)]
pub(super) unsafe fn rows_u8_q7<R: Simd>(src: *const u8, step: isize, w: RowWeights<'_>, n: usize, out: *mut i16) {
    let width = R::BYTES;
    // SAFETY: (whole body) the sums read BYTES bytes of each tap row inside the contract's range (x + BYTES ≤ n,
    // n ≥ BYTES); every store BYTES/2 i16 of the output; the level's features (contract).
    unsafe {
        let s = w.shift.wrapping_sub(7);
        let (half, count) = (R::splat32(1 << s.wrapping_sub(1)), core::arch::x86_64::_mm_cvtsi32_si128(s as i32));
        macro_rules! put {
            ($x:expr, $q:expr) => {{
                let mut q: [R::I; 4] = $q;
                for v in &mut q {
                    *v = R::sra32(R::add32(*v, half), count);
                }
                // Packed, the words are 0..8 | 16..24 | … and 8..16 | 24..32 | …: zipped, in order.
                let (a, b) = R::zip128(R::packs32(q[0], q[1]), R::packs32(q[2], q[3]));
                R::store(a, out.add($x).cast());
                R::store(b, out.add($x + width / 2).cast());
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

/// `Arch::taps_pairs` over the level's registers: per pair of taps and channel, the block's 32 i16 (16 lanes' pairs)
/// in [`Simd::HALVES`] loads, each multiplied by the broadcast weight pair (`vpmaddwd`) into the lanes' sums, put back
/// in lane order at the end ([`Simd::store_pair_order`]).
///
/// # Safety
///
/// As `Arch::taps_pairs`; the level's features.
#[inline(always)]
pub(super) unsafe fn taps_pairs<R: Simd, const G: usize>(
    src: *const i16,
    step: usize,
    pairs: &[i32],
    out: &mut [[i32; 16]; G],
) {
    // SAFETY: each block of channel c is the 64 bytes at p + 32c i16 (contract): load h reads bytes h·BYTES.. of
    // them; the level's features (contract).
    unsafe {
        let mut acc = [[R::zero(); 2]; G];
        let mut p = src;
        for &w in pairs {
            let w = R::splat32(w);
            for (c, acc) in acc.iter_mut().enumerate() {
                let block = p.add(32 * c).cast::<u8>();
                *acc = pair!(R, h => R::add32(acc[h], R::madd16(R::load(block.add(h * R::BYTES)), w)));
            }
            p = p.add(step);
        }
        for (o, acc) in out.iter_mut().zip(acc) {
            R::store_pair_order(acc, o.as_mut_ptr());
        }
    }
}
