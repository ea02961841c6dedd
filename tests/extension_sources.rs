//! The extension's injection sources (`packageResource`, `directResource`, `clusterResource`)
//! through the binary, as strict as Porch's `injectors` (issue 29): a source whose namespace
//! cannot be told is refused, an ambiguous package resource is named, cluster-scoped kinds are
//! injected, a ConfigMap's data holds strings only; and every path is bounded by the one output
//! rule (8 times the input plus 64 MiB), aliases counted by the bytes they expand to.

mod common;

#[path = "../benches/support/hostile_sources.rs"]
mod hostile_sources;

use common::{
    items_section, pvs_config, repository, resource_list, results_section, run, KPTFILE,
    UPSTREAM_PR,
};
use std::time::{Duration, Instant};

/// A required ConfigMap point `<name>` in `<name>.yaml`.
fn point(name: &str) -> String {
    format!(
        "apiVersion: v1
kind: ConfigMap
metadata:
  name: {name}
  annotations:
    kpt.dev/config-injection: required
    config.kubernetes.io/path: {name}.yaml
data:
  db: placeholder
"
    )
}

/// An extension PackageVariant `my-pv` in `namespace` with `spec` lines (indented by two).
fn pv(namespace: &str, spec: &str) -> String {
    format!(
        "apiVersion: fn.kpt.dev/v1alpha1
kind: PackageVariant
metadata:
  name: my-pv
  namespace: {namespace}
spec:
  upstream: {{repo: blueprints, package: base, revision: 1}}
  downstream: {{repo: deployments, package: base}}
{spec}"
    )
}

/// A PackageRevisionResources of shared/databases revision 3; `namespace_line` is its
/// `  namespace: x\n` (or empty), `files` its `resources` lines (indented by four).
fn package_revision(namespace_line: &str, files: &str) -> String {
    format!(
        "apiVersion: porch.kpt.dev/v1alpha1
kind: PackageRevisionResources
metadata:
  name: shared.databases.v3
{namespace_line}  annotations:
    config.porch.kpt.dev/in-cluster: \"true\"
spec:
  repository: shared
  packageName: databases
  revision: 3
  resources:
{files}"
    )
}

const ONE_DB: &str = "    dbs.yaml: |
      apiVersion: v1
      kind: ConfigMap
      metadata:
        name: us-east1
      data:
        primary: pg.us-east1
";

fn go(items: &[String], config: &str) -> common::Run {
    let items: Vec<&str> = items.iter().map(String::as_str).collect();
    run(&resource_list(&items, config))
}

/// Exit 1, the items as they came, and an error result containing every one of `needles`.
fn assert_refused(input_items: &[String], config: &str, out: &common::Run, needles: &[&str]) {
    assert_eq!(out.code, 1, "{}", out.stdout);
    let results = results_section(&out.stdout).replace("''", "'");
    assert!(results.contains("severity: error"), "{results}");
    for n in needles {
        assert!(results.contains(n), "{n:?} not in\n{results}");
    }
    let items: Vec<&str> = input_items.iter().map(String::as_str).collect();
    let input = resource_list(&items, config);
    assert_eq!(items_section(&out.stdout), items_section(&input));
}

const BOUND_TO_PACKAGE: &str = "  injection:
  - bindingPoint: db
    packageResource: {repo: shared, package: databases, revision: 3, name: us-east1}
";

// ------------------------------------------------------------------ namespaces

