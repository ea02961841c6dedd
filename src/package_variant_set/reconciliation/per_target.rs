//! One result per target (extension, under `spec.rollout`): every variant the run creates,
//! upgrades, holds back (waits), is held back by (blocking) or deletes, after the summary.
//!
//! Why: a fleet of 1,000 read as one summary line, cut at 20 names per group, tells an
//! operator nothing about one site. Each result has `resourceRef` to the PackageVariant and
//! one line: what happened, the wave, the upstream before and after, and for a blocking
//! variant why (which condition, which revision, the render error's first line). Severity
//! info, warning for a blocking one, so `kpt fn eval --results-dir` gives a file a script can
//! read target by target (docs/fleet-safety.md).
//!
//! Bounded: every value is quoted (no line break survives) and cut to [`MAX_VALUE`]
//! characters, so a result is at most about 1 KB whatever the input; building them is linear.

use serde_json::Value;

use super::deletion_order;
use super::ensure::DesiredVariant;
use super::rollout::{Decision, Gate, Waves};
use crate::api::package_variant::{Upstream, PACKAGE_VARIANT_KIND};
use crate::krm::object::json_at;
use crate::krm::results::{ResourceRef, ResultItem, Severity};
use crate::package_variant_set::expansion::inputs::Item;

/// Most characters of one value (a name, an upstream field, a reason) quoted in a result.
pub const MAX_VALUE: usize = 253;

/// Why an upgrade the sync policy forbids waits.
const KEPT_UPDATE: &str =
    "the set's sync policy (package-variant.fn.kpt.dev/sync-policy) forbids updates: it keeps its spec";
/// Why a deletion the sync policy forbids waits.
const KEPT_DELETE: &str =
    "the set's sync policy (package-variant.fn.kpt.dev/sync-policy) forbids deletions: it stays";

/// What one run did, as [`results`] reads it.
pub struct Run<'a, 'i> {
    pub items: &'a [Item<'i>],
    pub namespace: &'a str,
    /// Per upstream of the set: its variants' `spec.upstream` (and the tag it follows).
    pub upstreams: &'a [(Upstream, Option<String>)],
    pub creates: &'a [DesiredVariant],
    /// The new variants the rollout does not create yet, and why (the holding gate's word).
    pub held_creates: &'a [(DesiredVariant, Gate, String)],
    /// (item index, what the set wants of it) of every existing variant the set still wants.
    pub existing: &'a [(usize, DesiredVariant)],
    /// Item indexes of the variants whose `spec.upstream` this run changes.
    pub upgraded: Vec<usize>,
    pub decision: &'a Decision,
    /// Item indexes deleted now, and held for a later run.
    pub deleted: &'a [usize],
    pub deletion_held: &'a [(usize, Gate, String)],
    /// Item indexes of the deletions the sync policy forbids (they stay).
    pub kept_deletes: &'a [usize],
    pub waves: &'a Waves,
    /// The apiVersion a new variant is written with.
    pub api_version_of: &'a dyn Fn(&DesiredVariant) -> Option<&'static str>,
}

