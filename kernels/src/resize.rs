//! Image resize: a separable filter whose weights are computed once per plan ([`Taps`]: Pillow's antialiased
//! filters or OpenCV's sampled ones), run as a horizontal pass over blocks of input rows into a strip of f32 rows,
//! then a vertical pass out of the strip, converted into the output.
//!
//! The horizontal pass works on `R` input rows at once, one row per register lane: the rows' elements are staged
//! transposed, so every tap of every output element is a few whole-register operations with a broadcast weight,
//! whatever the channel count or the number of taps. Float inputs: `R` = the level's f32 lanes, one multiply and one
//! add per tap. u8 inputs: 16 rows of bytes, weights in fixed point ([`Fixed`]), two taps per `vpmaddwd` (the
//! columns paired first, [`Paired`]), exact i32 sums turned into f32 input units. The vertical pass combines whole
//! f32 strip rows. Every lane computes its sum in the same order with separately rounded products and sums (no fused
//! multiply-add), or exactly in integers, so every level and thread count gives the same bits.
//!
//! u8 images that shrink in height filter their rows first ([`vertical_first`], [`RowsFirst`]): each output row
//! a fixed-point sum of its input rows, rounded to 1/128 of a unit (i16), then 16 such rows filtered across in
//! fixed point as above, with i16 lanes.
//!
//! PERF (one thread, Zen 4 VM, u8 1920×1080×3 → 224×224 bilinear antialiased): f32 lanes with per-element staging
//! 5.0 ms; staged through register tiles 2.0–2.5 ms; u8 in fixed point 1.1–1.2 ms, its 16×32 byte tiles (loads in a
//! loop: `array::from_fn` left them out of line) 0.82 ms, the channels of a pixel in one pass over its taps
//! 0.75–0.82 ms; rows first, in f32 after the rows 0.60–0.64 ms, whole rows and one shuffle per 16 bytes 0.555,
//! the rows in 1/128 units and their columns in fixed point 0.455, 128 bytes per step 0.45. Peers in the same
//! session: fast_image_resize 0.51 ms (AVX2), torch 0.70 ms, Pillow 6.4 ms.

use crate::arch::{Arch, Ident, Job, PixelPairs, RowWeights};
use crate::convert::ElemType;
use crate::exec::{ExecOptions, RunError, SendPtr, chunks_for, level, pool, share};
use crate::float::{f16_to_f32_scalar, f32_to_f16_scalar};
use crate::plan::{Dim, ElementOp, Plan};
use crate::walk::{PlanError, Walk, reach};

/// A resampling filter.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
#[non_exhaustive]
pub enum Filter {
    /// The nearest input pixel: Pillow's `NEAREST` (the pixel under the output pixel's center) when antialiased,
    /// OpenCV's `INTER_NEAREST` (the pixel under its top-left corner) when not.
    Nearest,
    /// Linear interpolation (triangle filter): Pillow's `BILINEAR`, OpenCV's `INTER_LINEAR`.
    Bilinear,
    /// Cubic convolution: Pillow's `BICUBIC` (a = −0.5), OpenCV's `INTER_CUBIC` (a = −0.75).
    Bicubic,
    /// The mean over the input area an output pixel covers (box filter): Pillow's `BOX`, OpenCV's `INTER_AREA`.
    Area,
}

impl Filter {
    /// The filter of a name, in any case: `nearest`, `bilinear` (or `linear`), `bicubic` (or `cubic`), `area` (or
    /// `box`, Pillow's name); `None` for any other.
    ///
    /// ```
    /// use strider_kernels::Filter;
    /// assert_eq!(Filter::from_name("Box"), Some(Filter::Area));
    /// assert_eq!(Filter::from_name("lanczos"), None);
    /// ```
    pub fn from_name(name: &str) -> Option<Filter> {
        Some(match name.to_ascii_lowercase().as_str() {
            "nearest" => Filter::Nearest,
            "bilinear" | "linear" => Filter::Bilinear,
            "bicubic" | "cubic" => Filter::Bicubic,
            "area" | "box" => Filter::Area,
            _ => return None,
        })
    }
}

/// The weights of one axis: output `i` is `Σₜ weights[i·taps + t] · input[start[i] + t]`, every window inside the
/// input (OpenCV's replicated borders are folded into the edge pixel's weight).
#[derive(Clone, Debug, PartialEq)]
pub struct Taps {
    taps: usize,
    start: Vec<usize>,
    weights: Vec<f32>,
}

impl Taps {
    /// The weights of both axes, `[rows, columns]`, of a resize from `input` to `output` pixels (`[height, width]`,
    /// each at least 1). `antialias`: Pillow's definition (the filter widened by the scale when downscaling);
    /// otherwise OpenCV's (sampled at the output pixel's center mapped back, `INTER_AREA` averaging the covered
    /// area when neither axis grows).
    pub fn axes(input: [usize; 2], output: [usize; 2], filter: Filter, antialias: bool) -> [Taps; 2] {
        let grows = (0..2).any(|a| output[a] > input[a]);
        [0, 1].map(|a| {
            let lists = if antialias {
                pillow(input[a], output[a], filter)
            } else {
                opencv(input[a], output[a], filter, !grows)
            };
            Taps::pack(input[a], &lists)
        })
    }

    /// Windows of at most `input` taps from per-output lists of (input index, weight).
    fn pack(input: usize, lists: &[Vec<(usize, f64)>]) -> Taps {
        let span = |l: &Vec<(usize, f64)>| {
            let lo = l.iter().map(|p| p.0).min().unwrap_or(0);
            let hi = l.iter().map(|p| p.0).max().unwrap_or(0);
            (lo, hi - lo + 1)
        };
        let taps = lists.iter().map(|l| span(l).1).max().unwrap_or(1).clamp(1, input.max(1));
        let mut start = Vec::with_capacity(lists.len());
        let mut weights = vec![0f32; lists.len() * taps];
        for (i, l) in lists.iter().enumerate() {
            let s = span(l).0.min(input - taps);
            let mut w = vec![0f64; taps];
            for &(x, v) in l {
                w[x - s] += v;
            }
            for (d, v) in weights[i * taps..][..taps].iter_mut().zip(w) {
                *d = v as f32;
            }
            start.push(s);
        }
        Taps { taps, start, weights }
    }

    /// Taps per output element.
    pub fn taps(&self) -> usize {
        self.taps
    }

    /// The first input index of each output element's window.
    pub fn start(&self) -> &[usize] {
        &self.start
    }

    /// `taps` weights per output element.
    pub fn weights(&self) -> &[f32] {
        &self.weights
    }

    /// The outputs `first + i·step`, `i < count` (inside the axis: checked by the caller), as an axis of their own.
    fn pick(&self, first: usize, step: usize, count: usize) -> Taps {
        let outputs = (0..count).map(|i| first + i * step);
        Taps {
            taps: self.taps,
            start: outputs.clone().map(|j| self.start[j]).collect(),
            weights: outputs.flat_map(|j| &self.weights[j * self.taps..][..self.taps]).copied().collect(),
        }
    }

    /// The input indices `[lo, hi)` the outputs `range` read.
    fn reads(&self, range: core::ops::Range<usize>) -> (usize, usize) {
        (self.start[range.start], self.start[range.end - 1] + self.taps)
    }
}

/// Pillow's `precompute_coeffs` (`Resample.c`), in f64 as there, and its affine `NEAREST`.
fn pillow(input: usize, output: usize, filter: Filter) -> Vec<Vec<(usize, f64)>> {
    let scale = input as f64 / output as f64;
    let (support, f): (f64, fn(f64) -> f64) = match filter {
        Filter::Nearest => {
            // `ImagingScaleAffine`: the source coordinate accumulated from the first pixel's center.
            let mut x = scale * 0.5;
            return (0..output)
                .map(|_| {
                    let i = (x as usize).min(input - 1);
                    x += scale;
                    vec![(i, 1.0)]
                })
                .collect();
        }
        Filter::Area => (0.5, |x| if x > -0.5 && x <= 0.5 { 1.0 } else { 0.0 }),
        Filter::Bilinear => (1.0, |x: f64| (1.0 - x.abs()).max(0.0)),
        Filter::Bicubic => (2.0, |x: f64| {
            const A: f64 = -0.5;
            let x = x.abs();
            if x < 1.0 {
                ((A + 2.0) * x - (A + 3.0)) * x * x + 1.0
            } else if x < 2.0 {
                (((x - 5.0) * x + 8.0) * x - 4.0) * A
            } else {
                0.0
            }
        }),
    };
    let filterscale = scale.max(1.0);
    let support = support * filterscale;
    let ss = 1.0 / filterscale;
    (0..output)
        .map(|xx| {
            let center = (xx as f64 + 0.5) * scale;
            // C's `(int)` truncates toward zero, as `as` does.
            let lo = ((center - support + 0.5) as i64).max(0) as usize;
            let hi = ((center + support + 0.5) as i64).clamp(lo as i64 + 1, input as i64) as usize;
            let w: Vec<f64> = (lo..hi).map(|x| f((x as f64 - center + 0.5) * ss)).collect();
            let ww: f64 = w.iter().sum();
            (lo..hi).zip(w).map(|(x, w)| (x, if ww != 0.0 { w / ww } else { w })).collect()
        })
        .collect()
}

/// OpenCV's `resize` (`imgproc/src/resize.cpp`): the f32 sample position and weights of `INTER_LINEAR`,
/// `INTER_CUBIC` and the growing `INTER_AREA`, `INTER_NEAREST`'s `floor(x·scale)`, and the area table of a
/// shrinking `INTER_AREA` (`area_table`: neither axis grows). Indices outside the input replicate the edge.
fn opencv(input: usize, output: usize, filter: Filter, area_table: bool) -> Vec<Vec<(usize, f64)>> {
    let inv_scale = output as f64 / input as f64;
    let scale = 1.0 / inv_scale;
    let clamp = |i: i64| i.clamp(0, input as i64 - 1) as usize;
    (0..output)
        .map(|dx| {
            match filter {
                Filter::Nearest => return vec![(clamp((dx as f64 * scale).floor() as i64), 1.0)],
                Filter::Area if area_table => return area_weights(input, dx, scale),
                _ => {}
            }
            let (sx, fx) = if filter == Filter::Area {
                let sx = (dx as f64 * scale).floor();
                let fx = ((dx + 1) as f64 - (sx + 1.0) * inv_scale) as f32;
                (sx as i64, if fx <= 0.0 { 0.0 } else { fx - fx.floor() })
            } else {
                let f = ((dx as f64 + 0.5) * scale - 0.5) as f32;
                let sx = f.floor();
                (sx as i64, f - sx)
            };
            if filter == Filter::Bicubic {
                const A: f32 = -0.75;
                let c0 = ((A * (fx + 1.0) - 5.0 * A) * (fx + 1.0) + 8.0 * A) * (fx + 1.0) - 4.0 * A;
                let c1 = ((A + 2.0) * fx - (A + 3.0)) * fx * fx + 1.0;
                let c2 = ((A + 2.0) * (1.0 - fx) - (A + 3.0)) * (1.0 - fx) * (1.0 - fx) + 1.0;
                let c3 = 1.0 - c0 - c1 - c2;
                [c0, c1, c2, c3].iter().zip(-1..).map(|(&c, k)| (clamp(sx + k), f64::from(c))).collect()
            } else {
                vec![(clamp(sx), f64::from(1.0 - fx)), (clamp(sx + 1), f64::from(fx))]
            }
        })
        .collect()
}

/// OpenCV's `computeResizeAreaTab` for output `dx`: the covered input pixels weighted by the part covered.
fn area_weights(input: usize, dx: usize, scale: f64) -> Vec<(usize, f64)> {
    let fsx1 = dx as f64 * scale;
    let fsx2 = fsx1 + scale;
    let cell = scale.min(input as f64 - fsx1);
    let sx2 = (fsx2.floor() as i64).min(input as i64 - 1);
    let sx1 = (fsx1.ceil() as i64).min(sx2);
    let mut w = Vec::new();
    if sx1 as f64 - fsx1 > 1e-3 {
        w.push(((sx1 - 1) as usize, f64::from(((sx1 as f64 - fsx1) / cell) as f32)));
    }
    for sx in sx1..sx2 {
        w.push((sx as usize, f64::from((1.0 / cell) as f32)));
    }
    if fsx2 - sx2 as f64 > 1e-3 {
        w.push((sx2 as usize, f64::from(((fsx2 - sx2 as f64).min(1.0).min(cell) / cell) as f32)));
    }
    w
}

/// What to resize: `images × channels` planes of `in_size` pixels into `out_size` (`[height, width]`), each
/// operand addressed by a base and byte strides in `[image, channel, row, column]` order.
#[derive(Clone, Debug, PartialEq)]
pub struct ResizePlan {
    /// The element type of both operands: `U8`, `F16` or `F32`.
    pub ty: ElemType,
    /// Images.
    pub images: usize,
    /// Channels per pixel.
    pub channels: usize,
    /// Input `[height, width]`.
    pub in_size: [usize; 2],
    /// Output `[height, width]`.
    pub out_size: [usize; 2],
    /// Byte offset of the input's first element.
    pub in_base: usize,
    /// Input byte strides, `[image, channel, row, column]`.
    pub in_strides: [isize; 4],
    /// Byte offset of the output's first element.
    pub out_base: usize,
    /// Output byte strides, `[image, channel, row, column]`.
    pub out_strides: [isize; 4],
    /// The filter.
    pub filter: Filter,
    /// Pillow's antialiased definition (`true`) or OpenCV's (`false`); see [`Taps::axes`].
    pub antialias: bool,
    /// The size the filter resizes to, `[height, width]`: the output holds the window [`ResizePlan::pick`] of it
    /// (`out_size` itself for a plain resize).
    pub resized: [usize; 2],
    /// Per axis, `(first, step)`: output row (column) `i` is resized row (column) `first + i·step`, `step ≥ 1`
    /// (`(0, 1)` for a plain resize). A crop or a subsampling of the resized image, computed only where it is kept.
    pub pick: [(usize, usize); 2],
    /// The output's element type: `ty` unless an epilogue converts.
    pub out_ty: ElemType,
    /// What happens to each resized value before it is stored; `None`: it is stored as `ty` (u8 rounded half up,
    /// as Pillow and OpenCV round).
    pub epilogue: Option<Epilogue>,
}