/// A PackageRevisionResources without a namespace may come from any namespace: refused for a
/// variant that names its own, as a `clusterResource` without one is; with the namespace it is
/// read.
#[test]
fn a_package_revision_without_namespace_is_refused_as_a_cluster_object_is() {
    let config = pv("team-a", BOUND_TO_PACKAGE);
    let items = vec![
        KPTFILE.to_string(),
        point("db"),
        package_revision("", ONE_DB),
    ];
    let out = go(&items, &config);
    assert_refused(
        &items,
        &config,
        &out,
        &[
            "PackageRevisionResources shared.databases.v3 of shared/databases has no namespace",
            "write metadata.namespace: \"team-a\"",
            "path: metadata.namespace",
        ],
    );
    // The same package revision in the variant's namespace is injected.
    let items = vec![
        KPTFILE.to_string(),
        point("db"),
        package_revision("  namespace: team-a\n", ONE_DB),
    ];
    let out = go(&items, &config);
    assert_eq!(out.code, 0, "{}", out.stdout);
    assert!(
        out.stdout.contains("primary: pg.us-east1"),
        "{}",
        out.stdout
    );
}

/// Built-in cluster-scoped kinds have no namespace: a `clusterResource` of such a point is
/// injected into a variant of `team-a` (the message no longer says `kubectl get -n team-a`
/// writes a namespace), and a missing one names the `kubectl get` without `-n`.
#[test]
fn cluster_scoped_kinds_are_injected_without_a_namespace() {
    for (api_version, kind, name) in [
        ("networking.k8s.io/v1", "IngressClass", "nginx"),
        ("storage.k8s.io/v1", "StorageClass", "fast"),
        ("rbac.authorization.k8s.io/v1", "ClusterRole", "reader"),
        ("scheduling.k8s.io/v1", "PriorityClass", "high"),
    ] {
        let point = format!(
            "apiVersion: {api_version}
kind: {kind}
metadata:
  name: class
  annotations:
    kpt.dev/config-injection: required
    config.kubernetes.io/path: class.yaml
spec:
  v: placeholder
"
        );
        let source = format!(
            "apiVersion: {api_version}
kind: {kind}
metadata:
  name: {name}
  annotations:
    config.porch.kpt.dev/in-cluster: \"true\"
spec:
  v: from-the-cluster
"
        );
        let config = pv(
            "team-a",
            &format!(
                "  injection:\n  - bindingPoint: class\n    clusterResource: {{name: {name}}}\n"
            ),
        );
        let out = go(&[KPTFILE.to_string(), point.clone(), source], &config);
        assert_eq!(out.code, 0, "{kind}: {}", out.stdout);
        assert!(
            out.stdout.contains("v: from-the-cluster"),
            "{kind}: {}",
            out.stdout
        );
        assert!(
            out.stdout
                .contains(&format!("kpt.dev/injected-resource: cluster:{kind}/{name}")),
            "{kind}: {}",
            out.stdout
        );
        // Missing: the kubectl that prints it has no -n.
        let out = go(&[KPTFILE.to_string(), point], &config);
        let lower = kind.to_lowercase();
        assert!(
            out.stdout
                .contains(&format!("(kubectl get {lower} {name} -o yaml)")),
            "{kind}: {}",
            out.stdout
        );
    }
}

/// Porch's `injectors` take the same rule: a cluster-scoped object is injected without one.
#[test]
fn injectors_inject_cluster_scoped_kinds_too() {
    let point = "apiVersion: storage.k8s.io/v1
kind: StorageClass
metadata:
  name: class
  annotations:
    kpt.dev/config-injection: required
    config.kubernetes.io/path: class.yaml
spec:
  v: placeholder
";
    let source = "apiVersion: storage.k8s.io/v1
kind: StorageClass
metadata:
  name: fast
  annotations:
    config.porch.kpt.dev/in-cluster: \"true\"
spec:
  v: from-the-cluster
";
    let config = pv("team-a", "  injectors:\n  - name: fast\n");
    let out = go(
        &[KPTFILE.to_string(), point.to_string(), source.to_string()],
        &config,
    );
    assert_eq!(out.code, 0, "{}", out.stdout);
    assert!(out.stdout.contains("v: from-the-cluster"), "{}", out.stdout);
}

// ------------------------------------------------------------------ ambiguity

