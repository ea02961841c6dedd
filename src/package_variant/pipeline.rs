//! Kptfile pipeline (Porch's `ensureKRMFunctions`): removes this PackageVariant's functions from
//! an earlier run and prepends its current ones, named `PackageVariant.<pv>.<fn>.<i>`.
//!
//! Runs even when the PackageVariant has no pipeline, because it also removes what an earlier
//! run added. Existing entries are kept as their own nodes (comments, field order, quoting); an
//! unchanged list leaves the Kptfile untouched.

use crate::api::package_variant::{Function, Pipeline};
use crate::package_variant::edits::{assign_at, remove_if_present};
use crate::yaml::{from_json_sorted, Item, Kind, Node, Trivia};
use serde_json::Value;

/// The pipeline lists, in the order they are written when both are new.
const LISTS: [&str; 2] = ["mutators", "validators"];

/// A problem in the Kptfile's pipeline, with the Kptfile field it concerns.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct PipelineError {
    pub field: String,
    pub message: String,
}

/// `PackageVariant.<pv>.<fn>.<i>` (Porch's `generatePVFuncName`).
pub fn generated_name(fn_name: &str, pv_name: &str, index: usize) -> String {
    format!("PackageVariant.{pv_name}.{fn_name}.{index}")
}

/// Porch's `isPackageVariantFunc` on a function's name: exactly four `.`-separated parts,
/// `PackageVariant`, the PV name, anything, and a Go `strconv.Atoi` integer (sign and leading
/// zeros allowed).
pub fn is_package_variant_name(name: &str, pv_name: &str) -> bool {
    let parts: Vec<&str> = name.split('.').collect();
    matches!(parts.as_slice(), ["PackageVariant", pv, _, n] if *pv == pv_name && n.parse::<i64>().is_ok())
}

/// Whether a pipeline entry was added by this PackageVariant. A missing or null name is not; a
/// name that is not a scalar is an error, as in Porch.
fn is_package_variant_func(item: &Node, pv_name: &str) -> Result<bool, String> {
    match item.get("name") {
        None => Ok(false),
        Some(n) if n.is_null() => Ok(false),
        Some(n) => match n.as_scalar() {
            Some(s) => Ok(is_package_variant_name(&s.value, pv_name)),
            None => Err(format!(
                "could not retrieve field name: found a {}, not a string",
                n.kind()
            )),
        },
    }
}

/// A PackageVariant function as a new pipeline entry: `name` first, then kyaml's order
/// (`image`, `configMap`, then the rest alphabetically), empty fields left out.
pub fn function_node(f: &Function, pv_name: &str, index: usize) -> Node {
    let mut v = serde_json::to_value(f).unwrap_or(Value::Null);
    if let Some(o) = v.as_object_mut() {
        o.insert(
            "name".into(),
            Value::String(generated_name(&f.name, pv_name, index)),
        );
    }
    from_json_sorted(&v)
}

