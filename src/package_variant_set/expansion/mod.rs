//! Expansion: which PackageVariants should exist for which targets, the desired set of the
//! design's reconciliation loop, decided without looking at the PackageVariants that exist.
//!
//! - [`inputs`]: which items the expander reads, and how much of each;
//! - [`validation`]: the set's spec checked before anything is decided (Porch's
//!   `validatePackageVariantSet`, the API server's rules, the extension's fields);
//! - [`upstreams`]: the upstream, and the extension's floating tags and several upstreams,
//!   each resolved once;
//! - [`targets`] and [`selector`]: target unrolling (repository lists, repository and object
//!   selectors) into downstream contexts;
//! - [`conditions`]: the extension's per-target `when` condition;
//! - [`templates`]: template evaluation, a PackageVariant spec per downstream context;
//! - [`record`]: what each render produced, to write its variant again after the decision;
//! - [`kubectl`]: the commands a message offers to fetch an input it misses;
//! - [`naming`]: the identifier and name of each desired PackageVariant, and [`dotted_names`]:
//!   the rule on dotted variant names, per target;
//! - [`provenance`]: which field made each downstream, to report a problem there.
//!
//! Nothing here uses `super::reconciliation` (`tests/architecture.rs`).

pub mod conditions;
pub mod dotted_names;
pub mod inputs;
pub mod kubectl;
pub mod naming;
pub mod provenance;
pub mod record;
pub mod selector;
pub mod targets;
pub mod templates;
pub mod upstreams;
pub mod validation;
