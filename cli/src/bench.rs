//! `strider bench`: time a suite of operator workloads beside `memcpy`s of the same bytes.
//!
//! Two baselines per case and thread count, both measured in the same run:
//! - `t/memcpy`: time ÷ a one-thread `memcpy` of the output bytes (how the operator compares with copying its
//!   result);
//! - `t/limit`: time ÷ a `memcpy` with as many threads that moves the bytes the operator must move — the distinct
//!   64-byte lines of the input it reads plus the bytes it writes, i.e. a copy of half that total between buffers
//!   of that footprint. This is the physical floor on this machine: 1.00 means memory-speed.
//!
//! Both are ratios of times: lower is better.
//!
//! Method: for each case and thread count, rounds alternate the operator and the two copies; a round runs [`WARM`]
//! back-to-back samples of each and drops the first (cold) one. Rounds continue until the case's time budget is
//! spent (at least [`MIN_ROUNDS`]); figures are medians over all kept samples. Alternating rounds cancel the
//! seconds-long slow periods of shared machines; back-to-back samples measure warm calls, as the peer scripts do. A
//! sample batches enough calls to last [`MIN_SAMPLE`]. GB/s counts output bytes.

use std::collections::BTreeMap;
use std::hint::black_box;
use std::time::{Duration, Instant};

use std::io::IsTerminal;

use anyhow::{Context, Result, bail};

use indicatif::{ProgressBar, ProgressStyle};
use rayon::prelude::*;
use serde::{Deserialize, Serialize};
use strider::{
    DataType, DepthSpaceOrder, ExecOptions, ImageLayout, ImageResize, Isa, Normalize, OperatorDesc, PaddingMode, Plan,
    ResizeFilter, Scalar, ScaleBias, TensorDesc,
};

/// The public workloads (the shared peer suites), embedded.
const WORKLOADS: &str = include_str!("../../benches/workloads.json");
const LAYOUTS: &str = include_str!("../../benches/layouts.json");

/// Samples per round and per side (the first is dropped).
const WARM: usize = 4;
/// Rounds per case at least.
const MIN_ROUNDS: usize = 5;
/// Rounds per case at most.
const MAX_ROUNDS: usize = 400;
/// Shortest sample.
const MIN_SAMPLE: Duration = Duration::from_micros(50);

/// One workload. The slice format of `bench/workloads.json` (`input_sizes`, `offsets`, `window_sizes`,
/// `window_strides`, `output_sizes`), or the layout format of `bench/layouts.json` (`"op": "identity"`, `sizes`),
/// both with optional tensor strides (absent: packed); `"op": "cast"` adds `output_dtype`, an identity may have
/// `scale` and `bias`; `"op": "normalize"` takes the slice fields (the window defaults to the whole input),
/// `output_dtype` (default f32), `channel_axis` and `scale`/`bias` as numbers or per-channel lists. Unknown fields
/// are kept and reported, not rejected.
#[derive(Clone, Debug, Default, Deserialize, Serialize)]
pub struct Case {
    pub name: String,
    pub dtype: String,
    /// `slice1` (the default), `identity`, `cast` or `normalize`.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub op: Option<String>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub input_sizes: Option<Vec<u32>>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub offsets: Option<Vec<u32>>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub window_sizes: Option<Vec<u32>>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub window_strides: Option<Vec<i32>>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub output_sizes: Option<Vec<u32>>,
    /// Sizes of an elementwise case (identity, cast).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub sizes: Option<Vec<u32>>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub input_strides: Option<Vec<u32>>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub output_strides: Option<Vec<u32>>,
    /// The output's data type of a cast or normalization.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub output_dtype: Option<String>,
    /// The output dimension selecting a normalization's per-channel scale and bias.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub channel_axis: Option<usize>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub scale: Option<Values>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub bias: Option<Values>,
    /// A padding's mode (`constant`, `edge`, `reflect`, `symmetric`, `wrap`) or a depth↔space order (`DCR`,
    /// `CRD`).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub mode: Option<String>,
    /// A padding's or fill's value, a sequence's start.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub value: Option<f64>,
    /// A sequence's step.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub delta: Option<f64>,
    /// A padding's elements before and after the input, per dimension.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub start: Option<Vec<u32>>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub end: Option<Vec<u32>>,
    /// The axis of a join or split.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub axis: Option<u32>,
    /// A join's inputs (`count` inputs of `sizes`) or a split's outputs: their sizes along the axis.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub parts: Option<Vec<u32>>,
    /// A tile's repeats.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub repeats: Option<Vec<u32>>,
    /// A depth↔space block size.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub block_size: Option<u32>,
    /// The indices' sizes of a gather, scatter or one-hot (NumPy's shapes: `np.take(x, i, axis)`,
    /// `np.take_along_axis`, ONNX ScatterElements, ONNX OneHot).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub index_sizes: Option<Vec<u32>>,
    /// The indices' type (`i32`, `u32`, `i64` — the default — or `u64`). The bench fills them with valid
    /// pseudo-random indices (`index(k) = (k · 2654435761 + 12345) mod n`).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub index_dtype: Option<String>,
    /// A one-hot's depth.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub depth: Option<u32>,
    /// A preprocessing's resize: `stretch` (to `size`), `shorter` (the shorter side to `size[0]`), `letterbox` (into
    /// a `size` canvas of `value`) or absent.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub resize: Option<String>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub size: Option<Vec<u32>>,
    /// A center crop `[height, width]` after the resize.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub crop: Option<Vec<u32>>,
    /// `nearest`, `bilinear` (the default), `bicubic` or `area`.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub filter: Option<String>,
    /// Pillow's antialiased filters (the default) or OpenCV's sampled ones.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub antialias: Option<bool>,
    /// Reverse the channels (BGR → RGB).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub reverse_channels: Option<bool>,
    /// A preprocessing's output layout, `nchw` (the default) or `nhwc`.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub output_layout: Option<String>,
    /// Fields this version does not know (a note, a peer's parameter): reported once, otherwise ignored.
    #[serde(flatten, skip_serializing)]
    pub unknown: BTreeMap<String, serde_json::Value>,
}

/// A number or a list of numbers (scale and bias).
#[derive(Clone, Debug, Deserialize, Serialize)]
#[serde(untagged)]
pub enum Values {
    One(f32),
    Many(Vec<f32>),
}

impl Values {
    fn to_vec(&self) -> Vec<f32> {
        match self {
            Values::One(x) => vec![*x],
            Values::Many(v) => v.clone(),
        }
    }

    /// The one value of an identity's scale or bias.
    fn one(v: &Option<Values>, default: f32, field: &str) -> Result<f32> {
        match v {
            None => Ok(default),
            Some(Values::One(x)) => Ok(*x),
            Some(Values::Many(_)) => bail!("`{field}` of an identity is one number"),
        }
    }
}

impl Case {
    /// An elementwise case (identity or cast) of `sizes` between two stride sets.
    fn elementwise(
        name: &str,
        op: &str,
        dtype: &str,
        sizes: &[u32],
        input: Option<Vec<u32>>,
        output: Option<Vec<u32>>,
    ) -> Case {
        Case {
            name: name.into(),
            dtype: dtype.into(),
            op: Some(op.into()),
            sizes: Some(sizes.to_vec()),
            input_strides: input,
            output_strides: output,
            ..Case::default()
        }
    }

    fn cast(
        name: &str,
        from: &str,
        to: &str,
        sizes: &[u32],
        input: Option<Vec<u32>>,
        output: Option<Vec<u32>>,
    ) -> Case {
        Case { output_dtype: Some(to.into()), ..Case::elementwise(name, "cast", from, sizes, input, output) }
    }

    fn scale_bias(self) -> Case {
        Case { scale: Some(Values::One(1.0 / 255.0)), bias: Some(Values::One(-0.5)), ..self }
    }

