//! Package context (Porch's `ensurePackageContext`): sets and removes keys in the `data` of the
//! package's `kptfile.kpt.dev` ConfigMap (`package-context.yaml` at the package root).
//!
//! The new `data` is built as Porch builds it (the whole map, set then remove) and assigned with
//! kyaml's formatting rules: keys already there keep their order, comments and quoting; new keys
//! follow in Porch's order; an equal map leaves the file untouched.

use crate::krm::results::ResultItem;
use crate::package_variant::package::{assign_at, Package};
use crate::yaml::{from_json_sorted, to_json};
use serde_json::Value;
use std::collections::BTreeMap;

/// `metadata.name` of the package context ConfigMap.
pub const CONTEXT_NAME: &str = "kptfile.kpt.dev";
/// Path of the package context file, relative to the package root.
pub const CONTEXT_PATH: &str = "package-context.yaml";

/// What to do to the context, and where in the functionConfig it was asked for (for results).
pub struct ContextEdit<'e> {
    /// Keys to set (sorted, as Go iterates them after sorting in its typed conversion).
    pub data: &'e BTreeMap<String, String>,
    /// Keys to remove after setting.
    pub remove_keys: &'e [String],
    /// functionConfig field that asked for the edit, e.g. `spec.packageContext`.
    pub field: &'e str,
}

/// Applies `edit` to the package context. Nothing to do → nothing read, and a missing context is
/// not an error.
pub fn apply(pkg: &mut Package, edit: &ContextEdit) -> Result<(), Box<ResultItem>> {
    if edit.data.is_empty() && edit.remove_keys.is_empty() {
        return Ok(());
    }
    let i = find(pkg, edit.field)?;
    let tree = pkg.tree(i)?;
    let data = match tree.get("data") {
        None => {
            return Err(Box::new(
                ResultItem::error(format!(
                    "PackageContext no data field found: the package context ConfigMap \
                     {CONTEXT_NAME:?} ({CONTEXT_PATH}) needs a data field; add data: {{}} to it"
                ))
                .field("data")
                .on_item(i),
            ))
        }
        Some(d) => d,
    };
    let invalid = |why: &str| {
        Box::new(
            ResultItem::error(format!(
                "PackageContext invalid data field: {why} (package context ConfigMap {CONTEXT_NAME:?}, {CONTEXT_PATH})"
            ))
            .field("data")
            .on_item(i),
        )
    };
    if !data.is_mapping() {
        return Err(invalid(&format!(
            "expected a map of strings, found a {}",
            data.kind()
        )));
    }
    let mut map = match to_json(data) {
        Ok(Value::Object(m)) => m,
        Ok(_) => return Err(invalid("expected a map of strings")),
        Err(e) => return Err(invalid(&e)),
    };
    if let Some((k, _)) = map.iter().find(|(_, v)| v.is_object() || v.is_array()) {
        return Err(invalid(&format!("the value of {k:?} is not a string")));
    }
    for (k, v) in edit.data {
        map.insert(k.clone(), Value::String(v.clone()));
    }
    for k in edit.remove_keys {
        map.shift_remove(k);
    }
    // assign_at reads before it writes: equal data leaves the file untouched.
    assign_at(
        pkg.tree_mut(i)?,
        "data",
        from_json_sorted(&Value::Object(map)),
    );
    Ok(())
}

