//! Kubernetes label selectors (`metav1.LabelSelector`) as Porch's PackageVariantSet uses them for
//! `repositorySelector` and `objectSelector`.
//!
//! Matching and errors follow apimachinery's `LabelSelectorAsSelector` and `NewRequirement`:
//! an empty selector matches everything, requirements are ANDed, a bad operator or an invalid
//! key/value is an error with apimachinery's wording. Hand-written rather than pulled from
//! kube-core (see the dependency notes: +43 s build for ~100 lines).

pub use crate::api::label_selector::{LabelSelector, LabelSelectorRequirement};
use crate::api::suggest;

/// The operators a `matchExpressions` requirement accepts.
pub const OPERATORS: &[&str] = &["In", "NotIn", "Exists", "DoesNotExist"];

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Operator {
    In,
    NotIn,
    Exists,
    DoesNotExist,
}

/// One requirement of a selector (`env=prod`, `region in (a,b)`, `site`, `!site`).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Requirement {
    key: String,
    operator: Operator,
    values: Vec<String>,
}

impl Requirement {
    /// The label key it reads.
    pub fn key(&self) -> &str {
        &self.key
    }

    /// The values it wants the label to have (`In` and matchLabels); empty for the others.
    pub fn wanted(&self) -> &[String] {
        match self.operator {
            Operator::In => &self.values,
            _ => &[],
        }
    }

    /// Whether a label value (`None`: no such label) meets it.
    pub fn holds(&self, value: Option<&str>) -> bool {
        let listed = |v: &str| self.values.iter().any(|x| x == v);
        match self.operator {
            Operator::In => value.is_some_and(listed),
            Operator::NotIn => value.is_none_or(|v| !listed(v)),
            Operator::Exists => value.is_some(),
            Operator::DoesNotExist => value.is_none(),
        }
    }

    /// As kubectl writes it: `env=prod`, `region in (a,b)`, `env notin (dev)`, `site`, `!site`.
    pub fn text(&self) -> String {
        match (self.operator, self.values.as_slice()) {
            (Operator::In, [one]) => format!("{}={one}", self.key),
            (Operator::In, many) => format!("{} in ({})", self.key, many.join(",")),
            (Operator::NotIn, many) => format!("{} notin ({})", self.key, many.join(",")),
            (Operator::Exists, _) => self.key.clone(),
            (Operator::DoesNotExist, _) => format!("!{}", self.key),
        }
    }
}

/// A validated selector, ready to match label maps.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct CompiledSelector {
    requirements: Vec<Requirement>,
}

impl LabelSelector {
    /// Validates the selector as `LabelSelectorAsSelector` does. The first bad requirement is
    /// reported (matchLabels first, in key order, then matchExpressions in list order).
    pub fn compile(&self) -> Result<CompiledSelector, String> {
        let mut requirements =
            Vec::with_capacity(self.match_labels.len() + self.match_expressions.len());
        for (key, value) in &self.match_labels {
            // matchLabels are `Equals` requirements; same semantics as `In [value]`.
            requirements.push(new_requirement(
                key,
                Operator::In,
                std::slice::from_ref(value),
            )?);
        }
        for expr in &self.match_expressions {
            let operator = match expr.operator.as_str() {
                "In" => Operator::In,
                "NotIn" => Operator::NotIn,
                "Exists" => Operator::Exists,
                "DoesNotExist" => Operator::DoesNotExist,
                other => {
                    return Err(format!(
                        "{other:?} is not a valid label selector operator; the operators are {}{}",
                        suggest::accepted(OPERATORS),
                        suggest::did_you_mean(other, OPERATORS)
                    ))
                }
            };
            requirements.push(new_requirement(&expr.key, operator, &expr.values)?);
        }
        Ok(CompiledSelector { requirements })
    }
}

impl CompiledSelector {
    /// True when every requirement holds for `labels`.
    pub fn matches<'l>(&self, labels: &dyn Fn(&str) -> Option<&'l str>) -> bool {
        self.requirements.iter().all(|r| r.holds(labels(&r.key)))
    }

    /// Its requirements, matchLabels first (in key order), then matchExpressions.
    pub fn requirements(&self) -> &[Requirement] {
        &self.requirements
    }

    /// The first requirement `labels` fails, if any.
    pub fn first_miss<'l>(&self, labels: &dyn Fn(&str) -> Option<&'l str>) -> Option<&Requirement> {
        self.requirements.iter().find(|r| !r.holds(labels(&r.key)))
    }

    /// Matches the `metadata.labels` of a JSON object (absent or non-map labels = no labels).
    pub fn matches_object(&self, object: &serde_json::Value) -> bool {
        let labels =
            crate::krm::object::json_at(object, "/metadata/labels").and_then(|l| l.as_object());
        self.matches(&|key| labels.and_then(|m| m.get(key)).and_then(|v| v.as_str()))
    }
}

