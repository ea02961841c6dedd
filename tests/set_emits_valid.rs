//! A PackageVariantSet never emits a variant the PackageVariant function refuses (issue 29):
//! every template, and every variant whose values come from CEL, is checked with the
//! PackageVariant function's own rules before anything is emitted, and refused on the set's
//! field. Through the binary; `tests/properties.rs` holds the property over generated
//! templates.

mod common;

use common::{resource_list, results_section, run, UPSTREAM_PR};

/// An extension set over the Repositories `edge-1` and `edge-2` with `template` (lines
/// indented by six spaces, under `template:`).
fn set(template: &str) -> String {
    format!(
        "apiVersion: fn.kpt.dev/v1alpha1
kind: PackageVariantSet
metadata:
  name: my-set
spec:
  upstream: {{repo: blueprints, package: base, revision: 1}}
  targets:
  - repositories:
    - name: edge-1
    - name: edge-2
    template:
{template}"
    )
}

fn go(template: &str) -> common::Run {
    let edge1 = common::repository("edge-1", "{env: prod}");
    let edge2 = common::repository("edge-2", "{env: prod}");
    run(&resource_list(
        &[UPSTREAM_PR, &edge1, &edge2],
        &set(template),
    ))
}

/// Exit 1, an error result with `message` (a part of it) at `field`, and no variant emitted.
fn assert_refused(template: &str, message: &str, field: &str) {
    let out = go(template);
    assert_eq!(out.code, 1, "{}", out.stdout);
    let results = results_section(&out.stdout).replace("''", "'");
    assert!(results.contains(message), "{message:?} not in\n{results}");
    assert!(
        results.contains(&format!("path: {field}\n"))
            || results.contains(&format!("path: '{field}'\n")),
        "{field} not in\n{results}"
    );
    assert!(
        !common::items_section(&out.stdout).contains("kind: PackageVariant\n"),
        "{}",
        out.stdout
    );
}

#[test]
fn one_point_bound_twice_is_refused() {
    assert_refused(
        "      injection:
      - {bindingPoint: app-config, directResource: {data: {a: '1'}}}
      - {bindingPoint: app-config, directResource: {data: {b: '2'}}}
",
        "binds injection point \"app-config\", which spec.injection[0] binds already",
        "spec.targets[0].template.injection[1].bindingPoint",
    );
}

#[test]
fn one_point_bound_twice_through_cel_is_refused() {
    // Only the rendered variant shows it: the expression gives the other entry's point.
    assert_refused(
        "      injection:
      - {bindingPoint: app-config, directResource: {data: {a: '1'}}}
      - {bindingPointExpr: \"'app-' + 'config'\", directResource: {data: {b: '2'}}}
",
        "the PackageVariant function would refuse variant \"my-set-edge-1-base\"",
        "spec.targets[0].template.injection[1].bindingPoint",
    );
}

#[test]
fn an_owned_direct_resource_without_identity_is_refused() {
    assert_refused(
        "      injection:
      - directResource: {data: {a: '1'}}
",
        "a directResource without bindingPoint is a whole resource",
        "spec.targets[0].template.injection[0].directResource.apiVersion",
    );
}

#[test]
fn a_negative_revision_is_refused() {
    assert_refused(
        "      injection:
      - bindingPoint: app-config
        packageResource: {repo: catalog, package: shared, name: cfg, revision: -1}
",
        "must not be negative",
        "spec.targets[0].template.injection[0].packageResource.revision",
    );
}

#[test]
fn data_and_spec_together_are_refused() {
    assert_refused(
        "      injection:
      - {bindingPoint: app-config, directResource: {data: {a: '1'}, spec: {b: 2}}}
",
        "gives both data and spec",
        "spec.targets[0].template.injection[0].directResource",
    );
    // The same through the expressions that fill them.
    assert_refused(
        "      injection:
      - bindingPoint: app-config
        dataExprs: [{key: a, valueExpr: repository.name}]
        specExprs: [{key: b, valueExpr: repository.name}]
",
        "gives both data and spec",
        "spec.targets[0].template.injection[0].directResource",
    );
}

#[test]
fn an_owned_package_resource_without_kind_is_refused() {
    assert_refused(
        "      injection:
      - packageResource: {repo: catalog, package: shared, name: cfg}
",
        "a packageResource without bindingPoint needs apiVersion and kind",
        "spec.targets[0].template.injection[0].packageResource",
    );
}

#[test]
fn a_valid_template_still_emits_its_variants() {
    let out = go("      injection:
      - {bindingPoint: app-config, directResource: {data: {a: '1'}}}
      - bindingPointExpr: \"'other'\"
        specExprs: [{key: region, valueExpr: repository.name}]
      - directResource: {apiVersion: v1, kind: ConfigMap, metadata: {name: extra}, data: {x: y}}
");
    assert_eq!(out.code, 0, "{}", out.stdout);
    assert_eq!(common::variants(&out.stdout).len(), 2, "{}", out.stdout);
}

/// The rules that came with the strict sources hold on the set's side too: a ConfigMap's
/// `data` holds strings only.
#[test]
fn non_string_config_map_data_is_refused() {
    assert_refused(
        "      injection:
      - {bindingPoint: app-config, directResource: {data: {replicas: 3}}}
",
        "holds strings only, and \"replicas\" is a number (3)",
        "spec.targets[0].template.injection[0].directResource.data.replicas",
    );
}

/// ... and the names of sources and owned resources are checked as the API server would.
#[test]
fn source_and_owned_names_the_api_server_refuses_are_refused() {
    assert_refused(
        "      injection:
      - {bindingPoint: app-config, clusterResource: {name: UPPER}}
",
        "\"UPPER\" is not a Kubernetes object name",
        "spec.targets[0].template.injection[0].clusterResource.name",
    );
    assert_refused(
        "      injection:
      - directResource: {apiVersion: v1, kind: ConfigMap, metadata: {name: x, namespace: ../../outside/pwned}}
",
        "\"../../outside/pwned\" is not a namespace",
        "spec.targets[0].template.injection[0].directResource.metadata.namespace",
    );
}
