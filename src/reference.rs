//! The functionConfig field reference that `--help` prints, rendered from `api::schema`: the
//! same trees strict decoding walks, generated from the CRDs in `fnconfig/schemas/`, so the
//! reference cannot drift from what the function accepts.

use package_variant::api::package_variant::EXTENSION_API_VERSION;
use package_variant::api::schema::{self, Field, Schema};

/// Width the descriptions are wrapped to.
const WIDTH: usize = 96;

/// The reference of every functionConfig kind: each field's path, type, whether it is
/// required, and its description. `metadata` is Kubernetes ObjectMeta and `status` is Porch's,
/// so their fields are not listed.
pub fn render() -> String {
    let mut out = String::from(
        "FUNCTIONCONFIG REFERENCE\n  Every field the function accepts; any other field is an error (\"[]\" marks list items).\n",
    );
    for kind in schema::kinds() {
        out.push_str(&format!("\n{} ({})\n", kind.kind(), kind.api_version()));
        // An extension kind lists only what it adds to Porch's kind of the same name.
        let porch = (kind.api_version() == EXTENSION_API_VERSION)
            .then(|| schema::kinds().iter().find(|k| k.kind() == kind.kind()))
            .flatten();
        let porch_paths: Vec<String> = porch.map_or_else(Vec::new, |p| {
            p.root().fields().into_iter().map(|f| f.path).collect()
        });
        let fields = kind.root().fields();
        let own: Vec<&Field> = fields
            .iter()
            .filter(|f| listed(f) && !porch_paths.contains(&f.path))
            .collect();
        if let Some(p) = porch {
            let plus = if own.is_empty() { "" } else { ", plus" };
            out.push_str(&format!(
                "  Every field of {} ({}){plus} (docs/extensions.md):\n",
                p.kind(),
                p.api_version()
            ));
        }
        // A subtree equal to one listed before it (validators' and mutators' functions, say)
        // is named once: later copies point at the first.
        let mut subtrees: Vec<(&Schema, &str)> = Vec::new();
        let mut skipping: Option<String> = None;
        for field in own {
            if let Some(prefix) = &skipping {
                if field.path.starts_with(&format!("{prefix}."))
                    || field.path.starts_with(&format!("{prefix}[]"))
                {
                    continue;
                }
                skipping = None;
            }
            let flag = match required_by_validation(kind.kind(), &field.path) {
                _ if field.required => ", required",
                Some(flag) => flag,
                None => "",
            };
            let ty = match field.path.as_str() {
                "metadata" => "Kubernetes ObjectMeta".to_string(),
                // The schema takes any value there; the rollout reads an int or a "P%".
                "spec.rollout.maxUpgrades" => "integer or string".to_string(),
                _ => field.schema.type_name(),
            };
            out.push_str(&format!("  {} ({ty}{flag})\n", field.path));
            let first = has_subtree(field.schema)
                .then(|| subtrees.iter().find(|(s, _)| *s == field.schema))
                .flatten();
            match first {
                Some((_, first)) => {
                    wrap(
                        &format!("{} {SAME_FIELDS} {first}.", field.schema.description()),
                        "      ",
                        &mut out,
                    );
                    skipping = Some(field.path.clone());
                }
                None => {
                    if has_subtree(field.schema) {
                        subtrees.push((field.schema, &field.path));
                    }
                    wrap(field.schema.description(), "      ", &mut out);
                }
            }
        }
    }
    out
}

/// How the reference points a subtree at the first one equal to it.
const SAME_FIELDS: &str = "The fields as under";

/// Whether a field has fields of its own below it (an object's, or a list's items').
fn has_subtree(schema: &Schema) -> bool {
    schema.properties().next().is_some()
        || schema
            .items()
            .is_some_and(|items| items.properties().next().is_some())
}

/// Fields Porch's validation requires though its CRD schema does not mark them (the schema is
/// Porch's and stays as it is): the kind, the field path, and how `--help` marks it.
/// tests/help.rs leaves each out of a working functionConfig and expects it refused.
pub const REQUIRED_BY_VALIDATION: &[(&str, &str, &str)] = &[
    ("PackageVariant", "spec.upstream", ", required"),
    ("PackageVariant", "spec.upstream.repo", ", required"),
    ("PackageVariant", "spec.upstream.package", ", required"),
    ("PackageVariant", "spec.downstream", ", required"),
    ("PackageVariant", "spec.downstream.repo", ", required"),
    ("PackageVariant", "spec.downstream.package", ", required"),
    ("PackageVariantSet", "spec.upstream", ", required"),
    ("PackageVariantSet", "spec.upstream.repo", ", required"),
    ("PackageVariantSet", "spec.upstream.package", ", required"),
    (
        "PackageVariantSet",
        "spec.upstream.revision",
        ", required unless workspaceName is given",
    ),
    (
        "PackageVariantSet",
        "spec.upstream.workspaceName",
        ", required unless revision is given",
    ),
    (
        "PackageVariantSet",
        "spec.targets",
        ", required, at least one",
    ),
    // The extension's (only its kind lists them).
    ("PackageVariantSet", "spec.upstreams[].repo", ", required"),
    (
        "PackageVariantSet",
        "spec.upstreams[].package",
        ", required",
    ),
    (
        "PackageVariantSet",
        "spec.upstreams[].tag",
        ", required unless revision or workspaceName is given",
    ),
];

