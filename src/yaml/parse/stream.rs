//! Streaming `items`: a ResourceList's items are parsed one at a time and handed to the caller,
//! never held as one tree, and any one of them can be parsed again from where it began.

use super::reader::{is_eol, is_ws_or_eol};
use super::scalar::Stop;
use super::{null_at, Ctx, PResult, Parser};
use crate::yaml::node::{Entry, Kind, Node, Span, Trivia};

/// Receives each item of `items` with its trivia and where it can be parsed again.
pub(crate) type OnItem<'f> = dyn FnMut(ItemRead<'_>, Trivia, ItemOrigin) -> PResult<()> + 'f;

/// An item as the parser hands it over.
pub enum ItemRead<'n> {
    /// Its tree (skimmed values left empty when skimming).
    Tree(Node),
    /// Read by lines when skimming (see `lines`): its identity only.
    Identity(&'n [super::IdentityPart]),
    /// Its whole tree, holding an alias (at this position of the source) that names no
    /// anchor before it in the item: the item cannot be written to a file of its own.
    Dangling(Node, usize),
}

/// Reads the value of the ResourceList's `items` key, handing the items to the caller instead
/// of building the list. The list node left in the tree is empty (its span says where it was).
pub(crate) struct ItemsHook<'h, 'f> {
    on_item: &'h mut OnItem<'f>,
}

impl<'h, 'f> ItemsHook<'h, 'f> {
    /// The value after `items:` in a block mapping at column `col`.
    pub(super) fn block_value(
        &mut self,
        p: &mut Parser,
        col: usize,
    ) -> PResult<(Node, Option<Span>)> {
        p.skip_inline_ws();
        let c = p.peek();
        if c == b'#' || is_eol(c) {
            let empty_at = p.pos;
            let comment = p.comment_here()?;
            let next = p.next_line()?;
            if next.indent >= col as i64 && p.at_seq_entry() && !p.line_tab {
                let seq_col = p.col();
                let on_item = &mut *self.on_item;
                // The list is a level of nesting, as in a flow (JSON) ResourceList.
                p.enter()?;
                let rest = p.values_left;
                // Each item has its own anchors; the document's are back after the list.
                let outer = std::mem::take(&mut p.anchors);
                if p.skim.items {
                    // Each item's root mapping.
                    p.skim.at = p.depth + 1;
                }
                let span =
                    p.parse_block_seq_streaming(seq_col, next.lead, true, &mut |p, n, t, at| {
                        let origin = ItemOrigin::Block { at: at as u32 };
                        let dangling = p.dangling.take();
                        let anchor = std::mem::take(&mut p.skim.anchor);
                        if anchor || dangling.is_some() {
                            // An alias in the item's metadata may name the skimmed anchor;
                            // a dangling alias is named by its field path.
                            let whole = match p.skim.items {
                                true => Parser::reparse_item(p.s, origin, p.max_values)?,
                                false => n,
                            };
                            let read = match dangling {
                                Some(alias) => ItemRead::Dangling(whole, alias),
                                None => ItemRead::Tree(whole),
                            };
                            return on_item(read, t, origin);
                        }
                        if std::mem::take(&mut p.lines.read) {
                            return on_item(ItemRead::Identity(&p.lines.parts), t, origin);
                        }
                        on_item(ItemRead::Tree(n), t, origin)
                    })?;
                p.skim.at = 0;
                p.values_left = rest;
                p.anchors = outer;
                p.leave();
                let mut n = Node::with_kind(Kind::Sequence(Vec::new()));
                n.set_src(Some(span));
                return Ok((n, comment));
            }
            if next.indent > col as i64 {
                return p.err("items must be a list of objects");
            }
            p.rewind(&next);
            return Ok((null_at(empty_at), comment));
        }
        if c == b'[' {
            return Ok((self.flow_value(p, col as i64)?, None));
        }
        let (value, comment) = p.parse_block_node(col as i64, Ctx::MapValue)?;
        if value.is_null() {
            return Ok((value, comment));
        }
        p.err("items must be a list of objects")
    }

    /// A flow sequence of items at `pos`, inside a block parent indented `n`.
    pub(super) fn flow_value(&mut self, p: &mut Parser, n: i64) -> PResult<Node> {
        p.enter()?;
        let start = p.pos;
        p.pos += 1;
        let on_item = &mut *self.on_item;
        let rest = p.values_left;
        let outer = std::mem::take(&mut p.anchors);
        p.flow_seq_entries(n, start, true, &mut |p, item, at, ls| {
            let origin = ItemOrigin::Flow {
                at: at as u32,
                ls: ls as u32,
            };
            let read = match p.dangling.take() {
                Some(alias) => ItemRead::Dangling(item.value, alias),
                None => ItemRead::Tree(item.value),
            };
            on_item(read, item.trivia, origin)
        })?;
        p.values_left = rest;
        p.anchors = outer;
        p.leave();
        let mut node = Node::with_kind(Kind::Sequence(Vec::new()));
        node.set_flow(true);
        node.set_src(Some(Span::new(start, p.pos)));
        Ok(node)
    }
}

