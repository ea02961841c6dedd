//! `spec.rollout.deletionOrder: Reverse` (extension): the variants a set no longer wants are
//! deleted one wave per run, the highest first, as Argo CD's `strategy.deletionOrder: Reverse`
//! tears down an ApplicationSet's progressive sync.
//!
//! Why: a set that drops its targets (a selector changed, a region retired) deletes every
//! variant in one run, canary and fleet alike; reversed waves take the fleet down in the order
//! it came up, so what the canary proved is the last thing to go.
//!
//! - Each variant's wave is recorded on what the set emits: the annotation [`ANNOTATION`], the
//!   `waveExpr` value as a string, written when a variant is created or upgraded.
//! - A run deletes the variants of the highest wave among the ones the set no longer wants; a
//!   lower wave is deleted only when none of a higher one is left among the items. Waves
//!   compare in the one order of every gate ([`wave_order`]: whole numbers by value, before
//!   other strings); an unquoted annotation (`wave: 1`) is its number. A variant
//!   without the annotation (made before it existed, or by Porch) counts as the highest wave,
//!   and the summary says so.
//! - The deletion guard and the sync policy count what the run deletes; with `pauseAfterWave`,
//!   a deletion wave waits for `approved-wave: "W"` with W at or below it (approvals move
//!   down as the fleet comes down; any approval covers the variants without a wave).
//!
//! `AllAtOnce` (the default) deletes them all in one run, as before.

use std::cmp::Ordering;

use super::rollout::approval;
pub use super::rollout::recorded_wave::{recorded_wave, ANNOTATION};
use super::rollout::wave_order;
pub use super::rollout::Deletions;
use super::rollout::{Gate, Rollout, FIELD};
use crate::api::package_variant_set::Rollout as RolloutSpec;
use crate::cel::IntOrString;
use crate::krm::object::json_at;
use crate::krm::results::ResultItem;
use crate::package_variant_set::expansion::inputs::Item;
use crate::package_variant_set::reconciliation::preview::Group;

/// Reads `deletionOrder`: `true` for `Reverse`. It needs `waveExpr` (without it the fleet is
/// one wave).
pub fn read(spec: &RolloutSpec) -> Result<bool, Box<ResultItem>> {
    let error = |message: String| {
        Box::new(
            ResultItem::error(message)
                .field(format!("{FIELD}.deletionOrder"))
                .on_config(),
        )
    };
    match spec.deletion_order.as_deref() {
        None | Some("AllAtOnce") => Ok(false),
        Some("Reverse") if spec.wave_expr.is_none() => Err(error(
            "deletes in reverse waves, but without waveExpr the fleet is one wave: add waveExpr (e.g. int(target.labels['wave'])), or remove deletionOrder".into(),
        )),
        Some("Reverse") => Ok(true),
        Some(other) => Err(error(format!(
            "is {other:?}: write Reverse (one wave per run, the highest first) or AllAtOnce (the default: every deletion in one run)"
        ))),
    }
}

/// A wave as the annotation's value says it.
fn text(wave: &IntOrString) -> String {
    approval::value(wave)
}

/// This run's deletions: under `rollout` (given when it deletes in reverse waves and the
/// sync policy lets the run delete), `deletes` keeps only this run's wave; otherwise all.
pub fn this_run(
    rollout: Option<&Rollout>,
    items: &[Item],
    deletes: &mut Vec<usize>,
    upgrading: bool,
) -> Result<Deletions, Box<ResultItem>> {
    let Some(r) = rollout else {
        return Ok(Deletions::default());
    };
    // While an upgrade is pending, an approval approves its waves, not deletion waves: they
    // go after the upgrades (as KubeFleet's deletion stage follows every update stage).
    let approved =
        approval::for_rollout(r.approved_wave.as_deref(), r.target_revision).filter(|_| !upgrading);
    let mut d = order(items, deletes, r.pause_after_wave, approved)?;
    if upgrading && r.pause_after_wave && r.approved_wave.is_some() && !d.held.is_empty() {
        d.text.push_str(&format!(
            " (the set's {} approves the upgrade's waves while upgrades are pending; deletion waves wait for the upgrade to finish)",
            approval::ANNOTATION
        ));
    }
    deletes.clone_from(&d.now);
    Ok(d)
}

/// Whether reverse deletion waves are under way: the approval they read is not stale.
pub fn pending(rollout: Option<&Rollout>, deletes: &[usize]) -> bool {
    rollout.is_some_and(|r| r.reverse_deletions) && !deletes.is_empty()
}

/// The variants a run upgrades, and the wave annotations to write on them (where the
/// annotation says another wave, or none).
#[derive(Debug, Default)]
pub struct Recorded {
    /// Item indexes of the variants whose `spec.upstream` this run changes.
    pub upgraded: Vec<usize>,
    /// (item index, wave).
    pub edits: Vec<(usize, String)>,
}

