//! Failures you can see: the render state of the variants' downstream PackageRevisions, when
//! they are among the items (nephio#730: variants reported Ready although the render of their
//! downstream had failed).
//!
//! A PackageVariant's `Ready` says its controller ensured the downstream draft, not that the
//! draft rendered: Porch renders a `porch.kpt.dev/v1alpha2` revision on its own
//! (`porch.kpt.dev/render-request`) and reports the outcome in the revision's
//! `status.conditions`, `Rendered` and `Ready` (kptdev/porch
//! `api/porch/v1alpha2/packagerevision_types.go`). So, for each existing variant the set still
//! wants:
//!
//! - **Matched** by the variant's downstream: the v1alpha2 PackageRevisions of the set's
//!   namespace whose `spec.repository` and `spec.packageName` are the variant's
//!   `spec.downstream.repo` and `.package`. Not by `ownerReferences`: revisions read from files
//!   often lack them (and uids), and a downstream package belongs to one variant of the set
//!   (its name is made of it).
//! - **Which revisions count**: the ones Porch's PackageVariant controller works on
//!   (`getDownstreamPRs`): every Draft and Proposed one when there are any (they are newer than
//!   any published revision: the controller makes them from the latest one), otherwise the
//!   newest published one (highest `status.revision`; `DeletionProposed` counts as published,
//!   as in Porch). An older published revision that failed is history and does not count.
//! - **Not ready** when, on a revision that counts, `Rendered` or `Ready` is `False` (failed),
//!   `Unknown`, or `True` for an older `metadata.generation` than the revision's (not known
//!   yet). A missing condition says nothing (behaviour as before). Such a variant is
//!   *blocking* under `rollout.requireReady`, whatever its own status says, and the summary
//!   lists it with the condition's message.
//! - **Not understood, so refused**: a lifecycle outside Porch's four, `status.conditions`
//!   that is not a list, a `Rendered` or `Ready` condition twice (the API server keeps one per
//!   type) or with a status other than `True`, `False` and `Unknown`.
//! - `porch.kpt.dev/v1alpha1` revisions carry no render state: their `status.conditions` are
//!   the package's Kptfile conditions. They are not read here; under `requireReady`, a warning
//!   names the variants whose downstream is given only in v1alpha1 and what to pass instead.
//!
//! The items are read in the one pass of the PackageRevision index
//! (`expansion::upstreams::revisions::Index`); each variant is then a lookup of its package.

use serde_json::Value;

use super::ensure::DesiredVariant;
use super::fleet_conditions;
use super::preview::Group;
use super::readiness::{self, Readiness};
use super::render_state::{first_line, push_reason_and_message, shortened, Resources};
use super::rollout::{self, Member, Rollout};
use crate::krm::object::json_at;
use crate::krm::results::ResultItem;
use crate::package_variant_set::expansion::inputs::scope::MAX_REPORTED;
use crate::package_variant_set::expansion::inputs::Item;
use crate::package_variant_set::expansion::targets::str_at;
use crate::package_variant_set::expansion::upstreams::revisions::{Index, V1ALPHA1, V1ALPHA2};

/// The conditions read, in the order they are reported.
const READ: [&str; 2] = ["Rendered", "Ready"];

/// What the downstream revisions say about the existing variants.
#[derive(Debug, Default)]
pub struct Downstreams {
    /// Item indexes (sorted) of the variants whose downstream is not ready, and what it says.
    not_ready: Vec<(usize, String)>,
    /// `; 1 with a downstream not ready (...)`, or empty.
    pub text: String,
    /// Under `requireReady`: the variants whose downstream is given only in v1alpha1.
    pub warning: Option<ResultItem>,
}

