//! Porch's TestRenderPackageVariantSpec (R1–R11), TestCopyAndOverlayMapExpr (O1–O3) and the
//! derived render cases of the notes' §8.

use super::*;
use crate::api::decode;
use serde_json::{json, Value};

fn repos() -> Vec<Value> {
    vec![
        json!({"metadata": {"name": "my-repo-1", "labels": {"foo": "bar", "abc": "def"}}}),
        json!({"metadata": {"name": "my-repo-2", "labels": {"foo": "bar", "abc": "def", "efg": "hij"}}}),
    ]
}

fn upstream_pr() -> Value {
    json!({"metadata": {"name": "p", "namespace": "default",
        "labels": {"vendor": "bigco.com", "product": "snazzy", "version": "1.6.8"},
        "annotations": {"bigco.com/team": "us-platform"}}})
}

/// Renders with the §7.2 fixtures: context my-repo-1/p, repositories-style target.
fn render_ctx(
    template: Option<Value>,
    repo_default: &str,
    object: Option<&Value>,
) -> Result<Value, String> {
    let template: Option<PackageVariantTemplate> = match template {
        Some(t) => Some(decode(&t, "template").map_err(|e| e.message)?),
        None => None,
    };
    let upstream = Upstream {
        repo: "up-repo".into(),
        package: "up-pkg".into(),
        revision: 2,
        workspace_name: String::new(),
    };
    let upstream_input = cel_env::object_input(&upstream_pr());
    let repos = repos();
    let index = RepositoryIndex::new(repos.iter().map(Item::Json));
    let mut programs = ProgramCache::new();
    let mut renderer = Renderer::new(&mut programs, Some(&upstream), &upstream_input, &index);
    let input = RenderInput {
        template: template.as_ref(),
        repo_default,
        package_default: "p",
        object: object.map(Item::Json),
        upstream: 0,
    };
    let rendered = renderer.render(&input);
    // Every render here also checks the recording render and its replay: the same error,
    // or the same downstream and, built again from the record alone, the same spec.
    let mut record = Records::default();
    record.push("kept").unwrap_or_default();
    let recorded = renderer.record(&input, &mut record);
    match (&rendered, &recorded) {
        (Ok(spec), Ok(downstream)) => {
            assert_eq!(spec.downstream.as_ref(), Some(downstream));
            let replayed = replay(
                Some(&upstream),
                template.as_ref(),
                repo_default,
                "p",
                &record,
                1,
            );
            assert_eq!(replayed.as_ref(), Ok(spec));
        }
        (Err(a), Err(b)) => assert_eq!(a, b),
        _ => panic!("render and record disagree: {rendered:?} / {recorded:?}"),
    }
    // Porch's words: the hints this function adds are tested through the binary.
    rendered
        .map(|s| s.to_json())
        .map_err(|e| cel_env::porch_words(&e.message))
}

fn render(template: Option<Value>) -> Result<Value, String> {
    render_ctx(template, "my-repo-1", None)
}

/// The expected spec: `upstream` plus the given fields.
fn expect(fields: Value) -> Value {
    let mut out = json!({"upstream": {"repo": "up-repo", "package": "up-pkg", "revision": 2}});
    if let (Some(o), Some(f)) = (out.as_object_mut(), fields.as_object()) {
        for (k, v) in f {
            o.insert(k.clone(), v.clone());
        }
    }
    out
}

#[test]
fn r1_no_template() {
    assert_eq!(
        render(None),
        Ok(expect(
            json!({"downstream": {"repo": "my-repo-1", "package": "p"}})
        ))
    );
}

#[test]
fn r2_template_downstream_repo() {
    assert_eq!(
        render(Some(json!({"downstream": {"repo": "my-repo-2"}}))),
        Ok(expect(
            json!({"downstream": {"repo": "my-repo-2", "package": "p"}})
        ))
    );
}

#[test]
fn r3_template_downstream_package() {
    assert_eq!(
        render(Some(json!({"downstream": {"package": "new-p"}}))),
        Ok(expect(
            json!({"downstream": {"repo": "my-repo-1", "package": "new-p"}})
        ))
    );
}

