//! Strider's C ABI: DirectML-shaped operator descriptions run on the CPU.
//!
//! The interface is `include/strider.h` (generated from this crate by cbindgen; `tests/header.rs` checks the
//! committed copy is fresh) and `include/strider_dml.h`, which gives C and C++ programs DirectML's own names for
//! the same types. Layers: `types` (the C structs and constants) → `read` (C descriptions into validated Rust
//! operators) → this file (the exported functions: NULL checks, buffers, threads, errors, and `catch_unwind` so that
//! no panic crosses the boundary).

#![deny(clippy::arithmetic_side_effects)]

#[cfg(feature = "fuzzing")]
#[doc(hidden)]
pub mod fuzzing;
mod read;
mod types;

use core::ffi::{c_char, c_void};
use std::cell::RefCell;
use std::ffi::CString;
use std::panic::{AssertUnwindSafe, catch_unwind};

#[cfg(test)]
use strider_core::DataType;
use strider_core::{Error, ExecOptions, Isa, Operand, Operator, Parallelism};

use crate::read::Failure;
pub use crate::types::*;

/// An operator, validated and planned: create it once, execute it many times, from any number of threads at once.
pub struct StriderOperator {
    op: Operator,
}

thread_local! {
    /// This thread's last error message (empty when the last call succeeded).
    static LAST_ERROR: RefCell<CString> = RefCell::new(CString::default());
}

fn set_last_error(message: &str) {
    let text = CString::new(message.replace('\0', "")).unwrap_or_default();
    LAST_ERROR.with(|e| *e.borrow_mut() = text);
}

/// Empties this thread's last error; allocates nothing when it is already empty (the common, successful case).
fn clear_last_error() {
    LAST_ERROR.with(|e| {
        if let Ok(mut e) = e.try_borrow_mut()
            && !e.as_bytes().is_empty()
        {
            *e = CString::default();
        }
    });
}

/// Runs `f`, records its failure (or panic) as this thread's last error, and turns it into a status.
fn guard(f: impl FnOnce() -> Result<(), Failure>) -> StriderStatus {
    clear_last_error();
    let failure = match catch_unwind(AssertUnwindSafe(f)) {
        Ok(Ok(())) => return StriderStatus::STRIDER_OK,
        Ok(Err(failure)) => failure,
        Err(panic) => {
            let what = panic
                .downcast_ref::<&str>()
                .map(|s| (*s).to_owned())
                .or_else(|| panic.downcast_ref::<String>().cloned())
                .unwrap_or_else(|| "a panic".to_owned());
            Failure {
                status: StriderStatus::STRIDER_INTERNAL,
                message: format!("internal error in strider (please report it): {what}"),
            }
        }
    };
    set_last_error(&failure.message);
    failure.status
}

/// Validates `desc` and plans the operator it describes; on success stores a new operator in `*out` (free it with
/// `strider_operator_destroy`). On failure `*out` is set to NULL (when `out` is not NULL) and the status says why:
/// `STRIDER_INVALID_ARGUMENT` for a NULL pointer, an unknown operator or tensor type, a `DimensionCount` outside 1..8,
/// a `TotalTensorSizeInBytes` of 0 or below `strider_calc_buffer_tensor_size`, a `GuaranteedBaseOffsetAlignment`
/// that is not 0 or a power of two of at least the element size, or any rule of the operator; `STRIDER_UNSUPPORTED`
/// for a data type the operator does not take (`ScaleBias` on integer tensors).
///
/// # Safety
///
/// `desc` is NULL or points to a `StriderOperatorDesc` whose `Desc` is NULL or points to the struct its `Type`
/// names; every pointer in it is NULL or points to what its field documents (`DimensionCount` values for arrays).
/// `out` is NULL or writable. Nothing is retained: the descriptions may be freed when the call returns.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn strider_operator_create(
    desc: *const StriderOperatorDesc,
    out: *mut *mut StriderOperator,
) -> StriderStatus {
    if !out.is_null() {
        // SAFETY: `out` is non-NULL and writable (caller's contract).
        unsafe { out.write(core::ptr::null_mut()) };
    }
    guard(|| {
        if out.is_null() {
            return Err(Failure::invalid("out is NULL".to_owned()));
        }
        // SAFETY: `desc` is NULL or valid as this function's contract says; `read::operator` checks NULLs.
        let op = unsafe { read::operator(desc)? };
        let raw = Box::into_raw(Box::new(StriderOperator { op }));
        // SAFETY: `out` is non-NULL and writable (caller's contract).
        unsafe { out.write(raw) };
        Ok(())
    })
}

