//! Index-driven movement for NumPy arrays: `gather` (`np.take`), `gather_elements` (`np.take_along_axis`),
//! `gather_nd` (ONNX GatherND), `scatter_elements` (ONNX ScatterElements), `scatter_nd` (ONNX ScatterND) and
//! `one_hot` (ONNX OneHot). Each maps NumPy's shapes onto DirectML's (every tensor of one rank, meaningful sizes
//! right-aligned), builds Strider's [`OperatorDesc`] on the arrays' own strides and runs it like the movement
//! family. Indices are int32, uint32, int64 or uint64 arrays (a Python list becomes int64); negative ones count
//! from the end; one outside its axis raises `ValueError` and writes nothing.

// Dimension arithmetic only: ranks and axes are at most 8 (checked against DirectML's limit before use) and
// positions below them; sizes and strides go through `TensorDesc`'s checked constructors.
#![allow(clippy::arithmetic_side_effects)]
use numpy::PyUntypedArrayMethods;
use pyo3::exceptions::PyValueError;
use pyo3::prelude::*;
use strider_core::{DataType, Operator, OperatorDesc, Scalar, TensorDesc};

use crate::movement::{axis_of, output, planned, run, scalar};
use crate::view::{View, strider_error};
use crate::{GIL_RELEASE_BYTES, as_array, descr_of, empty, thread_choice};

/// `desc` with size-1 dimensions inserted so that its dimension `d` lands at `at[d]` of `rank` dimensions.
fn spread(desc: &TensorDesc, rank: usize, at: &[usize]) -> PyResult<TensorDesc> {
    let mut sizes = vec![1u32; rank];
    let mut strides = vec![0u32; rank];
    for (d, &k) in at.iter().enumerate() {
        sizes[k] = desc.sizes()[d];
        strides[k] = desc.strides()[d];
    }
    let reversed: Vec<usize> = desc.reversed_dims().iter().map(|&d| at[d]).collect();
    TensorDesc::with_strides(desc.data_type(), &sizes, &strides)
        .and_then(|t| t.with_reversed_dims(&reversed))
        .map_err(strider_error)
}

/// `desc` right-aligned into `rank` dimensions (leading 1s).
fn pad_to(desc: &TensorDesc, ndim: usize, rank: usize) -> PyResult<TensorDesc> {
    // A 0-dimensional array's tensor is rank 1 of size 1: it occupies no dimension.
    let own = desc.rank().min(ndim.max(1));
    let at: Vec<usize> = (0..own).map(|d| rank - own + d).collect();
    if ndim == 0 {
        return spread(desc, rank, &[rank - 1]);
    }
    spread(desc, rank, &at)
}

/// The indices argument as an array view (a list becomes int64).
fn indices_view(py: Python<'_>, indices: &Bound<'_, PyAny>) -> PyResult<(View, usize)> {
    let a = as_array(py, indices)?;
    let ndim = a.ndim();
    Ok((View::new(&a, "indices")?, ndim))
}

fn ndim_of(py: Python<'_>, x: &Bound<'_, PyAny>, what: &str) -> PyResult<(View, usize)> {
    let a = as_array(py, x)?;
    let ndim = a.ndim();
    if ndim == 0 {
        return Err(PyValueError::new_err(format!("{what} is 0-dimensional; it needs at least one axis")));
    }
    Ok((View::new(&a, what)?, ndim))
}

/// A scatter's updates: an ndarray as it is; anything else (a list, a scalar) as an array of `x`'s dtype, as NumPy's
/// fancy assignment converts it.
fn updates_array<'py>(
    py: Python<'py>,
    updates: &Bound<'py, PyAny>,
    x: &View,
) -> PyResult<Bound<'py, numpy::PyUntypedArray>> {
    match updates.cast::<numpy::PyUntypedArray>() {
        Ok(a) => Ok(a.clone()),
        Err(_) => Ok(py
            .import("numpy")?
            .getattr("asarray")?
            .call1((updates, descr_of(py, x.layout.dtype)?))?
            .cast_into::<numpy::PyUntypedArray>()?),
    }
}

