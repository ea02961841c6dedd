//! What near match exists when an upstream is not found, as kubectl and cargo say it: the
//! package's revisions in another namespace or at an API version not read, a v1alpha2 draft
//! that has no revision yet, the revisions the package does have, a near package or repo name.
//!
//! Each hint scans the items once, so only the first [`MAX_HINTS`] failures of a run get one:
//! a thousand missing upstreams stay linear.

use super::revisions::{is_read_version, Bucket, Index, KIND, V1ALPHA2};
use crate::api::package_variant::Upstream;
use crate::api::suggest::closest;
use crate::krm::object::json_at;
use crate::package_variant_set::expansion::inputs::Item;
use crate::package_variant_set::expansion::targets::str_at;

/// Most upstream failures of one run that get a hint.
pub const MAX_HINTS: usize = 10;
/// Most near matches named in one hint.
const MAX_NAMED: usize = 5;

/// How many hints are left in this run.
#[derive(Debug)]
pub struct Budget(usize);

impl Default for Budget {
    fn default() -> Self {
        Budget(MAX_HINTS)
    }
}

impl Budget {
    /// `; ...` naming the near matches of `upstream`, or `""` (none, or no hints left).
    pub fn near(
        &mut self,
        upstream: &Upstream,
        bucket: &Bucket,
        index: &Index,
        items: &[Item],
        namespace: &str,
    ) -> String {
        if self.0 == 0 {
            return String::new();
        }
        self.0 -= 1;
        let mut found: Vec<String> = Vec::new();
        for (i, item) in items.iter().enumerate() {
            if found.len() >= MAX_NAMED {
                break;
            }
            if let Some(why) = elsewhere(i, item, upstream, namespace) {
                found.push(why);
            }
        }
        if !bucket.revisions.is_empty() {
            let mut have: Vec<String> = bucket
                .revisions
                .iter()
                .take(MAX_NAMED)
                .map(|r| {
                    format!(
                        "{:?} (revision {}, workspace {:?}, {})",
                        r.name, r.revision, r.workspace, r.api_version
                    )
                })
                .collect();
            if bucket.revisions.len() > MAX_NAMED {
                have.push(format!("and {} more", bucket.revisions.len() - MAX_NAMED));
            }
            found.push(format!(
                "the package's revisions in namespace {namespace:?} are {}: none has revision {} or workspace {:?}",
                have.join(", "),
                upstream.revision,
                upstream.workspace_name
            ));
        } else {
            let packages = index
                .keys()
                .filter(|(r, _)| *r == upstream.repo)
                .map(|(_, p)| p);
            if let Some(p) = closest(&upstream.package, packages) {
                found.push(format!(
                    "repo {:?} has PackageRevisions of package {p:?}; did you mean package: {p}?",
                    upstream.repo
                ));
            }
            let repos = index
                .keys()
                .filter(|(_, p)| *p == upstream.package)
                .map(|(r, _)| r);
            if let Some(r) = closest(&upstream.repo, repos) {
                found.push(format!(
                    "repo {r:?} has PackageRevisions of package {:?}; did you mean repo: {r}?",
                    upstream.package
                ));
            }
        }
        if found.is_empty() {
            String::new()
        } else {
            format!("; near matches: {}", found.join("; "))
        }
    }
}

/// Why `item`, a revision of the upstream's repo and package, is not read, or `None`.
fn elsewhere(i: usize, item: &Item, upstream: &Upstream, namespace: &str) -> Option<String> {
    if item.kind() != KIND || !item.api_version().starts_with("porch.kpt.dev/") {
        return None;
    }
    let json = item.json()?;
    if str_at(json, "/spec/repository") != upstream.repo
        || str_at(json, "/spec/packageName") != upstream.package
    {
        return None;
    }
    let (api_version, ns, name) = (item.api_version(), item.namespace(), item.name());
    let revision = |at: &str| json_at(json, at).and_then(serde_json::Value::as_i64);
    if !(ns.is_empty() || ns == namespace) {
        return Some(format!(
            "PackageRevision {name:?} ({api_version}, item {i}) is in namespace {ns:?}, not {namespace:?}: the set reads its own namespace only; write metadata.namespace: {ns} on the PackageVariantSet if that is where it belongs"
        ));
    }
    if !is_read_version(api_version) {
        return Some(format!(
            "PackageRevision {name:?} (item {i}) is at apiVersion {api_version}, which is not read (porch.kpt.dev/v1alpha1 and porch.kpt.dev/v1alpha2 are)"
        ));
    }
    if api_version == V1ALPHA2 && revision("/status/revision").unwrap_or(0) == 0 {
        return Some(format!(
            "PackageRevision {name:?} ({V1ALPHA2}, item {i}) is {} without status.revision, so never an upstream: publish it first",
            match str_at(json, "/spec/lifecycle") {
                "" => "without lifecycle",
                l => l,
            }
        ));
    }
    None
}
