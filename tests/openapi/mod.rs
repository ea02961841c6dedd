//! A small OpenAPI v3 validator for the structural schemas of CustomResourceDefinitions, enough
//! to check the `fnconfig/` samples against `fnconfig/schemas/*.yaml` without a cluster.
//!
//! Checked: `type` (object, array, string, integer, number, boolean), `properties`, `required`,
//! `items`, `additionalProperties` (a schema or a boolean), `enum`, `nullable`,
//! `x-kubernetes-preserve-unknown-fields`, `minLength`, `maxLength`, `minimum`, `maximum`.
//! Accepted but not checked: `description`, `format`, `pattern`, `x-kubernetes-list-type`,
//! `x-kubernetes-map-type`, `x-kubernetes-list-map-keys`. Any other keyword in a schema (a typo,
//! `$ref`, which CRDs forbid) is reported by [`check_schema`].
//!
//! Decisions, stricter than the API server in two places, on purpose:
//! - **Unknown fields are errors.** The API server prunes a field its structural schema does not
//!   list (or rejects it under `kubectl --validate=strict`); the function refuses it (strict
//!   decoding, `src/api/strict.rs`), and so does this test.
//! - **`null` is an error unless the schema says `nullable: true`.** The API server drops such
//!   nulls before validation; a sample that writes `null` means nothing and is refused too.
//!
//! The root `metadata` of an object is checked against [`object_meta_schema`] (the CRD itself
//! only says `metadata: {type: object}`, because Kubernetes validates ObjectMeta on its own).

use serde_json::{json, Value};

/// Keywords a schema node may carry.
const KNOWN: &[&str] = &[
    "type",
    "properties",
    "required",
    "items",
    "additionalProperties",
    "enum",
    "nullable",
    "x-kubernetes-preserve-unknown-fields",
    "minLength",
    "maxLength",
    "minimum",
    "maximum",
    "description",
    "format",
    "pattern",
    "x-kubernetes-list-type",
    "x-kubernetes-map-type",
    "x-kubernetes-list-map-keys",
];

/// The fields of Kubernetes ObjectMeta a client may write: the function's own ObjectMeta
/// schema, which its strict decoding checks `metadata` against.
pub fn object_meta_schema() -> Value {
    package_variant::api::schema::OBJECT_META.to_json()
}

/// The `openAPIV3Schema` of `crd` for `apiVersion`/`kind`, with the root `metadata` replaced by
/// [`object_meta_schema`]. Errors when the CRD is not for that kind or does not serve that
/// version.
pub fn schema_for(crd: &Value, api_version: &str, kind: &str) -> Result<Value, String> {
    let spec = &crd["spec"];
    let group = spec["group"].as_str().unwrap_or_default();
    if spec["names"]["kind"].as_str() != Some(kind) {
        return Err(format!(
            "the CRD is for kind {:?}, not {kind:?}",
            spec["names"]["kind"]
        ));
    }
    let Some((g, v)) = api_version.split_once('/') else {
        return Err(format!("apiVersion {api_version:?} has no group"));
    };
    if g != group {
        return Err(format!("the CRD is for group {group:?}, not {g:?}"));
    }
    let version = spec["versions"]
        .as_array()
        .into_iter()
        .flatten()
        .find(|ver| ver["name"].as_str() == Some(v))
        .ok_or_else(|| format!("the CRD has no version {v:?}"))?;
    if version["served"] != json!(true) {
        return Err(format!("version {v:?} is not served"));
    }
    let mut schema = version["schema"]["openAPIV3Schema"].clone();
    if schema.is_null() {
        return Err(format!("version {v:?} has no openAPIV3Schema"));
    }
    if let Some(props) = schema.get_mut("properties").and_then(Value::as_object_mut) {
        if props.contains_key("metadata") {
            props.insert("metadata".into(), object_meta_schema());
        }
    }
    Ok(schema)
}

/// Problems with the schema itself: unknown keywords, nodes without a `type` (structural schemas
/// need one everywhere unless unknown fields are preserved), `properties` on a non-object,
/// `items` missing on an array, `required` naming a property that is not there.
pub fn check_schema(schema: &Value) -> Vec<String> {
    let mut errors = Vec::new();
    check_node(schema, "", &mut errors);
    errors
}

