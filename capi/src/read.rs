//! Reading C descriptions into Strider's operator description ([`OperatorDesc`]): every pointer checked for NULL,
//! every count bounded before an array is read, every value validated as the Rust API does. Errors name the
//! DirectML field and its value.

use core::ffi::c_void;
use core::slice;

use strider_core::{
    DataType, DepthSpaceOrder, Error, ImageResize, MAX_RANK, Operator, OperatorDesc, PaddingMode, ResizeFilter, Scalar,
    ScaleBias, TensorDesc, TensorFlags,
};

use crate::types::*;

/// A failed call: its status and message.
#[derive(Debug)]
pub(crate) struct Failure {
    pub(crate) status: StriderStatus,
    pub(crate) message: String,
}

impl Failure {
    pub(crate) fn invalid(message: String) -> Failure {
        Failure { status: StriderStatus::STRIDER_INVALID_ARGUMENT, message }
    }

    /// A Rust API error, its message prefixed by where it came from.
    pub(crate) fn from_error(context: &str, error: Error) -> Failure {
        let status = match error {
            Error::BufferTooSmall { .. } => StriderStatus::STRIDER_BUFFER_TOO_SMALL,
            Error::UnsupportedDataType { .. } | Error::IsaUnavailable { .. } => StriderStatus::STRIDER_UNSUPPORTED,
            Error::Internal { .. } => StriderStatus::STRIDER_INTERNAL,
            _ => StriderStatus::STRIDER_INVALID_ARGUMENT,
        };
        Failure { status, message: format!("{context}: {error}") }
    }
}

/// Every operator type the C interface reads; [`OperatorType::read`] matches on it without a default arm, so a new
/// type is a compile error until it has a reader.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum OperatorType {
    ElementWiseIdentity,
    Slice,
    Cast,
    Split,
    Join,
    Padding,
    SpaceToDepth,
    DepthToSpace,
    Tile,
    FillValueConstant,
    FillValueSequence,
    Slice1,
    DepthToSpace1,
    SpaceToDepth1,
    Padding1,
    Normalize,
    Preprocess,
    Gather,
    GatherElements,
    GatherNd,
    GatherNd1,
    ScatterElements,
    ScatterNd,
    OneHot,
}

impl OperatorType {
    const ALL: [OperatorType; 24] = [
        OperatorType::ElementWiseIdentity,
        OperatorType::Slice,
        OperatorType::Cast,
        OperatorType::Split,
        OperatorType::Join,
        OperatorType::Padding,
        OperatorType::SpaceToDepth,
        OperatorType::DepthToSpace,
        OperatorType::Tile,
        OperatorType::FillValueConstant,
        OperatorType::FillValueSequence,
        OperatorType::Slice1,
        OperatorType::DepthToSpace1,
        OperatorType::SpaceToDepth1,
        OperatorType::Padding1,
        OperatorType::Normalize,
        OperatorType::Preprocess,
        OperatorType::Gather,
        OperatorType::GatherElements,
        OperatorType::GatherNd,
        OperatorType::GatherNd1,
        OperatorType::ScatterElements,
        OperatorType::ScatterNd,
        OperatorType::OneHot,
    ];

