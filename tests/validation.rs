//! Every validation rule, triggered, with the error naming the offending dimension and values. Failed calls
//! leave the output untouched.

mod common;

use strider::{DataType, Error, Identity, Operand, Slice1, TensorDesc, calc_buffer_tensor_size};

fn f32s(sizes: &[u32]) -> TensorDesc {
    TensorDesc::new(DataType::Float32, sizes).unwrap()
}

fn slice(input: &TensorDesc, output: &TensorDesc, o: &[u32], s: &[u32], w: &[i32]) -> Error {
    Slice1::new(input, output, o, s, w).unwrap_err()
}

fn says(e: &Error, parts: &[&str]) {
    let msg = e.to_string();
    for p in parts {
        assert!(msg.contains(p), "{msg:?} should mention {p:?}");
    }
}

#[test]
fn rank_must_be_1_to_8() {
    for sizes in [vec![], vec![1u32; 9]] {
        let e = TensorDesc::new(DataType::Uint8, &sizes).unwrap_err();
        assert_eq!(e, Error::InvalidRank { rank: sizes.len() });
        says(&e, &[&sizes.len().to_string(), "1 to 8"]);
        assert_eq!(calc_buffer_tensor_size(DataType::Uint8, &sizes, None).unwrap_err(), e);
    }
    assert!(TensorDesc::new(DataType::Uint8, &[1; 8]).is_ok());
}

#[test]
fn strides_must_match_sizes() {
    let e = TensorDesc::with_strides(DataType::Uint8, &[2, 3], &[3]).unwrap_err();
    assert_eq!(e, Error::StrideCount { sizes: 2, strides: 1 });
    says(&e, &["2 sizes", "1 strides"]);
    assert_eq!(
        calc_buffer_tensor_size(DataType::Uint8, &[2, 3], Some(&[3, 1, 1])).unwrap_err(),
        Error::StrideCount { sizes: 2, strides: 3 }
    );
}

#[test]
fn sizes_must_be_positive() {
    let e = TensorDesc::with_strides(DataType::Int16, &[2, 3, 0], &[3, 1, 1]).unwrap_err();
    assert_eq!(e, Error::ZeroSize { dim: 2 });
    says(&e, &["dimension 2"]);
    assert_eq!(calc_buffer_tensor_size(DataType::Int16, &[0], None).unwrap_err(), Error::ZeroSize { dim: 0 });
}

#[test]
fn packed_strides_must_fit_u32() {
    let e = TensorDesc::new(DataType::Uint8, &[2, 65536, 65536]).unwrap_err();
    assert_eq!(e, Error::PackedStrideOverflow { dim: 0, sizes: vec![2, 65536, 65536], stride: 1 << 32 });
    says(&e, &["dimension 0", "4294967296"]);
    // ... but the buffer size of such a tensor is still computable, and strides can be given explicitly.
    assert_eq!(calc_buffer_tensor_size(DataType::Uint8, &[2, 65536, 65536], None).unwrap(), 1 << 33);
}

#[test]
fn sizes_overflowing_64_bits_are_errors_not_wraps() {
    let big = [u32::MAX; 8];
    let e = calc_buffer_tensor_size(DataType::Float64, &big, None).unwrap_err();
    assert!(matches!(e, Error::SizeOverflow { data_type: DataType::Float64, .. }), "{e:?}");
    says(&e, &["FLOAT64", "4294967295"]);
    let e = calc_buffer_tensor_size(DataType::Uint8, &big, Some(&big)).unwrap_err();
    assert!(matches!(e, Error::SizeOverflow { .. }));
    assert!(matches!(TensorDesc::with_strides(DataType::Uint8, &big, &big).unwrap_err(), Error::SizeOverflow { .. }));
    // fits u64 but not the address space (isize::MAX bytes)
    let e = TensorDesc::with_strides(DataType::Float64, &[u32::MAX, u32::MAX], &[u32::MAX, 1]).unwrap_err();
    assert!(matches!(e, Error::SizeOverflow { .. }));
    // near the top of u64: (2^32 - 2)(2^32 - 1) + 1 bytes, rounded up to 4, is still exact
    let m = u64::from(u32::MAX);
    assert_eq!(
        calc_buffer_tensor_size(DataType::Uint8, &[u32::MAX], Some(&[u32::MAX])).unwrap(),
        ((m - 1) * m + 1 + 3) & !3
    );
}

