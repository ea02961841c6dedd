//! The PackageVariant path: a fixed package, with the fuzzer writing the PackageVariant's spec
//! and one package resource.
#![no_main]

use libfuzzer_sys::fuzz_target;

#[path = "common.rs"]
mod common;
#[path = "../inputs.rs"]
mod inputs;

fuzz_target!(|data: &[u8]| {
    if let Some(rl) = inputs::package_variant(data) {
        common::check(rl.as_bytes());
    }
});
