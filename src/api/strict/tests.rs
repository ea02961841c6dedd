use super::*;
use crate::api::package_variant::{PACKAGE_VARIANT_API_VERSION, PACKAGE_VARIANT_KIND};
use crate::api::package_variant_set::{PACKAGE_VARIANT_SET_API_VERSION, PACKAGE_VARIANT_SET_KIND};
use crate::api::schema::for_kind;
use serde_json::json;

fn pv(spec: Value) -> Vec<(String, String)> {
    let kind = for_kind(PACKAGE_VARIANT_API_VERSION, PACKAGE_VARIANT_KIND);
    let kind = kind.unwrap_or_else(|| panic!("no PV schema"));
    let object = json!({"apiVersion": PACKAGE_VARIANT_API_VERSION, "kind": PACKAGE_VARIANT_KIND,
        "metadata": {"name": "pv"}, "spec": spec});
    pairs(check(&object, kind))
}

fn pvs(object: Value) -> Vec<(String, String)> {
    let kind = for_kind(PACKAGE_VARIANT_SET_API_VERSION, PACKAGE_VARIANT_SET_KIND);
    pairs(check(
        &object,
        kind.unwrap_or_else(|| panic!("no PVS schema")),
    ))
}

fn pairs(problems: Vec<Problem>) -> Vec<(String, String)> {
    problems.into_iter().map(|p| (p.path, p.message)).collect()
}

fn one(path: &str, message: &str) -> Vec<(String, String)> {
    vec![(path.to_string(), message.to_string())]
}

#[test]
fn a_valid_object_has_no_problem() {
    assert_eq!(
        pv(
            json!({"upstream": {"repo": "r", "package": "p", "revision": 1},
            "downstream": {"repo": "d", "package": "p"}, "labels": {"a.b/c": "x"},
            "packageContext": {"data": {"k": "v"}, "removeKeys": ["x"]},
            "pipeline": {"mutators": [{"image": "i", "configMap": {"a": "b"},
                "selectors": [{"kind": "K", "labels": {"a": "b"}}]}]},
            "injectors": [{"kind": "ConfigMap", "name": "n"}]})
        ),
        []
    );
}

#[test]
fn nulls_are_zero_values_but_not_list_items() {
    assert_eq!(pv(json!({"upstream": null, "labels": null})), []);
    assert_eq!(
        pv(json!({"packageContext": {"removeKeys": ["a", null]}})),
        one(
            "spec.packageContext.removeKeys[1]",
            "invalid type: null, expected a string; write a value or remove the entry"
        )
    );
}

#[test]
fn newcomer_typos() {
    assert_eq!(
        pv(json!({"pipelines": {}})),
        one(
            "spec.pipelines",
            r#"unknown field "pipelines"; did you mean "pipeline"?"#
        )
    );
    assert_eq!(
        pv(json!({"injector": []})),
        one(
            "spec.injector",
            r#"unknown field "injector"; did you mean "injectors"?"#
        )
    );
    assert_eq!(
        pv(json!({"packageContex": {}})),
        one(
            "spec.packageContex",
            r#"unknown field "packageContex"; did you mean "packageContext"?"#
        )
    );
    assert_eq!(
        pv(json!({"packageContext": {"removeKey": []}})),
        one(
            "spec.packageContext.removeKey",
            r#"unknown field "removeKey"; did you mean "removeKeys"?"#
        )
    );
    let set = json!({"spec": {"template": {}, "targets": [
        {"repositorySelector": {"matchLabel": {}}},
        {"template": {"labelExprs": [{"key": "k", "valueExp": "x"}]}}]}});
    assert_eq!(
        pvs(set),
        [
            (
                "spec.template".to_string(),
                r#"unknown field "template"; it belongs at spec.targets[].template"#.to_string()
            ),
            (
                "spec.targets[0].repositorySelector.matchLabel".to_string(),
                r#"unknown field "matchLabel"; did you mean "matchLabels"?"#.to_string()
            ),
            (
                "spec.targets[1].template.labelExprs[0].valueExp".to_string(),
                r#"unknown field "valueExp"; did you mean "valueExpr"?"#.to_string()
            ),
        ]
    );
}

#[test]
fn case_and_places_and_known_fields() {
    assert_eq!(
        pvs(json!({"spec": {"targets": [{"RepositorySelector": {}}]}})),
        one(
            "spec.targets[0].RepositorySelector",
            r#"unknown field "RepositorySelector"; did you mean "repositorySelector"?"#
        )
    );
    assert_eq!(
        pv(json!({"repo": "x"})),
        one(
            "spec.repo",
            r#"unknown field "repo"; it belongs at spec.upstream.repo or spec.downstream.repo"#
        )
    );
    assert_eq!(
        pvs(json!({"spec": {"targets": [{"labels": {}}]}})),
        one(
            "spec.targets[0].labels",
            r#"unknown field "labels"; it belongs at spec.targets[].template.labels"#
        )
    );
    assert_eq!(
        pvs(json!({"spec": {"upstream": {"zzz": 1}}})),
        one(
            "spec.upstream.zzz",
            r#"unknown field "zzz"; the fields here are repo, package, revision, workspaceName"#
        )
    );
    assert_eq!(
        pvs(json!({"metadata": {"name": "s", "lables": {}}})),
        one(
            "metadata.lables",
            r#"unknown field "lables"; did you mean "labels"?"#
        )
    );
}

