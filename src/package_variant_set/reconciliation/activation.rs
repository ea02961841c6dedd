//! `spec.revisionActivationPolicy` (extension): with `Manual`, a floating tag *offers* the
//! revision it names; a person activates it with a commit, and only then does the fleet move.
//!
//! Why: with a tag, a moved label reaches the fleet on the next run (in waves at best) with no
//! one asked. Crossplane's packages (seed 002) create a new revision inactive under `Manual`;
//! here the same decision is a change in git, the annotation
//! `package-variant.fn.kpt.dev/activate-revision` on the set.
//!
//! Per tagged upstream, the *active* revision every variant is rendered at is:
//! - the activated one, when the annotation names it (a Published revision of the package;
//!   below the fleet's, a downgrade, only when written `"N!"`);
//! - otherwise the one the fleet is on (the highest revision the set's variants of that
//!   package are on, whatever the spelling of their `spec.upstream`: [`current`]; one that
//!   cannot be told is an error), and variants below it keep their whole spec;
//! - with no fleet yet, the one the tag names (there is nothing to protect).
//!
//! The tag's revision, when it is not the active one, is offered in an info result saying how
//! to activate it. Everything after this (render, rollout, reconciliation) is the tag's code
//! path, at the active revision.

use serde_json::Value;

use crate::api::package_variant::EXTENSION_API_VERSION;
use crate::api::package_variant_set::PackageVariantSet;
use crate::api::suggest::{did_you_mean, not_one_of};
use crate::common::fast_hash::FastMap;
use crate::krm::object::json_at;
use crate::krm::results::ResultItem;
use crate::package_variant_set::expansion::inputs::scope::MAX_REPORTED;
use crate::package_variant_set::expansion::inputs::Item;
use crate::package_variant_set::expansion::kubectl::kubectl_get;
use crate::package_variant_set::expansion::targets::{
    str_at, PACKAGE_REVISION_API_VERSION, PACKAGE_REVISION_KIND,
};
use crate::package_variant_set::expansion::upstreams::revisions::{Index, Revision};
use crate::package_variant_set::expansion::upstreams::{tags, written, ResolvedUpstream};
use crate::package_variant_set::reconciliation::ensure::owned_variants;

pub mod current;

/// The annotation that activates a revision: `"N"` (`"N!"` for a downgrade), or for
/// `spec.upstreams` `"repo/package=N,..."`.
pub const ACTIVATE_ANNOTATION: &str = crate::api::annotations::ACTIVATE_REVISION.key;
/// The annotation that lets the waves up to `W` start under `spec.rollout.pauseAfterWave`.
pub const APPROVED_WAVE_ANNOTATION: &str = super::rollout::approval::ANNOTATION;
/// `spec.revisionActivationPolicy`'s values.
pub const POLICIES: &[&str] = &["Automatic", "Manual"];
const POLICY_FIELD: &str = "spec.revisionActivationPolicy";

/// A revision the annotation activates.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
struct Activated {
    revision: i64,
    /// Written `N!`: may be below the fleet's revision.
    downgrade: bool,
}

/// The policy and the annotations, read and checked against the set's fields.
#[derive(Debug, Clone, Default)]
pub struct Settings {
    manual: bool,
    /// Per upstream of the set (in `written` order), what the annotation activates.
    activated: Vec<Option<Activated>>,
    /// `approved-wave`, for the rollout.
    pub approved_wave: Option<String>,
}

fn error(field: impl Into<String>, message: impl Into<String>) -> ResultItem {
    ResultItem::error(message).field(field).on_config()
}

fn annotation_field(key: &str) -> String {
    format!("metadata.annotations[{key}]")
}

/// An annotation of the set (the schema has already refused a value that is not a string).
fn annotation<'a>(config: &'a Value, key: &str) -> Option<&'a str> {
    json_at(config, "/metadata/annotations")
        .and_then(|a| a.get(key))
        .and_then(Value::as_str)
}

