//! The C structs and constants: DirectML's descriptor layouts and enum values under Strider's names.
//!
//! Every struct is `#[repr(C)]` with DirectML's field order and types, so on 64-bit targets it has the size and
//! field offsets of its `DML_*` counterpart (`tests/c/capi_test.c` asserts them). Enum-typed fields are `u32`: a
//! C enum of these values is 4 bytes on every 64-bit ABI DirectML ships on, and taking the integer keeps an unknown
//! value from ever becoming an invalid Rust enum.

#![allow(non_snake_case)]

use core::ffi::c_void;

/// `DML_TENSOR_DATA_TYPE_UNKNOWN`: not a data type; refused everywhere.
pub const STRIDER_TENSOR_DATA_TYPE_UNKNOWN: u32 = 0;
/// `DML_TENSOR_DATA_TYPE_FLOAT32`.
pub const STRIDER_TENSOR_DATA_TYPE_FLOAT32: u32 = 1;
/// `DML_TENSOR_DATA_TYPE_FLOAT16`.
pub const STRIDER_TENSOR_DATA_TYPE_FLOAT16: u32 = 2;
/// `DML_TENSOR_DATA_TYPE_UINT32`.
pub const STRIDER_TENSOR_DATA_TYPE_UINT32: u32 = 3;
/// `DML_TENSOR_DATA_TYPE_UINT16`.
pub const STRIDER_TENSOR_DATA_TYPE_UINT16: u32 = 4;
/// `DML_TENSOR_DATA_TYPE_UINT8`.
pub const STRIDER_TENSOR_DATA_TYPE_UINT8: u32 = 5;
/// `DML_TENSOR_DATA_TYPE_INT32`.
pub const STRIDER_TENSOR_DATA_TYPE_INT32: u32 = 6;
/// `DML_TENSOR_DATA_TYPE_INT16`.
pub const STRIDER_TENSOR_DATA_TYPE_INT16: u32 = 7;
/// `DML_TENSOR_DATA_TYPE_INT8`.
pub const STRIDER_TENSOR_DATA_TYPE_INT8: u32 = 8;
/// `DML_TENSOR_DATA_TYPE_FLOAT64`.
pub const STRIDER_TENSOR_DATA_TYPE_FLOAT64: u32 = 9;
/// `DML_TENSOR_DATA_TYPE_UINT64`.
pub const STRIDER_TENSOR_DATA_TYPE_UINT64: u32 = 10;
/// `DML_TENSOR_DATA_TYPE_INT64`.
pub const STRIDER_TENSOR_DATA_TYPE_INT64: u32 = 11;

/// `DML_TENSOR_TYPE_INVALID`: refused.
pub const STRIDER_TENSOR_TYPE_INVALID: u32 = 0;
/// `DML_TENSOR_TYPE_BUFFER`: the only tensor type; its `Desc` is a `StriderBufferTensorDesc`.
pub const STRIDER_TENSOR_TYPE_BUFFER: u32 = 1;

/// `DML_TENSOR_FLAG_NONE`.
pub const STRIDER_TENSOR_FLAG_NONE: u32 = 0;
/// `DML_TENSOR_FLAG_OWNED_BY_DML`: accepted and ignored on the CPU.
pub const STRIDER_TENSOR_FLAG_OWNED_BY_DML: u32 = 1;

/// `DML_OPERATOR_INVALID`: refused.
pub const STRIDER_OPERATOR_INVALID: u32 = 0;
/// `DML_OPERATOR_ELEMENT_WISE_IDENTITY`: `Desc` is a `StriderElementWiseIdentityOperatorDesc`.
pub const STRIDER_OPERATOR_ELEMENT_WISE_IDENTITY: u32 = 1;
/// `DML_OPERATOR_SLICE`: `Desc` is a `StriderSliceOperatorDesc`.
pub const STRIDER_OPERATOR_SLICE: u32 = 60;
/// `DML_OPERATOR_CAST`: `Desc` is a `StriderCastOperatorDesc`.
pub const STRIDER_OPERATOR_CAST: u32 = 61;
/// `DML_OPERATOR_SLICE1`: `Desc` is a `StriderSlice1OperatorDesc`.
pub const STRIDER_OPERATOR_SLICE1: u32 = 111;

/// `StriderExecuteOptions::Isa`: the widest instruction set this CPU runs.
pub const STRIDER_ISA_BEST: u32 = 0;
/// `StriderExecuteOptions::Isa`: portable code, no SIMD intrinsics.
pub const STRIDER_ISA_SCALAR: u32 = 1;
/// `StriderExecuteOptions::Isa`: x86-64-v3 (AVX2, FMA, F16C).
pub const STRIDER_ISA_AVX2: u32 = 2;
/// `StriderExecuteOptions::Isa`: x86-64-v4 (AVX-512 F/BW/DQ/VL).
pub const STRIDER_ISA_AVX512: u32 = 3;
/// `StriderExecuteOptions::Isa`: x86-64-v4 with AVX-512 VBMI.
pub const STRIDER_ISA_AVX512_VBMI: u32 = 4;

/// The largest `StriderExecuteOptions::Threads`.
pub const STRIDER_MAX_THREADS: u32 = 256;
const _: () = assert!(STRIDER_MAX_THREADS as usize == strider_core::MAX_THREADS);

/// What a call returned. Each value but `STRIDER_OK` leaves a message for `strider_last_error_message`.
#[repr(C)]
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
#[allow(non_camel_case_types, clippy::upper_case_acronyms)]
pub enum StriderStatus {
    /// Success.
    STRIDER_OK = 0,
    /// A NULL pointer, an invalid description or buffer arguments that break a rule; nothing was written.
    STRIDER_INVALID_ARGUMENT = 1,
    /// A buffer is shorter than its tensor's `TotalTensorSizeInBytes`; nothing was written.
    STRIDER_BUFFER_TOO_SMALL = 2,
    /// A valid description Strider does not run (a data type an operator does not take, an instruction set this
    /// CPU lacks).
    STRIDER_UNSUPPORTED = 3,
    /// A bug in Strider (please report it with the message).
    STRIDER_INTERNAL = 4,
}