/// Runs `op` from `input` into `output` with default options (see `strider_operator_execute_with`).
///
/// # Safety
///
/// As `strider_operator_execute_with`.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn strider_operator_execute(
    op: *const StriderOperator,
    input: *const c_void,
    input_bytes: usize,
    output: *mut c_void,
    output_bytes: usize,
) -> StriderStatus {
    // SAFETY: forwarded under the same contract.
    unsafe { strider_operator_execute_with(op, input, input_bytes, output, output_bytes, core::ptr::null()) }
}

/// Runs an operator of one input and one output (or of no input and one output, with `input` NULL) from `input`
/// (`input_bytes` long) into `output` (`output_bytes` long): `strider_operator_execute_bindings` with one binding
/// each. Operators of other counts (`DML_OPERATOR_JOIN`, `DML_OPERATOR_SPLIT`) run only through
/// `strider_operator_execute_bindings`.
///
/// # Safety
///
/// `op` is NULL or an operator from `strider_operator_create` not yet destroyed. `input` is NULL or readable for
/// `input_bytes` bytes, `output` NULL or writable for `output_bytes` bytes, and no other thread writes them during
/// the call. `options` is NULL or readable.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn strider_operator_execute_with(
    op: *const StriderOperator,
    input: *const c_void,
    input_bytes: usize,
    output: *mut c_void,
    output_bytes: usize,
    options: *const StriderExecuteOptions,
) -> StriderStatus {
    // A NULL input of an operator without inputs is no input.
    // SAFETY: `op` is NULL or a live operator (caller's contract).
    let inputless = unsafe { op.as_ref() }.is_some_and(|o| o.op.inputs().is_empty());
    let ins = [StriderBufferBinding { Data: input.cast_mut(), SizeInBytes: input_bytes as u64 }];
    let outs = [StriderBufferBinding { Data: output, SizeInBytes: output_bytes as u64 }];
    let input_count = if inputless && input.is_null() { 0 } else { 1 };
    // SAFETY: the bindings describe the caller's buffers under the same contract.
    unsafe { execute_bindings(op, ins.as_ptr(), input_count, outs.as_ptr(), 1, options, "input_bytes", "output_bytes") }
}

/// Runs `op` with one buffer per input and per output, in the order its description lists its tensors
/// (`inputs` may be NULL when `input_count` is 0, as for the fills). Each buffer must hold its tensor's
/// `TotalTensorSizeInBytes` (else `STRIDER_BUFFER_TOO_SMALL`) at an address its `GuaranteedBaseOffsetAlignment`
/// allows. Outputs must not overlap each other or any input — except that an `ELEMENT_WISE_IDENTITY` whose input
/// and output have the same strides runs in place when both bindings have the same `Data`; inputs may overlap each
/// other. A count that is not the operator's, a NULL `Data`, or overlapping buffers is `STRIDER_INVALID_ARGUMENT`.
/// Output bytes no output element addresses (padding) are never written; on any failure nothing is written.
/// A `SCATTER_ELEMENTS` or `SCATTER_ND` whose output binding has its input's `Data` runs in place (only the
/// updates are written; indices and updates must lie apart from it).
/// `options` may be NULL (defaults).
///
/// # Safety
///
/// `op` is NULL or an operator from `strider_operator_create` not yet destroyed. `inputs` (`outputs`) is NULL or
/// points to `input_count` (`output_count`) readable bindings; each input binding's `Data` is NULL or readable
/// for `SizeInBytes` bytes, each output binding's NULL or writable for `SizeInBytes` bytes, and no other thread
/// writes them during the call. `options` is NULL or readable.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn strider_operator_execute_bindings(
    op: *const StriderOperator,
    inputs: *const StriderBufferBinding,
    input_count: u32,
    outputs: *const StriderBufferBinding,
    output_count: u32,
    options: *const StriderExecuteOptions,
) -> StriderStatus {
    // SAFETY: forwarded under the same contract.
    unsafe { execute_bindings(op, inputs, input_count, outputs, output_count, options, "input", "output") }
}

