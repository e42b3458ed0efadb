//! `Normalize` against a naive reference written from its documented rules (`common::values::normalize`: the input
//! as Rust's `as` makes it an f32, product then sum in f32, nearest-even / half-even-saturating output): all 121 type
//! pairs on edge values with ties and out-of-range results, random windows, channel axes and layouts of every rank,
//! every instruction set and thread configuration; the strategies the preprocessing layouts get; every validation
//! rule; and the image builder.

mod common;

use common::values::{edge_values, normalize};
use common::{Buf, SENTINEL};
use proptest::prelude::*;
use rand::rngs::StdRng;
use strider::{DataType, Error, ImageLayout, Normalize, RowKind, TensorDesc};

/// A normalization's arguments, as the tests hold them.
struct Case<'a> {
    input: &'a TensorDesc,
    output: &'a TensorDesc,
    offsets: &'a [u32],
    sizes: &'a [u32],
    strides: &'a [i32],
    axis: Option<usize>,
    scale: &'a [f32],
    bias: &'a [f32],
}

impl Case<'_> {
    fn op(&self) -> Result<Normalize, Error> {
        Normalize::new(
            self.input,
            self.output,
            self.offsets,
            self.sizes,
            self.strides,
            self.axis,
            self.scale,
            self.bias,
        )
    }

    /// The spec: for every output coordinate `c`, read `input[start + strides ∘ c]` (start = offset, or its
    /// window's last index for a negative stride), take the pair of channel `c[axis]`, normalize.
    fn reference(&self, src: &[u8], dst: &mut [u8]) {
        let (from, to) = (self.input.data_type(), self.output.data_type());
        let (iw, ow) = (from.size_in_bytes(), to.size_in_bytes());
        let pick = |v: &[f32], k: usize| if v.len() == 1 { v[0] } else { v[k] };
        common::for_each_coord(self.output.sizes(), |c| {
            let mut i = 0i64;
            for (d, &cd) in c.iter().enumerate() {
                let start =
                    i64::from(self.offsets[d]) + if self.strides[d] < 0 { i64::from(self.sizes[d]) - 1 } else { 0 };
                let x = start + i64::from(self.strides[d]) * cd as i64;
                assert!(x >= 0 && x < i64::from(self.input.sizes()[d]), "reference read outside the input");
                i += x * i64::from(self.input.strides()[d]);
            }
            let o: usize = c.iter().zip(self.output.strides()).map(|(&x, &s)| x * s as usize).sum();
            let k = self.axis.map_or(0, |a| c[a]);
            let (i, o) = (i as usize * iw, o * ow);
            dst[o..o + ow].copy_from_slice(&normalize(
                from,
                to,
                &src[i..i + iw],
                pick(self.scale, k),
                pick(self.bias, k),
            ));
        });
    }

    /// Builds the operator, checks it against the reference under every configuration, returns it.
    fn check(&self, src: &Buf, salt: usize) -> Normalize {
        let op = self.op().unwrap();
        let mut want = vec![SENTINEL; self.output.addressed_bytes() as usize];
        self.reference(src.bytes(), &mut want);
        let dt = self.output.data_type();
        let mut slow = vec![SENTINEL; want.len()];
        op.execute_reference(src.bytes(), &mut slow).unwrap();
        let w = dt.size_in_bytes();
        assert!(
            slow.chunks(w).zip(want.chunks(w)).all(|(g, x)| g == x || common::values::same(dt, g, x)),
            "execute_reference disagrees with the test's reference"
        );
        let what = || {
            format!(
                "{} -> {} {:?} -> {:?} axis {:?} ({}: {})",
                self.input.data_type(),
                dt,
                self.input,
                self.output,
                self.axis,
                op.row_kind(),
                op.plan()
            )
        };
        common::check_configs(dt, &want, salt, &what, |dst, opts| op.execute_with(src.bytes(), dst, opts));
        op
    }
}

/// Checks `input` → `output` through the window `(offsets, sizes, strides)` with the channel axis 1, once for each
/// `(scale, bias)` of `pairs` (per-channel ones, one for all): each time a fresh random input `misalign` bytes past a
/// line, and every configuration `Case::check` runs (with `salt`). Returns the operators checked.
fn check_pairs(
    (input, output): (&TensorDesc, &TensorDesc),
    (offsets, sizes, strides): (&[u32], &[u32], &[i32]),
    pairs: [(&[f32], &[f32]); 2],
    rng: &mut StdRng,
    (misalign, salt): (usize, usize),
) -> [Normalize; 2] {
    pairs.map(|(scale, bias)| {
        let case = Case { input, output, offsets, sizes, strides, axis: Some(1), scale, bias };
        let src = Buf::random(input.addressed_bytes() as usize, misalign, rng);
        case.check(&src, salt)
    })
}

/// Scale/bias pairs that reach every rounding case: identity, ties (·0.5 + 0.5), beyond every integer range (·1e30),
/// negative, tiny, and the ImageNet u8 normalization.
const PAIRS: [(f32, f32); 6] =
    [(1.0, 0.0), (0.5, 0.5), (1e30, -3.0), (-2.5, 0.25), (1e-30, 0.0), (1.0 / (255.0 * 0.229), -0.485 / 0.229)];

#[test]
fn every_pair_on_edge_values() {
    common::note_isas();
    let (scale, bias): (Vec<f32>, Vec<f32>) = PAIRS.iter().copied().unzip();
    for from in DataType::ALL {
        let elems = edge_values(from);
        let n = elems.len() as u32;
        let c = PAIRS.len() as u32;
        // [n, C] with the input broadcast along C: every value meets every pair
        let input = TensorDesc::with_strides(from, &[n, c], &[1, 0]).unwrap();
        let mut src = Buf::filled(elems.concat().len(), 3, 0);
        src.bytes_mut().copy_from_slice(&elems.concat());
        for to in DataType::ALL {
            let output = TensorDesc::new(to, &[n, c]).unwrap();
            Case {
                input: &input,
                output: &output,
                offsets: &[0, 0],
                sizes: &[n, c],
                strides: &[1, 1],
                axis: Some(1),
                scale: &scale,
                bias: &bias,
            }
            .check(&src, n as usize);
        }
    }
}

