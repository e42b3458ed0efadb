#![deny(clippy::arithmetic_side_effects)]
//! Index-driven moves: gathers, scatters and one-hot encodings, whose addresses depend on the values of an index
//! tensor read at run time.
//!
//! An [`IndexPlan`] walks a space of *positions* (the [`IndexDim`]s, C order). At each position it reads a tuple of
//! indices ([`Component`]s, one per indexed dimension), turns each into an offset along its dimension (negative
//! values count from the end for signed index types), and copies one fixed *block* (a small strided copy, or one
//! element) between the source and the destination: the indices pick where the block is read ([`Side::Source`], a
//! gather) or where it is written ([`Side::Destination`], a scatter).
//!
//! What makes it safe for every plan and every index value: [`IndexProgram::new`] bounds every address a valid
//! index can reach (the position strides, each component over `0..bound`, the block), and
//! [`IndexProgram::check`] proves every index of a buffer valid before anything runs ([`OutOfRange::Skip`] plans
//! test each tuple as they go and skip the invalid ones instead). Positions split across threads only for gathers
//! whose writes are proved injective ([`find_overlap`]), and for scatters between outermost positions proved to
//! write apart whatever their indices; each part runs its positions in order, so the last update of a duplicated
//! index wins, whatever the thread count.

use core::fmt;

use crate::exec::{ExecOptions, Program, RunError, SendPtr, chunks_for, level, pool, share};
use crate::overlap::{Overlap, find_overlap};
use crate::plan::{Dim, Plan};
use crate::{CacheSizes, params};

pub use crate::arch::gather::IndexType;
use crate::arch::gather::{normalize, value};

/// The most position dimensions (and block dimensions) a plan may have.
pub const MAX_INDEX_RANK: usize = 16;

/// Which side of the copy the indices address.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Side {
    /// The block is read where the indices say (a gather).
    Source,
    /// The block is written where the indices say (a scatter, a one-hot).
    Destination,
}

/// What an index outside its dimension does.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum OutOfRange {
    /// [`IndexProgram::check`] (and [`IndexProgram::run`]) fail with [`IndexError::OutOfRange`]; nothing runs.
    Error,
    /// The position is skipped: nothing is copied for it (DirectML's and ONNX's one-hot).
    Skip,
}

/// One dimension of the position space; strides in bytes.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct IndexDim {
    /// Positions along the dimension.
    pub extent: usize,
    /// Step between the index tuples of consecutive positions.
    pub index_stride: isize,
    /// Step in the source (besides what the indices add).
    pub src_stride: isize,
    /// Step in the destination (besides what the indices add).
    pub dst_stride: isize,
}

/// One index of a tuple: the dimension it addresses.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Component {
    /// Valid indices are `0..bound` (and `-bound..0` for signed types, counted from the end).
    pub bound: u64,
    /// Bytes on the indexed side per unit of the index (negative along a reversed dimension).
    pub step: isize,
}

/// What an index-driven move does (plain data; [`IndexProgram::new`] proves it).
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct IndexPlan {
    /// The type of the index tensor.
    pub index_type: IndexType,
    /// Byte offset of the first position's first index.
    pub index_base: usize,
    /// Bytes between the indices of one tuple.
    pub component_stride: isize,
    /// The tuple: one component per indexed dimension (at least one).
    pub components: Vec<Component>,
    /// The position space, C order (the last dimension fastest). No dimensions: one position.
    pub dims: Vec<IndexDim>,
    /// Byte offset in the source of the first position's block (before the indices' offset).
    pub src_base: usize,
    /// Byte offset in the destination of the first position's block (before the indices' offset).
    pub dst_base: usize,
    /// Which side the indices address.
    pub side: Side,
    /// Bytes per element.
    pub width: usize,
    /// The block copied at each position, from the element a position's offsets address (none: that element
    /// alone).
    pub block: Vec<Dim>,
    /// What an invalid index does.
    pub out_of_range: OutOfRange,
}

/// Why an [`IndexPlan`] cannot run.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct IndexPlanError(String);

impl fmt::Display for IndexPlanError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&self.0)
    }
}

impl std::error::Error for IndexPlanError {}

/// Rows copied before a scatter's updates ([`IndexProgram::with_row_copy`]): before the positions of each outermost
/// position `r` of the plan (its `dims[0]`), `bytes` contiguous bytes are copied from a second input at
/// `src_base + r·src_step` to the destination at `dst_base + r·dst_step` — the output row a scatter's updates of that
/// position go to, filled from the scatter's data input just before them, so that they find it in the cache instead
/// of in memory (where a whole copy beforehand left it).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct RowCopy {
    /// Bytes per row.
    pub bytes: usize,
    /// Byte offset in the copied input of row 0.
    pub src_base: usize,
    /// Bytes from one row to the next in the copied input.
    pub src_step: isize,
    /// Byte offset in the destination of row 0.
    pub dst_base: usize,
    /// Bytes from one row to the next in the destination (at least `bytes` apart: rows never overlap).
    pub dst_step: isize,
}

/// Why [`IndexProgram::check`] or [`IndexProgram::run`] refused.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum IndexError {
    /// An index outside its dimension: the first in position order.
    OutOfRange {
        /// The position (one coordinate per [`IndexPlan::dims`] entry).
        position: Vec<usize>,
        /// Which index of the tuple.
        component: usize,
        /// Its value.
        value: i128,
        /// The size of the dimension it addresses.
        bound: u64,
    },
    /// A buffer too short, an unavailable instruction set, a bad thread count, or a [`Checked`] of another
    /// program.
    Run(RunError),
}

impl fmt::Display for IndexError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            IndexError::OutOfRange { position, component, value, bound } => write!(
                f,
                "index {value} (component {component} at position {position:?}) is outside a dimension of size {bound}"
            ),
            IndexError::Run(e) => e.fmt(f),
        }
    }
}

impl std::error::Error for IndexError {}

impl From<RunError> for IndexError {
    fn from(e: RunError) -> IndexError {
        IndexError::Run(e)
    }
}

/// How a block is copied.
#[derive(Clone, Debug)]
enum Block {
    /// `n` contiguous bytes on both sides (one element, or a contiguous row).
    Bytes(usize),
    /// A proven strided copy whose bases are the distances from the block's first element to the lowest byte it
    /// reads and writes, and whether it is long rows (worth streaming).
    Program { program: Box<Program>, in_base: usize, out_base: usize, rows_stream: bool },
}

