//! Preprocessing in one pass: a `DML_SLICE1` window (crop, flip, subsample), any output layout, and a per-channel
//! `x · scale + bias` converting between any two data types.

use strider_kernels::{ElemType, ElementOp, Epilogue, Isa, Plan, ResizePlan, ResizeProgram, RowKind};

use crate::desc::TensorDesc;
use crate::engine::{Builder, Engine, Region, next_coordinate, run_error};
use crate::ops::check_ranks;
use crate::ops::resize::{ResizeFilter, nchw};
use crate::ops::window::Window;
use crate::{DataType, Element, Error, ExecOptions, Scalar};

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
    /// A resize before the window (built by [`ImageNormalize`](crate::ImageNormalize)).
    resampling: Option<Resampling>,
}

/// A resize at the head of a [`Normalize`]: the window then applies to the resized image.
#[derive(Clone, Debug)]
pub(crate) struct Resampling {
    pub(crate) filter: ResizeFilter,
    pub(crate) antialias: bool,
    /// The resized image's `[height, width]` (a letterbox's: the image on its canvas).
    pub(crate) resized: [u32; 2],
    /// A letterbox: the output coordinates `[row, column]` of the resized image's first pixel on the canvas (after
    /// any flip), and the canvas's value in input units.
    pub(crate) letterbox: Option<([u32; 2], f32)>,
}

/// Checks a normalization's parameters: 1 value or one per channel each, all finite.
fn check_params(scale: &[f32], bias: &[f32], channels: Option<u32>) -> Result<(), Error> {
    for (argument, values) in [("scale", scale), ("bias", bias)] {
        let len = values.len();
        if len != 1 && Some(len) != channels.map(|c| c as usize) {
            return Err(Error::ParameterLength { argument, len, channels });
        }
        if let Some(index) = values.iter().position(|v| !v.is_finite()) {
            return Err(Error::NonFiniteParameter { argument, index, bits: values[index].to_bits() });
        }
    }
    Ok(())
}

/// The dimensions C, H and W of an image tensor of `rank` 3 or 4 (N before them).
fn image_dims(rank: usize) -> Result<(usize, usize, usize), Error> {
    match rank {
        3 => Ok((0, 1, 2)),
        4 => Ok((1, 2, 3)),
        _ => Err(Error::InvalidRank { rank }),
    }
}

/// One job of [`Normalize::execute_batch`]: the operator, its input and its output.
type Job<'a> = (&'a Normalize, &'a [u8], &'a mut [u8]);

