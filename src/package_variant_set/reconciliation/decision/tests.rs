//! End-to-end tests of the expander through `expand`: Porch's TestEnsurePackageVariants
//! (T-S1/T-S2), the derived cases that need the whole pipeline, and the decisions beyond Porch.

use super::*;
use crate::api::package_variant::{PACKAGE_VARIANT_API_VERSION, PACKAGE_VARIANT_KIND};
use crate::krm::results::{Severity, Subject};
use crate::package_variant_set::expansion::targets::{
    PACKAGE_REVISION_API_VERSION, PACKAGE_REVISION_KIND, REPOSITORY_API_VERSION, REPOSITORY_KIND,
};
use crate::package_variant_set::reconciliation::ensure::OWNER_LABEL;
use serde_json::json;

fn pvs(metadata: Value, spec: Value) -> Value {
    json!({"apiVersion": PACKAGE_VARIANT_SET_API_VERSION, "kind": PACKAGE_VARIANT_SET_KIND, "metadata": metadata, "spec": spec})
}

fn pr(repo: &str, package: &str, revision: i64, ns: Option<&str>) -> Value {
    let mut o = json!({"apiVersion": PACKAGE_REVISION_API_VERSION, "kind": PACKAGE_REVISION_KIND,
        "metadata": {"name": format!("{repo}.{package}.v{revision}"), "labels": {"vendor": "bigco"}},
        "spec": {"repository": repo, "packageName": package, "revision": revision}});
    if let Some(ns) = ns {
        o["metadata"]["namespace"] = json!(ns);
    }
    o
}

fn repo(name: &str, labels: Value, ns: Option<&str>) -> Value {
    let mut o = json!({"apiVersion": REPOSITORY_API_VERSION, "kind": REPOSITORY_KIND, "metadata": {"name": name, "labels": labels}, "spec": {"type": "git"}});
    if let Some(ns) = ns {
        o["metadata"]["namespace"] = json!(ns);
    }
    o
}

fn pv(name: &str, owner: &str, repo: &str, package: &str, ns: Option<&str>) -> Value {
    let mut o = json!({"apiVersion": PACKAGE_VARIANT_API_VERSION, "kind": PACKAGE_VARIANT_KIND,
        "metadata": {"name": name, "labels": {OWNER_LABEL: owner}, "annotations": {"keep": "me"}},
        "spec": {"downstream": {"repo": repo, "package": package}}});
    if let Some(ns) = ns {
        o["metadata"]["namespace"] = json!(ns);
    }
    o
}

fn errors(e: &Expansion) -> Vec<String> {
    e.results
        .iter()
        .filter(|r| r.is_error())
        .map(|r| crate::cel::porch_words(&r.message))
        .collect()
}

fn assert_no_changes(e: &Expansion) {
    assert!(
        e.updates.is_empty() && e.deletes.is_empty() && e.creates.is_empty(),
        "all or nothing: {e:?}"
    );
}

fn created_names(e: &Expansion) -> Vec<String> {
    e.creates
        .iter()
        .map(|c| {
            c.pointer("/metadata/name")
                .and_then(Value::as_str)
                .unwrap_or("")
                .to_string()
        })
        .collect()
}

/// T-S1 and T-S2 through the whole pipeline: set my-pvs without uid or namespace.
#[test]
fn t_s1_t_s2_ensure_package_variants() {
    let config = pvs(
        json!({"name": "my-pvs"}),
        json!({"upstream": {"repo": "up", "package": "up", "revision": 1}, "targets": [{"repositories": [
            {"name": "dnrepo2", "packageNames": ["dnpkg2"]},
            {"name": "dnrepo3", "packageNames": ["dnpkg3"]},
            {"name": "dnrepo4", "packageNames": ["supersupersuperloooooooooooooooooooooooooooooooooooooooooooooooooongpkgname"]}]}]}),
    );
    let items = [
        pr("up", "up", 1, None),
        pv("my-pvs-dnrepo1-dnpkg1", "my-pvs", "dnrepo1", "dnpkg1", None),
        pv("my-pvs-dnrepo2-dnpkg2", "my-pvs", "dnrepo2", "dnpkg2", None),
    ];
    let e = expand(&config, &items);
    assert!(errors(&e).is_empty(), "{:?}", e.results);
    assert_eq!(e.deletes, [1]);
    assert_eq!(e.updates.iter().map(|(i, _)| *i).collect::<Vec<_>>(), [2]);
    assert_eq!(
        created_names(&e),
        [
            "my-pvs-dnrepo3-dnpkg3",
            "my-pvs-dnrepo4-supersupersuperlooooooooooooooooooooooo-bec36506"
        ]
    );
    assert_eq!(
        e.updates[0].1,
        json!({"upstream": {"repo": "up", "package": "up", "revision": 1}, "downstream": {"repo": "dnrepo2", "package": "dnpkg2"}})
    );
    let info: Vec<_> = e
        .results
        .iter()
        .filter(|r| r.severity == Severity::Info)
        .collect();
    assert_eq!(info.len(), 1);
    assert_eq!(
        info[0].message,
        "PackageVariantSet \"my-pvs\": 2 created (my-pvs-dnrepo3-dnpkg3, my-pvs-dnrepo4-supersupersuperlooooooooooooooooooooooo-bec36506), 1 updated (my-pvs-dnrepo2-dnpkg2 [spec.upstream]), 1 deleted (my-pvs-dnrepo1-dnpkg1)"
    );
}

