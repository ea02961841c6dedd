//! What the expander reads from the items: PackageRevisions and PackageVariants in full,
//! Repositories and objectSelector targets from their metadata alone (CEL and the selectors see
//! nothing else of them).

use crate::api::package_variant::{PACKAGE_VARIANT_API_VERSION, PACKAGE_VARIANT_KIND};
use crate::krm::object::ObjectMeta;
use crate::krm::resource_list::ResourceList;
use crate::krm::results::ResultItem;
use crate::yaml;
use serde_json::{Map, Value};

const PACKAGE_REVISION: (&str, &str) = ("porch.kpt.dev/v1alpha1", "PackageRevision");
const REPOSITORY: (&str, &str) = ("config.porch.kpt.dev/v1alpha1", "Repository");

/// Every item as the expander sees it, in ResourceList order: `null` for the items it does not
/// read. An item that cannot be read is an error on that item.
pub fn read(rl: &ResourceList, config: &Value) -> Result<Vec<Value>, Vec<ResultItem>> {
    let selected = selected_kinds(config);
    let mut items = Vec::with_capacity(rl.items.len());
    let mut errors = Vec::new();
    for (i, m) in rl.items.metas().enumerate() {
        let full = m.is(PACKAGE_REVISION.0, PACKAGE_REVISION.1)
            || m.is(PACKAGE_VARIANT_API_VERSION, PACKAGE_VARIANT_KIND);
        let value = if full {
            match rl.tree(i).map(|t| yaml::to_json(&t)) {
                Ok(Ok(v)) => v,
                Ok(Err(e)) => {
                    errors.push(ResultItem::error(format!("cannot read item: {e}")).on_item(i));
                    Value::Null
                }
                Err(e) => {
                    errors.push(*e);
                    Value::Null
                }
            }
        } else if m.is(REPOSITORY.0, REPOSITORY.1)
            || selected
                .iter()
                .any(|(v, k)| *v == m.api_version && *k == m.kind)
        {
            metadata_json(m)
        } else {
            Value::Null
        };
        items.push(value);
    }
    if errors.is_empty() {
        Ok(items)
    } else {
        Err(errors)
    }
}

/// `(apiVersion, kind)` of every objectSelector target.
fn selected_kinds(config: &Value) -> Vec<(String, String)> {
    config
        .pointer("/spec/targets")
        .and_then(Value::as_array)
        .map(|targets| {
            targets
                .iter()
                .filter_map(|t| t.get("objectSelector"))
                .filter_map(|s| {
                    Some((
                        s.get("apiVersion")?.as_str()?.to_string(),
                        s.get("kind")?.as_str()?.to_string(),
                    ))
                })
                .collect()
        })
        .unwrap_or_default()
}

/// An object as CEL and the selectors see it: identity, labels and annotations.
fn metadata_json(m: &ObjectMeta) -> Value {
    let pairs = |p: &[(String, String)]| {
        Value::Object(
            p.iter()
                .map(|(k, v)| (k.clone(), Value::String(v.clone())))
                .collect::<Map<_, _>>(),
        )
    };
    let mut meta = Map::new();
    meta.insert("name".into(), Value::String(m.name.clone()));
    if let Some(ns) = &m.namespace {
        meta.insert("namespace".into(), Value::String(ns.clone()));
    }
    meta.insert("labels".into(), pairs(&m.labels));
    meta.insert("annotations".into(), pairs(&m.annotations));
    let mut o = Map::new();
    o.insert("apiVersion".into(), Value::String(m.api_version.clone()));
    o.insert("kind".into(), Value::String(m.kind.clone()));
    o.insert("metadata".into(), Value::Object(meta));
    Value::Object(o)
}
