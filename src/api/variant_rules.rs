//! The PackageVariant's rules on its spec alone: Porch's `validatePackageVariant`, the two
//! checks Porch lacks (a `.` in the name or in a pipeline function name), and the extension's
//! `injection` entries and `pipelinePlacement` as far as they need no package to be judged.
//!
//! One place for both functions: the PackageVariant function refuses a spec with any of these
//! problems, and the set's expander checks every variant it would emit with the same code, so a
//! set never emits a variant the function refuses. Problems carry the PackageVariant's field
//! path; each caller says where that is on its own object.

use std::collections::{BTreeMap, HashMap};

use serde_json::Value;

use super::function::WhenBudget;
use super::package_variant::{
    Function, InjectionEntry, PackageVariantSpec, ADOPTION_POLICIES, DELETION_POLICIES,
    RESERVED_CONTEXT_KEYS,
};
use super::suggest::did_you_mean;
pub use super::Problem;

fn push(out: &mut Vec<Problem>, field: impl Into<String>, message: impl Into<String>) {
    out.push(Problem {
        field: field.into(),
        message: message.into(),
    });
}

const MISSING: &str = "missing required field";

/// All problems of a PackageVariant named `name` with `spec`, in Porch's order, then the
/// extension's fields.
pub fn problems(name: &str, spec: &PackageVariantSpec) -> Vec<Problem> {
    problems_with(name, spec, &mut WhenBudget::default())
}

/// [`problems`] with the budget of pipeline `when` conditions given: a set checks many
/// variants of one template against one budget, each distinct text parsed once.
pub fn problems_with(
    name: &str,
    spec: &PackageVariantSpec,
    budget: &mut WhenBudget,
) -> Vec<Problem> {
    let mut out = Vec::new();
    let has_functions = spec
        .pipeline
        .as_ref()
        .is_some_and(|p| !(p.mutators.is_empty() && p.validators.is_empty()));
    name_problem(&mut out, name, has_functions);
    match &spec.upstream {
        None => push(&mut out, "spec.upstream", MISSING),
        Some(up) => {
            if up.repo.is_empty() {
                push(&mut out, "spec.upstream.repo", MISSING);
            }
            if up.package.is_empty() {
                push(&mut out, "spec.upstream.package", MISSING);
            }
        }
    }
    match &spec.downstream {
        None => push(&mut out, "spec.downstream", MISSING),
        Some(down) => {
            if down.repo.is_empty() {
                push(&mut out, "spec.downstream.repo", MISSING);
            }
            if down.package.is_empty() {
                push(&mut out, "spec.downstream.package", MISSING);
            }
        }
    }
    let adoption = spec.adoption_policy.as_str();
    if !matches!(adoption, "" | "adoptNone" | "adoptExisting") {
        push(
            &mut out,
            "spec.adoptionPolicy",
            format!(
                r#"field can only be "adoptNone" or "adoptExisting", not {adoption:?}{}"#,
                did_you_mean(adoption, ADOPTION_POLICIES)
            ),
        );
    }
    let deletion = spec.deletion_policy.as_str();
    if !matches!(deletion, "" | "orphan" | "delete") {
        push(
            &mut out,
            "spec.deletionPolicy",
            format!(
                r#"can only be "orphan" or "delete", not {deletion:?}{}"#,
                did_you_mean(deletion, DELETION_POLICIES)
            ),
        );
    }
    if let Some(pc) = &spec.package_context {
        out.extend(reserved_keys(
            &pc.data,
            &pc.remove_keys,
            "spec.packageContext.data",
            "spec.packageContext.removeKeys",
        ));
    }
    for (i, inj) in spec.injectors.iter().enumerate() {
        if inj.name.is_empty() {
            push(
                &mut out,
                format!("spec.injectors[{i}].name"),
                "must not be empty: name the in-cluster object to inject",
            );
        }
    }
    if let Some(p) = &spec.pipeline {
        functions(&mut out, &p.mutators, "spec.pipeline.mutators", budget);
        functions(&mut out, &p.validators, "spec.pipeline.validators", budget);
    }
    injection(&mut out, &spec.injection);
    if let Some(p) = &spec.pipeline_placement {
        for (f, m) in p.problems() {
            push(&mut out, format!("spec.pipelinePlacement.{f}"), m);
        }
    }
    out.extend(super::identity::check_sources(&spec.injection));
    out
}

