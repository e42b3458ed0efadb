//! The everyday image preprocessing, spelled as a builder over [`Normalize`].

use crate::desc::TensorDesc;
use crate::ops::normalize::{Normalize, Resampling};
use crate::ops::resize::{ResizeFilter, center_crop_offsets, letterbox_geometry, shorter_side_size};
use crate::{DataType, Error};

/// How an image batch's elements are stored (sizes are always in `{N, C, H, W}` order).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, Default)]
pub enum ImageLayout {
    /// Planes: each channel's `H × W` values together (what most models take).
    #[default]
    Nchw,
    /// Interleaved pixels: the `C` values of each pixel together (what decoders give).
    Nhwc,
}

/// How a preprocessing resizes its images (the spelling of [`OperatorDesc::Preprocess`](crate::OperatorDesc) and
/// the C interface; the builder's [`ImageNormalize::resize`], [`ImageNormalize::resize_shorter`] and
/// [`ImageNormalize::letterbox`]).
#[derive(Clone, Copy, Debug, PartialEq, Default)]
pub enum ImageResize {
    /// No resize.
    #[default]
    None,
    /// To `height × width`.
    Stretch {
        /// The resized height.
        height: u32,
        /// The resized width.
        width: u32,
    },
    /// The shorter side to this, keeping the aspect ratio.
    Shorter(u32),
    /// YOLO's letterbox into a `height × width` canvas of value `pad` (input units).
    Letterbox {
        /// The canvas height.
        height: u32,
        /// The canvas width.
        width: u32,
        /// The canvas value.
        pad: f32,
    },
}

/// ImageNet's per-channel mean, RGB, in 0..1 units.
pub const IMAGENET_MEAN: [f32; 3] = [0.485, 0.456, 0.406];
/// ImageNet's per-channel standard deviation, RGB, in 0..1 units.
pub const IMAGENET_STD: [f32; 3] = [0.229, 0.224, 0.225];

/// A builder for [`Normalize`] over a batch of images: crop, flip, subsample, channel selection and order, output
/// type and layout, and mean/std normalization, all fused into one pass. Start it with [`Normalize::image`].
///
/// The input has sizes `{N, C, H, W}` (or `{C, H, W}` for one image) with any strides — typically
/// [`TensorDesc::nhwc`] for decoded pixels. The output has the same rank, the cropped and subsampled sizes, the
/// chosen data type (default `FLOAT32`) and layout (default NCHW), packed.
///
/// # Examples
///
/// ImageNet preprocessing of a batch of decoded BGR images:
///
/// ```
/// use strider::{DataType, Normalize, TensorDesc};
/// let input = TensorDesc::nhwc(DataType::Uint8, [2, 3, 256, 320])?; // 2 images, 256×320, BGR
/// let op = Normalize::image(&input)
///     .center_crop(224, 224)
///     .reverse_channels() // BGR → RGB
///     .imagenet()
///     .build()?;
/// assert_eq!(op.output().sizes(), &[2, 3, 224, 224]);
/// assert_eq!(op.output().data_type(), DataType::Float32);
///
/// let pixels = vec![128u8; 2 * 256 * 320 * 3];
/// let mut planes = vec![0f32; 2 * 3 * 224 * 224];
/// op.execute_typed(&pixels, &mut planes)?;
/// // R plane: (128/255 − 0.485) / 0.229
/// assert!((planes[0] - 0.0741).abs() < 1e-4);
/// # Ok::<(), strider::Error>(())
/// ```
#[derive(Clone, Debug)]
pub struct ImageNormalize {
    input: TensorDesc,
    /// Window per `{C, H, W}` axis: offset, size, |stride|, reversed (the `H` and `W` offsets and sizes come from
    /// `crop`).
    window: [(u32, u32, u32, bool); 3],
    crop: Option<Crop>,
    resize: Option<(Fit, ResizeFilter)>,
    antialias: bool,
    /// `(scale, bias)` per output channel (or one for all); none yet: identity.
    params: Option<(Vec<f32>, Vec<f32>)>,
    mean_std: Option<(Vec<f32>, Vec<f32>)>,
    data_type: DataType,
    layout: ImageLayout,
    /// A given output tensor (its type and layout replace `data_type` and `layout`).
    output: Option<TensorDesc>,
}