#[test]
fn new_package_variant_object_without_uid() {
    let config = pvs(
        json!({"name": "s"}),
        json!({"upstream": {"repo": "up", "package": "p", "revision": 1}, "targets": [{"repositories": [{"name": "r"}]}]}),
    );
    let e = expand(&config, &[pr("up", "p", 1, None)]);
    assert_eq!(
        serde_json::to_string(&e.creates).unwrap_or_default(),
        serde_json::to_string(&json!([{
            "apiVersion": "config.porch.kpt.dev/v1alpha1",
            "kind": "PackageVariant",
            "metadata": {
                "name": "s-r-p",
                "namespace": "default",
                "labels": {"config.porch.kpt.dev/packagevariantset": "s"},
                "annotations": {"config.kubernetes.io/path": "packagevariants/s-r-p.yaml", "internal.config.kubernetes.io/path": "packagevariants/s-r-p.yaml"},
                "finalizers": ["config.porch.kpt.dev/packagevariants"]
            },
            "spec": {"upstream": {"repo": "up", "package": "p", "revision": 1}, "downstream": {"repo": "r", "package": "p"}}
        }]))
        .unwrap_or_default()
    );
}

#[test]
fn new_package_variant_object_with_uid_is_owned() {
    let config = pvs(
        json!({"name": "s", "namespace": "team", "uid": "1234"}),
        json!({"upstream": {"repo": "up", "package": "p", "workspaceName": "ws"}, "targets": [{"repositories": [{"name": "r"}]}]}),
    );
    let mut up = pr("up", "p", 0, Some("team"));
    up["spec"]["workspaceName"] = json!("ws");
    let e = expand(&config, &[up]);
    let created = e.creates.first().cloned().unwrap_or_default();
    assert_eq!(created.pointer("/metadata/namespace"), Some(&json!("team")));
    assert_eq!(
        created.pointer("/metadata/labels"),
        Some(&json!({OWNER_LABEL: "1234"}))
    );
    assert_eq!(
        created.pointer("/metadata/ownerReferences"),
        Some(
            &json!([{"apiVersion": "config.porch.kpt.dev/v1alpha2", "kind": "PackageVariantSet", "name": "s", "uid": "1234", "controller": true}])
        )
    );
}

#[test]
fn validation_errors_change_nothing() {
    let config = pvs(
        json!({"name": "s"}),
        json!({"targets": [{"repositories": []}]}),
    );
    let e = expand(&config, &[pv("s-r-p", "s", "r", "p", None)]);
    assert_eq!(
        errors(&e),
        [
            "is a required field",
            "must not be an empty list if specified"
        ]
    );
    let fields: Vec<_> = e.results.iter().map(|r| r.field_path.clone()).collect();
    assert_eq!(
        fields,
        [
            Some("spec.upstream".to_string()),
            Some("spec.targets[0].repositories".to_string())
        ]
    );
    assert!(e.results.iter().all(|r| r.subject == Subject::Config));
    assert_no_changes(&e);
}

#[test]
fn decode_errors_carry_the_field_path() {
    let config = pvs(
        json!({"name": "s"}),
        json!({"upstream": {"repo": "r", "package": "p", "revision": "1"}}),
    );
    let e = expand(&config, &[]);
    assert_eq!(
        errors(&e),
        [
            r#"invalid type: string "1", expected an integer: Porch's API takes the revision as an integer (Porch 4.1 and later); write revision: 1 without quotes"#
        ]
    );
    assert_eq!(
        e.results[0].field_path.as_deref(),
        Some("spec.upstream.revision")
    );
}

