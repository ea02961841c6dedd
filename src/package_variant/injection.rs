//! Config injection (Porch's `ensureConfigInjection`): copies in-cluster objects selected by the
//! PackageVariant's injectors into the package resources annotated as injection points.
//!
//! In-cluster objects come in as items annotated `config.porch.kpt.dev/in-cluster: "true"`; only
//! those in the PackageVariant's namespace are ever injected, so one namespace's data cannot
//! reach another's package. Points are visited in path then index order (Porch's order is
//! random), which makes duplicate messages and results deterministic.

use crate::api::package_variant::InjectionSelector;
use crate::api::scope::is_cluster_scoped;
use crate::api::suggest;
use crate::krm::object::ObjectMeta;
use crate::krm::output;
use crate::krm::results::{summarized, ResultItem, LISTED};
use crate::package_variant::cluster_objects::{self, NamedPaths};
use crate::package_variant::edits::field_json;
use crate::package_variant::package::Package;
pub use crate::package_variant::shared::INJECTED_RESOURCE_ANNOTATION;
use crate::package_variant::shared::{is_injected, set_injected};
use crate::yaml::alias;
use crate::yaml::json::{from_json_sorted_owned, to_sorted_node};
use crate::yaml::Node;
use std::collections::HashMap;

/// Annotation that makes a resource an injection point: `required` or `optional`.
pub const CONFIG_INJECTION_ANNOTATION: &str = "kpt.dev/config-injection";
/// Condition message of a point no injector matched.
pub const NO_MATCH_MESSAGE: &str =
    "no resource matched any injection selector for this injection point";

/// Field path of the injection-point annotation, for results about a point.
/// The values the annotation accepts.
pub const INJECTION_VALUES: &[&str] = &["required", "optional"];

pub const ANNOTATION_FIELD: &str = "metadata.annotations[kpt.dev/config-injection]";

/// One injection point and what happened to it.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct InjectionPoint {
    /// The item index of the in-package resource.
    pub item: usize,
    /// Where it lives, for messages (its path, else `Kind/name`).
    pub file: String,
    /// `Kind/name` of the in-package resource.
    pub describe: String,
    pub required: bool,
    /// `config.injection.<Kind>.<name>`.
    pub condition_type: String,
    /// The name of the injected in-cluster object, once injected.
    pub injected: Option<String>,
    /// Why it was not injected (Porch's messages).
    pub errors: Vec<String>,
    /// The field that was (or would be) injected: `data` or `spec`.
    pub field: Option<&'static str>,
    /// The annotation value when it is neither `required` nor `optional` (a hard error).
    pub invalid_value: Option<String>,
    /// Why items that look meant for this point are not candidates (not marked in-cluster, at
    /// another apiVersion): for the result only, not for Porch's condition message.
    pub hints: Vec<String>,
    /// The condition message of a point filled by the extension's `spec.injection`
    /// (`super::binding`); `None`: Porch's "injected resource ... from cluster".
    pub source: Option<String>,
}

impl InjectionPoint {
    /// Why the point was not injected, as Porch's condition message puts it: the point's
    /// errors joined with ", ", or [`NO_MATCH_MESSAGE`] when it has none.
    pub fn not_injected_message(&self) -> String {
        if self.errors.is_empty() {
            NO_MATCH_MESSAGE.to_string()
        } else {
            self.errors.join(", ")
        }
    }
}

/// `config.injection.<Kind>.<name>`.
pub fn condition_type(kind: &str, name: &str) -> String {
    format!("config.injection.{kind}.{name}")
}

/// Finds the injection points among the package items, in path then index order. An
/// annotation value other than `required`/`optional` is recorded on the point and reported by
/// [`validate_points`].
pub fn find_points(pkg: &Package) -> Vec<InjectionPoint> {
    // Only annotated items are points: sort those alone, by keys borrowed from the metadata.
    let mut order: Vec<(usize, &str)> = pkg
        .package_items()
        .into_iter()
        .filter_map(|i| Some((i, pkg.meta(i).annotation(CONFIG_INJECTION_ANNOTATION)?)))
        .collect();
    order.sort_by_key(|&(i, _)| {
        let m = pkg.meta(i);
        (
            m.path().is_none(),
            m.path().unwrap_or(""),
            m.index().and_then(|x| x.parse::<i64>().ok()).unwrap_or(0),
            i,
        )
    });
    order
        .into_iter()
        .map(|(i, value)| {
            let m = pkg.meta(i);
            let (required, invalid_value) = match value {
                "required" => (true, None),
                "optional" => (false, None),
                other => (false, Some(other.to_string())),
            };
            InjectionPoint {
                item: i,
                file: pkg.location(i),
                describe: m.describe(),
                required,
                condition_type: condition_type(m.kind(), m.name()),
                injected: None,
                errors: Vec::new(),
                field: None,
                invalid_value,
                hints: Vec::new(),
                source: None,
            }
        })
        .collect()
}

