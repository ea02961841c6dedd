//! Strict decoding: every field of a functionConfig must be one its schema ([`super::schema`])
//! names, with the type it gives, before the typed structs are filled.
//!
//! Why: Porch decodes leniently (an unknown field is dropped), so a misspelt `matchLabel`
//! selects every Repository and a misplaced `spec.template` is ignored. kubectl's strict field
//! validation is the model: every problem is reported, in document order, each with its field
//! path, and with what to write instead (a close field name, or where the field belongs).
//! `null` stays Go's zero value for a field; a `null` list item or map value is refused.

use serde_json::Value;

use super::schema::{Kind, Schema, Type};
pub use super::suggest::closest;
use super::DecodeError as Problem;

/// Longest string value quoted in a message; longer ones are cut with `...`.
const MAX_QUOTED: usize = 60;

/// Every unknown field and wrong type in `object` (the whole object: apiVersion, kind,
/// metadata, spec), in document order.
pub fn check(object: &Value, kind: &Kind) -> Vec<Problem> {
    let mut out = Vec::new();
    let root = kind.root();
    let Some(map) = object.as_object() else {
        out.push(Problem {
            path: String::new(),
            message: format!("invalid type: {}, expected a mapping", found(object)),
        });
        return out;
    };
    let mut walker = Walker {
        kind,
        out: &mut out,
        path: String::new(),
        schema_path: String::new(),
    };
    // `status` is in the schema as anything: Porch's controllers write it, the function
    // never reads it.
    for (name, value) in map {
        walker.field(root, name, value);
    }
    out
}

struct Walker<'k, 'o> {
    kind: &'k Kind,
    out: &'o mut Vec<Problem>,
    /// The concrete path of the value being checked: `spec.targets[0]`.
    path: String,
    /// The same path in the schema: `spec.targets[]`.
    schema_path: String,
}

impl Walker<'_, '_> {
    fn problem(&mut self, message: String) {
        self.out.push(Problem {
            path: self.path.clone(),
            message,
        });
    }

    /// The field `name` of an object with schema `parent`.
    fn field(&mut self, parent: &Schema, name: &str, value: &Value) {
        let (len, slen) = (self.path.len(), self.schema_path.len());
        push_name(&mut self.path, name);
        push_name(&mut self.schema_path, name);
        match parent.property(name) {
            // `null` is the zero value of any field, as in Go.
            Some(_) if value.is_null() => {}
            Some(schema) => self.value(schema, value),
            None => {
                let message = unknown_field(self.kind, parent, &self.schema_path[..slen], name);
                self.problem(message);
            }
        }
        self.path.truncate(len);
        self.schema_path.truncate(slen);
    }

    fn value(&mut self, schema: &Schema, value: &Value) {
        if schema.ty() == Type::Any {
            return;
        }
        if !type_matches(schema.ty(), value) {
            let message = type_error(schema.ty(), value, &self.schema_path);
            self.problem(message);
            return;
        }
        match value {
            Value::Object(map) if !schema.accepts_any_field() => match schema.values() {
                Some(values) => {
                    // The functionConfig's own annotations: keys under the function's prefix
                    // must be ones it reads on this kind.
                    let annotations = self.path == "metadata.annotations";
                    for (key, v) in map {
                        let len = self.path.len();
                        push_key(&mut self.path, key);
                        self.element(values, v);
                        if annotations {
                            let (api_version, kind) = (self.kind.api_version(), self.kind.kind());
                            if let Some(m) =
                                super::annotations::check_config(key, api_version, kind)
                            {
                                self.problem(m);
                            }
                        }
                        self.path.truncate(len);
                    }
                }
                None => {
                    for (name, v) in map {
                        self.field(schema, name, v);
                    }
                }
            },
            Value::Array(list) => {
                let Some(items) = schema.items() else { return };
                let slen = self.schema_path.len();
                self.schema_path.push_str("[]");
                for (i, v) in list.iter().enumerate() {
                    let len = self.path.len();
                    self.path.push_str(&format!("[{i}]"));
                    self.element(items, v);
                    self.path.truncate(len);
                }
                self.schema_path.truncate(slen);
            }
            _ => {}
        }
    }

    /// A list item or map value: unlike a field, `null` is not a value here.
    fn element(&mut self, schema: &Schema, value: &Value) {
        if value.is_null() && schema.ty() != Type::Any {
            let message = format!(
                "invalid type: null, expected {}; write a value or remove the entry",
                expected(schema.ty())
            );
            self.problem(message);
        } else {
            self.value(schema, value);
        }
    }
}

fn push_name(path: &mut String, name: &str) {
    if !path.is_empty() {
        path.push('.');
    }
    path.push_str(name);
}