/// Porch's reserved-key check over context `data` and `removeKeys`, with the field paths to
/// report. Order: per reserved key, data first, then each occurrence in removeKeys. The message
/// is Porch's after its `<field>: ` prefix. Then an empty key, which Porch would write as a
/// ConfigMap key Kubernetes refuses (and which no one means).
pub fn reserved_keys(
    data: &BTreeMap<String, String>,
    remove_keys: &[String],
    data_field: &str,
    remove_field: &str,
) -> Vec<Problem> {
    let mut out = Vec::new();
    for key in RESERVED_CONTEXT_KEYS {
        if data.contains_key(*key) {
            push(
                &mut out,
                data_field,
                format!(
                    "Invalid value: {}: must not contain the key {key:?} (Porch sets it)",
                    go_json(data)
                ),
            );
        }
        for _ in remove_keys.iter().filter(|k| k == key) {
            push(
                &mut out,
                remove_field,
                format!(
                    "Invalid value: {}: must not contain the key {key:?} (Porch sets it)",
                    go_json(&remove_keys)
                ),
            );
        }
    }
    if let Some(v) = data.get("") {
        let message = format!("must not contain an empty key (\"\": {v:?}); name the key");
        push(&mut out, data_field, message);
    }
    if remove_keys.iter().any(String::is_empty) {
        push(&mut out, remove_field, "must not contain an empty key");
    }
    out
}

/// Rejects a missing name, a name Kubernetes would refuse, and a `.` in the name of a variant
/// with pipeline functions ([`super::names::package_variant_name_problem_with`]).
fn name_problem(out: &mut Vec<Problem>, name: &str, has_functions: bool) {
    if name.is_empty() {
        push(out, "metadata.name", MISSING);
    } else if let Some(why) = super::names::package_variant_name_problem_with(name, has_functions) {
        push(
            out,
            "metadata.name",
            format!("PackageVariant name {name:?} {why}"),
        );
    }
}

fn functions(out: &mut Vec<Problem>, fns: &[Function], field: &str, budget: &mut WhenBudget) {
    for (i, f) in fns.iter().enumerate() {
        if f.name.contains('.') {
            push(
                out,
                format!("{field}[{i}].name"),
                format!(
                    "function name {:?} must not contain \".\": the generated name \
                     PackageVariant.<pv>.{}.{i} would not be recognised on the next run and \
                     would pile up",
                    f.name, f.name
                ),
            );
        }
        for (sub, message) in f.problems(!f.config_map.is_empty(), budget) {
            push(out, format!("{field}[{i}]{sub}"), message);
        }
    }
}

/// Go's `json.Marshal`: compact, map keys sorted, and `<`, `>`, `&`, U+2028, U+2029 escaped.
pub fn go_json<T: serde::Serialize + ?Sized>(v: &T) -> String {
    serde_json::to_string(v)
        .unwrap_or_default()
        .replace('<', "\\u003c")
        .replace('>', "\\u003e")
        .replace('&', "\\u0026")
        .replace('\u{2028}', "\\u2028")
        .replace('\u{2029}', "\\u2029")
}

/// The problems of the extension's `spec.injection` that no package can mend: no source or
/// more than one, a source without the fields it cannot do without, one point bound twice, an
/// owned resource without its identity or given twice, a point's value in neither or both of
/// `data` and `spec`.
fn injection(out: &mut Vec<Problem>, entries: &[InjectionEntry]) {
    let mut bound: HashMap<&str, usize> = HashMap::new();
    let mut owned: HashMap<(&str, &str, &str), usize> = HashMap::new();
    for (i, e) in entries.iter().enumerate() {
        let at = format!("spec.injection[{i}]");
        sources(out, e, &at);
        required_fields(out, e, &at);
        if e.binding_point.is_empty() {
            owned_entry(out, e, i, &at, &mut owned);
            continue;
        }
        if let Some(first) = bound.insert(&e.binding_point, i) {
            bound.insert(&e.binding_point, first);
            push(
                out,
                format!("{at}.bindingPoint"),
                format!(
                    "binds injection point {:?}, which spec.injection[{first}] binds already: \
                     one entry per point; remove one of them",
                    e.binding_point
                ),
            );
        }
        if let Some(d) = e.direct_resource.as_ref().and_then(Value::as_object) {
            point_value(out, d, &at);
        }
    }
}

/// Exactly one source per entry.
fn sources(out: &mut Vec<Problem>, e: &InjectionEntry, at: &str) {
    let given: Vec<&str> = [
        (e.cluster_resource.is_some(), "clusterResource"),
        (e.direct_resource.is_some(), "directResource"),
        (e.package_resource.is_some(), "packageResource"),
    ]
    .into_iter()
    .filter_map(|(on, name)| on.then_some(name))
    .collect();
    match given.len() {
        0 => push(
            out,
            at,
            "gives no source: give exactly one of clusterResource, directResource and \
             packageResource",
        ),
        1 => {}
        _ => push(
            out,
            at,
            format!(
                "gives {}: give exactly one source per entry (one entry per source)",
                given.join(" and ")
            ),
        ),
    }
}

