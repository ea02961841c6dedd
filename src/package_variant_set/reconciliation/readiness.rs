//! `spec.rollout.readyExpr` (extension): readiness the set's author defines, as Flux's
//! ResourceSet `readyExpr`, kro's `readyWhen` and Argo CD's health checks let them.
//!
//! Why: the fixed rule (one `Ready` `True` of the current generation, [`super::rollout::is_ready`])
//! knows nothing of what a fleet means by healthy: a published downstream, a label a controller
//! writes. `readyExpr` is a CEL expression over two variables, evaluated for each variant
//! already on the new upstream:
//!
//! - `variant`: the PackageVariant as given (metadata, spec, status);
//! - `revisions`: its downstream PackageRevisions among the items (v1alpha1 and v1alpha2, as
//!   given), newest first: drafts (Draft, Proposed) by name, then by revision number down; a
//!   revision given in both versions once, in v1alpha2.
//!
//! It is compiled and checked with the run's other expressions: a type other than bool is
//! refused before anything runs; it is metered as the template's expressions are. For one
//! variant, an error (a missing field, a cost limit) or a value that is not a bool makes that
//! variant blocking, and its result names the error: a doubt never opens a gate. A failed
//! render ([`super::downstream_revisions`]) blocks whatever it says.

use std::sync::Arc;

use serde_json::Value;

use super::deletion_order;
use super::rollout::{Rollout, FIELD};
use crate::api::package_variant_set::Rollout as RolloutSpec;
use crate::cel::{self, Bindings, Declarations, Program, ProgramCache};
use crate::krm::object::json_at;
use crate::krm::results::ResultItem;
use crate::package_variant_set::expansion::inputs::Item;
use crate::package_variant_set::expansion::targets::str_at;
use crate::package_variant_set::expansion::upstreams::revisions::{Index, V1ALPHA2};

/// Compiles `readyExpr` (against `variant` and `revisions` only); `Ok(None)` without one.
pub fn compile(
    spec: &RolloutSpec,
    programs: &mut ProgramCache,
) -> Result<Option<Arc<Program>>, Box<ResultItem>> {
    let Some(source) = &spec.ready_expr else {
        return Ok(None);
    };
    let error = |message: String| {
        Box::new(
            ResultItem::error(message)
                .field(format!("{FIELD}.readyExpr"))
                .on_config(),
        )
    };
    if source.trim().is_empty() {
        return Err(error("is empty: write a CEL expression giving whether a variant is ready (e.g. variant.status.conditions.exists(c, c.type == 'Ready' && c.status == 'True')), or remove readyExpr".into()));
    }
    if spec.require_ready == Some(false) {
        return Err(error("says when a variant is ready, but requireReady: false waits for nothing: remove requireReady (readyExpr implies it) or readyExpr".into()));
    }
    match programs.compile_declared(source, Declarations::Readiness) {
        Err(e) => Err(error(e)),
        Ok(p) if !p.may_be_bool() => Err(error(format!(
            "must give a bool (whether the variant is ready), but {source:?} is of type {}; compare it, e.g. {source} == 'Published'",
            p.output_type()
        ))),
        Ok(p) => Ok(Some(p)),
    }
}

/// Reads the rollout's `readyExpr` and `deletionOrder` into `rollout` (read by
/// `rollout::read`), compiling the expression with the run's others: their errors, reported
/// with the set's other errors (also when the rest of the rollout was refused).
pub fn read_extras(
    spec: Option<&RolloutSpec>,
    rollout: Option<&mut Rollout>,
    programs: &mut ProgramCache,
) -> Vec<ResultItem> {
    let Some(spec) = spec else {
        return Vec::new();
    };
    match (compile(spec, programs), deletion_order::read(spec), rollout) {
        (Ok(ready_expr), Ok(reverse), Some(r)) => {
            r.require_ready |= ready_expr.is_some(); // what requireReady waits for
            (r.ready_expr, r.reverse_deletions) = (ready_expr, reverse);
            Vec::new()
        }
        (a, b, _) => a.err().into_iter().chain(b.err()).map(|e| *e).collect(),
    }
}

