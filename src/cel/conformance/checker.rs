//! cel-go's checker (`checker/checker_test.go`) on the mistakes a PackageVariantSet author makes
//! in a `*Expr`, restated over Porch's declarations (`repoDefault`, `packageDefault` strings;
//! `upstream`, `target`, `repository` dyn), with cel-go's messages.

use super::V::*;
use super::{bound, ok, refused, Source, W};

const NO_FIELDS: &str = "does not support field selection";

#[rustfmt::skip]
pub const SOURCE: Source = Source {
    title: "cel-go checker",
    cases: &[
        // Operators and functions on the wrong types.
        refused("overloads/string_plus_int", "repoDefault + 1", "1:13: found no matching overload for '_+_' applied to '(string, int)'"),
        refused("overloads/int_plus_string", "size(repoDefault) + repoDefault", "1:19: found no matching overload for '_+_' applied to '(int, string)'"),
        refused("overloads/size_of_int", "size(1)", "1:5: found no matching overload for 'size' applied to '(int)'"),
        refused("overloads/int_less_string", "1 < repoDefault", "1:3: found no matching overload for '_<_' applied to '(int, string)'"),
        refused("overloads/string_equals_int", "repoDefault == 1", "1:13: found no matching overload for '_==_' applied to '(string, int)'"),
        refused("overloads/int_plus_uint", "1 + 1u", "1:3: found no matching overload for '_+_' applied to '(int, uint)'"),
        refused("overloads/member_argument", "repoDefault.startsWith(1)", "1:23: found no matching overload for 'startsWith' applied to 'string.(int)'"),
        refused("overloads/not_string", "!repoDefault", "1:1: found no matching overload for '!_' applied to '(string)'"),
        refused("overloads/conditional_string", "repoDefault ? 'a' : 'b'", "1:13: found no matching overload for '_?_:_' applied to '(string, string, string)'"),
        refused("overloads/in_wrong_key", "1 in {'a': 'b'}", "1:3: found no matching overload for '@in' applied to '(int, map(string, string))'"),
        refused("overloads/timestamp_of_double", "timestamp(1.5)", "1:10: found no matching overload for 'timestamp' applied to '(double)'"),
        refused("overloads/and_string", "target.name == 'a' && repoDefault", "1:23: expected type 'bool' but found 'string'"),
        refused("overloads/in_macro_body", "['a'].map(x, x + 1)", "1:16: found no matching overload for '_+_' applied to '(string, int)'"),
        // filter expands to `x ? @result + [x] : @result`: the conditional is what fails.
        refused("overloads/filter_not_bool", "['a'].filter(x, x)", "1:13: found no matching overload for '_?_:_' applied to '(string, list(string), list(string))'"),
        // dyn operands: checked at evaluation only, as in cel-go.
        bound("dyn/field_of_target_plus_int", "target.name + 1", Map(&[(Str("name"), Str("a"))]), W::Eval("no such overload")),
        bound("dyn/field_of_target_compared", "target.name == 'a'", Map(&[(Str("name"), Str("a"))]), W::Val(Bool(true))),
        // Field selection on what has no fields.
        refused("select/string_field", "repoDefault.name", NO_FIELDS),
        refused("select/has_string_field", "has(packageDefault.name)", NO_FIELDS),
        // Mixed list and map literals (Porch's HomogeneousAggregateLiterals).
        refused("aggregates/mixed_list", "['a', 1][0]", "1:7: expected type 'string' but found 'int'"),
        refused("aggregates/dyn_and_string", "[target.name, 'x'][0]", "1:15: expected type 'dyn' but found 'string'"),
        ok("aggregates/dyn_converted", "[string(repoDefault), 'x'][0]", Str("foo-repo")),
        refused("aggregates/mixed_map_values", "{'a': 1, 'b': 'x'}['a']", "1:15: expected type 'int' but found 'string'"),
        refused("aggregates/mixed_map_keys", "{'a': 1, 2: 1}['a']", "1:10: expected type 'string' but found 'int'"),
        // Undeclared variables and functions (no strings extension, no Kubernetes libraries).
        refused("undeclared/variable", "repo.name", "1:1: undeclared reference to 'repo' (in container '')"),
        refused("undeclared/member_function", "repoDefault.lowerAscii()", "1:23: undeclared reference to 'lowerAscii' (in container '')"),
        refused("undeclared/global_function", "lowerAscii(repoDefault)", "1:11: undeclared reference to 'lowerAscii' (in container '')"),
        refused("undeclared/split", "repoDefault.split('-')[0]", "1:18: undeclared reference to 'split' (in container '')"),
        refused("undeclared/format", "'%s'.format([repoDefault])", "1:12: undeclared reference to 'format' (in container '')"),
        // The wrong number of arguments is an overload error too.
        refused("arity/size_two", "size(repoDefault, 1)", "1:5: found no matching overload for 'size' applied to '(string, int)'"),
        // What cel-go accepts.
        ok("accepted/conditional_join", "repoDefault == 'foo-repo' ? 'a' : 'b'", Str("a")),
        ok("accepted/size_member", "repoDefault.size()", Int(8)),
        ok("accepted/int_conversion", "string(size(repoDefault) + 1)", Str("9")),
    ],
    skipped: &[],
};
