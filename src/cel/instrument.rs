//! Rewrites a checked expression so that evaluating it is metered ([`super::runtime`]):
//! - every comprehension iteration calls `@step(n)`, `n` the nodes of its loop body;
//! - every operand of an operation whose cost grows with its operands (`+`, comparisons,
//!   `in`, `contains`, `size`, conversions, the key of `[]`) is passed through `@arg(x)`, which
//!   charges its size before the operation runs, unless the checker proved it a scalar;
//! - the range of every comprehension over what may be a map becomes `@ordered(range)`, the
//!   map's keys in sorted order: cel-go iterates a Go map in random order, which would make
//!   `target.labels.map(k, k)[0]` differ between runs; here it is the smallest key;
//! - `matches` becomes `@matches(text, pattern)`, with a cached, size-limited regex;
//! - `timestamp(x)` and `duration(x)` become `@timestamp(x)` and `@duration(x)`, which read
//!   strings as Go does ([`super::gotime`]); `string`, `double`, `int`, `uint` and `bool`
//!   become `@string`, ... ([`super::conversions`]), which convert as cel-go;
//! - timestamp getters without a time zone read UTC, and `string(x)` of a timestamp keeps
//!   its offset and of a duration is Go's float64 seconds (`string(@time_text(x))`), as in
//!   Porch's cel-go; where the checker cannot prove the receiver a
//!   timestamp (`dyn(t).getHours()`), `@utc(x)` turns a timestamp into UTC at run time.
//!
//! `.name` (the root scope's variable) becomes `name`.
//!
//! `@` cannot appear in CEL source, so no expression can call or shadow these names. The
//! shapes the interpreter optimises (`@result + [x]` appends, `@result && p` folds) are kept.

use std::collections::HashMap;

use cel::common::ast::{
    operators, CallExpr, ComprehensionExpr, EntryExpr, Expr, IdedExpr, LiteralValue,
};

use super::types::Ty;

/// A map's keys as a list in their order (ints, uints, bools, strings, each by value); any other
/// value unchanged: what a comprehension iterates.
pub const ORDERED_FUNCTION: &str = "@ordered";
/// Counts one comprehension iteration.
pub const STEP_FUNCTION: &str = "@step";
/// Charges the size of its argument, and returns it.
pub const ARG_FUNCTION: &str = "@arg";
/// `matches`, metered.
pub const MATCHES_FUNCTION: &str = "@matches";
/// A timestamp in UTC; any other value unchanged (the receiver of a getter of unknown type).
pub const UTC_FUNCTION: &str = "@utc";
/// A timestamp or duration as `string()` of it reads in cel-go; any other value unchanged.
pub const TIME_TEXT_FUNCTION: &str = "@time_text";
/// `timestamp(x)`, reading a string as Go does ([`super::gotime`]).
pub const TIMESTAMP_FUNCTION: &str = "@timestamp";
/// `duration(x)`, reading a string as Go does ([`super::gotime`]).
pub const DURATION_FUNCTION: &str = "@duration";

/// The timestamp getters; without a time zone they read UTC (Porch's `DefaultUTCTimeZone`).
const GETTERS: [&str; 10] = [
    "getFullYear",
    "getMonth",
    "getDayOfYear",
    "getDayOfMonth",
    "getDate",
    "getDayOfWeek",
    "getHours",
    "getMinutes",
    "getSeconds",
    "getMilliseconds",
];

/// Operations whose cost grows with the size of their operands.
const SIZED: [&str; 20] = [
    operators::ADD,
    operators::EQUALS,
    operators::NOT_EQUALS,
    operators::LESS,
    operators::LESS_EQUALS,
    operators::GREATER,
    operators::GREATER_EQUALS,
    operators::IN,
    "contains",
    "startsWith",
    "endsWith",
    "size",
    "string",
    "bytes",
    "int",
    "uint",
    "double",
    "bool",
    "timestamp",
    "duration",
];