/// Parameter `k` of a per-channel list (a list of one applies to every channel).
fn at(values: &[f32], k: usize) -> f32 {
    if values.len() == 1 { values[0] } else { values[k] }
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
        check_params(scale, bias, channels)?;
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
        Ok(Normalize { engine, window, channel_axis, scale: scale.to_vec(), bias: bias.to_vec(), resampling: None })
    }

    /// The `(scale, bias)` pair of each of `channels` channels.
    fn pairs(scale: &[f32], bias: &[f32], channels: usize) -> Vec<[f32; 2]> {
        (0..channels).map(|k| [at(scale, k), at(bias, k)]).collect()
    }

    /// A normalization of images `input` (`{N, C, H, W}` or `{C, H, W}`, any strides) resized first: the window
    /// (`offsets`, `sizes`, `strides`, per dimension; `|stride|` 1 on `C`) applies to the resized image of
    /// `r.resized` pixels, the channel axis is `C`, and a letterbox puts the window's pixels at `r.letterbox`'s corner
    /// of an output canvas filled with the normalized pad value. The resized values stay f32 into the normalization
    /// (clamped to 0..=255 for u8 images): one pass, one rounding.
    #[allow(clippy::too_many_arguments)] // the window, the normalization and the resize
    pub(crate) fn resampled(
        input: &TensorDesc,
        output: &TensorDesc,
        offsets: &[u32],
        sizes: &[u32],
        strides: &[i32],
        scale: &[f32],
        bias: &[f32],
        r: Resampling,
    ) -> Result<Normalize, Error> {
        let rank = input.rank();
        let (cd, hd, wd) = image_dims(rank)?;
        let data_type = input.data_type();
        if !matches!(data_type, DataType::Uint8 | DataType::Float16 | DataType::Float32) {
            return Err(Error::UnsupportedDataType {
                operator: "Normalize with a resize",
                data_type,
                accepted: "UINT8, FLOAT16 and FLOAT32",
            });
        }
        let sides = input.sizes()[hd..].iter().chain(&r.resized);
        if let Some(&n) = sides.clone().find(|&&n| n as usize > strider_kernels::MAX_RESIZE_SIDE || n == 0) {
            return Err(Error::ArgumentOutOfRange {
                argument: "a resized image's height or width",
                value: u64::from(n),
                min: 1,
                max: strider_kernels::MAX_RESIZE_SIDE as u64,
            });
        }
        // The window over the resized image, validated as a window over a tensor of its sizes.
        let mut resized_sizes = input.sizes().to_vec();
        resized_sizes[hd..].copy_from_slice(&r.resized);
        let mut inner = output.sizes().to_vec();
        if r.letterbox.is_some() {
            inner[hd..].copy_from_slice(&r.resized);
        }
        let window = Window::new(
            &TensorDesc::new(data_type, &resized_sizes)?,
            &TensorDesc::new(output.data_type(), &inner)?,
            offsets,
            sizes,
            strides,
        )?;
        let channels = output.sizes()[cd];
        check_params(scale, bias, Some(channels))?;
        if let Some((_, pad)) = r.letterbox.filter(|l| !l.1.is_finite()) {
            return Err(Error::NonFiniteParameter { argument: "pad", index: 0, bits: pad.to_bits() });
        }
        let internal = |what: &str| Error::Internal { detail: format!("resized normalization: {what}") };
        if strides[cd].unsigned_abs() != 1 {
            return Err(internal("channels subsampled"));
        }
        // `base + n · stride` in bytes, checked.
        let step = |base: isize, n: u64, stride: isize| {
            isize::try_from(n).ok().and_then(|n| n.checked_mul(stride)).and_then(|d| d.checked_add(base))
        };
        // The kernel's plan: the window's channels of the input, resized, each axis's kept pixels in increasing
        // order, written backwards where the window walks backwards.
        let (is, in_strides, in_base) = nchw(input)?;
        let in_base = isize::try_from(in_base)
            .ok()
            .and_then(|b| step(b, u64::from(offsets[cd]), in_strides[1]))
            .and_then(|b| usize::try_from(b).ok())
            .ok_or_else(|| internal("input base"))?;
        let (_, mut out_strides, out_base) = nchw(output)?;
        let mut out_base = isize::try_from(out_base).ok();
        let corner = r.letterbox.map_or([0, 0], |l| l.0);
        let mut pick = [(0usize, 1usize); 2];
        for (k, d) in [hd, wd].into_iter().enumerate() {
            let (count, stride) = (u64::from(inner[d]), u64::from(strides[d].unsigned_abs()));
            let s = &mut out_strides[2..][k];
            out_base = out_base.and_then(|b| step(b, u64::from(corner[k]), *s));
            // The window's first pixel read in increasing order: its last one when it walks backwards (Window::new
            // bounded every pixel read inside the resized image).
            let first = match strides[d] < 0 {
                true => u64::from(offsets[d])
                    .saturating_add(u64::from(sizes[d]))
                    .checked_sub(count.saturating_sub(1).saturating_mul(stride).saturating_add(1)),
                false => Some(u64::from(offsets[d])),
            };
            pick[k] = (first.and_then(|f| usize::try_from(f).ok()).ok_or_else(|| internal("window"))?, stride as usize);
            if strides[d] < 0 {
                out_base = out_base.and_then(|b| step(b, count.saturating_sub(1), *s));
                *s = s.saturating_neg();
            }
        }
        let reversed_channels = strides[cd] < 0;
        if reversed_channels {
            out_base = out_base.and_then(|b| step(b, u64::from(channels).saturating_sub(1), out_strides[1]));
            out_strides[1] = out_strides[1].saturating_neg();
        }
        let out_base = out_base.and_then(|b| usize::try_from(b).ok()).ok_or_else(|| internal("output base"))?;
        let clamp = (data_type == DataType::Uint8).then_some([0.0, 255.0]);
        // The kernel's channels are the input's: the output's in reverse when the window reverses them. One pair
        // when it is the same for every channel (a channel axis of 4 billion with one scale and one bias needs one
        // pair, not 32 GiB of them).
        let varying = scale.len().max(bias.len());
        let mut pairs = Self::pairs(scale, bias, varying);
        if reversed_channels {
            pairs.reverse();
        }
        let mut plan = ResizePlan::new(
            data_type.elem(),
            is[0],
            channels as usize,
            [is[2], is[3]],
            [inner[hd] as usize, inner[wd] as usize],
            (in_base, in_strides),
            (out_base, out_strides),
            r.filter,
            r.antialias,
        );
        plan.resized = r.resized.map(|n| n as usize);
        plan.pick = pick;
        plan.out_ty = output.data_type().elem();
        plan.epilogue = Some(Epilogue { pairs, clamp });
        let mut b = Builder::new(core::slice::from_ref(input), core::slice::from_ref(output))?;
        let mut lo = vec![0u32; rank];
        lo[hd..].copy_from_slice(&corner);
        if let Some((_, pad)) = r.letterbox {
            // The canvas around the image: the bands above and below, then left and right of it, per channel (the
            // image fits its canvas: no subtraction wraps).
            let (h, w) = (output.sizes()[hd], output.sizes()[wd]);
            let [top, left] = corner;
            let (bottom, right) = (top.saturating_add(r.resized[0]), left.saturating_add(r.resized[1]));
            let bands = [
                (0, top, 0, w),
                (bottom, h.saturating_sub(bottom), 0, w),
                (top, r.resized[0], 0, left),
                (top, r.resized[0], right, w.saturating_sub(right)),
            ];
            let op = ElementOp::Normalize { from: ElemType::F32, to: output.data_type().elem() };
            let width = output.data_type().size_in_bytes();
            // One value per channel, or one for all of them.
            let per_channel = if varying == 1 { 1 } else { channels };
            for (k, &[s, c]) in (0..per_channel).zip(&Self::pairs(scale, bias, varying)) {
                let mut value = [0u8; 8];
                op.normalize_one(&pad.to_le_bytes(), &mut value[..width], s, c);
                let value = Scalar::from_union(output.data_type(), value);
                for &(r0, rows, c0, cols) in bands.iter().filter(|b| b.1 > 0 && b.3 > 0) {
                    let mut region = Region::whole(0, output.sizes());
                    let (first, count) = if varying == 1 { (0, channels) } else { (k, 1) };
                    region.lo[cd..].copy_from_slice(&[first, r0, c0]);
                    region.sizes[cd..].copy_from_slice(&[count, rows, cols]);
                    b.fill(region, value)?;
                }
            }
        }
        b.resized(&plan, Region { output: 0, lo, sizes: inner })?;
        let engine = b.finish(true)?;
        Ok(Normalize {
            engine,
            window,
            channel_axis: Some(cd),
            scale: scale.to_vec(),
            bias: bias.to_vec(),
            resampling: Some(r),
        })
    }

    operator_methods!(Normalize, two_types);

    /// The same result by the slowest, most obvious method: one loop over output coordinates applying the formula
    /// element by element with the portable scalar code, no planning, no SIMD. For verifying results.
    ///
    /// # Errors
    ///
    /// As [`Normalize::execute`].
    pub fn execute_reference(&self, input: &[u8], output: &mut [u8]) -> Result<(), Error> {
        if let Some(r) = &self.resampling {
            return self.reference_resampled(r, input, output);
        }
        let op = *self.plan().op();
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

    /// [`Normalize::execute_reference`] after a resize: every channel of the input resized whole into an f32 image
    /// by the resize kernel's portable code alone (clamped as the fused pass clamps; the filter itself is tested
    /// against a float64 evaluation of its weights), then one loop over output coordinates reading it through the
    /// window, or the pad value outside a letterbox's image, each normalized by the scalar code.
    fn reference_resampled(&self, r: &Resampling, input: &[u8], output: &mut [u8]) -> Result<(), Error> {
        self.engine.check_buffers(input, output)?;
        let (x, y) = (self.input(), self.output());
        let (cd, hd, wd) = image_dims(x.rank())?;
        let internal = |e: String| Error::Internal { detail: format!("resize reference: {e}") };
        let (is, in_strides, in_base) = nchw(x)?;
        let [rh, rw] = r.resized.map(|n| n as usize);
        // Packed f32 strides of the resized image, and its bytes.
        let mut packed = [0isize; 4];
        let mut bytes = Some(4usize);
        for (s, n) in packed.iter_mut().zip([is[0], is[1], rh, rw]).rev() {
            *s = bytes.and_then(|b| isize::try_from(b).ok()).unwrap_or(0);
            bytes = bytes.and_then(|b| b.checked_mul(n));
        }
        let bytes = bytes.ok_or_else(|| internal("the resized image is too large".into()))?;
        let mut plan = ResizePlan::new(
            x.data_type().elem(),
            is[0],
            is[1],
            [is[2], is[3]],
            [rh, rw],
            (in_base, in_strides),
            (0, packed),
            r.filter,
            r.antialias,
        );
        plan.out_ty = ElemType::F32;
        let clamp = (x.data_type() == DataType::Uint8).then_some([0.0, 255.0]);
        plan.epilogue = Some(Epilogue { pairs: vec![[1.0, 0.0]], clamp });
        let program = ResizeProgram::new(&plan).map_err(|e| internal(e.to_string()))?;
        let mut resized = vec![0u8; bytes];
        program.run(input, &mut resized, &ExecOptions::sequential().with_isa(Isa::Scalar)).map_err(run_error)?;
        let mut sizes = x.sizes().to_vec();
        sizes[hd..].copy_from_slice(&r.resized);
        let image = TensorDesc::new(DataType::Float32, &sizes)?;
        let op = ElementOp::Normalize { from: ElemType::F32, to: y.data_type().elem() };
        let ow = y.data_type().size_in_bytes();
        let mut c = vec![0u32; y.rank()];
        loop {
            let k = c[cd] as usize;
            let mut inside = c.clone();
            // Outside a letterbox's image: its pad value; inside: the image's coordinates.
            let pad = match r.letterbox {
                Some(([top, left], pad)) => {
                    let (row, col) = (c[hd].wrapping_sub(top), c[wd].wrapping_sub(left));
                    if row < r.resized[0] && col < r.resized[1] {
                        (inside[hd], inside[wd]) = (row, col);
                        None
                    } else {
                        Some(pad)
                    }
                }
                None => None,
            };
            let value = match pad {
                Some(pad) => pad,
                None => {
                    let e = usize::try_from(self.window.reference_offset(&image, &inside)).ok();
                    let e = e.and_then(|e| e.checked_mul(4)).and_then(|e| resized.get(e..)?.first_chunk::<4>());
                    f32::from_le_bytes(*e.ok_or_else(|| internal(format!("{c:?}")))?)
                }
            };
            let o = y.offset_of(&c).and_then(|o| usize::try_from(o).ok()).and_then(|o| o.checked_mul(ow));
            let dst = o.and_then(|o| output.get_mut(o..)?.get_mut(..ow)).ok_or_else(|| internal(format!("{c:?}")))?;
            op.normalize_one(&value.to_le_bytes(), dst, at(&self.scale, k), at(&self.bias, k));
            if !next_coordinate(&mut c, y.sizes()) {
                return Ok(());
            }
        }
    }

    /// Runs many normalizations at once — typically one per image of a batch of images of different sizes, each
    /// writing its slot of one output batch — on the threads `opts` allows: each job on one thread when there are at
    /// least as many jobs as threads (no split to synchronize, each image's rows stay in its thread's caches), one
    /// after the other split across the threads otherwise. Every buffer is checked before anything is written.
    ///
    /// # Errors
    ///
    /// As [`Normalize::execute_with`] for the first job whose buffers or options fail; nothing is written then.
    ///
    /// # Examples
    ///
    /// Two images of different sizes into one batch of 8 × 8 planes:
    ///
    /// ```
    /// use strider::{DataType, ExecOptions, Normalize, ResizeFilter, TensorDesc};
    /// let (a, b) = (TensorDesc::nhwc(DataType::Uint8, [1, 3, 20, 30])?, TensorDesc::nhwc(DataType::Uint8, [1, 3, 9, 9])?);
    /// let ops = [&a, &b].map(|t| Normalize::image(t).resize(8, 8, ResizeFilter::Bilinear).build());
    /// let [op_a, op_b] = ops;
    /// let (op_a, op_b) = (op_a?, op_b?);
    /// let (pa, pb) = (vec![10u8; 20 * 30 * 3], vec![20u8; 9 * 9 * 3]);
    /// let mut batch = vec![0u8; 2 * 3 * 8 * 8 * 4];
    /// let (slot_a, slot_b) = batch.split_at_mut(3 * 8 * 8 * 4);
    /// Normalize::execute_batch(&mut [(&op_a, &pa[..], slot_a), (&op_b, &pb[..], slot_b)], &ExecOptions::default())?;
    /// let first = |at: usize| f32::from_le_bytes(batch[at..at + 4].try_into().unwrap());
    /// // Flat images stay flat, up to f32 rounding of the weights' sums.
    /// assert!((first(0) - 10.0).abs() < 1e-4 && (first(3 * 8 * 8 * 4) - 20.0).abs() < 1e-4);
    /// # Ok::<(), strider::Error>(())
    /// ```
    pub fn execute_batch<'a>(
        jobs: &mut [(&'a Normalize, &'a [u8], &'a mut [u8])],
        opts: &ExecOptions,
    ) -> Result<(), Error> {
        for (op, input, output) in jobs.iter() {
            op.engine.check_buffers(input, output)?;
        }
        if jobs.len() < strider_kernels::threads_for(opts).map_err(run_error)? {
            // Few large jobs: each split across the threads.
            for (op, input, output) in jobs.iter_mut() {
                op.execute_with(input, output, opts)?;
            }
            return Ok(());
        }
        let one = ExecOptions { parallelism: strider_kernels::Parallelism::Sequential, ..*opts };
        let jobs: Vec<std::sync::Mutex<&mut Job<'a>>> = jobs.iter_mut().map(std::sync::Mutex::new).collect();
        let failed = std::sync::Mutex::new(None);
        strider_kernels::spread(opts, jobs.len(), &|j| {
            // Each job is locked by the one thread that runs it: never contended, never poisoned (no panic while held).
            let mut job = jobs[j].lock().unwrap_or_else(std::sync::PoisonError::into_inner);
            let (op, input, output) = &mut **job;
            if let Err(e) = op.execute_with(input, output, &one) {
                failed.lock().unwrap_or_else(std::sync::PoisonError::into_inner).get_or_insert(e);
            }
        })
        .map_err(run_error)?;
        match failed.into_inner().unwrap_or_else(std::sync::PoisonError::into_inner) {
            Some(e) => Err(e),
            None => Ok(()),
        }
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