impl Recorded {
    /// Notes the update of the variant at `item` (`upgrade`: it moves to another revision),
    /// in wave `wave`.
    pub fn note(&mut self, items: &[Item], item: usize, wave: Option<String>, upgrade: bool) {
        if !upgrade {
            return;
        }
        self.upgraded.push(item);
        if let Some(w) = wave.filter(|w| annotation(items, item) != Some(w.as_str())) {
            self.edits.push((item, w));
        }
    }
}

/// Why a deletion of a lower wave waits.
const LATER: &str = "a higher wave is deleted first (deletionOrder: Reverse)";

/// A deleted variant's wave: its annotation, or none (the highest).
#[derive(Debug, Clone)]
enum Wave {
    Known(IntOrString),
    Unknown,
}

impl Wave {
    /// In the one order of waves ([`wave_order`]), `Unknown` above every known one.
    fn cmp(&self, other: &Wave) -> Ordering {
        match (self, other) {
            (Wave::Known(a), Wave::Known(b)) => wave_order::compare(a, b),
            (Wave::Known(_), Wave::Unknown) => Ordering::Less,
            (Wave::Unknown, Wave::Known(_)) => Ordering::Greater,
            (Wave::Unknown, Wave::Unknown) => Ordering::Equal,
        }
    }
}

/// The annotation's value of the variant at `item`, if any, when it is a string.
pub fn annotation<'a>(items: &[Item<'a>], item: usize) -> Option<&'a str> {
    let json = items.get(item).and_then(Item::json)?;
    json_at(json, "/metadata/annotations")?
        .get(ANNOTATION)?
        .as_str()
}

/// Splits `deletes` (item indexes of variants the set no longer wants) into this run's wave
/// and the rest. Linear but for one sort.
pub fn order(
    items: &[Item],
    deletes: &[usize],
    pause_after_wave: bool,
    approved: Option<&str>,
) -> Result<Deletions, Box<ResultItem>> {
    if deletes.is_empty() {
        return Ok(Deletions::default());
    }
    let mut waves: Vec<Wave> = Vec::with_capacity(deletes.len());
    for &i in deletes {
        waves.push(match recorded_wave(items, i)? {
            None => Wave::Unknown,
            Some(v) => Wave::Known(IntOrString::String(v)),
        });
    }
    let Some(top) = waves.iter().max_by(|a, b| a.cmp(b)).cloned() else {
        return Ok(Deletions::default());
    };
    let unknown = waves.iter().filter(|w| matches!(w, Wave::Unknown)).count();
    let mut distinct: Vec<&Wave> = waves.iter().collect();
    distinct.sort_unstable_by(|a, b| a.cmp(b));
    distinct.dedup_by(|a, b| a.cmp(b) == Ordering::Equal);
    let approved_here = match (&top, approved) {
        _ if !pause_after_wave => true,
        (_, None) => false,
        (Wave::Unknown, Some(_)) => true,
        (Wave::Known(w), Some(a)) => {
            wave_order::compare(w, &wave_order::of_text(a)) != Ordering::Less
        }
    };
    let mut out = Deletions::default();
    let (mut deleted, mut waiting) = (Group::default(), Group::default());
    let unapproved = match &top {
        Wave::Known(w) => format!(
            "deletion wave {} waits for approval ({}: \"{}\")",
            text(w),
            approval::ANNOTATION,
            text(w)
        ),
        Wave::Unknown => format!(
            "the deletion of the variants without a wave waits for approval ({})",
            approval::ANNOTATION
        ),
    };
    for (&i, w) in deletes.iter().zip(&waves) {
        let name = || items.get(i).map_or("", Item::name).to_string();
        let top_wave = w.cmp(&top) == Ordering::Equal;
        if approved_here && top_wave {
            out.now.push(i);
            deleted.add(name);
        } else {
            let (gate, why) = if top_wave {
                (Gate::Approval, unapproved.clone())
            } else {
                (Gate::DeletionOrder, LATER.to_string())
            };
            out.held.push((i, gate, why));
            waiting.add(name);
        }
    }
    let wave = match &top {
        Wave::Known(w) => format!("wave {}", text(w)),
        Wave::Unknown => "the variants without a wave".to_string(),
    };
    out.text = format!(
        "; deletions in reverse waves: {wave} ({} {} to delete, highest first): {} deleted{}, {} waiting{}",
        distinct.len(),
        if distinct.len() == 1 { "wave" } else { "waves" },
        deleted.len(),
        deleted.listed(),
        waiting.len(),
        waiting.listed()
    );
    if unknown > 0 {
        out.text.push_str(&format!(
            ", {unknown} without the {ANNOTATION} annotation (made before it existed, or by Porch) counted as the highest wave"
        ));
    }
    if !approved_here {
        let value = match &top {
            Wave::Known(w) => text(w),
            Wave::Unknown => "any wave".into(),
        };
        out.text.push_str(&format!(
            ", {wave} waits for approval: pauseAfterWave holds each deletion wave until the set is annotated {}: \"{value}\" (or a lower wave)",
            approval::ANNOTATION
        ));
    }
    Ok(out)
}
