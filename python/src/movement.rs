//! The data-movement family for NumPy arrays: `pad`, `join`, `split`, `tile`, `depth_to_space`, `space_to_depth`,
//! `fill` and `fill_sequence`. Each call builds Strider's [`OperatorDesc`] on the arrays' tensors — a dimension
//! with a negative NumPy stride is a reversed dimension ([`strider_core::TensorDesc::with_reversed_dims`]), so no array is ever
//! copied — plans it (plans are cached per description) and runs it with the GIL released.

use std::sync::{Arc, Mutex};

use numpy::{PyUntypedArray, PyUntypedArrayMethods};
use pyo3::exceptions::PyValueError;
use pyo3::prelude::*;
use pyo3::types::PyList;
use strider_core::{DataType, DepthSpaceOrder, Error, Operator, OperatorDesc, PaddingMode, Scalar};

use crate::view::{View, dimensions, dtype_error, strider_error};
use crate::{GIL_RELEASE_BYTES, as_array, descr_of, empty, thread_choice, u32s};

/// Plans, most recent first: a call that repeats a description skips planning.
static PLANS: Mutex<Vec<(OperatorDesc, Arc<Operator>)>> = Mutex::new(Vec::new());
const PLANS_KEPT: usize = 32;

pub(crate) fn planned(desc: OperatorDesc) -> PyResult<Arc<Operator>> {
    crate::kept(&PLANS, desc, PLANS_KEPT, |d| d.build().map_err(strider_error))
}

/// Runs `op` on the views' memory. An output that shares bytes with an input reads that input from a copy taken
/// first; outputs must not share bytes with each other.
pub(crate) fn run(
    py: Python<'_>,
    op: Arc<Operator>,
    ins: &[&View],
    outs: &[&View],
    threads: Option<i64>,
) -> PyResult<()> {
    let opts = thread_choice(threads)?;
    for (k, o) in outs.iter().enumerate() {
        if !o.writeable {
            return Err(PyValueError::new_err(if outs.len() > 1 {
                format!("outs[{k}] is read-only")
            } else {
                "out is read-only".to_owned()
            }));
        }
        if outs[..k].iter().any(|p| p.overlaps(o)) {
            return Err(PyValueError::new_err(format!("outs[{k}] shares memory with an earlier output")));
        }
    }
    // SAFETY (each slice below): a view's [base, base + bytes) holds its elements inside its NumPy buffer, alive
    // for the call (the caller holds the arrays); another Python thread writing them during the call is a data race
    // the caller must avoid, as with any NumPy operation that releases the GIL.
    let copies: Vec<Option<Vec<u8>>> = ins
        .iter()
        .map(|x| {
            outs.iter()
                .any(|o| o.overlaps(x))
                .then(|| unsafe { std::slice::from_raw_parts(x.base as *const u8, x.bytes) }.to_vec())
        })
        .collect();
    let in_spans: Vec<(usize, usize)> = ins.iter().map(|x| (x.base, x.bytes)).collect();
    let out_spans: Vec<(usize, usize)> = outs.iter().map(|o| (o.base, o.bytes)).collect();
    let total: usize = out_spans.iter().map(|s| s.1).fold(0, usize::saturating_add);
    let work = move || -> Result<(), Error> {
        // SAFETY: as above; inputs that overlap an output are read from their copies, and outputs do not overlap
        // each other (checked above), so the mutable slices alias nothing.
        let inputs: Vec<&[u8]> = in_spans
            .iter()
            .zip(&copies)
            .map(|(&(b, n), copy)| match copy {
                Some(c) => c.as_slice(),
                None => unsafe { std::slice::from_raw_parts(b as *const u8, n) },
            })
            .collect();
        // SAFETY: as above.
        let mut outputs: Vec<&mut [u8]> =
            out_spans.iter().map(|&(b, n)| unsafe { std::slice::from_raw_parts_mut(b as *mut u8, n) }).collect();
        op.execute_with(&inputs, &mut outputs, &opts)
    };
    let result = if total < GIL_RELEASE_BYTES { work() } else { py.detach(work) };
    result.map_err(strider_error)
}

/// A new C-ordered array of `shape` and dtype `dt`, with its view.
fn new_array<'py>(
    py: Python<'py>,
    shape: &[usize],
    dt: DataType,
    what: &str,
) -> PyResult<(Bound<'py, PyUntypedArray>, View)> {
    let a = empty(py, shape, descr_of(py, dt)?)?;
    let v = View::new(&a, what)?;
    Ok((a, v))
}

