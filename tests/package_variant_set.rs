//! The PackageVariantSet expander through the binary: every upstream Porch test of the
//! behaviour notes' section 7 (V*, R*, E*, O*, U*, unroll, T-S*) and the derived cases of
//! section 8 (D*) that a ResourceList can express, plus the function's own rules (all or
//! nothing, idempotence, names, namespaces, path annotations, ownership, CEL visibility).
//!
//! Every case runs the real binary and snapshots its stdout. `run_case` also checks two
//! properties on every run: an error leaves the items byte-identical, and a successful run
//! is idempotent (running again on the output changes no item).

mod common;

use common::{items_section, resource_list, run, Run};

// ---------------------------------------------------------------------------------------------
// Fixtures (notes §7.2): the upstream PackageRevision `p` and Repositories my-repo-1/my-repo-2.

/// The upstream PackageRevision of §7.2. Porch's test gives it an empty spec (it calls the
/// renderer directly); through the binary it must match `spec.upstream`, so it has one. It has
/// a workspaceName, as real PackageRevisions do: an upstream without workspaceName matches
/// any PackageRevision whose workspaceName is empty (Porch's OR), whatever its revision.
const PR_P: &str = r#"apiVersion: porch.kpt.dev/v1alpha1
kind: PackageRevision
metadata:
  name: p
  namespace: default
  labels: {vendor: bigco.com, product: snazzy, version: "1.6.8"}
  annotations: {bigco.com/team: us-platform}
spec:
  repository: up-repo
  packageName: up-pkg
  workspaceName: v2
  revision: 2
"#;

const REPO_1: &str = r#"apiVersion: config.porch.kpt.dev/v1alpha1
kind: Repository
metadata:
  name: my-repo-1
  namespace: default
  labels: {foo: bar, abc: def}
"#;

const REPO_2: &str = r#"apiVersion: config.porch.kpt.dev/v1alpha1
kind: Repository
metadata:
  name: my-repo-2
  namespace: default
  labels: {foo: bar, abc: def, efg: hij}
"#;

const FIXTURES: [&str; 3] = [PR_P, REPO_1, REPO_2];

/// Indents every non-empty line of `text` by `n` spaces.
fn indent(text: &str, n: usize) -> String {
    let pad = " ".repeat(n);
    text.lines()
        .map(|l| {
            if l.is_empty() {
                "\n".to_string()
            } else {
                format!("{pad}{l}\n")
            }
        })
        .collect()
}

/// A PackageVariantSet functionConfig; `metadata` and `spec` are block YAML bodies.
fn pvs(metadata: &str, spec: &str) -> String {
    let mut s = String::from(
        "apiVersion: config.porch.kpt.dev/v1alpha2\nkind: PackageVariantSet\nmetadata:\n",
    );
    s.push_str(&indent(metadata, 2));
    if !spec.is_empty() {
        s.push_str("spec:\n");
        s.push_str(&indent(spec, 2));
    }
    s
}

/// The §7.2 set `my-pvs` (namespace default, upstream up-repo/up-pkg revision 2) with one
/// `repositories` target giving the context `my-repo-1/p`, and `template` (block YAML, may be
/// empty for no template).
fn render_set(template: &str) -> String {
    let mut spec = String::from(
        "upstream: {repo: up-repo, package: up-pkg, revision: 2}\ntargets:\n- repositories: [{name: my-repo-1, packageNames: [p]}]\n",
    );
    if !template.is_empty() {
        spec.push_str("  template:\n");
        spec.push_str(&indent(template, 4));
    }
    pvs("name: my-pvs\nnamespace: default", &spec)
}

/// Runs the binary on `items` with `config`, asserts the exit code, and checks the
/// all-or-nothing and idempotence properties. Returns the run.
fn run_case(items: &[&str], config: &str, code: i32) -> Run {
    let input = resource_list(items, config);
    let out = run(&input);
    assert_eq!(
        out.code, code,
        "exit code\n--- stdout ---\n{}\n--- stderr ---\n{}",
        out.stdout, out.stderr
    );
    if code != 0 {
        assert_eq!(
            items_section(&out.stdout),
            items_section(&input),
            "an error must leave every item as it was"
        );
    } else {
        let again = run(&out.stdout);
        assert_eq!(again.code, 0, "second run: {}", again.stdout);
        assert_eq!(
            items_section(&again.stdout),
            items_section(&out.stdout),
            "a second run must change no item"
        );
    }
    out
}

/// The `results:` section of a ResourceList.
fn results(stdout: &str) -> &str {
    stdout.find("\nresults:").map_or("", |i| &stdout[i + 1..])
}

/// Names of the PackageVariants the run created (they carry the `packagevariants/` path).
fn created(stdout: &str) -> Vec<String> {
    stdout
        .lines()
        .filter_map(|l| {
            l.trim()
                .strip_prefix("config.kubernetes.io/path: packagevariants/")
                .and_then(|p| p.strip_suffix(".yaml"))
                .map(str::to_string)
        })
        .collect()
}

// ---------------------------------------------------------------------------------------------
// §7.1 Validation (V1–V11). The upstream tests use `apiVersion: config.porch.kpt.dev`; the
// binary serves only v1alpha2, so the sets here use that. Each problem is its own error result.

fn validation_case(spec: &str) -> Run {
    run_case(&FIXTURES, &pvs("name: my-pv", spec), 1)
}

#[test]
fn v1_empty_spec() {
    insta::assert_snapshot!(validation_case("").stdout);
}

#[test]
fn v2_missing_upstream_package() {
    insta::assert_snapshot!(validation_case("upstream: {repo: foo, revision: 1}").stdout);
}

#[test]
fn v3_missing_upstream_repo() {
    insta::assert_snapshot!(validation_case("upstream: {package: foopkg, revision: 3}").stdout);
}

#[test]
fn v4_missing_upstream_revision() {
    insta::assert_snapshot!(validation_case("upstream: {repo: foo, package: foopkg}").stdout);
}

#[test]
fn v5_invalid_targets() {
    insta::assert_snapshot!(
        validation_case(
            r#"targets:
- repositories: [{name: ""}]
- repositories: [{name: bar}]
  repositorySelector: {foo: bar}
- repositories: [{name: bar, packageNames: ["", foo]}]
"#
        )
        .stdout
    );
}

/// V5 without the unknown field `foo` (which strict decoding refuses first, above): Porch's
/// validation messages, each on its field.
#[test]
fn v5_invalid_targets_known_fields() {
    insta::assert_snapshot!(
        validation_case(
            r#"targets:
- repositories: [{name: ""}]
- repositories: [{name: bar}]
  repositorySelector: {}
- repositories: [{name: bar, packageNames: ["", foo]}]
"#
        )
        .stdout
    );
}

#[test]
fn v6_invalid_adoption_and_deletion_policies() {
    insta::assert_snapshot!(
        validation_case(
            "targets: [{template: {adoptionPolicy: invalid, deletionPolicy: invalid}}]"
        )
        .stdout
    );
}

#[test]
fn v7_valid_adoption_and_deletion_policies() {
    insta::assert_snapshot!(
        validation_case("adoptionPolicy: adoptExisting\ndeletionPolicy: orphan").stdout
    );
}

#[test]
fn v8_downstream_values_and_expressions_do_not_mix() {
    insta::assert_snapshot!(validation_case(
        r#"targets: [{template: {downstream: {repo: "foo", repoExpr: "'bar'", package: "p", packageExpr: "'p'"}}}]"#
    )
    .stdout);
}

#[test]
fn v9_map_exprs_do_not_mix_expr_and_value() {
    insta::assert_snapshot!(validation_case(
        r#"targets:
- template:
    labelExprs: [{key: foo, keyExpr: "'bar'", value: bar}, {key: foo, value: bar, valueExpr: "'bar'"}]
    annotationExprs: [{key: foo, keyExpr: "'bar'", value: bar}, {key: foo, value: bar, valueExpr: "'bar'"}]
    packageContext:
      dataExprs: [{key: foo, keyExpr: "'bar'", value: bar}, {key: foo, value: bar, valueExpr: "'bar'"}]
"#
    )
    .stdout);
}

#[test]
fn v10_injectors_need_exactly_one_of_name_or_name_expr() {
    insta::assert_snapshot!(validation_case(
        "targets: [{repositories: [{name: bar}], template: {injectors: [{name: foo, nameExpr: bar}, {group: foo}]}}]"
    )
    .stdout);
}

#[test]
fn v11_pipeline_function_must_be_valid() {
    insta::assert_snapshot!(
        validation_case(
            r#"targets:
- repositories: [{name: bar}]
  template:
    pipeline:
      validators: [{name: foo}, {image: foo, name: bar}]
      mutators: [{name: foo.bar, image: bar}]
"#
        )
        .stdout
    );
}

// ---------------------------------------------------------------------------------------------
// §7.2 Rendering (R1–R11): context my-repo-1/p, all succeed with one new PackageVariant.

fn render_case(template: &str) -> Run {
    run_case(&FIXTURES, &render_set(template), 0)
}

#[test]
fn r1_no_template() {
    insta::assert_snapshot!(render_case("").stdout);
}

#[test]
fn r2_template_downstream_repo() {
    insta::assert_snapshot!(render_case("downstream: {repo: my-repo-2}").stdout);
}

#[test]
fn r3_template_downstream_package() {
    insta::assert_snapshot!(render_case("downstream: {package: new-p}").stdout);
}

#[test]
fn r4_template_adoption_and_deletion() {
    insta::assert_snapshot!(
        render_case("adoptionPolicy: adoptExisting\ndeletionPolicy: delete").stdout
    );
}

#[test]
fn r5_template_static_labels_and_annotations() {
    insta::assert_snapshot!(
        render_case("labels: {foo: bar, hello: there}\nannotations: {foobar: barfoo}").stdout
    );
}

#[test]
fn r6_template_static_package_context() {
    insta::assert_snapshot!(
        render_case(
            "packageContext: {data: {foo: bar, hello: there}, removeKeys: [foobar, barfoo]}"
        )
        .stdout
    );
}

#[test]
fn r7_template_downstream_with_expressions() {
    insta::assert_snapshot!(render_case(
        r#"downstream: {repoExpr: "'my-repo-2'", packageExpr: "repoDefault + '-' + packageDefault"}"#
    )
    .stdout);
}

#[test]
fn r8_template_labels_and_annotations_with_expressions() {
    insta::assert_snapshot!(render_case(
        r#"downstream: {repoExpr: "'my-repo-2'", packageExpr: "repoDefault + '-' + packageDefault"}
labels: {foo: bar, hello: there}
labelExprs:
- {key: foo, valueExpr: "repoDefault"}
- {keyExpr: "repository.labels['efg']", valueExpr: "packageDefault + '-' + repository.name"}
- {key: hello, value: goodbye}
annotations: {bigco.com/sample-annotation: some-annotation, foo.org/id: "123456"}
annotationExprs:
- {key: foo.org/id, value: "54321"}
- {key: bigco.com/team, valueExpr: "upstream.annotations['bigco.com/team']"}
"#
    )
    .stdout);
}

#[test]
fn r9_template_package_context_with_expressions() {
    insta::assert_snapshot!(
        render_case(
            r#"packageContext:
  data: {foo: bar, hello: there}
  dataExprs:
  - {key: foo, valueExpr: upstream.name}
  - {keyExpr: upstream.namespace, valueExpr: upstream.name}
  - {keyExpr: upstream.name, value: foo}
  removeKeys: [foobar, barfoo]
  removeKeyExprs: ["repository.labels['abc']"]
"#
        )
        .stdout
    );
}

#[test]
fn r10_template_injectors() {
    insta::assert_snapshot!(
        render_case(
            r#"injectors:
- {group: kpt.dev, version: v1alpha1, kind: Foo, name: bar}
- {group: kpt.dev, version: v1alpha1, kind: Foo, nameExpr: "repository.labels['abc']"}
- {nameExpr: "repository.name + '-test'"}
"#
        )
        .stdout
    );
}

#[test]
fn r11_template_pipeline() {
    insta::assert_snapshot!(
        render_case(
            r#"pipeline:
  validators:
  - {image: "foo:bar", name: hey}
  - image: "foo:bar"
    configMap: {k1: v1, k2: v2}
    configMapExprs: [{key: k1, valueExpr: repository.name}, {keyExpr: "'k3'", value: bar}]
  mutators:
  - image: mutates
    configMapExprs: [{key: k1, value: yo}]
"#
        )
        .stdout
    );
}

// ---------------------------------------------------------------------------------------------
// §7.3 evalExpr (E1–E9) and §7.4 overlay (O1–O3), through labelExprs. The base inputs are
// repoDefault foo-repo, packageDefault bar-package: a `repositories` target foo-repo with
// package bar-package (a Repository foo-repo exists because a template forces the lookup).

const REPO_FOO: &str = "apiVersion: config.porch.kpt.dev/v1alpha1
kind: Repository
metadata:
  name: foo-repo
  namespace: default
";

