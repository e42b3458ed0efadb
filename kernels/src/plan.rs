//! [`Plan`] (what to copy, plain data) and [`Walk`] (a plan proven safe to execute).

use core::fmt;

use crate::exec::{self, ExecOptions};
use crate::isa::Isa;
use crate::nest::NEST_ARRAY_LEN;
use crate::overlap::{Overlap, find_overlap};
use crate::shuffle::{Shuffle, WideShuffle};
use crate::width::Width;

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

/// A strided copy: for every coordinate `c` of `dims` (outermost first), copy the `width` bytes at
/// `in_base + Σ cₖ·in_strideₖ` of the input to `out_base + Σ cₖ·out_strideₖ` of the output.
///
/// The planner in `strider` produces plans in normal form (size-1 dimensions dropped, dimensions ordered by output
/// stride, contiguous dimensions coalesced), but any plan is accepted by [`Walk::new`], which checks it.
#[derive(Clone, Debug, PartialEq, Eq, Hash)]
pub struct Plan {
    /// Bytes per element (one of [`Width::ALL`]).
    pub width: usize,
    /// Byte offset in the input of the element at coordinate 0.
    pub in_base: usize,
    /// Byte offset in the output of the element at coordinate 0.
    pub out_base: usize,
    /// Dimensions, outermost first; the last one is the row a row kernel copies. 1 to 8 of them.
    pub dims: Vec<Dim>,
}

impl fmt::Display for Plan {
    /// `width B · [extent: in ±stride, out stride] … · bases in/out`, strides in bytes, outermost first.
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{}-byte elements ·", self.width)?;
        for d in &self.dims {
            write!(f, " [{}: in {}, out {}]", d.extent, d.in_stride, d.out_stride)?;
        }
        write!(f, " · base in {} out {}", self.in_base, self.out_base)
    }
}

/// How the innermost dimension (the row) of a walk is copied; chosen by [`Walk::new`] from the row's strides.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
#[non_exhaustive]
pub enum RowKind {
    /// Both operands contiguous: one bulk copy per row.
    Copy,
    /// Output contiguous, input stepping back one element: a reversed row.
    Reverse,
    /// Output contiguous, input stride 0: one element repeated.
    Broadcast,
    /// Output contiguous, input stride `stride` elements (|stride| ≥ 2).
    Gather {
        /// Input step in elements.
        stride: isize,
    },
    /// Anything else (strided output, input strides that are not whole elements).
    Strided,
    /// Short rows: the innermost dimensions are absorbed into a table of (input, output) offsets, copied one
    /// element per entry (tiny and high-rank walks, where loop overhead would dominate).
    Table {
        /// Elements per table row.
        len: usize,
    },
    /// The output's contiguous dimension is not the input's: a 2-D transpose of the two, through cache-line
    /// blocks of 8×8 in-register tiles.
    Transpose {
        /// Extent of the output-contiguous dimension folded into the kernel.
        rows: usize,
    },
    /// Planes into interleaved elements (CHW → HWC with 2 to 4 channels).
    Interleave {
        /// Number of planes (channels).
        planes: usize,
    },
    /// Interleaved elements into planes (HWC → CHW with 2 to 4 channels).
    Deinterleave {
        /// Number of planes (channels).
        planes: usize,
    },
}

impl fmt::Display for RowKind {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            RowKind::Copy => f.write_str("contiguous copy"),
            RowKind::Reverse => f.write_str("reverse"),
            RowKind::Broadcast => f.write_str("broadcast"),
            RowKind::Gather { stride } => write!(f, "gather (input stride {stride})"),
            RowKind::Strided => f.write_str("strided"),
            RowKind::Table { len } => write!(f, "table of {len} offsets"),
            RowKind::Transpose { rows } => write!(f, "transpose ({rows} rows, 8x8 tiles)"),
            RowKind::Interleave { planes } => write!(f, "interleave of {planes} planes"),
            RowKind::Deinterleave { planes } => write!(f, "deinterleave into {planes} planes"),
        }
    }
}

