//! libFuzzer target: `strider_fuzz::operators` (see the crate's documentation for what it checks).
#![no_main]

libfuzzer_sys::fuzz_target!(|data: &[u8]| strider_fuzz::operators(data));