/// An existing output array `out` (checked for dtype and shape), with its view.
fn given<'py>(
    py: Python<'py>,
    out: &Bound<'py, PyAny>,
    dt: DataType,
    shape: &[usize],
    what: &str,
) -> PyResult<(Bound<'py, PyUntypedArray>, View)> {
    let a = as_array(py, out)?;
    let v = View::new(&a, what)?;
    if v.layout.dtype != dt {
        return Err(dtype_error(format!(
            "{what} has dtype {} but the result is {}",
            v.layout.dtype.short_name(),
            dt.short_name()
        )));
    }
    if a.shape() != shape {
        return Err(PyValueError::new_err(format!(
            "{what} has shape {:?} but the result has shape {shape:?}",
            a.shape()
        )));
    }
    Ok((a, v))
}

/// The output array: `out` when given, else a new one.
pub(crate) fn output<'py>(
    py: Python<'py>,
    out: Option<&Bound<'py, PyAny>>,
    dt: DataType,
    shape: &[usize],
) -> PyResult<(Bound<'py, PyAny>, View)> {
    match out {
        Some(o) => {
            let (_, v) = given(py, o, dt, shape, "out")?;
            Ok((o.clone(), v))
        }
        None => {
            let (a, v) = new_array(py, shape, dt, "out")?;
            Ok((a.into_any(), v))
        }
    }
}

/// `x` as an array of at least one dimension.
fn input<'py>(py: Python<'py>, x: &Bound<'py, PyAny>, what: &str, function: &str) -> PyResult<View> {
    let a = as_array(py, x)?;
    if a.ndim() == 0 {
        return Err(PyValueError::new_err(format!(
            "{function} takes arrays of 1 to 8 dimensions; {what} is 0-dimensional"
        )));
    }
    View::new(&a, what)
}

/// Axis `axis` of `ndim` dimensions by Python's rule.
pub(crate) fn axis_of(axis: i64, ndim: usize, name: &str) -> PyResult<usize> {
    let n = i64::try_from(ndim).unwrap_or(i64::MAX);
    let a = if axis < 0 { axis.saturating_add(n) } else { axis };
    usize::try_from(a)
        .ok()
        .filter(|&a| a < ndim)
        .ok_or_else(|| PyValueError::new_err(format!("{name}={axis} is not an axis of a {ndim}-dimensional array")))
}

/// A Python number as a scalar of `dt`: a float as f64, an int as a 64-bit integer (an unsigned one beyond
/// `i64::MAX`), then converted by `strider.cast`'s rules.
pub(crate) fn scalar(v: &Bound<'_, PyAny>, dt: DataType, name: &str) -> PyResult<Scalar> {
    let wide = if let Ok(i) = v.extract::<i64>() {
        Scalar::from(i)
    } else if let Ok(u) = v.extract::<u64>() {
        Scalar::from(u)
    } else if let Ok(f) = v.extract::<f64>() {
        Scalar::from(f)
    } else {
        return Err(PyValueError::new_err(format!("{name} must be an int or a float")));
    };
    Ok(wide.cast(dt))
}

fn sizes_of(v: &View) -> Vec<usize> {
    v.layout.shape.clone()
}

