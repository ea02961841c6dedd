//! Why a target selects nothing, and why an owned PackageVariant is no longer wanted: the
//! warnings that make a deletion never quiet.
//!
//! A typo in a label value (`env: nowhere`) passes every schema check; what shows it is the
//! fleet itself: "matches 0 of 12 Repositories; the closest label values are env=prod (7),
//! env=staging (5)". The counts of a target are computed once, and only for a target that is
//! named in a warning, so a run without deletions or empty targets does no work here, and a
//! run with many deletions does one pass over the candidates per target.

use std::cell::OnceCell;
use std::collections::BTreeMap;

use crate::api::package_variant_set::{PackageVariantSet, RepositoryTarget, Target};
use crate::api::strict::closest;
use crate::common::fast_hash::{FastMap, FastSet};
use crate::krm::results::ResultItem;
use crate::package_variant_set::expansion::inputs::Item;
use crate::package_variant_set::expansion::selector::{CompiledSelector, Requirement};
use crate::package_variant_set::expansion::targets::{selector_of, str_at, DownstreamContext};

/// Most targets named in one deletion warning; the rest are counted.
const TARGETS_NAMED: usize = 3;
/// Most label values listed as "closest".
const VALUES_NAMED: usize = 3;

/// Explains the run's empty targets and deletions. Build once per run.
pub struct Explainer<'a> {
    set: &'a PackageVariantSet,
    items: &'a [Item<'a>],
    namespace: &'a str,
    /// How many downstreams each target made (after any `when` condition).
    made: Vec<usize>,
    selectors: Vec<OnceCell<Option<SelectorCounts<'a>>>>,
    listed: Vec<OnceCell<Listed<'a>>>,
}

/// One selector target over its candidates: how many it matches, and, when none, the hint.
struct SelectorCounts<'a> {
    field: String,
    kind: &'a str,
    selector: CompiledSelector,
    candidates: usize,
    matched: usize,
    /// Item index of each candidate by name (the first of a name).
    by_name: FastMap<&'a str, usize>,
    /// "the closest label values are env=prod (7), env=staging (5); did you mean env=prod?",
    /// when it matches nothing.
    hint: String,
}

/// The repositories and (repository, package) pairs a `repositories` target lists.
#[derive(Default)]
struct Listed<'a> {
    repos: FastSet<&'a str>,
    pairs: FastSet<(&'a str, &'a str)>,
}

/// `Repository` → `Repositories`.
fn plural(kind: &str) -> String {
    if let Some(stem) = kind.strip_suffix('y') {
        format!("{stem}ies")
    } else if kind.ends_with('s') {
        format!("{kind}es")
    } else {
        format!("{kind}s")
    }
}

fn non_empty(s: &Option<String>) -> bool {
    s.as_deref().is_some_and(|s| !s.is_empty())
}

/// Whether the target's template sets the downstream repo, or the package.
fn templated(target: &Target) -> (bool, bool) {
    let d = target.template.as_ref().and_then(|t| t.downstream.as_ref());
    d.map_or((false, false), |d| {
        (
            non_empty(&d.repo) || non_empty(&d.repo_expr),
            non_empty(&d.package) || non_empty(&d.package_expr),
        )
    })
}