    /// The `STRIDER_OPERATOR_*` (DirectML) value and name.
    fn value_and_name(self) -> (u32, &'static str) {
        match self {
            OperatorType::ElementWiseIdentity => {
                (STRIDER_OPERATOR_ELEMENT_WISE_IDENTITY, "DML_OPERATOR_ELEMENT_WISE_IDENTITY")
            }
            OperatorType::Slice => (STRIDER_OPERATOR_SLICE, "DML_OPERATOR_SLICE"),
            OperatorType::Cast => (STRIDER_OPERATOR_CAST, "DML_OPERATOR_CAST"),
            OperatorType::Split => (STRIDER_OPERATOR_SPLIT, "DML_OPERATOR_SPLIT"),
            OperatorType::Join => (STRIDER_OPERATOR_JOIN, "DML_OPERATOR_JOIN"),
            OperatorType::Padding => (STRIDER_OPERATOR_PADDING, "DML_OPERATOR_PADDING"),
            OperatorType::SpaceToDepth => (STRIDER_OPERATOR_SPACE_TO_DEPTH, "DML_OPERATOR_SPACE_TO_DEPTH"),
            OperatorType::DepthToSpace => (STRIDER_OPERATOR_DEPTH_TO_SPACE, "DML_OPERATOR_DEPTH_TO_SPACE"),
            OperatorType::Tile => (STRIDER_OPERATOR_TILE, "DML_OPERATOR_TILE"),
            OperatorType::FillValueConstant => {
                (STRIDER_OPERATOR_FILL_VALUE_CONSTANT, "DML_OPERATOR_FILL_VALUE_CONSTANT")
            }
            OperatorType::FillValueSequence => {
                (STRIDER_OPERATOR_FILL_VALUE_SEQUENCE, "DML_OPERATOR_FILL_VALUE_SEQUENCE")
            }
            OperatorType::Slice1 => (STRIDER_OPERATOR_SLICE1, "DML_OPERATOR_SLICE1"),
            OperatorType::DepthToSpace1 => (STRIDER_OPERATOR_DEPTH_TO_SPACE1, "DML_OPERATOR_DEPTH_TO_SPACE1"),
            OperatorType::SpaceToDepth1 => (STRIDER_OPERATOR_SPACE_TO_DEPTH1, "DML_OPERATOR_SPACE_TO_DEPTH1"),
            OperatorType::Padding1 => (STRIDER_OPERATOR_PADDING1, "DML_OPERATOR_PADDING1"),
            OperatorType::Normalize => (STRIDER_OPERATOR_NORMALIZE, "STRIDER_OPERATOR_NORMALIZE"),
            OperatorType::Preprocess => (STRIDER_OPERATOR_PREPROCESS, "STRIDER_OPERATOR_PREPROCESS"),
            OperatorType::Gather => (STRIDER_OPERATOR_GATHER, "DML_OPERATOR_GATHER"),
            OperatorType::GatherElements => (STRIDER_OPERATOR_GATHER_ELEMENTS, "DML_OPERATOR_GATHER_ELEMENTS"),
            OperatorType::GatherNd => (STRIDER_OPERATOR_GATHER_ND, "DML_OPERATOR_GATHER_ND"),
            OperatorType::GatherNd1 => (STRIDER_OPERATOR_GATHER_ND1, "DML_OPERATOR_GATHER_ND1"),
            OperatorType::ScatterElements => (STRIDER_OPERATOR_SCATTER_ELEMENTS, "DML_OPERATOR_SCATTER_ELEMENTS"),
            OperatorType::ScatterNd => (STRIDER_OPERATOR_SCATTER_ND, "DML_OPERATOR_SCATTER_ND"),
            OperatorType::OneHot => (STRIDER_OPERATOR_ONE_HOT, "DML_OPERATOR_ONE_HOT"),
        }
    }

    fn of(value: u32) -> Option<OperatorType> {
        OperatorType::ALL.into_iter().find(|t| t.value_and_name().0 == value)
    }