/// `strider_operator_execute_bindings`, with the names of the length parameters for messages (`input_bytes` when
/// called through `strider_operator_execute_with`).
///
/// # Safety
///
/// As `strider_operator_execute_bindings`.
#[allow(clippy::too_many_arguments)] // the C signature, and the two names its callers give the lengths
unsafe fn execute_bindings(
    op: *const StriderOperator,
    inputs: *const StriderBufferBinding,
    input_count: u32,
    outputs: *const StriderBufferBinding,
    output_count: u32,
    options: *const StriderExecuteOptions,
    in_name: &'static str,
    out_name: &'static str,
) -> StriderStatus {
    guard(|| {
        // SAFETY: `op` is NULL or a live operator (caller's contract).
        let op = &unsafe { op.as_ref() }.ok_or_else(|| Failure::invalid("op is NULL".to_owned()))?.op;
        // SAFETY: `options` is NULL or readable (caller's contract).
        let options = unsafe { options.as_ref() }.copied().unwrap_or_default();
        let opts = exec_options(&options)?;
        let name = op.name();
        let (want_in, want_out) = (op.inputs().len(), op.outputs().len());
        for (count_name, count, want) in
            [("input_count", input_count, want_in), ("output_count", output_count, want_out)]
        {
            if count as usize != want && in_name == "input_bytes" {
                return Err(Failure::invalid(format!(
                    "{name} has {want_in} input(s) and {want_out} output(s); strider_operator_execute runs \
                     operators of one input (or none) and one output: use strider_operator_execute_bindings"
                )));
            }
            if count as usize != want {
                return Err(Failure::invalid(format!("{count_name} is {count}; {name} takes {want}")));
            }
        }
        // SAFETY: `inputs` / `outputs` are NULL or point to that many bindings (caller's contract).
        let ins = unsafe { bindings(inputs, input_count, "inputs", in_name)? };
        // SAFETY: as above.
        let outs = unsafe { bindings(outputs, output_count, "outputs", out_name)? };
        // One buffer as input and output: only an identity runs in place.
        if let (Operator::Identity(identity), [i], [o]) = (op, &ins[..], &outs[..])
            && i.0 == o.0
        {
            // Each operand against its own length: the one buffer is readable for the input's and writable for the
            // output's, and only the shorter is both.
            for (operand, desc, bytes) in
                [(Operand::Input, identity.input(), i.1), (Operand::Output, identity.output(), o.1)]
            {
                let required = desc.required_buffer_bytes();
                if (bytes as u64) < required {
                    let data_type = desc.data_type();
                    let e = Error::BufferTooSmall { operand, data_type, required, actual: bytes };
                    return Err(Failure::from_error(name, e));
                }
            }
            // SAFETY: one buffer, readable for `i.1` and writable for `o.1` bytes (the caller's contract), so both
            // for the shorter; no other slice of it exists during the call.
            let buffer = unsafe { core::slice::from_raw_parts_mut(o.0.cast::<u8>(), i.1.min(o.1)) };
            return identity.execute_in_place_with(buffer, &opts).map_err(|e| Failure::from_error(name, e));
        }
        // A scatter whose output is bound to its data's buffer (DirectML's in-place form): only the updates are
        // written, after every index is checked.
        if let ([data, ix, up], [o]) = (&ins[..], &outs[..])
            && data.0 == o.0
            && matches!(op, Operator::ScatterElements(_) | Operator::ScatterNd(_))
        {
            for (k, b) in [(1, ix), (2, up)] {
                if !apart(o, b) {
                    let e = Error::OverlappingBuffers {
                        first: Operand::InputAt(k),
                        first_address: b.0 as usize,
                        first_bytes: b.1,
                        second: Operand::Output,
                        second_address: o.0 as usize,
                        second_bytes: o.1,
                    };
                    return Err(Failure::from_error(name, e));
                }
            }
            // SAFETY: the data buffer is readable for `data.1` and writable for `o.1` bytes, so both for the
            // shorter; the indices and updates are readable for their lengths and apart from it (checked above), so
            // the mutable slice aliases nothing.
            let (buffer, ix, up) = unsafe {
                (
                    core::slice::from_raw_parts_mut(o.0.cast::<u8>(), data.1.min(o.1)),
                    core::slice::from_raw_parts(ix.0.cast::<u8>().cast_const(), ix.1),
                    core::slice::from_raw_parts(up.0.cast::<u8>().cast_const(), up.1),
                )
            };
            let result = match op {
                Operator::ScatterElements(s) => s.execute_in_place(buffer, ix, up, &opts),
                Operator::ScatterNd(s) => s.execute_in_place(buffer, ix, up, &opts),
                _ => Err(Error::Internal { detail: "in-place scatter of another operator".to_owned() }),
            };
            return result.map_err(|e| Failure::from_error(name, e));
        }
        // Outputs apart from each other and from every input (inputs may share bytes: they are only read).
        let many_in = ins.len() > 1;
        let many_out = outs.len() > 1;
        let operand = |list: bool, k: usize, many: bool| match (list, many) {
            (false, false) => Operand::Input,
            (false, true) => Operand::InputAt(k),
            (true, false) => Operand::Output,
            (true, true) => Operand::OutputAt(k),
        };
        for (k, o) in outs.iter().enumerate() {
            let others = ins.iter().enumerate().map(|(i, b)| (operand(false, i, many_in), b));
            let others = others.chain(outs[..k].iter().enumerate().map(|(j, b)| (operand(true, j, many_out), b)));
            for (other, b) in others {
                if apart(o, b) {
                    continue;
                }
                let e = Error::OverlappingBuffers {
                    first: other,
                    first_address: b.0 as usize,
                    first_bytes: b.1,
                    second: operand(true, k, many_out),
                    second_address: o.0 as usize,
                    second_bytes: o.1,
                };
                return Err(Failure::from_error(name, e));
            }
        }
        // SAFETY: each input binding is readable for its length and each output binding writable for its length
        // (the caller's contract), all non-NULL and at most isize::MAX long; the outputs overlap neither each other
        // nor any input (checked above), so the mutable slices alias nothing.
        let (src, mut dst): (Vec<&[u8]>, Vec<&mut [u8]>) = unsafe {
            (
                ins.iter().map(|b| core::slice::from_raw_parts(b.0.cast::<u8>().cast_const(), b.1)).collect(),
                outs.iter().map(|b| core::slice::from_raw_parts_mut(b.0.cast::<u8>(), b.1)).collect(),
            )
        };
        op.execute_with(&src, &mut dst, &opts).map_err(|e| Failure::from_error(name, e))
    })
}

