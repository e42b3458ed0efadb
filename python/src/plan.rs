//! What a call asks for (`Spec`), checked in the caller's coordinates, and the Strider operator that does it on the
//! arrays' memory (`Planned`): flipped dimensions become negative window strides, so no array is ever copied.

use std::sync::{Arc, Mutex};

use pyo3::exceptions::PyValueError;
use pyo3::prelude::*;
use strider_core::{Cast, DataType, Error, ExecOptions, Identity, Normalize, ScaleBias, Slice, Slice1, TensorDesc};

use crate::view::{Layout, View, dtype_error};

/// A DML_SLICE1 window: offsets, sizes, strides.
#[derive(Clone, Debug, PartialEq, Eq, Hash)]
pub(crate) struct Window {
    pub(crate) offsets: Vec<u32>,
    pub(crate) sizes: Vec<u32>,
    pub(crate) strides: Vec<i32>,
}

impl Window {
    /// The output shape: the most elements each dimension's window can give (1 where the window is invalid; the
    /// planner then reports the error).
    fn output_shape(&self) -> Vec<usize> {
        self.sizes
            .iter()
            .zip(&self.strides)
            .map(|(&w, &t)| {
                let most = w.saturating_sub(1).checked_div(t.unsigned_abs()).unwrap_or(0); // 1 for an invalid window
                (most as usize).saturating_add(1)
            })
            .collect()
    }

    /// The whole of a `rank`-dimensional array of `sizes`, each dimension walked forwards or backwards.
    fn whole(sizes: &[u32], backwards: impl Fn(usize) -> bool) -> Window {
        Window {
            offsets: vec![0; sizes.len()],
            sizes: sizes.to_vec(),
            strides: (0..sizes.len()).map(|d| if backwards(d) { -1 } else { 1 }).collect(),
        }
    }

    /// The same selection on the memory-order tensors of `x` and `out`: a flipped input dimension mirrors the window
    /// and negates its stride; a flipped output dimension reverses the order of the elements read (the window is
    /// first shrunk to exactly the elements read, so that reading it backwards gives them in reverse). `None` when
    /// the window is not valid for these sizes (the caller reports why in the caller's coordinates).
    fn to_memory(&self, x: &View, out: &View) -> Option<Window> {
        let mut w = self.clone();
        for d in 0..w.sizes.len() {
            // u32 values in i64: the checked steps below never fail for them, but say so rather than assume it.
            let (o, size, t) = (i64::from(w.offsets[d]), i64::from(w.sizes[d]), i64::from(w.strides[d]));
            let (n_in, n_out) = (i64::from(*x.desc.sizes().get(d)?), i64::from(*out.desc.sizes().get(d)?));
            let most = size.checked_sub(1)?.checked_div(t.checked_abs()?)?.checked_add(1)?;
            if size < 1 || o.checked_add(size)? > n_in || n_out > most {
                return None;
            }
            let (mut o, mut size, mut t) = (o, size, t);
            if out.flipped[d] {
                let span = n_out.checked_sub(1)?.checked_mul(t.checked_abs()?)?.checked_add(1)?;
                if t < 0 {
                    o = o.checked_add(size.checked_sub(span)?)?; // the window's end stays where reading starts
                }
                size = span;
                t = t.checked_neg()?;
            }
            if x.flipped[d] {
                o = n_in.checked_sub(o)?.checked_sub(size)?;
                t = t.checked_neg()?;
            }
            w.offsets[d] = u32::try_from(o).ok()?;
            w.sizes[d] = u32::try_from(size).ok()?;
            w.strides[d] = i32::try_from(t).ok()?;
        }
        Some(w)
    }
}

