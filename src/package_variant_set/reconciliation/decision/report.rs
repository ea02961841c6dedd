//! Where the rollout stands after the run, as the summary says it: the `phase` tag, the
//! approval it covers and, once every variant is on the new upstream, the rollout's end. Its
//! own file so that the plan's report reads apart from the plan's construction.

use super::super::deletion_order::Deletions;
use super::super::rollout::{approval, Decision, Gate, Phase, Rollout};
use super::specs::Specs;
use crate::krm::results::ResultItem;

/// `summary` with where the rollout stands, for a machine (the `phase` tag) and a person.
/// `moved`: the run creates, deletes or upgrades something; `complete`: the text that says
/// the rollout is done.
pub(super) fn rollout_state(
    mut summary: ResultItem,
    r: &Rollout,
    decision: &Decision,
    deletions: &Deletions,
    moved: bool,
    complete: impl FnOnce() -> String,
) -> ResultItem {
    let awaiting = (deletions.held.iter()).any(|(_, g, _)| *g == Gate::Approval);
    let phase = if !decision.text.is_empty() {
        decision.phase
    } else if awaiting {
        Phase::AwaitingApproval
    } else if moved || !deletions.held.is_empty() {
        Phase::Progressing
    } else {
        Phase::Complete
    };
    if phase == Phase::Complete {
        summary.message.push_str(&complete());
    }
    summary = summary.tag("phase", phase.text()).leading();
    // What the approval covers, said once, where a machine reads it.
    if r.pause_after_wave {
        if let Some(a) = &r.approved_wave {
            summary = summary.tag("approval", approval::covered(a, r.target_revision));
        }
    }
    summary
}

/// `; rollout complete: all N on revision R` (or on the set's upstreams, when it has several).
pub(super) fn complete(n: usize, specs: &Specs) -> String {
    match specs.upstreams.as_slice() {
        [(u, _)] if u.revision > 0 => {
            format!("; rollout complete: all {n} on revision {}", u.revision)
        }
        [(u, _)] => format!(
            "; rollout complete: all {n} on workspace {:?}",
            u.workspace_name
        ),
        _ => format!("; rollout complete: all {n} on the set's upstreams"),
    }
}
