//! cel-spec's conformance cases (`tests/simple/testdata/*.textproto`) and cel-go's checker
//! tests (`checker/checker_test.go`), restated as our own tables and run through the path a
//! template expression takes here: [`super::compile`] (parse, check, instrument), then an
//! evaluation with Porch's variables bound. Issue 15 asks that this path accept and refuse
//! exactly what Porch's cel-go does, and give cel-go's values.
//!
//! Each case names its section and test (`section/name`), so that it can be found in the
//! source it restates. Its expectation is what cel-go gives **in Porch's environment**, which
//! differs from the conformance suite's own in three ways, each said at the case:
//! - Porch type-checks every expression: a `disable_check` case is run checked, and what
//!   cel-go's checker refuses is expected refused, with its message;
//! - Porch enables `HomogeneousAggregateLiterals`: a mixed list or map literal is refused;
//! - only Porch's variables exist (`repoDefault`, `packageDefault` strings; `upstream`,
//!   `target`, `repository` dyn), and a test binds only strings, maps and lists: a case with
//!   bindings is rewritten over them, or skipped.
//!
//! Each source's count line says how many cases passed (cel-go's value or error), were refused
//! (cel-go evaluates them; a limit of this function refuses them, asserted with its message),
//! were divergent (the test fails) and were skipped (protobuf messages, containers, bindings
//! Porch never makes; with the reason). The table in `docs/reference.md` must say the same.

mod basic;
mod checker;
mod comparisons;
mod conversions;
mod fields;
mod fp_math;
mod integer_math;
mod lists;
mod logic;
mod macros;
mod misc;
mod parse;
mod string;
mod timestamps;

use cel::common::types::{
    CelBool, CelBytes, CelDouble, CelDuration, CelInt, CelString, CelTimestamp, CelType, CelUInt,
    Kind,
};
use cel::common::value::Val;
use cel::objects::{Key, Map};
use cel::Value;
use std::collections::HashMap;
use std::sync::Arc;

use super::{compile, Bindings, ProgramCache};

