//! cel-spec `tests/simple/testdata/logic.textproto`, restated. Its `disable_check` cases
//! (operands of the wrong type that short-circuiting would skip) are refused by cel-go's
//! checker in Porch: `&&` and `||` want `bool` operands (`expected type 'bool'`), `?:` and
//! `!` have no overload for them.

use super::V::*;
use super::{fails, no, ok, refused, yes, Source};

#[rustfmt::skip]
pub const SOURCE: Source = Source {
    title: "cel-spec logic",
    cases: &[
        ok("conditional/true_case", "true ? 1 : 2", Int(1)),
        ok("conditional/false_case", "false ? 'foo' : 'bar'", Str("bar")),
        fails("conditional/error_case", "2 / 0 > 4 ? 'baz' : 'quux'", "division by zero"),
        refused("conditional/mixed_type", "true ? 'cows' : 17", "1:6: found no matching overload for '_?_:_' applied to '(bool, string, int)'"),
        refused("conditional/bad_type", "'cows' ? false : 17", "1:8: found no matching overload for '_?_:_' applied to '(string, bool, int)'"),
        yes("AND/all_true", "true && true"),
        no("AND/all_false", "false && false"),
        no("AND/false_left", "false && true"),
        no("AND/false_right", "true && false"),
        refused("AND/short_circuit_type_left", "false && 32", "1:10: expected type 'bool' but found 'int'"),
        refused("AND/short_circuit_type_right", "'horses' && false", "1:1: expected type 'bool' but found 'string'"),
        no("AND/short_circuit_error_left", "false && (2 / 0 > 3 ? false : true)"),
        no("AND/short_circuit_error_right", "(2 / 0 > 3 ? false : true) && false"),
        fails("AND/error_right", "true && 1/0 != 0", "division by zero"),
        fails("AND/error_left", "1/0 != 0 && true", "division by zero"),
        refused("AND/no_overload", "'less filling' && 'tastes great'", "1:1: expected type 'bool' but found 'string'"),
        yes("OR/all_true", "true || true"),
        no("OR/all_false", "false || false"),
        yes("OR/false_left", "false || true"),
        yes("OR/false_right", "true || false"),
        refused("OR/short_circuit_type_left", "true || 32", "1:9: expected type 'bool' but found 'int'"),
        refused("OR/short_circuit_type_right", "'horses' || true", "1:1: expected type 'bool' but found 'string'"),
        yes("OR/short_circuit_error_left", "true || (2 / 0 > 3 ? false : true)"),
        yes("OR/short_circuit_error_right", "(2 / 0 > 3 ? false : true) || true"),
        fails("OR/error_right", "false || 1/0 != 0", "division by zero"),
        fails("OR/error_left", "1/0 != 0 || false", "division by zero"),
        refused("OR/no_overload", "'less filling' || 'tastes great'", "1:1: expected type 'bool' but found 'string'"),
        no("NOT/not_true", "!true"),
        yes("NOT/not_false", "!false"),
        refused("NOT/no_overload", "!0", "1:1: found no matching overload for '!_' applied to '(int)'"),
    ],
    skipped: &[],
};
