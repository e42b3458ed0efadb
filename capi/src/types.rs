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

/// `DML_OPERATOR_SPLIT`: `Desc` is a `StriderSplitOperatorDesc`.
pub const STRIDER_OPERATOR_SPLIT: u32 = 62;
/// `DML_OPERATOR_JOIN`: `Desc` is a `StriderJoinOperatorDesc`.
pub const STRIDER_OPERATOR_JOIN: u32 = 63;
/// `DML_OPERATOR_PADDING`: `Desc` is a `StriderPaddingOperatorDesc`.
pub const STRIDER_OPERATOR_PADDING: u32 = 64;
/// `DML_OPERATOR_SPACE_TO_DEPTH`: `Desc` is a `StriderSpaceToDepthOperatorDesc`.
pub const STRIDER_OPERATOR_SPACE_TO_DEPTH: u32 = 68;
/// `DML_OPERATOR_DEPTH_TO_SPACE`: `Desc` is a `StriderDepthToSpaceOperatorDesc`.
pub const STRIDER_OPERATOR_DEPTH_TO_SPACE: u32 = 69;
/// `DML_OPERATOR_TILE`: `Desc` is a `StriderTileOperatorDesc`.
pub const STRIDER_OPERATOR_TILE: u32 = 70;
/// `DML_OPERATOR_FILL_VALUE_CONSTANT`: `Desc` is a `StriderFillValueConstantOperatorDesc`.
pub const STRIDER_OPERATOR_FILL_VALUE_CONSTANT: u32 = 103;
/// `DML_OPERATOR_FILL_VALUE_SEQUENCE`: `Desc` is a `StriderFillValueSequenceOperatorDesc`.
pub const STRIDER_OPERATOR_FILL_VALUE_SEQUENCE: u32 = 104;
/// `DML_OPERATOR_DEPTH_TO_SPACE1`: `Desc` is a `StriderDepthToSpace1OperatorDesc`.
pub const STRIDER_OPERATOR_DEPTH_TO_SPACE1: u32 = 113;
/// `DML_OPERATOR_SPACE_TO_DEPTH1`: `Desc` is a `StriderSpaceToDepth1OperatorDesc`.
pub const STRIDER_OPERATOR_SPACE_TO_DEPTH1: u32 = 114;
/// `DML_OPERATOR_PADDING1`: `Desc` is a `StriderPadding1OperatorDesc`.
pub const STRIDER_OPERATOR_PADDING1: u32 = 155;
/// `DML_OPERATOR_GATHER`: `Desc` is a `StriderGatherOperatorDesc`.
pub const STRIDER_OPERATOR_GATHER: u32 = 67;
/// `DML_OPERATOR_SCATTER_ELEMENTS`: `Desc` is a `StriderScatterOperatorDesc`.
pub const STRIDER_OPERATOR_SCATTER_ELEMENTS: u32 = 94;
/// `DML_OPERATOR_SCATTER`: DirectML's older name of `DML_OPERATOR_SCATTER_ELEMENTS`.
pub const STRIDER_OPERATOR_SCATTER: u32 = 94;
/// `DML_OPERATOR_ONE_HOT`: `Desc` is a `StriderOneHotOperatorDesc`.
pub const STRIDER_OPERATOR_ONE_HOT: u32 = 95;
/// `DML_OPERATOR_GATHER_ELEMENTS`: `Desc` is a `StriderGatherElementsOperatorDesc`.
pub const STRIDER_OPERATOR_GATHER_ELEMENTS: u32 = 107;
/// `DML_OPERATOR_GATHER_ND`: `Desc` is a `StriderGatherNdOperatorDesc`.
pub const STRIDER_OPERATOR_GATHER_ND: u32 = 108;
/// `DML_OPERATOR_SCATTER_ND`: `Desc` is a `StriderScatterNdOperatorDesc`.
pub const STRIDER_OPERATOR_SCATTER_ND: u32 = 109;
/// `DML_OPERATOR_GATHER_ND1`: `Desc` is a `StriderGatherNd1OperatorDesc`.
pub const STRIDER_OPERATOR_GATHER_ND1: u32 = 140;
/// Strider's fused preprocessing (no DirectML counterpart): `Desc` is a `StriderNormalizeOperatorDesc`.
pub const STRIDER_OPERATOR_NORMALIZE: u32 = 0x5354_0001;
/// Strider's preprocessing of images with a resize (no DirectML counterpart): `Desc` is a
/// `StriderPreprocessOperatorDesc`.
pub const STRIDER_OPERATOR_PREPROCESS: u32 = 0x5354_0002;