/// Reads the policy and both annotations. Every problem is an error on its field.
pub fn read(config: &Value, set: &PackageVariantSet) -> Result<Settings, Vec<ResultItem>> {
    let mut errors = Vec::new();
    let mut settings = Settings::default();
    let activate = annotation(config, ACTIVATE_ANNOTATION);
    let approved = annotation(config, APPROVED_WAVE_ANNOTATION);
    // Porch's set cannot carry either: strict decoding refused them
    // (`crate::api::annotations`).
    let extension = set.api_version == EXTENSION_API_VERSION;
    match set.spec.revision_activation_policy.as_deref() {
        None | Some("Automatic") => {}
        Some("Manual") => settings.manual = true,
        Some(p) => errors.push(error(POLICY_FIELD, not_one_of(p, POLICIES))),
    }
    let upstreams = written(set);
    settings.activated = vec![None; upstreams.len()];
    if let Some(value) = activate.filter(|_| extension) {
        if !settings.manual {
            errors.push(error(annotation_field(ACTIVATE_ANNOTATION), format!(
                "activates a revision, but the set's upstreams follow their tags automatically: write {POLICY_FIELD}: Manual to activate revisions by hand, or remove the annotation"
            )));
        } else if let Err(e) = parse_activation(value, set, &mut settings.activated) {
            errors.push(error(annotation_field(ACTIVATE_ANNOTATION), e));
        }
    }
    if let Some(value) = approved.filter(|_| extension) {
        let pauses = set
            .spec
            .rollout
            .as_ref()
            .and_then(|r| r.pause_after_wave)
            .unwrap_or(false);
        if !pauses {
            errors.push(error(annotation_field(APPROVED_WAVE_ANNOTATION), format!(
                "approves wave {value:?}, but no rollout pauses after a wave: write spec.rollout.pauseAfterWave: true (with waveExpr), or remove the annotation"
            )));
        }
        settings.approved_wave = Some(value.to_string());
    }
    if errors.is_empty() {
        Ok(settings)
    } else {
        Err(errors)
    }
}

/// `N` or `N!`: a revision from 1.
fn revision(text: &str) -> Option<Activated> {
    let (digits, downgrade) = match text.strip_suffix('!') {
        Some(d) => (d, true),
        None => (text, false),
    };
    let ok = !digits.is_empty() && digits.bytes().all(|b| b.is_ascii_digit());
    let revision = digits.parse::<i64>().ok().filter(|&r| ok && r > 0)?;
    Some(Activated {
        revision,
        downgrade,
    })
}

/// The annotation's value, per upstream: `"N"` for `spec.upstream`, `"repo/package=N,..."`
/// for `spec.upstreams`; only tagged upstreams may be named, each once.
fn parse_activation(
    value: &str,
    set: &PackageVariantSet,
    out: &mut [Option<Activated>],
) -> Result<(), String> {
    let upstreams = written(set);
    const WRITE: &str = "a revision number from 1, e.g. \"3\" (\"3!\" to go back to a lower revision than the fleet's)";
    if set.spec.upstreams.is_none() {
        let Some(a) = revision(value) else {
            return Err(format!("{value:?} is not a revision: write {WRITE}"));
        };
        match upstreams.first() {
            Some((_, u)) if u.tag.is_some() => {
                if let Some(slot) = out.first_mut() {
                    *slot = Some(a);
                }
                return Ok(());
            }
            _ => {
                return Err("spec.upstream names its revision itself (no tag): change spec.upstream.revision to move the fleet, or remove the annotation".into())
            }
        }
    }
    let names: Vec<String> = upstreams
        .iter()
        .filter(|(_, u)| u.tag.is_some())
        .map(|(_, u)| format!("{}/{}", u.repo, u.package))
        .collect();
    let known: Vec<&str> = names.iter().map(String::as_str).collect();
    let example = known.first().map_or("blueprints/base", |n| n);
    for entry in value.split(',').map(str::trim) {
        let Some((name, number)) = entry.split_once('=') else {
            return Err(format!(
                "entry {entry:?} is not repo/package=N: with spec.upstreams, write one entry per tagged upstream to activate, comma-separated, e.g. \"{example}=3\""
            ));
        };
        let Some(a) = revision(number) else {
            return Err(format!(
                "entry {entry:?}: {number:?} is not a revision: write {WRITE}"
            ));
        };
        let mut found = false;
        for (k, (field, u)) in upstreams.iter().enumerate() {
            if format!("{}/{}", u.repo, u.package) != name {
                continue;
            }
            if u.tag.is_none() {
                return Err(format!("entry {entry:?}: {field} names its revision itself (no tag): change it there, or remove the entry"));
            }
            let Some(slot) = out.get_mut(k) else { continue };
            if slot.is_some() {
                return Err(format!("names {name} twice: keep one entry"));
            }
            *slot = Some(a);
            found = true;
        }
        if !found {
            return Err(format!(
                "entry {entry:?} names no tagged upstream of spec.upstreams (they are {}){}",
                if known.is_empty() {
                    "none".to_string()
                } else {
                    known.join(", ")
                },
                did_you_mean(name, &known)
            ));
        }
    }
    Ok(())
}

