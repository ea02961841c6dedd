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
use std::collections::{BTreeMap, BTreeSet};

use cel::common::types::CelMap;

use crate::api::package_variant::{
    ClusterResource, Downstream, InjectionEntry, InjectionSelector, PackageContext,
    PackageResource, PackageVariantSpec, Pipeline, Upstream, RESERVED_CONTEXT_KEYS,
};
use crate::api::package_variant_set::{
    FunctionTemplate, InjectionEntryTemplate, MapExpr, PackageVariantTemplate,
};
use crate::package_variant_set::cel::{self as cel_env, Activation, Bindings, ProgramCache};
use crate::package_variant_set::fast_hash::FastMap;
use crate::package_variant_set::inputs::Item;
use crate::package_variant_set::record::Records;

/// A render failure. `field` is relative to the target (`template.labelExprs[0].valueExpr`);
/// `message` carries Porch's prefix (`template.labelExprs[0].valueExpr: no such key: x`).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct RenderError {
    pub field: String,
    pub message: String,
}

/// The Repository objects of the set's namespace, by name (first wins, as Porch's lookup
/// takes the first match in list order).
///
/// CEL's view of a repository is built when a render needs it and dropped after: a
/// repositorySelector target's `target` is the same object as its `repository`, so both bind
/// one value, and nothing is kept per repository between renders.
#[derive(Default)]
pub struct RepositoryIndex<'a> {
    by_name: FastMap<&'a str, Item<'a>>,
}

impl<'a> RepositoryIndex<'a> {
    /// Indexes `repositories` by `metadata.name`.
    pub fn new(repositories: impl IntoIterator<Item = Item<'a>>) -> Self {
        let mut by_name = FastMap::default();
        for repo in repositories {
            by_name.entry(repo.name()).or_insert(repo);
        }
        RepositoryIndex { by_name }
    }

    fn get(&self, name: &str) -> Option<Item<'a>> {
        self.by_name.get(name).copied()
    }
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

/// Where the expressions of a render get their values: CEL ([`Live`]), or the values an
/// earlier render recorded ([`Replayed`]). One render body serves both, so a replay builds
/// exactly the spec the live render built.
trait Values {
    /// The value of expression `source`; `field` names it in an error.
    fn eval(&mut self, source: &str, field: &dyn Fn() -> String) -> Result<String, RenderError>;
    /// Looks the downstream repository up and binds it as `repository` (after `repoExpr`).
    fn repository(&mut self, repo: &str) -> Result<(), RenderError>;
    /// Whether the spec is wanted beyond its downstream: a recording render only evaluates
    /// (every expression, in the same order) and leaves the rest to the replay.
    fn builds(&self) -> bool {
        true
    }
}

/// Evaluates with CEL, prefixing errors with their template field, and records each value
/// when asked to.
struct Live<'r, 'v, 'a> {
    programs: &'r mut ProgramCache,
    activation: Activation<'v>,
    repositories: &'r RepositoryIndex<'a>,
    /// The selected object and CEL's view of it (`target`).
    object: Option<(Item<'a>, &'v CelMap<'a>)>,
    /// CEL's view of the repository, when it is not the selected object.
    repository_val: &'v OnceCell<CelMap<'a>>,
    record: Option<&'r mut Records>,
    /// The downstream defaults: a `repositories` target's repository and package.
    defaults: (&'v str, &'v str),
}

impl Live<'_, '_, '_> {
    /// The target an evaluation error happened for, as a message names it.
    fn target_name(&self) -> String {
        match self.object {
            Some((object, _)) if object.namespace().is_empty() => {
                format!("{} {}", object.kind(), object.name())
            }
            Some((object, _)) => {
                format!("{} {}/{}", object.kind(), object.namespace(), object.name())
            }
            None => format!(
                "repository {}, package {}",
                self.defaults.0, self.defaults.1
            ),
        }
    }
}

impl Values for Live<'_, '_, '_> {
    fn builds(&self) -> bool {
        self.record.is_none()
    }

    fn eval(&mut self, source: &str, field: &dyn Fn() -> String) -> Result<String, RenderError> {
        let fail = |e: String| {
            let field = field();
            RenderError {
                message: format!("{field}: {e}"),
                field,
            }
        };
        let program = self.programs.compile(source).map_err(fail)?;
        // A target of a selector may be any of many: the error names it.
        let value = self.activation.evaluate(&program).map_err(|e| {
            fail(format!(
                "{e} (evaluated for the target {})",
                self.target_name()
            ))
        })?;
        if let Some(record) = self.record.as_mut() {
            record.push(&value).map_err(|_| {
                fail("the values of the set's expressions are too large to hold".to_string())
            })?;
        }
        Ok(value)
    }

    fn repository(&mut self, repo: &str) -> Result<(), RenderError> {
        // Any template forces the lookup, whether or not an expression uses `repository`.
        let repository = self.repositories.get(repo).ok_or_else(|| RenderError {
            field: "template.downstream.repo".to_string(),
            message: format!("repository {repo:?} could not be loaded"),
        })?;
        match self.object {
            // The selected object is that repository: `target` is `repository`.
            Some((object, target)) if object.same(&repository) => {
                self.activation.bind_repository(target);
            }
            _ => {
                let val = self.repository_val.get_or_init(|| object_val(&repository));
                self.activation.bind_repository(val);
            }
        }
        Ok(())
    }
}