/// `StriderPreprocessOperatorDesc::Resize`: no resize.
pub const STRIDER_RESIZE_NONE: u32 = 0;
/// `StriderPreprocessOperatorDesc::Resize`: to `ResizeHeight × ResizeWidth`.
pub const STRIDER_RESIZE_STRETCH: u32 = 1;
/// `StriderPreprocessOperatorDesc::Resize`: the shorter side to `ResizeHeight`, keeping the aspect ratio
/// (torchvision's `Resize(int)`; `ResizeWidth` must be 0).
pub const STRIDER_RESIZE_SHORTER: u32 = 2;
/// `StriderPreprocessOperatorDesc::Resize`: YOLO's letterbox into a `ResizeHeight × ResizeWidth` canvas of value
/// `PadValue`.
pub const STRIDER_RESIZE_LETTERBOX: u32 = 3;

/// `StriderPreprocessOperatorDesc::Filter`: the nearest pixel.
pub const STRIDER_FILTER_NEAREST: u32 = 0;
/// `StriderPreprocessOperatorDesc::Filter`: linear interpolation.
pub const STRIDER_FILTER_BILINEAR: u32 = 1;
/// `StriderPreprocessOperatorDesc::Filter`: cubic convolution.
pub const STRIDER_FILTER_BICUBIC: u32 = 2;
/// `StriderPreprocessOperatorDesc::Filter`: the mean over the covered area (box).
pub const STRIDER_FILTER_AREA: u32 = 3;

/// `StriderPreprocessOperatorDesc::Flags`: mirror left ↔ right.
pub const STRIDER_PREPROCESS_FLIP_HORIZONTAL: u32 = 1;
/// `StriderPreprocessOperatorDesc::Flags`: mirror top ↔ bottom.
pub const STRIDER_PREPROCESS_FLIP_VERTICAL: u32 = 2;
/// `StriderPreprocessOperatorDesc::Flags`: reverse the channels (BGR ↔ RGB).
pub const STRIDER_PREPROCESS_REVERSE_CHANNELS: u32 = 4;
/// `StriderPreprocessOperatorDesc::Flags`: OpenCV's sampled filters (`cv2.resize`) instead of Pillow's antialiased
/// ones (`Image.resize`).
pub const STRIDER_PREPROCESS_SAMPLED: u32 = 8;

/// `DML_PADDING_MODE_CONSTANT`: the padding value.
pub const STRIDER_PADDING_MODE_CONSTANT: u32 = 0;
/// `DML_PADDING_MODE_EDGE`: the edge element repeated.
pub const STRIDER_PADDING_MODE_EDGE: u32 = 1;
/// `DML_PADDING_MODE_REFLECTION`: mirrored about the edge element (NumPy's `reflect`).
pub const STRIDER_PADDING_MODE_REFLECTION: u32 = 2;
/// `DML_PADDING_MODE_SYMMETRIC`: mirrored, the edge element repeated (NumPy's `symmetric`).
pub const STRIDER_PADDING_MODE_SYMMETRIC: u32 = 3;
/// `DML_PADDING_MODE_WRAP`: the input repeated (NumPy's `wrap`).
pub const STRIDER_PADDING_MODE_WRAP: u32 = 4;

/// `DML_DEPTH_SPACE_ORDER_DEPTH_COLUMN_ROW` (ONNX's `DCR`).
pub const STRIDER_DEPTH_SPACE_ORDER_DEPTH_COLUMN_ROW: u32 = 0;
/// `DML_DEPTH_SPACE_ORDER_COLUMN_ROW_DEPTH` (ONNX's `CRD`).
pub const STRIDER_DEPTH_SPACE_ORDER_COLUMN_ROW_DEPTH: u32 = 1;

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

