//! The bad-input table: one test per row, through the binary. Each asserts the exit code, that
//! the message says what is wrong and what to do, and the field path / resourceRef where the
//! problem is in one object. The Errors table of `docs/reference.md` is checked against the
//! binary's real messages by [`table_document_matches_the_binary`]; regenerate it with
//! `cargo test --test bad_input print_table -- --ignored --nocapture`.
//!
//! Input the function cannot read as a ResourceList gets one line on stderr and an empty
//! stdout; everything else gets the items back unchanged with error results (all or nothing).

mod common;

use common::{
    items_section, pv_config, pvs_config, repository, resource_list, results_section, run_bytes,
    Run, KPTFILE, PACKAGE_CONTEXT, UPSTREAM_PR,
};

const RL: &str = "apiVersion: config.kubernetes.io/v1\nkind: ResourceList\n";

/// A resource as kpt sends it, with a path annotation.
const DEPLOYMENT: &str = "apiVersion: apps/v1
kind: Deployment
metadata:
  name: web
  annotations:
    config.kubernetes.io/path: deploy.yaml
spec:
  replicas: 1
";

fn point(name: &str, mode: &str) -> String {
    format!(
        "apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: {name}\n  annotations:\n    kpt.dev/config-injection: {mode}\n    config.kubernetes.io/path: {name}.yaml\n    config.kubernetes.io/index: '0'\ndata: {{}}\n"
    )
}

fn pv_list(extra_spec: &str) -> Vec<u8> {
    resource_list(&[KPTFILE, PACKAGE_CONTEXT], &pv_config(extra_spec)).into_bytes()
}

fn pvs_list(targets: &str) -> Vec<u8> {
    resource_list(
        &[
            UPSTREAM_PR,
            &repository("edge1", "{env: prod}"),
            &repository("edge2", "{env: prod}"),
        ],
        &pvs_config(targets),
    )
    .into_bytes()
}

/// A set over edge1 and the variant it made, whose downstream (`edge1`, `base`) has a
/// v1alpha2 revision with `lifecycle` and `conditions` (JSON).
fn downstream_revision(lifecycle: &str, conditions: serde_json::Value) -> Vec<u8> {
    use serde_json::json;
    let config = json!({"apiVersion": "config.porch.kpt.dev/v1alpha2", "kind": "PackageVariantSet",
        "metadata": {"name": "my-set"},
        "spec": {"upstream": {"repo": "blueprints", "package": "base", "revision": 1},
            "targets": [{"repositories": [{"name": "edge1"}]}]}});
    let upstream = json!({"apiVersion": "porch.kpt.dev/v1alpha1", "kind": "PackageRevision",
        "metadata": {"name": "blueprints.base.v1"},
        "spec": {"repository": "blueprints", "packageName": "base", "revision": 1}});
    let repo = json!({"apiVersion": "config.porch.kpt.dev/v1alpha1", "kind": "Repository",
        "metadata": {"name": "edge1"}, "spec": {"type": "git"}});
    let (_, out) = common::run_json(&[upstream, repo], &config);
    let mut items = common::items_of(&out);
    items.push(
        json!({"apiVersion": "porch.kpt.dev/v1alpha2", "kind": "PackageRevision",
        "metadata": {"name": "edge1.base.v1", "generation": 1},
        "spec": {"repository": "edge1", "packageName": "base", "lifecycle": lifecycle},
        "status": {"conditions": conditions}}),
    );
    let list = json!({"apiVersion": "config.kubernetes.io/v1", "kind": "ResourceList",
        "items": items, "functionConfig": config});
    serde_json::to_vec(&list).unwrap()
}

fn pvs_expr(field: &str, expr: &str) -> Vec<u8> {
    pvs_list(&format!(
        "  targets:\n  - repositorySelector: {{matchLabels: {{env: prod}}}}\n    template:\n      downstream:\n        {field}: \"{expr}\"\n"
    ))
}

