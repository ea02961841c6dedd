//! The set's upstreams (extension): `spec.upstream` with a revision or a floating `tag`, or
//! several in `spec.upstreams`, each resolved once to the PackageRevision every variant of it
//! starts from.
//!
//! - [`check`]: what the extension's upstream fields must say (one of `upstream` and
//!   `upstreams`; one of `revision` and `tag`), beside Porch's validation;
//! - [`resolve`]: one pass over the items indexes the PackageRevisions (both API versions,
//!   [`revisions`]) by repo and package, and each bucket by revision and workspace name; each
//!   upstream is then a lookup and each tag is resolved once per package (linear in the items,
//!   whatever the number of upstreams or targets);
//! - [`hints`]: what near match exists when an upstream is not found;
//! - [`spread`]: every unrolled downstream once per upstream (target × upstream), its package
//!   defaulting to that upstream's package;
//! - [`tags`]: which revision a tag names.
//!
//! With a single `upstream` at a revision, the variants and messages are Porch's, unchanged.

pub mod hints;
pub mod revisions;
pub mod tags;

use super::inputs::Item;
use super::targets::{upstream_not_found, DownstreamContext, MAX_PACKAGE_VARIANTS};
use crate::api::package_variant::Upstream;
use crate::api::package_variant_set::{PackageVariantSet, SetUpstream};
use crate::common::fast_hash::FastMap;
use crate::krm::results::ResultItem;

/// Most entries of `spec.upstreams`: each is a PackageVariant per target.
pub const MAX_UPSTREAMS: usize = 1_000;

/// The annotation on each variant of a tagged upstream, naming the tag it follows.
pub const UPSTREAM_TAG_ANNOTATION: &str = crate::api::annotations::UPSTREAM_TAG.key;

/// One upstream of the set, resolved.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct ResolvedUpstream {
    /// What each of its variants carries as `spec.upstream` (a tag's concrete revision).
    pub upstream: Upstream,
    /// Item index of its PackageRevision.
    pub item: usize,
    /// The tag it follows, if any.
    pub tag: Option<String>,
    /// Where the set names it: `spec.upstream` or `spec.upstreams[1]`.
    pub field: String,
}

/// The upstreams as the set writes them, with their fields, in order.
pub fn written(set: &PackageVariantSet) -> Vec<(String, &SetUpstream)> {
    match (&set.spec.upstreams, &set.spec.upstream) {
        (Some(list), _) => list
            .iter()
            .enumerate()
            .map(|(k, u)| (format!("spec.upstreams[{k}]"), u))
            .collect(),
        (None, Some(u)) => vec![("spec.upstream".to_string(), u)],
        (None, None) => Vec::new(),
    }
}

fn err(out: &mut Vec<ResultItem>, field: impl Into<String>, message: impl Into<String>) {
    out.push(ResultItem::error(message).field(field).on_config());
}

/// The problems of the extension's upstream fields (Porch's validation reports the rest of
/// `spec.upstream`).
pub fn check(set: &PackageVariantSet) -> Vec<ResultItem> {
    let mut out = Vec::new();
    if let Some(list) = &set.spec.upstreams {
        if set.spec.upstream.is_some() {
            err(
                &mut out,
                "spec.upstreams",
                "spec.upstream and spec.upstreams are both given; give one: move spec.upstream into spec.upstreams as one more entry, or remove spec.upstreams",
            );
        }
        if list.is_empty() {
            err(
                &mut out,
                "spec.upstreams",
                "must specify at least one item (or write spec.upstream for one upstream)",
            );
        }
        if list.len() > MAX_UPSTREAMS {
            err(
                &mut out,
                "spec.upstreams",
                format!(
                    "has {} entries, more than {MAX_UPSTREAMS} (the limit for one PackageVariantSet); split them over several sets",
                    list.len()
                ),
            );
            return out;
        }
        for (k, u) in list.iter().enumerate() {
            let field = format!("spec.upstreams[{k}]");
            if u.package.is_empty() {
                err(&mut out, format!("{field}.package"), "is a required field");
            }
            if u.repo.is_empty() {
                err(&mut out, format!("{field}.repo"), "is a required field");
            }
            if u.tag.is_none() && u.revision == 0 && u.workspace_name.is_empty() {
                err(
                    &mut out,
                    field.clone(),
                    format!("one of {field}.revision, {field}.workspaceName and {field}.tag must be specified"),
                );
            }
        }
    }
    for (field, u) in written(set) {
        let Some(tag) = &u.tag else { continue };
        if u.revision != 0 || !u.workspace_name.is_empty() {
            let (name, value) = if u.revision != 0 {
                ("revision", u.revision.to_string())
            } else {
                ("workspaceName", format!("{:?}", u.workspace_name))
            };
            err(
                &mut out,
                format!("{field}.tag"),
                format!(
                    "{field} gives both tag {tag:?} and {name} {value}; give one: keep tag: {tag:?} to follow the tag (the variants get the revision it names), or {name}: {value} to stay at that revision"
                ),
            );
        }
        if let Some(why) = tags::tag_problem(tag) {
            err(&mut out, format!("{field}.tag"), why);
        }
    }
    out
}

/// What a tag of a package names: the item index and revision, or why nothing.
type TagResolution = Result<(usize, i64), String>;

/// Every upstream of the set, resolved against the PackageRevisions among the items (of its
/// repo and package, in `namespace`, either API version). Every upstream that cannot be is an
/// error. The revisions are indexed once; a tag is resolved once per package.
pub fn resolve(
    set: &PackageVariantSet,
    items: &[Item],
    namespace: &str,
) -> Result<Vec<ResolvedUpstream>, Vec<ResultItem>> {
    resolve_with(
        set,
        items,
        namespace,
        &revisions::Index::new(items, namespace)?,
    )
}