const REPO_MY_REPO: &str = "apiVersion: config.porch.kpt.dev/v1alpha1
kind: Repository
metadata:
  name: my-repo
  namespace: default
";

fn expr_set(target: &str, template: &str) -> String {
    let spec = format!(
        "upstream: {{repo: up-repo, package: up-pkg, revision: 2}}\ntargets:\n- {target}\n  template:\n{}",
        indent(template, 4)
    );
    pvs("name: my-pvs\nnamespace: default", &spec)
}

const FOO_TARGET: &str = "repositories: [{name: foo-repo, packageNames: [bar-package]}]";

fn expr_case(template: &str, code: i32) -> Run {
    run_case(
        &[PR_P, REPO_1, REPO_2, REPO_FOO, REPO_MY_REPO],
        &expr_set(FOO_TARGET, template),
        code,
    )
}

fn label_expr(expr: &str, code: i32) -> Run {
    expr_case(
        &format!("labelExprs: [{{key: e, valueExpr: {expr:?}}}]"),
        code,
    )
}

#[test]
fn e1_no_vars() {
    insta::assert_snapshot!(label_expr("'foo'", 0).stdout);
}

#[test]
fn e2_repo_default() {
    insta::assert_snapshot!(label_expr("repoDefault", 0).stdout);
}

#[test]
fn e3_package_default() {
    insta::assert_snapshot!(label_expr("packageDefault", 0).stdout);
}

#[test]
fn e4_concat_defaults() {
    insta::assert_snapshot!(label_expr("packageDefault + '-' + repoDefault", 0).stdout);
}

#[test]
fn e5_repositories_target() {
    let out = run_case(
        &[PR_P, REPO_MY_REPO],
        &expr_set(
            "repositories: [{name: my-repo, packageNames: [my-package]}]",
            r#"labelExprs: [{key: e, valueExpr: "target.repo + '/' + target.package"}]"#,
        ),
        0,
    );
    insta::assert_snapshot!(out.stdout);
}

#[test]
fn e6_repository_target() {
    // A repositorySelector that matches my-repo-1 only: `target` is that Repository.
    let out = run_case(
        &FIXTURES,
        &expr_set(
            "repositorySelector: {matchExpressions: [{key: efg, operator: DoesNotExist}]}",
            r#"labelExprs: [{key: e, valueExpr: "target.name + '/' + target.labels['foo']"}]"#,
        ),
        0,
    );
    insta::assert_snapshot!(out.stdout);
}

#[test]
fn e7_bad_variable() {
    let out = label_expr("badvar", 1);
    assert!(
        results(&out.stdout).contains("undeclared reference to 'badvar'"),
        "{}",
        out.stdout
    );
    insta::assert_snapshot!(out.stdout);
}

#[test]
fn e8_bad_expr() {
    let out = label_expr("/", 1);
    assert!(
        results(&out.stdout).contains("Syntax error"),
        "{}",
        out.stdout
    );
    insta::assert_snapshot!(out.stdout);
}

#[test]
fn e9_missing_label() {
    let out = run_case(
        &FIXTURES,
        &expr_set(
            "repositorySelector: {matchExpressions: [{key: efg, operator: DoesNotExist}]}",
            r#"labelExprs: [{key: e, valueExpr: "target.name + '/' + target.labels['no-such-label']"}]"#,
        ),
        1,
    );
    assert!(
        results(&out.stdout).contains("no such key: no-such-label"),
        "{}",
        out.stdout
    );
    insta::assert_snapshot!(out.stdout);
}

#[test]
fn o1_empty_starting_map() {
    insta::assert_snapshot!(expr_case(
        "labels: {}\nlabelExprs: [{key: foo, value: bar}, {keyExpr: repoDefault, value: barbar}, {key: bar, valueExpr: packageDefault}]",
        0
    )
    .stdout);
}

#[test]
fn o2_static_overlay() {
    insta::assert_snapshot!(expr_case(
        "labels: {foo: bar, bar: foo}\nlabelExprs: [{key: foo, value: new-bar}, {key: foofoo, value: barbar}]",
        0
    )
    .stdout);
}

#[test]
fn o3_exprs_overlay() {
    insta::assert_snapshot!(expr_case(
        "labels: {foo: bar, bar: foo}\nlabelExprs: [{keyExpr: \"'foo'\", value: new-bar}, {key: bar, valueExpr: packageDefault}]",
        0
    )
    .stdout);
}

// ---------------------------------------------------------------------------------------------
// §7.5 getUpstreamPR (U1–U9): one PackageRevision {my-repo, my-package, my-workspace, -1}.
// U1–U5 have no revision and no workspace (or no repo/package): through the binary, validation
// rejects them before the lookup, so their snapshots show the validation errors instead of
// "not found"; the outcome (no PackageVariants) is the same.

const PR_U: &str = "apiVersion: porch.kpt.dev/v1alpha1
kind: PackageRevision
metadata:
  name: my-repo.my-package.my-workspace
  namespace: default
spec:
  repository: my-repo
  packageName: my-package
  workspaceName: my-workspace
  revision: -1
";

fn upstream_case(upstream: &str, code: i32) -> Run {
    let spec = format!("upstream: {upstream}\ntargets: [{{repositories: [{{name: down}}]}}]");
    run_case(&[PR_U], &pvs("name: my-pvs", &spec), code)
}

#[test]
fn u1_everything_empty() {
    insta::assert_snapshot!(
        upstream_case(
            r#"{repo: "", package: "", workspaceName: "", revision: 0}"#,
            1
        )
        .stdout
    );
}

#[test]
fn u2_any_repo() {
    insta::assert_snapshot!(
        upstream_case(
            r#"{repo: any-repo, package: "", workspaceName: "", revision: 0}"#,
            1
        )
        .stdout
    );
}

#[test]
fn u3_my_repo() {
    insta::assert_snapshot!(
        upstream_case(
            r#"{repo: my-repo, package: "", workspaceName: "", revision: 0}"#,
            1
        )
        .stdout
    );
}

#[test]
fn u4_any_package() {
    insta::assert_snapshot!(
        upstream_case(
            r#"{repo: my-repo, package: any-package, workspaceName: "", revision: 0}"#,
            1
        )
        .stdout
    );
}

#[test]
fn u5_my_package_no_revision_no_workspace() {
    insta::assert_snapshot!(
        upstream_case(
            r#"{repo: my-repo, package: my-package, workspaceName: "", revision: 0}"#,
            1
        )
        .stdout
    );
}

#[test]
fn u6_any_workspace_not_found() {
    let out = upstream_case(
        "{repo: my-repo, package: my-package, workspaceName: any-workspace, revision: 0}",
        1,
    );
    assert!(
        out.stdout
            // Single-quoted in YAML now that a hint follows (`''` is one quote).
            .contains(
                "could not find upstream package revision ''my-package/0'' in repo ''my-repo''"
            ),
        "{}",
        out.stdout
    );
    insta::assert_snapshot!(out.stdout);
}

#[test]
fn u7_workspace_match_found() {
    insta::assert_snapshot!(
        upstream_case(
            "{repo: my-repo, package: my-package, workspaceName: my-workspace, revision: 0}",
            0
        )
        .stdout
    );
}

#[test]
fn u8_any_workspace_not_found_again() {
    insta::assert_snapshot!(
        upstream_case(
            "{repo: my-repo, package: my-package, workspaceName: any-workspace}",
            1
        )
        .stdout
    );
}

#[test]
fn u9_revision_match_found() {
    insta::assert_snapshot!(
        upstream_case(
            "{repo: my-repo, package: my-package, workspaceName: any-workspace, revision: -1}",
            0
        )
        .stdout
    );
}

// ---------------------------------------------------------------------------------------------
// §7.6 unroll order: repositories first (r1/p1..p3, r2/up), then the selector's matches in
// item order. Upstream revision 1 (Porch's test calls the unroller directly with revision 0,
// which validation rejects).

#[test]
fn unroll_downstream_targets_order() {
    let pr = "apiVersion: porch.kpt.dev/v1alpha1
kind: PackageRevision
metadata:
  name: up.up.v1
spec: {repository: up, packageName: up, revision: 1}
";
    let pod1 = "apiVersion: config.porch.kpt.dev/v1alpha1
kind: Repository
metadata:
  name: my-pod-1
  labels: {foo: bar, abc: def}
";
    let pod2 = "apiVersion: config.porch.kpt.dev/v1alpha1
kind: Repository
metadata:
  name: my-pod-2
  labels: {abc: def, efg: hij}
";
    let spec = "upstream: {repo: up, package: up, revision: 1}
targets:
- repositories: [{name: r1, packageNames: [p1, p2, p3]}, {name: r2}]
- repositorySelector: {}
";
    let out = run_case(&[pr, pod1, pod2], &pvs("name: my-pvs", spec), 0);
    assert_eq!(
        created(&out.stdout),
        [
            "my-pvs-r1-p1",
            "my-pvs-r1-p2",
            "my-pvs-r1-p3",
            "my-pvs-r2-up",
            "my-pvs-my-pod-1-up",
            "my-pvs-my-pod-2-up"
        ]
    );
    insta::assert_snapshot!(out.stdout);
}

// ---------------------------------------------------------------------------------------------
// §7.7 ensurePackageVariants (T-S1, T-S2): set my-pvs without uid or namespace, so the owner
// label is the set's name.

const LONG_PKG: &str =
    "supersupersuperloooooooooooooooooooooooooooooooooooooooooooooooooongpkgname";

fn owned_pv(name: &str, owner: &str, repo: &str, package: &str) -> String {
    format!(
        "apiVersion: config.porch.kpt.dev/v1alpha1
kind: PackageVariant
metadata:
  name: {name}
  namespace: default
  labels:
    config.porch.kpt.dev/packagevariantset: {owner}
  finalizers:
  - config.porch.kpt.dev/packagevariants
spec:
  upstream: {{repo: up, package: up, revision: 1}}
  downstream: {{repo: {repo}, package: {package}}}
"
    )
}

fn ensure_case() -> Run {
    let pr = "apiVersion: porch.kpt.dev/v1alpha1
kind: PackageRevision
metadata:
  name: up.up.v1
spec: {repository: up, packageName: up, revision: 1}
";
    let pv1 = owned_pv("my-pvs-dnrepo1-dnpkg1", "my-pvs", "dnrepo1", "dnpkg1");
    let pv2 = owned_pv("my-pvs-dnrepo2-dnpkg2", "my-pvs", "dnrepo2", "dnpkg2");
    let spec = format!(
        "upstream: {{repo: up, package: up, revision: 1}}
targets:
- repositories:
  - {{name: dnrepo2, packageNames: [dnpkg2]}}
  - {{name: dnrepo3, packageNames: [dnpkg3]}}
  - {{name: dnrepo4, packageNames: [{LONG_PKG}]}}
"
    );
    run_case(&[pr, &pv1, &pv2], &pvs("name: my-pvs", &spec), 0)
}

#[test]
fn t_s1_obsolete_deleted_existing_updated() {
    let out = ensure_case();
    // (The results name the deleted variant: the items are checked.)
    assert!(!items_section(&out.stdout).contains("name: my-pvs-dnrepo1-dnpkg1"));
    assert!(items_section(&out.stdout).contains("name: my-pvs-dnrepo2-dnpkg2"));
    insta::assert_snapshot!(out.stdout);
}

#[test]
fn t_s2_new_ones_created_with_porch_names() {
    let out = ensure_case();
    assert_eq!(
        created(&out.stdout),
        [
            "my-pvs-dnrepo3-dnpkg3",
            "my-pvs-dnrepo4-supersupersuperlooooooooooooooooooooooo-bec36506"
        ]
    );
    insta::assert_snapshot!(results(&out.stdout));
}

// ---------------------------------------------------------------------------------------------
// §8 derived cases (D1–D30), on the §7.2 fixtures unless stated.