impl RowKind {
    /// The kind of a row of `width`-byte elements with the given byte strides.
    pub fn classify(width: usize, in_stride: isize, out_stride: isize) -> RowKind {
        let w = width as isize;
        if out_stride != w {
            return RowKind::Strided;
        }
        match in_stride {
            s if s == w => RowKind::Copy,
            s if s == -w => RowKind::Reverse,
            0 => RowKind::Broadcast,
            s if s % w == 0 => RowKind::Gather { stride: s / w },
            _ => RowKind::Strided,
        }
    }
}

/// Why a [`Plan`] cannot become a [`Walk`]. The planner in `strider` only builds valid plans; these errors exist
/// so that this crate's safe API stays sound on its own.
#[derive(Clone, Debug, PartialEq, Eq)]
#[non_exhaustive]
pub enum PlanError {
    /// `dims` is empty or longer than [`MAX_RANK`].
    Rank(usize),
    /// The element width has no kernel.
    Width(usize),
    /// A dimension has extent 0.
    EmptyDim(usize),
    /// An address of the operand falls below 0 or beyond `isize::MAX`.
    AddressRange(&'static str),
    /// The executable geometry derived from the plan does not walk exactly the plan's dimensions (a bug in this
    /// crate, caught before any memory is touched).
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
            PlanError::Width(w) => write!(f, "no kernel copies {w}-byte elements"),
            PlanError::EmptyDim(d) => write!(f, "dimension {d} of the plan has extent 0"),
            PlanError::AddressRange(op) => write!(f, "the {op} addresses fall outside 0..=isize::MAX"),
            PlanError::OverlappingOutput => f.write_str("two output elements of the plan share a byte"),
            PlanError::OverlapUndecided => f.write_str("could not decide whether output elements overlap"),
            PlanError::Inconsistent => f.write_str("internal error: the derived walk does not match its plan"),
        }
    }
}

impl std::error::Error for PlanError {}

/// Why [`Walk::run`] refused to run.
#[derive(Clone, Debug, PartialEq, Eq)]
#[non_exhaustive]
pub enum RunError {
    /// A buffer is shorter than the bytes the walk addresses.
    BufferTooSmall {
        /// `"input"` or `"output"`.
        operand: &'static str,
        /// Bytes the walk addresses.
        required: usize,
        /// Bytes the buffer holds.
        actual: usize,
    },
    /// The requested instruction set is not available on this CPU.
    IsaUnavailable(Isa),
}

impl fmt::Display for RunError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            RunError::BufferTooSmall { operand, required, actual } => {
                write!(f, "the {operand} buffer holds {actual} bytes but the walk addresses {required}")
            }
            RunError::IsaUnavailable(isa) => write!(f, "instruction set {isa} is not available on this CPU"),
        }
    }
}

impl std::error::Error for RunError {}

/// A [`Plan`] checked for execution: every address it touches is known, the output never writes a byte twice, and
/// the row kernel is chosen. Construct once, run many times from any thread.
#[derive(Clone, Debug)]
pub struct Walk {
    plan: Plan,
    pub(crate) kind: RowKind,
    pub(crate) width: Width,
    /// Outer dimensions (all but the row), outermost first, padded with extent 1.
    pub(crate) outer_rank: usize,
    pub(crate) extents: [usize; NEST_ARRAY_LEN],
    pub(crate) in_strides: [isize; NEST_ARRAY_LEN],
    pub(crate) out_strides: [isize; NEST_ARRAY_LEN],
    pub(crate) row_len: usize,
    pub(crate) row_in_stride: isize,
    pub(crate) row_out_stride: isize,
    pub(crate) in_base: usize,
    pub(crate) out_base: usize,
    /// Product of the outer extents.
    pub(crate) rows: usize,
    /// Bytes written in total.
    pub(crate) out_bytes: usize,
    in_need: usize,
    out_need: usize,
    /// Byte-shuffle tables for rows no register permute expresses (group reverses, small-stride gathers).
    pub(crate) shuffle: Option<Shuffle>,
    /// The same as 64-byte lanes, for levels with AVX-512 VBMI.
    pub(crate) wide: Option<WideShuffle>,
    /// Whether contiguous rows are written with non-temporal stores (outputs too large to stay cached).
    pub(crate) stream: bool,
    /// For [`RowKind::Table`]: the offsets of each element of a table row.
    pub(crate) table: Option<TableOffsets>,
    /// For the transposing kinds: the dimension folded into the kernel beside the row (extent, input and output
    /// byte strides).
    pub(crate) fold: Dim,
    /// For interleave / deinterleave: `pshufb` controls, `[chunk][plane]`.
    pub(crate) planar: Option<crate::shuffle::Planar>,
}

