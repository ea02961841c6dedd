//! PackageVariant validation (Porch's `validatePackageVariant`), plus the two checks Porch lacks
//! (a `.` in the PackageVariant name or in a pipeline function name) and the extension's fields
//! as far as no package is needed to judge them. The rules live in `crate::api::variant_rules`,
//! where the set's expander checks every variant it would emit against them; here they become
//! error results on the functionConfig.
//!
//! Porch joins its problems with "; " into one condition; we keep each problem its own error
//! result with its field path, in Porch's order, so kpt shows every one with its field.

use crate::api::package_variant::PackageVariantSpec;
use crate::api::variant_rules::{self, Problem};
use crate::krm::results::ResultItem;
use std::collections::BTreeMap;

pub use crate::api::package_variant::RESERVED_CONTEXT_KEYS;
pub use crate::api::variant_rules::go_json;

/// A problem as an error result on the functionConfig.
fn on_config(p: Problem) -> ResultItem {
    ResultItem::error(p.message).field(p.field).on_config()
}

/// All problems of a PackageVariant named `name` with `spec`, in Porch's order, then those of
/// the extension's fields that need no package ([`variant_rules::problems`]: the rules the
/// set's expander checks every variant against). Each message is Porch's without the field
/// path, which is the result's `field.path` (kpt prints it beside the message): Porch's
/// `spec.injectors[1].name must not be empty` is `must not be empty` on
/// `spec.injectors[1].name`.
pub fn validate(name: &str, spec: &PackageVariantSpec) -> Vec<ResultItem> {
    variant_rules::problems(name, spec)
        .into_iter()
        .map(on_config)
        .collect()
}

/// Porch's reserved-key check over context `data` and `removeKeys`
/// ([`variant_rules::reserved_keys`]), as error results.
pub fn reserved_keys(
    data: &BTreeMap<String, String>,
    remove_keys: &[String],
    data_field: &str,
    remove_field: &str,
) -> Vec<ResultItem> {
    variant_rules::reserved_keys(data, remove_keys, data_field, remove_field)
        .into_iter()
        .map(on_config)
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::api::decode;
    use serde_json::json;

    /// Each problem in Porch's words: our message with its field path put back where Porch
    /// writes it.
    fn msgs(spec: serde_json::Value) -> Vec<String> {
        let spec: PackageVariantSpec = decode(&spec, "spec").unwrap_or_default();
        validate("my-pv", &spec)
            .into_iter()
            .map(|r| {
                let field = r.field_path.unwrap_or_default();
                let m = r.message;
                if m.starts_with("missing required field") {
                    format!("{m} {field}")
                } else if m.starts_with("Invalid value") {
                    format!("{field}: {m}")
                } else {
                    format!("{field} {m}")
                }
            })
            .collect()
    }

    /// Porch's messages, each the start of ours (we add what to write instead).
    fn assert_porch<const N: usize>(got: Vec<String>, porch: [&str; N]) {
        assert_eq!(got.len(), N, "{got:?}");
        for (g, p) in got.iter().zip(porch) {
            assert!(g.starts_with(p), "{g:?} does not start with Porch's {p:?}");
        }
    }

    fn base() -> serde_json::Value {
        json!({"upstream": {"package": "foo", "revision": 1, "repo": "blueprints"},
               "downstream": {"package": "foo", "repo": "deployments"}})
    }

    fn with(extra: serde_json::Value) -> serde_json::Value {
        let mut b = base();
        if let (Some(b), Some(e)) = (b.as_object_mut(), extra.as_object()) {
            for (k, v) in e {
                b.insert(k.clone(), v.clone());
            }
        }
        b
    }

    #[test]
    fn empty_spec() {
        assert_porch(
            msgs(json!({})),
            [
                "missing required field spec.upstream",
                "missing required field spec.downstream",
            ],
        );
    }

    #[test]
    fn missing_package_names() {
        assert_porch(
            msgs(
                json!({"upstream": {"revision": 1, "repo": "blueprints"}, "downstream": {"repo": "deployments"}}),
            ),
            [
                "missing required field spec.upstream.package",
                "missing required field spec.downstream.package",
            ],
        );
        assert_porch(
            msgs(json!({"upstream": {}, "downstream": {"repo": "d", "package": "p"}})),
            [
                "missing required field spec.upstream.repo",
                "missing required field spec.upstream.package",
            ],
        );
    }

    #[test]
    fn policies() {
        assert!(msgs(base()).is_empty());
        assert!(msgs(with(
            json!({"adoptionPolicy": "adoptExisting", "deletionPolicy": "orphan"})
        ))
        .is_empty());
        assert_porch(
            msgs(with(
                json!({"adoptionPolicy": "invalid", "deletionPolicy": "invalid"}),
            )),
            [
                r#"spec.adoptionPolicy field can only be "adoptNone" or "adoptExisting""#,
                r#"spec.deletionPolicy can only be "orphan" or "delete""#,
            ],
        );
    }

    #[test]
    fn reserved_context_keys() {
        assert!(msgs(with(json!({"packageContext": {"data": {"foo": "bar", "hello": "there"}, "removeKeys": ["bar", "foobar"]}}))).is_empty());
        assert_porch(
            msgs(with(json!({"packageContext": {"data": {"name": "test"}}}))),
            [
                r#"spec.packageContext.data: Invalid value: {"name":"test"}: must not contain the key "name""#,
            ],
        );
        assert_porch(
            msgs(with(
                json!({"packageContext": {"removeKeys": ["package-path"]}}),
            )),
            [
                r#"spec.packageContext.removeKeys: Invalid value: ["package-path"]: must not contain the key "package-path""#,
            ],
        );
        assert_porch(
            msgs(with(
                json!({"packageContext": {"data": {"name": "a", "package-path": "<b>"}, "removeKeys": ["name"]}}),
            )),
            [
                r#"spec.packageContext.data: Invalid value: {"name":"a","package-path":"\u003cb\u003e"}: must not contain the key "name""#,
                r#"spec.packageContext.removeKeys: Invalid value: ["name"]: must not contain the key "name""#,
                r#"spec.packageContext.data: Invalid value: {"name":"a","package-path":"\u003cb\u003e"}: must not contain the key "package-path""#,
            ],
        );
    }

    #[test]
    fn injectors() {
        assert!(msgs(with(json!({"injectors": [{"group": "porch.kpt.dev", "version": "v1alpha1", "kind": "Repository", "name": "foo"}, {"name": "bar"}]}))).is_empty());
        assert_porch(
            msgs(with(json!({"injectors": [{"name": "foo"}, {"name": ""}]}))),
            ["spec.injectors[1].name must not be empty"],
        );
    }

    #[test]
    fn dots_in_names() {
        let spec: PackageVariantSpec = decode(
            &with(json!({"pipeline": {"validators": [{"name": "a.b", "image": "x"}]}})),
            "spec",
        )
        .unwrap_or_default();
        let r = validate("x.y", &spec);
        assert_eq!(r.len(), 2);
        assert_eq!(r[0].field_path.as_deref(), Some("metadata.name"));
        assert_eq!(
            r[1].field_path.as_deref(),
            Some("spec.pipeline.validators[0].name")
        );
    }
}