#[test]
fn r4_template_adoption_and_deletion() {
    assert_eq!(
        render(Some(
            json!({"adoptionPolicy": "adoptExisting", "deletionPolicy": "delete"})
        )),
        Ok(expect(
            json!({"downstream": {"repo": "my-repo-1", "package": "p"}, "adoptionPolicy": "adoptExisting", "deletionPolicy": "delete"})
        ))
    );
}

#[test]
fn r5_template_static_labels_and_annotations() {
    assert_eq!(
        render(Some(
            json!({"labels": {"foo": "bar", "hello": "there"}, "annotations": {"foobar": "barfoo"}})
        )),
        Ok(expect(
            json!({"downstream": {"repo": "my-repo-1", "package": "p"},
            "labels": {"foo": "bar", "hello": "there"}, "annotations": {"foobar": "barfoo"}})
        ))
    );
}

#[test]
fn r6_template_static_package_context() {
    assert_eq!(
        render(Some(
            json!({"packageContext": {"data": {"foo": "bar", "hello": "there"}, "removeKeys": ["foobar", "barfoo"]}})
        )),
        Ok(expect(
            json!({"downstream": {"repo": "my-repo-1", "package": "p"},
            "packageContext": {"data": {"foo": "bar", "hello": "there"}, "removeKeys": ["barfoo", "foobar"]}})
        ))
    );
}

#[test]
fn r7_template_downstream_with_expressions() {
    assert_eq!(
        render(Some(
            json!({"downstream": {"repoExpr": "'my-repo-2'", "packageExpr": "repoDefault + '-' + packageDefault"}})
        )),
        Ok(expect(
            json!({"downstream": {"repo": "my-repo-2", "package": "my-repo-1-p"}})
        ))
    );
}

#[test]
fn r8_template_labels_and_annotations_with_expressions() {
    let t = json!({
        "downstream": {"repoExpr": "'my-repo-2'", "packageExpr": "repoDefault + '-' + packageDefault"},
        "labels": {"foo": "bar", "hello": "there"},
        "labelExprs": [
            {"key": "foo", "valueExpr": "repoDefault"},
            {"keyExpr": "repository.labels['efg']", "valueExpr": "packageDefault + '-' + repository.name"},
            {"key": "hello", "value": "goodbye"}],
        "annotations": {"bigco.com/sample-annotation": "some-annotation", "foo.org/id": "123456"},
        "annotationExprs": [
            {"key": "foo.org/id", "value": "54321"},
            {"key": "bigco.com/team", "valueExpr": "upstream.annotations['bigco.com/team']"}]
    });
    assert_eq!(
        render(Some(t)),
        Ok(expect(json!({
            "downstream": {"repo": "my-repo-2", "package": "my-repo-1-p"},
            "labels": {"foo": "my-repo-1", "hello": "goodbye", "hij": "p-my-repo-2"},
            "annotations": {"bigco.com/sample-annotation": "some-annotation", "bigco.com/team": "us-platform", "foo.org/id": "54321"}
        })))
    );
}

#[test]
fn r9_template_package_context_with_expressions() {
    let t = json!({"packageContext": {
        "data": {"foo": "bar", "hello": "there"},
        "dataExprs": [
            {"key": "foo", "valueExpr": "upstream.name"},
            {"keyExpr": "upstream.namespace", "valueExpr": "upstream.name"},
            {"keyExpr": "upstream.name", "value": "foo"}],
        "removeKeys": ["foobar", "barfoo"],
        "removeKeyExprs": ["repository.labels['abc']"]}});
    assert_eq!(
        render(Some(t)),
        Ok(expect(
            json!({"downstream": {"repo": "my-repo-1", "package": "p"},
            "packageContext": {"data": {"default": "p", "foo": "p", "hello": "there", "p": "foo"}, "removeKeys": ["barfoo", "def", "foobar"]}})
        ))
    );
}

