//! Nothing silently wrong (issue 12), through the binary: every unknown field at every depth
//! of both kinds, wrong types, kpt's empty config, incomplete inputs of a set, duplicate
//! package names, names Kubernetes would refuse, and the injection hints. Every refusal exits
//! 1 with every item exactly as it was sent.

mod common;

use common::{
    items_section, pv_config, pvs_config, repository, resource_list, run, Run, KPTFILE,
    PACKAGE_CONTEXT, UPSTREAM_PR,
};
use serde_json::Value;

/// The results of an output ResourceList, as JSON.
fn results(stdout: &str) -> Vec<Value> {
    let node = package_variant::yaml::parse(stdout).unwrap_or_else(|e| panic!("{e}\n{stdout}"));
    node.get("results")
        .map(|r| package_variant::yaml::to_json(r).expect("JSON"))
        .and_then(|r| r.as_array().cloned())
        .unwrap_or_default()
}

/// (field path, message) of every error result.
fn errors(out: &Run) -> Vec<(String, String)> {
    results(&out.stdout)
        .iter()
        .filter(|r| r["severity"] == "error")
        .map(|r| {
            (
                r["field"]["path"].as_str().unwrap_or("").to_string(),
                r["message"].as_str().unwrap_or("").to_string(),
            )
        })
        .collect()
}

/// Runs `input`, expects exit 1 with every item byte-identical, and returns the errors.
fn refused(input: &str) -> Vec<(String, String)> {
    refused_by(input, run(input))
}

/// [`refused`] for a run already made.
fn refused_by(input: &str, out: common::Run) -> Vec<(String, String)> {
    assert_eq!(out.code, 1, "{}\n{}", out.stderr, out.stdout);
    assert!(common::is_error_summary(&out.stderr), "{}", out.stderr);
    assert_eq!(
        items_section(&out.stdout),
        items_section(input),
        "a refused run changes no item"
    );
    errors(&out)
}

fn pv_input(config: &str) -> String {
    resource_list(&[KPTFILE, PACKAGE_CONTEXT], config)
}

/// A set over two Repositories and the upstream, with an owned PackageVariant that a wrong run
/// would delete.
fn pvs_input(config: &str) -> String {
    resource_list(
        &[
            UPSTREAM_PR,
            &repository("edge1", "{env: prod}"),
            &repository("edge2", "{env: dev}"),
            OWNED,
        ],
        config,
    )
}

/// A PackageVariant the set `my-set` owns.
const OWNED: &str = "apiVersion: config.porch.kpt.dev/v1alpha1
kind: PackageVariant
metadata:
  name: my-set-edge1-base
  labels:
    config.porch.kpt.dev/packagevariantset: my-set
spec:
  upstream: {repo: blueprints, package: base, revision: 1}
  downstream: {repo: edge1, package: base}
";

fn one(path: &str, message: &str) -> Vec<(String, String)> {
    vec![(path.to_string(), message.to_string())]
}

// ------------------------------------------------------------------ the newcomer's mistakes

#[test]
fn newcomer_mistakes_in_a_package_variant() {
    let cases = [
        (
            "  pipelines:\n    mutators: [{image: set-labels}]\n",
            "spec.pipelines",
            r#"unknown field "pipelines"; did you mean "pipeline"?"#,
        ),
        (
            "  injector:\n  - name: endpoints\n",
            "spec.injector",
            r#"unknown field "injector"; did you mean "injectors"?"#,
        ),
        (
            "  packageContex:\n    data: {region: us}\n",
            "spec.packageContex",
            r#"unknown field "packageContex"; did you mean "packageContext"?"#,
        ),
        (
            "  packageContext:\n    removeKey: [region]\n",
            "spec.packageContext.removeKey",
            r#"unknown field "removeKey"; did you mean "removeKeys"?"#,
        ),
    ];
    for (spec, path, message) in cases {
        assert_eq!(
            refused(&pv_input(&pv_config(spec))),
            one(path, message),
            "{spec}"
        );
    }
}

#[test]
fn newcomer_mistakes_in_a_package_variant_set() {
    let cases = [
        (
            "  targets:\n  - repositorySelector:\n      matchLabel: {env: prod}\n",
            "spec.targets[0].repositorySelector.matchLabel",
            r#"unknown field "matchLabel"; did you mean "matchLabels"?"#,
        ),
        (
            "  targets:\n  - repositorySelector: {matchLabels: {env: prod}}\n    template:\n      labelExprs:\n      - key: region\n        valueExp: repository.name\n",
            "spec.targets[0].template.labelExprs[0].valueExp",
            r#"unknown field "valueExp"; did you mean "valueExpr"?"#,
        ),
        (
            "  template:\n    labels: {tier: edge}\n  targets:\n  - repositorySelector: {matchLabels: {env: prod}}\n",
            "spec.template",
            r#"unknown field "template"; it belongs at spec.targets[].template"#,
        ),
    ];
    for (targets, path, message) in cases {
        assert_eq!(
            refused(&pvs_input(&pvs_config(targets))),
            one(path, message),
            "{targets}"
        );
    }
}

// ------------------------------------------------------------------ a typo at every level

