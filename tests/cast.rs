//! DML_CAST against the naive value reference (`common::values`): all 121 type pairs on edge values, random
//! layouts of every rank with padded/broadcast/permuted operands, every instruction set and thread configuration;
//! the strategies cast layouts get; and the operator's validation rules.

mod common;

use common::values::{self, decode, encode, same};
use common::{Buf, SENTINEL};
use proptest::prelude::*;
use strider::{Cast, DataType, Error, Operand, RowKind, TensorDesc};

/// Applies `f` to every element of `input`, writing `output` (the layouts' coordinates, last dimension fastest).
fn reference_map(input: &TensorDesc, output: &TensorDesc, src: &[u8], dst: &mut [u8], f: impl Fn(&[u8]) -> Vec<u8>) {
    let (iw, ow) = (input.data_type().size_in_bytes(), output.data_type().size_in_bytes());
    common::for_each_coord(output.sizes(), |c| {
        let i: usize = c.iter().zip(input.strides()).map(|(&x, &s)| x * s as usize).sum::<usize>() * iw;
        let o: usize = c.iter().zip(output.strides()).map(|(&x, &s)| x * s as usize).sum::<usize>() * ow;
        dst[o..o + ow].copy_from_slice(&f(&src[i..i + iw]));
    });
}

/// Runs `op` under every configuration: each result equals `want` (NaNs by class) and all configurations produce
/// the same bytes (NaN payloads included).
fn check_all_configs(op: &Cast, src: &Buf, want: &[u8], salt: usize) {
    let (input, output) = (op.input(), op.output());
    let ow = output.data_type().size_in_bytes();
    // The library's own slow path agrees with the independent reference.
    let mut slow = vec![SENTINEL; want.len()];
    op.execute_reference(src.bytes(), &mut slow).unwrap();
    assert!(
        slow.chunks(ow).zip(want.chunks(ow)).all(|(g, w)| same(output.data_type(), g, w) || g == w),
        "execute_reference"
    );
    let what = || format!("{input:?} -> {output:?} ({}: {})", op.row_kind(), op.plan());
    common::check_configs(output.data_type(), want, salt, &what, |dst, opts| op.execute_with(src.bytes(), dst, opts));
}

#[test]
fn cast_every_pair_on_edge_values() {
    common::note_isas();
    for from in DataType::ALL {
        let elems = values::edge_values(from);
        let n = elems.len() as u32;
        let src_bytes: Vec<u8> = elems.concat();
        for to in DataType::ALL {
            let input = TensorDesc::new(from, &[n]).unwrap();
            let output = TensorDesc::new(to, &[n]).unwrap();
            let op = Cast::new(&input, &output).unwrap();
            let mut src = Buf::filled(src_bytes.len(), 3, 0);
            src.bytes_mut().copy_from_slice(&src_bytes);
            let mut want = vec![SENTINEL; output.addressed_bytes() as usize];
            reference_map(&input, &output, src.bytes(), &mut want, |b| encode(to, decode(from, b)));
            check_all_configs(&op, &src, &want, n as usize);
        }
    }
}

#[test]
fn cast_rounds_to_f16_once() {
    // f64 1 + 2^-11 + 2^-40 is just above the tie between 1 and 1 + 2^-10: one rounding gives 1 + 2^-10, rounding
    // through f32 first gives 1.
    let input = TensorDesc::new(DataType::Float64, &[3]).unwrap();
    let output = TensorDesc::new(DataType::Float16, &[3]).unwrap();
    let x = [1.0 + 2f64.powi(-11) + 2f64.powi(-40), 65519.99, -(2f64.powi(-25) * (1.0 + 2f64.powi(-40)))];
    let mut y = [strider::half::f16::ZERO; 3];
    Cast::new(&input, &output).unwrap().execute_typed(&x, &mut y).unwrap();
    assert_eq!(y.map(|h| h.to_bits()), [0x3C01, 0x7BFF, 0x8001]);
    // u64 and i64 round once too (anything ≥ 65520 is infinity)
    for (dt, v, want) in [
        (DataType::Uint64, 65519u64, 0x7BFFu16),
        (DataType::Uint64, 65520, 0x7C00),
        (DataType::Int64, (-2049i64) as u64, 0xE800),
    ] {
        let input = TensorDesc::new(dt, &[1]).unwrap();
        let output = TensorDesc::new(DataType::Float16, &[1]).unwrap();
        let mut out = [0u8; 2];
        Cast::new(&input, &output).unwrap().execute(&v.to_le_bytes(), &mut out).unwrap();
        assert_eq!(u16::from_le_bytes(out), want, "{dt} {v}");
    }
}

