//! `Resize` against a naive float64 evaluation of its own weights (one obvious loop over output coordinates: the
//! horizontal sum of each tap row, clamped to 0..=255 for Pillow's u8 definition, then the vertical sum), for every
//! filter and definition, u8/f16/f32, layouts (planes, interleaved pixels, padded rows, mirrored axes), shrinking
//! and growing by integer and other factors, 1-pixel images, extreme aspect ratios, every instruction set and
//! thread configuration (the same bits everywhere); the weights against hand-computed ones; every validation rule.
//! (Pillow and OpenCV themselves are the oracles of the Python tests.)

mod common;

use common::{Buf, SENTINEL, configs, with_threads};
use rand::Rng;
use strider::{DataType, Error, ExecOptions, Resize, ResizeFilter, TensorDesc, half::f16};

const FILTERS: [ResizeFilter; 4] =
    [ResizeFilter::Nearest, ResizeFilter::Bilinear, ResizeFilter::Bicubic, ResizeFilter::Area];
const TYPES: [DataType; 3] = [DataType::Uint8, DataType::Float16, DataType::Float32];

fn read(dt: DataType, b: &[u8]) -> f64 {
    match dt {
        DataType::Uint8 => f64::from(b[0]),
        DataType::Float16 => f64::from(f16::from_le_bytes([b[0], b[1]]).to_f32()),
        _ => f64::from(f32::from_le_bytes(b.try_into().unwrap())),
    }
}

/// Element offset of `[n, c, h, w]` in a rank-4 descriptor (reversed dimensions from their far end).
fn at(t: &TensorDesc, c: [usize; 4]) -> usize {
    common::arrays::offset(t, &c)
}

/// The naive evaluation, in f64, of every output element: `Σᵢ wy[i] · clamp(Σⱼ wx[j] · x[sy + i, sx + j])`.
fn reference(op: &Resize, src: &[u8]) -> Vec<f64> {
    let (i, o) = (op.input(), op.output());
    let dt = i.data_type();
    let w = dt.size_in_bytes();
    let [rows, cols] = op.taps();
    let clamp = |v: f64| if dt == DataType::Uint8 && op.antialias() { v.clamp(0.0, 255.0) } else { v };
    let s = o.sizes();
    let mut out = Vec::new();
    for n in 0..s[0] as usize {
        for c in 0..s[1] as usize {
            for y in 0..s[2] as usize {
                for x in 0..s[3] as usize {
                    let (ky, kx) = (rows.taps(), cols.taps());
                    let mut v = 0.0;
                    for a in 0..ky {
                        let mut h = 0.0;
                        for b in 0..kx {
                            let e = at(i, [n, c, rows.start()[y] + a, cols.start()[x] + b]);
                            h += f64::from(cols.weights()[x * kx + b]) * read(dt, &src[e * w..][..w]);
                        }
                        v += f64::from(rows.weights()[y * ky + a]) * clamp(h);
                    }
                    out.push(v);
                }
            }
        }
    }
    out
}

/// Whether `got` (an output element) is the f64 value `want` up to f32 sums: u8 within 1 of its rounding, floats
/// within a few f32 (and one f16) steps of the largest magnitude summed.
fn close(dt: DataType, got: f64, want: f64, magnitude: f64) -> bool {
    match dt {
        DataType::Uint8 => (got - (want.clamp(0.0, 255.0) + 0.5).floor()).abs() <= 1.0,
        DataType::Float16 => (got - want).abs() <= want.abs() / 1024.0 + magnitude * 1e-5,
        _ => (got - want).abs() <= magnitude * 1e-5,
    }
}

fn random_value(r: &mut impl Rng, dt: DataType) -> Vec<u8> {
    match dt {
        DataType::Uint8 => vec![r.random()],
        DataType::Float16 => f16::from_f32(r.random_range(-2.0..3.0)).to_le_bytes().to_vec(),
        _ => r.random_range(-2.0f32..3.0).to_le_bytes().to_vec(),
    }
}

/// Layout `k` of `[n, c, h, w]`: planes, interleaved pixels, interleaved with padded rows and pixels, planes with
/// mirrored rows and columns.
fn layout(k: usize, dt: DataType, s: [u32; 4]) -> TensorDesc {
    let [_, c, h, w] = s;
    match k % 4 {
        0 => TensorDesc::nchw(dt, s).unwrap(),
        1 => TensorDesc::nhwc(dt, s).unwrap(),
        2 => {
            let (pixel, row) = (c + 1, (c + 1) * w + 3);
            TensorDesc::with_strides(dt, &s, &[row * h, 1, row, pixel]).unwrap()
        }
        _ => TensorDesc::with_strides(dt, &s, &[c * h * w, h * w, w, 1]).unwrap().with_reversed_dims(&[2, 3]).unwrap(),
    }
}