/// Every row: (what you send, the input). The input larger than 256 MiB is its own test
/// (`input_larger_than_256_mib`) so this list stays cheap to build.
fn rows() -> Vec<(&'static str, Vec<u8>)> {
    let s = |t: &str| t.as_bytes().to_vec();
    vec![
        ("empty stdin", vec![]),
        ("not YAML", s("{{{ not yaml")),
        ("not UTF-8", b"apiVersion: config.kubernetes.io/v1\n# \xff\n".to_vec()),
        ("a control character", s("apiVersion: config.kubernetes.io/v1\n# \x07\n")),
        (
            "a carriage return without a line feed",
            s("apiVersion: config.kubernetes.io/v1\rkind: ResourceList\n"),
        ),
        (
            "a list instead of a ResourceList",
            s("- apiVersion: v1\n  kind: ConfigMap\n"),
        ),
        (
            "another kind (`kind: List`)",
            s("apiVersion: v1\nkind: List\nitems: []\n"),
        ),
        (
            "a ResourceList apiVersion we do not read",
            s("apiVersion: config.kubernetes.io/v2\nkind: ResourceList\nitems: []\n"),
        ),
        (
            "`items` that is not a list",
            s(&format!("{RL}items: {{a: b}}\n")),
        ),
        (
            "`results` that is not a list",
            s(&format!("{RL}items: []\nresults: done\n")),
        ),
        (
            "two YAML documents",
            s(&format!("{RL}items: []\n---\n{RL}items: []\n")),
        ),
        (
            "a key defined twice",
            s(&format!("{RL}items:\n- kind: A\n  kind: B\n")),
        ),
        (
            "YAML nested deeper than 256 levels",
            s(&format!("{RL}items:\n- {}\n", "[".repeat(10_000))),
        ),
        (
            "an item that is a scalar",
            format!(
                "{RL}items:\n- just a string\nfunctionConfig:\n{}",
                indent(&pv_config(""))
            )
            .into_bytes(),
        ),
        ("no functionConfig", s(&resource_list(&[KPTFILE], ""))),
        (
            "kpt's empty ConfigMap (`kpt fn eval PKG --exec package-variant`, no config, no arguments)",
            s(&resource_list(&[KPTFILE], KPT_EMPTY_CONFIG)),
        ),
        (
            "a functionConfig of another kind",
            s(&resource_list(
                &[KPTFILE],
                "apiVersion: fn.kpt.dev/v1alpha1\nkind: SetNamespace\nmetadata:\n  name: x\n",
            )),
        ),
        (
            "a functionConfig that is not an object",
            s(&format!("{RL}items: []\nfunctionConfig: just a string\n")),
        ),
        (
            "a PackageVariant of an apiVersion we do not serve",
            s(&resource_list(
                &[KPTFILE],
                &pv_config("").replace("v1alpha1", "v1alpha2"),
            )),
        ),
        (
            "a misspelt field (PackageVariant `pipelines:`)",
            pv_list("  pipelines:\n    mutators: [{image: set-labels}]\n"),
        ),
        (
            "a misspelt annotation of the function (`package-variant.fn.kpt.dev/unfiled: error`)",
            s(&resource_list(
                &[KPTFILE, PACKAGE_CONTEXT],
                &pv_config("").replace(
                    "  name: my-pv\n",
                    "  name: my-pv\n  annotations:\n    package-variant.fn.kpt.dev/unfiled: error\n",
                ),
            )),
        ),
        (
            "an annotation of the function on a kind it does not go on (`unfilled` on a set)",
            s(&resource_list(
                &[
                    UPSTREAM_PR,
                    &repository("edge1", "{env: prod}"),
                    &repository("edge2", "{env: prod}"),
                ],
                &pvs_config("  targets:\n  - repositorySelector: {matchLabels: {env: prod}}\n")
                    .replace(
                        "  name: my-set\n",
                        "  name: my-set\n  annotations:\n    package-variant.fn.kpt.dev/unfilled: error\n",
                    ),
            )),
        ),
        (
            "a field in the wrong place (PackageVariantSet `spec.template`)",
            pvs_list("  template: {}\n  targets:\n  - repositorySelector: {matchLabels: {env: prod}}\n"),
        ),
        (
            "a string revision from before Porch 4.1 (`revision: \"v1\"`)",
            s(&resource_list(
                &[KPTFILE],
                &pv_config("").replace("revision: 1", "revision: \"v1\""),
            )),
        ),
        (
            "a string where a map belongs (`spec.packageContext.data: \"x\"`)",
            pv_list("  packageContext:\n    data: \"x\"\n"),
        ),
        (
            "an integer revision given as text (`revision: \"1\"`)",
            s(&resource_list(
                &[KPTFILE],
                &pv_config("").replace("revision: 1", "revision: \"1\""),
            )),
        ),
        (
            "a number where a string belongs (`removeKeys: [0123]`)",
            pv_list("  packageContext:\n    removeKeys: [0123]\n"),
        ),
        (
            "a map where a list belongs (PackageVariantSet `spec.targets: {}`)",
            pvs_list("  targets: {}\n"),
        ),
        (
            "a PackageVariant without upstream and downstream",
            s(&resource_list(
                &[KPTFILE],
                "apiVersion: config.porch.kpt.dev/v1alpha1\nkind: PackageVariant\nmetadata:\n  name: my-pv\nspec: {}\n",
            )),
        ),
        (
            "a reserved package-context key (`name`)",
            pv_list("  packageContext:\n    data:\n      name: other\n"),
        ),
        (
            "an empty package-context key (`'': x`)",
            pv_list("  packageContext:\n    data:\n      '': x\n"),
        ),
        (
            "a null key (`~: x`, `null: x`)",
            pv_list("  packageContext:\n    data:\n      ~: x\n"),
        ),
        (
            "a null ConfigMap value (`-- key=value` file with `zone: ~`)",
            s(&resource_list(
                &[KPTFILE, PACKAGE_CONTEXT],
                "apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: ctx\ndata:\n  zone: ~\n",
            )),
        ),
        (
            "a `.` in the name of a PackageVariant with pipeline functions",
            s(&resource_list(
                &[KPTFILE],
                &pv_config("  pipeline:\n    mutators:\n    - image: set-labels\n")
                    .replace("name: my-pv", "name: my.pv"),
            )),
        ),
        (
            "an injector without a name",
            pv_list("  injectors:\n  - name: \"\"\n"),
        ),
        (
            "a package without a root Kptfile",
            s(&resource_list(&[DEPLOYMENT], &pv_config(""))),
        ),
        (
            "two Kptfiles at path `Kptfile`",
            s(&resource_list(
                &[KPTFILE, &KPTFILE.replace("name: pkg", "name: pkg-copy")],
                &pv_config(""),
            )),
        ),
        (
            "context data but no package context",
            s(&resource_list(
                &[KPTFILE],
                &pv_config("  packageContext:\n    data:\n      region: us\n"),
            )),
        ),
        (
            "an invalid injection annotation (`kpt.dev/config-injection: sometimes`)",
            s(&resource_list(
                &[KPTFILE, &point("endpoints", "sometimes")],
                &pv_config(""),
            )),
        ),
        (
            "two injection points with the same condition type",
            s(&resource_list(
                &[
                    KPTFILE,
                    &point("endpoints", "required"),
                    &point("endpoints", "optional").replace("endpoints.yaml", "other.yaml"),
                ],
                &pv_config(""),
            )),
        ),
        (
            "an in-cluster object without a namespace, for a PackageVariant that names its own",
            s(&resource_list(
                &[
                    KPTFILE,
                    PACKAGE_CONTEXT,
                    &point("endpoints", "required"),
                    "apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: us-east1-endpoints\n  annotations:\n    config.porch.kpt.dev/in-cluster: \"true\"\ndata:\n  db: db.example.com\n",
                ],
                &pv_config("  injectors:\n  - name: us-east1-endpoints\n")
                    .replace("  name: my-pv\n", "  name: my-pv\n  namespace: team-a\n"),
            )),
        ),
        ("a CEL syntax error", pvs_expr("packageExpr", "1 +")),
        (
            "a CEL function Porch does not have",
            pvs_expr("packageExpr", "target.name.lowerAscii()"),
        ),
        (
            "a CEL expression that is not a string",
            pvs_expr("packageExpr", "size(target.name)"),
        ),
        (
            "CEL `repository` in `repoExpr`",
            pvs_expr("repoExpr", "repository.name"),
        ),
        (
            "CEL reaching beyond metadata (`target.spec`)",
            pvs_expr("packageExpr", "target.spec.type"),
        ),
        (
            "a selector with an unknown operator",
            pvs_list(
                "  targets:\n  - repositorySelector:\n      matchExpressions: [{key: env, operator: Sometimes, values: [prod]}]\n",
            ),
        ),
        (
            "a selector `In` without values",
            pvs_list(
                "  targets:\n  - repositorySelector:\n      matchExpressions: [{key: env, operator: In}]\n",
            ),
        ),
        (
            "an objectSelector whose kind is not among the items",
            pvs_list(
                "  targets:\n  - objectSelector: {apiVersion: infra.nephio.org/v1alpha1, kind: WorkloadCluster}\n",
            ),
        ),
        (
            "a package name listed twice",
            pvs_list("  targets:\n  - repositories: [{name: edge1, packageNames: [web, web]}]\n"),
        ),
        (
            "a generated PackageVariant name Kubernetes would refuse",
            pvs_list("  targets:\n  - repositories: [{name: edge1, packageNames: [Web]}]\n"),
        ),
        (
            "a set template setting a package-context key Porch sets (`name`)",
            pvs_list("  targets:\n  - repositories: [{name: edge1}]\n    template:\n      packageContext: {data: {name: x}}\n"),
        ),
        (
            "a set's CEL key giving a package-context key Porch sets",
            pvs_list("  targets:\n  - repositories: [{name: edge1}]\n    template:\n      packageContext: {dataExprs: [{keyExpr: \"'package-path'\", value: x}]}\n"),
        ),
        (
            "a set's injector name expression giving an empty name",
            pvs_list("  targets:\n  - repositories: [{name: edge1}]\n    template:\n      injectors: [{nameExpr: \"''\"}]\n"),
        ),
        (
            "a set's map entry without a key (`labelExprs: [{value: v}]`)",
            pvs_list("  targets:\n  - repositories: [{name: edge1}]\n    template:\n      labelExprs: [{value: v}]\n"),
        ),
        (
            "two targets producing the same PackageVariant",
            pvs_list(
                "  targets:\n  - repositories: [{name: edge1}]\n  - repositorySelector: {matchLabels: {env: prod}}\n",
            ),
        ),
        (
            "a set whose upstream PackageRevision is not among the items",
            resource_list(
                &[&repository("edge1", "{env: prod}")],
                &pvs_config("  targets:\n  - repositories: [{name: edge1}]\n"),
            )
            .into_bytes(),
        ),
        (
            "a variant's downstream PackageRevision (`porch.kpt.dev/v1alpha2`) with a lifecycle outside Porch's four",
            downstream_revision("Archived", serde_json::json!([])),
        ),
        (
            "a variant's downstream PackageRevision whose `Rendered` status is not True, False or Unknown",
            downstream_revision(
                "Draft",
                serde_json::json!([{"type": "Rendered", "status": "Yes", "observedGeneration": 1}]),
            ),
        ),
        (
            "a billion-laughs functionConfig",
            pv_list(&format!("  notes:\n{}", laughs())),
        ),
    ]
}

