//! `DML_SCATTER_ELEMENTS` (alias `DML_SCATTER`), `DML_SCATTER_ND` and `DML_ONE_HOT`: outputs written where an
//! index tensor says. A scatter is a copy of its data followed by one indexed move writing the updates; a one-hot
//! is a fill with the off value followed by one indexed move writing the on value.
//!
//! Duplicate indices: DirectML leaves the result undefined. Here the updates are written in the C order of the
//! indices (split across threads only between outermost positions that provably write apart, each part in order),
//! so the last update of a duplicated index wins — on every instruction set and thread count. An index outside its dimension is [`Error::IndexOutOfRange`] and nothing is written (a one-hot instead
//! ignores it, as DirectML and ONNX say: that sequence is all off values).

// Dimension arithmetic only: ranks, dimension numbers and counts are at most 8 (validated before use), and
// coordinates are below u32 sizes; element offsets go through `TensorDesc`'s checked arithmetic and the kernels'
// i128 bounds.
#![allow(clippy::arithmetic_side_effects)]
use strider_kernels::{ElementOp, OutOfRange, Side};

use crate::engine::{Builder, Engine, From, IndexedMove, Region, RowsFirst};
use crate::ops::gather::{
    Walk, check_argument, check_index_operands, check_nd, check_shape, check_within, index_at, index_operator_methods,
    pos, reference_check, right_align, wrap_index,
};
use crate::ops::{Tensor, check_axis, put};
use crate::{Error, ExecOptions, Operand, Plan, RowKind, TensorDesc};

/// The operand checks of a scatter (`input`, `indices`, `updates`, `output`): one rank, indices of an index type,
/// input, updates and output of one data type. Returns the rank.
fn scatter_operands(
    operator: &'static str,
    input: &TensorDesc,
    indices: &TensorDesc,
    updates: &TensorDesc,
    output: &TensorDesc,
) -> Result<usize, Error> {
    let operands = [
        (Operand::InputAt(0), input),
        (Operand::InputAt(1), indices),
        (Operand::InputAt(2), updates),
        (Operand::Output, output),
    ];
    let data = [(Operand::InputAt(0), input), (Operand::InputAt(2), updates), (Operand::Output, output)];
    check_index_operands(operator, &operands, indices, &data)
}

/// Rows of at least this many bytes go into the output just before their updates ([`rows_first`]).
///
/// PERF: f32 scatters of elements into 16 MiB along rows, one thread, Zen 4 VM, `strider bench` (whole copy first →
/// each row just before its updates, ms): rows of 4 KiB by 32, 256 and 1024 updates 1.62–1.74 → 1.25–1.26, 3.61–3.69
/// → 2.70–2.74, 8.06–8.12 → 7.18–7.76; 16 KiB by 64 1.21–1.40 → 1.09–1.10; 8 KiB by 512 3.49–3.60 → 2.61–2.66; 3 KiB
/// by 32 and 192 1.99 → 1.44, 3.28 → 3.02; 6 KiB by 64 1.93 → 1.23. Rows of 1 and 2 KiB lost (by 64: 2.74–2.98 →
/// 4.28–5.17; 2 KiB by 16: 1.75–1.87 → 3.71–4.06), whether their positions ran a row or 4 KiB of rows at a time.
/// A C model says why: they lose when the input and output rows sit at nearly the same offset in their 4 KiB pages
/// (as two fresh large buffers do; 1 KiB rows: 1.98 → 3.17 at an offset of 0 or 64 bytes, 2.04 → 1.80–2.02 at 2048),
/// while 4 KiB rows win at any offset (2.37–2.58 → 1.52–1.94).
const ROWS_FIRST_BYTES: u64 = 3072;

