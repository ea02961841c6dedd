//! Which upstream revision an existing PackageVariant is on, read from every spelling of
//! `spec.upstream` Porch's PackageVariant takes, for the gates that compare it with the
//! revision the set wants (the activation's fleet revision, the rollout's upgrades and its
//! `requireReady`).
//!
//! Why: the gates used to read only an integer `spec.upstream.revision`; a fleet pinned with
//! `workspaceName: v1`, or with no revision, looked like "no fleet yet" and moved to a revision
//! nobody activated. Porch's schema (kptdev/porch `api/porchconfig/v1alpha1`,
//! `Upstream{repo, package, revision int, workspaceName}`) and its controller
//! (`getUpstreamPR`: a `workspaceName` names the revision of that workspace; without one, the
//! package's `main` placeholder, which follows the branch) give the rules:
//!
//! - `revision: N` (an integer from 1) is revision N; absent, null or 0 is unset;
//! - `workspaceName: W` is the revision of the package's PackageRevision of workspace W among
//!   the items; with `revision` too, both must name one revision;
//! - anything else cannot be known, and is an error naming the variant and the field: a
//!   quoted number (`"1"`: the API server refuses a string for an integer field; Porch before
//!   2025 wrote `"v1"`), a fraction, a negative revision (`-1` is the `main` placeholder), a
//!   workspace that is not among the items or has no revision, neither field (the `main`
//!   branch, whatever it holds now). The variant's `upstream-tag` annotation names a tag, which
//!   moves: it never says which revision a variant is on.

use serde_json::Value;

use crate::api::package_variant::Upstream;
use crate::krm::object::json_at;
use crate::krm::results::ResultItem;
use crate::package_variant_set::expansion::inputs::Item;
use crate::package_variant_set::expansion::kubectl::kubectl_get;
use crate::package_variant_set::expansion::targets::{
    str_at, PACKAGE_REVISION_API_VERSION, PACKAGE_REVISION_KIND,
};
use crate::package_variant_set::expansion::upstreams::revisions::{whole_number, Index};
use crate::package_variant_set::expansion::upstreams::UPSTREAM_TAG_ANNOTATION;

/// The upstream an existing variant is on.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct OnRevision<'a> {
    pub repo: &'a str,
    pub package: &'a str,
    /// From 1.
    pub revision: i64,
}

