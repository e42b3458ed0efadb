//! `strider` for Python: DirectML's copy-family operators on NumPy arrays of any strides, without copying them.
//!
//! Layers: `view` (a NumPy array as a DirectML tensor in the caller's coordinates, and its bytes) → `plan` (what a
//! call asks for, checked in the caller's coordinates, and the Strider operator that does it, with a cache of
//! plans) and `movement` (the data-movement family) → this file (arguments, output allocation, buffers, the GIL, threads). `unsafe` is confined to the
//! boundary with NumPy: reading an array's data pointer and flags (`view`), allocating an output and turning two
//! arrays' memory into Rust slices (here), each with its invariant.

#![deny(clippy::arithmetic_side_effects)]

mod image;
mod indexing;
mod movement;
mod plan;
mod view;

use std::sync::Arc;

use numpy::npyffi::{PY_ARRAY_API, npy_intp};
use numpy::{PyArrayDescr, PyArrayDescrMethods, PyUntypedArray, PyUntypedArrayMethods};
use pyo3::exceptions::{PyTypeError, PyValueError};
use pyo3::prelude::*;
use pyo3::types::PyDict;
use strider_core::{DataType, ExecOptions, Isa};

use crate::plan::{PlanCache, Planned, Spec, Window};
use crate::view::{View, dtype_arg, strider_error};

/// Outputs from this size on run with the GIL released.
pub(crate) const GIL_RELEASE_BYTES: usize = 16 << 10;

/// Plans of the module-level functions (the classes keep their own).
pub(crate) static PLANS: PlanCache = PlanCache::new(64);

/// The value kept in `cache` (most recent first, at most `keep`) for `key`, or `build()`'s, kept: a call that repeats
/// a description skips planning.
pub(crate) fn kept<K: PartialEq, V>(
    cache: &std::sync::Mutex<Vec<(K, Arc<V>)>>,
    key: K,
    keep: usize,
    build: impl FnOnce(&K) -> PyResult<V>,
) -> PyResult<Arc<V>> {
    {
        let mut entries = cache.lock().unwrap_or_else(|p| p.into_inner());
        if let Some(i) = entries.iter().position(|(k, _)| *k == key) {
            let entry = entries.remove(i);
            let value = Arc::clone(&entry.1);
            entries.insert(0, entry);
            return Ok(value);
        }
    }
    let value = Arc::new(build(&key)?);
    let mut entries = cache.lock().unwrap_or_else(|p| p.into_inner());
    entries.insert(0, (key, Arc::clone(&value)));
    entries.truncate(keep);
    Ok(value)
}

/// `x` as a NumPy array: an ndarray as it is, anything else through `numpy.asarray` (no copy when it exposes its
/// memory, as torch CPU tensors do).
pub(crate) fn as_array<'py>(py: Python<'py>, x: &Bound<'py, PyAny>) -> PyResult<Bound<'py, PyUntypedArray>> {
    match x.cast::<PyUntypedArray>() {
        Ok(a) => Ok(a.clone()),
        Err(_) => Ok(py.import("numpy")?.getattr("asarray")?.call1((x,))?.cast_into::<PyUntypedArray>()?),
    }
}

/// A new C-ordered array of `shape` and `descr`'s dtype (uninitialized: the operator writes every element).
pub(crate) fn empty<'py>(
    py: Python<'py>,
    shape: &[usize],
    descr: Bound<'py, PyArrayDescr>,
) -> PyResult<Bound<'py, PyUntypedArray>> {
    let mut dims: Vec<npy_intp> = shape.iter().map(|&n| n as npy_intp).collect();
    // SAFETY: PyArray_Empty takes `nd` dimensions from `dims` (alive for the call) and steals the reference to the
    // descriptor that `into_dtype_ptr` hands over; it returns a new reference or NULL with a Python error set.
    unsafe {
        let ptr = PY_ARRAY_API.PyArray_Empty(py, dims.len() as i32, dims.as_mut_ptr(), descr.into_dtype_ptr(), 0);
        Ok(Bound::from_owned_ptr_or_err(py, ptr)?.cast_into::<PyUntypedArray>()?)
    }
}

/// The options of a `threads` argument: `None` the default pool, 1 the calling thread, n a kept pool of n (entered
/// only when the output is large enough to split).
pub(crate) fn thread_choice(threads: Option<i64>) -> PyResult<ExecOptions> {
    match threads {
        None => Ok(ExecOptions::default()),
        Some(1) => Ok(ExecOptions::sequential()),
        Some(n) if (2..=strider_core::MAX_THREADS as i64).contains(&n) => {
            Ok(ExecOptions::default().with_threads(n as usize))
        }
        Some(n) => Err(PyValueError::new_err(format!(
            "threads={n}; it must be None (Strider's default pool) or 1 to {}",
            strider_core::MAX_THREADS
        ))),
    }
}