    /// An ImageNet normalization of u8 `input` (sizes in the output's axis order, any strides) through a window
    /// to a packed `to` output whose channels are `channel_axis` (1: NCHW, 3: NHWC).
    fn imagenet(
        name: &str,
        to: &str,
        input: (&[u32], Vec<u32>),
        window: ([u32; 4], [u32; 4], [i32; 4]),
        channel_axis: usize,
    ) -> Case {
        let (offsets, sizes, strides) = window;
        let output: Vec<u32> = (0..4).map(|d| 1 + (sizes[d] - 1) / strides[d].unsigned_abs()).collect();
        // The parameters depend only on the channel count (the window's: an RGBX frame gives 3 of its 4): take them
        // from a one-pixel NCHW image.
        let pixel = TensorDesc::new(DataType::Uint8, &[1, sizes[channel_axis], 1, 1]).expect("3 channels");
        let op = Normalize::image(&pixel).imagenet().build().expect("ImageNet parameters are valid");
        Case {
            name: name.into(),
            dtype: "u8".into(),
            op: Some("normalize".into()),
            input_sizes: Some(input.0.to_vec()),
            input_strides: Some(input.1),
            offsets: Some(offsets.to_vec()),
            window_sizes: Some(sizes.to_vec()),
            window_strides: Some(strides.to_vec()),
            output_sizes: Some(output),
            output_dtype: Some(to.into()),
            channel_axis: Some(channel_axis),
            scale: Some(Values::Many(op.scale().to_vec())),
            bias: Some(Values::Many(op.bias().to_vec())),
            ..Case::default()
        }
    }
}

/// Packed strides of `sizes` laid out in `order` (outermost first), from the library's layout helper.
fn permuted(sizes: &[u32], order: &[usize]) -> Vec<u32> {
    TensorDesc::permuted(DataType::Uint8, sizes, order).expect("a valid built-in layout").strides().to_vec()
}

