//! NumPy arrays seen as DirectML tensors, without copying.
//!
//! NumPy strides are in bytes and signed; DirectML's are in elements and unsigned. A dimension with a negative stride
//! is a *reversed* dimension ([`TensorDesc::with_reversed_dims`]) of the tensor that starts at the array's lowest
//! address: the view's tensor is the array in the caller's coordinates, so every operator takes it as it is and
//! every error names the caller's axes.

use numpy::npyffi::NPY_ARRAY_WRITEABLE;
use numpy::{PyArrayDescr, PyArrayDescrMethods, PyUntypedArray, PyUntypedArrayMethods};
use pyo3::exceptions::{PyTypeError, PyValueError};
use pyo3::prelude::*;
use pyo3::sync::PyOnceLock;
use pyo3::types::{PyDict, PyTuple, PyType};
use strider_core::{DataType, Error, MAX_RANK, TensorDesc};

/// `strider.DTypeError`, raised for dtype problems: a subclass of both `TypeError` (what Python raises for a wrong
/// type) and `ValueError` (what Strider raises for a bad argument), so that either `except` catches it.
pub(crate) fn dtype_error_type(py: Python<'_>) -> PyResult<&Bound<'_, PyType>> {
    static TYPE: PyOnceLock<Py<PyType>> = PyOnceLock::new();
    TYPE.get_or_try_init(py, || {
        let bases = PyTuple::new(py, [py.get_type::<PyTypeError>(), py.get_type::<PyValueError>()])?;
        let attrs = PyDict::new(py);
        attrs.set_item("__module__", "strider")?;
        attrs.set_item("__doc__", "A dtype Strider does not take here (a TypeError and a ValueError).")?;
        let ty = py.get_type::<PyType>().call1(("DTypeError", bases, attrs))?;
        Ok(ty.cast_into::<PyType>()?.unbind())
    })
    .map(|t| t.bind(py))
}

/// A `strider.DTypeError` with `message`.
pub(crate) fn dtype_error(message: String) -> PyErr {
    Python::attach(|py| match dtype_error_type(py) {
        Ok(ty) => PyErr::from_type(ty.clone(), message),
        Err(e) => e,
    })
}

/// Strider's error as the Python exception the functions document: `strider.DTypeError` for a dtype problem,
/// `ValueError` otherwise, with Strider's message.
/// `n dimensions`, or `1 dimension`, for messages.
pub(crate) fn dimensions(n: usize) -> String {
    match n {
        1 => "1 dimension".to_owned(),
        n => format!("{n} dimensions"),
    }
}

pub(crate) fn strider_error(e: Error) -> PyErr {
    match e {
        Error::OperandDataTypeMismatch { .. }
        | Error::DataTypeMismatch { .. }
        | Error::ScalarDataTypeMismatch { .. }
        | Error::UnsupportedDataType { .. } => dtype_error(e.to_string()),
        _ => PyValueError::new_err(e.to_string()),
    }
}

/// The data type of a NumPy dtype, or a `DTypeError` (a `ValueError` for a byte order the CPU does not use).
pub(crate) fn data_type(descr: &Bound<'_, PyArrayDescr>, what: &str) -> PyResult<DataType> {
    let dt = match (descr.kind(), descr.itemsize()) {
        (b'f', 2) => DataType::Float16,
        (b'f', 4) => DataType::Float32,
        (b'f', 8) => DataType::Float64,
        (b'i', 1) => DataType::Int8,
        (b'i', 2) => DataType::Int16,
        (b'i', 4) => DataType::Int32,
        (b'i', 8) => DataType::Int64,
        (b'u', 1) => DataType::Uint8,
        (b'u', 2) => DataType::Uint16,
        (b'u', 4) => DataType::Uint32,
        (b'u', 8) => DataType::Uint64,
        _ => {
            return Err(dtype_error(format!(
                "{what} has dtype {descr}; strider takes float16/32/64, int8/16/32/64 and uint8/16/32/64"
            )));
        }
    };
    if descr.is_native_byteorder() == Some(false) {
        return Err(PyValueError::new_err(format!(
            "{what} has dtype {descr}, whose byte order is not this CPU's; convert it with .astype({descr}.newbyteorder('='))"
        )));
    }
    Ok(dt)
}

/// The NumPy dtype of a `dtype` argument: anything `numpy.dtype()` accepts.
pub(crate) fn dtype_arg<'py>(
    py: Python<'py>,
    dtype: &Bound<'py, PyAny>,
) -> PyResult<(DataType, Bound<'py, PyArrayDescr>)> {
    let descr = PyArrayDescr::new(py, dtype)?;
    Ok((data_type(&descr, "dtype")?, descr))
}

