//! Rendering one PackageVariant spec from a target's template (Porch's
//! `renderPackageVariantSpec`).
//!
//! The order of evaluation decides which error is reported first, and the overlay rules decide
//! the output shape, so both follow Porch exactly: repoExpr, repository lookup, packageExpr,
//! labelExprs (key then value per entry), annotationExprs, dataExprs, removeKeyExprs, injector
//! nameExprs, validators' then mutators' configMapExprs. Static values first, expressions
//! overwrite them, later entries win; empty maps are omitted, `packageContext: {}` is kept, an
//! empty pipeline is dropped, removeKeys are sorted and deduplicated.

use std::cell::OnceCell;
use std::collections::{BTreeMap, BTreeSet, HashMap};

use crate::api::package_variant::{
    Downstream, InjectionSelector, PackageContext, PackageVariantSpec, Pipeline, Upstream,
};
use crate::api::package_variant_set::{FunctionTemplate, MapExpr, PackageVariantTemplate};
use crate::package_variant_set::cel::{self as cel_env, Activation, Bindings, ProgramCache};

/// A render failure. `field` is relative to the target (`template.labelExprs[0].valueExpr`);
/// `message` carries Porch's prefix (`template.labelExprs[0].valueExpr: no such key: x`).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct RenderError {
    pub field: String,
    pub message: String,
}

/// The Repository objects of the set's namespace, as CEL inputs, by name (first wins, as
/// Porch's lookup takes the first match in list order).
///
/// Each input is built on first use and then shared: a repositorySelector target's `target`
/// is the same object as its `repository`, so both bind one value, and repositories no target
/// reaches are never converted.
#[derive(Default)]
pub struct RepositoryIndex<'a> {
    by_name: HashMap<&'a str, (&'a serde_json::Value, OnceCell<cel::Value>)>,
}

impl<'a> RepositoryIndex<'a> {
    /// Indexes `repositories` (JSON objects) by `metadata.name`.
    pub fn new(repositories: impl IntoIterator<Item = &'a serde_json::Value>) -> Self {
        let mut by_name = HashMap::new();
        for repo in repositories {
            let name = crate::package_variant_set::targets::str_at(repo, "/metadata/name");
            by_name.entry(name).or_insert((repo, OnceCell::new()));
        }
        RepositoryIndex { by_name }
    }

    fn get(&self, name: &str) -> Option<&cel::Value> {
        self.by_name
            .get(name)
            .map(|(repo, input)| input.get_or_init(|| cel_env::object_input(repo)))
    }

    /// The shared input of `object` when it is the indexed repository of its name.
    fn input_of(&self, object: &serde_json::Value) -> Option<&cel::Value> {
        let name = crate::krm::object::json_at(object, "/metadata/name")?.as_str()?;
        let (repo, input) = self.by_name.get(name)?;
        std::ptr::eq(*repo, object).then(|| input.get_or_init(|| cel_env::object_input(repo)))
    }
}

/// One unrolled downstream, as the renderer needs it.
pub struct RenderInput<'a> {
    pub template: Option<&'a PackageVariantTemplate>,
    pub repo_default: &'a str,
    pub package_default: &'a str,
    /// The selected object (selector targets); `None` for a `repositories` target.
    pub object: Option<&'a serde_json::Value>,
}

/// Everything shared by all renders of one run.
pub struct Renderer<'a> {
    pub programs: &'a mut ProgramCache,
    /// `spec.upstream` of the set, copied verbatim into every variant.
    pub upstream: Option<&'a Upstream>,
    pub repositories: &'a RepositoryIndex<'a>,
    /// `upstream` and the step counter, bound once for all renders.
    bindings: Bindings,
}

impl<'a> Renderer<'a> {
    pub fn new(
        programs: &'a mut ProgramCache,
        upstream: Option<&'a Upstream>,
        // The upstream PackageRevision as CEL sees it.
        upstream_input: &cel::Value,
        repositories: &'a RepositoryIndex<'a>,
    ) -> Self {
        let bindings = Bindings::new(programs.env(), Some(upstream_input));
        Renderer {
            programs,
            upstream,
            repositories,
            bindings,
        }
    }
}

/// Evaluates expressions of one render, prefixing errors with their template field.
struct Evaluator<'r> {
    programs: &'r mut ProgramCache,
    activation: Activation<'r>,
}