/// Runs `spec` from `x` into `out` (allocated when `None`) and returns the output. `plans` caches the plan.
fn run<'py>(
    py: Python<'py>,
    plans: &PlanCache,
    spec: &Spec,
    x: &Bound<'py, PyAny>,
    out: Option<&Bound<'py, PyAny>>,
    threads: Option<i64>,
) -> PyResult<Bound<'py, PyAny>> {
    run_into(py, plans, spec, x, out, threads, None)
}

/// Where the channel axis of an allocated Normalize result goes (`layout=`).
#[derive(Clone, Copy, Debug, PartialEq)]
pub(crate) enum ChannelOrder {
    /// Right after the batch axis (4 or more dimensions) or first: NCHW, CHW, NCDHW.
    First,
    /// Last: NHWC, HWC.
    Last,
}

impl ChannelOrder {
    pub(crate) fn parse(layout: Option<&str>) -> PyResult<Option<ChannelOrder>> {
        Ok(match layout.map(str::to_ascii_lowercase).as_deref() {
            None => None,
            Some("nchw" | "chw" | "ncdhw" | "channels_first") => Some(ChannelOrder::First),
            Some("nhwc" | "hwc" | "ndhwc" | "channels_last") => Some(ChannelOrder::Last),
            Some(other) => {
                return Err(PyValueError::new_err(format!(
                    "layout={other:?} is not a layout: give \"nchw\" (channels first), \"nhwc\" (channels last) or None \
                     (the input's axis order)"
                )));
            }
        })
    }

    /// The allocated array's axes as axes of the result (`perm[i]` is the result axis stored `i`-th), moving
    /// `channel` of `ndim`.
    pub(crate) fn perm(self, ndim: usize, channel: usize) -> Vec<usize> {
        let mut rest: Vec<usize> = (0..ndim).filter(|&a| a != channel).collect();
        let at = match self {
            ChannelOrder::First if ndim >= 4 => 1,
            ChannelOrder::First => 0,
            ChannelOrder::Last => rest.len(),
        };
        rest.insert(at, channel);
        rest
    }
}

/// [`run`], allocating a Normalize result with its channel axis moved to `order` (the result is that array; the
/// operator writes it through a transposed view in the input's axis order).
pub(crate) fn run_into<'py>(
    py: Python<'py>,
    plans: &PlanCache,
    spec: &Spec,
    x: &Bound<'py, PyAny>,
    out: Option<&Bound<'py, PyAny>>,
    threads: Option<i64>,
    order: Option<ChannelOrder>,
) -> PyResult<Bound<'py, PyAny>> {
    let opts = thread_choice(threads)?;
    let xa = as_array(py, x)?;
    let xv = View::new(&xa, "x")?;
    spec.check_args(&xv.layout)?;
    let (result, oa) = match out {
        Some(_) if order.is_some() => {
            return Err(PyValueError::new_err(
                "give layout= or out=, not both: layout= chooses the axis order of an allocated result",
            ));
        }
        Some(o) => (o.clone(), as_array(py, o)?),
        None => {
            let descr = match spec {
                Spec::Cast(dt) | Spec::Normalize { dtype: dt, .. } if *dt != xv.layout.dtype => descr_of(py, *dt)?,
                _ => xa.dtype(),
            };
            let shape = spec.out_shape(&xv.layout);
            let channel = match spec {
                Spec::Normalize { axis, .. } => *axis,
                _ => None,
            };
            // (`check_args` has refused a channel axis outside the result.)
            let perm = match (order, channel) {
                (None, _) => None,
                (Some(_), None) => {
                    return Err(PyValueError::new_err(
                        "layout= moves the channel axis: give channel_axis too (or leave layout=None)",
                    ));
                }
                (Some(order), Some(c)) => Some(order.perm(shape.len(), c)),
            };
            match perm {
                None => {
                    let a = empty(py, &shape, descr)?;
                    (a.clone().into_any(), a)
                }
                Some(perm) => {
                    let stored: Vec<usize> = perm.iter().map(|&a| shape[a]).collect();
                    let a = empty(py, &stored, descr)?;
                    let view = a.as_any().call_method1("transpose", (inverse(&perm),))?;
                    (a.into_any(), as_array(py, &view)?)
                }
            }
        }
    };
    let ov = View::new(&oa, "out")?;
    if !ov.writeable {
        return Err(PyValueError::new_err("out is read-only"));
    }
    let plan = plans.get(spec, &xv, &ov)?;
    execute(py, &plan, &xv, &ov, opts)?;
    Ok(result)
}

