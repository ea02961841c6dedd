//! Edits of an item's tree as kpt reads it: a value set only when it differs, a key removed only
//! when present, a field read through the object's aliases, a path made the object's own.
//! Every mutation uses them on the trees the package holds; they need nothing of the package.

use crate::yaml::alias::{self, Budget, Reader};
use crate::yaml::json::MAX_ALIAS_EXPANSION;
use crate::yaml::{to_json, Node};

/// Sets `key` of mapping `parent` to `value` only when the value differs: an existing key is
/// assigned (kyaml's formatting rules), a new key is appended. Returns true when it changed.
/// Reading first keeps `parent` untouched when nothing changes.
pub fn assign_at(parent: &mut Node, key: &str, value: Node) -> bool {
    match parent.get(key) {
        Some(old) if old.same_value(&value) => false,
        Some(_) => {
            if let Some(n) = parent.get_mut(key) {
                n.assign(value);
            }
            true
        }
        None => parent.set(key, value),
    }
}

/// Removes `key` from `parent` if present, touching `parent` only then.
pub fn remove_if_present(parent: &mut Node, key: &str) -> bool {
    parent.position(key).is_some() && parent.remove(key).is_some()
}

/// The JSON of `value`, a node inside the object `root`, read through the object's aliases
/// (which may name anchors outside `value`).
pub fn field_json(root: &Node, value: &Node) -> Result<serde_json::Value, String> {
    if !alias::has_alias(value) {
        return to_json(value);
    }
    let mut budget = Budget::new(MAX_ALIAS_EXPANSION);
    to_json(&alias::expanded(
        &Reader::new(root),
        value,
        &mut budget,
        false,
    )?)
}

/// Makes the node at `keys` one the object holds itself, so that an edit there lands where kpt
/// reads it: an alias on the way is replaced by a copy of what it means, and a key that only a
/// merge key (`<<`) brings in is written out as the object's own. Nothing changes when the path
/// is already the object's own or does not exist.
pub fn own_path(tree: &mut Node, keys: &[&str]) -> Result<(), String> {
    for depth in 1..=keys.len() {
        let (parents, key) = (&keys[..depth - 1], keys[depth - 1]);
        let replacement = {
            let r = Reader::new(tree);
            let Some(parent) = tree.path(parents) else {
                return Ok(());
            };
            let value = match parent.get(key) {
                Some(v) if matches!(v.kind(), crate::yaml::Kind::Alias(_)) => v,
                Some(_) => continue,
                None => match r.get(parent, key)? {
                    Some(v) => v,
                    None => return Ok(()),
                },
            };
            let mut budget = Budget::new(MAX_ALIAS_EXPANSION);
            alias::expanded(&r, value, &mut budget, true)?
        };
        if let Some(parent) = tree.path_mut(parents) {
            parent.set(key, replacement);
        }
    }
    Ok(())
}
