//! Every finding of the hour of fuzzing behind issue 9, through the public API: each panicked (with overflow checks,
//! as `cargo test` builds), wrapped silently in release, or answered an internal error for a valid input.

mod common;

use strider::{DataType, Identity, Slice, Slice1, TensorDesc};

#[test]
fn slice1_with_an_i32_min_window_stride_on_a_huge_input_stride() {
    // Used to overflow in the shuffle-table builder (multiply of the stride by the element width).
    let input = TensorDesc::with_strides(DataType::Uint8, &[(1 << 31) + 1], &[u32::MAX]).unwrap();
    let output = TensorDesc::new(DataType::Uint8, &[2]).unwrap();
    let op = Slice1::new(&input, &output, &[0], &[(1 << 31) + 1], &[i32::MIN]).unwrap();
    // output[0] = input[2^31], output[1] = input[0]: a plan of one 2-element gather
    assert_eq!(op.plan().dims().len(), 1);
}

#[test]
fn slice_with_a_u32_max_stride_product() {
    // Used to overflow multiplying two u32-derived i64 values.
    let input = TensorDesc::with_strides(DataType::Uint8, &[1], &[u32::MAX]).unwrap();
    let op = Slice::new(&input, &TensorDesc::new(DataType::Uint8, &[1]).unwrap(), &[0], &[1], &[u32::MAX]).unwrap();
    let mut out = [0u8; 1];
    op.execute(&[42], &mut out).unwrap();
    assert_eq!(out, [42]);
}

#[test]
fn is_packed_of_a_huge_broadcast() {
    // Used to overflow element_count() · width.
    let t = TensorDesc::with_strides(DataType::Uint16, &[u32::MAX, u32::MAX], &[0, 0]).unwrap();
    assert!(!t.is_packed());
}

#[test]
fn identity_into_an_injective_int16_layout_is_decided() {
    // Used to answer Error::Internal: the byte-level re-check ran out of its search budget.
    let sizes = [572662489, 1450713, 1];
    let input = TensorDesc::with_strides(DataType::Int16, &sizes, &[1450713, 0, 1]).unwrap();
    let output = TensorDesc::with_strides(DataType::Int16, &sizes, &[1 << 30, u32::MAX, u32::MAX]).unwrap();
    Identity::new(&input, &output).unwrap();
}

// Issue 40: what outside fuzzing found.

#[test]
fn subsample_step_above_i32_max_is_an_error_not_a_clamp() {
    // Used to clamp the step to i32::MAX (keeping columns 0 and 2^31 − 1) while the output size used the real step.
    let width = 3 * (1u32 << 30) + 1;
    let input = TensorDesc::with_strides(DataType::Uint8, &[1, 1, width], &[0, 0, 0]).unwrap();
    let err = strider::Normalize::image(&input).subsample(1, 3 << 30).build().unwrap_err();
    assert_eq!(err, strider::Error::WindowStrideOutOfRange { dim: 2, stride: 3 << 30 });
    assert!(err.to_string().contains("3221225472"), "{err}");
    // The largest representable step still builds, forwards and backwards.
    for flip in [false, true] {
        let b = strider::Normalize::image(&input).subsample(1, i32::MAX as u32);
        let b = if flip { b.flip_horizontal() } else { b };
        assert_eq!(b.build().unwrap().output().sizes(), &[1, 1, 2]);
    }
}