/// The default suite: every public workload under its own name (slices and layouts), two more layout
/// conversions (broadcast materialization, padded → packed), casts (packed, and with a layout change) and
/// scale/bias beside the plain identity of the same layout, plus cache-level sweeps of contiguous, reversed and
/// stride-2 f32 rows from 16 KiB to 64 MiB of output.
pub fn default_suite() -> Vec<Case> {
    let mut cases: Vec<Case> = serde_json::from_str(WORKLOADS).expect("the embedded slice suite parses");
    cases.extend(serde_json::from_str::<Vec<Case>>(LAYOUTS).expect("the embedded layout suite parses"));
    for c in &mut cases {
        c.unknown.clear(); // the public files carry notes
    }
    let nhwc = |s: &[u32]| Some(permuted(s, &[0, 2, 3, 1]));
    cases.extend([
        Case::elementwise(
            "layout_f32_broadcast_channel_bias_32x64x112x112",
            "identity",
            "f32",
            &[32, 64, 112, 112],
            Some(vec![0, 1, 0, 0]),
            None,
        ),
        Case::elementwise(
            "layout_u8_padded_rows_1080x1920x3_to_packed",
            "identity",
            "u8",
            &[1080, 5760],
            Some(vec![6144, 1]),
            None,
        ),
    ]);
    // Small slices (64 KiB of i16 out of 512 KiB, rank 6) with negative strides: two outer dimensions reversed,
    // then 16-element rows reversed or read with stride 2 (short rows: the cost is the walk around them).
    let input = [4u32, 8, 8, 8, 8, 32];
    for (name, strides) in [
        ("two_neg", [1i32, -1, 1, -1, 1, 1]),
        ("reversed_rows", [1, 1, 1, -1, 1, -1]),
        ("neg_stride2_rows", [1, -1, 1, 1, -1, 2]),
    ] {
        let output = [2u32, 4, 8, 8, 4, 16];
        let window: Vec<u32> = output.iter().zip(strides).map(|(&n, k)| (n - 1) * k.unsigned_abs() + 1).collect();
        cases.push(Case {
            name: format!("small_i16_rank6_64KiB_{name}"),
            dtype: "i16".into(),
            input_sizes: Some(input.to_vec()),
            offsets: Some(vec![1, 2, 0, 0, 0, 0]),
            window_sizes: Some(window),
            window_strides: Some(strides.to_vec()),
            output_sizes: Some(output.to_vec()),
            ..Case::default()
        });
    }
    // Casts: packed, 4M and 16M elements; then with a layout change beside the pure cast of the same size.
    let m4 = [4u32 << 20];
    for (from, to) in [("f32", "f16"), ("f16", "f32"), ("u8", "f32"), ("i32", "f32"), ("f64", "f32")] {
        cases.push(Case::cast(&format!("cast_{from}_to_{to}_4M"), from, to, &m4, None, None));
    }
    for (from, to) in [("f32", "f16"), ("u8", "f32")] {
        cases.push(Case::cast(&format!("cast_{from}_to_{to}_16M"), from, to, &[16 << 20], None, None));
    }
    let (a, b) = ([32u32, 3, 224, 224], [16u32, 16, 128, 128]);
    cases.extend([
        Case::cast("cast_f32_to_f16_32x3x224x224", "f32", "f16", &a, None, None),
        Case::cast("cast_f32_nhwc_to_f16_nchw_32x3x224x224", "f32", "f16", &a, nhwc(&a), None),
        Case::cast("cast_f32_to_f16_16x16x128x128", "f32", "f16", &b, None, None),
        Case::cast("cast_f32_nhwc_to_f16_nchw_16x16x128x128", "f32", "f16", &b, nhwc(&b), None),
    ]);
    // Scale/bias beside the plain identity of the same layout.
    let c = [1u32, 64, 256, 256];
    for (name, dtype, input, output) in [
        ("f32_packed_1x64x256x256", "f32", None, None),
        ("f16_packed_1x64x256x256", "f16", None, None),
        ("f32_nchw_to_nhwc_1x64x256x256", "f32", None, nhwc(&c)),
    ] {
        let plain =
            Case::elementwise(&format!("identity_{name}"), "identity", dtype, &c, input.clone(), output.clone());
        let scaled = Case { name: format!("scale_bias_{name}"), ..plain.clone() }.scale_bias();
        cases.extend([plain, scaled]);
    }
    // Preprocessing in one pass: a batch of decoded images to model input, and a crop + mirror + BGR→RGB of a
    // 1080p frame.
    let (batch, frame) = ([32u32, 3, 224, 224], [1u32, 3, 1080, 1920]);
    let whole = ([0; 4], batch, [1; 4]);
    let nhwc_of = |s: &[u32]| permuted(s, &[0, 2, 3, 1]);
    cases.extend([
        Case::imagenet("normalize_u8_nhwc_to_f32_nchw_32x3x224x224", "f32", (&batch, nhwc_of(&batch)), whole, 1),
        Case::imagenet("normalize_u8_nhwc_to_f16_nchw_32x3x224x224", "f16", (&batch, nhwc_of(&batch)), whole, 1),
        Case::imagenet(
            "normalize_u8_1080p_bgr_crop1024_hflip_rgb_to_f32",
            "f32",
            (&frame, nhwc_of(&frame)),
            ([0, 0, 28, 448], [1, 3, 1024, 1024], [1, -1, 1, -1]),
            1,
        ),
        // BGRX / BGRA frames (Windows bitmaps, DirectX textures, video decoders): 3 of 4 channels, reversed.
        Case::imagenet(
            "normalize_u8_bgrx_to_rgb_f32_nchw_32x3x224x224",
            "f32",
            (&[32, 4, 224, 224], nhwc_of(&[32, 4, 224, 224])),
            ([0; 4], batch, [1, -1, 1, 1]),
            1,
        ),
    ]);
    // The same into channels-last outputs (what TensorFlow, TFLite and many ONNX exports take): the per-channel
    // parameters then repeat along the innermost axis.
    let (batch, frame, hd) = ([32u32, 224, 224, 3], [1u32, 1080, 1920, 3], [1u32, 720, 1280, 3]);
    let packed = |s: &[u32]| permuted(s, &[0, 1, 2, 3]);
    let whole = ([0; 4], batch, [1; 4]);
    cases.extend([
        Case::imagenet("normalize_u8_nhwc_to_f32_nhwc_32x224x224x3", "f32", (&batch, packed(&batch)), whole, 3),
        Case::imagenet("normalize_u8_nhwc_to_f16_nhwc_32x224x224x3", "f16", (&batch, packed(&batch)), whole, 3),
        Case::imagenet(
            "normalize_u8_1080p_crop1024_hflip_to_f32_nhwc",
            "f32",
            (&frame, packed(&frame)),
            ([0, 28, 448, 0], [1, 1024, 1024, 3], [1, 1, -1, 1]),
            3,
        ),
        Case::imagenet(
            "normalize_u8_720p_bgr_to_rgb_f32_nhwc",
            "f32",
            (&hd, packed(&hd)),
            ([0; 4], hd, [1, 1, 1, -1]),
            3,
        ),
    ]);
    // Resize, and preprocessing from decoded images with the resize inside the pass: u8 RGB frames (NHWC), Pillow's
    // antialiased bilinear filter. The resizes alone keep u8 (unit parameters); the pipelines are the
    // classification (shorter side 256, center crop 224, BGR → RGB, ImageNet) and YOLO (letterbox 640, pad 114, /255)
    // inputs.
    let frames = |name: &str, nchw: [u32; 4], resize: &str, size: &[u32], to: &str| Case {
        name: name.into(),
        op: Some("preprocess".into()),
        dtype: "u8".into(),
        input_sizes: Some(nchw.to_vec()),
        input_strides: Some(permuted(&nchw, &[0, 2, 3, 1])),
        resize: Some(resize.into()),
        size: Some(size.to_vec()),
        output_dtype: Some(to.into()),
        output_layout: Some(if to == "u8" { "nhwc" } else { "nchw" }.into()),
        ..Case::default()
    };
    let imagenet = Normalize::image(&TensorDesc::new(DataType::Uint8, &[1, 3, 1, 1]).expect("a pixel"))
        .imagenet()
        .build()
        .expect("ImageNet parameters are valid");
    cases.extend([
        frames("resize_u8_rgb_1920x1080_to_224x224_bilinear", [1, 3, 1080, 1920], "stretch", &[224, 224], "u8"),
        frames("resize_u8_rgb_4928x3279_to_852x567_bilinear", [1, 3, 3279, 4928], "stretch", &[567, 852], "u8"),
        frames("resize_u8_rgb_2560x1600_to_320x200_bilinear", [1, 3, 1600, 2560], "stretch", &[200, 320], "u8"),
        // OpenCV's `cv2.resize(INTER_LINEAR)`: sampled, two taps a side.
        Case {
            antialias: Some(false),
            ..frames("resize_u8_rgb_1920x1080_to_224x224_sampled", [1, 3, 1080, 1920], "stretch", &[224, 224], "u8")
        },
        Case {
            crop: Some(vec![224, 224]),
            reverse_channels: Some(true),
            scale: Some(Values::Many(imagenet.scale().to_vec())),
            bias: Some(Values::Many(imagenet.bias().to_vec())),
            ..frames(
                "preprocess_32x640x480_bgr_shorter256_crop224_imagenet_f32",
                [32, 3, 480, 640],
                "shorter",
                &[256],
                "f32",
            )
        },
        Case {
            value: Some(114.0),
            reverse_channels: Some(true),
            scale: Some(Values::One(1.0 / 255.0)),
            ..frames("preprocess_8x1280x720_bgr_letterbox640_f32", [8, 3, 720, 1280], "letterbox", &[640, 640], "f32")
        },
    ]);
    // Index-driven movement: embedding lookups (rows picked by int64 ids), element gathers and scatters, one-hot.
    let indexed = |name: &str, op: &str, dtype: &str, sizes: &[u32], index: &[u32], axis: u32| Case {
        name: name.into(),
        op: Some(op.into()),
        dtype: dtype.into(),
        sizes: Some(sizes.to_vec()),
        index_sizes: Some(index.to_vec()),
        axis: Some(axis),
        ..Case::default()
    };
    cases.extend([
        indexed("gather_f32_embedding_32768x1024_by_16384", "gather", "f32", &[32768, 1024], &[16384], 0),
        indexed("gather_f32_embedding_131072x256_by_65536", "gather", "f32", &[131072, 256], &[65536], 0),
        indexed("gather_f16_embedding_65536x4096_by_4096", "gather", "f16", &[65536, 4096], &[4096], 0),
        indexed("gather_elements_f32_4096x1024_axis1", "gather_elements", "f32", &[4096, 1024], &[4096, 1024], 1),
        indexed("gather_elements_f16_4096x1024_axis1", "gather_elements", "f16", &[4096, 1024], &[4096, 1024], 1),
        indexed("scatter_elements_f32_4096x1024_axis1", "scatter_elements", "f32", &[4096, 1024], &[4096, 256], 1),
        Case { depth: Some(1000), ..indexed("one_hot_f32_16384_depth_1000", "one_hot", "f32", &[], &[16384], 1) },
    ]);
    // The data-movement family (the cases of the issue that added it), beside the peers' equivalents.
    let case = |name: &str, op: &str, dtype: &str, sizes: &[u32]| Case {
        name: name.into(),
        op: Some(op.into()),
        dtype: dtype.into(),
        sizes: Some(sizes.to_vec()),
        ..Case::default()
    };
    cases.extend([
        Case {
            start: Some(vec![80, 0, 0]),
            end: Some(vec![80, 0, 0]),
            value: Some(114.0),
            ..case("pad_u8_letterbox_640x480x3_to_640x640", "pad", "u8", &[480, 640, 3])
        },
        Case {
            start: Some(vec![0, 0, 3, 3]),
            end: Some(vec![0, 0, 3, 3]),
            mode: Some("reflect".into()),
            ..case("pad_f32_reflect3_1x64x256x256", "pad", "f32", &[1, 64, 256, 256])
        },
        Case {
            parts: Some(vec![1; 32]),
            axis: Some(0),
            ..case("join_u8_32x3x224x224_batch", "join", "u8", &[1, 3, 224, 224])
        },
        Case {
            parts: Some(vec![1024; 4]),
            axis: Some(2),
            ..case("split_f16_8x1024x4096_last_axis_4", "split", "f16", &[8, 1024, 4096])
        },
        Case { repeats: Some(vec![8, 1, 1, 1]), ..case("tile_f32_1x3x224x224_by_8", "tile", "f32", &[1, 3, 224, 224]) },
        Case {
            block_size: Some(2),
            mode: Some("DCR".into()),
            ..case("depth_to_space_f32_1x256x128x128_dcr", "depth_to_space", "f32", &[1, 256, 128, 128])
        },
        Case {
            block_size: Some(2),
            mode: Some("CRD".into()),
            ..case("depth_to_space_f32_1x256x128x128_crd", "depth_to_space", "f32", &[1, 256, 128, 128])
        },
        Case { value: Some(7.0), ..case("fill_i64_16M", "fill", "i64", &[16 << 20]) },
        Case {
            value: Some(-5.0),
            delta: Some(3.0),
            ..case("fill_sequence_i64_16M", "fill_sequence", "i64", &[16 << 20])
        },
    ]);
    for (kind, step) in [("contiguous", 1i32), ("reverse", -1), ("stride2", 2)] {
        for kib in [16u32, 256, 4096, 65536] {
            let n = kib * 256;
            let window = (n - 1) * step.unsigned_abs() + 1;
            cases.push(Case {
                name: format!("sweep_f32_{kind}_{kib}KiB"),
                dtype: "f32".into(),
                input_sizes: Some(vec![window]),
                offsets: Some(vec![0]),
                window_sizes: Some(vec![window]),
                window_strides: Some(vec![step]),
                output_sizes: Some(vec![n]),
                ..Case::default()
            });
        }
    }
    cases
}

/// Loads a suite file; unknown fields are reported on stderr.
pub fn load_suite(path: &std::path::Path) -> Result<Vec<Case>> {
    let text = std::fs::read_to_string(path).with_context(|| format!("cannot read {}", path.display()))?;
    let cases: Vec<Case> =
        serde_json::from_str(&text).with_context(|| format!("{} is not a workload list", path.display()))?;
    for c in &cases {
        if !c.unknown.is_empty() {
            let keys: Vec<&str> = c.unknown.keys().map(String::as_str).collect();
            eprintln!("strider: warning: case {}: ignoring unknown field(s) {}", c.name, keys.join(", "));
        }
    }
    Ok(cases)
}

