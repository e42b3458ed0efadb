//! Sixteen 32-bit lanes ([`Lanes16`], over the level's registers: [`Simd`]) and the fused conversions written once
//! over them (Normalize, and the one-byte pixels of a deinterleave fused with it).
//!
//! The conversions' unit of work is 16 elements (their tables, [`Widen`](crate::tables::Widen)'s windows and the
//! [`Norm16`] steps, are built for 16 pixels), so the vocabulary's unit is 16 lanes: one register at AVX-512
//! ([`Avx512`](super::v4::Avx512)), two at AVX2 ([`Avx2`](super::x86::Avx2)). [`Lanes16`], [`Put`], [`Bytes`],
//! [`put_plane`] and [`deinterleave_normalize`] are written once and compiled per level. What a level does on its
//! own stays in its file, with the reason: AVX2's fixed-point bytes (`Avx2Fixed`, where `vpmulld` beats two
//! conversions), AVX-512's dword permutes of f32 pixels.

use super::RowRun;
use super::simd::{Pair, Simd, pair};
use super::x86::{Norm16, TY_F16, TY_F32, TY_I8, TY_U8, byte_top, ty_width};
use crate::tables::Planar;

/// 16 f32 lanes in the registers of level `R`.
pub(super) type F16<R> = Pair<<R as Simd>::F>;
/// 16 i32 lanes in the registers of level `R`.
pub(super) type I16<R> = Pair<<R as Simd>::I>;

/// Sixteen 32-bit lanes in the registers of one x86 level ([`Simd::HALVES`] of them, a [`Pair`]), and the
/// operations the fused conversions use on them: written once over [`Simd`], for every level.
///
/// Every method requires the level's target features to be enabled in the code it is inlined into (hence
/// `unsafe`).
pub(super) trait Lanes16: Simd {
    /// `x` in every lane.
    ///
    /// # Safety
    ///
    /// The level's features are enabled (as for every method).
    #[inline(always)]
    unsafe fn splat(x: f32) -> F16<Self> {
        // SAFETY: the level's features (contract).
        [unsafe { Self::splat_ps(x) }; 2]
    }

    /// 16 f32 from `p` (any alignment).
    ///
    /// # Safety
    ///
    /// 64 readable bytes at `p`.
    #[inline(always)]
    unsafe fn load_f32(p: *const u8) -> F16<Self> {
        // SAFETY: register h reads bytes h·BYTES.. of the 64 at p (contract).
        pair!(Self, h => unsafe { Self::load_ps(p.add(h * Self::BYTES)) })
    }

    /// 16 f16 (bits) from `p`, widened exactly.
    ///
    /// # Safety
    ///
    /// 32 readable bytes at `p`; F16C.
    #[inline(always)]
    unsafe fn load_f16(p: *const u8) -> F16<Self> {
        // SAFETY: register h reads bytes h·BYTES/2.. of the 32 at p (contract).
        pair!(Self, h => unsafe { Self::load_ph(p.add(h * Self::BYTES / 2)) })
    }

    /// 16 bytes from `p` (i8 when `SIGNED`, else u8), widened exactly to i32.
    ///
    /// # Safety
    ///
    /// 16 readable bytes at `p`.
    #[inline(always)]
    unsafe fn load_bytes<const SIGNED: bool>(p: *const u8) -> I16<Self> {
        // SAFETY: register h reads bytes h·BYTES/4.. of the 16 at p (contract).
        pair!(Self, h => unsafe { Self::widen_bytes::<SIGNED>(p.add(h * Self::BYTES / 4)) })
    }

    /// A plane's byte-shuffle masks (window `g`'s in bytes `16g..16g + 16`) in registers.
    ///
    /// # Safety
    ///
    /// As every method.
    #[inline(always)]
    unsafe fn masks(m: &[[u8; 16]; 4]) -> I16<Self> {
        let p = m.as_ptr().cast::<u8>();
        // SAFETY: the 64 bytes of `m`, register h bytes h·BYTES..; the level's features (contract).
        pair!(Self, h => unsafe { Self::load(p.add(h * Self::BYTES)) })
    }

