#![deny(clippy::arithmetic_side_effects)]
//! [`Walk`]: a [`Plan`] proven safe to execute. This file is the safety proof every kernel relies on.
//!
//! For any plan, [`Walk::new`] either fails or establishes, in checked arithmetic:
//! 1. every input element a coordinate names lies in `0..input_bytes_needed()` and every output element in
//!    `0..output_bytes_needed()`, both at most `isize::MAX`;
//! 2. no two output elements share a byte (so parallel chunks never race, and a write never clobbers another);
//! 3. the element widths are ones the kernels handle.
//!
//! The kernels never walk the plan's dimensions directly: they walk a [`Geometry`], which only this file can build
//! and which is always a *partition* of the proven dimensions (an outer nest, a row, optionally a dimension folded
//! into the row kernel, or the innermost dimensions tabulated as offsets). So whatever the strategy chooses, every
//! address the kernels form is one of the proven ones.

use core::fmt;

use crate::overlap::{Overlap, find_overlap};
use crate::plan::{Dim, ElementOp, MAX_RANK, Plan};
use crate::width::Width;

/// Why a [`Plan`] cannot become a [`Walk`]. The planner in `strider` only builds valid plans; these errors exist
/// so that this crate's safe API stays sound on its own.
#[derive(Clone, Debug, PartialEq, Eq)]
#[non_exhaustive]
pub enum PlanError {
    /// `dims` is empty or longer than [`MAX_RANK`].
    Rank(usize),
    /// The element width has no kernel.
    Width(usize),
    /// The element operation is not defined for its types (scale/bias of a non-float type), or its parameters are
    /// missing (a normalization without them) or superfluous.
    Op,
    /// The parameters do not have one stride per dimension, or address pairs outside their table.
    Params,
    /// A dimension has extent 0.
    EmptyDim(usize),
    /// An address of the operand falls below 0 or beyond `isize::MAX`, or its computation overflows.
    AddressRange(&'static str),
    /// The strategy's geometry does not walk exactly the plan's dimensions (a bug in this crate, caught before any
    /// memory is touched).
    Inconsistent,
    /// Two output elements share a byte.
    OverlappingOutput,
    /// The overlap search could not decide.
    OverlapUndecided,
}

impl fmt::Display for PlanError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            PlanError::Rank(r) => write!(f, "a plan has 1 to {MAX_RANK} dimensions, not {r}"),
            PlanError::Width(w) => write!(f, "no kernel moves {w}-byte elements"),
            PlanError::Op => f.write_str("the element operation is not defined for its element types or parameters"),
            PlanError::Params => f.write_str("the parameters do not cover every element of the plan"),
            PlanError::EmptyDim(d) => write!(f, "dimension {d} of the plan has extent 0"),
            PlanError::AddressRange(op) => write!(f, "the {op} addresses fall outside 0..=isize::MAX"),
            PlanError::OverlappingOutput => f.write_str("two output elements of the plan share a byte"),
            PlanError::OverlapUndecided => f.write_str("could not decide whether output elements overlap"),
            PlanError::Inconsistent => f.write_str("internal error: the derived geometry does not match its plan"),
        }
    }
}

impl std::error::Error for PlanError {}

/// A [`Plan`] checked for execution: every address it touches is known and in range, and the output never
/// writes a byte twice.
#[derive(Clone, Debug)]
pub struct Walk {
    plan: Plan,
    in_lo: usize,
    in_need: usize,
    out_lo: usize,
    out_need: usize,
    elements: usize,
    bytes_written: usize,
}

/// `[lo, hi]`, the lowest and highest byte (inclusive of the element's last byte) an operand's walk touches, in
/// checked arithmetic; `None` when it overflows or leaves `0..=isize::MAX`.
pub(crate) fn reach(base: usize, width: usize, dims: &[Dim], stride: impl Fn(&Dim) -> isize) -> Option<(usize, usize)> {
    let mut lo = i128::try_from(base).ok()?;
    let mut hi = lo.checked_add(i128::try_from(width).ok()?.checked_sub(1)?)?;
    for d in dims {
        // (extent − 1)·stride < 2^64 · 2^63 fits i128; the running sums are checked.
        let r = i128::try_from(d.extent).ok()?.checked_sub(1)?.checked_mul(stride(d) as i128)?;
        if r < 0 {
            lo = lo.checked_add(r)?;
        } else {
            hi = hi.checked_add(r)?;
        }
    }
    let max = isize::MAX as i128;
    (lo >= 0 && hi < max).then_some((lo as usize, hi as usize))
}

