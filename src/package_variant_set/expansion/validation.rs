//! PackageVariantSet validation (Porch's `validatePackageVariantSet`): Porch's messages in
//! Porch's emission order, each problem its own error result with its field path, plus the
//! duplicate package names Porch swallows.
//!
//! A message is Porch's without the field path it starts with, which is the result's
//! `field.path` (kpt prints it beside the message): Porch's `spec.targets[0].repositories[0].name
//! cannot be empty` is `cannot be empty` on `spec.targets[0].repositories[0].name`.
//!
//! Validation collects all problems rather than stopping at the first, as Porch does; Porch then
//! joins them with "; " into one condition message, we keep them apart so kpt shows each with
//! its field.
//!
//! [`api_server`]: what the API server would refuse of the names the set writes.
//! Every variant the set would emit is checked against the PackageVariant function's rules
//! after the desired set is known (`reconciliation::variants`).

pub mod api_server;
mod extension;

use std::collections::HashMap;

use crate::api::function::WhenBudget;
use crate::api::package_variant::RESERVED_CONTEXT_KEYS;
use crate::api::package_variant::{ADOPTION_POLICIES, DELETION_POLICIES};
use crate::api::package_variant_set::{
    MapExpr, PackageVariantSet, PackageVariantTemplate, RepositoryTarget,
};
use crate::api::suggest::did_you_mean;
use crate::krm::results::ResultItem;

fn err(out: &mut Vec<ResultItem>, field: impl Into<String>, message: impl Into<String>) {
    out.push(ResultItem::error(message).field(field).on_config());
}

/// All validation problems of `set`, in Porch's order.
pub fn validate_package_variant_set(set: &PackageVariantSet) -> Vec<ResultItem> {
    let mut out = Vec::new();
    let mut when_budget = WhenBudget::default();
    match &set.spec.upstream {
        // The extension's `upstreams` stands for it (checked in `super::upstreams`).
        None if set.spec.upstreams.is_some() => {}
        None => err(&mut out, "spec.upstream", "is a required field"),
        Some(up) => {
            if up.package.is_empty() {
                err(&mut out, "spec.upstream.package", "is a required field");
            }
            if up.repo.is_empty() {
                err(&mut out, "spec.upstream.repo", "is a required field");
            }
            if up.revision == 0 && up.workspace_name.is_empty() && up.tag.is_none() {
                err(&mut out, "spec.upstream", "either spec.upstream.revision or spec.upstream.workspaceName must be specified");
            }
        }
    }
    if set.spec.targets.is_empty() {
        err(&mut out, "spec.targets", "must specify at least one item");
    }
    let upstream_package = set
        .spec
        .upstream
        .as_ref()
        .map_or(String::new(), |u| u.package.clone());
    for (i, target) in set.spec.targets.iter().enumerate() {
        let mut count = 0;
        if let Some(repos) = &target.repositories {
            count += 1;
            if repos.is_empty() {
                err(
                    &mut out,
                    format!("spec.targets[{i}].repositories"),
                    "must not be an empty list if specified",
                );
            }
            let mut seen = HashMap::new();
            for (j, rt) in repos.iter().enumerate() {
                if rt.name.is_empty() {
                    err(
                        &mut out,
                        format!("spec.targets[{i}].repositories[{j}].name"),
                        "cannot be empty",
                    );
                }
                for (k, pn) in rt.package_names.iter().enumerate() {
                    if pn.is_empty() {
                        let f = format!("spec.targets[{i}].repositories[{j}].packageNames[{k}]");
                        err(&mut out, f, "cannot be empty");
                    }
                }
                duplicate_entry(&mut out, &mut seen, (i, j), rt, &upstream_package);
            }
        }
        if target.repository_selector.is_some() {
            count += 1;
        }
        if let Some(os) = &target.object_selector {
            count += 1;
            if os.api_version.is_empty() {
                err(
                    &mut out,
                    format!("spec.targets[{i}].objectSelector.apiVersion"),
                    "cannot be empty",
                );
            }
            if os.kind.is_empty() {
                err(
                    &mut out,
                    format!("spec.targets[{i}].objectSelector.kind"),
                    "cannot be empty",
                );
            }
        }
        if count != 1 {
            err(
                &mut out,
                format!("spec.targets[{i}]"),
                "must specify one of `repositories`, `repositorySelector`, or `objectSelector`",
            );
        }
        if let Some(t) = &target.template {
            let f = format!("spec.targets[{i}].template");
            validate_template(t, &f, &mut out, &mut when_budget);
        }
    }
    out
}

