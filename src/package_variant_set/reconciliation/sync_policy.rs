//! What a run of the set may change, beyond Porch: the sync policy (which of create, update
//! and delete it performs) and the deletion guard (how many of its variants one run may
//! delete), both read from annotations on the set so that Porch's v1alpha2 schema stays
//! Porch's.
//!
//! Why: a typo in a label value (`env: nowhere`) makes a selector match nothing, and Porch then
//! deletes every variant the set owns. Argo CD's ApplicationSet learned the same lesson
//! (`applicationsSync`, `preserveResourcesOnDeletion`); here the whole decision is known
//! before anything is written, so a run that would delete too much is refused instead.

use serde_json::Value;

use crate::api::annotations::{ALLOW_DELETIONS, SYNC_POLICY};
use crate::krm::results::ResultItem;

/// The annotation naming the set's sync policy.
pub const SYNC_POLICY_ANNOTATION: &str = SYNC_POLICY.key;
/// The annotation allowing a run of the set to delete more than the guard lets it.
pub const ALLOW_DELETIONS_ANNOTATION: &str = ALLOW_DELETIONS.key;

/// The share of the owned variants one run may delete without the annotation, when the set
/// owns at least [`GUARD_FROM`] of them (percent, exclusive: more than half is refused).
pub const DEFAULT_SHARE: u32 = 50;
/// From how many owned variants the default share applies; below, only deleting every one
/// is refused.
pub const GUARD_FROM: usize = 4;

/// Which changes a run of the set makes (ApplicationSet's `applicationsSync` values).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub enum SyncPolicy {
    /// Creates new variants only.
    CreateOnly,
    /// Creates and updates; never deletes.
    CreateUpdate,
    /// Creates and deletes; never updates.
    CreateDelete,
    /// Creates, updates and deletes: Porch's behaviour.
    #[default]
    Sync,
}

/// The accepted values of [`SYNC_POLICY_ANNOTATION`], in the order the error lists them.
pub const SYNC_POLICIES: &[&str] = SYNC_POLICY.values;

impl SyncPolicy {
    /// The annotation value that names it.
    pub fn name(self) -> &'static str {
        match self {
            SyncPolicy::CreateOnly => "create-only",
            SyncPolicy::CreateUpdate => "create-update",
            SyncPolicy::CreateDelete => "create-delete",
            SyncPolicy::Sync => "sync",
        }
    }

    pub fn allows_update(self) -> bool {
        matches!(self, SyncPolicy::CreateUpdate | SyncPolicy::Sync)
    }

    pub fn allows_delete(self) -> bool {
        matches!(self, SyncPolicy::CreateDelete | SyncPolicy::Sync)
    }
}

/// How much one run may delete, as [`ALLOW_DELETIONS_ANNOTATION`] says.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Allowance {
    /// Up to this percentage of the owned variants.
    Share(u32),
    /// Any number, every owned variant included.
    All,
}

/// The field path of annotation `key` on the set.
pub fn annotation_field(key: &str) -> String {
    format!("metadata.annotations[{key}]")
}

/// The value of annotation `key` on the set: `Ok(None)` when absent, an error when it is not
/// a string.
fn annotation<'a>(config: &'a Value, key: &str) -> Result<Option<&'a str>, Box<ResultItem>> {
    let Some(value) = config
        .pointer("/metadata/annotations")
        .and_then(Value::as_object)
        .and_then(|a| a.get(key))
    else {
        return Ok(None);
    };
    value.as_str().map(Some).ok_or_else(|| {
        Box::new(ResultItem::error(format!(
            "must be a string (annotation values are strings): write it in quotes, e.g. {key}: \"{}\"",
            if key == SYNC_POLICY_ANNOTATION {
                "create-update"
            } else {
                "75%"
            }
        ))
        .field(annotation_field(key))
        .on_config())
    })
}

/// The set's sync policy ([`SyncPolicy::Sync`] without the annotation). An unknown value is an
/// error listing the accepted ones, with the closest as "did you mean".
pub fn read_policy(config: &Value) -> Result<SyncPolicy, Box<ResultItem>> {
    let Some(value) = annotation(config, SYNC_POLICY_ANNOTATION)? else {
        return Ok(SyncPolicy::Sync);
    };
    for policy in [
        SyncPolicy::CreateOnly,
        SyncPolicy::CreateUpdate,
        SyncPolicy::CreateDelete,
        SyncPolicy::Sync,
    ] {
        if policy.name() == value {
            return Ok(policy);
        }
    }
    let mut message = format!("unknown sync policy {value:?}");
    if let Some(close) = crate::api::strict::closest(value, SYNC_POLICIES.iter().copied()) {
        message.push_str(&format!("; did you mean {close:?}?"));
    }
    message.push_str(&format!(
        " Write one of {} (sync, the default, is Porch's behaviour: create, update and delete)",
        SYNC_POLICIES.join(", ")
    ));
    Err(Box::new(
        ResultItem::error(message)
            .field(annotation_field(SYNC_POLICY_ANNOTATION))
            .on_config(),
    ))
}

