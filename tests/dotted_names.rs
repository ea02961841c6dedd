//! Dotted names as Porch takes them, the set's side (issue 31 item 6): Repositories are DNS
//! subdomains (`edge1.example.com`), so a set over them names its variants
//! `<set>-edge1.example.com-<package>`. The set makes such a variant exactly when the
//! PackageVariant function takes it: when the variant has no pipeline functions. With a
//! template pipeline the set is refused, on the field that gave the dot, saying why and what
//! to write instead. Through the binary, and under kpt.

mod common;
mod shell;

use common::{items_section, resource_list, results_section, run, variants, KPTFILE};
use shell::{bin_dir, sh, Scratch};
use std::fs;

const UPSTREAM: &str = "apiVersion: porch.kpt.dev/v1alpha1
kind: PackageRevision
metadata:
  name: blueprints.base.v1
spec: {repository: blueprints, packageName: base, revision: 1}
";

fn repo(name: &str) -> String {
    format!(
        "apiVersion: config.porch.kpt.dev/v1alpha1\nkind: Repository\nmetadata:\n  name: {name}\n  labels: {{tier: edge}}\n"
    )
}

/// The set `name` over every `tier: edge` Repository, each variant's package context naming
/// its Repository, and `more` appended to the template (lines indented by six spaces).
fn set(name: &str, more: &str) -> String {
    format!(
        "apiVersion: config.porch.kpt.dev/v1alpha2
kind: PackageVariantSet
metadata:
  name: {name}
spec:
  upstream: {{repo: blueprints, package: base, revision: 1}}
  targets:
  - repositorySelector: {{matchLabels: {{tier: edge}}}}
    template:
      packageContext:
        dataExprs: [{{key: site, valueExpr: repository.name}}]
{more}"
    )
}

const PIPELINE: &str =
    "      pipeline:\n        mutators: [{image: gcr.io/kpt-fn/set-labels:v0.2.0}]\n";

/// An owned variant `name` of the set `fleet` (no uid: the owner label holds the set's name)
/// for the downstream `repo`/`base`.
fn owned(name: &str, repo: &str) -> String {
    format!(
        "apiVersion: config.porch.kpt.dev/v1alpha1
kind: PackageVariant
metadata:
  name: {name}
  namespace: default
  labels: {{config.porch.kpt.dev/packagevariantset: fleet}}
spec:
  upstream: {{repo: blueprints, package: base, revision: 1}}
  downstream: {{repo: {repo}, package: base}}
"
    )
}

fn go(items: &[&str], config: &str) -> common::Run {
    run(&resource_list(items, config))
}

/// Exit 1, every item as it was, and the results.
fn refused(items: &[&str], config: &str) -> String {
    let input = resource_list(items, config);
    let out = run(&input);
    assert_eq!(out.code, 1, "{}", out.stdout);
    assert_eq!(items_section(&out.stdout), items_section(&input));
    results_section(&out.stdout).replace("''", "'")
}

#[test]
fn a_set_over_dotted_repositories_makes_dotted_variants_without_pipeline_functions() {
    let (e1, e2) = (repo("edge1.example.com"), repo("edge2.example.com"));
    let out = go(&[UPSTREAM, &e1, &e2], &set("fleet", ""));
    assert_eq!(out.code, 0, "{}{}", out.stdout, out.stderr);
    let made = variants(&out.stdout);
    assert_eq!(made.len(), 2, "{}", out.stdout);
    for (doc, site) in made.iter().zip(["edge1.example.com", "edge2.example.com"]) {
        for line in [
            format!("  name: fleet-{site}-base\n"),
            format!("    config.kubernetes.io/path: packagevariants/fleet-{site}-base.yaml\n"),
            format!("    repo: {site}\n"),
            format!("      site: {site}\n"),
        ] {
            assert!(doc.contains(&line), "{line:?} not in\n{doc}");
        }
    }
    assert!(
        results_section(&out.stdout)
            .contains("2 created (fleet-edge1.example.com-base, fleet-edge2.example.com-base)"),
        "{}",
        out.stdout
    );
}