/// The rows of a scatter's data copied just before each outermost position's updates, where that pays and is
/// exact: the outermost index positions (the indices' first dimension) write only the output row of the same first
/// coordinate (a scatter of elements along another axis), and that row's elements are contiguous and in the same
/// order in the input and the output (every dimension after the first packed in both), at least
/// [`ROWS_FIRST_BYTES`] long. The output rows past the indices' first dimension are copied beforehand.
fn rows_first(input: &TensorDesc, indices: &TensorDesc, output: &TensorDesc, axis: usize) -> Option<RowsFirst> {
    let sizes = output.sizes();
    let (n, w) = (sizes.len(), output.data_type().size_in_bytes() as u64);
    let packed = |t: &TensorDesc| {
        let st = t.signed_strides();
        let mut expected = 1i64;
        (1..n).rev().all(|d| {
            let ok = sizes[d] == 1 || st[d] == expected;
            expected = expected.saturating_mul(i64::from(sizes[d]));
            ok
        })
    };
    let elements = sizes[1..].iter().fold(1u64, |v, &s| v.saturating_mul(u64::from(s)));
    let fits = n >= 2 && axis != 0 && packed(input) && packed(output) && elements.saturating_mul(w) >= ROWS_FIRST_BYTES;
    if !fits {
        return None;
    }
    let mut region = Region::whole(0, sizes);
    region.sizes[0] = indices.sizes()[0];
    Some(RowsFirst {
        input: 0,
        elements,
        src_base: input.origin(),
        src_step: input.signed_strides()[0],
        dst_base: output.origin(),
        dst_step: output.signed_strides()[0],
        region,
    })
}

/// A scatter's engine: the output a copy of input 0 — all of it first, or row by row just before each row's
/// updates ([`rows_first`], the rows past the indices' first dimension first) — and one indexed move writing input
/// 2's updates where input 1's indices say.
fn scatter_engine(
    [input, indices, updates]: [&TensorDesc; 3],
    output: &TensorDesc,
    walk: Walk,
    rows_first: Option<RowsFirst>,
) -> Result<Engine, Error> {
    let mut b = Builder::new(&[input.clone(), indices.clone(), updates.clone()], core::slice::from_ref(output))?;
    let op = ElementOp::Copy { width: input.data_type().size_in_bytes() };
    let in_strides = input.signed_strides();
    match &rows_first {
        None => b.copy(From::Input(0), Region::whole(0, input.sizes()), &in_strides, input.origin(), op)?,
        Some(rows) if rows.region.sizes[0] < input.sizes()[0] => {
            let done = rows.region.sizes[0];
            let mut rest = Region::whole(0, input.sizes());
            (rest.lo[0], rest.sizes[0]) = (done, input.sizes()[0] - done);
            let base = input.offset_of(&rest.lo).ok_or_else(|| Error::Internal { detail: "rows overflow".into() })?;
            b.copy(From::Input(0), rest, &in_strides, base, op)?;
        }
        Some(_) => {}
    }
    b.indexed(IndexedMove {
        indices: 1,
        source: 2,
        output: 0,
        dims: walk.dims,
        index_base: indices.origin(),
        tuple: walk.tuple,
        components: walk.components,
        src_base: updates.origin(),
        dst_base: output.origin(),
        side: Side::Destination,
        block: walk.block,
        out_of_range: OutOfRange::Error,
        rows_first,
    })?;
    b.finish(true)
}

/// In-place execution: input and output must address the same elements in the same order.
fn check_in_place(input: &TensorDesc, output: &TensorDesc) -> Result<(), Error> {
    let (i, o) = (input.signed_strides(), output.signed_strides());
    let (iu, ou) = (input.strides(), output.strides());
    match (0..i.len()).find(|&d| i[d] != o[d]) {
        Some(dim) => Err(Error::NotInPlace { dim, input_stride: iu[dim], output_stride: ou[dim] }),
        None => Ok(()),
    }
}