/// Where each (repository, package) of one `repositories` target was first listed: the entry
/// index and the `packageNames` index (`None`: the upstream package).
type Seen<'s> = HashMap<(&'s str, &'s str), (usize, Option<usize>)>;

/// The repository and package names entry `j` of target `i` lists again (Porch makes one
/// PackageVariant of them and drops the other silently): an error on the later entry naming
/// both. An entry without `packageNames` stands for the upstream package.
fn duplicate_entry<'s>(
    out: &mut Vec<ResultItem>,
    seen: &mut Seen<'s>,
    (i, j): (usize, usize),
    rt: &'s RepositoryTarget,
    upstream_package: &'s str,
) {
    let path = |(j, k): (usize, Option<usize>)| match k {
        Some(k) => format!("spec.targets[{i}].repositories[{j}].packageNames[{k}]"),
        None => format!("spec.targets[{i}].repositories[{j}]"),
    };
    let defaulted = [(None, upstream_package)];
    let names = rt
        .package_names
        .iter()
        .enumerate()
        .map(|(k, p)| (Some(k), p.as_str()));
    let names: Box<dyn Iterator<Item = (Option<usize>, &str)>> = if rt.package_names.is_empty() {
        Box::new(defaulted.into_iter())
    } else {
        Box::new(names)
    };
    for (k, package) in names {
        if rt.name.is_empty() || package.is_empty() {
            continue; // reported as empty
        }
        match seen.get(&(rt.name.as_str(), package)) {
            Some(&first) => {
                let here = path((j, k));
                let message = format!(
                    "repository {:?} with package {package:?} is listed twice, at {} and at {here}: Porch would make one PackageVariant of them and drop the other silently; remove one",
                    rt.name,
                    path(first)
                );
                err(out, here, message);
            }
            None => {
                seen.insert((rt.name.as_str(), package), (j, k));
            }
        }
    }
}

fn validate_template(
    t: &PackageVariantTemplate,
    f: &str,
    out: &mut Vec<ResultItem>,
    when_budget: &mut WhenBudget,
) {
    if let Some(p) = &t.adoption_policy {
        if p != "adoptNone" && p != "adoptExisting" {
            err(
                out,
                format!("{f}.adoptionPolicy"),
                format!(
                    r#"can only be "adoptNone" or "adoptExisting", not {p:?}{}"#,
                    did_you_mean(p, ADOPTION_POLICIES)
                ),
            );
        }
    }
    if let Some(p) = &t.deletion_policy {
        if p != "orphan" && p != "delete" {
            err(
                out,
                format!("{f}.deletionPolicy"),
                format!(
                    r#"can only be "orphan" or "delete", not {p:?}{}"#,
                    did_you_mean(p, DELETION_POLICIES)
                ),
            );
        }
    }
    if let Some(d) = &t.downstream {
        // Pointers: both set counts even when they are empty strings.
        if d.repo.is_some() && d.repo_expr.is_some() {
            err(
                out,
                format!("{f}.downstream"),
                "may specify only one of `downstream.repo` and `downstream.repoExpr`",
            );
        }
        if d.package.is_some() && d.package_expr.is_some() {
            err(
                out,
                format!("{f}.downstream"),
                "may specify only one of `downstream.package` and `downstream.packageExpr`",
            );
        }
    }
    map_exprs(&t.label_exprs, &format!("{f}.labelExprs"), out);
    map_exprs(&t.annotation_exprs, &format!("{f}.annotationExprs"), out);
    if let Some(pc) = &t.package_context {
        let pf = format!("{f}.packageContext");
        map_exprs(&pc.data_exprs, &format!("{pf}.dataExprs"), out);
        reserved_context_keys(pc, &pf, out);
    }
    for (j, inj) in t.injectors.iter().enumerate() {
        let p = format!("{f}.injectors[{j}]");
        if inj.name.is_some() && inj.name_expr.is_some() {
            err(
                out,
                p.clone(),
                "may specify only one of `name` and `nameExpr`",
            );
        }
        if inj.name.is_none() && inj.name_expr.is_none() {
            err(out, p.clone(), "must specify either `name` or `nameExpr`");
        } else if inj.name_expr.as_deref().is_none_or(str::is_empty)
            && inj.name.as_deref().is_none_or(str::is_empty)
        {
            // Rendered as an empty name, which Porch's PackageVariant validation refuses.
            let which = if inj.name.is_some() {
                "name"
            } else {
                "nameExpr"
            };
            err(
                out,
                format!("{p}.{which}"),
                "must not be empty: name the in-cluster object to inject (Porch would refuse \
                 the PackageVariant: spec.injectors[].name must not be empty)",
            );
        }
    }
    extension::template(t, f, out);
    if let Some(pipeline) = &t.pipeline {
        for (kind, fns) in [
            ("validators", &pipeline.validators),
            ("mutators", &pipeline.mutators),
        ] {
            for (j, func) in fns.iter().enumerate() {
                let p = format!("{f}.pipeline.{kind}[{j}]");
                if func.image.is_empty() {
                    err(out, format!("{p}.image"), "must not be empty");
                }
                if func.name.contains('.') {
                    err(out, format!("{p}.name"), "must not contain '.'");
                }
                // kpt's checks, as the PackageVariant makes them on every variant emitted.
                let config_map = !func.config_map.is_empty() || !func.config_map_exprs.is_empty();
                for (sub, message) in func.function().problems(config_map, when_budget) {
                    // Porch's own "image must not be empty" (above) says it already.
                    if func.image.is_empty() && message.starts_with(NO_EXECUTOR) {
                        continue;
                    }
                    err(out, format!("{p}{sub}"), message);
                }
            }
        }
    }
}