fn check_node(schema: &Value, path: &str, errors: &mut Vec<String>) {
    let at = display(path);
    let Some(obj) = schema.as_object() else {
        errors.push(format!("{at}: a schema must be a mapping"));
        return;
    };
    for key in obj.keys() {
        if !KNOWN.contains(&key.as_str()) {
            errors.push(format!("{at}: unknown schema keyword {key:?}"));
        }
    }
    let preserve = obj.get("x-kubernetes-preserve-unknown-fields") == Some(&json!(true));
    let ty = obj.get("type").and_then(Value::as_str);
    match ty {
        None if !preserve => errors.push(format!("{at}: no type")),
        Some("object" | "array" | "string" | "integer" | "number" | "boolean") | None => {}
        Some(other) => errors.push(format!("{at}: unknown type {other:?}")),
    }
    if let Some(props) = obj.get("properties") {
        if ty != Some("object") {
            errors.push(format!("{at}: properties on a {ty:?}, not an object"));
        }
        for (name, sub) in props.as_object().into_iter().flatten() {
            check_node(sub, &join(path, name), errors);
        }
        if obj.contains_key("additionalProperties") {
            errors.push(format!("{at}: both properties and additionalProperties"));
        }
    }
    for name in obj
        .get("required")
        .and_then(Value::as_array)
        .into_iter()
        .flatten()
    {
        let listed = name
            .as_str()
            .is_some_and(|n| obj.get("properties").and_then(|p| p.get(n)).is_some());
        if !listed {
            errors.push(format!("{at}: required {name} is not a property"));
        }
    }
    match (ty, obj.get("items")) {
        (Some("array"), Some(items)) => check_node(items, &format!("{path}[]"), errors),
        (Some("array"), None) => errors.push(format!("{at}: an array without items")),
        (_, Some(_)) => errors.push(format!("{at}: items on a {ty:?}, not an array")),
        _ => {}
    }
    if let Some(ap) = obj.get("additionalProperties") {
        if ap.is_object() {
            check_node(ap, &format!("{path}.*"), errors);
        } else if !ap.is_boolean() {
            errors.push(format!(
                "{at}: additionalProperties must be a schema or a boolean"
            ));
        }
    }
}

/// Every way `value` breaks `schema`, each as `path: problem`.
pub fn validate(schema: &Value, value: &Value) -> Vec<String> {
    let mut errors = Vec::new();
    check_value(schema, value, "", &mut errors);
    errors
}

fn check_value(schema: &Value, value: &Value, path: &str, errors: &mut Vec<String>) {
    let at = display(path);
    if value.is_null() {
        if schema["nullable"] != json!(true) {
            errors.push(format!(
                "{at}: null is not allowed (the API server would drop it)"
            ));
        }
        return;
    }
    let preserve = schema["x-kubernetes-preserve-unknown-fields"] == json!(true);
    if let Some(ty) = schema["type"].as_str() {
        let ok = match ty {
            "object" => value.is_object(),
            "array" => value.is_array(),
            "string" => value.is_string(),
            "integer" => value.is_i64() || value.is_u64(),
            "number" => value.is_number(),
            "boolean" => value.is_boolean(),
            _ => false,
        };
        if !ok {
            errors.push(format!("{at}: must be {ty}, found {}", describe(value)));
            return;
        }
    }
    if let Some(allowed) = schema["enum"].as_array() {
        if !allowed.contains(value) {
            errors.push(format!(
                "{at}: {value} is not one of {}",
                Value::from(allowed.clone())
            ));
        }
    }
    if let Some(s) = value.as_str() {
        let n = s.chars().count() as u64;
        if schema["minLength"].as_u64().is_some_and(|min| n < min) {
            errors.push(format!("{at}: shorter than {}", schema["minLength"]));
        }
        if schema["maxLength"].as_u64().is_some_and(|max| n > max) {
            errors.push(format!("{at}: longer than {}", schema["maxLength"]));
        }
    }
    if let Some(x) = value.as_f64() {
        if schema["minimum"].as_f64().is_some_and(|min| x < min) {
            errors.push(format!("{at}: less than {}", schema["minimum"]));
        }
        if schema["maximum"].as_f64().is_some_and(|max| x > max) {
            errors.push(format!("{at}: more than {}", schema["maximum"]));
        }
    }
    if let Some(items) = value.as_array() {
        if let Some(item_schema) = schema.get("items") {
            for (i, item) in items.iter().enumerate() {
                check_value(item_schema, item, &format!("{path}[{i}]"), errors);
            }
        }
    }
    if let Some(fields) = value.as_object() {
        for name in schema["required"].as_array().into_iter().flatten() {
            if let Some(n) = name.as_str() {
                if !fields.contains_key(n) {
                    errors.push(format!("{}: required field is missing", join(path, n)));
                }
            }
        }
        let props = schema["properties"].as_object();
        for (name, field) in fields {
            let sub = join(path, name);
            match (
                props.and_then(|p| p.get(name)),
                &schema["additionalProperties"],
            ) {
                (Some(field_schema), _) => check_value(field_schema, field, &sub, errors),
                (None, ap) if ap.is_object() => check_value(ap, field, &sub, errors),
                (None, Value::Bool(true)) => {}
                (None, _) if preserve => {}
                (None, _) => errors.push(format!(
                    "{sub}: unknown field (a structural schema would prune it)"
                )),
            }
        }
    }
}

