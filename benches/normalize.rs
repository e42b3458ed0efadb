//! Preprocessing benchmarks beside a `memcpy` of the output bytes, at 1 and 2 threads: a batch of u8 NHWC images
//! to f32 and to f16 NCHW with ImageNet's mean/std, and a 1080p BGR frame center-cropped to 1024², mirrored, turned
//! to RGB and normalized into f32 planes. Ids are `normalize/{case}/{variant}`; every result is checked against the
//! library's reference first.
//!
//! ```text
//! cargo bench --bench normalize
//! ```

use std::hint::black_box;

use criterion::{Criterion, Throughput, criterion_group, criterion_main};
use strider::{DataType, Normalize, TensorDesc};

#[path = "support.rs"]
mod support;
use support::{input, variants};

fn normalize(c: &mut Criterion) {
    let pool = rayon::ThreadPoolBuilder::new().num_threads(2).build().unwrap();
    let batch = TensorDesc::nhwc(DataType::Uint8, [32, 3, 224, 224]).unwrap();
    let frame = TensorDesc::nhwc(DataType::Uint8, [1, 3, 1080, 1920]).unwrap();
    let cases = [
        ("u8_nhwc_to_f32_nchw_32x3x224x224", Normalize::image(&batch).imagenet().build().unwrap()),
        (
            "u8_nhwc_to_f16_nchw_32x3x224x224",
            Normalize::image(&batch).imagenet().output_type(DataType::Float16).build().unwrap(),
        ),
        (
            "u8_1080p_bgr_crop1024_hflip_rgb_to_f32",
            Normalize::image(&frame)
                .center_crop(1024, 1024)
                .flip_horizontal()
                .reverse_channels()
                .imagenet()
                .build()
                .unwrap(),
        ),
    ];
    for (name, op) in cases {
        let src = input(op.input());
        let bytes = op.output().addressed_bytes() as usize;
        let (mut dst, mut want) = (vec![0u8; bytes], vec![0u8; bytes]);
        op.execute_reference(&src, &mut want).unwrap();
        op.execute(&src, &mut dst).unwrap();
        assert!(dst == want, "{name}: result differs from the reference");
        let mut g = c.benchmark_group(format!("normalize/{name}"));
        g.throughput(Throughput::Bytes(bytes as u64)).sample_size(20);
        variants(&mut g, bytes, &pool, |o| op.execute_with(black_box(&src), black_box(&mut dst), o).unwrap());
        g.finish();
    }
}

criterion_group!(benches, normalize);
criterion_main!(benches);
