//! The body of a render (Porch's `renderPackageVariantSpec` for a target with a template):
//! the spec's fields in Porch's evaluation order, its names and its injection entries. Kept
//! apart from the renderer, which binds the variables and chooses how values are got.

use std::collections::{BTreeMap, BTreeSet};

use crate::api::package_variant::{
    ClusterResource, Downstream, InjectionEntry, InjectionSelector, PackageContext,
    PackageResource, PackageVariantSpec, Pipeline, Upstream, RESERVED_CONTEXT_KEYS,
};
use crate::api::package_variant_set::{InjectionEntryTemplate, PackageVariantTemplate};

use super::compilation::non_empty;
use super::values::Values;
use super::{check_key, functions, overlay, RenderError};

/// Porch's `renderPackageVariantSpec` for a target with a template, its expressions valued by
/// `ev`.
pub(super) fn render_spec(
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
    if build {
        spec.pipeline_placement = t.pipeline_placement.clone();
    }
    Ok(spec)
}

/// A name given statically or by CEL (validation allows only one of them); an expression that
/// gives an empty name is an error, as the PackageVariant would refuse it or read it otherwise.
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
/// evaluated in field order (`bindingPointExpr`, names, then `dataExprs`, `specExprs`).
fn injection_entry(
    ev: &mut dyn Values,
    e: &InjectionEntryTemplate,
    i: usize,
) -> Result<InjectionEntry, RenderError> {
    let at = |f: &str| format!("template.injection[{i}].{f}");
    let mut entry = InjectionEntry {
        binding_point: name_of(
            ev,
            &e.binding_point,
            &e.binding_point_expr,
            at("bindingPointExpr"),
        )?,
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