/// u8/i8 → f16 goes through the fused byte kernels (on AVX-512 VBMI a table of the 256 results on runs of 4096
/// elements or more): whole 64-element blocks and tails, short and long runs, every configuration.
#[test]
fn byte_casts_into_f16() {
    let mut rng = common::rng(5);
    for from in [DataType::Uint8, DataType::Int8] {
        for n in [100u32, 4096, 64 * 70 + 37] {
            let input = TensorDesc::new(from, &[n]).unwrap();
            let output = TensorDesc::new(DataType::Float16, &[n]).unwrap();
            let op = Cast::new(&input, &output).unwrap();
            let src = Buf::random(n as usize, 2, &mut rng);
            let mut want = vec![SENTINEL; output.addressed_bytes() as usize];
            reference_map(&input, &output, src.bytes(), &mut want, |b| encode(DataType::Float16, decode(from, b)));
            check_all_configs(&op, &src, &want, n as usize);
        }
    }
}

/// Narrowing casts that move like a transpose into planes a multiple of 4 KiB apart (f32 NHWC → f16/u8 NCHW, f64 →
/// f32): converted first, then transposed through the buffer of output rows (their 16 rows of a tile would share
/// one L1 set); and widening ones in the same layouts, transposed first.
#[test]
fn many_channel_cast_transposes() {
    let mut rng = common::rng(6);
    let (f16, f32_, f64_, u8_) = (DataType::Float16, DataType::Float32, DataType::Float64, DataType::Uint8);
    for (from, to) in [(f32_, f16), (f32_, u8_), (f64_, f32_), (f16, f32_), (u8_, f16)] {
        // (16 and 32 channels: blocks through the converting tiles where the level has them, one tile wide or, in
        // the caches, two; 297 pixels leave a last block of 41 rows to the buffer.)
        for sizes in [[1u32, 16, 64, 64], [2, 16, 32, 128], [1, 24, 64, 65], [1, 32, 9, 33], [2, 16, 9, 33]] {
            let input = TensorDesc::nhwc(from, sizes).unwrap();
            let output = TensorDesc::nchw(to, sizes).unwrap();
            let op = Cast::new(&input, &output).unwrap();
            let src = Buf::random(input.addressed_bytes() as usize, 1, &mut rng);
            let mut want = vec![SENTINEL; output.addressed_bytes() as usize];
            reference_map(&input, &output, src.bytes(), &mut want, |b| encode(to, decode(from, b)));
            check_all_configs(&op, &src, &want, sizes[3] as usize);
        }
    }
}

/// 2-D converting transposes of long input rows: rows a page or more apart (f32 → f16 runs its converting tiles in
/// strips of 32 rows across every whole tile, the last rows and columns through the buffer), output rows a
/// critical stride apart (blocks of whole output lines), widening ones whose blocks read whole input lines, padded
/// rows on either side.
#[test]
fn cast_transposes_of_long_rows() {
    let mut rng = common::rng(7);
    let (f16, f32_, f64_, u8_) = (DataType::Float16, DataType::Float32, DataType::Float64, DataType::Uint8);
    for (from, to) in [(f32_, f16), (f32_, u8_), (f64_, f32_), (f16, f32_), (u8_, f32_), (f32_, f64_)] {
        // (ni output columns, nj input columns, input row stride, output row stride), in elements
        for (ni, nj, si, dj) in [
            (64u32, 1024u32, 1024u32, 64u32),
            (67, 1024, 1024, 1024),
            (35, 1030, 1040, 1024),
            (96, 1100, 1100, 96),
            (33, 2048, 2048, 33),
            (40, 520, 2048, 1024),
            (31, 1024, 1024, 31),
        ] {
            let input = TensorDesc::with_strides(from, &[nj, ni], &[1, si]).unwrap();
            let output = TensorDesc::with_strides(to, &[nj, ni], &[dj, 1]).unwrap();
            let op = Cast::new(&input, &output).unwrap();
            assert_eq!(op.row_kind(), RowKind::Transpose { rows: ni as usize }, "{from} -> {to} {ni}x{nj}");
            let src = Buf::random(input.addressed_bytes() as usize, 1, &mut rng);
            let mut want = vec![SENTINEL; output.addressed_bytes() as usize];
            reference_map(&input, &output, src.bytes(), &mut want, |b| encode(to, decode(from, b)));
            check_all_configs(&op, &src, &want, (ni + nj) as usize);
        }
    }
}

