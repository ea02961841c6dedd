//! The render state of a downstream given in Porch's v1alpha1 API, read from the package
//! itself: the Kptfile inside its `PackageRevisionResources` (`porch.kpt.dev/v1alpha1`,
//! `spec.resources["Kptfile"]`).
//!
//! Why: most Porch installations serve v1alpha1, whose PackageRevision carries no render
//! state; kpt (1.0.0-beta.56) writes it into the Kptfile it renders, as the `Rendered`
//! condition in `status.conditions` and `status.renderStatus` (its steps, which may carry
//! `when` and `skipped`, and an `errorSummary`). So, for a variant's downstream package:
//!
//! - **which revisions count**: as for v1alpha2 ([`super::downstream_revisions`]), the ones
//!   Porch's controller works on: its drafts, else its newest published revision. A
//!   PackageRevisionResources has no lifecycle: it is the lifecycle of the v1alpha1
//!   PackageRevision of the same name when that is among the items, else Draft for a revision
//!   without a number (0 or absent) and Published for one with a number;
//! - **not ready**: a `Rendered` condition other than `True`, or a non-empty
//!   `status.renderStatus.errorSummary`; what is shown is the condition's reason and the first
//!   line of its message (or of the error summary);
//! - **refused**: `spec.resources` that is not a map of file texts, a Kptfile that does not
//!   parse, is empty (`""`, `~`) or is not a mapping, conditions the one reader refuses
//!   ([`super::fleet_conditions`]: a mapping, a type given twice, an unknown status), and a
//!   `spec.revision` that is not an integer (an error naming the revision: nothing can be said
//!   of its render, so nothing moves).

use serde_json::Value;

use super::fleet_conditions;
use crate::common::fast_hash::FastMap;
use crate::krm::object::json_at;
use crate::krm::results::ResultItem;
use crate::package_variant_set::expansion::inputs::Item;
use crate::package_variant_set::expansion::targets::str_at;
use crate::package_variant_set::expansion::upstreams::revisions::{whole_number, Index, V1ALPHA1};
use crate::yaml;

/// Porch's object holding a package revision's files.
pub const KIND: &str = "PackageRevisionResources";

/// Most characters of a condition's message (or a render error's first line) shown.
const LINE_SHOWN: usize = 200;

/// The PackageRevisionResources of the set's namespace, by (repository, package).
#[derive(Debug, Default)]
pub struct Resources<'a> {
    by_package: FastMap<(&'a str, &'a str), Vec<usize>>,
}

