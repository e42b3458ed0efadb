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