/// `labels.NewRequirement`: validates key, value count and values; all problems are aggregated.
fn new_requirement(
    key: &str,
    operator: Operator,
    values: &[String],
) -> Result<Requirement, String> {
    let mut errs = Vec::new();
    let key_errs = qualified_name_errors(key);
    if !key_errs.is_empty() {
        errs.push(format!(
            "key: Invalid value: {key:?}: {}",
            key_errs.join("; ")
        ));
    }
    match operator {
        Operator::In | Operator::NotIn if values.is_empty() => errs.push(
            "values: Invalid value: []string(nil): for 'in', 'notin' operators, values set can't be empty".to_string(),
        ),
        Operator::Exists | Operator::DoesNotExist if !values.is_empty() => errs.push(format!(
            "values: Invalid value: {}: values set must be empty for exists and does not exist",
            go_string_slice(values)
        )),
        _ => {}
    }
    for (i, v) in values.iter().enumerate() {
        let value_errs = label_value_errors(v);
        if !value_errs.is_empty() {
            errs.push(format!(
                "values[{i}]: Invalid value: {v:?}: {}",
                value_errs.join("; ")
            ));
        }
    }
    match errs.len() {
        0 => Ok(Requirement {
            key: key.to_string(),
            operator,
            values: values.to_vec(),
        }),
        1 => Err(errs.remove(0)),
        _ => Err(format!("[{}]", errs.join(", "))),
    }
}

/// Go's `%#v` of a `[]string`.
fn go_string_slice(values: &[String]) -> String {
    let items: Vec<String> = values.iter().map(|v| format!("{v:?}")).collect();
    format!("[]string{{{}}}", items.join(", "))
}

const QUALIFIED_NAME_MSG: &str = "must consist of alphanumeric characters, '-', '_' or '.', and must start and end with an alphanumeric character (e.g. 'MyName',  or 'my.name',  or '123-abc', regex used for validation is '([A-Za-z0-9][-A-Za-z0-9_.]*)?[A-Za-z0-9]')";
const LABEL_VALUE_MSG: &str = "a valid label must be an empty string or consist of alphanumeric characters, '-', '_' or '.', and must start and end with an alphanumeric character (e.g. 'MyValue',  or 'my_value',  or '12345', regex used for validation is '(([A-Za-z0-9][-A-Za-z0-9_.]*)?[A-Za-z0-9])?')";
const DNS1123_SUBDOMAIN_MSG: &str = "a lowercase RFC 1123 subdomain must consist of lower case alphanumeric characters, '-' or '.', and must start and end with an alphanumeric character (e.g. 'example.com', regex used for validation is '[a-z0-9]([-a-z0-9]*[a-z0-9])?(\\.[a-z0-9]([-a-z0-9]*[a-z0-9])?)*')";

/// `([A-Za-z0-9][-A-Za-z0-9_.]*)?[A-Za-z0-9]`
fn is_qualified_name_part(s: &str) -> bool {
    let b = s.as_bytes();
    match (b.first(), b.last()) {
        (Some(f), Some(l)) => {
            f.is_ascii_alphanumeric()
                && l.is_ascii_alphanumeric()
                && b.iter()
                    .all(|c| c.is_ascii_alphanumeric() || matches!(c, b'-' | b'_' | b'.'))
        }
        _ => false,
    }
}

/// `[a-z0-9]([-a-z0-9]*[a-z0-9])?(\.[a-z0-9]([-a-z0-9]*[a-z0-9])?)*`
fn is_dns1123_subdomain(s: &str) -> bool {
    s.split('.').all(|label| {
        let b = label.as_bytes();
        let alnum = |c: &u8| c.is_ascii_lowercase() || c.is_ascii_digit();
        match (b.first(), b.last()) {
            (Some(f), Some(l)) => alnum(f) && alnum(l) && b.iter().all(|c| alnum(c) || *c == b'-'),
            _ => false,
        }
    })
}

/// `validation.IsQualifiedName`.
fn qualified_name_errors(value: &str) -> Vec<String> {
    let mut errs = Vec::new();
    let parts: Vec<&str> = value.split('/').collect();
    let name = match parts.as_slice() {
        [name] => *name,
        [prefix, name] => {
            if prefix.is_empty() {
                errs.push("prefix part must be non-empty".to_string());
            } else if prefix.len() > 253 {
                errs.push("prefix part must be no more than 253 bytes".to_string());
            } else if !is_dns1123_subdomain(prefix) {
                errs.push(format!("prefix part {DNS1123_SUBDOMAIN_MSG}"));
            }
            *name
        }
        _ => {
            errs.push(format!(
                "a qualified name {QUALIFIED_NAME_MSG} with an optional DNS subdomain prefix and '/' (e.g. 'example.com/MyName')"
            ));
            return errs;
        }
    };
    if name.is_empty() {
        errs.push("name part must be non-empty".to_string());
    } else if name.len() > 63 {
        errs.push("name part must be no more than 63 bytes".to_string());
    }
    if !name.is_empty() && !is_qualified_name_part(name) {
        errs.push(format!("name part {QUALIFIED_NAME_MSG}"));
    }
    errs
}