/// The scatter methods shared by [`ScatterElements`] and [`ScatterNd`].
macro_rules! scatter_methods {
    ($op:ident) => {
        /// Runs the scatter: the output is the input with the updates written where the indices say (the last
        /// of duplicates wins).
        ///
        /// # Errors
        ///
        /// [`Error::IndexOutOfRange`] for an index outside its dimension (the first in the indices' C order);
        /// [`Error::BufferTooSmall`], [`Error::MisalignedBuffer`] for a buffer its tensor does not fit. Nothing is
        /// written then.
        pub fn execute(&self, input: &[u8], indices: &[u8], updates: &[u8], output: &mut [u8]) -> Result<(), Error> {
            self.execute_with(input, indices, updates, output, &ExecOptions::default())
        }

        #[doc = concat!("[`", stringify!($op), "::execute`] with explicit options.")]
        ///
        /// # Errors
        ///
        #[doc = concat!("As [`", stringify!($op), "::execute`], and [`Error::IsaUnavailable`] when `opts` forces an instruction set this CPU lacks.")]
        pub fn execute_with(
            &self,
            input: &[u8],
            indices: &[u8],
            updates: &[u8],
            output: &mut [u8],
            opts: &ExecOptions,
        ) -> Result<(), Error> {
            self.engine.execute_many(&[input, indices, updates], &mut [output], opts)
        }

        /// The scatter into the buffer that holds its data (DirectML's in-place form: the output bound to the
        /// input's buffer): only the updates are written.
        ///
        /// # Errors
        ///
        /// [`Error::NotInPlace`] when the input and output tensors address different elements; otherwise as
        #[doc = concat!("[`", stringify!($op), "::execute`].")]
        pub fn execute_in_place(&self, data: &mut [u8], indices: &[u8], updates: &[u8], opts: &ExecOptions) -> Result<(), Error> {
            check_in_place(&self.inputs()[0], self.output())?;
            self.engine.execute_indexed_only(&[&[], indices, updates], data, opts)
        }
    };
}

/// `DML_SCATTER_ELEMENTS_OPERATOR_DESC` (`DML_SCATTER_OPERATOR_DESC`), validated and planned: ONNX
/// `ScatterElements` without reduction, `torch.Tensor.scatter`.
///
/// Input and output have one shape; indices and updates another, at most the input's off the axis. The output is
/// the input, then for each coordinate `c` of the indices, output element `c` with its coordinate along `axis`
/// replaced by `indices[c]` is `updates[c]`.
///
/// # Examples
///
/// ```
/// use strider::{DataType, ScatterElements, TensorDesc};
/// let x = TensorDesc::new(DataType::Float32, &[1, 5])?;
/// let i = TensorDesc::new(DataType::Int64, &[1, 2])?;
/// let u = TensorDesc::new(DataType::Float32, &[1, 2])?;
/// let op = ScatterElements::new(&x, &i, &u, &x, 1)?;
/// let mut y = [0f32; 5];
/// let data = [1f32, 2.0, 3.0, 4.0, 5.0];
/// op.execute(bytemuck::cast_slice(&data), bytemuck::cast_slice(&[1i64, -2]), bytemuck::cast_slice(&[1.1f32, 2.1]), bytemuck::cast_slice_mut(&mut y))?;
/// assert_eq!(y, [1.0, 1.1, 3.0, 2.1, 5.0]);
/// # Ok::<(), strider::Error>(())
/// ```
#[derive(Clone, Debug)]
pub struct ScatterElements {
    engine: Engine,
    axis: usize,
}

impl ScatterElements {
    /// Validates and plans the scatter.
    ///
    /// # Errors
    ///
    /// [`Error::OperandRankMismatch`]; [`Error::OperandDataTypeMismatch`]; [`Error::UnsupportedDataType`] for indices
    /// that are not INT32, UINT32, INT64 or UINT64; [`Error::AxisOutOfRange`]; [`Error::ShapeMismatch`] for an
    /// output of other sizes than the input or updates of other sizes than the indices;
    /// [`Error::OperandSizeMismatch`] for indices larger than the input off the axis; [`Error::OverlappingOutput`],
    /// [`Error::OverlapUndecided`].
    pub fn new(
        input: &TensorDesc,
        indices: &TensorDesc,
        updates: &TensorDesc,
        output: &TensorDesc,
        axis: u32,
    ) -> Result<ScatterElements, Error> {
        let n = scatter_operands("DML_OPERATOR_SCATTER_ELEMENTS", input, indices, updates, output)?;
        let a = check_axis(axis, n)?;
        check_shape(Operand::Output, output, input.sizes(), "the output has the input's sizes")?;
        check_shape(Operand::InputAt(2), updates, indices.sizes(), "the updates have the indices' sizes")?;
        check_within(indices, input, a)?;
        let (ix_s, up_s, out_s) = (indices.signed_strides(), updates.signed_strides(), output.signed_strides());
        let xs = indices.sizes();
        let positions =
            (0..n).map(|d| pos(xs[d], ix_s[d], up_s[d], if d == a { 0 } else { out_s[d] }, Some(d))).collect();
        let walk = Walk {
            dims: positions,
            tuple: (0, None),
            components: vec![(output.sizes()[a], out_s[a])],
            block: Vec::new(),
        };
        let rows = rows_first(input, indices, output, a);
        Ok(ScatterElements { engine: scatter_engine([input, indices, updates], output, walk, rows)?, axis: a })
    }