/// A typo in each object of a PackageVariant: (YAML appended to a valid spec, or a whole
/// config, the path, the name it should have been).
#[test]
fn a_typo_at_every_level_of_a_package_variant() {
    let spec_cases = [
        ("  upstrem: {repo: r}\n", "spec.upstrem", "upstream"),
        ("  downstraem: {}\n", "spec.downstraem", "downstream"),
        ("  adoptionpolicy: adoptNone\n", "spec.adoptionpolicy", "adoptionPolicy"),
        ("  label: {a: b}\n", "spec.label", "labels"),
        ("  packageContext: {dat: {a: b}}\n", "spec.packageContext.dat", "data"),
        ("  pipeline: {mutator: []}\n", "spec.pipeline.mutator", "mutators"),
        (
            "  pipeline:\n    mutators:\n    - image: set-labels\n      configmap: {a: b}\n",
            "spec.pipeline.mutators[0].configmap",
            "configMap",
        ),
        (
            "  pipeline:\n    validators:\n    - image: kubeval\n      selectors:\n      - kind: Deployment\n        lables: {a: b}\n",
            "spec.pipeline.validators[0].selectors[0].lables",
            "labels",
        ),
        (
            "  pipeline:\n    mutators:\n    - image: set-labels\n      exclude:\n      - nmae: x\n",
            "spec.pipeline.mutators[0].exclude[0].nmae",
            "name",
        ),
        ("  injectors:\n  - nmae: x\n", "spec.injectors[0].nmae", "name"),
    ];
    for (spec, path, close) in spec_cases {
        let message = format!("unknown field {:?}; did you mean {close:?}?", last(path));
        assert_eq!(
            refused(&pv_input(&pv_config(spec))),
            one(path, &message),
            "{spec}"
        );
    }
    // Upstream and downstream fields, the root, and metadata (ObjectMeta).
    let whole = [
        (
            pv_config("").replace("revision: 1}", "revison: 1}"),
            "spec.upstream.revison",
            "revision",
        ),
        (
            pv_config("").replace("package: base}\n", "pakage: base}\n"),
            "spec.downstream.pakage",
            "package",
        ),
        (pv_config("").replace("spec:", "spce:"), "spce", "spec"),
        (
            pv_config("").replace("  name: my-pv\n", "  name: my-pv\n  namspace: ns\n"),
            "metadata.namspace",
            "namespace",
        ),
    ];
    for (config, path, close) in whole {
        let message = format!("unknown field {:?}; did you mean {close:?}?", last(path));
        assert_eq!(refused(&pv_input(&config)), one(path, &message), "{config}");
    }
}

/// A typo in each object of a PackageVariantSet.
#[test]
fn a_typo_at_every_level_of_a_package_variant_set() {
    let sel = "  targets:\n  - repositorySelector: {matchLabels: {env: prod}}\n";
    let tpl = |t: &str| format!("{sel}    template:\n{t}");
    let cases = [
        ("  target: []\n".to_string(), "spec.target", "targets"),
        (
            "  targets:\n  - repositorys: [{name: edge1}]\n".to_string(),
            "spec.targets[0].repositorys",
            "repositories",
        ),
        (
            "  targets:\n  - repositories: [{name: edge1, packageName: [a]}]\n".to_string(),
            "spec.targets[0].repositories[0].packageName",
            "packageNames",
        ),
        (
            "  targets:\n  - repositorySelector:\n      matchExpressions: [{key: env, operater: In, values: [prod]}]\n".to_string(),
            "spec.targets[0].repositorySelector.matchExpressions[0].operater",
            "operator",
        ),
        (
            "  targets:\n  - objectSelector: {apiversion: v1, kind: ConfigMap}\n".to_string(),
            "spec.targets[0].objectSelector.apiversion",
            "apiVersion",
        ),
        (
            "  targets:\n  - objectSelector:\n      apiVersion: v1\n      kind: ConfigMap\n      matchExpressions: [{key: a, operator: Exists, value: [x]}]\n".to_string(),
            "spec.targets[0].objectSelector.matchExpressions[0].value",
            "values",
        ),
        (tpl("      downstram: {repo: x}\n"), "spec.targets[0].template.downstram", "downstream"),
        (
            tpl("      downstream: {repoExp: repository.name}\n"),
            "spec.targets[0].template.downstream.repoExp",
            "repoExpr",
        ),
        (
            tpl("      annotationExprs: [{key: a, vlaue: b}]\n"),
            "spec.targets[0].template.annotationExprs[0].vlaue",
            "value",
        ),
        (
            tpl("      packageContext: {removeKeyExpr: [x]}\n"),
            "spec.targets[0].template.packageContext.removeKeyExpr",
            "removeKeyExprs",
        ),
        (
            tpl("      packageContext: {dataExprs: [{keyExp: x, value: y}]}\n"),
            "spec.targets[0].template.packageContext.dataExprs[0].keyExp",
            "keyExpr",
        ),
        (tpl("      pipeline: {validator: []}\n"), "spec.targets[0].template.pipeline.validator", "validators"),
        (
            tpl("      pipeline:\n        mutators:\n        - image: x\n          configMapExpr: []\n"),
            "spec.targets[0].template.pipeline.mutators[0].configMapExpr",
            "configMapExprs",
        ),
        (
            tpl("      pipeline:\n        mutators:\n        - image: x\n          configMapExprs: [{key: a, valuExpr: b}]\n"),
            "spec.targets[0].template.pipeline.mutators[0].configMapExprs[0].valuExpr",
            "valueExpr",
        ),
        (
            tpl("      pipeline:\n        validators:\n        - image: x\n          selectors: [{knd: Deployment}]\n"),
            "spec.targets[0].template.pipeline.validators[0].selectors[0].knd",
            "kind",
        ),
        (
            tpl("      injectors: [{nameExp: x}]\n"),
            "spec.targets[0].template.injectors[0].nameExp",
            "nameExpr",
        ),
    ];
    for (targets, path, close) in cases {
        let message = format!("unknown field {:?}; did you mean {close:?}?", last(path));
        assert_eq!(
            refused(&pvs_input(&pvs_config(&targets))),
            one(path, &message),
            "{targets}"
        );
    }
    let whole = [
        (
            pvs_config(sel).replace("revision: 1}", "workspace: ws}"),
            "spec.upstream.workspace",
            r#"unknown field "workspace"; did you mean "workspaceName"?"#,
        ),
        (
            pvs_config(sel).replace("  name: my-set\n", "  name: my-set\n  Labels: {a: b}\n"),
            "metadata.Labels",
            r#"unknown field "Labels"; did you mean "labels"?"#,
        ),
        (
            pvs_config(sel).replace(
                "kind: PackageVariantSet\n",
                "kind: PackageVariantSet\nstatuss: {}\n",
            ),
            "statuss",
            r#"unknown field "statuss"; did you mean "status"?"#,
        ),
    ];
    for (config, path, message) in whole {
        assert_eq!(refused(&pvs_input(&config)), one(path, message), "{config}");
    }
}

