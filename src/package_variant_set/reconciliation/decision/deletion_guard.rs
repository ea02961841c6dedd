//! Gate 3, the deletion guard, over every deletion the plan intends (before any order cuts
//! them), with its rule across runs. Its own file so that the gate reads in one place; its
//! numbers and messages are the sync policy's ([`sync_policy`]).

use super::super::explain::Explainer;
use super::super::group::Group;
use super::super::rollout::Decision;
use super::super::sync_policy::{self, Allowance};
use crate::krm::results::ResultItem;
use crate::package_variant_set::expansion::inputs::Item;

/// What the guard refuses of the plan's `deletes` (item indexes, among `owned` owned
/// variants): the results to add before the run fails, the warnings first (they say what
/// happens), or `None` when the deletions may go.
pub(super) fn refuses(
    items: &[Item],
    owned: usize,
    deletes: &[usize],
    allowance: Option<Allowance>,
    decision: &Decision,
    explainer: &Explainer<'_>,
) -> Option<Vec<ResultItem>> {
    let item_name = |i: usize| items.get(i).map_or("", Item::name);
    if let Some(why) = sync_policy::refusal(owned, deletes.len(), allowance) {
        let mut results = Vec::new();
        let mut names = Group::default();
        for &i in deletes {
            names.add(|| item_name(i).to_string());
            results.extend(explainer.deletion(i, true));
        }
        results.push(sync_policy::refused(
            owned,
            deletes.len(),
            &names.listed(),
            &why,
        ));
        return Some(results);
    }
    // Retiring a variant on the new upstream that is not ready while upgrades are pending
    // would let the next run take the next wave as the first: a deliberate act only.
    let pending = !decision.upgraded.is_empty() || !decision.held.is_empty();
    if pending && allowance.is_none() {
        let retired: Vec<&(usize, String)> = (decision.leaving_blocking.iter())
            .filter(|(i, _)| deletes.contains(i))
            .collect();
        if !retired.is_empty() {
            let upgrades = decision.upgraded.len() + decision.held.len();
            return Some(vec![sync_policy::retiring(
                &retired
                    .iter()
                    .map(|(i, why)| (item_name(*i), why.as_str()))
                    .collect::<Vec<_>>(),
                upgrades,
            )]);
        }
    }
    None
}
