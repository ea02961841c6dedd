//! Flow collections: `[a, b]` and `{k: v}` (JSON among them), explicit `? ` and empty keys,
//! single-pair mappings in sequences (`[a: b]`), nested to any allowed depth. Every line of a
//! flow collection must be indented more than the block collection around it.

use super::reader::{is_flow_indicator, is_ws_or_eol};
use super::scalar::Stop;
use super::stream::ItemsHook;
use super::{describe, null_at, Building, PResult, ParseError, Parser, MAX_IMPLICIT_KEY};
use crate::yaml::node::{Entry, Item, Kind, Node, ScalarStyle, Span, Trivia};

impl<'a> Parser<'a> {
    /// Skips white space, line breaks and comments inside a flow collection whose block parent
    /// is indented `n`. Returns whether it crossed a line break.
    pub(super) fn skip_flow_ws(&mut self, n: i64) -> PResult<bool> {
        let mut crossed = false;
        loop {
            match self.peek() {
                b' ' | b'\t' => self.pos += 1,
                b'\n' | b'\r' => {
                    self.eat_newline();
                    crossed = true;
                }
                b'#' => {
                    self.comment_here()?;
                }
                _ => {
                    if crossed && !self.eof() {
                        self.check_continuation(n, "a flow collection")?;
                    }
                    return Ok(crossed);
                }
            }
        }
    }

    /// A flow node: properties, then a collection, a quoted or plain scalar or an alias. With
    /// properties and nothing after them, an empty scalar.
    pub(super) fn parse_flow_node(&mut self, n: i64) -> PResult<Node> {
        let start = self.pos;
        let props = self.parse_props(true)?;
        if props.is_some() {
            self.skip_flow_ws(n)?;
        }
        let mut node = match self.peek() {
            b'[' => self.parse_flow_seq(n)?,
            b'{' => self.parse_flow_map(n)?,
            b'"' | b'\'' => self.parse_quoted(n)?,
            b'*' if props.is_some() => return self.err(super::block::ALIAS_PROPS),
            b'*' => self.parse_alias()?,
            b'|' | b'>' => {
                return self.err("a block scalar ('|' or '>') cannot be inside a flow collection; use a quoted scalar")
            }
            c if props.is_some()
                && (matches!(c, b',' | b']' | b'}')
                    || (c == b':' && self.flow_value_follows())) =>
            {
                null_at(self.pos)
            }
            0 if self.eof() => return Err(self.error_at(start, "unterminated flow collection")),
            _ => {
                self.check_plain_start(true)?;
                self.parse_plain_flow(n)?
            }
        };
        if props.is_some() {
            node.props = props;
        }
        Ok(node)
    }

    /// A node, or an empty scalar when an entry ends here.
    fn flow_node_or_empty(&mut self, n: i64) -> PResult<Node> {
        self.skip_flow_ws(n)?;
        if matches!(self.peek(), b',' | b']' | b'}') {
            return Ok(null_at(self.pos));
        }
        self.parse_flow_node(n)
    }

    /// `:` here separates a key from its value (`: `, or `:` before an indicator or line end).
    fn flow_value_follows(&self) -> bool {
        let c = self.peek_at(1);
        is_ws_or_eol(c) || is_flow_indicator(c)
    }

    /// `?` here starts an explicit key.
    fn at_flow_explicit_key(&self) -> bool {
        self.peek() == b'?' && self.flow_value_follows()
    }