impl<'a> Parser<'a> {
    /// Parses a ResourceList document. The `items` sequence is streamed: each item is handed
    /// to `on_item` with its trivia and where a re-parse starts, then dropped, so a large list
    /// never sits in memory as one tree. Returns the root mapping's other entries (`items`
    /// with an empty list) and whether the root was a flow mapping (JSON).
    pub(crate) fn parse_resource_list(
        &mut self,
        on_item: &mut OnItem,
    ) -> PResult<(Vec<Entry>, bool)> {
        let empty = |p: &Parser| p.err("the input is empty");
        let Some(ctx) = self.begin_document()? else {
            return empty(self);
        };
        if ctx == Ctx::DocLine {
            self.skip_inline_ws();
            if self.peek() == b'#' || is_eol(self.peek()) {
                self.comment_here()?;
                if self.next_line()?.indent < 0 {
                    return empty(self);
                }
            }
        }
        self.record_dangling = true;
        let mut hook = ItemsHook { on_item };
        if self.peek() == b'{' {
            let root = self.parse_flow_root(&mut hook)?;
            self.take_line_comment()?;
            self.end_document()?;
            return Ok((root, true));
        }
        let start = self.pos;
        if !self.root_is_mapping()? {
            let what = if self.at_seq_entry() || self.peek() == b'[' {
                "a list"
            } else {
                "a scalar"
            };
            return Err(self.error_at(start, format!("expected a mapping, found {what}")));
        }
        if self.tab_before() || (ctx == Ctx::DocLine && !self.first_on_line()) {
            return self.err("the ResourceList mapping must start at the beginning of a line");
        }
        let col = self.col();
        let root = self.parse_block_mapping(col, None, Some(&mut hook))?;
        self.end_document()?;
        let Kind::Mapping(entries) = root.kind else {
            return Err(self.error_at(start, "expected a mapping"));
        };
        Ok((entries, false))
    }

    /// A root flow mapping, its `items` streamed.
    fn parse_flow_root(&mut self, hook: &mut ItemsHook) -> PResult<Vec<Entry>> {
        self.enter()?;
        let start = self.pos;
        self.pos += 1;
        let mut entries: Vec<Entry> = Vec::new();
        self.flow_map_entries_with(-1, start, Some(hook), &mut |p, e, at| {
            p.check_new_key(&entries, &e.key, at)?;
            entries.push(e);
            Ok(())
        })?;
        self.check_keys_unique(&entries)?;
        self.leave();
        Ok(entries)
    }

    /// Whether the content at `pos` starts a block mapping (its first key is followed by
    /// `: `); `pos` is left where it was.
    fn root_is_mapping(&mut self) -> PResult<bool> {
        let (pos, ls) = (self.pos, self.ls);
        let result = (|| {
            self.parse_props(false)?;
            if matches!(self.peek(), b'?' | b':') && is_ws_or_eol(self.peek_at(1)) {
                return Ok(true);
            }
            match self.peek() {
                b'*' => drop(self.parse_alias()?),
                b'"' | b'\'' => drop(self.parse_quoted(-1)?),
                b'[' | b'{' => drop(self.parse_flow_node(-1)?),
                b'-' if is_ws_or_eol(self.peek_at(1)) => return Ok(false),
                _ => return Ok(self.scan_plain_line(self.pos, false).1 == Stop::Colon),
            }
            self.skip_inline_ws();
            Ok(self.peek() == b':' && is_ws_or_eol(self.peek_at(1)))
        })();
        (self.pos, self.ls) = (pos, ls);
        result
    }

    /// Parses again an item found earlier by [`Parser::parse_resource_list`], with at most
    /// `max_values` entries and items (see [`Parser::with_value_limit`]).
    pub fn reparse_item(src: &'a str, origin: ItemOrigin, max_values: usize) -> PResult<Node> {
        if src.len() > super::MAX_TEXT {
            return Parser::new(src).begin_document().map(|_| Node::mapping());
        }
        match origin {
            ItemOrigin::Block { at } => {
                let at = at as usize;
                let mut p = Parser::at(src, at).with_value_limit(max_values);
                p.record_dangling = true;
                let dash_col = (at - 1 - p.ls) as i64;
                p.parse_block_node(dash_col, Ctx::SeqItem).map(|(n, _)| n)
            }
            ItemOrigin::Flow { at, ls } => {
                let mut p =
                    Parser::at_line(src, at as usize, ls as usize).with_value_limit(max_values);
                p.record_dangling = true;
                p.flow_seq_entry(-1)
            }
        }
    }
}

/// Where an item of `items` came from, so it can be parsed again.
#[derive(Clone, Copy, PartialEq, Eq, Debug)]
pub enum ItemOrigin {
    /// A block sequence item: the position just after its `-`.
    Block { at: u32 },
    /// A flow (JSON) item starting at `at`, on the line that starts at `ls`.
    Flow { at: u32, ls: u32 },
}
