//! Pipeline functions as today's Porch and kpt write them (issue 31, item 1): `configRef` and
//! `when` in every kind's `pipeline.mutators[]/validators[]`, checked as the CRD and kpt check
//! them, and copied into the Kptfile unchanged; under real kpt too.

mod common;
mod shell;

use common::{pv_config, resource_list, run, KPTFILE, UPSTREAM_PR};
use shell::Scratch;
use std::fs;
use std::process::Command;

const STEP: &str = "  pipeline:
    mutators:
    - image: set-labels:v0.2.0
      name: labels
      configRef: {apiVersion: v1, kind: ConfigMap, name: labels-config, namespace: web}
      when: \"resources.exists(r, r.kind == 'Deployment')\"
";

fn ext(config: &str) -> String {
    config.replacen(
        "config.porch.kpt.dev/v1alpha1\nkind: PackageVariant",
        "fn.kpt.dev/v1alpha1\nkind: PackageVariant",
        1,
    )
}

#[test]
fn config_ref_and_when_are_copied_into_the_kptfile_in_both_kinds() {
    for config in [pv_config(STEP), ext(&pv_config(STEP))] {
        let out = run(&resource_list(&[KPTFILE], &config));
        assert_eq!(out.code, 0, "{}{}", out.stdout, out.stderr);
        let items = common::items_section(&out.stdout);
        assert!(
            items.contains(
                "      configRef:\n        name: labels-config\n        namespace: web\n        apiVersion: v1\n        kind: ConfigMap\n      when: resources.exists(r, r.kind == 'Deployment')\n"
            ),
            "{items}"
        );
    }
}

fn refused(config: &str, field: &str, words: &[&str]) {
    let out = run(&resource_list(&[KPTFILE], config));
    assert_eq!(out.code, 1, "{}", out.stdout);
    let results = common::results_section(&out.stdout);
    assert!(results.contains(&format!("path: {field}\n")), "{results}");
    for w in words {
        assert!(results.contains(w), "{w:?} not in {results}");
    }
    // Nothing changes: the Kptfile comes back as it went in.
    assert!(!common::items_section(&out.stdout).contains("pipeline:"));
}

