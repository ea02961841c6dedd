//! A YAML parser that keeps source spans.
//!
//! Recursive descent over bytes, written for the YAML that KRM tools produce and people edit:
//! block and flow collections, every scalar style, comments, anchors, aliases and tags. It
//! records where every node, entry and comment came from so that the emitter can copy
//! untouched text verbatim. Complex keys (`? `), flow keys in block mappings and multiple
//! documents are refused with a clear error rather than guessed at. Nesting depth is bounded
//! so hostile input cannot overflow the stack.

use super::node::{Entry, Item, Kind, Node, Props, Scalar, ScalarStyle, Span, Trivia};
use std::fmt;

/// Deepest nesting of collections accepted.
pub const MAX_DEPTH: usize = 256;

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
    b: &'a [u8],
    pub(crate) pos: usize,
    /// Start of the line that `pos` is on.
    ls: usize,
    depth: usize,
}

fn is_ws(c: u8) -> bool {
    c == b' ' || c == b'\t'
}

fn is_eol(c: u8) -> bool {
    c == b'\n' || c == b'\r' || c == 0
}

fn is_ws_or_eol(c: u8) -> bool {
    is_ws(c) || is_eol(c)
}

fn is_flow_indicator(c: u8) -> bool {
    matches!(c, b',' | b'[' | b']' | b'{' | b'}')
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

    fn peek(&self) -> u8 {
        self.b.get(self.pos).copied().unwrap_or(0)
    }

    fn peek_at(&self, i: usize) -> u8 {
        self.b.get(self.pos + i).copied().unwrap_or(0)
    }

    fn eof(&self) -> bool {
        self.pos >= self.b.len()
    }

    pub(crate) fn col(&self) -> usize {
        self.pos - self.ls
    }

    pub(crate) fn err<T>(&self, msg: impl Into<String>) -> PResult<T> {
        Err(self.error_at(self.pos, msg))
    }

    pub(crate) fn error_at(&self, pos: usize, msg: impl Into<String>) -> ParseError {
        let pos = pos.min(self.b.len());
        let before = &self.b[..pos];
        let line = before.iter().filter(|&&c| c == b'\n').count() + 1;
        let ls = before
            .iter()
            .rposition(|&c| c == b'\n')
            .map_or(0, |i| i + 1);
        let column = self.s.get(ls..pos).map_or(pos - ls, |t| t.chars().count()) + 1;
        ParseError {
            message: msg.into(),
            line,
            column,
        }
    }

    fn enter(&mut self) -> PResult<()> {
        self.depth += 1;
        if self.depth > MAX_DEPTH {
            return self.err(format!(
                "YAML nesting is deeper than {MAX_DEPTH} levels; refusing to parse it"
            ));
        }
        Ok(())
    }

    fn leave(&mut self) {
        self.depth -= 1;
    }

    fn skip_inline_ws(&mut self) {
        while is_ws(self.peek()) {
            self.pos += 1;
        }
    }

    /// Consumes one line break (`\n` or `\r\n`), if here.
    fn eat_newline(&mut self) -> bool {
        match self.peek() {
            b'\n' => {
                self.pos += 1;
                self.ls = self.pos;
                true
            }
            b'\r' if self.peek_at(1) == b'\n' => {
                self.pos += 2;
                self.ls = self.pos;
                true
            }
            b'\r' => {
                self.pos += 1;
                self.ls = self.pos;
                true
            }
            _ => false,
        }
    }

    fn skip_to_eol(&mut self) {
        while !is_eol(self.peek()) {
            self.pos += 1;
        }
        // A lone NUL inside the text is not the end.
        while self.peek() == 0 && !self.eof() {
            self.pos += 1;
            while !is_eol(self.peek()) {
                self.pos += 1;
            }
        }
    }

    /// Skips blank lines and comment lines, stopping at the first content of a line (or EOF).
    /// Errors on tabs used as indentation before content.
    pub(crate) fn skip_trivia(&mut self) -> PResult<()> {
        loop {
            self.skip_inline_ws();
            match self.peek() {
                b'#' => self.skip_to_eol(),
                b'\n' | b'\r' => {
                    self.eat_newline();
                }
                0 if self.eof() => return Ok(()),
                _ => {
                    let indentation = &self.b[self.ls..self.pos];
                    if indentation.contains(&b'\t') && indentation.iter().all(|&c| is_ws(c)) {
                        return self.err("found a tab character used as indentation");
                    }
                    return Ok(());
                }
            }
        }
    }

    /// `---` or `...` at the start of a line.
    fn at_doc_marker(&self) -> bool {
        self.pos == self.ls
            && (self.b[self.pos..].starts_with(b"---") || self.b[self.pos..].starts_with(b"..."))
            && is_ws_or_eol(self.peek_at(3))
    }

    /// Indentation of the current content, or -1 at EOF or a document marker.
    fn cur_indent(&self) -> i64 {
        if self.eof() || self.at_doc_marker() {
            -1
        } else {
            self.col() as i64
        }
    }

    fn at_seq_entry(&self) -> bool {
        self.peek() == b'-' && is_ws_or_eol(self.peek_at(1))
    }

    /// `# comment` after inline whitespace on the current line; leaves `pos` at the line end.
    fn take_line_comment(&mut self) -> PResult<Option<Span>> {
        let save = self.pos;
        self.skip_inline_ws();
        if self.peek() == b'#' {
            if self.pos == save && self.pos != self.ls {
                return self.err("a comment must be separated from other tokens by white space");
            }
            let start = self.pos;
            self.skip_to_eol();
            return Ok(Some(Span::new(start, self.pos)));
        }
        if !is_eol(self.peek()) || (self.peek() == 0 && !self.eof()) {
            return self.err(format!(
                "unexpected {} after a value",
                describe(self.s, self.pos)
            ));
        }
        Ok(None)
    }

    /// A `# comment` starting exactly here (after an indicator and white space).
    fn comment_here(&mut self) -> PResult<Option<Span>> {
        if self.peek() != b'#' {
            return Ok(None);
        }
        let start = self.pos;
        if start > 0 && !is_ws(self.b[start - 1]) && start != self.ls {
            return self.err("a comment must be separated from other tokens by white space");
        }
        self.skip_to_eol();
        Ok(Some(Span::new(start, self.pos)))
    }

    /// Leaves the current line (at its end) for the next line with content: the comment and
    /// blank lines in between become the `lead` of what starts there. `rewind` goes back when
    /// that content belongs to an enclosing collection.
    fn next_line(&mut self) -> PResult<NextLine> {
        let line_end = self.pos;
        let line_start = self.ls;
        self.eat_newline();
        let lead_start = self.pos;
        self.skip_trivia()?;
        Ok(NextLine {
            line_end,
            line_start,
            lead: (self.ls > lead_start).then(|| Span::new(lead_start, self.ls)),
            indent: self.cur_indent(),
        })
    }

    fn rewind(&mut self, next: &NextLine) {
        self.pos = next.line_end;
        self.ls = next.line_start;
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
    fn parse_props(&mut self) -> PResult<Option<Box<Props>>> {
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
    fn parse_content(
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

    fn check_not_key(&mut self, start: usize) -> PResult<()> {
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

    /// A block mapping whose first key starts at `pos`, column `col`.
    fn parse_block_mapping(&mut self, col: usize, first_lead: Option<Span>) -> PResult<Node> {
        self.enter()?;
        let start = self.pos;
        let mut entries: Vec<Entry> = Vec::new();
        let mut lead = first_lead;
        let mut end;
        loop {
            let key_start = self.pos;
            let key = self.parse_key()?;
            self.check_new_key(&entries, &key, key_start)?;
            // parse_key left us on the ':'.
            self.pos += 1;
            let (value, mut comment) = self.parse_value(col as i64, Ctx::MapValue)?;
            if !value.is_block_collection() {
                if let Some(c) = self.take_line_comment()? {
                    comment = Some(c);
                }
                end = self.pos;
            } else {
                end = value.src.map_or(self.pos, |s| s.end as usize);
            }
            entries.push(Entry {
                key,
                value,
                trivia: Trivia {
                    lead,
                    comment,
                    whole: Some(Span::new(key_start, end)),
                },
            });
            let next = self.next_line()?;
            let ind = next.indent;
            if ind == col as i64 {
                if self.at_seq_entry() {
                    return self
                        .err("a sequence entry is not allowed here (check the indentation)");
                }
                lead = next.lead;
                continue;
            }
            if ind > col as i64 {
                return self.err("bad indentation of a mapping entry");
            }
            self.rewind(&next);
            break;
        }
        self.check_keys_unique(&entries)?;
        self.leave();
        let mut node = Node::with_kind(Kind::Mapping(entries));
        node.src = Some(Span::new(start, end));
        Ok(node)
    }

    /// Refuses `key` (read at `key_start`) when it is already among `entries`. Only while the
    /// mapping is small: a larger one is checked once, when complete, by
    /// [`Parser::check_keys_unique`], so a wide mapping costs linear time, not quadratic.
    fn check_new_key(&self, entries: &[Entry], key: &Node, key_start: usize) -> PResult<()> {
        if entries.len() < LINEAR_KEY_CHECK
            && entries
                .iter()
                .any(|e| e.key.scalar_text() == key.scalar_text())
        {
            return Err(self.duplicate_key(key, key_start));
        }
        Ok(())
    }

    /// The check of [`Parser::check_new_key`] for a complete mapping too wide for it.
    fn check_keys_unique(&self, entries: &[Entry]) -> PResult<()> {
        if entries.len() <= LINEAR_KEY_CHECK {
            return Ok(());
        }
        let mut seen = std::collections::HashSet::with_capacity(entries.len());
        for e in entries {
            if !seen.insert(e.key.scalar_text()) {
                return Err(self.duplicate_key(&e.key, e.key.src.map_or(0, |s| s.start as usize)));
            }
        }
        Ok(())
    }

    fn duplicate_key(&self, key: &Node, pos: usize) -> ParseError {
        self.error_at(
            pos,
            format!("mapping key {:?} is defined twice", key.scalar_text()),
        )
    }

    /// A mapping key (plain or quoted, one line); leaves `pos` on the `:`.
    fn parse_key(&mut self) -> PResult<Node> {
        let start = self.pos;
        let key = match self.peek() {
            b'"' | b'\'' => self.parse_quoted()?,
            b'*' | b'&' | b'!' | b'[' | b'{' => {
                return self.err("only plain or quoted scalar mapping keys are supported")
            }
            b'?' if is_ws_or_eol(self.peek_at(1)) => {
                return self.err("complex mapping keys ('? ') are not supported")
            }
            _ => {
                let (end, stop) = self.scan_plain_line(self.pos, false);
                if stop != Stop::Colon || end == start {
                    return self.err("expected a mapping key followed by ':'");
                }
                let text = &self.s[start..end];
                self.pos = end;
                let mut n = Node::with_kind(Kind::Scalar(Scalar {
                    value: text.to_string(),
                    style: ScalarStyle::Plain,
                }));
                n.src = Some(Span::new(start, end));
                n
            }
        };
        self.skip_inline_ws();
        if self.peek() != b':' {
            return self.err("expected ':' after a mapping key");
        }
        if !is_ws_or_eol(self.peek_at(1)) {
            return self.err("expected white space after ':'");
        }
        Ok(key)
    }

    /// A block sequence whose first `-` is at `pos`, column `col`.
    fn parse_block_seq(&mut self, col: usize, first_lead: Option<Span>) -> PResult<Node> {
        self.enter()?;
        let mut items: Vec<Item> = Vec::new();
        let span = self.parse_block_seq_streaming(col, first_lead, &mut |value, trivia| {
            items.push(Item { value, trivia });
            Ok(())
        })?;
        self.leave();
        let mut node = Node::with_kind(Kind::Sequence(items));
        node.src = Some(span);
        Ok(node)
    }

    /// Parses a block sequence item by item, handing each item's node to `f` instead of
    /// keeping it. Used for `items:` so a large ResourceList is never held as one tree.
    pub(crate) fn parse_block_seq_streaming(
        &mut self,
        col: usize,
        first_lead: Option<Span>,
        f: &mut dyn FnMut(Node, Trivia) -> PResult<()>,
    ) -> PResult<Span> {
        let start = self.pos;
        let mut lead = first_lead;
        let mut end;
        loop {
            let dash = self.pos;
            self.pos += 1;
            let (value, mut comment) = self.parse_value(col as i64, Ctx::SeqItem)?;
            if !value.is_block_collection() {
                if let Some(c) = self.take_line_comment()? {
                    comment = Some(c);
                }
                end = self.pos;
            } else {
                end = value.src.map_or(self.pos, |s| s.end as usize);
            }
            f(
                value,
                Trivia {
                    lead,
                    comment,
                    whole: Some(Span::new(dash, end)),
                },
            )?;
            let next = self.next_line()?;
            let ind = next.indent;
            if ind == col as i64 && self.at_seq_entry() {
                lead = next.lead;
                continue;
            }
            if ind > col as i64 {
                return self.err("bad indentation of a sequence entry");
            }
            self.rewind(&next);
            break;
        }
        Ok(Span::new(start, end))
    }

    /// Parses a ResourceList document. The `items` sequence is streamed: each item is handed
    /// to `on_item` with its trivia and the position just after its `-` (where a re-parse
    /// starts), then dropped, so a large list never sits in memory as one tree. Returns the
    /// root mapping's other entries and whether the root was a flow mapping (JSON).
    pub(crate) fn parse_resource_list(
        &mut self,
        on_item: &mut dyn FnMut(Node, Trivia, ItemOrigin) -> PResult<()>,
    ) -> PResult<(Vec<Entry>, bool)> {
        self.begin_document()?;
        if self.eof() {
            return self.err("the input is empty");
        }
        if self.peek() == b'{' {
            let root = self.parse_flow_node()?;
            self.take_line_comment()?;
            self.end_document()?;
            let Kind::Mapping(entries) = root.kind else {
                return self.err("expected a mapping");
            };
            let mut rest = Vec::with_capacity(entries.len());
            for mut e in entries {
                if e.key.scalar_text() == "items" {
                    if let Kind::Sequence(items) = e.value.kind {
                        for it in items {
                            let start = it.value.src.map_or(0, |s| s.start as usize);
                            on_item(it.value, it.trivia, ItemOrigin::Flow(start))?;
                        }
                        e.value = null_at(0);
                    }
                }
                rest.push(e);
            }
            return Ok((rest, true));
        }
        let col = self.col();
        let start = self.pos;
        let is_map = match self.peek() {
            b'"' | b'\'' => {
                let save = self.pos;
                let ok = self.parse_quoted().is_ok() && {
                    self.skip_inline_ws();
                    self.peek() == b':'
                };
                self.pos = save;
                ok
            }
            b'-' if is_ws_or_eol(self.peek_at(1)) => false,
            _ => self.scan_plain_line(self.pos, false).1 == Stop::Colon,
        };
        if !is_map {
            let what = if self.at_seq_entry() || self.peek() == b'[' {
                "a list"
            } else {
                "a scalar"
            };
            return Err(self.error_at(start, format!("expected a mapping, found {what}")));
        }
        let mut entries: Vec<Entry> = Vec::new();
        let mut lead = None;
        loop {
            let key_start = self.pos;
            let key = self.parse_key()?;
            self.check_new_key(&entries, &key, key_start)?;
            self.pos += 1;
            let (value, comment, end) = if key.scalar_text() == "items" {
                self.parse_items_value(col, on_item)?
            } else {
                let (value, mut comment) = self.parse_value(col as i64, Ctx::MapValue)?;
                let end = if !value.is_block_collection() {
                    if let Some(c) = self.take_line_comment()? {
                        comment = Some(c);
                    }
                    self.pos
                } else {
                    value.src.map_or(self.pos, |s| s.end as usize)
                };
                (value, comment, end)
            };
            entries.push(Entry {
                key,
                value,
                trivia: Trivia {
                    lead,
                    comment,
                    whole: Some(Span::new(key_start, end)),
                },
            });
            let next = self.next_line()?;
            let ind = next.indent;
            if ind == col as i64 && !self.at_seq_entry() {
                lead = next.lead;
                continue;
            }
            if ind < 0 {
                break;
            }
            return self.err("bad indentation of a ResourceList entry");
        }
        self.check_keys_unique(&entries)?;
        self.end_document()?;
        Ok((entries, false))
    }

    /// The value of `items:` in a block ResourceList.
    fn parse_items_value(
        &mut self,
        col: usize,
        on_item: &mut dyn FnMut(Node, Trivia, ItemOrigin) -> PResult<()>,
    ) -> PResult<(Node, Option<Span>, usize)> {
        self.skip_inline_ws();
        let c = self.peek();
        if c == b'#' || is_eol(c) {
            let comment = self.comment_here()?;
            let next = self.next_line()?;
            let ind = next.indent;
            if ind >= col as i64 && self.at_seq_entry() {
                let lead = next.lead;
                let seq_col = self.col();
                let mut f = |n: Node, t: Trivia| {
                    let after_dash = t.whole.map_or(0, |w| w.start as usize + 1);
                    on_item(n, t, ItemOrigin::Block(after_dash, seq_col as i64))
                };
                let span = self.parse_block_seq_streaming(seq_col, lead, &mut f)?;
                let mut n = Node::with_kind(Kind::Sequence(Vec::new()));
                n.src = Some(span);
                return Ok((n, comment, span.end as usize));
            }
            if ind > col as i64 {
                return self.err("items must be a list of objects");
            }
            self.rewind(&next);
            return Ok((null_at(next.line_end), comment, next.line_end));
        }
        if c == b'[' {
            let node = self.parse_flow_node()?;
            let comment = self.take_line_comment()?;
            if let Kind::Sequence(items) = node.kind {
                for it in items {
                    let start = it.value.src.map_or(0, |s| s.start as usize);
                    on_item(it.value, it.trivia, ItemOrigin::Flow(start))?;
                }
            }
            let mut n = Node::with_kind(Kind::Sequence(Vec::new()));
            n.src = node.src;
            n.flow = true;
            return Ok((n, comment, self.pos));
        }
        let (value, _) = self.parse_value(col as i64, Ctx::MapValue)?;
        if value.is_null() {
            let comment = self.take_line_comment()?;
            return Ok((value, comment, self.pos));
        }
        self.err("items must be a list of objects")
    }

    /// Parses again an item found earlier by [`Parser::parse_resource_list`].
    pub fn reparse_item(src: &'a str, origin: ItemOrigin) -> PResult<Node> {
        match origin {
            ItemOrigin::Block(pos, dash_col) => {
                let mut p = Parser::at(src, pos);
                p.parse_value(dash_col, Ctx::SeqItem).map(|(n, _)| n)
            }
            ItemOrigin::Flow(pos) => Parser::at(src, pos).parse_flow_node(),
        }
    }

    // ----- scalars ---------------------------------------------------------------------

    fn parse_alias(&mut self) -> PResult<Node> {
        let start = self.pos;
        self.pos += 1;
        while !is_ws_or_eol(self.peek()) && !is_flow_indicator(self.peek()) {
            self.pos += 1;
        }
        if self.pos == start + 1 {
            return self.err("an alias needs a name");
        }
        let mut n = Node::with_kind(Kind::Alias(self.s[start + 1..self.pos].to_string()));
        n.src = Some(Span::new(start, self.pos));
        Ok(n)
    }

    /// Scans one line of a plain scalar from `from`: returns where its text ends (trailing
    /// white space excluded) and why it stopped.
    fn scan_plain_line(&self, from: usize, flow: bool) -> (usize, Stop) {
        let b = self.b;
        let mut i = from;
        let mut end = from;
        loop {
            let c = b.get(i).copied().unwrap_or(0);
            if i >= b.len() || c == b'\n' || c == b'\r' {
                return (end, Stop::Eol);
            }
            if c == b':' {
                let n = b.get(i + 1).copied().unwrap_or(0);
                if is_ws_or_eol(n) || (flow && is_flow_indicator(n)) {
                    return (end, Stop::Colon);
                }
            }
            if flow && is_flow_indicator(c) {
                return (end, Stop::Flow);
            }
            if c == b'#' && i > from && is_ws(b[i - 1]) {
                return (end, Stop::Comment);
            }
            i += 1;
            if !is_ws(c) {
                end = i;
            }
        }
    }

    /// A plain scalar in block context, possibly continued on more-indented lines.
    fn parse_plain_block(&mut self, parent: i64) -> PResult<Node> {
        let start = self.pos;
        let (end, stop) = self.scan_plain_line(self.pos, false);
        let mut value = String::from(&self.s[start..end]);
        let mut last_end = end;
        self.pos = end;
        if stop == Stop::Eol {
            // Look for continuation lines.
            loop {
                let save_pos = self.pos;
                let save_ls = self.ls;
                self.skip_inline_ws();
                if !self.eat_newline() {
                    self.pos = save_pos;
                    break;
                }
                let mut breaks = 0;
                loop {
                    self.skip_inline_ws();
                    if matches!(self.peek(), b'\n' | b'\r') {
                        self.eat_newline();
                        breaks += 1;
                        continue;
                    }
                    break;
                }
                let ind = self.col() as i64;
                let c = self.peek();
                if self.eof() || ind <= parent || c == b'#' || {
                    let p = self.pos;
                    self.pos = self.ls;
                    let m = self.at_doc_marker();
                    self.pos = p;
                    m
                } {
                    self.pos = save_pos;
                    self.ls = save_ls;
                    break;
                }
                let (e, st) = self.scan_plain_line(self.pos, false);
                if st == Stop::Colon {
                    return self.err("mapping values are not allowed here (check the indentation, or quote a value that contains ': ')");
                }
                if breaks == 0 {
                    value.push(' ');
                } else {
                    for _ in 0..breaks {
                        value.push('\n');
                    }
                }
                value.push_str(&self.s[self.pos..e]);
                self.pos = e;
                last_end = e;
                if st != Stop::Eol {
                    break;
                }
            }
        }
        self.pos = last_end;
        let mut n = Node::with_kind(Kind::Scalar(Scalar {
            value,
            style: ScalarStyle::Plain,
        }));
        n.src = Some(Span::new(start, last_end));
        Ok(n)
    }

    /// A single- or double-quoted scalar (may span lines).
    fn parse_quoted(&mut self) -> PResult<Node> {
        let start = self.pos;
        let q = self.peek();
        self.pos += 1;
        let mut value = String::new();
        let mut seg_start = self.pos;
        loop {
            if self.eof() {
                return Err(self.error_at(start, "unterminated quoted scalar"));
            }
            let c = self.peek();
            if q == b'\'' && c == b'\'' {
                value.push_str(&self.s[seg_start..self.pos]);
                if self.peek_at(1) == b'\'' {
                    value.push('\'');
                    self.pos += 2;
                    seg_start = self.pos;
                    continue;
                }
                self.pos += 1;
                break;
            }
            if q == b'"' && c == b'"' {
                value.push_str(&self.s[seg_start..self.pos]);
                self.pos += 1;
                break;
            }
            if q == b'"' && c == b'\\' {
                value.push_str(&self.s[seg_start..self.pos]);
                self.pos += 1;
                self.parse_escape(&mut value)?;
                seg_start = self.pos;
                continue;
            }
            if c == b'\n' || c == b'\r' {
                // Fold: trailing white space of this line and leading of the next go away.
                let seg = &self.s[seg_start..self.pos];
                value.push_str(seg.trim_end_matches([' ', '\t']));
                self.eat_newline();
                let mut breaks = 0;
                loop {
                    self.skip_inline_ws();
                    if matches!(self.peek(), b'\n' | b'\r') {
                        self.eat_newline();
                        breaks += 1;
                    } else {
                        break;
                    }
                }
                if self.at_doc_marker() {
                    return Err(self.error_at(start, "unterminated quoted scalar"));
                }
                if breaks == 0 {
                    value.push(' ');
                } else {
                    for _ in 0..breaks {
                        value.push('\n');
                    }
                }
                seg_start = self.pos;
                continue;
            }
            self.pos += utf8_len(c);
        }
        let style = if q == b'"' {
            ScalarStyle::DoubleQuoted
        } else {
            ScalarStyle::SingleQuoted
        };
        let mut n = Node::with_kind(Kind::Scalar(Scalar { value, style }));
        n.src = Some(Span::new(start, self.pos));
        Ok(n)
    }

    fn parse_escape(&mut self, out: &mut String) -> PResult<()> {
        let c = self.peek();
        self.pos += 1;
        let simple = match c {
            b'0' => Some('\0'),
            b'a' => Some('\x07'),
            b'b' => Some('\x08'),
            b't' | b'\t' => Some('\t'),
            b'n' => Some('\n'),
            b'v' => Some('\x0b'),
            b'f' => Some('\x0c'),
            b'r' => Some('\r'),
            b'e' => Some('\x1b'),
            b' ' => Some(' '),
            b'"' => Some('"'),
            b'/' => Some('/'),
            b'\\' => Some('\\'),
            b'N' => Some('\u{85}'),
            b'_' => Some('\u{a0}'),
            b'L' => Some('\u{2028}'),
            b'P' => Some('\u{2029}'),
            _ => None,
        };
        if let Some(ch) = simple {
            out.push(ch);
            return Ok(());
        }
        let digits = match c {
            b'x' => 2,
            b'u' => 4,
            b'U' => 8,
            b'\n' | b'\r' => {
                // Escaped line break: join without a space.
                self.pos -= 1;
                self.eat_newline();
                self.skip_inline_ws();
                return Ok(());
            }
            _ => {
                return Err(self.error_at(self.pos - 1, "invalid escape in a double-quoted scalar"))
            }
        };
        let hex = self
            .s
            .get(self.pos..self.pos + digits)
            .ok_or_else(|| self.error_at(self.pos, "truncated escape"))?;
        // Hex digits only: `from_str_radix` alone would also take a sign (`\x+1`).
        let v = Some(hex)
            .filter(|h| h.bytes().all(|c| c.is_ascii_hexdigit()))
            .and_then(|h| u32::from_str_radix(h, 16).ok())
            .ok_or_else(|| self.error_at(self.pos, "invalid hexadecimal escape"))?;
        let ch = char::from_u32(v)
            .ok_or_else(|| self.error_at(self.pos, "escape is not a valid Unicode character"))?;
        out.push(ch);
        self.pos += digits;
        Ok(())
    }

    /// `|` or `>` block scalar; `parent` is the indentation of the enclosing collection.
    fn parse_block_scalar(&mut self, parent: i64) -> PResult<Node> {
        let start = self.pos;
        let folded = self.peek() == b'>';
        self.pos += 1;
        let mut chomp = 0i8; // -1 strip, 0 clip, 1 keep
        let mut explicit: Option<usize> = None;
        for _ in 0..2 {
            match self.peek() {
                b'-' => chomp = -1,
                b'+' => chomp = 1,
                d @ b'1'..=b'9' => explicit = Some((d - b'0') as usize),
                _ => break,
            }
            self.pos += 1;
        }
        self.skip_inline_ws();
        if self.peek() == b'#' {
            self.skip_to_eol();
        }
        if !is_eol(self.peek()) {
            return self.err("unexpected text after a block scalar indicator");
        }
        let mut end = self.pos;
        let base = parent.max(0) as usize;
        let mut lines: Vec<&str> = Vec::new();
        if self.eat_newline() {
            let mut has_final_break = true;
            // Find the content indentation.
            let indent = match explicit {
                Some(d) => base + d - usize::from(parent < 0),
                None => {
                    let mut i = self.pos;
                    let mut found = None;
                    while i < self.b.len() {
                        let mut j = i;
                        while j < self.b.len() && self.b[j] == b' ' {
                            j += 1;
                        }
                        if j >= self.b.len() {
                            break;
                        }
                        if self.b[j] == b'\n' || self.b[j] == b'\r' {
                            i = j + 1;
                            if self.b[j] == b'\r' && self.b.get(j + 1) == Some(&b'\n') {
                                i += 1;
                            }
                            continue;
                        }
                        found = Some(j - i);
                        break;
                    }
                    match found {
                        Some(n) if n as i64 > parent => n,
                        _ => usize::MAX,
                    }
                }
            };
            // Collect lines.
            let mut last_content_end = None;
            // End of the last blank line: with keep chomping (`|+`), trailing blank lines are
            // content, so the node's source text must cover them.
            let mut last_blank_end = None;
            let mut pending_blank: Vec<&str> = Vec::new();
            loop {
                if self.eof() {
                    break;
                }
                let line_start = self.pos;
                let mut j = line_start;
                while j < self.b.len() && self.b[j] == b' ' {
                    j += 1;
                }
                let mut k = j;
                while k < self.b.len() && self.b[k] != b'\n' && self.b[k] != b'\r' {
                    k += 1;
                }
                let spaces = j - line_start;
                let blank = j == k;
                if !blank && (indent == usize::MAX || spaces < indent) {
                    break;
                }
                if indent == 0 && self.at_doc_marker() {
                    break;
                }
                let text = if blank {
                    if indent != usize::MAX && spaces > indent {
                        &self.s[line_start + indent..k]
                    } else {
                        ""
                    }
                } else {
                    &self.s[line_start + indent..k]
                };
                if blank && text.is_empty() {
                    pending_blank.push("");
                    last_blank_end = Some(k);
                } else {
                    lines.append(&mut pending_blank);
                    lines.push(text);
                    last_content_end = Some(k);
                }
                self.pos = k;
                if !self.eat_newline() {
                    has_final_break = false;
                    break;
                }
            }
            let trailing_blank = pending_blank.len();
            let keep_end = match (chomp, last_content_end, last_blank_end) {
                (1, Some(c), Some(b)) if trailing_blank > 0 && b > c => Some(b),
                _ => last_content_end,
            };
            match keep_end {
                Some(e) => {
                    end = e;
                    self.pos = e;
                    self.ls = self.s[..e].rfind('\n').map_or(0, |i| i + 1);
                    if e < self.b.len() {
                        has_final_break = true;
                    }
                }
                None => {
                    // No content: rewind to the end of the header line.
                    self.pos = end;
                    self.ls = self.s[..end].rfind('\n').map_or(0, |i| i + 1);
                }
            }
            let value = decode_block(&lines, folded, chomp, has_final_break, trailing_blank);
            let mut n = Node::with_kind(Kind::Scalar(Scalar {
                value,
                style: if folded {
                    ScalarStyle::Folded
                } else {
                    ScalarStyle::Literal
                },
            }));
            n.src = Some(Span::new(start, end));
            return Ok(n);
        }
        end = self.pos;
        let mut n = Node::with_kind(Kind::Scalar(Scalar {
            value: String::new(),
            style: if folded {
                ScalarStyle::Folded
            } else {
                ScalarStyle::Literal
            },
        }));
        n.src = Some(Span::new(start, end));
        Ok(n)
    }

    // ----- flow collections ----------------------------------------------------------------

    /// Skips white space, line breaks and comments inside a flow collection.
    fn skip_flow_ws(&mut self) -> PResult<()> {
        loop {
            match self.peek() {
                b' ' | b'\t' => self.pos += 1,
                b'\n' | b'\r' => {
                    self.eat_newline();
                    if self.at_doc_marker() {
                        return self.err("unterminated flow collection");
                    }
                }
                b'#' => self.skip_to_eol(),
                _ => return Ok(()),
            }
        }
    }

    fn parse_flow_node(&mut self) -> PResult<Node> {
        let props = self.parse_props()?;
        let mut node = match self.peek() {
            b'[' => self.parse_flow_seq()?,
            b'{' => self.parse_flow_map()?,
            b'"' | b'\'' => self.parse_quoted()?,
            b'*' => self.parse_alias()?,
            b',' | b']' | b'}' => null_at(self.pos),
            _ => self.parse_plain_flow()?,
        };
        if props.is_some() {
            node.props = props;
        }
        Ok(node)
    }

    fn parse_plain_flow(&mut self) -> PResult<Node> {
        let start = self.pos;
        if matches!(self.peek(), b'@' | b'`') {
            return self.err("reserved character cannot start a plain scalar");
        }
        let mut value = String::new();
        let mut last_end;
        loop {
            let (end, stop) = self.scan_plain_line(self.pos, true);
            value.push_str(&self.s[self.pos..end]);
            last_end = end;
            self.pos = end;
            if stop != Stop::Eol {
                break;
            }
            // Continuation on the next line(s)?
            let save = (self.pos, self.ls);
            self.skip_inline_ws();
            let mut breaks = 0;
            while matches!(self.peek(), b'\n' | b'\r') {
                self.eat_newline();
                self.skip_inline_ws();
                breaks += 1;
            }
            let c = self.peek();
            if self.eof() || is_flow_indicator(c) || c == b'#' || c == b':' {
                self.pos = save.0;
                self.ls = save.1;
                break;
            }
            if breaks <= 1 {
                value.push(' ');
            } else {
                for _ in 1..breaks {
                    value.push('\n');
                }
            }
        }
        self.pos = last_end;
        let mut n = Node::with_kind(Kind::Scalar(Scalar {
            value,
            style: ScalarStyle::Plain,
        }));
        n.src = Some(Span::new(start, last_end));
        Ok(n)
    }

    fn parse_flow_seq(&mut self) -> PResult<Node> {
        self.enter()?;
        let start = self.pos;
        self.pos += 1;
        let mut items = Vec::new();
        loop {
            self.skip_flow_ws()?;
            match self.peek() {
                b']' => {
                    self.pos += 1;
                    break;
                }
                0 if self.eof() => return Err(self.error_at(start, "unterminated flow sequence")),
                _ => {}
            }
            if self.peek() == b'?' && is_ws_or_eol(self.peek_at(1)) {
                return self.err("complex keys are not supported in flow sequences");
            }
            let value = self.parse_flow_node()?;
            self.skip_flow_ws()?;
            if self.peek() == b':' {
                return self.err("single-pair mappings inside flow sequences are not supported");
            }
            items.push(Item {
                value,
                trivia: Trivia::default(),
            });
            match self.peek() {
                b',' => self.pos += 1,
                b']' => {}
                _ => return self.err("expected ',' or ']' in a flow sequence"),
            }
        }
        self.leave();
        let mut n = Node::with_kind(Kind::Sequence(items));
        n.flow = true;
        n.src = Some(Span::new(start, self.pos));
        Ok(n)
    }

    fn parse_flow_map(&mut self) -> PResult<Node> {
        self.enter()?;
        let start = self.pos;
        self.pos += 1;
        let mut entries: Vec<Entry> = Vec::new();
        loop {
            self.skip_flow_ws()?;
            match self.peek() {
                b'}' => {
                    self.pos += 1;
                    break;
                }
                0 if self.eof() => return Err(self.error_at(start, "unterminated flow mapping")),
                _ => {}
            }
            if self.peek() == b'?' && is_ws_or_eol(self.peek_at(1)) {
                return self.err("complex keys are not supported in flow mappings");
            }
            let key_start = self.pos;
            let quoted = matches!(self.peek(), b'"' | b'\'');
            let key = match self.peek() {
                b'[' | b'{' | b'*' | b'&' | b'!' => {
                    return self.err("only plain or quoted scalar mapping keys are supported")
                }
                b'"' | b'\'' => self.parse_quoted()?,
                b':' if is_ws_or_eol(self.peek_at(1)) || is_flow_indicator(self.peek_at(1)) => {
                    let mut n = null_at(self.pos);
                    n.src = Some(Span::new(self.pos, self.pos));
                    n
                }
                _ => self.parse_plain_flow()?,
            };
            self.check_new_key(&entries, &key, key_start)?;
            self.skip_flow_ws()?;
            let value = if self.peek() == b':'
                && (quoted || is_ws_or_eol(self.peek_at(1)) || is_flow_indicator(self.peek_at(1)))
            {
                self.pos += 1;
                self.skip_flow_ws()?;
                let v = self.parse_flow_node()?;
                self.skip_flow_ws()?;
                v
            } else {
                null_at(self.pos)
            };
            entries.push(Entry {
                key,
                value,
                trivia: Trivia::default(),
            });
            match self.peek() {
                b',' => self.pos += 1,
                b'}' => {}
                _ => return self.err("expected ',' or '}' in a flow mapping"),
            }
        }
        self.check_keys_unique(&entries)?;
        self.leave();
        let mut n = Node::with_kind(Kind::Mapping(entries));
        n.flow = true;
        n.src = Some(Span::new(start, self.pos));
        Ok(n)
    }
}

/// Where [`Parser::next_line`] found the next content, and how to get back.
struct NextLine {
    line_end: usize,
    line_start: usize,
    lead: Option<Span>,
    indent: i64,
}

/// Where an item of `items` came from, so it can be parsed again.
#[derive(Clone, Copy, PartialEq, Eq, Debug)]
pub enum ItemOrigin {
    /// A block sequence item: the position after its `-` and the column of the `-`.
    Block(usize, i64),
    /// A flow (JSON) item starting here.
    Flow(usize),
}

#[derive(Clone, Copy, PartialEq, Eq, Debug)]
enum Stop {
    Eol,
    Colon,
    Comment,
    Flow,
}

fn utf8_len(first: u8) -> usize {
    match first {
        0xF0..=0xFF => 4,
        0xE0..=0xEF => 3,
        0xC0..=0xDF => 2,
        _ => 1,
    }
}

/// Trailing white space before a line end is not part of an entry's text.
fn null_at(pos: usize) -> Node {
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

/// Decodes the lines of a block scalar (indentation already removed).
fn decode_block(
    lines: &[&str],
    folded: bool,
    chomp: i8,
    has_final_break: bool,
    trailing_blank: usize,
) -> String {
    let mut out = String::new();
    let mut leading_break = false;
    let mut leading_blank = false;
    let mut breaks = 0usize;
    let mut any = false;
    for line in lines {
        if line.is_empty() {
            breaks += 1;
            continue;
        }
        let trailing_blank_line = line.starts_with([' ', '\t']);
        if any {
            if folded && leading_break && !leading_blank && !trailing_blank_line {
                if breaks == 0 {
                    out.push(' ');
                }
            } else if leading_break {
                out.push('\n');
            }
        }
        for _ in 0..breaks {
            out.push('\n');
        }
        breaks = 0;
        out.push_str(line);
        leading_blank = trailing_blank_line;
        leading_break = true;
        any = true;
    }
    match chomp {
        -1 => {}
        0 => {
            if any && has_final_break {
                out.push('\n');
            }
        }
        _ => {
            if any && has_final_break {
                out.push('\n');
            }
            for _ in 0..(breaks + trailing_blank) {
                out.push('\n');
            }
        }
    }
    out
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
