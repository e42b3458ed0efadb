//! Layout conversion benchmarks (element-wise identity between layouts) beside a `memcpy` of the same output bytes,
//! at 1 and 2 threads: NHWC ↔ NCHW, a rank-5 permutation, broadcast materialization, padded → packed. Ids are
//! `identity/{dtype}/{case}/{variant}`; every result is checked against the reference before timing.
//!
//! ```text
//! cargo bench --bench layout
//! ```

#[path = "../tests/common/mod.rs"]
#[allow(unused_imports)]
mod common;

use std::hint::black_box;
use std::time::Instant;

use criterion::{Criterion, Throughput, criterion_group, criterion_main};
use strider::{DataType, ExecOptions, Identity, TensorDesc};

fn cases() -> Vec<(&'static str, TensorDesc, TensorDesc)> {
    let d = |dt, s: &[u32]| TensorDesc::new(dt, s).unwrap();
    let s = |dt, s: &[u32], st: &[u32]| TensorDesc::with_strides(dt, s, st).unwrap();
    let (u8_, f16, f32_) = (DataType::Uint8, DataType::Float16, DataType::Float32);
    vec![
        ("nhwc_32x224x224x3_to_nchw", TensorDesc::nhwc(u8_, [32, 3, 224, 224]).unwrap(), d(u8_, &[32, 3, 224, 224])),
        ("nchw_1x64x256x256_to_nhwc", d(f32_, &[1, 64, 256, 256]), TensorDesc::nhwc(f32_, [1, 64, 256, 256]).unwrap()),
        ("nchw_16x3x512x512_to_nhwc", d(f16, &[16, 3, 512, 512]), TensorDesc::nhwc(f16, [16, 3, 512, 512]).unwrap()),
        (
            "rank5_8x16x32x32x8_perm_04213",
            d(f32_, &[8, 16, 32, 32, 8]),
            TensorDesc::permuted(f32_, &[8, 16, 32, 32, 8], &[0, 4, 2, 1, 3]).unwrap(),
        ),
        (
            "broadcast_channel_bias_32x64x112x112",
            s(f32_, &[32, 64, 112, 112], &[0, 1, 0, 0]),
            d(f32_, &[32, 64, 112, 112]),
        ),
        ("padded_rows_1080x5760_to_packed", s(u8_, &[1080, 5760], &[6144, 1]), d(u8_, &[1080, 5760])),
    ]
}

fn layout(c: &mut Criterion) {
    let pool = rayon::ThreadPoolBuilder::new().num_threads(2).build().unwrap();
    for (name, input, output) in cases() {
        let op = Identity::new(&input, &output).unwrap();
        let src: Vec<u8> = (0..input.addressed_bytes() as usize).map(|i| ((i * 131) >> 3) as u8).collect();
        let bytes = output.addressed_bytes() as usize;
        let mut dst = vec![0u8; bytes];
        let mut want = vec![0u8; bytes];
        common::reference_identity(&input, &output, &src, &mut want);
        op.execute(&src, &mut dst).unwrap();
        assert!(dst == want, "{name}: result differs from the reference");

        let mut g = c.benchmark_group(format!("identity/{}/{name}", input.data_type().short_name()));
        g.throughput(Throughput::Bytes(bytes as u64)).sample_size(20);
        let (a, mut b) = (vec![1u8; bytes], vec![0u8; bytes]);
        g.bench_function("memcpy", |bch| bch.iter(|| black_box(&mut b[..]).copy_from_slice(black_box(&a[..]))));
        let seq = ExecOptions::sequential();
        g.bench_function("strider_1t", |bch| {
            bch.iter(|| op.execute_with(black_box(&src), black_box(&mut dst), &seq).unwrap())
        });
        g.bench_function("strider_2t", |bch| {
            bch.iter_custom(|iters| {
                pool.install(|| {
                    let t = Instant::now();
                    for _ in 0..iters {
                        op.execute(black_box(&src), black_box(&mut dst)).unwrap();
                    }
                    t.elapsed()
                })
            })
        });
        g.finish();
    }
}

criterion_group!(benches, layout);
criterion_main!(benches);
