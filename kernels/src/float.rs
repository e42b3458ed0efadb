//! Scalar float conversions bit-exact with the vector instructions (F16C / AVX-512 rounding, NaN payloads): the
//! leaf every level, the conversion routes and the resize epilogues call for single elements and tails.

/// f16 bits → f32 exactly, as the F16C / AVX-512 instructions convert: NaNs keep their payload and become quiet.
///
/// Without branches (selects between three results computed alike), so that loops of it vectorize at the portable
/// level: the exponent field rebiased by 112 for normal values; a subnormal `m·2⁻²⁴` as the normal `2⁻¹⁴·(1 +
/// m/1024)` minus `2⁻¹⁴` (exact); infinities and NaNs get the f32 exponent and, for a NaN, the quiet bit.
/// PERF: see [`f32_to_f16_scalar`].
#[inline(always)]
pub(crate) fn f16_to_f32_scalar(h: u16) -> f32 {
    let h = u32::from(h);
    let (sign, a) = ((h & 0x8000) << 16, h & 0x7FFF);
    let shifted = a << 13;
    let normal = shifted + 0x3800_0000;
    let small = (f32::from_bits(shifted + 0x3880_0000) - f32::from_bits(0x3880_0000)).to_bits();
    let special = shifted | 0x7F80_0000 | if a > 0x7C00 { 0x40_0000 } else { 0 };
    let bits = match a & 0x7C00 {
        0x7C00 => special,
        0 => small,
        _ => normal,
    };
    f32::from_bits(sign | bits)
}

/// Whether every result `x·scale + bias` of a one-byte integer `x` (|x| ≤ 255) lies well inside i32 (below 2³⁰ in
/// magnitude; false for NaN or infinite parameters). Then a normalization into one-byte integers needs no float
/// clamp: converting to i32 rounds to nearest even exactly, and saturating the integer to the byte range gives what
/// clamping first gives (the bounds are integers).
#[inline(always)]
pub(crate) fn byte_results_fit_i32(scale: f32, bias: f32) -> bool {
    scale.abs() * 256.0 + bias.abs() < 1_073_741_824.0
}

/// f32 → f16 bits, rounded to nearest even, as the F16C / AVX-512 instructions convert: overflow gives infinity,
/// NaNs become quiet and keep the top bits of their payload.
///
/// Without branches (selects between results computed alike), so that loops of it vectorize at the portable level:
/// a normal result rebiases the exponent field (−112) and rounds the 13 dropped bits to nearest even by adding
/// `0xFFF` plus the lowest kept bit (a carry moves into the exponent, up to infinity); a result below `2⁻¹⁴`
/// (subnormal or zero) is rounded by the float adder: in `|x| + 0.5` the f16 subnormal's bits are the sum's low bits.
///
/// PERF: the branches of the former form (one per class of value, and per rounding decision) kept LLVM from
/// vectorizing: `--isa scalar`, one thread, the f32 → f16 cast of 4 Mi elements 12.6 ms (3 ns an element).
#[inline(always)]
pub(crate) fn f32_to_f16_scalar(x: f32) -> u16 {
    let b = x.to_bits();
    let (sign, a) = ((b >> 16) & 0x8000, b & 0x7FFF_FFFF);
    let normal = a.wrapping_add(0xC800_0FFF).wrapping_add((a >> 13) & 1) >> 13;
    let small = (f32::from_bits(a) + 0.5).to_bits().wrapping_sub(0x3F00_0000);
    let nan = 0x7E00 | ((a >> 13) & 0x3FF);
    let r = if a > 0x7F80_0000 {
        nan
    } else if a >= 0x4780_0000 {
        0x7C00 // 2¹⁶ and above (and infinity): infinity
    } else if a < 0x3880_0000 {
        small
    } else {
        normal
    };
    (sign | r) as u16
}

/// f64 → f32 rounded to odd: exact values convert exactly; an inexact one becomes the one of its two f32 neighbours
/// whose last significand bit is 1. NaNs convert as `as` converts them (quiet, top payload bits kept).
#[inline(always)]
pub(crate) fn f64_to_f32_odd_scalar(x: f64) -> f32 {
    let y = x as f32;
    let back = f64::from(y);
    if back == x || x.is_nan() {
        return y;
    }
    // Truncate toward zero (the neighbour below in magnitude), then force the last bit.
    let b = y.to_bits() - u32::from(back.abs() > x.abs());
    f32::from_bits(b | 1)
}

