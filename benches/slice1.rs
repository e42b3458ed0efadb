//! DML_SLICE1 benchmarks: every public workload (`benches/workloads.json`, the cases of the shared peer suite)
//! beside a `memcpy` of the same output byte count, at 1 and 2 threads; and a cache-level sweep (16 KiB … 256 MiB)
//! of contiguous, reversed and stride-2 rows. Ids are `slice1/{dtype}/{case}/{variant}`; throughput is output
//! bytes. Every result is checked once against the reference before timing.
//!
//! ```text
//! cargo bench --bench slice1                      # everything (~10 min)
//! cargo bench --bench slice1 -- hflip             # one case
//! cargo bench --bench slice1 -- sweep/            # the cache sweep only
//! ```

#[path = "../tests/common/mod.rs"]
#[allow(unused_imports)]
mod common;

use std::hint::black_box;
use std::time::{Duration, Instant};

use criterion::{BenchmarkId, Criterion, Throughput, criterion_group, criterion_main};
use strider::{DataType, ExecOptions, Parallelism, Slice1, TensorDesc};

/// One case of the workload file.
struct Case {
    name: String,
    dtype: DataType,
    input: Vec<u32>,
    offsets: Vec<u32>,
    sizes: Vec<u32>,
    strides: Vec<i32>,
    output: Vec<u32>,
}

fn cases() -> Vec<Case> {
    let json: serde_json::Value = serde_json::from_str(include_str!("workloads.json")).expect("workloads.json");
    let u32s = |v: &serde_json::Value| -> Vec<u32> {
        v.as_array().unwrap().iter().map(|x| x.as_u64().unwrap() as u32).collect()
    };
    json.as_array()
        .unwrap()
        .iter()
        .map(|c| Case {
            name: c["name"].as_str().unwrap().to_owned(),
            dtype: c["dtype"].as_str().unwrap().parse().unwrap(),
            input: u32s(&c["input_sizes"]),
            offsets: u32s(&c["offsets"]),
            sizes: u32s(&c["window_sizes"]),
            strides: c["window_strides"].as_array().unwrap().iter().map(|x| x.as_i64().unwrap() as i32).collect(),
            output: u32s(&c["output_sizes"]),
        })
        .collect()
}

/// Deterministic input bytes.
fn input_bytes(n: usize) -> Vec<u8> {
    (0..n).map(|i| (i.wrapping_mul(2654435761) >> 13) as u8).collect()
}

/// Times `iters` calls of `f` inside `pool` (one hand-off per batch, not per call).
fn timed_in(pool: &rayon::ThreadPool, iters: u64, mut f: impl FnMut() + Send) -> Duration {
    pool.install(|| {
        let t = Instant::now();
        for _ in 0..iters {
            f();
        }
        t.elapsed()
    })
}

fn bench_case(c: &mut Criterion, case: &Case, pools: &[rayon::ThreadPool; 2]) {
    let input = TensorDesc::new(case.dtype, &case.input).unwrap();
    let output = TensorDesc::new(case.dtype, &case.output).unwrap();
    let op = Slice1::new(&input, &output, &case.offsets, &case.sizes, &case.strides).unwrap();
    let src = input_bytes(input.addressed_bytes() as usize);
    let bytes = output.addressed_bytes() as usize;
    let mut dst = vec![0u8; bytes];
    let mut want = vec![0u8; bytes];
    common::reference_slice1(&input, &output, &case.offsets, &case.sizes, &case.strides, &src, &mut want);
    op.execute(&src, &mut dst).unwrap();
    assert!(dst == want, "{}: result differs from the reference", case.name);

    let mut g = c.benchmark_group(format!("slice1/{}/{}", case.dtype.short_name(), case.name));
    g.throughput(Throughput::Bytes(bytes as u64));
    if bytes >= 8 << 20 {
        g.sample_size(20);
    }
    let (a, mut b) = (vec![1u8; bytes], vec![0u8; bytes]);
    g.bench_function("memcpy", |bch| bch.iter(|| black_box(&mut b[..]).copy_from_slice(black_box(&a[..]))));
    let seq = ExecOptions::sequential();
    g.bench_function("strider_1t", |bch| {
        bch.iter(|| op.execute_with(black_box(&src), black_box(&mut dst), &seq).unwrap())
    });
    let par = ExecOptions::default().with_parallelism(Parallelism::Auto);
    g.bench_function("strider_2t", |bch| {
        bch.iter_custom(|iters| {
            timed_in(&pools[1], iters, || op.execute_with(black_box(&src), black_box(&mut dst), &par).unwrap())
        })
    });
    g.finish();
}

/// Contiguous, reversed and stride-2 f32 rows from 16 KiB to 256 MiB of output, beside memcpy.
fn sweep(c: &mut Criterion) {
    let sizes_kib = [16usize, 64, 256, 1024, 4096, 16384, 65536, 262144];
    for (kind, step) in [("contiguous", 1i32), ("reverse", -1), ("stride2", 2)] {
        let mut g = c.benchmark_group(format!("sweep/{kind}"));
        g.sample_size(20).warm_up_time(Duration::from_millis(500)).measurement_time(Duration::from_secs(2));
        for kib in sizes_kib {
            let n = (kib * 1024 / 4) as u32;
            let window = (n - 1) * step.unsigned_abs() + 1;
            let input = TensorDesc::new(DataType::Float32, &[window]).unwrap();
            let output = TensorDesc::new(DataType::Float32, &[n]).unwrap();
            let op = Slice1::new(&input, &output, &[0], &[window], &[step]).unwrap();
            let src = input_bytes(input.addressed_bytes() as usize);
            let mut dst = vec![0u8; output.addressed_bytes() as usize];
            op.execute(&src, &mut dst).unwrap();
            let mut want = vec![0u8; dst.len()];
            common::reference_slice1(&input, &output, &[0], &[window], &[step], &src, &mut want);
            assert!(dst == want, "sweep {kind} {kib} KiB differs from the reference");
            g.throughput(Throughput::Bytes(dst.len() as u64));
            let (a, mut b) = (vec![1u8; dst.len()], vec![0u8; dst.len()]);
            g.bench_with_input(BenchmarkId::new("memcpy", format!("{kib}KiB")), &kib, |bch, _| {
                bch.iter(|| black_box(&mut b[..]).copy_from_slice(black_box(&a[..])))
            });
            let seq = ExecOptions::sequential();
            g.bench_with_input(BenchmarkId::new("strider_1t", format!("{kib}KiB")), &kib, |bch, _| {
                bch.iter(|| op.execute_with(black_box(&src), black_box(&mut dst), &seq).unwrap())
            });
        }
        g.finish();
    }
}

fn workloads(c: &mut Criterion) {
    let pools = [1, 2].map(|t| rayon::ThreadPoolBuilder::new().num_threads(t).build().unwrap());
    for case in cases() {
        bench_case(c, &case, &pools);
    }
}

criterion_group!(benches, workloads, sweep);
criterion_main!(benches);
