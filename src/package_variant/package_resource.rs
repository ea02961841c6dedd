//! `packageResource` sources of the extension's `spec.injection`: a resource of another package
//! revision, read from Porch's own object for a revision's files, `PackageRevisionResources`
//! (`spec.resources`: file name -> file text), given as an in-cluster item.
//!
//! Why a module: the revision may float (no `revision`: the highest Published one among the
//! `PackageRevision` items), the files are parsed once per object however many entries read
//! them, and what is missing is said in words that name what to pass.

use crate::api::package_variant::PackageResource;
use crate::krm::results::ResultItem;
use crate::package_variant::package::Package;
use crate::package_variant::PackageVariant;
use crate::yaml::{self, to_json};
use serde_json::Value;
use std::collections::HashMap;

/// apiVersion of Porch's package revision objects.
pub const PORCH_API_VERSION: &str = "porch.kpt.dev/v1alpha1";
/// apiVersion of Porch's PackageRevision CRD (the revision in `status.revision`).
pub const PORCH_V1ALPHA2: &str = "porch.kpt.dev/v1alpha2";
/// Porch's object holding a package revision's files.
pub const PACKAGE_REVISION_RESOURCES: &str = "PackageRevisionResources";
/// Porch's package revision object (its lifecycle says whether it is Published).
pub const PACKAGE_REVISION: &str = "PackageRevision";

/// One package revision's identity, as its objects write it in `spec`.
#[derive(Debug, Clone, PartialEq, Eq, Hash)]
struct Revision {
    repo: String,
    package: String,
    revision: i64,
}

/// A resource found in a package revision.
#[derive(Debug, Clone)]
pub struct Found {
    /// The whole resource as JSON (empty from [`Packages::locate`]: read it with
    /// [`Packages::value`]).
    pub value: Value,
    /// Which resource it is: (PackageRevisionResources item, resource index), the same for
    /// every entry that names it.
    pub key: (usize, usize),
    /// The revision it was read from (the one resolved when the entry names none).
    pub revision: i64,
    /// Whether `revision` was resolved (the entry named none).
    pub floating: bool,
}

/// What looking a resource up gave: the resource, or why it is not there (for the point's
/// condition and result: what to pass).
#[derive(Debug, Clone)]
pub enum Lookup {
    Found(Box<Found>),
    Missing(String),
}

/// The package revisions among the in-cluster items of the variant's namespace.
pub struct Packages {
    /// PackageRevisionResources item by revision.
    resources: HashMap<Revision, usize>,
    /// Highest Published revision by (repo, package).
    published: HashMap<(String, String), i64>,
    /// Parsed files of a PackageRevisionResources item: its resources as JSON, and where each
    /// (apiVersion, kind, name) is among them (looked up once per entry: a scan would make
    /// many entries of one package quadratic).
    parsed: HashMap<usize, Result<Parsed, String>>,
    /// In-cluster PackageRevisionResources of other namespaces, by (repo, package): never
    /// read, only named when an entry asks for them.
    elsewhere: HashMap<(String, String), (usize, String)>,
    /// PackageRevisionResources and PackageRevision items without a namespace, by (repo,
    /// package), when the variant names its namespace: such an item may come from any
    /// namespace, so an entry that would read one is refused (as a `clusterResource` is).
    unnamespaced: HashMap<(String, String), usize>,
    namespace: String,
    written_namespace: Option<String>,
}

/// The resources of one package revision, indexed.
struct Parsed {
    resources: Vec<Value>,
    /// The file each resource was read from.
    files: Vec<String>,
    /// By (apiVersion, kind, name): every resource of that identity, in file order (more
    /// than one is an error when an entry names it).
    index: HashMap<(String, String, String), Vec<usize>>,
}

impl Parsed {
    fn new(read: Vec<(String, Value)>) -> Parsed {
        let mut index: HashMap<_, Vec<usize>> = HashMap::with_capacity(read.len());
        let (files, resources): (Vec<String>, Vec<Value>) = read.into_iter().unzip();
        for (i, r) in resources.iter().enumerate() {
            let s = |p: &str| {
                r.pointer(p)
                    .and_then(Value::as_str)
                    .unwrap_or("")
                    .to_string()
            };
            index
                .entry((s("/apiVersion"), s("/kind"), s("/metadata/name")))
                .or_default()
                .push(i);
        }
        Parsed {
            resources,
            files,
            index,
        }
    }

