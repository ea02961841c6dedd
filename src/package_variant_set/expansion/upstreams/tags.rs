//! Floating tags: which Published PackageRevision a tag names.
//!
//! `latest` is the revision Porch labels `kpt.dev/latest-revision: "true"` (v1alpha2:
//! `porch.kpt.dev/latest-revision`), or, when no
//! revision of the package carries that label, the highest Published revision. Any other tag
//! `T` is the revision labelled `package-variant.fn.kpt.dev/tag-T: "true"`, so that an author
//! moves it with `kubectl label`. A tag on two revisions, on none, or on one that is not
//! Published is an error naming the revisions: a variant never follows a guess.

use super::revisions::{Revision, V1ALPHA2, V1ALPHA2_LATEST_LABEL};
use crate::api::package_variant_set::SetUpstream;
use crate::api::suggest::closest;
use crate::krm::object::json_at;
use crate::package_variant_set::expansion::kubectl::{kubectl_get, shell_word};
use crate::package_variant_set::expansion::targets::{
    PACKAGE_REVISION_API_VERSION, PACKAGE_REVISION_KIND,
};

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

/// Whether `r` carries `tag`: Porch's latest-revision label of its version for `latest`, else
/// the tag's label.
fn carries(r: &Revision, tag: &str, label: &str) -> bool {
    if tag == LATEST {
        r.latest
    } else {
        r.label(label) == Some("true")
    }
}

fn lifecycle_of<'a>(r: &Revision<'a>) -> &'a str {
    match r.lifecycle {
        "" => "no lifecycle",
        l => l,
    }
}

/// `"blueprints.nginx.v2" (revision 2, Published)`.
fn describe(r: &Revision) -> String {
    format!(
        "{:?} (revision {}, {})",
        r.name,
        r.revision,
        lifecycle_of(r)
    )
}

/// The revisions, named: at most [`MAX_NAMED`], then a count.
pub fn named(prs: &[&Revision]) -> String {
    let mut parts: Vec<String> = prs.iter().take(MAX_NAMED).map(|p| describe(p)).collect();
    if prs.len() > MAX_NAMED {
        parts.push(format!("and {} more", prs.len() - MAX_NAMED));
    }
    parts.join(", ")
}

/// Resolves `tag` of upstream `u` among the revisions of its package (in item order): the
/// item index and revision it names, or the error message.
pub fn resolve(
    tag: &str,
    u: &SetUpstream,
    prs: &[Revision],
    namespace: &str,
) -> Result<(usize, i64), String> {
    let label = label_of(tag);
    let tagged: Vec<&Revision> = prs.iter().filter(|r| carries(r, tag, &label)).collect();
    let of = format!("of package {:?} in repo {:?}", u.package, u.repo);
    let get = kubectl_get(
        PACKAGE_REVISION_API_VERSION,
        PACKAGE_REVISION_KIND,
        namespace,
    );
    let found = match tagged.as_slice() {
        [r] if lifecycle_of(r) == PUBLISHED => Ok((r.item, r.revision, **r)),
        [r] => Err(format!(
            "tag {tag:?} {of} is on PackageRevision {}, which is not Published; a tag names a Published revision only: publish it, or move the label {} to a Published revision (kubectl label packagerevisions.porch.kpt.dev {} -n {} {}-)",
            describe(r),
            latest_label(r, tag, &label),
            shell_word(r.name),
            shell_word(namespace),
            latest_label(r, tag, &label),
        )),
        [] if tag == LATEST => highest_published(prs, &of, &get),
        [] => Err(names_nothing(tag, &of, prs, &get)),
        many => Err(format!(
            "tag {tag:?} {of} is on {} PackageRevisions: {}; a tag names one revision: remove the label {label} from all but one",
            many.len(),
            named(many)
        )),
    }?;
    // A variant needs a revision number to start from (0 would leave it unset).
    if found.1 <= 0 {
        return Err(format!(
            "tag {tag:?} {of} names PackageRevision {}, which has no {} (a Published revision has one); pass it as the cluster holds it ({get})",
            describe(&found.2),
            if found.2.api_version == V1ALPHA2 {
                "status.revision"
            } else {
                "spec.revision"
            }
        ));
    }
    Ok((found.0, found.1))
}

/// The label that carries `tag` on `r` (`latest`: its version's latest-revision label).
fn latest_label(r: &Revision, tag: &str, label: &str) -> String {
    if tag == LATEST && r.api_version == V1ALPHA2 {
        V1ALPHA2_LATEST_LABEL.to_string()
    } else {
        label.to_string()
    }
}

/// `latest` when no revision carries Porch's label: the highest Published revision.
fn highest_published<'a>(
    prs: &[Revision<'a>],
    of: &str,
    get: &str,
) -> Result<(usize, i64, Revision<'a>), String> {
    let published: Vec<&Revision> = prs
        .iter()
        .filter(|r| lifecycle_of(r) == PUBLISHED)
        .collect();
    let Some(top) = published.iter().map(|r| r.revision).max() else {
        let all: Vec<&Revision> = prs.iter().collect();
        let found = if all.is_empty() {
            "there is no PackageRevision of it among the input items".to_string()
        } else {
            format!("none of its PackageRevisions is Published: {}", named(&all))
        };
        return Err(format!(
            "tag \"latest\" {of} names nothing: {found}; publish a revision, or pass the PackageRevisions with the other inputs ({get})"
        ));
    };
    let at_top: Vec<&Revision> = published
        .into_iter()
        .filter(|r| r.revision == top)
        .collect();
    match at_top.as_slice() {
        [r] => Ok((r.item, top, **r)),
        many => Err(format!(
            "tag \"latest\" {of} is ambiguous: {} Published PackageRevisions have the highest revision {top}: {}; keep one of them, or label the latest {LATEST_LABEL}: \"true\" ({V1ALPHA2_LATEST_LABEL} on v1alpha2)",
            many.len(),
            named(many)
        )),
    }
}

/// A tag no revision carries: the tags the revisions do carry, and the closest of them.
fn names_nothing(tag: &str, of: &str, prs: &[Revision], get: &str) -> String {
    let mut present: Vec<&str> = Vec::new();
    for r in prs {
        let Some(labels) = json_at(r.json, "/metadata/labels").and_then(|l| l.as_object()) else {
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
    if prs.iter().any(|r| lifecycle_of(r) == PUBLISHED) {
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