    pub(super) fn parse_plain_flow(&mut self, n: i64) -> PResult<Node> {
        let start = self.pos;
        // Built only for a scalar continued on more lines: most are one line, written as is.
        let mut value: Option<String> = None;
        let mut last_end;
        loop {
            let (end, stop) = self.scan_plain_line(self.pos, true);
            if let Some(text) = value.as_mut() {
                text.push_str(&self.s[self.pos..end]);
            }
            last_end = end;
            self.pos = end;
            if stop != Stop::Eol {
                break;
            }
            // Continued on the next line?
            let save = (self.pos, self.ls);
            let Some(breaks) = self.next_continuation_line() else {
                break;
            };
            let c = self.peek();
            if self.eof()
                || is_flow_indicator(c)
                || c == b'#'
                || (c == b':' && self.flow_value_follows())
                || self.line_is_doc_marker()
            {
                (self.pos, self.ls) = save;
                break;
            }
            self.check_continuation(n, "a flow collection")?;
            // Until the first fold, the text is the first line, `start..last_end`.
            let text = value.get_or_insert_with(|| self.s[start..last_end].to_string());
            self.fold(text, breaks);
        }
        self.pos = last_end;
        Ok(match value {
            Some(text) => self.plain_node(start, last_end, text),
            None => self.plain_node(start, last_end, &self.s[start..last_end]),
        })
    }

    pub(super) fn parse_flow_seq(&mut self, n: i64) -> PResult<Node> {
        self.enter()?;
        let start = self.pos;
        self.pos += 1;
        let mut items = Building::new(&self.item_stack);
        self.flow_seq_entries(n, start, false, &mut |p, item, _, _| {
            if !p.skim.on {
                items.push(&mut p.item_stack, item);
            }
            Ok(())
        })?;
        self.leave();
        if self.skim.on {
            items.discard(&mut self.item_stack);
            return Ok(skimmed(Kind::Sequence(Vec::new()), start, self.pos));
        }
        let items = items.finish(&mut self.item_stack);
        let mut node = Node::with_kind(Kind::Sequence(items));
        node.set_flow(true);
        node.set_src(Some(Span::new(start, self.pos)));
        Ok(node)
    }

