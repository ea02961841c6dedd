//! The PackageVariant (`config.porch.kpt.dev/v1alpha1`) spec and the kptfile v1 `Function` and
//! `Selector` types it embeds, as Porch's Go structs define them.
//!
//! Serialisation follows Go's `encoding/json` on those structs: fields in struct order, `omitempty`
//! fields left out when empty, map keys sorted (Go sorts map keys; `BTreeMap` does the same).
//! Deserialisation is Go's (`null` means "zero value"); unknown fields are refused before it, by
//! strict decoding against the schema (`super::strict`), not by these types.
//! Both the PackageVariant function and the PackageVariantSet expander use these types.

use std::collections::BTreeMap;

use serde::{Deserialize, Serialize};

pub use super::function::{ConfigRef, Function, Selector};
use super::{is_zero, null_default, null_default_string_map};

/// The PackageVariant finalizer that Porch's PackageVariantSet controller puts on the variants it
/// creates.
pub const PACKAGE_VARIANT_FINALIZER: &str = "config.porch.kpt.dev/packagevariants";
/// apiVersion of PackageVariant objects.
pub const PACKAGE_VARIANT_API_VERSION: &str = "config.porch.kpt.dev/v1alpha1";
/// kind of PackageVariant objects.
pub const PACKAGE_VARIANT_KIND: &str = "PackageVariant";
/// apiVersion of this function's extension kinds (`PackageVariant` and `PackageVariantSet`):
/// Porch's fields plus this function's own, decoded, checked and run by the same code as
/// Porch's kinds. A group Porch does not serve, so nobody applies one to Porch by mistake.
pub const EXTENSION_API_VERSION: &str = "fn.kpt.dev/v1alpha1";
/// The PackageVariant spec fields only the extension kind takes; Porch's schema refuses them.
pub const EXTENSION_FIELDS: &[&str] = &["injection", "pipelinePlacement"];
/// Package context keys Porch owns; a PackageVariant may neither set nor remove them.
pub const RESERVED_CONTEXT_KEYS: &[&str] = &["name", "package-path"];

/// `spec.upstream`: the package revision a variant is cloned from.
///
/// `revision` is an integer (Porch changed it from a string in 2025); `0` means unset and is
/// omitted on output.
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct Upstream {
    #[serde(
        default,
        deserialize_with = "null_default",
        skip_serializing_if = "String::is_empty"
    )]
    pub repo: String,
    #[serde(
        default,
        deserialize_with = "null_default",
        skip_serializing_if = "String::is_empty"
    )]
    pub package: String,
    #[serde(
        default,
        deserialize_with = "null_default",
        skip_serializing_if = "is_zero"
    )]
    pub revision: i64,
    #[serde(
        default,
        deserialize_with = "null_default",
        skip_serializing_if = "String::is_empty"
    )]
    pub workspace_name: String,
}

/// `spec.downstream`: the repository and package name of the variant.
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct Downstream {
    #[serde(
        default,
        deserialize_with = "null_default",
        skip_serializing_if = "String::is_empty"
    )]
    pub repo: String,
    #[serde(
        default,
        deserialize_with = "null_default",
        skip_serializing_if = "String::is_empty"
    )]
    pub package: String,
}

/// `spec.packageContext`: keys to set in and remove from the package's `package-context.yaml`.
///
/// The pointer in Go is what keeps `packageContext: {}` on output; both inner fields are omitempty.
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct PackageContext {
    #[serde(
        default,
        deserialize_with = "null_default_string_map",
        skip_serializing_if = "BTreeMap::is_empty"
    )]
    pub data: BTreeMap<String, String>,
    #[serde(
        default,
        deserialize_with = "null_default",
        skip_serializing_if = "Vec::is_empty"
    )]
    pub remove_keys: Vec<String>,
}

/// An injector: selects an in-cluster object whose content is injected into the package.
///
/// `name` has no `omitempty` in Porch, so it is always written, even as `""`.
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct InjectionSelector {
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub group: Option<String>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub version: Option<String>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub kind: Option<String>,
    #[serde(default, deserialize_with = "null_default")]
    pub name: String,
}