/// The NumPy dtype of a data type.
pub(crate) fn descr_of(py: Python<'_>, dt: DataType) -> PyResult<Bound<'_, PyArrayDescr>> {
    PyArrayDescr::new(py, plan::numpy_name(dt))
}

/// Runs a plan on the arrays' memory with the GIL released. Overlapping arrays: an identity between identical
/// layouts runs in place; anything else reads from a copy of the input bytes taken first.
fn execute(py: Python<'_>, plan: &Arc<Planned>, x: &View, out: &View, opts: ExecOptions) -> PyResult<()> {
    let (xb, xn, ob, on) = (x.base, x.bytes, out.base, out.bytes);
    // One buffer, one layout: only an identity runs on it in place.
    let in_place =
        x.overlaps(out) && xb == ob && x.desc == out.desc && matches!(**plan, strider_core::Operator::Identity(_));
    let copy: Option<Vec<u8>> = if x.overlaps(out) && !in_place {
        // SAFETY: [xb, xb + xn) holds the elements of x, inside its NumPy buffer, which stays alive (we hold x)
        // and is read under the GIL here.
        Some(unsafe { std::slice::from_raw_parts(xb as *const u8, xn) }.to_vec())
    } else {
        None
    };
    let plan = Arc::clone(plan);
    let work = move || -> Result<(), strider_core::Error> {
        // SAFETY: [ob, ob + on) holds the elements of out, inside its writeable NumPy buffer, alive for the call
        // (the caller holds out). Another Python thread writing the same memory during the call is a data race
        // the caller must avoid, as with any NumPy operation that releases the GIL.
        let output = unsafe { std::slice::from_raw_parts_mut(ob as *mut u8, on) };
        match (&copy, &*plan) {
            (_, strider_core::Operator::Identity(identity)) if in_place => {
                identity.execute_in_place_with(output, &opts)
            }
            (Some(bytes), _) => plan.execute_with(&[bytes], &mut [output], &opts),
            _ => {
                // SAFETY: [xb, xb + xn) holds the elements of x, alive for the call, and does not intersect
                // the output's bytes (checked above), so the two slices do not alias.
                let input = unsafe { std::slice::from_raw_parts(xb as *const u8, xn) };
                plan.execute_with(&[input], &mut [output], &opts)
            }
        }
    };
    // PERF: releasing and retaking the GIL costs about 150 ns, as much as copying 4 KiB: small outputs keep it.
    let result = if on < GIL_RELEASE_BYTES { work() } else { py.detach(work) };
    result.map_err(strider_error)
}

/// Axis `a` of `ndim` dimensions by Python's rule (negative counts from the end); `None` when out of range.
fn axis_index(a: isize, ndim: usize) -> Option<usize> {
    let index = if a < 0 { ndim.checked_sub(a.unsigned_abs())? } else { a.unsigned_abs() };
    (index < ndim).then_some(index)
}

/// A sequence of Python ints as u32 (a `ValueError` naming `what` for a negative or too large value).
pub(crate) fn u32s(values: Vec<i64>, what: &str) -> PyResult<Vec<u32>> {
    values
        .into_iter()
        .enumerate()
        .map(|(i, v)| {
            u32::try_from(v).map_err(|_| PyValueError::new_err(format!("{what}[{i}] is {v}; it must be 0 to 2**32-1")))
        })
        .collect()
}

/// A sequence of Python ints as i32 window strides.
fn i32s(values: Vec<i64>, what: &str) -> PyResult<Vec<i32>> {
    values
        .into_iter()
        .enumerate()
        .map(|(i, v)| {
            i32::try_from(v)
                .map_err(|_| PyValueError::new_err(format!("{what}[{i}] is {v}; it must fit 32-bit signed integers")))
        })
        .collect()
}

pub(crate) fn window_spec(offsets: Vec<i64>, sizes: Vec<i64>, strides: Vec<i64>) -> PyResult<Window> {
    Ok(Window { offsets: u32s(offsets, "offsets")?, sizes: u32s(sizes, "sizes")?, strides: i32s(strides, "strides")? })
}

fn slice_spec(offsets: Vec<i64>, sizes: Vec<i64>, strides: Vec<i64>) -> PyResult<Spec> {
    Ok(Spec::Slice {
        offsets: u32s(offsets, "offsets")?,
        sizes: u32s(sizes, "sizes")?,
        strides: u32s(strides, "strides")?,
    })
}

fn identity_spec(scale: Option<f64>, bias: Option<f64>) -> PyResult<Spec> {
    let scale_bias = match (scale, bias) {
        (None, None) => None,
        (s, b) => Some((f32_arg(s.unwrap_or(1.0), "scale")?.to_bits(), f32_arg(b.unwrap_or(0.0), "bias")?.to_bits())),
    };
    Ok(Spec::Identity { scale_bias })
}

/// A float argument DirectML takes as a float32: rounded to nearest, an error when a finite value overflows it.
fn f32_arg(v: f64, what: &str) -> PyResult<f32> {
    let f = v as f32;
    if f.is_infinite() && v.is_finite() {
        return Err(PyValueError::new_err(format!("{what}={v:e} does not fit a float32 (at most {:e})", f32::MAX)));
    }
    Ok(f)
}

/// The inverse of the axis permutation `perm` (`inverse(perm)[perm[i]] == i`): the `transpose` argument that views
/// an array stored in `perm`'s order in the original axis order.
pub(crate) fn inverse(perm: &[usize]) -> Vec<usize> {
    let mut inverse = vec![0usize; perm.len()];
    for (i, &p) in perm.iter().enumerate() {
        inverse[p] = i;
    }
    inverse
}

/// A float or a sequence of floats.
pub(crate) fn floats(v: &Bound<'_, PyAny>, what: &str) -> PyResult<Vec<f64>> {
    if let Ok(f) = v.extract::<f64>() {
        return Ok(vec![f]);
    }
    v.extract::<Vec<f64>>().map_err(|_| PyTypeError::new_err(format!("{what} must be a float or a sequence of floats")))
}

/// The normalization spec: scale = 1/std and bias = −mean/std, computed in f64 and rounded once to f32.
#[allow(clippy::too_many_arguments)]
fn normalize_spec(
    py: Python<'_>,
    ndim: usize,
    dtype: &Bound<'_, PyAny>,
    mean: &Bound<'_, PyAny>,
    std: &Bound<'_, PyAny>,
    channel_axis: Option<isize>,
    window: Option<Window>,
) -> PyResult<Spec> {
    let (dtype, _) = dtype_arg(py, dtype)?;
    let (mean, std) = (floats(mean, "mean")?, floats(std, "std")?);
    let axis = match channel_axis {
        None => None,
        Some(a) => Some(axis_index(a, ndim.max(1)).ok_or_else(|| {
            PyValueError::new_err(format!("channel_axis={a} is not an axis of a {ndim}-dimensional x"))
        })?),
    };
    if mean.len() != std.len() && mean.len() != 1 && std.len() != 1 {
        return Err(PyValueError::new_err(format!(
            "mean has {} values and std {}; give one value or one per channel for each",
            mean.len(),
            std.len()
        )));
    }
    for (what, v) in [("mean", &mean), ("std", &std)] {
        if let Some(i) = v.iter().position(|x| !x.is_finite()) {
            return Err(PyValueError::new_err(format!("{what}[{i}] is {}; it must be finite", v[i])));
        }
    }
    if let Some(i) = std.iter().position(|&s| s == 0.0) {
        return Err(PyValueError::new_err(format!("std[{i}] is 0; a normalization divides by it")));
    }
    let n = mean.len().max(std.len());
    let at = |v: &[f64], k: usize| if v.len() == 1 { v[0] } else { v[k] };
    let (mut scale, mut bias) = (Vec::with_capacity(n), Vec::with_capacity(n));
    for k in 0..n {
        let (m, s) = (at(&mean, k), at(&std, k));
        let fits = |v: f64, what: &str| {
            f32_arg(v, what).map_err(|_| {
                PyValueError::new_err(format!(
                    "mean[{k}]={m:?} and std[{k}]={s:?} give {what} {v:e}, which does not fit a float32 (at most {:e})",
                    f32::MAX
                ))
            })
        };
        scale.push(fits(1.0 / s, "a scale 1/std")?.to_bits());
        bias.push(fits(-m / s, "a bias -mean/std")?.to_bits());
    }
    Ok(Spec::Normalize { dtype, window, axis, scale, bias, lens: (mean.len(), std.len()) })
}

fn optional_window(
    offsets: Option<Vec<i64>>,
    sizes: Option<Vec<i64>>,
    strides: Option<Vec<i64>>,
    shape: &[usize],
) -> PyResult<Option<Window>> {
    if offsets.is_none() && sizes.is_none() && strides.is_none() {
        return Ok(None);
    }
    let n = shape.len();
    let offsets = offsets.unwrap_or_else(|| vec![0; n]);
    let sizes = sizes.unwrap_or_else(|| shape.iter().map(|&s| s as i64).collect());
    let strides = strides.unwrap_or_else(|| vec![1; n]);
    window_spec(offsets, sizes, strides).map(Some)
}

/// DML_SLICE1: the window of `x` at `offsets` of `sizes`, read with `strides` (negative: from the window's end).
///
/// One value per axis of x in each list; the result has `1 + (sizes[d] - 1) // abs(strides[d])` elements along
/// axis d. `out=` writes into a given array (any strides), `threads=` as in `normalize`.
///
/// Example: `strider.slice1(img, [0, 0, 0], [h, w, 3], [1, -1, 1])` mirrors an HWC image.
#[pyfunction]
#[pyo3(signature = (x, offsets, sizes, strides, *, out=None, threads=None))]
fn slice1<'py>(
    py: Python<'py>,
    x: &Bound<'py, PyAny>,
    offsets: Vec<i64>,
    sizes: Vec<i64>,
    strides: Vec<i64>,
    out: Option<&Bound<'py, PyAny>>,
    threads: Option<i64>,
) -> PyResult<Bound<'py, PyAny>> {
    run(py, &PLANS, &Spec::Slice1(window_spec(offsets, sizes, strides)?), x, out, threads)
}

