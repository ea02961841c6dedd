//! The PackageRevisions among the items, in both of Porch's API versions, indexed once.
//!
//! `porch.kpt.dev/v1alpha1` (the aggregated API) holds the revision in `spec.revision` and
//! labels the latest `kpt.dev/latest-revision`; `porch.kpt.dev/v1alpha2` (a CRD, kptdev/porch
//! `api/porch/v1alpha2/packagerevision_types.go`) holds it in `status.revision` and labels the
//! latest `porch.kpt.dev/latest-revision`. Both are read as one [`Revision`]:
//!
//! - a v1alpha2 Draft or Proposed revision without `status.revision` is never an upstream
//!   (it has no number to start a variant from);
//! - one revision given in both versions (one name) is one revision; two of one name that
//!   disagree are an error naming both items;
//! - [`Index`]: one pass over the items; each upstream is then a lookup in its (repo, package)
//!   bucket, by revision and by workspace name, so 1,000 upstreams of one package with 20,000
//!   revisions cost one pass, not 1,000. The same pass keeps what reconciliation's
//!   downstream check reads: every v1alpha2 revision of each package (its drafts without a
//!   number too: their render state is on them), and the packages given in v1alpha1.
//! - the numbers the gates read from a revision (its revision, `metadata.generation`, a
//!   condition's `observedGeneration`) are integers in Porch's schema (int64 in JSON): any
//!   other value (`"2"`, `2.5`, `true`) is an error on its field, never read as 0 or as
//!   current ([`whole_number`]); a published v1alpha2 revision without `status.revision` is
//!   an error too (it would rank below every numbered one).

use crate::api::package_variant::Upstream;
use crate::common::fast_hash::{FastMap, FastSet};
use crate::krm::object::json_at;
use crate::krm::results::ResultItem;
use crate::package_variant_set::expansion::inputs::scope::{whereabouts, MAX_REPORTED};
use crate::package_variant_set::expansion::inputs::Item;
use crate::package_variant_set::expansion::targets::str_at;
use serde_json::Value;

/// apiVersion of Porch's aggregated-API PackageRevisions.
pub const V1ALPHA1: &str = "porch.kpt.dev/v1alpha1";
/// apiVersion of Porch's CRD PackageRevisions.
pub const V1ALPHA2: &str = "porch.kpt.dev/v1alpha2";
/// The kind, in both versions.
pub const KIND: &str = "PackageRevision";
/// The latest-revision label of each version.
pub const V1ALPHA1_LATEST_LABEL: &str = "kpt.dev/latest-revision";
pub const V1ALPHA2_LATEST_LABEL: &str = "porch.kpt.dev/latest-revision";

/// Whether `api_version` is one of the PackageRevision versions read.
pub fn is_read_version(api_version: &str) -> bool {
    api_version == V1ALPHA1 || api_version == V1ALPHA2
}

/// The integer at `pointer` of `json`: `Ok(None)` when absent or null; an error message
/// (what is there and what to write) for anything but a JSON integer. Kubernetes' integer
/// fields take no quoted number and no fraction, so neither is read as a number here: a gate
/// that read `"2"` as 0 or a generation `"3"` as current would open on a value nobody wrote.
pub fn whole_number(json: &Value, pointer: &str) -> Result<Option<i64>, String> {
    let Some(v) = json_at(json, pointer).filter(|v| !v.is_null()) else {
        return Ok(None);
    };
    if let Some(n) = v.as_i64() {
        return Ok(Some(n));
    }
    let what = match v {
        Value::String(s) if s.trim().parse::<i64>().is_ok() => {
            return Err(format!(
            "is the string {s:?}: Porch's schema takes an integer here; write {} without quotes",
            s.trim()
        ))
        }
        Value::String(s) => format!("the string {s:?}"),
        Value::Number(n) => format!("{n}, not a whole number in the int64 range"),
        Value::Bool(b) => b.to_string(),
        Value::Array(_) => "a list".to_string(),
        _ => "a mapping".to_string(),
    };
    Err(format!(
        "is {what}: Porch's schema takes an integer here (e.g. 2); write one"
    ))
}

/// The numbers of a PackageRevision the gates read, each an integer or absent: its revision
/// (`spec.revision` in v1alpha1, `status.revision` in v1alpha2), `metadata.generation` and each
/// condition's `observedGeneration`. The first that is not is an error on its field.
fn check_numbers(item: usize, json: &Value, v2: bool) -> Result<(), Box<ResultItem>> {
    let error = |field: String, message: String| {
        Box::new(ResultItem::error(message).field(field).on_item(item))
    };
    let revision = if v2 {
        "status.revision"
    } else {
        "spec.revision"
    };
    for field in [revision, "metadata.generation"] {
        let pointer = format!("/{}", field.replace('.', "/"));
        whole_number(json, &pointer).map_err(|m| error(field.to_string(), m))?;
    }
    // A published v1alpha2 revision without its number would rank below every other.
    let published = matches!(
        str_at(json, "/spec/lifecycle"),
        "Published" | "DeletionProposed"
    );
    if v2
        && published
        && whole_number(json, "/status/revision")
            .ok()
            .flatten()
            .is_none()
    {
        return Err(error(
            revision.to_string(),
            "is missing: Porch numbers a revision when it publishes it, and the gates rank published revisions by it; give the revision as the cluster holds it (kubectl get packagerevisions.v1alpha2.porch.kpt.dev -o yaml)".to_string(),
        ));
    }
    let conditions = json_at(json, "/status/conditions").and_then(Value::as_array);
    for (k, c) in conditions.into_iter().flatten().enumerate() {
        whole_number(c, "/observedGeneration")
            .map_err(|m| error(format!("status.conditions[{k}].observedGeneration"), m))?;
    }
    Ok(())
}