#[test]
fn r10_template_injectors() {
    let t = json!({"injectors": [
        {"group": "kpt.dev", "version": "v1alpha1", "kind": "Foo", "name": "bar"},
        {"group": "kpt.dev", "version": "v1alpha1", "kind": "Foo", "nameExpr": "repository.labels['abc']"},
        {"nameExpr": "repository.name + '-test'"}]});
    assert_eq!(
        render(Some(t)),
        Ok(expect(
            json!({"downstream": {"repo": "my-repo-1", "package": "p"}, "injectors": [
            {"group": "kpt.dev", "version": "v1alpha1", "kind": "Foo", "name": "bar"},
            {"group": "kpt.dev", "version": "v1alpha1", "kind": "Foo", "name": "def"},
            {"name": "my-repo-1-test"}]})
        ))
    );
}

#[test]
fn r11_pipeline() {
    let t = json!({"pipeline": {
        "validators": [
            {"image": "foo:bar", "name": "hey"},
            {"image": "foo:bar", "configMap": {"k1": "v1", "k2": "v2"},
             "configMapExprs": [{"key": "k1", "valueExpr": "repository.name"}, {"keyExpr": "'k3'", "value": "bar"}]}],
        "mutators": [{"image": "mutates", "configMapExprs": [{"key": "k1", "value": "yo"}]}]}});
    assert_eq!(
        render(Some(t)),
        Ok(expect(
            json!({"downstream": {"repo": "my-repo-1", "package": "p"}, "pipeline": {
            "mutators": [{"image": "mutates", "configMap": {"k1": "yo"}}],
            "validators": [
                {"image": "foo:bar", "name": "hey"},
                {"image": "foo:bar", "configMap": {"k1": "my-repo-1", "k2": "v2", "k3": "bar"}}]}})
        ))
    );
}

/// O1–O3 run copyAndOverlayMapExpr with the TestEvalExpr inputs.
fn overlay(base: Value, exprs: Value) -> Result<Value, String> {
    let base: BTreeMap<String, String> = decode(&base, "").map_err(|e| e.message)?;
    let exprs: Vec<MapExpr> = decode(&exprs, "").map_err(|e| e.message)?;
    let mut programs = ProgramCache::new();
    let bindings = Bindings::new(programs.env(), None);
    let null = cel_env::as_val(cel::Value::Null);
    let activation = bindings.activation("foo-repo", "bar-package", null.as_ref());
    let index = RepositoryIndex::default();
    let mut ev = Live {
        programs: &mut programs,
        activation,
        repositories: &index,
        object: None,
        reads_repository: false,
        record: None,
        defaults: ("foo-repo", "bar-package"),
    };
    let out = super::overlay(&mut ev, &base, &exprs, "f", &[]).map_err(|e| e.message)?;
    serde_json::to_value(out).map_err(|e| e.to_string())
}

#[test]
fn o1_empty_starting_map() {
    assert_eq!(
        overlay(
            json!({}),
            json!([{"key": "foo", "value": "bar"}, {"keyExpr": "repoDefault", "value": "barbar"}, {"key": "bar", "valueExpr": "packageDefault"}])
        ),
        Ok(json!({"foo": "bar", "foo-repo": "barbar", "bar": "bar-package"}))
    );
}

#[test]
fn o2_static_overlay() {
    assert_eq!(
        overlay(
            json!({"foo": "bar", "bar": "foo"}),
            json!([{"key": "foo", "value": "new-bar"}, {"key": "foofoo", "value": "barbar"}])
        ),
        Ok(json!({"foo": "new-bar", "bar": "foo", "foofoo": "barbar"}))
    );
}

#[test]
fn o3_exprs_overlay() {
    assert_eq!(
        overlay(
            json!({"foo": "bar", "bar": "foo"}),
            json!([{"keyExpr": "'foo'", "value": "new-bar"}, {"key": "bar", "valueExpr": "packageDefault"}])
        ),
        Ok(json!({"foo": "new-bar", "bar": "bar-package"}))
    );
}