/// Instruments `expr` in place; `types` are the checker's types by node id.
pub fn instrument(expr: &mut IdedExpr, types: &HashMap<u64, Ty>) {
    match &mut expr.expr {
        Expr::Call(c) => {
            if let Some(t) = &mut c.target {
                instrument(t, types);
            }
            c.args.iter_mut().for_each(|a| instrument(a, types));
            meter_call(c, types);
        }
        Expr::List(l) => l.elements.iter_mut().for_each(|e| instrument(e, types)),
        Expr::Map(m) => m.entries.iter_mut().for_each(|e| match &mut e.expr {
            EntryExpr::MapEntry(me) => {
                instrument(&mut me.key, types);
                instrument(&mut me.value, types);
            }
            EntryExpr::StructField(sf) => instrument(&mut sf.value, types),
        }),
        Expr::Select(s) => instrument(&mut s.operand, types),
        // `.name`, the root scope's variable (the checker refused it where a macro variable
        // hides it): the interpreter knows it as `name`.
        Expr::Ident(name) if name.starts_with('.') => {
            name.remove(0);
        }
        Expr::Comprehension(c) => {
            instrument(&mut c.iter_range, types);
            // A map is iterated in the order of its keys, not its hash order.
            let list = matches!(types.get(&c.iter_range.id), Some(Ty::List(_)));
            if c.iter_var2.is_none() && !list {
                let range = std::mem::take(&mut c.iter_range);
                c.iter_range = call(ORDERED_FUNCTION, vec![range]);
            }
            instrument(&mut c.accu_init, types);
            instrument(&mut c.loop_cond, types);
            instrument(&mut c.loop_step, types);
            instrument(&mut c.result, types);
            count_steps(c);
        }
        _ => {}
    }
}

fn is_accumulator(e: &IdedExpr) -> bool {
    matches!(&e.expr, Expr::Ident(n) if n.starts_with('@'))
}

/// Whether an operand needs metering: not a literal scalar, not a proven scalar, not the
/// comprehension accumulator (nor the one-element list appended to it).
fn needs_meter(e: &IdedExpr, types: &HashMap<u64, Ty>, appending: bool) -> bool {
    match &e.expr {
        Expr::Literal(_) => false,
        Expr::Ident(_) if is_accumulator(e) => false,
        Expr::List(_) if appending => false,
        _ => !matches!(
            types.get(&e.id),
            Some(
                Ty::Bool
                    | Ty::Int
                    | Ty::Uint
                    | Ty::Double
                    | Ty::Null
                    | Ty::Timestamp
                    | Ty::Duration
                    | Ty::Type(_)
            )
        ),
    }
}

fn metered(e: IdedExpr) -> IdedExpr {
    call(ARG_FUNCTION, vec![e])
}

fn meter_call(c: &mut CallExpr, types: &HashMap<u64, Ty>) {
    let name = c.func_name.as_str();
    let is_timestamp = |e: &IdedExpr| matches!(types.get(&e.id), Some(Ty::Timestamp));
    if GETTERS.contains(&name) && c.args.is_empty() {
        match c.target.as_deref() {
            Some(t) if is_timestamp(t) => c
                .args
                .push(node(Expr::Literal(LiteralValue::String("UTC".into())))),
            // A duration's getters take no time zone; anything else may be a timestamp.
            Some(t) if !matches!(types.get(&t.id), Some(Ty::Duration)) => {
                let receiver = c.target.take().map(|t| *t).unwrap_or_default();
                c.target = Some(Box::new(call(UTC_FUNCTION, vec![receiver])));
            }
            _ => {}
        }
        return;
    }
    if name == "matches" {
        let mut args: Vec<IdedExpr> = c.target.take().map(|t| *t).into_iter().collect();
        args.append(&mut c.args);
        c.func_name = MATCHES_FUNCTION.to_string();
        c.args = args;
        return;
    }
    if name == operators::INDEX {
        // Indexing costs the key (hashing it), not the container.
        if let Some(key) = c.args.get_mut(1) {
            if needs_meter(key, types, false) {
                *key = metered(std::mem::take(key));
            }
        }
        return;
    }
    if !SIZED.contains(&name) {
        return;
    }
    let appending = name == operators::ADD && c.args.iter().any(is_accumulator);
    let renamed = time_conversion(c);
    // `string(x)` of what may be a timestamp or a duration.
    let time_text = name == "string"
        && c.target.is_none()
        && c.args.len() == 1
        && matches!(
            types.get(&c.args[0].id),
            Some(Ty::Timestamp | Ty::Duration | Ty::Dyn) | None
        );
    if let Some(t) = &mut c.target {
        if needs_meter(t, types, appending) {
            **t = metered(std::mem::take(&mut **t));
        }
    }
    for a in &mut c.args {
        if needs_meter(a, types, appending) {
            *a = metered(std::mem::take(a));
        }
    }
    if let Some(renamed) = renamed.or_else(|| conversion(c)) {
        c.func_name = renamed.to_string();
    }
    if time_text {
        if let Some(arg) = c.args.first_mut() {
            *arg = call(TIME_TEXT_FUNCTION, vec![std::mem::take(arg)]);
        }
    }
}