impl Walk {
    /// Checks `plan`.
    ///
    /// # Errors
    ///
    /// [`PlanError`] when the plan has no dimensions or more than [`MAX_RANK`], an empty dimension, an unsupported
    /// width or operation, addresses outside `0..=isize::MAX` (or whose computation overflows), or output elements
    /// that overlap.
    pub fn new(plan: &Plan) -> Result<Walk, PlanError> {
        let dims = plan.dims();
        let rank = dims.len();
        if rank == 0 || rank > MAX_RANK {
            return Err(PlanError::Rank(rank));
        }
        match *plan.op() {
            ElementOp::Copy { width } => {
                Width::from_bytes(width).ok_or(PlanError::Width(width))?;
            }
            ElementOp::Cast { .. } => {}
            ElementOp::ScaleBias { ty, .. } => {
                if !ty.is_float() {
                    return Err(PlanError::Op);
                }
            }
            ElementOp::Normalize { .. } | ElementOp::Sequence { .. } => {}
        }
        if let Some(k) = dims.iter().position(|d| d.extent == 0) {
            return Err(PlanError::EmptyDim(k));
        }
        // A normalization reads its parameters like a third operand: one stride per dimension, every pair inside
        // the table. Other operations take none.
        match (plan.op(), plan.params()) {
            (ElementOp::Normalize { .. }, Some(p)) => {
                if p.strides().len() != rank {
                    return Err(PlanError::Params);
                }
                let dims_of = dims.iter().zip(p.strides());
                let params_dims: Vec<Dim> =
                    dims_of.map(|(d, &s)| Dim { extent: d.extent, in_stride: s, out_stride: 0 }).collect();
                let (_, hi) = reach(p.base(), 1, &params_dims, |d| d.in_stride).ok_or(PlanError::Params)?;
                if hi >= p.table().len() {
                    return Err(PlanError::Params);
                }
            }
            (ElementOp::Normalize { .. }, None) | (_, Some(_)) => return Err(PlanError::Op),
            (_, None) => {}
        }
        let (iw, ow) = (plan.in_width(), plan.out_width());
        let (in_lo, in_hi) =
            reach(plan.in_base(), iw, dims, |d| d.in_stride).ok_or(PlanError::AddressRange("input"))?;
        let (out_lo, out_hi) =
            reach(plan.out_base(), ow, dims, |d| d.out_stride).ok_or(PlanError::AddressRange("output"))?;
        // Byte-level injectivity of the output. When every stride is a multiple of the element width, elements
        // occupy disjoint, aligned slots of that width and injectivity of the element offsets is the same question
        // with smaller numbers (and the one the operators decided); otherwise the element's bytes are one more
        // dimension of stride 1.
        let mut sizes: Vec<u64> = dims.iter().map(|d| d.extent as u64).collect();
        let w = ow as isize;
        let in_elements: Option<Vec<i64>> = dims
            .iter()
            .map(|d| (d.out_stride.checked_rem(w) == Some(0)).then(|| d.out_stride.checked_div(w)).flatten())
            .map(|s| s.map(|s| s as i64))
            .collect();
        let strides = match in_elements {
            Some(strides) => strides,
            None => {
                sizes.push(ow as u64);
                dims.iter().map(|d| d.out_stride as i64).chain([1]).collect()
            }
        };
        match find_overlap(&sizes, &strides) {
            Overlap::Disjoint => {}
            Overlap::Collision { .. } => return Err(PlanError::OverlappingOutput),
            Overlap::Undecided => return Err(PlanError::OverlapUndecided),
        }
        // Injective at byte level inside 0..=isize::MAX: the element count times the width fits (checked anyway).
        let overflow = PlanError::AddressRange("output");
        let elements = dims.iter().try_fold(1usize, |n, d| n.checked_mul(d.extent)).ok_or(overflow.clone())?;
        let bytes_written = elements.checked_mul(ow).ok_or(overflow.clone())?;
        let in_need = in_hi.checked_add(1).ok_or(PlanError::AddressRange("input"))?;
        let out_need = out_hi.checked_add(1).ok_or(overflow)?;
        Ok(Walk { plan: plan.clone(), in_lo, in_need, out_lo, out_need, elements, bytes_written })
    }

    /// The plan this walk executes.
    pub fn plan(&self) -> &Plan {
        &self.plan
    }

