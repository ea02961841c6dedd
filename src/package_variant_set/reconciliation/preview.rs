//! The run's summary, written as a plan: what it creates, updates (and which fields change),
//! leaves unchanged, deletes, and keeps because the sync policy forbids changing it. Read it
//! with `kpt fn eval ... -o stdout` or `--results-dir` before applying the output.
//!
//! Each group lists at most [`NAMES_SHOWN`] names and counts the rest, so a fleet's summary
//! stays one readable line.

use serde_json::Value;

pub use super::group::{Group, NAMES_SHOWN};
use super::sync_policy::SyncPolicy;
use crate::krm::results::ResultItem;
use crate::package_variant_set::expansion::inputs::Item;

/// The spec fields whose values differ between the current `spec` of a variant and its new
/// one, in the new spec's field order (then fields only the current one has): `spec.labels`,
/// and one level deeper for `upstream` and `downstream` (`spec.upstream.revision`).
pub fn changed_fields(current: Option<&Value>, new: &Value) -> Vec<String> {
    let empty = serde_json::Map::new();
    let current_map = current.and_then(Value::as_object).unwrap_or(&empty);
    let new_map = new.as_object().unwrap_or(&empty);
    let mut out = Vec::new();
    let keys = new_map
        .keys()
        .chain(current_map.keys().filter(|k| !new_map.contains_key(*k)));
    for key in keys {
        let (a, b) = (current_map.get(key), new_map.get(key));
        if a == b {
            continue;
        }
        match (a.and_then(Value::as_object), b.and_then(Value::as_object)) {
            (Some(a), Some(b)) if key == "upstream" || key == "downstream" => {
                let sub = b.keys().chain(a.keys().filter(|k| !b.contains_key(*k)));
                for k in sub {
                    if a.get(k) != b.get(k) {
                        out.push(format!("spec.{key}.{k}"));
                    }
                }
            }
            _ => out.push(format!("spec.{key}")),
        }
    }
    if out.is_empty() && current.is_none_or(|c| !c.is_object()) {
        out.push("spec".to_string());
    }
    out
}

/// A variant's name with the fields that change: `name [spec.labels, spec.upstream.revision]`.
pub fn with_fields(name: &str, fields: &[String]) -> String {
    format!("{name} [{}]", fields.join(", "))
}

/// What the run does, group by group.
#[derive(Debug, Default, Clone)]
pub struct Plan {
    pub created: Group,
    pub updated: Group,
    pub unchanged: Group,
    pub deleted: Group,
    /// Would be updated, kept by the policy.
    pub kept_updates: Group,
    /// Would be deleted, kept by the policy.
    pub kept_deletes: Group,
    pub policy: SyncPolicy,
}

impl Plan {
    /// The summary result (info, on the set).
    pub fn summary(&self, set_name: &str, namespace: &str, items: &[Item]) -> ResultItem {
        let mut message = format!(
            "PackageVariantSet {set_name:?}: {} created{}, {} updated{}",
            self.created.len(),
            self.created.listed(),
            self.updated.len(),
            self.updated.listed()
        );
        if !self.unchanged.is_empty() {
            message.push_str(&format!(
                ", {} unchanged{}",
                self.unchanged.len(),
                self.unchanged.listed()
            ));
        }
        message.push_str(&format!(
            ", {} deleted{}",
            self.deleted.len(),
            self.deleted.listed()
        ));
        for (group, instead) in [
            (&self.kept_updates, "updated"),
            (&self.kept_deletes, "deleted"),
        ] {
            if !group.is_empty() {
                message.push_str(&format!(
                    ", {} kept by the sync policy {} instead of {instead}{}",
                    group.len(),
                    self.policy.name(),
                    group.listed()
                ));
            }
        }
        let elsewhere = items
            .iter()
            .filter(|o| {
                let ns = o.namespace();
                !ns.is_empty() && ns != namespace
            })
            .count();
        if elsewhere > 0 {
            let (noun, verb) = if elsewhere == 1 {
                ("item", "was")
            } else {
                ("items", "were")
            };
            message.push_str(&format!(
                "; {elsewhere} {noun} in namespaces other than {namespace:?} {verb} ignored"
            ));
        }
        ResultItem::info(message).on_config()
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn fields_that_change() {
        let current = json!({"upstream": {"repo": "c", "package": "b", "revision": 1},
            "downstream": {"repo": "r", "package": "p"}, "labels": {"a": "1"}, "injectors": []});
        let new = json!({"upstream": {"repo": "c", "package": "b", "revision": 2},
            "downstream": {"repo": "r", "package": "p"}, "labels": {"a": "2"},
            "packageContext": {"data": {}}});
        assert_eq!(
            changed_fields(Some(&current), &new),
            [
                "spec.upstream.revision",
                "spec.labels",
                "spec.packageContext",
                "spec.injectors"
            ]
        );
        assert!(changed_fields(Some(&new), &new).is_empty());
        assert_eq!(changed_fields(None, &json!({})), ["spec"]);
    }
}
