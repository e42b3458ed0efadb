//! `normalize_image`: the everyday image preprocessing (crop, flips, channel order, mean/std, output type and
//! layout) by name, as the Rust builder `Normalize::image` spells it, for arrays of decoded images. It computes
//! `normalize`'s window and parameters from the image's shape and runs the same fused operator.

use numpy::PyUntypedArrayMethods;
use pyo3::exceptions::{PyTypeError, PyValueError};
use pyo3::prelude::*;
use std::sync::{Arc, Mutex};

use strider_core::{
    DataType, IMAGENET_MEAN, IMAGENET_STD, Normalize, Resize, ResizeFilter, TensorDesc, mean_std_to_scale_bias,
};

use crate::plan::Spec;
use crate::view::{View, dtype_arg, strider_error};
use crate::{ChannelOrder, GIL_RELEASE_BYTES, PLANS, as_array, floats, inverse, run_into, thread_choice, window_spec};

/// An int or a pair of ints (`what` names the argument in errors).
fn pair(v: &Bound<'_, PyAny>, what: &str) -> PyResult<(i64, i64)> {
    if let Ok(n) = v.extract::<i64>() {
        return Ok((n, n));
    }
    v.extract::<(i64, i64)>().map_err(|_| PyTypeError::new_err(format!("{what} must be an int or a pair of ints")))
}

/// A float or a sequence of floats, as float32 (the Rust builder's parameter type).
fn f32s(v: &Bound<'_, PyAny>, what: &str) -> PyResult<Vec<f32>> {
    floats(v, what)?
        .iter()
        .enumerate()
        .map(|(i, &f)| {
            let g = f as f32;
            if f.is_finite() && !g.is_finite() {
                Err(PyValueError::new_err(format!("{what}[{i}] is {f:e}; it does not fit a float32")))
            } else {
                Ok(g)
            }
        })
        .collect()
}

/// Preprocesses decoded images in one pass: crop, flips, channel selection and order, normalization by a mean and
/// standard deviation in 0..1 units, cast and layout — what torchvision's `CenterCrop`, `ToTensor` and `Normalize`
/// do in three passes, or `Normalize::image(..).center_crop(..).reverse_channels().imagenet().build()` in Rust.
///
/// `images`: one image or a batch, `(H, W, C)` / `(N, H, W, C)` with `channels_last=True` (decoders' layout, the
/// default), `(C, H, W)` / `(N, C, H, W)` otherwise; any dtype and strides (negative strides are read in place).
/// `dtype`: the result's (default float32). `mean`, `std`: one value or one per output channel, in 0..1 units
/// where 1 is the input type's maximum for unsigned integers (255 for uint8) and 1.0 otherwise:
/// `y = (x / unit - mean) / std`, computed as `x * scale + bias` with each factor rounded once from float64;
/// `imagenet=True` uses ImageNet's RGB statistics; with neither the values are only converted. `center_crop`: an
/// int or `(height, width)` kept at the center; `crop`: `(top, left, height, width)` (not both). `subsample`: an int
/// or `(rows, columns)`: keep every n-th. `flip_horizontal`, `flip_vertical`: mirror. `channels`: `(first, count)`
/// channels kept (`(0, 3)` drops BGRA's alpha); `reverse_channels`: BGR <-> RGB (mean and std are in the result's
/// channel order). `layout`: the result's axis order, "nchw" (default: what PyTorch models take) or "nhwc"; `out`:
/// write here instead (any writable array of the result's shape in that layout, returned); `threads` as in
/// `normalize`.
///
/// Example: a batch of BGR frames from OpenCV to a PyTorch model's input:
///
///     x = strider.normalize_image(frames, center_crop=224, reverse_channels=True, imagenet=True)
///     # float32, (N, 3, 224, 224)
#[pyfunction]
#[pyo3(signature = (images, dtype=None, *, mean=None, std=None, imagenet=false, center_crop=None, crop=None,
    subsample=None, flip_horizontal=false, flip_vertical=false, channels=None, reverse_channels=false,
    channels_last=true, layout="nchw", out=None, threads=None))]