#[test]
fn ranks_must_match() {
    let e = slice(&f32s(&[4, 4]), &f32s(&[4]), &[0, 0], &[4, 4], &[1, 1]);
    assert_eq!(e, Error::RankMismatch { input: 2, output: 1 });
    says(&e, &["2 dimensions", "output has 1"]);
}

#[test]
fn data_types_must_match() {
    let out = TensorDesc::new(DataType::Int32, &[4]).unwrap();
    let e = slice(&f32s(&[4]), &out, &[0], &[4], &[1]);
    assert_eq!(e, Error::DataTypeMismatch { input: DataType::Float32, output: DataType::Int32 });
    says(&e, &["FLOAT32", "INT32"]);
}

#[test]
fn argument_arrays_must_have_rank_entries() {
    let (i, o) = (f32s(&[4, 4]), f32s(&[2, 2]));
    assert_eq!(
        slice(&i, &o, &[0], &[2, 2], &[1, 1]),
        Error::ArgumentLength { argument: "window_offsets", len: 1, rank: 2 }
    );
    assert_eq!(
        slice(&i, &o, &[0, 0], &[2, 2, 2], &[1, 1]),
        Error::ArgumentLength { argument: "window_sizes", len: 3, rank: 2 }
    );
    let e = slice(&i, &o, &[0, 0], &[2, 2], &[]);
    assert_eq!(e, Error::ArgumentLength { argument: "window_strides", len: 0, rank: 2 });
    says(&e, &["window_strides has 0 entries", "2 dimensions"]);
}

#[test]
fn windows_must_not_be_empty() {
    let e = slice(&f32s(&[4, 4]), &f32s(&[1, 1]), &[0, 0], &[1, 0], &[1, 1]);
    assert_eq!(e, Error::EmptyWindow { dim: 1 });
    says(&e, &["dimension 1"]);
}

#[test]
fn windows_must_lie_inside_the_input_without_wrapping() {
    let e = slice(&f32s(&[4, 4]), &f32s(&[1, 1]), &[0, 2], &[1, 3], &[1, 1]);
    assert_eq!(e, Error::WindowOutOfBounds { dim: 1, offset: 2, size: 3, end: 5, input_size: 4 });
    says(&e, &["dimension 1", "offset 2", "size 3", "= 5", "input size 4"]);
    // offset + size wraps to 1 in u32 arithmetic: still out of bounds
    let e = slice(&f32s(&[4]), &f32s(&[1]), &[u32::MAX], &[2], &[1]);
    assert_eq!(e, Error::WindowOutOfBounds { dim: 0, offset: u32::MAX, size: 2, end: (1 << 32) + 1, input_size: 4 });
}

#[test]
fn window_strides_must_be_non_zero() {
    let e = slice(&f32s(&[4, 4]), &f32s(&[1, 1]), &[0, 0], &[4, 4], &[1, 0]);
    assert_eq!(e, Error::ZeroWindowStride { dim: 1 });
    says(&e, &["dimension 1", "stride"]);
}