/// A map key: `.key` when it reads as a name, `[key]` otherwise (`annotations[a.b/c]`).
fn push_key(path: &mut String, key: &str) {
    let plain = !key.is_empty()
        && key
            .chars()
            .all(|c| c.is_ascii_alphanumeric() || c == '_' || c == '-');
    if plain {
        push_name(path, key);
    } else {
        path.push('[');
        path.push_str(key);
        path.push(']');
    }
}

fn type_matches(ty: Type, v: &Value) -> bool {
    match ty {
        Type::Object => v.is_object(),
        Type::Array => v.is_array(),
        Type::String => v.is_string(),
        Type::Integer => v.is_i64(),
        Type::Number => v.is_number(),
        Type::Boolean => v.is_boolean(),
        Type::Any => true,
    }
}

fn expected(ty: Type) -> &'static str {
    match ty {
        Type::Object => "a mapping (key: value)",
        Type::Array => "a list",
        Type::String => "a string",
        Type::Integer => "an integer",
        Type::Number => "a number",
        Type::Boolean => "a boolean (true or false)",
        Type::Any => "a value",
    }
}

/// What was found, in serde's words: `string "x"`, ``integer `1` ``, `a mapping`.
fn found(v: &Value) -> String {
    match v {
        Value::Null => "null".to_string(),
        Value::Bool(b) => format!("boolean `{b}`"),
        Value::Number(n) if n.is_f64() => format!("floating point `{n}`"),
        Value::Number(n) => format!("integer `{n}`"),
        Value::String(s) => format!("string {:?}", quoted(s)),
        Value::Array(_) => "a list".to_string(),
        Value::Object(_) => "a mapping".to_string(),
    }
}

fn quoted(s: &str) -> String {
    if s.chars().count() <= MAX_QUOTED {
        return s.to_string();
    }
    let cut: String = s.chars().take(MAX_QUOTED).collect();
    format!("{cut}...")
}

/// A wrong type, with what to write instead.
fn type_error(ty: Type, v: &Value, schema_path: &str) -> String {
    let head = format!("invalid type: {}, expected {}", found(v), expected(ty));
    match (ty, v) {
        (Type::Integer, Value::String(s)) if schema_path.ends_with("upstream.revision") => {
            format!("{head}: {}", revision_hint(s))
        }
        (Type::Integer, Value::String(s)) if s.trim().parse::<i64>().is_ok() => {
            format!("{head}; write it without quotes")
        }
        (Type::String, Value::Number(_) | Value::Bool(_)) => {
            format!("{head}; quote it to make it a string")
        }
        _ => head,
    }
}

/// Porch 4.1 made `upstream.revision` an integer (it was a string such as `v1`).
fn revision_hint(s: &str) -> String {
    let t = s.trim();
    let number = t
        .strip_prefix('v')
        .unwrap_or(t)
        .parse::<i64>()
        .ok()
        .filter(|n| *n >= 0 || !t.starts_with('v'));
    let head = "Porch's API takes the revision as an integer (Porch 4.1 and later)";
    match number {
        Some(n) if t.starts_with('v') => format!("{head}; write revision: {n}"),
        Some(n) => format!("{head}; write revision: {n} without quotes"),
        None => format!(
            "{head}; write the spec.revision number of the upstream PackageRevision \
             (revision: 1), or name it by workspaceName"
        ),
    }
}

/// The message for an unknown field `name` in an object with schema `parent` at
/// `parent_path` (a schema path).
fn unknown_field(kind: &Kind, parent: &Schema, parent_path: &str, name: &str) -> String {
    let head = format!("unknown field {:?}", quoted(name));
    if let Some(close) = closest(name, parent.properties().map(|(n, _)| n)) {
        return format!("{head}; did you mean {close:?}?");
    }
    let owners = kind.owners_of(name);
    if !owners.is_empty() {
        let below: Vec<&String> = owners
            .iter()
            .filter(|o| o.starts_with(parent_path) && o.as_str() != parent_path)
            .collect();
        let mut shown: Vec<&String> = if below.is_empty() {
            owners.iter().collect()
        } else {
            below
        };
        // Only the shallowest places, in schema order.
        let depth = |o: &String| o.matches(['.', '[']).count();
        let least = shown.iter().map(|o| depth(o)).min().unwrap_or(0);
        shown.retain(|o| depth(o) == least);
        let shown: Vec<String> = shown.into_iter().take(3).map(|o| join(o, name)).collect();
        return format!("{head}; it belongs at {}", shown.join(" or "));
    }
    let known: Vec<&str> = parent.properties().map(|(n, _)| n).collect();
    if known.is_empty() {
        head
    } else {
        format!("{head}; the fields here are {}", known.join(", "))
    }
}

fn join(parent: &str, name: &str) -> String {
    if parent.is_empty() {
        name.to_string()
    } else {
        format!("{parent}.{name}")
    }
}

#[cfg(test)]
mod tests;