/// DML_SLICE: output element c is `x[offsets + strides * c]` and the output's shape is `sizes` (strides are
/// positive steps; slice1 takes a window and signed strides instead). One value per axis of x in each list; `out=`
/// writes into a given array (any strides), `threads=` as in `normalize`.
///
/// Example: `strider.slice(x, [0, 1], [3, 2], [2, 3])` is `x[0:6:2, 1:7:3]`.
#[pyfunction]
#[pyo3(signature = (x, offsets, sizes, strides, *, out=None, threads=None))]
fn slice<'py>(
    py: Python<'py>,
    x: &Bound<'py, PyAny>,
    offsets: Vec<i64>,
    sizes: Vec<i64>,
    strides: Vec<i64>,
    out: Option<&Bound<'py, PyAny>>,
    threads: Option<i64>,
) -> PyResult<Bound<'py, PyAny>> {
    run(py, &PLANS, &slice_spec(offsets, sizes, strides)?, x, out, threads)
}

/// DML_ELEMENT_WISE_IDENTITY: copies `x` into `out` (any layouts of one shape and dtype: NHWC to NCHW, padded,
/// flipped views), optionally as `x * scale + bias` (DML_SCALE_BIAS, float dtypes only); returns out. When x and
/// out are the same array it runs in place; other overlaps read a copy of x first. `threads=` as in `normalize`.
///
/// Example: NHWC to NCHW memory: `strider.identity(nhwc, nchw.transpose(0, 2, 3, 1))`
#[pyfunction]
#[pyo3(signature = (x, out, *, scale=None, bias=None, threads=None))]
fn identity<'py>(
    py: Python<'py>,
    x: &Bound<'py, PyAny>,
    out: &Bound<'py, PyAny>,
    scale: Option<f64>,
    bias: Option<f64>,
    threads: Option<i64>,
) -> PyResult<Bound<'py, PyAny>> {
    run(py, &PLANS, &identity_spec(scale, bias)?, x, Some(out), threads)
}

