//! `DML_ELEMENT_WISE_IDENTITY`: a layout conversion, optionally with `DML_SCALE_BIAS`.

use strider_kernels::{ElementOp, Plan, RowKind};

use crate::engine::Engine;
use crate::ops::{check_operands, check_same_sizes};
use crate::{DataType, Element, Error, ExecOptions, TensorDesc};

/// `DML_SCALE_BIAS`: `y = x · scale + bias`.
///
/// Computed as a product, then a sum, each rounded to nearest even in f32 (in f64 for `FLOAT64` tensors, with
/// `scale` and `bias` widened exactly) — never a fused multiply-add — so every instruction set and thread count
/// gives the same bits. An `FLOAT16` element is widened to f32 exactly and the result rounded back once. A NaN
/// scale or bias makes every output NaN: the quieted scale if it is NaN, else the quieted bias (so that the result
/// does not depend on which NaN operand the hardware propagates).
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct ScaleBias {
    /// Factor.
    pub scale: f32,
    /// Addend.
    pub bias: f32,
}

/// `DML_ELEMENT_WISE_IDENTITY_OPERATOR_DESC`, validated and planned: `output[c] = input[c]` (or
/// `input[c] · scale + bias`) for every coordinate, between any two layouts of the same sizes — NCHW ↔ NHWC,
/// padded ↔ packed, a broadcast input materialized into a packed output, any permutation.
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
    scale_bias: Option<ScaleBias>,
}

/// The data type of a scale/bias operator's tensors, when `DML_SCALE_BIAS` accepts it.
pub(crate) fn scale_bias_type(input: &TensorDesc) -> Result<DataType, Error> {
    let dt = input.data_type();
    if !dt.is_float() {
        return Err(Error::UnsupportedDataType {
            operator: "DML_SCALE_BIAS",
            data_type: dt,
            accepted: "FLOAT16, FLOAT32 or FLOAT64 tensors",
        });
    }
    Ok(dt)
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
        check_operands(input, output, &[])?;
        check_same_sizes(input, output)?;
        let (strides, base) = (input.signed_strides(), input.origin());
        Ok(Identity { engine: Engine::copy(input, output, &strides, base)?, scale_bias: None })
    }

    /// Validates and plans `output[c] = input[c] · scale + bias` (see [`ScaleBias`] for the rounding).
    ///
    /// # Errors
    ///
    /// As [`Identity::new`], and [`Error::UnsupportedDataType`] unless the tensors are `FLOAT16`, `FLOAT32` or
    /// `FLOAT64`.
    ///
    /// # Examples
    ///
    /// ```
    /// use strider::{DataType, Identity, ScaleBias, TensorDesc};
    /// let t = TensorDesc::new(DataType::Float32, &[4])?;
    /// let op = Identity::with_scale_bias(&t, &t, ScaleBias { scale: 2.0, bias: 0.5 })?;
    /// let mut y = [0f32; 4];
    /// op.execute_typed(&[1.0, 2.0, -1.0, 0.0], &mut y)?;
    /// assert_eq!(y, [2.5, 4.5, -1.5, 0.5]);
    /// # Ok::<(), strider::Error>(())
    /// ```
    pub fn with_scale_bias(input: &TensorDesc, output: &TensorDesc, scale_bias: ScaleBias) -> Result<Identity, Error> {
        check_operands(input, output, &[])?;
        check_same_sizes(input, output)?;
        let dt = scale_bias_type(input)?;
        let op = ElementOp::ScaleBias { ty: dt.elem(), scale: scale_bias.scale, bias: scale_bias.bias };
        let (strides, base) = (input.signed_strides(), input.origin());
        Ok(Identity { engine: Engine::new(input, output, op, &strides, base)?, scale_bias: Some(scale_bias) })
    }

    operator_methods!(Identity, one_type);

    /// The same result by the slowest, most obvious method: one loop over coordinates, each element copied (or
    /// scaled) alone by the portable scalar code; no planning, no SIMD. For verifying results.
    ///
    /// # Errors
    ///
    /// As [`Identity::execute`].
    pub fn execute_reference(&self, input: &[u8], output: &mut [u8]) -> Result<(), Error> {
        self.engine.execute_reference_elementwise(input, output)
    }

    /// The scale and bias, if any.
    pub fn scale_bias(&self) -> Option<ScaleBias> {
        self.scale_bias
    }

    /// Runs the operator with `buffer` as both input and output, as DirectML allows when the output aliases the
    /// input exactly: valid when input and output address the same elements in the same order (equal strides in
    /// every dimension of more than one element). A plain identity then has nothing to do; a scale/bias rewrites
    /// each element once.
    ///
    /// # Errors
    ///
    /// [`Error::NotInPlace`] when the layouts differ; [`Error::BufferTooSmall`] / [`Error::MisalignedBuffer`] as
    /// for [`Identity::execute`] (the buffer must satisfy both tensors).
    ///
    /// # Examples
    ///
    /// ```
    /// use strider::{DataType, Identity, ScaleBias, TensorDesc};
    /// let t = TensorDesc::new(DataType::Float64, &[3])?;
    /// let op = Identity::with_scale_bias(&t, &t, ScaleBias { scale: -1.0, bias: 1.0 })?;
    /// let mut x: Vec<u8> = [1.0f64, 2.0, 3.0].iter().flat_map(|v| v.to_le_bytes()).collect();
    /// op.execute_in_place(&mut x)?;
    /// assert_eq!(&x[..8], &0.0f64.to_le_bytes());
    /// # Ok::<(), strider::Error>(())
    /// ```
    pub fn execute_in_place(&self, buffer: &mut [u8]) -> Result<(), Error> {
        self.execute_in_place_with(buffer, &ExecOptions::default())
    }

    /// [`Identity::execute_in_place`] with explicit options.
    ///
    /// # Errors
    ///
    /// As [`Identity::execute_in_place`] and [`Identity::execute_with`].
    pub fn execute_in_place_with(&self, buffer: &mut [u8], opts: &ExecOptions) -> Result<(), Error> {
        let (input, output) = (self.input(), self.output());
        for dim in 0..input.rank() {
            let (is, os) = (input.strides()[dim], output.strides()[dim]);
            if input.sizes()[dim] > 1 && (is != os || input.is_reversed(dim) != output.is_reversed(dim)) {
                return Err(Error::NotInPlace { dim, input_stride: is, output_stride: os });
            }
        }
        self.engine.execute_in_place(buffer, opts)
    }
}