    fn name(self) -> &'static str {
        self.value_and_name().1
    }

    /// The description `desc` (the struct this type names) points to.
    ///
    /// # Safety
    ///
    /// `desc` is non-NULL and points to the readable struct this type names, whose pointers are NULL or valid as
    /// its documentation says.
    unsafe fn read(self, desc: *const c_void) -> Result<OperatorDesc, Failure> {
        // SAFETY (every arm): `desc` points to the struct of this type (the caller's contract); the readers check
        // the struct's pointers and counts before reading through them.
        unsafe {
            match self {
                OperatorType::ElementWiseIdentity => identity(desc.cast()),
                OperatorType::Slice => slice_v0(desc.cast()),
                OperatorType::Cast => {
                    let o = *desc.cast::<StriderCastOperatorDesc>();
                    let (input, output) =
                        (tensor(o.InputTensor, "InputTensor")?, tensor(o.OutputTensor, "OutputTensor")?);
                    Ok(OperatorDesc::Cast { input, output })
                }
                OperatorType::Split => split(desc.cast()),
                OperatorType::Join => join(desc.cast()),
                OperatorType::Padding => padding_v0(desc.cast()),
                OperatorType::Padding1 => padding1(desc.cast()),
                OperatorType::SpaceToDepth | OperatorType::DepthToSpace => {
                    let o = *desc.cast::<StriderSpaceToDepthOperatorDesc>();
                    let v1 = StriderSpaceToDepth1OperatorDesc {
                        InputTensor: o.InputTensor,
                        OutputTensor: o.OutputTensor,
                        BlockSize: o.BlockSize,
                        Order: STRIDER_DEPTH_SPACE_ORDER_DEPTH_COLUMN_ROW,
                    };
                    depth_space(&v1, self == OperatorType::DepthToSpace)
                }
                OperatorType::SpaceToDepth1 | OperatorType::DepthToSpace1 => {
                    depth_space(&*desc.cast(), self == OperatorType::DepthToSpace1)
                }
                OperatorType::Tile => {
                    let o = *desc.cast::<StriderTileOperatorDesc>();
                    let (input, output) =
                        (tensor(o.InputTensor, "InputTensor")?, tensor(o.OutputTensor, "OutputTensor")?);
                    let repeats = array(o.Repeats, o.RepeatsCount, "Repeats", "RepeatsCount")?.to_vec();
                    Ok(OperatorDesc::Tile { input, output, repeats })
                }
                OperatorType::FillValueConstant => {
                    let o = *desc.cast::<StriderFillValueConstantOperatorDesc>();
                    let output = tensor(o.OutputTensor, "OutputTensor")?;
                    let value = scalar(o.ValueDataType, o.Value, "ValueDataType", &output)?;
                    Ok(OperatorDesc::FillValueConstant { output, value })
                }
                OperatorType::FillValueSequence => {
                    let o = *desc.cast::<StriderFillValueSequenceOperatorDesc>();
                    let output = tensor(o.OutputTensor, "OutputTensor")?;
                    let start = scalar(o.ValueDataType, o.ValueStart, "ValueDataType", &output)?;
                    let delta = scalar(o.ValueDataType, o.ValueDelta, "ValueDataType", &output)?;
                    Ok(OperatorDesc::FillValueSequence { output, start, delta })
                }
                OperatorType::Slice1 => slice1(desc.cast()),
                OperatorType::Normalize => normalize(desc.cast()),
                OperatorType::Preprocess => preprocess(desc.cast()),
                OperatorType::Gather => {
                    let o = *desc.cast::<StriderGatherOperatorDesc>();
                    let [input, indices, output] = fields([
                        (o.InputTensor, "InputTensor"),
                        (o.IndicesTensor, "IndicesTensor"),
                        (o.OutputTensor, "OutputTensor"),
                    ])?;
                    Ok(OperatorDesc::Gather {
                        input,
                        indices,
                        output,
                        axis: o.Axis,
                        index_dimensions: o.IndexDimensions,
                    })
                }
                OperatorType::GatherElements => {
                    let o = *desc.cast::<StriderGatherElementsOperatorDesc>();
                    let [input, indices, output] = fields([
                        (o.InputTensor, "InputTensor"),
                        (o.IndicesTensor, "IndicesTensor"),
                        (o.OutputTensor, "OutputTensor"),
                    ])?;
                    Ok(OperatorDesc::GatherElements { input, indices, output, axis: o.Axis })
                }
                OperatorType::GatherNd => {
                    let o = *desc.cast::<StriderGatherNdOperatorDesc>();
                    let v1 = StriderGatherNd1OperatorDesc {
                        InputTensor: o.InputTensor,
                        IndicesTensor: o.IndicesTensor,
                        OutputTensor: o.OutputTensor,
                        InputDimensionCount: o.InputDimensionCount,
                        IndicesDimensionCount: o.IndicesDimensionCount,
                        BatchDimensionCount: 0,
                    };
                    gather_nd(&v1)
                }
                OperatorType::GatherNd1 => gather_nd(&*desc.cast()),
                OperatorType::ScatterElements => {
                    let o = *desc.cast::<StriderScatterOperatorDesc>();
                    let [input, indices, updates, output] = fields([
                        (o.InputTensor, "InputTensor"),
                        (o.IndicesTensor, "IndicesTensor"),
                        (o.UpdatesTensor, "UpdatesTensor"),
                        (o.OutputTensor, "OutputTensor"),
                    ])?;
                    Ok(OperatorDesc::ScatterElements { input, indices, updates, output, axis: o.Axis })
                }
                OperatorType::ScatterNd => {
                    let o = *desc.cast::<StriderScatterNdOperatorDesc>();
                    let [input, indices, updates, output] = fields([
                        (o.InputTensor, "InputTensor"),
                        (o.IndicesTensor, "IndicesTensor"),
                        (o.UpdatesTensor, "UpdatesTensor"),
                        (o.OutputTensor, "OutputTensor"),
                    ])?;
                    Ok(OperatorDesc::ScatterNd {
                        input,
                        indices,
                        updates,
                        output,
                        input_dimension_count: o.InputDimensionCount,
                        indices_dimension_count: o.IndicesDimensionCount,
                    })
                }
                OperatorType::OneHot => {
                    let o = *desc.cast::<StriderOneHotOperatorDesc>();
                    let [indices, values, output] = fields([
                        (o.IndicesTensor, "IndicesTensor"),
                        (o.ValuesTensor, "ValuesTensor"),
                        (o.OutputTensor, "OutputTensor"),
                    ])?;
                    Ok(OperatorDesc::OneHot { indices, values, output, axis: o.Axis })
                }
            }
        }
    }
}

