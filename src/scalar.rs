//! [`Scalar`]: one value with its data type, DirectML's `DML_SCALAR_UNION` with the `DML_TENSOR_DATA_TYPE` that
//! says which member it holds.

use core::fmt;

use strider_kernels::ElementOp;

use crate::{DataType, Element};

/// One value of a [`DataType`]: a fill's value, a padding's constant, a sequence's start and step.
///
/// Built from a Rust value of the element type (`Scalar::from(114u8)`, `Scalar::from(0.5f32)`), or from the 8 bytes
/// of a `DML_SCALAR_UNION` ([`Scalar::from_union`]); [`Scalar::cast`] converts it as [`Cast`](crate::Cast)
/// converts elements.
///
/// # Examples
///
/// ```
/// use strider::{DataType, Scalar};
/// let v = Scalar::from(-2.75f32);
/// assert_eq!(v.data_type(), DataType::Float32);
/// assert_eq!(v.cast(DataType::Int8), Scalar::from(-2i8)); // toward zero, as Rust's `as`
/// assert_eq!(v.cast(DataType::Uint8), Scalar::from(0u8)); // saturating
/// assert_eq!(Scalar::from(300i64).cast(DataType::Uint8), Scalar::from(44u8)); // integers wrap
/// let half = Scalar::from_union(DataType::Float16, [0x00, 0x3C, 0, 0, 0, 0, 0, 0]); // binary16 bits of 1.0
/// assert_eq!(half, Scalar::from(strider::half::f16::ONE));
/// ```
#[derive(Clone, Copy, PartialEq, Eq, Hash)]
pub struct Scalar {
    data_type: DataType,
    /// The element's little-endian bytes, the rest 0.
    bytes: [u8; 8],
}

impl Scalar {
    /// The value a `DML_SCALAR_UNION` holds for `data_type`: the element's bytes at the start of `union` (a
    /// `FLOAT16` is its binary16 bits in `Bytes[0..2]`); the bytes past the element are ignored.
    pub fn from_union(data_type: DataType, union: [u8; 8]) -> Scalar {
        let mut bytes = [0u8; 8];
        let n = data_type.size_in_bytes();
        bytes[..n].copy_from_slice(&union[..n]);
        Scalar { data_type, bytes }
    }

    /// The value's data type.
    pub fn data_type(&self) -> DataType {
        self.data_type
    }

    /// The element's little-endian bytes (as many as the data type's size).
    pub fn bytes(&self) -> &[u8] {
        &self.bytes[..self.data_type.size_in_bytes()]
    }

    /// The value as a `DML_SCALAR_UNION`'s 8 bytes (the element first, zeros after).
    pub fn to_union(&self) -> [u8; 8] {
        self.bytes
    }

    /// The value converted to `to` as [`Cast`](crate::Cast) converts elements (Rust's `as`: integers wrap, floats
    /// to integers truncate and saturate with NaN → 0, everything to floats rounds to nearest even).
    pub fn cast(self, to: DataType) -> Scalar {
        let mut out = Scalar { data_type: to, bytes: [0; 8] };
        let op = ElementOp::Cast { from: self.data_type.elem(), to: to.elem() };
        let done = op.apply_one(self.bytes(), &mut out.bytes[..to.size_in_bytes()]);
        debug_assert!(done, "a scalar holds one element of its type");
        out
    }

    /// The value as an f64 (exact for every type but 64-bit integers beyond 2^53, which round to nearest).
    pub fn to_f64(self) -> f64 {
        f64::from_le_bytes(self.cast(DataType::Float64).bytes)
    }

    /// The value's bits as 64 bits: an integer's two's complement sign-extended (zero-extended for unsigned
    /// types), a float's value as f64 bits.
    pub(crate) fn wide_bits(self) -> u64 {
        let b = self.bytes;
        match self.data_type {
            DataType::Int8 => i8::from_le_bytes([b[0]]) as u64,
            DataType::Int16 => i16::from_le_bytes([b[0], b[1]]) as u64,
            DataType::Int32 => i32::from_le_bytes([b[0], b[1], b[2], b[3]]) as u64,
            DataType::Uint8 | DataType::Uint16 | DataType::Uint32 | DataType::Int64 | DataType::Uint64 => {
                u64::from_le_bytes(b)
            }
            DataType::Float16 | DataType::Float32 | DataType::Float64 => self.to_f64().to_bits(),
        }
    }
}

impl fmt::Debug for Scalar {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "Scalar({self})")
    }
}

impl fmt::Display for Scalar {
    /// The value and its type: `114 UINT8`, `0.5 FLOAT32`.
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let b = self.bytes;
        match self.data_type {
            DataType::Float16 => write!(f, "{}", half::f16::from_le_bytes([b[0], b[1]])),
            DataType::Float32 => write!(f, "{}", f32::from_le_bytes([b[0], b[1], b[2], b[3]])),
            DataType::Float64 => write!(f, "{}", f64::from_le_bytes(b)),
            DataType::Int8 | DataType::Int16 | DataType::Int32 | DataType::Int64 => {
                write!(f, "{}", self.wide_bits() as i64)
            }
            DataType::Uint8 | DataType::Uint16 | DataType::Uint32 | DataType::Uint64 => {
                write!(f, "{}", u64::from_le_bytes(b))
            }
        }?;
        write!(f, " {}", self.data_type)
    }
}

macro_rules! scalar_from {
    ($($t:ty),* $(,)?) => {$(
        impl From<$t> for Scalar {
            fn from(v: $t) -> Scalar {
                let mut bytes = [0u8; 8];
                let b = bytemuck::bytes_of(&v);
                bytes[..b.len()].copy_from_slice(b);
                Scalar { data_type: <$t as Element>::DATA_TYPE, bytes }
            }
        }
    )*};
}

scalar_from!(f32, half::f16, f64, i8, i16, i32, i64, u8, u16, u32, u64);

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn unions_round_trip_and_ignore_the_unused_bytes() {
        for dt in DataType::ALL {
            let s = Scalar::from_union(dt, [1, 2, 3, 4, 5, 6, 7, 8]);
            assert_eq!(s.bytes(), &[1, 2, 3, 4, 5, 6, 7, 8][..dt.size_in_bytes()]);
            assert_eq!(Scalar::from_union(dt, s.to_union()), s);
        }
        assert_eq!(Scalar::from(-1i16).wide_bits(), u64::MAX);
        assert_eq!(Scalar::from(u32::MAX).wide_bits(), u64::from(u32::MAX));
        assert_eq!(Scalar::from(0.5f32).wide_bits(), 0.5f64.to_bits());
        assert_eq!(Scalar::from(114u8).to_string(), "114 UINT8");
        assert_eq!(Scalar::from(-3i64).to_string(), "-3 INT64");
    }
}
