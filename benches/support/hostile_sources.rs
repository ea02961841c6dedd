//! Hostile inputs of the extension's injection sources (issue 29): one large source bound to
//! many points (an in-cluster object, a package resource), and one large value anchored once
//! and aliased many times (a `directResource`, `packageContext.data`, a set template). Each
//! grows linearly with `n`; `tests/extension_sources.rs` runs them at sizes that stay quick in
//! a debug build, `benches/hostile_values.rs` times them at 1x, 4x and 16x.
//!
//! Shared by the bench and the tests (`#[path]`), never part of the product.

#![allow(dead_code)]

use std::fmt::Write;

/// `n` required ConfigMap points `p0..` in `points.yaml`, after a root Kptfile.
fn head_and_points(n: usize) -> String {
    let mut s = String::from(
        "apiVersion: config.kubernetes.io/v1
kind: ResourceList
items:
- apiVersion: kpt.dev/v1
  kind: Kptfile
  metadata:
    name: pkg
    annotations:
      config.kubernetes.io/path: Kptfile
",
    );
    for i in 0..n {
        let _ = write!(
            s,
            "- apiVersion: v1
  kind: ConfigMap
  metadata:
    name: p{i}
    annotations:
      kpt.dev/config-injection: required
      config.kubernetes.io/path: points.yaml
      config.kubernetes.io/index: '{i}'
  data:
    v: placeholder
"
        );
    }
    s
}

/// `keys` lines `k<j>: <value of `width` bytes>` at `indent`.
fn wide_data(keys: usize, width: usize, indent: &str) -> String {
    let value = "x".repeat(width);
    let mut s = String::new();
    for j in 0..keys {
        let _ = writeln!(s, "{indent}k{j}: {value}");
    }
    s
}

/// An extension PackageVariant in namespace `default` with `spec` lines (indented four).
fn variant(spec: &str) -> String {
    format!(
        "functionConfig:
  apiVersion: fn.kpt.dev/v1alpha1
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

/// `n` points, each bound to `source` (an entry's source line, e.g. `clusterResource:
/// {name: src}`).
fn entries(n: usize, source: &str) -> String {
    let mut s = String::from("    injection:\n");
    for i in 0..n {
        let _ = writeln!(s, "    - bindingPoint: p{i}\n      {source}");
    }
    s
}

/// One in-cluster ConfigMap of `keys` 1 KB values bound by `spec.injection` to `n` points.
pub fn cluster_source_into(n: usize, keys: usize) -> String {
    head_and_points(n)
        + &format!(
            "- apiVersion: v1
  kind: ConfigMap
  metadata:
    name: src
    namespace: default
    annotations:
      config.porch.kpt.dev/in-cluster: \"true\"
  data:
{}",
            wide_data(keys, 1000, "    ")
        )
        + &variant(&entries(n, "clusterResource: {name: src}"))
}

/// One package resource (a ConfigMap of `keys` 1 KB values in a PackageRevisionResources)
/// bound by `spec.injection` to `n` points.
pub fn package_source_into(n: usize, keys: usize) -> String {
    head_and_points(n)
        + &format!(
            "- apiVersion: porch.kpt.dev/v1alpha1
  kind: PackageRevisionResources
  metadata:
    name: shared.db.v1
    namespace: default
    annotations:
      config.porch.kpt.dev/in-cluster: \"true\"
  spec:
    repository: shared
    packageName: db
    revision: 1
    resources:
      db.yaml: |
        apiVersion: v1
        kind: ConfigMap
        metadata:
          name: src
        data:
{}",
            wide_data(keys, 1000, "          ")
        )
        + &variant(&entries(
            n,
            "packageResource: {repo: shared, package: db, revision: 1, name: src}",
        ))
}

/// A value of `bytes` bytes anchored once (`&big`) and aliased `n` times, as the lines of a
/// map at `indent`.
fn aliased(n: usize, bytes: usize, indent: &str) -> String {
    let mut s = format!("{indent}k0: &big {}\n", "x".repeat(bytes));
    for j in 1..=n {
        let _ = writeln!(s, "{indent}k{j}: *big");
    }
    s
}

/// A `directResource` whose `data` holds a 1 MB value aliased `n` times.
pub fn aliased_direct_resource(n: usize) -> String {
    head_and_points(1)
        + &variant(&format!(
            "    injection:\n    - bindingPoint: p0\n      directResource:\n        data:\n{}",
            aliased(n, 1 << 20, "          ")
        ))
}

/// A `packageContext.data` holding a 1 MB value aliased `n` times.
pub fn aliased_context(n: usize) -> String {
    head_and_points(0)
        + "- apiVersion: v1
  kind: ConfigMap
  metadata:
    name: kptfile.kpt.dev
    annotations:
      config.kubernetes.io/local-config: \"true\"
      config.kubernetes.io/path: package-context.yaml
  data:
    name: pkg
" + &variant(&format!(
        "    packageContext:\n      data:\n{}",
        aliased(n, 1 << 20, "        ")
    ))
}

/// A PackageVariantSet whose template's annotations hold a 1 MB value aliased `n` times.
pub fn aliased_set_template(n: usize) -> String {
    format!(
        "apiVersion: config.kubernetes.io/v1
kind: ResourceList
items:
- apiVersion: porch.kpt.dev/v1alpha1
  kind: PackageRevision
  metadata:
    name: blueprints.base.v1
    namespace: default
  spec: {{repository: blueprints, packageName: base, revision: 1, lifecycle: Published}}
- apiVersion: config.porch.kpt.dev/v1alpha1
  kind: Repository
  metadata:
    name: edge
    namespace: default
  spec: {{type: git}}
functionConfig:
  apiVersion: config.porch.kpt.dev/v1alpha2
  kind: PackageVariantSet
  metadata:
    name: my-set
    namespace: default
  spec:
    upstream: {{repo: blueprints, package: base, revision: 1}}
    targets:
    - repositories: [{{name: edge}}]
      template:
        annotations:
{}",
        aliased(n, 1 << 20, "          ")
    )
}

/// A workload: its name, its generator, and the `n` of its 1x size.
pub type Workload = (&'static str, fn(usize) -> String, usize);

/// Every workload: 1x is the shape or a quarter of it.
pub const WORKLOADS: &[Workload] = &[
    (
        "one 1 MB cluster object into bound points",
        |n| cluster_source_into(n, 1000),
        250,
    ),
    (
        "one 1 MB package resource into bound points",
        |n| package_source_into(n, 1000),
        250,
    ),
    (
        "1 MB directResource value aliased",
        aliased_direct_resource,
        250,
    ),
    ("1 MB packageContext value aliased", aliased_context, 250),
    ("1 MB set template value aliased", aliased_set_template, 250),
];
