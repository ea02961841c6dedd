//! The YAML node tree: values plus enough of their source to write them back unchanged.
//!
//! Every parsed node remembers the byte span of its source text. A node that was never
//! mutably accessed is written back by copying that text, so comments, quoting, flow style and
//! block scalars survive byte for byte. Reaching a node through any `&mut` accessor marks it
//! and every ancestor on the way as touched (you cannot reach a child mutably without going
//! through its parent), so exactly the touched path is re-emitted and everything beside it is
//! still copied. A touched node still knows where it came from ([`Node::origin`]).

use super::resolve::{self, Resolved};
pub use super::style::ScalarStyle;
use std::fmt;
use std::num::NonZeroU32;

pub mod short_str;
pub use short_str::ShortStr;

/// Deepest nesting of collections accepted (by the parser, and by every walk of a tree), when
/// the work's stack holds it (see [`depth_limit`]).
pub const MAX_DEPTH: usize = 256;

mod stack;
pub use stack::{
    depth_limit, levels_within, nesting_limit_named, set_work_stack, stack_for, work_stack,
    STACK_BASE, STACK_PER_LEVEL,
};

/// Longest text a tree can point into: positions are kept in 29 bits (see [`Node`]).
pub const MAX_TEXT: usize = (1 << 29) - 1;

/// A byte range in the source text. Eight bytes, and so is an `Option<Span>`.
#[derive(Clone, Copy, PartialEq, Eq)]
pub struct Span {
    start: u32,
    /// `end + 1`: never zero, which leaves `Option<Span>` a value to mean `None`.
    end: NonZeroU32,
}

impl Span {
    pub fn new(start: usize, end: usize) -> Span {
        Span {
            start: start as u32,
            end: NonZeroU32::MIN.saturating_add(end as u32),
        }
    }

    pub fn start(self) -> u32 {
        self.start
    }

    pub fn end(self) -> u32 {
        self.end.get() - 1
    }

    pub fn range(self) -> std::ops::Range<usize> {
        self.start as usize..self.end() as usize
    }

    pub fn is_empty(self) -> bool {
        self.start >= self.end()
    }
}

impl Default for Span {
    fn default() -> Span {
        Span::new(0, 0)
    }
}

impl fmt::Debug for Span {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("Span")
            .field("start", &self.start)
            .field("end", &self.end())
            .finish()
    }
}

/// A scalar: its decoded text and how it was written.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Scalar {
    /// The decoded value (escapes processed, lines folded, block indentation removed).
    pub value: ShortStr,
    pub style: ScalarStyle,
}

impl Scalar {
    /// What the scalar reads as, given its tag (see [`resolve::resolve`]).
    pub fn resolved(&self, tag: Option<&str>) -> Resolved {
        resolve::resolve(&self.value, self.style == ScalarStyle::Plain, tag)
    }
}

/// The value kinds of a YAML node.
#[derive(Debug, Clone, PartialEq)]
pub enum Kind {
    Scalar(Scalar),
    Mapping(Vec<Entry>),
    Sequence(Vec<Item>),
    /// `*name`: kept as written; resolved only when converting to JSON.
    Alias(ShortStr),
}

/// One `key: value` pair of a mapping, with the comments around it.
#[derive(Debug, Clone, PartialEq)]
pub struct Entry {
    pub key: Node,
    pub value: Node,
    pub trivia: Trivia,
}

/// One element of a sequence, with the comments around it.
#[derive(Debug, Clone, PartialEq)]
pub struct Item {
    pub value: Node,
    pub trivia: Trivia,
}

/// Source text that belongs to an entry or item but is not part of its value.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub struct Trivia {
    /// Comment and blank lines before the entry (from the end of the previous line).
    pub lead: Option<Span>,
    /// `# comment` on the entry's line: after a scalar value, or after `key:` when the value is
    /// a block collection.
    pub comment: Option<Span>,
    /// The whole entry as written (key through value and comment), for copying when clean;
    /// empty once cleared, when only where the entry (its properties, key or `?`) or item (its
    /// `-`) began is kept, so a re-written entry moves by as much as the text around it.
    written: Option<Span>,
}

