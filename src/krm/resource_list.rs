//! The ResourceList protocol (KRM Functions Specification v1): read one `ResourceList` from the
//! input, write one back with the function's changes and `results`.
//!
//! Items are read once, streaming: each item's identity is kept ([`ObjectMeta`]) and its tree
//! dropped (kept on a small input, [`KEEP_TREES_UP_TO`]); on a larger input the item's other
//! values are only checked, never built (skimmed, see [`compare_readings`]). A function asks
//! for the trees it needs ([`ResourceList::tree`]); untouched items are written back by
//! copying their source text, so they come out byte for byte as they went in.

use crate::krm::items::{Items, MAX_ITEMS};
use crate::krm::object::{MetaRecord, ObjectMeta};
use crate::krm::results::{self, ResultItem, Subject};
use crate::yaml::breaks;
use crate::yaml::parse::{ItemOrigin, ItemRead, TOO_MANY_VALUES};
use crate::yaml::{Emitter, Entry, Node, ParseError, Parser, Span, Trivia};
use std::borrow::Cow;
use std::collections::HashMap;
use std::fmt;

mod bounded;
mod characters;
mod skim;
pub use bounded::{EmitError, HOLD};
pub use skim::compare_readings;
pub mod spliced;
pub use spliced::ItemLists;

/// The ResourceList apiVersions we read.
pub const API_VERSIONS: &[&str] = &["config.kubernetes.io/v1", "config.kubernetes.io/v1beta1"];

/// Output bytes collected before [`ResourceList::emit_to`] writes them out.
pub const EMIT_CHUNK: usize = 256 * 1024;

/// Inputs up to this size keep each item's tree as it was read, and [`ResourceList::tree`]
/// hands out a copy instead of parsing the item again (on a 20-resource call the re-parses
/// were a sixth of the instructions). Kept together, the trees of an input this small take
/// what one item of the same size would (each item is read whole anyway): a small multiple
/// of a small input. Larger inputs stream, each tree dropped once its metadata is recorded, so
/// their memory stays bounded by their text.
pub const KEEP_TREES_UP_TO: usize = 256 * 1024;

/// Largest input accepted, in bytes.
pub const MAX_INPUT_BYTES: usize = 256 * 1024 * 1024;

/// Most entries and items one object (an item, the functionConfig) may have: 131,072, plus one
/// for every 16 bytes of input, and never more than 2,097,152. Holding an object costs up to
/// about 450 bytes a value (its tree, its data, and an edited copy), so the most one object can
/// take is about 1 GiB; a larger one is refused with a clear error instead of running out of
/// memory. Wide objects of a real package (a context or an injected object of 100,000 keys)
/// stay well under it.
pub fn value_limit(input_len: usize) -> usize {
    ((1 << 17) + input_len / 16).min(1 << 21)
}

/// Refuses input longer than [`MAX_INPUT_BYTES`]. The binary reads at most one byte more than
/// the limit, so a larger input is refused without reading (or holding) the rest of it.
pub fn check_size(len: usize) -> Result<(), InputError> {
    if len > MAX_INPUT_BYTES {
        return Err(InputError(format!(
            "input is larger than the limit of {MAX_INPUT_BYTES} bytes (256 MiB); split the package or the list of objects into smaller ResourceLists"
        )));
    }
    Ok(())
}

/// Input that is not a ResourceList at all: reported on stderr, exit code 1.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct InputError(pub String);

impl fmt::Display for InputError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&self.0)
    }
}

impl std::error::Error for InputError {}

impl From<ParseError> for InputError {
    fn from(e: ParseError) -> Self {
        InputError(format!("input is not valid YAML: {e}"))
    }
}