/// `count` values at `p`, after checking `count` is a rank and `p` is not NULL; `field` names the array and
/// `count_field` its count in messages.
///
/// # Safety
///
/// `p` is NULL or points to at least `count` readable, initialized `T`s that stay unchanged during the call.
unsafe fn array<'a, T>(p: *const T, count: u32, field: &str, count_field: &str) -> Result<&'a [T], Failure> {
    if count == 0 || count as usize > MAX_RANK {
        return Err(Failure::invalid(format!("{count_field} is {count}; it must be 1 to {MAX_RANK}")));
    }
    if p.is_null() {
        return Err(Failure::invalid(format!("{field} is NULL; it must point to {count_field} ({count}) values")));
    }
    // SAFETY: `p` is non-NULL and, by the caller's contract, points to `count` (at most 8) initialized values.
    Ok(unsafe { slice::from_raw_parts(p, count as usize) })
}

/// The tensor `p` describes; `field` names it in messages (`InputTensor`, …).
///
/// # Safety
///
/// `p` is NULL or points to a readable `StriderTensorDesc` whose `Desc`, when its `Type` is
/// `STRIDER_TENSOR_TYPE_BUFFER`, is NULL or points to a readable `StriderBufferTensorDesc` whose `Sizes` and
/// `Strides` are NULL or point to `DimensionCount` values.
pub(crate) unsafe fn tensor(p: *const StriderTensorDesc, field: &str) -> Result<TensorDesc, Failure> {
    if p.is_null() {
        return Err(Failure::invalid(format!("{field} is NULL")));
    }
    // SAFETY: non-NULL and readable by the caller's contract.
    let t = unsafe { *p };
    if t.Type != STRIDER_TENSOR_TYPE_BUFFER {
        return Err(Failure::invalid(format!(
            "{field}->Type is {}; the only tensor type is DML_TENSOR_TYPE_BUFFER ({STRIDER_TENSOR_TYPE_BUFFER})",
            t.Type
        )));
    }
    if t.Desc.is_null() {
        return Err(Failure::invalid(format!("{field}->Desc is NULL")));
    }
    // SAFETY: a BUFFER tensor's non-NULL `Desc` points to a readable `StriderBufferTensorDesc` (caller's contract).
    let b = unsafe { *t.Desc.cast::<StriderBufferTensorDesc>() };
    let data_type = data_type(b.DataType, &format!("{field}->Desc->DataType"))?;
    let flags = TensorFlags::from_bits(b.Flags).ok_or_else(|| {
        Failure::invalid(format!(
            "{field}->Desc->Flags is {:#x}; the only flag is DML_TENSOR_FLAG_OWNED_BY_DML (1)",
            b.Flags
        ))
    })?;
    let desc_field = format!("{field}->Desc");
    let (sizes_field, strides_field, count_field) =
        (format!("{desc_field}->Sizes"), format!("{desc_field}->Strides"), format!("{desc_field}->DimensionCount"));
    // SAFETY: `Sizes` and `Strides` point to `DimensionCount` values or are NULL (caller's contract); `array`
    // checks both the count and NULL before reading.
    let sizes = unsafe { array(b.Sizes, b.DimensionCount, &sizes_field, &count_field)? };
    let desc = if b.Strides.is_null() {
        TensorDesc::new(data_type, sizes)
    } else {
        // SAFETY: as above.
        let strides = unsafe { array(b.Strides, b.DimensionCount, &strides_field, &count_field)? };
        TensorDesc::with_strides(data_type, sizes, strides)
    };
    desc.and_then(|d| d.with_total_tensor_size_in_bytes(b.TotalTensorSizeInBytes))
        .and_then(|d| d.with_guaranteed_base_offset_alignment(b.GuaranteedBaseOffsetAlignment))
        .map(|d| d.with_flags(flags))
        .map_err(|e| Failure::from_error(&desc_field, e))
}

/// The tensors of an operator's fields, each named by its field in messages.
///
/// # Safety
///
/// As [`tensor`], for each pointer.
unsafe fn fields<const N: usize>(fields: [(*const StriderTensorDesc, &str); N]) -> Result<[TensorDesc; N], Failure> {
    let mut out = Vec::with_capacity(N);
    for (p, field) in fields {
        // SAFETY: the caller's contract, pointer by pointer.
        out.push(unsafe { tensor(p, field)? });
    }
    out.try_into().map_err(|_| Failure::invalid("tensor count".to_owned()))
}

