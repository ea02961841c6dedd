//! A failed lookup says what near match the input holds, as kubectl and cargo do: an injector
//! or a `clusterResource` whose name is one typo from an in-cluster object's gets "did you
//! mean", and an object an injector names that lives in another namespace is named with the
//! command that passes the right one.

mod common;

use common::{resource_list, results_section, run, KPTFILE};

/// The required injection point `ConfigMap/endpoints`.
const POINT: &str = "apiVersion: v1
kind: ConfigMap
metadata:
  name: endpoints
  annotations:
    kpt.dev/config-injection: required
    config.kubernetes.io/path: endpoints.yaml
data:
  db: placeholder
";

/// An in-cluster ConfigMap `name` of namespace `ns`.
fn in_cluster(name: &str, ns: &str) -> String {
    common::in_cluster_config_map(name, ns, name)
}

/// A PackageVariant of `api_version` in namespace `default` with `spec` appended.
fn pv(api_version: &str, spec: &str) -> String {
    format!(
        "apiVersion: {api_version}
kind: PackageVariant
metadata:
  name: my-pv
  namespace: default
spec:
  upstream: {{repo: blueprints, package: base, revision: 1}}
  downstream: {{repo: deployments, package: base}}
{spec}"
    )
}

/// The one message of the results that contains `part`.
fn message_with(out: &str, part: &str) -> String {
    let found: Vec<&str> = results_section(out)
        .split("\n- message: ")
        .filter(|m| m.contains(part))
        .collect();
    assert_eq!(found.len(), 1, "{part:?} in\n{out}");
    found[0].to_string()
}

#[test]
fn an_injector_one_typo_from_an_in_cluster_object_gets_did_you_mean() {
    let objects = [
        in_cluster("prod-db", "default"),
        in_cluster("staging", "default"),
    ];
    let items = [KPTFILE, POINT, &objects[0], &objects[1]];
    let config = pv(
        "config.porch.kpt.dev/v1alpha1",
        "  injectors:\n  - name: prod-dbb\n",
    );
    let out = run(&resource_list(&items, &config));
    assert_eq!(out.code, 0, "{}", out.stderr);
    let m = message_with(&out.stdout, "ConfigMap/endpoints not filled");
    assert!(
        m.contains(
            r#"spec.injectors[0] names "prod-dbb", and no in-cluster ConfigMap of that name is in namespace "default"; did you mean "prod-db"?"#
        ),
        "{m}"
    );
    assert!(m.contains("severity: warning"), "{m}");

    // A name close to none gets no guess.
    let config = pv(
        "config.porch.kpt.dev/v1alpha1",
        "  injectors:\n  - name: frobnicate\n",
    );
    let out = run(&resource_list(&items, &config));
    let m = message_with(&out.stdout, "ConfigMap/endpoints not filled");
    assert!(!m.contains("did you mean"), "{m}");
}

#[test]
fn an_injected_name_in_another_namespace_is_named_with_the_command_that_passes_it() {
    let objects = [in_cluster("prod-db", "platform")];
    let items = [KPTFILE, POINT, &objects[0]];
    let config = pv(
        "config.porch.kpt.dev/v1alpha1",
        "  injectors:\n  - name: prod-db\n",
    );
    let out = run(&resource_list(&items, &config));
    assert_eq!(out.code, 0, "{}", out.stderr);
    let m = message_with(&out.stdout, "ConfigMap/endpoints not filled");
    assert!(
        m.contains("in-cluster ConfigMap/prod-db (ConfigMap/prod-db) is in namespace \"platform\", not the PackageVariant''s namespace \"default\": only objects of its namespace are injected; pass the object of namespace \"default\" (kubectl get configmap prod-db -n default -o yaml)"),
        "{m}"
    );
}

