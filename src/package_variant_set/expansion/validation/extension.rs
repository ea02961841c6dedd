//! Validation of what the extension's set template adds (`template.injection`,
//! `template.pipelinePlacement`), refused on the set's own fields before anything is rendered:
//! a mistake here would otherwise surface once per target, in every variant the set emits.
//!
//! The rules are those of Porch's `*Expr` fields (`downstream.repo` and `repoExpr`, an
//! injector's `name` and `nameExpr`): exactly one of a field and its expression, given as
//! pointers (an empty string counts as given), plus the PackageVariant's own rules for an
//! entry (one source, a `clusterResource` needs a point).

use crate::api::package_variant_set::{InjectionEntryTemplate, PackageVariantTemplate};
use crate::krm::results::ResultItem;

use super::{err, map_exprs};

/// The problems of the extension's fields of the template at `f`
/// (`spec.targets[i].template`).
pub fn template(t: &PackageVariantTemplate, f: &str, out: &mut Vec<ResultItem>) {
    for (j, e) in t.injection.iter().enumerate() {
        entry(e, &format!("{f}.injection[{j}]"), out);
    }
    if let Some(p) = &t.pipeline_placement {
        for (field, message) in p.problems() {
            err(out, format!("{f}.pipelinePlacement.{field}"), message);
        }
    }
}

fn entry(e: &InjectionEntryTemplate, p: &str, out: &mut Vec<ResultItem>) {
    if e.binding_point.is_some() && e.binding_point_expr.is_some() {
        err(
            out,
            p,
            "may specify only one of `bindingPoint` and `bindingPointExpr`",
        );
    } else if e.binding_point_expr.as_deref() == Some("") {
        err(
            out,
            format!("{p}.bindingPointExpr"),
            "must not be empty: give the CEL expression naming the injection point, or remove \
             it (an entry without a binding point adds a resource the variant owns)",
        );
    }
    let direct =
        e.direct_resource.is_some() || !e.data_exprs.is_empty() || !e.spec_exprs.is_empty();
    let given: Vec<&str> = [
        (e.cluster_resource.is_some(), "clusterResource"),
        (direct, "directResource"),
        (e.package_resource.is_some(), "packageResource"),
    ]
    .into_iter()
    .filter_map(|(on, name)| on.then_some(name))
    .collect();
    match given.len() {
        0 => err(
            out,
            p,
            "gives no source: give exactly one of clusterResource, directResource (with \
             dataExprs, specExprs) and packageResource",
        ),
        1 => {}
        _ => err(
            out,
            p,
            format!(
                "gives {}: give exactly one source per entry (one entry per source)",
                given.join(" and ")
            ),
        ),
    }
    // An empty bindingPoint is none, as in the PackageVariant.
    let bound =
        e.binding_point.as_deref().is_some_and(|b| !b.is_empty()) || e.binding_point_expr.is_some();
    if let Some(c) = &e.cluster_resource {
        let c_at = format!("{p}.clusterResource");
        name_pair(&c.name, &c.name_expr, "name", &c_at, out);
        if !bound {
            err(
                out,
                format!("{p}.bindingPoint"),
                "clusterResource needs a bindingPoint or bindingPointExpr (the point gives its \
                 kind): name the injection point to fill, or give the resource as directResource",
            );
        }
    }
    map_exprs(&e.data_exprs, &format!("{p}.dataExprs"), out);
    map_exprs(&e.spec_exprs, &format!("{p}.specExprs"), out);
    if let Some(r) = &e.package_resource {
        let r_at = format!("{p}.packageResource");
        name_pair(&r.repo, &r.repo_expr, "repo", &r_at, out);
        name_pair(&r.package, &r.package_expr, "package", &r_at, out);
        name_pair(&r.name, &r.name_expr, "name", &r_at, out);
    }
}

/// A name given by `field` or `<field>Expr` under `at`: exactly one of them, not empty.
fn name_pair(
    name: &Option<String>,
    expr: &Option<String>,
    field: &str,
    at: &str,
    out: &mut Vec<ResultItem>,
) {
    match (name, expr) {
        (Some(_), Some(_)) => err(
            out,
            at,
            format!("may specify only one of `{field}` and `{field}Expr`"),
        ),
        (None, None) => err(
            out,
            at,
            format!("must specify either `{field}` or `{field}Expr`"),
        ),
        (Some(v), None) | (None, Some(v)) if v.is_empty() => {
            let which = if name.is_some() {
                field.to_string()
            } else {
                format!("{field}Expr")
            };
            err(
                out,
                format!("{at}.{which}"),
                format!("must not be empty: give the {field}"),
            );
        }
        _ => {}
    }
}