/// The element offsets of a table row, relative to the row's base.
#[derive(Clone, Debug)]
pub(crate) enum TableOffsets {
    /// (input, output) byte offsets.
    Pairs(Vec<(isize, isize)>),
    /// Input byte offsets alone: the outputs are contiguous (`0, N, 2N, …`).
    Inputs(Vec<isize>),
}

/// Lowest and highest byte offset (inclusive of the element's last byte) an operand's walk touches.
fn span(base: usize, width: usize, dims: &[Dim], stride: impl Fn(&Dim) -> isize) -> Option<(i128, i128)> {
    let mut lo = base as i128;
    let mut hi = base as i128 + width as i128 - 1;
    for d in dims {
        let reach = (d.extent as i128 - 1) * stride(d) as i128;
        if reach < 0 {
            lo += reach;
        } else {
            hi += reach;
        }
    }
    (lo >= 0 && hi < isize::MAX as i128).then_some((lo, hi))
}

impl Walk {
    /// Checks `plan` and chooses its row kernel.
    ///
    /// # Errors
    ///
    /// [`PlanError`] when the plan has no dimensions or more than [`MAX_RANK`], an empty dimension, an unsupported
    /// width, addresses outside `0..=isize::MAX`, or output elements that overlap.
    pub fn new(plan: &Plan) -> Result<Walk, PlanError> {
        let rank = plan.dims.len();
        if rank == 0 || rank > MAX_RANK {
            return Err(PlanError::Rank(rank));
        }
        let width = Width::from_bytes(plan.width).ok_or(PlanError::Width(plan.width))?;
        if let Some(k) = plan.dims.iter().position(|d| d.extent == 0) {
            return Err(PlanError::EmptyDim(k));
        }
        let (_, in_hi) =
            span(plan.in_base, plan.width, &plan.dims, |d| d.in_stride).ok_or(PlanError::AddressRange("input"))?;
        let (_, out_hi) =
            span(plan.out_base, plan.width, &plan.dims, |d| d.out_stride).ok_or(PlanError::AddressRange("output"))?;
        // Byte-level injectivity: the element's bytes are one more dimension of stride 1.
        let mut sizes: Vec<u64> = plan.dims.iter().map(|d| d.extent as u64).collect();
        let mut strides: Vec<i64> = plan.dims.iter().map(|d| d.out_stride as i64).collect();
        sizes.push(plan.width as u64);
        strides.push(1);
        match find_overlap(&sizes, &strides) {
            Overlap::Disjoint => {}
            Overlap::Collision { .. } => return Err(PlanError::OverlappingOutput),
            Overlap::Undecided => return Err(PlanError::OverlapUndecided),
        }
        let (outer, row) = plan.dims.split_at(rank - 1);
        let row = row[0];
        let kind = RowKind::classify(plan.width, row.in_stride, row.out_stride);
        let stride = match kind {
            RowKind::Reverse => Some(-1),
            RowKind::Gather { stride } => Some(stride),
            _ => None,
        };
        let shuffle = stride.and_then(|k| Shuffle::new(plan.width, k));
        let wide = stride.and_then(|k| WideShuffle::new(plan.width, k));
        let mut walk = Walk {
            plan: plan.clone(),
            kind,
            shuffle,
            wide,
            stream: false,
            table: None,
            fold: Dim { extent: 1, in_stride: 0, out_stride: 0 },
            planar: None,
            width,
            outer_rank: 0,
            extents: [1; NEST_ARRAY_LEN],
            in_strides: [0; NEST_ARRAY_LEN],
            out_strides: [0; NEST_ARRAY_LEN],
            row_len: 0,
            row_in_stride: 0,
            row_out_stride: 0,
            in_base: plan.in_base,
            out_base: plan.out_base,
            rows: 0,
            out_bytes: 0,
            in_need: in_hi as usize + 1,
            out_need: out_hi as usize + 1,
        };
        // The output is injective at byte level, so the element count times the width fits below isize::MAX.
        walk.set_geometry(outer, row);
        walk.out_bytes = walk.rows * walk.row_len * plan.width;
        // Footprint: the bytes the walk touches — its output plus the input it actually reads. A row reading every
        // k-th element pulls in up to a whole cache line per element; skipped outer slices cost nothing.
        let (w, step) = (plan.width as isize, row.in_stride.unsigned_abs() as isize);
        let amplification = if row.in_stride == 0 { 0 } else { (step / w).clamp(1, (64 / w).max(1)) as usize };
        let footprint = walk.out_bytes.saturating_mul(1 + amplification);
        walk.stream = footprint >= crate::params::STREAM_FOOTPRINT_BYTES
            && walk.row_len * plan.width >= crate::params::STREAM_MIN_ROW_BYTES;
        // The transforms below restructure the outer dimensions, so they come after the plain layout above.
        if !walk.transpose() && walk.row_len * plan.width < crate::params::TABLE_ROW_BYTES && rank >= 2 {
            walk.absorb_into_table();
        }
        // The bounds and overlap proofs above are about the plan's dimensions; the kernels execute the derived
        // geometry. Make sure the two are the same walk.
        if !walk.consistent() {
            return Err(PlanError::Inconsistent);
        }
        Ok(walk)
    }

