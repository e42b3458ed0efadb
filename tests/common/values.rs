//! A naive reference for value conversions, written from the documented rules and sharing no code with the
//! kernels: every element is decoded into its exact value (an integer, or a float as `sign · m · 2^e`), then encoded
//! into the destination type by the rule for that type. f16 rounding is done here by integer arithmetic on the
//! exact value.

use strider::DataType;

/// An element's exact value.
#[derive(Clone, Copy, Debug, PartialEq)]
pub enum Value {
    /// An integer.
    Int(i128),
    /// A finite float: `(-1)^neg · m · 2^e`.
    Float { neg: bool, m: u64, e: i32 },
    /// ±infinity.
    Inf { neg: bool },
    /// Not a number.
    NaN,
}

/// Decodes the little-endian element `b` of type `dt`.
pub fn decode(dt: DataType, b: &[u8]) -> Value {
    let u = {
        let mut x = [0u8; 8];
        x[..b.len()].copy_from_slice(b);
        u64::from_le_bytes(x)
    };
    match dt {
        DataType::Uint8 | DataType::Uint16 | DataType::Uint32 | DataType::Uint64 => Value::Int(i128::from(u)),
        DataType::Int8 => Value::Int(i128::from(u as u8 as i8)),
        DataType::Int16 => Value::Int(i128::from(u as u16 as i16)),
        DataType::Int32 => Value::Int(i128::from(u as u32 as i32)),
        DataType::Int64 => Value::Int(i128::from(u as i64)),
        DataType::Float16 => float(u, 5, 10),
        DataType::Float32 => float(u, 8, 23),
        DataType::Float64 => float(u, 11, 52),
        _ => unreachable!("a new data type"),
    }
}

/// IEEE binary float with `eb` exponent bits and `mb` mantissa bits.
fn float(u: u64, eb: u32, mb: u32) -> Value {
    let neg = u >> (eb + mb) & 1 == 1;
    let exp = (u >> mb) & ((1 << eb) - 1);
    let man = u & ((1 << mb) - 1);
    let bias = (1i32 << (eb - 1)) - 1;
    if exp == (1 << eb) - 1 {
        return if man == 0 { Value::Inf { neg } } else { Value::NaN };
    }
    if exp == 0 {
        return Value::Float { neg, m: man, e: 1 - bias - mb as i32 };
    }
    Value::Float { neg, m: man | 1 << mb, e: exp as i32 - bias - mb as i32 }
}

/// The value as an f64 when that is exact (every float of these types; integers up to 2^53).
fn exact_f64(v: Value) -> Option<f64> {
    match v {
        Value::Int(i) if i.unsigned_abs() <= 1 << 53 => Some(i as f64),
        Value::Int(_) => None,
        Value::Float { neg, m, e } => {
            // Built from bits: m · 2^e is an f64 value exactly (it was decoded from one, or from a narrower float),
            // but scaling by powers of two would flush the subnormal ones.
            let sign = if neg { 1u64 << 63 } else { 0 };
            if m == 0 {
                return Some(f64::from_bits(sign));
            }
            let lz = m.leading_zeros() as i32 - 11; // top bit to position 52
            let (m, e) = (if lz >= 0 { m << lz } else { m >> -lz }, e - lz);
            let biased = e + 52 + 1023;
            let bits = if biased >= 1 {
                (biased as u64) << 52 | (m & ((1 << 52) - 1))
            } else {
                m >> (1 - biased) // a subnormal: exact, it came from one
            };
            Some(f64::from_bits(sign | bits))
        }
        Value::Inf { neg } => Some(if neg { f64::NEG_INFINITY } else { f64::INFINITY }),
        Value::NaN => Some(f64::NAN),
    }
}

/// Rounds `(-1)^neg · m · 2^e` to nearest even at ulp exponent `k` (a multiple of 2^k): returns the integer count of
/// ulps.
fn round_at(m: u128, e: i32, k: i32) -> u128 {
    let shift = k - e;
    if shift <= 0 {
        return m << (-shift).min(100);
    }
    if shift >= 128 {
        return 0;
    }
    let q = m >> shift;
    let rem = m & ((1u128 << shift) - 1);
    let half = 1u128 << (shift - 1);
    if rem > half || (rem == half && q & 1 == 1) { q + 1 } else { q }
}

