//! Which items the set may read, and that each is one object a cluster could hold.
//!
//! Porch lists Repositories, PackageRevisions, PackageVariants and objectSelector targets of
//! the set's namespace from the API server: every namespaced object there has its namespace,
//! and no two share an identity. Here the items are files and stdin, so both are checked
//! before the set reads any of them:
//!
//! - an item without `metadata.namespace` may have come from any namespace: a set that names
//!   its namespace refuses it (as the PackageVariant function refuses such an in-cluster
//!   object), rather than take another namespace's Repository for its own or delete another
//!   team's PackageVariant. A set that names no namespace is in `default`, and so are items
//!   that name none, as in Porch's own tests. Built-in cluster-scoped kinds have no namespace.
//! - two items with one identity (API group, kind, namespace, name) cannot both exist in a
//!   cluster: the set would read the first and silently drop the other, so both are named.
//!
//! One pass with a hash map: linear in the items.

use super::Item;
use crate::api::package_variant::{PACKAGE_VARIANT_API_VERSION, PACKAGE_VARIANT_KIND};
use crate::api::package_variant_set::PackageVariantSet;
use crate::api::scope::{group, is_cluster_scoped};
use crate::common::fast_hash::{FastMap, FastSet};
use crate::krm::results::ResultItem;
use crate::package_variant_set::expansion::kubectl::kubectl_get;

/// Most problems of one kind reported one by one; the rest are counted in one more result.
pub const MAX_REPORTED: usize = 100;

/// Where an item is, for messages: `item 3 (repos/edge1.yaml)`, or `item 3 (no path)`.
pub fn whereabouts(item: &Item, i: usize) -> String {
    match item.path() {
        Some(p) => format!("item {i} ({p})"),
        None => format!("item {i} (no path: not from a package file)"),
    }
}

/// The `(apiVersion, kind)` of every item the set reads: Repositories, PackageRevisions,
/// PackageVariants and the kinds its objectSelectors choose from.
fn read_kinds(set: &PackageVariantSet) -> FastSet<(&str, &str)> {
    let mut kinds: FastSet<(&str, &str)> = FastSet::default();
    kinds.insert(("config.porch.kpt.dev/v1alpha1", "Repository"));
    kinds.insert(("porch.kpt.dev/v1alpha1", "PackageRevision"));
    kinds.insert(("porch.kpt.dev/v1alpha2", "PackageRevision"));
    kinds.insert((PACKAGE_VARIANT_API_VERSION, PACKAGE_VARIANT_KIND));
    for t in &set.spec.targets {
        if let Some(os) = &t.object_selector {
            kinds.insert((os.api_version.as_str(), os.kind.as_str()));
        }
    }
    kinds
}

/// Every item the set would read without knowing its namespace, and every two items of one
/// identity, as error results on the items (at most [`MAX_REPORTED`] of each, then a count).
pub fn check(set: &PackageVariantSet, items: &[Item]) -> Vec<ResultItem> {
    let written = set.metadata.namespace.as_str();
    let namespace = if written.is_empty() {
        "default"
    } else {
        written
    };
    let kinds = read_kinds(set);
    let mut out = Vec::new();
    let (mut without, mut twice) = (0usize, 0usize);
    // (group, kind, namespace, name) → item index of the first.
    let mut seen: FastMap<(&str, &str, &str, &str), usize> = FastMap::default();
    for (i, item) in items.iter().enumerate() {
        let (api_version, kind) = (item.api_version(), item.kind());
        if !kinds.contains(&(api_version, kind)) {
            continue;
        }
        let ns = match item.namespace() {
            "" if is_cluster_scoped(api_version, kind) => "",
            "" if written.is_empty() => namespace,
            "" => {
                without += 1;
                if without <= MAX_REPORTED {
                    out.push(without_namespace(item, i, namespace));
                }
                continue;
            }
            ns if ns == namespace => ns,
            _ => continue, // another namespace's: the set never sees it
        };
        // One PackageRevision may come in both versions: the upstream index compares them.
        let group = if kind == "PackageRevision" {
            api_version
        } else {
            group(api_version)
        };
        let key = (group, kind, ns, item.name());
        match seen.get(&key) {
            Some(&first) => {
                twice += 1;
                if twice <= MAX_REPORTED {
                    out.push(duplicate(items, first, i, ns));
                }
            }
            None => {
                seen.insert(key, i);
            }
        }
    }
    if without > MAX_REPORTED {
        out.push(
            ResultItem::error(format!(
                "and {} more items without metadata.namespace (only the first {MAX_REPORTED} \
                 are listed); write metadata.namespace: {namespace:?} on each",
                without - MAX_REPORTED
            ))
            .on_config(),
        );
    }
    if twice > MAX_REPORTED {
        out.push(
            ResultItem::error(format!(
                "and {} more items that repeat the identity of an earlier one (only the first \
                 {MAX_REPORTED} are listed); remove the copies",
                twice - MAX_REPORTED
            ))
            .on_config(),
        );
    }
    out
}

