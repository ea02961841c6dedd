//! Assigning a new value to a node the way kyaml's `SetNestedField` does, and the value equality
//! it rests on.
//!
//! Why its own module: both walk two trees side by side, and on wide mappings and long lists
//! (a context of a million keys, an injected list of a million items) the obvious pairwise
//! search is quadratic. Small collections keep the plain search; larger ones index keys and
//! items once, so every step stays linear in the size of the trees.

use super::node::{Entry, Item, Kind, Node, Props};
use super::resolve::Resolved;
use std::collections::hash_map::DefaultHasher;
use std::collections::HashMap;
use std::hash::{Hash, Hasher};

/// Collections up to this size are searched pairwise (no allocation); larger ones are indexed.
const SMALL: usize = 16;

impl Node {
    /// Replaces this node's value with `new` the way kyaml's `SetNestedField` does when the
    /// field already exists: a value equal to the current one changes nothing (the source text
    /// is kept); otherwise mappings keep their existing keys' order and comments (new keys
    /// follow), sequence items equal to an existing item keep its formatting, and scalars keep
    /// their quoting where the new value allows it.
    pub fn assign(&mut self, new: Node) {
        if self.same_value(&new) {
            return;
        }
        let old = std::mem::replace(self, new);
        self.copy_formatting_from(old);
    }

    fn copy_formatting_from(&mut self, old: Node) {
        let old_flow = old.is_flow();
        let old_props = old.props.clone();
        match (&mut self.kind, old.kind) {
            (Kind::Mapping(new_entries), Kind::Mapping(old_entries)) => {
                copy_map_formatting(new_entries, old_entries);
                let flow = old_flow && !new_entries.is_empty();
                self.set_flow(flow);
            }
            (Kind::Sequence(new_items), Kind::Sequence(old_items)) => {
                keep_equal_items(new_items, old_items);
                let flow = old_flow && !new_items.is_empty();
                self.set_flow(flow);
            }
            (Kind::Scalar(new_s), Kind::Scalar(old_s)) => {
                let new_is_string = new_s.resolved(None) == Resolved::Str;
                if new_is_string
                    && self.props.is_none()
                    && super::style::style_allows(old_s.style, &new_s.value)
                {
                    new_s.style = old_s.style;
                }
            }
            _ => {}
        }
        if self.props.is_none() {
            if let Some(p) = old_props {
                if p.anchor.is_some() {
                    self.props = Some(Box::new(Props {
                        anchor: p.anchor,
                        tag: None,
                    }));
                }
            }
        }
    }

    /// Deep equality of values (not formatting): scalars compare by resolved value, mappings
    /// by key set and values regardless of order, sequences item by item.
    pub fn same_value(&self, other: &Node) -> bool {
        match (&self.kind, &other.kind) {
            (Kind::Scalar(a), Kind::Scalar(b)) => {
                if a.value != b.value {
                    return false;
                }
                a.resolved(self.tag()) == b.resolved(other.tag())
            }
            (Kind::Mapping(a), Kind::Mapping(b)) => {
                if a.len() != b.len() {
                    return false;
                }
                // Keys in the same order (the common case): pairwise, no index.
                let same_order = a
                    .iter()
                    .zip(b)
                    .take_while(|(ea, eb)| ea.key.scalar_text() == eb.key.scalar_text())
                    .count();
                if same_order == a.len() {
                    return a
                        .iter()
                        .zip(b)
                        .all(|(ea, eb)| ea.value.same_value(&eb.value));
                }
                if a.len() <= SMALL {
                    return a.iter().all(|ea| {
                        b.iter().any(|eb| {
                            eb.key.scalar_text() == ea.key.scalar_text()
                                && ea.value.same_value(&eb.value)
                        })
                    });
                }
                let mut by_key: HashMap<&str, Vec<&Node>> = HashMap::with_capacity(b.len());
                for eb in b {
                    by_key
                        .entry(eb.key.scalar_text())
                        .or_default()
                        .push(&eb.value);
                }
                a.iter().all(|ea| {
                    by_key
                        .get(ea.key.scalar_text())
                        .is_some_and(|vs| vs.iter().any(|v| ea.value.same_value(v)))
                })
            }
            (Kind::Sequence(a), Kind::Sequence(b)) => {
                a.len() == b.len()
                    && a.iter()
                        .zip(b.iter())
                        .all(|(x, y)| x.value.same_value(&y.value))
            }
            (Kind::Alias(a), Kind::Alias(b)) => a == b,
            _ => false,
        }
    }
}