impl Evaluator<'_> {
    fn eval(&mut self, source: &str, field: impl Fn() -> String) -> Result<String, RenderError> {
        let fail = |e: String| {
            let field = field();
            RenderError {
                message: format!("{field}: {e}"),
                field,
            }
        };
        let program = self.programs.compile(source).map_err(fail)?;
        self.activation.evaluate(&program).map_err(fail)
    }

    /// `copyAndOverlayMapExpr`: the static map, then each entry in order (later wins).
    fn overlay(
        &mut self,
        base: &BTreeMap<String, String>,
        exprs: &[MapExpr],
        field: &str,
    ) -> Result<BTreeMap<String, String>, RenderError> {
        let mut out = base.clone();
        for (j, me) in exprs.iter().enumerate() {
            let mut key = me.key.clone().unwrap_or_default();
            if let Some(e) = &me.key_expr {
                key = self.eval(e, || format!("{field}[{j}].keyExpr"))?;
            }
            let mut value = me.value.clone().unwrap_or_default();
            if let Some(e) = &me.value_expr {
                value = self.eval(e, || format!("{field}[{j}].valueExpr"))?;
            }
            out.insert(key, value);
        }
        Ok(out)
    }

    fn functions(
        &mut self,
        templates: &[FunctionTemplate],
        field: &str,
    ) -> Result<Vec<crate::api::package_variant::Function>, RenderError> {
        let mut out = Vec::with_capacity(templates.len());
        for (i, t) in templates.iter().enumerate() {
            let mut f = t.function();
            f.config_map = self.overlay(
                &t.config_map,
                &t.config_map_exprs,
                &format!("{field}[{i}].configMapExprs"),
            )?;
            out.push(f);
        }
        Ok(out)
    }
}

/// Every CEL expression of `t` that a render may evaluate, with its field (relative to the
/// target), in Porch's evaluation order; empty downstream and injector expressions count as
/// unset, as in [`Renderer::render`].
pub fn expressions(t: &PackageVariantTemplate) -> Vec<(String, &str)> {
    let mut out: Vec<(String, &str)> = Vec::new();
    if let Some(d) = &t.downstream {
        if let Some(e) = non_empty(&d.repo_expr) {
            out.push(("template.downstream.repoExpr".into(), e));
        }
        if let Some(e) = non_empty(&d.package_expr) {
            out.push(("template.downstream.packageExpr".into(), e));
        }
    }
    map_exprs(&t.label_exprs, "template.labelExprs", &mut out);
    map_exprs(&t.annotation_exprs, "template.annotationExprs", &mut out);
    if let Some(pc) = &t.package_context {
        map_exprs(
            &pc.data_exprs,
            "template.packageContext.dataExprs",
            &mut out,
        );
        for (i, e) in pc.remove_key_exprs.iter().enumerate() {
            out.push((format!("template.packageContext.removeKeyExprs[{i}]"), e));
        }
    }
    for (i, inj) in t.injectors.iter().enumerate() {
        if let Some(e) = non_empty(&inj.name_expr) {
            out.push((format!("template.injectors[{i}].nameExpr"), e));
        }
    }
    if let Some(p) = &t.pipeline {
        for (kind, functions) in [("validators", &p.validators), ("mutators", &p.mutators)] {
            for (i, f) in functions.iter().enumerate() {
                let field = format!("template.pipeline.{kind}[{i}].configMapExprs");
                map_exprs(&f.config_map_exprs, &field, &mut out);
            }
        }
    }
    out
}

fn map_exprs<'t>(exprs: &'t [MapExpr], field: &str, out: &mut Vec<(String, &'t str)>) {
    for (j, me) in exprs.iter().enumerate() {
        if let Some(e) = &me.key_expr {
            out.push((format!("{field}[{j}].keyExpr"), e));
        }
        if let Some(e) = &me.value_expr {
            out.push((format!("{field}[{j}].valueExpr"), e));
        }
    }
}

/// Compiles (parses and type-checks) every expression of `t` before anything is evaluated,
/// so a compile error anywhere stops the run, even in a branch or target never evaluated.
pub fn compile_all(programs: &mut ProgramCache, t: &PackageVariantTemplate) -> Vec<RenderError> {
    expressions(t)
        .into_iter()
        .filter_map(|(field, source)| {
            programs.compile(source).err().map(|e| RenderError {
                message: format!("{field}: {e}"),
                field,
            })
        })
        .collect()
}