/// What the policy decided for this run.
#[derive(Debug, Default)]
pub struct Outcome {
    /// Per upstream: its variants keep their revision (nothing is activated).
    held: Vec<bool>,
    /// The info results offering the tags' revisions.
    pub offers: Vec<ResultItem>,
    approved_wave: Option<String>,
}

impl Outcome {
    /// Whether a variant of upstream `k` whose `spec.upstream` would change keeps its spec.
    pub fn holds(&self, k: usize) -> bool {
        self.held.get(k).copied().unwrap_or(false)
    }

    /// A warning when `approved-wave` is on the set while no upgrade is under way (`idle`):
    /// left there, it would let the next upgrade's waves pass without a pause.
    pub fn stale_approval(&self, idle: bool) -> Option<ResultItem> {
        // A keyed approval ("W@R") approves no other rollout: harmless once it is done.
        let w = (self.approved_wave.as_deref())
            .filter(|w| idle && super::rollout::approval::parse(w).revision.is_none())?;
        Some(
            ResultItem::warning(format!(
                "{APPROVED_WAVE_ANNOTATION}: {w:?} is still on the set, but no wave is being upgraded: remove it now, or the next upgrade is refused while its first wave moves (an approval given ahead of time names the revision it approves, \"W@R\")"
            ))
            .field(annotation_field(APPROVED_WAVE_ANNOTATION))
            .on_config(),
        )
    }
}