/// The kernels' result of a normalization of the one-byte integer `x` into `i8` (`signed_out`) or `u8`, for
/// parameters that pass [`byte_results_fit_i32`]: `x` exactly in f32, a product then a sum in f32, rounded to
/// nearest even (inside i32 by the bound), saturated to the output's range.
pub(crate) fn byte_result(x: i32, scale: f32, bias: f32, signed_out: bool) -> i32 {
    let (lo, hi) = if signed_out { (-128, 127) } else { (0, 255) };
    ((x as f32 * scale + bias).round_ties_even() as i32).clamp(lo, hi)
}

/// A normalization of one-byte integers into one-byte integers in fixed point: `x ↦ (x·mult + add) >> shift` in
/// i32 (an arithmetic shift: the floor of the quotient), then saturated to the output's range — for every one-byte
/// `x` exactly the byte the float arithmetic gives (`x·scale + bias` in f32, rounded to nearest even, saturated),
/// which [`FixedAffine::at`] checks for all 256 inputs before it returns one. No intermediate value leaves i32.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub(crate) struct FixedAffine {
    pub(crate) mult: i32,
    pub(crate) add: i32,
    pub(crate) shift: u32,
}

impl FixedAffine {
    /// A candidate fixed-point form of `x·scale + bias`, not checked: at the finest shift
    /// [`FixedAffine::shift_for`] allows, the multiplier `round(scale·2^shift)` and the addend
    /// `round((bias + ½)·2^shift)`, no value of which leaves i32 for any one-byte `x`. A kernel takes it only after
    /// comparing its results with the float kernel's for every input byte.
    pub(crate) fn guess(scale: f32, bias: f32) -> Option<FixedAffine> {
        let shift = FixedAffine::shift_for(scale, bias)?;
        let one = 1u64.checked_shl(shift)? as f64;
        // (|scale·2^shift|·256 + |(bias + ½)·2^shift| < 2³⁰ by `shift_for`: every value fits i32.)
        let mult = (f64::from(scale) * one).round() as i32;
        let add = ((f64::from(bias) + 0.5) * one).round() as i32;
        Some(FixedAffine { mult, add, shift })
    }

    /// The finest shift (at most 30) at which `(|scale|·256 + |bias| + 2)·2^shift` stays below 2³⁰, so that every
    /// product and sum of [`FixedAffine::at`] fits i32 with room; `None` for parameters whose results do not
    /// fit i32 ([`byte_results_fit_i32`]).
    pub(crate) fn shift_for(scale: f32, bias: f32) -> Option<u32> {
        if !byte_results_fit_i32(scale, bias) {
            return None;
        }
        let reach = f64::from(scale.abs()) * 256.0 + f64::from(bias.abs()) + 2.0;
        // reach = m·2^e with 1 ≤ m < 2 (a normal number, at least 2): reach·2^k < 2³⁰ exactly when e + k ≤ 29.
        // (From the exponent bits: a per-call cost of a few instructions, where a loop of `exp2` calls took
        // hundreds of nanoseconds.)
        let e = ((reach.to_bits() >> 52) & 0x7FF) as i64 - 1023;
        Some(29i64.saturating_sub(e).clamp(0, 30) as u32)
    }

