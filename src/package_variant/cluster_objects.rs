//! The trust model of config injection: which items marked `config.porch.kpt.dev/in-cluster`
//! count as cluster objects.
//!
//! In Porch, injection only ever reads the cluster. Here cluster copies come in as items, and
//! a blueprint author writes every file of the upstream package: a file of theirs marked
//! in-cluster must never stand in for (or win over) the deployer's copy of a cluster object.
//! So a marked item counts only when kpt writes it to no file (no path annotation: it came
//! through stdin) or when it sits at a path the deployer names on the PackageVariant
//! ([`CLUSTER_OBJECTS_ANNOTATION`]). Any other marked item, an unmarked item at a named path,
//! and two cluster objects with one identity are errors; a named path that holds nothing is a
//! warning. Paths are read as kpt writes them, never as a file says ([`super::provenance`]).
//! A copy kept in a file must be marked `config.kubernetes.io/local-config: "true"`, or a
//! render leaves a deployable copy of the cluster's own object in the package: a warning.
//! Cost: one pass over the items and one hash lookup per path prefix.

use crate::api::annotations::CLUSTER_OBJECTS;
use crate::krm::object::{ObjectMeta, LOCAL_CONFIG_ANNOTATION};
use crate::krm::results::{summarized, ResultItem, LISTED};
use crate::package_variant::package::{Package, IN_CLUSTER_ANNOTATION};
use std::collections::{HashMap, HashSet};

/// Annotation on the PackageVariant naming where the deployer keeps cluster copies in the
/// package: comma-separated file paths relative to the package root (`in-cluster/objects.yaml`)
/// or directories ending in `/` (`in-cluster/`).
pub const CLUSTER_OBJECTS_ANNOTATION: &str = CLUSTER_OBJECTS.key;

/// Field path of [`CLUSTER_OBJECTS_ANNOTATION`], for results about it.
pub const CLUSTER_OBJECTS_FIELD: &str =
    "metadata.annotations[package-variant.fn.kpt.dev/cluster-objects]";

/// Field path of the in-cluster mark, for results about a marked item.
const IN_CLUSTER_FIELD: &str = "metadata.annotations[config.porch.kpt.dev/in-cluster]";

/// Field path of the local-config mark.
const LOCAL_CONFIG_FIELD: &str = "metadata.annotations[config.kubernetes.io/local-config]";

/// The places the deployer names for cluster copies.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct NamedPaths {
    /// Entries as written, in order (for the warning about one that matches nothing).
    entries: Vec<String>,
    files: HashSet<String>,
    /// Directories, with their trailing `/`.
    dirs: HashSet<String>,
}

impl NamedPaths {
    /// Reads the annotation's value from the PackageVariant's metadata (none: no named paths).
    /// An entry that is not a clean relative path is an error on the annotation.
    pub fn from_meta(meta: ObjectMeta<'_>) -> Result<NamedPaths, Box<ResultItem>> {
        match meta.annotation(CLUSTER_OBJECTS.key) {
            None => Ok(NamedPaths::default()),
            Some(value) => NamedPaths::parse(value).map_err(|message| {
                Box::new(
                    ResultItem::error(message)
                        .field(CLUSTER_OBJECTS_FIELD)
                        .on_config(),
                )
            }),
        }
    }

    /// Parses `a.yaml, dir/` into its entries.
    pub fn parse(value: &str) -> Result<NamedPaths, String> {
        let mut named = NamedPaths::default();
        for raw in value.split(',') {
            let entry = raw.trim();
            check_entry(entry)?;
            if named.entries.iter().any(|e| e == entry) {
                continue;
            }
            if entry.ends_with('/') {
                named.dirs.insert(entry.to_string());
            } else {
                named.files.insert(entry.to_string());
            }
            named.entries.push(entry.to_string());
        }
        Ok(named)
    }

    /// True when the deployer names nothing.
    pub fn is_empty(&self) -> bool {
        self.entries.is_empty()
    }

    /// The entry that names `path` (a file path relative to the package root), if any: the
    /// file itself, else its nearest named directory.
    fn entry_for(&self, path: &str) -> Option<&str> {
        if let Some(f) = self.files.get(path) {
            return Some(f);
        }
        // Every directory prefix of the path, nearest first: one lookup per `/`.
        path.rmatch_indices('/')
            .find_map(|(i, _)| self.dirs.get(&path[..=i]))
            .map(String::as_str)
    }
}