#[test]
fn d1_repository_not_available_in_repo_expr() {
    assert_eq!(
        render(Some(json!({"downstream": {"repoExpr": "repository.name"}}))),
        Err("template.downstream.repoExpr: no such attribute(s): repository".into())
    );
}

#[test]
fn d2_unknown_repository() {
    assert_eq!(
        render(Some(json!({"downstream": {"repo": "nope"}}))),
        Err(r#"repository "nope" could not be loaded"#.into())
    );
}

#[test]
fn d3_no_template_no_lookup() {
    assert_eq!(
        render_ctx(None, "nope", None),
        Ok(expect(
            json!({"downstream": {"repo": "nope", "package": "p"}})
        ))
    );
}

#[test]
fn d4_any_template_forces_lookup() {
    assert_eq!(
        render_ctx(Some(json!({})), "nope", None),
        Err(r#"repository "nope" could not be loaded"#.into())
    );
}

#[test]
fn d5_int_result() {
    assert_eq!(
        render(Some(
            json!({"labelExprs": [{"key": "a", "valueExpr": "1"}]})
        )),
        Err(
            "template.labelExprs[0].valueExpr: unsupported type conversion from 'int' to string"
                .into()
        )
    );
}

#[test]
fn d6_bool_key() {
    assert_eq!(
        render(Some(
            json!({"annotationExprs": [{"keyExpr": "true", "value": "x"}]})
        )),
        Err(
            "template.annotationExprs[0].keyExpr: type conversion error from bool to 'string'"
                .into()
        )
    );
}

#[test]
fn d7_remove_key_expr_on_repositories_target() {
    assert_eq!(
        render(Some(
            json!({"packageContext": {"removeKeyExprs": ["target.name"]}})
        )),
        Err("template.packageContext.removeKeyExprs[0]: no such key: name".into())
    );
}

#[test]
fn d8_injector_name_expr() {
    assert_eq!(
        render(Some(
            json!({"injectors": [{"name": "a"}, {"nameExpr": "upstream.labels['missing']"}]})
        )),
        Err("template.injectors[1].nameExpr: no such key: missing".into())
    );
}

#[test]
fn d9_pipeline_config_map_expr() {
    assert_eq!(
        render(Some(json!({"pipeline": {"mutators": [{"image": "x"},
            {"image": "y", "configMapExprs": [{"key": "k", "valueExpr": "repository.labels['zzz']"}]}]}}))),
        Err("template.pipeline.mutators[1].configMapExprs[0].valueExpr: no such key: zzz".into())
    );
}

#[test]
fn d10_package_expr_with_target() {
    assert_eq!(
        render(Some(
            json!({"downstream": {"packageExpr": "target.package + '-' + target.repo"}})
        )),
        Ok(expect(
            json!({"downstream": {"repo": "my-repo-1", "package": "p-my-repo-1"}})
        ))
    );
}

#[test]
fn d11_package_context_kept_and_remove_keys_sorted() {
    assert_eq!(
        render(Some(json!({"packageContext": {}}))),
        Ok(expect(
            json!({"downstream": {"repo": "my-repo-1", "package": "p"}, "packageContext": {}})
        ))
    );
    assert_eq!(
        render(Some(
            json!({"packageContext": {"removeKeys": ["b", "a", "b"]}})
        )),
        Ok(expect(
            json!({"downstream": {"repo": "my-repo-1", "package": "p"}, "packageContext": {"removeKeys": ["a", "b"]}})
        ))
    );
}

#[test]
fn d12_empty_pipeline_dropped() {
    for t in [
        json!({"pipeline": {}}),
        json!({"pipeline": {"validators": []}}),
    ] {
        assert_eq!(
            render(Some(t)),
            Ok(expect(
                json!({"downstream": {"repo": "my-repo-1", "package": "p"}})
            ))
        );
    }
}

#[test]
fn d13_empty_maps_and_missing_keys_values() {
    let ds = json!({"repo": "my-repo-1", "package": "p"});
    assert_eq!(
        render(Some(json!({"labels": {}}))),
        Ok(expect(json!({"downstream": ds})))
    );
    assert_eq!(
        render(Some(json!({"labelExprs": [{"key": "k"}]}))),
        Ok(expect(json!({"downstream": ds, "labels": {"k": ""}})))
    );
    assert_eq!(
        render(Some(json!({"labelExprs": [{"value": "v"}]}))),
        Ok(expect(json!({"downstream": ds, "labels": {"": "v"}})))
    );
}

#[test]
fn d14_later_entry_wins() {
    assert_eq!(
        render(Some(
            json!({"labelExprs": [{"key": "a", "value": "1"}, {"key": "a", "value": "2"}]})
        )),
        Ok(expect(
            json!({"downstream": {"repo": "my-repo-1", "package": "p"}, "labels": {"a": "2"}})
        ))
    );
}

#[test]
fn d15_empty_downstream_strings_are_unset() {
    assert_eq!(
        render(Some(json!({"downstream": {"repo": "", "package": ""}}))),
        Ok(expect(
            json!({"downstream": {"repo": "my-repo-1", "package": "p"}})
        ))
    );
}

#[test]
fn d16_empty_injector_name_rendered() {
    assert_eq!(
        render(Some(json!({"injectors": [{"name": ""}]}))),
        Ok(expect(
            json!({"downstream": {"repo": "my-repo-1", "package": "p"}, "injectors": [{"name": ""}]})
        ))
    );
}

#[test]
fn d17_config_map_expr_key_expr_wins() {
    assert_eq!(
        render(Some(
            json!({"pipeline": {"mutators": [{"image": "x", "configMapExprs": [{"key": "a", "keyExpr": "'b'", "value": "v"}]}]}})
        )),
        Ok(expect(
            json!({"downstream": {"repo": "my-repo-1", "package": "p"}, "pipeline": {"mutators": [{"image": "x", "configMap": {"b": "v"}}]}})
        ))
    );
}

#[test]
fn d18_empty_key_expr_is_a_syntax_error() {
    let err = render(Some(json!({"labelExprs": [{"keyExpr": "", "value": "v"}]}))).unwrap_err();
    assert!(
        err.starts_with("template.labelExprs[0].keyExpr: ERROR: <input>:"),
        "{err}"
    );
}

#[test]
fn d19_selector_object_without_labels() {
    let object = json!({"metadata": {"name": "my-repo-1"}});
    assert_eq!(
        render_ctx(
            Some(json!({"labelExprs": [{"key": "a", "valueExpr": "string(size(target.labels))"}]})),
            "my-repo-1",
            Some(&object)
        ),
        Ok(expect(
            json!({"downstream": {"repo": "my-repo-1", "package": "p"}, "labels": {"a": "0"}})
        ))
    );
    assert_eq!(
        render_ctx(
            Some(json!({"labelExprs": [{"key": "a", "valueExpr": "target.labels['x']"}]})),
            "my-repo-1",
            Some(&object)
        ),
        Err("template.labelExprs[0].valueExpr: no such key: x".into())
    );
}

#[test]
fn d20_repository_selector_target_is_the_repository() {
    let repo2 = repos().remove(1);
    assert_eq!(
        render_ctx(
            Some(
                json!({"labelExprs": [{"key": "t", "valueExpr": "target.name + '/' + target.labels['efg']"}]})
            ),
            "my-repo-2",
            Some(&repo2)
        ),
        Ok(expect(
            json!({"downstream": {"repo": "my-repo-2", "package": "p"}, "labels": {"t": "my-repo-2/hij"}})
        ))
    );
}

#[test]
fn first_failing_expression_in_porch_order_is_reported() {
    // packageExpr fails before labelExprs even though both are broken.
    let err = render(Some(
        json!({"downstream": {"packageExpr": "1"}, "labelExprs": [{"key": "a", "valueExpr": "2"}]}),
    ))
    .unwrap_err();
    assert!(err.starts_with("template.downstream.packageExpr:"), "{err}");
}