#[test]
fn integer_outputs_round_half_to_even_and_saturate() {
    let input = TensorDesc::new(DataType::Float32, &[12]).unwrap();
    let x = [0.5f32, 1.5, 2.5, -0.5, -1.5, 127.5, 128.5, -128.5, -129.0, 254.5, 255.5, f32::NAN];
    let mut y = [0i8; 12];
    let op = Normalize::new(
        &input,
        &TensorDesc::new(DataType::Int8, &[12]).unwrap(),
        &[0],
        &[12],
        &[1],
        None,
        &[1.0],
        &[0.0],
    )
    .unwrap();
    op.execute_typed(&x, &mut y).unwrap();
    assert_eq!(y, [0, 2, 2, 0, -2, 127, 127, -128, -128, 127, 127, 0]);
    let mut u = [0u8; 12];
    let op = Normalize::new(
        &input,
        &TensorDesc::new(DataType::Uint8, &[12]).unwrap(),
        &[0],
        &[12],
        &[1],
        None,
        &[1.0],
        &[0.0],
    )
    .unwrap();
    op.execute_typed(&x, &mut u).unwrap();
    assert_eq!(u, [0, 2, 2, 0, 0, 128, 128, 0, 0, 254, 255, 0]);
}

#[test]
fn product_then_sum_in_f32() {
    // A fused multiply-add keeps the product exact: (1 + 2^-23)² − (1 + 2^-22) = 2^-46 fused, 0 rounded first.
    let t = TensorDesc::new(DataType::Float32, &[1]).unwrap();
    let x = 1.0 + f32::EPSILON;
    let op = Normalize::new(&t, &t, &[0], &[1], &[1], None, &[x], &[-(1.0 + 2.0 * f32::EPSILON)]).unwrap();
    let mut y = [7f32];
    op.execute_typed(&[x], &mut y).unwrap();
    assert_eq!(y, [0.0]);
    // integers above 2^24 become f32 first: 2^24 + 1 → 2^24
    let i = TensorDesc::new(DataType::Int32, &[1]).unwrap();
    let op = Normalize::new(&i, &i, &[0], &[1], &[1], None, &[1.0], &[0.0]).unwrap();
    let mut z = [0i32];
    op.execute_typed(&[(1 << 24) + 1], &mut z).unwrap();
    assert_eq!(z, [1 << 24]);
}

fn case() -> impl Strategy<Value = (DataType, DataType, common::cases::Slice1Case, Option<usize>, bool, bool, u64)> {
    (0..DataType::ALL.len(), 0..DataType::ALL.len(), common::cases::slice1_case()).prop_flat_map(|(a, b, w)| {
        let rank = w.dims.len();
        (
            Just(DataType::ALL[a]),
            Just(DataType::ALL[b]),
            Just(w),
            prop_oneof![1 => Just(None), 3 => (0..rank).prop_map(Some)],
            any::<bool>(),
            any::<bool>(),
            any::<u64>(),
        )
    })
}

proptest! {
    #![proptest_config(ProptestConfig { cases: 160, ..ProptestConfig::default() })]

    /// Random normalizations: any type pair, ranks 1..8, random windows (negative, large and mixed strides),
    /// channel axis anywhere or none, scale and bias of length 1 or C, packed/padded/broadcast/permuted inputs,
    /// packed/padded/permuted outputs whose padding must survive, misaligned buffers, every configuration.
    #[test]
    fn matches_reference((from, to, w, axis, per_channel_scale, per_channel_bias, seed) in case()) {
        let in_sizes: Vec<u32> = w.dims.iter().map(|d| d.input_size).collect();
        let out_sizes: Vec<u32> = w.dims.iter().map(|d| d.output_size).collect();
        let input = w.input.desc(from, &in_sizes);
        let output = w.output.desc(to, &out_sizes);
        let channels = axis.map_or(1, |a| out_sizes[a] as usize);
        let mut rng = common::rng(seed);
        let mut values = |n: usize, lo: f32, hi: f32| -> Vec<f32> {
            use rand::Rng;
            (0..n).map(|_| rng.random_range(lo..hi)).collect()
        };
        let scale = values(if per_channel_scale { channels } else { 1 }, -3.0, 3.0);
        let bias = values(if per_channel_bias { channels } else { 1 }, -100.0, 100.0);
        let case = Case {
            input: &input,
            output: &output,
            offsets: &w.offsets(),
            sizes: &w.sizes(),
            strides: &w.strides(),
            axis,
            scale: &scale,
            bias: &bias,
        };
        let src = Buf::random(input.addressed_bytes() as usize, w.in_misalign, &mut rng);
        case.check(&src, w.out_misalign);
    }
}

