//! Conversion benchmarks beside a `memcpy` of the larger operand's bytes, at 1 and 2 threads: the five main casts
//! on packed tensors of 16 MiB and more, a cast fused with an NHWC → NCHW layout change beside the pure cast of the
//! same size, and scale/bias beside the plain identity of the same layout. Ids are `cast/{from}_{to}/{case}/{variant}`
//! and `scale_bias/{dtype}/{case}/{variant}`; every result is checked against the library's reference first.
//!
//! ```text
//! cargo bench --bench cast
//! ```

use std::hint::black_box;

use criterion::{Criterion, Throughput, criterion_group, criterion_main};
use strider::{Cast, DataType, Identity, ScaleBias, TensorDesc};

#[path = "support.rs"]
mod support;
use support::{input, variants};

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