/// Porch's `validateInjectionPoints`, in point order: an invalid annotation value, and each
/// repeat of a condition type naming the previous point's file and this one's.
pub fn validate_points(points: &[InjectionPoint]) -> Vec<ResultItem> {
    let mut seen: std::collections::HashMap<&str, &str> = std::collections::HashMap::new();
    let mut out = Vec::new();
    for p in points {
        if let Some(v) = &p.invalid_value {
            out.push(
                ResultItem::error(format!(
                    "{}: {} has invalid {CONFIG_INJECTION_ANNOTATION:?} annotation value of {v:?}; \
                     the accepted values are {}{}",
                    p.file,
                    p.describe,
                    suggest::accepted(INJECTION_VALUES),
                    suggest::did_you_mean(v, INJECTION_VALUES)
                ))
                .field(ANNOTATION_FIELD)
                .on_item(p.item),
            );
        }
        if let Some(prev) = seen.insert(&p.condition_type, &p.file) {
            out.push(
                ResultItem::error(format!(
                    "duplicate injection conditionType {:?} ({prev} and {})",
                    p.condition_type, p.file
                ))
                .field(ANNOTATION_FIELD)
                .on_item(p.item),
            );
        }
    }
    out
}

/// The in-cluster objects that count for a PackageVariant in `namespace`, and info results for
/// the ones skipped because they live in another namespace (the first
/// [`crate::krm::results::LISTED`], then a count), with the warnings of the trust check. Only
/// items the trust model accepts count ([`cluster_objects::trusted`]: through stdin, or at a
/// path the deployer names in `named`); any other marked item is an error. One without a
/// namespace counts, but [`inject`] refuses to inject it into a PackageVariant that names its
/// namespace.
pub fn in_cluster_objects(
    pkg: &Package,
    namespace: &str,
    named: &NamedPaths,
) -> Result<(Vec<usize>, Vec<ResultItem>), Vec<ResultItem>> {
    let (trusted, mut notes) = cluster_objects::trusted(pkg, named, namespace)?;
    let mut used = Vec::new();
    let mut skipped = Vec::new();
    for i in trusted {
        let m = pkg.meta(i);
        match m.namespace() {
            Some(ns) if ns != namespace => skipped.push(
                ResultItem::info(format!(
                    "in-cluster object {} is in namespace {ns:?}, not the PackageVariant's \
                     namespace {namespace:?}: skipped, it is never injected",
                    m.describe()
                ))
                .field("metadata.namespace")
                .on_item(i),
            ),
            _ => used.push(i),
        }
    }
    notes.extend(summarized(skipped, |more| {
        ResultItem::info(format!(
            "{more} more in-cluster objects are in other namespaces than the PackageVariant's \
             ({namespace:?}): skipped, never injected (only the first {LISTED} are listed)"
        ))
    }));
    Ok((used, notes))
}

/// Whether an injector's optional group/version/kind match the in-package resource.
fn selector_applies(sel: &InjectionSelector, target: ObjectMeta<'_>) -> bool {
    sel.group.as_deref().is_none_or(|g| g == target.group())
        && sel.version.as_deref().is_none_or(|v| v == target.version())
        && sel.kind.as_deref().is_none_or(|k| k == target.kind())
}

/// The first injector (in order) applying to a point of type (group, version, kind) and
/// naming `name`: injectors indexed by name and by which of group, version and kind they give,
/// so it is eight lookups.
struct Injectors<'s> {
    first: HashMap<InjectorKey<'s>, usize>,
}

/// (name, kind, group, version) of an injector, `None` where it gives none.
type InjectorKey<'s> = (&'s str, Option<&'s str>, Option<&'s str>, Option<&'s str>);

impl<'s> Injectors<'s> {
    fn new(injectors: &'s [InjectionSelector]) -> Self {
        let mut first = HashMap::new();
        for (j, sel) in injectors.iter().enumerate() {
            first
                .entry((
                    sel.name.as_str(),
                    sel.kind.as_deref(),
                    sel.group.as_deref(),
                    sel.version.as_deref(),
                ))
                .or_insert(j);
        }
        Injectors { first }
    }

