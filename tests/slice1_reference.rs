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
