//! A ConfigMap's `data` and `binaryData` (and a Secret's `data` and `stringData`) hold strings
//! only: the API server refuses `replicas: 3`, `canary: true` or a mapping there, as kubectl
//! does before it sends one. A value written so is refused here, with the fix, rather than
//! injected as an object nobody can apply.

use super::Problem;
use serde_json::Value;

/// What a non-string value is, for messages: `a number (3)`, `a mapping`.
fn describe(v: &Value) -> String {
    match v {
        Value::Number(n) => format!("a number ({n})"),
        Value::Bool(b) => format!("a boolean ({b})"),
        Value::Null => "null".to_string(),
        Value::Array(_) => "a sequence".to_string(),
        Value::Object(_) => "a mapping".to_string(),
        Value::String(_) => "a string".to_string(),
    }
}

/// What to write instead of `v` under `key`.
fn fix(key: &str, v: &Value) -> String {
    match v {
        Value::Number(_) | Value::Bool(_) => format!("quote it: {key}: \"{v}\""),
        Value::Null => format!("write {key}: \"\" for an empty value, or remove it"),
        _ => format!(
            "write it as text, e.g. a block scalar ({key}: |) holding its YAML, or one key per \
             value"
        ),
    }
}

/// The first key of `map` whose value is not a string, and what it is; `None` when every one
/// is (or `map` is not a mapping: the caller says so).
pub fn first_non_string(map: &Value) -> Option<(String, String)> {
    map.as_object()?
        .iter()
        .find(|(_, v)| !v.is_string())
        .map(|(k, v)| (k.clone(), describe(v)))
}

/// The maps of strings of a directResource that is (or, without a kind, may be) a core
/// ConfigMap or Secret: every value not a string is an error on its field, saying what to
/// write.
/// `at` is the entry's field path (`spec.injection[0]`).
pub fn check_direct(d: &Value, at: &str, errors: &mut Vec<Problem>) {
    let s = |k: &str| d.get(k).and_then(Value::as_str).unwrap_or("");
    if !matches!(s("apiVersion"), "" | "v1") {
        return;
    }
    let fields: &[&str] = match s("kind") {
        "" | "ConfigMap" => &["data", "binaryData"],
        "Secret" => &["data", "stringData"],
        _ => return,
    };
    let kind = if s("kind").is_empty() {
        "ConfigMap"
    } else {
        s("kind")
    };
    for &field in fields {
        let Some(map) = d.get(field) else {
            continue;
        };
        let Some(entries) = map.as_object() else {
            errors.push(Problem {
                field: format!("{at}.directResource.{field}"),
                message: format!(
                    "{kind} {field} must be a mapping of strings, not {}",
                    describe(map)
                ),
            });
            continue;
        };
        for (key, v) in entries.iter().filter(|(_, v)| !v.is_string()) {
            errors.push(Problem {
                field: format!("{at}.directResource.{field}.{key}"),
                message: format!(
                    "{kind} {field} holds strings only, and {key:?} is {}: the API server \
                     refuses it (kubectl too); {}",
                    describe(v),
                    fix(key, v)
                ),
            });
        }
    }
}
