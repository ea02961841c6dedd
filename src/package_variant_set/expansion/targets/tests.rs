use super::*;
use crate::api::decode;
use crate::package_variant_set::expansion::inputs::{from_json, Item};
use serde_json::{json, Value};

fn pr(repo: &str, pkg: &str, ws: &str, rev: i64) -> Value {
    json!({"apiVersion": PACKAGE_REVISION_API_VERSION, "kind": PACKAGE_REVISION_KIND, "metadata": {"name": "pr", "namespace": "default"},
        "spec": {"repository": repo, "packageName": pkg, "workspaceName": ws, "revision": rev}})
}

/// Porch's `getUpstreamPR` as the expander runs it: a set of this one upstream, resolved by
/// `upstreams::resolve`; the item index, or the error message.
fn find_upstream(upstream: &Upstream, items: &[Item], namespace: &str) -> Result<usize, String> {
    let set: crate::api::package_variant_set::PackageVariantSet = decode(
        &json!({"metadata": {"name": "s"}, "spec": {"upstream": {"repo": upstream.repo,
            "package": upstream.package, "revision": upstream.revision,
            "workspaceName": upstream.workspace_name}}}),
        "",
    )
    .map_err(|e| format!("{e:?}"))?;
    crate::package_variant_set::expansion::upstreams::resolve(&set, items, namespace)
        .map(|r| r[0].item)
        .map_err(|e| e[0].message.clone())
}

fn up(repo: &str, package: &str, ws: &str, revision: i64) -> Upstream {
    Upstream {
        repo: repo.into(),
        package: package.into(),
        revision,
        workspace_name: ws.into(),
    }
}

/// U1–U9: one PR {my-repo, my-package, my-workspace, -1}, upstream mutated step by step.
#[test]
fn u1_to_u9_get_upstream_pr() {
    let items = [pr("my-repo", "my-package", "my-workspace", -1)];
    let cases = [
        ("u1", up("", "", "", 0), false),
        ("u2", up("any-repo", "", "", 0), false),
        ("u3", up("my-repo", "", "", 0), false),
        ("u4", up("my-repo", "any-package", "", 0), false),
        ("u5", up("my-repo", "my-package", "", 0), false),
        ("u6", up("my-repo", "my-package", "any-workspace", 0), false),
        ("u7", up("my-repo", "my-package", "my-workspace", 0), true),
        ("u8", up("my-repo", "my-package", "any-workspace", 0), false),
        ("u9", up("my-repo", "my-package", "any-workspace", -1), true),
    ];
    for (id, u, found) in cases {
        assert_eq!(
            find_upstream(&u, &from_json(&items), "default").is_ok(),
            found,
            "{id}"
        );
    }
    let err = find_upstream(
        &up("my-repo", "my-package", "any-workspace", 0),
        &from_json(&items),
        "default",
    )
    .unwrap_err();
    assert!(
        err.starts_with(
            "could not find upstream package revision 'my-package/0' in repo 'my-repo'"
        ),
        "{err}"
    );
    assert!(err.contains("must be among the input items"), "{err}");
}

/// D28: revision 1, no match.
#[test]
fn d28_upstream_not_found_message() {
    let err = find_upstream(&up("up-repo", "up-pkg", "", 1), &[], "default").unwrap_err();
    assert!(
        err.starts_with("could not find upstream package revision 'up-pkg/1' in repo 'up-repo'"),
        "{err}"
    );
}

#[test]
fn upstream_first_match_in_item_order_and_namespace_only() {
    let mut other_ns = pr("r", "p", "", 1);
    other_ns["metadata"]["namespace"] = json!("other");
    let mut no_ns = pr("r", "p", "", 1);
    no_ns["metadata"]
        .as_object_mut()
        .map(|m| m.remove("namespace"));
    let items = [
        other_ns,
        pr("r", "x", "", 1),
        no_ns.clone(),
        pr("r", "p", "", 1),
    ];
    assert_eq!(
        find_upstream(&up("r", "p", "", 1), &from_json(&items), "default"),
        Ok(2)
    );
    assert_eq!(
        find_upstream(&up("r", "p", "", 1), &from_json(&items), "other"),
        Ok(0)
    );
}

