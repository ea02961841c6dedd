//! Under every sync policy the PackageVariantSet's messages agree with what it does (issue 29):
//! a variant the policy keeps is never "removed" by a warning, and a name it keeps is not
//! free for a new variant. Through the binary.

mod common;

use common::{items_section, resource_list, results_section, run, UPSTREAM_PR};

/// A set `my-set` (uid `set-uid`) over `edge-1`, package `base`, under `policy`, allowed to
/// delete every variant it owns.
fn set(policy: &str) -> String {
    guarded(policy).replace(
        "    package-variant.fn.kpt.dev/sync-policy",
        "    package-variant.fn.kpt.dev/allow-deletions: all\n    package-variant.fn.kpt.dev/sync-policy",
    )
}

/// [`set`] under the deletion guard's default.
fn guarded(policy: &str) -> String {
    format!(
        "apiVersion: config.porch.kpt.dev/v1alpha2
kind: PackageVariantSet
metadata:
  name: my-set
  uid: set-uid
  annotations:
    package-variant.fn.kpt.dev/sync-policy: {policy}
spec:
  upstream: {{repo: blueprints, package: base, revision: 1}}
  targets:
  - repositories: [{{name: edge-1}}]
"
    )
}

/// A PackageVariant `name` the set owns, with `downstream` (a flow mapping, or nothing).
fn owned(name: &str, downstream: Option<&str>) -> String {
    let downstream = downstream.map_or(String::new(), |d| format!("  downstream: {d}\n"));
    format!(
        "apiVersion: config.porch.kpt.dev/v1alpha1
kind: PackageVariant
metadata:
  name: {name}
  namespace: default
  labels:
    config.porch.kpt.dev/packagevariantset: set-uid
spec:
  upstream: {{repo: blueprints, package: base, revision: 1}}
{downstream}"
    )
}

fn go(policy: &str, extra: &str) -> common::Run {
    let edge1 = common::repository("edge-1", "{env: prod}");
    run(&resource_list(&[UPSTREAM_PR, &edge1, extra], &set(policy)))
}

#[test]
fn a_variant_without_downstream_kept_by_the_policy_is_not_said_to_be_removed() {
    let stray = owned("my-set-stray", None);
    for policy in ["create-only", "create-update"] {
        let out = go(policy, &stray);
        assert_eq!(out.code, 0, "{}", out.stdout);
        let results = results_section(&out.stdout);
        assert!(
            items_section(&out.stdout).contains("name: my-set-stray\n"),
            "{}",
            out.stdout
        );
        assert!(
            results.contains(&format!(
                "1 kept by the sync policy {policy} instead of deleted (my-set-stray)"
            )),
            "{results}"
        );
        for wrong in ["removing", "deletes PackageVariant", "obsolete"] {
            assert!(
                !results.contains(wrong),
                "{policy}: {wrong:?} in\n{results}"
            );
        }
    }
    // Where the policy deletes, the warning says so, and the summary agrees.
    let out = go("sync", &stray);
    assert_eq!(out.code, 0, "{}", out.stdout);
    let results = results_section(&out.stdout);
    assert!(
        !items_section(&out.stdout).contains("name: my-set-stray\n"),
        "{}",
        out.stdout
    );
    assert!(
        results.contains("deletes PackageVariant \"my-set-stray\": it has no spec.downstream")
            && results.contains("1 deleted (my-set-stray)"),
        "{results}"
    );
}

#[test]
fn a_name_the_policy_keeps_is_not_free_for_a_new_variant() {
    // Obsolete (its downstream is no longer wanted) but named as the new variant would be.
    let old = owned(
        "my-set-edge-1-base",
        Some("{repo: edge-1, package: retired}"),
    );
    for policy in ["create-only", "create-update"] {
        let out = go(policy, &old);
        assert_eq!(out.code, 1, "{policy}: {}", out.stdout);
        let results = results_section(&out.stdout).replace("''", "'");
        assert!(
            results.contains(&format!(
                "would create PackageVariant \"my-set-edge-1-base\" (downstream \"edge-1\"/\"base\"), but the set's obsolete PackageVariant of that name stays: the sync policy {policy} keeps it instead of deleting it"
            )),
            "{results}"
        );
        assert_eq!(
            items_section(&out.stdout)
                .matches("name: my-set-edge-1-base\n")
                .count(),
            1
        );
    }
    // Deleted under sync: its name is free, one variant of that name comes out.
    let out = go("sync", &old);
    assert_eq!(out.code, 0, "{}", out.stdout);
    assert_eq!(
        items_section(&out.stdout)
            .matches("name: my-set-edge-1-base\n")
            .count(),
        1,
        "{}",
        out.stdout
    );
}

#[test]
fn a_deletion_the_guard_refuses_is_not_said_to_happen() {
    let edge1 = common::repository("edge-1", "{env: prod}");
    let old = owned("my-set-edge-1-old", Some("{repo: edge-1, package: old}"));
    let out = run(&resource_list(
        &[UPSTREAM_PR, &edge1, &old],
        &guarded("sync"),
    ));
    assert_eq!(out.code, 1, "{}", out.stdout);
    let results = results_section(&out.stdout);
    assert!(
        results.contains("would delete PackageVariant \"my-set-edge-1-old\"")
            && results.contains("refused: this run would delete 1 of the 1 PackageVariants"),
        "{results}"
    );
    assert!(!results.contains("deletes PackageVariant"), "{results}");
}
