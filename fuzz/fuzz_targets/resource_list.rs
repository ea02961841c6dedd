//! Arbitrary bytes as a ResourceList: parsing, dispatch and emission never panic, and any
//! output is a ResourceList again.
#![no_main]

use libfuzzer_sys::fuzz_target;

#[path = "common.rs"]
mod common;

fuzz_target!(|data: &[u8]| {
    common::check(data);
});
