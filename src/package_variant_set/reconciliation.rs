//! Set reconciliation (Porch's `ensurePackageVariants`): which owned PackageVariants to delete,
//! update and create, keyed by identifier.
//!
//! A function cannot call the API server, so "delete" means "leave out of the output", "update"
//! means "keep the item's metadata, replace its spec", and "create" means "append a new item".
//! Two places where Porch silently loses data are errors or warnings here instead: two
//! downstreams with one identifier, and existing variants that share an identifier or have no
//! downstream (Porch would panic on the latter).

use std::collections::{HashMap, HashSet};

use crate::api::package_variant::{
    PackageVariantSpec, PACKAGE_VARIANT_API_VERSION, PACKAGE_VARIANT_KIND,
};
use crate::krm::results::ResultItem;
use crate::package_variant_set::naming;
use crate::package_variant_set::targets::{items_of_kind, str_at};

/// The label that marks a PackageVariant as owned by a set (value: the set's uid, or its name
/// when it has no uid, as for a set read from a file).
pub const OWNER_LABEL: &str = "config.porch.kpt.dev/packagevariantset";

/// One PackageVariant the set wants.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct DesiredVariant {
    pub identifier: String,
    pub name: String,
    /// Index of the target in `spec.targets` that produced it.
    pub target: usize,
    pub spec: PackageVariantSpec,
}

/// The outcome of reconciliation.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct Plan {
    /// Item indexes of owned variants no longer wanted, in item order.
    pub deletes: Vec<usize>,
    /// Item index of an owned variant still wanted, and what it should be.
    pub updates: Vec<(usize, DesiredVariant)>,
    /// Wanted variants that do not exist yet, in target order.
    pub creates: Vec<DesiredVariant>,
    /// Problems with existing variants that do not stop the run.
    pub warnings: Vec<ResultItem>,
}

/// Item indexes of the PackageVariants in `namespace` labelled as owned by `owner`.
pub fn owned_variants(items: &[serde_json::Value], namespace: &str, owner: &str) -> Vec<usize> {
    let mut owned = items_of_kind(
        items,
        PACKAGE_VARIANT_API_VERSION,
        PACKAGE_VARIANT_KIND,
        namespace,
    );
    owned.retain(|&i| {
        items.get(i).and_then(|item| {
            crate::krm::object::json_at(item, "/metadata/labels")?
                .get(OWNER_LABEL)?
                .as_str()
        }) == Some(owner)
    });
    owned
}

/// Keys rendered specs by identifier, in target order.
///
/// The same downstream produced twice by one target (e.g. `packageNames: [p, p]`) is one
/// variant, the later spec winning as in Porch. Any other identifier clash (two targets, or two
/// different downstreams like `a-b`/`c` and `a`/`b-c`) is an error naming both: Porch would keep
/// one and silently drop the other.
pub fn collect_desired(
    set_name: &str,
    rendered: Vec<(usize, PackageVariantSpec)>,
) -> Result<Vec<DesiredVariant>, Vec<ResultItem>> {
    let mut out: Vec<DesiredVariant> = Vec::with_capacity(rendered.len());
    let mut by_id: HashMap<String, usize> = HashMap::with_capacity(rendered.len());
    let mut errors = Vec::new();
    for (target, spec) in rendered {
        let (repo, package) = downstream_of(&spec);
        let identifier = naming::identifier(set_name, &repo, &package);
        match by_id.get(&identifier).and_then(|&at| out.get_mut(at)) {
            Some(previous) => {
                let (prev_repo, prev_package) = downstream_of(&previous.spec);
                if previous.target == target && prev_repo == repo && prev_package == package {
                    previous.spec = spec;
                } else {
                    let message = format!(
                        "spec.targets[{}] (downstream {prev_repo:?}/{prev_package:?}) and spec.targets[{target}] (downstream {repo:?}/{package:?}) both produce the PackageVariant identifier {identifier:?}; Porch would keep only the later one: give them different downstream repo or package names (template.downstream) or remove one",
                        previous.target
                    );
                    errors.push(
                        ResultItem::error(message)
                            .field(format!("spec.targets[{target}]"))
                            .on_config(),
                    );
                }
            }
            None => {
                by_id.insert(identifier.clone(), out.len());
                let name = naming::package_variant_name(&identifier);
                out.push(DesiredVariant {
                    identifier,
                    name,
                    target,
                    spec,
                });
            }
        }
    }
    if errors.is_empty() {
        Ok(out)
    } else {
        Err(errors)
    }
}

fn downstream_of(spec: &PackageVariantSpec) -> (String, String) {
    spec.downstream
        .as_ref()
        .map(|d| (d.repo.clone(), d.package.clone()))
        .unwrap_or_default()
}

