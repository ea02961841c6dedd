//! Filling the bound points from their sources: each source (an in-cluster object's field, a
//! package resource's, an inline value) is built once, held once, and shared by every point
//! that takes it; what the points get is counted against the output limit as it is decided.
//!
//! Why: building a source per entry made one 1.2 MB cluster object bound to 2,000 points a
//! conversion per point (20 s), and a value per point held a copy per point (1 GB for a 1 MB
//! object bound to 1,000 points); the output was not counted, so it was written whole.

use super::point_field;
use crate::api::scope::is_cluster_scoped;
use crate::krm::object::ObjectMeta;
use crate::krm::output;
use crate::krm::results::ResultItem;
use crate::package_variant::injection::hints::another_namespace_fix;
use crate::package_variant::injection::{self, InjectionPoint, ANNOTATION_FIELD};
use crate::package_variant::package::{Package, IN_CLUSTER_ANNOTATION};
use crate::package_variant::package_resource::{Lookup, Packages};
use crate::package_variant::PackageVariant;
use crate::yaml::json::from_json_sorted_owned;
use crate::yaml::to_json;
use std::collections::HashMap;

/// How a bound point was filled, for its annotation, condition and result.
struct Filled {
    /// `kpt.dev/injected-resource`: names the source and its kind.
    annotation: String,
    /// The condition message (and the result's).
    message: String,
}

/// A source's value for one field: the same for every point that takes it.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
enum Source {
    /// An in-cluster object (item index).
    Cluster(usize, &'static str),
    /// A package resource ((PackageRevisionResources item, resource index)).
    Package((usize, usize), &'static str),
    /// The inline value of entry `i`.
    Direct(usize, &'static str),
}

/// A built source: the shared value's handle and its text size, or why the point stays
/// unfilled.
type Built = Result<(usize, usize), String>;

/// Fills each bound point from its entry. `bound` holds `(entry index, point)`. A source that
/// is missing leaves the point unfilled with a message naming what to pass; a source in
/// another namespace, or an in-cluster object whose namespace cannot be told, is an error; so
/// is a fill that would write more than the output limit.
pub fn fill(
    pkg: &mut Package,
    pv: &PackageVariant,
    in_cluster: &[usize],
    bound: &mut [(usize, &mut InjectionPoint)],
) -> Result<Vec<ResultItem>, Vec<ResultItem>> {
    let entries = &pv.spec.injection;
    let mut packages: Option<Packages> = None;
    let mut results = Vec::new();
    let rl = pkg.rl;
    let input_len = rl.source().len();
    let limit = output::limit(input_len);
    let mut written = 0usize;
    let mut built: HashMap<Source, Built> = HashMap::new();
    // In-cluster objects of the namespace by (group, kind, name), built once.
    let mut objects: HashMap<(&str, &str, &str), usize> = HashMap::new();
    for &u in in_cluster.iter().rev() {
        let m = rl.meta(u);
        objects.insert((m.group(), m.kind(), m.name()), u);
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
        let found: Result<(Source, Filled, String), String> = if let Some(c) = &e.cluster_resource {
            match objects.get(&(target.group(), target.kind(), c.name.as_str())) {
                Some(&u) => {
                    check_namespace(pkg, pv, u).map_err(|e| vec![*e])?;
                    Ok((
                        Source::Cluster(u, field),
                        Filled {
                            annotation: format!("cluster:{}/{}", target.kind(), c.name),
                            message: format!(
                                "injected {field} of cluster object {} {:?}",
                                target.kind(),
                                c.name
                            ),
                        },
                        format!("in-cluster {} {:?}", target.kind(), c.name),
                    ))
                }
                None => {
                    let others = others.get_or_insert_with(|| other_namespaces(pkg, pv));
                    let key = (target.group(), target.kind(), c.name.as_str());
                    if let Some(&u) = others.get(&key) {
                        return Err(vec![elsewhere(pkg, pv, u)]);
                    }
                    let near = near.of(&objects, target.group(), target.kind(), &c.name);
                    Err(missing_cluster_object(pv, target, &c.name, near))
                }
            }
        } else if e.direct_resource.is_some() {
            Ok((
                Source::Direct(i, field),
                Filled {
                    annotation: format!("inline:PackageVariant/{}", pv.name),
                    message: format!(
                        "injected {field} of the inline value of PackageVariant {:?}",
                        pv.name
                    ),
                },
                format!("spec.injection[{i}].directResource"),
            ))
        } else if let Some(src) = &e.package_resource {
            let packages = packages.get_or_insert_with(|| Packages::new(pkg, in_cluster, pv));
            let api_version = if src.api_version.is_empty() {
                target.api_version()
            } else {
                &src.api_version
            };
            let kind = if src.kind.is_empty() {
                target.kind()
            } else {
                &src.kind
            };
            match packages
                .locate(pkg, src, api_version, kind)
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
                        Source::Package(f.key, field),
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
                        format!(
                            "{kind} {:?} of package {}/{} revision {}",
                            src.name, src.repo, src.package, f.revision
                        ),
                    ))
                }
                Lookup::Missing(m) => Err(m),
            }
        } else {
            // `plan` refused an entry without a source.
            Err("no source".into())
        };
        let built = match found {
            Ok((source, filled, what)) => {
                let b = match built.get(&source) {
                    Some(b) => b.clone(),
                    None => {
                        let b = build(pkg, pv, packages.as_ref(), source, target, what)
                            .map_err(|e| vec![*e])?;
                        built.insert(source, b.clone());
                        b
                    }
                };
                b.map(|b| (b, filled))
            }
            Err(m) => Err(m),
        };
        match built {
            Ok(((handle, size), filled)) => {
                if injection::put(pkg, p.item, field, handle, &filled.annotation)
                    .map_err(|e| vec![*e])?
                {
                    written = written.saturating_add(size);
                    if written > limit {
                        return Err(vec![ResultItem::error(output::too_large(
                            input_len,
                            &format!(
                                "spec.injection, at injection point {} ({size} bytes for \
                                 each point its source goes into),",
                                p.describe
                            ),
                        ))
                        .field(format!("spec.injection[{i}]"))
                        .on_config()]);
                    }
                }
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
                results.push(unfilled(p));
            }
        }
    }
    Ok(results)
}

