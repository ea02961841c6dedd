//! `spec.rollout` (extension): a change of the upstream reaches the variants that already
//! exist in waves, a few per run, instead of all at once.
//!
//! Why: Porch updates every variant of a set when its upstream moves, so one bad blueprint
//! revision reaches the whole fleet in one reconciliation. Here, when a run would change the
//! `spec.upstream` of existing variants (an *upgrade*), it upgrades only some of them:
//!
//! - a *wave* is the group of variants whose `waveExpr` has one value (an int or a string,
//!   evaluated per variant with the template's variables; without `waveExpr`, one wave);
//! - a run upgrades variants of one wave only: the lowest wave that still has variants to
//!   upgrade (so a wave starts only once every earlier wave is on the new upstream), at most
//!   `maxUpgrades` of them (an integer, or a percentage of the existing variants rounded up),
//!   in name order; the others *wait*, keeping their whole current spec;
//! - with `requireReady`, no variant is upgraded or created while a variant already on the
//!   new upstream (one the set wants, or one it is deleting) does not report `Ready` `True` in
//!   its `status.conditions`, or its downstream PackageRevision is not ready
//!   ([`super::downstream_revisions`]): it is *blocking*;
//! - while an upgrade is under way (or always, under `creationOrder: Waves`), a new target
//!   belongs to its wave: it is created (at the new upstream) once its wave may move, and its
//!   creation waits otherwise ([`decide`]); deletions go by [`super::deletion_order`];
//! - with `pauseAfterWave`, a wave after the first waits for a person's approval
//!   ([`approval`]), and while an upgrade is under way its deletions wait with it.
//!
//! A variant the run upgrades is written without its `status`: that status described the old
//! spec, and read back by the next run it would look Ready before the controller saw the new
//! one. Run after run, the fleet moves wave by wave and then stops changing.

pub mod approval;
pub mod gate;
pub mod max_upgrades;
pub mod ready;
pub mod recorded_wave;
pub mod wave_order;
pub mod waves;

pub use gate::{Deletions, Gate, Phase, HELD_CREATE};
use max_upgrades::max_upgrades;
pub use max_upgrades::MaxUpgrades;
pub use ready::{check_numbers, is_ready};
use wave_order::Wave;
use waves::wave_text;
pub use waves::{waves, WaveInputs, Waves};

use std::cmp::Ordering;
use std::sync::Arc;

use super::preview::Group;
use crate::api::package_variant_set::PackageVariantSet;
use crate::cel::{IntOrString, Program, ProgramCache};
use crate::krm::results::ResultItem;
use crate::package_variant_set::reconciliation::ensure::DesiredVariant;

pub(super) const FIELD: &str = "spec.rollout";

/// The set's rollout, read and checked.
#[derive(Debug, Clone)]
pub struct Rollout {
    /// `None`: the whole wave in one run.
    pub max_upgrades: Option<MaxUpgrades>,
    pub wave_expr: Option<Arc<Program>>,
    pub require_ready: bool,
    /// A wave after the first waits for the `approved-wave` annotation.
    pub pause_after_wave: bool,
    /// The `approved-wave` annotation's value (set by the expansion).
    pub approved_wave: Option<String>,
    /// `readyExpr`, checked to give a bool (set by the expansion, from `readiness`).
    pub ready_expr: Option<Arc<Program>>,
    /// `deletionOrder: Reverse` (set by the expansion, from `deletion_order`).
    pub reverse_deletions: bool,
    /// `creationOrder: Waves`: new variants follow the waves and the gates even with no
    /// upgrade under way (a first rollout).
    pub creation_in_waves: bool,
    /// The revision the set's upstream names, when it has one upstream (set by the
    /// expansion): a keyed approval (`"W@R"`) counts only for the rollout to R.
    pub target_revision: Option<i64>,
}