#[test]
fn d01_repo_expr_cannot_see_repository() {
    insta::assert_snapshot!(
        run_case(
            &FIXTURES,
            &render_set(r#"downstream: {repoExpr: "repository.name"}"#),
            1
        )
        .stdout
    );
}

#[test]
fn d02_unknown_downstream_repository() {
    insta::assert_snapshot!(run_case(&FIXTURES, &render_set("downstream: {repo: nope}"), 1).stdout);
}

fn nope_set(template: Option<&str>) -> String {
    let mut spec = String::from(
        "upstream: {repo: up-repo, package: up-pkg, revision: 2}\ntargets:\n- repositories: [{name: nope, packageNames: [p]}]\n",
    );
    if let Some(t) = template {
        spec.push_str(&format!("  template: {t}\n"));
    }
    pvs("name: my-pvs\nnamespace: default", &spec)
}

#[test]
fn d03_no_template_needs_no_repository() {
    insta::assert_snapshot!(run_case(&FIXTURES, &nope_set(None), 0).stdout);
}

#[test]
fn d04_any_template_needs_the_repository() {
    insta::assert_snapshot!(run_case(&FIXTURES, &nope_set(Some("{}")), 1).stdout);
}

#[test]
fn d05_int_result_is_an_error() {
    insta::assert_snapshot!(
        run_case(
            &FIXTURES,
            &render_set(r#"labelExprs: [{key: a, valueExpr: "1"}]"#),
            1
        )
        .stdout
    );
}

#[test]
fn d06_bool_key_is_an_error() {
    insta::assert_snapshot!(
        run_case(
            &FIXTURES,
            &render_set(r#"annotationExprs: [{keyExpr: "true", value: x}]"#),
            1
        )
        .stdout
    );
}

#[test]
fn d07_repositories_target_has_no_name() {
    insta::assert_snapshot!(
        run_case(
            &FIXTURES,
            &render_set(r#"packageContext: {removeKeyExprs: ["target.name"]}"#),
            1
        )
        .stdout
    );
}

#[test]
fn d08_injector_name_expr_missing_label() {
    insta::assert_snapshot!(
        run_case(
            &FIXTURES,
            &render_set(r#"injectors: [{name: a}, {nameExpr: "upstream.labels['missing']"}]"#),
            1
        )
        .stdout
    );
}

#[test]
fn d09_config_map_expr_error_path() {
    insta::assert_snapshot!(run_case(
        &FIXTURES,
        &render_set(
            r#"pipeline: {mutators: [{image: x}, {image: y, configMapExprs: [{key: k, valueExpr: "repository.labels['zzz']"}]}]}"#
        ),
        1
    )
    .stdout);
}

#[test]
fn d10_package_expr_over_repositories_target() {
    insta::assert_snapshot!(
        run_case(
            &FIXTURES,
            &render_set(r#"downstream: {packageExpr: "target.package + '-' + target.repo"}"#),
            0
        )
        .stdout
    );
}

#[test]
fn d11_package_context_kept_and_remove_keys_sorted() {
    let empty = run_case(&FIXTURES, &render_set("packageContext: {}"), 0);
    insta::assert_snapshot!("d11_empty_package_context", empty.stdout);
    let keys = run_case(
        &FIXTURES,
        &render_set("packageContext: {removeKeys: [b, a, b]}"),
        0,
    );
    insta::assert_snapshot!("d11_remove_keys_dedup_sorted", keys.stdout);
}

#[test]
fn d12_empty_pipeline_dropped() {
    let empty = run_case(&FIXTURES, &render_set("pipeline: {}"), 0);
    let no_validators = run_case(&FIXTURES, &render_set("pipeline: {validators: []}"), 0);
    assert!(
        !empty.stdout.contains("\n    pipeline:"),
        "{}",
        empty.stdout
    );
    assert_eq!(
        items_section(&empty.stdout),
        items_section(&no_validators.stdout)
    );
    insta::assert_snapshot!(empty.stdout);
}

#[test]
fn d13_empty_maps_omitted_and_missing_key_or_value() {
    let empty = run_case(&FIXTURES, &render_set("labels: {}"), 0);
    insta::assert_snapshot!("d13_empty_labels_omitted", empty.stdout);
    let key_only = run_case(&FIXTURES, &render_set("labelExprs: [{key: k}]"), 0);
    insta::assert_snapshot!("d13_key_only", key_only.stdout);
    // Porch renders `labels: {"": v}`; an empty key is refused instead (see
    // template_empty_injector_names_and_keys_are_refused).
    let value_only = run_case(&FIXTURES, &render_set("labelExprs: [{value: v}]"), 1);
    assert!(
        results(&value_only.stdout).contains("path: spec.targets[0].template.labelExprs[0].key"),
        "{}",
        value_only.stdout
    );
}

#[test]
fn d14_later_label_wins() {
    insta::assert_snapshot!(
        run_case(
            &FIXTURES,
            &render_set(r#"labelExprs: [{key: a, value: "1"}, {key: a, value: "2"}]"#),
            0
        )
        .stdout
    );
}

#[test]
fn d15_empty_downstream_strings_are_unset() {
    insta::assert_snapshot!(
        run_case(
            &FIXTURES,
            &render_set(r#"downstream: {repo: "", package: ""}"#),
            0
        )
        .stdout
    );
}

/// Porch renders `injectors: [{name: ""}]`, which its own PackageVariant validation then
/// refuses (the variant stalls); the set refuses it first.
#[test]
fn d16_injector_with_empty_name() {
    let out = run_case(&FIXTURES, &render_set(r#"injectors: [{name: ""}]"#), 1);
    assert!(
        results(&out.stdout).contains("path: spec.targets[0].template.injectors[0].name"),
        "{}",
        out.stdout
    );
}

#[test]
fn d17_config_map_exprs_not_validated_expr_wins() {
    insta::assert_snapshot!(run_case(
        &FIXTURES,
        &render_set(
            r#"pipeline: {mutators: [{image: m, configMapExprs: [{key: a, keyExpr: "'b'", value: v}]}]}"#
        ),
        0
    )
    .stdout);
}

#[test]
fn d18_empty_key_expr_is_a_syntax_error() {
    let out = run_case(
        &FIXTURES,
        &render_set(r#"labelExprs: [{keyExpr: "", value: v}]"#),
        1,
    );
    assert!(
        results(&out.stdout).contains("path: spec.targets[0].template.labelExprs[0].keyExpr\n"),
        "{}",
        out.stdout
    );
    insta::assert_snapshot!(out.stdout);
}

/// A ConfigMap named like Repository my-repo-1, without labels, for objectSelector targets.
const CM_NO_LABELS: &str = "apiVersion: v1
kind: ConfigMap
metadata:
  name: my-repo-1
  namespace: default
data:
  secret-ish: do-not-show
";

#[test]
fn d19_selected_object_without_labels() {
    let target = "objectSelector: {apiVersion: v1, kind: ConfigMap}";
    let size = run_case(
        &[PR_P, REPO_1, CM_NO_LABELS],
        &expr_set(
            target,
            r#"labelExprs: [{key: a, valueExpr: "string(size(target.labels))"}]"#,
        ),
        0,
    );
    insta::assert_snapshot!("d19_size_of_absent_labels", size.stdout);
    let missing = run_case(
        &[PR_P, REPO_1, CM_NO_LABELS],
        &expr_set(
            target,
            r#"labelExprs: [{key: a, valueExpr: "target.labels['x']"}]"#,
        ),
        1,
    );
    insta::assert_snapshot!("d19_missing_label", missing.stdout);
}

#[test]
fn d20_repository_selector_target_is_the_repository() {
    insta::assert_snapshot!(
        run_case(
            &FIXTURES,
            &expr_set(
                "repositorySelector: {matchLabels: {efg: hij}}",
                r#"labelExprs: [{key: t, valueExpr: "target.name + '/' + target.labels['efg']"}]"#,
            ),
            0
        )
        .stdout
    );
}

fn config_map(name: &str, namespace: &str, labels: &str) -> String {
    format!(
        "apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: {name}\n  namespace: {namespace}\n  labels: {labels}\n"
    )
}

#[test]
fn d21_object_selector_without_template() {
    let x = config_map("cm-x", "default", "{site: a}");
    let y = config_map("cm-y", "default", "{site: a}");
    let z = config_map("cm-z", "default", "{site: b}");
    let other = config_map("cm-other", "elsewhere", "{site: a}");
    let spec = "upstream: {repo: up-repo, package: up-pkg, revision: 2}
targets:
- objectSelector: {apiVersion: v1, kind: ConfigMap, matchLabels: {site: a}}
";
    let out = run_case(
        &[PR_P, &x, &y, &z, &other],
        &pvs("name: my-pvs\nnamespace: default", spec),
        0,
    );
    assert_eq!(
        created(&out.stdout),
        ["my-pvs-cm-x-up-pkg", "my-pvs-cm-y-up-pkg"]
    );
    insta::assert_snapshot!(out.stdout);
}

#[test]
fn d22_label_selector_matrix() {
    let cluster = |name: &str, labels: &str| {
        format!("apiVersion: infra.example.com/v1\nkind: Cluster\nmetadata:\n  name: {name}\n  namespace: default\n  labels: {labels}\n")
    };
    let a = cluster("a", "{env: prod, tier: fe}");
    let b = cluster("b", "{env: dev}");
    let c = cluster("c", "{}");
    let cases: [(&str, &str, &[&str]); 7] = [
        ("match-labels", "matchLabels: {env: prod}", &["a"]),
        (
            "in",
            "matchExpressions: [{key: env, operator: In, values: [prod, dev]}]",
            &["a", "b"],
        ),
        (
            "not-in",
            "matchExpressions: [{key: env, operator: NotIn, values: [prod]}]",
            &["b", "c"],
        ),
        (
            "exists",
            "matchExpressions: [{key: tier, operator: Exists}]",
            &["a"],
        ),
        (
            "does-not-exist",
            "matchExpressions: [{key: env, operator: DoesNotExist}]",
            &["c"],
        ),
        ("empty", "", &["a", "b", "c"]),
        (
            "none",
            "matchLabels: {env: prod}\nmatchExpressions: [{key: tier, operator: DoesNotExist}]",
            &[],
        ),
    ];
    for (name, selector, expected) in cases {
        let spec = format!(
            "upstream: {{repo: up-repo, package: up-pkg, revision: 2}}
targets:
- objectSelector:
    apiVersion: infra.example.com/v1
    kind: Cluster
{}",
            indent(selector, 4)
        );
        let out = run_case(
            &[PR_P, &a, &b, &c],
            &pvs("name: my-pvs\nnamespace: default", &spec),
            0,
        );
        let want: Vec<String> = expected
            .iter()
            .map(|o| format!("my-pvs-{o}-up-pkg"))
            .collect();
        assert_eq!(created(&out.stdout), want, "{name}");
        insta::assert_snapshot!(format!("d22_{name}"), results(&out.stdout));
    }
    // A bad operator is an error result with the selector's field path.
    let spec = "upstream: {repo: up-repo, package: up-pkg, revision: 2}
targets:
- objectSelector:
    apiVersion: infra.example.com/v1
    kind: Cluster
    matchExpressions: [{key: env, operator: Foo, values: [prod]}]
";
    let out = run_case(
        &[PR_P, &a, &b, &c],
        &pvs("name: my-pvs\nnamespace: default", spec),
        1,
    );
    assert!(
        results(&out.stdout).contains("path: spec.targets[0].objectSelector"),
        "{}",
        out.stdout
    );
    insta::assert_snapshot!("d22_bad_operator", results(&out.stdout));
}

#[test]
fn d23_duplicate_downstreams() {
    // The same downstream twice in one target: Porch makes one PackageVariant and drops the
    // other silently; the issue makes it an error naming both entries, and nothing changes.
    let twice = run_case(
        &FIXTURES,
        &pvs(
            "name: my-pvs\nnamespace: default",
            "upstream: {repo: up-repo, package: up-pkg, revision: 2}\ntargets: [{repositories: [{name: r1, packageNames: [p, p]}]}]",
        ),
        1,
    );
    assert!(created(&twice.stdout).is_empty());
    insta::assert_snapshot!("d23_same_downstream_twice", results(&twice.stdout));
    // Two different downstreams with one identifier: Porch silently keeps the later one; the
    // issue makes it an error naming both.
    let clash = run_case(
        &FIXTURES,
        &pvs(
            "name: my-pvs\nnamespace: default",
            "upstream: {repo: up-repo, package: up-pkg, revision: 2}\ntargets:\n- repositories: [{name: a-b, packageNames: [c]}]\n- repositories: [{name: a, packageNames: [b-c]}]",
        ),
        1,
    );
    insta::assert_snapshot!("d23_identifier_clash", results(&clash.stdout));
}

#[test]
fn d24_empty_repositories_list() {
    insta::assert_snapshot!(
        validation_case(
            "upstream: {repo: r, package: p, revision: 1}\ntargets: [{repositories: []}]"
        )
        .stdout
    );
}

#[test]
fn d25_empty_object_selector() {
    insta::assert_snapshot!(
        validation_case(
            "upstream: {repo: r, package: p, revision: 1}\ntargets: [{objectSelector: {}}]"
        )
        .stdout
    );
}

#[test]
fn d26_negative_revision_or_workspace_pass_validation() {
    let pr = |rev: &str, ws: &str| {
        format!("apiVersion: porch.kpt.dev/v1alpha1\nkind: PackageRevision\nmetadata:\n  name: r.p.{ws}\nspec: {{repository: r, packageName: p, revision: {rev}, workspaceName: {ws}}}\n")
    };
    let main = run_case(
        &[&pr("-1", "main")],
        &pvs(
            "name: my-pvs",
            "upstream: {repo: r, package: p, revision: -1}\ntargets: [{repositories: [{name: d}]}]",
        ),
        0,
    );
    insta::assert_snapshot!("d26_revision_minus_one", main.stdout);
    let ws = run_case(
        &[&pr("0", "ws")],
        &pvs(
            "name: my-pvs",
            "upstream: {repo: r, package: p, workspaceName: ws}\ntargets: [{repositories: [{name: d}]}]",
        ),
        0,
    );
    insta::assert_snapshot!("d26_workspace_name", ws.stdout);
}

#[test]
fn d27_exactly_one_target_option() {
    let two = validation_case(
        "upstream: {repo: r, package: p, revision: 1}\ntargets: [{repositories: [{name: r}], objectSelector: {apiVersion: v1, kind: X}}]",
    );
    insta::assert_snapshot!("d27_two_options", results(&two.stdout));
    let none = validation_case("upstream: {repo: r, package: p, revision: 1}\ntargets: [{}]");
    insta::assert_snapshot!("d27_no_option", results(&none.stdout));
}

#[test]
fn d28_upstream_revision_not_found() {
    let spec = "upstream: {repo: up-repo, package: up-pkg, revision: 1}\ntargets: [{repositories: [{name: my-repo-1}]}]";
    let out = run_case(&FIXTURES, &pvs("name: my-pvs\nnamespace: default", spec), 1);
    assert!(
        out.stdout
            // Single-quoted in YAML now that a hint follows (`''` is one quote).
            .contains("could not find upstream package revision ''up-pkg/1'' in repo ''up-repo''"),
        "{}",
        out.stdout
    );
    insta::assert_snapshot!(out.stdout);
}

#[test]
fn d29_name_length_boundary() {
    let pr = "apiVersion: porch.kpt.dev/v1alpha1
kind: PackageRevision
metadata:
  name: up.up.v1
spec: {repository: up, packageName: up, revision: 1}
";
    let spec = "upstream: {repo: up, package: up, revision: 1}
targets:
- repositories:
  - {name: cluster-01, packageNames: [foo-0123456789012345678901234567890123456789, foo-01234567890123456789012345678901234567890]}
";
    let out = run_case(&[pr], &pvs("name: example", spec), 0);
    let names = created(&out.stdout);
    assert_eq!(
        names,
        [
            "example-cluster-01-foo-0123456789012345678901234567890123456789",
            "example-cluster-01-foo-0123456789012345678901234567890-7d5c7697"
        ]
    );
    assert_eq!(names[0].len(), 63);
    insta::assert_snapshot!(out.stdout);
}

#[test]
fn d30_owned_variants_keyed_by_spec_not_name() {
    let pr = "apiVersion: porch.kpt.dev/v1alpha1
kind: PackageRevision
metadata:
  name: up.up.v1
spec: {repository: up, packageName: up, revision: 1}
";
    let x = owned_pv("x", "set-uid-1", "r1", "old");
    let custom = owned_pv("custom-name", "set-uid-1", "r2", "keep");
    let spec = "upstream: {repo: up, package: up, revision: 1}
targets:
- repositories: [{name: r1, packageNames: [new]}, {name: r2, packageNames: [keep]}]
  template:
    labels: {changed: \"yes\"}
";
    let r1 = "apiVersion: config.porch.kpt.dev/v1alpha1\nkind: Repository\nmetadata:\n  name: r1\n";
    let r2 = "apiVersion: config.porch.kpt.dev/v1alpha1\nkind: Repository\nmetadata:\n  name: r2\n";
    let out = run_case(
        &[pr, r1, r2, &x, &custom],
        &pvs("name: my-pvs\nuid: set-uid-1", spec),
        0,
    );
    assert!(
        !items_section(&out.stdout).contains("name: x\n"),
        "{}",
        out.stdout
    );
    assert!(out.stdout.contains("name: custom-name\n"));
    assert_eq!(created(&out.stdout), ["my-pvs-r1-new"]);
    insta::assert_snapshot!(out.stdout);
}

// ---------------------------------------------------------------------------------------------
// The function's own rules.

/// A new variant whose name an existing PackageVariant of the namespace keeps (not owned by
/// the set, or owned and kept under another identifier) is an error, as Porch's create fails
/// with `already exists`; a second object of that name would replace the other when applied.
/// An owned variant being deleted frees its name.
#[test]
fn create_over_a_name_taken_by_another_package_variant_is_an_error() {
    let pr = "apiVersion: porch.kpt.dev/v1alpha1
kind: PackageRevision
metadata:
  name: up.up.v1
  namespace: default
spec: {repository: up, packageName: up, revision: 1}
";
    let spec = "upstream: {repo: up, package: up, revision: 1}
targets:
- repositories: [{name: r1, packageNames: [new]}, {name: r2, packageNames: [keep]}]
";
    let set = pvs("name: my-pvs\nuid: set-uid-1", spec);
    let expect_clash = |items: &[&str]| {
        let out = run_case(items, &set, 1);
        let r = results(&out.stdout);
        assert!(
            r.contains(r#"would create PackageVariant "my-pvs-r1-new" (downstream "r1"/"new")"#)
                && r.contains("already exists")
                && r.contains("path: spec.targets[0].repositories[0].packageNames[0]"),
            "{r}"
        );
        assert_eq!(r.matches("severity: error").count(), 1, "{r}");
    };
    // Owned by another set (or by this set's name, from a run without uid).
    expect_clash(&[pr, &owned_pv("my-pvs-r1-new", "my-pvs", "r9", "p9")]);
    // Owned by this set and kept (under its own identifier), with the new variant's name.
    expect_clash(&[pr, &owned_pv("my-pvs-r1-new", "set-uid-1", "r2", "keep")]);
    // Owned by this set and obsolete: deleted, so its name is free. (It is every variant the
    // set owns: the deletion guard wants that allowed.)
    let allowing = pvs(
        "name: my-pvs\nnamespace: default\nuid: set-uid-1\nannotations: {package-variant.fn.kpt.dev/allow-deletions: all}",
        spec,
    );
    let out = run_case(
        &[pr, &owned_pv("my-pvs-r1-new", "set-uid-1", "r1", "old")],
        &allowing,
        0,
    );
    assert_eq!(created(&out.stdout), ["my-pvs-r1-new", "my-pvs-r2-keep"]);
    assert_eq!(
        items_section(&out.stdout)
            .matches("name: my-pvs-r1-new\n")
            .count(),
        1
    );
}

/// A fleet with owned variants, comments and quoted scalars, for the all-or-nothing and
/// idempotence checks.
const FLEET_ITEMS: [&str; 5] = [
    PR_P,
    REPO_1,
    REPO_2,
    "# an owned variant that stays wanted
apiVersion: config.porch.kpt.dev/v1alpha1
kind: PackageVariant
metadata:
  name: my-pvs-my-repo-1-up-pkg # trailing comment
  namespace: default
  labels: {config.porch.kpt.dev/packagevariantset: my-pvs}
spec:
  upstream: {repo: up-repo, package: up-pkg, revision: 1}
  downstream: {repo: my-repo-1, package: up-pkg}
  labels: {quoted: \"true\"}
",
    "apiVersion: config.porch.kpt.dev/v1alpha1
kind: PackageVariant
metadata:
  name: my-pvs-gone-up-pkg
  namespace: default
  labels: {config.porch.kpt.dev/packagevariantset: my-pvs}
spec:
  upstream: {repo: up-repo, package: up-pkg, revision: 1}
  downstream: {repo: gone, package: up-pkg}
",
];

fn fleet_set(extra_target: &str) -> String {
    let spec = format!(
        "upstream: {{repo: up-repo, package: up-pkg, revision: 2}}
targets:
- repositorySelector: {{matchLabels: {{foo: bar}}}}
  template:
    labelExprs: [{{key: site, valueExpr: \"target.name\"}}]
{extra_target}"
    );
    pvs("name: my-pvs\nnamespace: default", &spec)
}

#[test]
fn all_or_nothing_on_errors() {
    // A CEL error in the last target, a validation error, an upstream error, a selector error:
    // each leaves every item byte-identical (run_case checks it) and produces no new items.
    let cases = [
        (
            "cel",
            fleet_set(
                "- repositories: [{name: my-repo-2}]\n  template:\n    labelExprs: [{key: a, valueExpr: \"target.name\"}]\n",
            ),
        ),
        (
            "validation",
            fleet_set("- repositories: []\n"),
        ),
        (
            "selector",
            fleet_set(
                "- repositorySelector: {matchExpressions: [{key: x, operator: In}]}\n",
            ),
        ),
        (
            "upstream",
            fleet_set("").replace("revision: 2}", "revision: 7}"),
        ),
    ];
    for (name, config) in cases {
        let out = run_case(&FLEET_ITEMS, &config, 1);
        assert!(created(&out.stdout).is_empty(), "{name}");
        assert!(out.stdout.contains("name: my-pvs-gone-up-pkg"), "{name}");
        assert!(out.stdout.contains("revision: 1}"), "{name}");
        insta::assert_snapshot!(format!("all_or_nothing_{name}"), results(&out.stdout));
    }
}

#[test]
fn idempotent_on_its_own_output() {
    let input = resource_list(&FLEET_ITEMS, &fleet_set(""));
    let first = run(&input);
    assert_eq!(first.code, 0, "{}", first.stdout);
    assert_ne!(items_section(&first.stdout), items_section(&input));
    let second = run(&first.stdout);
    assert_eq!(second.code, 0, "{}", second.stdout);
    assert_eq!(items_section(&second.stdout), items_section(&first.stdout));
    insta::assert_snapshot!("idempotent_first_run", first.stdout);
    insta::assert_snapshot!("idempotent_second_run_results", results(&second.stdout));
}

#[test]
fn names_match_porch_hashes() {
    let pr = "apiVersion: porch.kpt.dev/v1alpha1
kind: PackageRevision
metadata:
  name: up.up.v1
spec: {repository: up, packageName: up, revision: 1}
";
    let long = run_case(
        &[pr],
        &pvs(
            "name: my-pvs",
            &format!("upstream: {{repo: up, package: up, revision: 1}}\ntargets: [{{repositories: [{{name: dnrepo4, packageNames: [{LONG_PKG}]}}]}}]"),
        ),
        0,
    );
    assert_eq!(
        created(&long.stdout),
        ["my-pvs-dnrepo4-supersupersuperlooooooooooooooooooooooo-bec36506"]
    );
    let very = run_case(
        &[pr],
        &pvs(
            "name: very-long-packagevariantset-name",
            "upstream: {repo: up, package: up, revision: 1}\ntargets: [{repositories: [{name: very-long-repo-name, packageNames: [very-long-package-name]}]}]",
        ),
        0,
    );
    assert_eq!(
        created(&very.stdout),
        ["very-long-packagevariantset-name-very-long-repo-name-v-967492f1"]
    );
    insta::assert_snapshot!(results(&very.stdout));
}

#[test]
fn items_in_other_namespaces_are_ignored() {
    let elsewhere = |text: &str| text.replace("namespace: default", "namespace: elsewhere");
    // The upstream only in another namespace: not found.
    let pr_elsewhere = elsewhere(PR_P);
    let out = run_case(&[&pr_elsewhere, REPO_1], &render_set(""), 1);
    assert!(results(&out.stdout).contains("could not find upstream"));
    // Repositories, selected objects and owned variants of other namespaces are invisible: the
    // other namespace's owned variant is neither deleted nor updated.
    let repo_elsewhere = "apiVersion: config.porch.kpt.dev/v1alpha1
kind: Repository
metadata:
  name: far-repo
  namespace: elsewhere
  labels: {foo: bar}
";
    let owned_elsewhere = elsewhere(&owned_pv("my-pvs-gone-up-pkg", "my-pvs", "gone", "up-pkg"));
    let out = run_case(
        &[PR_P, REPO_1, repo_elsewhere, &owned_elsewhere],
        &fleet_set(""),
        0,
    );
    assert_eq!(created(&out.stdout), ["my-pvs-my-repo-1-up-pkg"]);
    assert!(out.stdout.contains("name: my-pvs-gone-up-pkg"));
    insta::assert_snapshot!(out.stdout);
}

#[test]
fn new_variants_get_path_annotations() {
    let out = run_case(&FIXTURES, &fleet_set(""), 0);
    let names = created(&out.stdout);
    assert_eq!(
        names,
        ["my-pvs-my-repo-1-up-pkg", "my-pvs-my-repo-2-up-pkg"]
    );
    for name in &names {
        let path = format!("packagevariants/{name}.yaml");
        assert!(out
            .stdout
            .contains(&format!("      config.kubernetes.io/path: {path}\n")));
        assert!(out.stdout.contains(&format!(
            "      internal.config.kubernetes.io/path: {path}\n"
        )));
    }
}

#[test]
fn set_with_uid_owns_its_variants() {
    let config = pvs(
        "name: my-pvs\nnamespace: default\nuid: 0d3f1c2e-8a77-4c1e-9d5b-2b1f7e9a6c10",
        "upstream: {repo: up-repo, package: up-pkg, revision: 2}\ntargets: [{repositories: [{name: my-repo-1}]}]",
    );
    let out = run_case(&FIXTURES, &config, 0);
    assert!(out
        .stdout
        .contains("config.porch.kpt.dev/packagevariantset: 0d3f1c2e-8a77-4c1e-9d5b-2b1f7e9a6c10"));
    assert!(out.stdout.contains("ownerReferences:"));
    insta::assert_snapshot!(out.stdout);
}

#[test]
fn set_without_uid_labels_by_name_without_owner_references() {
    let out = run_case(&FIXTURES, &render_set(""), 0);
    assert!(out
        .stdout
        .contains("config.porch.kpt.dev/packagevariantset: my-pvs\n"));
    assert!(!out.stdout.contains("ownerReferences"));
}

#[test]
fn cel_cannot_see_spec_status_or_data() {
    let cases = [
        ("upstream-spec", "upstream.spec.packageName"),
        ("repository-status", "repository.status"),
        ("target-data", "target.data['secret-ish']"),
        ("target-kind", "target.kind"),
    ];
    for (name, expr) in cases {
        let out = run_case(
            &[PR_P, REPO_1, CM_NO_LABELS],
            &expr_set(
                "objectSelector: {apiVersion: v1, kind: ConfigMap}",
                &format!("labelExprs: [{{key: a, valueExpr: {expr:?}}}]"),
            ),
            1,
        );
        assert!(
            results(&out.stdout).contains("no such key: "),
            "{name}: {}",
            out.stdout
        );
        insta::assert_snapshot!(format!("cel_cannot_see_{name}"), results(&out.stdout));
    }
}

#[test]
fn cel_has_only_the_standard_library() {
    // Porch loads no CEL extensions: no strings extension, no optional types.
    for (name, expr) in [
        ("lower-ascii", "repoDefault.lowerAscii()"),
        ("optional", "repository.?labels.orValue('x')"),
    ] {
        let out = run_case(
            &FIXTURES,
            &render_set(&format!("labelExprs: [{{key: a, valueExpr: {expr:?}}}]")),
            1,
        );
        insta::assert_snapshot!(format!("cel_stdlib_only_{name}"), results(&out.stdout));
    }
}

#[test]
fn cel_evaluation_is_bounded() {
    // Longer than the size limit: rejected before parsing.
    let long = format!("'{}'", "a".repeat(10_000));
    let out = run_case(
        &FIXTURES,
        &render_set(&format!("labelExprs: [{{key: a, valueExpr: {long:?}}}]")),
        1,
    );
    insta::assert_snapshot!("cel_bounded_size", results(&out.stdout));
    // A million comprehension steps: stopped with an error, not run to the end.
    let list = format!("[{}0]", "0, ".repeat(99));
    let runaway = format!("string(size({list}.map(x, {list}.map(y, {list}.map(z, z)))))");
    let out = run_case(
        &FIXTURES,
        &render_set(&format!("labelExprs: [{{key: a, valueExpr: {runaway:?}}}]")),
        1,
    );
    insta::assert_snapshot!("cel_bounded_steps", results(&out.stdout));
}

#[test]
fn bad_selector_operator_is_an_error_with_field_path() {
    let spec = "upstream: {repo: up-repo, package: up-pkg, revision: 2}
targets:
- repositories: [{name: my-repo-1}]
- repositorySelector: {matchExpressions: [{key: foo, operator: Equals, values: [bar]}]}
";
    let out = run_case(&FIXTURES, &pvs("name: my-pvs", spec), 1);
    let res = results(&out.stdout);
    assert!(
        res.contains("\"Equals\" is not a valid label selector operator"),
        "{res}"
    );
    assert!(
        res.contains("path: spec.targets[1].repositorySelector"),
        "{res}"
    );
    insta::assert_snapshot!(res);
}

// ---------------------------------------------------------------------------------------------
// The fnconfig/ samples run as they are.

fn sample(name: &str) -> String {
    let path = std::path::Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("fnconfig")
        .join(name);
    std::fs::read_to_string(&path).unwrap_or_else(|e| panic!("{}: {e}", path.display()))
}

/// The cluster objects the samples expect, as `kubectl get ... -o yaml` would list them.
fn sample_items() -> Vec<String> {
    let repo = |name: &str, env: &str, region: &str| {
        format!("apiVersion: config.porch.kpt.dev/v1alpha1\nkind: Repository\nmetadata:\n  name: {name}\n  namespace: blueprints\n  labels: {{env: {env}, region: {region}}}\n")
    };
    let cluster = |name: &str, labels: &str| {
        format!("apiVersion: infra.example.com/v1\nkind: Cluster\nmetadata:\n  name: {name}\n  namespace: blueprints\n  labels: {labels}\nspec:\n  nodes: 3\n")
    };
    vec![
        "apiVersion: porch.kpt.dev/v1alpha1\nkind: PackageRevision\nmetadata:\n  name: catalog.basens.v3\n  namespace: blueprints\n  labels: {kpt.dev/latest-revision: \"true\"}\nspec:\n  repository: catalog\n  packageName: basens\n  workspaceName: v3\n  revision: 3\n  lifecycle: Published\n".to_string(),
        repo("catalog", "none", "global"),
        repo("deploy-us-east", "prod", "us-east"),
        repo("deploy-eu-west", "prod", "eu-west"),
        repo("deploy-ap-south", "dev", "ap-south"),
        cluster("edge-1", "{tier: edge, region: us-east}"),
        cluster("edge-2", "{tier: edge, region: eu-west}"),
        cluster("edge-3", "{tier: edge, region: us-east, decommissioned: \"true\"}"),
        cluster("core-1", "{tier: core, region: us-east}"),
    ]
}

#[test]
fn fnconfig_samples_run() {
    let items = sample_items();
    let refs: Vec<&str> = items.iter().map(String::as_str).collect();
    for name in [
        "package-variant-set-repositories.yaml",
        "package-variant-set-repository-selector.yaml",
        "package-variant-set-object-selector.yaml",
    ] {
        let out = run_case(&refs, &sample(name), 0);
        assert!(!created(&out.stdout).is_empty(), "{name}: {}", out.stdout);
        insta::assert_snapshot!(name, out.stdout);
    }
}

// ---------------------------------------------------------------- CEL as Porch compiles it

/// Issue 15: what cel-go's checker refuses is a compile error on the field, and nothing is
/// created, updated or deleted, even when the error is in a branch never taken.
#[test]
fn cel_compile_errors_as_porch_reports_them() {
    for (expr, message) in [
        (
            "['a', 1][0]",
            "ERROR: <input>:1:7: expected type 'string' but found 'int'",
        ),
        (
            "false ? 1 + 'a' : target.name",
            "ERROR: <input>:1:11: found no matching overload for '_+_' applied to '(int, string)'",
        ),
        (
            "string(size(1))",
            "ERROR: <input>:1:12: found no matching overload for 'size' applied to '(int)'",
        ),
        (
            "1 < 'a' ? 'x' : 'y'",
            "ERROR: <input>:1:3: found no matching overload for '_<_' applied to '(int, string)'",
        ),
        (
            "[target.name, 'x'][0]",
            "ERROR: <input>:1:15: expected type 'dyn' but found 'string'",
        ),
    ] {
        let out = label_expr(expr, 1);
        let results = results(&out.stdout);
        // The message is Porch's after its field prefix, which is the field path here.
        assert!(results.contains(message), "{expr}\n{results}");
        assert!(!results.contains("valueExpr: ERROR"), "{expr}\n{results}");
        assert!(
            results.contains("path: spec.targets[0].template.labelExprs[0].valueExpr"),
            "{results}"
        );
    }
}

/// Every expression is compiled before any is evaluated: a compile error in a later field is
/// reported even though an earlier one would fail at run time, and all compile errors of the
/// set are reported together.
#[test]
fn cel_every_expression_is_compiled_before_any_is_evaluated() {
    let out = expr_case(
        "labelExprs:\n- {key: a, valueExpr: \"target.labels['missing']\"}\n- {key: b, valueExpr: \"'a' + 1\"}\n- {key: c, valueExpr: \"size(1)\"}",
        1,
    );
    let results = results(&out.stdout);
    assert!(!results.contains("no such key"), "{results}");
    assert!(
        results.contains("path: spec.targets[0].template.labelExprs[1].valueExpr")
            && results.contains("path: spec.targets[0].template.labelExprs[2].valueExpr"),
        "{results}"
    );
}

/// cel-go's time functions, with Porch's UTC default and cel-go's formatting.
#[test]
fn cel_time_functions() {
    let out = expr_case(
        "labelExprs:\n- {key: year, valueExpr: \"string(timestamp('2009-02-13T23:31:30Z').getFullYear())\"}\n- {key: hours-utc, valueExpr: \"string(timestamp('2024-03-05T10:20:30+05:30').getHours())\"}\n- {key: hours-ny, valueExpr: \"string(timestamp('2024-03-05T10:20:30Z').getHours('America/New_York'))\"}\n- {key: later, valueExpr: \"string(timestamp('2024-03-05T10:20:30Z') + duration('90m'))\"}\n- {key: span, valueExpr: \"string(timestamp('2024-03-05T00:00:00Z') - timestamp('2024-03-04T00:00:00Z'))\"}\n- {key: before, valueExpr: \"string(duration('1h') < duration('61m'))\"}",
        0,
    );
    for line in [
        "year: \"2009\"",
        "hours-utc: \"4\"",
        "hours-ny: \"5\"",
        "later: \"2024-03-05T11:50:30Z\"",
        "span: 86400s",
        "before: \"true\"",
    ] {
        assert!(out.stdout.contains(line), "{line} not in\n{}", out.stdout);
    }
}

// Issue 15: real expressions, and what cel-go's checker and time conversions refuse, through
// the binary.

const REPO_EDGE1: &str = "apiVersion: config.porch.kpt.dev/v1alpha1
kind: Repository
metadata:
  name: edge1
  namespace: default
spec:
  type: git
";

/// Porch's documentation (its user guide's `network-function-auto-namespace` set): a
/// `repositories` target and `packageExpr: "target.package + '-cumulonimbus'"`.
#[test]
fn real_porch_guide_package_expr() {
    let out = run_case(
        &[PR_P, REPO_EDGE1],
        &expr_set(
            "repositories: [{name: edge1, packageNames: [network-function-auto-namespace-x, network-function-auto-namespace-y]}]",
            r#"downstream: {packageExpr: "target.package + '-cumulonimbus'"}"#,
        ),
        0,
    );
    for suffix in ["x", "y"] {
        let want = format!("package: network-function-auto-namespace-{suffix}-cumulonimbus");
        assert!(out.stdout.contains(&want), "{want}\n{}", out.stdout);
    }
    assert_eq!(created(&out.stdout).len(), 2, "{}", out.stdout);
    assert!(out.stdout.contains("repo: edge1"), "{}", out.stdout);
}

/// A compile error cel-go's checker reports is an error result on the field: nothing created.
#[test]
fn checker_error_on_the_field() {
    let out = expr_case(r#"downstream: {packageExpr: "repoDefault + 1"}"#, 1);
    let results = results(&out.stdout);
    assert!(
        results.contains("found no matching overload for '_+_' applied to '(string, int)'"),
        "{results}"
    );
    assert!(
        results.contains("path: spec.targets[0].template.downstream.packageExpr"),
        "{results}"
    );
    assert!(created(&out.stdout).is_empty(), "{}", out.stdout);
}

/// Time as cel-go: a duration written as Go writes it, and a timestamp text Go refuses.
#[test]
fn time_conversions_as_cel_go() {
    let out = label_expr("string(duration('1h30m'))", 0);
    assert!(out.stdout.contains("e: 5400s"), "{}", out.stdout);
    let out = label_expr("string(timestamp('2024-01-01 00:00:00Z'))", 1);
    assert!(
        results(&out.stdout)
            .contains("type conversion error from 'string' to 'google.protobuf.Timestamp'"),
        "{}",
        out.stdout
    );
}

// ---------------------------------------------------------------------------------------------
// Variants that Porch's PackageVariant validation (and this function's) would refuse: the set
// made them before with exit 0, and every one would have stalled in the cluster.

/// The error results of a refused render of `template`: (field path, message) pairs.
fn refused_render(template: &str) -> Vec<(String, String)> {
    let out = run_case(&FIXTURES, &render_set(template), 1);
    let results = results(&out.stdout);
    let messages: Vec<&str> = results
        .lines()
        .filter_map(|l| l.strip_prefix("- message: "))
        .collect();
    let fields: Vec<&str> = results
        .lines()
        .filter_map(|l| l.trim().strip_prefix("path: spec."))
        .collect();
    assert_eq!(messages.len(), fields.len(), "{results}");
    fields
        .into_iter()
        .map(|f| format!("spec.{f}"))
        .zip(
            messages
                .into_iter()
                .map(|m| m.trim_matches('\'').to_string()),
        )
        .collect()
}

#[test]
fn template_context_keys_porch_sets_are_refused() {
    let t = "spec.targets[0].template.packageContext";
    let r = refused_render(
        "packageContext:\n  data: {name: x}\n  dataExprs: [{key: package-path, value: y}]\n  removeKeys: [name]",
    );
    let fields: Vec<&str> = r.iter().map(|(f, _)| f.as_str()).collect();
    assert_eq!(
        fields,
        [
            format!("{t}.data.name"),
            format!("{t}.removeKeys[0]"),
            format!("{t}.dataExprs[0].key"),
        ]
    );
    assert!(
        r[0].1
            .starts_with("must not contain the key \"name\" (Porch sets it)"),
        "{r:?}"
    );
    let r =
        refused_render(r#"packageContext: {dataExprs: [{keyExpr: "'package-path'", value: x}]}"#);
    assert_eq!(r.len(), 1, "{r:?}");
    assert_eq!(r[0].0, format!("{t}.dataExprs[0].keyExpr"));
    assert!(
        r[0].1
            .starts_with("gives the key \"package-path\", which Porch sets"),
        "{r:?}"
    );
    let r = refused_render(r#"packageContext: {removeKeyExprs: ["'name'"]}"#);
    assert_eq!(r[0].0, format!("{t}.removeKeyExprs[0]"));
}

#[test]
fn template_empty_injector_names_and_keys_are_refused() {
    let t = "spec.targets[0].template";
    let r = refused_render("injectors: [{name: ''}]");
    assert_eq!(r[0].0, format!("{t}.injectors[0].name"));
    assert!(r[0].1.starts_with("must not be empty"), "{r:?}");
    let r = refused_render("injectors: [{nameExpr: ''}]");
    assert_eq!(r[0].0, format!("{t}.injectors[0].nameExpr"));
    let r = refused_render(r#"injectors: [{nameExpr: "''"}]"#);
    assert_eq!(r[0].0, format!("{t}.injectors[0].nameExpr"));
    assert!(r[0].1.starts_with("gives an empty injector name"), "{r:?}");
    let r = refused_render(r#"labelExprs: [{keyExpr: "''", value: v}]"#);
    assert_eq!(
        r,
        [(
            format!("{t}.labelExprs[0].keyExpr"),
            "gives an empty key; a key must not be empty".to_string()
        )]
    );
    let r = refused_render("annotationExprs: [{value: v}]");
    assert_eq!(r[0].0, format!("{t}.annotationExprs[0].key"));
    // The same fields with real values still render.
    run_case(
        &FIXTURES,
        &render_set(
            "injectors: [{nameExpr: \"'x-' + target.repo\"}]\nlabelExprs: [{keyExpr: \"'k'\", value: v}]\npackageContext: {dataExprs: [{keyExpr: \"'zone'\", value: a}], removeKeyExprs: [\"'old'\"]}",
        ),
        0,
    );
}

// ---------------------------------------------------------------------------------------------
// Fan-out that fails safe (issue 23): deletion warnings, the deletion guard, the sync policy
// and the summary as a plan. Porch deletes quietly; these behaviours are the function's own,
// set by `package-variant.fn.kpt.dev/` annotations on the set.

/// A Repository `name` in namespace default with label `env`.
fn env_repo(name: &str, env: &str) -> String {
    format!(
        "apiVersion: config.porch.kpt.dev/v1alpha1\nkind: Repository\nmetadata:\n  name: {name}\n  namespace: default\n  labels: {{env: {env}}}\n"
    )
}

const PR_UP: &str = "apiVersion: porch.kpt.dev/v1alpha1
kind: PackageRevision
metadata:
  name: up.up.v1
  namespace: default
spec: {repository: up, packageName: up, revision: 1}
";

/// A set `fleet` (uid fleet-uid) selecting Repositories by `matchLabels`, with `annotations`
/// (a flow map, or empty) and a template label `tier: edge`.
fn safe_fleet_set(match_labels: &str, annotations: &str) -> String {
    let mut metadata = String::from("name: fleet\nnamespace: default\nuid: fleet-uid");
    if !annotations.is_empty() {
        metadata.push_str(&format!("\nannotations: {annotations}"));
    }
    pvs(
        &metadata,
        &format!(
            "upstream: {{repo: up, package: up, revision: 1}}\ntargets:\n- repositorySelector:\n    matchLabels: {match_labels}\n  template:\n    labels: {{tier: edge}}\n"
        ),
    )
}

/// The typo fleet: 7 prod and 5 staging Repositories; the set owns variants on prod-0 and
/// prod-1 (rendered with the label tier: edge, so they are up to date).
fn typo_fleet() -> Vec<String> {
    let mut items = vec![PR_UP.to_string()];
    items.extend((0..7).map(|i| env_repo(&format!("prod-{i}"), "prod")));
    items.extend((0..5).map(|i| env_repo(&format!("staging-{i}"), "staging")));
    for r in ["prod-0", "prod-1"] {
        items.push(
            owned_pv(&format!("fleet-{r}-up"), "fleet-uid", r, "up")
                .replace("  downstream:", "  labels: {tier: edge}\n  downstream:"),
        );
    }
    items
}

/// The issue's typo: `env: nowhere` would delete every variant the set owns. Refused, with
/// nothing changed, each deletion and the empty target explained; allowed by the annotation.
#[test]
fn fleet_typo_deleting_every_owned_variant_is_refused() {
    let items = typo_fleet();
    let items: Vec<&str> = items.iter().map(String::as_str).collect();
    let out = run_case(&items, &safe_fleet_set("{env: nowhere}", ""), 1);
    let r = results(&out.stdout);
    assert!(
        r.contains("refused: this run would delete 2 of the 2 PackageVariants the set owns (fleet-prod-0-up, fleet-prod-1-up); that is every PackageVariant the set owns. Nothing was created, updated or deleted.")
            && r.contains("package-variant.fn.kpt.dev/allow-deletions: \"all\""),
        "{r}"
    );
    assert!(
        r.contains("matches 0 of 12 Repositories in namespace \"default\", so this target makes no PackageVariant; env=nowhere matches none; the closest label values are env=prod (7), env=staging (5)"),
        "{r}"
    );
    assert_eq!(r.matches("would delete PackageVariant").count(), 2, "{r}");
    insta::assert_snapshot!(r);
    // A near miss gets a "did you mean".
    let out = run_case(&items, &safe_fleet_set("{env: prd}", ""), 1);
    assert!(
        results(&out.stdout).contains("; did you mean env=prod?"),
        "{}",
        out.stdout
    );
    // Allowed: the variants are deleted, each with its warning.
    let allow = "{package-variant.fn.kpt.dev/allow-deletions: all}";
    let out = run_case(&items, &safe_fleet_set("{env: nowhere}", allow), 0);
    assert!(!items_section(&out.stdout).contains("kind: PackageVariant\n"));
    let r = results(&out.stdout);
    assert!(
        r.contains("0 created, 0 updated, 2 deleted (fleet-prod-0-up, fleet-prod-1-up)"),
        "{r}"
    );
    assert!(r.contains(r#"deletes PackageVariant "fleet-prod-0-up" (downstream "prod-0"/"up"): no target of the set wants it any more. spec.targets[0].repositorySelector no longer selects Repository "prod-0" (it has env=prod; the selector wants env=nowhere)"#), "{r}");
}

/// The guard's share: from 4 owned variants, deleting more than half is refused; a share in
/// the annotation raises it; anything else in the annotation is an error saying what to write.
#[test]
fn deletion_guard_share_and_its_annotation() {
    let mut items = vec![PR_UP.to_string()];
    items.extend((0..4).map(|i| env_repo(&format!("r{i}"), if i == 0 { "prod" } else { "dev" })));
    for i in 0..4 {
        let r = format!("r{i}");
        items.push(
            owned_pv(&format!("fleet-{r}-up"), "fleet-uid", &r, "up")
                .replace("  downstream:", "  labels: {tier: edge}\n  downstream:"),
        );
    }
    let items: Vec<&str> = items.iter().map(String::as_str).collect();
    // 3 of 4: more than half.
    let out = run_case(&items, &safe_fleet_set("{env: prod}", ""), 1);
    let r = results(&out.stdout);
    assert!(
        r.contains("refused: this run would delete 3 of the 4 PackageVariants the set owns (fleet-r1-up, fleet-r2-up, fleet-r3-up); that is more than 50% of them"),
        "{r}"
    );
    let out = run_case(
        &items,
        &safe_fleet_set(
            "{env: prod}",
            "{package-variant.fn.kpt.dev/allow-deletions: \"75%\"}",
        ),
        0,
    );
    assert!(results(&out.stdout).contains("3 deleted"));
    let out = run_case(
        &items,
        &safe_fleet_set(
            "{env: prod}",
            "{package-variant.fn.kpt.dev/allow-deletions: \"60%\"}",
        ),
        1,
    );
    assert!(results(&out.stdout).contains("allows deleting at most 60% of them"));
    let out = run_case(
        &items,
        &safe_fleet_set(
            "{env: prod}",
            "{package-variant.fn.kpt.dev/allow-deletions: lots}",
        ),
        1,
    );
    insta::assert_snapshot!(results(&out.stdout));
}

/// A fleet with a create (new-1), an update (old-1: its label changes), an unchanged variant
/// (same-1) and a delete (gone-1), under `policy` (None: no annotation).
fn policy_case(policy: Option<&str>) -> Run {
    let mut items = vec![PR_UP.to_string()];
    for r in ["new-1", "old-1", "same-1"] {
        items.push(env_repo(r, "prod"));
    }
    items.push(env_repo("gone-1", "dev"));
    items.push(owned_pv("fleet-old-1-up", "fleet-uid", "old-1", "up"));
    for r in ["same-1", "gone-1"] {
        items.push(
            owned_pv(&format!("fleet-{r}-up"), "fleet-uid", r, "up")
                .replace("  downstream:", "  labels: {tier: edge}\n  downstream:"),
        );
    }
    let items: Vec<&str> = items.iter().map(String::as_str).collect();
    let annotations = policy.map_or(String::new(), |p| {
        format!("{{package-variant.fn.kpt.dev/sync-policy: {p}}}")
    });
    run_case(&items, &safe_fleet_set("{env: prod}", &annotations), 0)
}

/// What happened to each variant: (created?, old-1 updated?, gone-1 still there?).
fn policy_outcome(out: &Run) -> (bool, bool, bool) {
    let items = items_section(&out.stdout);
    let old = items
        .split("name: fleet-old-1-up")
        .nth(1)
        .and_then(|rest| rest.split("\n- ").next())
        .unwrap_or("");
    (
        created(&out.stdout) == ["fleet-new-1-up"],
        old.contains("tier: edge"),
        items.contains("name: fleet-gone-1-up"),
    )
}

#[test]
fn sync_policy_sync_is_porchs_behaviour() {
    for out in [policy_case(None), policy_case(Some("sync"))] {
        assert_eq!(policy_outcome(&out), (true, true, false));
        let r = results(&out.stdout);
        assert!(
            r.contains("1 created (fleet-new-1-up), 1 updated (fleet-old-1-up [spec.labels]), 1 unchanged (fleet-same-1-up), 1 deleted (fleet-gone-1-up)'"),
            "{r}"
        );
    }
}

#[test]
fn sync_policy_create_only_keeps_updates_and_deletes() {
    let out = policy_case(Some("create-only"));
    assert_eq!(policy_outcome(&out), (true, false, true));
    let r = results(&out.stdout);
    assert!(!r.contains("deletes PackageVariant"), "{r}");
    insta::assert_snapshot!(r);
}

#[test]
fn sync_policy_create_update_keeps_deletes() {
    let out = policy_case(Some("create-update"));
    assert_eq!(policy_outcome(&out), (true, true, true));
    let r = results(&out.stdout);
    assert!(
        r.contains("1 created (fleet-new-1-up), 1 updated (fleet-old-1-up [spec.labels]), 1 unchanged (fleet-same-1-up), 0 deleted, 1 kept by the sync policy create-update instead of deleted (fleet-gone-1-up)'"),
        "{r}"
    );
}

#[test]
fn sync_policy_create_delete_keeps_updates() {
    let out = policy_case(Some("create-delete"));
    assert_eq!(policy_outcome(&out), (true, false, false));
    let r = results(&out.stdout);
    assert!(
        r.contains("1 created (fleet-new-1-up), 0 updated, 1 unchanged (fleet-same-1-up), 1 deleted (fleet-gone-1-up), 1 kept by the sync policy create-delete instead of updated (fleet-old-1-up [spec.labels])'"),
        "{r}"
    );
    assert!(
        r.contains("deletes PackageVariant \"fleet-gone-1-up\""),
        "{r}"
    );
}

/// The guard counts what the policy lets the run delete: create-update never deletes, so the
/// typo case goes through, deleting nothing.
#[test]
fn sync_policy_create_update_makes_the_typo_case_harmless() {
    let items = typo_fleet();
    let items: Vec<&str> = items.iter().map(String::as_str).collect();
    let out = run_case(
        &items,
        &safe_fleet_set(
            "{env: nowhere}",
            "{package-variant.fn.kpt.dev/sync-policy: create-update}",
        ),
        0,
    );
    assert_eq!(
        items_section(&out.stdout)
            .matches("kind: PackageVariant\n")
            .count(),
        2
    );
    let r = results(&out.stdout);
    assert!(r.contains("2 kept by the sync policy create-update instead of deleted (fleet-prod-0-up, fleet-prod-1-up)"), "{r}");
    assert!(r.contains("matches 0 of 12 Repositories"), "{r}");
}

#[test]
fn unknown_sync_policy_is_an_error_with_the_accepted_values() {
    let items = typo_fleet();
    let items: Vec<&str> = items.iter().map(String::as_str).collect();
    let out = run_case(
        &items,
        &safe_fleet_set(
            "{env: prod}",
            "{package-variant.fn.kpt.dev/sync-policy: create-onyl}",
        ),
        1,
    );
    insta::assert_snapshot!(results(&out.stdout));
}

/// More than 20 in a group: the first 20 and a count.
#[test]
fn summary_lists_twenty_per_group_and_counts_the_rest() {
    let mut items = vec![PR_UP.to_string()];
    items.extend((0..25).map(|i| env_repo(&format!("r{i:02}"), "prod")));
    let items: Vec<&str> = items.iter().map(String::as_str).collect();
    let out = run_case(&items, &safe_fleet_set("{env: prod}", ""), 0);
    let r = results(&out.stdout);
    assert!(r.contains("25 created (fleet-r00-up, fleet-r01-up,"), "{r}");
    assert!(r.contains("fleet-r19-up, and 5 more)"), "{r}");
    assert!(!r.contains("fleet-r20-up"), "{r}");
}

/// The warnings and the "did you mean" on a fleet of 1,000 Repositories, with 100 owned
/// variants to delete: one warning each, the counts computed once.
#[test]
fn thousand_repository_fleet_typo_warnings() {
    let mut items = vec![PR_UP.to_string()];
    items.extend(
        (0..1000).map(|i| env_repo(&format!("site-{i:04}"), ["prod", "staging", "dev"][i % 3])),
    );
    items.extend((0..100).map(|i| {
        let r = format!("site-{:04}", i * 3);
        owned_pv(&format!("fleet-{r}-up"), "fleet-uid", &r, "up")
    }));
    let items: Vec<&str> = items.iter().map(String::as_str).collect();
    let started = std::time::Instant::now();
    let out = run_case(&items, &safe_fleet_set("{env: prdo}", ""), 1);
    let r = results(&out.stdout);
    assert_eq!(r.matches("would delete PackageVariant").count(), 100);
    assert!(r.contains("matches 0 of 1000 Repositories"), "{r}");
    assert!(r.contains("the closest label values are env=prod (334), env=dev (333), env=staging (333); did you mean env=prod?"), "{r}");
    assert!(
        r.contains("(fleet-site-0000-up, fleet-site-0003-up,"),
        "{r}"
    );
    assert!(
        r.contains(", and 80 more); that is every PackageVariant the set owns"),
        "{r}"
    );
    // Wall time: two runs of the debug binary (the test's idempotence check runs none on an
    // error) take well under a second each; only a hang fails, even on a loaded machine.
    assert!(started.elapsed().as_secs() < 300);
}

/// Hostile size: 10,000 owned variants deleted (allowed), each explained against a
/// `repositories` target of 10,000 entries and a selector target: one warning each, in linear
/// time (the lists and counts are built once per target, not once per deletion).
#[test]
fn many_deletions_are_explained_in_linear_time() {
    const N: usize = 10_000;
    let mut items = vec![PR_UP.to_string(), env_repo("only", "prod")];
    items.extend((0..N).map(|i| {
        let r = format!("gone-{i:05}");
        owned_pv(&format!("fleet-{r}-up"), "fleet-uid", &r, "up")
    }));
    let items: Vec<&str> = items.iter().map(String::as_str).collect();
    let listed: String = (0..N).map(|i| format!("{{name: kept-{i:05}}}, ")).collect();
    let set = pvs(
        "name: fleet\nnamespace: default\nuid: fleet-uid\nannotations: {package-variant.fn.kpt.dev/allow-deletions: all}",
        &format!(
            "upstream: {{repo: up, package: up, revision: 1}}\ntargets:\n- repositories: [{listed}]\n- repositorySelector: {{matchLabels: {{env: prd}}}}\n"
        ),
    );
    let input = resource_list(&items, &set);
    let (out, took) = common::run_timed(input.as_bytes());
    assert_eq!(
        out.code,
        0,
        "{}",
        &out.stdout[out.stdout.len().saturating_sub(2000)..]
    );
    let r = results(&out.stdout);
    assert_eq!(r.matches("deletes PackageVariant").count(), N);
    assert!(r.contains(r#"spec.targets[0].repositories does not list "gone-09999". spec.targets[1].repositorySelector: there is no Repository "gone-09999""#), "{}", &r[r.len().saturating_sub(3000)..]);
    common::assert_cpu_under(took, std::time::Duration::from_secs(60), "the run");
}

// ---------------------------------------------------------------------------------------------
// Trust (issue 20): namespaces are never guessed, one identity is one item, what the API
// server or the PackageVariant function would refuse is refused before anything is emitted.

/// An item with a `metadata.namespace` line added (or not) after its name, and a path.
fn placed(doc: &str, namespace: Option<&str>, path: Option<&str>) -> String {
    let name_end = doc
        .find("\n  name: ")
        .and_then(|at| doc[at + 1..].find('\n').map(|e| at + 1 + e + 1))
        .unwrap_or(doc.len());
    let mut extra = String::new();
    if let Some(ns) = namespace {
        extra.push_str(&format!("  namespace: {ns}\n"));
    }
    if let Some(p) = path {
        extra.push_str(&format!(
            "  annotations:\n    config.kubernetes.io/path: {p}\n    internal.config.kubernetes.io/path: {p}\n"
        ));
    }
    format!("{}{extra}{}", &doc[..name_end], &doc[name_end..])
}

const TRUST_PR: &str = "apiVersion: porch.kpt.dev/v1alpha1
kind: PackageRevision
metadata:
  name: blueprints.base.v1
spec: {repository: blueprints, packageName: base, revision: 1}
";

fn trust_repo(name: &str) -> String {
    format!(
        "apiVersion: config.porch.kpt.dev/v1alpha1\nkind: Repository\nmetadata:\n  name: {name}\n  labels: {{site: {name}}}\n"
    )
}

/// A set in `metadata` (block lines) over every Repository, labelling each variant with the
/// Repository's `site` label (so a shadowing Repository would show).
fn trust_set(metadata: &str) -> String {
    pvs(
        metadata,
        "upstream: {repo: blueprints, package: base, revision: 1}
targets:
- repositorySelector: {}
  template:
    labelExprs: [{key: site, valueExpr: \"repository.labels['site']\"}]
",
    )
}

#[test]
fn a_set_that_names_its_namespace_refuses_a_namespace_less_repository() {
    // The namespace-less copy came first and shadowed team-a's own Repository of that name.
    let shadow = placed(&trust_repo("edge1"), None, Some("repos/edge1.yaml"))
        .replace("site: edge1", "site: elsewhere");
    let own = placed(&trust_repo("edge1"), Some("team-a"), None);
    let pr = placed(TRUST_PR, Some("team-a"), None);
    let out = run_case(
        &[&pr, &shadow, &own],
        &trust_set("name: s\nnamespace: team-a"),
        1,
    );
    let r = results(&out.stdout);
    assert!(
        r.contains(r#"Repository "edge1" at item 1 (repos/edge1.yaml) has no namespace"#)
            && r.contains(r#"write metadata.namespace: "team-a""#)
            && r.contains("path: metadata.namespace"),
        "{r}"
    );
    assert_eq!(r.matches("severity: error").count(), 1, "{r}");
    // Without the shadow, team-a's Repository is the one read.
    let out = run_case(&[&pr, &own], &trust_set("name: s\nnamespace: team-a"), 0);
    assert!(out.stdout.contains("site: edge1"), "{}", out.stdout);
}

#[test]
fn a_namespace_less_package_variant_a_set_seems_to_own_is_not_deleted() {
    let obsolete = placed(
        &owned_pv_of("s-gone-base", "s", "gone", "base"),
        None,
        Some("packagevariants/s-gone-base.yaml"),
    );
    let pr = placed(TRUST_PR, Some("team-a"), None);
    let repo = placed(&trust_repo("edge1"), Some("team-a"), None);
    let out = run_case(
        &[&pr, &repo, &obsolete],
        &trust_set("name: s\nnamespace: team-a"),
        1,
    );
    let r = results(&out.stdout);
    assert!(
        r.contains(r#"PackageVariant "s-gone-base" at item 2 (packagevariants/s-gone-base.yaml) has no namespace"#),
        "{r}"
    );
}

/// An owned PackageVariant without `metadata.namespace`.
fn owned_pv_of(name: &str, owner: &str, repo: &str, package: &str) -> String {
    format!(
        "apiVersion: config.porch.kpt.dev/v1alpha1
kind: PackageVariant
metadata:
  name: {name}
  labels:
    config.porch.kpt.dev/packagevariantset: {owner}
spec:
  upstream: {{repo: blueprints, package: base, revision: 1}}
  downstream: {{repo: {repo}, package: {package}}}
"
    )
}

#[test]
fn a_set_that_names_its_namespace_refuses_namespace_less_revisions_and_targets() {
    let set = pvs(
        "name: s\nnamespace: team-a",
        "upstream: {repo: blueprints, package: base, revision: 1}
targets:
- objectSelector: {apiVersion: v1, kind: ConfigMap}
- objectSelector: {apiVersion: v1, kind: Namespace}
",
    );
    let cm = "apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: edge1\n";
    let ns = "apiVersion: v1\nkind: Namespace\nmetadata:\n  name: edge2\n";
    let out = run_case(&[TRUST_PR, cm, ns], &set, 1);
    let r = results(&out.stdout);
    assert!(
        r.contains(r#"PackageRevision "blueprints.base.v1" at item 0"#)
            && r.contains(r#"ConfigMap "edge1" at item 1"#),
        "{r}"
    );
    // A Namespace has none: not refused.
    assert_eq!(r.matches("severity: error").count(), 2, "{r}");
    // With their namespace, the ConfigMap and the cluster-scoped Namespace are both targets.
    let pr = placed(TRUST_PR, Some("team-a"), None);
    let cm = placed(cm, Some("team-a"), None);
    let out = run_case(&[&pr, &cm, ns], &set, 0);
    assert_eq!(created(&out.stdout), ["s-edge1-base", "s-edge2-base"]);
}

#[test]
fn a_set_without_namespace_takes_namespace_less_items_as_its_own() {
    let out = run_case(&[TRUST_PR, &trust_repo("edge1")], &trust_set("name: s"), 0);
    assert_eq!(created(&out.stdout), ["s-edge1-base"]);
    assert!(out.stdout.contains("namespace: default"), "{}", out.stdout);
}

#[test]
fn one_identity_given_twice_is_an_error_naming_both() {
    let a = placed(&trust_repo("edge1"), Some("default"), Some("repos/a.yaml"));
    let b = placed(&trust_repo("edge1"), None, None).replace("site: edge1", "site: other");
    let out = run_case(&[TRUST_PR, &a, &b], &trust_set("name: s"), 1);
    let r = results(&out.stdout);
    assert!(
        r.contains(r#"Repository "default/edge1" is given twice, at item 1 (repos/a.yaml) and at item 2 (no path: not from a package file)"#),
        "{r}"
    );
    // Two PackageRevisions and two PackageVariants of one name too.
    let pv = owned_pv_of("s-x-base", "someone", "x", "base");
    let out = run_case(
        &[TRUST_PR, TRUST_PR, &trust_repo("edge1"), &pv, &pv],
        &trust_set("name: s"),
        1,
    );
    let r = results(&out.stdout);
    assert!(
        r.contains(r#"PackageRevision "default/blueprints.base.v1" is given twice, at item 0"#)
            && r.contains(r#"PackageVariant "default/s-x-base" is given twice, at item 3"#),
        "{r}"
    );
}

#[test]
fn the_set_namespace_uid_and_name_must_be_what_the_api_server_takes() {
    let out = run_case(
        &[TRUST_PR, &trust_repo("edge1")],
        &trust_set("name: s\nnamespace: \"$(touch x) x\""),
        1,
    );
    let r = results(&out.stdout);
    assert!(
        r.contains("is not a valid Kubernetes namespace") && r.contains("path: metadata.namespace"),
        "{r}"
    );
    assert!(!out.stdout.contains("kubectl get"), "{r}");
    let out = run_case(
        &[TRUST_PR, &trust_repo("edge1")],
        &trust_set("name: s\nuid: not a uid"),
        1,
    );
    assert!(
        results(&out.stdout).contains("path: metadata.uid"),
        "{}",
        out.stdout
    );
    let long = "s".repeat(70);
    let out = run_case(
        &[TRUST_PR, &trust_repo("edge1")],
        &trust_set(&format!("name: {long}")),
        1,
    );
    assert!(
        results(&out.stdout).contains("is the value of the owner label"),
        "{}",
        out.stdout
    );
    // A dotted name is a Kubernetes name, taken while no variant has pipeline functions
    // (tests/dotted_names.rs: refused when one has).
    let out = run_case(
        &[TRUST_PR, &trust_repo("edge1")],
        &trust_set("name: my.set"),
        0,
    );
    assert!(
        out.stdout.contains("  name: my.set-edge1-base\n"),
        "{}",
        out.stdout
    );
}

#[test]
fn object_selector_api_version_and_kind_are_checked_and_kubectl_lines_are_safe() {
    let set = |api_version: &str, kind: &str| {
        pvs(
            "name: s",
            &format!(
                "upstream: {{repo: blueprints, package: base, revision: 1}}
targets:
- objectSelector: {{apiVersion: {api_version:?}, kind: {kind:?}}}
"
            ),
        )
    };
    let out = run_case(&[TRUST_PR], &set("v1; rm -rf ~", "Config`id`Map"), 1);
    let r = results(&out.stdout);
    assert!(
        r.contains("path: spec.targets[0].objectSelector.apiVersion")
            && r.contains("path: spec.targets[0].objectSelector.kind"),
        "{r}"
    );
    assert!(!r.contains("kubectl get"), "{r}");
    // A valid selector with nothing to select: the suggested command is one plain line.
    let out = run_case(&[TRUST_PR], &set("infra.example.com/v1", "Cluster"), 1);
    assert!(
        results(&out.stdout).contains("kubectl get clusters.infra.example.com -n default -o yaml"),
        "{}",
        out.stdout
    );
}

#[test]
fn a_dotted_package_variant_name_is_refused_naming_target_and_field() {
    let repo = trust_repo("edge1.example.com");
    let set = pvs(
        "name: s",
        "upstream: {repo: blueprints, package: base, revision: 1}
targets:
- repositorySelector: {}
  template:
    pipeline:
      mutators: [{image: gcr.io/kpt-fn/set-labels:v0.2.0, name: labels}]
",
    );
    let out = run_case(&[TRUST_PR, &repo], &set, 1);
    let r = results(&out.stdout);
    assert!(
        r.contains(r#"the selected Repository "edge1.example.com" gives the downstream repo "edge1.example.com", which makes the PackageVariant name "s-edge1.example.com-base""#)
            && r.contains("must not contain")
            && r.contains("path: spec.targets[0].repositorySelector"),
        "{r}"
    );
    assert_eq!(r.matches("severity: error").count(), 1, "{r}");
}

#[test]
fn a_cut_name_is_not_called_invalid_for_what_only_the_uncut_package_holds() {
    let package = format!("{}Aa", "a".repeat(80));
    let set = pvs(
        "name: s",
        &format!(
            "upstream: {{repo: blueprints, package: base, revision: 1}}
targets:
- repositories: [{{name: edge1, packageNames: [{package}]}}]
"
        ),
    );
    let out = run_case(&[TRUST_PR], &set, 1);
    let r = results(&out.stdout);
    assert!(
        r.contains("which no PackageVariant name can hold: it contains the upper-case letter")
            && r.contains(&format!("The identifier \"s-edge1-{package}\" holds it"))
            && r.contains("to the valid name \"s-edge1-")
            && !r.contains("invalid:")
            && r.contains("path: spec.targets[0].repositories[0].packageNames[0]"),
        "{r}"
    );
}

#[test]
fn an_owned_variant_whose_name_the_package_variant_function_refuses_is_not_updated() {
    let owned = placed(
        &owned_pv_of("custom.name", "s", "edge1", "base"),
        Some("default"),
        None,
    );
    // A dotted name is refused for a variant with pipeline functions (without any it is
    // taken: tests/dotted_names.rs).
    let out = run_case(
        &[TRUST_PR, &trust_repo("edge1"), &owned],
        &pvs(
            "name: s",
            "upstream: {repo: blueprints, package: base, revision: 1}
targets:
- repositories: [{name: edge1}]
  template:
    pipeline: {mutators: [{image: gcr.io/kpt-fn/set-labels:v0.2.0}]}
",
        ),
        1,
    );
    let r = results(&out.stdout);
    assert!(
        r.contains(r#"owned PackageVariant "custom.name" is the set"#),
        "{r}"
    );
}

#[test]
fn template_empty_context_keys_the_package_variant_function_refuses_are_refused() {
    let set = pvs(
        "name: s",
        "upstream: {repo: blueprints, package: base, revision: 1}
targets:
- repositories: [{name: edge1}]
  template:
    packageContext:
      data: {\"\": x}
      removeKeys: [\"\"]
",
    );
    let out = run_case(&[TRUST_PR, &trust_repo("edge1")], &set, 1);
    let r = results(&out.stdout);
    assert!(
        r.contains("path: spec.targets[0].template.packageContext.data")
            && r.contains("path: spec.targets[0].template.packageContext.removeKeys[0]"),
        "{r}"
    );
}

// ---------------------------------------------------------------------------------------------
// Issue 20: CEL as cel-go, continued.

/// A map is iterated in the order of its keys: `target.labels.map(k, k)[0]` is the smallest
/// label key on every run (cel-go iterates a Go map in random order; the package name would
/// change between runs, and each run would delete the previous run's variant).
#[test]
fn cel_map_iteration_is_in_key_order() {
    let labels: Vec<String> = (0..60)
        .map(|i| format!("l{:02}: v{i}", (i * 7) % 60))
        .collect();
    let repo = format!(
        "apiVersion: config.porch.kpt.dev/v1alpha1\nkind: Repository\nmetadata:\n  name: edge1\n  namespace: default\n  labels: {{{}}}\n",
        labels.join(", ")
    );
    let config = expr_set(
        "repositorySelector: {matchLabels: {l00: v0}}",
        "downstream: {packageExpr: \"target.labels.map(k, k)[0] + '-' + target.labels.filter(k, k.endsWith('9'))[0]\"}\nlabelExprs: [{key: last, valueExpr: \"target.labels.map(k, target.labels[k])[59]\"}]",
    );
    for _ in 0..4 {
        let out = run_case(&[PR_P, &repo], &config, 0);
        assert!(out.stdout.contains("package: l00-l09"), "{}", out.stdout);
        assert!(out.stdout.contains("last: v"), "{}", out.stdout);
        // l59 is label i where i * 7 % 60 == 59: i = 17.
        assert!(out.stdout.contains("last: v17"), "{}", out.stdout);
    }
}

/// Conversions as cel-go v0.26.1 makes them: a double printed by Go's `%g`, strings read by
/// Go's `strconv` (a value beyond the largest double is an error, `T` is true).
#[test]
fn cel_conversions_as_cel_go() {
    let out = expr_case(
        "labelExprs:\n- {key: million, valueExpr: \"string(1e6)\"}\n- {key: inf, valueExpr: \"string(1.0/0.0)\"}\n- {key: small, valueExpr: \"string(1e-7)\"}\n- {key: plain, valueExpr: \"string(100000.0)\"}\n- {key: t, valueExpr: \"string(bool('T'))\"}\n- {key: f, valueExpr: \"string(bool('F'))\"}\n- {key: infinity, valueExpr: \"string(double('-Infinity'))\"}\n- {key: hex, valueExpr: \"string(double('0x1p-2'))\"}\n- {key: nanos, valueExpr: \"string(int(duration('1.5s')))\"}",
        0,
    );
    for line in [
        "million: \"1e+06\"",
        "inf: +Inf",
        "small: \"1e-07\"",
        "plain: \"100000\"",
        "t: \"true\"",
        "f: \"false\"",
        "infinity: -Inf",
        "hex: \"0.25\"",
        "nanos: \"1500000000\"",
    ] {
        assert!(out.stdout.contains(line), "{line} not in\n{}", out.stdout);
    }
    // Refused as cel-go refuses them: constants when the program is built, a target's value
    // when it is evaluated.
    for (expr, message) in [
        (
            "string(double('1e309'))",
            "type conversion error from 'string' to 'double'",
        ),
        (
            "string(int('0x10'))",
            "type conversion error from 'string' to 'int'",
        ),
        (
            "string(uint('+1'))",
            "type conversion error from 'string' to 'uint'",
        ),
        (
            "string(bool('yes'))",
            "type conversion error from 'string' to 'bool'",
        ),
        (
            "string(double(string(size(target.repo)) + 'e999'))",
            "type conversion error from 'string' to 'double'",
        ),
    ] {
        let out = label_expr(expr, 1);
        let results = results(&out.stdout);
        assert!(results.contains(message), "{expr}\n{results}");
        assert!(
            results.contains("path: spec.targets[0].template.labelExprs[0].valueExpr"),
            "{results}"
        );
    }
}

// ---------------------------------------------------------------------------------------------
// Issue 21: CEL messages that say the fix.

/// An undeclared name gets "did you mean" among the declared variables and the fields of an
/// object's view, after cel-go's own message and caret.
#[test]
fn cel_undeclared_reference_says_did_you_mean() {
    for (expr, hint) in [
        ("traget.name", "did you mean 'target.name'?"),
        ("repository.name + trget.nme", "did you mean 'target.name'?"),
        ("packageDefualt", "did you mean 'packageDefault'?"),
    ] {
        let out = label_expr(expr, 1);
        let results = results(&out.stdout);
        assert!(results.contains("undeclared reference to '"), "{results}");
        assert!(results.contains(hint), "{expr}\n{results}");
        assert!(
            results.contains(
                "(the variables are repoDefault, packageDefault, upstream, target, repository)"
            ),
            "{results}"
        );
    }
    insta::assert_snapshot!(results(&label_expr("traget.name", 1).stdout));
}

/// `no such key` names the target it was evaluated for, lists the keys the map has (the first
/// 20), the closest one, and how to test for a key a target may lack.
#[test]
fn cel_missing_key_names_the_target_and_its_keys() {
    let selector = "repositorySelector: {matchExpressions: [{key: efg, operator: DoesNotExist}]}";
    let out = run_case(
        &FIXTURES,
        &expr_set(
            selector,
            r#"labelExprs: [{key: e, valueExpr: "target.labels['fo']"}]"#,
        ),
        1,
    );
    let found = results(&out.stdout);
    for needle in [
        "no such key: fo; target.labels has the keys abc, foo: did you mean target.labels.foo?",
        "''fo'' in target.labels ? target.labels[''fo''] : ''''",
        "(evaluated for the target Repository default/my-repo-1)",
    ] {
        assert!(found.contains(needle), "{needle}\n{found}");
    }
    insta::assert_snapshot!(found);

    let out = run_case(
        &FIXTURES,
        &expr_set(
            selector,
            r#"labelExprs: [{key: e, valueExpr: "repository.nme"}]"#,
        ),
        1,
    );
    assert!(
        results(&out.stdout).contains(
            "repository has the keys annotations, labels, name, namespace: did you mean repository.name?"
        ),
        "{}",
        out.stdout
    );

    // Many labels: the first 20 keys, then how many more.
    let labels: Vec<String> = (0..45).map(|i| format!("k{i:02}: v")).collect();
    let repo = format!(
        "apiVersion: config.porch.kpt.dev/v1alpha1\nkind: Repository\nmetadata:\n  name: edge1\n  namespace: default\n  labels: {{env: prod, {}}}\n",
        labels.join(", ")
    );
    let out = run_case(
        &[PR_P, &repo],
        &expr_set(
            "repositorySelector: {matchLabels: {env: prod}}",
            r#"labelExprs: [{key: e, valueExpr: "target.labels['region']"}]"#,
        ),
        1,
    );
    let found = results(&out.stdout);
    assert!(
        found.contains("target.labels has the keys env, k00, k01,"),
        "{found}"
    );
    assert!(found.contains("k18, and 26 more"), "{found}");
    assert!(
        found.contains("(evaluated for the target Repository default/edge1)"),
        "{found}"
    );
}

/// The compile errors of every expression of the set are reported in one run, with the set's
/// other errors (here an invalid adoption policy), each on its field.
#[test]
fn cel_compile_errors_come_with_the_sets_other_errors() {
    let spec = "upstream: {repo: up-repo, package: up-pkg, revision: 2}
targets:
- repositories: [{name: my-repo-1, packageNames: [a]}]
  template:
    labelExprs: [{key: a, valueExpr: \"traget.name\"}, {key: b, valueExpr: \"'a' + 1\"}]
- repositories: [{name: my-repo-2, packageNames: [b]}]
  template:
    adoptionPolicy: bogus
    downstream: {packageExpr: \"size(\"}
";
    let out = run_case(&FIXTURES, &pvs("name: my-pvs\nnamespace: default", spec), 1);
    let results = results(&out.stdout);
    for path in [
        "path: spec.targets[0].template.labelExprs[0].valueExpr",
        "path: spec.targets[0].template.labelExprs[1].valueExpr",
        "path: spec.targets[1].template.adoptionPolicy",
        "path: spec.targets[1].template.downstream.packageExpr",
    ] {
        assert!(results.contains(path), "{path}\n{results}");
    }
    assert_eq!(results.matches("severity: error").count(), 4, "{results}");
}
