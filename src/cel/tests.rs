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
    let target = as_val(target.unwrap_or(Value::Null));
    let bindings = Bindings::new(cache.env(), None);
    let activation = bindings.activation("foo-repo", "bar-package", target.as_ref());
    activation.evaluate(&program).map_err(|e| porch_words(&e))
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
        "ERROR: <input>:1:1: undeclared reference to 'badvar' (in container '')\n | badvar\n | ^\n | the variables are repoDefault, packageDefault, upstream, target, repository"
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
    // A type value is not a string, though the interpreter would convert it to its name.
    assert_eq!(
        eval("type(1)"),
        Err("type conversion not supported for 'type'".into())
    );
}

#[test]
fn evaluation_errors_in_cel_go_words() {
    for (expr, want) in [
        ("string(1 / 0)", "division by zero"),
        ("string(1 % 0)", "modulus by zero"),
        ("string(9223372036854775807 + 1)", "integer overflow"),
        ("string(0u - 1u)", "unsigned integer overflow"),
        ("dyn(1) + 'a'", "no such overload"),
    ] {
        let got = eval_with(expr, Some(Value::from("x"))).unwrap_err();
        assert!(got.contains(want), "{expr}: {got}");
    }
}

#[test]
fn a_failed_conversion_of_a_constant_is_a_compile_error() {
    // Porch's cel-go (OptOptimize) evaluates it when it builds the program.
    for (expr, want) in [
        (
            "false ? string(uint(-1)) : 'a'",
            "unsigned integer overflow",
        ),
        ("string(int(1e99))", "integer overflow"),
        (
            r"string(b'\xff')",
            "invalid UTF-8 in bytes, cannot convert to string",
        ),
    ] {
        assert_eq!(compile(expr).map(|_| ()), Err(want.to_string()), "{expr}");
    }
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
            let target = as_val(Value::Null);
            let bindings = Bindings::new(ProgramCache::new().env(), None);
            let a = bindings.activation("r", "p", target.as_ref());
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
                let target = as_val(Value::Null);
                let bindings = Bindings::new(ProgramCache::new().env(), None);
                let a = bindings.activation("r", "p", target.as_ref());
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

// ---------------------------------------------------------------- the type checker

/// Expressions cel-go's checker (Porch's environment) refuses, with its message and column.
/// Written from cel-go's `checker/checker_test.go` rules and the cel-spec conformance
/// sections on type deduction, comparisons and lists, for Porch's declarations.
const REFUSED: &[(&str, &str)] = &[
    ("['a', 1][0]", "1:7: expected type 'string' but found 'int'"),
    (
        "false ? 1 + 'a' : target.name",
        "1:11: found no matching overload for '_+_' applied to '(int, string)'",
    ),
    ("'a' + 1", "1:5: found no matching overload for '_+_' applied to '(string, int)'"),
    ("string(size(1))", "1:12: found no matching overload for 'size' applied to '(int)'"),
    ("1 < 'a' ? 'x' : 'y'", "1:3: found no matching overload for '_<_' applied to '(int, string)'"),
    ("1 < 1.0 ? 'x' : 'y'", "1:3: found no matching overload for '_<_' applied to '(int, double)'"),
    ("1 == 1.0 ? 'x' : 'y'", "1:3: found no matching overload for '_==_' applied to '(int, double)'"),
    ("'a' == null ? 'x' : 'y'", "1:5: found no matching overload for '_==_' applied to '(string, null_type)'"),
    (
        "[1, 2].map(x, x + 'a')[0]",
        "1:17: found no matching overload for '_+_' applied to '(int, string)'",
    ),
    ("{'a': 1, 'b': 'c'}['a']", "1:15: expected type 'int' but found 'string'"),
    ("{'a': 'b', 2: 'c'}['a']", "1:12: expected type 'string' but found 'int'"),
    ("[target.name, 'x'][0]", "1:15: expected type 'dyn' but found 'string'"),
    ("1 ? 'a' : 'b'", "1:3: found no matching overload for '_?_:_' applied to '(int, string, string)'"),
    ("true ? 1 : 'a'", "1:6: found no matching overload for '_?_:_' applied to '(bool, int, string)'"),
    ("!1 ? 'a' : 'b'", "1:1: found no matching overload for '!_' applied to '(int)'"),
    ("1 && true ? 'a' : 'b'", "1:1: expected type 'bool' but found 'int'"),
    ("'a'.startsWith(1) ? 'a' : 'b'", "1:15: found no matching overload for 'startsWith' applied to 'string.(int)'"),
    ("true.size() > 0 ? 'a' : 'b'", "1:10: found no matching overload for 'size' applied to 'bool.()'"),
    ("[1].contains(1) ? 'a' : 'b'", "1:13: found no matching overload for 'contains' applied to 'list(int).(int)'"),
    ("string(1.0 % 2.0)", "1:12: found no matching overload for '_%_' applied to '(double, double)'"),
    ("-'a'", "1:1: found no matching overload for '-_' applied to '(string)'"),
    ("1 in ['a'] ? 'a' : 'b'", "1:3: found no matching overload for '@in' applied to '(int, list(string))'"),
    ("'a'.x", "1:4: type 'string' does not support field selection"),
    (
        "(1).all(x, x) ? 'a' : 'b'",
        "1:2: expression of type 'int' cannot be range of a comprehension (must be list, map, or dynamic)",
    ),
    ("[1].all(x, x) ? 'a' : 'b'", "1:12: expected type 'bool' but found 'int'"),
    ("string(int('1') + uint(1))", "1:17: found no matching overload for '_+_' applied to '(int, uint)'"),
    (
        "string(timestamp('2024-01-01T00:00:00Z') + 1)",
        "1:42: found no matching overload for '_+_' applied to '(google.protobuf.Timestamp, int)'",
    ),
    (
        "string(duration('1h').getFullYear())",
        "1:34: found no matching overload for 'getFullYear' applied to 'google.protobuf.Duration.()'",
    ),
    ("type(1) == 1 ? 'a' : 'b'", "1:9: found no matching overload for '_==_' applied to '(type(int), int)'"),
    ("string(size([[1], ['a']]))", "1:19: expected type 'list(int)' but found 'list(string)'"),
    ("string(size([1, null]))", "1:17: expected type 'int' but found 'null_type'"),
    ("string(size([1, 2u]))", "1:17: expected type 'int' but found 'uint'"),
    ("string(size([dyn(1), 2]))", "1:22: expected type 'dyn' but found 'int'"),
    ("timestamp", "1:1: undeclared reference to 'timestamp' (in container '')"),
    ("target.name.lowerAscii()", "1:23: undeclared reference to 'lowerAscii' (in container '')"),
    ("target.name.split('-')[0]", "1:18: undeclared reference to 'split' (in container '')"),
    ("'%s'.format([1])", "1:12: undeclared reference to 'format' (in container '')"),
];

#[test]
fn the_checker_refuses_what_cel_go_refuses() {
    for (expr, want) in REFUSED {
        let err = compile(expr).map(|_| ()).unwrap_err();
        let first = err.lines().next().unwrap_or("");
        assert_eq!(first, format!("ERROR: <input>:{want}"), "{expr}\n{err}");
    }
}

#[test]
fn every_error_is_reported_in_source_order() {
    let err = compile("size(2) + ('a' + 1)").map(|_| ()).unwrap_err();
    let firsts: Vec<&str> = err.lines().filter(|l| l.starts_with("ERROR")).collect();
    assert_eq!(
        firsts,
        [
            "ERROR: <input>:1:5: found no matching overload for 'size' applied to '(int)'",
            "ERROR: <input>:1:16: found no matching overload for '_+_' applied to '(string, int)'",
        ],
        "{err}"
    );
    assert!(
        err.contains("\n | size(2) + ('a' + 1)\n | ....^\n"),
        "{err}"
    );
}

/// Expressions cel-go accepts in Porch's environment (the real sets' and more).
const ACCEPTED: &[&str] = &[
    "target.labels['a'] + 'x'",
    "string(size(target.labels)) + 'x'",
    "target.labels.exists(k, k == 'a') ? 'y' : 'n'",
    "'x' in target.labels ? 'y' : 'n'",
    "target.name.matches('^a') ? 'y' : 'n'",
    "string([1, 2, 3].map(x, x * 2)[0])",
    "{'a': 'b'}[target.name]",
    "type(target) == map ? 'm' : 'o'",
    "string(int('3') + 1)",
    "[1, 2][0] == 1 ? 'y' : 'n'",
    "dyn(1) == 1.0 ? 'y' : 'n'",
    "has(target.labels.a) ? 'y' : 'n'",
    "repoDefault.startsWith('a') && packageDefault.endsWith('b') ? 'y' : 'n'",
    "upstream.name + '/' + repository.name",
    "[target.name].exists(x, x == 'a') ? 'y' : 'n'",
    "target.labels.filter(k, k.startsWith('a')).size() > 0 ? 'y' : 'n'",
    "{'a': target.name}['a']",
    "([] + ['a'])[0]",
    "size({}) == 0 ? 'y' : 'n'",
    "null == target.name ? 'y' : 'n'",
    "string(size([[], [1]]))",
    "type(1) == int ? 'y' : 'n'",
    "type(timestamp('2024-01-01T00:00:00Z')) == google.protobuf.Timestamp ? 'y' : 'n'",
    "string(timestamp('2024-01-01T00:00:00Z').getFullYear())",
    "packageDefault + '-' + target.labels['env']",
    "'site-' + target.labels['site']",
    "upstream.annotations['blueprints.example.com/owner']",
    "target.repo + '/' + target.package",
];

#[test]
fn the_checker_accepts_what_cel_go_accepts() {
    for expr in ACCEPTED {
        assert!(compile(expr).is_ok(), "{expr}: {:?}", compile(expr).err());
    }
}

#[test]
fn an_invalid_literal_regex_is_a_compile_error() {
    let err = compile("target.name.matches('(') ? 'a' : 'b'")
        .map(|_| ())
        .unwrap_err();
    assert!(
        err.starts_with("ERROR: <input>:1:21: invalid regular expression"),
        "{err}"
    );
}

// ---------------------------------------------------------------- time

/// cel-spec `tests/simple/testdata/timestamps.textproto`, sections timestamp_conversions,
/// duration_conversions, timestamp_selectors, timestamp_selectors_tz, timestamp_equality,
/// duration_equality, timestamp_arithmetic, comparisons and duration_converters (the cases
/// without protobuf bindings), each as `string(expr)` with the expected value written out.
const TIME_VALUES: &[(&str, &str)] = &[
    ("int(timestamp('2009-02-13T23:31:30Z'))", "1234567890"),
    ("timestamp('2009-02-13T23:31:30Z')", "2009-02-13T23:31:30Z"),
    ("timestamp('9999-12-31T23:59:59.999999999Z')", "9999-12-31T23:59:59.999999999Z"),
    ("type(timestamp('2009-02-13T23:31:30Z')) == google.protobuf.Timestamp", "true"),
    ("duration('1000000s')", "1000000s"),
    ("type(duration('1000000s')) == google.protobuf.Duration", "true"),
    ("timestamp('2009-02-13T23:31:30Z').getDate()", "13"),
    ("timestamp('2009-02-13T23:31:30Z').getDayOfMonth()", "12"),
    ("timestamp('2009-02-13T23:31:30Z').getDayOfWeek()", "5"),
    ("timestamp('2009-02-13T23:31:30Z').getDayOfYear()", "43"),
    ("timestamp('2009-02-13T23:31:30Z').getFullYear()", "2009"),
    ("timestamp('2009-02-13T23:31:30Z').getHours()", "23"),
    ("timestamp('2009-02-13T23:31:20.123456789Z').getMilliseconds()", "123"),
    ("timestamp('2009-02-13T23:31:30Z').getMinutes()", "31"),
    ("timestamp('2009-02-13T23:31:30Z').getMonth()", "1"),
    ("timestamp('2009-02-13T23:31:30Z').getSeconds()", "30"),
    ("timestamp('2009-02-13T23:31:30Z').getDate('Australia/Sydney')", "14"),
    ("timestamp('2009-02-13T23:31:30Z').getDayOfMonth('US/Central')", "12"),
    ("timestamp('2009-02-13T23:31:30Z').getDayOfMonth('+11:00')", "13"),
    ("timestamp('2009-02-13T02:00:00Z').getDayOfMonth('-02:30')", "11"),
    ("timestamp('2009-02-13T02:00:00Z').getDayOfMonth('America/St_Johns')", "11"),
    ("timestamp('2009-02-13T23:31:30Z').getDayOfWeek('UTC')", "5"),
    ("timestamp('2009-02-13T23:31:30Z').getDayOfYear('US/Central')", "43"),
    ("timestamp('2009-02-13T23:31:30Z').getFullYear('-09:30')", "2009"),
    ("timestamp('2009-02-13T23:31:30Z').getHours('02:00')", "1"),
    ("timestamp('2009-02-13T23:31:30Z').getMinutes('Asia/Kathmandu')", "16"),
    ("timestamp('2009-02-13T23:31:30Z').getMonth('UTC')", "1"),
    ("timestamp('2009-02-13T23:31:30Z').getSeconds('-00:00')", "30"),
    ("timestamp('2009-02-13T23:31:30Z') == timestamp('2009-02-13T23:31:30Z')", "true"),
    ("timestamp('2009-02-13T23:31:29Z') == timestamp('2009-02-13T23:31:30Z')", "false"),
    ("timestamp('1945-05-07T02:41:00Z') != timestamp('1945-05-07T02:41:00Z')", "false"),
    ("timestamp('2000-01-01T00:00:00Z') != timestamp('2001-01-01T00:00:00Z')", "true"),
    ("duration('123s') == duration('123s')", "true"),
    ("duration('60s') == duration('3600s')", "false"),
    ("duration('604800s') != duration('604800s')", "false"),
    ("duration('86400s') != duration('86164s')", "true"),
    ("timestamp('2009-02-13T23:00:00Z') + duration('240s') == timestamp('2009-02-13T23:04:00Z')", "true"),
    ("duration('120s') + timestamp('2009-02-13T23:01:00Z') == timestamp('2009-02-13T23:03:00Z')", "true"),
    ("duration('600s') + duration('50s') == duration('650s')", "true"),
    ("timestamp('0001-01-01T00:00:01.000000001Z') + duration('-999999999ns') == timestamp('0001-01-01T00:00:00.000000002Z')", "true"),
    ("timestamp('0001-01-01T00:00:01.999999999Z') + duration('999999999ns') == timestamp('0001-01-01T00:00:02.999999998Z')", "true"),
    ("timestamp('2009-02-13T23:10:00Z') - duration('600s') == timestamp('2009-02-13T23:00:00Z')", "true"),
    ("timestamp('2009-02-13T23:31:00Z') - timestamp('2009-02-13T23:29:00Z') == duration('120s')", "true"),
    ("duration('900s') - duration('42s') == duration('858s')", "true"),
    ("timestamp('2009-02-13T23:00:00Z') <= timestamp('2009-02-13T23:00:00Z')", "true"),
    ("timestamp('2009-02-13T23:00:00Z') <= timestamp('2009-02-13T22:59:59Z')", "false"),
    ("duration('200s') <= duration('200s')", "true"),
    ("duration('300s') <= duration('200s')", "false"),
    ("timestamp('2009-02-13T23:00:00Z') < timestamp('2009-03-13T23:00:00Z')", "true"),
    ("duration('200s') < duration('300s')", "true"),
    ("timestamp('2009-02-13T23:00:00Z') >= timestamp('2009-02-13T23:00:00Z')", "true"),
    ("timestamp('2009-02-13T22:58:00Z') >= timestamp('2009-02-13T23:00:00Z')", "false"),
    ("duration('200s') >= duration('200s')", "true"),
    ("duration('120s') >= duration('200s')", "false"),
    ("timestamp('2009-02-13T23:59:00Z') > timestamp('2009-02-13T23:00:00Z')", "true"),
    ("duration('300s') > duration('200s')", "true"),
    ("duration('10000s').getHours()", "2"),
    ("duration('3730s').getMinutes()", "62"),
    ("duration('3730s').getSeconds()", "3730"),
    // Ours, for Porch's DefaultUTCTimeZone and Go's RFC3339Nano: the getters read UTC, the
    // string keeps the timestamp's offset.
    ("timestamp('2024-03-05T10:20:30+05:30').getHours()", "4"),
    // The same through `dyn`, where only the run time knows it is a timestamp.
    ("dyn(timestamp('2024-03-05T10:20:30+05:30')).getHours()", "4"),
    ("dyn(timestamp('2024-03-05T23:20:30-05:00')).getDayOfMonth()", "5"),
    ("dyn(duration('10000s')).getHours()", "2"),
    ("timestamp('2024-03-05T10:20:30.120+05:30')", "2024-03-05T10:20:30.12+05:30"),
    ("timestamp('2024-03-05T10:20:30Z').getHours('America/New_York')", "5"),
    ("timestamp('2024-03-05T10:20:30Z') + duration('1h30m')", "2024-03-05T11:50:30Z"),
    ("duration('1h30m')", "5400s"),
    ("duration('1ms')", "0.001s"),
    ("timestamp(0)", "1970-01-01T00:00:00Z"),
];

/// cel-spec timestamp_range and duration_range: errors.
const TIME_ERRORS: &[&str] = &[
    "timestamp('0000-01-01T00:00:00Z')",
    "timestamp('10000-01-01T00:00:00Z')",
    "timestamp('0001-01-01T00:00:00Z') + duration('-1s')",
    "timestamp('9999-12-31T23:59:59Z') + duration('1s')",
    "timestamp('9999-12-31T23:59:59.999999999Z') + duration('1ns')",
    "timestamp('0001-01-01T00:00:00Z') + duration('-1ns')",
    "timestamp('9999-12-31T23:59:59Z') - timestamp('0001-01-01T00:00:00Z')",
    "timestamp('0001-01-01T00:00:00Z') - timestamp('9999-12-31T23:59:59Z')",
    "duration('-320000000000s')",
    "duration('320000000000s')",
    "duration('-200000000000s') + duration('-200000000000s')",
    "duration('200000000000s') + duration('200000000000s')",
    "duration('-200000000000s') - duration('200000000000s')",
    "duration('200000000000s') - duration('-200000000000s')",
    "timestamp('2024-03-05T10:20:30Z').getHours('Mars/Base')",
];

#[test]
fn time_functions_as_cel_go() {
    let mut wrong = Vec::new();
    for (expr, want) in TIME_VALUES {
        let got = eval(&format!("string({expr})"));
        if got.as_deref() != Ok(*want) {
            wrong.push(format!("{expr}: {got:?}, want {want}"));
        }
    }
    for expr in TIME_ERRORS {
        let got = eval(&format!("string({expr})"));
        if got.is_ok() {
            wrong.push(format!("{expr}: {got:?}, want an error"));
        }
    }
    assert!(wrong.is_empty(), "{}", wrong.join("\n"));
}

/// A map is iterated in the order of its keys (issue 20): every macro over it, on every run.
#[test]
fn maps_iterate_in_key_order() {
    let labels: serde_json::Map<String, serde_json::Value> = (0..200)
        .map(|i| (format!("k{:03}", (i * 37) % 200), json!("v")))
        .collect();
    let target = || object_input(&json!({"metadata": {"name": "n", "labels": labels}}));
    let keys: Vec<String> = {
        let mut k: Vec<String> = labels.keys().cloned().collect();
        k.sort();
        k
    };
    let all = keys.join(",");
    for (expr, want) in [
        ("target.labels.map(k, k)[0]", keys[0].clone()),
        ("target.labels.map(k, k)[199]", keys[199].clone()),
        (
            "target.labels.filter(k, k.endsWith('7'))[0]",
            "k007".to_string(),
        ),
        (
            "target.labels.map(k, k).exists(k, k == 'k100') ? 'y' : 'n'",
            "y".to_string(),
        ),
        (
            "string(size(target.labels.map(k, k + ',')))",
            "200".to_string(),
        ),
        ("{'b': 1, 'a': 2, 'c': 3}.map(k, k)[0]", "a".to_string()),
        ("string({2: 'x', 1: 'y'}.map(k, k)[0])", "1".to_string()),
        // An error in the first key stops `all` there, whatever the hash order.
        (
            "target.labels.all(k, k != 'k000' || int(k) > 0) ? 'y' : 'n'",
            "err".to_string(),
        ),
    ] {
        for _ in 0..3 {
            let got = eval_with(expr, Some(target())).unwrap_or_else(|_| "err".into());
            assert_eq!(got, want, "{expr}");
        }
    }
    let joined = eval_with(
        "target.labels.map(k, k).filter(k, true)[0] + ',' + target.labels.map(k, k)[1]",
        Some(target()),
    );
    assert_eq!(joined, Ok(format!("{},{}", keys[0], keys[1])));
    assert!(all.starts_with("k000,k001"));
}

/// A missing key says what the map it was looked up in has, the closest key, and how to test
/// for a key a target may lack (issue 21); the keys listed are bounded.
#[test]
fn a_missing_key_says_what_there_is() {
    let raw = |expr: &str, target: Value| {
        let mut cache = ProgramCache::new();
        let program = cache.compile(expr)?;
        let target = as_val(target);
        let bindings = Bindings::new(cache.env(), None);
        let activation = bindings.activation("foo-repo", "bar-package", target.as_ref());
        activation.evaluate(&program)
    };
    let err = raw("target.labels['fo']", r1_input()).unwrap_err();
    assert!(
        err.starts_with("no such key: fo; target.labels has the keys abc, foo: did you mean target.labels.foo? Where a target may lack the key, test for it first: 'fo' in target.labels ? target.labels['fo'] : ''"),
        "{err}"
    );
    let err = raw("target.nme", r1_input()).unwrap_err();
    assert_eq!(
        err,
        "no such key: nme; target has the keys annotations, labels, name, namespace: did you mean target.name?"
    );
    let labels: serde_json::Map<String, serde_json::Value> =
        (0..50).map(|i| (format!("k{i:02}"), json!("v"))).collect();
    let wide = object_input(&json!({"metadata": {"name": "n", "labels": labels}}));
    let err = raw("target.labels['app.kubernetes.io/name']", wide).unwrap_err();
    assert!(err.contains("k00, k01"), "{err}");
    assert!(err.contains("k19, and 30 more"), "{err}");
    assert!(!err.contains("k20"), "{err}");
    assert!(
        err.contains("target.labels['app.kubernetes.io/name']"),
        "{err}"
    );
}

/// An undeclared name says which variable (and field) it may have meant (issue 21).
#[test]
fn an_undeclared_name_says_did_you_mean() {
    for (expr, hint) in [
        ("traget.name", "did you mean 'target.name'?"),
        ("trget.nme", "did you mean 'target.name'?"),
        ("repoDefualt + 'x'", "did you mean 'repoDefault'?"),
        ("upstrem.labels['a']", "did you mean 'upstream.labels'?"),
        ("[1].map(item, itme + 1)", "did you mean 'item'?"),
    ] {
        let err = compile(expr).map(|_| ()).unwrap_err();
        assert!(err.contains(hint), "{expr}: {err}");
        assert!(
            err.lines()
                .next()
                .is_some_and(|l| l.ends_with("(in container '')")),
            "cel-go's line first: {err}"
        );
    }
}