/// `spec.injection[]` (extension): one source for one injection point (`binding_point`), or a
/// resource added to the package and owned by the variant (no `binding_point`).
/// Exactly one of the three sources is given (checked by `package_variant::binding`).
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct InjectionEntry {
    #[serde(
        default,
        deserialize_with = "null_default",
        skip_serializing_if = "String::is_empty"
    )]
    pub binding_point: String,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub cluster_resource: Option<ClusterResource>,
    /// The value itself: any object (`spec`, or `data` for a ConfigMap; a whole resource when
    /// there is no binding point).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub direct_resource: Option<serde_json::Value>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub package_resource: Option<PackageResource>,
}

/// `clusterResource`: an in-cluster object of the point's kind in the variant's namespace.
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct ClusterResource {
    #[serde(default, deserialize_with = "null_default")]
    pub name: String,
}

/// `packageResource`: a resource of another package revision, read from its
/// `PackageRevisionResources`. `revision` 0: the highest Published revision given.
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct PackageResource {
    #[serde(default, deserialize_with = "null_default")]
    pub repo: String,
    #[serde(default, deserialize_with = "null_default")]
    pub package: String,
    #[serde(
        default,
        deserialize_with = "null_default",
        skip_serializing_if = "is_zero"
    )]
    pub revision: i64,
    #[serde(
        default,
        deserialize_with = "null_default",
        skip_serializing_if = "String::is_empty"
    )]
    pub api_version: String,
    #[serde(
        default,
        deserialize_with = "null_default",
        skip_serializing_if = "String::is_empty"
    )]
    pub kind: String,
    #[serde(default, deserialize_with = "null_default")]
    pub name: String,
}

/// `spec.pipelinePlacement` (extension): where the variant's functions go in each Kptfile
/// pipeline list. Porch puts them first.
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct PipelinePlacement {
    /// `first` (Porch's, the default), `last`, `before` or `after`.
    #[serde(
        default,
        deserialize_with = "null_default",
        skip_serializing_if = "String::is_empty"
    )]
    pub position: String,
    /// For `before` and `after`: the `name` of an upstream function of the list.
    #[serde(
        default,
        deserialize_with = "null_default",
        skip_serializing_if = "String::is_empty"
    )]
    pub function: String,
}

/// The positions `pipelinePlacement.position` takes (empty is `first`).
pub const PLACEMENT_POSITIONS: &[&str] = &["first", "last", "before", "after"];

impl PipelinePlacement {
    /// The problems of the placement, each with its field (`position`, `function`): what a
    /// variant refuses, and a set refuses in its template before emitting any variant.
    pub fn problems(&self) -> Vec<(&'static str, String)> {
        let mut out = Vec::new();
        let position = if self.position.is_empty() {
            "first"
        } else {
            &self.position
        };
        if !PLACEMENT_POSITIONS.contains(&position) {
            out.push((
                "position",
                format!(
                    "unknown position {position:?}; write one of {}{}",
                    PLACEMENT_POSITIONS.join(", "),
                    super::suggest::did_you_mean(position, PLACEMENT_POSITIONS)
                ),
            ));
            return out;
        }
        let relative = matches!(position, "before" | "after");
        if relative && self.function.is_empty() {
            out.push((
                "function",
                format!("position {position} needs function: the name of an upstream function"),
            ));
        }
        if !relative && !self.function.is_empty() {
            out.push((
                "function",
                format!(
                    "function is only read with position before or after; remove it, or write \
                     position: before or after (position is {position})"
                ),
            ));
        }
        out
    }
}

/// kptfile v1 `Pipeline`: mutators then validators (Go struct order).
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct Pipeline {
    #[serde(
        default,
        deserialize_with = "null_default",
        skip_serializing_if = "Vec::is_empty"
    )]
    pub mutators: Vec<Function>,
    #[serde(
        default,
        deserialize_with = "null_default",
        skip_serializing_if = "Vec::is_empty"
    )]
    pub validators: Vec<Function>,
}

/// The values `adoptionPolicy` accepts (empty means the default, `adoptNone`).
pub const ADOPTION_POLICIES: &[&str] = &["adoptNone", "adoptExisting"];

/// The values `deletionPolicy` accepts (empty means the default, `delete`).
pub const DELETION_POLICIES: &[&str] = &["orphan", "delete"];