/// One PackageRevision as the set reads it, whichever its version.
#[derive(Debug, Clone, Copy)]
pub struct Revision<'a> {
    /// Item index.
    pub item: usize,
    pub json: &'a Value,
    pub api_version: &'a str,
    pub name: &'a str,
    pub repository: &'a str,
    pub package: &'a str,
    pub workspace: &'a str,
    pub revision: i64,
    pub lifecycle: &'a str,
    /// Porch's latest-revision label (of its version) says `"true"`.
    pub latest: bool,
}

impl<'a> Revision<'a> {
    /// `json` read as a PackageRevision of either version; `None` for another kind, or a
    /// v1alpha2 Draft or Proposed revision without `status.revision`.
    pub fn read(item: usize, json: &'a Value) -> Option<Revision<'a>> {
        let api_version = str_at(json, "/apiVersion");
        if str_at(json, "/kind") != KIND || !is_read_version(api_version) {
            return None;
        }
        let v2 = api_version == V1ALPHA2;
        let (revision_at, label) = if v2 {
            ("/status/revision", V1ALPHA2_LATEST_LABEL)
        } else {
            ("/spec/revision", V1ALPHA1_LATEST_LABEL)
        };
        let revision = json_at(json, revision_at)
            .and_then(Value::as_i64)
            .unwrap_or(0);
        let lifecycle = str_at(json, "/spec/lifecycle");
        if v2 && revision == 0 && matches!(lifecycle, "Draft" | "Proposed" | "") {
            return None;
        }
        Some(Revision {
            item,
            json,
            api_version,
            name: str_at(json, "/metadata/name"),
            repository: str_at(json, "/spec/repository"),
            package: str_at(json, "/spec/packageName"),
            workspace: str_at(json, "/spec/workspaceName"),
            revision,
            lifecycle,
            latest: json_at(json, "/metadata/labels")
                .and_then(|l| l.get(label))
                .and_then(Value::as_str)
                == Some("true"),
        })
    }

    /// What two copies of one revision must agree on.
    fn facts(&self) -> (&str, &str, &str, i64, &str, bool) {
        (
            self.repository,
            self.package,
            self.workspace,
            self.revision,
            self.lifecycle,
            self.latest,
        )
    }

    /// The label value of `key`, when it is a string.
    pub fn label(&self, key: &str) -> Option<&'a str> {
        json_at(self.json, "/metadata/labels")?.get(key)?.as_str()
    }
}

/// The revisions of one (repository, package), in item order, with lookups.
#[derive(Debug, Default)]
pub struct Bucket<'a> {
    pub revisions: Vec<Revision<'a>>,
    /// revision number → position of the first revision with it.
    by_revision: FastMap<i64, usize>,
    /// workspace name → position of the first revision with it.
    by_workspace: FastMap<&'a str, usize>,
}

impl<'a> Bucket<'a> {
    fn push(&mut self, r: Revision<'a>) {
        let at = self.revisions.len();
        self.by_revision.entry(r.revision).or_insert(at);
        self.by_workspace.entry(r.workspace).or_insert(at);
        self.revisions.push(r);
    }

    /// The first revision of workspace `name`, as Porch's PackageVariant controller finds a
    /// `spec.upstream.workspaceName`.
    pub fn with_workspace(&self, name: &str) -> Option<&Revision<'a>> {
        self.revisions.get(*self.by_workspace.get(name)?)
    }

    /// Porch's `getUpstreamPR` in this bucket: the first revision whose number or workspace
    /// name is the upstream's.
    pub fn find(&self, upstream: &Upstream) -> Option<&Revision<'a>> {
        let by_rev = self.by_revision.get(&upstream.revision);
        let by_ws = self.by_workspace.get(upstream.workspace_name.as_str());
        let at = match (by_rev, by_ws) {
            (Some(a), Some(b)) => *a.min(b),
            (Some(a), None) | (None, Some(a)) => *a,
            (None, None) => return None,
        };
        self.revisions.get(at)
    }
}

