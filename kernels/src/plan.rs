//! [`Plan`]: what to move, as plain data. A plan says nothing about how; [`Walk::new`](crate::Walk::new) checks it
//! and [`Program::new`](crate::Program::new) chooses the kernels.

use core::fmt;
use std::sync::Arc;

use crate::convert::{self, ElemType};

/// Largest number of dimensions of a plan (DirectML's maximum rank).
pub const MAX_RANK: usize = 8;

/// One dimension of a [`Plan`]: an extent and the byte strides of both operands.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub struct Dim {
    /// Number of positions along this dimension (≥ 1).
    pub extent: usize,
    /// Byte step in the input between consecutive positions (may be 0 or negative).
    pub in_stride: isize,
    /// Byte step in the output between consecutive positions.
    pub out_stride: isize,
}

/// What happens to each element on its way from the input to the output.
#[derive(Clone, Copy, Debug, PartialEq)]
#[non_exhaustive]
pub enum ElementOp {
    /// The element's `width` bytes are copied unchanged (1, 2, 4, 8 or 16; wider elements come from widening short
    /// contiguous rows).
    Copy {
        /// Bytes per element.
        width: usize,
    },
    /// Each element is converted as Rust's `as` converts `from` to `to`; f16 sources convert exactly to f32 first
    /// and f16 destinations round once, to nearest even, from the exact source value.
    Cast {
        /// Source type.
        from: ElemType,
        /// Destination type.
        to: ElemType,
    },
    /// Normalization with per-element parameters (the plan's [`Params`], addressed like a third operand):
    /// `y = convert(f32(x)·scale + bias)`. The input becomes f32 as Rust's `as` converts it (f16 exactly); the
    /// product and the sum are each rounded to nearest even in f32; the result converts to `to` rounding to nearest
    /// (integers: half to even, then saturating; NaN → 0).
    Normalize {
        /// Source type.
        from: ElemType,
        /// Destination type.
        to: ElemType,
    },
    /// `y = x·scale + bias` in a float type (`ty` on both sides), computed as a product then a sum, each rounded
    /// to nearest even in f32 (f64 for `F64` elements; f16 elements are widened to f32 exactly and the result
    /// rounded back once).
    ScaleBias {
        /// The float type of both operands (`F16`, `F32` or `F64`).
        ty: ElemType,
        /// Factor.
        scale: f32,
        /// Addend.
        bias: f32,
    },
    /// No input: element `i` of the output is `start + i·delta` (`DML_FILL_VALUE_SEQUENCE`), where `i` is the
    /// element's *index*, which the plan addresses as its input: the input "bytes" of a sequence are indices
    /// (`in_width` 1, input strides in indices), never memory. Integer types compute in 64-bit wrapping arithmetic
    /// (`start` and `delta` are the values' two's-complement bits) and keep the low bits; float types compute
    /// `start + (i as f64)·delta` in f64 (`start` and `delta` are f64 bits), a product then a sum, each rounded to
    /// nearest even, then round once to the type.
    Sequence {
        /// The output type.
        ty: ElemType,
        /// The value at index 0 (bits, see above).
        start: u64,
        /// The step (bits, see above).
        delta: u64,
    },
}

impl ElementOp {
    /// Bytes per input element.
    pub fn in_width(&self) -> usize {
        match *self {
            ElementOp::Copy { width } => width,
            ElementOp::Cast { from, .. } | ElementOp::Normalize { from, .. } => from.width(),
            ElementOp::ScaleBias { ty, .. } => ty.width(),
            ElementOp::Sequence { .. } => 1,
        }
    }

    /// Bytes per output element.
    pub fn out_width(&self) -> usize {
        match *self {
            ElementOp::Copy { width } => width,
            ElementOp::Cast { to, .. } | ElementOp::Normalize { to, .. } => to.width(),
            ElementOp::ScaleBias { ty, .. } | ElementOp::Sequence { ty, .. } => ty.width(),
        }
    }

