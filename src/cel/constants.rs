//! Type conversions of constants, evaluated before anything runs, as Porch's cel-go does.
//!
//! Porch builds each program with `cel.EvalOptions(cel.OptOptimize)`. cel-go's planner then
//! replaces a type conversion (`int`, `uint`, `double`, `string`, `bytes`, `bool`,
//! `timestamp`, `duration`, `dyn`, `type`) whose argument is a constant (a literal, a list or
//! map literal of constants, or another such conversion) with its value, and when that
//! conversion fails, `env.Program` fails: `uint(-1)` or `timestamp('2024-13-01')` is an
//! error before any target is evaluated, even in a branch no evaluation would take. Its
//! message is the conversion's own (`unsigned integer overflow`), without a position.
//! Timestamps and durations are read from strings as at run time ([`super::gotime`]).

use cel::common::ast::{EntryExpr, Expr, IdedExpr};
use cel::{Context, Value};

use super::gotime::{duration_function, timestamp_function};
use super::instrument::{conversion, time_conversion, DURATION_FUNCTION, TIMESTAMP_FUNCTION};

/// cel-go's `overloads.IsTypeConversionFunction`.
const CONVERSIONS: [&str; 10] = [
    "bool",
    "bytes",
    "double",
    "duration",
    "dyn",
    "int",
    "string",
    "timestamp",
    "type",
    "uint",
];

/// The first conversion of a constant that fails, in cel-go's planning order (operands
/// first, left to right), as cel-go words it.
pub fn failed_conversion(expr: &IdedExpr) -> Option<String> {
    let env = super::stdlib_env();
    let mut ctx = Context::with_env(std::sync::Arc::clone(env));
    super::conversions::register(&mut ctx, env);
    let registered = [
        ctx.add_function(TIMESTAMP_FUNCTION, timestamp_function()),
        ctx.add_function(DURATION_FUNCTION, duration_function()),
    ];
    debug_assert!(registered.iter().all(Result::is_ok));
    walk(expr, &ctx).err()
}

/// Whether `e` is a constant once planned; `Err` is the first failed conversion within it.
fn walk(e: &IdedExpr, ctx: &Context) -> Result<bool, String> {
    let children = super::checker::children(e);
    let mut all_constant = true;
    for child in &children {
        all_constant &= walk(child, ctx)?;
    }
    match &e.expr {
        Expr::Literal(_) => Ok(true),
        Expr::List(l) => Ok(all_constant && l.optional_indices.is_empty()),
        Expr::Map(m) => Ok(all_constant
            && m.entries
                .iter()
                .all(|entry| matches!(&entry.expr, EntryExpr::MapEntry(me) if !me.optional))),
        Expr::Call(call)
            if call.target.is_none()
                && call.args.len() == 1
                && CONVERSIONS.contains(&call.func_name.as_str())
                && all_constant =>
        {
            let mut e = e.clone();
            rename_time_conversions(&mut e);
            match Value::resolve(&e, ctx) {
                Ok(_) => Ok(true),
                Err(err) => Err(super::runtime::execution_error(err)),
            }
        }
        _ => Ok(false),
    }
}

/// The conversions in a constant tree, as the instrumented program calls them.
fn rename_time_conversions(e: &mut IdedExpr) {
    match &mut e.expr {
        Expr::Call(c) => {
            c.args.iter_mut().for_each(rename_time_conversions);
            if let Some(renamed) = time_conversion(c).or_else(|| conversion(c)) {
                c.func_name = renamed.to_string();
            }
        }
        Expr::List(l) => l.elements.iter_mut().for_each(rename_time_conversions),
        Expr::Map(m) => {
            for entry in &mut m.entries {
                if let EntryExpr::MapEntry(me) = &mut entry.expr {
                    rename_time_conversions(&mut me.key);
                    rename_time_conversions(&mut me.value);
                }
            }
        }
        _ => {}
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn first_failure(source: &str) -> Option<String> {
        let parser = cel::Env::stdlib().parser();
        let (expr, _) = parser.parse_with_source_info(source).expect("parses");
        failed_conversion(&expr)
    }

    #[test]
    fn failing_conversions_of_constants_are_found() {
        assert_eq!(
            first_failure("uint(-1)").as_deref(),
            Some("unsigned integer overflow")
        );
        assert_eq!(
            first_failure("false ? int(1e99) : 'a'").as_deref(),
            Some("integer overflow")
        );
        // Nested: the inner conversion is a constant too.
        assert_eq!(
            first_failure("int(double(1e99))").as_deref(),
            Some("integer overflow")
        );
        assert_eq!(
            first_failure("string([b'\\xff'][0])"),
            None,
            "an index is not a constant"
        );
        assert_eq!(first_failure("int(target.x)"), None);
        assert_eq!(first_failure("uint(-(1))"), None, "a negation is a call");
        assert_eq!(first_failure("int('12') + uint(2)"), None);
    }
}