/// `DML_SCALAR_UNION`: one value; which member holds it is said by the data type beside it (a `FLOAT16` is its
/// binary16 bits in `Bytes[0..2]`).
#[repr(C)]
#[derive(Clone, Copy)]
pub union StriderScalarUnion {
    /// The value's bytes (little-endian; the rest unused).
    pub Bytes: [u8; 8],
    /// `INT8`.
    pub Int8: i8,
    /// `UINT8`.
    pub UInt8: u8,
    /// `INT16`.
    pub Int16: i16,
    /// `UINT16`.
    pub UInt16: u16,
    /// `INT32`.
    pub Int32: i32,
    /// `UINT32`.
    pub UInt32: u32,
    /// `INT64`.
    pub Int64: i64,
    /// `UINT64`.
    pub UInt64: u64,
    /// `FLOAT32`.
    pub Float32: f32,
    /// `FLOAT64`.
    pub Float64: f64,
}

/// `DML_SPLIT_OPERATOR_DESC`: the input cut into consecutive blocks along `Axis`, block k into output k.
#[repr(C)]
#[derive(Clone, Copy, Debug)]
pub struct StriderSplitOperatorDesc {
    /// The input tensor.
    pub InputTensor: *const StriderTensorDesc,
    /// The number of outputs, at least 1.
    pub OutputCount: u32,
    /// `OutputCount` tensor descriptions (an array of structs), of the input's sizes except along `Axis`.
    pub OutputTensors: *const StriderTensorDesc,
    /// The dimension cut.
    pub Axis: u32,
}

/// `DML_JOIN_OPERATOR_DESC`: the inputs concatenated along `Axis`.
#[repr(C)]
#[derive(Clone, Copy, Debug)]
pub struct StriderJoinOperatorDesc {
    /// The number of inputs, at least 1.
    pub InputCount: u32,
    /// `InputCount` tensor descriptions (an array of structs), of the output's sizes except along `Axis`.
    pub InputTensors: *const StriderTensorDesc,
    /// The output tensor.
    pub OutputTensor: *const StriderTensorDesc,
    /// The dimension joined along.
    pub Axis: u32,
}

/// `DML_GATHER_OPERATOR_DESC`: `np.take` in DirectML's shapes (inputs: input, indices).
#[repr(C)]
#[derive(Clone, Copy, Debug)]
pub struct StriderGatherOperatorDesc {
    /// The tensor read.
    pub InputTensor: *const StriderTensorDesc,
    /// The indices: INT32, UINT32, INT64 or UINT64; negative ones count from the end.
    pub IndicesTensor: *const StriderTensorDesc,
    /// The output tensor.
    pub OutputTensor: *const StriderTensorDesc,
    /// The dimension of the input the indices address.
    pub Axis: u32,
    /// The number of meaningful (last) dimensions of the indices.
    pub IndexDimensions: u32,
}

/// `DML_GATHER_ELEMENTS_OPERATOR_DESC`: `np.take_along_axis` (inputs: input, indices).
#[repr(C)]
#[derive(Clone, Copy, Debug)]
pub struct StriderGatherElementsOperatorDesc {
    /// The tensor read.
    pub InputTensor: *const StriderTensorDesc,
    /// The indices, of the output's sizes.
    pub IndicesTensor: *const StriderTensorDesc,
    /// The output tensor.
    pub OutputTensor: *const StriderTensorDesc,
    /// The dimension the indices replace.
    pub Axis: u32,
}

/// `DML_GATHER_ND_OPERATOR_DESC`: ONNX `GatherND` without batches (inputs: input, indices).
#[repr(C)]
#[derive(Clone, Copy, Debug)]
pub struct StriderGatherNdOperatorDesc {
    /// The tensor read.
    pub InputTensor: *const StriderTensorDesc,
    /// The index tuples along the last dimension.
    pub IndicesTensor: *const StriderTensorDesc,
    /// The output tensor.
    pub OutputTensor: *const StriderTensorDesc,
    /// The number of meaningful (last) dimensions of the input.
    pub InputDimensionCount: u32,
    /// The number of meaningful (last) dimensions of the indices.
    pub IndicesDimensionCount: u32,
}

