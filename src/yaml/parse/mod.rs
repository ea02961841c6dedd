//! The parser: builds the node tree from the text, keeping source spans.
//!
//! Recursive descent over bytes, following the YAML 1.2 productions for one document: block
//! and flow collections, explicit (`? `) and implicit keys of any kind, every scalar style,
//! comments, anchors, aliases and tags. It records where every node, entry and comment came
//! from so that the emitter can copy untouched text verbatim. What it refuses, it refuses by
//! name: a second document, `%TAG` directives. Nesting depth is bounded so hostile input cannot
//! overflow the stack, and no step looks back over more than the current line or key, so time
//! stays linear in the input.

mod block;
mod block_scalar;
mod document;
mod flow;
mod lines;
mod reader;
mod scalar;
mod stream;

pub use lines::{Field, IdentityPart};
pub use stream::{ItemOrigin, ItemRead};

use super::node::{Entry, Item, Kind, Node, Scalar, ScalarStyle, Span};
use std::collections::HashSet;
use std::fmt;

pub use super::node::{MAX_DEPTH, MAX_TEXT};

/// Mappings up to this many keys are checked for a repeated key as each key is read; wider ones
/// once, when complete (see [`Parser::check_new_key`]).
const LINEAR_KEY_CHECK: usize = 32;

/// How the message of [`Parser::count_value`] starts.
pub const TOO_MANY_VALUES: &str = "an object holds more than";

/// The longest implicit key YAML allows, in characters; longer keys need `? `.
const MAX_IMPLICIT_KEY: usize = 1024;

/// A syntax error with its position (1-based line and column).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ParseError {
    pub message: String,
    pub line: usize,
    pub column: usize,
}

impl fmt::Display for ParseError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(
            f,
            "{} at line {} column {}",
            self.message, self.line, self.column
        )
    }
}

impl std::error::Error for ParseError {}

pub type PResult<T> = Result<T, ParseError>;

/// What precedes a block node, which decides what may start on the same line and where a
/// block sequence may sit.
#[derive(Clone, Copy, PartialEq, Eq, Debug)]
pub(crate) enum Ctx {
    /// The document's root, at the start of a line.
    Root,
    /// The root, on the `---` line: no block collection may start there.
    DocLine,
    /// After `key:`: no block collection on the same line; a sequence may sit at the key's
    /// column.
    MapValue,
    /// After `-`: a compact sequence or mapping may start on the same line.
    SeqItem,
    /// After `? ` or the `: ` of an explicit key: compact collections on the same line, and a
    /// sequence may sit at the indicator's column.
    Explicit,
}

impl Ctx {
    /// A block collection may start on the indicator's line (`- - a`, `- a: b`, `? a: b`).
    fn compact(self) -> bool {
        matches!(self, Ctx::SeqItem | Ctx::Explicit)
    }

    /// A block sequence may sit at the parent's own column (YAML's block-out context).
    fn seq_at_parent(self) -> bool {
        matches!(self, Ctx::MapValue | Ctx::Explicit)
    }
}

pub struct Parser<'a> {
    pub(crate) s: &'a str,
    pub(crate) b: &'a [u8],
    pub(crate) pos: usize,
    /// Start of the line that `pos` is on.
    pub(crate) ls: usize,
    /// Whether the white space before the content [`Parser::skip_trivia`] stopped at holds a
    /// tab (the content then is not where its indentation says).
    pub(crate) line_tab: bool,
    pub(crate) depth: usize,
    /// Deepest nesting accepted ([`crate::yaml::node::depth_limit`], read once).
    pub(crate) max_depth: usize,
    /// Most entries and items one tree may have (see [`Parser::with_value_limit`]).
    pub(crate) max_values: usize,
    /// What is left of `max_values` for the tree being read.
    pub(crate) values_left: usize,
    /// The first entries of the mappings being read, innermost last ([`Building`]).
    pub(crate) entry_stack: Vec<Entry>,
    /// The first items of the sequences being read, likewise.
    pub(crate) item_stack: Vec<Item>,
    /// Skimming ([`Skim`]): where it applies, and whether it is on now.
    pub(crate) skim: Skim,
    /// What the line scanner of skimmed items holds between items.
    pub(crate) lines: lines::Scratch,
    /// The anchor names met so far in the tree being read (the document, or one item of a
    /// ResourceList: each item goes to a file of its own, where another item's anchor is not
    /// there). An alias must name one of them.
    pub(crate) anchors: HashSet<&'a str>,
    /// Reading a ResourceList: an alias that names no anchor is not refused but recorded in
    /// `dangling` (an item's results then name the item and the field; the readers of the
    /// other entries refuse it where they read it).
    pub(crate) record_dangling: bool,
    /// The first alias of the item being read that names no anchor before it.
    pub(crate) dangling: Option<usize>,
}