    scatter_methods!(ScatterElements);

    /// The same result by the slowest, most obvious method: the input copied element by element, then each update
    /// written in the indices' C order. For verifying results.
    ///
    /// # Errors
    ///
    /// As [`ScatterElements::execute`].
    pub fn execute_reference(
        &self,
        input: &[u8],
        indices: &[u8],
        updates: &[u8],
        output: &mut [u8],
    ) -> Result<(), Error> {
        self.engine.check_many(&[input, indices, updates], &[&mut *output])?;
        let [xt, it, ut] = [&self.inputs()[0], &self.inputs()[1], &self.inputs()[2]];
        let (x, ix, up) = (Tensor::new(xt, input), Tensor::new(it, indices), Tensor::new(ut, updates));
        let a = self.axis;
        let out = self.output().clone();
        reference_check(1, &ix, it, |_| out.sizes()[a])?;
        crate::ops::reference_each(&out, output, |c, y| put(y, x.element(c)));
        let w = out.data_type().size_in_bytes();
        let mut c = vec![0u32; it.rank()];
        loop {
            let mut at = c.clone();
            at[a] = wrap_index(index_at(&ix, it.data_type(), &c), out.sizes()[a]).unwrap_or(0);
            if let Some(r) = out.offset_of(&at).and_then(|e| crate::engine::byte_range(e, w)) {
                put(&mut output[r], up.element(&c));
            }
            if !crate::engine::next_coordinate(&mut c, it.sizes()) {
                return Ok(());
            }
        }
    }

    index_operator_methods!();
}

/// `DML_SCATTER_ND_OPERATOR_DESC`, validated and planned: ONNX `ScatterND` without reduction.
///
/// All tensors have one rank `n`; the input's meaningful dimensions are its last `input_dimension_count`, the
/// indices' their last `indices_dimension_count` (the others must be 1); the last dimension of the indices holds
/// tuples of `t` coordinates (1 ≤ `t` ≤ the meaningful input rank). The updates' sizes are the indices' meaningful
/// sizes without the tuple dimension, then the input's after the first `t`, right-aligned into `n` dimensions; the
/// output has the input's sizes. The output is the input, then for each tuple the block of the updates at its
/// position written where the tuple points.
///
/// # Examples
///
/// ```
/// use strider::{DataType, ScatterNd, TensorDesc};
/// let x = TensorDesc::new(DataType::Float32, &[8])?;
/// let i = TensorDesc::new(DataType::Uint32, &[4, 1])?;
/// let u = TensorDesc::new(DataType::Float32, &[4])?;
/// let x2 = TensorDesc::new(DataType::Float32, &[1, 8])?;
/// let u2 = TensorDesc::new(DataType::Float32, &[1, 4])?;
/// let op = ScatterNd::new(&x2, &i, &u2, &x2, 1, 2)?;
/// let mut y = [0f32; 8];
/// let data = [1f32, 2.0, 3.0, 4.0, 5.0, 6.0, 7.0, 8.0];
/// op.execute(bytemuck::cast_slice(&data), bytemuck::cast_slice(&[4u32, 3, 1, 7]), bytemuck::cast_slice(&[9f32, 10.0, 11.0, 12.0]), bytemuck::cast_slice_mut(&mut y))?;
/// assert_eq!(y, [1.0, 11.0, 3.0, 10.0, 9.0, 6.0, 7.0, 12.0]);
/// # let _ = (x, u);
/// # Ok::<(), strider::Error>(())
/// ```
#[derive(Clone, Debug)]
pub struct ScatterNd {
    engine: Engine,
    /// Meaningful input and indices ranks, tuple size.
    shape: (usize, usize, usize),
}