    fn get(&self, api_version: &str, kind: &str, name: &str) -> &[usize] {
        let key = (api_version.to_string(), kind.to_string(), name.to_string());
        self.index.get(&key).map_or(&[], Vec::as_slice)
    }

    /// `ConfigMap "db" (namespace "prod", in dbs.yaml)`, for messages.
    fn describe(&self, i: usize) -> String {
        let r = &self.resources[i];
        let ns = r
            .pointer("/metadata/namespace")
            .and_then(Value::as_str)
            .map_or("no namespace".to_string(), |n| format!("namespace {n:?}"));
        format!("{ns}, in {}", self.files[i])
    }
}

/// `spec.revision` as Porch writes it: an integer (Porch 4.1), or a string `v3`/`3` (before).
fn revision_of(v: &Value) -> Option<i64> {
    // v1alpha2 (Porch's CRD) keeps the number in status.
    let holder = if v.get("apiVersion").and_then(Value::as_str) == Some(PORCH_V1ALPHA2) {
        "status"
    } else {
        "spec"
    };
    match v.get(holder)?.get("revision")? {
        Value::Number(n) => n.as_i64(),
        Value::String(s) => s.trim().trim_start_matches('v').parse().ok(),
        _ => None,
    }
}

fn spec_str<'v>(v: &'v Value, key: &str) -> &'v str {
    v.get("spec")
        .and_then(|s| s.get(key))
        .and_then(Value::as_str)
        .unwrap_or("")
}

impl Packages {
    /// Reads the identities of the `PackageRevisionResources` and `PackageRevision` items among
    /// `in_cluster` (the in-cluster items of the variant's namespace).
    pub fn new(pkg: &mut Package, in_cluster: &[usize], pv: &PackageVariant) -> Packages {
        let mut out = Packages {
            resources: HashMap::new(),
            published: HashMap::new(),
            parsed: HashMap::new(),
            elsewhere: HashMap::new(),
            unnamespaced: HashMap::new(),
            namespace: pv.namespace().to_string(),
            written_namespace: pv.written_namespace.clone(),
        };
        let ours: std::collections::HashSet<usize> = in_cluster.iter().copied().collect();
        for i in 0..pkg.len() {
            if !pkg.is_in_cluster(i) {
                continue;
            }
            let m = pkg.meta(i);
            if !ours.contains(&i) {
                if m.is(PORCH_API_VERSION, PACKAGE_REVISION_RESOURCES) {
                    let ns = m.namespace().unwrap_or_default().to_string();
                    if let Some(json) = pkg.tree(i).ok().and_then(|t| to_json(t).ok()) {
                        let key = (
                            spec_str(&json, "repository").to_string(),
                            spec_str(&json, "packageName").to_string(),
                        );
                        out.elsewhere.entry(key).or_insert((i, ns));
                    }
                    pkg.release(i);
                }
                continue;
            }
            let m = pkg.meta(i);
            let is_prr = m.is(PORCH_API_VERSION, PACKAGE_REVISION_RESOURCES);
            let is_pr =
                m.is(PORCH_API_VERSION, PACKAGE_REVISION) || m.is(PORCH_V1ALPHA2, PACKAGE_REVISION);
            if !(is_prr || is_pr) {
                continue;
            }
            let Some(json) = pkg.tree(i).ok().and_then(|t| to_json(t).ok()) else {
                continue;
            };
            pkg.release(i);
            let Some(revision) = revision_of(&json) else {
                continue;
            };
            let (repo, package) = (
                spec_str(&json, "repository"),
                spec_str(&json, "packageName"),
            );
            if out.written_namespace.is_some() && pkg.meta(i).namespace().is_none() {
                out.unnamespaced
                    .entry((repo.to_string(), package.to_string()))
                    .or_insert(i);
            }
            if is_prr {
                out.resources.insert(
                    Revision {
                        repo: repo.to_string(),
                        package: package.to_string(),
                        revision,
                    },
                    i,
                );
            } else if spec_str(&json, "lifecycle") == "Published" {
                let best = out
                    .published
                    .entry((repo.to_string(), package.to_string()))
                    .or_insert(revision);
                *best = (*best).max(revision);
            }
        }
        out
    }