/// The set's [`ALLOW_DELETIONS_ANNOTATION`], if any: `all`, or a share `0%` to `100%`.
/// Anything else is an error that says what to write.
pub fn read_allowance(config: &Value) -> Result<Option<Allowance>, Box<ResultItem>> {
    let Some(value) = annotation(config, ALLOW_DELETIONS_ANNOTATION)? else {
        return Ok(None);
    };
    let trimmed = value.trim();
    if trimmed == "all" {
        return Ok(Some(Allowance::All));
    }
    let share = trimmed
        .strip_suffix('%')
        .and_then(|n| n.trim().parse::<u32>().ok())
        .filter(|n| *n <= 100);
    match share {
        Some(100) => Ok(Some(Allowance::All)),
        Some(n) => Ok(Some(Allowance::Share(n))),
        None => Err(Box::new(ResultItem::error(format!(
            "{value:?} is not a share of deletions: write \"all\" (the run may delete every PackageVariant the set owns) or a whole percentage from \"0%\" to \"100%\" (e.g. \"75%\": the run may delete up to three quarters of them)"
        ))
        .field(annotation_field(ALLOW_DELETIONS_ANNOTATION))
        .on_config())),
    }
}

/// Why the guard refuses to delete `deletes` of `owned` variants, or `None` when it lets the
/// run go on.
pub fn refusal(owned: usize, deletes: usize, allowance: Option<Allowance>) -> Option<String> {
    if deletes == 0 || owned == 0 {
        return None;
    }
    let every = deletes >= owned;
    // deletes / owned > share / 100, in integers.
    let above = |share: u32| deletes as u128 * 100 > owned as u128 * u128::from(share);
    match allowance {
        Some(Allowance::All) => None,
        Some(Allowance::Share(share)) => above(share).then(|| {
            format!(
                "{ALLOW_DELETIONS_ANNOTATION}: \"{share}%\" allows deleting at most {share}% of them"
            )
        }),
        None if every => Some("that is every PackageVariant the set owns".to_string()),
        None if owned >= GUARD_FROM && above(DEFAULT_SHARE) => Some(format!(
            "that is more than {DEFAULT_SHARE}% of them (the limit for a set that owns {GUARD_FROM} or more)"
        )),
        None => None,
    }
}

/// The error result of a refused run: what would have been deleted (`names`: already listed
/// the summary's way) and how to allow it.
pub fn refused(owned: usize, deleted: usize, names: &str, why: &str) -> ResultItem {
    ResultItem::error(format!(
        "refused: this run would delete {deleted} of the {owned} PackageVariants the set owns{names}; {why}. Nothing was created, updated or deleted. The warnings after this error say why each is no longer wanted; if that is a mistake (a typo in a selector, Repositories missing from the input), fix the set or the input. To allow it, annotate the set with {ALLOW_DELETIONS_ANNOTATION}: \"all\" (or a share such as \"75%\"), or keep the variants with {SYNC_POLICY_ANNOTATION}: create-update"
    ))
    .field(annotation_field(ALLOW_DELETIONS_ANNOTATION))
    .on_config()
}