impl Downstreams {
    /// Reads the downstream revisions of `variants` (item index of an existing variant, what
    /// the set wants of it) from the PackageRevisions `index` of `items` (the one pass the
    /// upstreams were resolved with). Errors are on the revisions; the warning is only under
    /// `rollout.requireReady`.
    pub fn read<'p>(
        items: &[Item],
        index: &Index,
        variants: impl Iterator<Item = (usize, (&'p str, &'p str))>,
        rollout: Option<&Rollout>,
    ) -> Result<Downstreams, Vec<ResultItem>> {
        let require_ready = rollout.is_some_and(|r| r.require_ready);
        let namespace = index.namespace();
        let mut errors = Vec::new();
        // (variant name, item index, what its downstream says)
        let mut found: Vec<(&str, usize, String)> = Vec::new();
        let mut only_v1alpha1: Vec<&str> = Vec::new();
        let resources = Resources::new(items, namespace);
        for (item, package) in variants {
            let name = items.get(item).map_or("", Item::name);
            let v2 = index.v1alpha2_of(package);
            let mut said = None;
            if let Some(bucket) = v2 {
                match counted(items, bucket) {
                    Err(e) => errors.push(*e),
                    Ok(counted) => {
                        for &r in &counted {
                            match verdict(items, r) {
                                Err(e) => errors.push(*e),
                                Ok(Some(s)) => {
                                    said = Some(s);
                                    break;
                                }
                                Ok(None) => {}
                            }
                        }
                    }
                }
            }
            // v1alpha1: the render state inside the package (its Kptfile).
            if said.is_none() && resources.has(package) {
                match resources.verdict(items, index, package) {
                    Err(e) => errors.push(*e),
                    Ok(s) => said = s.map(|(_, s)| s),
                }
            } else if v2.is_none() && require_ready && index.has_v1alpha1(package) {
                only_v1alpha1.push(name);
            }
            if let Some(said) = said {
                found.push((name, item, said));
            }
        }
        if errors.len() > MAX_REPORTED {
            let more = errors.len() - MAX_REPORTED;
            errors.truncate(MAX_REPORTED);
            errors.push(
                ResultItem::error(format!(
                    "and {more} more downstream PackageRevisions that cannot be read, as above"
                ))
                .on_config(),
            );
        }
        if !errors.is_empty() {
            return Err(errors);
        }
        let mut out = Downstreams::default();
        found.sort_unstable();
        let mut group = Group::default();
        for (name, item, said) in &found {
            group.add(|| format!("{name}: {said}"));
            out.not_ready.push((*item, said.clone()));
        }
        out.not_ready.sort_unstable();
        if !group.is_empty() {
            out.text = format!(
                "; {} with a downstream not ready{}",
                group.len(),
                group.listed()
            );
        }
        if !only_v1alpha1.is_empty() {
            only_v1alpha1.sort_unstable();
            let mut names = Group::default();
            for n in &only_v1alpha1 {
                names.add(|| n.to_string());
            }
            out.warning = Some(
                ResultItem::warning(format!(
                    "{} with a downstream given only in {V1ALPHA1}{}: {V1ALPHA1} has no render state on its PackageRevision (it is in the package's Kptfile), so requireReady cannot see whether it rendered; give the revisions' resources (kubectl get packagerevisionresources -n {namespace} -o yaml) or the {V1ALPHA2} revisions (kubectl get packagerevisions.v1alpha2.porch.kpt.dev -n {namespace} -o yaml) to have a failed render block the rollout",
                    names.len(),
                    names.listed()
                ))
                .field("spec.rollout.requireReady")
                .on_config(),
            );
        }
        Ok(out)
    }

    /// What the downstream of the variant at `item` says when it is not ready.
    pub fn blocks(&self, item: usize) -> Option<&str> {
        let at = self
            .not_ready
            .binary_search_by_key(&item, |(i, _)| *i)
            .ok()?;
        self.not_ready.get(at).map(|(_, s)| s.as_str())
    }

    /// The existing variant at `item` as a rollout member: an upgrade when a field of
    /// `spec.upstream` changes; ready when its downstream is not known to be otherwise and
    /// it reports `Ready` ([`rollout::is_ready`]), or, with `readyExpr`, when that says so
    /// (evaluated for every member: which one is on the new upstream is told by the caller
    /// from every spelling of its revision, `activation::current`).
    pub fn member<'a>(
        &self,
        items: &[Item<'a>],
        index: &Index<'a>,
        readiness: Option<&Readiness>,
        item: usize,
        desired: &'a DesiredVariant,
        fields: &[String],
    ) -> Member<'a> {
        let object = items.get(item);
        let upgrade = fields.iter().any(|f| f.starts_with("spec.upstream"));
        let (ready, reason) = self.judge(items, index, readiness, item, desired.downstream());
        Member {
            item,
            name: object.map_or("", Item::name),
            upgrade,
            ready,
            reason,
            desired,
        }
    }

    /// Whether the variant at `item` (one the set no longer wants) is ready, as [`member`]
    /// reads it, its downstream read from its own `spec.downstream`; and why not.
    ///
    /// [`member`]: Downstreams::member
    pub fn readiness(
        &self,
        items: &[Item],
        index: &Index,
        readiness: Option<&Readiness>,
        item: usize,
    ) -> (bool, String) {
        let json = items.get(item).and_then(Item::json);
        let downstream = json.map_or(("", ""), downstream_of);
        self.judge(items, index, readiness, item, downstream)
    }

    fn judge(
        &self,
        items: &[Item],
        index: &Index,
        readiness: Option<&Readiness>,
        item: usize,
        downstream: (&str, &str),
    ) -> (bool, String) {
        let json = items.get(item).and_then(Item::json);
        if let Some(said) = self.blocks(item) {
            return (false, said.to_string());
        }
        match (readiness, json) {
            (Some(r), Some(v)) => match r.judge(items, index, v, downstream) {
                Ok(true) => (true, String::new()),
                Ok(false) => (false, readiness::false_because(v, items, index, downstream)),
                Err(e) => (false, format!("readyExpr failed: {}", first_line(&e))),
            },
            (Some(_), None) => (false, "readyExpr: the variant cannot be read".into()),
            (None, _) if json.is_some_and(rollout::is_ready) => (true, String::new()),
            (None, _) => (
                false,
                "no single Ready True condition of the current generation in status.conditions"
                    .into(),
            ),
        }
    }
}

