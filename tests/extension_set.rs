//! The extension PackageVariantSet's template (`fn.kpt.dev/v1alpha1`, docs/extensions.md)
//! through the binary: injection entries named by CEL (`bindingPointExpr` and the other
//! `*Expr` fields, exactly one of a field and its expression), and pipeline placement carried
//! onto every variant, which then places its functions where the template says.

mod common;

use common::{resource_list, results_section, run, KPTFILE};

/// An extension set over the three `env: prod` Repositories with `template` (lines indented
/// by six spaces, under `template:`).
fn set(api_version: &str, template: &str) -> String {
    format!(
        "apiVersion: {api_version}
kind: PackageVariantSet
metadata:
  name: my-set
spec:
  upstream: {{repo: blueprints, package: base, revision: 1}}
  targets:
  - repositorySelector:
      matchLabels: {{env: prod}}
    template:
{template}"
    )
}

const EXT: &str = "fn.kpt.dev/v1alpha1";

/// The Repositories: three in prod, each naming the injection point its variant fills.
fn fleet() -> Vec<String> {
    let mut items = vec![common::UPSTREAM_PR.to_string()];
    for (name, region, point) in [
        ("edge-1", "us-east1", "primary"),
        ("edge-2", "eu-west1", "secondary"),
        ("edge-3", "asia-east1", "primary"),
    ] {
        items.push(common::repository(
            name,
            &format!("{{env: prod, region: {region}, point: {point}}}"),
        ));
    }
    items
}

fn go(items: &[String], config: &str) -> common::Run {
    let items: Vec<&str> = items.iter().map(String::as_str).collect();
    run(&resource_list(&items, config))
}

/// The output's items as JSON.
fn items(out: &str) -> Vec<serde_json::Value> {
    let node = package_variant::yaml::parse(out).unwrap();
    let json = package_variant::yaml::to_json(&node).unwrap();
    json["items"].as_array().cloned().unwrap_or_default()
}

/// The PackageVariant the set made for Repository `repo`.
fn variant_for(out: &str, repo: &str) -> serde_json::Value {
    items(out)
        .into_iter()
        .find(|i| i["kind"] == "PackageVariant" && i["spec"]["downstream"]["repo"] == repo)
        .unwrap_or_else(|| panic!("no variant for {repo} in\n{out}"))
}

/// Exit 1 and an error result with `message` (a part of it) at `field`.
fn assert_error(out: &common::Run, message: &str, field: &str) {
    assert_eq!(out.code, 1, "{}", out.stdout);
    let results = results_section(&out.stdout).replace("''", "'");
    assert!(results.contains(message), "{message:?} not in\n{results}");
    assert!(
        results.contains(&format!("path: {field}\n"))
            || results.contains(&format!("path: '{field}'\n")),
        "{field} not in\n{results}"
    );
    // Nothing is emitted when the set is refused.
    assert!(!common::items_section(&out.stdout).contains("kind: PackageVariant\n"));
}