/// The error result of a run that would retire `retired` (name, why it is not ready): variants
/// on the new upstream that are not ready, while `upgrades` upgrades are pending. Gone from the
/// items, they would hold nothing back, and the next run would take the next wave as the
/// first: past `requireReady` and `pauseAfterWave`. The deletion allowance makes it deliberate.
pub fn retiring(retired: &[(&str, &str)], upgrades: usize) -> ResultItem {
    let mut names = super::group::Group::default();
    for (name, why) in retired {
        names.add(|| format!("{name}: {why}"));
    }
    ResultItem::error(format!(
        "refused: this run would delete {} PackageVariant{} on the new upstream that {} not ready{}, while {upgrades} upgrade{} of the rollout {} pending: once deleted, {} would hold nothing back, and the next run would take the next wave as the first, past requireReady and pauseAfterWave. Nothing was created, updated or deleted. To retire {} on purpose, annotate the set with {ALLOW_DELETIONS_ANNOTATION}: \"all\" (or a share that covers this run's deletions) for this run; otherwise make {} Ready, or keep {} among the set's targets",
        names.len(),
        if names.len() == 1 { "" } else { "s" },
        if names.len() == 1 { "is" } else { "are" },
        names.listed(),
        if upgrades == 1 { "" } else { "s" },
        if upgrades == 1 { "is" } else { "are" },
        if names.len() == 1 { "it" } else { "they" },
        if names.len() == 1 { "it" } else { "them" },
        if names.len() == 1 { "it" } else { "them" },
        if names.len() == 1 { "it" } else { "them" },
    ))
    .field(annotation_field(ALLOW_DELETIONS_ANNOTATION))
    .on_config()
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    fn set(annotations: Value) -> Value {
        json!({"metadata": {"name": "s", "annotations": annotations}})
    }

    #[test]
    fn policies_and_their_changes() {
        assert_eq!(read_policy(&json!({})), Ok(SyncPolicy::Sync));
        for &name in SYNC_POLICIES {
            let p = read_policy(&set(json!({SYNC_POLICY_ANNOTATION: name})));
            assert_eq!(p.map(SyncPolicy::name), Ok(name));
        }
        let allowed: Vec<(bool, bool)> = [
            SyncPolicy::CreateOnly,
            SyncPolicy::CreateUpdate,
            SyncPolicy::CreateDelete,
            SyncPolicy::Sync,
        ]
        .iter()
        .map(|p| (p.allows_update(), p.allows_delete()))
        .collect();
        assert_eq!(
            allowed,
            [(false, false), (true, false), (false, true), (true, true)]
        );
    }

    #[test]
    fn unknown_policy_lists_values_and_suggests() {
        let e = read_policy(&set(json!({SYNC_POLICY_ANNOTATION: "create-onyl"}))).unwrap_err();
        assert!(e.is_error());
        assert!(
            e.message.contains(r#"did you mean "create-only"?"#),
            "{}",
            e.message
        );
        assert!(e
            .message
            .contains("create-only, create-update, create-delete, sync"));
        assert_eq!(
            e.field_path.as_deref(),
            Some("metadata.annotations[package-variant.fn.kpt.dev/sync-policy]")
        );
        let e = read_policy(&set(json!({SYNC_POLICY_ANNOTATION: "whatever"}))).unwrap_err();
        assert!(!e.message.contains("did you mean"), "{}", e.message);
        let e = read_policy(&set(json!({SYNC_POLICY_ANNOTATION: true}))).unwrap_err();
        assert!(e.message.starts_with("must be a string"), "{}", e.message);
    }

    #[test]
    fn allowances() {
        let read = |v: Value| read_allowance(&set(json!({ALLOW_DELETIONS_ANNOTATION: v})));
        assert_eq!(read_allowance(&json!({})), Ok(None));
        assert_eq!(read(json!("all")), Ok(Some(Allowance::All)));
        assert_eq!(read(json!("100%")), Ok(Some(Allowance::All)));
        assert_eq!(read(json!("75%")), Ok(Some(Allowance::Share(75))));
        assert_eq!(read(json!("0%")), Ok(Some(Allowance::Share(0))));
        for bad in ["75", "101%", "-5%", "half", "", "7.5%"] {
            let e = read(json!(bad)).unwrap_err();
            assert!(e.message.contains(r#"write "all""#), "{bad}: {}", e.message);
        }
    }

    #[test]
    fn the_guard() {
        // Every owned variant: always refused without the annotation.
        assert!(refusal(1, 1, None).is_some());
        assert!(refusal(2, 2, None).is_some());
        // Below 4 owned, anything short of all goes.
        assert_eq!(refusal(3, 2, None), None);
        // From 4: more than half is refused, half is not.
        assert_eq!(refusal(4, 2, None), None);
        assert!(refusal(4, 3, None).is_some());
        assert!(refusal(1000, 501, None).is_some());
        assert_eq!(refusal(1000, 500, None), None);
        // Nothing deleted, nothing owned.
        assert_eq!(refusal(0, 0, None), None);
        assert_eq!(refusal(5, 0, Some(Allowance::Share(0))), None);
        // The annotation.
        assert_eq!(refusal(2, 2, Some(Allowance::All)), None);
        assert_eq!(refusal(4, 3, Some(Allowance::Share(75))), None);
        assert!(refusal(4, 4, Some(Allowance::Share(75))).is_some());
        assert!(refusal(10, 1, Some(Allowance::Share(0))).is_some());
        assert!(refusal(usize::MAX, usize::MAX, None).is_some());
    }
}