/// DML_CAST: `x` converted to `dtype` by Rust's `as` rules (integers wrap, floats to integers truncate and
/// saturate, NaN to 0; to float16 rounded once from the exact value), into a new array or `out=`.
///
/// Example: `strider.cast(np.flip(batch, 1), np.float16, threads=2)`.
#[pyfunction]
#[pyo3(signature = (x, dtype, *, out=None, threads=None))]
fn cast<'py>(
    py: Python<'py>,
    x: &Bound<'py, PyAny>,
    dtype: &Bound<'py, PyAny>,
    out: Option<&Bound<'py, PyAny>>,
    threads: Option<i64>,
) -> PyResult<Bound<'py, PyAny>> {
    let (dt, _) = dtype_arg(py, dtype)?;
    run(py, &PLANS, &Spec::Cast(dt), x, out, threads)
}

/// The fused preprocessing operator: `(window(x) - mean[k]) / std[k]` converted to `dtype`, in one pass.
///
/// Parameters: `x` (an array of any strides: views, flips, transposes), `dtype` (the result's, e.g.
/// `np.float32`), `mean` and `std` (in x's own units, 0..255 for uint8 images; one value, or one per channel),
/// `channel_axis` (the axis `k` indexes; negative counts from the end; None: one mean and std), `offsets`,
/// `sizes`, `strides` (slice1's window, default all of x; a negative stride reads that axis backwards: flips,
/// BGR -> RGB), `layout` (the returned array's axis order: None keeps x's, "nchw" moves the channel axis after the
/// batch axis, or first for 3 dimensions or fewer, "nhwc" moves it last), `out` (write here instead: any writable
/// view of the result's shape in x's axis order), `threads` (None: the default pool; 1: this thread; n: n threads).
///
/// Computed as `x * (1/std) + (-mean/std)` in float32, each parameter rounded once from float64; integer results
/// round half to even and saturate.
///
/// Example: an NHWC uint8 batch to the NCHW float32 batch a PyTorch model takes:
///
///     nchw = strider.normalize(batch, np.float32, mean=[123.675, 116.28, 103.53],
///                              std=[58.395, 57.12, 57.375], channel_axis=3, layout="nchw")
#[pyfunction]
#[pyo3(signature = (x, dtype, *, mean, std, channel_axis, offsets=None, sizes=None, strides=None, layout=None, out=None, threads=None))]
#[allow(clippy::too_many_arguments)]
fn normalize<'py>(
    py: Python<'py>,
    x: &Bound<'py, PyAny>,
    dtype: &Bound<'py, PyAny>,
    mean: &Bound<'py, PyAny>,
    std: &Bound<'py, PyAny>,
    channel_axis: Option<isize>,
    offsets: Option<Vec<i64>>,
    sizes: Option<Vec<i64>>,
    strides: Option<Vec<i64>>,
    layout: Option<&str>,
    out: Option<&Bound<'py, PyAny>>,
    threads: Option<i64>,
) -> PyResult<Bound<'py, PyAny>> {
    let order = ChannelOrder::parse(layout)?;
    let xa = as_array(py, x)?;
    let window = optional_window(offsets, sizes, strides, xa.shape())?;
    let spec = normalize_spec(py, xa.ndim(), dtype, mean, std, channel_axis, window)?;
    run_into(py, &PLANS, &spec, xa.as_any(), out, threads, order)
}