#[allow(clippy::too_many_arguments)]
pub(crate) fn normalize_image<'py>(
    py: Python<'py>,
    images: &Bound<'py, PyAny>,
    dtype: Option<&Bound<'py, PyAny>>,
    mean: Option<&Bound<'py, PyAny>>,
    std: Option<&Bound<'py, PyAny>>,
    imagenet: bool,
    center_crop: Option<&Bound<'py, PyAny>>,
    crop: Option<(i64, i64, i64, i64)>,
    subsample: Option<&Bound<'py, PyAny>>,
    flip_horizontal: bool,
    flip_vertical: bool,
    channels: Option<(i64, i64)>,
    reverse_channels: bool,
    channels_last: bool,
    layout: &str,
    out: Option<&Bound<'py, PyAny>>,
    threads: Option<i64>,
) -> PyResult<Bound<'py, PyAny>> {
    let order = ChannelOrder::parse(Some(layout))?.unwrap_or(ChannelOrder::First);
    let xa = as_array(py, images)?;
    let ndim = xa.ndim();
    if !(3..=4).contains(&ndim) {
        return Err(PyValueError::new_err(format!(
            "images has {ndim} dimension{}; give one image (3: H, W, C or C, H, W) or a batch (4)",
            if ndim == 1 { "" } else { "s" }
        )));
    }
    let shape = xa.shape().to_vec();
    // The axes of x holding C, H and W.
    let (b0, b1, b2) = (ndim.saturating_sub(3), ndim.saturating_sub(2), ndim.saturating_sub(1));
    let (c, h, w) = if channels_last { (b2, b0, b1) } else { (b0, b1, b2) };
    let size = |axis: usize| shape[axis] as i64;
    let mut offsets = vec![0i64; ndim];
    let mut sizes: Vec<i64> = shape.iter().map(|&n| n as i64).collect();
    let mut strides = vec![1i64; ndim];
    match (center_crop, crop) {
        (Some(_), Some(_)) => return Err(PyValueError::new_err("give center_crop= or crop=, not both")),
        (Some(cc), None) => {
            let (ch, cw) = pair(cc, "center_crop")?;
            if ch < 1 || cw < 1 || ch > size(h) || cw > size(w) {
                return Err(PyValueError::new_err(format!(
                    "center_crop ({ch}, {cw}) does not fit the {}x{} images (height, width from 1 to the image's)",
                    size(h),
                    size(w)
                )));
            }
            let (top, left) = (size(h).saturating_sub(ch) / 2, size(w).saturating_sub(cw) / 2);
            (offsets[h], offsets[w], sizes[h], sizes[w]) = (top, left, ch, cw);
        }
        (None, Some((top, left, ch, cw))) => (offsets[h], offsets[w], sizes[h], sizes[w]) = (top, left, ch, cw),
        (None, None) => {}
    }
    if let Some((first, count)) = channels {
        (offsets[c], sizes[c]) = (first, count);
    }
    if let Some(s) = subsample {
        let (rows, columns) = pair(s, "subsample")?;
        if rows < 1 || columns < 1 {
            return Err(PyValueError::new_err(format!("subsample ({rows}, {columns}): steps must be at least 1")));
        }
        (strides[h], strides[w]) = (rows, columns);
    }
    for (flip, axis) in [(flip_vertical, h), (flip_horizontal, w), (reverse_channels, c)] {
        if flip {
            strides[axis] = strides[axis].saturating_neg();
        }
    }
    let window = window_spec(offsets, sizes.clone(), strides)?;

    let x = View::new(&xa, "images")?;
    let input_type = x.layout.dtype;
    let dtype = match dtype {
        Some(d) => dtype_arg(py, d)?.0,
        None => strider_core::DataType::Float32,
    };
    let mean_std = match (imagenet, mean, std) {
        (true, None, None) => Some((IMAGENET_MEAN.to_vec(), IMAGENET_STD.to_vec())),
        (true, ..) => return Err(PyValueError::new_err("give imagenet=True or mean= and std=, not both")),
        (false, Some(m), Some(s)) => Some((f32s(m, "mean")?, f32s(s, "std")?)),
        (false, None, None) => None,
        (false, ..) => return Err(PyValueError::new_err("give both mean= and std= (or imagenet=True)")),
    };
    let out_channels = u32::try_from(sizes[c]).unwrap_or(0);
    let ((scale, bias), lens) = match &mean_std {
        Some((m, s)) => {
            (mean_std_to_scale_bias(input_type, m, s, out_channels).map_err(strider_error)?, (m.len(), s.len()))
        }
        None => ((vec![1.0], vec![0.0]), (1, 1)),
    };
    let spec = Spec::Normalize {
        dtype,
        window: Some(window),
        axis: Some(c),
        scale: scale.iter().map(|v| v.to_bits()).collect(),
        bias: bias.iter().map(|v| v.to_bits()).collect(),
        lens,
    };
    match out {
        None => run_into(py, &PLANS, &spec, images, None, threads, Some(order)),
        Some(o) => {
            // `out` is in the result's layout; the operator writes it in x's axis order.
            let perm = order.perm(ndim, c);
            let counts = spec.out_shape(&x.layout);
            let want: Vec<usize> = perm.iter().map(|&a| counts[a]).collect();
            let given = as_array(py, o)?.shape().to_vec();
            if sizes.iter().all(|&n| n > 0) && given != want {
                return Err(PyValueError::new_err(format!(
                    "out has shape {given:?}; the result's is {want:?} (layout {layout:?})"
                )));
            }
            let view = o.call_method1("transpose", (inverse(&perm),))?;
            run_into(py, &PLANS, &spec, images, Some(&view), threads, None)?;
            Ok(o.clone())
        }
    }
}