    /// Sets what the nests and row kernels walk: the outer dimensions (outermost first) and the row.
    fn set_geometry(&mut self, outer: &[Dim], row: Dim) {
        self.outer_rank = outer.len();
        self.extents = [1; NEST_ARRAY_LEN];
        self.in_strides = [0; NEST_ARRAY_LEN];
        self.out_strides = [0; NEST_ARRAY_LEN];
        for (k, d) in outer.iter().enumerate() {
            self.extents[k] = d.extent;
            self.in_strides[k] = d.in_stride;
            self.out_strides[k] = d.out_stride;
        }
        self.rows = outer.iter().map(|d| d.extent).product();
        self.row_len = row.extent;
        self.row_in_stride = row.in_stride;
        self.row_out_stride = row.out_stride;
    }

    /// Whether the executed geometry — outer dimensions, row, and the folded dimension or table — walks exactly the
    /// plan's dimensions.
    fn consistent(&self) -> bool {
        let dims = &self.plan.dims;
        let outer: Vec<Dim> = (0..self.outer_rank)
            .map(|k| Dim { extent: self.extents[k], in_stride: self.in_strides[k], out_stride: self.out_strides[k] })
            .collect();
        let row = Dim { extent: self.row_len, in_stride: self.row_in_stride, out_stride: self.row_out_stride };
        let key = |d: &Dim| (d.extent, d.in_stride, d.out_stride);
        match self.kind {
            RowKind::Transpose { .. } | RowKind::Interleave { .. } | RowKind::Deinterleave { .. } => {
                // The planar kinds also need their shuffle tables.
                if !matches!(self.kind, RowKind::Transpose { .. }) && self.planar.is_none() {
                    return false;
                }
                let mut used: Vec<Dim> = outer;
                used.push(row);
                used.push(self.fold);
                let mut plan: Vec<Dim> = dims.clone();
                used.sort_by_key(key);
                plan.sort_by_key(key);
                used == plan
            }
            RowKind::Table { len } => {
                let keep = self.outer_rank;
                let entries = match &self.table {
                    Some(TableOffsets::Pairs(t)) => t.len(),
                    Some(TableOffsets::Inputs(t)) => t.len(),
                    None => return false,
                };
                entries == len
                    && dims[..keep] == outer[..]
                    && dims[keep..].iter().map(|d| d.extent).product::<usize>() == len
            }
            _ => {
                dims.len() == self.outer_rank + 1
                    && dims[..self.outer_rank] == outer[..]
                    && dims[self.outer_rank] == row
            }
        }
    }