/// The preprocessing layouts and the strategies they must keep: pixels are deinterleaved into planes and
/// converted in one pass, whatever the window does.
#[test]
fn preprocessing_layouts_keep_their_strategies() {
    let u8_ = DataType::Uint8;
    // An NHWC tensor of 4-element pixels, its sizes given in NCHW order.
    let rgbx = |dt, s: [u32; 4]| TensorDesc::nhwc(dt, s).unwrap();
    let mut rng = common::rng(7);
    for (name, input, to, offsets, sizes, strides, channels, kind) in [
        (
            "NHWC → NCHW f32",
            TensorDesc::nhwc(u8_, [2, 3, 20, 37]).unwrap(),
            DataType::Float32,
            [0, 0, 0, 0],
            [2, 3, 20, 37],
            [1, 1, 1, 1],
            3,
            RowKind::Deinterleave { planes: 3 },
        ),
        (
            "NHWC → NCHW f16",
            TensorDesc::nhwc(u8_, [2, 3, 20, 37]).unwrap(),
            DataType::Float16,
            [0, 0, 0, 0],
            [2, 3, 20, 37],
            [1, 1, 1, 1],
            3,
            RowKind::Deinterleave { planes: 3 },
        ),
        (
            "RGBA → 4 planes",
            TensorDesc::nhwc(u8_, [1, 4, 9, 70]).unwrap(),
            DataType::Float32,
            [0, 0, 0, 0],
            [1, 4, 9, 70],
            [1, 1, 1, 1],
            4,
            RowKind::Deinterleave { planes: 4 },
        ),
        (
            "crop + hflip + BGR→RGB",
            TensorDesc::nhwc(u8_, [1, 3, 30, 50]).unwrap(),
            DataType::Float32,
            [0, 0, 3, 5],
            [1, 3, 24, 40],
            [1, -1, 1, -1],
            3,
            RowKind::Deinterleave { planes: 3 },
        ),
        (
            "BGR→RGB",
            TensorDesc::nhwc(u8_, [2, 3, 17, 33]).unwrap(),
            DataType::Float16,
            [0, 0, 0, 0],
            [2, 3, 17, 33],
            [1, -1, 1, 1],
            3,
            RowKind::Deinterleave { planes: 3 },
        ),
        (
            "hflip, vflip, subsampled rows",
            TensorDesc::nhwc(u8_, [1, 4, 40, 64]).unwrap(),
            DataType::Float32,
            [0, 0, 0, 0],
            [1, 4, 40, 64],
            [1, 1, -3, -1],
            4,
            RowKind::Deinterleave { planes: 4 },
        ),
        // One-byte pixels into f16 planes on runs of 1024 pixels or more go through per-plane tables of results
        // (AVX-512 VBMI): 64-pixel blocks and tails, 2–4 planes, i8, mirrored pixels and channels, rows of a run.
        (
            "NHWC → NCHW f16, long rows",
            TensorDesc::nhwc(u8_, [2, 3, 33, 70]).unwrap(),
            DataType::Float16,
            [0, 0, 0, 0],
            [2, 3, 33, 70],
            [1, 1, 1, 1],
            3,
            RowKind::Deinterleave { planes: 3 },
        ),
        (
            "i8 RGBA → f16, hflip + reversed channels",
            TensorDesc::nhwc(DataType::Int8, [1, 4, 20, 100]).unwrap(),
            DataType::Float16,
            [0, 0, 0, 0],
            [1, 4, 20, 100],
            [1, -1, 1, -1],
            4,
            RowKind::Deinterleave { planes: 4 },
        ),
        (
            "two channels → f16",
            TensorDesc::nhwc(u8_, [1, 2, 16, 130]).unwrap(),
            DataType::Float16,
            [0, 0, 0, 0],
            [1, 2, 16, 130],
            [1, 1, 1, 1],
            2,
            RowKind::Deinterleave { planes: 2 },
        ),
        // f32 pixels go through the fused f32 kernel (AVX-512): its 16-pixel steps, tails, mirrored pixels and
        // channels, 2–4 planes, f16 and f32 planes.
        (
            "f32 pixels → f16, crop + hflip + BGR→RGB",
            TensorDesc::nhwc(DataType::Float32, [1, 3, 30, 50]).unwrap(),
            DataType::Float16,
            [0, 0, 3, 5],
            [1, 3, 24, 40],
            [1, -1, 1, -1],
            3,
            RowKind::Deinterleave { planes: 3 },
        ),
        (
            "f32 RGBA → f32 planes, subsampled rows",
            TensorDesc::nhwc(DataType::Float32, [1, 4, 40, 64]).unwrap(),
            DataType::Float32,
            [0, 0, 0, 0],
            [1, 4, 40, 64],
            [1, 1, -3, 1],
            4,
            RowKind::Deinterleave { planes: 4 },
        ),
        (
            "f32 two channels → f16",
            TensorDesc::nhwc(DataType::Float32, [2, 2, 9, 70]).unwrap(),
            DataType::Float16,
            [0, 0, 0, 0],
            [2, 2, 9, 70],
            [1, 1, 1, 1],
            2,
            RowKind::Deinterleave { planes: 2 },
        ),
        (
            "f16 pixels, mirrored",
            TensorDesc::nhwc(DataType::Float16, [1, 3, 5, 40]).unwrap(),
            DataType::Float32,
            [0, 0, 0, 0],
            [1, 3, 5, 40],
            [1, 1, 1, -1],
            3,
            RowKind::Deinterleave { planes: 3 },
        ),
        // Pixels in wider slots (RGBX, BGRA without alpha, ARGB): the same kernels, the unused slot skipped.
        (
            "RGBX → NCHW f32",
            rgbx(u8_, [2, 4, 20, 37]),
            DataType::Float32,
            [0, 0, 0, 0],
            [2, 3, 20, 37],
            [1, 1, 1, 1],
            3,
            RowKind::Deinterleave { planes: 3 },
        ),
        (
            "BGRX → RGB f16, crop + hflip, long rows",
            rgbx(u8_, [1, 4, 20, 100]),
            DataType::Float16,
            [0, 0, 3, 5],
            [1, 3, 17, 90],
            [1, -1, 1, -1],
            3,
            RowKind::Deinterleave { planes: 3 },
        ),
        (
            "ARGB → RGB u8 planes, hflip, long rows",
            rgbx(u8_, [2, 4, 33, 70]),
            DataType::Uint8,
            [0, 1, 0, 0],
            [2, 3, 33, 70],
            [1, 1, 1, -1],
            3,
            RowKind::Deinterleave { planes: 3 },
        ),
        (
            "i8 two of four → f32",
            rgbx(DataType::Int8, [1, 4, 9, 70]),
            DataType::Float32,
            [0, 1, 0, 0],
            [1, 2, 9, 70],
            [1, 1, 1, 1],
            2,
            RowKind::Deinterleave { planes: 2 },
        ),
        (
            "f32 BGRX → f16 planes, hflip",
            rgbx(DataType::Float32, [1, 4, 6, 50]),
            DataType::Float16,
            [0, 0, 0, 0],
            [1, 3, 6, 50],
            [1, -1, 1, -1],
            3,
            RowKind::Deinterleave { planes: 3 },
        ),
        (
            "f32 XRGB → f32 planes",
            rgbx(DataType::Float32, [1, 4, 6, 50]),
            DataType::Float32,
            [0, 1, 0, 0],
            [1, 3, 6, 50],
            [1, 1, 1, 1],
            3,
            RowKind::Deinterleave { planes: 3 },
        ),
        (
            "f16 RGBX → f32 planes, mirrored",
            rgbx(DataType::Float16, [1, 4, 5, 40]),
            DataType::Float32,
            [0, 0, 0, 0],
            [1, 3, 5, 40],
            [1, 1, 1, -1],
            3,
            RowKind::Deinterleave { planes: 3 },
        ),
    ] {
        let s = input.sizes();
        let rows = 1 + (sizes[2] - 1) / i32::unsigned_abs(strides[2]);
        let out_sizes = [s[0], channels, rows, sizes[3]];
        let output = TensorDesc::nchw(to, out_sizes).unwrap();
        let (scale, bias) = ([0.017f32, 0.0175, 0.0174, 0.02], [-2.1f32, -2.03, -1.8, 0.0]);
        let case = Case {
            input: &input,
            output: &output,
            offsets: &offsets,
            sizes: &sizes,
            strides: &strides,
            axis: Some(1),
            scale: &scale[..channels as usize],
            bias: &bias[..channels as usize],
        };
        let src = Buf::random(input.addressed_bytes() as usize, 1, &mut rng);
        let op = case.check(&src, 3);
        assert_eq!(op.row_kind(), kind, "{name}: {}", op.plan());
    }
}

