//! Floating tags: which Published PackageRevision a tag names.
//!
//! `latest` is the revision Porch labels `kpt.dev/latest-revision: "true"`, or, when no
//! revision of the package carries that label, the highest Published revision. Any other tag
//! `T` is the revision labelled `package-variant.fn.kpt.dev/tag-T: "true"`, so that an author
//! moves it with `kubectl label`. A tag on two revisions, on none, or on one that is not
//! Published is an error naming the revisions: a variant never follows a guess.

use super::super::inputs::Item;
use super::super::targets::{
    kubectl_get, shell_word, str_at, PACKAGE_REVISION_API_VERSION, PACKAGE_REVISION_KIND,
};
use crate::api::package_variant_set::SetUpstream;
use crate::api::suggest::closest;
use crate::krm::object::json_at;

/// The tag every package has.
pub const LATEST: &str = "latest";
/// Porch's label on the latest Published revision of a package.
pub const LATEST_LABEL: &str = "kpt.dev/latest-revision";
/// The label that puts tag `T` on a revision: this prefix and `T`.
pub const TAG_LABEL_PREFIX: &str = "package-variant.fn.kpt.dev/tag-";
/// The lifecycle a tag may name.
const PUBLISHED: &str = "Published";
/// Most revisions named in one message.
const MAX_NAMED: usize = 10;

/// The label that puts `tag` on a revision.
pub fn label_of(tag: &str) -> String {
    if tag == LATEST {
        LATEST_LABEL.to_string()
    } else {
        format!("{TAG_LABEL_PREFIX}{tag}")
    }
}

/// Why `tag` cannot be a tag (its label would not be a valid label key), or `None`.
pub fn tag_problem(tag: &str) -> Option<String> {
    let name = format!("tag-{tag}");
    let valid = !tag.is_empty()
        && name.len() <= 63
        && name
            .bytes()
            .all(|b| b.is_ascii_alphanumeric() || b"-_.".contains(&b))
        && name
            .bytes()
            .last()
            .is_some_and(|b| b.is_ascii_alphanumeric());
    (!valid).then(|| {
        format!(
            "tag {tag:?} cannot be a tag: its label {TAG_LABEL_PREFIX}{tag} must be a valid label key (the tag non-empty, at most 59 characters of letters, digits, '-', '_' and '.', ending with a letter or digit); write a tag such as \"stable\""
        )
    })
}

fn label_is_true(pr: &serde_json::Value, key: &str) -> bool {
    json_at(pr, "/metadata/labels")
        .and_then(|l| l.get(key))
        .and_then(serde_json::Value::as_str)
        == Some("true")
}

pub fn revision_of(pr: &serde_json::Value) -> i64 {
    json_at(pr, "/spec/revision")
        .and_then(serde_json::Value::as_i64)
        .unwrap_or(0)
}

fn lifecycle_of(pr: &serde_json::Value) -> &str {
    match str_at(pr, "/spec/lifecycle") {
        "" => "no lifecycle",
        l => l,
    }
}

/// `"blueprints.nginx.v2" (revision 2, Published)`.
fn describe(pr: &serde_json::Value) -> String {
    format!(
        "{:?} (revision {}, {})",
        str_at(pr, "/metadata/name"),
        revision_of(pr),
        lifecycle_of(pr)
    )
}

/// The revisions, named: at most [`MAX_NAMED`], then a count.
pub fn named(prs: &[&serde_json::Value]) -> String {
    let mut parts: Vec<String> = prs.iter().take(MAX_NAMED).map(|p| describe(p)).collect();
    if prs.len() > MAX_NAMED {
        parts.push(format!("and {} more", prs.len() - MAX_NAMED));
    }
    parts.join(", ")
}