/// DML_PADDING1: `np.pad(x, list(zip(start, end)), mode)`, with `value` for `mode="constant"`.
///
/// `start`, `end`: elements added before and after each axis (one per axis of x). `mode`: "constant" (`value`,
/// default 0), "edge", "reflect", "symmetric" or "wrap"; borders wider than x fold as NumPy's do. `value` (an int
/// is taken as a 64-bit integer, a float as a float64) converts to x's dtype by `cast`'s rules. `out=`: write here
/// (any writable array of the padded shape and x's dtype, returned); `threads` as in `normalize`.
///
/// Example: letterbox a 480x640 RGB image into 640x640 with gray borders:
///
///     boxed = strider.pad(img, [80, 0, 0], [80, 0, 0], value=114)
#[pyfunction]
#[pyo3(signature = (x, start, end, mode="constant", value=None, *, out=None, threads=None))]
#[allow(clippy::too_many_arguments)]
pub(crate) fn pad<'py>(
    py: Python<'py>,
    x: &Bound<'py, PyAny>,
    start: Vec<i64>,
    end: Vec<i64>,
    mode: &str,
    value: Option<&Bound<'py, PyAny>>,
    out: Option<&Bound<'py, PyAny>>,
    threads: Option<i64>,
) -> PyResult<Bound<'py, PyAny>> {
    let xv = input(py, x, "x", "pad")?;
    let mode = match mode {
        "constant" => PaddingMode::Constant,
        "edge" => PaddingMode::Edge,
        "reflect" => PaddingMode::Reflection,
        "symmetric" => PaddingMode::Symmetric,
        "wrap" => PaddingMode::Wrap,
        other => {
            return Err(PyValueError::new_err(format!(
                "mode={other:?}; it must be \"constant\", \"edge\", \"reflect\", \"symmetric\" or \"wrap\""
            )));
        }
    };
    let (start, end) = (u32s(start, "start")?, u32s(end, "end")?);
    let ndim = xv.layout.shape.len();
    for (name, v) in [("start", &start), ("end", &end)] {
        if v.len() != ndim {
            return Err(PyValueError::new_err(format!("{name} has {} values but x has {}", v.len(), dimensions(ndim))));
        }
    }
    let dt = xv.layout.dtype;
    let shape: Vec<usize> = sizes_of(&xv)
        .iter()
        .zip(start.iter().zip(&end))
        .map(|(&n, (&s, &e))| n.saturating_add(s as usize).saturating_add(e as usize))
        .collect();
    let value = match value {
        Some(v) => scalar(v, dt, "value")?,
        None => Scalar::from(0u8).cast(dt),
    };
    let (result, ov) = output(py, out, dt, &shape)?;
    let desc = OperatorDesc::Padding { input: xv.desc.clone(), output: ov.desc.clone(), mode, value, start, end };
    run(py, planned(desc)?, &[&xv], &[&ov], threads)?;
    Ok(result)
}

/// DML_JOIN: `np.concatenate(arrays, axis)`.
///
/// `arrays`: one dtype, shapes equal except along `axis` (negative counts from the end); any strides, views read
/// in place. `out=`: write here (any writable array of the joined shape, returned); `threads` as in `normalize`.
///
/// Example: a batch from single images without a Python loop over bytes:
///
///     batch = strider.join([a[None], b[None], c[None]], axis=0)
#[pyfunction]
#[pyo3(signature = (arrays, axis=0, *, out=None, threads=None))]
pub(crate) fn join<'py>(
    py: Python<'py>,
    arrays: Vec<Bound<'py, PyAny>>,
    axis: i64,
    out: Option<&Bound<'py, PyAny>>,
    threads: Option<i64>,
) -> PyResult<Bound<'py, PyAny>> {
    if arrays.is_empty() {
        return Err(PyValueError::new_err("arrays is empty; join needs at least one array"));
    }
    let views: Vec<View> = arrays
        .iter()
        .enumerate()
        .map(|(i, a)| input(py, a, &format!("arrays[{i}]"), "join"))
        .collect::<PyResult<_>>()?;
    let first = &views[0];
    let dt = first.layout.dtype;
    if let Some((i, v)) = views.iter().enumerate().find(|(_, v)| v.layout.dtype != dt) {
        return Err(dtype_error(format!(
            "arrays[{i}] has dtype {} but arrays[0] has {}",
            v.layout.dtype.short_name(),
            dt.short_name()
        )));
    }
    let ndim = first.layout.shape.len();
    let a = axis_of(axis, ndim, "axis")?;
    let mut shape = sizes_of(first);
    shape[a] = views.iter().map(|v| v.layout.shape.get(a).copied().unwrap_or(0)).fold(0, usize::saturating_add);
    let (result, ov) = output(py, out, dt, &shape)?;
    let desc = OperatorDesc::Join {
        inputs: views.iter().map(|v| v.desc.clone()).collect(),
        output: ov.desc.clone(),
        axis: a as u32,
    };
    let ins: Vec<&View> = views.iter().collect();
    run(py, planned(desc)?, &ins, &[&ov], threads)?;
    Ok(result)
}

