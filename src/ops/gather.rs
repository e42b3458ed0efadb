//! `DML_GATHER`, `DML_GATHER_ELEMENTS` and `DML_GATHER_ND1` (`DML_GATHER_ND` is its batch-free form): outputs read
//! where an index tensor says. Each is one indexed move ([`IndexedMove`]): a space of positions (the output's
//! dimensions that come from the indices, and those before the gathered axis), a tuple of indices per position,
//! and a block (the output's dimensions after the gathered ones) copied from where the tuple points. `execute`
//! checks every index before anything is written; an index outside its dimension is
//! [`Error::IndexOutOfRange`].
//!
//! DirectML gives every tensor one dimension count: the meaningful sizes are right-aligned and padded with leading
//! 1s, and an output whose gathered sizes would take more dimensions drops leading 1s. The output sizes are
//! checked against that rule ([`Error::ShapeMismatch`] names the sizes expected).

// Dimension arithmetic only: ranks, dimension numbers and counts are at most 8 (validated before use), and
// coordinates are below u32 sizes; element offsets go through `TensorDesc`'s checked arithmetic and the kernels'
// i128 bounds.
#![allow(clippy::arithmetic_side_effects)]
use crate::engine::{Builder, Engine, IndexedMove, PositionDim, index_type};
use crate::ops::{Tensor, check_axis, reference_each};
use crate::{DataType, Error, ExecOptions, Operand, Plan, RowKind, TensorDesc};
use strider_kernels::{OutOfRange, Side};

/// The index types.
const INDEX_TYPES: &str = "INT32, UINT32, INT64 or UINT64 indices";

/// The checks of an operator of indices: every tensor of `tensors` (operand, description) has the first one's rank;
/// `indices` is of an index type; `data` (the tensors that hold data) share one data type. Returns the rank.
pub(crate) fn check_index_operands(
    operator: &'static str,
    tensors: &[(Operand, &TensorDesc)],
    indices: &TensorDesc,
    data: &[(Operand, &TensorDesc)],
) -> Result<usize, Error> {
    let rank = tensors.first().map_or(0, |(_, t)| t.rank());
    for &(operand, t) in tensors {
        if t.rank() != rank {
            return Err(Error::OperandRankMismatch { operand, rank: t.rank(), expected: rank });
        }
    }
    if index_type(indices.data_type()).is_none() {
        return Err(Error::UnsupportedDataType { operator, data_type: indices.data_type(), accepted: INDEX_TYPES });
    }
    if let Some(&(_, first)) = data.first() {
        for &(operand, t) in data {
            if t.data_type() != first.data_type() {
                return Err(Error::OperandDataTypeMismatch {
                    operand,
                    data_type: t.data_type(),
                    expected: first.data_type(),
                });
            }
        }
    }
    Ok(rank)
}

/// `value` checked against `min..=max` for argument `argument`.
pub(crate) fn check_argument(argument: &'static str, value: u32, min: usize, max: usize) -> Result<usize, Error> {
    let v = value as usize;
    if v < min || v > max {
        return Err(Error::ArgumentOutOfRange { argument, value: u64::from(value), min: min as u64, max: max as u64 });
    }
    Ok(v)
}

/// Dimensions `0..lead` of `t` must be 1 (DirectML's padding before the meaningful dimensions).
pub(crate) fn check_leading_ones(
    operand: Operand,
    t: &TensorDesc,
    lead: usize,
    why: &'static str,
) -> Result<(), Error> {
    for (dim, &size) in t.sizes().iter().enumerate().take(lead) {
        if size != 1 {
            return Err(Error::OperandSizeMismatch { operand, dim, size, expected: 1, why });
        }
    }
    Ok(())
}

/// The sizes `full` right-aligned into `rank` dimensions: leading 1s added, or leading 1s dropped; `None` when a
/// size above 1 would be dropped. Also returns the output dimension of each entry of `full` (`None`: dropped).
pub(crate) fn right_align(full: &[u32], rank: usize) -> Option<(Vec<u32>, Vec<Option<usize>>)> {
    if full.len() >= rank {
        let cut = full.len() - rank;
        if full[..cut].iter().any(|&s| s != 1) {
            return None;
        }
        Some((full[cut..].to_vec(), (0..full.len()).map(|f| f.checked_sub(cut)).collect()))
    } else {
        let pad = rank - full.len();
        let mut sizes = vec![1; pad];
        sizes.extend_from_slice(full);
        Some((sizes, (0..full.len()).map(|f| Some(f + pad)).collect()))
    }
}

