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
use crate::package_variant::injection::{self, InjectionPoint, ANNOTATION_FIELD};
use crate::package_variant::package::{Package, IN_CLUSTER_ANNOTATION};
use crate::package_variant::package_resource::{Lookup, Packages};
use crate::package_variant::PackageVariant;
use crate::yaml::json::from_json_sorted_owned;
use crate::yaml::to_json;
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

/// The sources an entry gives, by field name.
fn sources(e: &InjectionEntry) -> Vec<&'static str> {
    let mut out = Vec::new();
    if e.cluster_resource.is_some() {
        out.push("clusterResource");
    }
    if e.direct_resource.is_some() {
        out.push("directResource");
    }
    if e.package_resource.is_some() {
        out.push("packageResource");
    }
    out
}

/// The field a point takes: `data` for a core ConfigMap, `spec` otherwise (Porch's rule).
pub fn point_field(m: &ObjectMeta) -> &'static str {
    if m.group().is_empty() && m.kind == "ConfigMap" {
        "data"
    } else {
        "spec"
    }
}

/// Checks the entries against the package's points and says which entry binds which point.
/// Every problem is reported, in entry order: a point name given twice in the package, an
/// unknown `bindingPoint` (with "did you mean"), no source or more than one, a point bound
/// twice, an `apiVersion` or `kind` that does not match the point's.
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
        let name = pkg.meta(p.item).name.as_str();
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
    let mut names: Vec<&str> = points
        .iter()
        .map(|p| pkg.meta(p.item).name.as_str())
        .collect();
    names.dedup();
    for (i, e) in entries.iter().enumerate() {
        let given = sources(e);
        match given.len() {
            0 => errors.push(config_error(
                "gives no source: give exactly one of clusterResource, directResource and \
                 packageResource"
                    .into(),
                at(i),
            )),
            1 => {}
            _ => errors.push(config_error(
                format!(
                    "gives {}: give exactly one source per entry (one entry per source)",
                    given.join(" and ")
                ),
                at(i),
            )),
        }
        check_required_fields(e, i, &mut errors);
        if e.binding_point.is_empty() {
            if e.cluster_resource.is_some() {
                errors.push(config_error(
                    "clusterResource needs a bindingPoint (the point gives its kind): name \
                     the injection point to fill, or give the resource as directResource"
                        .into(),
                    format!("{}.bindingPoint", at(i)),
                ));
            }
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
        if let Some(other) = plan.entry_of_point[j] {
            errors.push(config_error(
                format!(
                    "binds injection point {:?}, which spec.injection[{other}] binds already: \
                     one entry per point",
                    e.binding_point
                ),
                format!("{}.bindingPoint", at(i)),
            ));
            continue;
        }
        plan.entry_of_point[j] = Some(i);
        check_kind(pkg.meta(points[j].item), e, i, &mut errors);
    }
    if errors.is_empty() {
        Ok(plan)
    } else {
        Err(errors)
    }
}

/// The fields a source cannot do without.
fn check_required_fields(e: &InjectionEntry, i: usize, errors: &mut Vec<ResultItem>) {
    if let Some(c) = &e.cluster_resource {
        if c.name.is_empty() {
            errors.push(config_error(
                "must not be empty: name the in-cluster object".into(),
                format!("{}.clusterResource.name", at(i)),
            ));
        }
    }
    if let Some(p) = &e.package_resource {
        for (field, value) in [
            ("repo", &p.repo),
            ("package", &p.package),
            ("name", &p.name),
        ] {
            if value.is_empty() {
                errors.push(config_error(
                    format!("must not be empty: name the {field} of the package resource"),
                    format!("{}.packageResource.{field}", at(i)),
                ));
            }
        }
        if p.revision < 0 {
            errors.push(config_error(
                "must not be negative: write a revision number, or leave it out for the \
                 highest Published revision"
                    .into(),
                format!("{}.packageResource.revision", at(i)),
            ));
        }
    }
    if let Some(d) = &e.direct_resource {
        if !d.is_object() {
            errors.push(config_error(
                "must be a mapping: the value to inject (spec, or data for a ConfigMap)".into(),
                format!("{}.directResource", at(i)),
            ));
        }
    }
}

/// A source's `apiVersion` and `kind`, when given, are the point's; a `directResource` gives
/// the point's field (`data` or `spec`) and nothing else but its identity.
fn check_kind(point: &ObjectMeta, e: &InjectionEntry, i: usize, errors: &mut Vec<ResultItem>) {
    let described = format!(
        "injection point {:?} ({} {})",
        point.name, point.api_version, point.kind
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
        if let Some(v) = api_version.filter(|v| *v != point.api_version) {
            errors.push(config_error(
                format!(
                    "apiVersion {v:?} does not match {described}: leave it out or write {:?}",
                    point.api_version
                ),
                format!("{field}.apiVersion"),
            ));
        }
        if let Some(k) = kind.filter(|k| *k != point.kind) {
            errors.push(config_error(
                format!(
                    "kind {k:?} does not match {described}: leave it out or write {:?}",
                    point.kind
                ),
                format!("{field}.kind"),
            ));
        }
    }
}

