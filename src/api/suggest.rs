//! "Did you mean": the known name closest to one that is not known. One helper for every
//! message about a name or value outside a known set (unknown fields, closed sets of values
//! such as policies and selector operators, CEL references), so that they all suggest alike.
//!
//! - [`closest`]: the closest known name, or `None` when none is close.
//! - [`did_you_mean`]: `; did you mean "x"?`, or nothing, to append to a message.
//! - [`accepted`]: `"a", "b" or "c"`, the accepted values of a closed set, quoted.
//! - [`not_one_of`]: the whole message for a value outside a closed set.

use crate::common::edit_distance::distance;

/// The known name closest to `name`: equal but for case, or within a small edit distance
/// (1 for names up to 4 characters, 2 up to 9, 3 beyond), or else one that starts with the
/// other (`workspace`, `workspaceName`; at least 4 characters). Ties go to the earlier name.
pub fn closest<'a>(name: &str, known: impl Iterator<Item = &'a str>) -> Option<&'a str> {
    let lower = name.to_lowercase();
    let mut best: Option<(usize, &str)> = None;
    let mut prefixed: Option<&str> = None;
    for k in known {
        let k_lower = k.to_lowercase();
        let shorter = lower.len().min(k_lower.len());
        if prefixed.is_none()
            && shorter >= 4
            && (k_lower.starts_with(&lower) || lower.starts_with(&k_lower))
        {
            prefixed = Some(k);
        }
        if k_lower == lower {
            return Some(k);
        }
        let limit = match name.chars().count().min(k.chars().count()) {
            0..=4 => 1,
            5..=9 => 2,
            _ => 3,
        };
        if let Some(d) = distance(&lower, &k_lower, limit) {
            if best.is_none_or(|(b, _)| d < b) {
                best = Some((d, k));
            }
        }
    }
    best.map(|(_, k)| k).or(prefixed)
}

/// Work a run may spend on "did you mean" among names the input holds (there may be
/// 100,000s): comparisons charged by the cells of their distance table, so that a hint never
/// costs more than a bounded time; past it, no more suggestions.
#[derive(Debug)]
pub struct Budget(usize);

impl Default for Budget {
    /// 1,000,000 cells: about 5,000 comparisons of names of 14 characters (0.6 s more in a
    /// debug build for the 4,000 injectors of `tests/hints.rs` when all are spent; 2.7 s with
    /// 5,000,000).
    fn default() -> Self {
        Budget(1_000_000)
    }
}

/// [`closest`] among the `known` names the budget pays for, in order (each costs the product
/// of the two lengths, or its own length alone when they are too far apart to be compared).
pub fn closest_within<'a>(
    name: &str,
    known: impl Iterator<Item = &'a str>,
    budget: &mut Budget,
) -> Option<&'a str> {
    let paid = known.take_while(|k| {
        let cost = if k.len().abs_diff(name.len()) > 3 {
            k.len() + name.len()
        } else {
            name.len().max(1) * k.len().max(1)
        };
        budget.0 = budget.0.saturating_sub(cost.max(1));
        budget.0 > 0
    });
    closest(name, paid)
}

/// `; did you mean "x"?` when a known name is close to `name` (see [`closest`]), else empty.
pub fn did_you_mean(name: &str, known: &[&str]) -> String {
    closest(name, known.iter().copied())
        .map(|k| format!("; did you mean {k:?}?"))
        .unwrap_or_default()
}

/// The values of a closed set, each quoted, joined with commas and a final "or":
/// `"In", "NotIn", "Exists" or "DoesNotExist"`.
pub fn accepted(values: &[&str]) -> String {
    let quoted: Vec<String> = values.iter().map(|v| format!("{v:?}")).collect();
    match quoted.split_last() {
        Some((last, rest)) if !rest.is_empty() => format!("{} or {last}", rest.join(", ")),
        Some((last, _)) => last.clone(),
        None => String::new(),
    }
}

/// `"Required" is not one of the accepted values "required" or "optional"; did you mean
/// "required"?`: a value outside a closed set, what the set is, and the closest value.
pub fn not_one_of(value: &str, values: &[&str]) -> String {
    format!(
        "{value:?} is not one of the accepted values {}{}",
        accepted(values),
        did_you_mean(value, values)
    )
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn case_first_then_edits_then_prefixes() {
        assert_eq!(
            closest("Required", ["optional", "required"].into_iter()),
            Some("required")
        );
        assert_eq!(
            closest("adoptexisting", ["adoptNone", "adoptExisting"].into_iter()),
            Some("adoptExisting")
        );
        assert_eq!(
            closest(
                "Exist",
                ["In", "NotIn", "Exists", "DoesNotExist"].into_iter()
            ),
            Some("Exists")
        );
        assert_eq!(
            closest("frobnicate", ["orphan", "delete"].into_iter()),
            None
        );
    }

    #[test]
    fn messages() {
        assert_eq!(
            did_you_mean("Orphan", &["orphan", "delete"]),
            "; did you mean \"orphan\"?"
        );
        assert_eq!(did_you_mean("x", &["orphan", "delete"]), "");
        assert_eq!(accepted(&["a"]), "\"a\"");
        assert_eq!(accepted(&["a", "b", "c"]), "\"a\", \"b\" or \"c\"");
        assert_eq!(
            not_one_of("Required", &["required", "optional"]),
            "\"Required\" is not one of the accepted values \"required\" or \"optional\"; did you mean \"required\"?"
        );
    }

    #[test]
    fn the_budget_bounds_the_names_compared() {
        let names: Vec<String> = (0..1000).map(|i| format!("name-{i:04}")).collect();
        let known = || names.iter().map(String::as_str);
        assert_eq!(
            closest_within("name-0999x", known(), &mut Budget::default()),
            Some("name-0999")
        );
        let mut small = Budget(9 * 10 * 10);
        assert_eq!(closest_within("name-0999x", known(), &mut small), None);
        assert_eq!(closest_within("name-0000x", known(), &mut small), None);
    }

    #[test]
    fn a_long_name_costs_no_more_than_its_length() {
        let long = "x".repeat(1 << 20);
        assert_eq!(closest(&long, ["orphan", "delete"].into_iter()), None);
    }
}