impl ResizePlan {
    /// A plain resize of `images × channels` planes of element type `ty` from `in_size` to `out_size` (`[height,
    /// width]`), over the operands' bases and byte strides (`[image, channel, row, column]`): the whole resized image,
    /// stored as `ty`. Set the other fields for a window, a conversion or a normalization.
    #[allow(clippy::too_many_arguments)] // the geometry of two operands
    pub fn new(
        ty: ElemType,
        images: usize,
        channels: usize,
        in_size: [usize; 2],
        out_size: [usize; 2],
        (in_base, in_strides): (usize, [isize; 4]),
        (out_base, out_strides): (usize, [isize; 4]),
        filter: Filter,
        antialias: bool,
    ) -> ResizePlan {
        ResizePlan {
            ty,
            images,
            channels,
            in_size,
            out_size,
            in_base,
            in_strides,
            out_base,
            out_strides,
            filter,
            antialias,
            resized: out_size,
            pick: [(0, 1); 2],
            out_ty: ty,
            epilogue: None,
        }
    }
}

/// The per-channel step that follows a resize in a fused pass (Normalize's): each resized f32 value `v` becomes
/// `convert(clamp(v) · scale[c] + bias[c])` in the output's type — a product then a sum, each rounded to nearest
/// even in f32 (never fused), converted rounding half to even and saturating (NaN → 0), as `Normalize` does.
#[derive(Clone, Debug, PartialEq)]
pub struct Epilogue {
    /// `(scale, bias)` per channel, in the input's channel order, or one pair for all channels.
    pub pairs: Vec<[f32; 2]>,
    /// Bounds each value is clamped to before it is scaled (an integer input's range: the resized image of a u8
    /// image is a u8 image, whose overshooting filters saturate), or none.
    pub clamp: Option<[f32; 2]>,
}

/// The weights of one axis in fixed point: `pairs` holds `per` pairs of i16 weights per output element (the last one
/// padded with a weight of 0 for an odd tap count), each `round(w · 2^shift)`, the largest of an element's adjusted
/// so that they still sum to `round(Σw · 2^shift)` (a flat image stays flat); `scale` = 2^−shift. `odd` holds the
/// same weights `per_odd` pairs per element after a first weight of 0: the element's window started a column early,
/// on an even column of a horizontal pass's pairs of staged columns ([`pair_columns`]).
#[derive(Clone, Debug)]
struct Fixed {
    pairs: Vec<i32>,
    per: usize,
    odd: Vec<i32>,
    per_odd: usize,
    scale: f32,
    shift: u32,
}

impl Fixed {
    /// The finest `shift` (at most 22) whose weights fit i16 and whose sums of `top`·|w| fit i32, for data of at
    /// most `top` in magnitude (255 for u8 pixels, i16::MAX for rows in 1/128 units).
    fn new(cols: &Taps, top: i64) -> Fixed {
        let k = cols.taps;
        let columns: Vec<&[f32]> = cols.weights.chunks(k).collect();
        let mut shift = 22;
        let quantize = |w: &[f32], shift: i32| -> Vec<i32> {
            let one = f64::from(shift).exp2();
            let mut q: Vec<i32> = w.iter().map(|&v| (f64::from(v) * one).round() as i32).collect();
            let want = (w.iter().map(|&v| f64::from(v)).sum::<f64>() * one).round() as i32;
            let have: i32 = q.iter().sum();
            if let Some(big) = (0..q.len()).max_by_key(|&t| q[t].abs()) {
                q[big] += want - have;
            }
            q
        };
        let fits = |q: &[i32]| {
            q.iter().all(|v| v.abs() <= i32::from(i16::MAX))
                && q.iter().map(|v| top * i64::from(v.abs())).sum::<i64>() < 1 << 31
        };
        while shift > 0 && !columns.iter().all(|w| fits(&quantize(w, shift))) {
            shift -= 1;
        }
        // Pairs of weights, the last padded with 0.
        let paired = |q: &[i32], out: &mut Vec<i32>| {
            for t in (0..q.len()).step_by(2) {
                let hi = q.get(t + 1).copied().unwrap_or(0);
                out.push((q[t] & 0xFFFF) | (hi << 16));
            }
        };
        let (mut pairs, mut odd) = (Vec::new(), Vec::new());
        for w in &columns {
            let q = quantize(w, shift);
            paired(&q, &mut pairs);
            paired(&[&[0][..], &q].concat(), &mut odd);
        }
        let (per, per_odd) = (k.div_ceil(2), (k + 1).div_ceil(2));
        Fixed { pairs, per, odd, per_odd, scale: (-f64::from(shift)).exp2() as f32, shift: shift as u32 }
    }

    /// The columns `first + i·step`, `i < count` (as [`Taps::pick`]).
    fn pick(&self, first: usize, step: usize, count: usize) -> Fixed {
        let pick = |v: &[i32], per: usize| -> Vec<i32> {
            (0..count).flat_map(|i| &v[(first + i * step) * per..][..per]).copied().collect()
        };
        Fixed { pairs: pick(&self.pairs, self.per), odd: pick(&self.odd, self.per_odd), ..*self }
    }

    /// The weight pairs of element `x` whose window starts on an odd column (`odd`: a column early, see `odd`) or
    /// an even one. (Inline: called once per output pixel from the taps loops, where a call cost about 2 % of an
    /// AVX2 bicubic resize.)
    #[inline(always)]
    fn window(&self, x: usize, odd: bool) -> &[i32] {
        if odd { &self.odd[x * self.per_odd..][..self.per_odd] } else { &self.pairs[x * self.per..][..self.per] }
    }
}

/// The weights of a u8 resize filtered rows first ([`vertical_first`]): the rows' over u8 pixels
/// ([`Arch::rows_u8_q7`]: each output row's sums rounded to 1/128 of an input unit, an error of at most 1/256 before
/// the columns), then the columns' over those rows ([`Arch::taps_i16`]), both in fixed point.
///
/// The rows are summed in `pieces` of the spans (`[s0, s1)` of `ResizeProgram::spans`): the whole width at once
/// when an input row is longer than four spans (its tap rows then read front to back, where a span at a time read
/// ~50 rows 512 bytes at a time and summed the columns two spans' taps share twice), else a span at a time (the
/// rows of a span stay in L1).
///
/// PERF (one thread, Zen 4 VM, u8 RGB bilinear antialiased, AVX-512 / AVX2 level, ms): span at a time → whole
/// width: 1920×1080 → 224² 0.615 → 0.555 / 0.70 → 0.605; 2560×1600 → 320×200 0.95–1.02 → 0.84–0.85 / 1.04 →
/// 0.90; 4928×3279 → 852×567 5.3–5.5 → 5.0–5.4 / 5.8–6.3 → 5.4–5.8; 8 cold 1280×720 frames → letterbox 640
/// (rows of 3840 bytes; `strider bench`, AVX-512, five alternations) 6.91 → 6.21 sampled, 7.86 → 7.41
/// antialiased. But 32 cold 640×480 images → shorter 256, crop 224 (rows of 1275 bytes): whole width 13 % slower
/// (5.25 → 5.95 ms, AVX-512), a span at a time 5.11.
#[derive(Clone, Debug)]
struct RowsFirst {
    rows: Fixed,
    cols: Fixed,
    pieces: Vec<(usize, usize)>,
}

/// Lanes `lanes` of the horizontal sums of output columns `xs` (`sums`: `(xs.len()·g) × R`, lane `l` one row) into
/// rows `0..lanes.len()` of `rows` (`row_len` each, `stride` apart): the group's pixels as they come, or as planes
/// (channel `c`'s pixels at `c · width` on).
#[inline(always)]
fn spill<A: Arch, const R: usize>(
    a: A,
    pr: &ResizeProgram,
    sums: &[f32],
    lanes: core::ops::Range<usize>,
    rows: &mut [f32],
    xs: core::ops::Range<usize>,
    stride: usize,
) {
    let g = pr.group;
    let width = pr.plan.out_size[1];
    let row_len = width * g;
    let (n, m) = (lanes.len(), xs.len() * g);
    assert!(
        lanes.end <= R
            && sums.len() >= m * R
            && stride >= row_len
            && rows.len() >= n.saturating_sub(1) * stride + row_len
            && xs.end <= width
    );
    let src = sums[lanes.start..].as_ptr();
    if pr.planar {
        for c in 0..g {
            let dst = rows[c * width + xs.start..].as_mut_ptr();
            // SAFETY: `sums` holds m rows of R (checked), channel c's every g-th from row c, lanes `lanes` of them;
            // rows `0..n` of `rows`, `stride` apart, hold xs.len() elements of plane c from xs.start on (checked).
            unsafe { transpose(a, src.add(c * R), g * R, dst, stride, m / g, n) };
        }
    } else {
        let dst = rows[xs.start * g..].as_mut_ptr();
        // SAFETY: `sums` holds m rows of R, lanes `lanes` of them; rows `0..n` of `rows`, `stride` apart, hold
        // row_len elements from xs.start·g on (checked).
        unsafe { transpose(a, src, R, dst, stride, m, n) };
    }
}

/// The shortest row pitch of at least `n` elements of `size` bytes that is an odd number of 64-byte lines: the rows
/// of a block that many lines apart fall in different L1 sets.
///
/// PERF (one thread, Zen 4 VM, u8 640×480×3 → 341×256 bilinear): rows of 1023 f32 (4092 bytes) put the 16 rows a
/// block spills into one set of 8 ways: spilling took 0.086 ms of 0.287.
fn odd_lines(n: usize, size: usize) -> usize {
    let per = 64 / size;
    (n.div_ceil(per) | 1) * per
}

/// The row pitch of a columns-first strip of rows of `n` f32: `n` when the 16 rows a block spills fit in 4 KiB or
/// start in at least 8 different L1 sets (64 sets of 64-byte lines), else [`odd_lines`].
///
/// PERF (one thread, Zen 4 VM, u8 RGB, tight, AVX2 / AVX-512 level, µs): bicubic 640×480 → 341×256 (rows of 1023
/// f32, 4092 bytes: the spill's 16 rows in one or two sets) 330 → 214 / 283 → 195 with odd lines; but odd lines
/// everywhere slowed rows whose sets were spread already: 224² → 640² sampled bilinear (1920 f32, 8 sets) 225 → 240
/// / 134 → 156, bicubic 2560×1600 → 320×200 (960 f32, 16 sets) 1186 → 1233 at AVX-512.
fn strip_pitch(n: usize) -> usize {
    let mut sets = [false; 64];
    for r in 0..16 {
        sets[r * n * 4 / 64 % 64] = true;
    }
    if n * 64 <= 4096 || sets.iter().filter(|&&s| s).count() >= 8 { n } else { odd_lines(n, 4) }
}

/// Whether a row's pixels of a group of `group` channels are one run of `w`-byte elements in an operand of these
/// byte strides.
fn runs(strides: [isize; 4], w: usize, group: usize) -> bool {
    strides[3] == (group * w) as isize && (group == 1 || strides[1] == w as isize)
}

/// Whether a u8 resize of these weights filters the rows first (each output row a weighted sum of input rows, in
/// fixed point, rounded to 1/128 of a unit, then its columns in fixed point: [`RowsFirst`]) rather than the
/// columns: when its weights are all non-negative (then no intermediate value leaves 0..=255, and both orders
/// compute the same sums but for rounding) and the estimated
/// instructions are fewer — a shrink that keeps few of many rows (4928×3279 → 852×567) filters 567 rows of 4928
/// pixels once instead of 3279 rows of 852 pixels.
///
/// PERF (one thread, Zen 4 VM, u8 RGB bilinear antialiased, ms, columns first → rows first): 4928×3279 → 852×567
/// 11.2 → 7.3; 2560×1600 → 320×200 2.28 → 1.27; 1920×1080 → 224² 0.86 → 0.67; → 1280×720 4.0 → 2.6; → 960×540
/// 2.9 → 1.7; 1280×720 → 640×360 1.01 → 0.72; 640×480 → 341×256 0.46 → 0.27, → 224² 0.26 → 0.22. Growing:
/// 224² → 640² 0.45 → 0.62, 640×480 → 1280×960 1.84 → 2.17; 2000×100 → 100×50 (the width shrinks 20×, the height
/// 2×) 0.070 → 0.104. Once the rows went through the 1/128-unit loops (one thread, Zen 4, AVX-512, columns first →
/// rows first, ms): sampled bilinear (2 taps) 1920×1080 → 224² 0.174 → 0.141, 4928×3279 → 852×567 2.63 → 1.55,
/// 2560×1600 → 320×200 0.221 → 0.167, 1280×720 → 640² 0.610 → 0.549 (antialiased 0.650 → 0.611), which the
/// estimate gave to the columns before its per-pixel term of the rows went from 2.5 to 1.8; 2000×100 → 100×50
/// sampled stays with the columns (0.023 against 0.030).
fn vertical_first(rows: &Taps, cols: &Taps, in_size: [usize; 2]) -> bool {
    if rows.weights.iter().any(|&w| w < 0.0) {
        return false;
    }
    let (out_h, out_w) = (rows.start.len() as f64, cols.start.len() as f64);
    let (in_h, in_w) = (in_size[0] as f64, in_size[1] as f64);
    let (tv, th) = (rows.taps as f64, cols.taps as f64);
    // Estimated instructions per channel (see PERF).
    let columns_first = in_h.min(out_h * tv) * (in_w * 1.0 + out_w * (th * 0.25 + 2.0)) + out_h * out_w * tv * 0.4;
    let rows_first = out_h * in_w * (tv * 0.3 + 1.8) + out_h * out_w * th * 0.3;
    // Growing heights filter columns first: fewer input rows than output rows to stage (224² → 640²: 0.45 ms
    // columns first, 0.62 rows first).
    out_h < in_h && rows_first < columns_first
}