/// How a bound point was filled, for its annotation, condition and result.
struct Filled {
    /// `kpt.dev/injected-resource`: names the source and its kind.
    annotation: String,
    /// The condition message (and the result's).
    message: String,
}

/// Fills each bound point from its entry. `bound` holds `(entry index, point)`. A source that
/// is missing leaves the point unfilled with a message naming what to pass; a source in
/// another namespace, or an in-cluster object whose namespace cannot be told, is an error.
pub fn fill(
    pkg: &mut Package,
    pv: &PackageVariant,
    in_cluster: &[usize],
    bound: &mut [(usize, &mut InjectionPoint)],
) -> Result<Vec<ResultItem>, Vec<ResultItem>> {
    let entries = &pv.spec.injection;
    let mut packages = None;
    let mut results = Vec::new();
    // In-cluster objects of the namespace by (group, kind, name), built once.
    let mut objects: HashMap<(&str, &str, &str), usize> = HashMap::new();
    let rl = pkg.rl;
    for &u in in_cluster.iter().rev() {
        let m = rl.meta(u);
        objects.insert((m.group(), m.kind.as_str(), m.name.as_str()), u);
    }
    // In-cluster objects of other namespaces, the same way, built when first needed.
    let mut others: Option<HashMap<(&str, &str, &str), usize>> = None;
    let mut near = NearNames::default();
    for (i, p) in bound.iter_mut() {
        let i = *i;
        let e = &entries[i];
        let target = rl.meta(p.item);
        let field = point_field(target);
        p.field = Some(field);
        let value: Result<(Value, Filled), String> = if let Some(c) = &e.cluster_resource {
            match objects.get(&(target.group(), target.kind.as_str(), c.name.as_str())) {
                Some(&u) => {
                    check_namespace(pkg, pv, u).map_err(|e| vec![*e])?;
                    let json = pkg.tree(u).map_err(|e| vec![*e]).map(|t| {
                        to_json(t).map_err(|e| format!("cannot read {:?}: {e}", c.name))
                    })?;
                    pkg.release(u);
                    json.map(|j| {
                        (
                            j,
                            Filled {
                                annotation: format!("cluster:{}/{}", target.kind, c.name),
                                message: format!(
                                    "injected {field} of cluster object {} {:?}",
                                    target.kind, c.name
                                ),
                            },
                        )
                    })
                }
                None => {
                    let others = others.get_or_insert_with(|| other_namespaces(pkg, pv));
                    let key = (target.group(), target.kind.as_str(), c.name.as_str());
                    if let Some(&u) = others.get(&key) {
                        return Err(vec![elsewhere(pkg, pv, u)]);
                    }
                    let ns = pv.namespace();
                    let near = near.of(&objects, target.group(), &target.kind, &c.name);
                    Err(format!(
                        "no in-cluster {} {:?} in namespace {ns:?}{}: pass it as an item \
                         annotated {IN_CLUSTER_ANNOTATION}: \"true\" (kubectl get {} {} -n {ns} \
                         -o yaml)",
                        target.kind,
                        c.name,
                        near.map_or(String::new(), |n| format!(" (did you mean {n:?}?)")),
                        target.kind.to_lowercase(),
                        c.name
                    ))
                }
            }
        } else if let Some(d) = &e.direct_resource {
            Ok((
                d.clone(),
                Filled {
                    annotation: format!("inline:PackageVariant/{}", pv.name),
                    message: format!(
                        "injected {field} of the inline value of PackageVariant {:?}",
                        pv.name
                    ),
                },
            ))
        } else if let Some(src) = &e.package_resource {
            let packages =
                packages.get_or_insert_with(|| Packages::new(pkg, in_cluster, pv.namespace()));
            let api_version = if src.api_version.is_empty() {
                &target.api_version
            } else {
                &src.api_version
            };
            let kind = if src.kind.is_empty() {
                &target.kind
            } else {
                &src.kind
            };
            match packages
                .find(pkg, src, api_version, kind)
                .map_err(|e| vec![*e])?
            {
                Lookup::Found(f) => {
                    let which = if f.floating {
                        format!(
                            "revision {} (the highest Published revision given)",
                            f.revision
                        )
                    } else {
                        format!("revision {}", f.revision)
                    };
                    Ok((
                        f.value,
                        Filled {
                            annotation: format!(
                                "package:{}/{}@{}:{kind}/{}",
                                src.repo, src.package, f.revision, src.name
                            ),
                            message: format!(
                                "injected {field} of {kind} {:?} of package {}/{} {which}",
                                src.name, src.repo, src.package
                            ),
                        },
                    ))
                }
                Lookup::Missing(m) => Err(m),
            }
        } else {
            // `plan` refused an entry without a source.
            Err("no source".into())
        };
        match value {
            Ok((source, filled)) => {
                let Some(v) = source.get(field).cloned() else {
                    p.errors.push(format!(
                        "field {field:?} not found in the source of spec.injection[{i}]"
                    ));
                    results.push(unfilled(pkg, p));
                    continue;
                };
                injection::write(
                    pkg,
                    p.item,
                    field,
                    from_json_sorted_owned(v),
                    &filled.annotation,
                )
                .map_err(|e| vec![*e])?;
                p.injected = Some(filled.annotation.clone());
                p.source = Some(filled.message.clone());
                let kind = if p.required { "required" } else { "optional" };
                results.push(
                    ResultItem::info(format!(
                        "{kind} injection point {}: {} (spec.injection[{i}])",
                        p.describe, filled.message
                    ))
                    .field(field)
                    .on_item(p.item),
                );
            }
            Err(message) => {
                p.errors.push(message);
                results.push(unfilled(pkg, p));
            }
        }
    }
    Ok(results)
}