/// `t` must have sizes `expected` ([`Error::ShapeMismatch`] otherwise, with `why`).
pub(crate) fn check_shape(operand: Operand, t: &TensorDesc, expected: &[u32], why: &'static str) -> Result<(), Error> {
    if t.sizes() != expected {
        return Err(Error::ShapeMismatch {
            operand,
            sizes: t.sizes().to_vec(),
            expected: expected.iter().map(|&s| u64::from(s)).collect(),
            why,
        });
    }
    Ok(())
}

/// The output sizes of gathered sizes `full` in `output`'s rank, checked.
fn output_dims(output: &TensorDesc, full: &[u32], why: &'static str) -> Result<Vec<Option<usize>>, Error> {
    let Some((expected, dims)) = right_align(full, output.rank()) else {
        return Err(Error::ShapeMismatch {
            operand: Operand::Output,
            sizes: output.sizes().to_vec(),
            expected: full.iter().map(|&s| u64::from(s)).collect(),
            why: "the gathered sizes need more dimensions than the tensors have, and only leading 1s can be dropped",
        });
    };
    check_shape(Operand::Output, output, &expected, why)?;
    Ok(dims)
}

/// The value of the index at coordinate `c` of `indices` (the references).
pub(crate) fn index_at(indices: &Tensor<'_>, dt: DataType, c: &[u32]) -> i128 {
    let b = indices.element(c);
    let mut w = [0u8; 8];
    w[..b.len().min(8)].copy_from_slice(&b[..b.len().min(8)]);
    match dt {
        DataType::Int32 => i128::from(i32::from_le_bytes([w[0], w[1], w[2], w[3]])),
        DataType::Uint32 => i128::from(u32::from_le_bytes([w[0], w[1], w[2], w[3]])),
        DataType::Int64 => i128::from(i64::from_le_bytes(w)),
        _ => i128::from(u64::from_le_bytes(w)),
    }
}

/// `v` as a coordinate along a dimension of `size` (negative values count from the end), or `None`.
pub(crate) fn wrap_index(v: i128, size: u32) -> Option<u32> {
    let n = i128::from(size);
    let u = if v < 0 { v + n } else { v };
    (0..n).contains(&u).then_some(u as u32)
}

/// The references' index check: every index of `indices` at the coordinates `each` visits, against the dimension
/// size `size_of(coordinate)`; the first invalid one in C order is the error.
pub(crate) fn reference_check(
    input: usize,
    indices: &Tensor<'_>,
    desc: &TensorDesc,
    size_of: impl Fn(&[u32]) -> u32,
) -> Result<(), Error> {
    let sizes = desc.sizes();
    let mut c = vec![0u32; sizes.len()];
    loop {
        let v = index_at(indices, desc.data_type(), &c);
        let size = size_of(&c);
        if wrap_index(v, size).is_none() {
            return Err(Error::IndexOutOfRange { input, coordinate: c, value: v, size: u64::from(size) });
        }
        if !crate::engine::next_coordinate(&mut c, sizes) {
            return Ok(());
        }
    }
}

/// What an index operator's move walks besides its tensors: the positions, the tuple (element step in the indices
/// and the indices dimension it walks), each index's dimension size and step, and the block (see
/// [`IndexedMove`]).
pub(crate) struct Walk {
    pub(crate) dims: Vec<PositionDim>,
    pub(crate) tuple: (i64, Option<usize>),
    pub(crate) components: Vec<(u32, i64)>,
    pub(crate) block: Vec<(u32, i64, i64)>,
}

/// The operand checks of a gather (`input`, `indices`, `output`): one rank, indices of an index type, input and
/// output of one data type. Returns the rank.
fn gather_operands(
    operator: &'static str,
    input: &TensorDesc,
    indices: &TensorDesc,
    output: &TensorDesc,
) -> Result<usize, Error> {
    let operands = [(Operand::InputAt(0), input), (Operand::InputAt(1), indices), (Operand::Output, output)];
    let data = [(Operand::InputAt(0), input), (Operand::Output, output)];
    check_index_operands(operator, &operands, indices, &data)
}

