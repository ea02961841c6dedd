//! Streaming `items`: a ResourceList's items are parsed one at a time and handed to the caller,
//! never held as one tree, and any one of them can be parsed again from where it began.

use super::reader::{is_eol, is_ws_or_eol};
use super::scalar::Stop;
use super::{null_at, Ctx, PResult, Parser};
use crate::yaml::node::{Entry, Kind, Node, Span, Trivia};

impl<'a> Parser<'a> {
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
    pub(super) fn parse_items_value(
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
}

/// Where an item of `items` came from, so it can be parsed again.
#[derive(Clone, Copy, PartialEq, Eq, Debug)]
pub enum ItemOrigin {
    /// A block sequence item: the position after its `-` and the column of the `-`.
    Block(usize, i64),
    /// A flow (JSON) item starting here.
    Flow(usize),
}
