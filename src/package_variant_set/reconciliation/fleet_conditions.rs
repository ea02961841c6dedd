//! The one reader of `status.conditions` for every place the gates read them: a
//! PackageVariant's status, a `porch.kpt.dev/v1alpha2` PackageRevision's status, and the
//! Kptfile's status inside a v1alpha1 PackageRevisionResources (issue 48, item 4: the Kptfile
//! was read leniently, and every leniency opened the gate).
//!
//! Conditions are what the API server keeps (`listType: map`, `listMapKey: type`): a list, at
//! most one entry per type, each with a string `type`, a `status` of `True`, `False` or
//! `Unknown`, and an `observedGeneration` that is an integer when given. Anything else is an
//! error on its field, never a neutral value: a gate cannot tell what it says.

use serde_json::Value;

use crate::krm::object::json_at;
use crate::package_variant_set::expansion::targets::str_at;
use crate::package_variant_set::expansion::upstreams::revisions::whole_number;

/// A condition's status.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Status {
    True,
    False,
    Unknown,
}

impl Status {
    /// As written.
    pub fn text(self) -> &'static str {
        match self {
            Status::True => "True",
            Status::False => "False",
            Status::Unknown => "Unknown",
        }
    }
}

/// One condition, decoded.
#[derive(Debug, Clone, Copy)]
pub struct Condition<'a> {
    pub kind: &'a str,
    pub status: Status,
    pub observed_generation: Option<i64>,
    /// The condition as given (for its reason and message).
    pub json: &'a Value,
}

/// A condition that cannot be read: the field (below the object) and what is wrong.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ConditionError {
    pub field: String,
    pub message: String,
}

/// The conditions at `/status/conditions` of `object`: absent or null is none.
pub fn read(object: &Value) -> Result<Vec<Condition<'_>>, ConditionError> {
    let error = |field: String, message: String| ConditionError { field, message };
    let list = match json_at(object, "/status/conditions") {
        None | Some(Value::Null) => return Ok(Vec::new()),
        Some(Value::Array(list)) => list,
        Some(_) => return Err(error(
            "status.conditions".into(),
            "must be a list of conditions ({type, status, reason, message}), as Porch writes it"
                .into(),
        )),
    };
    let mut out: Vec<Condition> = Vec::with_capacity(list.len());
    for (k, c) in list.iter().enumerate() {
        let field = format!("status.conditions[{k}]");
        if !c.is_object() {
            return Err(error(
                field,
                "is not a condition: write a mapping {type, status, reason, message}".into(),
            ));
        }
        let kind = match c.get("type") {
            Some(Value::String(t)) if !t.is_empty() => t.as_str(),
            _ => {
                return Err(error(
                    format!("{field}.type"),
                    "must be the condition's type, a string (e.g. Ready)".into(),
                ))
            }
        };
        if out.iter().any(|o| o.kind == kind) {
            return Err(error(field, format!(
                "is a second condition of type {kind}: the API server keeps one condition per type (listType map); give it once, as the cluster holds it"
            )));
        }
        let status = match c.get("status").and_then(Value::as_str) {
            Some("True") => Status::True,
            Some("False") => Status::False,
            Some("Unknown") => Status::Unknown,
            _ => {
                return Err(error(
                    format!("{field}.status"),
                    format!(
                        "is {}: a condition's status is True, False or Unknown; write one of them",
                        match c.get("status") {
                            None | Some(Value::Null) => "missing".to_string(),
                            Some(Value::String(s)) => format!("{s:?}"),
                            Some(other) => other.to_string(),
                        }
                    ),
                ))
            }
        };
        let observed_generation = whole_number(c, "/observedGeneration")
            .map_err(|m| error(format!("{field}.observedGeneration"), m))?;
        out.push(Condition {
            kind,
            status,
            observed_generation,
            json: c,
        });
    }
    Ok(out)
}

/// The condition of type `kind`, if any.
pub fn find<'a>(conditions: &[Condition<'a>], kind: &str) -> Option<Condition<'a>> {
    conditions.iter().find(|c| c.kind == kind).copied()
}

/// A condition's reason, or empty.
pub fn reason<'a>(c: &Condition<'a>) -> &'a str {
    str_at(c.json, "/reason")
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn conditions_are_a_list_one_per_type_with_a_known_status() {
        let ok = json!({"status": {"conditions": [
            {"type": "Ready", "status": "True", "observedGeneration": 2},
            {"type": "Rendered", "status": "Unknown"}]}});
        let c = read(&ok).unwrap();
        assert_eq!(
            find(&c, "Ready").map(|c| c.observed_generation),
            Some(Some(2))
        );
        assert_eq!(
            find(&c, "Rendered").map(|c| c.status),
            Some(Status::Unknown)
        );
        assert!(read(&json!({})).unwrap().is_empty());
        let field = |conditions: Value| {
            read(&json!({"status": {"conditions": conditions}}))
                .unwrap_err()
                .field
        };
        let bad = |c: Value| c;
        assert_eq!(field(bad(json!({"Ready": "True"}))), "status.conditions");
        assert_eq!(
            field(bad(
                json!([{"type": "Ready", "status": "True"}, {"type": "Ready", "status": "True"}])
            )),
            "status.conditions[1]"
        );
        assert_eq!(
            field(bad(json!([{"type": "Ready", "status": "true"}]))),
            "status.conditions[0].status"
        );
        assert_eq!(
            field(bad(
                json!([{"type": "Ready", "status": "True", "observedGeneration": "2"}])
            )),
            "status.conditions[0].observedGeneration"
        );
        assert_eq!(
            field(bad(json!([{"status": "True"}]))),
            "status.conditions[0].type"
        );
        assert_eq!(field(bad(json!(["Ready"]))), "status.conditions[0]");
    }
}