/// At most 8 dimensions (DirectML's limit), with the function's name.
fn check_rank(rank: usize, function: &str) -> PyResult<()> {
    if rank > 8 {
        return Err(PyValueError::new_err(format!("{function} would need {rank} dimensions; DirectML has at most 8")));
    }
    Ok(())
}

/// DML_GATHER: `np.take(x, indices, axis)`: the result has shape `x.shape[:axis] + indices.shape +
/// x.shape[axis+1:]`. `indices`: int32, uint32, int64 or uint64 (any shape, a scalar too; negative ones count from
/// the end). An index outside the axis raises ValueError naming it, and nothing is written. `out=`: write here
/// (any writable array of the result's shape and x's dtype, returned); `threads` as in `normalize`.
///
/// Example: an embedding lookup:
///
///     vectors = strider.gather(table, token_ids)          # table[token_ids]
#[pyfunction]
#[pyo3(signature = (x, indices, axis=0, *, out=None, threads=None))]
pub(crate) fn gather<'py>(
    py: Python<'py>,
    x: &Bound<'py, PyAny>,
    indices: &Bound<'py, PyAny>,
    axis: i64,
    out: Option<&Bound<'py, PyAny>>,
    threads: Option<i64>,
) -> PyResult<Bound<'py, PyAny>> {
    let (xv, r) = ndim_of(py, x, "x")?;
    let (iv, m) = indices_view(py, indices)?;
    let a = axis_of(axis, r, "axis")?;
    let xs = &xv.layout.shape;
    let shape: Vec<usize> = xs[..a].iter().chain(&iv.layout.shape).chain(&xs[a + 1..]).copied().collect();
    let n = r.max(m).max(shape.len()).max(1);
    check_rank(n, "gather")?;
    let (result, ov) = output(py, out, xv.layout.dtype, &shape)?;
    let desc = OperatorDesc::Gather {
        input: pad_to(&xv.desc, r, n)?,
        indices: pad_to(&iv.desc, m, n)?,
        output: pad_to(&ov.desc, shape.len(), n)?,
        axis: (a + n - r) as u32,
        index_dimensions: m as u32,
    };
    run(py, planned(desc)?, &[&xv, &iv], &[&ov], threads)?;
    Ok(result)
}

/// DML_GATHER_ELEMENTS: `np.take_along_axis(x, indices, axis)` (`torch.gather`): the result has the indices'
/// shape, which has x's number of dimensions and sizes at most x's off the axis. `out=`, `threads` as in `gather`.
///
/// Example: the scores of the chosen classes:
///
///     picked = strider.gather_elements(scores, labels[:, None], axis=1)
#[pyfunction]
#[pyo3(signature = (x, indices, axis=0, *, out=None, threads=None))]
pub(crate) fn gather_elements<'py>(
    py: Python<'py>,
    x: &Bound<'py, PyAny>,
    indices: &Bound<'py, PyAny>,
    axis: i64,
    out: Option<&Bound<'py, PyAny>>,
    threads: Option<i64>,
) -> PyResult<Bound<'py, PyAny>> {
    let (xv, r) = ndim_of(py, x, "x")?;
    let (iv, m) = indices_view(py, indices)?;
    if m != r {
        return Err(PyValueError::new_err(format!("indices has {m} dimensions but x has {r}; they must be equal")));
    }
    let a = axis_of(axis, r, "axis")?;
    let shape = iv.layout.shape.clone();
    let (result, ov) = output(py, out, xv.layout.dtype, &shape)?;
    let desc = OperatorDesc::GatherElements {
        input: xv.desc.clone(),
        indices: iv.desc.clone(),
        output: ov.desc.clone(),
        axis: a as u32,
    };
    run(py, planned(desc)?, &[&xv, &iv], &[&ov], threads)?;
    Ok(result)
}

