//! Resources the variant owns: the extension's `spec.injection` entries without a
//! `bindingPoint` add a whole resource (a `directResource`, or a `packageResource` of another
//! package revision) to the package, the way Porch's PackageVariant owns the functions it puts
//! in the Kptfile pipeline.
//!
//! Ownership is the annotation [`OWNER_ANNOTATION`] (the variant's name) on the resource: the
//! next run updates an owned resource in place and removes it when its entry is gone. A
//! resource the variant does not own is never overwritten: that is an error, and nothing
//! changes.

use crate::api::identity;
use crate::api::names::cut_with_hash;
use crate::api::package_variant::InjectionEntry;
use crate::krm::object::{LEGACY_PATH_ANNOTATION, LOCAL_CONFIG_ANNOTATION, PATH_ANNOTATION};
use crate::krm::results::ResultItem;
use crate::package_variant::package::Package;
use crate::package_variant::package_resource::{Lookup, Packages};
use crate::package_variant::PackageVariant;
use crate::yaml::json::from_json;
use crate::yaml::{to_json, Node};
use serde_json::{Map, Value};
use std::collections::{HashMap, HashSet};

/// Marks a resource as owned by the PackageVariant it names.
pub const OWNER_ANNOTATION: &str = crate::api::annotations::OWNER.key;
/// The directory owned resources are written to.
pub const OWNED_DIR: &str = "injected";

/// What the owned resources change: new items, and items to leave out.
#[derive(Debug, Default)]
pub struct Outcome {
    pub added: Vec<Node>,
    pub removed: Vec<usize>,
    pub results: Vec<ResultItem>,
}

/// (kind, namespace, name) of a resource.
type Key = (String, String, String);

fn at(i: usize) -> String {
    format!("spec.injection[{i}]")
}

fn config_error(message: String, field: String) -> ResultItem {
    ResultItem::error(message).field(field).on_config()
}

/// The longest file name (one path component) the common file systems take: ext4, xfs,
/// btrfs and tmpfs all stop at 255 bytes, and kpt cannot write a longer one.
pub const MAX_FILE_NAME_BYTES: usize = 255;

/// The file an owned resource is written to: `injected/<kind>-<name>.yaml` (lower-case kind;
/// `<namespace>-` before the name when it has one). The parts are checked first
/// ([`identity::check_owned`]): none holds a `/`, so the file stays directly in `injected/`.
/// A file name over [`MAX_FILE_NAME_BYTES`] (a 253-byte name, a 63-byte namespace) is cut as
/// Porch cuts long names, its first bytes, `-` and a hash of the whole
/// ([`cut_with_hash`]): readable, and the same every run. A later run finds the file's
/// resource by its kind, namespace and name, never by the file name.
pub fn owned_path(kind: &str, namespace: &str, name: &str) -> String {
    let stem = cut_with_hash(
        &stem(kind, namespace, name),
        MAX_FILE_NAME_BYTES - ".yaml".len(),
    );
    format!("{OWNED_DIR}/{stem}.yaml")
}

/// `<kind>-<namespace>-<name>`, lower-case kind, no namespace part without one.
fn stem(kind: &str, namespace: &str, name: &str) -> String {
    let ns = if namespace.is_empty() {
        String::new()
    } else {
        format!("{namespace}-")
    };
    format!("{}-{ns}{name}", kind.to_lowercase())
}

/// The file of a resource whose [`owned_path`] another identity would take too (ConfigMap
/// `b-c` in namespace `a` and ConfigMap `a-b-c`; `ConfigMap` and `Configmap` `x`):
/// `injected/<kind>-<namespace>-<name>-<hash>.yaml`, the hash the first 8 hex digits of the
/// SHA-1 of the whole identity (apiVersion, kind, namespace, name, each ended by a line
/// break, which none of them holds), so that it is the same every run and differs between
/// identities.
pub fn owned_path_hashed(api_version: &str, kind: &str, namespace: &str, name: &str) -> String {
    let identity = format!("{api_version}\n{kind}\n{namespace}\n{name}\n");
    let hash = sha1_smol::Sha1::from(identity).digest().to_string();
    let hash8 = hash.get(..8).unwrap_or(&hash);
    let max = MAX_FILE_NAME_BYTES - ".yaml".len() - 1 - hash8.len();
    let stem = cut_with_hash(&stem(kind, namespace, name), max);
    format!("{OWNED_DIR}/{stem}-{hash8}.yaml")
}

