//! Dotted PackageVariant names (issue 31): Kubernetes names may hold dots, and a Repository
//! named as a DNS subdomain (`edge1.example.com`) makes a dotted variant name
//! `<set>-edge1.example.com-<package>`. The PackageVariant function takes such a name when the
//! variant has no pipeline functions and refuses it when it has (the generated function names
//! `PackageVariant.<pv>.<fn>.<i>` would not split back). The set applies the same rule per
//! target, so that it never emits a variant the function refuses, nor refuses one it takes.

use crate::api::names;
use crate::api::package_variant_set::{PackageVariantSet, Target};

/// Whether the variants of `target` have pipeline functions: its template's pipeline has a
/// mutator or a validator. The render copies each function, so every variant of the target
/// has as many as the template, and none without a template.
pub fn has_functions(target: Option<&Target>) -> bool {
    target
        .and_then(|t| t.template.as_ref())
        .and_then(|t| t.pipeline.as_ref())
        .is_some_and(|p| !(p.mutators.is_empty() && p.validators.is_empty()))
}

/// Whether the variants of `spec.targets[target]` of `set` have pipeline functions.
pub fn target_has_functions(set: &PackageVariantSet, target: usize) -> bool {
    has_functions(set.spec.targets.get(target))
}

/// The first target whose variants have pipeline functions.
pub fn first_with_functions(set: &PackageVariantSet) -> Option<usize> {
    set.spec.targets.iter().position(|t| has_functions(Some(t)))
}

/// What is wrong with `name` as the name of a variant of `spec.targets[target]`, as the
/// PackageVariant function would say it ([`names::package_variant_name_problem_with`]).
pub fn name_problem(set: &PackageVariantSet, target: usize, name: &str) -> Option<String> {
    names::package_variant_name_problem_with(name, target_has_functions(set, target))
}

/// The byte of `name` where its problem lies: its first dot when dots are refused, else its
/// first character no name holds, a dot that leaves a part empty, a `-` that starts or ends a
/// part; its last byte when none is found.
pub fn problem_at(name: &str, dots_refused: bool) -> usize {
    let b = name.as_bytes();
    let allowed = |c: u8| c.is_ascii_lowercase() || c.is_ascii_digit() || c == b'-' || c == b'.';
    let dot = if dots_refused {
        b.iter().position(|&c| c == b'.')
    } else {
        None
    };
    dot.or_else(|| b.iter().position(|&c| !allowed(c)))
        .or_else(|| {
            // Part boundaries: a '.' next to nothing, another '.', or a '-'.
            (0..b.len()).find(|&i| {
                let (before, here, after) = (
                    i.checked_sub(1).and_then(|j| b.get(j)),
                    b.get(i),
                    b.get(i + 1),
                );
                match here {
                    Some(b'.') => {
                        before.is_none_or(|&c| c == b'.' || c == b'-')
                            || after.is_none_or(|&c| c == b'.' || c == b'-')
                    }
                    Some(b'-') => before.is_none() || after.is_none(),
                    _ => false,
                }
            })
        })
        .unwrap_or(b.len().saturating_sub(1))
}

/// What to write instead of a dotted name of a variant of `spec.targets[target]`, which has
/// pipeline functions: `what` holds the dot (`repo`, `package`, or the set's `name`).
pub fn fix(target: usize, what: &str) -> String {
    let instead = match what {
        "repo" => "or choose downstream Repositories whose names have no \".\"",
        "package" => "or write the downstream package without \".\"",
        _ => "or name the set without \".\"",
    };
    format!("{}, {instead}", move_functions(target))
}

/// The fix every dotted name of a variant with pipeline functions has: no functions.
pub fn move_functions(target: usize) -> String {
    format!(
        "a variant without pipeline functions may have a dotted name: move the functions of \
         spec.targets[{target}].template.pipeline into the upstream package's Kptfile (every \
         variant inherits them)"
    )
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn where_the_problem_lies() {
        assert_eq!(problem_at("s-edge1.example.com-base", true), 7);
        assert_eq!(problem_at("s-edge1.example.com-base", false), 23);
        assert_eq!(problem_at("s-Edge1", false), 2);
        assert_eq!(problem_at("s-edge1.-1234", false), 7);
        assert_eq!(problem_at("s-edge1-.x", false), 8);
        assert_eq!(problem_at("s-a..b", false), 3);
        assert_eq!(problem_at("s-a-", false), 3);
        assert_eq!(problem_at("", false), 0);
    }

    #[test]
    fn fixes_name_the_pipeline_and_the_part() {
        assert!(fix(1, "repo").contains("spec.targets[1].template.pipeline"));
        assert!(fix(0, "package").ends_with("write the downstream package without \".\""));
        assert!(fix(0, "name").ends_with("name the set without \".\""));
    }
}