#[test]
fn cast_typed_checks_both_element_types() {
    let input = TensorDesc::new(DataType::Uint8, &[4]).unwrap();
    let output = TensorDesc::new(DataType::Float32, &[4]).unwrap();
    let op = Cast::new(&input, &output).unwrap();
    let mut y = [0f32; 4];
    op.execute_typed(&[0u8, 1, 254, 255], &mut y).unwrap();
    assert_eq!(y, [0.0, 1.0, 254.0, 255.0]);
    let e = op.execute_typed(&[0i8; 4], &mut y).unwrap_err();
    assert_eq!(
        e,
        Error::TypedOperandMismatch { operand: Operand::Input, expected: DataType::Uint8, actual: DataType::Int8 }
    );
    let e = op.execute_typed(&[0u8; 4], &mut [0f64; 4]).unwrap_err();
    assert_eq!(
        e,
        Error::TypedOperandMismatch {
            operand: Operand::Output,
            expected: DataType::Float32,
            actual: DataType::Float64
        }
    );
    assert!(e.to_string().contains("output"), "{e}");
    assert_eq!(op.route(), "u8 → f32");
}

#[test]
fn cast_validation() {
    let a = TensorDesc::new(DataType::Float32, &[2, 3]).unwrap();
    let e = Cast::new(&a, &TensorDesc::new(DataType::Float16, &[6]).unwrap()).unwrap_err();
    assert_eq!(e, Error::RankMismatch { input: 2, output: 1 });
    let e = Cast::new(&a, &TensorDesc::new(DataType::Float16, &[2, 4]).unwrap()).unwrap_err();
    assert_eq!(e, Error::OutputSizeMismatch { dim: 1, output_size: 4, expected: 3 });
    let overlapping = TensorDesc::with_strides(DataType::Int8, &[2, 3], &[1, 1]).unwrap();
    assert!(matches!(Cast::new(&a, &overlapping).unwrap_err(), Error::OverlappingOutput { .. }));
    // buffers: the output buffer is checked in the output's element size
    let op = Cast::new(&a, &TensorDesc::new(DataType::Float64, &[2, 3]).unwrap()).unwrap();
    let e = op.execute(&[0u8; 24], &mut [0u8; 47]).unwrap_err();
    assert_eq!(
        e,
        Error::BufferTooSmall { operand: Operand::Output, data_type: DataType::Float64, required: 48, actual: 47 }
    );
}