impl<'a> Resources<'a> {
    /// One pass over `items`: the v1alpha1 PackageRevisionResources in `namespace` (or
    /// without one).
    pub fn new(items: &[Item<'a>], namespace: &str) -> Self {
        let mut by_package: FastMap<(&'a str, &'a str), Vec<usize>> = FastMap::default();
        for (i, item) in items.iter().enumerate() {
            if item.kind() != KIND || item.api_version() != V1ALPHA1 {
                continue;
            }
            let ns = item.namespace();
            if !(ns.is_empty() || ns == namespace) {
                continue;
            }
            let Some(json) = item.json() else { continue };
            let package = (
                str_at(json, "/spec/repository"),
                str_at(json, "/spec/packageName"),
            );
            by_package.entry(package).or_default().push(i);
        }
        Resources { by_package }
    }

    /// Whether `package` has any PackageRevisionResources among the items.
    pub fn has(&self, package: (&str, &str)) -> bool {
        self.by_package.contains_key(&package)
    }

    /// What the Kptfile of the revisions of `package` that count says when its render
    /// failed: `(item, "PackageRevisionResources \"x\" Kptfile Rendered False (...): ...")`;
    /// `None` when it rendered or says nothing.
    pub fn verdict(
        &self,
        items: &[Item<'a>],
        index: &Index<'a>,
        package: (&str, &str),
    ) -> Result<Option<(usize, String)>, Box<ResultItem>> {
        let Some(list) = self.by_package.get(&package) else {
            return Ok(None);
        };
        let lifecycle_of = |name: &str| -> Option<&str> {
            index
                .bucket(package.0, package.1)?
                .revisions
                .iter()
                .find(|r| r.api_version == V1ALPHA1 && r.name == name)
                .map(|r| r.lifecycle)
        };
        let (mut drafts, mut newest, mut top) = (Vec::new(), Vec::new(), i64::MIN);
        for &i in list {
            let Some(json) = items.get(i).and_then(Item::json) else {
                continue;
            };
            // The same number rules as a PackageRevision's: `"2"` is refused, never read as 0
            // (which would hide a failed revision 2 behind revision 1).
            let revision = whole_number(json, "/spec/revision")
                .map_err(|m| {
                    Box::new(
                        ResultItem::error(format!(
                            "of PackageRevisionResources {:?} {m}",
                            str_at(json, "/metadata/name")
                        ))
                        .field("spec.revision")
                        .on_item(i),
                    )
                })?
                .unwrap_or(0);
            let draft = match lifecycle_of(str_at(json, "/metadata/name")) {
                Some(l) => matches!(l, "" | "Draft" | "Proposed"),
                None => revision <= 0,
            };
            if draft {
                drafts.push(i);
            } else if revision > top {
                (top, newest) = (revision, vec![i]);
            } else if revision == top {
                newest.push(i);
            }
        }
        let mut counted = if drafts.is_empty() { newest } else { drafts };
        counted.sort_unstable_by_key(|&i| items.get(i).map_or("", Item::name));
        for i in counted {
            if let Some(said) = kptfile_verdict(items, i)? {
                return Ok(Some((i, said)));
            }
        }
        Ok(None)
    }
}

/// What the Kptfile of the PackageRevisionResources at `item` says of its render.
fn kptfile_verdict(items: &[Item], item: usize) -> Result<Option<String>, Box<ResultItem>> {
    let Some(json) = items.get(item).and_then(Item::json) else {
        return Ok(None);
    };
    let name = str_at(json, "/metadata/name");
    let error = |field: &str, message: String| {
        Box::new(ResultItem::error(message).field(field).on_item(item))
    };
    let text = match json_at(json, "/spec/resources") {
        None | Some(Value::Null) => return Ok(None),
        Some(Value::Object(files)) => match files.get("Kptfile") {
            None => return Ok(None),
            Some(Value::String(text)) => text,
            Some(_) => {
                return Err(error(
                    "spec.resources.Kptfile",
                    format!("of PackageRevisionResources {name:?} is not text: spec.resources maps each file name to the file's text, as Porch serves it (kubectl get packagerevisionresources -n NS -o yaml)"),
                ))
            }
        },
        Some(_) => {
            return Err(error(
                "spec.resources",
                format!("of PackageRevisionResources {name:?} is not a map of file name to file text, as Porch serves it (kubectl get packagerevisionresources -n NS -o yaml)"),
            ))
        }
    };
    let kptfile = yaml::parse(text)
        .map_err(|e| e.to_string())
        .and_then(|node| yaml::to_json(&node));
    let kptfile = match kptfile {
        Ok(k) if k.is_object() => k,
        Ok(Value::Null) => {
            return Err(error(
                "spec.resources.Kptfile",
                format!("of PackageRevisionResources {name:?} is empty: a package's Kptfile is a mapping (apiVersion: kpt.dev/v1, kind: Kptfile) and says whether it rendered; an empty one says nothing, so nothing moves; pass the revision's resources as Porch serves them (kubectl get packagerevisionresources -n NS -o yaml)"),
            ))
        }
        Ok(_) => {
            return Err(error(
                "spec.resources.Kptfile",
                format!("of PackageRevisionResources {name:?} is not a Kptfile (a YAML mapping): its render state cannot be read, so nothing moves; pass the revision's resources as Porch serves them"),
            ))
        }
        Err(e) => {
            return Err(error(
                "spec.resources.Kptfile",
                format!("of PackageRevisionResources {name:?} does not parse ({}): its render state cannot be read, so nothing moves; pass the revision's resources as Porch serves them (kubectl get packagerevisionresources -n NS -o yaml)", first_line(&e)),
            ))
        }
    };
    // The Kptfile's conditions through the one reader: a mapping, a Rendered given twice or a
    // status kpt never writes is refused, as on a v1alpha2 PackageRevision.
    let conditions = fleet_conditions::read(&kptfile).map_err(|e| {
        error(
            "spec.resources.Kptfile",
            format!(
                "of PackageRevisionResources {name:?}: the Kptfile's {} {}; its render state cannot be read, so nothing moves",
                e.field, e.message
            ),
        )
    })?;
    if let Some(c) = fleet_conditions::find(&conditions, "Rendered") {
        if c.status != fleet_conditions::Status::True {
            let mut said = format!(
                "PackageRevisionResources {name:?} Kptfile Rendered {}",
                c.status.text()
            );
            push_reason_and_message(&mut said, c.json, first_line);
            return Ok(Some(said));
        }
    }
    match str_at(&kptfile, "/status/renderStatus/errorSummary") {
        "" => Ok(None),
        summary => Ok(Some(format!(
            "PackageRevisionResources {name:?} Kptfile renderStatus.errorSummary: {:?}",
            first_line(summary)
        ))),
    }
}

/// The first non-empty line of `text`, [`shortened`].
pub fn first_line(text: &str) -> String {
    let line = text.lines().map(str::trim).find(|l| !l.is_empty());
    shortened(line.unwrap_or(""))
}

/// Appends a condition's ` (reason)` and `: "message"` (as `show` gives it), each when set.
pub fn push_reason_and_message(said: &mut String, condition: &Value, show: fn(&str) -> String) {
    match str_at(condition, "/reason") {
        "" => {}
        reason => said.push_str(&format!(" ({reason})")),
    }
    match str_at(condition, "/message") {
        "" => {}
        message => said.push_str(&format!(": {:?}", show(message))),
    }
}

/// `message`, cut to [`LINE_SHOWN`] characters with `...`.
pub fn shortened(message: &str) -> String {
    match message.char_indices().nth(LINE_SHOWN) {
        Some((end, _)) => format!("{}...", &message[..end]),
        None => message.to_string(),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_first_line_is_cut_at_a_character() {
        assert_eq!(first_line("\n  boom \nmore"), "boom");
        let long = "é".repeat(LINE_SHOWN + 5);
        assert_eq!(first_line(&long).chars().count(), LINE_SHOWN + 3);
    }
}
