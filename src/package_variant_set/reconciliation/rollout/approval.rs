//! `spec.rollout.pauseAfterWave`: once a wave is on the new upstream, the next one starts only
//! when a person has approved it with `package-variant.fn.kpt.dev/approved-wave: "W"` on the
//! set (the waves up to `W`, in wave order, may start).
//!
//! Why: a canary wave proves little if the next wave follows on the next run by itself; Argo
//! CD's RollingSync (`maxUpdate: 0`) and kpt's old rollouts pause the same way. The approval is
//! a change in git, like the activation of the revision.

use std::cmp::Ordering;

use super::recorded_wave::{recorded_wave, ANNOTATION as WAVE};
use super::wave_order::{compare, of_text, Wave};
use super::{Deletions, Gate, IntOrString, Paused, Rollout, Waves, FIELD};
use crate::krm::results::ResultItem;
use crate::package_variant_set::expansion::inputs::Item;
use crate::package_variant_set::reconciliation::preview::Group;

/// The annotation that approves the waves up to its value.
pub const ANNOTATION: &str = crate::api::annotations::APPROVED_WAVE.key;

/// An approval as written: `"W"` (today's spelling: the waves up to W, of whatever rollout
/// is under way) or `"W@R"` (the waves up to W of the rollout to revision R only, so that it
/// cannot approve the next rollout's waves).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Approval<'a> {
    pub wave: &'a str,
    pub revision: Option<i64>,
}

/// Reads an approval's value (see [`Approval`]).
pub fn parse(value: &str) -> Approval<'_> {
    if let Some((wave, revision)) = value.rsplit_once('@') {
        let digits = !revision.is_empty() && revision.bytes().all(|b| b.is_ascii_digit());
        if let Some(r) = revision.parse::<i64>().ok().filter(|_| digits) {
            return Approval {
                wave,
                revision: Some(r),
            };
        }
    }
    Approval {
        wave: value,
        revision: None,
    }
}

/// Gate 5's refusal of a stale approval. A bare approval of waves past the first while the
/// first wave is still moving (`first_moving`) was given before anyone saw this rollout's
/// first wave: left from an earlier rollout, it would approve this one's waves. Refused: a
/// pre-approval names its revision ("W@R"). The error's message, or `None`.
pub(super) fn stale(
    rollout: &Rollout,
    first: Option<Wave<'_>>,
    first_moving: bool,
) -> Option<String> {
    let (true, Some(f), Some(a)) = (
        rollout.pause_after_wave && first_moving,
        first,
        rollout.approved_wave.as_deref(),
    ) else {
        return None;
    };
    let bare = parse(a);
    let beyond = compare(&of_text(bare.wave), f.0) == Ordering::Greater;
    (bare.revision.is_none() && beyond).then(|| {
        format!(
            "approves the waves up to {:?}, but this rollout's first wave ({}) is still moving: an approval left from an earlier rollout would approve this one's later waves unseen. Remove it, and approve each wave once the one before it is on the new upstream; to approve this rollout's waves ahead of time, name its revision: {}: \"{}@{}\"",
            bare.wave,
            value(f.0),
            ANNOTATION,
            bare.wave,
            rollout
                .target_revision
                .map_or("R".to_string(), |r| r.to_string())
        )
    })
}

/// The approval that counts for the rollout to `target` (the revision the set's upstream
/// names, when it has one upstream): a keyed approval for another revision approves nothing.
pub fn for_rollout(approved: Option<&str>, target: Option<i64>) -> Option<&str> {
    let a = parse(approved?);
    match (a.revision, target) {
        (Some(r), Some(t)) if r != t => None,
        _ => Some(a.wave),
    }
}

/// What an approval covers, for the summary's `approval` tag.
pub fn covered(approved: &str, target: Option<i64>) -> String {
    let a = parse(approved);
    match (a.revision, target) {
        (Some(r), Some(t)) if r != t => format!(
            "nothing: it approves the rollout to revision {r}, and this one is to revision {t}"
        ),
        (Some(r), _) => format!(
            "upgrade and creation waves up to {} of the rollout to revision {r}; deletion waves from {} up once no upgrade is pending",
            a.wave, a.wave
        ),
        (None, _) => format!(
            "upgrade and creation waves up to {} of the rollout under way; deletion waves from {} up once no upgrade is pending",
            a.wave, a.wave
        ),
    }
}

/// Whether the approval lets `wave` start: its value is `wave` or a later one, in the one
/// order of waves ([`super::wave_order`]).
pub fn covers(approved: Option<&str>, wave: &IntOrString) -> bool {
    match (approved, wave) {
        (None, _) => false,
        (Some(a), IntOrString::Int(w)) => a.parse::<i64>().is_ok_and(|a| *w <= a),
        (Some(a), w) => compare(w, &of_text(a)) != Ordering::Greater,
    }
}