/// One-byte planes into f16 planes (the layout kept) on runs of 1024 elements or more go through a table of the
/// results on AVX-512 VBMI: whole 64-element blocks and tails, u8 and i8, one pair per channel and one for all.
/// Normalizations that move like a transpose (NHWC ↔ NCHW with more channels than the planar kernels take):
/// widening and same-width ones transpose the input elements first when the walk stays in the cache, narrowing ones
/// convert first; both with per-channel pairs and one pair, crops and flips, and blocks with tails.
#[test]
fn many_channel_transposes() {
    let mut rng = common::rng(13);
    let (u8_, i8_, f16, f32_) = (DataType::Uint8, DataType::Int8, DataType::Float16, DataType::Float32);
    for (from, to, c) in
        [(u8_, f32_, 16), (u8_, f16, 8), (i8_, f32_, 5), (f32_, f32_, 16), (f16, f32_, 8), (f32_, f16, 16)]
    {
        let sizes = [2, c, 9, 37];
        let scale: Vec<f32> = (0..c).map(|k| 0.25 + k as f32 * 0.125).collect();
        let bias: Vec<f32> = (0..c).map(|k| k as f32 - 3.5).collect();
        for (nhwc_in, offsets, window, strides) in [
            (true, [0, 0, 0, 0], [2, c, 9, 37], [1, 1, 1, 1]),
            (true, [0, 0, 1, 2], [2, c, 8, 35], [1, -1, 1, -1]),
            (false, [0, 0, 0, 0], [2, c, 9, 37], [1, 1, 1, 1]),
        ] {
            let out_sizes = window;
            let (input, output) = if nhwc_in {
                (TensorDesc::nhwc(from, sizes).unwrap(), TensorDesc::nchw(to, out_sizes).unwrap())
            } else {
                (TensorDesc::nchw(from, sizes).unwrap(), TensorDesc::nhwc(to, out_sizes).unwrap())
            };
            let pairs = [(&scale[..], &bias[..]), (&[0.5f32][..], &[-1.0f32][..])];
            check_pairs((&input, &output), (&offsets, &window, &strides), pairs, &mut rng, (1, 6));
        }
    }
}

/// Planes into pixels (NCHW in, NHWC out) with 2 to 4 channels: widening normalizations interleave the input
/// elements first and convert the pixels with the channels' pairs as a pattern (or one pair for all), narrowing and
/// same-width ones convert the planes first; crops with rows whose pixel counts end around every register width,
/// mirrored rows, and every configuration `Case::check` runs.
#[test]
fn planes_into_pixels() {
    let mut rng = common::rng(17);
    let (u8_, i8_, f16, f32_) = (DataType::Uint8, DataType::Int8, DataType::Float16, DataType::Float32);
    for (from, to) in
        [(u8_, f32_), (u8_, f16), (i8_, f32_), (f16, f32_), (u8_, DataType::Int32), (f32_, f16), (f32_, f32_)]
    {
        for c in 2..=4u32 {
            let sizes = [2, c, 5, 83];
            let scale: Vec<f32> = (0..c).map(|k| 0.25 + k as f32 * 0.125).collect();
            let bias: Vec<f32> = (0..c).map(|k| k as f32 - 3.5).collect();
            for (offsets, window, strides) in [
                ([0, 0, 0, 0], [2, c, 5, 83], [1, 1, 1, 1]),
                ([0, 0, 1, 3], [2, c, 4, 79], [1, 1, 1, 1]),
                ([0, 0, 0, 0], [2, c, 5, 83], [1, 1, -1, 1]),
            ] {
                let (input, output) = (TensorDesc::nchw(from, sizes).unwrap(), TensorDesc::nhwc(to, window).unwrap());
                let pairs = [(&scale[..], &bias[..]), (&[0.5f32][..], &[-1.0f32][..])];
                let ops = check_pairs((&input, &output), (&offsets, &window, &strides), pairs, &mut rng, (3, 7));
                for op in &ops {
                    assert_eq!(op.row_kind(), RowKind::Interleave { planes: c as usize }, "{from:?} → {to:?}, {c}");
                }
            }
        }
    }
}

