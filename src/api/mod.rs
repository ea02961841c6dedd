//! Typed Porch API objects: the PackageVariant spec (also the kptfile Function/Selector types it
//! embeds) and the PackageVariantSet, their schemas, and strict decoding.
//!
//! Why typed structs: Porch decodes these objects with `sigs.k8s.io/yaml` into Go structs, and
//! both the validation rules and the output shape (field order, `omitempty`) follow from those
//! structs. Why a schema on top: Go's decoding drops unknown fields, so a functionConfig is first
//! checked against its CRD schema ([`schema`], [`strict`]), which refuses every unknown field and
//! wrong type with its path; only then is it decoded (`null` stays the zero value, as in Go).

pub mod annotations;
pub mod data_strings;
pub mod function;
pub mod identity;
pub mod image_ref;
pub mod label_selector;
pub mod names;
pub mod package_variant;
pub mod package_variant_set;
pub mod schema;
pub mod scope;
pub mod set_upstream;
pub mod strict;
pub mod suggest;
pub mod variant_rules;

use serde::de::DeserializeOwned;
use serde::{Deserialize, Deserializer};

/// One problem of a PackageVariant: its field path (`spec.injection[1].bindingPoint`) and what
/// is wrong, saying what to write instead (without the path: kpt prints it beside). Here, not
/// in `variant_rules`, because `identity` and `data_strings`, which it uses, report them too.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Problem {
    pub field: String,
    pub message: String,
}

/// A decode failure of a typed object, with the dotted field path where it happened.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error("{message}")]
pub struct DecodeError {
    /// `spec.upstream.revision`, or empty when the root itself had the wrong type.
    pub path: String,
    /// What is wrong and what to write instead, without the path (kpt prints `field.path`
    /// beside it): `invalid type: string "x", expected an integer`.
    pub message: String,
}

/// Every unknown field and wrong type of `object` against the schema of its kind
/// ([`strict::check`]), in document order; empty when the object may be decoded.
pub fn check_strict(object: &serde_json::Value, api_version: &str, kind: &str) -> Vec<DecodeError> {
    match schema::for_kind(api_version, kind) {
        Some(k) => {
            let mut problems = strict::check(object, k);
            if api_version != package_variant::EXTENSION_API_VERSION {
                extension_hints(&mut problems, kind);
            }
            problems
        }
        None => vec![DecodeError {
            path: String::new(),
            message: format!(
                "internal error: no schema for {kind} {api_version}; the embedded schemas cannot be read"
            ),
        }],
    }
}

/// An unknown field of a Porch kind that the extension kind of the same name has at that
/// place (`spec.injection`): the message says to write the extension's apiVersion.
fn extension_hints(problems: &mut [DecodeError], kind: &str) {
    let Some(extension) = schema::for_kind(package_variant::EXTENSION_API_VERSION, kind) else {
        return;
    };
    for p in problems.iter_mut() {
        let Some(name) = p.message.strip_prefix("unknown field \"") else {
            continue;
        };
        let name = name.split('"').next().unwrap_or("");
        if !schema_has_path(extension.root(), &p.path) {
            continue;
        }
        p.message = format!(
            "unknown field {name:?}: {name} is an extension of this function, not a field of \
             Porch's {kind}; write apiVersion: {} to use it (docs/extensions.md), or remove it",
            package_variant::EXTENSION_API_VERSION
        );
    }
}

/// Whether the concrete field path `spec.targets[0].template.injection` names a field of
/// `root` (list indices and map keys followed through items and values).
fn schema_has_path(root: &'static schema::Schema, path: &str) -> bool {
    let mut node = root;
    for part in path.split('.') {
        let (name, indices) = match part.find('[') {
            Some(i) => (&part[..i], part[i..].matches('[').count()),
            None => (part, 0),
        };
        let Some(next) = node.property(name) else {
            return false;
        };
        node = next;
        for _ in 0..indices {
            match node.items().or(node.values()) {
                Some(n) => node = n,
                None => return false,
            }
        }
    }
    true
}

/// Decodes `value` into `T`, keeping the field path of the first error.
///
/// `prefix` is prepended to the path (e.g. `spec` when `value` is the spec of an object).
pub fn decode<T: DeserializeOwned>(
    value: &serde_json::Value,
    prefix: &str,
) -> Result<T, DecodeError> {
    decode_from(value, prefix)
}

/// [`decode`], consuming `value`: its strings move into `T` instead of being copied, so a wide
/// value is not held twice while it is decoded.
pub fn decode_owned<T: DeserializeOwned>(
    value: serde_json::Value,
    prefix: &str,
) -> Result<T, DecodeError> {
    decode_from(value, prefix)
}