    /// Stores 16 f32 at `p` (64 bytes), non-temporally with `STREAM`.
    ///
    /// # Safety
    ///
    /// 64 writable bytes at `p`, aligned to 64 with `STREAM`.
    #[inline(always)]
    unsafe fn store_f32<const STREAM: bool>(x: F16<Self>, p: *mut u8) {
        // SAFETY: register h writes bytes h·BYTES.. of the 64 at p (contract).
        unsafe {
            Self::store_ps::<STREAM>(x[0], p);
            if Self::HALVES > 1 {
                Self::store_ps::<STREAM>(x[1], p.add(Self::BYTES));
            }
        }
    }

    /// i32 → f32 (exact for the inputs the conversions give it: bytes).
    ///
    /// # Safety
    ///
    /// As every method.
    #[inline(always)]
    unsafe fn to_f32(x: I16<Self>) -> F16<Self> {
        // SAFETY: the level's features (contract).
        pair!(Self, h => unsafe { Self::to_ps(x[h]) })
    }

    /// Lane-wise `a·b`, rounded to nearest even (never fused with an add).
    ///
    /// # Safety
    ///
    /// As every method.
    #[inline(always)]
    unsafe fn mul(a: F16<Self>, b: F16<Self>) -> F16<Self> {
        // SAFETY: the level's features (contract).
        pair!(Self, h => unsafe { Self::mul_ps(a[h], b[h]) })
    }

    /// Lane-wise `a + b`, rounded to nearest even.
    ///
    /// # Safety
    ///
    /// As every method.
    #[inline(always)]
    unsafe fn add(a: F16<Self>, b: F16<Self>) -> F16<Self> {
        // SAFETY: the level's features (contract).
        pair!(Self, h => unsafe { Self::add_ps(a[h], b[h]) })
    }

    /// Lane-wise `min(a, b)` (`b` when either is NaN, as `minps`).
    ///
    /// # Safety
    ///
    /// As every method.
    #[inline(always)]
    unsafe fn min(a: F16<Self>, b: F16<Self>) -> F16<Self> {
        // SAFETY: the level's features (contract).
        pair!(Self, h => unsafe { Self::min_ps(a[h], b[h]) })
    }

    /// NaN lanes set to +0, the others unchanged.
    ///
    /// # Safety
    ///
    /// As every method.
    #[inline(always)]
    unsafe fn nan_to_zero(x: F16<Self>) -> F16<Self> {
        // SAFETY: the level's features (contract).
        pair!(Self, h => unsafe { Self::nan_to_zero_ps(x[h]) })
    }

    /// f32 → i32 rounded to nearest even (the default rounding; lanes outside i32 give `i32::MIN`).
    ///
    /// # Safety
    ///
    /// As every method.
    #[inline(always)]
    unsafe fn round(x: F16<Self>) -> I16<Self> {
        // SAFETY: the level's features (contract).
        pair!(Self, h => unsafe { Self::round_ps(x[h]) })
    }

    /// f32 → i32 rounded toward zero (lanes outside i32, and NaN, give `i32::MIN`).
    ///
    /// # Safety
    ///
    /// As every method.
    #[inline(always)]
    unsafe fn truncate(x: F16<Self>) -> I16<Self> {
        // SAFETY: the level's features (contract).
        pair!(Self, h => unsafe { Self::trunc_ps(x[h]) })
    }

    /// `vpshufb` of the windows by a plane's masks (a mask byte with its top bit set gives 0): the bytes put into
    /// lanes.
    ///
    /// # Safety
    ///
    /// As every method.
    #[inline(always)]
    unsafe fn shuffle(b: I16<Self>, m: I16<Self>) -> I16<Self> {
        // SAFETY: the level's features (contract).
        pair!(Self, h => unsafe { Self::shuffle_bytes(b[h], m[h]) })
    }

