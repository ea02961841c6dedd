//! Property test through the library entry point ([`process_here`]): for generated extension
//! PackageVariantSet templates (injection entries, package context, injectors, pipeline,
//! placement, policies, downstream; static values and CEL), every PackageVariant the set emits
//! passes the PackageVariant function's own decoding and validation, the entry point its run
//! uses (`PackageVariant::decode`, then `validation::validate`). A set either refuses or emits
//! variants the function takes.
//!
//! Runs `PROPTEST_CASES` cases (default [`DEFAULT_CASES`]).

use package_variant::package_variant::validation::validate;
use package_variant::package_variant::PackageVariant;
use package_variant::process_here;
use proptest::prelude::*;
use proptest::sample::select;
use serde_json::{json, Map, Value};

/// Cases unless `PROPTEST_CASES` says otherwise.
const DEFAULT_CASES: u32 = 600;

fn config() -> ProptestConfig {
    let cases = std::env::var("PROPTEST_CASES")
        .ok()
        .and_then(|v| v.parse().ok())
        .unwrap_or(DEFAULT_CASES);
    ProptestConfig {
        cases,
        failure_persistence: Some(Box::new(
            proptest::test_runner::FileFailurePersistence::WithSource("proptest-regressions"),
        )),
        ..ProptestConfig::default()
    }
}

/// A string field: absent, or one of `values`.
fn maybe(values: &'static [&'static str]) -> impl Strategy<Value = Option<&'static str>> {
    prop_oneof![Just(None), select(values).prop_map(Some)]
}

/// Puts `value` at `key` when there is one.
fn put(m: &mut Map<String, Value>, key: &str, value: Option<Value>) {
    if let Some(v) = value {
        m.insert(key.to_string(), v);
    }
}

fn s(v: Option<&str>) -> Option<Value> {
    v.map(|v| Value::String(v.to_string()))
}

/// A `dataExprs`/`specExprs` list: keys static or by CEL (some reserved, some empty).
fn map_exprs() -> impl Strategy<Value = Option<Value>> {
    let entry = (
        prop_oneof![
            select(&["zone", "name", "a"][..]).prop_map(|k| json!({"key": k})),
            select(&["'zone'", "'name'", "''", "repository.name"][..])
                .prop_map(|k| json!({"keyExpr": k})),
        ],
        select(&["'v'", "repository.name", "target.package"][..]),
    )
        .prop_map(|(mut k, v)| {
            k["valueExpr"] = json!(v);
            k
        });
    prop_oneof![
        2 => Just(None),
        1 => prop::collection::vec(entry, 1..3).prop_map(|v| Some(Value::Array(v))),
    ]
}

/// A `directResource`: any of its keys, so that some are whole resources, some a point's
/// value, some neither.
fn direct_resource() -> impl Strategy<Value = Value> {
    (
        maybe(&["v1", ""]),
        maybe(&["ConfigMap", ""]),
        maybe(&["extra", "", "other"]),
        maybe(&["team-a"]),
        prop::bool::ANY,
        prop::bool::ANY,
        prop::bool::weighted(0.1),
        prop::bool::weighted(0.1),
    )
        .prop_map(|(av, kind, name, ns, data, spec, other, scalar)| {
            if scalar {
                return json!("text");
            }
            let mut m = Map::new();
            put(&mut m, "apiVersion", s(av));
            put(&mut m, "kind", s(kind));
            if name.is_some() || ns.is_some() {
                let mut meta = Map::new();
                put(&mut meta, "name", s(name));
                put(&mut meta, "namespace", s(ns));
                m.insert("metadata".into(), Value::Object(meta));
            }
            if data {
                m.insert("data".into(), json!({"k": "v"}));
            }
            if spec {
                m.insert("spec".into(), json!({"replicas": 2}));
            }
            if other {
                m.insert("status".into(), json!({"x": "y"}));
            }
            Value::Object(m)
        })
}

/// An extension injection entry.
fn injection_entry() -> impl Strategy<Value = Value> {
    let point = prop_oneof![
        Just(None),
        select(&["app-config", "db", ""][..]).prop_map(|p| Some(json!({"bindingPoint": p}))),
        select(&["'app-config'", "'db'", "repository.name"][..])
            .prop_map(|p| Some(json!({"bindingPointExpr": p}))),
    ];
    let cluster = prop_oneof![
        3 => Just(None),
        1 => select(&["cm", ""][..]).prop_map(|n| Some(json!({"name": n}))),
        1 => select(&["'cm'", "repository.name"][..]).prop_map(|n| Some(json!({"nameExpr": n}))),
    ];
    let package = prop_oneof![
        3 => Just(None),
        1 => (
            maybe(&["catalog", ""]),
            maybe(&["shared"]),
            maybe(&["cfg", ""]),
            prop::option::of(-2i64..3),
            maybe(&["v1"]),
            maybe(&["ConfigMap"]),
            maybe(&["'cfg'"]),
        )
            .prop_map(|(repo, pkg, name, rev, av, kind, name_expr)| {
                let mut m = Map::new();
                put(&mut m, "repo", s(repo));
                put(&mut m, "package", s(pkg));
                put(&mut m, "name", s(name));
                put(&mut m, "nameExpr", s(name_expr));
                put(&mut m, "revision", rev.map(|r| json!(r)));
                put(&mut m, "apiVersion", s(av));
                put(&mut m, "kind", s(kind));
                Some(Value::Object(m))
            }),
    ];
    let direct = prop_oneof![2 => Just(None), 1 => direct_resource().prop_map(Some)];
    (point, cluster, package, direct, map_exprs(), map_exprs()).prop_map(
        |(point, cluster, package, direct, data, spec)| {
            let mut m = match point {
                Some(Value::Object(p)) => p,
                _ => Map::new(),
            };
            put(&mut m, "clusterResource", cluster);
            put(&mut m, "packageResource", package);
            put(&mut m, "directResource", direct);
            put(&mut m, "dataExprs", data);
            put(&mut m, "specExprs", spec);
            Value::Object(m)
        },
    )
}