impl Trivia {
    /// Trivia of an entry or item written at `whole`.
    pub(crate) fn written(lead: Option<Span>, comment: Option<Span>, whole: Span) -> Trivia {
        Trivia {
            lead,
            comment,
            written: Some(whole),
        }
    }

    /// The whole entry as written, while it may still be copied.
    pub fn whole(&self) -> Option<Span> {
        self.written.filter(|w| !w.is_empty())
    }

    /// Sets the whole entry's text, or (`None`) clears it and keeps where it began.
    pub fn set_whole(&mut self, whole: Option<Span>) {
        self.written = match (whole, self.written) {
            (Some(w), _) => Some(w),
            (None, Some(w)) => Some(Span::new(w.start as usize, w.start as usize)),
            (None, None) => None,
        };
    }

    /// Where the entry or item began in the source, if it came from there.
    pub fn start(&self) -> Option<usize> {
        self.written.map(|w| w.start as usize)
    }
}

/// `&anchor` and `!tag` written before a node.
#[derive(Debug, Clone, PartialEq, Eq, Default)]
pub struct Props {
    pub anchor: Option<String>,
    pub tag: Option<String>,
}

/// Where a node was read from and its two flags, in eight bytes: the span's ends in 29 bits
/// each (see [`MAX_TEXT`]), then whether there is a span, `touched` and `flow`.
#[derive(Clone, Copy, PartialEq, Eq, Default)]
struct Src(u64);

const POS: u64 = (1 << 29) - 1;
const HAS_SPAN: u64 = 1 << 58;
const TOUCHED: u64 = 1 << 59;
const FLOW: u64 = 1 << 60;

impl Src {
    fn span(self) -> Option<Span> {
        (self.0 & HAS_SPAN != 0)
            .then(|| Span::new((self.0 & POS) as usize, (self.0 >> 29 & POS) as usize))
    }

    fn set_span(&mut self, span: Option<Span>) {
        self.0 &= TOUCHED | FLOW;
        if let Some(s) = span {
            debug_assert!(s.end() as usize <= MAX_TEXT, "span past MAX_TEXT");
            self.0 |= HAS_SPAN | (s.start as u64 & POS) | (s.end() as u64 & POS) << 29;
        }
    }

    fn flag(self, f: u64) -> bool {
        self.0 & f != 0
    }

    fn set_flag(&mut self, f: u64, on: bool) {
        if on {
            self.0 |= f;
        } else {
            self.0 &= !f;
        }
    }
}

/// A YAML node. See the module documentation for how source text is kept. 48 bytes: a wide
/// mapping holds two of them (and a [`Trivia`]) per key.
#[derive(Clone, PartialEq)]
pub struct Node {
    pub(crate) kind: Kind,
    /// Source span of the node's own text (`None` for new nodes); reached through a `&mut`
    /// accessor (written from the tree, no longer copied); `{...}` / `[...]` style.
    src: Src,
    pub(crate) props: Option<Box<Props>>,
}

impl fmt::Debug for Node {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("Node")
            .field("kind", &self.kind)
            .field("src", &self.src.span())
            .field("touched", &self.src.flag(TOUCHED))
            .field("flow", &self.src.flag(FLOW))
            .field("props", &self.props)
            .finish()
    }
}

impl Node {
    pub(crate) fn with_kind(kind: Kind) -> Node {
        Node {
            kind,
            src: Src::default(),
            props: None,
        }
    }

    /// Sets where the node was read from (the parser).
    pub(crate) fn set_src(&mut self, span: Option<Span>) {
        self.src.set_span(span);
    }

    /// Sets `{...}` / `[...]` style.
    pub(crate) fn set_flow(&mut self, flow: bool) {
        self.src.set_flag(FLOW, flow);
    }

    /// A new string scalar; its quoting is chosen when written.
    pub fn string(value: impl Into<ShortStr>) -> Node {
        Node::with_kind(Kind::Scalar(Scalar {
            value: value.into(),
            style: ScalarStyle::Plain,
        }))
        .auto_style()
    }

    /// A new plain scalar written exactly as given (numbers, booleans, `null`).
    pub fn plain(text: impl Into<ShortStr>) -> Node {
        Node::with_kind(Kind::Scalar(Scalar {
            value: text.into(),
            style: ScalarStyle::Plain,
        }))
    }