    /// The resource `kind` `name` at `api_version` of the revision `source` names, as a copy
    /// of its own (for a resource the variant owns).
    pub fn find(
        &mut self,
        pkg: &mut Package,
        source: &PackageResource,
        api_version: &str,
        kind: &str,
    ) -> Result<Lookup, Box<ResultItem>> {
        let mut found = self.locate(pkg, source, api_version, kind)?;
        if let Lookup::Found(f) = &mut found {
            f.value = self.value(f.key).clone();
        }
        Ok(found)
    }

    /// The resource of `key` (from [`Packages::locate`]).
    pub fn value(&self, key: (usize, usize)) -> &Value {
        static NULL: Value = Value::Null;
        match self.parsed.get(&key.0) {
            Some(Ok(p)) => p.resources.get(key.1).unwrap_or(&NULL),
            _ => &NULL,
        }
    }

    /// [`Packages::find`] without the copy: the resource's key, read with
    /// [`Packages::value`] (entries that name one resource share it).
    pub fn locate(
        &mut self,
        pkg: &mut Package,
        source: &PackageResource,
        api_version: &str,
        kind: &str,
    ) -> Result<Lookup, Box<ResultItem>> {
        let ns = &self.namespace;
        let (repo, package) = (&source.repo, &source.package);
        if let Some(&u) = self.unnamespaced.get(&(repo.clone(), package.clone())) {
            let m = pkg.meta(u);
            let written = self.written_namespace.as_deref().unwrap_or(ns);
            return Err(Box::new(
                ResultItem::error(format!(
                    "in-cluster {} {} of {repo}/{package} has no namespace, so it cannot be \
                     told from another namespace's package revision: write \
                     metadata.namespace: {written:?} (the PackageVariant's namespace; `kubectl \
                     get packagerevisions,packagerevisionresources -n {written} -o yaml` writes \
                     it)",
                    m.kind(),
                    m.name()
                ))
                .field("metadata.namespace")
                .on_item(u),
            ));
        }
        let floating = source.revision == 0;
        let revision = if floating {
            match self.published.get(&(repo.clone(), package.clone())) {
                Some(r) => *r,
                None => {
                    return Ok(Lookup::Missing(format!(
                        "no Published PackageRevision of {repo}/{package} among the in-cluster \
                         items of namespace {ns:?}: pass them (kubectl get packagerevisions -n \
                         {ns} -o yaml, annotated config.porch.kpt.dev/in-cluster: \"true\"), or \
                         write packageResource.revision"
                    )))
                }
            }
        } else {
            source.revision
        };
        let key = Revision {
            repo: repo.clone(),
            package: package.clone(),
            revision,
        };
        let Some(&item) = self.resources.get(&key) else {
            let found_elsewhere = self
                .resources
                .keys()
                .all(|k| k.repo != *repo || k.package != *package);
            if let Some((other, other_ns)) = self
                .elsewhere
                .get(&(repo.clone(), package.clone()))
                .filter(|_| found_elsewhere)
            {
                return Err(Box::new(
                    ResultItem::error(format!(
                        "PackageRevisionResources {} of {repo}/{package} is in namespace \
                         {other_ns:?}, not the PackageVariant's namespace {ns:?}: a variant \
                         injects only from its own namespace; pass the package revision of \
                         namespace {ns:?}",
                        pkg.meta(*other).name()
                    ))
                    .field("metadata.namespace")
                    .on_item(*other),
                ));
            }
            return Ok(Lookup::Missing(format!(
                "no PackageRevisionResources of {repo}/{package} revision {revision} among the \
                 in-cluster items of namespace {ns:?}: pass it (kubectl get \
                 packagerevisionresources -n {ns} -o yaml, annotated \
                 config.porch.kpt.dev/in-cluster: \"true\"; for a local directory, \
                 package-variant package-revision-resources DIR)"
            )));
        };
        if let std::collections::hash_map::Entry::Vacant(v) = self.parsed.entry(item) {
            v.insert(read_files(pkg, item)?.map(Parsed::new));
        }
        let resources = match self.parsed.get(&item) {
            Some(Ok(r)) => r,
            Some(Err(e)) => {
                return Ok(Lookup::Missing(format!(
                    "cannot read PackageRevisionResources {}: {e}",
                    pkg.meta(item).name()
                )))
            }
            None => return Ok(Lookup::Missing("internal error: files not read".into())),
        };
        let found = resources.get(api_version, kind, &source.name);
        if let [first, second, ..] = found {
            let others = found.len() - 1;
            return Err(Box::new(
                ResultItem::error(format!(
                    "package {repo}/{package} revision {revision} has {} resources {kind} {:?} at \
                     apiVersion {api_version}: {} ({}) and {} ({}){}; a packageResource names \
                     a resource by apiVersion, kind and name only, so it would take one of \
                     them by a guess. Pick one by giving it a name of its own in that package \
                     (a new revision), or keep only the one meant",
                    others + 1,
                    source.name,
                    kind,
                    resources.describe(*first),
                    kind,
                    resources.describe(*second),
                    if others > 1 {
                        format!(" and {} more", others - 1)
                    } else {
                        String::new()
                    },
                ))
                .field("spec.resources")
                .on_item(item),
            ));
        }
        Ok(match found.first() {
            Some(&r) => Lookup::Found(Box::new(Found {
                value: Value::Null,
                key: (item, r),
                revision,
                floating,
            })),
            None => Lookup::Missing(format!(
                "package {repo}/{package} revision {revision} has no {kind} {:?} at apiVersion \
                 {api_version}",
                source.name
            )),
        })
    }
}