/// A gather's engine: one indexed move reading input 0 where input 1's indices say, into the output.
fn gather_engine(input: &TensorDesc, indices: &TensorDesc, output: &TensorDesc, walk: Walk) -> Result<Engine, Error> {
    let mv = IndexedMove {
        indices: 1,
        source: 0,
        output: 0,
        dims: walk.dims,
        index_base: indices.origin(),
        tuple: walk.tuple,
        components: walk.components,
        src_base: input.origin(),
        dst_base: output.origin(),
        side: Side::Source,
        block: walk.block,
        out_of_range: OutOfRange::Error,
        rows_first: None,
    };
    let mut b = Builder::new(&[input.clone(), indices.clone()], core::slice::from_ref(output))?;
    b.indexed(mv)?;
    b.finish(false)
}

/// The position dimension of one dimension of a tensor pair.
pub(crate) fn pos(extent: u32, index: i64, src: i64, dst: i64, index_dim: Option<usize>) -> PositionDim {
    PositionDim { extent, index, src, dst, index_dim }
}

/// The methods of the index operators, forwarding to `engine`: their inputs, and what every operator shows.
macro_rules! index_operator_methods {
    () => {
        /// The input tensors, in order.
        pub fn inputs(&self) -> &[TensorDesc] {
            self.engine.inputs()
        }

        crate::ops::inspection_methods!();
    };
}

/// `execute` and `execute_with` of the gathers (an input and its indices, one output).
macro_rules! gather_methods {
    () => {
        /// Runs the gather.
        ///
        /// # Errors
        ///
        /// [`Error::IndexOutOfRange`] for an index outside its dimension (the first in the indices' C order; for
        /// tuples, the coordinate's last entry is the place in the tuple); [`Error::BufferTooSmall`],
        /// [`Error::MisalignedBuffer`] for a buffer its tensor does not fit. Nothing is written then.
        pub fn execute(&self, input: &[u8], indices: &[u8], output: &mut [u8]) -> Result<(), Error> {
            self.execute_with(input, indices, output, &ExecOptions::default())
        }

        /// `execute` with explicit options.
        ///
        /// # Errors
        ///
        /// As `execute`, and [`Error::IsaUnavailable`] when `opts` forces an instruction set this CPU lacks.
        pub fn execute_with(
            &self,
            input: &[u8],
            indices: &[u8],
            output: &mut [u8],
            opts: &ExecOptions,
        ) -> Result<(), Error> {
            self.engine.execute_many(&[input, indices], &mut [output], opts)
        }
    };
}

pub(crate) use index_operator_methods;

/// `DML_GATHER_OPERATOR_DESC`, validated and planned: `np.take(input, indices, axis)` in DirectML's shapes.
///
/// All three tensors have one rank `n`. The last `index_dimensions` dimensions of `indices` are its meaningful
/// ones (the others must be 1). The output's sizes are `input[..axis] ++ indices[n − index_dimensions..] ++
/// input[axis + 1..]`, right-aligned into `n` dimensions. Output element `(o, p, q)` is input element
/// `(o, indices[p], q)`; a negative index counts from the end of the axis.
///
/// # Examples
///
/// An embedding lookup: rows 2, 0 and −1 of a 4 × 2 table.
///
/// ```
/// use strider::{DataType, Gather, TensorDesc};
/// let table = TensorDesc::new(DataType::Float32, &[4, 2])?;
/// let ids = TensorDesc::new(DataType::Int64, &[1, 3])?;
/// let out = TensorDesc::new(DataType::Float32, &[3, 2])?;
/// let gather = Gather::new(&table, &ids, &out, 0, 1)?;
/// let x = [0f32, 1.0, 10.0, 11.0, 20.0, 21.0, 30.0, 31.0];
/// let i = [2i64, 0, -1];
/// let mut y = [0f32; 6];
/// gather.execute(bytemuck::cast_slice(&x), bytemuck::cast_slice(&i), bytemuck::cast_slice_mut(&mut y))?;
/// assert_eq!(y, [20.0, 21.0, 0.0, 1.0, 30.0, 31.0]);
/// # Ok::<(), strider::Error>(())
/// ```
#[derive(Clone, Debug)]
pub struct Gather {
    engine: Engine,
    axis: usize,
    index_dimensions: usize,
}