/// The description of a case's operator: every operator of the facade's list.
pub fn describe(case: &Case) -> Result<OperatorDesc> {
    let dt: DataType = case.dtype.parse()?;
    let desc = |dt: DataType, sizes: &[u32], strides: &Option<Vec<u32>>| match strides {
        Some(s) => TensorDesc::with_strides(dt, sizes, s),
        None => TensorDesc::new(dt, sizes),
    };
    let need = |v: &Option<Vec<u32>>, field: &str| v.clone().with_context(|| format!("missing `{field}`"));
    let num = |v: Option<f64>, field: &str| v.with_context(|| format!("missing `{field}`"));
    // The operand of an elementwise case (`sizes`) or of the window format (`input_sizes`).
    let sizes = || case.sizes.clone().or_else(|| case.input_sizes.clone()).context("missing `sizes`");
    let value = |v: f64| if dt.is_float() { Scalar::from(v).cast(dt) } else { Scalar::from(v as i64).cast(dt) };
    Ok(match case.op.as_deref().unwrap_or("slice1") {
        "slice1" => OperatorDesc::Slice1 {
            input: desc(dt, &need(&case.input_sizes, "input_sizes")?, &case.input_strides).context("input")?,
            output: desc(dt, &need(&case.output_sizes, "output_sizes")?, &case.output_strides).context("output")?,
            window_offsets: need(&case.offsets, "offsets")?,
            window_sizes: need(&case.window_sizes, "window_sizes")?,
            window_strides: case.window_strides.clone().context("missing `window_strides`")?,
        },
        "identity" => {
            let sizes = need(&case.sizes, "sizes")?;
            let (input, output) = (desc(dt, &sizes, &case.input_strides)?, desc(dt, &sizes, &case.output_strides)?);
            let scale_bias = match (&case.scale, &case.bias) {
                (None, None) => None,
                (scale, bias) => {
                    Some(ScaleBias { scale: Values::one(scale, 1.0, "scale")?, bias: Values::one(bias, 0.0, "bias")? })
                }
            };
            OperatorDesc::ElementWiseIdentity { input, output, scale_bias }
        }
        "cast" => {
            let sizes = need(&case.sizes, "sizes")?;
            let to: DataType = case.output_dtype.as_deref().context("missing `output_dtype`")?.parse()?;
            OperatorDesc::Cast {
                input: desc(dt, &sizes, &case.input_strides)?,
                output: desc(to, &sizes, &case.output_strides)?,
            }
        }
        "normalize" => {
            let in_sizes = need(&case.input_sizes, "input_sizes")?;
            let input = desc(dt, &in_sizes, &case.input_strides).context("input")?;
            let to: DataType = case.output_dtype.as_deref().unwrap_or("f32").parse()?;
            let output =
                desc(to, &need(&case.output_sizes, "output_sizes")?, &case.output_strides).context("output")?;
            let rank = in_sizes.len();
            let list = |v: &Option<Values>, default: f32| v.as_ref().map_or(vec![default], Values::to_vec);
            OperatorDesc::Normalize {
                input,
                output,
                window_offsets: case.offsets.clone().unwrap_or_else(|| vec![0; rank]),
                window_sizes: case.window_sizes.clone().unwrap_or(in_sizes),
                window_strides: case.window_strides.clone().unwrap_or_else(|| vec![1; rank]),
                channel_axis: case.channel_axis,
                scale: list(&case.scale, 1.0),
                bias: list(&case.bias, 0.0),
            }
        }
        "preprocess" => {
            let in_sizes = need(&case.input_sizes, "input_sizes")?;
            let input = desc(dt, &in_sizes, &case.input_strides).context("input")?;
            let to: DataType = case.output_dtype.as_deref().unwrap_or("f32").parse()?;
            let (resize, filter) = (image_resize(case)?, resize_filter(case)?);
            let crop = match case.crop.as_deref() {
                Some(&[h, w]) => Some([h, w]),
                None => None,
                Some(_) => bail!("`crop` takes [height, width]"),
            };
            let layout = match case.output_layout.as_deref().unwrap_or("nchw") {
                "nchw" => ImageLayout::Nchw,
                "nhwc" => ImageLayout::Nhwc,
                other => bail!("unknown output layout {other:?}"),
            };
            let b = Normalize::image(&input).resize_by(resize, filter);
            let b = match crop {
                Some([h, w]) => b.center_crop(h, w),
                None => b,
            };
            let list = |v: &Option<Values>, default: f32| v.as_ref().map_or(vec![default], Values::to_vec);
            OperatorDesc::Preprocess {
                output: b.output_type(to).layout(layout).output_desc()?,
                input,
                resize,
                filter,
                antialias: case.antialias.unwrap_or(true),
                crop,
                flip_horizontal: false,
                flip_vertical: false,
                reverse_channels: case.reverse_channels.unwrap_or(false),
                scale: list(&case.scale, 1.0),
                bias: list(&case.bias, 0.0),
            }
        }
        "pad" => {
            let sizes = sizes()?;
            let (start, end) = (need(&case.start, "start")?, need(&case.end, "end")?);
            let out: Vec<u32> = (0..sizes.len()).map(|d| sizes[d] + start[d] + end[d]).collect();
            let mode = match case.mode.as_deref().unwrap_or("constant") {
                "constant" => PaddingMode::Constant,
                "edge" => PaddingMode::Edge,
                "reflect" => PaddingMode::Reflection,
                "symmetric" => PaddingMode::Symmetric,
                "wrap" => PaddingMode::Wrap,
                other => bail!("unknown padding mode {other:?}"),
            };
            OperatorDesc::Padding {
                input: desc(dt, &sizes, &case.input_strides)?,
                output: desc(dt, &out, &case.output_strides)?,
                mode,
                value: value(case.value.unwrap_or(0.0)),
                start,
                end,
            }
        }
        "join" | "split" => {
            let sizes = sizes()?;
            let axis = case.axis.unwrap_or(0);
            let a = axis as usize;
            let parts = need(&case.parts, "parts")?;
            let blocks: Vec<TensorDesc> = parts
                .iter()
                .map(|&n| {
                    let mut s = sizes.clone();
                    s[a] = n;
                    TensorDesc::new(dt, &s)
                })
                .collect::<Result<_, _>>()?;
            let mut whole = sizes.clone();
            whole[a] = parts.iter().sum();
            let whole = TensorDesc::new(dt, &whole)?;
            if case.op.as_deref() == Some("join") {
                OperatorDesc::Join { inputs: blocks, output: whole, axis }
            } else {
                OperatorDesc::Split { input: whole, outputs: blocks, axis }
            }
        }
        "tile" => {
            let sizes = sizes()?;
            let repeats = need(&case.repeats, "repeats")?;
            let out: Vec<u32> = sizes.iter().zip(&repeats).map(|(&n, &r)| n * r).collect();
            OperatorDesc::Tile {
                input: desc(dt, &sizes, &case.input_strides)?,
                output: TensorDesc::new(dt, &out)?,
                repeats,
            }
        }
        op @ ("depth_to_space" | "space_to_depth") => {
            let s = sizes()?;
            let b = case.block_size.context("missing `block_size`")?;
            let order = match case.mode.as_deref().unwrap_or("DCR") {
                "DCR" => DepthSpaceOrder::DepthColumnRow,
                "CRD" => DepthSpaceOrder::ColumnRowDepth,
                other => bail!("unknown depth↔space mode {other:?}"),
            };
            let input = desc(dt, &s, &case.input_strides)?;
            if op == "depth_to_space" {
                let output = TensorDesc::new(dt, &[s[0], s[1] / (b * b), s[2] * b, s[3] * b])?;
                OperatorDesc::DepthToSpace { input, output, block_size: b, order }
            } else {
                let output = TensorDesc::new(dt, &[s[0], s[1] * b * b, s[2] / b, s[3] / b])?;
                OperatorDesc::SpaceToDepth { input, output, block_size: b, order }
            }
        }
        "fill" => OperatorDesc::FillValueConstant {
            output: desc(dt, &sizes()?, &case.output_strides)?,
            value: value(num(case.value, "value")?),
        },
        "fill_sequence" => OperatorDesc::FillValueSequence {
            output: desc(dt, &sizes()?, &case.output_strides)?,
            start: value(num(case.value, "value")?),
            delta: value(num(case.delta, "delta")?),
        },
        op @ ("gather" | "gather_elements" | "scatter_elements" | "one_hot") => index_desc(case, op, dt)?,
        other => bail!(
            "unknown op {other:?}: expected slice1, identity, cast, normalize, pad, join, split, tile, \
             depth_to_space, space_to_depth, fill, fill_sequence, gather, gather_elements, scatter_elements or \
             one_hot"
        ),
    })
}