    /// Bytes the input buffer must hold.
    pub fn input_bytes_needed(&self) -> usize {
        self.in_need
    }

    /// Bytes the output buffer must hold.
    pub fn output_bytes_needed(&self) -> usize {
        self.out_need
    }

    /// The bytes `[lo, hi)` of the input buffer between the lowest and the highest byte the walk reads.
    pub fn input_range(&self) -> core::ops::Range<usize> {
        self.in_lo..self.in_need
    }

    /// The bytes `[lo, hi)` of the output buffer between the lowest and the highest byte the walk writes.
    pub fn output_range(&self) -> core::ops::Range<usize> {
        self.out_lo..self.out_need
    }

    /// Elements written.
    pub fn elements(&self) -> usize {
        self.elements
    }

    /// Bytes written (the element count times the output width).
    pub fn bytes_written(&self) -> usize {
        self.bytes_written
    }

    /// Whether input and output address the same bytes element for element (same widths, bases and strides of
    /// every dimension): the walk may then run with one buffer as both operands.
    pub fn is_in_place(&self) -> bool {
        let p = &self.plan;
        p.in_width() == p.out_width()
            && p.in_base() == p.out_base()
            && p.dims().iter().all(|d| d.extent == 1 || d.in_stride == d.out_stride)
    }

    /// The proven dimensions, outermost first.
    pub(crate) fn dims(&self) -> &[Dim] {
        self.plan.dims()
    }

    /// The parameter stride (in bytes of the pair table) of dimension `k`: 0 without parameters.
    fn aux_stride(&self, k: usize) -> isize {
        let pair = core::mem::size_of::<[f32; 2]>() as isize;
        // Proven in range with the parameters' reach: |stride|·(extent − 1) < table length.
        self.plan.params().and_then(|p| p.strides().get(k)).map_or(0, |&s| s.saturating_mul(pair))
    }

    /// The byte offset of coordinate 0's parameter pair in the table (0 without parameters).
    pub(crate) fn aux_base(&self) -> usize {
        self.plan.params().map_or(0, |p| p.base().saturating_mul(core::mem::size_of::<[f32; 2]>()))
    }

    /// The `(scale, bias)` pair of each index of dimension `dim` when the parameters vary along that dimension
    /// alone (every other dimension of more than one element has parameter stride 0); `None` otherwise or without
    /// parameters.
    pub(crate) fn pairs_along(&self, dim: usize) -> Option<Vec<[f32; 2]>> {
        let p = self.plan.params()?;
        let dims = self.dims();
        let alone = dims.iter().zip(p.strides()).enumerate().all(|(k, (d, &s))| k == dim || d.extent == 1 || s == 0);
        if !alone {
            return None;
        }
        let (extent, stride) = (dims.get(dim)?.extent, *p.strides().get(dim)?);
        (0..extent)
            .map(|c| {
                // Proven in the table (Walk::new checked the parameters' reach); looked up checked anyway.
                let at = isize::try_from(p.base()).ok()?.checked_add(isize::try_from(c).ok()?.checked_mul(stride)?)?;
                p.table().get(usize::try_from(at).ok()?).copied()
            })
            .collect()
    }

    /// The geometry with dimension `row` as the row, `fold` (if any) folded into the row kernel, and every other
    /// dimension in the outer nest in plan order. `None` unless `row` and `fold` are distinct dimensions.
    pub(crate) fn geometry(&self, row: usize, fold: Option<usize>) -> Option<Geometry> {
        let dims = self.dims();
        if row >= dims.len() || fold.is_some_and(|f| f >= dims.len() || f == row) {
            return None;
        }
        let outer = (0..dims.len()).filter(|&k| k != row && Some(k) != fold).map(|k| (dims[k], self.aux_stride(k)));
        let aux = Aux { row: self.aux_stride(row), fold: fold.map_or(0, |f| self.aux_stride(f)), table: Vec::new() };
        Some(Geometry::new(outer, dims[row], fold.map(|f| dims[f]), None, aux))
    }

