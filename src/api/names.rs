//! Kubernetes names: what the API server accepts as `metadata.name` of a PackageVariant (a
//! DNS-1123 subdomain), as a namespace (a DNS-1123 label), as a label value, an API group,
//! version and kind, so that a name it would refuse is refused here first, with the reason.
//! And the one rule of our own on a PackageVariant's name (no `.`), which both the
//! PackageVariant function and the set's expander apply. And Porch's cut of a name too long
//! for its limit ([`cut_with_hash`]), which both use too.

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
    Some(bad_char_text(name, c))
}

/// `c` found in `name`, said with what to write instead when it is an upper-case letter.
fn bad_char_text(name: &str, c: char) -> String {
    if c.is_ascii_uppercase() {
        format!(
            "it contains the upper-case letter {c:?} (write {:?})",
            name.to_ascii_lowercase()
        )
    } else {
        format!("it contains {c:?}")
    }
}

/// Longest DNS-1123 label (a namespace), label value, or kind.
pub const MAX_LABEL_LEN: usize = 63;

/// Why `name` is not a DNS-1123 label (what a namespace must be), or `None`.
pub fn dns1123_label(name: &str) -> Option<String> {
    let why = if name.is_empty() {
        "it is empty".to_string()
    } else if name.len() > MAX_LABEL_LEN {
        format!(
            "it is {} characters long, more than {MAX_LABEL_LEN}",
            name.len()
        )
    } else if let Some(c) = name
        .chars()
        .find(|c| !(c.is_ascii_lowercase() || c.is_ascii_digit() || *c == '-'))
    {
        bad_char_text(name, c)
    } else if name.starts_with('-') || name.ends_with('-') {
        "it starts or ends with '-'".to_string()
    } else {
        return None;
    };
    Some(format!(
        "{why}; a lowercase RFC 1123 label must consist of lower case alphanumeric characters \
         or '-', and must start and end with an alphanumeric character"
    ))
}

/// Why `value` is not a valid label value, or `None`: at most 63 characters, alphanumerics,
/// `-`, `_` and `.`, starting and ending with an alphanumeric (or empty).
pub fn label_value(value: &str) -> Option<String> {
    let why = if value.len() > MAX_LABEL_LEN {
        format!(
            "it is {} characters long, more than {MAX_LABEL_LEN}",
            value.len()
        )
    } else if let Some(c) = value
        .chars()
        .find(|c| !(c.is_ascii_alphanumeric() || matches!(c, '-' | '_' | '.')))
    {
        format!("it contains {c:?}")
    } else if value.starts_with(['-', '_', '.']) || value.ends_with(['-', '_', '.']) {
        "it starts or ends with '-', '_' or '.'".to_string()
    } else {
        return None;
    };
    Some(format!(
        "{why}; a valid label value must be 63 characters or less and consist of alphanumeric \
         characters, '-', '_' or '.', starting and ending with an alphanumeric character"
    ))
}

/// Why `api_version` (`group/version` or a core `version`) is not one the API server serves
/// under, or `None`: the group a DNS-1123 subdomain, the version a DNS-1035 label (`v1`,
/// `v1alpha1`).
pub fn api_version(api_version: &str) -> Option<String> {
    let (group, version) = match api_version.split_once('/') {
        Some((g, v)) => (Some(g), v),
        None => (None, api_version),
    };
    if let Some(g) = group {
        if let Some(why) = subdomain_problem(g) {
            return Some(format!(
                "its group {g:?} is not a DNS-1123 subdomain: {why}"
            ));
        }
    }
    dns1035_label(version).map(|why| {
        format!("its version {version:?} is not a DNS-1035 label (such as \"v1\" or \"v1alpha1\"): {why}")
    })
}

/// Why `kind` is not a kind name, or `None`: the API server takes a kind whose lower case is a
/// DNS-1035 label (`ConfigMap`, `WorkloadCluster`).
pub fn kind(kind: &str) -> Option<String> {
    dns1035_label(&kind.to_ascii_lowercase()).map(|why| {
        format!("a kind is a letter then letters and digits (such as \"ConfigMap\"): {why}")
    })
}

/// Why `name` is not a path segment name, or `None`: the rule the API server holds the names
/// of RBAC objects to (Role, ClusterRole and their bindings, `system:aggregate-to-edit`): not
/// empty, not `.` or `..`, and no `/` or `%`.
pub fn path_segment_name(name: &str) -> Option<String> {
    match name {
        "" => Some("it is empty".to_string()),
        "." | ".." => Some(format!("it may not be {name:?}")),
        _ => name
            .chars()
            .find(|c| matches!(c, '/' | '%'))
            .map(|c| format!("it may not contain {c:?}")),
    }
}