fn join(path: &str, name: &str) -> String {
    if path.is_empty() {
        name.to_string()
    } else {
        format!("{path}.{name}")
    }
}

fn display(path: &str) -> &str {
    if path.is_empty() {
        "<root>"
    } else {
        path
    }
}

fn describe(value: &Value) -> String {
    match value {
        Value::Null => "null".into(),
        Value::Bool(b) => format!("boolean {b}"),
        Value::Number(n) => format!("number {n}"),
        Value::String(s) => format!("string {s:?}"),
        Value::Array(_) => "an array".into(),
        Value::Object(_) => "an object".into(),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn schema() -> Value {
        json!({
            "type": "object",
            "required": ["name"],
            "properties": {
                "name": {"type": "string", "minLength": 1, "maxLength": 3},
                "n": {"type": "integer", "minimum": 0},
                "mode": {"type": "string", "enum": ["a", "b"]},
                "tags": {"type": "object", "additionalProperties": {"type": "string"}},
                "list": {"type": "array", "items": {"type": "boolean"}},
                "free": {"type": "object", "x-kubernetes-preserve-unknown-fields": true},
                "maybe": {"type": "string", "nullable": true},
                "opt": {"type": "string"},
            }
        })
    }

    #[test]
    fn accepts_a_conforming_value() {
        let v = json!({"name": "abc", "n": 0, "mode": "b", "tags": {"x": "y"}, "list": [true],
                       "free": {"anything": [1, {"goes": null}]}, "maybe": null});
        assert_eq!(validate(&schema(), &v), Vec::<String>::new());
        assert_eq!(check_schema(&schema()), Vec::<String>::new());
    }

    #[test]
    fn reports_each_rule_with_its_path() {
        let v = json!({"n": -1, "mode": "c", "tags": {"x": 1}, "list": [true, "no"],
                       "extra": 1, "free": [], "opt": null});
        let errors = validate(&schema(), &v);
        let expected = [
            "name: required field is missing",
            "n: less than 0",
            "mode: \"c\" is not one of [\"a\",\"b\"]",
            "tags.x: must be string, found number 1",
            "list[1]: must be boolean, found string \"no\"",
            "extra: unknown field (a structural schema would prune it)",
            "free: must be object, found an array",
            "opt: null is not allowed (the API server would drop it)",
        ];
        for e in expected {
            assert!(
                errors.iter().any(|x| x == e),
                "missing {e:?} in {errors:#?}"
            );
        }
        assert_eq!(errors.len(), expected.len(), "{errors:#?}");
        let long = validate(&schema(), &json!({"name": "abcd"}));
        assert_eq!(long, ["name: longer than 3"]);
        let float = validate(&schema(), &json!({"name": "a", "n": 1.5}));
        assert_eq!(float, ["n: must be integer, found number 1.5"]);
    }

    #[test]
    fn check_schema_finds_non_structural_nodes() {
        let bad = json!({
            "type": "object",
            "required": ["missing"],
            "properties": {
                "a": {"$ref": "#/definitions/x"},
                "b": {"type": "array"},
                "c": {"type": "string", "properties": {}},
                "d": {"type": "map"},
            }
        });
        let errors = check_schema(&bad);
        let expected = [
            "<root>: required \"missing\" is not a property",
            "a: unknown schema keyword \"$ref\"",
            "a: no type",
            "b: an array without items",
            "c: properties on a Some(\"string\"), not an object",
            "d: unknown type \"map\"",
        ];
        for e in expected {
            assert!(
                errors.iter().any(|x| x == e),
                "missing {e:?} in {errors:#?}"
            );
        }
        assert_eq!(errors.len(), expected.len(), "{errors:#?}");
    }
}