/// Where the variant's functions stand in the Kptfile's pipeline after a run (for the run's
/// summary).
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct Placed {
    /// Each function of the variant: its list (`mutators`, `validators`), its index in that
    /// list, and its generated name; mutators first, in pipeline order.
    pub functions: Vec<(&'static str, usize, String)>,
    /// How many entries of this variant's from an earlier run were found (and taken out before
    /// its current ones went in).
    pub earlier: usize,
}

/// Applies the PackageVariant's `pipeline` to the Kptfile tree, its functions first (Porch's
/// placement).
pub fn apply(
    kptfile: &mut Node,
    pv_name: &str,
    pipeline: Option<&Pipeline>,
) -> Result<Placed, PipelineError> {
    apply_placed(kptfile, pv_name, pipeline, &|_, _| Ok(0))
}

/// Where the variant's functions go in a list: given the list's name and its other functions
/// (the upstream's, in order), the index to insert them at.
pub type Placement<'a> = dyn Fn(&str, &[Item]) -> Result<usize, PipelineError> + 'a;

/// [`apply`], the variant's functions inserted where `place` says (the extension's
/// `spec.pipelinePlacement`, `super::placement`).
pub fn apply_placed(
    kptfile: &mut Node,
    pv_name: &str,
    pipeline: Option<&Pipeline>,
    place: &Placement,
) -> Result<Placed, PipelineError> {
    let mut placed = Placed::default();
    let existing = kptfile.get("pipeline");
    let mut lists: Vec<(&str, Vec<Item>)> = Vec::new();
    for field in LISTS {
        let ours: &[Function] = match (pipeline, field) {
            (Some(p), "mutators") => &p.mutators,
            (Some(p), _) => &p.validators,
            (None, _) => &[],
        };
        let new: Vec<Item> = ours
            .iter()
            .enumerate()
            .map(|(i, f)| Item {
                value: function_node(f, pv_name, i),
                trivia: Trivia::default(),
            })
            .collect();
        let mut items: Vec<Item> = Vec::new();
        let old = existing
            .filter(|p| p.is_mapping())
            .and_then(|p| p.get(field));
        if let Some(old) = old {
            match old.kind() {
                Kind::Sequence(old_items) => {
                    for (j, it) in old_items.iter().enumerate() {
                        let ours = is_package_variant_func(&it.value, pv_name).map_err(|m| {
                            PipelineError {
                                field: format!("pipeline.{field}[{j}].name"),
                                message: m,
                            }
                        })?;
                        if ours {
                            placed.earlier += 1;
                        } else {
                            items.push(it.clone());
                        }
                    }
                }
                _ if old.is_null() => {}
                other => {
                    return Err(PipelineError {
                        field: format!("pipeline.{field}"),
                        message: format!("must be a list, found a {other}"),
                    })
                }
            }
        }
        if !new.is_empty() {
            let at = place(field, &items)?.min(items.len());
            placed.functions.extend(
                ours.iter()
                    .enumerate()
                    .map(|(i, f)| (field, at + i, generated_name(&f.name, pv_name, i))),
            );
            items.splice(at..at, new);
        }
        lists.push((field, items));
    }

    if lists.iter().all(|(_, l)| l.is_empty()) {
        // Porch drops the whole pipeline when neither list is left ("no dangling `mutators: []`").
        remove_if_present(kptfile, "pipeline");
        return Ok(placed);
    }
    // Decide with read-only access first, so an unchanged pipeline stays untouched.
    let reusable = existing.is_some_and(|p| p.entries().is_some_and(|e| !e.is_empty()));
    if reusable {
        let p = existing.filter(|p| p.is_mapping());
        let unchanged = lists
            .iter()
            .all(|(field, items)| match p.and_then(|p| p.get(field)) {
                None => items.is_empty(),
                Some(old) => !items.is_empty() && old.same_value(&sequence(items.clone())),
            });
        if unchanged {
            return Ok(placed);
        }
    } else {
        // Porch's UpsertMap: an empty or non-map `pipeline` is replaced by a new one at the end.
        remove_if_present(kptfile, "pipeline");
        kptfile.set("pipeline", Node::mapping());
    }
    let Some(p) = kptfile.get_mut("pipeline") else {
        return Ok(placed);
    };
    for (field, items) in lists {
        if items.is_empty() {
            remove_if_present(p, field);
        } else {
            assign_at(p, field, sequence(items));
        }
    }
    Ok(placed)
}

fn sequence(items: Vec<Item>) -> Node {
    let mut s = Node::sequence();
    if let Some(v) = s.items_mut() {
        *v = items;
    }
    s
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::yaml::{emit, parse};

    #[test]
    fn generated_names() {
        assert_eq!(
            generated_name("my-func", "my-pv", 3),
            "PackageVariant.my-pv.my-func.3"
        );
        assert_eq!(generated_name("", "my-pv", 0), "PackageVariant.my-pv..0");
    }

    #[test]
    fn recognition() {
        let yes = |y: &str, pv: &str| {
            let n = parse(y).unwrap_or_else(|_| Node::mapping());
            is_package_variant_func(&n, pv).unwrap_or(false)
        };
        assert!(yes("name: PackageVariant.my-pv.my-func.0", "my-pv"));
        assert!(!yes("otherkey: PackageVariant.my-pv.my-func.0", "my-pv"));
        assert!(!yes("name: PackageVariant.too.many.dots.0", "too"));
        assert!(!yes("name: PackageVariant.not-enough.dots", "not-enough"));
        assert!(!yes("name: noprefix.my-pv.my-func.0", "my-pv"));
        assert!(!yes(
            "name: PackageVariant.my-pv.my-func.0",
            "actually-a-different-pv"
        ));
        assert!(yes("name: PackageVariant.my-pv..0", "my-pv"));
        assert!(!yes("name: PackageVariant.my-pv.my-func.str", "my-pv"));
        // Go's Atoi: sign and leading zeros parse; empty and overflow do not.
        assert!(yes("name: PackageVariant.my-pv.f.+1", "my-pv"));
        assert!(yes("name: PackageVariant.my-pv.f.-007", "my-pv"));
        assert!(!yes("name: PackageVariant.my-pv.f.", "my-pv"));
        assert!(!yes(
            "name: PackageVariant.my-pv.f.99999999999999999999",
            "my-pv"
        ));
        let n = parse("name: {a: b}").unwrap_or_else(|_| Node::mapping());
        assert!(is_package_variant_func(&n, "x").is_err());
    }

    #[test]
    fn function_field_order() {
        let f: Function = serde_json::from_value(serde_json::json!({
            "image": "img", "tag": "t", "exec": "e", "configPath": "p",
            "configMap": {"namespace": "n", "a": "1", "name": "x"},
            "selectors": [{"annotations": {"a": "b"}, "labels": {"l": "v"}, "kind": "K",
                           "apiVersion": "v1", "namespace": "ns", "name": "nm"}],
            "exclude": [{"kind": "K"}], "name": "fn"
        }))
        .unwrap_or_default();
        let n = function_node(&f, "pv", 2);
        let src = "";
        assert_eq!(
            emit::to_string(src, &n),
            "name: PackageVariant.pv.fn.2\nimage: img\nconfigMap:\n  name: x\n  namespace: \"n\"\n  a: \"1\"\nconfigPath: p\nexclude:\n- kind: K\nexec: e\nselectors:\n- name: nm\n  namespace: ns\n  apiVersion: v1\n  kind: K\n  labels:\n    l: v\n  annotations:\n    a: b\ntag: t\n"
        );
    }
}
