//! Config injection (Porch's `ensureConfigInjection`): copies in-cluster objects selected by the
//! PackageVariant's injectors into the package resources annotated as injection points.
//!
//! In-cluster objects come in as items annotated `config.porch.kpt.dev/in-cluster: "true"`; only
//! those in the PackageVariant's namespace are ever injected, so one namespace's data cannot
//! reach another's package. Points are visited in path then index order (Porch's order is
//! random), which makes duplicate messages and results deterministic.

use crate::api::package_variant::InjectionSelector;
use crate::api::suggest;
use crate::krm::object::ObjectMeta;
use crate::krm::results::ResultItem;
use crate::package_variant::package::{
    assign_at, field_json, own_path, Package, IN_CLUSTER_ANNOTATION,
};
use crate::yaml::json::{from_json_sorted_owned, to_sorted_node};
use crate::yaml::Node;
use std::collections::HashMap;

/// Annotation that makes a resource an injection point: `required` or `optional`.
pub const CONFIG_INJECTION_ANNOTATION: &str = "kpt.dev/config-injection";
/// Annotation set on an injected resource: the name of the in-cluster object injected.
pub const INJECTED_RESOURCE_ANNOTATION: &str = "kpt.dev/injected-resource";
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
                condition_type: condition_type(&m.kind, &m.name),
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
/// the ones skipped because they live in another namespace. One without a namespace counts, but
/// [`inject`] refuses to inject it into a PackageVariant that names its namespace.
pub fn in_cluster_objects(pkg: &Package, namespace: &str) -> (Vec<usize>, Vec<ResultItem>) {
    let mut used = Vec::new();
    let mut skipped = Vec::new();
    for i in (0..pkg.len()).filter(|&i| pkg.is_in_cluster(i) && pkg.meta(i).is_object) {
        let m = pkg.meta(i);
        match m.namespace.as_deref() {
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
    (used, skipped)
}

/// Whether an injector's optional group/version/kind match the in-package resource.
fn selector_applies(sel: &InjectionSelector, target: &ObjectMeta) -> bool {
    sel.group.as_deref().is_none_or(|g| g == target.group())
        && sel.version.as_deref().is_none_or(|v| v == target.version())
        && sel.kind.as_deref().is_none_or(|k| k == target.kind)
}

/// Injects into every point (required or optional), recording the outcome on the point.
pub fn inject(
    pkg: &mut Package,
    written_namespace: Option<&str>,
    injectors: &[InjectionSelector],
    in_cluster: &[usize],
    points: &mut [InjectionPoint],
) -> Result<(), Box<ResultItem>> {
    // Metadata borrowed from the ResourceList itself, not from `pkg`, which is edited below.
    let rl = pkg.rl;
    let mut lookalikes = None;
    for p in points.iter_mut() {
        if injectors.is_empty() {
            p.errors.push("no injectors defined".into());
            continue;
        }
        let target = rl.meta(p.item);
        let candidates: Vec<usize> = in_cluster
            .iter()
            .copied()
            .filter(|&u| rl.meta(u).is(&target.api_version, &target.kind))
            .collect();
        if candidates.is_empty() {
            p.errors.push(format!(
                "no in-cluster resources of type {}.{}",
                target.api_version, target.kind
            ));
            p.hints = near_misses(pkg, injectors, p.item, &mut lookalikes);
            continue;
        }
        let chosen = injectors
            .iter()
            .filter(|sel| selector_applies(sel, target))
            .find_map(|sel| {
                candidates
                    .iter()
                    .copied()
                    .find(|&u| rl.meta(u).name == sel.name)
            });
        let Some(u) = chosen else {
            p.hints = near_misses(pkg, injectors, p.item, &mut lookalikes);
            continue;
        };
        let um = rl.meta(u);
        if let (None, Some(namespace)) = (&um.namespace, written_namespace) {
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
        let field = if um.group().is_empty() && um.kind == "ConfigMap" {
            "data"
        } else {
            "spec"
        };
        p.field = Some(field);
        // Only read, so it is never emitted; released once its field is read (below).
        let source = pkg.tree(u)?;
        let Some(value) = source.get(field) else {
            p.errors.push(format!(
                "field {field:?} not found in resource {:?}",
                um.name
            ));
            continue;
        };
        // Without aliases and merge keys the value is built straight from the field;
        // otherwise through JSON, as aliases in the field may name anchors elsewhere in the
        // object: read them there.
        let value = to_sorted_node(value)
            .unwrap_or_else(|| field_json(source, value).map(from_json_sorted_owned));
        // Why: a wide source would be held beside the value built from it, the point's tree
        // and the value written into it; reading it again for another point costs no more
        // than converting its field does.
        pkg.release(u);
        let value = match value {
            Ok(v) => v,
            Err(e) => {
                p.errors
                    .push(format!("cannot read {field:?} of {:?}: {e}", um.name));
                continue;
            }
        };
        write(pkg, p.item, field, value, &um.name)?;
        p.injected = Some(um.name.clone());
    }
    Ok(())
}

/// Items by (kind, name), built once when a point is left unfilled.
type Lookalikes = Option<HashMap<(String, String), Vec<usize>>>;

/// Why the items an applicable injector names, of the point's kind, are not candidates: not
/// marked in-cluster, or at another apiVersion. The input contract is ours (Porch reads the
/// cluster), so the result says what to change.
fn near_misses(
    pkg: &Package,
    injectors: &[InjectionSelector],
    point: usize,
    lookalikes: &mut Lookalikes,
) -> Vec<String> {
    let rl = pkg.rl;
    let index = lookalikes.get_or_insert_with(|| {
        let mut index: HashMap<(String, String), Vec<usize>> = HashMap::new();
        for i in (0..pkg.len()).filter(|&i| rl.meta(i).is_object) {
            let m = rl.meta(i);
            index
                .entry((m.kind.clone(), m.name.clone()))
                .or_default()
                .push(i);
        }
        index
    });
    let target = rl.meta(point);
    let mut out = Vec::new();
    let mut seen = std::collections::HashSet::new();
    for sel in injectors.iter().filter(|sel| selector_applies(sel, target)) {
        let key = (target.kind.clone(), sel.name.clone());
        for &u in index.get(&key).into_iter().flatten() {
            if u == point || !seen.insert(u) {
                continue;
            }
            let m = rl.meta(u);
            let marked = m.annotation(IN_CLUSTER_ANNOTATION);
            let what = format!("{} ({})", m.describe(), pkg.location(u));
            if marked != Some("true") {
                let now = marked.map_or(String::new(), |v| format!(" (it is {v:?})"));
                out.push(format!(
                    "{what} is named by an injector but is not an in-cluster object: mark it with the annotation {IN_CLUSTER_ANNOTATION}: \"true\"{now}"
                ));
            } else if m.api_version != target.api_version {
                out.push(format!(
                    "in-cluster {what} is at apiVersion {}, the injection point at {}: only objects of the point's apiVersion are injected",
                    m.api_version, target.api_version
                ));
            }
        }
    }
    out
}

/// Replaces `field` wholesale and sets the injected-resource annotation, touching the tree only
/// where something differs. (Also the extension's point-keyed injection, `super::binding`.)
pub fn write(
    pkg: &mut Package,
    item: usize,
    field: &str,
    value: Node,
    name: &str,
) -> Result<(), Box<ResultItem>> {
    // Annotations written through an alias or a merge key become the object's own first.
    let annotations = ["metadata", "annotations"];
    if !pkg
        .tree(item)?
        .path(&annotations)
        .is_some_and(Node::is_mapping)
    {
        let mut owned = pkg.tree(item)?.clone();
        if own_path(&mut owned, &annotations).is_ok() && owned.path(&annotations).is_some() {
            *pkg.tree_mut(item)? = owned;
        }
    }
    let tree = pkg.tree(item)?;
    let field_same = tree.get(field).is_some_and(|old| old.same_value(&value));
    let annotations_ok = tree
        .path(&["metadata", "annotations"])
        .is_some_and(Node::is_mapping);
    let annotation_same = tree
        .path(&["metadata", "annotations", INJECTED_RESOURCE_ANNOTATION])
        .is_some_and(|a| a.same_value(&Node::string(name)));
    if field_same && annotation_same {
        return Ok(());
    }
    let tree = pkg.tree_mut(item)?;
    if !field_same {
        assign_at(tree, field, value);
    }
    if !annotation_same && annotations_ok {
        if let Some(ann) = tree.path_mut(&["metadata", "annotations"]) {
            assign_at(ann, INJECTED_RESOURCE_ANNOTATION, Node::string(name));
        }
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    fn point(ct: &str, file: &str) -> InjectionPoint {
        InjectionPoint {
            item: 0,
            file: file.into(),
            describe: "ConfigMap/foo".into(),
            required: false,
            condition_type: ct.into(),
            injected: None,
            errors: vec![],
            field: None,
            invalid_value: None,
            hints: vec![],
            source: None,
        }
    }

    #[test]
    fn duplicates_name_previous_and_this_file() {
        assert!(validate_points(&[]).is_empty());
        assert!(validate_points(&[point("a", "f")]).is_empty());
        assert!(validate_points(&[point("a", "f"), point("b", "f")]).is_empty());
        let ct = "config.injection.ConfigMap.foo";
        let r = validate_points(&[
            point(ct, "file.yaml"),
            point(ct, "file2.yaml"),
            point(ct, "file3.yaml"),
        ]);
        let msgs: Vec<_> = r.iter().map(|r| r.message.as_str()).collect();
        assert_eq!(
            msgs,
            [
                r#"duplicate injection conditionType "config.injection.ConfigMap.foo" (file.yaml and file2.yaml)"#,
                r#"duplicate injection conditionType "config.injection.ConfigMap.foo" (file2.yaml and file3.yaml)"#
            ]
        );
    }

    #[test]
    fn invalid_values_and_duplicates_in_point_order() {
        let mut bad = point("config.injection.ConfigMap.foo", "a.yaml");
        bad.invalid_value = Some("e1".into());
        let r = validate_points(&[
            point("config.injection.ConfigMap.foo", "0.yaml"),
            bad,
            point("config.injection.ConfigMap.bar", "b.yaml"),
        ]);
        let msgs: Vec<_> = r.iter().map(|r| r.message.as_str()).collect();
        assert_eq!(
            msgs,
            [
                r#"a.yaml: ConfigMap/foo has invalid "kpt.dev/config-injection" annotation value of "e1"; the accepted values are "required" or "optional""#,
                r#"duplicate injection conditionType "config.injection.ConfigMap.foo" (0.yaml and a.yaml)"#,
            ]
        );
    }

    #[test]
    fn selectors_match_the_in_package_gvk() {
        let target = ObjectMeta {
            is_object: true,
            api_version: "hr.example.com/v1alpha1".into(),
            kind: "Team".into(),
            ..Default::default()
        };
        let sel = |g: Option<&str>, v: Option<&str>, k: Option<&str>| InjectionSelector {
            group: g.map(Into::into),
            version: v.map(Into::into),
            kind: k.map(Into::into),
            name: "x".into(),
        };
        assert!(selector_applies(&sel(None, None, None), &target));
        assert!(selector_applies(
            &sel(Some("hr.example.com"), Some("v1alpha1"), Some("Team")),
            &target
        ));
        assert!(!selector_applies(&sel(Some(""), None, None), &target));
        assert!(!selector_applies(&sel(None, Some("v1"), None), &target));
        assert!(!selector_applies(
            &sel(None, None, Some("ConfigMap")),
            &target
        ));
    }
}
