//! Compile-fail tests: bad macro input must give a spanned error, never a panic.
#[test]
fn ui() {
    let t = trybuild::TestCases::new();
    t.compile_fail("tests/ui/*.rs");
}