/// A parsed ResourceList over its source text.
pub struct ResourceList<'a> {
    src: &'a str,
    /// `apiVersion` as sent; echoed back.
    pub api_version: String,
    /// The functionConfig, if any, as the entry the output writes (so writing it needs no
    /// copy of a wide tree), until [`ResourceList::detach_function_config`] takes it.
    function_config: Option<Entry>,
    /// Where the functionConfig was read, once taken: an untouched block mapping, written
    /// back by copying its text.
    config_copied: Option<Span>,
    /// The functionConfig's metadata, for the results about it.
    config_meta: Option<MetaRecord>,
    /// The `results` that came in (an earlier function's): kept, ours are appended.
    previous_results: Option<Node>,
    /// The items, as read (where each is, and its metadata).
    pub items: Items,
    /// Each item's tree as read, when the input is at most [`KEEP_TREES_UP_TO`] bytes (empty
    /// otherwise: the items are parsed again when asked for).
    kept: Vec<Node>,
    /// The document was JSON (or flow YAML): write block YAML, not flow.
    json: bool,
    /// Comment and blank lines after the last item (before the next key of the ResourceList,
    /// or the end): they go out with the last item.
    tail: Option<Span>,
}

/// What [`ResourceList::emit_with`] calls between items: the output so far, and
/// `Some((item, from))` when the output from `from` on is an untouched item's copy.
type BetweenItems<'f> = dyn FnMut(&mut String, Option<(usize, usize)>) -> bool + 'f;

/// What a function did to the items.
#[derive(Debug, Default)]
pub struct Changes {
    /// New trees for existing items, by index.
    pub edited: HashMap<usize, Node>,
    /// Items to leave out of the output.
    pub removed: Vec<usize>,
    /// New items, appended in order.
    pub added: Vec<Node>,
    /// More new items, after `added`, each made only when it is written.
    pub appended: Option<Box<dyn NewItems>>,
    /// More edited items (not in `edited`), each tree made only when it is written.
    pub deferred: Option<Box<dyn EditedItems>>,
    /// Long lists of an edited item, written from the function's own compact form.
    pub lists: Option<Box<dyn ItemLists>>,
}

impl Changes {
    pub fn is_empty(&self) -> bool {
        self.edited.is_empty()
            && self.removed.is_empty()
            && self.added.is_empty()
            && self.appended.as_ref().is_none_or(|a| a.count() == 0)
            && self.deferred.as_ref().is_none_or(|d| d.count() == 0)
    }
}

/// Edited items whose trees a function makes only while the output is written
/// ([`Changes::deferred`]): one value written into many items is held once, not once per item.
/// Decided (and checked) before the output is written, so all or nothing still holds.
pub trait EditedItems: fmt::Debug {
    /// How many items are edited.
    fn count(&self) -> usize;
    /// The new tree of item `i`, or `None` when it is not one of them.
    fn tree(&self, rl: &ResourceList, i: usize) -> Option<Node>;
}

/// New items that a function makes one at a time while the output is written
/// ([`Changes::appended`]): a function that creates many items never holds them all, as trees
/// or as text. Made after the whole run is decided, so all or nothing still holds.
pub trait NewItems: fmt::Debug {
    /// How many items there are.
    fn count(&self) -> usize;
    /// Writes item `i` (of `0..count()`) as an entry of the block list `items` (indentation 0),
    /// as [`Emitter::seq_item_forced`] writes a new node.
    fn write(&self, i: usize, e: &mut Emitter);
}