impl ScatterNd {
    /// Validates and plans the scatter.
    ///
    /// # Errors
    ///
    /// [`Error::OperandRankMismatch`]; [`Error::OperandDataTypeMismatch`]; [`Error::UnsupportedDataType`] for indices
    /// that are not INT32, UINT32, INT64 or UINT64; [`Error::ArgumentOutOfRange`] for a dimension count outside
    /// 1..=rank or a tuple size outside 1..=input count; [`Error::OperandSizeMismatch`] for a leading dimension that
    /// is not 1; [`Error::ShapeMismatch`] for other output or updates sizes; [`Error::OverlappingOutput`],
    /// [`Error::OverlapUndecided`].
    pub fn new(
        input: &TensorDesc,
        indices: &TensorDesc,
        updates: &TensorDesc,
        output: &TensorDesc,
        input_dimension_count: u32,
        indices_dimension_count: u32,
    ) -> Result<ScatterNd, Error> {
        let n = scatter_operands("DML_OPERATOR_SCATTER_ND", input, indices, updates, output)?;
        let r = check_argument("InputDimensionCount", input_dimension_count, 1, n)?;
        let q = check_argument("IndicesDimensionCount", indices_dimension_count, 1, n)?;
        check_shape(Operand::Output, output, input.sizes(), "the output has the input's sizes")?;
        let t = check_nd(input, Operand::InputAt(0), indices, (r, q, 0))?;
        let (is, xs) = (&input.sizes()[n - r..], &indices.sizes()[n - q..]);
        let full: Vec<u32> = xs[..q - 1].iter().chain(&is[t..]).copied().collect();
        let why = "the indices' sizes without the tuple, then the input's after the indexed ones";
        let Some((expected, dims)) = right_align(&full, n) else {
            return Err(Error::ShapeMismatch {
                operand: Operand::InputAt(2),
                sizes: updates.sizes().to_vec(),
                expected: full.iter().map(|&s| u64::from(s)).collect(),
                why: "the updates' sizes need more dimensions than the tensors have, and only leading 1s can be dropped",
            });
        };
        check_shape(Operand::InputAt(2), updates, &expected, why)?;
        let (ix_s, up_s, out_s) = (indices.signed_strides(), updates.signed_strides(), output.signed_strides());
        let src = |f: usize| dims[f].map_or(0, |o| up_s[o]);
        let positions = (0..q - 1).map(|f| pos(xs[f], ix_s[n - q + f], src(f), 0, Some(n - q + f))).collect();
        let components = (0..t).map(|c| (is[c], out_s[n - r + c])).collect();
        let block = (t..r).map(|k| (is[k], src(q - 1 + k - t), out_s[n - r + k])).collect();
        let walk = Walk { dims: positions, tuple: (ix_s[n - 1], Some(n - 1)), components, block };
        Ok(ScatterNd { engine: scatter_engine([input, indices, updates], output, walk, None)?, shape: (r, q, t) })
    }

    scatter_methods!(ScatterNd);