/// An expected value.
#[derive(Debug, Clone, Copy)]
#[allow(dead_code)] // Ts and Dur: for the sections still to come
pub enum V {
    Int(i64),
    Uint(u64),
    Dbl(f64),
    /// A double that is NaN.
    NaN,
    Str(&'static str),
    Bytes(&'static [u8]),
    Bool(bool),
    Null,
    List(&'static [V]),
    Map(&'static [(V, V)]),
    /// A type value, by cel-go's name for it (`int`, `list`, `google.protobuf.Timestamp`).
    Type(&'static str),
    /// A timestamp, as `string()` of it prints in cel-go (RFC 3339, its own offset).
    Ts(&'static str),
    /// A duration, in seconds and nanoseconds.
    Dur(i64, i32),
}

/// What a case expects.
#[derive(Debug, Clone, Copy)]
pub enum W {
    /// This value.
    Val(V),
    /// A compile error; the first error line ends with this (`1:7: msg`, or just `msg`).
    Compile(&'static str),
    /// An evaluation error whose message contains this (cel-go's wording).
    Eval(&'static str),
    /// cel-go gives a value, but this function refuses the expression (a compile error whose
    /// message contains this): one of its limits, which Porch does not have.
    Refused(&'static str),
}

/// One case: `section/name` of its source, the expression, the binding of `target` (if any),
/// what it gives, and, where we adapted it, how.
#[derive(Debug, Clone, Copy)]
pub struct Case {
    pub name: &'static str,
    pub expr: &'static str,
    pub target: Option<V>,
    pub want: W,
}

/// Cases of a source we do not run: how many, and why.
#[derive(Debug, Clone, Copy)]
pub struct Skip {
    pub what: &'static str,
    pub count: usize,
    pub why: &'static str,
}

/// A source file's tables.
pub struct Source {
    pub title: &'static str,
    pub cases: &'static [Case],
    pub skipped: &'static [Skip],
}

pub const fn ok(name: &'static str, expr: &'static str, v: V) -> Case {
    Case {
        name,
        expr,
        target: None,
        want: W::Val(v),
    }
}

/// A case whose value is `true`.
pub const fn yes(name: &'static str, expr: &'static str) -> Case {
    ok(name, expr, V::Bool(true))
}

/// A case whose value is `false`.
pub const fn no(name: &'static str, expr: &'static str) -> Case {
    ok(name, expr, V::Bool(false))
}

pub const fn refused(name: &'static str, expr: &'static str, message: &'static str) -> Case {
    Case {
        name,
        expr,
        target: None,
        want: W::Compile(message),
    }
}

pub const fn fails(name: &'static str, expr: &'static str, message: &'static str) -> Case {
    Case {
        name,
        expr,
        target: None,
        want: W::Eval(message),
    }
}

/// A case with `target` bound to `target` (a string, map or list).
pub const fn bound(name: &'static str, expr: &'static str, target: V, want: W) -> Case {
    Case {
        name,
        expr,
        target: Some(target),
        want,
    }
}

/// A case cel-go evaluates and this function refuses at compile time, by one of its limits.
pub const fn beyond_limit(name: &'static str, expr: &'static str, message: &'static str) -> Case {
    Case {
        name,
        expr,
        target: None,
        want: W::Refused(message),
    }
}

pub const fn skip(what: &'static str, count: usize, why: &'static str) -> Skip {
    Skip { what, count, why }
}

/// `target`'s value: only strings, maps and lists, as Porch binds.
fn binding(v: &V) -> Value {
    match v {
        V::Str(s) => Value::from(*s),
        V::List(items) => Value::List(Arc::new(items.iter().map(binding).collect())),
        V::Map(entries) => {
            let map: HashMap<Key, Value> = entries
                .iter()
                .map(|(k, v)| {
                    let V::Str(k) = k else {
                        panic!("a binding's keys are strings: {k:?}")
                    };
                    (Key::from(*k), binding(v))
                })
                .collect();
            Value::Map(Map { map: Arc::new(map) })
        }
        other => panic!("Porch binds strings, maps and lists, not {other:?}"),
    }
}

/// Whether `got` is `want`, strictly: same type, same value (NaN is NaN).
fn same(got: &dyn Val, want: &V) -> bool {
    let kind = got.get_type().kind();
    match want {
        V::Int(i) => got.downcast_ref::<CelInt>().is_some_and(|g| g.inner() == i),
        V::Uint(u) => got
            .downcast_ref::<CelUInt>()
            .is_some_and(|g| g.inner() == u),
        V::Dbl(d) => got.downcast_ref::<CelDouble>().is_some_and(|g| {
            *g.inner() == *d && g.inner().is_sign_negative() == d.is_sign_negative()
        }),
        V::NaN => got
            .downcast_ref::<CelDouble>()
            .is_some_and(|g| g.inner().is_nan()),
        V::Str(s) => got
            .downcast_ref::<CelString>()
            .is_some_and(|g| g.inner() == *s),
        V::Bytes(b) => got
            .downcast_ref::<CelBytes>()
            .is_some_and(|g| g.inner() == *b),
        V::Bool(b) => got
            .downcast_ref::<CelBool>()
            .is_some_and(|g| g.inner() == b),
        V::Null => kind == Kind::NullType,
        V::Type(t) => got
            .downcast_ref::<CelType>()
            .is_some_and(|g| g.name() == *t),
        V::Ts(s) => got
            .downcast_ref::<CelTimestamp>()
            .is_some_and(|g| super::functions::rfc3339_nano(g.inner()) == *s),
        V::Dur(secs, nanos) => got.downcast_ref::<CelDuration>().is_some_and(|g| {
            let d = g.inner();
            d.num_seconds() == *secs && d.subsec_nanos() == *nanos
        }),
        V::List(items) => {
            if kind != Kind::List {
                return false;
            }
            let Some(it) = got.as_iterable() else {
                return false;
            };
            let mut iter = it.iter();
            for want in *items {
                match iter.next() {
                    Some(g) if same(g, want) => {}
                    _ => return false,
                }
            }
            iter.next().is_none()
        }
        V::Map(entries) => {
            let (Some(it), Some(ix)) = (got.as_iterable(), got.as_indexer()) else {
                return false;
            };
            if kind != Kind::Map {
                return false;
            }
            let mut keys = Vec::new();
            let mut iter = it.iter();
            while let Some(k) = iter.next() {
                keys.push(k);
            }
            keys.len() == entries.len()
                && entries.iter().all(|(wk, wv)| {
                    keys.iter()
                        .any(|k| same(*k, wk) && ix.get(*k).is_ok_and(|v| same(v.as_ref(), wv)))
                })
        }
    }
}

/// A value, shown for a failure.
fn show(v: &dyn Val) -> String {
    match Value::try_from(v) {
        Ok(value) => format!("{value:?} ({})", v.get_type().name()),
        Err(_) => format!("a value of type {}", v.get_type().name()),
    }
}

/// Runs one case: `Err` says how it differs.
pub fn run(case: &Case) -> Result<(), String> {
    let program = match compile(case.expr) {
        Ok(p) => p,
        Err(e) => {
            let first = e.lines().next().unwrap_or("");
            return match case.want {
                W::Compile(m) if first.ends_with(m) => Ok(()),
                W::Refused(m) if e.contains(m) => Ok(()),
                _ => Err(format!("compile error: {e}")),
            };
        }
    };
    let env = ProgramCache::new().env();
    let bindings = Bindings::new(env, None);
    let target = super::as_val(case.target.as_ref().map(binding).unwrap_or(Value::Null));
    let activation = bindings.activation("foo-repo", "bar-package", target.as_ref());
    let result = activation.evaluate_with(&program, |v| match case.want {
        W::Val(want) if same(v, &want) => Ok(()),
        _ => Err(format!("value {}", show(v))),
    });
    match (result, case.want) {
        (Ok(()), _) => Ok(()),
        (Err(e), W::Eval(m)) if !e.starts_with("value ") && e.contains(m) => Ok(()),
        (Err(e), _) if e.starts_with("value ") => Err(e),
        (Err(e), _) => Err(format!("evaluation error: {e}")),
    }
}

/// What a source's run came to.
#[derive(Debug, Default, Clone, Copy, PartialEq, Eq)]
pub struct Counts {
    /// Cases whose value or error is cel-go's.
    pub passed: usize,
    /// Cases cel-go evaluates that this function refuses, by one of its limits.
    pub refused: usize,
    /// Cases that differ from cel-go (none, or the test fails).
    pub divergent: usize,
    /// Cases not run (protobuf messages, extensions, ...).
    pub skipped: usize,
}

/// Runs a source's cases: its counts, its count line, and its failures.
pub fn run_source(source: &Source) -> (Counts, String, Vec<String>) {
    let mut failures = Vec::new();
    let mut counts = Counts {
        skipped: source.skipped.iter().map(|s| s.count).sum(),
        ..Counts::default()
    };
    for case in source.cases {
        match run(case) {
            Ok(()) if matches!(case.want, W::Refused(_)) => counts.refused += 1,
            Ok(()) => counts.passed += 1,
            Err(why) => {
                counts.divergent += 1;
                failures.push(format!(
                    "{} {}: `{}`: want {:?}, got {why}",
                    source.title, case.name, case.expr, case.want
                ));
            }
        }
    }
    let mut line = format!(
        "{}: {} passed, {} refused, {} divergent, {} skipped",
        source.title, counts.passed, counts.refused, counts.divergent, counts.skipped
    );
    for s in source.skipped {
        line.push_str(&format!(
            "\n    skipped {}: {} ({})",
            s.count, s.what, s.why
        ));
    }
    (counts, line, failures)
}

const SOURCES: &[&Source] = &[
    &basic::SOURCE,
    &comparisons::SOURCE,
    &conversions::SOURCE,
    &conversions::GO_STRCONV,
    &fields::SOURCE,
    &fp_math::SOURCE,
    &integer_math::SOURCE,
    &lists::SOURCE,
    &logic::SOURCE,
    &macros::SOURCE,
    &misc::NAMESPACE,
    &parse::SOURCE,
    &misc::PLUMBING,
    &string::SOURCE,
    &timestamps::SOURCE,
    &timestamps::GO_TEXTS,
    &checker::SOURCE,
];

#[test]
fn conformance() {
    let mut failures = Vec::new();
    for source in SOURCES {
        let (_, line, mut f) = run_source(source);
        println!("{line}");
        failures.append(&mut f);
    }
    assert!(
        failures.is_empty(),
        "{} cases differ from cel-go:\n{}",
        failures.len(),
        failures.join("\n")
    );
}

/// The conformance table (its rows in README.md and the pages of docs/, wherever each lives)
/// is what the sources come to.
#[test]
fn readme_counts_are_true() {
    let root = std::path::Path::new(env!("CARGO_MANIFEST_DIR"));
    let mut pages = vec![root.join("README.md")];
    if let Ok(entries) = std::fs::read_dir(root.join("docs")) {
        pages.extend(
            entries
                .filter_map(Result::ok)
                .map(|e| e.path())
                .filter(|p| p.extension().is_some_and(|x| x == "md")),
        );
    }
    let mut rows: Vec<String> = SOURCES
        .iter()
        .map(|source| {
            let (c, _, _) = run_source(source);
            format!(
                "| {} | {} | {} | {} | {} |",
                source.title, c.passed, c.refused, c.divergent, c.skipped
            )
        })
        .collect();
    let mut table: Vec<String> = pages
        .iter()
        .filter_map(|p| std::fs::read_to_string(p).ok())
        .flat_map(|text| {
            text.lines()
                .filter(|l| {
                    ["| cel-spec ", "| cel-go ", "| ours: "]
                        .iter()
                        .any(|p| l.starts_with(p))
                })
                .map(str::to_string)
                .collect::<Vec<_>>()
        })
        .collect();
    rows.sort();
    table.sort();
    assert_eq!(
        table, rows,
        "the CEL conformance table (README.md, docs/*.md)"
    );
}

/// The harness tells a wrong expectation: each of these must fail.
#[test]
fn a_wrong_expectation_fails() {
    for wrong in [
        ok("uint for int", "1", V::Uint(1)),
        ok("double for int", "1", V::Dbl(1.0)),
        ok("the sign of zero", "-0.0", V::Dbl(0.0)),
        ok("list order", "[1, 2]", V::List(&[V::Int(2), V::Int(1)])),
        ok("a shorter list", "[1, 2]", V::List(&[V::Int(1)])),
        ok("map value", "{'a': 1}", V::Map(&[(V::Str("a"), V::Int(2))])),
        ok("map key type", "{1: 1}", V::Map(&[(V::Uint(1), V::Int(1))])),
        ok("type name", "int", V::Type("uint")),
        ok("a string for a type", "'int'", V::Type("int")),
        ok("NaN", "1.0", V::NaN),
        ok("an error for a value", "1 / 0", V::Int(0)),
        refused("a value for an error", "1", "1:1: anything"),
        refused("another compile error", "'a' + 1", "undeclared reference"),
        fails("another evaluation error", "1 / 0", "modulus by zero"),
        fails(
            "a value for an evaluation error",
            "1 / 1",
            "division by zero",
        ),
        fails(
            "a compile error for an evaluation error",
            "'a' + 1",
            "found no matching",
        ),
    ] {
        assert!(run(&wrong).is_err(), "{} passed: {wrong:?}", wrong.name);
    }
    assert!(run(&ok("right", "0.0/0.0", V::NaN)).is_ok());
}