/// DML_SPLIT: consecutive blocks of `x` along `axis`, block k `sizes[k]` long (the sizes sum to x's length along
/// `axis`); returns a list of new arrays, or writes into `outs` (writable arrays of the blocks' shapes, which must
/// not share memory with each other). `threads` as in `normalize`.
///
/// Example: planes of an NCHW batch:
///
///     r, g, b = strider.split(batch, [1, 1, 1], axis=1)
#[pyfunction]
#[pyo3(signature = (x, sizes, axis=0, *, outs=None, threads=None))]
pub(crate) fn split<'py>(
    py: Python<'py>,
    x: &Bound<'py, PyAny>,
    sizes: Vec<i64>,
    axis: i64,
    outs: Option<Bound<'py, PyAny>>,
    threads: Option<i64>,
) -> PyResult<Bound<'py, PyAny>> {
    let given_outs = outs;
    let outs: Option<Vec<Bound<'py, PyAny>>> = match &given_outs {
        Some(o) => Some(o.try_iter()?.collect::<PyResult<_>>()?),
        None => None,
    };
    let xv = input(py, x, "x", "split")?;
    let sizes = u32s(sizes, "sizes")?;
    if sizes.is_empty() {
        return Err(PyValueError::new_err("sizes is empty; split makes at least one block"));
    }
    if let Some(k) = sizes.iter().position(|&n| n == 0) {
        return Err(PyValueError::new_err(format!("sizes[{k}] is 0; every block needs at least one element")));
    }
    let a = axis_of(axis, xv.layout.shape.len(), "axis")?;
    let dt = xv.layout.dtype;
    let shape_of = |k: usize| {
        let mut s = sizes_of(&xv);
        s[a] = sizes[k] as usize;
        s
    };
    if let Some(o) = &outs
        && o.len() != sizes.len()
    {
        return Err(PyValueError::new_err(format!("outs has {} arrays but sizes has {}", o.len(), sizes.len())));
    }
    let mut results = Vec::with_capacity(sizes.len());
    let mut views = Vec::with_capacity(sizes.len());
    for k in 0..sizes.len() {
        let (r, v) = match &outs {
            Some(o) => {
                let (_, v) = given(py, &o[k], dt, &shape_of(k), &format!("outs[{k}]"))?;
                (o[k].clone(), v)
            }
            None => {
                let (arr, v) = new_array(py, &shape_of(k), dt, &format!("outs[{k}]"))?;
                (arr.into_any(), v)
            }
        };
        results.push(r);
        views.push(v);
    }
    let desc = OperatorDesc::Split {
        input: xv.desc.clone(),
        outputs: views.iter().map(|v| v.desc.clone()).collect(),
        axis: a as u32,
    };
    let out_views: Vec<&View> = views.iter().collect();
    run(py, planned(desc)?, &[&xv], &out_views, threads)?;
    match given_outs {
        Some(o) => Ok(o),
        None => Ok(PyList::new(py, results)?.into_any()),
    }
}

/// DML_TILE: `np.tile(x, repeats)` with exactly one repeat (at least 1) per axis of x. `out=`, `threads` as in
/// `pad`.
///
/// Example:
///
///     strider.tile(np.array([[1, 2]]), [2, 3])   # [[1, 2, 1, 2, 1, 2], [1, 2, 1, 2, 1, 2]]
#[pyfunction]
#[pyo3(signature = (x, repeats, *, out=None, threads=None))]
pub(crate) fn tile<'py>(
    py: Python<'py>,
    x: &Bound<'py, PyAny>,
    repeats: Vec<i64>,
    out: Option<&Bound<'py, PyAny>>,
    threads: Option<i64>,
) -> PyResult<Bound<'py, PyAny>> {
    let xv = input(py, x, "x", "tile")?;
    let repeats = u32s(repeats, "repeats")?;
    let ndim = xv.layout.shape.len();
    if repeats.len() != ndim {
        return Err(PyValueError::new_err(format!(
            "repeats has {} values but x has {}; give exactly one per dimension",
            repeats.len(),
            dimensions(ndim)
        )));
    }
    if let Some(dim) = repeats.iter().position(|&r| r == 0) {
        return Err(strider_error(Error::ZeroRepeat { dim }));
    }
    let shape: Vec<usize> = sizes_of(&xv).iter().zip(&repeats).map(|(&n, &r)| n.saturating_mul(r as usize)).collect();
    let (result, ov) = output(py, out, xv.layout.dtype, &shape)?;
    let desc = OperatorDesc::Tile { input: xv.desc.clone(), output: ov.desc.clone(), repeats };
    run(py, planned(desc)?, &[&xv], &[&ov], threads)?;
    Ok(result)
}