/// The distinct 64-byte lines of the input a plan reads, in bytes.
fn input_lines_bytes(plan: &Plan) -> u64 {
    let dims = plan.dims();
    let w = plan.in_width() as isize;
    let mut lines: Vec<u64> = Vec::new(); // bitset of lines
    let mut mark = |lo: usize, hi: usize| {
        // bytes [lo, hi)
        for line in lo / 64..hi.div_ceil(64) {
            if line / 64 >= lines.len() {
                lines.resize(line / 64 + 1, 0);
            }
            lines[line / 64] |= 1 << (line % 64);
        }
    };
    let (outer, row) = dims.split_at(dims.len() - 1);
    let row = row[0];
    let mut c = vec![0usize; outer.len()];
    loop {
        let base = plan.in_base() as isize + c.iter().zip(outer).map(|(&x, d)| x as isize * d.in_stride).sum::<isize>();
        if row.in_stride == w {
            mark(base as usize, (base + row.extent as isize * w) as usize);
        } else {
            for j in 0..row.extent as isize {
                let at = (base + j * row.in_stride) as usize;
                mark(at, at + w as usize);
            }
        }
        let mut k = c.len();
        loop {
            if k == 0 {
                return lines.iter().map(|x| u64::from(x.count_ones())).sum::<u64>() * 64;
            }
            k -= 1;
            c[k] += 1;
            if c[k] < outer[k].extent {
                break;
            }
            c[k] = 0;
        }
    }
}

/// One timed configuration.
#[derive(Clone, Debug, Serialize)]
pub struct Run {
    pub threads: usize,
    pub ns_per_op: f64,
    pub gb_per_s: f64,
    /// Time ÷ one-thread memcpy of the output bytes: below 1 is faster than memcpy (lower is better).
    pub time_over_memcpy: f64,
    /// A memcpy of the output bytes with this many threads.
    pub memcpy_ns: f64,
    /// A memcpy with this many threads moving the bytes the operator must move.
    pub limit_ns: f64,
    /// Time ÷ `limit_ns`: 1.00 = at the memory system's speed (lower is better).
    pub time_over_limit: f64,
}

/// The results of one case.
#[derive(Clone, Debug, Serialize)]
pub struct CaseResult {
    pub name: String,
    /// The workload as given (sizes, strides, window), so that peers can rebuild it.
    pub case: Case,
    pub op: String,
    pub dtype: String,
    pub output_bytes: u64,
    /// Distinct input bytes read (whole 64-byte lines) plus output bytes written: what the limit copy moves.
    pub limit_bytes: u64,
    pub plan: String,
    /// One-thread memcpy of the output bytes.
    pub memcpy_ns: f64,
    pub memcpy_gb_per_s: f64,
    pub runs: Vec<Run>,
}

/// A whole report (what `--json` writes).
#[derive(Clone, Debug, Serialize)]
pub struct Report {
    pub strider_version: String,
    pub isa: String,
    pub method: String,
    pub cases: Vec<CaseResult>,
}

pub struct Options {
    pub threads: Vec<usize>,
    pub filter: Option<String>,
    pub seconds_per_case: f64,
    pub method: Method,
    pub streaming: Streaming,
    /// A forced instruction-set level.
    pub isa: Option<Isa>,
    /// Bytes past a 64-byte line at which every buffer starts (0: line-aligned; numpy's large arrays start 16
    /// bytes past one).
    pub misalign: usize,
}

/// The store policy the operators run with.
#[derive(Clone, Copy, Debug, PartialEq, Eq, clap::ValueEnum)]
pub enum Streaming {
    /// The library's choice (from the footprint and the detected cache sizes; near the threshold, measured by
    /// each operator over its own calls).
    Auto,
    /// Non-temporal stores wherever a kernel has them.
    On,
    /// Regular stores only.
    Off,
}

fn median(mut v: Vec<f64>) -> f64 {
    v.sort_by(f64::total_cmp);
    v[v.len() / 2]
}

/// A benchmark buffer of `n` bytes starting `misalign` bytes past a 64-byte line. From 4 MiB on it is an anonymous
/// mapping advised to use transparent huge pages, as numpy does for its arrays (the peers are measured on such
/// arrays; with 4-KiB pages large strided walks pay TLB misses that have nothing to do with the kernels).
struct Buffer {
    inner: BufferInner,
    start: usize,
    n: usize,
}

enum BufferInner {
    Heap(Vec<u8>),
    Mapped(memmap2::MmapMut),
}

impl Buffer {
    fn filled(n: usize, misalign: usize, fill: impl Fn(usize) -> u8) -> Result<Buffer> {
        let misalign = misalign % 64;
        let len = n + 64 + misalign;
        let inner = if n >= 4 << 20 {
            let map = memmap2::MmapMut::map_anon(len).context("cannot map a benchmark buffer")?;
            #[cfg(target_os = "linux")]
            let _ = map.advise(memmap2::Advice::HugePage); // a hint; ignored where THP is off
            BufferInner::Mapped(map)
        } else {
            BufferInner::Heap(vec![0; len])
        };
        let base = match &inner {
            BufferInner::Heap(v) => v.as_ptr(),
            BufferInner::Mapped(m) => m.as_ptr(),
        };
        let start = base.align_offset(64) + misalign;
        let mut b = Buffer { inner, start, n };
        for (i, x) in b.iter_mut().enumerate() {
            *x = fill(i);
        }
        Ok(b)
    }
}

impl std::ops::Deref for Buffer {
    type Target = [u8];
    fn deref(&self) -> &[u8] {
        let all: &[u8] = match &self.inner {
            BufferInner::Heap(v) => v,
            BufferInner::Mapped(m) => m,
        };
        &all[self.start..self.start + self.n]
    }
}

impl std::ops::DerefMut for Buffer {
    fn deref_mut(&mut self) -> &mut [u8] {
        let all: &mut [u8] = match &mut self.inner {
            BufferInner::Heap(v) => v,
            BufferInner::Mapped(m) => m,
        };
        &mut all[self.start..self.start + self.n]
    }
}

/// Deterministic input bytes. Floats of every float type are positive normal numbers of moderate size, as image
/// and activation data are: the top byte of each element is `0x3C..=0x3F` (f32 in [2⁻⁷, 2), f16 in [1, 2), f64 in
/// [2⁻⁶³, 2)), the other bytes arbitrary. No NaN or infinity, and no subnormal inputs, products or narrowed
/// results (every f32 is an f16 normal, every f64 an f32 normal).
///
/// PERF: x86 cores take microcode assists on subnormal operands and results. With exponents down to 0 (the top
/// exponent bit merely cleared), one f32 in 128 was subnormal and products with a scale of 0.017 more often: on
/// the Zen 4 VM an f32 NHWC → NCHW normalization of 224² pixels in L2 took 30 µs instead of 13.5 µs (memcpy speed),
/// timing the assists rather than the kernel.
/// `sizes` right-aligned into `n` dimensions (leading 1s).
fn pad_sizes(sizes: &[u32], n: usize) -> Vec<u32> {
    let mut s = vec![1; n.saturating_sub(sizes.len())];
    s.extend_from_slice(sizes);
    s
}

