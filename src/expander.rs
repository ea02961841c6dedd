//! The PackageVariantSet function: feeds the items to the expander
//! ([`crate::package_variant_set::expand`]) and turns its plan into changes to the
//! ResourceList.
//!
//! Only the items the expander can use are converted to JSON: PackageRevisions and
//! PackageVariants in full; Repositories and objectSelector targets from their metadata alone
//! (CEL sees nothing else of them). Everything else passes through untouched.

use crate::api::package_variant::{PACKAGE_VARIANT_API_VERSION, PACKAGE_VARIANT_KIND};
use crate::object::ObjectMeta;
use crate::package_variant_set::expand_typed;
use crate::resource_list::{Changes, ResourceList};
use crate::results::{has_errors, ResultItem};
use crate::yaml::{self, Node};
use serde_json::{Map, Value};

const PACKAGE_REVISION: (&str, &str) = ("porch.kpt.dev/v1alpha1", "PackageRevision");
const REPOSITORY: (&str, &str) = ("config.porch.kpt.dev/v1alpha1", "Repository");

/// Runs the expander for a PackageVariantSet functionConfig.
pub fn run(rl: &ResourceList, config: &Node) -> (Changes, Vec<ResultItem>) {
    let config_json = match yaml::to_json(config) {
        Ok(v) => v,
        Err(e) => {
            return (
                Changes::default(),
                vec![
                    ResultItem::error(format!("cannot read the PackageVariantSet: {e}"))
                        .on_config(),
                ],
            )
        }
    };
    let selected = selected_kinds(&config_json);
    let mut items = Vec::with_capacity(rl.items.len());
    let mut errors = Vec::new();
    for (i, slot) in rl.items.iter().enumerate() {
        let m = &slot.meta;
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
    if !errors.is_empty() {
        return (Changes::default(), errors);
    }
    let mut plan = expand_typed(&config_json, &items);
    drop(items); // before the new trees are built: their memory is reused
    if has_errors(&plan.results) {
        return (Changes::default(), plan.results);
    }
    let mut changes = Changes::default();
    let mut results = std::mem::take(&mut plan.results);
    for (i, spec) in std::mem::take(&mut plan.updates) {
        let mut tree = match rl.tree(i) {
            Ok(t) => t,
            Err(e) => {
                results.push(*e);
                return (Changes::default(), results);
            }
        };
        let new_spec = spec.to_node();
        let unchanged = tree.get("spec").is_some_and(|s| s.same_value(&new_spec));
        if unchanged {
            continue;
        }
        match tree.get_mut("spec") {
            Some(s) => s.assign(new_spec),
            None => {
                tree.set("spec", new_spec);
            }
        }
        changes.edited.insert(i, tree);
    }
    changes.added = plan
        .creates
        .iter()
        .map(|d| yaml::to_node(&plan.new_variant(d)).unwrap_or_else(|_| Node::plain("null")))
        .collect();
    changes.removed = std::mem::take(&mut plan.deletes);
    if crate::exits_after_run() {
        std::mem::forget(plan); // freed by the exit (see `run_and_exit`)
    }
    (changes, results)
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