/// The PackageRevisions of the set's namespace, by (repository, package).
#[derive(Debug, Default)]
pub struct Index<'a> {
    /// repository → package → its revisions (nested so that a lookup borrows nothing long).
    buckets: FastMap<&'a str, FastMap<&'a str, Bucket<'a>>>,
    /// The namespace read.
    namespace: String,
    /// (repository, package) → item indexes of its v1alpha2 revisions, drafts included.
    v1alpha2: FastMap<(&'a str, &'a str), Vec<usize>>,
    /// The (repository, package) given in v1alpha1.
    v1alpha1: FastSet<(&'a str, &'a str)>,
}

impl<'a> Index<'a> {
    /// One pass over `items`: the PackageRevisions of either version in `namespace` (an item
    /// without namespace is in it, as [`Item::is_kind_in_namespace`] says). Two of one name
    /// that disagree are errors on the later item.
    pub fn new(items: &[Item<'a>], namespace: &str) -> Result<Index<'a>, Vec<ResultItem>> {
        let mut index = Index {
            namespace: namespace.to_string(),
            ..Index::default()
        };
        let mut by_name: FastMap<&'a str, Revision<'a>> = FastMap::default();
        let mut errors = Vec::new();
        let mut malformed = 0usize;
        for (i, item) in items.iter().enumerate() {
            if item.kind() != KIND || !is_read_version(item.api_version()) {
                continue;
            }
            let ns = item.namespace();
            if !(ns.is_empty() || ns == namespace) {
                continue;
            }
            let Some(json) = item.json() else { continue };
            if let Err(e) = check_numbers(i, json, item.api_version() == V1ALPHA2) {
                malformed += 1;
                if malformed <= MAX_REPORTED {
                    errors.push(*e);
                }
                continue;
            }
            let package = (
                str_at(json, "/spec/repository"),
                str_at(json, "/spec/packageName"),
            );
            if item.api_version() == V1ALPHA2 {
                index.v1alpha2.entry(package).or_default().push(i);
            } else {
                index.v1alpha1.insert(package);
            }
            let Some(r) = Revision::read(i, json) else {
                continue;
            };
            // Two of one version and name are the scope check's to refuse; here only versions.
            let other = by_name
                .get(r.name)
                .filter(|f| f.api_version != r.api_version);
            if let Some(first) = other {
                if first.facts() != r.facts() {
                    errors.push(disagree(items, first, &r));
                }
                continue;
            }
            by_name.entry(r.name).or_insert(r);
            index
                .buckets
                .entry(r.repository)
                .or_default()
                .entry(r.package)
                .or_default()
                .push(r);
        }
        if malformed > MAX_REPORTED {
            errors.push(
                ResultItem::error(format!(
                    "and {} more PackageRevisions with a number that is not an integer, as above",
                    malformed - MAX_REPORTED
                ))
                .on_config(),
            );
        }
        if errors.is_empty() {
            Ok(index)
        } else {
            Err(errors)
        }
    }

    /// The bucket of (repository, package), if any revision is in it.
    pub fn bucket(&self, repository: &str, package: &str) -> Option<&Bucket<'a>> {
        self.buckets.get(repository)?.get(package)
    }

    /// The namespace whose revisions these are.
    pub fn namespace(&self) -> &str {
        &self.namespace
    }

    /// Item indexes of the v1alpha2 revisions of (repository, package), drafts without a
    /// number included (a downstream's render state is on them). (`&'a self`: a shorter-lived
    /// key is looked up in the index seen as living as short, which it may: it is covariant.)
    pub fn v1alpha2_of(&'a self, package: (&'a str, &'a str)) -> Option<&'a [usize]> {
        self.v1alpha2.get(&package).map(Vec::as_slice)
    }

    /// Whether (repository, package) is given in v1alpha1.
    pub fn has_v1alpha1(&'a self, package: (&'a str, &'a str)) -> bool {
        self.v1alpha1.contains(&package)
    }

    /// Every (repository, package) with revisions, for near-name hints.
    pub fn keys(&self) -> impl Iterator<Item = (&'a str, &'a str)> + '_ {
        self.buckets
            .iter()
            .flat_map(|(r, packages)| packages.keys().map(move |p| (*r, *p)))
    }
}

/// Two versions of one PackageRevision that say different things.
fn disagree(items: &[Item], first: &Revision, later: &Revision) -> ResultItem {
    let at = |r: &Revision| {
        let item = items.get(r.item).copied().unwrap_or(Item::Absent);
        format!(
            "{} at {} (repository {:?}, package {:?}, workspace {:?}, revision {}, lifecycle {:?}, latest {})",
            r.api_version,
            whereabouts(&item, r.item),
            r.repository,
            r.package,
            r.workspace,
            r.revision,
            r.lifecycle,
            r.latest
        )
    };
    ResultItem::error(format!(
        "PackageRevision {:?} is given in two versions that disagree: {} and {}; one revision read in both versions must say the same thing: pass one version only (kubectl get packagerevisions.v1alpha2.porch.kpt.dev for the CRD), or both as the cluster holds them",
        later.name,
        at(first),
        at(later)
    ))
    .field("metadata.name")
    .on_item(later.item)
}