/// The description of an index case, from NumPy's shapes (packed tensors) to DirectML's.
fn index_desc(case: &Case, op: &str, dt: DataType) -> Result<OperatorDesc> {
    let it: DataType = case.index_dtype.as_deref().unwrap_or("i64").parse()?;
    let index = case.index_sizes.clone().context("missing `index_sizes`")?;
    let sizes = case.sizes.clone().unwrap_or_default();
    let axis = case.axis.unwrap_or(0);
    let a = axis as usize;
    Ok(match op {
        "gather" => {
            let full: Vec<u32> = sizes[..a].iter().chain(&index).chain(&sizes[a + 1..]).copied().collect();
            let n = sizes.len().max(index.len()).max(full.len());
            OperatorDesc::Gather {
                input: TensorDesc::new(dt, &pad_sizes(&sizes, n))?,
                indices: TensorDesc::new(it, &pad_sizes(&index, n))?,
                output: TensorDesc::new(dt, &pad_sizes(&full, n))?,
                axis: (a + n - sizes.len()) as u32,
                index_dimensions: index.len() as u32,
            }
        }
        "gather_elements" => OperatorDesc::GatherElements {
            input: TensorDesc::new(dt, &sizes)?,
            indices: TensorDesc::new(it, &index)?,
            output: TensorDesc::new(dt, &index)?,
            axis,
        },
        "scatter_elements" => OperatorDesc::ScatterElements {
            input: TensorDesc::new(dt, &sizes)?,
            indices: TensorDesc::new(it, &index)?,
            updates: TensorDesc::new(dt, &index)?,
            output: TensorDesc::new(dt, &sizes)?,
            axis,
        },
        _ => {
            let depth = case.depth.context("missing `depth`")?;
            let mut out = index.clone();
            out.insert(a.min(index.len()), depth);
            let mut ix = index.clone();
            ix.insert(a.min(index.len()), 1);
            OperatorDesc::OneHot {
                indices: TensorDesc::new(it, &ix)?,
                values: TensorDesc::new(dt, &pad_sizes(&[2], out.len()))?,
                output: TensorDesc::new(dt, &out)?,
                axis: a.min(index.len()) as u32,
            }
        }
    })
}

/// The bench's index `k` into a dimension of `bound` (spread, deterministic).
fn bench_index(k: usize, bound: u64) -> u64 {
    (k as u64).wrapping_mul(2654435761).wrapping_add(12345) % bound.max(1)
}

/// For an index case: which input holds the indices, and the size of the dimension they address.
fn index_input(case: &Case) -> Option<(usize, u64)> {
    let axis = case.axis.unwrap_or(0) as usize;
    let dim = |s: &Option<Vec<u32>>| s.as_ref().and_then(|s| s.get(axis)).map(|&n| u64::from(n));
    match case.op.as_deref()? {
        "gather" | "gather_elements" | "scatter_elements" => Some((1, dim(&case.sizes)?)),
        "one_hot" => Some((0, u64::from(case.depth?))),
        _ => None,
    }
}

/// A preprocessing case's resize.
fn image_resize(case: &Case) -> Result<ImageResize> {
    let size = || -> Result<[u32; 2]> {
        match case.size.as_deref() {
            Some(&[h, w]) => Ok([h, w]),
            Some(&[s]) => Ok([s, s]),
            _ => bail!("case {}: `size` takes [height, width] or [side]", case.name),
        }
    };
    Ok(match case.resize.as_deref() {
        None => ImageResize::None,
        Some("stretch") => {
            let [height, width] = size()?;
            ImageResize::Stretch { height, width }
        }
        Some("shorter") => ImageResize::Shorter(size()?[0]),
        Some("letterbox") => {
            let [height, width] = size()?;
            ImageResize::Letterbox { height, width, pad: case.value.unwrap_or(0.0) as f32 }
        }
        Some(other) => bail!("case {}: unknown resize {other:?}", case.name),
    })
}

/// A preprocessing case's filter.
fn resize_filter(case: &Case) -> Result<ResizeFilter> {
    Ok(match case.filter.as_deref().unwrap_or("bilinear") {
        "nearest" => ResizeFilter::Nearest,
        "bilinear" => ResizeFilter::Bilinear,
        "bicubic" => ResizeFilter::Bicubic,
        "area" => ResizeFilter::Area,
        other => bail!("case {}: unknown filter {other:?}", case.name),
    })
}

/// The bytes a preprocessing case must move: the input rows and columns its kept window's filter reads (every
/// channel of them), and the output.
fn preprocess_limit_bytes(case: &Case, op: &strider::Operator) -> Result<Option<u64>> {
    if case.op.as_deref() != Some("preprocess") {
        return Ok(None);
    }
    let (x, y) = (&op.inputs()[0], &op.outputs()[0]);
    let s = x.sizes();
    let (n, c, hw) = (s[..s.len() - 3].iter().product::<u32>(), s[s.len() - 3], [s[s.len() - 2], s[s.len() - 1]]);
    let resize = image_resize(case)?;
    let resized = match resize {
        ImageResize::None => hw,
        ImageResize::Stretch { height, width } => [height, width],
        ImageResize::Shorter(side) => strider::shorter_side_size(hw, side)?,
        ImageResize::Letterbox { height, width, .. } => {
            let l = strider::letterbox_geometry(hw, [height, width])?;
            [l.height, l.width]
        }
    };
    let (offsets, kept) = match case.crop.as_deref() {
        Some(&[h, w]) => (strider::center_crop_offsets(resized, [h, w])?, [h, w]),
        _ => ([0, 0], resized),
    };
    let taps = strider::Taps::axes(
        hw.map(|v| v as usize),
        resized.map(|v| v as usize),
        resize_filter(case)?,
        case.antialias.unwrap_or(true),
    );
    let reads = |k: usize| {
        let (t, first, last) = (&taps[k], offsets[k] as usize, (offsets[k] + kept[k] - 1) as usize);
        (t.start()[last] + t.taps() - t.start()[first]) as u64
    };
    let elements = u64::from(n) * u64::from(c) * reads(0) * reads(1);
    let written = y.element_count() * y.data_type().size_in_bytes() as u64;
    Ok(Some(elements * x.data_type().size_in_bytes() as u64 + written))
}

/// The indices of an index case: `bench_index(k)` at element `k`, in the tensor's type.
fn index_bytes(t: &TensorDesc, bound: u64, misalign: usize) -> Result<Buffer> {
    let w = t.data_type().size_in_bytes();
    Buffer::filled(t.addressed_bytes() as usize, misalign, |i| bench_index(i / w, bound).to_le_bytes()[(i % w).min(7)])
}

/// A one-hot's values tensor (packed, two elements): off 0, on 1 in its type.
fn one_hot_values(t: &TensorDesc, misalign: usize) -> Result<Buffer> {
    let one = strider::Scalar::from(1.0f64).cast(t.data_type());
    let w = t.data_type().size_in_bytes();
    Buffer::filled(t.addressed_bytes() as usize, misalign, |i| if i / w == 1 { one.bytes()[i % w] } else { 0 })
}

/// The bytes an index case must move: the indices, the distinct input lines its indices reach (rows of a gather,
/// elements of an element gather), a scatter's data and updates, and the output.
fn index_limit_bytes(case: &Case, op: &strider::Operator) -> Option<u64> {
    let (k, bound) = index_input(case)?;
    let lines = |b: u64| b.div_ceil(64) * 64;
    let bytes = |t: &TensorDesc| t.element_count() * t.data_type().size_in_bytes() as u64;
    let indices = &op.inputs()[k];
    let count = indices.element_count() as usize;
    let written: u64 = op.outputs().iter().map(bytes).sum();
    let read = match case.op.as_deref()? {
        "gather" => {
            // Distinct rows, each whole lines (a row is every element after the axis).
            let x = &op.inputs()[0];
            let row = bytes(x) / bound.max(1);
            let mut seen = vec![false; bound as usize];
            (0..count).for_each(|i| seen[bench_index(i, bound) as usize] = true);
            seen.iter().filter(|&&s| s).count() as u64 * lines(row)
        }
        "gather_elements" => {
            // Each index reaches one element of its row (packed 2-D tensors along axis 1, or axis 0).
            let x = &op.inputs()[0];
            let (s, w) = (x.sizes(), x.data_type().size_in_bytes() as u64);
            let (ix, axis) = (indices.sizes(), case.axis.unwrap_or(0) as usize);
            let mut marks = vec![0u64; (bytes(x) / 64 / 64 + 1) as usize];
            let mut c = vec![0u32; ix.len()];
            for i in 0..count {
                let mut at = c.clone();
                at[axis] = bench_index(i, bound) as u32;
                let off = at.iter().zip(s).fold(0u64, |o, (&x, &n)| o * u64::from(n) + u64::from(x)) * w / 64;
                marks[(off / 64) as usize] |= 1 << (off % 64);
                for d in (0..c.len()).rev() {
                    c[d] += 1;
                    if c[d] < ix[d] {
                        break;
                    }
                    c[d] = 0;
                }
            }
            marks.iter().map(|m| u64::from(m.count_ones())).sum::<u64>() * 64
        }
        _ => op.inputs().iter().enumerate().filter(|&(i, _)| i != k).map(|(_, t)| lines(bytes(t))).sum(),
    };
    Some(read + lines(bytes(indices)) + written)
}

