//! Preprocessing in one pass: a `DML_SLICE1` window (crop, flip, subsample), any output layout, and a per-channel
//! `x · scale + bias` converting between any two data types.

use strider_kernels::{ElementOp, Plan, RowKind};

use crate::desc::TensorDesc;
use crate::engine::Engine;
use crate::ops::check_ranks;
use crate::ops::window::Window;
use crate::{Element, Error, ExecOptions};

/// Crop, flip, subsample, layout change, cast and per-channel normalization in one pass over memory:
///
/// `output[c] = convert(f32(input[start + window_strides ∘ c]) · scale[k] + bias[k])`, `k = c[channel_axis]`
/// (0 without a channel axis; a scale or bias of length 1 applies to every channel).
///
/// The window is `DML_SLICE1`'s, with all its rules (see [`Slice1`](crate::Slice1)): per dimension an offset, a
/// size and a non-zero stride, walked backwards when the stride is negative. Input and output may have any of the
/// 11 data types and any strides (NHWC in, NCHW out is one pass).
///
/// A `Normalize` is `Send + Sync`: construct it once, execute it many times from any thread. For images,
/// [`Normalize::image`] builds one from mean and standard deviation, crops, flips and a layout.
///
/// # Value rules
///
/// Identical on every instruction set and thread count:
/// - the input value becomes an f32 as Rust's `as` converts it (exact for 8- and 16-bit integers and `FLOAT16`;
///   32- and 64-bit integers round to nearest above 2^24, so an integer → integer normalization is exact only for
///   values below 2^24 in magnitude; f64 rounds to nearest);
/// - `x · scale + bias` is a product, then a sum, each rounded to nearest even in f32 — never a fused
///   multiply-add — as [`Identity::with_scale_bias`](crate::Identity::with_scale_bias) computes;
/// - the f32 result converts to a float type rounding to nearest even (exact to f64); to an integer type it
///   rounds half to even, then saturates at the type's bounds; NaN becomes 0.
///
/// # Examples
///
/// A 2×2 RGB image (HWC u8), flipped horizontally, to normalized CHW f32:
///
/// ```
/// use strider::{DataType, Normalize, TensorDesc};
/// // sizes in NCHW order; the input is stored as NHWC
/// let input = TensorDesc::nhwc(DataType::Uint8, [1, 3, 2, 2])?;
/// let output = TensorDesc::nchw(DataType::Float32, [1, 3, 2, 2])?;
/// let op = Normalize::new(
///     &input, &output,
///     &[0, 0, 0, 0], &[1, 3, 2, 2], &[1, 1, 1, -1], // whole image, W walked backwards
///     Some(1),                                     // channel axis: C
///     &[1.0, 0.5, 0.25], &[0.0, -1.0, 2.0],        // per channel
/// )?;
/// let pixels = [10u8, 20, 30, 11, 21, 31, /* row 2 */ 12, 22, 32, 13, 23, 33];
/// let mut y = [0f32; 12];
/// op.execute_typed(&pixels, &mut y)?;
/// assert_eq!(y, [
///     11.0, 10.0, 13.0, 12.0,  // R · 1 + 0, flipped
///     9.5, 9.0, 10.5, 10.0,    // G · 0.5 − 1
///     9.75, 9.5, 10.25, 10.0,  // B · 0.25 + 2
/// ]);
/// # Ok::<(), strider::Error>(())
/// ```
#[derive(Clone, Debug)]
pub struct Normalize {
    engine: Engine,
    window: Window,
    channel_axis: Option<usize>,
    scale: Vec<f32>,
    bias: Vec<f32>,
}

