//! Porch's validation cases (V1–V11) and the derived cases (D16, D17, D24–D27) of
//! [`validate_package_variant_set`]: its messages in Porch's words and their field paths. Kept
//! in their own file so the validation reads in one go.

use super::*;
use crate::api::decode;
use serde_json::{json, Value};

/// Every Porch case starts with this header.
fn messages(spec: Option<Value>) -> Vec<String> {
    let mut set = json!({"apiVersion": "config.porch.kpt.dev", "kind": "PackageVariantSet", "metadata": {"name": "my-pv"}});
    if let Some(spec) = spec {
        set["spec"] = spec;
    }
    let set: PackageVariantSet = match decode(&set, "") {
        Ok(s) => s,
        Err(e) => return vec![format!("decode: {}", e.message)],
    };
    validate_package_variant_set(&set)
        .into_iter()
        .map(porch_words)
        .collect()
}

/// A problem in Porch's words: our message with its field path put back where Porch writes
/// it (Porch spells `objectselector` in lower case in two messages).
fn porch_words(r: ResultItem) -> String {
    let field = r.field_path.unwrap_or_default();
    let m = r.message;
    if m.starts_with("must specify at least one item") {
        format!("{m} in {field}")
    } else if m.starts_with("either ") {
        m
    } else if m.contains("`downstream.") {
        format!("{} {m}", field.trim_end_matches(".downstream"))
    } else {
        let field = field.replace("objectSelector", "objectselector");
        let m = m.split(", not \"").next().unwrap_or_default();
        format!("{field} {m}")
    }
}

const UP: &str = "spec.upstream is a required field";
const NO_TARGETS: &str = "must specify at least one item in spec.targets";
const ONE_OF0: &str =
    "spec.targets[0] must specify one of `repositories`, `repositorySelector`, or `objectSelector`";

#[test]
fn v1_empty_spec() {
    assert_eq!(messages(None), [UP, NO_TARGETS]);
}

#[test]
fn v2_missing_upstream_package() {
    assert_eq!(
        messages(Some(json!({"upstream": {"repo": "foo", "revision": 1}}))),
        ["spec.upstream.package is a required field", NO_TARGETS]
    );
}

#[test]
fn v3_missing_upstream_repo() {
    assert_eq!(
        messages(Some(
            json!({"upstream": {"package": "foopkg", "revision": 3}})
        )),
        ["spec.upstream.repo is a required field", NO_TARGETS]
    );
}

#[test]
fn v4_missing_upstream_revision() {
    assert_eq!(
        messages(Some(
            json!({"upstream": {"repo": "foo", "package": "foopkg"}})
        )),
        [
            "either spec.upstream.revision or spec.upstream.workspaceName must be specified",
            NO_TARGETS
        ]
    );
}

#[test]
fn v5_invalid_targets() {
    assert_eq!(
        messages(Some(json!({"targets": [
            {"repositories": [{"name": ""}]},
            {"repositories": [{"name": "bar"}], "repositorySelector": {"foo": "bar"}},
            {"repositories": [{"name": "bar", "packageNames": ["", "foo"]}]}]}))),
        [
            UP,
            "spec.targets[0].repositories[0].name cannot be empty",
            "spec.targets[1] must specify one of `repositories`, `repositorySelector`, or `objectSelector`",
            "spec.targets[2].repositories[0].packageNames[0] cannot be empty",
        ]
    );
}

#[test]
fn v6_invalid_adoption_and_deletion_policies() {
    assert_eq!(
        messages(Some(
            json!({"targets": [{"template": {"adoptionPolicy": "invalid", "deletionPolicy": "invalid"}}]})
        )),
        [
            UP,
            ONE_OF0,
            r#"spec.targets[0].template.adoptionPolicy can only be "adoptNone" or "adoptExisting""#,
            r#"spec.targets[0].template.deletionPolicy can only be "orphan" or "delete""#,
        ]
    );
}

#[test]
fn v7_spec_level_policies_are_ignored() {
    assert_eq!(
        messages(Some(
            json!({"adoptionPolicy": "adoptExisting", "deletionPolicy": "orphan"})
        )),
        [UP, NO_TARGETS]
    );
}

#[test]
fn v8_downstream_values_and_expressions_do_not_mix() {
    assert_eq!(
        messages(Some(json!({"targets": [{"template": {"downstream": {"repo": "foo", "repoExpr": "'bar'", "package": "p", "packageExpr": "'p'"}}}]}))),
        [
            UP,
            ONE_OF0,
            "spec.targets[0].template may specify only one of `downstream.repo` and `downstream.repoExpr`",
            "spec.targets[0].template may specify only one of `downstream.package` and `downstream.packageExpr`",
        ]
    );
}