/// The rectangle kept of the (resized) image.
#[derive(Clone, Copy, Debug)]
enum Crop {
    At { top: u32, left: u32, height: u32, width: u32 },
    Centered { height: u32, width: u32 },
}

/// The resized image's `[height, width]` (a letterbox's: the image's on its canvas) and, for a letterbox, the canvas
/// and the image's corner on it.
#[derive(Clone, Copy, Debug)]
struct Resized {
    size: [u32; 2],
    letterbox: Option<([u32; 2], [u32; 2])>,
}

/// How the image is resized.
#[derive(Clone, Copy, Debug)]
enum Fit {
    /// To `[height, width]`.
    Stretch([u32; 2]),
    /// The shorter side to this, keeping the aspect ratio.
    Shorter(u32),
    /// Into a `[height, width]` canvas, keeping the aspect ratio, the rest the pad value (input units).
    Letterbox([u32; 2], f32),
}

impl Normalize {
    /// Starts a builder for a batch of images `input` (sizes `{N, C, H, W}` or `{C, H, W}`, any strides).
    ///
    /// Without further calls the builder converts the whole batch to packed NCHW `FLOAT32` unchanged in value.
    /// Rank errors are reported by [`ImageNormalize::build`].
    pub fn image(input: &TensorDesc) -> ImageNormalize {
        let rank = input.rank();
        let size = |k: usize| image_dim(rank, k).map_or(1, |d| input.sizes()[d]);
        ImageNormalize {
            input: input.clone(),
            window: [(0, size(0), 1, false), (0, size(1), 1, false), (0, size(2), 1, false)],
            crop: None,
            resize: None,
            antialias: true,
            params: None,
            mean_std: None,
            data_type: DataType::Float32,
            layout: ImageLayout::Nchw,
            output: None,
        }
    }
}

/// The dimension of image axis `axis` (C, H or W) in a tensor of `rank` dimensions: its last three; `None` below
/// rank 3.
fn image_dim(rank: usize, axis: usize) -> Option<usize> {
    rank.checked_sub(3)?.checked_add(axis)
}

/// Window axes of the builder.
const C: usize = 0;
const H: usize = 1;
const W: usize = 2;

impl ImageNormalize {
    /// Keeps the `height × width` rectangle whose top-left pixel is (`top`, `left`) of the input (of the resized
    /// image after a resize).
    pub fn crop(mut self, top: u32, left: u32, height: u32, width: u32) -> Self {
        self.crop = Some(Crop::At { top, left, height, width });
        self
    }

    /// Keeps the centered `height × width` rectangle: top-left at `⌊(H − height)/2⌋, ⌊(W − width)/2⌋` of the input,
    /// or at `round((H' − height)/2), round((W' − width)/2)` (half to even, torchvision's `center_crop`) of an
    /// `H' × W'` resized image. A crop larger than the image is reported by [`ImageNormalize::build`].
    pub fn center_crop(mut self, height: u32, width: u32) -> Self {
        self.crop = Some(Crop::Centered { height, width });
        self
    }

    /// Resizes the image to `height × width` with `filter` first; crops, flips, subsampling and channel choices
    /// then apply to the resized image, computed only where they keep it. The resized values stay f32 into the
    /// normalization (clamped to 0..=255 for u8 images, never rounded): the result is within one input unit times
    /// the scale of resizing to u8 and normalizing. Antialiased (Pillow's filters) unless
    /// [`ImageNormalize::antialias`] says otherwise. Input types `UINT8`, `FLOAT16` and `FLOAT32`.
    ///
    /// ```
    /// use strider::{DataType, Normalize, ResizeFilter, TensorDesc};
    /// let input = TensorDesc::nhwc(DataType::Uint8, [1, 3, 480, 640])?;
    /// let op = Normalize::image(&input)
    ///     .resize_shorter(256, ResizeFilter::Bilinear) // 256 × 341
    ///     .center_crop(224, 224)
    ///     .imagenet()
    ///     .build()?;
    /// assert_eq!(op.output().sizes(), &[1, 3, 224, 224]);
    /// let pixels = vec![200u8; 480 * 640 * 3];
    /// let mut planes = vec![0f32; 3 * 224 * 224];
    /// op.execute_typed(&pixels, &mut planes)?;
    /// assert!((planes[0] - (200.0 / 255.0 - 0.485) / 0.229).abs() < 1e-5); // a flat image stays flat
    /// # Ok::<(), strider::Error>(())
    /// ```
    pub fn resize(mut self, height: u32, width: u32, filter: ResizeFilter) -> Self {
        self.resize = Some((Fit::Stretch([height, width]), filter));
        self
    }

