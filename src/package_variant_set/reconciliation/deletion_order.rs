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
//!   compare as ints when every annotation given is one, as strings otherwise. A variant
//!   without the annotation (made before it existed, or by Porch) counts as the highest wave,
//!   and the summary says so.
//! - The deletion guard and the sync policy count what the run deletes; with `pauseAfterWave`,
//!   a deletion wave waits for `approved-wave: "W"` with W at or below it (approvals move
//!   down as the fleet comes down; any approval covers the variants without a wave).
//!
//! `AllAtOnce` (the default) deletes them all in one run, as before.

use super::rollout::approval;
use super::rollout::{Rollout, FIELD};
use crate::api::package_variant_set::Rollout as RolloutSpec;
use crate::cel::IntOrString;
use crate::krm::object::json_at;
use crate::krm::results::ResultItem;
use crate::package_variant_set::expansion::inputs::Item;
use crate::package_variant_set::reconciliation::preview::Group;

/// The annotation that records a variant's wave.
pub const ANNOTATION: &str = crate::api::annotations::WAVE.key;

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
pub fn this_run(rollout: Option<&Rollout>, items: &[Item], deletes: &mut Vec<usize>) -> Deletions {
    let Some(r) = rollout else {
        return Deletions::default();
    };
    let d = order(
        items,
        deletes,
        r.pause_after_wave,
        r.approved_wave.as_deref(),
    );
    deletes.clone_from(&d.now);
    d
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
    /// Notes the update of the variant at `item` (`fields`: what changes), in wave `wave`.
    pub fn note(&mut self, items: &[Item], item: usize, wave: Option<String>, fields: &[String]) {
        if !fields.iter().any(|f| f.starts_with("spec.upstream")) {
            return;
        }
        self.upgraded.push(item);
        if let Some(w) = wave.filter(|w| annotation(items, item) != Some(w.as_str())) {
            self.edits.push((item, w));
        }
    }
}

/// What a run deletes in reverse waves.
#[derive(Debug, Default)]
pub struct Deletions {
    /// Item indexes deleted now.
    pub now: Vec<usize>,
    /// Item indexes that wait for a later run.
    pub held: Vec<usize>,
    /// `; deletions in reverse waves: ...`, or empty.
    pub text: String,
}

/// A deleted variant's wave: its annotation, or none (the highest).
#[derive(Debug, Clone, PartialEq, Eq, PartialOrd, Ord)]
enum Wave {
    Known(IntOrString),
    Unknown,
}

/// The annotation's value of the variant at `item`, if any.
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
) -> Deletions {
    if deletes.is_empty() {
        return Deletions::default();
    }
    let values: Vec<Option<&str>> = deletes.iter().map(|&i| annotation(items, i)).collect();
    let ints = values.iter().flatten().all(|v| v.parse::<i64>().is_ok());
    let waves: Vec<Wave> = values
        .iter()
        .map(|v| match v {
            None => Wave::Unknown,
            Some(v) if ints => Wave::Known(IntOrString::Int(v.parse().unwrap_or(i64::MAX))),
            Some(v) => Wave::Known(IntOrString::String(v.to_string())),
        })
        .collect();
    let Some(top) = waves.iter().max().cloned() else {
        return Deletions::default();
    };
    let unknown = waves.iter().filter(|w| **w == Wave::Unknown).count();
    let mut distinct: Vec<&Wave> = waves.iter().collect();
    distinct.sort_unstable();
    distinct.dedup();
    let approved_here = match (&top, approved) {
        _ if !pause_after_wave => true,
        (_, None) => false,
        (Wave::Unknown, Some(_)) => true,
        (Wave::Known(IntOrString::Int(w)), Some(a)) => a.parse::<i64>().is_ok_and(|a| *w >= a),
        (Wave::Known(IntOrString::String(w)), Some(a)) => w.as_str() >= a,
    };
    let mut out = Deletions::default();
    let (mut deleted, mut waiting) = (Group::default(), Group::default());
    for (&i, w) in deletes.iter().zip(&waves) {
        let name = || items.get(i).map_or("", Item::name).to_string();
        if approved_here && *w == top {
            out.now.push(i);
            deleted.add(name);
        } else {
            out.held.push(i);
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
    out
}