/// DMLCalcBufferTensorSize: the bytes a buffer of a tensor needs, through its last element, rounded up to a
/// multiple of 4, in checked 64-bit arithmetic. `sizes`: 1 to 8 dimensions; `strides` in elements (None: packed).
///
/// Example: `strider.calc_buffer_tensor_size(np.uint8, [2, 3], [5, 1])   # 8: rows padded to 5, rounded up to 4`
#[pyfunction]
#[pyo3(signature = (dtype, sizes, strides=None))]
fn calc_buffer_tensor_size(
    py: Python<'_>,
    dtype: &Bound<'_, PyAny>,
    sizes: Vec<i64>,
    strides: Option<Vec<i64>>,
) -> PyResult<u64> {
    let (dt, _) = dtype_arg(py, dtype)?;
    let sizes = u32s(sizes, "sizes")?;
    let strides = strides.map(|s| u32s(s, "strides")).transpose()?;
    strider_core::calc_buffer_tensor_size(dt, &sizes, strides.as_deref())
        .map_err(|e| PyValueError::new_err(e.to_string()))
}

/// What this build runs with: a dict of `version`, `isa` (the instruction set used by default: "v4-vbmi" (AVX-512
/// with VBMI), "v4" (AVX-512), "v3" (AVX2) or "scalar"), `isas` (every level this CPU runs), `threads` (the default pool's size) and
/// `max_threads` (the most `threads=` takes).
///
/// Example: `strider.info()["isa"]`
#[pyfunction]
fn info(py: Python<'_>) -> PyResult<Bound<'_, PyDict>> {
    let d = PyDict::new(py);
    d.set_item("version", env!("CARGO_PKG_VERSION"))?;
    d.set_item("isa", Isa::best().name())?;
    d.set_item("isas", Isa::available().iter().map(|i| i.name()).collect::<Vec<_>>())?;
    d.set_item("threads", rayon::current_num_threads())?;
    d.set_item("max_threads", strider_core::MAX_THREADS)?;
    Ok(d)
}

/// An operator planned once per array layout and called many times: `op(x, out=None, threads=None)`. Made by
/// `strider.Slice1`, `Slice`, `Identity`, `Cast` and `Normalize`; keeps the plans of the last few layouts it saw;
/// safe to call from several threads; `repr` shows its arguments.
///
/// Example: `op = strider.Cast(np.float32); ys = [op(x) for x in arrays]`
#[pyclass(module = "strider", frozen)]
struct Operator {
    spec: Spec,
    plans: PlanCache,
    name: &'static str,
    /// A Normalize's `layout=`: the axis order of the results it allocates.
    order: Option<ChannelOrder>,
}

impl Operator {
    fn new(spec: Spec, name: &'static str) -> Operator {
        Operator { spec, plans: PlanCache::new(4), name, order: None }
    }
}

#[pymethods]
impl Operator {
    #[pyo3(signature = (x, out=None, *, threads=None))]
    fn __call__<'py>(
        &self,
        py: Python<'py>,
        x: &Bound<'py, PyAny>,
        out: Option<&Bound<'py, PyAny>>,
        threads: Option<i64>,
    ) -> PyResult<Bound<'py, PyAny>> {
        run_into(py, &self.plans, &self.spec, x, out, threads, self.order)
    }

    fn __repr__(&self) -> String {
        let layout = match self.order {
            None => "",
            Some(ChannelOrder::First) => ", layout='nchw'",
            Some(ChannelOrder::Last) => ", layout='nhwc'",
        };
        format!("strider.{}({}{layout})", self.name, self.spec.arguments())
    }
}