#[test]
fn a_cluster_resource_one_typo_from_an_in_cluster_object_gets_did_you_mean() {
    let objects = [in_cluster("prod-db", "default")];
    let items = [KPTFILE, POINT, &objects[0]];
    let config = pv(
        "fn.kpt.dev/v1alpha1",
        "  injection:\n  - bindingPoint: endpoints\n    clusterResource: {name: prod-dbb}\n",
    );
    let out = run(&resource_list(&items, &config));
    assert_eq!(out.code, 0, "{}", out.stderr);
    let m = message_with(&out.stdout, "ConfigMap/endpoints not filled");
    assert!(
        m.contains("no in-cluster ConfigMap \"prod-dbb\" in namespace \"default\" (did you mean \"prod-db\"?): pass it as an item"),
        "{m}"
    );
}

/// 4,000 injectors, each one typo from one of 4,000 in-cluster objects of the point's type: the
/// guesses stop at a fixed amount of work (the first few injectors get theirs), and a point's
/// result lists at most ten hints.
#[test]
fn near_names_among_4000_injectors_and_objects_cost_bounded_work() {
    let n = 4_000;
    let objects: Vec<String> = (0..n)
        .map(|i| in_cluster(&format!("database-{i:05}"), "default"))
        .collect();
    let mut items = vec![KPTFILE, POINT];
    items.extend(objects.iter().map(String::as_str));
    let injectors: String = (0..n)
        .map(|i| format!("  - name: database-{i:05}x\n"))
        .collect();
    let config = pv(
        "config.porch.kpt.dev/v1alpha1",
        &format!("  injectors:\n{injectors}"),
    );
    let start = std::time::Instant::now();
    let out = run(&resource_list(&items, &config));
    let took = start.elapsed();
    assert_eq!(out.code, 0, "{}", out.stderr);
    assert!(took < std::time::Duration::from_secs(20), "took {took:?}");
    let m = message_with(&out.stdout, "ConfigMap/endpoints not filled");
    let guesses = m.matches("did you mean").count();
    assert!((1..=10).contains(&guesses), "{guesses} guesses: {m}");
    assert!(m.contains(r#"names "database-00000x""#), "{m}");
}

/// A PackageVariant that writes no namespace reads `default`; its cluster object in `shops`
/// most likely means the variant's namespace is missing, and the hint says that first (both
/// apiVersions; an injector's warning and a `clusterResource`'s error alike).
#[test]
fn a_variant_without_a_namespace_is_told_to_set_the_one_its_object_is_in() {
    let objects = [in_cluster("prod-db", "shops")];
    let items = [KPTFILE, POINT, &objects[0]];
    let fix = "set metadata.namespace: shops on the PackageVariant if that is where it belongs (it names no namespace, so it reads \"default\"), or pass the object of namespace \"default\"";
    for api_version in ["config.porch.kpt.dev/v1alpha1", "fn.kpt.dev/v1alpha1"] {
        let config = pv(api_version, "  injectors:\n  - name: prod-db\n")
            .replace("  namespace: default\n", "");
        let out = run(&resource_list(&items, &config));
        assert_eq!(out.code, 0, "{}", out.stderr);
        let m = message_with(&out.stdout, "ConfigMap/endpoints not filled");
        assert!(
            m.contains(&format!("namespace \"shops\", not the PackageVariant''s namespace \"default\": only objects of its namespace are injected; {fix} (kubectl get configmap prod-db -n default -o yaml)")),
            "{api_version}: {m}"
        );
    }
    let config = pv(
        "fn.kpt.dev/v1alpha1",
        "  injection:\n  - bindingPoint: endpoints\n    clusterResource: {name: prod-db}\n",
    )
    .replace("  namespace: default\n", "");
    let out = run(&resource_list(&items, &config));
    assert_eq!(out.code, 1, "{}", out.stderr);
    assert!(out.stderr.contains(fix), "{}", out.stderr);

    // A variant that writes its namespace was meant to be there: only the object is named.
    let config = pv(
        "config.porch.kpt.dev/v1alpha1",
        "  injectors:\n  - name: prod-db\n",
    );
    let out = run(&resource_list(&items, &config));
    let m = message_with(&out.stdout, "ConfigMap/endpoints not filled");
    assert!(!m.contains("set metadata.namespace"), "{m}");
}