/// Two resources of one apiVersion, kind and name in the other package (namespaces `prod` and
/// `dev`): an error naming both and how to pick one, for a bound point and an owned resource.
#[test]
fn two_package_resources_of_one_name_are_an_error_naming_both() {
    let files = "    prod.yaml: |
      apiVersion: v1
      kind: ConfigMap
      metadata:
        name: us-east1
        namespace: prod
      data:
        primary: pg.prod
    dev.yaml: |
      apiVersion: v1
      kind: ConfigMap
      metadata:
        name: us-east1
        namespace: dev
      data:
        primary: pg.dev
";
    let items = vec![
        KPTFILE.to_string(),
        point("db"),
        package_revision("  namespace: default\n", files),
    ];
    let owned = "  injection:
  - packageResource: {repo: shared, package: databases, revision: 3, apiVersion: v1, kind: ConfigMap, name: us-east1}
";
    for spec in [BOUND_TO_PACKAGE, owned] {
        let config = pv("default", spec);
        let out = go(&items, &config);
        assert_refused(
            &items,
            &config,
            &out,
            &[
                "package shared/databases revision 3 has 2 resources ConfigMap \"us-east1\"",
                "namespace \"dev\", in dev.yaml",
                "namespace \"prod\", in prod.yaml",
                "Pick one by giving it a name of its own in that package",
            ],
        );
    }
}

// ------------------------------------------------------------------ ConfigMap data

/// `data: {replicas: 3, canary: true, limits: {...}}` is an object the API server refuses:
/// each non-string value is an error on its field with the fix; `binaryData` likewise; for a
/// bound point and for an owned ConfigMap.
#[test]
fn a_direct_resource_of_non_string_data_is_refused_with_the_fix() {
    let items = vec![KPTFILE.to_string(), point("db")];
    let bound = "  injection:
  - bindingPoint: db
    directResource:
      data: {replicas: 3, canary: true, limits: {cpu: 1}, name: ok}
";
    let config = pv("default", bound);
    let out = go(&items, &config);
    assert_refused(
        &items,
        &config,
        &out,
        &[
            "ConfigMap data holds strings only, and \"replicas\" is a number (3)",
            "quote it: replicas: \"3\"",
            "path: spec.injection[0].directResource.data.replicas",
            "\"canary\" is a boolean (true)",
            "quote it: canary: \"true\"",
            "\"limits\" is a mapping",
            "path: spec.injection[0].directResource.data.limits",
        ],
    );
    assert!(!out.stdout.contains("data.name"), "{}", out.stdout);
    let owned = "  injection:
  - directResource:
      apiVersion: v1
      kind: ConfigMap
      metadata: {name: flags}
      binaryData: {blob: 12}
";
    let config = pv("default", owned);
    let out = go(&items, &config);
    assert_refused(
        &items,
        &config,
        &out,
        &[
            "ConfigMap binaryData holds strings only, and \"blob\" is a number (12)",
            "path: spec.injection[0].directResource.binaryData.blob",
        ],
    );
}

/// A package resource of non-string data cannot be applied either: refused on the item.
#[test]
fn a_package_resource_of_non_string_data_is_refused() {
    let files = "    dbs.yaml: |
      apiVersion: v1
      kind: ConfigMap
      metadata:
        name: us-east1
      data:
        replicas: 3
";
    let items = vec![
        KPTFILE.to_string(),
        point("db"),
        package_revision("  namespace: default\n", files),
    ];
    let config = pv("default", BOUND_TO_PACKAGE);
    let out = go(&items, &config);
    assert_refused(
        &items,
        &config,
        &out,
        &[
            "ConfigMap data \"replicas\" is a number (3)",
            "path: data.replicas",
        ],
    );
}

// ------------------------------------------------------------------ bounds

/// Well under the 2 s per 10 MB the rule allows a release build; a debug build is slower.
const QUICK: Duration = Duration::from_secs(30);

