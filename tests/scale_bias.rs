//! `Identity::with_scale_bias` (DML_SCALE_BIAS) against the reference (product then sum, rounded to nearest even in
//! f32, f64 for f64), in-place identity, and the rest of DML_BUFFER_TENSOR_DESC (total size, guaranteed alignment,
//! flags) with every rule they add.

mod common;

use common::values::{edge_values, same, scale_bias};
use common::{Buf, SENTINEL};
use proptest::prelude::*;
use strider::{DataType, Error, Identity, Operand, ScaleBias, Slice1, TensorDesc, TensorFlags};

const FLOATS: [DataType; 3] = [DataType::Float16, DataType::Float32, DataType::Float64];

fn reference(input: &TensorDesc, output: &TensorDesc, src: &[u8], dst: &mut [u8], sb: ScaleBias) {
    let w = input.data_type().size_in_bytes();
    common::for_each_coord(output.sizes(), |c| {
        let i: usize = c.iter().zip(input.strides()).map(|(&x, &s)| x * s as usize).sum::<usize>() * w;
        let o: usize = c.iter().zip(output.strides()).map(|(&x, &s)| x * s as usize).sum::<usize>() * w;
        dst[o..o + w].copy_from_slice(&scale_bias(input.data_type(), &src[i..i + w], sb.scale, sb.bias));
    });
}

fn check(op: &Identity, src: &Buf, want: &[u8], salt: usize) {
    let mut slow = vec![SENTINEL; want.len()];
    op.execute_reference(src.bytes(), &mut slow).unwrap();
    let what = || format!("{:?}: {}", op.scale_bias(), op.plan());
    check_with(op.output().data_type(), &slow, want, salt, &what, |dst, opts| op.execute_with(src.bytes(), dst, opts));
}

/// `slow` (the operator's own reference execution) and every configuration of `run` give `want`.
fn check_with(
    dt: DataType,
    slow: &[u8],
    want: &[u8],
    salt: usize,
    what: &dyn Fn() -> String,
    run: impl Fn(&mut [u8], &strider::ExecOptions) -> Result<(), Error> + Sync,
) {
    let w = dt.size_in_bytes();
    assert!(slow.chunks(w).zip(want.chunks(w)).all(|(g, x)| same(dt, g, x) || g == x), "execute_reference");
    common::check_configs(dt, want, salt, what, run);
}

#[test]
fn scale_bias_on_edge_values() {
    common::note_isas();
    for dt in FLOATS {
        let elems = edge_values(dt);
        let n = elems.len() as u32;
        for sb in [
            ScaleBias { scale: 1.0, bias: 0.0 },
            ScaleBias { scale: 1.0 / 255.0, bias: -0.485 / 0.229 },
            ScaleBias { scale: -3.5, bias: 1e-3 },
            ScaleBias { scale: 1e30, bias: -1e30 },
            ScaleBias { scale: 0.0, bias: f32::INFINITY },
            ScaleBias { scale: f32::NAN, bias: 1.0 },
        ] {
            let t = TensorDesc::new(dt, &[n]).unwrap();
            let op = Identity::with_scale_bias(&t, &t, sb).unwrap();
            assert_eq!(
                op.scale_bias().map(|s| (s.scale.to_bits(), s.bias.to_bits())),
                Some((sb.scale.to_bits(), sb.bias.to_bits()))
            );
            let mut src = Buf::filled(elems.concat().len(), 1, 0);
            src.bytes_mut().copy_from_slice(&elems.concat());
            let mut want = vec![SENTINEL; t.addressed_bytes() as usize];
            reference(&t, &t, src.bytes(), &mut want, sb);
            check(&op, &src, &want, n as usize);
        }
    }
}

#[test]
fn scale_bias_rounds_product_then_sum() {
    // x·s + b with a fused multiply-add would keep the product exact: 1 + 2^-23 squared is 1 + 2^-22 + 2^-46,
    // minus (1 + 2^-22) leaves 2^-46 fused, 0 when the product is rounded first.
    let t = TensorDesc::new(DataType::Float32, &[1]).unwrap();
    let x = 1.0 + f32::EPSILON;
    let op = Identity::with_scale_bias(&t, &t, ScaleBias { scale: x, bias: -(1.0 + 2.0 * f32::EPSILON) }).unwrap();
    let mut y = [7f32];
    op.execute_typed(&[x], &mut y).unwrap();
    assert_eq!(y, [0.0]);
}