    /// Each lane's top byte, sign-extended (an arithmetic shift right by 24).
    ///
    /// # Safety
    ///
    /// As every method.
    #[inline(always)]
    unsafe fn top_byte_signed(x: I16<Self>) -> I16<Self> {
        // SAFETY: the level's features (contract).
        pair!(Self, h => unsafe { Self::sra32_24(x[h]) })
    }
}

impl<R: Simd> Lanes16 for R {}

/// Stores 16 f32 results at `d` as type `OUT`: f16 rounded to nearest even (32 bytes), f32 (64 bytes), or one-byte
/// integers rounded to nearest even and saturated (16 bytes) — for results inside i32 only (see
/// [`byte_results_fit_i32`](crate::float::byte_results_fit_i32): no float clamp) — non-temporally with `STREAM`.
///
/// # Safety
///
/// The bytes at `d` are writable; with `STREAM`, `d` is aligned to their count (32 at most); the level's features.
#[inline(always)]
pub(super) unsafe fn put_plane<L: Lanes16, const OUT: u8, const STREAM: bool>(y: F16<L>, d: *mut u8) {
    // SAFETY: stores of the bytes at d, and the level's features (contract).
    unsafe {
        match OUT {
            TY_F16 => L::store_ph16::<STREAM>(y, d),
            TY_F32 => L::store_f32::<STREAM>(y, d),
            _ => L::narrow16::<OUT, STREAM>(L::round(y), d),
        }
    }
}

/// `Arch::f32_to_u8_half_up` over [`Lanes16`], 32 elements a step: `trunc(min(255, x) + 0.5)` narrowed with
/// saturation — the minimum passes a NaN on, and the conversion gives `i32::MIN` for NaN and anything below i32,
/// which saturates to 0; below −0.5 the sum truncates to 0 or less. Returns the elements done (a multiple of 32).
///
/// PERF (one thread, Zen 4 VM, u8 `Resize` 224² → 640² sampled bilinear from Python, µs): against the plain loop
/// of `to_u8` (a maximum, a minimum, an add, a conversion and 1.5 shuffles a register: the compiler narrows each
/// register on its own), `--isa v3` 221–240 → 183–186, AVX-512 163–165 → 159–160.
///
/// # Safety
///
/// As `Arch::f32_to_u8_half_up`; the level's features.
#[inline(always)]
pub(super) unsafe fn u8_half_up<L: Lanes16>(src: *const u8, dst: *mut u8, n: usize) -> usize {
    let mut i = 0;
    // SAFETY: (whole block) elements i..i + 32 of both ranges while i + 32 ≤ n; the level's features (contract).
    unsafe {
        let (top, half) = (L::splat(255.0), L::splat(0.5));
        // (A macro: a closure may be compiled out of line, without the level's target features.)
        macro_rules! one {
            ($at:expr) => {
                L::truncate(L::add(L::min(top, L::load_f32(src.add(4 * $at))), half))
            };
        }
        while i + 32 <= n {
            L::narrow32::<TY_U8, false>(one!(i), one!(i + 16), dst.add(i));
            i += 32;
        }
    }
    i
}

/// [`Norm16`] over [`Lanes16`]: 16 inputs of type `FROM` converted to f32 exactly, `x·scale + bias` (product, then
/// sum), stored as `KIND` — one-byte integers rounded to nearest even and saturated, NaN giving 0, so that any
/// `(scale, bias)` gives the casts' bytes ([`Put::rounded`]), 32 a step (one narrowing of two registers' worth).
#[derive(Clone, Copy, Default)]
pub(super) struct Put<L, const FROM: u8, const KIND: u8>(L);

impl<L: Lanes16, const FROM: u8, const KIND: u8> Norm16 for Put<L, FROM, KIND> {
    type P = (F16<L>, F16<L>);
    type Word = f32;
    const IN: usize = ty_width(FROM);
    const OUT: usize = ty_width(KIND);
    const SIGNED: bool = FROM == TY_I8;

    #[inline(always)]
    unsafe fn params(self, scale: f32, bias: f32) -> Self::P {
        // SAFETY: the level's features (contract).
        unsafe { (L::splat(scale), L::splat(bias)) }
    }

