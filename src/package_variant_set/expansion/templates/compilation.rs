//! Which expressions a template holds, in Porch's evaluation order, and compiling them all
//! before anything is evaluated. Kept apart from rendering: it reads the template's fields,
//! not a target.

use crate::api::package_variant_set::{MapExpr, PackageVariantTemplate};
use crate::cel::ProgramCache;

use super::RenderError;

/// Every CEL expression of `t` that a render may evaluate, with its field (relative to the
/// target), in Porch's evaluation order; empty downstream and injector expressions count as
/// unset, as in [`Renderer::render`](super::Renderer::render).
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
        if let Some(x) = non_empty(&e.binding_point_expr) {
            out.push((at("bindingPointExpr"), x));
        }
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
    let mut errors = Vec::new();
    for (field, source) in expressions(t) {
        // Past the run's budget one error says so: the rest would only repeat it.
        if programs.out_of_budget() {
            break;
        }
        if let Err(e) = programs.compile(source) {
            errors.push(RenderError {
                message: format!("{field}: {e}"),
                field,
            });
        }
    }
    errors
}

/// `s` unless it is absent or empty: empty strings count as unset.
pub(super) fn non_empty(s: &Option<String>) -> Option<&str> {
    s.as_deref().filter(|s| !s.is_empty())
}