/// A filter by name.
fn filter_arg(filter: &str) -> PyResult<ResizeFilter> {
    ResizeFilter::from_name(filter).ok_or_else(|| {
        PyValueError::new_err(format!(
            "filter={:?} is not a filter: give \"nearest\", \"bilinear\", \"bicubic\" or \"area\"",
            filter.to_ascii_lowercase()
        ))
    })
}

/// Resized images, most recent first: a call that repeats its tensors and filter skips computing the weights.
type Resizes = Vec<((TensorDesc, TensorDesc, ResizeFilter, bool), Arc<Resize>)>;
static RESIZES: Mutex<Resizes> = Mutex::new(Vec::new());
const RESIZES_KEPT: usize = 16;

fn resize_op(input: &TensorDesc, output: &TensorDesc, filter: ResizeFilter, antialias: bool) -> PyResult<Arc<Resize>> {
    let key = (input.clone(), output.clone(), filter, antialias);
    crate::kept(&RESIZES, key, RESIZES_KEPT, |_| Resize::new(input, output, filter, antialias).map_err(strider_error))
}

/// Resizes images as Pillow's `Image.resize` (`antialias=True`, the default) or OpenCV's `cv2.resize`
/// (`antialias=False`) do, in one pass over the input.
///
/// `x`: one image `(H, W)` or `(H, W, C)`, or a batch `(N, H, W, C)`; uint8, float16 or float32; any strides
/// (negative ones are read in place). `size`: the result's `(height, width)` (or one int for both). `filter`:
/// "nearest", "bilinear" (default), "bicubic" or "area" (Pillow's BOX, OpenCV's INTER_AREA). The result has x's
/// dtype and axis order; `out=`: write here instead (a writable array of that shape and dtype, returned); `threads`
/// as in `normalize`. uint8 results are within 1 of Pillow's or OpenCV's (Strider keeps the intermediate sums in
/// float32 where they round to integers).
///
/// Example: a thumbnail of a decoded RGB frame:
///
///     small = strider.resize(frame, (224, 224), "bicubic")
#[pyfunction]
#[pyo3(signature = (x, size, filter="bilinear", antialias=true, out=None, threads=None))]
pub(crate) fn resize<'py>(
    py: Python<'py>,
    x: &Bound<'py, PyAny>,
    size: &Bound<'py, PyAny>,
    filter: &str,
    antialias: bool,
    out: Option<&Bound<'py, PyAny>>,
    threads: Option<i64>,
) -> PyResult<Bound<'py, PyAny>> {
    let opts = thread_choice(threads)?;
    let filter = filter_arg(filter)?;
    let xa = as_array(py, x)?;
    let ndim = xa.ndim();
    if !(2..=4).contains(&ndim) {
        return Err(PyValueError::new_err(format!(
            "x has {ndim} dimension{}; give one image (2: H, W; 3: H, W, C) or a batch (4: N, H, W, C)",
            if ndim == 1 { "" } else { "s" }
        )));
    }
    let (h, w) = pair(size, "size")?;
    if h < 1 || w < 1 {
        return Err(PyValueError::new_err(format!(
            "size ({h}, {w}): the result's height and width must be at least 1"
        )));
    }
    let (h, w) = (usize::try_from(h).unwrap_or(usize::MAX), usize::try_from(w).unwrap_or(usize::MAX));
    let mut shape = xa.shape().to_vec();
    let (hy, wx) = if ndim == 4 { (1, 2) } else { (0, 1) };
    (shape[hy], shape[wx]) = (h, w);
    // Both arrays seen with sizes in {N, C, H, W} order (transposed views: nothing is copied).
    let perm: &[usize] = match ndim {
        4 => &[0, 3, 1, 2],
        3 => &[2, 0, 1],
        _ => &[0, 1],
    };
    let nchw = |a: &Bound<'py, PyAny>, what: &str| -> PyResult<View> {
        let t = as_array(py, &a.call_method1("transpose", (perm.to_vec(),))?)?;
        View::new(&t, what)
    };
    let xv = nchw(xa.as_any(), "x")?;
    let (result, _) = crate::movement::output(py, out, xv.layout.dtype, &shape)?;
    let ov = nchw(&result, "out")?;
    if !ov.writeable {
        return Err(PyValueError::new_err("out is read-only"));
    }
    if ov.overlaps(&xv) {
        return Err(PyValueError::new_err("out shares memory with x; a resize cannot run in place"));
    }
    let op = resize_op(&xv.desc, &ov.desc, filter, antialias)?;
    let (xs, os) = ((xv.base, xv.bytes), (ov.base, ov.bytes));
    let work = move || {
        // SAFETY: each view's [base, base + bytes) holds its elements inside its NumPy buffer, alive for the call
        // (the caller holds both arrays), and the two do not overlap (checked above); another Python thread
        // writing them meanwhile is a data race the caller must avoid, as with any NumPy operation that releases
        // the GIL.
        let (input, output) = unsafe {
            (std::slice::from_raw_parts(xs.0 as *const u8, xs.1), std::slice::from_raw_parts_mut(os.0 as *mut u8, os.1))
        };
        op.execute_with(input, output, &opts)
    };
    let result_bytes = os.1;
    let done = if result_bytes < GIL_RELEASE_BYTES { work() } else { py.detach(work) };
    done.map_err(strider_error)?;
    Ok(result)
}