/// Channels-last outputs (NHWC in, NHWC out: what TensorFlow, TFLite and many ONNX exports take): the pixels are
/// read whole — contiguous, mirrored, subsampled, their channels reversed, or both — and converted in runs with the
/// per-channel pairs as a repeating pattern (or one pair for all), for one-byte, f16 and f32 pixels of 2 to 4
/// channels into every float width and bytes, rows with tails around every register width.
#[test]
fn channels_last_outputs_read_whole_pixels() {
    let mut rng = common::rng(17);
    let (u8_, i8_, f16, f32_, u16_) =
        (DataType::Uint8, DataType::Int8, DataType::Float16, DataType::Float32, DataType::Uint16);
    for (from, to) in [
        (u8_, f32_),
        (u8_, f16),
        (i8_, f32_),
        (i8_, f16),
        (u8_, u8_),
        (i8_, u8_),
        (f16, f32_),
        (f32_, f32_),
        (f32_, f16),
        (u16_, u8_),
    ] {
        for c in [2u32, 3, 4] {
            for (w, slotted) in [7u32, 16, 37, 70].into_iter().flat_map(|w| [(w, false), (w, true)]) {
                let sizes = [2, c, 3, w];
                // Packed NHWC, and pixels in slots one channel wider (RGBX frames: read through shuffle lanes).
                let input = if slotted {
                    let slots = c + 1;
                    TensorDesc::with_strides(from, &sizes, &[3 * w * slots, 1, w * slots, slots]).unwrap()
                } else {
                    TensorDesc::nhwc(from, sizes).unwrap()
                };
                let scale: Vec<f32> = (0..c).map(|k| 0.017 + k as f32 * 0.25).collect();
                let bias: Vec<f32> = (0..c).map(|k| k as f32 - 2.1).collect();
                for (offsets, window, strides) in [
                    ([0, 0, 0, 0], [2, c, 3, w], [1, 1, 1, 1]),
                    ([0, 0, 0, 1], [2, c, 3, w - 1], [1, 1, 1, -1]),
                    ([0, 0, 0, 0], [2, c, 3, w], [1, -1, 1, 1]),
                    ([0, 0, 1, 0], [2, c, 2, w], [1, -1, -1, -1]),
                    ([0, 0, 0, 0], [2, c, 3, w], [1, 1, 1, 2]),
                    ([0, 0, 0, 0], [2, c, 3, w], [1, -1, 1, -3]),
                ] {
                    let out_w = 1 + (window[3] - 1) / i32::unsigned_abs(strides[3]);
                    // Packed NHWC, and pixels padded to c + 1 slots (written pixel by pixel; the slot between
                    // stays untouched: the sentinel check).
                    let slots = c + 1;
                    let padded = [window[2] * out_w * slots, 1, out_w * slots, slots];
                    let outputs = [
                        TensorDesc::nhwc(to, [2, c, window[2], out_w]).unwrap(),
                        TensorDesc::with_strides(to, &[2, c, window[2], out_w], &padded).unwrap(),
                    ];
                    for (output, (scale, bias)) in outputs
                        .iter()
                        .flat_map(|o| [(o, (&scale[..], &bias[..])), (o, (&[0.5f32][..], &[-1.0f32][..]))])
                    {
                        let is_padded = output.strides()[3] != c;
                        let case = Case {
                            input: &input,
                            output,
                            offsets: &offsets,
                            sizes: &window,
                            strides: &strides,
                            axis: Some(1),
                            scale,
                            bias,
                        };
                        let src = Buf::random(input.addressed_bytes() as usize, 1, &mut rng);
                        let op = case.check(&src, 2);
                        // Rows of at least one 64-byte line of output read whole pixels.
                        let row_bytes = out_w as usize * c as usize * to.size_in_bytes();
                        let pixel = c as usize * from.size_in_bytes();
                        // (One pair for all: pixels whose channels coalesce with them move as one row.)
                        let kind = op.row_kind();
                        // RGBX bytes into NHWC floats: whole pixels too, through byte-step lanes.
                        if slotted && c == 3 && from == u8_ && !is_padded && row_bytes >= 64 && scale.len() == 3 {
                            assert_eq!(kind, RowKind::Pixels { channels: 3 }, "{}", op.plan());
                        }
                        if !slotted && row_bytes >= 64 && [2, 3, 4, 6, 8, 12, 16].contains(&pixel) {
                            let coalesced = matches!(kind, RowKind::Copy | RowKind::Reverse | RowKind::Gather { .. });
                            assert!(
                                kind == RowKind::Pixels { channels: c as usize }
                                    || scale.len() == 1 && (coalesced || is_padded),
                                "{kind}: {}",
                                op.plan()
                            );
                        }
                    }
                }
            }
        }
    }
}

