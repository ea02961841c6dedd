//! Injections written only when the output is: one in-cluster object's field injected into many
//! points is converted once and held once; each point's tree is read again, the value copied in
//! and the copy dropped as soon as the point is written.
//!
//! Why: holding an edited tree per point held a copy of the value per point (one 5,000-key
//! ConfigMap into 1,000 points: 257 KB in, 602 MB). Every check (what changes, what the edit
//! does to the point's aliases) is made before the output is written, so all or nothing holds.

use crate::krm::resource_list::{EditedItems, ResourceList};
use crate::package_variant::edits::{assign_at, own_path};
use crate::yaml::alias;
use crate::yaml::json::MAX_ALIAS_EXPANSION;
use crate::yaml::Node;
use std::collections::HashMap;

/// Annotation set on an injected resource: the name of the in-cluster object injected.
pub const INJECTED_RESOURCE_ANNOTATION: &str = "kpt.dev/injected-resource";

/// One deferred injection: the shared value `value` at `field`, from the object `name`.
#[derive(Debug, Clone)]
struct Write {
    field: &'static str,
    value: usize,
    name: String,
}

/// The shared values and the points they go into.
#[derive(Debug, Default)]
pub struct SharedInjections {
    values: Vec<Node>,
    writes: HashMap<usize, Write>,
}

impl SharedInjections {
    /// Holds `value` once; returns its handle.
    pub fn add_value(&mut self, value: Node) -> usize {
        self.values.push(value);
        self.values.len() - 1
    }

    /// The value of a handle.
    pub fn value(&self, handle: usize) -> &Node {
        &self.values[handle]
    }

    /// Records that item `item` gets value `handle` at `field`, from object `name`.
    pub fn defer(&mut self, item: usize, field: &'static str, handle: usize, name: &str) {
        self.writes.insert(
            item,
            Write {
                field,
                value: handle,
                name: name.to_string(),
            },
        );
    }

    /// True when item `item` has a deferred injection.
    pub fn contains(&self, item: usize) -> bool {
        self.writes.contains_key(&item)
    }

    /// Applies (and forgets) the deferred injection of `item` to its tree, when it has one: for
    /// an item that is edited again after injection.
    pub fn apply_now(&mut self, item: usize, tree: &mut Node) {
        if let Some(w) = self.writes.remove(&item) {
            set_injected(tree, w.field, self.values[w.value].clone(), &w.name);
        }
    }

    /// The tree of `item` with its injection, made from `original`, its aliases written out
    /// where the edit changed what they meant. `Err` when they cannot be (too many).
    pub fn edited(&self, item: usize, original: &Node) -> Option<Result<Node, String>> {
        let w = self.writes.get(&item)?;
        let mut tree = original.clone();
        set_injected(&mut tree, w.field, self.values[w.value].clone(), &w.name);
        if alias::has_alias(&tree) {
            if let Err(e) = alias::keep_alias_meanings(original, &mut tree, MAX_ALIAS_EXPANSION) {
                return Some(Err(e));
            }
        }
        Some(Ok(tree))
    }
}

impl EditedItems for SharedInjections {
    fn count(&self) -> usize {
        self.writes.len()
    }

    fn tree(&self, rl: &ResourceList, i: usize) -> Option<Node> {
        if !self.writes.contains_key(&i) {
            return None;
        }
        // Checked when the injection was decided (`edited`): both succeed here.
        let original = rl.original(i).ok()?;
        self.edited(i, &original)?.ok()
    }
}

/// True when `tree` already holds `value` at `field` and the injected-resource annotation
/// `name`: injecting changes nothing.
pub fn is_injected(tree: &Node, field: &str, value: &Node, name: &str) -> bool {
    tree.get(field).is_some_and(|old| old.same_value(value))
        && tree
            .path(&["metadata", "annotations"])
            .is_some_and(Node::is_mapping)
        && tree
            .path(&["metadata", "annotations", INJECTED_RESOURCE_ANNOTATION])
            .is_some_and(|a| a.same_value(&Node::string(name)))
}

/// Replaces `field` wholesale and sets the injected-resource annotation, touching the tree only
/// where something differs.
pub fn set_injected(tree: &mut Node, field: &str, value: Node, name: &str) {
    // Annotations written through an alias or a merge key become the object's own first.
    let annotations = ["metadata", "annotations"];
    if !tree.path(&annotations).is_some_and(Node::is_mapping) {
        let mut owned = tree.clone();
        if own_path(&mut owned, &annotations).is_ok() && owned.path(&annotations).is_some() {
            *tree = owned;
        }
    }
    let field_same = tree.get(field).is_some_and(|old| old.same_value(&value));
    let annotations_ok = tree
        .path(&["metadata", "annotations"])
        .is_some_and(Node::is_mapping);
    let annotation_same = tree
        .path(&["metadata", "annotations", INJECTED_RESOURCE_ANNOTATION])
        .is_some_and(|a| a.same_value(&Node::string(name)));
    if field_same && annotation_same {
        return;
    }
    if !field_same {
        assign_at(tree, field, value);
    }
    if !annotation_same && annotations_ok {
        if let Some(ann) = tree.path_mut(&["metadata", "annotations"]) {
            assign_at(ann, INJECTED_RESOURCE_ANNOTATION, Node::string(name));
        }
    }
}