fn depth_order(mode: &str) -> PyResult<DepthSpaceOrder> {
    match mode {
        "DCR" => Ok(DepthSpaceOrder::DepthColumnRow),
        "CRD" => Ok(DepthSpaceOrder::ColumnRowDepth),
        other => Err(PyValueError::new_err(format!("mode={other:?}; it must be \"DCR\" or \"CRD\""))),
    }
}

/// The output shape of depth↔space, or a ValueError.
fn depth_space_shape(x: &View, b: u32, to_space: bool) -> PyResult<Vec<usize>> {
    let s = &x.layout.shape;
    if s.len() != 4 {
        return Err(PyValueError::new_err(format!("x has {}; depth↔space takes 4 (N, C, H, W)", dimensions(s.len()))));
    }
    let b = b as usize;
    if b == 0 {
        return Err(PyValueError::new_err("block_size is 0; it must be at least 1"));
    }
    let bb = b.saturating_mul(b);
    let div = |n: usize, d: usize| n.checked_div(d).unwrap_or(0);
    Ok(if to_space {
        if !s[1].is_multiple_of(bb) {
            return Err(PyValueError::new_err(format!(
                "x has {} channels, not a multiple of block_size² ({bb})",
                s[1]
            )));
        }
        vec![s[0], div(s[1], bb), s[2].saturating_mul(b), s[3].saturating_mul(b)]
    } else {
        if !s[2].is_multiple_of(b) || !s[3].is_multiple_of(b) {
            return Err(PyValueError::new_err(format!(
                "x has height {} and width {}; both must be multiples of block_size ({b})",
                s[2], s[3]
            )));
        }
        vec![s[0], s[1].saturating_mul(bb), div(s[2], b), div(s[3], b)]
    })
}

fn depth_space<'py>(
    py: Python<'py>,
    x: &Bound<'py, PyAny>,
    block_size: i64,
    mode: &str,
    out: Option<&Bound<'py, PyAny>>,
    threads: Option<i64>,
    to_space: bool,
) -> PyResult<Bound<'py, PyAny>> {
    let name = if to_space { "depth_to_space" } else { "space_to_depth" };
    let xv = input(py, x, "x", name)?;
    let order = depth_order(mode)?;
    let b = u32::try_from(block_size)
        .map_err(|_| PyValueError::new_err(format!("block_size={block_size}; it must be 1 to 2**32-1")))?;
    let shape = depth_space_shape(&xv, b, to_space)?;
    let (result, ov) = output(py, out, xv.layout.dtype, &shape)?;
    let (input, output) = (xv.desc.clone(), ov.desc.clone());
    let desc = if to_space {
        OperatorDesc::DepthToSpace { input, output, block_size: b, order }
    } else {
        OperatorDesc::SpaceToDepth { input, output, block_size: b, order }
    };
    run(py, planned(desc)?, &[&xv], &[&ov], threads)?;
    Ok(result)
}

/// DML_DEPTH_TO_SPACE1 (ONNX DepthToSpace) of an NCHW array: `(N, C, H, W)` to `(N, C/b², H·b, W·b)` with
/// `b = block_size`. `mode`: "DCR" (depth, column, row: ONNX's default) or "CRD" (column, row, depth: PyTorch's
/// `pixel_shuffle`). `out=`, `threads` as in `pad`.
///
/// Example: PyTorch's `pixel_shuffle(x, 2)`:
///
///     y = strider.depth_to_space(x, 2, mode="CRD")
#[pyfunction]
#[pyo3(signature = (x, block_size, mode="DCR", *, out=None, threads=None))]
pub(crate) fn depth_to_space<'py>(
    py: Python<'py>,
    x: &Bound<'py, PyAny>,
    block_size: i64,
    mode: &str,
    out: Option<&Bound<'py, PyAny>>,
    threads: Option<i64>,
) -> PyResult<Bound<'py, PyAny>> {
    depth_space(py, x, block_size, mode, out, threads, true)
}