/// `strider.Slice1(offsets, sizes, strides)`: `slice1` as an operator kept for reuse; call it as
/// `op(x, out=None, threads=None)`. Plans are kept per array layout.
///
/// Example: `crop = strider.Slice1([16, 16, 0], [224, 224, 3], [1, 1, 1]); crops = [crop(im) for im in images]`
#[pyfunction]
#[pyo3(name = "Slice1")]
fn slice1_op(offsets: Vec<i64>, sizes: Vec<i64>, strides: Vec<i64>) -> PyResult<Operator> {
    Ok(Operator::new(Spec::Slice1(window_spec(offsets, sizes, strides)?), "Slice1"))
}

/// `strider.Slice(offsets, sizes, strides)`: `slice` as an operator kept for reuse; call it as
/// `op(x, out=None, threads=None)`.
///
/// Example: `every_other = strider.Slice([0, 0], [4, 4], [2, 2]); y = every_other(x)   # x[:8:2, :8:2]`
#[pyfunction]
#[pyo3(name = "Slice")]
fn slice_op(offsets: Vec<i64>, sizes: Vec<i64>, strides: Vec<i64>) -> PyResult<Operator> {
    Ok(Operator::new(slice_spec(offsets, sizes, strides)?, "Slice"))
}

/// `strider.Identity(scale=None, bias=None)`: `identity` as an operator kept for reuse; call it as
/// `op(x, out, threads=None)` (out is required: an identity copies between two layouts).
///
/// Example: `to_nchw = strider.Identity(); to_nchw(nhwc, nchw_buffer.transpose(0, 2, 3, 1))`
#[pyfunction]
#[pyo3(name = "Identity", signature = (*, scale=None, bias=None))]
fn identity_op(scale: Option<f64>, bias: Option<f64>) -> PyResult<Operator> {
    Ok(Operator::new(identity_spec(scale, bias)?, "Identity"))
}

/// `strider.Cast(dtype)`: `cast` as an operator kept for reuse; call it as `op(x, out=None, threads=None)`. Plans
/// are kept per array layout, so a loop over arrays of one shape plans once.
///
/// Example: `to_half = strider.Cast(np.float16); halves = [to_half(a) for a in arrays]`
#[pyfunction]
#[pyo3(name = "Cast")]
fn cast_op(py: Python<'_>, dtype: &Bound<'_, PyAny>) -> PyResult<Operator> {
    Ok(Operator::new(Spec::Cast(dtype_arg(py, dtype)?.0), "Cast"))
}

