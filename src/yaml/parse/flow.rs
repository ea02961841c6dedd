//! Flow collections: `[a, b]` and `{k: v}` (JSON among them), nested to any allowed depth.

use super::reader::{is_flow_indicator, is_ws_or_eol};
use super::scalar::Stop;
use super::{null_at, PResult, Parser};
use crate::yaml::node::{Entry, Item, Kind, Node, Scalar, ScalarStyle, Span, Trivia};

impl<'a> Parser<'a> {
    // ----- flow collections ----------------------------------------------------------------

    /// Skips white space, line breaks and comments inside a flow collection.
    pub(super) fn skip_flow_ws(&mut self) -> PResult<()> {
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

    pub(super) fn parse_flow_node(&mut self) -> PResult<Node> {
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

    pub(super) fn parse_plain_flow(&mut self) -> PResult<Node> {
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

    pub(super) fn parse_flow_seq(&mut self) -> PResult<Node> {
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

    pub(super) fn parse_flow_map(&mut self) -> PResult<Node> {
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
