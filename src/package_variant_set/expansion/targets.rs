//! Target unrolling and the upstream lookup, over the items of the ResourceList instead of the
//! Porch API server.
//!
//! Porch lists objects in the set's namespace; here the items stand in for that list. So the
//! namespace rule is explicit: a set without namespace is in `default`, items of other
//! namespaces are invisible, and an item without namespace is in the set's namespace only when
//! the set names none (a set that names one has refused such items already:
//! [`super::inputs::scope`]).
//! Order is target order, then item order (the API server's list order is by name; ours is the
//! input's, which the caller controls).

use crate::api::package_variant::Upstream;
use crate::api::package_variant_set::{PackageVariantSetSpec, Target};
use crate::package_variant_set::expansion::inputs::Item;
use crate::package_variant_set::expansion::kubectl::kubectl_get;
use crate::package_variant_set::expansion::selector::LabelSelector;

/// apiVersion/kind of Porch Repository objects.
pub const REPOSITORY_API_VERSION: &str = "config.porch.kpt.dev/v1alpha1";
pub const REPOSITORY_KIND: &str = "Repository";
/// apiVersion/kind of Porch PackageRevision objects.
pub const PACKAGE_REVISION_API_VERSION: &str = "porch.kpt.dev/v1alpha1";
pub const PACKAGE_REVISION_KIND: &str = "PackageRevision";

/// Most PackageVariants one set may produce (downstream contexts after unrolling every target).
/// A fleet of 50,000 targets is a real use; this bounds memory and time against a selector
/// that matches far more than intended (targets × items).
pub const MAX_PACKAGE_VARIANTS: usize = 100_000;

/// The namespace a set lives in: its own, or `default`.
pub fn effective_namespace(set_namespace: &str) -> &str {
    if set_namespace.is_empty() {
        "default"
    } else {
        set_namespace
    }
}

/// The string at `pointer` ([`crate::krm::object::json_at`]), or `""` when absent or not a string.
pub fn str_at<'a>(item: &'a serde_json::Value, pointer: &str) -> &'a str {
    crate::krm::object::json_at(item, pointer)
        .and_then(|v| v.as_str())
        .unwrap_or("")
}

/// The indexes of the items of one kind in the namespace, in item order.
pub fn items_of_kind(items: &[Item], api_version: &str, kind: &str, namespace: &str) -> Vec<usize> {
    items
        .iter()
        .enumerate()
        .filter(|(_, item)| item.is_kind_in_namespace(api_version, kind, namespace))
        .map(|(i, _)| i)
        .collect()
}

/// Whether PackageRevision `pr` is `upstream` as Porch's `getUpstreamPR` tells: repo and
/// package, and revision OR workspaceName.
pub fn upstream_matches(pr: &serde_json::Value, upstream: &Upstream) -> bool {
    str_at(pr, "/spec/repository") == upstream.repo
        && str_at(pr, "/spec/packageName") == upstream.package
        && (crate::krm::object::json_at(pr, "/spec/revision")
            .and_then(|r| r.as_i64())
            .unwrap_or(0)
            == upstream.revision
            || str_at(pr, "/spec/workspaceName") == upstream.workspace_name)
}

/// The error when no PackageRevision among the items is `upstream`.
pub fn upstream_not_found(upstream: &Upstream, namespace: &str) -> String {
    format!(
        "could not find upstream package revision '{}/{}' in repo '{}' (the upstream PackageRevision ({PACKAGE_REVISION_API_VERSION} or porch.kpt.dev/v1alpha2, namespace '{namespace}') must be among the input items, e.g. from {})",
        upstream.package, upstream.revision, upstream.repo,
        kubectl_get(PACKAGE_REVISION_API_VERSION, PACKAGE_REVISION_KIND, namespace)
    )
}

/// One unrolled downstream of a target (Porch's `pvContext`).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct DownstreamContext {
    /// Index of the target in `spec.targets`.
    pub target: usize,
    pub repo_default: String,
    pub package_default: String,
    /// Item index of the selected object (selector targets only).
    pub object: Option<usize>,
    /// Which entry of a `repositories` target it comes from (`None` for a selector target).
    pub entry: Option<RepositoryEntry>,
    /// Which of the set's upstreams it is made from (extension: `spec.upstreams`; else 0).
    pub upstream: usize,
}

/// The entry of a `repositories` target a downstream comes from: `repositories[index]`, and
/// `packageNames[package_name]` unless it takes the upstream package name.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct RepositoryEntry {
    pub index: usize,
    pub package_name: Option<usize>,
}

/// A selector error of one target: `field` is `spec.targets[i].repositorySelector` or
/// `.objectSelector`; the message is apimachinery's.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct TargetError {
    pub target: usize,
    pub field: String,
    pub message: String,
}

