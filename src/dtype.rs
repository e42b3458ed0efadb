//! Element data types (`DML_TENSOR_DATA_TYPE`) and the typed views over them.

use core::fmt;
use core::str::FromStr;

use crate::Error;

/// The data type of a tensor's elements, mirror of `DML_TENSOR_DATA_TYPE`.
///
/// Copies never look at values, so for them the data type only fixes the element size (it still has to match
/// between their operands, as in DirectML); casts, scale/bias and normalization convert values.
///
/// # Examples
///
/// ```
/// use strider::DataType;
/// let dt: DataType = "FLOAT16".parse().unwrap();
/// assert_eq!(dt, DataType::Float16);
/// assert_eq!(dt.size_in_bytes(), 2);
/// assert_eq!("u8".parse::<DataType>().unwrap(), DataType::Uint8);
/// assert_eq!(DataType::Int32.to_string(), "INT32");
/// ```
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
#[non_exhaustive]
pub enum DataType {
    /// `DML_TENSOR_DATA_TYPE_FLOAT32`
    Float32,
    /// `DML_TENSOR_DATA_TYPE_FLOAT16`
    Float16,
    /// `DML_TENSOR_DATA_TYPE_INT32`
    Int32,
    /// `DML_TENSOR_DATA_TYPE_INT16`
    Int16,
    /// `DML_TENSOR_DATA_TYPE_INT8`
    Int8,
    /// `DML_TENSOR_DATA_TYPE_UINT32`
    Uint32,
    /// `DML_TENSOR_DATA_TYPE_UINT16`
    Uint16,
    /// `DML_TENSOR_DATA_TYPE_UINT8`
    Uint8,
    /// `DML_TENSOR_DATA_TYPE_FLOAT64` (DirectML feature level 4.1)
    Float64,
    /// `DML_TENSOR_DATA_TYPE_INT64` (DirectML feature level 4.1)
    Int64,
    /// `DML_TENSOR_DATA_TYPE_UINT64` (DirectML feature level 4.1)
    Uint64,
}

impl DataType {
    /// Every data type.
    pub const ALL: [DataType; 11] = [
        DataType::Float32,
        DataType::Float16,
        DataType::Int32,
        DataType::Int16,
        DataType::Int8,
        DataType::Uint32,
        DataType::Uint16,
        DataType::Uint8,
        DataType::Float64,
        DataType::Int64,
        DataType::Uint64,
    ];

    /// Bytes per element.
    pub const fn size_in_bytes(self) -> usize {
        match self {
            DataType::Int8 | DataType::Uint8 => 1,
            DataType::Float16 | DataType::Int16 | DataType::Uint16 => 2,
            DataType::Float32 | DataType::Int32 | DataType::Uint32 => 4,
            DataType::Float64 | DataType::Int64 | DataType::Uint64 => 8,
        }
    }

    /// Whether the type is a floating-point type (`FLOAT16`, `FLOAT32`, `FLOAT64`).
    pub const fn is_float(self) -> bool {
        matches!(self, DataType::Float16 | DataType::Float32 | DataType::Float64)
    }

    /// The kernels' element type.
    pub(crate) const fn elem(self) -> strider_kernels::ElemType {
        use strider_kernels::ElemType as E;
        match self {
            DataType::Float32 => E::F32,
            DataType::Float16 => E::F16,
            DataType::Int32 => E::I32,
            DataType::Int16 => E::I16,
            DataType::Int8 => E::I8,
            DataType::Uint32 => E::U32,
            DataType::Uint16 => E::U16,
            DataType::Uint8 => E::U8,
            DataType::Float64 => E::F64,
            DataType::Int64 => E::I64,
            DataType::Uint64 => E::U64,
        }
    }

    /// The value of this type in DirectML's `DML_TENSOR_DATA_TYPE` enum (`FLOAT32` 1, `FLOAT16` 2, `UINT32` 3,
    /// `UINT16` 4, `UINT8` 5, `INT32` 6, `INT16` 7, `INT8` 8, `FLOAT64` 9, `UINT64` 10, `INT64` 11).
    ///
    /// # Examples
    ///
    /// ```
    /// use strider::DataType;
    /// assert_eq!(DataType::Uint8.dml_value(), 5);
    /// assert_eq!(DataType::from_dml_value(1), Some(DataType::Float32));
    /// assert_eq!(DataType::from_dml_value(0), None); // DML_TENSOR_DATA_TYPE_UNKNOWN
    /// ```
    pub const fn dml_value(self) -> u32 {
        match self {
            DataType::Float32 => 1,
            DataType::Float16 => 2,
            DataType::Uint32 => 3,
            DataType::Uint16 => 4,
            DataType::Uint8 => 5,
            DataType::Int32 => 6,
            DataType::Int16 => 7,
            DataType::Int8 => 8,
            DataType::Float64 => 9,
            DataType::Uint64 => 10,
            DataType::Int64 => 11,
        }
    }

    /// The type of a `DML_TENSOR_DATA_TYPE` value, or `None` for `UNKNOWN` (0) and values DirectML does not define.
    pub const fn from_dml_value(value: u32) -> Option<DataType> {
        Some(match value {
            1 => DataType::Float32,
            2 => DataType::Float16,
            3 => DataType::Uint32,
            4 => DataType::Uint16,
            5 => DataType::Uint8,
            6 => DataType::Int32,
            7 => DataType::Int16,
            8 => DataType::Int8,
            9 => DataType::Float64,
            10 => DataType::Uint64,
            11 => DataType::Int64,
            _ => return None,
        })
    }

