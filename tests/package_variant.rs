//! The PackageVariant function through the binary: Porch's test cases (porch-behaviour notes §8)
//! and our own rules, each a snapshot of the output ResourceList and the exit code.
//!
//! Packages are sent the way kpt sends them: every document of every file is an item with
//! kpt's path and index annotations.

mod common;

// ---------------------------------------------------------------- harness

/// Runs the binary; returns `exit: N` followed by stdout (and stderr when not empty).
fn run(input: &str) -> (i32, String) {
    let out = common::run(input);
    let mut text = out.stdout;
    if !out.stderr.is_empty() {
        text.push_str("--- stderr\n");
        text.push_str(&out.stderr);
    }
    (out.code, text)
}

/// Adds kpt's path and index annotations to one document (a block mapping with `metadata:`).
fn annotate(doc: &str, path: &str, index: usize) -> String {
    let extra = [
        format!("config.kubernetes.io/index: '{index}'"),
        format!("config.kubernetes.io/path: '{path}'"),
        format!("internal.config.kubernetes.io/index: '{index}'"),
        format!("internal.config.kubernetes.io/path: '{path}'"),
    ];
    let lines: Vec<&str> = doc.lines().collect();
    let mut out: Vec<String> = Vec::new();
    let meta = lines.iter().position(|l| *l == "metadata:");
    let Some(meta) = meta else {
        // No metadata: add it at the end.
        out.extend(lines.iter().map(|l| l.to_string()));
        out.push("metadata:".into());
        out.push("  annotations:".into());
        out.extend(extra.iter().map(|e| format!("    {e}")));
        return out.join("\n") + "\n";
    };
    let meta_end = (meta + 1..lines.len())
        .find(|&i| !lines[i].starts_with(' ') && !lines[i].is_empty())
        .unwrap_or(lines.len());
    let ann = (meta + 1..meta_end).find(|&i| lines[i] == "  annotations:");
    let insert_at;
    let mut block: Vec<String> = extra.iter().map(|e| format!("    {e}")).collect();
    match ann {
        Some(a) => {
            insert_at = (a + 1..meta_end)
                .find(|&i| !lines[i].starts_with("    "))
                .unwrap_or(meta_end);
        }
        None => {
            insert_at = meta_end;
            block.insert(0, "  annotations:".into());
        }
    }
    out.extend(lines[..insert_at].iter().map(|l| l.to_string()));
    out.extend(block);
    out.extend(lines[insert_at..].iter().map(|l| l.to_string()));
    out.join("\n") + "\n"
}

/// Indents every line of `text` by `n` spaces, the first one prefixed by `first` instead.
fn indent(text: &str, first: &str, n: usize) -> String {
    let pad = " ".repeat(n);
    let mut s = String::new();
    for (i, l) in text.lines().enumerate() {
        if i == 0 {
            s.push_str(first);
        } else if !l.is_empty() {
            s.push_str(&pad);
        }
        s.push_str(l);
        s.push('\n');
    }
    s
}

/// A ResourceList of the files `(path, text)` (documents split at `---`), extra raw items
/// (in-cluster objects, without path), and the functionConfig.
fn resource_list(files: &[(&str, &str)], extra: &[&str], config: &str) -> String {
    let mut s = String::from("apiVersion: config.kubernetes.io/v1\nkind: ResourceList\nitems:\n");
    for (path, text) in files {
        for (index, doc) in text.split("---\n").enumerate() {
            s.push_str(&indent(&annotate(doc, path, index), "- ", 2));
        }
    }
    for item in extra {
        s.push_str(&indent(item, "- ", 2));
    }
    s.push_str("functionConfig:\n");
    s.push_str(&indent(config, "  ", 2));
    s
}

/// Runs `input`, then runs again on the output (with `extra` in-cluster items fed again) and
/// asserts the second run changes nothing. Returns the first run's snapshot text.
fn run_twice(input: &str, extra: &[&str]) -> String {
    let (code, out) = run(input);
    let text = format!("exit: {code}\n{out}");
    if code != 0 {
        return text;
    }
    let (items, rest) = out
        .split_once("\nfunctionConfig:\n")
        .expect("output has a functionConfig");
    let fc = rest.split("\nresults:\n").next().unwrap_or(rest);
    let fc = fc.trim_end_matches('\n');
    let mut again = format!("{items}\n");
    for item in extra {
        again.push_str(&indent(item, "- ", 2));
    }
    again.push_str("functionConfig:\n");
    again.push_str(fc);
    again.push('\n');
    let (code2, out2) = run(&again);
    assert_eq!(code2, 0, "second run failed:\n{out2}");
    let items2 = out2.split("\nfunctionConfig:\n").next().unwrap_or("");
    let items1 = format!(
        "{items}\n{}",
        extra.iter().map(|e| indent(e, "- ", 2)).collect::<String>()
    );
    // The second run removes the re-fed in-cluster items again, so compare package items.
    let strip = |s: &str| -> String {
        s.split("\n- ")
            .filter(|d| !d.contains("config.porch.kpt.dev/in-cluster"))
            .collect::<Vec<_>>()
            .join("\n- ")
    };
    assert_eq!(
        strip(items2),
        strip(items1.trim_end_matches('\n')),
        "second run changed the package"
    );
    text
}

macro_rules! snap {
    ($name:expr, $text:expr) => {
        insta::assert_snapshot!($name, $text)
    };
}

// ---------------------------------------------------------------- fixtures

const KPTFILE: &str = "\
apiVersion: kpt.dev/v1
kind: Kptfile
metadata:
  name: prr
  annotations:
    config.kubernetes.io/local-config: \"true\"
info:
  description: Example
";

fn context_with(initial: &str) -> String {
    format!(
        "apiVersion: v1
kind: ConfigMap
metadata:
  name: kptfile.kpt.dev
  annotations:
    config.kubernetes.io/local-config: \"true\"
data:
  name: example
{initial}"
    )
}

/// A PackageVariant `my-pv` with a valid upstream/downstream and `extra` spec lines (indented
/// for `spec:`).
fn pv(extra: &str) -> String {
    pv_named("my-pv", "", extra)
}

fn pv_named(name: &str, namespace: &str, extra: &str) -> String {
    let ns = if namespace.is_empty() {
        String::new()
    } else {
        format!("  namespace: {namespace}\n")
    };
    format!(
        "apiVersion: config.porch.kpt.dev/v1alpha1
kind: PackageVariant
metadata:
  name: {name}
{ns}spec:
  upstream:
    repo: blueprints
    package: foo
    revision: 1
  downstream:
    repo: deployments
    package: foo
{extra}"
    )
}

fn kptfile_with(tail: &str) -> String {
    format!("{KPTFILE}{tail}")
}

// ---------------------------------------------------------------- 8.1 package context

fn context_case(pc: &str, initial: &str) -> String {
    let ctx = context_with(initial);
    run_twice(
        &resource_list(
            &[("Kptfile", KPTFILE), ("package-context.yaml", &ctx)],
            &[],
            &pv(pc),
        ),
        &[],
    )
}

#[test]
fn context_1_empty_package_context() {
    snap!("context_1_empty", context_case("", ""));
}

#[test]
fn context_2_add_one_entry() {
    snap!(
        "context_2_add_one",
        context_case("  packageContext:\n    data:\n      foo: bar\n", "")
    );
}

