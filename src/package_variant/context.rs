//! Package context (Porch's `ensurePackageContext`): sets and removes keys in the `data` of the
//! package's `kptfile.kpt.dev` ConfigMap (`package-context.yaml` at the package root).
//!
//! The result is Porch's (the whole map, set then remove), written as an edit of the mapping in
//! place: keys already there keep their order, comments and quoting, and a key the edit does
//! not set or remove is not touched at all (`0777` stays `0777`, `*alias` stays an alias); new
//! keys follow in kyaml's order; an equal map leaves the file untouched. Existing values are
//! read as kpt reads them, through aliases and merge keys; a key that only a merge key (`<<`)
//! brings in is overridden by an explicit key, and removed by writing the merged keys out.

use crate::krm::results::ResultItem;
use crate::package_variant::package::{Package, CONTEXT_NAME};
use crate::yaml::alias::{self, is_merge_key, Budget, Reader};
use crate::yaml::json::field_rank;
use crate::yaml::json::MAX_ALIAS_EXPANSION;
use crate::yaml::resolve::Resolved;
use crate::yaml::{Entry, Kind, Node, Trivia};
use std::collections::BTreeMap;

/// How a package gets a package context: what the message for a missing one says.
const MAKES_ONE: &str = "kpt pkg init makes one in a new package, and kpt pkg get --for-deployment \
     in a package it fetches (or add package-context.yaml: a ConfigMap named kptfile.kpt.dev, \
     annotated config.kubernetes.io/local-config: \"true\", with data.name set to the package name)";

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

/// What an edit changes in `data`, decided before anything is touched.
struct Plan {
    /// For each key of the edit's `data`, in its order: [`UNCHANGED`], [`NEW`], or the
    /// position of the key the mapping sets itself, whose value changes. Four bytes a key: a
    /// wide edit is neither copied nor referenced twice.
    set: Vec<u32>,
    /// Positions of the keys present now that go (all the mapping's own unless `write_out`).
    remove: Vec<usize>,
    /// The keys that go, by name.
    remove_keys: Vec<String>,
    /// `data` must be rebuilt as a plain mapping first: it is an alias or comes from a merge
    /// key, or a key to remove comes from a merge key.
    write_out: bool,
}

/// [`Plan::set`]: the key keeps its value (or is removed after).
const UNCHANGED: u32 = u32::MAX;
/// [`Plan::set`]: the key is new, or only a merge key brings it in.
const NEW: u32 = u32::MAX - 1;

/// Applies `edit` to the package context. Nothing to do → nothing read, and a missing context is
/// not an error.
pub fn apply(pkg: &mut Package, edit: &ContextEdit) -> Result<(), Box<ResultItem>> {
    if edit.data.is_empty() && edit.remove_keys.is_empty() {
        return Ok(());
    }
    let i = find(pkg, edit.field)?;
    let tree = pkg.tree(i)?;
    let invalid = |why: &str| {
        Box::new(
            ResultItem::error(format!(
                "PackageContext invalid data field: {why} (package context ConfigMap {CONTEXT_NAME:?}, {CONTEXT_PATH})"
            ))
            .field("data")
            .on_item(i),
        )
    };
    let r = Reader::new(tree);
    // `data` the object sets itself, or that a merge key (`<<`) brings in.
    let (written, merged) = match tree.get("data") {
        Some(w) => (w, false),
        None => match r.get(tree, "data").map_err(|e| invalid(&e))? {
            Some(w) => (w, true),
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
        },
    };
    let data = r.deref(written).map_err(|e| invalid(&e))?;
    if !data.is_mapping() {
        return Err(invalid(&format!(
            "expected a map of strings, found a {}",
            data.kind()
        )));
    }
    let plan = plan(&r, written, merged, data, edit).map_err(|e| invalid(&e))?;
    if plan.set.iter().all(|&at| at == UNCHANGED) && plan.remove_keys.is_empty() {
        return Ok(());
    }
    let mut plan = plan;
    let replacement = if plan.write_out {
        let alias = merged || matches!(written.kind(), Kind::Alias(_));
        let new_data = written_out(&r, data, &plan.remove_keys, alias).map_err(|e| invalid(&e))?;
        // Every key is the new mapping's own now, and the ones to remove are already gone.
        let own = own_keys(&Reader::new(&new_data), &new_data).map_err(|e| invalid(&e))?;
        for (k, at) in edit.data.keys().zip(&mut plan.set) {
            if *at != UNCHANGED {
                *at = own.get(k).map_or(NEW, |p| p as u32);
            }
        }
        plan.remove.clear();
        Some(new_data)
    } else {
        None
    };
    let tree = pkg.tree_mut(i)?;
    if let Some(new_data) = replacement {
        tree.set("data", new_data);
    }
    let Some(data) = tree.get_mut("data") else {
        return Ok(());
    };
    edit_in_place(data, &plan, edit);
    Ok(())
}