impl<'a> Explainer<'a> {
    pub fn new(
        set: &'a PackageVariantSet,
        items: &'a [Item<'a>],
        namespace: &'a str,
        contexts: &[DownstreamContext],
    ) -> Self {
        let n = set.spec.targets.len();
        let mut made = vec![0; n];
        for c in contexts {
            if let Some(m) = made.get_mut(c.target) {
                *m += 1;
            }
        }
        Explainer {
            set,
            items,
            namespace,
            made,
            selectors: (0..n).map(|_| OnceCell::new()).collect(),
            listed: (0..n).map(|_| OnceCell::new()).collect(),
        }
    }

    /// A warning per selector target that makes no PackageVariant while objects of its kind
    /// exist (with none, the run is refused already), with the closest label values.
    pub fn empty_targets(&self) -> Vec<ResultItem> {
        let mut out = Vec::new();
        for (t, &made) in self.made.iter().enumerate() {
            if made > 0 {
                continue;
            }
            let Some(c) = self.counts(t) else { continue };
            if c.candidates == 0 {
                continue;
            }
            let message = if c.matched == 0 {
                format!(
                    "matches 0 of {} {} in namespace {:?}, so this target makes no PackageVariant; {}",
                    c.candidates,
                    plural(c.kind),
                    self.namespace,
                    c.hint
                )
            } else {
                format!(
                    "matches {} of {} {}, but spec.targets[{t}].when keeps none of them, so this target makes no PackageVariant",
                    c.matched,
                    c.candidates,
                    plural(c.kind)
                )
            };
            out.push(
                ResultItem::warning(message)
                    .field(c.field.clone())
                    .on_config(),
            );
        }
        out
    }

    /// The warning for deleting the owned PackageVariant at item `i`: its name, its downstream,
    /// and why each target (the first few) does not want it. `refused`: the deletion guard
    /// refuses the run, so the variant is not deleted and the warning says it would be.
    pub fn deletion(&self, i: usize, refused: bool) -> Option<ResultItem> {
        let verb = if refused { "would delete" } else { "deletes" };
        let item = self.items.get(i)?;
        let json = item.json()?;
        if !crate::krm::object::json_at(json, "/spec/downstream").is_some_and(|d| d.is_object()) {
            return Some(
                ResultItem::warning(format!(
                    "{verb} PackageVariant {:?}: it has no spec.downstream, so no target of the set can want it",
                    item.name()
                ))
                .field("spec.downstream")
                .on_item(i),
            );
        }
        let repo = str_at(json, "/spec/downstream/repo");
        let package = str_at(json, "/spec/downstream/package");
        let targets = &self.set.spec.targets;
        let mut reasons: Vec<String> = (0..targets.len())
            .take(TARGETS_NAMED)
            .filter_map(|t| self.why_not(t, repo, package))
            .collect();
        if targets.len() > TARGETS_NAMED {
            reasons.push(format!(
                "Nor does any of the other {} targets",
                targets.len() - TARGETS_NAMED
            ));
        }
        let why = if targets.is_empty() {
            "the set has no targets".to_string()
        } else {
            reasons.join(". ")
        };
        Some(
            ResultItem::warning(format!(
                "{verb} PackageVariant {:?} (downstream {repo:?}/{package:?}): no target of the set wants it any more. {why}",
                item.name()
            ))
            .on_item(i),
        )
    }

    /// Why target `t` does not make the downstream `repo`/`package`.
    fn why_not(&self, t: usize, repo: &str, package: &str) -> Option<String> {
        let target = self.set.spec.targets.get(t)?;
        let prefix = format!("spec.targets[{t}]");
        let (repo_templated, package_templated) = templated(target);
        let made = self.made.get(t).copied().unwrap_or(0);
        if repo_templated {
            return Some(format!(
                "{prefix} names its downstreams through template.downstream, and none of its {made} is {repo:?}/{package:?}"
            ));
        }
        if let Some(repos) = target.repositories.as_ref().filter(|r| !r.is_empty()) {
            let listed = self.listed(t, repos)?;
            return Some(if !listed.repos.contains(repo) {
                format!("{prefix}.repositories does not list {repo:?}")
            } else if package_templated {
                format!(
                    "{prefix}.repositories lists {repo:?}, and template.downstream gives it a package other than {package:?}"
                )
            } else if !listed.pairs.contains(&(repo, package)) {
                format!("{prefix}.repositories lists {repo:?} but not the package {package:?}")
            } else {
                // Listed, yet not made: a `when` condition dropped it.
                format!("{prefix}.when drops {repo:?}/{package:?}")
            });
        }
        let c = self.counts(t)?;
        let counted = format!(
            "it matches {} of {} {}",
            c.matched,
            c.candidates,
            plural(c.kind)
        );
        let counted = if c.matched == 0 {
            format!("{counted}: {}", c.hint)
        } else {
            counted
        };
        let is_repository_selector = target.repository_selector.is_some();
        if !is_repository_selector {
            return Some(format!(
                "{} selects no {} that gives the downstream {repo:?}/{package:?}, and {counted}",
                c.field, c.kind
            ));
        }
        let Some(&at) = c.by_name.get(repo) else {
            return Some(format!(
                "{}: there is no Repository {repo:?} among the items in namespace {:?}, and {counted}",
                c.field, self.namespace
            ));
        };
        let object = self.items.get(at)?;
        let labels = |key: &str| object.label(key);
        if let Some(r) = c.selector.first_miss(&labels) {
            let has = match object.label(r.key()) {
                Some(v) => format!("it has {}={v}", r.key()),
                None => format!("it has no label {:?}", r.key()),
            };
            return Some(format!(
                "{} no longer selects Repository {repo:?} ({has}; the selector wants {}), and {counted}",
                c.field,
                r.text()
            ));
        }
        let upstream_package = self
            .set
            .spec
            .upstream
            .as_ref()
            .map_or("", |u| u.package.as_str());
        Some(
            if made == 0 || !package_templated && package == upstream_package {
                format!(
                    "{} selects Repository {repo:?}, but spec.targets[{t}].when drops it",
                    c.field
                )
            } else {
                format!(
                "{} selects Repository {repo:?}, but its variant there has another package than {package:?}",
                c.field
            )
            },
        )
    }

    fn listed(&self, t: usize, repos: &'a [RepositoryTarget]) -> Option<&Listed<'a>> {
        let upstream_package = self
            .set
            .spec
            .upstream
            .as_ref()
            .map_or("", |u| u.package.as_str());
        Some(self.listed.get(t)?.get_or_init(|| {
            let mut l = Listed::default();
            for r in repos {
                l.repos.insert(r.name.as_str());
                if r.package_names.is_empty() {
                    l.pairs.insert((r.name.as_str(), upstream_package));
                }
                for p in &r.package_names {
                    l.pairs.insert((r.name.as_str(), p.as_str()));
                }
            }
            l
        }))
    }

    /// The counts of selector target `t` (`None` for other targets and bad selectors).
    fn counts(&self, t: usize) -> Option<&SelectorCounts<'a>> {
        self.selectors
            .get(t)?
            .get_or_init(|| self.count(t))
            .as_ref()
    }

    fn count(&self, t: usize) -> Option<SelectorCounts<'a>> {
        let target: &'a Target = self.set.spec.targets.get(t)?;
        if target.repositories.as_ref().is_some_and(|r| !r.is_empty()) {
            return None;
        }
        let (api_version, kind, selector, field) = selector_of(target)?;
        let selector = selector.compile().ok()?;
        let mut by_name: FastMap<&'a str, usize> = FastMap::default();
        let mut candidates = Vec::new();
        let mut matched = 0;
        for (i, item) in self.items.iter().enumerate() {
            if !item.is_kind_in_namespace(api_version, kind, self.namespace) {
                continue;
            }
            candidates.push(*item);
            by_name.entry(item.name()).or_insert(i);
            if selector.matches(&|key| item.label(key)) {
                matched += 1;
            }
        }
        let hint = if matched == 0 && !candidates.is_empty() {
            hint(&selector, &candidates, kind)
        } else {
            String::new()
        };
        Some(SelectorCounts {
            field: format!("spec.targets[{t}].{field}"),
            kind,
            selector,
            candidates: candidates.len(),
            matched,
            by_name,
            hint,
        })
    }
}