#[test]
fn with_a_template_pipeline_the_set_is_refused_saying_why_and_what_to_write() {
    let (e1, e2) = (repo("edge1.example.com"), repo("edge2.example.com"));
    let r = refused(&[UPSTREAM, &e1, &e2], &set("fleet", PIPELINE));
    for site in ["edge1.example.com", "edge2.example.com"] {
        assert!(
            r.contains(&format!(
                "the selected Repository \"{site}\" gives the downstream repo \"{site}\", which makes the PackageVariant name \"fleet-{site}-base\": PackageVariant name \"fleet-{site}-base\" must not contain \".\": its pipeline functions"
            )),
            "{site}: {r}"
        );
    }
    assert!(
        r.contains("move the functions of spec.targets[0].template.pipeline into the upstream package's Kptfile (every variant inherits them), or choose downstream Repositories whose names have no \".\""),
        "{r}"
    );
    assert_eq!(
        r.matches("path: spec.targets[0].repositorySelector\n")
            .count(),
        2,
        "{r}"
    );
    assert_eq!(r.matches("severity: error").count(), 2, "{r}");
}

#[test]
fn a_dotted_package_with_a_pipeline_is_refused_on_its_packagenames_entry() {
    let config = "apiVersion: config.porch.kpt.dev/v1alpha2
kind: PackageVariantSet
metadata:
  name: fleet
spec:
  upstream: {repo: blueprints, package: base, revision: 1}
  targets:
  - repositories: [{name: edge1, packageNames: [base.v2]}]
    template:
      pipeline:
        validators: [{image: gcr.io/kpt-fn/kubeval:v0.3.0}]
";
    let e1 = repo("edge1");
    let r = refused(&[UPSTREAM, &e1], config);
    assert!(
        r.contains("gives the downstream package \"base.v2\"")
            && r.contains("or write the downstream package without \".\"")
            && r.contains("path: spec.targets[0].repositories[0].packageNames[0]\n"),
        "{r}"
    );
    // Without the pipeline, the same package makes the variant.
    let plain = config.replace(
        "    template:\n      pipeline:\n        validators: [{image: gcr.io/kpt-fn/kubeval:v0.3.0}]\n",
        "",
    );
    let out = go(&[UPSTREAM, &e1], &plain);
    assert_eq!(out.code, 0, "{}", out.stdout);
    assert!(
        out.stdout.contains("  name: fleet-edge1-base.v2\n"),
        "{}",
        out.stdout
    );
}

#[test]
fn a_dotted_package_from_cel_with_a_pipeline_is_refused_on_the_expression() {
    let e1 = repo("edge1");
    let more =
        format!("      downstream: {{packageExpr: \"'base.' + repository.name\"}}\n{PIPELINE}");
    let r = refused(&[UPSTREAM, &e1], &set("fleet", &more));
    assert!(
        r.contains("gives the downstream package \"base.edge1\", which makes the PackageVariant name \"fleet-edge1-base.edge1\"")
            && r.contains("or write the downstream package without \".\"")
            && r.contains("path: spec.targets[0].template.downstream.packageExpr\n"),
        "{r}"
    );
}

/// The emitted variant, fed to the PackageVariant function with a package, is taken.
#[test]
fn the_dotted_variant_the_set_makes_is_taken_by_the_package_variant_function() {
    let e1 = repo("edge1.example.com");
    let out = go(&[UPSTREAM, &e1], &set("fleet", ""));
    assert_eq!(out.code, 0, "{}", out.stdout);
    let made = variants(&out.stdout);
    let variant = made.first().expect("one variant");
    let pv = run(&resource_list(&[KPTFILE, common::PACKAGE_CONTEXT], variant));
    assert_eq!(pv.code, 0, "{}{}", pv.stdout, pv.stderr);
    assert!(
        items_section(&pv.stdout).contains("    site: edge1.example.com\n"),
        "{}",
        pv.stdout
    );
}