    /// Applies the operation to one element with the portable scalar code (for references and checks: the
    /// slowest, most obvious way). `src` must hold exactly one input element and `dst` one output element; returns
    /// `false`, writing nothing, otherwise. A normalization applies `scale = 1, bias = 0` here; see
    /// [`ElementOp::normalize_one`] for its parameters. A sequence has no input element: `false` (see
    /// [`ElementOp::sequence_one`]).
    ///
    /// # Examples
    ///
    /// ```
    /// use strider_kernels::{ElemType, ElementOp};
    /// let mut out = [0u8; 2];
    /// assert!(ElementOp::Cast { from: ElemType::F32, to: ElemType::I16 }.apply_one(&(-2.75f32).to_le_bytes(), &mut out));
    /// assert_eq!(i16::from_le_bytes(out), -2);
    /// ```
    pub fn apply_one(&self, src: &[u8], dst: &mut [u8]) -> bool {
        if src.len() != self.in_width() || dst.len() != self.out_width() || self.is_sequence() {
            return false;
        }
        match *self {
            ElementOp::Copy { .. } => dst.copy_from_slice(src),
            ElementOp::Cast { from, to } => convert::cast_one(from, to, src, dst),
            ElementOp::ScaleBias { ty, scale, bias } => convert::affine_one(ty, scale, bias, src, dst),
            ElementOp::Normalize { from, to } => convert::normalize_one(from, to, src, dst, 1.0, 0.0),
            ElementOp::Sequence { .. } => return false,
        }
        true
    }

    /// A normalization of one element with the given parameters, by the portable scalar code. `false` (nothing
    /// written) unless `self` is a normalization and the slices hold one element each.
    ///
    /// # Examples
    ///
    /// ```
    /// use strider_kernels::{ElemType, ElementOp};
    /// let op = ElementOp::Normalize { from: ElemType::U8, to: ElemType::I8 };
    /// let mut y = [0u8];
    /// assert!(op.normalize_one(&[200], &mut y, 0.5, -0.5)); // 200·0.5 − 0.5 = 99.5 → 100 (ties to even)
    /// assert_eq!(y[0] as i8, 100);
    /// ```
    pub fn normalize_one(&self, src: &[u8], dst: &mut [u8], scale: f32, bias: f32) -> bool {
        match *self {
            ElementOp::Normalize { from, to } if src.len() == from.width() && dst.len() == to.width() => {
                convert::normalize_one(from, to, src, dst, scale, bias);
                true
            }
            _ => false,
        }
    }

    /// Element `index` of a sequence, by the portable scalar code (for references). `false` (nothing written) unless
    /// `self` is a sequence and `dst` holds one output element.
    ///
    /// # Examples
    ///
    /// ```
    /// use strider_kernels::{ElemType, ElementOp};
    /// let op = ElementOp::Sequence { ty: ElemType::F32, start: 0.5f64.to_bits(), delta: 0.25f64.to_bits() };
    /// let mut y = [0u8; 4];
    /// assert!(op.sequence_one(6, &mut y)); // 0.5 + 6·0.25
    /// assert_eq!(f32::from_le_bytes(y), 2.0);
    /// ```
    pub fn sequence_one(&self, index: u64, dst: &mut [u8]) -> bool {
        match *self {
            ElementOp::Sequence { ty, start, delta } if dst.len() == ty.width() => {
                convert::sequence_one(ty, start, delta, index, dst);
                true
            }
            _ => false,
        }
    }

    /// Whether this is a [`ElementOp::Sequence`] (an operation without input).
    pub fn is_sequence(&self) -> bool {
        matches!(self, ElementOp::Sequence { .. })
    }

    /// Whether elements are moved unchanged (no value is looked at).
    pub fn is_copy(&self) -> bool {
        matches!(self, ElementOp::Copy { .. }) || matches!(self, ElementOp::Cast { from, to } if from == to)
    }
}

impl fmt::Display for ElementOp {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match *self {
            ElementOp::Copy { width } => write!(f, "{width}-byte elements"),
            ElementOp::Cast { from, to } => write!(f, "cast {}", ElemType::cast_route(from, to)),
            ElementOp::ScaleBias { ty, scale, bias } => write!(f, "{} ·{scale} +{bias}", ty.name()),
            ElementOp::Normalize { from, to } => write!(f, "normalize {} → f32 → {}", from.name(), to.name()),
            ElementOp::Sequence { ty, .. } => write!(f, "sequence of {}", ty.name()),
        }
    }
}

