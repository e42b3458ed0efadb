//! API guarantees that are not about values: thread safety and reuse.

mod common;

use strider::{DataType, Slice1, TensorDesc};

const fn assert_send_sync<T: Send + Sync>() {}
const _: () = assert_send_sync::<Slice1>();
const _: () = assert_send_sync::<TensorDesc>();
const _: () = assert_send_sync::<strider::Error>();

#[test]
fn slice1_is_reusable_from_many_threads_at_once() {
    let input = TensorDesc::new(DataType::Uint16, &[64, 300]).unwrap();
    let output = TensorDesc::new(DataType::Uint16, &[32, 300]).unwrap();
    let op = Slice1::new(&input, &output, &[0, 0], &[64, 300], &[-2, -1]).unwrap();
    let src = common::Buf::random(input.addressed_bytes() as usize, 1, &mut common::rng(3));
    let mut want = vec![0u8; output.addressed_bytes() as usize];
    common::reference_slice1(
        &input,
        &output,
        op.window_offsets(),
        op.window_sizes(),
        op.window_strides(),
        src.bytes(),
        &mut want,
    );
    std::thread::scope(|s| {
        for t in 0..8 {
            let (op, src, want) = (&op, &src, &want);
            s.spawn(move || {
                for _ in 0..50 {
                    let mut got = vec![t as u8; want.len()];
                    op.execute(src.bytes(), &mut got).unwrap();
                    assert!(&got == want);
                }
            });
        }
    });
}

#[test]
fn plans_display_their_dimensions() {
    let input = TensorDesc::new(DataType::Uint8, &[1080, 1920, 3]).unwrap();
    let op = Slice1::new(&input, &input, &[0, 0, 0], &[1080, 1920, 3], &[1, -1, 1]).unwrap();
    assert_eq!(
        op.plan().to_string(),
        "3-byte elements · [1080: in 5760, out 5760] [1920: in -3, out 3] · base in 5757 out 0"
    );
}

/// An operator called from inside a caller's rayon `par_iter` splits its own large outputs into the same pool
/// (work stealing): every result is right, nothing deadlocks, on pools of 1, 2 and 7 threads.
#[test]
fn nested_inside_a_callers_par_iter() {
    use rayon::prelude::*;
    let input = TensorDesc::new(DataType::Float32, &[1024, 1024]).unwrap(); // 4 MiB: split by default
    let op = Slice1::new(&input, &input, &[0, 0], &[1024, 1024], &[-1, 1]).unwrap();
    let x: Vec<f32> = (0..1024 * 1024).map(|v| v as f32).collect();
    for threads in [1, 2, 7] {
        let pool = rayon::ThreadPoolBuilder::new().num_threads(threads).build().unwrap();
        let outputs: Vec<Vec<f32>> = pool.install(|| {
            (0..6)
                .into_par_iter()
                .map(|_| {
                    let mut y = vec![0f32; 1024 * 1024];
                    op.execute_typed(&x, &mut y).unwrap();
                    y
                })
                .collect()
        });
        for y in outputs {
            for r in [0usize, 1, 511, 1023] {
                assert_eq!(y[r * 1024..r * 1024 + 4], x[(1023 - r) * 1024..(1023 - r) * 1024 + 4], "{threads} threads");
            }
        }
    }
}

#[test]
fn with_threads_runs_on_a_kept_pool_of_that_size() {
    for n in [1, 2, 3] {
        assert_eq!(strider::with_threads(n, rayon::current_num_threads).unwrap(), n);
    }
    let first = strider::with_threads(3, || std::thread::current().name().map(str::to_owned)).unwrap();
    assert!(first.is_some_and(|name| name.starts_with("strider-")));
    for bad in [0, strider::MAX_THREADS + 1] {
        let err = strider::with_threads(bad, || ()).unwrap_err();
        assert_eq!(err, strider::Error::InvalidThreadCount { threads: bad, max: strider::MAX_THREADS });
        assert!(err.to_string().contains("thread count must be 1 to 256"), "{err}");
    }
}

#[test]
fn exec_options_threads_split_on_a_kept_pool() {
    use strider::{DataType, ExecOptions, Parallelism, Slice1, TensorDesc};
    let t = TensorDesc::new(DataType::Uint16, &[64, 300]).unwrap();
    let op = Slice1::new(&t, &t, &[0, 0], &[64, 300], &[-1, 1]).unwrap();
    let x: Vec<u8> = (0..64 * 300 * 2).map(|i| (i * 7 % 251) as u8).collect();
    let mut want = vec![0u8; x.len()];
    op.execute_with(&x, &mut want, &ExecOptions::sequential()).unwrap();
    // From this (non-pool) thread: the caller takes the first chunk, the pool the others.
    for threads in [1, 2, 3, 5] {
        let mut y = vec![0u8; x.len()];
        let opts = ExecOptions::default().with_threads(threads).with_parallelism(Parallelism::Grain(1024));
        op.execute_with(&x, &mut y, &opts).unwrap();
        assert_eq!(y, want, "{threads} threads");
    }
    // The global pool, from outside it and from inside one of its threads.
    let opts = ExecOptions::default().with_parallelism(Parallelism::Grain(1024));
    let mut y = vec![0u8; x.len()];
    op.execute_with(&x, &mut y, &opts).unwrap();
    assert_eq!(y, want);
    let mut y = vec![0u8; x.len()];
    rayon::scope(|_| op.execute_with(&x, &mut y, &opts)).unwrap();
    assert_eq!(y, want);
    for bad in [0, strider::MAX_THREADS + 1] {
        let mut y = vec![0u8; x.len()];
        let err = op.execute_with(&x, &mut y, &ExecOptions::default().with_threads(bad)).unwrap_err();
        assert_eq!(err, strider::Error::InvalidThreadCount { threads: bad, max: strider::MAX_THREADS });
        assert!(y.iter().all(|&b| b == 0), "nothing written");
    }
}