    /// The index of the first injector that applies to `target` and names `name`.
    fn first_for(&self, target: ObjectMeta<'_>, name: &str) -> Option<usize> {
        let (k, g, v) = (target.kind(), target.group(), target.version());
        let mut best: Option<usize> = None;
        for kind in [None, Some(k)] {
            for group in [None, Some(g)] {
                for version in [None, Some(v)] {
                    if let Some(&j) = self.first.get(&(name, kind, group, version)) {
                        best = Some(best.map_or(j, |b| b.min(j)));
                    }
                }
            }
        }
        best
    }
}

/// What injection picks for points of one type (apiVersion, kind): the same for every point of
/// it, so decided once per type.
#[derive(Clone, Copy)]
enum Choice {
    /// No in-cluster object of the type.
    NoCandidates,
    /// Candidates, but no applicable injector names one.
    NoMatch,
    /// The in-cluster object to inject.
    Object(usize),
}

/// One source's converted field, once per source: a handle of the shared value and its size,
/// or why it cannot be injected.
type Converted = Result<(usize, usize), String>;

/// Injects into every point (required or optional), recording the outcome on the point.
///
/// Porch's choice for a point: the first injector (in order) that applies to the point's
/// group/version/kind and names an in-cluster object of the point's apiVersion and kind. Cost:
/// in-cluster objects and injectors indexed once; the choice made once per point type; each
/// source converted once and shared by the points it goes into
/// ([`crate::package_variant::shared::SharedInjections`]). What the points get is counted
/// against the output limit ([`crate::krm::output`]) as it is decided.
pub fn inject(
    pkg: &mut Package,
    written_namespace: Option<&str>,
    injectors: &[InjectionSelector],
    in_cluster: &[usize],
    points: &mut [InjectionPoint],
) -> Result<(), Box<ResultItem>> {
    // Metadata borrowed from the ResourceList itself, not from `pkg`, which is edited below.
    let rl = pkg.rl;
    let by_type = {
        let mut m: HashMap<(&str, &str), Vec<usize>> = HashMap::new();
        for &u in in_cluster {
            let um = rl.meta(u);
            m.entry((um.api_version(), um.kind())).or_default().push(u);
        }
        m
    };
    let index = Injectors::new(injectors);
    let mut choices: HashMap<(&str, &str), Choice> = HashMap::new();
    let mut converted: HashMap<usize, Converted> = HashMap::new();
    let mut hints = hints::Hints::new(written_namespace);
    // Unfilled required and optional points given hints so far.
    let mut hinted = [0usize; 2];
    let mut written: usize = 0;
    let input_len = rl.source().len();
    let limit = output::limit(input_len);
    for p in points.iter_mut() {
        if injectors.is_empty() {
            p.errors.push("no injectors defined".into());
            continue;
        }
        let target = rl.meta(p.item);
        let key = (target.api_version(), target.kind());
        let choice = *choices.entry(key).or_insert_with(|| {
            let Some(candidates) = by_type.get(&key) else {
                return Choice::NoCandidates;
            };
            candidates
                .iter()
                .filter_map(|&u| Some((index.first_for(target, rl.meta(u).name())?, u)))
                .min()
                .map_or(Choice::NoMatch, |(_, u)| Choice::Object(u))
        });
        // Hints cost a lookup per injector: only for the points whose results are listed.
        let mut hint = |p: &mut InjectionPoint, pkg: &Package| {
            let n = &mut hinted[usize::from(p.required)];
            if *n < LISTED {
                *n += 1;
                let candidates = by_type.get(&key).map_or(&[][..], Vec::as_slice);
                p.hints = hints.of(rl, pkg, injectors, p.item, candidates);
            }
        };
        let u = match choice {
            Choice::NoCandidates => {
                p.errors.push(format!(
                    "no in-cluster resources of type {}.{}",
                    target.api_version(),
                    target.kind()
                ));
                hint(p, pkg);
                continue;
            }
            Choice::NoMatch => {
                hint(p, pkg);
                continue;
            }
            Choice::Object(u) => u,
        };
        let um = rl.meta(u);
        let scoped = is_cluster_scoped(um.api_version(), um.kind());
        if let (None, Some(namespace), false) = (&um.namespace(), written_namespace, scoped) {
            // Porch reads the object from the PackageVariant's namespace; an item without one
            // may have come from any namespace, so it is not injected on trust. (When neither
            // names one, as in Porch's own tests, both are taken to be in the same namespace.)
            return Err(Box::new(
                ResultItem::error(format!(
                    "in-cluster object {} has no namespace, so it cannot be told from another \
                     namespace's object of that name: write metadata.namespace: {namespace:?} \
                     (the PackageVariant's namespace; `kubectl get -n {namespace} -o yaml` \
                     writes it)",
                    um.describe()
                ))
                .field("metadata.namespace")
                .on_item(u),
            ));
        }
        let field = if um.group().is_empty() && um.kind() == "ConfigMap" {
            "data"
        } else {
            "spec"
        };
        p.field = Some(field);
        let c = match converted.get(&u) {
            Some(c) => c.clone(),
            None => {
                let c = convert(pkg, u, field)?;
                converted.insert(u, c.clone());
                c
            }
        };
        let (handle, size) = match c {
            Ok(c) => c,
            Err(e) => {
                p.errors.push(e);
                continue;
            }
        };
        if put(pkg, p.item, field, handle, um.name())? {
            written = written.saturating_add(size);
            // The output rule, checked as it is decided: past it nothing would be written.
            if written > limit {
                return Err(Box::new(
                    ResultItem::error(output::too_large(
                        input_len,
                        &format!(
                            "config injection, at injection point {} (in-cluster {} is {size} \
                             bytes for each point it goes into),",
                            p.describe,
                            um.describe()
                        ),
                    ))
                    .field(ANNOTATION_FIELD)
                    .on_item(p.item),
                ));
            }
        }
        p.injected = Some(um.name().to_string());
    }
    Ok(())
}