fn obj(api_version: &str, kind: &str, name: &str, ns: Option<&str>, labels: Value) -> Value {
    let mut o = json!({"apiVersion": api_version, "kind": kind, "metadata": {"name": name, "labels": labels}});
    if let Some(ns) = ns {
        o["metadata"]["namespace"] = json!(ns);
    }
    o
}

type Unrolled = Vec<(String, String, Option<usize>)>;

fn unroll(spec: Value, items: &[Value]) -> Result<Unrolled, Vec<TargetError>> {
    let spec: PackageVariantSetSpec = decode(&spec, "spec").map_err(|e| {
        vec![TargetError {
            target: 0,
            field: e.path,
            message: e.message,
        }]
    })?;
    unroll_targets(&spec, "up", &from_json(items), "default").map(|v| {
        v.into_iter()
            .map(|c| (c.repo_default, c.package_default, c.object))
            .collect()
    })
}

/// Porch's TestUnrollDownstreamTargets.
#[test]
fn unroll_downstream_targets() {
    let items = [
        obj(
            REPOSITORY_API_VERSION,
            REPOSITORY_KIND,
            "my-pod-1",
            None,
            json!({"foo": "bar", "abc": "def"}),
        ),
        obj(
            REPOSITORY_API_VERSION,
            REPOSITORY_KIND,
            "my-pod-2",
            None,
            json!({"abc": "def", "efg": "hij"}),
        ),
    ];
    let got = unroll(
        json!({"targets": [
            {"repositories": [{"name": "r1", "packageNames": ["p1", "p2", "p3"]}, {"name": "r2"}]},
            {"repositorySelector": {}}]}),
        &items,
    );
    let s = |a: &str, b: &str, o: Option<usize>| (a.to_string(), b.to_string(), o);
    assert_eq!(
        got.unwrap_or_default(),
        vec![
            s("r1", "p1", None),
            s("r1", "p2", None),
            s("r1", "p3", None),
            s("r2", "up", None),
            s("my-pod-1", "up", Some(0)),
            s("my-pod-2", "up", Some(1))
        ]
    );
}

/// D21: objectSelector over ConfigMaps; only the set's namespace counts; names not checked.
#[test]
fn d21_object_selector() {
    let items = [
        obj(
            "v1",
            "ConfigMap",
            "cm-x",
            Some("default"),
            json!({"site": "a"}),
        ),
        obj(
            "v1",
            "ConfigMap",
            "cm-other-ns",
            Some("other"),
            json!({"site": "a"}),
        ),
        obj("v1", "Secret", "s", None, json!({"site": "a"})),
        obj("v1", "ConfigMap", "cm-b", None, json!({"site": "b"})),
        obj("v1", "ConfigMap", "cm-y", None, json!({"site": "a"})),
    ];
    let got = unroll(
        json!({"targets": [{"objectSelector": {"apiVersion": "v1", "kind": "ConfigMap", "name": "ignored", "matchLabels": {"site": "a"}}}]}),
        &items,
    );
    let names: Vec<String> = got
        .unwrap_or_default()
        .into_iter()
        .map(|c| format!("{}/{}", c.0, c.1))
        .collect();
    assert_eq!(names, ["cm-x/up", "cm-y/up"]);
}

#[test]
fn bad_selectors_are_target_errors() {
    let got = unroll(
        json!({"targets": [
            {"objectSelector": {"apiVersion": "v1", "kind": "X", "matchExpressions": [{"key": "a", "operator": "Foo"}]}},
            {"repositories": [{"name": "r"}]},
            {"repositorySelector": {"matchExpressions": [{"key": "a", "operator": "In"}]}}]}),
        &[],
    );
    let errs = got.unwrap_err();
    assert_eq!(errs.len(), 2);
    assert_eq!(errs[0].field, "spec.targets[0].objectSelector");
    assert_eq!(
        errs[0].message,
        r#""Foo" is not a valid label selector operator; the operators are "In", "NotIn", "Exists" or "DoesNotExist""#
    );
    assert_eq!(errs[1].field, "spec.targets[2].repositorySelector");
}

