//! Typed Porch API objects: the PackageVariant spec (also the kptfile Function/Selector types it
//! embeds) and the PackageVariantSet.
//!
//! Why typed structs: Porch decodes these objects with `sigs.k8s.io/yaml` into Go structs, and
//! both the validation rules and the output shape (field order, `omitempty`) follow from those
//! structs. Decoding is lenient like Go's (unknown fields are ignored, `null` is the zero value)
//! but type errors are reported with the field path (`spec.upstream.revision: invalid type ...`).

pub mod package_variant;
pub mod package_variant_set;

use serde::de::DeserializeOwned;
use serde::{Deserialize, Deserializer};

/// A decode failure of a typed object, with the dotted field path where it happened.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error("{message}")]
pub struct DecodeError {
    /// `spec.upstream.revision`, or empty when the root itself had the wrong type.
    pub path: String,
    /// `<path>: <serde message>` (just the serde message when the path is empty).
    pub message: String,
}

/// Decodes `value` into `T`, keeping the field path of the first error.
///
/// `prefix` is prepended to the path (e.g. `spec` when `value` is the spec of an object).
pub fn decode<T: DeserializeOwned>(
    value: &serde_json::Value,
    prefix: &str,
) -> Result<T, DecodeError> {
    serde_path_to_error::deserialize(value).map_err(|err| {
        let inner = err.inner().to_string();
        let rel = err.path().to_string();
        let rel = if rel == "." { String::new() } else { rel };
        let path = match (prefix.is_empty(), rel.is_empty()) {
            (true, _) => rel,
            (false, true) => prefix.to_string(),
            (false, false) if rel.starts_with('[') => format!("{prefix}{rel}"),
            (false, false) => format!("{prefix}.{rel}"),
        };
        let message = if path.is_empty() {
            inner
        } else {
            format!("{path}: {inner}")
        };
        DecodeError { path, message }
    })
}

/// Go's decoding of `null` into a non-pointer field: the zero value, not an error.
pub(crate) fn null_default<'de, D, T>(deserializer: D) -> Result<T, D::Error>
where
    D: Deserializer<'de>,
    T: Default + Deserialize<'de>,
{
    Ok(Option::<T>::deserialize(deserializer)?.unwrap_or_default())
}

/// `omitempty` for integers.
pub(crate) fn is_zero(n: &i64) -> bool {
    *n == 0
}