/// What `kpt fn eval PKG --exec BIN` sends without `--fn-config` and without arguments.
const KPT_EMPTY_CONFIG: &str =
    "metadata:\n  name: function-input\ndata: {}\nkind: ConfigMap\napiVersion: v1\n";

fn indent(text: &str) -> String {
    text.lines().map(|l| format!("  {l}\n")).collect::<String>()
}

fn laughs() -> String {
    let mut s = String::from("    a0: &a0 [x, x, x, x, x, x, x, x, x, x]\n");
    for i in 1..12 {
        s.push_str(&format!(
            "    a{i}: &a{i} [{}]\n",
            vec![format!("*a{}", i - 1); 10].join(", ")
        ));
    }
    s
}

fn send(row: &str) -> (Vec<u8>, Run) {
    let (_, input) = rows()
        .into_iter()
        .find(|(name, _)| *name == row)
        .unwrap_or_else(|| panic!("no row {row:?}"));
    let out = run_bytes(&input);
    (input, out)
}

/// Input that is not a ResourceList: exit 1, nothing on stdout, one line on stderr with all
/// of `needles`.
fn refused(row: &str, needles: &[&str]) {
    let (_, out) = send(row);
    assert_eq!(out.code, 1, "{row}");
    assert!(out.stdout.is_empty(), "{row}: {}", out.stdout);
    assert_eq!(out.stderr.lines().count(), 1, "{row}: {}", out.stderr);
    assert!(
        out.stderr.starts_with("package-variant: "),
        "{row}: {}",
        out.stderr
    );
    for n in needles {
        assert!(out.stderr.contains(n), "{row}: {n:?} not in {}", out.stderr);
    }
}

