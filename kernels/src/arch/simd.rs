//! The registers of one x86 level ([`Simd`]: AVX2's 32 bytes, AVX-512's 64): the vocabulary the algorithms written
//! once over registers use — a resize's vertical taps over u8 rows ([`wide`](super::wide)), the fused conversions of
//! Normalize ([`lanes`](super::lanes), through [`Lanes16`](super::lanes::Lanes16): 16 32-bit lanes in
//! [`Simd::HALVES`] registers, written once over this trait).
//!
//! A level implements per-register operations (loads, stores, arithmetic, widening loads, conversions) and the few
//! that cross registers or 128-bit lanes, where its instruction set decides how (narrowing 16 or 32 i32 lanes to
//! bytes, 16 f32 to f16, loading four 16-byte windows). Operations that work within 128-bit lanes (unpacks, packs,
//! byte shuffles) keep that meaning at every width; [`Simd::zip128`] puts such results back in element order.

use core::arch::x86_64::{__m128i, __m256i};

/// 16 32-bit lanes in the registers of a level: element 0 holds lanes 0–7 at AVX2 and all 16 at AVX-512, element 1
/// lanes 8–15 at AVX2 (at AVX-512 unused: a copy of element 0, never stored). A fixed array rather than one sized
/// by the level: straight-line code for the compiler (a group sized by an associated type, with loops over it,
/// cost 15 s of the crate's release build).
pub(super) type Pair<T> = [T; 2];

/// A [`Pair`] from `$e` with `$h` = 0 and, at a level of two registers per 16 lanes, `$h` = 1 (else a copy of the
/// first). Straight-line code: the level's count is a constant the compiler folds.
macro_rules! pair {
    ($l:ty, $h:ident => $e:expr) => {{
        let first = {
            let $h = 0usize;
            $e
        };
        [
            first,
            if <$l as Simd>::HALVES > 1 {
                let $h = 1usize;
                $e
            } else {
                first
            },
        ]
    }};
}
pub(super) use pair;

/// The registers of one x86 level and the operations the register-generic algorithms use on them.
///
/// Every method requires the level's target features to be enabled in the code it is inlined into (hence `unsafe`);
/// implementors are zero-sized and carry no proof of that: the level's token does.
pub(super) trait Simd: Copy + Default {
    /// Bytes per register.
    const BYTES: usize;
    /// Registers per 16 32-bit lanes (the fused conversions' unit, a [`Pair`]): 2 at AVX2, 1 at AVX-512.
    const HALVES: usize = 64 / Self::BYTES;
    /// An integer register.
    type I: Copy;
    /// A register of f32.
    type F: Copy;
    /// All lanes 0.
    ///
    /// # Safety
    ///
    /// The level's features are enabled (as for every method).
    unsafe fn zero() -> Self::I;
    /// `x` in every 16-bit lane.
    ///
    /// # Safety
    ///
    /// As every method.
    unsafe fn splat16(x: i16) -> Self::I;
    /// `x` in every 32-bit lane.
    ///
    /// # Safety
    ///
    /// As every method.
    unsafe fn splat32(x: i32) -> Self::I;
    /// `BYTES` bytes from `p` (any alignment).
    ///
    /// # Safety
    ///
    /// `p..p + BYTES` is readable.
    unsafe fn load(p: *const u8) -> Self::I;
    /// Stores `BYTES` bytes at `p` (any alignment).
    ///
    /// # Safety
    ///
    /// `p..p + BYTES` is writable.
    unsafe fn store(v: Self::I, p: *mut u8);
    /// `BYTES / 4` bytes from `p` (i8 when `SIGNED`, else u8), widened exactly to i32 lanes.
    ///
    /// # Safety
    ///
    /// `p..p + BYTES / 4` is readable.
    unsafe fn widen_bytes<const SIGNED: bool>(p: *const u8) -> Self::I;
    /// Bitwise and.
    ///
    /// # Safety
    ///
    /// As every method.
    unsafe fn and(a: Self::I, b: Self::I) -> Self::I;
    /// Each 16-bit lane shifted right by 8, zeros in.
    ///
    /// # Safety
    ///
    /// As every method.
    unsafe fn shr16_8(a: Self::I) -> Self::I;
    /// Each 32-bit lane's top byte, sign-extended (an arithmetic shift right by 24).
    ///
    /// # Safety
    ///
    /// As every method.
    unsafe fn sra32_24(a: Self::I) -> Self::I;
    /// Each i32 lane shifted right arithmetically by the count in the low 64 bits of `count`.
    ///
    /// # Safety
    ///
    /// As every method.
    unsafe fn sra32(a: Self::I, count: __m128i) -> Self::I;
    /// The 16-bit lanes of `a` and `b` interleaved within each 128-bit lane: (the low halves', the high halves').
    ///
    /// # Safety
    ///
    /// As every method.
    unsafe fn unpack16(a: Self::I, b: Self::I) -> (Self::I, Self::I);
    /// [`Simd::unpack16`] of 32-bit lanes.
    ///
    /// # Safety
    ///
    /// As every method.
    unsafe fn unpack32(a: Self::I, b: Self::I) -> (Self::I, Self::I);
    /// Adjacent products of i16 lanes summed into i32 lanes (`vpmaddwd`).
    ///
    /// # Safety
    ///
    /// As every method.
    unsafe fn madd16(a: Self::I, w: Self::I) -> Self::I;
    /// Lane-wise i32 sum (wrapping).
    ///
    /// # Safety
    ///
    /// As every method.
    unsafe fn add32(a: Self::I, b: Self::I) -> Self::I;
    /// i32 lanes of `a` then `b` narrowed to i16 with signed saturation, within each 128-bit lane (`vpackssdw`).
    ///
    /// # Safety
    ///
    /// As every method.
    unsafe fn packs32(a: Self::I, b: Self::I) -> Self::I;
    /// The 128-bit lanes of `a` and `b` interleaved: (`a`₀ `b`₀ `a`₁ `b`₁ …, the rest in the same order).
    ///
    /// # Safety
    ///
    /// As every method.
    unsafe fn zip128(a: Self::I, b: Self::I) -> (Self::I, Self::I);
    /// `vpshufb`: the bytes of `a` picked within each 128-bit lane by `m`'s (a byte with its top bit set gives 0).
    ///
    /// # Safety
    ///
    /// As every method.
    unsafe fn shuffle_bytes(a: Self::I, m: Self::I) -> Self::I;