/// A proven [`IndexPlan`]: run it many times from any thread.
///
/// # Examples
///
/// An embedding lookup: rows 2, 0 and −1 (the last) of a 4 × 2 byte table.
///
/// ```
/// use strider_kernels::{Component, ExecOptions, IndexDim, IndexPlan, IndexProgram, IndexType, OutOfRange, Side};
/// let plan = IndexPlan {
///     index_type: IndexType::I32,
///     index_base: 0,
///     component_stride: 0,
///     components: vec![Component { bound: 4, step: 2 }],
///     dims: vec![IndexDim { extent: 3, index_stride: 4, src_stride: 0, dst_stride: 2 }],
///     src_base: 0,
///     dst_base: 0,
///     side: Side::Source,
///     width: 1,
///     block: vec![strider_kernels::Dim { extent: 2, in_stride: 1, out_stride: 1 }],
///     out_of_range: OutOfRange::Error,
/// };
/// let program = IndexProgram::new(&plan).unwrap();
/// let indices: Vec<u8> = [2i32, 0, -1].iter().flat_map(|i| i.to_le_bytes()).collect();
/// let mut out = [0u8; 6];
/// program.run(&indices, &[10, 11, 20, 21, 30, 31, 40, 41], &mut out, &ExecOptions::default()).unwrap();
/// assert_eq!(out, [30, 31, 10, 11, 40, 41]);
/// ```
#[derive(Clone, Debug)]
pub struct IndexProgram {
    plan: IndexPlan,
    /// The position dimensions with size-1 dimensions dropped and neighbours merged.
    dims: Vec<IndexDim>,
    block: Block,
    block_bytes: usize,
    positions: usize,
    index_need: usize,
    src_need: usize,
    dst_need: usize,
    /// Whether every position writes bytes of its own (a gather whose writes are injective): positions split
    /// anywhere.
    injective: bool,
    /// The index lanes of the hardware-gather path: a gather of single 4- or 8-byte elements whose innermost
    /// positions have contiguous indices and outputs.
    vector: Option<IndexType>,
    /// Positions per outermost position of a scatter whose outermost positions write apart (whatever the indices):
    /// its chunks split there.
    scatter_rows: Option<usize>,
    /// The rows [`IndexProgram::run_checked_fused`] copies, the bytes of the copied input they need, and whether
    /// every write of each row's positions lies inside that row's copied bytes (then rows run on any thread).
    row_copy: Option<(RowCopy, usize, bool)>,
}

/// The lowest and highest multiple of `stride` over `0..extent`, in i128.
fn span(extent: u64, stride: isize) -> (i128, i128) {
    let last = i128::from(extent.saturating_sub(1)).saturating_mul(stride as i128);
    (last.min(0), last.max(0))
}

fn err(what: String) -> IndexPlanError {
    IndexPlanError(what)
}

/// `base + lo .. base + hi + width` as bytes needed, or an error when it goes below 0 or past `isize::MAX`.
fn need(what: &str, base: usize, lo: i128, hi: i128, width: usize) -> Result<usize, IndexPlanError> {
    let base = base as i128;
    let (first, end) = (base.saturating_add(lo), base.saturating_add(hi).saturating_add(width as i128));
    if first < 0 {
        return Err(err(format!("the {what} addresses reach {first} bytes before its buffer")));
    }
    usize::try_from(end)
        .ok()
        .filter(|&e| e <= isize::MAX as usize)
        .ok_or_else(|| err(format!("the {what} addresses overflow")))
}

/// Drops size-1 dimensions and merges neighbours whose three strides all continue.
fn coalesce(dims: &[IndexDim]) -> Vec<IndexDim> {
    let mut out: Vec<IndexDim> = Vec::with_capacity(dims.len());
    for &d in dims.iter().filter(|d| d.extent != 1) {
        if let Some(last) = out.last_mut() {
            let e = d.extent as isize;
            let continues = |outer: isize, inner: isize| inner.checked_mul(e) == Some(outer);
            if continues(last.index_stride, d.index_stride)
                && continues(last.src_stride, d.src_stride)
                && continues(last.dst_stride, d.dst_stride)
                && let Some(extent) = last.extent.checked_mul(d.extent)
            {
                *last = IndexDim { extent, ..d };
                continue;
            }
        }
        out.push(d);
    }
    out
}

impl IndexProgram {
    /// Proves `plan`: every address a valid index can reach is bounded, the block is a valid copy, and the
    /// positions split across threads only when their writes are apart.
    ///
    /// # Errors
    ///
    /// [`IndexPlanError`] for a plan without components or with too many dimensions, a component's bound above
    /// `i64::MAX`, an element width of 0, or addresses that go below a buffer's start or overflow.
    pub fn new(plan: &IndexPlan) -> Result<IndexProgram, IndexPlanError> {
        if plan.components.is_empty() {
            return Err(err("an index plan needs at least one component".into()));
        }
        if plan.dims.len() > MAX_INDEX_RANK || plan.block.len() > MAX_INDEX_RANK {
            return Err(err(format!("at most {MAX_INDEX_RANK} position and block dimensions")));
        }
        if plan.components.iter().any(|c| c.bound > i64::MAX as u64) {
            return Err(err("a component's bound above i64::MAX".into()));
        }
        if plan.width == 0 {
            return Err(err("an element width of 0".into()));
        }
        let positions = plan.dims.iter().try_fold(1usize, |n, d| n.checked_mul(d.extent));
        let block_elements = plan.block.iter().try_fold(1usize, |n, d| n.checked_mul(d.extent));
        let (Some(positions), Some(block_elements)) = (positions, block_elements) else {
            return Err(err("the positions or the block overflow".into()));
        };
        let block_bytes =
            block_elements.checked_mul(plan.width).ok_or_else(|| err("the block's bytes overflow".into()))?;
        // The footprints, from the strides alone (every component over 0..bound).
        let mut idx = (0i128, 0i128);
        let mut src = (0i128, 0i128);
        let mut dst = (0i128, 0i128);
        let add = |acc: &mut (i128, i128), (lo, hi): (i128, i128)| {
            *acc = (acc.0.saturating_add(lo), acc.1.saturating_add(hi));
        };
        for d in &plan.dims {
            let e = d.extent as u64;
            add(&mut idx, span(e, d.index_stride));
            add(&mut src, span(e, d.src_stride));
            add(&mut dst, span(e, d.dst_stride));
        }
        add(&mut idx, span(plan.components.len() as u64, plan.component_stride));
        let indexed = if plan.side == Side::Source { &mut src } else { &mut dst };
        for c in &plan.components {
            add(indexed, span(c.bound, c.step));
        }
        for d in &plan.block {
            add(&mut src, span(d.extent as u64, d.in_stride));
            add(&mut dst, span(d.extent as u64, d.out_stride));
        }
        let empty = positions == 0 || block_elements == 0;
        let needed = |what, base, (lo, hi), width| if empty { Ok(0) } else { need(what, base, lo, hi, width) };
        let index_need = needed("index", plan.index_base, idx, plan.index_type.width())?;
        let src_need = needed("source", plan.src_base, src, plan.width)?;
        let dst_need = needed("destination", plan.dst_base, dst, plan.width)?;
        let block_dims = coalesce_block(&plan.block);
        let block = match block_dims.as_slice() {
            [] => Block::Bytes(plan.width),
            // A contiguous row: `memcpy`, or streamed whole lines when the move leaves the caches.
            [d] if d.in_stride == plan.width as isize && d.out_stride == plan.width as isize => {
                Block::Bytes(block_bytes)
            }
            _ => {
                let (program, in_base, out_base) = block_program(plan.width, &block_dims)?;
                let w = plan.width;
                let rows_stream = block_dims.last().is_some_and(|d| {
                    d.out_stride == w as isize && d.extent.saturating_mul(w) >= params::STREAM_MIN_ROW_BYTES
                });
                Block::Program { program: Box::new(program), in_base, out_base, rows_stream }
            }
        };
        // Writes apart: every position's block lands on its own bytes (a gather only).
        let injective = plan.side == Side::Source && injective_writes(plan);
        let dims = coalesce(&plan.dims);
        let contiguous = dims
            .last()
            .is_some_and(|d| d.index_stride == plan.index_type.width() as isize && d.dst_stride == plan.width as isize);
        let single = matches!(block, Block::Bytes(1 | 2 | 4 | 8)) && plan.components.len() == 1;
        let vector = (plan.side == Side::Source && single && contiguous).then_some(plan.index_type);
        let scatter_rows = (plan.side == Side::Destination)
            .then(|| dims.first().copied())
            .flatten()
            .filter(|outer| outer.extent > 1 && outer.dst_stride != 0 && rows_apart(plan, &dims))
            .and_then(|outer| positions.checked_div(outer.extent));
        Ok(IndexProgram {
            plan: plan.clone(),
            dims,
            block,
            block_bytes,
            positions,
            index_need,
            src_need,
            dst_need,
            injective,
            vector,
            scatter_rows,
            row_copy: None,
        })
    }

