//! The fuzz checks as property tests over random inputs: every public constructor and `execute` of `strider`
//! (Slice1, Slice, Identity with and without scale/bias and in place, Cast, Normalize, and every operator of the list
//! with the C interface beside it), every safe entry of `strider-kernels`
//! (`Program::new`/`run`/`run_in_place` on arbitrary plans, `find_overlap`, `ElementOp::apply_one`) and the CLI's
//! parsers either refuse an input cleanly or give the reference's result — never a panic. `cargo test --workspace` runs them
//! with overflow checks (the dev profile); `.ci/run` runs them again in release.

use proptest::prelude::*;

fn bytes() -> impl Strategy<Value = Vec<u8>> {
    proptest::collection::vec(any::<u8>(), 0..400)
}

proptest! {
    #![proptest_config(ProptestConfig { cases: 400, failure_persistence: None, ..ProptestConfig::default() })]

    #[test]
    fn slice1_never_panics(data in bytes()) { strider_fuzz::slice1(&data) }

    #[test]
    fn slice_never_panics(data in bytes()) { strider_fuzz::slice(&data) }

    #[test]
    fn identity_never_panics(data in bytes()) { strider_fuzz::identity(&data) }

    #[test]
    fn cast_never_panics(data in bytes()) { strider_fuzz::cast(&data) }

    #[test]
    fn normalize_never_panics(data in bytes()) { strider_fuzz::normalize(&data) }

    #[test]
    fn plans_never_panic(data in bytes()) { strider_fuzz::plan(&data) }

    #[test]
    fn every_operator_matches_its_reference(data in bytes()) { strider_fuzz::operators(&data) }

    #[test]
    fn the_c_interface_matches_the_rust_api(data in bytes()) { strider_fuzz::capi(&data) }

    #[test]
    fn builders_never_panic(data in bytes()) { strider_fuzz::builders(&data) }

    #[test]
    fn overlap_is_never_wrong(data in bytes()) { strider_fuzz::overlap(&data) }

    #[test]
    fn npy_reader_never_panics(data in bytes()) { strider_fuzz::npy(&data) }

    #[test]
    fn window_parser_never_panics(data in bytes()) { strider_fuzz::window(&data) }
}