/// A buffer of a call: its address and length.
type Span = (*mut c_void, usize);

/// Whether two buffers share no byte.
fn apart(a: &Span, b: &Span) -> bool {
    let (a0, b0) = (a.0 as usize, b.0 as usize);
    a0.saturating_add(a.1) <= b0 || b0.saturating_add(b.1) <= a0
}

/// The `count` bindings at `p`, each checked for a NULL `Data` and a length no buffer can have; `list` names them
/// in messages (`inputs[2]`), or when `list` is a length parameter's name (`input_bytes`), that parameter.
///
/// # Safety
///
/// `p` is NULL or points to `count` readable bindings.
unsafe fn bindings(
    p: *const StriderBufferBinding,
    count: u32,
    list: &str,
    bytes_name: &str,
) -> Result<Vec<Span>, Failure> {
    if count == 0 {
        return Ok(Vec::new());
    }
    if p.is_null() {
        return Err(Failure::invalid(format!("{list} is NULL; it must point to {count} binding(s)")));
    }
    // SAFETY: `p` points to `count` readable bindings (the caller's contract).
    let all = unsafe { core::slice::from_raw_parts(p, count as usize) };
    let single = bytes_name.ends_with("_bytes");
    all.iter()
        .enumerate()
        .map(|(k, b)| {
            let (what, len_name) = if single {
                (bytes_name.trim_end_matches("_bytes").to_owned(), bytes_name.to_owned())
            } else {
                (format!("{list}[{k}].Data"), format!("{list}[{k}].SizeInBytes"))
            };
            if b.Data.is_null() {
                return Err(Failure::invalid(format!("{what} is NULL")));
            }
            let len = usize::try_from(b.SizeInBytes).ok().filter(|&n| n <= isize::MAX as usize).ok_or_else(|| {
                Failure::invalid(format!("{len_name} is {}, more than any buffer can hold", b.SizeInBytes))
            })?;
            Ok((b.Data, len))
        })
        .collect()
}