/// Reads the upstream of the variant `variant` (item `item`), resolving a `workspaceName`
/// through the PackageRevisions of `index`. An error is on the variant's field, naming it.
pub fn on_revision<'a>(
    variant: &'a Value,
    item: usize,
    index: &Index,
) -> Result<OnRevision<'a>, Box<ResultItem>> {
    let name = str_at(variant, "/metadata/name");
    let error = |field: &str, message: String| {
        Box::new(
            ResultItem::error(format!(
                "PackageVariant {name:?}: {field} {message}; the gates compare the revision each variant is on with the one the set wants, and cannot tell this one's"
            ))
            .field(field)
            .on_item(item),
        )
    };
    const WRITE: &str = "write revision: N, the revision it is on";
    let repo = str_at(variant, "/spec/upstream/repo");
    let package = str_at(variant, "/spec/upstream/package");
    let revision = match whole_number(variant, "/spec/upstream/revision") {
        Err(m) => return Err(error("spec.upstream.revision", m)),
        Ok(None | Some(0)) => None,
        Ok(Some(r)) if r < 0 => {
            return Err(error(
                "spec.upstream.revision",
                format!("is {r}: a negative revision is the package's main-branch placeholder, which follows the branch; {WRITE}"),
            ))
        }
        Ok(Some(r)) => Some(r),
    };
    let workspace = match json_at(variant, "/spec/upstream/workspaceName") {
        None | Some(Value::Null) => "",
        Some(Value::String(w)) => w.as_str(),
        Some(_) => {
            return Err(error(
                "spec.upstream.workspaceName",
                format!("is not a string: write the workspace name of a revision of {repo}/{package} (e.g. v1), or {WRITE}"),
            ))
        }
    };
    let by_workspace = match workspace {
        "" => None,
        w => {
            let get = kubectl_get(
                PACKAGE_REVISION_API_VERSION,
                PACKAGE_REVISION_KIND,
                index.namespace(),
            );
            let found = index
                .bucket(repo, package)
                .and_then(|b| b.with_workspace(w));
            match found {
                None => return Err(error(
                    "spec.upstream.workspaceName",
                    format!("is {w:?}, but no PackageRevision of {repo}/{package} with that workspace is among the input items: pass the package's revisions ({get}), or {WRITE}"),
                )),
                Some(r) if r.revision < 1 => return Err(error(
                    "spec.upstream.workspaceName",
                    format!("is {w:?}, PackageRevision {:?}, which has no revision number ({}): {WRITE}", r.name, if r.lifecycle.is_empty() { "no lifecycle" } else { r.lifecycle }),
                )),
                Some(r) => Some((r.revision, r.name)),
            }
        }
    };
    let revision = match (revision, by_workspace) {
        (Some(r), Some((w, pr))) if r != w => {
            return Err(error(
                "spec.upstream",
                format!("says revision {r} but workspaceName {workspace:?}, which is revision {w} (PackageRevision {pr:?}); Porch's controller follows the workspace: write the one revision it is on, with both fields agreeing or one of them"),
            ))
        }
        (Some(r), _) | (None, Some((r, _))) => r,
        (None, None) => {
            let tag = json_at(variant, "/metadata/annotations")
                .and_then(|a| a.get(UPSTREAM_TAG_ANNOTATION))
                .and_then(Value::as_str)
                .map_or(String::new(), |t| {
                    format!(" (its {UPSTREAM_TAG_ANNOTATION} annotation names tag {t:?}, which moves: a tag is not a revision)")
                });
            return Err(error(
                "spec.upstream",
                format!("gives neither revision nor workspaceName: Porch's controller then follows the package's main branch, whatever it holds{tag}; {WRITE}"),
            ));
        }
    };
    Ok(OnRevision {
        repo,
        package,
        revision,
    })
}

/// The revision the set's `spec.upstream` for a variant names: its `revision` from 1, or the
/// revision of its `workspaceName` among the items; `None` when they disagree or neither says
/// (then any change of `spec.upstream` counts as a move to another revision).
pub fn wanted_revision(upstream: &Upstream, index: &Index) -> Option<i64> {
    let by_workspace = match upstream.workspace_name.as_str() {
        "" => None,
        w => Some(
            index
                .bucket(&upstream.repo, &upstream.package)
                .and_then(|b| b.with_workspace(w))
                .map(|r| r.revision)
                .filter(|&r| r >= 1)?,
        ),
    };
    let revision = (upstream.revision >= 1).then_some(upstream.revision);
    match (revision, by_workspace) {
        (Some(r), Some(w)) if r != w => None,
        (r, w) => r.or(w),
    }
}

/// Whether the existing variant at `item` moves to another upstream (package or revision)
/// when its `spec.upstream` becomes `wanted`; `changes`: some field of `spec.upstream`
/// changes (else it does not move). A revision it cannot tell it is on is an error
/// ([`on_revision`]): a doubt never licenses an upgrade.
pub fn moves(
    items: &[Item],
    item: usize,
    wanted: Option<&Upstream>,
    index: &Index,
    changes: bool,
) -> Result<bool, Box<ResultItem>> {
    let variant = items.get(item).and_then(Item::json).filter(|_| changes);
    let (Some(variant), Some(wanted)) = (variant, wanted) else {
        return Ok(changes);
    };
    let package = (
        str_at(variant, "/spec/upstream/repo"),
        str_at(variant, "/spec/upstream/package"),
    );
    if package != (wanted.repo.as_str(), wanted.package.as_str()) {
        return Ok(true);
    }
    let on = on_revision(variant, item, index)?;
    Ok(wanted_revision(wanted, index) != Some(on.revision))
}