/// The fields a source cannot do without.
fn required_fields(out: &mut Vec<Problem>, e: &InjectionEntry, at: &str) {
    if let Some(c) = &e.cluster_resource {
        if c.name.is_empty() {
            push(
                out,
                format!("{at}.clusterResource.name"),
                "must not be empty: name the in-cluster object",
            );
        }
        if e.binding_point.is_empty() {
            push(
                out,
                format!("{at}.bindingPoint"),
                "clusterResource needs a bindingPoint (the point gives its kind): name the \
                 injection point to fill, or give the resource as directResource",
            );
        }
    }
    if let Some(p) = &e.package_resource {
        for (field, value) in [
            ("repo", &p.repo),
            ("package", &p.package),
            ("name", &p.name),
        ] {
            if value.is_empty() {
                push(
                    out,
                    format!("{at}.packageResource.{field}"),
                    format!("must not be empty: name the {field} of the package resource"),
                );
            }
        }
        if p.revision < 0 {
            push(
                out,
                format!("{at}.packageResource.revision"),
                "must not be negative: write a revision number, or leave it out for the \
                 highest Published revision",
            );
        }
    }
    if let Some(d) = &e.direct_resource {
        if !d.is_object() {
            push(
                out,
                format!("{at}.directResource"),
                "must be a mapping: the value to inject (spec, or data for a ConfigMap)",
            );
        }
        super::data_strings::check_direct(d, at, out);
    }
}

/// An entry without a binding point adds a whole resource: it needs its identity, and two
/// entries may not add the same one.
fn owned_entry<'e>(
    out: &mut Vec<Problem>,
    e: &'e InjectionEntry,
    i: usize,
    at: &str,
    seen: &mut HashMap<(&'e str, &'e str, &'e str), usize>,
) {
    if let Some(d) = e.direct_resource.as_ref().filter(|d| d.is_object()) {
        let s = |pointer: &str| d.pointer(pointer).and_then(Value::as_str).unwrap_or("");
        let mut whole = true;
        for (pointer, field) in [
            ("/apiVersion", "apiVersion"),
            ("/kind", "kind"),
            ("/metadata/name", "metadata.name"),
        ] {
            if s(pointer).is_empty() {
                whole = false;
                push(
                    out,
                    format!("{at}.directResource.{field}"),
                    format!(
                        "a directResource without bindingPoint is a whole resource added to \
                         the package: write its {field} (or name the injection point to fill \
                         with bindingPoint)"
                    ),
                );
            }
        }
        let key = (s("/kind"), s("/metadata/namespace"), s("/metadata/name"));
        if whole {
            if let Some(&first) = seen.get(&key) {
                push(
                    out,
                    at,
                    format!(
                        "adds {}/{} again (spec.injection[{first}] adds it): one entry per \
                         resource",
                        key.0, key.2
                    ),
                );
            } else {
                seen.insert(key, i);
            }
        }
    }
    if let Some(p) = &e.package_resource {
        if p.api_version.is_empty() || p.kind.is_empty() {
            push(
                out,
                format!("{at}.packageResource"),
                "a packageResource without bindingPoint needs apiVersion and kind (there is no \
                 point to take them from)",
            );
        }
    }
}

/// A bound `directResource` gives the point's value under `data` (a ConfigMap) or `spec`
/// (anything else), exactly one of them, and nothing else but its identity.
fn point_value(out: &mut Vec<Problem>, d: &serde_json::Map<String, Value>, at: &str) {
    let at = format!("{at}.directResource");
    for key in d.keys() {
        if !matches!(
            key.as_str(),
            "apiVersion" | "kind" | "metadata" | "data" | "spec"
        ) {
            push(
                out,
                format!("{at}.{key}"),
                format!(
                    "a bound directResource gives the point's data (a ConfigMap) or spec \
                     (anything else), not {key}: write the value under data or spec"
                ),
            );
        }
    }
    match (d.contains_key("data"), d.contains_key("spec")) {
        (true, true) => push(
            out,
            at,
            "gives both data and spec: a point takes one (data for a ConfigMap, spec \
             otherwise); remove the other",
        ),
        (false, false) => push(
            out,
            at,
            "gives neither data nor spec: write the value for the point under data (a \
             ConfigMap) or spec",
        ),
        _ => {}
    }
}
