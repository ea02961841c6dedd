//! Edits and aliases: copies of what an alias means (to write it out), and keeping every alias
//! of an edited object meaning what it meant before the edit.
//!
//! Why: an edit that replaces, moves or removes an anchored node would otherwise change every
//! value written through an alias to it, values the edit never meant to touch.

use super::{Bindings, Reader};
use crate::yaml::node::{depth_limit, Entry, Item, Kind, Node, Props, Trivia};
use std::collections::HashMap;

/// Most bytes of text (scalars and keys) that alias expansion may produce in one conversion:
/// a 1 MB value anchored once and aliased a thousand times is a thousand values but a
/// gigabyte, so aliases are counted by what they expand to, not only by how many values.
/// 64 MiB, the constant of the output rule (`krm::output`).
pub const MAX_ALIAS_EXPANSION_BYTES: usize = 64 << 20;

/// What alias expansion may still produce in one conversion: values and bytes of text.
#[derive(Debug, Clone, Copy)]
pub struct Expansion {
    values: usize,
    bytes: usize,
}

impl Expansion {
    /// `values` values (`yaml::json::MAX_ALIAS_EXPANSION`), [`MAX_ALIAS_EXPANSION_BYTES`].
    pub fn new(values: usize) -> Expansion {
        Expansion {
            values,
            bytes: MAX_ALIAS_EXPANSION_BYTES,
        }
    }

    /// Takes one value.
    pub fn take_value(&mut self, limit: usize) -> Result<(), String> {
        if self.values == 0 {
            return Err(format!(
                "YAML aliases expand to more than {limit} values; refusing to expand them"
            ));
        }
        self.values -= 1;
        Ok(())
    }

    /// Takes `n` bytes of text copied from behind an alias.
    pub fn take_bytes(&mut self, n: usize) -> Result<(), String> {
        if n > self.bytes {
            return Err(format!(
                "YAML aliases expand to more than {MAX_ALIAS_EXPANSION_BYTES} bytes ({} MiB) of \
                 text; refusing to expand them: aliases are counted by the bytes they expand \
                 to, so write a large value where it is used instead of aliasing it many times",
                MAX_ALIAS_EXPANSION_BYTES >> 20
            ));
        }
        self.bytes -= n;
        Ok(())
    }
}

/// How many nodes, and bytes of text, writing aliases out may produce: aliases can expand
/// exponentially, and one alias of a large value is a large copy.
#[derive(Debug, Clone, Copy)]
pub struct Budget {
    left: Expansion,
    limit: usize,
}

impl Budget {
    pub fn new(limit: usize) -> Budget {
        Budget {
            left: Expansion::new(limit),
            limit,
        }
    }

    fn take(&mut self) -> Result<(), String> {
        self.left.take_value(self.limit)
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
    if depth > depth_limit() {
        return Err("YAML aliases nest too deeply to be written out".to_string());
    }
    let behind_alias = behind_alias || matches!(n.kind(), Kind::Alias(_));
    if behind_alias {
        budget.take()?;
    }
    let n = r.deref(n)?;
    let kind = match n.kind() {
        Kind::Scalar(s) => {
            if behind_alias {
                budget.left.take_bytes(s.value.len())?;
            }
            Kind::Scalar(s.clone())
        }
        Kind::Alias(_) => return Err("an alias names another alias".to_string()),
        Kind::Mapping(entries) => Kind::Mapping(
            entries
                .iter()
                .map(|e| {
                    if behind_alias {
                        budget.left.take_bytes(e.key.scalar_text().len())?;
                    }
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
    copy.set_flow(n.is_flow());
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
    if depth > depth_limit() {
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
            let Some(was) = old.target_at(span.start()) else {
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