    /// Recognizes a transpose: the row (the output's contiguous dimension, `I`) is strided in the input while
    /// another dimension `J` is contiguous in the input. Folds one of the two into the kernel and makes the other
    /// the row: tiles when both have at least 8 elements, interleave when `I` has 2 to 4 (planes into pixels),
    /// deinterleave when `J` has 2 to 4 (pixels into planes). Returns whether the walk became a transpose.
    fn transpose(&mut self) -> bool {
        let w = self.plan.width as isize;
        let rank = self.plan.dims.len();
        let i = self.plan.dims[rank - 1];
        if rank < 2 || i.out_stride != w || i.in_stride == w || !self.width.bytes().is_power_of_two() {
            return false;
        }
        let Some(jpos) = (0..rank - 1).rev().find(|&k| self.plan.dims[k].in_stride == w) else {
            return false;
        };
        let j = self.plan.dims[jpos];
        let (kind, row, fold) = if i.extent >= 8 && j.extent >= 8 {
            (RowKind::Transpose { rows: i.extent }, j, i)
        } else if (2..=4).contains(&i.extent) && j.extent >= 16 && j.out_stride == i.extent as isize * w {
            (RowKind::Interleave { planes: i.extent }, j, i)
        } else if (2..=4).contains(&j.extent) && i.extent >= 16 && i.in_stride == j.extent as isize * w {
            (RowKind::Deinterleave { planes: j.extent }, i, j)
        } else {
            return false;
        };
        let outer: Vec<Dim> = (0..rank - 1).filter(|&k| k != jpos).map(|k| self.plan.dims[k]).collect();
        self.set_geometry(&outer, row);
        self.fold = fold;
        self.kind = kind;
        self.shuffle = None;
        self.wide = None;
        self.planar = match kind {
            RowKind::Interleave { planes } | RowKind::Deinterleave { planes } => {
                Some(crate::shuffle::Planar::new(self.plan.width, planes, matches!(kind, RowKind::Interleave { .. })))
            }
            _ => None,
        };
        true
    }

    /// Absorbs the innermost dimensions (at least the row and the next one) into a table row of at most
    /// [`params::TABLE_MAX`] elements, listing every element's byte offsets in row-major order.
    ///
    /// [`params::TABLE_MAX`]: crate::params::TABLE_MAX
    fn absorb_into_table(&mut self) {
        let dims = &self.plan.dims;
        let rank = dims.len();
        let mut keep = rank - 1; // dims[keep..] go into the table
        let mut len = dims[rank - 1].extent;
        while keep > 0 && len * dims[keep - 1].extent <= crate::params::TABLE_MAX {
            keep -= 1;
            len *= dims[keep].extent;
        }
        if keep == rank - 1 {
            return; // not even one outer dimension fits
        }
        let mut table = vec![(0isize, 0isize)];
        for d in &dims[keep..] {
            let mut next = Vec::with_capacity(table.len() * d.extent);
            for &(i, o) in &table {
                for c in 0..d.extent as isize {
                    next.push((i + c * d.in_stride, o + c * d.out_stride));
                }
            }
            table = next;
        }
        let outer = dims[..keep].to_vec();
        self.set_geometry(&outer, Dim { extent: len, in_stride: 0, out_stride: 0 });
        self.kind = RowKind::Table { len };
        self.shuffle = None;
        self.wide = None;
        let w = self.plan.width as isize;
        self.table = Some(if table.iter().enumerate().all(|(j, &(_, o))| o == j as isize * w) {
            TableOffsets::Inputs(table.iter().map(|&(i, _)| i).collect())
        } else {
            TableOffsets::Pairs(table)
        });
    }

