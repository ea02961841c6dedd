//! The text path writes what the node path writes (`to_node`, then the emitter), wherever it
//! answers; and it answers for the shapes the expander writes.

use super::*;
use crate::yaml::{to_node, Emitter, Trivia};
use proptest::prelude::*;
use serde_json::{json, Value};

/// What the emitter writes for `value` as a new item of `items`.
fn by_nodes(value: &Value) -> String {
    let node = to_node(value).unwrap_or_else(|e| panic!("{e}"));
    let mut e = Emitter::new("", 256);
    e.seq_item_forced(&node, &Trivia::default(), 0, false);
    e.out
}

fn by_text(value: &Value) -> Option<String> {
    let mut out = String::from("kept\n");
    match write_item(value, &mut out) {
        Ok(()) => Some(out.split_off(5)),
        Err(Unsupported) => {
            assert_eq!(out, "kept\n", "nothing is left of an unsupported value");
            None
        }
    }
}

#[test]
fn a_new_package_variant_takes_the_text_path() {
    let v = json!({
        "apiVersion": "config.porch.kpt.dev/v1alpha1",
        "kind": "PackageVariant",
        "metadata": {"name": "fleet-site-00000-base-us-east1", "namespace": "default",
            "labels": {"config.porch.kpt.dev/packagevariantset": "5d1c7a4e-0000-4000-8000-000000000001"},
            "annotations": {"config.kubernetes.io/path": "packagevariants/x.yaml"},
            "finalizers": ["config.porch.kpt.dev/packagevariants"],
            "ownerReferences": [{"apiVersion": "config.porch.kpt.dev/v1alpha2", "kind": "PackageVariantSet",
                "name": "fleet", "uid": "5d1c7a4e", "controller": true}]},
        "spec": {"upstream": {"repo": "catalog", "package": "base", "revision": 3},
            "downstream": {"repo": "site-00000", "package": "base-us-east1"},
            "labels": {"site": "s00000"},
            "annotations": {"fleet.example.com/upstream": "catalog.base.v3@prod"},
            "packageContext": {"data": {"region": "us-east1", "team": "platform"}},
            "injectors": [{"kind": "ConfigMap", "name": "site-00000-config"}],
            "pipeline": {"mutators": [{"image": "gcr.io/kpt-fn/set-labels:v0.2.0", "configMap": {"env": "prod"}}]}}
    });
    assert_eq!(by_text(&v), Some(by_nodes(&v)));
}

#[test]
fn shapes() {
    for v in [
        json!({}),
        json!([]),
        json!("s"),
        json!(""),
        json!(null),
        json!(12),
        json!(true),
        json!({"a": {}, "b": [], "c": [[], {}], "d": [[1, [2]], {"e": []}]}),
        json!([{"a": 1, "b": {"c": [1, 2]}}, [{"x": "y"}]]),
        json!({"k": "yes", "n": "123", "t": "true", "d": "2024-01-01", "e": "", "q": "a: b"}),
        json!({"k": "line\nbreak", "tab": "a\tb", "quote": "it's", "f": 1.5}),
        json!({"yes": 1}),
        json!({"": 1}),
        json!({"a b": 1, "-x": 2, "x:": 3}),
    ] {
        if let Some(text) = by_text(&v) {
            assert_eq!(text, by_nodes(&v), "{v}");
        }
    }
    // These take the text path.
    for v in [
        json!({"a": {}, "b": []}),
        json!({"k": "yes", "m": "123"}),
        json!([]),
    ] {
        assert!(by_text(&v).is_some(), "{v}");
    }
}

/// Strings over an alphabet of characters that change how YAML reads them.
fn string() -> impl Strategy<Value = String> {
    let alphabet = prop::sample::select(vec![
        "a", "Z", "0", "9", "-", "_", ".", "/", ":", " ", "#", "'", "\"", "\\", "\n", "\t", "yes",
        "true", "null", "~", "1e3", "0x1", "é", "{", "[", ",", "*", "&", "!", "|", ">", "%", "@",
        "`", "?", "+", "=", "<<", "...", "---",
    ]);
    prop::collection::vec(alphabet, 0..6).prop_map(|parts| parts.concat())
}

fn value() -> impl Strategy<Value = Value> {
    let leaf = prop_oneof![
        string().prop_map(Value::String),
        any::<i64>().prop_map(|n| json!(n)),
        any::<bool>().prop_map(Value::Bool),
        Just(Value::Null),
        (-1000i32..1000).prop_map(|n| json!(f64::from(n) / 8.0)),
    ];
    leaf.prop_recursive(4, 40, 5, |inner| {
        prop_oneof![
            prop::collection::vec(inner.clone(), 0..5).prop_map(Value::Array),
            prop::collection::vec((string(), inner), 0..5)
                .prop_map(|kv| Value::Object(kv.into_iter().collect())),
        ]
    })
}

proptest! {
    #![proptest_config(ProptestConfig { cases: 3000, ..ProptestConfig::default() })]

    #[test]
    fn text_path_writes_what_the_emitter_writes(v in value()) {
        if let Some(text) = by_text(&v) {
            prop_assert_eq!(text, by_nodes(&v));
        }
    }
}
