//! cel-spec `tests/simple/testdata/basic.textproto`, restated.

use super::V::*;
use super::{bound, ok, refused, Source, W};

pub const SOURCE: Source = Source {
    title: "cel-spec basic",
    cases: &[
        ok("self_eval_zeroish/self_eval_int_zero", "0", Int(0)),
        ok("self_eval_zeroish/self_eval_uint_zero", "0u", Uint(0)),
        ok("self_eval_zeroish/self_eval_uint_alias_zero", "0U", Uint(0)),
        ok("self_eval_zeroish/self_eval_float_zero", "0.0", Dbl(0.0)),
        ok(
            "self_eval_zeroish/self_eval_float_zerowithexp",
            "0e+0",
            Dbl(0.0),
        ),
        ok("self_eval_zeroish/self_eval_string_empty", "''", Str("")),
        ok(
            "self_eval_zeroish/self_eval_string_empty_quotes",
            r#""""#,
            Str(""),
        ),
        ok(
            "self_eval_zeroish/self_eval_string_raw_prefix",
            r#"r"""#,
            Str(""),
        ),
        ok(
            "self_eval_zeroish/self_eval_bytes_empty",
            r#"b"""#,
            Bytes(b""),
        ),
        ok(
            "self_eval_zeroish/self_eval_bool_false",
            "false",
            Bool(false),
        ),
        ok("self_eval_zeroish/self_eval_null", "null", Null),
        ok("self_eval_zeroish/self_eval_empty_list", "[]", List(&[])),
        ok("self_eval_zeroish/self_eval_empty_map", "{}", Map(&[])),
        ok(
            "self_eval_zeroish/self_eval_string_raw_prefix_triple_double",
            r#"r"""""""#,
            Str(""),
        ),
        ok(
            "self_eval_zeroish/self_eval_string_raw_prefix_triple_single",
            "r''''''",
            Str(""),
        ),
        ok("self_eval_nonzeroish/self_eval_int_nonzero", "42", Int(42)),
        ok(
            "self_eval_nonzeroish/self_eval_uint_nonzero",
            "123456789u",
            Uint(123456789),
        ),
        ok(
            "self_eval_nonzeroish/self_eval_uint_alias_nonzero",
            "123456789U",
            Uint(123456789),
        ),
        ok(
            "self_eval_nonzeroish/self_eval_int_negative_min",
            "-9223372036854775808",
            Int(i64::MIN),
        ),
        ok(
            "self_eval_nonzeroish/self_eval_float_negative_exp",
            "-2.3e+1",
            Dbl(-23.0),
        ),
        ok(
            "self_eval_nonzeroish/self_eval_string_excl",
            r#""!""#,
            Str("!"),
        ),
        ok(
            "self_eval_nonzeroish/self_eval_string_escape",
            r"'\''",
            Str("'"),
        ),
        ok(
            "self_eval_nonzeroish/self_eval_bytes_escape",
            "b'ÿ'",
            Bytes(&[0xc3, 0xbf]),
        ),
        ok(
            "self_eval_nonzeroish/self_eval_bytes_invalid_utf8",
            r"b'\000\xff'",
            Bytes(&[0, 0xff]),
        ),
        ok(
            "self_eval_nonzeroish/self_eval_list_singleitem",
            "[-1]",
            List(&[Int(-1)]),
        ),
        ok(
            "self_eval_nonzeroish/self_eval_map_singleitem",
            r#"{"k":"v"}"#,
            Map(&[(Str("k"), Str("v"))]),
        ),
        ok(
            "self_eval_nonzeroish/self_eval_bool_true",
            "true",
            Bool(true),
        ),
        ok(
            "self_eval_nonzeroish/self_eval_int_hex",
            "0x55555555",
            Int(1431655765),
        ),
        ok(
            "self_eval_nonzeroish/self_eval_int_hex_negative",
            "-0x55555555",
            Int(-1431655765),
        ),
        ok(
            "self_eval_nonzeroish/self_eval_uint_hex",
            "0x55555555u",
            Uint(1431655765),
        ),
        ok(
            "self_eval_nonzeroish/self_eval_uint_alias_hex",
            "0x55555555U",
            Uint(1431655765),
        ),
        ok(
            "self_eval_nonzeroish/self_eval_unicode_escape_four",
            r#""\u270c""#,
            Str("\u{270c}"),
        ),
        ok(
            "self_eval_nonzeroish/self_eval_unicode_escape_eight",
            r#""\U0001f431""#,
            Str("\u{1f431}"),
        ),
        ok(
            "self_eval_nonzeroish/self_eval_ascii_escape_seq",
            r#""\a\b\f\n\r\t\v\"\'\\""#,
            Str("\x07\x08\x0c\n\r\t\x0b\"'\\"),
        ),
        // Adapted: `x` is declared an int and bound to 123; Porch's variables are strings or
        // dyn, and a test binds strings, maps and lists: `target` bound to a string.
        bound(
            "variables/self_eval_bound_lookup",
            "target",
            Str("123"),
            W::Val(Str("123")),
        ),
        // disable_check: Porch checks, so the unbound name is cel-go's compile error.
        refused(
            "variables/self_eval_unbound_lookup",
            "x",
            "1:1: undeclared reference to 'x' (in container '')",
        ),
        refused(
            "variables/unbound_is_runtime_error",
            "x || true",
            "1:1: undeclared reference to 'x' (in container '')",
        ),
        ok("functions/binop", "1 + 1", Int(2)),
        refused(
            "functions/unbound",
            "f_unknown(17)",
            "1:10: undeclared reference to 'f_unknown' (in container '')",
        ),
        refused(
            "functions/unbound_is_runtime_error",
            "f_unknown(17) || true",
            "1:10: undeclared reference to 'f_unknown' (in container '')",
        ),
        // Adapted: the declarations named `false`, `true` and `null` are left out (Porch
        // declares no such variable); the constants still win.
        ok("reserved_const/false", "false", Bool(false)),
        ok("reserved_const/true", "true", Bool(true)),
        ok("reserved_const/null", "null", Null),
    ],
    skipped: &[],
};