/// A variant's `spec.downstream` (repo, package).
pub fn downstream_of(variant: &Value) -> (&str, &str) {
    (
        str_at(variant, "/spec/downstream/repo"),
        str_at(variant, "/spec/downstream/package"),
    )
}

/// The revisions of one package that count: its drafts (Draft, Proposed), or else its newest
/// published ones.
fn counted<'a>(items: &[Item<'a>], bucket: &[usize]) -> Result<Vec<usize>, Box<ResultItem>> {
    let (mut drafts, mut newest, mut top) = (Vec::new(), Vec::new(), i64::MIN);
    for &i in bucket {
        let Some(json) = items.get(i).and_then(Item::json) else {
            continue;
        };
        match str_at(json, "/spec/lifecycle") {
            "" | "Draft" | "Proposed" => drafts.push(i),
            "Published" | "DeletionProposed" => {
                let revision = json_at(json, "/status/revision")
                    .and_then(Value::as_i64)
                    .unwrap_or(0);
                if revision > top {
                    (top, newest) = (revision, vec![i]);
                } else if revision == top {
                    newest.push(i);
                }
            }
            other => {
                return Err(Box::new(ResultItem::error(format!(
                    "is {other:?}: a PackageRevision's lifecycle is Draft, Proposed, Published or DeletionProposed (Porch's four); write one of them"
                ))
                .field("spec.lifecycle")
                .on_item(i)))
            }
        }
    }
    Ok(if drafts.is_empty() { newest } else { drafts })
}

/// What the revision at `item` says when it is not ready: `PackageRevision "x" Rendered
/// False (RenderFailed): "..."`; `None` when it is ready or says nothing.
fn verdict(items: &[Item], item: usize) -> Result<Option<String>, Box<ResultItem>> {
    let Some(json) = items.get(item).and_then(Item::json) else {
        return Ok(None);
    };
    let error = |field: String, message: String| {
        Box::new(ResultItem::error(message).field(field).on_item(item))
    };
    let conditions = fleet_conditions::read(json).map_err(|e| error(e.field, e.message))?;
    let generation = json_at(json, "/metadata/generation").and_then(Value::as_i64);
    let seen: [Option<fleet_conditions::Condition>; 2] = [
        fleet_conditions::find(&conditions, READ[0]),
        fleet_conditions::find(&conditions, READ[1]),
    ];
    for (at, c) in seen.iter().enumerate() {
        let Some(c) = c else { continue };
        let status = c.status.text();
        let observed = c.observed_generation;
        let c = c.json;
        let stale = matches!((observed, generation), (Some(o), Some(g)) if o < g);
        if status == "True" && !stale {
            continue;
        }
        let name = str_at(json, "/metadata/name");
        let mut said = format!("PackageRevision {name:?} {} {status}", READ[at]);
        if stale {
            said.push_str(&format!(
                " for generation {} (the revision is at {})",
                observed.unwrap_or(0),
                generation.unwrap_or(0)
            ));
        }
        push_reason_and_message(&mut said, c, shortened);
        return Ok(Some(said));
    }
    Ok(None)
}