/// YOLO's letterbox geometry of an image of `image_hw` = `(H, W)` pixels on a canvas of `size` = `(h, w)` (or one
/// int): `(scale, top, left, new_h, new_w)` with `scale = min(h / H, w / W)`, `new_h = round(H · scale)` and
/// `new_w = round(W · scale)` (half to even, as Python's `round`), `top = (h - new_h) // 2`, `left = (w - new_w) //
/// 2`.
///
/// Example: where a 720p frame goes in a 640x640 model input:
///
///     strider.letterbox_geometry((720, 1280), 640)   # (0.5, 140, 0, 360, 640)
#[pyfunction]
pub(crate) fn letterbox_geometry(image_hw: (i64, i64), size: &Bound<'_, PyAny>) -> PyResult<(f64, u32, u32, u32, u32)> {
    let (h, w) = pair(size, "size")?;
    let side = |v: i64, what: &str| {
        u32::try_from(v).map_err(|_| PyValueError::new_err(format!("{what} is {v}; it must be 1 to {}", u32::MAX)))
    };
    let image = [side(image_hw.0, "the image's height")?, side(image_hw.1, "the image's width")?];
    let size = [side(h, "the canvas height")?, side(w, "the canvas width")?];
    let g = strider_core::letterbox_geometry(image, size).map_err(strider_error)?;
    Ok((g.scale, g.top, g.left, g.height, g.width))
}