#[test]
fn context_3_add_two_entries() {
    snap!(
        "context_3_add_two",
        context_case(
            "  packageContext:\n    data:\n      foo: bar\n      foobar: barfoo\n",
            ""
        )
    );
}

#[test]
fn context_4_add_one_with_existing() {
    snap!(
        "context_4_add_one_with_existing",
        context_case(
            "  packageContext:\n    data:\n      foo: bar\n",
            "  hello: there\n"
        )
    );
}

#[test]
fn context_5_change_existing() {
    snap!(
        "context_5_change_existing",
        context_case(
            "  packageContext:\n    data:\n      foo: bar\n",
            "  foo: there\n"
        )
    );
}

#[test]
fn context_6_remove_one_entry() {
    snap!(
        "context_6_remove_one",
        context_case(
            "  packageContext:\n    removeKeys:\n    - hello\n",
            "  hello: there\n"
        )
    );
}

#[test]
fn context_7_remove_entry_leave_existing() {
    snap!(
        "context_7_remove_leave_existing",
        context_case(
            "  packageContext:\n    removeKeys:\n    - hello\n",
            "  hello: there\n  foo: bar\n"
        )
    );
}

#[test]
fn context_8_remove_and_add_entries() {
    snap!(
        "context_8_remove_and_add",
        context_case(
            "  packageContext:\n    data:\n      foobar: barfoo\n      there: hello\n    removeKeys:\n    - hello\n",
            "  hello: there\n  foo: bar\n"
        )
    );
}

#[test]
fn context_key_in_data_and_remove_keys_is_removed() {
    snap!(
        "context_data_and_remove_same_key",
        context_case(
            "  packageContext:\n    data:\n      foo: bar\n      keep: me\n    removeKeys:\n    - foo\n",
            ""
        )
    );
}

#[test]
fn context_keeps_comments_and_quoting() {
    let ctx = context_with(
        "  # the region\n  region: 'us-east1' # trailing\n  zone: \"a\"\n  replicas: \"3\"\n",
    );
    snap!(
        "context_keeps_comments_and_quoting",
        run_twice(
            &resource_list(
                &[("Kptfile", KPTFILE), ("package-context.yaml", &ctx)],
                &[],
                &pv("  packageContext:\n    data:\n      region: us-west1\n      replicas: \"3\"\n      on: \"yes\"\n      namespace: ns\n"),
            ),
            &[],
        )
    );
}

#[test]
fn context_missing_file_is_an_error_only_with_work() {
    // Nothing to do: no error.
    let (code, _) = run(&resource_list(&[("Kptfile", KPTFILE)], &[], &pv("")));
    assert_eq!(code, 0);
    snap!(
        "context_missing_file",
        run_twice(
            &resource_list(
                &[("Kptfile", KPTFILE)],
                &[],
                &pv("  packageContext:\n    data:\n      foo: bar\n")
            ),
            &[]
        )
    );
}

#[test]
fn context_without_data_is_an_error() {
    let ctx = "apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: kptfile.kpt.dev\n";
    snap!(
        "context_no_data",
        run_twice(
            &resource_list(
                &[("Kptfile", KPTFILE), ("package-context.yaml", ctx)],
                &[],
                &pv("  packageContext:\n    data:\n      foo: bar\n")
            ),
            &[]
        )
    );
}

#[test]
fn context_wrong_name_and_kind_are_errors() {
    let wrong_name = "apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: other\ndata:\n  a: b\n";
    let wrong_kind =
        "apiVersion: v1\nkind: Secret\nmetadata:\n  name: kptfile.kpt.dev\ndata:\n  a: b\n";
    let cfg = pv("  packageContext:\n    removeKeys:\n    - a\n");
    let (c1, o1) = run(&resource_list(
        &[("Kptfile", KPTFILE), ("package-context.yaml", wrong_name)],
        &[],
        &cfg,
    ));
    let (c2, o2) = run(&resource_list(
        &[("Kptfile", KPTFILE), ("package-context.yaml", wrong_kind)],
        &[],
        &cfg,
    ));
    snap!(
        "context_wrong_name_and_kind",
        format!("exit: {c1}\n{o1}\n=====\nexit: {c2}\n{o2}")
    );
}

#[test]
fn context_of_a_subpackage_is_left_alone() {
    let ctx = context_with("");
    let sub_ctx = context_with("  sub: yes\n");
    snap!(
        "context_subpackage_untouched",
        run_twice(
            &resource_list(
                &[
                    ("Kptfile", KPTFILE),
                    ("package-context.yaml", &ctx),
                    ("sub/Kptfile", KPTFILE),
                    ("sub/package-context.yaml", &sub_ctx),
                ],
                &[],
                &pv("  packageContext:\n    data:\n      foo: bar\n")
            ),
            &[]
        )
    );
}

// ---------------------------------------------------------------- 8.2 pipeline

const MUTATORS_1: &str = "\
pipeline:
  mutators:
    - image: ghcr.io/kptdev/krm-functions-catalog/set-labels:v0.1
      name: set-labels
      configMap:
        app: foo
    - image: ghcr.io/kptdev/krm-functions-catalog/set-annotations:v0.1
      name: set-annotations
";

const PV_SET_NAMESPACE: &str = "  pipeline:
    mutators:
      - image: ghcr.io/kptdev/krm-functions-catalog/set-namespace:v0.1
        name: set-namespace
        configMap:
          namespace: my-ns
";

const VALIDATORS_6: &str = "\
pipeline:
  validators:
    - image: ghcr.io/kptdev/krm-functions-catalog/gatekeeper-validate:v0.1
      name: gatekeeper-validate
";

const PV_VALIDATE_NAME: &str = "  pipeline:
    validators:
      - image: ghcr.io/kptdev/krm-functions-catalog/validate-name:undefined
        name: validate-name 
";

fn pipeline_case(initial: &str, pv_extra: &str) -> String {
    let k = kptfile_with(initial);
    run_twice(&resource_list(&[("Kptfile", &k)], &[], &pv(pv_extra)), &[])
}

#[test]
fn pipeline_1_add_one_mutator_with_existing() {
    snap!(
        "pipeline_1_add_one_mutator_with_existing",
        pipeline_case(MUTATORS_1, PV_SET_NAMESPACE)
    );
}

#[test]
fn pipeline_2_add_two_mutators_with_existing() {
    snap!(
        "pipeline_2_add_two_mutators_with_existing",
        pipeline_case(
            MUTATORS_1,
            &format!("{PV_SET_NAMESPACE}      - image: ghcr.io/kptdev/krm-functions-catalog/format:latest\n        name: format\n")
        )
    );
}

#[test]
fn pipeline_3_add_one_mutator_with_none_existing() {
    snap!(
        "pipeline_3_add_one_mutator_none_existing",
        pipeline_case("", PV_SET_NAMESPACE)
    );
}

#[test]
fn pipeline_4_add_none_with_existing_mutators() {
    snap!(
        "pipeline_4_add_none_with_existing_mutators",
        pipeline_case(MUTATORS_1, "  pipeline:\n")
    );
}

#[test]
fn pipeline_5_add_one_mutator_with_existing_with_comments() {
    let initial = MUTATORS_1.replacen(
        "set-labels:v0.1\n",
        "set-labels:v0.1\n      # this is a comment\n",
        1,
    );
    snap!(
        "pipeline_5_existing_with_comments",
        pipeline_case(&initial, PV_SET_NAMESPACE)
    );
}