/// The results of one run: created, then new ones held (in target order), then the existing variants (upgraded,
/// waiting, blocking) and the deletions, in item order. Linear but for two sorts.
pub fn results(run: Run) -> Vec<ResultItem> {
    let upstreams: Vec<Value> = run
        .upstreams
        .iter()
        .map(|(u, _)| serde_json::to_value(u).unwrap_or(Value::Null))
        .collect();
    let mut out = Vec::with_capacity(run.creates.len() + run.existing.len());
    let new = (run
        .creates
        .iter()
        .map(|d| (d, Action::Created, Gate::None, "")))
    .chain((run.held_creates.iter()).map(|(d, gate, why)| (d, Action::Waits, *gate, why.as_str())));
    for (d, action, gate, reason) in new {
        let t = Target {
            action,
            name: d.name(),
            wave: run.waves.text(d),
            before: None,
            after: upstreams.get(d.upstream),
            reason,
            gate,
        };
        let api_version = (run.api_version_of)(d).unwrap_or_default();
        out.push(t.result(None, || reference(api_version, d.name(), run.namespace)));
    }
    // (item, wave, upstream of the set), by item.
    let mut existing: Vec<(usize, Option<String>, usize)> = run
        .existing
        .iter()
        .map(|(i, d)| (*i, run.waves.text(d), d.upstream))
        .collect();
    existing.sort_unstable_by_key(|e| e.0);
    let mut listed: Vec<(usize, Action, Gate, &str)> = Vec::new();
    listed.extend((run.upgraded.iter()).map(|&i| (i, Action::Upgraded, Gate::None, "")));
    listed.extend(
        run.decision
            .waiting
            .iter()
            .map(|(i, gate, why)| (*i, Action::Waits, *gate, why.as_str())),
    );
    listed.extend(
        run.decision
            .blocking
            .iter()
            .map(|(i, why)| (*i, Action::Blocking, Gate::Readiness, why.as_str())),
    );
    listed.extend(
        (run.decision.kept.iter()).map(|&i| (i, Action::Waits, Gate::SyncPolicy, KEPT_UPDATE)),
    );
    listed.extend((run.deleted.iter()).map(|&i| (i, Action::Deleted, Gate::None, "")));
    listed.extend(
        (run.kept_deletes.iter())
            .map(|&i| (i, Action::DeletionWaits, Gate::SyncPolicy, KEPT_DELETE)),
    );
    listed.extend(
        run.deletion_held
            .iter()
            .map(|(i, gate, why)| (*i, Action::DeletionWaits, *gate, why.as_str())),
    );
    listed.sort_by_key(|e| e.0);
    for (i, action, gate, reason) in listed {
        let wanted = existing
            .binary_search_by_key(&i, |e| e.0)
            .ok()
            .and_then(|at| existing.get(at));
        let before = run
            .items
            .get(i)
            .and_then(Item::json)
            .and_then(|j| json_at(j, "/spec/upstream"));
        let after = match action {
            Action::Upgraded | Action::Waits => wanted.and_then(|e| upstreams.get(e.2)),
            _ => None,
        };
        let wave = match wanted {
            Some((_, w, _)) => w.clone(),
            None => deletion_order::annotation(run.items, i).map(str::to_string),
        };
        let t = Target {
            action,
            name: run.items.get(i).map_or("", Item::name),
            wave,
            before,
            after,
            reason,
            gate,
        };
        out.push(t.result(Some(i), ResourceRef::default));
    }
    out
}

/// What the run does to one variant.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Action {
    Created,
    Upgraded,
    /// Held back by the rollout (a later wave, the per-run limit, an approval, a blocker).
    Waits,
    /// On the new upstream but not ready: it holds the rollout back.
    Blocking,
    Deleted,
    /// A deletion held back for a later run (reverse waves).
    DeletionWaits,
}

impl Action {
    /// The `action` tag's value.
    fn tag(self) -> &'static str {
        match self {
            Action::Created => "created",
            Action::Upgraded => "upgraded",
            Action::Waits => "waits",
            Action::Blocking => "blocking",
            Action::Deleted => "deleted",
            Action::DeletionWaits => "deletionWaits",
        }
    }

    /// The word the message uses: the tag's, but for the one tag written in camel case.
    fn text(self) -> &'static str {
        match self {
            Action::DeletionWaits => "deletion waits",
            other => other.tag(),
        }
    }
}

/// One variant's result.
#[derive(Debug)]
pub struct Target<'a> {
    pub action: Action,
    /// The variant's name.
    pub name: &'a str,
    /// Its wave (the `waveExpr` value), if the rollout has waves.
    pub wave: Option<String>,
    /// `spec.upstream` before the run (`None` for a new variant).
    pub before: Option<&'a Value>,
    /// `spec.upstream` after the run, or the one it waits for (`None` for a deletion).
    pub after: Option<&'a Value>,
    /// Why (blocking, waiting), or empty.
    pub reason: &'a str,
    /// The gate that holds it ([`Gate::None`] when it moves).
    pub gate: Gate,
}