/// Reads the current data (every value must be a scalar) and decides what changes.
fn plan<'n>(
    r: &Reader<'n>,
    written: &'n Node,
    merged: bool,
    data: &'n Node,
    edit: &ContextEdit,
) -> Result<Plan, String> {
    let pairs = r.pairs(data)?;
    if let Some((k, _)) = pairs.iter().find(|(_, v)| !v.is_scalar()) {
        return Err(format!("the value of {k:?} is not a string"));
    }
    // Sorted tables, looked up by binary search: a wide context costs 24 bytes a key here,
    // where hash maps cost three times that (the peak of a context of a million keys).
    let current = Sorted::new(pairs);
    let own = own_keys(r, data)?;
    let mut removed: Vec<&str> = edit.remove_keys.iter().map(String::as_str).collect();
    removed.sort_unstable();
    removed.dedup();
    let set: Vec<u32> = edit
        .data
        .iter()
        .map(|(k, v)| {
            if removed.binary_search(&k.as_str()).is_ok()
                || current.get(k.as_str()).is_some_and(|n| is_string(n, v))
            {
                return UNCHANGED;
            }
            own.get(k.as_str()).map_or(NEW, |p| p as u32)
        })
        .collect();
    // Sorted already, and a subset of the removed keys: kept in that order.
    let remove_keys: Vec<String> = removed
        .iter()
        .filter(|k| current.get(k).is_some())
        .map(|k| k.to_string())
        .collect();
    let write_out = merged
        || matches!(written.kind(), Kind::Alias(_))
        || remove_keys.iter().any(|k| own.get(k).is_none());
    let remove = remove_keys.iter().filter_map(|k| own.get(k)).collect();
    Ok(Plan {
        set,
        remove,
        remove_keys,
        write_out,
    })
}

/// Keys and what they map to, sorted by key for binary search. A key given twice means its
/// last value, as a map built by inserting in order would.
struct Sorted<'n, T>(Vec<(&'n str, T)>);

impl<'n, T: Copy> Sorted<'n, T> {
    fn new(mut pairs: Vec<(&'n str, T)>) -> Self {
        // Stable: among equal keys, the last stays last.
        pairs.sort_by(|a, b| a.0.cmp(b.0));
        Sorted(pairs)
    }

    fn get(&self, key: &str) -> Option<T> {
        let end = self.0.partition_point(|(k, _)| *k <= key);
        self.0[..end]
            .last()
            .filter(|(k, _)| *k == key)
            .map(|&(_, v)| v)
    }
}

/// Whether `n` already reads as the string `v` (what assigning `v` would leave unchanged).
fn is_string(n: &Node, v: &str) -> bool {
    n.as_scalar()
        .is_some_and(|s| s.value == v && s.resolved(n.tag()) == Resolved::Str)
}

/// The keys a mapping sets itself (not through a merge key), with their positions.
fn own_keys<'n>(r: &Reader<'n>, data: &'n Node) -> Result<Sorted<'n, usize>, String> {
    let entries = data.entries().unwrap_or(&[]);
    let mut keys = Vec::with_capacity(entries.len());
    for (i, e) in entries.iter().enumerate() {
        if !is_merge_key(&e.key) {
            if let Some(s) = r.deref(&e.key)?.as_scalar() {
                keys.push((s.value.as_str(), i));
            }
        }
    }
    Ok(Sorted::new(keys))
}

/// `data` as a plain mapping: its own entries as they are (unless `data` is not the object's
/// own: an alias, or brought in by a merge key),
/// then the keys its merge keys bring in, written out (aliases expanded). Keys in `skip`
/// (sorted) are left out.
fn written_out<'n>(
    r: &Reader<'n>,
    data: &'n Node,
    skip: &[String],
    alias: bool,
) -> Result<Node, String> {
    let own = own_keys(r, data)?;
    let entries_of = data.entries().unwrap_or(&[]);
    let mut budget = Budget::new(MAX_ALIAS_EXPANSION);
    let mut entries = Vec::new();
    for (k, v) in r.pairs(data)? {
        if skip.binary_search_by(|s| s.as_str().cmp(k)).is_ok() {
            continue;
        }
        let kept = own
            .get(k)
            .map(|p| &entries_of[p])
            .filter(|e| !alias && e.key.is_scalar());
        entries.push(match kept {
            Some(e) => e.clone(),
            None => Entry {
                key: Node::string(k),
                value: alias::expanded(r, v, &mut budget, true)?,
                trivia: Trivia::default(),
            },
        });
    }
    let mut m = Node::mapping();
    if let Some(es) = m.entries_mut() {
        *es = entries;
    }
    Ok(m)
}

