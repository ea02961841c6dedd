//! The parser: builds the node tree from the text, keeping source spans.
//!
//! Recursive descent over bytes, written for the YAML that KRM tools produce and people edit:
//! block and flow collections, every scalar style, comments, anchors, aliases and tags. It
//! records where every node, entry and comment came from so that the emitter can copy
//! untouched text verbatim. Complex keys (`? `), flow keys in block mappings and multiple
//! documents are refused with a clear error rather than guessed at. Nesting depth is bounded
//! so hostile input cannot overflow the stack.

mod block;
mod flow;
mod reader;
mod scalar;
mod stream;

pub use stream::ItemOrigin;

use super::node::{Kind, Node, Props, Scalar, ScalarStyle, Span};
use reader::{is_eol, is_flow_indicator, is_ws_or_eol};
use scalar::Stop;
use std::fmt;

pub use super::node::MAX_DEPTH;

/// Mappings up to this many keys are checked for a repeated key as each key is read; wider ones
/// once, when complete (see [`Parser::check_new_key`]).
const LINEAR_KEY_CHECK: usize = 32;

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

/// Where a value sits, which decides what may start inline.
#[derive(Clone, Copy, PartialEq, Eq)]
pub(crate) enum Ctx {
    /// After `key:`.
    MapValue,
    /// After `-`.
    SeqItem,
    /// The document's root.
    Root,
}

pub struct Parser<'a> {
    pub(crate) s: &'a str,
    pub(crate) b: &'a [u8],
    pub(crate) pos: usize,
    /// Start of the line that `pos` is on.
    pub(crate) ls: usize,
    pub(crate) depth: usize,
}

