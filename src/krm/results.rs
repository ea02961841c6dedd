//! Results: the `results` entries of the output ResourceList.
//!
//! Every problem the function finds becomes one [`ResultItem`]. Mutations say *which* object a
//! result concerns through a [`Subject`]; the protocol layer turns that into the `resourceRef` and
//! `file` fields from the object's own metadata and annotations, so no mutation needs to know
//! how kpt names files.

use crate::yaml::Node;
use std::fmt;

/// How serious a result is. kpt prints a missing severity as `info`, so we always write one.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub enum Severity {
    Error,
    Warning,
    Info,
}

impl Severity {
    /// The wire spelling: `error`, `warning` or `info`.
    pub fn as_str(self) -> &'static str {
        match self {
            Severity::Error => "error",
            Severity::Warning => "warning",
            Severity::Info => "info",
        }
    }
}

impl fmt::Display for Severity {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.as_str())
    }
}

/// The object a result is about.
#[derive(Debug, Clone, PartialEq, Eq, Default)]
pub enum Subject {
    /// The result concerns the whole run, not one object.
    #[default]
    None,
    /// The functionConfig (the PackageVariant or PackageVariantSet).
    Config,
    /// The input item at this position in `items`.
    Item(usize),
}

/// `resourceRef` of a result: the identity of the object it concerns.
#[derive(Debug, Clone, PartialEq, Eq, Default)]
pub struct ResourceRef {
    pub api_version: String,
    pub kind: String,
    pub name: String,
    pub namespace: Option<String>,
}

/// `file` of a result: where kpt read the object from.
#[derive(Debug, Clone, PartialEq, Eq, Default)]
pub struct FileRef {
    pub path: String,
    pub index: Option<String>,
}

/// One entry of `results`.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ResultItem {
    pub severity: Severity,
    pub message: String,
    /// Dotted field path inside the subject, e.g. `spec.packageContext.data`.
    pub field_path: Option<String>,
    pub subject: Subject,
    /// Filled in by the protocol layer from `subject`; set directly only for objects that are
    /// not among the items.
    pub resource_ref: Option<ResourceRef>,
    pub file: Option<FileRef>,
}

impl ResultItem {
    pub fn new(severity: Severity, message: impl Into<String>) -> Self {
        ResultItem {
            severity,
            message: message.into(),
            field_path: None,
            subject: Subject::None,
            resource_ref: None,
            file: None,
        }
    }

    pub fn error(message: impl Into<String>) -> Self {
        Self::new(Severity::Error, message)
    }

    pub fn warning(message: impl Into<String>) -> Self {
        Self::new(Severity::Warning, message)
    }

    pub fn info(message: impl Into<String>) -> Self {
        Self::new(Severity::Info, message)
    }

    /// Sets `field.path`.
    pub fn field(mut self, path: impl Into<String>) -> Self {
        self.field_path = Some(path.into());
        self
    }

    /// Says which object the result concerns.
    pub fn subject(mut self, subject: Subject) -> Self {
        self.subject = subject;
        self
    }

    /// Shorthand for `subject(Subject::Config)`.
    pub fn on_config(self) -> Self {
        self.subject(Subject::Config)
    }

    /// Shorthand for `subject(Subject::Item(index))`.
    pub fn on_item(self, index: usize) -> Self {
        self.subject(Subject::Item(index))
    }

    pub fn is_error(&self) -> bool {
        self.severity == Severity::Error
    }
}

impl fmt::Display for ResultItem {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "[{}]", self.severity)?;
        if let Some(r) = &self.resource_ref {
            write!(f, " {}/{}/{}", r.api_version, r.kind, r.name)?;
        }
        if let Some(p) = &self.field_path {
            write!(f, " {p}")?;
        }
        write!(f, ": {}", self.message)
    }
}

/// True when any result is an error: the run fails and the items go back unchanged.
pub fn has_errors(results: &[ResultItem]) -> bool {
    results.iter().any(ResultItem::is_error)
}

/// A result as the wire format writes it: message, severity, resourceRef, field, file.
fn result_json(r: &ResultItem) -> serde_json::Value {
    use serde_json::{json, Map, Value};
    let mut m = Map::new();
    m.insert("message".into(), Value::String(r.message.clone()));
    m.insert("severity".into(), Value::String(r.severity.as_str().into()));
    if let Some(rr) = &r.resource_ref {
        let mut o = Map::new();
        o.insert("apiVersion".into(), json!(rr.api_version));
        o.insert("kind".into(), json!(rr.kind));
        o.insert("name".into(), json!(rr.name));
        if let Some(ns) = &rr.namespace {
            o.insert("namespace".into(), json!(ns));
        }
        m.insert("resourceRef".into(), Value::Object(o));
    }
    if let Some(p) = &r.field_path {
        m.insert("field".into(), json!({ "path": p }));
    }
    if let Some(f) = &r.file {
        let mut o = Map::new();
        o.insert("path".into(), json!(f.path));
        if let Some(i) = &f.index {
            match i.parse::<i64>() {
                Ok(n) => o.insert("index".into(), json!(n)),
                Err(_) => o.insert("index".into(), json!(i)),
            };
        }
        m.insert("file".into(), Value::Object(o));
    }
    Value::Object(m)
}

/// The output's `results`: those that came in (an earlier function's, kept as they were
/// written), then this run's. `None` when there are none at all.
pub fn combined(previous: Option<&Node>, results: &[ResultItem]) -> Option<Node> {
    let list: Vec<serde_json::Value> = results.iter().map(result_json).collect();
    let new = crate::yaml::from_json(&serde_json::Value::Array(list));
    let Some(previous) = previous.filter(|p| p.items().is_some_and(|i| !i.is_empty())) else {
        return (!results.is_empty()).then_some(new);
    };
    let mut all = previous.clone();
    if let (Some(items), Some(new)) = (all.items_mut(), new.items()) {
        items.extend(new.iter().cloned());
    }
    Some(all)
}

/// Most results of one kind listed one by one; past it, one result counts the rest and says
/// where to see them all (e.g. the Kptfile's conditions list every injection point).
pub const LISTED: usize = 100;

/// The first [`LISTED`] of `results`, then, when there are more, the one result `rest` makes
/// from how many were left out.
pub fn summarized(
    mut results: Vec<ResultItem>,
    rest: impl FnOnce(usize) -> ResultItem,
) -> Vec<ResultItem> {
    if results.len() > LISTED {
        let more = results.len() - LISTED;
        results.truncate(LISTED);
        results.push(rest(more));
    }
    results
}