/// The approval must be a wave value of the waves' kind (an int for int waves).
pub fn check(rollout: &Rollout, waves: &Waves) -> Result<(), Box<ResultItem>> {
    let Some(approved) = rollout.approved_wave.as_deref().map(|a| parse(a).wave) else {
        return Ok(());
    };
    let ints = waves
        .by_context
        .iter()
        .flatten()
        .next()
        .is_some_and(|w| matches!(w, IntOrString::Int(_)));
    if ints && approved.parse::<i64>().is_err() {
        return Err(Box::new(
            ResultItem::error(format!(
                "approves wave {approved:?}, but {FIELD}.waveExpr gives ints: write the number of the last wave that may start, e.g. {ANNOTATION}: \"2\""
            ))
            .field(format!("metadata.annotations[{ANNOTATION}]"))
            .on_config(),
        ));
    }
    Ok(())
}

/// The annotation's value approving `wave`: `2`, `canary`.
pub fn value(wave: &IntOrString) -> String {
    match wave {
        IntOrString::Int(i) => i.to_string(),
        IntOrString::String(s) => s.clone(),
    }
}

/// Gate 5 over the deletions (`deletionOrder: AllAtOnce`; `Reverse` holds every deletion
/// wave while upgrades are pending): under `pauseAfterWave`, while the rollout is under way
/// (`paused`), a variant the set no longer wants is deleted only in a wave that may change
/// (the first, or an approved one); the others wait with their wave. `deletes` keeps the ones
/// deleted now. Linear.
pub fn deletions(
    paused: Option<&Paused>,
    items: &[Item],
    deletes: &mut Vec<usize>,
) -> Result<Deletions, Box<ResultItem>> {
    let mut out = Deletions::default();
    let Some(paused) = paused else {
        return Ok(out);
    };
    let (mut now, mut waiting) = (Vec::with_capacity(deletes.len()), Group::default());
    // The highest wave held: approving it lets every held deletion go.
    let mut highest: Option<IntOrString> = None;
    let mut unknown = false;
    for &i in deletes.iter() {
        let wave = recorded_wave(items, i)?.map(IntOrString::String);
        if !paused.holds(wave.as_ref()) {
            now.push(i);
            continue;
        }
        let why = match &wave {
            Some(w) => format!(
                "the deletion in wave {} waits for approval with its wave ({ANNOTATION}: \"{}\")",
                value(w),
                value(w)
            ),
            None => {
                unknown = true;
                format!("the deletion of a variant without a wave ({WAVE}) waits until no upgrade is pending")
            }
        };
        if let Some(w) = &wave {
            if highest
                .as_ref()
                .is_none_or(|h| compare(w, h) == Ordering::Greater)
            {
                highest = Some(w.clone());
            }
        }
        waiting.add(|| items.get(i).map_or("", Item::name).to_string());
        out.held.push((i, Gate::Approval, why));
    }
    if out.held.is_empty() {
        return Ok(out);
    }
    out.text = format!(
        "; deletions while the rollout is under way: {} waiting{}: pauseAfterWave holds them with their wave",
        waiting.len(),
        waiting.listed()
    );
    if let Some(h) = &highest {
        out.text.push_str(&format!(
            " until the set is annotated {ANNOTATION}: \"{}\"",
            value(h)
        ));
    }
    if unknown {
        out.text.push_str(&format!(
            "{} those without the {WAVE} annotation until no upgrade is pending",
            if highest.is_some() { ", and" } else { "," }
        ));
    }
    *deletes = now;
    Ok(out)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn an_approval_covers_its_wave_and_the_earlier_ones() {
        let int = IntOrString::Int;
        assert!(covers(Some("2"), &int(2)));
        assert!(covers(Some("3"), &int(2)));
        assert!(!covers(Some("1"), &int(2)));
        assert!(!covers(None, &int(1)));
        assert!(!covers(Some("two"), &int(2)));
        let s = |v: &str| IntOrString::String(v.into());
        assert!(covers(Some("b"), &s("a")));
        assert!(!covers(Some("a"), &s("b")));
        // Digit strings are numbers, as every gate orders them.
        assert!(covers(Some("10"), &s("2")));
        assert!(!covers(Some("2"), &s("10")));
        assert_eq!(
            parse("2@3"),
            Approval {
                wave: "2",
                revision: Some(3)
            }
        );
        assert_eq!(parse("a@b").revision, None);
        assert_eq!(for_rollout(Some("2@3"), Some(4)), None);
        assert_eq!(for_rollout(Some("2@3"), Some(3)), Some("2"));
        assert_eq!(for_rollout(Some("2"), Some(4)), Some("2"));
    }
}