/// The per-element parameters of a normalization: a table of `(scale, bias)` pairs read like a third operand —
/// the pair of coordinate `c` is `table[base + Σ cₖ·stridesₖ]` (strides in pairs, one per dimension of the plan,
/// 0 where the parameters do not vary).
///
/// # Examples
///
/// ```
/// use strider_kernels::Params;
/// // three channels along the first dimension of a 2-D plan
/// let p = Params::new(vec![[1.0, 0.0], [2.0, 0.5], [0.5, -1.0]], 0, vec![1, 0]);
/// assert_eq!(p.table().len(), 3);
/// ```
#[derive(Clone, Debug, PartialEq)]
pub struct Params {
    table: Arc<[[f32; 2]]>,
    base: usize,
    strides: Vec<isize>,
}

impl Params {
    /// Parameters from their table, the index of coordinate 0's pair and the strides (in pairs) per dimension.
    pub fn new(table: impl Into<Arc<[[f32; 2]]>>, base: usize, strides: Vec<isize>) -> Params {
        Params { table: table.into(), base, strides }
    }

    /// The `(scale, bias)` pairs.
    pub fn table(&self) -> &[[f32; 2]] {
        &self.table
    }

    /// The index of the pair of coordinate 0.
    pub fn base(&self) -> usize {
        self.base
    }

    /// The stride (in pairs) of each dimension.
    pub fn strides(&self) -> &[isize] {
        &self.strides
    }
}

/// A strided elementwise move: for every coordinate `c` of `dims` (outermost first), the element at
/// `in_base + Σ cₖ·in_strideₖ` of the input becomes, through `op`, the element at `out_base + Σ cₖ·out_strideₖ`
/// of the output. Offsets and strides are in bytes.
///
/// The planner in `strider` produces plans in normal form (size-1 dimensions dropped, dimensions ordered by output
/// stride, contiguous dimensions coalesced), but `strider-kernels` accepts any plan: `Walk::new` proves it safe
/// or refuses it. An operator's plan is there to be inspected (`plan()` on every operator).
///
/// # Examples
///
/// ```
/// use strider::{Dim, Plan};
/// let plan = Plan::copy(4, 16, 0, vec![Dim { extent: 5, in_stride: -4, out_stride: 4 }]);
/// assert_eq!(plan.to_string(), "4-byte elements · [5: in -4, out 4] · base in 16 out 0");
/// ```
#[derive(Clone, Debug, PartialEq)]
pub struct Plan {
    op: ElementOp,
    in_base: usize,
    out_base: usize,
    dims: Vec<Dim>,
    params: Option<Params>,
}

impl Plan {
    /// A plan of `dims` (outermost first; the last one is the row) applying `op` to each element.
    pub fn new(op: ElementOp, in_base: usize, out_base: usize, dims: Vec<Dim>) -> Plan {
        Plan { op, in_base, out_base, dims, params: None }
    }

    /// The same plan with the parameters a normalization reads (one stride per dimension of the plan).
    pub fn with_params(self, params: Params) -> Plan {
        Plan { params: Some(params), ..self }
    }

    /// The parameters of a normalization.
    pub fn params(&self) -> Option<&Params> {
        self.params.as_ref()
    }

    /// A plan copying `width`-byte elements unchanged.
    pub fn copy(width: usize, in_base: usize, out_base: usize, dims: Vec<Dim>) -> Plan {
        Plan::new(ElementOp::Copy { width }, in_base, out_base, dims)
    }

    /// What happens to each element.
    pub fn op(&self) -> &ElementOp {
        &self.op
    }

    /// Bytes per input element.
    pub fn in_width(&self) -> usize {
        self.op.in_width()
    }

    /// Bytes per output element.
    pub fn out_width(&self) -> usize {
        self.op.out_width()
    }

    /// Byte offset in the input of the element at coordinate 0.
    pub fn in_base(&self) -> usize {
        self.in_base
    }

    /// Byte offset in the output of the element at coordinate 0.
    pub fn out_base(&self) -> usize {
        self.out_base
    }

    /// The dimensions, outermost first.
    pub fn dims(&self) -> &[Dim] {
        &self.dims
    }
}

impl fmt::Display for Plan {
    /// `op · [extent: in ±stride, out stride] … · base in … out …`, strides in bytes, outermost first.
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{} ·", self.op)?;
        for d in &self.dims {
            write!(f, " [{}: in {}, out {}]", d.extent, d.in_stride, d.out_stride)?;
        }
        write!(f, " · base in {} out {}", self.in_base, self.out_base)?;
        if let Some(p) = &self.params {
            write!(f, " · {} parameter pairs, base {} strides {:?}", p.table.len(), p.base, p.strides)?;
        }
        Ok(())
    }
}
