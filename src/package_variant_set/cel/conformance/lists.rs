//! cel-spec lists, restated.

#[allow(unused_imports)]
use super::V::*;
#[allow(unused_imports)]
use super::{bound, fails, ok, refused, skip, Source, W};

pub const SOURCE: Source = Source {
    title: "cel-spec lists",
    cases: &[],
    skipped: &[],
};
