//! Gate 4 (readiness), as `requireReady` reads one variant without a `readyExpr`: its `Ready`
//! condition for its current generation, and the numbers that say which generation it is.
//! Its own file so that what "ready" means is found in one place.

use serde_json::Value;

use super::super::fleet_conditions;
use crate::krm::object::json_at;
use crate::krm::results::ResultItem;
use crate::package_variant_set::expansion::upstreams::revisions::whole_number;

/// Whether a PackageVariant reports `Ready` `True` in its `status.conditions`, for its
/// current generation: a condition with an `observedGeneration` below `metadata.generation`
/// describes an older spec.
///
/// Conditions are read as Kubernetes reads them, one per type (`meta.FindStatusCondition`
/// takes the first); more than one of type `Ready` is a status no controller writes, and a
/// doubt blocks: such a variant is not Ready, whatever the first says. So does a generation
/// that is not an integer (refused before by [`check_numbers`]).
pub fn is_ready(variant: &Value) -> bool {
    let Ok(generation) = whole_number(variant, "/metadata/generation") else {
        return false;
    };
    // The one conditions reader: a status it cannot read is a doubt, and a doubt blocks.
    let Ok(conditions) = fleet_conditions::read(variant) else {
        return false;
    };
    let Some(c) = fleet_conditions::find(&conditions, READY) else {
        return false;
    };
    let current = match (c.observed_generation, generation) {
        (Some(o), Some(g)) => o >= g,
        _ => true,
    };
    current && c.status == fleet_conditions::Status::True
}

/// The numbers [`is_ready`] reads of the variant at `item` (`metadata.generation`, each
/// condition's `observedGeneration`), each an integer (int64 in Kubernetes) or absent: any
/// other value is an error on its field, never read as current.
pub fn check_numbers(variant: &Value, item: usize) -> Result<(), Box<ResultItem>> {
    let name = json_at(variant, "/metadata/name")
        .and_then(Value::as_str)
        .unwrap_or("");
    let error = |field: String, message: String| {
        Box::new(
            ResultItem::error(format!(
                "PackageVariant {name:?}: {field} {message}; requireReady cannot tell whether its Ready condition is current"
            ))
            .field(field)
            .on_item(item),
        )
    };
    whole_number(variant, "/metadata/generation")
        .map_err(|m| error("metadata.generation".into(), m))?;
    let conditions = json_at(variant, "/status/conditions").and_then(Value::as_array);
    for (k, c) in conditions.into_iter().flatten().enumerate() {
        whole_number(c, "/observedGeneration")
            .map_err(|m| error(format!("status.conditions[{k}].observedGeneration"), m))?;
    }
    Ok(())
}

/// The condition type `requireReady` waits for.
const READY: &str = "Ready";