/// Casts of one-byte pixels (packed, or in slots wider than their channels) into planes: into floats deinterleaved
/// and converted in one pass (the fused normalization with scale 1, bias 0), rows short and long (VBMI's tables of
/// results); i8 ↔ u8, which wrap (what a normalization would saturate), through the buffer.
#[test]
fn byte_pixels_cast_into_planes() {
    let mut rng = common::rng(9);
    let (u8_, i8_) = (DataType::Uint8, DataType::Int8);
    for (from, to) in
        [(u8_, DataType::Float32), (i8_, DataType::Float16), (u8_, DataType::Float16), (i8_, u8_), (u8_, i8_)]
    {
        for channels in 2..=4u32 {
            for slots in channels..=4 {
                for (h, w) in [(3u32, 21u32), (2, 70), (3, 1100)] {
                    let sizes = [2, channels, h, w];
                    let input = TensorDesc::with_strides(from, &sizes, &[h * w * slots, 1, w * slots, slots]).unwrap();
                    let output = TensorDesc::nchw(to, sizes).unwrap();
                    let op = Cast::new(&input, &output).unwrap();
                    let planes = channels as usize;
                    assert_eq!(op.row_kind(), RowKind::Deinterleave { planes }, "{input:?}: {}", op.plan());
                    let src = Buf::random(input.addressed_bytes() as usize, 3, &mut rng);
                    let mut want = vec![SENTINEL; output.addressed_bytes() as usize];
                    reference_map(&input, &output, src.bytes(), &mut want, |b| encode(to, decode(from, b)));
                    check_all_configs(&op, &src, &want, w as usize);
                }
            }
        }
    }
}

/// The strategies casts with layout changes get: the conversion is staged through the copy kernels, so a layout
/// change costs what it costs for a copy.
#[test]
fn cast_layouts_keep_their_strategies() {
    let f32_ = DataType::Float32;
    let f16_ = DataType::Float16;
    let u8_ = DataType::Uint8;
    let cases: [(TensorDesc, TensorDesc, RowKind); 10] = [
        (TensorDesc::new(f32_, &[64, 64]).unwrap(), TensorDesc::new(f16_, &[64, 64]).unwrap(), RowKind::Copy),
        (
            TensorDesc::nhwc(f32_, [2, 3, 32, 32]).unwrap(),
            TensorDesc::nchw(f16_, [2, 3, 32, 32]).unwrap(),
            RowKind::Deinterleave { planes: 3 },
        ),
        (
            TensorDesc::nchw(u8_, [2, 3, 32, 32]).unwrap(),
            TensorDesc::nhwc(f32_, [2, 3, 32, 32]).unwrap(),
            RowKind::Interleave { planes: 3 },
        ),
        (
            TensorDesc::nhwc(f32_, [2, 16, 32, 32]).unwrap(),
            TensorDesc::nchw(f16_, [2, 16, 32, 32]).unwrap(),
            RowKind::Transpose { rows: 1024 },
        ),
        // Streamed, these write whole output lines: 32 f16 channels per pixel, and plane rows of 64 f16.
        (
            TensorDesc::nchw(f32_, [2, 32, 8, 24]).unwrap(),
            TensorDesc::nhwc(f16_, [2, 32, 8, 24]).unwrap(),
            RowKind::Transpose { rows: 32 },
        ),
        (
            TensorDesc::nhwc(f32_, [1, 24, 4, 64]).unwrap(),
            TensorDesc::nchw(f16_, [1, 24, 4, 64]).unwrap(),
            RowKind::Transpose { rows: 256 },
        ),
        (
            TensorDesc::column_major(DataType::Float64, [40, 50]).unwrap(),
            TensorDesc::new(DataType::Int16, &[40, 50]).unwrap(),
            RowKind::Transpose { rows: 50 },
        ),
        (
            TensorDesc::with_strides(u8_, &[100, 64], &[0, 1]).unwrap(),
            TensorDesc::new(f32_, &[100, 64]).unwrap(),
            RowKind::Copy,
        ),
        (
            TensorDesc::with_strides(u8_, &[100, 64], &[64, 0]).unwrap(),
            TensorDesc::new(f32_, &[100, 64]).unwrap(),
            RowKind::Broadcast,
        ),
        (
            TensorDesc::with_strides(f16_, &[30, 70], &[140, 2]).unwrap(),
            TensorDesc::new(f32_, &[30, 70]).unwrap(),
            RowKind::Gather { stride: 2 },
        ),
    ];
    for (input, output, kind) in cases {
        let op = Cast::new(&input, &output).unwrap();
        assert_eq!(op.row_kind(), kind, "{input:?} -> {output:?}: {}", op.plan());
        // and the result is right under every configuration
        let mut rng = common::rng(u64::from(input.sizes()[0]));
        let src = Buf::random(input.addressed_bytes() as usize, 1, &mut rng);
        let mut want = vec![SENTINEL; output.addressed_bytes() as usize];
        let (from, to) = (input.data_type(), output.data_type());
        reference_map(&input, &output, src.bytes(), &mut want, |b| encode(to, decode(from, b)));
        check_all_configs(&op, &src, &want, 5);
    }
}

