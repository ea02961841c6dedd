//! Reconciliation: the desired set (`super::expansion`) against the PackageVariants that
//! exist, as the design's set-based reconciliation does (create, update, delete), and the
//! policies that hold changes back.
//!
//! - [`decision`]: the whole loop (validate, upstream, unroll, render, ensure), all or nothing;
//! - [`ensure`]: the set operations between desired and existing PackageVariants;
//! - [`variants`]: every variant the set would emit, against the PackageVariant function's rules;
//! - [`sync_policy`]: which changes a run may make (sync policy, deletion guard);
//! - [`rollout`]: the extension's upgrades in waves;
//! - [`downstream_revisions`]: the render state of the variants' downstream PackageRevisions
//!   (a failed render blocks `requireReady` and shows in the summary);
//! - [`readiness`]: the extension's `readyExpr`, readiness the set's author defines;
//! - [`render_state`]: the render state of v1alpha1 downstreams, from their Kptfile;
//! - [`deletion_order`]: the extension's deletions in reverse waves;
//! - [`per_target`]: one result per variant the run creates, upgrades, holds or deletes;
//! - [`activation`]: the extension's manual activation of a tag's revision;
//! - [`fleet_conditions`]: the one reader of `status.conditions` (variants, revisions, Kptfiles);
//! - [`explain`]: why a target selects nothing and why a variant is deleted (warnings);
//! - [`preview`]: the summary result, written as a plan;
//! - [`group`]: a group of names in a summary, shown up to a limit and counted past it;
//! - [`new_variant`]: the PackageVariant objects it writes.
//!
//! The rollout is decided as one plan (issue 48; docs/fleet-safety.md, "The gates, in
//! order"). `decision::expand_here` reads the fleet state once ([`fleet_conditions`],
//! [`activation::current`] for revisions, [`deletion_order::recorded_wave`] for waves), decides
//! for every wanted variant once whether it is an upgrade, then the gates judge the whole plan
//! in this order, each where it lives:
//!
//! 1. activation ([`activation`]): an upgrade to a revision not activated is pinned;
//! 2. sync policy ([`sync_policy`]): the updates and deletions it forbids (`updates_forbidden`
//!    in [`rollout::decide`]; no other gate is switched off);
//! 3. deletion guard ([`sync_policy::refusal`]): every deletion the plan intends, before any
//!    order cuts it; with the rule across runs ([`sync_policy::retiring`]); applied to the
//!    plan in `decision/deletion_guard.rs`;
//! 4. readiness ([`readiness`], [`rollout::ready`], [`downstream_revisions`], [`render_state`]):
//!    every variant on the new upstream, leaving ones included ([`rollout::Leaving`]);
//! 5. waves and approval ([`rollout::decide`], [`rollout::approval`], each variant's wave in
//!    [`rollout::waves`], one order of waves in [`rollout::wave_order`]; under `AllAtOnce`
//!    the deletions in [`rollout::approval::deletions`]);
//! 6. `maxUpgrades` ([`rollout::max_upgrades`]);
//! 7. deletion order ([`deletion_order`]).
//!
//! Then the cut to this run's slice, and the report ([`preview`], [`per_target`]), each held
//! entry with the first gate that holds it ([`rollout::Gate`]).

pub mod activation;
pub mod decision;
pub mod deletion_order;
pub mod downstream_revisions;
pub mod ensure;
pub mod explain;
pub mod fleet_conditions;
pub mod group;
pub mod new_variant;
pub mod per_target;
pub mod preview;
pub mod readiness;
pub mod render_state;
pub mod rollout;
pub mod sync_policy;
pub mod variants;