    #[inline(always)]
    unsafe fn load(self, scales: *const f32, biases: *const f32) -> Self::P {
        // SAFETY: 16 f32 at each pointer (contract).
        unsafe { (L::load_f32(scales.cast()), L::load_f32(biases.cast())) }
    }

    #[inline(always)]
    unsafe fn put<const STREAM: bool>(self, src: *const u8, p: Self::P, dst: *mut u8) {
        // SAFETY: 16·IN bytes at src (contract), the level's features; forwarded contract.
        unsafe { Self::finish::<STREAM>(Self::load(src), p, dst) }
    }

    #[inline(always)]
    unsafe fn put_dwords<const STREAM: bool>(self, d: [core::arch::x86_64::__m256i; 2], p: Self::P, dst: *mut u8) {
        // SAFETY: forwarded contract.
        unsafe { Self::finish::<STREAM>(L::to_f32(L::join_halves(d)), p, dst) }
    }

    const PAIRS: bool = matches!(KIND, TY_U8 | TY_I8);

    #[inline(always)]
    unsafe fn put2<const STREAM: bool>(self, src: *const u8, p0: Self::P, p1: Self::P, dst: *mut u8) {
        // SAFETY: 32 inputs at src, 32·OUT bytes at dst (aligned as the contract says), the level's features.
        unsafe {
            if matches!(KIND, TY_U8 | TY_I8) {
                let (a, b) =
                    (Self::rounded(Self::load(src), p0), Self::rounded(Self::load(src.add(16 * Self::IN)), p1));
                L::narrow32::<KIND, STREAM>(a, b, dst)
            } else {
                self.put::<STREAM>(src, p0, dst);
                self.put::<STREAM>(src.add(16 * Self::IN), p1, dst.add(16 * Self::OUT));
            }
        }
    }
}

impl<L: Lanes16, const FROM: u8, const KIND: u8> Put<L, FROM, KIND> {
    /// The 16 inputs at `src` in f32, exactly.
    ///
    /// # Safety
    ///
    /// `16·IN` readable bytes at `src`; the level's features.
    #[inline(always)]
    unsafe fn load(src: *const u8) -> F16<L> {
        // SAFETY: forwarded contract.
        unsafe {
            match FROM {
                TY_F32 => L::load_f32(src),
                TY_F16 => L::load_f16(src),
                TY_I8 => L::to_f32(L::load_bytes::<true>(src)),
                _ => L::to_f32(L::load_bytes::<false>(src)),
            }
        }
    }

    /// `x·scale + bias` rounded to nearest even into i32 lanes whose narrowing to `KIND` (saturating) gives the
    /// casts' bytes: the value is capped at the type's top (`minps` passes a NaN on), and the conversion gives
    /// `i32::MIN` for NaN and for anything below i32, which saturates to the type's bottom — 0 for u8, NaN's byte;
    /// i8's NaN lanes are set to 0 first.
    ///
    /// PERF (one thread, Zen 4 VM, tight, both orders, `--isa v3` / AVX-512, µs): NaN lanes to 0, a maximum and a
    /// minimum, 16 a step → this, 32 a step: Normalize f32 → u8 NCHW 8×3×224² 110 → 62 / 62 → 55, into NHWC
    /// 126–130 → 80–83 / 76–78 → 59; f16 → u8 4×3×256² 79–81 → 49–50 / 51–52 → 31; f32 → i8 1 Mi 94 → 70–71 / 50.
    ///
    /// # Safety
    ///
    /// The level's features.
    #[inline(always)]
    unsafe fn rounded(x: F16<L>, (s, b): (F16<L>, F16<L>)) -> I16<L> {
        // SAFETY: the level's features (contract).
        unsafe {
            let y = L::add(L::mul(x, s), b);
            let y = if KIND == TY_I8 { L::nan_to_zero(y) } else { y };
            L::round(L::min(L::splat(byte_top(KIND)), y))
        }
    }

