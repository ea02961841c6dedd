//! The PackageVariantSet path with CEL expressions from the fuzzer: each input line is one
//! expression, used in turn as packageExpr, a label value, a context key and an injector name.
#![no_main]

use libfuzzer_sys::fuzz_target;

#[path = "common.rs"]
mod common;
#[path = "../inputs.rs"]
mod inputs;

fuzz_target!(|data: &[u8]| {
    if let Some(rl) = inputs::package_variant_set(data) {
        common::check(rl.as_bytes());
    }
});
