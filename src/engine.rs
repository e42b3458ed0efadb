//! What every operator shares after its own validation: the output-overlap check, planning, and the checked
//! execution of the program.

use strider_kernels::overlap::{Overlap, find_overlap};
use strider_kernels::{ElementOp, ExecOptions, Plan, Program, RowKind, RunError};

use crate::plan::{Problem, plan};
use crate::{Element, Error, Operand, TensorDesc};

/// Rejects an output layout that maps two coordinates to one element (writes would race and the result would
/// depend on the order).
pub(crate) fn check_output_disjoint(output: &TensorDesc) -> Result<(), Error> {
    let sizes: Vec<u64> = output.sizes().iter().map(|&n| u64::from(n)).collect();
    let strides: Vec<i64> = output.strides().iter().map(|&s| i64::from(s)).collect();
    match find_overlap(&sizes, &strides) {
        Overlap::Disjoint => Ok(()),
        Overlap::Collision { first, second } => {
            Err(Error::OverlappingOutput { strides: output.strides().to_vec(), first, second })
        }
        Overlap::Undecided => {
            Err(Error::OverlapUndecided { sizes: output.sizes().to_vec(), strides: output.strides().to_vec() })
        }
    }
}

/// A planned elementwise move between two validated tensors.
#[derive(Clone, Debug)]
pub(crate) struct Engine {
    input: TensorDesc,
    output: TensorDesc,
    program: Program,
}

impl Engine {
    /// Plans `output[c] = op(input[in_base + Σ cᵢ·in_stridesᵢ])` over the output's coordinates (element strides
    /// and base). The caller has validated that every input coordinate reached lies inside `input`.
    pub(crate) fn new(
        input: &TensorDesc,
        output: &TensorDesc,
        op: ElementOp,
        in_strides: &[i64],
        in_base: u64,
    ) -> Result<Engine, Error> {
        Engine::with_params(input, output, op, in_strides, in_base, None)
    }

    /// [`Engine::new`] for a normalization: `params` are its `(scale, bias)` pairs and each output dimension's step
    /// through them.
    pub(crate) fn with_params(
        input: &TensorDesc,
        output: &TensorDesc,
        op: ElementOp,
        in_strides: &[i64],
        in_base: u64,
        params: Option<(&[[f32; 2]], &[i64])>,
    ) -> Result<Engine, Error> {
        check_output_disjoint(output)?;
        let out_strides: Vec<i64> = output.strides().iter().map(|&s| i64::from(s)).collect();
        let plan = plan(&Problem {
            op,
            extents: output.sizes(),
            in_strides,
            out_strides: &out_strides,
            in_base,
            out_base: 0,
            params,
        })?;
        let program =
            Program::new(&plan).map_err(|e| Error::Internal { detail: format!("planned walk rejected: {e}") })?;
        // The walk must not need more than the tensors address: that is what `execute` checks buffers against.
        let walk = program.walk();
        if walk.input_bytes_needed() as u64 > input.addressed_bytes()
            || walk.output_bytes_needed() as u64 > output.addressed_bytes()
        {
            return Err(Error::Internal { detail: format!("plan {plan} reaches beyond its tensors") });
        }
        Ok(Engine { input: input.clone(), output: output.clone(), program })
    }

    /// A plain copy of the input's elements (`op` = copy of the input's element width).
    pub(crate) fn copy(
        input: &TensorDesc,
        output: &TensorDesc,
        in_strides: &[i64],
        in_base: u64,
    ) -> Result<Engine, Error> {
        let op = ElementOp::Copy { width: input.data_type().size_in_bytes() };
        Engine::new(input, output, op, in_strides, in_base)
    }

    pub(crate) fn input(&self) -> &TensorDesc {
        &self.input
    }

    pub(crate) fn output(&self) -> &TensorDesc {
        &self.output
    }

    pub(crate) fn plan(&self) -> &Plan {
        self.program.plan()
    }

    pub(crate) fn row_kind(&self) -> RowKind {
        self.program.kind()
    }

    /// Rejects buffers shorter than their tensors require (the total size when set, the addressed bytes otherwise)
    /// or placed against a guaranteed alignment.
    pub(crate) fn check_buffers(&self, input: &[u8], output: &[u8]) -> Result<(), Error> {
        for (operand, desc, buf) in [(Operand::Input, &self.input, input), (Operand::Output, &self.output, output)] {
            check_buffer(operand, desc, buf)?;
        }
        Ok(())
    }

    /// The slowest, most obvious execution: one loop over output coordinates (last dimension fastest), each element
    /// read at `in_offset(c)` (in elements) and converted alone by the portable scalar code. No planning, no SIMD.
    pub(crate) fn execute_reference(
        &self,
        input: &[u8],
        output: &mut [u8],
        in_offset: impl Fn(&[u32]) -> i64,
    ) -> Result<(), Error> {
        let op = *self.program.plan().op();
        // The plan's op may be a widened copy; the reference moves one element of the tensors at a time.
        let op = if op.is_copy() { ElementOp::Copy { width: self.input.data_type().size_in_bytes() } } else { op };
        self.execute_reference_by(input, output, in_offset, |_, x, y| {
            op.apply_one(x, y);
        })
    }