#[test]
fn scale_bias_takes_float_types_only() {
    for dt in DataType::ALL.into_iter().filter(|d| !d.is_float()) {
        let t = TensorDesc::new(dt, &[4]).unwrap();
        let e = Identity::with_scale_bias(&t, &t, ScaleBias { scale: 2.0, bias: 0.0 }).unwrap_err();
        assert!(matches!(e, Error::UnsupportedDataType { data_type, .. } if data_type == dt), "{e}");
        assert!(e.to_string().contains(&dt.to_string()) && e.to_string().contains("FLOAT16"), "{e}");
    }
    let a = TensorDesc::new(DataType::Float32, &[4]).unwrap();
    let b = TensorDesc::new(DataType::Float16, &[4]).unwrap();
    let e = Identity::with_scale_bias(&a, &b, ScaleBias { scale: 2.0, bias: 0.0 }).unwrap_err();
    assert_eq!(e, Error::DataTypeMismatch { input: DataType::Float32, output: DataType::Float16 });
}

/// Scale-bias transposes, which f32 (every level) and f16 (AVX-512) run as the plain transpose with the map applied
/// in the tiles' registers: whole and partial wide tiles, stacks, 8×8 tiles and element edges; input rows in one
/// L1 set (the buffer of rows), output rows in one set (the buffer of output rows), both sides a critical stride
/// apart (square blocks, and the 8×8 buffer for f16); f64 through the staged path. Every level, thread count and
/// store policy (`check`); a NaN scale goes the staged path, which defines its payload.
#[test]
fn scale_bias_transposes() {
    let sb = ScaleBias { scale: 1.0 / 255.0, bias: -0.485 / 0.229 };
    for dt in FLOATS {
        let w = dt.size_in_bytes() as u32;
        let (line, way) = (64 / w, 4096 / w);
        let up = |n: u32| n.div_ceil(line) * line;
        let crit = |n: u32| (n * w).div_ceil(1024) * 1024 / w;
        // (rows, columns, input row stride, output row stride): input [rows, cols] with rows `is` apart, output
        // element (i, j) at j·os + i.
        let mut cases = vec![(16, 16, 16, 16), (63, 65, 65, 63), (17, 33, 40, 20), (37, 45, up(45) + line, up(37))];
        cases.extend([(16, way, way, 16), (33, 1000.min(way - 3), way, 33), (64, 64, crit(64), crit(64))]);
        cases.extend([(way, 16, 16, way), (2 * 512 / w + 37, 33, 33, 2 * way), (100, 24, 24, up(100))]);
        for (k, &(rows, cols, is, os)) in cases.iter().enumerate() {
            let input = TensorDesc::with_strides(dt, &[rows, cols], &[is, 1]).unwrap();
            let output = TensorDesc::with_strides(dt, &[rows, cols], &[1, os]).unwrap();
            for sb in [sb, ScaleBias { scale: f32::NAN, bias: 1.0 }] {
                let op = Identity::with_scale_bias(&input, &output, sb).unwrap();
                assert!(
                    matches!(op.row_kind(), strider::RowKind::Transpose { .. }),
                    "{dt} {rows}x{cols}: {}",
                    op.row_kind()
                );
                let mut rng = common::rng(k as u64);
                let src = Buf::random(input.addressed_bytes() as usize, k % 5, &mut rng);
                let mut want = vec![SENTINEL; output.addressed_bytes() as usize];
                reference(&input, &output, src.bytes(), &mut want, sb);
                check(&op, &src, &want, k);
            }
        }
    }
}

proptest! {
    #![proptest_config(ProptestConfig { cases: 120, ..ProptestConfig::default() })]

    /// Random layouts of every rank: scale/bias through the same strategies as the plain identity.
    #[test]
    fn scale_bias_matches_reference(
        (dt, sizes, in_layout, out_layout, seed) in (0..3usize, 1usize..=8).prop_flat_map(|(d, rank)| (
            Just(FLOATS[d]),
            proptest::collection::vec(1..=common::cases::max_size(rank), rank),
            common::cases::layout(rank, true),
            common::cases::layout(rank, false),
            any::<u64>(),
        )),
        scale in -4f32..4.0,
        bias in -2f32..2.0,
    ) {
        let input = in_layout.desc(dt, &sizes);
        let output = out_layout.desc(dt, &sizes);
        let sb = ScaleBias { scale, bias };
        let op = Identity::with_scale_bias(&input, &output, sb).unwrap();
        let mut rng = common::rng(seed);
        let src = Buf::random(input.addressed_bytes() as usize, (seed % 8) as usize, &mut rng);
        let mut want = vec![SENTINEL; output.addressed_bytes() as usize];
        reference(&input, &output, src.bytes(), &mut want, sb);
        check(&op, &src, &want, seed as usize);
    }
}

