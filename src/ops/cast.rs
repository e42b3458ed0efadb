//! `DML_CAST`: convert every element to another data type, between any two layouts.

use strider_kernels::{ElemType, ElementOp, Plan, RowKind};

use crate::engine::Engine;
use crate::ops::window::Window;
use crate::ops::{check_ranks, check_same_sizes};
use crate::{Element, Error, ExecOptions, TensorDesc};

/// `DML_CAST_OPERATOR_DESC`, validated and planned: `output[c] = input[c] as <output type>` for every coordinate,
/// between any of the 11 data types and any two layouts of the same sizes (padded, broadcast input, permuted
/// output: a layout change and a cast in one pass).
///
/// # Value rules
///
/// Each element becomes what Rust's `as` gives from the source type to the destination type, identical on every
/// instruction set and thread count:
/// - integer → integer wraps (two's complement truncation or extension);
/// - float → integer rounds toward zero and saturates at the type's bounds; NaN becomes 0;
/// - anything → float rounds to nearest, ties to even (integers beyond 2^24 into f32, 2^53 into f64);
/// - `FLOAT16` sources convert exactly to f32 first (then as above);
/// - `FLOAT16` destinations round *once*, to nearest even, from the exact source value — also from f64, i64 and
///   u64 — overflowing to ±infinity;
/// - NaN stays NaN (quiet, with the top bits of its payload, as the hardware conversions keep them).
///
/// # Examples
///
/// ```
/// use strider::{Cast, DataType, TensorDesc};
/// let input = TensorDesc::new(DataType::Float32, &[5])?;
/// let output = TensorDesc::new(DataType::Uint8, &[5])?;
/// let cast = Cast::new(&input, &output)?;
/// let mut y = [0u8; 5];
/// cast.execute_typed(&[-3.5f32, 0.9, 254.7, 300.0, f32::NAN], &mut y)?;
/// assert_eq!(y, [0, 0, 254, 255, 0]);
/// # Ok::<(), strider::Error>(())
/// ```
#[derive(Clone, Debug)]
pub struct Cast {
    engine: Engine,
    /// The input window of [`Cast::with_window`].
    window: Option<Window>,
}

impl Cast {
    /// Validates and plans the cast.
    ///
    /// # Errors
    ///
    /// [`Error::RankMismatch`], [`Error::OutputSizeMismatch`] when the tensors disagree in shape;
    /// [`Error::OverlappingOutput`] / [`Error::OverlapUndecided`] for an output that maps two coordinates to one
    /// element.
    pub fn new(input: &TensorDesc, output: &TensorDesc) -> Result<Cast, Error> {
        check_ranks(input, output, &[])?;
        check_same_sizes(input, output)?;
        let (from, to) = (input.data_type().elem(), output.data_type().elem());
        let (strides, base) = (input.signed_strides(), input.origin());
        let engine = if from == to {
            Engine::copy(input, output, &strides, base)?
        } else {
            Engine::new(input, output, ElementOp::Cast { from, to }, &strides, base)?
        };
        Ok(Cast { engine, window: None })
    }

    /// `DML_SLICE1`'s window and `DML_CAST` in one pass: `output[c] = input[start + window_strides ∘ c] as <output
    /// type>`, with every rule of [`Slice1::new`](crate::Slice1::new) but the equal data types, and the value rules
    /// above. A negative window stride reverses a dimension while converting (a flipped view cast to another type).
    ///
    /// # Errors
    ///
    /// [`Error::RankMismatch`], [`Error::ArgumentLength`], every window error of
    /// [`Slice1::new`](crate::Slice1::new), and [`Error::OverlappingOutput`] / [`Error::OverlapUndecided`].
    ///
    /// # Examples
    ///
    /// ```
    /// use strider::{Cast, DataType, TensorDesc};
    /// let input = TensorDesc::new(DataType::Uint8, &[6])?;
    /// let output = TensorDesc::new(DataType::Float32, &[3])?;
    /// // every other element, from the end
    /// let cast = Cast::with_window(&input, &output, &[0], &[6], &[-2])?;
    /// let mut y = [0f32; 3];
    /// cast.execute_typed(&[0u8, 1, 2, 3, 4, 5], &mut y)?;
    /// assert_eq!(y, [5.0, 3.0, 1.0]);
    /// # Ok::<(), strider::Error>(())
    /// ```
    pub fn with_window(
        input: &TensorDesc,
        output: &TensorDesc,
        window_offsets: &[u32],
        window_sizes: &[u32],
        window_strides: &[i32],
    ) -> Result<Cast, Error> {
        check_ranks(
            input,
            output,
            &[
                ("window_offsets", window_offsets.len()),
                ("window_sizes", window_sizes.len()),
                ("window_strides", window_strides.len()),
            ],
        )?;
        let window = Window::new(input, output, window_offsets, window_sizes, window_strides)?;
        let (from, to) = (input.data_type().elem(), output.data_type().elem());
        let engine = if from == to {
            Engine::copy(input, output, window.in_strides(), window.in_base())?
        } else {
            Engine::new(input, output, ElementOp::Cast { from, to }, window.in_strides(), window.in_base())?
        };
        Ok(Cast { engine, window: Some(window) })
    }

    operator_methods!(Cast, two_types);

    /// The same result by the slowest, most obvious method: one loop over coordinates, each element converted
    /// alone by the portable scalar code; no planning, no SIMD. For verifying results.
    ///
    /// # Errors
    ///
    /// As [`Cast::execute`].
    pub fn execute_reference(&self, input: &[u8], output: &mut [u8]) -> Result<(), Error> {
        match &self.window {
            None => self.engine.execute_reference_elementwise(input, output),
            Some(window) => self.engine.execute_reference(input, output, |c| window.reference_offset(self.input(), c)),
        }
    }

    /// How each element is converted, e.g. `"f64 → f32 (round to odd) → f16"`.
    pub fn route(&self) -> &'static str {
        ElemType::cast_route(self.input().data_type().elem(), self.output().data_type().elem())
    }
}
