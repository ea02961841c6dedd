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

use super::node::{Entry, Item, Kind, Node, Props, Trivia, MAX_DEPTH};
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
                    if let Some(span) = n.span() {
                        self.at.insert(span.start, target);
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

/// How many nodes writing aliases out may produce: aliases can expand exponentially.
#[derive(Debug, Clone, Copy)]
pub struct Budget {
    left: usize,
    limit: usize,
}

impl Budget {
    pub fn new(limit: usize) -> Budget {
        Budget { left: limit, limit }
    }

    fn take(&mut self) -> Result<(), String> {
        if self.left == 0 {
            return Err(format!(
                "YAML aliases expand to more than {} values; refusing to expand them",
                self.limit
            ));
        }
        self.left -= 1;
        Ok(())
    }
}

/// A copy of `n` with every alias replaced by a copy of what it means (read in the tree of
/// `r`), without anchors and without source text, so it is written from the tree. Every value
/// copied from behind an alias takes one from `budget` (keys are free, as in
/// [`crate::yaml::json::to_json`]); `behind_alias`: `n` itself is what an alias means.
pub fn expanded<'n>(
    r: &Reader<'n>,
    n: &'n Node,
    budget: &mut Budget,
    behind_alias: bool,
) -> Result<Node, String> {
    expand(r, n, budget, behind_alias, 0)
}

fn expand<'n>(
    r: &Reader<'n>,
    n: &'n Node,
    budget: &mut Budget,
    behind_alias: bool,
    depth: usize,
) -> Result<Node, String> {
    if depth > MAX_DEPTH {
        return Err("YAML aliases nest too deeply to be written out".to_string());
    }
    let behind_alias = behind_alias || matches!(n.kind(), Kind::Alias(_));
    if behind_alias {
        budget.take()?;
    }
    let n = r.deref(n)?;
    let kind = match n.kind() {
        Kind::Scalar(s) => Kind::Scalar(s.clone()),
        Kind::Alias(_) => return Err("an alias names another alias".to_string()),
        Kind::Mapping(entries) => Kind::Mapping(
            entries
                .iter()
                .map(|e| {
                    Ok(Entry {
                        key: expand(r, &e.key, &mut Budget::new(1), false, depth + 1)?,
                        value: expand(r, &e.value, budget, behind_alias, depth + 1)?,
                        trivia: Trivia::default(),
                    })
                })
                .collect::<Result<_, String>>()?,
        ),
        Kind::Sequence(items) => Kind::Sequence(
            items
                .iter()
                .map(|i| {
                    Ok(Item {
                        value: expand(r, &i.value, budget, behind_alias, depth + 1)?,
                        trivia: Trivia::default(),
                    })
                })
                .collect::<Result<_, String>>()?,
        ),
    };
    let mut copy = Node::with_kind(kind);
    copy.flow = n.flow;
    copy.props = n.tag().map(|t| {
        Box::new(Props {
            anchor: None,
            tag: Some(t.to_string()),
        })
    });
    Ok(copy)
}

/// Whether the tree holds an alias anywhere (keys included).
pub fn has_alias(n: &Node) -> bool {
    match n.kind() {
        Kind::Alias(_) => true,
        Kind::Scalar(_) => false,
        Kind::Mapping(entries) => entries
            .iter()
            .any(|e| has_alias(&e.key) || has_alias(&e.value)),
        Kind::Sequence(items) => items.iter().any(|i| has_alias(&i.value)),
    }
}

/// One step from a node to a child: the key or value of a mapping entry, a sequence item.
#[derive(Debug, Clone, Copy)]
enum Step {
    Key(usize),
    Value(usize),
    Item(usize),
}

/// After `edited` was made from `original` (the same object parsed from the same text), makes
/// every alias of `edited` mean what it meant in `original`: an alias whose anchor was edited,
/// moved after it or removed is replaced by a copy of the value it meant. An edit then never
/// changes a value it did not set, whatever aliases point into it. Returns how many aliases
/// were written out; aliases left as written cost nothing.
pub fn keep_alias_meanings(
    original: &Node,
    edited: &mut Node,
    budget: usize,
) -> Result<usize, String> {
    let old = Bindings::of(original);
    let mut repairs = Vec::new();
    {
        let mut anchors: HashMap<&str, &Node> = HashMap::new();
        let mut path = Vec::new();
        find_changed(edited, &old, &mut anchors, &mut path, &mut repairs, 0)?;
    }
    if repairs.is_empty() {
        return Ok(0);
    }
    let r = Reader::new(original);
    let mut budget = Budget::new(budget);
    for (path, target) in &repairs {
        let value = expanded(&r, target, &mut budget, true)?;
        if let Some(slot) = node_at_mut(edited, path) {
            *slot = value;
        }
    }
    Ok(repairs.len())
}

