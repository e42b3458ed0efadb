//! Conversion benchmarks beside a `memcpy` of the larger operand's bytes, at 1 and 2 threads: the five main casts
//! on packed tensors of 16 MiB and more, a cast fused with an NHWC → NCHW layout change beside the pure cast of the
//! same size, and scale/bias beside the plain identity of the same layout. Ids are `cast/{from}_{to}/{case}/{variant}`
//! and `scale_bias/{dtype}/{case}/{variant}`; every result is checked against the library's reference first.
//!
//! ```text
//! cargo bench --bench cast
//! ```

use std::hint::black_box;
use std::time::Instant;

use criterion::{BenchmarkGroup, Criterion, Throughput, criterion_group, criterion_main, measurement::WallTime};
use strider::{Cast, DataType, ExecOptions, Identity, ScaleBias, TensorDesc};

/// Finite, moderate values of any type (no NaN slow paths).
fn input(desc: &TensorDesc) -> Vec<u8> {
    let w = desc.data_type().size_in_bytes();
    let float = matches!(desc.data_type(), DataType::Float16 | DataType::Float32 | DataType::Float64);
    (0..desc.addressed_bytes() as usize)
        .map(|i| {
            let b = ((i * 131) >> 3) as u8;
            if float && i % w == w - 1 { b & 0x3F } else { b }
        })
        .collect()
}

/// memcpy of `bytes`, the operator at 1 thread, at 2 threads.
fn variants(
    g: &mut BenchmarkGroup<'_, WallTime>,
    bytes: usize,
    pool: &rayon::ThreadPool,
    mut run: impl FnMut(&ExecOptions) + Send,
) {
    let (a, mut b) = (vec![1u8; bytes], vec![0u8; bytes]);
    g.bench_function("memcpy_larger_operand", |bch| {
        bch.iter(|| black_box(&mut b[..]).copy_from_slice(black_box(&a[..])))
    });
    let seq = ExecOptions::sequential();
    g.bench_function("strider_1t", |bch| bch.iter(|| run(&seq)));
    let par = ExecOptions::default();
    g.bench_function("strider_2t", |bch| {
        bch.iter_custom(|iters| {
            pool.install(|| {
                let t = Instant::now();
                for _ in 0..iters {
                    run(&par);
                }
                t.elapsed()
            })
        })
    });
}

fn casts(c: &mut Criterion) {
    let pool = rayon::ThreadPoolBuilder::new().num_threads(2).build().unwrap();
    let (f16, f32_, f64_) = (DataType::Float16, DataType::Float32, DataType::Float64);
    let packed = |dt, s: &[u32]| TensorDesc::new(dt, s).unwrap();
    let n = [4u32 << 20];
    let nchw = [32u32, 3, 224, 224];
    let cases: Vec<(String, TensorDesc, TensorDesc)> = vec![
        ("4M".into(), packed(f32_, &n), packed(f16, &n)),
        ("4M".into(), packed(f16, &n), packed(f32_, &n)),
        ("4M".into(), packed(DataType::Uint8, &n), packed(f32_, &n)),
        ("4M".into(), packed(DataType::Int32, &n), packed(f32_, &n)),
        ("4M".into(), packed(f64_, &n), packed(f32_, &n)),
        ("32x3x224x224".into(), packed(f32_, &nchw), packed(f16, &nchw)),
        ("nhwc_to_nchw_32x3x224x224".into(), TensorDesc::nhwc(f32_, nchw).unwrap(), packed(f16, &nchw)),
    ];
    for (name, input_desc, output_desc) in cases {
        let op = Cast::new(&input_desc, &output_desc).unwrap();
        let src = input(&input_desc);
        let bytes = output_desc.addressed_bytes() as usize;
        let (mut dst, mut want) = (vec![0u8; bytes], vec![0u8; bytes]);
        op.execute_reference(&src, &mut want).unwrap();
        op.execute(&src, &mut dst).unwrap();
        assert!(dst == want, "{name}: result differs from the reference");
        let id =
            format!("cast/{}_{}/{name}", input_desc.data_type().short_name(), output_desc.data_type().short_name());
        let mut g = c.benchmark_group(id);
        let larger = bytes.max(src.len());
        g.throughput(Throughput::Bytes(larger as u64)).sample_size(20);
        variants(&mut g, larger, &pool, |o| op.execute_with(black_box(&src), black_box(&mut dst), o).unwrap());
        g.finish();
    }
    let s = [1u32, 64, 256, 256];
    for (name, dt, output) in [
        ("packed_1x64x256x256", f32_, packed(f32_, &s)),
        ("packed_1x64x256x256", f16, packed(f16, &s)),
        ("nchw_to_nhwc_1x64x256x256", f32_, TensorDesc::nhwc(f32_, s).unwrap()),
    ] {
        let input_desc = packed(dt, &s);
        let src = input(&input_desc);
        let bytes = output.addressed_bytes() as usize;
        let mut dst = vec![0u8; bytes];
        for (variant, op) in [
            ("identity", Identity::new(&input_desc, &output).unwrap()),
            (
                "scale_bias",
                Identity::with_scale_bias(&input_desc, &output, ScaleBias { scale: 0.0039, bias: -0.5 }).unwrap(),
            ),
        ] {
            let mut want = vec![0u8; bytes];
            op.execute_reference(&src, &mut want).unwrap();
            op.execute(&src, &mut dst).unwrap();
            assert!(dst == want, "{name} {variant}: result differs from the reference");
            let mut g = c.benchmark_group(format!("{variant}/{}/{name}", dt.short_name()));
            g.throughput(Throughput::Bytes(bytes as u64)).sample_size(20);
            variants(&mut g, bytes, &pool, |o| op.execute_with(black_box(&src), black_box(&mut dst), o).unwrap());
            g.finish();
        }
    }
}

criterion_group!(benches, casts);
criterion_main!(benches);