/// An [`Epilogue`] laid out for the rows: for planes, the pairs as given (one per channel, or one for all); for
/// interleaved pixels, a whole output row's pattern (the group's channels as they come, or as planes).
#[derive(Clone, Debug)]
struct Affine {
    scale: Vec<f32>,
    bias: Vec<f32>,
    clamp: Option<[f32; 2]>,
    /// The map changes no output ([`Affine::identity`]): the rows go straight to the conversion.
    identity: bool,
}

impl Affine {
    /// Whether `clamp(v) · 1 + 0` converted into `out` (an integer type: rounded half to even, saturated, NaN → 0) is
    /// `v` converted, for every f32 `v`: every pair is (1, 0), and the clamp, if any, is at least the type's range
    /// (clamping to it, or to more, before saturating to it changes nothing) from a low bound that converts to 0 (a
    /// NaN clamps to it). Not for floats, whose −0 the sum turns into +0. PERF (one thread, Zen 4 VM, u8 → u8
    /// preprocessing resize, sampled bilinear 224² → 640²): 224 → 165 µs, `--isa v3` 350 → 247 µs.
    fn identity(pairs: &[[f32; 2]], clamp: Option<[f32; 2]>, out: ElemType) -> bool {
        let range = match out {
            ElemType::U8 => Some([0.0, 255.0]),
            ElemType::I8 => Some([-128.0, 127.0]),
            ElemType::U16 => Some([0.0, 65535.0]),
            ElemType::I16 => Some([-32768.0, 32767.0]),
            _ => None,
        };
        let covers = |[lo, hi]: [f32; 2]| range.is_some_and(|[a, b]| lo <= a && hi >= b) && (-0.5..=0.5).contains(&lo);
        !out.is_float() && pairs.iter().all(|&p| p == [1.0, 0.0]) && clamp.is_none_or(covers)
    }
}

/// The longest image side a resize takes (input or output), in pixels: its weights are computed and kept per output
/// pixel of a side and per tap.
pub const MAX_SIDE: usize = 1 << 24;

/// The part of L2 (1 / this) a rows-first block's input rows may take to be fetched ahead (see
/// `Units::unit_by_rows`), and the part when the input is larger than the share of the last-level cache a thread
/// can count on (it comes from memory however often it is resized).
///
/// PERF (one thread, Zen 4 VM, u8 RGB bilinear antialiased, `--isa v3` / AVX-512, four alternations, ms): blocks up
/// to a quarter of L2 (the 138 KiB of a 1280×720 → 640×360 block, which an eighth left unfetched): 8 frames of
/// 1280×720 (22 MiB) → 640×360 3.92 → 3.74 / 3.91 → 3.18, the default suite's letterbox pipeline of 8 frames to
/// f32 6.44 → 5.72 / 5.80 → 4.86 (two threads 3.53 → 3.06 / 3.13 → 2.78); but one image resized again and again
/// (in the cache) lost 1–6 %: 1280×720 → 854×480 0.523 → 0.532 / 0.468 → 0.496, 1920×1080 → 640×360 0.508 →
/// 0.512 / 0.439 → 0.462.
const PREFETCH_L2_SHARE: usize = 8;
/// [`PREFETCH_L2_SHARE`] for an input from memory (`ResizeProgram::from_memory`; measured there).
const PREFETCH_L2_SHARE_COLD: usize = 4;

/// Output rows ahead whose two input rows a sampled rows-first resize of an input from memory fetches.
///
/// PERF (one thread, Zen 4 VM, u8 RGB sampled bilinear, three alternations, `--isa v3` / AVX-512, ms): 32 images
/// 640×480 → 341×256 5.40 → 4.68 (4 rows ahead), 4.63 (8), 4.82 (2) / 5.82 → 4.65 (4), 4.63 (8); two threads
/// 3.01 → 2.21 (8). 8 frames 1280×720 → 640×360 2.39 → 2.37 / 2.48 → 2.67 (4), 3.01 (8): noisy, no gain (their rows
/// are 3840 bytes, half the skipped distance of the 1920-byte ones). Against the previous binary (both orders of
/// three rounds, interleaved): 32 × 640×480 5.48 → 4.16 / 5.32 → 3.96, two threads 2.77 → 2.07 / 2.53 → 2.00; 8 ×
/// 1280×720 2.40 → 2.23 / 2.28 → 2.04; single images in the cache unchanged.
const SAMPLED_ROWS_AHEAD: usize = 4;

/// The most interleaved channels filtered together (a pixel's channels in one pass over its taps).
const MAX_GROUP: usize = 16;
/// Elements per staged span of a horizontal pass (a span's transposed rows stay in L1).
const SPAN: usize = 512;
/// Bytes of strip rows a unit of output rows aims at (L2-resident).
const STRIP_BYTES: usize = 256 << 10;
/// Bytes of an input row above which rows-first resizes sum whole rows at once (see [`RowsFirst`]): four spans.
const WHOLE_ROWS: usize = 4 * SPAN;
/// Most output rows per unit (enough units for the threads to share).
const UNIT_ROWS: usize = 32;

/// A proved resize, ready to run any number of times.
#[derive(Clone, Debug)]
pub struct ResizeProgram {
    plan: ResizePlan,
    rows: Taps,
    cols: Taps,
    /// Channels a pass handles together: all of them when the input interleaves them, else one.
    group: usize,
    /// Per unit, its output rows `[y0, y1)` and the slots `[lo, hi)` they read.
    units: Vec<((usize, usize), (usize, usize))>,
    /// The input rows some output row weighs (a nonzero weight), increasing: the strip holds only these, by their
    /// index here (their slot), so that a sampled shrink filters only the rows it samples.
    needed: Vec<usize>,
    /// The vertical taps of output row `y` as (slot, weight): `vtaps[voff[y]..voff[y + 1]]`, slots increasing.
    vtaps: Vec<(usize, f32)>,
    voff: Vec<usize>,
    /// Output columns per staged span.
    spans: Vec<(usize, usize)>,
    strip_rows: usize,
    clamp: bool,
    /// u8 inputs filtered horizontally first: the horizontal weights in fixed point.
    fixed: Option<Fixed>,
    /// u8 pixels of 3 or 4 one-byte channels in runs, sampled with two taps across (and two down when filtered
    /// rows first): the byte offset of each output pixel's pair of input pixels in a row, for
    /// [`Arch::sampled_row_u8`], which reads them straight from the input rows with the bits of the staged passes —
    /// rows first, both passes at once (the rows summed only at the columns the output reads); columns first, each
    /// input row filtered across.
    pairs: Option<Vec<usize>>,
    /// u8 inputs filtered vertically first (see [`vertical_first`]): the weights of both passes.
    vfirst: Option<RowsFirst>,
    /// Whether a row's pixels of a group are contiguous in the input, and in the output.
    contiguous: bool,
    out_contiguous: bool,
    /// Whether the strip's rows (and output rows) hold the group's channels as planes, one after the other.
    planar: bool,
    /// The epilogue, per element of each channel group's output row.
    affine: Option<Affine>,
    /// The input is larger than the share of the last-level cache a thread can count on: it comes from memory
    /// however often it is resized, and the passes fetch their next input rows ahead (`Units::unit`,
    /// `Units::unit_by_rows`; a single image in the cache ran up to 6 % slower with those prefetches).
    from_memory: bool,
    in_need: usize,
    out_need: usize,
}

impl ResizeProgram {
    /// Proves `plan` (every address inside `0..=isize::MAX`, no output element written twice) and computes its
    /// weights.
    ///
    /// # Errors
    ///
    /// [`PlanError::Op`] for an element type other than `U8`, `F16` or `F32`; [`PlanError::EmptyDim`] for a size
    /// of 0; [`PlanError::AddressRange`], [`PlanError::OverlappingOutput`] or [`PlanError::OverlapUndecided`] as
    /// for a copy of the operands.
    pub fn new(plan: &ResizePlan) -> Result<ResizeProgram, PlanError> {
        if !matches!(plan.ty, ElemType::U8 | ElemType::F16 | ElemType::F32) {
            return Err(PlanError::Op);
        }
        // Without an epilogue the output has the input's type; an epilogue has one pair or one per channel.
        match &plan.epilogue {
            None if plan.out_ty != plan.ty => return Err(PlanError::Op),
            Some(e) if e.pairs.len() != 1 && e.pairs.len() != plan.channels => return Err(PlanError::Params),
            _ => {}
        }
        let (w, ow) = (plan.ty.width(), plan.out_ty.width());
        let extents = |hw: [usize; 2]| [plan.images, plan.channels, hw[0], hw[1]];
        let (ie, oe) = (extents(plan.in_size), extents(plan.out_size));
        if let Some(k) = ie.iter().chain(&oe).position(|&e| e == 0) {
            return Err(PlanError::EmptyDim(k % 4));
        }
        if let Some(a) = (0..2).find(|&a| plan.resized[a] == 0) {
            return Err(PlanError::EmptyDim(2 + a));
        }
        // The weights take memory per output pixel of a side and per tap (which grows with the input side).
        if plan.in_size.iter().chain(&plan.out_size).chain(&plan.resized).any(|&n| n > MAX_SIDE) {
            return Err(PlanError::AddressRange("resize (a side longer than 2^24 pixels)"));
        }
        // The window's last pixel inside the resized image, on both axes.
        let inside = |a: usize| {
            let (first, step) = plan.pick[a];
            step >= 1
                && (plan.out_size[a] - 1)
                    .checked_mul(step)
                    .and_then(|d| d.checked_add(first))
                    .is_some_and(|last| last < plan.resized[a])
        };
        if !(inside(0) && inside(1)) {
            return Err(PlanError::AddressRange("resize window (outside the resized image)"));
        }
        let dims = |e: [usize; 4], strides: [isize; 4]| -> [Dim; 4] {
            core::array::from_fn(|k| Dim { extent: e[k], in_stride: strides[k], out_stride: strides[k] })
        };
        // The input is only read: its byte range is all there is to prove (a broadcast input may count far more
        // elements than any buffer holds).
        let (_, in_hi) = reach(plan.in_base, w, &dims(ie, plan.in_strides), |d| d.in_stride)
            .ok_or(PlanError::AddressRange("input"))?;
        let in_need = in_hi.checked_add(1).ok_or(PlanError::AddressRange("input"))?;
        // The output proved as the destination of a copy from a packed buffer of its shape: in range and injective.
        let mut packed = ow as isize;
        let mut out_dims = dims(oe, plan.out_strides);
        for d in out_dims.iter_mut().rev() {
            d.in_stride = packed;
            packed = packed.checked_mul(d.extent as isize).ok_or(PlanError::AddressRange("output"))?;
        }
        let plan_out = Plan::new(ElementOp::Copy { width: ow }, 0, plan.out_base, out_dims.to_vec());
        let out_need = Walk::new(&plan_out)?.output_bytes_needed();
        let [all_rows, all_cols] = Taps::axes(plan.in_size, plan.resized, plan.filter, plan.antialias);
        // Chosen on the whole resized image, so that a window of it has the bits of the whole one (as the u8 weights
        // in fixed point, at the precision all columns or rows fit).
        // (A function of the weights alone, not of the layout or the channels, so that any view of an image, and a
        // reference that resizes all its channels, sum in the same order.)
        let by_rows = plan.ty == ElemType::U8 && vertical_first(&all_rows, &all_cols, plan.in_size);
        let mut vfirst = by_rows
            .then(|| (Fixed::new(&all_rows, 255), Fixed::new(&all_cols, i64::from(i16::MAX))))
            .filter(|(rows, _)| rows.shift >= 8)
            .map(|(rows, cols)| RowsFirst {
                rows: rows.pick(plan.pick[0].0, plan.pick[0].1, plan.out_size[0]),
                cols: cols.pick(plan.pick[1].0, plan.pick[1].1, plan.out_size[1]),
                pieces: Vec::new(),
            });
        let fixed = (plan.ty == ElemType::U8 && vfirst.is_none()).then(|| Fixed::new(&all_cols, 255));
        let rows = all_rows;
        let (rows, cols) = (
            rows.pick(plan.pick[0].0, plan.pick[0].1, plan.out_size[0]),
            all_cols.pick(plan.pick[1].0, plan.pick[1].1, plan.out_size[1]),
        );
        let fixed = fixed.map(|f| f.pick(plan.pick[1].0, plan.pick[1].1, plan.out_size[1]));
        // Interleaved pixels of up to MAX_GROUP channels are filtered together; more channels (or planes) one plane
        // at a time, so that a row's scratch grows with the width alone.
        let group = if plan.in_strides[1] == w as isize && plan.channels <= MAX_GROUP { plan.channels } else { 1 };
        let row_len = plan.out_size[1] * group;
        let mut needed = Vec::new();
        for (y, w) in rows.weights.chunks(rows.taps).enumerate() {
            needed.extend((0..rows.taps).filter(|&t| w[t] != 0.0).map(|t| rows.start[y] + t));
        }
        needed.sort_unstable();
        needed.dedup();
        let (mut vtaps, mut voff) = (Vec::new(), vec![0]);
        for y in 0..plan.out_size[0] {
            let w = &rows.weights[y * rows.taps..][..rows.taps];
            for (t, &w) in w.iter().enumerate().filter(|&(_, &w)| w != 0.0) {
                // Every row with a nonzero weight is in `needed`.
                let slot = needed.binary_search(&(rows.start[y] + t)).unwrap_or(0);
                vtaps.push((slot, w));
            }
            voff.push(vtaps.len());
        }
        // The slots output rows y0..y1 read.
        let reads = |y0: usize, y1: usize| {
            let slots = vtaps[voff[y0]..voff[y1]].iter().map(|&(s, _)| s);
            (slots.clone().min().unwrap_or(0), slots.max().map_or(0, |s| s + 1))
        };
        // Units: output rows whose strip (the rows they read) stays near STRIP_BYTES; filtered rows first, blocks of
        // UNIT_ROWS rows (no strip: each block of output rows reads its input rows where they are).
        let most = (STRIP_BYTES / (row_len * 4).max(1)).max(rows.taps);
        let mut units = Vec::new();
        let mut y0 = 0;
        while vfirst.is_some() && y0 < plan.out_size[0] {
            let y1 = (y0 + UNIT_ROWS).min(plan.out_size[0]);
            units.push(((y0, y1), (0, 0)));
            y0 = y1;
        }
        while y0 < plan.out_size[0] {
            let mut y1 = y0 + 1;
            while y1 < plan.out_size[0] && y1 - y0 < UNIT_ROWS && {
                let (lo, hi) = reads(y0, y1 + 1);
                hi - lo <= most
            } {
                y1 += 1;
            }
            units.push(((y0, y1), reads(y0, y1)));
            y0 = y1;
        }
        let strip_rows = units.iter().map(|&(_, (lo, hi))| hi - lo).max().unwrap_or(1);
        let mut spans = Vec::new();
        let mut x0 = 0;
        while x0 < plan.out_size[1] {
            let mut x1 = x0 + 1;
            while x1 < plan.out_size[1]
                && (x1 + 1 - x0) * group <= SPAN
                && (cols.start[x1] + cols.taps - cols.start[x0]) * group <= SPAN
            {
                x1 += 1;
            }
            spans.push((x0, x1));
            x0 = x1;
        }
        // Rows first: summed the whole width at once when an input row is longer than four spans, else a span at a
        // time (see `RowsFirst`).
        if let Some(v) = &mut vfirst {
            let (c0, c1) = cols.reads(0..plan.out_size[1]);
            let whole = (c1 - c0) * group > WHOLE_ROWS;
            v.pieces = if whole { vec![(0, spans.len())] } else { (0..spans.len()).map(|k| (k, k + 1)).collect() };
        }
        // Whether a row's pixels of a group are one run of elements in the operand.
        let (contiguous, out_contiguous) = (runs(plan.in_strides, w, group), runs(plan.out_strides, ow, group));
        let clamp = plan.antialias && plan.ty == ElemType::U8;
        let two = match (&vfirst, &fixed) {
            (Some(v), _) => rows.taps == 2 && v.rows.per == 1 && v.cols.per == 1,
            (None, Some(f)) => f.per == 1,
            (None, None) => false,
        };
        let pixels = contiguous && matches!(group, 3 | 4) && !clamp;
        let pairs = (two && pixels && cols.taps == 2).then(|| cols.start.iter().map(|&s| s * group).collect());
        // The epilogue's factors and addends per element of each plane's output row (channel groups one after the
        // other), so that applying them is one plain loop whatever the channel pattern.
        // Interleaved pixels into rows of planes (NHWC → NCHW) with an epilogue: the strip's rows hold planes, so
        // that each output row is a run per channel, converted straight into the output.
        let planar = plan.epilogue.is_some() && group > 1 && !out_contiguous && plan.out_strides[3] == ow as isize;
        let affine = plan.epilogue.as_ref().map(|e| {
            let pair = |c: usize| e.pairs[if e.pairs.len() == 1 { 0 } else { c }];
            // Planes: their pairs as given (one per channel, or one); interleaved pixels (one group per image): one
            // row's pattern.
            let pattern = (0..row_len).map(|i| pair(if planar { i / plan.out_size[1] } else { i % group }));
            let pairs: Vec<[f32; 2]> = if group == 1 { e.pairs.clone() } else { pattern.collect() };
            Affine {
                scale: pairs.iter().map(|p| p[0]).collect(),
                bias: pairs.iter().map(|p| p[1]).collect(),
                clamp: e.clamp,
                identity: Affine::identity(&e.pairs, e.clamp, plan.out_ty),
            }
        });
        Ok(ResizeProgram {
            plan: plan.clone(),
            rows,
            cols,
            group,
            units,
            needed,
            vtaps,
            voff,
            spans,
            strip_rows,
            clamp,
            fixed,
            pairs,
            contiguous,
            out_contiguous,
            planar,
            affine,
            vfirst,
            from_memory: in_need > crate::CacheSizes::get().llc_per_thread(),
            in_need,
            out_need,
        })
    }