/// `ConfigMap "extra"`: a resource as messages name it, its name quoted as every name is (it
/// may hold characters a message must not print raw).
fn named(kind: &str, name: &str) -> String {
    format!("{kind} {name:?}")
}

/// [`named`] of item `i`.
fn named_item(pkg: &Package, i: usize) -> String {
    let m = pkg.meta(i);
    named(m.kind(), m.name())
}

fn meta_str<'v>(v: &'v Value, pointer: &str) -> &'v str {
    v.pointer(pointer).and_then(Value::as_str).unwrap_or("")
}

/// kpt's bookkeeping annotations (file, index, ids, and the upstream identifier `kpt pkg
/// update` adds): kept from the existing item, never part of what the variant owns. kpt merges
/// a step's output back by its round-trip id, `internal.config.kubernetes.io/kpt-resource-id`
/// since kptdev/kpt fe84ac7b9 (#4663, kpt v1.0), `internal.config.k8s.io/kpt-resource-id`
/// before: an item that lost it would be taken as deleted and added anew, so both prefixes.
fn is_kpt_annotation(key: &str) -> bool {
    key != LOCAL_CONFIG_ANNOTATION
        && (key.starts_with("config.kubernetes.io/")
            || key.starts_with("internal.config.kubernetes.io/")
            || key.starts_with("config.k8s.io/")
            || key.starts_with("internal.config.k8s.io/")
            || key.starts_with("internal.kpt.dev/"))
}

/// The resource of each owned entry, with the owner annotation, in entry order.
/// An owned entry's resource: its value, or, when its package revision is not among the items
/// this time, the kind and name of the owned resource to keep as it is.
enum Wanted {
    Value(Value),
    Keep {
        kind: String,
        name: String,
        why: String,
    },
}

fn desired(
    pkg: &mut Package,
    pv: &PackageVariant,
    owned: &[usize],
    in_cluster: &[usize],
) -> Result<Vec<(usize, Wanted)>, Vec<ResultItem>> {
    let entries: &[InjectionEntry] = &pv.spec.injection;
    let mut errors = Vec::new();
    let mut out = Vec::new();
    let mut packages = None;
    for &i in owned {
        let e = &entries[i];
        // An entry without its identity was refused with the spec (`crate::api::variant_rules`).
        let value = if let Some(d) = &e.direct_resource {
            (d.clone(), "directResource", String::new())
        } else if let Some(src) = &e.package_resource {
            let packages = packages.get_or_insert_with(|| Packages::new(pkg, in_cluster, pv));
            match packages
                .find(pkg, src, &src.api_version, &src.kind)
                .map_err(|e| vec![*e])?
            {
                Lookup::Found(f) => (
                    f.value,
                    "packageResource",
                    format!(
                        "{} {:?} of package {}/{} revision {}",
                        src.kind, src.name, src.repo, src.package, f.revision
                    ),
                ),
                Lookup::Missing(m) => {
                    out.push((
                        i,
                        Wanted::Keep {
                            kind: src.kind.clone(),
                            name: src.name.clone(),
                            why: m,
                        },
                    ));
                    continue;
                }
            }
        } else {
            // The spec's rules refused an entry without a source, or a clusterResource without
            // a point.
            continue;
        };
        let (mut value, source, from) = value;
        // Its kind, namespace and name become a file name: checked before anything is written.
        let problems = identity::check_owned(&value, i, source, &from);
        if !problems.is_empty() {
            errors.extend(
                problems
                    .into_iter()
                    .map(|p| ResultItem::error(p.message).field(p.field).on_config()),
            );
            continue;
        }
        if let Some(meta) = value.get_mut("metadata").and_then(Value::as_object_mut) {
            let annotations = meta
                .entry("annotations")
                .or_insert_with(|| Value::Object(Map::new()));
            if !annotations.is_object() {
                *annotations = Value::Object(Map::new());
            }
            if let Some(a) = annotations.as_object_mut() {
                // What another package's files carried about where they lived is not ours.
                a.retain(|k, _| !is_kpt_annotation(k));
                a.insert(OWNER_ANNOTATION.into(), Value::String(pv.name.clone()));
            }
        }
        out.push((i, Wanted::Value(value)));
    }
    if errors.is_empty() {
        Ok(out)
    } else {
        Err(errors)
    }
}

