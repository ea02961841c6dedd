//! Rendering one PackageVariant spec from a target's template (Porch's
//! `renderPackageVariantSpec`).
//!
//! The order of evaluation decides which error is reported first, and the overlay rules decide
//! the output shape, so both follow Porch exactly: repoExpr, repository lookup, packageExpr,
//! labelExprs (key then value per entry), annotationExprs, dataExprs, removeKeyExprs, injector
//! nameExprs, validators' then mutators' configMapExprs. Static values first, expressions
//! overwrite them, later entries win; empty maps are omitted, `packageContext: {}` is kept, an
//! empty pipeline is dropped, removeKeys are sorted and deduplicated.

mod compilation;
mod copied;
mod spec;
mod values;

use std::cell::OnceCell;
use std::collections::BTreeMap;

use cel::common::types::CelMap;

use crate::api::package_variant::{Downstream, PackageVariantSpec, Upstream};
use crate::api::package_variant_set::{FunctionTemplate, MapExpr, PackageVariantTemplate};
use crate::cel::{self as cel_env, Bindings, ProgramCache};
use crate::common::fast_hash::FastMap;
use crate::package_variant_set::expansion::inputs::Item;
use crate::package_variant_set::expansion::record::Records;

pub use compilation::{compile_all, expressions};
pub use copied::MAX_COPIED_BYTES;
use spec::render_spec;
use values::{Live, Replayed, Values};

/// A render failure. `field` is relative to the target (`template.labelExprs[0].valueExpr`);
/// `message` carries Porch's prefix (`template.labelExprs[0].valueExpr: no such key: x`).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct RenderError {
    pub field: String,
    pub message: String,
}

/// The Repository objects of the set's namespace, by name (first wins, as Porch's lookup
/// takes the first match in list order), and CEL's view of each (`repository`).
///
/// CEL's view of a repository is built the first time an expression that reads `repository`
/// needs it, and kept for the run: every variant, condition and wave of that repository binds
/// the same value. A repositorySelector target's `target` is the same object as its
/// `repository`, so both bind one value.
#[derive(Default)]
pub struct RepositoryIndex<'a> {
    by_name: FastMap<&'a str, usize>,
    items: Vec<Item<'a>>,
    vals: Vec<OnceCell<CelMap<'a>>>,
}

impl<'a> RepositoryIndex<'a> {
    /// Indexes `repositories` by `metadata.name`.
    pub fn new(repositories: impl IntoIterator<Item = Item<'a>>) -> Self {
        let mut index = RepositoryIndex::default();
        for repo in repositories {
            if !index.by_name.contains_key(repo.name()) {
                index.by_name.insert(repo.name(), index.items.len());
                index.items.push(repo);
                index.vals.push(OnceCell::new());
            }
        }
        index
    }

    pub(super) fn get(&self, name: &str) -> Option<Item<'a>> {
        self.by_name.get(name).map(|&i| self.items[i])
    }

    /// CEL's view of the repository named `name`, built once per run.
    pub fn val(&self, name: &str) -> Option<&CelMap<'a>> {
        let &i = self.by_name.get(name)?;
        Some(self.vals[i].get_or_init(|| object_val(&self.items[i])))
    }
}

/// Whether an expression may read the variable `repository`: its source names it (an
/// overestimate, which only costs building the value once).
pub fn reads_repository(source: &str) -> bool {
    source.contains("repository")
}

/// CEL's view of an object: name, namespace, labels and annotations, borrowed.
fn object_val<'v>(object: &Item<'v>) -> CelMap<'v> {
    cel_env::object_val(
        object.name(),
        object.namespace(),
        object.labels(),
        object.annotations(),
    )
}

/// One unrolled downstream, as the renderer needs it.
pub struct RenderInput<'a> {
    pub template: Option<&'a PackageVariantTemplate>,
    pub repo_default: &'a str,
    pub package_default: &'a str,
    /// The selected object (selector targets); `None` for a `repositories` target.
    pub object: Option<Item<'a>>,
    /// Which of the renderer's upstreams it is made from.
    pub upstream: usize,
}

