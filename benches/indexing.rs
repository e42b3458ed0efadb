//! What checking the indices costs: the index-driven cases of `strider bench` (an embedding lookup of 1 KiB rows, an
//! f32 gather and scatter of elements along the last axis) as kernels' index programs, timed whole (`run`: the
//! check, then the move), the check alone (`check`) and the move alone on indices checked once (`run_checked`),
//! at 1 and 2 threads. Ids are `index/{case}/{part}_{threads}t`.
//!
//! ```text
//! cargo bench --bench indexing
//! ```

use std::hint::black_box;

use criterion::{Criterion, criterion_group, criterion_main};
use strider_kernels::{Component, Dim, ExecOptions, IndexDim, IndexPlan, IndexProgram, IndexType, OutOfRange, Side};

/// int64 indices `(k · 2654435761 + 12345) mod bound`, as `strider bench` fills them.
fn indices(count: usize, bound: u64) -> Vec<u8> {
    (0..count as u64).flat_map(|k| ((k.wrapping_mul(2654435761).wrapping_add(12345)) % bound).to_le_bytes()).collect()
}

fn plan(side: Side, dims: Vec<IndexDim>, bound: u64, step: isize, block: Vec<Dim>) -> IndexPlan {
    IndexPlan {
        index_type: IndexType::I64,
        index_base: 0,
        component_stride: 0,
        components: vec![Component { bound, step }],
        dims,
        src_base: 0,
        dst_base: 0,
        side,
        width: 4,
        block,
        out_of_range: OutOfRange::Error,
    }
}

fn bench(c: &mut Criterion) {
    let d = |extent, index_stride, src_stride, dst_stride| IndexDim { extent, index_stride, src_stride, dst_stride };
    // (name, plan, index count, source bytes, destination bytes)
    let cases = [
        (
            "embedding_f32_131072x256_by_65536",
            plan(
                Side::Source,
                vec![d(65536, 8, 0, 1024)],
                131072,
                1024,
                vec![Dim { extent: 256, in_stride: 4, out_stride: 4 }],
            ),
            65536usize,
            131072usize * 1024,
            65536usize * 1024,
        ),
        (
            "gather_elements_f32_4096x1024_axis1",
            plan(Side::Source, vec![d(4096, 8192, 4096, 4096), d(1024, 8, 0, 4)], 1024, 4, vec![]),
            4096 * 1024,
            4096 * 4096,
            4096 * 4096,
        ),
        (
            "scatter_elements_f32_4096x1024_axis1_by_256",
            plan(Side::Destination, vec![d(4096, 2048, 1024, 4096), d(256, 8, 4, 0)], 1024, 4, vec![]),
            4096 * 256,
            4096 * 1024,
            4096 * 4096,
        ),
    ];
    let mut g = c.benchmark_group("index");
    g.sample_size(10);
    for (name, plan, count, src_bytes, dst_bytes) in cases {
        let program = IndexProgram::new(&plan).expect("a valid plan");
        let bound = plan.components[0].bound;
        let (ix, src, mut dst) = (indices(count, bound), vec![1u8; src_bytes], vec![0u8; dst_bytes]);
        for threads in [1usize, 2] {
            let opts = if threads == 1 { ExecOptions::sequential() } else { ExecOptions::default().with_threads(2) };
            g.bench_function(format!("{name}/run_{threads}t"), |b| {
                b.iter(|| program.run(black_box(&ix), &src, &mut dst, &opts).expect("valid indices"))
            });
            g.bench_function(format!("{name}/check_{threads}t"), |b| {
                b.iter(|| black_box(program.check_with(black_box(&ix), &opts).expect("valid indices")))
            });
            let checked = program.check_with(&ix, &opts).expect("valid indices");
            g.bench_function(format!("{name}/run_checked_{threads}t"), |b| {
                b.iter(|| program.run_checked(&checked, &src, &mut dst, &opts).expect("buffers fit"))
            });
        }
    }
    g.finish();
}

criterion_group!(benches, bench);
criterion_main!(benches);