impl Gather {
    /// Validates and plans the gather.
    ///
    /// # Errors
    ///
    /// [`Error::OperandRankMismatch`]; [`Error::OperandDataTypeMismatch`] when input and output types differ;
    /// [`Error::UnsupportedDataType`] for indices that are not INT32, UINT32, INT64 or UINT64;
    /// [`Error::AxisOutOfRange`]; [`Error::ArgumentOutOfRange`] for `index_dimensions` above the rank;
    /// [`Error::OperandSizeMismatch`] for a leading dimension of the indices that is not 1; [`Error::ShapeMismatch`]
    /// for other output sizes; [`Error::OverlappingOutput`], [`Error::OverlapUndecided`] for an output that maps two
    /// coordinates to one element.
    pub fn new(
        input: &TensorDesc,
        indices: &TensorDesc,
        output: &TensorDesc,
        axis: u32,
        index_dimensions: u32,
    ) -> Result<Gather, Error> {
        let n = gather_operands("DML_OPERATOR_GATHER", input, indices, output)?;
        let a = check_axis(axis, n)?;
        let m = check_argument("IndexDimensions", index_dimensions, 0, n)?;
        let why = "dimensions before the last IndexDimensions of the indices must be 1";
        check_leading_ones(Operand::InputAt(1), indices, n - m, why)?;
        let (is, xs) = (input.sizes(), indices.sizes());
        let full: Vec<u32> = is[..a].iter().chain(&xs[n - m..]).chain(&is[a + 1..]).copied().collect();
        let dims = output_dims(output, &full, "input sizes before the axis, the indices' sizes, input sizes after it")?;
        let (in_s, ix_s, out_s) = (input.signed_strides(), indices.signed_strides(), output.signed_strides());
        let dst = |f: usize| dims[f].map_or(0, |o| out_s[o]);
        let mut positions: Vec<PositionDim> = (0..a).map(|f| pos(is[f], 0, in_s[f], dst(f), None)).collect();
        positions.extend((0..m).map(|k| {
            let j = n - m + k;
            pos(xs[j], ix_s[j], 0, dst(a + k), Some(j))
        }));
        let block = (a + 1..n).map(|i| (is[i], in_s[i], dst(i + m - 1))).collect();
        let walk = Walk { dims: positions, tuple: (0, None), components: vec![(is[a], in_s[a])], block };
        Ok(Gather { engine: gather_engine(input, indices, output, walk)?, axis: a, index_dimensions: m })
    }

    gather_methods!();

    /// The same result by the slowest, most obvious method: each output coordinate mapped back to its input
    /// element through one index. For verifying results.
    ///
    /// # Errors
    ///
    /// As [`Gather::execute`].
    pub fn execute_reference(&self, input: &[u8], indices: &[u8], output: &mut [u8]) -> Result<(), Error> {
        self.engine.check_many(&[input, indices], &[&mut *output])?;
        let [xt, it] = [&self.inputs()[0], &self.inputs()[1]];
        let (x, ix) = (Tensor::new(xt, input), Tensor::new(it, indices));
        let (n, a, m) = (xt.rank(), self.axis, self.index_dimensions);
        reference_check(1, &ix, it, |_| xt.sizes()[a])?;
        let full_len = n + m - 1;
        reference_each(self.output(), output, |c, y| {
            // The coordinate over the gathered sizes: the output's, right-aligned (dropped leading dims are 0).
            let mut f = vec![0u32; full_len];
            for (k, v) in f.iter_mut().enumerate() {
                if let Some(o) = (k + n).checked_sub(full_len) {
                    *v = c[o];
                }
            }
            let mut at_ix = vec![0u32; n];
            at_ix[n - m..].copy_from_slice(&f[a..a + m]);
            let v = index_at(&ix, it.data_type(), &at_ix);
            let mut at = f[..a].to_vec();
            at.push(wrap_index(v, xt.sizes()[a]).unwrap_or(0));
            at.extend_from_slice(&f[a + m..]);
            crate::ops::put(y, x.element(&at));
        });
        Ok(())
    }