    /// This program with `rows` copied before each outermost position's updates by
    /// [`IndexProgram::run_checked_fused`] (one row per coordinate of the plan's `dims[0]`; [`IndexProgram::run`] and
    /// [`IndexProgram::run_checked`] still move the updates alone).
    ///
    /// # Errors
    ///
    /// [`IndexPlanError`] for a gather, a plan without dimensions, rows that overlap (`|dst_step| < bytes` with more
    /// than one row), or row addresses that go below a buffer's start or overflow.
    pub fn with_row_copy(mut self, rows: RowCopy) -> Result<IndexProgram, IndexPlanError> {
        let Some(outer) = self.plan.dims.first() else {
            return Err(err("a row copy needs a dimension of positions".into()));
        };
        if self.plan.side != Side::Destination {
            return Err(err("only a scatter copies rows before its updates".into()));
        }
        let n = outer.extent;
        if n > 1 && rows.dst_step.unsigned_abs() < rows.bytes {
            return Err(err(format!("rows of {} bytes {} bytes apart overlap", rows.bytes, rows.dst_step)));
        }
        let (slo, shi) = span(n as u64, rows.src_step);
        let (dlo, dhi) = span(n as u64, rows.dst_step);
        let src_need = if n == 0 { 0 } else { need("copied input", rows.src_base, slo, shi, rows.bytes)? };
        if n > 0 {
            self.dst_need = self.dst_need.max(need("destination", rows.dst_base, dlo, dhi, rows.bytes)?);
        }
        // Where the positions of row r may write, relative to dst_base + r·dims[0].dst_stride (every other
        // dimension, every index of each component, the block), and whether that lies inside row r's copied bytes
        // with rows stepping alike: then no row's copy or updates touch another row's bytes.
        let p = &self.plan;
        let mut reach = (0i128, 0i128);
        let mut add = |(lo, hi): (i128, i128)| reach = (reach.0.saturating_add(lo), reach.1.saturating_add(hi));
        p.dims[1..].iter().for_each(|d| add(span(d.extent as u64, d.dst_stride)));
        p.components.iter().for_each(|c| add(span(c.bound, c.step)));
        p.block.iter().for_each(|d| add(span(d.extent as u64, d.out_stride)));
        let base = p.dst_base as i128;
        let (first, last) =
            (base.saturating_add(reach.0), base.saturating_add(reach.1).saturating_add(p.width as i128));
        let copied = (rows.dst_base as i128, (rows.dst_base as i128).saturating_add(rows.bytes as i128));
        let inside = rows.dst_step == outer.dst_stride && copied.0 <= first && last <= copied.1;
        self.row_copy = Some((rows, src_need, inside));
        Ok(self)
    }

    /// Bytes of the copied input [`IndexProgram::run_checked_fused`] reads (0 without a row copy).
    pub fn copy_bytes_needed(&self) -> usize {
        self.row_copy.map_or(0, |(_, n, _)| n)
    }

    /// [`IndexProgram::run_checked`] with the rows of [`IndexProgram::with_row_copy`] copied from `copy_src`, each
    /// just before the updates of its outermost position. Split across threads by whole rows where every write of a
    /// row's positions lies inside its copied bytes (rows stepping as the plan's `dims[0]`); otherwise in order on
    /// the calling thread.
    ///
    /// # Errors
    ///
    /// As [`IndexProgram::run_checked`]; [`RunError::BufferTooSmall`] for a `copy_src` shorter than
    /// [`IndexProgram::copy_bytes_needed`], [`RunError::OperandCount`] (operand `"rows"`) for a program without a
    /// row copy. Nothing is written then.
    pub fn run_checked_fused(
        &self,
        checked: &Checked<'_>,
        copy_src: &[u8],
        src: &[u8],
        dst: &mut [u8],
        opts: &ExecOptions,
    ) -> Result<(), IndexError> {
        let Some((rows, copy_need, inside)) = self.row_copy else {
            return Err(RunError::OperandCount { operand: "rows", expected: 1, actual: 0 }.into());
        };
        if !core::ptr::eq(checked.program, self) {
            return Err(RunError::OperandCount { operand: "index", expected: 1, actual: 0 }.into());
        }
        for (operand, required, actual) in [
            ("copied input", copy_need, copy_src.len()),
            ("input", self.src_need, src.len()),
            ("output", self.dst_need, dst.len()),
        ] {
            if actual < required {
                return Err(RunError::BufferTooSmall { operand, required, actual }.into());
            }
        }
        let level = level(opts)?;
        let pool = pool(opts)?;
        let n = self.plan.dims[0].extent;
        if n == 0 {
            return Ok(());
        }
        // Positions per row (their C order runs row by row); nothing but the copy when a block or a dimension is
        // empty.
        let per_row = if self.block_bytes == 0 { 0 } else { self.positions.checked_div(n).unwrap_or(0) };
        // Rows split across threads only when each row's updates stay inside its own copied bytes (`inside`, which
        // also makes different rows' updates write apart); otherwise one thread runs them in order.
        let splits = inside;
        let units = if splits { n } else { 1 };
        let bytes = rows.bytes.saturating_mul(n).saturating_add(self.bytes_written());
        let chunks = chunks_for(opts, pool.as_deref(), bytes, units);
        // The rows are written to be read again right away: regular stores for them and for the updates.
        let block_opts = ExecOptions { streaming: Some(false), ..*opts };
        let (c, s, d, ix) = (
            SendPtr(copy_src.as_ptr().cast_mut()),
            SendPtr(src.as_ptr().cast_mut()),
            SendPtr(dst.as_mut_ptr()),
            SendPtr(checked.index.as_ptr().cast_mut()),
        );
        let raw = |p: SendPtr| p.0;
        let run = |k: usize| {
            let (lo, hi) =
                if chunks == 1 { (0, n) } else { (share(n, chunks, k), share(n, chunks, k.wrapping_add(1))) };
            for r in lo..hi {
                let at = |base: usize, step: isize| (base as isize).wrapping_add((r as isize).wrapping_mul(step));
                // SAFETY: row r < n lies in both buffers (`with_row_copy` bounded them, the lengths are checked
                // above); the copied input and the destination are distinct buffers (a shared and an exclusive
                // borrow); rows are `bytes` or more apart, so chunks of different rows write apart.
                unsafe {
                    core::ptr::copy_nonoverlapping(
                        raw(c).cast_const().wrapping_offset(at(rows.src_base, rows.src_step)),
                        raw(d).wrapping_offset(at(rows.dst_base, rows.dst_step)),
                        rows.bytes,
                    );
                }
                let first = r.wrapping_mul(per_row);
                // SAFETY: as in `run_checked`: bounded buffers, indices proved valid by `check`; with more than one
                // chunk, every write of row r's positions lies in row r's copied bytes (`inside`), which no other
                // row's copy or positions touch.
                unsafe {
                    self.run_range(
                        first..first.wrapping_add(per_row),
                        raw(ix).cast_const(),
                        raw(s).cast_const(),
                        raw(d),
                        level,
                        &block_opts,
                    )
                };
            }
        };
        if chunks > 1 {
            crate::team::split(pool.as_deref(), chunks, opts.lingers(), &run);
        } else {
            run(0);
        }
        Ok(())
    }