/// `strider.Normalize(dtype, *, mean, std, channel_axis, offsets=None, sizes=None, strides=None, layout=None)`:
/// `normalize` as an operator kept for reuse (arguments as there; a window, when given, needs all three lists);
/// call it as `op(x, out=None, threads=None)`.
///
/// Example: `prep = strider.Normalize(np.float32, mean=127.5, std=127.5, channel_axis=3, layout="nchw")`
#[pyfunction]
#[pyo3(name = "Normalize", signature = (dtype, *, mean, std, channel_axis, offsets=None, sizes=None, strides=None, layout=None))]
#[allow(clippy::too_many_arguments)]
fn normalize_op(
    py: Python<'_>,
    dtype: &Bound<'_, PyAny>,
    mean: &Bound<'_, PyAny>,
    std: &Bound<'_, PyAny>,
    channel_axis: Option<isize>,
    offsets: Option<Vec<i64>>,
    sizes: Option<Vec<i64>>,
    strides: Option<Vec<i64>>,
    layout: Option<&str>,
) -> PyResult<Operator> {
    let order = ChannelOrder::parse(layout)?;
    // Without a window the rank is known only at the call; a negative channel axis needs it, so it is resolved
    // against the window's rank when there is one, and otherwise must be non-negative.
    let ndim = offsets.as_ref().or(sizes.as_ref()).or(strides.as_ref()).map(Vec::len);
    let window = match (offsets, sizes, strides) {
        (Some(o), Some(s), Some(t)) => Some(window_spec(o, s, t)?),
        (None, None, None) => None,
        _ => return Err(PyValueError::new_err("Normalize takes all of offsets, sizes and strides, or none")),
    };
    if channel_axis.is_some_and(|a| a < 0) && ndim.is_none() {
        return Err(PyValueError::new_err("a negative channel_axis needs a window (offsets, sizes, strides)"));
    }
    let spec = normalize_spec(py, ndim.unwrap_or(usize::MAX >> 1), dtype, mean, std, channel_axis, window)?;
    Ok(Operator { order, ..Operator::new(spec, "Normalize") })
}

/// `strider.__doc__`.
const MODULE_DOC: &str = "Strider: DirectML's data-movement operators and fused image preprocessing on NumPy arrays \
of any strides (views, flips, transposes), without copying them, with the GIL released.

Functions: slice1, slice, identity, cast, normalize (crop + flip + channel order + normalize + cast + layout in \
one pass), normalize_image (the same for decoded images, by name: center_crop=, reverse_channels=, \
imagenet=, layout=), pad, join, split, tile, depth_to_space, space_to_depth, fill, fill_sequence, calc_buffer_tensor_size, \
info. Classes that keep their plans: Slice1, Slice, Identity, Cast, Normalize. Every function takes out= (write \
into a given array) and threads= (None: the default pool; 1: this thread). Errors: ValueError with Strider's \
message; strider.DTypeError for dtype problems.

Example:
    import numpy as np, strider
    batch = np.random.randint(0, 256, (32, 256, 256, 3), dtype=np.uint8)   # NHWC
    nchw = strider.normalize(batch, np.float32, mean=[123.675, 116.28, 103.53], std=[58.395, 57.12, 57.375],
                             channel_axis=3, offsets=[0, 16, 16, 0], sizes=[32, 224, 224, 3],
                             strides=[1, 1, -1, -1], layout=\"nchw\")          # crop, mirror, BGR->RGB
    also = strider.normalize_image(batch, crop=(16, 16, 224, 224), flip_horizontal=True,  # by name
                                   reverse_channels=True, imagenet=True)   # mean, std in 0..1 units
";

#[pymodule]
#[pyo3(name = "strider")]
fn strider_module(m: &Bound<'_, PyModule>) -> PyResult<()> {
    m.add("__version__", env!("CARGO_PKG_VERSION"))?;
    m.add("__doc__", MODULE_DOC)?;
    m.add_function(wrap_pyfunction!(slice1, m)?)?;
    m.add_function(wrap_pyfunction!(slice, m)?)?;
    m.add_function(wrap_pyfunction!(identity, m)?)?;
    m.add_function(wrap_pyfunction!(cast, m)?)?;
    m.add_function(wrap_pyfunction!(normalize, m)?)?;
    m.add_function(wrap_pyfunction!(calc_buffer_tensor_size, m)?)?;
    m.add_function(wrap_pyfunction!(info, m)?)?;
    m.add_function(wrap_pyfunction!(slice1_op, m)?)?;
    m.add_function(wrap_pyfunction!(slice_op, m)?)?;
    m.add_function(wrap_pyfunction!(identity_op, m)?)?;
    m.add_function(wrap_pyfunction!(cast_op, m)?)?;
    m.add_function(wrap_pyfunction!(normalize_op, m)?)?;
    m.add_function(wrap_pyfunction!(image::normalize_image, m)?)?;
    m.add_function(wrap_pyfunction!(image::resize, m)?)?;
    m.add_function(wrap_pyfunction!(image::letterbox_geometry, m)?)?;
    m.add_function(wrap_pyfunction!(image::preprocess, m)?)?;
    m.add_class::<Operator>()?;
    movement::register(m)?;
    indexing::register(m)?;
    m.add("DTypeError", view::dtype_error_type(m.py())?)?;
    Ok(())
}