/// Sets and removes keys of `data` at the positions the plan found, and appends new keys.
fn edit_in_place(data: &mut Node, plan: &Plan, edit: &ContextEdit) {
    let Some(es) = data.entries_mut() else {
        return;
    };
    let mut new = 0;
    for ((_, v), &at) in edit.data.iter().zip(&plan.set) {
        match at {
            UNCHANGED => {}
            NEW => new += 1,
            p => es[p as usize].value.assign(Node::string(v.as_str())),
        }
    }
    if !plan.remove.is_empty() {
        let mut gone = vec![false; es.len()];
        for &p in &plan.remove {
            gone[p] = true;
        }
        let mut p = 0;
        es.retain(|_| {
            p += 1;
            !gone[p - 1]
        });
    }
    // New keys in kyaml's order, after every existing one: the few with a rank of their own
    // (`name`, `kind`, ...) by rank, then the rest as the edit holds them, sorted by key.
    let new_keys = || {
        edit.data
            .iter()
            .zip(&plan.set)
            .filter(|(_, &at)| at == NEW)
            .map(|(kv, _)| kv)
    };
    let mut ranked: Vec<(usize, &String, &String)> = new_keys()
        .map(|(k, v)| (field_rank(k), k, v))
        .filter(|(r, _, _)| *r != usize::MAX)
        .collect();
    ranked.sort_unstable();
    es.reserve_exact(new);
    let entry = |k: &str, v: &str| Entry {
        key: Node::string(k),
        value: Node::string(v),
        trivia: Trivia::default(),
    };
    es.extend(ranked.into_iter().map(|(_, k, v)| entry(k, v)));
    es.extend(
        new_keys()
            .filter(|(k, _)| field_rank(k) == usize::MAX)
            .map(|(k, v)| entry(k, v)),
    );
}

/// Finds the package context: the item at `package-context.yaml` (or, in a list without path
/// annotations, the only ConfigMap named `kptfile.kpt.dev`), checked as Porch checks it.
pub fn find(pkg: &Package, field: &str) -> Result<usize, Box<ResultItem>> {
    let items = pkg.root_package_items();
    let at_path: Vec<usize> = if pkg.has_no_paths() {
        items
            .iter()
            .copied()
            .filter(|&i| pkg.meta(i).kind() == "ConfigMap" && pkg.meta(i).name() == CONTEXT_NAME)
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
            "package context ConfigMap {CONTEXT_NAME:?} ({CONTEXT_PATH}) not found among the items; \
             {MAKES_ONE}"
        ))),
        [i] => {
            let m = pkg.meta(*i);
            if m.kind() != "ConfigMap" {
                Err(Box::new(
                    ResultItem::error(format!(
                        "{CONTEXT_PATH:?} does not contain kind \"ConfigMap\""
                    ))
                    .field("kind")
                    .on_item(*i),
                ))
            } else if m.name() != CONTEXT_NAME {
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
    fn new_keys_follow_in_kyaml_order() {
        let data = [
            ("zeta", "1"),
            ("spec", "s"),
            ("alpha", "a"),
            ("kind", "k"),
            ("apiVersion", "v"),
        ];
        let out = run(CTX, &data, &[]).unwrap_or_default();
        assert!(
            out.ends_with(
                "  b: 'x' # keep\n    apiVersion: v\n    kind: k\n    spec: s\n    alpha: a\n    zeta: \"1\"\n"
            ),
            "{out}"
        );
    }

    /// Only removing a key a merge key brings in still changes the data (it is written out
    /// without the key): it used to be taken for nothing to do.
    #[test]
    fn removing_only_a_merged_key_writes_the_data_out() {
        let ctx = "apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: kptfile.kpt.dev\ndata:\n  <<: {a: x, b: y}\n  name: example\n";
        let out = run(ctx, &[], &["a"]).unwrap_or_default();
        assert!(
            out.ends_with("data:\n    name: example\n    b: y\n"),
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
            Err(format!("package context ConfigMap \"kptfile.kpt.dev\" (package-context.yaml) not found among the items; {MAKES_ONE}"))
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
