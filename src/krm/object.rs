//! KRM object identity: the few fields every function reads from every item.
//!
//! Reading `apiVersion`, `kind`, name, namespace, labels and annotations once per item, into a
//! small record, lets the functions select and index items without holding every item's tree.
//! An item's record is read through an [`ObjectMeta`], a view of it: the items' records sit
//! one after another in two buffers ([`crate::krm::items`]), with no allocation per item; a
//! record read on its own (the functionConfig's) is a [`MetaRecord`].

mod record;

pub use record::MetaRecord;
pub(crate) use record::{Read, Record};

use crate::krm::results::{FileRef, ResourceRef};

/// kpt's annotation for the file an item came from (and its legacy twin).
pub const PATH_ANNOTATION: &str = "internal.config.kubernetes.io/path";
pub const LEGACY_PATH_ANNOTATION: &str = "config.kubernetes.io/path";
/// kpt's annotation for the document index inside that file (and its legacy twin).
pub const INDEX_ANNOTATION: &str = "internal.config.kubernetes.io/index";
pub const LEGACY_INDEX_ANNOTATION: &str = "config.kubernetes.io/index";
/// Marks resources that are not deployed (Kptfile, package context, function configs).
pub const LOCAL_CONFIG_ANNOTATION: &str = "config.kubernetes.io/local-config";

/// The identity and metadata of one item, read through the accessors: a view of its record
/// (every text in one buffer, where each ends; a String per field and per label was most of a
/// large package's memory and a sixth of its allocations).
#[derive(Clone, Copy, Default)]
pub struct ObjectMeta<'a> {
    /// False when the item is not a mapping at all.
    pub is_object: bool,
    /// From `base` on, the texts one after another: apiVersion, kind, name, namespace, then
    /// each label's key and value, then each annotation's. Empty when none was read. (The
    /// buffer is every item's: a view costs no slicing, it is made for every look at an item.)
    text: &'a str,
    base: usize,
    /// Where each text of `text` ends (`FIXED` of them, then two per pair), or empty; or, in
    /// the top bits, which of [`COMMON`] it is (then it takes no room in `text`).
    ends: Ends<'a>,
    /// How many of the pairs are labels (the rest are annotations).
    labels: u32,
    /// Why the metadata could not be read as kpt reads it, if it could not: the item must not
    /// be selected, isolated or identified by a guess.
    pub problem: Option<&'a MetaProblem>,
}

/// Equal when every text reads the same (wherever the records are).
impl PartialEq for ObjectMeta<'_> {
    fn eq(&self, other: &Self) -> bool {
        self.is_object == other.is_object
            && self.labels == other.labels
            && self.problem == other.problem
            && self.ends.len() == other.ends.len()
            && (0..self.ends.len()).all(|i| self.at(i) == other.at(i))
    }
}

impl Eq for ObjectMeta<'_> {}

impl std::fmt::Debug for ObjectMeta<'_> {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("ObjectMeta")
            .field("is_object", &self.is_object)
            .field("api_version", &self.api_version())
            .field("kind", &self.kind())
            .field("name", &self.name())
            .field("namespace", &self.namespace())
            .field("labels", &self.labels().collect::<Vec<_>>())
            .field("annotations", &self.annotations().collect::<Vec<_>>())
            .field("problem", &self.problem)
            .finish()
    }
}

/// Where a record's texts end: as written ([`OFFSET_BITS`] of offset under the [`COMMON`]
/// number), or in two bytes each when the texts take less than 4 KiB (most items: half the
/// room).
#[derive(Clone, Copy, Debug)]
pub(crate) enum Ends<'a> {
    Wide(&'a [u32]),
    Narrow(&'a [u16]),
}

/// A narrow end's bits below the [`COMMON`] number.
const NARROW_BITS: u32 = 12;

impl Ends<'_> {
    fn len(&self) -> usize {
        match self {
            Ends::Wide(e) => e.len(),
            Ends::Narrow(e) => e.len(),
        }
    }

    /// End `i`, as written.
    #[inline]
    fn get(&self, i: usize) -> Option<u32> {
        match self {
            Ends::Wide(e) => e.get(i).copied(),
            Ends::Narrow(e) => e.get(i).map(|&e| {
                let e = u32::from(e);
                (e & ((1 << NARROW_BITS) - 1)) | ((e >> NARROW_BITS) << OFFSET_BITS)
            }),
        }
    }

    /// True when every end of `wide` fits two bytes ([`narrow`](Self::narrow)).
    pub(crate) fn fit_narrow(wide: &[u32]) -> bool {
        wide.iter().all(|&e| (e & OFFSET) < 1 << NARROW_BITS)
    }

    /// An end as written, in two bytes.
    pub(crate) fn narrow(e: u32) -> u16 {
        ((e & OFFSET) | ((e >> OFFSET_BITS) << NARROW_BITS)) as u16
    }

    /// True when both are the same ends in memory (not merely equal ones).
    fn is_same(&self, other: &Ends) -> bool {
        match (self, other) {
            (Ends::Wide(a), Ends::Wide(b)) => !a.is_empty() && std::ptr::eq(*a, *b),
            (Ends::Narrow(a), Ends::Narrow(b)) => !a.is_empty() && std::ptr::eq(*a, *b),
            _ => false,
        }
    }
}

