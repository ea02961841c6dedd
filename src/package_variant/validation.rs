//! PackageVariant validation (Porch's `validatePackageVariant`), plus the two checks Porch lacks:
//! a `.` in the PackageVariant name or in a pipeline function name.
//!
//! Porch joins its problems with "; " into one condition; we keep each problem its own error
//! result with its field path, in Porch's order, so kpt shows every one with its field.

use crate::api::function::WhenBudget;
use crate::api::package_variant::{Function, PackageVariantSpec};
use crate::api::package_variant::{ADOPTION_POLICIES, DELETION_POLICIES};
use crate::api::suggest::did_you_mean;
use crate::krm::results::ResultItem;
use std::collections::BTreeMap;

pub use crate::api::package_variant::RESERVED_CONTEXT_KEYS;

fn err(out: &mut Vec<ResultItem>, field: impl Into<String>, message: impl Into<String>) {
    out.push(ResultItem::error(message).field(field).on_config());
}

/// All problems of a PackageVariant named `name` with `spec`, in Porch's order. Each message is
/// Porch's without the field path, which is the result's `field.path` (kpt prints it beside the
/// message): Porch's `spec.injectors[1].name must not be empty` is `must not be empty` on
/// `spec.injectors[1].name`.
pub fn validate(name: &str, spec: &PackageVariantSpec) -> Vec<ResultItem> {
    let mut out = Vec::new();
    let has_functions = spec
        .pipeline
        .as_ref()
        .is_some_and(|p| !(p.mutators.is_empty() && p.validators.is_empty()));
    validate_name(&mut out, name, has_functions);
    const MISSING: &str = "missing required field";
    match &spec.upstream {
        None => err(&mut out, "spec.upstream", MISSING),
        Some(up) => {
            if up.repo.is_empty() {
                err(&mut out, "spec.upstream.repo", MISSING);
            }
            if up.package.is_empty() {
                err(&mut out, "spec.upstream.package", MISSING);
            }
        }
    }
    match &spec.downstream {
        None => err(&mut out, "spec.downstream", MISSING),
        Some(down) => {
            if down.repo.is_empty() {
                err(&mut out, "spec.downstream.repo", MISSING);
            }
            if down.package.is_empty() {
                err(&mut out, "spec.downstream.package", MISSING);
            }
        }
    }
    if !matches!(
        spec.adoption_policy.as_str(),
        "" | "adoptNone" | "adoptExisting"
    ) {
        err(
            &mut out,
            "spec.adoptionPolicy",
            format!(
                r#"field can only be "adoptNone" or "adoptExisting", not {:?}{}"#,
                spec.adoption_policy,
                did_you_mean(&spec.adoption_policy, ADOPTION_POLICIES)
            ),
        );
    }
    if !matches!(spec.deletion_policy.as_str(), "" | "orphan" | "delete") {
        err(
            &mut out,
            "spec.deletionPolicy",
            format!(
                r#"can only be "orphan" or "delete", not {:?}{}"#,
                spec.deletion_policy,
                did_you_mean(&spec.deletion_policy, DELETION_POLICIES)
            ),
        );
    }
    if let Some(pc) = &spec.package_context {
        out.extend(reserved_keys(
            &pc.data,
            &pc.remove_keys,
            "spec.packageContext.data",
            "spec.packageContext.removeKeys",
        ));
    }
    for (i, inj) in spec.injectors.iter().enumerate() {
        if inj.name.is_empty() {
            err(
                &mut out,
                format!("spec.injectors[{i}].name"),
                "must not be empty: name the in-cluster object to inject",
            );
        }
    }
    if let Some(p) = &spec.pipeline {
        let mut budget = WhenBudget::default();
        validate_functions(&mut out, &p.mutators, "spec.pipeline.mutators", &mut budget);
        validate_functions(
            &mut out,
            &p.validators,
            "spec.pipeline.validators",
            &mut budget,
        );
    }
    out
}

/// Porch's reserved-key check over context `data` and `removeKeys`, with the field paths to
/// report. Order: per reserved key, data first, then each occurrence in removeKeys. The message
/// is Porch's after its `<field>: ` prefix. Then an empty key, which Porch would write as a
/// ConfigMap key Kubernetes refuses (and which no one means).
pub fn reserved_keys(
    data: &BTreeMap<String, String>,
    remove_keys: &[String],
    data_field: &str,
    remove_field: &str,
) -> Vec<ResultItem> {
    let mut out = Vec::new();
    for key in RESERVED_CONTEXT_KEYS {
        if data.contains_key(*key) {
            err(
                &mut out,
                data_field,
                format!(
                    "Invalid value: {}: must not contain the key {key:?} (Porch sets it)",
                    go_json(data)
                ),
            );
        }
        for _ in remove_keys.iter().filter(|k| k == key) {
            err(
                &mut out,
                remove_field,
                format!(
                    "Invalid value: {}: must not contain the key {key:?} (Porch sets it)",
                    go_json(&remove_keys)
                ),
            );
        }
    }
    if let Some(v) = data.get("") {
        let message = format!("must not contain an empty key (\"\": {v:?}); name the key");
        err(&mut out, data_field, message);
    }
    if remove_keys.iter().any(String::is_empty) {
        err(&mut out, remove_field, "must not contain an empty key");
    }
    out
}

/// Rejects a missing name, a name Kubernetes would refuse, and a `.` in it when the variant
/// has pipeline functions (without any, nothing is named after it)
/// ([`crate::api::names::package_variant_name_problem`], the rule the set's expander applies
/// to every PackageVariant it makes).
fn validate_name(out: &mut Vec<ResultItem>, name: &str, has_functions: bool) {
    if name.is_empty() {
        err(out, "metadata.name", "missing required field");
    } else if let Some(why) =
        crate::api::names::package_variant_name_problem_with(name, has_functions)
    {
        err(
            out,
            "metadata.name",
            format!("PackageVariant name {name:?} {why}"),
        );
    }
}

fn validate_functions(
    out: &mut Vec<ResultItem>,
    fns: &[Function],
    field: &str,
    budget: &mut WhenBudget,
) {
    for (i, f) in fns.iter().enumerate() {
        if f.name.contains('.') {
            err(
                out,
                format!("{field}[{i}].name"),
                format!(
                    "function name {:?} must not contain \".\": the generated name \
                     PackageVariant.<pv>.{}.{i} would not be recognised on the next run and \
                     would pile up",
                    f.name, f.name
                ),
            );
        }
        for (sub, message) in f.problems(!f.config_map.is_empty(), budget) {
            err(out, format!("{field}[{i}]{sub}"), message);
        }
    }
}

/// Go's `json.Marshal`: compact, map keys sorted, and `<`, `>`, `&`, U+2028, U+2029 escaped.
pub fn go_json<T: serde::Serialize + ?Sized>(v: &T) -> String {
    serde_json::to_string(v)
        .unwrap_or_default()
        .replace('<', "\\u003c")
        .replace('>', "\\u003e")
        .replace('&', "\\u0026")
        .replace('\u{2028}', "\\u2028")
        .replace('\u{2029}', "\\u2029")
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
            &with(json!({"pipeline": {"validators": [{"name": "a.b"}]}})),
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
