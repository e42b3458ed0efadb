//! The everyday image preprocessing, spelled as a builder over [`Normalize`].

use crate::desc::TensorDesc;
use crate::ops::normalize::Normalize;
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
    /// Window per `{C, H, W}` axis: offset, size, |stride|, reversed.
    window: [(u32, u32, u32, bool); 3],
    /// `(scale, bias)` per output channel (or one for all); none yet: identity.
    params: Option<(Vec<f32>, Vec<f32>)>,
    mean_std: Option<(Vec<f32>, Vec<f32>)>,
    data_type: DataType,
    layout: ImageLayout,
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
            params: None,
            mean_std: None,
            data_type: DataType::Float32,
            layout: ImageLayout::Nchw,
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
    /// Keeps the `height × width` rectangle whose top-left pixel is (`top`, `left`) of the input.
    pub fn crop(mut self, top: u32, left: u32, height: u32, width: u32) -> Self {
        (self.window[H].0, self.window[H].1) = (top, height);
        (self.window[W].0, self.window[W].1) = (left, width);
        self
    }

    /// Keeps the centered `height × width` rectangle (top-left at `⌊(H − height)/2⌋, ⌊(W − width)/2⌋`). A crop
    /// larger than the image is reported by [`ImageNormalize::build`].
    pub fn center_crop(self, height: u32, width: u32) -> Self {
        let (h, w) = (self.input_size(H), self.input_size(W));
        let top = h.saturating_sub(height) / 2;
        let left = w.saturating_sub(width) / 2;
        self.crop(top, left, height, width)
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

    fn input_size(&self, axis: usize) -> u32 {
        image_dim(self.input.rank(), axis).map_or(1, |d| self.input.sizes()[d])
    }

    /// The output tensor the builder would create: the window's sizes, the chosen type and layout, packed.
    ///
    /// # Errors
    ///
    /// [`Error::InvalidRank`] unless the input has 3 or 4 dimensions; [`Error::ZeroWindowStride`] for a subsample
    /// step of 0; [`Error::EmptyWindow`] for an empty crop; errors of the output's [`TensorDesc`].
    pub fn output_desc(&self) -> Result<TensorDesc, Error> {
        let rank = self.input.rank();
        if !(3..=4).contains(&rank) {
            return Err(Error::InvalidRank { rank });
        }
        let mut sizes: Vec<u32> = self.input.sizes().to_vec();
        for (dim, &(_, size, step, _)) in (rank.saturating_sub(3)..).zip(&self.window) {
            if step == 0 {
                return Err(Error::ZeroWindowStride { dim });
            }
            if size == 0 {
                return Err(Error::EmptyWindow { dim });
            }
            sizes[dim] = size.div_ceil(step);
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
        for (dim, &(offset, size, step, reversed)) in (channel..).zip(&self.window) {
            offsets[dim] = offset;
            sizes[dim] = size;
            let step =
                i32::try_from(step).map_err(|_| Error::WindowStrideOutOfRange { dim, stride: u64::from(step) })?;
            strides[dim] = if reversed { step.wrapping_neg() } else { step }; // 1 ≤ step ≤ i32::MAX
        }
        let (scale, bias) = self.scale_bias_values(output.sizes()[channel])?;
        Normalize::new(&self.input, &output, &offsets, &sizes, &strides, Some(channel), &scale, &bias)
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
