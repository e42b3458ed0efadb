//! `DML_JOIN` and `DML_SPLIT`: tensors concatenated along an axis, and a tensor cut into consecutive blocks along
//! one. Each input (output) is one move into (out of) its window of the one tensor; the moves are split across
//! threads together, so joining 32 small images uses every core.

use strider_kernels::{ElementOp, Plan, RowKind};

use crate::engine::{Builder, Engine, From, Region};
use crate::ops::{Tensor, check_axis, check_tensors, put, reference_each};
use crate::{Error, ExecOptions, Operand, TensorDesc};

/// The offsets along `axis` of consecutive blocks of `tensors`, after checking that they agree with `whole` off the
/// axis and add up to it along it; `list` names the blocks (`"input"`, `"output"`) and `of` makes their operands.
fn blocks(
    tensors: &[TensorDesc],
    whole: &TensorDesc,
    whole_operand: Operand,
    axis: u32,
    list: &'static str,
    of: fn(usize) -> Operand,
) -> Result<Vec<u32>, Error> {
    if tensors.is_empty() {
        return Err(Error::EmptyTensorList { argument: if list == "input" { "inputs" } else { "outputs" } });
    }
    let mut all: Vec<(Operand, &TensorDesc)> = tensors.iter().enumerate().map(|(i, t)| (of(i), t)).collect();
    all.push((whole_operand, whole));
    let rank = check_tensors(list, &all)?;
    let a = check_axis(axis, rank)?;
    let mut offsets = Vec::with_capacity(tensors.len());
    let mut sum = 0u64;
    for (i, t) in tensors.iter().enumerate() {
        for dim in (0..rank).filter(|&d| d != a) {
            let (size, expected) = (t.sizes()[dim], whole.sizes()[dim]);
            if size != expected {
                let why = "the tensors must have equal sizes off the axis";
                let expected = u64::from(expected);
                return Err(Error::OperandSizeMismatch { operand: of(i), dim, size, expected, why });
            }
        }
        // Below the whole's size (checked after the loop, and each offset is a prefix of the sum).
        offsets.push(u32::try_from(sum).unwrap_or(u32::MAX));
        sum = sum.saturating_add(u64::from(t.sizes()[a]));
    }
    let size = whole.sizes()[a];
    if sum != u64::from(size) {
        return Err(Error::AxisSizeSum { list, axis: a, sum, operand: whole_operand, size });
    }
    Ok(offsets)
}

/// `DML_JOIN_OPERATOR_DESC`, validated and planned: `np.concatenate(inputs, axis)`.
///
/// One or more inputs of one data type and rank, with equal sizes except along `axis`, whose sizes add up to the
/// output's. Any layout on every operand; inputs may alias each other.
///
/// # Examples
///
/// ```
/// use strider::{DataType, Join, TensorDesc};
/// let a = TensorDesc::new(DataType::Uint8, &[2, 1])?;
/// let b = TensorDesc::new(DataType::Uint8, &[2, 2])?;
/// let out = TensorDesc::new(DataType::Uint8, &[2, 3])?;
/// let join = Join::new(&[a, b], &out, 1)?;
/// let mut y = [0u8; 6];
/// join.execute(&[&[1, 4], &[2, 3, 5, 6]], &mut y)?;
/// assert_eq!(y, [1, 2, 3, 4, 5, 6]);
/// # Ok::<(), strider::Error>(())
/// ```
#[derive(Clone, Debug)]
pub struct Join {
    engine: Engine,
    axis: u32,
    offsets: Vec<u32>,
}

impl Join {
    /// Validates and plans the join.
    ///
    /// # Errors
    ///
    /// [`Error::EmptyTensorList`] without inputs; [`Error::OperandRankMismatch`],
    /// [`Error::OperandDataTypeMismatch`] when the tensors disagree; [`Error::AxisOutOfRange`];
    /// [`Error::OperandSizeMismatch`] for an input whose size differs from the output's off the axis;
    /// [`Error::AxisSizeSum`] when the sizes along the axis do not add up to the output's;
    /// [`Error::OverlappingOutput`], [`Error::OverlapUndecided`] for an output that maps two coordinates to one
    /// element.
    pub fn new(inputs: &[TensorDesc], output: &TensorDesc, axis: u32) -> Result<Join, Error> {
        let offsets = blocks(inputs, output, Operand::Output, axis, "input", Operand::InputAt)?;
        let a = axis as usize; // checked by `blocks`
        let mut b = Builder::new(inputs, core::slice::from_ref(output))?;
        for (i, (t, &offset)) in inputs.iter().zip(&offsets).enumerate() {
            let mut region = Region::whole(0, t.sizes());
            region.lo[a] = offset;
            let op = ElementOp::Copy { width: t.data_type().size_in_bytes() };
            b.copy(From::Input(i), region, &t.signed_strides(), t.origin(), op)?;
        }
        Ok(Join { engine: b.finish(true)?, axis, offsets })
    }