/// What `preprocess` builds for one input tensor (the input's own description, then every choice, floats as bits).
#[derive(Clone, Debug, PartialEq)]
struct PreKey {
    input: TensorDesc,
    output: TensorDesc,
    fit: (u8, [u32; 2]),
    crop: Option<[u32; 2]>,
    filter: ResizeFilter,
    antialias: bool,
    flip: bool,
    bgr_to_rgb: bool,
    scale: Vec<u32>,
    bias: Vec<u32>,
    pad: u32,
}

type Preprocessors = Vec<(PreKey, Arc<Normalize>)>;
static PREPROCESSORS: Mutex<Preprocessors> = Mutex::new(Vec::new());
/// Plans kept: a batch of images of many sizes reuses each size's.
const PREPROCESSORS_KEPT: usize = 64;

impl PreKey {
    /// The builder of these choices (`output`: none yet, for the result's sizes).
    fn builder(&self, output: Option<&TensorDesc>) -> strider_core::ImageNormalize {
        let f = |bits: &[u32]| bits.iter().map(|&b| f32::from_bits(b)).collect::<Vec<f32>>();
        let b = Normalize::image(&self.input).antialias(self.antialias);
        let b = match self.fit {
            (1, [h, w]) => b.resize(h, w, self.filter),
            (2, [s, _]) => b.resize_shorter(s, self.filter),
            (3, [h, w]) => b.letterbox(h, w, self.filter, f32::from_bits(self.pad)),
            _ => b,
        };
        let b = match self.crop {
            Some([h, w]) => b.center_crop(h, w),
            None => b,
        };
        let b = if self.flip { b.flip_horizontal() } else { b };
        let b = if self.bgr_to_rgb { b.reverse_channels() } else { b };
        let b = b.scale_bias(&f(&self.scale), &f(&self.bias)).output_type(self.output.data_type());
        match output {
            Some(o) => b.output_tensor(o),
            None => b,
        }
    }
}

/// A positive side as u32 (`what` names it).
fn side(v: i64, what: &str) -> PyResult<u32> {
    u32::try_from(v)
        .ok()
        .filter(|&n| n >= 1)
        .ok_or_else(|| PyValueError::new_err(format!("{what} is {v}; it must be 1 to {}", u32::MAX)))
}