fn input_bytes(n: usize, dt: DataType, misalign: usize) -> Result<Buffer> {
    let hash = |i: usize| (i.wrapping_mul(2654435761) >> 13) as u8;
    let w = dt.size_in_bytes();
    let float = matches!(dt, DataType::Float16 | DataType::Float32 | DataType::Float64);
    Buffer::filled(n, misalign, |i| if float && i % w == w - 1 { 0x3C | (hash(i) & 0x03) } else { hash(i) })
}

/// Calls per sample so that a sample lasts at least MIN_SAMPLE.
fn calibrate(mut f: impl FnMut()) -> usize {
    let mut batch = 1usize;
    loop {
        let t = Instant::now();
        for _ in 0..batch {
            f();
        }
        if t.elapsed() >= MIN_SAMPLE || batch >= 1 << 20 {
            return batch;
        }
        batch *= 2;
    }
}

/// How samples are taken.
#[derive(Clone, Copy, Debug, PartialEq, Eq, clap::ValueEnum)]
pub enum Method {
    /// Rounds alternating the operator and the copies (robust to slow periods; each side sees the cache state the
    /// others leave).
    Interleaved,
    /// Each side in its own tight loop, as the peer scripts (`benches/peers/`) measure: warm caches, comparable
    /// absolute times. Three alternating blocks, median of the block medians.
    Tight,
}

/// Median seconds per call of `f` over back-to-back samples for about `budget`.
fn tight(budget: Duration, f: &mut dyn FnMut()) -> f64 {
    for _ in 0..3 {
        f(); // warm-up
    }
    let batch = calibrate(&mut *f);
    let mut v = Vec::new();
    let start = Instant::now();
    while v.len() < 20 || (start.elapsed() < budget && v.len() < 200) {
        let t = Instant::now();
        for _ in 0..batch {
            f();
        }
        v.push(t.elapsed().as_secs_f64() / batch as f64);
    }
    median(v)
}

/// Median seconds per call of each of `sides`.
fn measure(method: Method, budget: Duration, sides: &mut [&mut dyn FnMut()]) -> Vec<f64> {
    if method == Method::Tight {
        let mut t = vec![Vec::new(); sides.len()];
        let share = budget / (3 * sides.len() as u32);
        for _ in 0..3 {
            for (k, f) in sides.iter_mut().enumerate() {
                t[k].push(tight(share, &mut **f));
            }
        }
        return t.into_iter().map(median).collect();
    }
    let batches: Vec<usize> = sides.iter_mut().map(|f| calibrate(&mut **f)).collect();
    let mut t = vec![Vec::new(); sides.len()];
    let start = Instant::now();
    let mut rounds = 0;
    while rounds < MIN_ROUNDS || (start.elapsed() < budget && rounds < MAX_ROUNDS) {
        for (k, f) in sides.iter_mut().enumerate() {
            for w in 0..WARM {
                let s = Instant::now();
                for _ in 0..batches[k] {
                    f();
                }
                if w > 0 {
                    t[k].push(s.elapsed().as_secs_f64() / batches[k] as f64);
                }
            }
        }
        rounds += 1;
    }
    t.into_iter().map(median).collect()
}

/// Copies `src` into `dst` with the current pool's threads (one `copy_from_slice` per thread on equal parts).
fn par_copy(dst: &mut [u8], src: &[u8]) {
    let threads = rayon::current_num_threads();
    if threads <= 1 {
        dst.copy_from_slice(src);
        return;
    }
    let part = dst.len().div_ceil(threads).max(1);
    dst.par_chunks_mut(part).zip(src.par_chunks(part)).for_each(|(d, s)| d.copy_from_slice(s));
}

fn run_case(
    case: &Case,
    opts: &Options,
    pools: &[(usize, rayon::ThreadPool)],
    bar: &ProgressBar,
) -> Result<CaseResult> {
    let op = describe(case).and_then(|d| Ok(d.build()?)).with_context(|| format!("case {}", case.name))?;
    let indices = index_input(case);
    let srcs: Vec<Buffer> = op
        .inputs()
        .iter()
        .enumerate()
        .map(|(k, t)| match indices {
            Some((i, bound)) if i == k => index_bytes(t, bound, opts.misalign),
            // A one-hot's values are the usual 0 and 1 (as the peers write them: on some machines zeros are
            // written faster than other bytes).
            _ if case.op.as_deref() == Some("one_hot") => one_hot_values(t, opts.misalign),
            _ => input_bytes(t.addressed_bytes() as usize, t.data_type(), opts.misalign),
        })
        .collect::<Result<_>>()?;
    let mut dsts: Vec<Buffer> = op
        .outputs()
        .iter()
        .map(|t| Buffer::filled(t.addressed_bytes() as usize, opts.misalign, |_| 0))
        .collect::<Result<_>>()?;
    let ins: Vec<&[u8]> = srcs.iter().map(|b| &b[..]).collect();
    {
        let mut want: Vec<Vec<u8>> = op.outputs().iter().map(|t| vec![0u8; t.addressed_bytes() as usize]).collect();
        let mut w: Vec<&mut [u8]> = want.iter_mut().map(|v| &mut v[..]).collect();
        op.execute_reference(&ins, &mut w)?;
        let mut d: Vec<&mut [u8]> = dsts.iter_mut().map(|b| &mut b[..]).collect();
        op.execute_with(&ins, &mut d, &ExecOptions::default())?;
        if dsts.iter().zip(&want).any(|(d, w)| d[..] != w[..]) {
            bail!("case {}: the result differs from the reference", case.name);
        }
    }
    let bytes: usize = op.outputs().iter().map(|t| t.addressed_bytes() as usize).sum();
    let element_bytes = |t: &TensorDesc| t.element_count() * t.data_type().size_in_bytes() as u64;
    let written: u64 = op.outputs().iter().map(element_bytes).sum();
    // The bytes the operator must move: the input lines its one move reads (from its plan), or for operators of
    // several moves every input element (each is read once: a pad's interior, a join's parts, a tile's input).
    let read = if let Some(limit) = index_limit_bytes(case, &op) {
        limit - written
    } else if let Some(limit) = preprocess_limit_bytes(case, &op)? {
        limit - written
    } else if op.explain().lines().count() == 1 {
        input_lines_bytes(op.plan())
    } else {
        op.inputs().iter().map(|t| element_bytes(t).div_ceil(64) * 64).sum()
    };
    let limit_bytes = read + written;
    let half = (limit_bytes / 2).max(1) as usize;
    let (a, mut b) = (Buffer::filled(bytes, opts.misalign, |_| 1)?, Buffer::filled(bytes, opts.misalign, |_| 0)?);
    let mut b2 = Buffer::filled(bytes, opts.misalign, |_| 0)?;
    let (la, mut lb) = (Buffer::filled(half, opts.misalign, |_| 1)?, Buffer::filled(half, opts.misalign, |_| 0)?);
    let budget = Duration::from_secs_f64(opts.seconds_per_case);
    // PERF: the output list made once, not per call (a tiny operator runs in about 10 ns).
    let mut outs: Vec<&mut [u8]> = dsts.iter_mut().map(|b| &mut b[..]).collect();
    let mut runs = Vec::new();
    let mut one_thread_memcpy = Vec::new();
    for &(threads, ref pool) in pools {
        let exec = if threads == 1 { ExecOptions::sequential() } else { ExecOptions::default() };
        let exec = match opts.streaming {
            Streaming::Auto => exec,
            Streaming::On => exec.with_streaming(true),
            Streaming::Off => exec.with_streaming(false),
        };
        let exec = match opts.isa {
            Some(isa) => exec.with_isa(isa),
            None => exec,
        };
        let t = pool.install(|| {
            measure(
                opts.method,
                budget,
                &mut [
                    &mut || op.execute_with(black_box(&ins), black_box(&mut outs), &exec).expect("validated buffers"),
                    &mut || black_box(&mut b[..]).copy_from_slice(black_box(&a[..])),
                    &mut || par_copy(black_box(&mut b2[..]), black_box(&a[..])),
                    &mut || par_copy(black_box(&mut lb[..]), black_box(&la[..])),
                ],
            )
        });
        one_thread_memcpy.push(t[1]);
        runs.push((threads, t[0], t[2], t[3]));
        bar.inc(1);
    }
    // One single-thread memcpy figure per case: the median over the thread counts' rounds.
    let t_copy = median(one_thread_memcpy);
    Ok(CaseResult {
        name: case.name.clone(),
        case: case.clone(),
        op: case.op.clone().unwrap_or_else(|| "slice1".into()),
        dtype: match &case.output_dtype {
            Some(to) => format!("{}→{}", case.dtype, to),
            None => case.dtype.clone(),
        },
        output_bytes: bytes as u64,
        limit_bytes,
        plan: format!("{} · {}", op.row_kind(), op.plan()),
        memcpy_ns: t_copy * 1e9,
        memcpy_gb_per_s: bytes as f64 / t_copy / 1e9,
        runs: runs
            .into_iter()
            .map(|(threads, t, memcpy, limit)| Run {
                threads,
                ns_per_op: t * 1e9,
                gb_per_s: bytes as f64 / t / 1e9,
                time_over_memcpy: t / t_copy,
                memcpy_ns: memcpy * 1e9,
                limit_ns: limit * 1e9,
                time_over_limit: t / limit,
            })
            .collect(),
    })
}