impl<'a> Parser<'a> {
    pub fn new(s: &'a str) -> Parser<'a> {
        Parser {
            s,
            b: s.as_bytes(),
            pos: 0,
            ls: 0,
            depth: 0,
        }
    }

    /// A parser positioned inside `s` at `pos` (used to re-parse one item).
    pub fn at(s: &'a str, pos: usize) -> Parser<'a> {
        let ls = s[..pos].rfind('\n').map_or(0, |i| i + 1);
        Parser {
            s,
            b: s.as_bytes(),
            pos,
            ls,
            depth: 0,
        }
    }

    // ----- documents -------------------------------------------------------------------

    /// Skips directives, comments and the `---` marker before a document's root node.
    pub(crate) fn begin_document(&mut self) -> PResult<()> {
        if self.s.starts_with('\u{feff}') {
            self.pos = 3;
            self.ls = 3;
        }
        loop {
            self.skip_trivia()?;
            if self.pos == self.ls && self.peek() == b'%' {
                self.skip_to_eol();
                continue;
            }
            if self.at_doc_marker() && self.b[self.pos..].starts_with(b"---") {
                self.pos += 3;
                self.skip_inline_ws();
                if self.peek() == b'#' || is_eol(self.peek()) {
                    self.skip_to_eol();
                    continue;
                }
            }
            return Ok(());
        }
    }

    /// After the root node: only comments, `...` and nothing else may follow.
    pub(crate) fn end_document(&mut self) -> PResult<()> {
        loop {
            self.skip_trivia()?;
            if self.eof() {
                return Ok(());
            }
            if self.at_doc_marker() && self.b[self.pos..].starts_with(b"...") {
                self.pos += 3;
                self.skip_to_eol();
                continue;
            }
            if self.at_doc_marker() {
                let p = self.pos;
                self.pos += 3;
                self.skip_trivia()?;
                if self.eof() {
                    return Ok(());
                }
                return Err(self.error_at(
                    p,
                    "the input holds more than one YAML document; send exactly one ResourceList",
                ));
            }
            return self.err(format!(
                "unexpected {} after the end of the document",
                describe(self.s, self.pos)
            ));
        }
    }

    /// Parses a whole single-document stream.
    pub fn parse_document(&mut self) -> PResult<Node> {
        self.begin_document()?;
        if self.eof() {
            return Ok(null_at(self.pos));
        }
        let (node, _) = self.parse_value(-1, Ctx::Root)?;
        if !node.is_block_collection() {
            self.take_line_comment()?;
        }
        self.end_document()?;
        Ok(node)
    }

    // ----- block structure ---------------------------------------------------------------

    /// `&anchor` / `!tag` before a node.
    pub(super) fn parse_props(&mut self) -> PResult<Option<Box<Props>>> {
        let mut props: Option<Box<Props>> = None;
        loop {
            match self.peek() {
                b'&' => {
                    let start = self.pos + 1;
                    self.pos += 1;
                    while !is_ws_or_eol(self.peek()) && !is_flow_indicator(self.peek()) {
                        self.pos += 1;
                    }
                    if self.pos == start {
                        return self.err("an anchor needs a name");
                    }
                    let p = props.get_or_insert_with(Default::default);
                    p.anchor = Some(self.s[start..self.pos].to_string());
                }
                b'!' => {
                    let start = self.pos;
                    if self.peek_at(1) == b'<' {
                        while self.peek() != b'>' && !is_eol(self.peek()) {
                            self.pos += 1;
                        }
                        if self.peek() != b'>' {
                            return self.err("unterminated verbatim tag");
                        }
                        self.pos += 1;
                    } else {
                        while !is_ws_or_eol(self.peek()) && !is_flow_indicator(self.peek()) {
                            self.pos += 1;
                        }
                    }
                    let p = props.get_or_insert_with(Default::default);
                    p.tag = Some(self.s[start..self.pos].to_string());
                }
                _ => return Ok(props),
            }
            self.skip_inline_ws();
        }
    }

    /// Parses the value after `key:`, `-` or at the root. Returns the node and the comment on
    /// the indicator's line when the value starts on a later line.
    pub(crate) fn parse_value(&mut self, parent: i64, ctx: Ctx) -> PResult<(Node, Option<Span>)> {
        self.skip_inline_ws();
        let props = self.parse_props()?;
        let c = self.peek();
        if c == b'#' || is_eol(c) {
            let value_pos = self.pos;
            let comment = self.comment_here()?;
            let next = self.next_line()?;
            let ind = next.indent;
            let mut node = if ind > parent {
                let lead = next.lead;
                let col = self.col();
                self.parse_content(parent, col, true, lead)?
            } else if ind == parent && ctx == Ctx::MapValue && self.at_seq_entry() {
                let lead = next.lead;
                let col = self.col();
                self.parse_block_seq(col, lead)?
            } else {
                self.rewind(&next);
                null_at(value_pos)
            };
            if props.is_some() {
                node.props = props;
            }
            return Ok((node, comment));
        }
        let col = self.col();
        let compact_ok = ctx != Ctx::MapValue;
        let mut node = self.parse_content(parent, col, compact_ok, None)?;
        if props.is_some() {
            node.props = props;
        }
        Ok((node, None))
    }

    /// Parses the node starting at `pos` (column `col`). `compact_ok` allows a block mapping or
    /// sequence to start here on a line that already has content (`- key: v`).
    pub(super) fn parse_content(
        &mut self,
        parent: i64,
        col: usize,
        compact_ok: bool,
        lead: Option<Span>,
    ) -> PResult<Node> {
        let first_on_line = self.b[self.ls..self.pos].iter().all(|&c| c == b' ');
        let start = self.pos;
        match self.peek() {
            b'*' => {
                let node = self.parse_alias()?;
                self.check_not_key(start)?;
                Ok(node)
            }
            b'|' | b'>' => self.parse_block_scalar(parent),
            b'[' | b'{' => {
                let node = self.parse_flow_node()?;
                self.check_not_key(start)?;
                Ok(node)
            }
            b'?' if is_ws_or_eol(self.peek_at(1)) => {
                self.err("complex mapping keys ('? ') are not supported")
            }
            b'-' if is_ws_or_eol(self.peek_at(1)) => {
                if compact_ok || first_on_line {
                    self.parse_block_seq(col, lead)
                } else {
                    self.err("a block sequence may not start on the same line as a mapping key")
                }
            }
            b'"' | b'\'' => {
                let node = self.parse_quoted()?;
                let save = self.pos;
                self.skip_inline_ws();
                if self.peek() == b':' && is_ws_or_eol(self.peek_at(1)) {
                    if !(compact_ok || first_on_line) {
                        return self.err("mapping values are not allowed in this context");
                    }
                    self.pos = start;
                    return self.parse_block_mapping(col, lead);
                }
                self.pos = save;
                Ok(node)
            }
            b'@' | b'`' => self.err(format!(
                "{} is reserved and cannot start a plain scalar",
                describe(self.s, self.pos)
            )),
            b'%' if first_on_line && col == 0 => {
                self.err("a directive is not allowed inside a document")
            }
            _ => {
                let (end, stop) = self.scan_plain_line(self.pos, false);
                if stop == Stop::Colon {
                    if end == start {
                        return self.err("a mapping key is empty");
                    }
                    if !(compact_ok || first_on_line) {
                        return self.err("mapping values are not allowed in this context");
                    }
                    return self.parse_block_mapping(col, lead);
                }
                self.parse_plain_block(parent)
            }
        }
    }

    pub(super) fn check_not_key(&mut self, start: usize) -> PResult<()> {
        let save = self.pos;
        self.skip_inline_ws();
        if self.peek() == b':' && is_ws_or_eol(self.peek_at(1)) {
            return Err(self.error_at(
                start,
                "only scalar mapping keys are supported (found an alias or flow collection used as a key)",
            ));
        }
        self.pos = save;
        Ok(())
    }
}

/// Trailing white space before a line end is not part of an entry's text.
pub(super) fn null_at(pos: usize) -> Node {
    let mut n = Node::with_kind(Kind::Scalar(Scalar {
        value: String::new(),
        style: ScalarStyle::Plain,
    }));
    n.src = Some(Span::new(pos, pos));
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

impl Node {
    /// A block (not flow) mapping or sequence: its text ends at a line end.
    pub(crate) fn is_block_collection(&self) -> bool {
        !self.flow && matches!(self.kind, Kind::Mapping(_) | Kind::Sequence(_))
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