#[test]
fn output_sizes_must_not_exceed_the_copied_count() {
    // window 4 with |stride| 2 copies at most 1 + 3/2 = 2 elements
    let e = slice(&f32s(&[4, 4]), &f32s(&[4, 3]), &[0, 0], &[4, 4], &[1, -2]);
    assert_eq!(e, Error::OutputSizeOutOfRange { dim: 1, output_size: 3, max: 2, window_size: 4, window_stride: -2 });
    says(&e, &["output size 3", "dimension 1", "2 element", "window size 4", "-2"]);
    assert!(Slice1::new(&f32s(&[4, 4]), &f32s(&[4, 2]), &[0, 0], &[4, 4], &[1, -2]).is_ok());
    // the most negative stride: one element per dimension
    let e = slice(&f32s(&[4]), &f32s(&[2]), &[0], &[4], &[i32::MIN]);
    assert!(matches!(e, Error::OutputSizeOutOfRange { max: 1, .. }), "{e:?}");
    assert!(Slice1::new(&f32s(&[4]), &f32s(&[1]), &[0], &[4], &[i32::MIN]).is_ok());
    assert!(Slice1::new(&f32s(&[4]), &f32s(&[1]), &[0], &[4], &[i32::MAX]).is_ok());
}

#[test]
fn outputs_must_not_overlap() {
    let input = f32s(&[2, 3]);
    // broadcast output
    let out = TensorDesc::with_strides(DataType::Float32, &[2, 3], &[0, 1]).unwrap();
    let e = slice(&input, &out, &[0, 0], &[2, 3], &[1, 1]);
    assert_eq!(e, Error::OverlappingOutput { strides: vec![0, 1], first: vec![0, 0], second: vec![1, 0] });
    says(&e, &["[0, 1]", "[0, 0]", "[1, 0]"]);
    // rows overlapping by one element: (0,2) and (1,0) both at offset 2
    let out = TensorDesc::with_strides(DataType::Float32, &[2, 3], &[2, 1]).unwrap();
    assert!(matches!(slice(&input, &out, &[0, 0], &[2, 3], &[1, 1]), Error::OverlappingOutput { .. }));
    // interleaved but injective: strides {3, 2} over 2×3 hit offsets 0,2,4,3,5,7
    let out = TensorDesc::with_strides(DataType::Float32, &[2, 3], &[3, 2]).unwrap();
    assert!(Slice1::new(&input, &out, &[0, 0], &[2, 3], &[1, 1]).is_ok());
}

#[test]
fn exotic_outputs_that_cannot_be_decided_are_rejected() {
    // Strides {2p, 2q, 1} with p, q coprime and extent(dim 0) ≤ q: injective (the unit dimension must cancel, then
    // d0·p = -d1·q needs |d0| ≥ q), but not nested, and the exact search would have to try 2^21 values.
    let q = (1u32 << 21) + 1;
    let p = (1u32 << 22) + 1;
    let sizes = [q, (1 << 30) + 1, 2];
    let out = TensorDesc::with_strides(DataType::Uint8, &sizes, &[2 * p, 2 * q, 1]).unwrap();
    let input = TensorDesc::new(DataType::Uint8, &sizes).unwrap();
    let e = slice(&input, &out, &[0, 0, 0], &sizes, &[1, 1, 1]);
    assert_eq!(e, Error::OverlapUndecided { sizes: sizes.to_vec(), strides: vec![2 * p, 2 * q, 1] });
    says(&e, &["could not prove", "2097153"]);
}

#[test]
fn buffers_must_hold_their_tensors() {
    let input = TensorDesc::with_strides(DataType::Uint16, &[2, 3], &[4, 1]).unwrap(); // addresses 7 elements
    let output = TensorDesc::new(DataType::Uint16, &[2, 3]).unwrap();
    let op = Slice1::new(&input, &output, &[0, 0], &[2, 3], &[1, 1]).unwrap();
    let src = [7u8; 14];
    let mut dst = [common::SENTINEL; 12];
    let e = op.execute(&src[..13], &mut dst).unwrap_err();
    assert_eq!(
        e,
        Error::BufferTooSmall { operand: Operand::Input, data_type: DataType::Uint16, required: 14, actual: 13 }
    );
    says(&e, &["input buffer holds 13 bytes (6 elements and 1 byte)", "UINT16 tensor addresses 14 bytes (7 elements)"]);
    let e = op.execute(&src, &mut dst[..11]).unwrap_err();
    assert_eq!(
        e,
        Error::BufferTooSmall { operand: Operand::Output, data_type: DataType::Uint16, required: 12, actual: 11 }
    );
    assert_eq!(dst, [common::SENTINEL; 12], "no partial output");
    op.execute(&src, &mut dst).unwrap();
    assert_eq!(dst, [7; 12]);
}