/// A `DML_GATHER_ND1_OPERATOR_DESC` (also `DML_GATHER_ND`'s, with no batches).
///
/// # Safety
///
/// The struct's tensor pointers are NULL or valid as [`tensor`] says.
unsafe fn gather_nd(o: &StriderGatherNd1OperatorDesc) -> Result<OperatorDesc, Failure> {
    // SAFETY: the caller's contract.
    let [input, indices, output] = unsafe {
        fields([(o.InputTensor, "InputTensor"), (o.IndicesTensor, "IndicesTensor"), (o.OutputTensor, "OutputTensor")])?
    };
    Ok(OperatorDesc::GatherNd {
        input,
        indices,
        output,
        input_dimension_count: o.InputDimensionCount,
        indices_dimension_count: o.IndicesDimensionCount,
        batch_dimension_count: o.BatchDimensionCount,
    })
}

/// `count` tensors of an array of `StriderTensorDesc` structs (`JOIN`'s inputs, `SPLIT`'s outputs).
///
/// # Safety
///
/// `p` is NULL or points to `count` readable `StriderTensorDesc`s, each valid as [`tensor`] requires.
unsafe fn tensors(
    p: *const StriderTensorDesc,
    count: u32,
    field: &str,
    count_field: &str,
) -> Result<Vec<TensorDesc>, Failure> {
    if count == 0 {
        return Err(Failure::invalid(format!("{count_field} is 0; the operator needs at least 1 tensor")));
    }
    if p.is_null() {
        return Err(Failure::invalid(format!("{field} is NULL; it must point to {count_field} ({count}) tensors")));
    }
    // SAFETY: element k < count of the caller's array (caller's contract); `tensor` checks its pointers.
    (0..count as usize).map(|k| unsafe { tensor(p.add(k), &format!("{field}[{k}]")) }).collect()
}

fn data_type(value: u32, field: &str) -> Result<DataType, Failure> {
    DataType::from_dml_value(value).ok_or_else(|| {
        Failure::invalid(format!(
            "{field} is {value}; it must be a DML_TENSOR_DATA_TYPE from FLOAT32 (1) to INT64 (11)"
        ))
    })
}

/// A `DML_SCALAR_UNION` of type `value_type`, which must be the output's.
fn scalar(value_type: u32, value: StriderScalarUnion, field: &str, output: &TensorDesc) -> Result<Scalar, Failure> {
    let dt = data_type(value_type, field)?;
    if dt != output.data_type() {
        return Err(Failure::invalid(format!(
            "{field} is {dt} ({value_type}) but the output is {}; they must be equal",
            output.data_type()
        )));
    }
    // SAFETY: every bit pattern of the 8 bytes is a valid [u8; 8] (the union's plain-bytes member).
    Ok(Scalar::from_union(dt, unsafe { value.Bytes }))
}

/// # Safety
///
/// `o` points to a readable `StriderElementWiseIdentityOperatorDesc` valid as its documentation says.
unsafe fn identity(o: *const StriderElementWiseIdentityOperatorDesc) -> Result<OperatorDesc, Failure> {
    // SAFETY: the caller's contract; `tensor` checks the tensors' pointers.
    unsafe {
        let o = *o;
        let (input, output) = (tensor(o.InputTensor, "InputTensor")?, tensor(o.OutputTensor, "OutputTensor")?);
        let scale_bias = o.ScaleBias.as_ref().map(|sb| ScaleBias { scale: sb.Scale, bias: sb.Bias });
        Ok(OperatorDesc::ElementWiseIdentity { input, output, scale_bias })
    }
}

/// # Safety
///
/// `o` points to a readable `StriderSliceOperatorDesc` valid as its documentation says.
unsafe fn slice_v0(o: *const StriderSliceOperatorDesc) -> Result<OperatorDesc, Failure> {
    // SAFETY: the caller's contract; `tensor` and `array` check pointers and counts.
    unsafe {
        let o = *o;
        let (input, output) = (tensor(o.InputTensor, "InputTensor")?, tensor(o.OutputTensor, "OutputTensor")?);
        let n = o.DimensionCount;
        Ok(OperatorDesc::Slice {
            input,
            output,
            offsets: array(o.Offsets, n, "Offsets", "DimensionCount")?.to_vec(),
            sizes: array(o.Sizes, n, "Sizes", "DimensionCount")?.to_vec(),
            strides: array(o.Strides, n, "Strides", "DimensionCount")?.to_vec(),
        })
    }
}

