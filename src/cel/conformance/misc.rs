//! cel-spec's small files, restated: `namespace.textproto` (over Porch's variable names, which
//! have no dots and no container) and `plumbing.textproto`.

use super::V::*;
use super::{beyond_limit, bound, fails, ok, refused, skip, yes, Source, W};

#[rustfmt::skip]
pub const NAMESPACE: Source = Source {
    title: "cel-spec namespace",
    cases: &[
        // `.y` is the root-scope `y` there; `.repoDefault` here.
        ok("namespace_shadowing/disambiguation", ".repoDefault", Str("foo-repo")),
        // A comprehension variable shadows a declared variable of the same name.
        yes("namespace_shadowing/comprehension_shadowing", "[0].exists(target, target == 0)"),
        yes("namespace_shadowing/comprehension_shadowing_parse_only", "[0].exists(repoDefault, repoDefault == 0)"),
        bound("namespace_shadowing/comprehension_shadowing_selector", "[{'z': 0}].exists(target, target.z == 0)", Map(&[(Str("z"), Str("42"))]), W::Val(Bool(true))),
        bound("namespace_shadowing/comprehension_shadowing_selector_parse_only", "[{'z': 0}].exists(upstream, upstream.z == 0)", Map(&[(Str("z"), Str("42"))]), W::Val(Bool(true))),
        yes("namespace_shadowing/comprehension_shadowing_nesting", "[1].exists(target, [0].exists(target, target == 0))"),
        // Ours: the root-scope variable where a macro variable hides it, which the interpreter
        // cannot reach. cel-go gives true.
        beyond_limit("namespace_shadowing/root_variable_under_macro_variable", "['x'].exists(repoDefault, .repoDefault == 'foo-repo')", "which a macro variable of the same name hides here"),
    ],
    skipped: &[
        skip("qualified, namespace, namespace_shadowing/basic, comprehension_shadowing_namespaced_selector*", 7, "a container or dotted variable name Porch never declares"),
    ],
};

#[rustfmt::skip]
pub const PLUMBING: Source = Source {
    title: "cel-spec plumbing",
    cases: &[
        ok("min/min_program", "17", Int(17)),
        fails("eval_results/error_result", "1 / 0", "division by zero"),
        // disable_check there; Porch checks, with HomogeneousAggregateLiterals.
        refused("check_inputs/skip_check", "[17, 'pancakes']", "1:6: expected type 'int' but found 'string'"),
        ok("eval_inputs/one_ignored_value_arg", "'foo'", Str("foo")),
    ],
    skipped: &[],
};
