//! KRM object identity: the few fields every function reads from every item.
//!
//! Reading `apiVersion`, `kind`, name, namespace, labels and annotations once per item, into a
//! small struct, lets the functions select and index items without holding every item's tree.

use crate::krm::results::{FileRef, ResourceRef};
use crate::yaml::alias::Reader;
use crate::yaml::parse::{Field, IdentityPart};
use crate::yaml::Node;

/// kpt's annotation for the file an item came from (and its legacy twin).
pub const PATH_ANNOTATION: &str = "internal.config.kubernetes.io/path";
pub const LEGACY_PATH_ANNOTATION: &str = "config.kubernetes.io/path";
/// kpt's annotation for the document index inside that file (and its legacy twin).
pub const INDEX_ANNOTATION: &str = "internal.config.kubernetes.io/index";
pub const LEGACY_INDEX_ANNOTATION: &str = "config.kubernetes.io/index";
/// Marks resources that are not deployed (Kptfile, package context, function configs).
pub const LOCAL_CONFIG_ANNOTATION: &str = "config.kubernetes.io/local-config";

/// The identity and metadata of one item, compactly: every text in one buffer (one record per
/// item of a large package, so a String per field and per label was most of a run's memory and
/// a sixth of its allocations). Read through the accessors.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct ObjectMeta {
    /// False when the item is not a mapping at all.
    pub is_object: bool,
    /// The texts one after another: apiVersion, kind, name, namespace, then each label's key
    /// and value, then each annotation's. Empty when none was read.
    text: String,
    /// Where each text of `text` ends (`FIXED` of them, then two per pair), or empty; or, in
    /// the top bits, which of [`COMMON`] it is (then it takes no room in `text`).
    ends: Vec<u32>,
    /// How many of the pairs are labels (the rest are annotations).
    labels: u32,
    /// Why the metadata could not be read as kpt reads it, if it could not: the item must not
    /// be selected, isolated or identified by a guess.
    pub problem: Option<Box<MetaProblem>>,
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
    meta: &'a ObjectMeta,
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

/// Fills an [`ObjectMeta`]'s buffer: the texts must come in the record's order.
#[derive(Default)]
struct Record {
    text: String,
    ends: Vec<u32>,
}

impl Record {
    /// Appends a text; `false` when the record would pass 256 MiB (only values repeated
    /// through aliases can get there: the input is at most that).
    fn push(&mut self, s: &str) -> bool {
        let n = BY_LENGTH.get(s.len()).map_or(0, |&n| n as u32);
        if n > 0 && COMMON[n as usize - 1] == s {
            let offset = self.text.len() as u32;
            self.ends.push(offset | (n << OFFSET_BITS));
            return true;
        }
        if self.text.len() + s.len() > OFFSET as usize {
            return false;
        }
        self.text.push_str(s);
        self.ends.push(self.text.len() as u32);
        true
    }
}

impl ObjectMeta {
    /// An item that is not a mapping.
    pub const NOT_OBJECT: ObjectMeta = ObjectMeta::empty(false);
    /// A mapping without apiVersion, kind or metadata.
    pub const BARE_OBJECT: ObjectMeta = ObjectMeta::empty(true);

    const fn empty(is_object: bool) -> ObjectMeta {
        ObjectMeta {
            is_object,
            text: String::new(),
            ends: Vec::new(),
            labels: 0,
            problem: None,
        }
    }

    /// A mapping's metadata from its values (a namespace of `""` is none), as
    /// [`from_node`](Self::from_node) would read them.
    pub fn new(
        api_version: &str,
        kind: &str,
        name: &str,
        namespace: Option<&str>,
        labels: &[(&str, &str)],
        annotations: &[(&str, &str)],
    ) -> ObjectMeta {
        let mut r = Record::default();
        let texts = [api_version, kind, name, namespace.unwrap_or("")].into_iter();
        let pairs = labels.iter().chain(annotations).flat_map(|&(k, v)| [k, v]);
        for s in texts.chain(pairs) {
            assert!(r.push(s), "metadata of more than 256 MiB");
        }
        let mut meta = ObjectMeta {
            is_object: true,
            labels: labels.len() as u32,
            ..ObjectMeta::default()
        };
        meta.set(r);
        meta
    }

    /// Reads the metadata of a node as kpt and the API server read it: through aliases and
    /// merge keys (`namespace: *ns`, `labels: {<<: *common}`). Null values read as absent
    /// (labels and annotations as empty strings); a collection where a string belongs, or an
    /// alias that cannot be followed, is recorded in [`ObjectMeta::problem`].
    pub fn from_node(node: &Node) -> ObjectMeta {
        if !node.is_mapping() {
            return ObjectMeta::default();
        }
        let mut meta = ObjectMeta {
            is_object: true,
            ..ObjectMeta::default()
        };
        let mut r = Record {
            text: String::with_capacity(256),
            ends: Vec::with_capacity(FIXED + 16),
        };
        // On a problem, what was read before it is kept (results still name the item).
        if let Err(problem) = meta.read(&Reader::new(node), node, &mut r) {
            meta.problem = Some(Box::new(problem));
        }
        meta.set(r);
        meta
    }