/// # Safety
///
/// `o` points to a readable `StriderSlice1OperatorDesc` valid as its documentation says.
unsafe fn slice1(o: *const StriderSlice1OperatorDesc) -> Result<OperatorDesc, Failure> {
    // SAFETY: the caller's contract; `tensor` and `array` check pointers and counts.
    unsafe {
        let o = *o;
        let (input, output) = (tensor(o.InputTensor, "InputTensor")?, tensor(o.OutputTensor, "OutputTensor")?);
        let n = o.DimensionCount;
        Ok(OperatorDesc::Slice1 {
            input,
            output,
            window_offsets: array(o.InputWindowOffsets, n, "InputWindowOffsets", "DimensionCount")?.to_vec(),
            window_sizes: array(o.InputWindowSizes, n, "InputWindowSizes", "DimensionCount")?.to_vec(),
            window_strides: array(o.InputWindowStrides, n, "InputWindowStrides", "DimensionCount")?.to_vec(),
        })
    }
}

/// # Safety
///
/// `o` points to a readable `StriderSplitOperatorDesc` valid as its documentation says.
unsafe fn split(o: *const StriderSplitOperatorDesc) -> Result<OperatorDesc, Failure> {
    // SAFETY: the caller's contract; `tensor` and `tensors` check pointers and counts.
    unsafe {
        let o = *o;
        let input = tensor(o.InputTensor, "InputTensor")?;
        let outputs = tensors(o.OutputTensors, o.OutputCount, "OutputTensors", "OutputCount")?;
        Ok(OperatorDesc::Split { input, outputs, axis: o.Axis })
    }
}

/// # Safety
///
/// `o` points to a readable `StriderJoinOperatorDesc` valid as its documentation says.
unsafe fn join(o: *const StriderJoinOperatorDesc) -> Result<OperatorDesc, Failure> {
    // SAFETY: the caller's contract; `tensor` and `tensors` check pointers and counts.
    unsafe {
        let o = *o;
        let inputs = tensors(o.InputTensors, o.InputCount, "InputTensors", "InputCount")?;
        let output = tensor(o.OutputTensor, "OutputTensor")?;
        Ok(OperatorDesc::Join { inputs, output, axis: o.Axis })
    }
}

fn padding_mode(value: u32) -> Result<PaddingMode, Failure> {
    PaddingMode::from_dml_value(value).ok_or_else(|| {
        Failure::invalid(format!(
            "PaddingMode is {value}; it must be a DML_PADDING_MODE: CONSTANT (0), EDGE (1), REFLECTION (2), \
             SYMMETRIC (3) or WRAP (4)"
        ))
    })
}

/// The padding both versions describe, with the value already of the output's type.
///
/// # Safety
///
/// The pointers are NULL or valid as the padding descriptions document.
unsafe fn padding(
    input: *const StriderTensorDesc,
    output: *const StriderTensorDesc,
    mode: u32,
    value: impl FnOnce(&TensorDesc) -> Result<Scalar, Failure>,
    count: u32,
    start: *const u32,
    end: *const u32,
) -> Result<OperatorDesc, Failure> {
    // SAFETY: the caller's contract; `tensor` and `array` check pointers and counts.
    unsafe {
        let (input, output) = (tensor(input, "InputTensor")?, tensor(output, "OutputTensor")?);
        let mode = padding_mode(mode)?;
        let value = value(&output)?;
        let start = array(start, count, "StartPadding", "DimensionCount")?.to_vec();
        let end = array(end, count, "EndPadding", "DimensionCount")?.to_vec();
        Ok(OperatorDesc::Padding { input, output, mode, value, start, end })
    }
}

/// # Safety
///
/// `o` points to a readable `StriderPaddingOperatorDesc` valid as its documentation says.
unsafe fn padding_v0(o: *const StriderPaddingOperatorDesc) -> Result<OperatorDesc, Failure> {
    // SAFETY: the caller's contract.
    let o = unsafe { *o };
    // DML_PADDING's FLOAT value, converted to the output's type as DML_CAST converts a FLOAT32.
    let value = |out: &TensorDesc| Ok(Scalar::from(o.PaddingValue).cast(out.data_type()));
    // SAFETY: the caller's contract.
    unsafe {
        padding(o.InputTensor, o.OutputTensor, o.PaddingMode, value, o.DimensionCount, o.StartPadding, o.EndPadding)
    }
}

/// # Safety
///
/// `o` points to a readable `StriderPadding1OperatorDesc` valid as its documentation says.
unsafe fn padding1(o: *const StriderPadding1OperatorDesc) -> Result<OperatorDesc, Failure> {
    // SAFETY: the caller's contract.
    let o = unsafe { *o };
    let value = |out: &TensorDesc| scalar(o.PaddingValueDataType, o.PaddingValue, "PaddingValueDataType", out);
    // SAFETY: the caller's contract.
    unsafe {
        padding(o.InputTensor, o.OutputTensor, o.PaddingMode, value, o.DimensionCount, o.StartPadding, o.EndPadding)
    }
}