    /// The 16 inputs as f32 normalized into `16·OUT` bytes at `dst`.
    ///
    /// # Safety
    ///
    /// As [`Norm16::put`] for `dst`.
    #[inline(always)]
    unsafe fn finish<const STREAM: bool>(x: F16<L>, p: (F16<L>, F16<L>), dst: *mut u8) {
        // SAFETY: 16·OUT bytes at dst and the level's features (contract).
        unsafe {
            match KIND {
                TY_U8 | TY_I8 => L::narrow16::<KIND, STREAM>(Self::rounded(x, p), dst),
                _ => put_plane::<L, KIND, STREAM>(L::add(L::mul(x, p.0), p.1), dst),
            }
        }
    }
}

/// [`Norm16`] of one-byte integers (`i8` when `SIGNED`, else `u8`) into one-byte integers (`KIND`) whose results
/// all pass [`byte_results_fit_i32`](crate::float::byte_results_fit_i32): no float clamp — the conversion to i32
/// rounds to nearest even exactly and the narrowing saturates — and 32 elements a step where the level narrows
/// two registers' worth at once ([`Simd::narrow32`]).
#[derive(Clone, Copy, Default)]
pub(super) struct Bytes<L, const SIGNED: bool, const KIND: u8>(L);

impl<L: Lanes16, const SIGNED: bool, const KIND: u8> Bytes<L, SIGNED, KIND> {
    /// The 16 bytes at `src` normalized and rounded to i32.
    ///
    /// # Safety
    ///
    /// 16 readable bytes at `src`; the level's features.
    #[inline(always)]
    unsafe fn rounded(src: *const u8, (s, b): (F16<L>, F16<L>)) -> I16<L> {
        // SAFETY: forwarded contract.
        unsafe { Self::rounded_lanes(L::load_bytes::<SIGNED>(src), (s, b)) }
    }

    /// 16 inputs widened to i32 normalized and rounded to i32.
    ///
    /// # Safety
    ///
    /// The level's features.
    #[inline(always)]
    unsafe fn rounded_lanes(x: I16<L>, (s, b): (F16<L>, F16<L>)) -> I16<L> {
        // SAFETY: the level's features (contract).
        unsafe { L::round(L::add(L::mul(L::to_f32(x), s), b)) }
    }
}

impl<L: Lanes16, const SIGNED: bool, const KIND: u8> Norm16 for Bytes<L, SIGNED, KIND> {
    type P = (F16<L>, F16<L>);
    type Word = f32;
    const IN: usize = 1;
    const OUT: usize = 1;
    const PAIRS: bool = true;
    const SIGNED: bool = SIGNED;

    #[inline(always)]
    unsafe fn params(self, scale: f32, bias: f32) -> Self::P {
        // SAFETY: forwarded contract.
        unsafe { Put::<L, TY_U8, KIND>::default().params(scale, bias) }
    }

    #[inline(always)]
    unsafe fn load(self, scales: *const f32, biases: *const f32) -> Self::P {
        // SAFETY: forwarded contract.
        unsafe { Put::<L, TY_U8, KIND>::default().load(scales, biases) }
    }

    #[inline(always)]
    unsafe fn put<const STREAM: bool>(self, src: *const u8, p: Self::P, dst: *mut u8) {
        // SAFETY: 16 bytes at src and at dst, the level's features (contract).
        unsafe { L::narrow16::<KIND, STREAM>(Self::rounded(src, p), dst) }
    }

    #[inline(always)]
    unsafe fn put_dwords<const STREAM: bool>(self, d: [core::arch::x86_64::__m256i; 2], p: Self::P, dst: *mut u8) {
        // SAFETY: 16 bytes at dst, the level's features (contract).
        unsafe { L::narrow16::<KIND, STREAM>(Self::rounded_lanes(L::join_halves(d), p), dst) }
    }

    #[inline(always)]
    unsafe fn put2<const STREAM: bool>(self, src: *const u8, p0: Self::P, p1: Self::P, dst: *mut u8) {
        // SAFETY: 32 bytes at src and at dst (32-byte aligned when streaming), the level's features (contract).
        unsafe { L::narrow32::<KIND, STREAM>(Self::rounded(src, p0), Self::rounded(src.add(16), p1), dst) }
    }
}