fn key_of(v: &Value) -> Key {
    (
        meta_str(v, "/kind").to_string(),
        meta_str(v, "/metadata/namespace").to_string(),
        meta_str(v, "/metadata/name").to_string(),
    )
}

/// Adds, updates and removes the variant's owned resources. `owned` are the indexes of the
/// entries without a binding point.
pub fn apply(
    pkg: &mut Package,
    pv: &PackageVariant,
    owned: &[usize],
    in_cluster: &[usize],
) -> Result<Outcome, Vec<ResultItem>> {
    let mut outcome = Outcome::default();
    let wanted = desired(pkg, pv, owned, in_cluster)?;
    // Existing package items by identity and by path; which of them this variant owns.
    let items = pkg.root_package_items();
    let mut by_key: HashMap<Key, usize> = HashMap::new();
    let mut by_path: HashMap<String, usize> = HashMap::new();
    for &i in &items {
        let m = pkg.meta(i);
        let key = (
            m.kind().to_string(),
            m.namespace().unwrap_or_default().to_string(),
            m.name().to_string(),
        );
        by_key.entry(key).or_insert(i);
        if let Some(p) = m.path() {
            by_path.entry(p.to_string()).or_insert(i);
        }
    }
    let ours = |pkg: &Package, i: usize| pkg.meta(i).annotation(OWNER_ANNOTATION) == Some(&pv.name);
    let mut errors = Vec::new();
    let mut kept: std::collections::HashSet<usize> = std::collections::HashSet::new();
    // This variant's owned items by (kind, name), for entries whose source is missing.
    let mut owned_by_name: HashMap<(String, String), usize> = HashMap::new();
    for &j in &items {
        if ours(pkg, j) {
            let m = pkg.meta(j);
            owned_by_name
                .entry((m.kind().to_string(), m.name().to_string()))
                .or_insert(j);
        }
    }
    // Items this variant owns that an entry names exactly: never taken back for another.
    let claimed: HashSet<usize> = wanted
        .iter()
        .filter_map(|(_, w)| match w {
            Wanted::Value(v) => by_key.get(&key_of(v)).copied(),
            Wanted::Keep { .. } => None,
        })
        .filter(|&j| ours(pkg, j))
        .collect();
    // This variant's items by (kind, name), all of them, in item order: one whose namespace
    // another function changed is found here.
    let mut ours_by_name: HashMap<(&str, &str), Vec<usize>> = HashMap::new();
    for &j in &items {
        if ours(pkg, j) && !claimed.contains(&j) {
            let m = pkg.rl.meta(j);
            ours_by_name
                .entry((m.kind(), m.name()))
                .or_default()
                .push(j);
        }
    }
    let ambiguous = ambiguous_ownership(pkg, pv, &items, &wanted);
    if !ambiguous.is_empty() {
        return Err(ambiguous);
    }
    // The identities each entry's plain file name would be taken by: a name two of them would
    // take is hashed for every new one (checked against this run's entries, not only against
    // the files already there).
    let mut plain_claims: HashMap<String, HashSet<Key>> = HashMap::new();
    for (_, w) in &wanted {
        if let Wanted::Value(v) = w {
            let key = key_of(v);
            plain_claims
                .entry(owned_path(&key.0, &key.1, &key.2))
                .or_default()
                .insert(key);
        }
    }
    // The files this run adds.
    let mut new_paths: HashSet<String> = HashSet::new();
    let mut seen: HashMap<Key, usize> = HashMap::new();
    for (i, wanted) in wanted {
        let value = match wanted {
            Wanted::Value(v) => v,
            Wanted::Keep { kind, name, why } => {
                // The source is not among the items this run: an owned resource of that kind
                // and name stays as it is; without one there is nothing to add.
                match owned_by_name.get(&(kind.clone(), name.clone())).copied() {
                    Some(j) => {
                        kept.insert(j);
                        outcome.results.push(
                            ResultItem::warning(format!(
                                "kept {} ({}) as it is: {why}",
                                named(&kind, &name),
                                pkg.location(j)
                            ))
                            .on_item(j),
                        );
                    }
                    None => errors.push(config_error(
                        format!("cannot add {} to the package: {why}", named(&kind, &name)),
                        format!("{}.packageResource", at(i)),
                    )),
                }
                continue;
            }
        };
        let key = key_of(&value);
        if let Some(first) = seen.insert(key.clone(), i) {
            errors.push(config_error(
                format!(
                    "adds {} again (spec.injection[{first}] adds it): one entry per resource",
                    named(&key.0, &key.2)
                ),
                at(i),
            ));
            continue;
        }
        let plain = owned_path(&key.0, &key.1, &key.2);
        let describe = named(&key.0, &key.2);
        match by_key.get(&key).copied() {
            Some(item) if ours(pkg, item) => {
                kept.insert(item);
                if update(pkg, item, value).map_err(|e| vec![*e])? {
                    outcome.results.push(
                        ResultItem::info(format!(
                            "updated {describe} ({}), owned by PackageVariant {:?} \
                             (spec.injection[{i}])",
                            pkg.location(item),
                            pv.name
                        ))
                        .on_item(item),
                    );
                }
            }
            Some(item) => errors.push(collision(pkg, pv, item, i)),
            None => {
                // Ours under another namespace (a function such as set-namespace set it): the
                // variant takes it back as the entry says.
                let moved = ours_by_name
                    .get(&(key.0.as_str(), key.2.as_str()))
                    .and_then(|js| js.iter().copied().find(|j| !kept.contains(j)));
                if let Some(item) = moved {
                    kept.insert(item);
                    let was = pkg.meta(item).namespace().unwrap_or_default().to_string();
                    let location = pkg.location(item);
                    update(pkg, item, value).map_err(|e| vec![*e])?;
                    outcome.results.push(
                        ResultItem::info(format!(
                            "took back {describe} ({location}), owned by PackageVariant {:?}: \
                             its namespace is {was:?} (another function set it), \
                             spec.injection[{i}] {}; written as the entry says",
                            pv.name,
                            if key.1.is_empty() {
                                "gives it no namespace".to_string()
                            } else {
                                format!("writes {:?}", key.1)
                            }
                        ))
                        .on_item(item),
                    );
                    continue;
                }
                // A file of this variant's at the plain name, or another entry's identity
                // taking it too: the hashed name. Another's file there is never overwritten.
                let shared = plain_claims.get(&plain).is_some_and(|keys| keys.len() > 1)
                    || new_paths.contains(&plain);
                let path = match by_path.get(&plain).copied() {
                    Some(item) if !ours(pkg, item) => {
                        errors.push(collision(pkg, pv, item, i));
                        continue;
                    }
                    Some(_) => {
                        owned_path_hashed(meta_str(&value, "/apiVersion"), &key.0, &key.1, &key.2)
                    }
                    None if shared => {
                        owned_path_hashed(meta_str(&value, "/apiVersion"), &key.0, &key.1, &key.2)
                    }
                    None => plain,
                };
                if let Some(&item) = by_path.get(&path) {
                    errors.push(collision(pkg, pv, item, i));
                    continue;
                }
                if !new_paths.insert(path.clone()) {
                    errors.push(config_error(
                        format!(
                            "adds {describe} to the package as {path:?}, which another entry \
                             of spec.injection adds a resource as too: rename one of them"
                        ),
                        at(i),
                    ));
                    continue;
                }
                outcome.results.push(
                    ResultItem::info(format!(
                        "added {describe} to the package ({path}), owned by PackageVariant \
                         {:?} (spec.injection[{i}])",
                        pv.name
                    ))
                    .field(at(i))
                    .on_config(),
                );
                outcome.added.push(new_item(value, &path));
            }
        }
    }
    if !errors.is_empty() {
        return Err(errors);
    }
    for &i in &items {
        if ours(pkg, i) && !kept.contains(&i) {
            outcome.results.push(
                ResultItem::info(format!(
                    "removed {} ({}): PackageVariant {:?} owns it and no entry of \
                     spec.injection adds it any more",
                    named_item(pkg, i),
                    pkg.location(i),
                    pv.name
                ))
                .on_item(i),
            );
            outcome.removed.push(i);
        }
    }
    Ok(outcome)
}