/// Planes (NCHW in and out) whose rows read one-byte elements mirrored or subsampled, rows flipped too, into every
/// output type, with per-channel pairs or one pair, widths with tails around every register width: read in one pass
/// through windows of 16 elements (row kinds `Reverse` and `Gather`), many rows a call.
#[test]
fn plane_rows_read_mirrored_or_subsampled() {
    let mut rng = common::rng(23);
    let (u8_, i8_) = (DataType::Uint8, DataType::Int8);
    for (from, to) in
        [(u8_, DataType::Float32), (u8_, DataType::Float16), (i8_, DataType::Float32), (u8_, u8_), (i8_, u8_)]
    {
        for w in [7u32, 16, 37, 70, 130] {
            let sizes = [2, 3, 5, 2 * w + 1];
            let input = TensorDesc::nchw(from, sizes).unwrap();
            for (strides, kind) in [
                ([1i32, 1, 1, -1], RowKind::Reverse),
                ([1, 1, -1, -1], RowKind::Reverse),
                ([1, 1, 1, 2], RowKind::Gather { stride: 2 }),
                ([1, -1, 2, -2], RowKind::Gather { stride: -2 }),
            ] {
                let window = [2, 3, 5, if strides[3].abs() == 2 { 2 * w - 1 } else { w }];
                let out: [u32; 4] = core::array::from_fn(|d| 1 + (window[d] - 1) / strides[d].unsigned_abs());
                let out_w = out[3];
                let output = TensorDesc::nchw(to, out).unwrap();
                let pairs = [(&[0.017f32, 0.5, -3.0][..], &[-2.1f32, 7.0, 1.0][..]), (&[0.25][..], &[-1.0][..])];
                let window = (&[0, 0, 0, 1][..], &window[..], &strides[..]);
                for op in check_pairs((&input, &output), window, pairs, &mut rng, (1, 3)) {
                    // (Rows of up to 16 elements are pixels of as many channels; rows of less than a line,
                    // table rows.)
                    if out_w > 16 && out_w as usize * to.size_in_bytes() >= 64 {
                        assert_eq!(op.row_kind(), kind, "{}", op.plan());
                    }
                }
            }
        }
    }
}

#[test]
fn long_byte_runs_into_f16() {
    let mut rng = common::rng(11);
    for (dt, sizes) in [(DataType::Uint8, [2u32, 3, 33, 70]), (DataType::Int8, [1, 2, 16, 67])] {
        let input = TensorDesc::nchw(dt, sizes).unwrap();
        let output = TensorDesc::nchw(DataType::Float16, sizes).unwrap();
        let c = sizes[1] as usize;
        for (axis, scale, bias) in [
            (Some(1), &[0.017f32, -0.5, 0.0174][..c], &[-2.1f32, 3.0, -1.8][..c]),
            (None, &[0.25f32][..], &[-7.5f32][..]),
        ] {
            let case = Case {
                input: &input,
                output: &output,
                offsets: &[0; 4],
                sizes: &sizes,
                strides: &[1; 4],
                axis,
                scale,
                bias,
            };
            let src = Buf::random(input.addressed_bytes() as usize, 3, &mut rng);
            case.check(&src, 5);
        }
    }
}

#[test]
fn validation_rules() {
    let f32_ = DataType::Float32;
    let input = TensorDesc::new(DataType::Uint8, &[2, 3, 4]).unwrap();
    let output = TensorDesc::new(f32_, &[2, 3, 4]).unwrap();
    let ok = Case {
        input: &input,
        output: &output,
        offsets: &[0, 0, 0],
        sizes: &[2, 3, 4],
        strides: &[1, 1, 1],
        axis: Some(1),
        scale: &[1.0, 2.0, 3.0],
        bias: &[0.0],
    };
    ok.op().unwrap();
    let err = |c: Case<'_>| c.op().unwrap_err();
    // DML_SLICE1's rules
    let o2 = TensorDesc::new(f32_, &[6, 4]).unwrap();
    assert_eq!(err(Case { output: &o2, ..ok }), Error::RankMismatch { input: 3, output: 2 });
    assert_eq!(
        err(Case { offsets: &[0, 0], ..ok }),
        Error::ArgumentLength { argument: "window_offsets", len: 2, rank: 3 }
    );
    assert_eq!(err(Case { sizes: &[2, 0, 4], ..ok }), Error::EmptyWindow { dim: 1 });
    assert_eq!(
        err(Case { offsets: &[0, 1, 0], ..ok }),
        Error::WindowOutOfBounds { dim: 1, offset: 1, size: 3, end: 4, input_size: 3 }
    );
    assert_eq!(err(Case { strides: &[1, 1, 0], ..ok }), Error::ZeroWindowStride { dim: 2 });
    assert!(matches!(err(Case { strides: &[1, 2, 1], ..ok }), Error::OutputSizeOutOfRange { dim: 1, max: 2, .. }));
    // the normalization's rules
    let e = err(Case { axis: Some(3), ..ok });
    assert_eq!(e, Error::ChannelAxisOutOfRange { axis: 3, rank: 3 });
    assert!(e.to_string().contains("channel axis 3"), "{e}");
    let e = err(Case { scale: &[1.0, 2.0], ..ok });
    assert_eq!(e, Error::ParameterLength { argument: "scale", len: 2, channels: Some(3) });
    assert!(e.to_string().contains("scale has 2 values") && e.to_string().contains("or 3"), "{e}");
    let e = err(Case { bias: &[], ..ok });
    assert_eq!(e, Error::ParameterLength { argument: "bias", len: 0, channels: Some(3) });
    let e = err(Case { axis: None, ..ok });
    assert_eq!(e, Error::ParameterLength { argument: "scale", len: 3, channels: None });
    assert!(e.to_string().contains("no channel axis"), "{e}");
    let e = err(Case { bias: &[0.0, f32::NAN, 0.0], ..ok });
    assert!(matches!(e, Error::NonFiniteParameter { argument: "bias", index: 1, .. }), "{e}");
    assert!(e.to_string().contains("bias[1] is NaN"), "{e}");
    let e = err(Case { scale: &[1.0, 2.0, f32::NEG_INFINITY], ..ok });
    assert_eq!(e, Error::NonFiniteParameter { argument: "scale", index: 2, bits: f32::NEG_INFINITY.to_bits() });
    // the output must not overlap itself
    let overlapping = TensorDesc::with_strides(f32_, &[2, 3, 4], &[4, 0, 1]).unwrap();
    assert!(matches!(err(Case { output: &overlapping, ..ok }), Error::OverlappingOutput { .. }));
    // typed execution checks both element types; buffers are checked
    let op = ok.op().unwrap();
    let e = op.execute_typed(&[0i8; 24], &mut [0f32; 24]).unwrap_err();
    assert!(matches!(e, Error::TypedOperandMismatch { .. }), "{e}");
    let e = op.execute(&[0u8; 24], &mut [0u8; 95]).unwrap_err();
    assert!(matches!(e, Error::BufferTooSmall { required: 96, actual: 95, .. }), "{e}");
    assert_eq!((op.channel_axis(), op.scale(), op.bias()), (Some(1), &[1.0f32, 2.0, 3.0][..], &[0.0f32][..]));
    assert_eq!(
        (op.window_offsets(), op.window_sizes(), op.window_strides()),
        (&[0u32, 0, 0][..], &[2u32, 3, 4][..], &[1i32, 1, 1][..])
    );
}

