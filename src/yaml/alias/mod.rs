//! Aliases and merge keys, read the way go-yaml v3 (kpt) reads them.
//!
//! A value written through `*alias` or merged in with `<<: *anchor` is, to kpt and the API
//! server, the same as a value written out; whatever selects or isolates objects by their
//! metadata must see it too. An alias means the latest anchor of its name *before* it in the
//! document (anchors may be redefined). A merge key adds the keys of its mapping, or of each
//! mapping of its list, that the mapping does not set itself: explicit keys win wherever they
//! stand, then earlier sources win over later ones, depth first.
//!
//! Reading is lazy: the aliases of a tree are bound only when one is met, so the common tree
//! with no alias costs nothing more than a plain lookup. Keeping what aliases mean across an
//! edit is [`edits`].

use crate::yaml::node::{depth_limit, Kind, Node};
use std::cell::OnceCell;
use std::collections::{HashMap, HashSet};

/// Every alias of a tree bound to the node its anchor names, as go-yaml binds it: the latest
/// node with that anchor before the alias, in document order (keys before their values).
pub struct Bindings<'n> {
    to: HashMap<*const Node, &'n Node>,
    /// The same, by the alias's position in the source (aliases read from the text).
    at: HashMap<u32, &'n Node>,
}

impl<'n> Bindings<'n> {
    /// Binds the aliases of `root`. Linear in the size of the tree.
    pub fn of(root: &'n Node) -> Bindings<'n> {
        let mut b = Bindings {
            to: HashMap::new(),
            at: HashMap::new(),
        };
        let mut anchors: HashMap<&'n str, &'n Node> = HashMap::new();
        b.walk(root, &mut anchors, 0);
        b
    }

    fn walk(&mut self, n: &'n Node, anchors: &mut HashMap<&'n str, &'n Node>, depth: usize) {
        if depth > depth_limit() {
            return;
        }
        // go-yaml registers an anchor when its node starts, before the node's content.
        if let Some(a) = n.props().and_then(|p| p.anchor.as_deref()) {
            anchors.insert(a, n);
        }
        match n.kind() {
            Kind::Alias(name) => {
                if let Some(&target) = anchors.get(name.as_str()) {
                    self.to.insert(n as *const Node, target);
                    if let Some(span) = n.span() {
                        self.at.insert(span.start(), target);
                    }
                }
            }
            Kind::Mapping(entries) => {
                for e in entries {
                    self.walk(&e.key, anchors, depth + 1);
                    self.walk(&e.value, anchors, depth + 1);
                }
            }
            Kind::Sequence(items) => {
                for i in items {
                    self.walk(&i.value, anchors, depth + 1);
                }
            }
            Kind::Scalar(_) => {}
        }
    }

    /// The node `alias` (a node of the bound tree) stands for; `None` when no anchor of its
    /// name comes before it.
    pub fn target(&self, alias: &Node) -> Option<&'n Node> {
        self.to.get(&(alias as *const Node)).copied()
    }

    /// The node the alias read at source position `start` stands for.
    pub fn target_at(&self, start: u32) -> Option<&'n Node> {
        self.at.get(&start).copied()
    }
}

/// The alias of `root` read from source position `start`: its name and its field path
/// (`data.x`, `spec.list[2]`, `[a.b]` for a key with a dot), for a result that names it; the
/// path of its mapping when the alias is a key. `None` when no alias starts there.
pub fn alias_at(root: &Node, start: u32) -> Option<(&str, String)> {
    fn walk<'n>(n: &'n Node, start: u32, path: &mut String, depth: usize) -> Option<&'n str> {
        if let Kind::Alias(name) = n.kind() {
            return (n.span().map(|s| s.start()) == Some(start)).then_some(name.as_str());
        }
        // Only a collection that spans `start` can hold it.
        let inside = n
            .span()
            .is_none_or(|s| s.start() <= start && start < s.end());
        if depth > depth_limit() || !inside {
            return None;
        }
        let len = path.len();
        match n.kind() {
            Kind::Mapping(entries) => {
                for e in entries {
                    if let Some(name) = walk(&e.key, start, path, depth + 1) {
                        return Some(name);
                    }
                    match e.key.as_scalar().map(|k| k.value.as_str()) {
                        Some(k) if !k.is_empty() && !k.contains(['.', '[', ']']) => {
                            if !path.is_empty() {
                                path.push('.');
                            }
                            path.push_str(k);
                        }
                        Some(k) => *path += &format!("[{k}]"),
                        None => path.push_str("[?]"),
                    }
                    if let Some(name) = walk(&e.value, start, path, depth + 1) {
                        return Some(name);
                    }
                    path.truncate(len);
                }
            }
            Kind::Sequence(items) => {
                for (i, item) in items.iter().enumerate() {
                    *path += &format!("[{i}]");
                    if let Some(name) = walk(&item.value, start, path, depth + 1) {
                        return Some(name);
                    }
                    path.truncate(len);
                }
            }
            _ => {}
        }
        None
    }
    let mut path = String::new();
    walk(root, start, &mut path, 0).map(|name| (name, path))
}