fn last(path: &str) -> &str {
    path.rsplit('.').next().unwrap_or(path)
}

// ------------------------------------------------------------------ every problem, in order

#[test]
fn every_problem_is_reported_in_document_order() {
    let spec = "  packageContext:\n    data: {region: 1}\n    remove: [x]\n  injectors:\n  - name: a\n    knd: ConfigMap\n  extra: true\n";
    let got = refused(&pv_input(&pv_config(spec)));
    let paths: Vec<&str> = got.iter().map(|(p, _)| p.as_str()).collect();
    assert_eq!(
        paths,
        [
            "spec.packageContext.data.region",
            "spec.packageContext.remove",
            "spec.injectors[0].knd",
            "spec.extra",
        ]
    );
    assert_eq!(
        got[0].1,
        "invalid type: integer `1`, expected a string; quote it to make it a string"
    );
    assert_eq!(
        got[3].1,
        "unknown field \"extra\"; the fields here are upstream, downstream, adoptionPolicy, deletionPolicy, labels, annotations, packageContext, pipeline, injectors"
    );
}

/// `status` is Porch's: a PackageVariant copied from the cluster, status and all, is accepted.
#[test]
fn status_from_the_cluster_is_accepted() {
    let config = format!(
        "{}status:\n  conditions: []\n  somethingNewer: {{x: 1}}\n",
        pv_config("")
    );
    let out = run(&pv_input(&config));
    assert_eq!(out.code, 0, "{}", out.stdout);
}

// ------------------------------------------------------------------ kpt's empty config

#[test]
fn kpt_empty_config_and_config_map_fields() {
    for data in ["data: {}\n", "", "data:\n"] {
        let config =
            format!("apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: function-input\n{data}");
        let got = refused(&pv_input(&config));
        assert_eq!(got.len(), 1, "{got:?}");
        assert_eq!(got[0].0, "data");
        assert!(
            got[0].1.starts_with("no functionConfig was given"),
            "{}",
            got[0].1
        );
    }
    let config = "apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: x\ndata: {a: b}\nbinaryData: {c: ZA==}\n";
    assert_eq!(
        refused(&pv_input(config)),
        one(
            "binaryData",
            "unknown field \"binaryData\"; the fields here are apiVersion, kind, metadata, data"
        )
    );
}

/// Null and empty package-context keys and null values: they were read as "" (a ConfigMap's
/// `~` value and `~` key, the key then merging silently with a `''` key) or as the text "~"
/// (a PackageVariant's `~` key), and written, exit 0.
#[test]
fn null_and_empty_context_keys_and_values_are_refused() {
    let cm = |data: &str| {
        format!("apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: function-input\ndata:\n{data}")
    };
    assert_eq!(
        refused(&pv_input(&cm("  a: ~\n  b: x\n"))),
        one(
            "data.a",
            "invalid type: null, expected a string; write a value (\"\" for an empty one) or remove the entry"
        )
    );
    let got = refused(&pv_input(&cm("  '': a\n  ~: b\n")));
    assert_eq!(got.len(), 1, "{got:?}");
    assert!(
        got[0]
            .1
            .ends_with("a mapping key is null (~); quote it (\"~\") if the text is meant"),
        "{got:?}"
    );
    assert_eq!(
        refused(&pv_input(&cm("  '': a\n"))),
        one(
            "data",
            "must not contain an empty key (\"\": \"a\"); name the key"
        )
    );
    assert_eq!(
        refused(&pv_input(&cm("  &k a: x\n  *k : y\n"))),
        one(
            "data",
            "ConfigMap data keys must be written out, not given through an alias"
        )
    );
    let got = refused(&pv_input(&pv_config(
        "  packageContext:\n    data: {null: x}\n",
    )));
    assert!(
        got[0]
            .1
            .ends_with("a mapping key is null (null); quote it (\"null\") if the text is meant"),
        "{got:?}"
    );
    assert_eq!(
        refused(&pv_input(&pv_config(
            "  packageContext:\n    data: {'': x}\n    removeKeys: ['']\n"
        ))),
        [
            (
                "spec.packageContext.data".to_string(),
                "must not contain an empty key (\"\": \"x\"); name the key".to_string()
            ),
            (
                "spec.packageContext.removeKeys".to_string(),
                "must not contain an empty key".to_string()
            )
        ]
    );
    // Quoted, the same texts are ordinary keys and values.
    let out = run(&pv_input(&cm("  '~': ''\n  'null': '~'\n")));
    assert_eq!(out.code, 0, "{}", out.stdout);
    assert!(
        out.stdout
            .contains("\n    \"null\": \"~\"\n    \"~\": \"\"\n"),
        "{}",
        out.stdout
    );
}