#[test]
fn two_config_sources_are_refused_naming_both() {
    let step = "  pipeline:
    validators:
    - image: kubeconform
      configMap: {strict: \"true\"}
      configRef: {kind: ConfigMap, name: c}
";
    for config in [pv_config(step), ext(&pv_config(step))] {
        refused(
            &config,
            "spec.pipeline.validators[0]",
            &["gives both configMap and configRef", "keep one of"],
        );
    }
    let step = "  pipeline:
    mutators:
    - image: x
      configPath: fn.yaml
      configRef: {kind: ConfigMap, name: c}
";
    refused(
        &pv_config(step),
        "spec.pipeline.mutators[0]",
        &["gives both configPath and configRef"],
    );
}

#[test]
fn a_config_ref_needs_kind_and_name() {
    let step = "  pipeline:
    mutators:
    - image: x
      configRef: {apiVersion: v1, name: \"\"}
";
    refused(
        &pv_config(step),
        "spec.pipeline.mutators[0].configRef.kind",
        &["configRef must specify `kind`"],
    );
    refused(
        &pv_config(step),
        "spec.pipeline.mutators[0].configRef.name",
        &["configRef must specify `name`"],
    );
    let unknown = "  pipeline:
    mutators:
    - image: x
      configRef: {kind: ConfigMap, name: c, group: \"\"}
";
    refused(
        &pv_config(unknown),
        "spec.pipeline.mutators[0].configRef.group",
        &["unknown field"],
    );
}

#[test]
fn a_when_kpt_would_not_compile_is_refused_with_cel_gos_message() {
    let step = "  pipeline:
    mutators:
    - image: x
      when: \"resources.exists(r, \"
";
    for config in [pv_config(step), ext(&pv_config(step))] {
        refused(
            &config,
            "spec.pipeline.mutators[0].when",
            &["is not a condition kpt accepts: ERROR: <input>:1:21: Syntax error: mismatched input"],
        );
    }
    // Deep nesting is refused by its depth, not by the parser's stack.
    let deep = format!(
        "  pipeline:\n    mutators:\n    - image: x\n      when: \"{}true{}\"\n",
        "(".repeat(100),
        ")".repeat(100)
    );
    refused(
        &pv_config(&deep),
        "spec.pipeline.mutators[0].when",
        &["nests brackets 100 deep"],
    );
    // Long chains are bounded by length (the parser recurses on them), and all conditions
    // together by a budget, so the check takes bounded time.
    let long = format!(
        "  pipeline:\n    mutators:\n    - image: x\n      when: \"x{}\"\n",
        ".a".repeat(45_000)
    );
    refused(
        &pv_config(&long),
        "spec.pipeline.mutators[0].when",
        &["is 90001 bytes long, more than the limit of 10000 bytes"],
    );
    let mut many = String::from("  pipeline:\n    mutators:\n");
    // Distinct texts: one text is checked, and charged, once.
    for i in 0..11 {
        let text = "a".repeat(9_800);
        many.push_str(&format!(
            "    - image: x\n      when: \"'{text}{i}' != ''\"\n"
        ));
    }
    refused(
        &pv_config(&many),
        "spec.pipeline.mutators[10].when",
        &["more than 100000 bytes together"],
    );
    // kpt v1.0 compiles it before it evaluates it (kptdev/kpt#4469): a variable other than
    // `resources` is refused here as kpt would refuse it at render (tests/kpt_v1.rs has more).
    let odd = "  pipeline:\n    mutators:\n    - image: x\n      when: \"no_such_variable + 1\"\n";
    refused(
        &pv_config(odd),
        "spec.pipeline.mutators[0].when",
        &["undeclared reference to 'no_such_variable'"],
    );
}

const SET: &str = "apiVersion: config.porch.kpt.dev/v1alpha2
kind: PackageVariantSet
metadata:
  name: my-set
spec:
  upstream: {repo: blueprints, package: base, revision: 1}
  targets:
  - repositories: [{name: edge1}]
    template:
      pipeline:
        mutators:
        - image: set-labels
          configRef: {kind: ConfigMap, name: c}
          when: \"resources.size() > 0\"
";

#[test]
fn a_set_carries_config_ref_and_when_into_its_variants_and_checks_them() {
    let repo = common::repository("edge1", "{}");
    for config in [
        SET.to_string(),
        SET.replace("config.porch.kpt.dev/v1alpha2", "fn.kpt.dev/v1alpha1"),
    ] {
        let out = run(&resource_list(&[UPSTREAM_PR, &repo], &config));
        assert_eq!(out.code, 0, "{}{}", out.stdout, out.stderr);
        let v = common::variants(&out.stdout);
        assert_eq!(v.len(), 1);
        assert!(v[0].contains("configRef:"), "{}", v[0]);
        assert!(v[0].contains("when: resources.size() > 0"), "{}", v[0]);

        let bad = config.replace("resources.size() > 0", "resources.size() >");
        let out = run(&resource_list(&[UPSTREAM_PR, &repo], &bad));
        assert_eq!(out.code, 1);
        assert!(out
            .stdout
            .contains("path: spec.targets[0].template.pipeline.mutators[0].when"));
        let both = config.replace(
            "configRef: {kind: ConfigMap, name: c}",
            "configRef: {kind: ConfigMap, name: c}\n          configMapExprs: [{key: a, value: b}]",
        );
        let out = run(&resource_list(&[UPSTREAM_PR, &repo], &both));
        assert_eq!(out.code, 1);
        assert!(out.stdout.contains("gives both configMap and configRef"));
    }
}

/// One template's `when` repeated over many targets is checked, and charged, once: 30 targets
/// with one 9,000-byte condition stay within the 100,000-byte budget.
#[test]
fn a_when_repeated_over_targets_is_checked_once() {
    let when = format!("'{}' != ''", "a".repeat(9_000));
    let mut targets = String::from("  targets:\n");
    let mut repos = Vec::new();
    for t in 0..30 {
        targets.push_str(&format!(
            "  - repositories: [{{name: edge{t}}}]\n    template:\n      pipeline:\n        mutators:\n        - image: x\n          when: \"{when}\"\n"
        ));
        repos.push(common::repository(&format!("edge{t}"), "{}"));
    }
    let mut items: Vec<&str> = vec![UPSTREAM_PR];
    items.extend(repos.iter().map(String::as_str));
    let out = run(&resource_list(&items, &common::pvs_config(&targets)));
    assert_eq!(out.code, 0, "{}", common::results_section(&out.stdout));
    assert_eq!(common::variants(&out.stdout).len(), 30);
}

/// Under real kpt: `kpt fn eval --exec` writes the step with its `configRef` and `when`.
#[test]
fn kpt_writes_config_ref_and_when_into_the_kptfile() {
    let scratch = Scratch::new("upstream-fns");
    let pkg = scratch.0.join("pkg");
    fs::create_dir_all(&pkg).unwrap();
    fs::write(
        pkg.join("Kptfile"),
        "apiVersion: kpt.dev/v1\nkind: Kptfile\nmetadata:\n  name: pkg\n",
    )
    .unwrap();
    let config = scratch.0.join("pv.yaml");
    fs::write(&config, pv_config(STEP)).unwrap();
    let out = Command::new("kpt")
        .args(["fn", "eval", "pkg", "--exec"])
        .arg(env!("CARGO_BIN_EXE_package-variant"))
        .arg("--fn-config")
        .arg(&config)
        .current_dir(&scratch.0)
        .output()
        .expect("kpt (is kpt on PATH?)");
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let kptfile = fs::read_to_string(pkg.join("Kptfile")).unwrap();
    assert!(
        kptfile.contains("    configRef:\n      name: labels-config\n      namespace: web\n      apiVersion: v1\n      kind: ConfigMap\n    when: resources.exists(r, r.kind == 'Deployment')\n"),
        "{kptfile}"
    );
}

/// Item 6: a dotted PackageVariant name (Repositories are DNS subdomains, `edge1.example.com`)
/// is taken when the variant has no pipeline functions, and refused as before when it has.
#[test]
fn a_dotted_name_is_taken_without_pipeline_functions() {
    let plain = pv_config("  packageContext:\n    data: {zone: a}\n")
        .replace("  name: my-pv\n", "  name: edge1.example.com-base\n");
    let out = run(&resource_list(&[KPTFILE, common::PACKAGE_CONTEXT], &plain));
    assert_eq!(out.code, 0, "{}{}", out.stdout, out.stderr);
    assert!(out.stdout.contains("    zone: a\n"), "{}", out.stdout);

    let with_fns = pv_config(STEP).replace("  name: my-pv\n", "  name: edge1.example.com-base\n");
    refused(
        &with_fns,
        "metadata.name",
        &["must not contain \".\": its pipeline functions"],
    );
}
