//! What a call asks for (`Spec`), checked in the caller's coordinates, and the Strider operator that does it
//! (`Planned`), built on the arrays' tensors (a negative NumPy stride is a reversed dimension), so no array is ever
//! copied and every error is in the caller's coordinates.

use std::sync::{Arc, Mutex};

use pyo3::exceptions::PyValueError;
use pyo3::prelude::*;
use strider_core::{DataType, Operator, OperatorDesc, ScaleBias};

use crate::view::{Layout, View, dimensions, dtype_error, strider_error};

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

    /// The whole of an array of `sizes`, forwards.
    fn whole(sizes: &[u32]) -> Window {
        Window { offsets: vec![0; sizes.len()], sizes: sizes.to_vec(), strides: vec![1; sizes.len()] }
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

/// NumPy's name of a data type.
pub(crate) fn numpy_name(dt: DataType) -> &'static str {
    match dt {
        DataType::Float16 => "float16",
        DataType::Float32 => "float32",
        DataType::Float64 => "float64",
        DataType::Int8 => "int8",
        DataType::Int16 => "int16",
        DataType::Int32 => "int32",
        DataType::Int64 => "int64",
        DataType::Uint8 => "uint8",
        DataType::Uint16 => "uint16",
        DataType::Uint32 => "uint32",
        _ => "uint64",
    }
}

impl Spec {
    /// The operator's arguments as Python would write them (for `repr`): parameters as the f32 values the
    /// operator computes with.
    pub(crate) fn arguments(&self) -> String {
        let floats = |bits: &[u32]| {
            let v: Vec<String> = bits.iter().map(|&b| format!("{:?}", f32::from_bits(b))).collect();
            format!("[{}]", v.join(", "))
        };
        let window = |w: &Window| format!("offsets={:?}, sizes={:?}, strides={:?}", w.offsets, w.sizes, w.strides);
        match self {
            Spec::Slice1(w) => window(w),
            Spec::Slice { offsets, sizes, strides } => {
                format!("offsets={offsets:?}, sizes={sizes:?}, strides={strides:?}")
            }
            Spec::Identity { scale_bias: None } => String::new(),
            Spec::Identity { scale_bias: Some((s, b)) } => {
                format!("scale={:?}, bias={:?}", f32::from_bits(*s), f32::from_bits(*b))
            }
            Spec::Cast(dt) => numpy_name(*dt).to_owned(),
            Spec::Normalize { dtype, window: w, axis, scale, bias, .. } => {
                let axis = axis.map_or("None".to_owned(), |a| a.to_string());
                let w = w.as_ref().map_or(String::new(), |w| format!(", {}", window(w)));
                format!(
                    "{}, scale={}, bias={}, channel_axis={axis}{w}",
                    numpy_name(*dtype),
                    floats(scale),
                    floats(bias)
                )
            }
        }
    }
}

/// A Strider operator planned for two array layouts.
pub(crate) type Planned = Operator;

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
        let ndim = x.shape.len();
        if !arrays.is_empty() && ndim == 0 {
            return Err(PyValueError::new_err(format!(
                "{} takes a window of an array of 1 to 8 dimensions; x is 0-dimensional",
                self.name()
            )));
        }
        for (name, len) in arrays {
            if len != ndim {
                return Err(PyValueError::new_err(format!(
                    "{name} has {len} values but x has {}; give one per dimension",
                    dimensions(ndim)
                )));
            }
        }
        // The channel axis before the parameters: the count they need depends on it.
        if let Spec::Normalize { axis, lens, .. } = self {
            let shape = self.out_shape(x);
            if let Some(a) = axis.filter(|&a| a >= shape.len()) {
                return Err(PyValueError::new_err(format!(
                    "channel_axis={a} is not an axis of x, which has {}",
                    dimensions(shape.len())
                )));
            }
            let channels = axis.and_then(|a| shape.get(a).copied());
            for (name, len) in [("mean", lens.0), ("std", lens.1)] {
                if len != 1 && Some(len) != channels {
                    let per = channels
                        .map_or(" (without a channel axis)".to_owned(), |c| format!(" or {c}, one per channel"));
                    return Err(PyValueError::new_err(format!("{name} has {len} values; it must have 1{per}")));
                }
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

    /// Plans the operator from `x` into `out`, on the arrays' logical tensors (a negative NumPy stride is a
    /// reversed dimension), so every error is in the caller's coordinates. Errors are `strider.DTypeError` for
    /// dtypes and `ValueError` otherwise, with Strider's message.
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
        let (input, output) = (x.desc.clone(), out.desc.clone());
        let desc = match self {
            Spec::Slice1(w) => OperatorDesc::Slice1 {
                input,
                output,
                window_offsets: w.offsets.clone(),
                window_sizes: w.sizes.clone(),
                window_strides: w.strides.clone(),
            },
            Spec::Slice { offsets, sizes, strides } => OperatorDesc::Slice {
                input,
                output,
                offsets: offsets.clone(),
                sizes: sizes.clone(),
                strides: strides.clone(),
            },
            Spec::Identity { scale_bias } => {
                let scale_bias =
                    scale_bias.map(|(s, b)| ScaleBias { scale: f32::from_bits(s), bias: f32::from_bits(b) });
                OperatorDesc::ElementWiseIdentity { input, output, scale_bias }
            }
            Spec::Cast(_) => OperatorDesc::Cast { input, output },
            Spec::Normalize { window, axis, scale, bias, .. } => {
                let w = window.clone().unwrap_or_else(|| Window::whole(input.sizes()));
                OperatorDesc::Normalize {
                    input,
                    output,
                    window_offsets: w.offsets,
                    window_sizes: w.sizes,
                    window_strides: w.strides,
                    channel_axis: *axis,
                    scale: scale.iter().map(|&b| f32::from_bits(b)).collect(),
                    bias: bias.iter().map(|&b| f32::from_bits(b)).collect(),
                }
            }
        };
        desc.build().map_err(strider_error)
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