/// `DML_GATHER_ND1_OPERATOR_DESC`: ONNX `GatherND` with `batch_dims` (inputs: input, indices).
#[repr(C)]
#[derive(Clone, Copy, Debug)]
pub struct StriderGatherNd1OperatorDesc {
    /// The tensor read.
    pub InputTensor: *const StriderTensorDesc,
    /// The index tuples along the last dimension.
    pub IndicesTensor: *const StriderTensorDesc,
    /// The output tensor.
    pub OutputTensor: *const StriderTensorDesc,
    /// The number of meaningful (last) dimensions of the input.
    pub InputDimensionCount: u32,
    /// The number of meaningful (last) dimensions of the indices.
    pub IndicesDimensionCount: u32,
    /// The number of leading meaningful dimensions that are batches.
    pub BatchDimensionCount: u32,
}

/// `DML_SCATTER_OPERATOR_DESC` (`DML_SCATTER_ELEMENTS_OPERATOR_DESC`): ONNX `ScatterElements` (inputs: input,
/// indices, updates). The output may be bound to the input's buffer (in place).
#[repr(C)]
#[derive(Clone, Copy, Debug)]
pub struct StriderScatterOperatorDesc {
    /// The data.
    pub InputTensor: *const StriderTensorDesc,
    /// The indices, of the updates' sizes.
    pub IndicesTensor: *const StriderTensorDesc,
    /// The values written.
    pub UpdatesTensor: *const StriderTensorDesc,
    /// The output tensor, of the input's sizes.
    pub OutputTensor: *const StriderTensorDesc,
    /// The dimension the indices replace.
    pub Axis: u32,
}

/// `DML_SCATTER_ND_OPERATOR_DESC`: ONNX `ScatterND` (inputs: input, indices, updates). The output may be bound to
/// the input's buffer (in place).
#[repr(C)]
#[derive(Clone, Copy, Debug)]
pub struct StriderScatterNdOperatorDesc {
    /// The data.
    pub InputTensor: *const StriderTensorDesc,
    /// The index tuples along the last dimension.
    pub IndicesTensor: *const StriderTensorDesc,
    /// The values written.
    pub UpdatesTensor: *const StriderTensorDesc,
    /// The output tensor, of the input's sizes.
    pub OutputTensor: *const StriderTensorDesc,
    /// The number of meaningful (last) dimensions of the input.
    pub InputDimensionCount: u32,
    /// The number of meaningful (last) dimensions of the indices.
    pub IndicesDimensionCount: u32,
}

/// `DML_ONE_HOT_OPERATOR_DESC`: ONNX `OneHot` (inputs: indices, values).
#[repr(C)]
#[derive(Clone, Copy, Debug)]
pub struct StriderOneHotOperatorDesc {
    /// The indices, of the output's sizes with 1 along `Axis`.
    pub IndicesTensor: *const StriderTensorDesc,
    /// The off value (first element) and the on value (the next along the last dimension above 1).
    pub ValuesTensor: *const StriderTensorDesc,
    /// The output tensor.
    pub OutputTensor: *const StriderTensorDesc,
    /// The dimension of the encoding.
    pub Axis: u32,
}

/// `DML_PADDING_OPERATOR_DESC`: the input inside a larger output (`np.pad`); `PaddingValue` converts to the
/// output's data type as `DML_CAST` converts a `FLOAT32`.
#[repr(C)]
#[derive(Clone, Copy, Debug)]
pub struct StriderPaddingOperatorDesc {
    /// The input tensor.
    pub InputTensor: *const StriderTensorDesc,
    /// The output tensor: each size the input's plus the start and end padding.
    pub OutputTensor: *const StriderTensorDesc,
    /// A `STRIDER_PADDING_MODE_*` value.
    pub PaddingMode: u32,
    /// The value of `STRIDER_PADDING_MODE_CONSTANT`.
    pub PaddingValue: f32,
    /// The tensors' rank: the length of the two arrays.
    pub DimensionCount: u32,
    /// Elements added before the input, per dimension.
    pub StartPadding: *const u32,
    /// Elements added after the input, per dimension.
    pub EndPadding: *const u32,
}