/// DML_GATHER_ND1: ONNX `GatherND`: `indices[..., :]` are tuples of `t = indices.shape[-1]` coordinates into the
/// dimensions of x after the first `batch_dims` (which x and indices share); the result has shape
/// `indices.shape[:-1] + x.shape[batch_dims + t:]`. `out=`, `threads` as in `gather`.
///
/// Example: pixels at (row, column) pairs:
///
///     values = strider.gather_nd(image, np.array([[0, 1], [5, 7]]))   # image[[0, 5], [1, 7]]
#[pyfunction]
#[pyo3(signature = (x, indices, batch_dims=0, *, out=None, threads=None))]
pub(crate) fn gather_nd<'py>(
    py: Python<'py>,
    x: &Bound<'py, PyAny>,
    indices: &Bound<'py, PyAny>,
    batch_dims: i64,
    out: Option<&Bound<'py, PyAny>>,
    threads: Option<i64>,
) -> PyResult<Bound<'py, PyAny>> {
    let (xv, r) = ndim_of(py, x, "x")?;
    let (iv, q) = ndim_of(py, indices, "indices")?;
    let b = usize::try_from(batch_dims)
        .ok()
        .filter(|&b| b < r.min(q))
        .ok_or_else(|| PyValueError::new_err(format!("batch_dims={batch_dims}; it must be 0 to {}", r.min(q) - 1)))?;
    let t = iv.layout.shape[q - 1];
    if t < 1 || t > r - b {
        return Err(PyValueError::new_err(format!(
            "indices.shape[-1] is {t}; it must be 1 to {} (x's dimensions after the batches)",
            r - b
        )));
    }
    let shape: Vec<usize> = iv.layout.shape[..q - 1].iter().chain(&xv.layout.shape[b + t..]).copied().collect();
    let n = r.max(q).max(shape.len());
    check_rank(n, "gather_nd")?;
    let (result, ov) = output(py, out, xv.layout.dtype, &shape)?;
    let desc = OperatorDesc::GatherNd {
        input: pad_to(&xv.desc, r, n)?,
        indices: pad_to(&iv.desc, q, n)?,
        output: pad_to(&ov.desc, shape.len(), n)?,
        input_dimension_count: r as u32,
        indices_dimension_count: q as u32,
        batch_dimension_count: b as u32,
    };
    run(py, planned(desc)?, &[&xv, &iv], &[&ov], threads)?;
    Ok(result)
}

/// Runs a scatter: into `out` (a new copy of x when None); when `out` is x itself, in place (only the updates are
/// written).
fn scatter<'py>(
    py: Python<'py>,
    make: impl Fn(TensorDesc) -> PyResult<OperatorDesc>,
    x: (&Bound<'py, PyAny>, &View),
    ins: [&View; 2],
    out: Option<&Bound<'py, PyAny>>,
    threads: Option<i64>,
) -> PyResult<Bound<'py, PyAny>> {
    let (x, xv) = x;
    let in_place = out.is_some_and(|o| o.is(x));
    if !in_place {
        let (result, ov) = output(py, out, xv.layout.dtype, &xv.layout.shape)?;
        let desc = make(ov.desc.clone())?;
        run(py, planned(desc)?, &[xv, ins[0], ins[1]], &[&ov], threads)?;
        return Ok(result);
    }
    if !xv.writeable {
        return Err(PyValueError::new_err("out is read-only"));
    }
    if ins.iter().any(|v| v.overlaps(xv)) {
        return Err(PyValueError::new_err("indices and updates must not share memory with x when out is x"));
    }
    let op = planned(make(xv.desc.clone())?)?;
    let opts = thread_choice(threads)?;
    let (data, ix, up) = ((xv.base, xv.bytes), (ins[0].base, ins[0].bytes), (ins[1].base, ins[1].bytes));
    let work = move || {
        // SAFETY: each view's [base, base + bytes) is inside its live NumPy buffer (the caller holds the arrays);
        // the indices and updates do not overlap x (checked above), so the mutable slice aliases nothing.
        let (buffer, ix, up) = unsafe {
            (
                std::slice::from_raw_parts_mut(data.0 as *mut u8, data.1),
                std::slice::from_raw_parts(ix.0 as *const u8, ix.1),
                std::slice::from_raw_parts(up.0 as *const u8, up.1),
            )
        };
        match &*op {
            Operator::ScatterElements(s) => s.execute_in_place(buffer, ix, up, &opts),
            Operator::ScatterNd(s) => s.execute_in_place(buffer, ix, up, &opts),
            _ => Err(strider_core::Error::Internal { detail: "in-place scatter of another operator".into() }),
        }
    };
    let result = if up.1 < GIL_RELEASE_BYTES { work() } else { py.detach(work) };
    result.map_err(strider_error)?;
    Ok(x.clone())
}