/// Objects of the kind that match nothing: no variant, as in Porch.
#[test]
fn empty_selection_is_not_an_error() {
    let items = [obj(
        REPOSITORY_API_VERSION,
        REPOSITORY_KIND,
        "r",
        None,
        json!({}),
    )];
    assert_eq!(
        unroll(
            json!({"targets": [{"repositorySelector": {"matchLabels": {"x": "y"}}}]}),
            &items
        ),
        Ok(vec![])
    );
}

/// No object of the kind at all (Porch: NoMatchingTargets): an error naming the kind and
/// the command that passes the objects.
#[test]
fn no_object_of_the_kind_is_an_error() {
    let items = [
        obj(
            "infra.nephio.org/v1alpha1",
            "WorkloadCluster",
            "c",
            Some("other"),
            json!({}),
        ),
        obj(
            REPOSITORY_API_VERSION,
            REPOSITORY_KIND,
            "r",
            None,
            json!({}),
        ),
    ];
    let errs = unroll(
        json!({"targets": [
            {"objectSelector": {"apiVersion": "infra.nephio.org/v1alpha1", "kind": "WorkloadCluster"}},
            {"repositorySelector": {}},
            {"objectSelector": {"apiVersion": "v1", "kind": "ConfigMap"}}]}),
        &items,
    )
    .unwrap_err();
    let got: Vec<_> = errs
        .iter()
        .map(|e| (e.field.as_str(), e.message.as_str()))
        .collect();
    assert_eq!(got.len(), 2);
    assert_eq!(got[0].0, "spec.targets[0].objectSelector");
    assert_eq!(
        got[0].1,
        r#"no matches for kind "WorkloadCluster" in version "infra.nephio.org/v1alpha1" among the input items in namespace "default" (Porch: NoMatchingTargets), so nothing is created, updated or deleted; pass the objects the selector chooses from with the other inputs: kubectl get workloadclusters.infra.nephio.org -n default -o yaml"#
    );
    assert_eq!(got[1].0, "spec.targets[2].objectSelector");
    assert!(got[1]
        .1
        .ends_with("kubectl get configmaps -n default -o yaml"));
}

#[test]
fn namespace_rules() {
    assert_eq!(effective_namespace(""), "default");
    assert_eq!(effective_namespace("ns"), "ns");
    let item = obj("v1", "ConfigMap", "a", None, json!({}));
    assert!(Item::Json(&item).is_kind_in_namespace("v1", "ConfigMap", "anything"));
    assert!(!Item::Json(&json!("scalar")).is_kind_in_namespace("v1", "ConfigMap", "default"));
}

#[test]
fn at_most_max_package_variants_per_set() {
    // Exactly the limit is fine; one more (from a selector over many items) is refused.
    let names: Vec<String> = (0..MAX_PACKAGE_VARIANTS - 1)
        .map(|i| format!("p{i}"))
        .collect();
    let items = [
        obj(
            "config.porch.kpt.dev/v1alpha1",
            "Repository",
            "a",
            None,
            json!({"x": "y"}),
        ),
        obj(
            "config.porch.kpt.dev/v1alpha1",
            "Repository",
            "b",
            None,
            json!({"x": "y"}),
        ),
    ];
    let ok = unroll(
        json!({"targets": [{"repositories": [{"name": "r", "packageNames": names}]},
            {"repositorySelector": {"matchLabels": {"x": "y"}}, "template": {}}]}),
        &items[..1],
    );
    assert_eq!(ok.map(|v| v.len()), Ok(MAX_PACKAGE_VARIANTS));
    let errs = unroll(
        json!({"targets": [{"repositories": [{"name": "r", "packageNames": names}]},
            {"repositorySelector": {"matchLabels": {"x": "y"}}}]}),
        &items,
    )
    .unwrap_err();
    assert_eq!(errs.len(), 1);
    assert_eq!(errs[0].field, "spec.targets[1]");
    assert!(
        errs[0].message.contains("more than 100000 PackageVariants"),
        "{}",
        errs[0].message
    );
}
