//! Set reconciliation (Porch's `ensurePackageVariants`): which owned PackageVariants to delete,
//! update and create, keyed by identifier.
//!
//! A function cannot call the API server, so "delete" means "leave out of the output", "update"
//! means "keep the item's metadata, replace its spec", and "create" means "append a new item".
//! Where Porch silently loses data there are errors or warnings here instead: two downstreams
//! with one identifier or one name, and existing variants that share an identifier or have no
//! downstream (Porch would panic on the latter).

use crate::api::package_variant::{
    EXTENSION_API_VERSION, PACKAGE_VARIANT_API_VERSION, PACKAGE_VARIANT_KIND,
};
use crate::common::fast_hash::{FastMap, FastSet};
use crate::krm::results::ResultItem;
use crate::package_variant_set::expansion::inputs::Item;
use crate::package_variant_set::expansion::naming;
use crate::package_variant_set::expansion::provenance::{Rendered, Side};
use crate::package_variant_set::expansion::targets::{items_of_kind, str_at};

/// The label that marks a PackageVariant as owned by a set (value: the set's uid, or its name
/// when it has no uid, as for a set read from a file).
pub const OWNER_LABEL: &str = "config.porch.kpt.dev/packagevariantset";

/// One PackageVariant the set wants: what reconciliation keys it by, and where its render
/// recorded what its spec is made of (not the spec itself: a fleet's specs are not held).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct DesiredVariant {
    /// `<set>-<repo>-<package>`.
    pub identifier: String,
    /// The name when it differs from the identifier (cut past 63 bytes).
    cut_name: Option<String>,
    /// Where the downstream repo and package start in `identifier`.
    repo_at: u32,
    package_at: u32,
    /// Index of the target in `spec.targets` that produced it.
    pub target: usize,
    /// Index of the downstream context (unrolled target entry) that produced it.
    pub context: usize,
    /// Where its render's values start in the run's [`crate::package_variant_set::expansion::record::Records`].
    pub record: usize,
    /// Which of the set's upstreams it is made from (extension: `spec.upstreams`; else 0).
    pub upstream: usize,
}

impl DesiredVariant {
    /// Its name: the identifier, or the identifier cut to 63 bytes with a hash.
    pub fn name(&self) -> &str {
        self.cut_name.as_deref().unwrap_or(&self.identifier)
    }

