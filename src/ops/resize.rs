//! Image resize: Pillow's antialiased filters or OpenCV's sampled ones, over any strides.

use strider_kernels::{ExecOptions, ResizePlan, ResizeProgram};

pub use strider_kernels::Filter as ResizeFilter;

use crate::engine::{check_buffer, check_output_disjoint, run_error};
use crate::{DataType, Element, Error, Operand, TensorDesc};

/// Resizes a batch of images: sizes `{N, C, H, W}`, `{C, H, W}` or `{H, W}` (any strides: planes, interleaved
/// pixels as [`TensorDesc::nhwc`] gives them, padded rows) into the output's `H × W`, `N` and `C` unchanged, with a
/// separable filter whose weights are computed once, here.
///
/// - `antialias = true`: Pillow's `Image.resize` with the same filter (`NEAREST`, `BILINEAR`, `BICUBIC`, `BOX`),
///   which torchvision's antialiased resize also reproduces: when shrinking, the filter widens with the scale so
///   that every input pixel contributes.
/// - `antialias = false`: OpenCV's `cv2.resize` (`INTER_NEAREST`, `INTER_LINEAR`, `INTER_CUBIC`, `INTER_AREA`).
///
/// Data types `UINT8`, `FLOAT16` and `FLOAT32`, the same for input and output. Sums are taken in f32 (the
/// horizontal pass of u8 images exactly in integers, with 14 to 22-bit weights), never rounded to the input type
/// between the two passes; integer outputs round half up and saturate. A u8 result is within 1 of Pillow's, OpenCV's
/// and torchvision's (they round or fix-point their intermediate values), and the same bits on every instruction set
/// and thread count. Pillow clamps its u8 intermediate image to 0..=255, and so does Strider after the horizontal
/// pass (Pillow 13 runs the vertical pass first for some shrinking heights, where a clamped bicubic overshoot can
/// then differ by more).
///
/// # Examples
///
/// ```
/// use strider::{DataType, Resize, ResizeFilter, TensorDesc};
/// let input = TensorDesc::nhwc(DataType::Uint8, [1, 3, 4, 4])?; // one 4×4 RGB image
/// let output = TensorDesc::nhwc(DataType::Uint8, [1, 3, 2, 2])?;
/// let op = Resize::new(&input, &output, ResizeFilter::Area, true)?;
/// let pixels: Vec<u8> = (0..48).map(|i| (i / 3 * 10) as u8).collect(); // pixel p: (10p, 10p, 10p)
/// let mut small = vec![0u8; 12];
/// op.execute_typed(&pixels, &mut small)?;
/// // Each output pixel is the mean of a 2×2 block: (0 + 10 + 40 + 50) / 4 = 25.
/// assert_eq!(&small[..3], &[25, 25, 25]);
/// # Ok::<(), strider::Error>(())
/// ```
#[derive(Clone, Debug)]
pub struct Resize {
    input: TensorDesc,
    output: TensorDesc,
    program: ResizeProgram,
}

impl Resize {
    /// Validates the tensors and computes the filter's weights.
    ///
    /// # Errors
    ///
    /// [`Error::ArgumentOutOfRange`] for a rank other than 2 to 4 or a height or width above 2^24,
    /// [`Error::RankMismatch`] for tensors of different
    /// ranks, [`Error::DataTypeMismatch`] and [`Error::UnsupportedDataType`] for the data types,
    /// [`Error::ShapeMismatch`] when the output's `N` or `C` differs from the input's, and
    /// [`Error::OverlappingOutput`] when two output coordinates share an element.
    pub fn new(
        input: &TensorDesc,
        output: &TensorDesc,
        filter: ResizeFilter,
        antialias: bool,
    ) -> Result<Resize, Error> {
        let rank = input.rank();
        if !(2..=4).contains(&rank) {
            return Err(Error::ArgumentOutOfRange {
                argument: "a resized tensor's rank",
                value: rank as u64,
                min: 2,
                max: 4,
            });
        }
        if output.rank() != rank {
            return Err(Error::RankMismatch { input: rank, output: output.rank() });
        }
        let data_type = input.data_type();
        if output.data_type() != data_type {
            return Err(Error::DataTypeMismatch { input: data_type, output: output.data_type() });
        }
        if !matches!(data_type, DataType::Uint8 | DataType::Float16 | DataType::Float32) {
            return Err(Error::UnsupportedDataType {
                operator: "Resize",
                data_type,
                accepted: "UINT8, FLOAT16 and FLOAT32",
            });
        }
        let (si, so) = (input.sizes(), output.sizes());
        let lead = rank.saturating_sub(2);
        if si[..lead] != so[..lead] {
            let expected = si[..lead].iter().chain(&so[lead..]).map(|&n| u64::from(n)).collect();
            return Err(Error::ShapeMismatch {
                operand: Operand::Output,
                sizes: so.to_vec(),
                expected,
                why: "a resize keeps the input's batch and channel sizes",
            });
        }
        let longest = si[lead..].iter().chain(&so[lead..]).copied().max().unwrap_or(0);
        if longest as usize > strider_kernels::MAX_RESIZE_SIDE {
            return Err(Error::ArgumentOutOfRange {
                argument: "a resized image's height or width",
                value: u64::from(longest),
                min: 1,
                max: strider_kernels::MAX_RESIZE_SIDE as u64,
            });
        }
        check_output_disjoint(output)?;
        let ((is, in_strides, in_base), (os, out_strides, out_base)) = (nchw(input)?, nchw(output)?);
        let plan = ResizePlan::new(
            data_type.elem(),
            is[0],
            is[1],
            [is[2], is[3]],
            [os[2], os[3]],
            (in_base, in_strides),
            (out_base, out_strides),
            filter,
            antialias,
        );
        let program = ResizeProgram::new(&plan).map_err(|e| Error::Internal { detail: e.to_string() })?;
        Ok(Resize { input: input.clone(), output: output.clone(), program })
    }