    /// The same result by the slowest, most obvious method: the input copied element by element, then each tuple's
    /// block of updates written element by element in the indices' C order. For verifying results.
    ///
    /// # Errors
    ///
    /// As [`ScatterNd::execute`].
    pub fn execute_reference(
        &self,
        input: &[u8],
        indices: &[u8],
        updates: &[u8],
        output: &mut [u8],
    ) -> Result<(), Error> {
        self.engine.check_many(&[input, indices, updates], &[&mut *output])?;
        let [xt, it, ut] = [&self.inputs()[0], &self.inputs()[1], &self.inputs()[2]];
        let (x, ix, up) = (Tensor::new(xt, input), Tensor::new(it, indices), Tensor::new(ut, updates));
        let out = self.output().clone();
        let n = out.rank();
        let (r, q, t) = self.shape;
        reference_check(1, &ix, it, |c| out.sizes()[n - r + c[n - 1] as usize])?;
        crate::ops::reference_each(&out, output, |c, y| put(y, x.element(c)));
        let w = out.data_type().size_in_bytes();
        let full_len = q - 1 + r - t;
        // Every update coordinate in C order: its tuple, then the block element.
        let us = ut.sizes();
        let mut c = vec![0u32; n];
        loop {
            let mut f = vec![0u32; full_len];
            for (k, v) in f.iter_mut().enumerate() {
                if let Some(o) = (k + n).checked_sub(full_len) {
                    *v = c[o];
                }
            }
            let mut at_ix = vec![0u32; n];
            at_ix[n - q..n - 1].copy_from_slice(&f[..q - 1]);
            let mut at = vec![0u32; n];
            for k in 0..t {
                at_ix[n - 1] = k as u32;
                at[n - r + k] = wrap_index(index_at(&ix, it.data_type(), &at_ix), out.sizes()[n - r + k]).unwrap_or(0);
            }
            at[n - r + t..].copy_from_slice(&f[q - 1..]);
            if let Some(range) = out.offset_of(&at).and_then(|e| crate::engine::byte_range(e, w)) {
                put(&mut output[range], up.element(&c));
            }
            if !crate::engine::next_coordinate(&mut c, us) {
                return Ok(());
            }
        }
    }

    index_operator_methods!();
}

/// `DML_ONE_HOT_OPERATOR_DESC`, validated and planned: ONNX `OneHot`.
///
/// Indices, values and output have one rank; the indices have the output's sizes except along `axis`, where
/// their size is 1. The values hold at least two elements: the off value is their first element, the on value
/// the next one along their last dimension of size above 1. Output element `c` is the on value when `c[axis]`
/// equals the index at `c` (with `c[axis]` = 0; negative indices count from the end), the off value otherwise;
/// an index outside the axis leaves its whole sequence off (not an error).
///
/// # Examples
///
/// ```
/// use strider::{DataType, OneHot, TensorDesc};
/// let i = TensorDesc::new(DataType::Int32, &[3, 1])?;
/// let v = TensorDesc::new(DataType::Float32, &[1, 2])?;
/// let out = TensorDesc::new(DataType::Float32, &[3, 4])?;
/// let op = OneHot::new(&i, &v, &out, 1)?;
/// let mut y = [9f32; 12];
/// op.execute(bytemuck::cast_slice(&[-3i32, 100, 3]), bytemuck::cast_slice(&[0f32, 1.0]), bytemuck::cast_slice_mut(&mut y))?;
/// assert_eq!(y, [0.0, 1.0, 0.0, 0.0, /**/ 0.0, 0.0, 0.0, 0.0, /**/ 0.0, 0.0, 0.0, 1.0]);
/// # Ok::<(), strider::Error>(())
/// ```
#[derive(Clone, Debug)]
pub struct OneHot {
    engine: Engine,
    axis: usize,
    /// Coordinates of the off and on values.
    values: (Vec<u32>, Vec<u32>),
}

