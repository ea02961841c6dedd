//! Every variant the set would emit, checked with the PackageVariant function's own rules
//! (`crate::api::variant_rules`) before anything is emitted: a set never writes a variant the
//! function refuses. The set's template checks catch most mistakes first, with the template's
//! words; this is what makes the promise whole, for every rule the function has and every
//! value CEL gives.
//!
//! A problem is reported on the set's field that produced it (`spec.injection[1].bindingPoint`
//! of a variant is `spec.targets[0].template.injection[1].bindingPoint`), naming the variant.
//! A template without expressions renders alike for every target of an upstream: its first
//! variant stands for the rest.

use std::collections::HashSet;

use crate::api::function::WhenBudget;
use crate::api::package_variant::PackageVariantSpec;
use crate::api::package_variant_set::PackageVariantSet;
use crate::api::variant_rules;
use crate::krm::results::ResultItem;
use crate::package_variant_set::expansion::dotted_names;
use crate::package_variant_set::expansion::inputs::Item;
use crate::package_variant_set::expansion::provenance::Side;
use crate::package_variant_set::expansion::templates::{self, RenderError};
use crate::package_variant_set::reconciliation::ensure::{DesiredVariant, Plan};

/// The problems of the variants `plan` would create or update, at most one variant's per
/// target. `spec_of` renders a variant's spec again; `describe` names a downstream context.
pub fn check(
    set: &PackageVariantSet,
    plan: &Plan,
    spec_of: &dyn Fn(&DesiredVariant) -> Result<PackageVariantSpec, RenderError>,
    describe: &dyn Fn(usize) -> Side,
) -> Vec<ResultItem> {
    let fixed: Vec<bool> = set
        .spec
        .targets
        .iter()
        .map(|t| {
            t.template
                .as_ref()
                .is_none_or(|t| templates::expressions(t).is_empty())
        })
        .collect();
    let mut checked: HashSet<(usize, usize)> = HashSet::new();
    let mut refused: HashSet<usize> = HashSet::new();
    let mut out = Vec::new();
    // One budget for every variant: each distinct pipeline `when` is parsed once, not once per
    // variant (the templates' own check has charged the same texts already).
    let mut when_budget = WhenBudget::default();
    for d in plan.updates.iter().map(|(_, d)| d).chain(&plan.creates) {
        if refused.contains(&d.target) {
            continue;
        }
        if fixed.get(d.target).copied().unwrap_or(false) && !checked.insert((d.target, d.upstream))
        {
            continue;
        }
        let spec = match spec_of(d) {
            Ok(spec) => spec,
            Err(e) => {
                let field = format!("spec.targets[{}].{}", d.target, e.field);
                out.push(ResultItem::error(e.message).field(field).on_config());
                refused.insert(d.target);
                continue;
            }
        };
        let problems = variant_rules::problems_with(d.name(), &spec, &mut when_budget);
        if problems.is_empty() {
            continue;
        }
        refused.insert(d.target);
        let side = describe(d.context).text();
        for p in problems {
            let message = format!(
                "the PackageVariant function would refuse variant {:?} of {side} ({}: {}); \
                 the set emits no variant",
                d.name(),
                p.field,
                p.message
            );
            let field = set_field(set, d, &p.field);
            out.push(ResultItem::error(message).field(field).on_config());
        }
    }
    out
}

/// The field of the set that gives a variant's field `pv_field`.
fn set_field(set: &PackageVariantSet, d: &DesiredVariant, pv_field: &str) -> String {
    let target = format!("spec.targets[{}]", d.target);
    let templated = set
        .spec
        .targets
        .get(d.target)
        .is_some_and(|t| t.template.is_some());
    let Some(rest) = pv_field.strip_prefix("spec.") else {
        // The variant's name: made from the set's name and the target's downstream.
        return target;
    };
    if rest.starts_with("upstream") {
        return match &set.spec.upstreams {
            Some(_) => format!("spec.upstreams[{}]", d.upstream),
            None => format!("spec.{rest}"),
        };
    }
    if !templated {
        return target;
    }
    format!("{target}.template.{rest}")
}

/// Owned variants the set still wants under a name the PackageVariant function refuses: an
/// updated variant keeps its name (and one the sync policy or the rollout leaves as it is
/// stays refused: a doubt blocks). A dotted name is refused only where the target's variants
/// have pipeline functions, as the function refuses it.
pub fn updated_names(set: &PackageVariantSet, plan: &Plan, items: &[Item]) -> Vec<ResultItem> {
    plan.updates
        .iter()
        .filter_map(|(i, d)| {
            let i = *i;
            let name = items.get(i)?.name();
            let why = dotted_names::name_problem(set, d.target, name)?;
            let or = if dotted_names::target_has_functions(set, d.target) && name.contains('.') {
                format!("; or: {}", dotted_names::move_functions(d.target))
            } else {
                String::new()
            };
            Some(
                ResultItem::error(format!(
                    "owned PackageVariant {name:?} is the set's variant for its downstream, but PackageVariant name {name:?} {why}; the PackageVariant function refuses it, and an updated variant keeps its name: rename it or remove it (the set then creates its variant under a name it can take){or}"
                ))
                .field("metadata.name")
                .on_item(i),
            )
        })
        .collect()
}
