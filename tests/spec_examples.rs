//! The worked examples of the two spec pages, exactly.

mod common;

use strider::{DataType, Slice1, TensorDesc, calc_buffer_tensor_size};

fn iota_4x4() -> Vec<f32> {
    (1..=16).map(|v| v as f32).collect()
}

#[test]
fn slice1_f32_example_1_positive_strides() {
    let input = TensorDesc::new(DataType::Float32, &[1, 1, 4, 4]).unwrap();
    let output = TensorDesc::new(DataType::Float32, &[1, 1, 2, 2]).unwrap();
    let op = Slice1::new(&input, &output, &[0, 0, 0, 1], &[1, 1, 4, 3], &[1, 1, 2, 2]).unwrap();
    for (threads, opts) in common::configs() {
        let mut y = [0f32; 4];
        common::with_threads(threads, || op.execute_typed_with(&iota_4x4(), &mut y, &opts)).unwrap();
        assert_eq!(y, [2.0, 4.0, 10.0, 12.0], "{opts:?}");
    }
}

#[test]
fn slice1_f32_example_2_negative_strides() {
    let input = TensorDesc::new(DataType::Float32, &[1, 1, 4, 4]).unwrap();
    let output = TensorDesc::new(DataType::Float32, &[1, 1, 2, 2]).unwrap();
    let op = Slice1::new(&input, &output, &[0, 0, 0, 1], &[1, 1, 4, 3], &[1, 1, -2, 2]).unwrap();
    for (threads, opts) in common::configs() {
        let mut y = [0f32; 4];
        common::with_threads(threads, || op.execute_typed_with(&iota_4x4(), &mut y, &opts)).unwrap();
        assert_eq!(y, [14.0, 16.0, 6.0, 8.0], "{opts:?}");
    }
}

#[test]
fn strides_page_dhw_2x2x3_is_packed_6_3_1() {
    let t = TensorDesc::new(DataType::Uint8, &[2, 2, 3]).unwrap();
    assert_eq!(t.strides(), &[6, 3, 1]);
    assert_eq!(t.explicit_strides(), None);
    assert_eq!(calc_buffer_tensor_size(DataType::Uint8, &[2, 2, 3], None).unwrap(), 12);
    assert_eq!(calc_buffer_tensor_size(DataType::Uint8, &[2, 2, 3], Some(&[6, 3, 1])).unwrap(), 12);
    // the H element (d=1, h=0, w=1) is at offset {1,0,1}·{6,3,1} = 7
    let data = b"ABCDEFGHIJKL";
    let out = TensorDesc::new(DataType::Uint8, &[1, 1, 1]).unwrap();
    let op = Slice1::new(&t, &out, &[1, 0, 1], &[1, 1, 1], &[1, 1, 1]).unwrap();
    let mut y = [0u8];
    op.execute(data, &mut y).unwrap();
    assert_eq!(&y, b"H");
}

#[test]
fn strides_page_column_major_2x3() {
    // A B C / D E F stored column-major: A D B E C F, height stride 1, width stride 2.
    let t = TensorDesc::with_strides(DataType::Uint8, &[2, 3], &[1, 2]).unwrap();
    let out = TensorDesc::new(DataType::Uint8, &[2, 3]).unwrap();
    let op = Slice1::new(&t, &out, &[0, 0], &[2, 3], &[1, 1]).unwrap();
    let mut y = [0u8; 6];
    op.execute(b"ADBECF", &mut y).unwrap();
    assert_eq!(&y, b"ABCDEF");
}

#[test]
fn strides_page_padded_height_stride_5() {
    // A B C x x D E F x x with H-stride 5: 8 addressed elements.
    let t = TensorDesc::with_strides(DataType::Uint8, &[2, 3], &[5, 1]).unwrap();
    assert_eq!(t.addressed_bytes(), 8);
    assert_eq!(t.min_buffer_size_in_bytes(), 8);
    assert_eq!(calc_buffer_tensor_size(DataType::Float32, &[2, 3], Some(&[5, 1])).unwrap(), 32);
    let out = TensorDesc::new(DataType::Uint8, &[2, 3]).unwrap();
    let op = Slice1::new(&t, &out, &[0, 0], &[2, 3], &[1, 1]).unwrap();
    let mut y = [0u8; 6];
    op.execute(b"ABCxxDEFxx", &mut y).unwrap();
    assert_eq!(&y, b"ABCDEF");
}

#[test]
fn strides_page_broadcast_2x3_from_3_elements() {
    let t = TensorDesc::with_strides(DataType::Uint8, &[2, 3], &[0, 1]).unwrap();
    assert_eq!(t.addressed_bytes(), 3);
    assert_eq!(t.min_buffer_size_in_bytes(), 4, "rounded up to a multiple of 4");
    assert_eq!(calc_buffer_tensor_size(DataType::Uint8, &[2, 3], Some(&[0, 1])).unwrap(), 4);
    let out = TensorDesc::new(DataType::Uint8, &[2, 3]).unwrap();
    let op = Slice1::new(&t, &out, &[0, 0], &[2, 3], &[1, 1]).unwrap();
    let mut y = [0u8; 6];
    op.execute(b"ABC", &mut y).unwrap();
    assert_eq!(&y, b"ABCABC");
}

#[test]
fn strides_page_nchw_and_nhwc_of_a_3x5_image() {
    // Packed NCHW, implicit and explicit strides.
    let implicit = TensorDesc::new(DataType::Float32, &[1, 1, 3, 5]).unwrap();
    assert_eq!(implicit.strides(), &[15, 15, 5, 1]);
    let explicit = TensorDesc::with_strides(DataType::Float32, &[1, 1, 3, 5], &[15, 15, 5, 1]).unwrap();
    assert_eq!(implicit, explicit);
    assert_eq!(explicit.min_buffer_size_in_bytes(), 60);
    // Packed NHWC: {15, 1, 5, 1}, the same 15 elements.
    assert_eq!(calc_buffer_tensor_size(DataType::Float32, &[1, 1, 3, 5], Some(&[15, 1, 5, 1])).unwrap(), 60);
    let nhwc = TensorDesc::with_strides(DataType::Float32, &[1, 1, 3, 5], &[15, 1, 5, 1]).unwrap();
    let op = Slice1::new(&nhwc, &implicit, &[0; 4], &[1, 1, 3, 5], &[1; 4]).unwrap();
    let x: Vec<f32> = (0..15).map(|v| v as f32).collect();
    let mut y = vec![0f32; 15];
    op.execute_typed(&x, &mut y).unwrap();
    assert_eq!(x, y);
}

#[test]
fn min_buffer_size_rounds_up_to_4() {
    assert_eq!(calc_buffer_tensor_size(DataType::Uint8, &[5], None).unwrap(), 8);
    assert_eq!(calc_buffer_tensor_size(DataType::Float16, &[3], None).unwrap(), 8);
    assert_eq!(calc_buffer_tensor_size(DataType::Float16, &[2], None).unwrap(), 4);
    assert_eq!(calc_buffer_tensor_size(DataType::Float64, &[1], None).unwrap(), 8);
    let t = TensorDesc::new(DataType::Uint8, &[7]).unwrap();
    assert_eq!((t.addressed_bytes(), t.min_buffer_size_in_bytes()), (7, 8));
}
