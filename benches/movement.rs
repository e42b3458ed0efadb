//! The data-movement family (pad, join, split, tile, depth-to-space, fills) beside a `memcpy` of the output bytes,
//! at 1 and 2 threads, on the cases of the issue that added them. Ids are `{op}/{dtype}/{case}/{variant}`; every
//! result is checked against the operator's reference before timing.
//!
//! ```text
//! cargo bench --bench movement
//! ```

mod support;

use criterion::{Criterion, Throughput, criterion_group, criterion_main};
use strider::{DataType, DepthSpaceOrder, Operator, OperatorDesc, PaddingMode, Scalar, TensorDesc};

fn cases() -> Vec<(&'static str, &'static str, OperatorDesc)> {
    let t = |dt, s: &[u32]| TensorDesc::new(dt, s).unwrap();
    let (u8_, f16, f32_, i64_) = (DataType::Uint8, DataType::Float16, DataType::Float32, DataType::Int64);
    let part = |k: u32| t(f16, &[8, 1024, k]);
    vec![
        (
            "pad",
            "letterbox_640x480x3_to_640x640",
            OperatorDesc::Padding {
                input: t(u8_, &[480, 640, 3]),
                output: t(u8_, &[640, 640, 3]),
                mode: PaddingMode::Constant,
                value: Scalar::from(114u8),
                start: vec![80, 0, 0],
                end: vec![80, 0, 0],
            },
        ),
        (
            "pad",
            "reflect3_1x64x256x256",
            OperatorDesc::Padding {
                input: t(f32_, &[1, 64, 256, 256]),
                output: t(f32_, &[1, 64, 262, 262]),
                mode: PaddingMode::Reflection,
                value: Scalar::from(0f32),
                start: vec![0, 0, 3, 3],
                end: vec![0, 0, 3, 3],
            },
        ),
        (
            "join",
            "32x3x224x224_batch",
            OperatorDesc::Join {
                inputs: vec![t(u8_, &[1, 3, 224, 224]); 32],
                output: t(u8_, &[32, 3, 224, 224]),
                axis: 0,
            },
        ),
        (
            "split",
            "8x1024x4096_last_axis_4",
            OperatorDesc::Split { input: t(f16, &[8, 1024, 4096]), outputs: vec![part(1024); 4], axis: 2 },
        ),
        (
            "tile",
            "1x3x224x224_by_8",
            OperatorDesc::Tile {
                input: t(f32_, &[1, 3, 224, 224]),
                output: t(f32_, &[8, 3, 224, 224]),
                repeats: vec![8, 1, 1, 1],
            },
        ),
        (
            "depth_to_space",
            "1x256x128x128_dcr",
            OperatorDesc::DepthToSpace {
                input: t(f32_, &[1, 256, 128, 128]),
                output: t(f32_, &[1, 64, 256, 256]),
                block_size: 2,
                order: DepthSpaceOrder::DepthColumnRow,
            },
        ),
        (
            "depth_to_space",
            "1x256x128x128_crd",
            OperatorDesc::DepthToSpace {
                input: t(f32_, &[1, 256, 128, 128]),
                output: t(f32_, &[1, 64, 256, 256]),
                block_size: 2,
                order: DepthSpaceOrder::ColumnRowDepth,
            },
        ),
        ("fill", "16M", OperatorDesc::FillValueConstant { output: t(i64_, &[16 << 20]), value: Scalar::from(7i64) }),
        (
            "fill_sequence",
            "16M",
            OperatorDesc::FillValueSequence {
                output: t(i64_, &[16 << 20]),
                start: Scalar::from(-5i64),
                delta: Scalar::from(3i64),
            },
        ),
    ]
}

fn movement(c: &mut Criterion) {
    let pool = rayon::ThreadPoolBuilder::new().num_threads(2).build().unwrap();
    for (op_name, name, desc) in cases() {
        let op: Operator = desc.build().unwrap();
        let srcs: Vec<Vec<u8>> = op.inputs().iter().map(support::input).collect();
        let ins: Vec<&[u8]> = srcs.iter().map(Vec::as_slice).collect();
        let mut dsts: Vec<Vec<u8>> = op.outputs().iter().map(|t| vec![0u8; t.addressed_bytes() as usize]).collect();
        let mut want = dsts.clone();
        {
            let mut w: Vec<&mut [u8]> = want.iter_mut().map(Vec::as_mut_slice).collect();
            op.execute_reference(&ins, &mut w).unwrap();
            let mut d: Vec<&mut [u8]> = dsts.iter_mut().map(Vec::as_mut_slice).collect();
            op.execute(&ins, &mut d).unwrap();
        }
        assert!(dsts == want, "{op_name}/{name}: result differs from the reference");
        let bytes: usize = dsts.iter().map(Vec::len).sum();
        let dtype = op.outputs()[0].data_type().short_name();
        let mut g = c.benchmark_group(format!("{op_name}/{dtype}/{name}"));
        g.throughput(Throughput::Bytes(bytes as u64)).sample_size(20);
        let mut outs: Vec<&mut [u8]> = dsts.iter_mut().map(Vec::as_mut_slice).collect();
        support::variants(&mut g, bytes, &pool, |opts| op.execute_with(&ins, &mut outs, opts).unwrap());
        g.finish();
    }
}

criterion_group!(benches, movement);
criterion_main!(benches);