/// Reading a value without keeping it: the very same code reads it (so it is accepted or
/// refused exactly as when it is kept), but its collections are not built, only their spans
/// kept (an empty collection in their place). A ResourceList item's values other than its
/// identity (`apiVersion`, `kind`, `metadata`, a merge key) are read this way when the item's
/// tree is dropped once its metadata is recorded: the tree then costs what the identity costs.
#[derive(Clone, Copy, Debug, Default)]
pub(crate) struct Skim {
    /// Items are skimmed ([`Parser::skimming_items`]).
    pub(crate) items: bool,
    /// The nesting depth of the mappings whose values are skimmed (an item's root); 0: none.
    pub(crate) at: usize,
    /// A value is being skimmed now.
    pub(crate) on: bool,
    /// An anchor was skimmed: an alias elsewhere in the item may name it, so the item must be
    /// read whole for its metadata to be read as kpt reads it.
    pub(crate) anchor: bool,
    /// An explicit key (`? `) is being read, not yet inside a collection of its own: a block
    /// scalar there is decoded even when skimming, since keys are compared for duplicates.
    pub(crate) key: bool,
}

impl<'a> Parser<'a> {
    pub fn new(s: &'a str) -> Parser<'a> {
        Parser {
            s,
            b: s.as_bytes(),
            pos: 0,
            ls: 0,
            line_tab: false,
            depth: 0,
            max_depth: crate::yaml::node::depth_limit(),
            max_values: usize::MAX,
            values_left: usize::MAX,
            entry_stack: Vec::new(),
            item_stack: Vec::new(),
            skim: Skim::default(),
            lines: lines::Scratch::default(),
            anchors: HashSet::new(),
            record_dangling: false,
            dangling: None,
        }
    }

    /// Starts a tree of its own: an item of a ResourceList, with its own count of values
    /// ([`Parser::count_value`]) and its own anchors.
    pub(crate) fn begin_own_tree(&mut self) {
        self.values_left = self.max_values;
        self.anchors.clear();
        self.dangling = None;
    }

    /// Refuses a tree of more than `n` entries and items (each item of a ResourceList's
    /// `items` is a tree of its own), so that what is held stays within a bound.
    pub fn with_value_limit(mut self, n: usize) -> Parser<'a> {
        self.max_values = n;
        self.values_left = n;
        self
    }