    index_operator_methods!();
}

/// `DML_GATHER_ELEMENTS_OPERATOR_DESC`, validated and planned: `np.take_along_axis(input, indices, axis)` (ONNX
/// `GatherElements`, `torch.gather`).
///
/// The three tensors have one rank; the output has the indices' sizes, which may be smaller than the input's off
/// the axis (DirectML asks for equal ones; smaller ones read the leading part, as ONNX and torch do). Output
/// element `c` is the input element `c` with its coordinate along `axis` replaced by `indices[c]`.
///
/// # Examples
///
/// ```
/// use strider::{DataType, GatherElements, TensorDesc};
/// let x = TensorDesc::new(DataType::Uint8, &[3, 3])?;
/// let i = TensorDesc::new(DataType::Uint32, &[2, 3])?;
/// let op = GatherElements::new(&x, &i, &TensorDesc::new(DataType::Uint8, &[2, 3])?, 0)?;
/// let mut y = [0u8; 6];
/// op.execute(&[1, 2, 3, 4, 5, 6, 7, 8, 9], bytemuck::cast_slice(&[1u32, 2, 0, 2, 0, 0]), &mut y)?;
/// assert_eq!(y, [4, 8, 3, 7, 2, 3]);
/// # Ok::<(), strider::Error>(())
/// ```
#[derive(Clone, Debug)]
pub struct GatherElements {
    engine: Engine,
    axis: usize,
}

/// Sizes of `indices` off `axis` at most `data`'s.
pub(crate) fn check_within(indices: &TensorDesc, data: &TensorDesc, axis: usize) -> Result<(), Error> {
    for (dim, (&i, &x)) in indices.sizes().iter().zip(data.sizes()).enumerate() {
        if dim != axis && i > x {
            let why = "the indices may not be larger than the data off the axis";
            return Err(Error::OperandSizeMismatch {
                operand: Operand::InputAt(1),
                dim,
                size: i,
                expected: u64::from(x),
                why,
            });
        }
    }
    Ok(())
}

impl GatherElements {
    /// Validates and plans the gather.
    ///
    /// # Errors
    ///
    /// [`Error::OperandRankMismatch`]; [`Error::OperandDataTypeMismatch`]; [`Error::UnsupportedDataType`] for indices
    /// that are not INT32, UINT32, INT64 or UINT64; [`Error::AxisOutOfRange`]; [`Error::OperandSizeMismatch`] for
    /// indices larger than the input off the axis; [`Error::ShapeMismatch`] for an output of other sizes than the
    /// indices; [`Error::OverlappingOutput`], [`Error::OverlapUndecided`].
    pub fn new(
        input: &TensorDesc,
        indices: &TensorDesc,
        output: &TensorDesc,
        axis: u32,
    ) -> Result<GatherElements, Error> {
        let n = gather_operands("DML_OPERATOR_GATHER_ELEMENTS", input, indices, output)?;
        let a = check_axis(axis, n)?;
        check_within(indices, input, a)?;
        check_shape(Operand::Output, output, indices.sizes(), "the output has the indices' sizes")?;
        let (in_s, ix_s, out_s) = (input.signed_strides(), indices.signed_strides(), output.signed_strides());
        let xs = indices.sizes();
        let positions =
            (0..n).map(|d| pos(xs[d], ix_s[d], if d == a { 0 } else { in_s[d] }, out_s[d], Some(d))).collect();
        let walk = Walk {
            dims: positions,
            tuple: (0, None),
            components: vec![(input.sizes()[a], in_s[a])],
            block: Vec::new(),
        };
        Ok(GatherElements { engine: gather_engine(input, indices, output, walk)?, axis: a })
    }

    gather_methods!();