/// A whole template.
fn template() -> impl Strategy<Value = Value> {
    let context = prop_oneof![
        2 => Just(None),
        1 => (
            maybe(&["zone", "name", ""]),
            maybe(&["zone", "package-path", ""]),
            map_exprs(),
        )
            .prop_map(|(data, remove, exprs)| {
                let mut m = Map::new();
                put(&mut m, "data", data.map(|k| json!({ k: "v" })));
                put(&mut m, "removeKeys", remove.map(|k| json!([k])));
                put(&mut m, "dataExprs", exprs);
                Some(Value::Object(m))
            }),
    ];
    let injectors = prop_oneof![
        2 => Just(None),
        1 => prop_oneof![
            select(&["x", ""][..]).prop_map(|n| json!({"name": n})),
            select(&["'y'", "''"][..]).prop_map(|n| json!({"nameExpr": n})),
        ]
        .prop_map(|i| Some(json!([i]))),
    ];
    let pipeline = prop_oneof![
        2 => Just(None),
        1 => (select(&["f", "f.g", ""][..]), select(&["img", ""][..]))
            .prop_map(|(n, i)| Some(json!({"mutators": [{"image": i, "name": n}]}))),
    ];
    let placement = prop_oneof![
        2 => Just(None),
        1 => (maybe(&["last", "before", "first", "bogus"]), maybe(&["f"])).prop_map(|(p, f)| {
            let mut m = Map::new();
            put(&mut m, "position", s(p));
            put(&mut m, "function", s(f));
            Some(Value::Object(m))
        }),
    ];
    let downstream = prop_oneof![
        3 => Just(None),
        1 => select(&["'pkg'", "''", "repository.name + '-x'"][..])
            .prop_map(|e| Some(json!({"packageExpr": e}))),
    ];
    (
        prop::collection::vec(injection_entry(), 0..4),
        context,
        injectors,
        pipeline,
        placement,
        maybe(&["adoptExisting", "bogus"]),
        downstream,
    )
        .prop_map(
            |(injection, context, injectors, pipeline, placement, adoption, downstream)| {
                let mut m = Map::new();
                if !injection.is_empty() {
                    m.insert("injection".into(), Value::Array(injection));
                }
                put(&mut m, "packageContext", context);
                put(&mut m, "injectors", injectors);
                put(&mut m, "pipeline", pipeline);
                put(&mut m, "pipelinePlacement", placement);
                put(&mut m, "adoptionPolicy", s(adoption));
                put(&mut m, "downstream", downstream);
                Value::Object(m)
            },
        )
}

/// The ResourceList: the upstream, two Repositories, the set with `template` (as JSON, which
/// is YAML).
fn input(template: &Value) -> String {
    let repo = |name: &str| {
        json!({"apiVersion": "config.porch.kpt.dev/v1alpha1", "kind": "Repository",
               "metadata": {"name": name, "labels": {"env": "prod"}}, "spec": {"type": "git"}})
    };
    let rl = json!({
        "apiVersion": "config.kubernetes.io/v1",
        "kind": "ResourceList",
        "items": [
            {"apiVersion": "porch.kpt.dev/v1alpha1", "kind": "PackageRevision",
             "metadata": {"name": "blueprints.base.v1"},
             "spec": {"repository": "blueprints", "packageName": "base", "revision": 1}},
            repo("edge-1"),
            repo("edge-2"),
        ],
        "functionConfig": {
            "apiVersion": "fn.kpt.dev/v1alpha1",
            "kind": "PackageVariantSet",
            "metadata": {"name": "my-set"},
            "spec": {
                "upstream": {"repo": "blueprints", "package": "base", "revision": 1},
                "targets": [{"repositorySelector": {"matchLabels": {"env": "prod"}},
                             "template": template}],
            },
        },
    });
    serde_json::to_string(&rl).unwrap()
}

/// The PackageVariants among the output's items.
fn emitted(stdout: &str) -> Vec<Value> {
    let node = package_variant::yaml::parse(stdout).unwrap();
    let json = package_variant::yaml::to_json(&node).unwrap();
    json["items"]
        .as_array()
        .cloned()
        .unwrap_or_default()
        .into_iter()
        .filter(|i| i["kind"] == "PackageVariant")
        .collect()
}

proptest! {
    #![proptest_config(config())]

    /// Every variant a set emits is one the PackageVariant function takes.
    #[test]
    fn every_emitted_variant_passes_the_package_variant_rules(t in template()) {
        let out = process_here(input(&t).as_bytes());
        if out.exit_code != 0 {
            // Refused: nothing emitted.
            prop_assert!(emitted(&out.stdout).is_empty(), "{}", out.stdout);
            return Ok(());
        }
        let variants = emitted(&out.stdout);
        prop_assert_eq!(variants.len(), 2, "{}", out.stdout);
        for v in variants {
            let node = package_variant::yaml::parse(&serde_json::to_string(&v).unwrap()).unwrap();
            let pv = PackageVariant::decode(&node);
            prop_assert!(pv.is_ok(), "decode refused {v}: {:?}", pv.err());
            let pv = pv.unwrap();
            let problems = validate(&pv.name, &pv.spec);
            prop_assert!(
                problems.is_empty(),
                "the set emitted a variant the PackageVariant function refuses:\n{v}\n{problems:?}"
            );
        }
    }
}