impl Target<'_> {
    /// The result; `item` is the variant's input item (its `resourceRef` is filled from it),
    /// else `reference` names the new variant.
    pub fn result(
        &self,
        item: Option<usize>,
        reference: impl FnOnce() -> ResourceRef,
    ) -> ResultItem {
        let severity = if self.action == Action::Blocking {
            Severity::Warning
        } else {
            Severity::Info
        };
        let mut message = format!("PackageVariant {:?} {}", cut(self.name), self.action.text());
        if let Some(w) = &self.wave {
            message.push_str(&format!(", wave {:?}", cut(w)));
        }
        match (self.before, self.after) {
            (Some(b), Some(a)) if b != a => {
                message.push_str(&format!(", upstream {} -> {}", upstream(b), upstream(a)))
            }
            (Some(b), _) => message.push_str(&format!(", upstream {}", upstream(b))),
            (None, Some(a)) => message.push_str(&format!(", upstream {}", upstream(a))),
            (None, None) => {}
        }
        if !self.reason.is_empty() {
            message.push_str(&format!(": {:?}", cut(self.reason)));
        }
        let text = |u: Option<&Value>| u.map_or(String::new(), upstream_tag);
        let result = ResultItem::new(severity, message)
            .field("spec.upstream")
            .tag("action", self.action.tag())
            .tag(
                "wave",
                self.wave
                    .as_deref()
                    .map_or(String::new(), |w| cut(w).to_string()),
            )
            .tag("gate", self.gate.name())
            .tag("from", text(self.before))
            .tag("to", text(self.after));
        match item {
            Some(i) => result.on_item(i),
            None => {
                let mut result = result;
                result.resource_ref = Some(reference());
                result
            }
        }
    }
}

/// `resourceRef` of a new PackageVariant.
pub fn reference(api_version: &str, name: &str, namespace: &str) -> ResourceRef {
    ResourceRef {
        api_version: api_version.to_string(),
        kind: PACKAGE_VARIANT_KIND.to_string(),
        name: name.to_string(),
        namespace: (!namespace.is_empty()).then(|| namespace.to_string()),
    }
}

/// `spec.upstream` in one line: `"blueprints"/"base" revision 2` (or its workspace).
fn upstream(u: &Value) -> String {
    upstream_text(u, true)
}

/// `spec.upstream` as a tag: `blueprints/base revision 2` (or `workspace v2`), unquoted.
fn upstream_tag(u: &Value) -> String {
    upstream_text(u, false)
}

/// `spec.upstream`'s repo, package, revision and workspace, each quoted or not.
fn upstream_text(u: &Value, quoted: bool) -> String {
    let text = |k: &str| u.get(k).and_then(Value::as_str).unwrap_or("");
    let show = |s: &str| {
        if quoted {
            format!("{:?}", cut(s))
        } else {
            cut(s).to_string()
        }
    };
    let mut out = format!("{}/{}", show(text("repo")), show(text("package")));
    match u.get("revision") {
        Some(Value::Number(n)) => out.push_str(&format!(" revision {n}")),
        Some(Value::String(s)) => out.push_str(&format!(" revision {}", show(s))),
        _ => {}
    }
    match text("workspaceName") {
        "" => {}
        w => out.push_str(&format!(" workspace {}", show(w))),
    }
    out
}

/// `s` cut to [`MAX_VALUE`] characters.
fn cut(s: &str) -> &str {
    match s.char_indices().nth(MAX_VALUE) {
        Some((end, _)) => &s[..end],
        None => s,
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn a_result_is_one_bounded_line() {
        let long = format!("a\n{}", "x".repeat(5000));
        let before = json!({"repo": long, "package": "p", "revision": 1});
        let after = json!({"repo": "r", "package": "p", "revision": 2});
        let t = Target {
            action: Action::Blocking,
            name: &long,
            wave: Some(long.clone()),
            before: Some(&before),
            after: Some(&after),
            reason: &long,
            gate: Gate::Readiness,
        };
        let r = t.result(Some(0), || reference("", "", ""));
        assert!(!r.message.contains('\n'));
        assert!(
            r.message.len() < 5 * (MAX_VALUE + 40),
            "{}",
            r.message.len()
        );
        assert_eq!(r.severity, Severity::Warning);
    }
}