/// What an error result must carry besides its message.
#[derive(Default)]
struct Where<'a> {
    field: Option<&'a str>,
    /// `kind` and `name` of the resourceRef.
    resource: Option<(&'a str, &'a str)>,
    /// `file.path`.
    file: Option<&'a str>,
}

/// The results of an output ResourceList, as JSON.
fn results(stdout: &str) -> Vec<serde_json::Value> {
    let node = package_variant::yaml::parse(stdout).unwrap_or_else(|e| panic!("{e}\n{stdout}"));
    // Only the results: the echoed functionConfig may hold aliases that must not be expanded.
    node.get("results")
        .map(|r| package_variant::yaml::to_json(r).expect("JSON"))
        .and_then(|r| r.as_array().cloned())
        .unwrap_or_default()
}

fn first_error(stdout: &str) -> Option<serde_json::Value> {
    results(stdout)
        .into_iter()
        .find(|r| r["severity"] == "error")
}

/// Exit 1, the items as they were sent, and an error result with all of `needles` in its
/// message, at `at`.
fn error_result(row: &str, needles: &[&str], at: Where) {
    let (input, out) = send(row);
    let input = String::from_utf8(input).expect("UTF-8 input");
    assert_eq!(out.code, 1, "{row}: {}", out.stdout);
    assert!(
        common::is_error_summary(&out.stderr),
        "{row}: {}",
        out.stderr
    );
    assert_eq!(
        items_section(&out.stdout),
        items_section(&input),
        "{row}: all or nothing"
    );
    let error = first_error(&out.stdout).unwrap_or_else(|| {
        panic!(
            "{row}: no error result in\n{}",
            results_section(&out.stdout)
        )
    });
    let message = error["message"].as_str().unwrap_or("");
    for n in needles {
        assert!(message.contains(n), "{row}: {n:?} not in {message:?}");
    }
    if let Some(f) = at.field {
        assert_eq!(error["field"]["path"], f, "{row}: {error}");
    }
    if let Some((kind, name)) = at.resource {
        assert_eq!(error["resourceRef"]["kind"], kind, "{row}: {error}");
        assert_eq!(error["resourceRef"]["name"], name, "{row}: {error}");
    }
    if let Some(p) = at.file {
        assert_eq!(error["file"]["path"], p, "{row}: {error}");
    }
}

fn pv() -> Option<(&'static str, &'static str)> {
    Some(("PackageVariant", "my-pv"))
}

fn pvs() -> Option<(&'static str, &'static str)> {
    Some(("PackageVariantSet", "my-set"))
}

// ---------------------------------------------------------------- not a ResourceList

#[test]
fn empty_stdin() {
    refused(
        "empty stdin",
        &["input is empty: expected a ResourceList (config.kubernetes.io/v1) on stdin"],
    );
}

#[test]
fn not_yaml() {
    refused("not YAML", &["input is not valid YAML", "at line 1 column"]);
}

#[test]
fn not_utf8() {
    refused(
        "not UTF-8",
        &["input is not valid UTF-8 (invalid byte at offset 38)"],
    );
}

#[test]
fn control_character() {
    refused(
        "a control character",
        &["control character U+0007 at line 2"],
    );
}

#[test]
fn a_list_instead_of_a_resource_list() {
    refused(
        "a list instead of a ResourceList",
        &[
            "input is not a ResourceList",
            "found a list",
            "expected a mapping with kind: ResourceList",
        ],
    );
}

#[test]
fn another_kind() {
    refused(
        "another kind (`kind: List`)",
        &["input is not a ResourceList: its kind is \"List\""],
    );
}