/// The builder is a spelling of `Normalize::new`: each of its choices equals the window, parameters and output
/// written out by hand.
#[test]
fn image_builder_spells_normalize() {
    let u8_ = DataType::Uint8;
    let input = TensorDesc::nhwc(u8_, [2, 4, 9, 12]).unwrap(); // BGRA
    let mut rng = common::rng(11);
    let src = Buf::random(input.addressed_bytes() as usize, 0, &mut rng);
    let mean = [0.485f32, 0.456, 0.406];
    let std = [0.229f32, 0.224, 0.225];
    let scale: Vec<f32> = std.iter().map(|&s| (1.0 / (255.0 * f64::from(s))) as f32).collect();
    let bias: Vec<f32> = mean.iter().zip(&std).map(|(&m, &s)| (-f64::from(m) / f64::from(s)) as f32).collect();
    let built = Normalize::image(&input)
        .channels(0, 3)
        .reverse_channels()
        .crop(1, 2, 7, 9)
        .flip_horizontal()
        .subsample(2, 1)
        .mean_std(&mean, &std)
        .output_type(DataType::Float16)
        .layout(ImageLayout::Nhwc)
        .build()
        .unwrap();
    let output = TensorDesc::nhwc(DataType::Float16, [2, 3, 4, 9]).unwrap();
    assert_eq!(built.output(), &output);
    let by_hand = Case {
        input: &input,
        output: &output,
        offsets: &[0, 0, 1, 2],
        sizes: &[2, 3, 7, 9],
        strides: &[1, -1, 2, -1],
        axis: Some(1),
        scale: &scale,
        bias: &bias,
    };
    let reference = by_hand.check(&src, 0);
    let (mut a, mut b) = (vec![0u8; output.addressed_bytes() as usize], vec![0u8; output.addressed_bytes() as usize]);
    built.execute(src.bytes(), &mut a).unwrap();
    reference.execute(src.bytes(), &mut b).unwrap();
    assert_eq!(a, b);

    // ImageNet on u8: within a few ulps of (x/255 − mean)/std evaluated step by step
    let rgb = TensorDesc::nhwc(u8_, [1, 3, 1, 256]).unwrap();
    let op = Normalize::image(&rgb).imagenet().build().unwrap();
    let pixels: Vec<u8> = (0..768).map(|i| (i / 3) as u8).collect();
    let mut y = vec![0f32; 768];
    op.execute_typed(&pixels, &mut y).unwrap();
    for c in 0..3 {
        for x in 0..256 {
            let direct = (x as f32 / 255.0 - strider::IMAGENET_MEAN[c]) / strider::IMAGENET_STD[c];
            let got = y[c * 256 + x];
            let ulps = (got.to_bits() as i64 - direct.to_bits() as i64).abs();
            assert!(ulps <= 4 || (got - direct).abs() < 1e-6, "channel {c} x {x}: {got} vs {direct}");
        }
    }

    // center crop: ⌊(H − h)/2⌋, ⌊(W − w)/2⌋; defaults: NCHW f32, values unchanged
    let op = Normalize::image(&input).center_crop(4, 5).build().unwrap();
    assert_eq!(op.window_offsets(), &[0, 0, 2, 3]);
    assert_eq!(op.output(), &TensorDesc::nchw(DataType::Float32, [2, 4, 4, 5]).unwrap());
    assert_eq!((op.scale(), op.bias()), (&[1.0f32][..], &[0.0f32][..]));
    // one image of rank 3 (CHW sizes)
    let hwc = TensorDesc::permuted(u8_, &[3, 5, 6], &[1, 2, 0]).unwrap();
    let op = Normalize::image(&hwc).flip_vertical().layout(ImageLayout::Nhwc).build().unwrap();
    assert_eq!(op.window_strides(), &[1, -1, 1]);
    assert_eq!(op.output(), &TensorDesc::permuted(DataType::Float32, &[3, 5, 6], &[1, 2, 0]).unwrap());
}