    /// `x` in every lane.
    ///
    /// # Safety
    ///
    /// As every method.
    unsafe fn splat_ps(x: f32) -> Self::F;
    /// `BYTES / 4` f32 from `p` (any alignment).
    ///
    /// # Safety
    ///
    /// `p..p + BYTES` is readable.
    unsafe fn load_ps(p: *const u8) -> Self::F;
    /// `BYTES / 4` f16 (bits) from `p`, widened exactly.
    ///
    /// # Safety
    ///
    /// `p..p + BYTES / 2` is readable; F16C.
    unsafe fn load_ph(p: *const u8) -> Self::F;
    /// Stores the f32 lanes at `p`, non-temporally with `STREAM`.
    ///
    /// # Safety
    ///
    /// `p..p + BYTES` is writable, aligned to `BYTES` with `STREAM`.
    unsafe fn store_ps<const STREAM: bool>(x: Self::F, p: *mut u8);
    /// i32 → f32 (exact for the inputs the algorithms give it: bytes).
    ///
    /// # Safety
    ///
    /// As every method.
    unsafe fn to_ps(x: Self::I) -> Self::F;
    /// Lane-wise `a·b`, rounded to nearest even (never fused with an add).
    ///
    /// # Safety
    ///
    /// As every method.
    unsafe fn mul_ps(a: Self::F, b: Self::F) -> Self::F;
    /// Lane-wise `a + b`, rounded to nearest even.
    ///
    /// # Safety
    ///
    /// As every method.
    unsafe fn add_ps(a: Self::F, b: Self::F) -> Self::F;
    /// Lane-wise `min(a, b)` (`b` when either is NaN, as `minps`).
    ///
    /// # Safety
    ///
    /// As every method.
    unsafe fn min_ps(a: Self::F, b: Self::F) -> Self::F;
    /// NaN lanes set to +0, the others unchanged.
    ///
    /// # Safety
    ///
    /// As every method.
    unsafe fn nan_to_zero_ps(x: Self::F) -> Self::F;
    /// f32 → i32 rounded to nearest even (the default rounding; lanes outside i32 give `i32::MIN`).
    ///
    /// # Safety
    ///
    /// As every method.
    unsafe fn round_ps(x: Self::F) -> Self::I;
    /// f32 → i32 rounded toward zero (lanes outside i32, and NaN, give `i32::MIN`).
    ///
    /// # Safety
    ///
    /// As every method.
    unsafe fn trunc_ps(x: Self::F) -> Self::I;

    /// 16 i32 lanes from two AVX2 registers of 8 (`d[0]` lanes 0–7).
    ///
    /// # Safety
    ///
    /// As every method.
    unsafe fn join_halves(d: [__m256i; 2]) -> Pair<Self::I>;
    /// Stores 16 f32 as f16 at `p` (32 bytes) rounded to nearest even whatever MXCSR says, non-temporally with
    /// `STREAM`.
    ///
    /// # Safety
    ///
    /// 32 writable bytes at `p`, aligned to 32 with `STREAM`; F16C.
    unsafe fn store_ph16<const STREAM: bool>(x: Pair<Self::F>, p: *mut u8);
    /// Stores 16 i32 saturated to bytes of `KIND` (`TY_I8` or `TY_U8`) at `p`, non-temporally with `STREAM`.
    ///
    /// # Safety
    ///
    /// 16 writable bytes at `p`, aligned to 16 with `STREAM`.
    unsafe fn narrow16<const KIND: u8, const STREAM: bool>(x: Pair<Self::I>, p: *mut u8);
    /// [`Simd::narrow16`] of 32 i32 (`a` the first 16) into 32 bytes.
    ///
    /// # Safety
    ///
    /// 32 writable bytes at `p`, aligned to 32 with `STREAM`.
    unsafe fn narrow32<const KIND: u8, const STREAM: bool>(a: Pair<Self::I>, b: Pair<Self::I>, p: *mut u8);
    /// Stores 16 i32 lanes whose 128-bit quarters hold lanes 0–3, 8–11, 4–7, 12–15 (the sums of a block of
    /// `Arch::taps_pairs`: [`PAIR_ORDER`](super::PAIR_ORDER)) at `p` in lane order.
    ///
    /// # Safety
    ///
    /// 64 writable bytes at `p`.
    unsafe fn store_pair_order(x: Pair<Self::I>, p: *mut i32);
    /// The 16-byte windows at `base + win[g]`, `g < 4`: window `g` in bytes `16g..16g + 16` of the group.
    ///
    /// # Safety
    ///
    /// The four windows are readable.
    unsafe fn windows(base: *const u8, win: [usize; 4]) -> Pair<Self::I>;
}