/// # Safety
///
/// `o`'s tensor pointers are NULL or valid as [`tensor`] requires.
unsafe fn depth_space(o: &StriderSpaceToDepth1OperatorDesc, to_space: bool) -> Result<OperatorDesc, Failure> {
    // SAFETY: the caller's contract.
    let (input, output) = unsafe { (tensor(o.InputTensor, "InputTensor")?, tensor(o.OutputTensor, "OutputTensor")?) };
    let order = DepthSpaceOrder::from_dml_value(o.Order).ok_or_else(|| {
        Failure::invalid(format!(
            "Order is {}; it must be a DML_DEPTH_SPACE_ORDER: DEPTH_COLUMN_ROW (0) or COLUMN_ROW_DEPTH (1)",
            o.Order
        ))
    })?;
    let block_size = o.BlockSize;
    Ok(if to_space {
        OperatorDesc::DepthToSpace { input, output, block_size, order }
    } else {
        OperatorDesc::SpaceToDepth { input, output, block_size, order }
    })
}

/// # Safety
///
/// `o` points to a readable `StriderNormalizeOperatorDesc` valid as its documentation says.
unsafe fn normalize(o: *const StriderNormalizeOperatorDesc) -> Result<OperatorDesc, Failure> {
    // SAFETY: the caller's contract; `tensor` and `array` check pointers and counts.
    unsafe {
        let o = *o;
        let (input, output) = (tensor(o.InputTensor, "InputTensor")?, tensor(o.OutputTensor, "OutputTensor")?);
        let n = o.DimensionCount;
        let whole = o.InputWindowOffsets.is_null() && o.InputWindowSizes.is_null() && o.InputWindowStrides.is_null();
        let (window_offsets, window_sizes, window_strides) = if whole {
            let rank = input.rank();
            (vec![0; rank], input.sizes().to_vec(), vec![1; rank])
        } else {
            (
                array(o.InputWindowOffsets, n, "InputWindowOffsets", "DimensionCount")?.to_vec(),
                array(o.InputWindowSizes, n, "InputWindowSizes", "DimensionCount")?.to_vec(),
                array(o.InputWindowStrides, n, "InputWindowStrides", "DimensionCount")?.to_vec(),
            )
        };
        let channel_axis = match o.ChannelAxis {
            -1 => None,
            a => Some(usize::try_from(a).map_err(|_| {
                Failure::invalid(format!("ChannelAxis is {a}; it must be -1 (none) or a dimension of the output"))
            })?),
        };
        // 1 value, or one per channel: never more than the output's size on the channel axis.
        let most = channel_axis.and_then(|a| output.sizes().get(a)).copied().unwrap_or(1).max(1);
        let scale = channel_values(o.Scale, o.ScaleCount, most, "Scale", "ScaleCount")?;
        let bias = channel_values(o.Bias, o.BiasCount, most, "Bias", "BiasCount")?;
        Ok(OperatorDesc::Normalize {
            input,
            output,
            window_offsets,
            window_sizes,
            window_strides,
            channel_axis,
            scale,
            bias,
        })
    }
}

/// 1 value, or one per output channel (at most `most`), of `count` floats at `p`.
///
/// # Safety
///
/// `p` is NULL or points to `count` readable floats.
unsafe fn channel_values(
    p: *const f32,
    count: u32,
    most: u32,
    field: &str,
    count_field: &str,
) -> Result<Vec<f32>, Failure> {
    if count > most.max(1) {
        return Err(Failure::invalid(format!("{count_field} is {count}; it must be 1 or one per channel ({most})")));
    }
    if count == 0 || p.is_null() {
        return Err(Failure::invalid(format!(
            "{count_field} is {count} and {field} is {}; give at least one value",
            if p.is_null() { "NULL" } else { "set" }
        )));
    }
    // SAFETY: `p` points to `count` floats (the caller's contract), at most a channel count.
    Ok(unsafe { slice::from_raw_parts(p, count as usize) }.to_vec())
}

