//! PackageRevisions as today's Porch serves them (issue 31 item 2): `porch.kpt.dev/v1alpha2`
//! (a CRD: the revision in `status.revision`, the latest label `porch.kpt.dev/latest-revision`)
//! read wherever v1alpha1 is; and when an upstream is not found, the message names the near
//! match (issue 32 item 3): another namespace, a version not read, a draft, a near name.

mod common;

use common::{pvs_config, repository, resource_list, run, UPSTREAM_PR};

const V2_PR: &str = "apiVersion: porch.kpt.dev/v1alpha2
kind: PackageRevision
metadata:
  name: blueprints.base.v1
spec:
  repository: blueprints
  packageName: base
  workspaceName: v1
  lifecycle: Published
status:
  revision: 1
";

fn targets() -> String {
    pvs_config("  targets:\n  - repositories: [{name: edge1}]\n")
}

#[test]
fn a_v1alpha2_revision_is_an_upstream() {
    let repo = repository("edge1", "{}");
    let out = run(&resource_list(&[V2_PR, &repo], &targets()));
    assert_eq!(out.code, 0, "{}{}", out.stdout, out.stderr);
    let v = common::variants(&out.stdout);
    assert_eq!(v.len(), 1);
    assert!(
        v[0].contains("upstream:\n    repo: blueprints\n    package: base\n    revision: 1\n"),
        "{}",
        v[0]
    );
}

#[test]
fn a_v1alpha2_draft_is_never_an_upstream_and_the_message_says_why() {
    let draft = V2_PR
        .replace("lifecycle: Published", "lifecycle: Draft")
        .replace("status:\n  revision: 1\n", "");
    let repo = repository("edge1", "{}");
    let config = pvs_config("  targets:\n  - repositories: [{name: edge1}]\n")
        .replace("revision: 1}", "workspaceName: v1}");
    let out = run(&resource_list(&[&draft, &repo], &config));
    assert_eq!(out.code, 1, "{}", out.stdout);
    assert!(out
        .stdout
        .contains("could not find upstream package revision"));
    assert!(
        out.stdout
            .contains("is Draft without status.revision, so never an upstream"),
        "{}",
        out.stdout
    );
}

#[test]
fn one_revision_in_both_versions_is_one_and_two_that_disagree_are_an_error() {
    let repo = repository("edge1", "{}");
    let v1 = UPSTREAM_PR.replace(
        "revision: 1\n",
        "workspaceName: v1\n  revision: 1\n  lifecycle: Published\n",
    );
    let out = run(&resource_list(&[&v1, V2_PR, &repo], &targets()));
    assert_eq!(out.code, 0, "{}{}", out.stdout, out.stderr);
    assert_eq!(common::variants(&out.stdout).len(), 1);

    let other = V2_PR.replace("revision: 1", "revision: 2");
    let out = run(&resource_list(&[&v1, &other, &repo], &targets()));
    assert_eq!(out.code, 1, "{}", out.stdout);
    assert!(
        out.stdout.contains("PackageRevision \"blueprints.base.v1\" is given in two versions that disagree: porch.kpt.dev/v1alpha1 at item 0"),
        "{}",
        out.stdout
    );
    assert!(out.stdout.contains("porch.kpt.dev/v1alpha2 at item 1"));
}

/// The extension's tags: `latest` is the v1alpha2 revision labelled
/// `porch.kpt.dev/latest-revision`, not the highest.
#[test]
fn latest_follows_the_v1alpha2_label() {
    let repo = repository("edge1", "{}");
    let labelled = V2_PR.replace(
        "  name: blueprints.base.v1\n",
        "  name: blueprints.base.v1\n  labels: {porch.kpt.dev/latest-revision: \"true\"}\n",
    );
    let higher = V2_PR
        .replace("blueprints.base.v1", "blueprints.base.v2")
        .replace("workspaceName: v1", "workspaceName: v2")
        .replace("revision: 1", "revision: 2");
    let config = targets()
        .replace("config.porch.kpt.dev/v1alpha2", "fn.kpt.dev/v1alpha1")
        .replace("revision: 1}", "tag: latest}");
    let out = run(&resource_list(&[&labelled, &higher, &repo], &config));
    assert_eq!(out.code, 0, "{}{}", out.stdout, out.stderr);
    let v = common::variants(&out.stdout);
    assert!(v[0].contains("    revision: 1\n"), "{}", v[0]);
}

