//! Hostile inputs of the PackageVariant's config injection and Kptfile conditions (issue 20):
//! many points, injectors and in-cluster objects; many readiness gates and conditions; many
//! unfilled required points; one wide source injected into many points. Each grows linearly
//! with `n`; `tests/limits.rs` runs them at a hostile size and checks the outcome,
//! `benches/hostile_values.rs` times them at 1x, 4x and 16x.
//!
//! Shared by the bench and the tests (`#[path]`), never part of the product.

#![allow(dead_code)]

use std::fmt::Write;

/// The head of a ResourceList: the root Kptfile with `kptfile_rest` lines after its metadata.
fn head(kptfile_rest: &str) -> String {
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
{kptfile_rest}"
    )
}

/// A PackageVariant functionConfig with `spec` lines (indented four spaces).
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

/// A required injection point: ConfigMap `name` in `points.yaml` at `index`.
fn point(s: &mut String, name: &str, index: usize) {
    let _ = write!(
        s,
        "- apiVersion: v1
  kind: ConfigMap
  metadata:
    name: {name}
    annotations:
      kpt.dev/config-injection: required
      config.kubernetes.io/path: points.yaml
      config.kubernetes.io/index: '{index}'
  data:
    k: old
"
    );
}

/// An in-cluster ConfigMap `name` (through stdin: no path) with `data` lines.
fn in_cluster(s: &mut String, name: &str, data: &str) {
    let _ = write!(
        s,
        "- apiVersion: v1
  kind: ConfigMap
  metadata:
    name: {name}
    annotations:
      config.porch.kpt.dev/in-cluster: \"true\"
  data:
{data}"
    );
}

/// `n` points, `n` injectors and `n` in-cluster ConfigMaps: the first `n - 1` injectors name
/// objects that do not exist, the objects are all of the points' type, and only the last
/// injector names one (`src`, the last object). Matching every injector against every
/// candidate for every point was n³ (2,000 of each: 29 s).
pub fn injection_matrix(n: usize) -> String {
    let mut s = head("");
    for i in 0..n {
        point(&mut s, &format!("p{i}"), i);
    }
    for i in 0..n.saturating_sub(1) {
        in_cluster(&mut s, &format!("cm{i}"), "    k: v\n");
    }
    in_cluster(&mut s, "src", "    k: injected\n");
    let mut spec = String::from("    injectors:\n");
    for i in 0..n.saturating_sub(1) {
        let _ = writeln!(spec, "    - name: miss{i}");
    }
    spec.push_str("    - name: src\n");
    s + &package_variant(&spec)
}

/// A Kptfile with `n` readiness gates and `n` conditions (in reverse order, all `False`) and no
/// injection points: the punch list looked each gate's condition up linearly (30,000 of each:
/// 13.7 s) and reported every gate.
pub fn gates_and_conditions(n: usize) -> String {
    let mut k = String::from("info:\n  readinessGates:\n");
    for i in 0..n {
        let _ = writeln!(k, "  - conditionType: gate.{i}");
    }
    k.push_str("status:\n  conditions:\n");
    for i in (0..n).rev() {
        let _ = writeln!(
            k,
            "  - type: gate.{i}\n    status: \"False\"\n    reason: Waiting\n    message: not yet"
        );
    }
    let k = k.lines().map(|l| format!("  {l}\n")).collect::<String>();
    head(&k) + &package_variant("")
}

/// `n` required points that no injector fills: a condition and a gate each (looked up
/// linearly per point: 20,000 took 12.5 s), a warning per point and an info per gate.
pub fn unfilled_points(n: usize) -> String {
    let mut s = head("");
    for i in 0..n {
        point(&mut s, &format!("p{i}"), i);
    }
    in_cluster(&mut s, "other", "    k: v\n");
    s + &package_variant("    injectors:\n    - name: absent\n")
}

/// Keys of the wide source of [`one_source_many_points`].
pub const WIDE_SOURCE_KEYS: usize = 5_000;

/// One in-cluster ConfigMap of `keys` keys injected into `n` points (each point held its own
/// copy: 1,000 points of 5,000 keys, 257 KB in, took 602 MB).
pub fn one_source_into(n: usize, keys: usize) -> String {
    let mut s = head("");
    for i in 0..n {
        point(&mut s, &format!("p{i}"), i);
    }
    let mut data = String::new();
    for i in 0..keys {
        let _ = writeln!(data, "    key{i:05}: v{i:05}");
    }
    in_cluster(&mut s, "src", &data);
    s + &package_variant("    injectors:\n    - name: src\n")
}

/// [`one_source_into`] `n` points with [`WIDE_SOURCE_KEYS`] keys.
pub fn one_source_many_points(n: usize) -> String {
    one_source_into(n, WIDE_SOURCE_KEYS)
}

/// A workload: its name, its generator, and the `n` of its 1x size.
pub type Workload = (&'static str, fn(usize) -> String, usize);

/// Every workload, at the sizes of issue 20.
pub const WORKLOADS: &[Workload] = &[
    ("points x injectors x in-cluster", injection_matrix, 2_000),
    ("gates and conditions", gates_and_conditions, 30_000),
    ("unfilled required points", unfilled_points, 20_000),
    (
        "one 5,000-key source into points",
        one_source_many_points,
        1_000,
    ),
];