/// Everything shared by all renders of one run. `'i`: the input items the repositories are
/// read from (CEL's views of them are kept for the run, so they outlive every render).
pub struct Renderer<'a, 'i> {
    pub programs: &'a mut ProgramCache,
    pub repositories: &'a RepositoryIndex<'i>,
    /// Per upstream of the set (one but for the extension's `spec.upstreams`): what every
    /// variant of it carries as `spec.upstream`, and its PackageRevision as CEL's `upstream`
    /// with the step counter, bound once for all its renders.
    upstreams: Vec<(Option<&'a Upstream>, Bindings)>,
    /// Static bytes of each template, and whether one of its expressions reads `repository`
    /// (by address: templates live as long as the renderer).
    per_template: FastMap<usize, (u64, bool)>,
    /// Static bytes the variants rendered so far carry ([`MAX_COPIED_BYTES`]), and how many.
    copied: (u64, usize),
}

impl<'a, 'i> Renderer<'a, 'i> {
    pub fn new(
        programs: &'a mut ProgramCache,
        upstream: Option<&'a Upstream>,
        // The upstream PackageRevision as CEL sees it.
        upstream_input: &cel::Value,
        repositories: &'a RepositoryIndex<'i>,
    ) -> Self {
        let bindings = Bindings::new(programs.env(), Some(upstream_input));
        Renderer {
            programs,
            repositories,
            upstreams: vec![(upstream, bindings)],
            per_template: FastMap::default(),
            copied: (0, 0),
        }
    }

    /// A renderer over several upstreams: `upstreams[k]` and its PackageRevision
    /// `inputs[k]` for the renders of [`RenderInput::upstream`] `k`.
    pub fn with_upstreams(
        programs: &'a mut ProgramCache,
        upstreams: &'a [Upstream],
        inputs: &[cel::Value],
        repositories: &'a RepositoryIndex<'i>,
    ) -> Self {
        let upstreams = upstreams
            .iter()
            .zip(inputs)
            .map(|(u, input)| (Some(u), Bindings::new(programs.env(), Some(input))))
            .collect();
        Renderer {
            programs,
            repositories,
            upstreams,
            per_template: FastMap::default(),
            copied: (0, 0),
        }
    }
}
/// `copyAndOverlayMapExpr`: the static map, then each entry in order (later wins). Empty
/// when `ev` does not build, its expressions evaluated all the same.
fn overlay(
    ev: &mut dyn Values,
    base: &BTreeMap<String, String>,
    exprs: &[MapExpr],
    field: &str,
    reserved: &[&str],
) -> Result<BTreeMap<String, String>, RenderError> {
    let build = ev.builds();
    let mut out = if build { base.clone() } else { BTreeMap::new() };
    for (j, me) in exprs.iter().enumerate() {
        let key = match &me.key_expr {
            Some(e) => {
                let at = || format!("{field}[{j}].keyExpr");
                let key = ev.eval(e, &at)?;
                check_key(&key, reserved, at())?;
                Some(key)
            }
            None => None,
        };
        let value = match &me.value_expr {
            Some(e) => Some(ev.eval(e, &|| format!("{field}[{j}].valueExpr"))?),
            None => None,
        };
        if build {
            out.insert(
                key.unwrap_or_else(|| me.key.clone().unwrap_or_default()),
                value.unwrap_or_else(|| me.value.clone().unwrap_or_default()),
            );
        }
    }
    Ok(out)
}

fn functions(
    ev: &mut dyn Values,
    templates: &[FunctionTemplate],
    field: &str,
) -> Result<Vec<crate::api::package_variant::Function>, RenderError> {
    let mut out = Vec::with_capacity(templates.len());
    for (i, t) in templates.iter().enumerate() {
        let config_map = overlay(
            ev,
            &t.config_map,
            &t.config_map_exprs,
            &format!("{field}[{i}].configMapExprs"),
            &[],
        )?;
        if ev.builds() {
            let mut f = t.function();
            f.config_map = config_map;
            out.push(f);
        }
    }
    Ok(out)
}

/// Refuses a key an expression gave that no PackageVariant can hold: an empty one, or one of
/// `reserved` (the package context keys Porch sets, which Porch's PackageVariant validation
/// refuses: every variant of the set would stall).
fn check_key(key: &str, reserved: &[&str], field: String) -> Result<(), RenderError> {
    let why = if key.is_empty() {
        "gives an empty key; a key must not be empty".to_string()
    } else if reserved.contains(&key) {
        format!(
            "gives the key {key:?}, which Porch sets: Porch would refuse the PackageVariant \
             (spec.packageContext: must not contain the key {key:?})"
        )
    } else {
        return Ok(());
    };
    Err(RenderError {
        message: format!("{field}: {why}"),
        field,
    })
}

impl Renderer<'_, '_> {
    /// Renders the spec of one downstream.
    pub fn render(&mut self, input: &RenderInput<'_>) -> Result<PackageVariantSpec, RenderError> {
        self.render_recording(input, None)
    }

