//! The `fnconfig/` samples and schemas.
//!
//! - `fnconfig/schemas/*.yaml` are structural CRD schemas with Porch's group, versions and names.
//! - Every `fnconfig/*.yaml` sample is valid against the schema of its kind (see
//!   `tests/openapi/mod.rs` for what is checked; unknown fields and nulls are errors), and broken
//!   samples are refused.
//! - Every sample runs through the binary over one package plus the cluster objects the samples
//!   name, exits 0 with no error result, and changes something (a sample that does nothing would
//!   show nothing).

mod common;
mod openapi;

use package_variant::api::package_variant::PACKAGE_VARIANT_API_VERSION as PACKAGE_VARIANT_API;
use package_variant::api::package_variant_set::PACKAGE_VARIANT_SET_API_VERSION as PACKAGE_VARIANT_SET_API;
use package_variant::yaml;
use serde_json::{json, Value};
use std::collections::BTreeMap;
use std::fs;
use std::path::{Path, PathBuf};

fn root() -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR"))
}

fn yaml_to_json(text: &str, what: &str) -> Value {
    let node = yaml::parse(text).unwrap_or_else(|e| panic!("{what}: {e}"));
    yaml::to_json(&node).unwrap_or_else(|e| panic!("{what}: {e}"))
}

/// The `*.yaml` files directly in `dir`, sorted, as (file name, text).
fn yaml_files(dir: &Path) -> Vec<(String, String)> {
    let mut files: Vec<(String, String)> = fs::read_dir(dir)
        .unwrap_or_else(|e| panic!("{}: {e}", dir.display()))
        .map(|e| e.unwrap().path())
        .filter(|p| p.is_file() && p.extension().is_some_and(|x| x == "yaml"))
        .map(|p| {
            let name = p.file_name().unwrap().to_string_lossy().to_string();
            (name, fs::read_to_string(&p).unwrap())
        })
        .collect();
    files.sort();
    files
}

/// The CRDs under fnconfig/schemas, by kind.
fn crds() -> BTreeMap<String, Value> {
    yaml_files(&root().join("fnconfig/schemas"))
        .into_iter()
        .map(|(name, text)| {
            let crd = yaml_to_json(&text, &name);
            let kind = crd["spec"]["names"]["kind"]
                .as_str()
                .unwrap_or_else(|| panic!("{name}: no spec.names.kind"))
                .to_string();
            (kind, crd)
        })
        .collect()
}

/// The samples fnconfig/*.yaml as (file name, text).
fn samples() -> Vec<(String, String)> {
    yaml_files(&root().join("fnconfig"))
}

/// Validates a sample's text against the schema of its kind.
fn validate_sample(text: &str, crds: &BTreeMap<String, Value>) -> Vec<String> {
    let value = yaml_to_json(text, "sample");
    let api_version = value["apiVersion"].as_str().unwrap_or_default();
    let kind = value["kind"].as_str().unwrap_or_default();
    let Some(crd) = crds.get(kind) else {
        return vec![format!("no schema for kind {kind:?}")];
    };
    match openapi::schema_for(crd, api_version, kind) {
        Ok(schema) => openapi::validate(&schema, &value),
        Err(e) => vec![e],
    }
}

fn spec_schema(crd: &Value) -> &Value {
    &crd["spec"]["versions"][0]["schema"]["openAPIV3Schema"]["properties"]["spec"]
}

/// Follows `properties` (and `items` for `[]`) down a dotted path.
fn at<'a>(schema: &'a Value, path: &str) -> &'a Value {
    let mut node = schema;
    for part in path.split('.') {
        node = match part.strip_suffix("[]") {
            Some(name) => &node["properties"][name]["items"],
            None => &node["properties"][part],
        };
        assert!(!node.is_null(), "no schema at {path} ({part})");
    }
    node
}

/// Without its description, to compare copies of one schema.
fn strip_descriptions(v: &Value) -> Value {
    match v {
        Value::Object(m) => Value::Object(
            m.iter()
                .filter(|(k, _)| k.as_str() != "description")
                .map(|(k, v)| (k.clone(), strip_descriptions(v)))
                .collect(),
        ),
        Value::Array(a) => Value::Array(a.iter().map(strip_descriptions).collect()),
        other => other.clone(),
    }
}