    /// The plan.
    pub fn plan(&self) -> &IndexPlan {
        &self.plan
    }

    /// Bytes the index buffer must hold.
    pub fn index_bytes_needed(&self) -> usize {
        self.index_need
    }

    /// Bytes the source buffer must hold.
    pub fn src_bytes_needed(&self) -> usize {
        self.src_need
    }

    /// Bytes the destination buffer must hold.
    pub fn dst_bytes_needed(&self) -> usize {
        self.dst_need
    }

    /// Bytes the move writes when every position is written (a block per position).
    pub fn bytes_written(&self) -> usize {
        self.positions.saturating_mul(self.block_bytes)
    }

    /// The number of positions (a block each).
    pub fn positions(&self) -> usize {
        self.positions
    }

    /// Whether the positions may split across threads: a gather's anywhere, a scatter's between outermost positions
    /// (when those provably write apart).
    pub fn splits(&self) -> bool {
        self.injective || self.scatter_rows.is_some()
    }

    /// Proves every index of `index` valid (for [`OutOfRange::Error`] plans; [`OutOfRange::Skip`] plans need no
    /// proof), so that [`IndexProgram::run_checked`] can run without checking again.
    ///
    /// # Errors
    ///
    /// [`IndexError::OutOfRange`] for the first invalid index in position order; [`IndexError::Run`] for a buffer
    /// shorter than [`IndexProgram::index_bytes_needed`].
    pub fn check<'a>(&'a self, index: &'a [u8]) -> Result<Checked<'a>, IndexError> {
        self.check_with(index, &ExecOptions::default())
    }

    /// [`IndexProgram::check`] with the threads and instruction set of `opts` (large index tensors are checked
    /// in parallel).
    ///
    /// # Errors
    ///
    /// As [`IndexProgram::check`], and [`IndexError::Run`] for an unavailable instruction set or a bad thread
    /// count.
    pub fn check_with<'a>(&'a self, index: &'a [u8], opts: &ExecOptions) -> Result<Checked<'a>, IndexError> {
        if index.len() < self.index_need {
            return Err(
                RunError::BufferTooSmall { operand: "index", required: self.index_need, actual: index.len() }.into()
            );
        }
        if self.plan.out_of_range == OutOfRange::Error && self.positions > 0 && self.block_bytes > 0 {
            let fast = self.plan.components.len() == 1 && self.all_in_range(index, opts)?;
            if !fast && let Some(e) = self.first_invalid(index) {
                return Err(e);
            }
        }
        Ok(Checked { program: self, index })
    }

    /// [`IndexProgram::check`], then [`IndexProgram::run_checked`].
    ///
    /// # Errors
    ///
    /// As those two.
    pub fn run(&self, index: &[u8], src: &[u8], dst: &mut [u8], opts: &ExecOptions) -> Result<(), IndexError> {
        let checked = self.check_with(index, opts)?;
        self.run_checked(&checked, src, dst, opts)
    }

    /// Runs the move with indices proved by [`IndexProgram::check`] of this program.
    ///
    /// # Errors
    ///
    /// [`IndexError::Run`]: a `checked` of another program ([`RunError::NotInPlace`] is not used; the error is
    /// [`RunError::OperandCount`] with operand `"index"`), a buffer too short, an unavailable instruction set or a
    /// bad thread count. Nothing is written then.
    pub fn run_checked(
        &self,
        checked: &Checked<'_>,
        src: &[u8],
        dst: &mut [u8],
        opts: &ExecOptions,
    ) -> Result<(), IndexError> {
        if !core::ptr::eq(checked.program, self) {
            return Err(RunError::OperandCount { operand: "index", expected: 1, actual: 0 }.into());
        }
        for (operand, required, actual) in [("input", self.src_need, src.len()), ("output", self.dst_need, dst.len())] {
            if actual < required {
                return Err(RunError::BufferTooSmall { operand, required, actual }.into());
            }
        }
        let level = level(opts)?;
        let pool = pool(opts)?;
        if self.positions == 0 || self.block_bytes == 0 {
            return Ok(());
        }
        let bytes = self.bytes_written();
        // Gathers split anywhere; scatters only between the outermost positions, whose writes are proven apart.
        let unit = if self.injective { 1 } else { self.scatter_rows.unwrap_or(0) };
        let units = self.positions.checked_div(unit).unwrap_or(0);
        let chunks = chunks_for(opts, pool.as_deref(), bytes, units);
        // Rows of whole lines and hardware-gathered elements stream when the move leaves the caches.
        let stream = match &self.block {
            Block::Program { rows_stream, .. } => *rows_stream,
            &Block::Bytes(n) => self.vector.is_some() || n >= ROW_STREAM_BYTES,
        } && opts.streaming.unwrap_or_else(|| bytes >= CacheSizes::get().stream_threshold_for(chunks));
        let block_opts = ExecOptions { streaming: Some(stream), ..*opts };
        let (s, d, ix) =
            (SendPtr(src.as_ptr().cast_mut()), SendPtr(dst.as_mut_ptr()), SendPtr(checked.index.as_ptr().cast_mut()));
        let positions = self.positions;
        let raw = |p: SendPtr| p.0;
        let run = |c: usize| {
            // c < chunks ≤ units: the products stay below positions · chunks, far from overflow for any buffer
            // that exists.
            let (lo, hi) = if chunks == 1 {
                (0, positions)
            } else {
                (share(units, chunks, c).wrapping_mul(unit), share(units, chunks, c.wrapping_add(1)).wrapping_mul(unit))
            };
            // SAFETY: the buffers hold the bytes `new` bounded (checked above), the indices were proved valid by
            // `check` (or are tested one by one for Skip plans), and chunks write disjoint bytes (`injective`: every
            // position writes its own bytes; `scatter_rows`: different outermost positions write apart, and each
            // chunk keeps its positions in order) or there is one chunk.
            unsafe { self.run_range(lo..hi, raw(ix).cast_const(), raw(s).cast_const(), raw(d), level, &block_opts) };
        };
        if chunks > 1 {
            crate::team::split(pool.as_deref(), chunks, opts.lingers(), &run);
        } else {
            run(0);
        }
        Ok(())
    }