proptest! {
    #![proptest_config(ProptestConfig { cases: 100, ..ProptestConfig::default() })]

    /// `Slice1::with_scale_bias`: DML_SLICE1's windows with the affine map in one pass.
    #[test]
    fn windowed_scale_bias_matches_reference(
        case in common::cases::slice1_case(),
        dt in 0..3usize,
        scale in -4f32..4.0,
        bias in -2f32..2.0,
    ) {
        let dt = FLOATS[dt];
        let input = case.input.desc(dt, case.input_desc().sizes());
        let output = case.output.desc(dt, case.output_desc().sizes());
        let sb = ScaleBias { scale, bias };
        let (offsets, sizes, strides) = (case.offsets(), case.sizes(), case.strides());
        let op = Slice1::with_scale_bias(&input, &output, &offsets, &sizes, &strides, sb).unwrap();
        assert_eq!(op.scale_bias(), Some(sb));
        let mut rng = common::rng(case.seed);
        let src = Buf::random(input.addressed_bytes() as usize, case.in_misalign, &mut rng);
        let mut want = vec![SENTINEL; output.addressed_bytes() as usize];
        common::reference_window_map(&input, &output, &offsets, &sizes, &strides, src.bytes(), &mut want, |x| {
            scale_bias(dt, x, scale, bias)
        });
        let mut slow = vec![SENTINEL; want.len()];
        op.execute_reference(src.bytes(), &mut slow).unwrap();
        let what = || format!("{dt} {sb:?}: {}", op.plan());
        check_with(dt, &slow, &want, case.seed as usize, &what, |dst, opts| op.execute_with(src.bytes(), dst, opts));
    }
}

#[test]
fn windowed_scale_bias_takes_float_types_only() {
    let t = TensorDesc::new(DataType::Int16, &[4]).unwrap();
    let e = Slice1::with_scale_bias(&t, &t, &[0], &[4], &[-1], ScaleBias { scale: 2.0, bias: 0.0 }).unwrap_err();
    assert!(matches!(e, Error::UnsupportedDataType { data_type: DataType::Int16, .. }), "{e}");
}

#[test]
fn in_place_identity() {
    for dt in FLOATS {
        let w = dt.size_in_bytes();
        for (sizes, strides) in
            [(vec![1000u32], None), (vec![7, 300], Some(vec![310u32, 1])), (vec![5, 4, 3], Some(vec![1, 15, 5]))]
        {
            let t = match &strides {
                Some(s) => TensorDesc::with_strides(dt, &sizes, s).unwrap(),
                None => TensorDesc::new(dt, &sizes).unwrap(),
            };
            let sb = ScaleBias { scale: -0.5, bias: 3.0 };
            let op = Identity::with_scale_bias(&t, &t, sb).unwrap();
            let mut rng = common::rng(sizes.len() as u64);
            let src = Buf::random(t.addressed_bytes() as usize, 0, &mut rng);
            let mut want = src.bytes().to_vec();
            reference(&t, &t, src.bytes(), &mut want, sb);
            for (threads, opts) in common::configs() {
                let mut buf = src.bytes().to_vec();
                common::with_threads(threads, || op.execute_in_place_with(&mut buf, &opts)).unwrap();
                assert!(buf.chunks(w).zip(want.chunks(w)).all(|(g, x)| same(dt, g, x)), "{dt} {sizes:?} {opts:?}");
            }
            // A plain identity in place has nothing to do.
            let plain = Identity::new(&t, &t).unwrap();
            let mut buf = src.bytes().to_vec();
            plain.execute_in_place(&mut buf).unwrap();
            assert_eq!(buf, src.bytes());
        }
    }
}