#[test]
fn schemas_are_structural_crds_with_porchs_names() {
    let crds = crds();
    let expected = [
        (
            "PackageVariant",
            "packagevariants",
            "v1alpha1",
            PACKAGE_VARIANT_API,
        ),
        (
            "PackageVariantSet",
            "packagevariantsets",
            "v1alpha2",
            PACKAGE_VARIANT_SET_API,
        ),
    ];
    assert_eq!(
        crds.keys().collect::<Vec<_>>(),
        ["PackageVariant", "PackageVariantSet"]
    );
    for (kind, plural, version, served_api) in expected {
        let crd = &crds[kind];
        assert_eq!(crd["apiVersion"], "apiextensions.k8s.io/v1", "{kind}");
        assert_eq!(crd["kind"], "CustomResourceDefinition", "{kind}");
        assert_eq!(
            crd["metadata"]["name"],
            json!(format!("{plural}.config.porch.kpt.dev")),
            "{kind}"
        );
        let spec = &crd["spec"];
        assert_eq!(spec["group"], "config.porch.kpt.dev", "{kind}");
        assert_eq!(spec["scope"], "Namespaced", "{kind}");
        assert_eq!(spec["names"]["plural"], plural, "{kind}");
        assert_eq!(spec["names"]["singular"], json!(kind.to_lowercase()));
        assert_eq!(spec["names"]["listKind"], json!(format!("{kind}List")));
        let versions = spec["versions"].as_array().unwrap();
        assert_eq!(versions.len(), 1, "{kind}: one version");
        let v = &versions[0];
        assert_eq!(v["name"], version, "{kind}");
        assert_eq!((&v["served"], &v["storage"]), (&json!(true), &json!(true)));
        // The version the schema serves is the one the function dispatches on.
        assert_eq!(served_api, format!("config.porch.kpt.dev/{version}"));
        let errors = openapi::check_schema(&v["schema"]["openAPIV3Schema"]);
        assert!(errors.is_empty(), "{kind}: {errors:#?}");
    }
}

#[test]
fn repeated_schema_copies_are_equal() {
    let crds = crds();
    let pv = spec_schema(&crds["PackageVariant"]);
    let pvs = spec_schema(&crds["PackageVariantSet"]);
    let same = |a: &Value, b: &Value, what: &str| {
        assert_eq!(strip_descriptions(a), strip_descriptions(b), "{what}");
    };
    // PackageVariant: the kpt Function and Selector.
    let function = at(pv, "pipeline.mutators[]");
    same(function, at(pv, "pipeline.validators[]"), "PV function");
    same(
        at(function, "selectors[]"),
        at(function, "exclude[]"),
        "PV selector",
    );
    // PackageVariantSet: function templates, map expressions, label selector requirements.
    let template = at(pvs, "targets[].template");
    let fn_template = at(template, "pipeline.mutators[]");
    same(
        fn_template,
        at(template, "pipeline.validators[]"),
        "PVS function",
    );
    let map_expr = at(template, "labelExprs[]");
    for path in [
        "annotationExprs[]",
        "packageContext.dataExprs[]",
        "pipeline.mutators[].configMapExprs[]",
    ] {
        same(map_expr, at(template, path), path);
    }
    same(
        at(pvs, "targets[].repositorySelector.matchExpressions"),
        at(pvs, "targets[].objectSelector.matchExpressions"),
        "matchExpressions",
    );
    // Shared with the PackageVariant: upstream, and the Function (the template adds
    // configMapExprs).
    same(at(pv, "upstream"), at(pvs, "upstream"), "upstream");
    let mut fn_only = fn_template.clone();
    fn_only["properties"]
        .as_object_mut()
        .unwrap()
        .remove("configMapExprs");
    same(function, &fn_only, "Function vs FunctionTemplate");
}

#[test]
fn every_sample_is_valid_against_its_schema() {
    let crds = crds();
    let samples = samples();
    let kinds: Vec<String> = samples
        .iter()
        .map(|(name, text)| {
            yaml_to_json(text, name)["kind"]
                .as_str()
                .unwrap_or_default()
                .to_string()
        })
        .collect();
    for kind in ["PackageVariant", "PackageVariantSet"] {
        assert!(
            kinds.iter().any(|k| k == kind),
            "no fnconfig/ sample of kind {kind}: {kinds:?}"
        );
    }
    let failures: Vec<String> = samples
        .iter()
        .filter_map(|(name, text)| {
            let errors = validate_sample(text, &crds);
            (!errors.is_empty()).then(|| format!("fnconfig/{name}:\n  {}", errors.join("\n  ")))
        })
        .collect();
    assert!(failures.is_empty(), "{}", failures.join("\n"));
}