/// `DML_PADDING1_OPERATOR_DESC`: `DML_PADDING_OPERATOR_DESC` with a value of the output's data type.
#[repr(C)]
#[derive(Clone, Copy)]
pub struct StriderPadding1OperatorDesc {
    /// The input tensor.
    pub InputTensor: *const StriderTensorDesc,
    /// The output tensor: each size the input's plus the start and end padding.
    pub OutputTensor: *const StriderTensorDesc,
    /// A `STRIDER_PADDING_MODE_*` value.
    pub PaddingMode: u32,
    /// The data type of `PaddingValue`: the output's (in every mode).
    pub PaddingValueDataType: u32,
    /// The value of `STRIDER_PADDING_MODE_CONSTANT`.
    pub PaddingValue: StriderScalarUnion,
    /// The tensors' rank: the length of the two arrays.
    pub DimensionCount: u32,
    /// Elements added before the input, per dimension.
    pub StartPadding: *const u32,
    /// Elements added after the input, per dimension.
    pub EndPadding: *const u32,
}

/// `DML_SPACE_TO_DEPTH_OPERATOR_DESC`: blocks of `BlockSize × BlockSize` pixels into channels (depth, column, row
/// order).
#[repr(C)]
#[derive(Clone, Copy, Debug)]
pub struct StriderSpaceToDepthOperatorDesc {
    /// The input tensor, 4-dimensional (NCHW).
    pub InputTensor: *const StriderTensorDesc,
    /// The output tensor: (N, C·BlockSize², H/BlockSize, W/BlockSize).
    pub OutputTensor: *const StriderTensorDesc,
    /// The block's side, at least 1.
    pub BlockSize: u32,
}

/// `DML_DEPTH_TO_SPACE_OPERATOR_DESC`: channels into blocks of `BlockSize × BlockSize` pixels (depth, column,
/// row order).
pub type StriderDepthToSpaceOperatorDesc = StriderSpaceToDepthOperatorDesc;

/// `DML_SPACE_TO_DEPTH1_OPERATOR_DESC`: `DML_SPACE_TO_DEPTH_OPERATOR_DESC` with the order of a block's elements.
#[repr(C)]
#[derive(Clone, Copy, Debug)]
pub struct StriderSpaceToDepth1OperatorDesc {
    /// The input tensor, 4-dimensional.
    pub InputTensor: *const StriderTensorDesc,
    /// The output tensor.
    pub OutputTensor: *const StriderTensorDesc,
    /// The block's side, at least 1.
    pub BlockSize: u32,
    /// A `STRIDER_DEPTH_SPACE_ORDER_*` value.
    pub Order: u32,
}

/// `DML_DEPTH_TO_SPACE1_OPERATOR_DESC`.
pub type StriderDepthToSpace1OperatorDesc = StriderSpaceToDepth1OperatorDesc;

/// `DML_TILE_OPERATOR_DESC`: the input repeated along every dimension.
#[repr(C)]
#[derive(Clone, Copy, Debug)]
pub struct StriderTileOperatorDesc {
    /// The input tensor.
    pub InputTensor: *const StriderTensorDesc,
    /// The output tensor: each size the input's times the repeat.
    pub OutputTensor: *const StriderTensorDesc,
    /// The tensors' rank: the length of `Repeats`.
    pub RepeatsCount: u32,
    /// The repeats, each at least 1.
    pub Repeats: *const u32,
}

/// `DML_FILL_VALUE_CONSTANT_OPERATOR_DESC`: every output element the value.
#[repr(C)]
#[derive(Clone, Copy)]
pub struct StriderFillValueConstantOperatorDesc {
    /// The output tensor.
    pub OutputTensor: *const StriderTensorDesc,
    /// The data type of `Value`: the output's.
    pub ValueDataType: u32,
    /// The value.
    pub Value: StriderScalarUnion,
}

