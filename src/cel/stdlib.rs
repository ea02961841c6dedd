//! The declarations of cel-go's standard library (v0.26.1, `common/stdlib/standard.go`) that
//! Porch's environment has: every function with its overloads' argument and result types, in
//! cel-go's order (the order decides which type variables bind first).
//!
//! Porch does not enable `CrossTypeNumericComparisons`, so cel-go's checker disables the
//! `int < double`-style overloads: they are left out here.

use std::collections::HashMap;
use std::sync::OnceLock;

use super::types::{Ty, PARAM_A, PARAM_B};

/// One overload: `member` for the receiver style (`x.f(y)`), whose receiver is `args[0]`.
#[derive(Debug)]
pub struct Overload {
    pub member: bool,
    pub args: Vec<Ty>,
    pub result: Ty,
}

impl Overload {
    /// Whether the declaration uses the parameters `A` or `B`.
    pub fn has_params(&self) -> bool {
        fn uses(t: &Ty) -> bool {
            match t {
                Ty::Var(_) => true,
                Ty::List(e) => uses(e),
                Ty::Map(k, v) => uses(k) || uses(v),
                Ty::Type(Some(t)) | Ty::Optional(t) => uses(t),
                _ => false,
            }
        }
        self.args.iter().any(uses) || uses(&self.result)
    }
}

const ORDERED: &str = "bool, bool; int, int; uint, uint; double, double; string, string; \
                       bytes, bytes; timestamp, timestamp; duration, duration";
const GETTER: &str = "timestamp.() -> int; timestamp.(string) -> int";
const DURATION_GETTER: &str = "timestamp.() -> int; timestamp.(string) -> int; duration.() -> int";

/// `name: overload; overload; ...` where an overload is `(args) -> result` or
/// `receiver.(args) -> result`; `cmp` lists the argument pairs of a comparison.
fn table() -> Vec<(&'static str, String)> {
    let cmp = |pairs: &str| -> String {
        pairs
            .split(';')
            .map(|p| format!("({}) -> bool", p.trim()))
            .collect::<Vec<_>>()
            .join("; ")
    };
    let mut t: Vec<(&'static str, String)> = vec![
        ("_?_:_", "(bool, A, A) -> A".into()),
        ("_&&_", "(bool, bool) -> bool".into()),
        ("_||_", "(bool, bool) -> bool".into()),
        ("!_", "(bool) -> bool".into()),
        ("@not_strictly_false", "(bool) -> bool".into()),
        ("_==_", "(A, A) -> bool".into()),
        ("_!=_", "(A, A) -> bool".into()),
        (
            "_+_",
            "(bytes, bytes) -> bytes; (double, double) -> double; \
             (duration, duration) -> duration; (duration, timestamp) -> timestamp; \
             (timestamp, duration) -> timestamp; (int, int) -> int; \
             (list(A), list(A)) -> list(A); (string, string) -> string; (uint, uint) -> uint"
                .into(),
        ),
        (
            "_/_",
            "(double, double) -> double; (int, int) -> int; (uint, uint) -> uint".into(),
        ),
        ("_%_", "(int, int) -> int; (uint, uint) -> uint".into()),
        (
            "_*_",
            "(double, double) -> double; (int, int) -> int; (uint, uint) -> uint".into(),
        ),
        ("-_", "(double) -> double; (int) -> int".into()),
        (
            "_-_",
            "(double, double) -> double; (duration, duration) -> duration; (int, int) -> int; \
             (timestamp, duration) -> timestamp; (timestamp, timestamp) -> duration; \
             (uint, uint) -> uint"
                .into(),
        ),
        ("_[_]", "(list(A), int) -> A; (map(A, B), A) -> B".into()),
        ("@in", "(A, list(A)) -> bool; (A, map(A, B)) -> bool".into()),
        (
            "size",
            "(bytes) -> int; bytes.() -> int; (list(A)) -> int; list(A).() -> int; \
             (map(A, B)) -> int; map(A, B).() -> int; (string) -> int; string.() -> int"
                .into(),
        ),
        ("type", "(A) -> type(A)".into()),
        ("bool", "(bool) -> bool; (string) -> bool".into()),
        ("bytes", "(bytes) -> bytes; (string) -> bytes".into()),
        (
            "double",
            "(double) -> double; (int) -> double; (string) -> double; (uint) -> double".into(),
        ),
        (
            "duration",
            "(duration) -> duration; (int) -> duration; (string) -> duration".into(),
        ),
        ("dyn", "(A) -> dyn".into()),
        (
            "int",
            "(int) -> int; (double) -> int; (duration) -> int; (string) -> int; \
             (timestamp) -> int; (uint) -> int"
                .into(),
        ),
        (
            "string",
            "(string) -> string; (bool) -> string; (bytes) -> string; (double) -> string; \
             (duration) -> string; (int) -> string; (timestamp) -> string; (uint) -> string"
                .into(),
        ),
        (
            "timestamp",
            "(timestamp) -> timestamp; (int) -> timestamp; (string) -> timestamp".into(),
        ),
        (
            "uint",
            "(uint) -> uint; (double) -> uint; (int) -> uint; (string) -> uint".into(),
        ),
        ("contains", "string.(string) -> bool".into()),
        ("endsWith", "string.(string) -> bool".into()),
        ("startsWith", "string.(string) -> bool".into()),
        (
            "matches",
            "(string, string) -> bool; string.(string) -> bool".into(),
        ),
    ];
    for op in ["_<_", "_<=_", "_>_", "_>=_"] {
        t.push((op, cmp(ORDERED)));
    }
    for getter in [
        "getFullYear",
        "getMonth",
        "getDayOfYear",
        "getDayOfMonth",
        "getDate",
        "getDayOfWeek",
    ] {
        t.push((getter, GETTER.into()));
    }
    for getter in ["getHours", "getMinutes", "getSeconds", "getMilliseconds"] {
        t.push((getter, DURATION_GETTER.into()));
    }
    t
}