#[test]
fn typed_execution_checks_the_element_type() {
    let t = f32s(&[4]);
    let op = Slice1::new(&t, &t, &[0], &[4], &[-1]).unwrap();
    let mut y = [0u32; 4];
    let e = op.execute_typed(&[1u32, 2, 3, 4], &mut y).unwrap_err();
    assert_eq!(e, Error::ElementTypeMismatch { expected: DataType::Float32, actual: DataType::Uint32 });
    says(&e, &["UINT32", "FLOAT32"]);
    assert_eq!(y, [0; 4]);
    let mut y = [0f32; 4];
    op.execute_typed(&[1.0f32, 2.0, 3.0, 4.0], &mut y).unwrap();
    assert_eq!(y, [4.0, 3.0, 2.0, 1.0]);
    // f16 through half
    let t = TensorDesc::new(DataType::Float16, &[2]).unwrap();
    let op = Slice1::new(&t, &t, &[0], &[2], &[-1]).unwrap();
    let x = [strider::half::f16::from_f32(1.5), strider::half::f16::from_f32(-2.0)];
    let mut y = [strider::half::f16::ZERO; 2];
    op.execute_typed(&x, &mut y).unwrap();
    assert_eq!(y, [x[1], x[0]]);
}

#[test]
fn unknown_data_type_names_are_errors() {
    let e = "bfloat16".parse::<DataType>().unwrap_err();
    assert_eq!(e, Error::UnknownDataType { name: "bfloat16".into() });
    says(&e, &["\"bfloat16\"", "FLOAT32"]);
}

#[test]
fn forcing_a_missing_instruction_set_is_an_error() {
    let t = f32s(&[4]);
    let op = Slice1::new(&t, &t, &[0], &[4], &[1]).unwrap();
    for isa in strider::Isa::ALL {
        let mut y = [0u8; 16];
        let r = op.execute_with(&[1; 16], &mut y, &strider::ExecOptions::default().with_isa(isa));
        if isa.is_available() {
            r.unwrap();
            assert_eq!(y, [1; 16]);
        } else {
            assert_eq!(r.unwrap_err(), Error::IsaUnavailable { isa });
            assert_eq!(y, [0; 16]);
        }
    }
    // The refusal path on any host: this test binary again, with every level above scalar made unavailable.
    common::run_ignored_with_env("forcing_a_level_above_strider_max_isa_is_an_error", "STRIDER_MAX_ISA", "scalar");
}

/// Run by `forcing_a_missing_instruction_set_is_an_error` with `STRIDER_MAX_ISA=scalar` (ignored otherwise).
#[test]
#[ignore = "run in a child process with STRIDER_MAX_ISA=scalar"]
fn forcing_a_level_above_strider_max_isa_is_an_error() {
    assert_eq!(std::env::var("STRIDER_MAX_ISA").as_deref(), Ok("scalar"));
    assert_eq!(strider::Isa::available(), [strider::Isa::Scalar]);
    let t = f32s(&[4]);
    let op = Slice1::new(&t, &t, &[0], &[4], &[1]).unwrap();
    let mut y = [0u8; 16];
    let e = op.execute_with(&[1; 16], &mut y, &strider::ExecOptions::default().with_isa(strider::Isa::V3)).unwrap_err();
    assert_eq!(e, Error::IsaUnavailable { isa: strider::Isa::V3 });
    says(&e, &["x86-64-v3", "not available on this CPU"]);
    assert_eq!(y, [0; 16], "nothing written");
    op.execute(&[1; 16], &mut y).unwrap(); // the default runs the portable level
    assert_eq!(y, [1; 16]);
}