#[test]
fn image_builder_errors() {
    let input = TensorDesc::nhwc(DataType::Uint8, [1, 3, 8, 8]).unwrap();
    let flat = TensorDesc::new(DataType::Uint8, &[8, 8]).unwrap();
    assert_eq!(Normalize::image(&flat).build().unwrap_err(), Error::InvalidRank { rank: 2 });
    assert_eq!(Normalize::image(&input).subsample(0, 1).build().unwrap_err(), Error::ZeroWindowStride { dim: 2 });
    assert_eq!(Normalize::image(&input).crop(0, 0, 0, 4).build().unwrap_err(), Error::EmptyWindow { dim: 2 });
    assert!(matches!(
        Normalize::image(&input).center_crop(9, 4).build().unwrap_err(),
        Error::WindowOutOfBounds { dim: 2, .. }
    ));
    assert_eq!(
        Normalize::image(&input).mean_std(&[0.5, 0.5], &[0.2]).build().unwrap_err(),
        Error::ParameterLength { argument: "mean", len: 2, channels: Some(3) }
    );
    assert_eq!(Normalize::image(&input).mean_std(&[0.5], &[0.0]).build().unwrap_err(), Error::ZeroStd { index: 0 });
    let e = strider::mean_std_to_scale_bias(DataType::Uint8, &[0.5], &[0.2, -0.0, 0.2], 3).unwrap_err();
    assert_eq!(e, Error::ZeroStd { index: 1 });
    assert_eq!(e.to_string(), "std[1] is 0; a normalization divides by it");
    assert!(matches!(
        Normalize::image(&input).mean_std(&[f32::NAN], &[1.0]).build().unwrap_err(),
        Error::NonFiniteParameter { argument: "mean", index: 0, .. }
    ));
    assert_eq!(
        Normalize::image(&input).channels(0, 4).build().unwrap_err(),
        Error::WindowOutOfBounds { dim: 1, offset: 0, size: 4, end: 4, input_size: 3 }
    );
}

/// Fuzzing found that one scale and one bias over a channel axis of 4 billion planned a table of one pair per
/// channel (32 GiB): the table has one pair per channel only when a parameter has one value per channel.
#[test]
fn one_pair_for_every_channel_needs_no_table() {
    let input = TensorDesc::with_strides(DataType::Uint8, &[u32::MAX], &[0]).unwrap();
    let output = TensorDesc::new(DataType::Uint8, &[u32::MAX]).unwrap();
    let op = Normalize::new(&input, &output, &[0], &[u32::MAX], &[1], Some(0), &[2.0], &[1.0]).unwrap();
    assert_eq!(op.plan().params().map(|p| p.table().len()), Some(1));
    let e = op.execute(&[3], &mut [0u8; 16]).unwrap_err();
    assert!(matches!(e, Error::BufferTooSmall { .. }), "{e}");
}

/// Many short rows read through the buffer (mirrored, channel-reversed or subsampled pixels) into a packed NHWC
/// output are converted several rows per call: more rows than one call holds (a last, partial call), per-channel
/// pairs (the pattern's phase continuing from row to row) or one pair for all, every output width, and rows of
/// 1 and 9 pixels.
#[test]
fn short_pixel_rows_convert_several_rows_per_call() {
    let mut rng = common::rng(23);
    let (u8_, f16, f32_) = (DataType::Uint8, DataType::Float16, DataType::Float32);
    for (from, to) in [(u8_, f32_), (u8_, f16), (u8_, u8_), (f32_, f16)] {
        for (h, w) in [(700u32, 9u32), (300, 1)] {
            let input = TensorDesc::nhwc(from, [1, 3, h, w]).unwrap();
            let (scale, bias) = ([0.017f32, 0.5, -1.25], [-2.1f32, 0.25, 3.0]);
            for strides in [[1, 1, 1, -1], [1, -1, 1, 1], [1, 1, 2, -1]] {
                let window = [1, 3, h, w];
                let out_h = 1 + (h - 1) / i32::unsigned_abs(strides[2]);
                let output = TensorDesc::nhwc(to, [1, 3, out_h, w]).unwrap();
                let pairs = [(&scale[..], &bias[..]), (&scale[..1], &bias[..1])];
                check_pairs((&input, &output), (&[0; 4], &window, &strides), pairs, &mut rng, (3, 5));
            }
        }
    }
}

/// Short rows read through a kernel (mirrored or subsampled planes) and converted several rows per call, one pair
/// for the plane's rows: every output width, rows of 1, 9 and 128 elements, mirrored and subsampled rows and
/// planes, per-channel pairs or one for all, every configuration (threads, streaming, levels).
#[test]
fn short_plane_rows_convert_several_rows_per_call() {
    let mut rng = common::rng(29);
    let (u8_, i8_, f16, f32_) = (DataType::Uint8, DataType::Int8, DataType::Float16, DataType::Float32);
    for (from, to) in [(u8_, f32_), (u8_, f16), (u8_, u8_), (i8_, f32_), (f32_, f16), (f16, f32_)] {
        for (h, w) in [(300u32, 1u32), (200, 9), (40, 128)] {
            let input = TensorDesc::new(from, &[2, 3, h, w]).unwrap();
            let (scale, bias) = ([0.017f32, 0.5, -1.25], [-2.1f32, 0.25, 3.0]);
            for strides in [[1i32, 1, 1, -1], [1, 1, -1, -1], [1, 1, 1, 2], [1, -1, 2, -2]] {
                let window = [2, 3, h, w];
                let out: Vec<u32> = window.iter().zip(strides).map(|(&n, s)| 1 + (n - 1) / s.unsigned_abs()).collect();
                let output = TensorDesc::new(to, &out).unwrap();
                let pairs = [(&scale[..], &bias[..]), (&scale[..1], &bias[..1])];
                check_pairs((&input, &output), (&[0; 4], &window, &strides), pairs, &mut rng, (1, 7));
            }
        }
    }
}