#[test]
fn wrong_config_kind_or_version_is_an_error() {
    let mut config = pvs(json!({"name": "s"}), json!({}));
    config["apiVersion"] = json!("config.porch.kpt.dev/v1alpha1");
    assert!(errors(&expand(&config, &[]))[0]
        .contains("functionConfig must be a config.porch.kpt.dev/v1alpha2 PackageVariantSet"));
    assert_eq!(errors(&expand(&json!("scalar"), &[])).len(), 1);
}

/// D28 through the pipeline, with the hint.
#[test]
fn d28_upstream_not_found() {
    let config = pvs(
        json!({"name": "s"}),
        json!({"upstream": {"repo": "up-repo", "package": "up-pkg", "revision": 1}, "targets": [{"repositories": [{"name": "r"}]}]}),
    );
    let e = expand(&config, &[pr("up-repo", "up-pkg", 1, Some("elsewhere"))]);
    let errs = errors(&e);
    assert!(
        errs[0]
            .starts_with("could not find upstream package revision 'up-pkg/1' in repo 'up-repo'"),
        "{errs:?}"
    );
    assert!(errs[0].contains("must be among the input items"));
    assert_no_changes(&e);
}

/// D22's error row: a bad operator is an error and nothing changes.
#[test]
fn d22_bad_operator_is_an_error() {
    let config = pvs(
        json!({"name": "s"}),
        json!({"upstream": {"repo": "up", "package": "p", "revision": 1}, "targets": [{"repositorySelector": {"matchExpressions": [{"key": "env", "operator": "Foo", "values": ["a"]}]}}]}),
    );
    let e = expand(
        &config,
        &[pr("up", "p", 1, None), pv("s-r-p", "s", "r", "p", None)],
    );
    assert_eq!(
        errors(&e),
        [
            r#""Foo" is not a valid label selector operator; the operators are "In", "NotIn", "Exists" or "DoesNotExist""#
        ]
    );
    assert_eq!(
        e.results[0].field_path.as_deref(),
        Some("spec.targets[0].repositorySelector")
    );
    assert_no_changes(&e);
}

/// D22: selecting nothing deletes every owned variant (Porch ends Ready=True).
#[test]
fn d22_empty_selection_deletes_owned() {
    let config = pvs(
        json!({"name": "s"}),
        json!({"upstream": {"repo": "up", "package": "p", "revision": 1}, "targets": [{"repositorySelector": {"matchLabels": {"env": "prod"}}}]}),
    );
    let items = [
        pr("up", "p", 1, None),
        repo("dev-1", json!({"env": "dev"}), None),
        pv("s-old-p", "s", "old", "p", None),
    ];
    // Porch deletes every owned variant here; the deletion guard refuses it (issue 23)...
    let e = expand(&config, &items);
    assert_eq!(errors(&e).len(), 1, "{:?}", e.results);
    assert!(errors(&e)[0].starts_with("refused: this run would delete 1 of the 1"));
    assert_no_changes(&e);
    // ...unless the set allows it; each deletion is a warning saying why.
    let mut config = config;
    config["metadata"]["annotations"] =
        json!({"package-variant.fn.kpt.dev/allow-deletions": "all"});
    let e = expand(&config, &items);
    assert!(errors(&e).is_empty());
    assert_eq!(e.deletes, [2]);
    assert!(e.creates.is_empty());
    let warnings: Vec<&str> = e
        .results
        .iter()
        .filter(|r| r.severity == Severity::Warning)
        .map(|r| r.message.as_str())
        .collect();
    assert_eq!(
        warnings,
        [
            r#"matches 0 of 1 Repositories in namespace "default", so this target makes no PackageVariant; env=prod matches none; the closest label values are env=dev (1)"#,
            r#"deletes PackageVariant "s-old-p" (downstream "old"/"p"): no target of the set wants it any more. spec.targets[0].repositorySelector: there is no Repository "old" among the items in namespace "default", and it matches 0 of 1 Repositories: env=prod matches none; the closest label values are env=dev (1)"#
        ]
    );
}