/// Edits a sample's text; the edit must apply.
fn broken(text: &str, from: &str, to: &str) -> String {
    assert!(
        text.contains(from),
        "the sample no longer contains {from:?}"
    );
    text.replacen(from, to, 1)
}

#[test]
fn broken_samples_are_refused() {
    let crds = crds();
    let pv = fs::read_to_string(root().join("fnconfig/package-variant.yaml")).unwrap();
    let pvs =
        fs::read_to_string(root().join("fnconfig/package-variant-set-repositories.yaml")).unwrap();
    let cases = [
        (
            broken(&pv, "  packageContext:\n    data:", "  packageContext:\n    dta:"),
            "spec.packageContext.dta: unknown field (a structural schema would prune it)",
        ),
        (
            broken(&pv, "revision: 1 ", "revision: \"1\" "),
            "spec.upstream.revision: must be integer, found string \"1\"",
        ),
        (
            broken(&pv, "  - name: us-east1-endpoints", "  - kind: ConfigMap"),
            "spec.injectors[0].name: required field is missing",
        ),
        (
            broken(&pv, "    team: platform", "    team: 3"),
            "spec.labels.team: must be string, found number 3",
        ),
        (
            broken(&pv, "  labels:\n    team: platform", "  labels:"),
            "spec.labels: null is not allowed (the API server would drop it)",
        ),
        (
            broken(&pv, "  name: my-pv", "  name: my-pv\n  labelz: {}"),
            "metadata.labelz: unknown field (a structural schema would prune it)",
        ),
        (
            format!("{pv}status:\n  conditions:\n  - type: Ready\n    status: Maybe\n    reason: R\n    message: m\n    lastTransitionTime: \"2024-01-01T00:00:00Z\"\n"),
            "status.conditions[0].status: \"Maybe\" is not one of [\"True\",\"False\",\"Unknown\"]",
        ),
        (
            broken(&pv, "apiVersion: config.porch.kpt.dev/v1alpha1", "apiVersion: config.porch.kpt.dev/v1alpha2"),
            "the CRD has no version \"v1alpha2\"",
        ),
        (
            broken(&pvs, "  - repositories:\n    - name: deploy-us-east", "  - repositories:\n    - nam: deploy-us-east"),
            "spec.targets[0].repositories[0].nam: unknown field (a structural schema would prune it)",
        ),
        (
            broken(&pvs, "      packageNames: [basens, basens-audit]", "      packageNames: basens"),
            "spec.targets[0].repositories[1].packageNames: must be array, found string \"basens\"",
        ),
        (
            broken(&pvs, "      labelExprs:\n      - key: region\n", "      labelExprs:\n      - key: region\n        valueExpresion: x\n"),
            "spec.targets[0].template.labelExprs[0].valueExpresion: unknown field (a structural schema would prune it)",
        ),
    ];
    for (text, expected) in &cases {
        let errors = validate_sample(text, &crds);
        assert!(
            errors.iter().any(|e| e == expected),
            "expected {expected:?}, got {errors:#?}"
        );
    }
    // A kind with no schema is refused, not skipped.
    let cm = "apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: x\n";
    assert_eq!(
        validate_sample(cm, &crds),
        ["no schema for kind \"ConfigMap\""]
    );
}

/// One package plus the cluster objects the samples name (Porch objects in namespace
/// `blueprints`, as `kubectl get -o yaml` lists them). Every sample runs over all of it.
const PACKAGE: &[&str] = &[
    "apiVersion: kpt.dev/v1\nkind: Kptfile\nmetadata:\n  name: basens\n  annotations:\n    config.kubernetes.io/local-config: \"true\"\ninfo:\n  description: A namespace blueprint\n",
    "apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: kptfile.kpt.dev\n  annotations:\n    config.kubernetes.io/local-config: \"true\"\ndata:\n  name: basens\n  legacy-key: old\n",
    "apiVersion: v1\nkind: Namespace\nmetadata:\n  name: example\n",
    "apiVersion: porch.kpt.dev/v1alpha1\nkind: PackageRevision\nmetadata:\n  name: catalog.basens.v3\n  namespace: blueprints\nspec:\n  repository: catalog\n  packageName: basens\n  workspaceName: v3\n  revision: 3\n  lifecycle: Published\n",
    "apiVersion: config.porch.kpt.dev/v1alpha1\nkind: Repository\nmetadata:\n  name: deploy-us-east\n  namespace: blueprints\n  labels: {env: prod, region: us-east}\n",
    "apiVersion: config.porch.kpt.dev/v1alpha1\nkind: Repository\nmetadata:\n  name: deploy-eu-west\n  namespace: blueprints\n  labels: {env: prod, region: eu-west}\n",
    "apiVersion: config.porch.kpt.dev/v1alpha1\nkind: Repository\nmetadata:\n  name: deploy-ap-south\n  namespace: blueprints\n  labels: {env: dev, region: ap-south}\n",
    "apiVersion: infra.example.com/v1\nkind: Cluster\nmetadata:\n  name: edge-1\n  namespace: blueprints\n  labels: {tier: edge, region: us-east}\n",
    "apiVersion: infra.example.com/v1\nkind: Cluster\nmetadata:\n  name: edge-2\n  namespace: blueprints\n  labels: {tier: edge, region: eu-west, decommissioned: \"true\"}\n",
];