fn decode_from<'de, T: DeserializeOwned, D: serde::Deserializer<'de>>(
    value: D,
    prefix: &str,
) -> Result<T, DecodeError>
where
    D::Error: std::fmt::Display,
{
    serde_path_to_error::deserialize(value).map_err(|err| {
        let inner = humanize(&err.inner().to_string());
        let rel = err.path().to_string();
        let rel = if rel == "." { String::new() } else { rel };
        let path = match (prefix.is_empty(), rel.is_empty()) {
            (true, _) => rel,
            (false, true) => prefix.to_string(),
            (false, false) if rel.starts_with('[') => format!("{prefix}{rel}"),
            (false, false) => format!("{prefix}.{rel}"),
        };
        DecodeError {
            path,
            message: inner,
        }
    })
}

/// Serde's type errors in the words of a YAML author, with what to write instead:
/// `invalid type: string "1", expected i64` becomes
/// `invalid type: string "1", expected an integer; write it without quotes`.
fn humanize(message: &str) -> String {
    const INTEGERS: [&str; 8] = ["i64", "u64", "i32", "u32", "i16", "u16", "i8", "u8"];
    let mut m = message.to_string();
    for t in INTEGERS {
        if let Some(head) = m.strip_suffix(&format!(", expected {t}")) {
            m = format!("{head}, expected an integer");
        }
    }
    if let Some(head) = m.strip_suffix(", expected a map") {
        m = format!("{head}, expected a mapping (key: value)");
    }
    if let Some(head) = m.strip_suffix(", expected a sequence") {
        m = format!("{head}, expected a list");
    }
    let quoted_number = m
        .strip_prefix("invalid type: string \"")
        .and_then(|r| r.strip_suffix("\", expected an integer"))
        .is_some_and(|v| v.parse::<i64>().is_ok());
    let unquoted_scalar = ["integer `", "floating point `", "boolean `"]
        .iter()
        .any(|p| m.starts_with(&format!("invalid type: {p}")))
        && m.ends_with(", expected a string");
    if quoted_number {
        m.push_str("; write it without quotes");
    } else if unquoted_scalar {
        m.push_str("; quote it to make it a string");
    }
    m
}

/// Go's decoding of `null` into a non-pointer field: the zero value, not an error.
pub(crate) fn null_default<'de, D, T>(deserializer: D) -> Result<T, D::Error>
where
    D: Deserializer<'de>,
    T: Default + Deserialize<'de>,
{
    Ok(Option::<T>::deserialize(deserializer)?.unwrap_or_default())
}

/// [`null_default`] for a map of strings, built in one pass from its pairs. Why: a
/// `BTreeMap` filled key by key in order leaves its nodes about half full, and a wide
/// `packageContext.data` then took twice the room it needs for as long as the run lasts.
pub(crate) fn null_default_string_map<'de, D>(
    deserializer: D,
) -> Result<std::collections::BTreeMap<String, String>, D::Error>
where
    D: Deserializer<'de>,
{
    struct Pairs(Vec<(String, String)>);
    impl<'de> Deserialize<'de> for Pairs {
        fn deserialize<D: Deserializer<'de>>(d: D) -> Result<Pairs, D::Error> {
            d.deserialize_map(PairsVisitor)
        }
    }
    struct PairsVisitor;
    impl<'de> serde::de::Visitor<'de> for PairsVisitor {
        type Value = Pairs;
        fn expecting(&self, f: &mut std::fmt::Formatter) -> std::fmt::Result {
            // As serde says it for a `BTreeMap`, so messages do not change.
            f.write_str("a map")
        }
        fn visit_map<A: serde::de::MapAccess<'de>>(self, mut m: A) -> Result<Pairs, A::Error> {
            let mut v = Vec::with_capacity(m.size_hint().unwrap_or(0).min(1 << 16));
            while let Some(kv) = m.next_entry::<String, String>()? {
                v.push(kv);
            }
            Ok(Pairs(v))
        }
    }
    Ok(Option::<Pairs>::deserialize(deserializer)?
        .map(|p| p.0.into_iter().collect())
        .unwrap_or_default())
}

/// `omitempty` for integers.
pub(crate) fn is_zero(n: &i64) -> bool {
    *n == 0
}

#[cfg(test)]
mod tests {
    use super::humanize;

    #[test]
    fn type_errors_say_what_to_write() {
        assert_eq!(
            humanize(r#"invalid type: string "1", expected i64"#),
            r#"invalid type: string "1", expected an integer; write it without quotes"#
        );
        assert_eq!(
            humanize(r#"invalid type: string "x", expected i64"#),
            r#"invalid type: string "x", expected an integer"#
        );
        assert_eq!(
            humanize("invalid type: integer `123`, expected a string"),
            "invalid type: integer `123`, expected a string; quote it to make it a string"
        );
        assert_eq!(
            humanize(r#"invalid type: string "x", expected a map"#),
            r#"invalid type: string "x", expected a mapping (key: value)"#
        );
        assert_eq!(
            humanize("invalid type: map, expected a sequence"),
            "invalid type: map, expected a list"
        );
        assert_eq!(humanize("missing field `x`"), "missing field `x`");
    }
}
