//! The PackageVariantSet (`config.porch.kpt.dev/v1alpha2`) as Porch's Go types define it.
//!
//! Pointers in Go become `Option` here because Porch tells "absent" from "empty" in several
//! places: `repositories: []` is "specified but empty" (a validation error) while an absent or
//! null list is "not specified"; `downstream.repo: ""` next to `repoExpr` still trips the
//! "only one of" check; `packageContext: {}` produces `packageContext: {}`.

use std::collections::BTreeMap;

use serde::Deserialize;

use super::label_selector::{LabelSelector, LabelSelectorRequirement};
use super::null_default;
use super::package_variant::{ConfigRef, Function, PipelinePlacement, Selector};

pub use super::set_upstream::SetUpstream;

/// apiVersion of PackageVariantSet objects.
pub const PACKAGE_VARIANT_SET_API_VERSION: &str = "config.porch.kpt.dev/v1alpha2";
/// kind of PackageVariantSet objects.
pub const PACKAGE_VARIANT_SET_KIND: &str = "PackageVariantSet";
/// The PackageVariantSet spec fields only the extension kind takes (paths under `spec`, `[]`
/// for a list's items); Porch's schema refuses them.
pub const EXTENSION_FIELDS: &[&str] = &[
    "targets[].template.injection",
    "targets[].template.pipelinePlacement",
    "targets[].when",
    "revisionActivationPolicy",
    "rollout",
    "upstream.tag",
    "upstreams",
];

/// The object metadata the expander needs.
#[derive(Debug, Clone, Default, PartialEq, Eq, Deserialize)]
pub struct ObjectMeta {
    #[serde(default, deserialize_with = "null_default")]
    pub name: String,
    #[serde(default, deserialize_with = "null_default")]
    pub namespace: String,
    #[serde(default, deserialize_with = "null_default")]
    pub uid: String,
}

/// A PackageVariantSet object.
#[derive(Debug, Clone, Default, PartialEq, Eq, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct PackageVariantSet {
    #[serde(default, deserialize_with = "null_default")]
    pub api_version: String,
    #[serde(default, deserialize_with = "null_default")]
    pub kind: String,
    #[serde(default, deserialize_with = "null_default")]
    pub metadata: ObjectMeta,
    #[serde(default, deserialize_with = "null_default")]
    pub spec: PackageVariantSetSpec,
}

/// `spec` of a PackageVariantSet.
#[derive(Debug, Clone, Default, PartialEq, Eq, Deserialize)]
pub struct PackageVariantSetSpec {
    #[serde(default)]
    pub upstream: Option<SetUpstream>,
    /// Extension (`fn.kpt.dev/v1alpha1` only): several upstreams, one variant per target and
    /// upstream. `None` when absent or null.
    #[serde(default)]
    pub upstreams: Option<Vec<SetUpstream>>,
    #[serde(default, deserialize_with = "null_default")]
    pub targets: Vec<Target>,
    /// Extension (`fn.kpt.dev/v1alpha1` only): upgrades of the existing variants in waves.
    #[serde(default)]
    pub rollout: Option<Rollout>,
    /// Extension (`fn.kpt.dev/v1alpha1` only): `Automatic` or `Manual` (a tag's revision is
    /// offered, and activated by an annotation; see `package_variant_set::reconciliation::activation`).
    #[serde(default, rename = "revisionActivationPolicy")]
    pub revision_activation_policy: Option<String>,
}

/// `spec.rollout` (extension): how a change of the upstream reaches the variants that already
/// exist (see `package_variant_set::reconciliation::rollout`).
#[derive(Debug, Clone, Default, PartialEq, Eq, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct Rollout {
    /// An integer (that many variants per run) or a percentage string (`"25%"`); the schema
    /// takes any value, the rollout reads and checks it.
    #[serde(default)]
    pub max_upgrades: Option<serde_json::Value>,
    /// A CEL expression giving each target's wave (an int or a string).
    #[serde(default)]
    pub wave_expr: Option<String>,
    #[serde(default)]
    pub require_ready: Option<bool>,
    /// Once a wave is on the new upstream, the next waits for the `approved-wave` annotation.
    #[serde(default)]
    pub pause_after_wave: Option<bool>,
    /// A CEL expression over `variant` and `revisions` giving whether a variant already on
    /// the new upstream is ready (replaces the `Ready` condition rule).
    #[serde(default)]
    pub ready_expr: Option<String>,
    /// `AllAtOnce` (the default) or `Reverse`: variants the set no longer wants are deleted
    /// one wave per run, the highest first.
    #[serde(default)]
    pub deletion_order: Option<String>,
    /// `AllAtOnce` (the default: new targets are created at once unless an upgrade is under
    /// way) or `Waves`: new variants follow the waves and the gates as upgrades do, a first
    /// rollout included.
    #[serde(default)]
    pub creation_order: Option<String>,
}

