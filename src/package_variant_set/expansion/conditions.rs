//! A target's `when` condition: a CEL expression evaluated per candidate (a selected object,
//! or an entry of a `repositories` target) that keeps the candidate when it is true
//! (`target.labels['tier'] != 'test'`).
//!
//! It filters beyond Porch, so it is never read from Porch's v1alpha2 schema: only the
//! `fn.kpt.dev/v1alpha1` extension of the set sets [`Target::when`]. It sees the variables the
//! template sees (`repoDefault`, `packageDefault`, `upstream`, `target`, and `repository` when
//! the candidate's repository is among the items), and it is compiled and checked before
//! anything is evaluated: an expression that cannot give a bool is refused at compile time,
//! as cel-go's `ast.OutputType()` check refuses it.
//!
//! [`Target::when`]: crate::api::package_variant_set::Target::when

use super::inputs::Item;
use super::targets::DownstreamContext;
use super::templates::{reads_repository, RepositoryIndex};
use crate::api::package_variant_set::PackageVariantSet;
use crate::cel::{self as cel_env, Bindings, ProgramCache};
use crate::krm::results::ResultItem;

fn field(t: usize) -> String {
    format!("spec.targets[{t}].when")
}

/// The condition of each target that has one.
fn conditions(set: &PackageVariantSet) -> impl Iterator<Item = (usize, &str)> {
    set.spec
        .targets
        .iter()
        .enumerate()
        .filter_map(|(t, target)| target.when.as_deref().map(|w| (t, w)))
}

/// Compiles every condition; an error per condition that does not compile or whose type
/// cannot be bool.
pub fn compile_all(set: &PackageVariantSet, programs: &mut ProgramCache) -> Vec<ResultItem> {
    let mut errors = Vec::new();
    for (t, source) in conditions(set) {
        // Past the run's compile budget one error said so (see `ProgramCache::out_of_budget`).
        if programs.out_of_budget() {
            break;
        }
        if source.trim().is_empty() {
            let problem = "is empty: write a CEL condition that keeps a candidate when true \
                           (e.g. target.labels['tier'] != 'test'), or remove when";
            errors.push(ResultItem::error(problem).field(field(t)).on_config());
            continue;
        }
        let problem = match programs.compile(source) {
            Err(e) => e,
            Ok(p) if !p.may_be_bool() => format!(
                "must be a bool expression (it keeps a candidate when true), but {source:?} is of type {}; compare it, e.g. {source} == '...'",
                p.output_type()
            ),
            Ok(_) => continue,
        };
        errors.push(ResultItem::error(problem).field(field(t)).on_config());
    }
    errors
}