/// Each resource of a package revision with the file it was read from.
type Files = Vec<(String, Value)>;

/// The resources of a PackageRevisionResources item: every YAML document of every file of
/// `spec.resources`, as JSON, in file-name order. An unreadable file is an error of the
/// lookup (said in the point's condition), not of the run.
fn read_files(pkg: &mut Package, item: usize) -> Result<Result<Files, String>, Box<ResultItem>> {
    let tree = pkg.tree(item)?;
    let json = match to_json(tree) {
        Ok(j) => j,
        Err(e) => return Ok(Err(e)),
    };
    pkg.release(item);
    let Some(files) = json.pointer("/spec/resources").and_then(Value::as_object) else {
        return Ok(Err(
            "spec.resources is not a map of file name to file text".into()
        ));
    };
    let mut names: Vec<&String> = files.keys().collect();
    names.sort();
    let mut out = Vec::new();
    for name in names {
        if !(name.ends_with(".yaml") || name.ends_with(".yml") || name == "Kptfile") {
            continue;
        }
        let Some(text) = files[name].as_str() else {
            return Ok(Err(format!("spec.resources[{name}] is not text")));
        };
        for doc in documents(text) {
            let node = match yaml::parse(doc) {
                Ok(n) => n,
                Err(e) => return Ok(Err(format!("{name}: {e}"))),
            };
            if node.is_null() {
                continue;
            }
            match to_json(&node) {
                Ok(v) if v.is_object() => out.push((name.clone(), v)),
                Ok(_) => {}
                Err(e) => return Ok(Err(format!("{name}: {e}"))),
            }
        }
    }
    Ok(Ok(out))
}

/// The documents of a YAML stream: split at lines that are `---` (optionally followed by a
/// space and more) or `...` at column 0.
fn documents(text: &str) -> Vec<&str> {
    let mut out = Vec::new();
    let mut start = 0;
    let mut pos = 0;
    for line in text.split_inclusive('\n') {
        let l = line.trim_end_matches(['\n', '\r']);
        let marker = l == "---" || l.starts_with("--- ") || l == "...";
        if marker {
            out.push(&text[start..pos]);
            start = pos + line.len();
        }
        pos += line.len();
    }
    out.push(&text[start..]);
    out.retain(|d| !d.trim().is_empty());
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn documents_split_at_markers() {
        assert_eq!(documents("a: 1\n---\nb: 2\n"), ["a: 1\n", "b: 2\n"]);
        assert_eq!(documents("---\na: 1\n...\n"), ["a: 1\n"]);
        assert_eq!(documents("a: |\n  ---x\n"), ["a: |\n  ---x\n"]);
        assert!(documents("\n").is_empty());
    }

    #[test]
    fn revisions_read_as_porch_writes_them() {
        assert_eq!(
            revision_of(&serde_json::json!({"spec": {"revision": 3}})),
            Some(3)
        );
        assert_eq!(
            revision_of(&serde_json::json!({"spec": {"revision": "v2"}})),
            Some(2)
        );
        assert_eq!(revision_of(&serde_json::json!({"spec": {}})), None);
    }
}
