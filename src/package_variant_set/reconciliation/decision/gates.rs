//! The existing variants as the rollout's gates see them: whether each moves to another
//! revision is decided once, by the caller (`activation::current`, whatever the spelling of
//! `spec.upstream`), and under `requireReady` the numbers its readiness is read from are
//! integers. A doubt stops the run (a doubt never licenses an upgrade).

use super::super::activation::current;
use super::super::deletion_order;
use super::super::downstream_revisions::Downstreams;
use super::super::ensure::DesiredVariant;
use super::super::readiness::Readiness;
use super::super::rollout::{self, Decision, Leaving, Pending, Rollout, Waves};
use crate::api::package_variant::Upstream;
use crate::cel::IntOrString;
use crate::krm::results::ResultItem;
use crate::package_variant_set::expansion::inputs::scope::MAX_REPORTED;
use crate::package_variant_set::expansion::inputs::Item;
use crate::package_variant_set::expansion::targets::str_at;
use crate::package_variant_set::expansion::upstreams::revisions::Index;

/// One existing variant the set still wants: its item index, what the set wants of it, the
/// spec fields that change, whether it moves to another revision (an upgrade, decided once),
/// and whether the activation pins it (its upgrade waits whatever the rollout says).
pub(super) type Wanted<'a, 'b> = (usize, &'a DesiredVariant, &'b [String], bool, bool);

/// What the gates read besides the variants: the plan's creations, the deletions it intends,
/// the sync policy's word on updates and the creation order.
pub(super) struct Others<'a, 'b> {
    pub(super) creates: &'a [DesiredVariant],
    /// Item indexes of the owned variants the set no longer wants that are on the new
    /// upstream ([`leaving`]).
    pub(super) leaving: &'b [usize],
    /// Item indexes of every deletion the plan intends (under `pauseAfterWave` their waves
    /// count for the first wave).
    pub(super) deletes: &'b [usize],
    pub(super) updates_forbidden: bool,
    pub(super) creation_in_waves: bool,
}

/// The owned variants of `deletes` that are on one of the set's `upstreams` (a revision it
/// wants): they count for readiness and for the first wave. Read only while the rollout has
/// something to move (`needed`); a revision that cannot be told is then an error naming the
/// variant and the field.
pub(super) fn leaving(
    items: &[Item],
    index: &Index,
    deletes: &[usize],
    upstreams: &[(Upstream, Option<String>)],
    needed: bool,
) -> Result<Vec<usize>, Vec<ResultItem>> {
    if !needed {
        return Ok(Vec::new());
    }
    let (mut out, mut errors) = (Vec::new(), Vec::new());
    let wanted: Vec<(&str, &str, Option<i64>)> = upstreams
        .iter()
        .map(|(u, _)| {
            (
                u.repo.as_str(),
                u.package.as_str(),
                current::wanted_revision(u, index),
            )
        })
        .collect();
    for &i in deletes {
        let Some(v) = items.get(i).and_then(Item::json) else {
            continue;
        };
        let package = (
            str_at(v, "/spec/upstream/repo"),
            str_at(v, "/spec/upstream/package"),
        );
        if !wanted.iter().any(|w| (w.0, w.1) == package) {
            continue;
        }
        match current::on_revision(v, i, index) {
            Ok(on) => {
                if wanted
                    .iter()
                    .any(|w| (w.0, w.1) == (on.repo, on.package) && w.2 == Some(on.revision))
                {
                    out.push(i);
                }
            }
            Err(e) => errors.push(*e),
        }
    }
    if errors.is_empty() {
        Ok(out)
    } else {
        errors.truncate(MAX_REPORTED);
        Err(errors)
    }
}

/// What the rollout lets this run do ([`rollout::decide`]) with the existing variants
/// `wanted`, the new ones and the ones leaving on the new upstream, read with the upstream
/// revisions and the downstream ones; or the errors of the variants whose readiness or wave
/// cannot be read (at most [`MAX_REPORTED`]).
pub(super) fn decide<'a, 'b>(
    rollout: Option<&Rollout>,
    waves: &Waves,
    items: &[Item<'a>],
    (index, downstreams): (&Index, &Downstreams),
    wanted: impl Iterator<Item = Wanted<'a, 'b>>,
    others: &Others<'a, '_>,
) -> Result<Decision, Vec<ResultItem>> {
    let Some(rollout) = rollout else {
        return Ok(Decision::default());
    };
    let (mut members, mut refused, mut pinned) = (Vec::new(), Vec::new(), Vec::new());
    let readiness = Readiness::of(Some(rollout));
    for (i, d, fields, upgrade, pins) in wanted {
        if pins {
            pinned.push(i);
        }
        let mut m = downstreams.member(items, index, readiness.as_ref(), i, d, fields);
        m.upgrade = upgrade;
        if rollout.require_ready {
            refused.extend(unreadable_numbers(items, i));
        }
        members.push(m);
    }
    let mut leaving = Vec::with_capacity(others.leaving.len());
    for &i in others.leaving {
        let wave = match deletion_order::recorded_wave(items, i) {
            Ok(w) => w.map(IntOrString::String),
            Err(e) => {
                refused.push(*e);
                None
            }
        };
        if rollout.require_ready {
            refused.extend(unreadable_numbers(items, i));
        }
        let (ready, reason) = downstreams.readiness(items, index, readiness.as_ref(), i);
        leaving.push(Leaving {
            item: i,
            name: items.get(i).map_or("", Item::name),
            wave,
            ready,
            reason,
        });
    }
    // Under pauseAfterWave the first wave is the lowest of every entry, the deletions too:
    // retiring the canary does not make the next wave the first one.
    let mut deleting = Vec::new();
    if rollout.pause_after_wave {
        for &i in others.deletes {
            match deletion_order::recorded_wave(items, i) {
                Ok(w) => deleting.extend(w.map(IntOrString::String)),
                Err(e) => refused.push(*e),
            }
        }
    }
    if !refused.is_empty() {
        refused.truncate(MAX_REPORTED);
        return Err(refused);
    }
    pinned.sort_unstable();
    let pending = Pending {
        pinned,
        creates: others.creates,
        leaving,
        deleting,
        updates_forbidden: others.updates_forbidden,
        creation_in_waves: others.creation_in_waves,
    };
    Ok(rollout::decide(rollout, waves, members, &pending))
}

/// Under `requireReady`, the error of a variant whose observedGeneration or revision numbers
/// cannot be read ([`rollout::check_numbers`]): readiness stays shut on it.
fn unreadable_numbers(items: &[Item<'_>], i: usize) -> Option<ResultItem> {
    match items
        .get(i)
        .and_then(Item::json)
        .map(|v| rollout::check_numbers(v, i))
    {
        Some(Err(e)) => Some(*e),
        _ => None,
    }
}