/// The Rust options `options` ask for.
fn exec_options(options: &StriderExecuteOptions) -> Result<ExecOptions, Failure> {
    let isa = match options.Isa {
        STRIDER_ISA_BEST => None,
        STRIDER_ISA_SCALAR => Some(Isa::Scalar),
        STRIDER_ISA_AVX2 => Some(Isa::V3),
        STRIDER_ISA_AVX512 => Some(Isa::V4),
        STRIDER_ISA_AVX512_VBMI => Some(Isa::V4Vbmi),
        other => {
            return Err(Failure::invalid(format!(
                "options->Isa is {other}; it must be a STRIDER_ISA_* value from 0 to {STRIDER_ISA_AVX512_VBMI}"
            )));
        }
    };
    let opts = ExecOptions { isa, ..ExecOptions::default() };
    Ok(match options.Threads {
        0 => opts,
        1 => opts.with_parallelism(Parallelism::Sequential),
        n if n <= STRIDER_MAX_THREADS => opts.with_threads(n as usize),
        n => {
            return Err(Failure::invalid(format!(
                "options->Threads is {n}; it must be 0 (Strider's shared pool) to STRIDER_MAX_THREADS \
                 ({STRIDER_MAX_THREADS})"
            )));
        }
    })
}

/// Frees an operator. NULL is a no-op.
///
/// # Safety
///
/// `op` is NULL or an operator from `strider_operator_create` not yet destroyed, which no other thread is using.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn strider_operator_destroy(op: *mut StriderOperator) {
    if !op.is_null() {
        // SAFETY: `op` came from `Box::into_raw` in `strider_operator_create` and is destroyed once (caller's
        // contract). Dropping an operator does not panic (it frees memory only).
        drop(unsafe { Box::from_raw(op) });
    }
}

/// `DMLCalcBufferTensorSize`: the least `TotalTensorSizeInBytes` of a tensor (the bytes through its last element,
/// rounded up to a multiple of 4). `strides` may be NULL (packed). Returns 0 for an invalid description, with a
/// message for `strider_last_error_message`.
///
/// # Safety
///
/// `sizes` and `strides` are NULL or point to `dimension_count` values.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn strider_calc_buffer_tensor_size(
    data_type: u32,
    dimension_count: u32,
    sizes: *const u32,
    strides: *const u32,
) -> u64 {
    let mut size = 0;
    guard(|| {
        let buffer = StriderBufferTensorDesc {
            DataType: data_type,
            Flags: STRIDER_TENSOR_FLAG_NONE,
            DimensionCount: dimension_count,
            Sizes: sizes,
            Strides: strides,
            TotalTensorSizeInBytes: u64::MAX,
            GuaranteedBaseOffsetAlignment: 0,
        };
        let tensor = StriderTensorDesc { Type: STRIDER_TENSOR_TYPE_BUFFER, Desc: (&raw const buffer).cast() };
        // SAFETY: `buffer` and `tensor` are live locals; `sizes` and `strides` are NULL or point to
        // `dimension_count` values (caller's contract).
        let desc = unsafe { read::tensor(&tensor, "tensor") }?;
        size = desc.min_buffer_size_in_bytes();
        Ok(())
    });
    size
}