impl Default for Ends<'_> {
    fn default() -> Self {
        Ends::Wide(&[])
    }
}

/// The texts every record starts with: apiVersion, kind, name, namespace.
const FIXED: usize = 4;

/// Texts most items repeat (kpt's annotations on every item, common keys and values): a record
/// holds the number of one of these instead of its text, a third of a kpt item's metadata.
const COMMON: [&str; 15] = [
    PATH_ANNOTATION,
    LEGACY_PATH_ANNOTATION,
    INDEX_ANNOTATION,
    LEGACY_INDEX_ANNOTATION,
    LOCAL_CONFIG_ANNOTATION,
    "internal.config.kubernetes.io/id",
    "config.k8s.io/id",
    "internal.config.kubernetes.io/annotations-migration-resource-id",
    "internal.config.kubernetes.io/seqindent",
    "v1",
    "apps/v1",
    "ConfigMap",
    "app",
    "app.kubernetes.io/name",
    "true",
];

/// The [`COMMON`] text of each length, by number (from 1; 0 for none): their lengths differ,
/// so a text is compared with one of them at most (this runs for every text of every item).
const BY_LENGTH: [u8; 64] = {
    let mut t = [0u8; 64];
    let mut i = 0;
    while i < COMMON.len() {
        assert!(t[COMMON[i].len()] == 0, "two COMMON texts of one length");
        t[COMMON[i].len()] = i as u8 + 1;
        i += 1;
    }
    t
};

/// An end's bits below the [`COMMON`] number.
const OFFSET_BITS: u32 = 28;
const OFFSET: u32 = (1 << OFFSET_BITS) - 1;

/// The labels or annotations of an [`ObjectMeta`], as (key, value).
#[derive(Debug, Clone)]
pub struct MetaPairs<'a> {
    meta: ObjectMeta<'a>,
    next: usize,
    end: usize,
}

impl<'a> Iterator for MetaPairs<'a> {
    type Item = (&'a str, &'a str);

    fn next(&mut self) -> Option<Self::Item> {
        if self.next >= self.end {
            return None;
        }
        let at = FIXED + 2 * self.next;
        self.next += 1;
        Some((self.meta.at(at), self.meta.at(at + 1)))
    }

    fn size_hint(&self) -> (usize, Option<usize>) {
        let n = self.end - self.next;
        (n, Some(n))
    }
}

impl ExactSizeIterator for MetaPairs<'_> {}

/// Metadata that cannot be read as kpt reads it: where, and what to write instead.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct MetaProblem {
    /// Field path, e.g. `metadata.namespace`.
    pub field: String,
    pub message: String,
}

impl<'a> ObjectMeta<'a> {
    /// An item that is not a mapping.
    pub const NOT_OBJECT: ObjectMeta<'static> = ObjectMeta::empty(false);
    /// A mapping without apiVersion, kind or metadata.
    pub const BARE_OBJECT: ObjectMeta<'static> = ObjectMeta::empty(true);