#[test]
fn in_place_needs_identical_addressing() {
    let a = TensorDesc::new(DataType::Float32, &[4, 5]).unwrap();
    let b = TensorDesc::column_major(DataType::Float32, [4, 5]).unwrap();
    let op = Identity::with_scale_bias(&a, &b, ScaleBias { scale: 2.0, bias: 0.0 }).unwrap();
    let mut buf = vec![0u8; 80];
    let e = op.execute_in_place(&mut buf).unwrap_err();
    assert_eq!(e, Error::NotInPlace { dim: 0, input_stride: 5, output_stride: 1 });
    assert!(e.to_string().contains("dimension 0"), "{e}");
    // size-1 dimensions may have any stride
    let c = TensorDesc::with_strides(DataType::Float32, &[1, 5], &[99, 1]).unwrap();
    let d = TensorDesc::with_strides(DataType::Float32, &[1, 5], &[5, 1]).unwrap();
    Identity::with_scale_bias(&c, &d, ScaleBias { scale: 2.0, bias: 0.0 }).unwrap().execute_in_place(&mut buf).unwrap();
    let short = Identity::new(&a, &a).unwrap().execute_in_place(&mut buf[..79]).unwrap_err();
    assert!(matches!(short, Error::BufferTooSmall { required: 80, actual: 79, .. }), "{short}");
}

#[test]
fn total_tensor_size_rules() {
    let t = TensorDesc::new(DataType::Uint16, &[3, 3]).unwrap();
    assert_eq!(t.total_tensor_size_in_bytes(), 20); // 18 rounded up to 4
    assert!(!t.has_total_tensor_size());
    assert_eq!(
        t.clone().with_total_tensor_size_in_bytes(0).unwrap_err(),
        Error::InvalidTotalTensorSize { given: 0, minimum: 20 }
    );
    let e = t.clone().with_total_tensor_size_in_bytes(19).unwrap_err();
    assert_eq!(e, Error::InvalidTotalTensorSize { given: 19, minimum: 20 });
    assert!(e.to_string().contains("TotalTensorSizeInBytes 19") && e.to_string().contains("20"), "{e}");
    let big = t.clone().with_total_tensor_size_in_bytes(1 << 40).unwrap();
    assert_eq!(big.total_tensor_size_in_bytes(), 1 << 40);
    assert_eq!(big, t, "the total size describes the buffer, not the layout");
    // execute checks buffers against the total size when it was set, against the addressed bytes otherwise
    let sized = t.clone().with_total_tensor_size_in_bytes(64).unwrap();
    let op = Identity::new(&sized, &t).unwrap();
    let e = op.execute(&[0u8; 63], &mut [0u8; 18]).unwrap_err();
    assert_eq!(
        e,
        Error::BufferTooSmall { operand: Operand::Input, data_type: DataType::Uint16, required: 64, actual: 63 }
    );
    op.execute(&[0u8; 64], &mut [0u8; 18]).unwrap();
    assert!(Identity::new(&t, &sized).unwrap().execute(&[0u8; 18], &mut [0u8; 20]).is_err());
    // promote keeps it
    assert_eq!(sized.promote(4).unwrap().total_tensor_size_in_bytes(), 64);
}

#[test]
fn alignment_and_flags() {
    let t = TensorDesc::new(DataType::Float32, &[16]).unwrap();
    for bad in [2u32, 3, 12, 17] {
        let e = t.clone().with_guaranteed_base_offset_alignment(bad).unwrap_err();
        assert_eq!(e, Error::InvalidAlignment { alignment: bad, element_size: 4 });
    }
    assert_eq!(t.clone().with_guaranteed_base_offset_alignment(0).unwrap().guaranteed_base_offset_alignment(), 0);
    let aligned = t.clone().with_guaranteed_base_offset_alignment(16).unwrap();
    assert_eq!(aligned.guaranteed_base_offset_alignment(), 16);
    // execute checks the promise
    let op = Identity::new(&aligned, &t).unwrap();
    let storage = [0u8; 128];
    let at = storage.as_ptr().align_offset(16);
    let mut out = [0u8; 64];
    op.execute(&storage[at..at + 64], &mut out).unwrap();
    let e = op.execute(&storage[at + 4..at + 68], &mut out).unwrap_err();
    assert!(matches!(e, Error::MisalignedBuffer { operand: Operand::Input, alignment: 16, .. }), "{e}");
    // flags: OWNED_BY_DML is accepted and changes nothing
    let owned = t.clone().with_flags(TensorFlags::OWNED_BY_DML);
    assert_eq!(owned.flags(), TensorFlags::OWNED_BY_DML);
    assert_eq!(TensorFlags::from_bits(1), Some(TensorFlags::OWNED_BY_DML));
    assert_eq!(TensorFlags::from_bits(4), None);
    assert_eq!((TensorFlags::NONE | TensorFlags::OWNED_BY_DML).bits(), 1);
    let mut y = [0f32; 16];
    Identity::new(&owned, &owned).unwrap().execute_typed(&[1f32; 16], &mut y).unwrap();
    assert_eq!(y, [1f32; 16]);
}