/// A set whose namespace was forgotten, its revisions and Repositories in `platform`.
#[test]
fn a_revision_in_another_namespace_is_named() {
    let pr = UPSTREAM_PR.replace(
        "  name: blueprints.base.v1\n",
        "  name: blueprints.base.v1\n  namespace: platform\n",
    );
    let repo = repository("edge1", "{}")
        .replace("  name: edge1\n", "  name: edge1\n  namespace: platform\n");
    let out = run(&resource_list(&[&pr, &repo], &targets()));
    assert_eq!(out.code, 1);
    assert!(
        out.stdout.contains("PackageRevision \"blueprints.base.v1\" (porch.kpt.dev/v1alpha1, item 0) is in namespace \"platform\", not \"default\""),
        "{}",
        out.stdout
    );
    assert!(out
        .stdout
        .contains("write metadata.namespace: platform on the PackageVariantSet"));
}

#[test]
fn a_version_not_read_and_near_names_are_named() {
    let repo = repository("edge1", "{}");
    let v3 = V2_PR.replace("porch.kpt.dev/v1alpha2", "porch.kpt.dev/v1alpha3");
    let out = run(&resource_list(&[&v3, &repo], &targets()));
    assert_eq!(out.code, 1);
    assert!(
        out.stdout
            .contains("is at apiVersion porch.kpt.dev/v1alpha3, which is not read"),
        "{}",
        out.stdout
    );

    let out = run(&resource_list(
        &[UPSTREAM_PR, &repo],
        &targets().replace("package: base", "package: bsae"),
    ));
    assert_eq!(out.code, 1);
    assert!(
        out.stdout.contains("did you mean package: base?"),
        "{}",
        out.stdout
    );

    // (With no workspace names Porch's `revision OR workspaceName` would match any.)
    let pr = UPSTREAM_PR.replace("revision: 1\n", "workspaceName: v1\n  revision: 1\n");
    let out = run(&resource_list(
        &[&pr, &repo],
        &targets().replace("revision: 1}", "revision: 7}"),
    ));
    assert_eq!(out.code, 1);
    assert!(out.stdout.contains("none has revision 7"), "{}", out.stdout);
}

/// The extension's `packageResource` without a revision takes the highest Published
/// PackageRevision, a v1alpha2 one too (its number in `status.revision`).
#[test]
fn package_resource_floats_to_a_v1alpha2_revision() {
    let meta =
        "  namespace: default\n  annotations:\n    config.porch.kpt.dev/in-cluster: \"true\"\n";
    let pr = format!("apiVersion: porch.kpt.dev/v1alpha2\nkind: PackageRevision\nmetadata:\n  name: shared.databases.v4\n{meta}spec: {{repository: shared, packageName: databases, lifecycle: Published}}\nstatus: {{revision: 4}}\n");
    let prr = format!("apiVersion: porch.kpt.dev/v1alpha1\nkind: PackageRevisionResources\nmetadata:\n  name: shared.databases.v4\n{meta}spec:\n  repository: shared\n  packageName: databases\n  revision: 4\n  resources:\n    dbs.yaml: |\n      apiVersion: v1\n      kind: ConfigMap\n      metadata:\n        name: us-east1\n      data:\n        primary: pg.v4\n");
    let point = "apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: db\n  annotations:\n    kpt.dev/config-injection: required\n    config.kubernetes.io/path: db.yaml\ndata:\n  primary: placeholder\n";
    let config = common::pv_config(
        "  injection:\n  - bindingPoint: db\n    packageResource: {repo: shared, package: databases, name: us-east1}\n",
    )
    .replace("config.porch.kpt.dev/v1alpha1", "fn.kpt.dev/v1alpha1");
    let out = run(&resource_list(
        &[common::KPTFILE, point, &pr, &prr],
        &config,
    ));
    assert_eq!(out.code, 0, "{}{}", out.stdout, out.stderr);
    assert!(out.stdout.contains("primary: pg.v4"), "{}", out.stdout);
    assert!(
        out.stdout
            .contains("package:shared/databases@4:ConfigMap/us-east1"),
        "{}",
        out.stdout
    );
}
