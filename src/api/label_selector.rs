//! `metav1.LabelSelector`, the type of a PackageVariantSet's `repositorySelector` and
//! `objectSelector` (matching lives with the expander, in `package_variant_set::expansion::selector`).

use std::collections::BTreeMap;

use serde::Deserialize;

use super::null_default;

/// `metav1.LabelSelector`.
#[derive(Debug, Clone, Default, PartialEq, Eq, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct LabelSelector {
    #[serde(default, deserialize_with = "null_default")]
    pub match_labels: BTreeMap<String, String>,
    #[serde(default, deserialize_with = "null_default")]
    pub match_expressions: Vec<LabelSelectorRequirement>,
}

/// One `matchExpressions` entry.
#[derive(Debug, Clone, Default, PartialEq, Eq, Deserialize)]
pub struct LabelSelectorRequirement {
    #[serde(default, deserialize_with = "null_default")]
    pub key: String,
    #[serde(default, deserialize_with = "null_default")]
    pub operator: String,
    #[serde(default, deserialize_with = "null_default")]
    pub values: Vec<String>,
}
