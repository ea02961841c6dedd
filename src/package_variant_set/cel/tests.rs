//! CEL environment tests: Porch's TestEvalExpr (E1–E9), result conversions, limits.

use super::*;
use cel::Value;
use serde_json::json;

fn r1_input() -> Value {
    object_input(
        &json!({"metadata": {"name": "my-repo-1", "labels": {"foo": "bar", "abc": "def"}}}),
    )
}

/// Porch's TestEvalExpr inputs: repoDefault foo-repo, packageDefault bar-package, no upstream.
fn eval_with(expr: &str, target: Option<Value>) -> Result<String, String> {
    let mut cache = ProgramCache::new();
    let program = cache.compile(expr)?;
    let target = target.unwrap_or(Value::Null);
    let bindings = Bindings::new(cache.env(), None);
    let activation = bindings.activation("foo-repo", "bar-package", &target);
    activation.evaluate(&program)
}

fn eval(expr: &str) -> Result<String, String> {
    eval_with(expr, None)
}

#[test]
fn e1_no_vars() {
    assert_eq!(eval("'foo'"), Ok("foo".into()));
}

#[test]
fn e2_repo_default() {
    assert_eq!(eval("repoDefault"), Ok("foo-repo".into()));
}

#[test]
fn e3_package_default() {
    assert_eq!(eval("packageDefault"), Ok("bar-package".into()));
}

#[test]
fn e4_concat_defaults() {
    assert_eq!(
        eval("packageDefault + '-' + repoDefault"),
        Ok("bar-package-foo-repo".into())
    );
}

#[test]
fn e5_repositories_target() {
    let target = repositories_target_input("my-repo", "my-package");
    assert_eq!(
        eval_with("target.repo + '/' + target.package", Some(target)),
        Ok("my-repo/my-package".into())
    );
}

#[test]
fn e6_repository_target() {
    assert_eq!(
        eval_with("target.name + '/' + target.labels['foo']", Some(r1_input())),
        Ok("my-repo-1/bar".into())
    );
}

#[test]
fn e7_bad_variable_is_a_compile_error() {
    let err = compile("badvar").map(|_| ()).unwrap_err();
    assert_eq!(
        err,
        "ERROR: <input>:1:1: undeclared reference to 'badvar' (in container '')\n | badvar\n | ^"
    );
}

#[test]
fn e8_bad_expr_is_a_syntax_error() {
    let err = compile("/").map(|_| ()).unwrap_err();
    // cel-go v0.26.1's text, byte for byte (notes §7.3 E8).
    let expecting = "expecting {'[', '{', '(', '.', '-', '!', 'true', 'false', 'null', NUM_FLOAT, NUM_INT, NUM_UINT, STRING, BYTES, IDENTIFIER}";
    assert_eq!(
        err,
        format!(
            "ERROR: <input>:1:1: Syntax error: mismatched input '/' {expecting}\n | /\n | ^\nERROR: <input>:1:2: Syntax error: mismatched input '<EOF>' {expecting}\n | /\n | .^"
        )
    );
}

#[test]
fn syntax_error_snippet_on_a_later_line() {
    let err = compile("'a' +\n\t/").map(|_| ()).unwrap_err();
    assert!(err.contains("\n |  /\n | ."), "{err}");
}

#[test]
fn e9_missing_label() {
    assert_eq!(
        eval_with(
            "target.name + '/' + target.labels['no-such-label']",
            Some(r1_input())
        ),
        Err("no such key: no-such-label".into())
    );
}

#[test]
fn results_must_be_strings_with_porch_messages() {
    assert_eq!(
        eval("1"),
        Err("unsupported type conversion from 'int' to string".into())
    );
    assert_eq!(
        eval("1u"),
        Err("unsupported type conversion from 'uint' to string".into())
    );
    assert_eq!(
        eval("1.5"),
        Err("type conversion error from Double to 'string'".into())
    );
    assert_eq!(
        eval("true"),
        Err("type conversion error from bool to 'string'".into())
    );
    assert_eq!(
        eval("null"),
        Err("type conversion error from 'null_type' to 'string'".into())
    );
    assert_eq!(
        eval("b'x'"),
        Err("type conversion error from Bytes to 'string'".into())
    );
    assert_eq!(
        eval("{'a': 'b'}"),
        Err("type conversion error from map to 'string'".into())
    );
    assert_eq!(
        eval("['a']"),
        Err("type conversion error from list to 'string'".into())
    );
    assert_eq!(eval("string(1)"), Ok("1".into()));
}

