//! Point-keyed injection, the extension's `spec.injection` (`fn.kpt.dev/v1alpha1`): each entry
//! fills the injection point it names by `bindingPoint` from one source (an in-cluster object,
//! an inline value, or a resource of another package revision). Entries without a
//! `bindingPoint` are resources the variant owns (`super::owned`).
//!
//! Why apart from `super::injection`: Porch's `injectors` match by kind and name and fill every
//! point of a kind from the same object; here a point is filled only by its entry, and the
//! points no entry binds keep Porch's behaviour untouched. The effect on a bound point is the
//! same as Porch's (`data` of a ConfigMap, `spec` otherwise, `kpt.dev/injected-resource`, a
//! condition, a readiness gate for a required point), written by the same code.

use crate::api::package_variant::InjectionEntry;
use crate::api::strict::closest;
use crate::krm::object::ObjectMeta;
use crate::krm::results::ResultItem;
use crate::package_variant::injection::InjectionPoint;
use crate::package_variant::package::Package;
use serde_json::Value;
use std::collections::HashMap;

/// Which entry binds which point, and which entries are owned resources.
#[derive(Debug, Clone, Default)]
pub struct Plan {
    /// By point index (the order of `points`): the index of the entry that binds it.
    pub entry_of_point: Vec<Option<usize>>,
    /// Indexes of the entries without a binding point.
    pub owned: Vec<usize>,
}

impl Plan {
    /// True when the point at `index` is bound by an entry (and so not by `injectors`).
    pub fn is_bound(&self, index: usize) -> bool {
        self.entry_of_point.get(index).is_some_and(Option::is_some)
    }
}

fn at(i: usize) -> String {
    format!("spec.injection[{i}]")
}

fn config_error(message: String, field: String) -> ResultItem {
    ResultItem::error(message).field(field).on_config()
}

/// The field a point takes: `data` for a core ConfigMap, `spec` otherwise (Porch's rule).
pub fn point_field(m: ObjectMeta<'_>) -> &'static str {
    if m.group().is_empty() && m.kind() == "ConfigMap" {
        "data"
    } else {
        "spec"
    }
}

/// Checks the entries against the package's points and says which entry binds which point.
/// Every problem is reported, in entry order: a point name given twice in the package, an
/// unknown `bindingPoint` (with "did you mean"), an `apiVersion` or `kind` that does not match
/// the point's. What an entry gets wrong on its own was refused with the spec.
pub fn plan(
    pkg: &Package,
    entries: &[InjectionEntry],
    points: &[InjectionPoint],
) -> Result<Plan, Vec<ResultItem>> {
    let mut errors = Vec::new();
    let mut plan = Plan {
        entry_of_point: vec![None; points.len()],
        owned: Vec::new(),
    };
    if entries.is_empty() {
        return Ok(plan);
    }
    // Binding points are named by metadata.name: two points of one name are ambiguous.
    let mut by_name: HashMap<&str, usize> = HashMap::new();
    for (j, p) in points.iter().enumerate() {
        let name = pkg.meta(p.item).name();
        if let Some(&first) = by_name.get(name) {
            let q = &points[first];
            errors.push(
                ResultItem::error(format!(
                    "two injection points are named {name:?}: {} ({}) and {} ({}); binding \
                     points are named by metadata.name, so rename one",
                    q.describe, q.file, p.describe, p.file
                ))
                .field("metadata.name")
                .on_item(p.item),
            );
        } else {
            by_name.insert(name, j);
        }
    }
    let mut names: Vec<&str> = points.iter().map(|p| pkg.meta(p.item).name()).collect();
    names.dedup();
    for (i, e) in entries.iter().enumerate() {
        // The entry's own problems (no source, a missing field, a point bound twice) were
        // refused with the spec (`crate::api::variant_rules`).
        if e.binding_point.is_empty() {
            plan.owned.push(i);
            continue;
        }
        let Some(&j) = by_name.get(e.binding_point.as_str()) else {
            let mut message = format!(
                "no injection point named {:?} in the package",
                e.binding_point
            );
            match closest(&e.binding_point, names.iter().copied()) {
                Some(c) => message.push_str(&format!("; did you mean {c:?}?")),
                None if names.is_empty() => message.push_str(
                    "; it has none (a point is a resource annotated kpt.dev/config-injection: \
                     required or optional)",
                ),
                None => message.push_str(&format!("; its points are {}", names.join(", "))),
            }
            errors.push(config_error(message, format!("{}.bindingPoint", at(i))));
            continue;
        };
        // Two entries binding one point were refused with the spec (`variant_rules`).
        debug_assert!(plan.entry_of_point[j].is_none(), "point bound twice");
        plan.entry_of_point[j] = Some(i);
        check_kind(pkg.meta(points[j].item), e, i, &mut errors);
    }
    if errors.is_empty() {
        Ok(plan)
    } else {
        Err(errors)
    }
}

/// A source's `apiVersion` and `kind`, when given, are the point's; a `directResource` gives
/// the point's field (`data` or `spec`) and nothing else but its identity.
fn check_kind(point: ObjectMeta<'_>, e: &InjectionEntry, i: usize, errors: &mut Vec<ResultItem>) {
    let described = format!(
        "injection point {:?} ({} {})",
        point.name(),
        point.api_version(),
        point.kind()
    );
    let mut given: Vec<(String, Option<String>, Option<String>)> = Vec::new();
    if let Some(d) = &e.direct_resource {
        let s = |k: &str| d.get(k).and_then(Value::as_str).map(str::to_string);
        given.push((
            format!("{}.directResource", at(i)),
            s("apiVersion"),
            s("kind"),
        ));
        if let Some(map) = d.as_object() {
            let field = point_field(point);
            for key in map.keys() {
                if !matches!(key.as_str(), "apiVersion" | "kind" | "metadata") && key != field {
                    errors.push(config_error(
                        format!(
                            "{described} takes {field}, not {key}: write the value under {field}"
                        ),
                        format!("{}.directResource.{key}", at(i)),
                    ));
                }
            }
            if !map.contains_key(field) {
                errors.push(config_error(
                    format!("gives no {field}: write the value for {described} under {field}"),
                    format!("{}.directResource", at(i)),
                ));
            }
        }
    }
    if let Some(p) = &e.package_resource {
        let s = |v: &str| (!v.is_empty()).then(|| v.to_string());
        given.push((
            format!("{}.packageResource", at(i)),
            s(&p.api_version),
            s(&p.kind),
        ));
    }
    for (field, api_version, kind) in given {
        if let Some(v) = api_version.filter(|v| *v != point.api_version()) {
            errors.push(config_error(
                format!(
                    "apiVersion {v:?} does not match {described}: leave it out or write {:?}",
                    point.api_version()
                ),
                format!("{field}.apiVersion"),
            ));
        }
        if let Some(k) = kind.filter(|k| *k != point.kind()) {
            errors.push(config_error(
                format!(
                    "kind {k:?} does not match {described}: leave it out or write {:?}",
                    point.kind()
                ),
                format!("{field}.kind"),
            ));
        }
    }
}

mod sources;
pub use sources::fill;