#[test]
fn pipeline_6_add_one_validator_with_existing() {
    snap!(
        "pipeline_6_add_one_validator_with_existing",
        pipeline_case(VALIDATORS_6, PV_VALIDATE_NAME)
    );
}

#[test]
fn pipeline_7_add_two_validators_with_existing() {
    // Porch's test body is identical to case 6 (only one validator is added).
    snap!(
        "pipeline_7_add_two_validators_with_existing",
        pipeline_case(VALIDATORS_6, PV_VALIDATE_NAME)
    );
}

#[test]
fn pipeline_8_add_none_with_existing_validator() {
    snap!(
        "pipeline_8_add_none_with_existing_validator",
        pipeline_case(VALIDATORS_6, "")
    );
}

#[test]
fn pipeline_9_add_validator_and_mutator_with_existing() {
    let initial = "\
pipeline:
  validators:
    - image: ghcr.io/kptdev/krm-functions-catalog/val1
      name: val1
    - image: ghcr.io/kptdev/krm-functions-catalog/val2
      name: val2
  mutators:
    - image: ghcr.io/kptdev/krm-functions-catalog/mut1
      name: mut1
    - image: ghcr.io/kptdev/krm-functions-catalog/mut2
      name: mut2
";
    let pv_extra = "  pipeline:
    validators:
    - image: ghcr.io/kptdev/krm-functions-catalog/val3
      name: val3
    - image: ghcr.io/kptdev/krm-functions-catalog/val4
      name: val4
    mutators:
    - image: ghcr.io/kptdev/krm-functions-catalog/mut3
      name: mut3
    - image: ghcr.io/kptdev/krm-functions-catalog/mut4
      name: mut4
";
    snap!(
        "pipeline_9_validator_and_mutator_with_existing",
        pipeline_case(initial, pv_extra)
    );
}

#[test]
fn pipeline_10_remove_pv_mutator() {
    snap!(
        "pipeline_10_remove_pv_mutator",
        pipeline_case(
            "pipeline:\n  mutators:\n    - image: ghcr.io/kptdev/krm-functions-catalog/mut:v1\n      name: PackageVariant.my-pv.mut.0\n",
            ""
        )
    );
}

#[test]
fn pipeline_11_remove_pv_validator() {
    snap!(
        "pipeline_11_remove_pv_validator",
        pipeline_case(
            "pipeline:\n  validators:\n    - image: ghcr.io/kptdev/krm-functions-catalog/val:v1\n      name: PackageVariant.my-pv.val.0\n",
            ""
        )
    );
}

#[test]
fn pipeline_12_remove_pv_validator_keep_prr_one() {
    snap!(
        "pipeline_12_remove_pv_validator_keep_other",
        pipeline_case(
            "pipeline:\n  validators:\n    - image: ghcr.io/kptdev/krm-functions-catalog/val:v1\n      name: PackageVariant.my-pv.val.0\n    - image: ghcr.io/kptdev/krm-functions-catalog/val:v1\n      name: non-pv-val\n",
            ""
        )
    );
}

/// 8.2 derived cases and 8.3/8.4 (name generation and recognition) through the pipeline:
/// other PVs' functions, 5-part names, non-integer suffixes and unnamed entries are kept;
/// `PackageVariant.my-pv..0` and Atoi's `+1`/`007` suffixes are recognised and replaced.
#[test]
fn pipeline_recognition_rules() {
    let initial = "\
pipeline:
  mutators:
  - image: a
    name: PackageVariant.other-pv.x.0
  - image: b
    name: PackageVariant.my-pv.x.y.0
  - image: c
    name: PackageVariant.my-pv.x.str
  - image: d
  - image: e
    name: PackageVariant.my-pv..0
  - image: f
    name: PackageVariant.my-pv.old.+1
  - image: g
    name: PackageVariant.my-pv.old.007
";
    let pv_extra = "  pipeline:
    mutators:
    - image: unnamed:v1
    - image: sel:v1
      name: sel
      selectors:
      - annotations: {a: b}
        labels: {l: v}
        kind: Deployment
        apiVersion: apps/v1
        namespace: ns
        name: web
      exclude:
      - kind: Kptfile
      configMap:
        namespace: ns
        data: x
        a: \"1\"
";
    snap!(
        "pipeline_recognition_rules",
        pipeline_case(initial, pv_extra)
    );
}

#[test]
fn pipeline_both_lists_new_mutators_first() {
    snap!(
        "pipeline_both_new_mutators_first",
        pipeline_case(
            "",
            "  pipeline:\n    validators:\n    - image: v\n      name: v\n    mutators:\n    - image: m\n      name: m\n"
        )
    );
}

#[test]
fn pipeline_empty_map_is_replaced_at_the_end() {
    snap!(
        "pipeline_empty_map_dropped",
        pipeline_case("pipeline: {}\nupstream:\n  type: git\n", "")
    );
}

#[test]
fn pipeline_flow_and_quoted_entries_keep_their_style() {
    snap!(
        "pipeline_flow_entries_kept",
        pipeline_case(
            "pipeline:\n  mutators:\n  - {image: 'ghcr.io/x:v1', name: \"x\", configMap: {on: \"yes\"}} # keep me\n",
            PV_SET_NAMESPACE
        )
    );
}

// ---------------------------------------------------------------- 8.5-8.8 injection

const CM_LIST: [&str; 3] = [
    "apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: us-east1-endpoints\n  annotations:\n    config.porch.kpt.dev/in-cluster: \"true\"\ndata:\n  db: db.us-east1.example.com\n",
    "apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: us-east2-endpoints\n  annotations:\n    config.porch.kpt.dev/in-cluster: \"true\"\ndata:\n  db: db.us-east2.example.com\n",
    "apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: us-east3-endpoints\n  annotations:\n    config.porch.kpt.dev/in-cluster: \"true\"\ndata:\n  db: db.us-east3.example.com\n",
];

const TEAM_LIST: [&str; 3] = [
    "apiVersion: hr.example.com/v1alpha1\nkind: Team\nmetadata:\n  name: dev-team-alpha\n  annotations:\n    config.porch.kpt.dev/in-cluster: \"true\"\nspec:\n  chargeCode: ab\n",
    "apiVersion: hr.example.com/v1alpha1\nkind: Team\nmetadata:\n  name: dev-team-beta\n  annotations:\n    config.porch.kpt.dev/in-cluster: \"true\"\nspec:\n  chargeCode: cd\n",
    "apiVersion: hr.example.com/v1alpha1\nkind: Team\nmetadata:\n  name: prod-team\n  annotations:\n    config.porch.kpt.dev/in-cluster: \"true\"\nspec:\n  chargeCode: ef\n",
];

fn cluster() -> Vec<&'static str> {
    CM_LIST.iter().chain(TEAM_LIST.iter()).copied().collect()
}

const REGIONAL_CM: &str = "\
apiVersion: v1
kind: ConfigMap
metadata:
  name: regional-endpoints
  annotations:
    kpt.dev/config-injection: required
data:
  db: example
";

const TEAM: &str = "\
apiVersion: hr.example.com/v1alpha1
kind: Team
metadata:
  name: team
  annotations:
    kpt.dev/config-injection: required
