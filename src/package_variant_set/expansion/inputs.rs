//! What the expander reads from the items: PackageRevisions, PackageRevisionResources and
//! PackageVariants in full,
//! Repositories and objectSelector targets from their metadata alone (CEL and the selectors see
//! nothing else of them).
//!
//! A fleet is mostly Repositories, so they are never copied: an [`Item`] borrows the metadata
//! the ResourceList already holds, and only the few whole objects are converted to JSON.
//!
//! [`scope`]: which of them the set may read (namespaces never guessed, one object per
//! identity).

pub mod scope;

use crate::api::package_variant::{
    EXTENSION_API_VERSION, PACKAGE_VARIANT_API_VERSION, PACKAGE_VARIANT_KIND,
};
use crate::krm::object::{json_at, MetaPairs, ObjectMeta, LEGACY_PATH_ANNOTATION, PATH_ANNOTATION};
use crate::krm::resource_list::ResourceList;
use crate::krm::results::ResultItem;
use crate::yaml;
use serde_json::Value;

/// The group (as an apiVersion prefix) and kind of Porch's PackageRevisions.
const PACKAGE_REVISION: (&str, &str) = ("porch.kpt.dev/", "PackageRevision");
/// Porch's v1alpha1 object of a revision's files: the render state of a downstream is in its
/// Kptfile (`reconciliation::render_state`).
const PACKAGE_REVISION_RESOURCES: (&str, &str) =
    ("porch.kpt.dev/v1alpha1", "PackageRevisionResources");
const REPOSITORY: (&str, &str) = ("config.porch.kpt.dev/v1alpha1", "Repository");

/// One input item as the expander sees it.
#[derive(Debug, Clone, Copy)]
pub enum Item<'a> {
    /// An item the expander does not read: it has no kind, name or labels here.
    Absent,
    /// Identity, labels and annotations only (Repositories, objectSelector targets).
    Meta(ObjectMeta<'a>),
    /// The whole object (PackageRevisions, PackageVariants, and every item given as JSON).
    Json(&'a Value),
}

/// The string at `pointer` of a JSON object, or `""`.
fn json_str<'a>(v: &'a Value, pointer: &str) -> &'a str {
    json_at(v, pointer).and_then(Value::as_str).unwrap_or("")
}

/// String pairs of `metadata.labels` or `metadata.annotations`, as the item holds them.
pub enum Pairs<'a> {
    Meta(MetaPairs<'a>),
    Json(Option<serde_json::map::Iter<'a>>),
}

impl<'a> Iterator for Pairs<'a> {
    type Item = (&'a str, &'a str);

    fn next(&mut self) -> Option<Self::Item> {
        match self {
            Pairs::Meta(it) => it.next(),
            // Values that are not strings are not labels (as the selectors and CEL read them).
            Pairs::Json(it) => it
                .as_mut()?
                .find_map(|(k, v)| v.as_str().map(|v| (k.as_str(), v))),
        }
    }
}

impl<'a> Item<'a> {
    pub fn api_version(&self) -> &'a str {
        match self {
            Item::Absent => "",
            Item::Meta(m) => m.api_version(),
            Item::Json(v) => json_str(v, "/apiVersion"),
        }
    }

    pub fn kind(&self) -> &'a str {
        match self {
            Item::Absent => "",
            Item::Meta(m) => m.kind(),
            Item::Json(v) => json_str(v, "/kind"),
        }
    }

    /// `metadata.name`, or `""`.
    pub fn name(&self) -> &'a str {
        match self {
            Item::Absent => "",
            Item::Meta(m) => m.name(),
            Item::Json(v) => json_str(v, "/metadata/name"),
        }
    }

    /// `metadata.namespace`, or `""`.
    pub fn namespace(&self) -> &'a str {
        match self {
            Item::Absent => "",
            Item::Meta(m) => m.namespace().unwrap_or(""),
            Item::Json(v) => json_str(v, "/metadata/namespace"),
        }
    }

    /// The file kpt read the item from, if it says.
    pub fn path(&self) -> Option<&'a str> {
        match self {
            Item::Absent => None,
            Item::Meta(m) => m.path(),
            Item::Json(v) => {
                let a = json_at(v, "/metadata/annotations")?;
                [PATH_ANNOTATION, LEGACY_PATH_ANNOTATION]
                    .iter()
                    .find_map(|k| a.get(*k)?.as_str())
            }
        }
    }

    /// The label `key`, when it is a string.
    pub fn label(&self, key: &str) -> Option<&'a str> {
        match self {
            Item::Absent => None,
            Item::Meta(m) => m.label(key),
            Item::Json(v) => json_at(v, "/metadata/labels")?.get(key)?.as_str(),
        }
    }

    pub fn labels(&self) -> Pairs<'a> {
        self.pairs("labels")
    }

    pub fn annotations(&self) -> Pairs<'a> {
        self.pairs("annotations")
    }

    fn pairs(&self, field: &str) -> Pairs<'a> {
        match self {
            Item::Absent => Pairs::Json(None),
            Item::Meta(m) if field == "labels" => Pairs::Meta(m.labels()),
            Item::Meta(m) => Pairs::Meta(m.annotations()),
            Item::Json(v) => Pairs::Json(
                v.get("metadata")
                    .and_then(|m| m.get(field))
                    .and_then(Value::as_object)
                    .map(|m| m.iter()),
            ),
        }
    }

    /// The whole object, for the kinds read in full.
    pub fn json(&self) -> Option<&'a Value> {
        match self {
            Item::Json(v) => Some(v),
            _ => None,
        }
    }

    /// True when both are the same item of the input (not merely equal).
    pub fn same(&self, other: &Item) -> bool {
        match (self, other) {
            (Item::Meta(a), Item::Meta(b)) => a.is_same(b),
            (Item::Json(a), Item::Json(b)) => std::ptr::eq(*a, *b),
            _ => false,
        }
    }

    /// True for this apiVersion and kind, visible from `namespace`. An item without namespace
    /// counts as being in it: [`scope::check`] has refused such items already where the set
    /// names its namespace (the kinds that have none aside).
    pub fn is_kind_in_namespace(&self, api_version: &str, kind: &str, namespace: &str) -> bool {
        if self.api_version() != api_version || self.kind() != kind {
            return false;
        }
        let ns = self.namespace();
        ns.is_empty() || ns == namespace
    }
}

