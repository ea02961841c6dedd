//! PackageVariantSet sizes that must stay linear (issue 29), through the binary: CEL's
//! `repository` is built once per Repository and run, and only when an expression reads it,
//! however many variants, candidates and waves share the Repository (4,000 objects to one
//! Repository of 40,000 annotations took 34 s). `benches/hostile_cel.rs` times the same
//! shapes at 1x, 4x and 16x.

mod common;
#[path = "../benches/support/hostile_cel.rs"]
mod hostile_cel;

use std::time::{Duration, Instant};

use common::{results_section, run};

/// Far above what a linear run takes in a debug build on a loaded machine, far below the
/// quadratic one.
const BOUND: Duration = Duration::from_secs(20);

fn timed(input: &str) -> common::Run {
    let start = Instant::now();
    let out = run(input);
    let took = start.elapsed();
    assert!(
        took < BOUND,
        "took {took:?}: the repository is built per use"
    );
    out
}

fn summary_has(out: &common::Run, created: usize) {
    assert_eq!(out.code, 0, "{}", out.stderr);
    let results = results_section(&out.stdout);
    assert!(
        results.contains(&format!("{created} created (")),
        "{}",
        &results[..results.len().min(2000)]
    );
}

const N: usize = 2_000;

#[test]
fn a_repository_no_expression_reads_is_not_built_per_variant() {
    let out = timed(&hostile_cel::one_repository_unread(N));
    summary_has(&out, N);
}

#[test]
fn a_repository_every_variant_reads_is_built_once() {
    let out = timed(&hostile_cel::one_repository_read(N));
    summary_has(&out, N);
    assert_eq!(
        common::items_section(&out.stdout)
            .matches("      l: v0\n")
            .count(),
        N
    );
}

/// One `repositories` entry: `hub` (with `10 n` annotations) and `n` package names, under
/// the extension's `when` and `rollout.waveExpr`, which read `repository` per candidate and
/// per variant, and a template that reads it too.
fn hub_with_packages(n: usize) -> String {
    let mut annotations = String::new();
    for i in 0..10 * n {
        annotations.push_str(&format!("      a{i}: v{i}\n"));
    }
    let packages: Vec<String> = (0..n).map(|i| format!("p{i}")).collect();
    format!(
        "apiVersion: config.kubernetes.io/v1
kind: ResourceList
items:
- apiVersion: porch.kpt.dev/v1alpha1
  kind: PackageRevision
  metadata: {{name: up, namespace: default}}
  spec: {{repository: up-repo, packageName: up-pkg, revision: 1, lifecycle: Published}}
- apiVersion: config.porch.kpt.dev/v1alpha1
  kind: Repository
  metadata:
    name: hub
    namespace: default
    annotations:
{annotations}functionConfig:
  apiVersion: fn.kpt.dev/v1alpha1
  kind: PackageVariantSet
  metadata: {{name: s, namespace: default}}
  spec:
    upstream: {{repo: up-repo, package: up-pkg, revision: 1}}
    targets:
    - repositories: [{{name: hub, packageNames: [{}]}}]
      when: \"repository.annotations['a1'] == 'v1'\"
      template:
        labelExprs: [{{key: l, valueExpr: \"repository.annotations['a0']\"}}]
    rollout: {{waveExpr: \"repository.annotations['a2']\"}}
",
        packages.join(", ")
    )
}

#[test]
fn conditions_and_waves_build_the_repository_once() {
    let out = timed(&hub_with_packages(N));
    summary_has(&out, N);
}
