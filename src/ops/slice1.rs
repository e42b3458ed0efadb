//! `DML_SLICE1`: copy a strided window of the input, each dimension forwards or backwards.

use strider_kernels::{Plan, RowKind};

use crate::desc::TensorDesc;
use crate::engine::Engine;
use crate::ops::check_operands;
use crate::ops::window::Window;
use crate::{Element, Error};
use crate::{ExecOptions, ScaleBias};
use strider_kernels::ElementOp;

/// `DML_SLICE1_OPERATOR_DESC`, validated and planned: extracts a strided window of the input.
///
/// For each dimension `i` the window starts at `window_offsets[i]` and spans `window_sizes[i]` input elements; it
/// is walked with step `window_strides[i]`, from the window's beginning when the stride is positive and from its
/// end (`offset + size − 1`) when it is negative:
///
/// `output[c] = input[start + window_strides ∘ c]`, `startᵢ = offsetᵢ` or `offsetᵢ + sizeᵢ − 1`.
///
/// Each output size may be anything from 1 to `1 + (window_sizes[i] − 1) / |window_strides[i]|`.
///
/// A `Slice1` is `Send + Sync`: construct it once, execute it many times from any thread.
///
/// # Examples
///
/// Example 2 of the DirectML documentation (a negative stride copies from the window's end):
///
/// ```
/// use strider::{DataType, Slice1, TensorDesc};
/// let input = TensorDesc::new(DataType::Float32, &[1, 1, 4, 4])?;
/// let output = TensorDesc::new(DataType::Float32, &[1, 1, 2, 2])?;
/// let slice = Slice1::new(&input, &output, &[0, 0, 0, 1], &[1, 1, 4, 3], &[1, 1, -2, 2])?;
///
/// let x: Vec<f32> = (1..=16).map(|v| v as f32).collect();
/// let mut y = vec![0f32; 4];
/// slice.execute_typed(&x, &mut y)?;
/// assert_eq!(y, [14.0, 16.0, 6.0, 8.0]);
/// # Ok::<(), strider::Error>(())
/// ```
#[derive(Clone, Debug)]
pub struct Slice1 {
    engine: Engine,
    window: Window,
    scale_bias: Option<ScaleBias>,
}

impl Slice1 {
    /// Validates a slice and plans its execution.
    ///
    /// # Errors
    ///
    /// - [`Error::RankMismatch`], [`Error::DataTypeMismatch`]: the tensors disagree;
    /// - [`Error::ArgumentLength`]: an argument array does not have one entry per dimension;
    /// - [`Error::EmptyWindow`], [`Error::WindowOutOfBounds`], [`Error::ZeroWindowStride`]: a window is empty,
    ///   reaches beyond the input, or has stride 0;
    /// - [`Error::OutputSizeOutOfRange`]: an output size exceeds `1 + (window size − 1) / |stride|`;
    /// - [`Error::OverlappingOutput`], [`Error::OverlapUndecided`]: the output's strides map two coordinates to
    ///   one element.
    pub fn new(
        input: &TensorDesc,
        output: &TensorDesc,
        window_offsets: &[u32],
        window_sizes: &[u32],
        window_strides: &[i32],
    ) -> Result<Slice1, Error> {
        let rank = check_operands(
            input,
            output,
            &[
                ("window_offsets", window_offsets.len()),
                ("window_sizes", window_sizes.len()),
                ("window_strides", window_strides.len()),
            ],
        )?;
        debug_assert_eq!(rank, input.rank());
        let window = Window::new(input, output, window_offsets, window_sizes, window_strides)?;
        let engine = Engine::copy(input, output, window.in_strides(), window.in_base())?;
        Ok(Slice1 { engine, window, scale_bias: None })
    }

    /// A slice that also applies `DML_SCALE_BIAS` to every element it copies, `x · scale + bias` rounded as
    /// [`ScaleBias`] says: a flip or a crop and an affine map in one pass.
    ///
    /// # Errors
    ///
    /// As [`Slice1::new`], and [`Error::UnsupportedDataType`] unless the tensors are `FLOAT16`, `FLOAT32` or
    /// `FLOAT64`.
    ///
    /// # Examples
    ///
    /// ```
    /// use strider::{DataType, ScaleBias, Slice1, TensorDesc};
    /// let t = TensorDesc::new(DataType::Float32, &[4])?;
    /// let op = Slice1::with_scale_bias(&t, &t, &[0], &[4], &[-1], ScaleBias { scale: 2.0, bias: 1.0 })?;
    /// let mut y = [0f32; 4];
    /// op.execute_typed(&[1.0, 2.0, 3.0, 4.0], &mut y)?;
    /// assert_eq!(y, [9.0, 7.0, 5.0, 3.0]);
    /// # Ok::<(), strider::Error>(())
    /// ```
    pub fn with_scale_bias(
        input: &TensorDesc,
        output: &TensorDesc,
        window_offsets: &[u32],
        window_sizes: &[u32],
        window_strides: &[i32],
        scale_bias: ScaleBias,
    ) -> Result<Slice1, Error> {
        check_operands(
            input,
            output,
            &[
                ("window_offsets", window_offsets.len()),
                ("window_sizes", window_sizes.len()),
                ("window_strides", window_strides.len()),
            ],
        )?;
        let dt = crate::ops::identity::scale_bias_type(input)?;
        let window = Window::new(input, output, window_offsets, window_sizes, window_strides)?;
        let op = ElementOp::ScaleBias { ty: dt.elem(), scale: scale_bias.scale, bias: scale_bias.bias };
        let engine = Engine::new(input, output, op, window.in_strides(), window.in_base())?;
        Ok(Slice1 { engine, window, scale_bias: Some(scale_bias) })
    }

    /// The scale and bias of [`Slice1::with_scale_bias`].
    pub fn scale_bias(&self) -> Option<ScaleBias> {
        self.scale_bias
    }

    operator_methods!(Slice1, one_type);

    /// The same copy by the slowest, most obvious method: one loop over output coordinates applying the spec's
    /// formula `output[c] = input[start + window_strides ∘ c]` element by element, no planning, no SIMD. For
    /// verifying results (the `strider bench` command checks every case with it before timing).
    ///
    /// # Errors
    ///
    /// As [`Slice1::execute`].
    ///
    /// # Examples
    ///
    /// ```
    /// use strider::{DataType, Slice1, TensorDesc};
    /// let t = TensorDesc::new(DataType::Uint16, &[3, 5])?;
    /// let op = Slice1::new(&t, &t, &[0, 0], &[3, 5], &[-1, -1])?;
    /// let x: Vec<u8> = (0..30).collect();
    /// let (mut fast, mut slow) = (vec![0u8; 30], vec![0u8; 30]);
    /// op.execute(&x, &mut fast)?;
    /// op.execute_reference(&x, &mut slow)?;
    /// assert_eq!(fast, slow);
    /// # Ok::<(), strider::Error>(())
    /// ```
    pub fn execute_reference(&self, input: &[u8], output: &mut [u8]) -> Result<(), Error> {
        self.engine.execute_reference(input, output, |c| self.window.reference_offset(self.input(), c))
    }

    /// The window offsets.
    pub fn window_offsets(&self) -> &[u32] {
        self.window.offsets()
    }

    /// The window sizes.
    pub fn window_sizes(&self) -> &[u32] {
        self.window.sizes()
    }

    /// The window strides.
    pub fn window_strides(&self) -> &[i32] {
        self.window.strides()
    }
}
