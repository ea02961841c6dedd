//! The small cel-spec sections (namespace, parse, plumbing, type_deduction) and the files
//! skipped whole, restated.

#[allow(unused_imports)]
use super::V::*;
#[allow(unused_imports)]
use super::{bound, fails, ok, refused, skip, Source, W};

pub const NAMESPACE: Source = Source {
    title: "cel-spec namespace",
    cases: &[],
    skipped: &[],
};
pub const PARSE: Source = Source {
    title: "cel-spec parse",
    cases: &[],
    skipped: &[],
};
pub const PLUMBING: Source = Source {
    title: "cel-spec plumbing",
    cases: &[],
    skipped: &[],
};
pub const TYPE_DEDUCTION: Source = Source {
    title: "cel-spec type_deduction",
    cases: &[],
    skipped: &[],
};
pub const SKIPPED_FILES: Source = Source {
    title: "cel-spec other files",
    cases: &[],
    skipped: &[],
};