#[test]
fn render_errors_have_porch_words_and_the_field_path() {
    let config = pvs(
        json!({"name": "s"}),
        json!({"upstream": {"repo": "up", "package": "p", "revision": 1}, "targets": [
            {"repositories": [{"name": "r1"}]},
            {"repositorySelector": {}, "template": {"labelExprs": [{"key": "a", "valueExpr": "1"}]}}]}),
    );
    let e = expand(
        &config,
        &[pr("up", "p", 1, None), repo("r1", json!({}), None)],
    );
    assert_eq!(
        errors(&e),
        ["unsupported type conversion from 'int' to string"]
    );
    assert_eq!(
        e.results[0].field_path.as_deref(),
        Some("spec.targets[1].template.labelExprs[0].valueExpr")
    );
    assert_no_changes(&e);
}

/// D23 through the pipeline: two downstreams with one identifier are an error naming both
/// entries; a package name listed twice is refused before that, naming both entries.
#[test]
fn d23_identifier_collision_is_an_error() {
    let config = pvs(
        json!({"name": "s"}),
        json!({"upstream": {"repo": "up", "package": "p", "revision": 1}, "targets": [
            {"repositories": [{"name": "r1", "packageNames": ["p"]}]},
            {"repositories": [{"name": "a-b", "packageNames": ["c"]}, {"name": "a", "packageNames": ["b-c"]}]}]}),
    );
    let e = expand(&config, &[pr("up", "p", 1, None)]);
    assert_eq!(
        errors(&e),
        [
            r#"spec.targets[1].repositories[0].packageNames[0] (downstream "a-b"/"c") and spec.targets[1].repositories[1].packageNames[0] (downstream "a"/"b-c") both produce the PackageVariant identifier "s-a-b-c"; Porch would keep only the later one: give them different downstream repo or package names (template.downstream) or remove one"#
        ]
    );
    assert_eq!(
        e.results[0].field_path.as_deref(),
        Some("spec.targets[1].repositories[1].packageNames[0]")
    );
    assert_no_changes(&e);
    let config = pvs(
        json!({"name": "s"}),
        json!({"upstream": {"repo": "up", "package": "p", "revision": 1}, "targets": [{"repositories": [{"name": "r1", "packageNames": ["p", "p"]}]}]}),
    );
    let e = expand(&config, &[pr("up", "p", 1, None)]);
    assert_eq!(
        errors(&e),
        [
            r#"repository "r1" with package "p" is listed twice, at spec.targets[0].repositories[0].packageNames[0] and at spec.targets[0].repositories[0].packageNames[1]: Porch would make one PackageVariant of them and drop the other silently; remove one"#
        ]
    );
    assert_no_changes(&e);
}

/// D30 through the pipeline: matched by downstream; the custom name and metadata are kept.
#[test]
fn d30_reconcile_by_identifier() {
    let config = pvs(
        json!({"name": "s", "uid": "u1"}),
        json!({"upstream": {"repo": "up", "package": "p", "revision": 1}, "targets": [{"repositories": [{"name": "r1", "packageNames": ["new", "keep"]}]}]}),
    );
    let items = [
        pr("up", "p", 1, None),
        pv("X", "u1", "r1", "old", None),
        pv("custom-name", "u1", "r1", "keep", None),
        pv("not-owned", "u2", "r1", "old", None),
    ];
    let e = expand(&config, &items);
    assert_eq!(e.deletes, [1]);
    assert_eq!(e.updates.iter().map(|(i, _)| *i).collect::<Vec<_>>(), [2]);
    assert_eq!(created_names(&e), ["s-r1-new"]);
}

#[test]
fn other_namespaces_are_invisible() {
    let config = pvs(
        json!({"name": "s", "namespace": "team-a"}),
        json!({"upstream": {"repo": "up", "package": "p", "revision": 1}, "targets": [{"repositorySelector": {}}]}),
    );
    let items = [
        pr("up", "p", 1, Some("team-a")),
        repo("mine", json!({}), Some("team-a")),
        repo("theirs", json!({}), Some("team-b")),
        pv("s-old-p", "s", "old", "p", Some("team-b")),
    ];
    let e = expand(&config, &items);
    assert!(errors(&e).is_empty(), "{:?}", e.results);
    assert_eq!(created_names(&e), ["s-mine-p"]);
    assert!(
        e.deletes.is_empty(),
        "a PackageVariant of another namespace is not ours"
    );
    let info = e
        .results
        .iter()
        .find(|r| r.severity == Severity::Info)
        .map(|r| r.message.clone())
        .unwrap_or_default();
    assert!(
        info.ends_with("; 2 items in namespaces other than \"team-a\" were ignored"),
        "{info}"
    );
    // One without namespace may come from any namespace: refused, nothing changes.
    let mut items = items.to_vec();
    items.push(repo("no-ns", json!({}), None));
    let e = expand(&config, &items);
    assert_eq!(errors(&e).len(), 1, "{:?}", e.results);
    assert!(
        errors(&e)[0].contains("has no namespace"),
        "{:?}",
        errors(&e)
    );
    assert_no_changes(&e);
}