/// f16 bits of the value rounded once to nearest even (overflow to infinity; NaN as the canonical quiet NaN).
pub fn to_f16(v: Value) -> u16 {
    let (neg, m, e) = match v {
        Value::NaN => return 0x7E00,
        Value::Inf { neg } => return if neg { 0xFC00 } else { 0x7C00 },
        Value::Int(i) => (i < 0, i.unsigned_abs(), 0),
        Value::Float { neg, m, e } => (neg, u128::from(m), e),
    };
    let sign = if neg { 0x8000 } else { 0 };
    if m == 0 {
        return sign;
    }
    // floor(log2 |x|) = bit length of m − 1 + e; f16 binade exponents run from -14 (subnormals below) to 15.
    let log2 = 127 - m.leading_zeros() as i32 + e;
    let binade = log2.max(-14);
    if binade > 15 {
        return sign | 0x7C00;
    }
    let r = round_at(m, e, binade - 10);
    let bits = if binade == -14 && r < 1024 {
        r // subnormal
    } else {
        // r in [1024, 2048]: 2048 carries into the next binade (or infinity)
        (((binade + 15) as u128) << 10) + (r - 1024)
    };
    sign | bits.min(0x7C00) as u16
}

/// The element of type `dt` for value `v` under Rust's `as` rules (f16 destinations: [`to_f16`]); little-endian
/// bytes. NaN destinations get the canonical quiet NaN (callers compare NaNs by class).
pub fn encode(dt: DataType, v: Value) -> Vec<u8> {
    let int = |min: i128, max: i128, bits: u32| -> u64 {
        let i = match v {
            Value::Int(i) => {
                // wrap: keep the low `bits` bits
                return (i as u128 & ((1u128 << bits) - 1)) as u64;
            }
            Value::NaN => 0,
            Value::Inf { neg } => {
                if neg {
                    min
                } else {
                    max
                }
            }
            Value::Float { neg, m, e } => {
                // toward zero, then saturate
                let bits_of_m = 64 - m.leading_zeros() as i32;
                let t: i128 = if m == 0 {
                    0
                } else if e >= 0 {
                    if bits_of_m + e > 120 { 1 << 120 } else { i128::from(m) << e }
                } else if e <= -64 {
                    0
                } else {
                    i128::from(m >> -e)
                };
                if neg { -t } else { t }
            }
        };
        (i.clamp(min, max) as u128 & ((1u128 << bits) - 1)) as u64
    };
    let u: u64 = match dt {
        DataType::Uint8 => int(0, 255, 8),
        DataType::Uint16 => int(0, 65535, 16),
        DataType::Uint32 => int(0, u32::MAX.into(), 32),
        DataType::Uint64 => int(0, u64::MAX.into(), 64),
        DataType::Int8 => int(-128, 127, 8),
        DataType::Int16 => int(-32768, 32767, 16),
        DataType::Int32 => int(i32::MIN.into(), i32::MAX.into(), 32),
        DataType::Int64 => int(i64::MIN.into(), i64::MAX.into(), 64),
        DataType::Float16 => u64::from(to_f16(v)),
        DataType::Float32 => u64::from(
            match v {
                Value::Int(i) => i as f32,         // Rust's integer → float conversion rounds to nearest even
                _ => exact_f64(v).unwrap() as f32, // f64 → f32 rounds to nearest even; exact sources
            }
            .to_bits(),
        ),
        DataType::Float64 => match v {
            Value::Int(i) => (i as f64).to_bits(),
            _ => exact_f64(v).unwrap().to_bits(),
        },
        _ => unreachable!("a new data type"),
    };
    u.to_le_bytes()[..dt.size_in_bytes()].to_vec()
}

/// Whether two elements of type `dt` are equal: bit for bit, except that any NaN equals any NaN.
pub fn same(dt: DataType, a: &[u8], b: &[u8]) -> bool {
    a == b || (decode(dt, a) == Value::NaN && decode(dt, b) == Value::NaN)
}

/// `x · scale + bias` for a float element, product then sum, each rounded to nearest even: in f32 (f16 widened
/// exactly, the result rounded once to f16), in f64 for f64.
pub fn scale_bias(dt: DataType, b: &[u8], scale: f32, bias: f32) -> Vec<u8> {
    match dt {
        DataType::Float64 => {
            let x = f64::from_le_bytes(b.try_into().unwrap());
            (x * f64::from(scale) + f64::from(bias)).to_le_bytes().to_vec()
        }
        DataType::Float32 => {
            let x = f32::from_le_bytes(b.try_into().unwrap());
            (x * scale + bias).to_le_bytes().to_vec()
        }
        DataType::Float16 => {
            let x = exact_f64(decode(dt, b)).unwrap() as f32; // exact
            let y = x * scale + bias;
            to_f16(if y.is_nan() { Value::NaN } else { decode(DataType::Float32, &y.to_le_bytes()) })
                .to_le_bytes()
                .to_vec()
        }
        _ => unreachable!("scale/bias takes float types"),
    }
}

