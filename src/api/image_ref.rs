//! A function image reference as kpt v1.0.1 checks it before it runs a Kptfile
//! (`ValidateFunctionImageURL`: `github.com/distribution/reference`'s `Parse`, kptdev/kpt
//! `api/kptfile/v1/validation.go` at 00a08c1a): `name[:tag][@digest]`, the name lower-case
//! path components with an optional registry host and port, at most 255 bytes.

use std::sync::OnceLock;

use regex::Regex;

/// distribution/reference's `NameTotalLengthMax`.
const NAME_MAX: usize = 255;

/// `ReferenceRegexp` of distribution/reference, anchored: name, tag, digest.
fn grammar() -> &'static Regex {
    static RE: OnceLock<Regex> = OnceLock::new();
    RE.get_or_init(|| {
        let alnum = "[a-z0-9]+";
        let separator = "(?:[._]|__|[-]+)";
        let component = format!("{alnum}(?:{separator}{alnum})*");
        let domain_component = "(?:[a-zA-Z0-9]|[a-zA-Z0-9][a-zA-Z0-9-]*[a-zA-Z0-9])";
        let domain_name = format!("{domain_component}(?:\\.{domain_component})*");
        let host = format!("(?:{domain_name}|\\[(?:[a-fA-F0-9:]+)\\])");
        let domain = format!("{host}(?::[0-9]+)?");
        let name = format!("(?:{domain}/)?{component}(?:/{component})*");
        let tag = "[\\w][\\w.-]{0,127}";
        let digest = "[A-Za-z][A-Za-z0-9]*(?:[-_+.][A-Za-z][A-Za-z0-9]*)*:[0-9a-fA-F]{32,}";
        Regex::new(&format!("^({name})(?::({tag}))?(?:@({digest}))?$"))
            .unwrap_or_else(|_| Regex::new("^$").expect("an empty pattern compiles"))
    })
}

/// Why distribution/reference refuses `image` (its error text), `None` when it parses.
pub fn problem(image: &str) -> Option<String> {
    if image.is_empty() {
        return Some("repository name must have at least one component".into());
    }
    let Some(caps) = grammar().captures(image) else {
        // distribution's own order: a name that would parse in lower case is "must be
        // lowercase", anything else "invalid reference format".
        let lower = image.to_ascii_lowercase();
        return Some(
            if lower != image && grammar().is_match(&lower) {
                "repository name must be lowercase"
            } else {
                "invalid reference format"
            }
            .into(),
        );
    };
    let name = caps.get(1).map_or("", |m| m.as_str());
    if name.len() > NAME_MAX {
        return Some(format!(
            "repository name must not be more than {NAME_MAX} characters"
        ));
    }
    if let Some(d) = caps.get(3) {
        let (algorithm, hex) = d.as_str().split_once(':').unwrap_or(("", ""));
        let want = match algorithm {
            "sha256" => 64,
            "sha384" => 96,
            "sha512" => 128,
            _ => return Some("unsupported digest algorithm".into()),
        };
        if hex.len() != want || hex.bytes().any(|b| b.is_ascii_uppercase()) {
            return Some("invalid checksum digest format".into());
        }
    }
    None
}

#[cfg(test)]
mod tests {
    use super::problem;

    #[test]
    fn references_as_distribution_reads_them() {
        for ok in [
            "set-labels",
            "ghcr.io/kptdev/krm-functions-catalog/set-labels:v0.2.0",
            "localhost:5000/fn:latest",
            "gcr.io/kpt-fn/apply-setters:v0.1",
            "ghcr.io/package-variant/package-variant:v0.1.0",
            "x",
            "a/b@sha256:0123456789abcdef0123456789abcdef0123456789abcdef0123456789abcdef",
        ] {
            assert_eq!(problem(ok), None, "{ok}");
        }
        for (bad, why) in [
            ("Set-Labels", "repository name must be lowercase"),
            ("set labels", "invalid reference format"),
            ("fn:", "invalid reference format"),
            ("-fn", "invalid reference format"),
            ("fn@sha256:abc", "invalid reference format"),
            (
                "fn@md5:0123456789abcdef0123456789abcdef",
                "unsupported digest algorithm",
            ),
        ] {
            assert_eq!(problem(bad).as_deref(), Some(why), "{bad}");
        }
    }
}