/// One entry of `spec.targets`: exactly one of the three options, plus an optional template.
#[derive(Debug, Clone, Default, PartialEq, Eq, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct Target {
    /// `None` when absent or null; `Some(vec![])` for an explicit `[]`.
    #[serde(default)]
    pub repositories: Option<Vec<RepositoryTarget>>,
    #[serde(default)]
    pub repository_selector: Option<LabelSelector>,
    #[serde(default)]
    pub object_selector: Option<ObjectSelector>,
    #[serde(default)]
    pub template: Option<PackageVariantTemplate>,
    /// A CEL condition evaluated per candidate (repository or object) that keeps it when true
    /// (`target.labels['tier'] != 'test'`). Not in Porch's schema and never decoded from it:
    /// only the `fn.kpt.dev/v1alpha1` extension of the set sets it (Porch's schema refuses it
    /// before decoding).
    #[serde(default)]
    pub when: Option<String>,
}

/// An explicit downstream repository and the package names to create in it.
#[derive(Debug, Clone, Default, PartialEq, Eq, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct RepositoryTarget {
    #[serde(default, deserialize_with = "null_default")]
    pub name: String,
    /// Empty or absent: the upstream package name.
    #[serde(default, deserialize_with = "null_default")]
    pub package_names: Vec<String>,
}

/// `objectSelector`: a kind plus an inlined label selector. `name` is accepted and ignored, as
/// by Porch's controller.
#[derive(Debug, Clone, Default, PartialEq, Eq, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct ObjectSelector {
    #[serde(default, deserialize_with = "null_default")]
    pub api_version: String,
    #[serde(default, deserialize_with = "null_default")]
    pub kind: String,
    #[serde(default)]
    pub name: Option<String>,
    #[serde(default, deserialize_with = "null_default")]
    pub match_labels: BTreeMap<String, String>,
    #[serde(default, deserialize_with = "null_default")]
    pub match_expressions: Vec<LabelSelectorRequirement>,
}

impl ObjectSelector {
    /// The inlined `metav1.LabelSelector`.
    pub fn label_selector(&self) -> LabelSelector {
        LabelSelector {
            match_labels: self.match_labels.clone(),
            match_expressions: self.match_expressions.clone(),
        }
    }
}

/// `template`: how each target's PackageVariant spec is rendered (static values, then CEL).
#[derive(Debug, Clone, Default, PartialEq, Eq, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct PackageVariantTemplate {
    #[serde(default)]
    pub downstream: Option<DownstreamTemplate>,
    #[serde(default)]
    pub adoption_policy: Option<String>,
    #[serde(default)]
    pub deletion_policy: Option<String>,
    #[serde(default, deserialize_with = "null_default")]
    pub labels: BTreeMap<String, String>,
    #[serde(default, deserialize_with = "null_default")]
    pub label_exprs: Vec<MapExpr>,
    #[serde(default, deserialize_with = "null_default")]
    pub annotations: BTreeMap<String, String>,
    #[serde(default, deserialize_with = "null_default")]
    pub annotation_exprs: Vec<MapExpr>,
    #[serde(default)]
    pub package_context: Option<PackageContextTemplate>,
    #[serde(default)]
    pub pipeline: Option<PipelineTemplate>,
    #[serde(default, deserialize_with = "null_default")]
    pub injectors: Vec<InjectionSelectorTemplate>,
    /// Extension (`fn.kpt.dev/v1alpha1` only): point-keyed injection of each variant.
    #[serde(default, deserialize_with = "null_default")]
    pub injection: Vec<InjectionEntryTemplate>,
    /// Extension (`fn.kpt.dev/v1alpha1` only): where each variant's functions go, copied as
    /// it is.
    #[serde(default)]
    pub pipeline_placement: Option<PipelinePlacement>,
}