    /// [`Engine::execute_reference`] with each element computed by `element(c, input element, output element)`.
    pub(crate) fn execute_reference_by(
        &self,
        input: &[u8],
        output: &mut [u8],
        in_offset: impl Fn(&[u32]) -> i64,
        element: impl Fn(&[u32], &[u8], &mut [u8]),
    ) -> Result<(), Error> {
        self.check_buffers(input, output)?;
        let (iw, ow) = (self.input.data_type().size_in_bytes(), self.output.data_type().size_in_bytes());
        let (sizes, out_strides) = (self.output.sizes(), self.output.strides());
        let mut c = vec![0u32; sizes.len()];
        loop {
            // Validation bounded every coordinate: the offsets are inside the checked buffers (checked again here,
            // as the slicing below is).
            let i = u64::try_from(in_offset(&c)).ok().and_then(|e| byte_range(e, iw));
            let o = dot(&c, out_strides).and_then(|e| byte_range(e, ow));
            let (Some(i), Some(o)) = (i, o) else {
                return Err(Error::Internal { detail: format!("reference offset of {c:?} overflows") });
            };
            element(&c, &input[i], &mut output[o]);
            if !next_coordinate(&mut c, sizes) {
                return Ok(());
            }
        }
    }

    /// [`Engine::execute_reference`] of an elementwise operator: input coordinate = output coordinate.
    pub(crate) fn execute_reference_elementwise(&self, input: &[u8], output: &mut [u8]) -> Result<(), Error> {
        let strides = self.input.strides();
        // Σ cᵢ·sᵢ ≤ the input's addressed extent, which validation bounded below i64::MAX.
        self.execute_reference(input, output, |c| dot(c, strides).and_then(|e| i64::try_from(e).ok()).unwrap_or(-1))
    }

    pub(crate) fn execute(&self, input: &[u8], output: &mut [u8], opts: &ExecOptions) -> Result<(), Error> {
        self.check_buffers(input, output)?;
        self.program.run(input, output, opts).map_err(run_error)
    }

    /// Runs with `buffer` as both operands; the caller has checked that input and output address the same
    /// elements in the same order.
    pub(crate) fn execute_in_place(&self, buffer: &mut [u8], opts: &ExecOptions) -> Result<(), Error> {
        check_buffer(Operand::Input, &self.input, buffer)?;
        check_buffer(Operand::Output, &self.output, buffer)?;
        self.program.run_in_place(buffer, opts).map_err(run_error)
    }

    /// [`Engine::execute`] over typed slices of one element type, that of the input.
    pub(crate) fn execute_typed<T: Element>(
        &self,
        input: &[T],
        output: &mut [T],
        opts: &ExecOptions,
    ) -> Result<(), Error> {
        let expected = self.input.data_type();
        if T::DATA_TYPE != expected {
            return Err(Error::ElementTypeMismatch { expected, actual: T::DATA_TYPE });
        }
        self.execute(bytemuck::cast_slice(input), bytemuck::cast_slice_mut(output), opts)
    }

    /// [`Engine::execute`] over typed slices of the input's and the output's element types.
    pub(crate) fn execute_typed2<I: Element, O: Element>(
        &self,
        input: &[I],
        output: &mut [O],
        opts: &ExecOptions,
    ) -> Result<(), Error> {
        for (operand, expected, actual) in [
            (Operand::Input, self.input.data_type(), I::DATA_TYPE),
            (Operand::Output, self.output.data_type(), O::DATA_TYPE),
        ] {
            if expected != actual {
                return Err(Error::TypedOperandMismatch { operand, expected, actual });
            }
        }
        self.execute(bytemuck::cast_slice(input), bytemuck::cast_slice_mut(output), opts)
    }
}

/// `Σ cᵢ·sᵢ` in checked arithmetic.
pub(crate) fn dot(c: &[u32], strides: &[u32]) -> Option<u64> {
    c.iter().zip(strides).try_fold(0u64, |acc, (&x, &s)| acc.checked_add(u64::from(x).checked_mul(u64::from(s))?))
}

/// The bytes of element `element` of `width` bytes.
fn byte_range(element: u64, width: usize) -> Option<core::ops::Range<usize>> {
    let start = usize::try_from(element).ok()?.checked_mul(width)?;
    Some(start..start.checked_add(width)?)
}

/// Steps `c` to the next coordinate of `sizes` in C order (last dimension fastest); `false` after the last.
pub(crate) fn next_coordinate(c: &mut [u32], sizes: &[u32]) -> bool {
    for k in (0..c.len()).rev() {
        // c[k] < sizes[k] ≤ u32::MAX
        c[k] = c[k].saturating_add(1);
        if c[k] < sizes[k] {
            return true;
        }
        c[k] = 0;
    }
    false
}

fn check_buffer(operand: Operand, desc: &TensorDesc, buf: &[u8]) -> Result<(), Error> {
    let required = desc.required_buffer_bytes();
    if (buf.len() as u64) < required {
        return Err(Error::BufferTooSmall { operand, data_type: desc.data_type(), required, actual: buf.len() });
    }
    let alignment = desc.guaranteed_base_offset_alignment();
    let address = buf.as_ptr() as usize;
    if alignment > 1 && !address.is_multiple_of(alignment as usize) {
        return Err(Error::MisalignedBuffer { operand, alignment, address });
    }
    Ok(())
}

fn run_error(e: RunError) -> Error {
    match e {
        RunError::IsaUnavailable(isa) => Error::IsaUnavailable { isa },
        RunError::InvalidThreadCount(threads) => {
            Error::InvalidThreadCount { threads, max: strider_kernels::MAX_THREADS }
        }
        e => Error::Internal { detail: e.to_string() },
    }
}