    /// The fixed-point form at `shift` (≤ 30), checked for every input: the multiplier `round(scale·2^shift)`, the
    /// addend any value for which each input lands on its float result — for an unsaturated result `r`,
    /// `r·2^shift ≤ x·mult + add < (r+1)·2^shift` — the one nearest `(bias + ½)·2^shift`.
    pub(crate) fn at(scale: f32, bias: f32, signed_in: bool, signed_out: bool, shift: u32) -> Option<FixedAffine> {
        if !byte_results_fit_i32(scale, bias) || shift > 30 {
            return None;
        }
        let one = 1i64.checked_shl(shift)?;
        // (|mult| < 2⁵³: |scale| < 2²² by `byte_results_fit_i32`; every product below stays far inside i64.)
        let mult = (f64::from(scale) * one as f64).round() as i64;
        let (lo, hi) = if signed_out { (-128i64, 127i64) } else { (0, 255) };
        let inputs = if signed_in { -128i64..=127 } else { 0..=255 };
        let (mut least, mut most) = (i64::MIN, i64::MAX);
        for x in inputs.clone() {
            let r = i64::from(byte_result(x as i32, scale, bias, signed_out));
            let v = x.checked_mul(mult)?;
            if r > lo {
                least = least.max(r.checked_mul(one)?.checked_sub(v)?);
            }
            if r < hi {
                most = most.min(r.checked_add(1)?.checked_mul(one)?.checked_sub(v)?.checked_sub(1)?);
            }
        }
        if least > most {
            return None;
        }
        let add = (((f64::from(bias) + 0.5) * one as f64).round() as i64).clamp(least, most);
        let fits = |v: i64| i32::try_from(v).is_ok();
        let exact = fits(mult)
            && fits(add)
            && inputs
                .into_iter()
                .all(|x| x.checked_mul(mult).is_some_and(|v| fits(v) && v.checked_add(add).is_some_and(fits)));
        exact.then_some(FixedAffine { mult: mult as i32, add: add as i32, shift })
    }
}

#[cfg(feature = "selftest")]
#[strider_kernels_macros::selftests]
mod tests {
    use super::{FixedAffine, f16_to_f32_scalar, f32_to_f16_scalar};

    /// f16 → f32 by cases (the definition the branch-free form is checked against).
    fn f16_to_f32_by_cases(h: u16) -> f32 {
        let sign = u32::from(h & 0x8000) << 16;
        let exp = u32::from(h >> 10) & 0x1F;
        let man = u32::from(h & 0x3FF);
        let bits = match (exp, man) {
            (0x1F, 0) => sign | 0x7F80_0000,
            (0x1F, m) => sign | 0x7FC0_0000 | (m << 13),
            (0, 0) => sign,
            (0, m) => sign | (m as f32 * f32::from_bits(0x3380_0000)).to_bits(),
            (e, m) => sign | ((e + 112) << 23) | (m << 13),
        };
        f32::from_bits(bits)
    }

    /// f32 → f16 by cases, rounding in integers (the definition the branch-free form is checked against).
    fn f32_to_f16_by_cases(x: f32) -> u16 {
        let b = x.to_bits();
        let sign = ((b >> 16) & 0x8000) as u16;
        let exp = (b >> 23) & 0xFF;
        let man = b & 0x7F_FFFF;
        if exp == 0xFF {
            return if man == 0 { sign | 0x7C00 } else { sign | 0x7E00 | (man >> 13) as u16 };
        }
        let e = exp as i32 - 112;
        if e >= 31 {
            return sign | 0x7C00;
        }
        if e <= 0 {
            if e < -10 {
                return sign;
            }
            let sig = man | 0x80_0000;
            let shift = (14 - e) as u32;
            let (q, rem, half) = (sig >> shift, sig & ((1 << shift) - 1), 1u32 << (shift - 1));
            let up = rem > half || (rem == half && q & 1 == 1);
            return sign | (q + u32::from(up)) as u16;
        }
        let (q, rem) = (man >> 13, man & 0x1FFF);
        let up = rem > 0x1000 || (rem == 0x1000 && q & 1 == 1);
        sign | (((e as u32) << 10 | q) + u32::from(up)) as u16
    }

    #[test]
    fn f16_conversions_without_branches_match_the_cases() {
        for h in 0..=u16::MAX {
            assert_eq!(f16_to_f32_scalar(h).to_bits(), f16_to_f32_by_cases(h).to_bits(), "{h:04x}");
        }
        // Every f32 whose low 8 bits are 0x00, 0x7F, 0x80 or 0xFF — every exponent and every rounding class (the
        // dropped bits below, at and above the tie, odd and even kept bits) — and every f32 near each class
        // boundary: subnormal results, the smallest normal, the largest finite, infinity and NaNs.
        let edges = [0x3300_0000u32, 0x3880_0000, 0x477F_E000, 0x4780_0000, 0x7F80_0000];
        let near = edges.iter().flat_map(|&e| (e - 0x4000..e + 0x4000).flat_map(|b| [b, b | 0x8000_0000]));
        for b in (0..=u32::MAX >> 8).flat_map(|hi| [0x00, 0x7F, 0x80, 0xFF].map(|lo| hi << 8 | lo)).chain(near) {
            let x = f32::from_bits(b);
            assert_eq!(f32_to_f16_scalar(x), f32_to_f16_by_cases(x), "{b:08x}");
        }
    }

