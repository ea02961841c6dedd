//! Hostile inputs for the values half of the YAML layer: merge keys, wide package
//! contexts, long removeKeys lists, wide injections, aliases written out after an edit. Each
//! grows linearly with `n`; `tests/limits.rs` runs them at a hostile size and checks the
//! outcome, `benches/hostile_values.rs` times them at 1x, 4x and 16x.
//!
//! Shared by the bench and the tests (`#[path]`), never part of the product.

#![allow(dead_code)]

use std::fmt::Write;

/// The root Kptfile and the package context (with `context` lines of `data`).
fn package(context: &str) -> String {
    format!(
        "apiVersion: config.kubernetes.io/v1
kind: ResourceList
items:
- apiVersion: kpt.dev/v1
  kind: Kptfile
  metadata:
    name: pkg
    annotations:
      config.kubernetes.io/path: Kptfile
- apiVersion: v1
  kind: ConfigMap
  metadata:
    name: kptfile.kpt.dev
    annotations:
      config.kubernetes.io/path: package-context.yaml
  data:
    name: pkg
{context}"
    )
}

/// A PackageVariant functionConfig with `spec` lines (indented four spaces) after its
/// upstream and downstream.
fn package_variant(spec: &str) -> String {
    format!(
        "functionConfig:
  apiVersion: config.porch.kpt.dev/v1alpha1
  kind: PackageVariant
  metadata:
    name: my-pv
  spec:
    upstream: {{repo: blueprints, package: base, revision: 1}}
    downstream: {{repo: deployments, package: base}}
{spec}"
    )
}

/// An injection point `endpoints` whose data is `data` lines, and an in-cluster ConfigMap `src`
/// with `before` lines (anchors) and `data` lines.
fn point_and_source(point_data: &str, before: &str, source_data: &str) -> String {
    format!(
        "- apiVersion: v1
  kind: ConfigMap
  metadata:
    name: endpoints
    annotations:
      kpt.dev/config-injection: required
      config.kubernetes.io/path: endpoints.yaml
  data:
{point_data}- apiVersion: v1
  kind: ConfigMap
  metadata:
    name: src
    annotations:
      config.porch.kpt.dev/in-cluster: \"true\"
{before}  data:
{source_data}"
    )
}

fn lines(n: usize, f: impl Fn(usize) -> String) -> String {
    let mut s = String::new();
    for i in 0..n {
        s.push_str(&f(i));
    }
    s
}

/// An in-cluster object whose data merges a mapping of `n` keys (`<<: *base`) and sets every
/// other one itself; injected. The point ends with `n` keys: `k<odd>: v`, `k<even>: own`.
/// (Past 100,000 merged values the object is not injected: the alias expansion limit.)
pub fn merge_keys(n: usize) -> String {
    let base = lines(n, |i| format!("    k{i}: v\n"));
    let own = lines(n.div_ceil(2), |i| format!("    k{}: own\n", 2 * i));
    package("")
        + &point_and_source(
            "    db: placeholder\n",
            &format!("  x: &base\n{base}"),
            &format!("    <<: *base\n{own}"),
        )
        + &package_variant("    injectors:\n    - name: src\n")
}

/// A PackageVariantSet over `n` Repositories whose labels merge an anchored mapping
/// (`labels: {<<: *common, site: sN}`): every one is read through its merge key and selected.
pub fn merged_labels(n: usize) -> String {
    let mut s = String::from(
        "apiVersion: config.kubernetes.io/v1
kind: ResourceList
items:
- apiVersion: porch.kpt.dev/v1alpha1
  kind: PackageRevision
  metadata:
    name: blueprints.base.v1
  spec:
    repository: blueprints
    packageName: base
    revision: 1
",
    );
    for i in 0..n {
        let _ = write!(
            s,
            "- apiVersion: config.porch.kpt.dev/v1alpha1
  kind: Repository
  x: &common {{env: prod, tier: web, region: us-east}}
  metadata:
    name: edge{i}
    labels: {{<<: *common, site: s{i}}}
  spec:
    type: git
"
        );
    }
    s.push_str(
        "functionConfig:
  apiVersion: config.porch.kpt.dev/v1alpha2
  kind: PackageVariantSet
  metadata:
    name: my-set
  spec:
    upstream: {repo: blueprints, package: base, revision: 1}
    targets:
    - repositorySelector: {matchLabels: {env: prod, tier: web}}
",
    );
    s
}

/// A package context of `n` keys; the PackageVariant sets `n` new keys, changes every other
/// existing one and removes every fourth.
pub fn context(n: usize) -> String {
    let existing = lines(n, |i| format!("    k{i}: v\n"));
    let mut spec = String::from("    packageContext:\n      data:\n");
    for i in 0..n {
        let _ = writeln!(spec, "        new{i}: x");
        if i % 2 == 0 {
            let _ = writeln!(spec, "        k{i}: changed");
        }
    }
    spec.push_str("      removeKeys:\n");
    for i in (0..n).step_by(4) {
        let _ = writeln!(spec, "      - k{i}");
    }
    package(&existing) + &package_variant(&spec)
}