/// Moves each tagged upstream of a `Manual` set to its active revision (see the module's
/// comment). `index` is the upstream resolution's: each package's revisions are a lookup;
/// the set's own variants are read once, only under `Manual`.
pub fn apply(
    settings: &Settings,
    set: &PackageVariantSet,
    items: &[Item],
    index: &Index,
    namespace: &str,
    owner: &str,
    resolved: &mut [ResolvedUpstream],
) -> Result<Outcome, Vec<ResultItem>> {
    let mut outcome = Outcome {
        held: vec![false; resolved.len()],
        offers: Vec::new(),
        approved_wave: settings.approved_wave.clone(),
    };
    if !settings.manual || resolved.iter().all(|u| u.tag.is_none()) {
        return Ok(outcome);
    }
    // (repo, package) of each tagged upstream → the fleet's highest revision.
    let upstreams = written(set);
    let mut packages: FastMap<(&str, &str), Option<i64>> = FastMap::default();
    for (_, u) in upstreams.iter().filter(|(_, u)| u.tag.is_some()) {
        packages
            .entry((u.repo.as_str(), u.package.as_str()))
            .or_default();
    }
    // Every variant of a tagged package (or of no package it names: it might be one) counts,
    // whatever its spelling; one whose revision cannot be known stops the run: a doubt never
    // licenses an upgrade.
    let mut errors = Vec::new();
    for i in owned_variants(items, namespace, owner) {
        let Some(v) = items.get(i).and_then(Item::json) else {
            continue;
        };
        let key = (
            str_at(v, "/spec/upstream/repo"),
            str_at(v, "/spec/upstream/package"),
        );
        if !packages.contains_key(&key) && !key.0.is_empty() && !key.1.is_empty() {
            continue;
        }
        match current::on_revision(v, i, index) {
            Ok(on) => {
                if let Some(fleet) = packages.get_mut(&(on.repo, on.package)) {
                    *fleet = (*fleet).max(Some(on.revision));
                }
            }
            Err(e) if errors.len() < MAX_REPORTED => errors.push(*e),
            Err(_) => {}
        }
    }
    if !errors.is_empty() {
        return Err(errors);
    }
    let get = kubectl_get(
        PACKAGE_REVISION_API_VERSION,
        PACKAGE_REVISION_KIND,
        namespace,
    );
    let single = set.spec.upstreams.is_none();
    for (k, u) in resolved.iter_mut().enumerate() {
        let (Some(tag), Some((_, w))) = (u.tag.clone(), upstreams.get(k)) else {
            continue;
        };
        let fleet = packages
            .get(&(w.repo.as_str(), w.package.as_str()))
            .copied()
            .flatten();
        let prs: &[Revision] = index
            .bucket(&w.repo, &w.package)
            .map_or(&[], |b| b.revisions.as_slice());
        let published = |r: i64| {
            prs.iter()
                .find(|pr| pr.revision == r && pr.lifecycle == "Published")
                .map(|pr| pr.item)
        };
        let name = format!("{}/{}", u.upstream.repo, u.upstream.package);
        let activated = settings.activated.get(k).copied().flatten();
        let offered = (u.upstream.revision, u.item);
        let field = annotation_field(ACTIVATE_ANNOTATION);
        let active = match (activated, fleet) {
            (Some(a), Some(f)) if a.revision < f && !a.downgrade => {
                errors.push(error(&field, format!(
                    "activates revision {} of {name}, below revision {f} the fleet is on: that is a downgrade; write \"{}\" to go back to it on purpose, or activate revision {f} or higher",
                    a.revision,
                    value_for(single, &name, &format!("{}!", a.revision))
                )));
                continue;
            }
            (Some(a), _) => a.revision,
            (None, Some(f)) => {
                outcome.held[k] = true;
                f
            }
            (None, None) => offered.0,
        };
        let Some(item) = published(active) else {
            let exist = if prs.is_empty() {
                "none is among the input items".to_string()
            } else {
                let all: Vec<&Revision> = prs.iter().collect();
                format!("the revisions that exist: {}", tags::named(&all))
            };
            let what = match activated {
                Some(_) => format!("activates revision {active} of {name}"),
                None => format!(
                    "the fleet of {u_field} is on revision {active} of {name}",
                    u_field = u.field
                ),
            };
            errors.push(error(&field, format!(
                "{what}, but no Published PackageRevision of it has that revision; {exist}; activate one of the Published revisions, or pass them all ({get})"
            )));
            continue;
        };
        u.upstream.revision = active;
        u.item = item;
        if offered.0 != active {
            let pr = items.get(offered.1).map_or("", Item::name);
            let value = if offered.0 < active {
                format!("{}!", offered.0)
            } else {
                offered.0.to_string()
            };
            let downgrade = if offered.0 < active {
                ", a downgrade"
            } else {
                ""
            };
            outcome.offers.push(
                ResultItem::info(format!(
                    "{} tag {tag:?} of {name} names revision {} (PackageRevision {pr:?}): offered, not applied ({POLICY_FIELD}: Manual); the active revision stays {active}. To activate it{downgrade}, annotate the set {ACTIVATE_ANNOTATION}: \"{}\"",
                    u.field,
                    offered.0,
                    value_for(single, &name, &value)
                ) + if single { "" } else { " (beside the entries of the other upstreams to keep, comma-separated)" })
                .field(format!("{}.tag", u.field))
                .on_config(),
            );
        }
    }
    if errors.is_empty() {
        Ok(outcome)
    } else {
        Err(errors)
    }
}

/// The annotation's value activating `value` of `name`: the bare value for `spec.upstream`.
fn value_for(single: bool, name: &str, value: &str) -> String {
    if single {
        value.to_string()
    } else {
        format!("{name}={value}")
    }
}

#[cfg(test)]
mod tests;