#[test]
fn resource_list_api_version() {
    refused(
        "a ResourceList apiVersion we do not read",
        &["expected one of config.kubernetes.io/v1, config.kubernetes.io/v1beta1"],
    );
}

#[test]
fn items_not_a_list() {
    refused(
        "`items` that is not a list",
        &["ResourceList items must be a list of objects at line 3 column 14"],
    );
}

#[test]
fn results_not_a_list() {
    refused(
        "`results` that is not a list",
        &["ResourceList results must be a list, found a scalar"],
    );
}

#[test]
fn two_documents() {
    refused("two YAML documents", &["line 4"]);
}

#[test]
fn duplicate_key() {
    refused(
        "a key defined twice",
        &["mapping key \"kind\" is defined twice at line 5"],
    );
}

#[test]
fn nesting_too_deep() {
    refused(
        "YAML nested deeper than 256 levels",
        &["YAML nesting is deeper than 256 levels; refusing to parse it"],
    );
}

/// The row's heavy twin of `limits::limit_input_size_256_mib` (which also checks the time).
#[test]
fn input_larger_than_256_mib() {
    use std::io::Write;
    use std::process::{Command, Stdio};
    let mut child = Command::new(env!("CARGO_BIN_EXE_package-variant"))
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .expect("start");
    let mut stdin = child.stdin.take().expect("stdin");
    let writer = std::thread::spawn(move || {
        let chunk = vec![b' '; 1 << 20];
        for _ in 0..257 {
            if stdin.write_all(&chunk).is_err() {
                return;
            }
        }
    });
    let out = child.wait_with_output().expect("wait");
    writer.join().expect("writer");
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert_eq!(out.status.code(), Some(1));
    assert_eq!(
        stderr.trim_end(),
        "package-variant: input is larger than the limit of 268435456 bytes (256 MiB); split the package or the list of objects into smaller ResourceLists"
    );
}

// ---------------------------------------------------------------- protocol errors as results

#[test]
fn item_that_is_a_scalar() {
    error_result(
        "an item that is a scalar",
        &["items[0] is not an object (a KRM resource must be a mapping with apiVersion, kind and metadata)"],
        Where {
            field: Some("items[0]"),
            ..Default::default()
        },
    );
}

#[test]
fn no_function_config() {
    error_result(
        "no functionConfig",
        &[
            "no functionConfig was given",
            "expected kind PackageVariant (apiVersion config.porch.kpt.dev/v1alpha1)",
            "pass one with --fn-config FILE, or set package context data with -- key=value",
        ],
        Where {
            field: Some("functionConfig"),
            ..Default::default()
        },
    );
}

#[test]
fn kpt_empty_config() {
    error_result(
        "kpt's empty ConfigMap (`kpt fn eval PKG --exec package-variant`, no config, no arguments)",
        &[
            "no functionConfig was given (kpt sends an empty ConfigMap \"function-input\" when neither --fn-config nor -- key=value is given)",
            "pass one with --fn-config FILE, or set package context data with -- key=value",
        ],
        Where {
            field: Some("data"),
            resource: Some(("ConfigMap", "function-input")),
            ..Default::default()
        },
    );
}

#[test]
fn function_config_of_another_kind() {
    error_result(
        "a functionConfig of another kind",
        &[
            "functionConfig kind \"SetNamespace\" (apiVersion \"fn.kpt.dev/v1alpha1\") is not supported",
            "expected kind PackageVariant",
        ],
        Where {
            field: Some("kind"),
            resource: Some(("SetNamespace", "x")),
            ..Default::default()
        },
    );
}

#[test]
fn function_config_not_an_object() {
    error_result(
        "a functionConfig that is not an object",
        &["functionConfig is not an object; expected kind PackageVariant"],
        Where {
            field: Some("functionConfig"),
            ..Default::default()
        },
    );
}

#[test]
fn package_variant_api_version() {
    error_result(
        "a PackageVariant of an apiVersion we do not serve",
        &["PackageVariant apiVersion \"config.porch.kpt.dev/v1alpha2\" is not served; use config.porch.kpt.dev/v1alpha1"],
        Where {
            field: Some("apiVersion"),
            resource: pv(),
            ..Default::default()
        },
    );
}

// ---------------------------------------------------------------- wrong field types