/// DML_SCATTER_ELEMENTS: ONNX `ScatterElements` (`torch.Tensor.scatter`): a copy of x where, for each position `p`
/// of `indices`, the element at `p` with its coordinate along `axis` replaced by `indices[p]` is `updates[p]`.
/// `indices` and `updates` have one shape, of x's number of dimensions and at most x's sizes off the axis.
/// Duplicate indices: the last in C order wins. `updates` given as a list (or anything not an ndarray) takes x's
/// dtype. `out=x` updates x in place; another `out=` is written whole. `threads` as in `gather`.
///
/// Example: `strider.scatter_elements(np.zeros((2, 4)), [[1, 3], [0, 0]], [[1., 2.], [3., 4.]], axis=1)`
#[pyfunction]
#[pyo3(signature = (x, indices, updates, axis=0, *, out=None, threads=None))]
#[allow(clippy::too_many_arguments)]
pub(crate) fn scatter_elements<'py>(
    py: Python<'py>,
    x: &Bound<'py, PyAny>,
    indices: &Bound<'py, PyAny>,
    updates: &Bound<'py, PyAny>,
    axis: i64,
    out: Option<&Bound<'py, PyAny>>,
    threads: Option<i64>,
) -> PyResult<Bound<'py, PyAny>> {
    let (xv, r) = ndim_of(py, x, "x")?;
    let (iv, m) = indices_view(py, indices)?;
    let updates = updates_array(py, updates, &xv)?;
    let uv = View::new(&updates, "updates")?;
    if m != r {
        return Err(PyValueError::new_err(format!("indices has {m} dimensions but x has {r}; they must be equal")));
    }
    let a = axis_of(axis, r, "axis")?;
    let make = |output: TensorDesc| {
        Ok(OperatorDesc::ScatterElements {
            input: xv.desc.clone(),
            indices: iv.desc.clone(),
            updates: uv.desc.clone(),
            output,
            axis: a as u32,
        })
    };
    scatter(py, make, (x, &xv), [&iv, &uv], out, threads)
}

/// DML_SCATTER_ND: ONNX `ScatterND`: a copy of x where each tuple `indices[p, :]` (of `t = indices.shape[-1]`
/// coordinates) receives the block `updates[p]`; `updates.shape == indices.shape[:-1] + x.shape[t:]`. Duplicates:
/// the last in C order wins. `out=`, `threads` as in `scatter_elements`.
///
/// Example: overwrite rows 0 and 2: `strider.scatter_nd(x, [[0], [2]], new_rows)`
#[pyfunction]
#[pyo3(signature = (x, indices, updates, *, out=None, threads=None))]
pub(crate) fn scatter_nd<'py>(
    py: Python<'py>,
    x: &Bound<'py, PyAny>,
    indices: &Bound<'py, PyAny>,
    updates: &Bound<'py, PyAny>,
    out: Option<&Bound<'py, PyAny>>,
    threads: Option<i64>,
) -> PyResult<Bound<'py, PyAny>> {
    let (xv, r) = ndim_of(py, x, "x")?;
    let (iv, q) = ndim_of(py, indices, "indices")?;
    let updates = updates_array(py, updates, &xv)?;
    let u = updates.ndim();
    let uv = View::new(&updates, "updates")?;
    let n = r.max(q).max(u);
    check_rank(n, "scatter_nd")?;
    let (xd, id, ud) = (pad_to(&xv.desc, r, n)?, pad_to(&iv.desc, q, n)?, pad_to(&uv.desc, u, n)?);
    let make = |output: TensorDesc| {
        Ok(OperatorDesc::ScatterNd {
            input: xd.clone(),
            indices: id.clone(),
            updates: ud.clone(),
            output: pad_to(&output, r, n)?,
            input_dimension_count: r as u32,
            indices_dimension_count: q as u32,
        })
    };
    scatter(py, make, (x, &xv), [&iv, &uv], out, threads)
}

