//! Results: the `results` entries of the output ResourceList.
//!
//! Every problem the function finds becomes one [`ResultItem`]. Mutations say *which* object a
//! result concerns through a [`Subject`]; the protocol layer turns that into the `resourceRef` and
//! `file` fields from the object's own metadata and annotations, so no mutation needs to know
//! how kpt names files.

use crate::yaml::{Emitter, Entry, Item, Kind, Node, ScalarStyle, Trivia};
use std::borrow::Cow;
use std::fmt;

/// How serious a result is. kpt prints a missing severity as `info`, so we always write one.
/// Ordered as the output lists results: errors, then warnings, then infos.
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
    /// `tags`, as kyaml's `framework.Result` has them: strings a machine reads (a rollout's
    /// `phase`, a target's `action`), written sorted by key, last. Keys are plain words
    /// (written as they are).
    pub tags: Vec<(&'static str, Cow<'static, str>)>,
    /// Written before every warning and info (after the errors): a summary a reader must see
    /// first, whatever warnings there are.
    pub leads: bool,
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
            tags: Vec::new(),
            leads: false,
        }
    }

    /// Adds (or replaces) the tag `key: value` (`key` a plain word: letters only). Kept sorted
    /// by key, in a vector: a fleet's results carry a handful each, and a map per result would
    /// cost a node of its own.
    pub fn tag(mut self, key: &'static str, value: impl Into<Cow<'static, str>>) -> Self {
        debug_assert!(key.bytes().all(|b| b.is_ascii_alphabetic()), "{key}");
        match self.tags.binary_search_by(|(k, _)| k.cmp(&key)) {
            Ok(at) => {
                if let Some(slot) = self.tags.get_mut(at) {
                    slot.1 = value.into();
                }
            }
            Err(at) => {
                // A target's result carries five: room for them at once, not eight.
                if self.tags.capacity() == 0 {
                    self.tags.reserve_exact(TAGS_AT_MOST);
                }
                self.tags.insert(at, (key, value.into()))
            }
        }
        self
    }

    /// Written first among the warnings and infos ([`ResultItem::leads`]).
    pub fn leading(mut self) -> Self {
        self.leads = true;
        self
    }

    /// Where the output lists it: errors, then a leading result, then warnings, then infos
    /// (stable within each).
    pub fn rank(&self) -> u8 {
        match (self.severity, self.leads) {
            (Severity::Error, _) => 0,
            (_, true) => 1,
            (Severity::Warning, false) => 2,
            (Severity::Info, false) => 3,
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
            write!(f, " {}/{}", r.api_version, r.kind)?;
            if let Some(ns) = &r.namespace {
                write!(f, "/{ns}")?;
            }
            write!(f, "/{}", r.name)?;
        }
        if let Some(p) = &self.field_path {
            write!(f, " {p}")?;
        }
        write!(f, ": {}", self.message)
    }
}

/// How many tags a result usually carries at most (a rollout target's: action, from, gate,
/// to, wave).
const TAGS_AT_MOST: usize = 5;

/// How many error results [`error_summary`] lists one by one; past that it counts the rest.
pub const SUMMARY_ERRORS: usize = 20;

/// Longest message [`error_summary`] writes on a line; longer ones are cut (the whole message
/// is in the output's `results`).
const SUMMARY_MESSAGE_CHARS: usize = 400;

/// The error results in a few lines for stderr, where runners that drop stdout on a failed
/// run look (Porch's executable evaluator shows only stderr; kpt prints it): a header, one
/// line per error (severity, resource, field path, message; the first [`SUMMARY_ERRORS`]),
/// then how many more. Empty when there is no error.
pub fn error_summary(results: &[ResultItem]) -> String {
    use fmt::Write as _;
    let errors: Vec<&ResultItem> = results.iter().filter(|r| r.is_error()).collect();
    if errors.is_empty() {
        return String::new();
    }
    let n = errors.len();
    let mut s = format!(
        "package-variant: {n} error{}; nothing was changed (the output's results have every detail):",
        if n == 1 { "" } else { "s" }
    );
    for r in errors.iter().take(SUMMARY_ERRORS) {
        let mut line = String::new();
        let _ = write!(line, "{r}");
        let mut one_line: String = line
            .chars()
            .map(|c| if c.is_control() { ' ' } else { c })
            .take(SUMMARY_MESSAGE_CHARS + 1)
            .collect();
        if one_line.chars().count() > SUMMARY_MESSAGE_CHARS {
            one_line = one_line.chars().take(SUMMARY_MESSAGE_CHARS).collect();
            one_line.push_str("...");
        }
        s.push_str("\n  ");
        s.push_str(&one_line);
    }
    if n > SUMMARY_ERRORS {
        let _ = write!(s, "\n  ... and {} more errors", n - SUMMARY_ERRORS);
    }
    s
}