    /// The plan this walk executes.
    pub fn plan(&self) -> &Plan {
        &self.plan
    }

    /// The row kernel chosen for the innermost dimension.
    pub fn kind(&self) -> RowKind {
        self.kind
    }

    /// Bytes the input buffer must hold.
    pub fn input_bytes_needed(&self) -> usize {
        self.in_need
    }

    /// Bytes the output buffer must hold.
    pub fn output_bytes_needed(&self) -> usize {
        self.out_need
    }

    /// Bytes the walk writes (the element count times the width).
    pub fn bytes_copied(&self) -> usize {
        self.out_bytes
    }

    /// Copies `src` into `dst` as planned. Bytes of `dst` that the plan does not address are not written.
    ///
    /// # Errors
    ///
    /// [`RunError::BufferTooSmall`] when a buffer is shorter than [`Walk::input_bytes_needed`] or
    /// [`Walk::output_bytes_needed`]; [`RunError::IsaUnavailable`] when `opts` forces an instruction set this CPU
    /// lacks. Nothing is written then.
    pub fn run(&self, src: &[u8], dst: &mut [u8], opts: &ExecOptions) -> Result<(), RunError> {
        if src.len() < self.in_need {
            return Err(RunError::BufferTooSmall { operand: "input", required: self.in_need, actual: src.len() });
        }
        if dst.len() < self.out_need {
            return Err(RunError::BufferTooSmall { operand: "output", required: self.out_need, actual: dst.len() });
        }
        let level = match opts.isa {
            None => crate::isa::best(),
            Some(isa) => crate::isa::Level::of(isa).ok_or(RunError::IsaUnavailable(isa))?,
        };
        exec::run(self, src, dst, level, opts);
        Ok(())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn plan(width: usize, in_base: usize, dims: &[(usize, isize, isize)]) -> Plan {
        Plan {
            width,
            in_base,
            out_base: 0,
            dims: dims.iter().map(|&(extent, in_stride, out_stride)| Dim { extent, in_stride, out_stride }).collect(),
        }
    }

    #[test]
    fn classify_rows() {
        assert_eq!(RowKind::classify(4, 4, 4), RowKind::Copy);
        assert_eq!(RowKind::classify(4, -4, 4), RowKind::Reverse);
        assert_eq!(RowKind::classify(4, 0, 4), RowKind::Broadcast);
        assert_eq!(RowKind::classify(4, -12, 4), RowKind::Gather { stride: -3 });
        assert_eq!(RowKind::classify(4, 6, 4), RowKind::Strided);
        assert_eq!(RowKind::classify(4, 4, 8), RowKind::Strided);
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

    #[test]
    fn needs_and_run_checks() {
        let w = Walk::new(&plan(2, 6, &[(3, -2, 2)])).unwrap();
        assert_eq!((w.input_bytes_needed(), w.output_bytes_needed(), w.bytes_copied()), (8, 6, 6));
        assert_eq!(w.kind(), RowKind::Reverse);
        let src = [1u8, 2, 3, 4, 5, 6, 7, 8];
        let mut dst = [0u8; 6];
        assert!(matches!(
            w.run(&src[..7], &mut dst, &ExecOptions::default()),
            Err(RunError::BufferTooSmall { operand: "input", required: 8, actual: 7 })
        ));
        assert!(matches!(
            w.run(&src, &mut dst[..5], &ExecOptions::default()),
            Err(RunError::BufferTooSmall { operand: "output", .. })
        ));
        assert_eq!(dst, [0; 6]);
        w.run(&src, &mut dst, &ExecOptions::default()).unwrap();
        assert_eq!(dst, [7, 8, 5, 6, 3, 4]);
    }
}