/// DML_SPACE_TO_DEPTH1 (ONNX SpaceToDepth) of an NCHW array, the inverse of `depth_to_space`: `(N, C, H, W)` to
/// `(N, C·b², H/b, W/b)`; H and W must be multiples of `block_size`. `mode`, `out=`, `threads` as in
/// `depth_to_space`.
///
/// Example: `strider.space_to_depth(strider.depth_to_space(x, 2), 2)` equals `x`.
#[pyfunction]
#[pyo3(signature = (x, block_size, mode="DCR", *, out=None, threads=None))]
pub(crate) fn space_to_depth<'py>(
    py: Python<'py>,
    x: &Bound<'py, PyAny>,
    block_size: i64,
    mode: &str,
    out: Option<&Bound<'py, PyAny>>,
    threads: Option<i64>,
) -> PyResult<Bound<'py, PyAny>> {
    depth_space(py, x, block_size, mode, out, threads, false)
}

/// DML_FILL_VALUE_CONSTANT: `out[...] = value` on any writable array (any strides), returned. `value` (an int is
/// taken as a 64-bit integer, a float as a float64) converts to out's dtype by `cast`'s rules. `threads` as in
/// `normalize`.
///
/// Example: `strider.fill(np.empty((2, 3), np.float16), 0.5)`
#[pyfunction]
#[pyo3(signature = (out, value, *, threads=None))]
pub(crate) fn fill<'py>(
    py: Python<'py>,
    out: &Bound<'py, PyAny>,
    value: &Bound<'py, PyAny>,
    threads: Option<i64>,
) -> PyResult<Bound<'py, PyAny>> {
    let a = as_array(py, out)?;
    let ov = View::new(&a, "out")?;
    let value = scalar(value, ov.layout.dtype, "value")?;
    let desc = OperatorDesc::FillValueConstant { output: ov.desc.clone(), value };
    run(py, planned(desc)?, &[], &[&ov], threads)?;
    Ok(out.clone())
}

/// DML_FILL_VALUE_SEQUENCE: `out` holds `start + i * delta` at C-order index `i` (any writable array, returned):
/// `np.arange` into any shape and strides. Integer dtypes compute in 64-bit integers and wrap; float dtypes compute
/// each element in float64 and round once. `threads` as in `normalize`.
///
/// Example: `strider.fill_sequence(np.empty((2, 3), np.int32), 10, 2)`   # [[10, 12, 14], [16, 18, 20]]
#[pyfunction]
#[pyo3(signature = (out, start, delta, *, threads=None))]
pub(crate) fn fill_sequence<'py>(
    py: Python<'py>,
    out: &Bound<'py, PyAny>,
    start: &Bound<'py, PyAny>,
    delta: &Bound<'py, PyAny>,
    threads: Option<i64>,
) -> PyResult<Bound<'py, PyAny>> {
    let a = as_array(py, out)?;
    let ov = View::new(&a, "out")?;
    let dt = ov.layout.dtype;
    // Floats pass start and delta exactly (f64); integers their 64 bits (the arithmetic wraps in the type).
    let exact = |v: &Bound<'_, PyAny>, name: &str| -> PyResult<Scalar> {
        let s = scalar(v, DataType::Float64, name)?;
        if dt.is_float() {
            return Ok(s);
        }
        match (v.extract::<i64>(), v.extract::<u64>()) {
            (Ok(i), _) => Ok(Scalar::from(i)),
            (_, Ok(u)) => Ok(Scalar::from(u)),
            _ => Ok(s.cast(DataType::Int64)),
        }
    };
    let desc = OperatorDesc::FillValueSequence {
        output: ov.desc.clone(),
        start: exact(start, "start")?,
        delta: exact(delta, "delta")?,
    };
    run(py, planned(desc)?, &[], &[&ov], threads)?;
    Ok(out.clone())
}

/// Registers the functions.
pub(crate) fn register(m: &Bound<'_, PyModule>) -> PyResult<()> {
    m.add_function(wrap_pyfunction!(pad, m)?)?;
    m.add_function(wrap_pyfunction!(join, m)?)?;
    m.add_function(wrap_pyfunction!(split, m)?)?;
    m.add_function(wrap_pyfunction!(tile, m)?)?;
    m.add_function(wrap_pyfunction!(depth_to_space, m)?)?;
    m.add_function(wrap_pyfunction!(space_to_depth, m)?)?;
    m.add_function(wrap_pyfunction!(fill, m)?)?;
    m.add_function(wrap_pyfunction!(fill_sequence, m)?)?;
    Ok(())
}