/// This thread's last error message, or `""` when the last call succeeded. The text stays valid until this
/// thread's next call into Strider.
#[unsafe(no_mangle)]
pub extern "C" fn strider_last_error_message() -> *const c_char {
    LAST_ERROR.with(|e| e.borrow().as_ptr())
}

/// Strider's version, `"MAJOR.MINOR.PATCH"` (a static string).
#[unsafe(no_mangle)]
pub extern "C" fn strider_version() -> *const c_char {
    concat!(env!("CARGO_PKG_VERSION"), "\0").as_ptr().cast()
}

/// The `STRIDER_ISA_*` level Strider runs by default on this CPU (the widest available).
#[unsafe(no_mangle)]
pub extern "C" fn strider_best_isa() -> u32 {
    match Isa::best() {
        Isa::Scalar => STRIDER_ISA_SCALAR,
        Isa::V3 => STRIDER_ISA_AVX2,
        Isa::V4 => STRIDER_ISA_AVX512,
        _ => STRIDER_ISA_AVX512_VBMI,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn data_type_constants_are_directml_values() {
        let constants = [
            (DataType::Float32, STRIDER_TENSOR_DATA_TYPE_FLOAT32),
            (DataType::Float16, STRIDER_TENSOR_DATA_TYPE_FLOAT16),
            (DataType::Uint32, STRIDER_TENSOR_DATA_TYPE_UINT32),
            (DataType::Uint16, STRIDER_TENSOR_DATA_TYPE_UINT16),
            (DataType::Uint8, STRIDER_TENSOR_DATA_TYPE_UINT8),
            (DataType::Int32, STRIDER_TENSOR_DATA_TYPE_INT32),
            (DataType::Int16, STRIDER_TENSOR_DATA_TYPE_INT16),
            (DataType::Int8, STRIDER_TENSOR_DATA_TYPE_INT8),
            (DataType::Float64, STRIDER_TENSOR_DATA_TYPE_FLOAT64),
            (DataType::Uint64, STRIDER_TENSOR_DATA_TYPE_UINT64),
            (DataType::Int64, STRIDER_TENSOR_DATA_TYPE_INT64),
        ];
        assert_eq!(constants.len(), DataType::ALL.len());
        for (dt, value) in constants {
            assert_eq!(dt.dml_value(), value, "{dt}");
            assert_eq!(DataType::from_dml_value(value), Some(dt));
        }
        assert_eq!(DataType::from_dml_value(STRIDER_TENSOR_DATA_TYPE_UNKNOWN), None);
        assert_eq!(DataType::from_dml_value(12), None);
    }

    #[test]
    fn a_panic_becomes_an_internal_error_with_its_message() {
        let status = guard(|| panic!("boom {}", 42));
        assert_eq!(status, StriderStatus::STRIDER_INTERNAL);
        let message = unsafe { core::ffi::CStr::from_ptr(strider_last_error_message()) };
        assert_eq!(message.to_str().unwrap(), "internal error in strider (please report it): boom 42");
        assert_eq!(guard(|| Ok(())), StriderStatus::STRIDER_OK);
        let message = unsafe { core::ffi::CStr::from_ptr(strider_last_error_message()) };
        assert_eq!(message.to_bytes(), b"");
    }
}