/// The values of one recorded render, in evaluation order.
struct Replayed<'a> {
    record: &'a Records,
    next: usize,
}

impl Values for Replayed<'_> {
    fn eval(&mut self, _: &str, field: &dyn Fn() -> String) -> Result<String, RenderError> {
        // Only a bug can leave a replay short of values: say so rather than write a wrong spec.
        if self.next >= self.record.len() {
            return Err(RenderError {
                field: field(),
                message: format!("internal error: no recorded value for {}", field()),
            });
        }
        self.next += 1;
        Ok(self.record.get(self.next - 1).to_string())
    }

    fn repository(&mut self, _: &str) -> Result<(), RenderError> {
        Ok(())
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
    for (i, e) in t.injection.iter().enumerate() {
        let at = |f: &str| format!("template.injection[{i}].{f}");
        if let Some(x) = e
            .cluster_resource
            .as_ref()
            .and_then(|c| non_empty(&c.name_expr))
        {
            out.push((at("clusterResource.nameExpr"), x));
        }
        map_exprs(&e.data_exprs, &at("dataExprs"), &mut out);
        map_exprs(&e.spec_exprs, &at("specExprs"), &mut out);
        if let Some(p) = &e.package_resource {
            for (f, x) in [
                ("repoExpr", &p.repo_expr),
                ("packageExpr", &p.package_expr),
                ("nameExpr", &p.name_expr),
            ] {
                if let Some(x) = non_empty(x) {
                    out.push((at(&format!("packageResource.{f}")), x));
                }
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
        // No template: no repository lookup and no CEL.
        let Some(t) = input.template else {
            return Ok(untemplated(
                self.upstream,
                input.repo_default,
                input.package_default,
            ));
        };
        let target = match &input.object {
            Some(object) => object_val(object),
            None => cel_env::repositories_target_val(input.repo_default, input.package_default),
        };
        let repository_val = OnceCell::new();
        let activation =
            self.bindings
                .activation(input.repo_default, input.package_default, &target);
        let mut live = Live {
            programs: &mut *self.programs,
            activation,
            repositories: self.repositories,
            object: input.object.map(|o| (o, &target)),
            repository_val: &repository_val,
            record,
            defaults: (input.repo_default, input.package_default),
        };
        render_spec(
            self.upstream,
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

/// Porch's `renderPackageVariantSpec` for a target with a template, its expressions valued by
/// `ev`.
fn render_spec(
    upstream: Option<&Upstream>,
    t: &PackageVariantTemplate,
    repo_default: &str,
    package_default: &str,
    ev: &mut dyn Values,
) -> Result<PackageVariantSpec, RenderError> {
    let build = ev.builds();
    let mut spec = PackageVariantSpec {
        upstream: upstream.filter(|_| build).cloned(),
        ..Default::default()
    };
    // Empty strings count as unset for downstream values and expressions.
    let mut repo = repo_default.to_string();
    if let Some(d) = &t.downstream {
        if let Some(r) = non_empty(&d.repo) {
            repo = r.to_string();
        }
        if let Some(e) = non_empty(&d.repo_expr) {
            repo = ev.eval(e, &|| "template.downstream.repoExpr".to_string())?;
        }
    }
    ev.repository(&repo)?;

    let mut package = package_default.to_string();
    if let Some(d) = &t.downstream {
        if let Some(p) = non_empty(&d.package) {
            package = p.to_string();
        }
        if let Some(e) = non_empty(&d.package_expr) {
            package = ev.eval(e, &|| "template.downstream.packageExpr".to_string())?;
        }
    }
    spec.downstream = Some(Downstream { repo, package });

    if let Some(p) = &t.adoption_policy {
        spec.adoption_policy = p.clone();
    }
    if let Some(p) = &t.deletion_policy {
        spec.deletion_policy = p.clone();
    }
    spec.labels = overlay(ev, &t.labels, &t.label_exprs, "template.labelExprs", &[])?;
    spec.annotations = overlay(
        ev,
        &t.annotations,
        &t.annotation_exprs,
        "template.annotationExprs",
        &[],
    )?;

    if let Some(pc) = &t.package_context {
        let data = overlay(
            ev,
            &pc.data,
            &pc.data_exprs,
            "template.packageContext.dataExprs",
            RESERVED_CONTEXT_KEYS,
        )?;
        let mut remove: BTreeSet<String> = BTreeSet::new();
        if build {
            remove.extend(pc.remove_keys.iter().cloned());
        }
        for (i, e) in pc.remove_key_exprs.iter().enumerate() {
            let at = || format!("template.packageContext.removeKeyExprs[{i}]");
            let key = ev.eval(e, &at)?;
            check_key(&key, RESERVED_CONTEXT_KEYS, at())?;
            if build {
                remove.insert(key);
            }
        }
        // Present even when empty: `packageContext: {}` renders as `packageContext: {}`.
        spec.package_context = Some(PackageContext {
            data,
            remove_keys: remove.into_iter().collect(),
        });
    }

    for (i, inj) in t.injectors.iter().enumerate() {
        let name = match non_empty(&inj.name_expr) {
            Some(e) => {
                let at = || format!("template.injectors[{i}].nameExpr");
                let name = ev.eval(e, &at)?;
                if name.is_empty() {
                    // Porch's PackageVariant validation: spec.injectors[i].name must not be empty.
                    return Err(RenderError {
                        message: format!(
                            "{}: gives an empty injector name: Porch would refuse the \
                             PackageVariant (spec.injectors[{i}].name must not be empty)",
                            at()
                        ),
                        field: at(),
                    });
                }
                name
            }
            None if build => non_empty(&inj.name).unwrap_or("").to_string(),
            None => continue,
        };
        if !build {
            continue;
        }
        spec.injectors.push(InjectionSelector {
            group: inj.group.clone(),
            version: inj.version.clone(),
            kind: inj.kind.clone(),
            name,
        });
    }

    if let Some(p) = &t.pipeline {
        let validators = functions(ev, &p.validators, "template.pipeline.validators")?;
        let mutators = functions(ev, &p.mutators, "template.pipeline.mutators")?;
        if !validators.is_empty() || !mutators.is_empty() {
            spec.pipeline = Some(Pipeline {
                mutators,
                validators,
            });
        }
    }
    for (i, e) in t.injection.iter().enumerate() {
        let entry = injection_entry(ev, e, i)?;
        if build {
            spec.injection.push(entry);
        }
    }
    Ok(spec)
}

/// A name given statically or by CEL (the expression wins); an expression that gives an empty
/// name is an error, as the PackageVariant would refuse it.
fn name_of(
    ev: &mut dyn Values,
    name: &Option<String>,
    expr: &Option<String>,
    field: String,
) -> Result<String, RenderError> {
    match non_empty(expr) {
        Some(x) => {
            let value = ev.eval(x, &|| field.clone())?;
            if value.is_empty() {
                return Err(RenderError {
                    message: format!(
                        "{field}: gives an empty name: the PackageVariant would refuse it"
                    ),
                    field,
                });
            }
            Ok(value)
        }
        None => Ok(name.clone().unwrap_or_default()),
    }
}

/// `template.injection[i]` (extension) as the variant's `spec.injection[i]`, its expressions
/// evaluated in field order (names, then `dataExprs`, `specExprs`).
fn injection_entry(
    ev: &mut dyn Values,
    e: &InjectionEntryTemplate,
    i: usize,
) -> Result<InjectionEntry, RenderError> {
    let at = |f: &str| format!("template.injection[{i}].{f}");
    let mut entry = InjectionEntry {
        binding_point: e.binding_point.clone().unwrap_or_default(),
        ..Default::default()
    };
    if let Some(c) = &e.cluster_resource {
        entry.cluster_resource = Some(ClusterResource {
            name: name_of(ev, &c.name, &c.name_expr, at("clusterResource.nameExpr"))?,
        });
    }
    let data = overlay(ev, &BTreeMap::new(), &e.data_exprs, &at("dataExprs"), &[])?;
    let spec = overlay(ev, &BTreeMap::new(), &e.spec_exprs, &at("specExprs"), &[])?;
    if e.direct_resource.is_some() || !e.data_exprs.is_empty() || !e.spec_exprs.is_empty() {
        let mut direct = e
            .direct_resource
            .clone()
            .unwrap_or_else(|| serde_json::Value::Object(Default::default()));
        for (field, keys) in [("data", data), ("spec", spec)] {
            if keys.is_empty() {
                continue;
            }
            if let Some(o) = direct.as_object_mut() {
                let slot = o
                    .entry(field)
                    .or_insert_with(|| serde_json::Value::Object(Default::default()));
                if !slot.is_object() {
                    *slot = serde_json::Value::Object(Default::default());
                }
                if let Some(m) = slot.as_object_mut() {
                    for (k, v) in keys {
                        m.insert(k, serde_json::Value::String(v));
                    }
                }
            }
        }
        entry.direct_resource = Some(direct);
    }
    if let Some(p) = &e.package_resource {
        let repo = name_of(ev, &p.repo, &p.repo_expr, at("packageResource.repoExpr"))?;
        let package = name_of(
            ev,
            &p.package,
            &p.package_expr,
            at("packageResource.packageExpr"),
        )?;
        let name = name_of(ev, &p.name, &p.name_expr, at("packageResource.nameExpr"))?;
        entry.package_resource = Some(PackageResource {
            repo,
            package,
            revision: p.revision,
            api_version: p.api_version.clone().unwrap_or_default(),
            kind: p.kind.clone().unwrap_or_default(),
            name,
        });
    }
    Ok(entry)
}

#[cfg(test)]
mod tests;
