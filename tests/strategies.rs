//! The strategy every public workload and layout case gets, pinned: a fast path that silently disappears (a
//! transpose falling back to the generic strided row, a reverse becoming a table) fails here before it shows up as
//! a slowdown.

use strider::{DataType, Identity, RowKind, Slice1, TensorDesc};

fn json(text: &str) -> Vec<serde_json::Value> {
    serde_json::from_str::<serde_json::Value>(text).unwrap().as_array().unwrap().clone()
}

fn u32s(v: &serde_json::Value) -> Vec<u32> {
    v.as_array().unwrap().iter().map(|x| x.as_u64().unwrap() as u32).collect()
}

#[test]
fn public_slice_workloads() {
    let expected = [
        ("u8_hwc1080p_center_crop_1024", RowKind::Copy),
        ("u8_hwc1080p_hflip", RowKind::Reverse),
        ("f32_nchw_1x3x1024x1024_vflip", RowKind::Copy),
        ("f32_nchw_1x64x256x256_hw_stride2", RowKind::Gather { stride: 2 }),
        ("f32_nchw_1x64x256x256_even_channels", RowKind::Copy),
        ("f16_8x512x4096_mid_128_384", RowKind::Copy),
        ("f32_1d_16M_reverse", RowKind::Reverse),
        ("i8_4096x4096_inner_stride3", RowKind::Gather { stride: 3 }),
        ("u16_rank8_4pow8_mixed_neg", RowKind::Table { len: 256 }),
        ("f32_dml_doc_example_1x1x4x4", RowKind::Table { len: 4 }),
        ("u8_nhwc_32x224x224x3_crop_200", RowKind::Copy),
        ("f32_nchw_16x3x512x512_crop384_hw_stride2", RowKind::Gather { stride: 2 }),
        ("u8_hwc720p_bgr_to_rgb", RowKind::Swap { channels: 3 }),
    ];
    let cases = json(include_str!("../benches/workloads.json"));
    assert_eq!(cases.len(), expected.len(), "a workload was added: pin its strategy here");
    for c in cases {
        let name = c["name"].as_str().unwrap();
        let want = expected.iter().find(|(n, _)| *n == name).unwrap_or_else(|| panic!("{name} is not pinned")).1;
        let dt: DataType = c["dtype"].as_str().unwrap().parse().unwrap();
        let input = TensorDesc::new(dt, &u32s(&c["input_sizes"])).unwrap();
        let output = TensorDesc::new(dt, &u32s(&c["output_sizes"])).unwrap();
        let strides: Vec<i32> =
            c["window_strides"].as_array().unwrap().iter().map(|x| x.as_i64().unwrap() as i32).collect();
        let op = Slice1::new(&input, &output, &u32s(&c["offsets"]), &u32s(&c["window_sizes"]), &strides).unwrap();
        assert_eq!(op.row_kind(), want, "{name}: {}", op.plan());
    }
}

#[test]
fn public_layout_workloads() {
    let expected = [
        ("u8_nhwc_32x224x224x3_to_nchw", RowKind::Deinterleave { planes: 3 }),
        ("f32_nchw_1x64x256x256_to_nhwc", RowKind::Transpose { rows: 64 }),
        ("f16_nchw_16x3x512x512_to_nhwc", RowKind::Interleave { planes: 3 }),
        ("f32_rank5_perm_04213_8x16x32x32x8", RowKind::Transpose { rows: 32 }),
        ("f32_transpose_2048x2048", RowKind::Transpose { rows: 2048 }),
        ("f32_padded_rows_pitch2816_to_packed_1440x2560", RowKind::Copy),
        ("f16_nhwc_16x128x128x16_to_nchw", RowKind::Transpose { rows: 16384 }),
    ];
    let cases = json(include_str!("../benches/layouts.json"));
    assert_eq!(cases.len(), expected.len(), "a layout case was added: pin its strategy here");
    for c in cases {
        let name = c["name"].as_str().unwrap();
        let want = expected.iter().find(|(n, _)| *n == name).unwrap_or_else(|| panic!("{name} is not pinned")).1;
        let dt: DataType = c["dtype"].as_str().unwrap().parse().unwrap();
        let sizes = u32s(&c["sizes"]);
        let desc = |key: &str| match c.get(key) {
            Some(s) => TensorDesc::with_strides(dt, &sizes, &u32s(s)).unwrap(),
            None => TensorDesc::new(dt, &sizes).unwrap(),
        };
        let op = Identity::new(&desc("input_strides"), &desc("output_strides")).unwrap();
        assert_eq!(op.row_kind(), want, "{name}: {}", op.plan());
    }
}
