//! The expansion: what the expander decides from a PackageVariantSet and the items, before it
//! touches the ResourceList.
//!
//! Pipeline, as Porch reconciles: decode, validate, find the upstream PackageRevision, unroll
//! targets, render every downstream (the first render error stops everything), then reconcile
//! against the owned PackageVariants among the items. All or nothing: any error leaves every
//! item as it was (no updates, deletes or creates).

use serde_json::Value;

use super::activation::{self, current};
use super::deletion_order;
use super::downstream_revisions::{self, Downstreams};
use super::ensure::{self, DesiredVariant};
use super::explain::Explainer;
use super::per_target;
use super::preview::{self, changed_fields, with_fields};
use super::readiness;
use super::rollout::{self, WaveInputs};
use super::sync_policy::{self, read_allowance, read_policy};
use super::variants;
use crate::api::package_variant::{Upstream, EXTENSION_API_VERSION};
use crate::api::package_variant_set::{
    PackageVariantSet, PACKAGE_VARIANT_SET_API_VERSION, PACKAGE_VARIANT_SET_KIND,
};
use crate::api::{check_strict, decode};
use crate::cel::{self, ProgramCache};
use crate::krm::results::{has_errors, ResultItem};
use crate::package_variant_set::expansion;
use crate::package_variant_set::expansion::inputs::scope::MAX_REPORTED;
use errors::{config_error, template_error};
use expansion::conditions;
use expansion::inputs::{self, Item};
use expansion::provenance::{self, Origin, Rendered, Side};
use expansion::record::Records;
use expansion::targets::{self, effective_namespace};
use expansion::templates::{self, RenderError, RenderInput, Renderer, RepositoryIndex};
use expansion::upstreams::{self, ResolvedUpstream};
use expansion::validation::{api_server, validate_package_variant_set};
use specs::Specs;