/// Reads `spec.rollout`, compiling `waveExpr` with the run's other expressions. Every problem
/// is an error on its field; `Ok(None)` without a rollout.
pub fn read(
    set: &PackageVariantSet,
    programs: &mut ProgramCache,
) -> Result<Option<Rollout>, Vec<ResultItem>> {
    let Some(spec) = &set.spec.rollout else {
        return Ok(None);
    };
    let mut errors = Vec::new();
    let error = |field: &str, message: String| {
        ResultItem::error(message)
            .field(format!("{FIELD}{field}"))
            .on_config()
    };
    if spec.max_upgrades.is_none()
        && spec.wave_expr.is_none()
        && spec.require_ready.is_none()
        && spec.pause_after_wave.is_none()
        && spec.ready_expr.is_none()
        && spec.deletion_order.is_none()
        && spec.creation_order.is_none()
    {
        errors.push(error(
            "",
            "is empty: give maxUpgrades (e.g. \"25%\"), waveExpr (e.g. int(target.labels['wave'])), requireReady: true, readyExpr or deletionOrder: Reverse, or remove rollout".into(),
        ));
    }
    let max_upgrades = match spec.max_upgrades.as_ref().map(max_upgrades) {
        Some(Err(message)) => {
            errors.push(error(".maxUpgrades", message));
            None
        }
        Some(Ok(m)) => Some(m),
        None => None,
    };
    let mut wave_expr = None;
    if let Some(source) = &spec.wave_expr {
        let problem = if source.trim().is_empty() {
            "is empty: write a CEL expression giving each target's wave as an int or a string (e.g. int(target.labels['wave'])), or remove waveExpr".to_string()
        } else {
            match programs.compile(source) {
                Err(e) => e,
                Ok(p) if !p.may_be_int_or_string() => format!(
                    "must give an int or a string (the target's wave), but {source:?} is of type {}; e.g. int(target.labels['wave']) or target.labels['wave']",
                    p.output_type()
                ),
                Ok(p) => {
                    wave_expr = Some(p);
                    String::new()
                }
            }
        };
        if !problem.is_empty() {
            errors.push(error(".waveExpr", problem));
        }
    }
    match spec.creation_order.as_deref() {
        None | Some("AllAtOnce") => {}
        Some("Waves") if spec.wave_expr.is_none() => errors.push(error(
            ".creationOrder",
            "creates in waves, but without waveExpr the fleet is one wave: add waveExpr (e.g. int(target.labels['wave'])), or remove creationOrder".into(),
        )),
        Some("Waves") => {}
        Some(other) => errors.push(error(
            ".creationOrder",
            format!("is {other:?}: write Waves (new variants follow the waves and the gates, a first rollout included) or AllAtOnce (the default: new targets are created at once unless an upgrade is under way)"),
        )),
    }
    let pause_after_wave = spec.pause_after_wave.unwrap_or(false);
    if pause_after_wave && spec.wave_expr.is_none() {
        errors.push(error(
            ".pauseAfterWave",
            "pauses after each wave, but without waveExpr the fleet is one wave: add waveExpr (e.g. int(target.labels['wave'])), or remove pauseAfterWave".into(),
        ));
    }
    if !errors.is_empty() {
        return Err(errors);
    }
    Ok(Some(Rollout {
        max_upgrades,
        wave_expr,
        require_ready: spec.require_ready.unwrap_or(false),
        pause_after_wave,
        approved_wave: None,
        ready_expr: None,
        reverse_deletions: false,
        creation_in_waves: spec.creation_order.as_deref() == Some("Waves"),
        target_revision: None,
    }))
}

/// One existing variant the set still wants.
#[derive(Debug)]
pub struct Member<'a> {
    /// Its item index.
    pub item: usize,
    pub name: &'a str,
    /// Its `spec.upstream` would change: an upgrade.
    pub upgrade: bool,
    pub ready: bool,
    /// Why it is not ready (for its own result), or empty.
    pub reason: String,
    pub desired: &'a DesiredVariant,
}

/// What the rollout lets this run do.
#[derive(Debug, Default)]
pub struct Decision {
    /// Item indexes of the variants upgraded now, sorted.
    pub upgraded: Vec<usize>,
    /// Item indexes of the variants that keep their current spec, sorted.
    pub held: Vec<usize>,
    /// Indexes (in the plan's creates, sorted) of the new variants not created this run: their
    /// wave may not move yet.
    pub held_creates: Vec<usize>,
    /// What the summary says, `; rollout ...`, or empty when nothing is to upgrade.
    pub text: String,
    /// (item index, why) of each blocking variant, in (wave, name) order.
    pub blocking: Vec<(usize, String)>,
    /// (item index, the gate that holds it, why) of each held variant, in (wave, name) order.
    pub waiting: Vec<(usize, Gate, String)>,
    /// (item index, why) of each variant leaving on the new upstream that is not ready.
    pub leaving_blocking: Vec<(usize, String)>,
    /// The gate that holds each new variant of `held_creates`, and why, in its order.
    pub create_reasons: Vec<(Gate, String)>,
    /// Where the rollout stands (meaningful when `text` is not empty).
    pub phase: Phase,
    /// Why the set's `approved-wave` cannot count for this rollout (an error on it).
    pub stale: Option<String>,
    /// Item indexes of the members whose upgrade the sync policy forbids (gate 2: they keep
    /// their spec, and the summary's kept group names them).
    pub kept: Vec<usize>,
    /// Under `pauseAfterWave` while the rollout is under way: the waves that may change in
    /// this run, which also hold the deletions ([`approval::deletions`]).
    pub paused: Option<Paused>,
}