    /// [`from_node`](Self::from_node) for an item holding an alias (at source position
    /// `alias`) that names no anchor before it in the item: kpt writes each item to a file of
    /// its own, where the anchor is not. Unless its metadata has a problem of its own, the
    /// problem names the alias's field.
    pub fn from_dangling(node: &Node, alias: usize) -> ObjectMeta {
        let mut meta = ObjectMeta::from_node(node);
        if meta.problem.is_none() {
            let (name, field) =
                crate::yaml::alias::alias_at(node, alias as u32).unwrap_or(("", String::new()));
            meta.problem = Some(Box::new(MetaProblem {
                message: format!(
                    "the alias *{name} has no anchor &{name} before it in this object (kpt \
                     writes each object to a file of its own)"
                ),
                field,
            }));
        }
        meta
    }

    /// Keeps what `r` read, in as little memory as it takes; nothing when it is all empty.
    fn set(&mut self, mut r: Record) {
        if r.ends.len() <= FIXED && r.ends.iter().all(|&e| e == 0) {
            return;
        }
        r.text.shrink_to_fit();
        r.ends.shrink_to_fit();
        self.text = r.text;
        self.ends = r.ends;
    }

    /// The metadata of an item read by lines ([`IdentityPart`]): what
    /// [`from_node`](Self::from_node) reads from the item's tree, the same record (the scanner
    /// reads no alias, merge key or collection where a text belongs: there is no problem to
    /// record, and an item it reads is far below the record's limit).
    pub fn from_identity(parts: &[IdentityPart], src: &str) -> ObjectMeta {
        let mut fixed = [const { std::borrow::Cow::Borrowed("") }; FIXED];
        let mut labels = 0;
        for p in parts {
            let i = match p.field {
                Field::ApiVersion => 0,
                Field::Kind => 1,
                Field::Name => 2,
                Field::Namespace => 3,
                Field::Label => {
                    labels += 1;
                    continue;
                }
                Field::Annotation => continue,
            };
            fixed[i] = p.text(src);
        }
        let mut r = Record {
            text: String::with_capacity(256),
            ends: Vec::with_capacity(FIXED + 2 * (parts.len() + 1)),
        };
        let mut fits = fixed.iter().all(|t| r.push(t));
        for field in [Field::Label, Field::Annotation] {
            for p in parts.iter().filter(|p| p.field == field) {
                fits &= r.push(p.key(src)) && r.push(&p.text(src));
            }
        }
        debug_assert!(fits, "an item read by lines is at most 64 KiB");
        let mut meta = ObjectMeta {
            is_object: true,
            labels,
            ..ObjectMeta::default()
        };
        meta.set(r);
        meta
    }