impl<'a> ResourceList<'a> {
    /// Reads a ResourceList. Anything that is not one is an [`InputError`].
    pub fn parse(src: &'a str) -> Result<ResourceList<'a>, InputError> {
        Self::parse_keeping(src, src.len() <= KEEP_TREES_UP_TO)
    }

    /// [`parse`](Self::parse), keeping each item's tree (`keep`) or skimming each item's values
    /// other than its identity: the two must read the same items, or refuse the same input
    /// with the same message (tests and the fuzz targets compare them on every input).
    #[doc(hidden)]
    pub fn parse_keeping(src: &'a str, keep: bool) -> Result<ResourceList<'a>, InputError> {
        check_size(src.len())?;
        if src.trim().is_empty() {
            return Err(InputError(
                "input is empty: expected a ResourceList (config.kubernetes.io/v1) on stdin"
                    .to_string(),
            ));
        }
        match characters::forbidden_character(src) {
            Some((i, '\r')) => {
                let line = breaks::position(src, i).0;
                return Err(InputError(format!(
                    "input has a carriage return (U+000D) without a line feed at line {line}; \
                     use LF or CRLF line endings"
                )));
            }
            Some((i, c)) => {
                let line = breaks::position(src, i).0;
                return Err(InputError(format!(
                    "input contains the control character U+{:04X} at line {line}, which YAML does not allow",
                    c as u32
                )));
            }
            None => {}
        }
        let mut items = Items::default();
        let mut kept = Vec::new();
        let mut too_many = false;
        let mut on_item = |read: ItemRead, trivia: Trivia, origin: ItemOrigin| {
            let mut tree = None;
            let pushed = match read {
                ItemRead::Identity(parts) => items.push(|r| r.identity(parts, src), trivia, origin),
                ItemRead::Tree(node) => {
                    items.push(|r| r.node(tree.insert(node), None), trivia, origin)
                }
                ItemRead::Dangling(node, alias) => {
                    items.push(|r| r.node(tree.insert(node), Some(alias)), trivia, origin)
                }
            };
            if let Some(node) = tree.filter(|_| pushed && keep) {
                kept.push(node);
            }
            if pushed {
                return Ok(());
            }
            too_many = true;
            Err(ParseError {
                message: String::new(),
                line: 0,
                column: 0,
            })
        };
        let mut parser = Parser::new(src).with_value_limit(value_limit(src.len()));
        if !keep {
            // Only each item's metadata is kept: its other values are checked, not built.
            parser = parser.skimming_items();
        }
        let parsed = parser.parse_resource_list(&mut on_item);
        if too_many {
            return Err(InputError(format!(
                "the ResourceList has more than {MAX_ITEMS} items; split it into smaller ResourceLists"
            )));
        }
        let (mut entries, json) = parsed.map_err(|e| {
            if e.message.starts_with(TOO_MANY_VALUES) {
                InputError(format!("input cannot be held: {e}"))
            } else if e.message.starts_with("items must be") {
                InputError(format!("ResourceList {e}"))
            } else if e.message.starts_with("expected a mapping") {
                InputError(format!(
                    "input is not a ResourceList: {e}; expected a mapping with kind: ResourceList"
                ))
            } else {
                InputError::from(e)
            }
        })?;
        let get = |k: &str| entries.iter().find(|e| e.key.scalar_text() == k);
        let kind = get("kind").and_then(|e| e.value.as_str()).unwrap_or("");
        if kind != "ResourceList" {
            return Err(InputError(if kind.is_empty() {
                "input is not a ResourceList: it has no kind: ResourceList".to_string()
            } else {
                format!("input is not a ResourceList: its kind is {kind:?}")
            }));
        }
        let api_version = get("apiVersion")
            .and_then(|e| e.value.as_str())
            .unwrap_or("")
            .to_string();
        if !API_VERSIONS.contains(&api_version.as_str()) {
            return Err(InputError(format!(
                "ResourceList apiVersion {api_version:?} is not supported; expected one of {}",
                API_VERSIONS.join(", ")
            )));
        }
        if let Some(e) = get("items") {
            if !(e.value.is_null() || e.value.is_sequence()) {
                return Err(InputError(format!(
                    "ResourceList items must be a list, found a {}",
                    e.value.kind()
                )));
            }
        }
        let tail = if json {
            None
        } else {
            items_tail(src, &entries)
        };
        let mut take = |key: &str| {
            entries
                .iter_mut()
                .find(|e| e.key.scalar_text() == key)
                .map(|e| std::mem::replace(&mut e.value, Node::plain("")))
                .filter(|v| !v.is_null())
        };
        let function_config = take("functionConfig").map(|value| Entry {
            key: Node::string("functionConfig"),
            value,
            trivia: Trivia::default(),
        });
        let previous_results = take("results");
        if let Some(r) = previous_results.as_ref().filter(|r| !r.is_sequence()) {
            return Err(InputError(format!(
                "ResourceList results must be a list, found a {}",
                r.kind()
            )));
        }
        let config_meta = function_config
            .as_ref()
            .map(|e| MetaRecord::from_node(&e.value));
        Ok(ResourceList {
            src,
            api_version,
            function_config,
            config_copied: None,
            config_meta,
            previous_results,
            items,
            kept,
            json,
            tail,
        })
    }

    /// The functionConfig, if any and not taken.
    pub fn function_config(&self) -> Option<&Node> {
        self.function_config.as_ref().map(|e| &e.value)
    }

    /// Takes the functionConfig's tree out of the list when the output can do without it:
    /// a block mapping as it was read (no anchor or tag on it, not JSON) is written back by
    /// copying its text, byte for byte what writing the tree gives. Otherwise the tree stays
    /// (see [`ResourceList::function_config`]) and `None` is returned.
    pub fn detach_function_config(&mut self) -> Option<Node> {
        let v = &self.function_config.as_ref()?.value;
        let copyable = !self.json
            && v.entries().is_some_and(|e| !e.is_empty())
            && !v.is_flow()
            && v.props().is_none();
        let span = v.span().filter(|_| copyable)?;
        self.config_copied = Some(span);
        self.function_config.take().map(|e| e.value)
    }

    /// True when the input was JSON (its items are written in block style).
    pub fn is_json(&self) -> bool {
        self.json
    }

    /// The source text the list was read from.
    pub fn source(&self) -> &'a str {
        self.src
    }

    /// The metadata of item `i`.
    pub fn meta(&self, i: usize) -> ObjectMeta<'_> {
        self.items.meta(i)
    }

