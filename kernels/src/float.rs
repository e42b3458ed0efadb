//! Scalar float conversions bit-exact with the vector instructions (F16C / AVX-512 rounding, NaN payloads): the
//! leaf every level, the conversion routes and the resize epilogues call for single elements and tails.

/// f16 bits → f32 exactly, as the F16C / AVX-512 instructions convert: NaNs keep their payload and become quiet.
#[inline(always)]
pub(crate) fn f16_to_f32_scalar(h: u16) -> f32 {
    let sign = u32::from(h & 0x8000) << 16;
    let exp = u32::from(h >> 10) & 0x1F;
    let man = u32::from(h & 0x3FF);
    let bits = match (exp, man) {
        (0x1F, 0) => sign | 0x7F80_0000,
        (0x1F, m) => sign | 0x7FC0_0000 | (m << 13),
        (0, 0) => sign,
        // Subnormal: man · 2^-24, exact in f32 (a normal number there).
        (0, m) => sign | (m as f32 * f32::from_bits(0x3380_0000)).to_bits(),
        (e, m) => sign | ((e + 112) << 23) | (m << 13),
    };
    f32::from_bits(bits)
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
#[inline(always)]
pub(crate) fn f32_to_f16_scalar(x: f32) -> u16 {
    let b = x.to_bits();
    let sign = ((b >> 16) & 0x8000) as u16;
    let exp = (b >> 23) & 0xFF;
    let man = b & 0x7F_FFFF;
    if exp == 0xFF {
        return if man == 0 { sign | 0x7C00 } else { sign | 0x7E00 | (man >> 13) as u16 };
    }
    // The exponent rebiased for f16 (may be ≤ 0: subnormal or zero, ≥ 31: overflow).
    let e = exp as i32 - 112;
    if e >= 31 {
        return sign | 0x7C00;
    }
    if e <= 0 {
        if e < -10 {
            return sign; // below half the smallest subnormal
        }
        // f16 subnormal m·2^-24 with m = significand >> (14 - e), rounded to nearest even.
        let sig = man | 0x80_0000;
        let shift = (14 - e) as u32;
        let (q, rem, half) = (sig >> shift, sig & ((1 << shift) - 1), 1u32 << (shift - 1));
        let up = rem > half || (rem == half && q & 1 == 1);
        return sign | (q + u32::from(up)) as u16;
    }
    let (q, rem) = (man >> 13, man & 0x1FFF);
    let up = rem > 0x1000 || (rem == 0x1000 && q & 1 == 1);
    // A carry out of the mantissa moves to the next binade (or to infinity), which is the right result.
    sign | (((e as u32) << 10 | q) + u32::from(up)) as u16
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