    /// The plan.
    pub fn plan(&self) -> &ResizePlan {
        &self.plan
    }

    /// Whether the rows are filtered first (u8 images whose rows shrink, with non-negative weights), else the
    /// columns.
    pub fn rows_first(&self) -> bool {
        self.vfirst.is_some()
    }

    /// Whether a sampled resize of 3- or 4-byte pixels with two taps across reads the pixel pairs of each output
    /// pixel straight from the input rows, on the levels with registers: filtered rows first (two taps down), both
    /// passes at once, the rows summed only at the columns the output reads; columns first, each input row filtered
    /// across without staging. The bits are those of the staged passes.
    pub fn samples_pairs(&self) -> bool {
        self.pairs.is_some()
    }

    /// The pixel pairs' offsets at level `A`: the levels with registers read them ([`Arch::sampled_row_u8`]); the
    /// scalar level runs the staged passes, which the tests compare them with.
    fn pairs_at<A: Arch>(&self) -> Option<&[usize]> {
        self.pairs.as_deref().filter(|_| A::ISA != crate::Isa::Scalar)
    }

    /// The weights, `[rows, columns]`.
    pub fn taps(&self) -> [&Taps; 2] {
        [&self.rows, &self.cols]
    }

    /// Bytes the input buffer must hold.
    pub fn input_bytes_needed(&self) -> usize {
        self.in_need
    }

    /// Bytes the output buffer must hold.
    pub fn output_bytes_needed(&self) -> usize {
        self.out_need
    }

    /// Resizes `src` into `dst`.
    ///
    /// # Errors
    ///
    /// [`RunError::BufferTooSmall`] when a buffer is shorter than the plan addresses, or the options' instruction
    /// set or thread count is unavailable; nothing is written then.
    pub fn run(&self, src: &[u8], dst: &mut [u8], opts: &ExecOptions) -> Result<(), RunError> {
        for (operand, required, actual) in [("input", self.in_need, src.len()), ("output", self.out_need, dst.len())] {
            if actual < required {
                return Err(RunError::BufferTooSmall { operand, required, actual });
            }
        }
        let level = level(opts)?;
        let pool = pool(opts)?;
        let p = &self.plan;
        let planes = p.images * (p.channels / self.group);
        let units = planes * self.units.len();
        let w = p.ty.width();
        // The work, for the split only: saturating, since a broadcast input may count far more elements than bytes.
        let pixels = (p.in_size[0] * p.in_size[1]).saturating_add(p.out_size[0] * p.out_size[1]);
        let bytes = pixels.saturating_mul(p.images).saturating_mul(p.channels).saturating_mul(w);
        let chunks = chunks_for(opts, pool.as_deref(), bytes, units);
        // f32 output rows that are runs leave the caches with non-temporal stores when the footprint would not stay
        // in them (the rule of the copies: `CacheSizes::stream_threshold_for`), or when the options say so.
        let footprint = self.in_need.saturating_add(self.out_need);
        let stream = p.out_ty == ElemType::F32
            && self.affine.is_some()
            && (self.out_contiguous || self.planar)
            && opts.streaming.unwrap_or_else(|| footprint >= crate::CacheSizes::get().stream_threshold_for(chunks));
        let (s, d) = (SendPtr(src.as_ptr().cast_mut()), SendPtr(dst.as_mut_ptr()));
        let run = |c: usize| {
            let (lo, hi) = (share(units, chunks, c), share(units, chunks, c + 1));
            let job = Units { program: self, src: s, dst: d, lo, hi, stream };
            level.dispatch(job);
            if stream {
                // The non-temporal stores are ordered before the chunk reports completion.
                crate::rows::fence();
            }
        };
        if chunks > 1 {
            crate::team::split(pool.as_deref(), chunks, opts.lingers(), &run);
        } else {
            run(0);
        }
        Ok(())
    }
}

/// A range of units (plane-major) run on one thread.
struct Units<'a> {
    program: &'a ResizeProgram,
    src: SendPtr,
    dst: SendPtr,
    lo: usize,
    hi: usize,
    /// f32 output runs stored non-temporally (whole lines; the run fences).
    stream: bool,
}

impl Job for Units<'_> {
    type Output = ();

    fn run<A: Arch>(self, a: A) {
        struct Go<'a, A>(Units<'a>, A);
        impl<A: Arch> pulp::NullaryFnOnce for Go<'_, A> {
            type Output = ();
            #[inline(always)]
            fn call(self) {
                // u8 rows 16 at a time (one byte or i16 lane each in the fixed-point taps); floats 8, also at 64-byte
                // levels. PERF: f32 1920×1080×3 → 224² bilinear, one thread, Zen 4: 16 lanes 3.5 ms, 8 lanes 2.5 ms.
                let pr = self.0.program;
                if pr.fixed.is_some() || pr.vfirst.is_some() {
                    self.0.go::<A, 16>(self.1)
                } else {
                    self.0.go::<A, 8>(self.1)
                }
            }
        }
        // The base level's code: no resize kernel uses what a level adds over it (VBMI's byte permutes), and the
        // resize loops are the largest function of a level (≈ 120 KB each).
        let b = a.base();
        b.vectorize(Go(self, b));
    }
}

/// The buffers of one thread's units.
struct Scratch<const R: usize> {
    /// The pitch of the strip's rows (at least `row_len`: see `strip_pitch`, `odd_lines`); rows filtered first, of
    /// `rows_q7` too.
    pitch: usize,
    full_pitch: usize,
    /// Horizontally filtered rows of slots `[lo, hi)` of the current plane, `row_len` each, `pitch` apart, in a ring
    /// (slot `s` at row `s` mod the rows it has).
    strip: Vec<f32>,
    lo: usize,
    hi: usize,
    plane: usize,
    /// Rows filtered first: the plane and the input row up to which the last unit asked for rows ahead.
    fetched: (usize, usize),
    /// A span of `R` input rows, transposed: element `i` of row `l` at `i·R + l`.
    staged: Vec<f32>,
    /// The `R` input rows' spans in f32, one after the other.
    rows: Vec<f32>,
    /// u8 inputs: the `R` rows' spans as bytes, one after the other, and transposed (`R` bytes per element, two
    /// pixels more for padded taps).
    bytes: Vec<u8>,
    staged_bytes: Vec<u8>,
    /// u8 resizes filtered rows first: the `R` rows in 1/128 units, one after the other, and a span of them
    /// transposed (`R` lanes per element, one pixel more for a padded tap).
    rows_q7: Vec<i16>,
    staged_q7: Vec<i16>,
    /// u8 inputs: the staged columns in pairs ([`pair_columns`]), from its first 64-byte aligned element.
    paired: Vec<i16>,
    /// Horizontal sums of a span, transposed like `staged`.
    sums: Vec<f32>,
    /// One output row in f32.
    out: Vec<f32>,
    /// Epilogues: the row converted.
    converted: Vec<u8>,
}