    /// Resizes the image keeping its aspect ratio: the shorter side becomes `shorter`, the longer
    /// `⌊shorter · long / short⌋` (torchvision's `Resize(int)`; see [`shorter_side_size`]). As
    /// [`ImageNormalize::resize`] otherwise.
    pub fn resize_shorter(mut self, shorter: u32, filter: ResizeFilter) -> Self {
        self.resize = Some((Fit::Shorter(shorter), filter));
        self
    }

    /// YOLO's letterbox: the image resized by `min(height/H, width/W)` to `round(H·scale) × round(W·scale)` (half
    /// to even) sits at `((height − h')/2, (width − w')/2)` (rounded down) of a `height × width` canvas filled with
    /// `pad` in input units (114 for YOLO's grey), which normalizes like any pixel. See [`letterbox_geometry`]. No
    /// crop or subsampling with it (flips and channel choices apply).
    pub fn letterbox(mut self, height: u32, width: u32, filter: ResizeFilter, pad: f32) -> Self {
        self.resize = Some((Fit::Letterbox([height, width], pad), filter));
        self
    }

    /// The resize `resize` (none, stretch, shorter side or letterbox) with `filter`.
    pub fn resize_by(self, resize: ImageResize, filter: ResizeFilter) -> Self {
        match resize {
            ImageResize::None => ImageNormalize { resize: None, ..self },
            ImageResize::Stretch { height, width } => self.resize(height, width, filter),
            ImageResize::Shorter(s) => self.resize_shorter(s, filter),
            ImageResize::Letterbox { height, width, pad } => self.letterbox(height, width, filter, pad),
        }
    }

    /// Pillow's antialiased filters (`true`, the default) or OpenCV's sampled ones (`false`) for the resize; see
    /// [`Resize`](crate::Resize).
    pub fn antialias(mut self, antialias: bool) -> Self {
        self.antialias = antialias;
        self
    }

    /// Mirrors left ↔ right (the window walks `W` backwards).
    pub fn flip_horizontal(mut self) -> Self {
        self.window[W].3 = !self.window[W].3;
        self
    }

    /// Mirrors top ↔ bottom (the window walks `H` backwards).
    pub fn flip_vertical(mut self) -> Self {
        self.window[H].3 = !self.window[H].3;
        self
    }

    /// Keeps every `rows`-th row and every `columns`-th column of the crop (the first of each kept). A step of 0
    /// or above 2147483647 (DirectML's window strides are 32-bit signed) is reported by
    /// [`ImageNormalize::build`].
    pub fn subsample(mut self, rows: u32, columns: u32) -> Self {
        self.window[H].2 = rows;
        self.window[W].2 = columns;
        self
    }

    /// Keeps `count` channels starting at `first` (e.g. `channels(0, 3)` drops the alpha of BGRA).
    pub fn channels(mut self, first: u32, count: u32) -> Self {
        (self.window[C].0, self.window[C].1) = (first, count);
        self
    }

    /// Reverses the order of the kept channels: BGR ↔ RGB (a window stride of −1 on the channel dimension).
    /// Per-channel parameters are given in the *output's* channel order.
    pub fn reverse_channels(mut self) -> Self {
        self.window[C].3 = !self.window[C].3;
        self
    }

    /// Normalizes with a per-channel `mean` and standard deviation `std` in 0..1 units, where 1 is the input
    /// type's maximum for unsigned integer types (255 for `UINT8`, 65535 for `UINT16`, …) and 1.0 for all other
    /// types: `y = (x/unit − mean)/std`, computed as `x · scale + bias` with `scale = 1/(unit·std)` and
    /// `bias = −mean/std` (each rounded once from f64). The result differs from evaluating `(x/255 − mean)/std`
    /// step by step in f32 by at most a few ulps. Each slice has 1 value or one per output channel.
    pub fn mean_std(mut self, mean: &[f32], std: &[f32]) -> Self {
        self.mean_std = Some((mean.to_vec(), std.to_vec()));
        self.params = None;
        self
    }