/// kyaml's copyMapFormatting: walk the old keys, swap each matching new entry into place (so
/// existing keys keep their order, then the new ones), and give it the old key, comments and,
/// recursively, formatting.
fn copy_map_formatting(new_entries: &mut [Entry], old_entries: Vec<Entry>) {
    // Where each key stands among the new entries (the first of a repeated text), kept up to
    // date through the swaps; only built for wide mappings.
    let mut index: Option<HashMap<String, usize>> = (new_entries.len() > SMALL).then(|| {
        let mut m = HashMap::with_capacity(new_entries.len());
        for (i, e) in new_entries.iter().enumerate() {
            m.entry(e.key.scalar_text().to_string()).or_insert(i);
        }
        m
    });
    let mut c = 0;
    for old_e in old_entries {
        let key = old_e.key.scalar_text();
        let found = match &index {
            Some(ix) => ix.get(key).copied().filter(|&p| p >= c),
            None => (c..new_entries.len()).find(|&p| new_entries[p].key.scalar_text() == key),
        };
        let Some(p) = found else {
            continue;
        };
        new_entries.swap(p, c);
        if let Some(ix) = &mut index {
            // The entry that stood at `c` now stands at `p`.
            if let Some(slot) = ix.get_mut(new_entries[p].key.scalar_text()) {
                if *slot == c {
                    *slot = p;
                }
            }
            if let Some(slot) = ix.get_mut(key) {
                *slot = c;
            }
        }
        let e = &mut new_entries[c];
        e.key = old_e.key;
        e.trivia.lead = old_e.trivia.lead;
        e.trivia.comment = old_e.trivia.comment;
        let new_value = std::mem::replace(&mut e.value, Node::mapping());
        let mut v = old_e.value;
        v.assign(new_value);
        if v.is_pristine() {
            e.trivia.set_whole(old_e.trivia.whole());
        }
        e.value = v;
        c += 1;
    }
}

/// Each new item equal to an old one takes the old item (its formatting and comments), the
/// first old item not taken yet. Long lists find candidates by a hash of the value, equal for
/// equal values, so each item is compared with the few old items that can be equal.
fn keep_equal_items(new_items: &mut [Item], old_items: Vec<Item>) {
    let mut old_items: Vec<Option<Item>> = old_items.into_iter().map(Some).collect();
    if new_items.len() <= SMALL || old_items.len() <= SMALL {
        for item in new_items.iter_mut() {
            let found = old_items
                .iter_mut()
                .find(|o| o.as_ref().is_some_and(|o| o.value.same_value(&item.value)));
            if let Some(o) = found.and_then(Option::take) {
                *item = o;
            }
        }
        return;
    }
    // Candidates as (hash, old position), sorted: 16 bytes an item, where a map of queues
    // cost a hundred. Equal values have equal hashes, so each new item looks only at its run.
    let mut by_hash: Vec<(u64, u32)> = old_items
        .iter()
        .enumerate()
        .filter_map(|(i, o)| o.as_ref().map(|o| (value_hash(&o.value), i as u32)))
        .collect();
    by_hash.sort_unstable();
    // For each run of one hash, where its first item not yet taken stands (kept at the run's
    // first slot): items taken from the front are stepped over once, not on every search.
    let mut first_left: Vec<u32> = (0..by_hash.len() as u32).collect();
    for item in new_items.iter_mut() {
        let h = value_hash(&item.value);
        let run = by_hash.partition_point(|&(x, _)| x < h);
        let end = run + by_hash[run..].partition_point(|&(x, _)| x == h);
        if run == end {
            continue;
        }
        let mut from = first_left[run] as usize;
        while from < end && old_items[by_hash[from].1 as usize].is_none() {
            from += 1;
        }
        first_left[run] = from as u32;
        let at = (from..end).find(|&s| {
            old_items[by_hash[s].1 as usize]
                .as_ref()
                .is_some_and(|o| o.value.same_value(&item.value))
        });
        if let Some(o) = at.and_then(|s| old_items[by_hash[s].1 as usize].take()) {
            *item = o;
        }
    }
}

/// A hash of a node's value, equal for nodes that are [`Node::same_value`]: mapping entries
/// combine regardless of order, as equality ignores it.
fn value_hash(n: &Node) -> u64 {
    let mut h = DefaultHasher::new();
    match n.kind() {
        Kind::Scalar(s) => {
            0u8.hash(&mut h);
            s.value.hash(&mut h);
            (s.resolved(n.tag()) as u8).hash(&mut h);
        }
        Kind::Mapping(entries) => {
            1u8.hash(&mut h);
            entries.len().hash(&mut h);
            let mut sum = 0u64;
            for e in entries {
                let mut eh = DefaultHasher::new();
                e.key.scalar_text().hash(&mut eh);
                value_hash(&e.value).hash(&mut eh);
                sum = sum.wrapping_add(eh.finish());
            }
            sum.hash(&mut h);
        }
        Kind::Sequence(items) => {
            2u8.hash(&mut h);
            for i in items {
                value_hash(&i.value).hash(&mut h);
            }
        }
        Kind::Alias(name) => {
            3u8.hash(&mut h);
            name.hash(&mut h);
        }
    }
    h.finish()
}