    /// A new scalar with an explicit style.
    pub fn scalar(value: impl Into<ShortStr>, style: ScalarStyle) -> Node {
        Node::with_kind(Kind::Scalar(Scalar {
            value: value.into(),
            style,
        }))
    }

    /// A new, empty block mapping.
    pub fn mapping() -> Node {
        Node::with_kind(Kind::Mapping(Vec::new()))
    }

    /// A new, empty block sequence.
    pub fn sequence() -> Node {
        Node::with_kind(Kind::Sequence(Vec::new()))
    }

    /// Picks the quoting a kyaml encoder would pick for a string value.
    fn auto_style(mut self) -> Node {
        if let Kind::Scalar(s) = &mut self.kind {
            s.style = super::style::string_style(&s.value);
        }
        self
    }

    /// The node's kind.
    pub fn kind(&self) -> &Kind {
        &self.kind
    }

    /// True when the node still has its source text (it was never touched).
    pub fn is_pristine(&self) -> bool {
        self.src.0 & (HAS_SPAN | TOUCHED) == HAS_SPAN
    }

    /// The source span, when pristine.
    pub fn span(&self) -> Option<Span> {
        self.src.span().filter(|_| !self.src.flag(TOUCHED))
    }

    /// Where the node was read from, touched or not.
    pub fn origin(&self) -> Option<Span> {
        self.src.span()
    }

    /// True for `{}`/`[]` style collections.
    pub fn is_flow(&self) -> bool {
        self.src.flag(FLOW)
    }

    /// Anchor and tag, when written.
    pub fn props(&self) -> Option<&Props> {
        self.props.as_deref()
    }

    /// The tag (`!!str`, `!custom`), when written.
    pub fn tag(&self) -> Option<&str> {
        self.props.as_ref().and_then(|p| p.tag.as_deref())
    }

    /// Marks the node as changed: it will be written from the tree, not copied.
    pub fn touch(&mut self) {
        self.src.set_flag(TOUCHED, true);
    }

    pub fn is_mapping(&self) -> bool {
        matches!(self.kind, Kind::Mapping(_))
    }

    pub fn is_sequence(&self) -> bool {
        matches!(self.kind, Kind::Sequence(_))
    }

    pub fn is_scalar(&self) -> bool {
        matches!(self.kind, Kind::Scalar(_))
    }

    /// The scalar, if this is one.
    pub fn as_scalar(&self) -> Option<&Scalar> {
        match &self.kind {
            Kind::Scalar(s) => Some(s),
            _ => None,
        }
    }

    /// A plain scalar that YAML reads as null (`null`, `~`, empty), with no string tag.
    #[inline]
    pub fn is_null(&self) -> bool {
        match &self.kind {
            Kind::Scalar(s) => {
                s.style == ScalarStyle::Plain
                    && self.tag().is_none_or(|t| t == "!!null")
                    && matches!(s.value.as_str(), "" | "~" | "null" | "Null" | "NULL")
            }
            _ => false,
        }
    }

    /// The text of a non-null scalar (whatever type it resolves to).
    pub fn as_str(&self) -> Option<&str> {
        match &self.kind {
            Kind::Scalar(s) if !self.is_null() => Some(&s.value),
            _ => None,
        }
    }

    /// The text of a scalar that YAML reads as a string (quoted, block, `!!str`, or a plain
    /// scalar that is not null, bool or number).
    pub fn as_string_value(&self) -> Option<&str> {
        match &self.kind {
            Kind::Scalar(s) => match s.resolved(self.tag()) {
                Resolved::Str => Some(&s.value),
                _ => None,
            },
            _ => None,
        }
    }

    /// The mapping entries, if this is a mapping.
    pub fn entries(&self) -> Option<&[Entry]> {
        match &self.kind {
            Kind::Mapping(e) => Some(e),
            _ => None,
        }
    }

    /// The mapping entries for editing; touches the node.
    pub fn entries_mut(&mut self) -> Option<&mut Vec<Entry>> {
        match &mut self.kind {
            Kind::Mapping(e) => {
                self.src.set_flag(TOUCHED, true);
                Some(e)
            }
            _ => None,
        }
    }

    /// The sequence items, if this is a sequence.
    pub fn items(&self) -> Option<&[Item]> {
        match &self.kind {
            Kind::Sequence(i) => Some(i),
            _ => None,
        }
    }

