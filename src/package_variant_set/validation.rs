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

pub mod api_server;

use std::collections::HashMap;

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
    match &set.spec.upstream {
        None => err(&mut out, "spec.upstream", "is a required field"),
        Some(up) => {
            if up.package.is_empty() {
                err(&mut out, "spec.upstream.package", "is a required field");
            }
            if up.repo.is_empty() {
                err(&mut out, "spec.upstream.repo", "is a required field");
            }
            if up.revision == 0 && up.workspace_name.is_empty() {
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
            validate_template(t, &format!("spec.targets[{i}].template"), &mut out);
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

fn validate_template(t: &PackageVariantTemplate, f: &str, out: &mut Vec<ResultItem>) {
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
            }
        }
    }
}

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
mod tests {
    use super::*;
    use crate::api::decode;
    use serde_json::{json, Value};

    /// Every Porch case starts with this header.
    fn messages(spec: Option<Value>) -> Vec<String> {
        let mut set = json!({"apiVersion": "config.porch.kpt.dev", "kind": "PackageVariantSet", "metadata": {"name": "my-pv"}});
        if let Some(spec) = spec {
            set["spec"] = spec;
        }
        let set: PackageVariantSet = match decode(&set, "") {
            Ok(s) => s,
            Err(e) => return vec![format!("decode: {}", e.message)],
        };
        validate_package_variant_set(&set)
            .into_iter()
            .map(porch_words)
            .collect()
    }

    /// A problem in Porch's words: our message with its field path put back where Porch writes
    /// it (Porch spells `objectselector` in lower case in two messages).
    fn porch_words(r: ResultItem) -> String {
        let field = r.field_path.unwrap_or_default();
        let m = r.message;
        if m.starts_with("must specify at least one item") {
            format!("{m} in {field}")
        } else if m.starts_with("either ") {
            m
        } else if m.contains("`downstream.") {
            format!("{} {m}", field.trim_end_matches(".downstream"))
        } else {
            let field = field.replace("objectSelector", "objectselector");
            let m = m.split(", not \"").next().unwrap_or_default();
            format!("{field} {m}")
        }
    }

    const UP: &str = "spec.upstream is a required field";
    const NO_TARGETS: &str = "must specify at least one item in spec.targets";
    const ONE_OF0: &str = "spec.targets[0] must specify one of `repositories`, `repositorySelector`, or `objectSelector`";

    #[test]
    fn v1_empty_spec() {
        assert_eq!(messages(None), [UP, NO_TARGETS]);
    }

    #[test]
    fn v2_missing_upstream_package() {
        assert_eq!(
            messages(Some(json!({"upstream": {"repo": "foo", "revision": 1}}))),
            ["spec.upstream.package is a required field", NO_TARGETS]
        );
    }

    #[test]
    fn v3_missing_upstream_repo() {
        assert_eq!(
            messages(Some(
                json!({"upstream": {"package": "foopkg", "revision": 3}})
            )),
            ["spec.upstream.repo is a required field", NO_TARGETS]
        );
    }

    #[test]
    fn v4_missing_upstream_revision() {
        assert_eq!(
            messages(Some(
                json!({"upstream": {"repo": "foo", "package": "foopkg"}})
            )),
            [
                "either spec.upstream.revision or spec.upstream.workspaceName must be specified",
                NO_TARGETS
            ]
        );
    }

    #[test]
    fn v5_invalid_targets() {
        assert_eq!(
            messages(Some(json!({"targets": [
                {"repositories": [{"name": ""}]},
                {"repositories": [{"name": "bar"}], "repositorySelector": {"foo": "bar"}},
                {"repositories": [{"name": "bar", "packageNames": ["", "foo"]}]}]}))),
            [
                UP,
                "spec.targets[0].repositories[0].name cannot be empty",
                "spec.targets[1] must specify one of `repositories`, `repositorySelector`, or `objectSelector`",
                "spec.targets[2].repositories[0].packageNames[0] cannot be empty",
            ]
        );
    }

    #[test]
    fn v6_invalid_adoption_and_deletion_policies() {
        assert_eq!(
            messages(Some(
                json!({"targets": [{"template": {"adoptionPolicy": "invalid", "deletionPolicy": "invalid"}}]})
            )),
            [
                UP,
                ONE_OF0,
                r#"spec.targets[0].template.adoptionPolicy can only be "adoptNone" or "adoptExisting""#,
                r#"spec.targets[0].template.deletionPolicy can only be "orphan" or "delete""#,
            ]
        );
    }

    #[test]
    fn v7_spec_level_policies_are_ignored() {
        assert_eq!(
            messages(Some(
                json!({"adoptionPolicy": "adoptExisting", "deletionPolicy": "orphan"})
            )),
            [UP, NO_TARGETS]
        );
    }

    #[test]
    fn v8_downstream_values_and_expressions_do_not_mix() {
        assert_eq!(
            messages(Some(json!({"targets": [{"template": {"downstream": {"repo": "foo", "repoExpr": "'bar'", "package": "p", "packageExpr": "'p'"}}}]}))),
            [
                UP,
                ONE_OF0,
                "spec.targets[0].template may specify only one of `downstream.repo` and `downstream.repoExpr`",
                "spec.targets[0].template may specify only one of `downstream.package` and `downstream.packageExpr`",
            ]
        );
    }