// ------------------------------------------------------------------ complete inputs

#[test]
fn a_selector_with_nothing_of_its_kind_changes_nothing() {
    // No WorkloadCluster at all: Porch's NoMatchingTargets; the owned variant stays.
    let targets = "  targets:\n  - objectSelector: {apiVersion: infra.nephio.org/v1alpha1, kind: WorkloadCluster}\n";
    let got = refused(&pvs_input(&pvs_config(targets)));
    assert_eq!(got.len(), 1, "{got:?}");
    assert_eq!(got[0].0, "spec.targets[0].objectSelector");
    assert!(
        got[0]
            .1
            .ends_with("kubectl get workloadclusters.infra.nephio.org -n default -o yaml"),
        "{}",
        got[0].1
    );
    // No Repository at all.
    let input = resource_list(
        &[UPSTREAM_PR],
        &pvs_config("  targets:\n  - repositorySelector: {matchLabels: {env: prod}}\n"),
    );
    let got = refused(&input);
    assert!(got[0].1.contains(
        r#"no matches for kind "Repository" in version "config.porch.kpt.dev/v1alpha1""#
    ));
    assert!(got[0]
        .1
        .ends_with("kubectl get repositories.config.porch.kpt.dev -n default -o yaml"));
}

/// Objects of the kind are there but none matches: as in Porch, the set wants no variant and
/// its owned ones go, once the set allows deleting every variant it owns (issue 23: without
/// the annotation the deletion guard refuses the run and nothing changes).
#[test]
fn objects_of_the_kind_that_match_nothing_delete_as_porch_does() {
    let cluster = "apiVersion: infra.nephio.org/v1alpha1\nkind: WorkloadCluster\nmetadata:\n  name: c1\n  labels: {env: dev}\n";
    let config = pvs_config("  targets:\n  - objectSelector: {apiVersion: infra.nephio.org/v1alpha1, kind: WorkloadCluster, matchLabels: {env: prod}}\n");
    let input = resource_list(&[UPSTREAM_PR, cluster, OWNED], &config);
    let out = run(&input);
    assert_eq!(out.code, 1, "{}", out.stdout);
    assert_eq!(items_section(&out.stdout), items_section(&input));
    assert!(
        out.stdout
            .contains("refused: this run would delete 1 of the 1 PackageVariants the set owns"),
        "{}",
        out.stdout
    );
    let allowing = config.replace(
        "  name: my-set\n",
        "  name: my-set\n  annotations: {package-variant.fn.kpt.dev/allow-deletions: all}\n",
    );
    let input = resource_list(&[UPSTREAM_PR, cluster, OWNED], &allowing);
    let out = run(&input);
    assert_eq!(out.code, 0, "{}", out.stdout);
    assert!(
        !items_section(&out.stdout).contains("my-set-edge1-base"),
        "{}",
        out.stdout
    );
}

// ------------------------------------------------------------------ duplicates

#[test]
fn a_repository_listed_twice_names_both_entries() {
    let targets = "  targets:\n  - repositories: [{name: edge1}, {name: edge2}, {name: edge1}]\n";
    assert_eq!(
        refused(&pvs_input(&pvs_config(targets))),
        one(
            "spec.targets[0].repositories[2]",
            r#"repository "edge1" with package "base" is listed twice, at spec.targets[0].repositories[0] and at spec.targets[0].repositories[2]: Porch would make one PackageVariant of them and drop the other silently; remove one"#
        )
    );
}

#[test]
fn a_template_that_maps_two_objects_to_one_downstream_names_both() {
    let targets = "  targets:\n  - repositorySelector: {}\n    template:\n      downstream: {repoExpr: \"'edge1'\"}\n";
    let got = refused(&pvs_input(&pvs_config(targets)));
    assert_eq!(
        got,
        one(
            "spec.targets[0].repositorySelector",
            r#"spec.targets[0].repositorySelector (Repository "edge1", downstream "edge1"/"base") through spec.targets[0].template.downstream.repoExpr and spec.targets[0].repositorySelector (Repository "edge2", downstream "edge1"/"base") through spec.targets[0].template.downstream.repoExpr both produce the PackageVariant identifier "my-set-edge1-base"; Porch would keep only the later one: give them different downstream repo or package names (template.downstream) or remove one"#
        )
    );
}

// ------------------------------------------------------------------ names that cannot exist