/// Decoded images to a model's input batch in one pass per image: resize (stretched, by the shorter side or
/// letterboxed), center crop, horizontal flip, BGR -> RGB, normalization by a mean and standard deviation, cast and
/// layout — what OpenCV's `resize` and `blobFromImages`, or torchvision's `Resize`, `CenterCrop`, `ToTensor` and
/// `Normalize` do in four to six passes. The resized pixels stay float32 inside the pass (never rounded to uint8).
///
/// `images`: a batch `(N, H, W, C)`, a list of images `(H, W, C)` of any sizes (each its own plan, cached per
/// size), or one image `(H, W, C)`; uint8, float16 or float32, the same dtype and channel count for all; any
/// strides. `size`: `(height, width)` or one int, the result's size for `resize="stretch"` and `"letterbox"`, the
/// shorter side for `"shorter"` (torchvision's `Resize(int)`); ignored for `resize=None`. `crop`: `(height, width)`
/// or one int, a center crop after the resize (torchvision's `center_crop`). `filter`: "nearest", "bilinear"
/// (default), "bicubic" or "area"; `antialias`: Pillow's filters (default) or OpenCV's. `mean`, `std`: one value or
/// one per channel, in the input's units (0..255 for uint8) and the result's channel order: `y = (x - mean) / std`.
/// `pad_value`: a letterbox's canvas, in input units (114: YOLO's grey). `dtype`: the result's (default float32);
/// `layout`: "nchw" (default) or "nhwc". The result is `(N, C, h, w)` (`(C, h, w)` for one image); `out=`: write here
/// instead (a writable array of that shape and dtype, any strides, returned). `threads` as in `normalize`: a batch's
/// images run one per thread.
///
/// Example: ImageNet classification input from OpenCV frames of any sizes:
///
///     x = strider.preprocess(frames, 256, resize="shorter", crop=224, bgr_to_rgb=True,
///                            mean=(123.675, 116.28, 103.53), std=(58.395, 57.12, 57.375))
#[pyfunction]
#[pyo3(signature = (images, size, *, resize=Some("stretch"), crop=None, filter="bilinear", antialias=true, flip=false,
    bgr_to_rgb=false, mean=None, std=None, pad_value=0.0, dtype=None, layout="nchw", out=None, threads=None))]