#[test]
fn unbound_declared_variable_is_no_such_attribute() {
    // D1's CEL half: `repository` is declared but not yet bound while repoExpr runs.
    assert_eq!(
        eval("repository.name"),
        Err("no such attribute(s): repository".into())
    );
    // Not evaluated, no error (Porch evaluates lazily too).
    assert_eq!(eval("true ? 'x' : repository.name"), Ok("x".into()));
}

#[test]
fn no_strings_extension_and_no_optional_types() {
    let err = compile("'A'.lowerAscii()").map(|_| ()).unwrap_err();
    assert!(
        err.contains("undeclared reference to 'lowerAscii'"),
        "{err}"
    );
    assert!(compile("optional.of('a')").is_err());
    assert!(compile("{'a': 'b'}.?a").is_err());
    assert!(compile("max(1, 2)").is_err());
}

#[test]
fn standard_library_works() {
    let t = Some(r1_input());
    assert_eq!(
        eval_with("target.labels.exists(k, k == 'abc') ? 'y' : 'n'", t.clone()),
        Ok("y".into())
    );
    assert_eq!(
        eval_with(
            "string(size(target.labels.filter(k, k.startsWith('a'))))",
            t.clone()
        ),
        Ok("1".into())
    );
    assert_eq!(
        eval_with("target.labels.all(k, k.size() == 3) ? 'y' : 'n'", t.clone()),
        Ok("y".into())
    );
    assert_eq!(
        eval_with("[1, 2, 3].exists_one(x, x > 2) ? 'y' : 'n'", t.clone()),
        Ok("y".into())
    );
    assert_eq!(
        eval_with("string([1, 2, 3].map(x, x * 2)[2])", t.clone()),
        Ok("6".into())
    );
    assert_eq!(
        eval_with("string([1, 2, 3].map(x, x > 1, x)[0])", t.clone()),
        Ok("2".into())
    );
    assert_eq!(
        eval_with(
            "has(target.labels.foo) && target.name.matches('^my-') ? 'y' : 'n'",
            t
        ),
        Ok("y".into())
    );
    assert_eq!(eval("type(1) == int ? 'int' : 'other'"), Ok("int".into()));
}

#[test]
fn comprehension_variables_are_in_scope_only_inside() {
    assert!(compile("['a'].map(x, x)[0]").is_ok());
    let err = compile("['a'].map(x, x)[0] + x").map(|_| ()).unwrap_err();
    assert!(err.contains("undeclared reference to 'x'"), "{err}");
}

#[test]
fn objects_expose_only_metadata_subset() {
    let t = object_input(
        &json!({"metadata": {"name": "n", "uid": "u"}, "spec": {"secret": "s"}, "data": {"k": "v"}}),
    );
    assert_eq!(
        eval_with("target.namespace", Some(t.clone())),
        Ok(String::new())
    );
    assert_eq!(
        eval_with("string(size(target.labels))", Some(t.clone())),
        Ok("0".into())
    );
    assert_eq!(
        eval_with("target.spec.secret", Some(t.clone())),
        Err("no such key: spec".into())
    );
    assert_eq!(
        eval_with("target.data", Some(t.clone())),
        Err("no such key: data".into())
    );
    assert_eq!(
        eval_with("target.uid", Some(t)),
        Err("no such key: uid".into())
    );
}

#[test]
fn program_cache_compiles_each_source_once() {
    let mut cache = ProgramCache::new();
    for _ in 0..100 {
        assert!(cache.compile("repoDefault + '-x'").is_ok());
        assert!(cache.compile("packageDefault").is_ok());
        assert!(cache.compile("badvar").is_err());
    }
    assert_eq!(cache.compilations(), 3);
}

#[test]
fn expression_length_limit() {
    let long = format!("'{}'", "a".repeat(MAX_EXPRESSION_BYTES));
    let err = compile(&long).map(|_| ()).unwrap_err();
    assert!(err.contains("more than the limit of 10000 bytes"), "{err}");
}