    /// Its downstream repo and package.
    pub fn downstream(&self) -> (&str, &str) {
        let (repo, package) = (self.repo_at as usize, self.package_at as usize);
        (
            self.identifier.get(repo..package - 1).unwrap_or(""),
            self.identifier.get(package..).unwrap_or(""),
        )
    }
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

/// Item indexes of the PackageVariants in `namespace`, of Porch's kind and the extension's, in
/// item order.
fn variants_in(items: &[Item], namespace: &str) -> Vec<usize> {
    let mut all = items_of_kind(
        items,
        PACKAGE_VARIANT_API_VERSION,
        PACKAGE_VARIANT_KIND,
        namespace,
    );
    all.extend(items_of_kind(
        items,
        EXTENSION_API_VERSION,
        PACKAGE_VARIANT_KIND,
        namespace,
    ));
    all.sort_unstable();
    all
}

/// Item indexes of the PackageVariants in `namespace` labelled as owned by `owner`.
pub fn owned_variants(items: &[Item], namespace: &str, owner: &str) -> Vec<usize> {
    // Porch's kind and the extension's: a set emits the extension's where a template uses
    // an extension field.
    let mut owned = variants_in(items, namespace);
    owned.retain(|&i| items.get(i).and_then(|item| item.label(OWNER_LABEL)) == Some(owner));
    owned
}

/// Keys rendered specs by identifier, in target order.
///
/// Two downstreams with one identifier are an error naming both by the fields that made them
/// (`describe` of their context): the same package name listed twice, two targets reaching
/// one repository, a template mapping two objects to one downstream, or `a-b`/`c` and
/// `a`/`b-c`. Porch would keep one and silently drop the other. So is a cut name (past 63
/// bytes) shared by two identifiers, which Porch would also merge.
pub fn collect_desired(
    set_name: &str,
    rendered: Vec<Rendered>,
    describe: &dyn Fn(usize) -> Side,
) -> Result<Vec<DesiredVariant>, Vec<ResultItem>> {
    let mut out: Vec<DesiredVariant> = Vec::with_capacity(rendered.len());
    let mut by_id: FastMap<String, usize> =
        FastMap::with_capacity_and_hasher(rendered.len(), Default::default());
    // Names cut to 63 bytes with a hash: the only names that can differ from their identifier.
    let mut cut_names: FastMap<String, usize> = FastMap::default();
    let mut errors = Vec::new();
    for r in rendered {
        let (repo, package) = (r.downstream.repo.as_str(), r.downstream.package.as_str());
        let identifier = naming::identifier(set_name, repo, package);
        if let Some(previous) = by_id.get(&identifier).and_then(|&at| out.get(at)) {
            let (prev_repo, prev_package) = previous.downstream();
            let (earlier, later) = (describe(previous.context), describe(r.context));
            let message = format!(
                "{} and {} both produce the PackageVariant identifier {identifier:?}; Porch would keep only the later one: give them different downstream repo or package names (template.downstream) or remove one",
                earlier.text_with(&format!("downstream {prev_repo:?}/{prev_package:?}")),
                later.text_with(&format!("downstream {repo:?}/{package:?}")),
            );
            errors.push(ResultItem::error(message).field(later.field).on_config());
            continue;
        }
        let name = naming::package_variant_name(&identifier);
        let cut = name != identifier;
        let taken = if cut {
            by_id.get(&name).or_else(|| cut_names.get(&name))
        } else {
            cut_names.get(&name)
        };
        if let Some(previous) = taken.and_then(|&at| out.get(at)) {
            let (earlier, later) = (describe(previous.context), describe(r.context));
            let message = format!(
                "{} and {} both get the PackageVariant name {name:?} (Porch cuts a name past 63 bytes to 54 and a hash); give one of them a shorter downstream repo or package name",
                earlier.text_with(&format!("identifier {:?}", previous.identifier)),
                later.text_with(&format!("identifier {identifier:?}")),
            );
            errors.push(ResultItem::error(message).field(later.field).on_config());
            continue;
        }
        if cut {
            cut_names.insert(name.clone(), out.len());
        }
        by_id.insert(identifier.clone(), out.len());
        // `<set>-<repo>-<package>`: offsets fit, as no input reaches 4 GiB.
        let repo_at = set_name.len() + 1;
        out.push(DesiredVariant {
            identifier,
            cut_name: cut.then_some(name),
            repo_at: repo_at as u32,
            package_at: (repo_at + repo.len() + 1) as u32,
            target: r.target,
            context: r.context,
            record: r.record,
            upstream: r.upstream,
        });
    }
    if errors.is_empty() {
        Ok(out)
    } else {
        Err(errors)
    }
}

/// Compares the wanted variants with the owned ones (`owned`: item indexes into `items`).
pub fn plan(set_name: &str, desired: Vec<DesiredVariant>, items: &[Item], owned: &[usize]) -> Plan {
    let mut plan = Plan::default();
    // Identifier of each owned variant, from its spec (not its name). Later duplicates win.
    let mut existing: FastMap<String, usize> = FastMap::default();
    for &i in owned {
        // Owned variants are read in full.
        let Some(item) = items.get(i).and_then(Item::json) else {
            continue;
        };
        let name = str_at(item, "/metadata/name");
        if !crate::krm::object::json_at(item, "/spec/downstream").is_some_and(|d| d.is_object()) {
            // Porch would panic; it can match nothing, so it is obsolete. What happens to it
            // is the sync policy's to say (`super::explain` words the deletion).
            plan.deletes.push(i);
            continue;
        }
        let identifier = naming::identifier(
            set_name,
            str_at(item, "/spec/downstream/repo"),
            str_at(item, "/spec/downstream/package"),
        );
        if let Some(earlier) = existing.insert(identifier.clone(), i) {
            let earlier_name = items.get(earlier).map_or("", Item::name);
            plan.warnings.push(
                ResultItem::warning(format!(
                    "owned PackageVariants {earlier_name:?} and {name:?} have the same identifier {identifier:?}; only {name:?} is the set's variant for it, {earlier_name:?} is left as it is (as Porch does)"
                ))
                .on_item(earlier),
            );
        }
    }
    let wanted: FastSet<&str> = desired.iter().map(|d| d.identifier.as_str()).collect();
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
/// replace the other one when the output is applied. An obsolete owned variant frees its name
/// only when it is deleted: `kept_by` names the sync policy that keeps it instead. One error
/// per clash, on the field that made the new variant (`describe` of its context).
pub fn name_clashes(
    items: &[Item],
    namespace: &str,
    plan: &Plan,
    describe: &dyn Fn(usize) -> Side,
    kept_by: Option<&str>,
) -> Vec<ResultItem> {
    if plan.creates.is_empty() {
        return Vec::new();
    }
    let deleted: FastSet<usize> = plan.deletes.iter().copied().collect();
    // Name -> whether it is an obsolete owned variant the policy keeps.
    let mut taken: FastMap<&str, bool> = FastMap::default();
    for i in variants_in(items, namespace) {
        let obsolete = deleted.contains(&i);
        if let Some(item) = items.get(i).filter(|_| !obsolete || kept_by.is_some()) {
            *taken.entry(item.name()).or_insert(obsolete) &= obsolete;
        }
    }
    plan.creates
        .iter()
        .filter_map(|d| Some((d, *taken.get(d.name())?)))
        .map(|(d, kept)| {
            if let (true, Some(policy)) = (kept, kept_by) {
                let side = describe(d.context);
                let (repo, package) = d.downstream();
                return ResultItem::error(format!(
                    "would create PackageVariant {:?} (downstream {repo:?}/{package:?}), but the set's obsolete PackageVariant of that name stays: the sync policy {policy} keeps it instead of deleting it; remove that PackageVariant, allow deletions (sync policy create-delete or sync), or give the set's variant another downstream",
                    d.name(),
                ))
                .field(side.field)
                .on_config();
            }
            let side = describe(d.context);
            let object = side.object.as_ref().map_or(String::new(), |o| format!(" for {o}"));
            let (repo, package) = d.downstream();
            ResultItem::error(format!(
                "would create PackageVariant {:?}{object} (downstream {repo:?}/{package:?}), but namespace {namespace:?} already has a PackageVariant of that name that this set does not reconcile (Porch: packagevariants.config.porch.kpt.dev {:?} already exists); rename or remove that PackageVariant, or give the set's variant another downstream",
                d.name(),
                d.name(),
            ))
            .field(side.field)
            .on_config()
        })
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::api::package_variant::{Downstream, PackageVariantSpec};
    use crate::package_variant_set::expansion::inputs::from_json;
    use serde_json::{json, Value};

    /// [`collect_desired`] with one context per spec, described as `ctx<i>`.
    fn collect(
        set_name: &str,
        specs: Vec<(usize, PackageVariantSpec)>,
    ) -> Result<Vec<DesiredVariant>, Vec<ResultItem>> {
        let rendered = specs
            .into_iter()
            .enumerate()
            .map(|(c, (t, spec))| Rendered {
                target: t,
                context: c,
                downstream: spec.downstream.unwrap_or_default(),
                record: 0,
                upstream: 0,
            })
            .collect();
        collect_desired(set_name, rendered, &|c| Side::at(format!("ctx{c}")))
    }

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
        let owned = owned_variants(&from_json(&items), "default", "my-pvs");
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
        let desired = collect("my-pvs", rendered).unwrap_or_default();
        let plan = plan("my-pvs", desired, &from_json(&items), &owned);
        assert_eq!(plan.deletes, [0]);
        assert_eq!(
            plan.updates.iter().map(|(i, _)| *i).collect::<Vec<_>>(),
            [1]
        );
        let mut created: Vec<&str> = plan.creates.iter().map(|d| d.name()).collect();
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
        let owned = owned_variants(&from_json(&items), "default", "uid-1");
        let desired =
            collect("s", vec![(0, spec("r1", "new")), (0, spec("r1", "keep"))]).unwrap_or_default();
        let plan = plan("s", desired, &from_json(&items), &owned);
        assert_eq!(plan.deletes, [0]);
        assert_eq!(plan.updates.len(), 1);
        assert_eq!(plan.updates[0].0, 1);
        assert_eq!(
            plan.creates.iter().map(|d| d.name()).collect::<Vec<_>>(),
            ["s-r1-new"]
        );
    }

    /// D23: two downstreams with one identifier are an error naming both by their fields,
    /// even from one target (Porch would silently keep one).
    #[test]
    fn d23_duplicate_identifiers() {
        let errs = collect("s", vec![(0, spec("r1", "p")), (0, spec("r1", "p"))]).unwrap_err();
        assert_eq!(errs.len(), 1);
        assert_eq!(
            errs[0].message,
            r#"ctx0 (downstream "r1"/"p") and ctx1 (downstream "r1"/"p") both produce the PackageVariant identifier "s-r1-p"; Porch would keep only the later one: give them different downstream repo or package names (template.downstream) or remove one"#
        );
        assert_eq!(errs[0].field_path.as_deref(), Some("ctx1"));
        let errs = collect("s", vec![(0, spec("a-b", "c")), (0, spec("a", "b-c"))]).unwrap_err();
        assert!(
            errs[0]
                .message
                .contains(r#"both produce the PackageVariant identifier "s-a-b-c""#),
            "{}",
            errs[0].message
        );
        // Three of a kind: each later one is reported against the first.
        let three = vec![
            (0, spec("r", "p")),
            (1, spec("r", "p")),
            (2, spec("r", "p")),
        ];
        let errs = collect("s", three).unwrap_err();
        let fields: Vec<_> = errs.iter().filter_map(|e| e.field_path.clone()).collect();
        assert_eq!(fields, ["ctx1", "ctx2"]);
    }

    /// Two identifiers past 63 bytes that Porch cuts to one name: an error naming both.
    #[test]
    fn cut_names_that_collide_are_refused() {
        let long = "p".repeat(60);
        let ok = collect(
            "s",
            vec![(0, spec("r", &long)), (0, spec("r", &format!("{long}x")))],
        );
        assert_eq!(ok.map(|d| d.len()), Ok(2));
        // A cut name equal to another variant's identifier.
        let first = collect("s", vec![(0, spec("r", &long))]).unwrap_or_default();
        let cut = first[0].name().to_string();
        assert_ne!(cut, first[0].identifier);
        let (repo, package) = cut
            .split_once('-')
            .map(|(_, rest)| rest.split_once('-').unwrap_or_default())
            .unwrap_or_default();
        let errs = collect("s", vec![(0, spec("r", &long)), (1, spec(repo, package))]).unwrap_err();
        assert_eq!(errs.len(), 1);
        assert!(
            errs[0].message.contains("both get the PackageVariant name"),
            "{}",
            errs[0].message
        );
        assert_eq!(errs[0].field_path.as_deref(), Some("ctx1"));
    }

    /// Obsolete; the sync policy says whether it goes, and the explainer words it.
    #[test]
    fn owned_pv_without_downstream_is_obsolete() {
        let items = [pv("broken", "o", None)];
        let owned = owned_variants(&from_json(&items), "default", "o");
        let plan = plan("s", vec![], &from_json(&items), &owned);
        assert_eq!(plan.deletes, [0]);
        assert!(plan.warnings.is_empty());
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
        assert_eq!(owned_variants(&from_json(&items), "default", "o"), [0]);
    }

    #[test]
    fn existing_duplicates_later_wins_earlier_untouched() {
        let items = [
            pv("a", "o", Some(("r", "p"))),
            pv("b", "o", Some(("r", "p"))),
        ];
        let owned = owned_variants(&from_json(&items), "default", "o");
        let desired = collect("s", vec![(0, spec("r", "p"))]).unwrap_or_default();
        let plan = plan("s", desired, &from_json(&items), &owned);
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
        let owned = owned_variants(&from_json(&items), "default", "o");
        assert_eq!(
            plan("s", vec![], &from_json(&items), &owned).deletes,
            [0, 1]
        );
    }
}