/// Finds the package context: the item at `package-context.yaml` (or, in a list without path
/// annotations, the only ConfigMap named `kptfile.kpt.dev`), checked as Porch checks it.
pub fn find(pkg: &Package, field: &str) -> Result<usize, Box<ResultItem>> {
    let items = pkg.root_package_items();
    let at_path: Vec<usize> = if pkg.has_no_paths() {
        items
            .iter()
            .copied()
            .filter(|&i| pkg.meta(i).kind == "ConfigMap" && pkg.meta(i).name == CONTEXT_NAME)
            .collect()
    } else {
        items
            .iter()
            .copied()
            .filter(|&i| pkg.meta(i).path() == Some(CONTEXT_PATH))
            .collect()
    };
    let fail = |msg: String| Box::new(ResultItem::error(msg).field(field).on_config());
    match at_path.as_slice() {
        [] => Err(fail(format!(
            "package context ConfigMap {CONTEXT_NAME:?} ({CONTEXT_PATH}) not found among the items"
        ))),
        [i] => {
            let m = pkg.meta(*i);
            if m.kind != "ConfigMap" {
                Err(Box::new(
                    ResultItem::error(format!(
                        "{CONTEXT_PATH:?} does not contain kind \"ConfigMap\""
                    ))
                    .field("kind")
                    .on_item(*i),
                ))
            } else if m.name != CONTEXT_NAME {
                Err(Box::new(
                    ResultItem::error(format!(
                        "{CONTEXT_PATH:?} does not contain resource named {CONTEXT_NAME:?}"
                    ))
                    .field("metadata.name")
                    .on_item(*i),
                ))
            } else {
                Ok(*i)
            }
        }
        many => Err(fail(format!(
            "{CONTEXT_PATH:?} must hold exactly one object, found {}",
            many.len()
        ))),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::krm::resource_list::ResourceList;

    fn run(ctx: &str, data: &[(&str, &str)], remove: &[&str]) -> Result<String, String> {
        let src = format!(
            "apiVersion: config.kubernetes.io/v1\nkind: ResourceList\nitems:\n- {}",
            ctx.replace('\n', "\n  ").trim_end()
        );
        let rl = ResourceList::parse(&src).map_err(|e| e.0)?;
        let mut pkg = Package::new(&rl, None);
        let data: BTreeMap<String, String> = data
            .iter()
            .map(|(k, v)| (k.to_string(), v.to_string()))
            .collect();
        let remove: Vec<String> = remove.iter().map(|k| k.to_string()).collect();
        let edit = ContextEdit {
            data: &data,
            remove_keys: &remove,
            field: "spec.packageContext",
        };
        apply(&mut pkg, &edit).map_err(|e| e.message)?;
        let changes = pkg.into_changes();
        Ok(rl.emit(&changes, &[]))
    }

    const CTX: &str = "apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: kptfile.kpt.dev\ndata:\n  name: example\n  b: 'x' # keep\n";

    #[test]
    fn nothing_to_do_reads_nothing() {
        assert!(run(
            "apiVersion: v1\nkind: Secret\nmetadata:\n  name: s\n",
            &[],
            &[]
        )
        .is_ok());
    }

    #[test]
    fn set_then_remove_keeps_order_and_quoting() {
        let out = run(CTX, &[("a", "1"), ("b", "y"), ("z", "z")], &["z"]).unwrap_or_default();
        assert!(
            out.ends_with("data:\n    name: example\n    b: 'y' # keep\n    a: \"1\"\n"),
            "{out}"
        );
    }

    #[test]
    fn equal_data_leaves_the_item_untouched() {
        let out = run(CTX, &[("b", "x")], &["missing"]).unwrap_or_default();
        assert!(out.ends_with("  b: 'x' # keep\n"), "{out}");
    }

    #[test]
    fn missing_context_or_data_is_an_error_with_work() {
        assert_eq!(
            run("apiVersion: v1\nkind: Secret\nmetadata:\n  name: s\n", &[("a", "b")], &[]),
            Err("package context ConfigMap \"kptfile.kpt.dev\" (package-context.yaml) not found among the items".into())
        );
        assert_eq!(
            run("apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: kptfile.kpt.dev\n", &[], &["a"]),
            Err("PackageContext no data field found: the package context ConfigMap \"kptfile.kpt.dev\" (package-context.yaml) needs a data field; add data: {} to it".into())
        );
        assert!(run(
            "apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: kptfile.kpt.dev\ndata:\n",
            &[("a", "b")],
            &[]
        )
        .is_err_and(|e| e.contains("invalid data field")));
    }
}
