//! The existing variants as the rollout's gates see them: an upgrade is a move to another
//! revision whatever the spelling of `spec.upstream` (`activation::current`), and under
//! `requireReady` the numbers its readiness is read from are integers. Either doubt stops the
//! run (a doubt never licenses an upgrade).

use super::super::activation::current;
use super::super::downstream_revisions::Downstreams;
use super::super::ensure::DesiredVariant;
use super::super::readiness::Readiness;
use super::super::rollout::{self, Decision, Pending, Rollout, Waves};
use crate::api::package_variant::Upstream;
use crate::krm::results::ResultItem;
use crate::package_variant_set::expansion::inputs::scope::MAX_REPORTED;
use crate::package_variant_set::expansion::inputs::Item;
use crate::package_variant_set::expansion::upstreams::revisions::Index;

/// One existing variant the set still wants: its item index, what the set wants of it, the
/// `spec.upstream` it would get, the spec fields that change, and whether the activation pins
/// it (its upgrade waits whatever the rollout says).
pub(super) type Wanted<'a, 'b> = (
    usize,
    &'a DesiredVariant,
    Option<&'b Upstream>,
    &'b [String],
    bool,
);

/// What the rollout (when it may update) lets this run do ([`rollout::decide`]) with the
/// existing variants `wanted` and the new ones `creates`, read with the upstream revisions and
/// the downstream ones; or the errors of the variants whose revision or readiness cannot be
/// read (at most [`MAX_REPORTED`]).
pub(super) fn decide<'a, 'b>(
    rollout: Option<&Rollout>,
    waves: &Waves,
    items: &[Item<'a>],
    (index, downstreams): (&Index, &Downstreams),
    wanted: impl Iterator<Item = Wanted<'a, 'b>>,
    creates: &[DesiredVariant],
) -> Result<Decision, Vec<ResultItem>> {
    let Some(rollout) = rollout else {
        return Ok(Decision::default());
    };
    let (mut members, mut refused, mut pinned) = (Vec::new(), Vec::new(), Vec::new());
    let readiness = Readiness::of(Some(rollout));
    for (i, d, upstream, fields, pins) in wanted {
        if pins {
            pinned.push(i);
        }
        let mut m = downstreams.member(items, index, readiness.as_ref(), i, d, fields);
        match current::moves(items, i, upstream, index, m.upgrade) {
            Ok(upgrade) => m.upgrade = upgrade,
            Err(e) => refused.push(*e),
        }
        if rollout.require_ready {
            if let Some(Err(e)) = items
                .get(i)
                .and_then(Item::json)
                .map(|v| rollout::check_numbers(v, i))
            {
                refused.push(*e);
            }
        }
        members.push(m);
    }
    if !refused.is_empty() {
        refused.truncate(MAX_REPORTED);
        return Err(refused);
    }
    pinned.sort_unstable();
    let pending = Pending { pinned, creates };
    Ok(rollout::decide(rollout, waves, members, &pending))
}