/// What a call computes, in the caller's coordinates.
#[derive(Clone, Debug, PartialEq, Eq, Hash)]
pub(crate) enum Spec {
    /// `DML_SLICE1`.
    Slice1(Window),
    /// `DML_SLICE`: offsets, sizes (the output's shape), strides ≥ 1.
    Slice { offsets: Vec<u32>, sizes: Vec<u32>, strides: Vec<u32> },
    /// Element-wise identity into `out`, optionally `x · scale + bias` (bits of the two f32).
    Identity { scale_bias: Option<(u32, u32)> },
    /// `DML_CAST` to a data type.
    Cast(DataType),
    /// The fused preprocessing operator: a window (`None`: all of `x`), the channel axis, and per-channel scale and
    /// bias (f32 bits).
    /// `lens`: how many values `mean` and `std` had.
    Normalize {
        dtype: DataType,
        window: Option<Window>,
        axis: Option<usize>,
        scale: Vec<u32>,
        bias: Vec<u32>,
        lens: (usize, usize),
    },
}

/// A Strider operator planned for two array layouts.
#[derive(Debug)]
pub(crate) enum Planned {
    Slice1(Slice1),
    Identity(Identity),
    Cast(Cast),
    Normalize(Normalize),
}

fn value_error(e: Error) -> PyErr {
    match e {
        Error::UnsupportedDataType { .. } => dtype_error(e.to_string()),
        _ => PyValueError::new_err(e.to_string()),
    }
}

impl Spec {
    /// The data type of the result for an input of `x`.
    pub(crate) fn out_dtype(&self, x: DataType) -> DataType {
        match self {
            Spec::Cast(dt) | Spec::Normalize { dtype: dt, .. } => *dt,
            _ => x,
        }
    }

    /// The shape of the result for an input of `x`'s layout (what `out` must have, or what is allocated).
    pub(crate) fn out_shape(&self, x: &Layout) -> Vec<usize> {
        match self {
            Spec::Slice1(w) | Spec::Normalize { window: Some(w), .. } => w.output_shape(),
            Spec::Slice { sizes, .. } => sizes.iter().map(|&s| (s as usize).max(1)).collect(),
            _ => x.shape.clone(),
        }
    }

    /// Checks the arguments against `x` before anything is allocated: one value per dimension of `x` in every
    /// window array, and a window only on arrays of 1 to 8 dimensions.
    pub(crate) fn check_args(&self, x: &Layout) -> PyResult<()> {
        let arrays: Vec<(&str, usize)> = match self {
            Spec::Slice1(w) | Spec::Normalize { window: Some(w), .. } => {
                vec![("offsets", w.offsets.len()), ("sizes", w.sizes.len()), ("strides", w.strides.len())]
            }
            Spec::Slice { offsets, sizes, strides } => {
                vec![("offsets", offsets.len()), ("sizes", sizes.len()), ("strides", strides.len())]
            }
            _ => vec![],
        };
        if let Spec::Normalize { axis, lens, .. } = self {
            let channels = axis.and_then(|a| self.out_shape(x).get(a).copied());
            for (name, len) in [("mean", lens.0), ("std", lens.1)] {
                if len != 1 && Some(len) != channels {
                    let per = channels
                        .map_or(" (without a channel axis)".to_owned(), |c| format!(" or {c}, one per channel"));
                    return Err(PyValueError::new_err(format!("{name} has {len} values; it must have 1{per}")));
                }
            }
        }
        let ndim = x.shape.len();
        if arrays.is_empty() {
            return Ok(());
        }
        if ndim == 0 {
            return Err(PyValueError::new_err(format!(
                "{} takes a window of an array of 1 to 8 dimensions; x is 0-dimensional",
                self.name()
            )));
        }
        for (name, len) in arrays {
            if len != ndim {
                return Err(PyValueError::new_err(format!(
                    "{name} has {len} values but x has {ndim} dimensions; give one per dimension"
                )));
            }
        }
        Ok(())
    }