    /// [`ImageNormalize::mean_std`] with ImageNet's RGB statistics ([`IMAGENET_MEAN`], [`IMAGENET_STD`]).
    pub fn imagenet(self) -> Self {
        self.mean_std(&IMAGENET_MEAN, &IMAGENET_STD)
    }

    /// Normalizes with raw per-channel factors and addends: `y = x · scale + bias` (replaces any mean/std).
    pub fn scale_bias(mut self, scale: &[f32], bias: &[f32]) -> Self {
        self.params = Some((scale.to_vec(), bias.to_vec()));
        self.mean_std = None;
        self
    }

    /// The output's data type (default `FLOAT32`).
    pub fn output_type(mut self, data_type: DataType) -> Self {
        self.data_type = data_type;
        self
    }

    /// The output's layout (default [`ImageLayout::Nchw`]).
    pub fn layout(mut self, layout: ImageLayout) -> Self {
        self.layout = layout;
        self
    }

    /// Writes into `output` (any strides: a slot of a larger batch, padded rows, …) instead of a packed tensor of
    /// the chosen type and layout; its data type is the output's. Its sizes must be the ones the builder computes
    /// ([`ImageNormalize::output_desc`] reports them otherwise).
    ///
    /// ```
    /// use strider::{DataType, Normalize, ResizeFilter, TensorDesc};
    /// let input = TensorDesc::nhwc(DataType::Uint8, [1, 3, 100, 80])?;
    /// // Image 5 of a batch of 8 f16 NCHW 3 × 64 × 64 images: the batch's strides, image 5's offset in the buffer.
    /// let slot = TensorDesc::with_strides(DataType::Float16, &[1, 3, 64, 64], &[3 * 64 * 64, 64 * 64, 64, 1])?;
    /// let op = Normalize::image(&input).resize(64, 64, ResizeFilter::Area).output_tensor(&slot).build()?;
    /// assert_eq!(op.output().data_type(), DataType::Float16);
    /// # Ok::<(), strider::Error>(())
    /// ```
    pub fn output_tensor(mut self, output: &TensorDesc) -> Self {
        self.output = Some(output.clone());
        self
    }

    fn input_size(&self, axis: usize) -> u32 {
        image_dim(self.input.rank(), axis).map_or(1, |d| self.input.sizes()[d])
    }

    /// The resized image's `[height, width]` (a letterbox's: the image's on its canvas) and, for a letterbox, the
    /// canvas and the image's corner on it; `None` without a resize.
    fn resized(&self) -> Result<Option<Resized>, Error> {
        let image = [self.input_size(H), self.input_size(W)];
        let Some((fit, _)) = self.resize else { return Ok(None) };
        Ok(Some(match fit {
            Fit::Stretch(size) => {
                if let Some(&n) = size.iter().find(|&&n| n == 0) {
                    return Err(Error::ArgumentOutOfRange {
                        argument: "a resize's height or width",
                        value: u64::from(n),
                        min: 1,
                        max: strider_kernels::MAX_RESIZE_SIDE as u64,
                    });
                }
                Resized { size, letterbox: None }
            }
            Fit::Shorter(s) => Resized { size: shorter_side_size(image, s)?, letterbox: None },
            Fit::Letterbox(canvas, _) => {
                let l = letterbox_geometry(image, canvas)?;
                Resized { size: [l.height, l.width], letterbox: Some((canvas, [l.top, l.left])) }
            }
        }))
    }

    /// The kept rectangle's `[(top, height), (left, width)]` on the (resized) image.
    fn rectangle(&self) -> Result<[(u32, u32); 2], Error> {
        let resized = self.resized()?;
        let image = resized.map_or([self.input_size(H), self.input_size(W)], |r| r.size);
        if let (Some(Resized { letterbox: Some(_), .. }), Some(_)) = (resized, self.crop) {
            return Err(Error::Incompatible { first: "a letterbox", second: "a crop" });
        }
        Ok(match self.crop {
            None => [(0, image[0]), (0, image[1])],
            Some(Crop::At { top, left, height, width }) => [(top, height), (left, width)],
            Some(Crop::Centered { height, width }) if resized.is_some() => {
                let [top, left] = center_crop_offsets(image, [height, width])?;
                [(top, height), (left, width)]
            }
            Some(Crop::Centered { height, width }) => {
                [(image[0].saturating_sub(height) / 2, height), (image[1].saturating_sub(width) / 2, width)]
            }
        })
    }

