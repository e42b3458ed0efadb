//! DML_SLICE1 against the naive reference on random valid descriptors: every data type, ranks 1..8, negative and
//! large window strides, broadcast/padded/permuted/arbitrary input strides, padded and permuted outputs whose
//! sentinel-filled padding must survive, outputs smaller than the window allows, misaligned buffers — on every
//! instruction set of this CPU, sequential and split across 2 and 7 threads.

mod common;

use common::cases::{Slice1Case, slice1_case};
use common::{Buf, SENTINEL};
use proptest::prelude::*;
use proptest::test_runner::{Config, RngSeed};
use strider::Slice1;

fn check(case: &Slice1Case) -> Result<(), TestCaseError> {
    let (input, output) = (case.input_desc(), case.output_desc());
    let op = Slice1::new(&input, &output, &case.offsets(), &case.sizes(), &case.strides())
        .map_err(|e| TestCaseError::fail(format!("valid case rejected: {e}")))?;
    let mut rng = common::rng(case.seed);
    let src = Buf::random(input.addressed_bytes() as usize, case.in_misalign, &mut rng);
    let out_len = output.addressed_bytes() as usize;
    let mut expected = vec![SENTINEL; out_len];
    common::reference_slice1(
        &input,
        &output,
        &case.offsets(),
        &case.sizes(),
        &case.strides(),
        src.bytes(),
        &mut expected,
    );
    for (threads, opts) in common::configs() {
        let mut dst = Buf::filled(out_len, case.out_misalign, SENTINEL);
        common::with_threads(threads, || op.execute_with(src.bytes(), dst.bytes_mut(), &opts))
            .map_err(|e| TestCaseError::fail(format!("execute failed: {e}")))?;
        prop_assert!(dst.bytes() == &expected[..], "mismatch with {opts:?} on {threads} threads, plan {:?}", op.plan());
    }
    Ok(())
}

fn config(cases: u32) -> Config {
    Config { cases, rng_seed: RngSeed::Fixed(0x5712_1de5), failure_persistence: None, ..Config::default() }
}

proptest! {
    #![proptest_config(config(384))]

    #[test]
    fn slice1_matches_reference(case in slice1_case()) {
        common::note_isas();
        check(&case)?;
    }
}

proptest! {
    #![proptest_config(config(128))]

    /// The library's own slow path (`execute_reference`) agrees with the tests' independent reference.
    #[test]
    fn execute_reference_matches_the_tests_reference(case in slice1_case()) {
        let (input, output) = (case.input_desc(), case.output_desc());
        let op = Slice1::new(&input, &output, &case.offsets(), &case.sizes(), &case.strides()).unwrap();
        let src = Buf::random(input.addressed_bytes() as usize, 0, &mut common::rng(case.seed));
        let mut want = vec![SENTINEL; output.addressed_bytes() as usize];
        common::reference_slice1(&input, &output, &case.offsets(), &case.sizes(), &case.strides(), src.bytes(), &mut want);
        let mut got = vec![SENTINEL; want.len()];
        op.execute_reference(src.bytes(), &mut got).unwrap();
        prop_assert!(got == want);
    }
}

/// Short rows absorbed into tables whose whole rows run through byte-shuffle lanes (16-byte lanes on every x86
/// level, 64-byte ones with AVX-512 VBMI): the public rank-8 workload and rank-6 slices with negative dimensions,
/// every element width the lanes take (and 3 bytes, which they do not), misaligned buffers, every configuration.
#[test]
fn table_rows_through_shuffle_lanes() {
    use strider::{DataType, TensorDesc};
    type Case = (&'static [u32], &'static [u32], &'static [u32], &'static [i32], &'static [u32]);
    let cases: &[Case] = &[
        (
            &[4; 8],
            &[0, 1, 0, 0, 1, 0, 0, 0],
            &[4, 3, 4, 4, 3, 4, 4, 4],
            &[1, 1, -1, 2, -2, 1, -3, 3],
            &[3, 3, 4, 2, 2, 4, 2, 2],
        ),
        (&[2, 4, 8, 8, 8, 16], &[0; 6], &[2, 4, 8, 8, 8, 8], &[1, -1, 1, 1, -1, 1], &[2, 4, 8, 8, 8, 8]),
        (&[3, 5, 7, 9, 11], &[1, 0, 2, 1, 3], &[2, 5, 5, 8, 8], &[1, -2, 1, -3, 2], &[2, 3, 5, 3, 4]),
        (&[5, 6, 33], &[0, 0, 1], &[5, 6, 32], &[1, -1, -4], &[5, 6, 8]),
    ];
    let mut rng = common::rng(7);
    for dt in [DataType::Uint8, DataType::Int16, DataType::Float32, DataType::Float64, DataType::Uint64] {
        for &(input_sizes, offsets, sizes, strides, output_sizes) in cases {
            let input = TensorDesc::new(dt, input_sizes).unwrap();
            let output = TensorDesc::new(dt, output_sizes).unwrap();
            let op = Slice1::new(&input, &output, offsets, sizes, strides).unwrap();
            for misalign in [0, 1, 3] {
                let src = Buf::random(input.addressed_bytes() as usize, misalign, &mut rng);
                let out_len = output.addressed_bytes() as usize;
                let mut expected = vec![SENTINEL; out_len];
                common::reference_slice1(&input, &output, offsets, sizes, strides, src.bytes(), &mut expected);
                for (threads, opts) in common::configs() {
                    let mut dst = Buf::filled(out_len, 2 - misalign % 2, SENTINEL);
                    common::with_threads(threads, || op.execute_with(src.bytes(), dst.bytes_mut(), &opts)).unwrap();
                    assert!(
                        dst.bytes() == &expected[..],
                        "{dt:?} {input_sizes:?} {opts:?} {threads} threads: {}",
                        op.plan()
                    );
                }
            }
        }
    }
}