/// `n` removeKeys, one in ten of them present in a context of `n / 10` keys.
pub fn remove_keys(n: usize) -> String {
    let existing = lines(n / 10, |i| format!("    k{}: v\n", i * 10));
    let mut spec = String::from("    packageContext:\n      removeKeys:\n");
    for i in 0..n {
        let _ = writeln!(spec, "      - k{i}");
    }
    package(&existing) + &package_variant(&spec)
}

/// A point with `n` keys and a list of `n` items, filled from an in-cluster object with the
/// same keys (new values, reverse order) and the same items in reverse order.
pub fn inject_wide(n: usize) -> String {
    let old = lines(n, |i| format!("    k{i}: old\n"));
    let new = lines(n, |i| format!("    k{}: new\n", n - 1 - i));
    let list = |rev: bool| {
        lines(n, |i| {
            format!("    - {{a: {}}}\n", if rev { n - 1 - i } else { i })
        })
    };
    package("")
        + &point_and_source(&old, "", &new)
        + &format!(
            "- apiVersion: example.com/v1
  kind: Team
  metadata:
    name: team
    annotations:
      kpt.dev/config-injection: required
      config.kubernetes.io/path: team.yaml
  spec:
    list:
{}- apiVersion: example.com/v1
  kind: Team
  metadata:
    name: src
    annotations:
      config.porch.kpt.dev/in-cluster: \"true\"
  spec:
    list:
{}",
            list(false),
            list(true)
        )
        + &package_variant("    injectors:\n    - name: src\n")
}

/// A point whose anchored value (`db: &d placeholder`) is named by `n` aliases after it:
/// injection replaces it, and every alias is written out as the old value. (Past 100,000
/// aliases, writing them out is refused: the alias expansion limit.)
pub fn aliases_written_out(n: usize) -> String {
    let point = format!(
        "- apiVersion: v1
  kind: ConfigMap
  metadata:
    name: endpoints
    annotations:
      kpt.dev/config-injection: required
      config.kubernetes.io/path: endpoints.yaml
  data:
    db: &d placeholder
  copies:
{}",
        lines(n, |i| format!("    c{i}: *d\n"))
    );
    package("")
        + &point
        + "- apiVersion: v1
  kind: ConfigMap
  metadata:
    name: src
    annotations:
      config.porch.kpt.dev/in-cluster: \"true\"
  data:
    db: db.example.com
" + &package_variant("    injectors:\n    - name: src\n")
}

/// `n` injection points of one kind bound by the extension's `spec.injection` (issue 22), each
/// from its own source: a third from in-cluster ConfigMaps, a third inline, a third from one
/// package revision holding a resource for each (its PackageRevisionResources and the Published
/// PackageRevision it floats to).
pub fn bound_points(n: usize) -> String {
    let points = lines(n, |i| {
        format!(
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
        )
    });
    let cluster = lines(n, |i| {
        if i % 3 != 0 {
            return String::new();
        }
        format!(
            "- apiVersion: v1
  kind: ConfigMap
  metadata:
    name: c{i}
    namespace: default
    annotations:
      config.porch.kpt.dev/in-cluster: \"true\"
  data:
    v: cluster-{i}
"
        )
    });
    let files = lines(n, |i| {
        if i % 3 != 2 {
            return String::new();
        }
        format!(
            "        ---\n        apiVersion: v1\n        kind: ConfigMap\n        metadata:\n          name: r{i}\n        data:\n          v: package-{i}\n"
        )
    });
    let revision = format!(
        "- apiVersion: porch.kpt.dev/v1alpha1
  kind: PackageRevision
  metadata:
    name: shared.db.v1
    namespace: default
    annotations:
      config.porch.kpt.dev/in-cluster: \"true\"
  spec: {{repository: shared, packageName: db, revision: 1, lifecycle: Published}}
- apiVersion: porch.kpt.dev/v1alpha1
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
      all.yaml: |
{files}"
    );
    let entries = lines(n, |i| {
        match i % 3 {
        0 => format!("    - bindingPoint: p{i}\n      clusterResource: {{name: c{i}}}\n"),
        1 => format!("    - bindingPoint: p{i}\n      directResource: {{data: {{v: inline-{i}}}}}\n"),
        _ => format!(
            "    - bindingPoint: p{i}\n      packageResource: {{repo: shared, package: db, name: r{i}}}\n"
        ),
    }
    });
    package("")
        + &points
        + &cluster
        + &revision
        + &package_variant(&format!("    injection:\n{entries}"))
            .replace("config.porch.kpt.dev/v1alpha1", "fn.kpt.dev/v1alpha1")
}

/// A workload: its name, its generator, and the `n` of its 1x size.
pub type Workload = (&'static str, fn(usize) -> String, usize);

/// Every workload.
pub const WORKLOADS: &[Workload] = &[
    ("merge keys in one object", merge_keys, 2_500),
    ("merge keys in many objects", merged_labels, 5_000),
    ("wide context", context, 20_000),
    ("removeKeys", remove_keys, 60_000),
    ("wide injection", inject_wide, 20_000),
    ("aliases written out", aliases_written_out, 5_000),
    ("bound points", bound_points, 1_000),
];