/// Sizes given in NHWC order to `TensorDesc::nhwc` (a common mistake) get a hint that sizes are always logical.
#[test]
fn nhwc_sizes_in_the_wrong_order_get_a_hint() {
    let planes = TensorDesc::nchw(DataType::Float32, [1, 3, 224, 224]).unwrap();
    let wrong = TensorDesc::nhwc(DataType::Float32, [1, 224, 224, 3]).unwrap(); // meant: [1, 3, 224, 224]
    let e = Identity::new(&wrong, &planes).unwrap_err();
    assert_eq!(e, Error::OutputSizeMismatch { dim: 1, output_size: 3, expected: 224 });
    says(&e, &["logical order", "TensorDesc::nhwc"]);
}

/// Environment variables out of range are reported in one line each and change nothing else: no panic, no other
/// behaviour (issue 40).
#[test]
fn bad_environment_values_warn_once_and_are_ignored() {
    for (key, value, says) in [
        (
            "STRIDER_CACHE",
            "l3=18446744073709551615",
            &["STRIDER_CACHE=\"l3=18446744073709551615\" ignored", "4KiB to 64GiB", "using the detected l2="][..],
        ),
        ("STRIDER_CACHE", "l2=1M,sharing=0", &["sharing=\"0\"", "must be an integer from 1 to 65536"][..]),
        ("STRIDER_MAX_ISA", "avx9", &["STRIDER_MAX_ISA=\"avx9\" ignored", "scalar, v3, v4, v4-vbmi"][..]),
        ("STRIDER_LINGER", "no", &["STRIDER_LINGER=\"no\" ignored", "0 (off) or 1 (on); on is used"][..]),
        ("STRIDER_TIMED_STORES", "off", &["STRIDER_TIMED_STORES=\"off\" ignored", "0 (off) or 1 (on)"][..]),
        ("RAYON_NUM_THREADS", "two", &["RAYON_NUM_THREADS=\"two\" is not a thread count"][..]),
        ("RAYON_NUM_THREADS", "100000", &["RAYON_NUM_THREADS=\"100000\" is above 256", "one per CPU"][..]),
    ] {
        let stderr = common::run_ignored_with_env_stderr("environment_values_in_a_child", key, value);
        let warnings: Vec<&str> = stderr.lines().filter(|l| l.starts_with("strider: warning:")).collect();
        assert_eq!(warnings.len(), 1, "{key}={value}: {stderr}");
        for s in says {
            assert!(warnings[0].contains(s), "{key}={value}: {:?} lacks {s:?}", warnings[0]);
        }
    }
}

/// Run by `bad_environment_values_warn_once_and_are_ignored` with one bad variable set (ignored otherwise): every
/// operator still runs, split across threads too, with the detected (or default) settings.
#[test]
#[ignore = "run in a child process with a bad environment variable"]
fn environment_values_in_a_child() {
    let c = strider::CacheSizes::get();
    assert!(c.llc() <= 64 << 30 && c.llc_sharing() >= 1, "{c:?}");
    assert!(strider::Isa::available().contains(&strider::Isa::Scalar));
    let t = f32s(&[1 << 16]);
    let op = Slice1::new(&t, &t, &[0], &[1 << 16], &[-1]).unwrap();
    let x: Vec<u8> = (0..1 << 18).map(|i| (i % 251) as u8).collect();
    let mut y = vec![0u8; 1 << 18];
    for _ in 0..2 {
        let opts = strider::ExecOptions::default().with_parallelism(strider::Parallelism::Grain(1 << 12));
        op.execute_with(&x, &mut y, &opts).unwrap();
    }
    assert_eq!(&y[..4], &x[(1 << 18) - 4..]);
}