    /// Whether every index lies in its dimension (one component): each row of indices tested in registers, a
    /// single long run split across threads.
    fn all_in_range(&self, index: &[u8], opts: &ExecOptions) -> Result<bool, IndexError> {
        let bound = self.plan.components[0].bound;
        let ty = self.plan.index_type;
        let iw = ty.width();
        let level = level(opts)?;
        let pool = pool(opts)?;
        // Only the dimensions that move through the indices matter, in any order.
        let dims: Vec<IndexDim> = coalesce(
            &self
                .plan
                .dims
                .iter()
                .filter(|d| d.index_stride != 0)
                .map(|d| IndexDim { src_stride: 0, dst_stride: 0, ..*d })
                .collect::<Vec<_>>(),
        );
        let base = self.plan.index_base;
        // A contiguous run of `n` indices from byte `start` (inside the buffer: `check` compared its length with
        // the bounded footprint).
        let run_valid = |start: usize, n: usize| -> bool {
            let bytes = &index[start..start.wrapping_add(n.wrapping_mul(iw))];
            // SAFETY: `bytes` holds the `n` indices.
            match unsafe { crate::arch::gather::all_valid(level, ty, bytes.as_ptr(), n, bound) } {
                Some(ok) => ok,
                None => bytes.chunks_exact(iw).all(|b| normalize(value(ty, b), bound).is_some()),
            }
        };
        if let [d] = dims.as_slice()
            && d.index_stride == iw as isize
        {
            let (start, n) = (base, d.extent);
            let chunks = chunks_for(opts, pool.as_deref(), n.saturating_mul(iw), n);
            if chunks > 1 {
                let bad = std::sync::atomic::AtomicBool::new(false);
                crate::team::split(pool.as_deref(), chunks, opts.lingers(), &|c| {
                    let (lo, hi) = (share(n, chunks, c), share(n, chunks, c.wrapping_add(1)));
                    if !run_valid(start.wrapping_add(lo.wrapping_mul(iw)), hi.wrapping_sub(lo)) {
                        bad.store(true, std::sync::atomic::Ordering::Relaxed);
                    }
                });
                return Ok(!bad.load(std::sync::atomic::Ordering::Relaxed));
            }
            return Ok(run_valid(start, n));
        }
        let mut ok = true;
        each_row(&dims, |offset, inner| {
            let start = (base as isize).wrapping_add(offset) as usize;
            ok &= match inner {
                Some(d) if d.index_stride == iw as isize => run_valid(start, d.extent),
                Some(d) => (0..d.extent).all(|k| {
                    let at = (start as isize).wrapping_add((k as isize).wrapping_mul(d.index_stride)) as usize;
                    normalize(value(ty, &index[at..at.wrapping_add(iw)]), bound).is_some()
                }),
                None => normalize(value(ty, &index[start..start.wrapping_add(iw)]), bound).is_some(),
            };
        });
        Ok(ok)
    }

    /// The first invalid index in position order, walking the plan's own dimensions.
    fn first_invalid(&self, index: &[u8]) -> Option<IndexError> {
        let p = &self.plan;
        let iw = p.index_type.width();
        let mut c = vec![0usize; p.dims.len()];
        for _ in 0..self.positions {
            let at = c
                .iter()
                .zip(&p.dims)
                .fold(p.index_base as isize, |o, (&k, d)| o.wrapping_add((k as isize).wrapping_mul(d.index_stride)));
            for (j, comp) in p.components.iter().enumerate() {
                let a = at.wrapping_add((j as isize).wrapping_mul(p.component_stride)) as usize;
                let v = value(p.index_type, &index[a..a.wrapping_add(iw)]);
                if normalize(v, comp.bound).is_none() {
                    return Some(IndexError::OutOfRange {
                        position: c.clone(),
                        component: j,
                        value: v,
                        bound: comp.bound,
                    });
                }
            }
            for k in (0..c.len()).rev() {
                c[k] = c[k].wrapping_add(1);
                if c[k] < p.dims[k].extent {
                    break;
                }
                c[k] = 0;
            }
        }
        None
    }

    /// Runs positions `range` (in the coalesced order, the plan's C order).
    ///
    /// # Safety
    ///
    /// `ix`, `src` and `dst` hold the bytes `new` computed; for [`OutOfRange::Error`] plans every index was proved
    /// valid; no other thread writes the destination bytes of these positions.
    unsafe fn run_range(
        &self,
        range: core::ops::Range<usize>,
        ix: *const u8,
        src: *const u8,
        dst: *mut u8,
        level: crate::arch::Level,
        opts: &ExecOptions,
    ) {
        let p = &self.plan;
        let (ib, sb, db) = (p.index_base as isize, p.src_base as isize, p.dst_base as isize);
        let stream = opts.streaming == Some(true);
        macro_rules! go {
            ($put:expr) => {
                match p.index_type {
                    // SAFETY: the caller's contract.
                    IndexType::I32 | IndexType::U32 => unsafe {
                        self.positions_with::<Ix32>(range, ix, ib, sb, db, src, dst, level, stream, $put)
                    },
                    // SAFETY: the caller's contract.
                    IndexType::I64 | IndexType::U64 => unsafe {
                        self.positions_with::<Ix64>(range, ix, ib, sb, db, src, dst, level, stream, $put)
                    },
                }
            };
        }
        // Streamed stores (rows and hardware gathers) are fenced once, after the last position, not per row.
        match &self.block {
            Block::Bytes(1) => {
                // SAFETY: `s` and `d` address a block inside the bounded footprints (the caller's contract).
                let put = |s: *const u8, d: *mut u8| unsafe { d.write(s.read()) };
                go!(put)
            }
            Block::Bytes(2) => {
                // SAFETY: `s` and `d` address a block inside the bounded footprints (the caller's contract).
                let put = |s: *const u8, d: *mut u8| unsafe { core::ptr::copy_nonoverlapping(s, d, 2) };
                go!(put)
            }
            Block::Bytes(4) => {
                // SAFETY: `s` and `d` address a block inside the bounded footprints (the caller's contract).
                let put = |s: *const u8, d: *mut u8| unsafe { core::ptr::copy_nonoverlapping(s, d, 4) };
                go!(put)
            }
            Block::Bytes(8) => {
                // SAFETY: `s` and `d` address a block inside the bounded footprints (the caller's contract).
                let put = |s: *const u8, d: *mut u8| unsafe { core::ptr::copy_nonoverlapping(s, d, 8) };
                go!(put)
            }
            &Block::Bytes(n) => {
                // SAFETY: `s` and `d` address a block inside the bounded footprints (the caller's contract).
                let put = |s: *const u8, d: *mut u8| unsafe { crate::arch::gather::copy_row(level, s, d, n, stream) };
                go!(put)
            }
            &Block::Program { ref program, in_base, out_base, .. } => {
                // The program's bases step from the lowest bytes back to the block's first element.
                // SAFETY: `s` and `d` address a block inside the bounded footprints (the caller's contract).
                let put = |s: *const u8, d: *mut u8| unsafe {
                    program.run_here(s.wrapping_sub(in_base), d.wrapping_sub(out_base), level, opts)
                };
                go!(put)
            }
        }
        if stream {
            crate::rows::fence();
        }
    }

    /// The walk over positions with index type `X` and block copy `put(src, dst)`.
    ///
    /// # Safety
    ///
    /// As [`IndexProgram::run_range`].
    #[allow(clippy::too_many_arguments)]
    #[inline(always)]
    unsafe fn positions_with<X: IndexRead>(
        &self,
        range: core::ops::Range<usize>,
        ix: *const u8,
        ib: isize,
        sb: isize,
        db: isize,
        src: *const u8,
        dst: *mut u8,
        level: crate::arch::Level,
        stream: bool,
        put: impl Fn(*const u8, *mut u8),
    ) {
        let w = Walk {
            ix: ix.wrapping_offset(ib),
            src: src.wrapping_offset(sb),
            dst: dst.wrapping_offset(db),
            src_end: src.wrapping_add(self.src_need),
            ty: self.plan.index_type,
        };
        // The side and the tuple's length are decided once per call, not per element.
        // SAFETY: the caller's contract (each arm).
        unsafe {
            match (self.plan.side, self.plan.components.len() == 1) {
                (Side::Source, true) => self.runs::<X, true, true>(range, w, level, stream, put),
                (Side::Source, false) => self.runs::<X, true, false>(range, w, level, stream, put),
                (Side::Destination, true) => self.runs::<X, false, true>(range, w, level, stream, put),
                (Side::Destination, false) => self.runs::<X, false, false>(range, w, level, stream, put),
            }
        }
    }