    /// Evaluates the render of one downstream as [`Renderer::render`] does (same errors),
    /// appends every value its expressions produce to `record` in evaluation order (nothing
    /// for a target without template), and returns the downstream alone: [`replay`] builds
    /// the rest of the spec when it is wanted.
    pub fn record(
        &mut self,
        input: &RenderInput<'_>,
        record: &mut Records,
    ) -> Result<Downstream, RenderError> {
        let spec = self.render_recording(input, Some(record))?;
        Ok(spec.downstream.unwrap_or_default())
    }

    fn render_recording(
        &mut self,
        input: &RenderInput<'_>,
        record: Option<&mut Records>,
    ) -> Result<PackageVariantSpec, RenderError> {
        let Some((upstream, bindings)) = self.upstreams.get(input.upstream) else {
            return Err(RenderError {
                field: "template".to_string(),
                message: "internal error: a downstream of an upstream the set does not have"
                    .to_string(),
            });
        };
        let upstream = *upstream;
        // No template: no repository lookup and no CEL.
        let Some(t) = input.template else {
            return Ok(untemplated(
                upstream,
                input.repo_default,
                input.package_default,
            ));
        };
        let (each, reads_repository) = *self
            .per_template
            .entry(t as *const PackageVariantTemplate as usize)
            .or_insert_with(|| {
                let reads = expressions(t).iter().any(|(_, e)| reads_repository(e));
                (copied::static_bytes(t), reads)
            });
        self.copied.0 += each;
        self.copied.1 += 1;
        if self.copied.0 > MAX_COPIED_BYTES {
            return Err(RenderError {
                field: "template".to_string(),
                message: format!("template: {}", copied::too_many_copies(each, self.copied.1)),
            });
        }
        let target = match &input.object {
            Some(object) => object_val(object),
            None => cel_env::repositories_target_val(input.repo_default, input.package_default),
        };
        let activation = bindings.activation(input.repo_default, input.package_default, &target);
        let mut live = Live {
            programs: &mut *self.programs,
            activation,
            repositories: self.repositories,
            object: input.object.map(|o| (o, &target)),
            reads_repository,
            record,
            defaults: (input.repo_default, input.package_default),
        };
        render_spec(
            upstream,
            t,
            input.repo_default,
            input.package_default,
            &mut live,
        )
    }
}

/// The spec [`Renderer::record`] rendered, built again from the values it recorded from
/// index `from` of `record` (no CEL, no lookup).
pub fn replay(
    upstream: Option<&Upstream>,
    template: Option<&PackageVariantTemplate>,
    repo_default: &str,
    package_default: &str,
    record: &Records,
    from: usize,
) -> Result<PackageVariantSpec, RenderError> {
    let Some(t) = template else {
        return Ok(untemplated(upstream, repo_default, package_default));
    };
    let mut values = Replayed { record, next: from };
    render_spec(upstream, t, repo_default, package_default, &mut values)
}

/// The spec of a target without template: upstream and the default downstream.
fn untemplated(
    upstream: Option<&Upstream>,
    repo_default: &str,
    package_default: &str,
) -> PackageVariantSpec {
    PackageVariantSpec {
        upstream: upstream.cloned(),
        downstream: Some(Downstream {
            repo: repo_default.to_string(),
            package: package_default.to_string(),
        }),
        ..Default::default()
    }
}

#[cfg(test)]
mod tests;