    /// The DirectML name without its prefix: `FLOAT32`, `UINT8`, ….
    pub const fn dml_name(self) -> &'static str {
        match self {
            DataType::Float32 => "FLOAT32",
            DataType::Float16 => "FLOAT16",
            DataType::Int32 => "INT32",
            DataType::Int16 => "INT16",
            DataType::Int8 => "INT8",
            DataType::Uint32 => "UINT32",
            DataType::Uint16 => "UINT16",
            DataType::Uint8 => "UINT8",
            DataType::Float64 => "FLOAT64",
            DataType::Int64 => "INT64",
            DataType::Uint64 => "UINT64",
        }
    }

    /// The short name: `f32`, `u8`, ….
    pub const fn short_name(self) -> &'static str {
        match self {
            DataType::Float32 => "f32",
            DataType::Float16 => "f16",
            DataType::Int32 => "i32",
            DataType::Int16 => "i16",
            DataType::Int8 => "i8",
            DataType::Uint32 => "u32",
            DataType::Uint16 => "u16",
            DataType::Uint8 => "u8",
            DataType::Float64 => "f64",
            DataType::Int64 => "i64",
            DataType::Uint64 => "u64",
        }
    }
}

impl fmt::Display for DataType {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.dml_name())
    }
}

impl FromStr for DataType {
    type Err = Error;

    /// Accepts DirectML names with or without the `DML_TENSOR_DATA_TYPE_` prefix (`FLOAT32`) and short names
    /// (`f32`), case-insensitively.
    fn from_str(s: &str) -> Result<Self, Error> {
        let t = s.trim();
        let t = t.get(..21).filter(|p| p.eq_ignore_ascii_case("DML_TENSOR_DATA_TYPE_")).map_or(t, |_| &t[21..]);
        DataType::ALL
            .into_iter()
            .find(|dt| t.eq_ignore_ascii_case(dt.dml_name()) || t.eq_ignore_ascii_case(dt.short_name()))
            .ok_or_else(|| Error::UnknownDataType { name: s.to_owned() })
    }
}

mod sealed {
    pub trait Sealed {}
}

/// A Rust element type with a [`DataType`], for the typed `execute_typed` conveniences.
///
/// Implemented for `f32`, [`half::f16`], `i32`, `i16`, `i8`, `u32`, `u16`, `u8`, `f64`, `i64` and `u64`. Typed
/// slices are aligned to their element by Rust's rules; data at an arbitrary byte offset (a field of a packed
/// file, a memory map) goes through the byte API (`execute`), which takes any alignment.
///
/// # Examples
///
/// ```
/// use strider::{DataType, Element, Slice1, TensorDesc};
/// assert_eq!(<f32 as Element>::DATA_TYPE, DataType::Float32);
/// assert_eq!(<strider::half::f16 as Element>::DATA_TYPE, DataType::Float16);
///
/// let t = TensorDesc::new(DataType::Int16, &[3])?;
/// let op = Slice1::new(&t, &t, &[0], &[3], &[-1])?;
/// let mut y = [0i16; 3];
/// op.execute_typed(&[1i16, 2, 3], &mut y)?;
/// assert_eq!(y, [3, 2, 1]);
/// assert!(op.execute_typed(&[1u16, 2, 3], &mut [0u16; 3]).is_err()); // u16 is not INT16
///
/// // Unaligned data: the byte API.
/// let file = [0u8, 1, 0, 2, 0, 3, 0]; // three i16 after one byte of header
/// let mut out = [0u8; 6];
/// op.execute(&file[1..], &mut out)?;
/// assert_eq!(out, [3, 0, 2, 0, 1, 0]);
/// # Ok::<(), strider::Error>(())
/// ```
pub trait Element: bytemuck::Pod + sealed::Sealed {
    /// The data type this Rust type holds.
    const DATA_TYPE: DataType;
}

macro_rules! element {
    ($($t:ty => $dt:ident),* $(,)?) => {$(
        impl sealed::Sealed for $t {}
        impl Element for $t {
            const DATA_TYPE: DataType = DataType::$dt;
        }
    )*};
}

element! {
    f32 => Float32, half::f16 => Float16, i32 => Int32, i16 => Int16, i8 => Int8,
    u32 => Uint32, u16 => Uint16, u8 => Uint8, f64 => Float64, i64 => Int64, u64 => Uint64,
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn names_round_trip() {
        for dt in DataType::ALL {
            assert_eq!(dt.dml_name().parse::<DataType>().unwrap(), dt);
            assert_eq!(dt.short_name().to_uppercase().parse::<DataType>().unwrap(), dt);
            assert_eq!(
                format!("DML_TENSOR_DATA_TYPE_{}", dt.dml_name().to_lowercase()).parse::<DataType>().unwrap(),
                dt
            );
            assert_eq!(dt.to_string(), dt.dml_name());
        }
        assert_eq!(" uint16 ".parse::<DataType>().unwrap(), DataType::Uint16);
    }

    #[test]
    fn unknown_names_are_errors() {
        let e = "float8".parse::<DataType>().unwrap_err();
        assert_eq!(e, Error::UnknownDataType { name: "float8".into() });
        assert!(e.to_string().contains("float8"));
        assert!("DML_TENSOR_DATA_TYPE_".parse::<DataType>().is_err());
        assert!("".parse::<DataType>().is_err());
        assert!("DML_TENSOR_DATA_TYPE_é".parse::<DataType>().is_err());
    }
}