/// Compares the wanted variants with the owned ones (`owned`: item indexes into `items`).
pub fn plan(
    set_name: &str,
    desired: Vec<DesiredVariant>,
    items: &[serde_json::Value],
    owned: &[usize],
) -> Plan {
    let mut plan = Plan::default();
    // Identifier of each owned variant, from its spec (not its name). Later duplicates win.
    let mut existing: HashMap<String, usize> = HashMap::new();
    for &i in owned {
        let Some(item) = items.get(i) else { continue };
        let name = str_at(item, "/metadata/name");
        if !crate::krm::object::json_at(item, "/spec/downstream").is_some_and(|d| d.is_object()) {
            // Porch would panic; it can match nothing, so it is obsolete.
            plan.deletes.push(i);
            plan.warnings.push(
                ResultItem::warning(format!(
                    "owned PackageVariant {name:?} has no spec.downstream; removing it as obsolete"
                ))
                .field("spec.downstream")
                .on_item(i),
            );
            continue;
        }
        let identifier = naming::identifier(
            set_name,
            str_at(item, "/spec/downstream/repo"),
            str_at(item, "/spec/downstream/package"),
        );
        if let Some(earlier) = existing.insert(identifier.clone(), i) {
            let earlier_name = items
                .get(earlier)
                .map_or("", |e| str_at(e, "/metadata/name"));
            plan.warnings.push(
                ResultItem::warning(format!(
                    "owned PackageVariants {earlier_name:?} and {name:?} have the same identifier {identifier:?}; only {name:?} is reconciled, {earlier_name:?} is left as it is (as Porch does)"
                ))
                .on_item(earlier),
            );
        }
    }
    let wanted: HashSet<&str> = desired.iter().map(|d| d.identifier.as_str()).collect();
    let mut obsolete: Vec<usize> = existing
        .iter()
        .filter(|(id, _)| !wanted.contains(id.as_str()))
        .map(|(_, &i)| i)
        .collect();
    plan.deletes.append(&mut obsolete);
    plan.deletes.sort_unstable();
    for d in desired {
        match existing.get(&d.identifier) {
            Some(&i) => plan.updates.push((i, d)),
            None => plan.creates.push(d),
        }
    }
    plan.updates.sort_by_key(|(i, _)| *i);
    plan
}

