//! package-variant: a KRM function that applies Porch's PackageVariant mutations to a package
//! and expands PackageVariantSets into PackageVariants.

pub mod api;
pub mod cel_env;
pub mod naming;
pub mod package_variant_set;
pub mod pvs_validation;
pub mod reconciliation;
pub mod results;
pub mod selector;
pub mod targets;
pub mod templates;