/// How [`crate::api::function::Function::problems`] starts the error for a step with neither
/// `image` nor `exec`.
const NO_EXECUTOR: &str = "gives neither image nor exec";

/// Static context keys that Porch sets (`name`, `package-path`): Porch's PackageVariant
/// validation would refuse every variant of the set that sets or removes one.
fn reserved_context_keys(
    pc: &crate::api::package_variant_set::PackageContextTemplate,
    f: &str,
    out: &mut Vec<ResultItem>,
) {
    let refuse = |out: &mut Vec<ResultItem>, field: String, key: &str| {
        let message = format!(
            "must not contain the key {key:?} (Porch sets it): Porch would refuse every \
             PackageVariant of the set (spec.packageContext: must not contain the key {key:?})"
        );
        err(out, field, message);
    };
    for key in RESERVED_CONTEXT_KEYS {
        if pc.data.contains_key(*key) {
            refuse(out, format!("{f}.data.{key}"), key);
        }
        for (j, me) in pc.data_exprs.iter().enumerate() {
            if me.key_expr.is_none() && me.key.as_deref() == Some(*key) {
                refuse(out, format!("{f}.dataExprs[{j}].key"), key);
            }
        }
        for (j, k) in pc.remove_keys.iter().enumerate() {
            if k == key {
                refuse(out, format!("{f}.removeKeys[{j}]"), key);
            }
        }
    }
    // An empty key, which the PackageVariant function refuses in every variant.
    if pc.data.contains_key("") {
        err(
            out,
            format!("{f}.data"),
            "must not contain an empty key; name the key",
        );
    }
    for (j, _) in pc
        .remove_keys
        .iter()
        .enumerate()
        .filter(|(_, k)| k.is_empty())
    {
        err(
            out,
            format!("{f}.removeKeys[{j}]"),
            "must not be an empty key",
        );
    }
}

/// key/keyExpr and value/valueExpr conflicts of one MapExpr list (not configMapExprs: Porch
/// does not check those).
fn map_exprs(exprs: &[MapExpr], f: &str, out: &mut Vec<ResultItem>) {
    for (j, me) in exprs.iter().enumerate() {
        let p = format!("{f}[{j}]");
        if me.key.is_some() && me.key_expr.is_some() {
            err(
                out,
                p.clone(),
                "may specify only one of `key` and `keyExpr`",
            );
        }
        if me.value.is_some() && me.value_expr.is_some() {
            err(
                out,
                p.clone(),
                "may specify only one of `value` and `valueExpr`",
            );
        }
        if me.key_expr.is_none() && me.key.as_deref().is_none_or(str::is_empty) {
            // Porch renders it as the key "": a mistake, never a key anyone means.
            err(
                out,
                format!("{p}.key"),
                "must not be empty: give the key with `key` or `keyExpr`",
            );
        }
    }
}

#[cfg(test)]
mod tests;