    /// The window per `{C, H, W}` axis: offset, size, |stride|, reversed.
    fn windows(&self) -> Result<[(u32, u32, u32, bool); 3], Error> {
        let mut window = self.window;
        let [(top, height), (left, width)] = self.rectangle()?;
        (window[H].0, window[H].1) = (top, height);
        (window[W].0, window[W].1) = (left, width);
        Ok(window)
    }

    /// The output tensor the builder would create: the window's sizes, the chosen type and layout, packed (or the
    /// tensor given to [`ImageNormalize::output_tensor`]).
    ///
    /// # Errors
    ///
    /// [`Error::InvalidRank`] unless the input has 3 or 4 dimensions; [`Error::ZeroWindowStride`] for a subsample
    /// step of 0; [`Error::EmptyWindow`] for an empty crop; errors of the output's [`TensorDesc`];
    /// [`Error::ShapeMismatch`] for a given output tensor of other sizes.
    pub fn output_desc(&self) -> Result<TensorDesc, Error> {
        let rank = self.input.rank();
        if !(3..=4).contains(&rank) {
            return Err(Error::InvalidRank { rank });
        }
        let mut sizes: Vec<u32> = self.input.sizes().to_vec();
        for (dim, &(_, size, step, _)) in (rank.saturating_sub(3)..).zip(&self.windows()?) {
            if step == 0 {
                return Err(Error::ZeroWindowStride { dim });
            }
            if size == 0 {
                return Err(Error::EmptyWindow { dim });
            }
            sizes[dim] = size.div_ceil(step);
        }
        if let Some(Resized { letterbox: Some((canvas, _)), .. }) = self.resized()? {
            if self.window[H].2 != 1 || self.window[W].2 != 1 {
                return Err(Error::Incompatible { first: "a letterbox", second: "a subsampling" });
            }
            sizes[rank.saturating_sub(2)..].copy_from_slice(&canvas);
        }
        if let Some(given) = &self.output {
            if given.sizes() != sizes.as_slice() {
                return Err(Error::ShapeMismatch {
                    operand: crate::Operand::Output,
                    sizes: given.sizes().to_vec(),
                    expected: sizes.iter().map(|&n| u64::from(n)).collect(),
                    why: "the builder's crop, resize and subsampling give these sizes",
                });
            }
            return Ok(given.clone());
        }
        match (self.layout, rank) {
            (ImageLayout::Nchw, _) => TensorDesc::new(self.data_type, &sizes),
            (ImageLayout::Nhwc, 4) => TensorDesc::permuted(self.data_type, &sizes, &[0, 2, 3, 1]),
            (ImageLayout::Nhwc, _) => TensorDesc::permuted(self.data_type, &sizes, &[1, 2, 0]),
        }
    }

    /// The `(scale, bias)` of the chosen normalization for `channels` output channels.
    fn scale_bias_values(&self, channels: u32) -> Result<(Vec<f32>, Vec<f32>), Error> {
        match (&self.params, &self.mean_std) {
            (Some((scale, bias)), _) => Ok((scale.clone(), bias.clone())),
            (None, Some((mean, std))) => mean_std_to_scale_bias(self.input.data_type(), mean, std, channels),
            (None, None) => Ok((vec![1.0], vec![0.0])),
        }
    }