/// `template.injection[]` (extension): a PackageVariant's `spec.injection[]` entry, each name
/// static or by CEL (exactly one of the field and its `*Expr`), and a `directResource` whose
/// `data` and `spec` keys may come from map expressions.
#[derive(Debug, Clone, Default, PartialEq, Eq, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct InjectionEntryTemplate {
    #[serde(default)]
    pub binding_point: Option<String>,
    #[serde(default)]
    pub binding_point_expr: Option<String>,
    #[serde(default)]
    pub cluster_resource: Option<ClusterResourceTemplate>,
    #[serde(default)]
    pub direct_resource: Option<serde_json::Value>,
    /// Keys of `directResource.data`, static or by CEL.
    #[serde(default, deserialize_with = "null_default")]
    pub data_exprs: Vec<MapExpr>,
    /// Keys of `directResource.spec`, static or by CEL.
    #[serde(default, deserialize_with = "null_default")]
    pub spec_exprs: Vec<MapExpr>,
    #[serde(default)]
    pub package_resource: Option<PackageResourceTemplate>,
}

/// `template.injection[].clusterResource`.
#[derive(Debug, Clone, Default, PartialEq, Eq, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct ClusterResourceTemplate {
    #[serde(default)]
    pub name: Option<String>,
    #[serde(default)]
    pub name_expr: Option<String>,
}

/// `template.injection[].packageResource`.
#[derive(Debug, Clone, Default, PartialEq, Eq, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct PackageResourceTemplate {
    #[serde(default)]
    pub repo: Option<String>,
    #[serde(default)]
    pub repo_expr: Option<String>,
    #[serde(default)]
    pub package: Option<String>,
    #[serde(default)]
    pub package_expr: Option<String>,
    #[serde(default, deserialize_with = "null_default")]
    pub revision: i64,
    #[serde(default)]
    pub api_version: Option<String>,
    #[serde(default)]
    pub kind: Option<String>,
    #[serde(default)]
    pub name: Option<String>,
    #[serde(default)]
    pub name_expr: Option<String>,
}

/// `template.downstream`: static values or CEL expressions (`*Expr`) for the downstream.
#[derive(Debug, Clone, Default, PartialEq, Eq, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct DownstreamTemplate {
    #[serde(default)]
    pub repo: Option<String>,
    #[serde(default)]
    pub package: Option<String>,
    #[serde(default)]
    pub repo_expr: Option<String>,
    #[serde(default)]
    pub package_expr: Option<String>,
}

/// One map entry given by static values and/or CEL expressions; the expression wins.
#[derive(Debug, Clone, Default, PartialEq, Eq, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct MapExpr {
    #[serde(default)]
    pub key: Option<String>,
    #[serde(default)]
    pub value: Option<String>,
    #[serde(default)]
    pub key_expr: Option<String>,
    #[serde(default)]
    pub value_expr: Option<String>,
}

/// `template.packageContext`.
#[derive(Debug, Clone, Default, PartialEq, Eq, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct PackageContextTemplate {
    #[serde(default, deserialize_with = "null_default")]
    pub data: BTreeMap<String, String>,
    #[serde(default, deserialize_with = "null_default")]
    pub remove_keys: Vec<String>,
    #[serde(default, deserialize_with = "null_default")]
    pub data_exprs: Vec<MapExpr>,
    /// Each a CEL expression yielding one key to remove.
    #[serde(default, deserialize_with = "null_default")]
    pub remove_key_exprs: Vec<String>,
}

/// `template.pipeline`.
#[derive(Debug, Clone, Default, PartialEq, Eq, Deserialize)]
pub struct PipelineTemplate {
    #[serde(default, deserialize_with = "null_default")]
    pub validators: Vec<FunctionTemplate>,
    #[serde(default, deserialize_with = "null_default")]
    pub mutators: Vec<FunctionTemplate>,
}