/// The PackageVariant `spec`, fields in Porch's struct order.
///
/// Adoption and deletion policies are plain strings here (`""` = unset, omitted); Porch's
/// PackageVariant controller defaults them later to `adoptNone` and `delete`.
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct PackageVariantSpec {
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub upstream: Option<Upstream>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub downstream: Option<Downstream>,
    #[serde(
        default,
        deserialize_with = "null_default",
        skip_serializing_if = "String::is_empty"
    )]
    pub adoption_policy: String,
    #[serde(
        default,
        deserialize_with = "null_default",
        skip_serializing_if = "String::is_empty"
    )]
    pub deletion_policy: String,
    #[serde(
        default,
        deserialize_with = "null_default",
        skip_serializing_if = "BTreeMap::is_empty"
    )]
    pub labels: BTreeMap<String, String>,
    #[serde(
        default,
        deserialize_with = "null_default",
        skip_serializing_if = "BTreeMap::is_empty"
    )]
    pub annotations: BTreeMap<String, String>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub package_context: Option<PackageContext>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub pipeline: Option<Pipeline>,
    #[serde(
        default,
        deserialize_with = "null_default",
        skip_serializing_if = "Vec::is_empty"
    )]
    pub injectors: Vec<InjectionSelector>,
    /// Extension (`fn.kpt.dev/v1alpha1` only): point-keyed injection.
    #[serde(
        default,
        deserialize_with = "null_default",
        skip_serializing_if = "Vec::is_empty"
    )]
    pub injection: Vec<InjectionEntry>,
    /// Extension (`fn.kpt.dev/v1alpha1` only): where the variant's functions go.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub pipeline_placement: Option<PipelinePlacement>,
}

impl PackageVariantSpec {
    /// The apiVersion a variant with this spec is written with: the extension's where it uses
    /// an extension field (`injection`, `pipelinePlacement`), Porch's otherwise, so that
    /// Porch's controller can take it.
    pub fn api_version(&self) -> &'static str {
        if self.injection.is_empty() && self.pipeline_placement.is_none() {
            PACKAGE_VARIANT_API_VERSION
        } else {
            EXTENSION_API_VERSION
        }
    }

    /// The spec as JSON, in Porch's field order. Serialising these plain structs cannot fail;
    /// `Null` is returned rather than panicking should it ever.
    pub fn to_json(&self) -> serde_json::Value {
        serde_json::to_value(self).unwrap_or(serde_json::Value::Null)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::api::decode;
    use serde_json::json;

    #[test]
    fn spec_round_trip_keeps_go_field_order_and_omitempty() {
        let spec = PackageVariantSpec {
            upstream: Some(Upstream {
                repo: "r".into(),
                package: "p".into(),
                revision: 0,
                workspace_name: "ws".into(),
            }),
            downstream: Some(Downstream {
                repo: "d".into(),
                package: String::new(),
            }),
            package_context: Some(PackageContext::default()),
            injectors: vec![InjectionSelector {
                name: String::new(),
                ..Default::default()
            }],
            pipeline: Some(Pipeline {
                mutators: vec![Function {
                    image: "i".into(),
                    name: "n".into(),
                    ..Default::default()
                }],
                validators: vec![],
            }),
            ..Default::default()
        };
        let text = serde_json::to_string(&spec.to_json()).unwrap_or_default();
        assert_eq!(
            text,
            r#"{"upstream":{"repo":"r","package":"p","workspaceName":"ws"},"downstream":{"repo":"d"},"packageContext":{},"pipeline":{"mutators":[{"image":"i","name":"n"}]},"injectors":[{"name":""}]}"#
        );
    }

    #[test]
    fn decode_reports_field_path() {
        let err = decode::<PackageVariantSpec>(&json!({"upstream": {"revision": "1"}}), "spec")
            .unwrap_err();
        assert_eq!(err.path, "spec.upstream.revision");
        assert_eq!(
            err.message,
            r#"invalid type: string "1", expected an integer; write it without quotes"#
        );
        let err = decode::<PackageVariantSpec>(
            &json!({"injectors": [{"name": "a"}, {"name": 3}]}),
            "spec",
        )
        .unwrap_err();
        assert_eq!(err.path, "spec.injectors[1].name");
    }

    #[test]
    fn decode_is_lenient_like_go() {
        let spec: PackageVariantSpec =
            decode(&json!({"unknown": 1, "labels": null, "adoptionPolicy": null, "upstream": {"revision": 3}}), "spec").unwrap_or_default();
        assert_eq!(spec.upstream.map(|u| u.revision), Some(3));
        assert!(spec.labels.is_empty());
    }
}