/// Reads the field of source `u` once: the shared value's handle and its text size, or why it
/// cannot be injected (Porch's message).
fn convert(pkg: &mut Package, u: usize, field: &str) -> Result<Converted, Box<ResultItem>> {
    let name = pkg.meta(u).name().to_string();
    let source = pkg.tree(u)?;
    let Some(value) = source.get(field) else {
        return Ok(Err(format!(
            "field {field:?} not found in resource {name:?}"
        )));
    };
    // Without aliases and merge keys the value is built straight from the field; otherwise
    // through JSON, as aliases in the field may name anchors elsewhere in the object: read
    // them there.
    let value = to_sorted_node(value)
        .unwrap_or_else(|| field_json(source, value).map(from_json_sorted_owned));
    // Why: a wide source would be held beside the value built from it.
    pkg.release(u);
    Ok(match value {
        Ok(v) => {
            let size = crate::yaml::emit::to_string("", &v).len();
            Ok((pkg.shared.add_value(v), size))
        }
        Err(e) => Err(format!("cannot read {field:?} of {name:?}: {e}")),
    })
}

/// Injects shared value `handle` into point `item`: deferred to when the output is written
/// when the point is untouched so far, else written now. False when it already holds it.
pub fn put(
    pkg: &mut Package,
    item: usize,
    field: &'static str,
    handle: usize,
    name: &str,
) -> Result<bool, Box<ResultItem>> {
    pkg.tree(item)?;
    let (Some(tree), value) = (pkg.loaded(item), pkg.shared.value(handle)) else {
        return Err(Box::new(
            ResultItem::error("item tree missing").on_item(item),
        ));
    };
    if is_injected(tree, field, value, name) {
        pkg.release(item);
        return Ok(false);
    }
    if !tree.is_pristine() {
        // Edited by an earlier step: its edits live in its tree, so the injection joins them.
        let value = value.clone();
        set_injected(pkg.tree_mut(item)?, field, value, name);
        return Ok(true);
    }
    let aliased = alias::has_alias(tree);
    pkg.shared.defer(item, field, handle, name);
    if aliased {
        // The edit must not change what the point's aliases mean: checked now, while the run
        // can still fail, and done again when the point is written.
        let checked = pkg.loaded(item).and_then(|t| pkg.shared.edited(item, t));
        if let Some(Err(e)) = checked {
            return Err(Box::new(
                ResultItem::error(format!(
                    "items[{item}]: the edit would change what its aliases mean and they cannot \
                     be written out: {e}; write the values instead of aliases"
                ))
                .on_item(item),
            ));
        }
    }
    pkg.release(item);
    Ok(true)
}

/// Replaces `field` wholesale and sets the injected-resource annotation, touching the tree only
/// where something differs (the extension's point-keyed injection, `super::binding`). An
/// untouched point without aliases is written when the output is (its tree not held until
/// then: 32,000 bound points, 13.4 MB in, held 203 MiB); others are edited now.
pub fn write(
    pkg: &mut Package,
    item: usize,
    field: &'static str,
    value: Node,
    name: &str,
) -> Result<(), Box<ResultItem>> {
    let tree = pkg.tree(item)?;
    if is_injected(tree, field, &value, name) {
        pkg.release(item);
        return Ok(());
    }
    if tree.is_pristine() && !alias::has_alias(tree) {
        let handle = pkg.shared.add_value(value);
        pkg.shared.defer(item, field, handle, name);
        pkg.release(item);
        return Ok(());
    }
    set_injected(pkg.tree_mut(item)?, field, value, name);
    Ok(())
}

pub(crate) mod hints;
#[cfg(test)]
mod tests;