/// Owned variants under dotted names: the one still wanted is updated (its spec replaced, its
/// name kept), the one whose Repository is gone is deleted.
#[test]
fn owned_dotted_variants_are_updated_and_deleted() {
    let e1 = repo("edge1.example.com");
    let kept = owned("fleet-edge1.example.com-base", "edge1.example.com");
    let gone = owned("fleet-edge3.example.com-base", "edge3.example.com");
    let config = set("fleet", "").replace(
        "  name: fleet\n",
        "  name: fleet\n  annotations: {package-variant.fn.kpt.dev/allow-deletions: all}\n",
    );
    let out = go(&[UPSTREAM, &e1, &kept, &gone], &config);
    assert_eq!(out.code, 0, "{}{}", out.stdout, out.stderr);
    let left = variants(&out.stdout);
    assert_eq!(left.len(), 1, "{}", out.stdout);
    assert!(
        left[0].contains("  name: fleet-edge1.example.com-base\n")
            && left[0].contains("      site: edge1.example.com\n"),
        "{}",
        left[0]
    );
    assert!(
        results_section(&out.stdout).contains(
            "0 created, 1 updated (fleet-edge1.example.com-base [spec.packageContext]), 1 deleted (fleet-edge3.example.com-base)"
        ),
        "{}",
        out.stdout
    );
}

/// An updated variant keeps its name: a dotted one is kept when the target has no pipeline
/// functions, and refused, with the fix, when it has.
#[test]
fn an_owned_variant_keeps_a_dotted_name_only_without_pipeline_functions() {
    let e1 = repo("edge1");
    let legacy = owned("legacy.edge1", "edge1");
    let out = go(&[UPSTREAM, &e1, &legacy], &set("fleet", ""));
    assert_eq!(out.code, 0, "{}{}", out.stdout, out.stderr);
    let left = variants(&out.stdout);
    assert_eq!(left.len(), 1, "{}", out.stdout);
    assert!(left[0].contains("  name: legacy.edge1\n"), "{}", left[0]);
    assert!(left[0].contains("      site: edge1\n"), "{}", left[0]);

    let r = refused(&[UPSTREAM, &e1, &legacy], &set("fleet", PIPELINE));
    assert!(
        r.contains("owned PackageVariant \"legacy.edge1\" is the set's variant for its downstream, but PackageVariant name \"legacy.edge1\" must not contain \".\"")
            && r.contains("rename it or remove it")
            && r.contains("; or: a variant without pipeline functions may have a dotted name: move the functions of spec.targets[0].template.pipeline")
            && r.contains("path: metadata.name\n"),
        "{r}"
    );
}

/// The set's name starts every variant's name: a dotted one is taken when no target has
/// pipeline functions, and refused on `metadata.name`, naming the target, when one has.
#[test]
fn a_dotted_set_name_is_taken_only_without_pipeline_functions() {
    let e1 = repo("edge1");
    let out = go(&[UPSTREAM, &e1], &set("fleet.example.com", ""));
    assert_eq!(out.code, 0, "{}{}", out.stdout, out.stderr);
    assert!(
        out.stdout
            .contains("  name: fleet.example.com-edge1-base\n")
            && out
                .stdout
                .contains("config.porch.kpt.dev/packagevariantset: fleet.example.com\n"),
        "{}",
        out.stdout
    );
    let r = refused(&[UPSTREAM, &e1], &set("fleet.example.com", PIPELINE));
    assert!(
        r.contains("PackageVariantSet name \"fleet.example.com\" prefixes the name of every PackageVariant of the set, and the variants of spec.targets[0] have pipeline functions, so a PackageVariant name must not contain \".\"")
            && r.contains("or name the set without \".\"")
            && r.contains("path: metadata.name\n"),
        "{r}"
    );
}