    /// Runs the join (one buffer per input, in order).
    ///
    /// # Errors
    ///
    /// [`Error::OperandCount`] for another number of input buffers; [`Error::BufferTooSmall`],
    /// [`Error::MisalignedBuffer`] for a buffer its tensor does not fit; nothing is written then.
    pub fn execute(&self, inputs: &[&[u8]], output: &mut [u8]) -> Result<(), Error> {
        self.execute_with(inputs, output, &ExecOptions::default())
    }

    /// [`Join::execute`] with explicit options.
    ///
    /// # Errors
    ///
    /// As [`Join::execute`], and [`Error::IsaUnavailable`] when `opts` forces an instruction set this CPU lacks.
    pub fn execute_with(&self, inputs: &[&[u8]], output: &mut [u8], opts: &ExecOptions) -> Result<(), Error> {
        self.engine.execute_many(inputs, &mut [output], opts)
    }

    /// The same result by the slowest, most obvious method: each output element copied from the input whose block
    /// holds it. For verifying results.
    ///
    /// # Errors
    ///
    /// As [`Join::execute`].
    pub fn execute_reference(&self, inputs: &[&[u8]], output: &mut [u8]) -> Result<(), Error> {
        self.engine.check_many(inputs, &[&mut *output])?;
        let xs: Vec<Tensor<'_>> = self.inputs().iter().zip(inputs).map(|(t, b)| Tensor::new(t, b)).collect();
        let a = self.axis as usize;
        reference_each(self.output(), output, |c, y| {
            // The last block starting at or before the coordinate (blocks are never empty).
            let i = self.offsets.iter().rposition(|&o| o <= c[a]).unwrap_or(0);
            let mut at = c.to_vec();
            at[a] = c[a].saturating_sub(self.offsets[i]);
            put(y, xs[i].element(&at));
        });
        Ok(())
    }

    /// The input tensors.
    pub fn inputs(&self) -> &[TensorDesc] {
        self.engine.inputs()
    }

    /// The output tensor.
    pub fn output(&self) -> &TensorDesc {
        self.engine.output()
    }

    /// The axis.
    pub fn axis(&self) -> u32 {
        self.axis
    }

    /// The plan of the largest move (see [`Join::explain`] for all of them).
    pub fn plan(&self) -> &Plan {
        self.engine.plan()
    }

    /// The row kernel of the largest move.
    pub fn row_kind(&self) -> RowKind {
        self.engine.row_kind()
    }

    /// The engine (for the operator list).
    pub(crate) fn engine(&self) -> &Engine {
        &self.engine
    }

    /// How the operator runs, in words: each move with its plan and row kernel, one per line.
    pub fn explain(&self) -> String {
        self.engine.explain()
    }
}

/// `DML_SPLIT_OPERATOR_DESC`, validated and planned: the input cut into consecutive blocks along `axis`, block `k`
/// into output `k` (`np.split` at the cumulative sizes, each block copied).
///
/// # Examples
///
/// ```
/// use strider::{DataType, Split, TensorDesc};
/// let x = TensorDesc::new(DataType::Int16, &[5])?;
/// let (a, b) = (TensorDesc::new(DataType::Int16, &[2])?, TensorDesc::new(DataType::Int16, &[3])?);
/// let split = Split::new(&x, &[a, b], 0)?;
/// let (mut y0, mut y1) = ([0u8; 4], [0u8; 6]);
/// let input: Vec<u8> = [1i16, 2, 3, 4, 5].iter().flat_map(|v| v.to_le_bytes()).collect();
/// split.execute(&input, &mut [&mut y0, &mut y1])?;
/// assert_eq!((y0, y1), ([1, 0, 2, 0], [3, 0, 4, 0, 5, 0]));
/// # Ok::<(), strider::Error>(())
/// ```
#[derive(Clone, Debug)]
pub struct Split {
    engine: Engine,
    axis: u32,
    offsets: Vec<u32>,
}