#[allow(clippy::too_many_arguments)]
pub(crate) fn preprocess<'py>(
    py: Python<'py>,
    images: &Bound<'py, PyAny>,
    size: Option<&Bound<'py, PyAny>>,
    resize: Option<&str>,
    crop: Option<&Bound<'py, PyAny>>,
    filter: &str,
    antialias: bool,
    flip: bool,
    bgr_to_rgb: bool,
    mean: Option<&Bound<'py, PyAny>>,
    std: Option<&Bound<'py, PyAny>>,
    pad_value: f64,
    dtype: Option<&Bound<'py, PyAny>>,
    layout: &str,
    out: Option<&Bound<'py, PyAny>>,
    threads: Option<i64>,
) -> PyResult<Bound<'py, PyAny>> {
    let opts = thread_choice(threads)?;
    let filter = filter_arg(filter)?;
    let order = ChannelOrder::parse(Some(layout))?.unwrap_or(ChannelOrder::First);
    let size_pair = || -> PyResult<[u32; 2]> {
        let s = size.ok_or_else(|| PyValueError::new_err(format!("resize={resize:?} needs a size")))?;
        let (h, w) = pair(s, "size")?;
        Ok([side(h, "size's height")?, side(w, "size's width")?])
    };
    let fit = match resize {
        None => (0, [0, 0]),
        Some("stretch") => (1, size_pair()?),
        Some("shorter") => {
            let s = size.ok_or_else(|| PyValueError::new_err("resize=\"shorter\" needs a size (an int)"))?;
            let s = s.extract::<i64>().map_err(|_| PyTypeError::new_err("resize=\"shorter\" takes an int size"))?;
            (2, [side(s, "size")?, 0])
        }
        Some("letterbox") => (3, size_pair()?),
        Some(other) => {
            return Err(PyValueError::new_err(format!(
                "resize={other:?}: give \"stretch\", \"shorter\", \"letterbox\" or None"
            )));
        }
    };
    let crop = match crop {
        Some(c) => {
            let (h, w) = pair(c, "crop")?;
            Some([side(h, "crop's height")?, side(w, "crop's width")?])
        }
        None => None,
    };
    let pad = pad_value as f32;
    if !pad.is_finite() {
        return Err(PyValueError::new_err(format!("pad_value is {pad_value}; it must be a finite float32")));
    }
    // The images: one array per image, each seen as {C, H, W} (or one {N, C, H, W} batch).
    let list = images.cast::<pyo3::types::PyList>().ok().map(|l| l.iter().collect::<Vec<_>>());
    let list = list.or_else(|| images.cast::<pyo3::types::PyTuple>().ok().map(|t| t.iter().collect()));
    let (arrays, batched) = match list {
        Some(l) if l.is_empty() => return Err(PyValueError::new_err("images is an empty list")),
        Some(l) => (l, true),
        None => (vec![images.clone()], false),
    };
    let mut views = Vec::with_capacity(arrays.len());
    for (i, a) in arrays.iter().enumerate() {
        let xa = as_array(py, a)?;
        let what = if batched { format!("images[{i}]") } else { "images".to_owned() };
        let perm: Vec<usize> = match (xa.ndim(), batched) {
            (3, _) => vec![2, 0, 1],
            (4, false) => vec![0, 3, 1, 2],
            (n, true) => {
                return Err(PyValueError::new_err(format!("{what} has {n} dimensions; each image is (H, W, C)")));
            }
            (n, false) => {
                return Err(PyValueError::new_err(format!(
                    "images has {n} dimensions; give a batch (N, H, W, C), a list of (H, W, C) images or one image"
                )));
            }
        };
        let t = as_array(py, &xa.call_method1("transpose", (perm,))?)?;
        views.push((View::new(&t, &what)?, what));
    }
    let (first, _) = &views[0];
    // Each view is {C, H, W} or {N, C, H, W}: C is its third dimension from the end.
    let channels_of = |v: &View| v.desc.sizes().iter().rev().nth(2).copied().unwrap_or(0);
    let (input_type, channels) = (first.layout.dtype, channels_of(first));
    for (v, what) in &views[1..] {
        let c = channels_of(v);
        if v.layout.dtype != input_type || c != channels {
            return Err(PyValueError::new_err(format!(
                "{what} is {} with {c} channels but images[0] is {} with {channels}: a batch has one dtype and channel count",
                v.layout.dtype.short_name(),
                input_type.short_name()
            )));
        }
    }
    let dtype = match dtype {
        Some(d) => dtype_arg(py, d)?.0,
        None => DataType::Float32,
    };
    // mean and std in input units: x · (1/std) + (−mean/std), each rounded once from float64.
    let (mean, std) = (
        mean.map(|m| floats(m, "mean")).transpose()?.unwrap_or_else(|| vec![0.0]),
        std.map(|s| floats(s, "std")).transpose()?.unwrap_or_else(|| vec![1.0]),
    );
    let n = mean.len().max(std.len());
    for (what, v) in [("mean", &mean), ("std", &std)] {
        if v.len() != 1 && v.len() != n {
            return Err(PyValueError::new_err(format!("{what} has {} values; give 1 or one per channel", v.len())));
        }
    }
    if let Some(i) = std.iter().position(|&s| s == 0.0) {
        return Err(PyValueError::new_err(format!("std[{i}] is 0")));
    }
    let at = |v: &[f64], k: usize| if v.len() == 1 { v[0] } else { v[k] };
    let scale: Vec<u32> = (0..n).map(|k| ((1.0 / at(&std, k)) as f32).to_bits()).collect();
    let bias: Vec<u32> = (0..n).map(|k| ((-at(&mean, k) / at(&std, k)) as f32).to_bits()).collect();
    let key = |input: &TensorDesc, output: TensorDesc| PreKey {
        input: input.clone(),
        output,
        fit,
        crop,
        filter,
        antialias,
        flip,
        bgr_to_rgb,
        scale: scale.clone(),
        bias: bias.clone(),
        pad: pad.to_bits(),
    };
    // The result's sizes, from the first image (every image must give the same).
    let placeholder = TensorDesc::new(dtype, &[1]).map_err(strider_error)?;
    let sizes_of = |v: &View| -> PyResult<Vec<u32>> {
        let out = key(&v.desc, placeholder.clone()).builder(None).output_desc().map_err(strider_error)?;
        Ok(out.sizes().to_vec())
    };
    let sizes = sizes_of(first)?;
    for (v, what) in &views[1..] {
        let s = sizes_of(v)?;
        if s != sizes {
            return Err(PyValueError::new_err(format!(
                "{what} gives a result of {s:?} but images[0] one of {sizes:?}; give a crop= (or resize=\"stretch\" or \"letterbox\") that all images share"
            )));
        }
    }
    // The result: {C, h, w} per image, after N for a list or a batch, in the layout asked for.
    let rank = sizes.len();
    let mut shape: Vec<usize> = match (batched, rank) {
        (true, _) => vec![views.len()],
        (false, 4) => vec![sizes[0] as usize],
        _ => Vec::new(),
    };
    let [c, h, w] = [2, 1, 0].map(|k| sizes.iter().rev().nth(k).map_or(0, |&n| n as usize));
    shape.extend(match order {
        ChannelOrder::First => [c, h, w],
        ChannelOrder::Last => [h, w, c],
    });
    let (result, _) = crate::movement::output(py, out, dtype, &shape)?;
    // The axes of the result (or of one of its images) in {N, C, H, W} order.
    let chw = |ndim: usize| -> Vec<usize> {
        match (order, ndim) {
            (ChannelOrder::First, n) => (0..n).collect(),
            (ChannelOrder::Last, 4) => vec![0, 3, 1, 2],
            (ChannelOrder::Last, _) => vec![2, 0, 1],
        }
    };
    let mut jobs = Vec::with_capacity(views.len());
    for (i, (v, _)) in views.iter().enumerate() {
        let slot = if batched { result.get_item(i)? } else { result.clone() };
        let o = View::new(&as_array(py, &slot.call_method1("transpose", (chw(rank),))?)?, "out")?;
        if !o.writeable {
            return Err(PyValueError::new_err("out is read-only"));
        }
        if let Some((_, other)) = views.iter().find(|(u, _)| o.overlaps(u)) {
            return Err(PyValueError::new_err(format!("out shares memory with {other}")));
        }
        let k = key(&v.desc, o.desc.clone());
        let op = crate::kept(&PREPROCESSORS, k, PREPROCESSORS_KEPT, |k| {
            k.builder(Some(&k.output)).build().map_err(strider_error)
        })?;
        jobs.push((op, (v.base, v.bytes), (o.base, o.bytes)));
    }
    // Each image's slot is a byte range of its own (a given `out` with N innermost interleaves them: refused).
    let mut ranges: Vec<(usize, usize)> = jobs.iter().map(|j| (j.2.0, j.2.0.saturating_add(j.2.1))).collect();
    ranges.sort_unstable();
    if ranges.windows(2).any(|p| p[1].0 < p[0].1) {
        return Err(PyValueError::new_err(
            "out's images share a range of memory; give an out whose images are apart (N its outermost axis)",
        ));
    }
    let result_bytes: usize = jobs.iter().map(|j| j.2.1).sum();
    let work = move || {
        let mut slices: Vec<(&Normalize, &[u8], &mut [u8])> = Vec::with_capacity(jobs.len());
        for (op, (ib, il), (ob, ol)) in &jobs {
            // SAFETY: each view's [base, base + bytes) holds its elements inside its NumPy buffer, alive for the
            // call (the caller holds the arrays); no output range shares memory with an input (checked above), and
            // the slots' ranges are apart (checked above). Another Python thread writing them meanwhile is a data
            // race the caller must avoid, as with any NumPy operation that releases the GIL.
            let (input, output) = unsafe {
                (std::slice::from_raw_parts(*ib as *const u8, *il), std::slice::from_raw_parts_mut(*ob as *mut u8, *ol))
            };
            slices.push((&**op, input, output));
        }
        Normalize::execute_batch(&mut slices, &opts)
    };
    let done = if result_bytes < GIL_RELEASE_BYTES { work() } else { py.detach(work) };
    done.map_err(strider_error)?;
    Ok(result)
}