spec:
  chargeCode: example
";

const MORE: &str = "\
apiVersion: v1
kind: ConfigMap
metadata:
  name: my-cm
  annotations:
    kpt.dev/config-injection: optional
data:
  db: db.example.com
---
apiVersion: hr.example.com/v1alpha1
kind: Team
metadata:
  name: team
  annotations:
    kpt.dev/config-injection: required
spec:
  chargeCode: example
";

fn injection_case(files: &[(&str, &str)], injectors: &str, extra: &[&str]) -> String {
    let ctx = context_with("");
    let mut all: Vec<(&str, &str)> = vec![("Kptfile", KPTFILE), ("package-context.yaml", &ctx)];
    all.extend_from_slice(files);
    run_twice(&resource_list(&all, extra, &pv(injectors)), extra)
}

#[test]
fn inject_1_empty_injectors() {
    snap!(
        "inject_1_empty_injectors",
        injection_case(&[], "", &cluster())
    );
}

#[test]
fn inject_2_one_configmap_point() {
    snap!(
        "inject_2_one_configmap",
        injection_case(
            &[("configmap.yaml", REGIONAL_CM)],
            "  injectors:\n  - name: us-east1-endpoints\n",
            &cluster()
        )
    );
}

#[test]
fn inject_3_one_non_configmap_point() {
    snap!(
        "inject_3_one_team",
        injection_case(
            &[("team.yaml", TEAM)],
            "  injectors:\n  - name: dev-team-beta\n    group: hr.example.com\n    kind: Team\n",
            &cluster()
        )
    );
}

#[test]
fn inject_4_mixed_points() {
    snap!(
        "inject_4_mixed",
        injection_case(
            &[("more.yaml", MORE)],
            "  injectors:\n  - name: us-east2-endpoints\n  - name: dev-team-beta\n    group: hr.example.com\n    kind: Team\n",
            &cluster()
        )
    );
}

#[test]
fn inject_derived_no_injectors_no_match_no_type_no_spec() {
    // A point while injectors is empty; an injector naming nothing; no in-cluster objects of
    // the type; an in-cluster Team without spec.
    let (c1, o1) = run(&resource_list(
        &[("Kptfile", KPTFILE), ("cm.yaml", REGIONAL_CM)],
        &cluster(),
        &pv(""),
    ));
    let (c2, o2) = run(&resource_list(
        &[("Kptfile", KPTFILE), ("cm.yaml", REGIONAL_CM)],
        &cluster(),
        &pv("  injectors:\n  - name: nowhere\n"),
    ));
    let (c3, o3) = run(&resource_list(
        &[("Kptfile", KPTFILE), ("cm.yaml", REGIONAL_CM)],
        &TEAM_LIST,
        &pv("  injectors:\n  - name: us-east1-endpoints\n"),
    ));
    let bare_team = "apiVersion: hr.example.com/v1alpha1\nkind: Team\nmetadata:\n  name: bare\n  annotations:\n    config.porch.kpt.dev/in-cluster: \"true\"\n";
    let (c4, o4) = run(&resource_list(
        &[("Kptfile", KPTFILE), ("team.yaml", TEAM)],
        &[bare_team],
        &pv("  injectors:\n  - name: bare\n"),
    ));
    snap!(
        "inject_derived_not_injected",
        format!("exit: {c1}\n{o1}\n=====\nexit: {c2}\n{o2}\n=====\nexit: {c3}\n{o3}\n=====\nexit: {c4}\n{o4}")
    );
}

#[test]
fn inject_wrong_case_annotation_is_an_error() {
    let cm = REGIONAL_CM.replace("required", "Required");
    snap!(
        "inject_wrong_case_annotation",
        injection_case(
            &[("cm.yaml", &cm)],
            "  injectors:\n  - name: us-east1-endpoints\n",
            &cluster()
        )
    );
}

// 8.5 TestFindInjectionPoints, through the conditions they produce.

const CM_FOO_OPTIONAL: &str = "\
apiVersion: v1
kind: ConfigMap
metadata:
  name: foo
  annotations:
    config.kubernetes.io/local-config: \"true\"
    kpt.dev/config-injection: optional
data:
  foo: bar
";

const FILE_6: &str = "\
apiVersion: v1
kind: ConfigMap
metadata:
  name: foo
  annotations:
    kpt.dev/config-injection: required
data:
  foo: bar
---
apiVersion: bigco.com/v2
kind: MyType
metadata:
  name: foo
  annotations:
    kpt.dev/config-injection: optional
spec:
  foo: bar
  bar: foofoo
";

const SOME_FILE_7: &str = "\
apiVersion: bigco.com/v2
kind: MyType
metadata:
  name: foo2
  annotations:
    kpt.dev/config-injection: required
spec:
  foo: bar
";

#[test]
fn points_2_none() {
    snap!("points_2_none", injection_case(&[], "", &[]));
}

#[test]
fn points_3_one_optional() {
    snap!(
        "points_3_one_optional",
        injection_case(&[("file.yaml", CM_FOO_OPTIONAL)], "", &[])
    );
}

#[test]
fn points_4_one_invalid() {
    let cm = CM_FOO_OPTIONAL.replace("optional", "invalid");
    snap!(
        "points_4_one_invalid",
        injection_case(&[("file.yaml", &cm)], "", &[])
    );
}

#[test]
fn points_5_one_required() {
    let cm = CM_FOO_OPTIONAL.replace("optional", "required");
    snap!(
        "points_5_one_required",
        injection_case(&[("file2.yaml", &cm)], "", &[])
    );
}

#[test]
fn points_6_multiple_in_one_file() {
    snap!(
        "points_6_multiple_in_one_file",
        injection_case(&[("file.yaml", FILE_6)], "", &[])
    );
}

#[test]
fn points_7_multiple_across_files() {
    // Given in reverse path order: points are visited in path, then index order.
    snap!(
        "points_7_multiple_across_files",
        injection_case(
            &[("some-file.yaml", SOME_FILE_7), ("file.yaml", FILE_6)],
            "",
            &[]
        )
    );
}

// 8.6 TestValidateInjectionPoints: errors of all points, and duplicates naming both files.

#[test]
fn points_validation_errors_and_duplicates() {
    let cm = |v: &str| CM_FOO_OPTIONAL.replace("optional", v);
    let bad2 = cm("bogus").replace("name: foo", "name: foo2");
    snap!(
        "points_validation_errors",
        injection_case(
            &[
                ("file3.yaml", &cm("optional")),
                ("file.yaml", &cm("required")),
                ("file2.yaml", &cm("optional")),
                ("bad.yaml", &bad2),
            ],
            "",
            &[]
        )
    );
}

// 8.7 TestSetInjectionPointConditionsAndGates.

const GATES_TAIL: &str = "  readinessGates:
  - conditionType: test
  - conditionType: test3
status:
  conditions:
  - type: test
    status: \"False\"
    reason: test
    message: test
  - type: test2
    status: \"True\"
    reason: test2
    message: test2
  - type: test3
    status: \"True\"
    reason: test3
    message: test3
";

fn point(kind: &str, api: &str, name: &str, mode: &str) -> String {
    let body = if kind == "ConfigMap" {
        "data:\n  a: b\n"
    } else {
        "spec:\n  a: b\n"
    };
    format!("apiVersion: {api}\nkind: {kind}\nmetadata:\n  name: {name}\n  annotations:\n    kpt.dev/config-injection: {mode}\n{body}")
}