/// True when any result is an error: the run fails and the items go back unchanged.
pub fn has_errors(results: &[ResultItem]) -> bool {
    results.iter().any(ResultItem::is_error)
}

/// A new entry `key: value` under one of the wire format's fixed keys (all plain words, which
/// `Node::string` would leave plain too).
fn entry(key: &'static str, value: Node) -> Entry {
    Entry {
        key: Node::scalar(key, ScalarStyle::Plain),
        value,
        trivia: Trivia::default(),
    }
}

/// A result as the wire format writes it: message, severity, resourceRef, field, file. Built
/// straight as nodes (the ones `yaml::from_json` made from its JSON before: see the tests):
/// the JSON cost a map and a copy of every string on each call. Needed only beside earlier
/// results; without them [`write_new`] writes the same text with no nodes.
fn result_node(r: &ResultItem) -> Node {
    let mut m = Vec::with_capacity(5);
    m.push(entry("message", Node::string(r.message.as_str())));
    m.push(entry(
        "severity",
        Node::scalar(r.severity.as_str(), ScalarStyle::Plain),
    ));
    if let Some(rr) = &r.resource_ref {
        let mut o = Vec::with_capacity(4);
        o.push(entry("apiVersion", Node::string(rr.api_version.as_str())));
        o.push(entry("kind", Node::string(rr.kind.as_str())));
        o.push(entry("name", Node::string(rr.name.as_str())));
        if let Some(ns) = &rr.namespace {
            o.push(entry("namespace", Node::string(ns.as_str())));
        }
        m.push(entry("resourceRef", Node::with_kind(Kind::Mapping(o))));
    }
    if let Some(p) = &r.field_path {
        let path = vec![entry("path", Node::string(p.as_str()))];
        m.push(entry("field", Node::with_kind(Kind::Mapping(path))));
    }
    if let Some(f) = &r.file {
        let mut o = Vec::with_capacity(2);
        o.push(entry("path", Node::string(f.path.as_str())));
        if let Some(i) = &f.index {
            // An index that reads as a number is written as one, as its JSON number was.
            let index = match i.parse::<i64>() {
                Ok(n) => Node::plain(n.to_string()),
                Err(_) => Node::string(i.as_str()),
            };
            o.push(entry("index", index));
        }
        m.push(entry("file", Node::with_kind(Kind::Mapping(o))));
    }
    if !r.tags.is_empty() {
        let o = (r.tags.iter())
            .map(|(k, v)| Entry {
                key: Node::string(*k),
                value: Node::string(v.as_ref()),
                trivia: Trivia::default(),
            })
            .collect();
        m.push(entry("tags", Node::with_kind(Kind::Mapping(o))));
    }
    Node::with_kind(Kind::Mapping(m))
}

/// Writes the output's `results` entry (see [`combined`]) as the last part of the output, of
/// which `written` bytes are already out of `e`. An output past Porch's message size gets a
/// warning (see [`porch_size_warning`]), written in the same place.
pub(crate) fn emit(
    e: &mut Emitter,
    previous: Option<&Node>,
    results: &[ResultItem],
    written: usize,
) {
    let previous = previous.filter(|p| p.items().is_some_and(|i| !i.is_empty()));
    let write = |e: &mut Emitter, results: &[ResultItem]| {
        // No earlier results to keep (the common case): written without nodes.
        if previous.is_none() {
            write_new(e, results);
        } else if let Some(value) = combined(previous, results) {
            let entry = Entry {
                key: Node::string("results"),
                value,
                trivia: Trivia::default(),
            };
            e.entries(std::slice::from_ref(&entry), 0, false);
        }
    };
    let mark = e.out.len();
    write(e, results);
    let size = written + e.out.len();
    if size > PORCH_GRPC_MESSAGE_LIMIT - ROOM_FOR_THE_REST {
        // Written again with the warning: nothing follows the results.
        e.out.truncate(mark);
        // After the other warnings, before the infos: results are in severity order.
        let mut with_warning = results.to_vec();
        let at = (results.iter())
            .rposition(|r| r.severity <= Severity::Warning)
            .map_or(0, |p| p + 1);
        with_warning.insert(at, porch_size_warning(size));
        write(e, &with_warning);
    }
}