    /// The geometry whose row is a table of the byte offsets of every element of the dimensions `keep..` (in
    /// row-major order), at most `max` entries; the outer nest is `..keep` (possibly empty). `None` when the table
    /// would be larger or `keep` leaves no dimension for it.
    pub(crate) fn tabulate(&self, keep: usize, max: usize) -> Option<Geometry> {
        let dims = self.dims();
        if keep >= dims.len() {
            return None;
        }
        let len = dims[keep..].iter().try_fold(1usize, |n, d| n.checked_mul(d.extent).filter(|&n| n <= max))?;
        let mut pairs = Vec::with_capacity(len);
        let mut aux = Vec::with_capacity(len);
        pairs.push((0isize, 0isize));
        aux.push(0isize);
        for (k, d) in dims.iter().enumerate().skip(keep) {
            let mut next = Vec::with_capacity(pairs.len().saturating_mul(d.extent));
            let mut next_aux = Vec::with_capacity(next.capacity());
            let xs = self.aux_stride(k);
            for (&(i, o), &x) in pairs.iter().zip(&aux) {
                for c in 0..d.extent as isize {
                    // Offsets of proven elements relative to the row's first: within ±isize::MAX (reach), and
                    // checked anyway.
                    next.push((
                        i.checked_add(c.checked_mul(d.in_stride)?)?,
                        o.checked_add(c.checked_mul(d.out_stride)?)?,
                    ));
                    next_aux.push(x.checked_add(c.checked_mul(xs)?)?);
                }
            }
            pairs = next;
            aux = next_aux;
        }
        if self.plan.params().is_none() {
            aux.clear();
        }
        let ow = self.plan.out_width() as isize;
        let contiguous = pairs.iter().enumerate().all(|(j, &(_, o))| (j as isize).checked_mul(ow) == Some(o));
        let row = Dim { extent: len, in_stride: 0, out_stride: 0 };
        let inputs = pairs.iter().map(|&(i, _)| i).collect();
        let outer = dims[..keep].iter().enumerate().map(|(k, &d)| (d, self.aux_stride(k)));
        let aux = Aux { row: 0, fold: 0, table: aux };
        Some(Geometry::new(outer, row, None, Some(Table { pairs, inputs, contiguous }), aux))
    }
}

/// Outer dimensions the nest walks: at most [`MAX_RANK`] − 1.
pub(crate) const MAX_OUTER: usize = MAX_RANK - 1;

/// How a walk's proven dimensions are executed: the outer nest, the row, and what the row kernel absorbs (a
/// folded dimension, or a table of offsets). Built only by [`Walk`], always a partition of its dimensions.
#[derive(Clone, Debug)]
pub(crate) struct Geometry {
    outer_rank: usize,
    extents: [usize; MAX_OUTER],
    in_strides: [isize; MAX_OUTER],
    out_strides: [isize; MAX_OUTER],
    aux_strides: [isize; MAX_OUTER],
    rows: usize,
    row: Dim,
    fold: Option<Dim>,
    table: Option<Table>,
    aux: Aux,
}

/// The parameter strides (bytes of the pair table) of the row and the folded dimension, and the parameter offsets
/// of a table row's elements (empty without parameters).
#[derive(Clone, Debug)]
pub(crate) struct Aux {
    row: isize,
    fold: isize,
    table: Vec<isize>,
}

/// The offsets of the elements of a table row, relative to the row's first element.
#[derive(Clone, Debug)]
pub(crate) struct Table {
    pairs: Vec<(isize, isize)>,
    inputs: Vec<isize>,
    contiguous: bool,
}

impl Table {
    /// (input, output) byte offsets of each element.
    pub(crate) fn pairs(&self) -> &[(isize, isize)] {
        &self.pairs
    }

    /// The input byte offsets alone.
    pub(crate) fn inputs(&self) -> &[isize] {
        &self.inputs
    }

    /// Whether the output offsets are `0, w, 2w, …` (the row's output is contiguous).
    pub(crate) fn contiguous(&self) -> bool {
        self.contiguous
    }
}

impl Geometry {
    fn new(
        outer: impl Iterator<Item = (Dim, isize)>,
        row: Dim,
        fold: Option<Dim>,
        table: Option<Table>,
        aux: Aux,
    ) -> Geometry {
        let mut g = Geometry {
            outer_rank: 0,
            extents: [1; MAX_OUTER],
            in_strides: [0; MAX_OUTER],
            out_strides: [0; MAX_OUTER],
            aux_strides: [0; MAX_OUTER],
            rows: 1,
            row,
            fold,
            table,
            aux,
        };
        // A walk has at most MAX_RANK dimensions and the row is one of them; the product of extents of proven
        // dimensions is at most the walk's element count (saturating never applies).
        for ((k, (d, x)), rank) in outer.enumerate().zip(1..) {
            g.extents[k] = d.extent;
            g.in_strides[k] = d.in_stride;
            g.out_strides[k] = d.out_stride;
            g.aux_strides[k] = x;
            g.outer_rank = rank;
            g.rows = g.rows.saturating_mul(d.extent);
        }
        g
    }