#[test]
fn names_kubernetes_would_refuse_are_refused_on_their_field() {
    let cases = [
        (
            "  targets:\n  - repositories: [{name: edge1, packageNames: [a/b]}]\n",
            "spec.targets[0].repositories[0].packageNames[0]",
            "it contains '/'",
        ),
        (
            "  targets:\n  - repositories: [{name: edge1, packageNames: [\"..\"]}]\n",
            "spec.targets[0].repositories[0].packageNames[0]",
            "two in a row",
        ),
        (
            "  targets:\n  - repositorySelector: {matchLabels: {env: prod}}\n    template:\n      downstream: {packageExpr: \"'../../etc'\"}\n",
            "spec.targets[0].template.downstream.packageExpr",
            "it contains '/'",
        ),
        (
            "  targets:\n  - repositorySelector: {matchLabels: {env: prod}}\n    template:\n      downstream: {packageExpr: \"''\"}\n",
            "spec.targets[0].template.downstream.packageExpr",
            "gives an empty downstream package: Porch would refuse the PackageVariant (missing required field spec.downstream.package)",
        ),
    ];
    for (targets, path, needle) in cases {
        let got = refused(&pvs_input(&pvs_config(targets)));
        assert_eq!(got.len(), 1, "{got:?}");
        assert_eq!(got[0].0, path, "{targets}");
        assert!(got[0].1.contains(needle), "{targets}: {}", got[0].1);
    }
    // Parts that are fine alone, but Porch's cut at 54 bytes ends the name's prefix with '.'.
    let package = format!("{}.{}", "a".repeat(40), "b".repeat(20));
    let targets =
        format!("  targets:\n  - repositories: [{{name: edge1, packageNames: [{package}]}}]\n");
    let got = refused(&pvs_input(&pvs_config(&targets)));
    assert_eq!(got.len(), 1, "{got:?}");
    assert_eq!(got[0].0, "spec.targets[0].repositories[0].packageNames[0]");
    assert!(
        got[0]
            .1
            .contains(&format!("(cut from \"my-set-edge1-{package}\")")),
        "{}",
        got[0].1
    );
    // One constant template value that makes every name invalid is reported once.
    let targets = "  targets:\n  - repositorySelector: {}\n    template:\n      downstream: {packageExpr: \"'Web'\"}\n";
    let got = refused(&pvs_input(&pvs_config(targets)));
    assert_eq!(got.len(), 1, "{got:?}");
    assert_eq!(got[0].0, "spec.targets[0].template.downstream.packageExpr");
    // A selected Repository whose name is not a Kubernetes name.
    let input = resource_list(
        &[UPSTREAM_PR, &repository("Edge1", "{env: prod}")],
        &pvs_config("  targets:\n  - repositorySelector: {matchLabels: {env: prod}}\n"),
    );
    let got = refused(&input);
    assert_eq!(got[0].0, "spec.targets[0].repositorySelector");
    assert!(
        got[0].1.starts_with(r#"the selected Repository "Edge1" gives the downstream repo "Edge1", which makes the PackageVariant name "my-set-Edge1-base" invalid: it contains the upper-case letter 'E' (write "edge1")"#),
        "{}",
        got[0].1
    );
    // The set's own name.
    let config = pvs_config("  targets:\n  - repositories: [{name: edge1}]\n")
        .replace("name: my-set", "name: My_Set");
    let got = refused(&pvs_input(&config));
    assert_eq!(got[0].0, "metadata.name");
    assert!(
        got[0].1.contains("is not a valid Kubernetes name"),
        "{}",
        got[0].1
    );
    // A PackageVariant's own name.
    let got = refused(&pv_input(
        &pv_config("").replace("name: my-pv", "name: My-PV"),
    ));
    assert_eq!(got[0].0, "metadata.name");
    assert!(got[0].1.contains("upper-case letter 'M'"), "{}", got[0].1);
}

// ------------------------------------------------------------------ hints

#[test]
fn an_object_not_marked_in_cluster_is_named_with_the_annotation_to_add() {
    let point = "apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: endpoints\n  annotations:\n    kpt.dev/config-injection: optional\n    config.kubernetes.io/path: endpoints.yaml\ndata: {db: x}\n";
    let unmarked =
        "apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: us-east1-endpoints\ndata: {db: y}\n";
    let other_version = "apiVersion: hr.example.com/v1beta1\nkind: Team\nmetadata:\n  name: dev-team\n  annotations:\n    config.porch.kpt.dev/in-cluster: \"true\"\nspec: {}\n";
    let team = "apiVersion: hr.example.com/v1alpha1\nkind: Team\nmetadata:\n  name: team\n  annotations:\n    kpt.dev/config-injection: optional\n    config.kubernetes.io/path: team.yaml\nspec: {}\n";
    let config = pv_config("  injectors:\n  - name: us-east1-endpoints\n  - name: dev-team\n");
    let input = resource_list(&[KPTFILE, point, team, unmarked, other_version], &config);
    let out = run(&input);
    assert_eq!(out.code, 0, "{}", out.stdout);
    let messages: Vec<String> = results(&out.stdout)
        .iter()
        .map(|r| r["message"].as_str().unwrap_or("").to_string())
        .collect();
    let endpoints = messages
        .iter()
        .find(|m| m.contains("ConfigMap/endpoints not filled"))
        .unwrap_or_else(|| panic!("{messages:?}"));
    assert!(
        endpoints.ends_with(r#"; ConfigMap/us-east1-endpoints (ConfigMap/us-east1-endpoints) is named by an injector but is not an in-cluster object: mark it with the annotation config.porch.kpt.dev/in-cluster: "true""#),
        "{endpoints}"
    );
    let team = messages
        .iter()
        .find(|m| m.contains("Team/team not filled"))
        .unwrap_or_else(|| panic!("{messages:?}"));
    assert!(
        team.contains("is at apiVersion hr.example.com/v1beta1, the injection point at hr.example.com/v1alpha1"),
        "{team}"
    );
    // The Kptfile condition keeps Porch's message.
    assert!(items_section(&out.stdout)
        .contains("message: no in-cluster resources of type v1.ConfigMap\n"));
}

// ------------------------------------------------------------------ hostile sizes

/// CPU time: only catches quadratic paths and hangs (the speed targets are benchmarks).
const GENEROUS: std::time::Duration = std::time::Duration::from_secs(20);

fn refused_in_time(input: &str) -> Vec<(String, String)> {
    let (out, cpu) = common::run_timed(input.as_bytes());
    common::assert_cpu_under(cpu, GENEROUS, "the run");
    refused_by(input, out)
}

#[test]
fn hostile_sizes_are_answered_in_linear_time() {
    const N: usize = 20_000;
    // Many unknown fields, each looked up against its neighbours and the whole schema.
    let fields: String = (0..N).map(|i| format!("  labelz{i}: x\n")).collect();
    let got = refused_in_time(&pv_input(&pv_config(&fields)));
    assert_eq!(got.len(), N);
    assert_eq!(got[N - 1].0, format!("spec.labelz{}", N - 1));
    // One package name listed N times.
    let names = vec!["web"; N].join(", ");
    let targets =
        format!("  targets:\n  - repositories: [{{name: edge1, packageNames: [{names}]}}]\n");
    let got = refused_in_time(&pvs_input(&pvs_config(&targets)));
    assert_eq!(got.len(), N - 1);
    // N different names Kubernetes would refuse.
    let names: Vec<String> = (0..N).map(|i| format!("Web{i}")).collect();
    let targets = format!(
        "  targets:\n  - repositories: [{{name: edge1, packageNames: [{}]}}]\n",
        names.join(", ")
    );
    let got = refused_in_time(&pvs_input(&pvs_config(&targets)));
    assert_eq!(got.len(), N);
    // N objects a template maps to one downstream.
    let repos: Vec<String> = (0..N)
        .map(|i| repository(&format!("r{i}"), "{env: prod}"))
        .collect();
    let mut items: Vec<&str> = vec![UPSTREAM_PR];
    items.extend(repos.iter().map(String::as_str));
    let config = pvs_config(
        "  targets:\n  - repositorySelector: {matchLabels: {env: prod}}\n    template:\n      downstream: {repoExpr: \"'r0'\"}\n",
    );
    let got = refused_in_time(&resource_list(&items, &config));
    assert_eq!(got.len(), N - 1);
}

// ------------------------------------------------------------------ messages say it once

/// A Kptfile of the wrong shape: the message says the problem, the field path says where.
#[test]
fn kptfile_shape_errors_name_the_field_once() {
    let kptfile = format!("{KPTFILE}info: [not, a, mapping]\n");
    let point = "apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: endpoints\n  annotations:\n    kpt.dev/config-injection: optional\n    config.kubernetes.io/path: endpoints.yaml\ndata: {db: x}\n";
    let input = resource_list(&[&kptfile, point], &pv_config(""));
    assert_eq!(
        refused(&input),
        one("info", "must be a mapping, found a sequence")
    );
}

// ------------------------------------------------------------- a strict mode for CI (issue 41)

/// `pv_config(extra)` of `api_version`, annotated `package-variant.fn.kpt.dev/unfilled: value`.
fn pv_unfilled(api_version: &str, value: &str, extra: &str) -> String {
    pv_config(extra)
        .replace("config.porch.kpt.dev/v1alpha1", api_version)
        .replace(
            "  name: my-pv\n",
            &format!("  name: my-pv\n  annotations:\n    package-variant.fn.kpt.dev/unfilled: \"{value}\"\n"),
        )
}

/// A misspelt injector leaves a required point unfilled: Porch's warning and exit 0 by
/// default; with `package-variant.fn.kpt.dev/unfilled: error` an error, exit 1, nothing
/// changed (both apiVersions; an optional point stays info). Another value is refused with
/// what to write.
#[test]
fn unfilled_error_makes_an_unfilled_required_point_fail_the_run() {
    let cluster = &common::in_cluster_config_map("us-east1-endpoints", "default", "db.us-east1");
    let typo = "  injectors:\n  - name: us-east1-endpoint\n";
    for api_version in ["config.porch.kpt.dev/v1alpha1", "fn.kpt.dev/v1alpha1"] {
        let items = [KPTFILE, common::INJECTION_POINT, cluster];
        // The default, and "warning" written out: Porch's warning, exit 0.
        for config in [
            pv_config(typo).replace("config.porch.kpt.dev/v1alpha1", api_version),
            pv_unfilled(api_version, "warning", typo),
        ] {
            let out = run(&resource_list(&items, &config));
            assert_eq!(out.code, 0, "{}", out.stderr);
            let warning = results(&out.stdout)
                .into_iter()
                .find(|r| r["severity"] == "warning")
                .expect("a warning");
            assert!(warning["message"]
                .as_str()
                .unwrap()
                .contains("did you mean \"us-east1-endpoints\"?"));
        }
        let input = resource_list(&items, &pv_unfilled(api_version, "error", typo));
        let errors = refused(&input);
        assert_eq!(errors.len(), 1, "{errors:?}");
        let (path, message) = &errors[0];
        assert_eq!(path, "metadata.annotations[kpt.dev/config-injection]");
        assert!(
            message.starts_with("required injection point ConfigMap/endpoints not filled")
                && message.contains("did you mean \"us-east1-endpoints\"?")
                && message.ends_with("(an error because the PackageVariant has package-variant.fn.kpt.dev/unfilled: error; nothing was changed)"),
            "{message}"
        );
        // Filled: the annotation changes nothing.
        let fixed = pv_unfilled(
            api_version,
            "error",
            "  injectors:\n  - name: us-east1-endpoints\n",
        );
        let out = run(&resource_list(&items, &fixed));
        assert_eq!(out.code, 0, "{}", out.stderr);
        // An optional point left unfilled stays info.
        let optional = common::INJECTION_POINT.replace("required", "optional");
        let out = run(&resource_list(
            &[KPTFILE, &optional, cluster],
            &pv_unfilled(api_version, "error", typo),
        ));
        assert_eq!(out.code, 0, "{}", out.stderr);
        // The extension's point-keyed injection, bound by name and left unfilled.
        if api_version == "fn.kpt.dev/v1alpha1" {
            let bound = "  injection:\n  - bindingPoint: endpoints\n    clusterResource: {name: us-east1-endpoint}\n";
            let errors = refused(&resource_list(
                &items,
                &pv_unfilled(api_version, "error", bound),
            ));
            assert_eq!(errors.len(), 1, "{errors:?}");
            assert!(
                errors[0]
                    .1
                    .contains("package-variant.fn.kpt.dev/unfilled: error"),
                "{errors:?}"
            );
        }
        // Any other value: refused, with the accepted ones.
        let errors = refused(&resource_list(
            &items,
            &pv_unfilled(api_version, "erorr", typo),
        ));
        assert_eq!(
            errors[0].0,
            "metadata.annotations[package-variant.fn.kpt.dev/unfilled]"
        );
        assert!(
            errors[0]
                .1
                .contains("unknown value \"erorr\"; did you mean \"error\"? Write \"error\""),
            "{errors:?}"
        );
    }
}

// ----------------------------------------- the function's own annotations (issue 49, item 1)

/// `config` with `annotations` (one `key: value` line each) under `metadata.name`.
fn annotated(config: &str, name: &str, annotations: &[&str]) -> String {
    let lines: String = annotations.iter().map(|a| format!("    {a}\n")).collect();
    config.replacen(
        &format!("  name: {name}\n"),
        &format!("  name: {name}\n  annotations:\n{lines}"),
        1,
    )
}

const FIELD: &str = "metadata.annotations[package-variant.fn.kpt.dev/";

/// A misspelt key of the function's own annotations is refused with the closest key, on every
/// functionConfig kind, instead of leaving the default in force (strict mode off, a sync that
/// deletes, an approval that approves nothing); nothing changes.
#[test]
fn a_misspelt_annotation_key_is_refused_with_the_closest_key() {
    let cases = [
        (
            "config.porch.kpt.dev/v1alpha1",
            "package-variant.fn.kpt.dev/unfiled: error",
            "unfiled",
            "unfilled",
        ),
        (
            "fn.kpt.dev/v1alpha1",
            "package-variant.fn.kpt.dev/cluster-object: in-cluster/",
            "cluster-object",
            "cluster-objects",
        ),
    ];
    for (api_version, line, typo, key) in cases {
        let config = annotated(
            &pv_config("").replace("config.porch.kpt.dev/v1alpha1", api_version),
            "my-pv",
            &[line],
        );
        let errors = refused(&pv_input(&config));
        assert_eq!(
            errors,
            vec![(
                format!("{FIELD}{typo}]"),
                format!("unknown annotation \"package-variant.fn.kpt.dev/{typo}\"; did you mean \"package-variant.fn.kpt.dev/{key}\"?")
            )],
            "{api_version}"
        );
    }
    let targets = "  targets:\n  - repositories:\n    - name: edge1\n";
    for (api_version, line, typo, key) in [
        (
            "config.porch.kpt.dev/v1alpha2",
            "package-variant.fn.kpt.dev/sync-polcy: create-only",
            "sync-polcy",
            "sync-policy",
        ),
        (
            "fn.kpt.dev/v1alpha1",
            "package-variant.fn.kpt.dev/approved-waves: \"2\"",
            "approved-waves",
            "approved-wave",
        ),
        (
            "fn.kpt.dev/v1alpha1",
            "package-variant.fn.kpt.dev/allow-deletion: all",
            "allow-deletion",
            "allow-deletions",
        ),
    ] {
        let config = annotated(
            &pvs_config(targets).replace("config.porch.kpt.dev/v1alpha2", api_version),
            "my-set",
            &[line],
        );
        let errors = refused(&pvs_input(&config));
        assert_eq!(
            errors,
            vec![(
                format!("{FIELD}{typo}]"),
                format!("unknown annotation \"package-variant.fn.kpt.dev/{typo}\"; did you mean \"package-variant.fn.kpt.dev/{key}\"?")
            )],
            "{api_version}"
        );
    }
    // A key close to none: the keys this kind takes are listed.
    let config = annotated(
        &pv_config(""),
        "my-pv",
        &["package-variant.fn.kpt.dev/colour: blue"],
    );
    let errors = refused(&pv_input(&config));
    assert_eq!(errors.len(), 1, "{errors:?}");
    assert_eq!(errors[0].0, format!("{FIELD}colour]"));
    assert!(
        errors[0].1.starts_with("unknown annotation \"package-variant.fn.kpt.dev/colour\": this function's annotations on a PackageVariant are package-variant.fn.kpt.dev/cluster-objects, package-variant.fn.kpt.dev/unfilled,"),
        "{errors:?}"
    );
    // kpt's ConfigMap of key=value arguments takes none of them.
    let config_map = "apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: function-input\n  annotations:\n    package-variant.fn.kpt.dev/unfiled: error\ndata:\n  region: us-east1\n";
    let errors = refused(&pv_input(config_map));
    assert_eq!(
        errors,
        vec![(
            format!("{FIELD}unfiled]"),
            "unknown annotation \"package-variant.fn.kpt.dev/unfiled\"; did you mean \"package-variant.fn.kpt.dev/unfilled\"? (it goes on a PackageVariant, not on a ConfigMap)".to_string()
        )]
    );
    // Other prefixes are not the function's: they pass as before.
    let config = annotated(&pv_config(""), "my-pv", &["example.com/unfiled: error"]);
    assert_eq!(run(&pv_input(&config)).code, 0);
}

/// The right key on the wrong kind is refused too, saying which kind it goes on; the keys a
/// set writes on its variants pass on a PackageVariant (a set made it), and the owner key on
/// no functionConfig.
#[test]
fn an_annotation_on_a_kind_it_does_not_go_on_is_refused() {
    let targets = "  targets:\n  - repositories:\n    - name: edge1\n";
    let set = |lines: &[&str]| pvs_input(&annotated(&pvs_config(targets), "my-set", lines));
    let errors = refused(&set(&["package-variant.fn.kpt.dev/unfilled: error"]));
    assert_eq!(
        errors,
        vec![(
            format!("{FIELD}unfilled]"),
            "package-variant.fn.kpt.dev/unfilled does not go on a PackageVariantSet: this function reads it on a PackageVariant (of either apiVersion); move it there, or remove it".to_string()
        )]
    );
    let errors = refused(&set(&["package-variant.fn.kpt.dev/wave: \"1\""]));
    assert_eq!(
        errors,
        vec![(
            format!("{FIELD}wave]"),
            "package-variant.fn.kpt.dev/wave does not go on a PackageVariantSet: a PackageVariantSet writes it on the PackageVariants it makes; remove it".to_string()
        )]
    );
    let pv = |lines: &[&str]| pv_input(&annotated(&pv_config(""), "my-pv", lines));
    let errors = refused(&pv(&[
        "package-variant.fn.kpt.dev/sync-policy: create-only",
    ]));
    assert_eq!(
        errors,
        vec![(
            format!("{FIELD}sync-policy]"),
            "package-variant.fn.kpt.dev/sync-policy does not go on a PackageVariant: this function reads it on a PackageVariantSet (of either apiVersion); move it there, or remove it".to_string()
        )]
    );
    let errors = refused(&pv(&["package-variant.fn.kpt.dev/owner: my-pv"]));
    assert_eq!(errors.len(), 1, "{errors:?}");
    assert!(
        errors[0].1.starts_with("package-variant.fn.kpt.dev/owner does not go on a PackageVariant: a PackageVariant (apiVersion fn.kpt.dev/v1alpha1) writes it on the resources it adds"),
        "{errors:?}"
    );
    let errors = refused(&pv(&["package-variant.fn.kpt.dev/approved-wave: \"2\""]));
    assert_eq!(errors.len(), 1, "{errors:?}");
    assert!(
        errors[0].1.contains(
            "this function reads it on a PackageVariantSet (fn.kpt.dev/v1alpha1); move it there"
        ),
        "{errors:?}"
    );
    // What a set writes on the variants it makes: a PackageVariant it made runs as before.
    let out = run(&pv(&[
        "package-variant.fn.kpt.dev/wave: \"2\"",
        "package-variant.fn.kpt.dev/upstream-tag: stable",
    ]));
    assert_eq!(out.code, 0, "{}", out.stdout);
    // Every problem at once, in document order.
    let errors = refused(&pv(&[
        "package-variant.fn.kpt.dev/unfiled: error",
        "package-variant.fn.kpt.dev/sync-policy: create-only",
    ]));
    let paths: Vec<&str> = errors.iter().map(|(p, _)| p.as_str()).collect();
    assert_eq!(
        paths,
        [
            "metadata.annotations[package-variant.fn.kpt.dev/unfiled]",
            "metadata.annotations[package-variant.fn.kpt.dev/sync-policy]"
        ]
    );
}