/// The waves a paused rollout lets change in this run: the first wave of the plan and the
/// ones the approval covers.
#[derive(Debug, Clone)]
pub struct Paused {
    pub first: Option<IntOrString>,
    /// The approval that counts for this rollout ([`approval::for_rollout`]).
    pub approved: Option<String>,
}

impl Paused {
    /// Whether a change in `wave` waits for approval; a variant without a wave (`None`)
    /// waits: a doubt never opens the gate.
    pub fn holds(&self, wave: Option<&IntOrString>) -> bool {
        let Some(w) = wave else {
            return true;
        };
        let first = self
            .first
            .as_ref()
            .is_some_and(|f| wave_order::compare(w, f) != Ordering::Greater);
        !first && !approval::covers(self.approved.as_deref(), w)
    }
}

impl Decision {
    pub fn holds(&self, item: usize) -> bool {
        self.held.binary_search(&item).is_ok()
    }

    /// The plan's `creates` without the ones whose creation waits.
    pub fn created(&self, mut creates: Vec<DesiredVariant>) -> Vec<DesiredVariant> {
        let mut k = 0;
        creates.retain(|_| {
            k += 1;
            self.held_creates.binary_search(&(k - 1)).is_err()
        });
        creates
    }
}

/// A variant the set no longer wants that is on the new upstream: it proves (or disproves) the
/// new revision as much as a member does, so readiness and the first wave count it.
#[derive(Debug)]
pub struct Leaving<'a> {
    /// Its item index.
    pub item: usize,
    pub name: &'a str,
    /// Its `wave` annotation, read back ([`recorded_wave::ANNOTATION`]).
    pub wave: Option<IntOrString>,
    pub ready: bool,
    /// Why it is not ready, or empty.
    pub reason: String,
}

/// What a run could move to the new upstream, besides the upgrades of `members`.
#[derive(Debug, Default)]
pub struct Pending<'a> {
    /// Item indexes (sorted) of members whose upgrade waits whatever the rollout says (the
    /// revision is not activated): they still hold their wave back.
    pub pinned: Vec<usize>,
    /// The variants the run would create, in the plan's order: each belongs to its wave.
    pub creates: &'a [DesiredVariant],
    /// The variants the plan deletes (or the sync policy keeps) that are on the new upstream.
    pub leaving: Vec<Leaving<'a>>,
    /// Under `pauseAfterWave`, the recorded wave of every variant the plan deletes: the first
    /// wave is the lowest of every entry.
    pub deleting: Vec<IntOrString>,
    /// The sync policy forbids updates: no upgrade is made, none is pending (the sync policy
    /// holds them), and the other gates still hold the creations.
    pub updates_forbidden: bool,
    /// `spec.rollout.creationOrder: Waves`: new variants follow the waves even when no
    /// upgrade is under way (a first rollout).
    pub creation_in_waves: bool,
}

/// The wave of `d`, in the one order of waves.
fn wave_of<'w>(waves: &'w Waves, d: &DesiredVariant) -> Option<Wave<'w>> {
    waves.of(d).map(Wave)
}