#[test]
fn status_is_not_checked_but_other_root_fields_are() {
    assert_eq!(pvs(json!({"status": {"anything": [1]}})), []);
    assert_eq!(
        pvs(json!({"targets": []})),
        one(
            "targets",
            r#"unknown field "targets"; it belongs at spec.targets"#
        )
    );
}

#[test]
fn types_say_what_to_write() {
    assert_eq!(
        pv(json!({"labels": {"a": 1, "b": true}, "injectors": [{"name": 0.5}]})),
        [
            (
                "spec.labels.a".to_string(),
                "invalid type: integer `1`, expected a string; quote it to make it a string"
                    .to_string()
            ),
            (
                "spec.labels.b".to_string(),
                "invalid type: boolean `true`, expected a string; quote it to make it a string"
                    .to_string()
            ),
            (
                "spec.injectors[0].name".to_string(),
                "invalid type: floating point `0.5`, expected a string; quote it to make it a string"
                    .to_string()
            ),
        ]
    );
    assert_eq!(
        pv(json!({"packageContext": "x", "pipeline": {"mutators": {}}})),
        [
            (
                "spec.packageContext".to_string(),
                r#"invalid type: string "x", expected a mapping (key: value)"#.to_string()
            ),
            (
                "spec.pipeline.mutators".to_string(),
                "invalid type: a mapping, expected a list".to_string()
            ),
        ]
    );
    assert_eq!(
        pvs(json!({"metadata": {"generation": "3"}})),
        one(
            "metadata.generation",
            r#"invalid type: string "3", expected an integer; write it without quotes"#
        )
    );
}

#[test]
fn string_revisions_say_porch_takes_an_integer() {
    let msg = |rev: &str| pv(json!({"upstream": {"revision": rev}}))[0].1.clone();
    assert_eq!(
        msg("v1"),
        r#"invalid type: string "v1", expected an integer: Porch's API takes the revision as an integer (Porch 4.1 and later); write revision: 1"#
    );
    assert!(
        msg("2").ends_with("; write revision: 2 without quotes"),
        "{}",
        msg("2")
    );
    assert!(msg("main").ends_with("(revision: 1), or name it by workspaceName"));
}

#[test]
fn paths_quote_keys_that_are_not_names() {
    assert_eq!(
        pvs(json!({"metadata": {"annotations": {"kpt.dev/x": 1}}}))[0].0,
        "metadata.annotations[kpt.dev/x]"
    );
}

#[test]
fn hostile_names_are_cut_and_cost_little() {
    let long = "x".repeat(1_000_000);
    let found = pv(json!({ long.clone(): 1 }));
    assert_eq!(found.len(), 1);
    assert!(found[0].1.len() < 300, "{}", found[0].1.len());
}

#[test]
fn closest_names() {
    let known = ["matchLabels", "matchExpressions"];
    assert_eq!(
        closest("matchLabel", known.into_iter()),
        Some("matchLabels")
    );
    assert_eq!(
        closest("MATCHLABELS", known.into_iter()),
        Some("matchLabels")
    );
    assert_eq!(
        closest("matchExpresions", known.into_iter()),
        Some("matchExpressions")
    );
    assert_eq!(closest("selector", known.into_iter()), None);
    assert_eq!(closest("rpeo", ["repo"].into_iter()), Some("repo"));
    assert_eq!(closest("ab", ["repo"].into_iter()), None);
    let upstream = ["repo", "package", "revision", "workspaceName"];
    assert_eq!(
        closest("workspace", upstream.into_iter()),
        Some("workspaceName")
    );
    assert_eq!(closest("rev", upstream.into_iter()), None);
}

/// A value of every field the schema names, at every depth.
fn everything(schema: &crate::api::schema::Schema) -> Value {
    use crate::api::schema::Type;
    match schema.ty() {
        Type::Object => match schema.values() {
            Some(v) if schema.properties().next().is_none() => json!({"k": everything(v)}),
            _ => Value::Object(
                schema
                    .properties()
                    .map(|(n, s)| (n.to_string(), everything(s)))
                    .collect(),
            ),
        },
        Type::Array => json!([schema.items().map(everything).unwrap_or(Value::Null)]),
        Type::String => json!("x"),
        Type::Integer => json!(1),
        Type::Number => json!(1.5),
        Type::Boolean => json!(true),
        Type::Any => json!({"anything": [1]}),
    }
}

/// Every field of every schema, filled in, is accepted: the walker refuses nothing the schema
/// allows.
#[test]
fn every_field_of_the_schema_is_accepted() {
    for kind in crate::api::schema::kinds() {
        let object = everything(kind.root());
        assert!(object.pointer("/metadata/ownerReferences/0/uid").is_some());
        assert_eq!(pairs(check(&object, kind)), [], "{}", kind.kind());
    }
}