/// The function `string(x)`, `double(x)`, `int(x)`, `uint(x)` or `bool(x)` is evaluated with
/// ([`super::conversions`]), if `c` is one.
pub fn conversion(c: &CallExpr) -> Option<&'static str> {
    if c.target.is_some() || c.args.len() != 1 {
        return None;
    }
    super::conversions::renamed(&c.func_name)
}

/// The function `timestamp(x)` or `duration(x)` is evaluated with, if `c` is one.
pub fn time_conversion(c: &CallExpr) -> Option<&'static str> {
    if c.target.is_some() || c.args.len() != 1 {
        return None;
    }
    match c.func_name.as_str() {
        "timestamp" => Some(TIMESTAMP_FUNCTION),
        "duration" => Some(DURATION_FUNCTION),
        _ => None,
    }
}

fn node(expr: Expr) -> IdedExpr {
    // Ids only locate nodes in the source for messages; inserted nodes have none.
    IdedExpr { id: 0, expr }
}

fn call(func: &str, args: Vec<IdedExpr>) -> IdedExpr {
    node(Expr::Call(CallExpr {
        func_name: func.to_string(),
        target: None,
        args,
    }))
}

/// `@step(weight) ? then : otherwise`: counts one step of `weight` nodes, then evaluates
/// `then`.
fn counted(weight: i64, then: IdedExpr, otherwise: IdedExpr) -> IdedExpr {
    let weight = node(Expr::Literal(LiteralValue::Int(weight.into())));
    call(
        operators::CONDITIONAL,
        vec![call(STEP_FUNCTION, vec![weight]), then, otherwise],
    )
}

/// Number of nodes of a tree: what one evaluation of it costs at least (Kubernetes charges
/// one per evaluated node).
fn nodes(e: &IdedExpr) -> i64 {
    1 + super::checker::children(e)
        .into_iter()
        .map(nodes)
        .sum::<i64>()
}

/// Inserts the step counter into a comprehension's loop step, keeping the shapes the
/// interpreter optimises recognisable.
fn count_steps(c: &mut ComprehensionExpr) {
    let accu = c.accu_var.clone();
    let is_accu = |e: &IdedExpr| matches!(&e.expr, Expr::Ident(n) if *n == accu);
    let false_literal = || node(Expr::Literal(LiteralValue::Boolean(false.into())));
    let weight = nodes(&c.loop_cond) + nodes(&c.loop_step);
    let step = std::mem::take(&mut c.loop_step);
    c.loop_step = match step.expr {
        // `@result && p` / `@result || p` (all, exists): count inside the right operand.
        Expr::Call(mut fold)
            if (fold.func_name == operators::LOGICAL_AND
                || fold.func_name == operators::LOGICAL_OR)
                && fold.target.is_none()
                && fold.args.len() == 2
                && fold.args.first().is_some_and(is_accu) =>
        {
            if let Some(p) = fold.args.pop() {
                fold.args.push(counted(weight, p, false_literal()));
            }
            IdedExpr {
                id: step.id,
                expr: Expr::Call(fold),
            }
        }
        // `g ? step : @result` (filter, exists_one, 3-argument map): count in the guard.
        Expr::Call(mut cond)
            if cond.func_name == operators::CONDITIONAL
                && cond.target.is_none()
                && cond.args.len() == 3
                && cond.args.last().is_some_and(is_accu) =>
        {
            if let Some(g) = cond.args.first_mut() {
                let guard = std::mem::take(g);
                *g = counted(weight, guard, false_literal());
            }
            IdedExpr {
                id: step.id,
                expr: Expr::Call(cond),
            }
        }
        // Anything else (`@result + [x]` of map): `@step() ? step : @result`.
        other => counted(
            weight,
            IdedExpr {
                id: step.id,
                expr: other,
            },
            node(Expr::Ident(accu.clone())),
        ),
    };
}

/// Depth of the tree (after instrumentation), stopping early past `limit`.
pub fn tree_depth(expr: &IdedExpr, depth: usize, limit: usize) -> usize {
    if depth > limit {
        return depth;
    }
    super::checker::children(expr)
        .into_iter()
        .map(|c| tree_depth(c, depth + 1, limit))
        .max()
        .unwrap_or(depth + 1)
}