/// A kptfile `Function` (inlined in Porch) plus `configMapExprs`.
#[derive(Debug, Clone, Default, PartialEq, Eq, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct FunctionTemplate {
    #[serde(default, deserialize_with = "null_default")]
    pub image: String,
    #[serde(default, deserialize_with = "null_default")]
    pub exec: String,
    #[serde(default, deserialize_with = "null_default")]
    pub config_path: String,
    #[serde(default, deserialize_with = "null_default")]
    pub config_map: BTreeMap<String, String>,
    #[serde(default)]
    pub config_ref: Option<ConfigRef>,
    #[serde(default, deserialize_with = "null_default")]
    pub name: String,
    #[serde(default, deserialize_with = "null_default")]
    pub tag: String,
    #[serde(default, deserialize_with = "null_default")]
    pub selectors: Vec<Selector>,
    #[serde(default, deserialize_with = "null_default")]
    pub exclude: Vec<Selector>,
    #[serde(default, deserialize_with = "null_default")]
    pub when: String,
    #[serde(default, deserialize_with = "null_default")]
    pub config_map_exprs: Vec<MapExpr>,
}

impl FunctionTemplate {
    /// The kptfile Function part, with `configMap` still the static one.
    pub fn function(&self) -> Function {
        Function {
            image: self.image.clone(),
            exec: self.exec.clone(),
            config_path: self.config_path.clone(),
            config_map: self.config_map.clone(),
            config_ref: self.config_ref.clone(),
            name: self.name.clone(),
            tag: self.tag.clone(),
            selectors: self.selectors.clone(),
            exclude: self.exclude.clone(),
            when: self.when.clone(),
        }
    }
}

/// `template.injectors[]`: group/version/kind copied, `name` static or by CEL.
#[derive(Debug, Clone, Default, PartialEq, Eq, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct InjectionSelectorTemplate {
    #[serde(default)]
    pub group: Option<String>,
    #[serde(default)]
    pub version: Option<String>,
    #[serde(default)]
    pub kind: Option<String>,
    #[serde(default)]
    pub name: Option<String>,
    #[serde(default)]
    pub name_expr: Option<String>,
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::api::decode;
    use serde_json::json;

    #[test]
    fn repositories_absent_null_and_empty_differ() {
        let t: Target = decode(&json!({}), "").unwrap_or_default();
        assert_eq!(t.repositories, None);
        let t: Target = decode(&json!({"repositories": null}), "").unwrap_or_default();
        assert_eq!(t.repositories, None);
        let t: Target = decode(&json!({"repositories": []}), "").unwrap_or_default();
        assert_eq!(t.repositories, Some(vec![]));
    }

    #[test]
    fn unknown_fields_are_ignored() {
        // V5: `repositorySelector: {foo: bar}` is an empty, non-nil selector.
        let t: Target =
            decode(&json!({"repositorySelector": {"foo": "bar"}}), "").unwrap_or_default();
        assert_eq!(t.repository_selector, Some(LabelSelector::default()));
    }

    #[test]
    fn object_selector_inlines_the_label_selector() {
        let t: Target = decode(
            &json!({"objectSelector": {"apiVersion": "v1", "kind": "ConfigMap", "name": "ignored", "matchLabels": {"a": "b"}}}),
            "",
        )
        .unwrap_or_default();
        let os = t.object_selector.unwrap_or_default();
        assert_eq!(
            os.label_selector()
                .match_labels
                .get("a")
                .map(String::as_str),
            Some("b")
        );
    }

    #[test]
    fn type_errors_carry_the_path() {
        let err = decode::<PackageVariantSet>(
            &json!({"spec": {"targets": [{}, {"repositories": "x"}]}}),
            "",
        )
        .unwrap_err();
        assert_eq!(err.path, "spec.targets[1].repositories");
        let err =
            decode::<PackageVariantSet>(&json!({"spec": {"upstream": {"revision": "1"}}}), "")
                .unwrap_err();
        assert_eq!(
            err.message,
            r#"invalid type: string "1", expected an integer; write it without quotes"#
        );
    }
}