    /// Every one-byte input of `f`'s types against the float arithmetic.
    fn agrees(f: FixedAffine, scale: f32, bias: f32, signed_in: bool, signed_out: bool) -> bool {
        let (lo, hi) = if signed_out { (-128.0, 127.0) } else { (0.0, 255.0) };
        let inputs = if signed_in { -128..=127 } else { 0..=255 };
        let (l, h) = (lo as i32, hi as i32);
        inputs.into_iter().all(|x: i32| {
            let want = ((x as f32) * scale + bias).round_ties_even().clamp(lo, hi) as i32;
            // As the kernels compute it (`FixedAffine::at` checked that nothing wraps).
            let got = x.wrapping_mul(f.mult).wrapping_add(f.add).wrapping_shr(f.shift).clamp(l, h);
            got == want
        })
    }

    #[test]
    fn fixed_affine_gives_the_float_results_or_nothing() {
        let (mut found, mut guessed) = (0, 0);
        let mut seed = 0x2545_f491_4f6c_dd1du64;
        let mut next = || {
            seed ^= seed << 13;
            seed ^= seed >> 7;
            seed ^= seed << 17;
            seed
        };
        let mut pairs = vec![
            (1.0, 0.0),
            (0.5, 0.0),
            (0.5, 0.25),
            (-1.0, 127.0),
            (0.017_125_02, -2.117_904),
            (1.0 / 0.0186, -128.0),
            (4_190_000.0, 1.0e6),
            (1e-30, 3.5),
            (0.0, -0.5),
            (0.0, 0.5),
            (0.0, 1.5),
            (255.0, -65025.0),
        ];
        for _ in 0..3000 {
            let r = next();
            let scale = f32::from_bits((r as u32 & 0x807F_FFFF) | ((100 + (r >> 32) as u32 % 40) << 23));
            let bias = ((r >> 40) as i32 % 70_000) as f32 / ((r >> 20) as u32 % 97 + 1) as f32;
            pairs.push((scale, bias));
        }
        for &(scale, bias) in &pairs {
            for (si, so) in [(false, false), (false, true), (true, false), (true, true)] {
                let new = FixedAffine::shift_for(scale, bias).and_then(|k| FixedAffine::at(scale, bias, si, so, k));
                if let Some(f) = new {
                    found += 1;
                    assert!(agrees(f, scale, bias, si, so), "{scale} {bias} {si} {so}: {f:?}");
                }
                // The guess is the form's multiplier, and usually its addend too.
                if let (Some(f), Some(g)) = (new, FixedAffine::guess(scale, bias)) {
                    assert_eq!((f.mult, f.shift), (g.mult, g.shift));
                    guessed += usize::from(agrees(g, scale, bias, si, so));
                }
                // A coarser shift is checked as strictly.
                if let Some(f) = FixedAffine::at(scale, bias, si, so, 3) {
                    assert!(agrees(f, scale, bias, si, so), "{scale} {bias} {si} {so} at 3: {f:?}");
                }
            }
        }
        // Most parameters have a fixed-point form; ties to even (x·0.5) and unbounded results do not.
        assert!(found > pairs.len() * 4 * 3 / 4, "{found} of {}", pairs.len() * 4);
        assert!(guessed > found * 9 / 10, "{guessed} of {found}");
        let form = |s: f32, b: f32| FixedAffine::at(s, b, false, false, FixedAffine::shift_for(s, b)?);
        assert_eq!(form(0.5, 0.0), None);
        assert_eq!(FixedAffine::shift_for(f32::NAN, 0.0), None);
        assert_eq!(FixedAffine::shift_for(4.3e6, 0.0), None);
        assert_eq!(FixedAffine::guess(4.3e6, 0.0), None);
        assert!(form(1.0, 0.0).is_some());
    }
}