/// `validation.IsValidLabelValue`.
fn label_value_errors(value: &str) -> Vec<String> {
    let mut errs = Vec::new();
    if value.len() > 63 {
        errs.push("must be no more than 63 bytes".to_string());
    }
    if !value.is_empty() && !is_qualified_name_part(value) {
        errs.push(LABEL_VALUE_MSG.to_string());
    }
    errs
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    fn sel(v: serde_json::Value) -> Result<CompiledSelector, String> {
        crate::api::decode::<LabelSelector>(&v, "")
            .map_err(|e| e.message)?
            .compile()
    }

    fn obj(labels: serde_json::Value) -> serde_json::Value {
        json!({"metadata": {"name": "x", "labels": labels}})
    }

    /// D22: the label selector matrix over A {env: prod, tier: fe}, B {env: dev}, C {}.
    #[test]
    fn d22_selector_matrix() {
        let objs = [
            obj(json!({"env": "prod", "tier": "fe"})),
            obj(json!({"env": "dev"})),
            json!({"metadata": {"name": "c"}}),
        ];
        let pick = |s: serde_json::Value| -> String {
            let c = sel(s).unwrap_or_else(|e| panic!("{e}"));
            ["A", "B", "C"]
                .iter()
                .zip(&objs)
                .filter(|(_, o)| c.matches_object(o))
                .map(|(n, _)| *n)
                .collect()
        };
        assert_eq!(pick(json!({"matchLabels": {"env": "prod"}})), "A");
        assert_eq!(
            pick(
                json!({"matchExpressions": [{"key": "env", "operator": "In", "values": ["prod", "dev"]}]})
            ),
            "AB"
        );
        assert_eq!(
            pick(
                json!({"matchExpressions": [{"key": "env", "operator": "NotIn", "values": ["prod"]}]})
            ),
            "BC"
        );
        assert_eq!(
            pick(json!({"matchExpressions": [{"key": "tier", "operator": "Exists"}]})),
            "A"
        );
        assert_eq!(
            pick(json!({"matchExpressions": [{"key": "env", "operator": "DoesNotExist"}]})),
            "C"
        );
        assert_eq!(pick(json!({})), "ABC");
        assert_eq!(
            pick(
                json!({"matchLabels": {"env": "prod"}, "matchExpressions": [{"key": "tier", "operator": "DoesNotExist"}]})
            ),
            ""
        );
        assert_eq!(
            sel(json!({"matchExpressions": [{"key": "env", "operator": "Foo", "values": ["a"]}]}))
                .unwrap_err(),
            r#""Foo" is not a valid label selector operator; the operators are "In", "NotIn", "Exists" or "DoesNotExist""#
        );
    }

    #[test]
    fn apimachinery_value_count_errors() {
        assert_eq!(
            sel(json!({"matchExpressions": [{"key": "env", "operator": "In"}]})).unwrap_err(),
            "values: Invalid value: []string(nil): for 'in', 'notin' operators, values set can't be empty"
        );
        assert_eq!(
            sel(
                json!({"matchExpressions": [{"key": "env", "operator": "Exists", "values": ["a"]}]})
            )
            .unwrap_err(),
            r#"values: Invalid value: []string{"a"}: values set must be empty for exists and does not exist"#
        );
    }

    #[test]
    fn invalid_keys_and_values() {
        let err = sel(json!({"matchLabels": {"a b": "x"}})).unwrap_err();
        assert!(
            err.starts_with(r#"key: Invalid value: "a b": name part must consist of"#),
            "{err}"
        );
        let err = sel(json!({"matchLabels": {"Example.com/x": "x"}})).unwrap_err();
        assert!(
            err.contains("prefix part a lowercase RFC 1123 subdomain"),
            "{err}"
        );
        let err = sel(json!({"matchLabels": {"k": "bad value"}})).unwrap_err();
        assert!(
            err.starts_with(r#"values[0]: Invalid value: "bad value": a valid label must be"#),
            "{err}"
        );
        assert!(sel(json!({"matchLabels": {"example.com/k": "", "a.b_c-d": "V.1"}})).is_ok());
        let long = "x".repeat(64);
        assert!(sel(json!({"matchLabels": {long.clone(): "v"}}))
            .unwrap_err()
            .contains("name part must be no more than 63 bytes"));
        assert!(sel(json!({"matchLabels": {"k": long}}))
            .unwrap_err()
            .contains("must be no more than 63 bytes"));
    }

    #[test]
    fn non_string_label_values_do_not_match() {
        let c = sel(json!({"matchLabels": {"a": "1"}})).unwrap_or_else(|e| panic!("{e}"));
        assert!(!c.matches_object(&obj(json!({"a": 1}))));
        assert!(!c.matches_object(&json!({"metadata": {"labels": "junk"}})));
        assert!(!c.matches_object(&json!("scalar")));
    }
}