impl Normalize {
    /// Validates and plans a normalization.
    ///
    /// # Errors
    ///
    /// - every rule of [`Slice1::new`](crate::Slice1::new) except equal data types: [`Error::RankMismatch`],
    ///   [`Error::ArgumentLength`], [`Error::EmptyWindow`], [`Error::WindowOutOfBounds`],
    ///   [`Error::ZeroWindowStride`], [`Error::OutputSizeOutOfRange`];
    /// - [`Error::ChannelAxisOutOfRange`]: `channel_axis` is not a dimension;
    /// - [`Error::ParameterLength`]: `scale` or `bias` has neither 1 value nor one per channel (only 1 without a
    ///   channel axis);
    /// - [`Error::NonFiniteParameter`]: a scale or bias value is infinite or NaN;
    /// - [`Error::OverlappingOutput`], [`Error::OverlapUndecided`]: the output's strides map two coordinates to
    ///   one element.
    #[allow(clippy::too_many_arguments)] // the contract: DML_SLICE1's window, then the normalization
    pub fn new(
        input: &TensorDesc,
        output: &TensorDesc,
        window_offsets: &[u32],
        window_sizes: &[u32],
        window_strides: &[i32],
        channel_axis: Option<usize>,
        scale: &[f32],
        bias: &[f32],
    ) -> Result<Normalize, Error> {
        let rank = check_ranks(
            input,
            output,
            &[
                ("window_offsets", window_offsets.len()),
                ("window_sizes", window_sizes.len()),
                ("window_strides", window_strides.len()),
            ],
        )?;
        let window = Window::new(input, output, window_offsets, window_sizes, window_strides)?;
        let channels = match channel_axis {
            Some(axis) if axis >= rank => return Err(Error::ChannelAxisOutOfRange { axis, rank }),
            Some(axis) => Some(output.sizes()[axis]),
            None => None,
        };
        for (argument, values) in [("scale", scale), ("bias", bias)] {
            let len = values.len();
            if len != 1 && Some(len) != channels.map(|c| c as usize) {
                return Err(Error::ParameterLength { argument, len, channels });
            }
            if let Some(index) = values.iter().position(|v| !v.is_finite()) {
                return Err(Error::NonFiniteParameter { argument, index, bits: values[index].to_bits() });
            }
        }
        // One pair per channel only when a parameter varies per channel (then the caller's slice is that long):
        // a channel axis of 4 billion with one scale and one bias needs one pair, not 32 GiB of them.
        let varying = scale.len().max(bias.len());
        let pairs = Self::pairs(scale, bias, varying);
        // One pair for every channel: a constant, which the kernels apply without looking pairs up.
        let (table, step) = if pairs.iter().all(|&p| p == pairs[0]) { (&pairs[..1], 0) } else { (&pairs[..], 1) };
        let aux: Vec<i64> = (0..rank).map(|d| if Some(d) == channel_axis { step } else { 0 }).collect();
        let op = ElementOp::Normalize { from: input.data_type().elem(), to: output.data_type().elem() };
        let engine =
            Engine::with_params(input, output, op, window.in_strides(), window.in_base(), Some((table, &aux)))?;
        Ok(Normalize { engine, window, channel_axis, scale: scale.to_vec(), bias: bias.to_vec() })
    }

    /// The `(scale, bias)` pair of each of `channels` channels.
    fn pairs(scale: &[f32], bias: &[f32], channels: usize) -> Vec<[f32; 2]> {
        let at = |v: &[f32], k: usize| if v.len() == 1 { v[0] } else { v[k] };
        (0..channels).map(|k| [at(scale, k), at(bias, k)]).collect()
    }

    operator_methods!(Normalize, two_types);

    /// The same result by the slowest, most obvious method: one loop over output coordinates applying the formula
    /// element by element with the portable scalar code, no planning, no SIMD. For verifying results.
    ///
    /// # Errors
    ///
    /// As [`Normalize::execute`].
    pub fn execute_reference(&self, input: &[u8], output: &mut [u8]) -> Result<(), Error> {
        let op = *self.plan().op();
        let at = |v: &[f32], k: usize| if v.len() == 1 { v[0] } else { v[k] };
        self.engine.execute_reference_by(
            input,
            output,
            |c| self.window.reference_offset(self.input(), c),
            |c, x, y| {
                let k = self.channel_axis.map_or(0, |a| c[a] as usize);
                op.normalize_one(x, y, at(&self.scale, k), at(&self.bias, k));
            },
        )
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

    /// The output dimension that selects the scale and bias.
    pub fn channel_axis(&self) -> Option<usize> {
        self.channel_axis
    }

    /// The factors, as given.
    pub fn scale(&self) -> &[f32] {
        &self.scale
    }

    /// The addends, as given.
    pub fn bias(&self) -> &[f32] {
        &self.bias
    }
}