    /// The input tensor.
    pub fn input(&self) -> &TensorDesc {
        &self.input
    }

    /// The output tensor.
    pub fn output(&self) -> &TensorDesc {
        &self.output
    }

    /// The filter.
    pub fn filter(&self) -> ResizeFilter {
        self.program.plan().filter
    }

    /// Whether the weights follow Pillow's antialiased definition (else OpenCV's).
    pub fn antialias(&self) -> bool {
        self.program.plan().antialias
    }

    /// The weights of the filter's two passes, `[rows, columns]`.
    pub fn taps(&self) -> [&crate::Taps; 2] {
        self.program.taps()
    }

    /// Resizes `input` into `output` (raw little-endian buffers of any alignment) on the current rayon pool.
    ///
    /// # Errors
    ///
    /// [`Error::BufferTooSmall`] when a buffer is shorter than its tensor; nothing is written then.
    pub fn execute(&self, input: &[u8], output: &mut [u8]) -> Result<(), Error> {
        self.execute_with(input, output, &ExecOptions::default())
    }

    /// [`Resize::execute`] with explicit threading and instruction-set choices.
    ///
    /// # Errors
    ///
    /// As [`Resize::execute`], and [`Error::IsaUnavailable`] or [`Error::InvalidThreadCount`] for options this
    /// machine cannot honour.
    pub fn execute_with(&self, input: &[u8], output: &mut [u8], opts: &ExecOptions) -> Result<(), Error> {
        check_buffer(Operand::Input, &self.input, input)?;
        check_buffer(Operand::Output, &self.output, output)?;
        self.program.run(input, output, opts).map_err(run_error)
    }

    /// [`Resize::execute`] over typed slices; `T` must be the tensors' data type.
    ///
    /// # Errors
    ///
    /// [`Error::ElementTypeMismatch`] when `T` is another data type; otherwise as [`Resize::execute`].
    pub fn execute_typed<T: Element>(&self, input: &[T], output: &mut [T]) -> Result<(), Error> {
        self.execute_typed_with(input, output, &ExecOptions::default())
    }

    /// [`Resize::execute_typed`] with explicit options.
    ///
    /// # Errors
    ///
    /// As [`Resize::execute_typed`] and [`Resize::execute_with`].
    pub fn execute_typed_with<T: Element>(
        &self,
        input: &[T],
        output: &mut [T],
        opts: &ExecOptions,
    ) -> Result<(), Error> {
        let expected = self.input.data_type();
        if T::DATA_TYPE != expected {
            return Err(Error::ElementTypeMismatch { expected, actual: T::DATA_TYPE });
        }
        self.execute_with(bytemuck::cast_slice(input), bytemuck::cast_slice_mut(output), opts)
    }
}

/// A tensor of 2 to 4 dimensions as `[N, C, H, W]` (absent leading dimensions of size 1): its sizes, the byte steps
/// of its dimensions (negative along reversed ones) and the byte offset of coordinate 0.
pub(crate) fn nchw(t: &TensorDesc) -> Result<([usize; 4], [isize; 4], usize), Error> {
    let width = t.data_type().size_in_bytes() as i64;
    let mut sizes = [1usize; 4];
    let mut strides = [0isize; 4];
    let dims = t.sizes().iter().zip(t.signed_strides());
    for ((size, stride), (&n, s)) in sizes.iter_mut().zip(&mut strides).rev().zip(dims.rev()) {
        *size = n as usize;
        // A u32 stride times at most 8 fits an i64; the kernels prove every address again.
        *stride = s.saturating_mul(width) as isize;
    }
    let base = t.offset_of(&vec![0; t.rank()]).and_then(|o| o.checked_mul(width as u64));
    let base = base.and_then(|b| usize::try_from(b).ok());
    base.map(|b| (sizes, strides, b)).ok_or_else(|| Error::Internal { detail: "a resize offset overflows".into() })
}

