//! cel-go checker_test.go, restated.

#[allow(unused_imports)]
use super::V::*;
#[allow(unused_imports)]
use super::{bound, fails, ok, refused, skip, Source, W};

pub const SOURCE: Source = Source {
    title: "cel-go checker_test.go",
    cases: &[],
    skipped: &[],
};