impl Split {
    /// Validates and plans the split.
    ///
    /// # Errors
    ///
    /// [`Error::EmptyTensorList`] without outputs; [`Error::OperandRankMismatch`],
    /// [`Error::OperandDataTypeMismatch`], [`Error::AxisOutOfRange`]; [`Error::OperandSizeMismatch`] for an output
    /// whose size differs from the input's off the axis; [`Error::AxisSizeSum`] when the outputs' sizes along the
    /// axis do not add up to the input's; [`Error::OverlappingOutput`], [`Error::OverlapUndecided`] for an output
    /// that maps two coordinates to one element.
    pub fn new(input: &TensorDesc, outputs: &[TensorDesc], axis: u32) -> Result<Split, Error> {
        let offsets = blocks(outputs, input, Operand::Input, axis, "output", Operand::OutputAt)?;
        let a = axis as usize; // checked by `blocks`
        let mut b = Builder::new(core::slice::from_ref(input), outputs)?;
        let strides = input.signed_strides();
        for (k, (t, &offset)) in outputs.iter().zip(&offsets).enumerate() {
            // The block's first element: inside the input.
            let mut corner = vec![0u32; input.rank()];
            corner[a] = offset;
            let base = input.offset_of(&corner).unwrap_or(0);
            let op = ElementOp::Copy { width: t.data_type().size_in_bytes() };
            b.copy(From::Input(0), Region::whole(k, t.sizes()), &strides, base, op)?;
        }
        Ok(Split { engine: b.finish(true)?, axis, offsets })
    }

    /// Runs the split (one buffer per output, in order).
    ///
    /// # Errors
    ///
    /// [`Error::OperandCount`] for another number of output buffers; [`Error::BufferTooSmall`],
    /// [`Error::MisalignedBuffer`] for a buffer its tensor does not fit; nothing is written then.
    pub fn execute(&self, input: &[u8], outputs: &mut [&mut [u8]]) -> Result<(), Error> {
        self.execute_with(input, outputs, &ExecOptions::default())
    }

    /// [`Split::execute`] with explicit options.
    ///
    /// # Errors
    ///
    /// As [`Split::execute`], and [`Error::IsaUnavailable`] when `opts` forces an instruction set this CPU lacks.
    pub fn execute_with(&self, input: &[u8], outputs: &mut [&mut [u8]], opts: &ExecOptions) -> Result<(), Error> {
        self.engine.execute_many(&[input], outputs, opts)
    }

    /// The same result by the slowest, most obvious method: each element of output `k` copied from the input at
    /// its coordinate moved along the axis by the sizes of the blocks before it. For verifying results.
    ///
    /// # Errors
    ///
    /// As [`Split::execute`].
    pub fn execute_reference(&self, input: &[u8], outputs: &mut [&mut [u8]]) -> Result<(), Error> {
        self.engine.check_many(&[input], outputs)?;
        let x = Tensor::new(self.input(), input);
        let a = self.axis as usize;
        for ((t, out), &offset) in self.outputs().iter().zip(outputs.iter_mut()).zip(&self.offsets) {
            reference_each(t, out, |c, y| {
                let mut at = c.to_vec();
                at[a] = c[a].saturating_add(offset);
                put(y, x.element(&at));
            });
        }
        Ok(())
    }

    /// The input tensor.
    pub fn input(&self) -> &TensorDesc {
        self.engine.input()
    }

    /// The output tensors.
    pub fn outputs(&self) -> &[TensorDesc] {
        self.engine.outputs()
    }

    /// The axis.
    pub fn axis(&self) -> u32 {
        self.axis
    }

    /// The plan of the largest move (see [`Split::explain`] for all of them).
    pub fn plan(&self) -> &Plan {
        self.engine.plan()
    }

    /// The row kernel of the largest move.
    pub fn row_kind(&self) -> RowKind {
        self.engine.row_kind()
    }

    /// The engine (for the operator list).
    pub(crate) fn engine(&self) -> &Engine {
        &self.engine
    }

    /// How the operator runs, in words: each move with its plan and row kernel, one per line.
    pub fn explain(&self) -> String {
        self.engine.explain()
    }
}
