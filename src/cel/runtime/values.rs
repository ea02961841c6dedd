//! The values CEL sees of a target, a repository and upstream: only their name, namespace,
//! labels and annotations (or `{repo, package}`), as owned values or borrowing the object's
//! strings. Kept apart from the bindings, which only look them up.

use std::collections::HashMap;
use std::sync::Arc;

use cel::common::types::{CelMap, CelMapKey, CelString};
use cel::common::value::Val;
use cel::objects::{Key, Map};
use cel::Value;

/// What CEL sees of an object: only `name`, `namespace`, `labels` and `annotations` (absent
/// labels/annotations are empty maps; non-string entries are skipped).
pub fn object_input(object: &serde_json::Value) -> Value {
    let meta = object.get("metadata");
    let text = |field: &str| {
        meta.and_then(|m| m.get(field))
            .and_then(|v| v.as_str())
            .unwrap_or("")
            .to_string()
    };
    let string_map = |field: &str| -> Value {
        let mut out: HashMap<Key, Value> = HashMap::new();
        if let Some(m) = meta.and_then(|m| m.get(field)).and_then(|v| v.as_object()) {
            for (k, v) in m {
                if let Some(s) = v.as_str() {
                    out.insert(Key::from(k.as_str()), Value::from(s));
                }
            }
        }
        Value::Map(Map { map: Arc::new(out) })
    };
    let mut input: HashMap<Key, Value> = HashMap::new();
    input.insert(Key::from("name"), Value::from(text("name")));
    input.insert(Key::from("namespace"), Value::from(text("namespace")));
    input.insert(Key::from("labels"), string_map("labels"));
    input.insert(Key::from("annotations"), string_map("annotations"));
    Value::Map(Map {
        map: Arc::new(input),
    })
}

/// A whole JSON object as CEL sees it, as cel-go sees Kubernetes' unstructured objects:
/// maps, lists, strings, bools, null; integers as int (uint past int's range), other numbers
/// as double.
pub fn json_input(value: &serde_json::Value) -> Value {
    use serde_json::Value as J;
    match value {
        J::Null => Value::Null,
        J::Bool(b) => Value::Bool(*b),
        J::Number(n) => match (n.as_i64(), n.as_u64()) {
            (Some(i), _) => Value::Int(i),
            (None, Some(u)) => Value::UInt(u),
            _ => Value::Float(n.as_f64().unwrap_or(f64::NAN)),
        },
        J::String(s) => Value::from(s.as_str()),
        J::Array(list) => Value::List(Arc::new(list.iter().map(json_input).collect())),
        J::Object(map) => {
            let out: HashMap<Key, Value> = map
                .iter()
                .map(|(k, v)| (Key::from(k.as_str()), json_input(v)))
                .collect();
            Value::Map(Map { map: Arc::new(out) })
        }
    }
}

/// `target` of a `repositories` target: `{repo, package}` and nothing else.
pub fn repositories_target_input(repo: &str, package: &str) -> Value {
    let mut input: HashMap<Key, Value> = HashMap::new();
    input.insert(Key::from("repo"), Value::from(repo));
    input.insert(Key::from("package"), Value::from(package));
    Value::Map(Map {
        map: Arc::new(input),
    })
}

/// A value for [`Bindings::activation`](super::Bindings::activation): the interpreter's own form of `value`.
pub fn as_val(value: Value) -> Box<dyn Val> {
    Box::<dyn Val>::try_from(value).unwrap_or_else(|_| Box::new(cel::common::types::CelNull))
}

/// What CEL sees of an object (as [`object_input`]), in the interpreter's own form and
/// borrowing the object's strings: `target` and `repository` are built once per target this
/// way, without copying a string or converting a map.
pub fn object_val<'v>(
    name: &'v str,
    namespace: &'v str,
    labels: impl Iterator<Item = (&'v str, &'v str)>,
    annotations: impl Iterator<Item = (&'v str, &'v str)>,
) -> CelMap<'v> {
    let strings = |pairs: &mut dyn Iterator<Item = (&'v str, &'v str)>| -> Box<dyn Val + 'v> {
        let map: HashMap<CelMapKey<'v>, Box<dyn Val + 'v>> = pairs
            .map(|(k, v)| {
                (
                    CelMapKey::from(k),
                    Box::new(CelString::from(v)) as Box<dyn Val>,
                )
            })
            .collect();
        Box::new(CelMap::from(map))
    };
    let mut labels = labels;
    let mut annotations = annotations;
    let mut map: HashMap<CelMapKey<'v>, Box<dyn Val + 'v>> = HashMap::with_capacity(4);
    map.insert(CelMapKey::from("name"), Box::new(CelString::from(name)));
    map.insert(
        CelMapKey::from("namespace"),
        Box::new(CelString::from(namespace)),
    );
    map.insert(CelMapKey::from("labels"), strings(&mut labels));
    map.insert(CelMapKey::from("annotations"), strings(&mut annotations));
    CelMap::from(map)
}

/// `target` of a `repositories` target (as [`repositories_target_input`]), borrowing.
pub fn repositories_target_val<'v>(repo: &'v str, package: &'v str) -> CelMap<'v> {
    let mut map: HashMap<CelMapKey<'v>, Box<dyn Val + 'v>> = HashMap::with_capacity(2);
    map.insert(CelMapKey::from("repo"), Box::new(CelString::from(repo)));
    map.insert(
        CelMapKey::from("package"),
        Box::new(CelString::from(package)),
    );
    CelMap::from(map)
}