    /// The logical operator's name, for messages.
    fn name(&self) -> &'static str {
        match self {
            Spec::Slice1(_) => "slice1",
            Spec::Slice { .. } => "slice",
            Spec::Identity { .. } => "identity",
            Spec::Cast(_) => "cast",
            Spec::Normalize { .. } => "normalize",
        }
    }

    /// Plans the operator from `x` into `out`. Errors are `TypeError` for dtypes and `ValueError` otherwise,
    /// with Strider's message about the caller's coordinates.
    pub(crate) fn plan(&self, x: &View, out: &View) -> PyResult<Planned> {
        let (xt, ot) = (x.layout.dtype, out.layout.dtype);
        let want = self.out_dtype(xt);
        if ot != want {
            return Err(dtype_error(format!(
                "out has dtype {} but {} of a {} array gives {}",
                ot.short_name(),
                self.name(),
                xt.short_name(),
                want.short_name()
            )));
        }
        let shape = self.out_shape(&x.layout);
        if out.layout.shape != shape {
            return Err(PyValueError::new_err(format!(
                "out has shape {:?} but {} gives shape {shape:?}",
                out.layout.shape,
                self.name()
            )));
        }
        // The window of the whole input, walked backwards where exactly one of x and out is flipped: an elementwise
        // operator between differently flipped arrays.
        let whole = || Window::whole(x.desc.sizes(), |d| x.flipped[d] != out.flipped[d]);
        let same_flips = x.flipped == out.flipped;
        let (xd, od) = (&x.desc, &out.desc);
        match self {
            Spec::Slice1(w) => match w.to_memory(x, out) {
                Some(m) => {
                    Slice1::new(xd, od, &m.offsets, &m.sizes, &m.strides).map(Planned::Slice1).map_err(value_error)
                }
                None => Err(self.logical_error(x, out)),
            },
            Spec::Slice { offsets, sizes, strides } => {
                // DML_SLICE is DML_SLICE1 with a window from the first to the last element read.
                let window = (|| {
                    let mut w = Window { offsets: offsets.clone(), sizes: vec![], strides: vec![] };
                    for (&s, &t) in sizes.iter().zip(strides) {
                        let span = u64::from(s.checked_sub(1)?).checked_mul(u64::from(t))?.checked_add(1)?;
                        let span = u32::try_from(span).ok()?;
                        w.sizes.push(span);
                        w.strides.push(i32::try_from(t).ok().filter(|&t| t > 0)?);
                    }
                    (offsets.len() == sizes.len() && sizes.len() == strides.len()).then_some(w)
                })();
                match window.and_then(|w| w.to_memory(x, out)) {
                    Some(m) => {
                        Slice1::new(xd, od, &m.offsets, &m.sizes, &m.strides).map(Planned::Slice1).map_err(value_error)
                    }
                    None => Err(self.logical_error(x, out)),
                }
            }
            Spec::Identity { scale_bias } => {
                let sb = scale_bias.map(|(s, b)| ScaleBias { scale: f32::from_bits(s), bias: f32::from_bits(b) });
                let op = match (sb, same_flips) {
                    (None, true) => Identity::new(xd, od).map(Planned::Identity),
                    (Some(sb), true) => Identity::with_scale_bias(xd, od, sb).map(Planned::Identity),
                    (None, false) => {
                        let w = whole();
                        Slice1::new(xd, od, &w.offsets, &w.sizes, &w.strides).map(Planned::Slice1)
                    }
                    (Some(sb), false) => {
                        let w = whole();
                        Slice1::with_scale_bias(xd, od, &w.offsets, &w.sizes, &w.strides, sb).map(Planned::Slice1)
                    }
                };
                op.map_err(value_error)
            }
            Spec::Cast(_) => {
                let op = if same_flips {
                    Cast::new(xd, od)
                } else {
                    let w = whole();
                    Cast::with_window(xd, od, &w.offsets, &w.sizes, &w.strides)
                };
                op.map(Planned::Cast).map_err(value_error)
            }
            Spec::Normalize { window, axis, scale, bias, .. } => {
                let logical = match window {
                    Some(w) => w.clone(),
                    None => Window::whole(x.desc.sizes(), |_| false),
                };
                let Some(m) = logical.to_memory(x, out) else { return Err(self.logical_error(x, out)) };
                let mut scale: Vec<f32> = scale.iter().map(|&b| f32::from_bits(b)).collect();
                let mut bias: Vec<f32> = bias.iter().map(|&b| f32::from_bits(b)).collect();
                // Channel k of the caller is channel C-1-k of a flipped output dimension.
                if let Some(a) = *axis
                    && out.flipped.get(a) == Some(&true)
                {
                    scale.reverse();
                    bias.reverse();
                }
                Normalize::new(xd, od, &m.offsets, &m.sizes, &m.strides, *axis, &scale, &bias)
                    .map(Planned::Normalize)
                    .map_err(value_error)
            }
        }
    }

    /// Why the operator is invalid, in the caller's coordinates: the same window validated by Strider on packed
    /// tensors of the arrays' shapes.
    fn logical_error(&self, x: &View, out: &View) -> PyErr {
        let dt = x.layout.dtype;
        let result = TensorDesc::new(dt, x.desc.sizes()).and_then(|xd| {
            let od = TensorDesc::new(dt, out.desc.sizes())?;
            match self {
                Spec::Slice1(w) | Spec::Normalize { window: Some(w), .. } => {
                    Slice1::new(&xd, &od, &w.offsets, &w.sizes, &w.strides).map(drop)
                }
                Spec::Slice { offsets, sizes, strides } => Slice::new(&xd, &od, offsets, sizes, strides).map(drop),
                _ => Ok(()),
            }
        });
        match result {
            Err(e) => value_error(e),
            Ok(()) => PyValueError::new_err(format!("{}: the arrays' layouts cannot express this window", self.name())),
        }
    }
}

