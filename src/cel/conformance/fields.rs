//! cel-spec `tests/simple/testdata/fields.textproto`, restated. Its mixed map literals are
//! refused by Porch's `HomogeneousAggregateLiterals`; its declared variables (`x`, `a.b`) are
//! rewritten over `target`, which Porch declares `dyn` (so nothing is refused at compile time).

use super::V::*;
use super::{bound, fails, ok, refused, skip, Source, W};

#[rustfmt::skip]
pub const SOURCE: Source = Source {
    title: "cel-spec fields",
    cases: &[
        refused("map_fields/map_key_int64", "{0:1,2:2,5:true}[5]", "1:12: expected type 'int' but found 'bool'"),
        refused("map_fields/map_key_uint64", "{0u:1u,2u:'happy',5u:3u}[2u]", "1:11: expected type 'uint' but found 'string'"),
        ok("map_fields/map_key_string", "{'name':100u}['name']", Uint(100)),
        ok("map_fields/map_key_bool", "{true:5}[true]", Int(5)),
        refused("map_fields/map_key_mix_type", "{true:1,2:2,5u:3}[true]", "1:9: expected type 'bool' but found 'int'"),
        // x is map(string, int) there; Porch binds strings only.
        bound("map_fields/map_field_access", "target.name", Map(&[(Str("name"), Str("1024"))]), W::Val(Str("1024"))),
        fails("map_fields/map_no_such_key", "{0:1,2:2,5:3}[1]", "no such key: 1"),
        bound("map_fields/map_field_select_no_such_key", "target.name", Map(&[(Str("holiday"), Str("field"))]), W::Eval("no such key: name")),
        ok("map_fields/map_value_null", "{true:null}[true]", Null),
        ok("map_fields/map_value_bool", "{27:false}[27]", Bool(false)),
        ok("map_fields/map_value_string", "{'n':'x'}['n']", Str("x")),
        ok("map_fields/map_value_float", "{3:15.15}[3]", Dbl(15.15)),
        ok("map_fields/map_value_uint64", "{0u:1u,2u:2u,5u:3u}[0u]", Uint(1)),
        ok("map_fields/map_value_int64", "{true:1,false:2}[true]", Int(1)),
        ok("map_fields/map_value_bytes", "{0:b\"\"}[0]", Bytes(b"")),
        ok("map_fields/map_value_list", "{0u:[1]}[0u]", List(&[Int(1)])),
        ok("map_fields/map_value_map", "{\"map\": {\"k\": \"v\"}}[\"map\"]", Map(&[(Str("k"), Str("v"))])),
        refused("map_fields/map_value_mix_type", "{\"map\": {\"k\": \"v\"}, \"list\": [1]}[\"map\"]", "1:29: expected type 'map(string, string)' but found 'list(int)'"),
        // `a.b` is a map(string, string) variable there: here `target`, holding `b`.
        bound("qualified_identifier_resolution/map_field_select", "target.b.c", Map(&[(Str("b"), Map(&[(Str("c"), Str("yeah"))]))]), W::Val(Str("yeah"))),
        // cel-go's attribute qualification of a list by a string (`interpreter/attributes.go`).
        bound("qualified_identifier_resolution/list_field_select_unsupported", "target.pancakes", List(&[Str("pancakes")]), W::Eval("unsupported index type 'string' in list")),
        // `a` is an int there; Porch never binds one. A string is as unselectable. cel-go says
        // `no such key: pancakes`; the interpreter's error does not carry the field's name.
        bound("qualified_identifier_resolution/int64_field_select_unsupported", "target.pancakes", Str("15"), W::Eval("no such key (a field of a value of type 'string')")),
    ],
    skipped: &[
        skip("qualified_identifier_resolution: qualified_ident, ident_with_longest_prefix_check", 2, "a dotted variable name Porch never declares"),
    ],
};
