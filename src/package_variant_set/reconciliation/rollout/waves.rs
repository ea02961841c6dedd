//! Gate 5's input: each wanted variant's wave, from `waveExpr`. Its own file so that the
//! evaluation of the expression (and its errors) reads apart from the gates that use it.

use super::approval;
use super::{Rollout, FIELD};
use crate::cel::{self as cel_env, Bindings, IntOrString, ProgramCache};
use crate::krm::results::ResultItem;
use crate::package_variant_set::expansion::inputs::Item;
use crate::package_variant_set::expansion::targets::DownstreamContext;
use crate::package_variant_set::expansion::templates::{reads_repository, RepositoryIndex};
use crate::package_variant_set::reconciliation::ensure::DesiredVariant;

/// Each wanted variant's wave (by its context index), when the rollout has a `waveExpr`.
#[derive(Debug, Clone, Default)]
pub struct Waves {
    pub(super) by_context: Vec<Option<IntOrString>>,
}

impl Waves {
    /// The wave of a wanted variant.
    pub fn of(&self, d: &DesiredVariant) -> Option<&IntOrString> {
        self.by_context.get(d.context).and_then(Option::as_ref)
    }

    /// The wave of a wanted variant as its annotation writes it (`2`, `canary`).
    pub fn text(&self, d: &DesiredVariant) -> Option<String> {
        self.of(d).map(approval::value)
    }
}

/// What `waveExpr` sees of one variant: the variables of its template's render.
pub struct WaveInputs<'a, 'r> {
    pub contexts: &'a [DownstreamContext],
    pub items: &'a [Item<'a>],
    pub repositories: &'a RepositoryIndex<'r>,
    /// The `upstream` variable of each of the set's upstreams, by the context's `upstream`.
    pub upstreams: &'a [::cel::Value],
}

/// Evaluates `waveExpr` for every wanted variant (existing and new, so that a mistake shows
/// whatever state the fleet is in). `target` is the selected object or the `repositories`
/// entry, `repository` the variant's downstream Repository when it is among the items. An
/// error, or one variant's int next to another's string, stops the run.
pub fn waves<'d>(
    rollout: &Rollout,
    programs: &ProgramCache,
    desired: impl Iterator<Item = &'d DesiredVariant>,
    inputs: &WaveInputs<'_, '_>,
) -> Result<Waves, Box<ResultItem>> {
    let mut waves = Waves {
        by_context: vec![None; inputs.contexts.len()],
    };
    let Some(program) = &rollout.wave_expr else {
        return Ok(waves);
    };
    let error = |message: String| {
        Box::new(
            ResultItem::error(message)
                .field(format!("{FIELD}.waveExpr"))
                .on_config(),
        )
    };
    let bindings: Vec<Bindings> = inputs
        .upstreams
        .iter()
        .map(|u| Bindings::new(programs.env(), Some(u)))
        .collect();
    let reads = reads_repository(program.source());
    // The first variant's wave, to tell a mix of ints and strings.
    let mut first: Option<(String, IntOrString)> = None;
    for d in desired {
        let Some(ctx) = inputs.contexts.get(d.context) else {
            continue;
        };
        let Some(bindings) = bindings.get(ctx.upstream) else {
            continue;
        };
        let object = ctx.object.and_then(|i| inputs.items.get(i).copied());
        let value = {
            let target = match &object {
                Some(o) => {
                    cel_env::object_val(o.name(), o.namespace(), o.labels(), o.annotations())
                }
                None => cel_env::repositories_target_val(&ctx.repo_default, &ctx.package_default),
            };
            let mut activation =
                bindings.activation(&ctx.repo_default, &ctx.package_default, &target);
            // Built once per run, and only when the expression reads it.
            if let Some(r) = reads
                .then(|| inputs.repositories.val(d.downstream().0))
                .flatten()
            {
                activation.bind_repository(r);
            }
            activation.evaluate_int_or_string(program)
        };
        let of = match &object {
            Some(o) => format!(
                "{} {:?} (PackageVariant {:?})",
                o.kind(),
                o.name(),
                d.name()
            ),
            None => format!(
                "repository {:?} (PackageVariant {:?})",
                ctx.repo_default,
                d.name()
            ),
        };
        let value = value.map_err(|e| error(format!("for {of}: {e}")))?;
        match &first {
            None => first = Some((of, value.clone())),
            Some((first_of, first_value)) if !same_kind(first_value, &value) => {
                return Err(error(format!(
                    "gives {} for {first_of} but {} for {of}: the waves must be all ints or all strings (e.g. int(target.labels['wave']))",
                    described(first_value),
                    described(&value)
                )));
            }
            Some(_) => {}
        }
        if let Some(slot) = waves.by_context.get_mut(d.context) {
            *slot = Some(value);
        }
    }
    approval::check(rollout, &waves)?;
    Ok(waves)
}

fn same_kind(a: &IntOrString, b: &IntOrString) -> bool {
    matches!(
        (a, b),
        (IntOrString::Int(_), IntOrString::Int(_))
            | (IntOrString::String(_), IntOrString::String(_))
    )
}

fn described(v: &IntOrString) -> String {
    match v {
        IntOrString::Int(i) => format!("int {i}"),
        IntOrString::String(s) => format!("string {s:?}"),
    }
}

/// A wave as the summary names it: `2`, `"canary"`.
pub(super) fn wave_text(v: &IntOrString) -> String {
    match v {
        IntOrString::Int(i) => i.to_string(),
        IntOrString::String(s) => format!("{s:?}"),
    }
}