#[test]
fn misspelt_field() {
    error_result(
        "a misspelt field (PackageVariant `pipelines:`)",
        &[r#"unknown field "pipelines"; did you mean "pipeline"?"#],
        Where {
            field: Some("spec.pipelines"),
            resource: pv(),
            ..Default::default()
        },
    );
}

#[test]
fn misspelt_annotation() {
    error_result(
        "a misspelt annotation of the function (`package-variant.fn.kpt.dev/unfiled: error`)",
        &[
            r#"unknown annotation "package-variant.fn.kpt.dev/unfiled"; did you mean "package-variant.fn.kpt.dev/unfilled"?"#,
        ],
        Where {
            field: Some("metadata.annotations[package-variant.fn.kpt.dev/unfiled]"),
            resource: pv(),
            ..Default::default()
        },
    );
}

#[test]
fn annotation_on_the_wrong_kind() {
    error_result(
        "an annotation of the function on a kind it does not go on (`unfilled` on a set)",
        &["package-variant.fn.kpt.dev/unfilled does not go on a PackageVariantSet: this function reads it on a PackageVariant (of either apiVersion); move it there, or remove it"],
        Where {
            field: Some("metadata.annotations[package-variant.fn.kpt.dev/unfilled]"),
            resource: pvs(),
            ..Default::default()
        },
    );
}

#[test]
fn field_in_the_wrong_place() {
    error_result(
        "a field in the wrong place (PackageVariantSet `spec.template`)",
        &[r#"unknown field "template"; it belongs at spec.targets[].template"#],
        Where {
            field: Some("spec.template"),
            resource: pvs(),
            ..Default::default()
        },
    );
}

#[test]
fn string_revision() {
    error_result(
        "a string revision from before Porch 4.1 (`revision: \"v1\"`)",
        &[
            r#"invalid type: string "v1", expected an integer: Porch's API takes the revision as an integer (Porch 4.1 and later); write revision: 1"#,
        ],
        Where {
            field: Some("spec.upstream.revision"),
            resource: pv(),
            ..Default::default()
        },
    );
}

#[test]
fn string_where_a_map_belongs() {
    error_result(
        "a string where a map belongs (`spec.packageContext.data: \"x\"`)",
        &["invalid type: string \"x\", expected a mapping (key: value)"],
        Where {
            field: Some("spec.packageContext.data"),
            resource: pv(),
            ..Default::default()
        },
    );
}

#[test]
fn integer_revision_given_as_text() {
    error_result(
        "an integer revision given as text (`revision: \"1\"`)",
        &["invalid type: string \"1\", expected an integer: Porch's API takes the revision as an integer (Porch 4.1 and later); write revision: 1 without quotes"],
        Where {
            field: Some("spec.upstream.revision"),
            resource: pv(),
            ..Default::default()
        },
    );
}

#[test]
fn number_where_a_string_belongs() {
    error_result(
        "a number where a string belongs (`removeKeys: [0123]`)",
        &["invalid type: integer `83`, expected a string; quote it to make it a string"],
        Where {
            field: Some("spec.packageContext.removeKeys[0]"),
            resource: pv(),
            ..Default::default()
        },
    );
}

#[test]
fn map_where_a_list_belongs() {
    error_result(
        "a map where a list belongs (PackageVariantSet `spec.targets: {}`)",
        &["invalid type: a mapping, expected a list"],
        Where {
            field: Some("spec.targets"),
            resource: pvs(),
            ..Default::default()
        },
    );
}

// ---------------------------------------------------------------- PackageVariant

#[test]
fn missing_upstream_and_downstream() {
    error_result(
        "a PackageVariant without upstream and downstream",
        &["missing required field"],
        Where {
            resource: pv(),
            ..Default::default()
        },
    );
}

#[test]
fn reserved_context_key() {
    error_result(
        "a reserved package-context key (`name`)",
        &["must not contain the key \"name\""],
        Where {
            field: Some("spec.packageContext.data"),
            resource: pv(),
            ..Default::default()
        },
    );
}

#[test]
fn empty_context_key() {
    error_result(
        "an empty package-context key (`'': x`)",
        &["must not contain an empty key (\"\": \"x\"); name the key"],
        Where {
            field: Some("spec.packageContext.data"),
            resource: pv(),
            ..Default::default()
        },
    );
}

#[test]
fn null_key() {
    error_result(
        "a null key (`~: x`, `null: x`)",
        &["cannot read the PackageVariant: a mapping key is null (~); quote it (\"~\") if the text is meant"],
        Where {
            resource: pv(),
            ..Default::default()
        },
    );
}

#[test]
fn null_config_map_value() {
    error_result(
        "a null ConfigMap value (`-- key=value` file with `zone: ~`)",
        &["invalid type: null, expected a string; write a value (\"\" for an empty one) or remove the entry"],
        Where {
            field: Some("data.zone"),
            resource: Some(("ConfigMap", "ctx")),
            ..Default::default()
        },
    );
}

#[test]
fn dot_in_package_variant_name() {
    error_result(
        "a `.` in the name of a PackageVariant with pipeline functions",
        &["PackageVariant name \"my.pv\" must not contain \".\""],
        Where {
            field: Some("metadata.name"),
            resource: Some(("PackageVariant", "my.pv")),
            ..Default::default()
        },
    );
}

#[test]
fn injector_without_a_name() {
    error_result(
        "an injector without a name",
        &["must not be empty: name the in-cluster object to inject"],
        Where {
            field: Some("spec.injectors[0].name"),
            resource: pv(),
            ..Default::default()
        },
    );
}

#[test]
fn missing_root_kptfile() {
    error_result(
        "a package without a root Kptfile",
        &["root Kptfile not found among the items: expected a kpt.dev/v1 Kptfile at path \"Kptfile\""],
        Where::default(),
    );
}

/// Two root Kptfiles: the first was edited silently; which one is the package's is a guess.
#[test]
fn two_root_kptfiles() {
    error_result(
        "two Kptfiles at path `Kptfile`",
        &["\"Kptfile\" must hold exactly one Kptfile, found 2 (this one and Kptfile/pkg); keep one"],
        Where {
            resource: Some(("Kptfile", "pkg-copy")),
            ..Default::default()
        },
    );
}

#[test]
fn missing_package_context() {
    error_result(
        "context data but no package context",
        &["package context ConfigMap \"kptfile.kpt.dev\" (package-context.yaml) not found among the items"],
        Where {
            field: Some("spec.packageContext"),
            resource: pv(),
            ..Default::default()
        },
    );
}

#[test]
fn invalid_injection_annotation() {
    error_result(
        "an invalid injection annotation (`kpt.dev/config-injection: sometimes`)",
        &["has invalid \"kpt.dev/config-injection\" annotation value of \"sometimes\""],
        Where {
            resource: Some(("ConfigMap", "endpoints")),
            file: Some("endpoints.yaml"),
            ..Default::default()
        },
    );
}

#[test]
fn duplicate_injection_points() {
    error_result(
        "two injection points with the same condition type",
        &["config.injection.ConfigMap.endpoints"],
        Where {
            resource: Some(("ConfigMap", "endpoints")),
            ..Default::default()
        },
    );
}

// ---------------------------------------------------------------- PackageVariantSet: CEL

const PACKAGE_EXPR: &str = "spec.targets[0].template.downstream.packageExpr";

#[test]
fn cel_syntax_error() {
    error_result(
        "a CEL syntax error",
        &["ERROR: <input>:1:4: Syntax error"],
        Where {
            field: Some(PACKAGE_EXPR),
            resource: pvs(),
            ..Default::default()
        },
    );
}

#[test]
fn cel_function_porch_does_not_have() {
    error_result(
        "a CEL function Porch does not have",
        &["lowerAscii"],
        Where {
            field: Some(PACKAGE_EXPR),
            resource: pvs(),
            ..Default::default()
        },
    );
}

#[test]
fn cel_result_not_a_string() {
    error_result(
        "a CEL expression that is not a string",
        &["unsupported type conversion from 'int' to string"],
        Where {
            field: Some(PACKAGE_EXPR),
            resource: pvs(),
            ..Default::default()
        },
    );
}

#[test]
fn cel_repository_in_repo_expr() {
    error_result(
        "CEL `repository` in `repoExpr`",
        &["no such attribute(s): repository"],
        Where {
            field: Some("spec.targets[0].template.downstream.repoExpr"),
            resource: pvs(),
            ..Default::default()
        },
    );
}

#[test]
fn cel_beyond_metadata() {
    error_result(
        "CEL reaching beyond metadata (`target.spec`)",
        &["no such key: spec"],
        Where {
            field: Some(PACKAGE_EXPR),
            resource: pvs(),
            ..Default::default()
        },
    );
}

// ---------------------------------------------------------------- PackageVariantSet: selectors

#[test]
fn selector_unknown_operator() {
    error_result(
        "a selector with an unknown operator",
        &["\"Sometimes\" is not a valid label selector operator"],
        Where {
            field: Some("spec.targets[0].repositorySelector"),
            resource: pvs(),
            ..Default::default()
        },
    );
}

#[test]
fn selector_in_without_values() {
    error_result(
        "a selector `In` without values",
        &["values"],
        Where {
            field: Some("spec.targets[0].repositorySelector"),
            resource: pvs(),
            ..Default::default()
        },
    );
}

// ---------------------------------------------------------------- duplicates, lookups, limits

#[test]
fn duplicate_identifiers() {
    error_result(
        "two targets producing the same PackageVariant",
        &[
            "spec.targets[0].repositories[0] (downstream \"edge1\"/\"base\") and spec.targets[1].repositorySelector (Repository \"edge1\", downstream \"edge1\"/\"base\") both produce the PackageVariant identifier \"my-set-edge1-base\"",
            "give them different downstream repo or package names",
        ],
        Where {
            field: Some("spec.targets[1].repositorySelector"),
            resource: pvs(),
            ..Default::default()
        },
    );
}

#[test]
fn object_selector_kind_not_among_the_items() {
    error_result(
        "an objectSelector whose kind is not among the items",
        &[
            r#"no matches for kind "WorkloadCluster" in version "infra.nephio.org/v1alpha1" among the input items in namespace "default" (Porch: NoMatchingTargets)"#,
            "kubectl get workloadclusters.infra.nephio.org -n default -o yaml",
        ],
        Where {
            field: Some("spec.targets[0].objectSelector"),
            resource: pvs(),
            ..Default::default()
        },
    );
}

#[test]
fn package_name_listed_twice() {
    error_result(
        "a package name listed twice",
        &["is listed twice, at spec.targets[0].repositories[0].packageNames[0] and at spec.targets[0].repositories[0].packageNames[1]"],
        Where {
            field: Some("spec.targets[0].repositories[0].packageNames[1]"),
            resource: pvs(),
            ..Default::default()
        },
    );
}

#[test]
fn set_template_reserved_context_key() {
    error_result(
        "a set template setting a package-context key Porch sets (`name`)",
        &[
            r#"must not contain the key "name" (Porch sets it): Porch would refuse every PackageVariant of the set"#,
        ],
        Where {
            field: Some("spec.targets[0].template.packageContext.data.name"),
            resource: pvs(),
            ..Default::default()
        },
    );
}

#[test]
fn set_key_expr_reserved_context_key() {
    error_result(
        "a set's CEL key giving a package-context key Porch sets",
        &[
            r#"gives the key "package-path", which Porch sets: Porch would refuse the PackageVariant"#,
        ],
        Where {
            field: Some("spec.targets[0].template.packageContext.dataExprs[0].keyExpr"),
            resource: pvs(),
            ..Default::default()
        },
    );
}

#[test]
fn set_injector_name_expr_empty() {
    error_result(
        "a set's injector name expression giving an empty name",
        &["gives an empty injector name: Porch would refuse the PackageVariant (spec.injectors[0].name must not be empty)"],
        Where {
            field: Some("spec.targets[0].template.injectors[0].nameExpr"),
            resource: pvs(),
            ..Default::default()
        },
    );
}

#[test]
fn set_map_entry_without_key() {
    error_result(
        "a set's map entry without a key (`labelExprs: [{value: v}]`)",
        &["must not be empty: give the key with `key` or `keyExpr`"],
        Where {
            field: Some("spec.targets[0].template.labelExprs[0].key"),
            resource: pvs(),
            ..Default::default()
        },
    );
}

#[test]
fn generated_name_kubernetes_would_refuse() {
    error_result(
        "a generated PackageVariant name Kubernetes would refuse",
        &[
            r#"gives the downstream package "Web", which makes the PackageVariant name "my-set-edge1-Web" invalid: it contains the upper-case letter 'W' (write "web")"#,
        ],
        Where {
            field: Some("spec.targets[0].repositories[0].packageNames[0]"),
            resource: pvs(),
            ..Default::default()
        },
    );
}

#[test]
fn upstream_not_found() {
    error_result(
        "a set whose upstream PackageRevision is not among the items",
        &[
            "could not find upstream package revision 'base/1' in repo 'blueprints'",
            "must be among the input items",
        ],
        Where {
            field: Some("spec.upstream"),
            resource: pvs(),
            ..Default::default()
        },
    );
}

#[test]
fn billion_laughs_function_config() {
    error_result(
        "a billion-laughs functionConfig",
        &["cannot read the PackageVariant: YAML aliases expand to more than 100000 values; refusing to expand them"],
        Where {
            resource: pv(),
            ..Default::default()
        },
    );
}

// ---------------------------------------------------------------- the documented table

/// What the binary answers to a row: exit code and the stderr line or the first error result
/// (message, field path, resourceRef).
fn answer(input: &[u8]) -> (i32, String) {
    let out = run_bytes(input);
    if out.stdout.is_empty() {
        return (out.code, format!("stderr: {}", code(out.stderr.trim_end())));
    }
    let error = first_error(&out.stdout).unwrap_or_default();
    let get = |p: &str| {
        error
            .pointer(p)
            .and_then(|v| v.as_str())
            .unwrap_or("")
            .to_string()
    };
    let message = get("/message").replace('\n', " ").replace('|', "\\|");
    let mut s = format!("error result: {}", code(&message));
    let field = get("/field/path");
    if !field.is_empty() {
        s.push_str(&format!("; field `{field}`"));
    }
    let kind = get("/resourceRef/kind");
    if !kind.is_empty() {
        s.push_str(&format!(
            "; resourceRef `{kind}/{}`",
            get("/resourceRef/name")
        ));
    }
    (out.code, s)
}

/// A Markdown code span, with a longer fence when the text holds backticks.
fn code(text: &str) -> String {
    if text.contains('`') {
        format!("`` {text} ``")
    } else {
        format!("`{text}`")
    }
}

fn table() -> String {
    let mut t = String::from("| What you send | Exit | What you get |\n|---|---|---|\n");
    for (send, input) in rows() {
        let (code, got) = answer(&input);
        t.push_str(&format!("| {send} | {code} | {got} |\n"));
    }
    t.push_str("| more than 256 MiB | 1 | stderr: `package-variant: input is larger than the limit of 268435456 bytes (256 MiB); split the package or the list of objects into smaller ResourceLists` |\n");
    t
}

/// Prints the Errors table of `docs/reference.md`.
#[test]
#[ignore = "prints the table; run with --ignored --nocapture to regenerate the Errors table of docs/reference.md"]
fn print_table() {
    println!("{}", table());
}

/// Every row of the Errors table (docs/reference.md) is what the binary says today (a row
/// may live in README.md or in a page of docs/, as docs/cel.md holds the CEL rows).
#[test]
fn table_document_matches_the_binary() {
    let root = std::path::Path::new(env!("CARGO_MANIFEST_DIR"));
    let mut doc = std::fs::read_to_string(root.join("README.md")).expect("README.md");
    if let Ok(entries) = std::fs::read_dir(root.join("docs")) {
        for path in entries.filter_map(Result::ok).map(|e| e.path()) {
            if path.extension().is_some_and(|x| x == "md") {
                doc.push_str(&std::fs::read_to_string(&path).unwrap_or_default());
            }
        }
    }
    for line in table().lines().skip(2) {
        assert!(
            doc.contains(line),
            "the Errors table in docs/reference.md (or docs/cel.md) is out of date (regenerate it, see the module doc); missing:\n{line}"
        );
    }
}