/// `DML_BUFFER_TENSOR_DESC`: a tensor's data type, sizes and strides (in elements), and its buffer's size.
#[repr(C)]
#[derive(Clone, Copy, Debug)]
pub struct StriderBufferTensorDesc {
    /// A `STRIDER_TENSOR_DATA_TYPE_*` value other than `UNKNOWN`.
    pub DataType: u32,
    /// `STRIDER_TENSOR_FLAG_*` bits.
    pub Flags: u32,
    /// The rank, 1 to 8.
    pub DimensionCount: u32,
    /// `DimensionCount` sizes, outermost first, each at least 1.
    pub Sizes: *const u32,
    /// `DimensionCount` strides in elements, or NULL for packed row-major.
    pub Strides: *const u32,
    /// The buffer's size: at least `strider_calc_buffer_tensor_size` of the tensor (0 is invalid, as in DirectML).
    pub TotalTensorSizeInBytes: u64,
    /// 0 or a power of two of at least the element size: the alignment of the buffer's address, checked by
    /// `strider_operator_execute`.
    pub GuaranteedBaseOffsetAlignment: u32,
}

/// `DML_TENSOR_DESC`.
#[repr(C)]
#[derive(Clone, Copy, Debug)]
pub struct StriderTensorDesc {
    /// `STRIDER_TENSOR_TYPE_BUFFER`.
    pub Type: u32,
    /// A `const StriderBufferTensorDesc*`.
    pub Desc: *const c_void,
}

/// `DML_OPERATOR_DESC`.
#[repr(C)]
#[derive(Clone, Copy, Debug)]
pub struct StriderOperatorDesc {
    /// A `STRIDER_OPERATOR_*` value.
    pub Type: u32,
    /// The operator's description: the struct its `Type` names.
    pub Desc: *const c_void,
}

/// `DML_SCALE_BIAS`: `y = x * Scale + Bias`.
#[repr(C)]
#[derive(Clone, Copy, Debug)]
pub struct StriderScaleBias {
    /// Factor.
    pub Scale: f32,
    /// Addend.
    pub Bias: f32,
}

/// `DML_ELEMENT_WISE_IDENTITY_OPERATOR_DESC`: a layout conversion between tensors of one data type and one set of
/// sizes, optionally `y = x * Scale + Bias` (float tensors only).
#[repr(C)]
#[derive(Clone, Copy, Debug)]
pub struct StriderElementWiseIdentityOperatorDesc {
    /// The input tensor.
    pub InputTensor: *const StriderTensorDesc,
    /// The output tensor.
    pub OutputTensor: *const StriderTensorDesc,
    /// NULL, or the scale and bias to apply.
    pub ScaleBias: *const StriderScaleBias,
}

/// `DML_SLICE_OPERATOR_DESC`: output element `c` is input element `Offsets + c * Strides` (per dimension).
#[repr(C)]
#[derive(Clone, Copy, Debug)]
pub struct StriderSliceOperatorDesc {
    /// The input tensor.
    pub InputTensor: *const StriderTensorDesc,
    /// The output tensor; its sizes equal `Sizes`.
    pub OutputTensor: *const StriderTensorDesc,
    /// The tensors' rank: the length of the three arrays.
    pub DimensionCount: u32,
    /// Where the slice starts, per dimension.
    pub Offsets: *const u32,
    /// The slice's sizes.
    pub Sizes: *const u32,
    /// The slice's strides, each at least 1.
    pub Strides: *const u32,
}

/// `DML_SLICE1_OPERATOR_DESC`: a window of the input, each dimension read with a non-zero stride (negative: from
/// the window's end).
#[repr(C)]
#[derive(Clone, Copy, Debug)]
pub struct StriderSlice1OperatorDesc {
    /// The input tensor.
    pub InputTensor: *const StriderTensorDesc,
    /// The output tensor.
    pub OutputTensor: *const StriderTensorDesc,
    /// The tensors' rank: the length of the three arrays.
    pub DimensionCount: u32,
    /// The window's start, per dimension.
    pub InputWindowOffsets: *const u32,
    /// The window's sizes, each at least 1.
    pub InputWindowSizes: *const u32,
    /// The window's strides, non-zero.
    pub InputWindowStrides: *const i32,
}

/// `DML_CAST_OPERATOR_DESC`: converts every element to the output's data type (DirectML's value rules).
#[repr(C)]
#[derive(Clone, Copy, Debug)]
pub struct StriderCastOperatorDesc {
    /// The input tensor.
    pub InputTensor: *const StriderTensorDesc,
    /// The output tensor, of the input's sizes.
    pub OutputTensor: *const StriderTensorDesc,
}

/// How `strider_operator_execute_with` runs. Zero-initialized (`{0}`), it runs as `strider_operator_execute`.
#[repr(C)]
#[derive(Clone, Copy, Debug, Default)]
pub struct StriderExecuteOptions {
    /// 0: split large outputs across Strider's shared pool (one thread per core, or `RAYON_NUM_THREADS`); 1: the
    /// calling thread only (lowest latency for small operators); n (at most `STRIDER_MAX_THREADS`): a pool of n
    /// threads, kept for later calls. Small outputs run on the calling thread whatever the value.
    pub Threads: u32,
    /// A `STRIDER_ISA_*` value: `STRIDER_ISA_BEST`, or an instruction set to force (for benchmarks and tests).
    pub Isa: u32,
}
