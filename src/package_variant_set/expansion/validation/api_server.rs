//! What the API server would refuse of what the set writes, refused before anything is
//! emitted: its name and namespace go into every PackageVariant it makes (the name as a prefix
//! and as the owner label when it has no uid, the namespace as `metadata.namespace`), its uid
//! into the owner label, and its objectSelectors' apiVersion and kind into the `kubectl get`
//! line a message suggests.
//!
//! Porch never meets these: the API server refused such a set before Porch saw it. A file can
//! say anything, so here each is checked with the API server's rule, on its field.

use crate::api::names;
use crate::api::package_variant_set::PackageVariantSet;
use crate::krm::results::ResultItem;
use crate::package_variant_set::expansion::dotted_names;

/// The first target whose variants have pipeline functions, when the set's name holds a dot.
fn dotted_with_functions(set: &PackageVariantSet) -> Option<usize> {
    set.metadata
        .name
        .contains('.')
        .then(|| dotted_names::first_with_functions(set))
        .flatten()
}

fn err(out: &mut Vec<ResultItem>, field: &str, message: String) {
    out.push(ResultItem::error(message).field(field).on_config());
}

/// Problems of the set's `metadata`: name, namespace and uid.
pub fn metadata(set: &PackageVariantSet) -> Vec<ResultItem> {
    let mut out = Vec::new();
    let m = &set.metadata;
    if m.name.is_empty() {
        err(
            &mut out,
            "metadata.name",
            "is required: it prefixes the name of every PackageVariant of the set".to_string(),
        );
    } else if let Some(why) = names::dns1123_subdomain(&m.name) {
        err(
            &mut out,
            "metadata.name",
            format!(
                "PackageVariantSet name {:?} is not a valid Kubernetes name, and it prefixes the name of every PackageVariant of the set: {why}",
                m.name
            ),
        );
    } else if let Some(t) = dotted_with_functions(set) {
        // Every variant's name starts with it, and the PackageVariant function refuses a dot
        // in the name of a variant with pipeline functions.
        let example = format!("{}-<repo>-<package>", m.name);
        let why = names::package_variant_name_problem(&example).unwrap_or_default();
        err(
            &mut out,
            "metadata.name",
            format!(
                "PackageVariantSet name {:?} prefixes the name of every PackageVariant of the set, and the variants of spec.targets[{t}] have pipeline functions, so a PackageVariant name {why}; {}",
                m.name,
                dotted_names::fix(t, "name")
            ),
        );
    } else if m.uid.is_empty() {
        if let Some(why) = names::label_value(&m.name) {
            err(
                &mut out,
                "metadata.name",
                format!(
                    "PackageVariantSet name {:?} is the value of the owner label config.porch.kpt.dev/packagevariantset of every PackageVariant of the set (it has no metadata.uid), which Kubernetes would refuse: {why}; give the set a shorter name",
                    m.name
                ),
            );
        }
    }
    if !m.namespace.is_empty() {
        if let Some(why) = names::dns1123_label(&m.namespace) {
            err(
                &mut out,
                "metadata.namespace",
                format!(
                    "namespace {:?} is not a valid Kubernetes namespace, and it would be the namespace of every PackageVariant of the set: {why}",
                    m.namespace
                ),
            );
        }
    }
    if !m.uid.is_empty() {
        if let Some(why) = names::label_value(&m.uid) {
            err(
                &mut out,
                "metadata.uid",
                format!(
                    "uid {:?} is the value of the owner label config.porch.kpt.dev/packagevariantset of every PackageVariant of the set, which Kubernetes would refuse: {why}; write the uid the cluster gave the set (`kubectl get packagevariantsets -o yaml` prints it) or leave it out",
                    m.uid
                ),
            );
        }
    }
    out
}

/// Problems of each objectSelector's `apiVersion` and `kind` (empty ones are Porch's
/// validation's to report).
pub fn object_selectors(set: &PackageVariantSet) -> Vec<ResultItem> {
    let mut out = Vec::new();
    for (i, t) in set.spec.targets.iter().enumerate() {
        let Some(os) = &t.object_selector else {
            continue;
        };
        if !os.api_version.is_empty() {
            if let Some(why) = names::api_version(&os.api_version) {
                err(
                    &mut out,
                    &format!("spec.targets[{i}].objectSelector.apiVersion"),
                    format!(
                        "apiVersion {:?} is not one the API server serves objects under: {why}; write group/version, such as \"infra.example.com/v1\", or \"v1\" for the core group",
                        os.api_version
                    ),
                );
            }
        }
        if !os.kind.is_empty() {
            if let Some(why) = names::kind(&os.kind) {
                err(
                    &mut out,
                    &format!("spec.targets[{i}].objectSelector.kind"),
                    format!("kind {:?} is not a kind name: {why}", os.kind),
                );
            }
        }
    }
    out
}
