//! `normalize_image`: the everyday image preprocessing (crop, flips, channel order, mean/std, output type and
//! layout) by name, as the Rust builder `Normalize::image` spells it, for arrays of decoded images. It computes
//! `normalize`'s window and parameters from the image's shape and runs the same fused operator.

use numpy::PyUntypedArrayMethods;
use pyo3::exceptions::{PyTypeError, PyValueError};
use pyo3::prelude::*;
use std::sync::{Arc, Mutex};

use strider_core::{IMAGENET_MEAN, IMAGENET_STD, Resize, ResizeFilter, TensorDesc, mean_std_to_scale_bias};

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
    let filter = match filter.to_ascii_lowercase().as_str() {
        "nearest" => ResizeFilter::Nearest,
        "bilinear" | "linear" => ResizeFilter::Bilinear,
        "bicubic" | "cubic" => ResizeFilter::Bicubic,
        "area" | "box" => ResizeFilter::Area,
        other => {
            return Err(PyValueError::new_err(format!(
                "filter={other:?} is not a filter: give \"nearest\", \"bilinear\", \"bicubic\" or \"area\""
            )));
        }
    };
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