    /// The same result by the slowest, most obvious method. For verifying results.
    ///
    /// # Errors
    ///
    /// As [`Gather::execute`].
    pub fn execute_reference(&self, input: &[u8], indices: &[u8], output: &mut [u8]) -> Result<(), Error> {
        self.engine.check_many(&[input, indices], &[&mut *output])?;
        let [xt, it] = [&self.inputs()[0], &self.inputs()[1]];
        let (x, ix) = (Tensor::new(xt, input), Tensor::new(it, indices));
        let a = self.axis;
        reference_check(1, &ix, it, |_| xt.sizes()[a])?;
        reference_each(self.output(), output, |c, y| {
            let mut at = c.to_vec();
            at[a] = wrap_index(index_at(&ix, it.data_type(), c), xt.sizes()[a]).unwrap_or(0);
            crate::ops::put(y, x.element(&at));
        });
        Ok(())
    }

    index_operator_methods!();
}

/// `DML_GATHER_ND1_OPERATOR_DESC` (and `DML_GATHER_ND_OPERATOR_DESC`, its form without batch dimensions),
/// validated and planned: ONNX `GatherND` with `batch_dims`.
///
/// All tensors have one rank `n`; the input's meaningful dimensions are its last `input_dimension_count`, the
/// indices' their last `indices_dimension_count` (the others must be 1). The last dimension of the indices holds
/// tuples of `t` coordinates (1 ≤ `t` ≤ meaningful input rank − `batch_dimension_count`); the first
/// `batch_dimension_count` meaningful dimensions of input and indices are batches and must have equal sizes. The
/// output's sizes are the indices' meaningful sizes without the tuple dimension, then the input's after the batches
/// and the `t` indexed dimensions, right-aligned into `n` dimensions.
///
/// DirectML's page gives the trailing output sizes as `InputTensor.Sizes[(InputTensor.DimensionCount −
/// indexTupleSize)..]`; its own examples (and ONNX) take the sizes after the batches and the indexed dimensions,
/// which is what this does.
///
/// # Examples
///
/// ```
/// use strider::{DataType, GatherNd, TensorDesc};
/// let x = TensorDesc::new(DataType::Float32, &[2, 2])?;
/// let i = TensorDesc::new(DataType::Uint32, &[2, 1])?;
/// let op = GatherNd::new(&x, &i, &x, 2, 2, 0)?;
/// let mut y = [0f32; 4];
/// op.execute(bytemuck::cast_slice(&[0f32, 1.0, 2.0, 3.0]), bytemuck::cast_slice(&[1u32, 0]), bytemuck::cast_slice_mut(&mut y))?;
/// assert_eq!(y, [2.0, 3.0, 0.0, 1.0]);
/// # Ok::<(), strider::Error>(())
/// ```
#[derive(Clone, Debug)]
pub struct GatherNd {
    engine: Engine,
    /// Meaningful input and indices ranks, batches, tuple size.
    shape: (usize, usize, usize, usize),
}

/// The checks shared by the ND operators: meaningful ranks `r` (data) and `q` (indices), `b` batches; returns the
/// tuple size `t`.
pub(crate) fn check_nd(
    data: &TensorDesc,
    data_operand: Operand,
    indices: &TensorDesc,
    (r, q, b): (usize, usize, usize),
) -> Result<usize, Error> {
    let n = data.rank();
    check_leading_ones(data_operand, data, n - r, "dimensions before the last InputDimensionCount must be 1")?;
    check_leading_ones(
        Operand::InputAt(1),
        indices,
        n - q,
        "dimensions before the last IndicesDimensionCount must be 1",
    )?;
    let t = indices.sizes()[n - 1];
    let t = check_argument("the index tuple size (the last size of the indices)", t, 1, r - b)?;
    for k in 0..b {
        let (size, expected) = (indices.sizes()[n - q + k], data.sizes()[n - r + k]);
        if size != expected {
            let why = "batch dimensions of the indices equal the data's";
            return Err(Error::OperandSizeMismatch {
                operand: Operand::InputAt(1),
                dim: n - q + k,
                size,
                expected: u64::from(expected),
                why,
            });
        }
    }
    Ok(t)
}