/// Edge values of a type as little-endian elements: zeros, extremes, NaN payloads, infinities, subnormals, ties,
/// values just outside each integer range, 2^24 + 1, 2^53 + 1, and f32 values that round differently to f16 under
/// other rounding modes.
pub fn edge_values(dt: DataType) -> Vec<Vec<u8>> {
    let w = dt.size_in_bytes();
    let mut raw: Vec<u64> = vec![0, 1, 2, 0x7F, 0x80, 0xFF, 0x100, 0x7FFF, 0x8000, 0xFFFF, 0x1_0000, 0x7FFF_FFFF];
    raw.extend([0x8000_0000, 0xFFFF_FFFF, 1 << 32, (1 << 24) + 1, (1 << 53) + 1, u64::MAX, 1 << 63, (1 << 63) - 1]);
    raw.extend([u64::MAX - 1, (1 << 63) + 1, 65504, 65519, 65520, 2049, 4097]);
    match dt {
        DataType::Float16 => raw.extend([
            0x7C00, 0xFC00, 0x7C01, 0x7DFF, 0x7E00, 0xFE55, 0x0001, 0x8001, 0x03FF, 0x0400, 0x7BFF, 0x3C00, 0xBC00,
            0x3800, 0x3E00,
        ]),
        DataType::Float32 => {
            let f = |x: f32| u64::from(x.to_bits());
            raw.extend([
                f(f32::INFINITY),
                f(f32::NEG_INFINITY),
                0x7F80_0001,
                0x7FC0_1234,
                0xFFBF_FFFF,
                1,
                0x8000_0001,
                0x0080_0000,
            ]);
            // f16 ties and near-ties: 1 + 2^-11 (tie → 1), 1 + 3·2^-11 (tie → up), 65520 (tie → inf), 2^-25
            raw.extend([
                0x3F80_1000,
                0x3F80_3000,
                0x3F80_1001,
                0x3F80_0FFF,
                0x477F_F000,
                0x477F_EFFF,
                0x3300_0000,
                0x3300_0001,
                0x33C0_0000,
            ]);
            for x in [
                -0.0f32,
                0.5,
                -0.5,
                1.5,
                2.5,
                -2.5,
                127.5,
                128.0,
                -128.5,
                255.5,
                256.0,
                32767.5,
                65535.5,
                2147483520.0,
                2147483648.0,
                4294967296.0,
                -2147483904.0,
                9.223372e18,
                1.8446744e19,
                -9.223373e18,
                16777217.0,
                1e-40,
                6.1e-5,
                5.96e-8,
                2.98e-8,
                3e-8,
            ] {
                raw.push(f(x));
            }
        }
        DataType::Float64 => {
            let f = |x: f64| x.to_bits();
            raw.extend([
                f(f64::INFINITY),
                f(f64::NEG_INFINITY),
                0x7FF0_0000_0000_0001,
                0xFFF8_0000_0000_1234,
                0x7FF4_0000_1000_0001,
                1,
                0x0010_0000_0000_0000,
            ]);
            // f16 ties broken by far-away bits (one rounding, not two): 1 + 2^-11 + 2^-40, 1 + 2^-11 - 2^-40
            raw.extend([
                f(1.0 + 2f64.powi(-11) + 2f64.powi(-40)),
                f(1.0 + 2f64.powi(-11) - 2f64.powi(-40)),
                f(1.0 + 2f64.powi(-11)),
            ]);
            raw.extend([
                f(65519.99),
                f(65520.0),
                f(2f64.powi(-25)),
                f(2f64.powi(-25) * (1.0 + 2f64.powi(-45))),
                f(f64::MAX),
                f(-f64::MIN_POSITIVE),
            ]);
            for x in [
                -0.0f64,
                0.5,
                -0.5,
                1.5,
                2.5,
                127.5,
                128.0,
                -128.5,
                255.5,
                256.0,
                32767.5,
                65535.5,
                2147483647.5,
                2147483648.0,
                -2147483648.5,
                4294967295.5,
                4294967296.0,
                9.223372036854775e18,
                9.223372036854777e18,
                1.8446744073709552e19,
                -9.223372036854777e18,
                16777217.0,
                9007199254740993.0,
                3.4028235677973366e38,
                3.4028235677973362e38,
            ] {
                raw.push(f(x));
            }
        }
        _ => {}
    }
    // i64/u64 whose f16 rounding happens near 2^16: irrelevant (they overflow), but huge ones must become inf
    let mut s = 0x9E37_79B9_7F4A_7C15u64;
    for _ in 0..40 {
        s ^= s << 13;
        s ^= s >> 7;
        s ^= s << 17;
        raw.push(s);
        raw.push(s >> 49);
    }
    raw.iter().map(|x| x.to_le_bytes()[..w].to_vec()).collect()
}