/// The standard library's functions by name.
pub fn functions() -> &'static HashMap<&'static str, Vec<Overload>> {
    static FUNCTIONS: OnceLock<HashMap<&'static str, Vec<Overload>>> = OnceLock::new();
    FUNCTIONS.get_or_init(|| parsed(table()))
}

fn parsed(table: Vec<(&'static str, String)>) -> HashMap<&'static str, Vec<Overload>> {
    let mut out: HashMap<&'static str, Vec<Overload>> = HashMap::new();
    for (name, overloads) in table {
        out.entry(name)
            .or_default()
            .extend(overloads.split(';').filter_map(parse_overload));
    }
    out
}

/// The comparable types of cel-go's lists extension (`sort`, `sortBy`'s keys).
pub const COMPARABLE: [Ty; 8] = [
    Ty::Int,
    Ty::Uint,
    Ty::Double,
    Ty::Bool,
    Ty::Duration,
    Ty::Timestamp,
    Ty::String,
    Ty::Bytes,
];

/// What kpt's environment for a pipeline step's `when` adds to the standard library
/// (kptdev/kpt `pkg/lib/runneroptions/celenv.go`, `NewCELEnvironment`, kptdev/kpt#4469 at
/// ef0fce17d): `CrossTypeNumericComparisons`, `OptionalTypes`, `ext.Strings` v2, `ext.Sets`,
/// `ext.Lists` v3 (`ext.TwoVarComprehensions`, `sortBy`, `optMap` and `optFlatMap` are macros:
/// the checker types them). Declarations as cel-go's `ext/strings.go`, `ext/sets.go`,
/// `ext/lists.go` and `cel/library.go` give them.
fn kpt_table() -> Vec<(&'static str, String)> {
    let mut t = table();
    let cross = "int, double; int, uint; uint, int; uint, double; double, int; double, uint";
    for op in ["_<_", "_<=_", "_>_", "_>=_"] {
        let pairs: Vec<String> = cross
            .split(';')
            .map(|p| format!("({}) -> bool", p.trim()))
            .collect();
        t.push((op, pairs.join("; ")));
    }
    let more: [(&'static str, &str); 31] = [
        // Strings, version 2.
        ("charAt", "string.(int) -> string"),
        (
            "indexOf",
            "string.(string) -> int; string.(string, int) -> int",
        ),
        (
            "lastIndexOf",
            "string.(string) -> int; string.(string, int) -> int",
        ),
        ("lowerAscii", "string.() -> string"),
        ("upperAscii", "string.() -> string"),
        (
            "replace",
            "string.(string, string) -> string; string.(string, string, int) -> string",
        ),
        (
            "split",
            "string.(string) -> list(string); string.(string, int) -> list(string)",
        ),
        (
            "substring",
            "string.(int) -> string; string.(int, int) -> string",
        ),
        ("trim", "string.() -> string"),
        (
            "join",
            "list(string).() -> string; list(string).(string) -> string",
        ),
        ("format", "string.(list(dyn)) -> string"),
        ("strings.quote", "(string) -> string"),
        // Sets.
        ("sets.contains", "(list(A), list(A)) -> bool"),
        ("sets.equivalent", "(list(A), list(A)) -> bool"),
        ("sets.intersects", "(list(A), list(A)) -> bool"),
        // Lists, version 3.
        ("slice", "list(A).(int, int) -> list(A)"),
        (
            "flatten",
            "list(list(A)).() -> list(A); list(dyn).(int) -> list(dyn)",
        ),
        ("lists.range", "(int) -> list(int)"),
        ("reverse", "list(A).() -> list(A)"),
        ("distinct", "list(A).() -> list(A)"),
        // Optional types.
        ("optional.of", "(A) -> optional(A)"),
        ("optional.ofNonZeroValue", "(A) -> optional(A)"),
        ("optional.none", "() -> optional(A)"),
        ("optional.unwrap", "(list(optional(A))) -> list(A)"),
        ("unwrapOpt", "list(optional(A)).() -> list(A)"),
        ("value", "optional(A).() -> A"),
        ("hasValue", "optional(A).() -> bool"),
        ("or", "optional(A).(optional(A)) -> optional(A)"),
        ("orValue", "optional(A).(A) -> A"),
        (
            "_[?_]",
            "(list(A), int) -> optional(A); (map(A, B), A) -> optional(B); \
             (optional(list(A)), int) -> optional(A); (optional(map(A, B)), A) -> optional(B)",
        ),
        (
            "_[_]",
            "(optional(list(A)), int) -> optional(A); (optional(map(A, B)), A) -> optional(B)",
        ),
    ];
    t.extend(more.iter().map(|(n, o)| (*n, o.to_string())));
    let sorts: Vec<String> = COMPARABLE
        .iter()
        .map(|c| format!("list({c}).() -> list({c})", c = type_name(c)))
        .collect();
    t.push(("sort", sorts.join("; ")));
    t
}

/// How the declarations above spell a type (`timestamp`, not cel-go's message name).
fn type_name(t: &Ty) -> String {
    match t {
        Ty::Timestamp => "timestamp".into(),
        Ty::Duration => "duration".into(),
        other => other.to_string(),
    }
}

/// kpt's functions by name ([`kpt_table`]).
pub fn kpt_functions() -> &'static HashMap<&'static str, Vec<Overload>> {
    static FUNCTIONS: OnceLock<HashMap<&'static str, Vec<Overload>>> = OnceLock::new();
    FUNCTIONS.get_or_init(|| parsed(kpt_table()))
}

fn parse_overload(text: &str) -> Option<Overload> {
    let (sig, result) = text.split_once("->")?;
    let sig = sig.trim();
    let (receiver, inner) = match sig.find(".(") {
        Some(dot) => (sig[..dot].trim(), &sig[dot + 2..]),
        None => ("", sig.strip_prefix('(')?),
    };
    let inner = inner.strip_suffix(')')?;
    let mut args = Vec::new();
    if !receiver.is_empty() {
        args.push(parse_type(receiver)?);
    }
    args.extend(
        split_top(inner)
            .into_iter()
            .map(parse_type)
            .collect::<Option<Vec<_>>>()?,
    );
    Some(Overload {
        member: !receiver.is_empty(),
        args,
        result: parse_type(result.trim())?,
    })
}

/// Splits `a, list(b), map(c, d)` at its top-level commas.
fn split_top(text: &str) -> Vec<&str> {
    let (mut parts, mut depth, mut start) = (Vec::new(), 0usize, 0usize);
    for (i, c) in text.char_indices() {
        match c {
            '(' => depth += 1,
            ')' => depth = depth.saturating_sub(1),
            ',' if depth == 0 => {
                parts.push(text[start..i].trim());
                start = i + 1;
            }
            _ => {}
        }
    }
    let last = text[start..].trim();
    if !last.is_empty() {
        parts.push(last);
    }
    parts
}

fn parse_type(text: &str) -> Option<Ty> {
    let text = text.trim();
    if let Some(open) = text.find('(') {
        let params: Vec<Ty> = split_top(text[open + 1..].strip_suffix(')')?)
            .into_iter()
            .map(parse_type)
            .collect::<Option<_>>()?;
        let mut params = params.into_iter();
        return match &text[..open] {
            "list" => Some(Ty::list(params.next()?)),
            "map" => Some(Ty::map(params.next()?, params.next()?)),
            "type" => Some(Ty::type_of(params.next()?)),
            "optional" => Some(Ty::optional(params.next()?)),
            _ => None,
        };
    }
    Some(match text {
        "bool" => Ty::Bool,
        "bytes" => Ty::Bytes,
        "double" => Ty::Double,
        "int" => Ty::Int,
        "string" => Ty::String,
        "uint" => Ty::Uint,
        "timestamp" => Ty::Timestamp,
        "duration" => Ty::Duration,
        "dyn" => Ty::Dyn,
        "A" => Ty::Var(PARAM_A),
        "B" => Ty::Var(PARAM_B),
        _ => return None,
    })
}

/// Type identifiers of the standard library: `int` is `type(int)`, and so on.
pub fn type_identifier(name: &str) -> Option<Ty> {
    let t = match name {
        "bool" => Ty::Bool,
        "bytes" => Ty::Bytes,
        "double" => Ty::Double,
        "int" => Ty::Int,
        "uint" => Ty::Uint,
        "string" => Ty::String,
        "null_type" => Ty::Null,
        "list" => Ty::list(Ty::Dyn),
        "map" => Ty::map(Ty::Dyn, Ty::Dyn),
        "type" => Ty::Type(None),
        "google.protobuf.Timestamp" => Ty::Timestamp,
        "google.protobuf.Duration" => Ty::Duration,
        _ => return None,
    };
    Some(Ty::type_of(t))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_declaration_parses() {
        for (name, text) in table() {
            let count = text.split(';').count();
            assert_eq!(functions()[name].len(), count, "{name}: {text}");
        }
        let size = &functions()["size"];
        assert!(size[1].member && size[1].args == vec![Ty::Bytes]);
        assert_eq!(functions()["_<_"].len(), 8);
        assert_eq!(functions()["getHours"].len(), 3);
        let kpt = kpt_functions();
        assert_eq!(kpt["_<_"].len(), 14, "cross-type numeric comparisons");
        assert_eq!(kpt["sort"].len(), 8);
        assert_eq!(kpt["_[?_]"].len(), 4);
        assert_eq!(kpt["_[_]"].len(), 4);
        for (name, text) in kpt_table() {
            for o in text.split(';') {
                assert!(parse_overload(o).is_some(), "{name}: {o}");
            }
        }
    }
}