    /// Moves the longest outer dimension innermost when the innermost one is short (fewer than
    /// [`params::SHORT_RUN_ROWS`](crate::params::SHORT_RUN_ROWS) rows, at least four times shorter than the longest):
    /// the nest hands the row kernel one run of rows per innermost index, so the run's fixed cost is paid far less
    /// often. The dimensions are the same, only their order changes (any order visits every element once); the
    /// caller decides when the new access order is harmless (in-cache walks).
    pub(crate) fn lengthen_runs(&mut self) {
        let Some(last) = self.outer_rank.checked_sub(1) else { return };
        let (k, longest) = (0..last).map(|k| (k, self.extents[k])).max_by_key(|&(_, e)| e).unwrap_or((last, 0));
        let inner = self.extents[last];
        if inner < crate::params::SHORT_RUN_ROWS && longest / 4 >= inner {
            self.extents.swap(k, last);
            self.in_strides.swap(k, last);
            self.out_strides.swap(k, last);
            self.aux_strides.swap(k, last);
        }
    }

    /// Outer parameter strides (bytes of the pair table; 0 without parameters).
    pub(crate) fn aux_strides(&self) -> &[isize; MAX_OUTER] {
        &self.aux_strides
    }

    /// The parameter stride of the row.
    pub(crate) fn row_aux(&self) -> isize {
        self.aux.row
    }

    /// The parameter stride of the folded dimension.
    pub(crate) fn fold_aux(&self) -> isize {
        self.aux.fold
    }

    /// The parameter offsets of a table row's elements (empty without parameters).
    pub(crate) fn table_aux(&self) -> &[isize] {
        &self.aux.table
    }

    /// Number of outer dimensions.
    pub(crate) fn outer_rank(&self) -> usize {
        self.outer_rank
    }

    /// Outer extents (padded with 1).
    pub(crate) fn extents(&self) -> &[usize; MAX_OUTER] {
        &self.extents
    }

    /// Outer input byte strides (padded with 0).
    pub(crate) fn in_strides(&self) -> &[isize; MAX_OUTER] {
        &self.in_strides
    }

    /// Outer output byte strides (padded with 0).
    pub(crate) fn out_strides(&self) -> &[isize; MAX_OUTER] {
        &self.out_strides
    }

    /// Product of the outer extents: the number of rows.
    pub(crate) fn rows(&self) -> usize {
        self.rows
    }

    /// The row: its length and the byte strides of its elements (0 for a table row).
    pub(crate) fn row(&self) -> Dim {
        self.row
    }

    /// The dimension folded into the row kernel (transposes and planes).
    pub(crate) fn fold(&self) -> Option<Dim> {
        self.fold
    }

    /// The table of a table row.
    pub(crate) fn table(&self) -> Option<&Table> {
        self.table.as_ref()
    }
}

#[cfg(feature = "selftest")]
#[allow(clippy::arithmetic_side_effects)] // test arithmetic on small values
#[strider_kernels_macros::selftests]
mod tests {
    use super::*;
    use crate::{ElemType, Params};

    fn plan(width: usize, in_base: usize, dims: &[(usize, isize, isize)]) -> Plan {
        Plan::copy(
            width,
            in_base,
            0,
            dims.iter().map(|&(extent, in_stride, out_stride)| Dim { extent, in_stride, out_stride }).collect(),
        )
    }

    #[test]
    fn rejects_unsafe_plans() {
        assert_eq!(Walk::new(&plan(4, 0, &[])).unwrap_err(), PlanError::Rank(0));
        assert_eq!(Walk::new(&plan(5, 0, &[(2, 5, 5)])).unwrap_err(), PlanError::Width(5));
        assert_eq!(Walk::new(&plan(4, 0, &[(2, 4, 4), (0, 4, 4)])).unwrap_err(), PlanError::EmptyDim(1));
        // reversed row starting at 0 reads below the buffer
        assert_eq!(Walk::new(&plan(4, 0, &[(2, -4, 4)])).unwrap_err(), PlanError::AddressRange("input"));
        // output rows overlap by 2 bytes
        assert_eq!(Walk::new(&plan(4, 0, &[(2, 16, 2), (4, 4, 4)])).unwrap_err(), PlanError::OverlappingOutput);
        assert_eq!(Walk::new(&plan(1, 0, &[(2, 1, isize::MAX)])).unwrap_err(), PlanError::AddressRange("output"));
    }