/// Which upgrades and creations this run makes, as the gates decide them in their order:
/// the sync policy (it forbids upgrades, nothing else), readiness, waves and approval, then
/// `maxUpgrades`. A sort of the members by (wave, name) and one of the waves; everything else
/// is linear.
///
/// While an upgrade is under way (a member to upgrade), or always under
/// `creationOrder: Waves`, every wanted variant, existing or new, belongs to its wave: the
/// first wave is the lowest of them all (and of the variants leaving on the new upstream),
/// and the run moves the lowest wave that has an upgrade or a creation. Its new variants are
/// created, and its upgrades made, when that wave may move (approved, nothing blocking); the
/// new variants of later waves wait with their wave, so that no gate opens through a new
/// member. Under `requireReady`, a variant on the new upstream that is not Ready (a member, or
/// one leaving) holds every upgrade and every creation, whether or not an upgrade is left
/// (issue 48, items 2, 3 and 7).
pub fn decide(
    rollout: &Rollout,
    waves: &Waves,
    mut members: Vec<Member<'_>>,
    pending: &Pending<'_>,
) -> Decision {
    // Gate 2, the sync policy: an upgrade it forbids is neither made nor pending.
    let upgrading = |m: &Member| m.upgrade && !pending.updates_forbidden;
    let on_new = |m: &Member| !m.upgrade;
    let any_upgrade = members.iter().any(upgrading);
    // Gate 4, readiness: every variant on the new upstream among the items.
    let blocked = rollout.require_ready
        && (members.iter().any(|m| on_new(m) && !m.ready)
            || pending.leaving.iter().any(|l| !l.ready));
    let creating = !pending.creates.is_empty();
    let in_waves = pending.creation_in_waves && creating;
    // Gate 2 holds the upgrades it forbids, whatever the others say.
    let kept: Vec<usize> = (members.iter())
        .filter(|m| m.upgrade && pending.updates_forbidden)
        .map(|m| m.item)
        .collect();
    if !(any_upgrade || in_waves || (blocked && creating)) {
        return Decision {
            kept,
            ..Decision::default()
        };
    }
    let order = |a: &Member, b: &Member| -> Ordering {
        wave_of(waves, a.desired)
            .cmp(&wave_of(waves, b.desired))
            .then_with(|| a.name.cmp(b.name))
    };
    members.sort_unstable_by(order);
    let pinned = |m: &Member| pending.pinned.binary_search(&m.item).is_ok();
    let new_waves = || pending.creates.iter().map(|d| wave_of(waves, d));
    let leaving_waves = || pending.leaving.iter().map(|l| l.wave.as_ref().map(Wave));
    // Waves compare as `Option`s, as the members are sorted (without waveExpr, all `None`).
    let current = members
        .iter()
        .filter(|m| upgrading(m))
        .map(|m| wave_of(waves, m.desired))
        .chain(new_waves())
        .min()
        .flatten();
    let first = members
        .iter()
        .map(|m| wave_of(waves, m.desired))
        .chain(new_waves())
        .chain(leaving_waves().filter(Option::is_some))
        .chain(pending.deleting.iter().map(|w| Some(Wave(w))))
        .min()
        .flatten();
    let (mut upgraded, mut waiting, mut blocking, mut uncreated) = (
        Group::default(),
        Group::default(),
        Group::default(),
        Group::default(),
    );
    let mut decision = Decision {
        kept,
        ..Decision::default()
    };
    // Gate 5, waves and approval: a wave after the first (of every entry) waits for its
    // approval.
    let approved = approval::for_rollout(rollout.approved_wave.as_deref(), rollout.target_revision);
    let unapproved = current.filter(|wave| {
        rollout.pause_after_wave && first != Some(*wave) && !approval::covers(approved, wave.0)
    });
    decision.stale = approval::stale(rollout, first, any_upgrade && current == first);
    if rollout.pause_after_wave && (any_upgrade || in_waves) {
        decision.paused = Some(Paused {
            first: first.map(|w| w.0.clone()),
            approved: approved.map(str::to_string),
        });
    }
    let moves = !blocked && unapproved.is_none();
    // Gate 6, maxUpgrades.
    let limit = rollout
        .max_upgrades
        .map_or(usize::MAX, |m| m.limit(members.len()));
    // The waves in order (of every member, new ones included), and where the current one is.
    let mut all: Vec<Option<Wave>> = members
        .iter()
        .map(|m| wave_of(waves, m.desired))
        .chain(new_waves())
        .collect();
    all.sort_unstable();
    all.dedup();
    let count = all.len();
    let position = all.iter().position(|w| *w == current).map_or(0, |p| p + 1);
    let blocked_why = "requireReady: a variant on the new upstream is blocking";
    let approval_why = |w: Wave| {
        format!(
            "wave {} waits for approval ({}: \"{}\")",
            wave_text(w.0),
            approval::ANNOTATION,
            approval::value(w.0)
        )
    };
    for m in &members {
        let wave = wave_of(waves, m.desired);
        if !m.upgrade {
            if rollout.require_ready && !m.ready {
                blocking.add(|| m.name.to_string());
                decision.blocking.push((m.item, m.reason.clone()));
            }
            continue;
        }
        if !upgrading(m) {
            // Kept by the sync policy, which says so in the summary.
            continue;
        }
        if moves && !pinned(m) && wave == current && upgraded.len() < limit {
            upgraded.add(|| m.name.to_string());
            decision.upgraded.push(m.item);
        } else {
            waiting.add(|| m.name.to_string());
            decision.held.push(m.item);
            // The first gate in the order that holds it gives the reason.
            let why = if pinned(m) {
                (
                    Gate::Activation,
                    "the revision it would move to is not activated".to_string(),
                )
            } else if blocked {
                (Gate::Readiness, blocked_why.to_string())
            } else if let Some(w) = unapproved {
                (Gate::Approval, approval_why(w))
            } else if wave != current {
                (Gate::Waves, "a later wave".to_string())
            } else {
                (
                    Gate::MaxUpgrades,
                    "maxUpgrades: the run's limit is reached".to_string(),
                )
            };
            decision.waiting.push((m.item, why.0, why.1));
        }
    }
    for l in pending.leaving.iter().filter(|l| !l.ready) {
        if rollout.require_ready {
            blocking.add(|| format!("{} (being deleted)", l.name));
            decision.leaving_blocking.push((l.item, l.reason.clone()));
        }
    }
    for (k, d) in pending.creates.iter().enumerate() {
        let wave = wave_of(waves, d);
        let later = wave > current;
        if later || !moves {
            uncreated.add(|| d.name().to_string());
            decision.held_creates.push(k);
            let why = if blocked {
                (Gate::Readiness, blocked_why.to_string())
            } else if let Some(w) = unapproved.filter(|_| !later) {
                (Gate::Approval, approval_why(w))
            } else {
                (Gate::Waves, HELD_CREATE.to_string())
            };
            decision.create_reasons.push(why);
        }
    }
    decision.upgraded.sort_unstable();
    decision.held.sort_unstable();
    let mut text = String::from("; rollout of the new upstream: ");
    if let Some(wave) = current {
        text.push_str(&format!(
            "wave {} ({position} of {count}{}): ",
            wave_text(wave.0),
            rollout.max_upgrades.map_or(String::new(), |m| format!(
                ", maxUpgrades {}: {} per run",
                m.text(),
                m.limit(members.len())
            ))
        ));
    } else if let Some(m) = rollout.max_upgrades {
        text.push_str(&format!(
            "maxUpgrades {}: {} per run: ",
            m.text(),
            m.limit(members.len())
        ));
    }
    text.push_str(&format!(
        "{} upgraded{}, {} waiting{}",
        upgraded.len(),
        upgraded.listed(),
        waiting.len(),
        waiting.listed()
    ));
    if !uncreated.is_empty() {
        text.push_str(&format!(
            ", {} waiting to be created{}: a new variant starts with its wave",
            uncreated.len(),
            uncreated.listed()
        ));
    }
    if !blocking.is_empty() {
        text.push_str(&format!(
            ", {} blocking{}: requireReady waits until each variant already on the new upstream {}, and its downstream, when given (a porch.kpt.dev/v1alpha2 PackageRevision, or the Kptfile in a v1alpha1 PackageRevisionResources), reports Rendered (and Ready) True or not at all",
            blocking.len(),
            blocking.listed(),
            match &rollout.ready_expr {
                Some(_) => format!("makes readyExpr ({FIELD}.readyExpr) true"),
                None => "reports Ready True in status.conditions, for its current generation and in one condition of type Ready (more than one is read as not Ready)".into(),
            }
        ));
    }
    if let Some(wave) = unapproved.filter(|_| !blocked) {
        text.push_str(&format!(
            ", wave {} waits for approval: pauseAfterWave holds it until the set is annotated {}: \"{}\"",
            wave_text(wave.0),
            approval::ANNOTATION,
            approval::value(wave.0)
        ));
    }
    decision.text = text;
    decision.phase = if blocked {
        Phase::Blocked
    } else if unapproved.is_some() {
        Phase::AwaitingApproval
    } else {
        Phase::Progressing
    };
    decision
}

#[cfg(test)]
mod tests;