    /// Item `i`'s tree, pointing into the source (a copy of the one kept, or parsed again);
    /// edit it and hand it back through [`Changes::edited`].
    pub fn tree(&self, i: usize) -> Result<Node, Box<ResultItem>> {
        self.original(i).map(Cow::into_owned)
    }

    /// Item `i`'s tree as read, to look at: the one kept, or parsed again. A kept tree was
    /// read under the limit a re-parse has (and one value less), so where a re-parse would
    /// fail, the input was refused.
    pub fn original(&self, i: usize) -> Result<Cow<'_, Node>, Box<ResultItem>> {
        if let Some(t) = self.kept.get(i) {
            return Ok(Cow::Borrowed(t));
        }
        Parser::reparse_item(self.src, self.items.origin(i), value_limit(self.src.len()))
            .map(Cow::Owned)
            .map_err(|e| Box::new(ResultItem::error(format!("cannot read item: {e}")).on_item(i)))
    }

    /// Fills in `resourceRef` and `file` of results from their subjects.
    pub fn resolve(&self, results: &mut [ResultItem]) {
        let config_meta = self.config_meta.as_ref().map(MetaRecord::view);
        for r in results {
            let meta = match r.subject {
                Subject::Item(i) => (i < self.items.len()).then(|| self.items.meta(i)),
                Subject::Config => config_meta,
                Subject::None => None,
            };
            if let Some(m) = meta.filter(|m| m.is_object) {
                if r.resource_ref.is_none() && !m.kind().is_empty() {
                    r.resource_ref = Some(m.resource_ref());
                }
                if r.file.is_none() {
                    r.file = m.file_ref();
                }
            }
        }
    }

    /// Writes the output ResourceList. With error results, pass empty `changes`: the items go
    /// back exactly as they came.
    pub fn emit(&self, changes: &Changes, results: &[ResultItem]) -> String {
        let mut e = Emitter::new(self.src, self.src.len() + 256 + results.len() * 128);
        self.emit_with(&mut e, changes, results, &mut |_, _| true);
        e.out
    }

    /// The emitter body: `between_items` sees the output after every item (a place where it
    /// may be written out and cleared: the emitter only looks back within the current item).
    /// `between_items` returns false to stop: the rest is not written and `emit_with` returns
    /// false (after the current item). With `Some((i, from))`, the output from `from` on is
    /// untouched item `i` as [`copy_item`](Self::copy_item) writes it.
    pub(super) fn emit_with(
        &self,
        e: &mut Emitter,
        changes: &Changes,
        results: &[ResultItem],
        between_items: &mut BetweenItems,
    ) -> bool {
        // Bytes `between_items` took (wrote out): with `e.out`, the output's size so far.
        let mut flushed = 0;
        let going = std::cell::Cell::new(true);
        let mut between = |out: &mut String, copied: Option<(usize, usize)>| {
            if !going.get() {
                // Stopped: what the current item still writes goes nowhere.
                out.clear();
                return;
            }
            flushed += out.len();
            going.set(between_items(out, copied));
            flushed -= out.len();
        };
        e.out.push_str("apiVersion: ");
        e.out.push_str(&self.api_version);
        e.out.push_str("\nkind: ResourceList\n");
        let mut removed = vec![false; self.items.len()];
        for &i in &changes.removed {
            if let Some(r) = removed.get_mut(i) {
                *r = true;
            }
        }
        // Counted from `removed`: an index given twice (or out of range) is not removed twice.
        let kept = removed.iter().filter(|&&r| !r).count();
        let appended = changes.appended.as_deref();
        let new = changes.added.len() + appended.map_or(0, |a| a.count());
        if kept + new == 0 {
            e.out.push_str("items: []\n");
        } else {
            e.out.push_str("items:\n");
        }
        let last = self.items.len().wrapping_sub(1);
        for (i, &gone) in removed.iter().enumerate() {
            if gone {
                continue;
            }
            let trivia = self.items.trivia(i, self.src);
            let deferred = changes.deferred.as_ref().and_then(|d| d.tree(self, i));
            if let Some(node) = changes.edited.get(&i).or(deferred.as_ref()) {
                let from = e.out.len();
                e.seq_item_forced(node, &trivia, 0, self.json);
                if let Some(lists) = changes.lists.as_deref().filter(|l| l.item() == i) {
                    spliced::splice(lists, e, from, self.json, &mut |o| between(o, None));
                }
            } else if self.items.is_block(i) && !self.json {
                let from = e.out.len();
                self.copy_item(e, i, &trivia);
                between(&mut e.out, Some((i, from)));
                if !going.get() {
                    return false;
                }
                continue;
            } else {
                match self.original(i) {
                    Ok(node) => e.seq_item_forced(&node, &Trivia::default(), 0, true),
                    // Parsed once already; cannot fail. Keep the text rather than lose it.
                    Err(_) => e.raw_item(&trivia, 0),
                }
            }
            if i == last {
                if let Some(tail) = self.tail {
                    e.tail(tail, &trivia, 0);
                }
            }
            between(&mut e.out, None);
            if !going.get() {
                return false;
            }
        }
        for node in &changes.added {
            e.seq_item_forced(node, &Trivia::default(), 0, false);
            between(&mut e.out, None);
            if !going.get() {
                return false;
            }
        }
        if let Some(a) = appended {
            for i in 0..a.count() {
                a.write(i, e);
                between(&mut e.out, None);
                if !going.get() {
                    return false;
                }
            }
        }
        if let Some(span) = self.config_copied {
            e.copied_mapping_entry("functionConfig", span);
        } else if let Some(entry) = &self.function_config {
            e.entries_forced(std::slice::from_ref(entry), 0, self.json);
        }
        results::emit(e, self.previous_results.as_ref(), results, flushed);
        true
    }

    /// Writes untouched block item `i` (`trivia` as [`Items::trivia`] gives it) by copying its
    /// text, with the comment lines after the list when it is the last.
    pub(super) fn copy_item(&self, e: &mut Emitter, i: usize, trivia: &Trivia) {
        e.raw_item(trivia, 0);
        if i == self.items.len().wrapping_sub(1) {
            if let Some(tail) = self.tail {
                e.tail(tail, trivia, 0);
            }
        }
    }
}