/// W2-shaped (small): a repositorySelector over a fleet, six CEL expressions, existing PVs.
/// Each distinct expression is compiled once for the whole run.
#[test]
fn fleet_compiles_each_expression_once_and_is_deterministic() {
    let config = pvs(
        json!({"name": "fleet", "uid": "u"}),
        json!({"upstream": {"repo": "catalog", "package": "base", "revision": 3}, "targets": [{
            "repositorySelector": {"matchExpressions": [{"key": "env", "operator": "In", "values": ["prod", "staging"]}]},
            "template": {
                "downstream": {"packageExpr": "'base-' + target.labels['region']"},
                "labelExprs": [{"key": "site", "valueExpr": "repository.labels['site']"}],
                "annotationExprs": [{"keyExpr": "'fleet/' + target.labels['env']", "valueExpr": "upstream.name"}],
                "packageContext": {"dataExprs": [{"key": "region", "valueExpr": "target.labels['region']"}]},
                "injectors": [{"kind": "ConfigMap", "nameExpr": "repository.name + '-config'"}],
                "pipeline": {"mutators": [{"image": "set-labels", "configMapExprs": [{"key": "env", "valueExpr": "target.labels.env"}]}]}}}]}),
    );
    let mut items = vec![pr("catalog", "base", 3, None)];
    for i in 0..300 {
        let env = ["prod", "staging", "dev"][i % 3];
        items.push(repo(
            &format!("site-{i:04}"),
            json!({"env": env, "region": format!("r{}", i % 7), "site": format!("s{i}")}),
            None,
        ));
    }
    // 50 on prod sites (still wanted), 10 on dev sites (obsolete).
    for i in 0..50 {
        items.push(pv(
            &format!("old-{i}"),
            "u",
            &format!("site-{:04}", i * 3),
            &format!("base-r{}", (i * 3) % 7),
            None,
        ));
    }
    for i in 0..10 {
        items.push(pv(
            &format!("dev-{i}"),
            "u",
            &format!("site-{:04}", i * 3 + 2),
            &format!("base-r{}", (i * 3 + 2) % 7),
            None,
        ));
    }
    let e = expand(&config, &items);
    assert!(errors(&e).is_empty(), "{:?}", e.results);
    assert_eq!(
        e.cel_compilations, 7,
        "six template expressions plus packageExpr, each compiled once"
    );
    assert_eq!(e.updates.len() + e.creates.len(), 200);
    assert_eq!(e.updates.len(), 50);
    assert_eq!(e.deletes.len(), 10);
    let first = e.creates.first().cloned().unwrap_or_default();
    assert_eq!(
        first.pointer("/spec"),
        Some(&json!({
            "upstream": {"repo": "catalog", "package": "base", "revision": 3},
            "downstream": {"repo": "site-0001", "package": "base-r1"},
            "labels": {"site": "s1"},
            "annotations": {"fleet/staging": "catalog.base.v3"},
            "packageContext": {"data": {"region": "r1"}},
            "pipeline": {"mutators": [{"image": "set-labels", "configMap": {"env": "staging"}}]},
            "injectors": [{"kind": "ConfigMap", "name": "site-0001-config"}]
        }))
    );
    assert_eq!(expand(&config, &items), e, "same input, same output");
}

/// The owner label key of new variants is `OWNER_LABEL` (written as a literal in a serde attribute).
#[test]
fn new_variants_carry_the_owner_label() {
    let config = pvs(
        json!({"name": "s"}),
        json!({"upstream": {"repo": "catalog", "package": "base", "revision": 3}, "targets": [{"repositories": [{"name": "r"}]}]}),
    );
    let e = expand(&config, &[pr("catalog", "base", 3, None)]);
    assert_eq!(e.creates.len(), 1, "{:?}", e.results);
    let labels = e.creates[0].pointer("/metadata/labels").cloned();
    assert_eq!(labels, Some(json!({OWNER_LABEL: "s"})));
}