    /// Positions `range` run by run: `SOURCE` when the indices pick where blocks are read, `ONE` for one index per
    /// position.
    ///
    /// # Safety
    ///
    /// As [`IndexProgram::run_range`], with `w`'s pointers at the plan's bases.
    #[inline(always)]
    unsafe fn runs<X: IndexRead, const SOURCE: bool, const ONE: bool>(
        &self,
        range: core::ops::Range<usize>,
        w: Walk,
        level: crate::arch::Level,
        stream: bool,
        put: impl Fn(*const u8, *mut u8),
    ) {
        let p = &self.plan;
        let comps = p.components.as_slice();
        let (cs, c0) = (p.component_stride, comps[0]);
        // Gathers of whole lines or more from far apart: the source block of a later position is fetched while
        // this one is copied (the hardware prefetcher cannot guess where the next row is).
        // PERF: 64 MiB of 1 KiB rows from a 128 MiB table, one thread: 11.7 ms without, 9.8–10.2 ms with 4
        // positions and 2 KiB ahead (8 and 1 KiB the same; 16 and 256 bytes, 8 and one line less).
        let ahead = if SOURCE && self.block_bytes >= 64 { PREFETCH_POSITIONS } else { 0 };
        let fetch = self.block_bytes.min(PREFETCH_BLOCK_BYTES) as isize;
        let neg0 = w.ty.negative_offset(c0.bound);
        // SAFETY: (offset) every tuple lies inside the index footprint (the caller's contract).
        let offset = |i: isize| unsafe { tuple_offset::<X, ONE>(w.ix, i, (c0, neg0), comps, cs, w.ty) };
        // Element gathers whose runs each read one small window (a row of the source picked from by a row of
        // indices: `np.take_along_axis` along the last axis) fetch the next run's window while the hardware gathers
        // wait on this one's.
        let window = match usize::try_from((c0.bound as isize).saturating_mul(c0.step)) {
            Ok(bytes) if SOURCE && ONE && (AHEAD_MIN_WINDOW_BYTES..=AHEAD_WINDOW_BYTES).contains(&bytes) => bytes,
            _ => 0,
        };
        each_run(&self.dims, range, |(mut i, mut s, mut d), run, inner, next| {
            let steps = (inner.index_stride, inner.src_stride, inner.dst_stride);
            let (is, ss, ds) = steps;
            let next_window = match next {
                Some(next) if window > 0 && ss == 0 => (w.src.wrapping_offset(next), window),
                _ => (core::ptr::null(), 0),
            };
            // The offsets `k` positions on.
            let on = |(i, s, d): (isize, isize, isize), k: usize| {
                let k = k as isize;
                (
                    i.wrapping_add(k.wrapping_mul(is)),
                    s.wrapping_add(k.wrapping_mul(ss)),
                    d.wrapping_add(k.wrapping_mul(ds)),
                )
            };
            // SAFETY: (run) the caller's contract, for `n` positions of the run from `first`.
            let run_from = |first, n| unsafe { index_run::<X, SOURCE, ONE>(w, first, n, steps, c0, comps, cs, &put) };
            if ahead == 0 {
                // Contiguous indices into contiguous elements: the hardware gathers take a prefix.
                let mut done = 0;
                // (Runs shorter than a hardware gather's 8 lanes skip the call.)
                if let Some(lanes) = self.vector.filter(|_| SOURCE && ONE && run >= 8) {
                    // Streamed stores start on a line: the elements before it go one by one.
                    let stream = stream && run >= 64;
                    if stream {
                        let to_line = (w.dst.wrapping_offset(d) as usize).wrapping_neg() % 64;
                        let head = to_line.checked_div(self.plan.width).unwrap_or(0).min(run);
                        run_from((i, s, d), head);
                        (i, s, d) = on((i, s, d), head);
                        done = head;
                    }
                    let r = crate::arch::gather::ElementRun {
                        index: w.ix.wrapping_offset(i),
                        src: w.src.wrapping_offset(s),
                        dst: w.dst.wrapping_offset(d),
                        n: run.wrapping_sub(done),
                        src_stride: ss,
                        step: c0.step,
                        bound: c0.bound,
                        stream,
                        next_window,
                        src_end: w.src_end,
                    };
                    // SAFETY: the run's indices and outputs are inside the bounded footprints, and each valid
                    // index addresses an element inside the source's (the caller's contract).
                    let moved = unsafe { crate::arch::gather::elements(level, lanes, self.plan.width, &r) };
                    done = done.wrapping_add(moved);
                    (i, s, d) = on((i, s, d), moved);
                }
                // The rest one by one. (Without prefetches: with one line of the next window per 8 positions,
                // where the hardware gathers took none, rows of 4 f32 ran 1.7× slower.)
                run_from((i, s, d), run.wrapping_sub(done));
                return;
            }
            for k in 0..run {
                let (ia, sa, _) = on((i, s, d), ahead);
                if k.wrapping_add(ahead) < run
                    && let Some(add) = offset(ia)
                {
                    crate::rows::prefetch(w.src.wrapping_offset(sa.wrapping_add(add)), 0, fetch, false);
                }
                run_from((i, s, d), 1);
                (i, s, d) = on((i, s, d), 1);
            }
        });
    }
}

/// `n` positions from the offsets `(i, s, d)`, stepping by `steps`: the block at `src + s` goes to `dst + d`, plus
/// the offset of the position's index tuple (`ONE`: a single index) on the indexed side (`SOURCE`: the source);
/// tuples with an invalid index are skipped. Every value is a local (closures' captured references were reloaded
/// after every store).
///
/// PERF: an f32 scatter along rows of 1024 by 256 int64 indices each (a million updates), one thread, Zen 4:
/// ~40 → ~20 instructions per element, 3.5 → 2.3 ms (two threads 1.66 → 0.99 ms; `cargo bench --bench indexing`).
///
/// # Safety
///
/// As [`IndexProgram::run_range`] for these positions, with `w`'s pointers at the plan's bases; `comps` holds
/// the plan's components, `cs` bytes apart in the index tensor.
#[allow(clippy::too_many_arguments)]
#[inline(always)]
unsafe fn index_run<X: IndexRead, const SOURCE: bool, const ONE: bool>(
    w: Walk,
    (mut i, mut s, mut d): (isize, isize, isize),
    n: usize,
    (is, ss, ds): (isize, isize, isize),
    c0: Component,
    comps: &[Component],
    cs: isize,
    put: &impl Fn(*const u8, *mut u8),
) {
    let Walk { ix, src, dst, ty, .. } = w;
    let neg0 = ty.negative_offset(c0.bound);
    for _ in 0..n {
        // SAFETY: the tuple lies inside the index footprint (the caller's contract).
        if let Some(add) = unsafe { tuple_offset::<X, ONE>(ix, i, (c0, neg0), comps, cs, ty) } {
            let (s, d) = if SOURCE { (s.wrapping_add(add), d) } else { (s, d.wrapping_add(add)) };
            // Offsets inside the bounded footprints (a valid index, a position in range): `put`'s contract.
            put(src.wrapping_offset(s), dst.wrapping_offset(d));
        }
        (i, s, d) = (i.wrapping_add(is), s.wrapping_add(ss), d.wrapping_add(ds));
    }
}