impl GatherNd {
    /// Validates and plans the gather.
    ///
    /// # Errors
    ///
    /// [`Error::OperandRankMismatch`]; [`Error::OperandDataTypeMismatch`]; [`Error::UnsupportedDataType`] for indices
    /// that are not INT32, UINT32, INT64 or UINT64; [`Error::ArgumentOutOfRange`] for a dimension count outside
    /// 1..=rank, a batch count not below both, or a tuple size outside 1..=(input count − batches);
    /// [`Error::OperandSizeMismatch`] for a leading dimension that is not 1 or batch sizes that differ;
    /// [`Error::ShapeMismatch`] for other output sizes; [`Error::OverlappingOutput`], [`Error::OverlapUndecided`].
    pub fn new(
        input: &TensorDesc,
        indices: &TensorDesc,
        output: &TensorDesc,
        input_dimension_count: u32,
        indices_dimension_count: u32,
        batch_dimension_count: u32,
    ) -> Result<GatherNd, Error> {
        let n = gather_operands("DML_OPERATOR_GATHER_ND1", input, indices, output)?;
        let r = check_argument("InputDimensionCount", input_dimension_count, 1, n)?;
        let q = check_argument("IndicesDimensionCount", indices_dimension_count, 1, n)?;
        let b = check_argument("BatchDimensionCount", batch_dimension_count, 0, r.min(q) - 1)?;
        let t = check_nd(input, Operand::InputAt(0), indices, (r, q, b))?;
        let (is, xs) = (&input.sizes()[n - r..], &indices.sizes()[n - q..]);
        let full: Vec<u32> = xs[..q - 1].iter().chain(&is[b + t..]).copied().collect();
        let dims = output_dims(
            output,
            &full,
            "the indices' sizes without the tuple, then the input's after the indexed ones",
        )?;
        let (in_s, ix_s, out_s) = (input.signed_strides(), indices.signed_strides(), output.signed_strides());
        let dst = |f: usize| dims[f].map_or(0, |o| out_s[o]);
        let positions = (0..q - 1)
            .map(|f| {
                let j = n - q + f;
                let src = if f < b { in_s[n - r + f] } else { 0 };
                pos(xs[f], ix_s[j], src, dst(f), Some(j))
            })
            .collect();
        let components = (0..t).map(|c| (is[b + c], in_s[n - r + b + c])).collect();
        let block = (b + t..r).map(|k| (is[k], in_s[n - r + k], dst(q - 1 + k - b - t))).collect();
        let walk = Walk { dims: positions, tuple: (ix_s[n - 1], Some(n - 1)), components, block };
        Ok(GatherNd { engine: gather_engine(input, indices, output, walk)?, shape: (r, q, b, t) })
    }

    gather_methods!();

    /// The same result by the slowest, most obvious method. For verifying results.
    ///
    /// # Errors
    ///
    /// As [`Gather::execute`].
    pub fn execute_reference(&self, input: &[u8], indices: &[u8], output: &mut [u8]) -> Result<(), Error> {
        self.engine.check_many(&[input, indices], &[&mut *output])?;
        let [xt, it] = [&self.inputs()[0], &self.inputs()[1]];
        let (x, ix) = (Tensor::new(xt, input), Tensor::new(it, indices));
        let n = xt.rank();
        let (r, q, b, t) = self.shape;
        // Each index against the input dimension its place in the tuple addresses.
        reference_check(1, &ix, it, |c| xt.sizes()[n - r + b + c[n - 1] as usize])?;
        let full_len = q - 1 + r - b - t;
        reference_each(self.output(), output, |c, y| {
            let mut f = vec![0u32; full_len];
            for (k, v) in f.iter_mut().enumerate() {
                if let Some(o) = (k + n).checked_sub(full_len) {
                    *v = c[o];
                }
            }
            let mut at = vec![0u32; n];
            let mut at_ix = vec![0u32; n];
            at_ix[n - q..n - 1].copy_from_slice(&f[..q - 1]);
            at[n - r..n - r + b].copy_from_slice(&f[..b]);
            for k in 0..t {
                at_ix[n - 1] = k as u32;
                let v = index_at(&ix, it.data_type(), &at_ix);
                at[n - r + b + k] = wrap_index(v, xt.sizes()[n - r + b + k]).unwrap_or(0);
            }
            at[n - r + b + t..].copy_from_slice(&f[q - 1..]);
            crate::ops::put(y, x.element(&at));
        });
        Ok(())
    }

    index_operator_methods!();
}