/// Pixels of `P` one-byte slots (`t.planes` of them used) → `t.planes` normalized planes of type `OUT`, 16 pixels
/// per step: four 16-byte windows ([`Simd::windows`]), one byte shuffle per plane widening the bytes straight into
/// 32-bit lanes ([`Widen`](crate::tables::Widen): into the top byte of each lane when `SIGNED`, then an arithmetic
/// shift; into the bottom otherwise), `x·scale + bias` and the store ([`put_plane`]); returns the pixels done — none
/// into one-byte integers unless every plane's results fit i32 (the narrowing saturates, no clamp).
///
/// # Safety
///
/// As `Arch::deinterleave_convert`; the level's features (and F16C for f16) enabled; `t` was built for width 1 and
/// `P` slots.
#[inline(always)]
#[allow(clippy::needless_range_loop)] // the plane index picks the masks, the parameters and the plane
pub(super) unsafe fn deinterleave_normalize<
    L: Lanes16,
    const P: usize,
    const SIGNED: bool,
    const OUT: u8,
    const STREAM: bool,
>(
    t: &Planar,
    src: *const u8,
    dst: *mut u8,
    plane_stride: isize,
    n: usize,
    params: &[[f32; 2]; 4],
    rows: RowRun,
) -> usize {
    let w = &t.widen;
    let out = ty_width(OUT);
    if out == 1 && !params[..P].iter().all(|&[s, b]| crate::float::byte_results_fit_i32(s, b)) {
        return 0;
    }
    // SAFETY: (whole function) each step reads four 16-byte windows inside the windows of output pixels j..j+16
    // (16·P bytes from the step's lowest address) and writes elements j..j+16 of every plane, in bounds while
    // j + 16 ≤ n; the level's features by the contract.
    unsafe {
        let masks = if SIGNED { &w.masks } else { &w.low };
        // (Loops, not `array::from_fn`: its closures may stay out of line, outside the level's features.)
        let mut m = [L::masks(&masks[0]); P];
        let mut p = [(L::splat(params[0][0]), L::splat(params[0][1])); P];
        for i in 1..P {
            m[i] = L::masks(&masks[i]);
            p[i] = (L::splat(params[i][0]), L::splat(params[i][1]));
        }
        // Hoisted: the compiler cannot prove that the stores leave the tables alone.
        let win = w.win;
        let planes = t.planes;
        let steps = n / 16;
        for r in 0..rows.count as isize {
            let dst = dst.wrapping_offset(r * rows.out_step);
            let at = t.steps(t.window(src.wrapping_offset(r * rows.in_step)), 16, P);
            for j in (0..steps).map(|s| 16 * s) {
                let b = L::windows(at.at(j), win);
                macro_rules! plane {
                    ($i:expr) => {
                        if $i < P && $i < planes {
                            let v = L::shuffle(b, m[$i]);
                            let x = if SIGNED { L::top_byte_signed(v) } else { v };
                            let y = L::add(L::mul(L::to_f32(x), p[$i].0), p[$i].1);
                            let d = dst.wrapping_offset($i as isize * plane_stride).add(j * out);
                            put_plane::<L, OUT, STREAM>(y, d);
                        }
                    };
                }
                if L::HALVES > 1 {
                    // Unrolled at AVX2: its loop over the planes kept the masks and parameters in memory, indexed by
                    // the plane (a load for every shuffle, product and sum). PERF: one thread, Zen 4, `--isa v3`, u8
                    // NHWC 32×224² → f16 NCHW 325 → 298 µs. AVX-512 keeps the loop (unrolled, mirrored BGR rows ran 2–11 %
                    // slower there).
                    plane!(0);
                    plane!(1);
                    plane!(2);
                    plane!(3);
                } else {
                    for i in 0..P {
                        plane!(i);
                    }
                }
            }
        }
        16 * steps
    }
}