/// `DML_FILL_VALUE_SEQUENCE_OPERATOR_DESC`: output element i (in C order over the sizes) `ValueStart + i ·
/// ValueDelta`, integers wrapping, floats computed in f64 and rounded once.
#[repr(C)]
#[derive(Clone, Copy)]
pub struct StriderFillValueSequenceOperatorDesc {
    /// The output tensor.
    pub OutputTensor: *const StriderTensorDesc,
    /// The data type of the two values: the output's.
    pub ValueDataType: u32,
    /// The value of element 0.
    pub ValueStart: StriderScalarUnion,
    /// The step.
    pub ValueDelta: StriderScalarUnion,
}

/// Strider's fused preprocessing (`STRIDER_OPERATOR_NORMALIZE`): a `DML_SLICE1` window of the input, each element
/// `x · Scale[k] + Bias[k]` (`k` its coordinate on `ChannelAxis`) converted to the output's data type, any layouts.
#[repr(C)]
#[derive(Clone, Copy, Debug)]
pub struct StriderNormalizeOperatorDesc {
    /// The input tensor.
    pub InputTensor: *const StriderTensorDesc,
    /// The output tensor (any data type and layout).
    pub OutputTensor: *const StriderTensorDesc,
    /// The tensors' rank: the length of the three window arrays.
    pub DimensionCount: u32,
    /// The window's start per dimension, or NULL (with the other two window arrays) for the whole input.
    pub InputWindowOffsets: *const u32,
    /// The window's sizes, or NULL.
    pub InputWindowSizes: *const u32,
    /// The window's strides (non-zero; negative: from the window's end), or NULL.
    pub InputWindowStrides: *const i32,
    /// The output dimension that selects the scale and bias, or -1 for none.
    pub ChannelAxis: i32,
    /// The number of scales: 1, or one per channel.
    pub ScaleCount: u32,
    /// The factors.
    pub Scale: *const f32,
    /// The number of biases: 1, or one per channel.
    pub BiasCount: u32,
    /// The addends.
    pub Bias: *const f32,
}

/// Strider's preprocessing of images (`STRIDER_OPERATOR_PREPROCESS`): a resize (none, to a size, by the shorter
/// side or YOLO's letterbox), a center crop, flips and channel order, then each value `x · Scale[k] + Bias[k]` (`k`
/// its output channel) converted to the output's data type, in one pass; the resized values stay f32. The input is
/// `{N, C, H, W}` or `{C, H, W}` (decoded images: NHWC strides), UINT8, FLOAT16 or FLOAT32; the output has the sizes
/// these steps give, any data type and strides.
#[repr(C)]
#[derive(Clone, Copy, Debug)]
pub struct StriderPreprocessOperatorDesc {
    /// The images.
    pub InputTensor: *const StriderTensorDesc,
    /// The result.
    pub OutputTensor: *const StriderTensorDesc,
    /// `STRIDER_RESIZE_NONE`, `_STRETCH`, `_SHORTER` or `_LETTERBOX`.
    pub Resize: u32,
    /// The resized (or canvas) height; the shorter side for `STRIDER_RESIZE_SHORTER`; 0 without a resize.
    pub ResizeHeight: u32,
    /// The resized (or canvas) width; 0 for `STRIDER_RESIZE_SHORTER` and without a resize.
    pub ResizeWidth: u32,
    /// `STRIDER_FILTER_NEAREST`, `_BILINEAR`, `_BICUBIC` or `_AREA`.
    pub Filter: u32,
    /// A letterbox's canvas value, in input units (114: YOLO's grey).
    pub PadValue: f32,
    /// A center crop after the resize: its height and width, or both 0 for none.
    pub CropHeight: u32,
    /// The crop's width.
    pub CropWidth: u32,
    /// `STRIDER_PREPROCESS_*` flags, or-ed.
    pub Flags: u32,
    /// The number of scales: 1, or one per output channel.
    pub ScaleCount: u32,
    /// The factors.
    pub Scale: *const f32,
    /// The number of biases: 1, or one per output channel.
    pub BiasCount: u32,
    /// The addends.
    pub Bias: *const f32,
}

/// One buffer of `strider_operator_execute_bindings`.
#[repr(C)]
#[derive(Clone, Copy, Debug)]
pub struct StriderBufferBinding {
    /// The buffer.
    pub Data: *mut c_void,
    /// Its length in bytes: at least its tensor's `TotalTensorSizeInBytes`.
    pub SizeInBytes: u64,
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