/// Where a letterboxed image sits: the scale, the resized size and its offset on the canvas.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Letterbox {
    /// `min(h / H, w / W)`, in f64.
    pub scale: f64,
    /// Rows of padding above the image: `(h − new_height) / 2`, rounded down.
    pub top: u32,
    /// Columns of padding left of the image: `(w − new_width) / 2`, rounded down.
    pub left: u32,
    /// `round(H · scale)`, half to even.
    pub height: u32,
    /// `round(W · scale)`, half to even.
    pub width: u32,
}

/// YOLO's letterbox of an `image` of `[H, W]` pixels onto a canvas of `size` = `[h, w]`: scaled by `min(h/H, w/W)`
/// keeping the aspect ratio, rounded half to even (at least 1 pixel), centered (the odd pixel of padding at the
/// bottom and right).
///
/// # Errors
///
/// [`Error::ArgumentOutOfRange`] when a size is 0.
///
/// # Examples
///
/// ```
/// use strider::{Letterbox, letterbox_geometry};
/// let g = letterbox_geometry([720, 1280], [640, 640])?;
/// assert_eq!((g.height, g.width, g.top, g.left), (360, 640, 140, 0));
/// # Ok::<(), strider::Error>(())
/// ```
pub fn letterbox_geometry(image: [u32; 2], size: [u32; 2]) -> Result<Letterbox, Error> {
    positive(image, "an image's height and width")?;
    positive(size, "a letterbox's height and width")?;
    let scale = (f64::from(size[0]) / f64::from(image[0])).min(f64::from(size[1]) / f64::from(image[1]));
    // Each side scaled fits its canvas side (scale ≤ size/image), so the rounded value does too.
    let fit = |n: u32, canvas: u32| ((f64::from(n) * scale).round_ties_even() as u32).clamp(1, canvas);
    let (height, width) = (fit(image[0], size[0]), fit(image[1], size[1]));
    Ok(Letterbox {
        scale,
        top: size[0].saturating_sub(height) / 2,
        left: size[1].saturating_sub(width) / 2,
        height,
        width,
    })
}

/// torchvision's `Resize(shorter)` of an `image` of `[H, W]` pixels: the shorter side becomes `shorter`, the longer
/// `int(shorter · long / short)` (truncated, in f64), `[height, width]`.
///
/// # Errors
///
/// [`Error::ArgumentOutOfRange`] when a size is 0 or the longer side would exceed `u32::MAX`.
///
/// ```
/// assert_eq!(strider::shorter_side_size([480, 640], 256)?, [256, 341]);
/// # Ok::<(), strider::Error>(())
/// ```
pub fn shorter_side_size(image: [u32; 2], shorter: u32) -> Result<[u32; 2], Error> {
    positive(image, "an image's height and width")?;
    positive([shorter, 1], "the shorter side")?;
    let (short, long) = (image[0].min(image[1]), image[0].max(image[1]));
    let scaled = f64::from(shorter) * f64::from(long) / f64::from(short);
    let long = u32::try_from(scaled as u64).map_err(|_| Error::ArgumentOutOfRange {
        argument: "the resized longer side",
        value: scaled as u64,
        min: 1,
        max: u64::from(u32::MAX),
    })?;
    Ok(if image[0] <= image[1] { [shorter, long.max(1)] } else { [long.max(1), shorter] })
}

/// torchvision's `center_crop` offsets `[top, left]` of a `crop` of `[h, w]` from an `image` of `[H, W]`:
/// `round((H − h) / 2)`, `round((W − w) / 2)`, half to even.
///
/// # Errors
///
/// [`Error::ArgumentOutOfRange`] when the crop is empty or larger than the image.
///
/// ```
/// assert_eq!(strider::center_crop_offsets([256, 341], [224, 224])?, [16, 58]);
/// # Ok::<(), strider::Error>(())
/// ```
pub fn center_crop_offsets(image: [u32; 2], crop: [u32; 2]) -> Result<[u32; 2], Error> {
    positive(crop, "a crop's height and width")?;
    let mut out = [0u32; 2];
    for (k, o) in out.iter_mut().enumerate() {
        if crop[k] > image[k] {
            return Err(Error::ArgumentOutOfRange {
                argument: if k == 0 { "the crop's height" } else { "the crop's width" },
                value: u64::from(crop[k]),
                min: 1,
                max: u64::from(image[k]),
            });
        }
        *o = (f64::from(image[k].saturating_sub(crop[k])) / 2.0).round_ties_even() as u32; // crop ≤ image
    }
    Ok(out)
}

/// Both of `hw` at least 1.
fn positive(hw: [u32; 2], argument: &'static str) -> Result<(), Error> {
    match hw.iter().find(|&&n| n == 0) {
        Some(&n) => Err(Error::ArgumentOutOfRange { argument, value: u64::from(n), min: 1, max: u64::from(u32::MAX) }),
        None => Ok(()),
    }
}