/// The creates whose name is already taken by a PackageVariant of the namespace that stays
/// (one the set does not own, or an owned one kept under another identifier). Porch's create
/// fails there with `already exists`; emitting a second object of that name would instead
/// replace the other one when the output is applied. One error per clash.
pub fn name_clashes(items: &[serde_json::Value], namespace: &str, plan: &Plan) -> Vec<ResultItem> {
    if plan.creates.is_empty() {
        return Vec::new();
    }
    let deleted: HashSet<usize> = plan.deletes.iter().copied().collect();
    let mut taken: HashSet<&str> = HashSet::new();
    for i in items_of_kind(
        items,
        PACKAGE_VARIANT_API_VERSION,
        PACKAGE_VARIANT_KIND,
        namespace,
    ) {
        if let Some(item) = items.get(i).filter(|_| !deleted.contains(&i)) {
            taken.insert(str_at(item, "/metadata/name"));
        }
    }
    plan.creates
        .iter()
        .filter(|d| taken.contains(d.name.as_str()))
        .map(|d| {
                ResultItem::error(format!(
                    "spec.targets[{}] (downstream {:?}/{:?}) would create PackageVariant {:?}, but namespace {namespace:?} already has a PackageVariant of that name that this set does not reconcile (Porch: packagevariants.config.porch.kpt.dev {:?} already exists); rename or remove that PackageVariant, or give the set's variant another downstream",
                    d.target,
                    d.spec.downstream.as_ref().map_or("", |ds| ds.repo.as_str()),
                    d.spec.downstream.as_ref().map_or("", |ds| ds.package.as_str()),
                    d.name,
                    d.name,
                ))
                .field(format!("spec.targets[{}]", d.target))
                .on_config()
        })
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::api::package_variant::Downstream;
    use serde_json::{json, Value};

    fn spec(repo: &str, package: &str) -> PackageVariantSpec {
        PackageVariantSpec {
            downstream: Some(Downstream {
                repo: repo.into(),
                package: package.into(),
            }),
            ..Default::default()
        }
    }

    fn pv(name: &str, owner: &str, downstream: Option<(&str, &str)>) -> Value {
        let mut o = json!({"apiVersion": PACKAGE_VARIANT_API_VERSION, "kind": PACKAGE_VARIANT_KIND,
            "metadata": {"name": name, "labels": {OWNER_LABEL: owner}}, "spec": {}});
        if let Some((r, p)) = downstream {
            o["spec"]["downstream"] = json!({"repo": r, "package": p});
        }
        o
    }

    /// Porch's TestEnsurePackageVariants: T-S1 (deleted/updated) and T-S2 (created).
    #[test]
    fn t_s1_t_s2_ensure_package_variants() {
        let items = [
            pv(
                "my-pvs-dnrepo1-dnpkg1",
                "my-pvs",
                Some(("dnrepo1", "dnpkg1")),
            ),
            pv(
                "my-pvs-dnrepo2-dnpkg2",
                "my-pvs",
                Some(("dnrepo2", "dnpkg2")),
            ),
        ];
        let owned = owned_variants(&items, "default", "my-pvs");
        let rendered = vec![
            (0, spec("dnrepo2", "dnpkg2")),
            (0, spec("dnrepo3", "dnpkg3")),
            (
                0,
                spec(
                    "dnrepo4",
                    "supersupersuperloooooooooooooooooooooooooooooooooooooooooooooooooongpkgname",
                ),
            ),
        ];
        let desired = collect_desired("my-pvs", rendered).unwrap_or_default();
        let plan = plan("my-pvs", desired, &items, &owned);
        assert_eq!(plan.deletes, [0]);
        assert_eq!(
            plan.updates.iter().map(|(i, _)| *i).collect::<Vec<_>>(),
            [1]
        );
        let mut created: Vec<&str> = plan.creates.iter().map(|d| d.name.as_str()).collect();
        created.sort_unstable();
        assert_eq!(
            created,
            [
                "my-pvs-dnrepo3-dnpkg3",
                "my-pvs-dnrepo4-supersupersuperlooooooooooooooooooooooo-bec36506"
            ]
        );
    }

    /// D30: an owned PV is matched by its downstream, not its name.
    #[test]
    fn d30_identifier_from_spec_not_name() {
        let items = [
            pv("X", "uid-1", Some(("r1", "old"))),
            pv("custom-name", "uid-1", Some(("r1", "keep"))),
        ];
        let owned = owned_variants(&items, "default", "uid-1");
        let desired = collect_desired("s", vec![(0, spec("r1", "new")), (0, spec("r1", "keep"))])
            .unwrap_or_default();
        let plan = plan("s", desired, &items, &owned);
        assert_eq!(plan.deletes, [0]);
        assert_eq!(plan.updates.len(), 1);
        assert_eq!(plan.updates[0].0, 1);
        assert_eq!(
            plan.creates
                .iter()
                .map(|d| d.name.as_str())
                .collect::<Vec<_>>(),
            ["s-r1-new"]
        );
    }

    /// D23: the same downstream twice from one target is one PV; a clash of different
    /// downstreams is an error naming both (Porch would silently keep one).
    #[test]
    fn d23_duplicate_identifiers() {
        let one = collect_desired("s", vec![(0, spec("r1", "p")), (0, spec("r1", "p"))])
            .unwrap_or_default();
        assert_eq!(one.len(), 1);
        assert_eq!(one[0].identifier, "s-r1-p");
        let errs =
            collect_desired("s", vec![(0, spec("a-b", "c")), (0, spec("a", "b-c"))]).unwrap_err();
        assert_eq!(errs.len(), 1);
        assert!(
            errs[0]
                .message
                .contains(r#"both produce the PackageVariant identifier "s-a-b-c""#),
            "{}",
            errs[0].message
        );
        let errs =
            collect_desired("s", vec![(0, spec("r", "p")), (1, spec("r", "p"))]).unwrap_err();
        assert!(
            errs[0]
                .message
                .starts_with("spec.targets[0] (downstream \"r\"/\"p\") and spec.targets[1]"),
            "{}",
            errs[0].message
        );
        assert_eq!(errs[0].field_path.as_deref(), Some("spec.targets[1]"));
    }

    #[test]
    fn owned_pv_without_downstream_is_removed_with_a_warning() {
        let items = [pv("broken", "o", None)];
        let owned = owned_variants(&items, "default", "o");
        let plan = plan("s", vec![], &items, &owned);
        assert_eq!(plan.deletes, [0]);
        assert_eq!(plan.warnings.len(), 1);
        assert!(!plan.warnings[0].is_error());
    }

    #[test]
    fn ownership_needs_label_kind_and_namespace() {
        let mut other_ns = pv("a", "o", Some(("r", "p")));
        other_ns["metadata"]["namespace"] = json!("other");
        let items = [
            pv("a", "o", Some(("r", "p"))),
            pv("b", "someone-else", Some(("r", "p"))),
            other_ns,
            json!({"kind": "PackageVariant"}),
            json!(null),
        ];
        assert_eq!(owned_variants(&items, "default", "o"), [0]);
    }

    #[test]
    fn existing_duplicates_later_wins_earlier_untouched() {
        let items = [
            pv("a", "o", Some(("r", "p"))),
            pv("b", "o", Some(("r", "p"))),
        ];
        let owned = owned_variants(&items, "default", "o");
        let desired = collect_desired("s", vec![(0, spec("r", "p"))]).unwrap_or_default();
        let plan = plan("s", desired, &items, &owned);
        assert!(plan.deletes.is_empty());
        assert_eq!(
            plan.updates.iter().map(|(i, _)| *i).collect::<Vec<_>>(),
            [1]
        );
        assert_eq!(plan.warnings.len(), 1);
    }

    #[test]
    fn empty_desired_deletes_all_owned() {
        let items = [
            pv("a", "o", Some(("r", "p"))),
            pv("b", "o", Some(("r", "q"))),
        ];
        let owned = owned_variants(&items, "default", "o");
        assert_eq!(plan("s", vec![], &items, &owned).deletes, [0, 1]);
    }
}