/// One case: every configuration gives the same bits, and those match the reference.
fn check(
    dt: DataType,
    filter: ResizeFilter,
    antialias: bool,
    [n, c]: [u32; 2],
    from: [u32; 2],
    to: [u32; 2],
    k: usize,
) {
    let mut r = common::rng(u64::from(from[0] * 7919 + from[1] * 31 + to[0] * 17 + to[1]) + k as u64);
    let input = layout(k, dt, [n, c, from[0], from[1]]);
    let output = layout(k / 4 + k + 1, dt, [n, c, to[0], to[1]]);
    let op = Resize::new(&input, &output, filter, antialias).unwrap();
    let w = dt.size_in_bytes();
    let mut src = Buf::filled(input.required_buffer_bytes() as usize, k % 5, 0);
    for e in src.bytes_mut().chunks_mut(w) {
        e.copy_from_slice(&random_value(&mut r, dt));
    }
    let magnitude = if dt == DataType::Uint8 { 255.0 } else { 3.0 };
    let want = reference(&op, src.bytes());
    let what = || format!("{dt:?} {filter:?} antialias={antialias} {n}x{c}x{from:?} -> {to:?} layouts {k}");
    let mut first: Option<Vec<u8>> = None;
    for (threads, opts) in configs() {
        let mut dst = Buf::filled(output.required_buffer_bytes() as usize, (k + 3) % 7, SENTINEL);
        with_threads(threads, || op.execute_with(src.bytes(), dst.bytes_mut(), &opts)).unwrap();
        let got = dst.bytes().to_vec();
        match &first {
            None => {
                let mut i = 0;
                let s = output.sizes();
                let mut written = vec![false; got.len()];
                for c4 in (0..s[0] as usize).flat_map(|a| (0..s[1] as usize).map(move |b| (a, b))) {
                    for y in 0..s[2] as usize {
                        for x in 0..s[3] as usize {
                            let e = at(&output, [c4.0, c4.1, y, x]) * w;
                            let v = read(dt, &got[e..e + w]);
                            assert!(close(dt, v, want[i], magnitude), "{}: element {i}: {v} vs {}", what(), want[i]);
                            written[e..e + w].iter_mut().for_each(|b| *b = true);
                            i += 1;
                        }
                    }
                }
                let stray = got.iter().zip(&written).position(|(&b, &wr)| !wr && b != SENTINEL);
                assert_eq!(stray, None, "{}: a padding byte was written", what());
                first = Some(got);
            }
            Some(f) => assert!(f == &got, "{}: {opts:?} on {threads} threads gives other bits", what()),
        }
    }
}

#[test]
fn matches_the_reference_in_every_configuration() {
    common::note_isas();
    let sizes: [([u32; 2], [u32; 2]); 10] = [
        ([1, 1], [1, 1]),
        ([1, 7], [3, 2]),
        ([17, 33], [7, 5]),
        ([7, 5], [17, 33]),
        ([64, 3], [3, 64]),
        ([20, 30], [10, 15]),
        ([9, 24], [9, 24]),
        ([33, 19], [10, 41]),
        ([5, 130], [2, 41]),
        ([18, 18], [8, 8]),
    ];
    let mut k = 0;
    for dt in TYPES {
        for filter in FILTERS {
            for antialias in [true, false] {
                for &(from, to) in &sizes {
                    let c = [1, 3, 4, 2][k % 4];
                    check(dt, filter, antialias, [1 + (k % 3 == 0) as u32, c], from, to, k);
                    k += 1;
                }
            }
        }
    }
}

/// Spans and strips of many units: a larger interleaved image, shrunk and grown.
#[test]
fn large_images_split_into_units_match() {
    for (k, (from, to)) in [([150u32, 700u32], [61u32, 250u32]), ([40, 90], [130, 333])].into_iter().enumerate() {
        check(DataType::Uint8, ResizeFilter::Bilinear, true, [1, 3], from, to, 1 + 4 * k);
        check(DataType::Float32, ResizeFilter::Bicubic, false, [1, 3], from, to, 4 * k);
    }
    // Columns first into strip rows whose 16 rows a spill writes would share L1 sets (1023 and 1024 f32), padded.
    check(DataType::Uint8, ResizeFilter::Bicubic, true, [1, 3], [100, 700], [40, 341], 1);
    check(DataType::Float32, ResizeFilter::Bicubic, true, [1, 1], [30, 2048], [12, 1024], 0);
    // Filtered rows first, rows of four spans or less (a span at a time) and longer (the whole width at once),
    // packed (NHWC) and from pixel slots (gathered first), antialiased and sampled.
    for width in [600, 1500] {
        for k in [1, 2] {
            check(DataType::Uint8, ResizeFilter::Bilinear, true, [1, 3], [60, width], [20, width / 3], k);
            check(DataType::Uint8, ResizeFilter::Area, false, [1, 3], [60, width], [20, width / 3], k);
        }
    }
}