impl Units<'_> {
    #[inline(always)]
    fn go<A: Arch, const R: usize>(self, a: A) {
        let pr = self.program;
        let p = &pr.plan;
        let g = pr.group;
        let row_len = p.out_size[1] * g;
        let span_max = pr.spans.iter().map(|&(x0, x1)| pr.cols.reads(x0..x1)).map(|(l, h)| h - l).max().unwrap_or(1);
        let sums_max = pr.spans.iter().map(|&(x0, x1)| x1 - x0).max().unwrap_or(1);
        let fixed = pr.fixed.is_some();
        let rows_first = pr.vfirst.is_some();
        // Rows filtered first: the widest piece of the columns the output reads (`RowsFirst`), in rows `full_pitch`
        // apart. The strip's rows `pitch` apart (rows first, odd numbers of lines: see `odd_lines`, `strip_pitch`).
        let full = pr.vfirst.as_ref().map_or(0, |v| {
            let width = |&(s0, s1): &(usize, usize)| {
                let (c0, c1) = pr.cols.reads(pr.spans[s0].0..pr.spans[s1 - 1].1);
                (c1 - c0) * g
            };
            v.pieces.iter().map(width).max().unwrap_or(0)
        });
        let full_pitch = odd_lines(full, 2);
        let pitch = if rows_first { odd_lines(row_len, 4) } else { strip_pitch(row_len) };
        let mut sc = Scratch::<R> {
            strip: vec![0f32; (pr.strip_rows + R) * pitch],
            pitch,
            full_pitch,
            lo: 0,
            hi: 0,
            plane: usize::MAX,
            fetched: (usize::MAX, 0),
            staged: vec![0f32; if fixed || rows_first { 0 } else { span_max * g * R }],
            rows: vec![0f32; if fixed || rows_first { 0 } else { span_max * g * R }],
            bytes: vec![
                0u8;
                match (fixed, &pr.vfirst) {
                    (true, _) => span_max * g * R,
                    (false, Some(_)) if !pr.contiguous => full * pr.rows.taps,
                    _ => 0,
                }
            ],
            staged_bytes: vec![0u8; if fixed { (span_max + 2) * g * R } else { 0 }],
            rows_q7: vec![0i16; if rows_first { full_pitch * R } else { 0 }],
            staged_q7: vec![0i16; if rows_first { (span_max + 1) * g * R } else { 0 }],
            paired: vec![0i16; if fixed { (span_max + 2) * g * R + 32 } else { 0 }],
            sums: vec![0f32; sums_max * g * R],
            out: vec![0f32; row_len],
            converted: vec![0u8; if pr.affine.is_some() { row_len * p.out_ty.width() } else { 0 }],
        };
        for u in self.lo..self.hi {
            let (plane, unit) = (u / pr.units.len(), u % pr.units.len());
            self.unit::<A, R>(a, &mut sc, plane, pr.units[unit]);
        }
    }

    /// Output rows `y0..y1` of `plane` (image-major, then channel group), which read slots `need_lo..need_hi`.
    #[inline(always)]
    fn unit<A: Arch, const R: usize>(
        &self,
        a: A,
        sc: &mut Scratch<R>,
        plane: usize,
        ((y0, y1), (need_lo, need_hi)): ((usize, usize), (usize, usize)),
    ) {
        let pr = self.program;
        if let Some(vf) = &pr.vfirst {
            self.unit_by_rows::<A, R>(a, sc, plane, (y0, y1), vf);
            return;
        }
        let p = &pr.plan;
        let g = pr.group;
        let row_len = p.out_size[1] * g;
        if sc.plane != plane || need_lo < sc.lo || need_lo >= sc.hi {
            (sc.plane, sc.lo, sc.hi) = (plane, need_lo, need_lo);
        } else if need_lo > sc.lo {
            // The strip is a ring: rows below the unit's are simply left behind.
            sc.lo = need_lo;
        }
        let planes_per_image = p.channels / g;
        let (image, channel) = (plane / planes_per_image, plane % planes_per_image);
        let [sn, sc_, sh, sw] = p.in_strides;
        let in_plane = (p.in_base as isize) + image as isize * sn + channel as isize * sc_;
        while sc.hi < need_hi {
            let r0 = sc.hi;
            let n = R.min(pr.needed.len() - r0);
            // The input rows of slots r0..r0 + R (the last one repeated past the end).
            let row = |l: usize| pr.needed[r0 + l.min(n - 1)];
            let pairs = pr.pairs_at::<A>().zip(pr.fixed.as_ref());
            if let Some((starts, fixed)) = pairs {
                // Each input row filtered across straight into its ring row (pixels, or planes), as `spill` places
                // the staged pass's sums (slot r0 + l at ring row (r0 + l) mod cap).
                let (cap, in_row) = (sc.strip.len() / sc.pitch, p.in_size[1] * g);
                let (plane, scale) = (pr.planar.then_some(p.out_size[1]), fixed.scale * Paired::UNIT);
                let cols = &fixed.pairs;
                for l in 0..n {
                    let from = self.src.0.cast_const().wrapping_offset(in_plane + row(l) as isize * sh);
                    let out = &mut sc.strip[(r0 + l) % cap * sc.pitch..][..row_len];
                    let pairs =
                        PixelPairs { rows: [from; 2], row_bytes: in_row, w: None, starts, cols, g, plane, scale };
                    // SAFETY: input row row(l) < in height of the proved input plane, `in_row` bytes (the group's
                    // pixels in runs: `contiguous`), each output pixel's pair inside it (its window); `out` holds
                    // the pixels' row_len elements, or the group's planes of out width; no row weights; the
                    // columns' sums bounded (`Fixed::new`); the group is 3 or 4 (`pairs`).
                    unsafe { a.sampled_row_u8(&pairs, out) };
                }
                sc.hi = r0 + n;
                continue;
            }
            // An input from memory (`from_memory`): the next block's input rows, asked for into L2 a span at a time
            // while this block's are filtered (the hardware prefetchers do not follow 16 rows at once across pages).
            // PERF (one thread, Zen 4, u8 RGB bicubic, interleaved, four alternations, `--isa v3` / AVX-512, ms):
            // 32 images 640×480 → 341×256 9.07 → 8.61 / 7.83 → 7.44, 8 frames 1280×720 → 640×360 6.17 → 6.02 /
            // 5.60 → 5.38; one image resized again and again (in the cache) lost up to 5 %, hence the rule.
            let ahead =
                pr.needed.get(r0 + R..(r0 + 2 * R).min(pr.needed.len())).filter(|_| pr.contiguous && pr.from_memory);
            for &(x0, x1) in &pr.spans {
                let (c0, c1) = pr.cols.reads(x0..x1);
                let len = (c1 - c0) * g;
                // Row r < in height, columns c0..c1 ≤ in width and the channels of the group lie inside the input
                // the walk proved for `in_need` bytes, which `run` checked `src` holds.
                let at = |l: usize| in_plane + row(l) as isize * sh + c0 as isize * sw;
                for &r in ahead.unwrap_or_default() {
                    let from = self.src.0.cast_const().wrapping_offset(in_plane + r as isize * sh + c0 as isize * sw);
                    crate::rows::prefetch(from, 0, (len * p.ty.width()) as isize, true);
                }
                // Whole blocks of consecutive, contiguous u8 or f32 rows are transposed where they are (f16 rows are
                // converted first).
                let direct = (pr.fixed.is_some() || (p.ty == ElemType::F32 && sh > 0))
                    && n == R
                    && pr.contiguous
                    && row(R - 1) == row(0) + R - 1;
                for l in (0..R).filter(|_| !direct) {
                    match &pr.fixed {
                        // SAFETY: as above.
                        Some(_) => unsafe { self.load_bytes(at(l), c1 - c0, &mut sc.bytes[l * len..][..len]) },
                        // SAFETY: as above.
                        None => unsafe { self.load_span::<A>(a, at(l), c1 - c0, &mut sc.rows[l * len..][..len]) },
                    }
                }
                match &pr.fixed {
                    Some(fixed) => {
                        let (from, ss) = match direct {
                            true => (self.src.0.cast_const().wrapping_offset(at(0)), sh),
                            false => (sc.bytes.as_ptr(), len as isize),
                        };
                        // SAFETY: 16 rows of `len` bytes, `ss` apart: the input's rows r0..r0 + 16 (as above), or
                        // `bytes`; `staged_bytes` holds len rows of 16 (and two pixels more), sized for the longest
                        // span.
                        unsafe { transpose_bytes(a, from, ss, len, &mut sc.staged_bytes) };
                        // Blocks up to the one holding the column after the span's last (a padded tap's), from
                        // the first element on a line: each block of a channel one line, whose two 32-byte loads
                        // never split one (PERF: unaligned, the taps loop spent a fifth of its time on split loads).
                        let at = sc.paired.as_ptr().align_offset(64).min(32);
                        let paired = &mut sc.paired[at..];
                        pair_columns(a, &sc.staged_bytes, g, (c1 - c0) / 2 + 1, paired);
                        let paired = Paired(paired);
                        horizontal_fixed::<A, R, _>(a, fixed, &pr.cols, c0, x0..x1, g, paired, &mut sc.sums, pr.clamp);
                    }
                    None => {
                        // f32 rows `ss` elements apart (the row stride is a whole number of f32: the elements are).
                        let (from, ss) = match direct {
                            true => (self.src.0.cast_const().wrapping_offset(at(0)).cast::<f32>(), sh as usize / 4),
                            false => (sc.rows.as_ptr(), len),
                        };
                        // SAFETY: R rows of `len` f32, `ss` apart: the input's rows r0..r0 + R (as above; a positive
                        // row stride, as the rows are consecutive), or `rows`; `staged` holds len rows of R (sized for
                        // the longest span).
                        unsafe { transpose(a, from, ss, sc.staged.as_mut_ptr(), R, R, len) };
                        horizontal::<R>(&pr.cols, c0, x0..x1, g, &sc.staged, &mut sc.sums, pr.clamp);
                    }
                }
                // Slots r0..r0 + n sit at ring rows r0 mod cap on, wrapping once at most (n ≤ R ≤ cap).
                let cap = sc.strip.len() / sc.pitch;
                let at = r0 % cap;
                let before = n.min(cap - at);
                for (lanes, ring) in [(0..before, at), (before..n, 0)] {
                    if lanes.is_empty() {
                        continue;
                    }
                    spill::<A, R>(a, pr, &sc.sums, lanes, &mut sc.strip[ring * sc.pitch..], x0..x1, sc.pitch);
                }
            }
            sc.hi = r0 + n;
        }
        let [on, oc, oh, _] = p.out_strides;
        let out_plane = (p.out_base as isize) + image as isize * on + channel as isize * oc;
        for y in y0..y1 {
            let taps = &pr.vtaps[pr.voff[y]..pr.voff[y + 1]];
            vertical(&sc.strip, sc.pitch, taps, &mut sc.out);
            // SAFETY: row y < out height of the proved output plane; `run` checked `dst` holds `out_need` bytes.
            unsafe { self.finish_row::<A>(a, &mut sc.out, &mut sc.converted, out_plane + y as isize * oh, channel) };
        }
    }

    /// Output rows `y0..y1` of `plane` filtered rows first (u8 inputs, [`vertical_first`]): `R` output rows at a
    /// time, each row's input columns (the whole width the output reads) summed over the row's taps in fixed point
    /// into an f32 row, then the `R` rows filtered horizontally a span at a time with the rows as register lanes,
    /// then converted into the output.
    ///
    /// PERF (one thread, Zen 4 VM, u8 RGB bilinear antialiased, AVX-512 / AVX2 level, ms): a span's columns of every
    /// row at a time (the tap rows read 512 bytes at a time, ~50 rows interleaved, and the columns a span's taps
    /// share with the next one summed twice) against whole rows: 1920×1080 → 224² 0.615 → 0.555 / 0.70 → 0.605;
    /// 2560×1600 → 320×200 0.95–1.02 → 0.84–0.85 / 1.04 → 0.90; 4928×3279 → 852×567 5.3–5.5 → 5.0–5.4 / 5.8–6.3
    /// → 5.4–5.8.
    #[inline(always)]
    fn unit_by_rows<A: Arch, const R: usize>(
        &self,
        a: A,
        sc: &mut Scratch<R>,
        plane: usize,
        (y0, y1): (usize, usize),
        vf: &RowsFirst,
    ) {
        let pr = self.program;
        let p = &pr.plan;
        let g = pr.group;
        let row_len = p.out_size[1] * g;
        let planes_per_image = p.channels / g;
        let (image, channel) = (plane / planes_per_image, plane % planes_per_image);
        let [sn, sc_, sh, sw] = p.in_strides;
        let in_plane = (p.in_base as isize) + image as isize * sn + channel as isize * sc_;
        let [on, oc, oh, _] = p.out_strides;
        let out_plane = (p.out_base as isize) + image as isize * on + channel as isize * oc;
        let taps = pr.rows.taps;
        sc.plane = usize::MAX;
        // The block's rows summed: sc.rows_q7 (R rows, the whole width); the filtered block: sc.strip.
        // The input rows of the next block are asked for into L2 while this one is filtered, a share before each
        // of its rows (their columns the spans read; rows read in place only): the hardware prefetchers lose the
        // tap rows' streams at every page.
        // PERF: one thread, Zen 4, 32 different 640×480 u8 RGB images → shorter side 256, crop 224, ImageNet f32
        // (cold input, cold output): 0.29 → 0.21–0.22 ms per image; the same image every time 0.155–0.16 either
        // way. Into L1 instead: 0.255; two blocks ahead: 0.22. Blocks of more than an eighth of L2 lost (one image
        // repeated, blocks of 224–680 KiB: 1080p → 224² 0.606 → 0.630 ms, 2560×1600 → 320×200 1.02 → 1.11,
        // 4928×3279 → 852×567 6.45 → 6.95) and do not fetch.
        let (rc0, rc1) = pr.cols.reads(0..p.out_size[1]);
        let row_bytes = ((rc1 - rc0) * g) as isize;
        let share = if pr.from_memory { PREFETCH_L2_SHARE_COLD } else { PREFETCH_L2_SHARE };
        let budget = crate::CacheSizes::get().l2() / share;
        // (The rows a unit's first block reads were asked for by the plane's previous unit, if this thread ran it.
        // PERF: one thread, Zen 4, interleaved, both orders, 32 images 640×480 → shorter 256, crop 224, ImageNet f32,
        // `--isa v3` / AVX-512: each unit's first block unfetched → fetched 3.50–3.84 → 3.22–3.55 / 3.19–3.38 →
        // 2.95–3.17 ms; the 8-frame letterbox pipeline 5.58–5.71 → 5.04–5.44 / 4.84–4.98 → 4.46–4.71.)
        let mut fetched = if sc.fetched.0 == plane { sc.fetched.1 } else { pr.rows.start[y0] };
        // Sampled pixel pairs: a row at a time, finished while in L1 (a block's 16 rows ran 5 % slower).
        let sampled = pr.pairs_at::<A>();
        let block = if sampled.is_some() { 1 } else { R };
        for yb in (y0..y1).step_by(block) {
            let n = block.min(y1 - yb);
            // Input rows next_lo..next_hi: those up to the next block's last tap not asked for yet.
            // (Past the unit's rows: the next unit's first block, which the plane's next unit reads.)
            let next_hi = pr.rows.start[(yb + 2 * R).min(p.out_size[0]) - 1] + taps;
            let next_lo = fetched.max(pr.rows.start[yb]).min(next_hi);
            // Only blocks whose rows a small part of L2 holds: larger ones evict the rows being filtered.
            let fetching = pr.contiguous && (next_hi - next_lo).saturating_mul(row_bytes as usize) <= budget;
            let fetch = |l: usize| {
                let share = |l: usize| next_lo + (next_hi - next_lo) * l / n;
                for r in share(l)..share(l + 1) {
                    let at = in_plane + r as isize * sh + rc0 as isize * sw;
                    crate::rows::prefetch(self.src.0.cast_const().wrapping_offset(at), 0, row_bytes, true);
                }
            };
            fetched = next_hi;
            let (fp, pitch) = (sc.full_pitch, sc.pitch);
            if let Some(starts) = sampled {
                // Both axes in one pass per output row, into the strip's rows (pixels, or planes); an input from
                // memory (`from_memory`) fetches the two rows of the output row SAMPLED_ROWS_AHEAD on (the rows a
                // shrink skips break the hardware prefetchers' streams).
                let in_row = p.in_size[1] * g;
                let scale = vf.cols.scale * RowsQ7::UNIT;
                let k = SAMPLED_ROWS_AHEAD;
                for l in 0..n {
                    let y = yb + l;
                    let at = in_plane + pr.rows.start[y] as isize * sh;
                    let src = self.src.0.cast_const();
                    let rows = [src.wrapping_offset(at), src.wrapping_offset(at + sh)];
                    if pr.from_memory && y + k < p.out_size[0] {
                        let ahead = in_plane + pr.rows.start[y + k] as isize * sh;
                        for r in 0..2 {
                            crate::rows::prefetch(src.wrapping_offset(ahead + r * sh), 0, in_row as isize, true);
                        }
                    }
                    let w = RowWeights { pairs: &vf.rows.pairs[y..][..1], taps: 2, shift: vf.rows.shift };
                    let plane = pr.planar.then_some(p.out_size[1]);
                    let row = &mut sc.strip[l * pitch..][..row_len];
                    let pairs = PixelPairs {
                        rows,
                        row_bytes: in_row,
                        w: Some(w),
                        starts,
                        cols: &vf.cols.pairs,
                        g,
                        plane,
                        scale,
                    };
                    // SAFETY: rows start[y] and start[y] + 1 < in height (two taps inside the input) of the proved
                    // input plane, `in_row` bytes each (the group's pixels in runs: `contiguous`), each output pixel's
                    // pair inside them (its window); `row` holds the pixels' row_len elements, or the group's planes
                    // of out width; one pair of weights each, their sums bounded (`Fixed::new`), the rows' shift at
                    // least 8 (`RowsFirst`); the group is 3 or 4 (`pairs`).
                    unsafe { a.sampled_row_u8(&pairs, row) };
                }
            }
            // Each output row's columns of a piece of the spans (the whole width, or one span: `pieces`), its tap
            // rows read once, front to back; then the piece's spans of the R rows, transposed so that the rows are
            // register lanes.
            let pieces = if sampled.is_some() { &[][..] } else { &vf.pieces[..] };
            for &(s0, s1) in pieces {
                let (pc0, pc1) = pr.cols.reads(pr.spans[s0].0..pr.spans[s1 - 1].1);
                let width = (pc1 - pc0) * g;
                // (Lanes past the block's rows hold what they held: filtered along, never stored.)
                for l in 0..n {
                    let y = yb + l;
                    if fetching && s0 == 0 {
                        fetch(l);
                    }
                    let at = in_plane + pr.rows.start[y] as isize * sh + pc0 as isize * sw;
                    // Rows start..start + taps < in height (the taps' windows lie inside the input) of the proved
                    // input plane, columns pc0..pc1 ≤ in width: inside `src` (`run` checked `in_need`). They are
                    // read where they are when the group's pixels are one run, else gathered into `bytes` first.
                    let (from, step) = if pr.contiguous {
                        (self.src.0.cast_const().wrapping_offset(at), sh)
                    } else {
                        for t in 0..taps {
                            let row = &mut sc.bytes[t * width..][..width];
                            // SAFETY: tap row t's columns, inside the input (above); `bytes` holds taps pieces.
                            unsafe { self.load_bytes(at + t as isize * sh, pc1 - pc0, row) };
                        }
                        (sc.bytes.as_ptr(), width as isize)
                    };
                    let v = &vf.rows;
                    let w = RowWeights { pairs: &v.pairs[y * v.per..][..v.per], taps, shift: v.shift };
                    let out = sc.rows_q7[l * fp..][..width].as_mut_ptr();
                    // SAFETY: `taps` rows of `width` bytes, `step` apart (above); `rows_q7` holds R rows `fp` apart
                    // (the widest piece); the weights' sums fit i32 (`Fixed::new`) and their shift is at least 8
                    // (`RowsFirst`).
                    unsafe { a.rows_u8_q7(from, step, w, width, out) };
                }
                for &(x0, x1) in &pr.spans[s0..s1] {
                    let (c0, c1) = pr.cols.reads(x0..x1);
                    let len = (c1 - c0) * g;
                    let from = sc.rows_q7[(c0 - pc0) * g..].as_ptr();
                    // SAFETY: 16 rows `fp` apart in `rows_q7`, columns c0 - pc0 .. c1 - pc0 of each, inside the
                    // piece; `staged_q7` holds len rows of 16 (and a pixel more), sized for the longest span.
                    unsafe { transpose_q7(a, from, fp, len, &mut sc.staged_q7) };
                    let staged = RowsQ7(&sc.staged_q7);
                    horizontal_fixed::<A, R, _>(a, &vf.cols, &pr.cols, c0, x0..x1, g, staged, &mut sc.sums, pr.clamp);
                    spill::<A, R>(a, pr, &sc.sums, 0..n, &mut sc.strip, x0..x1, pitch);
                }
            }
            for l in 0..n {
                // (The strip is rebuilt for every block: its rows are finished in place.)
                let row = &mut sc.strip[l * pitch..][..row_len];
                // SAFETY: row yb + l < out height of the proved output plane (as in `unit`).
                unsafe { self.finish_row::<A>(a, row, &mut sc.converted, out_plane + (yb + l) as isize * oh, channel) };
            }
        }
        sc.fetched = (plane, fetched);
    }

    /// Applies the epilogue (if any) to the f32 output row `row` of channel group `channel` (in place) and stores it
    /// at byte offset `at` of the output (`converted`: room for the row in the output type).
    ///
    /// # Safety
    ///
    /// The row's elements lie inside the output buffer and no other thread writes them; inside level `A`'s target
    /// features.
    #[inline(always)]
    unsafe fn finish_row<A: Arch>(&self, a: A, row: &mut [f32], converted: &mut [u8], at: isize, channel: usize) {
        match &self.program.affine {
            // SAFETY: forwarded.
            Some(e) if e.identity => unsafe { self.store_converted(a, at, row, converted) },
            Some(e) if self.program.group == 1 => {
                let k = if e.scale.len() == 1 { 0 } else { channel };
                affine_one(row, e.scale[k], e.bias[k], e.clamp);
                // SAFETY: forwarded.
                unsafe { self.store_converted(a, at, row, converted) };
            }
            Some(e) => {
                affine(row, &e.scale, &e.bias, e.clamp);
                // SAFETY: forwarded.
                unsafe { self.store_converted(a, at, row, converted) };
            }
            // SAFETY: forwarded.
            None => unsafe { self.store_row::<A>(a, at, row) },
        }
    }

    /// Reads `pixels` pixels of the group at byte offset `at` of a float input (u8 ones take [`Self::load_bytes`])
    /// as f32 into `row`.
    ///
    /// # Safety
    ///
    /// The pixels' elements lie inside the input buffer; inside level `A`'s target features.
    #[inline(always)]
    unsafe fn load_span<A: Arch>(&self, a: A, at: isize, pixels: usize, row: &mut [f32]) {
        let p = &self.program.plan;
        let g = self.program.group;
        let (sc, sw) = (p.in_strides[1], p.in_strides[3]);
        let base = self.src.0.cast_const().wrapping_offset(at);
        let n = pixels * g;
        if self.program.contiguous {
            match p.ty {
                // SAFETY: n contiguous f16 elements (caller), `row` holds n f32; level A (caller).
                ElemType::F16 => unsafe { crate::convert::f16_to_f32::<A>(a, base, row.as_mut_ptr().cast(), n) },
                // SAFETY: n contiguous f32 elements (caller); `row` holds n and is another buffer.
                _ => unsafe { core::ptr::copy_nonoverlapping(base, row.as_mut_ptr().cast(), n * 4) },
            }
            return;
        }
        for x in 0..pixels {
            for c in 0..g {
                let e = base.wrapping_offset(x as isize * sw + c as isize * sc);
                // SAFETY: an element of the span (caller).
                row[x * g + c] = unsafe { read_float(p.ty, e) };
            }
        }
    }

    /// Reads `pixels` pixels of the group at byte offset `at` of a u8 input into `row`.
    ///
    /// # Safety
    ///
    /// The pixels' elements lie inside the input buffer.
    #[inline(always)]
    unsafe fn load_bytes(&self, at: isize, pixels: usize, row: &mut [u8]) {
        let p = &self.program.plan;
        let g = self.program.group;
        let (sc, sw) = (p.in_strides[1], p.in_strides[3]);
        let base = self.src.0.cast_const().wrapping_offset(at);
        if self.program.contiguous {
            // SAFETY: the span's contiguous bytes (caller); `row` is another buffer of their length.
            unsafe { core::ptr::copy_nonoverlapping(base, row.as_mut_ptr(), row.len()) };
            return;
        }
        for x in 0..pixels {
            for c in 0..g {
                // SAFETY: an element of the span (caller).
                row[x * g + c] = unsafe { *base.wrapping_offset(x as isize * sw + c as isize * sc) };
            }
        }
    }

    /// Converts the f32 output row `out` (pixels of the group, or its planes) to the epilogue's output type at byte
    /// offset `at` of the output: straight into a row that is one run, a plane at a time into rows of planes,
    /// element by element (through `converted`) otherwise.
    ///
    /// # Safety
    ///
    /// The row's elements lie inside the output buffer and no other thread writes them; `converted` holds the row
    /// in the output type; inside level `A`'s target features.
    #[inline(always)]
    unsafe fn store_converted<A: Arch>(&self, a: A, at: isize, out: &[f32], converted: &mut [u8]) {
        let p = &self.program.plan;
        let g = self.program.group;
        let ow = p.out_ty.width();
        let (oc, sw) = (p.out_strides[1], p.out_strides[3]);
        let base = self.dst.0.wrapping_offset(at);
        let n = out.len();
        let cast = crate::convert::nearest_fn::<A>(p.out_ty);
        // A run of `len` converted elements from `from` to `to`: streamed f32 (`self.stream`), else converted.
        let put = |from: *const f32, to: *mut u8, len: usize| {
            if self.stream {
                // SAFETY: `len` f32 destinations at `to` and sources at `from` (caller, below); the level's
                // registers (caller).
                unsafe { stream_f32::<A>(a, from, to, len) };
            } else {
                // SAFETY: as above; `cast` converts f32 to the output type.
                unsafe { cast(from.cast(), to, len) };
            }
        };
        if self.program.out_contiguous {
            // n contiguous destinations of the row (caller), from the n f32 of `out`.
            put(out.as_ptr(), base, n);
            return;
        }
        if self.program.planar {
            let w = n / g;
            for c in 0..g {
                // The w contiguous elements of channel c's row (caller: the planar layout has a column stride of
                // one element), from plane c of `out`.
                put(out[c * w..].as_ptr(), base.wrapping_offset(c as isize * oc), w);
            }
            return;
        }
        // SAFETY: `converted` holds n elements of the output type; `out` n f32.
        unsafe { cast(out.as_ptr().cast(), converted.as_mut_ptr(), n) };
        for i in 0..n {
            let e = base.wrapping_offset((i / g) as isize * sw + (i % g) as isize * oc);
            // SAFETY: element i of the row (caller), from element i of `converted`.
            unsafe { core::ptr::copy_nonoverlapping(converted.as_ptr().add(i * ow), e, ow) };
        }
    }

    /// Writes the f32 output row `out` (pixels of the group) at byte offset `at` of the output.
    ///
    /// # Safety
    ///
    /// The row's elements lie inside the output buffer and no other thread writes them; inside level `A`'s target
    /// features.
    #[inline(always)]
    unsafe fn store_row<A: Arch>(&self, a: A, at: isize, out: &[f32]) {
        let p = &self.program.plan;
        let g = self.program.group;
        let (sc, sw) = (p.out_strides[1], p.out_strides[3]);
        let base = self.dst.0.wrapping_offset(at);
        let n = out.len();
        if self.program.out_contiguous {
            match p.ty {
                ElemType::U8 => {
                    // SAFETY: n contiguous u8 destinations (caller); `out` holds n f32; level A (caller).
                    let done = unsafe { a.f32_to_u8_half_up(out.as_ptr().cast(), base, n) };
                    // (Packs at the 32-byte level, see `to_u8`.)
                    let pack = A::BYTES == 32;
                    for (i, &v) in out.iter().enumerate().skip(done) {
                        // SAFETY: element i of the contiguous row (caller).
                        unsafe { *base.add(i) = to_u8(v, pack) };
                    }
                }
                // SAFETY: n contiguous f16 destinations (caller); `out` holds n f32; level A (caller).
                ElemType::F16 => unsafe { crate::convert::f32_to_f16::<A>(a, out.as_ptr().cast(), base, n) },
                // SAFETY: n contiguous f32 destinations (caller), another buffer than `out`.
                _ => unsafe { core::ptr::copy_nonoverlapping(out.as_ptr().cast(), base, n * 4) },
            }
            return;
        }
        for (i, &v) in out.iter().enumerate() {
            let e = base.wrapping_offset((i / g) as isize * sw + (i % g) as isize * sc);
            // SAFETY: an element of the row (caller).
            unsafe { write(p.ty, e, v) };
        }
    }
}

