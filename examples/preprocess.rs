//! Image preprocessing with DML_SLICE1: crop, flip and subsample a synthetic 1080p RGB image (u8, HWC), check
//! each result, and time it beside a `memcpy` of the same number of bytes measured in the same run.
//!
//! ```text
//! cargo run --release --example preprocess
//! ```

use std::hint::black_box;
use std::time::{Duration, Instant};

use strider::{DataType, Slice1, TensorDesc};

const H: u32 = 1080;
const W: u32 = 1920;
const C: u32 = 3;

struct Job {
    name: &'static str,
    offsets: [u32; 3],
    sizes: [u32; 3],
    strides: [i32; 3],
}

fn median(mut v: Vec<Duration>) -> Duration {
    v.sort();
    v[v.len() / 2]
}

fn main() -> Result<(), strider::Error> {
    let image: Vec<u8> = (0..H * W * C).map(|i| (i.wrapping_mul(2654435761) >> 24) as u8).collect();
    let input = TensorDesc::new(DataType::Uint8, &[H, W, C])?;
    let jobs = [
        Job { name: "center crop 1024x1024", offsets: [28, 448, 0], sizes: [1024, 1024, 3], strides: [1, 1, 1] },
        Job { name: "horizontal flip", offsets: [0, 0, 0], sizes: [H, W, C], strides: [1, -1, 1] },
        Job { name: "vertical flip", offsets: [0, 0, 0], sizes: [H, W, C], strides: [-1, 1, 1] },
        Job { name: "2x subsample", offsets: [0, 0, 0], sizes: [H, W, C], strides: [2, 2, 1] },
        Job { name: "crop + flip + 2x subsample", offsets: [28, 448, 0], sizes: [1024, 1024, 3], strides: [2, -2, 1] },
        Job { name: "RGB -> BGR", offsets: [0, 0, 0], sizes: [H, W, C], strides: [1, 1, -1] },
    ];
    println!(
        "strider {} · 1080p RGB u8 image · {} thread(s) · best ISA {}",
        env!("CARGO_PKG_VERSION"),
        rayon_threads(),
        strider::Isa::best()
    );
    println!("{:<28} {:>12} {:>10} {:>9} {:>9} {:>8}  plan", "job", "output", "time", "GB/s", "memcpy", "t/memcpy");
    for job in &jobs {
        let out_sizes: Vec<u32> = (0..3).map(|i| 1 + (job.sizes[i] - 1) / job.strides[i].unsigned_abs()).collect();
        let output = TensorDesc::new(DataType::Uint8, &out_sizes)?;
        let op = Slice1::new(&input, &output, &job.offsets, &job.sizes, &job.strides)?;
        let mut out = vec![0u8; output.addressed_bytes() as usize];
        op.execute(&image, &mut out)?;
        // Check every element against the spec formula (the library's slow, obvious path).
        let mut want = vec![0u8; out.len()];
        op.execute_reference(&image, &mut want)?;
        assert!(out == want, "{}: result differs from the reference", job.name);

        let bytes = out.len();
        let src = vec![1u8; bytes];
        let mut dst = vec![0u8; bytes];
        let (mut t_op, mut t_copy) = (Vec::new(), Vec::new());
        for _ in 0..50 {
            let t = Instant::now();
            op.execute(black_box(&image), black_box(&mut out))?;
            t_op.push(t.elapsed());
            let t = Instant::now();
            black_box(&mut dst).copy_from_slice(black_box(&src));
            t_copy.push(t.elapsed());
        }
        let (t_op, t_copy) = (median(t_op), median(t_copy));
        println!(
            "{:<28} {:>12} {:>8.0}µs {:>9.1} {:>7.0}µs {:>7.2}x  {} dims, {} of {}-byte elements",
            job.name,
            format!("{}x{}x{}", out_sizes[0], out_sizes[1], out_sizes[2]),
            t_op.as_secs_f64() * 1e6,
            bytes as f64 / t_op.as_secs_f64() / 1e9,
            t_copy.as_secs_f64() * 1e6,
            t_op.as_secs_f64() / t_copy.as_secs_f64(),
            op.plan().dims().len(),
            op.row_kind(),
            op.plan().in_width(),
        );
    }
    println!(
        "(time and memcpy: medians of 50 interleaved rounds; t/memcpy = time ÷ memcpy of the output bytes, lower is better)"
    );
    Ok(())
}

fn rayon_threads() -> usize {
    rayon::current_num_threads()
}