impl Planned {
    /// Runs between two disjoint buffers.
    pub(crate) fn execute(&self, input: &[u8], output: &mut [u8], opts: &ExecOptions) -> Result<(), Error> {
        match self {
            Planned::Slice1(op) => op.execute_with(input, output, opts),
            Planned::Identity(op) => op.execute_with(input, output, opts),
            Planned::Cast(op) => op.execute_with(input, output, opts),
            Planned::Normalize(op) => op.execute_with(input, output, opts),
        }
    }

    /// The identity that can run in place on one buffer, if this is one.
    pub(crate) fn in_place(&self) -> Option<&Identity> {
        match self {
            Planned::Identity(op) => Some(op),
            _ => None,
        }
    }
}

/// The key of a plan: what is computed, between which layouts.
pub(crate) type Key = (Spec, Layout, Layout);

/// Recently planned operators, most recent first: calls that repeat a spec and layouts skip planning.
pub(crate) struct PlanCache {
    entries: Mutex<Vec<(Key, Arc<Planned>)>>,
    capacity: usize,
}

impl PlanCache {
    pub(crate) const fn new(capacity: usize) -> PlanCache {
        PlanCache { entries: Mutex::new(Vec::new()), capacity }
    }

    /// The plan of `spec` from `x` into `out`, from the cache or planned now.
    pub(crate) fn get(&self, spec: &Spec, x: &View, out: &View) -> PyResult<Arc<Planned>> {
        let hit = |k: &Key| k.0 == *spec && k.1 == x.layout && k.2 == out.layout;
        {
            let mut entries = self.entries.lock().unwrap_or_else(|p| p.into_inner());
            if let Some(i) = entries.iter().position(|(k, _)| hit(k)) {
                let entry = entries.remove(i);
                let plan = Arc::clone(&entry.1);
                entries.insert(0, entry);
                return Ok(plan);
            }
        }
        let plan = Arc::new(spec.plan(x, out)?);
        let mut entries = self.entries.lock().unwrap_or_else(|p| p.into_inner());
        entries.insert(0, ((spec.clone(), x.layout.clone(), out.layout.clone()), Arc::clone(&plan)));
        entries.truncate(self.capacity);
        Ok(plan)
    }
}