    /// The sequence items for editing; touches the node.
    pub fn items_mut(&mut self) -> Option<&mut Vec<Item>> {
        match &mut self.kind {
            Kind::Sequence(i) => {
                self.src.set_flag(TOUCHED, true);
                Some(i)
            }
            _ => None,
        }
    }

    /// Iterates over the items' values of a sequence (empty for other kinds).
    pub fn iter(&self) -> impl Iterator<Item = &Node> {
        self.items().unwrap_or(&[]).iter().map(|i| &i.value)
    }

    /// Iterates over `(key text, value)` of a mapping (empty for other kinds).
    pub fn pairs(&self) -> impl Iterator<Item = (&str, &Node)> {
        self.entries()
            .unwrap_or(&[])
            .iter()
            .map(|e| (e.key.scalar_text(), &e.value))
    }

    /// The key text of a scalar key (empty for other keys).
    pub(crate) fn scalar_text(&self) -> &str {
        match &self.kind {
            Kind::Scalar(s) => &s.value,
            _ => "",
        }
    }

    /// Position of `key` in a mapping.
    pub fn position(&self, key: &str) -> Option<usize> {
        self.entries()?
            .iter()
            .position(|e| e.key.scalar_text() == key && e.key.is_scalar())
    }

    /// The value at `key` of a mapping.
    pub fn get(&self, key: &str) -> Option<&Node> {
        let i = self.position(key)?;
        self.entries().map(|e| &e[i].value)
    }

    /// The value at `key`, for editing; touches this node.
    pub fn get_mut(&mut self, key: &str) -> Option<&mut Node> {
        let i = self.position(key)?;
        self.entries_mut().map(|e| &mut e[i].value)
    }

    /// Follows a path of mapping keys.
    pub fn path(&self, keys: &[&str]) -> Option<&Node> {
        let mut n = self;
        for k in keys {
            n = n.get(k)?;
        }
        Some(n)
    }

    /// Follows a path of mapping keys for editing; touches every node on the way.
    pub fn path_mut(&mut self, keys: &[&str]) -> Option<&mut Node> {
        let mut n = self;
        for k in keys {
            n = n.get_mut(k)?;
        }
        Some(n)
    }

    /// String value at a path of mapping keys.
    pub fn str_at(&self, keys: &[&str]) -> Option<&str> {
        self.path(keys).and_then(Node::as_str)
    }

    /// Sets `key` to `value`. An existing key keeps its place and comments; a new key is
    /// appended. Returns `false` (and does nothing) when this is not a mapping.
    pub fn set(&mut self, key: &str, value: Node) -> bool {
        match self.position(key) {
            Some(i) => {
                let e = &mut self.entries_mut().expect("position implies mapping")[i];
                e.value = value;
                e.trivia.set_whole(None);
                true
            }
            None => match self.entries_mut() {
                Some(entries) => {
                    entries.push(Entry {
                        key: Node::string(key),
                        value,
                        trivia: Trivia::default(),
                    });
                    true
                }
                None => false,
            },
        }
    }

    /// Returns the mapping at `key`, creating an empty one (appended) when absent or not a
    /// mapping.
    pub fn upsert_mapping(&mut self, key: &str) -> Option<&mut Node> {
        if !self.get(key).is_some_and(Node::is_mapping) && !self.set(key, Node::mapping()) {
            return None;
        }
        self.get_mut(key)
    }

    /// Removes `key` from a mapping, returning its value.
    pub fn remove(&mut self, key: &str) -> Option<Node> {
        let i = self.position(key)?;
        self.entries_mut().map(|e| e.remove(i).value)
    }

    /// Appends a value to a sequence. Returns `false` when this is not a sequence.
    pub fn push(&mut self, value: Node) -> bool {
        match self.items_mut() {
            Some(items) => {
                items.push(Item {
                    value,
                    trivia: Trivia::default(),
                });
                true
            }
            None => false,
        }
    }
}

impl fmt::Display for Kind {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(match self {
            Kind::Scalar(_) => "scalar",
            Kind::Mapping(_) => "mapping",
            Kind::Sequence(_) => "sequence",
            Kind::Alias(_) => "alias",
        })
    }
}