fn non_empty(s: &Option<String>) -> Option<&str> {
    s.as_deref().filter(|s| !s.is_empty())
}

impl Renderer<'_> {
    /// Renders the spec of one downstream.
    pub fn render(&mut self, input: &RenderInput<'_>) -> Result<PackageVariantSpec, RenderError> {
        let mut spec = PackageVariantSpec {
            upstream: self.upstream.cloned(),
            downstream: Some(Downstream {
                repo: input.repo_default.to_string(),
                package: input.package_default.to_string(),
            }),
            ..Default::default()
        };
        // No template: no repository lookup and no CEL.
        let Some(t) = input.template else {
            return Ok(spec);
        };
        let target = match input.object {
            Some(object) => match self.repositories.input_of(object) {
                Some(shared) => shared.clone(),
                None => cel_env::object_input(object),
            },
            None => cel_env::repositories_target_input(input.repo_default, input.package_default),
        };
        let activation =
            self.bindings
                .activation(input.repo_default, input.package_default, &target);
        let mut ev = Evaluator {
            programs: &mut *self.programs,
            activation,
        };

        // Empty strings count as unset for downstream values and expressions.
        let mut repo = input.repo_default.to_string();
        if let Some(d) = &t.downstream {
            if let Some(r) = non_empty(&d.repo) {
                repo = r.to_string();
            }
            if let Some(e) = non_empty(&d.repo_expr) {
                repo = ev.eval(e, || "template.downstream.repoExpr".to_string())?;
            }
        }
        // Any template forces the lookup, whether or not an expression uses `repository`.
        let repository = self.repositories.get(&repo).ok_or_else(|| RenderError {
            field: "template.downstream.repo".to_string(),
            message: format!("repository {repo:?} could not be loaded"),
        })?;
        ev.activation.bind_repository(repository);

        let mut package = input.package_default.to_string();
        if let Some(d) = &t.downstream {
            if let Some(p) = non_empty(&d.package) {
                package = p.to_string();
            }
            if let Some(e) = non_empty(&d.package_expr) {
                package = ev.eval(e, || "template.downstream.packageExpr".to_string())?;
            }
        }
        spec.downstream = Some(Downstream { repo, package });

        if let Some(p) = &t.adoption_policy {
            spec.adoption_policy = p.clone();
        }
        if let Some(p) = &t.deletion_policy {
            spec.deletion_policy = p.clone();
        }
        spec.labels = ev.overlay(&t.labels, &t.label_exprs, "template.labelExprs")?;
        spec.annotations = ev.overlay(
            &t.annotations,
            &t.annotation_exprs,
            "template.annotationExprs",
        )?;

        if let Some(pc) = &t.package_context {
            let data = ev.overlay(
                &pc.data,
                &pc.data_exprs,
                "template.packageContext.dataExprs",
            )?;
            let mut remove: BTreeSet<String> = pc.remove_keys.iter().cloned().collect();
            for (i, e) in pc.remove_key_exprs.iter().enumerate() {
                remove
                    .insert(ev.eval(e, || format!("template.packageContext.removeKeyExprs[{i}]"))?);
            }
            // Present even when empty: `packageContext: {}` renders as `packageContext: {}`.
            spec.package_context = Some(PackageContext {
                data,
                remove_keys: remove.into_iter().collect(),
            });
        }

        for (i, inj) in t.injectors.iter().enumerate() {
            let mut name = non_empty(&inj.name).unwrap_or("").to_string();
            if let Some(e) = non_empty(&inj.name_expr) {
                name = ev.eval(e, || format!("template.injectors[{i}].nameExpr"))?;
            }
            spec.injectors.push(InjectionSelector {
                group: inj.group.clone(),
                version: inj.version.clone(),
                kind: inj.kind.clone(),
                name,
            });
        }

        if let Some(p) = &t.pipeline {
            let validators = ev.functions(&p.validators, "template.pipeline.validators")?;
            let mutators = ev.functions(&p.mutators, "template.pipeline.mutators")?;
            if !validators.is_empty() || !mutators.is_empty() {
                spec.pipeline = Some(Pipeline {
                    mutators,
                    validators,
                });
            }
        }
        Ok(spec)
    }
}

#[cfg(test)]
mod tests;