/// What identifies an array's layout: two arrays with equal layouts get the same plan.
#[derive(Clone, Debug, PartialEq, Eq)]
pub(crate) struct Layout {
    pub(crate) dtype: DataType,
    pub(crate) shape: Vec<usize>,
    pub(crate) byte_strides: Vec<isize>,
}

/// An array as a DirectML tensor: the layout, the tensor, and where its bytes are.
#[derive(Debug)]
pub(crate) struct View {
    pub(crate) layout: Layout,
    /// The array as a tensor in its own coordinates: strides from the lowest element, reversed where NumPy's stride
    /// is negative (0-dimensional arrays are 1-element tensors of rank 1).
    pub(crate) desc: TensorDesc,
    /// Address of the lowest element.
    pub(crate) base: usize,
    /// Bytes from `base` through the last byte of the highest element.
    pub(crate) bytes: usize,
    pub(crate) writeable: bool,
}

impl View {
    /// The view of `array`; `what` names it in messages (`x`, `out`).
    pub(crate) fn new(array: &Bound<'_, PyUntypedArray>, what: &str) -> PyResult<View> {
        let dtype = data_type(&array.dtype(), what)?;
        let shape = array.shape().to_vec();
        let byte_strides = array.strides().to_vec();
        if shape.len() > MAX_RANK {
            return Err(PyValueError::new_err(format!(
                "{what} has {} dimensions; DirectML tensors have at most {MAX_RANK}",
                shape.len()
            )));
        }
        if let Some(axis) = shape.iter().position(|&n| n == 0) {
            return Err(PyValueError::new_err(format!(
                "{what} has shape {shape:?}: axis {axis} is empty, and DirectML tensors have sizes of at least 1"
            )));
        }
        let item = dtype.size_in_bytes() as isize;
        let (mut sizes, mut strides, mut flipped) = (Vec::new(), Vec::new(), Vec::new());
        // Bytes from NumPy's data pointer back to the lowest element (flipped dimensions start at their far end).
        let mut back: usize = 0;
        for (axis, (&n, &s)) in shape.iter().zip(&byte_strides).enumerate() {
            let size = u32::try_from(n).map_err(|_| {
                PyValueError::new_err(format!("{what} has {n} elements along axis {axis}; DirectML sizes are 32-bit"))
            })?;
            // A stride of a 1-element axis is never used: NumPy leaves arbitrary values there.
            let s = if n == 1 { 0 } else { s };
            if s.checked_rem(item) != Some(0) {
                return Err(PyValueError::new_err(format!(
                    "{what} has a stride of {s} bytes along axis {axis}, not a multiple of its {item}-byte items; \
                     DirectML strides count whole elements (copy it with numpy.ascontiguousarray first)"
                )));
            }
            let elements =
                u32::try_from(s.unsigned_abs().checked_div(item.unsigned_abs()).unwrap_or(0)).map_err(|_| {
                    PyValueError::new_err(format!(
                        "{what} has a stride of {s} bytes along axis {axis}; DirectML strides are 32-bit element counts"
                    ))
                })?;
            if s < 0 {
                back = n
                    .saturating_sub(1)
                    .checked_mul(s.unsigned_abs())
                    .and_then(|b| back.checked_add(b))
                    .ok_or_else(|| PyValueError::new_err(format!("{what} spans more bytes than memory holds")))?;
            }
            sizes.push(size);
            strides.push(elements);
            flipped.push(s < 0);
        }
        if shape.is_empty() {
            (sizes, strides, flipped) = (vec![1], vec![1], vec![false]);
        }
        let reversed: Vec<usize> = (0..flipped.len()).filter(|&d| flipped[d]).collect();
        let desc = TensorDesc::with_strides(dtype, &sizes, &strides)
            .and_then(|d| d.with_reversed_dims(&reversed))
            .map_err(|e| PyValueError::new_err(format!("{what}: {e}")))?;
        let bytes = usize::try_from(desc.addressed_bytes())
            .map_err(|_| PyValueError::new_err(format!("{what} spans more bytes than memory holds")))?;
        // SAFETY: `as_array_ptr` is a live PyArrayObject (we hold `array`); reading two of its fields.
        let (data, flags) = unsafe {
            let fields = &(*array.as_array_ptr()).fields;
            (fields.data as usize, fields.flags)
        };
        let base = data
            .checked_sub(back)
            .ok_or_else(|| PyValueError::new_err(format!("{what} has an invalid data pointer")))?;
        Ok(View {
            layout: Layout { dtype, shape, byte_strides },
            desc,
            base,
            bytes,
            writeable: flags & NPY_ARRAY_WRITEABLE != 0,
        })
    }

    /// Whether the bytes of two views intersect.
    pub(crate) fn overlaps(&self, other: &View) -> bool {
        self.base < other.base.saturating_add(other.bytes) && other.base < self.base.saturating_add(self.bytes)
    }
}