    /// The entries of a flow sequence after its `[` (at `start`), handed to `f` one at a time
    /// with the position where each begins and the start of that line; leaves `pos` after the
    /// `]`. `own_trees`: each entry is a tree of its own for [`Parser::count_value`].
    pub(super) fn flow_seq_entries(
        &mut self,
        n: i64,
        start: usize,
        own_trees: bool,
        f: &mut dyn FnMut(&mut Parser<'a>, Item, usize, usize) -> PResult<()>,
    ) -> PResult<()> {
        let done = self.flow_seq_entries_until_closed(n, start, own_trees, f);
        done.map_err(|e| self.not_closed(start, Closer::Sequence, e))
    }

    /// [`Parser::flow_seq_entries`], its errors as they are met.
    fn flow_seq_entries_until_closed(
        &mut self,
        n: i64,
        start: usize,
        own_trees: bool,
        f: &mut dyn FnMut(&mut Parser<'a>, Item, usize, usize) -> PResult<()>,
    ) -> PResult<()> {
        loop {
            self.skip_flow_ws(n)?;
            match self.peek() {
                b']' => {
                    self.pos += 1;
                    return Ok(());
                }
                b',' => {
                    return self
                        .err("an empty entry in a flow sequence (a ',' with nothing before it)")
                }
                0 if self.eof() => return Err(self.error_at(start, "unterminated flow sequence")),
                _ => {}
            }
            let (entry, line) = (self.pos, self.ls);
            if own_trees {
                self.begin_own_tree();
            }
            self.count_value()?;
            let value = self.flow_seq_entry(n)?;
            f(
                self,
                Item {
                    value,
                    trivia: Trivia::default(),
                },
                entry,
                line,
            )?;
            self.skip_flow_ws(n)?;
            match self.peek() {
                b',' => self.pos += 1,
                b']' => {}
                0 if self.eof() => return Err(self.error_at(start, "unterminated flow sequence")),
                _ => {
                    return self.err(format!(
                        "expected ',' or ']' in a flow sequence, found {}",
                        describe(self.s, self.pos)
                    ))
                }
            }
        }
    }

    /// One entry of a flow sequence: a node, or a single-pair mapping (`a: b`, `? a : b`,
    /// `: b`).
    pub(super) fn flow_seq_entry(&mut self, n: i64) -> PResult<Node> {
        let start = self.pos;
        let line = self.ls;
        if self.at_flow_explicit_key() {
            self.pos += 1;
            let key = self.flow_node_or_empty(n)?;
            return self.flow_pair(n, start, key);
        }
        let key = if self.peek() == b':' && self.flow_value_follows() {
            null_at(self.pos)
        } else {
            self.parse_flow_node(n)?
        };
        let after = (self.pos, self.ls);
        self.skip_flow_ws(n)?;
        if self.peek() == b':' && (self.flow_value_follows() || is_json_like(&key)) {
            if self.ls != line {
                return Err(self.error_at(
                    start,
                    "the key of a single-pair mapping in a flow sequence must be on one line with its ':'; use '? key' for a longer key",
                ));
            }
            if self.too_long_for_implicit_key(start) {
                return Err(self.error_at(
                    start,
                    format!("the key of a single-pair mapping in a flow sequence is longer than {MAX_IMPLICIT_KEY} characters (with the spaces before its ':'); use '? key' for a longer key"),
                ));
            }
            return self.flow_pair(n, start, key);
        }
        (self.pos, self.ls) = after;
        Ok(key)
    }

    /// The rest of a single-pair mapping whose key (starting at `start`) has been read.
    fn flow_pair(&mut self, n: i64, start: usize, key: Node) -> PResult<Node> {
        self.enter()?;
        self.skip_flow_ws(n)?;
        let value = if self.peek() == b':' {
            self.pos += 1;
            self.flow_node_or_empty(n)?
        } else {
            null_at(self.pos)
        };
        self.leave();
        let end = self.pos;
        let mut node = Node::with_kind(Kind::Mapping(vec![Entry {
            key,
            value,
            trivia: Trivia::default(),
        }]));
        node.set_flow(true);
        node.set_src(Some(Span::new(start, end)));
        Ok(node)
    }

    pub(super) fn parse_flow_map(&mut self, n: i64) -> PResult<Node> {
        self.enter()?;
        let start = self.pos;
        self.pos += 1;
        let mut entries = Building::new(&self.entry_stack);
        self.flow_map_entries_with(n, start, None, &mut |p, e, at| {
            p.check_new_key(entries.so_far(&p.entry_stack), &e.key, at)?;
            entries.push(&mut p.entry_stack, e);
            Ok(())
        })?;
        self.check_keys_unique(entries.so_far(&self.entry_stack))?;
        self.leave();
        if self.skim.on {
            entries.discard(&mut self.entry_stack);
            return Ok(skimmed(Kind::Mapping(Vec::new()), start, self.pos));
        }
        let entries = entries.finish(&mut self.entry_stack);
        let mut node = Node::with_kind(Kind::Mapping(entries));
        node.set_flow(true);
        node.set_src(Some(Span::new(start, self.pos)));
        Ok(node)
    }

    /// The entries of a flow mapping after its `{` (at `start`), handed to `f` one at a time
    /// with the position where each begins; leaves `pos` after the `}`. `hook` streams the
    /// value of `items` (the ResourceList's own mapping).
    pub(super) fn flow_map_entries_with(
        &mut self,
        n: i64,
        start: usize,
        hook: Option<&mut ItemsHook>,
        f: &mut dyn FnMut(&mut Parser<'a>, Entry, usize) -> PResult<()>,
    ) -> PResult<()> {
        let done = self.flow_map_entries_until_closed(n, start, hook, f);
        done.map_err(|e| self.not_closed(start, Closer::Mapping, e))
    }

    /// [`Parser::flow_map_entries_with`], its errors as they are met.
    fn flow_map_entries_until_closed(
        &mut self,
        n: i64,
        start: usize,
        mut hook: Option<&mut ItemsHook>,
        f: &mut dyn FnMut(&mut Parser<'a>, Entry, usize) -> PResult<()>,
    ) -> PResult<()> {
        loop {
            self.skip_flow_ws(n)?;
            match self.peek() {
                b'}' => {
                    self.pos += 1;
                    return Ok(());
                }
                b',' => {
                    return self
                        .err("an empty entry in a flow mapping (a ',' with nothing before it)")
                }
                0 if self.eof() => return Err(self.error_at(start, "unterminated flow mapping")),
                _ => {}
            }
            let entry_start = self.pos;
            self.count_value()?;
            let key = if self.at_flow_explicit_key() {
                self.pos += 1;
                let key = self.flow_node_or_empty(n)?;
                self.skip_flow_ws(n)?;
                key
            } else if self.peek() == b':' && self.flow_value_follows() {
                null_at(self.pos)
            } else {
                let key = self.parse_flow_node(n)?;
                self.skip_flow_ws(n)?;
                key
            };
            let value = if self.peek() == b':' && (self.flow_value_follows() || is_json_like(&key))
            {
                self.pos += 1;
                match hook.as_deref_mut() {
                    Some(h) if key.is_scalar() && key.scalar_text() == "items" => {
                        self.skip_flow_ws(n)?;
                        if self.peek() == b'[' {
                            h.flow_value(self, n)?
                        } else {
                            self.flow_node_or_empty(n)?
                        }
                    }
                    _ => self.flow_node_or_empty(n)?,
                }
            } else {
                null_at(self.pos)
            };
            f(
                self,
                Entry {
                    key,
                    value,
                    trivia: Trivia::default(),
                },
                entry_start,
            )?;
            self.skip_flow_ws(n)?;
            match self.peek() {
                b',' => self.pos += 1,
                b'}' => {}
                0 if self.eof() => return Err(self.error_at(start, "unterminated flow mapping")),
                _ => {
                    return self.err(format!(
                        "expected ',' or '}}' in a flow mapping, found {}",
                        describe(self.s, self.pos)
                    ))
                }
            }
        }
    }
}

/// What stands for a skimmed flow collection at `start..end` (see [`super::Skim`]).
fn skimmed(kind: Kind, start: usize, end: usize) -> Node {
    super::skimmed(kind, Span::new(start, end), true)
}

/// Which flow collection an error was met in.
#[derive(Clone, Copy)]
enum Closer {
    Sequence,
    Mapping,
}

/// How [`Parser::check_continuation`]'s message begins for a line of a flow collection that is
/// indented no more than the block around it.
const DEDENTED: &str = "this line of a flow collection must be indented more than its parent";

impl Parser<'_> {
    /// An error met inside the flow collection opened at `start`: a line indented no more than
    /// the block around it, or the end of the input, most likely means its closing bracket is
    /// missing, which would otherwise read as an indentation problem lines later. Said at the
    /// opening bracket, with where the collection was found to end. An inner collection's error
    /// is said once, by the innermost one.
    fn not_closed(&self, start: usize, closer: Closer, e: ParseError) -> ParseError {
        let (what, open, close) = match closer {
            Closer::Sequence => ("flow sequence", '[', ']'),
            Closer::Mapping => ("flow mapping", '{', '}'),
        };
        if e.message.starts_with(DEDENTED) {
            self.error_at(
                start,
                format!(
                    "a {what} is not closed: line {} column {} is indented no more than the \
                     block around it, so the '{close}' is missing before that line (close the \
                     {what} there, or indent the line more if it goes on); its '{open}' is",
                    e.line, e.column
                ),
            )
        } else if e.message == format!("unterminated {what}") {
            self.error_at(
                start,
                format!(
                    "a {what} is not closed: the input ends before its '{close}'; its '{open}' is"
                ),
            )
        } else {
            e
        }
    }
}

/// A quoted scalar or a flow collection: after one, a `:` may touch the value (`"a":b`).
fn is_json_like(n: &Node) -> bool {
    n.is_flow()
        || n.as_scalar().is_some_and(|s| {
            matches!(
                s.style,
                ScalarStyle::DoubleQuoted | ScalarStyle::SingleQuoted
            )
        })
}