/// Whether the API server holds names of `kind` in `api_version` to [`path_segment_name`]
/// rather than to a DNS-1123 subdomain.
pub fn takes_path_segment_names(api_version: &str, kind: &str) -> bool {
    api_version.starts_with("rbac.authorization.k8s.io/")
        && matches!(
            kind,
            "Role" | "ClusterRole" | "RoleBinding" | "ClusterRoleBinding"
        )
}

/// The first thing wrong with `name` as a DNS-1035 label (lower case, a letter first).
fn dns1035_label(name: &str) -> Option<String> {
    if name.is_empty() {
        return Some("it is empty".to_string());
    }
    if name.len() > MAX_LABEL_LEN {
        return Some(format!(
            "it is {} characters long, more than {MAX_LABEL_LEN}",
            name.len()
        ));
    }
    if let Some(c) = name
        .chars()
        .find(|c| !(c.is_ascii_lowercase() || c.is_ascii_digit() || *c == '-'))
    {
        return Some(format!("it contains {c:?}"));
    }
    if !name.starts_with(|c: char| c.is_ascii_lowercase()) {
        return Some("it does not start with a letter".to_string());
    }
    if name.ends_with('-') {
        return Some("it ends with '-'".to_string());
    }
    None
}

/// What is wrong with `name` as the name of a PackageVariant, said after
/// `PackageVariant name "<name>" `, or `None`: a name Kubernetes refuses, or a `.` in it,
/// which Porch's pipeline handling cannot take (the generated function names
/// `PackageVariant.<pv>.<fn>.<i>` must split into exactly four parts to be recognised, and
/// replaced, on the next run; Porch piles up a copy per run instead). The PackageVariant
/// function refuses such a name, and the set's expander refuses to make one.
pub fn package_variant_name_problem(name: &str) -> Option<String> {
    if name.contains('.') {
        return Some(format!(
            "must not contain \".\": its pipeline functions \
             (PackageVariant.{name}.<function>.<index>) would not be recognised on the next \
             run and would pile up"
        ));
    }
    dns1123_subdomain(name).map(|why| format!("is not a valid Kubernetes name: {why}"))
}

/// [`package_variant_name_problem`] for a PackageVariant that has pipeline functions or not:
/// without any, a `.` splits nothing and the name is Porch's rule alone (a DNS subdomain, as
/// Repository names such as `edge1.example.com` are).
pub fn package_variant_name_problem_with(name: &str, has_functions: bool) -> Option<String> {
    if has_functions {
        package_variant_name_problem(name)
    } else {
        dns1123_subdomain(name).map(|why| format!("is not a valid Kubernetes name: {why}"))
    }
}

/// Porch's cut for any limit: `text` if it is at most `max` bytes, else its first `max - 9`
/// bytes (on a character boundary), `-`, and the first 8 lowercase hex digits of the SHA-1 of
/// the whole. Deterministic, so the same long text is cut to the same short one every run.
pub fn cut_with_hash(text: &str, max: usize) -> String {
    if text.len() <= max {
        return text.to_string();
    }
    let mut cut = max.saturating_sub(9);
    while !text.is_char_boundary(cut) {
        cut -= 1;
    }
    let prefix = text.get(..cut).unwrap_or_default();
    let hash = sha1_smol::Sha1::from(text).digest().to_string();
    let hash8 = hash.get(..8).unwrap_or(&hash);
    format!("{prefix}-{hash8}")
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

    #[test]
    fn labels_versions_kinds_and_package_variant_names() {
        assert_eq!(dns1123_label("team-a"), None);
        for bad in ["", "Team", "a.b", "-a", "$(touch x) x", &"a".repeat(64)] {
            assert!(dns1123_label(bad).is_some(), "{bad}");
        }
        assert_eq!(label_value(""), None);
        assert_eq!(label_value("5d1c7a4e-0000_4000.8"), None);
        for bad in ["-a", "a b", &"a".repeat(64)] {
            assert!(label_value(bad).is_some(), "{bad}");
        }
        for ok in ["v1", "apps/v1", "infra.example.com/v1alpha1"] {
            assert_eq!(api_version(ok), None, "{ok}");
        }
        for bad in ["", "v1 x", "a/b/c", "$(x)/v1", "example.com/", "1v"] {
            assert!(api_version(bad).is_some(), "{bad}");
        }
        assert_eq!(kind("ConfigMap"), None);
        for bad in ["", "Config Map", "9Lives", "a;b"] {
            assert!(kind(bad).is_some(), "{bad}");
        }
        assert_eq!(package_variant_name_problem("s-edge1-base"), None);
        assert!(package_variant_name_problem("s-edge1.example.com-base")
            .is_some_and(|w| w.starts_with("must not contain \".\"")));
        assert!(package_variant_name_problem("S")
            .is_some_and(|w| w.starts_with("is not a valid Kubernetes name")));
    }
}
