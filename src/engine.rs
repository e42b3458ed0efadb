//! What every copy-family operator shares after its own validation: the output-overlap check, planning, and the
//! checked execution of the walk.

use strider_kernels::overlap::{Overlap, find_overlap};
use strider_kernels::{ExecOptions, Plan, RowKind, RunError, Walk};

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

/// A planned copy between two validated tensors.
#[derive(Clone, Debug)]
pub(crate) struct Engine {
    input: TensorDesc,
    output: TensorDesc,
    walk: Walk,
}

impl Engine {
    /// Plans the copy `output[c] = input[in_base + Σ cᵢ·in_stridesᵢ]` over the output's coordinates. The caller
    /// has validated that every input coordinate reached lies inside `input`.
    pub(crate) fn new(
        input: &TensorDesc,
        output: &TensorDesc,
        in_strides: &[i64],
        in_base: u64,
    ) -> Result<Engine, Error> {
        check_output_disjoint(output)?;
        let out_strides: Vec<i64> = output.strides().iter().map(|&s| i64::from(s)).collect();
        let plan = plan(&Problem {
            width: output.data_type().size_in_bytes(),
            extents: output.sizes(),
            in_strides,
            out_strides: &out_strides,
            in_base,
            out_base: 0,
        })?;
        let walk = Walk::new(&plan).map_err(|e| Error::Internal { detail: format!("planned walk rejected: {e}") })?;
        // The walk must not need more than the tensors address: that is what `execute` checks buffers against.
        if walk.input_bytes_needed() as u64 > input.addressed_bytes()
            || walk.output_bytes_needed() as u64 > output.addressed_bytes()
        {
            return Err(Error::Internal { detail: format!("plan {plan:?} reaches beyond its tensors") });
        }
        Ok(Engine { input: input.clone(), output: output.clone(), walk })
    }

    pub(crate) fn input(&self) -> &TensorDesc {
        &self.input
    }

    pub(crate) fn output(&self) -> &TensorDesc {
        &self.output
    }

    pub(crate) fn plan(&self) -> &Plan {
        self.walk.plan()
    }

    pub(crate) fn row_kind(&self) -> RowKind {
        self.walk.kind()
    }

    /// Rejects buffers shorter than the bytes their tensors address.
    pub(crate) fn check_buffers(&self, input: usize, output: usize) -> Result<(), Error> {
        for (operand, desc, len) in [(Operand::Input, &self.input, input), (Operand::Output, &self.output, output)] {
            if (len as u64) < desc.addressed_bytes() {
                return Err(Error::BufferTooSmall { operand, required: desc.addressed_bytes(), actual: len });
            }
        }
        Ok(())
    }

    pub(crate) fn execute(&self, input: &[u8], output: &mut [u8], opts: &ExecOptions) -> Result<(), Error> {
        self.check_buffers(input.len(), output.len())?;
        self.walk.run(input, output, opts).map_err(|e| match e {
            RunError::IsaUnavailable(isa) => Error::IsaUnavailable { isa },
            e => Error::Internal { detail: e.to_string() },
        })
    }

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
}
