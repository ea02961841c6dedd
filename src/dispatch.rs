//! Dispatch: picks the function from the functionConfig's apiVersion and kind.

use crate::object::ObjectMeta;
use crate::resource_list::{Changes, ResourceList};
use crate::results::ResultItem;

/// apiVersion served for PackageVariant.
pub const PACKAGE_VARIANT_API: &str = "config.porch.kpt.dev/v1alpha1";
/// apiVersion served for PackageVariantSet.
pub const PACKAGE_VARIANT_SET_API: &str = "config.porch.kpt.dev/v1alpha2";

const ACCEPTED: &str = "expected kind PackageVariant (apiVersion config.porch.kpt.dev/v1alpha1), \
PackageVariantSet (apiVersion config.porch.kpt.dev/v1alpha2), or a ConfigMap of package context data";

/// Runs the function the functionConfig asks for.
pub fn run(rl: &ResourceList) -> (Changes, Vec<ResultItem>) {
    let Some(config) = &rl.function_config else {
        return fail(
            ResultItem::error(format!(
                "no functionConfig was given; {ACCEPTED} (kpt: --fn-config FILE, or -- key=value)"
            ))
            .field("functionConfig"),
        );
    };
    let meta = ObjectMeta::from_node(config);
    if !meta.is_object {
        return fail(
            ResultItem::error(format!("functionConfig is not an object; {ACCEPTED}"))
                .field("functionConfig"),
        );
    }
    match (meta.api_version.as_str(), meta.kind.as_str()) {
        (PACKAGE_VARIANT_API, "PackageVariant") => crate::package_variant::run(rl, config),
        (PACKAGE_VARIANT_SET_API, "PackageVariantSet") => crate::expander::run(rl, config),
        ("v1", "ConfigMap") => crate::package_variant::run_config_map(rl, config),
        (v, "PackageVariant") => fail(
            ResultItem::error(format!(
                "PackageVariant apiVersion {v:?} is not served; use {PACKAGE_VARIANT_API}"
            ))
            .field("apiVersion")
            .on_config(),
        ),
        (v, "PackageVariantSet") => fail(
            ResultItem::error(format!(
                "PackageVariantSet apiVersion {v:?} is not served; use {PACKAGE_VARIANT_SET_API}"
            ))
            .field("apiVersion")
            .on_config(),
        ),
        (v, k) => fail(
            ResultItem::error(format!(
                "functionConfig kind {k:?} (apiVersion {v:?}) is not supported; {ACCEPTED}"
            ))
            .field("kind")
            .on_config(),
        ),
    }
}

fn fail(r: ResultItem) -> (Changes, Vec<ResultItem>) {
    (Changes::default(), vec![r])
}