fn run_quick(input: &str) -> common::Run {
    let start = Instant::now();
    let out = run(input);
    assert!(start.elapsed() < QUICK, "took {:?}", start.elapsed());
    out
}

/// Exit 1, the items as they came, an error result with every one of `needles`.
fn assert_refused_input(input: &str, out: &common::Run, needles: &[&str]) {
    assert_eq!(out.code, 1, "stderr: {}", out.stderr);
    let results = results_section(&out.stdout).replace("''", "'");
    for n in needles {
        assert!(results.contains(n), "{n:?} not in\n{results}");
    }
    assert_eq!(items_section(&out.stdout), items_section(input));
}

/// One 200 KB in-cluster object bound to 400 points would write 80 MB from 0.4 MB: past the
/// output limit (8 x input + 64 MiB), refused with an error naming the limit and what to do.
/// The source is converted once, not once per point.
#[test]
fn one_cluster_object_bound_to_many_points_is_refused_past_the_output_limit() {
    let input = hostile_sources::cluster_source_into(400, 200);
    let out = run_quick(&input);
    assert_refused_input(
        &input,
        &out,
        &[
            "spec.injection, at injection point ConfigMap/p",
            "would write more than the output limit of",
            "(8 times the input's",
            "inject a large value into fewer points",
        ],
    );
    // Within the limit, every point gets the value.
    let input = hostile_sources::cluster_source_into(100, 200);
    let out = run_quick(&input);
    assert_eq!(out.code, 0, "{}", results_section(&out.stdout));
    assert_eq!(
        out.stdout
            .matches("kpt.dev/injected-resource: cluster:ConfigMap/src")
            .count(),
        100
    );
}

/// The same through a `packageResource`: the resource is read once and shared.
#[test]
fn one_package_resource_bound_to_many_points_is_refused_past_the_output_limit() {
    let input = hostile_sources::package_source_into(400, 200);
    let out = run_quick(&input);
    assert_refused_input(&input, &out, &["would write more than the output limit of"]);
}

/// A 1 MB value anchored once and aliased 100 times is 100 values but 100 MB: aliases are
/// counted by the bytes they expand to (64 MiB at most), in a `directResource`, in
/// `packageContext.data` and in a set's template.
#[test]
fn aliases_are_counted_by_the_bytes_they_expand_to() {
    for input in [
        hostile_sources::aliased_direct_resource(100),
        hostile_sources::aliased_context(100),
        hostile_sources::aliased_set_template(100),
    ] {
        let out = run_quick(&input);
        assert_refused_input(
            &input,
            &out,
            &["YAML aliases expand to more than 67108864 bytes (64 MiB) of text"],
        );
    }
    // A few aliases of it are fine.
    let out = run_quick(&hostile_sources::aliased_direct_resource(3));
    assert_eq!(out.code, 0, "{}", results_section(&out.stdout));
}

/// The writer enforces the output limit on every path, including those without a check of
/// their own: a set whose template carries a 100 KB annotation, for 1,000 Repositories chosen
/// by a selector, would write 100 MB from 0.2 MB. Nothing is written but the items as they
/// came and the error.
#[test]
fn the_writer_refuses_an_output_past_the_limit() {
    let mut items = vec![UPSTREAM_PR.to_string()];
    items.extend((0..1000).map(|i| repository(&format!("edge{i}"), "{env: prod}")));
    let config = pvs_config(&format!(
        "  targets:
  - repositorySelector: {{matchLabels: {{env: prod}}}}
    template:
      annotations:
        big: {}
",
        "x".repeat(100_000)
    ));
    let items: Vec<&str> = items.iter().map(String::as_str).collect();
    let input = resource_list(&items, &config);
    let out = run_quick(&input);
    assert_refused_input(
        &input,
        &out,
        &[
            "the output ResourceList would write more than the output limit of",
            "nothing was written",
        ],
    );
    assert!(out.stdout.len() < 2 * input.len());
}
