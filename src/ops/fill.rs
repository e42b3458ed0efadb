//! `DML_FILL_VALUE_CONSTANT` and `DML_FILL_VALUE_SEQUENCE`: outputs without an input. A constant is a broadcast
//! of one value (the kernels' broadcast rows, streamed when large); a sequence is computed from each element's
//! index in closed form, never accumulated.

use strider_kernels::ElementOp;

use crate::engine::{Builder, Engine, Region};
use crate::ops::reference_each;
use crate::{DataType, Error, ExecOptions, Plan, RowKind, Scalar, TensorDesc};

/// What a [`Fill`] writes.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum FillValues {
    /// Every element the value.
    Constant(Scalar),
    /// Element `i` (its index in C order) `start + i·delta`.
    Sequence {
        /// The value at index 0.
        start: Scalar,
        /// The step.
        delta: Scalar,
    },
}

/// `DML_FILL_VALUE_CONSTANT_OPERATOR_DESC` and `DML_FILL_VALUE_SEQUENCE_OPERATOR_DESC`, validated and planned: an
/// output without input (`np.full`, `np.arange` reshaped).
///
/// A sequence numbers the elements in C order over the output's *sizes*, whatever its strides: element `c` has
/// index `Σ cᵢ·Πⱼ>ᵢ sizesⱼ`. Its value is computed in closed form, never by accumulating: for integer types
/// `start + i·delta` in the type's wrapping arithmetic; for float types `start + (i as f64)·delta`, a product then a
/// sum each rounded in f64, then rounded once to the type (indices are exact in f64 below 2^53).
///
/// # Examples
///
/// ```
/// use strider::{DataType, Fill, Scalar, TensorDesc};
/// let out = TensorDesc::new(DataType::Float32, &[2, 3])?;
/// let mut y = [0f32; 6];
/// Fill::constant(&out, Scalar::from(1.5f32))?.execute(bytemuck::cast_slice_mut(&mut y))?;
/// assert_eq!(y, [1.5; 6]);
/// let seq = Fill::sequence(&out, Scalar::from(0.5f64), Scalar::from(0.25f64))?;
/// seq.execute(bytemuck::cast_slice_mut(&mut y))?;
/// assert_eq!(y, [0.5, 0.75, 1.0, 1.25, 1.5, 1.75]);
/// # Ok::<(), strider::Error>(())
/// ```
#[derive(Clone, Debug)]
pub struct Fill {
    engine: Engine,
    values: FillValues,
}

/// Whether a sequence's `start` or `delta` of type `given` fits an output of type `output`: the output's type, or
/// for float outputs `FLOAT64` (taken exactly), for integer outputs any integer type (wrapping arithmetic uses the
/// low bits only).
fn sequence_type_fits(given: DataType, output: DataType) -> bool {
    given == output || (output.is_float() && given == DataType::Float64) || (!output.is_float() && !given.is_float())
}

impl Fill {
    /// Validates and plans a fill of `output` with `value`.
    ///
    /// # Errors
    ///
    /// [`Error::ScalarDataTypeMismatch`] when `value` is not of the output's data type;
    /// [`Error::OverlappingOutput`], [`Error::OverlapUndecided`] for an output that maps two coordinates to one
    /// element.
    pub fn constant(output: &TensorDesc, value: Scalar) -> Result<Fill, Error> {
        let expected = output.data_type();
        if value.data_type() != expected {
            return Err(Error::ScalarDataTypeMismatch { argument: "value", data_type: value.data_type(), expected });
        }
        let mut b = Builder::new(&[], core::slice::from_ref(output))?;
        b.fill(Region::whole(0, output.sizes()), value)?;
        Ok(Fill { engine: b.finish(true)?, values: FillValues::Constant(value) })
    }

    /// Validates and plans the sequence `start + i·delta` into `output`.
    ///
    /// `start` and `delta` are of the output's data type, or — to pass them exactly — `FLOAT64` for a float
    /// output and any integer type for an integer output (wrapping arithmetic only sees the low bits).
    ///
    /// # Errors
    ///
    /// [`Error::ScalarDataTypeMismatch`] for a `start` or `delta` of another type; [`Error::OverlappingOutput`],
    /// [`Error::OverlapUndecided`] for an output that maps two coordinates to one element.
    pub fn sequence(output: &TensorDesc, start: Scalar, delta: Scalar) -> Result<Fill, Error> {
        let expected = output.data_type();
        for (argument, v) in [("start", start), ("delta", delta)] {
            if !sequence_type_fits(v.data_type(), expected) {
                return Err(Error::ScalarDataTypeMismatch { argument, data_type: v.data_type(), expected });
            }
        }
        let mut b = Builder::new(&[], core::slice::from_ref(output))?;
        let op = ElementOp::Sequence { ty: expected.elem(), start: start.wide_bits(), delta: delta.wide_bits() };
        b.sequence(0, op)?;
        Ok(Fill { engine: b.finish(true)?, values: FillValues::Sequence { start, delta } })
    }

    /// Writes the output.
    ///
    /// # Errors
    ///
    /// [`Error::BufferTooSmall`], [`Error::MisalignedBuffer`] for a buffer the output tensor does not fit; nothing
    /// is written then.
    pub fn execute(&self, output: &mut [u8]) -> Result<(), Error> {
        self.execute_with(output, &ExecOptions::default())
    }

    /// [`Fill::execute`] with explicit options.
    ///
    /// # Errors
    ///
    /// As [`Fill::execute`], and [`Error::IsaUnavailable`] when `opts` forces an instruction set this CPU lacks.
    pub fn execute_with(&self, output: &mut [u8], opts: &ExecOptions) -> Result<(), Error> {
        self.engine.execute_many(&[], &mut [output], opts)
    }

    /// The same result by the slowest, most obvious method: each element computed alone by the portable scalar
    /// code from its index. For verifying results.
    ///
    /// # Errors
    ///
    /// As [`Fill::execute`].
    pub fn execute_reference(&self, output: &mut [u8]) -> Result<(), Error> {
        self.engine.check_many(&[], &[&mut *output])?;
        let out = self.output();
        let op = *self.engine.plan().op();
        let mut index = 0u64;
        reference_each(out, output, |_, y| {
            match self.values {
                FillValues::Constant(v) => crate::ops::put(y, v.bytes()),
                FillValues::Sequence { .. } => {
                    op.sequence_one(index, y);
                }
            }
            index = index.wrapping_add(1);
        });
        Ok(())
    }

    /// The output tensor.
    pub fn output(&self) -> &TensorDesc {
        self.engine.output()
    }

    /// What the fill writes.
    pub fn values(&self) -> FillValues {
        self.values
    }

    /// The plan.
    pub fn plan(&self) -> &Plan {
        self.engine.plan()
    }

    /// The row kernel.
    pub fn row_kind(&self) -> RowKind {
        self.engine.row_kind()
    }

    /// The engine (for the operator list).
    pub(crate) fn engine(&self) -> &Engine {
        &self.engine
    }

    /// How the operator runs, in words.
    pub fn explain(&self) -> String {
        self.engine.explain()
    }
}
