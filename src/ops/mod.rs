//! The copy-family operators. Each validates its own description, then hands a strided copy to the engine.

pub(crate) mod identity;
pub(crate) mod slice;
pub(crate) mod slice1;

use crate::Error;
use crate::desc::TensorDesc;

/// The checks every two-tensor operator starts with: equal ranks, equal data types, and argument arrays of the
/// rank's length.
pub(crate) fn check_operands(
    input: &TensorDesc,
    output: &TensorDesc,
    args: &[(&'static str, usize)],
) -> Result<usize, Error> {
    let rank = input.rank();
    if output.rank() != rank {
        return Err(Error::RankMismatch { input: rank, output: output.rank() });
    }
    if input.data_type() != output.data_type() {
        return Err(Error::DataTypeMismatch { input: input.data_type(), output: output.data_type() });
    }
    for &(argument, len) in args {
        if len != rank {
            return Err(Error::ArgumentLength { argument, len, rank });
        }
    }
    Ok(rank)
}