/// The result of a bound point left unfilled: a warning for a required point (its readiness
/// gate stays False), info for an optional one.
fn unfilled(_pkg: &Package, p: &InjectionPoint) -> ResultItem {
    let kind = if p.required { "required" } else { "optional" };
    let message = format!(
        "{kind} injection point {} not filled: {}",
        p.describe,
        p.not_injected_message()
    );
    if p.required {
        ResultItem::warning(message)
    } else {
        ResultItem::info(message)
    }
    .field(ANNOTATION_FIELD)
    .on_item(p.item)
}

/// Injectors' isolation rule: an in-cluster object without a namespace is not injected into a
/// variant that names its namespace (it may come from any namespace).
fn check_namespace(pkg: &Package, pv: &PackageVariant, u: usize) -> Result<(), Box<ResultItem>> {
    let um = pkg.meta(u);
    match (&um.namespace, pv.written_namespace.as_deref()) {
        (None, Some(namespace)) => Err(Box::new(
            ResultItem::error(format!(
                "in-cluster object {} has no namespace, so it cannot be told from another \
                 namespace's object of that name: write metadata.namespace: {namespace:?} (the \
                 PackageVariant's namespace; `kubectl get -n {namespace} -o yaml` writes it)",
                um.describe()
            ))
            .field("metadata.namespace")
            .on_item(u),
        )),
        _ => Ok(()),
    }
}

/// The in-cluster objects of other namespaces than the variant's, by (group, kind, name): the
/// first of each.
fn other_namespaces<'r>(
    pkg: &Package<'r, '_>,
    pv: &PackageVariant,
) -> HashMap<(&'r str, &'r str, &'r str), usize> {
    let ns = pv.namespace();
    let rl = pkg.rl;
    let mut out = HashMap::new();
    for u in (0..pkg.len()).filter(|&u| pkg.is_in_cluster(u)) {
        let m = rl.meta(u);
        if m.namespace.as_deref().is_some_and(|n| n != ns) {
            out.entry((m.group(), m.kind.as_str(), m.name.as_str()))
                .or_insert(u);
        }
    }
    out
}

/// The error for an in-cluster object `u` of another namespace that an entry names: a
/// variant injects only from its own namespace.
fn elsewhere(pkg: &Package, pv: &PackageVariant, u: usize) -> ResultItem {
    let ns = pv.namespace();
    let m = pkg.meta(u);
    ResultItem::error(format!(
        "in-cluster {} {:?} is in namespace {:?}, not the PackageVariant's namespace {ns:?}: \
         a variant injects only from its own namespace; pass the object of namespace {ns:?}",
        m.kind,
        m.name,
        m.namespace.as_deref().unwrap_or("")
    ))
    .field("metadata.namespace")
    .on_item(u)
}

/// "Did you mean" for a `clusterResource.name` no in-cluster object of the namespace has: the
/// names by (group, kind), built once, and each name's answer, found once within a run's
/// budget.
#[derive(Default)]
struct NearNames<'r> {
    by_type: Option<HashMap<(&'r str, &'r str), Vec<&'r str>>>,
    found: HashMap<(&'r str, &'r str, String), Option<&'r str>>,
    budget: crate::api::suggest::Budget,
}

impl<'r> NearNames<'r> {
    fn of(
        &mut self,
        objects: &HashMap<(&'r str, &'r str, &'r str), usize>,
        group: &'r str,
        kind: &'r str,
        name: &str,
    ) -> Option<&'r str> {
        let by_type = self.by_type.get_or_insert_with(|| {
            let mut m: HashMap<(&str, &str), Vec<&str>> = HashMap::new();
            for &(g, k, n) in objects.keys() {
                m.entry((g, k)).or_default().push(n);
            }
            // Sorted, so that ties go to the same name on every run.
            m.values_mut().for_each(|v| v.sort_unstable());
            m
        });
        let budget = &mut self.budget;
        *self
            .found
            .entry((group, kind, name.to_string()))
            .or_insert_with(|| {
                let known = by_type.get(&(group, kind))?;
                crate::api::suggest::closest_within(name, known.iter().copied(), budget)
            })
    }
}