const BY_CEL: &str = "      injection:
      - bindingPointExpr: \"repository.labels['point'] + '-db'\"
        packageResource:
          repoExpr: \"'shared-' + repository.labels['region']\"
          packageExpr: \"'databases'\"
          nameExpr: \"repository.labels['region']\"
      - bindingPoint: endpoints
        clusterResource: {nameExpr: \"repository.labels['region'] + '-endpoints'\"}
      - bindingPoint: team
        directResource: {data: {team: web}}
        dataExprs:
        - {key: region, valueExpr: \"repository.labels['region']\"}
";

#[test]
fn every_name_of_an_entry_can_come_from_cel() {
    let out = go(&fleet(), &set(EXT, BY_CEL));
    assert_eq!(out.code, 0, "{}", out.stdout);
    let v = variant_for(&out.stdout, "edge-2");
    assert_eq!(v["apiVersion"], EXT);
    let injection = &v["spec"]["injection"];
    assert_eq!(injection[0]["bindingPoint"], "secondary-db");
    assert_eq!(
        injection[0]["packageResource"],
        serde_json::json!({"repo": "shared-eu-west1", "package": "databases", "name": "eu-west1"})
    );
    assert_eq!(injection[1]["bindingPoint"], "endpoints");
    assert_eq!(
        injection[1]["clusterResource"]["name"],
        "eu-west1-endpoints"
    );
    assert_eq!(
        injection[2]["directResource"]["data"],
        serde_json::json!({"team": "web", "region": "eu-west1"})
    );
    assert_eq!(
        variant_for(&out.stdout, "edge-1")["spec"]["injection"][0]["bindingPoint"],
        "primary-db"
    );
    // The next run, on its own output, changes nothing.
    let again = run(&out.stdout);
    assert_eq!(again.code, 0, "{}", again.stdout);
    assert_eq!(
        common::items_section(&again.stdout),
        common::items_section(&out.stdout)
    );
}

/// A variant whose `bindingPointExpr` names a point, applied to a package with two points of
/// one kind: only that point is filled.
#[test]
fn a_variant_binds_the_point_its_expression_named() {
    let template = "      injection:
      - bindingPointExpr: \"repository.labels['point']\"
        directResource: {data: {db: from-set}}
";
    let out = go(&fleet(), &set(EXT, template));
    assert_eq!(out.code, 0, "{}", out.stdout);
    let v = variant_for(&out.stdout, "edge-2");
    let config = v.to_string();
    let point = |name: &str| {
        format!(
            "apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: {name}\n  annotations:\n    kpt.dev/config-injection: optional\n    config.kubernetes.io/path: {name}.yaml\ndata:\n  db: placeholder\n"
        )
    };
    let pkg = [KPTFILE.to_string(), point("primary"), point("secondary")];
    let applied = go(&pkg, &config);
    assert_eq!(applied.code, 0, "{config}\n{}", applied.stdout);
    let out_items = items(&applied.stdout);
    let data = |name: &str| {
        out_items
            .iter()
            .find(|i| i["metadata"]["name"] == name)
            .map(|i| i["data"]["db"].clone())
            .unwrap()
    };
    assert_eq!(data("secondary"), "from-set");
    assert_eq!(data("primary"), "placeholder");
}

#[test]
fn a_field_and_its_expression_are_exactly_one() {
    for (entry, message, field) in [
        (
            "      - {bindingPoint: a, bindingPointExpr: \"'a'\", directResource: {data: {k: v}}}\n",
            "may specify only one of `bindingPoint` and `bindingPointExpr`",
            "spec.targets[0].template.injection[0]",
        ),
        (
            "      - {bindingPoint: a, clusterResource: {name: x, nameExpr: \"'x'\"}}\n",
            "may specify only one of `name` and `nameExpr`",
            "spec.targets[0].template.injection[0].clusterResource",
        ),
        (
            "      - {bindingPoint: a, clusterResource: {}}\n",
            "must specify either `name` or `nameExpr`",
            "spec.targets[0].template.injection[0].clusterResource",
        ),
        (
            "      - {bindingPoint: a, packageResource: {repo: r, repoExpr: \"'r'\", package: p, name: n}}\n",
            "may specify only one of `repo` and `repoExpr`",
            "spec.targets[0].template.injection[0].packageResource",
        ),
        (
            "      - {bindingPoint: a, packageResource: {repo: r, package: p, packageExpr: \"'p'\", name: n}}\n",
            "may specify only one of `package` and `packageExpr`",
            "spec.targets[0].template.injection[0].packageResource",
        ),
        (
            "      - {bindingPoint: a, packageResource: {repo: r, package: p, nameExpr: \"\"}}\n",
            "must not be empty: give the name",
            "spec.targets[0].template.injection[0].packageResource.nameExpr",
        ),
        (
            "      - {bindingPointExpr: \"\", directResource: {data: {k: v}}}\n",
            "must not be empty: give the CEL expression naming the injection point",
            "spec.targets[0].template.injection[0].bindingPointExpr",
        ),
        (
            "      - {bindingPoint: a, dataExprs: [{key: k, keyExpr: \"'k'\", value: v}]}\n",
            "may specify only one of `key` and `keyExpr`",
            "spec.targets[0].template.injection[0].dataExprs[0]",
        ),
        (
            "      - {bindingPoint: a}\n",
            "gives no source: give exactly one of clusterResource, directResource",
            "spec.targets[0].template.injection[0]",
        ),
        (
            "      - {bindingPoint: a, clusterResource: {name: x}, dataExprs: [{key: k, value: v}]}\n",
            "gives clusterResource and directResource: give exactly one source per entry",
            "spec.targets[0].template.injection[0]",
        ),
        (
            "      - {bindingPoint: \"\", clusterResource: {name: x}}\n",
            "clusterResource needs a bindingPoint or bindingPointExpr",
            "spec.targets[0].template.injection[0].bindingPoint",
        ),
        (
            "      - {clusterResource: {nameExpr: \"'x'\"}}\n",
            "clusterResource needs a bindingPoint or bindingPointExpr",
            "spec.targets[0].template.injection[0].bindingPoint",
        ),
    ] {
        let out = go(&fleet(), &set(EXT, &format!("      injection:\n{entry}")));
        assert_error(&out, message, field);
    }
}

#[test]
fn a_misspelt_expression_field_has_did_you_mean() {
    let out = go(
        &fleet(),
        &set(
            EXT,
            "      injection:\n      - {bindingPointExp: \"'a'\", directResource: {data: {k: v}}}\n",
        ),
    );
    assert_error(
        &out,
        "unknown field \"bindingPointExp\"; did you mean \"bindingPointExpr\"?",
        "spec.targets[0].template.injection[0].bindingPointExp",
    );
}

#[test]
fn a_binding_point_expression_that_gives_nothing_is_an_error() {
    let out = go(
        &fleet(),
        &set(
            EXT,
            "      injection:\n      - {bindingPointExpr: \"''\", directResource: {data: {k: v}}}\n",
        ),
    );
    assert_error(
        &out,
        "gives an empty name: the PackageVariant would refuse it",
        "spec.targets[0].template.injection[0].bindingPointExpr",
    );
}

// ------------------------------------------------------------------ pipeline placement

const PLACED: &str = "      pipeline:
        mutators:
        - {name: ns, image: set-namespace:v0.4}
      pipelinePlacement: {position: after, function: apply-setters}
";

/// A Kptfile whose pipeline has two upstream mutators, `set-labels` and `apply-setters`.
const KPTFILE_WITH_PIPELINE: &str = "apiVersion: kpt.dev/v1
kind: Kptfile
metadata:
  name: pkg
  annotations:
    config.kubernetes.io/path: Kptfile
pipeline:
  mutators:
  - name: set-labels
    image: set-labels:v0.1
  - name: apply-setters
    image: apply-setters:v0.1
";

#[test]
fn the_set_carries_pipeline_placement_onto_each_variant() {
    let out = go(&fleet(), &set(EXT, PLACED));
    assert_eq!(out.code, 0, "{}", out.stdout);
    for repo in ["edge-1", "edge-2", "edge-3"] {
        let v = variant_for(&out.stdout, repo);
        // An extension field: the variant is the extension's kind, without injection too.
        assert_eq!(v["apiVersion"], EXT, "{v}");
        assert_eq!(
            v["spec"]["pipelinePlacement"],
            serde_json::json!({"position": "after", "function": "apply-setters"})
        );
    }
    // The next run, on its own output, changes nothing.
    let again = run(&out.stdout);
    assert_eq!(
        common::items_section(&again.stdout),
        common::items_section(&out.stdout)
    );
    // Each variant places its function after the upstream's apply-setters.
    let v = variant_for(&out.stdout, "edge-3");
    let name = v["metadata"]["name"].as_str().unwrap().to_string();
    let config = v.to_string();
    let applied = go(&[KPTFILE_WITH_PIPELINE.to_string()], &config);
    assert_eq!(applied.code, 0, "{}", applied.stdout);
    let kptfile = items(&applied.stdout)
        .into_iter()
        .find(|i| i["kind"] == "Kptfile")
        .unwrap();
    let names: Vec<&str> = kptfile["pipeline"]["mutators"]
        .as_array()
        .unwrap()
        .iter()
        .map(|f| f["name"].as_str().unwrap())
        .collect();
    assert_eq!(
        names,
        [
            "set-labels",
            "apply-setters",
            &format!("PackageVariant.{name}.ns.0")
        ]
    );
}

#[test]
fn a_placement_the_variant_would_refuse_is_refused_on_the_set() {
    let bad = PLACED.replace("position: after", "position: afterwards");
    let out = go(&fleet(), &set(EXT, &bad));
    assert_error(
        &out,
        "unknown position \"afterwards\"; write one of first, last, before, after; did you mean \"after\"?",
        "spec.targets[0].template.pipelinePlacement.position",
    );
    let bad = PLACED.replace(", function: apply-setters", "");
    let out = go(&fleet(), &set(EXT, &bad));
    assert_error(
        &out,
        "position after needs function",
        "spec.targets[0].template.pipelinePlacement.function",
    );
}

#[test]
fn placement_under_porchs_set_is_refused_with_a_hint() {
    let out = go(&fleet(), &set("config.porch.kpt.dev/v1alpha2", PLACED));
    assert_error(
        &out,
        "unknown field \"pipelinePlacement\": pipelinePlacement is an extension of this function, not a field of Porch's PackageVariantSet; write apiVersion: fn.kpt.dev/v1alpha1 to use it",
        "spec.targets[0].template.pipelinePlacement",
    );
}