/// The bytes the index tuple at `ix + i` adds on the indexed side (`ONE`: the single index of component `c0`,
/// whose [`IndexType::negative_offset`] is `neg0`; else the components `comps`, `cs` bytes apart, of type `ty`);
/// `None` when an index is invalid.
///
/// # Safety
///
/// The tuple's indices are readable.
#[inline(always)]
unsafe fn tuple_offset<X: IndexRead, const ONE: bool>(
    ix: *const u8,
    i: isize,
    (c0, neg0): (Component, i64),
    comps: &[Component],
    cs: isize,
    ty: IndexType,
) -> Option<isize> {
    if ONE {
        // SAFETY: the caller's contract.
        let v = unsafe { X::load(ix.wrapping_offset(i)) };
        normalize_read(v, c0.bound, neg0).map(|u| (u as isize).wrapping_mul(c0.step))
    } else {
        comps.iter().enumerate().try_fold(0isize, |sum, (j, c)| {
            // SAFETY: the caller's contract, component j of the tuple.
            let v = unsafe { X::load(ix.wrapping_offset(i.wrapping_add((j as isize).wrapping_mul(cs)))) };
            let u = normalize_read(v, c.bound, ty.negative_offset(c.bound))?;
            Some(sum.wrapping_add((u as isize).wrapping_mul(c.step)))
        })
    }
}

/// The three pointers of a walk, at the plan's bases.
#[derive(Clone, Copy)]
struct Walk {
    ix: *const u8,
    src: *const u8,
    dst: *mut u8,
    /// The end of the source's readable bytes.
    src_end: *const u8,
    /// The indices' type (which negative values count from the end: [`IndexType::negative_offset`]).
    ty: IndexType,
}

/// How many positions ahead a gather of blocks prefetches its source, and how much of each block.
const PREFETCH_POSITIONS: usize = 4;
const PREFETCH_BLOCK_BYTES: usize = 2048;
/// The largest window a run of element gathers prefetches for the next run (a row of 2048 f64).
const AHEAD_WINDOW_BYTES: usize = 16384;
/// The smallest: windows of a few lines, one after the other, the hardware prefetchers follow (rows of 16 f32, one
/// line each, ran 10–25 % slower with the prefetches).
const AHEAD_MIN_WINDOW_BYTES: usize = 256;

/// Indices proved valid for one [`IndexProgram`] ([`IndexProgram::check`]); the buffer stays borrowed until the
/// run, so it cannot change in between.
#[derive(Debug)]
pub struct Checked<'a> {
    program: &'a IndexProgram,
    index: &'a [u8],
}

/// Contiguous blocks from this long stream their whole lines when the move leaves the caches.
const ROW_STREAM_BYTES: usize = 256;

/// The proven copy of a block, with the bases that make its lowest offsets 0.
fn block_program(width: usize, dims: &[Dim]) -> Result<(Program, usize, usize), IndexPlanError> {
    let below = |stride: fn(&Dim) -> isize| {
        dims.iter().fold(0usize, |b, d| b.saturating_add(span(d.extent as u64, stride(d)).0.unsigned_abs() as usize))
    };
    let (in_base, out_base) = (below(|d| d.in_stride), below(|d| d.out_stride));
    let plan = Plan::copy(width, in_base, out_base, dims.to_vec());
    let program = Program::new(&plan).map_err(|e| err(format!("block: {e}")))?;
    Ok((program, in_base, out_base))
}

/// The block's dimensions with size-1 ones dropped and contiguous neighbours merged ([`coalesce`] with no index).
fn coalesce_block(block: &[Dim]) -> Vec<Dim> {
    let dims: Vec<IndexDim> = block
        .iter()
        .map(|d| IndexDim { extent: d.extent, index_stride: 0, src_stride: d.in_stride, dst_stride: d.out_stride })
        .collect();
    coalesce(&dims)
        .iter()
        .map(|d| Dim { extent: d.extent, in_stride: d.src_stride, out_stride: d.dst_stride })
        .collect()
}

/// Whether the blocks of all positions land on distinct elements: positions and block as one tensor.
fn injective_writes(plan: &IndexPlan) -> bool {
    let dims = plan.dims.iter().map(|d| (d.extent as u64, d.dst_stride));
    writes_apart(plan, dims.chain(plan.block.iter().map(|d| (d.extent as u64, d.out_stride))))
}

/// Whether a scatter's different outermost positions always write apart: the destination as a function of every
/// position dimension that moves it, every index over its range and the block is injective (so two positions
/// that differ in the outermost dimension differ in the bytes they write, whatever their indices).
fn rows_apart(plan: &IndexPlan, dims: &[IndexDim]) -> bool {
    let moving = dims.iter().filter(|d| d.dst_stride != 0).map(|d| (d.extent as u64, d.dst_stride));
    let indexed = plan.components.iter().map(|c| (c.bound, c.step));
    let block = plan.block.iter().map(|d| (d.extent as u64, d.out_stride));
    writes_apart(plan, moving.chain(indexed).chain(block))
}

/// Whether the (extent, byte stride) dimensions of destination writes map distinct coordinates to distinct
/// elements of the plan's width ([`find_overlap`], in elements; a stride that is not whole elements: not proven).
fn writes_apart(plan: &IndexPlan, dims: impl Iterator<Item = (u64, isize)>) -> bool {
    let w = plan.width as isize;
    let mut sizes = Vec::new();
    let mut strides = Vec::new();
    for (extent, stride) in dims.filter(|&(extent, _)| extent != 1) {
        let (Some(0), Some(elements)) = (stride.checked_rem(w), stride.checked_div(w)) else { return false };
        sizes.push(extent);
        strides.push(elements as i64);
    }
    matches!(find_overlap(&sizes, &strides), Overlap::Disjoint)
}

/// Calls `f(first, run, inner, next)` for each run of consecutive positions of `range` (C order) along the
/// innermost dimension `inner`: `first` the byte offsets (index, source, destination) from the bases of its first
/// position, `run` how many positions, `next` the source offset of the next run's first position (`None` for the
/// last run of the range).
#[inline(always)]
fn each_run(
    dims: &[IndexDim],
    range: core::ops::Range<usize>,
    mut f: impl FnMut((isize, isize, isize), usize, IndexDim, Option<isize>),
) {
    let n = dims.len();
    let Some(inner) = dims.last().copied() else {
        if range.start == 0 && range.end > 0 {
            f((0, 0, 0), 1, IndexDim { extent: 1, index_stride: 0, src_stride: 0, dst_stride: 0 }, None);
        }
        return;
    };
    let mut c = [0usize; MAX_INDEX_RANK];
    let mut rem = range.start;
    for k in (0..n).rev() {
        c[k] = rem.checked_rem(dims[k].extent).unwrap_or(0);
        rem = rem.checked_div(dims[k].extent).unwrap_or(0);
    }
    let mut pos = range.start;
    let mut at = run_offsets(dims, &c);
    while pos < range.end {
        let first = c[n.wrapping_sub(1)];
        let run = (inner.extent.wrapping_sub(first)).min(range.end.wrapping_sub(pos));
        pos = pos.wrapping_add(run);
        // Carry into the outer dimensions.
        c[n.wrapping_sub(1)] = first.wrapping_add(run);
        let mut k = n.wrapping_sub(1);
        while c[k] == dims[k].extent && k > 0 {
            c[k] = 0;
            k = k.wrapping_sub(1);
            c[k] = c[k].wrapping_add(1);
        }
        let next = if pos < range.end { Some(run_offsets(dims, &c)) } else { None };
        f(at, run, inner, next.map(|(_, s, _)| s));
        if let Some(next) = next {
            at = next;
        }
    }
}

/// The byte offsets (index, source, destination) of the position at coordinates `c` of `dims`. (A function that
/// is always inlined: as a closure the compiler kept it out of line, a call per run.)
#[inline(always)]
fn run_offsets(dims: &[IndexDim], c: &[usize; MAX_INDEX_RANK]) -> (isize, isize, isize) {
    let (mut i, mut s, mut d) = (0isize, 0isize, 0isize);
    for (k, dim) in dims.iter().enumerate() {
        let ck = c[k] as isize;
        i = i.wrapping_add(ck.wrapping_mul(dim.index_stride));
        s = s.wrapping_add(ck.wrapping_mul(dim.src_stride));
        d = d.wrapping_add(ck.wrapping_mul(dim.dst_stride));
    }
    (i, s, d)
}

