//! Kubernetes object names: what the API server accepts as `metadata.name` of a PackageVariant
//! (a DNS-1123 subdomain), so that a name it would refuse is refused here first, with the
//! reason.

/// Longest DNS-1123 subdomain.
pub const MAX_SUBDOMAIN_LEN: usize = 253;

/// apimachinery's rule, in its words.
const RULE: &str = "a lowercase RFC 1123 subdomain must consist of lower case alphanumeric \
                    characters, '-' or '.', and must start and end with an alphanumeric character";

/// Why `name` is not a valid DNS-1123 subdomain, or `None` when it is one.
pub fn dns1123_subdomain(name: &str) -> Option<String> {
    let why = subdomain_problem(name)?;
    Some(format!("{why}; {RULE}"))
}

/// The first thing wrong with `name` as a DNS-1123 subdomain, without the rule.
pub fn subdomain_problem(name: &str) -> Option<String> {
    if name.is_empty() {
        return Some("it is empty".to_string());
    }
    if name.len() > MAX_SUBDOMAIN_LEN {
        return Some(format!(
            "it is {} characters long, more than {MAX_SUBDOMAIN_LEN}",
            name.len()
        ));
    }
    if let Some(why) = bad_character(name) {
        return Some(why);
    }
    for label in name.split('.') {
        if label.is_empty() {
            return Some(
                "it contains an empty part between dots (\"..\", or a dot at either end)"
                    .to_string(),
            );
        }
        if label.starts_with('-') || label.ends_with('-') {
            return Some(format!("its part {label:?} starts or ends with '-'"));
        }
    }
    None
}

/// What is wrong with `part` as one `-`-joined part of a generated name
/// (`<set>-<repo>-<package>`): a character a name cannot have, or a `.` that would make an
/// empty part or a part that starts or ends with `-`. `last`: the part ends the name, so it
/// must also end with a letter or digit.
pub fn name_part_problem(part: &str, last: bool) -> Option<String> {
    if let Some(why) = bad_character(part) {
        return Some(why);
    }
    if part.starts_with('.') || part.ends_with('.') || part.contains("..") {
        return Some("it has a '.' at its start or end, or two in a row".to_string());
    }
    if part.contains(".-") || part.contains("-.") {
        return Some("it has a '-' next to a '.'".to_string());
    }
    if last && part.ends_with('-') {
        return Some("it ends with '-'".to_string());
    }
    None
}

/// The first character a DNS-1123 subdomain cannot have, said with what to write instead.
fn bad_character(name: &str) -> Option<String> {
    let c = name
        .chars()
        .find(|c| !(c.is_ascii_lowercase() || c.is_ascii_digit() || *c == '-' || *c == '.'))?;
    Some(if c.is_ascii_uppercase() {
        format!(
            "it contains the upper-case letter {c:?} (write {:?})",
            name.to_ascii_lowercase()
        )
    } else {
        format!("it contains {c:?}")
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn subdomains() {
        for ok in ["a", "my-set-edge1-base", "a.b", "0-9", &"a".repeat(253)] {
            assert_eq!(subdomain_problem(ok), None, "{ok}");
        }
        let bad = [
            ("", "it is empty"),
            (
                "My-pv",
                "it contains the upper-case letter 'M' (write \"my-pv\")",
            ),
            ("a/b", "it contains '/'"),
            ("a_b", "it contains '_'"),
            ("a..b", "it contains an empty part between dots"),
            (".a", "it contains an empty part between dots"),
            ("a.", "it contains an empty part between dots"),
            ("-a", "its part \"-a\" starts or ends with '-'"),
            ("a.-b", "its part \"-b\" starts or ends with '-'"),
            ("é", "it contains 'é'"),
        ];
        for (name, why) in bad {
            let got = subdomain_problem(name).unwrap_or_default();
            assert!(got.starts_with(why), "{name}: {got}");
        }
        assert!(subdomain_problem(&"a".repeat(254)).is_some_and(|w| w.contains("254")));
        assert!(dns1123_subdomain("A").is_some_and(|w| w.ends_with(RULE)));
    }

    #[test]
    fn name_parts() {
        assert_eq!(name_part_problem("edge-1.east", true), None);
        assert_eq!(name_part_problem("-x-", false), None);
        assert!(name_part_problem("x-", true).is_some());
        assert!(name_part_problem("a/b", false).is_some_and(|w| w.contains("'/'")));
        assert!(name_part_problem("..", false).is_some());
        assert!(name_part_problem("a.", false).is_some());
        assert!(name_part_problem("a-.b", false).is_some());
        assert!(name_part_problem("Ab", false).is_some_and(|w| w.contains("\"ab\"")));
    }
}
