//! `DML_ELEMENT_WISE_IDENTITY` without scale and bias: a layout conversion.

use strider_kernels::{Plan, RowKind};

use crate::engine::Engine;
use crate::ops::check_operands;
use crate::{Element, Error, ExecOptions, TensorDesc};

/// `DML_ELEMENT_WISE_IDENTITY_OPERATOR_DESC` (without scale and bias), validated and planned: `output[c] = input[c]`
/// for every coordinate, between any two layouts of the same sizes — NCHW ↔ NHWC, padded ↔ packed, a broadcast
/// input materialized into a packed output, any permutation.
///
/// # Examples
///
/// HWC image to CHW planes:
///
/// ```
/// use strider::{DataType, Identity, TensorDesc};
/// // logical sizes {N, C, H, W} = {1, 3, 2, 2}; the input is NHWC, the output packed NCHW
/// let nhwc = TensorDesc::nhwc(DataType::Uint8, [1, 3, 2, 2])?;
/// let nchw = TensorDesc::nchw(DataType::Uint8, [1, 3, 2, 2])?;
/// let op = Identity::new(&nhwc, &nchw)?;
/// let pixels = [10, 20, 30, 11, 21, 31, 12, 22, 32, 13, 23, 33]; // RGB RGB RGB RGB
/// let mut planes = [0u8; 12];
/// op.execute(&pixels, &mut planes)?;
/// assert_eq!(planes, [10, 11, 12, 13, 20, 21, 22, 23, 30, 31, 32, 33]);
/// # Ok::<(), strider::Error>(())
/// ```
#[derive(Clone, Debug)]
pub struct Identity {
    engine: Engine,
}

impl Identity {
    /// Validates and plans the conversion.
    ///
    /// # Errors
    ///
    /// [`Error::RankMismatch`], [`Error::DataTypeMismatch`], [`Error::OutputSizeMismatch`] when the tensors
    /// disagree; [`Error::OverlappingOutput`] / [`Error::OverlapUndecided`] for an output that maps two coordinates
    /// to one element.
    pub fn new(input: &TensorDesc, output: &TensorDesc) -> Result<Identity, Error> {
        let rank = check_operands(input, output, &[])?;
        for dim in 0..rank {
            let (i, o) = (input.sizes()[dim], output.sizes()[dim]);
            if i != o {
                return Err(Error::OutputSizeMismatch { dim, output_size: o, expected: i });
            }
        }
        let strides: Vec<i64> = input.strides().iter().map(|&s| i64::from(s)).collect();
        Ok(Identity { engine: Engine::new(input, output, &strides, 0)? })
    }

    operator_methods!(Identity);
}