fn in_cluster(kind: &str, api: &str, name: &str) -> String {
    let body = if kind == "ConfigMap" {
        "data:\n  a: injected\n"
    } else {
        "spec:\n  a: injected\n"
    };
    format!("apiVersion: {api}\nkind: {kind}\nmetadata:\n  name: {name}\n  annotations:\n    config.porch.kpt.dev/in-cluster: \"true\"\n{body}")
}

fn gates_case(kptfile: &str, files: &[(&str, &str)], injectors: &str, extra: &[&str]) -> String {
    let mut all: Vec<(&str, &str)> = vec![("Kptfile", kptfile)];
    all.extend_from_slice(files);
    run_twice(&resource_list(&all, extra, &pv(injectors)), extra)
}

#[test]
fn gates_1_no_points() {
    snap!("gates_1_no_points", gates_case(KPTFILE, &[], "", &[]));
}

#[test]
fn gates_2_no_points_existing_gates_and_conditions() {
    snap!(
        "gates_2_existing_unchanged",
        gates_case(&kptfile_with(GATES_TAIL), &[], "", &[])
    );
}

#[test]
fn gates_3_optional_not_injected() {
    let p = point("ConfigMap", "v1", "foo", "optional");
    let c = in_cluster("ConfigMap", "v1", "other");
    snap!(
        "gates_3_optional_not_injected",
        gates_case(
            KPTFILE,
            &[("foo.yaml", &p)],
            "  injectors:\n  - name: nothing\n",
            &[&c]
        )
    );
}

#[test]
fn gates_4_required_not_injected() {
    let p = point("ConfigMap", "v1", "foo", "required");
    let c = in_cluster("ConfigMap", "v1", "other");
    snap!(
        "gates_4_required_not_injected",
        gates_case(
            KPTFILE,
            &[("foo.yaml", &p)],
            "  injectors:\n  - name: nothing\n",
            &[&c]
        )
    );
}

#[test]
fn gates_5_optional_injected() {
    let p = point("ConfigMap", "v1", "foo", "optional");
    let c = in_cluster("ConfigMap", "v1", "my-injected-resource");
    snap!(
        "gates_5_optional_injected",
        gates_case(
            KPTFILE,
            &[("foo.yaml", &p)],
            "  injectors:\n  - name: my-injected-resource\n",
            &[&c]
        )
    );
}

fn three_points(some_mode: &str) -> (Vec<String>, Vec<String>) {
    let files = vec![
        point("ConfigMap", "v1", "foo", "optional"),
        point("SomeResource", "example.com/v1", "foo", some_mode),
        point("AnotherResource", "example.com/v1", "foo", "optional"),
    ];
    let cluster = vec![
        in_cluster("ConfigMap", "v1", "my-injected-resource"),
        in_cluster("SomeResource", "example.com/v1", "some-injected-resource"),
        in_cluster("AnotherResource", "example.com/v1", "other-resource"),
    ];
    (files, cluster)
}

const THREE_INJECTORS: &str = "  injectors:\n  - name: my-injected-resource\n  - name: some-injected-resource\n  - name: another-injected-resource\n";

#[test]
fn gates_6_multiple_optional() {
    let (f, c) = three_points("optional");
    let c: Vec<&str> = c.iter().map(String::as_str).collect();
    snap!(
        "gates_6_multiple_optional",
        gates_case(
            KPTFILE,
            &[
                ("cm.yaml", &f[0]),
                ("some.yaml", &f[1]),
                ("another.yaml", &f[2])
            ],
            THREE_INJECTORS,
            &c
        )
    );
}

#[test]
fn gates_7_mixed_existing_optional_required() {
    let (f, c) = three_points("required");
    let c: Vec<&str> = c.iter().map(String::as_str).collect();
    snap!(
        "gates_7_mixed_existing",
        gates_case(
            &kptfile_with(GATES_TAIL),
            &[
                ("cm.yaml", &f[0]),
                ("some.yaml", &f[1]),
                ("another.yaml", &f[2])
            ],
            THREE_INJECTORS,
            &c
        )
    );
}

#[test]
fn gates_keep_unknown_fields_and_rendered_condition() {
    let tail = "  site: https://example.com
  readinessGates:
  - conditionType: zeta # added by hand
status:
  renderStatus:
    mutationSteps: []
  conditions:
  - type: Rendered
    status: \"True\"
    reason: RenderSuccess
  - type: config.injection.ConfigMap.foo
    status: \"False\"
    lastTransitionTime: \"2024-01-01T00:00:00Z\"
    reason: Old
  - type: Rendered
    status: \"True\"
    reason: Duplicate
";
    let p = point("ConfigMap", "v1", "foo", "required");
    let c = in_cluster("ConfigMap", "v1", "src");
    snap!(
        "gates_keep_unknown_fields",
        gates_case(
            &kptfile_with(tail),
            &[("foo.yaml", &p)],
            "  injectors:\n  - name: src\n",
            &[&c]
        )
    );
}

// ---------------------------------------------------------------- namespaces and in-cluster objects

#[test]
fn in_cluster_objects_of_other_namespaces_are_never_injected() {
    let other = "apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: us-east1-endpoints\n  namespace: team-b\n  annotations:\n    config.porch.kpt.dev/in-cluster: \"true\"\ndata:\n  db: SECRET-OF-TEAM-B\n";
    let mine = "apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: us-east1-endpoints\n  namespace: team-a\n  annotations:\n    config.porch.kpt.dev/in-cluster: \"true\"\ndata:\n  db: db.team-a.example.com\n";
    let ctx = context_with("");
    // PV in team-a: team-b's object is skipped, team-a's is injected.
    let input = resource_list(
        &[
            ("Kptfile", KPTFILE),
            ("package-context.yaml", &ctx),
            ("cm.yaml", REGIONAL_CM),
        ],
        &[other, mine],
        &pv_named(
            "my-pv",
            "team-a",
            "  injectors:\n  - name: us-east1-endpoints\n",
        ),
    );
    let out = run_twice(&input, &[other, mine]);
    assert!(!out.contains("SECRET-OF-TEAM-B"));
    snap!("namespaces_other_never_injected", out);
    // PV without namespace is in `default`: team-b's object alone never fills the point.
    let (code, out) = run(&resource_list(
        &[("Kptfile", KPTFILE), ("cm.yaml", REGIONAL_CM)],
        &[other],
        &pv("  injectors:\n  - name: us-east1-endpoints\n"),
    ));
    assert_eq!(code, 0);
    assert!(
        !out.contains("SECRET-OF-TEAM-B\n  annotations")
            && !out.contains("db: SECRET-OF-TEAM-B\n- ")
    );
    snap!("namespaces_default_pv", format!("exit: {code}\n{out}"));
}

/// A PackageVariant (no namespace) naming `paths` for cluster copies, with `extra` spec lines.
fn pv_naming(paths: &str, extra: &str) -> String {
    pv(extra).replace(
        "metadata:\n  name: my-pv\n",
        &format!(
            "metadata:\n  name: my-pv\n  annotations:\n    package-variant.fn.kpt.dev/cluster-objects: {paths}\n"
        ),
    )
}