    fn read<'n>(
        &mut self,
        r: &Reader<'n>,
        root: &'n Node,
        out: &mut Record,
    ) -> Result<(), MetaProblem> {
        // Field paths are only spelled out for a problem: this runs for every item.
        let fail = |field: &dyn Fn() -> String, message: &dyn Fn(&str) -> String| {
            let field = field();
            MetaProblem {
                message: message(&field),
                field,
            }
        };
        // The text of a scalar, "" for null; a collection is a problem.
        let text =
            |field: &dyn Fn() -> String, v: Option<&'n Node>| -> Result<&'n str, MetaProblem> {
                match v {
                    Some(v) if !v.is_null() => match v.as_scalar() {
                        Some(s) => Ok(s.value.as_str()),
                        None => Err(fail(field, &|f| {
                            format!("{f} must be a string, found a {}", v.kind())
                        })),
                    },
                    _ => Ok(""),
                }
            };
        let get = |map: &'n Node, key: &str, field: &dyn Fn() -> String| {
            r.get(map, key).map_err(|e| fail(field, &|_| e.clone()))
        };
        let at = |s: &'static str| move || s.to_string();
        let push = |out: &mut Record, field: &dyn Fn() -> String, s: &str| {
            if out.push(s) {
                return Ok(());
            }
            Err(fail(field, &|f| {
                format!(
                    "{f} repeats values through aliases past 256 MiB of text; write the values out"
                )
            }))
        };
        let api_version = at("apiVersion");
        let v = text(&api_version, get(root, "apiVersion", &api_version)?)?;
        push(out, &api_version, v)?;
        let kind = at("kind");
        push(out, &kind, text(&kind, get(root, "kind", &kind)?)?)?;
        let metadata = match get(root, "metadata", &at("metadata"))? {
            Some(m) if !m.is_null() => m,
            _ => {
                out.ends.extend([out.text.len() as u32; 2]);
                return Ok(());
            }
        };
        if !metadata.is_mapping() {
            return Err(fail(&at("metadata"), &|f| {
                format!("{f} must be a mapping, found a {}", metadata.kind())
            }));
        }
        let name = at("metadata.name");
        push(out, &name, text(&name, get(metadata, "name", &name)?)?)?;
        let namespace = at("metadata.namespace");
        let ns = text(&namespace, get(metadata, "namespace", &namespace)?)?;
        push(out, &namespace, ns)?;
        for key in ["labels", "annotations"] {
            let field = move || format!("metadata.{key}");
            let Some(map) = get(metadata, key, &field)? else {
                continue;
            };
            if map.is_null() {
                continue;
            }
            if !map.is_mapping() {
                return Err(fail(&field, &|f| {
                    format!("{f} must be a mapping of strings, found a {}", map.kind())
                }));
            }
            let pairs = r.pairs(map).map_err(|e| fail(&field, &|_| e.clone()))?;
            out.ends.reserve(2 * pairs.len());
            for (k, v) in pairs {
                let field = || format!("metadata.{key}[{k}]");
                let v = text(&field, Some(v))?;
                push(out, &field, k)?;
                push(out, &field, v)?;
                self.labels += u32::from(key == "labels");
            }
        }
        Ok(())
    }

    /// Text `i` of the record ("" when there is none).
    fn at(&self, i: usize) -> &str {
        let Some(&end) = self.ends.get(i) else {
            return "";
        };
        let common = end >> OFFSET_BITS;
        if common > 0 {
            return COMMON[common as usize - 1];
        }
        let start = if i == 0 { 0 } else { self.ends[i - 1] & OFFSET };
        &self.text[start as usize..end as usize]
    }

    /// Pairs `from..to` of the record.
    fn pairs(&self, from: usize, to: usize) -> MetaPairs<'_> {
        MetaPairs {
            meta: self,
            next: from,
            end: to,
        }
    }

    fn pair_count(&self) -> usize {
        self.ends.len().saturating_sub(FIXED) / 2
    }

    pub fn api_version(&self) -> &str {
        self.at(0)
    }

    pub fn kind(&self) -> &str {
        self.at(1)
    }

    pub fn name(&self) -> &str {
        self.at(2)
    }

    /// `None` when absent, null or empty.
    pub fn namespace(&self) -> Option<&str> {
        Some(self.at(3)).filter(|n| !n.is_empty())
    }

    /// The labels, in the order written (after merge keys).
    pub fn labels(&self) -> MetaPairs<'_> {
        self.pairs(0, self.labels as usize)
    }

    /// The annotations, in the order written (after merge keys).
    pub fn annotations(&self) -> MetaPairs<'_> {
        self.pairs(self.labels as usize, self.pair_count())
    }

    pub fn annotation(&self, key: &str) -> Option<&str> {
        self.find(self.labels as usize, self.pair_count(), key)
    }

    pub fn label(&self, key: &str) -> Option<&str> {
        self.find(0, self.labels as usize, key)
    }

    /// The value of `key` among pairs `from..to`: keys compared as bytes, only the value found
    /// made a `&str` (every function looks annotations up on every item).
    fn find(&self, from: usize, to: usize, key: &str) -> Option<&str> {
        (from..to)
            .map(|p| FIXED + 2 * p)
            .find(|&i| self.bytes_at(i) == key.as_bytes())
            .map(|i| self.at(i + 1))
    }

    /// [`at`](Self::at) as bytes.
    fn bytes_at(&self, i: usize) -> &[u8] {
        let Some(&end) = self.ends.get(i) else {
            return b"";
        };
        let common = end >> OFFSET_BITS;
        if common > 0 {
            return COMMON[common as usize - 1].as_bytes();
        }
        let start = if i == 0 { 0 } else { self.ends[i - 1] & OFFSET };
        self.text
            .as_bytes()
            .get(start as usize..end as usize)
            .unwrap_or_default()
    }

    /// The file kpt read the item from, if it says.
    pub fn path(&self) -> Option<&str> {
        self.annotation(PATH_ANNOTATION)
            .or_else(|| self.annotation(LEGACY_PATH_ANNOTATION))
    }

    /// The document index inside that file, if it says.
    pub fn index(&self) -> Option<&str> {
        self.annotation(INDEX_ANNOTATION)
            .or_else(|| self.annotation(LEGACY_INDEX_ANNOTATION))
    }

    /// True for `apiVersion`/`kind` equal to the given ones.
    pub fn is(&self, api_version: &str, kind: &str) -> bool {
        self.api_version() == api_version && self.kind() == kind
    }

    /// Group part of `apiVersion` (`""` for the core group).
    pub fn group(&self) -> &str {
        self.api_version().split_once('/').map_or("", |(g, _)| g)
    }

    /// Version part of `apiVersion`.
    pub fn version(&self) -> &str {
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
