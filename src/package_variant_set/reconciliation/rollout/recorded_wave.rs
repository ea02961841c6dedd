//! The wave recorded on a variant (its [`ANNOTATION`]), read back by the gates over deletions
//! and by the first wave. Its own file so that both the approval gate and the deletion order
//! read it from below them.

use serde_json::Value;

use crate::krm::object::json_at;
use crate::krm::results::ResultItem;
use crate::package_variant_set::expansion::inputs::Item;
use crate::package_variant_set::expansion::targets::str_at;

/// The annotation that records a variant's wave.
pub const ANNOTATION: &str = crate::api::annotations::WAVE.key;

/// The recorded wave of the variant at `item`, decoded: a YAML string, or an integer (written
/// unquoted by hand: `wave: 1` is wave 1, not "no wave"); `Ok(None)` without the annotation;
/// any other value is an error on the item's field, for the gates that need the wave.
pub fn recorded_wave(items: &[Item], item: usize) -> Result<Option<String>, Box<ResultItem>> {
    let Some(json) = items.get(item).and_then(Item::json) else {
        return Ok(None);
    };
    let value = json_at(json, "/metadata/annotations").and_then(|a| a.get(ANNOTATION));
    match value {
        None => Ok(None),
        Some(Value::String(s)) => Ok(Some(s.clone())),
        Some(Value::Number(n)) if n.is_i64() => Ok(Some(n.to_string())),
        Some(other) => {
            let name = str_at(json, "/metadata/name");
            let what = match other {
                Value::Null => "empty".to_string(),
                Value::Bool(b) => format!("the boolean {b}"),
                Value::Number(n) => format!("{n}, not a whole number"),
                Value::Array(_) => "a list".to_string(),
                _ => "a mapping".to_string(),
            };
            Err(Box::new(
                ResultItem::error(format!(
                    "PackageVariant {name:?}: the {ANNOTATION} annotation is {what}: it records the variant's wave (the waveExpr value) as a string; write it in quotes, e.g. {ANNOTATION}: \"2\", or remove it (the variant then counts as the highest wave)"
                ))
                .field(format!("metadata.annotations[{ANNOTATION}]"))
                .on_item(item),
            ))
        }
    }
}