/// Sampled resizes of interleaved 3- and 4-channel u8 pixels read each output pixel's pair of input pixels straight
/// from the rows on the levels with registers (`Arch::sampled_row_u8`): shrinks filter both axes in one pass, growths
/// each input row across without staging it. The bits of the staged passes the scalar level runs, into every output
/// layout, with windows up to each row's end (whose pairs the kernels take one element at a time).
#[test]
fn sampled_resizes_of_pixels_match_the_staged_passes() {
    let shrinks = [([37, 101], [11, 23]), ([64, 64], [31, 32]), ([9, 40], [4, 5]), ([50, 17], [7, 8])];
    let growths = [([11, 23], [37, 101]), ([8, 8], [17, 30]), ([5, 40], [19, 41]), ([20, 9], [61, 9])];
    for c in [3, 4] {
        for (from, to) in shrinks.into_iter().chain(growths) {
            for k in [1, 5, 9, 13] {
                check(DataType::Uint8, ResizeFilter::Bilinear, false, [2, c], from, to, k);
            }
        }
    }
}

/// Resizing to the same size copies: bit-exact for every filter, definition and type.
#[test]
fn same_size_is_a_copy() {
    let mut r = common::rng(5);
    for dt in TYPES {
        let t = TensorDesc::nhwc(dt, [2, 3, 13, 21]).unwrap();
        let n = t.required_buffer_bytes() as usize / dt.size_in_bytes();
        let src: Vec<u8> = (0..n).flat_map(|_| random_value(&mut r, dt)).collect();
        for filter in FILTERS {
            for antialias in [true, false] {
                let op = Resize::new(&t, &t, filter, antialias).unwrap();
                let mut dst = vec![0u8; src.len()];
                op.execute(&src, &mut dst).unwrap();
                assert!(dst == src, "{dt:?} {filter:?} {antialias}");
            }
        }
    }
}

/// The weights of known cases, by hand from Pillow's and OpenCV's definitions.
#[test]
fn weights_follow_pillow_and_opencv() {
    let taps = |from: u32, to: u32, filter, antialias| {
        let i = TensorDesc::new(DataType::Float32, &[1, from]).unwrap();
        let o = TensorDesc::new(DataType::Float32, &[1, to]).unwrap();
        let op = Resize::new(&i, &o, filter, antialias).unwrap();
        let t = op.taps()[1];
        (t.taps(), t.start().to_vec(), t.weights().to_vec())
    };
    // Pillow BILINEAR 4 → 2: support 2, centre 1: triangle at -0.25, 0.25, 0.75 (/2 scale) → 0.75, 0.75, 0.25 / 1.75.
    let (k, start, w) = taps(4, 2, ResizeFilter::Bilinear, true);
    assert_eq!((k, start[0]), (3, 0));
    for (a, b) in w[..3].iter().zip([3.0 / 7.0, 3.0 / 7.0, 1.0 / 7.0]) {
        assert!((f64::from(*a) - b).abs() < 1e-7, "{w:?}");
    }
    // OpenCV INTER_LINEAR 2 → 4: x = (i + 0.5)/2 − 0.5 = −0.25, 0.25, 0.75, 1.25 → edge replicated at both ends.
    let (k, start, w) = taps(2, 4, ResizeFilter::Bilinear, false);
    assert_eq!((k, start), (2, vec![0, 0, 0, 0]));
    assert_eq!(w, [1.0, 0.0, 0.75, 0.25, 0.25, 0.75, 0.0, 1.0]);
    // OpenCV INTER_AREA 5 → 2: cells of 2.5 pixels: 1, 1, 0.5 / 2.5 and 0.5, 1, 1 / 2.5.
    let (k, start, w) = taps(5, 2, ResizeFilter::Area, false);
    assert_eq!((k, start), (3, vec![0, 2]));
    assert_eq!(w, [0.4, 0.4, 0.2, 0.2, 0.4, 0.4]);
    // Nearest: Pillow takes the pixel under the centre, OpenCV the one under the corner.
    assert_eq!(taps(3, 2, ResizeFilter::Nearest, true).1, [0, 2]);
    assert_eq!(taps(3, 2, ResizeFilter::Nearest, false).1, [0, 1]);
    // Every output's weights sum to 1.
    for filter in FILTERS {
        for antialias in [true, false] {
            for (from, to) in [(7, 3), (3, 7), (100, 9), (9, 100), (1, 5), (5, 1)] {
                let (k, _, w) = taps(from, to, filter, antialias);
                for o in w.chunks(k) {
                    let s: f32 = o.iter().sum();
                    assert!((s - 1.0).abs() < 1e-5, "{filter:?} {antialias} {from}->{to}: {o:?}");
                }
            }
        }
    }
}