/// True for a merge key: a plain `<<` without a tag, or one tagged `!!merge` (as kpt writes
/// it). A quoted `"<<"` is an ordinary key.
#[inline]
pub fn is_merge_key(key: &Node) -> bool {
    let Some(s) = key.as_scalar() else {
        return false;
    };
    if s.value != "<<" {
        return false;
    }
    match key.tag() {
        None => s.style == crate::yaml::node::ScalarStyle::Plain,
        Some(t) => matches!(t, "!!merge" | "tag:yaml.org,2002:merge" | "!"),
    }
}

/// Reads one tree through its aliases and merge keys.
pub struct Reader<'n> {
    root: &'n Node,
    bindings: OnceCell<Bindings<'n>>,
}

impl<'n> Reader<'n> {
    /// A reader over `root`; nothing is computed until an alias is met.
    pub fn new(root: &'n Node) -> Reader<'n> {
        Reader {
            root,
            bindings: OnceCell::new(),
        }
    }

    /// `n` itself, or for an alias the node its anchor names.
    #[inline]
    pub fn deref(&self, n: &'n Node) -> Result<&'n Node, String> {
        match n.kind() {
            Kind::Alias(_) => self.follow(n),
            _ => Ok(n),
        }
    }

    #[cold]
    fn follow(&self, alias: &'n Node) -> Result<&'n Node, String> {
        let name = match alias.kind() {
            Kind::Alias(name) => name.as_str(),
            _ => "",
        };
        self.bindings
            .get_or_init(|| Bindings::of(self.root))
            .target(alias)
            .ok_or_else(|| {
                format!("the alias *{name} has no anchor &{name} before it in this object")
            })
    }

    /// The text of a scalar key (through an alias); `None` for a collection key.
    fn key_text(&self, key: &'n Node) -> Result<Option<&'n str>, String> {
        Ok(self.deref(key)?.as_scalar().map(|s| s.value.as_str()))
    }

    /// The mappings a merge key's value brings in, in order.
    fn merge_sources(&self, value: &'n Node) -> Result<Vec<&'n Node>, String> {
        const WANT: &str = "a merge key (<<) takes a mapping or a list of mappings";
        let v = self.deref(value)?;
        match v.kind() {
            Kind::Mapping(_) => Ok(vec![v]),
            Kind::Sequence(items) => items
                .iter()
                .map(|i| {
                    let m = self.deref(&i.value)?;
                    if m.is_mapping() {
                        Ok(m)
                    } else {
                        Err(WANT.to_string())
                    }
                })
                .collect(),
            _ => Err(WANT.to_string()),
        }
    }

    /// The value of `key` in the mapping `map` (itself read through an alias), as go-yaml
    /// decodes the mapping: `None` when absent or when `map` is not a mapping.
    pub fn get(&self, map: &'n Node, key: &str) -> Result<Option<&'n Node>, String> {
        let map = self.deref(map)?;
        let Some(entries) = map.entries() else {
            return Ok(None);
        };
        // The common case, no merge key: one scan, nothing allocated.
        let mut merges = false;
        for e in entries {
            let k = match e.key.kind() {
                Kind::Scalar(k) => k.value.as_str(),
                _ => self.key_text(&e.key)?.unwrap_or_default(),
            };
            if k == key || k == "<<" {
                if is_merge_key(&e.key) {
                    merges = true;
                } else if k == key {
                    return Ok(Some(self.deref(&e.value)?));
                }
            }
        }
        if !merges {
            return Ok(None);
        }
        let mut visited = HashSet::new();
        self.get_in(map, key, &mut visited, 0)
    }
    fn get_in(
        &self,
        map: &'n Node,
        key: &str,
        visited: &mut HashSet<*const Node>,
        depth: usize,
    ) -> Result<Option<&'n Node>, String> {
        if depth > depth_limit() {
            return Err(format!(
                "merge keys nest more than {} levels deep",
                depth_limit()
            ));
        }
        let Some(entries) = map.entries() else {
            return Ok(None);
        };
        if !visited.insert(map as *const Node) {
            return Ok(None);
        }
        let mut merges = Vec::new();
        for e in entries {
            if is_merge_key(&e.key) {
                merges.push(&e.value);
            } else if self.key_text(&e.key)? == Some(key) {
                return Ok(Some(self.deref(&e.value)?));
            }
        }
        for m in merges {
            for source in self.merge_sources(m)? {
                if let Some(v) = self.get_in(source, key, visited, depth + 1)? {
                    return Ok(Some(v));
                }
            }
        }
        Ok(None)
    }

    /// Every `(key, value)` of the mapping `map` as go-yaml decodes it: its own keys in order,
    /// then the keys merge keys bring in that are not set yet. Values are read through
    /// aliases; collection keys are an error. Linear in the nodes visited: a mapping merged
    /// twice is read once.
    pub fn pairs(&self, map: &'n Node) -> Result<Vec<(&'n str, &'n Node)>, String> {
        let map = self.deref(map)?;
        let entries = map.entries().unwrap_or(&[]);
        let mut out = Vec::with_capacity(entries.len());
        if !entries.iter().any(|e| is_merge_key(&e.key)) {
            // The common case, no merge key: the entries as they are, nothing else allocated.
            for e in entries {
                let Some(k) = self.key_text(&e.key)? else {
                    return Err("a mapping key is itself a mapping or a list".to_string());
                };
                out.push((k, self.deref(&e.value)?));
            }
            return Ok(out);
        }
        let mut seen: Option<HashSet<&'n str>> = None;
        let mut visited = HashSet::new();
        self.pairs_in(map, &mut out, &mut seen, &mut visited, 0)?;
        Ok(out)
    }

    fn pairs_in(
        &self,
        map: &'n Node,
        out: &mut Vec<(&'n str, &'n Node)>,
        seen: &mut Option<HashSet<&'n str>>,
        visited: &mut HashSet<*const Node>,
        depth: usize,
    ) -> Result<(), String> {
        if depth > depth_limit() {
            return Err(format!(
                "merge keys nest more than {} levels deep",
                depth_limit()
            ));
        }
        let Some(entries) = map.entries() else {
            return Ok(());
        };
        if !visited.insert(map as *const Node) {
            return Ok(());
        }
        let mut merges = Vec::new();
        for e in entries {
            if is_merge_key(&e.key) {
                merges.push(&e.value);
                continue;
            }
            let Some(k) = self.key_text(&e.key)? else {
                return Err("a mapping key is itself a mapping or a list".to_string());
            };
            // Only merged keys can repeat one already read (the parser refuses repeated keys).
            if let Some(seen) = seen {
                if !seen.insert(k) {
                    continue;
                }
            }
            out.push((k, self.deref(&e.value)?));
        }
        for m in merges {
            if seen.is_none() {
                *seen = Some(out.iter().map(|(k, _)| *k).collect());
            }
            for source in self.merge_sources(m)? {
                self.pairs_in(source, out, seen, visited, depth + 1)?;
            }
        }
        Ok(())
    }
}

mod edits;
pub use edits::{
    expanded, has_alias, keep_alias_meanings, Budget, Expansion, MAX_ALIAS_EXPANSION_BYTES,
};

#[cfg(test)]
mod tests;