/// An item of a kind the set reads, without namespace, in the input of a set that names one.
fn without_namespace(item: &Item, i: usize, namespace: &str) -> ResultItem {
    let kind = item.kind();
    ResultItem::error(format!(
        "{kind} {:?} at {} has no namespace, so it cannot be told from another namespace's \
         {kind} of that name: the PackageVariantSet reads {kind} objects of namespace \
         {namespace:?} only; write metadata.namespace: {namespace:?} on it (`{}` writes it), \
         or leave it out of the input",
        item.name(),
        whereabouts(item, i),
        kubectl_get(item.api_version(), kind, namespace),
    ))
    .field("metadata.namespace")
    .on_item(i)
}

/// The later of two items with one identity, naming both.
fn duplicate(items: &[Item], first: usize, later: usize, ns: &str) -> ResultItem {
    let (a, b) = (
        items.get(first).copied().unwrap_or(Item::Absent),
        items.get(later).copied().unwrap_or(Item::Absent),
    );
    let id = if ns.is_empty() {
        format!("{:?}", b.name())
    } else {
        format!("{:?}", format!("{ns}/{}", b.name()))
    };
    let (first_at, later_at) = (whereabouts(&a, first), whereabouts(&b, later));
    ResultItem::error(format!(
        "{} {id} is given twice, at {first_at} and at {later_at}: two objects with one \
         identity (API group, kind, namespace, name) cannot both exist in a cluster, and the \
         set would read only one of them; keep the copy the cluster holds and remove the other",
        b.kind(),
    ))
    .field("metadata.name")
    .on_item(later)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::api::decode;
    use crate::package_variant_set::expansion::inputs::from_json;
    use serde_json::{json, Value};

    fn set(namespace: &str) -> PackageVariantSet {
        let mut s = json!({"metadata": {"name": "s"}, "spec": {"targets": [
            {"objectSelector": {"apiVersion": "v1", "kind": "ConfigMap"}},
            {"objectSelector": {"apiVersion": "v1", "kind": "Namespace"}}]}});
        if !namespace.is_empty() {
            s["metadata"]["namespace"] = json!(namespace);
        }
        decode(&s, "").unwrap_or_default()
    }

    fn repo(name: &str, namespace: Option<&str>, path: Option<&str>) -> Value {
        let mut r = json!({"apiVersion": "config.porch.kpt.dev/v1alpha1", "kind": "Repository",
            "metadata": {"name": name}});
        if let Some(ns) = namespace {
            r["metadata"]["namespace"] = json!(ns);
        }
        if let Some(p) = path {
            r["metadata"]["annotations"] = json!({"internal.config.kubernetes.io/path": p});
        }
        r
    }

    #[test]
    fn namespace_less_items_are_refused_by_a_set_that_names_its_namespace() {
        let items = [
            repo("edge1", None, Some("repos/edge1.yaml")),
            repo("edge2", Some("team-a"), None),
            repo("edge3", Some("team-b"), None),
            json!({"apiVersion": "v1", "kind": "Namespace", "metadata": {"name": "x"}}),
            json!({"apiVersion": "v1", "kind": "Secret", "metadata": {"name": "x"}}),
        ];
        let r = check(&set("team-a"), &from_json(&items));
        assert_eq!(r.len(), 1, "{r:?}");
        assert!(
            r[0].message.contains("repos/edge1.yaml"),
            "{}",
            r[0].message
        );
        assert!(r[0]
            .message
            .contains("write metadata.namespace: \"team-a\""));
        // A set without namespace takes them as its own, as Porch's tests do.
        assert!(check(&set(""), &from_json(&items)).is_empty());
    }

    #[test]
    fn one_identity_twice_is_refused_naming_both() {
        let items = [
            repo("edge1", Some("default"), Some("a.yaml")),
            repo("edge1", None, None),
            json!({"apiVersion": "v1", "kind": "ConfigMap", "metadata": {"name": "edge1"}}),
        ];
        let r = check(&set(""), &from_json(&items));
        assert_eq!(r.len(), 1, "{r:?}");
        assert!(
            r[0].message.contains(
                "\"default/edge1\" is given twice, at item 0 (a.yaml) and at item 1 (no path"
            ),
            "{}",
            r[0].message
        );
    }

    #[test]
    fn many_problems_are_counted_after_the_first_hundred() {
        let items: Vec<Value> = (0..150).map(|_| repo("same", None, None)).collect();
        let r = check(&set(""), &from_json(&items));
        assert_eq!(r.len(), MAX_REPORTED + 1);
        assert!(r[MAX_REPORTED].message.starts_with("and 49 more"));
    }
}