#[test]
fn to_f16_agrees_with_known_roundings() {
    let f = |x: f64| to_f16(decode(DataType::Float64, &x.to_le_bytes()));
    assert_eq!(f(1.0), 0x3C00);
    assert_eq!(f(65504.0), 0x7BFF);
    assert_eq!(f(65519.99), 0x7BFF);
    assert_eq!(f(65520.0), 0x7C00);
    assert_eq!(f(2f64.powi(-24)), 0x0001);
    assert_eq!(f(2f64.powi(-25)), 0x0000);
    assert_eq!(f(1.5 * 2f64.powi(-24)), 0x0002);
    assert_eq!(f(2f64.powi(-14)), 0x0400);
    assert_eq!(f(-2.0), 0xC000);
    assert_eq!(f(1.0 + 2f64.powi(-11)), 0x3C00);
    assert_eq!(f(1.0 + 2f64.powi(-11) + 2f64.powi(-40)), 0x3C01);
    assert_eq!(to_f16(Value::Int(65519)), 0x7BFF);
    assert_eq!(to_f16(Value::Int(-70000)), 0xFC00);
    assert_eq!(to_f16(Value::Int(i128::from(u64::MAX))), 0x7C00);
}

/// The f32 an element becomes under Rust's `as` (integers and f64 round to nearest even; f16 is exact).
pub fn to_f32(dt: DataType, b: &[u8]) -> f32 {
    f32::from_le_bytes(encode(DataType::Float32, decode(dt, b)).try_into().unwrap())
}

/// The element of type `dt` for the f32 `y` under normalization's output rule: floats round to nearest even,
/// integers round half to even then saturate, NaN → 0.
pub fn from_f32_nearest(dt: DataType, y: f32) -> Vec<u8> {
    let v = decode(DataType::Float32, &y.to_le_bytes());
    if dt.is_float() {
        return encode(dt, v);
    }
    let rounded = match v {
        Value::Float { neg, m, e } => {
            // the nearest integer, ties to even, by integer arithmetic on the exact value
            let r = round_at(u128::from(m), e, 0).min(1 << 100) as i128;
            Value::Int(if neg { -r } else { r })
        }
        other => other, // NaN → 0 and ±inf saturate in `encode`
    };
    // `encode` wraps integers: saturate first.
    let (min, max): (i128, i128) = match dt {
        DataType::Uint8 => (0, 255),
        DataType::Uint16 => (0, 65535),
        DataType::Uint32 => (0, u32::MAX.into()),
        DataType::Uint64 => (0, u64::MAX.into()),
        DataType::Int8 => (-128, 127),
        DataType::Int16 => (-32768, 32767),
        DataType::Int32 => (i32::MIN.into(), i32::MAX.into()),
        DataType::Int64 => (i64::MIN.into(), i64::MAX.into()),
        _ => unreachable!("a new data type"),
    };
    match rounded {
        Value::Int(i) => encode(dt, Value::Int(i.clamp(min, max))),
        other => encode(dt, other),
    }
}

/// One normalized element: `from_f32_nearest(to, to_f32(x) · scale + bias)`, product then sum in f32.
pub fn normalize(from: DataType, to: DataType, b: &[u8], scale: f32, bias: f32) -> Vec<u8> {
    from_f32_nearest(to, to_f32(from, b) * scale + bias)
}

#[test]
fn from_f32_nearest_rounds_half_to_even_and_saturates() {
    let f = |dt, y: f32| from_f32_nearest(dt, y);
    assert_eq!(f(DataType::Uint8, 2.5), [2]);
    assert_eq!(f(DataType::Uint8, 3.5), [4]);
    assert_eq!(f(DataType::Uint8, 254.5), [254]);
    assert_eq!(f(DataType::Uint8, 255.5), [255]);
    assert_eq!(f(DataType::Uint8, -0.5), [0]);
    assert_eq!(f(DataType::Uint8, -7.0), [0]);
    assert_eq!(f(DataType::Uint8, f32::NAN), [0]);
    assert_eq!(f(DataType::Int8, -128.5), [0x80]);
    assert_eq!(f(DataType::Int8, -127.5), [0x80]);
    assert_eq!(f(DataType::Int8, 126.5), [126]);
    assert_eq!(f(DataType::Int8, f32::INFINITY), [127]);
    assert_eq!(f(DataType::Int16, 0.5000001), [1, 0]);
    assert_eq!(f(DataType::Int32, 3e9), i32::MAX.to_le_bytes());
    assert_eq!(f(DataType::Uint64, -1e30), [0; 8]);
    assert_eq!(f(DataType::Float16, 65520.0), 0x7C00u16.to_le_bytes());
}