/// [`resolve`] over the PackageRevisions already indexed (`index`, of `items` in
/// `namespace`): the expansion builds the index once and hands it on to the activation.
pub fn resolve_with(
    set: &PackageVariantSet,
    items: &[Item],
    namespace: &str,
    index: &revisions::Index,
) -> Result<Vec<ResolvedUpstream>, Vec<ResultItem>> {
    let written = written(set);
    let empty = revisions::Bucket::default();
    let mut tagged: FastMap<(&str, &str, &str), TagResolution> = FastMap::default();
    let mut hints = hints::Budget::default();
    let mut out = Vec::with_capacity(written.len());
    let mut errors = Vec::new();
    for (field, u) in &written {
        let bucket = index.bucket(&u.repo, &u.package).unwrap_or(&empty);
        let resolved = match &u.tag {
            None => {
                let plain = u.as_written();
                // Porch's `getUpstreamPR`: the first with the revision or the workspace name.
                match bucket.find(&plain) {
                    Some(r) => Ok((r.item, plain)),
                    None => {
                        let near = hints.near(&plain, bucket, index, items, namespace);
                        Err((field.clone(), upstream_not_found(&plain, namespace) + &near))
                    }
                }
            }
            Some(tag) => tagged
                .entry((u.repo.as_str(), u.package.as_str(), tag.as_str()))
                .or_insert_with(|| tags::resolve(tag, u, &bucket.revisions, namespace))
                .clone()
                .map(|(i, revision)| (i, u.pinned(revision)))
                .map_err(|m| (format!("{field}.tag"), m)),
        };
        match resolved {
            Ok((item, upstream)) => out.push(ResolvedUpstream {
                upstream,
                item,
                tag: u.tag.clone(),
                field: field.clone(),
            }),
            Err((field, message)) => err(&mut errors, field, message),
        }
    }
    if errors.is_empty() {
        Ok(out)
    } else {
        Err(errors)
    }
}

/// Every downstream once per upstream (in target order, then upstream order); a downstream
/// named after the upstream package takes each upstream's. One upstream: as unrolled.
pub fn spread(
    contexts: Vec<DownstreamContext>,
    upstreams: &[ResolvedUpstream],
) -> Result<Vec<DownstreamContext>, Box<ResultItem>> {
    if upstreams.len() <= 1 {
        return Ok(contexts);
    }
    let mut out = Vec::with_capacity(
        contexts
            .len()
            .saturating_mul(upstreams.len())
            .min(MAX_PACKAGE_VARIANTS),
    );
    for ctx in contexts {
        let named_after_upstream = ctx.entry.is_none_or(|e| e.package_name.is_none());
        for (k, u) in upstreams.iter().enumerate() {
            if out.len() >= MAX_PACKAGE_VARIANTS {
                return Err(Box::new(ResultItem::error(format!(
                    "the targets and spec.upstreams produce more than {MAX_PACKAGE_VARIANTS} PackageVariants (one per target and upstream; the limit for one PackageVariantSet); split them over several PackageVariantSets"
                ))
                .field("spec.upstreams")
                .on_config()));
            }
            let mut c = ctx.clone();
            c.upstream = k;
            if named_after_upstream {
                c.package_default = u.upstream.package.clone();
            }
            out.push(c);
        }
    }
    Ok(out)
}

/// How the summary names a change of the tag annotation.
pub const TAG_FIELD: &str = "metadata.annotations[package-variant.fn.kpt.dev/upstream-tag]";

/// The edit of an existing variant's tag annotation so that it says `wanted`, or `None`
/// when it already does (`Some(None)`: remove it).
pub fn tag_edit(item: Option<&Item>, wanted: Option<&str>) -> Option<Option<String>> {
    let current = item.and_then(|v| {
        v.annotations()
            .find(|(k, _)| *k == UPSTREAM_TAG_ANNOTATION)
            .map(|(_, v)| v)
    });
    (current != wanted).then(|| wanted.map(str::to_string))
}

/// Writes the tag annotation of an existing variant's `tree` (`None`: removes it). Returns
/// whether it changed anything.
pub fn write_tag(tree: &mut crate::yaml::Node, tag: Option<&str>) -> bool {
    use crate::yaml::Node;
    match tag {
        Some(tag) => tree
            .upsert_mapping("metadata")
            .and_then(|m| m.upsert_mapping("annotations"))
            .is_some_and(|a| a.set(UPSTREAM_TAG_ANNOTATION, Node::string(tag))),
        None => tree
            .path_mut(&["metadata", "annotations"])
            .and_then(|a| a.remove(UPSTREAM_TAG_ANNOTATION))
            .is_some(),
    }
}

/// What the summary adds about tags: `; tag "stable" of blueprints/nginx resolved to
/// revision 3 (PackageRevision blueprints.nginx.v3)`, one per tagged upstream.
pub fn summary(upstreams: &[ResolvedUpstream], items: &[Item]) -> String {
    let mut out = String::new();
    for u in upstreams {
        let Some(tag) = &u.tag else { continue };
        let name = items.get(u.item).map_or("", Item::name);
        out.push_str(&format!(
            "; {} tag {tag:?} of {}/{} resolved to revision {} (PackageRevision {name:?})",
            u.field, u.upstream.repo, u.upstream.package, u.upstream.revision
        ));
    }
    out
}

#[cfg(test)]
mod tests;