#[test]
fn every_sample_runs_through_the_binary() {
    let crds = crds();
    let mut failures = Vec::new();
    for (name, text) in samples() {
        let input = common::resource_list(PACKAGE, &text);
        let out = common::run(&input);
        if out.code != 0 || out.stdout.contains("severity: error") {
            failures.push(format!(
                "fnconfig/{name}: exit {}\n{}{}",
                out.code, out.stdout, out.stderr
            ));
        } else if common::items_section(&out.stdout) == common::items_section(&input) {
            failures.push(format!("fnconfig/{name}: changed nothing\n{}", out.stdout));
        } else {
            // What the function emits is valid too: every PackageVariant a set creates.
            let rl = yaml_to_json(&out.stdout, &name);
            for item in rl["items"].as_array().into_iter().flatten() {
                if item["kind"] == "PackageVariant" || item["kind"] == "PackageVariantSet" {
                    let errors = validate_sample(&item.to_string(), &crds);
                    if !errors.is_empty() {
                        failures.push(format!(
                            "fnconfig/{name}: output {} {}: {errors:#?}",
                            item["kind"], item["metadata"]["name"]
                        ));
                    }
                }
            }
        }
    }
    assert!(failures.is_empty(), "{}", failures.join("\n\n"));
}

/// The YAML files under `dir`, recursively (dot directories included: `.expected` holds the
/// examples' functionConfigs).
fn yaml_files_under(dir: &Path, out: &mut Vec<PathBuf>) {
    for entry in fs::read_dir(dir).unwrap() {
        let path = entry.unwrap().path();
        if path.is_dir() {
            yaml_files_under(&path, out);
        } else if path.extension().is_some_and(|x| x == "yaml") {
            out.push(path);
        }
    }
}

#[test]
fn every_porch_object_in_the_examples_is_valid() {
    let crds = crds();
    let mut files = Vec::new();
    yaml_files_under(&root().join("examples"), &mut files);
    files.sort();
    let mut checked = 0;
    let mut failures = Vec::new();
    for file in files {
        // An example that shows a refusal (exitCode other than 0) feeds an invalid object on
        // purpose.
        // An example's functionConfig is `fn-config.yaml` beside its `.expected/`, which
        // links to it: checked once, where it is.
        if fs::symlink_metadata(&file)
            .unwrap()
            .file_type()
            .is_symlink()
        {
            continue;
        }
        let expected = file.parent().map(|d| d.join(".expected/config.yaml"));
        if file.ends_with("fn-config.yaml")
            && expected
                .and_then(|c| fs::read_to_string(c).ok())
                .is_some_and(|c| {
                    c.lines()
                        .any(|l| l.starts_with("exitCode:") && l.trim() != "exitCode: 0")
                })
        {
            continue;
        }
        let text = fs::read_to_string(&file).unwrap();
        for doc in text.split("\n---\n") {
            let value = yaml_to_json(doc, &file.display().to_string());
            let kind = value["kind"].as_str().unwrap_or_default();
            let group = value["apiVersion"].as_str().unwrap_or_default();
            if !group.starts_with("config.porch.kpt.dev/") || !crds.contains_key(kind) {
                continue;
            }
            checked += 1;
            let errors = validate_sample(doc, &crds);
            if !errors.is_empty() {
                failures.push(format!("{}: {errors:#?}", file.display()));
            }
        }
    }
    assert!(
        checked >= 5,
        "only {checked} Porch objects found under examples/"
    );
    assert!(failures.is_empty(), "{}", failures.join("\n"));
}
