//! The PackageVariantSet function, "the expander": from a PackageVariantSet functionConfig and
//! the input items, the PackageVariants Porch's controller would create, update and delete.
//!
//! Two parts, in the order of the design's reconciliation loop
//! (`package-variant-set-reconciliation`):
//! - [`expansion`]: which variants should exist for which targets (the desired set): the
//!   items it reads, the set's validation, upstreams, target unrolling, template evaluation,
//!   naming, and where each downstream came from;
//! - [`reconciliation`]: the desired set against the PackageVariants that exist (create,
//!   update, delete) and the policies that hold changes back (sync policy, deletion guard,
//!   rollout, activation), what it says about them (explain, the preview), and the decision
//!   that runs the whole loop.
//!
//! `reconciliation` uses `expansion`, never the reverse (`tests/architecture.rs`).
//!
//! [`run`] turns the decision into changes to the ResourceList. Only the items the expander
//! can use are converted to JSON; everything else passes through untouched. The
//! PackageVariant function (`crate::package_variant`) is not used here: the two share only
//! the API types (`crate::api`).

pub mod expansion;
pub mod reconciliation;

pub use reconciliation::decision::{expand, expand_typed, Expansion, TypedExpansion};

use crate::krm::resource_list::{Changes, NewItems, ResourceList};
use crate::krm::results::{has_errors, ResultItem};
use crate::yaml::{self, Emitter, Node, Trivia};
use std::borrow::Cow;

/// Runs the expander for a PackageVariantSet functionConfig.
pub fn run(rl: &ResourceList, config: Cow<Node>) -> (Changes, Vec<ResultItem>) {
    let config_json = match yaml::to_json(&config) {
        Ok(v) => v,
        Err(e) => {
            return (
                Changes::default(),
                vec![
                    ResultItem::error(format!("cannot read the PackageVariantSet: {e}"))
                        .on_config(),
                ],
            )
        }
    };
    drop(config);
    let read = match expansion::inputs::read(rl, &config_json) {
        Ok(read) => read,
        Err(errors) => return (Changes::default(), errors),
    };
    let items = read.items(rl);
    let mut plan = expand_typed(&config_json, &items);
    // The objects read in full are not needed to write the output: their memory is reused.
    drop(items);
    drop(read);
    if has_errors(&plan.results) {
        return (Changes::default(), plan.results);
    }
    let mut changes = Changes::default();
    let mut results = std::mem::take(&mut plan.results);
    let tag_edits: crate::common::fast_hash::FastMap<usize, Option<String>> =
        std::mem::take(&mut plan.tag_edits).into_iter().collect();
    let wave_edits: crate::common::fast_hash::FastMap<usize, String> =
        std::mem::take(&mut plan.wave_edits).into_iter().collect();
    for (i, spec) in std::mem::take(&mut plan.updates) {
        let mut tree = match rl.tree(i) {
            Ok(t) => t,
            Err(e) => {
                results.push(*e);
                return (Changes::default(), results);
            }
        };
        let mut tag_edited = match tag_edits.get(&i) {
            Some(tag) => expansion::upstreams::write_tag(&mut tree, tag.as_deref()),
            None => false,
        };
        if let Some(wave) = wave_edits.get(&i) {
            tag_edited |= tree
                .upsert_mapping("metadata")
                .and_then(|m| m.upsert_mapping("annotations"))
                .is_some_and(|a| {
                    a.set(
                        reconciliation::deletion_order::ANNOTATION,
                        Node::string(wave),
                    )
                });
        }
        // Serialising these plain structs cannot fail; `null` should it ever.
        let new_spec = yaml::to_node(&spec).unwrap_or_else(|_| Node::plain("null"));
        // The extension's kind where the spec uses an extension field, Porch's otherwise.
        let api_version = reconciliation::new_variant::variant_api_version(&spec);
        let kind_same = tree
            .get("apiVersion")
            .is_some_and(|v| v.same_value(&Node::string(api_version)));
        let unchanged = spec_is(&tree, &new_spec);
        if unchanged && kind_same && !tag_edited {
            continue;
        }
        if !kind_same {
            match tree.get_mut("apiVersion") {
                Some(v) => v.assign(Node::string(api_version)),
                None => {
                    tree.set("apiVersion", Node::string(api_version));
                }
            }
        }
        if unchanged {
            changes.edited.insert(i, tree);
            continue;
        }
        match tree.get_mut("spec") {
            Some(s) => s.assign(new_spec),
            None => {
                tree.set("spec", new_spec);
            }
        }
        // An upgrade of the rollout: the status described the old spec.
        if plan.reset_status.binary_search(&i).is_ok() {
            tree.remove("status");
        }
        changes.edited.insert(i, tree);
    }
    changes.removed = std::mem::take(&mut plan.deletes);
    if !plan.creates.is_empty() {
        changes.appended = Some(Box::new(NewVariants(plan)));
    } else if crate::krm::run::exits_after_run() {
        std::mem::forget(plan); // freed by the exit (see `run_and_exit`)
    }
    (changes, results)
}

/// Whether the PackageVariant's `spec`, read as kpt reads it (through aliases and merge keys),
/// already is `new`: then it is left as written.
fn spec_is(tree: &Node, new: &Node) -> bool {
    let r = yaml::alias::Reader::new(tree);
    let Ok(Some(spec)) = r.get(tree, "spec") else {
        return false;
    };
    if !yaml::alias::has_alias(spec) && tree.get("spec").is_some() {
        return spec.same_value(new);
    }
    let mut budget = yaml::alias::Budget::new(yaml::json::MAX_ALIAS_EXPANSION);
    yaml::alias::expanded(&r, spec, &mut budget, false).is_ok_and(|s| s.same_value(new))
}

/// The set's new PackageVariants, each rendered again and written when the output reaches it:
/// a fleet's new variants are never held together, as specs, trees or text.
#[derive(Debug)]
struct NewVariants(TypedExpansion);

impl NewItems for NewVariants {
    fn count(&self) -> usize {
        self.0.creates.len()
    }

    fn write(&self, i: usize, e: &mut Emitter) {
        let Some(d) = self.0.creates.get(i) else {
            return;
        };
        // The replay (the render's own code over its recorded values) cannot fail where
        // the render succeeded; `null` should it ever.
        let Ok(spec) = self.0.spec(d) else {
            e.seq_item_forced(&Node::plain("null"), &Trivia::default(), 0, false);
            return;
        };
        let variant = self.0.new_variant(d, &spec);
        // Straight to text; what that path does not write (unusual strings) goes as a node.
        if yaml::text::write_item(&variant, &mut e.out).is_ok() {
            return;
        }
        // Serialising these plain structs cannot fail; `null` should it ever.
        let node = yaml::to_node(&variant).unwrap_or_else(|_| Node::plain("null"));
        e.seq_item_forced(&node, &Trivia::default(), 0, false);
    }
}