/// Resolves `tag` of upstream `u` among `bucket` (item indexes of its PackageRevisions, in
/// item order): the item index and revision it names, or the error message.
pub fn resolve(
    tag: &str,
    u: &SetUpstream,
    bucket: &[usize],
    items: &[Item],
    namespace: &str,
) -> Result<(usize, i64), String> {
    let prs: Vec<(usize, &serde_json::Value)> = bucket
        .iter()
        .filter_map(|&i| Some((i, items.get(i)?.json()?)))
        .collect();
    let label = label_of(tag);
    let tagged: Vec<(usize, &serde_json::Value)> = prs
        .iter()
        .copied()
        .filter(|(_, pr)| label_is_true(pr, &label))
        .collect();
    let of = format!("of package {:?} in repo {:?}", u.package, u.repo);
    let get = kubectl_get(
        PACKAGE_REVISION_API_VERSION,
        PACKAGE_REVISION_KIND,
        namespace,
    );
    let found = match tagged.as_slice() {
        [(i, pr)] if lifecycle_of(pr) == PUBLISHED => Ok((*i, revision_of(pr))),
        [(_, pr)] => Err(format!(
            "tag {tag:?} {of} is on PackageRevision {}, which is not Published; a tag names a Published revision only: publish it, or move the label {label} to a Published revision (kubectl label packagerevisions.porch.kpt.dev {} -n {} {label}-)",
            describe(pr),
            shell_word(str_at(pr, "/metadata/name")),
            shell_word(namespace),
        )),
        [] if tag == LATEST => highest_published(&prs, &of, &get),
        [] => Err(names_nothing(tag, &of, &prs, &get)),
        many => {
            let list: Vec<&serde_json::Value> = many.iter().map(|(_, p)| *p).collect();
            Err(format!(
                "tag {tag:?} {of} is on {} PackageRevisions: {}; a tag names one revision: remove the label {label} from all but one",
                many.len(),
                named(&list)
            ))
        }
    }?;
    // A variant needs a revision number to start from (0 would leave it unset).
    if found.1 <= 0 {
        let pr = items.get(found.0).and_then(Item::json);
        return Err(format!(
            "tag {tag:?} {of} names PackageRevision {}, which has no spec.revision (a Published revision has one); pass it as the cluster holds it ({get})",
            pr.map_or_else(String::new, describe)
        ));
    }
    Ok(found)
}

/// `latest` when no revision carries Porch's label: the highest Published revision.
fn highest_published(
    prs: &[(usize, &serde_json::Value)],
    of: &str,
    get: &str,
) -> Result<(usize, i64), String> {
    let published: Vec<(usize, &serde_json::Value)> = prs
        .iter()
        .copied()
        .filter(|(_, pr)| lifecycle_of(pr) == PUBLISHED)
        .collect();
    let Some(top) = published.iter().map(|(_, pr)| revision_of(pr)).max() else {
        let all: Vec<&serde_json::Value> = prs.iter().map(|(_, p)| *p).collect();
        let found = if all.is_empty() {
            "there is no PackageRevision of it among the input items".to_string()
        } else {
            format!("none of its PackageRevisions is Published: {}", named(&all))
        };
        return Err(format!(
            "tag \"latest\" {of} names nothing: {found}; publish a revision, or pass the PackageRevisions with the other inputs ({get})"
        ));
    };
    let at_top: Vec<(usize, &serde_json::Value)> = published
        .into_iter()
        .filter(|(_, pr)| revision_of(pr) == top)
        .collect();
    match at_top.as_slice() {
        [(i, _)] => Ok((*i, top)),
        many => {
            let list: Vec<&serde_json::Value> = many.iter().map(|(_, p)| *p).collect();
            Err(format!(
                "tag \"latest\" {of} is ambiguous: {} Published PackageRevisions have the highest revision {top}: {}; keep one of them, or label the latest {LATEST_LABEL}: \"true\"",
                many.len(),
                named(&list)
            ))
        }
    }
}

/// A tag no revision carries: the tags the revisions do carry, and the closest of them.
fn names_nothing(tag: &str, of: &str, prs: &[(usize, &serde_json::Value)], get: &str) -> String {
    let mut present: Vec<&str> = Vec::new();
    for (_, pr) in prs {
        let Some(labels) = json_at(pr, "/metadata/labels").and_then(|l| l.as_object()) else {
            continue;
        };
        for (k, v) in labels {
            if let Some(t) = k.strip_prefix(TAG_LABEL_PREFIX) {
                if v.as_str() == Some("true") && !present.contains(&t) {
                    present.push(t);
                }
            }
        }
    }
    if prs.iter().any(|(_, pr)| lifecycle_of(pr) == PUBLISHED) {
        present.push(LATEST);
    }
    present.sort_unstable();
    let hint = match closest(tag, present.iter().copied()) {
        Some(c) => format!("; did you mean {c:?}?"),
        None => String::new(),
    };
    let tags = if present.is_empty() {
        "none".to_string()
    } else {
        present
            .iter()
            .map(|t| format!("{t:?}"))
            .collect::<Vec<_>>()
            .join(", ")
    };
    let label = label_of(tag);
    format!(
        "tag {tag:?} {of} names nothing: no PackageRevision of it among the input items carries the label {label}: \"true\"; label the revision to follow (kubectl label packagerevisions.porch.kpt.dev NAME -n NAMESPACE {label}=true), or pass the PackageRevisions with the other inputs ({get}); the tags its revisions carry: {tags}{hint}"
    )
}