/// Porch moves each ResourceList to and from the function runner as one gRPC message, 6 MiB
/// by default (`--max-request-body-size` of its function runner and wrapper-server).
pub const PORCH_GRPC_MESSAGE_LIMIT: usize = 6 * 1024 * 1024;

/// Room kept in that message for what travels beside the ResourceList (the function's log and
/// the message's framing).
const ROOM_FOR_THE_REST: usize = 1024;

/// An output past Porch's message works under kpt but fails in Porch with gRPC's "received
/// message larger than max", which names neither the package nor the fix: a warning (not an
/// error: kpt runs are fine) says both.
fn porch_size_warning(size: usize) -> ResultItem {
    ResultItem::warning(format!(
        "the output ResourceList is {size} bytes ({:.1} MiB), more than Porch moves in one gRPC \
         message by default ({PORCH_GRPC_MESSAGE_LIMIT} bytes, 6 MiB, with {ROOM_FOR_THE_REST} \
         bytes kept for the function's log): kpt runs are not limited, but in Porch this \
         package fails with \"received message larger than max\". Raise the limit with the \
         function runner's --max-request-body-size (and porch-server's matching argument, kept \
         in sync), or split the package into smaller ones",
        size as f64 / (1024.0 * 1024.0)
    ))
}

/// Writes `results` with no earlier results, as [`Emitter::entries`] writes [`combined`]'s
/// nodes for them (the tests compare both): the common case, written without building nodes.
fn write_new(e: &mut Emitter, results: &[ResultItem]) {
    if results.is_empty() {
        return;
    }
    // A string under a nested key (`resourceRef`, `field`, `file`).
    let field = |e: &mut Emitter, key: &str, value: &str| {
        e.out.push_str("    ");
        e.out.push_str(key);
        e.out.push_str(": ");
        e.string_value(value, 6);
        e.out.push('\n');
    };
    e.out.push_str("results:\n");
    for r in results {
        e.out.push_str("- message: ");
        e.string_value(&r.message, 4);
        e.out.push_str("\n  severity: ");
        e.out.push_str(r.severity.as_str());
        e.out.push('\n');
        if let Some(rr) = &r.resource_ref {
            e.out.push_str("  resourceRef:\n");
            field(e, "apiVersion", &rr.api_version);
            field(e, "kind", &rr.kind);
            field(e, "name", &rr.name);
            if let Some(ns) = &rr.namespace {
                field(e, "namespace", ns);
            }
        }
        if let Some(p) = &r.field_path {
            e.out.push_str("  field:\n");
            field(e, "path", p);
        }
        if let Some(f) = &r.file {
            e.out.push_str("  file:\n");
            field(e, "path", &f.path);
            if let Some(i) = &f.index {
                match i.parse::<i64>() {
                    Ok(n) => {
                        use fmt::Write as _;
                        let _ = writeln!(e.out, "    index: {n}");
                    }
                    Err(_) => field(e, "index", i),
                }
            }
        }
        if !r.tags.is_empty() {
            e.out.push_str("  tags:\n");
            for (k, v) in &r.tags {
                field(e, k, v);
            }
        }
    }
}

/// The output's `results`: those that came in (an earlier function's, kept as they were
/// written), then this run's. `None` when there are none at all.
pub fn combined(previous: Option<&Node>, results: &[ResultItem]) -> Option<Node> {
    let new: Vec<Item> = results
        .iter()
        .map(|r| Item {
            value: result_node(r),
            trivia: Trivia::default(),
        })
        .collect();
    let Some(previous) = previous.filter(|p| p.items().is_some_and(|i| !i.is_empty())) else {
        return (!new.is_empty()).then(|| Node::with_kind(Kind::Sequence(new)));
    };
    let mut all = previous.clone();
    if let Some(items) = all.items_mut() {
        items.extend(new);
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

#[cfg(test)]
mod tests;