/// An entry must be a path relative to the package root as kpt writes it: not empty, not
/// absolute, no `.`/`..`/empty segments, no backslash.
fn check_entry(entry: &str) -> Result<(), String> {
    let fix = "write comma-separated paths relative to the package root, as kpt writes them \
               in internal.config.kubernetes.io/path: a file (in-cluster/objects.yaml) or a \
               directory ending in / (in-cluster/)";
    let why = if entry.is_empty() {
        Some("an entry is empty".to_string())
    } else if entry.starts_with('/') {
        Some(format!("{entry:?} is absolute"))
    } else if entry.contains('\\') {
        Some(format!("{entry:?} holds a backslash"))
    } else if entry
        .trim_end_matches('/')
        .split('/')
        .any(|s| s.is_empty() || s == "." || s == "..")
    {
        Some(format!("{entry:?} holds an empty, . or .. segment"))
    } else {
        None
    };
    match why {
        Some(why) => Err(format!(
            "annotation {CLUSTER_OBJECTS_ANNOTATION}: {why}; {fix}"
        )),
        None => Ok(()),
    }
}

/// Identity of a cluster object: group, kind, namespace (the PackageVariant's when it has
/// none), name. Two items with one identity cannot both exist in a cluster.
type Identity<'m> = (&'m str, &'m str, &'m str, &'m str);