/// The contexts whose target has no condition, or whose condition is true for them, in
/// order. An evaluation error (no such key, a value that is not a bool, a cost limit) stops
/// the run, as a template's error does.
pub fn filter(
    set: &PackageVariantSet,
    contexts: Vec<DownstreamContext>,
    items: &[Item],
    programs: &mut ProgramCache,
    // Per upstream of the set, its PackageRevision as CEL sees it.
    upstream_inputs: &[::cel::Value],
    repositories: &RepositoryIndex<'_>,
) -> Result<Vec<DownstreamContext>, Box<ResultItem>> {
    if conditions(set).next().is_none() {
        return Ok(contexts);
    }
    let bindings: Vec<Bindings> = upstream_inputs
        .iter()
        .map(|u| Bindings::new(programs.env(), Some(u)))
        .collect();
    let mut kept = Vec::with_capacity(contexts.len());
    for ctx in contexts {
        let Some(source) = set
            .spec
            .targets
            .get(ctx.target)
            .and_then(|t| t.when.as_deref())
        else {
            kept.push(ctx);
            continue;
        };
        let program = programs
            .compile(source)
            .map_err(|e| Box::new(ResultItem::error(e).field(field(ctx.target)).on_config()))?;
        let object = ctx.object.and_then(|i| items.get(i).copied());
        let verdict = {
            let target = match &object {
                Some(o) => {
                    cel_env::object_val(o.name(), o.namespace(), o.labels(), o.annotations())
                }
                None => cel_env::repositories_target_val(&ctx.repo_default, &ctx.package_default),
            };
            // Built once per run, and only when the condition reads it.
            let repository = reads_repository(source)
                .then(|| repositories.val(&ctx.repo_default))
                .flatten();
            let Some(bindings) = bindings.get(ctx.upstream) else {
                return Err(Box::new(
                    ResultItem::error(
                        "internal error: a target of an upstream the set does not have",
                    )
                    .field(field(ctx.target))
                    .on_config(),
                ));
            };
            let mut activation =
                bindings.activation(&ctx.repo_default, &ctx.package_default, &target);
            if let Some(r) = repository {
                activation.bind_repository(r);
            }
            activation.evaluate_bool(&program)
        };
        match verdict {
            Ok(true) => kept.push(ctx),
            Ok(false) => {}
            Err(e) => {
                let of = match &object {
                    Some(o) => format!("{} {:?}", o.kind(), o.name()),
                    None => format!("repository {:?}", ctx.repo_default),
                };
                return Err(Box::new(
                    ResultItem::error(format!("for {of}: {e}"))
                        .field(field(ctx.target))
                        .on_config(),
                ));
            }
        }
    }
    Ok(kept)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::package_variant_set::expansion::inputs::from_json;
    use crate::package_variant_set::expansion::targets::unroll_targets;
    use serde_json::{json, Value};

    fn repo(name: &str, tier: &str) -> Value {
        json!({"apiVersion": "config.porch.kpt.dev/v1alpha1", "kind": "Repository",
            "metadata": {"name": name, "labels": {"tier": tier}}})
    }

    fn set(targets: Value, when: &[Option<&str>]) -> PackageVariantSet {
        let mut set: PackageVariantSet = crate::api::decode(
            &json!({"metadata": {"name": "s"}, "spec": {
                "upstream": {"repo": "up", "package": "base", "revision": 1}, "targets": targets}}),
            "",
        )
        .unwrap_or_default();
        for (t, w) in set.spec.targets.iter_mut().zip(when) {
            t.when = w.map(str::to_string);
        }
        set
    }

    /// The names of the repositories kept, or the error message.
    fn kept(set: &PackageVariantSet, items: &[Value]) -> Result<Vec<String>, String> {
        let items = from_json(items);
        let mut programs = ProgramCache::new();
        let errors = compile_all(set, &mut programs);
        if let Some(e) = errors.first() {
            return Err(format!(
                "{}: {}",
                e.field_path.clone().unwrap_or_default(),
                e.message
            ));
        }
        let contexts = unroll_targets(&set.spec, "base", &items, "default").unwrap_or_default();
        let repositories =
            RepositoryIndex::new(items.iter().copied().filter(|i| i.kind() == "Repository"));
        let upstream = cel_env::object_input(&json!({"metadata": {"name": "up"}}));
        filter(
            set,
            contexts,
            &items,
            &mut programs,
            std::slice::from_ref(&upstream),
            &repositories,
        )
        .map(|c| c.into_iter().map(|c| c.repo_default).collect())
        .map_err(|e| format!("{}: {}", e.field_path.unwrap_or_default(), e.message))
    }

    #[test]
    fn a_condition_keeps_or_drops_each_candidate() {
        let items = [repo("a", "prod"), repo("b", "test"), repo("c", "prod")];
        let selector = json!([{"repositorySelector": {}}]);
        let s = set(selector.clone(), &[Some("target.labels['tier'] != 'test'")]);
        assert_eq!(kept(&s, &items), Ok(vec!["a".into(), "c".into()]));
        // No condition: every candidate.
        let s = set(selector.clone(), &[None]);
        assert_eq!(kept(&s, &items).map(|k| k.len()), Ok(3));
        // The template's variables: repoDefault, upstream, and repository.
        let s = set(
            selector,
            &[Some(
                "repoDefault != 'a' && upstream.name == 'up' && repository.labels.tier == 'prod'",
            )],
        );
        assert_eq!(kept(&s, &items), Ok(vec!["c".into()]));
        // A repositories target: `target` is the entry.
        let s = set(
            json!([{"repositories": [{"name": "a"}, {"name": "b", "packageNames": ["x", "y"]}]}]),
            &[Some("target.repo == 'b' && target.package != 'x'")],
        );
        assert_eq!(kept(&s, &items), Ok(vec!["b".into()]));
    }

    #[test]
    fn a_condition_must_be_a_bool_at_compile_time() {
        let items = [repo("a", "prod")];
        let selector = json!([{"repositorySelector": {}}]);
        let e = kept(&set(selector.clone(), &[Some("target.name")]), &items);
        // `target` is dyn: its fields are dyn, so this passes the checker and fails per
        // candidate, as in cel-go.
        assert_eq!(
            e,
            Err(r#"spec.targets[0].when: for Repository "a": expression returned non-bool value of type string"#.into())
        );
        let e = kept(&set(selector.clone(), &[Some("'a' + repoDefault")]), &items).unwrap_err();
        assert!(
            e.starts_with("spec.targets[0].when: must be a bool expression (it keeps a candidate when true), but \"'a' + repoDefault\" is of type string"),
            "{e}"
        );
        let e = kept(&set(selector.clone(), &[Some("1 + 1")]), &items).unwrap_err();
        assert!(e.contains("is of type int"), "{e}");
        let e = kept(&set(selector, &[Some("nope == 1")]), &items).unwrap_err();
        assert!(e.contains("undeclared reference to 'nope'"), "{e}");
    }

    #[test]
    fn evaluation_errors_name_the_candidate() {
        let items = [repo("a", "prod")];
        let e = kept(
            &set(
                json!([{"repositorySelector": {}}]),
                &[Some("target.labels['nope'] == 'x'")],
            ),
            &items,
        );
        let e = e.unwrap_err();
        assert!(
            e.starts_with(r#"spec.targets[0].when: for Repository "a": no such key: nope; "#)
                && e.contains("target.labels has the keys tier"),
            "{e}"
        );
    }
}