/// An in-cluster copy stored in the package at a path the deployer names (here a directory,
/// `cluster/`, in the PackageVariant's annotation) is injected and kept as it is.
#[test]
fn in_cluster_objects_at_a_named_path_are_used_and_kept() {
    let stored = "apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: us-east1-endpoints\n  annotations:\n    config.porch.kpt.dev/in-cluster: \"true\"\ndata:\n  db: db.stored.example.com # stored in the package\n";
    let input = resource_list(
        &[
            ("Kptfile", KPTFILE),
            ("cm.yaml", REGIONAL_CM),
            ("cluster/endpoints.yaml", stored),
        ],
        &[],
        &pv_naming("cluster/", "  injectors:\n  - name: us-east1-endpoints\n"),
    );
    snap!("in_cluster_with_path_kept", run_twice(&input, &[]));
}

const SPOOF: &str = "apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: us-east1-endpoints\n  namespace: default\n  annotations:\n    config.porch.kpt.dev/in-cluster: \"true\"\ndata:\n  db: attacker.example.com\n";
const REAL: &str = "apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: us-east1-endpoints\n  namespace: default\n  annotations:\n    config.porch.kpt.dev/in-cluster: \"true\"\ndata:\n  db: db.us-east1.example.com\n";

/// Asserts exit 1, an error result holding every needle, and the items unchanged.
fn assert_refused(input: &str, needles: &[&str]) -> String {
    let (code, out) = run(input);
    assert_eq!(code, 1, "{out}");
    let results = common::results_section(&out);
    assert!(results.contains("severity: error"), "{results}");
    for n in needles {
        assert!(results.contains(n), "{n:?} not in\n{results}");
    }
    assert_eq!(common::items_section(&out), common::items_section(input));
    out
}

/// A blueprint's file marked in-cluster (a package file at a path the deployer does not name)
/// never stands in for the cluster: refused naming the item, its path and the fix, whether the
/// deployer's real copy comes through stdin or not at all. (On main the blueprint's copy was
/// injected: it came first in item order.)
#[test]
fn a_blueprint_file_marked_in_cluster_is_refused() {
    let spec = "  injectors:\n  - name: us-east1-endpoints\n";
    let files = [
        ("Kptfile", KPTFILE),
        ("cm.yaml", REGIONAL_CM),
        ("upstream-endpoints.yaml", SPOOF),
    ];
    let needles = [
        "ConfigMap/us-east1-endpoints in upstream-endpoints.yaml is marked config.porch.kpt.dev/in-cluster",
        "cannot stand in for a cluster object",
        "Pass the cluster copy through stdin",
        "package-variant.fn.kpt.dev/cluster-objects: \"upstream-endpoints.yaml\"",
        "path: metadata.annotations[config.porch.kpt.dev/in-cluster]",
        "path: upstream-endpoints.yaml",
    ];
    for extra in [&[][..], &[REAL][..]] {
        let input = resource_list(&files, extra, &pv(spec));
        let out = assert_refused(&input, &needles);
        assert!(!out.contains("injected resource"), "{out}");
    }
    // The deployer names another place for its copies: the blueprint's file is still refused.
    let input = resource_list(
        &[
            ("Kptfile", KPTFILE),
            ("cm.yaml", REGIONAL_CM),
            ("upstream-endpoints.yaml", SPOOF),
            ("in-cluster/objects.yaml", REAL),
        ],
        &[],
        &pv_naming("in-cluster/objects.yaml", spec),
    );
    assert_refused(&input, &needles);
}

/// Two cluster objects with one identity (group, kind, namespace, name) cannot both be in a
/// cluster: an error naming both and where each came from (on main the first won, silently).
/// An object without a namespace is in the PackageVariant's.
#[test]
fn two_cluster_objects_with_one_identity_are_refused() {
    let a = "apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: src\n  namespace: team-a\n  annotations:\n    config.porch.kpt.dev/in-cluster: \"true\"\ndata:\n  k: a\n";
    let b = a.replace("k: a", "k: b");
    let files = [("Kptfile", KPTFILE), ("cm.yaml", REGIONAL_CM)];
    let spec = "  injectors:\n  - name: src\n";
    let input = resource_list(&files, &[a, &b], &pv_named("my-pv", "team-a", spec));
    assert_refused(
        &input,
        &[
            "two cluster objects have one identity (group \"\", kind ConfigMap, namespace \"team-a\", name \"src\")",
            "ConfigMap/src (through stdin, no path) and ConfigMap/src (through stdin, no path)",
        ],
    );
    // At another apiVersion it is still the same object; one at a named path, one on stdin.
    let v2 = b
        .replace("apiVersion: v1\n", "apiVersion: v2\n")
        .replace("  namespace: team-a\n", "");
    let input = resource_list(
        &[
            ("Kptfile", KPTFILE),
            ("cm.yaml", REGIONAL_CM),
            ("cluster/a.yaml", a),
        ],
        &[&v2],
        &pv_naming("cluster/a.yaml", spec)
            .replace("name: my-pv\n", "name: my-pv\n  namespace: team-a\n"),
    );
    assert_refused(
        &input,
        &["ConfigMap/src (cluster/a.yaml) and ConfigMap/src (through stdin, no path)"],
    );
}

/// The named place holds cluster copies only: an item there that is not marked is an error;
/// a named path holding nothing is a warning; an entry that is not a clean relative path is
/// an error on the annotation. The annotation passes strict decoding of the Porch kind.
#[test]
fn the_named_place_holds_cluster_copies_only() {
    let spec = "  injectors:\n  - name: us-east1-endpoints\n";
    let unmarked = REAL.replace(
        "    config.porch.kpt.dev/in-cluster: \"true\"\n",
        "    other: x\n",
    );
    let input = resource_list(
        &[
            ("Kptfile", KPTFILE),
            ("cm.yaml", REGIONAL_CM),
            ("in-cluster/x.yaml", &unmarked),
        ],
        &[],
        &pv_naming("in-cluster/", spec),
    );
    assert_refused(
        &input,
        &["ConfigMap/us-east1-endpoints in in-cluster/x.yaml is not marked config.porch.kpt.dev/in-cluster: \"true\", but the PackageVariant names \"in-cluster/\""],
    );

    let input = resource_list(
        &[("Kptfile", KPTFILE), ("cm.yaml", REGIONAL_CM)],
        &[REAL],
        &pv_naming("in-cluster/objects.yaml", spec),
    );
    let (code, out) = run(&input);
    assert_eq!(code, 0, "{out}");
    let results = common::results_section(&out);
    assert!(results.contains("message: 'the PackageVariant names \"in-cluster/objects.yaml\" for cluster copies (annotation package-variant.fn.kpt.dev/cluster-objects) but no item is there"), "{results}");
    assert!(results.contains("severity: warning\n  resourceRef:\n    apiVersion: config.porch.kpt.dev/v1alpha1\n    kind: PackageVariant\n    name: my-pv\n  field:\n    path: metadata.annotations[package-variant.fn.kpt.dev/cluster-objects]"), "{results}");
    assert!(out.contains("db: db.us-east1.example.com\n"), "{out}");

    for bad in ["../x.yaml", "/abs/x.yaml", "'a.yaml,,b.yaml'", "./a.yaml"] {
        let input = resource_list(
            &[("Kptfile", KPTFILE), ("cm.yaml", REGIONAL_CM)],
            &[REAL],
            &pv_naming(bad, spec),
        );
        assert_refused(
            &input,
            &[
                "annotation package-variant.fn.kpt.dev/cluster-objects:",
                "write comma-separated paths relative to the package root",
            ],
        );
    }
}