/// Builds a source's value for its field once: read, checked (a ConfigMap's `data` holds
/// strings only, as the API server requires) and held in the package's shared values.
fn build(
    pkg: &mut Package,
    pv: &PackageVariant,
    packages: Option<&Packages>,
    source: Source,
    point: ObjectMeta<'_>,
    what: String,
) -> Result<Built, Box<ResultItem>> {
    let (value, field, on) = match source {
        Source::Cluster(u, field) => {
            let json = to_json(pkg.tree(u)?);
            pkg.release(u);
            match json {
                Ok(j) => (j.get(field).cloned(), field, Some(u)),
                Err(e) => return Ok(Err(format!("cannot read {what}: {e}"))),
            }
        }
        Source::Package(key, field) => {
            let v = packages.and_then(|p| p.value(key).get(field).cloned());
            (v, field, Some(key.0))
        }
        Source::Direct(i, field) => {
            let v = pv.spec.injection[i]
                .direct_resource
                .as_ref()
                .and_then(|d| d.get(field).cloned());
            (v, field, None)
        }
    };
    let Some(value) = value else {
        return Ok(Err(format!("field {field:?} not found in {what}")));
    };
    if field == "data" && point.group().is_empty() && point.kind() == "ConfigMap" {
        if let Some((key, problem)) = crate::api::data_strings::first_non_string(&value) {
            let message = format!(
                "{what}: ConfigMap data {key:?} is {problem}; the API server refuses it (data \
                 holds strings only): give the source the value as a string"
            );
            let r = ResultItem::error(message).field(format!("data.{key}"));
            return Err(Box::new(match on {
                Some(u) => r.on_item(u),
                None => r.on_config(),
            }));
        }
    }
    let node = from_json_sorted_owned(value);
    let size = crate::yaml::emit::to_string("", &node).len();
    Ok(Ok((pkg.shared.add_value(node), size)))
}

/// The result of a bound point left unfilled: a warning for a required point (its readiness
/// gate stays False), info for an optional one.
fn unfilled(p: &InjectionPoint) -> ResultItem {
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

/// What to pass for a `clusterResource` that is not among the items: the `kubectl get` that
/// prints it (with the variant's namespace, unless the kind has none).
/// `near` is the closest name of an in-cluster object of the point's kind, if any.
fn missing_cluster_object(
    pv: &PackageVariant,
    point: ObjectMeta<'_>,
    name: &str,
    near: Option<&str>,
) -> String {
    let (kind, lower) = (&point.kind(), point.kind().to_lowercase());
    let near = near.map_or(String::new(), |n| format!(" (did you mean {n:?}?)"));
    if is_cluster_scoped(point.api_version(), kind) {
        return format!(
            "no in-cluster {kind} {name:?} (a cluster-scoped kind){near}: pass it as an item \
             annotated {IN_CLUSTER_ANNOTATION}: \"true\" (kubectl get {lower} {name} -o yaml)"
        );
    }
    let ns = pv.namespace();
    format!(
        "no in-cluster {kind} {name:?} in namespace {ns:?}{near}: pass it as an item annotated \
         {IN_CLUSTER_ANNOTATION}: \"true\" (kubectl get {lower} {name} -n {ns} -o yaml)"
    )
}

/// Injectors' isolation rule: an in-cluster object without a namespace is not injected into a
/// variant that names its namespace (it may come from any namespace), unless its kind has no
/// namespace (a built-in cluster-scoped kind).
fn check_namespace(pkg: &Package, pv: &PackageVariant, u: usize) -> Result<(), Box<ResultItem>> {
    let um = pkg.meta(u);
    if is_cluster_scoped(um.api_version(), um.kind()) {
        return Ok(());
    }
    match (&um.namespace(), pv.written_namespace.as_deref()) {
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
        if m.namespace().is_some_and(|n| n != ns) {
            out.entry((m.group(), m.kind(), m.name())).or_insert(u);
        }
    }
    out
}

/// The error for an in-cluster object `u` of another namespace that an entry names: a
/// variant injects only from its own namespace.
fn elsewhere(pkg: &Package, pv: &PackageVariant, u: usize) -> ResultItem {
    let ns = pv.namespace();
    let m = pkg.meta(u);
    let found = m.namespace().unwrap_or("");
    let pass = format!("pass the object of namespace {ns:?}");
    ResultItem::error(format!(
        "in-cluster {} {:?} is in namespace {found:?}, not the PackageVariant's namespace \
         {ns:?}: a variant injects only from its own namespace; {}",
        m.kind(),
        m.name(),
        another_namespace_fix(pv.written_namespace.is_some(), found, &pass)
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