#[test]
fn v9_map_exprs_do_not_mix() {
    let pair = json!([{"key": "foo", "keyExpr": "'bar'", "value": "bar"}, {"key": "foo", "value": "bar", "valueExpr": "'bar'"}]);
    assert_eq!(
        messages(Some(json!({"targets": [{"template": {"labelExprs": pair, "annotationExprs": pair, "packageContext": {"dataExprs": pair}}}]}))),
        [
            UP,
            ONE_OF0,
            "spec.targets[0].template.labelExprs[0] may specify only one of `key` and `keyExpr`",
            "spec.targets[0].template.labelExprs[1] may specify only one of `value` and `valueExpr`",
            "spec.targets[0].template.annotationExprs[0] may specify only one of `key` and `keyExpr`",
            "spec.targets[0].template.annotationExprs[1] may specify only one of `value` and `valueExpr`",
            "spec.targets[0].template.packageContext.dataExprs[0] may specify only one of `key` and `keyExpr`",
            "spec.targets[0].template.packageContext.dataExprs[1] may specify only one of `value` and `valueExpr`",
        ]
    );
}

#[test]
fn v10_injectors_name_or_name_expr() {
    assert_eq!(
        messages(Some(
            json!({"targets": [{"repositories": [{"name": "bar"}], "template": {"injectors": [{"name": "foo", "nameExpr": "bar"}, {"group": "foo"}]}}]})
        )),
        [
            UP,
            "spec.targets[0].template.injectors[0] may specify only one of `name` and `nameExpr`",
            "spec.targets[0].template.injectors[1] must specify either `name` or `nameExpr`",
        ]
    );
}

#[test]
fn v11_pipeline_function_must_be_valid() {
    assert_eq!(
        messages(Some(
            json!({"targets": [{"repositories": [{"name": "bar"}], "template": {"pipeline": {
            "validators": [{"name": "foo"}, {"image": "foo", "name": "bar"}],
            "mutators": [{"name": "foo.bar", "image": "bar"}]}}}]})
        )),
        [
            UP,
            "spec.targets[0].template.pipeline.validators[0].image must not be empty",
            "spec.targets[0].template.pipeline.mutators[0].name must not contain '.'",
        ]
    );
}

const VALID_UP: &str = r#"{"repo": "r", "package": "p", "revision": 1}"#;

fn with_up(targets: Value) -> Value {
    json!({"upstream": serde_json::from_str::<Value>(VALID_UP).unwrap_or_default(), "targets": targets})
}

#[test]
fn d24_empty_repositories_list() {
    assert_eq!(
        messages(Some(with_up(json!([{"repositories": []}])))),
        ["spec.targets[0].repositories must not be an empty list if specified"]
    );
}

#[test]
fn d25_object_selector_needs_api_version_and_kind() {
    assert_eq!(
        messages(Some(with_up(json!([{"objectSelector": {}}])))),
        [
            "spec.targets[0].objectselector.apiVersion cannot be empty",
            "spec.targets[0].objectselector.kind cannot be empty"
        ]
    );
}

#[test]
fn d26_negative_revision_or_workspace_is_valid() {
    let t = json!([{"repositories": [{"name": "r"}]}]);
    assert!(messages(Some(
        json!({"upstream": {"repo": "r", "package": "p", "revision": -1}, "targets": t})
    ))
    .is_empty());
    assert!(messages(Some(
        json!({"upstream": {"repo": "r", "package": "p", "workspaceName": "ws"}, "targets": t})
    ))
    .is_empty());
}

#[test]
fn d27_more_or_fewer_than_one_option() {
    assert_eq!(
        messages(Some(with_up(
            json!([{"repositories": [{"name": "r"}], "objectSelector": {"apiVersion": "v1", "kind": "X"}}])
        ))),
        [ONE_OF0]
    );
    assert_eq!(messages(Some(with_up(json!([{}])))), [ONE_OF0]);
}

#[test]
fn d16_empty_injector_name_refused_and_d17_config_map_exprs_unchecked() {
    // Porch passes an empty injector name; its PackageVariant validation then refuses the
    // variant, so the set refuses it first.
    let t = json!([{"repositories": [{"name": "r"}], "template": {
        "injectors": [{"name": ""}],
        "pipeline": {"mutators": [{"image": "x", "configMapExprs": [{"key": "a", "keyExpr": "'b'", "value": "v"}]}]}}}]);
    let m = messages(Some(with_up(t)));
    assert_eq!(m.len(), 1, "{m:?}");
    assert!(
        m[0].starts_with("spec.targets[0].template.injectors[0].name must not be empty"),
        "{m:?}"
    );
}

#[test]
fn each_problem_has_its_field_and_is_on_the_config() {
    let set: PackageVariantSet =
        decode(&json!({"spec": {"targets": [{"repositories": []}]}}), "").unwrap_or_default();
    let results = validate_package_variant_set(&set);
    let fields: Vec<_> = results
        .iter()
        .map(|r| r.field_path.clone().unwrap_or_default())
        .collect();
    assert_eq!(fields, ["spec.upstream", "spec.targets[0].repositories"]);
    assert!(results
        .iter()
        .all(|r| r.is_error() && r.subject == crate::krm::results::Subject::Config));
}
