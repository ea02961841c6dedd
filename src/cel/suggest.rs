//! "Did you mean" for the names an expression gets wrong: the closest of the names it could
//! have meant (a variable, a field of CEL's view of an object, a label key), and a bounded
//! list of what there is. Only error messages use this, so the bounds keep a hostile map of
//! many long keys from making an error slow to write.

/// Most names a message lists; the rest are counted.
pub const MAX_LISTED: usize = 20;
/// Most candidates compared with the name written, and the longest compared.
const MAX_COMPARED: usize = 10_000;
const MAX_COMPARED_LEN: usize = 256;

/// The fields of CEL's view of an object (`target`, `repository`, `upstream`), and of a
/// `repositories` target.
pub const OBJECT_FIELDS: [&str; 4] = ["annotations", "labels", "name", "namespace"];
pub const REPOSITORIES_TARGET_FIELDS: [&str; 2] = ["package", "repo"];

/// The edit distance between `a` and `b` (insertions, deletions, substitutions and swaps of
/// two neighbours, each 1), ignoring case; `None` past `limit`.
pub fn distance(a: &str, b: &str, limit: usize) -> Option<usize> {
    let lower = |s: &str| -> String { s.chars().flat_map(char::to_lowercase).collect() };
    crate::common::edit_distance::distance(&lower(a), &lower(b), limit)
}

/// The candidate closest to `written` (a third of its length apart at most, at least one),
/// the first of equally close ones.
pub fn closest<'c>(
    written: &str,
    candidates: impl IntoIterator<Item = &'c str>,
) -> Option<&'c str> {
    if written.len() > MAX_COMPARED_LEN {
        return None;
    }
    let limit = (written.chars().count() / 3).max(1);
    let mut best: Option<(usize, &str)> = None;
    for c in candidates.into_iter().take(MAX_COMPARED) {
        if c == written || c.len() > MAX_COMPARED_LEN {
            continue;
        }
        if let Some(d) = distance(written, c, limit) {
            if best.is_none_or(|(b, _)| d < b) {
                best = Some((d, c));
            }
        }
    }
    best.map(|(_, c)| c)
}

/// `names` (sorted by the caller) as `a, b, c`, the first [`MAX_LISTED`], then how many more.
pub fn listed<'n>(names: impl ExactSizeIterator<Item = &'n str>) -> String {
    let total = names.len();
    let mut out: Vec<String> = names.take(MAX_LISTED).map(str::to_string).collect();
    if total > MAX_LISTED {
        out.push(format!("and {} more", total - MAX_LISTED));
    }
    out.join(", ")
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn close_names_are_found() {
        assert_eq!(
            distance("traget", "target", 2),
            Some(1),
            "a swap is one edit"
        );
        assert_eq!(distance("nme", "name", 1), Some(1));
        assert_eq!(distance("Name", "name", 0), Some(0));
        assert_eq!(distance("abc", "xyz", 2), None);
        assert_eq!(
            closest("traget", ["repoDefault", "target", "upstream"]),
            Some("target")
        );
        assert_eq!(closest("nme", OBJECT_FIELDS), Some("name"));
        assert_eq!(closest("region", ["zone", "tier"]), None);
        assert_eq!(closest("x", ["y"]), Some("y"));
    }

    #[test]
    fn lists_are_bounded() {
        let names: Vec<String> = (0..25).map(|i| format!("k{i:02}")).collect();
        let text = listed(names.iter().map(String::as_str));
        assert!(text.starts_with("k00, k01"), "{text}");
        assert!(text.ends_with("k19, and 5 more"), "{text}");
    }
}