/// Random descriptors — sizes 1 to 40 and now and then huge, any filter, type and layout — validate and run, or
/// return an error: never a panic.
#[test]
fn arbitrary_descriptors_never_panic() {
    let mut r = common::rng(17);
    for _ in 0..400 {
        let dt = [DataType::Uint8, DataType::Float16, DataType::Float32, DataType::Int8][r.random_range(0..4)];
        let side = |r: &mut rand::rngs::StdRng| if r.random_bool(0.05) { u32::MAX } else { r.random_range(1..40) };
        let sizes_in = [r.random_range(1..3), r.random_range(1..5), side(&mut r), side(&mut r)];
        let sizes_out = [sizes_in[0], sizes_in[1], side(&mut r), side(&mut r)];
        let (Ok(i), Ok(o)) = (TensorDesc::new(dt, &sizes_in), TensorDesc::new(dt, &sizes_out)) else { continue };
        let filter = FILTERS[r.random_range(0..4)];
        if let Ok(op) = Resize::new(&i, &o, filter, r.random_bool(0.5)) {
            let x = vec![1u8; i.required_buffer_bytes() as usize];
            let mut y = vec![0u8; o.required_buffer_bytes() as usize];
            op.execute(&x, &mut y).unwrap();
        }
    }
}

#[test]
fn validation() {
    let f = ResizeFilter::Bilinear;
    let t = |dt, s: &[u32]| TensorDesc::new(dt, s).unwrap();
    let u8s = |s: &[u32]| t(DataType::Uint8, s);
    assert!(matches!(
        Resize::new(&u8s(&[5]), &u8s(&[3]), f, true),
        Err(Error::ArgumentOutOfRange { value: 1, min: 2, max: 4, .. })
    ));
    assert!(matches!(
        Resize::new(&u8s(&[1, 1, 1, 4, 4]), &u8s(&[1, 1, 1, 2, 2]), f, true),
        Err(Error::ArgumentOutOfRange { value: 5, .. })
    ));
    assert!(matches!(Resize::new(&u8s(&[4, 4]), &u8s(&[1, 2, 2]), f, true), Err(Error::RankMismatch { .. })));
    assert!(matches!(
        Resize::new(&u8s(&[4, 4]), &t(DataType::Float32, &[2, 2]), f, true),
        Err(Error::DataTypeMismatch { .. })
    ));
    assert!(matches!(
        Resize::new(&t(DataType::Int32, &[4, 4]), &t(DataType::Int32, &[2, 2]), f, true),
        Err(Error::UnsupportedDataType { .. })
    ));
    let err = Resize::new(&u8s(&[2, 3, 4, 4]), &u8s(&[2, 1, 2, 2]), f, true).unwrap_err();
    assert!(matches!(err, Error::ShapeMismatch { ref expected, .. } if expected == &[2, 3, 2, 2]), "{err}");
    let broadcast = TensorDesc::with_strides(DataType::Uint8, &[2, 2], &[0, 1]).unwrap();
    assert!(matches!(Resize::new(&u8s(&[4, 4]), &broadcast, f, true), Err(Error::OverlappingOutput { .. })));
    // A broadcast input is fine.
    let op = Resize::new(&TensorDesc::with_strides(DataType::Uint8, &[4, 4], &[0, 1]).unwrap(), &u8s(&[2, 2]), f, true);
    assert!(op.is_ok());
    let op = Resize::new(&u8s(&[4, 4]), &u8s(&[2, 2]), f, true).unwrap();
    let mut y = [7u8; 4];
    assert!(matches!(op.execute(&[0; 15], &mut y), Err(Error::BufferTooSmall { required: 16, actual: 15, .. })));
    assert!(matches!(op.execute(&[0; 16], &mut y[..3]), Err(Error::BufferTooSmall { actual: 3, .. })));
    assert_eq!(y, [7; 4], "nothing written");
    assert!(matches!(op.execute_typed(&[0f32; 16], &mut [0f32; 4]), Err(Error::ElementTypeMismatch { .. })));
    // Sides beyond 2^24 pixels are refused before any weight is computed.
    let huge = TensorDesc::new(DataType::Uint8, &[1, (1 << 24) + 1]).unwrap();
    assert!(matches!(
        Resize::new(&u8s(&[1, 4]), &huge, f, true),
        Err(Error::ArgumentOutOfRange { max: 16_777_216, .. })
    ));
    assert!(matches!(Resize::new(&huge, &u8s(&[1, 4]), f, false), Err(Error::ArgumentOutOfRange { .. })));
    let opts = ExecOptions::default().with_threads(0);
    assert!(matches!(op.execute_with(&[0; 16], &mut y, &opts), Err(Error::InvalidThreadCount { .. })));
}