/// DML_ONE_HOT: ONNX `OneHot`: an array of `indices.ndim + 1` dimensions with `depth` inserted at `axis` (negative
/// counts from the end of the result), `values[1]` where the position along `axis` equals the index (negative ones
/// count from the end) and `values[0]` elsewhere; an index outside `-depth..depth` leaves its row off. `dtype`: the
/// result's (float32 by default; anything `numpy.dtype()` accepts). `out=`, `threads` as in `gather`.
///
/// Example: `strider.one_hot([0, 2, -1], 4)`   # [[1,0,0,0], [0,0,1,0], [0,0,0,1]] as float32
#[pyfunction]
#[pyo3(signature = (indices, depth, values=None, axis=-1, dtype=None, *, out=None, threads=None))]
#[allow(clippy::too_many_arguments)]
pub(crate) fn one_hot<'py>(
    py: Python<'py>,
    indices: &Bound<'py, PyAny>,
    depth: i64,
    values: Option<(Bound<'py, PyAny>, Bound<'py, PyAny>)>,
    axis: i64,
    dtype: Option<&Bound<'py, PyAny>>,
    out: Option<&Bound<'py, PyAny>>,
    threads: Option<i64>,
) -> PyResult<Bound<'py, PyAny>> {
    let (iv, m) = indices_view(py, indices)?;
    let depth = u32::try_from(depth)
        .ok()
        .filter(|&d| d >= 1)
        .ok_or_else(|| PyValueError::new_err(format!("depth={depth}; it must be 1 to 2**32-1")))?;
    let rank = m + 1;
    check_rank(rank, "one_hot")?;
    let a = axis_of(axis, rank, "axis")?;
    let dt = match dtype {
        Some(d) => crate::view::dtype_arg(py, d)?.0,
        None => DataType::Float32,
    };
    let mut shape: Vec<usize> = iv.layout.shape.clone();
    shape.insert(a, depth as usize);
    let (off, on) = match &values {
        Some((off, on)) => (scalar(off, dt, "values[0]")?, scalar(on, dt, "values[1]")?),
        None => (Scalar::from(0u8).cast(dt), Scalar::from(1u8).cast(dt)),
    };
    // The two values as a small array of the result's dtype.
    let pair = empty(py, &[2], descr_of(py, dt)?)?;
    let pv = View::new(&pair, "values")?;
    let w = dt.size_in_bytes();
    // SAFETY: `pair` is a new C-ordered array of 2 elements of `w` bytes, owned here.
    let bytes = unsafe { std::slice::from_raw_parts_mut(pv.base as *mut u8, 2 * w) };
    bytes[..w].copy_from_slice(off.bytes());
    bytes[w..].copy_from_slice(on.bytes());
    let (result, ov) = output(py, out, dt, &shape)?;
    let at: Vec<usize> = (0..rank).filter(|&d| d != a).collect();
    // A scalar index is a one-element tensor: its one dimension lands on the axis (where the indices have size 1).
    let indices = if m == 0 { spread(&iv.desc, rank, &[a])? } else { spread(&iv.desc, rank, &at)? };
    let desc =
        OperatorDesc::OneHot { indices, values: pad_to(&pv.desc, 1, rank)?, output: ov.desc.clone(), axis: a as u32 };
    run(py, planned(desc)?, &[&iv, &pv], &[&ov], threads)?;
    Ok(result)
}

/// Registers the functions.
pub(crate) fn register(m: &Bound<'_, PyModule>) -> PyResult<()> {
    m.add_function(wrap_pyfunction!(gather, m)?)?;
    m.add_function(wrap_pyfunction!(gather_elements, m)?)?;
    m.add_function(wrap_pyfunction!(gather_nd, m)?)?;
    m.add_function(wrap_pyfunction!(scatter_elements, m)?)?;
    m.add_function(wrap_pyfunction!(scatter_nd, m)?)?;
    m.add_function(wrap_pyfunction!(one_hot, m)?)?;
    Ok(())
}
