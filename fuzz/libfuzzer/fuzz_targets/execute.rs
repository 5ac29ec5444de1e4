#![no_main]

libfuzzer_sys::fuzz_target!(|data: &[u8]| dynalab_fuzz::execute(data));
