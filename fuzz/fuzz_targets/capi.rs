//! libFuzzer target: `strider_fuzz::capi` (see the crate's documentation for what it checks).
#![no_main]

libfuzzer_sys::fuzz_target!(|data: &[u8]| strider_fuzz::capi(data));
