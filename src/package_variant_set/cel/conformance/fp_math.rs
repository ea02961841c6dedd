//! cel-spec fp_math, restated.

#[allow(unused_imports)]
use super::V::*;
#[allow(unused_imports)]
use super::{bound, fails, ok, refused, skip, Source, W};

pub const SOURCE: Source = Source {
    title: "cel-spec fp_math",
    cases: &[],
    skipped: &[],
};
