//! Block collections: mappings (`key: value` lines) and sequences (`- item` lines), with the
//! comments and blank lines between their entries.

use super::reader::is_ws_or_eol;
use super::scalar::Stop;
use super::{Ctx, PResult, ParseError, Parser, LINEAR_KEY_CHECK};
use crate::yaml::node::{Entry, Item, Kind, Node, Scalar, ScalarStyle, Span, Trivia};

impl<'a> Parser<'a> {
    /// A block mapping whose first key starts at `pos`, column `col`.
    pub(super) fn parse_block_mapping(
        &mut self,
        col: usize,
        first_lead: Option<Span>,
    ) -> PResult<Node> {
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
    pub(super) fn check_new_key(
        &self,
        entries: &[Entry],
        key: &Node,
        key_start: usize,
    ) -> PResult<()> {
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
    pub(super) fn check_keys_unique(&self, entries: &[Entry]) -> PResult<()> {
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

    pub(super) fn duplicate_key(&self, key: &Node, pos: usize) -> ParseError {
        self.error_at(
            pos,
            format!("mapping key {:?} is defined twice", key.scalar_text()),
        )
    }

    /// A mapping key (plain or quoted, one line); leaves `pos` on the `:`.
    pub(super) fn parse_key(&mut self) -> PResult<Node> {
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
    pub(super) fn parse_block_seq(
        &mut self,
        col: usize,
        first_lead: Option<Span>,
    ) -> PResult<Node> {
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
}