/// The horizontal sums of output columns `xs` (channels `g` each) from `R` staged rows whose span starts at input
/// column `c0`, transposed into `sums`; clamped to 0..=255 when `clamp` (as Pillow clamps its u8 intermediate image).
#[inline(always)]
fn horizontal<const R: usize>(
    cols: &Taps,
    c0: usize,
    xs: core::ops::Range<usize>,
    g: usize,
    staged: &[f32],
    sums: &mut [f32],
    clamp: bool,
) {
    match g {
        1 => float_pixels::<R, 1>(cols, c0, xs, 0, 1, staged, sums, clamp),
        2 => float_pixels::<R, 2>(cols, c0, xs, 0, 2, staged, sums, clamp),
        3 => float_pixels::<R, 3>(cols, c0, xs, 0, 3, staged, sums, clamp),
        4 => float_pixels::<R, 4>(cols, c0, xs, 0, 4, staged, sums, clamp),
        _ => {
            for c in 0..g {
                float_pixels::<R, 1>(cols, c0, xs.clone(), c, g, staged, sums, clamp);
            }
        }
    }
}

/// [`horizontal`] of channels `c..c + G` of pixels of `g` channels: each tap's weight multiplies the `G` channels'
/// registers in one pass.
///
/// PERF: f32 1920×1080×3 → 224² bilinear, one thread, Zen 4: one channel per pass over the taps 2.8–3.0 ms, the
/// three together 2.1–2.3 ms.
#[inline(always)]
#[allow(clippy::too_many_arguments)]
fn float_pixels<const R: usize, const G: usize>(
    cols: &Taps,
    c0: usize,
    xs: core::ops::Range<usize>,
    c: usize,
    g: usize,
    staged: &[f32],
    sums: &mut [f32],
    clamp: bool,
) {
    let k = cols.taps;
    for (j, x) in xs.enumerate() {
        let w = &cols.weights[x * k..][..k];
        let s = cols.start[x] - c0;
        // Every tap's registers of the channels inside `staged` (one check for the pixel).
        let staged = &staged[(s * g + c) * R..][..((k - 1) * g + G) * R];
        let mut acc = [[0f32; R]; G];
        let mut p = staged.as_ptr();
        for &wt in w {
            for (ch, acc) in acc.iter_mut().enumerate() {
                // SAFETY: tap t's register of channel c + ch, `staged[(t·g + ch)·R..][..R]`, inside the slice checked
                // above; `p` steps over one pixel (g registers) per tap.
                let v = unsafe { p.add(ch * R).cast::<[f32; R]>().read() };
                for (d, v) in acc.iter_mut().zip(v) {
                    *d += wt * v;
                }
            }
            p = p.wrapping_add(g * R);
        }
        for (ch, mut acc) in acc.into_iter().enumerate() {
            if clamp {
                for v in &mut acc {
                    *v = v.clamp(0.0, 255.0);
                }
            }
            sums[(j * g + c + ch) * R..][..R].copy_from_slice(&acc);
        }
    }
}

