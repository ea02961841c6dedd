//! Hostile inputs for the CEL of PackageVariantSet templates (issue 20): small sets whose
//! expressions cost far more than their size (distinct large regular expressions, values
//! copied into every variant). Each grows linearly with `n`; `tests/limits.rs` runs them at
//! 1x, 4x and 16x and checks the refusal and the memory, `benches/hostile_cel.rs` times them.
//!
//! Shared by the bench and the tests (`#[path]`), never part of the product.

#![allow(dead_code)]

use std::fmt::Write;

/// A pattern of about 13 bytes whose compiled program takes the largest program size class
/// (1 MiB) and is within RE2's own limits (a count of at most 1000: cel-go takes it):
/// `[^a]{1,1000}` then `b{i}`, distinct per `i`.
pub fn large_pattern(i: usize) -> String {
    format!("[^a]{{1,1000}}b{i}")
}

fn list(repositories: &str, template: &str) -> String {
    list_with(
        repositories,
        "repositorySelector: {matchLabels: {env: prod}}",
        template,
    )
}

/// A set over `items` with one target (`selector`, e.g. `repositorySelector: {...}`) and its
/// `template` (lines indented by eight spaces).
fn list_with(items: &str, selector: &str, template: &str) -> String {
    format!(
        "apiVersion: config.kubernetes.io/v1
kind: ResourceList
items:
{items}functionConfig:
  apiVersion: config.porch.kpt.dev/v1alpha2
  kind: PackageVariantSet
  metadata: {{name: s, namespace: default}}
  spec:
    upstream: {{repo: up-repo, package: up-pkg, revision: 1}}
    targets:
    - {selector}
      template:
{template}"
    )
}

fn upstream(annotations: &str) -> String {
    format!(
        "- apiVersion: porch.kpt.dev/v1alpha1
  kind: PackageRevision
  metadata:
    name: up
    namespace: default{annotations}
  spec: {{repository: up-repo, packageName: up-pkg, workspaceName: v1, revision: 1, lifecycle: Published}}
"
    )
}

/// `n` Repositories `edge{i}` labelled `env: prod` and `extra(i)`.
fn repositories(n: usize, extra: impl Fn(usize) -> String) -> String {
    let mut s = String::new();
    for i in 0..n {
        let _ = writeln!(
            s,
            "- apiVersion: config.porch.kpt.dev/v1alpha1
  kind: Repository
  metadata: {{name: edge{i}, namespace: default, labels: {{env: prod{}}}}}",
            extra(i)
        );
    }
    s
}

/// `n` targets, each matching its name against its own large pattern (a label): every
/// pattern is compiled, and was kept, once per target (1,000: 1.18 GB and 8 s).
pub fn distinct_patterns(n: usize) -> String {
    let repos = repositories(n, |i| format!(", p: '{}'", large_pattern(i)));
    list(
        &(upstream("") + &repos),
        "        labelExprs: [{key: m, valueExpr: \"target.name.matches(target.labels['p']) ? 'y' : 'n'\"}]\n",
    )
}

/// One target with `n` expressions, each with its own large literal pattern: every one is
/// compiled when the set is checked (300: 16.7 s and 680 MB).
pub fn literal_patterns(n: usize) -> String {
    let mut exprs = String::new();
    for i in 0..n {
        let _ = writeln!(
            exprs,
            "        - {{key: k{i}, valueExpr: \"target.name.matches('{}') ? 'y' : 'n'\"}}",
            large_pattern(i)
        );
    }
    list(
        &(upstream("") + &repositories(1, |_| String::new())),
        &format!("        labelExprs:\n{exprs}"),
    )
}

/// `n` targets, each copying the upstream's 100 KB annotation into its variant's package
/// context (2,000: 0.36 MB in, 201 MB out, 257 MB peak).
pub fn copied_value(n: usize) -> String {
    let big = format!("\n    annotations: {{big: {}}}", "x".repeat(100_000));
    list(
        &(upstream(&big) + &repositories(n, |_| String::new())),
        "        packageContext:\n          dataExprs: [{key: blob, valueExpr: \"upstream.annotations['big']\"}]\n",
    )
}

/// One target with `n` distinct expressions of about 100 bytes: each was parsed and checked
/// (4,800 short ones: 15 s on a loaded machine); compiling now costs from the run's budget,
/// which stops the run after about 800 of these.
pub fn distinct_expressions(n: usize) -> String {
    let mut exprs = String::new();
    let pad = "x".repeat(60);
    for i in 0..n {
        let _ = writeln!(
            exprs,
            "        - {{key: k{i}, valueExpr: \"target.name + '-{i}-{pad}'\"}}"
        );
    }
    list(
        &(upstream("") + &repositories(1, |_| String::new())),
        &format!("        labelExprs:\n{exprs}"),
    )
}

/// `n` targets, each copying the template's static 100 KB context value into its variant
/// (2,000: 0.3 MB in, 201 MB out): no CEL, so the CEL output budget never saw it.
pub fn static_value(n: usize) -> String {
    list(
        &(upstream("") + &repositories(n, |_| String::new())),
        &format!(
            "        packageContext:\n          data: {{blob: {}}}\n",
            "x".repeat(100_000)
        ),
    )
}

/// A workload: its name, its generator, and the `n` of its 1x size.
pub type Workload = (&'static str, fn(usize) -> String, usize);

/// Every workload.
/// `n` ConfigMaps chosen by an objectSelector, every variant in the one Repository `hub`,
/// which carries `10 n` annotations; `repository` is read by `read` (a label of every variant)
/// or by no expression. CEL's `repository` was built again for every variant (4,000 objects,
/// 40,000 annotations: 34 s); it is built once, and only when an expression reads it.
fn one_repository(n: usize, read: bool) -> String {
    let mut items = upstream("");
    let _ = write!(
        items,
        "- apiVersion: config.porch.kpt.dev/v1alpha1
  kind: Repository
  metadata:
    name: hub
    namespace: default
    annotations:
"
    );
    for i in 0..10 * n {
        let _ = writeln!(items, "      a{i}: v{i}");
    }
    for i in 0..n {
        let _ = writeln!(
            items,
            "- apiVersion: v1
  kind: ConfigMap
  metadata: {{name: site{i}, namespace: default, labels: {{env: prod}}}}"
        );
    }
    let value = if read {
        "repository.annotations['a0']"
    } else {
        "target.name"
    };
    list_with(
        &items,
        "objectSelector: {apiVersion: v1, kind: ConfigMap, matchLabels: {env: prod}}",
        &format!(
            "        downstream: {{repo: hub, packageExpr: target.name}}
        labelExprs: [{{key: l, valueExpr: \"{value}\"}}]
"
        ),
    )
}

/// [`one_repository`], no expression reading `repository`.
pub fn one_repository_unread(n: usize) -> String {
    one_repository(n, false)
}

/// [`one_repository`], every variant reading `repository`.
pub fn one_repository_read(n: usize) -> String {
    one_repository(n, true)
}

pub const WORKLOADS: &[Workload] = &[
    ("distinct regex per target", distinct_patterns, 1_000),
    ("literal regex per expression", literal_patterns, 300),
    ("100 KB value copied per target", copied_value, 2_000),
    ("distinct expressions", distinct_expressions, 1_000),
    ("100 KB static value per target", static_value, 3_000),
    (
        "one Repository for every object, unread",
        one_repository_unread,
        250,
    ),
    (
        "one Repository for every object, read",
        one_repository_read,
        250,
    ),
];