/// The comment and blank lines between the end of a block `items` list and the next key of the
/// ResourceList (its lead), or the end of the input (up to a `...` line).
fn items_tail(src: &str, entries: &[Entry]) -> Option<Span> {
    let i = entries
        .iter()
        .position(|e| e.key.scalar_text() == "items")?;
    let list = entries[i]
        .value
        .span()
        .filter(|_| entries[i].value.is_sequence())?;
    if let Some(next) = entries.get(i + 1) {
        return next.trivia.lead;
    }
    let start = breaks::next_break(src.as_bytes(), list.end() as usize).map(|(i, n)| i + n)?;
    let rest = &src[start..];
    let mut end = rest.len();
    let mut at = 0;
    for line in breaks::lines_inclusive(rest) {
        if line.starts_with("...") {
            end = at;
            break;
        }
        at += line.len();
    }
    (end > 0).then(|| Span::new(start, start + end))
}

#[cfg(test)]
mod emit_to_tests {
    use super::*;

    /// Streaming in chunks writes exactly what `emit` returns, edits, removals, additions,
    /// functionConfig and results included, across several chunk boundaries.
    #[test]
    fn emit_to_writes_what_emit_returns() {
        let mut src =
            String::from("apiVersion: config.kubernetes.io/v1\nkind: ResourceList\nitems:\n");
        for i in 0..8000 {
            src.push_str(&format!(
                "- apiVersion: v1 # c{i}\n  kind: ConfigMap\n  metadata:\n    name: cm-{i}\n  data: {{k: 'v{i}'}}\n"
            ));
        }
        src.push_str("functionConfig:\n  apiVersion: v1\n  kind: ConfigMap\n  data: {a: b}\n");
        let rl = match ResourceList::parse(&src) {
            Ok(rl) => rl,
            Err(e) => panic!("{e}"),
        };
        assert!(src.len() > 2 * EMIT_CHUNK);
        let mut changes = Changes::default();
        if let Ok(mut t) = rl.tree(7) {
            t.set("extra", Node::string("on"));
            changes.edited.insert(7, t);
        }
        changes.removed = vec![3, 7999];
        changes.added.push(crate::yaml::from_json(
            &serde_json::json!({"apiVersion": "v1", "kind": "ConfigMap", "metadata": {"name": "new"}}),
        ));
        let results = vec![ResultItem::info("done")];
        let whole = rl.emit(&changes, &results);
        // Held whole, held in part then made again, and past the limit: nothing written.
        for hold in [usize::MAX, 3 * EMIT_CHUNK, 0] {
            let mut streamed = Vec::new();
            assert!(rl
                .emit_within(&changes, &results, &mut streamed, whole.len(), hold)
                .is_ok());
            assert_eq!(String::from_utf8(streamed).unwrap_or_default(), whole);
            let mut streamed = Vec::new();
            assert!(matches!(
                rl.emit_within(&changes, &results, &mut streamed, whole.len() - 1, hold),
                Err(EmitError::TooLarge)
            ));
            assert!(streamed.is_empty());
        }
        assert!(whole.contains("  extra: ") && whole.contains("name: new"));
        assert!(!whole.contains("name: cm-3\n") && whole.contains("name: cm-30\n"));
    }
}

#[cfg(test)]
mod tests;
