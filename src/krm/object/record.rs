//! Reading one object's metadata into a record of its own: from its tree (through aliases and
//! merge keys, as kpt reads it), from what the line scanner found, or from values.

use super::{Ends, MetaProblem, ObjectMeta, BY_LENGTH, COMMON, FIXED, OFFSET, OFFSET_BITS};
use crate::yaml::alias::Reader;
use crate::yaml::parse::{Field, IdentityPart};
use crate::yaml::Node;

/// An [`ObjectMeta`] record that owns its texts: the functionConfig's, or an item's before
/// [`Items`](crate::krm::items::Items) stores it with the others. Read through
/// [`view`](Self::view).
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct MetaRecord {
    /// False when the object is not a mapping at all.
    pub is_object: bool,
    text: String,
    ends: Vec<u32>,
    labels: u32,
    /// Why the metadata could not be read as kpt reads it, if it could not.
    pub problem: Option<Box<MetaProblem>>,
}

/// Writes one object's record into buffers (a [`MetaRecord`]'s own, or the buffers every
/// item's record shares in [`Items`](crate::krm::items::Items)), after what they hold: the
/// texts must come in the record's order.
pub(crate) struct Record<'b> {
    text: &'b mut String,
    ends: &'b mut Vec<u32>,
    /// Where this record's texts and ends begin in the buffers.
    text_base: usize,
    ends_base: usize,
    /// How many pairs are labels.
    pub(crate) labels: u32,
}

/// What reading an object's record found besides its texts.
pub(crate) struct Read {
    pub(crate) is_object: bool,
    pub(crate) problem: Option<Box<MetaProblem>>,
}

impl<'b> Record<'b> {
    /// A record written after what `text` and `ends` hold.
    pub(crate) fn new(text: &'b mut String, ends: &'b mut Vec<u32>) -> Record<'b> {
        Record {
            text_base: text.len(),
            ends_base: ends.len(),
            text,
            ends,
            labels: 0,
        }
    }

    /// Appends a text; `false` when the record would pass 256 MiB (only values repeated
    /// through aliases can get there: the input is at most that).
    fn push(&mut self, s: &str) -> bool {
        let offset = self.text.len() - self.text_base;
        let n = BY_LENGTH.get(s.len()).map_or(0, |&n| n as u32);
        if n > 0 && COMMON[n as usize - 1] == s {
            self.ends.push(offset as u32 | (n << OFFSET_BITS));
            return true;
        }
        if offset + s.len() > OFFSET as usize {
            return false;
        }
        self.text.push_str(s);
        self.ends.push((offset + s.len()) as u32);
        true
    }

    /// True when what was written holds nothing: no text, at most the fixed four (then a
    /// record of nothing takes no room).
    pub(crate) fn is_empty(&self) -> bool {
        let ends = &self.ends[self.ends_base..];
        ends.len() <= FIXED && ends.iter().all(|&e| e == 0)
    }

    /// Takes back what was written.
    pub(crate) fn clear(&mut self) {
        self.text.truncate(self.text_base);
        self.ends.truncate(self.ends_base);
        self.labels = 0;
    }

    /// Reads the metadata of a node as kpt and the API server read it: through aliases and
    /// merge keys (`namespace: *ns`, `labels: {<<: *common}`). Null values read as absent
    /// (labels and annotations as empty strings); a collection where a string belongs, or an
    /// alias that cannot be followed, is the problem. With `dangling`, the node holds an alias
    /// at that source position that names no anchor before it in the item (kpt writes each
    /// item to a file of its own, where the anchor is not): unless the metadata has a problem
    /// of its own, the problem names the alias's field.
    pub(crate) fn node(&mut self, node: &Node, dangling: Option<usize>) -> Read {
        if !node.is_mapping() {
            return Read {
                is_object: false,
                problem: None,
            };
        }
        // On a problem, what was read before it is kept (results still name the item).
        let mut problem = self.read(&Reader::new(node), node).err().map(Box::new);
        if let (None, Some(alias)) = (&problem, dangling) {
            let (name, field) =
                crate::yaml::alias::alias_at(node, alias as u32).unwrap_or(("", String::new()));
            problem = Some(Box::new(MetaProblem {
                message: format!(
                    "the alias *{name} has no anchor &{name} before it in this object (kpt \
                     writes each object to a file of its own)"
                ),
                field,
            }));
        }
        Read {
            is_object: true,
            problem,
        }
    }

    /// The metadata of an item read by lines ([`IdentityPart`]): what [`node`](Self::node)
    /// reads from the item's tree, the same record (the scanner reads no alias, merge key or
    /// collection where a text belongs: there is no problem to record, and an item it reads
    /// is far below the record's limit).
    pub(crate) fn identity(&mut self, parts: &[IdentityPart], src: &str) -> Read {
        let mut fixed = [const { std::borrow::Cow::Borrowed("") }; FIXED];
        for p in parts {
            let i = match p.field {
                Field::ApiVersion => 0,
                Field::Kind => 1,
                Field::Name => 2,
                Field::Namespace => 3,
                Field::Label => {
                    self.labels += 1;
                    continue;
                }
                Field::Annotation => continue,
            };
            fixed[i] = p.text(src);
        }
        let mut fits = fixed.iter().all(|t| self.push(t));
        for field in [Field::Label, Field::Annotation] {
            for p in parts.iter().filter(|p| p.field == field) {
                fits &= self.push(p.key(src)) && self.push(&p.text(src));
            }
        }
        debug_assert!(fits, "an item read by lines is at most 64 KiB");
        Read {
            is_object: true,
            problem: None,
        }
    }

    fn read<'n>(&mut self, r: &Reader<'n>, root: &'n Node) -> Result<(), MetaProblem> {
        let out = self;
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
                out.push("");
                out.push("");
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
                out.labels += u32::from(key == "labels");
            }
        }
        Ok(())
    }
}

impl MetaRecord {
    /// The record read through.
    pub fn view(&self) -> ObjectMeta<'_> {
        ObjectMeta {
            is_object: self.is_object,
            text: &self.text,
            base: 0,
            ends: Ends::Wide(&self.ends),
            labels: self.labels,
            problem: self.problem.as_deref(),
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
    ) -> MetaRecord {
        MetaRecord::written(|r| {
            let texts = [api_version, kind, name, namespace.unwrap_or("")].into_iter();
            let pairs = labels.iter().chain(annotations).flat_map(|&(k, v)| [k, v]);
            for s in texts.chain(pairs) {
                assert!(r.push(s), "metadata of more than 256 MiB");
            }
            r.labels = labels.len() as u32;
            Read {
                is_object: true,
                problem: None,
            }
        })
    }

    /// Reads the metadata of a node as kpt and the API server read it ([`Record::node`]).
    pub fn from_node(node: &Node) -> MetaRecord {
        MetaRecord::written(|r| r.node(node, None))
    }

    /// The record `write` writes, in as little memory as it takes; nothing when it is all
    /// empty.
    fn written(write: impl FnOnce(&mut Record) -> Read) -> MetaRecord {
        let (mut text, mut ends) = (String::new(), Vec::new());
        let mut r = Record::new(&mut text, &mut ends);
        let read = write(&mut r);
        let labels = r.labels;
        if r.is_empty() {
            r.clear();
        }
        text.shrink_to_fit();
        ends.shrink_to_fit();
        MetaRecord {
            is_object: read.is_object,
            text,
            ends,
            labels,
            problem: read.problem,
        }
    }
}