/// More items this variant owns of one kind and name than entries adding that kind and name
/// (two files claiming `ConfigMap/extra`, in two namespaces): which one an entry means cannot
/// be known, and taking back one while removing the other would be a guess. An error naming
/// them all, on the first such entry.
fn ambiguous_ownership(
    pkg: &Package,
    pv: &PackageVariant,
    items: &[usize],
    wanted: &[(usize, Wanted)],
) -> Vec<ResultItem> {
    // (first entry, entries) by (kind, name).
    let mut entries: HashMap<(&str, &str), (usize, usize)> = HashMap::new();
    for (i, w) in wanted {
        let kind_name = match w {
            Wanted::Value(v) => (meta_str(v, "/kind"), meta_str(v, "/metadata/name")),
            Wanted::Keep { kind, name, .. } => (kind.as_str(), name.as_str()),
        };
        entries.entry(kind_name).or_insert((*i, 0)).1 += 1;
    }
    let mut claimants: HashMap<(&str, &str), Vec<usize>> = HashMap::new();
    for &j in items {
        let m = pkg.rl.meta(j);
        if m.annotation(OWNER_ANNOTATION) == Some(&pv.name)
            && entries.contains_key(&(m.kind(), m.name()))
        {
            claimants.entry((m.kind(), m.name())).or_default().push(j);
        }
    }
    let mut errors: Vec<(usize, ResultItem)> = Vec::new();
    for (kind_name, js) in claimants {
        let (first, count) = entries[&kind_name];
        if js.len() <= count {
            continue;
        }
        let which: Vec<String> = js
            .iter()
            .map(|&j| {
                let ns = pkg.meta(j).namespace().unwrap_or_default().to_string();
                let ns = if ns.is_empty() {
                    "no namespace".to_string()
                } else {
                    format!("namespace {ns:?}")
                };
                format!("{} ({ns})", pkg.location(j))
            })
            .collect();
        let entries_say = if count == 1 {
            format!("spec.injection[{first}] adds one")
        } else {
            format!("{count} entries add it (the first is spec.injection[{first}])")
        };
        errors.push((
            first,
            config_error(
                format!(
                    "{} is claimed by {} resources PackageVariant {:?} owns: {}; {entries_say}, \
                     and which file it means cannot be known: remove the extra copies from the \
                     package (or their annotation {OWNER_ANNOTATION})",
                    named(kind_name.0, kind_name.1),
                    js.len(),
                    pv.name,
                    which.join(" and ")
                ),
                at(first),
            ),
        ));
    }
    errors.sort_by_key(|(i, _)| *i);
    errors.into_iter().map(|(_, e)| e).collect()
}

