//! The names an injection source or an owned resource gives (name, namespace, kind, apiVersion,
//! repository), checked as the API server would check them before any of them becomes an
//! identity (a lookup, the `kpt.dev/injected-resource` annotation, a command in a message) or
//! part of a file path (`injected/<kind>-<namespace>-<name>.yaml`).
//!
//! Why: kpt only stops a path that leaves the package, so a namespace `../../outside/pwned`
//! would write an owned file into another folder of the package, and `a/b` into a subfolder.
//! A name the API server refuses never names anything in a cluster either: it is an error on
//! its field that says what to write, and nothing changes.
//!
//! The sources' names are rules on the spec alone ([`super::variant_rules`]), so a set never
//! emits a variant whose names the PackageVariant function would refuse; an owned resource
//! read from another package is checked when it is read.

use super::names;
use super::package_variant::InjectionEntry;
use super::Problem;
use serde_json::Value;

fn at(i: usize) -> String {
    format!("spec.injection[{i}]")
}

fn error(message: String, field: String) -> Problem {
    Problem { field, message }
}

/// What a value of each kind must be, said after "is not ...".
#[derive(Clone, Copy)]
enum Rule {
    /// `metadata.name`: a DNS-1123 subdomain.
    Name,
    /// `metadata.name` of an RBAC object: a path segment name (`system:viewer`).
    PathSegment,
    /// `metadata.namespace`: a DNS-1123 label.
    Namespace,
    Kind,
    ApiVersion,
}

impl Rule {
    /// Why `value` breaks the rule, said with what to write, or `None`.
    fn problem(self, value: &str) -> Option<String> {
        let (what, why) = match self {
            Rule::Name => ("a Kubernetes object name", names::dns1123_subdomain(value)?),
            Rule::PathSegment => ("an RBAC object name", names::path_segment_name(value)?),
            Rule::Namespace => ("a namespace", names::dns1123_label(value)?),
            Rule::Kind => ("a kind", names::kind(value)?),
            Rule::ApiVersion => ("an apiVersion", names::api_version(value)?),
        };
        Some(format!("{value:?} is not {what}: {why}"))
    }
}

/// The names of each entry's source, on their fields, in entry order: `clusterResource.name`,
/// `packageResource.repo`, `.name`, `.kind` and `.apiVersion` (an empty one is reported as
/// missing elsewhere, or means "the point's"), and the identity of a `directResource` added
/// as a whole resource ([`check_owned`]).
pub fn check_sources(entries: &[InjectionEntry]) -> Vec<Problem> {
    let mut out = Vec::new();
    for (i, e) in entries.iter().enumerate() {
        let mut fields: Vec<(String, &str, Rule)> = Vec::new();
        if let Some(c) = &e.cluster_resource {
            fields.push((
                format!("{}.clusterResource.name", at(i)),
                &c.name,
                Rule::Name,
            ));
        }
        if let Some(p) = &e.package_resource {
            let f = |k: &str| format!("{}.packageResource.{k}", at(i));
            fields.push((f("repo"), &p.repo, Rule::Name));
            fields.push((f("apiVersion"), &p.api_version, Rule::ApiVersion));
            fields.push((f("kind"), &p.kind, Rule::Kind));
            fields.push((f("name"), &p.name, Rule::Name));
        }
        // A whole resource added to the package: its identity names its file.
        if let Some(d) = e
            .direct_resource
            .as_ref()
            .filter(|_| e.binding_point.is_empty())
        {
            out.extend(check_owned(d, i, "directResource", ""));
        }
        for (field, value, rule) in fields {
            if value.is_empty() {
                continue;
            }
            if let Some(why) = rule.problem(value) {
                out.push(error(
                    format!("{why}; write it as `kubectl get` prints it"),
                    field,
                ));
            }
        }
    }
    out
}