fn expand_here(config: &Value, items: &[Item]) -> TypedExpansion {
    let api_version = config
        .get("apiVersion")
        .and_then(Value::as_str)
        .unwrap_or("");
    let kind = config.get("kind").and_then(Value::as_str).unwrap_or("");
    let served =
        api_version == PACKAGE_VARIANT_SET_API_VERSION || api_version == EXTENSION_API_VERSION;
    if kind != PACKAGE_VARIANT_SET_KIND || !served {
        return TypedExpansion::failed(vec![ResultItem::error(format!(
            "functionConfig must be a {PACKAGE_VARIANT_SET_API_VERSION} {PACKAGE_VARIANT_SET_KIND}, got apiVersion {api_version:?} kind {kind:?}"
        ))
        .on_config()]);
    }
    let problems = check_strict(config, api_version, kind);
    if !problems.is_empty() {
        return TypedExpansion::failed(problems.into_iter().map(config_error).collect());
    }
    let set: PackageVariantSet = match decode(config, "") {
        Ok(set) => set,
        Err(e) => return TypedExpansion::failed(vec![config_error(e)]),
    };
    let mut results = api_server::metadata(&set);
    results.extend(validate_package_variant_set(&set));
    results.extend(upstreams::check(&set));
    results.extend(api_server::object_selectors(&set));
    let policy = read_policy(config).unwrap_or_else(|e| {
        results.push(*e);
        Default::default()
    });
    let allowance = read_allowance(config).unwrap_or_else(|e| {
        results.push(*e);
        None
    });
    let activation = activation::read(config, &set).unwrap_or_else(|e| {
        results.extend(e);
        Default::default()
    });
    // Every expression is compiled and type-checked before any is evaluated, and its errors
    // are reported with the set's other errors: one run shows every mistake of the set.
    let mut programs = ProgramCache::new();
    results.extend(
        set.spec
            .targets
            .iter()
            .enumerate()
            .filter_map(|(i, target)| target.template.as_ref().map(|t| (i, t)))
            .flat_map(|(i, t)| {
                templates::compile_all(&mut programs, t)
                    .into_iter()
                    .map(move |e| template_error(i, e))
                    .collect::<Vec<_>>()
            }),
    );
    results.extend(conditions::compile_all(&set, &mut programs));
    let mut rollout = rollout::read(&set, &mut programs).unwrap_or_else(|errors| {
        results.extend(errors);
        None
    });
    let extras = readiness::read_extras(set.spec.rollout.as_ref(), rollout.as_mut(), &mut programs);
    results.extend(extras);
    if let Some(r) = rollout.as_mut() {
        r.approved_wave = activation.approved_wave.clone();
    }
    if has_errors(&results) {
        let mut expansion = TypedExpansion::failed(results);
        expansion.cel_compilations = programs.compilations();
        return expansion;
    }
    // Only items it can be sure are of its namespace, one per identity.
    let problems = inputs::scope::check(&set, items);
    if !problems.is_empty() {
        return TypedExpansion::failed(problems);
    }
    let namespace = effective_namespace(&set.metadata.namespace).to_string();
    // Each upstream once: its PackageRevision, a tag's concrete revision.
    let index = match upstreams::revisions::Index::new(items, &namespace) {
        Ok(index) => index,
        Err(errors) => return TypedExpansion::failed(errors),
    };
    let mut resolved: Vec<ResolvedUpstream> =
        match upstreams::resolve_with(&set, items, &namespace, &index) {
            Ok(r) => r,
            Err(errors) => return TypedExpansion::failed(errors),
        };
    let tag_summary = upstreams::summary(&resolved, items);
    let owner = match set.metadata.uid.as_str() {
        "" => set.metadata.name.clone(),
        uid => uid.to_string(),
    };
    // Under `Manual`, each tagged upstream at its active revision, the tag's offered.
    let activation = match activation::apply(
        &activation,
        &set,
        items,
        &index,
        &namespace,
        &owner,
        &mut resolved,
    ) {
        Ok(a) => a,
        Err(errors) => return TypedExpansion::failed(errors),
    };
    if let (Some(r), [u]) = (rollout.as_mut(), resolved.as_slice()) {
        r.target_revision = Some(u.upstream.revision).filter(|&v| v > 0);
    }
    let first_package = resolved.first().map_or("", |u| u.upstream.package.as_str());
    let unrolled = match targets::unroll_targets(&set.spec, first_package, items, &namespace) {
        Ok(c) => c,
        Err(errors) => {
            return TypedExpansion::failed(
                errors
                    .into_iter()
                    .map(|e| ResultItem::error(e.message).field(e.field).on_config())
                    .collect(),
            );
        }
    };
    let unrolled = match upstreams::spread(unrolled, &resolved) {
        Ok(c) => c,
        Err(e) => return TypedExpansion::failed(vec![*e]),
    };

    // Render every downstream; the first error stops the run, as in Porch.
    let repository_items = targets::items_of_kind(
        items,
        targets::REPOSITORY_API_VERSION,
        targets::REPOSITORY_KIND,
        &namespace,
    );
    let repositories = RepositoryIndex::new(
        repository_items
            .iter()
            .filter_map(|&i| items.get(i).copied()),
    );
    let upstream_inputs: Vec<::cel::Value> = resolved
        .iter()
        .map(|u| {
            items
                .get(u.item)
                .and_then(Item::json)
                .map(cel::object_input)
                .unwrap_or(::cel::Value::Null)
        })
        .collect();
    let pinned: Vec<Upstream> = resolved.iter().map(|u| u.upstream.clone()).collect();
    // The targets' `when` conditions (the extension's), before anything is rendered.
    let contexts = match conditions::filter(
        &set,
        unrolled,
        items,
        &mut programs,
        &upstream_inputs,
        &repositories,
    ) {
        Ok(c) => c,
        Err(e) => {
            let mut expansion = TypedExpansion::failed(vec![*e]);
            expansion.cel_compilations = programs.compilations();
            return expansion;
        }
    };
    let mut renderer =
        Renderer::with_upstreams(&mut programs, &pinned, &upstream_inputs, &repositories);
    // What each render produced is recorded (defaults, then values) instead of its spec.
    let mut record = Records::default();
    let mut rendered = Vec::with_capacity(contexts.len());
    for (c, ctx) in contexts.iter().enumerate() {
        let input = RenderInput {
            template: set
                .spec
                .targets
                .get(ctx.target)
                .and_then(|t| t.template.as_ref()),
            repo_default: &ctx.repo_default,
            package_default: &ctx.package_default,
            object: ctx.object.and_then(|i| items.get(i).copied()),
            upstream: ctx.upstream,
        };
        let at = record.len();
        let result = record
            .push(&ctx.repo_default)
            .and_then(|()| record.push(&ctx.package_default))
            .map_err(|_| RenderError {
                field: "template".to_string(),
                message: "the set's downstreams are too large to hold".to_string(),
            })
            .and_then(|()| renderer.record(&input, &mut record));
        match result {
            Ok(downstream) => rendered.push(Rendered {
                target: ctx.target,
                context: c,
                downstream,
                record: at,
                upstream: ctx.upstream,
            }),
            Err(e) => {
                let mut expansion = TypedExpansion::failed(vec![template_error(ctx.target, e)]);
                expansion.cel_compilations = programs.compilations();
                return expansion;
            }
        }
    }
    let cel_compilations = renderer.programs.compilations();
    let failed = |results| TypedExpansion {
        results,
        cel_compilations,
        ..Default::default()
    };

    let problems = provenance::check_downstreams(&set, &contexts, &rendered, items);
    if !problems.is_empty() {
        return failed(problems);
    }
    let describe = |c: usize| match contexts.get(c) {
        Some(ctx) => Origin {
            set: &set,
            ctx,
            items,
        }
        .describe(),
        None => Side::at("spec.targets"),
    };
    let desired = match ensure::collect_desired(&set.metadata.name, rendered, &describe) {
        Ok(d) => d,
        Err(errors) => return failed(errors),
    };
    let owned = ensure::owned_variants(items, &namespace, &owner);
    let plan = ensure::plan(&set.metadata.name, desired, items, &owned);
    let kept_by = (!policy.allows_delete()).then(|| policy.name());
    let clashes = ensure::name_clashes(items, &namespace, &plan, &describe, kept_by);
    if !clashes.is_empty() {
        return failed(clashes);
    }
    let specs = Specs {
        upstreams: resolved
            .iter()
            .map(|u| (u.upstream.clone(), u.tag.clone()))
            .collect(),
        templates: set
            .spec
            .targets
            .iter()
            .map(|t| t.template.clone())
            .collect(),
        record,
    };
    // Every variant it would emit passes the PackageVariant function's own rules; an updated
    // one keeps its name, which must pass too.
    let mut refused = variants::updated_names(&set, &plan, items);
    refused.extend(variants::check(&set, &plan, &|d| specs.of(d), &describe));
    if !refused.is_empty() {
        return failed(refused);
    }
    // The rollout's waves (the extension's), while the render's variables are at hand.
    let waves = match &rollout {
        Some(r) => {
            let inputs = WaveInputs {
                contexts: &contexts,
                items,
                repositories: &repositories,
                upstreams: &upstream_inputs,
            };
            let desired = plan.updates.iter().map(|(_, d)| d).chain(&plan.creates);
            match rollout::waves(r, renderer.programs, desired, &inputs) {
                Ok(w) => w,
                Err(e) => return failed(vec![*e]),
            }
        }
        None => rollout::Waves::default(),
    };
    let explainer = Explainer::new(&set, items, &namespace, &contexts);
    let mut results = plan.warnings;
    results.extend(activation.offers.iter().cloned());
    results.extend(explainer.empty_targets());

    if crate::krm::run::exits_after_run() {
        // Freed by the exit (see `run_and_exit`): ~17,000 CEL maps and contexts on W2.
        std::mem::forget(renderer);
        std::mem::forget(repositories);
        std::mem::forget(contexts);
    }
    let item_name = |i: usize| items.get(i).map_or("", Item::name);
    let mut outcome = preview::Plan {
        policy,
        ..Default::default()
    };
    // The few variants that exist already are compared with their items now; the new ones are
    // rendered again one at a time when they are written. Porch updates every variant still
    // wanted; the plan tells the ones whose spec really changes from the ones left as they were.
    let mut compared = Vec::with_capacity(plan.updates.len());
    let mut unreadable = Vec::new();
    for (i, d) in &plan.updates {
        let spec = match specs.of(d) {
            Ok(spec) => spec,
            Err(e) => return failed(vec![template_error(d.target, e)]),
        };
        let current = items
            .get(*i)
            .and_then(Item::json)
            .and_then(|o| crate::krm::object::json_at(o, "/spec"));
        let mut fields = changed_fields(current, &spec.to_json());
        let upstream_changes = fields.iter().any(|f| f.starts_with("spec.upstream"));
        // Whether it moves to another revision: decided here, once, for every gate and every
        // result. A change of spelling (workspaceName v2 to revision 2) is no upgrade.
        let upgrade = if upstream_changes && (rollout.is_some() || activation.holds(d.upstream)) {
            match current::moves(items, *i, spec.upstream.as_ref(), &index, true) {
                Ok(m) => m,
                Err(e) => {
                    unreadable.push(*e);
                    continue;
                }
            }
        } else {
            upstream_changes
        };
        // Not activated: it keeps its whole spec (and, under a rollout, holds its wave back).
        let pinned = activation.holds(d.upstream) && upgrade;
        if pinned && !(rollout.is_some() && policy.allows_update()) {
            continue;
        }
        // The tag it follows, when its annotation says another (or none).
        let tag = upstreams::tag_edit(items.get(*i), specs.tag(d));
        if tag.is_some() {
            fields.push(upstreams::TAG_FIELD.to_string());
        }
        compared.push((*i, d, spec, fields, tag, pinned, upgrade));
    }
    if !unreadable.is_empty() {
        unreadable.truncate(MAX_REPORTED);
        return failed(unreadable);
    }
    // The variants leaving on the new upstream: readiness and the first wave count them.
    let moving_any = compared.iter().any(|c| c.6) || !plan.creates.is_empty();
    let leaving = match gates::leaving(
        items,
        &index,
        &plan.deletes,
        &specs.upstreams,
        rollout.is_some() && moving_any,
    ) {
        Ok(l) => l,
        Err(errors) => return failed(errors),
    };
    let downstream_of = |i: usize| {
        items
            .get(i)
            .and_then(Item::json)
            .map_or(("", ""), downstream_revisions::downstream_of)
    };
    let read = (plan.updates.iter().map(|(i, d)| (*i, d.downstream())))
        .chain(leaving.iter().map(|&i| (i, downstream_of(i))));
    let downstreams = match Downstreams::read(items, &index, read, rollout.as_ref()) {
        Ok(d) => d,
        Err(errors) => return failed(errors),
    };
    results.extend(downstreams.warning.clone());
    // The gates, in their order (docs/fleet-safety.md): activation (pinned), the sync policy
    // (updates it forbids), readiness, waves and approval, maxUpgrades; the deletion guard and
    // the deletion order below.
    let wanted = compared
        .iter()
        .map(|(i, d, _, fields, _, pinned, upgrade)| {
            (*i, *d, fields.as_slice(), *upgrade, *pinned)
        });
    let others = gates::Others {
        creates: &plan.creates,
        leaving: &leaving,
        deletes: &plan.deletes,
        updates_forbidden: !policy.allows_update(),
        creation_in_waves: rollout.as_ref().is_some_and(|r| r.creation_in_waves),
    };
    let decision = match gates::decide(
        rollout.as_ref(),
        &waves,
        items,
        (&index, &downstreams),
        wanted,
        &others,
    ) {
        Ok(d) => d,
        Err(errors) => return failed(errors),
    };
    if let Some(why) = &decision.stale {
        return failed(vec![ResultItem::error(why.clone())
            .field(sync_policy::annotation_field(
                activation::APPROVED_WAVE_ANNOTATION,
            ))
            .on_config()]);
    }
    // Each upgraded variant records its wave (reverse deletions read it).
    let mut recorded = deletion_order::Recorded::default();
    let idle = decision.text.is_empty() && decision.held.is_empty();
    let deleting = deletion_order::pending(rollout.as_ref(), &plan.deletes);
    results.extend(activation.stale_approval(idle && !deleting));
    let mut updates = Vec::with_capacity(compared.len());
    let mut tag_edits = Vec::new();
    for (i, d, spec, fields, tag, pinned, upgrade) in compared {
        if pinned || decision.holds(i) {
            continue;
        }
        if fields.is_empty() {
            outcome.unchanged.add(|| item_name(i).to_string());
        } else if policy.allows_update() {
            outcome.updated.add(|| with_fields(item_name(i), &fields));
        } else {
            // Kept as it is: not among the updates at all.
            outcome
                .kept_updates
                .add(|| with_fields(item_name(i), &fields));
            continue;
        }
        if let Some(tag) = tag {
            tag_edits.push((i, tag));
        }
        recorded.note(items, i, waves.text(d), upgrade);
        updates.push((i, spec));
    }
    let mut deletes = plan.deletes;
    // Gate 3, the deletion guard, over every deletion the plan intends, whatever the order
    // they go in.
    if policy.allows_delete() {
        let owned = owned.len();
        let guard =
            deletion_guard::refuses(items, owned, &deletes, allowance, &decision, &explainer);
        if let Some(refused) = guard {
            results.extend(refused);
            return failed(results);
        }
    }
    // Reverse deletions: this run's wave only; the others stay.
    let reverse = rollout
        .as_ref()
        .filter(|r| r.reverse_deletions && policy.allows_delete());
    let upgrading = !decision.upgraded.is_empty() || !decision.held.is_empty();
    let deletions = if reverse.is_some() {
        deletion_order::this_run(reverse, items, &mut deletes, upgrading)
    } else if policy.allows_delete() {
        // Gate 5 over the deletions: under pauseAfterWave, none in an unapproved wave.
        rollout::approval::deletions(decision.paused.as_ref(), items, &mut deletes)
    } else {
        Ok(deletion_order::Deletions::default())
    };
    let deletions = match deletions {
        Ok(d) => d,
        Err(e) => return failed(vec![*e]),
    };
    if policy.allows_delete() {
        for &i in &deletes {
            outcome.deleted.add(|| item_name(i).to_string());
            results.extend(explainer.deletion(i, false));
        }
    } else {
        for &i in &deletes {
            outcome.kept_deletes.add(|| item_name(i).to_string());
        }
    }
    // Held by the sync policy: each still has its per-target result.
    let kept_deletes = if policy.allows_delete() {
        Vec::new()
    } else {
        std::mem::take(&mut deletes)
    };
    let held_creates: Vec<(DesiredVariant, rollout::Gate, String)> = (decision.held_creates.iter())
        .zip(&decision.create_reasons)
        .filter_map(|(&k, (gate, why))| {
            plan.creates.get(k).map(|d| (d.clone(), *gate, why.clone()))
        })
        .collect();
    let creates = decision.created(plan.creates);
    for d in &creates {
        outcome.created.add(|| d.name().to_string());
    }
    let mut summary = outcome.summary(&set.metadata.name, &namespace, items);
    summary.message.push_str(&decision.text);
    summary.message.push_str(&deletions.text);
    summary.message.push_str(&downstreams.text);
    if let Some(r) = &rollout {
        let moved = !creates.is_empty() || !deletes.is_empty() || !decision.upgraded.is_empty();
        let complete = || report::complete(plan.updates.len(), &specs);
        summary = report::rollout_state(summary, r, &decision, &deletions, moved, complete);
    }
    summary.message.push_str(&tag_summary);
    results.push(summary);
    if rollout.is_some() {
        results.extend(per_target::results(per_target::Run {
            items,
            namespace: &namespace,
            upstreams: &specs.upstreams,
            creates: &creates,
            held_creates: &held_creates,
            existing: &plan.updates,
            upgraded: recorded.upgraded,
            decision: &decision,
            deleted: &deletes,
            deletion_held: &deletions.held,
            kept_deletes: &kept_deletes,
            waves: &waves,
            api_version_of: &|d| specs.of(d).ok().map(|s| s.api_version()),
        }));
    }
    TypedExpansion {
        results,
        updates,
        tag_edits,
        wave_edits: recorded.edits,
        deletes,
        creates,
        cel_compilations,
        reset_status: decision.upgraded,
        owner: OwnerInfo {
            namespace,
            owner,
            set_api_version: set.api_version,
            set_kind: set.kind,
            set_name: set.metadata.name,
            set_uid: set.metadata.uid,
        },
        specs,
        waves,
    }
}

mod deletion_guard;
mod errors;
mod gates;
mod report;
mod specs;
mod thread;
pub(super) use specs::OwnerInfo;
pub use specs::{Expansion, TypedExpansion};
pub use thread::{expand, expand_typed};

#[cfg(test)]
mod tests;