/// The error for a resource the variant would overwrite without owning it.
fn collision(pkg: &Package, pv: &PackageVariant, item: usize, i: usize) -> ResultItem {
    let owner = pkg
        .meta(item)
        .annotation(OWNER_ANNOTATION)
        .map_or(String::new(), |o| {
            format!(" (it is owned by PackageVariant {o:?})")
        });
    ResultItem::error(format!(
        "spec.injection[{i}] would overwrite {} ({}), which PackageVariant {:?} does not \
         own{owner}: a variant never overwrites what it does not own; rename the resource in \
         the entry, or remove {} from the package (or add the annotation {OWNER_ANNOTATION}: \
         {:?} to hand it over)",
        named_item(pkg, item),
        pkg.location(item),
        pv.name,
        pkg.location(item),
        pv.name
    ))
    .field("metadata.name")
    .on_item(item)
}

/// A new item at `path`.
fn new_item(mut value: Value, path: &str) -> Node {
    if let Some(a) = value
        .pointer_mut("/metadata/annotations")
        .and_then(Value::as_object_mut)
    {
        a.insert(LEGACY_PATH_ANNOTATION.into(), Value::String(path.into()));
        a.insert(PATH_ANNOTATION.into(), Value::String(path.into()));
    }
    from_json(&value)
}

/// Makes the owned item `item` be `value` (kpt's annotations kept from the item); true when it
/// changed.
fn update(pkg: &mut Package, item: usize, mut value: Value) -> Result<bool, Box<ResultItem>> {
    let old = to_json(pkg.tree(item)?).map_err(|e| {
        Box::new(ResultItem::error(format!("cannot read the owned resource: {e}")).on_item(item))
    })?;
    let kpt: Vec<(String, Value)> = old
        .pointer("/metadata/annotations")
        .and_then(Value::as_object)
        .into_iter()
        .flatten()
        .filter(|(k, _)| is_kpt_annotation(k))
        .map(|(k, v)| (k.clone(), v.clone()))
        .collect();
    if let Some(a) = value
        .pointer_mut("/metadata/annotations")
        .and_then(Value::as_object_mut)
    {
        a.extend(kpt);
    }
    if old == value {
        return Ok(false);
    }
    *pkg.tree_mut(item)? = from_json(&value);
    Ok(true)
}