#[test]
fn deep_nesting_is_rejected_not_a_stack_overflow() {
    for deep in [
        format!("{}'a'{}", "(".repeat(4990), ")".repeat(4990)),
        format!("{}'a'{}", "[".repeat(4000), "]".repeat(4000)),
        format!("{}1{}", "size(".repeat(1500), ")".repeat(1500)),
    ] {
        let err = compile(&deep).map(|_| ()).unwrap_err();
        assert!(err.contains("nests brackets"), "{err}");
    }
    for deep in [
        format!("'a'{}", " + 'a'".repeat(1500)),
        format!("target{}", ".a".repeat(3000)),
        format!("target{}", "['a']".repeat(2000)),
        format!("{}true", "!".repeat(3001)),
        format!("{}1", "-".repeat(3001)),
        format!("{}'a'", "true ? 'a' : ".repeat(800)),
    ] {
        // Either rejected, or small enough to evaluate: never a crash.
        if let Ok(p) = compile(&deep) {
            let target = Value::Null;
            let bindings = Bindings::new(ProgramCache::new().env(), None);
            let a = bindings.activation("r", "p", &target);
            let _ = a.evaluate(&p);
        }
    }
}

/// Evaluating a tree at the depth limit, metered (which adds a level per metered operand), fits
/// in a 4 MiB stack in a debug build; expansions run on a far larger one.
#[test]
fn evaluation_at_the_depth_limit_fits_the_stack() {
    std::thread::Builder::new()
        .stack_size(4 << 20)
        .spawn(evaluate_at_the_depth_limit)
        .and_then(|h| h.join().map_err(|_| std::io::Error::other("panicked")))
        .expect("evaluation fits the stack");
}

fn evaluate_at_the_depth_limit() {
    let n = MAX_NESTING - 1;
    for expr in [
        format!("string(size({}1{}))", "[".repeat(n - 1), "]".repeat(n - 1)),
        format!("{}'a'{}", "[".repeat(n), "][0]".repeat(n)),
        format!("'a'{}", " + 'a'".repeat(MAX_AST_DEPTH - 2)),
        format!(
            "{}'a'{}",
            "['a'].map(x, ".repeat(n / 2),
            ")[0]".repeat(n / 2)
        ),
        format!(
            "{}'a'{}",
            "['a'].map(x, ".repeat(n / 4),
            ")[0]".repeat(n / 4)
        ),
        format!("string({}1{})", "size([".repeat(n / 2), "])".repeat(n / 2)),
    ] {
        match compile(&expr) {
            Ok(p) => {
                let target = Value::Null;
                let bindings = Bindings::new(ProgramCache::new().env(), None);
                let a = bindings.activation("r", "p", &target);
                let _ = a.evaluate(&p);
            }
            Err(e) => assert!(e.contains("limit"), "{e}"),
        }
    }
}

#[test]
fn runaway_comprehensions_stop() {
    let list = format!(
        "[{}]",
        (0..200)
            .map(|i| i.to_string())
            .collect::<Vec<_>>()
            .join(",")
    );
    // 200^3 = 8,000,000 iterations without the limit.
    for expr in [
        format!("{list}.all(x, {list}.all(y, {list}.all(z, true))) ? 'a' : 'b'"),
        format!("{list}.exists(x, {list}.exists(y, {list}.exists(z, false))) ? 'a' : 'b'"),
        format!("string(size({list}.map(x, {list}.map(y, {list}.map(z, z)))))"),
        format!(
            "string(size({list}.filter(x, {list}.filter(y, {list}.filter(z, true) == []) == [])))"
        ),
        format!(
            "{list}.exists_one(x, {list}.exists_one(y, {list}.exists_one(z, true))) ? 'a' : 'b'"
        ),
        // A fold that would swallow the step error (`error || true` is true).
        format!("{list}.exists(x, {list}.exists(y, {list}.exists(z, false)) || true) ? 'a' : 'b'"),
    ] {
        let start = std::time::Instant::now();
        let err = eval(&expr).unwrap_err();
        assert!(
            err.contains("more than 10000 comprehension steps"),
            "{expr}: {err}"
        );
        assert!(start.elapsed().as_secs() < 20, "took {:?}", start.elapsed());
    }
    // Within the limit: fine.
    let small = format!(
        "[{}]",
        (0..50).map(|i| i.to_string()).collect::<Vec<_>>().join(",")
    );
    assert_eq!(
        eval(&format!("string(size({small}.map(x, {small}.map(y, y))))")),
        Ok("50".into())
    );
}

#[test]
fn step_function_is_not_callable_from_source() {
    assert!(compile("@step()").is_err());
}