    #[test]
    fn v9_map_exprs_do_not_mix() {
        let pair = json!([{"key": "foo", "keyExpr": "'bar'", "value": "bar"}, {"key": "foo", "value": "bar", "valueExpr": "'bar'"}]);
        assert_eq!(
            messages(Some(json!({"targets": [{"template": {"labelExprs": pair, "annotationExprs": pair, "packageContext": {"dataExprs": pair}}}]}))),
            [
                UP,
                ONE_OF0,
                "spec.targets[0].template.labelExprs[0] may specify only one of `key` and `keyExpr`",
                "spec.targets[0].template.labelExprs[1] may specify only one of `value` and `valueExpr`",
                "spec.targets[0].template.annotationExprs[0] may specify only one of `key` and `keyExpr`",
                "spec.targets[0].template.annotationExprs[1] may specify only one of `value` and `valueExpr`",
                "spec.targets[0].template.packageContext.dataExprs[0] may specify only one of `key` and `keyExpr`",
                "spec.targets[0].template.packageContext.dataExprs[1] may specify only one of `value` and `valueExpr`",
            ]
        );
    }

    #[test]
    fn v10_injectors_name_or_name_expr() {
        assert_eq!(
            messages(Some(json!({"targets": [{"repositories": [{"name": "bar"}], "template": {"injectors": [{"name": "foo", "nameExpr": "bar"}, {"group": "foo"}]}}]}))),
            [
                UP,
                "spec.targets[0].template.injectors[0] may specify only one of `name` and `nameExpr`",
                "spec.targets[0].template.injectors[1] must specify either `name` or `nameExpr`",
            ]
        );
    }

    #[test]
    fn v11_pipeline_function_must_be_valid() {
        assert_eq!(
            messages(Some(
                json!({"targets": [{"repositories": [{"name": "bar"}], "template": {"pipeline": {
                "validators": [{"name": "foo"}, {"image": "foo", "name": "bar"}],
                "mutators": [{"name": "foo.bar", "image": "bar"}]}}}]})
            )),
            [
                UP,
                "spec.targets[0].template.pipeline.validators[0].image must not be empty",
                "spec.targets[0].template.pipeline.mutators[0].name must not contain '.'",
            ]
        );
    }

    const VALID_UP: &str = r#"{"repo": "r", "package": "p", "revision": 1}"#;

    fn with_up(targets: Value) -> Value {
        json!({"upstream": serde_json::from_str::<Value>(VALID_UP).unwrap_or_default(), "targets": targets})
    }

    #[test]
    fn d24_empty_repositories_list() {
        assert_eq!(
            messages(Some(with_up(json!([{"repositories": []}])))),
            ["spec.targets[0].repositories must not be an empty list if specified"]
        );
    }

    #[test]
    fn d25_object_selector_needs_api_version_and_kind() {
        assert_eq!(
            messages(Some(with_up(json!([{"objectSelector": {}}])))),
            [
                "spec.targets[0].objectselector.apiVersion cannot be empty",
                "spec.targets[0].objectselector.kind cannot be empty"
            ]
        );
    }

    #[test]
    fn d26_negative_revision_or_workspace_is_valid() {
        let t = json!([{"repositories": [{"name": "r"}]}]);
        assert!(messages(Some(
            json!({"upstream": {"repo": "r", "package": "p", "revision": -1}, "targets": t})
        ))
        .is_empty());
        assert!(messages(Some(
            json!({"upstream": {"repo": "r", "package": "p", "workspaceName": "ws"}, "targets": t})
        ))
        .is_empty());
    }

    #[test]
    fn d27_more_or_fewer_than_one_option() {
        assert_eq!(
            messages(Some(with_up(
                json!([{"repositories": [{"name": "r"}], "objectSelector": {"apiVersion": "v1", "kind": "X"}}])
            ))),
            [ONE_OF0]
        );
        assert_eq!(messages(Some(with_up(json!([{}])))), [ONE_OF0]);
    }

    #[test]
    fn d16_empty_injector_name_refused_and_d17_config_map_exprs_unchecked() {
        // Porch passes an empty injector name; its PackageVariant validation then refuses the
        // variant, so the set refuses it first.
        let t = json!([{"repositories": [{"name": "r"}], "template": {
            "injectors": [{"name": ""}],
            "pipeline": {"mutators": [{"image": "x", "configMapExprs": [{"key": "a", "keyExpr": "'b'", "value": "v"}]}]}}}]);
        let m = messages(Some(with_up(t)));
        assert_eq!(m.len(), 1, "{m:?}");
        assert!(
            m[0].starts_with("spec.targets[0].template.injectors[0].name must not be empty"),
            "{m:?}"
        );
    }

    #[test]
    fn each_problem_has_its_field_and_is_on_the_config() {
        let set: PackageVariantSet =
            decode(&json!({"spec": {"targets": [{"repositories": []}]}}), "").unwrap_or_default();
        let results = validate_package_variant_set(&set);
        let fields: Vec<_> = results
            .iter()
            .map(|r| r.field_path.clone().unwrap_or_default())
            .collect();
        assert_eq!(fields, ["spec.upstream", "spec.targets[0].repositories"]);
        assert!(results
            .iter()
            .all(|r| r.is_error() && r.subject == crate::krm::results::Subject::Config));
    }
}
