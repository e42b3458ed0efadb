//! Reading C descriptions into Strider's operators: every pointer checked for NULL, every count bounded before an
//! array is read, every value validated as the Rust API does. Errors name the DirectML field and its value.

use core::slice;

use strider_core::{Cast, DataType, Error, Identity, MAX_RANK, ScaleBias, Slice, Slice1, TensorDesc, TensorFlags};

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

/// A validated operator, ready to run.
#[derive(Debug)]
pub(crate) enum Op {
    Identity(Identity),
    Slice(Slice),
    Cast(Cast),
    Slice1(Slice1),
}

/// The DirectML name of an operator type, for messages.
fn operator_name(ty: u32) -> &'static str {
    match ty {
        STRIDER_OPERATOR_ELEMENT_WISE_IDENTITY => "DML_OPERATOR_ELEMENT_WISE_IDENTITY",
        STRIDER_OPERATOR_SLICE => "DML_OPERATOR_SLICE",
        STRIDER_OPERATOR_CAST => "DML_OPERATOR_CAST",
        STRIDER_OPERATOR_SLICE1 => "DML_OPERATOR_SLICE1",
        _ => "operator",
    }
}

/// `count` values at `p`, after checking `count` is a rank and `p` is not NULL.
///
/// # Safety
///
/// `p` is NULL or points to at least `count` readable, initialized `T`s that stay unchanged during the call.
unsafe fn array<'a, T>(p: *const T, count: u32, field: &str) -> Result<&'a [T], Failure> {
    if count == 0 || count as usize > MAX_RANK {
        return Err(Failure::invalid(format!("{field}: DimensionCount is {count}; it must be 1 to {MAX_RANK}")));
    }
    if p.is_null() {
        return Err(Failure::invalid(format!("{field} is NULL; it must point to DimensionCount ({count}) values")));
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
    let data_type = DataType::from_dml_value(b.DataType).ok_or_else(|| {
        Failure::invalid(format!(
            "{field}->Desc->DataType is {}; it must be a DML_TENSOR_DATA_TYPE from FLOAT32 (1) to INT64 (11)",
            b.DataType
        ))
    })?;
    let flags = TensorFlags::from_bits(b.Flags).ok_or_else(|| {
        Failure::invalid(format!(
            "{field}->Desc->Flags is {:#x}; the only flag is DML_TENSOR_FLAG_OWNED_BY_DML (1)",
            b.Flags
        ))
    })?;
    let desc_field = format!("{field}->Desc");
    // SAFETY: `Sizes` and `Strides` point to `DimensionCount` values or are NULL (caller's contract); `array`
    // checks both the count and NULL before reading.
    let sizes = unsafe { array(b.Sizes, b.DimensionCount, &format!("{desc_field}->Sizes"))? };
    let desc = if b.Strides.is_null() {
        TensorDesc::new(data_type, sizes)
    } else {
        // SAFETY: as above.
        let strides = unsafe { array(b.Strides, b.DimensionCount, &format!("{desc_field}->Strides"))? };
        TensorDesc::with_strides(data_type, sizes, strides)
    };
    desc.and_then(|d| d.with_total_tensor_size_in_bytes(b.TotalTensorSizeInBytes))
        .and_then(|d| d.with_guaranteed_base_offset_alignment(b.GuaranteedBaseOffsetAlignment))
        .map(|d| d.with_flags(flags))
        .map_err(|e| Failure::from_error(&desc_field, e))
}

/// The operator `desc` describes, validated and planned.
///
/// # Safety
///
/// `desc` is NULL or points to a readable `StriderOperatorDesc` whose `Desc` is NULL or points to the readable
/// struct its `Type` names, whose pointers are NULL or valid as `tensor` and the struct's documentation say.
pub(crate) unsafe fn operator(desc: *const StriderOperatorDesc) -> Result<Op, Failure> {
    if desc.is_null() {
        return Err(Failure::invalid("desc is NULL".to_owned()));
    }
    // SAFETY: non-NULL and readable by the caller's contract.
    let d = unsafe { *desc };
    let name = operator_name(d.Type);
    if name == "operator" {
        return Err(Failure::invalid(format!(
            "desc->Type is {}; Strider runs DML_OPERATOR_ELEMENT_WISE_IDENTITY (1), DML_OPERATOR_SLICE (60), \
             DML_OPERATOR_CAST (61) and DML_OPERATOR_SLICE1 (111)",
            d.Type
        )));
    }
    if d.Desc.is_null() {
        return Err(Failure::invalid(format!("desc->Desc is NULL; a {name} needs its operator description")));
    }
    let rust = |e| Failure::from_error(name, e);
    match d.Type {
        // SAFETY: `d.Desc` is non-NULL and points to the struct `d.Type` names, whose pointers are valid or NULL
        // (caller's contract); `tensor` and `array` check them before reading.
        STRIDER_OPERATOR_ELEMENT_WISE_IDENTITY => unsafe {
            let o = *d.Desc.cast::<StriderElementWiseIdentityOperatorDesc>();
            let (input, output) = (tensor(o.InputTensor, "InputTensor")?, tensor(o.OutputTensor, "OutputTensor")?);
            let op = match o.ScaleBias.as_ref() {
                None => Identity::new(&input, &output),
                Some(sb) => Identity::with_scale_bias(&input, &output, ScaleBias { scale: sb.Scale, bias: sb.Bias }),
            };
            op.map(Op::Identity).map_err(rust)
        },
        // SAFETY: as above, for a `StriderSliceOperatorDesc`.
        STRIDER_OPERATOR_SLICE => unsafe {
            let o = *d.Desc.cast::<StriderSliceOperatorDesc>();
            let (input, output) = (tensor(o.InputTensor, "InputTensor")?, tensor(o.OutputTensor, "OutputTensor")?);
            let n = o.DimensionCount;
            let offsets = array(o.Offsets, n, "Offsets")?;
            let sizes = array(o.Sizes, n, "Sizes")?;
            let strides = array(o.Strides, n, "Strides")?;
            Slice::new(&input, &output, offsets, sizes, strides).map(Op::Slice).map_err(rust)
        },
        // SAFETY: as above, for a `StriderCastOperatorDesc`.
        STRIDER_OPERATOR_CAST => unsafe {
            let o = *d.Desc.cast::<StriderCastOperatorDesc>();
            let (input, output) = (tensor(o.InputTensor, "InputTensor")?, tensor(o.OutputTensor, "OutputTensor")?);
            Cast::new(&input, &output).map(Op::Cast).map_err(rust)
        },
        // SAFETY: as above, for a `StriderSlice1OperatorDesc` (the one type left after `operator_name`).
        _ => unsafe {
            let o = *d.Desc.cast::<StriderSlice1OperatorDesc>();
            let (input, output) = (tensor(o.InputTensor, "InputTensor")?, tensor(o.OutputTensor, "OutputTensor")?);
            let n = o.DimensionCount;
            let offsets = array(o.InputWindowOffsets, n, "InputWindowOffsets")?;
            let sizes = array(o.InputWindowSizes, n, "InputWindowSizes")?;
            let strides = array(o.InputWindowStrides, n, "InputWindowStrides")?;
            Slice1::new(&input, &output, offsets, sizes, strides).map(Op::Slice1).map_err(rust)
        },
    }
}

impl Op {
    /// The DirectML name of the operator, for messages.
    pub(crate) fn name(&self) -> &'static str {
        match self {
            Op::Identity(_) => "DML_OPERATOR_ELEMENT_WISE_IDENTITY",
            Op::Slice(_) => "DML_OPERATOR_SLICE",
            Op::Cast(_) => "DML_OPERATOR_CAST",
            Op::Slice1(_) => "DML_OPERATOR_SLICE1",
        }
    }

    /// Runs the operator between two disjoint buffers.
    pub(crate) fn execute(
        &self,
        input: &[u8],
        output: &mut [u8],
        opts: &strider_core::ExecOptions,
    ) -> Result<(), Error> {
        match self {
            Op::Identity(op) => op.execute_with(input, output, opts),
            Op::Slice(op) => op.execute_with(input, output, opts),
            Op::Cast(op) => op.execute_with(input, output, opts),
            Op::Slice1(op) => op.execute_with(input, output, opts),
        }
    }
}
