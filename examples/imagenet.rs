//! ImageNet preprocessing in one pass: a batch of decoded BGR images (u8, NHWC) → center crop 224×224, BGR → RGB,
//! `(x/255 − mean)/std` per channel → f32 NCHW, the model's input. Checks the result against the library's
//! reference path and against `(x/255 − mean)/std` evaluated step by step, then times it beside a `memcpy` of the
//! output bytes measured in the same run.
//!
//! ```text
//! cargo run --release --example imagenet
//! ```

use std::hint::black_box;
use std::time::{Duration, Instant};

use strider::{DataType, IMAGENET_MEAN, IMAGENET_STD, Normalize, TensorDesc};

fn median(mut v: Vec<Duration>) -> Duration {
    v.sort();
    v[v.len() / 2]
}

fn main() -> Result<(), strider::Error> {
    let (n, h, w) = (16u32, 256u32, 320u32);
    // sizes are in NCHW order; the decoder's pixels are stored NHWC
    let input = TensorDesc::nhwc(DataType::Uint8, [n, 3, h, w])?;
    let op = Normalize::image(&input)
        .center_crop(224, 224)
        .reverse_channels() // BGR → RGB
        .imagenet()
        .build()?;
    let output = op.output().clone();
    println!("{:?} u8 NHWC (BGR) → {:?} {} NCHW (RGB)", input.sizes(), output.sizes(), output.data_type());
    println!("plan: {} ({})", op.plan(), op.row_kind());

    let pixels: Vec<u8> =
        (0..input.addressed_bytes() as u32).map(|i| (i.wrapping_mul(2654435761) >> 24) as u8).collect();
    let mut planes = vec![0f32; output.element_count() as usize];
    op.execute_typed(&pixels, &mut planes)?;

    // 1. Bit for bit what the slow, obvious reference computes.
    let mut want = vec![0u8; output.addressed_bytes() as usize];
    op.execute_reference(&pixels, &mut want)?;
    assert!(bytemuck_bytes(&planes) == want, "fast path differs from the reference");

    // 2. Within a few ulps of (x/255 − mean)/std evaluated step by step in f32.
    let (top, left) = ((h - 224) / 2, (w - 224) / 2);
    let mut worst = 0f32;
    for b in 0..n as usize {
        for c in 0..3usize {
            for y in 0..224usize {
                for x in 0..224usize {
                    let (py, px) = (top as usize + y, left as usize + x);
                    let bgr = pixels[((b * h as usize + py) * w as usize + px) * 3 + (2 - c)];
                    let direct = (f32::from(bgr) / 255.0 - IMAGENET_MEAN[c]) / IMAGENET_STD[c];
                    let got = planes[((b * 3 + c) * 224 + y) * 224 + x];
                    worst = worst.max((got - direct).abs());
                }
            }
        }
    }
    println!("largest difference from (x/255 - mean)/std: {worst:.2e}");
    assert!(worst < 1e-5);

    // 3. Time it beside a memcpy of the output bytes.
    let bytes = planes.len() * 4;
    let (src, mut dst) = (vec![1u8; bytes], vec![0u8; bytes]);
    let (mut t_op, mut t_copy) = (Vec::new(), Vec::new());
    for _ in 0..30 {
        let t = Instant::now();
        op.execute_typed(black_box(&pixels), black_box(&mut planes))?;
        t_op.push(t.elapsed());
        let t = Instant::now();
        black_box(&mut dst[..]).copy_from_slice(black_box(&src[..]));
        t_copy.push(t.elapsed());
    }
    let (t_op, t_copy) = (median(t_op), median(t_copy));
    println!(
        "normalize: {:.1} µs ({:.1} GB/s of output) · memcpy of the output bytes: {:.1} µs · t/memcpy {:.2} (lower is better)",
        t_op.as_secs_f64() * 1e6,
        bytes as f64 / t_op.as_secs_f64() / 1e9,
        t_copy.as_secs_f64() * 1e6,
        t_op.as_secs_f64() / t_copy.as_secs_f64()
    );
    Ok(())
}

/// The bytes of an f32 slice (little-endian, as the operators write them).
fn bytemuck_bytes(v: &[f32]) -> Vec<u8> {
    v.iter().flat_map(|x| x.to_le_bytes()).collect()
}
