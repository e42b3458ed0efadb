//! What the conversion benches share: deterministic inputs and the three variants every case is timed in.

use std::hint::black_box;
use std::time::Instant;

use criterion::{BenchmarkGroup, measurement::WallTime};
use strider::{DataType, ExecOptions, TensorDesc};

/// Finite, moderate values of any type (no NaN slow paths).
pub fn input(desc: &TensorDesc) -> Vec<u8> {
    let w = desc.data_type().size_in_bytes();
    let float = matches!(desc.data_type(), DataType::Float16 | DataType::Float32 | DataType::Float64);
    (0..desc.addressed_bytes() as usize)
        .map(|i| {
            let b = ((i * 131) >> 3) as u8;
            if float && i % w == w - 1 { b & 0x3F } else { b }
        })
        .collect()
}

/// memcpy of `bytes` (`memcpy_larger_operand`), the operator at 1 thread (`strider_1t`), at 2 threads
/// (`strider_2t`, in `pool`).
pub fn variants(
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