/// The identity of the resource entry `i` adds to the package (`value`), checked before it
/// names a file: `apiVersion`, `kind`, `metadata.name` and `metadata.namespace` (when given).
/// `source` is the entry's source field (`directResource`, `packageResource`); `from` says
/// where the resource was read, for one read from another package (empty for an inline one).
pub fn check_owned(value: &Value, i: usize, source: &str, from: &str) -> Vec<Problem> {
    let mut out = Vec::new();
    let text = |p: &str| value.pointer(p).and_then(Value::as_str).unwrap_or("");
    let name_rule = if names::takes_path_segment_names(text("/apiVersion"), text("/kind")) {
        Rule::PathSegment
    } else {
        Rule::Name
    };
    for (pointer, field, rule) in [
        ("/apiVersion", "apiVersion", Rule::ApiVersion),
        ("/kind", "kind", Rule::Kind),
        ("/metadata/name", "metadata.name", name_rule),
        ("/metadata/namespace", "metadata.namespace", Rule::Namespace),
    ] {
        let Some(v) = value.pointer(pointer) else {
            continue;
        };
        // A control character (NUL, a line break, a tab, DEL, C1) would be in the file name
        // even where the API server takes it (an RBAC name): refused before any rule.
        let control = v.as_str().and_then(|s| s.chars().find(|c| c.is_control()));
        let problem = match v.as_str() {
            Some(s) if control.is_some() => control.map(|c| {
                format!(
                    "{s:?} holds the control character {c:?} (U+{:04X}), which no file name \
                     may hold",
                    u32::from(c)
                )
            }),
            Some("") if field == "metadata.namespace" => None,
            Some(s) => rule.problem(s),
            None if v.is_null() => None,
            None => Some(format!("{field} is {v}, not a string")),
        };
        let Some(why) = problem else { continue };
        let refuses = if control.is_some() {
            "which cannot become a file name"
        } else {
            "which the API server refuses"
        };
        out.push(if from.is_empty() {
            error(
                format!(
                    "{why}; the resource is added to the package under it: write a valid {field}"
                ),
                format!("{}.{source}.{field}", at(i)),
            )
        } else {
            error(
                format!(
                    "{from} has {field} {v}, {refuses}: {why}; it would be added to the \
                     package under it: fix it in that package, or add the resource as a \
                     directResource"
                ),
                format!("{}.{source}", at(i)),
            )
        });
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn owned_identities_that_would_leave_their_folder_are_refused() {
        let ok = json!({"apiVersion": "v1", "kind": "ConfigMap",
            "metadata": {"name": "a.b-c", "namespace": "team-a"}});
        assert!(check_owned(&ok, 0, "directResource", "").is_empty());
        for (pointer, bad) in [
            ("/metadata/namespace", "../../outside/pwned"),
            ("/metadata/name", "a/b"),
            ("/metadata/name", "UPPER"),
            ("/metadata/name", ".."),
            ("/kind", "../../X"),
            ("/apiVersion", "v1/../x"),
        ] {
            let mut v = ok.clone();
            *v.pointer_mut(pointer).unwrap() = json!(bad);
            let errors = check_owned(&v, 3, "directResource", "");
            assert_eq!(errors.len(), 1, "{bad}: {errors:?}");
            assert!(
                errors[0].message.contains(&format!("{bad:?}")),
                "{errors:?}"
            );
        }
    }

    #[test]
    fn rbac_names_follow_the_path_segment_rule() {
        let role = |name: &str| {
            json!({"apiVersion": "rbac.authorization.k8s.io/v1", "kind": "ClusterRole",
                "metadata": {"name": name}})
        };
        assert!(check_owned(&role("system:aggregate-to-view"), 0, "directResource", "").is_empty());
        for bad in ["a/b", "..", "50%"] {
            assert_eq!(
                check_owned(&role(bad), 0, "directResource", "").len(),
                1,
                "{bad}"
            );
        }
        // Another kind keeps the subdomain rule.
        let cm = json!({"apiVersion": "v1", "kind": "ConfigMap", "metadata": {"name": "a:b"}});
        assert_eq!(check_owned(&cm, 0, "directResource", "").len(), 1);
    }
}