fn required_by_validation(kind: &str, path: &str) -> Option<&'static str> {
    REQUIRED_BY_VALIDATION
        .iter()
        .find(|(k, p, _)| *k == kind && *p == path)
        .map(|(_, _, flag)| *flag)
}

/// Fields under `metadata` and `status` are not the function's to document.
fn listed(field: &Field<'_>) -> bool {
    !(field.path.starts_with("metadata.")
        || field.path == "status"
        || field.path.starts_with("status."))
}

/// `text` wrapped at [`WIDTH`], each line starting with `indent`.
fn wrap(text: &str, indent: &str, out: &mut String) {
    let mut line = String::new();
    for word in text.split_whitespace() {
        if !line.is_empty() && indent.len() + line.len() + 1 + word.len() > WIDTH {
            out.push_str(&format!("{indent}{line}\n"));
            line.clear();
        }
        if !line.is_empty() {
            line.push(' ');
        }
        line.push_str(word);
    }
    if !line.is_empty() {
        out.push_str(&format!("{indent}{line}\n"));
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The section of `kind` in the reference.
    fn section<'t>(text: &'t str, kind: &schema::Kind) -> &'t str {
        let start = text
            .find(&format!("\n{} ({})\n", kind.kind(), kind.api_version()))
            .unwrap();
        let end = text[start + 1..]
            .find("\n\n")
            .map_or(text.len(), |i| start + 1 + i);
        &text[start..end]
    }

    #[test]
    fn every_accepted_field_is_in_the_reference_once() {
        let text = render();
        let mut total = 0;
        for kind in schema::kinds() {
            let section = section(&text, kind);
            // An extension kind lists the fields it adds; Porch's are under Porch's kind.
            let porch = schema::kinds()
                .iter()
                .find(|k| k.kind() == kind.kind() && k.api_version() != EXTENSION_API_VERSION)
                .filter(|_| kind.api_version() == EXTENSION_API_VERSION);
            let porch_paths: Vec<String> = porch.map_or_else(Vec::new, |p| {
                p.root().fields().into_iter().map(|f| f.path).collect()
            });
            if porch.is_some() {
                assert!(section.contains("  Every field of "), "{section}");
            }
            let fields = kind.root().fields();
            let own = fields
                .iter()
                .filter(|f| listed(f) && !porch_paths.contains(&f.path));
            // Subtrees pointed at an equal one listed before: (path, the first's path).
            let mut same: Vec<(String, String)> = Vec::new();
            let lines: Vec<&str> = section.lines().collect();
            for (i, l) in lines.iter().enumerate() {
                let Some(path) = l.strip_prefix("  ").and_then(|l| l.split(' ').next()) else {
                    continue;
                };
                let text: String = lines[i + 1..]
                    .iter()
                    .take_while(|d| d.starts_with("      "))
                    .map(|d| d.trim())
                    .collect::<Vec<_>>()
                    .join(" ");
                if let Some((_, first)) = text.split_once(&format!("{SAME_FIELDS} ")) {
                    same.push((path.to_string(), first.trim_end_matches('.').to_string()));
                }
            }
            for field in own {
                total += 1;
                // A field under a subtree pointed elsewhere is listed there (which may point
                // further).
                let mut path = field.path.clone();
                while let Some((p, first)) = same
                    .iter()
                    .find(|(p, _)| path.len() > p.len() && path.starts_with(p.as_str()))
                {
                    path = format!("{first}{}", &path[p.len()..]);
                }
                let line = format!("\n  {path} (");
                assert_eq!(
                    section.matches(&line).count(),
                    1,
                    "{} {}",
                    kind.kind(),
                    field.path
                );
            }
        }
        assert!(total > 100, "only {total} fields");
    }

    #[test]
    fn types_and_required_fields_read_as_written() {
        let text = render();
        for line in [
            "\n  spec.upstream.revision (integer)\n",
            "\n  spec.injectors[].name (string, required)\n",
            "\n  spec.labels (map of string)\n",
            "\n  spec.targets (list of object, required, at least one)\n",
            "\n  metadata (Kubernetes ObjectMeta)\n",
            "\nConfigMap (v1)\n",
        ] {
            assert!(text.contains(line), "{line:?} not in\n{text}");
        }
        assert!(!text.contains("metadata.uid"));
    }

    #[test]
    fn descriptions_wrap_under_their_field() {
        let mut out = String::new();
        wrap("one two three", "    ", &mut out);
        assert_eq!(out, "    one two three\n");
        let mut out = String::new();
        wrap(&"word ".repeat(40), "  ", &mut out);
        assert!(out
            .lines()
            .all(|l| l.len() <= WIDTH && l.starts_with("  word")));
        assert_eq!(out.split_whitespace().count(), 40);
    }
}