/// Evaluates `readyExpr` for the variants of one run.
pub struct Readiness {
    program: Arc<Program>,
    bindings: Bindings,
}

impl Readiness {
    /// The rollout's `readyExpr`, if any, ready to evaluate.
    pub fn of(rollout: Option<&Rollout>) -> Option<Self> {
        rollout.and_then(|r| r.ready_expr.clone()).map(Self::new)
    }

    pub fn new(program: Arc<Program>) -> Self {
        Readiness {
            program,
            bindings: Bindings::new(ProgramCache::new().env(), None),
        }
    }

    /// Whether the variant `variant` (whose downstream is `downstream`) is ready: `Err` with
    /// why it is not known (an evaluation error, named).
    pub fn judge(
        &self,
        items: &[Item],
        index: &Index,
        variant: &Value,
        downstream: (&str, &str),
    ) -> Result<bool, String> {
        let revisions: Vec<::cel::Value> = downstream_revisions(items, index, downstream)
            .into_iter()
            .map(cel::json_input)
            .collect();
        let variant = cel::as_val(cel::json_input(variant));
        let revisions = cel::as_val(::cel::Value::List(Arc::new(revisions)));
        self.bindings
            .readiness(variant.as_ref(), revisions.as_ref())
            .evaluate_bool(&self.program)
    }
}

/// The downstream PackageRevisions of `package` among the items, both versions, newest first
/// (see the module's comment).
pub fn downstream_revisions<'a>(
    items: &[Item<'a>],
    index: &Index<'a>,
    package: (&str, &str),
) -> Vec<&'a Value> {
    let mut found: Vec<&'a Value> = Vec::new();
    if let Some(bucket) = index.bucket(package.0, package.1) {
        found.extend(bucket.revisions.iter().map(|r| r.json));
    }
    if let Some(v2) = index.v1alpha2_of((package.0, package.1)) {
        found.extend(v2.iter().filter_map(|&i| items.get(i).and_then(Item::json)));
    }
    // Drafts first, then by revision down; one name's copies together, v1alpha2 first.
    let key = |v: &&'a Value| {
        let v2 = str_at(v, "/apiVersion") == V1ALPHA2;
        let at = if v2 {
            "/status/revision"
        } else {
            "/spec/revision"
        };
        let draft = matches!(str_at(v, "/spec/lifecycle"), "" | "Draft" | "Proposed");
        let revision = json_at(v, at).and_then(Value::as_i64).unwrap_or(0);
        (
            !draft,
            std::cmp::Reverse(revision),
            str_at(v, "/metadata/name"),
            !v2,
        )
    };
    found.sort_by_key(key);
    found.dedup_by(|later, first| {
        str_at(later, "/metadata/name") == str_at(first, "/metadata/name")
    });
    found
}

/// Why `readyExpr` is false for `variant`, with the values a person checks first: its `Ready`
/// condition's status and its newest downstream revision's lifecycle (issue 48: "readyExpr is
/// false" alone said nothing of what it read).
pub fn false_because(
    variant: &Value,
    items: &[Item],
    index: &Index,
    downstream: (&str, &str),
) -> String {
    let ready: Vec<&str> = json_at(variant, "/status/conditions")
        .and_then(Value::as_array)
        .into_iter()
        .flatten()
        .filter(|c| str_at(c, "/type") == "Ready")
        .map(|c| match str_at(c, "/status") {
            "" => "(no status)",
            s => s,
        })
        .collect();
    let ready = match ready.as_slice() {
        [] => "no Ready condition".to_string(),
        [one] => format!("Ready {one}"),
        many => format!("Ready {}", many.join(" and ")),
    };
    let revisions = downstream_revisions(items, index, downstream);
    let newest = match revisions.first() {
        None => "no downstream revision among the items".to_string(),
        Some(r) => format!(
            "newest downstream revision {:?} {}",
            super::render_state::shortened(str_at(r, "/metadata/name")),
            match str_at(r, "/spec/lifecycle") {
                "" => "without a lifecycle",
                l => l,
            }
        ),
    };
    format!("readyExpr is false (it read: {ready}; {newest})")
}