/// `dst[c·ds + r] = src[r·ss + c]` for `r < rows`, `c < cols` (f32 elements): 8×8 register tiles, the edges one
/// element at a time.
///
/// # Safety
///
/// The source rows and destination rows are inside their buffers (at any alignment), which do not overlap; inside
/// level `A`'s target features.
#[inline(always)]
unsafe fn transpose<A: Arch>(a: A, src: *const f32, ss: usize, dst: *mut f32, ds: usize, rows: usize, cols: usize) {
    let (r8, c8) = (rows / 8 * 8, cols / 8 * 8);
    for r in (0..r8).step_by(8) {
        for c in (0..c8).step_by(8) {
            let (s, d) = (src.wrapping_add(r * ss + c), dst.wrapping_add(c * ds + r));
            // SAFETY: an 8×8 tile inside both matrices (caller).
            unsafe { a.tile8::<4, Ident>(s.cast(), (ss * 4) as isize, d.cast(), (ds * 4) as isize, Ident) };
        }
    }
    // The edges: the last columns of the tiled rows (none when the columns are whole tiles: the usual R lanes),
    // then the last rows.
    let edge = |r: core::ops::Range<usize>, c: core::ops::Range<usize>| {
        for r in r {
            for c in c.clone() {
                // SAFETY: element (r, c) of both matrices (caller), at any alignment.
                unsafe { dst.add(c * ds + r).write_unaligned(src.add(r * ss + c).read_unaligned()) };
            }
        }
    };
    if c8 < cols {
        edge(0..r8, c8..cols);
    }
    edge(r8..rows, 0..cols);
}

/// `staged[i·16 + l] = src[l·ss + i]` for `i < len`, `l < 16`: 16 rows of `len` bytes transposed 16×32 and 8×8 at
/// a time in registers, the last columns one byte at a time.
///
/// # Safety
///
/// Inside level `A`'s target features; the 16 rows of `len` bytes at `src`, `ss` apart, are readable; `staged` holds
/// at least `len · 16` bytes (checked) and does not overlap them.
#[inline(always)]
unsafe fn transpose_bytes<A: Arch>(a: A, src: *const u8, ss: isize, len: usize, staged: &mut [u8]) {
    let staged = &mut staged[..16 * len];
    let len32 = len / 32 * 32;
    for c in (0..len32).step_by(32) {
        // SAFETY: columns c..c + 32 of the 16 rows (caller), rows c..c + 32 of `staged` (checked above).
        unsafe { a.tile16x32_u8(src.wrapping_add(c), ss, staged[c * 16..].as_mut_ptr()) };
    }
    let len8 = len / 8 * 8;
    for c in (len32..len8).step_by(8) {
        for r in [0, 8] {
            let d = staged[c * 16 + r..].as_mut_ptr();
            // SAFETY: rows r..r + 8, columns c..c + 8 of the source (caller); rows c..c + 8, lanes r..r + 8 of
            // `staged` (checked above).
            unsafe { a.tile8::<1, Ident>(src.wrapping_offset(r as isize * ss).wrapping_add(c), ss, d, 16, Ident) };
        }
    }
    for c in len8..len {
        for (l, d) in staged[c * 16..][..16].iter_mut().enumerate() {
            // SAFETY: byte c of row l (caller).
            *d = unsafe { *src.wrapping_offset(l as isize * ss).wrapping_add(c) };
        }
    }
}

/// [`transpose_bytes`] of 16 rows of i16 (`ss` elements apart) into `staged` (16 lanes per element): 8×8 tiles of
/// 2-byte elements, the edge one element at a time.
///
/// # Safety
///
/// `src + r·ss .. + len`, `r < 16`, are readable; `staged` holds at least `len · 16` elements (checked) and does not
/// overlap them.
#[inline(always)]
unsafe fn transpose_q7<A: Arch>(a: A, src: *const i16, ss: usize, len: usize, staged: &mut [i16]) {
    let staged = &mut staged[..16 * len];
    let len8 = len / 8 * 8;
    for c in (0..len8).step_by(8) {
        for r in [0, 8] {
            let d = staged[c * 16 + r..].as_mut_ptr().cast::<u8>();
            let s = src.wrapping_add(r * ss + c).cast::<u8>();
            // SAFETY: rows r..r + 8, columns c..c + 8 of the source (caller); rows c..c + 8, lanes r..r + 8 of
            // `staged` (checked above), 32 bytes apart.
            unsafe { a.tile8::<2, Ident>(s, 2 * ss as isize, d, 32, Ident) };
        }
    }
    for c in len8..len {
        for (l, d) in staged[c * 16..][..16].iter_mut().enumerate() {
            // SAFETY: element c of row l (caller).
            *d = unsafe { src.wrapping_add(l * ss + c).read_unaligned() };
        }
    }
}

/// A span's staged columns as the fixed-point horizontal taps read them: u8 pixels paired ([`Paired`]) or rows in
/// 1/128 units ([`RowsQ7`]).
trait Staging {
    /// The lanes' units in the sums: 1 for pixels, 1/128 for rows in 1/128 units.
    const UNIT: f32;

    /// The 16 lanes' sums of output pixel `x`, channels `c..c + G` of `g`, whose window starts at staged column `s`.
    fn sums<A: Arch, const G: usize>(&self, a: A, fixed: &Fixed, x: usize, s: usize, cg: (usize, usize)) -> Sums<G>;
}

type Sums<const G: usize> = [[i32; 16]; G];

/// u8 pixels staged in pairs of columns ([`pair_columns`]): each column widened and interleaved once, rather than
/// once for every output pixel whose taps read it.
///
/// PERF (one thread, Zen 4 VM, u8 RGB bicubic antialiased: about four outputs read each column): the taps loop
/// widened and interleaved each pair of columns itself, ~45 % of the time, shuffle-bound. Paired first, 1920×1080 →
/// 224² 819 → 660 µs at the AVX-512 level (a block one `vpmaddwd`), 891 → 842 µs at AVX2; 2560×1600 → 320×200
/// 1680 → 1300 and 1749 → 1635 µs. Rows in 1/128 units (below) stay unpaired: a rows-first resize filters rows
/// already shrunk, about two outputs read each column, and pairing them cost more than it saved (bilinear 1080p →
/// 224², 296 → 317 µs).
struct Paired<'a>(&'a [i16]);

impl Staging for Paired<'_> {
    const UNIT: f32 = 1.0;

    #[inline(always)]
    fn sums<A: Arch, const G: usize>(
        &self,
        a: A,
        fixed: &Fixed,
        x: usize,
        s: usize,
        (c, g): (usize, usize),
    ) -> Sums<G> {
        // A window from an odd column starts a column early, at the block of columns s - 1 and s.
        let pairs = fixed.window(x, s % 2 == 1);
        // Every block of the window's channels, the padded taps included, inside the pairs (one check per pixel).
        let blocks = &self.0[(s / 2 * g + c) * 32..][..((pairs.len() - 1) * g + G) * 32];
        let mut acc = [[0; 16]; G];
        // SAFETY: blocks i < pairs.len() of channels c..c + G at `blocks[(i·g + k)·32..][..32]`, inside the slice
        // checked above; the weights' sums fit i32 (`Fixed::new`).
        unsafe { a.taps_pairs::<G>(blocks.as_ptr(), g * 32, pairs, &mut acc) };
        acc
    }
}

/// Rows in 1/128 units staged as they are (see [`Paired`]).
struct RowsQ7<'a>(&'a [i16]);

impl Staging for RowsQ7<'_> {
    const UNIT: f32 = 1.0 / 128.0;

    #[inline(always)]
    fn sums<A: Arch, const G: usize>(
        &self,
        a: A,
        fixed: &Fixed,
        x: usize,
        s: usize,
        (c, g): (usize, usize),
    ) -> Sums<G> {
        let pairs = fixed.window(x, false);
        // Every tap's 16 lanes of the channels, the padded tap included, inside `staged` (one check per pixel).
        let taps = &self.0[(s * g + c) * 16..][..((2 * pairs.len() - 1) * g + G) * 16];
        let mut acc = [[0; 16]; G];
        // SAFETY: taps t < 2·pairs.len() of channels c..c + G at `taps[(t·g + k)·16..][..16]`, inside the slice
        // checked above; the weights' sums fit i32 (`Fixed::new`).
        unsafe { a.taps_i16::<G>(taps.as_ptr(), g * 16, pairs, &mut acc) };
        acc
    }
}

/// Blocks of staged u8 columns in pairs, as [`Arch::taps_pairs`] reads them: block `(p, ch)`, at
/// `out[(p·g + ch)·32..]`, holds the 16 lanes of columns `2p` and `2p + 1` of channel `ch`
/// (`staged[(col·g + ch)·16 + l]`), for `p < blocks` ([`Arch::pair_bytes`]).
#[inline(always)]
fn pair_columns<A: Arch>(a: A, staged: &[u8], g: usize, blocks: usize, out: &mut [i16]) {
    let (staged, out) = (&staged[..2 * blocks * g * 16], &mut out[..blocks * g * 32]);
    for (two, o) in staged.chunks_exact(2 * g * 16).zip(out.chunks_exact_mut(g * 32)) {
        let (first, second) = two.split_at(g * 16);
        for ((x, y), o) in first.chunks_exact(16).zip(second.chunks_exact(16)).zip(o.chunks_exact_mut(32)) {
            // SAFETY: 16 bytes at x and at y, 32 i16 at o (the chunks).
            unsafe { a.pair_bytes(x.as_ptr(), y.as_ptr(), o.as_mut_ptr()) };
        }
    }
}

/// [`horizontal`] of 16 staged rows in fixed point ([`Fixed`]), the sums back in f32 input units (`R` = 16).
#[inline(always)]
#[allow(clippy::too_many_arguments)]
fn horizontal_fixed<A: Arch, const R: usize, S: Staging>(
    a: A,
    fixed: &Fixed,
    cols: &Taps,
    c0: usize,
    xs: core::ops::Range<usize>,
    g: usize,
    staged: S,
    sums: &mut [f32],
    clamp: bool,
) {
    let run = (fixed, cols, c0, g, &staged, clamp);
    match g {
        1 => fixed_pixels::<A, R, 1, S>(a, run, xs, 0, sums),
        2 => fixed_pixels::<A, R, 2, S>(a, run, xs, 0, sums),
        3 => fixed_pixels::<A, R, 3, S>(a, run, xs, 0, sums),
        4 => fixed_pixels::<A, R, 4, S>(a, run, xs, 0, sums),
        _ => {
            for c in 0..g {
                fixed_pixels::<A, R, 1, S>(a, run, xs.clone(), c, sums);
            }
        }
    }
}

