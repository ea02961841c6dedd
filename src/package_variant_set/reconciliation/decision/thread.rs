//! Where the expansion runs: on a thread of its own with a big stack (CEL recurses over
//! expression trees), panics caught there as a last line of defence. Its own file so that
//! the decision itself (`decision.rs`) reads as the loop only.

use serde_json::Value;

use super::{expand_here, Expansion, TypedExpansion};
use crate::krm::results::ResultItem;
use crate::package_variant_set::expansion::inputs::{self, Item};

/// Stack for the expansion thread: CEL parsing and evaluation recurse over expression trees.
const EXPANSION_STACK_BYTES: usize = 64 << 20;

/// Expands the set. `items`: every input item as JSON, in ResourceList order. `config`: the
/// functionConfig as JSON.
pub fn expand(config: &Value, items: &[Value]) -> Expansion {
    expand_typed(config, &inputs::from_json(items)).into_json()
}

/// [`expand`] over the items as the expander reads them, with the specs and new variants
/// still typed.
pub fn expand_typed(config: &Value, items: &[Item]) -> TypedExpansion {
    // The binary's work thread already has a big stack, and its panics abort the process:
    // a thread of our own would only add its start-up and teardown.
    if crate::krm::run::exits_after_run() {
        return expand_here(config, items);
    }
    // A big stack for CEL, and a last line of defence against panics where they unwind.
    let outcome = std::thread::scope(|scope| {
        std::thread::Builder::new()
            .name("pvs-expand".into())
            .stack_size(EXPANSION_STACK_BYTES)
            .spawn_scoped(scope, || expand_here(config, items))
            .map(|handle| handle.join())
    });
    match outcome {
        Ok(Ok(expansion)) => expansion,
        Ok(Err(_)) => TypedExpansion::failed(vec![ResultItem::error(
            "internal error: the PackageVariantSet expander panicked",
        )
        .on_config()]),
        // No thread available: run on this one.
        Err(_) => expand_here(config, items),
    }
}