fn cast_case()
-> impl Strategy<Value = (DataType, DataType, Vec<u32>, common::cases::Layout, common::cases::Layout, u64)> {
    (0..DataType::ALL.len(), 0..DataType::ALL.len(), 1usize..=8).prop_flat_map(|(a, b, rank)| {
        let max = common::cases::max_size(rank);
        (
            Just(DataType::ALL[a]),
            Just(DataType::ALL[b]),
            proptest::collection::vec(1..=max, rank),
            common::cases::layout(rank, true),
            common::cases::layout(rank, false),
            any::<u64>(),
        )
    })
}

proptest! {
    #![proptest_config(ProptestConfig { cases: 200, ..ProptestConfig::default() })]

    /// Random casts: any pair, ranks 1..8, packed/padded/broadcast/permuted/arbitrary input strides, packed/padded/
    /// permuted outputs whose padding must survive, misaligned buffers, every configuration.
    #[test]
    fn cast_matches_reference((from, to, sizes, in_layout, out_layout, seed) in cast_case()) {
        let input = in_layout.desc(from, &sizes);
        let output = out_layout.desc(to, &sizes);
        let op = Cast::new(&input, &output).unwrap();
        let mut rng = common::rng(seed);
        let src = Buf::random(input.addressed_bytes() as usize, (seed % 8) as usize, &mut rng);
        let mut want = vec![SENTINEL; output.addressed_bytes() as usize];
        reference_map(&input, &output, src.bytes(), &mut want, |b| encode(to, decode(from, b)));
        check_all_configs(&op, &src, &want, seed as usize);
    }
}

proptest! {
    #![proptest_config(ProptestConfig { cases: 120, ..ProptestConfig::default() })]

    /// `Cast::with_window`: DML_SLICE1's windows (negative strides, partial outputs) and any type pair in one pass.
    #[test]
    fn windowed_cast_matches_reference(case in common::cases::slice1_case(), to in 0..DataType::ALL.len()) {
        let (from, to) = (case.data_type, DataType::ALL[to]);
        let input = case.input_desc();
        let output = case.output.desc(to, case.output_desc().sizes());
        let op = Cast::with_window(&input, &output, &case.offsets(), &case.sizes(), &case.strides()).unwrap();
        let mut rng = common::rng(case.seed);
        let src = Buf::random(input.addressed_bytes() as usize, case.in_misalign, &mut rng);
        let mut want = vec![SENTINEL; output.addressed_bytes() as usize];
        common::reference_window_map(
            &input, &output, &case.offsets(), &case.sizes(), &case.strides(), src.bytes(), &mut want,
            |b| encode(to, decode(from, b)),
        );
        check_all_configs(&op, &src, &want, case.seed as usize);
    }
}

#[test]
fn windowed_cast_validates_the_window() {
    let input = TensorDesc::new(DataType::Uint8, &[4]).unwrap();
    let output = TensorDesc::new(DataType::Float32, &[3]).unwrap();
    let err = Cast::with_window(&input, &output, &[2], &[3], &[1]).unwrap_err();
    assert_eq!(err, Error::WindowOutOfBounds { dim: 0, offset: 2, size: 3, end: 5, input_size: 4 });
    let err = Cast::with_window(&input, &output, &[0], &[4], &[2]).unwrap_err();
    assert!(matches!(err, Error::OutputSizeOutOfRange { dim: 0, output_size: 3, max: 2, .. }), "{err}");
    let err = Cast::with_window(&input, &output, &[0], &[4], &[0]).unwrap_err();
    assert_eq!(err, Error::ZeroWindowStride { dim: 0 });
    let err = Cast::with_window(&input, &output, &[0, 0], &[4], &[1]).unwrap_err();
    assert!(matches!(err, Error::ArgumentLength { argument: "window_offsets", len: 2, rank: 1 }), "{err}");
}