/// [`horizontal_fixed`] of channels `c..c + G` of pixels of `g` channels.
#[inline(always)]
fn fixed_pixels<A: Arch, const R: usize, const G: usize, S: Staging>(
    a: A,
    (fixed, cols, c0, g, staged, clamp): (&Fixed, &Taps, usize, usize, &S, bool),
    xs: core::ops::Range<usize>,
    c: usize,
    sums: &mut [f32],
) {
    // (Powers of two: the product is exact.)
    let scale = fixed.scale * S::UNIT;
    for (j, x) in xs.enumerate() {
        let acc = staged.sums::<A, G>(a, fixed, x, cols.start[x] - c0, (c, g));
        for (k, acc) in acc.iter().enumerate() {
            // (Units run fixed-point lanes with R = 16.)
            let out = &mut sums[(j * g + c + k) * R..][..R];
            for (d, &v) in out.iter_mut().zip(acc) {
                let v = v as f32 * scale;
                *d = if clamp { v.clamp(0.0, 255.0) } else { v };
            }
        }
    }
}

/// Output elements per block of the vertical pass over three taps or more: the block's sums stay in registers across
/// all its taps.
const VBLOCK: usize = 64;
/// Most taps the blocks take (their rows' offsets computed once per row, on the stack); more go tap by tap.
const VTAPS: usize = 64;

/// `out = Σ w · strip row (slot mod rows)` over the `(slot, w)` taps, rows of `out.len()` `pitch` apart (the strip
/// a ring): each product rounded, then added to the sum in tap order.
///
/// PERF (one thread, Zen 4 VM, u8 RGB bicubic antialiased, five alternations, median µs): tap by tap over the whole
/// row, each tap loaded and stored the row's sums again (two of five instructions a register); in blocks of
/// `VBLOCK`, AVX2 level: 1920×1080 → 224² 831 → 803, 2560×1600 → 320×200 1702 → 1640, 640×480 → 341×256 386 →
/// 364; AVX-512 level within the noise (668 → 664, 1347 → 1386, 342 → 334).
#[inline(always)]
fn vertical(strip: &[f32], pitch: usize, taps: &[(usize, f32)], out: &mut [f32]) {
    let n = out.len();
    let cap = strip.len() / pitch;
    let row = |slot: usize| &strip[(slot % cap) * pitch..][..n];
    let Some((&(first, w0), rest)) = taps.split_first() else {
        out.fill(0.0);
        return;
    };
    if let [(second, w1)] = *rest {
        // Two taps (sampled bilinear): one pass, the same sum (each product rounded, then their sum).
        for ((d, &a), &b) in out.iter_mut().zip(row(first)).zip(row(second)) {
            *d = w0 * a + w1 * b;
        }
        return;
    }
    let mut done = 0;
    if taps.len() <= VTAPS {
        let (mut at, mut ws) = ([0usize; VTAPS], [0f32; VTAPS]);
        for ((a, w), &(slot, wt)) in at.iter_mut().zip(&mut ws).zip(taps) {
            (*a, *w) = ((slot % cap) * pitch, wt);
        }
        let (at, ws) = (&at[1..taps.len()], &ws[1..taps.len()]);
        let first = row(first);
        for (i, d) in (0..n).step_by(VBLOCK).zip(out.chunks_exact_mut(VBLOCK)) {
            let mut acc = [0f32; VBLOCK];
            for (s, &v) in acc.iter_mut().zip(&first[i..][..VBLOCK]) {
                *s = w0 * v;
            }
            for (&o, &wt) in at.iter().zip(ws) {
                for (s, &v) in acc.iter_mut().zip(&strip[o + i..][..VBLOCK]) {
                    *s += wt * v;
                }
            }
            d.copy_from_slice(&acc);
        }
        done = n / VBLOCK * VBLOCK;
    }
    let out = &mut out[done..];
    for (d, &v) in out.iter_mut().zip(&row(first)[done..]) {
        *d = w0 * v;
    }
    for &(slot, wt) in rest {
        for (d, &v) in out.iter_mut().zip(&row(slot)[done..]) {
            *d += wt * v;
        }
    }
}

/// Copies `n` f32 from `src` to `dst` (any alignment), the whole 64-byte lines of the destination with non-temporal
/// stores of the level's registers, the bytes before and after them with regular ones (a line is never written both
/// ways, see [`crate::arch::stream_lines`]).
///
/// # Safety
///
/// `n` f32 readable at `src` and writable at `dst`, not overlapping; inside level `A`'s target features.
#[inline(always)]
unsafe fn stream_f32<A: Arch>(a: A, src: *const f32, dst: *mut u8, n: usize) {
    let bytes = n * 4;
    let (s, d) = (src.cast::<u8>(), dst);
    let Some((head, end)) = crate::arch::stream_lines(d as usize, bytes) else {
        // SAFETY: the caller's ranges.
        unsafe { core::ptr::copy_nonoverlapping(s, d, bytes) };
        return;
    };
    // SAFETY: (whole block) [0, head), [head, end) and [end, bytes) lie inside both ranges (stream_lines); the
    // middle's destination lines are aligned to 64 bytes, so to every register width dividing it.
    unsafe {
        core::ptr::copy_nonoverlapping(s, d, head);
        for o in (head..end).step_by(A::BYTES) {
            a.stream(d.add(o), a.load(s.add(o)));
        }
        core::ptr::copy_nonoverlapping(s.add(end), d.add(end), bytes - end);
    }
}

/// `out[i] = clamp(out[i]) · scale + bias`: the product and the sum each rounded (never fused).
#[inline(always)]
#[allow(clippy::manual_clamp)] // `clamp` panics on bounds it cannot order; these come from the plan
fn affine_one(out: &mut [f32], scale: f32, bias: f32, clamp: Option<[f32; 2]>) {
    match clamp {
        Some([lo, hi]) => out.iter_mut().for_each(|v| *v = v.max(lo).min(hi) * scale + bias),
        None => out.iter_mut().for_each(|v| *v = *v * scale + bias),
    }
}

/// `out[i] = clamp(out[i]) · scale[i] + bias[i]`: the product and the sum each rounded (never fused).
#[inline(always)]
#[allow(clippy::manual_clamp)] // `clamp` panics on bounds it cannot order; these come from the plan
fn affine(out: &mut [f32], scale: &[f32], bias: &[f32], clamp: Option<[f32; 2]>) {
    match clamp {
        Some([lo, hi]) => {
            for ((v, &s), &b) in out.iter_mut().zip(scale).zip(bias) {
                *v = v.max(lo).min(hi) * s + b;
            }
        }
        None => {
            for ((v, &s), &b) in out.iter_mut().zip(scale).zip(bias) {
                *v = *v * s + b;
            }
        }
    }
}

/// Rounds half up into 0..=255 (as Pillow's and OpenCV's fixed-point u8 paths; NaN → 0): the scalar level's rows
/// and the other levels' last elements ([`Arch::f32_to_u8_half_up`] takes the rest). With `pack` (a constant
/// where it is inlined), the integer (already in 0..=255) is clamped again, which changes nothing but lets the
/// compiler narrow with saturating packs.
///
/// PERF (one thread, Zen 4 VM, `Resize` u8 RGB 224² → 640², µs, three alternations): at AVX2 a plain truncation
/// took a byte shuffle per four values, the packs two per 32: sampled bilinear 247 → 237, area 237 → 225, bilinear
/// antialiased 343 → 320. AVX-512 narrows either way in one `vpmov` and keeps the truncation (the clamp measured
/// no better there).
#[inline(always)]
#[allow(clippy::manual_clamp)] // `clamp` keeps NaN, which the unchecked conversion must not see
fn to_u8(v: f32, pack: bool) -> u8 {
    // `max` takes 0 over NaN.
    let v = v.max(0.0).min(255.0) + 0.5;
    // SAFETY: 0.5 ≤ v ≤ 255.5, finite: its truncation fits an i32 (a conversion the vector units do in one step).
    let i = unsafe { v.to_int_unchecked::<i32>() };
    if pack { i.clamp(0, 255) as u8 } else { i as u8 }
}

/// One element of float type `ty` (`F16` or `F32`) at `p`, as f32.
///
/// # Safety
///
/// `p` points to a readable element.
#[inline(always)]
unsafe fn read_float(ty: ElemType, p: *const u8) -> f32 {
    // SAFETY: forwarded.
    unsafe {
        match ty {
            ElemType::F16 => f16_to_f32_scalar(p.cast::<u16>().read_unaligned()),
            _ => p.cast::<f32>().read_unaligned(),
        }
    }
}

/// Writes `v` as an element of type `ty` at `p`.
///
/// # Safety
///
/// `p` points to a writable element.
#[inline(always)]
unsafe fn write(ty: ElemType, p: *mut u8, v: f32) {
    // SAFETY: forwarded.
    unsafe {
        match ty {
            ElemType::U8 => *p = to_u8(v, false),
            ElemType::F16 => p.cast::<u16>().write_unaligned(f32_to_f16_scalar(v)),
            _ => p.cast::<f32>().write_unaligned(v),
        }
    }
}

#[cfg(feature = "selftest")]
#[strider_kernels_macros::selftests]
mod tests {
    use super::*;

    /// Pins the columns-first strip's row pitch: rows whose 16 starts fall in few L1 sets (about 4 KiB or a multiple
    /// of 2 KiB apart) move to an odd number of lines; rows already spread over the sets, and rows whose 16 fit in
    /// 4 KiB, keep their length.
    #[test]
    fn strip_rows_leave_shared_sets() {
        // 341 RGB pixels (4092 bytes), a 1024-wide plane, 512 RGB pixels (6 KiB), 2048 f32: padded.
        assert_eq!(strip_pitch(1023), 1040);
        assert_eq!(strip_pitch(1024), 1040);
        assert_eq!(strip_pitch(1536), 1552);
        assert_eq!(strip_pitch(2048), 2064);
        // 640 RGB pixels (8 sets), 320 (16), 224 (16), short rows: kept.
        for n in [1920, 960, 672, 64, 48, 5, 1] {
            assert_eq!(strip_pitch(n), n, "{n}");
        }
        for n in 1..5000 {
            let p = strip_pitch(n);
            assert!(p == n || (p > n && p < n + 32 && p.is_multiple_of(16)), "{n} -> {p}");
        }
    }

    /// `Affine::identity` holds only where skipping the map gives the same output: the values converted after
    /// `clamp(v) · 1 + 0` and converted as they are, for edge values (ties, the types' bounds, ±0, ±∞, NaN), into
    /// every integer type it takes; and it refuses floats, other pairs and clamps inside the type's range.
    #[test]
    fn identity_epilogues_change_no_output() {
        let convert = |to: ElemType, v: f32| {
            let mut out = [0u8; 8];
            // SAFETY: one f32 in, one element of `to` (at most 8 bytes) out; the scalar level runs everywhere.
            unsafe {
                crate::convert::nearest_fn::<crate::arch::Scalar>(to)(v.to_le_bytes().as_ptr(), out.as_mut_ptr(), 1)
            };
            out
        };
        let values = [
            -0.0f32,
            0.0,
            0.5,
            1.5,
            2.5,
            -0.5,
            -1.5,
            126.5,
            127.5,
            128.5,
            254.5,
            255.5,
            256.0,
            -128.5,
            -129.0,
            1e9,
            -1e9,
            65535.5,
            -32768.5,
            f32::INFINITY,
            f32::NEG_INFINITY,
            f32::NAN,
            3.3,
            -7.7,
        ];
        let clamps = [None, Some([0.0, 255.0]), Some([-128.0, 127.0]), Some([-1e9, 1e9]), Some([0.0, 65535.0])];
        let mut taken = 0;
        for to in [ElemType::U8, ElemType::I8, ElemType::U16, ElemType::I16, ElemType::I32, ElemType::F32] {
            for clamp in clamps {
                for pairs in [&[[1.0f32, 0.0]][..], &[[1.0, 0.0], [1.0, 0.0], [1.0, 0.0]], &[[1.0, 0.5]], &[[2.0, 0.0]]]
                {
                    if !Affine::identity(pairs, clamp, to) {
                        continue;
                    }
                    taken += 1;
                    for v in values {
                        // As `affine`: NaN clamps to the low bound.
                        #[allow(clippy::manual_clamp)]
                        let clamped = clamp.map_or(v, |[lo, hi]| v.max(lo).min(hi));
                        let mapped = clamped * 1.0 + 0.0;
                        assert_eq!(convert(to, mapped), convert(to, v), "{to:?} {clamp:?} {pairs:?} {v}");
                    }
                }
            }
        }
        assert!(taken >= 6, "{taken}");
        assert!(Affine::identity(&[[1.0, 0.0]], Some([0.0, 255.0]), ElemType::U8));
        assert!(!Affine::identity(&[[1.0, 0.0]], Some([0.0, 255.0]), ElemType::I8));
        assert!(!Affine::identity(&[[1.0, 0.0]], None, ElemType::F32));
        assert!(!Affine::identity(&[[1.0, 0.0]], None, ElemType::F16));
        assert!(!Affine::identity(&[[1.0, 0.0], [1.0, 1.0]], None, ElemType::U8));
        assert!(!Affine::identity(&[[1.0, 0.0]], Some([0.0, 65535.0]), ElemType::I32));
        assert!(!Affine::identity(&[[1.0, 0.0]], Some([-128.0, 127.0]), ElemType::I8));
        assert!(Affine::identity(&[[1.0, 0.0]], None, ElemType::I8));
    }
}