/// Porch cuts a name past 63 bytes to 54 and a hash: a dot at the cut leaves `.-`, which
/// Kubernetes refuses, with or without functions. The error says so, on the Repository.
#[test]
fn a_cut_that_leaves_a_dot_before_the_hash_is_refused_as_kubernetes_would() {
    // "fleet-" is 6 bytes: the repo's 48th byte is the name's 54th, the last one kept.
    let long = format!("{}.example.com", "e".repeat(47));
    let r = refused(&[UPSTREAM, &repo(&long)], &set("fleet", ""));
    assert!(
        r.contains(&format!(
            "the selected Repository \"{long}\" gives the downstream repo"
        )) && r.contains("invalid: its part \"-")
            && r.contains("Kubernetes would refuse it")
            && !r.contains("must not contain \".\"")
            && r.contains("path: spec.targets[0].repositorySelector\n"),
        "{r}"
    );
}

/// The set's own name holds the '.' Porch's cut leaves before the hash: the error is on
/// `metadata.name`, not on the Repository that only lengthened the name.
#[test]
fn a_cut_inside_a_dotted_set_name_is_refused_on_the_set_name() {
    // The set's 54th byte is its '.', the last byte kept.
    let name = format!("{}.edge", "f".repeat(53));
    let r = refused(&[UPSTREAM, &repo("edge1")], &set(&name, ""));
    assert!(
        r.contains(&format!(
            "the set's name \"{name}\" makes the PackageVariant name"
        )) && r.contains("Kubernetes would refuse it")
            && r.contains("rename the set so that its byte 54 is not \".\"")
            && r.contains("path: metadata.name\n")
            && !r.contains("selected Repository"),
        "{r}"
    );
}

/// Under kpt: `kpt fn eval` writes the dotted variants as files named after them, and one of
/// them, as the functionConfig of a second `kpt fn eval`, renders its package.
#[test]
fn kpt_writes_dotted_variants_and_one_renders_its_package() {
    let scratch = Scratch::new("dotted-names");
    let dir = &scratch.0;
    let bin = bin_dir(dir);
    fs::create_dir_all(dir.join("fleet")).unwrap();
    fs::create_dir_all(dir.join("pkg")).unwrap();
    let repos = format!(
        "{}---\n{}",
        repo("edge1.example.com"),
        repo("edge2.example.com")
    );
    fs::write(dir.join("fleet/repositories.yaml"), repos).unwrap();
    fs::write(dir.join("fleet/packagerevisions.yaml"), UPSTREAM).unwrap();
    fs::write(dir.join("set.yaml"), set("fleet", "")).unwrap();
    fs::write(
        dir.join("pkg/Kptfile"),
        "apiVersion: kpt.dev/v1\nkind: Kptfile\nmetadata:\n  name: base\n",
    )
    .unwrap();
    fs::write(
        dir.join("pkg/package-context.yaml"),
        "apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: kptfile.kpt.dev\n  annotations:\n    config.kubernetes.io/local-config: \"true\"\ndata:\n  name: base\n",
    )
    .unwrap();
    let (code, log) = sh(
        dir,
        &bin,
        "kpt fn eval fleet --exec package-variant --fn-config set.yaml",
    );
    assert_eq!(code, 0, "{log}");
    let mut files: Vec<String> = fs::read_dir(dir.join("fleet/packagevariants"))
        .unwrap()
        .map(|e| e.unwrap().file_name().to_string_lossy().into_owned())
        .collect();
    files.sort();
    assert_eq!(
        files,
        [
            "fleet-edge1.example.com-base.yaml",
            "fleet-edge2.example.com-base.yaml"
        ]
    );
    let (code, log) = sh(
        dir,
        &bin,
        "kpt fn eval pkg --exec package-variant --fn-config fleet/packagevariants/fleet-edge2.example.com-base.yaml",
    );
    assert_eq!(code, 0, "{log}");
    let context = fs::read_to_string(dir.join("pkg/package-context.yaml")).unwrap();
    assert!(context.contains("  site: edge2.example.com\n"), "{context}");
}