/// Why a selector matches none of `candidates` (at least one): for each requirement no
/// candidate meets, the label values the candidates do have, closest first, and a "did you
/// mean" within a small edit distance.
fn hint(selector: &CompiledSelector, candidates: &[Item], kind: &str) -> String {
    let kinds = plural(kind);
    let never: Vec<&Requirement> = selector
        .requirements()
        .iter()
        .filter(|r| !candidates.iter().any(|c| r.holds(c.label(r.key()))))
        .collect();
    if never.is_empty() {
        let all: Vec<String> = selector
            .requirements()
            .iter()
            .map(Requirement::text)
            .collect();
        return format!(
            "each of its requirements ({}) is met by some {kind}, but no {kind} meets all of them",
            all.join(", ")
        );
    }
    let mut parts = Vec::new();
    for r in never {
        let mut values: BTreeMap<&str, usize> = BTreeMap::new();
        for c in candidates {
            if let Some(v) = c.label(r.key()) {
                *values.entry(v).or_default() += 1;
            }
        }
        if values.is_empty() {
            let mut keys: FastSet<&str> = FastSet::default();
            for c in candidates {
                keys.extend(c.labels().map(|(k, _)| k));
            }
            let mut keys: Vec<&str> = keys.into_iter().collect();
            keys.sort_unstable();
            let mut part = format!("no {kind} has the label {:?}", r.key());
            if let Some(k) = closest(r.key(), keys.iter().copied()) {
                part.push_str(&format!("; did you mean the label {k:?}?"));
            }
            parts.push(part);
            continue;
        }
        if r.wanted().is_empty() {
            // NotIn or DoesNotExist that every candidate fails.
            parts.push(format!(
                "every one of the {} {kinds} fails {}",
                candidates.len(),
                r.text()
            ));
            continue;
        }
        let suggestion = r
            .wanted()
            .iter()
            .find_map(|w| closest(w, values.keys().copied()));
        let mut listed: Vec<(&str, usize)> = values.into_iter().collect();
        // The suggestion first, then the most common values.
        listed.sort_by_key(|&(v, n)| (Some(v) != suggestion, std::cmp::Reverse(n)));
        let more = listed.len().saturating_sub(VALUES_NAMED);
        let mut shown: Vec<String> = listed
            .iter()
            .take(VALUES_NAMED)
            .map(|(v, n)| format!("{}={v} ({n})", r.key()))
            .collect();
        if more > 0 {
            shown.push(format!("{more} more"));
        }
        let mut part = format!(
            "{} matches none; the closest label values are {}",
            r.text(),
            shown.join(", ")
        );
        if let Some(s) = suggestion {
            part.push_str(&format!("; did you mean {}={s}?", r.key()));
        }
        parts.push(part);
    }
    parts.join("; ")
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::package_variant_set::expansion::inputs::from_json;
    use crate::package_variant_set::expansion::targets::{REPOSITORY_API_VERSION, REPOSITORY_KIND};
    use serde_json::{json, Value};

    fn repo(name: &str, env: &str) -> Value {
        json!({"apiVersion": REPOSITORY_API_VERSION, "kind": REPOSITORY_KIND,
            "metadata": {"name": name, "labels": {"env": env}}})
    }

    fn set(target: Value) -> PackageVariantSet {
        crate::api::decode(
            &json!({"metadata": {"name": "s"}, "spec": {
                "upstream": {"repo": "up", "package": "base", "revision": 1},
                "targets": [target]}}),
            "",
        )
        .unwrap_or_default()
    }

    fn fleet() -> Vec<Value> {
        let mut items: Vec<Value> = (0..7).map(|i| repo(&format!("p{i}"), "prod")).collect();
        items.extend((0..5).map(|i| repo(&format!("s{i}"), "staging")));
        items.push(json!({"apiVersion": "config.porch.kpt.dev/v1alpha1", "kind": "PackageVariant",
            "metadata": {"name": "s-p1-base"}, "spec": {"downstream": {"repo": "p1", "package": "base"}}}));
        items
    }

    #[test]
    fn typo_in_a_value_shows_the_closest_values() {
        let items = fleet();
        let items = from_json(&items);
        let set = set(json!({"repositorySelector": {"matchLabels": {"env": "nowhere"}}}));
        let x = Explainer::new(&set, &items, "default", &[]);
        let w = x.empty_targets();
        assert_eq!(w.len(), 1);
        assert_eq!(
            w[0].message,
            r#"matches 0 of 12 Repositories in namespace "default", so this target makes no PackageVariant; env=nowhere matches none; the closest label values are env=prod (7), env=staging (5)"#
        );
        let set2 = self::set(json!({"repositorySelector": {"matchLabels": {"env": "prd"}}}));
        let x = Explainer::new(&set2, &items, "default", &[]);
        assert!(x.empty_targets()[0]
            .message
            .ends_with("env=prod (7), env=staging (5); did you mean env=prod?"));
        let d = x.deletion(12, false).map(|r| r.message).unwrap_or_default();
        assert_eq!(
            d,
            r#"deletes PackageVariant "s-p1-base" (downstream "p1"/"base"): no target of the set wants it any more. spec.targets[0].repositorySelector no longer selects Repository "p1" (it has env=prod; the selector wants env=prd), and it matches 0 of 12 Repositories: env=prd matches none; the closest label values are env=prod (7), env=staging (5); did you mean env=prod?"#
        );
    }

    #[test]
    fn typo_in_a_key_and_combined_requirements() {
        let items = fleet();
        let items = from_json(&items);
        let s = set(json!({"repositorySelector": {"matchLabels": {"evn": "prod"}}}));
        let m = Explainer::new(&s, &items, "default", &[]).empty_targets();
        assert!(
            m[0].message
                .ends_with(r#"no Repository has the label "evn"; did you mean the label "env"?"#),
            "{}",
            m[0].message
        );
        let s = set(json!({"repositorySelector": {"matchExpressions": [
            {"key": "env", "operator": "In", "values": ["prod"]},
            {"key": "env", "operator": "NotIn", "values": ["prod"]}]}}));
        let m = Explainer::new(&s, &items, "default", &[]).empty_targets();
        assert!(
            m[0].message.ends_with("each of its requirements (env=prod, env notin (prod)) is met by some Repository, but no Repository meets all of them"),
            "{}",
            m[0].message
        );
    }

    /// A selector that matches while its `when` condition keeps none (no contexts made).
    #[test]
    fn a_condition_that_keeps_none_is_named() {
        let items = fleet();
        let items = from_json(&items);
        let s = set(json!({"repositorySelector": {"matchLabels": {"env": "staging"}}}));
        let w = Explainer::new(&s, &items, "default", &[]).empty_targets();
        assert_eq!(
            w[0].message,
            "matches 5 of 12 Repositories, but spec.targets[0].when keeps none of them, so this target makes no PackageVariant"
        );
    }

    #[test]
    fn repositories_targets_say_what_they_list() {
        let items = fleet();
        let items = from_json(&items);
        let s = set(
            json!({"repositories": [{"name": "p2"}, {"name": "p1", "packageNames": ["other"]}]}),
        );
        let x = Explainer::new(&s, &items, "default", &[]);
        assert!(x.empty_targets().is_empty());
        let d = x.deletion(12, false).map(|r| r.message).unwrap_or_default();
        assert!(
            d.ends_with(r#"spec.targets[0].repositories lists "p1" but not the package "base""#),
            "{d}"
        );
    }
}
