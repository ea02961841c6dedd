//! A new PackageVariant as Porch's controller writes it: metadata (owner label, owner
//! reference, finalizer), kpt's path annotations, then the rendered spec.

use serde::Serialize;

use crate::api::package_variant::{
    PackageVariantSpec, PACKAGE_VARIANT_FINALIZER, PACKAGE_VARIANT_KIND,
};
use crate::package_variant_set::reconciliation::decision::TypedExpansion;
use crate::package_variant_set::reconciliation::ensure::DesiredVariant;

impl TypedExpansion {
    /// A new PackageVariant as Porch's controller creates it, plus the path annotations kpt
    /// uses to write it to `packagevariants/<name>.yaml`, with `spec` (see
    /// [`TypedExpansion::spec`]). Serialise it (JSON or YAML node).
    pub fn new_variant<'a>(
        &'a self,
        d: &'a DesiredVariant,
        spec: &'a PackageVariantSpec,
    ) -> NewPackageVariant<'a> {
        let o = &self.owner;
        let path = format!("packagevariants/{}.yaml", d.name());
        NewPackageVariant {
            api_version: variant_api_version(spec),
            kind: PACKAGE_VARIANT_KIND,
            metadata: NewMetadata {
                name: d.name(),
                namespace: &o.namespace,
                labels: OwnerLabel { owner: &o.owner },
                annotations: PathAnnotations {
                    path: path.clone(),
                    internal_path: path,
                    upstream_tag: self.tag(d),
                    wave: self.waves.text(d),
                },
                finalizers: [PACKAGE_VARIANT_FINALIZER],
                // Only a set read from the cluster has a uid to own by.
                owner_references: (!o.set_uid.is_empty()).then(|| {
                    [OwnerReference {
                        api_version: &o.set_api_version,
                        kind: &o.set_kind,
                        name: &o.set_name,
                        uid: &o.set_uid,
                        controller: true,
                    }]
                }),
            },
            spec,
        }
    }
}

/// The apiVersion of a variant with `spec` ([`PackageVariantSpec::api_version`]).
pub fn variant_api_version(spec: &PackageVariantSpec) -> &'static str {
    spec.api_version()
}

/// A new PackageVariant object (see [`TypedExpansion::new_variant`]), fields in the order
/// Porch's controller writes them.
#[derive(Debug, Serialize)]
pub struct NewPackageVariant<'a> {
    #[serde(rename = "apiVersion")]
    api_version: &'static str,
    kind: &'static str,
    metadata: NewMetadata<'a>,
    spec: &'a PackageVariantSpec,
}

#[derive(Debug, Serialize)]
struct NewMetadata<'a> {
    name: &'a str,
    namespace: &'a str,
    labels: OwnerLabel<'a>,
    annotations: PathAnnotations<'a>,
    finalizers: [&'static str; 1],
    #[serde(rename = "ownerReferences", skip_serializing_if = "Option::is_none")]
    owner_references: Option<[OwnerReference<'a>; 1]>,
}

/// `{OWNER_LABEL: owner}` (serde needs the key as a literal; a test checks they agree).
#[derive(Debug, Serialize)]
struct OwnerLabel<'a> {
    #[serde(rename = "config.porch.kpt.dev/packagevariantset")]
    owner: &'a str,
}

/// kpt's path annotations, and the tag the variant's upstream follows (extension; the key is
/// [`crate::package_variant_set::expansion::upstreams::UPSTREAM_TAG_ANNOTATION`], a test checks they agree).
#[derive(Debug, Serialize)]
struct PathAnnotations<'a> {
    #[serde(rename = "config.kubernetes.io/path")]
    path: String,
    #[serde(rename = "internal.config.kubernetes.io/path")]
    internal_path: String,
    #[serde(
        rename = "package-variant.fn.kpt.dev/upstream-tag",
        skip_serializing_if = "Option::is_none"
    )]
    upstream_tag: Option<&'a str>,
    /// The variant's wave, under a rollout with `waveExpr` (the key is
    /// `deletion_order::ANNOTATION`, a test checks they agree).
    #[serde(
        rename = "package-variant.fn.kpt.dev/wave",
        skip_serializing_if = "Option::is_none"
    )]
    wave: Option<String>,
}

#[derive(Debug, Serialize)]
struct OwnerReference<'a> {
    #[serde(rename = "apiVersion")]
    api_version: &'a str,
    kind: &'a str,
    name: &'a str,
    uid: &'a str,
    controller: bool,
}