    /// Skims the values of each item of a streamed ResourceList other than its identity
    /// ([`Skim`]): for a caller that keeps only the items' metadata.
    pub fn skimming_items(mut self) -> Parser<'a> {
        self.skim.items = true;
        self.lines.plain_input = lines::plain_input(self.b);
        self
    }

    /// Whether the value of `key`, an entry of the mapping being read, is skimmed.
    #[inline]
    pub(crate) fn skims(&self, key: &Node) -> bool {
        self.skim.at == self.depth
            && !self.skim.on
            && key.is_scalar()
            && !matches!(key.scalar_text(), "apiVersion" | "kind" | "metadata" | "<<")
    }

    /// Counts one more entry or item of the tree being read.
    #[inline]
    pub(crate) fn count_value(&mut self) -> PResult<()> {
        if self.values_left == 0 {
            return self.too_many_values();
        }
        self.values_left -= 1;
        Ok(())
    }

    #[cold]
    fn too_many_values(&self) -> PResult<()> {
        self.err(format!(
            "{TOO_MANY_VALUES} {} values, more than the function can hold for an input of this size; split it",
            self.max_values
        ))
    }

    /// A parser positioned inside `s` at `pos` (used to re-parse one item).
    pub fn at(s: &'a str, pos: usize) -> Parser<'a> {
        let ls = super::breaks::line_start(s, pos);
        Parser::at_line(s, pos, ls)
    }

    /// A parser positioned at `pos` on the line that starts at `ls`.
    pub(crate) fn at_line(s: &'a str, pos: usize, ls: usize) -> Parser<'a> {
        Parser {
            pos,
            ls,
            ..Parser::new(s)
        }
    }

    /// Parses a whole single-document stream. A stream with no document reads as null.
    pub fn parse_document(&mut self) -> PResult<Node> {
        let Some(ctx) = self.begin_document()? else {
            return Ok(null_at(self.pos));
        };
        let (node, _) = self.parse_block_node(-1, ctx)?;
        if !node.is_block_collection() {
            self.take_line_comment()?;
        }
        self.end_document()?;
        Ok(node)
    }
}

/// An empty plain scalar (null) at `pos`.
pub(super) fn null_at(pos: usize) -> Node {
    let mut n = Node::with_kind(Kind::Scalar(Scalar {
        value: Default::default(),
        style: ScalarStyle::Plain,
    }));
    n.set_src(Some(Span::new(pos, pos)));
    n
}

/// A short description of the character at `pos`, for error messages.
pub(crate) fn describe(s: &str, pos: usize) -> String {
    match s.get(pos..).and_then(|t| t.chars().next()) {
        None => "end of input".to_string(),
        Some(c) if c.is_control() => format!("character U+{:04X}", c as u32),
        Some(c) => format!("'{c}'"),
    }
}

/// What stands for a skimmed collection ([`Skim`]): empty, of the same kind, style and span.
pub(super) fn skimmed(kind: Kind, span: Span, flow: bool) -> Node {
    let mut n = Node::with_kind(kind);
    n.set_flow(flow);
    n.set_src(Some(span));
    n
}

impl Node {
    /// A block (not flow) mapping or sequence: its text ends at a line end.
    pub(crate) fn is_block_collection(&self) -> bool {
        !self.is_flow() && matches!(self.kind, Kind::Mapping(_) | Kind::Sequence(_))
    }
}

/// Parses a single YAML document.
///
/// ```
/// use package_variant::yaml::{emit, parse, Node};
///
/// let src = "data:\n  # kept\n  on: 'on' # quoted\n";
/// let mut doc = parse(src).unwrap();
/// doc.get_mut("data").unwrap().set("region", Node::string("us-east1"));
/// assert_eq!(
///     emit::to_string(src, &doc),
///     "data:\n  # kept\n  on: 'on' # quoted\n  region: us-east1\n"
/// );
/// ```
pub fn parse(s: &str) -> PResult<Node> {
    Parser::new(s).parse_document()
}

/// A collection being read: its first [`ON_STACK`] entries or items wait on the parser's
/// shared stack and are moved into a `Vec` of their exact size when it ends; a wider one moves
/// them to a `Vec` of its own and grows that, cut to size at the end.
///
/// Why: a `Vec` per collection grows by doubling from four, so a one-entry `{a: 1}` in a long
/// list held room for four (480 bytes where 120 do), and cutting each one afterwards left holes
/// the allocator could not reuse for the next (a list of 320,000 of them took 187 MB to read).
pub(crate) struct Building<T> {
    base: usize,
    own: Vec<T>,
}

/// Entries or items a collection keeps on the shared stack before it takes a `Vec` of its own.
const ON_STACK: usize = 16;

impl<T> Building<T> {
    pub(crate) fn new(stack: &[T]) -> Building<T> {
        Building {
            base: stack.len(),
            own: Vec::new(),
        }
    }

    #[inline]
    pub(crate) fn push(&mut self, stack: &mut Vec<T>, v: T) {
        if self.own.capacity() == 0 {
            if stack.len() - self.base < ON_STACK {
                stack.push(v);
                return;
            }
            self.own = Vec::with_capacity(2 * ON_STACK);
            self.own.extend(stack.drain(self.base..));
        }
        self.own.push(v);
    }

    /// What was pushed so far.
    pub(crate) fn so_far<'s>(&'s self, stack: &'s [T]) -> &'s [T] {
        if self.own.capacity() == 0 {
            &stack[self.base..]
        } else {
            &self.own
        }
    }

    /// Drops what was pushed (a skimmed collection, [`Skim`]).
    pub(crate) fn discard(self, stack: &mut Vec<T>) {
        if self.own.capacity() == 0 {
            stack.truncate(self.base);
        }
    }

    /// The collection's entries or items, with no room to spare (less than a cache line).
    pub(crate) fn finish(mut self, stack: &mut Vec<T>) -> Vec<T> {
        if self.own.capacity() == 0 {
            return stack.drain(self.base..).collect();
        }
        if (self.own.capacity() - self.own.len()) * std::mem::size_of::<T>() > 64 {
            self.own.shrink_to_fit();
        }
        self.own
    }
}