/// The items that count as cluster objects, in item order, and the warnings (copies in a file
/// not marked local-config, named paths that hold nothing); or the errors (a marked package
/// file at an unnamed path, an unmarked item at a named path, two cluster objects with one
/// identity), in item order, followed by those warnings.
pub fn trusted(
    pkg: &Package,
    named: &NamedPaths,
    pv_namespace: &str,
) -> Result<(Vec<usize>, Vec<ResultItem>), Vec<ResultItem>> {
    let layout = pkg.layout();
    let mut errors = Vec::new();
    let mut used_entries: HashSet<&str> = HashSet::new();
    let mut out = Vec::new();
    let mut seen: HashMap<Identity, usize> = HashMap::new();
    let mut not_local = Vec::new();
    for i in (0..pkg.len()).filter(|&i| pkg.meta(i).is_object && !pkg.is_config_item(i)) {
        let m = pkg.meta(i);
        let marked = pkg.is_in_cluster(i);
        let path = layout.root_relative_path(m);
        let entry = path.as_deref().and_then(|p| named.entry_for(p));
        if let Some(e) = entry {
            used_entries.insert(e);
        }
        match (marked, &path, entry) {
            (false, _, None) => continue,
            (false, Some(p), Some(e)) => {
                errors.push(
                    ResultItem::error(format!(
                        "{} in {p} is not marked {IN_CLUSTER_ANNOTATION}: \"true\", but the \
                         PackageVariant names {e:?} as a place for cluster copies only \
                         (annotation {CLUSTER_OBJECTS_ANNOTATION}): mark it if it is a copy of \
                         a cluster object, or move it out of {e:?}",
                        m.describe()
                    ))
                    .field(IN_CLUSTER_FIELD)
                    .on_item(i),
                );
                continue;
            }
            (true, Some(p), None) => {
                errors.push(
                    ResultItem::error(format!(
                        "{} in {p} is marked {IN_CLUSTER_ANNOTATION}: \"true\" but is a package \
                         file at a path the PackageVariant does not name: a package file (which \
                         a blueprint may have shipped) cannot stand in for a cluster object. \
                         Pass the cluster copy through stdin (kubectl get ... -o yaml, annotated, \
                         with the package's items), or, if you wrote this file as the deployer, \
                         name its path in the PackageVariant's annotation \
                         {CLUSTER_OBJECTS_ANNOTATION}: \"{p}\"; a blueprint's file: remove the \
                         annotation or the file",
                        m.describe()
                    ))
                    .field(IN_CLUSTER_FIELD)
                    .on_item(i),
                );
                continue;
            }
            _ => {}
        }
        if !marked {
            continue;
        }
        let ns = m.namespace().unwrap_or(pv_namespace);
        if let Some(first) = seen.insert((m.group(), m.kind(), ns, m.name()), i) {
            errors.push(
                ResultItem::error(format!(
                    "two cluster objects have one identity (group {:?}, kind {}, namespace \
                     {ns:?}, name {:?}): {} ({}) and {} ({}); a cluster holds only one: keep \
                     the copy `kubectl get` prints and remove the other",
                    m.group(),
                    m.kind(),
                    m.name(),
                    pkg.meta(first).describe(),
                    where_from(pkg, first),
                    m.describe(),
                    where_from(pkg, i),
                ))
                .field("metadata.name")
                .on_item(i),
            );
            continue;
        }
        if let Some(p) = &path {
            // A copy without a path came through stdin: kpt writes it to no file.
            if m.annotation(LOCAL_CONFIG_ANNOTATION) != Some("true") {
                not_local.push(
                    ResultItem::warning(format!(
                        "{} in {p} is read as a cluster object but is not marked \
                         {LOCAL_CONFIG_ANNOTATION}: \"true\": the file stays in the package \
                         (kpt fn render keeps it) and kpt live apply would deploy this copy of \
                         the cluster's own object; mark it (kubectl annotate --local -f - -o \
                         yaml {IN_CLUSTER_ANNOTATION}=true {LOCAL_CONFIG_ANNOTATION}=true writes \
                         both) or pass the copy through stdin",
                        m.describe()
                    ))
                    .field(LOCAL_CONFIG_FIELD)
                    .on_item(i),
                );
            }
        }
        out.push(i);
    }
    let mut warnings = summarized(not_local, |more| {
        ResultItem::warning(format!(
            "{more} more cluster copies in files are not marked {LOCAL_CONFIG_ANNOTATION}: \
             \"true\" (only the first {LISTED} are listed): kpt live apply would deploy them"
        ))
    });
    warnings.extend(
        named
            .entries
            .iter()
            .filter(|e| !used_entries.contains(e.as_str()))
            .map(|e| {
                ResultItem::warning(format!(
                    "the PackageVariant names {e:?} for cluster copies (annotation \
                 {CLUSTER_OBJECTS_ANNOTATION}) but no item is there: write the copies \
                 (kubectl get ... -o yaml, annotated {IN_CLUSTER_ANNOTATION}: \"true\" and \
                 {LOCAL_CONFIG_ANNOTATION}: \"true\") or remove the entry"
                ))
                .field(CLUSTER_OBJECTS_FIELD)
                .on_config()
            }),
    );
    if !errors.is_empty() {
        // The warnings go with the errors: a named path that holds nothing often explains them.
        errors.extend(warnings);
        return Err(errors);
    }
    Ok((out, warnings))
}

/// Where an item came from, for messages: its path, or `stdin (no path)`.
fn where_from(pkg: &Package, i: usize) -> String {
    pkg.layout()
        .root_relative_path(pkg.meta(i))
        .map_or_else(|| "through stdin, no path".to_string(), |p| p.into_owned())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn entries_are_files_and_directories() {
        let n = NamedPaths::parse("in-cluster/objects.yaml, cluster/ ,x.yaml").unwrap_or_default();
        assert_eq!(
            n.entry_for("in-cluster/objects.yaml"),
            Some("in-cluster/objects.yaml")
        );
        assert_eq!(n.entry_for("cluster/a/b.yaml"), Some("cluster/"));
        assert_eq!(n.entry_for("x.yaml"), Some("x.yaml"));
        assert_eq!(n.entry_for("in-cluster/other.yaml"), None);
        assert_eq!(n.entry_for("cluster.yaml"), None);
        assert_eq!(n.entry_for("a/cluster/b.yaml"), None);
    }

    #[test]
    fn unclean_entries_are_refused() {
        for bad in [
            "",
            "a,,b",
            "/abs.yaml",
            "./a.yaml",
            "a/../b.yaml",
            "a//b",
            "a\\b",
            "/",
        ] {
            assert!(NamedPaths::parse(bad).is_err(), "{bad:?}");
        }
        assert!(NamedPaths::parse("a/b/").is_ok());
    }
}