/// # Safety
///
/// `o` points to a readable `StriderPreprocessOperatorDesc` valid as its documentation says.
unsafe fn preprocess(o: *const StriderPreprocessOperatorDesc) -> Result<OperatorDesc, Failure> {
    // SAFETY: the caller's contract; `tensor` and `channel_values` check pointers and counts.
    unsafe {
        let o = *o;
        let (input, output) = (tensor(o.InputTensor, "InputTensor")?, tensor(o.OutputTensor, "OutputTensor")?);
        let (h, w) = (o.ResizeHeight, o.ResizeWidth);
        let resize = match (o.Resize, h, w) {
            (STRIDER_RESIZE_NONE, 0, 0) => ImageResize::None,
            (STRIDER_RESIZE_STRETCH, ..) => ImageResize::Stretch { height: h, width: w },
            (STRIDER_RESIZE_SHORTER, _, 0) => ImageResize::Shorter(h),
            (STRIDER_RESIZE_LETTERBOX, ..) => ImageResize::Letterbox { height: h, width: w, pad: o.PadValue },
            (STRIDER_RESIZE_NONE | STRIDER_RESIZE_SHORTER, ..) => {
                return Err(Failure::invalid(format!(
                    "ResizeHeight {h} and ResizeWidth {w}: without a resize both are 0, for STRIDER_RESIZE_SHORTER \
                     ResizeWidth is 0"
                )));
            }
            (r, ..) => return Err(Failure::invalid(format!("Resize is {r}; it must be a STRIDER_RESIZE_* value"))),
        };
        let filter = match o.Filter {
            STRIDER_FILTER_NEAREST => ResizeFilter::Nearest,
            STRIDER_FILTER_BILINEAR => ResizeFilter::Bilinear,
            STRIDER_FILTER_BICUBIC => ResizeFilter::Bicubic,
            STRIDER_FILTER_AREA => ResizeFilter::Area,
            f => return Err(Failure::invalid(format!("Filter is {f}; it must be a STRIDER_FILTER_* value"))),
        };
        let crop = match (o.CropHeight, o.CropWidth) {
            (0, 0) => None,
            (ch, cw) => Some([ch, cw]),
        };
        let known = STRIDER_PREPROCESS_FLIP_HORIZONTAL
            | STRIDER_PREPROCESS_FLIP_VERTICAL
            | STRIDER_PREPROCESS_REVERSE_CHANNELS
            | STRIDER_PREPROCESS_SAMPLED;
        if o.Flags & !known != 0 {
            return Err(Failure::invalid(format!(
                "Flags is {:#x}; it has bits no STRIDER_PREPROCESS_* flag sets",
                o.Flags
            )));
        }
        // The output's channel count bounds the parameter counts (the builder checks them exactly).
        let most = output.sizes().get(output.rank().saturating_sub(3)).copied().unwrap_or(1);
        let scale = channel_values(o.Scale, o.ScaleCount, most, "Scale", "ScaleCount")?;
        let bias = channel_values(o.Bias, o.BiasCount, most, "Bias", "BiasCount")?;
        Ok(OperatorDesc::Preprocess {
            input,
            output,
            resize,
            filter,
            antialias: o.Flags & STRIDER_PREPROCESS_SAMPLED == 0,
            crop,
            flip_horizontal: o.Flags & STRIDER_PREPROCESS_FLIP_HORIZONTAL != 0,
            flip_vertical: o.Flags & STRIDER_PREPROCESS_FLIP_VERTICAL != 0,
            reverse_channels: o.Flags & STRIDER_PREPROCESS_REVERSE_CHANNELS != 0,
            scale,
            bias,
        })
    }
}

/// The operator `desc` describes, validated and planned.
///
/// # Safety
///
/// `desc` is NULL or points to a readable `StriderOperatorDesc` whose `Desc` is NULL or points to the readable
/// struct its `Type` names, whose pointers are NULL or valid as `tensor` and the struct's documentation say.
pub(crate) unsafe fn operator(desc: *const StriderOperatorDesc) -> Result<Operator, Failure> {
    if desc.is_null() {
        return Err(Failure::invalid("desc is NULL".to_owned()));
    }
    // SAFETY: non-NULL and readable by the caller's contract.
    let d = unsafe { *desc };
    let ty = OperatorType::of(d.Type).ok_or_else(|| {
        let known: Vec<String> =
            OperatorType::ALL.iter().map(|t| format!("{} ({})", t.name(), t.value_and_name().0)).collect();
        Failure::invalid(format!("desc->Type is {}; Strider runs {}", d.Type, known.join(", ")))
    })?;
    if d.Desc.is_null() {
        return Err(Failure::invalid(format!("desc->Desc is NULL; a {} needs its operator description", ty.name())));
    }
    // SAFETY: `d.Desc` is non-NULL and points to the struct `d.Type` names (caller's contract).
    let description =
        unsafe { ty.read(d.Desc) }.map_err(|f| Failure { message: format!("{}: {}", ty.name(), f.message), ..f })?;
    description.build().map_err(|e| Failure::from_error(ty.name(), e))
}
