//! `DML_SLICE` (version 0): unsigned strides, output sizes given by the slice.

use strider_kernels::{Plan, RowKind};

use crate::desc::MAX_RANK;
use crate::engine::Engine;
use crate::ops::check_operands;
use crate::{Element, Error, ExecOptions, TensorDesc};

/// `DML_SLICE_OPERATOR_DESC`, validated and planned: `output[c] = input[offsets + strides ∘ c]` with unsigned
/// strides ≥ 1 and `sizes` equal to the output's sizes.
///
/// # Examples
///
/// ```
/// use strider::{DataType, Slice, TensorDesc};
/// let input = TensorDesc::new(DataType::Int32, &[4, 4])?;
/// let output = TensorDesc::new(DataType::Int32, &[2, 2])?;
/// let op = Slice::new(&input, &output, &[1, 0], &[2, 2], &[2, 3])?;
/// let x: Vec<i32> = (0..16).collect();
/// let mut y = [0i32; 4];
/// op.execute_typed(&x, &mut y)?;
/// assert_eq!(y, [4, 7, 12, 15]);
/// # Ok::<(), strider::Error>(())
/// ```
#[derive(Clone, Debug)]
pub struct Slice {
    engine: Engine,
    offsets: [u32; MAX_RANK],
    sizes: [u32; MAX_RANK],
    strides: [u32; MAX_RANK],
}

impl Slice {
    /// Validates a slice and plans its execution.
    ///
    /// # Errors
    ///
    /// [`Error::RankMismatch`], [`Error::DataTypeMismatch`], [`Error::ArgumentLength`]; [`Error::ZeroSliceStride`]
    /// for a stride of 0; [`Error::OutputSizeMismatch`] when `sizes` differs from the output's sizes;
    /// [`Error::SliceOutOfBounds`] when `offsets + (sizes − 1)·strides` leaves the input;
    /// [`Error::OverlappingOutput`] / [`Error::OverlapUndecided`] for an output that overlaps itself.
    pub fn new(
        input: &TensorDesc,
        output: &TensorDesc,
        offsets: &[u32],
        sizes: &[u32],
        strides: &[u32],
    ) -> Result<Slice, Error> {
        let rank = check_operands(
            input,
            output,
            &[("offsets", offsets.len()), ("sizes", sizes.len()), ("strides", strides.len())],
        )?;
        let mut in_strides = [0i64; MAX_RANK];
        let mut in_base = 0u64;
        for dim in 0..rank {
            let (offset, size, stride) = (offsets[dim], sizes[dim], strides[dim]);
            if stride == 0 {
                return Err(Error::ZeroSliceStride { dim });
            }
            if size != output.sizes()[dim] {
                return Err(Error::OutputSizeMismatch { dim, output_size: output.sizes()[dim], expected: size });
            }
            // size ≥ 1: it equals the output's size, which the descriptor checked; u32 + u32 × u32 fits u64.
            let last = u64::from(size.saturating_sub(1))
                .checked_mul(u64::from(stride))
                .and_then(|span| span.checked_add(u64::from(offset)))
                .unwrap_or(u64::MAX);
            let input_size = input.sizes()[dim];
            if last >= u64::from(input_size) {
                return Err(Error::SliceOutOfBounds { dim, offset, size, stride, last, input_size });
            }
            let s = input.signed_strides()[dim];
            // stride·s may not fit i64 (u32 × u32), but only when size is 1: otherwise (size − 1)·stride < input_size
            // and the product is at most the addressed extent. A size-1 dimension's stride is never used.
            in_strides[dim] = if size == 1 {
                0
            } else {
                i64::try_from(i128::from(stride).saturating_mul(i128::from(s))).map_err(|_| Error::Internal {
                    detail: format!("slice stride {stride} × tensor stride {s} of dimension {dim} overflows"),
                })?
            };
        }
        // The first element read (offset < input size in every dimension): its offset fits.
        in_base = in_base.saturating_add(input.offset_of(&offsets[..rank]).unwrap_or(0));
        let engine = Engine::copy(input, output, &in_strides[..rank], in_base)?;
        let mut op = Slice { engine, offsets: [0; MAX_RANK], sizes: [0; MAX_RANK], strides: [0; MAX_RANK] };
        op.offsets[..rank].copy_from_slice(offsets);
        op.sizes[..rank].copy_from_slice(sizes);
        op.strides[..rank].copy_from_slice(strides);
        Ok(op)
    }

    operator_methods!(Slice, one_type);

    /// The same copy by the slowest, most obvious method: one loop over output coordinates applying the spec's
    /// formula `output[c] = input[offsets + strides ∘ c]`, no planning, no SIMD. For verifying results.
    ///
    /// # Errors
    ///
    /// As [`Slice::execute`].
    pub fn execute_reference(&self, input: &[u8], output: &mut [u8]) -> Result<(), Error> {
        self.engine.check_buffers(input, output)?;
        let x = crate::ops::Tensor::new(self.input(), input);
        let (offsets, strides) = (self.offsets(), self.strides());
        crate::ops::reference_each(self.output(), output, |c, y| {
            // Inside the input: validation bounded offset + (size − 1)·stride below the input's size.
            let at: Vec<u32> =
                (0..c.len()).map(|d| offsets[d].saturating_add(strides[d].saturating_mul(c[d]))).collect();
            crate::ops::put(y, x.element(&at));
        });
        Ok(())
    }

    /// The slice offsets.
    pub fn offsets(&self) -> &[u32] {
        &self.offsets[..self.input().rank()]
    }

    /// The slice sizes (the output's sizes).
    pub fn sizes(&self) -> &[u32] {
        &self.sizes[..self.input().rank()]
    }

    /// The slice strides.
    pub fn strides(&self) -> &[u32] {
        &self.strides[..self.input().rank()]
    }
}