/// Every item given as JSON (the form `expand` takes).
pub fn from_json(items: &[Value]) -> Vec<Item<'_>> {
    items.iter().map(Item::Json).collect()
}

/// The items of a ResourceList that the expander reads in full, converted to JSON.
pub struct Read {
    /// (item index, object) in item order.
    full: Vec<(usize, Value)>,
    /// `(apiVersion, kind)` of every objectSelector target.
    selected: Vec<(String, String)>,
}

impl Read {
    /// Every item as the expander sees it, in ResourceList order.
    pub fn items<'a>(&'a self, rl: &'a ResourceList) -> Vec<Item<'a>> {
        let mut full = self.full.iter().peekable();
        rl.items
            .metas()
            .enumerate()
            .map(|(i, m)| {
                if let Some((_, v)) = full.next_if(|(at, _)| *at == i) {
                    return Item::Json(v);
                }
                let read = m.is(REPOSITORY.0, REPOSITORY.1)
                    || self
                        .selected
                        .iter()
                        .any(|(v, k)| *v == m.api_version() && *k == m.kind());
                if read {
                    Item::Meta(m)
                } else {
                    Item::Absent
                }
            })
            .collect()
    }
}

/// Reads the PackageRevisions and PackageVariants in full. An item that cannot be read is an
/// error on that item.
pub fn read(rl: &ResourceList, config: &Value) -> Result<Read, Vec<ResultItem>> {
    let mut full = Vec::new();
    let mut errors = Vec::new();
    for (i, m) in rl.items.metas().enumerate() {
        // PackageRevisions of every porch.kpt.dev version: v1alpha1 and v1alpha2 are read, the
        // others only named in hints when an upstream is not found.
        let revision =
            m.kind() == PACKAGE_REVISION.1 && m.api_version().starts_with(PACKAGE_REVISION.0);
        if !(revision
            || m.is(PACKAGE_REVISION_RESOURCES.0, PACKAGE_REVISION_RESOURCES.1)
            || m.is(PACKAGE_VARIANT_API_VERSION, PACKAGE_VARIANT_KIND)
            || m.is(EXTENSION_API_VERSION, PACKAGE_VARIANT_KIND))
        {
            continue;
        }
        match rl.original(i).map(|t| yaml::to_json(&t)) {
            Ok(Ok(v)) => full.push((i, v)),
            Ok(Err(e)) => {
                errors.push(ResultItem::error(format!("cannot read item: {e}")).on_item(i));
            }
            Err(e) => errors.push(*e),
        }
    }
    if errors.is_empty() {
        Ok(Read {
            full,
            selected: selected_kinds(config),
        })
    } else {
        Err(errors)
    }
}

/// `(apiVersion, kind)` of every objectSelector target.
fn selected_kinds(config: &Value) -> Vec<(String, String)> {
    config
        .pointer("/spec/targets")
        .and_then(Value::as_array)
        .map(|targets| {
            targets
                .iter()
                .filter_map(|t| t.get("objectSelector"))
                .filter_map(|s| {
                    Some((
                        s.get("apiVersion")?.as_str()?.to_string(),
                        s.get("kind")?.as_str()?.to_string(),
                    ))
                })
                .collect()
        })
        .unwrap_or_default()
}