    /// An object's record, read through: its texts from `base` on in `text`, and where each
    /// ends (see [`MetaRecord`]).
    pub(crate) fn from_parts(
        text: &'a str,
        base: usize,
        ends: Ends<'a>,
        labels: u32,
        problem: Option<&'a MetaProblem>,
    ) -> ObjectMeta<'a> {
        ObjectMeta {
            is_object: true,
            text,
            base,
            ends,
            labels,
            problem,
        }
    }

    const fn empty(is_object: bool) -> ObjectMeta<'static> {
        ObjectMeta {
            is_object,
            text: "",
            base: 0,
            ends: Ends::Wide(&[]),
            labels: 0,
            problem: None,
        }
    }

    /// Text `i` of the record ("" when there is none).
    fn at(&self, i: usize) -> &'a str {
        let Some(end) = self.ends.get(i) else {
            return "";
        };
        let common = end >> OFFSET_BITS;
        if common > 0 {
            return COMMON[common as usize - 1];
        }
        let start = match i {
            0 => 0,
            _ => self.ends.get(i - 1).unwrap_or_default() & OFFSET,
        };
        &self.text[self.base + start as usize..self.base + end as usize]
    }

    /// Pairs `from..to` of the record.
    fn pairs(&self, from: usize, to: usize) -> MetaPairs<'a> {
        MetaPairs {
            meta: *self,
            next: from,
            end: to,
        }
    }

    fn pair_count(&self) -> usize {
        self.ends.len().saturating_sub(FIXED) / 2
    }

    pub fn api_version(&self) -> &'a str {
        self.at(0)
    }

    pub fn kind(&self) -> &'a str {
        self.at(1)
    }

    pub fn name(&self) -> &'a str {
        self.at(2)
    }

    /// `None` when absent, null or empty.
    pub fn namespace(&self) -> Option<&'a str> {
        Some(self.at(3)).filter(|n| !n.is_empty())
    }

    /// The labels, in the order written (after merge keys).
    pub fn labels(&self) -> MetaPairs<'a> {
        self.pairs(0, self.labels as usize)
    }

    /// The annotations, in the order written (after merge keys).
    pub fn annotations(&self) -> MetaPairs<'a> {
        self.pairs(self.labels as usize, self.pair_count())
    }

    pub fn annotation(&self, key: &str) -> Option<&'a str> {
        self.find(self.labels as usize, self.pair_count(), key)
    }

    pub fn label(&self, key: &str) -> Option<&'a str> {
        self.find(0, self.labels as usize, key)
    }

    /// The value of `key` among pairs `from..to`: keys compared as bytes, only the value found
    /// made a `&str` (every function looks annotations up on every item).
    fn find(&self, from: usize, to: usize, key: &str) -> Option<&'a str> {
        (from..to)
            .map(|p| FIXED + 2 * p)
            .find(|&i| self.bytes_at(i) == key.as_bytes())
            .map(|i| self.at(i + 1))
    }

    /// [`at`](Self::at) as bytes.
    fn bytes_at(&self, i: usize) -> &'a [u8] {
        let Some(end) = self.ends.get(i) else {
            return b"";
        };
        let common = end >> OFFSET_BITS;
        if common > 0 {
            return COMMON[common as usize - 1].as_bytes();
        }
        let start = match i {
            0 => 0,
            _ => self.ends.get(i - 1).unwrap_or_default() & OFFSET,
        };
        self.text
            .as_bytes()
            .get(self.base + start as usize..self.base + end as usize)
            .unwrap_or_default()
    }

    /// The file kpt read the item from, if it says.
    pub fn path(&self) -> Option<&'a str> {
        self.annotation(PATH_ANNOTATION)
            .or_else(|| self.annotation(LEGACY_PATH_ANNOTATION))
    }

    /// The document index inside that file, if it says.
    pub fn index(&self) -> Option<&'a str> {
        self.annotation(INDEX_ANNOTATION)
            .or_else(|| self.annotation(LEGACY_INDEX_ANNOTATION))
    }

    /// True for `apiVersion`/`kind` equal to the given ones.
    pub fn is(&self, api_version: &str, kind: &str) -> bool {
        self.api_version() == api_version && self.kind() == kind
    }

    /// Group part of `apiVersion` (`""` for the core group).
    pub fn group(&self) -> &'a str {
        self.api_version().split_once('/').map_or("", |(g, _)| g)
    }

    /// Version part of `apiVersion`.
    pub fn version(&self) -> &'a str {
        let v = self.api_version();
        v.split_once('/').map_or(v, |(_, v)| v)
    }

    pub fn resource_ref(&self) -> ResourceRef {
        ResourceRef {
            api_version: self.api_version().to_string(),
            kind: self.kind().to_string(),
            name: self.name().to_string(),
            namespace: self.namespace().map(str::to_string),
        }
    }

    pub fn file_ref(&self) -> Option<FileRef> {
        self.path().map(|p| FileRef {
            path: p.to_string(),
            index: self.index().map(str::to_string),
        })
    }

    /// True when both read the same record (not merely equal ones): the same item.
    pub fn is_same(&self, other: &ObjectMeta) -> bool {
        self.ends.is_same(&other.ends)
    }

    /// `Kind/name` for messages.
    pub fn describe(&self) -> String {
        format!("{}/{}", self.kind(), self.name())
    }
}

/// `serde_json::Value::pointer` for literal pointers (no `~0`/`~1` escapes), without the
/// allocations `pointer` makes for every token: it sits in per-item loops over large inputs.
pub fn json_at<'a>(value: &'a serde_json::Value, pointer: &str) -> Option<&'a serde_json::Value> {
    debug_assert!(!pointer.contains('~'), "escaped pointer {pointer:?}");
    if pointer.is_empty() {
        return Some(value);
    }
    let rest = pointer.strip_prefix('/')?;
    rest.split('/').try_fold(value, |v, token| match v {
        serde_json::Value::Object(m) => m.get(token),
        serde_json::Value::Array(a) => token.parse::<usize>().ok().and_then(|i| a.get(i)),
        _ => None,
    })
}

#[cfg(test)]
mod json_at_tests {
    use super::json_at;
    use serde_json::json;

    #[test]
    fn same_as_pointer() {
        let v = json!({"metadata": {"name": "n", "labels": {"a": "b"}}, "list": [1, {"x": 2}], "": {"": 3}});
        for p in [
            "",
            "/metadata",
            "/metadata/name",
            "/metadata/labels/a",
            "/metadata/missing",
            "/list/1/x",
            "/list/7",
            "/list/x",
            "/metadata/name/deeper",
            "metadata",
            "/",
            "//",
        ] {
            assert_eq!(json_at(&v, p), v.pointer(p), "{p}");
        }
    }
}

#[cfg(test)]
mod tests;
