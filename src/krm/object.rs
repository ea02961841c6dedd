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

/// The identity and metadata of one item.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct ObjectMeta {
    /// False when the item is not a mapping at all.
    pub is_object: bool,
    pub api_version: String,
    pub kind: String,
    pub name: String,
    pub namespace: Option<String>,
    pub labels: Vec<(String, String)>,
    pub annotations: Vec<(String, String)>,
    /// Why the metadata could not be read as kpt reads it, if it could not: the item must not
    /// be selected, isolated or identified by a guess.
    pub problem: Option<MetaProblem>,
}

/// Metadata that cannot be read as kpt reads it: where, and what to write instead.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct MetaProblem {
    /// Field path, e.g. `metadata.namespace`.
    pub field: String,
    pub message: String,
}

impl ObjectMeta {
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
        if let Err(problem) = meta.read(&Reader::new(node), node) {
            meta.problem = Some(problem);
        }
        meta
    }

    /// The metadata of an item read by lines ([`IdentityPart`]): what [`ObjectMeta::from_node`]
    /// reads from the item's tree (the scanner reads no alias, merge key or collection where a
    /// text belongs, so there is no problem to record).
    pub fn from_identity(parts: &[IdentityPart], src: &str) -> ObjectMeta {
        let mut meta = ObjectMeta {
            is_object: true,
            ..ObjectMeta::default()
        };
        for p in parts {
            let text = p.text(src).into_owned();
            match p.field {
                Field::ApiVersion => meta.api_version = text,
                Field::Kind => meta.kind = text,
                Field::Name => meta.name = text,
                Field::Namespace => meta.namespace = Some(text).filter(|n| !n.is_empty()),
                Field::Label => meta.labels.push((p.key(src).to_string(), text)),
                Field::Annotation => meta.annotations.push((p.key(src).to_string(), text)),
            }
        }
        meta
    }

    fn read<'n>(&mut self, r: &Reader<'n>, root: &'n Node) -> Result<(), MetaProblem> {
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
            |field: &dyn Fn() -> String, v: Option<&'n Node>| -> Result<String, MetaProblem> {
                match v {
                    Some(v) if !v.is_null() => match v.as_scalar() {
                        Some(s) => Ok(s.value.as_str().to_owned()),
                        None => Err(fail(field, &|f| {
                            format!("{f} must be a string, found a {}", v.kind())
                        })),
                    },
                    _ => Ok(String::new()),
                }
            };
        let get = |map: &'n Node, key: &str, field: &dyn Fn() -> String| {
            r.get(map, key).map_err(|e| fail(field, &|_| e.clone()))
        };
        let at = |s: &'static str| move || s.to_string();
        self.api_version = text(
            &at("apiVersion"),
            get(root, "apiVersion", &at("apiVersion"))?,
        )?;
        self.kind = text(&at("kind"), get(root, "kind", &at("kind"))?)?;
        let Some(metadata) = get(root, "metadata", &at("metadata"))? else {
            return Ok(());
        };
        if metadata.is_null() {
            return Ok(());
        }
        if !metadata.is_mapping() {
            return Err(fail(&at("metadata"), &|f| {
                format!("{f} must be a mapping, found a {}", metadata.kind())
            }));
        }
        let name = at("metadata.name");
        self.name = text(&name, get(metadata, "name", &name)?)?;
        let namespace = at("metadata.namespace");
        let ns = text(&namespace, get(metadata, "namespace", &namespace)?)?;
        self.namespace = Some(ns).filter(|n| !n.is_empty());
        for (key, out) in [
            ("labels", &mut self.labels),
            ("annotations", &mut self.annotations),
        ] {
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
            out.reserve(pairs.len());
            for (k, v) in pairs {
                out.push((
                    k.to_string(),
                    text(&|| format!("metadata.{key}[{k}]"), Some(v))?,
                ));
            }
        }
        Ok(())
    }

    pub fn annotation(&self, key: &str) -> Option<&str> {
        self.annotations
            .iter()
            .find(|(k, _)| k == key)
            .map(|(_, v)| v.as_str())
    }

    pub fn label(&self, key: &str) -> Option<&str> {
        self.labels
            .iter()
            .find(|(k, _)| k == key)
            .map(|(_, v)| v.as_str())
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
        self.api_version == api_version && self.kind == kind
    }

    /// Group part of `apiVersion` (`""` for the core group).
    pub fn group(&self) -> &str {
        self.api_version.split_once('/').map_or("", |(g, _)| g)
    }

    /// Version part of `apiVersion`.
    pub fn version(&self) -> &str {
        self.api_version
            .split_once('/')
            .map_or(self.api_version.as_str(), |(_, v)| v)
    }

    pub fn resource_ref(&self) -> ResourceRef {
        ResourceRef {
            api_version: self.api_version.clone(),
            kind: self.kind.clone(),
            name: self.name.clone(),
            namespace: self.namespace.clone(),
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
        format!("{}/{}", self.kind, self.name)
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
