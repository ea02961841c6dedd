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
//! with no alias costs nothing more than a plain lookup.

use super::node::{Kind, Node, MAX_DEPTH};
use std::cell::OnceCell;
use std::collections::{HashMap, HashSet};

/// Every alias of a tree bound to the node its anchor names, as go-yaml binds it: the latest
/// node with that anchor before the alias, in document order (keys before their values).
pub struct Bindings<'n> {
    to: HashMap<*const Node, &'n Node>,
}

impl<'n> Bindings<'n> {
    /// Binds the aliases of `root`. Linear in the size of the tree.
    pub fn of(root: &'n Node) -> Bindings<'n> {
        let mut b = Bindings { to: HashMap::new() };
        let mut anchors: HashMap<&'n str, &'n Node> = HashMap::new();
        b.walk(root, &mut anchors, 0);
        b
    }

    fn walk(&mut self, n: &'n Node, anchors: &mut HashMap<&'n str, &'n Node>, depth: usize) {
        if depth > MAX_DEPTH {
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
}

/// True for a merge key: a plain `<<` without a tag, or one tagged `!!merge` (as kpt writes
/// it). A quoted `"<<"` is an ordinary key.
pub fn is_merge_key(key: &Node) -> bool {
    let Some(s) = key.as_scalar() else {
        return false;
    };
    if s.value != "<<" {
        return false;
    }
    match key.tag() {
        None => s.style == super::node::ScalarStyle::Plain,
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
    pub fn deref(&self, n: &'n Node) -> Result<&'n Node, String> {
        match n.kind() {
            Kind::Alias(name) => self
                .bindings
                .get_or_init(|| Bindings::of(self.root))
                .target(n)
                .ok_or_else(|| {
                    format!("the alias *{name} has no anchor &{name} before it in this object")
                }),
            _ => Ok(n),
        }
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
        let mut visited = HashSet::new();
        self.get_in(self.deref(map)?, key, &mut visited, 0)
    }

    fn get_in(
        &self,
        map: &'n Node,
        key: &str,
        visited: &mut HashSet<*const Node>,
        depth: usize,
    ) -> Result<Option<&'n Node>, String> {
        if depth > MAX_DEPTH {
            return Err(format!("merge keys nest more than {MAX_DEPTH} levels deep"));
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
        let mut out = Vec::new();
        let mut seen: Option<HashSet<&'n str>> = None;
        let mut visited = HashSet::new();
        self.pairs_in(self.deref(map)?, &mut out, &mut seen, &mut visited, 0)?;
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
        if depth > MAX_DEPTH {
            return Err(format!("merge keys nest more than {MAX_DEPTH} levels deep"));
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

#[cfg(test)]
mod tests {
    use super::*;
    use crate::yaml::parse;

    fn tree(src: &str) -> Node {
        parse(src).unwrap_or_else(|e| panic!("{e}"))
    }

    fn text<'n>(r: &Reader<'n>, map: &'n Node, key: &str) -> Option<String> {
        r.get(map, key)
            .unwrap_or_else(|e| panic!("{e}"))
            .and_then(|v| v.as_scalar().map(|s| s.value.clone()))
    }

    #[test]
    fn an_alias_takes_the_latest_anchor_before_it() {
        let t = tree("a: &x 1\nb: *x\nc: &x 2\nd: *x\ne: [&x 3, *x]\n");
        let r = Reader::new(&t);
        assert_eq!(text(&r, &t, "b").as_deref(), Some("1"));
        assert_eq!(text(&r, &t, "d").as_deref(), Some("2"));
        let e = r.get(&t, "e").ok().flatten().and_then(Node::items);
        let second = e.map(|i| r.deref(&i[1].value).ok().and_then(Node::as_str));
        assert_eq!(second, Some(Some("3")));
    }

    #[test]
    fn an_alias_without_an_anchor_before_it_is_an_error() {
        let t = tree("b: *x\nc: &x 2\n");
        let r = Reader::new(&t);
        assert_eq!(
            r.get(&t, "b").err().as_deref(),
            Some("the alias *x has no anchor &x before it in this object")
        );
    }

    #[test]
    fn merge_keys_as_go_yaml_v3_reads_them() {
        let t = tree(
            "a: &a {k: a, only-a: 1}\nb: &b {k: b, only-b: 2, <<: {deep: 3}}\n\
             m1: {k: own, <<: [*a, *b]}\nm2: {<<: [*b, *a]}\nm3: {<<: *a, k: own}\n\
             q: {\"<<\": *a}\n",
        );
        let r = Reader::new(&t);
        let m = |k: &str| r.get(&t, k).ok().flatten().unwrap_or(&t);
        assert_eq!(text(&r, m("m1"), "k").as_deref(), Some("own"));
        assert_eq!(text(&r, m("m1"), "only-b").as_deref(), Some("2"));
        assert_eq!(text(&r, m("m1"), "deep").as_deref(), Some("3"));
        assert_eq!(text(&r, m("m2"), "k").as_deref(), Some("b"));
        assert_eq!(text(&r, m("m3"), "k").as_deref(), Some("own"));
        // A quoted "<<" is an ordinary key.
        assert_eq!(text(&r, m("q"), "k"), None);
        let keys = |k: &str| -> Vec<(String, String)> {
            r.pairs(m(k))
                .unwrap_or_default()
                .into_iter()
                .map(|(k, v)| (k.to_string(), v.as_str().unwrap_or("").to_string()))
                .collect()
        };
        let pairs = |p: &[(&str, &str)]| -> Vec<(String, String)> {
            p.iter()
                .map(|(a, b)| (a.to_string(), b.to_string()))
                .collect()
        };
        assert_eq!(
            keys("m1"),
            pairs(&[
                ("k", "own"),
                ("only-a", "1"),
                ("only-b", "2"),
                ("deep", "3")
            ])
        );
        assert_eq!(
            keys("m2"),
            pairs(&[("k", "b"), ("only-b", "2"), ("deep", "3"), ("only-a", "1")])
        );
        assert_eq!(keys("q"), pairs(&[("<<", "")]));
    }

    #[test]
    fn a_merge_of_something_else_is_an_error() {
        for src in [
            "m: {<<: 1}\n",
            "m: {<<: [{a: 1}, 2]}\n",
            "s: &s x\nm: {<<: [*s]}\n",
        ] {
            let t = tree(src);
            let r = Reader::new(&t);
            let m = r.get(&t, "m").ok().flatten().unwrap_or(&t);
            assert!(r.get(m, "a").is_err(), "{src}");
            assert!(r.pairs(m).is_err(), "{src}");
        }
    }

    /// Mappings merged twice at every level would be read 2^60 times without the visited set.
    #[test]
    fn a_mapping_merged_many_times_is_read_once() {
        let mut src = String::from("a0: &a0 {k0: v}\n");
        for i in 1..60 {
            src.push_str(&format!(
                "a{i}: &a{i} {{k{i}: v, <<: [*a{p}, *a{p}]}}\n",
                p = i - 1
            ));
        }
        src.push_str("m: {<<: *a59}\n");
        let t = tree(&src);
        let r = Reader::new(&t);
        let m = r.get(&t, "m").ok().flatten().unwrap_or(&t);
        assert_eq!(r.pairs(m).map(|p| p.len()), Ok(60));
        assert_eq!(text(&r, m, "k0").as_deref(), Some("v"));
        assert_eq!(text(&r, m, "missing"), None);
    }

    #[test]
    fn a_self_merge_ends() {
        let t = tree("m: &m {a: 1, <<: *m}\n");
        let r = Reader::new(&t);
        let m = r.get(&t, "m").ok().flatten().unwrap_or(&t);
        assert_eq!(text(&r, m, "b"), None);
        assert_eq!(r.pairs(m).map(|p| p.len()), Ok(1));
    }
}