impl OneHot {
    /// Validates and plans the encoding.
    ///
    /// # Errors
    ///
    /// [`Error::OperandRankMismatch`]; [`Error::OperandDataTypeMismatch`] when values and output types differ;
    /// [`Error::UnsupportedDataType`] for indices that are not INT32, UINT32, INT64 or UINT64;
    /// [`Error::AxisOutOfRange`]; [`Error::ShapeMismatch`] for indices whose sizes are not the output's with 1 along
    /// the axis; [`Error::ArgumentOutOfRange`] for values of fewer than two elements; [`Error::OverlappingOutput`],
    /// [`Error::OverlapUndecided`].
    pub fn new(indices: &TensorDesc, values: &TensorDesc, output: &TensorDesc, axis: u32) -> Result<OneHot, Error> {
        let operands = [(Operand::InputAt(0), indices), (Operand::InputAt(1), values), (Operand::Output, output)];
        let data = [(Operand::InputAt(1), values), (Operand::Output, output)];
        let n = check_index_operands("DML_OPERATOR_ONE_HOT", &operands, indices, &data)?;
        let a = check_axis(axis, n)?;
        let mut expected = output.sizes().to_vec();
        expected[a] = 1;
        check_shape(Operand::InputAt(0), indices, &expected, "the output's sizes with 1 along the axis")?;
        let count = values.sizes().iter().fold(1u64, |c, &s| c.saturating_mul(u64::from(s)));
        if count < 2 {
            return Err(Error::ArgumentOutOfRange {
                argument: "the number of values",
                value: count,
                min: 2,
                max: u64::MAX,
            });
        }
        let off = vec![0u32; n];
        let mut on = off.clone();
        if let Some(d) = values.sizes().iter().rposition(|&s| s > 1) {
            on[d] = 1;
        }
        let on_offset = values.offset_of(&on).ok_or_else(|| Error::Internal { detail: "on value offset".into() })?;
        let (ix_s, out_s) = (indices.signed_strides(), output.signed_strides());
        let positions =
            (0..n).filter(|&d| d != a).map(|d| pos(output.sizes()[d], ix_s[d], 0, out_s[d], Some(d))).collect();
        let mv = IndexedMove {
            indices: 0,
            source: 1,
            output: 0,
            dims: positions,
            index_base: indices.origin(),
            tuple: (0, None),
            components: vec![(output.sizes()[a], out_s[a])],
            src_base: on_offset,
            dst_base: output.origin(),
            side: Side::Destination,
            block: Vec::new(),
            out_of_range: OutOfRange::Skip,
            rows_first: None,
        };
        let mut b = Builder::new(&[indices.clone(), values.clone()], core::slice::from_ref(output))?;
        let op = ElementOp::Copy { width: output.data_type().size_in_bytes() };
        let zeros = vec![0i64; n];
        b.copy(From::Input(1), Region::whole(0, output.sizes()), &zeros, values.origin(), op)?;
        b.indexed(mv)?;
        Ok(OneHot { engine: b.finish(true)?, axis: a, values: (off, on) })
    }

    /// Runs the encoding.
    ///
    /// # Errors
    ///
    /// [`Error::BufferTooSmall`], [`Error::MisalignedBuffer`] for a buffer its tensor does not fit; nothing is
    /// written then.
    pub fn execute(&self, indices: &[u8], values: &[u8], output: &mut [u8]) -> Result<(), Error> {
        self.execute_with(indices, values, output, &ExecOptions::default())
    }

    /// [`OneHot::execute`] with explicit options.
    ///
    /// # Errors
    ///
    /// As [`OneHot::execute`], and [`Error::IsaUnavailable`] when `opts` forces an instruction set this CPU lacks.
    pub fn execute_with(
        &self,
        indices: &[u8],
        values: &[u8],
        output: &mut [u8],
        opts: &ExecOptions,
    ) -> Result<(), Error> {
        self.engine.execute_many(&[indices, values], &mut [output], opts)
    }

    /// The same result by the slowest, most obvious method: each output element compared with its index. For
    /// verifying results.
    ///
    /// # Errors
    ///
    /// As [`OneHot::execute`].
    pub fn execute_reference(&self, indices: &[u8], values: &[u8], output: &mut [u8]) -> Result<(), Error> {
        self.engine.check_many(&[indices, values], &[&mut *output])?;
        let [it, vt] = [&self.inputs()[0], &self.inputs()[1]];
        let (ix, v) = (Tensor::new(it, indices), Tensor::new(vt, values));
        let (off, on) = (v.element(&self.values.0), v.element(&self.values.1));
        let a = self.axis;
        let depth = self.output().sizes()[a];
        crate::ops::reference_each(self.output(), output, |c, y| {
            let mut at = c.to_vec();
            at[a] = 0;
            let hot = wrap_index(index_at(&ix, it.data_type(), &at), depth) == Some(c[a]);
            put(y, if hot { on } else { off });
        });
        Ok(())
    }

    index_operator_methods!();
}