/// The geometry helpers against torchvision's and YOLO's formulas, written here as they are there.
#[test]
fn geometry_follows_torchvision_and_yolo() {
    use strider::{center_crop_offsets, letterbox_geometry, shorter_side_size};
    let mut r = common::rng(11);
    for _ in 0..5000 {
        let (h, w, s) = (r.random_range(1..5000u32), r.random_range(1..5000u32), r.random_range(1..2000u32));
        // torchvision `_compute_resized_output_size`: short, long = sorted; new_long = int(size * long / short).
        let (short, long) = (h.min(w), h.max(w));
        let new_long = (f64::from(s) * f64::from(long) / f64::from(short)) as u32;
        let want = if h <= w { [s, new_long] } else { [new_long, s] };
        assert_eq!(shorter_side_size([h, w], s).unwrap(), want, "{h}x{w} shorter {s}");
        // torchvision `center_crop`: int(round((H - h) / 2.0)), Python's round (half to even).
        let (ch, cw) = (r.random_range(1..=h), r.random_range(1..=w));
        let half = |d: u32| (f64::from(d) / 2.0).round_ties_even() as u32;
        assert_eq!(center_crop_offsets([h, w], [ch, cw]).unwrap(), [half(h - ch), half(w - cw)]);
        // YOLO letterbox: r = min(h/H, w/W); new = round(side·r) (at least 1); padding halved, floor.
        let (lh, lw) = (r.random_range(1..2000u32), r.random_range(1..2000u32));
        let g = letterbox_geometry([h, w], [lh, lw]).unwrap();
        let scale = (f64::from(lh) / f64::from(h)).min(f64::from(lw) / f64::from(w));
        let new = |n: u32| ((f64::from(n) * scale).round_ties_even() as u32).max(1);
        assert_eq!((g.scale, g.height, g.width), (scale, new(h), new(w)));
        assert_eq!((g.top, g.left), ((lh - g.height) / 2, (lw - g.width) / 2));
    }
    assert!(matches!(shorter_side_size([0, 5], 3), Err(Error::ArgumentOutOfRange { .. })));
    assert!(matches!(shorter_side_size([5, 5], 0), Err(Error::ArgumentOutOfRange { .. })));
    assert!(matches!(shorter_side_size([1, u32::MAX], 2), Err(Error::ArgumentOutOfRange { .. })));
    assert!(matches!(center_crop_offsets([4, 4], [5, 1]), Err(Error::ArgumentOutOfRange { max: 4, .. })));
    assert!(matches!(center_crop_offsets([4, 4], [0, 1]), Err(Error::ArgumentOutOfRange { .. })));
    assert!(matches!(letterbox_geometry([4, 4], [0, 1]), Err(Error::ArgumentOutOfRange { .. })));
}

/// A broadcast input of 2^24 × 2^24 pixels (no memory behind it) shrunk for many images: the work estimate of the
/// split does not overflow.
#[test]
fn broadcast_giants_run() {
    let side = 1u32 << 24;
    let input = TensorDesc::with_strides(DataType::Uint8, &[1 << 17, 1, side, side], &[0, 0, 0, 0]).unwrap();
    let output = TensorDesc::new(DataType::Uint8, &[1 << 17, 1, 1, 1]).unwrap();
    let op = Resize::new(&input, &output, ResizeFilter::Nearest, true).unwrap();
    let mut y = vec![0u8; 1 << 17];
    op.execute(&[9], &mut y).unwrap();
    assert!(y.iter().all(|&v| v == 9));
}