    /// Validates and plans the normalization.
    ///
    /// # Errors
    ///
    /// As [`ImageNormalize::output_desc`] and [`Normalize::new`]: a subsample step above 2147483647
    /// ([`Error::WindowStrideOutOfRange`]), a crop outside the image
    /// ([`Error::WindowOutOfBounds`]), parameters of the wrong length ([`Error::ParameterLength`], naming `mean`,
    /// `std`, `scale` or `bias`), a non-finite mean or std, or a standard deviation so small (0) that the scale is
    /// infinite ([`Error::NonFiniteParameter`]).
    pub fn build(&self) -> Result<Normalize, Error> {
        let output = self.output_desc()?;
        let rank = self.input.rank();
        let mut offsets = vec![0u32; rank];
        let mut sizes: Vec<u32> = self.input.sizes().to_vec();
        let mut strides = vec![1i32; rank];
        let channel = rank.saturating_sub(3); // output_desc checked rank ≥ 3
        let window = self.windows()?;
        for (dim, &(offset, size, step, reversed)) in (channel..).zip(&window) {
            offsets[dim] = offset;
            sizes[dim] = size;
            let step =
                i32::try_from(step).map_err(|_| Error::WindowStrideOutOfRange { dim, stride: u64::from(step) })?;
            strides[dim] = if reversed { step.wrapping_neg() } else { step }; // 1 ≤ step ≤ i32::MAX
        }
        let (scale, bias) = self.scale_bias_values(output.sizes()[channel])?;
        let (Some((_, filter)), Some(Resized { size: resized, letterbox })) = (self.resize, self.resized()?) else {
            return Normalize::new(&self.input, &output, &offsets, &sizes, &strides, Some(channel), &scale, &bias);
        };
        // A letterbox's image corner on the canvas, mirrored with the canvas by a flip.
        let letterbox = letterbox.map(|(canvas, [top, left])| {
            let mirror = |k: usize, at: u32| match [window[H].3, window[W].3][k] {
                true => canvas[k].saturating_sub(at).saturating_sub(resized[k]), // the image fits its canvas
                false => at,
            };
            let pad = match self.resize {
                Some((Fit::Letterbox(_, pad), _)) => pad,
                _ => 0.0,
            };
            ([mirror(0, top), mirror(1, left)], pad)
        });
        let r = Resampling { filter, antialias: self.antialias, resized, letterbox };
        Normalize::resampled(&self.input, &output, &offsets, &sizes, &strides, &scale, &bias, r)
    }
}

/// The `(scale, bias)` of a normalization by `mean` and standard deviation `std` given in 0..1 units, for input of
/// type `data_type` and `channels` output channels: `scale = 1/(unit·std)`, `bias = −mean/std`, each computed in
/// f64 and rounded once to f32, where `unit` is the type's maximum for unsigned integer types (255 for `UINT8`) and
/// 1 for every other type (see [`ImageNormalize::mean_std`]).
///
/// # Errors
///
/// [`Error::ParameterLength`] when `mean` or `std` has neither 1 value nor `channels`;
/// [`Error::NonFiniteParameter`] for an infinite or NaN mean or std. (A standard deviation of 0 gives an infinite
/// scale, which [`Normalize::new`] rejects.)
///
/// # Examples
///
/// ```
/// use strider::{DataType, mean_std_to_scale_bias};
/// let (scale, bias) = mean_std_to_scale_bias(DataType::Uint8, &[0.5], &[0.25], 3)?;
/// assert_eq!((scale, bias), (vec![1.0 / 63.75], vec![-2.0]));
/// # Ok::<(), strider::Error>(())
/// ```
pub fn mean_std_to_scale_bias(
    data_type: DataType,
    mean: &[f32],
    std: &[f32],
    channels: u32,
) -> Result<(Vec<f32>, Vec<f32>), Error> {
    for (argument, v) in [("mean", mean), ("std", std)] {
        if v.len() != 1 && v.len() != channels as usize {
            return Err(Error::ParameterLength { argument, len: v.len(), channels: Some(channels) });
        }
        if let Some(index) = v.iter().position(|x| !x.is_finite()) {
            return Err(Error::NonFiniteParameter { argument, index, bits: v[index].to_bits() });
        }
    }
    if let Some(index) = std.iter().position(|&x| x == 0.0) {
        return Err(Error::ZeroStd { index });
    }
    let unit = match data_type {
        DataType::Uint8 => f64::from(u8::MAX),
        DataType::Uint16 => f64::from(u16::MAX),
        DataType::Uint32 => f64::from(u32::MAX),
        DataType::Uint64 => u64::MAX as f64,
        _ => 1.0,
    };
    let n = mean.len().max(std.len());
    let at = |v: &[f32], k: usize| f64::from(if v.len() == 1 { v[0] } else { v[k] });
    let scale = (0..n).map(|k| (1.0 / (unit * at(std, k))) as f32).collect();
    let bias = (0..n).map(|k| (-at(mean, k) / at(std, k)) as f32).collect();
    Ok((scale, bias))
}