/// Receives each case's result and a function that prints a line (above the progress bar, if any).
pub type RowSink<'a> = dyn FnMut(&CaseResult, &dyn Fn(&str)) + 'a;

/// How the report was sampled, in one line.
pub fn method_text(opts: &Options) -> String {
    let how = match opts.method {
        Method::Interleaved => "interleaved rounds (operator and copies alternate, 4 samples, first dropped)",
        Method::Tight => "tight loops per side as the peer scripts (warm caches, median of 3 blocks)",
    };
    let place = match opts.misalign {
        0 => String::new(),
        m => format!("; buffers {m} bytes past a 64-byte line"),
    };
    format!("{how}; {:.2} s per case and thread count{place}", opts.seconds_per_case)
}

/// Runs the suite: a progress bar on stderr when it is a terminal; `row` is called with each case's result as it
/// completes (the caller prints it, so that a log shows rows as they come).
pub fn run(cases: &[Case], opts: &Options, row: &mut RowSink<'_>) -> Result<Report> {
    let selected: Vec<&Case> =
        cases.iter().filter(|c| opts.filter.as_ref().is_none_or(|f| c.name.contains(f.as_str()))).collect();
    if selected.is_empty() {
        bail!("no case of the suite matches --filter {:?}", opts.filter.as_deref().unwrap_or(""));
    }
    let pools = opts
        .threads
        .iter()
        .map(|&t| Ok((t, rayon::ThreadPoolBuilder::new().num_threads(t).build()?)))
        .collect::<Result<Vec<_>>>()?;
    let bar = if std::io::stderr().is_terminal() {
        ProgressBar::new((selected.len() * pools.len()) as u64)
    } else {
        ProgressBar::hidden()
    };
    bar.set_style(
        ProgressStyle::with_template("{bar:40} {pos}/{len} {msg} [{elapsed}, ~{eta} left]").expect("template"),
    );
    let mut out = Vec::new();
    for case in selected {
        bar.set_message(case.name.clone());
        let result = run_case(case, opts, &pools, &bar)?;
        // Printed above the bar on a terminal, straight through otherwise.
        let print = |line: &str| {
            if bar.is_hidden() {
                println!("{line}");
            } else {
                bar.println(line);
            }
        };
        row(&result, &print);
        out.push(result);
    }
    bar.finish_and_clear();
    Ok(Report {
        strider_version: env!("CARGO_PKG_VERSION").into(),
        isa: opts.isa.unwrap_or_else(Isa::best).to_string(),
        method: method_text(opts),
        cases: out,
    })
}

fn human_time(ns: f64) -> String {
    if ns < 1e4 {
        format!("{ns:.0} ns")
    } else if ns < 1e6 {
        format!("{:.1} µs", ns / 1e3)
    } else {
        format!("{:.2} ms", ns / 1e6)
    }
}

fn human_bytes(b: u64) -> String {
    if b >= 1 << 20 {
        format!("{:.1} MiB", b as f64 / (1 << 20) as f64)
    } else if b >= 1 << 10 {
        format!("{:.1} KiB", b as f64 / 1024.0)
    } else {
        format!("{b} B")
    }
}

/// Width of the case-name column; longer names get a line of their own.
const NAME: usize = 30;

/// The table's header lines for a run with these thread counts (at most 120 columns for two).
pub fn header(r_isa: &str, method: &str, threads: &[usize]) -> String {
    let mut s = String::new();
    s += &format!("strider {} · {r_isa}\n{method}\n", env!("CARGO_PKG_VERSION"));
    s += "GB/s = output bytes / time. t/memcpy = time ÷ a one-thread memcpy of the output bytes; t/limit = time ÷ a\n";
    s += "memcpy (same threads) moving the bytes the operator must move. Both: lower is better, below 1 = faster.\n";
    s += &format!("{:<NAME$} {:>9} {:>9}", "case", "output", "memcpy");
    for t in threads {
        s += &format!(" │ {:>8} {:>5} {:>8} {:>7}", format!("{t}t time"), "GB/s", "t/memcpy", "t/limit");
    }
    s
}

/// One case's line (two when its name is longer than the name column).
pub fn row(c: &CaseResult) -> String {
    let mut s = String::new();
    let name = if c.name.chars().count() > NAME {
        s += &c.name;
        s += "\n";
        String::new()
    } else {
        c.name.clone()
    };
    s += &format!("{name:<NAME$} {:>9} {:>9}", human_bytes(c.output_bytes), human_time(c.memcpy_ns));
    for run in &c.runs {
        s += &format!(
            " │ {:>8} {:>5.1} {:>8.2} {:>7.2}",
            human_time(run.ns_per_op),
            run.gb_per_s,
            run.time_over_memcpy,
            run.time_over_limit
        );
    }
    s
}

/// An output file of the bench, checked writable before the run: a temporary file in the target's directory,
/// renamed over the target when written.
pub struct Output {
    path: std::path::PathBuf,
    tmp: tempfile::NamedTempFile,
}

impl Output {
    /// Creates the temporary file now (so that an unwritable place fails before a long run).
    pub fn create(path: &std::path::Path) -> Result<Output> {
        let dir = match path.parent() {
            Some(p) if !p.as_os_str().is_empty() => p,
            _ => std::path::Path::new("."),
        };
        let tmp = tempfile::NamedTempFile::new_in(dir).with_context(|| format!("cannot write {}", path.display()))?;
        Ok(Output { path: path.to_owned(), tmp })
    }

    /// Writes `bytes` and puts the file in place.
    pub fn write(mut self, bytes: &[u8]) -> Result<()> {
        use std::io::Write;
        self.tmp.write_all(bytes).with_context(|| format!("cannot write {}", self.path.display()))?;
        strider_cli::persist(self.tmp, &self.path)
    }
}

/// The report as an SVG chart (see `plot.rs`).
pub fn plot(report: &Report) -> Result<String> {
    crate::plot::svg(report)
}