/// The aliases of `n` (walked in document order, binding as go-yaml binds) whose anchor is not
/// the untouched source node it was in the original, with the node they meant there.
fn find_changed<'e, 'o>(
    n: &'e Node,
    old: &Bindings<'o>,
    anchors: &mut HashMap<&'e str, &'e Node>,
    path: &mut Vec<Step>,
    out: &mut Vec<(Vec<Step>, &'o Node)>,
    depth: usize,
) -> Result<(), String> {
    if depth > MAX_DEPTH {
        return Ok(());
    }
    if let Some(a) = n.props().and_then(|p| p.anchor.as_deref()) {
        anchors.insert(a, n);
    }
    match n.kind() {
        Kind::Alias(name) => {
            let Some(span) = n.span() else {
                // Made by an edit, not read: it must still have an anchor before it.
                return match anchors.get(name.as_str()) {
                    Some(_) => Ok(()),
                    None => Err(format!("an edit left the alias *{name} without its anchor")),
                };
            };
            let Some(was) = old.target_at(span.start) else {
                // It had no anchor in the original either: nothing to keep.
                return Ok(());
            };
            let same = anchors
                .get(name.as_str())
                .is_some_and(|now| now.span().is_some() && now.span() == was.span());
            if !same {
                out.push((path.clone(), was));
            }
        }
        Kind::Mapping(entries) => {
            for (i, e) in entries.iter().enumerate() {
                path.push(Step::Key(i));
                find_changed(&e.key, old, anchors, path, out, depth + 1)?;
                path.pop();
                path.push(Step::Value(i));
                find_changed(&e.value, old, anchors, path, out, depth + 1)?;
                path.pop();
            }
        }
        Kind::Sequence(items) => {
            for (i, it) in items.iter().enumerate() {
                path.push(Step::Item(i));
                find_changed(&it.value, old, anchors, path, out, depth + 1)?;
                path.pop();
            }
        }
        Kind::Scalar(_) => {}
    }
    Ok(())
}

/// The node at `path`, reached for editing (every node on the way is marked touched).
fn node_at_mut<'a>(root: &'a mut Node, path: &[Step]) -> Option<&'a mut Node> {
    let mut n = root;
    for step in path {
        n = match *step {
            Step::Key(i) => &mut n.entries_mut()?.get_mut(i)?.key,
            Step::Value(i) => &mut n.entries_mut()?.get_mut(i)?.value,
            Step::Item(i) => &mut n.items_mut()?.get_mut(i)?.value,
        };
    }
    Some(n)
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

    fn kept(src: &str, edit: impl Fn(&mut Node)) -> (usize, String) {
        let original = tree(src);
        let mut edited = original.clone();
        edit(&mut edited);
        let n = keep_alias_meanings(&original, &mut edited, 1000).unwrap_or(usize::MAX);
        (n, crate::yaml::emit::to_string(src, &edited))
    }

    #[test]
    fn aliases_keep_their_meaning_across_edits() {
        // Untouched: nothing written out.
        let src = "a: &x 1\nb: *x\n";
        assert_eq!(kept(src, |_| {}), (0, src.to_string()));
        // The anchored value replaced.
        let (n, out) = kept(src, |t| {
            if let Some(a) = t.get_mut("a") {
                a.assign(Node::plain("2"));
            }
        });
        assert_eq!((n, out.as_str()), (1, "a: &x 2\nb: 1\n"));
        // The anchor removed; a redefinition before the alias must not capture it.
        let (n, out) = kept("z: &x 0\na: &x 1\nb: *x\n", |t| {
            t.remove("a");
        });
        assert_eq!((n, out.as_str()), (1, "z: &x 0\nb: 1\n"));
        // The anchor moved after its alias.
        let (n, out) = kept("m:\n  a: &x [1]\n  b: *x\n", |t| {
            if let Some(e) = t.get_mut("m").and_then(Node::entries_mut) {
                e.swap(0, 1);
            }
        });
        assert_eq!((n, out.as_str()), (1, "m:\n  b: [1]\n  a: &x [1]\n"));
    }

    #[test]
    fn writing_out_is_bounded() {
        let original = tree("a: &a [x, x]\nb: &b [*a, *a]\nc: &c [*b, *b]\nd: &d {k: *c}\ne: *d\n");
        let mut edited = original.clone();
        if let Some(d) = edited.get_mut("d") {
            d.assign(Node::plain("gone"));
        }
        assert!(keep_alias_meanings(&original, &mut edited, 5).is_err());
        let mut edited = original.clone();
        if let Some(d) = edited.get_mut("d") {
            d.assign(Node::plain("gone"));
        }
        assert_eq!(keep_alias_meanings(&original, &mut edited, 100), Ok(1));
    }
}