/// What a selector target selects: the apiVersion and kind of its objects, its label
/// selector, and its field (`repositorySelector` or `objectSelector`). None for a target
/// without a selector. `repositorySelector` takes precedence (having both fails validation
/// anyway).
pub fn selector_of(target: &Target) -> Option<(&str, &str, LabelSelector, &'static str)> {
    if let Some(rs) = &target.repository_selector {
        Some((
            REPOSITORY_API_VERSION,
            REPOSITORY_KIND,
            rs.clone(),
            "repositorySelector",
        ))
    } else {
        target.object_selector.as_ref().map(|os| {
            (
                os.api_version.as_str(),
                os.kind.as_str(),
                os.label_selector(),
                "objectSelector",
            )
        })
    }
}

/// The error when the targets would produce more than [`MAX_PACKAGE_VARIANTS`], at target `t`.
fn too_many(t: usize) -> TargetError {
    TargetError {
        target: t,
        field: format!("spec.targets[{t}]"),
        message: format!(
            "the targets produce more than {MAX_PACKAGE_VARIANTS} PackageVariants (the limit for one PackageVariantSet, reached at this target); split the targets over several PackageVariantSets or narrow the selectors"
        ),
    }
}

/// The error when a selector target has nothing of its kind to select from: Porch lists the
/// objects itself and stops with NoMatchingTargets when it cannot; here the input is
/// incomplete, and going on would delete every PackageVariant the target made.
fn no_objects_of_kind(
    t: usize,
    field: &str,
    api_version: &str,
    kind: &str,
    namespace: &str,
) -> TargetError {
    TargetError {
        target: t,
        field: format!("spec.targets[{t}].{field}"),
        message: format!(
            "no matches for kind {kind:?} in version {api_version:?} among the input items in namespace {namespace:?} (Porch: NoMatchingTargets), so nothing is created, updated or deleted; pass the objects the selector chooses from with the other inputs: {}",
            kubectl_get(api_version, kind, namespace)
        ),
    }
}

/// Porch's `unrollDownstreamTargets`. Every target with a bad selector, or with no object of
/// its kind among the items, is reported.
pub fn unroll_targets(
    spec: &PackageVariantSetSpec,
    upstream_package: &str,
    items: &[Item],
    namespace: &str,
) -> Result<Vec<DownstreamContext>, Vec<TargetError>> {
    let mut out = Vec::new();
    let mut errors = Vec::new();
    for (t, target) in spec.targets.iter().enumerate() {
        if let Some(repos) = target.repositories.as_ref().filter(|r| !r.is_empty()) {
            for (j, rt) in repos.iter().enumerate() {
                let defaulted = [upstream_package.to_string()];
                let names: &[String] = if rt.package_names.is_empty() {
                    &defaulted
                } else {
                    &rt.package_names
                };
                for (k, pn) in names.iter().enumerate() {
                    if out.len() >= MAX_PACKAGE_VARIANTS {
                        errors.push(too_many(t));
                        return Err(errors);
                    }
                    out.push(DownstreamContext {
                        target: t,
                        repo_default: rt.name.clone(),
                        package_default: pn.clone(),
                        object: None,
                        entry: Some(RepositoryEntry {
                            index: j,
                            package_name: (!rt.package_names.is_empty()).then_some(k),
                        }),
                        upstream: 0,
                    });
                }
            }
            continue;
        }
        let Some((api_version, kind, selector, field)) = selector_of(target) else {
            continue;
        };
        let compiled = match selector.compile() {
            Ok(c) => c,
            Err(message) => {
                errors.push(TargetError {
                    target: t,
                    field: format!("spec.targets[{t}].{field}"),
                    message,
                });
                continue;
            }
        };
        let mut of_kind = false;
        for (i, item) in items.iter().enumerate() {
            if !item.is_kind_in_namespace(api_version, kind, namespace) {
                continue;
            }
            of_kind = true;
            if compiled.matches(&|key| item.label(key)) {
                if out.len() >= MAX_PACKAGE_VARIANTS {
                    errors.push(too_many(t));
                    return Err(errors);
                }
                let name = item.name().to_string();
                out.push(DownstreamContext {
                    target: t,
                    repo_default: name,
                    package_default: upstream_package.to_string(),
                    object: Some(i),
                    entry: None,
                    upstream: 0,
                });
            }
        }
        if !of_kind {
            errors.push(no_objects_of_kind(t, field, api_version, kind, namespace));
        }
    }
    if errors.is_empty() {
        Ok(out)
    } else {
        Err(errors)
    }
}

#[cfg(test)]
mod tests;