    /// A normalization's parameters are a third operand: every pair the walk reads must be in the table, and no
    /// other operation takes parameters.
    #[test]
    fn rejects_parameters_out_of_reach() {
        let op = ElementOp::Normalize { from: ElemType::U8, to: ElemType::F32 };
        let dims =
            vec![Dim { extent: 3, in_stride: 16, out_stride: 64 }, Dim { extent: 16, in_stride: 1, out_stride: 4 }];
        let with = |table: usize, base: usize, strides: Vec<isize>| {
            Walk::new(&Plan::new(op, 0, 0, dims.clone()).with_params(Params::new(
                vec![[1.0, 0.0]; table],
                base,
                strides,
            )))
        };
        assert!(with(3, 0, vec![1, 0]).is_ok());
        assert!(with(3, 2, vec![-1, 0]).is_ok());
        assert_eq!(with(2, 0, vec![1, 0]).unwrap_err(), PlanError::Params); // pair 2 missing
        assert_eq!(with(3, 1, vec![-1, 0]).unwrap_err(), PlanError::Params); // pair −1
        assert_eq!(with(3, 0, vec![1]).unwrap_err(), PlanError::Params); // one stride short
        assert_eq!(with(48, 0, vec![isize::MAX, 1]).unwrap_err(), PlanError::Params); // overflowing reach
        assert_eq!(Walk::new(&Plan::new(op, 0, 0, dims.clone())).unwrap_err(), PlanError::Op);
        let copy = Plan::copy(1, 0, 0, dims.clone()).with_params(Params::new(vec![[1.0, 0.0]], 0, vec![0, 0]));
        assert_eq!(Walk::new(&copy).unwrap_err(), PlanError::Op);
    }

    /// The fuzzer's findings: a plan whose reach overflows the unchecked sum used to pass and then read outside
    /// the buffer; an injective Int16 output used to exhaust the byte-level search.
    #[test]
    fn fuzz_findings() {
        let d = |extent, in_stride, out_stride| Dim { extent, in_stride, out_stride };
        let wrapping = Plan::copy(
            1,
            0,
            64,
            vec![
                d(usize::MAX, isize::MAX, -(1 << 62)),
                d(usize::MAX, isize::MAX - 30, -(1 << 62)),
                d(17 * (1 << 58) + 1, 128, -64),
                d(64, 1, 1),
            ],
        );
        assert!(matches!(Walk::new(&wrapping), Err(PlanError::AddressRange(_))));
        // sizes [572662489, 1450713] (size-1 dimension dropped), Int16 output strides [1 << 30, u32::MAX]
        let int16 =
            Plan::copy(2, 0, 0, vec![d(572662489, 1450713 * 2, (1 << 30) * 2), d(1450713, 0, u32::MAX as isize * 2)]);
        assert!(Walk::new(&int16).is_ok());
        // an isize::MIN stride on a 1-element row is harmless
        assert!(Walk::new(&Plan::copy(1, 0, 0, vec![d(1, isize::MIN, isize::MIN)])).is_ok());
    }

    #[test]
    fn needs() {
        let w = Walk::new(&plan(2, 6, &[(3, -2, 2)])).unwrap();
        assert_eq!((w.input_bytes_needed(), w.output_bytes_needed(), w.bytes_written()), (8, 6, 6));
    }

    #[test]
    fn geometry_is_a_partition() {
        let w = Walk::new(&plan(1, 0, &[(2, 100, 12), (3, 1, 4), (4, 10, 1)])).unwrap();
        let g = w.geometry(2, Some(1)).unwrap();
        assert_eq!((g.outer_rank(), g.rows(), g.row().extent, g.fold().unwrap().extent), (1, 2, 4, 3));
        assert!(w.geometry(1, Some(1)).is_none() && w.geometry(3, None).is_none());
        let t = w.tabulate(1, 64).unwrap();
        assert_eq!(t.table().unwrap().pairs().len(), 12);
        assert_eq!(t.table().unwrap().pairs()[5], (1 + 10, 4 + 1));
        assert!(w.tabulate(1, 11).is_none() && w.tabulate(3, 64).is_none());
        assert_eq!(w.tabulate(0, 64).unwrap().rows(), 1);
    }
}