/// Calls `f(offset, inner)` for each row of `dims` (all but the last as an odometer; `inner` the last, `None`
/// without dimensions: one element at offset 0); offsets are of the index strides.
fn each_row(dims: &[IndexDim], mut f: impl FnMut(isize, Option<IndexDim>)) {
    let Some((&inner, outer)) = dims.split_last() else {
        f(0, None);
        return;
    };
    let rows = outer.iter().fold(1usize, |n, d| n.saturating_mul(d.extent));
    let mut c = vec![0usize; outer.len()];
    for _ in 0..rows {
        let at =
            c.iter().zip(outer).fold(0isize, |o, (&k, d)| o.wrapping_add((k as isize).wrapping_mul(d.index_stride)));
        f(at, Some(inner));
        for k in (0..c.len()).rev() {
            c[k] = c[k].wrapping_add(1);
            if c[k] < outer[k].extent {
                break;
            }
            c[k] = 0;
        }
    }
}

/// Reading indices of one width in the hot loop, signed or not: the value is sign-extended, and a negative one
/// becomes valid only through its type's [`IndexType::negative_offset`] (see [`normalize_read`]).
///
/// PERF: one instance of the walks per width, not per index type: the four types' instances of every block copy
/// and walk were 116 KB of `.text` more, for a register added instead of a constant.
trait IndexRead {
    /// The index at `p`, sign-extended.
    ///
    /// # Safety
    ///
    /// `p` addresses the index's bytes.
    unsafe fn load(p: *const u8) -> i64;
}

macro_rules! index_read {
    ($name:ident, $t:ty) => {
        struct $name;
        impl IndexRead for $name {
            #[inline(always)]
            unsafe fn load(p: *const u8) -> i64 {
                // SAFETY: the caller's contract; unaligned reads.
                i64::from(<$t>::from_le(unsafe { p.cast::<$t>().read_unaligned() }))
            }
        }
    };
}

/// A value `v` read by an [`IndexRead`] as an index into `bound` elements, a negative one offset by `negative`
/// first (`bound` ≤ i64::MAX, checked by `IndexProgram::new`: the sums cannot overflow).
#[inline(always)]
fn normalize_read(v: i64, bound: u64, negative: i64) -> Option<u64> {
    let u = if v < 0 { v.wrapping_add(negative) } else { v };
    (u >= 0 && (u as u64) < bound).then_some(u as u64)
}

index_read!(Ix32, i32);
index_read!(Ix64, i64);

#[cfg(feature = "selftest")]
#[allow(clippy::arithmetic_side_effects)] // test arithmetic on small values
#[strider_kernels_macros::selftests]
mod tests {
    use super::*;

    /// A scatter of u16 updates along rows of `cols` elements (`ups` per row, int32 indices), the output rows
    /// `pitch` elements apart.
    fn scatter(rows: usize, cols: usize, ups: usize, pitch: usize) -> IndexProgram {
        let d =
            |extent, index_stride, src_stride, dst_stride| IndexDim { extent, index_stride, src_stride, dst_stride };
        IndexProgram::new(&IndexPlan {
            index_type: IndexType::I32,
            index_base: 0,
            component_stride: 0,
            components: vec![Component { bound: cols as u64, step: 2 }],
            dims: vec![d(rows, 4 * ups as isize, 2 * ups as isize, 2 * pitch as isize), d(ups, 4, 2, 0)],
            src_base: 0,
            dst_base: 0,
            side: Side::Destination,
            width: 2,
            block: vec![],
            out_of_range: OutOfRange::Error,
        })
        .unwrap()
    }

    #[test]
    fn rows_copied_before_their_updates() {
        let (rows, cols, ups, pitch) = (37, 300, 90, 310);
        let idx: Vec<i32> = (0..rows * ups).map(|k| ((k * 7919 + 13) % cols) as i32 - (k % 2 * cols) as i32).collect();
        let index: Vec<u8> = idx.iter().flat_map(|i| i.to_le_bytes()).collect();
        let updates: Vec<u8> = (0..rows * ups * 2).map(|i| (i % 241) as u8).collect();
        let data: Vec<u8> = (0..rows * pitch * 2).map(|i| (i % 233) as u8).collect();
        // Each row copied whole (`inside`: any thread), or only its first half (the updates reach past it: one
        // thread, in order).
        for (bytes, inside) in [(2 * cols, true), (cols, false)] {
            let copy =
                RowCopy { bytes, src_base: 0, src_step: 2 * pitch as isize, dst_base: 0, dst_step: 2 * pitch as isize };
            let program = scatter(rows, cols, ups, pitch).with_row_copy(copy).unwrap();
            assert_eq!(program.row_copy.map(|r| r.2), Some(inside));
            let mut want = vec![0xEEu8; data.len()];
            for r in 0..rows {
                want[r * 2 * pitch..r * 2 * pitch + bytes].copy_from_slice(&data[r * 2 * pitch..r * 2 * pitch + bytes]);
                for k in 0..ups {
                    let c = idx[r * ups + k].rem_euclid(cols as i32) as usize;
                    let (at, u) = (2 * (r * pitch + c), 2 * (r * ups + k));
                    want[at..at + 2].copy_from_slice(&updates[u..u + 2]);
                }
            }
            for threads in [1, 2, 5] {
                let opts = ExecOptions::default().with_threads(threads).with_parallelism(crate::Parallelism::Grain(1));
                let mut got = vec![0xEEu8; data.len()];
                let checked = program.check(&index).unwrap();
                program.run_checked_fused(&checked, &data, &updates, &mut got, &opts).unwrap();
                assert_eq!(got, want, "{bytes}-byte rows, {threads} threads");
            }
        }
    }

    #[test]
    fn row_copies_are_refused_where_they_do_not_fit() {
        let plain = scatter(4, 300, 9, 300);
        let rows = |bytes, step| RowCopy { bytes, src_base: 0, src_step: step, dst_base: 0, dst_step: step };
        assert!(plain.clone().with_row_copy(rows(600, 500)).is_err(), "rows of 600 bytes 500 apart overlap");
        assert!(plain.clone().with_row_copy(rows(600, -600)).is_err(), "rows below the buffers' start");
        let program = plain.clone().with_row_copy(rows(600, 600)).unwrap();
        assert_eq!(program.copy_bytes_needed(), 2400);
        let index = vec![0u8; 4 * 9 * 4];
        let checked = program.check(&index).unwrap();
        let (src, mut dst) = (vec![0u8; 4 * 9 * 2], vec![0u8; 2400]);
        let opts = ExecOptions::default();
        let e = program.run_checked_fused(&checked, &[0u8; 2399], &src, &mut dst, &opts).unwrap_err();
        assert!(matches!(e, IndexError::Run(RunError::BufferTooSmall { operand: "copied input", .. })), "{e:?}");
        let unfused = plain.check(&index).unwrap();
        let e = plain.run_checked_fused(&unfused, &[0u8; 2400], &src, &mut dst, &opts).unwrap_err();
        assert!(matches!(e, IndexError::Run(RunError::OperandCount { operand: "rows", .. })), "{e:?}");
        let gather = IndexProgram::new(&IndexPlan { side: Side::Source, ..plain.plan().clone() }).unwrap();
        assert!(gather.with_row_copy(rows(600, 600)).is_err(), "a gather copies no rows");
    }
}