#[test]
fn function_config_among_the_items_is_left_alone() {
    let config = pv("  injectors:\n  - name: us-east1-endpoints\n  packageContext:\n    data:\n      foo: bar\n");
    let annotated = config.replace(
        "metadata:\n  name: my-pv\n",
        "metadata:\n  name: my-pv\n  annotations:\n    kpt.dev/config-injection: optional\n",
    );
    let ctx = context_with("");
    snap!(
        "function_config_item_untouched",
        run_twice(
            &resource_list(
                &[
                    ("Kptfile", KPTFILE),
                    ("package-context.yaml", &ctx),
                    ("pv.yaml", &annotated)
                ],
                &CM_LIST,
                &config
            ),
            &CM_LIST
        )
    );
}

// ---------------------------------------------------------------- protocol rules

#[test]
fn untouched_items_are_byte_identical_and_changed_ones_keep_comments() {
    let deploy = "\
# a deployment
apiVersion: apps/v1
kind: Deployment
metadata:
  name: web # the name
spec:
  template:
    spec:
      containers:
        - name: app
          args: [\"--port\", \"8080\"]
          env:
            - {name: A, value: \"0123\"}
          command:
          - |
            echo hi
";
    let cm = "\
apiVersion: v1
kind: ConfigMap
metadata:
  name: regional-endpoints
  annotations:
    # where it comes from
    kpt.dev/config-injection: required # injected
data:
  # the database
  db: 'example' # old value
  port: \"5432\"
";
    let ctx = context_with("  # keep me\n  region: \"on\"\n");
    let input = resource_list(
        &[
            ("Kptfile", KPTFILE),
            ("package-context.yaml", &ctx),
            ("deploy.yaml", deploy),
            ("cm.yaml", cm),
        ],
        &CM_LIST,
        &pv("  injectors:\n  - name: us-east1-endpoints\n"),
    );
    let out = run_twice(&input, &CM_LIST);
    // The untouched items are copied byte for byte.
    let deploy_item = indent(&annotate(deploy, "deploy.yaml", 0), "- ", 2);
    let ctx_item = indent(&annotate(&ctx, "package-context.yaml", 0), "- ", 2);
    assert!(out.contains(&deploy_item), "deployment changed:\n{out}");
    assert!(out.contains(&ctx_item), "context changed:\n{out}");
    snap!("comments_and_quoting_preserved", out);
}

#[test]
fn all_or_nothing_on_error() {
    // The context edit would succeed, the injection annotation is invalid: nothing changes.
    let ctx = context_with("");
    let bad = REGIONAL_CM.replace("required", "sometimes");
    let input = resource_list(
        &[
            ("Kptfile", KPTFILE),
            ("package-context.yaml", &ctx),
            ("cm.yaml", &bad),
        ],
        &CM_LIST,
        &pv(&format!(
            "  packageContext:\n    data:\n      foo: bar\n{PV_SET_NAMESPACE}"
        )),
    );
    let (code, out) = run(&input);
    assert_eq!(code, 1);
    // Items come out exactly as they went in (in-cluster objects included).
    let items_in = input.split("functionConfig:\n").next().unwrap_or("");
    assert!(out.contains(
        items_in.trim_start_matches("apiVersion: config.kubernetes.io/v1\nkind: ResourceList\n")
    ));
    snap!("all_or_nothing", format!("exit: {code}\n{out}"));
}

#[test]
fn missing_root_kptfile_is_an_error() {
    let sub = ("sub/Kptfile", KPTFILE);
    let (code, out) = run(&resource_list(&[sub], &[], &pv("")));
    snap!("missing_root_kptfile", format!("exit: {code}\n{out}"));
}

#[test]
fn subpackage_kptfile_is_untouched() {
    let sub_k = kptfile_with(
        "pipeline:\n  mutators:\n  - image: x\n    name: PackageVariant.my-pv.old.0\n",
    );
    snap!(
        "subpackage_kptfile_untouched",
        run_twice(
            &resource_list(
                &[("Kptfile", KPTFILE), ("sub/Kptfile", &sub_k)],
                &[],
                &pv(PV_SET_NAMESPACE)
            ),
            &[]
        )
    );
}

#[test]
fn without_path_annotations_the_only_kptfile_is_the_root() {
    let input = format!(
        "apiVersion: config.kubernetes.io/v1\nkind: ResourceList\nitems:\n{}{}functionConfig:\n{}",
        indent(KPTFILE, "- ", 2),
        indent(&context_with(""), "- ", 2),
        indent(
            &pv(&format!(
                "  packageContext:\n    data:\n      foo: bar\n{PV_SET_NAMESPACE}"
            )),
            "  ",
            2
        )
    );
    snap!("no_path_annotations", run_twice(&input, &[]));
}

#[test]
fn labels_annotations_and_policies_are_not_written() {
    snap!(
        "labels_annotations_not_written",
        pipeline_case(
            "",
            "  labels:\n    app: x\n  annotations:\n    a: b\n  adoptionPolicy: adoptExisting\n  deletionPolicy: orphan\n"
        )
    );
}

// ---------------------------------------------------------------- 8.9 validation

fn validation_case(name: &str, spec: &str) -> String {
    let config = format!(
        "apiVersion: config.porch.kpt.dev/v1alpha1\nkind: PackageVariant\nmetadata:\n  name: {name}\n{spec}"
    );
    let ctx = context_with("");
    let (code, out) = run(&resource_list(
        &[("Kptfile", KPTFILE), ("package-context.yaml", &ctx)],
        &[],
        &config,
    ));
    let results = out.split("\nresults:\n").nth(1).unwrap_or("(no results)\n");
    format!("exit: {code}\nresults:\n{results}")
}

const BASE_SPEC: &str = "spec:\n  upstream:\n    package: foo\n    revision: 1\n    repo: blueprints\n  downstream:\n    package: foo\n    repo: deployments\n";

#[test]
fn validation_table() {
    let cases: Vec<(&str, String)> = vec![
        ("1 empty spec", String::new()),
        (
            "2 missing package names",
            "spec:\n  upstream:\n    revision: 1\n    repo: blueprints\n  downstream:\n    repo: deployments\n".into(),
        ),
        ("3 empty policies", BASE_SPEC.into()),
        (
            "4 invalid policies",
            format!("{BASE_SPEC}  adoptionPolicy: invalid\n  deletionPolicy: invalid\n"),
        ),
        (
            "5 valid policies",
            format!("{BASE_SPEC}  adoptionPolicy: adoptExisting\n  deletionPolicy: orphan\n"),
        ),
        (
            "6 package context",
            format!("{BASE_SPEC}  packageContext:\n    data:\n      foo: bar\n      hello: there\n    removeKeys:\n    - bar\n    - foobar\n"),
        ),
        (
            "7 name in data",
            format!("{BASE_SPEC}  packageContext:\n    data:\n      name: test\n"),
        ),
        (
            "8 name in removeKeys",
            format!("{BASE_SPEC}  packageContext:\n    removeKeys:\n    - name\n"),
        ),
        (
            "9 package-path in data",
            format!("{BASE_SPEC}  packageContext:\n    data:\n      package-path: test\n"),
        ),
        (
            "10 package-path in removeKeys",
            format!("{BASE_SPEC}  packageContext:\n    removeKeys:\n    - package-path\n"),
        ),
        (
            "11 valid injectors",
            format!("{BASE_SPEC}  injectors:\n  - group: porch.kpt.dev\n    version: v1alpha1\n    kind: Repository\n    name: foo\n  - name: bar\n"),
        ),
        (
            "12 invalid injectors",
            format!("{BASE_SPEC}  injectors:\n  - group: porch.kpt.dev\n    version: v1alpha1\n    kind: Repository\n    name: foo\n  - name: \"\"\n"),
        ),
        (
            "upstream {}",
            "spec:\n  upstream: {}\n  downstream:\n    package: foo\n    repo: deployments\n".into(),
        ),
        (
            "upstream repo only",
            "spec:\n  upstream:\n    repo: r\n  downstream:\n    package: foo\n    repo: deployments\n".into(),
        ),
        (
            "upstream with workspaceName",
            "spec:\n  upstream:\n    repo: r\n    package: p\n    workspaceName: v1\n    revision: -1\n  downstream:\n    package: foo\n    repo: deployments\n".into(),
        ),
        (
            "reserved keys order",
            format!("{BASE_SPEC}  packageContext:\n    data:\n      package-path: x\n      name: y\n    removeKeys:\n    - name\n    - name\n"),
        ),
        (
            "dot in function name",
            format!("{BASE_SPEC}  pipeline:\n    mutators:\n    - image: x\n      name: set.labels\n"),
        ),
        (
            "type error",
            format!("{BASE_SPEC}  injectors:\n  - name: [a]\n"),
        ),
    ];
    let mut text = String::new();
    for (name, spec) in &cases {
        text.push_str(&format!("### {name}\n{}\n", validation_case("my-pv", spec)));
    }
    text.push_str(&format!(
        "### dot in PackageVariant name\n{}\n",
        validation_case("my.pv", BASE_SPEC)
    ));
    snap!("validation_table", text);
}

// ---------------------------------------------------------------- ConfigMap shortcut (issue 7)

#[test]
fn config_map_function_config_sets_context_data() {
    let ctx = context_with("  region: eu\n");
    let cfg = "apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: function-input\ndata:\n  region: us\n  zone: \"1\"\n";
    snap!(
        "config_map_sets_context",
        run_twice(
            &resource_list(
                &[("Kptfile", KPTFILE), ("package-context.yaml", &ctx)],
                &[],
                cfg
            ),
            &[]
        )
    );
}

/// A ConfigMap functionConfig named like the package context (`kptfile.kpt.dev`) sets data in
/// the real context: the context item is never taken for the functionConfig read back (it was,
/// and the context was then "not found").
#[test]
fn config_map_function_config_named_like_the_context_sets_the_context() {
    let ctx = context_with("  region: eu\n");
    let cfg = "apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: kptfile.kpt.dev\ndata:\n  region: us\n";
    let (code, out) = run(&resource_list(
        &[("Kptfile", KPTFILE), ("package-context.yaml", &ctx)],
        &[],
        cfg,
    ));
    assert_eq!(code, 0, "{out}");
    assert!(!out.contains("not found"), "{out}");
    let items = &out[..out.find("\nfunctionConfig:").unwrap_or(out.len())];
    assert!(items.contains("region: us"), "{items}");
    assert!(!items.contains("region: eu"), "{items}");
}

#[test]
fn config_map_reserved_keys_are_refused() {
    let ctx = context_with("");
    let cfg = "apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: function-input\ndata:\n  name: x\n  package-path: y\n";
    let (code, out) = run(&resource_list(
        &[("Kptfile", KPTFILE), ("package-context.yaml", &ctx)],
        &[],
        cfg,
    ));
    snap!("config_map_reserved_keys", format!("exit: {code}\n{out}"));
}

#[test]
fn sample_function_config_is_valid() {
    let sample = include_str!("../fnconfig/package-variant.yaml");
    let ctx = context_with("  legacy-key: old\n");
    let (code, out) = run(&resource_list(
        &[("Kptfile", KPTFILE), ("package-context.yaml", &ctx)],
        &[],
        sample,
    ));
    assert_eq!(code, 0, "{out}");
    assert!(out.contains("name: PackageVariant.my-pv.set-namespace.0"));
    assert!(!out.contains("legacy-key: old"));
}

// ------------------------------------------------- kpt render: subpackages first

/// `kpt fn render` sends a subpackage's items first, with paths relative to the subpackage
/// (its Kptfile is at `Kptfile` too) and `internal.config.kubernetes.io/package-path`: the
/// root package is the one with the shortest package path, and only its files change.
#[test]
fn render_layout_edits_only_the_root_package() {
    let with_package_path = |doc: String, pkg: &str| {
        doc.replace(
            "    internal.config.kubernetes.io/path:",
            &format!("    internal.config.kubernetes.io/package-path: '{pkg}'\n    internal.config.kubernetes.io/path:"),
        )
    };
    let sub_kptfile = with_package_path(annotate(KPTFILE, "Kptfile", 0), "/w/pkg/sub");
    let sub_ctx = with_package_path(
        annotate(&context_with("  sub: \"yes\"\n"), "package-context.yaml", 0),
        "/w/pkg/sub",
    );
    let root_kptfile = with_package_path(annotate(KPTFILE, "Kptfile", 0), "/w/pkg");
    let root_ctx = with_package_path(
        annotate(&context_with(""), "package-context.yaml", 0),
        "/w/pkg",
    );
    let point = with_package_path(
        annotate(
            "apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: endpoints\n  annotations:\n    kpt.dev/config-injection: required\ndata:\n  db: example\n",
            "endpoints.yaml",
            0,
        ),
        "/w/pkg",
    );
    let mut input =
        String::from("apiVersion: config.kubernetes.io/v1\nkind: ResourceList\nitems:\n");
    for doc in [&sub_kptfile, &sub_ctx, &root_kptfile, &root_ctx, &point] {
        input.push_str(&indent(doc, "- ", 2));
    }
    input.push_str("functionConfig:\n");
    input.push_str(&indent(
        &pv("  packageContext:\n    data:\n      region: us-east1\n"),
        "  ",
        2,
    ));
    let (code, out) = run(&input);
    assert_eq!(code, 0, "{out}");
    // The subpackage's Kptfile and context come out as they went in.
    assert!(out.contains(&indent(&sub_kptfile, "- ", 2)), "{out}");
    assert!(out.contains(&indent(&sub_ctx, "- ", 2)), "{out}");
    // The root package's context and Kptfile get the changes.
    let root_ctx_out = out
        .split("\n- ")
        .find(|d| d.contains("package-path: '/w/pkg'") && d.contains("kptfile.kpt.dev"))
        .expect("root context");
    assert!(root_ctx_out.contains("region: us-east1"), "{root_ctx_out}");
    let root_kptfile_out = out
        .split("\n- ")
        .find(|d| d.contains("package-path: '/w/pkg'") && d.contains("kind: Kptfile"))
        .expect("root Kptfile");
    assert!(
        root_kptfile_out.contains("conditionType: config.injection.ConfigMap.endpoints"),
        "{root_kptfile_out}"
    );
}
